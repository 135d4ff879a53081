//! The typed fast path (Chat's [`crate::dialect::Checker::fast`]). Most
//! chunks of a stream are ordinary: a content or tool-call-arguments delta
//! of a choice already under way, in a chunk whose envelope repeats the
//! stream's `id` and `model`. Such a chunk is decoded into the borrowed
//! structs below, which are strict on purpose: they hold only OpenAI's
//! fields (`deny_unknown_fields`), only the types and values the chunk
//! schema accepts without a finding, and only the fields an ordinary chunk
//! carries (no `role`, `usage`, finish_reason, `refusal`, tool-call `id`,
//! `type` or `name`). A chunk that decodes and passes
//! `Checker::is_ordinary` can raise no per-chunk finding (schema, fields,
//! envelope, choice shape), so only the sequence bookkeeping runs, through
//! the same helpers as the general path.
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

use super::Checker;
use crate::dialect::{Event, Out};
use crate::model;
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

/// A JSON object decoded as `T`. serde's derived structs also accept an
/// array of their fields in order (`"function": ["{}"]`); the schema does
/// not, so every struct here is read through this wrapper, which accepts
/// only an object.
#[derive(Debug)]
struct Obj<T>(T);

impl<T> std::ops::Deref for Obj<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Obj<T>, A::Error> {
                T::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Obj)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
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
    choices: Vec<Obj<Choice<'a>>>,
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
    delta: Obj<Delta<'a>>,
    #[allow(dead_code)]
    finish_reason: Null,
    #[serde(default)]
    #[allow(dead_code)]
    logprobs: Option<Never>,
}

/// A delta without `role` or a refusal. The reasoning fields of known
/// extensions (DeepSeek's `reasoning_content`, Groq's and vLLM's
/// `reasoning`) are accepted only as null, which the general path skips as
/// carrying nothing.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Delta<'a> {
    #[serde(default, borrow)]
    content: Option<JsonStr<'a>>,
    #[serde(default)]
    #[allow(dead_code)]
    refusal: Option<Never>,
    #[serde(default)]
    #[allow(dead_code)]
    reasoning_content: Option<Never>,
    #[serde(default)]
    #[allow(dead_code)]
    reasoning: Option<Never>,
    #[serde(default, borrow, deserialize_with = "present")]
    tool_calls: Option<Vec<Obj<ToolCall<'a>>>>,
}

/// A continuation fragment of a tool call: `index` and more `arguments`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolCall<'a> {
    index: u64,
    #[serde(borrow)]
    function: Obj<Function<'a>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Function<'a> {
    #[serde(borrow)]
    arguments: JsonStr<'a>,
}

