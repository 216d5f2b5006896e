//! `sonde load` (issue 56) against the fixture's load knobs, each figure checked against what the
//! fixture is known to do: a fast server's rate and percentiles, a stall that must show in the
//! tail (open loop: latency from when each call was due), slow answers, errors at a rate, a
//! death mid-run, stepped load, the closed loop, the warm-up, `{{seq}}` in the arguments, the
//! budget's exit code and reports, and Ctrl-C.

mod support;

use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;
use support::*;

/// `sonde load ARGS -- sonde-fixture KNOBS` with `--json`: the exit code and the document.
fn load(name: &str, args: &[&str], knobs: &[&str]) -> (i32, Value, String) {
    let out = run(name, args, knobs, true);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let doc = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {out:?}"));
    (out.status.code().unwrap_or(-1), doc, stderr)
}

fn run(name: &str, args: &[&str], knobs: &[&str], json: bool) -> Output {
    // A home of the run's own: a test's files stay in the test's.
    let home = data_home(&format!("load-run-{name}"));
    let fixture = fixture_bin();
    let mut all = vec!["load"];
    all.extend(args);
    if json {
        all.push("--json");
    }
    all.extend(["--", fixture.to_str().unwrap()]);
    all.extend(knobs);
    sonde(&home, &all)
}

fn ms(doc: &Value, p: &str) -> f64 {
    doc["latency_ms"][p].as_f64().unwrap_or_else(|| panic!("no {p}: {doc}"))
}

