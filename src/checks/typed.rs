//! The typed fast path. Most chunks of a stream are ordinary: a content or
//! tool-call-arguments delta of a choice already under way, in a chunk
//! whose envelope repeats the stream's `id` and `model`. Such a chunk is
//! decoded into the borrowed structs below, which are strict on purpose:
//! they hold only OpenAI's fields (`deny_unknown_fields`), only the types
//! and values the chunk schema accepts without a finding, and only the
//! fields an ordinary chunk carries (no `role`, `usage`, finish_reason,
//! `refusal`, tool-call `id`, `type` or `name`). A chunk that decodes and
//! passes [`Linter::is_ordinary`] can raise no per-chunk finding (schema,
//! fields, envelope, choice shape), so only the sequence bookkeeping runs,
//! through the same helpers as the general path.
//!
//! Anything else — a decode failure, an unusual field, the first or last
//! chunk of a choice — returns before any state changes, and the general
//! path (`serde_json::Value`, every rule) handles the chunk. Data that is
//! not JSON at all is not parsed twice: the typed parse's syntax error is
//! the one a `Value` parse would meet.
//!
//! Source: `CreateChatCompletionStreamResponse` and
//! `rules/schemas/chunk.schema.json`; the equivalence of the two paths is
//! tested in `tests/typed_path.rs`.

use super::Linter;
use crate::model::{self, Payload};
use crate::sse::Block;
use serde::de::{Deserializer, Error, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;

/// `service_tier` values of the chunk schema's enum.
const SERVICE_TIERS: &[&str] = &["auto", "default", "flex", "scale", "priority", "fast"];

/// A JSON string, borrowed from the event's data unless it holds escapes.
/// `null` and other types fail.
#[derive(Debug)]
struct JsonStr<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for JsonStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Cow<'de, str>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: Error>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(Cow::Borrowed(s))
            }
            fn visit_str<E: Error>(self, s: &str) -> Result<Self::Value, E> {
                Ok(Cow::Owned(s.to_string()))
            }
        }
        d.deserialize_str(V).map(JsonStr)
    }
}

/// A JSON `null` whose key must be present: a missing key or any other
/// value fails.
#[derive(Debug)]
struct Null;

impl<'de> Deserialize<'de> for Null {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Null;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("null")
            }
            fn visit_unit<E: Error>(self) -> Result<Null, E> {
                Ok(Null)
            }
        }
        d.deserialize_any(V)
    }
}

/// A value that never decodes: `Option<Never>` accepts exactly an absent
/// key or `null`.
#[derive(Debug)]
enum Never {}

impl<'de> Deserialize<'de> for Never {
    fn deserialize<D: Deserializer<'de>>(_: D) -> Result<Self, D::Error> {
        Err(D::Error::custom("only null is expected here"))
    }
}

/// For `#[serde(default, deserialize_with = "present")]`: the key may be
/// absent (`None`), but `null` is not accepted.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// An ordinary chunk.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Chunk<'a> {
    #[serde(borrow)]
    id: JsonStr<'a>,
    #[serde(borrow)]
    object: JsonStr<'a>,
    created: u64,
    #[serde(borrow)]
    model: JsonStr<'a>,
    #[serde(borrow)]
    choices: Vec<Choice<'a>>,
    #[serde(default)]
    #[allow(dead_code)]
    usage: Option<Never>,
    #[serde(default, borrow)]
    service_tier: Option<JsonStr<'a>>,
    #[serde(default, borrow)]
    #[allow(dead_code)]
    system_fingerprint: Option<JsonStr<'a>>,
    #[serde(default, borrow, deserialize_with = "present")]
    #[allow(dead_code)]
    obfuscation: Option<JsonStr<'a>>,
}

/// A choice in mid-answer: finish_reason `null`, no logprobs.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Choice<'a> {
    index: u64,
    #[serde(borrow)]
    delta: Delta<'a>,
    #[allow(dead_code)]
    finish_reason: Null,
    #[serde(default)]
    #[allow(dead_code)]
    logprobs: Option<Never>,
}

/// A delta without `role` or a refusal.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Delta<'a> {
    #[serde(default, borrow)]
    content: Option<JsonStr<'a>>,
    #[serde(default)]
    #[allow(dead_code)]
    refusal: Option<Never>,
    #[serde(default, borrow, deserialize_with = "present")]
    tool_calls: Option<Vec<ToolCall<'a>>>,
}

