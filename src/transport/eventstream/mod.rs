//! The AWS event-stream transport (`application/vnd.amazon.eventstream`):
//! binary frames, as Amazon Bedrock's `ConverseStream` and
//! `InvokeModelWithResponseStream` send them. A frame is a prelude (its
//! total length and its headers' length, two big-endian u32, then the
//! CRC-32 of those 8 bytes), the headers (each a name length, a name, a
//! value type and a value), the payload, and the CRC-32 of everything
//! before it (the IEEE polynomial, as gzip's; AWS's "Event stream
//! encoding" page, `smithy-lang/smithy-rs`
//! `aws-smithy-eventstream/src/frame.rs`, `boto/botocore`
//! `botocore/eventstream.py`).
//!
//! The framer checks both CRCs and the lengths, and says where a frame
//! fails them ([`Fault`]): a frame whose message CRC fails is handed over
//! with its fault (its length was sound, so the next frame is read); one
//! whose prelude fails, or whose lengths cannot be, ends the framing (no
//! length after it can be trusted); a body that ends inside a frame is a
//! cut frame. The payload is the message's data; each header's value is
//! kept as text (`:event-type`, `:message-type`, `:exception-type`,
//! `:content-type`, …).

use super::{Fault, Framed, Header, Message, Sink};

/// The transport's name in reports.
pub const NAME: &str = "eventstream";
/// The media type of an AWS event stream.
pub const MEDIA_TYPE: &str = "application/vnd.amazon.eventstream";
/// What one message is called.
pub const MESSAGE: &str = "frame";
/// What a body of this transport is, in a phrase for messages.
pub const WHAT: &str = "AWS event-stream frames";

/// Bytes of the prelude (total length, headers length, prelude CRC).
const PRELUDE: usize = 12;
/// Bytes a frame has besides its headers and payload.
const OVERHEAD: usize = 16;
/// The largest frame AWS's readers take (aws-c-event-stream and botocore
/// cap a message at 16 MiB).
pub const MAX_FRAME: usize = 16 * 1024 * 1024;

/// The event-stream framer.
#[derive(Debug)]
pub struct Framer {
    /// Bytes of the frame at hand, from its first byte.
    buf: Vec<u8>,
    /// Body offset of `buf[0]`.
    offset: u64,
    index: u64,
    read: u64,
    /// A fault ended the framing: the rest of the body is not read.
    stopped: bool,
    limit: usize,
    /// The headers of the frame at hand, their strings reused from frame
    /// to frame (a frame has three or four).
    headers: Vec<Header>,
}

impl Framer {
    /// A framer that refuses a frame past `limit` bytes (and past
    /// [`MAX_FRAME`] whatever the limit).
    pub fn with_limit(limit: usize) -> Self {
        Framer {
            buf: Vec::new(),
            offset: 0,
            index: 0,
            read: 0,
            stopped: false,
            limit: limit.clamp(OVERHEAD, MAX_FRAME),
            headers: Vec::new(),
        }
    }

    /// Frames every whole frame in `buf`; `pending` bytes fed are not in
    /// it yet.
    fn drain(&mut self, pending: u64, sink: &mut dyn Sink) {
        let mut buf = std::mem::take(&mut self.buf);
        let at = self.frames(&buf, pending, sink);
        buf.drain(..at);
        self.buf = buf;
        self.offset += at as u64;
    }

    /// Frames every whole frame in `bytes`, whose first byte is at body
    /// offset `self.offset` and after which `pending` more bytes were fed
    /// (a fault that stops the framing spans them too); the bytes used.
    fn frames(&mut self, bytes: &[u8], pending: u64, sink: &mut dyn Sink) -> usize {
        let mut at = 0;
        while !self.stopped && bytes.len() - at >= PRELUDE {
            let b = &bytes[at..];
            let total = u32_at(b, 0) as usize;
            let headers = u32_at(b, 4) as usize;
            let crc = u32_at(b, 8);
            let start = self.offset + at as u64;
            let want = crc32fast::hash(&b[..8]);
            let fault = if want != crc {
                Some(Fault {
                    at: start + 8,
                    len: 4,
                    what: format!(
                        "the prelude CRC is 0x{crc:08x}, but its 8 bytes give 0x{want:08x}: the frame's lengths cannot be trusted, so nothing after it is read"
                    ),
                })
            } else if total < OVERHEAD || headers > total - OVERHEAD {
                Some(Fault {
                    at: start,
                    len: 8,
                    what: format!(
                        "the prelude says {total} bytes in all and {headers} bytes of headers, which no frame can hold (16 bytes of prelude and CRCs at least)"
                    ),
                })
            } else if total > self.limit {
                Some(Fault {
                    at: start,
                    len: 4,
                    what: format!(
                        "the frame is {total} bytes, over the limit of {} bytes (--max-event-bytes; AWS's readers stop at 16 MiB)",
                        self.limit
                    ),
                })
            } else {
                None
            };
            if let Some(f) = fault {
                self.stopped = true;
                let rest = (bytes.len() - at) as u64 + pending;
                emit_fault(sink, self.index, start, rest, f);
                self.index += 1;
                at = bytes.len();
                break;
            }
            if b.len() < total {
                break;
            }
            let frame = &b[..total];
            read_frame(&mut self.index, frame, start, &mut self.headers, sink);
            at += total;
        }
        at
    }
}