#[test]
fn a_fast_server_gets_the_rate_asked_and_every_call_answered() {
    let (code, doc, stderr) = load("fast", &["echo", "message=hi", "--rate", "200", "--duration", "2"], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(doc["count"], 400);
    assert_eq!(doc["errors"], 0);
    assert_eq!(doc["loop"], "open");
    let rate = doc["rate"].as_f64().unwrap();
    assert!((rate - 200.0).abs() <= 2.0, "the rate reached {rate}");
    let seconds = doc["seconds"].as_array().unwrap();
    assert_eq!(seconds.len(), 2, "{doc}");
    assert_eq!(seconds.iter().map(|s| s["answered"].as_u64().unwrap()).sum::<u64>(), 400);
    assert!(seconds[0]["rss_bytes"].as_u64().unwrap() > 0, "the server's memory is sampled: {doc}");
    assert!(ms(&doc, "p50") <= ms(&doc, "p90") && ms(&doc, "p99") <= ms(&doc, "max"));
    let buckets: u64 =
        doc["histogram"].as_array().unwrap().iter().map(|b| b["count"].as_u64().unwrap()).sum();
    assert_eq!(buckets, 400);
    assert!(stderr.contains("sonde: load   1 s: "), "a progress line each second: {stderr}");
    assert_eq!(doc["recorded"], "every call");
}

/// The 100th call stalls a second and the calls behind it wait: an open loop counts each of
/// them from when it was due, so the tail holds the stall (a closed loop would show one slow
/// call among many fast ones).
#[test]
fn a_stall_shows_in_the_tail() {
    let (code, doc, stderr) = load(
        "stall",
        &["echo", "message=hi", "--rate", "100", "--duration", "3"],
        &["--stall-on-call", "100", "--stall-ms", "1000"],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(doc["count"], 300);
    // About 100 of the 300 calls fell due during the stall, delayed from 1 s down to 0: the 99th
    // percentile is near the stall's length, and at least its length times the share delayed.
    assert!(ms(&doc, "p99") >= 900.0, "{doc}");
    assert!(ms(&doc, "max") >= 1000.0, "{doc}");
    assert!(ms(&doc, "p50") < 200.0, "{doc}");
}

#[test]
fn slow_answers_are_measured_at_their_known_delay() {
    let (code, doc, stderr) =
        load("slow", &["echo", "message=hi", "--rate", "10", "--duration", "2"], &["--reply-delay-ms", "40"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(doc["count"], 20);
    assert!((40.0..80.0).contains(&ms(&doc, "p50")), "{doc}");
    assert!(ms(&doc, "p50") >= 40.0 && ms(&doc, "max") < 200.0, "{doc}");
}

/// Every tenth call fails: the errors are counted by kind; a budget of 5% is broken (exit 5,
/// the term and the share measured), one of 20% holds.
#[test]
fn errors_at_a_rate_are_counted_by_kind_and_held_to_the_budget() {
    let args = ["echo", "message=hi", "--rate", "100", "--duration", "1", "--slo", "errors<5%,p99<5s"];
    let (code, doc, _) = load("errors", &args, &["--error-every", "10"]);
    assert_eq!(code, 5, "{doc}");
    assert_eq!(doc["errors"], 10);
    assert_eq!(doc["errors_by_kind"]["rpc -32603"], 10);
    assert_eq!(doc["slo"][0]["held"], false);
    assert_eq!(doc["slo"][0]["measured"], "errors were 10.000% (10 of 100)");
    assert_eq!(doc["slo"][1]["held"], true);
    let held = ["echo", "message=hi", "--rate", "100", "--duration", "1", "--slo", "errors<20%"];
    assert_eq!(load("errors-held", &held, &["--error-every", "10"]).0, 0);
    // Without a budget, any failed call fails the run.
    assert_eq!(load("errors-bare", &held[..6], &["--error-every", "10"]).0, 5);
}

#[test]
fn a_server_that_dies_mid_run_stops_the_run_and_says_its_last_words() {
    let (code, doc, stderr) = load(
        "death",
        &["echo", "message=hi", "--rate", "50", "--duration", "4"],
        &["--crash-after-calls", "50"],
    );
    assert_eq!(code, 1, "{stderr}");
    let died = doc["server_died_s"].as_f64().unwrap_or_else(|| panic!("{doc}"));
    assert!((0.9..1.6).contains(&died), "{doc}");
    assert_eq!(doc["errors_by_kind"]["server died"], 1, "{doc}");
    assert_eq!(doc["count"], 50, "sending stopped at the death: {doc}");
    assert!(stderr.contains("crashing during tools/call 50 as asked"), "{stderr}");
}

#[test]
fn stepped_load_holds_each_rate_for_its_while() {
    let (code, doc, stderr) = load("steps", &["echo", "message=hi", "--stages", "20/s:1s,80/s:1s"], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(doc["count"], 100);
    let sent: Vec<u64> =
        doc["seconds"].as_array().unwrap().iter().map(|s| s["sent"].as_u64().unwrap()).collect();
    assert!(sent.len() == 2 && (18..=22).contains(&sent[0]) && (78..=82).contains(&sent[1]), "{sent:?}");
    assert_eq!(doc["asked"], "20/s for 1 s, then 80/s for 1 s");
}

#[test]
fn a_closed_loop_sends_as_answers_come_and_says_so() {
    let (code, doc, stderr) =
        load("closed", &["echo", "message=hi", "--concurrency", "4", "--count", "200"], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(doc["count"], 200);
    assert_eq!(doc["loop"], "closed");
    assert_eq!(doc["asked"], "4 callers");
}

/// The warm-up's calls are sent and not counted; `{{seq}}` numbers every call, warm-up
/// included, and stays text where the schema wants text.
#[test]
fn the_warmup_is_not_counted_and_seq_numbers_every_call() {
    let home = data_home("warmup");
    std::fs::create_dir_all(&home).unwrap();
    let record = home.join("heard.jsonl");
    let knobs = ["--record", record.to_str().unwrap()];
    let (code, doc, stderr) = load(
        "warmup",
        &["echo", "message=n{{seq}}", "--rate", "50", "--duration", "1", "--warmup", "0.5"],
        &knobs,
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(doc["count"], 50);
    assert_eq!(doc["warmup_s"], 0.5);
    let heard = std::fs::read_to_string(&record).unwrap();
    let messages: Vec<String> = heard
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m["method"] == "tools/call")
        .map(|m| m["params"]["arguments"]["message"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(messages.len(), 75, "25 warm-up calls and 50 counted");
    assert_eq!(messages[0], "n0");
    assert_eq!(messages[74], "n74");
}

#[test]
fn a_broken_budget_is_a_junit_failure_and_sarif_the_multitool_accepts() {
    let home = data_home("load-reports");
    std::fs::create_dir_all(&home).unwrap();
    let junit = home.join("load.xml");
    let (code, _, _) = load(
        "reports",
        &[
            "echo",
            "message=hi",
            "--rate",
            "50",
            "--duration",
            "1",
            "--slo",
            "p99<1ms",
            "--reporter",
            "junit",
            "--out",
            junit.to_str().unwrap(),
        ],
        &["--reply-delay-ms", "5"],
    );
    assert_eq!(code, 5);
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("<testcase name=\"p99&lt;1ms\""), "{xml}");
    assert!(xml.contains("p99&lt;1ms broken: p99 was"), "{xml}");
    let sarif = home.join("load.sarif");
    let sarif_args = [
        "echo",
        "message=hi",
        "--rate",
        "50",
        "--duration",
        "1",
        "--slo",
        "p99<1ms",
        "--reporter",
        "sarif",
        "--out",
        sarif.to_str().unwrap(),
    ];
    assert_eq!(load("reports-sarif", &sarif_args, &["--reply-delay-ms", "5"]).0, 5);
    assert_eq!(multitool_errors(&sarif), Vec::<String>::new());
}

#[test]
fn a_mix_sends_each_entry_its_share() {
    let home = data_home("mix");
    std::fs::create_dir_all(&home).unwrap();
    let mix = home.join("mix.yaml");
    std::fs::write(
        &mix,
        "- tool: echo\n  arguments: {message: a}\n  weight: 3\n- tool: echo\n  arguments: {message: b}\n",
    )
    .unwrap();
    let record = home.join("heard.jsonl");
    let args = ["--mix", mix.to_str().unwrap(), "--rate", "40", "--count", "40"];
    let (code, doc, stderr) = load("mix", &args, &["--record", record.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(doc["count"], 40);
    let heard = std::fs::read_to_string(&record).unwrap();
    assert_eq!(heard.matches(r#""message":"a""#).count(), 30);
    assert_eq!(heard.matches(r#""message":"b""#).count(), 10);
}

#[test]
fn usage_mistakes_are_said_before_anything_starts() {
    for (args, says) in [
        (vec!["echo", "--slo", "p98<5ms"], "--slo"),
        (vec!["echo", "--rate", "fast"], "--rate"),
        (vec!["echo", "--duration", "soon"], "--duration"),
        (vec!["echo", "--stages", "10/s"], "--stages"),
        (vec!["echo", "--concurrency", "0"], "--concurrency"),
        (vec!["echo", "--connections", "2"], "--connections is for --url"),
    ] {
        let out = run("usage", &args, &[], false);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(says), "{args:?}: {out:?}");
    }
    let out = run("unknown-tool", &["ecko", "--rate", "10", "--count", "1"], &[], false);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("echo"), "the closest is named: {out:?}");
}

/// Ctrl-C stops sending, waits for the calls in flight, prints the report of what ran, exit 130.
#[test]
fn ctrl_c_prints_the_report_of_what_ran() {
    let home = data_home("load-interrupt");
    let fixture = fixture_bin();
    let mut child = Command::new(SONDE)
        .args(["load", "echo", "message=hi", "--rate", "50", "--duration", "30", "--json", "--"])
        .arg(&fixture)
        .env("XDG_DATA_HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = Lines::of(child.stderr.take().unwrap());
    stderr.until(Duration::from_secs(20), |l| l.starts_with("sonde: load   1 s:")).expect("a first second");
    // SAFETY: kill has no memory-safety preconditions.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{:?}", stderr.rest(Duration::from_secs(1)));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["interrupted"], true);
    let count = doc["count"].as_u64().unwrap();
    assert!((50..500).contains(&count), "{doc}");
    assert_eq!(doc["unfinished"], 0);
}

/// Over HTTP, `--connections 3` opens two more sessions and spreads the calls over the three in
/// turn; each is closed after the run.
#[test]
fn over_http_the_calls_spread_over_sessions_of_their_own() {
    let home = data_home("load-http");
    std::fs::create_dir_all(&home).unwrap();
    let record = home.join("posts.jsonl");
    let (server, url) = http_fixture(&["--record", record.to_str().unwrap()]);
    let out = sonde(
        &home,
        &[
            "--url",
            &url,
            "load",
            "echo",
            "text=hi",
            "--rate",
            "30",
            "--count",
            "30",
            "--connections",
            "3",
            "--json",
        ],
    );
    drop(server);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let doc = stdout_json(&out);
    assert_eq!(doc["count"], 30);
    assert_eq!(doc["errors"], 0);
    let posts = std::fs::read_to_string(&record).unwrap();
    let methods: Vec<String> = posts
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|m| m["method"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(methods.iter().filter(|m| *m == "initialize").count(), 3, "{methods:?}");
    assert_eq!(methods.iter().filter(|m| *m == "tools/call").count(), 30);
    assert!(String::from_utf8_lossy(&out.stderr).contains("3 sessions, the calls spread over them in turn"));
}
