//! The rules for one listed item's parts beyond its schemas: a prompt's arguments, a tool's
//! task support (judged by the calls it still takes) and its annotation hints (judged through
//! their spec defaults, since hosts approve calls on them).
//!
//! Owns: those three judgements. Refuses: which items are compared (`diff`) and schemas
//! (`schema_diff`).

use serde_json::Value;

use super::change::{ChangeSeverity, Changes};

pub(super) fn prompt_arguments(path: &str, old: &Value, new: &Value, out: &mut Changes) {
    let args = |v: &Value| v.get("arguments").and_then(Value::as_array).cloned().unwrap_or_default();
    let (old_args, new_args) = (args(old), args(new));
    let named = |list: &[Value], name: &str| {
        list.iter().find(|a| a.get("name").and_then(Value::as_str) == Some(name)).cloned()
    };
    let required = |a: &Value| a.get("required").and_then(Value::as_bool).unwrap_or(false);
    for o in &old_args {
        let name = o.get("name").and_then(Value::as_str).unwrap_or_default();
        let at = format!("{path}/arguments/{name}");
        match named(&new_args, name) {
            None => out.push(
                ChangeSeverity::Breaking,
                "removed",
                &at,
                Some(o),
                None,
                format!("argument {name:?} was removed"),
            ),
            Some(n) if required(&n) && !required(o) => out.push(
                ChangeSeverity::Breaking,
                "required",
                &at,
                Some(o),
                Some(&n),
                format!("argument {name:?} is now required"),
            ),
            Some(n) if !required(&n) && required(o) => out.push(
                ChangeSeverity::Addition,
                "required",
                &at,
                Some(o),
                Some(&n),
                format!("argument {name:?} is now optional"),
            ),
            Some(n) if n != *o => out.push(
                ChangeSeverity::Change,
                "text",
                &at,
                Some(o),
                Some(&n),
                format!("argument {name:?}'s words changed"),
            ),
            Some(_) => {}
        }
    }
    for n in &new_args {
        let name = n.get("name").and_then(Value::as_str).unwrap_or_default();
        if named(&old_args, name).is_none() {
            let at = format!("{path}/arguments/{name}");
            if required(n) {
                out.push(
                    ChangeSeverity::Breaking,
                    "required",
                    &at,
                    None,
                    Some(n),
                    format!("new required argument {name:?}"),
                );
            } else {
                out.push(
                    ChangeSeverity::Addition,
                    "added",
                    &at,
                    None,
                    Some(n),
                    format!("new optional argument {name:?}"),
                );
            }
        }
    }
}

/// A tool's `execution.taskSupport` (2025-11-25; `forbidden` by default): a tool that no longer
/// takes a plain call (`required`) or no longer takes a task (`forbidden`) breaks the clients
/// that call it so; one that takes either anew is an addition.
pub(super) fn task_support(path: &str, old: &Value, new: &Value, out: &mut Changes) {
    let support = |tool: &Value| tool.pointer("/execution/taskSupport").cloned();
    let (was, is) = (support(old), support(new));
    let word = |v: &Option<Value>| v.as_ref().and_then(Value::as_str).unwrap_or("forbidden").to_owned();
    let (w, i) = (word(&was), word(&is));
    if w == i {
        return;
    }
    let (plain, task) = (|s: &str| s != "required", |s: &str| s != "forbidden");
    let lost = match (plain(&w) && !plain(&i), task(&w) && !task(&i)) {
        (true, _) => Some("it no longer takes a call without a task"),
        (_, true) => Some("it no longer takes a call as a task"),
        _ => None,
    };
    let (severity, words) = match lost {
        Some(words) => (ChangeSeverity::Breaking, words),
        None if task(&i) && !task(&w) => (ChangeSeverity::Addition, "it now takes a call as a task"),
        None => (ChangeSeverity::Addition, "it now takes a call without a task"),
    };
    let detail = format!("taskSupport {w} became {i}: {words}");
    out.push(severity, "tasks", path, was.as_ref(), is.as_ref(), detail);
}