impl Checker {
    /// The typed fast path ([`crate::dialect::Checker::fast`]): lints the
    /// event and returns true when it is an ordinary chunk; otherwise
    /// changes nothing and returns false, keeping in `parsed` the typed
    /// parse's syntax error, which is the one a `Value` parse would meet.
    pub(super) fn check_typed(&mut self, ev: &Event<'_>, out: &mut dyn Out) -> bool {
        let (data, index) = (ev.data, ev.index);
        // A named event, and whatever follows `[DONE]`, are the general
        // path's (`event-type`, `error-event`, `data-after-done`).
        if self.chat.done || ev.name != "message" {
            return false;
        }
        if !self.typed || !data.starts_with('{') {
            return false;
        }
        // `diff` and `inspect` record every chunk's fields and summary,
        // which only the general path builds.
        if out.summaries() || out.fields_seen().is_some() {
            return false;
        }
        let chunk = match serde_json::from_str::<Obj<Chunk>>(data) {
            Ok(chunk) => chunk,
            Err(e) => {
                self.parsed = model::decode_failed(data, e);
                return false;
            }
        };
        if !self.is_ordinary(&chunk) {
            return false;
        }
        self.typed_chunks += 1;
        self.answer.chunks_with_choices += 1;
        let first = chunk.choices.first().map(|c| c.index);
        self.track_drift(out, index, chunk.choices.len(), first);
        for (pos, c) in chunk.choices.iter().enumerate() {
            let idx = c.index;
            self.chat.choices.entry(idx).or_default().deltas += 1;
            let content = c.delta.content.as_ref().map(|s| s.0.as_ref());
            if let Some(s) = content.filter(|s| !s.is_empty()) {
                let pointer = || format!("/choices/{pos}/delta/content");
                self.track_content(out, index, idx, pointer, s);
            }
            let calls = c.delta.tool_calls.as_deref().unwrap_or_default();
            if !calls.is_empty() {
                out.kind("tool-call");
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
        true
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
            && self.chat.first_id.as_deref() == Some(c.id.0.as_ref())
            && !c.model.0.is_empty()
            && self.chat.first_model.as_deref() == Some(c.model.0.as_ref())
            && c.service_tier
                .as_ref()
                .is_none_or(|t| SERVICE_TIERS.contains(&t.0.as_ref()));
        if !envelope || c.choices.is_empty() {
            return false;
        }
        let n = self.request.as_ref().and_then(|r| r.n);
        let mut adds = false;
        for (pos, ch) in c.choices.iter().enumerate() {
            let idx = ch.index;
            if c.choices[..pos].iter().any(|o| o.index == idx) || n.is_some_and(|n| idx >= n.max(1))
            {
                return false;
            }
            let under_way = self
                .chat
                .choices
                .get(&idx)
                .is_some_and(|t| t.deltas > 0 && !t.finished);
            if !under_way {
                return false;
            }
            if let Some(calls) = &ch.delta.tool_calls {
                let started = self.answer.choices.get(&idx).map(|a| &a.tool_calls);
                let continues =
                    |t: &Obj<ToolCall<'_>>| started.is_some_and(|s| s.contains_key(&t.index));
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

/// `role` values of the chunk schema's enum.
const ROLES: &[&str] = &["developer", "system", "user", "assistant", "tool"];

/// A chunk the schema accepts, in typed form: decoding a chunk into it
/// (unknown fields are ignored, as the schema allows them) and passing
/// [`SchemaChunk::holds`] proves the chunk valid without running the JSON
/// Schema validator, which is then compiled only for streams that need it.
/// It may reject a valid chunk (a `logprobs` object, an integer written
/// `1.0`): the validator decides those.
#[derive(Debug, Deserialize)]
struct SchemaChunk<'a> {
    #[serde(borrow)]
    id: JsonStr<'a>,
    #[serde(borrow)]
    object: JsonStr<'a>,
    created: u64,
    #[serde(borrow)]
    model: JsonStr<'a>,
    #[serde(borrow)]
    choices: Vec<Obj<SchemaChoice<'a>>>,
    #[serde(default)]
    #[allow(dead_code)]
    usage: Option<Obj<SchemaUsage>>,
    #[serde(default, borrow)]
    service_tier: Option<JsonStr<'a>>,
    #[serde(default, borrow)]
    #[allow(dead_code)]
    system_fingerprint: Option<JsonStr<'a>>,
    #[serde(default, borrow, deserialize_with = "present")]
    #[allow(dead_code)]
    obfuscation: Option<JsonStr<'a>>,
    #[serde(default)]
    #[allow(dead_code)]
    moderation: Option<Never>,
}

#[derive(Debug, Deserialize)]
struct SchemaChoice<'a> {
    #[allow(dead_code)]
    index: u64,
    #[serde(borrow)]
    delta: Obj<SchemaDelta<'a>>,
    #[serde(borrow)]
    finish_reason: NullOr<'a>,
    #[serde(default)]
    #[allow(dead_code)]
    logprobs: Option<Never>,
}

#[derive(Debug, Deserialize)]
struct SchemaDelta<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    role: Option<JsonStr<'a>>,
    #[serde(default, borrow)]
    #[allow(dead_code)]
    content: Option<JsonStr<'a>>,
    #[serde(default, borrow)]
    #[allow(dead_code)]
    refusal: Option<JsonStr<'a>>,
    #[serde(default, borrow, deserialize_with = "present")]
    tool_calls: Option<Vec<Obj<SchemaToolCall<'a>>>>,
    #[serde(default, borrow, deserialize_with = "present")]
    #[allow(dead_code)]
    function_call: Option<Obj<SchemaFunction<'a>>>,
}

#[derive(Debug, Deserialize)]
struct SchemaToolCall<'a> {
    #[allow(dead_code)]
    index: u64,
    #[serde(default, borrow, deserialize_with = "present")]
    #[allow(dead_code)]
    id: Option<JsonStr<'a>>,
    #[serde(default, borrow, rename = "type", deserialize_with = "present")]
    kind: Option<JsonStr<'a>>,
    #[serde(default, borrow, deserialize_with = "present")]
    #[allow(dead_code)]
    function: Option<Obj<SchemaFunction<'a>>>,
}

#[derive(Debug, Deserialize)]
struct SchemaFunction<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    #[allow(dead_code)]
    name: Option<JsonStr<'a>>,
    #[serde(default, borrow, deserialize_with = "present")]
    #[allow(dead_code)]
    arguments: Option<JsonStr<'a>>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct SchemaUsage {
    prompt_tokens: u64,
    completion_tokens: u64,
    total_tokens: u64,
    #[serde(default, deserialize_with = "present")]
    completion_tokens_details: Option<Obj<CompletionDetails>>,
    #[serde(default, deserialize_with = "present")]
    prompt_tokens_details: Option<Obj<PromptDetails>>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct CompletionDetails {
    #[serde(default, deserialize_with = "present")]
    accepted_prediction_tokens: Option<u64>,
    #[serde(default, deserialize_with = "present")]
    audio_tokens: Option<u64>,
    #[serde(default, deserialize_with = "present")]
    reasoning_tokens: Option<u64>,
    #[serde(default, deserialize_with = "present")]
    text_tokens: Option<u64>,
    #[serde(default, deserialize_with = "present")]
    rejected_prediction_tokens: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct PromptDetails {
    #[serde(default, deserialize_with = "present")]
    audio_tokens: Option<u64>,
    #[serde(default, deserialize_with = "present")]
    cached_tokens: Option<u64>,
    #[serde(default, deserialize_with = "present")]
    text_tokens: Option<u64>,
    #[serde(default, deserialize_with = "present")]
    image_tokens: Option<u64>,
    #[serde(default, deserialize_with = "present")]
    cache_write_tokens: Option<u64>,
}

/// A string or `null` whose key must be present.
#[derive(Debug)]
struct NullOr<'a>(Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for NullOr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = NullOr<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or null")
            }
            fn visit_unit<E: Error>(self) -> Result<Self::Value, E> {
                Ok(NullOr(None))
            }
            fn visit_borrowed_str<E: Error>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(NullOr(Some(Cow::Borrowed(s))))
            }
            fn visit_str<E: Error>(self, s: &str) -> Result<Self::Value, E> {
                Ok(NullOr(Some(Cow::Owned(s.to_string()))))
            }
        }
        d.deserialize_any(V)
    }
}

