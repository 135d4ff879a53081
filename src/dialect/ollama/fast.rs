//! The fast path ([`crate::dialect::Checker::fast`]): an ordinary line, a
//! piece of the answer before `done: true`, in the compact form Ollama's
//! server writes (Go's `encoding/json`: no whitespace, the fields in the
//! order of `api.ChatResponse` and `api.GenerateResponse`, the empty ones
//! left out):
//!
//! - `/api/chat`: `{"model":M,"created_at":T,"message":{"role":"assistant","content":C[,"thinking":R]},"done":false}`
//! - `/api/generate`: `{"model":M,"created_at":T,"response":C[,"thinking":R],"done":false}`
//!
//! is read byte by byte ([`crate::dialect::compact`]) and never becomes a
//! JSON value. Such a line can raise no finding: it is a JSON object with
//! a boolean `done`, a `message` object whose `content` is a string (or a
//! string `response`), no error, no tool call, and it comes before the
//! `done: true` line, in a stream of the same endpoint's lines. Any other
//! line (another field, another order, a space, an escape in the model's
//! name, a tool call, the last line, a line after it, a line of the other
//! endpoint) goes down the general path, which reads it whole. Both
//! paths end in the same state: `tests/typed_path.rs` compares them on
//! every sample and on every one-character change of these lines.

use super::{Checker, Endpoint};
use crate::dialect::compact::{self, Text};
use crate::dialect::{Event, Out};

/// An ordinary line's values, however its strings were read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Line<'a> {
    pub model: &'a str,
    pub endpoint: Endpoint,
    /// `message.content` (chat) or `response` (generate).
    pub text: Text<'a>,
    /// `thinking`, when the line has it.
    pub thinking: Option<Text<'a>>,
}

