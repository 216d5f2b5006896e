use serde::Deserialize;

use super::*;
use crate::diagnose::Finding;
use crate::log::Summary;

fn row(kind: Kind, dir: Direction, method: Option<&str>, id: Option<&str>) -> IndexRow {
    IndexRow {
        offset: 0,
        len: 0,
        conn: 1,
        kind,
        dir,
        method: method.map(Into::into),
        id: id.map(Into::into),
        ms: 0.0,
        target: None,
        answers: None,
        rpc: None,
        part_of: None,
        ends: None,
        is_error: false,
        diag: None,
        base64: false,
    }
}

#[test]
fn diag_finds_entries_with_a_finding_at_least_that_severe() {
    let f = Filter::parse("diag:warning").unwrap();
    assert_eq!(f.diag, Some(Severity::Warning));
    let with = |diag| IndexRow { diag, ..row(Kind::Message, Direction::In, None, None) };
    assert!(f.matches_row(&with(Some(Severity::Error))));
    assert!(f.matches_row(&with(Some(Severity::Warning))));
    assert!(!f.matches_row(&with(Some(Severity::Note))));
    assert!(!f.matches_row(&with(None)));
    assert_eq!(Filter::parse("DIAG:any").unwrap().diag, Some(Severity::Note));
    let refused = Filter::parse("diag:bad").unwrap_err().to_string();
    assert!(refused.contains("use error, warning, note, any or a rule: app-csp, "), "{refused}");
    let rule = Filter::parse("diag:Stdout-Not-Protocol").unwrap();
    assert_eq!((rule.diag, rule.rule.as_deref()), (None, Some("stdout-not-protocol")));
    let view = FilterView::of("diag:error method:tools/call");
    assert_eq!(
        view.chips.iter().map(|c| (c.key, c.value.as_str())).collect::<Vec<_>>(),
        [(FilterKey::Method, "tools/call"), (FilterKey::Diag, "error")]
    );
}

#[test]
fn terms_parse_into_fields_and_the_rest_is_text() {
    let cases: &[(&str, Filter)] = &[
        ("", Filter::default()),
        (
            "kind:stderr,lifecycle dir:in method:tools/call id:3 conn:2 Hello World",
            Filter {
                kinds: vec![Kind::Stderr, Kind::Lifecycle],
                dir: Some(Direction::In),
                conn: Some(2),
                method: Some("tools/call".into()),
                id: Some("3".into()),
                target: None,
                text: Some("hello world".into()),
                diag: None,
                rule: None,
                hidden: Vec::new(),
            },
        ),
        (
            "kind:stderr   kind:note dir:< dir:sent",
            Filter { kinds: vec![Kind::Stderr, Kind::Note], dir: Some(Direction::Out), ..Filter::default() },
        ),
        ("dir:*", Filter { dir: Some(Direction::Meta), ..Filter::default() }),
        ("id:\"7\"", Filter { id: Some("\"7\"".into()), ..Filter::default() }),
        (
            "Error: \"url:http://x\"  method:a method:b",
            Filter {
                method: Some("b".into()),
                text: Some("error: url:http://x".into()),
                ..Filter::default()
            },
        ),
        (
            "Kind:note METHOD:ping",
            Filter { kinds: vec![Kind::Note], method: Some("ping".into()), ..Filter::default() },
        ),
        (
            "\"Starting  default\" dir:in",
            Filter { dir: Some(Direction::In), text: Some("starting  default".into()), ..Filter::default() },
        ),
        ("see http://x/y", Filter { text: Some("see http://x/y".into()), ..Filter::default() }),
    ];
    for (expr, want) in cases {
        assert_eq!(Filter::parse(expr).as_ref(), Ok(want), "{expr}");
    }
}

#[test]
fn a_quote_left_open_is_taken_while_typing_and_refused_whole() {
    for (expr, open) in [("dir:in \"Starting default", "\"Starting default"), ("\"", "\"")] {
        assert!(Filter::parse(expr).is_ok(), "{expr}");
        let error = Filter::parse_whole(expr).unwrap_err().to_string();
        assert_eq!(error, format!("the quote of {open} is not closed; end the text with \""));
    }
    assert!(Filter::parse_whole("\"Starting default\" dir:in").is_ok());
}

