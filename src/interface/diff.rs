//! What changed between two snapshots of a server's interface, each change with a verdict for
//! the clients that use it: `breaking` (a client that worked may fail), `change` (it still
//! works; worth a look) or `addition` (something new to use).
//!
//! Owns: the classification. Input and output schemas break in opposite directions: an input
//! schema breaks clients when it accepts less, an output schema when it promises less.
//! Schemas are compared as the server sent them, `$ref`s within the document followed; where
//! a change cannot be judged (a pattern, a format), it says "could not tell" and breaks: a
//! check that cannot tell does not pass. A listing never made (its capability absent) is the capability changing, not every
//! item removed: a capability withdrawn is said once. A sub-capability withdrawn
//! (`resources.subscribe`, `tools.listChanged`) breaks, named; a tool's annotation hints are
//! judged through their spec defaults, since hosts approve calls on them, and its task support
//! by the calls it still takes; a removed and an added item of the same shape are said to be a
//! likely rename. An era is the server's only when it negotiated both sides: an era a client
//! forced is said (`eras_chosen`), not judged.
//! Refuses: taking snapshots (`snapshot`) and presenting the changes.

use serde_json::Value;

use super::change::{Change, ChangeSeverity, Changes};
use super::schema_diff::Schemas;
use super::snapshot::{identity, EraChoice, Snapshot};
use crate::session::listing::ListKind;

const KINDS: [ListKind; 4] = [ListKind::Tools, ListKind::Prompts, ListKind::Resources, ListKind::Templates];

/// Every change from `old` to `new`, breaking first, then changes, then additions, each group
/// in the order the interface lists them.
pub fn diff(old: &Snapshot, new: &Snapshot) -> Vec<Change> {
    let mut out = Changes(Vec::new());
    era(old, new, &mut out);
    capabilities(old, new, &mut out);
    let version = |s: &Snapshot| s.server_info.get("version").cloned();
    if version(old) != version(new) {
        let detail = "serverInfo version".to_owned();
        out.push(
            ChangeSeverity::Change,
            "text",
            "serverInfo/version",
            version(old).as_ref(),
            version(new).as_ref(),
            detail,
        );
    }
    if old.instructions != new.instructions {
        let (o, n) = (old.instructions.clone().map(Value::from), new.instructions.clone().map(Value::from));
        out.push(
            ChangeSeverity::Change,
            "text",
            "instructions",
            o.as_ref(),
            n.as_ref(),
            "the instructions changed".into(),
        );
    }
    let mut listed = Changes(Vec::new());
    for kind in KINDS {
        // A capability withdrawn or new is said once, above, not again as each of its items
        // removed or added (whether the listing is absent on that side or present and empty).
        let declared = |s: &Snapshot| s.capabilities.get(kind.capability()).is_some();
        if declared(old) != declared(new) {
            continue;
        }
        // A listing on one side only (a session that never listed it) cannot be compared.
        if let (Some(o), Some(n)) = (items(old, kind), items(new, kind)) {
            listing(kind, o, n, &mut listed);
        }
    }
    // A tool's task support is written in 2025-11-25 only (2026-07-28 has the tasks extension):
    // across eras its difference is the era's, said as a change.
    for change in &mut listed.0 {
        if old.era != new.era && change.kind == "tasks" {
            change.severity = ChangeSeverity::Change;
            change.detail += &across(old, new);
        }
    }
    out.0.extend(listed.0);
    let mut changes = out.0;
    changes.sort_by_key(|c| c.severity);
    changes
}

fn items(snapshot: &Snapshot, kind: ListKind) -> Option<&Vec<Value>> {
    match kind {
        ListKind::Tools => snapshot.tools.as_ref(),
        ListKind::Prompts => snapshot.prompts.as_ref(),
        ListKind::Resources => snapshot.resources.as_ref(),
        ListKind::Templates => snapshot.resource_templates.as_ref(),
    }
}

/// Which era each side was listed in, and how that was chosen, in words: "legacy (2025-11-25,
/// forced by the client)".
fn listed_in(s: &Snapshot) -> String {
    let how = match s.era_choice {
        EraChoice::Forced => "forced by the client",
        EraChoice::Negotiated => "negotiated",
    };
    format!("{} ({}, {how})", s.era, s.protocol_version)
}