/// The line `data` in one of the compact forms of the module docs; the
/// strings with escapes are decoded into `text` and `thinking`. `None` for
/// any other line.
pub(super) fn compact_line<'d>(
    data: &'d str,
    text: &mut String,
    thinking: &mut String,
) -> Option<Line<'d>> {
    let rest = data.strip_prefix(r#"{"model":""#)?;
    let (model, rest) = compact::plain(rest)?;
    let rest = rest.strip_prefix(r#","created_at":""#)?;
    let (_, rest) = compact::plain(rest)?;
    let (endpoint, rest) =
        if let Some(r) = rest.strip_prefix(r#","message":{"role":"assistant","content":""#) {
            (Endpoint::Chat, r)
        } else {
            (Endpoint::Generate, rest.strip_prefix(r#","response":""#)?)
        };
    let (t, rest) = compact::string(rest, text)?;
    let (thinking, rest) = match rest.strip_prefix(r#","thinking":""#) {
        Some(r) => {
            let (r_text, r) = compact::string(r, thinking)?;
            (Some(r_text), r)
        }
        None => (None, rest),
    };
    let rest = match endpoint {
        Endpoint::Chat => rest.strip_prefix('}')?,
        Endpoint::Generate => rest,
    };
    if !compact::ends(rest, r#","done":false}"#) {
        return None;
    }
    Some(Line {
        model,
        endpoint,
        text: t,
        thinking,
    })
}

/// The text of a string read by [`compact_line`].
fn text<'a>(t: Text<'a>, kept: &'a str) -> &'a str {
    match t {
        Text::Lent(s) => s,
        Text::Kept => kept,
    }
}

impl Checker {
    /// See the module docs. True when the line was taken.
    pub(super) fn fast_line(&mut self, ev: &Event<'_>, out: &mut dyn Out) -> bool {
        if self.done.is_some() || self.error.is_some() {
            return false;
        }
        let (mut t, mut r) = std::mem::take(&mut self.unescaped);
        let taken = match compact_line(ev.data, &mut t, &mut r) {
            // A line of the other endpoint's shape is judged by the
            // general path (a generate line in a chat stream lacks
            // `message`).
            Some(line) if self.endpoint.is_none_or(|e| e == line.endpoint) => {
                self.fast_take(
                    &line,
                    text(line.text, &t),
                    line.thinking.map(|x| text(x, &r)),
                    out,
                );
                true
            }
            _ => false,
        };
        self.unescaped = (t, r);
        taken
    }

    /// What the general path does with an ordinary line, which reports
    /// nothing for it.
    fn fast_take(&mut self, line: &Line<'_>, t: &str, thinking: Option<&str>, out: &mut dyn Out) {
        self.summary.clear();
        self.objects += 1;
        self.typed_lines += 1;
        if self.hints.model.is_none() {
            self.hints.model = Some(line.model.to_string());
        }
        if self.endpoint.is_none() {
            self.endpoint = Some(line.endpoint);
        }
        let mut summary = Vec::new();
        self.add_text(Some(t), thinking, &mut summary, out);
        if out.summaries() {
            self.summary = super::printable_shorten(&summary.join(", "), 120);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// What a line holds, its strings decoded.
    type Values = (String, Endpoint, String, Option<String>);

    fn by_compact(data: &str) -> Option<Values> {
        let (mut t, mut r) = (String::new(), String::new());
        let line = compact_line(data, &mut t, &mut r)?;
        Some((
            line.model.to_string(),
            line.endpoint,
            text(line.text, &t).to_string(),
            line.thinking.map(|x| text(x, &r).to_string()),
        ))
    }

    /// The same values read from the line's JSON value, when the general
    /// path would take it as an ordinary line: an object with exactly the
    /// fields of one of the two forms, of the types they have there, and
    /// `done: false`.
    fn by_serde(data: &str) -> Option<Values> {
        let v: Value = serde_json::from_str(data).ok()?;
        let o = v.as_object()?;
        let s = |v: &Value| v.as_str().map(str::to_string);
        if o.get("done") != Some(&Value::Bool(false)) {
            return None;
        }
        let model = s(o.get("model")?)?;
        s(o.get("created_at")?)?;
        if let Some(m) = o.get("message") {
            let m = m.as_object()?;
            if o.len() != 4 || m.get("role")?.as_str()? != "assistant" {
                return None;
            }
            let thinking = m.get("thinking").map(s);
            if m.len() != 2 + usize::from(thinking.is_some()) {
                return None;
            }
            Some((
                model,
                Endpoint::Chat,
                s(m.get("content")?)?,
                thinking.map(Option::unwrap),
            ))
        } else {
            let thinking = o.get("thinking").map(s);
            if o.len() != 4 + usize::from(thinking.is_some()) {
                return None;
            }
            let thinking = match thinking {
                Some(t) => Some(t?),
                None => None,
            };
            Some((model, Endpoint::Generate, s(o.get("response")?)?, thinking))
        }
    }

    #[test]
    fn compact_lines_read_as_their_json_values_read() {
        let seeds = [
            r#"{"model":"qwen3:8b","created_at":"2026-01-02T03:04:05.1Z","message":{"role":"assistant","content":"Hi \"there\" \u00e9"},"done":false}"#,
            r#"{"model":"qwen3:8b","created_at":"2026-01-02T03:04:05.1Z","message":{"role":"assistant","content":"","thinking":"hm\n"},"done":false}"#,
            r#"{"model":"llama3.2","created_at":"2026-01-02T03:04:05Z","response":" quick","done":false}"#,
            r#"{"model":"llama3.2","created_at":"2026-01-02T03:04:05Z","response":"","thinking":"so","done":false} "#,
        ];
        let (mut read, mut n) = (0, 0);
        for seed in seeds {
            assert!(by_compact(seed).is_some(), "{seed}");
            for s in std::iter::once(seed.to_string()).chain(compact::one_char_changes(seed)) {
                if let Some(ours) = by_compact(&s) {
                    let theirs = by_serde(&s);
                    assert!(theirs.is_some(), "{s}");
                    if let Some(t) = theirs {
                        assert_eq!(ours.1, t.1, "{s}");
                        assert_eq!((&ours.0, &ours.2, &ours.3), (&t.0, &t.2, &t.3), "{s}");
                    }
                    read += 1;
                }
                n += 1;
            }
        }
        assert!(read > 300 && n > 10_000, "{read} of {n}");
    }
}
