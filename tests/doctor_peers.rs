//! `doctor` on real servers written by others (issue 14): server-everything over stdio and
//! Streamable HTTP, the Python `mcp` 2.3.0 server and the TypeScript SDK v2 server over stdio
//! (auto, which lands on 2026-07-28, and 2025-11-25 pinned) and over HTTP.
//! None fails a check, and their frames break no error-level rule; every report is printed, for
//! the warnings to be read.

mod common;

use common::http::HttpServer;
use common::{new_log, peer_bin};
use sonde_core::{CheckStatus, Checkup, CheckupPlan, EraPolicy, Hub, ServerConfig, SpawnSpec};

async fn check_up_peer(name: &str, config: &ServerConfig) -> Checkup {
    check_up_with(name, config, &CheckupPlan::default()).await
}

async fn check_up_with(name: &str, config: &ServerConfig, plan: &CheckupPlan) -> Checkup {
    let hub = Hub::new(new_log(name));
    let report = sonde_core::check_up(&hub, config, plan, &|_| {}).await;
    eprintln!("doctor {name}: {}", report.tally);
    for c in &report.checks {
        eprintln!("  {:<4}  {:<21} {} (seq {:?})", c.status.name(), c.id, c.detail, c.seq);
    }
    let failed: Vec<_> = report.checks.iter().filter(|c| c.status == CheckStatus::Fail).collect();
    assert!(failed.is_empty(), "{name}: failing checks on a real server: {failed:#?}");
    common::no_error_findings(hub.log());
    assert!(report.checks.iter().any(|c| c.id == "handshake" && c.status == CheckStatus::Pass));
    for id in ["ping", "unknown-method", "listings"] {
        assert!(
            report.checks.iter().any(|c| c.id == id && c.status != CheckStatus::Skip),
            "{name}: {id} ran"
        );
    }
    report
}

fn with_era(mut config: ServerConfig, era: EraPolicy) -> ServerConfig {
    config.era = era;
    config
}

#[tokio::test]
async fn server_everything_passes_over_stdio_and_http() {
    let bin = peer_bin("npm/node_modules/.bin/mcp-server-everything");
    let stdio = ServerConfig::stdio(SpawnSpec::new(bin.to_string_lossy(), ["stdio"]));
    // Its long-running tool sends progress every half second, and its SDK drops the reply of a
    // request cancelled while it runs.
    let call = ("trigger-long-running-operation".to_owned(), serde_json::json!({"duration": 2, "steps": 4}));
    let report = check_up_with(
        "doctor-everything",
        &stdio,
        &CheckupPlan { call: Some(call), ..CheckupPlan::default() },
    )
    .await;
    let shutdown =
        report.checks.iter().find(|c| c.id == "shutdown").expect("a stdio server's exit is checked");
    assert_ne!(shutdown.status, CheckStatus::Skip);
    let cancellation = report.checks.iter().find(|c| c.id == "cancellation").expect("the named call ran");
    assert_eq!(cancellation.status, CheckStatus::Pass, "{cancellation:?}");
    // Its -32603 for params that fail the request's schema is its SDK's answer, said as such.
    let invalid = report.checks.iter().find(|c| c.id == "invalid-params").expect("invalid params were sent");
    assert_eq!(invalid.status, CheckStatus::Warn, "{invalid:?}");
    assert!(invalid.detail.contains("the TypeScript SDK's own answer"), "{invalid:?}");

    let http = HttpServer::peer(&bin.to_string_lossy(), &["streamableHttp"], "/mcp");
    check_up_peer("doctor-everything-http", &http.config()).await;
}

/// The window's hub offers roots (the roots editor's, none yet) and takes server questions to a
/// person: server-everything then asks for the roots 350 ms after `initialized`, and a check-up
/// that closed stdin before that question left it waiting for an answer that could not come
/// (SIGTERM, blamed on the server). The check-up lets the server settle first.
#[tokio::test]
async fn server_everything_checked_up_from_a_windows_hub_exits_when_stdin_closes() {
    let bin = peer_bin("npm/node_modules/.bin/mcp-server-everything");
    let config = ServerConfig::stdio(SpawnSpec::new(bin.to_string_lossy(), ["stdio"]));
    let hub = Hub::new(new_log("doctor-everything-window")).with_questions();
    let report = sonde_core::check_up(&hub, &config, &CheckupPlan::default(), &|_| {}).await;
    let shutdown = report.checks.iter().find(|c| c.id == "shutdown").expect("checked");
    assert_eq!(shutdown.status, CheckStatus::Pass, "{shutdown:?}");
    let asked =
        hub.log().entries(&sonde_core::Filter { method: Some("roots/list".into()), ..Default::default() });
    assert!(!asked.unwrap().is_empty(), "server-everything asked for the roots: the case this test is for");
}

