//! Where each Realtime message goes on its socket, and which messages
//! show a socket to be a Realtime one (shared reference transports.md
//! §2.2, §2.3).
//!
//! A Realtime session is one conversation: the client asks for each
//! response with `response.create`, the server opens it with
//! `response.created` and always ends it with `response.done`, whatever
//! its status. Response events name it by `response_id`; session,
//! conversation, input-buffer and rate-limit events belong to no
//! response (the pipeline gives them to the running one, if any). The
//! session has one lane: only one response runs at a time in the default
//! conversation.

use crate::dialect::api::{SocketRoute, SocketStep};
use serde::Deserialize;
use std::borrow::Cow;

/// The fields a message is routed by, borrowed from its data.
#[derive(Deserialize)]
struct Head<'a> {
    #[serde(borrow, rename = "type")]
    ty: Cow<'a, str>,
    #[serde(default, borrow)]
    response: Option<Response<'a>>,
    #[serde(default, borrow)]
    response_id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    error: Option<ErrorHead<'a>>,
}

/// An `error` event's `error.code`, what tells a refused request.
#[derive(Deserialize)]
struct ErrorHead<'a> {
    #[serde(default, borrow)]
    code: Option<Cow<'a, str>>,
}

/// The code of the error that refuses a `response.create` sent while a
/// response runs: the session runs one response at a time (shared
/// reference transports.md §2.4).
const BUSY: &str = "conversation_already_has_active_response";

#[derive(Deserialize)]
struct Response<'a> {
    #[serde(default, borrow)]
    id: Option<Cow<'a, str>>,
}

/// Where message `data` goes (see [`crate::dialect::Api::socket_route`]);
/// `None` when it is not a JSON object with a string `type`.
pub fn route(sent: bool, data: &str) -> Option<SocketRoute> {
    let head: Head<'_> = serde_json::from_str(data).ok()?;
    let ty = head.ty.as_ref();
    let busy = head
        .error
        .as_ref()
        .and_then(|e| e.code.as_deref())
        .is_some_and(|c| c == BUSY);
    let id = head
        .response
        .and_then(|r| r.id)
        .or(head.response_id)
        .map(Cow::into_owned);
    let step = if sent {
        if ty == "response.create" {
            SocketStep::Create
        } else {
            SocketStep::Client
        }
    } else {
        match ty {
            "response.created" => SocketStep::Start(id),
            "response.done" => SocketStep::End(id),
            "error" if busy => SocketStep::Refusal,
            "error" => SocketStep::Error,
            _ if ty.starts_with("response.") => SocketStep::Event(id),
            // session.*, conversation.*, input_audio_buffer.*,
            // output_audio_buffer.*, rate_limits.updated: the session's.
            _ => SocketStep::Socket,
        }
    };
    Some(SocketRoute { lane: None, step })
}

/// Server event types only the Realtime API sends (the Responses API's
/// WebSocket mode has none of them): either tree's names.
const SERVER_OWN: &[&str] = &[
    "session.created",
    "session.updated",
    "response.done",
    "rate_limits.updated",
    "transcription_session.updated",
];

/// Type prefixes only the Realtime API's events have, sent or received.
const PREFIXES: &[&str] = &[
    "conversation.",
    "input_audio_buffer.",
    "output_audio_buffer.",
    "response.text.",
    "response.audio.",
    "response.audio_transcript.",
    "response.output_audio.",
    "response.output_audio_transcript.",
];

/// Client event types only a Realtime client sends.
const CLIENT_OWN: &[&str] = &[
    "session.update",
    "response.cancel",
    "transcription_session.update",
];

/// Whether message `data` (sent by the client when `sent`) is one only the
/// Realtime API has: what tells a socket with no URL to be a Realtime one.
pub fn shows(sent: bool, data: &str) -> bool {
    let Ok(head) = serde_json::from_str::<Head<'_>>(data) else {
        return false;
    };
    let ty = head.ty.as_ref();
    let own = if sent { CLIENT_OWN } else { SERVER_OWN };
    own.contains(&ty) || PREFIXES.iter().any(|p| ty.starts_with(p))
}

