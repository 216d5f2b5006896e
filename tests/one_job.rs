//! A server started for one job (`Hub::one_job`): its process is gone after the job, whether
//! the job succeeded, failed, or was dropped unfinished by its caller.

mod common;

use std::time::Duration;

use common::{alive, fixture, new_log, wait_for};
use serde_json::json;
use sonde_core::{Hub, HubError, RequestError};

/// The job's answer comes back, and the server it ran on has exited by then, gracefully.
#[tokio::test]
async fn the_server_is_gone_after_a_job_that_succeeded() {
    let hub = Hub::new(new_log("one-job-ok"));
    let done = hub
        .one_job(&fixture(&[]), None, &|_, _| {}, |session| async move {
            let pid = session.conn.pid().await.expect("a stdio server has a pid") as i32;
            let echoed = session.call_tool("echo", Some(json!({"text": "once"}))).await;
            (pid, echoed)
        })
        .await
        .expect("the fixture opens");
    let (pid, echoed) = done.output;
    assert_eq!(echoed.unwrap()["content"][0]["text"], "once");
    assert!(!alive(pid), "pid {pid} outlived its job");
    let exit = done.stopped.expect("the stop succeeded").expect("the server was running until stopped");
    assert_eq!(exit.code, Some(0), "the fixture exits on stdin's end: {exit:?}");
    assert!(hub.session(done.conn).is_err(), "the job's connection is forgotten");
    // Its states say it was a job's, so a front end does not keep a card for it.
    let state = hub.states().get(done.conn).expect("its last state");
    assert!(state.job && state.state.is_final(), "{state:?}");
    let ordinary = hub.connect(&fixture(&[])).await.unwrap();
    assert!(!hub.states().get(ordinary).unwrap().job);
    hub.disconnect(ordinary).await.unwrap();
}

/// A job that fails (its request answered with an error) is returned as it failed, and its
/// server is stopped all the same.
#[tokio::test]
async fn the_server_is_gone_after_a_job_that_failed() {
    let hub = Hub::new(new_log("one-job-failed"));
    let done = hub
        .one_job(&fixture(&[]), None, &|_, _| {}, |session| async move {
            let pid = session.conn.pid().await.expect("a stdio server has a pid") as i32;
            (pid, session.request("no/such/method", None).await)
        })
        .await
        .expect("the fixture opens");
    let (pid, failed) = done.output;
    assert!(matches!(failed, Err(RequestError::Rpc { .. })), "{failed:?}");
    assert!(!alive(pid), "pid {pid} outlived its failed job");
    assert!(done.stopped.is_ok(), "{:?}", done.stopped);
}

/// A caller that gives up on the job (its future dropped mid-job) still leaves no server behind.
#[tokio::test]
async fn the_server_is_gone_after_a_job_dropped_unfinished() {
    let hub = Hub::new(new_log("one-job-dropped"));
    let (pid_tx, pid_rx) = std::sync::mpsc::channel();
    let config = fixture(&[]);
    let job = hub.one_job(&config, None, &|_, _| {}, |session| async move {
        pid_tx.send(session.conn.pid().await.expect("a stdio server has a pid") as i32).unwrap();
        std::future::pending::<()>().await
    });
    let given_up = tokio::time::timeout(Duration::from_secs(3), job).await;
    assert!(given_up.is_err(), "the job never ends by itself");
    let pid = pid_rx.try_recv().expect("the job started before it was given up");
    wait_for(Duration::from_secs(10), "the dropped job's server to be stopped", || !alive(pid)).await;
}

/// A server that cannot be opened is the error, and no process is left of it.
#[tokio::test]
async fn an_opening_that_fails_is_the_error_and_runs_no_job() {
    let hub = Hub::new(new_log("one-job-unopened"));
    let mut config = fixture(&[]);
    let sonde_core::Target::Stdio(spec) = &mut config.target else { unreachable!("the fixture is stdio") };
    spec.program = "/nonexistent/sonde-no-such-server".into();
    let ran = std::sync::atomic::AtomicBool::new(false);
    let opened = hub
        .one_job(&config, None, &|_, _| {}, |_| async {
            ran.store(true, std::sync::atomic::Ordering::Relaxed);
        })
        .await;
    assert!(matches!(opened, Err(HubError::Spawn { .. } | HubError::Handshake { .. })), "{opened:?}");
    assert!(!ran.load(std::sync::atomic::Ordering::Relaxed), "a job ran without a server");
}
