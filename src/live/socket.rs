//! `record ws://…`: a live WebSocket saved as a message log
//! ([`crate::transport::socket_log`]), one record per message with its
//! time. The recorder follows the session's own shape: the server's
//! greeting first (Realtime's `session.created`), then the client's
//! messages one at a time, each after the server's answer to the one
//! before:
//! - a message that asks for a response (`response.create`, the
//!   dialect's [`crate::dialect::Api::socket_route`]) is answered when
//!   that response has ended (its end event, or an `error` when no
//!   response started);
//! - another message (Realtime's `session.update`,
//!   `conversation.item.create`) when the server has sent as many
//!   messages as the script shows after it, or, for a script of bare
//!   messages, when the server has been quiet for [`QUIET`];
//!
//! then the socket closed with 1000. A script that is a capture (a
//! message log, a HAR's socket entry: [`Script::of_log`]) says how many
//! messages the server sent around each of the client's, so `replay` of
//! a capture recorded back gives it message for message. A connection
//! that ends with no close frame is saved as a close with 1006, the code
//! a client reports for it (RFC 6455 §7.1.5).
//!
//! The key goes in the handshake's header (the dialect's
//! [`crate::dialect::Api::auth`]) and nowhere in the log, which holds no
//! handshake and no URL; a key a message echoes is masked
//! ([`crate::capture::redact_keys`]). `wss://` speaks TLS with rustls and
//! the webpki roots, as `record https://` does (`insecure` accepts any
//! certificate).

use crate::dialect::api::SocketStep;
use crate::dialect::Dialect;
use crate::transport::socket_log::line as log_line;
use crate::transport::{Direction, Frame};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tungstenite::client::IntoClientRequest;
use tungstenite::{Message, WebSocket};

/// How long the server may be quiet before a message that asks for no
/// response counts as answered, when the script does not say how many
/// messages answer it; also how long the greeting is waited for, where
/// the API sends one ([`crate::dialect::Api::socket_greets`]).
pub const QUIET: Duration = Duration::from_millis(500);

/// The client's side of a session: its messages, and where known, how
/// many messages the server sent around each.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Script {
    /// The client's messages, in order (text).
    pub messages: Vec<String>,
    /// How many messages (text and binary) the server sent before the
    /// client's first message (`[0]`) and after each of the client's
    /// (`[i + 1]`), when the script is a capture; `None` for bare
    /// messages.
    pub replies: Option<Vec<usize>>,
}

impl Script {
    /// Bare messages: each answered as its kind says ([`record`]).
    pub fn of_messages(messages: Vec<String>) -> Self {
        Script {
            messages,
            replies: None,
        }
    }

    /// The script of a message log ([`crate::transport::socket_log`]):
    /// the client's text messages, and the server's count around each.
    ///
    /// # Errors
    /// A line is no message record: its number and why.
    pub fn of_log(log: &str) -> Result<Self, String> {
        let mut messages = Vec::new();
        let mut replies = vec![0];
        for (i, line) in log.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let r = crate::transport::socket_log::record(line)
                .map_err(|e| format!("line {}: {e}", i + 1))?;
            match (r.direction, r.frame()) {
                (Direction::Sent, Frame::Text) => {
                    messages.push(r.data);
                    replies.push(0);
                }
                (Direction::Received, Frame::Text | Frame::Binary) => {
                    if let Some(n) = replies.last_mut() {
                        *n += 1;
                    }
                }
                _ => {}
            }
        }
        Ok(Script {
            messages,
            replies: Some(replies),
        })
    }

    /// How many messages the script shows the server sending at step `i`
    /// (0: before the client's first message).
    fn replies(&self, i: usize) -> Option<usize> {
        self.replies
            .as_ref()
            .map(|r| r.get(i).copied().unwrap_or(0))
    }
}