/// One whole frame whose prelude is sound, handed over as message
/// `*index`; `pool` holds its headers (their strings reused).
fn read_frame(
    index: &mut u64,
    frame: &[u8],
    start: u64,
    pool: &mut Vec<Header>,
    sink: &mut dyn Sink,
) {
    let total = frame.len();
    let headers_len = u32_at(frame, 4) as usize;
    let crc = u32_at(frame, total - 4);
    let want = crc32fast::hash(&frame[..total - 4]);
    let payload = &frame[PRELUDE + headers_len..total - 4];
    let data = String::from_utf8_lossy(payload);
    let headers = parse_headers(
        &frame[PRELUDE..PRELUDE + headers_len],
        start + PRELUDE as u64,
        pool,
    );
    // The message CRC first, as botocore and the AWS SDKs check it: a
    // header whose length was changed on the way is a frame that fails it
    // (`ChecksumMismatch`), not headers a writer encoded wrong.
    let crc_fault = (want != crc).then(|| Fault {
        at: start + total as u64 - 4,
        len: 4,
        what: format!(
            "the message CRC is 0x{crc:08x}, but the frame's bytes give 0x{want:08x}: the frame was changed or mixed with other bytes on the way"
        ),
    });
    let (headers, fault) = match headers {
        Ok(n) => (&pool[..n], crc_fault),
        Err(f) => (&pool[..0], Some(crc_fault.unwrap_or(f))),
    };
    let name = headers
        .iter()
        .find(|h| h.name == ":event-type" || h.name == ":exception-type")
        .map_or("message", |h| h.value.as_str());
    sink.message(&Message {
        index: *index,
        offset: start,
        len: total as u64,
        line: 1,
        data: &data,
        data_offset: start + (PRELUDE + headers_len) as u64,
        verbatim: matches!(data, std::borrow::Cow::Borrowed(_)),
        name,
        terminated: true,
        time_ms: None,
        oversized: false,
        headers,
        fault: fault.as_ref(),
    });
    *index += 1;
}

impl super::Framer for Framer {
    fn feed(&mut self, mut bytes: &[u8], sink: &mut dyn Sink) {
        self.read += bytes.len() as u64;
        // The frame at hand first, completed from these bytes (its prelude,
        // then the rest of it).
        while !self.stopped && !self.buf.is_empty() && !bytes.is_empty() {
            let want = if self.buf.len() < PRELUDE {
                PRELUDE
            } else {
                u32_at(&self.buf, 0) as usize
            };
            let n = want.saturating_sub(self.buf.len()).clamp(1, bytes.len());
            self.buf.extend_from_slice(&bytes[..n]);
            bytes = &bytes[n..];
            self.drain(bytes.len() as u64, sink);
        }
        if self.stopped || bytes.is_empty() {
            return;
        }
        // Then whole frames read where they lie, with no copy; what is
        // left of the last one is kept.
        let at = self.frames(bytes, 0, sink);
        self.offset += at as u64;
        if !self.stopped {
            self.buf.extend_from_slice(&bytes[at..]);
        }
    }

    fn finish(&mut self, sink: &mut dyn Sink) -> Framed {
        if !self.stopped && !self.buf.is_empty() {
            let have = self.buf.len() as u64;
            let what = if self.buf.len() >= PRELUDE {
                format!(
                    "the body ends inside a frame: {have} of its {} bytes came",
                    u32_at(&self.buf, 0)
                )
            } else {
                format!("the body ends inside a frame's prelude: {have} of its 12 bytes came")
            };
            let f = Fault {
                at: self.offset + have.saturating_sub(1),
                len: 1,
                what,
            };
            emit_fault(sink, self.index, self.offset, have, f);
            self.index += 1;
            self.buf.clear();
        }
        Framed {
            messages: self.index,
            bytes: self.read,
        }
    }
}

