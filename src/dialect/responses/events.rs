//! The Responses event catalogue: every event type of the API's union
//! (OpenAI `openapi.yaml` @ f85dbe2, `ResponseStreamEvent`: 58 types) with
//! the fields each one requires besides `type` and `sequence_number`, and
//! the fields of the Response object. Source: the reference's §1.2 table.
//!
//! Each required field carries how much its absence matters, by what
//! clients do with it: [`Need::Walked`] for what the accumulating helpers
//! index or append to (`response`, `item`, `output_index`,
//! `content_index`, `item_id`, `delta`), [`Need::Shape`] for fields a
//! typed client expects, [`Need::Leaf`] for fields that OpenAI's own
//! examples or older servers leave out (`logprobs`, `name` on
//! `function_call_arguments.done`).

use serde_json::Value;

/// How much a missing required field matters (the finding's level).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Clients index or append through it: an error.
    Walked,
    /// The schema requires it and no client of the record has been run
    /// without it: a warning, the rule's default.
    Shape,
    /// Left out by OpenAI's own documentation or older servers: info.
    Leaf,
}

/// The JSON type a field must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A string.
    Str,
    /// A non-negative integer.
    Int,
    /// A number (integer or fraction).
    Num,
    /// An object.
    Obj,
    /// An array.
    Arr,
    /// A string or null.
    StrOrNull,
}

impl Kind {
    /// Whether `v` has this type.
    pub fn fits(self, v: &Value) -> bool {
        match self {
            Kind::Str => v.is_string(),
            Kind::Int => v.is_u64(),
            Kind::Num => v.is_number(),
            Kind::Obj => v.is_object(),
            Kind::Arr => v.is_array(),
            Kind::StrOrNull => v.is_string() || v.is_null(),
        }
    }

    /// The type's name for messages.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Str => "a string",
            Kind::Int => "a non-negative integer",
            Kind::Num => "a number",
            Kind::Obj => "an object",
            Kind::Arr => "an array",
            Kind::StrOrNull => "a string or null",
        }
    }
}

/// One event type: its required fields and the other fields it may carry.
#[derive(Debug)]
pub struct Spec {
    /// The `type` value.
    pub ty: &'static str,
    /// Required fields (besides `type` and `sequence_number`).
    pub required: &'static [(&'static str, Kind, Need)],
    /// Optional fields the schema lists.
    pub optional: &'static [&'static str],
    /// The schema is loose here (the shell events): fields are not checked
    /// for being unknown.
    pub open: bool,
}

use Kind::{Arr, Int, Num, Obj, Str};
use Need::{Leaf, Shape, Walked};