/// A continuation fragment of a tool call: `index` and more `arguments`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolCall<'a> {
    index: u64,
    #[serde(borrow)]
    function: Function<'a>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Function<'a> {
    #[serde(borrow)]
    arguments: JsonStr<'a>,
}

impl Linter<'_> {
    /// Lints `data` on the typed fast path when it is an ordinary chunk
    /// (`None`); otherwise changes nothing and returns the payload for the
    /// general path: the invalid JSON the typed parse found, or
    /// [`model::decode`]'s reading.
    pub(super) fn check_typed(
        &mut self,
        block: &Block<'_>,
        data: &str,
        index: Option<u64>,
    ) -> Option<Payload> {
        // `diff` and `inspect` record every chunk's fields and summary,
        // which only the general path builds.
        let extras = self.fields_seen.is_some() || self.summaries;
        if !self.out.settings().typed || extras || !data.starts_with('{') {
            return Some(model::decode(data));
        }
        let chunk = match serde_json::from_str::<Chunk>(data) {
            Ok(chunk) => chunk,
            Err(e) => {
                return Some(model::decode_failed(data, e).unwrap_or_else(|| model::decode(data)))
            }
        };
        if !self.is_ordinary(&chunk) {
            return Some(model::decode(data));
        }
        self.typed_chunks += 1;
        self.answer.chunks_with_choices += 1;
        let first = chunk.choices.first().map(|c| c.index);
        self.track_drift(block, data, index, chunk.choices.len(), first);
        for (pos, c) in chunk.choices.iter().enumerate() {
            let idx = c.index;
            self.choices.entry(idx).or_default().deltas += 1;
            let content = c.delta.content.as_ref().map(|s| s.0.as_ref());
            if let Some(s) = content.filter(|s| !s.is_empty()) {
                self.track_content(block, data, index, idx, &format!("/choices/{pos}"), s);
            }
            let calls = c.delta.tool_calls.as_deref().unwrap_or_default();
            if !calls.is_empty() {
                self.kind("tool-call");
            }
            let answer = self.answer.choice(idx);
            if let Some(s) = content {
                answer.text.push(s);
            }
            for call in calls {
                if let Some(tc) = answer.tool_calls.get_mut(&call.index) {
                    tc.push_arguments(&call.function.arguments.0);
                }
            }
        }
        None
    }

    /// Whether a decoded chunk raises no per-chunk finding and continues
    /// what came before: the envelope repeats the stream's first `id` and
    /// `model`, every choice is under way and unfinished, every tool-call
    /// fragment continues a call already started, and the chunk adds
    /// something.
    fn is_ordinary(&self, c: &Chunk<'_>) -> bool {
        let envelope = c.object.0 == "chat.completion.chunk"
            && (1..=100_000_000_000).contains(&c.created)
            && !c.id.0.is_empty()
            && self.first_id.as_deref() == Some(c.id.0.as_ref())
            && !c.model.0.is_empty()
            && self.first_model.as_deref() == Some(c.model.0.as_ref())
            && c.service_tier
                .as_ref()
                .is_none_or(|t| SERVICE_TIERS.contains(&t.0.as_ref()));
        if !envelope || c.choices.is_empty() {
            return false;
        }
        let n = self.ctx.request.as_ref().and_then(|r| r.n);
        let mut adds = false;
        for (pos, ch) in c.choices.iter().enumerate() {
            let idx = ch.index;
            if c.choices[..pos].iter().any(|o| o.index == idx) || n.is_some_and(|n| idx >= n.max(1))
            {
                return false;
            }
            let under_way = self
                .choices
                .get(&idx)
                .is_some_and(|t| t.deltas > 0 && !t.finished);
            if !under_way {
                return false;
            }
            if let Some(calls) = &ch.delta.tool_calls {
                let started = self.answer.choices.get(&idx).map(|a| &a.tool_calls);
                let continues =
                    |t: &ToolCall<'_>| started.is_some_and(|s| s.contains_key(&t.index));
                if calls.is_empty() || !calls.iter().all(continues) {
                    return false;
                }
                adds = true;
            }
            if ch.delta.content.as_ref().is_some_and(|s| !s.0.is_empty()) {
                adds = true;
            }
        }
        adds
    }
}