#[test]
fn bad_terms_are_explained() {
    let cases = [
        ("kind:frames", "unknown kind \"frames\"; kinds are message, non_protocol"),
        ("kind:stderr,", "unknown kind \"\""),
        ("dir:up", "unknown direction \"up\"; use in, out or meta"),
        ("conn:x", "conn:x is not a number"),
        ("conn:-1", "conn:-1 is not a number"),
        ("method:", "method: needs a value"),
        ("error id:", "id: needs a value"),
        (
            "methd:tools/list",
            "unknown key \"methd\"; keys are kind, hide, dir, conn, method, id, target and diag",
        ),
    ];
    for (expr, want) in cases {
        let error = Filter::parse(expr).unwrap_err().to_string();
        assert!(error.starts_with(want), "{expr}: {error}");
    }
}

/// A filter's error is the person's input, whatever is wrong with it: a front end shows
/// `bad_input`, never a failure of Sonde's.
#[test]
fn every_filter_error_is_bad_input() {
    for expr in ["kind:nope", "dir:up", "conn:x", "method:", "methd:x", "diag:loud"] {
        assert_eq!(Filter::parse(expr).unwrap_err().code(), ErrorCode::BadInput, "{expr}");
    }
    assert_eq!(Filter::parse_whole("\"open").unwrap_err(), FilterError::OpenQuote("\"open".into()));
}

#[test]
fn a_view_has_one_chip_per_condition_each_with_the_expression_without_it() {
    use FilterKey::*;
    // An expression, and each of its chips as key, value and the expression without it.
    type Chips = &'static [(FilterKey, &'static str, &'static str)];
    let cases: &[(&str, Chips)] = &[
        ("", &[]),
        ("   ", &[]),
        ("method:tools/call error", &[(Method, "tools/call", "error"), (Text, "error", "method:tools/call")]),
        ("method:tools/list dir:in", &[(Dir, "in", "method:tools/list"), (Method, "tools/list", "dir:in")]),
        (
            "Late kind:note  reply kind:stderr dir:received",
            &[
                (Kind, "note,stderr", "Late reply dir:received"),
                (Dir, "in", "Late kind:note reply kind:stderr"),
                (Text, "late reply", "kind:note kind:stderr dir:received"),
            ],
        ),
        ("dir:in dir:out conn:2", &[(Dir, "out", "conn:2"), (Conn, "2", "dir:in dir:out")]),
        ("id:7", &[(Id, "7", "")]),
    ];
    for (expr, want) in cases {
        let view = FilterView::of(expr);
        let got: Vec<_> = view.chips.iter().map(|c| (c.key, c.value.as_str(), c.without.as_str())).collect();
        assert_eq!(&got, want, "{expr}");
        assert_eq!(view.error, None, "{expr}");
    }
}

#[test]
fn a_view_of_a_bad_expression_has_the_error_and_no_chips() {
    let view = FilterView::of("method:tools/call kind:frames");
    assert!(view.chips.is_empty());
    assert!(view.error.unwrap().starts_with("unknown kind \"frames\""));
}

#[test]
fn rows_match_on_every_field() {
    let string_id = row(Kind::Message, Direction::In, Some("tools/call"), Some("\"7\""));
    let number_id = row(Kind::Message, Direction::In, None, Some("7"));
    let cases = [
        ("", &string_id, true),
        ("kind:message dir:in method:tools/call id:7 conn:1", &string_id, true),
        ("kind:stderr,message", &string_id, true),
        ("id:\"7\"", &string_id, true),
        ("dir:out", &string_id, false),
        ("conn:2", &string_id, false),
        ("method:tools/list", &string_id, false),
        ("kind:stderr", &string_id, false),
        ("id:8", &string_id, false),
        ("id:7", &number_id, true),
        ("id:\"7\"", &number_id, false),
        ("method:tools/call", &number_id, false),
    ];
    for (expr, r, want) in cases {
        assert_eq!(Filter::parse(expr).unwrap().matches_row(r), want, "{expr} on {r:?}");
    }
}

#[test]
fn text_is_one_phrase_found_case_insensitively_in_the_bytes_or_the_detail() {
    let banner = Entry::new(1, Kind::Stderr, Direction::In).with_bytes(b"Listening on STDIO");
    let note = Entry::new(1, Kind::Note, Direction::Meta).with_detail("late reply ignored");
    let binary = Entry::new(1, Kind::NonProtocol, Direction::In).with_bytes(b"\xff\xfebinary Banner");
    let both = Entry::new(1, Kind::NonProtocol, Direction::In).with_bytes(b"first").with_detail("second");
    let cases = [
        ("stdio", &banner, true),
        ("listening on", &banner, true),
        ("on   STDIO", &banner, true),
        ("socket", &banner, false),
        ("stdio listening", &banner, false),
        ("LATE", &note, true),
        ("reply ignored", &note, true),
        ("binary banner", &binary, true),
        // The base64 of those bytes, which no one reading the entry sees.
        ("//5iaw", &binary, false),
        ("first", &both, true),
        ("second", &both, true),
        ("first second", &both, false),
        ("kind:note late", &note, true),
    ];
    for (expr, entry, want) in cases {
        assert_eq!(Filter::parse(expr).unwrap().matches_entry(entry), want, "{expr} on {entry:?}");
    }
}