const LIFECYCLE: &[(&str, Kind, Need)] = &[("response", Obj, Walked)];
const ITEM: &[(&str, Kind, Need)] = &[("output_index", Int, Walked), ("item", Obj, Walked)];
const PART: &[(&str, Kind, Need)] = &[
    ("item_id", Str, Walked),
    ("output_index", Int, Walked),
    ("content_index", Int, Walked),
    // Observed (responses-missing-field#8): both stream helpers raise.
    ("part", Obj, Walked),
];
const TEXT_DELTA: &[(&str, Kind, Need)] = &[
    ("item_id", Str, Walked),
    ("output_index", Int, Walked),
    ("content_index", Int, Walked),
    ("delta", Str, Walked),
    ("logprobs", Arr, Leaf),
];
const TEXT_DONE: &[(&str, Kind, Need)] = &[
    ("item_id", Str, Walked),
    ("output_index", Int, Walked),
    ("content_index", Int, Walked),
    // Observed (responses-missing-field#9): openai-node's helper raises.
    ("text", Str, Walked),
    ("logprobs", Arr, Leaf),
];
const ANNOTATION: &[(&str, Kind, Need)] = &[
    ("item_id", Str, Walked),
    ("output_index", Int, Walked),
    ("content_index", Int, Walked),
    ("annotation_index", Int, Shape),
    ("annotation", Obj, Shape),
];
const REFUSAL_DELTA: &[(&str, Kind, Need)] = &[
    ("item_id", Str, Walked),
    ("output_index", Int, Walked),
    ("content_index", Int, Walked),
    ("delta", Str, Walked),
];
const REFUSAL_DONE: &[(&str, Kind, Need)] = &[
    ("item_id", Str, Walked),
    ("output_index", Int, Walked),
    ("content_index", Int, Walked),
    ("refusal", Str, Shape),
];
const ARGS_DELTA: &[(&str, Kind, Need)] = &[
    ("item_id", Str, Walked),
    ("output_index", Int, Walked),
    ("delta", Str, Walked),
];
const ARGS_DONE: &[(&str, Kind, Need)] = &[
    ("item_id", Str, Walked),
    ("output_index", Int, Walked),
    ("arguments", Str, Shape),
    ("name", Str, Leaf),
];
const INPUT_DONE: &[(&str, Kind, Need)] = &[
    ("item_id", Str, Walked),
    ("output_index", Int, Walked),
    ("input", Str, Shape),
];
const MCP_ARGS_DONE: &[(&str, Kind, Need)] = &[
    ("item_id", Str, Walked),
    ("output_index", Int, Walked),
    ("arguments", Str, Shape),
];
const SCOPED: &[(&str, Kind, Need)] = &[("item_id", Str, Shape), ("output_index", Int, Shape)];
const SUMMARY_PART: &[(&str, Kind, Need)] = &[
    ("item_id", Str, Walked),
    ("output_index", Int, Walked),
    ("summary_index", Int, Walked),
    ("part", Obj, Shape),
];
const SUMMARY_DELTA: &[(&str, Kind, Need)] = &[
    ("item_id", Str, Walked),
    ("output_index", Int, Walked),
    ("summary_index", Int, Walked),
    ("delta", Str, Walked),
];
const SUMMARY_DONE: &[(&str, Kind, Need)] = &[
    ("item_id", Str, Walked),
    ("output_index", Int, Walked),
    ("summary_index", Int, Walked),
    ("text", Str, Shape),
];
const REASONING_DELTA: &[(&str, Kind, Need)] = &[
    ("item_id", Str, Walked),
    ("output_index", Int, Walked),
    ("content_index", Int, Walked),
    ("delta", Str, Walked),
];
const REASONING_DONE: &[(&str, Kind, Need)] = &[
    ("item_id", Str, Walked),
    ("output_index", Int, Walked),
    ("content_index", Int, Walked),
    ("text", Str, Shape),
];
const AUDIO_DELTA: &[(&str, Kind, Need)] = &[("delta", Str, Shape)];
const AUDIO_DONE: &[(&str, Kind, Need)] = &[("response_id", Str, Shape)];
const TRANSCRIPT_DELTA: &[(&str, Kind, Need)] =
    &[("delta", Str, Shape), ("response_id", Str, Shape)];
const CODE_DELTA: &[(&str, Kind, Need)] = &[
    ("item_id", Str, Shape),
    ("output_index", Int, Shape),
    ("delta", Str, Shape),
];
const CODE_DONE: &[(&str, Kind, Need)] = &[
    ("item_id", Str, Shape),
    ("output_index", Int, Shape),
    ("code", Str, Shape),
];
const PARTIAL_IMAGE: &[(&str, Kind, Need)] = &[
    ("item_id", Str, Shape),
    ("output_index", Int, Shape),
    ("partial_image_index", Int, Shape),
    ("partial_image_b64", Str, Shape),
];
const SHELL: &[(&str, Kind, Need)] = &[("output_index", Int, Shape)];
const NONE: &[(&str, Kind, Need)] = &[];

