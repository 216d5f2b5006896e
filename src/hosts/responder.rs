//! Connecting as a host does: its `clientInfo`, the protocol version it asks for, and of the
//! client capabilities it declares, those the responder underneath can answer too (Sonde never
//! declares what it would refuse), the HTTP headers it sends (added to the target by the hub),
//! and its checks of a reply ([`super::result_size`]). Everything a server asks is answered by
//! that responder.

use std::sync::Arc;

use serde_json::Value;

use super::HostProfile;
use crate::connection::{Answer, ReplyCheck, Responder};

pub struct AsHost {
    inner: Arc<dyn Responder>,
    host: &'static HostProfile,
}

impl AsHost {
    pub fn new(inner: Arc<dyn Responder>, host: &'static HostProfile) -> AsHost {
        AsHost { inner, host }
    }
}

impl Responder for AsHost {
    fn capabilities(&self) -> Value {
        let ours = self.inner.capabilities();
        let theirs = self.host.connects.capabilities.as_object().cloned().unwrap_or_default();
        let kept = ours.as_object().into_iter().flatten().filter(|(key, _)| theirs.contains_key(*key));
        Value::Object(kept.map(|(k, v)| (k.clone(), v.clone())).collect())
    }

    fn answer(&self, method: &str, params: Option<&Value>) -> Answer {
        self.inner.answer(method, params)
    }

    fn client_info(&self) -> Option<Value> {
        Some(self.host.connects.client_info.clone())
    }

    fn requested_version(&self) -> Option<String> {
        Some(self.host.connects.protocol_version.clone())
    }

    fn live_roots(&self) -> Option<&crate::connection::Roots> {
        self.inner.live_roots()
    }

    fn reply_check(&self, method: &str) -> Option<ReplyCheck> {
        let host = self.host;
        (method == "tools/call" && host.limits.result_size.is_some())
            .then(|| ReplyCheck::new(move |result| super::result_size(host, result)))
    }
}
