//! Chat Completions on the wire (`POST /v1/chat/completions`): the key as
//! a Bearer token, usage asked for with `stream_options.include_usage`,
//! OpenAI's error body, and the probe's Chat scenarios.

use crate::dialect::api::{
    sc, weather_params, Auth, Scenario, DISCONNECT, INVALID, JSON_PROMPT, LENGTH_TOKENS,
    LONG_PROMPT, LONG_TOKENS, PARALLEL_PROMPT, PROMPT, SHORT_TOKENS, STOP_SEQUENCE, TOOL_PROMPT,
};
use serde_json::{json, Map, Value};

/// Chat's [`crate::dialect::Api`].
#[derive(Debug)]
pub struct Api;

const SCENARIOS: &[Scenario] = &[
    sc("plain", "a short text answer", false),
    sc(
        "usage",
        "stream_options.include_usage: a usage chunk must come",
        false,
    ),
    sc(
        "length",
        "max_tokens 5: the answer must end with finish_reason length",
        false,
    ),
    sc("stop", "a stop sequence", true),
    sc(
        "tool",
        "one tool call forced by tool_choice: the call must come whole",
        true,
    ),
    sc(
        "parallel-tools",
        "two tools, tool_choice required, parallel_tool_calls",
        true,
    ),
    sc("n2", "n: 2: two choices must come", true),
    sc(
        "json",
        "response_format json_object: the answer must be JSON",
        true,
    ),
    sc(
        "long",
        "a longer answer (max_tokens 256): TTFT and gaps",
        false,
    ),
    Scenario {
        name: "reasoning",
        about: "reasoning_effort low (only with --reasoning)",
        optional: true,
        reasoning: true,
    },
    INVALID,
    DISCONNECT,
];

fn tool(name: &str, about: &str) -> Value {
    json!({"type": "function", "function": {"name": name, "description": about, "parameters": weather_params()}})
}

impl crate::dialect::Api for Api {
    /// Its `object` (`chat.completion.chunk`), else its `choices` (a
    /// chunk without an `object`, or with an empty one).
    fn shown_by(&self, data: &Value) -> Option<String> {
        let object = data
            .get("object")
            .and_then(Value::as_str)
            .filter(|o| !o.is_empty());
        match object {
            Some(o) => Some(o.to_string()),
            None => data.get("choices").map(|_| "choices".to_string()),
        }
    }

    fn auth(&self) -> Auth {
        Auth {
            key_header: "Authorization",
            key_prefix: "Bearer ",
            fixed: &[],
            how: "the key as a Bearer token, stream_options added",
        }
    }

    fn prepare(&self, body: &mut Map<String, Value>, include_usage: bool) {
        if include_usage {
            let so = body.entry("stream_options").or_insert_with(|| json!({}));
            if let Some(so) = so.as_object_mut() {
                so.entry("include_usage").or_insert(Value::Bool(true));
            }
        }
    }

    fn scenarios(&self) -> &'static [Scenario] {
        SCENARIOS
    }

    fn scenario_body(&self, name: &str, model: &str) -> Value {
        let user = |text: &str| json!([{"role": "user", "content": text}]);
        let mut b = json!({"model": model, "stream": true, "max_tokens": SHORT_TOKENS, "messages": user(PROMPT)});
        match name {
            "usage" => b["stream_options"] = json!({"include_usage": true}),
            "length" => {
                b["max_tokens"] = json!(LENGTH_TOKENS);
                b["messages"] = user(LONG_PROMPT);
            }
            "stop" => {
                b["messages"] = user(LONG_PROMPT);
                b["stop"] = json!([STOP_SEQUENCE]);
            }
            "tool" => {
                b["messages"] = user(TOOL_PROMPT);
                b["tools"] = json!([tool("get_weather", "The weather in a city")]);
                b["tool_choice"] = json!({"type": "function", "function": {"name": "get_weather"}});
            }
            "parallel-tools" => {
                b["messages"] = user(PARALLEL_PROMPT);
                b["tools"] = json!([
                    tool("get_weather", "The weather in a city"),
                    tool("get_time", "The local time in a city")
                ]);
                b["tool_choice"] = json!("required");
                b["parallel_tool_calls"] = json!(true);
            }
            "n2" => b["n"] = json!(2),
            "json" => {
                b["messages"] = user(JSON_PROMPT);
                b["response_format"] = json!({"type": "json_object"});
            }
            "long" => {
                b["max_tokens"] = json!(LONG_TOKENS);
                b["messages"] = user(LONG_PROMPT);
            }
            "reasoning" => {
                b["reasoning_effort"] = json!("low");
                b["max_tokens"] = json!(LONG_TOKENS);
            }
            // `messages` must be an array: every Chat server rejects a number.
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
        if o.get("n").and_then(Value::as_u64).unwrap_or(1) >= 2 {
            return Some("n2");
        }
        if o.get("tools")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
        {
            let required = o.get("tool_choice").and_then(Value::as_str) == Some("required");
            let parallel = o.get("parallel_tool_calls").and_then(Value::as_bool) == Some(true);
            return Some(if required && parallel {
                "parallel-tools"
            } else {
                "tool"
            });
        }
        if has("response_format") {
            return Some("json");
        }
        if has("reasoning_effort") || has("reasoning") {
            return Some("reasoning");
        }
        if has("stop") {
            return Some("stop");
        }
        None
    }

    fn budget_rename(&self) -> Option<(&'static str, &'static str)> {
        Some(("max_tokens", "max_completion_tokens"))
    }

    fn forced_tool(&self, name: &str) -> &'static str {
        if name == "tool" {
            "tool_choice named get_weather"
        } else {
            "tool_choice was required"
        }
    }

    fn cut_finish(&self) -> &'static str {
        "length"
    }

    fn field_class(&self, pointer: &str) -> String {
        use crate::lint::profile::{provider_list, providers_of};
        if super::chunk::is_openai_field(pointer) {
            return "openai-schema".to_string();
        }
        let ps = providers_of(crate::dialect::Dialect::Chat, pointer);
        if ps.is_empty() {
            "unknown".to_string()
        } else {
            format!("extension ({})", provider_list(&ps))
        }
    }
}
