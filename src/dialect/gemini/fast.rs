//! The typed fast path: an ordinary chunk (one candidate, candidate 0,
//! holding one text part, one thought part or one whole named function
//! call, with the running
//! `usageMetadata`, `modelVersion`, `responseId` and Vertex's
//! `createTime`, and no other field), to a candidate already under way
//! and not finished, in a stream whose state raises no question, is read
//! from a borrowed typed form and never becomes a JSON value. Anything
//! else (another field or part, a `null`, a second candidate, a
//! `finishReason`, an `index` other than 0, a changed id, a signature
//! that is not base64, an `event:` line, …) goes down the general path,
//! which reports it. Both paths end in the same state:
//! `tests/typed_path.rs` compares them on every rule example, every
//! sample, and mutations of each kind of chunk.
//!
//! A call's `args` are built (as a `Map`, written as the general path
//! writes the `Value`) only while calls are kept; past `MAX_CALLS` they
//! are read through and checked as a `Value` parse would check them,
//! and nothing is kept ([`Checked`]). `willContinue` and `partialArgs`
//! take the general path.
//!
//! The usage is the one value a chunk leaves behind whole (the answer's
//! `usage` is the last chunk's `usageMetadata`): the fast path keeps the
//! chunk's text, and the value is read from it only at the end
//! ([`Checker::usage_value`]), as the general path would have read it.

use super::{is_base64, Checker, MAX_CALLS};
use crate::dialect::{Event, Out};
use crate::model::assembly::ToolCall;
use crate::model::shorten;
use memchr::memmem::Finder;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::sync::LazyLock;

/// A field that, when present, is a `T` and not `null` (the general path
/// tells a `null` from an absent field; `Option` would not). Absent, with
/// `#[serde(default)]`, it is `Present(None)`.
struct Present<T>(Option<T>);

impl<T> Default for Present<T> {
    fn default() -> Self {
        Present(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Present<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::deserialize(d).map(|v| Present(Some(v)))
    }
}

/// A `T` read from a JSON object only (serde's derived structs also read
/// an array, field by field, which the general path reports).
struct Obj<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<M: MapAccess<'de>>(self, m: M) -> Result<Obj<T>, M::Error> {
                T::deserialize(serde::de::value::MapAccessDeserializer::new(m)).map(Obj)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// An array of `T`, each element read and checked, none kept (the usage's
/// token details: no allocation per chunk). Every element is parsed as a
/// `T`, so nothing in it is skipped unread.
struct Each<T>(std::marker::PhantomData<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Each<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Each<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Each<T>, A::Error> {
                while a.next_element::<T>()?.is_some() {}
                Ok(Each(std::marker::PhantomData))
            }
        }
        d.deserialize_seq(V(std::marker::PhantomData))
    }
}

/// A string lent from the data when it holds no escape, and copied when
/// it does (serde lends a `Cow` only when it is a field's own type, not
/// inside `Present`).
struct Str<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Str<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, s: &'de str) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Borrowed(s)))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Owned(s.to_string())))
            }
        }
        d.deserialize_str(V)
    }
}

/// A function call's `args` read and checked, not kept (a call past
/// `MAX_CALLS`, which is only counted): an object, every key and value in
/// it parsed as a `Value` would parse it (the same strings, numbers and
/// nesting, so the same errors), and nothing allocated: model::valid's
/// walk. The other form is `Map<String, Value>`, for a call whose
/// arguments are kept.
use crate::model::valid::Object as Checked;

/// An ordinary chunk's fields, all of them: any other key fails the parse.
/// `A` is what a function call's `args` is read as: `Map<String, Value>`
/// when they are kept, [`Checked`] when not.
#[derive(serde::Deserialize)]
#[serde(bound(deserialize = "A: Deserialize<'de>"))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Chunk<'a, A> {
    /// Exactly one candidate (a longer or shorter array fails the parse).
    #[serde(borrow)]
    candidates: [Obj<Candidate<'a, A>>; 1],
    #[serde(default, borrow)]
    usage_metadata: Present<Obj<Usage<'a>>>,
    #[serde(default, borrow)]
    model_version: Present<&'a str>,
    #[serde(default, borrow)]
    response_id: Present<&'a str>,
    #[serde(default, borrow)]
    #[allow(dead_code)] // read to check it is a string
    create_time: Present<&'a str>,
}

/// Candidate 0 while it streams: its content and, but on Vertex, its index.
#[derive(serde::Deserialize)]
#[serde(bound(deserialize = "A: Deserialize<'de>"))]
#[serde(deny_unknown_fields)]
struct Candidate<'a, A> {
    #[serde(borrow)]
    content: Obj<Content<'a, A>>,
    #[serde(default)]
    index: Present<u64>,
}

/// One part and the role.
#[derive(serde::Deserialize)]
#[serde(bound(deserialize = "A: Deserialize<'de>"))]
#[serde(deny_unknown_fields)]
struct Content<'a, A> {
    #[serde(borrow)]
    parts: [Obj<Part<'a, A>>; 1],
    #[serde(default, borrow)]
    #[allow(dead_code)] // read to check it is a string
    role: Present<&'a str>,
}

