//! What OpenAI's Realtime API calls things (a response's `status`, output
//! items, the audio transcript), and which of its fields hold text or
//! audio: the vocabulary `diff`, `redact` and `minimize` ask for
//! ([`crate::dialect::words`]).

use crate::dialect::words::{Fault, Words, CHAT_TERMS};

/// The Realtime vocabulary. A response ends with `response.done`, which
/// carries its `status`.
pub const WORDS: Words = Words {
    terms: CHAT_TERMS,
    end_marker: "response.done",
    sentinel: false,
    keepalive: "keepalive",
    event: "event",
    answer: Some("response"),
    call_unit: Some("output item"),
    finish: "status",
    reasoning: "reasoning",
    reasoning_class: "reasoning",
    text_keys: &[
        // Text deltas and audio deltas (`delta`: text, or base64 audio,
        // scrubbed alike), done text, transcripts, the session's
        // instructions, input audio (`audio`, base64), a function call
        // output, and an error's text.
        "delta",
        "text",
        "transcript",
        "instructions",
        "audio",
        "output",
        "message",
        "description",
    ],
    json_text_keys: &["arguments"],
    text_objects: &[],
    request_options: &[],
    identifiers: &[
        "type",
        "event_id",
        "id",
        "object",
        "model",
        "response_id",
        "item_id",
        "previous_item_id",
        "call_id",
        "name",
        "role",
        "status",
        "voice",
    ],
    role_only_first_event: false,
    kept: &[
        "type",
        "event_id",
        "response_id",
        "item_id",
        "output_index",
        "content_index",
    ],
    faults: &[
        // On a socket, `ws-closed-mid-response` stands in its place.
        (Fault::CutOff, "realtime-done-missing"),
        (Fault::ErrorEvent, "realtime-error-event"),
        (Fault::ArgumentsJson, "realtime-arguments-json"),
        (Fault::UsageMissing, "realtime-usage"),
    ],
};
