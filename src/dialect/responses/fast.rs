//! The typed fast path: an ordinary delta (`response.output_text.delta`,
//! `.refusal.delta`, `.reasoning_text.delta`,
//! `.reasoning_summary_text.delta`, `.function_call_arguments.delta`) with
//! exactly its documented fields, to an item and part in good standing, in
//! a stream whose state raises no question, is read from a borrowed typed
//! form and never becomes a JSON value. Anything else (another field, a
//! null, a gap in `sequence_number`, an item or part not announced, closed
//! or of another kind, a name other than the type, …) goes down the
//! general path, which reports it. Past `MAX_ITEMS` a delta to an item
//! that is only counted is taken too, and dropped as the general path
//! drops it. Both paths end in the same state: `tests/typed_path.rs` and
//! `tests/responses.rs` compare them on every rule example, every sample,
//! every mutation of a delta, and a stream past the item limit.

use super::items::Which;
use super::{Checker, MAX_ITEMS};
use crate::dialect::compact::{self, Text};
use crate::dialect::{Event, Out};
use std::borrow::Cow;

/// Present when the field held an empty array (OpenAI's `logprobs` when
/// none were asked for); absent otherwise. A non-empty array, a `null` or
/// another type fails the typed parse, so the general path judges it (and
/// the JSON depth limit applies to what it holds).
#[derive(Default)]
struct Array(bool);

impl<'de> serde::Deserialize<'de> for Array {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Array;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an empty array")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Array, A::Error> {
                match a.next_element::<serde::de::IgnoredAny>()? {
                    None => Ok(Array(true)),
                    Some(_) => Err(serde::de::Error::custom(
                        "logprobs are read by the general path",
                    )),
                }
            }
        }
        d.deserialize_seq(V)
    }
}

/// A delta event's fields, all of them: any other key fails the parse.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Delta<'a> {
    #[serde(rename = "type", borrow)]
    ty: &'a str,
    sequence_number: u64,
    #[serde(borrow)]
    item_id: &'a str,
    output_index: u64,
    content_index: Option<u64>,
    summary_index: Option<u64>,
    #[serde(borrow)]
    delta: Cow<'a, str>,
    #[serde(default)]
    logprobs: Array,
    #[serde(borrow)]
    obfuscation: Option<&'a str>,
}

/// A delta event's values, however they were read.
struct Read<'a> {
    ty: &'a str,
    sequence_number: u64,
    item_id: &'a str,
    output_index: u64,
    content_index: Option<u64>,
    summary_index: Option<u64>,
    delta: &'a str,
    /// `logprobs` was present, an empty array.
    logprobs: bool,
}

