//! A hostile fixture server: tools of the wrong shapes, one frame of 1 MiB of invalid UTF-8, a
//! hundred elicitations at once. The core reads what it can, says what is wrong in words, records
//! every byte, and the connection goes on serving.

mod common;

use common::{fixture, new_log};
use serde_json::json;
use sonde_core::internals::{BasicResponder, MAX_BYTES, MAX_ITEMS};
use sonde_core::{read_tools, Filter, Hub};

#[tokio::test]
async fn malformed_tools_are_listed_with_their_problems_and_a_bad_result_is_said() {
    let hub = Hub::new(new_log("hostile-shapes"));
    let id = hub.connect(&fixture(&["--malformed-tools"])).await.unwrap();
    let views = read_tools(&hub.list_tools(id).await.unwrap().items);
    let names: Vec<_> = views.iter().map(|v| v.name.as_deref().unwrap()).collect();
    assert_eq!(names, ["echo", "bad_icons", "object_title", "numeric_required", "content_not_array"]);
    assert_eq!(views[0].problems, Vec::<String>::new());
    assert_eq!(views[1].problems, ["icons is an object, not an array"]);
    assert_eq!(views[2].problems, ["title is an object, not a string"]);
    assert_eq!(views[2].title, None);
    assert_eq!(views[3].problems, ["inputSchema.required is a number, not a list of property names"]);
    assert!(views[3].input_schema.is_some(), "the form still gets the schema");

    let session = hub.session(id).unwrap();
    let outcome = session
        .call_tool_checked("content_not_array", Some(&views[4].raw), None, false, |_| {})
        .await
        .unwrap();
    assert_eq!(outcome.problems, ["content is an object, not an array"]);
    assert_eq!(
        outcome.result["content"]["text"], "content in an object, not an array",
        "the raw result is kept"
    );
    let fine =
        session.call_tool_checked("echo", None, Some(json!({"text": "ok"})), false, |_| {}).await.unwrap();
    assert_eq!(fine.problems, Vec::<String>::new());
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn a_mebibyte_of_invalid_utf8_in_one_frame_is_recorded_and_the_connection_goes_on() {
    let hub = Hub::new(new_log("hostile-utf8"));
    let id = hub.connect(&fixture(&["--invalid-utf8-mib", "1"])).await.unwrap();
    // The frame comes right after `initialized`, so it is in the log before this reply is.
    assert_eq!(hub.list_tools(id).await.unwrap().items[0]["name"], "echo");
    let bad = hub.log().entries(&Filter::parse("method:notifications/message").unwrap()).unwrap();
    assert_eq!(bad.len(), 1, "one frame, one entry");
    let base64 = bad[0].base64.as_deref().expect("bytes that are not UTF-8 are kept as base64");
    assert!(base64.len() > 4 * 1024 * 1024 / 3, "every byte is recorded: {} base64 characters", base64.len());
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn a_hundred_elicitations_at_once_are_each_answered() {
    let hub = Hub::new(new_log("hostile-ask"));
    let mut config = fixture(&["--ask-many", "100"]);
    config.answers = BasicResponder { elicit: Some("decline".parse().unwrap()), ..BasicResponder::default() };
    let id = hub.connect(&config).await.unwrap();
    let result = hub.call_tool(id, "ask_many", None).await.unwrap();
    assert_eq!(result["content"][0]["text"], "asked 100 questions: 100 declined");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn a_50000_tool_listing_stops_at_the_item_cap_and_says_so() {
    let hub = Hub::new(new_log("hostile-many-tools"));
    let id = hub.connect(&fixture(&["--tools", "50000", "--page-size", "4000"])).await.unwrap();
    let listing = hub.list_tools(id).await.unwrap();
    assert_eq!(listing.items.len(), MAX_ITEMS, "the first items are kept, no more");
    assert_eq!(listing.items[0]["name"], "echo");
    let why = listing.stopped.expect("a listing cut short says so");
    assert_eq!(
        why,
        "tools/list stopped after 10000 items (Sonde lists at most 10000); the server offered more"
    );
    let pages = hub.log().entries(&Filter::parse("dir:out method:tools/list").unwrap()).unwrap();
    assert_eq!(pages.len(), 3, "no page is asked for past the cap");
    let notes = hub.log().entries(&Filter::parse("kind:note").unwrap()).unwrap();
    assert!(notes.iter().any(|n| n.detail.as_deref() == Some(why.as_str())), "the session log says it too");
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn a_listing_of_huge_tools_stops_at_the_byte_cap() {
    let hub = Hub::new(new_log("hostile-huge-tools"));
    // 300 tools of 256 KiB each: 75 MiB, over twice the cap, in pages of 8 MiB.
    let id =
        hub.connect(&fixture(&["--tools", "300", "--page-size", "32", "--filler-kib", "256"])).await.unwrap();
    let listing = hub.list_tools(id).await.unwrap();
    let bytes: usize = listing.items.iter().map(|t| serde_json::to_vec(t).unwrap().len()).sum();
    assert!((MAX_BYTES..MAX_BYTES + 300 * 1024).contains(&bytes), "{bytes} bytes kept");
    assert!(listing.stopped.expect("cut short").contains("32 MiB of items"));
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn a_listing_under_the_caps_is_whole() {
    let hub = Hub::new(new_log("hostile-under-caps"));
    let id = hub.connect(&fixture(&["--tools", "10000", "--page-size", "2500"])).await.unwrap();
    let listing = hub.list_tools(id).await.unwrap();
    assert_eq!((listing.items.len(), listing.stopped), (10000, None));
    hub.disconnect(id).await.unwrap();
}

#[tokio::test]
async fn a_server_that_turns_ids_into_strings_fails_the_connect_at_once_saying_so() {
    let hub = Hub::new(new_log("hostile-string-ids"));
    let err = hub.connect(&fixture(&["--string-ids"])).await.unwrap_err().to_string();
    assert!(
        err.contains(
            r#"the server answered initialize with id "1" (a string), but it was sent with id 1 (a number)"#
        ),
        "{err}"
    );
    let noted = hub.log().entries(&Filter::parse("dir:in JSON type").unwrap()).unwrap();
    assert!(
        !noted.is_empty() && noted.iter().all(|e| e.answers.is_some()),
        "each such reply points at its request"
    );
    assert!(noted.iter().all(|e| e.findings.iter().any(|f| f.rule == "reply-id-type")), "{noted:?}");
}

#[tokio::test]
async fn each_fault_is_a_finding_on_its_frame_naming_the_rule() {
    let hub = Hub::new(new_log("hostile-findings"));
    let id = hub.connect(&fixture(&["--banner", "listening on stdio", "--malformed-tools"])).await.unwrap();
    let session = hub.session(id).unwrap();
    session.call_tool_checked("content_not_array", None, None, false, |_| {}).await.unwrap();
    hub.disconnect(id).await.unwrap();

    let found = hub.log().entries(&Filter::parse("diag:any").unwrap()).unwrap();
    let rules: Vec<(&str, &str)> =
        found.iter().flat_map(|e| e.findings.iter().map(|f| (f.rule.as_str(), f.severity.name()))).collect();
    assert_eq!(rules, [("stdout-not-protocol", "warning"), ("result-shape", "error")], "{found:?}");
    let shape = &found[1].findings[0];
    assert_eq!(
        shape.detail,
        "tools/call's result: `content` is an object, where CallToolResult requires an array"
    );
    assert_eq!(found[1].summary.as_ref().unwrap().method.as_deref(), Some("tools/call"));
    let errors = hub.log().entries(&Filter::parse("diag:error").unwrap()).unwrap();
    assert_eq!(errors.len(), 1, "diag:error leaves the warning out");
}
