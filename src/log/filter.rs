//! Filters over the wire log, and the small expression language the CLI and UI type them in.
//!
//! Owns: `Filter`, its parsing from `kind:stderr dir:in method:tools/call id:3 free text`, and
//! matching against an index row (cheap) or a whole entry (for free text).
//! Refuses: regular expressions and boolean algebra; a filter is a conjunction of terms.

use super::entry::{Direction, Entry, Kind};

/// A conjunction of conditions; an empty filter matches everything.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    /// Any of these kinds (empty: any kind).
    pub kinds: Vec<Kind>,
    pub dir: Option<Direction>,
    pub conn: Option<u64>,
    /// The JSON-RPC method of a message, or of the request a reply answers.
    pub method: Option<String>,
    /// The id as JSON text (`3` or `"3"`); a bare word also matches a string id of that text.
    pub id: Option<String>,
    /// Case-insensitive text searched in the recorded bytes and the detail.
    pub text: Option<String>,
}

/// What the index keeps of an entry, so most filters never read the file.
#[derive(Debug, Clone)]
pub struct IndexRow {
    pub offset: u64,
    pub len: u64,
    pub conn: u64,
    pub kind: Kind,
    pub dir: Direction,
    pub method: Option<std::sync::Arc<str>>,
    pub id: Option<Box<str>>,
}

impl Filter {
    /// Parses `key:value` terms (`kind`, `dir`, `conn`, `method`, `id`); other words are text.
    pub fn parse(expr: &str) -> Result<Filter, String> {
        let mut f = Filter::default();
        let mut words = Vec::new();
        for term in expr.split_whitespace() {
            let Some((key, value)) = term.split_once(':') else {
                words.push(term);
                continue;
            };
            match key {
                "kind" => {
                    for k in value.split(',') {
                        let kind = Kind::parse(k).ok_or_else(|| {
                            let names: Vec<_> = Kind::ALL.iter().map(|k| k.name()).collect();
                            format!("unknown kind {k:?}; kinds are {}", names.join(", "))
                        })?;
                        f.kinds.push(kind);
                    }
                }
                "dir" => {
                    f.dir = Some(
                        Direction::parse(value)
                            .ok_or_else(|| format!("unknown direction {value:?}; use in, out or meta"))?,
                    )
                }
                "conn" => f.conn = Some(value.parse().map_err(|_| format!("conn:{value} is not a number"))?),
                "method" => f.method = Some(value.to_owned()),
                "id" => f.id = Some(value.to_owned()),
                _ => words.push(term),
            }
        }
        if !words.is_empty() {
            f.text = Some(words.join(" ").to_lowercase());
        }
        Ok(f)
    }

    pub fn needs_entry(&self) -> bool {
        self.text.is_some()
    }

    /// Everything but the free text, decided from the index alone.
    pub fn matches_row(&self, row: &IndexRow) -> bool {
        (self.kinds.is_empty() || self.kinds.contains(&row.kind))
            && self.dir.is_none_or(|d| d == row.dir)
            && self.conn.is_none_or(|c| c == row.conn)
            && self.method.as_deref().is_none_or(|m| row.method.as_deref() == Some(m))
            && self.id.as_deref().is_none_or(|id| row.id.as_deref().is_some_and(|r| id_matches(id, r)))
    }

    /// The free-text part, on a whole entry.
    pub fn matches_text(&self, entry: &Entry) -> bool {
        let Some(needle) = &self.text else {
            return true;
        };
        let hay =
            |s: &Option<String>| s.as_deref().is_some_and(|s| s.to_lowercase().contains(needle.as_str()));
        hay(&entry.text) || hay(&entry.detail) || hay(&entry.base64)
    }
}

fn id_matches(wanted: &str, recorded: &str) -> bool {
    wanted == recorded || recorded.strip_prefix('"').and_then(|r| r.strip_suffix('"')) == Some(wanted)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(kind: Kind, dir: Direction, method: Option<&str>, id: Option<&str>) -> IndexRow {
        IndexRow {
            offset: 0,
            len: 0,
            conn: 1,
            kind,
            dir,
            method: method.map(Into::into),
            id: id.map(Into::into),
        }
    }

    #[test]
    fn terms_parse_into_fields_and_the_rest_is_text() {
        let f =
            Filter::parse("kind:stderr,lifecycle dir:in method:tools/call id:3 conn:2 Hello World").unwrap();
        assert_eq!(f.kinds, vec![Kind::Stderr, Kind::Lifecycle]);
        assert_eq!(f.dir, Some(Direction::In));
        assert_eq!(f.method.as_deref(), Some("tools/call"));
        assert_eq!(f.id.as_deref(), Some("3"));
        assert_eq!(f.conn, Some(2));
        assert_eq!(f.text.as_deref(), Some("hello world"));
    }

    #[test]
    fn bad_terms_are_explained() {
        assert!(Filter::parse("kind:frames").unwrap_err().contains("kinds are message"));
        assert!(Filter::parse("dir:up").unwrap_err().contains("in, out or meta"));
        assert!(Filter::parse("conn:x").is_err());
    }

    #[test]
    fn rows_match_on_every_field() {
        let r = row(Kind::Message, Direction::In, Some("tools/call"), Some("\"7\""));
        assert!(Filter::parse("").unwrap().matches_row(&r));
        assert!(Filter::parse("kind:message dir:in method:tools/call id:7").unwrap().matches_row(&r));
        assert!(Filter::parse("id:\"7\"").unwrap().matches_row(&r));
        assert!(!Filter::parse("dir:out").unwrap().matches_row(&r));
        assert!(!Filter::parse("method:tools/list").unwrap().matches_row(&r));
        assert!(!Filter::parse("kind:stderr").unwrap().matches_row(&r));
        let numeric = row(Kind::Message, Direction::In, None, Some("7"));
        assert!(!Filter::parse("id:\"7\"").unwrap().matches_row(&numeric));
    }

    #[test]
    fn text_matches_case_insensitively_in_bytes_and_detail() {
        let e = Entry::new(1, Kind::Stderr, Direction::In).with_bytes(b"Listening on STDIO");
        assert!(Filter::parse("stdio").unwrap().matches_text(&e));
        assert!(!Filter::parse("socket").unwrap().matches_text(&e));
        let note = Entry::new(1, Kind::Note, Direction::Meta).with_detail("late reply ignored");
        assert!(Filter::parse("LATE").unwrap().matches_text(&note));
    }
}
