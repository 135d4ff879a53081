//! `minimize` on a transport other than SSE: its units are the
//! transport's messages (NDJSON lines, binary frames), as its framer
//! hands them over ([`crate::transport::Framer`]), not SSE blocks.
//!
//! A text transport's unit (a line) is redacted, scrubbed and cut inside
//! as text, the line's JSON being the value reduced. A binary transport's
//! unit (an AWS event-stream frame) is never rewritten as text: its
//! payload is redacted, scrubbed and reduced, and the frame written anew
//! around it with fresh lengths and checksums
//! ([`crate::transport::Transport::rewrite`]); a frame whose checksum
//! failed keeps failing by the same difference, and a frame the body ends
//! inside is kept as far as it came, so a fault kept stays where it was.
//! Where a dialect's payload carries its text in an encoding of its own
//! (an Invoke chunk's base64 `bytes`, [`crate::dialect::Api::rewrap`]),
//! the JSON reduced is the one inside.
//!
//! Memory: a unit at a time; the messages' ends (two words each) are
//! taken as the bytes go in, as for SSE blocks.

use crate::redact::{self, Scrubber};
use crate::transport::{Framer, Message, Sink, Transport};
use serde_json::Value;

/// Notes where each message of a body ends: (the offset just past it, its
/// index), fed the body's bytes in any pieces.
pub(super) struct MessageEnds {
    framer: Box<dyn Framer>,
    ends: Ends,
}

struct Ends(Vec<(u64, u64)>);

impl Sink for Ends {
    fn message(&mut self, m: &Message<'_>) {
        self.0.push((m.end(), m.index));
    }
}

impl MessageEnds {
    /// The ends of transport `t`'s messages, reading at most `limit`
    /// bytes of one; `None` for SSE, whose blocks the SSE parser ends.
    pub(super) fn new(t: Transport, limit: usize) -> Option<Self> {
        Some(MessageEnds {
            framer: t.framer(limit)?,
            ends: Ends(Vec::new()),
        })
    }

    /// The ends noted so far, taken.
    pub(super) fn take(&mut self) -> Vec<(u64, u64)> {
        std::mem::take(&mut self.ends.0)
    }

    /// Every message's end and index not yet taken, in body order (the last one, that
    /// the body ended inside, too).
    pub(super) fn finish(mut self) -> Vec<(u64, u64)> {
        let _ = self.framer.finish(&mut self.ends);
        self.ends.0
    }
}

impl std::io::Write for MessageEnds {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.framer.feed(buf, &mut self.ends);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A unit of transport `t` with its secrets redacted as `redact` does: a
/// frame's payload (lengths and checksums written anew), a line as text.
///
/// # Errors
/// A frame whose prelude cannot be read ([`redact::frames`]): no copy of
/// it is safe.
pub(super) fn redacted(t: Transport, unit: &[u8]) -> Result<Vec<u8>, String> {
    if t.is_socket() {
        return Ok(log_lines(unit, None));
    }
    if t.is_binary() {
        redact::frames(t, unit, None)
    } else {
        Ok(redact::raw(unit, None))
    }
}

/// A unit of transport `t` with its text put through `s`: a frame's
/// payload (written anew around it), else the unit as text
/// ([`Scrubber::body`]). A frame that cannot be rewritten (it was not
/// when redacted either) is kept as it is.
pub(super) fn scrubbed(t: Transport, s: &mut Scrubber, unit: &[u8]) -> Vec<u8> {
    if t.is_socket() {
        return log_lines(unit, Some(s));
    }
    if t.is_binary() {
        redact::frames(t, unit, Some(s)).unwrap_or_else(|_| unit.to_vec())
    } else {
        s.body(unit)
    }
}

/// A socket's log lines (a unit: one message record, and the blank lines
/// after it) as `redact` writes them ([`redact::message_log_to`]): keys
/// masked, and with `scrub` the text inside each message's data.
fn log_lines(unit: &[u8], scrub: Option<&mut Scrubber>) -> Vec<u8> {
    let mut out = Vec::with_capacity(unit.len());
    match redact::message_log_to(&mut std::io::Cursor::new(unit), &mut out, scrub) {
        Ok(()) => out,
        // Reading from memory into memory does not fail.
        Err(_) => unit.to_vec(),
    }
}

/// The JSON a unit carries and how to write the unit back with another
/// value in its place (only that value re-serialized).
pub(super) struct Edit<'u> {
    /// The value as it is.
    pub json: String,
    how: How<'u>,
}

enum How<'u> {
    /// Text: the bytes before and after the value.
    Text(&'u [u8], &'u [u8]),
    /// A socket's message record, whose `data` string is the value's
    /// text; then the line's terminator and what follows it.
    Record(serde_json::Map<String, Value>, &'u [u8]),
    /// A binary frame, whose payload is the value or (`dialect` set) holds
    /// it in the dialect's own encoding.
    Frame {
        t: Transport,
        unit: &'u [u8],
        dialect: Option<crate::dialect::Dialect>,
    },
}

