//! The NDJSON transport (`application/x-ndjson`): one JSON text a line,
//! each ended by `\n` (a `\r` before it is dropped, as the line readers of
//! the clients drop it). Ollama's native API streams its `/api/chat` and
//! `/api/generate` answers so (`ollama/ollama server/routes.go`
//! `streamResponse`, which writes each object and a newline).
//!
//! Every line is a message, a blank one too: a client that splits lines
//! hands it to its JSON decoder as it does any other (ollama-python then
//! raises, ollama-js skips it), so whether it is a fault is the dialect's
//! to say. A last line with no newline is a message too, marked
//! unterminated. The framer keeps one line in memory, at most the limit.

use super::{Framed, Message, Sink};

/// The transport's name in reports.
pub const NAME: &str = "ndjson";
/// The media type of an NDJSON body.
pub const MEDIA_TYPE: &str = "application/x-ndjson";
/// What one message is called.
pub const MESSAGE: &str = "line";
/// What a body of this transport is, in a phrase for messages.
pub const WHAT: &str = "NDJSON lines";

/// The NDJSON framer: lines out of bytes fed in any pieces.
#[derive(Debug)]
pub struct Framer {
    /// The line being read (its first `limit` bytes).
    line: Vec<u8>,
    /// Bytes of the line at hand past the limit, dropped.
    dropped: u64,
    /// Body offset of the line at hand.
    offset: u64,
    /// Its 1-based line number.
    number: u64,
    /// Lines handed over.
    index: u64,
    /// Bytes read.
    read: u64,
    limit: usize,
}

impl Framer {
    /// A framer that keeps at most `limit` bytes of a line.
    pub fn with_limit(limit: usize) -> Self {
        Framer {
            line: Vec::new(),
            dropped: 0,
            offset: 0,
            number: 1,
            index: 0,
            read: 0,
            limit: limit.max(1),
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        let room = self.limit.saturating_sub(self.line.len());
        let n = room.min(bytes.len());
        self.line.extend_from_slice(&bytes[..n]);
        self.dropped += (bytes.len() - n) as u64;
    }

    /// Hands over the line at hand; `terminated` when a newline ended it.
    fn emit(&mut self, terminated: bool, sink: &mut dyn Sink) {
        let mut line = std::mem::take(&mut self.line);
        self.hand_over(&line, terminated, sink);
        line.clear();
        self.line = line;
    }

    /// Hands over a line whose kept bytes are `line` (the line at hand's,
    /// or a whole line lent from the bytes fed, with no copy).
    fn hand_over(&mut self, line: &[u8], terminated: bool, sink: &mut dyn Sink) {
        let kept = line.len() as u64 + self.dropped;
        let len = kept + u64::from(terminated);
        let mut text: &[u8] = line;
        if terminated && self.dropped == 0 {
            text = text.strip_suffix(b"\r").unwrap_or(text);
        }
        let (data, verbatim) = match std::str::from_utf8(text) {
            Ok(s) => (std::borrow::Cow::Borrowed(s), true),
            Err(_) => (String::from_utf8_lossy(text), false),
        };
        sink.message(&Message {
            index: self.index,
            offset: self.offset,
            len,
            line: self.number,
            data: &data,
            verbatim,
            name: "message",
            terminated,
            time_ms: None,
            oversized: self.dropped > 0,
            data_offset: self.offset,
            headers: &[],
            fault: None,
        });
        self.index += 1;
        self.offset += len;
        self.number += 1;
        self.dropped = 0;
    }
}

impl super::Framer for Framer {
    fn feed(&mut self, mut bytes: &[u8], sink: &mut dyn Sink) {
        self.read += bytes.len() as u64;
        while let Some(i) = memchr::memchr(b'\n', bytes) {
            if self.line.is_empty() && self.dropped == 0 && i <= self.limit {
                // A whole line within these bytes: handed over from them.
                self.hand_over(&bytes[..i], true, sink);
            } else {
                self.push(&bytes[..i]);
                self.emit(true, sink);
            }
            bytes = &bytes[i + 1..];
        }
        self.push(bytes);
    }

    fn finish(&mut self, sink: &mut dyn Sink) -> Framed {
        if !self.line.is_empty() || self.dropped > 0 {
            self.emit(false, sink);
        }
        Framed {
            messages: self.index,
            bytes: self.read,
        }
    }
}

/// Whether `head`, a body's first bytes, is an NDJSON stream of the
/// shape sselint reads: its first line (a BOM and blank space before it
/// skipped) is a whole JSON object with a boolean `done`, as every line
/// of Ollama's `/api/chat` and `/api/generate` has. A bare JSON error
/// object, or one JSON document over several lines, is not.
pub fn looks_like(head: &[u8]) -> bool {
    let head = head.strip_prefix(&[0xEF, 0xBB, 0xBF][..]).unwrap_or(head);
    let start = head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(head.len());
    let rest = &head[start..];
    if rest.first() != Some(&b'{') {
        return false;
    }
    let Some(end) = memchr::memchr(b'\n', rest) else {
        return false;
    };
    serde_json::from_slice::<serde_json::Value>(&rest[..end])
        .ok()
        .is_some_and(|v| v.get("done").is_some_and(serde_json::Value::is_boolean))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::Framer as _;

    #[derive(Default)]
    struct Got(Vec<(u64, u64, u64, String, bool, bool)>);

    impl Sink for Got {
        fn message(&mut self, m: &Message<'_>) {
            self.0.push((
                m.index,
                m.offset,
                m.line,
                m.data.to_string(),
                m.terminated,
                m.oversized,
            ));
        }
    }

    fn frame(pieces: &[&[u8]], limit: usize) -> (Got, Framed) {
        let mut f = Framer::with_limit(limit);
        let mut got = Got::default();
        for p in pieces {
            f.feed(p, &mut got);
        }
        let framed = f.finish(&mut got);
        (got, framed)
    }

    #[test]
    fn lines_keep_their_offsets_whatever_the_pieces() {
        let body: &[u8] = b"{\"a\":1}\r\n\n{\"b\":2}\n{\"c\"";
        let (whole, framed) = frame(&[body], 1024);
        let bytes: Vec<&[u8]> = body.chunks(1).collect();
        let (split, _) = frame(&bytes, 1024);
        assert_eq!(whole.0, split.0);
        assert_eq!(
            whole.0,
            vec![
                (0, 0, 1, "{\"a\":1}".into(), true, false),
                (1, 9, 2, String::new(), true, false),
                (2, 10, 3, "{\"b\":2}".into(), true, false),
                (3, 18, 4, "{\"c\"".into(), false, false),
            ]
        );
        assert_eq!(framed.messages, 4);
        assert_eq!(framed.bytes, body.len() as u64);
    }

    #[test]
    fn a_line_past_the_limit_keeps_its_start_and_its_length() {
        let (got, _) = frame(&[b"0123456789\nab\n"], 4);
        assert_eq!(got.0[0], (0, 0, 1, "0123".into(), true, true));
        assert_eq!(got.0[1], (1, 11, 2, "ab".into(), true, false));
    }

    #[test]
    fn an_ollama_line_is_told_from_sse_and_from_a_bare_error() {
        assert!(looks_like(
            b"{\"model\":\"m\",\"done\":false}\n{\"done\":true}\n"
        ));
        assert!(looks_like(b"\n {\"done\":true}\n"));
        assert!(!looks_like(b"{\"error\":\"model not found\"}\n"));
        assert!(!looks_like(b"data: {\"done\":false}\n\n"));
        assert!(!looks_like(b"{\"done\":false,"));
        assert!(!looks_like(b"{\n  \"done\": true\n}\n"));
    }
}