/// What `inspect` shows for a message instead of its data, where the
/// data is audio: a client's `input_audio_buffer.append` (its `audio`)
/// and the server's audio deltas (`response.output_audio.delta`, beta
/// `response.audio.delta`: their `delta`), as the number of bytes the
/// base64 decodes to (or that it is not base64), never the audio itself
/// (issue 39: audio is counted and checked, never printed). `None` for
/// any other message.
pub fn summary(sent: bool, data: &str) -> Option<String> {
    use base64::Engine as _;
    #[derive(Deserialize)]
    struct Audio<'a> {
        #[serde(borrow, rename = "type")]
        ty: Cow<'a, str>,
        #[serde(default, borrow)]
        audio: Option<Cow<'a, str>>,
        #[serde(default, borrow)]
        delta: Option<Cow<'a, str>>,
    }
    // The messages that carry audio: what the client sends, and the
    // audio deltas of an answer (GA and beta names).
    let ty = if sent {
        "input_audio_buffer.append"
    } else if data.contains("response.output_audio.delta") {
        "response.output_audio.delta"
    } else {
        "response.audio.delta"
    };
    if !data.contains(ty) {
        return None;
    }
    let m: Audio<'_> = serde_json::from_str(data).ok()?;
    if m.ty != ty {
        return None;
    }
    let audio = if sent { m.audio } else { m.delta }.unwrap_or_default();
    Some(
        match base64::engine::general_purpose::STANDARD.decode(audio.as_bytes()) {
            Ok(bytes) => format!("{ty}: audio, {} bytes", bytes.len()),
            Err(_) => format!("{ty}: audio, not base64 ({} characters)", audio.len()),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_go_to_the_one_lane_and_their_step() {
        let step = |sent, d| route(sent, d).map(|r| r.step);
        assert_eq!(
            route(true, r#"{"type":"response.create","response":{}}"#),
            Some(SocketRoute {
                lane: None,
                step: SocketStep::Create
            })
        );
        assert_eq!(
            step(true, r#"{"type":"session.update","session":{}}"#),
            Some(SocketStep::Client)
        );
        assert_eq!(
            step(
                false,
                r#"{"type":"response.created","event_id":"e","response":{"id":"resp_1"}}"#
            ),
            Some(SocketStep::Start(Some("resp_1".into())))
        );
        assert_eq!(
            step(
                false,
                r#"{"type":"response.output_text.delta","response_id":"resp_1","delta":"a"}"#
            ),
            Some(SocketStep::Event(Some("resp_1".into())))
        );
        assert_eq!(
            step(false, r#"{"type":"response.done","response":{"id":"r"}}"#),
            Some(SocketStep::End(Some("r".into())))
        );
        assert_eq!(
            step(false, r#"{"type":"error","error":{"message":"x"}}"#),
            Some(SocketStep::Error)
        );
        assert_eq!(
            step(
                false,
                r#"{"type":"error","error":{"code":"conversation_already_has_active_response"}}"#
            ),
            Some(SocketStep::Refusal)
        );
        assert_eq!(
            step(false, r#"{"type":"rate_limits.updated","rate_limits":[]}"#),
            Some(SocketStep::Socket)
        );
        assert_eq!(
            step(false, r#"{"type":"session.created","session":{}}"#),
            Some(SocketStep::Socket)
        );
        assert_eq!(route(false, "not json"), None);
        assert_eq!(route(false, r#"{"type":1}"#), None);
    }

    #[test]
    fn only_realtime_types_show_a_realtime_socket() {
        assert!(shows(false, r#"{"type":"session.created","session":{}}"#));
        assert!(shows(false, r#"{"type":"response.done","response":{}}"#));
        assert!(shows(
            false,
            r#"{"type":"response.text.delta","delta":"a"}"#
        ));
        assert!(shows(true, r#"{"type":"session.update","session":{}}"#));
        assert!(shows(
            true,
            r#"{"type":"conversation.item.create","item":{}}"#
        ));
        // Shared with the Responses API's socket.
        assert!(!shows(
            false,
            r#"{"type":"response.created","response":{}}"#
        ));
        assert!(!shows(
            false,
            r#"{"type":"response.output_text.delta","delta":"a"}"#
        ));
        assert!(!shows(true, r#"{"type":"response.create"}"#));
        assert!(!shows(
            false,
            r#"{"type":"response.completed","response":{}}"#
        ));
        assert!(!shows(false, "ping"));
    }
}
