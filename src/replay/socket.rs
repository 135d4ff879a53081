//! `replay` of a WebSocket capture (a message log or a Chrome HAR's
//! socket entry, [`crate::transport::socket_log`]) as a WebSocket endpoint:
//! a GET with `Upgrade: websocket` on the served path is answered with the
//! handshake (tungstenite's), then the log is played back against the
//! client: the server's messages are sent in the log's order, each run of
//! them after the client has sent as many messages as the log shows the
//! client sending before it (each `response.create` of a turn answered by
//! that turn's events). Pacing follows the log's times, or `--delay-ms`.
//!
//! A recorded close is sent with its code and reason; a code that cannot
//! be sent in a close frame (1005, 1006, 1015) and a browser's socket
//! error end the connection without one, as the original ended. After the
//! last message of a log with no close, the server waits for the client to
//! close (at most 30 s of silence), then closes with 1000.
//!
//! Faults, each at its socket meaning (the server's messages counted:
//! text and binary records received; `Options` names each):
//! - `--cut-after-messages N`: the TCP connection is dropped after N
//!   messages, with no close frame (a client sees 1006), or closed with
//!   `--close-code`/`--close-reason` where given;
//! - `--cut-after-bytes N`: dropped after N bytes of frames (the
//!   handshake not counted), inside a frame where N falls there;
//! - `--split-bytes N`: the frames written N bytes at a time;
//! - `--keepalive-ms MS`: a ping frame every MS milliseconds of a wait;
//! - `--close-code CODE` (`--close-reason TEXT`) alone: the socket ends
//!   with that close in place of the log's own end;
//! - `--error-after-messages N`: an `error` message after N messages, the
//!   rest of that turn's dropped;
//! - `--garbage-after-messages N`: a text message that is not JSON after
//!   N messages;
//! - `--stall-after-messages N`: nothing more after N messages, the
//!   socket held open until the client closes it.
//!
//! An event-stream frame's CRC has no place on a socket (`replay` refuses
//! `--corrupt-crc` there).

use super::{Options, Replay};
use crate::transport::socket_log::{self, Record};
use crate::transport::{Direction, Frame, Transport};
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::protocol::CloseFrame;
use tungstenite::Message;

/// Whether a request head asks for a WebSocket (`Upgrade: websocket`).
pub(super) fn is_upgrade(head: &str) -> bool {
    head.lines().skip(1).any(|l| {
        l.split_once(':').is_some_and(|(n, v)| {
            n.trim().eq_ignore_ascii_case("upgrade") && v.trim().eq_ignore_ascii_case("websocket")
        })
    })
}

/// Whether `replay`'s body is a socket's message log.
pub(super) fn is_socket(replay: &Replay) -> bool {
    Transport::socket_of(&replay.body.head(64 * 1024)).is_some()
}

/// A stream that reads the bytes already taken from the socket (the
/// request head) before the socket's own, and writes the frames as the
/// faults say: `split` bytes at a time, and no more than `budget` bytes
/// (the connection shut down when it is spent).
struct Prefixed {
    head: io::Cursor<Vec<u8>>,
    inner: TcpStream,
    split: Option<usize>,
    budget: Option<u64>,
}

impl Prefixed {
    /// Whether `--cut-after-bytes` has cut the connection.
    fn spent(&self) -> bool {
        self.budget == Some(0)
    }
}

impl Read for Prefixed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.head.read(buf)?;
        if n > 0 {
            return Ok(n);
        }
        self.inner.read(buf)
    }
}

impl Write for Prefixed {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.spent() {
            return Err(io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "cut by --cut-after-bytes",
            ));
        }
        let mut n = buf.len();
        if let Some(s) = self.split {
            n = n.min(s.max(1));
        }
        if let Some(b) = self.budget {
            n = n.min(usize::try_from(b).unwrap_or(usize::MAX));
        }
        let n = self.inner.write(&buf[..n])?;
        if let Some(b) = self.budget.as_mut() {
            *b -= n as u64;
            if *b == 0 {
                let _ = self.inner.flush();
                let _ = self.inner.shutdown(Shutdown::Both);
            }
        }
        if self.split.is_some() {
            self.inner.flush()?;
        }
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// The log's records, in order (lines that are none left out).
fn records(replay: &Replay) -> io::Result<Vec<Record>> {
    let mut text = Vec::new();
    replay.body.reader().read_to_end(&mut text)?;
    Ok(String::from_utf8_lossy(&text)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| socket_log::record(l).ok())
        .collect())
}

fn io_err(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(e.to_string())
}

/// How many text and binary messages the server sends in `replay`'s log.
pub(super) fn server_messages(replay: &Replay) -> io::Result<u64> {
    Ok(records(replay)?
        .iter()
        .filter(|r| r.direction == Direction::Received && is_data(r))
        .count() as u64)
}