/// The era is the server's change only when it negotiated both sides: an era a client forced
/// (`--era legacy` to a server that also speaks modern) says what the client chose, not what
/// the server offers, and is said by [`eras_chosen`] instead. Two forced sides of the same era
/// never differ here (a server that stopped answering it gave no snapshot to compare).
fn era(old: &Snapshot, new: &Snapshot, out: &mut Changes) {
    let negotiated = old.era_choice == EraChoice::Negotiated && new.era_choice == EraChoice::Negotiated;
    if old.era == new.era || !negotiated {
        return;
    }
    let (o, n) = (Value::from(old.protocol_version.clone()), Value::from(new.protocol_version.clone()));
    let sides = format!(
        "both sides negotiated, the old in {} ({}), the new in {} ({})",
        old.era, old.protocol_version, new.era, new.protocol_version
    );
    if old.era == "modern" {
        let detail = format!("the server no longer speaks modern ({}): {sides}", old.protocol_version);
        out.push(ChangeSeverity::Breaking, "era", "era", Some(&o), Some(&n), detail);
    } else {
        // A server that negotiates modern may still answer initialize; nothing on this side
        // says whether it does, so this is not a pass for clients that speak only legacy: a
        // check that cannot tell does not pass.
        let detail = format!(
            "the server now speaks {} ({}): {sides}; could not tell whether it still answers \
             initialize (snapshot it with --era legacy to see)",
            new.era, new.protocol_version
        );
        out.push(ChangeSeverity::Breaking, "era", "era", Some(&o), Some(&n), detail);
    }
}

/// When the two sides were listed in different eras and the client chose at least one of
/// them, the sentence that says which era each side was listed in: the difference is the
/// client's choice, not a change of the server.
pub fn eras_chosen(old: &Snapshot, new: &Snapshot) -> Option<String> {
    let negotiated = old.era_choice == EraChoice::Negotiated && new.era_choice == EraChoice::Negotiated;
    (old.era != new.era && !negotiated).then(|| {
        format!(
            "the sides were listed in different eras, chosen by the client, which is not a change \
             of the server: the old in {}, the new in {}",
            listed_in(old),
            listed_in(new)
        )
    })
}

/// Capabilities withdrawn, new, or with their options changed. Across eras a capability is
/// written differently (2025-11-25's `tasks` is 2026-07-28's tasks extension; a dual-era server
/// may offer `listChanged` in one and not the other), so there each difference is a `change`
/// that says so, not a verdict on the server.
fn capabilities(old_side: &Snapshot, new_side: &Snapshot, out: &mut Changes) {
    let (old, new) = (&old_side.capabilities, &new_side.capabilities);
    let mut found = Changes(Vec::new());
    let keys = |v: &Value| v.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>()).unwrap_or_default();
    for key in keys(old) {
        let path = format!("capabilities/{key}");
        match new.get(&key) {
            None => {
                let listed: Vec<String> = KINDS
                    .into_iter()
                    .filter(|kind| kind.capability() == key)
                    .filter_map(|kind| items(old_side, kind).map(|items| counted(kind, items.len())))
                    .collect();
                let with = if listed.is_empty() {
                    String::new()
                } else {
                    format!(", and with it its listing ({})", listed.join(", "))
                };
                found.push(
                    ChangeSeverity::Breaking,
                    "capability",
                    &path,
                    old.get(&key),
                    None,
                    format!("the {key} capability was withdrawn{with}"),
                );
            }
            Some(n) if Some(n) != old.get(&key) => options(&path, &key, &old[&key], n, &mut found),
            Some(_) => {}
        }
    }
    for key in keys(new).into_iter().filter(|k| old.get(k).is_none()) {
        let path = format!("capabilities/{key}");
        found.push(
            ChangeSeverity::Addition,
            "capability",
            &path,
            None,
            new.get(&key),
            format!("the {key} capability is new"),
        );
    }
    if old_side.era != new_side.era {
        for change in &mut found.0 {
            change.severity = ChangeSeverity::Change;
            change.detail += &across(old_side, new_side);
        }
    }
    out.0.extend(found.0);
}

/// Said of a difference between sides listed in different eras.
fn across(old: &Snapshot, new: &Snapshot) -> String {
    format!(
        "; the sides were listed in different eras ({} and {}), so this may be the era's doing, not \
         the server's",
        old.era, new.era
    )
}

/// "3 tools", "1 resource template".
fn counted(kind: ListKind, n: usize) -> String {
    let one = what(kind);
    match n {
        1 => format!("1 {one}"),
        n => format!("{n} {one}s"),
    }
}

/// Whether a capability's option offers something: `true`, or an object (`{}` offers it with
/// no settings), as capabilities are written; absent, `false` and `null` offer nothing.
fn offered(option: Option<&Value>) -> bool {
    matches!(option, Some(Value::Bool(true) | Value::Object(_)))
}

