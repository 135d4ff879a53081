//! Bedrock's ConverseStream on the wire
//! (`POST https://bedrock-runtime.REGION.amazonaws.com/model/MODEL/converse-stream`):
//! AWS event-stream frames, SigV4 (signing name `bedrock`; `record` signs
//! with the AWS environment's credentials) or a Bedrock API key as a
//! Bearer token, AWS's `{"message": …}` error body,
//! `inferenceConfig.maxTokens` as the token budget, and its `stopReason`
//! and `usage` on the cross-dialect footing (the Bedrock API reference,
//! `Converse` and `ConverseStream`).

use crate::dialect::api::{
    sc, weather_params, Auth, Scenario, UsageCounts, DISCONNECT, INVALID, LENGTH_TOKENS,
    LONG_PROMPT, LONG_TOKENS, PROMPT, SHORT_TOKENS, STOP_SEQUENCE, TOOL_PROMPT,
};
use serde_json::{json, Map, Value};

/// ConverseStream's [`crate::dialect::Api`].
#[derive(Debug)]
pub struct Api;

const SCENARIOS: &[Scenario] = &[
    sc("plain", "a short text answer", false),
    sc(
        "length",
        "inferenceConfig.maxTokens 5: the answer must stop with max_tokens",
        false,
    ),
    sc("stop", "inferenceConfig.stopSequences", true),
    sc(
        "tool",
        "one tool forced by toolChoice: the call's input must join into JSON",
        true,
    ),
    sc(
        "long",
        "a longer answer (inferenceConfig.maxTokens 256): TTFT and gaps",
        false,
    ),
    Scenario {
        name: "thinking",
        about: "additionalModelRequestFields.thinking (Claude's extended thinking; only with --reasoning): reasoningContent deltas",
        optional: true,
        reasoning: true,
    },
    INVALID,
    DISCONNECT,
];