impl SchemaChunk<'_> {
    /// The constraints serde's types do not express: non-empty strings,
    /// `const` and `enum` values, `created` ≥ 1.
    fn holds(&self) -> bool {
        let choices_hold = self.choices.iter().all(|c| {
            c.finish_reason
                .0
                .as_deref()
                .is_none_or(|f| super::FINISH_REASONS.contains(&f))
                && c.delta
                    .role
                    .as_ref()
                    .is_none_or(|r| ROLES.contains(&r.0.as_ref()))
                && c.delta
                    .tool_calls
                    .iter()
                    .flatten()
                    .all(|t| t.kind.as_ref().is_none_or(|k| k.0 == "function"))
        });
        self.object.0 == "chat.completion.chunk"
            && self.created >= 1
            && !self.id.0.is_empty()
            && !self.model.0.is_empty()
            && self
                .service_tier
                .as_ref()
                .is_none_or(|t| SERVICE_TIERS.contains(&t.0.as_ref()))
            && choices_hold
    }
}

/// Whether `v` is proven valid against the chunk schema by its typed form
/// ([`SchemaChunk`]); `false` means "ask the validator", not "invalid".
pub(super) fn proven_valid(v: &serde_json::Value) -> bool {
    Obj::<SchemaChunk>::deserialize(v).is_ok_and(|c| c.holds())
}
