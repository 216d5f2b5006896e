//! Exporting a session: the entries a filter matches, as JSONL in a private file, with the
//! person's secrets redacted in every field.
//!
//! Owns: the export's file and its redaction. Refuses: choosing the secrets (the saved servers
//! know them) and the path (the window asks).

use std::io::{self, BufWriter, Write};
use std::path::Path;

use super::{Entry, Filter, WireLog};

/// Writes the entries matching `filter` to `path` (0600) as JSONL, with every occurrence of
/// each of `secrets` (environment values, secret header values, client secrets) replaced by
/// `«redacted»` in every field: the recorded text, bytes kept as base64 (decoded, redacted,
/// encoded again), details, lifecycle command lines, URLs and headers. Returns how many entries
/// were written.
pub fn export_jsonl(log: &WireLog, filter: &Filter, secrets: &[String], path: &Path) -> io::Result<u64> {
    let mut out = BufWriter::new(crate::files::create_private(path)?);
    let secrets: Vec<&str> = secrets.iter().map(String::as_str).filter(|s| !s.is_empty()).collect();
    let mut from = 0;
    let mut written = 0;
    loop {
        let page = log.page(from, u64::MAX, filter, 1000)?;
        for entry in page.entries {
            out.write_all(redacted_line(entry, &secrets).as_bytes())?;
            out.write_all(b"\n")?;
            written += 1;
        }
        match page.next {
            Some(next) => from = next,
            None => break,
        }
    }
    out.flush()?;
    Ok(written)
}

const REDACTED_MARK: &str = "«redacted»";

/// One entry as an export line, with `secrets` gone from every field.
fn redacted_line(mut entry: Entry, secrets: &[&str]) -> String {
    use base64::Engine;
    let engine = base64::engine::general_purpose::STANDARD;
    if let Some(bytes) = entry.base64.as_deref().and_then(|b| engine.decode(b).ok()) {
        let mut bytes = bytes;
        for secret in secrets {
            bytes = replace_bytes(&bytes, secret.as_bytes(), REDACTED_MARK.as_bytes());
        }
        entry.base64 = Some(engine.encode(bytes));
    }
    let mut line = serde_json::to_string(&entry).expect("an entry serializes");
    for secret in secrets {
        // As it appears in JSON: escaped where it has quotes, backslashes or control characters.
        let escaped = serde_json::to_string(secret).expect("a string serializes");
        let escaped = &escaped[1..escaped.len() - 1];
        for form in [escaped, *secret] {
            if line.contains(form) {
                line = line.replace(form, REDACTED_MARK);
            }
        }
    }
    line
}

fn replace_bytes(haystack: &[u8], needle: &[u8], with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(haystack.len());
    let mut i = 0;
    while i < haystack.len() {
        if !needle.is_empty() && haystack[i..].starts_with(needle) {
            out.extend_from_slice(with);
            i += needle.len();
        } else {
            out.push(haystack[i]);
            i += 1;
        }
    }
    out
}
