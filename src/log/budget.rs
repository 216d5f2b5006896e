//! The sessions folder kept within its budget: so many sessions and so many bytes at most, so it
//! cannot fill a disk by itself.
//!
//! Owns: [`Budget`], pruning a folder to it ([`prune_sessions`]: the oldest sessions go first,
//! with their cards, never one being written and never one its card says is pinned; a writing
//! session's prune also keeps the sessions its front end opened or replayed in the last hour, and
//! can say what it would remove before it does), pinning ([`pin_session`]), and what a prune
//! removed ([`Pruned`]) in words, for the front end that pruned to say where it did.
//! Refuses: where a budget comes from (the settings, `saved::settings`) and telling anyone.

use std::collections::{HashMap, HashSet};
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use serde::Serialize;

use super::sessions::{card_path, read_card, write_card, writer_holds, Card};
use crate::sync::Lock;

/// How many sessions a folder keeps when the settings do not say.
pub const KEEP_SESSIONS: u64 = 500;
/// The most the sessions folder holds when the settings do not say, unless a tenth of the free
/// space when Sonde starts is less.
pub const MAX_BYTES: u64 = 2 << 30;

/// How many sessions, and how many bytes of them, a folder keeps.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Budget {
    pub keep: u64,
    pub max_bytes: u64,
}

impl Budget {
    /// A budget of `keep` sessions, whatever their size.
    pub fn count(keep: u64) -> Budget {
        Budget { keep, max_bytes: u64::MAX }
    }

    /// "500 sessions and 2.0 GiB".
    pub fn words(&self) -> String {
        let sessions = match self.keep {
            1 => "1 session".to_owned(),
            n => format!("{n} sessions"),
        };
        match self.max_bytes {
            u64::MAX => sessions,
            max => format!("{sessions} and {}", size_words(max)),
        }
    }
}

/// One session a prune removed.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Removed {
    pub name: String,
    pub size: u64,
}

/// How long a session opened or replayed stays in use: a prune keeps it meanwhile, and says so.
pub const IN_USE_FOR: Duration = Duration::from_secs(3600);

/// What a writing session keeps its folder by: the budget given, and the sessions its front end
/// used lately (by name, with when).
#[derive(Default)]
pub(super) struct Keeping {
    budget: Option<Budget>,
    used: HashMap<String, Instant>,
}

/// What a prune did (or would do), and what it could not do.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pruned {
    pub budget: Budget,
    /// Oldest first.
    pub removed: Vec<Removed>,
    /// Sessions the budget would remove that were kept: opened or replayed within the last hour.
    pub in_use: Vec<String>,
    /// What the folder holds after it: sessions and bytes.
    pub sessions: u64,
    pub bytes: u64,
}

impl Pruned {
    /// What a front end tells the person: `None` when nothing was removed or kept.
    pub fn words(&self) -> Option<String> {
        let bytes: u64 = self.removed.iter().map(|r| r.size).sum();
        let removed = match self.removed.len() {
            0 => None,
            1 => Some(format!(
                "removed the oldest session ({}) to keep the sessions folder within {}",
                size_words(bytes),
                self.budget.words()
            )),
            n => Some(format!(
                "removed the {n} oldest sessions ({}) to keep the sessions folder within {}",
                size_words(bytes),
                self.budget.words()
            )),
        };
        let kept = match self.in_use.len() {
            0 => None,
            1 => Some("kept 1 older session: it was opened or replayed in the last hour".to_owned()),
            n => Some(format!("kept {n} older sessions: they were opened or replayed in the last hour")),
        };
        match (removed, kept) {
            (Some(removed), Some(kept)) => Some(format!("{removed}; {kept}")),
            (one, other) => one.or(other),
        }
    }

    /// Whether what is left is still over the budget: the sessions kept are all being written
    /// or pinned.
    pub fn over(&self) -> bool {
        self.sessions > self.budget.keep || self.bytes > self.budget.max_bytes
    }
}