/// What to record.
#[derive(Debug, Clone)]
pub struct SocketRequest {
    /// `ws://host/path` or `wss://host/path`.
    pub url: String,
    /// Extra handshake headers.
    pub headers: Vec<(String, String)>,
    /// The API key, sent as the dialect's auth header.
    pub api_key: Option<String>,
    /// The client's side ([`Script`]).
    pub script: Script,
    /// What the messages mean.
    pub dialect: Dialect,
    /// How long to wait for a message (text, binary or close: a ping or
    /// a pong is none) before giving up on the turn.
    pub read_timeout: Duration,
    /// Give up this long after the connection starts, whatever arrives
    /// (`record --timeout`); what arrived is kept.
    pub timeout: Option<Duration>,
    /// `wss://`: accept any certificate (signatures still checked).
    pub insecure: bool,
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

/// Why a socket could not be recorded ([`record`]). The URL is shown
/// redacted ([`crate::capture::redact_url`]) and the handshake's error
/// with its keys masked ([`crate::capture::redact_keys`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SocketError {
    /// The URL is no WebSocket request (what tungstenite said).
    #[error("{url}: {source}")]
    Url {
        /// The URL, redacted.
        url: String,
        /// Why.
        source: tungstenite::Error,
    },
    /// A header's name is not valid.
    #[error("header {name:?}: {source}")]
    HeaderName {
        /// The name.
        name: String,
        /// Why.
        source: tungstenite::http::header::InvalidHeaderName,
    },
    /// A header's value is not valid (the value is not shown: it may be a
    /// key).
    #[error("header {name:?}: the value is not a valid header value")]
    HeaderValue {
        /// The header's name.
        name: String,
    },
    /// The TCP connection to the URL's host failed.
    #[error("{url}: cannot connect: {source}")]
    Connect {
        /// The URL, redacted.
        url: String,
        /// Why.
        source: std::io::Error,
    },
    /// The TLS or WebSocket handshake failed.
    #[error("{url}: the handshake failed: {message}")]
    Handshake {
        /// The URL, redacted.
        url: String,
        /// What failed, its keys masked.
        message: String,
    },
    /// The log could not be written.
    #[error("writing the log: {0}")]
    Write(std::io::Error),
}