impl crate::dialect::Api for Api {
    fn sdk_base(&self) -> &'static str {
        ""
    }

    fn transport(&self) -> crate::transport::Transport {
        crate::transport::Transport::EventStream
    }

    fn message_types(&self) -> &'static [&'static str] {
        &[
            "messageStart",
            "contentBlockStart",
            "contentBlockDelta",
            "contentBlockStop",
            "messageStop",
            "metadata",
        ]
    }

    fn auth(&self) -> Auth {
        Auth {
            key_header: "Authorization",
            key_prefix: "Bearer ",
            fixed: &[],
            how: "a SigV4 signature from the AWS environment variables, or a Bedrock API key as a Bearer token",
        }
    }

    /// `{"message": "…"}`, as AWS's JSON protocols answer.
    fn error_body(&self, _kind: &str, message: &str) -> String {
        format!(r#"{{"message":{}}}"#, Value::String(message.to_string()))
    }

    fn not_found_kind(&self) -> &'static str {
        "ResourceNotFoundException"
    }

    /// SigV4, signing name `bedrock` (the Bedrock model's `aws.auth#sigv4`).
    fn sigv4_service(&self) -> Option<&'static str> {
        Some("bedrock")
    }

    /// The operation streams by its path: `stream` is no field of its
    /// request (the Bedrock model's request shapes; Claude's body on
    /// Bedrock has none either).
    fn prepare(&self, body: &mut Map<String, Value>, _include_usage: bool) {
        body.remove("stream");
    }

    /// `x-amzn-ErrorType`, where boto3 and the AWS SDK for JavaScript
    /// read an error's code: the operation's error of that status (the
    /// Bedrock API reference's `Errors`).
    fn error_headers(&self, status: u16) -> Vec<(&'static str, String)> {
        let kind = match status {
            403 => "AccessDeniedException",
            404 => "ResourceNotFoundException",
            408 => "ModelTimeoutException",
            424 => "ModelErrorException",
            429 => "ThrottlingException",
            500 => "InternalServerException",
            503 => "ServiceUnavailableException",
            _ => "ValidationException",
        };
        vec![("x-amzn-ErrorType", kind.to_string())]
    }

    fn scenarios(&self) -> &'static [Scenario] {
        SCENARIOS
    }

    fn scenario_body(&self, name: &str, _model: &str) -> Value {
        let user = |text: &str| json!([{"role": "user", "content": [{"text": text}]}]);
        let mut b =
            json!({"messages": user(PROMPT), "inferenceConfig": {"maxTokens": SHORT_TOKENS}});
        match name {
            "length" => b["inferenceConfig"]["maxTokens"] = json!(LENGTH_TOKENS),
            "stop" => {
                b["messages"] = user(LONG_PROMPT);
                b["inferenceConfig"]["stopSequences"] = json!([STOP_SEQUENCE]);
            }
            "thinking" => {
                // Claude's thinking budget must be at least 1024 tokens
                // and below maxTokens.
                b["inferenceConfig"]["maxTokens"] = json!(2048);
                b["additionalModelRequestFields"] =
                    json!({"thinking": {"type": "enabled", "budget_tokens": 1024}});
            }
            "tool" => {
                b["messages"] = user(TOOL_PROMPT);
                b["toolConfig"] = json!({
                    "tools": [{"toolSpec": {"name": "get_weather", "description": "The weather in a city", "inputSchema": {"json": weather_params()}}}],
                    "toolChoice": {"tool": {"name": "get_weather"}}
                });
            }
            "invalid" => b["messages"] = json!(42),
            "long" => {
                b["messages"] = user(LONG_PROMPT);
                b["inferenceConfig"]["maxTokens"] = json!(LONG_TOKENS);
            }
            _ => {}
        }
        b
    }

    fn scenario_of(&self, o: &Map<String, Value>) -> Option<&'static str> {
        if !o.get("messages").is_some_and(Value::is_array) {
            return Some("invalid");
        }
        if o.get("toolConfig").is_some() {
            return Some("tool");
        }
        let config = o.get("inferenceConfig");
        if o.get("additionalModelRequestFields")
            .and_then(|f| f.get("thinking").or(f.get("reasoning_config")))
            .is_some()
        {
            return Some("thinking");
        }
        if config
            .and_then(|c| c.get("stopSequences"))
            .is_some_and(|v| !v.is_null())
        {
            return Some("stop");
        }
        // The budget is `inferenceConfig.maxTokens`, not a top-level key.
        crate::dialect::api::budget_scenario(
            o.get("inferenceConfig")
                .and_then(|c| c.get("maxTokens"))
                .and_then(Value::as_u64),
        )
    }

    fn budget_keys(&self) -> &'static [&'static str] {
        &["maxTokens"]
    }

    fn forced_tool(&self, _name: &str) -> &'static str {
        "toolChoice named the tool get_weather"
    }

    fn forced_tool_named(&self) -> &'static str {
        "toolChoice named the tool get_weather"
    }

    fn cut_finish(&self) -> &'static str {
        "max_tokens"
    }

    fn stop_key(&self) -> &'static str {
        "inferenceConfig.stopSequences"
    }

    /// A guardrail or filter is `content_filter`; the rest are named as
    /// in Anthropic Messages (`end_turn`, `stop_sequence`, `max_tokens`,
    /// `model_context_window_exceeded`, `tool_use`), and classed as there.
    fn finish_class(&self, f: &str, finish: &str, has_tool_calls: bool) -> String {
        match f {
            "guardrail_intervened" | "content_filtered" => "content_filter".to_string(),
            _ => crate::dialect::messages::api::Api.finish_class(f, finish, has_tool_calls),
        }
    }

    /// `inputTokens` (the cache reads and writes counted apart), and
    /// `outputTokens`, `totalTokens`.
    fn usage_apart(&self, u: &Value) -> Option<UsageCounts> {
        let n = |k: &str| u.get(k).and_then(Value::as_u64);
        let (read, write) = (n("cacheReadInputTokens"), n("cacheWriteInputTokens"));
        let input = n("inputTokens").map(|i| {
            i.saturating_add(read.unwrap_or(0))
                .saturating_add(write.unwrap_or(0))
        });
        Some(UsageCounts {
            input,
            output: n("outputTokens"),
            total: n("totalTokens"),
            cached: read,
            cache_write: write,
        })
    }

    fn cache_apart(&self) -> bool {
        true
    }

    fn shown_by(&self, data: &Value) -> Option<String> {
        ["contentBlockIndex", "stopReason", "role", "usage"]
            .iter()
            .find(|k| data.get(**k).is_some())
            .map(|k| k.to_string())
    }

    fn usage_line(&self, u: &Value) -> Option<String> {
        let n = |k: &str| {
            u.get(k)
                .and_then(Value::as_u64)
                .map_or("?".to_string(), |v| v.to_string())
        };
        // `totalTokens` counts the cache reads and writes too: they are
        // terms of the sum, or `10+3=1013` reads as if the counts were
        // joined as text.
        let mut terms = vec![n("inputTokens")];
        for (k, what) in [
            ("cacheReadInputTokens", "cache read"),
            ("cacheWriteInputTokens", "cache write"),
        ] {
            if let Some(c) = u.get(k).and_then(Value::as_u64).filter(|c| *c > 0) {
                terms.push(format!("{c} {what}"));
            }
        }
        terms.push(n("outputTokens"));
        Some(format!("usage: {}={}", terms.join("+"), n("totalTokens")))
    }
}
