//! A HAR entry of a WebSocket (Chrome's: `_resourceType: "websocket"`, the
//! handshake as request and response, the frames in `_webSocketMessages`)
//! as one stream whose body is the socket's message log
//! ([`crate::transport::socket_log`]), one record a frame, in order. Firefox
//! exports no frames: its socket entries have no `_webSocketMessages` and
//! are not read as sockets.
//!
//! The log is written here, so positions in it are not the HAR file's:
//! findings point at the entry.

use super::{Body, Http, Origin, Request, Stream};
use serde_json::Value;

/// The stream of HAR entry `i`, whose `_webSocketMessages` are `messages`;
/// `status`, the handshake's headers and its request come from the entry.
pub(super) fn stream(
    i: usize,
    entry: &Value,
    messages: &[Value],
    method: &str,
    url: &str,
    http: Http,
    request_headers: Vec<super::Header>,
) -> Stream {
    let log = crate::transport::socket_log::of_har(messages);
    let mut stream = Stream::new(format!("#{i} {method} {url}"), Body::Bytes(log));
    stream.http = Some(http);
    stream.request = Some(Request {
        method: method.to_string(),
        url: url.to_string(),
        headers: request_headers,
        body: None,
    });
    stream.origin = Origin {
        file_start: None,
        har_entry: Some(i),
        har_text: None,
    };
    if entry.get("_resourceType").and_then(Value::as_str) != Some("websocket") {
        stream.notes.push(
            "the entry has `_webSocketMessages` but no `_resourceType: websocket`; read as a socket's frames".to_string(),
        );
    }
    stream
}
