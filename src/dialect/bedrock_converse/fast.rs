//! The fast path ([`crate::dialect::Checker::fast`]): an ordinary
//! `contentBlockDelta` event in the compact form Bedrock sends (no
//! whitespace, its fields in this order, the `p` padding last or absent):
//!
//! - `{"contentBlockIndex":N,"delta":{"text":S},"p":P}`
//! - `{"contentBlockIndex":N,"delta":{"reasoningContent":{"text":S}},"p":P}`
//! - `{"contentBlockIndex":N,"delta":{"toolUse":{"input":S}},"p":P}`
//!
//! is read byte by byte ([`crate::dialect::compact`]) and never becomes a
//! JSON value; what it adds goes through the general path's own
//! [`Checker::add_delta`]. Such an event can raise no finding as it comes
//! (a tool input's JSON is judged at the end, from the joined pieces, on
//! both paths). Any other form (another field, another order, a
//! reasoning signature, an escape in the padding, another event type)
//! goes down the general path. `tests/typed_path.rs` compares both paths
//! on every sample, and the tests below every one-character change of
//! these events against their JSON values.

use super::Checker;
use crate::dialect::compact::{self, Text};
use crate::dialect::{Event, Out};

/// What a `contentBlockDelta` carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Delta {
    /// `delta.text`.
    Text,
    /// `delta.reasoningContent.text`.
    Reasoning,
    /// `delta.toolUse.input`, a piece of JSON text.
    ToolInput,
}

/// A `contentBlockDelta` payload in one of the compact forms of the
/// module docs: its block index, what it carries and the text (decoded
/// into `buf` when it held escapes). `None` for any other payload.
pub(super) fn compact_delta<'d>(data: &'d str, buf: &mut String) -> Option<(u64, Delta, Text<'d>)> {
    let rest = data.strip_prefix(r#"{"contentBlockIndex":"#)?;
    let (index, rest) = compact::uint(rest)?;
    let rest = rest.strip_prefix(r#","delta":{"#)?;
    let (kind, rest, close) = if let Some(r) = rest.strip_prefix(r#""text":""#) {
        (Delta::Text, r, "}")
    } else if let Some(r) = rest.strip_prefix(r#""reasoningContent":{"text":""#) {
        (Delta::Reasoning, r, "}}")
    } else {
        let r = rest.strip_prefix(r#""toolUse":{"input":""#)?;
        (Delta::ToolInput, r, "}}")
    };
    let (text, rest) = compact::string(rest, buf)?;
    let rest = rest.strip_prefix(close)?;
    let rest = match rest.strip_prefix(r#","p":""#) {
        Some(r) => compact::plain(r)?.1,
        None => rest,
    };
    compact::ends(rest, "}").then_some((index, kind, text))
}

impl Checker {
    /// See the module docs. True when the event was taken.
    pub(super) fn fast_delta(&mut self, ev: &Event<'_>, out: &mut dyn Out) -> bool {
        if ev.name != "contentBlockDelta" {
            return false;
        }
        let mut buf = std::mem::take(&mut self.unescaped);
        let taken = match compact_delta(ev.data, &mut buf) {
            Some((index, kind, text)) => {
                let t = match text {
                    Text::Lent(t) => t,
                    Text::Kept => buf.as_str(),
                };
                // What the general path does with it.
                self.summary.clear();
                self.events += 1;
                self.typed_frames += 1;
                self.add_delta(ev, index, kind, t, out);
                true
            }
            None => false,
        };
        self.unescaped = buf;
        taken
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    type Values = (u64, Delta, String);

    fn by_compact(data: &str) -> Option<Values> {
        let mut buf = String::new();
        let (index, kind, text) = compact_delta(data, &mut buf)?;
        let t = match text {
            Text::Lent(t) => t.to_string(),
            Text::Kept => buf,
        };
        Some((index, kind, t))
    }

    /// What the general path reads from the payload, when it is a delta of
    /// exactly one of the forms: an object of `contentBlockIndex`, `delta`
    /// and perhaps a string `p`, the delta one piece of text.
    fn by_serde(data: &str) -> Option<Values> {
        let v: Value = serde_json::from_str(data).ok()?;
        let o = v.as_object()?;
        let p = o.get("p").map(|p| p.is_string());
        if p == Some(false) || o.len() != 2 + usize::from(p.is_some()) {
            return None;
        }
        let index = o.get("contentBlockIndex")?.as_u64()?;
        let d = o.get("delta")?.as_object()?;
        if d.len() != 1 {
            return None;
        }
        let one = |v: &Value, key: &str| {
            let o = v.as_object()?;
            (o.len() == 1).then(|| o.get(key)?.as_str().map(str::to_string))?
        };
        if let Some(t) = d.get("text") {
            return Some((index, Delta::Text, t.as_str()?.to_string()));
        }
        if let Some(r) = d.get("reasoningContent") {
            return Some((index, Delta::Reasoning, one(r, "text")?));
        }
        Some((index, Delta::ToolInput, one(d.get("toolUse")?, "input")?))
    }

    #[test]
    fn compact_deltas_read_as_their_json_values_read() {
        let seeds = [
            r#"{"contentBlockIndex":0,"delta":{"text":"Hi \"there\" \u00e9"},"p":"abcdefgh"}"#,
            r#"{"contentBlockIndex":12,"delta":{"reasoningContent":{"text":"hm\n"}},"p":"ab"}"#,
            r#"{"contentBlockIndex":1,"delta":{"toolUse":{"input":"{\"city\":"}}} "#,
        ];
        let (mut read, mut n) = (0, 0);
        for seed in seeds {
            assert!(by_compact(seed).is_some(), "{seed}");
            for s in std::iter::once(seed.to_string()).chain(compact::one_char_changes(seed)) {
                if let Some(ours) = by_compact(&s) {
                    assert_eq!(Some(ours), by_serde(&s), "{s}");
                    read += 1;
                }
                n += 1;
            }
        }
        assert!(read > 200 && n > 5_000, "{read} of {n}");
    }
}
