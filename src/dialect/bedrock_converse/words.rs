//! What Bedrock's ConverseStream calls things (content blocks,
//! `stopReason`, `reasoningContent`), and which of its fields hold text:
//! the vocabulary `diff`, `redact` and `minimize` ask for
//! ([`crate::dialect::words`]).

use crate::dialect::words::{Fault, Terms, Words};

/// The ConverseStream vocabulary.
pub const WORDS: Words = Words {
    terms: Terms {
        choice: "message",
        finish: "stopReason",
        reasoning: "reasoningContent",
    },
    end_marker: "messageStop",
    sentinel: false,
    keepalive: "keep-alive",
    event: "frame",
    answer: Some("message"),
    call_unit: Some("content block"),
    finish: "stopReason",
    reasoning: "reasoningContent",
    reasoning_class: "reasoning",
    // `delta.text`, `reasoningContent.text`, an exception's `message`.
    text_keys: &["text", "message"],
    // `toolUse.input` pieces.
    json_text_keys: &["input"],
    text_objects: &[],
    request_options: &[],
    identifiers: &["role", "toolUseId", "name", "stopReason", "signature"],
    role_only_first_event: true,
    kept: &["contentBlockIndex"],
    faults: &[
        (Fault::CutOff, "converse-cut-off"),
        (Fault::ErrorEvent, "converse-exception"),
        (Fault::ArgumentsJson, "converse-tool-input"),
        (Fault::Frame, "converse-frame"),
        // A frame the body ends inside is the stream's cut.
        (Fault::CutOff, "converse-frame"),
    ],
};
