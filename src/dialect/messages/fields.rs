//! What the Messages API defines: event types, the fields of each event
//! and of the objects inside it, `stop_reason` values, error types, and the
//! events providers add. Source: the SDK types the reference lists
//! (reference §2.2, `anthropic-sdk-python` `src/anthropic/types/*.py`) and
//! the streaming guide.

/// The event types of the streaming guide ("Event types").
pub const EVENT_TYPES: &[&str] = &[
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "ping",
    "error",
];

/// The event names clients dispatch on (reference §3.2): an event with
/// another name (or none) is dropped, `ping` is ignored, `error` raises.
pub const DISPATCHED: &[&str] = &[
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
];

/// `stop_reason` values (`types/stop_reason.py`).
pub const STOP_REASONS: &[&str] = &[
    "end_turn",
    "max_tokens",
    "stop_sequence",
    "tool_use",
    "pause_turn",
    "refusal",
    "model_context_window_exceeded",
];

/// `error.type` values (`types/beta_error.py`).
pub const ERROR_TYPES: &[&str] = &[
    "invalid_request_error",
    "authentication_error",
    "billing_error",
    "permission_error",
    "not_found_error",
    "rate_limit_error",
    "timeout_error",
    "api_error",
    "overloaded_error",
];

/// Content block types (reference §2.2), including the server tool result
/// blocks that arrive whole and the beta `compaction` and `fallback`.
pub const BLOCK_TYPES: &[&str] = &[
    "text",
    "thinking",
    "redacted_thinking",
    "tool_use",
    "server_tool_use",
    "mcp_tool_use",
    "mcp_tool_result",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "code_execution_tool_result",
    "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result",
    "tool_search_tool_result",
    "container_upload",
    "compaction",
    "fallback",
];

/// Delta types and the block types each belongs in.
pub const DELTA_TYPES: &[(&str, &[&str])] = &[
    ("text_delta", &["text"]),
    ("citations_delta", &["text"]),
    (
        "input_json_delta",
        &["tool_use", "server_tool_use", "mcp_tool_use"],
    ),
    ("thinking_delta", &["thinking"]),
    ("signature_delta", &["thinking"]),
    ("compaction_delta", &["compaction"]),
];

/// Events that a provider adds to its Messages streams, with the profile
/// that describes it: Vertex AI's `vertex_event` carries usage
/// (vercel/ai#11309, envoyproxy/ai-gateway#1187).
pub const VENDOR_EVENTS: &[(&str, &str)] = &[("vertex_event", "vertex-anthropic")];

/// The known keys of each object a Messages event holds, by a pattern
/// naming the object: the event type for the top level
/// (`message_start`), `message`, `usage`, `message_delta.delta`,
/// `block:TYPE`, `delta:TYPE`, `error`.
pub fn known_keys(object: &str) -> Option<&'static [&'static str]> {
    Some(match object {
        "message_start" => &["type", "message"],
        "content_block_start" => &["type", "index", "content_block"],
        "content_block_delta" => &["type", "index", "delta"],
        "content_block_stop" => &["type", "index"],
        "message_delta" => &["type", "delta", "usage", "context_management"],
        "message_stop" => &["type"],
        "ping" => &["type"],
        "error" => &["type", "error", "request_id"],
        "message" => &[
            "id",
            "type",
            "role",
            "content",
            "model",
            "stop_reason",
            "stop_sequence",
            "stop_details",
            "usage",
            "container",
            "context_management",
        ],
        "usage" => &[
            "input_tokens",
            "output_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
            "cache_creation",
            "service_tier",
            "server_tool_use",
            "inference_geo",
            "output_tokens_details",
        ],
        "message_delta.delta" => &["stop_reason", "stop_sequence", "stop_details", "container"],
        "block:text" => &["type", "text", "citations"],
        "block:thinking" => &["type", "thinking", "signature"],
        "block:redacted_thinking" => &["type", "data"],
        "block:tool_use" | "block:server_tool_use" => &["type", "id", "name", "input", "caller"],
        "delta:text_delta" => &["type", "text"],
        "delta:input_json_delta" => &["type", "partial_json"],
        "delta:citations_delta" => &["type", "citation"],
        "delta:thinking_delta" => &["type", "thinking"],
        "delta:signature_delta" => &["type", "signature"],
        "error.error" => &["type", "message", "details"],
        _ => return None,
    })
}

/// The block types a delta type belongs in; `None` for a delta type this
/// dialect does not define.
pub fn delta_blocks(delta: &str) -> Option<&'static [&'static str]> {
    DELTA_TYPES
        .iter()
        .find(|(d, _)| *d == delta)
        .map(|(_, blocks)| *blocks)
}

/// The profile that describes a provider event type (`vertex_event`).
pub fn vendor_event(event: &str) -> Option<&'static str> {
    VENDOR_EVENTS
        .iter()
        .find(|(e, _)| *e == event)
        .map(|(_, p)| *p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_type_has_its_keys_and_every_delta_its_block() {
        for t in EVENT_TYPES {
            assert!(known_keys(t).is_some(), "{t}");
        }
        for (d, blocks) in DELTA_TYPES {
            assert!(blocks.iter().all(|b| BLOCK_TYPES.contains(b)), "{d}");
        }
        assert_eq!(delta_blocks("text_delta"), Some(&["text"][..]));
        assert_eq!(delta_blocks("nope"), None);
        assert_eq!(vendor_event("vertex_event"), Some("vertex-anthropic"));
    }
}
