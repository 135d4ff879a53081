//! The fast path ([`crate::dialect::Checker::fast`]): an ordinary `chunk`
//! frame, whose payload is in the compact form Bedrock sends
//! (`{"bytes":B}` or `{"bytes":B,"p":P}`, no whitespace, no escape in
//! either string), whose `bytes` decode from base64 to UTF-8 text that
//! starts as a `content_block_delta` object does, is handed to the
//! Messages checker's own fast path
//! ([`crate::dialect::messages::Checker`]) with that text as the event's
//! data: neither the payload nor the inner event becomes a JSON value,
//! and the base64 is decoded into a buffer kept from frame to frame.
//! Anything else (another field in the payload, bytes that are not
//! base64, another inner event, a delta the Messages fast path does not
//! take) goes down the general path, before anything changed.
//! `tests/typed_path.rs` compares both paths on every sample.

use super::{Checker, Inner};
use crate::dialect::compact;
use crate::dialect::{Checker as _, Event, Out};
use base64::Engine as _;

/// The inner event's start that the Messages fast path may take: an
/// object whose first key is `type`, a `content_block_delta` (an object:
/// the typed parse cannot read it as an array of fields, as the general
/// path would not; one `type`: a second fails the typed parse).
const DELTA: &str = r#"{"type":"content_block_delta","#;

/// The base64 `bytes` of a `chunk` payload in the compact form of the
/// module docs; `None` for any other payload.
pub(super) fn compact_chunk(data: &str) -> Option<&str> {
    let rest = data.strip_prefix(r#"{"bytes":""#)?;
    let (bytes, rest) = compact::plain(rest)?;
    let rest = match rest.strip_prefix(r#","p":""#) {
        Some(r) => compact::plain(r)?.1,
        None => rest,
    };
    compact::ends(rest, "}").then_some(bytes)
}

impl Checker {
    /// See the module docs. True when the chunk was taken.
    pub(super) fn fast_chunk(&mut self, ev: &Event<'_>, out: &mut dyn Out) -> bool {
        if ev.name != "chunk" {
            return false;
        }
        let Some(b64) = compact_chunk(ev.data) else {
            return false;
        };
        let mut bytes = std::mem::take(&mut self.decoded);
        bytes.clear();
        let taken = base64::engine::general_purpose::STANDARD
            .decode_vec(b64, &mut bytes)
            .is_ok()
            && std::str::from_utf8(&bytes)
                .is_ok_and(|data| data.starts_with(DELTA) && self.fast_inner(ev, data, out));
        self.decoded = bytes;
        taken
    }

    /// The inner `content_block_delta` to the Messages checker's fast
    /// path, as [`Checker::inner_event`] hands it to its general path.
    fn fast_inner(&mut self, ev: &Event<'_>, data: &str, out: &mut dyn Out) -> bool {
        let iev = Event {
            index: ev.index,
            name: "content_block_delta",
            named: true,
            id: None,
            data,
            json: None,
            done: false,
        };
        // What the general path does first, whichever way it goes on.
        self.summary.clear();
        self.last_faulted = false;
        if !self.inner.fast(&iev, &mut Inner::of(out)) {
            return false;
        }
        self.chunks += 1;
        self.typed_frames += 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// What the general path reads as the chunk's `bytes`, when the payload
    /// is an object of `bytes` and perhaps `p`, both strings.
    fn by_serde(data: &str) -> Option<String> {
        let v: Value = serde_json::from_str(data).ok()?;
        let o = v.as_object()?;
        let p = o.get("p").map(Value::is_string);
        if p == Some(false) || o.len() != 1 + usize::from(p.is_some()) {
            return None;
        }
        o.get("bytes")?.as_str().map(str::to_string)
    }

    #[test]
    fn compact_chunks_read_as_their_json_values_read() {
        let seeds = [
            r#"{"bytes":"eyJ0eXBlIjoiY29udGVudF9ibG9ja19kZWx0YSJ9","p":"abcdefgh"}"#,
            r#"{"bytes":"eyJ0eXBlIjoicGluZyJ9"} "#,
        ];
        let (mut read, mut n) = (0, 0);
        for seed in seeds {
            assert!(compact_chunk(seed).is_some(), "{seed}");
            for s in std::iter::once(seed.to_string()).chain(compact::one_char_changes(seed)) {
                if let Some(ours) = compact_chunk(&s) {
                    assert_eq!(Some(ours.to_string()), by_serde(&s), "{s}");
                    read += 1;
                }
                n += 1;
            }
        }
        assert!(read > 100 && n > 2_000, "{read} of {n}");
    }
}