/// A delta event in the compact form OpenAI sends (the [`Delta`] fields in
/// its order: `type`, `sequence_number`, `item_id`, `output_index`, then
/// `content_index` or `summary_index` or neither, `delta`, then
/// `logprobs: []` and `obfuscation` when present; no whitespace but after
/// the event), read byte by byte; the delta's text is [`Read::delta`]
/// unless it held escapes, when it is decoded into `buf` (and `delta` is
/// empty). `None` for any other form, which the typed parse reads (with
/// the same result where both read it).
fn compact_delta<'d>(data: &'d str, buf: &mut String) -> Option<(Read<'d>, Text<'d>)> {
    let rest = data.strip_prefix(r#"{"type":""#)?;
    let (ty, rest) = compact::plain(rest)?;
    let rest = rest.strip_prefix(r#","sequence_number":"#)?;
    let (sequence_number, rest) = compact::uint(rest)?;
    let rest = rest.strip_prefix(r#","item_id":""#)?;
    let (item_id, rest) = compact::plain(rest)?;
    let rest = rest.strip_prefix(r#","output_index":"#)?;
    let (output_index, rest) = compact::uint(rest)?;
    let (mut content_index, mut summary_index) = (None, None);
    let rest = if let Some(r) = rest.strip_prefix(r#","content_index":"#) {
        let (n, r) = compact::uint(r)?;
        content_index = Some(n);
        r
    } else if let Some(r) = rest.strip_prefix(r#","summary_index":"#) {
        let (n, r) = compact::uint(r)?;
        summary_index = Some(n);
        r
    } else {
        rest
    };
    let rest = rest.strip_prefix(r#","delta":""#)?;
    let (text, rest) = compact::string(rest, buf)?;
    let (logprobs, rest) = match rest.strip_prefix(r#","logprobs":[]"#) {
        Some(r) => (true, r),
        None => (false, rest),
    };
    let rest = match rest.strip_prefix(r#","obfuscation":""#) {
        Some(r) => compact::plain(r)?.1,
        None => rest,
    };
    if !compact::ends(rest, "}") {
        return None;
    }
    let delta = match text {
        Text::Lent(t) => t,
        Text::Kept => "",
    };
    let read = Read {
        ty,
        sequence_number,
        item_id,
        output_index,
        content_index,
        summary_index,
        delta,
        logprobs,
    };
    Some((read, text))
}

impl Checker {
    /// See the module docs. True when the event was taken.
    pub(super) fn fast_event(&mut self, ev: &Event<'_>, out: &mut dyn Out) -> bool {
        if !self.created || self.terminal.is_some() {
            return false;
        }
        // A named event names its type (or goes down the general path,
        // which reports the difference): only the types taken here are
        // parsed.
        if !ev.named || ev.name.ends_with(".delta") {
            self.fast_delta(ev, out)
        } else {
            false
        }
    }

    /// The next `sequence_number`, no gap, in a numbering that never went
    /// back (whose gaps a later number may fill) and with no rejected
    /// event since the last one.
    fn fast_next(&self, n: u64) -> bool {
        self.seq.last.and_then(|l| l.checked_add(1)) == Some(n)
            && self.seq.max == self.seq.last
            && self.seq.unread == 0
    }

    /// What the general path does with every event taken here, which
    /// reports nothing for them.
    fn fast_common(&mut self, n: u64, ty: &str, ev: &Event<'_>, out: &mut dyn Out) {
        self.last.clear();
        self.delta_kind = "";
        self.json_events += 1;
        self.seq.last = Some(n);
        self.seq.max = Some(n);
        self.check_framing(ev, Some(ty), out);
        self.ended_with_response_done = false;
    }

    /// A delta (see the module docs), read from its compact form when it
    /// has it, else by its typed parse. True when the event was taken.
    fn fast_delta(&mut self, ev: &Event<'_>, out: &mut dyn Out) -> bool {
        let mut buf = std::mem::take(&mut self.unescaped);
        let taken = match compact_delta(ev.data, &mut buf) {
            Some((d, text)) => {
                let delta = match text {
                    Text::Lent(t) => t,
                    Text::Kept => buf.as_str(),
                };
                self.fast_take(Read { delta, ..d }, ev, out)
            }
            None => serde_json::from_str::<Delta<'_>>(ev.data).is_ok_and(|d| {
                let _ = d.obfuscation;
                let read = Read {
                    ty: d.ty,
                    sequence_number: d.sequence_number,
                    item_id: d.item_id,
                    output_index: d.output_index,
                    content_index: d.content_index,
                    summary_index: d.summary_index,
                    delta: &d.delta,
                    logprobs: d.logprobs.0,
                };
                self.fast_take(read, ev, out)
            }),
        };
        self.unescaped = buf;
        taken
    }

    /// The fast path's checks and work for a delta read as `d`. True when
    /// it was taken.
    fn fast_take(&mut self, d: Read<'_>, ev: &Event<'_>, out: &mut dyn Out) -> bool {
        if ev.named && ev.name != d.ty {
            return false;
        }
        // The first refusal delta goes down the general path, which reports
        // `responses-refusal` where no announced refusal part did.
        if d.ty == "response.refusal.delta" && !self.refusal_reported {
            return false;
        }
        // The shape each type has, and what it adds to.
        let (which, key, want, part_kind, kind) =
            match (d.ty, d.content_index, d.summary_index, d.logprobs) {
                ("response.output_text.delta", Some(c), None, true) => {
                    (Which::Content, c, "message", "output_text", "content")
                }
                ("response.refusal.delta", Some(c), None, false) => {
                    (Which::Content, c, "message", "refusal", "content")
                }
                ("response.reasoning_text.delta", Some(c), None, false) => (
                    Which::Content,
                    c,
                    "reasoning",
                    "reasoning_text",
                    "reasoning",
                ),
                ("response.reasoning_summary_text.delta", None, Some(s), false) => {
                    (Which::Summary, s, "reasoning", "summary_text", "reasoning")
                }
                ("response.function_call_arguments.delta", None, None, false) => {
                    (Which::Args, 0, "function_call", "arguments", "tool")
                }
                _ => return false,
            };
        if !self.fast_next(d.sequence_number) {
            return false;
        }
        // An announced item of that kind, with that id, not done; a part
        // announced and open. Or, past `MAX_ITEMS`, an item only counted
        // (no entry at that index, and the id naming no misplaced item):
        // the general path reads the delta for `inspect` and drops it.
        let pos = match self.by_index.get(&d.output_index) {
            Some(&pos) => {
                let it = &self.items[pos];
                if it.done || it.kind != want || it.id.as_deref() != Some(d.item_id) {
                    return false;
                }
                let part = match which {
                    Which::Content => it.parts.get(&key).map(|p| &**p),
                    Which::Summary => it.summary.get(&key).map(|p| &**p),
                    Which::Args => Some(&it.args),
                };
                if !part.is_some_and(|p| !p.closed && !p.text_done) {
                    return false;
                }
                Some(pos)
            }
            None => {
                let misplaced = self
                    .ids
                    .get(d.item_id)
                    .and_then(|j| self.by_index.get(j))
                    .is_some_and(|&p| self.items[p].misplaced);
                if self.items.len() < MAX_ITEMS || misplaced {
                    return false;
                }
                None
            }
        };
        // What the general path does with it, which reports nothing here.
        self.fast_common(d.sequence_number, d.ty, ev, out);
        out.kind(kind);
        self.delta_kind = part_kind;
        self.delta_text.clear();
        if out.summaries() {
            self.delta_text.extend(d.delta.chars().take(61));
        }
        if let Some(pos) = pos {
            self.apply_delta(pos, which, key, part_kind, d.delta, ev, out);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a read holds, the delta's text decoded.
    type Values = (
        String,
        u64,
        String,
        u64,
        Option<u64>,
        Option<u64>,
        String,
        bool,
    );

    fn values(d: &Read<'_>, text: &str) -> Values {
        (
            d.ty.to_string(),
            d.sequence_number,
            d.item_id.to_string(),
            d.output_index,
            d.content_index,
            d.summary_index,
            text.to_string(),
            d.logprobs,
        )
    }

    fn by_compact(data: &str) -> Option<Values> {
        let mut buf = String::new();
        let (d, text) = compact_delta(data, &mut buf)?;
        let text = match text {
            Text::Lent(t) => t,
            Text::Kept => buf.as_str(),
        };
        Some(values(&d, text))
    }

    fn by_serde(data: &str) -> Option<Values> {
        let d = serde_json::from_str::<Delta<'_>>(data).ok()?;
        let read = Read {
            ty: d.ty,
            sequence_number: d.sequence_number,
            item_id: d.item_id,
            output_index: d.output_index,
            content_index: d.content_index,
            summary_index: d.summary_index,
            delta: "",
            logprobs: d.logprobs.0,
        };
        Some(values(&read, &d.delta))
    }

    #[test]
    fn compact_deltas_read_as_the_typed_parse_reads_them() {
        let seeds = [
            r#"{"type":"response.output_text.delta","sequence_number":5,"item_id":"msg_0","output_index":0,"content_index":0,"delta":"Hi \"there\" \u00e9","logprobs":[],"obfuscation":"ab"}"#,
            r#"{"type":"response.output_text.delta","sequence_number":12,"item_id":"msg_0","output_index":3,"content_index":1,"delta":" there","logprobs":[]}"#,
            r#"{"type":"response.reasoning_summary_text.delta","sequence_number":5,"item_id":"rs_1","output_index":1,"summary_index":0,"delta":"hm"} "#,
            r#"{"type":"response.function_call_arguments.delta","sequence_number":5,"item_id":"fc_2","output_index":2,"delta":"{\"a\": [\"The\"","obfuscation":"Ab3dE6fG"}"#,
        ];
        let (mut read, mut n) = (0, 0);
        for seed in seeds {
            assert!(by_compact(seed).is_some(), "{seed}");
            for s in std::iter::once(seed.to_string())
                .chain(crate::dialect::compact::one_char_changes(seed))
            {
                if let Some(ours) = by_compact(&s) {
                    assert_eq!(Some(ours), by_serde(&s), "{s}");
                    read += 1;
                }
                n += 1;
            }
        }
        assert!(read > 300 && n > 10_000, "{read} of {n}");
    }
}
