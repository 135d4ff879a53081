//! What OpenAI Chat Completions calls things (`[DONE]`, keep-alives,
//! chunks, choices), and which of its fields hold text: the vocabulary
//! `diff`, `redact` and `minimize` ask for ([`crate::dialect::words`]).

use crate::dialect::words::{Fault, Words, CHAT_TERMS};

/// The Chat Completions vocabulary.
pub const WORDS: Words = Words {
    terms: CHAT_TERMS,
    end_marker: "[DONE]",
    sentinel: true,
    keepalive: "keepalive",
    event: "chunk",
    answer: None,
    call_unit: None,
    finish: "finish_reason",
    reasoning: "reasoning",
    reasoning_class: "reasoning (extension field)",
    text_keys: &[
        "content",
        "refusal",
        // The reasoning extensions (`REASONING_FIELDS`).
        "reasoning_content",
        "reasoning",
        // An error's text.
        "message",
        // Log probabilities' tokens (their `bytes` follow the scrubbed
        // token) and the audio answer: its transcript and its base64
        // `data` (the spoken answer; letters x and digits 0 keep it
        // base64).
        "token",
        "transcript",
        "data",
        // What annotations and search results quote.
        "title",
        "url",
        // Groq's `executed_tools[].output`: what a server-side tool
        // (search, code) returned.
        "output",
    ],
    json_text_keys: &["arguments"],
    text_objects: &[],
    request_options: &[],
    identifiers: &[
        "object",
        "type",
        "event",
        "model",
        "id",
        "item_id",
        "call_id",
        "name",
        "role",
        "status",
        "finish_reason",
        "stop_reason",
        "system_fingerprint",
        "service_tier",
        "signature",
    ],
    role_only_first_event: true,
    kept: &[],
    faults: &[
        (Fault::CutOff, "cut-off"),
        (Fault::NoEndMarker, "missing-done"),
        (Fault::NoFinish, "missing-finish-reason"),
        (Fault::ErrorEvent, "error-event"),
        (Fault::ErrorShape, "error-shape"),
        (Fault::ArgumentsJson, "tool-call-arguments"),
        (Fault::UsageMissing, "usage-missing"),
        (Fault::UsageMismatch, "usage-mismatch"),
        (Fault::AfterEnd, "data-after-done"),
        (Fault::Schema, "schema"),
        (Fault::UnknownField, "unknown-field"),
        (Fault::FinishValue, "finish-reason-value"),
        (Fault::TokenBudget, "finish-length"),
        // A blank answer says why: a `length` finish (the budget went on
        // reasoning) or a `content_filter` one (the finish tells `diff`).
        (Fault::TokenBudget, "empty-answer"),
        (Fault::Filtered, "empty-answer"),
        (Fault::Refusal, "refusal"),
    ],
};