/// Whether a record is a message with data (text or binary), not a
/// close, a failure or a control frame.
fn is_data(r: &Record) -> bool {
    matches!(r.frame(), Frame::Text | Frame::Binary)
}

/// The text of `--garbage-after-messages`: no JSON.
pub(super) const GARBAGE: &str =
    "sselint replay --garbage-after-messages: this message is not JSON";

/// The message of `--error-after-messages`: the `error` shape Responses'
/// WebSocket mode and Realtime share (`type`, and an `error` object with
/// `type`, `code`, `message`).
pub(super) const ERROR: &str = r#"{"type":"error","error":{"type":"server_error","code":"server_error","message":"injected by sselint replay --error-after-messages","param":null}}"#;

type Socket = tungstenite::WebSocket<Prefixed>;

/// Sleeps `wait`, sending a ping every `keepalive` ms of it.
fn pause(ws: &mut Socket, wait: Duration, keepalive: Option<u64>) -> io::Result<()> {
    let Some(k) = keepalive.filter(|k| *k > 0).map(Duration::from_millis) else {
        std::thread::sleep(wait);
        return Ok(());
    };
    let mut left = wait;
    while left > k {
        std::thread::sleep(k);
        left -= k;
        ws.send(Message::Ping(Vec::new().into())).map_err(io_err)?;
    }
    std::thread::sleep(left);
    Ok(())
}

/// Closes with `code` and `reason` (a code no close frame can carry,
/// 1005, 1006 or 1015, and 0 for none: the connection just ends), then
/// reads until the client's close.
fn close(ws: &mut Socket, code: u16, reason: &str) {
    if matches!(code, 0 | 1005 | 1006 | 1015) {
        drop_connection(ws);
        return;
    }
    let _ = ws.close(Some(CloseFrame {
        code: CloseCode::from(code),
        reason: reason.to_string().into(),
    }));
    while ws.read().is_ok() {}
}

/// Ends the connection with no close frame.
fn drop_connection(ws: &mut Socket) {
    let _ = ws.flush();
    let _ = ws.get_mut().inner.shutdown(Shutdown::Both);
}

/// Waits for the client to close (or go, or 30 s of silence), answering
/// its pings; with `keepalive`, pinging it meanwhile.
fn hold(ws: &mut Socket, keepalive: Option<u64>) {
    if let Some(k) = keepalive.filter(|k| *k > 0) {
        let _ = ws
            .get_mut()
            .inner
            .set_read_timeout(Some(Duration::from_millis(k)));
        let mut idle = Duration::ZERO;
        loop {
            match ws.read() {
                Ok(Message::Close(_)) => break,
                Ok(_) => idle = Duration::ZERO,
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) && idle < Duration::from_secs(30) =>
                {
                    idle += Duration::from_millis(k);
                    if ws.send(Message::Ping(Vec::new().into())).is_err() {
                        return;
                    }
                }
                Err(_) => return,
            }
        }
    } else {
        loop {
            match ws.read() {
                Ok(Message::Close(_)) | Err(_) => break,
                Ok(_) => {}
            }
        }
    }
    let _ = ws.close(None);
    let _ = ws.flush();
}

/// What a fault does after the server's `n`-th message.
enum Step {
    Go,
    /// Drop the rest of this turn's messages.
    SkipTurn,
    /// The socket has ended.
    Done,
}

/// The `--error-after-messages` message after `last`, the server's last
/// text message: where the messages carry a `sequence_number`
/// (Responses), the error takes the next one, as the API numbers its
/// `error` events.
fn error_after(last: Option<&str>) -> String {
    let next = last
        .and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok())
        .and_then(|v| v.get("sequence_number")?.as_u64());
    match next {
        Some(n) => {
            let mut v: serde_json::Value = serde_json::from_str(ERROR).expect("ERROR is JSON");
            v["sequence_number"] = (n + 1).into();
            v.to_string()
        }
        None => ERROR.to_string(),
    }
}

/// Applies the faults that fall after the server's `n`-th message, the
/// last of which was `last` (text).
fn fault_at(ws: &mut Socket, n: u64, last: Option<&str>, opts: &Options) -> io::Result<Step> {
    if opts.garbage_after_messages == Some(n) {
        ws.send(Message::Text(GARBAGE.into())).map_err(io_err)?;
    }
    if opts.cut_after_messages == Some(n) {
        match opts.close_code {
            Some(code) => close(ws, code, opts.close_reason.unwrap_or("")),
            None => drop_connection(ws),
        }
        return Ok(Step::Done);
    }
    if opts.stall_after_messages == Some(n) {
        hold(ws, opts.keepalive_ms);
        return Ok(Step::Done);
    }
    if opts.error_after_messages == Some(n) {
        ws.send(Message::Text(error_after(last).into()))
            .map_err(io_err)?;
        return Ok(Step::SkipTurn);
    }
    Ok(Step::Go)
}

