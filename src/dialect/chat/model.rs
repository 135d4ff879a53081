//! Chat Completions' vocabulary: the finish reasons OpenAI documents, the
//! request options that change what a Chat stream should hold, and
//! `inspect`'s one-line rendering of a chunk.
//!
//! It knows nothing of rules: the checks beside it use it. What an event's
//! data is (`[DONE]`, JSON, not JSON), for every dialect, is
//! [`crate::model::Payload`]; the answer every dialect assembles is
//! [`crate::model::assembly::Answer`].

use serde_json::Value;

/// finish_reason values in OpenAI's enum (`CreateChatCompletionStreamResponse`,
/// `choices[].finish_reason`).
pub const FINISH_REASONS: &[&str] = &[
    "stop",
    "length",
    "tool_calls",
    "content_filter",
    "function_call",
];

/// A short rendering of what a chunk adds, for `inspect`: per choice the
/// role, text, refusal, reasoning, tool-call fragments and finish_reason,
/// then usage (`#0 role=assistant "Hel" finish=stop · usage 14+9=23`).
pub fn summarize_chunk(v: &Value) -> String {
    let mut parts = Vec::new();
    let many = v
        .get("choices")
        .and_then(Value::as_array)
        .is_some_and(|c| c.len() > 1);
    for c in v
        .get("choices")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let mut p = Vec::new();
        if many {
            p.push(format!(
                "#{}",
                c.get("index").map_or("?".into(), |i| i.to_string())
            ));
        }
        let d = c.get("delta").unwrap_or(&Value::Null);
        if let Some(r) = d.get("role").filter(|r| !r.is_null()) {
            p.push(format!("role={}", r.as_str().unwrap_or("?")));
        }
        for (k, label) in [
            ("content", ""),
            ("refusal", "refusal="),
            ("reasoning_content", "reasoning="),
            ("reasoning", "reasoning="),
        ] {
            if let Some(s) = d.get(k).and_then(Value::as_str).filter(|s| !s.is_empty()) {
                p.push(format!("{label}{s:?}"));
            }
        }
        for t in d
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let idx = t.get("index").map_or("?".to_string(), |i| i.to_string());
            let f = t.get("function").unwrap_or(&Value::Null);
            let name = f.get("name").and_then(Value::as_str).unwrap_or("");
            let args = f.get("arguments").and_then(Value::as_str).unwrap_or("");
            let mut t = format!("tool[{idx}]");
            if !name.is_empty() {
                t.push(' ');
                t.push_str(name);
            }
            if !args.is_empty() {
                t.push_str(&format!(" {args:?}"));
            }
            p.push(t);
        }
        if let Some(f) = c.get("finish_reason").filter(|f| !f.is_null()) {
            p.push(format!(
                "finish={}",
                f.as_str().map_or(f.to_string(), str::to_string)
            ));
        }
        if !p.is_empty() {
            parts.push(p.join(" "));
        }
    }
    if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
        let n = |k: &str| {
            u.get(k)
                .and_then(Value::as_u64)
                .map_or("?".to_string(), |x| x.to_string())
        };
        parts.push(format!(
            "usage {}+{}={}",
            n("prompt_tokens"),
            n("completion_tokens"),
            n("total_tokens")
        ));
    }
    if parts.is_empty() {
        "(adds nothing)".to_string()
    } else {
        parts.join(" · ")
    }
}

/// The request options that change what a stream should hold, read from a
/// captured request body (HAR `postData`, a curl trace's `Send data`, the
/// body `record` sent).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestOptions {
    /// `stream` as sent.
    pub stream: Option<bool>,
    /// `stream_options.include_usage` was true.
    pub include_usage: bool,
    /// `n`, the number of choices asked for.
    pub n: Option<u64>,
    /// `tools` was a non-empty array (or `functions` for the old API).
    pub tools: bool,
    /// `max_completion_tokens`, or the older `max_tokens`.
    pub max_tokens: Option<u64>,
    /// Which of the two keys `max_tokens` came from.
    pub max_tokens_key: &'static str,
}

impl RequestOptions {
    /// Reads the options from a request body; `None` when it is not a JSON
    /// object.
    pub fn from_body(body: &str) -> Option<Self> {
        let v: Value = serde_json::from_str(body).ok()?;
        let obj = v.as_object()?;
        Some(RequestOptions {
            stream: obj.get("stream").and_then(Value::as_bool),
            include_usage: v
                .pointer("/stream_options/include_usage")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            n: obj.get("n").and_then(Value::as_u64),
            tools: obj
                .get("tools")
                .or_else(|| obj.get("functions"))
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty()),
            max_tokens: obj
                .get("max_completion_tokens")
                .or_else(|| obj.get("max_tokens"))
                .and_then(Value::as_u64),
            max_tokens_key: if obj.get("max_completion_tokens").is_some_and(Value::is_u64) {
                "max_completion_tokens"
            } else {
                "max_tokens"
            },
        })
    }
}