/// Records `req` into `out` as a message log.
///
/// # Errors
/// The URL is no WebSocket URL, the connection or the handshake fails, or
/// `out` cannot be written ([`SocketError`]); what was written stays.
pub fn record(req: &SocketRequest, out: &mut dyn Write) -> Result<SocketRecording, SocketError> {
    let mut request =
        req.url
            .as_str()
            .into_client_request()
            .map_err(|source| SocketError::Url {
                url: crate::capture::redact_url(&req.url),
                source,
            })?;
    let auth = req.dialect.api().auth_for(&req.url);
    let hs = request.headers_mut();
    let header = |n: &str, v: &str| -> Result<_, SocketError> {
        Ok((
            tungstenite::http::HeaderName::from_bytes(n.as_bytes()).map_err(|source| {
                SocketError::HeaderName {
                    name: n.to_string(),
                    source,
                }
            })?,
            tungstenite::http::HeaderValue::from_str(v).map_err(|_| SocketError::HeaderValue {
                name: n.to_string(),
            })?,
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
    let failed = |e: &dyn std::fmt::Display| SocketError::Handshake {
        url: crate::capture::redact_url(&req.url),
        message: crate::capture::redact_keys(&e.to_string()),
    };
    let tcp = connect_tcp(&req.url, request.uri())?;
    let _ = tcp.set_nodelay(true);
    let mut rec = if req.url.starts_with("wss://") {
        let host = request.uri().host().unwrap_or("").to_string();
        let tls = super::tls::stream(tcp, &host, req.insecure).map_err(|e| failed(&e))?;
        let (mut ws, resp) = tungstenite::client::client(request, tls).map_err(|e| failed(&e))?;
        play(req, &mut ws, resp.status().as_u16(), started, out)?
    } else {
        let (mut ws, resp) = tungstenite::client::client(request, tcp).map_err(|e| failed(&e))?;
        play(req, &mut ws, resp.status().as_u16(), started, out)?
    };
    rec.total_ms = started.elapsed().as_secs_f64() * 1000.0;
    Ok(rec)
}

/// The TCP connection to a WebSocket URL's host (port 80 for `ws://`, 443
/// for `wss://` unless it names one).
fn connect_tcp(url: &str, uri: &tungstenite::http::Uri) -> Result<TcpStream, SocketError> {
    let host = uri.host().unwrap_or("");
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let port = uri
        .port_u16()
        .unwrap_or(if url.starts_with("wss://") { 443 } else { 80 });
    TcpStream::connect((host, port)).map_err(|source| SocketError::Connect {
        url: crate::capture::redact_url(url),
        source,
    })
}

/// The stream under a recorder's socket, whose read timeout it sets.
pub(super) trait Timed: Read + Write {
    /// Sets the read timeout of the TCP connection under it.
    fn set_timeout(&self, d: Duration);
}

impl Timed for TcpStream {
    fn set_timeout(&self, d: Duration) {
        let _ = self.set_read_timeout(Some(d));
    }
}

/// One read of the server's: a message, a quiet spell, the recording's
/// deadline, or the end.
enum Got {
    Message(Message),
    Quiet,
    Deadline,
    Failed(tungstenite::Error),
}

fn read<S: Timed>(ws: &mut WebSocket<S>, wait: Duration) -> Got {
    ws.get_ref().set_timeout(wait.max(Duration::from_millis(1)));
    match ws.read() {
        Ok(m) => Got::Message(m),
        Err(tungstenite::Error::Io(e))
            if matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ) =>
        {
            Got::Quiet
        }
        Err(e) => Got::Failed(e),
    }
}

/// Writes each record of a session to a log.
struct Log<'a> {
    out: &'a mut dyn Write,
    rec: SocketRecording,
    /// When the recording stops whatever arrives (`timeout`).
    deadline: Option<Instant>,
}

impl Log<'_> {
    /// The server's next message, waiting at most `wait` from `since`
    /// (the last message or the turn's start) and never past the
    /// deadline. A ping or a pong is no message: it is answered (by
    /// tungstenite) and the wait goes on, so a server that pings and
    /// says nothing still meets the read timeout.
    fn next<S: Timed>(&self, ws: &mut WebSocket<S>, wait: Duration, since: Instant) -> Got {
        loop {
            let now = Instant::now();
            let mut left = wait.saturating_sub(now - since);
            if let Some(d) = self.deadline {
                if now >= d {
                    return Got::Deadline;
                }
                left = left.min(d - now);
            }
            if left.is_zero() {
                return Got::Quiet;
            }
            match read(ws, left) {
                // A ping, or a wait that ran out: the top of the loop
                // says which limit, if any, is met.
                Got::Message(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))
                | Got::Quiet => {}
                got => return got,
            }
        }
    }

    /// The recording met its deadline.
    fn timed_out(&mut self, timeout: Option<Duration>) {
        self.rec.stopped = Some(format!(
            "the --timeout of {:.1} s ran out",
            timeout.unwrap_or_default().as_secs_f64()
        ));
    }

    fn line(&mut self, line: String) -> Result<(), SocketError> {
        self.out
            .write_all(line.as_bytes())
            .map_err(SocketError::Write)?;
        self.rec.messages += 1;
        Ok(())
    }

    /// Logs a message the server sent; returns its route's step for a
    /// text message.
    fn received(
        &mut self,
        m: &Message,
        api: &dyn crate::dialect::Api,
    ) -> Result<Option<SocketStep>, SocketError> {
        match m {
            Message::Text(t) => {
                let data = crate::capture::redact_keys(t.as_str());
                self.line(log_line(
                    Direction::Received,
                    Some(now()),
                    Frame::Text,
                    &data,
                ))?;
                Ok(api.socket_route(false, t.as_str()).map(|r| r.step))
            }
            Message::Binary(b) => {
                use base64::Engine;
                let data = base64::engine::general_purpose::STANDARD.encode(b);
                self.line(log_line(
                    Direction::Received,
                    Some(now()),
                    Frame::Binary,
                    &data,
                ))?;
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    fn closed(&mut self, code: u16, reason: &str) -> Result<(), SocketError> {
        self.line(close_line(code, reason))?;
        self.rec.closed = Some((code, reason.to_string()));
        Ok(())
    }

    /// The socket failed: a connection that ended with no close frame is
    /// logged as 1006; any other failure stops the recording.
    fn failed(&mut self, e: &tungstenite::Error) -> Result<(), SocketError> {
        use tungstenite::error::ProtocolError;
        let dropped = match e {
            tungstenite::Error::ConnectionClosed | tungstenite::Error::AlreadyClosed => false,
            tungstenite::Error::Protocol(ProtocolError::ResetWithoutClosingHandshake) => true,
            tungstenite::Error::Io(e) => matches!(
                e.kind(),
                std::io::ErrorKind::ConnectionReset
                    | std::io::ErrorKind::ConnectionAborted
                    | std::io::ErrorKind::UnexpectedEof
                    | std::io::ErrorKind::BrokenPipe
            ),
            _ => false,
        };
        if dropped {
            self.closed(1006, "")?;
            self.rec.stopped = Some("the connection ended without a close frame".into());
        } else if !matches!(e, tungstenite::Error::ConnectionClosed) {
            self.rec.stopped = Some(format!("the socket failed: {e}"));
        }
        Ok(())
    }
}

/// What a turn's reading waits for.
#[derive(Clone, Copy)]
struct Turn {
    /// The client asked for a response: wait for its end.
    response: bool,
    /// Messages the script shows the server sending at this step.
    replies: Option<usize>,
}

/// Reads the server's messages of one step; false once the socket has
/// ended (or the recording stopped).
fn read_turn<S: Timed>(
    ws: &mut WebSocket<S>,
    log: &mut Log<'_>,
    turn: Turn,
    req: &SocketRequest,
) -> Result<bool, SocketError> {
    let api = req.dialect.api();
    let mut got = 0usize;
    // No response asked for, or one whose end (or refusal) came.
    let mut answered = !turn.response;
    let mut started = false;
    // An error came inside the response: its end may follow, or not.
    let mut errored = false;
    let mut since = Instant::now();
    loop {
        let more = turn.replies.is_some_and(|k| got < k);
        let wait = if errored && !answered {
            QUIET
        } else if !answered || more {
            req.read_timeout
        } else if turn.replies.is_none() && !turn.response {
            QUIET
        } else {
            return Ok(true);
        };
        match log.next(ws, wait, since) {
            Got::Message(Message::Close(frame)) => {
                let (code, reason) = frame
                    .map(|f| (u16::from(f.code), f.reason.to_string()))
                    .unwrap_or((1005, String::new()));
                log.closed(code, &reason)?;
                return Ok(false);
            }
            Got::Message(m @ (Message::Text(_) | Message::Binary(_))) => {
                got += 1;
                since = Instant::now();
                match log.received(&m, api)? {
                    Some(SocketStep::Start(_)) => started = true,
                    Some(SocketStep::End(_)) => answered = true,
                    // An error that refuses the request answers it; one
                    // inside the response is followed by its end.
                    Some(SocketStep::Error | SocketStep::Failure) if !started => {
                        answered = true;
                    }
                    // A refusal answers the request just sent, whatever runs.
                    Some(SocketStep::Refusal) => answered = true,
                    Some(SocketStep::Error | SocketStep::Failure) => errored = true,
                    _ => {}
                }
            }
            Got::Message(_) => {}
            Got::Quiet if answered || errored || turn.replies.is_some() && !turn.response => {
                // A bare message's answer is over, a response that failed
                // sent no end, or the server sent fewer than the script
                // shows: go on.
                return Ok(true);
            }
            Got::Quiet => {
                log.rec.stopped = Some(format!(
                    "no message for {:.1} s",
                    req.read_timeout.as_secs_f64()
                ));
                return Ok(false);
            }
            Got::Deadline => {
                log.timed_out(req.timeout);
                return Ok(false);
            }
            Got::Failed(e) => {
                log.failed(&e)?;
                return Ok(false);
            }
        }
    }
}

/// Plays the script on an open socket.
fn play<S: Timed>(
    req: &SocketRequest,
    ws: &mut WebSocket<S>,
    status: u16,
    started: Instant,
    out: &mut dyn Write,
) -> Result<SocketRecording, SocketError> {
    let mut log = Log {
        out,
        rec: SocketRecording {
            status,
            ..SocketRecording::default()
        },
        deadline: req.timeout.map(|t| started + t),
    };
    let api = req.dialect.api();
    let script = &req.script;
    // The greeting: what the server sends before the client speaks. A
    // script of bare messages waits for one only where the API sends one
    // (Realtime's `session.created`); a capture's script says how many.
    let replies = script.replies(0);
    let mut open = true;
    if replies.is_some_and(|n| n > 0) || (replies.is_none() && api.socket_greets()) {
        let greeting = Turn {
            response: false,
            replies,
        };
        open = read_turn(ws, &mut log, greeting, req)?;
    }
    for (i, m) in script.messages.iter().enumerate() {
        if !open {
            break;
        }
        log.line(log_line(
            Direction::Sent,
            Some(now()),
            Frame::Text,
            &crate::capture::redact_keys(m),
        ))?;
        if let Err(e) = ws.send(Message::Text(m.clone().into())) {
            log.rec.stopped = Some(format!("sending failed: {e}"));
            open = false;
            break;
        }
        let response = api
            .socket_route(true, m)
            .is_some_and(|r| r.step == SocketStep::Create);
        let turn = Turn {
            response,
            replies: script.replies(i + 1),
        };
        open = read_turn(ws, &mut log, turn, req)?;
    }
    if open {
        // Our close carries no code, so its echo has none: a close frame
        // with a code is the server's own (sent before ours arrived), and
        // is part of the capture, as is any message before it.
        let _ = ws.close(None);
        let mut since = Instant::now();
        loop {
            match log.next(ws, req.read_timeout, since) {
                Got::Message(Message::Close(Some(f))) => {
                    log.closed(u16::from(f.code), &f.reason)?;
                }
                Got::Message(m @ (Message::Text(_) | Message::Binary(_))) => {
                    since = Instant::now();
                    log.received(&m, api)?;
                }
                Got::Message(_) => {}
                Got::Deadline => {
                    log.timed_out(req.timeout);
                    break;
                }
                Got::Quiet | Got::Failed(_) => break,
            }
        }
    }
    Ok(log.rec)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn request(url: &str, headers: &[(&str, &str)]) -> SocketRequest {
        SocketRequest {
            url: url.to_string(),
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            api_key: None,
            script: Script::of_messages(Vec::new()),
            dialect: Dialect::parse("realtime").expect("a dialect sselint reads"),
            read_timeout: Duration::from_millis(200),
            timeout: None,
            insecure: false,
        }
    }

    fn said(req: &SocketRequest) -> (SocketError, String) {
        let e = record(req, &mut Vec::new()).map(|_| ()).unwrap_err();
        let text = e.to_string();
        (e, text)
    }

    /// What the user reads when a socket is not recorded: the sentences
    /// `record` gave as strings, the URL's key masked.
    #[test]
    fn why_a_socket_is_not_recorded_is_said_as_before() {
        let (e, text) = said(&request(
            "ws://127.0.0.1:1/v1/realtime?key=sk-SECRET123",
            &[],
        ));
        assert!(matches!(e, SocketError::Connect { .. }), "{e:?}");
        assert!(
            text.starts_with("ws://127.0.0.1:1/v1/realtime?key=[REDACTED]: cannot connect: "),
            "{text}"
        );
        assert!(!text.contains("SECRET"), "{text}");

        let (e, text) = said(&request("ws://127.0.0.1:1/", &[("bad name", "v")]));
        assert!(matches!(e, SocketError::HeaderName { .. }), "{e:?}");
        assert_eq!(text, "header \"bad name\": invalid HTTP header name");

        let (e, text) = said(&request("ws://127.0.0.1:1/", &[("x-key", "a\nb")]));
        assert!(matches!(e, SocketError::HeaderValue { .. }), "{e:?}");
        assert_eq!(
            text,
            "header \"x-key\": the value is not a valid header value"
        );

        let (e, text) = said(&request("not a url", &[]));
        assert!(matches!(e, SocketError::Url { .. }), "{e:?}");
        assert!(text.starts_with("not a url: "), "{text}");

        // A server that closes before the handshake's answer.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || drop(listener.accept()));
        let (e, text) = said(&request(&format!("ws://127.0.0.1:{port}/"), &[]));
        server.join().unwrap();
        assert!(matches!(e, SocketError::Handshake { .. }), "{e:?}");
        assert!(
            text.starts_with(&format!("ws://127.0.0.1:{port}/: the handshake failed: ")),
            "{text}"
        );
    }
}
