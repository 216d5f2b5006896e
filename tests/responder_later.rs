//! A server request answered later (by a person, in the desktop app) never holds the
//! connection up: other requests go on, and the reply is sent when the answer comes.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{fixture, new_log, wait_for};
use serde_json::{json, Value};
use sonde_core::internals::Answer;
use sonde_core::{ErrorObject, Filter, Hub, Responder};
use tokio::sync::oneshot;

/// Answers `ping` only when the test says so.
struct Held(Mutex<Option<oneshot::Receiver<Value>>>);

impl Responder for Held {
    fn capabilities(&self) -> Value {
        json!({})
    }

    fn answer(&self, method: &str, _params: Option<&Value>) -> Answer {
        let held = self.0.lock().unwrap().take();
        match (method, held) {
            ("ping", Some(later)) => Answer::Later(Box::pin(async move {
                later.await.map_err(|_| ErrorObject { code: -32603, message: "dropped".into(), data: None })
            })),
            _ => Answer::Now(Err(sonde_core::internals::not_handled(method))),
        }
    }
}

#[tokio::test]
async fn a_later_answer_is_sent_when_it_comes_and_the_connection_goes_on_meanwhile() {
    let (release, later) = oneshot::channel();
    let responder = Arc::new(Held(Mutex::new(Some(later))));
    let hub = Hub::new(new_log("later")).with_responders(move |_, _| responder.clone() as Arc<dyn Responder>);
    let id = hub.connect(&fixture(&["--ask-ping"])).await.unwrap();
    let log = hub.log().clone();
    let asked = Filter::parse("dir:in method:ping").unwrap();
    wait_for(Duration::from_secs(5), "the fixture's ping", || !log.entries(&asked).unwrap().is_empty()).await;

    let echoed = hub.call_tool(id, "echo", Some(json!({"text": "meanwhile"}))).await.unwrap();
    assert_eq!(echoed["content"][0]["text"], "meanwhile", "the call is served while the ping waits");
    let answered = Filter::parse(r#"dir:out id:"fixture-1""#).unwrap();
    assert!(log.entries(&answered).unwrap().is_empty(), "no reply before the answer");

    release.send(json!({})).unwrap();
    wait_for(Duration::from_secs(5), "the late reply", || !log.entries(&answered).unwrap().is_empty()).await;
    hub.disconnect(id).await.unwrap();
}