/// Hands over a frame that could not be read, with its fault.
fn emit_fault(sink: &mut dyn Sink, index: u64, offset: u64, len: u64, fault: Fault) {
    sink.message(&Message {
        index,
        offset,
        len,
        line: 1,
        data: "",
        data_offset: offset,
        verbatim: false,
        name: "message",
        terminated: false,
        time_ms: None,
        oversized: false,
        headers: &[],
        fault: Some(&fault),
    });
}

fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

/// The headers of a frame (`bytes`, starting at body offset `at`), each
/// value rendered as text: strings as they are, byte arrays in hex, the
/// numbers, booleans, timestamps (ms) and UUIDs as such. They are written
/// into `pool`'s first entries (their strings reused, more added as
/// needed); returns how many.
fn parse_headers(bytes: &[u8], at: u64, pool: &mut Vec<Header>) -> Result<usize, Fault> {
    let mut n_out = 0;
    let mut i = 0;
    let bad = |i: usize, what: &str| Fault {
        at: at + i as u64,
        len: 1,
        what: format!("the headers cannot be read: {what}"),
    };
    while i < bytes.len() {
        let n = bytes[i] as usize;
        let name = bytes
            .get(i + 1..i + 1 + n)
            .ok_or_else(|| bad(i, "a name runs past the headers"))?;
        let name = std::str::from_utf8(name).map_err(|_| bad(i + 1, "a name is not UTF-8"))?;
        let t = i + 1 + n;
        let ty = *bytes
            .get(t)
            .ok_or_else(|| bad(t, "a header has no value type"))?;
        let v = t + 1;
        let fixed = |len: usize| {
            bytes
                .get(v..v + len)
                .ok_or_else(|| bad(v, "a value runs past the headers"))
        };
        let owned = |s: String| HeaderValue::Owned(s);
        let (value, used) = match ty {
            0 => (HeaderValue::Text("true"), 0),
            1 => (HeaderValue::Text("false"), 0),
            2 => (owned((fixed(1)?[0] as i8).to_string()), 1),
            3 => (
                owned(i16::from_be_bytes(fixed(2)?.try_into().unwrap_or([0; 2])).to_string()),
                2,
            ),
            4 => (
                owned(i32::from_be_bytes(fixed(4)?.try_into().unwrap_or([0; 4])).to_string()),
                4,
            ),
            5 | 8 => (
                owned(i64::from_be_bytes(fixed(8)?.try_into().unwrap_or([0; 8])).to_string()),
                8,
            ),
            6 | 7 => {
                let l = fixed(2)?;
                let len = u16::from_be_bytes([l[0], l[1]]) as usize;
                let s = bytes
                    .get(v + 2..v + 2 + len)
                    .ok_or_else(|| bad(v, "a value runs past the headers"))?;
                let text = if ty == 7 {
                    HeaderValue::Text(
                        std::str::from_utf8(s)
                            .map_err(|_| bad(v + 2, "a string value is not UTF-8"))?,
                    )
                } else {
                    owned(s.iter().map(|b| format!("{b:02x}")).collect())
                };
                (text, 2 + len)
            }
            9 => (
                owned(fixed(16)?.iter().map(|b| format!("{b:02x}")).collect()),
                16,
            ),
            other => {
                return Err(bad(
                    t,
                    &format!("value type {other} is none of the ten (0 to 9)"),
                ))
            }
        };
        if n_out == pool.len() {
            pool.push(Header {
                name: String::new(),
                value: String::new(),
            });
        }
        let h = &mut pool[n_out];
        h.name.clear();
        h.name.push_str(name);
        h.value.clear();
        match value {
            HeaderValue::Text(t) => h.value.push_str(t),
            HeaderValue::Owned(t) => h.value.push_str(&t),
        }
        n_out += 1;
        i = v + used;
    }
    Ok(n_out)
}

/// A header's value as text: lent from the frame (a string), or made.
enum HeaderValue<'a> {
    Text(&'a str),
    Owned(String),
}

/// The body ranges of the prelude CRC and the message CRC of the frame
/// at body bytes `frame`; `None` when it is too short to be a frame.
pub fn checksums(
    frame: std::ops::Range<u64>,
) -> Option<(std::ops::Range<u64>, std::ops::Range<u64>)> {
    (frame.end >= frame.start + OVERHEAD as u64)
        .then(|| (frame.start + 8..frame.start + 12, frame.end - 4..frame.end))
}

