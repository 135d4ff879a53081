//! Anthropic Messages on the wire (`POST /v1/messages`): the key as
//! `x-api-key` with `anthropic-version`, Anthropic's error body, the
//! probe's Messages scenarios, and its `stop_reason` and usage on the
//! cross-dialect footing.

use crate::dialect::api::{
    sc, weather_params, Auth, Scenario, UsageCounts, DISCONNECT, INVALID, LENGTH_TOKENS,
    LONG_PROMPT, LONG_TOKENS, PROMPT, SHORT_TOKENS, STOP_SEQUENCE, TOOL_PROMPT,
};
use serde_json::{json, Map, Value};

/// The `anthropic-version` sent to a Messages endpoint when no `-H` gives
/// one (Anthropic API reference, "Versions": the current version).
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// Messages' [`crate::dialect::Api`].
#[derive(Debug)]
pub struct Api;

const SCENARIOS: &[Scenario] = &[
    sc("plain", "a short text answer", false),
    sc(
        "length",
        "max_tokens 5: the message must stop with max_tokens",
        false,
    ),
    sc("stop", "stop_sequences", true),
    sc(
        "tool",
        "one tool use forced by tool_choice: the call must come whole",
        true,
    ),
    sc(
        "long",
        "a longer answer (max_tokens 256): TTFT and gaps",
        false,
    ),
    Scenario {
        name: "thinking",
        about: "extended thinking, budget 1024 (only with --reasoning)",
        optional: true,
        reasoning: true,
    },
    INVALID,
    DISCONNECT,
];

impl crate::dialect::Api for Api {
    /// Anthropic's SDKs add `/v1/messages` to the origin.
    fn sdk_base(&self) -> &'static str {
        ""
    }

    fn auth(&self) -> Auth {
        Auth {
            key_header: "x-api-key",
            key_prefix: "",
            fixed: &[("anthropic-version", ANTHROPIC_VERSION)],
            how: "the key as x-api-key, with anthropic-version",
        }
    }

    /// `{"type":"error","error":{"type":…,"message":…}}`.
    fn error_body(&self, kind: &str, message: &str) -> String {
        let message = Value::String(message.to_string()).to_string();
        let kind = Value::String(kind.to_string()).to_string();
        format!(r#"{{"type":"error","error":{{"type":{kind},"message":{message}}}}}"#)
    }

    fn not_found_kind(&self) -> &'static str {
        "not_found_error"
    }

    fn scenarios(&self) -> &'static [Scenario] {
        SCENARIOS
    }

    fn scenario_body(&self, name: &str, model: &str) -> Value {
        let user = |text: &str| json!([{"role": "user", "content": text}]);
        let mut b = json!({"model": model, "stream": true, "max_tokens": SHORT_TOKENS, "messages": user(PROMPT)});
        match name {
            "length" => {
                b["max_tokens"] = json!(LENGTH_TOKENS);
                b["messages"] = user(LONG_PROMPT);
            }
            "stop" => {
                b["messages"] = user(LONG_PROMPT);
                b["stop_sequences"] = json!([STOP_SEQUENCE]);
            }
            "tool" => {
                b["messages"] = user(TOOL_PROMPT);
                b["tools"] = json!([{"name": "get_weather", "description": "The weather in a city", "input_schema": weather_params()}]);
                b["tool_choice"] = json!({"type": "tool", "name": "get_weather"});
            }
            "long" => {
                b["max_tokens"] = json!(LONG_TOKENS);
                b["messages"] = user(LONG_PROMPT);
            }
            // Anthropic: budget_tokens at least 1024, max_tokens above it.
            "thinking" => {
                b["thinking"] = json!({"type": "enabled", "budget_tokens": 1024});
                b["max_tokens"] = json!(1100);
            }
            "invalid" => b["messages"] = json!(42),
            _ => {}
        }
        b
    }

    fn scenario_of(&self, o: &Map<String, Value>) -> Option<&'static str> {
        let has = |k: &str| o.get(k).is_some_and(|v| !v.is_null());
        if !o.get("messages").is_some_and(Value::is_array) {
            return Some("invalid");
        }
        if o.get("tools")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
        {
            return Some("tool");
        }
        if o.get("thinking")
            .and_then(|t| t.get("type"))
            .and_then(Value::as_str)
            == Some("enabled")
        {
            return Some("thinking");
        }
        if has("stop_sequences") {
            return Some("stop");
        }
        None
    }

    fn forced_tool(&self, _name: &str) -> &'static str {
        "tool_choice named the tool get_weather"
    }

    fn cut_finish(&self) -> &'static str {
        "max_tokens"
    }

    fn stop_key(&self) -> &'static str {
        "stop_sequences"
    }

    /// `end_turn` and `stop_sequence` are `stop`; `max_tokens` and
    /// `model_context_window_exceeded` are `length`; `tool_use` is
    /// `tool_calls`; `refusal` is `content_filter`.
    fn finish_class(&self, f: &str, finish: &str, _has_tool_calls: bool) -> String {
        match f {
            "end_turn" | "stop_sequence" => "stop".to_string(),
            "max_tokens" | "model_context_window_exceeded" => "length".to_string(),
            "tool_use" => "tool_calls".to_string(),
            "refusal" => "content_filter".to_string(),
            _ => finish.to_string(),
        }
    }

    /// The input is `input_tokens` plus `cache_read_input_tokens` plus
    /// `cache_creation_input_tokens`; no total, so input plus output.
    fn usage_apart(&self, u: &Value) -> Option<UsageCounts> {
        let n = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64);
        let sum = |i: Option<u64>, o: Option<u64>| Some(i?.saturating_add(o?));
        let output = n(u, "output_tokens");
        let (read, write) = (
            n(u, "cache_read_input_tokens"),
            n(u, "cache_creation_input_tokens"),
        );
        let input = n(u, "input_tokens").map(|i| {
            i.saturating_add(read.unwrap_or(0))
                .saturating_add(write.unwrap_or(0))
        });
        Some(UsageCounts {
            input,
            output,
            total: sum(input, output),
            cached: read,
            cache_write: write,
        })
    }

    fn cache_apart(&self) -> bool {
        true
    }

    fn usage_total(&self) -> bool {
        false
    }
}