/// A size as a person reads it: `512 B`, `4.0 KiB`, `1.5 MiB`, `2.0 GiB`.
pub fn size_words(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

struct Held {
    path: PathBuf,
    modified: SystemTime,
    size: u64,
    /// Never removed: being written, or pinned.
    kept: bool,
}

/// Removes the oldest session files (`*.jsonl`) in `dir`, with their cards, until the folder is
/// within `budget`, and cards left without a session. A session being written or pinned is never
/// removed, however old or large, and nor is one named in `in_use` (said in [`Pruned::in_use`]):
/// a folder of those may stay over its budget (see [`Pruned::over`]). Nothing is removed unless
/// `remove`: what a prune would remove, asked before it.
fn prune_sessions(dir: &Path, budget: Budget, in_use: &HashSet<String>, remove: bool) -> io::Result<Pruned> {
    let mut held = Vec::new();
    let mut cards = Vec::new();
    for item in fs::read_dir(dir)? {
        let item = item?;
        let path = item.path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            let meta = item.metadata()?;
            let kept = File::open(&path).is_ok_and(|f| writer_holds(&f))
                || read_card(&path).is_some_and(|c| c.pinned);
            held.push(Held { modified: meta.modified()?, size: meta.len(), kept, path });
        } else if path.to_string_lossy().ends_with(".card.json") {
            cards.push(path);
        }
    }
    held.sort_by(|a, b| (a.modified, &a.path).cmp(&(b.modified, &b.path)));
    let (mut sessions, mut bytes) = (held.len() as u64, held.iter().map(|h| h.size).sum::<u64>());
    let (mut removed, mut kept_in_use) = (Vec::new(), Vec::new());
    for old in held.iter().filter(|h| !h.kept) {
        if sessions <= budget.keep && bytes <= budget.max_bytes {
            break;
        }
        let name = old.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if in_use.contains(&name) {
            kept_in_use.push(name);
            continue;
        }
        if remove {
            match fs::remove_file(&old.path) {
                Ok(()) => {}
                // Another process pruned it first.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
            let _ = fs::remove_file(card_path(&old.path));
        }
        sessions -= 1;
        bytes -= old.size;
        removed.push(Removed { name, size: old.size });
    }
    for card in cards.into_iter().filter(|_| remove) {
        let session =
            PathBuf::from(card.to_string_lossy().trim_end_matches(".card.json").to_owned() + ".jsonl");
        if !session.exists() {
            let _ = fs::remove_file(card);
        }
    }
    Ok(Pruned { budget, removed, in_use: kept_in_use, sessions, bytes })
}

/// The budget a writing session keeps its folder within.
impl super::WireLog {
    /// Prunes the folder this session is written in to `budget` (this session, being written,
    /// is kept, and so are the sessions used lately), and keeps the budget for
    /// [`WireLog::prune_again`]. A front end calls it when its session starts, and says what
    /// was removed.
    pub fn keep_within(&self, budget: Budget) -> io::Result<Pruned> {
        self.keeping.locked().budget = Some(budget);
        prune_sessions(self.folder(), budget, &self.used_lately(), true)
    }

    /// What [`WireLog::keep_within`] would remove with `budget`, removing nothing: a front end
    /// asks before it lowers the budget.
    pub fn would_remove(&self, budget: Budget) -> io::Result<Pruned> {
        prune_sessions(self.folder(), budget, &self.used_lately(), false)
    }

    /// The session `name` (in this folder) was opened or replayed now: no prune removes it for
    /// the next hour.
    pub fn in_use(&self, name: &str) {
        self.keeping.locked().used.insert(name.to_owned(), Instant::now());
    }

    fn used_lately(&self) -> HashSet<String> {
        let mut keeping = self.keeping.locked();
        keeping.used.retain(|_, at| at.elapsed() < IN_USE_FOR);
        keeping.used.keys().cloned().collect()
    }

    fn folder(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }

    /// Prunes the folder again to the budget given when the session started, when one was: a
    /// front end calls it when its session ends, after [`WireLog::close`].
    pub fn prune_again(&self) -> Option<io::Result<Pruned>> {
        let budget = self.keeping.locked().budget?;
        Some(self.keep_within(budget))
    }

    /// The words for a session larger by itself than the budget it is kept within, which is
    /// never cut: `None` while it fits (or no budget was given). The writer says it once, in
    /// its [`super::Recording`], the moment it happens.
    pub fn outgrown(&self) -> Option<String> {
        self.outgrown_at(std::fs::metadata(&self.path).ok()?.len())
    }

    /// [`WireLog::outgrown`] for a file of `size` bytes.
    pub(super) fn outgrown_at(&self, size: u64) -> Option<String> {
        let budget = self.keeping.locked().budget?;
        (size > budget.max_bytes).then(|| {
            format!(
                "this session ({}) is larger by itself than the sessions budget ({}); it is kept whole",
                size_words(size),
                budget.words()
            )
        })
    }
}

/// Pins the session `name` in `dir` (or unpins it): a pinned session is never pruned. The pin is
/// kept in its card, which a session's writer keeps as it finds it.
pub fn pin_session(dir: &Path, name: &str, pinned: bool) -> io::Result<()> {
    let path = dir.join(name);
    if !path.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("no session {name} in {}", dir.display()),
        ));
    }
    let card = read_card(&path).unwrap_or_default();
    write_card(&path, &Card { pinned, ..card })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::WireLog;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("sonde-budget-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A finished session of `size` bytes, `age` seconds into 1970 (older is smaller).
    fn session(dir: &Path, name: &str, size: usize, age: u64) -> PathBuf {
        let path = dir.join(format!("{name}.jsonl"));
        fs::write(&path, vec![b'x'; size]).unwrap();
        write_card(&path, &Card::default()).unwrap();
        let at = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000 + age);
        File::options().write(true).open(&path).unwrap().set_modified(at).unwrap();
        path
    }

    fn left(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        names.sort();
        names
    }

    #[test]
    fn the_oldest_go_first_until_the_count_and_the_size_fit() {
        let dir = temp_dir("oldest");
        for (i, size) in [4000, 1000, 3000, 1000, 1000].into_iter().enumerate() {
            session(&dir, &format!("s{i}"), size, i as u64);
        }
        fs::write(dir.join("notes.txt"), "not a session").unwrap();
        // Four may stay by count, 5000 bytes by size: s0 goes for the count, then s1 for the
        // size, small as it is, because it is the oldest left; the larger s2 stays.
        let pruned =
            prune_sessions(&dir, Budget { keep: 4, max_bytes: 5000 }, &HashSet::new(), true).unwrap();
        let names: Vec<_> = pruned.removed.iter().map(|r| (r.name.as_str(), r.size)).collect();
        assert_eq!(names, [("s0.jsonl", 4000), ("s1.jsonl", 1000)]);
        assert_eq!((pruned.sessions, pruned.bytes), (3, 5000));
        assert!(!pruned.over());
        assert_eq!(
            left(&dir),
            ["notes.txt", "s2.card.json", "s2.jsonl", "s3.card.json", "s3.jsonl", "s4.card.json", "s4.jsonl"]
        );
        assert_eq!(
            pruned.words().unwrap(),
            "removed the 2 oldest sessions (4.9 KiB) to keep the sessions folder within 4 sessions and 4.9 KiB"
        );
        // Within the budget, a prune removes nothing and says nothing.
        let again = prune_sessions(&dir, Budget { keep: 4, max_bytes: 5000 }, &HashSet::new(), true).unwrap();
        assert!(again.removed.is_empty() && again.words().is_none());
    }

    #[test]
    fn a_session_used_lately_is_kept_and_said_and_what_would_go_is_told_before_anything_goes() {
        let dir = temp_dir("in-use");
        for i in 0..4 {
            session(&dir, &format!("s{i}"), 100, i);
        }
        let live = WireLog::create_in(&dir).unwrap();
        live.in_use("s0.jsonl");
        // Five with this one: s1 and s2 go to keep three.
        let budget = Budget::count(3);
        // Asked first: s1 and s2 would go (s0, the oldest, was opened lately), and nothing has.
        let would = live.would_remove(budget).unwrap();
        let names: Vec<&str> = would.removed.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(
            (names, would.in_use.clone()),
            (vec!["s1.jsonl", "s2.jsonl"], vec!["s0.jsonl".to_owned()])
        );
        assert_eq!(left(&dir).iter().filter(|n| n.ends_with(".jsonl")).count(), 5, "nothing removed yet");
        let pruned = live.keep_within(budget).unwrap();
        assert_eq!(pruned.removed, would.removed);
        assert_eq!(
            pruned.words().unwrap(),
            "removed the 2 oldest sessions (200 B) to keep the sessions folder within 3 sessions; \
             kept 1 older session: it was opened or replayed in the last hour"
        );
        assert!(left(&dir).contains(&"s0.jsonl".to_owned()));
    }

    #[test]
    fn a_pinned_session_and_one_being_written_are_kept_and_the_rest_go() {
        let dir = temp_dir("kept");
        let pinned = session(&dir, "pinned", 5000, 0);
        pin_session(&dir, "pinned.jsonl", true).unwrap();
        let live = WireLog::create_in(&dir).unwrap();
        File::options().write(true).open(live.path()).unwrap().set_modified(SystemTime::UNIX_EPOCH).unwrap();
        session(&dir, "newer", 10, 5);
        let pruned = prune_sessions(&dir, Budget { keep: 0, max_bytes: 0 }, &HashSet::new(), true).unwrap();
        assert_eq!(pruned.removed, [Removed { name: "newer.jsonl".into(), size: 10 }]);
        assert!(pinned.exists() && live.path().exists());
        // Only those two are left, over the budget: said so.
        assert!(pruned.over());
        // Unpinned, it goes at the next prune; the live one stays while it is written.
        pin_session(&dir, "pinned.jsonl", false).unwrap();
        prune_sessions(&dir, Budget { keep: 0, max_bytes: 0 }, &HashSet::new(), true).unwrap();
        assert!(!pinned.exists() && live.path().exists());
    }

    #[test]
    fn a_pin_outlives_the_writer_rewriting_its_card() {
        let dir = temp_dir("pin-live");
        let live = WireLog::create_in(&dir).unwrap();
        let name = live.path().file_name().unwrap().to_str().unwrap().to_owned();
        pin_session(&dir, &name, true).unwrap();
        // The writer writes its card again as it learns of servers; the pin stays.
        live.write_card().unwrap();
        assert!(read_card(live.path()).unwrap().pinned, "the writer's card dropped the pin");
        assert!(pin_session(&dir, "nothing.jsonl", true)
            .unwrap_err()
            .to_string()
            .contains("no session nothing.jsonl"));
    }

    #[test]
    fn a_live_session_that_outgrows_the_whole_budget_is_told_once_as_it_happens_and_kept() {
        let dir = temp_dir("outgrown");
        let live = WireLog::create_in(&dir).unwrap();
        live.keep_within(Budget { keep: 10, max_bytes: 4096 }).unwrap();
        let mut changes = live.changes.subscribe();
        let entry = || crate::log::Entry::new(1, crate::log::Kind::Stderr, crate::log::Direction::In);
        live.append(entry().with_detail("x".repeat(100)));
        live.flush().unwrap();
        assert_eq!((live.recording().outgrown, live.outgrown()), (None, None), "it fits");
        for _ in 0..3 {
            live.append(entry().with_detail("x".repeat(2000)));
            live.flush().unwrap();
        }
        let words = live.recording().outgrown.expect("told once it is larger than the budget");
        assert!(
            words.starts_with("this session (")
                && words.ends_with(") is larger by itself than the sessions budget (10 sessions and 4.0 KiB); it is kept whole"),
            "{words}"
        );
        // One change says it, however much more is written; and nothing is cut.
        live.append(entry().with_detail("x".repeat(2000)));
        live.flush().unwrap();
        let told: Vec<_> =
            std::iter::from_fn(|| changes.try_recv().ok()).filter_map(|r| r.outgrown).collect();
        assert_eq!(told, [words]);
        assert!(fs::metadata(live.path()).unwrap().len() > 8000);
    }

    #[test]
    fn sizes_read_as_people_read_them() {
        assert_eq!(size_words(512), "512 B");
        assert_eq!(size_words(4096), "4.0 KiB");
        assert_eq!(size_words(3 << 19), "1.5 MiB");
        assert_eq!(size_words(2 << 30), "2.0 GiB");
    }
}
