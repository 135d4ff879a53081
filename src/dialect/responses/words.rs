//! What OpenAI Responses calls things (output items, reasoning, the
//! response's `status`), and which of its fields hold text: the
//! vocabulary `diff`, `redact` and `minimize` ask for
//! ([`crate::dialect::words`]).

use crate::dialect::words::{Fault, Words, CHAT_TERMS};

/// The Responses vocabulary. Its end is the terminal event
/// (`response.completed`, shown as the `finish` kind); `[DONE]` is what
/// some gateways add after it, and is named as such.
pub const WORDS: Words = Words {
    terms: CHAT_TERMS,
    end_marker: "[DONE]",
    sentinel: false,
    keepalive: "keepalive",
    event: "event",
    answer: Some("response"),
    call_unit: Some("output item"),
    finish: "status",
    reasoning: "reasoning",
    reasoning_class: "reasoning",
    text_keys: &[
        // `output_text` parts and the text deltas (`delta` is a string
        // here), the instructions echoed in the Response object, and a
        // reasoning item's `encrypted_content` (Ollama puts the thinking
        // there in plain text).
        "text",
        "delta",
        "instructions",
        "encrypted_content",
        // A `custom_tool_call`'s input (its deltas are `delta`s), in
        // `response.custom_tool_call_input.done`, the item and the
        // terminal response's `output`.
        "input",
        // A `web_search_call`'s `action.query` (and `queries`), and what
        // an `mcp_call` returned.
        "query",
        "queries",
        "output",
        // An error's text, log probabilities' tokens, what annotations
        // quote, and tool descriptions echoed in `tools`.
        "message",
        "token",
        "title",
        "url",
        "description",
    ],
    // A function call's (and an MCP call's) arguments; their deltas are
    // told by the event type (`…_arguments.delta`).
    json_text_keys: &["arguments"],
    text_objects: &[],
    request_options: &[],
    identifiers: &[
        "type",
        "id",
        "object",
        "model",
        "item_id",
        "call_id",
        "name",
        "role",
        "status",
        "service_tier",
    ],
    role_only_first_event: false,
    kept: &[
        "type",
        "sequence_number",
        "id",
        "item_id",
        "output_index",
        "content_index",
        "summary_index",
    ],
    faults: &[
        (Fault::CutOff, "responses-cut-off"),
        (Fault::ErrorEvent, "responses-error-event"),
        (Fault::ErrorShape, "responses-error-shape"),
        (Fault::ArgumentsJson, "responses-arguments-json"),
        (Fault::UsageMissing, "responses-usage-missing"),
        (Fault::UsageMismatch, "responses-usage-mismatch"),
        (Fault::AfterEnd, "responses-after-terminal"),
        (Fault::Schema, "responses-missing-field"),
        (Fault::UnknownField, "responses-unknown-field"),
        // `response.incomplete` says why: `max_output_tokens` or
        // `content_filter` (the finish tells `diff` which).
        (Fault::TokenBudget, "responses-incomplete"),
        (Fault::Filtered, "responses-incomplete"),
        (Fault::Refusal, "responses-refusal"),
    ],
};