/// A capability present on both sides with different options (`name` is its dotted name,
/// `resources` or `tasks.requests`): each sub-capability withdrawn breaks the clients that use
/// it, each one offered anew is an addition, and any other difference is one change.
fn options(path: &str, name: &str, old: &Value, new: &Value, out: &mut Changes) {
    let (Some(o), Some(n)) = (old.as_object(), new.as_object()) else {
        let detail = format!("the {name} capability's options changed");
        out.push(ChangeSeverity::Change, "capability", path, Some(old), Some(new), detail);
        return;
    };
    let keys = o.keys().chain(n.keys().filter(|k| !o.contains_key(*k)));
    let mut other = false;
    for key in keys {
        let (was, is) = (o.get(key), n.get(key));
        if was == is {
            continue;
        }
        let (at, named) = (format!("{path}/{key}"), format!("{name}.{key}"));
        match (offered(was), offered(is)) {
            (true, false) => out.push(
                ChangeSeverity::Breaking,
                "capability",
                &at,
                was,
                is,
                format!("{named} was withdrawn"),
            ),
            (false, true) => {
                out.push(ChangeSeverity::Addition, "capability", &at, was, is, format!("{named} is new"))
            }
            (true, true) if was.is_some_and(Value::is_object) && is.is_some_and(Value::is_object) => {
                options(&at, &named, &o[key], &n[key], out)
            }
            // `false`, `null` and absent all offer nothing: no change between them.
            (false, false) if [was, is].iter().all(|v| v.is_none_or(|v| v.is_boolean() || v.is_null())) => {}
            _ => other = true,
        }
    }
    if other {
        let detail = format!("the {name} capability's options changed");
        out.push(ChangeSeverity::Change, "capability", path, Some(old), Some(new), detail);
    }
}

/// Every change between two listings of one kind, items matched by name or URI (never by
/// place), breaking first: what a replay and the inner loop judge a listing answer with.
pub fn listings(kind: ListKind, old: &[Value], new: &[Value]) -> Vec<Change> {
    let mut out = Changes(Vec::new());
    listing(kind, old, new, &mut out);
    let mut changes = out.0;
    changes.sort_by_key(|c| c.severity);
    changes
}

/// An item's kind in words: "tool", "resource template".
fn what(kind: ListKind) -> &'static str {
    match kind {
        ListKind::Tools => "tool",
        ListKind::Prompts => "prompt",
        ListKind::Resources => "resource",
        ListKind::Templates => "resource template",
    }
}

/// What an item is, apart from its name: two items of one kind with the same shape, one
/// removed and one added, are likely one renamed. A tool's schemas, a prompt's arguments, a
/// resource's (or template's) name and MIME type.
fn shape(kind: ListKind, item: &Value) -> [Option<&Value>; 2] {
    match kind {
        ListKind::Tools => [item.get("inputSchema"), item.get("outputSchema")],
        ListKind::Prompts => [item.get("arguments"), None],
        ListKind::Resources | ListKind::Templates => [item.get("name"), item.get("mimeType")],
    }
}

fn listing(kind: ListKind, old: &[Value], new: &[Value], out: &mut Changes) {
    let what = what(kind);
    let find = |items: &[Value], id: &str| items.iter().find(|i| identity(kind, i) == id).cloned();
    let removed: Vec<&Value> = old.iter().filter(|o| find(new, &identity(kind, o)).is_none()).collect();
    let added: Vec<&Value> = new.iter().filter(|n| find(old, &identity(kind, n)).is_none()).collect();
    // A likely rename: the one added item with a removed item's shape, when that removed item
    // is the one removed with it (two of a shape on either side would be a guess).
    let twin = |item: &Value, among: &[&Value], back: &[&Value]| -> Option<String> {
        let same = |other: &&&Value| shape(kind, other) == shape(kind, item);
        match among.iter().filter(same).collect::<Vec<_>>().as_slice() {
            [one] if back.iter().filter(same).count() == 1 => Some(identity(kind, one)),
            _ => None,
        }
    };
    for o in old {
        let id = identity(kind, o);
        let path = format!("{}/{id}", kind.key());
        match find(new, &id) {
            None => {
                // Still breaking: a client calling the old name fails.
                let hint = twin(o, &added, &removed)
                    .map(|to| format!("; likely renamed to {to:?} (the same {})", shape_words(kind)))
                    .unwrap_or_default();
                out.push(
                    ChangeSeverity::Breaking,
                    "removed",
                    &path,
                    Some(o),
                    None,
                    format!("the {what} was removed{hint}"),
                )
            }
            Some(n) => item(kind, &path, o, &n, out),
        }
    }
    for n in &added {
        let path = format!("{}/{}", kind.key(), identity(kind, n));
        let hint = twin(n, &removed, &added)
            .map(|from| format!("; likely {from:?} renamed to it (the same {})", shape_words(kind)))
            .unwrap_or_default();
        out.push(ChangeSeverity::Addition, "added", &path, None, Some(n), format!("a new {what}{hint}"));
    }
}

fn shape_words(kind: ListKind) -> &'static str {
    match kind {
        ListKind::Tools => "schemas",
        ListKind::Prompts => "arguments",
        ListKind::Resources | ListKind::Templates => "name and MIME type",
    }
}

