//! Responses over a WebSocket (`wss://…/v1/responses`, OpenAI's
//! WebSocket mode; shared reference transports.md §1): each turn is a
//! client `response.create` whose body is the HTTP create body, and the
//! server answers with the same events as the SSE stream, each with an
//! optional `stream_id` naming its lane. A lane runs its responses one
//! after the other (first in, first out; a `response.create` sent while
//! one runs is queued); lanes run side by side, their events interleaved.
//!
//! This file says where each message goes ([`route`]); the pipeline
//! (`pipeline/socket.rs`) follows the lanes and lints each response as a
//! stream of its own, with every Responses rule.

use crate::dialect::api::{SocketRoute, SocketStep};
use serde::Deserialize;

/// The fields a message is routed by, borrowed from its data.
#[derive(Deserialize)]
struct Head<'a> {
    #[serde(borrow, rename = "type")]
    ty: std::borrow::Cow<'a, str>,
    #[serde(default, borrow)]
    stream_id: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, borrow)]
    response: Option<Response<'a>>,
    #[serde(default, borrow)]
    response_id: Option<std::borrow::Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Response<'a> {
    #[serde(default, borrow)]
    id: Option<std::borrow::Cow<'a, str>>,
}

/// Where message `data` goes (see [`crate::dialect::Api::socket_route`]).
pub fn route(sent: bool, data: &str) -> Option<SocketRoute> {
    let head: Head<'_> = serde_json::from_str(data).ok()?;
    let lane = head.stream_id.map(|s| s.into_owned());
    let id = head
        .response
        .and_then(|r| r.id)
        .or(head.response_id)
        .map(|s| s.into_owned());
    let ty = head.ty.as_ref();
    let step = if sent {
        if ty == "response.create" {
            SocketStep::Create
        } else {
            SocketStep::Client
        }
    } else if ty == "response.created" {
        SocketStep::Start(id)
    } else if super::events::TERMINAL.contains(&ty) {
        SocketStep::End(id)
    } else if ty == "error" {
        // An error inside a response ends it, as over SSE (the checker
        // ends the stream `failed`); before one, it refuses the request.
        SocketStep::Failure
    } else if !ty.starts_with("response.")
        || ty.starts_with("response.steer.")
        || ty.starts_with("response.inject.")
    {
        // Codex's `codex.rate_limits`, the steer and inject answers
        // (shared reference transports.md §1.2, §1.3): about the socket
        // or a request, not a response's own event.
        SocketStep::Socket
    } else {
        SocketStep::Event(id)
    };
    Some(SocketRoute { lane, step })
}

/// The response a client message continues: a `response.create`'s
/// `previous_response_id` (transports.md §1.2); `None` for a fresh chain
/// (absent, or null) and any other message.
pub fn parent(sent: bool, data: &str) -> Option<String> {
    #[derive(Deserialize)]
    struct Create<'a> {
        #[serde(borrow, rename = "type")]
        ty: std::borrow::Cow<'a, str>,
        #[serde(default, borrow)]
        previous_response_id: Option<std::borrow::Cow<'a, str>>,
    }
    if !sent {
        return None;
    }
    let c: Create<'_> = serde_json::from_str(data).ok()?;
    (c.ty == "response.create")
        .then_some(c.previous_response_id)
        .flatten()
        .map(std::borrow::Cow::into_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_create_names_the_response_it_continues() {
        let c = r#"{"type":"response.create","previous_response_id":"resp_a1","input":[]}"#;
        assert_eq!(parent(true, c).as_deref(), Some("resp_a1"));
        assert_eq!(parent(false, c), None);
        assert_eq!(
            parent(
                true,
                r#"{"type":"response.create","previous_response_id":null}"#
            ),
            None
        );
        assert_eq!(
            parent(
                true,
                r#"{"type":"response.steer","previous_response_id":"resp_a1"}"#
            ),
            None
        );
    }

    #[test]
    fn messages_go_to_their_lane_and_step() {
        let r = route(
            true,
            r#"{"type":"response.create","stream_id":"main","input":"hi"}"#,
        );
        assert_eq!(
            r,
            Some(SocketRoute {
                lane: Some("main".into()),
                step: SocketStep::Create
            })
        );
        let r = route(
            false,
            r#"{"type":"response.created","sequence_number":0,"response":{"id":"resp_1"}}"#,
        );
        assert_eq!(
            r.map(|r| r.step),
            Some(SocketStep::Start(Some("resp_1".into())))
        );
        let r = route(
            false,
            r#"{"type":"response.output_text.delta","delta":"a\"b"}"#,
        );
        assert_eq!(r.map(|r| r.step), Some(SocketStep::Event(None)));
        let r = route(
            false,
            r#"{"type":"response.completed","response":{"id":"r"}}"#,
        );
        assert_eq!(r.map(|r| r.step), Some(SocketStep::End(Some("r".into()))));
        let r = route(
            false,
            r#"{"type":"error","error":{"message":"x"},"status":400}"#,
        );
        assert_eq!(r.map(|r| r.step), Some(SocketStep::Failure));
        let r = route(false, r#"{"type":"codex.rate_limits","primary":{}}"#);
        assert_eq!(r.map(|r| r.step), Some(SocketStep::Socket));
        let r = route(
            false,
            r#"{"type":"response.steer.accepted","stream_id":"m"}"#,
        );
        assert_eq!(r.map(|r| r.step), Some(SocketStep::Socket));
        assert_eq!(route(false, "not json"), None);
        assert_eq!(route(false, r#"{"type":3}"#), None);
        assert_eq!(route(false, "[1]"), None);
    }
}
