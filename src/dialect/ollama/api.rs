//! Ollama's native API on the wire (`POST /api/chat`, `/api/generate`,
//! `http://localhost:11434` by default): no key (a local server; a proxy
//! in front may want a Bearer token), streaming by default, NDJSON lines,
//! `{"error": "…"}` bodies, `options.num_predict` as the token budget, and
//! its `done_reason` and counts on the cross-dialect footing
//! (`ollama/ollama` `docs/api.md`, `api/types.go`).

use crate::dialect::api::{
    sc, weather_params, Auth, NoUnstreamed, Scenario, UsageCounts, DISCONNECT, INVALID,
    LENGTH_TOKENS, LONG_PROMPT, LONG_TOKENS, PROMPT, SHORT_TOKENS, STOP_SEQUENCE, TOOL_PROMPT,
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

    /// `"stream": false` asks for one JSON object (Ollama streams by
    /// default).
    fn unstream_field(&self) -> Option<&'static str> {
        Some("stream")
    }

    /// A `/api/generate` line carries `response` where a `/api/chat` line
    /// carries a `message`.
    fn endpoint_of_message(&self, data: &Value) -> Option<&'static str> {
        if data.get("response").is_some() && data.get("message").is_none() {
            Some("/api/generate")
        } else {
            Some("/api/chat")
        }
    }

    /// What Ollama answers with `"stream": false` (`server/routes.go`: the
    /// handlers gather the streamed fragments): the last line (`done:
    /// true`, with `done_reason` and the counts) whose text is the whole
    /// answer, `message.content` and `message.thinking` joined and
    /// `message.tool_calls` gathered (`/api/chat`), or `response` and
    /// `thinking` joined (`/api/generate`).
    fn unstreamed(&self, datas: &[&str]) -> Result<(String, String), NoUnstreamed> {
        unstreamed(datas)
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

/// [`Api::unstreamed`]'s answer, from the lines' data in order (blank
/// lines skipped).
fn unstreamed(datas: &[&str]) -> Result<(String, String), NoUnstreamed> {
    let mut content = String::new();
    let mut thinking = String::new();
    let mut tool_calls = Vec::new();
    let mut last = None;
    for (i, d) in datas.iter().enumerate() {
        if d.trim().is_empty() {
            continue;
        }
        let Ok(Value::Object(line)) = serde_json::from_str::<Value>(d) else {
            return Err(NoUnstreamed::NotAnObject(i));
        };
        if line.contains_key("error") {
            return Err(NoUnstreamed::ErrorLine(i + 1));
        }
        let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_string();
        let message = line.get("message");
        content += &text(
            message
                .and_then(|m| m.get("content"))
                .or(line.get("response")),
        );
        thinking += &text(
            message
                .and_then(|m| m.get("thinking"))
                .or(line.get("thinking")),
        );
        if let Some(calls) = message
            .and_then(|m| m.get("tool_calls"))
            .or(line.get("tool_calls"))
            .and_then(Value::as_array)
        {
            tool_calls.extend(calls.iter().cloned());
        }
        if line.get("done") == Some(&Value::Bool(true)) {
            last = Some(line);
            break;
        }
    }
    let mut answer = last.ok_or(NoUnstreamed::NoEnd)?;
    let set = |o: &mut Map<String, Value>, k: &str, v: String, always: bool| {
        if always || !v.is_empty() {
            o.insert(k.to_string(), Value::String(v));
        } else if o.get(k).is_some_and(|x| x.as_str() == Some("")) {
            o.remove(k);
        }
    };
    match answer.get_mut("message").and_then(Value::as_object_mut) {
        Some(m) => {
            set(m, "content", content, true);
            set(m, "thinking", thinking, false);
            if !tool_calls.is_empty() {
                m.insert("tool_calls".to_string(), Value::Array(tool_calls));
            }
        }
        None => {
            set(&mut answer, "response", content, true);
            set(&mut answer, "thinking", thinking, false);
            if !tool_calls.is_empty() {
                answer.insert("tool_calls".to_string(), Value::Array(tool_calls));
            }
        }
    }
    Ok((
        "application/json; charset=utf-8".to_string(),
        Value::Object(answer).to_string(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unstreamed_chat_joins_the_fragments_into_the_last_line() {
        let lines = [
            r#"{"model":"m","message":{"role":"assistant","content":"","thinking":"Hm"},"done":false}"#,
            r#"{"model":"m","message":{"role":"assistant","content":"Hi"},"done":false}"#,
            r#"{"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":{"a":1}}}]},"done":false}"#,
            r#"{"model":"m","message":{"role":"assistant","content":" there"},"done":false}"#,
            r#"{"model":"m","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","eval_count":3}"#,
        ];
        let (ct, body) = unstreamed(&lines).unwrap();
        assert_eq!(ct, "application/json; charset=utf-8");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["message"]["content"], "Hi there");
        assert_eq!(v["message"]["thinking"], "Hm");
        assert_eq!(
            v["message"]["tool_calls"][0]["function"]["arguments"]["a"],
            1
        );
        assert_eq!(v["done"], true);
        assert_eq!(v["done_reason"], "stop");
        assert_eq!(v["eval_count"], 3);
    }

    #[test]
    fn unstreamed_generate_joins_response() {
        let lines = [
            r#"{"model":"m","response":"Rain","done":false}"#,
            r#"{"model":"m","response":" falls.","done":false}"#,
            r#"{"model":"m","response":"","done":true,"done_reason":"stop","context":[1,2]}"#,
        ];
        let v: Value = serde_json::from_str(&unstreamed(&lines).unwrap().1).unwrap();
        assert_eq!(v["response"], "Rain falls.");
        assert_eq!(v["context"], json!([1, 2]));
        assert!(v.get("thinking").is_none());
    }

    #[test]
    fn unstreamed_refuses_a_stream_without_its_end_or_with_an_error() {
        let cut = [r#"{"model":"m","response":"Rain","done":false}"#];
        assert_eq!(unstreamed(&cut), Err(NoUnstreamed::NoEnd));
        let err = [
            r#"{"model":"m","response":"Rain","done":false}"#,
            r#"{"error":"boom"}"#,
        ];
        assert_eq!(unstreamed(&err), Err(NoUnstreamed::ErrorLine(2)));
        assert_eq!(unstreamed(&["nope"]), Err(NoUnstreamed::NotAnObject(0)));
    }
}