/// A tool's annotation hints as they mean: each read through its spec default (readOnlyHint
/// false, destructiveHint true, idempotentHint false, openWorldHint true), and destructive and
/// idempotent as the spec reads them, only for a tool that is not read-only (a tool that
/// changes nothing destroys nothing, and calling it again has no more effect).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Hints {
    read_only: bool,
    destructive: bool,
    idempotent: bool,
    open_world: bool,
}

impl Hints {
    fn of(annotations: Option<&Value>) -> Hints {
        let hint = |key: &str, default: bool| {
            annotations.and_then(|a| a.get(key)).and_then(Value::as_bool).unwrap_or(default)
        };
        let read_only = hint("readOnlyHint", false);
        Hints {
            read_only,
            destructive: !read_only && hint("destructiveHint", true),
            idempotent: read_only || hint("idempotentHint", false),
            open_world: hint("openWorldHint", true),
        }
    }

    /// What a tool that is not read-only may do, by its hints.
    fn effects(self) -> &'static str {
        match (self.destructive, self.idempotent) {
            (true, true) => "destructive and idempotent",
            (true, false) => "destructive and not idempotent",
            (false, true) => "not destructive and idempotent",
            (false, false) => "not destructive and not idempotent",
        }
    }
}

/// The hints a tool's annotations give, compared as they mean (`Hints`). Hosts approve calls
/// on them (a read-only tool run without asking, a destructive one confirmed), so a tool that
/// now claims less safety breaks what a host decided: read-only to not, not destructive to
/// destructive, idempotent to not, a closed world to an open one. The other direction is an
/// addition; the annotations' other keys (`title`) a change. A hint written as its default and
/// one left out mean the same, and are no change.
pub(super) fn annotations(path: &str, old: Option<&Value>, new: Option<&Value>, out: &mut Changes) {
    let (was, is) = (Hints::of(old), Hints::of(new));
    let raw = |side: Option<&Value>, key: &str| side.and_then(|a| a.get(key)).cloned();
    let shown = |side: Option<&Value>, key: &str, default: bool| match raw(side, key) {
        Some(v) => v.to_string(),
        None => format!("absent ({default} by default)"),
    };
    let mut flip = |key: &str, default: bool, safer_before: bool, words: String| {
        let at = format!("{path}/{key}");
        let severity = if safer_before { ChangeSeverity::Breaking } else { ChangeSeverity::Addition };
        let detail =
            format!("{key} {} became {}: {words}", shown(old, key, default), shown(new, key, default));
        out.push(severity, "annotation", &at, raw(old, key).as_ref(), raw(new, key).as_ref(), detail);
    };
    if was.read_only != is.read_only {
        let words = if was.read_only {
            format!("it is no longer read-only (by its hints now {})", is.effects())
        } else {
            format!("it is now read-only (it was {})", was.effects())
        };
        flip("readOnlyHint", false, was.read_only, words);
    } else if !is.read_only {
        if was.destructive != is.destructive {
            let words =
                if is.destructive { "it may now be destructive" } else { "it is no longer destructive" };
            flip("destructiveHint", true, !was.destructive, words.into());
        }
        if was.idempotent != is.idempotent {
            let words = if is.idempotent {
                "it is now idempotent"
            } else {
                "it is no longer idempotent: calling it again may have more effect"
            };
            flip("idempotentHint", false, was.idempotent, words.into());
        }
    }
    if was.open_world != is.open_world {
        let words = if is.open_world {
            "it may now reach an open world of outside entities"
        } else {
            "it no longer reaches outside entities (a closed world)"
        };
        flip("openWorldHint", true, !was.open_world, words.into());
    }
    const HINTS: [&str; 4] = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"];
    let keys = |side: Option<&Value>| -> Vec<String> {
        side.and_then(Value::as_object).map(|o| o.keys().cloned().collect()).unwrap_or_default()
    };
    let mut others: Vec<String> =
        keys(old).into_iter().chain(keys(new)).filter(|k| !HINTS.contains(&k.as_str())).collect();
    others.sort();
    others.dedup();
    for key in others {
        let (o, n) = (raw(old, &key), raw(new, &key));
        if o != n {
            let detail = format!("its annotations' {key} changed");
            out.push(
                ChangeSeverity::Change,
                "text",
                &format!("{path}/{key}"),
                o.as_ref(),
                n.as_ref(),
                detail,
            );
        }
    }
}
