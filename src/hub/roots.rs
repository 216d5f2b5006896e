//! Roots a server reads at start: when Sonde offers roots, the first request waits (a little)
//! for the server to ask for them, so a server that applies them as it starts (the filesystem
//! server allows no path until it has) is not sent a call it must refuse.
//!
//! Owns: that wait, bounded, ending once the server has asked and then said anything more (a
//! server applies roots after answering for them: the filesystem server checks each directory
//! first and says so on stderr), or a short while after the ask; and its note in the log.
//! Refuses: answering `roots/list` (the responder does) and any wait when no roots are offered.

use std::time::Duration;

use tokio::time::Instant;

use crate::log::{Direction, Entry, Filter, Followed, Kind, WireLog};

/// The longest the first request waits for the server to ask for roots.
pub const ASK_WAIT: Duration = Duration::from_secs(2);
/// After the ask, how long the first request waits for the server to say anything more.
const APPLY_WAIT: Duration = Duration::from_millis(250);

fn asked(entry: &Entry, conn: u64) -> bool {
    entry.conn == conn
        && entry.dir == Direction::In
        && entry.kind == Kind::Message
        && entry.summary.as_ref().and_then(|s| s.method.as_deref()) == Some("roots/list")
}

/// Waits until connection `conn` has asked for its roots, or `limit` has passed; says which in
/// the log.
pub async fn wait_for_ask(log: &WireLog, conn: u64, limit: Duration) {
    // Followed before the log is read, so an ask between the two is not missed.
    let mut follow = log.follow();
    let filter = Filter { conn: Some(conn), method: Some("roots/list".into()), ..Filter::default() };
    let already = log.entries(&filter).unwrap_or_default().iter().any(|e| asked(e, conn));
    let started = Instant::now();
    let heard = already
        || tokio::time::timeout(limit, async {
            while let Some(followed) = follow.next().await {
                match followed {
                    Followed::Entry(entry, _) if asked(&entry, conn) => return true,
                    // Entries went by unread: the log has them.
                    Followed::Skipped(_) => {
                        if log.entries(&filter).unwrap_or_default().iter().any(|e| asked(e, conn)) {
                            return true;
                        }
                    }
                    Followed::Entry(_, _) => {}
                }
            }
            false
        })
        .await
        .unwrap_or(false);
    let spoke = heard
        && tokio::time::timeout(APPLY_WAIT, async {
            while let Some(followed) = follow.next().await {
                match followed {
                    Followed::Entry(e, _) if e.conn == conn && e.dir == Direction::In && !asked(&e, conn) => {
                        return
                    }
                    _ => {}
                }
            }
        })
        .await
        .is_ok();
    let detail = if heard {
        let then = if spoke { "it said more" } else { "nothing more came" };
        format!(
            "the server asked for the roots Sonde offers and {then} ({} after opening); requests go out now",
            crate::process::duration_words(started.elapsed())
        )
    } else {
        format!(
            "the server did not ask for the roots Sonde offers within {}; requests go out now",
            crate::process::duration_words(limit)
        )
    };
    log.append(Entry::new(conn, Kind::Note, Direction::Meta).with_detail(detail));
}
