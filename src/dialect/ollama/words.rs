//! What Ollama's native API calls things (lines, `done`, `done_reason`,
//! thinking), and which of its fields hold text: the vocabulary `diff`,
//! `redact` and `minimize` ask for ([`crate::dialect::words`]).

use crate::dialect::words::{Fault, Terms, Words};

/// The Ollama vocabulary. The stream's end marker is its `done: true`
/// line, which also carries the finish (`done_reason`) and the counts.
pub const WORDS: Words = Words {
    terms: Terms {
        choice: "message",
        finish: "done_reason",
        reasoning: "thinking",
    },
    end_marker: "done: true",
    sentinel: false,
    keepalive: "keep-alive",
    event: "line",
    answer: Some("message"),
    call_unit: None,
    finish: "done_reason",
    reasoning: "thinking",
    reasoning_class: "thinking",
    text_keys: &[
        // Chat's `message.content`, generate's `response`, and both
        // `thinking` fields.
        "content", "response", "thinking", // An error line's text.
        "error",
    ],
    json_text_keys: &[],
    // A tool call's arguments are a JSON object whose values are the
    // model's (its keys are the tool's parameters).
    text_objects: &["arguments"],
    request_options: &["format"],
    identifiers: &["model", "role", "name", "id", "done_reason", "created_at"],
    role_only_first_event: false,
    kept: &["model", "created_at", "done"],
    faults: &[
        // The `done: true` line is both the end marker and the finish's
        // line: a stream without it is cut off.
        (Fault::CutOff, "ollama-cut-off"),
        (Fault::NoFinish, "ollama-done-reason"),
        (Fault::ErrorEvent, "ollama-error-line"),
        (Fault::ArgumentsJson, "ollama-tool-call"),
        (Fault::UsageMissing, "ollama-counts"),
        (Fault::AfterEnd, "ollama-after-done"),
        (Fault::Schema, "ollama-line-shape"),
        (Fault::TokenBudget, "ollama-length"),
    ],
};
