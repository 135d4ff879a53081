//! OpenAI's Realtime API on the wire (`wss://api.openai.com/v1/realtime?model=MODEL`,
//! Azure's `…/openai/v1/realtime?model=DEPLOYMENT`): a WebSocket whose
//! handshake carries the key as a Bearer token (the beta adds
//! `OpenAI-Beta: realtime=v1`), one JSON event a text message each way
//! (shared reference transports.md §2.1). No HTTP request streams it, so
//! it has no probe scenarios yet: `probe` over a socket is not built.

use crate::dialect::api::{Auth, Scenario, SocketRoute};
use serde_json::{json, Map, Value};

/// The Realtime API's [`crate::dialect::Api`].
#[derive(Debug)]
pub struct Api;

impl crate::dialect::Api for Api {
    fn rides_sockets(&self) -> bool {
        true
    }

    fn socket_route(&self, sent: bool, data: &str) -> Option<SocketRoute> {
        super::socket::route(sent, data)
    }

    /// `session.created` is the first server event on a new connection
    /// (transports.md §2.3).
    fn socket_greets(&self) -> bool {
        true
    }

    fn socket_shows(&self, sent: bool, data: &str) -> bool {
        super::socket::shows(sent, data)
    }

    fn socket_summary(&self, sent: bool, data: &str) -> Option<String> {
        super::socket::summary(sent, data)
    }

    fn auth(&self) -> Auth {
        Auth {
            key_header: "Authorization",
            key_prefix: "Bearer ",
            fixed: &[],
            how: "the key as a Bearer token on the handshake",
        }
    }

    /// None yet: a Realtime response is asked for over a socket, which
    /// `probe` does not open.
    fn scenarios(&self) -> &'static [Scenario] {
        &[]
    }

    /// A `response.create` asking for text (the GA shape).
    fn scenario_body(&self, _name: &str, _model: &str) -> Value {
        json!({"type": "response.create", "response": {"output_modalities": ["text"]}})
    }

    fn scenario_of(&self, _body: &Map<String, Value>) -> Option<&'static str> {
        None
    }

    fn forced_tool(&self, _name: &str) -> &'static str {
        "response.tool_choice"
    }

    /// A response the token budget cut ends `incomplete`.
    fn cut_finish(&self) -> &'static str {
        "incomplete"
    }

    /// `response.max_output_tokens` of a `response.create`.
    fn budget_keys(&self) -> &'static [&'static str] {
        &["max_output_tokens"]
    }

    /// `response.done`'s `status`, as the other dialects' finishes are
    /// classed for `diff`.
    fn finish_class(&self, _lower: &str, finish: &str, has_tool_calls: bool) -> String {
        match finish {
            "completed" if has_tool_calls => "tool_calls".into(),
            "completed" => "stop".into(),
            "incomplete" => "length".into(),
            other => other.into(),
        }
    }
}
