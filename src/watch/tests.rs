use std::time::Duration;

use super::*;

fn spec(dir: &Path, ignore: &[&str]) -> WatchSpec {
    WatchSpec {
        paths: vec![dir.to_owned()],
        ignore: ignore.iter().map(|g| g.to_string()).collect(),
        debounce: Duration::from_millis(150),
    }
}

/// The next burst, or `None` when none comes within 2 s.
async fn next_within(watch: &mut SourceWatch) -> Option<SourceChange> {
    tokio::time::timeout(Duration::from_secs(2), watch.next()).await.ok().flatten()
}

#[test]
fn build_folders_swap_files_gitignored_files_and_given_globs_are_no_change() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".gitignore"), "*.log\n/generated/\n").unwrap();
    for folder in ["target/debug", "node_modules/x", "__pycache__", "generated", "src"] {
        std::fs::create_dir_all(dir.path().join(folder)).unwrap();
    }
    let ignored = Ignored::new(&[dir.path().to_owned()], &["*.snap".into()]).unwrap();
    let is = |rel: &str| ignored.is_ignored(&dir.path().join(rel));
    for rel in [
        "target/debug/server",
        "node_modules/x/index.js",
        "__pycache__/s.cpython-311.pyc",
        ".server.py.swp",
        "server.py~",
        "4913",
        "run.log",
        "generated/api.py",
        "src/old.snap",
    ] {
        assert!(is(rel), "{rel} counted as a change");
    }
    for rel in ["server.py", "src/tools.py", "package.json", "src/target.py"] {
        assert!(!is(rel), "{rel} is ignored");
    }
}

#[test]
fn sondes_own_session_logs_are_no_change_even_inside_the_watched_folder() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = crate::log::sessions_dir().unwrap();
    let ignored = Ignored::new(&[dir.path().to_owned(), sessions.clone()], &[]).unwrap();
    assert!(ignored.is_ignored(&sessions.join("2026-12-07T03-22-56.334Z-1.jsonl")));
    assert!(!ignored.is_ignored(&dir.path().join("server.py")));
}

#[test]
fn a_bad_glob_and_a_missing_path_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let e = Ignored::new(&[dir.path().to_owned()], &["a{b".into()]).err().expect("refused");
    assert!(e.to_string().starts_with("--ignore a{b: "), "{e}");
    assert_eq!(e.code(), ErrorCode::BadInput);
    let gone = dir.path().join("gone");
    let e = SourceWatch::start(&spec(&gone, &[])).err().expect("refused");
    assert_eq!(
        e.to_string(),
        format!("{} does not exist; give a file or folder to watch with --path", gone.display())
    );
    assert_eq!(e.code(), ErrorCode::BadInput);
}

#[test]
fn the_source_is_where_the_script_or_program_is_else_the_working_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/server.py"), "").unwrap();
    let at = |program: &str, args: &[&str]| {
        let mut spawn = SpawnSpec::new(program, args.iter().copied());
        spawn.cwd = Some(dir.path().to_owned());
        source_paths(&spawn)
    };
    assert_eq!(at("python3", &["-u", "src/server.py"]), [dir.path().join("src")]);
    assert_eq!(at("./src/server.py", &[]), [dir.path().join("src")]);
    // A program on PATH, or in the system's folders, is no source: the working directory is.
    assert_eq!(at("/usr/bin/env", &["sonde", "demo-server"]), [dir.path().to_owned()]);
    assert_eq!(at("sonde", &["demo-server"]), [dir.path().to_owned()]);
}

#[test]
fn a_change_is_named_by_its_first_file_and_counted() {
    let one = SourceChange { files: vec!["/s/server.py".into()], count: 1 };
    assert_eq!(one.cause(), "a change to server.py");
    let two = SourceChange { files: vec!["/s/a.py".into(), "/s/b.py".into()], count: 2 };
    assert_eq!(two.cause(), "changes to a.py and 1 other file");
    let many = SourceChange { files: vec!["/s/a.py".into()], count: 2000 };
    assert_eq!(many.cause(), "changes to a.py and 1999 other files");
}

#[tokio::test]
async fn a_save_is_one_change_and_an_ignored_file_is_none() {
    let dir = tempfile::tempdir().unwrap();
    let server = dir.path().join("server.py");
    std::fs::write(&server, "v1").unwrap();
    let mut watch = SourceWatch::start(&spec(dir.path(), &[])).unwrap();
    assert_eq!(watch.polling, None);
    std::fs::write(dir.path().join("server.py~"), "backup").unwrap();
    std::fs::create_dir_all(dir.path().join("__pycache__")).unwrap();
    std::fs::write(dir.path().join("__pycache__/server.pyc"), "x").unwrap();
    assert_eq!(next_within(&mut watch).await, None, "an ignored file counted");
    std::fs::write(&server, "v2").unwrap();
    let changed = next_within(&mut watch).await.expect("the save is seen within 2 s");
    assert_eq!(changed.files, [server]);
    assert_eq!(changed.count, 1);
    assert_eq!(next_within(&mut watch).await, None, "one save, one change");
}

#[tokio::test]
async fn a_save_through_a_temporary_file_is_named_by_the_file_saved() {
    let dir = tempfile::tempdir().unwrap();
    let server = dir.path().join("server.py");
    std::fs::write(&server, "v1").unwrap();
    let mut watch = SourceWatch::start(&spec(dir.path(), &[])).unwrap();
    // As sed -i and many editors save: a new file beside it, renamed over it.
    let temporary = dir.path().join("sed0AbC12");
    std::fs::write(&temporary, "v2").unwrap();
    std::fs::rename(&temporary, &server).unwrap();
    let changed = next_within(&mut watch).await.expect("the save is seen");
    assert_eq!(changed.cause(), "changes to server.py and 1 other file");
}

#[tokio::test]
async fn thousands_of_files_at_once_are_one_change() {
    let dir = tempfile::tempdir().unwrap();
    let mut watch = SourceWatch::start(&spec(dir.path(), &[])).unwrap();
    for i in 0..2000 {
        std::fs::write(dir.path().join(format!("f{i:04}.py")), "x").unwrap();
    }
    let changed = next_within(&mut watch).await.expect("the burst is seen");
    assert_eq!(changed.count, 2000, "{:?}", &changed.files[..3]);
    assert_eq!(changed.files.len(), 1000, "named up to the cap");
    assert_eq!(next_within(&mut watch).await, None, "one burst, one change");
}