/// A text part, a thought part (`thought: true`), or a whole function
/// call, with its signature. A part with both `text` and `functionCall`,
/// or neither, is left to the general path.
#[derive(serde::Deserialize)]
#[serde(bound(deserialize = "A: Deserialize<'de>"))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Part<'a, A> {
    #[serde(default, borrow)]
    text: Present<Str<'a>>,
    #[serde(default, borrow)]
    function_call: Present<Box<Obj<Call<'a, A>>>>,
    #[serde(default)]
    thought: Present<bool>,
    #[serde(default, borrow)]
    thought_signature: Present<&'a str>,
}

/// A whole function call: its name, its `args` object (absent reads as
/// `{}`) and Vertex's `id`. `willContinue`, `partialArgs` and any other
/// field fail the parse.
#[derive(serde::Deserialize)]
#[serde(bound(deserialize = "A: Deserialize<'de>"))]
#[serde(deny_unknown_fields)]
struct Call<'a, A> {
    #[serde(borrow)]
    name: Str<'a>,
    #[serde(default)]
    args: Present<A>,
    #[serde(default, borrow)]
    id: Present<Str<'a>>,
}

/// `usageMetadata`'s documented fields (python-genai
/// `GenerateContentResponseUsageMetadata`, and `serviceTier` of real
/// streams), every count a non-negative integer.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)] // read to check it, not kept
struct Usage<'a> {
    #[serde(default)]
    prompt_token_count: Present<u64>,
    #[serde(default)]
    candidates_token_count: Present<u64>,
    #[serde(default)]
    total_token_count: Present<u64>,
    #[serde(default)]
    thoughts_token_count: Present<u64>,
    #[serde(default)]
    cached_content_token_count: Present<u64>,
    #[serde(default)]
    tool_use_prompt_token_count: Present<u64>,
    #[serde(default, borrow)]
    prompt_tokens_details: Present<Each<Obj<Detail<'a>>>>,
    #[serde(default, borrow)]
    candidates_tokens_details: Present<Each<Obj<Detail<'a>>>>,
    #[serde(default, borrow)]
    cache_tokens_details: Present<Each<Obj<Detail<'a>>>>,
    #[serde(default, borrow)]
    tool_use_prompt_tokens_details: Present<Each<Obj<Detail<'a>>>>,
    #[serde(default, borrow)]
    traffic_type: Present<&'a str>,
    #[serde(default, borrow)]
    service_tier: Present<&'a str>,
}

/// A `ModalityTokenCount`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)] // read to check it, not kept
struct Detail<'a> {
    #[serde(default, borrow)]
    modality: Present<&'a str>,
    #[serde(default)]
    token_count: Present<u64>,
}