impl<'u> Edit<'u> {
    /// The value of a text unit at `unit[start..end]`.
    pub(super) fn text(unit: &'u [u8], (start, end): (usize, usize)) -> Option<Self> {
        let json = std::str::from_utf8(unit.get(start..end)?).ok()?.to_string();
        Some(Edit {
            json,
            how: How::Text(&unit[..start], &unit[end..]),
        })
    }

    /// The JSON of a unit of transport `t` (not SSE, whose blocks the
    /// caller reads): a line's text without its terminator; a whole
    /// frame's payload, or what a dialect riding on `t` wraps in it.
    pub(super) fn of(t: Transport, unit: &'u [u8]) -> Option<Self> {
        if t.is_socket() {
            return Edit::record(unit);
        }
        if !t.is_binary() {
            let content = unit
                .iter()
                .rposition(|b| *b != b'\n' && *b != b'\r')
                .map_or(0, |i| i + 1);
            return Edit::text(unit, (0, content));
        }
        let payload = payload_of(t, unit)?;
        let payload = std::str::from_utf8(&payload).ok()?.to_string();
        let mut inner = None;
        let dialect = crate::dialect::riding_on(t).into_iter().find(|d| {
            d.api()
                .rewrap(&payload, &mut |text| {
                    inner = Some(text.to_string());
                    text.to_string()
                })
                .is_some()
        });
        Some(Edit {
            json: inner.unwrap_or(payload),
            how: How::Frame { t, unit, dialect },
        })
    }

    /// A socket's text message: the JSON in its record's `data` (a close,
    /// a binary message, a failure and a line that is no record have
    /// none to cut).
    fn record(unit: &'u [u8]) -> Option<Self> {
        let end = memchr::memchr(b'\n', unit).unwrap_or(unit.len());
        let line = std::str::from_utf8(&unit[..end]).ok()?;
        let Value::Object(o) = serde_json::from_str::<Value>(line.trim_end_matches('\r')).ok()?
        else {
            return None;
        };
        let text = o.get("opcode").map_or(Some(1), Value::as_i64) == Some(1);
        let json = o.get("data")?.as_str()?.to_string();
        let ending = &unit[line.trim_end_matches('\r').len()..];
        text.then_some(Edit {
            json,
            how: How::Record(o, ending),
        })
    }

    /// The unit with `v` in the value's place.
    pub(super) fn with(&self, v: &Value) -> Vec<u8> {
        match &self.how {
            How::Record(o, ending) => {
                let mut o = o.clone();
                o.insert("data".into(), Value::String(v.to_string()));
                let mut b = Value::Object(o).to_string().into_bytes();
                b.extend_from_slice(ending);
                b
            }
            How::Text(before, after) => {
                let mut b = before.to_vec();
                b.extend_from_slice(v.to_string().as_bytes());
                b.extend_from_slice(after);
                b
            }
            How::Frame { t, unit, dialect } => {
                let new = v.to_string();
                let rewritten = t.rewrite(unit, |payload| match dialect {
                    Some(d) => std::str::from_utf8(payload)
                        .ok()
                        .and_then(|p| d.api().rewrap(p, &mut |_| new.clone()))
                        .unwrap_or_else(|| String::from_utf8_lossy(payload).into_owned())
                        .into_bytes(),
                    None => new.clone().into_bytes(),
                });
                match rewritten {
                    Some(Ok(b)) => b,
                    _ => unit.to_vec(),
                }
            }
        }
    }
}

/// The payload of `unit`, one whole frame of binary transport `t` that
/// its framer reads without a fault, where it is text; `None` otherwise
/// (a cut frame, a checksum that fails: their bytes stay as they are).
fn payload_of(t: Transport, unit: &[u8]) -> Option<Vec<u8>> {
    struct First(Option<(u64, u64, bool, u64, usize)>);
    impl Sink for First {
        fn message(&mut self, m: &Message<'_>) {
            if self.0.is_none() {
                let ok = m.fault.is_none() && m.verbatim && !m.oversized;
                self.0 = Some((m.offset, m.len, ok, m.data_offset, m.data.len()));
            }
        }
    }
    let mut framer = t.framer(unit.len().max(1))?;
    let mut first = First(None);
    framer.feed(unit, &mut first);
    let _ = framer.finish(&mut first);
    let (offset, len, ok, at, n) = first.0?;
    let whole = ok && offset == 0 && len == unit.len() as u64;
    let at = usize::try_from(at).ok()?;
    whole
        .then(|| unit.get(at..at + n).map(<[u8]>::to_vec))
        .flatten()
}