/// Plays `replay`'s log back on `sock`, whose request head (with any bytes
/// read past it) is `head`, with `opts`' faults. Returns whether the
/// handshake succeeded.
///
/// # Errors
/// The log cannot be read, or the socket fails.
pub(super) fn serve(
    sock: TcpStream,
    head: Vec<u8>,
    replay: &Replay,
    opts: &Options,
    stop: &AtomicBool,
) -> io::Result<bool> {
    let log = records(replay)?;
    let Some(mut ws) = accept(sock, head)? else {
        return Ok(false);
    };
    play_faulted(&mut ws, &log, opts, stop)
}

/// The WebSocket handshake on `sock`, whose first bytes (`head`) were
/// read already; `None` when the client's handshake is refused.
fn accept(sock: TcpStream, head: Vec<u8>) -> io::Result<Option<Socket>> {
    sock.set_read_timeout(Some(Duration::from_secs(30)))?;
    let _ = sock.set_nodelay(true);
    let stream = Prefixed {
        head: io::Cursor::new(head),
        inner: sock,
        split: None,
        budget: None,
    };
    Ok(tungstenite::accept(stream).ok())
}

/// Plays `log` with `opts`' faults, those on the bytes counting the
/// frames only (after the handshake); a cut the byte budget made is the
/// fault asked for, not a failure.
fn play_faulted(
    ws: &mut Socket,
    log: &[Record],
    opts: &Options,
    stop: &AtomicBool,
) -> io::Result<bool> {
    ws.get_mut().split = opts.split_bytes;
    ws.get_mut().budget = opts.cut_after_bytes;
    match play(ws, log, opts, stop) {
        Err(_) if ws.get_ref().spent() => Ok(true),
        r => r.map(|()| true),
    }
}

/// Serves a scenario set ([`super::ScenarioSet`]) on a WebSocket, as
/// `probe ws://` asks it: the client's first message is the scenario's
/// request in the dialect's response-asking form (`response.create`, the
/// request body's fields beside `type`), told by
/// [`crate::probe::classify`] as an HTTP request's body is; it is
/// answered with that scenario's capture: a message log's server
/// messages after its first client message (its greeting, a Realtime
/// `session.created`, before them), an event stream's events each as a
/// text message, an error answer (`NAME.json`) as the API's `error`
/// message. A scenario with no capture gets an `error` message naming
/// it. The answer is played as [`serve`] plays a log, with `opts`'
/// faults. The dialect is the path's (`/v1/responses`), else the set's
/// first that rides sockets.
///
/// # Errors
/// The capture cannot be read, or the socket fails.
pub(super) fn serve_set(
    sock: TcpStream,
    head: Vec<u8>,
    path: &str,
    set: &super::ScenarioSet,
    opts: &Options,
    stop: &AtomicBool,
) -> io::Result<bool> {
    let Some(mut ws) = accept(sock, head)? else {
        return Ok(false);
    };
    let served = set.dialects();
    let path_only = path.split('?').next().unwrap_or("");
    let d = super::endpoint_dialect(path_only)
        .filter(|d| served.contains(d))
        .or_else(|| served.iter().copied().find(|d| d.api().rides_sockets()))
        .unwrap_or(crate::dialect::DEFAULT);
    // The client's request.
    let asked = loop {
        match ws.read() {
            Ok(Message::Text(t)) => break t.to_string(),
            Ok(Message::Binary(b)) => break String::from_utf8_lossy(&b).into_owned(),
            Ok(Message::Close(_)) | Err(_) => return Ok(true),
            Ok(_) => {}
        }
    };
    let log = match set.pick_message(d, &asked) {
        Ok(r) => answer_of(r)?,
        Err(message) => vec![text_record(&socket_error(400, &message))],
    };
    play_faulted(&mut ws, &log, opts, stop)
}

/// A text message the server sends.
fn text_record(data: &str) -> Record {
    Record {
        direction: Direction::Received,
        time: None,
        opcode: 1,
        data: data.to_string(),
        bytes: None,
        close: None,
    }
}

/// The `error` message of an error answer with HTTP `status`: the shape
/// Responses' WebSocket mode documents (`type`, `status`, and the error
/// object nested), `error` from an error body (`{"error": {…}}`) or a
/// message.
fn socket_error(status: u16, message: &str) -> String {
    let error = serde_json::from_str::<serde_json::Value>(message)
        .ok()
        .and_then(|v| v.get("error").cloned().or(Some(v)))
        .filter(serde_json::Value::is_object)
        .unwrap_or_else(|| {
            serde_json::json!({"type": "invalid_request_error", "code": null, "message": message, "param": null})
        });
    serde_json::json!({"type": "error", "status": status, "error": error}).to_string()
}

