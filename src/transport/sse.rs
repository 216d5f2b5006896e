//! Server-sent events as Sonde reads them: every block, including metadata-only ones (the
//! priming event of protocol.md §4.1 is an `id` with empty data), with a cap on the size of one
//! event so a server streaming an endless event cannot exhaust memory.
//!
//! Owns: turning a body's byte stream into [`Event`]s with the cap. Refuses: what an event
//! means (the HTTP connection decides: message, primer, endpoint, retry).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use sse_stream::SseByteStream;

/// One event block. `data` is `None` for a block that carried no `data:` line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Event {
    pub id: Option<String>,
    pub event: Option<String>,
    pub retry: Option<u64>,
    pub data: Option<String>,
}

impl Event {
    /// A block with no data, or empty data: a primer (its id and retry still count).
    pub fn is_primer(&self) -> bool {
        self.data.as_deref().is_none_or(str::is_empty)
    }
}

/// Why a stream of events ended early.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SseError {
    #[error("an SSE event grew past the {0}-byte cap")]
    TooLarge(usize),
    #[error("an SSE field was not UTF-8")]
    NotUtf8,
    #[error("{0}")]
    Body(String),
}

/// What the capped byte stream can fail with, before the parser sees it.
#[derive(Debug, thiserror::Error)]
enum ByteError {
    #[error("over the cap")]
    OverCap,
    #[error("{0}")]
    Body(String),
}

/// The events of a byte stream. After an error the stream ends.
pub fn events<S, E>(bytes: S, cap: usize) -> impl Stream<Item = Result<Event, SseError>> + Send
where
    S: Stream<Item = Result<Bytes, E>> + Send,
    E: std::error::Error + Send + Sync + 'static,
{
    // Bytes read since the last event: the parser buffers an event whole, so this bounds it.
    let since_event = Arc::new(AtomicUsize::new(0));
    let counted = since_event.clone();
    let capped = bytes.map(move |chunk| {
        let chunk = chunk.map_err(|e| ByteError::Body(error_chain(&e)))?;
        if counted.fetch_add(chunk.len(), Ordering::Relaxed) + chunk.len() > cap {
            return Err(ByteError::OverCap);
        }
        Ok(chunk)
    });
    SseByteStream::new(capped).map(move |item| {
        since_event.store(0, Ordering::Relaxed);
        match item {
            Ok(sse) => Ok(Event { id: sse.id, event: sse.event, retry: sse.retry, data: sse.data }),
            Err(sse_stream::Error::Body(e)) => match e.downcast::<ByteError>().map(|b| *b) {
                Ok(ByteError::OverCap) => Err(SseError::TooLarge(cap)),
                Ok(ByteError::Body(words)) => Err(SseError::Body(words)),
                Err(other) => Err(SseError::Body(other.to_string())),
            },
            Err(sse_stream::Error::Utf8Parse(_)) => Err(SseError::NotUtf8),
            Err(e) => Err(SseError::Body(e.to_string())),
        }
    })
}

/// An error with its sources, so "error decoding response body" says why.
pub fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut words = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        words.push_str(": ");
        words.push_str(&s.to_string());
        source = s.source();
    }
    // Errors name the URL they were for, password and query included.
    super::shown_urls_in(&words)
}

/// Parses chunks that are all at hand (tests and the fuzzer).
pub fn parse_chunks(chunks: Vec<Vec<u8>>, cap: usize) -> Vec<Result<Event, SseError>> {
    let stream =
        futures_util::stream::iter(chunks.into_iter().map(|c| Ok::<_, std::io::Error>(Bytes::from(c))));
    futures_util::FutureExt::now_or_never(events(stream, cap).collect::<Vec<_>>())
        .expect("a stream of ready chunks is ready")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Vec<Result<Event, SseError>> {
        // Split at every byte to prove events survive any chunking.
        parse_chunks(text.bytes().map(|b| vec![b]).collect(), 1 << 20)
    }

    #[test]
    fn primers_comments_retry_and_messages() {
        let got = parse(": keep-alive\n\nid: 1\nretry: 500\ndata:\n\nid: 2\ndata: {\"a\":\ndata: 1}\n\nevent: endpoint\ndata: /m?s=1\n\n");
        let got: Vec<Event> = got.into_iter().map(Result::unwrap).collect();
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(got[0].is_primer());
        assert_eq!((got[0].id.as_deref(), got[0].retry), (Some("1"), Some(500)));
        assert_eq!(got[1].data.as_deref(), Some("{\"a\":\n1}"));
        assert_eq!((got[2].event.as_deref(), got[2].data.as_deref()), (Some("endpoint"), Some("/m?s=1")));
    }

    #[test]
    fn an_endless_event_stops_at_the_cap() {
        let mut chunks = vec![b"data: ".to_vec()];
        chunks.extend(std::iter::repeat_n(vec![b'x'; 1000], 100));
        let got = parse_chunks(chunks, 10_000);
        assert_eq!(got, vec![Err(SseError::TooLarge(10_000))]);
    }
}