/// One item on both sides: its words, and for a tool its annotations and schemas, for a
/// prompt its arguments.
fn item(kind: ListKind, path: &str, old: &Value, new: &Value, out: &mut Changes) {
    for key in ["title", "description", "annotations", "_meta", "mimeType", "name", "icons"] {
        if key == "annotations" && kind == ListKind::Tools {
            continue;
        }
        if old.get(key) != new.get(key) {
            let detail = format!("its {key} changed");
            out.push(
                ChangeSeverity::Change,
                "text",
                &format!("{path}/{key}"),
                old.get(key),
                new.get(key),
                detail,
            );
        }
    }
    match kind {
        ListKind::Tools => {
            annotations(&format!("{path}/annotations"), old.get("annotations"), new.get("annotations"), out);
            task_support(&format!("{path}/execution/taskSupport"), old, new, out);
            let (oi, ni) = (
                old.get("inputSchema").unwrap_or(&Value::Null),
                new.get("inputSchema").unwrap_or(&Value::Null),
            );
            Schemas { old_root: oi, new_root: ni, input: true, out }.compare(
                &format!("{path}/inputSchema"),
                oi,
                ni,
            );
            match (old.get("outputSchema"), new.get("outputSchema")) {
                (Some(o), None) => out.push(
                    ChangeSeverity::Breaking,
                    "schema",
                    &format!("{path}/outputSchema"),
                    Some(o),
                    None,
                    "its outputSchema was removed: its structured results are no longer promised".into(),
                ),
                (None, Some(n)) => out.push(
                    ChangeSeverity::Addition,
                    "schema",
                    &format!("{path}/outputSchema"),
                    None,
                    Some(n),
                    "it now promises structured results (an outputSchema)".into(),
                ),
                (Some(o), Some(n)) => Schemas { old_root: o, new_root: n, input: false, out }.compare(
                    &format!("{path}/outputSchema"),
                    o,
                    n,
                ),
                (None, None) => {}
            }
        }
        ListKind::Prompts => prompt_arguments(path, old, new, out),
        _ => {}
    }
}