/// An entry of `filter_cases.json`: what a filter can see of one.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TableEntry {
    seq: u64,
    conn: u64,
    kind: Kind,
    dir: Direction,
    method: Option<String>,
    /// JSON text, as the summary keeps it.
    id: Option<String>,
    target: Option<String>,
    /// The severity of the entry's worst finding.
    diag: Option<Severity>,
    /// Its rule (`table` when not given).
    rule: Option<String>,
    text: Option<String>,
    base64: Option<String>,
    detail: Option<String>,
}

impl TableEntry {
    fn into_entry(self) -> Entry {
        let summary = (self.method.is_some() || self.id.is_some()).then(|| Summary {
            method: self.method,
            id: self.id,
            target: self.target,
            ..Summary::default()
        });
        let rule = self.rule.as_deref().unwrap_or("table");
        let findings = self.diag.map(|s| Finding::new(rule, s, "a finding", "the table"));
        Entry {
            seq: self.seq,
            text: self.text,
            base64: self.base64,
            detail: self.detail,
            summary,
            findings: findings.into_iter().collect(),
            ..Entry::new(self.conn, self.kind, self.dir)
        }
    }
}

/// A case of `filter_cases.json`: a filter, and either that it is refused or its chips
/// (key, value, without) and the seqs of the entries it matches.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TableCase {
    filter: String,
    #[serde(default)]
    error: bool,
    /// Each chip as its key's name, its value and the expression without it.
    chips: Option<Vec<(String, String, String)>>,
    matches: Option<Vec<u64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    #[expect(dead_code, reason = "the table's description, for a reader of the file")]
    about: String,
    entries: Vec<TableEntry>,
    cases: Vec<TableCase>,
}

/// The grammar's table, which the UI's in-memory double runs too
/// (`ui/src/ipc/memoryFilter.test.ts`): every case holds in the core, matched on the row the
/// index keeps of each entry (`log::row_of`) and on the whole entry, as a page is.
#[test]
fn every_case_of_the_table_the_ui_double_shares_holds() {
    let table: Table = serde_json::from_str(include_str!("filter_cases.json")).unwrap();
    let entries: Vec<Entry> = table.entries.into_iter().map(TableEntry::into_entry).collect();
    for e in &entries {
        assert!(e.base64.is_none() || e.bytes().is_some(), "entry {}: base64 that does not decode", e.seq);
    }
    let mut methods = std::collections::HashSet::new();
    let rows: Vec<IndexRow> = entries.iter().map(|e| super::super::row_of(e, 0, 0, &mut methods)).collect();
    let mut wrong = Vec::new();
    for case in &table.cases {
        let expr = &case.filter;
        let view = FilterView::of(expr);
        match (case.error, &case.chips, &case.matches) {
            (true, None, None) => {
                if view.error.is_none() {
                    wrong.push(format!("{expr:?}: parsed, with chips {:?}", view.chips));
                }
            }
            (false, Some(chips), Some(matches)) => {
                let Ok(filter) = Filter::parse(expr) else {
                    wrong.push(format!("{expr:?}: refused: {:?}", view.error));
                    continue;
                };
                let got: Vec<_> = view
                    .chips
                    .iter()
                    .map(|c| {
                        let key = serde_json::to_value(c.key).unwrap().as_str().unwrap().to_owned();
                        (key, c.value.clone(), c.without.clone())
                    })
                    .collect();
                if &got != chips {
                    wrong.push(format!("{expr:?}: chips {got:?}"));
                }
                let got: Vec<u64> = entries
                    .iter()
                    .zip(&rows)
                    .filter(|(e, row)| filter.matches_row(row) && filter.matches_entry(e))
                    .map(|(e, _)| e.seq)
                    .collect();
                if &got != matches {
                    wrong.push(format!("{expr:?}: matches {got:?}"));
                }
            }
            _ => wrong.push(format!("{expr:?}: a case is either error: true or chips and matches")),
        }
    }
    assert!(wrong.is_empty(), "cases the core does not hold:\n{}", wrong.join("\n"));
}
