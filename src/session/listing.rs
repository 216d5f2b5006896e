//! Paginated listing: one page at a time for a front end that pages, or every page followed,
//! within bounds a server cannot push past.
//!
//! Owns: following `nextCursor`, reading a page's list, the tools list (less the tools an HTTP
//! client must leave out), and the caps that keep a hostile or broken server from filling
//! Sonde's memory through a listing (items, bytes, pages); a listing cut short keeps what it
//! gathered and says why, in its result and in the session log.
//! Refuses: what the items mean (`shape` reads them) and the request envelope (`session::Session`).

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::connection::RequestError;
use crate::session::Session;

/// A paginated list of the server's, with the one table of what each is: its method, the key
/// its result holds the items under, and the server capability that offers it.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ListKind {
    Tools,
    Resources,
    Templates,
    Prompts,
}

impl ListKind {
    /// Every list, in the order a person reads a server's surface.
    pub const ALL: [ListKind; 4] =
        [ListKind::Tools, ListKind::Prompts, ListKind::Resources, ListKind::Templates];

    pub fn method(self) -> &'static str {
        match self {
            ListKind::Tools => "tools/list",
            ListKind::Resources => "resources/list",
            ListKind::Templates => "resources/templates/list",
            ListKind::Prompts => "prompts/list",
        }
    }

    /// The key of the result's array of items.
    pub fn key(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            ListKind::Resources => "resources",
            ListKind::Templates => "resourceTemplates",
            ListKind::Prompts => "prompts",
        }
    }

    /// The server capability that offers the list (templates come with `resources`).
    pub fn capability(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            ListKind::Resources | ListKind::Templates => "resources",
            ListKind::Prompts => "prompts",
        }
    }
}

/// The most items a listing gathers. Real servers list tens or hundreds; ten thousand is far
/// past any of them and still a list a window can show.
pub const MAX_ITEMS: usize = 10_000;
/// The most bytes of items (as JSON) a listing gathers.
pub const MAX_BYTES: usize = 32 << 20;
/// How many pages a listing follows before deciding the server's cursors never end.
pub const MAX_PAGES: usize = 10_000;

/// One page of a list, and the cursor of the next (none at the end).
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListPage {
    pub items: Vec<Value>,
    pub next_cursor: Option<Value>,
}

/// Every item a listing gathered, and, when it stopped before the server's last page, why.
#[cfg_attr(feature = "bindings", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Listing {
    pub items: Vec<Value>,
    /// Set when a cap stopped the listing: the items are the first ones only.
    pub stopped: Option<String>,
}

/// The size of `value` as compact JSON, counted without building the text.
fn json_len(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    serde_json::to_writer(&mut count, value).expect("a Value always serializes");
    count.0
}

/// Why a listing with `items` items of `bytes` bytes after `pages` pages must stop, if it must.
fn over_cap(method: &str, items: usize, bytes: usize, pages: usize) -> Option<String> {
    let why = if items >= MAX_ITEMS {
        format!("{items} items (Sonde lists at most {MAX_ITEMS})")
    } else if bytes >= MAX_BYTES {
        format!("{} MiB of items (Sonde lists at most {} MiB)", bytes >> 20, MAX_BYTES >> 20)
    } else if pages >= MAX_PAGES {
        format!("{pages} pages (Sonde follows at most {MAX_PAGES})")
    } else {
        return None;
    };
    Some(format!("{method} stopped after {why}; the server offered more"))
}

impl Session {
    /// Lists every item of a list, following `nextCursor` until it is absent or a cap is
    /// reached. In 2026-07-28 `""` is a cursor, not the end. A cursor given a second time is an
    /// error (`cursor-loop`): a client following it would never end.
    pub async fn list_all(&self, kind: ListKind) -> Result<Listing, RequestError> {
        self.list_every(kind.method(), kind.key()).await
    }

