//! Starting is not silence: while a new server has written nothing at all, the opening says
//! how long it has been starting, so a slow `npx -y` or `uvx` is not mistaken for a hang.
//!
//! Owns: watching the session log for the connection's first output (a stdout line of any
//! kind, or stderr) and reporting [`Stage::Starting`] about once a second until then.
//! Refuses: any effect on the opening itself; the era is decided by answers (`negotiate`).

use std::time::Duration;

use tokio::time::{interval_at, Instant, MissedTickBehavior};

use super::Stage;
use crate::log::{Direction, Follow, Followed, Kind};

/// Reports `Stage::Starting` every second, after the first, until connection `conn` has
/// written anything; then, if it reported any, reports `resume` (the stage the opening is in)
/// and returns. Never returns while the server stays quiet: the caller races it against the
/// opening.
pub(super) async fn report_until_output(
    mut follow: Follow,
    conn: u64,
    resume: Stage,
    report: &(dyn Fn(u64, Stage) + Send + Sync),
) {
    let started = Instant::now();
    let mut beat = interval_at(started + Duration::from_secs(1), Duration::from_secs(1));
    beat.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut reported = false;
    loop {
        tokio::select! {
            // Both are cancellation-safe: a broadcast receive dropped unfinished loses nothing,
            // and a missed tick is simply the next one.
            followed = follow.next() => match followed {
                Some(Followed::Entry(entry, _))
                    if entry.conn == conn && (entry.dir == Direction::In || entry.kind == Kind::Stderr) =>
                {
                    break
                }
                // Entries went by unread: some may be this server's, and a false "still starting"
                // is worse than one report too few.
                Some(Followed::Skipped(_)) => break,
                Some(Followed::Entry(_, _)) => {}
                None => std::future::pending().await,
            },
            _ = beat.tick() => {
                reported = true;
                let secs = u32::try_from(started.elapsed().as_secs()).unwrap_or(u32::MAX);
                report(conn, Stage::Starting(secs));
            }
        }
    }
    if reported {
        report(conn, resume);
    }
}
