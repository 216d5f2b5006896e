//! The wire log's own tests: appending, reopening, pages, exports, privacy.
use super::*;
use std::fs::{self, OpenOptions};
use std::io::Write;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sonde-log-test-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    dir
}

fn stderr(text: &str) -> Entry {
    Entry::new(1, Kind::Stderr, Direction::In).with_bytes(text.as_bytes())
}

#[test]
fn an_export_redacts_secrets_in_every_field() {
    let dir = temp_dir("export-every-field");
    let log = WireLog::create_in(&dir).unwrap();
    let secret = "s3cr\"et-Value";
    // Bytes kept as base64 (not UTF-8), a lifecycle command line, a detail, a URL, a header.
    let mut bytes = vec![0xff, 0xfe];
    bytes.extend_from_slice(secret.as_bytes());
    log.append(Entry::new(1, Kind::NonProtocol, Direction::In).with_bytes(&bytes));
    let mut spawned = Entry::new(1, Kind::Lifecycle, Direction::Meta);
    spawned.lifecycle =
        Some(crate::lifecycle::Lifecycle::Spawned { pid: 1, command: format!("srv --key {secret}") });
    log.append(spawned);
    let mut http = Entry::new(1, Kind::Http, Direction::Out).with_detail(format!("GET with {secret}"));
    http.http = Some(HttpInfo {
        exchange: 1,
        url: Some(format!("http://h/mcp?x={secret}")),
        headers: vec![("X-Custom".into(), secret.into())],
        ..HttpInfo::default()
    });
    log.append(http);
    let path = dir.join("export.jsonl");
    assert_eq!(export_jsonl(&log, &Filter::default(), &[secret.into()], &path).unwrap(), 3);
    let text = fs::read_to_string(&path).unwrap();
    assert!(!text.contains("s3cr"), "no form of the secret is left: {text}");
    assert_eq!(text.matches("«redacted»").count(), 4, "{text}");
    use base64::Engine;
    let first: Entry = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let decoded = base64::engine::general_purpose::STANDARD.decode(first.base64.unwrap()).unwrap();
    assert!(!String::from_utf8_lossy(&decoded).contains("s3cr"));
    assert!(String::from_utf8_lossy(&decoded).contains("«redacted»"));
}

#[test]
fn a_session_log_its_card_its_directory_and_an_export_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let dir = temp_dir("private");
    let log = WireLog::create_in(&dir.join("sessions")).unwrap();
    log.append(stderr("hello"));
    log.flush().unwrap();
    assert_eq!(mode(&dir.join("sessions")), 0o700);
    assert_eq!(mode(log.path()), 0o600);
    assert_eq!(mode(&sessions::card_path(log.path())), 0o600);
    let export = dir.join("export.jsonl");
    export_jsonl(&log, &Filter::parse("").unwrap(), &[], &export).unwrap();
    assert_eq!(mode(&export), 0o600);
}

#[test]
fn last_stderr_is_the_latest_process_s_tail_of_one_connection_cleaned() {
    let log = WireLog::create_in(&temp_dir("last-stderr")).unwrap();
    let spawned = |conn| {
        let mut e = Entry::new(conn, Kind::Lifecycle, Direction::Meta);
        e.lifecycle = Some(crate::lifecycle::Lifecycle::Spawned { pid: 1, command: "x".into() });
        e
    };
    log.append(spawned(1));
    log.append(stderr("first process\r\n"));
    log.append(spawned(1));
    log.append(stderr("\u{1b}[31mError\u{1b}[0m: one\r\r\ntw"));
    log.append(Entry::new(2, Kind::Stderr, Direction::In).with_bytes(b"other connection\n"));
    log.append(stderr("o\r\nthree\r\n"));
    assert_eq!(log.last_stderr(1, 20, 4096).unwrap(), ["Error: one", "two", "three"]);
    assert_eq!(log.last_stderr(1, 2, 4096).unwrap(), ["two", "three"]);
    assert_eq!(log.last_stderr(2, 20, 4096).unwrap(), ["other connection"]);
    assert!(log.last_stderr(3, 20, 4096).unwrap().is_empty());
}

