//! Newline-delimited framing of a byte stream, as the stdio transport of both MCP eras defines it.
//!
//! Owns: splitting on LF, stripping one trailing CR, capping the length of a single line.
//! Refuses: any interpretation of the bytes. A frame is bytes; whether it is JSON, UTF-8 or a
//! banner is for the decoder to say. Over stdio a line is decoded before the connection loop
//! records it (in the loop's task, or on the decoder thread for a flood: `connection::stdout`),
//! and what is recorded is still the line's exact bytes.

/// One piece of a stdout stream, in the order it was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// A complete line without its terminator (LF, or CR LF).
    Line(Vec<u8>),
    /// The first `max_line` bytes of a line that is longer than the cap. The rest of that line
    /// is counted, not kept, and a [`Piece::Truncated`] follows when the line ends.
    Head(Vec<u8>),
    /// The end of an over-long line: how many bytes it had in all (without its terminator), and
    /// its last bytes (at most [`TAIL`]), where a reply whose id comes last names its request.
    Truncated { total_len: u64, tail: Vec<u8> },
    /// Bytes after the last LF when the stream ended.
    Unterminated(Vec<u8>),
}

/// Splits a byte stream into lines with a length cap, keeping memory bounded by the cap.
#[derive(Debug)]
pub struct FrameSplitter {
    max_line: usize,
    buf: Vec<u8>,
    /// Bytes of the current line counted past the cap; `Some` while discarding its tail.
    overflow: Option<u64>,
    /// The last bytes of the over-long line being discarded.
    tail: Vec<u8>,
}

/// How many of an over-long line's last bytes are kept.
pub const TAIL: usize = 256;

/// The default cap on one line: 64 MiB.
pub const DEFAULT_MAX_LINE: usize = 64 * 1024 * 1024;

impl FrameSplitter {
    pub fn new(max_line: usize) -> Self {
        FrameSplitter { max_line: max_line.max(1), buf: Vec::new(), overflow: None, tail: Vec::new() }
    }

    /// Feeds bytes as they were read and returns the pieces they complete.
    pub fn push(&mut self, mut bytes: &[u8]) -> Vec<Piece> {
        let mut out = Vec::new();
        while !bytes.is_empty() {
            let newline = memchr::memchr(b'\n', bytes);
            let (chunk, rest, ends_line) = match newline {
                Some(i) => (&bytes[..i], &bytes[i + 1..], true),
                None => (bytes, &bytes[bytes.len()..], false),
            };
            bytes = rest;
            match self.overflow.as_mut() {
                Some(counted) => {
                    *counted += chunk.len() as u64;
                    self.keep_tail(chunk);
                }
                // A whole line in one read, the common case: one allocation of its size
                // rather than a buffer grown to it.
                None if ends_line && self.buf.is_empty() && chunk.len() <= self.max_line => {
                    out.push(Piece::Line(chunk.strip_suffix(b"\r").unwrap_or(chunk).to_vec()));
                    continue;
                }
                None => {
                    let room = self.max_line - self.buf.len();
                    if chunk.len() <= room {
                        self.buf.extend_from_slice(chunk);
                    } else {
                        self.buf.extend_from_slice(&chunk[..room]);
                        self.overflow = Some((chunk.len() - room) as u64);
                        let head = std::mem::take(&mut self.buf);
                        // The tail starts with the head's last bytes: a line just over the cap
                        // has its end in both.
                        self.tail.clear();
                        self.keep_tail(&head[head.len().saturating_sub(TAIL)..]);
                        self.keep_tail(&chunk[room..]);
                        out.push(Piece::Head(head));
                    }
                }
            }
            if ends_line {
                out.push(self.finish_line());
            }
        }
        out
    }

    /// Ends the stream: returns the unterminated tail, if any.
    pub fn finish(&mut self) -> Option<Piece> {
        if self.overflow.is_some() {
            return Some(self.finish_line());
        }
        if self.buf.is_empty() {
            return None;
        }
        Some(Piece::Unterminated(std::mem::take(&mut self.buf)))
    }

