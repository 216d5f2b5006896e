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
//! by the calls it still takes (`item_parts`); a removed and an added item of the same shape are said to be a
//! likely rename. An era is the server's only when it negotiated both sides: an era a client
//! forced is said (`eras_chosen`), not judged.
//! Refuses: taking snapshots (`snapshot`) and presenting the changes.

use serde_json::Value;

use super::change::{what, Change, ChangeSeverity, Changes};
use super::item_parts::{annotations, prompt_arguments, task_support};
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
        let shown = |v: Option<Value>| v.map_or_else(|| "absent".to_owned(), |v| v.to_string());
        let detail = format!("serverInfo version {} became {}", shown(version(old)), shown(version(new)));
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
    if let (Some(o), Some(n)) = (&old.skills, &new.skills) {
        skills(o, n, &mut listed);
    }
    out.0.extend(listed.0);
    let mut changes = out.0;
    changes.sort_by_key(|c| c.severity);
    changes
}

/// Skills by URI: one removed breaks the hosts that load it; a changed frontmatter or file
/// (a digest, a file added or gone) is a change; a new one an addition.
fn skills(old: &[Value], new: &[Value], out: &mut Changes) {
    let uri = |s: &Value| s["uri"].as_str().unwrap_or_default().to_owned();
    let name = |s: &Value| s["frontmatter"]["name"].as_str().unwrap_or("?").to_owned();
    for o in old {
        let path = format!("skills/{}", uri(o));
        let Some(n) = new.iter().find(|n| uri(n) == uri(o)) else {
            let detail = format!("skill {:?} ({}) was removed", name(o), uri(o));
            out.push(ChangeSeverity::Breaking, "removed", &path, Some(o), None, detail);
            continue;
        };
        if o["frontmatter"] != n["frontmatter"] {
            let detail = format!("skill {:?}'s frontmatter changed", name(o));
            let (of, nf) = (&o["frontmatter"], &n["frontmatter"]);
            out.push(
                ChangeSeverity::Change,
                "text",
                &format!("{path}/frontmatter"),
                Some(of),
                Some(nf),
                detail,
            );
        }
        let files = |s: &Value| -> Vec<(String, Value)> {
            match s["resources"].as_array() {
                Some(list) => list.iter().map(|f| (uri(f), f["digest"].clone())).collect(),
                None => vec![("(dynamic)".to_owned(), Value::Null)],
            }
        };
        let (of, nf) = (files(o), files(n));
        let mut changed: Vec<String> =
            of.iter()
                .filter(|f| !nf.contains(f))
                .map(|(u, _)| {
                    if nf.iter().any(|(v, _)| v == u) {
                        format!("{u} changed")
                    } else {
                        format!("{u} is gone")
                    }
                })
                .collect();
        changed.extend(
            nf.iter().filter(|(u, _)| !of.iter().any(|(v, _)| v == u)).map(|(u, _)| format!("{u} is new")),
        );
        if !changed.is_empty() {
            let detail = format!("skill {:?}'s files: {}", name(o), changed.join(", "));
            out.push(
                ChangeSeverity::Change,
                "files",
                &format!("{path}/resources"),
                Some(&o["resources"]),
                Some(&n["resources"]),
                detail,
            );
        }
    }
    for n in new.iter().filter(|n| !old.iter().any(|o| uri(o) == uri(n))) {
        let detail = format!("skill {:?} ({}) was added", name(n), uri(n));
        out.push(ChangeSeverity::Addition, "added", &format!("skills/{}", uri(n)), None, Some(n), detail);
    }
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

#[cfg(test)]
#[path = "diff_tests.rs"]
mod tests;
