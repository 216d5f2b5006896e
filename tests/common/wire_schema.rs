//! Validates frames Sonde sent against the official JSON schema of their revision, the way
//! the conformance suite's `wire-schema-valid` check does: a message with a method against
//! the definition for that method, an error against `JSONRPCErrorResponse`, a result against
//! `JSONRPCResultResponse` (and `ListRootsResult` for an answer to `roots/list`).
#![allow(dead_code)]

use std::collections::HashMap;

use serde_json::{json, Value};
use sonde_core::{Entry, Filter, Kind, WireLog};

pub struct WireSchema {
    defs: Value,
    by_method: HashMap<String, String>,
    validators: HashMap<String, jsonschema::Validator>,
}

impl WireSchema {
    pub fn load(version: &str) -> WireSchema {
        let path = super::peer_bin(&format!("schemas/schema-{version}.json"));
        let schema: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let defs = schema["$defs"].clone();
        let mut by_method = HashMap::new();
        for (name, def) in defs.as_object().unwrap() {
            if let Some(method) = def.pointer("/properties/method/const").and_then(Value::as_str) {
                // Requests are the definitions named …Request / …Notification; keep the first.
                by_method.entry(method.to_owned()).or_insert_with(|| name.clone());
            }
        }
        WireSchema { defs, by_method, validators: HashMap::new() }
    }

    fn errors(&mut self, def: &str, instance: &Value) -> Vec<String> {
        let defs = &self.defs;
        let validator = self.validators.entry(def.to_owned()).or_insert_with(|| {
            let schema = json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs, "$ref": format!("#/$defs/{def}")});
            jsonschema::validator_for(&schema).unwrap()
        });
        validator.iter_errors(instance).map(|e| format!("{def} at {}: {e}", e.instance_path())).collect()
    }

    /// The violations of a result against the definition `def` (`CallToolResult`).
    pub fn result_violations(&mut self, def: &str, result: &Value) -> Vec<String> {
        self.errors(def, result)
    }

    /// The fields definition `def` requires, `_meta` aside.
    pub fn required_fields(&self, def: &str) -> Vec<String> {
        let required = self.defs[def]["required"].as_array().cloned().unwrap_or_default();
        required.iter().filter_map(Value::as_str).filter(|f| *f != "_meta").map(str::to_owned).collect()
    }

    /// The schema violations of one sent message; `answering` is the method of the request a
    /// reply answers.
    pub fn violations(&mut self, message: &Value, answering: Option<&str>) -> Vec<String> {
        if let Some(method) = message.get("method").and_then(Value::as_str) {
            let def = self.by_method.get(method).cloned().unwrap_or_else(|| {
                if message.get("id").is_some() {
                    "JSONRPCRequest".into()
                } else {
                    "JSONRPCNotification".into()
                }
            });
            return self.errors(&def, message);
        }
        if message.get("error").is_some() {
            return self.errors("JSONRPCErrorResponse", message);
        }
        let mut found = self.errors("JSONRPCResultResponse", message);
        if answering == Some("roots/list") {
            found.extend(self.errors("ListRootsResult", &message["result"]));
        }
        found
    }
}

/// Validates every message Sonde sent on connection `conn` of `log`: probe frames against
/// 2026-07-28, `initialize` against 2025-11-25 (after a probe deadline it goes out before the
/// era is known), the rest against `version`. Returns how many were validated; panics listing
/// every violation.
pub fn check_sent(log: &WireLog, conn: u64, version: &str) -> usize {
    let mut era = WireSchema::load(version);
    let mut probe = WireSchema::load("2026-07-28");
    let mut handshake = WireSchema::load("2025-11-25");
    let filter = Filter { kinds: vec![Kind::Message], conn: Some(conn), ..Filter::parse("dir:out").unwrap() };
    let sent: Vec<Entry> = log.entries(&filter).unwrap();
    let mut problems = Vec::new();
    for entry in &sent {
        let message: Value = serde_json::from_str(entry.text.as_deref().unwrap()).unwrap();
        let answering = entry.summary.as_ref().and_then(|s| s.method.as_deref());
        let schema = if entry.probe {
            &mut probe
        } else if message["method"] == "initialize" {
            &mut handshake
        } else {
            &mut era
        };
        for v in schema.violations(&message, answering) {
            problems.push(format!("seq {}: {v}\n  {message}", entry.seq));
        }
    }
    assert!(
        problems.is_empty(),
        "{} frames broke the {version} schema:\n{}",
        problems.len(),
        problems.join("\n")
    );
    eprintln!("wire-schema: {} frames sent on connection {conn} valid against {version}", sent.len());
    sent.len()
}