    /// Keeps the last [`TAIL`] bytes of what has been discarded so far.
    fn keep_tail(&mut self, bytes: &[u8]) {
        self.tail.extend_from_slice(&bytes[bytes.len().saturating_sub(TAIL)..]);
        let excess = self.tail.len().saturating_sub(TAIL);
        self.tail.drain(..excess);
    }

    fn finish_line(&mut self) -> Piece {
        match self.overflow.take() {
            // The count is every byte before the LF, a CR included: the line was not kept, so
            // there is no terminator to strip.
            Some(counted) => {
                let mut tail = std::mem::take(&mut self.tail);
                if tail.last() == Some(&b'\r') {
                    tail.pop();
                }
                Piece::Truncated { total_len: self.max_line as u64 + counted, tail }
            }
            None => {
                let mut line = std::mem::take(&mut self.buf);
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                Piece::Line(line)
            }
        }
    }
}

/// Encodes one outgoing message as a frame: the JSON text and a single LF.
pub fn encode_line(json: &[u8]) -> Vec<u8> {
    let mut line = Vec::with_capacity(json.len() + 1);
    line.extend_from_slice(json);
    line.push(b'\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(cap: usize, chunks: &[&[u8]]) -> Vec<Piece> {
        let mut s = FrameSplitter::new(cap);
        let mut out: Vec<Piece> = chunks.iter().flat_map(|c| s.push(c)).collect();
        out.extend(s.finish());
        out
    }

    #[test]
    fn lines_split_on_lf_and_lose_one_trailing_cr() {
        assert_eq!(
            split(100, &[b"a\r\nb\n\r\r\n"]),
            vec![Piece::Line(b"a".to_vec()), Piece::Line(b"b".to_vec()), Piece::Line(b"\r".to_vec())]
        );
    }

    #[test]
    fn a_line_may_arrive_in_many_reads() {
        assert_eq!(split(100, &[b"{\"a\"", b":1", b"}\n"]), vec![Piece::Line(b"{\"a\":1}".to_vec())]);
    }

    #[test]
    fn empty_lines_are_frames_too() {
        assert_eq!(split(100, &[b"\n\n"]), vec![Piece::Line(vec![]), Piece::Line(vec![])]);
    }

    #[test]
    fn an_unterminated_tail_is_returned_at_the_end() {
        assert_eq!(
            split(100, &[b"x\ny"]),
            vec![Piece::Line(b"x".to_vec()), Piece::Unterminated(b"y".to_vec())]
        );
    }

    #[test]
    fn an_over_long_line_keeps_its_head_and_reports_its_length() {
        assert_eq!(
            split(4, &[b"abcdef", b"gh\nok\n"]),
            vec![
                Piece::Head(b"abcd".to_vec()),
                Piece::Truncated { total_len: 8, tail: b"abcdefgh".to_vec() },
                Piece::Line(b"ok".to_vec())
            ]
        );
    }

    #[test]
    fn a_line_exactly_at_the_cap_is_whole() {
        assert_eq!(split(4, &[b"abcd\n"]), vec![Piece::Line(b"abcd".to_vec())]);
    }

    #[test]
    fn an_over_long_line_cut_by_end_of_stream_is_still_reported() {
        assert_eq!(
            split(2, &[b"abc"]),
            vec![Piece::Head(b"ab".to_vec()), Piece::Truncated { total_len: 3, tail: b"abc".to_vec() }]
        );
    }

    #[test]
    fn memory_stays_at_the_cap_while_discarding() {
        let mut s = FrameSplitter::new(8);
        for _ in 0..1000 {
            s.push(&[b'x'; 1024]);
        }
        assert!(s.buf.capacity() <= 1024, "the buffer grew to {}", s.buf.capacity());
        assert_eq!(s.push(b"\n"), vec![Piece::Truncated { total_len: 1024 * 1000, tail: vec![b'x'; TAIL] }]);
    }
}