/// Whether `head` starts with an event-stream frame: a prelude whose CRC
/// holds and whose lengths can be a frame's.
pub fn looks_like(head: &[u8]) -> bool {
    if head.len() < PRELUDE {
        return false;
    }
    let total = u32_at(head, 0) as usize;
    let headers = u32_at(head, 4) as usize;
    (OVERHEAD..=MAX_FRAME).contains(&total)
        && headers <= total - OVERHEAD
        && crc32fast::hash(&head[..8]) == u32_at(head, 8)
}

/// A copy of `body` (AWS event-stream frames) with each frame's payload
/// put through `payload`: headers kept byte for byte, lengths and both
/// CRCs written anew, so the copy reads as the original did. A frame
/// whose message CRC failed gets a CRC that fails by the same difference
/// (the fault stays where it was); a body that ends inside a frame still
/// does, its payload so far rewritten; a last piece too short to be a
/// prelude, or a cut frame whose headers did not all come, is kept as it
/// is (lengths and header names, no payload).
///
/// # Errors
/// A frame whose prelude fails its CRC or whose lengths cannot be: no
/// byte after it can be told apart, so no copy can be made safe.
pub fn rewrite(body: &[u8], mut payload: impl FnMut(&[u8]) -> Vec<u8>) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(body.len());
    let mut at = 0;
    while at < body.len() {
        let b = &body[at..];
        if b.len() < PRELUDE {
            out.extend_from_slice(b);
            break;
        }
        let (total, headers) = (u32_at(b, 0) as usize, u32_at(b, 4) as usize);
        if crc32fast::hash(&b[..8]) != u32_at(b, 8)
            || total < OVERHEAD
            || headers > total - OVERHEAD
        {
            return Err(format!(
                "the frame at byte {at} has a prelude that fails its CRC or lengths no frame can have, so the frames after it cannot be told apart"
            ));
        }
        let whole = b.len() >= total;
        let end = if whole { total - 4 } else { b.len() };
        if end < PRELUDE + headers {
            out.extend_from_slice(b);
            break;
        }
        let new = payload(&b[PRELUDE + headers..end]);
        let new_total = total - (end - PRELUDE - headers) + new.len();
        let start = out.len();
        out.extend_from_slice(&(new_total as u32).to_be_bytes());
        out.extend_from_slice(&(headers as u32).to_be_bytes());
        let crc = crc32fast::hash(&out[start..start + 8]);
        out.extend_from_slice(&crc.to_be_bytes());
        out.extend_from_slice(&b[PRELUDE..PRELUDE + headers]);
        out.extend_from_slice(&new);
        if !whole {
            break;
        }
        let off_by = u32_at(b, total - 4) ^ crc32fast::hash(&b[..total - 4]);
        let crc = crc32fast::hash(&out[start..]) ^ off_by;
        out.extend_from_slice(&crc.to_be_bytes());
        at += total;
    }
    Ok(out)
}

/// [`rewrite`] from a reader to a writer, a frame at a time: memory holds
/// one frame (at most [`MAX_FRAME`] bytes; a prelude that claims more is
/// read with the rest of the body, as [`rewrite`] reads a frame cut
/// short), and the copy is the same bytes [`rewrite`] gives.
///
/// # Errors
/// Reading or writing (the outer error); a frame whose prelude cannot be
/// read (the inner one, as [`rewrite`]'s), after the frames before it
/// were written.
pub fn rewrite_to(
    input: &mut dyn std::io::Read,
    out: &mut dyn std::io::Write,
    mut payload: impl FnMut(&[u8]) -> Vec<u8>,
) -> std::io::Result<Result<(), String>> {
    let mut frame = Vec::new();
    let mut at = 0u64;
    loop {
        frame.clear();
        std::io::Read::read_to_end(
            &mut std::io::Read::take(&mut *input, PRELUDE as u64),
            &mut frame,
        )?;
        if frame.len() == PRELUDE {
            let total = u32_at(&frame, 0) as usize;
            if total > MAX_FRAME {
                input.read_to_end(&mut frame)?;
            } else {
                let more = total.saturating_sub(PRELUDE) as u64;
                std::io::Read::read_to_end(
                    &mut std::io::Read::take(&mut *input, more),
                    &mut frame,
                )?;
            }
        }
        if frame.is_empty() {
            return Ok(Ok(()));
        }
        let copy = match rewrite(&frame, &mut payload) {
            Ok(c) => c,
            Err(e) => {
                // Its offset in the body, not in the frame.
                return Ok(Err(e.replacen("byte 0", &format!("byte {at}"), 1)));
            }
        };
        out.write_all(&copy)?;
        at += frame.len() as u64;
    }
}