/// What answers a scenario from its capture `r`, as a log to play after
/// the client's request (see [`serve_set`]).
fn answer_of(r: &Replay) -> io::Result<Vec<Record>> {
    if is_socket(r) {
        let all = records(r)?;
        let first_sent = all.iter().position(|x| x.direction == Direction::Sent);
        return Ok(match first_sent {
            // The greeting, then what answers the first request.
            Some(i) => all
                .iter()
                .take(i)
                .chain(all.iter().skip(i + 1))
                .cloned()
                .collect(),
            None => all,
        });
    }
    let mut body = Vec::new();
    r.body.reader().read_to_end(&mut body)?;
    if !(200..300).contains(&r.status) {
        return Ok(vec![text_record(&socket_error(
            r.status,
            &String::from_utf8_lossy(&body),
        ))]);
    }
    if r.transport != Transport::Sse {
        return Ok(vec![text_record(&socket_error(
            400,
            &format!(
                "sselint replay: this scenario's capture is {}, which has no WebSocket form",
                r.transport.name()
            ),
        ))]);
    }
    // An event stream: each event's data a message (`[DONE]` is SSE's).
    struct Events(Vec<Record>);
    impl crate::sse::Sink for Events {
        fn block(&mut self, b: &crate::sse::Block<'_>) {
            if let Some(d) = &b.dispatch {
                if d.data.trim() != "[DONE]" {
                    self.0.push(text_record(d.data));
                }
            }
        }
    }
    let mut events = Events(Vec::new());
    let mut parser = crate::sse::Parser::with_limit(body.len().max(1));
    parser.feed(&body, &mut events);
    let _ = parser.finish(&mut events);
    Ok(events.0)
}

/// [`serve`] past the handshake.
fn play(ws: &mut Socket, log: &[Record], opts: &Options, stop: &AtomicBool) -> io::Result<()> {
    if let Some(ms) = opts.first_delay_ms {
        pause(ws, Duration::from_millis(ms), opts.keepalive_ms)?;
    }
    let mut sent = 0u64;
    let mut skipping = false;
    match fault_at(ws, sent, None, opts)? {
        Step::Done => return Ok(()),
        Step::SkipTurn => skipping = true,
        Step::Go => {}
    }
    let mut last_time: Option<f64> = None;
    for r in log {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        if r.direction == Direction::Sent {
            // Wait for the client's message that this one stands for.
            loop {
                match ws.read() {
                    Ok(Message::Text(_) | Message::Binary(_)) => break,
                    Ok(Message::Close(_)) | Err(_) => return Ok(()),
                    Ok(_) => {}
                }
            }
            skipping = false;
            last_time = r.time.or(last_time);
            continue;
        }
        if skipping && is_data(r) {
            continue;
        }
        let wait = match (opts.delay_ms, r.time, last_time) {
            (Some(ms), ..) => Duration::from_millis(ms),
            (None, Some(t), Some(prev)) if t > prev => Duration::from_secs_f64(t - prev),
            _ => Duration::ZERO,
        };
        last_time = r.time.or(last_time);
        pause(ws, wait, opts.keepalive_ms)?;
        match r.frame() {
            Frame::Close { code, reason } => {
                match opts.close_code {
                    Some(c) => close(ws, c, opts.close_reason.unwrap_or("")),
                    // No close frame can carry 1005, 1006 or 1015: the
                    // connection just ends, as it did.
                    None => close(ws, code, reason),
                }
                return Ok(());
            }
            Frame::Failed => {
                match opts.close_code {
                    Some(c) => close(ws, c, opts.close_reason.unwrap_or("")),
                    None => drop_connection(ws),
                }
                return Ok(());
            }
            Frame::Binary => {
                let bytes = r.bytes.clone().unwrap_or_default();
                ws.send(Message::Binary(bytes.into())).map_err(io_err)?;
            }
            Frame::Text => ws
                .send(Message::Text(r.data.clone().into()))
                .map_err(io_err)?,
            // A ping or pong the log kept is the transport's own.
            _ => continue,
        }
        sent += 1;
        let last = (r.frame() == Frame::Text).then_some(r.data.as_str());
        match fault_at(ws, sent, last, opts)? {
            Step::Done => return Ok(()),
            Step::SkipTurn => skipping = true,
            Step::Go => {}
        }
    }
    if let Some(c) = opts.close_code {
        close(ws, c, opts.close_reason.unwrap_or(""));
        return Ok(());
    }
    // The log ends with no close: the client says when it is done.
    hold(ws, opts.keepalive_ms);
    Ok(())
}
