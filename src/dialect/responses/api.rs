//! OpenAI Responses on the wire (`POST /v1/responses`): the key as a
//! Bearer token, OpenAI's error body, the probe's Responses scenarios,
//! and its `status` on the cross-dialect footing.

use crate::dialect::api::{
    sc, weather_params, Auth, Scenario, DISCONNECT, INVALID, JSON_PROMPT, LENGTH_TOKENS_RESPONSES,
    LONG_PROMPT, LONG_TOKENS, PROMPT, SHORT_TOKENS, TOOL_PROMPT,
};
use serde_json::{json, Map, Value};

/// Responses' [`crate::dialect::Api`].
#[derive(Debug)]
pub struct Api;

const SCENARIOS: &[Scenario] = &[
    sc("plain", "a short text answer", false),
    sc(
        "length",
        "max_output_tokens 16: the response must end incomplete",
        false,
    ),
    sc(
        "tool",
        "one function call forced by tool_choice: the call must come whole",
        true,
    ),
    sc(
        "json",
        "text.format json_object: the answer must be JSON",
        true,
    ),
    sc(
        "long",
        "a longer answer (max_output_tokens 256): TTFT and gaps",
        false,
    ),
    Scenario {
        name: "reasoning",
        about: "reasoning.effort low (only with --reasoning)",
        optional: true,
        reasoning: true,
    },
    INVALID,
    DISCONNECT,
];

impl crate::dialect::Api for Api {
    fn rides_sockets(&self) -> bool {
        true
    }

    fn socket_route(&self, sent: bool, data: &str) -> Option<crate::dialect::api::SocketRoute> {
        super::socket::route(sent, data)
    }

    fn socket_parent(&self, sent: bool, data: &str) -> Option<String> {
        super::socket::parent(sent, data)
    }

    fn auth(&self) -> Auth {
        Auth {
            key_header: "Authorization",
            key_prefix: "Bearer ",
            fixed: &[],
            how: "the key as a Bearer token",
        }
    }

    fn scenarios(&self) -> &'static [Scenario] {
        SCENARIOS
    }

    fn scenario_body(&self, name: &str, model: &str) -> Value {
        let mut b = json!({"model": model, "stream": true, "max_output_tokens": SHORT_TOKENS, "input": PROMPT});
        match name {
            "length" => {
                b["max_output_tokens"] = json!(LENGTH_TOKENS_RESPONSES);
                b["input"] = json!(LONG_PROMPT);
            }
            "tool" => {
                b["input"] = json!(TOOL_PROMPT);
                b["tools"] = json!([{"type": "function", "name": "get_weather", "description": "The weather in a city", "parameters": weather_params()}]);
                b["tool_choice"] = json!({"type": "function", "name": "get_weather"});
            }
            "json" => {
                b["input"] = json!(JSON_PROMPT);
                b["text"] = json!({"format": {"type": "json_object"}});
            }
            "long" => {
                b["max_output_tokens"] = json!(LONG_TOKENS);
                b["input"] = json!(LONG_PROMPT);
            }
            "reasoning" => {
                b["reasoning"] = json!({"effort": "low"});
                b["max_output_tokens"] = json!(LONG_TOKENS);
            }
            "invalid" => b["input"] = json!(42),
            _ => {}
        }
        b
    }

    fn scenario_of(&self, o: &Map<String, Value>) -> Option<&'static str> {
        let has = |k: &str| o.get(k).is_some_and(|v| !v.is_null());
        if !o
            .get("input")
            .is_some_and(|i| i.is_array() || i.is_string())
        {
            return Some("invalid");
        }
        if o.get("tools")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
        {
            return Some("tool");
        }
        if o.get("text").is_some_and(|t| t.get("format").is_some()) {
            return Some("json");
        }
        if has("reasoning") {
            return Some("reasoning");
        }
        None
    }

    fn budget_keys(&self) -> &'static [&'static str] {
        &["max_output_tokens"]
    }

    fn forced_tool(&self, _name: &str) -> &'static str {
        "tool_choice named the function get_weather"
    }

    fn cut_finish(&self) -> &'static str {
        "incomplete (max_output_tokens)"
    }

    fn length_budget(&self) -> String {
        format!("max_output_tokens = {LENGTH_TOKENS_RESPONSES}")
    }

    fn input_key(&self) -> &'static str {
        "input"
    }

    /// `completed` is `stop`, or `tool_calls` with function calls;
    /// `incomplete` is `length`, or `content_filter` for that reason;
    /// `failed` and `cancelled` are `error`.
    fn finish_class(&self, f: &str, finish: &str, has_tool_calls: bool) -> String {
        if f.starts_with("completed") {
            if has_tool_calls { "tool_calls" } else { "stop" }.to_string()
        } else if f.starts_with("incomplete") {
            if f.contains("content_filter") {
                "content_filter".to_string()
            } else {
                "length".to_string()
            }
        } else if f.starts_with("failed") || f.starts_with("cancelled") {
            "error".to_string()
        } else {
            finish.to_string()
        }
    }
}
