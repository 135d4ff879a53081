//! `record ws://…`: a live WebSocket saved as a message log
//! ([`crate::transport::socket_log`]), one record per message with its
//! time: the client's messages sent one turn at a time, each after the
//! response the one before asked for has ended (its dialect's
//! [`crate::dialect::Api::socket_route`] says which event ends one), then
//! the socket closed with 1000.
//!
//! The key goes in the handshake's header (the dialect's
//! [`crate::dialect::Api::auth`]) and nowhere in the log, which holds no
//! handshake; a key a message echoes is masked
//! ([`crate::capture::redact_keys`]). `wss://` needs TLS, which this
//! recorder does not do yet (tungstenite is built without it).

use crate::dialect::api::SocketStep;
use crate::dialect::Dialect;
use crate::transport::socket_log::line as log_line;
use crate::transport::{Direction, Frame};
use std::io::Write;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tungstenite::client::IntoClientRequest;
use tungstenite::Message;

/// What to record.
#[derive(Debug, Clone)]
pub struct SocketRequest {
    /// `ws://host/path`.
    pub url: String,
    /// Extra handshake headers.
    pub headers: Vec<(String, String)>,
    /// The API key, sent as the dialect's auth header.
    pub api_key: Option<String>,
    /// The client's messages, one per turn, in order.
    pub messages: Vec<String>,
    /// What the messages mean.
    pub dialect: Dialect,
    /// How long to wait for a message before giving up on the turn.
    pub read_timeout: Duration,
}

/// What a recording saw.
#[derive(Debug, Clone, Default)]
pub struct SocketRecording {
    /// The handshake's HTTP status (101 on success).
    pub status: u16,
    /// Messages written (sent and received).
    pub messages: u64,
    /// How the socket ended, when the server closed it (code, reason).
    pub closed: Option<(u16, String)>,
    /// Milliseconds from the handshake to the end.
    pub total_ms: f64,
    /// Why the recording stopped early, if it did.
    pub stopped: Option<String>,
}

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// Records `req` into `out` as a message log.
///
/// # Errors
/// The URL is not `ws://` (`wss://` is refused: no TLS yet), the handshake
/// fails, or `out` cannot be written; what was written stays.
pub fn record(req: &SocketRequest, out: &mut dyn Write) -> Result<SocketRecording, String> {
    if req.url.starts_with("wss://") {
        return Err(format!(
            "{}: record does not speak TLS to a WebSocket yet (wss://); record a ws:// endpoint, or save the socket from the browser as a HAR",
            crate::capture::redact_url(&req.url)
        ));
    }
    let mut request = req
        .url
        .as_str()
        .into_client_request()
        .map_err(|e| format!("{}: {e}", crate::capture::redact_url(&req.url)))?;
    let auth = req.dialect.api().auth_for(&req.url);
    let hs = request.headers_mut();
    let header = |n: &str, v: &str| -> Result<_, String> {
        Ok((
            tungstenite::http::HeaderName::from_bytes(n.as_bytes())
                .map_err(|e| format!("header {n:?}: {e}"))?,
            tungstenite::http::HeaderValue::from_str(v)
                .map_err(|_| format!("header {n:?}: the value is not a valid header value"))?,
        ))
    };
    if let Some(k) = &req.api_key {
        let (n, v) = header(auth.key_header, &format!("{}{k}", auth.key_prefix))?;
        hs.insert(n, v);
    }
    for (n, v) in &req.headers {
        let (n, v) = header(n, v)?;
        hs.insert(n, v);
    }
    let started = Instant::now();
    let (mut ws, resp) = tungstenite::connect(request).map_err(|e| {
        let e = crate::capture::redact_keys(&e.to_string());
        format!(
            "{}: the handshake failed: {e}",
            crate::capture::redact_url(&req.url)
        )
    })?;
    if let tungstenite::stream::MaybeTlsStream::Plain(s) = ws.get_ref() {
        let _ = s.set_read_timeout(Some(req.read_timeout));
    }
    let mut rec = SocketRecording {
        status: resp.status().as_u16(),
        ..SocketRecording::default()
    };
    let w = |out: &mut dyn Write, line: String| {
        out.write_all(line.as_bytes())
            .map_err(|e| format!("writing the log: {e}"))
    };
    let api = req.dialect.api();
    'turns: for m in &req.messages {
        w(
            out,
            log_line(
                Direction::Sent,
                Some(now()),
                Frame::Text,
                &crate::capture::redact_keys(m),
            ),
        )?;
        rec.messages += 1;
        if let Err(e) = ws.send(Message::Text(m.clone().into())) {
            rec.stopped = Some(format!("sending failed: {e}"));
            break;
        }
        loop {
            match ws.read() {
                Ok(Message::Text(t)) => {
                    let data = crate::capture::redact_keys(t.as_str());
                    w(
                        out,
                        log_line(Direction::Received, Some(now()), Frame::Text, &data),
                    )?;
                    rec.messages += 1;
                    let ends = api
                        .socket_route(false, t.as_str())
                        .is_some_and(|r| matches!(r.step, SocketStep::End(_) | SocketStep::Error));
                    if ends {
                        continue 'turns;
                    }
                }
                Ok(Message::Binary(b)) => {
                    use base64::Engine;
                    let data = base64::engine::general_purpose::STANDARD.encode(&b);
                    w(
                        out,
                        log_line(Direction::Received, Some(now()), Frame::Binary, &data),
                    )?;
                    rec.messages += 1;
                }
                Ok(Message::Close(frame)) => {
                    let (code, reason) = frame
                        .map(|f| (u16::from(f.code), f.reason.to_string()))
                        .unwrap_or((1005, String::new()));
                    w(out, close_line(code, &reason))?;
                    rec.messages += 1;
                    rec.closed = Some((code, reason));
                    break 'turns;
                }
                Ok(_) => {}
                Err(e) => {
                    rec.stopped = Some(format!("the socket failed: {e}"));
                    break 'turns;
                }
            }
        }
    }
    if rec.closed.is_none() && rec.stopped.is_none() {
        // Our close carries no code, so its echo has none: a close frame
        // with a code is the server's own (sent before ours arrived), and
        // is part of the capture.
        let _ = ws.close(None);
        while let Ok(m) = ws.read() {
            if let Message::Close(Some(f)) = m {
                let (code, reason) = (u16::from(f.code), f.reason.to_string());
                w(out, close_line(code, &reason))?;
                rec.messages += 1;
                rec.closed = Some((code, reason));
            }
        }
    }
    rec.total_ms = started.elapsed().as_secs_f64() * 1000.0;
    Ok(rec)
}

/// A close record (opcode 8) with its code and reason.
fn close_line(code: u16, reason: &str) -> String {
    log_line(
        Direction::Received,
        Some(now()),
        Frame::Close { code, reason },
        "",
    )
}