/// One frame's bytes: `headers` (string values) and `payload`, with
/// both CRCs; what a test or a replay server writes.
pub fn encode(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
    let mut h = Vec::new();
    for (name, value) in headers {
        h.push(name.len() as u8);
        h.extend_from_slice(name.as_bytes());
        h.push(7);
        h.extend_from_slice(&(value.len() as u16).to_be_bytes());
        h.extend_from_slice(value.as_bytes());
    }
    let total = (OVERHEAD + h.len() + payload.len()) as u32;
    let mut f = Vec::with_capacity(total as usize);
    f.extend_from_slice(&total.to_be_bytes());
    f.extend_from_slice(&(h.len() as u32).to_be_bytes());
    let crc = crc32fast::hash(&f);
    f.extend_from_slice(&crc.to_be_bytes());
    f.extend_from_slice(&h);
    f.extend_from_slice(payload);
    let crc = crc32fast::hash(&f);
    f.extend_from_slice(&crc.to_be_bytes());
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::Framer as _;

    /// A frame as read: offset, length, name, data, and the fault's
    /// offset and sentence.
    type Read = (u64, u64, String, String, Option<(u64, String)>);

    #[derive(Default)]
    struct Got(Vec<Read>);

    impl Sink for Got {
        fn message(&mut self, m: &Message<'_>) {
            self.0.push((
                m.offset,
                m.len,
                m.name.to_string(),
                m.data.to_string(),
                m.fault.map(|f| (f.at, f.what.clone())),
            ));
        }
    }

    fn frame(body: &[u8], step: usize) -> Got {
        let mut f = Framer::with_limit(MAX_FRAME);
        let mut got = Got::default();
        for part in body.chunks(step.max(1)) {
            f.feed(part, &mut got);
        }
        f.finish(&mut got);
        got
    }

    /// The frame of the reference notes (`reference/transports.md` §5.1,
    /// checked there with botocore's decoder): one header
    /// `:message-type` = `event`, payload `{}`.
    const EXAMPLE: &str =
        "00000028 00000016 60470efd 0d3a6d6573736167652d74797065 0700056576656e74 7b7d b7184afc";

    fn hex(s: &str) -> Vec<u8> {
        let s: String = s.split_whitespace().collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn the_documented_frame_decodes_and_encodes_to_the_same_bytes() {
        let bytes = hex(EXAMPLE);
        assert!(looks_like(&bytes));
        assert_eq!(encode(&[(":message-type", "event")], b"{}"), bytes);
        let got = frame(&bytes, 1000);
        assert_eq!(got.0, vec![(0, 40, "message".into(), "{}".into(), None)]);
    }

    #[test]
    fn frames_split_anywhere_read_the_same() {
        let mut body = encode(
            &[(":event-type", "messageStart"), (":message-type", "event")],
            br#"{"role":"assistant"}"#,
        );
        body.extend(encode(
            &[(":event-type", "contentBlockDelta")],
            br#"{"contentBlockIndex":0,"delta":{"text":"Hi"}}"#,
        ));
        let whole = frame(&body, body.len());
        assert_eq!(whole.0.len(), 2);
        assert_eq!(whole.0[1].2, "contentBlockDelta");
        for step in [1, 3, 12, 13] {
            assert_eq!(frame(&body, step).0, whole.0, "{step}");
        }
    }

    #[test]
    fn a_bad_message_crc_is_found_at_the_crc_and_the_next_frame_is_read() {
        let mut body = encode(&[(":event-type", "a")], b"{}");
        let n = body.len();
        body[n - 1] ^= 1;
        body.extend(encode(&[(":event-type", "b")], b"{}"));
        let got = frame(&body, 7);
        assert_eq!(got.0.len(), 2);
        let (at, what) = got.0[0].4.clone().unwrap();
        assert_eq!(at, n as u64 - 4);
        assert!(what.contains("message CRC"), "{what}");
        assert_eq!(got.0[1].2, "b");
        assert!(got.0[1].4.is_none());
    }

    #[test]
    fn a_bad_prelude_crc_stops_the_framing_at_its_byte() {
        let mut body = encode(&[(":event-type", "a")], b"{}");
        let first = body.len() as u64;
        let mut second = encode(&[(":event-type", "b")], b"{}");
        second[9] ^= 0x40;
        body.extend(second);
        body.extend(encode(&[(":event-type", "c")], b"{}"));
        let got = frame(&body, 5);
        assert_eq!(got.0.len(), 2);
        let (at, what) = got.0[1].4.clone().unwrap();
        assert_eq!(at, first + 8);
        assert!(what.contains("prelude CRC"), "{what}");
    }

    #[test]
    fn a_body_cut_inside_a_frame_is_one_cut_frame() {
        let body = encode(&[(":event-type", "a")], br#"{"x":1}"#);
        let cut = &body[..body.len() - 3];
        let got = frame(cut, 4);
        assert_eq!(got.0.len(), 1);
        let (at, what) = got.0[0].4.clone().unwrap();
        assert_eq!(at, cut.len() as u64 - 1);
        assert!(what.contains("ends inside a frame"), "{what}");
    }

    #[test]
    fn sse_and_json_are_not_frames() {
        assert!(!looks_like(b"data: {\"a\":1}\n\n"));
        assert!(!looks_like(b"{\"done\":false}\n{\"done\":true}\n"));
        assert!(!looks_like(&[0, 0, 0, 0x28, 0, 0, 0, 0x16, 0, 0, 0, 0]));
    }

    #[test]
    fn a_rewrite_reads_as_the_original_did_with_its_new_payloads() {
        let mut body = encode(&[(":event-type", "a")], br#"{"k":"sk-1"}"#);
        let mut bad = encode(&[(":event-type", "b")], br#"{"k":"sk-2"}"#);
        let n = bad.len();
        bad[n - 1] ^= 0x5a;
        body.extend(bad);
        let whole = encode(&[(":event-type", "c")], br#"{"k":"sk-3"}"#);
        body.extend_from_slice(&whole[..whole.len() - 6]);
        // The same payloads: the same bytes.
        assert_eq!(rewrite(&body, <[u8]>::to_vec).unwrap(), body);
        // Longer payloads: fresh lengths and CRCs, the faults kept.
        let copy = rewrite(&body, |p| {
            String::from_utf8_lossy(p)
                .replace("sk-", "[REDACTED]-")
                .into_bytes()
        })
        .unwrap();
        let (before, after) = (frame(&body, 7).0, frame(&copy, 7).0);
        assert_eq!(after.len(), 3);
        assert_eq!(after[0].3, r#"{"k":"[REDACTED]-1"}"#);
        assert_eq!(after[0].4, None);
        assert!(after[1].4.as_ref().unwrap().1.contains("message CRC"));
        assert!(after[2]
            .4
            .as_ref()
            .unwrap()
            .1
            .contains("ends inside a frame"));
        let names = |r: &[Read]| r.iter().map(|m| m.2.clone()).collect::<Vec<_>>();
        assert_eq!(names(&before), names(&after));
        // A prelude that fails: nothing after it can be made safe.
        let mut broken = body.clone();
        broken[9] ^= 1;
        assert!(rewrite(&broken, <[u8]>::to_vec).is_err());
    }

    #[test]
    fn rewrite_to_gives_the_bytes_rewrite_gives_a_frame_at_a_time() {
        let f = |p: &str| encode(&[(":event-type", "e")], p.as_bytes());
        let mut bad = f(r#"{"text":"b"}"#);
        let last = bad.len() - 1;
        bad[last] ^= 0x41;
        let mut body = [f(r#"{"text":"a"}"#), bad, f(r#"{"text":"c"}"#)].concat();
        let cut = f(r#"{"text":"d"}"#);
        body.extend_from_slice(&cut[..cut.len() - 7]);
        let upper = |p: &[u8]| p.to_ascii_uppercase();
        let whole = rewrite(&body, upper).unwrap();
        // Read a byte at a time, as a slow pipe hands them over.
        struct Slow<'a>(&'a [u8]);
        impl std::io::Read for Slow<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let n = self.0.len().min(buf.len()).min(1);
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut out = Vec::new();
        rewrite_to(&mut Slow(&body), &mut out, upper)
            .unwrap()
            .unwrap();
        assert_eq!(out, whole);
        // A prelude that fails: the error names its offset in the body.
        let mut broken = f("{}");
        broken[8] ^= 1;
        let body = [f("{}"), broken].concat();
        let mut out = Vec::new();
        let e = rewrite_to(&mut &body[..], &mut out, upper)
            .unwrap()
            .unwrap_err();
        assert!(e.contains(&format!("byte {}", f("{}").len())), "{e}");
    }
}
