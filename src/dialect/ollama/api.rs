//! Ollama's native API on the wire (`POST /api/chat`, `/api/generate`,
//! `http://localhost:11434` by default): no key (a local server; a proxy
//! in front may want a Bearer token), streaming by default, NDJSON lines,
//! `{"error": "…"}` bodies, `options.num_predict` as the token budget, and
//! its `done_reason` and counts on the cross-dialect footing
//! (`ollama/ollama` `docs/api.md`, `api/types.go`).

use crate::dialect::api::{
    sc, weather_params, Auth, Scenario, UsageCounts, DISCONNECT, INVALID, LENGTH_TOKENS,
    LONG_PROMPT, LONG_TOKENS, PROMPT, SHORT_TOKENS, STOP_SEQUENCE, TOOL_PROMPT,
};
use serde_json::{json, Map, Value};

/// Ollama's [`crate::dialect::Api`].
#[derive(Debug)]
pub struct Api;

const SCENARIOS: &[Scenario] = &[
    sc("plain", "a short text answer", false),
    sc(
        "length",
        "options.num_predict 5: the answer must end with done_reason length",
        false,
    ),
    sc("stop", "options.stop", true),
    sc(
        "tool",
        "one tool offered and asked for: the call must come whole, its arguments an object",
        true,
    ),
    sc(
        "long",
        "a longer answer (num_predict 256): TTFT and gaps",
        false,
    ),
    Scenario {
        name: "thinking",
        about: "think: true (only with --reasoning)",
        optional: true,
        reasoning: true,
    },
    INVALID,
    DISCONNECT,
];

impl crate::dialect::Api for Api {
    /// The clients take the server's origin (`http://localhost:11434`).
    fn sdk_base(&self) -> &'static str {
        ""
    }

    fn transport(&self) -> crate::transport::Transport {
        crate::transport::Transport::Ndjson
    }

    /// A local server takes no key; a proxy in front of one may take a
    /// Bearer token (ollama-python's `headers`).
    fn auth(&self) -> Auth {
        Auth {
            key_header: "Authorization",
            key_prefix: "Bearer ",
            fixed: &[],
            how: "no key (a local server), or a Bearer token for a proxy",
        }
    }

    /// `/api/generate` beside `/api/chat`.
    fn other_endpoint(&self, path: &str) -> bool {
        path == "/api/generate"
    }

    /// `{"error": "…"}`: Ollama's error body is a bare string.
    fn error_body(&self, _kind: &str, message: &str) -> String {
        format!(r#"{{"error":{}}}"#, Value::String(message.to_string()))
    }

    fn scenarios(&self) -> &'static [Scenario] {
        SCENARIOS
    }

    fn scenario_body(&self, name: &str, model: &str) -> Value {
        let user = |text: &str| json!([{"role": "user", "content": text}]);
        let mut b = json!({"model": model, "stream": true, "messages": user(PROMPT),
            "options": {"num_predict": SHORT_TOKENS}});
        match name {
            "length" => {
                b["options"]["num_predict"] = json!(LENGTH_TOKENS);
                b["messages"] = user(LONG_PROMPT);
            }
            "stop" => {
                b["messages"] = user(LONG_PROMPT);
                b["options"]["stop"] = json!([STOP_SEQUENCE]);
            }
            "tool" => {
                b["messages"] = user(TOOL_PROMPT);
                b["tools"] = json!([{"type": "function", "function": {"name": "get_weather", "description": "The weather in a city", "parameters": weather_params()}}]);
            }
            "long" => {
                b["options"]["num_predict"] = json!(LONG_TOKENS);
                b["messages"] = user(LONG_PROMPT);
            }
            "thinking" => b["think"] = json!(true),
            "invalid" => b["messages"] = json!(42),
            _ => {}
        }
        b
    }

    fn scenario_of(&self, o: &Map<String, Value>) -> Option<&'static str> {
        if !o.get("messages").is_some_and(Value::is_array) && !o.contains_key("prompt") {
            return Some("invalid");
        }
        if o.get("tools")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
        {
            return Some("tool");
        }
        if o.get("think").is_some_and(|t| t == &json!(true)) {
            return Some("thinking");
        }
        let options = o.get("options");
        if options
            .and_then(|p| p.get("stop"))
            .is_some_and(|v| !v.is_null())
        {
            return Some("stop");
        }
        // The budget is `options.num_predict`, not a top-level key.
        crate::dialect::api::budget_scenario(
            options
                .and_then(|p| p.get("num_predict"))
                .and_then(Value::as_u64),
        )
    }

    fn budget_keys(&self) -> &'static [&'static str] {
        &["num_predict"]
    }

    /// Ollama has no forced tool choice: the tool is offered and asked
    /// for in the prompt.
    fn forced_tool(&self, _name: &str) -> &'static str {
        "the prompt asked for the tool get_weather"
    }

    fn forced_tool_named(&self) -> &'static str {
        "the prompt asked for the tool get_weather"
    }

    fn cut_finish(&self) -> &'static str {
        "length"
    }

    fn length_budget(&self) -> String {
        format!("options.num_predict {LENGTH_TOKENS}")
    }

    /// `stop` and `length` are the cross-dialect words already; a tool
    /// call ends with `stop`, so a stream with calls is `tool_calls`.
    fn finish_class(&self, _lower: &str, finish: &str, has_tool_calls: bool) -> String {
        match finish {
            "stop" if has_tool_calls => "tool_calls".to_string(),
            _ => finish.to_string(),
        }
    }

    /// `prompt_eval_count` in, `eval_count` out; no total, so their sum.
    fn usage_apart(&self, u: &Value) -> Option<UsageCounts> {
        let n = |k: &str| u.get(k).and_then(Value::as_u64);
        let (input, output) = (n("prompt_eval_count"), n("eval_count"));
        Some(UsageCounts {
            input,
            output,
            total: input.zip(output).map(|(i, o)| i.saturating_add(o)),
            cached: None,
            cache_write: None,
        })
    }

    /// `done` shows a line to be Ollama's.
    fn shown_by(&self, data: &Value) -> Option<String> {
        data.get("done").map(|_| "done".to_string())
    }

    fn usage_line(&self, u: &Value) -> Option<String> {
        let n = |k: &str| {
            u.get(k)
                .and_then(Value::as_u64)
                .map_or("?".to_string(), |v| v.to_string())
        };
        Some(format!(
            "prompt_eval_count {} + eval_count {}",
            n("prompt_eval_count"),
            n("eval_count")
        ))
    }

    fn usage_total(&self) -> bool {
        false
    }
}