#[tokio::test]
async fn the_python_server_passes_in_each_era() {
    let python = peer_bin("py/bin/python");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/py_mcp_server.py");
    let stdio = ServerConfig::stdio(SpawnSpec::new(python.to_string_lossy(), [script, "stdio"]));
    check_up_peer("doctor-python", &stdio).await;
    check_up_peer("doctor-python-legacy", &with_era(stdio, EraPolicy::Legacy)).await;
    let http = HttpServer::peer(&python.to_string_lossy(), &[script, "http", "{port}"], "/mcp");
    check_up_peer("doctor-python-http", &http.config()).await;
}

#[tokio::test]
async fn the_typescript_v2_server_passes_in_each_era() {
    let script = peer_bin("tsv2/ts_v2_server.mjs");
    let stdio =
        ServerConfig::stdio(SpawnSpec::new("node", [script.to_string_lossy().into_owned(), "stdio".into()]));
    check_up_peer("doctor-ts-v2", &stdio).await;
    check_up_peer("doctor-ts-v2-legacy", &with_era(stdio, EraPolicy::Legacy)).await;
    let http = HttpServer::peer("node", &[&script.to_string_lossy(), "http"], "/mcp");
    check_up_peer("doctor-ts-v2-http", &http.config()).await;
}

#[tokio::test]
async fn a_published_skills_server_passes_with_every_file_verified_in_each_era() {
    let script = peer_bin("tsv2/ts_skills_server.mjs");
    let stdio = ServerConfig::stdio(SpawnSpec::new("node", [script.to_string_lossy().into_owned()]));
    for (name, config) in
        [("doctor-skills", stdio.clone()), ("doctor-skills-legacy", with_era(stdio, EraPolicy::Legacy))]
    {
        let report = check_up_peer(name, &config).await;
        let skills = report.checks.iter().find(|c| c.id == "skills").expect("a skills check");
        assert_eq!(skills.status, CheckStatus::Pass, "{skills:?}");
        assert_eq!(skills.detail, "2 skills listed, 4 files read, each verified against its entry");
    }
}

#[tokio::test]
async fn a_tampered_skill_file_fails_the_check_up_with_its_frame() {
    let hub = Hub::new(new_log("doctor-skills-tampered"));
    let report =
        sonde_core::check_up(&hub, &common::fixture(&["--skills"]), &CheckupPlan::default(), &|_| {}).await;
    let skills = report.checks.iter().find(|c| c.id == "skills").expect("a skills check");
    assert_eq!(skills.status, CheckStatus::Fail, "{skills:?}");
    assert!(
        skills.detail.starts_with("4 skills listed, 8 files read; 3 of 8 files do not match their entries")
            && skills.detail.contains("skill://pdf/reference.md")
            && skills.detail.contains("skill://sizes/data.txt")
            && skills.detail.contains("skill://notes/SKILL.md"),
        "{}",
        skills.detail
    );
    // Each mismatch is a check of its rule too, pointing at the reply that shows it.
    for rule in ["skill-file-unverified", "skill-frontmatter-mismatch"] {
        let check = report.checks.iter().find(|c| c.id == rule).unwrap_or_else(|| panic!("no {rule}"));
        assert_eq!(check.status, CheckStatus::Fail, "{check:?}");
        let seq = check.seq.expect("its frame");
        let entry = hub
            .log()
            .entries(&sonde_core::Filter::default())
            .unwrap()
            .into_iter()
            .find(|e| e.seq == seq)
            .unwrap();
        assert!(entry.answers.is_some() && entry.findings.iter().any(|f| f.rule == rule), "{entry:?}");
    }
}