fn prompt_arguments(path: &str, old: &Value, new: &Value, out: &mut Changes) {
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
fn task_support(path: &str, old: &Value, new: &Value, out: &mut Changes) {
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
fn annotations(path: &str, old: Option<&Value>, new: Option<&Value>, out: &mut Changes) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn snapshot(tools: Value) -> Snapshot {
        Snapshot {
            sonde_snapshot: 1,
            server_info: json!({"name": "s", "version": "1"}),
            protocol_version: "2025-11-25".into(),
            era: "legacy".into(),
            era_choice: EraChoice::Negotiated,
            capabilities: json!({"tools": {}}),
            instructions: None,
            tools: Some(tools.as_array().unwrap().clone()),
            prompts: None,
            resources: None,
            resource_templates: None,
        }
    }

    fn lines(old: Value, new: Value) -> Vec<String> {
        said(&diff(&snapshot(old), &snapshot(new)))
    }

    fn said(changes: &[Change]) -> Vec<String> {
        changes.iter().map(|c| format!("{} {}: {}", c.severity.name(), c.path, c.detail)).collect()
    }

    /// A snapshot listed in `era`, chosen as `choice`, with `capabilities`.
    fn listed(era: &str, choice: EraChoice, capabilities: Value) -> Snapshot {
        let mut s = snapshot(json!([]));
        s.era = era.into();
        s.protocol_version = if era == "modern" { "2026-07-28" } else { "2025-11-25" }.into();
        s.era_choice = choice;
        s.capabilities = capabilities;
        s
    }

    #[test]
    fn input_schemas_break_when_they_accept_less() {
        let add = |props: Value, required: Value| json!([{"name": "add", "inputSchema": {"type": "object", "properties": props, "required": required}}]);
        let old = add(
            json!({"a": {"type": "number"}, "mode": {"type": "string", "enum": ["x", "y"]}}),
            json!(["a"]),
        );
        let new = add(
            json!({"a": {"type": "integer"}, "mode": {"type": "string", "enum": ["x"]}, "c": {"type": "integer"}}),
            json!(["a", "c"]),
        );
        assert_eq!(
            lines(old.clone(), new),
            [
                "breaking tools/add/inputSchema/properties/a/type: type number became integer",
                "breaking tools/add/inputSchema/properties/mode/enum: enum value \"y\" was removed",
                "breaking tools/add/inputSchema/properties/c: new required argument \"c\" (integer)",
            ]
        );
        let wider = add(
            json!({"a": {"type": ["number", "string"]}, "mode": {"type": "string", "enum": ["x", "y", "z"]}, "d": {"type": "string"}}),
            json!([]),
        );
        assert_eq!(
            lines(old, wider),
            [
                "addition tools/add/inputSchema/properties/a: property \"a\" is now optional",
                "addition tools/add/inputSchema/properties/a/type: type number became number|string",
                "addition tools/add/inputSchema/properties/mode/enum: enum value \"z\" was added",
                "addition tools/add/inputSchema/properties/d: new optional argument \"d\" (string)",
            ]
        );
    }

    #[test]
    fn output_schemas_break_when_they_promise_less_and_refs_are_followed() {
        let tool = |output: Value| json!([{"name": "weather", "inputSchema": {"type": "object"}, "outputSchema": output}]);
        let old = tool(
            json!({"type": "object", "$defs": {"t": {"type": "integer"}}, "properties": {"temp": {"$ref": "#/$defs/t"}, "sky": {"type": "string"}}, "required": ["temp", "sky"]}),
        );
        let new = tool(
            json!({"type": "object", "$defs": {"t": {"type": "number"}}, "properties": {"temp": {"$ref": "#/$defs/t"}}, "required": []}),
        );
        assert_eq!(
            lines(old, new),
            [
                "breaking tools/weather/outputSchema/properties/temp: property \"temp\" is now optional",
                "breaking tools/weather/outputSchema/properties/temp/type: type integer became number",
                "breaking tools/weather/outputSchema/properties/sky: property \"sky\" is no longer in the output",
            ]
        );
    }

    #[test]
    fn removed_and_added_items_words_and_undecidable_changes() {
        let old = json!([{"name": "a", "description": "A", "inputSchema": {"type": "object", "properties": {"s": {"type": "string", "pattern": "^x"}}}}, {"name": "gone", "inputSchema": {"type": "object"}}]);
        let new = json!([{"name": "a", "description": "A!", "inputSchema": {"type": "object", "properties": {"s": {"type": "string", "pattern": "^y"}}}}, {"name": "fresh", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}}]);
        assert_eq!(
            lines(old.clone(), new),
            [
                "breaking tools/a/inputSchema/properties/s/pattern: its pattern changed; could not tell whether this narrows what it accepts",
                "breaking tools/gone: the tool was removed",
                "change tools/a/description: its description changed",
                "addition tools/fresh: a new tool",
            ]
        );
        assert!(lines(old.clone(), old).is_empty(), "a snapshot against itself has no change");
        // A capability withdrawn is said once, not as every tool removed.
        let mut none = snapshot(json!([]));
        none.capabilities = json!({});
        none.tools = None;
        let changes = diff(&snapshot(json!([{"name": "a"}])), &none);
        assert_eq!(changes.len(), 1, "{changes:?}");
        assert_eq!(changes[0].detail, "the tools capability was withdrawn, and with it its listing (1 tool)");
    }

    /// An era the client forced is what it chose, not what the server offers: no change, and
    /// the sentence says which era each side was listed in; only two negotiated sides judge it.
    #[test]
    fn an_era_the_client_forced_is_not_a_server_change() {
        use EraChoice::{Forced, Negotiated};
        let caps = json!({"tools": {}});
        let forced_legacy = listed("legacy", Forced, caps.clone());
        let negotiated_modern = listed("modern", Negotiated, caps.clone());
        for (old, new) in [(&forced_legacy, &negotiated_modern), (&negotiated_modern, &forced_legacy)] {
            assert!(diff(old, new).is_empty(), "{:?}", diff(old, new));
            assert!(eras_chosen(old, new).is_some());
        }
        assert_eq!(
            eras_chosen(&forced_legacy, &negotiated_modern).unwrap(),
            "the sides were listed in different eras, chosen by the client, which is not a change of \
             the server: the old in legacy (2025-11-25, forced by the client), the new in modern \
             (2026-07-28, negotiated)"
        );
        let forced_modern = listed("modern", Forced, caps.clone());
        assert!(diff(&forced_legacy, &forced_modern).is_empty(), "two eras the client chose");
        assert!(eras_chosen(&forced_legacy, &listed("legacy", Negotiated, caps.clone())).is_none());
        // Both negotiated: the server's own. Modern lost breaks; modern gained cannot tell
        // whether legacy is still answered.
        let negotiated_legacy = listed("legacy", Negotiated, caps.clone());
        assert_eq!(
            said(&diff(&negotiated_modern, &negotiated_legacy)),
            ["breaking era: the server no longer speaks modern (2026-07-28): both sides negotiated, \
              the old in modern (2026-07-28), the new in legacy (2025-11-25)"]
        );
        let gained = diff(&negotiated_legacy, &negotiated_modern);
        assert_eq!(gained.len(), 1);
        assert_eq!(gained[0].severity, ChangeSeverity::Breaking);
        assert!(
            gained[0].detail.contains("could not tell whether it still answers initialize"),
            "{gained:?}"
        );
        assert!(eras_chosen(&negotiated_legacy, &negotiated_modern).is_none());
        // Across eras a capability is written differently: a difference there is a change that
        // says so, never a verdict (here a dual-era server offering subscribe in modern only).
        let modern = listed("modern", Negotiated, json!({"resources": {"subscribe": true}}));
        let legacy = listed("legacy", Forced, json!({"resources": {"subscribe": false}}));
        let across = said(&diff(&modern, &legacy));
        assert_eq!(across.len(), 1, "{across:?}");
        assert!(across[0].starts_with("change capabilities/resources/subscribe: resources.subscribe was withdrawn; the sides were listed in different eras"), "{across:?}");
    }

    /// A sub-capability withdrawn breaks, named; one offered anew is an addition; `false` and
    /// absent are the same; any other option a change.
    #[test]
    fn a_sub_capability_withdrawn_breaks_and_is_named_and_one_added_is_an_addition() {
        let caps = |c: Value| listed("legacy", EraChoice::Negotiated, c);
        let both = caps(
            json!({"resources": {"subscribe": true, "listChanged": true}, "tools": {"listChanged": true}}),
        );
        let fewer = caps(json!({"resources": {"listChanged": true}, "tools": {"listChanged": false}}));
        assert_eq!(
            said(&diff(&both, &fewer)),
            [
                "breaking capabilities/resources/subscribe: resources.subscribe was withdrawn",
                "breaking capabilities/tools/listChanged: tools.listChanged was withdrawn",
            ]
        );
        assert_eq!(
            said(&diff(&fewer, &both)),
            [
                "addition capabilities/resources/subscribe: resources.subscribe is new",
                "addition capabilities/tools/listChanged: tools.listChanged is new",
            ]
        );
        let unset = caps(json!({"resources": {"listChanged": true}, "tools": {}}));
        assert!(diff(&fewer, &unset).is_empty(), "false and absent offer the same: nothing");
        // A nested one: tasks' requests.
        let tasks = |requests: Value| caps(json!({"tasks": {"list": {}, "requests": requests}}));
        assert_eq!(
            said(&diff(&tasks(json!({"tools": {"call": {}}})), &tasks(json!({"tools": {}})))),
            ["breaking capabilities/tasks/requests/tools/call: tasks.requests.tools.call was withdrawn"]
        );
        assert_eq!(
            said(&diff(
                &caps(json!({"logging": {"level": "info"}})),
                &caps(json!({"logging": {"level": "debug"}}))
            )),
            ["change capabilities/logging: the logging capability's options changed"]
        );
    }

    /// A capability withdrawn is said once, with what its listing held, whether the listing is
    /// absent on the new side or present and empty; one new likewise.
    #[test]
    fn a_capability_withdrawn_is_said_once_whether_its_listing_is_absent_or_empty() {
        let mut old = snapshot(json!([{"name": "a"}, {"name": "b"}]));
        old.prompts = Some(vec![json!({"name": "p"})]);
        old.capabilities = json!({"tools": {}, "prompts": {}});
        let mut absent = old.clone();
        absent.capabilities = json!({"prompts": {}});
        absent.tools = None;
        let mut empty = absent.clone();
        empty.tools = Some(vec![]);
        for new in [&absent, &empty] {
            assert_eq!(
                said(&diff(&old, new)),
                ["breaking capabilities/tools: the tools capability was withdrawn, and with it its listing (2 tools)"]
            );
            assert_eq!(said(&diff(new, &old)), ["addition capabilities/tools: the tools capability is new"]);
        }
        // A capability kept with its listing emptied: each item is what went.
        let mut emptied = old.clone();
        emptied.tools = Some(vec![]);
        assert_eq!(
            lines_of(&old, &emptied),
            ["breaking tools/a: the tool was removed", "breaking tools/b: the tool was removed"]
        );
    }

    fn lines_of(old: &Snapshot, new: &Snapshot) -> Vec<String> {
        said(&diff(old, new))
    }

    /// Hints are judged as they mean, through their defaults, each flip both ways.
    #[test]
    fn annotation_hints_are_judged_through_their_defaults_both_ways() {
        let tool = |annotations: Value| json!([{"name": "t", "inputSchema": {"type": "object"}, "annotations": annotations}]);
        let judged = |old: Value, new: Value| lines(tool(old), tool(new));
        assert_eq!(
            judged(json!({"readOnlyHint": true}), json!({})),
            ["breaking tools/t/annotations/readOnlyHint: readOnlyHint true became absent (false by default): it is no longer read-only (by its hints now destructive and not idempotent)"]
        );
        assert_eq!(
            judged(json!({"readOnlyHint": false, "destructiveHint": false, "idempotentHint": true}), json!({"readOnlyHint": true})),
            ["addition tools/t/annotations/readOnlyHint: readOnlyHint false became true: it is now read-only (it was not destructive and idempotent)"]
        );
        assert_eq!(
            judged(json!({"destructiveHint": false}), json!({})),
            ["breaking tools/t/annotations/destructiveHint: destructiveHint false became absent (true by default): it may now be destructive"]
        );
        assert_eq!(
            judged(json!({}), json!({"destructiveHint": false})),
            ["addition tools/t/annotations/destructiveHint: destructiveHint absent (true by default) became false: it is no longer destructive"]
        );
        assert_eq!(
            judged(json!({"idempotentHint": true}), json!({"idempotentHint": false})),
            ["breaking tools/t/annotations/idempotentHint: idempotentHint true became false: it is no longer idempotent: calling it again may have more effect"]
        );
        assert_eq!(
            judged(json!({"idempotentHint": false}), json!({"idempotentHint": true})),
            ["addition tools/t/annotations/idempotentHint: idempotentHint false became true: it is now idempotent"]
        );
        assert_eq!(
            judged(json!({"openWorldHint": false}), json!({})),
            ["breaking tools/t/annotations/openWorldHint: openWorldHint false became absent (true by default): it may now reach an open world of outside entities"]
        );
        assert_eq!(
            judged(json!({}), json!({"openWorldHint": false})),
            ["addition tools/t/annotations/openWorldHint: openWorldHint absent (true by default) became false: it no longer reaches outside entities (a closed world)"]
        );
        // Destructive and idempotent mean nothing for a read-only tool; a default written out is
        // the default; the other keys are words.
        assert!(judged(
            json!({"readOnlyHint": true, "destructiveHint": true}),
            json!({"readOnlyHint": true, "idempotentHint": false})
        )
        .is_empty());
        assert!(judged(json!({"destructiveHint": true, "openWorldHint": true}), json!({})).is_empty());
        assert_eq!(
            judged(json!({"title": "T"}), json!({"title": "Tee"})),
            ["change tools/t/annotations/title: its annotations' title changed"]
        );
    }

    /// A removed and an added item of one shape are said to be a likely rename, the removal
    /// still breaking; a shape shared by two is no hint, nor is a different one.
    #[test]
    fn a_removed_and_an_added_item_of_one_shape_are_a_likely_rename() {
        let schema = json!({"type": "object", "properties": {"q": {"type": "string"}}});
        let tool = |name: &str, input: &Value| json!({"name": name, "inputSchema": input});
        assert_eq!(
            said(&listings(ListKind::Tools, &[tool("search", &schema)], &[tool("find", &schema)])),
            [
                "breaking tools/search: the tool was removed; likely renamed to \"find\" (the same schemas)",
                "addition tools/find: a new tool; likely \"search\" renamed to it (the same schemas)",
            ]
        );
        let other = json!({"type": "object", "properties": {"q": {"type": "integer"}}});
        assert_eq!(
            said(&listings(ListKind::Tools, &[tool("search", &schema)], &[tool("find", &other)])),
            ["breaking tools/search: the tool was removed", "addition tools/find: a new tool"]
        );
        let mut output = tool("find", &schema);
        output["outputSchema"] = json!({"type": "object"});
        assert_eq!(
            said(&listings(ListKind::Tools, &[tool("search", &schema)], &[output])),
            ["breaking tools/search: the tool was removed", "addition tools/find: a new tool"],
            "an output schema is part of the shape"
        );
        let two = said(&listings(
            ListKind::Tools,
            &[tool("search", &schema)],
            &[tool("find", &schema), tool("seek", &schema)],
        ));
        assert!(two.iter().all(|l| !l.contains("likely")), "two candidates are a guess: {two:?}");
        let prompt = |name: &str| json!({"name": name, "arguments": [{"name": "who", "required": true}]});
        assert_eq!(
            said(&listings(ListKind::Prompts, &[prompt("greet")], &[prompt("hello")])),
            [
                "breaking prompts/greet: the prompt was removed; likely renamed to \"hello\" (the same arguments)",
                "addition prompts/hello: a new prompt; likely \"greet\" renamed to it (the same arguments)",
            ]
        );
        let resource = |uri: &str, mime: &str| json!({"uri": uri, "name": "readme", "mimeType": mime});
        assert_eq!(
            said(&listings(ListKind::Resources, &[resource("file:///a", "text/plain")], &[resource("file:///b", "text/plain")])),
            [
                "breaking resources/file:///a: the resource was removed; likely renamed to \"file:///b\" (the same name and MIME type)",
                "addition resources/file:///b: a new resource; likely \"file:///a\" renamed to it (the same name and MIME type)",
            ]
        );
        assert!(!said(&listings(
            ListKind::Resources,
            &[resource("file:///a", "text/plain")],
            &[resource("file:///b", "text/html")]
        ))[0]
            .contains("likely"));
    }

    /// Null dropped or allowed, in each spelling, judged by side: an input's dropped null is a
    /// change and an added one an addition; an output's breaks both ways.
    #[test]
    fn null_dropped_or_allowed_is_judged_by_side_in_each_spelling() {
        let input =
            |a: Value| json!([{"name": "t", "inputSchema": {"type": "object", "properties": {"a": a}}}]);
        let output = |a: Value| json!([{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "properties": {"a": a}}}]);
        let optional = [
            json!({"anyOf": [{"type": "string"}, {"type": "null"}], "title": "A", "default": null}),
            json!({"oneOf": [{"type": "null"}, {"type": "string"}], "title": "A", "default": null}),
            json!({"type": ["string", "null"], "title": "A", "default": null}),
        ];
        let plain = json!({"type": "string", "title": "A", "default": null});
        for nullable in optional {
            assert_eq!(
                lines(input(nullable.clone()), input(plain.clone())),
                ["change tools/t/inputSchema/properties/a: null is no longer accepted; clients leave an optional argument out rather than send null, so this is the schema tidied"],
                "{nullable}"
            );
            assert_eq!(
                lines(input(plain.clone()), input(nullable.clone())),
                ["addition tools/t/inputSchema/properties/a: null is now accepted too"]
            );
            assert_eq!(
                lines(output(nullable.clone()), output(plain.clone())),
                ["breaking tools/t/outputSchema/properties/a: it is no longer declared nullable: the result's declared shape changed, which generated client types see"]
            );
            assert_eq!(
                lines(output(plain.clone()), output(nullable.clone())),
                ["breaking tools/t/outputSchema/properties/a: it may now be null: the output promises less"]
            );
        }
        // Null on both sides, in two spellings: only what is beside it is compared.
        assert!(lines(
            input(json!({"anyOf": [{"type": "string"}, {"type": "null"}]})),
            input(json!({"type": ["string", "null"]}))
        )
        .is_empty());
        assert_eq!(
            lines(
                input(json!({"anyOf": [{"type": "number"}, {"type": "null"}]})),
                input(json!({"anyOf": [{"type": "integer"}, {"type": "null"}]}))
            ),
            ["breaking tools/t/inputSchema/properties/a/type: type number became integer"]
        );
        // A $ref beside the null is followed.
        let referenced = |null: bool| {
            let a = if null {
                json!({"anyOf": [{"$ref": "#/$defs/P"}, {"type": "null"}]})
            } else {
                json!({"$ref": "#/$defs/P"})
            };
            json!([{"name": "t", "inputSchema": {"type": "object", "$defs": {"P": {"type": "object"}}, "properties": {"a": a}}}])
        };
        assert_eq!(lines(referenced(true), referenced(false)).len(), 1);
        assert!(lines(referenced(true), referenced(false))[0]
            .starts_with("change tools/t/inputSchema/properties/a: null is no longer accepted"));
    }

    /// Task support lost either way breaks, gained is an addition, the default `forbidden`
    /// written out is no change; across eras it is the era's.
    #[test]
    fn task_support_lost_breaks_and_gained_is_an_addition() {
        let tool = |support: Option<&str>| match support {
            Some(s) => {
                json!([{"name": "t", "inputSchema": {"type": "object"}, "execution": {"taskSupport": s}}])
            }
            None => json!([{"name": "t", "inputSchema": {"type": "object"}}]),
        };
        let judged = |old: Option<&str>, new: Option<&str>| lines(tool(old), tool(new));
        let at = "tools/t/execution/taskSupport";
        assert_eq!(
            judged(Some("optional"), Some("required")),
            [format!("breaking {at}: taskSupport optional became required: it no longer takes a call without a task")]
        );
        assert_eq!(
            judged(Some("optional"), None),
            [format!(
                "breaking {at}: taskSupport optional became forbidden: it no longer takes a call as a task"
            )]
        );
        assert_eq!(
            judged(Some("required"), Some("forbidden")),
            [format!(
                "breaking {at}: taskSupport required became forbidden: it no longer takes a call as a task"
            )]
        );
        assert_eq!(
            judged(None, Some("optional")),
            [format!("addition {at}: taskSupport forbidden became optional: it now takes a call as a task")]
        );
        assert_eq!(
            judged(Some("required"), Some("optional")),
            [format!(
                "addition {at}: taskSupport required became optional: it now takes a call without a task"
            )]
        );
        assert!(judged(None, Some("forbidden")).is_empty());
        let old = listed("legacy", EraChoice::Forced, json!({"tools": {}}));
        let mut old = Snapshot { tools: Some(tool(Some("optional")).as_array().unwrap().clone()), ..old };
        let mut new = listed("modern", EraChoice::Negotiated, json!({"tools": {}}));
        new.tools = Some(tool(None).as_array().unwrap().clone());
        let across = said(&diff(&old, &new));
        assert_eq!(across.len(), 1);
        assert!(across[0].starts_with("change tools/t/execution/taskSupport:"), "{across:?}");
        old.era = "modern".into();
        assert!(said(&diff(&old, &new))[0].starts_with("breaking"), "the same era judges it");
    }
}
