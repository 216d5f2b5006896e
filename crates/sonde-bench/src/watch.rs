//! `sonde watch`'s own part of the inner loop: from a save to the re-run call's result printed,
//! against the same server started and called directly, with the debounce stated apart (it is a
//! wait the author chose, not Sonde's work). The server is the fixture, which starts in
//! milliseconds, so what is left is Sonde's: noticing the save, stopping the old server with the
//! ladder, starting the new one, listing its interface to say what changed, and the call.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::direct::Direct;
use crate::figures::{median_min_max, Report, Row};

/// The quiet period asked of `sonde watch` here; subtracted, and said.
const DEBOUNCE_MS: u64 = 50;

pub fn run(report: &mut Report, saves: usize) {
    let dir = std::env::temp_dir().join(format!("sonde-bench-watch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let source = dir.join("server.src");
    std::fs::write(&source, "0").unwrap();
    let fixture = crate::fixture_argv(&[]);
    let mut watch = Command::new(crate::sibling("sonde"))
        .args(["--quiet", "watch", "--debounce", &DEBOUNCE_MS.to_string(), "--path"])
        .arg(&source)
        .args(["--call", "echo", "text=saved", "--"])
        .args(&fixture)
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start sonde watch");
    let (lines, answers) = mpsc::channel();
    let stdout = watch.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line == "saved" && lines.send(Instant::now()).is_err() {
                return;
            }
        }
    });
    let answered = |limit: Duration| answers.recv_timeout(limit).expect("sonde watch answered the call");
    answered(Duration::from_secs(30));
    let mut looped = Vec::with_capacity(saves);
    for i in 1..=saves {
        // A pause first, so each save is a burst of its own.
        std::thread::sleep(Duration::from_millis(200));
        let saved = Instant::now();
        std::fs::write(&source, i.to_string()).unwrap();
        let printed = answered(Duration::from_secs(30));
        looped.push(printed.duration_since(saved).as_secs_f64() * 1000.0);
    }
    unsafe { libc::kill(watch.id() as i32, libc::SIGINT) };
    let _ = watch.wait();
    let _ = std::fs::remove_dir_all(&dir);

    let direct: Vec<f64> = (0..saves)
        .map(|_| {
            let started = Instant::now();
            let mut server = Direct::start(&[]);
            server.echo_calls(1);
            drop(server);
            started.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    let (loop_ms, loop_min, loop_max) = median_min_max(looped);
    let (direct_ms, _, _) = median_min_max(direct);
    let own = loop_ms - DEBOUNCE_MS as f64 - direct_ms;
    report.row(Row {
        figure: format!("watch: a save to the re-run call's result, median of {saves} (the {DEBOUNCE_MS} ms debounce apart)"),
        sonde: format!("{own:.0} ms Sonde's own ({loop_ms:.0} ms in all)"),
        baseline: format!("{direct_ms:.0} ms the fixture started and called directly"),
        ratio: None,
        target: "≤ 100 ms".into(),
        met: Some(own <= 100.0),
    });
    report.detail(
        "watch",
        json!({"saves": saves, "debounce_ms": DEBOUNCE_MS, "save_to_answer_ms": loop_ms,
               "save_to_answer_min_ms": loop_min, "save_to_answer_max_ms": loop_max,
               "direct_ms": direct_ms, "sonde_own_ms": own}),
    );
}
