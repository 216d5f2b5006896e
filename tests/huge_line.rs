//! A single stdout line far over the cap: recorded up to the cap, flagged, survived, and held
//! in memory no bigger than the cap. Alone in its own test binary so the memory figure is ours.

mod common;

use common::{fixture, new_log};
use serde_json::json;
use sonde_core::{Filter, Hub, HubError, RequestError};

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[tokio::test]
async fn a_100_mib_line_is_truncated_at_the_cap_and_the_connection_survives() {
    const CAP: usize = 4 * 1024 * 1024;
    let hub = Hub::new(new_log("huge"));
    let mut big = fixture(&["--big-mib", "100"]);
    big.options.max_line = CAP;
    let id = hub.connect(&big).await.unwrap();
    let before = peak_rss_kib();
    let err = hub.call_tool(id, "echo", None).await.unwrap_err();
    assert!(
        matches!(err, HubError::Request(RequestError::TooLarge { len, .. }) if len > 100 * 1024 * 1024),
        "{err}"
    );
    // The connection survives: the next request is answered.
    let tools = hub.list_tools(id).await.unwrap().items;
    assert_eq!(tools[0]["name"], "echo");
    let growth_mib = (peak_rss_kib() - before) / 1024;
    assert!(growth_mib < 48, "peak memory grew by {growth_mib} MiB for a 100 MiB line with a 4 MiB cap");

    let heads = hub.log().entries(&Filter::parse("kind:decode_error").unwrap()).unwrap();
    assert_eq!(heads.len(), 1);
    assert_eq!(heads[0].text.as_ref().unwrap().len(), CAP);
    let cut = hub.log().entries(&Filter::parse("kind:truncated").unwrap()).unwrap();
    assert_eq!(cut.len(), 1);
    assert!(cut[0].detail.as_deref().unwrap().contains("it answered tools/call"), "{:?}", cut[0].detail);
    hub.call_tool(id, "echo", Some(json!({"text": "x"}))).await.unwrap_err();
    hub.disconnect(id).await.unwrap();
}
