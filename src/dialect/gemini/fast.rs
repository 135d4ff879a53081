//! The typed fast path: an ordinary chunk (one candidate, candidate 0,
//! holding one text part or one thought part, with the running
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
//! The usage is the one value a chunk leaves behind whole (the answer's
//! `usage` is the last chunk's `usageMetadata`): the fast path keeps the
//! chunk's text, and the value is read from it only at the end
//! ([`Checker::usage_value`]), as the general path would have read it.

use super::{is_base64, Checker};
use crate::dialect::{Event, Out};
use crate::model::shorten;
use memchr::memmem::Finder;
use serde::de::{Deserialize, Deserializer, SeqAccess, Visitor};
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

/// An ordinary chunk's fields, all of them: any other key fails the parse.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Chunk<'a> {
    /// Exactly one candidate (a longer or shorter array fails the parse).
    #[serde(borrow)]
    candidates: [Candidate<'a>; 1],
    #[serde(default, borrow)]
    usage_metadata: Present<Usage<'a>>,
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
#[serde(deny_unknown_fields)]
struct Candidate<'a> {
    #[serde(borrow)]
    content: Content<'a>,
    #[serde(default)]
    index: Present<u64>,
}

/// One part and the role.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Content<'a> {
    #[serde(borrow)]
    parts: [Part<'a>; 1],
    #[serde(default, borrow)]
    #[allow(dead_code)] // read to check it is a string
    role: Present<&'a str>,
}

/// A text part, or a thought part (`thought: true`), with its signature.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Part<'a> {
    /// Lent from the data when it holds no escape (serde borrows a `Cow`
    /// only when it is the field's own type).
    #[serde(borrow)]
    text: Cow<'a, str>,
    #[serde(default)]
    thought: Present<bool>,
    #[serde(default, borrow)]
    thought_signature: Present<&'a str>,
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
    prompt_tokens_details: Present<Each<Detail<'a>>>,
    #[serde(default, borrow)]
    candidates_tokens_details: Present<Each<Detail<'a>>>,
    #[serde(default, borrow)]
    cache_tokens_details: Present<Each<Detail<'a>>>,
    #[serde(default, borrow)]
    tool_use_prompt_tokens_details: Present<Each<Detail<'a>>>,
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
        // A chunk without a text part (a function call, the usage alone)
        // would fail the parse below: a failed parse costs the error's
        // message and position, several times this search.
        static TEXT: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\"text\""));
        if TEXT.find(ev.data.as_bytes()).is_none() {
            return false;
        }
        let Ok(chunk) = serde_json::from_str::<Chunk<'_>>(ev.data) else {
            return false;
        };
        let [cand] = &chunk.candidates;
        if cand.index.0.is_some_and(|i| i != 0) {
            return false;
        }
        let [part] = &cand.content.parts;
        // Candidate 0 under way, not finished (its first chunk, and every
        // chunk after its finish, take the general path).
        if self.candidates.get(&0).is_none_or(|c| c.finish.is_some()) {
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
        let text: &str = &part.text;
        let mut kind = None;
        let c = self.candidates.entry(0).or_default();
        if part.thought_signature.0.is_some() {
            c.signatures += 1;
        }
        c.parts += 1;
        if thought {
            c.thoughts += 1;
            c.reasoning.push(text);
            kind = Some("reasoning");
            if summaries {
                self.adds
                    .push(format!("[0] thought {:?}", shorten(text, 30)));
            }
        } else {
            c.text.push(text);
            if !text.is_empty() {
                kind = Some("content");
                if summaries {
                    self.adds.push(format!("[0] text {:?}", shorten(text, 30)));
                }
            }
        }
        if let Some(u) = &chunk.usage_metadata.0 {
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