impl Checker {
    /// See the module docs. True when the event was taken.
    pub(super) fn fast_event(&mut self, ev: &Event<'_>, out: &mut dyn Out) -> bool {
        // Named events are counted on the general path; a chunk is an
        // object, and only an object may take this path.
        if ev.named || !ev.data.trim_start().starts_with('{') {
            return false;
        }
        // A chunk with neither a text part nor a function call (the usage
        // alone, code, a finish) would fail the parse below: a failed
        // parse costs the error's message and position, several times
        // these searches.
        static TEXT: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\"text\""));
        static CALL: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\"functionCall\""));
        // A text chunk is not searched twice: a call whose chunk holds
        // `"text"` (an argument's key) is read as [`Checked`] and, while
        // its arguments are kept, left to the general path.
        let data = ev.data.as_bytes();
        let call = TEXT.find(data).is_none();
        if call && CALL.find(data).is_none() {
            return false;
        }
        // Candidate 0 under way, not finished (its first chunk, and every
        // chunk after its finish, take the general path), and no streamed
        // call open (a named call would close it).
        let Some(c) = self.candidates.get(&0) else {
            return false;
        };
        if c.finish.is_some() || c.streaming.is_some() {
            return false;
        }
        // A call's arguments are built only when the call is kept.
        if call && c.calls.len() < MAX_CALLS {
            match serde_json::from_str::<Chunk<'_, Map<String, Value>>>(ev.data) {
                Ok(mut chunk) => self.take(&mut chunk, ev, out, true, |args| match args {
                    Some(a) => Value::Object(a).to_string(),
                    None => "{}".to_string(),
                }),
                Err(_) => false,
            }
        } else {
            match serde_json::from_str::<Chunk<'_, Checked>>(ev.data) {
                Ok(mut chunk) => self.take(&mut chunk, ev, out, false, |_| String::new()),
                Err(_) => false,
            }
        }
    }

    /// The rest of [`Checker::fast_event`], once the chunk is read:
    /// `arguments` writes a kept call's `args` as the general path does;
    /// `built` says whether `A` holds them (a call to keep read as
    /// [`Checked`], its key spelt with an escape that the search missed,
    /// goes to the general path).
    fn take<A>(
        &mut self,
        chunk: &mut Chunk<'_, A>,
        ev: &Event<'_>,
        out: &mut dyn Out,
        built: bool,
        arguments: impl FnOnce(Option<A>) -> String,
    ) -> bool {
        let [Obj(cand)] = &mut chunk.candidates;
        if cand.index.0.is_some_and(|i| i != 0) {
            return false;
        }
        let [Obj(part)] = &mut cand.content.0.parts;
        // One text part or one named call, never both.
        let (text, call) = match (&part.text.0, &mut part.function_call.0) {
            (Some(t), None) => (Some(&t.0), None),
            (None, Some(c)) if !c.0.name.0.is_empty() => (None, Some(&mut c.0)),
            _ => return false,
        };
        let calls = self.candidates.get(&0).map_or(0, |c| c.calls.len());
        if call.is_some() && calls < MAX_CALLS && !built {
            return false;
        }
        if part.thought_signature.0.is_some_and(|s| !is_base64(s)) {
            return false;
        }
        // The ids repeat the first chunk's (a change is the general
        // path's finding, unless it was reported).
        let same = |held: &Option<String>, v: Option<&str>| match (held, v) {
            (Some(first), Some(v)) => first == v || self.id_reported,
            _ => true,
        };
        if !same(&self.response_id, chunk.response_id.0)
            || !same(&self.model_version, chunk.model_version.0)
        {
            return false;
        }

        // Taken: what `Checker::event` does with such a chunk.
        self.last.clear();
        self.adds.clear();
        self.events += 1;
        self.typed += 1;
        for (v, held) in [
            (chunk.response_id.0, &mut self.response_id),
            (chunk.model_version.0, &mut self.model_version),
        ] {
            if let (Some(v), true) = (v, held.is_none()) {
                *held = Some(v.to_string());
            }
        }
        self.with_candidates += 1;
        let summaries = out.summaries();
        let thought = part.thought.0 == Some(true);
        let mut kind = None;
        let c = self.candidates.entry(0).or_default();
        if part.thought_signature.0.is_some() {
            c.signatures += 1;
        }
        c.parts += 1;
        if let Some(text) = text {
            let text: &str = text;
            if thought {
                c.thoughts += 1;
                c.reasoning.push(text);
                kind = Some("reasoning");
                if summaries {
                    self.adds
                        .push(format!("[0] thought {:?}", shorten(text, 30)));
                }
            } else {
                if !text.is_empty() {
                    let repeats = c.text.is_repeated_by(text);
                    c.text_parts += 1;
                    c.repeat_at = (repeats && c.text_parts >= 3).then(|| {
                        (
                            out.at_pointer("/candidates/0/content/parts/0/text", false),
                            ev.index,
                        )
                    });
                }
                c.text.push(text);
                if !text.is_empty() {
                    kind = Some("content");
                    if summaries {
                        self.adds.push(format!("[0] text {:?}", shorten(text, 30)));
                    }
                }
            }
        } else if let Some(call) = call {
            // `Checker::part` and `Checker::function_call` for a named
            // call with its whole `args` (no stream was open).
            if thought {
                c.thoughts += 1;
            }
            kind = Some("tool");
            let name: &str = &call.name.0;
            if summaries {
                self.adds.push(format!("[0] call {}", shorten(name, 30)));
            }
            if c.calls.len() >= MAX_CALLS {
                c.calls_dropped += 1;
            } else {
                let arguments = arguments(call.args.0.take());
                let n = c.calls.len() as u64;
                c.add_call(ToolCall {
                    index: n,
                    id: call.id.0.as_ref().map(|s| s.0.to_string()),
                    kind: None,
                    name: Some(name.to_string()),
                    arguments: shorten(&arguments, crate::model::assembly::MAX_TEXT_BYTES),
                    server: false,
                });
            }
        }
        if let Some(Obj(u)) = &chunk.usage_metadata.0 {
            if let Some(n) = u.candidates_token_count.0 {
                if let Some((prev, at_prev)) = self.last_candidates.take() {
                    if self.peak_candidates.as_ref().is_none_or(|(p, _)| prev > *p) {
                        self.peak_candidates = Some((prev, at_prev));
                    }
                }
                let at = (
                    out.at_pointer("/usageMetadata/candidatesTokenCount", false),
                    ev.index,
                );
                self.last_candidates = Some((n, at));
            }
            self.usage_total(
                out,
                ev,
                [
                    u.prompt_token_count.0,
                    u.candidates_token_count.0,
                    u.thoughts_token_count.0,
                    u.tool_use_prompt_token_count.0,
                ],
                u.total_token_count.0,
            );
            self.usage_chunk.clear();
            self.usage_chunk.push_str(ev.data);
            self.usage_in_chunk = true;
            if kind.is_none() {
                kind = Some("usage");
            }
        }
        if let Some(k) = kind {
            out.kind(k);
        }
        if summaries {
            if chunk.usage_metadata.0.is_some() {
                self.adds.push("usage".to_string());
            }
            self.last = self.adds.join(", ");
        }
        true
    }
}