const fn spec(ty: &'static str, required: &'static [(&'static str, Kind, Need)]) -> Spec {
    Spec {
        ty,
        required,
        optional: &[],
        open: false,
    }
}

/// The event types of the union, in the reference's order.
pub const EVENTS: &[Spec] = &[
    spec("response.created", LIFECYCLE),
    spec("response.queued", LIFECYCLE),
    spec("response.in_progress", LIFECYCLE),
    spec("response.completed", LIFECYCLE),
    spec("response.failed", LIFECYCLE),
    spec("response.incomplete", LIFECYCLE),
    spec("response.output_item.added", ITEM),
    spec("response.output_item.done", ITEM),
    spec("response.content_part.added", PART),
    spec("response.content_part.done", PART),
    spec("response.output_text.delta", TEXT_DELTA),
    spec("response.output_text.done", TEXT_DONE),
    spec("response.output_text.annotation.added", ANNOTATION),
    spec("response.refusal.delta", REFUSAL_DELTA),
    spec("response.refusal.done", REFUSAL_DONE),
    spec("response.function_call_arguments.delta", ARGS_DELTA),
    spec("response.function_call_arguments.done", ARGS_DONE),
    spec("response.custom_tool_call_input.delta", ARGS_DELTA),
    spec("response.custom_tool_call_input.done", INPUT_DONE),
    spec("response.mcp_call_arguments.delta", ARGS_DELTA),
    spec("response.mcp_call_arguments.done", MCP_ARGS_DONE),
    spec("response.mcp_call.in_progress", SCOPED),
    spec("response.mcp_call.completed", SCOPED),
    spec("response.mcp_call.failed", SCOPED),
    spec("response.mcp_list_tools.in_progress", SCOPED),
    spec("response.mcp_list_tools.completed", SCOPED),
    spec("response.mcp_list_tools.failed", SCOPED),
    spec("response.reasoning_summary_part.added", SUMMARY_PART),
    spec("response.reasoning_summary_part.done", SUMMARY_PART),
    spec("response.reasoning_summary_text.delta", SUMMARY_DELTA),
    spec("response.reasoning_summary_text.done", SUMMARY_DONE),
    spec("response.reasoning_text.delta", REASONING_DELTA),
    spec("response.reasoning_text.done", REASONING_DONE),
    Spec {
        ty: "response.audio.delta",
        required: AUDIO_DELTA,
        optional: &["response_id"],
        open: false,
    },
    spec("response.audio.done", AUDIO_DONE),
    spec("response.audio.transcript.delta", TRANSCRIPT_DELTA),
    spec("response.audio.transcript.done", AUDIO_DONE),
    spec("response.file_search_call.in_progress", SCOPED),
    spec("response.file_search_call.searching", SCOPED),
    spec("response.file_search_call.completed", SCOPED),
    spec("response.web_search_call.in_progress", SCOPED),
    spec("response.web_search_call.searching", SCOPED),
    spec("response.web_search_call.completed", SCOPED),
    spec("response.code_interpreter_call.in_progress", SCOPED),
    spec("response.code_interpreter_call.interpreting", SCOPED),
    spec("response.code_interpreter_call.completed", SCOPED),
    spec("response.code_interpreter_call_code.delta", CODE_DELTA),
    spec("response.code_interpreter_call_code.done", CODE_DONE),
    spec("response.image_generation_call.in_progress", SCOPED),
    spec("response.image_generation_call.generating", SCOPED),
    spec("response.image_generation_call.completed", SCOPED),
    spec(
        "response.image_generation_call.partial_image",
        PARTIAL_IMAGE,
    ),
    Spec {
        ty: "response.shell_call_command.added",
        required: SHELL,
        optional: &[],
        open: true,
    },
    Spec {
        ty: "response.shell_call_command.delta",
        required: SHELL,
        optional: &[],
        open: true,
    },
    Spec {
        ty: "response.shell_call_command.done",
        required: SHELL,
        optional: &[],
        open: true,
    },
    Spec {
        ty: "response.shell_call_output_content.delta",
        required: SHELL,
        optional: &[],
        open: true,
    },
    Spec {
        ty: "response.shell_call_output_content.done",
        required: SHELL,
        optional: &[],
        open: true,
    },
    // The error event's fields come in two shapes (flat or nested in
    // `error`): `responses-error-shape` judges them, not the field rules.
    Spec {
        ty: "error",
        required: NONE,
        optional: &["code", "message", "param", "error"],
        open: false,
    },
];

/// Event types outside the union that clients accept as they are:
/// `keepalive` (a keep-alive event some servers send between events).
pub const TOLERATED: &[&str] = &["keepalive"];

/// Fields every event may carry: `type`, `sequence_number`, and
/// `obfuscation` (random padding OpenAI adds to delta events unless
/// `stream_options.include_obfuscation` is false; no schema lists it).
pub const COMMON: &[&str] = &["type", "sequence_number", "obfuscation"];

/// The spec of event type `ty` (a hash lookup: it runs on every event).
pub fn spec_of(ty: &str) -> Option<&'static Spec> {
    static BY_TYPE: std::sync::OnceLock<std::collections::HashMap<&'static str, &'static Spec>> =
        std::sync::OnceLock::new();
    BY_TYPE
        .get_or_init(|| EVENTS.iter().map(|s| (s.ty, s)).collect())
        .get(ty)
        .copied()
}

/// Whether `field` is one `spec`'s events may carry.
pub fn allowed(spec: &Spec, field: &str) -> bool {
    spec.open
        || COMMON.contains(&field)
        || spec.required.iter().any(|(f, _, _)| *f == field)
        || spec.optional.contains(&field)
}

/// The terminal event types.
pub const TERMINAL: &[&str] = &[
    "response.completed",
    "response.incomplete",
    "response.failed",
];

/// Fields of the Response object that clients walk (an error when absent
/// or of another type on a terminal event: code that iterates `output`
/// raises on a missing one, decolua/9router#705).
pub const RESPONSE_WALKED: &[(&str, Kind)] = &[("output", Arr)];

/// Fields of the Response object in `response.created` and
/// `response.in_progress` that a client validates before it reads on: the
/// Vercel AI SDK's `@ai-sdk/openai` raises a type validation error without
/// them (observed: rules/observed.json, responses-missing-field#7).
pub const RESPONSE_VALIDATED: &[(&str, Kind)] = &[("id", Str), ("created_at", Num), ("model", Str)];

/// The other fields the Response schema requires; servers other than
/// OpenAI leave some out, and no client the reference observed reads
/// them, so their absence is info.
pub const RESPONSE_REQUIRED: &[&str] = &[
    "id",
    "object",
    "created_at",
    "model",
    "error",
    "incomplete_details",
    "instructions",
    "tools",
    "parallel_tool_calls",
    "metadata",
    "tool_choice",
    "temperature",
    "top_p",
];

/// Every field of the Response object the schema describes (for
/// `responses-unknown-field`).
pub const RESPONSE_FIELDS: &[&str] = &[
    "id",
    "object",
    "created_at",
    "completed_at",
    "status",
    "background",
    "billing",
    "conversation",
    "error",
    "incomplete_details",
    "instructions",
    "max_output_tokens",
    "max_tool_calls",
    "model",
    "output",
    "output_text",
    "parallel_tool_calls",
    "previous_response_id",
    "prompt",
    "prompt_cache_key",
    "prompt_cache_retention",
    "reasoning",
    "safety_identifier",
    "service_tier",
    "store",
    "temperature",
    "text",
    "tool_choice",
    "tools",
    "top_logprobs",
    "top_p",
    "truncation",
    "usage",
    "user",
    "metadata",
];

/// The Response `status` values.
pub const STATUSES: &[&str] = &[
    "completed",
    "failed",
    "in_progress",
    "cancelled",
    "queued",
    "incomplete",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_holds_the_58_types_of_the_union_once_each() {
        assert_eq!(EVENTS.len(), 58);
        let mut seen = std::collections::BTreeSet::new();
        for s in EVENTS {
            assert!(seen.insert(s.ty), "{} twice", s.ty);
        }
        assert!(spec_of("response.output_text.delta").is_some());
        assert!(spec_of("response.done").is_none());
        let delta = spec_of("response.output_text.delta").unwrap();
        assert!(allowed(delta, "obfuscation") && allowed(delta, "logprobs"));
        assert!(!allowed(delta, "content_filters"));
    }
}