    /// [`Session::list_all`] of any paginated method (`tasks/list` → `tasks` too).
    pub(crate) async fn list_every(&self, method: &str, key: &str) -> Result<Listing, RequestError> {
        let mut items = Vec::new();
        let mut bytes = 0;
        let mut cursor: Option<Value> = None;
        // Every cursor followed, as its JSON text: bounded by MAX_PAGES.
        let mut followed = std::collections::HashSet::new();
        for pages in 1.. {
            let page = self.page_of(method, key, cursor.clone()).await?;
            for item in page.items {
                if let Some(why) = over_cap(method, items.len(), bytes, 0) {
                    return Ok(self.stopped(items, why));
                }
                bytes += json_len(&item);
                items.push(item);
            }
            match page.next_cursor {
                None => return Ok(Listing { items, stopped: None }),
                Some(next) if !followed.insert(next.to_string()) => {
                    let finding = crate::diagnose::cursor_loop(method, &next);
                    self.conn.note_finding(format!("{method} stopped: a cursor loop"), finding);
                    return Err(RequestError::Protocol(format!(
                        "{method} returned nextCursor {next} a second time (a cursor loop); stopped"
                    )));
                }
                Some(next) => cursor = Some(next),
            }
            if let Some(why) = over_cap(method, items.len(), bytes, pages) {
                return Ok(self.stopped(items, why));
            }
        }
        unreachable!("the page count is unbounded; the caps end the loop")
    }

    /// A listing cut short, said in the session log too.
    fn stopped(&self, items: Vec<Value>, why: String) -> Listing {
        self.conn.note(why.clone());
        Listing { items, stopped: Some(why) }
    }

    /// Every tool of the server. Over HTTP in 2026-07-28, a tool whose `x-mcp-header`
    /// annotations break the rules is left out, as an HTTP client MUST, and the log says why.
    pub async fn list_tools(&self) -> Result<Listing, RequestError> {
        let mut tools = self.list_all(ListKind::Tools).await?;
        if !self.conn.is_http() || self.era() != crate::era::Era::Modern {
            return Ok(tools);
        }
        tools.items.retain(|tool| {
            let Err(why) = crate::transport::headers::tool_header_params(tool) else { return true };
            let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
            self.conn.note(format!("tool {name:?} is left out of calls over HTTP: {why}"));
            false
        });
        Ok(tools)
    }

    /// One page of a list, from `cursor` (the first page without one).
    pub async fn fetch_page(&self, kind: ListKind, cursor: Option<Value>) -> Result<ListPage, RequestError> {
        self.page_of(kind.method(), kind.key(), cursor).await
    }

    async fn page_of(
        &self,
        method: &str,
        key: &str,
        cursor: Option<Value>,
    ) -> Result<ListPage, RequestError> {
        let params = cursor.map(|c| json!({ "cursor": c }));
        let mut page = self.request(method, params).await?;
        // A page without its list is not an empty page: saying "no tools" would not be true.
        let items = match page.get_mut(key).map(Value::take) {
            Some(Value::Array(list)) => list,
            Some(other) => {
                return Err(RequestError::Protocol(format!(
                    "{method} answered `{key}` as {}, not an array",
                    crate::shape::kind(&other)
                )))
            }
            None => return Err(RequestError::Protocol(format!("{method} answered without a `{key}` array"))),
        };
        let next_cursor = page.get("nextCursor").filter(|c| !c.is_null()).cloned();
        Ok(ListPage { items, next_cursor })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_len_counts_compact_json() {
        let v = json!({"name": "é", "n": [1, 2]});
        assert_eq!(json_len(&v), serde_json::to_vec(&v).unwrap().len());
    }

    #[test]
    fn each_cap_stops_and_says_which() {
        assert_eq!(over_cap("tools/list", MAX_ITEMS - 1, MAX_BYTES - 1, MAX_PAGES - 1), None);
        assert!(over_cap("tools/list", MAX_ITEMS, 0, 1).unwrap().contains("10000 items"));
        assert!(over_cap("tools/list", 1, MAX_BYTES, 1).unwrap().contains("32 MiB"));
        assert!(over_cap("tools/list", 0, 0, MAX_PAGES).unwrap().contains("10000 pages"));
    }
}