#[test]
fn appended_entries_are_numbered_persisted_and_reopened() {
    let dir = temp_dir("reopen");
    let log = WireLog::create_in(&dir).unwrap();
    for i in 0..10 {
        assert_eq!(log.append(stderr(&format!("line {i}"))), i);
    }
    let path = log.path().to_owned();
    log.flush().unwrap();
    let reopened = WireLog::open(&path).unwrap();
    assert_eq!(reopened.len(), 10);
    let all = reopened.entries(&Filter::default()).unwrap();
    assert_eq!(all[7].text.as_deref(), Some("line 7"));
    assert_eq!(all[7].seq, 7);
    assert_eq!(last_session(&dir).unwrap(), path);
}

#[test]
fn a_json_frame_is_recorded_verbatim_and_read_back_exactly() {
    let dir = temp_dir("verbatim");
    let log = WireLog::create_in(&dir).unwrap();
    let frame =
        |text: &str| Entry::new(1, Kind::Message, Direction::In).with_bytes(text.as_bytes()).json_frame();
    // Escapes, a character outside ASCII, a number no float keeps, and one larger than the
    // buffer a line is written through.
    let small = r#"{"jsonrpc":"2.0","method":"x","params":{"s":"a\"b\\n\u00e9 é","n":123456789012345678901234567890}}"#;
    let large = format!(r#"{{"jsonrpc":"2.0","method":"x","params":{{"s":"{}"}}}}"#, "é\\\\".repeat(300_000));
    // Marked as JSON but with a carriage return after it: kept as text, byte for byte.
    let cr = "{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\r";
    let streamed: Vec<Entry> = [frame(small), frame(&large), frame(cr), stderr("{\"not\":\"marked\"}")]
        .into_iter()
        .map(|e| {
            let mut follow = log.follow();
            log.append(e);
            match follow.try_next() {
                Some(follow::Followed::Entry(entry, _)) => Entry::clone(&entry),
                other => panic!("streamed: {other:?}"),
            }
        })
        .collect();
    assert!(streamed[0].json && streamed[1].json && !streamed[2].json && !streamed[3].json);
    log.flush().unwrap();
    let lines: Vec<String> =
        fs::read_to_string(log.path()).unwrap().lines().skip(1).map(str::to_owned).collect();
    assert!(lines[0].ends_with(&format!(r#","frame":{small}}}"#)), "{}", lines[0]);
    assert!(lines[1].ends_with(&format!(r#","frame":{large}}}"#)));
    assert!(lines[2].contains(r#""text":"{\"jsonrpc"#) && !lines[2].contains("frame"), "{}", lines[2]);
    assert!(lines[3].contains(r#""text":"{\"not"#), "{}", lines[3]);
    for line in &lines {
        serde_json::from_str::<serde_json::Value>(line).expect("every line is JSON");
    }
    let read = WireLog::open(log.path()).unwrap().entries(&Filter::default()).unwrap();
    assert_eq!(read.len(), 4);
    for (read, streamed) in read.iter().zip(&streamed) {
        assert_eq!(read, streamed, "an entry read back is the entry streamed");
    }
    assert_eq!(read[1].text.as_deref(), Some(large.as_str()));
    // What front ends and exports are sent holds the frame as text, as ever.
    let sent = serde_json::to_value(&read[0]).unwrap();
    assert_eq!(sent["text"], small);
    assert!(sent.get("frame").is_none());
}

#[test]
fn pages_follow_seq_ranges_and_filters() {
    let log = WireLog::create_in(&temp_dir("pages")).unwrap();
    for i in 0..100 {
        let e = if i % 10 == 0 {
            Entry::new(2, Kind::Lifecycle, Direction::Meta).with_detail(format!("step {i}"))
        } else {
            stderr(&format!("noise {i}"))
        };
        log.append(e);
    }
    let page = log.page(10, 50, &Filter::default(), 15).unwrap();
    assert_eq!(page.entries.first().unwrap().seq, 10);
    assert_eq!(page.entries.len(), 15);
    assert_eq!(page.next, Some(25));
    let lifecycle = log.page(0, u64::MAX, &Filter::parse("kind:lifecycle").unwrap(), 100).unwrap();
    assert_eq!(lifecycle.entries.len(), 10);
    assert_eq!(lifecycle.next, None);
    let text = log.entries(&Filter::parse("noise 42").unwrap()).unwrap();
    assert_eq!(text.iter().map(|e| e.seq).collect::<Vec<_>>(), vec![42]);
}

#[test]
fn a_partial_last_line_left_by_a_crash_is_skipped_on_open() {
    let dir = temp_dir("partial");
    let log = WireLog::create_in(&dir).unwrap();
    log.append(stderr("whole"));
    log.flush().unwrap();
    let path = log.path().to_owned();
    drop(log);
    let mut f = OpenOptions::new().append(true).open(&path).unwrap();
    f.write_all(b"{\"seq\":2,\"ti").unwrap();
    // The entry and the end-of-session entry dropping the log wrote.
    let read = WireLog::open(&path).unwrap();
    assert_eq!(read.len(), 2);
    assert_eq!(read.incomplete(), [Incomplete::PartialLastLine]);
}

#[test]
fn exports_redact_secrets() {
    let log = WireLog::create_in(&temp_dir("export")).unwrap();
    log.append(stderr("token=sk-live-1234 ok"));
    log.append(stderr("nothing here"));
    let path = temp_dir("export-out").with_extension("jsonl");
    let n = export_jsonl(&log, &Filter::default(), &["sk-live-1234".into()], &path).unwrap();
    assert_eq!(n, 2);
    let text = fs::read_to_string(&path).unwrap();
    assert!(!text.contains("sk-live-1234") && text.contains("token=«redacted» ok"), "{text}");
}

#[test]
fn the_flusher_writes_without_being_asked() {
    let log = WireLog::create_in(&temp_dir("flusher")).unwrap();
    log.append(stderr("soon on disk"));
    let deadline = Instant::now() + Duration::from_secs(5);
    while fs::read_to_string(log.path()).unwrap().is_empty() {
        assert!(Instant::now() < deadline, "the entry never reached the file");
        std::thread::yield_now();
    }
}

#[test]
fn a_free_text_scan_finds_what_decoding_every_entry_finds_page_by_page() {
    let dir = temp_dir("text-scan");
    let log = WireLog::create_in(&dir).unwrap();
    for i in 0..3000 {
        let entry = match i % 500 {
            // The word in a message's bytes, in another case.
            7 => Entry::new(1, Kind::Message, Direction::In).with_bytes(
                format!(r#"{{"jsonrpc":"2.0","method":"x","params":{{"v":"a NEEDLE {i}"}}}}"#).as_bytes(),
            ),
            // In the detail only.
            11 => Entry::new(1, Kind::Note, Direction::Meta).with_detail(format!("needle in a note {i}")),
            // In bytes that are not UTF-8 (kept as base64, whose letters do not show it).
            13 => {
                let mut bytes = vec![0xff];
                bytes.extend_from_slice(format!("needle {i}").as_bytes());
                Entry::new(2, Kind::NonProtocol, Direction::In).with_bytes(&bytes)
            }
            // The word split by a JSON escape is not the word.
            17 => stderr("need\"le"),
            _ => stderr(&format!("line {i}")),
        };
        log.append(entry);
    }
    // Entry by entry (what a needle the scan cannot take gets), against the scan.
    let decoded = |filter: &Filter| {
        let rows: Vec<Entry> = (0..log.len())
            .map(|seq| log.page(seq, seq + 1, &Filter::default(), 1).unwrap().entries[0].clone())
            .collect();
        rows.into_iter()
            .filter(|e| filter.matches_row(&row_of_entry(e)) && filter.matches_entry(e))
            .map(|e| e.seq)
            .collect::<Vec<u64>>()
    };
    for expr in ["needle", "NeEdLe", "conn:2 needle", "kind:note needle", "needle 2507"] {
        let filter = Filter::parse(expr).unwrap();
        assert!(filter::TextFinder::new(&filter).is_some(), "{expr} is scanned");
        let want = decoded(&filter);
        // Pages of 4 carry on where the last ended, and end with no next.
        let (mut got, mut from) = (Vec::new(), 0);
        loop {
            let page = log.page(from, u64::MAX, &filter, 4).unwrap();
            got.extend(page.entries.iter().map(|e| e.seq));
            match page.next {
                Some(next) => from = next,
                None => break,
            }
        }
        assert_eq!(got, want, "{expr}");
        assert!(!want.is_empty(), "{expr}");
        // The window's way: counted a small budget at a time, then paged by position.
        let mut count = log.count_matches(&filter, u64::MAX, 3).unwrap();
        while count.scanned < log.len() {
            count = log.count_matches(&filter, u64::MAX, 3).unwrap();
        }
        assert_eq!(count.count, want.len() as u64, "{expr}");
        let paged: Vec<u64> = (0..want.len())
            .step_by(2)
            .flat_map(|at| log.match_page(&filter, at as u64, 2).unwrap())
            .map(|e| e.seq)
            .collect();
        assert_eq!(paged, want, "{expr}: by position");
    }
    // A needle with a quote is searched entry by entry, and found.
    let quoted = Filter::parse(r#"need"le"#);
    if let Ok(filter) = quoted {
        assert!(filter::TextFinder::new(&filter).is_none());
        assert_eq!(log.entries(&filter).unwrap().len(), decoded(&filter).len());
    }
}

/// What the index holds of an entry, for checking row filters against decoded entries.
fn row_of_entry(e: &Entry) -> IndexRow {
    IndexRow {
        offset: 0,
        len: 0,
        conn: e.conn,
        kind: e.kind,
        dir: e.dir,
        method: e.summary.as_ref().and_then(|s| s.method.as_deref()).map(Into::into),
        id: None,
        ms: e.ms,
        target: None,
        answers: e.answers,
        rpc: None,
        part_of: None,
        ends: e.ends,
        is_error: e.summary.as_ref().is_some_and(|s| s.is_error),
        diag: None,
        base64: e.base64.is_some(),
    }
}

#[test]
fn pages_read_while_entries_are_appended_never_reach_past_the_file() {
    let dir = temp_dir("page-while-appending");
    let log = WireLog::create_in(&dir).unwrap();
    let writer = log.clone();
    let appending = std::thread::spawn(move || {
        for i in 0..20_000 {
            writer.append(Entry::new(1, Kind::Note, Direction::Meta).with_detail(format!("needle {i}")));
        }
    });
    // Each page flushes, then reads rows the index already holds while more are appended (and
    // wait in the write buffer): a text page reads whole spans of the file, an indexed one row by
    // row, and neither may read past what was written.
    let mut pages = 0;
    while !appending.is_finished() || pages < 3 {
        for expr in ["needle", "kind:note needle 1", "kind:note"] {
            log.page(0, u64::MAX, &Filter::parse(expr).unwrap(), 100_000).unwrap();
        }
        log.last_stderr(1, 10, 1000).unwrap();
        pages += 1;
    }
    appending.join().unwrap();
    let all = log.page(0, u64::MAX, &Filter::parse("needle").unwrap(), usize::MAX).unwrap();
    assert_eq!(all.entries.len(), 20_000);
}
