//! The sessions folder kept within its budget, as a user meets it from the CLI: the settings
//! file says how many sessions and bytes; a command that records a session prunes the oldest
//! first as it starts and as it ends, says what went on stderr, and keeps a pinned session
//! (`sonde sessions --pin`) and the session it writes.

mod support;

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use support::{data_home, sonde};

/// A finished session of `size` bytes in the folder, started `age` seconds after the first.
fn old_session(dir: &Path, i: u64, size: usize) -> PathBuf {
    let path = dir.join(format!("2026-01-01T00-00-{i:02}.000Z-{}.jsonl", 100 + i));
    fs::write(&path, vec![b'x'; size]).unwrap();
    let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000 + i);
    File::options().write(true).open(&path).unwrap().set_modified(at).unwrap();
    path
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn the_oldest_sessions_go_first_and_a_pinned_one_stays() {
    let home = data_home("budget");
    let sessions = home.join("sonde/sessions");
    fs::create_dir_all(&sessions).unwrap();
    let old: Vec<_> = (0..5).map(|i| old_session(&sessions, i, 2000)).collect();
    // Keep three sessions, the one a command is about to record among them.
    fs::create_dir_all(home.join("config/sonde")).unwrap();
    fs::write(home.join("config/sonde/settings.json"), r#"{"sessions":{"keep":3},"theme":"dark"}"#).unwrap();

    let pinned = old[0].file_name().unwrap().to_str().unwrap().to_owned();
    let pin = sonde(&home, &["sessions", "--pin", &pinned]);
    assert!(pin.status.success(), "{}", stderr(&pin));
    assert!(stderr(&pin).contains(&format!("pinned {pinned}")), "{}", stderr(&pin));

    let out = sonde(&home, &["tools", "list", "--", support::SONDE, "demo-server"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Six sessions with the new one; three stay: the pinned oldest, the newest old one and the
    // new one. The three between go, oldest first, and it is said once.
    let said = stderr(&out);
    assert!(
        said.contains("sonde: removed the 3 oldest sessions (5.9 KiB) to keep the sessions folder within 3 sessions and"),
        "{said}"
    );
    assert_eq!(said.matches("removed the").count(), 1, "{said}");
    assert!(old[0].exists(), "the pinned session was removed");
    assert!(old[1..4].iter().all(|p| !p.exists()), "an old session was kept");
    assert!(old[4].exists(), "the newest old session was removed");

    let listed = sonde(&home, &["sessions"]);
    let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
    assert_eq!(listed.lines().count(), 3, "{listed}");
    assert!(listed.lines().any(|l| l.starts_with(&pinned) && l.contains("(pinned)")), "{listed}");

    // The settings file kept what the budget does not own.
    let settings = fs::read_to_string(home.join("config/sonde/settings.json")).unwrap();
    assert!(settings.contains("\"theme\":\"dark\""), "{settings}");

    // Unpinned, it goes at the next command, as the oldest.
    let unpin = sonde(&home, &["sessions", "--unpin", &pinned]);
    assert!(unpin.status.success(), "{}", stderr(&unpin));
    let out = sonde(&home, &["tools", "list", "--", support::SONDE, "demo-server"]);
    assert!(stderr(&out).contains("sonde: removed the oldest session (2.0 KiB)"), "{}", stderr(&out));
    assert!(!old[0].exists());
    let _ = fs::remove_dir_all(&home);
}

#[test]
fn pinning_a_session_that_is_not_there_is_a_usage_error() {
    let home = data_home("budget-missing");
    let out = sonde(&home, &["sessions", "--pin", "no-such-session"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("no session \"no-such-session\""), "{}", stderr(&out));
    let _ = fs::remove_dir_all(&home);
}
