//! What Anthropic Messages calls things (`message_stop`, `ping`, content
//! blocks, thinking), and which of its fields hold text: the vocabulary
//! `diff`, `redact` and `minimize` ask for ([`crate::dialect::words`]).

use crate::dialect::words::{Fault, Words, CHAT_TERMS};

/// The faults Messages' rules report, by the neutral names `diff`
/// compares across dialects.
pub const FAULTS: [(Fault, &str); 11] = [
    (Fault::CutOff, "messages-cut-off"),
    (Fault::NoEndMarker, "messages-stop-missing"),
    (Fault::NoFinish, "messages-stop-reason"),
    (Fault::ErrorEvent, "messages-error-event"),
    (Fault::ArgumentsJson, "messages-tool-input"),
    (Fault::UsageMissing, "messages-usage-missing"),
    (Fault::AfterEnd, "messages-after-stop"),
    (Fault::Schema, "messages-schema"),
    (Fault::UnknownField, "messages-unknown-field"),
    (Fault::UsageDecreasing, "messages-usage-decreasing"),
    (Fault::TokenBudget, "messages-max-tokens"),
];

/// The Messages vocabulary.
pub const WORDS: Words = Words {
    terms: CHAT_TERMS,
    end_marker: "message_stop",
    sentinel: false,
    keepalive: "ping",
    event: "event",
    answer: Some("message"),
    call_unit: Some("content block"),
    finish: "stop_reason",
    reasoning: "thinking",
    reasoning_class: "thinking",
    text_keys: &[
        // `text` blocks and `text_delta`, `thinking` blocks and
        // `thinking_delta`.
        "text",
        "thinking",
        // An error's text (`error.message`).
        "message",
        // What citations and web search results quote.
        "cited_text",
        "title",
        "url",
        // A server tool's input when it arrives whole
        // (`server_tool_use.input.query`).
        "query",
    ],
    // `input_json_delta` fragments.
    json_text_keys: &["partial_json"],
    text_objects: &[],
    request_options: &[],
    identifiers: &[
        "type",
        "id",
        "model",
        "name",
        "role",
        "stop_reason",
        "signature",
        "tool_use_id",
    ],
    role_only_first_event: false,
    kept: &["type", "id", "model"],
    faults: &FAULTS,
};
