//! Bedrock's InvokeModelWithResponseStream on the wire (`POST
//! https://bedrock-runtime.REGION.amazonaws.com/model/MODEL/invoke-with-response-stream`)
//! for Claude: the request body is Anthropic's Messages body with
//! `anthropic_version: "bedrock-2023-05-31"` and without `model` and
//! `stream` (the path names the model, and the operation streams); the
//! answer is AWS event-stream frames; SigV4 (as ConverseStream) or a
//! Bedrock API key as a Bearer token; errors are AWS's
//! `{"message": …}`. What the inner events mean (finish, usage) is
//! Messages' ([`crate::dialect::messages::api::Api`]), which this
//! delegates to (Anthropic's "Claude on Amazon Bedrock" page; the Bedrock
//! API reference, `InvokeModelWithResponseStream`).

use crate::dialect::api::{Auth, Scenario, UsageCounts};
use crate::dialect::messages::api::Api as Messages;
use serde_json::{json, Map, Value};

/// The `anthropic_version` Bedrock's Claude models take in the body.
pub const BEDROCK_ANTHROPIC_VERSION: &str = "bedrock-2023-05-31";

/// Invoke's [`crate::dialect::Api`].
#[derive(Debug)]
pub struct Api;

impl crate::dialect::Api for Api {
    fn sdk_base(&self) -> &'static str {
        ""
    }

    fn transport(&self) -> crate::transport::Transport {
        crate::transport::Transport::EventStream
    }

    fn message_types(&self) -> &'static [&'static str] {
        &["chunk"]
    }

    /// Claude's events are Anthropic Messages'.
    fn wraps(&self) -> Option<crate::vocab::Dialect> {
        Some(crate::vocab::Dialect::Messages)
    }

    /// A `chunk`'s `bytes`, decoded from base64 (as UTF-8, lossily).
    fn unwrapped(&self, data: &str) -> Option<String> {
        use base64::Engine as _;
        let v: Value = serde_json::from_str(data).ok()?;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(v.get("bytes")?.as_str()?)
            .ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }

    fn auth(&self) -> Auth {
        crate::dialect::bedrock_converse::api::Api.auth()
    }

    /// `{"message": "…"}`, as AWS's JSON protocols answer.
    fn error_body(&self, kind: &str, message: &str) -> String {
        crate::dialect::bedrock_converse::api::Api.error_body(kind, message)
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

    fn error_headers(&self, status: u16) -> Vec<(&'static str, String)> {
        crate::dialect::bedrock_converse::api::Api.error_headers(status)
    }

    fn scenarios(&self) -> &'static [Scenario] {
        Messages.scenarios()
    }

    /// Messages' body for the scenario, as Bedrock takes it.
    fn scenario_body(&self, name: &str, model: &str) -> Value {
        let mut b = Messages.scenario_body(name, model);
        if let Some(o) = b.as_object_mut() {
            o.remove("model");
            o.remove("stream");
            o.insert("anthropic_version".into(), json!(BEDROCK_ANTHROPIC_VERSION));
        }
        b
    }

    fn scenario_of(&self, o: &Map<String, Value>) -> Option<&'static str> {
        Messages.scenario_of(o)
    }

    fn forced_tool(&self, name: &str) -> &'static str {
        Messages.forced_tool(name)
    }

    fn cut_finish(&self) -> &'static str {
        Messages.cut_finish()
    }

    fn stop_key(&self) -> &'static str {
        Messages.stop_key()
    }

    fn finish_class(&self, f: &str, finish: &str, has_tool_calls: bool) -> String {
        Messages.finish_class(f, finish, has_tool_calls)
    }

    fn usage_apart(&self, u: &Value) -> Option<UsageCounts> {
        Messages.usage_apart(u)
    }

    fn cache_apart(&self) -> bool {
        Messages.cache_apart()
    }

    fn usage_total(&self) -> bool {
        Messages.usage_total()
    }

    /// A `chunk`'s base64 `bytes` decoded (the inner model's event, UTF-8
    /// JSON), put through `text` and encoded again. The rest of the
    /// payload (Bedrock's `p` padding, transports.md §6.3) is no text and
    /// stays as it is, and the base64 itself is never read as any.
    fn rewrap(&self, payload: &str, text: &mut dyn FnMut(&str) -> String) -> Option<String> {
        use base64::Engine as _;
        let engine = base64::engine::general_purpose::STANDARD;
        let v = serde_json::from_str::<Value>(payload).ok()?;
        let b64 = v.get("bytes")?.as_str()?;
        let decoded = String::from_utf8(engine.decode(b64).ok()?).ok()?;
        let encoded = engine.encode(text(&decoded));
        Some(payload.replacen(b64, &encoded, 1))
    }
}
