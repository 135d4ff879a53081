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
//! Not yet: the HTTP replay's fault injections (`--split-bytes`,
//! `--cut-after-bytes`, keep-alives) on a socket.

use super::{Options, Replay};
use crate::transport::socket_log::{self, Record};
use crate::transport::{Direction, Frame, Transport};
use std::io::{self, Read, Write};
use std::net::TcpStream;
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
/// request head) before the socket's own.
struct Prefixed {
    head: io::Cursor<Vec<u8>>,
    inner: TcpStream,
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
        self.inner.write(buf)
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

/// Plays `replay`'s log back on `sock`, whose request head (with any bytes
/// read past it) is `head`. Returns whether the handshake succeeded.
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
    sock.set_read_timeout(Some(Duration::from_secs(30)))?;
    let _ = sock.set_nodelay(true);
    let stream = Prefixed {
        head: io::Cursor::new(head),
        inner: sock,
    };
    let mut ws = match tungstenite::accept(stream) {
        Ok(ws) => ws,
        Err(_) => return Ok(false),
    };
    if let Some(ms) = opts.first_delay_ms {
        std::thread::sleep(Duration::from_millis(ms));
    }
    let mut last_time: Option<f64> = None;
    let mut i = 0;
    while i < log.len() && !stop.load(Ordering::Relaxed) {
        let r = &log[i];
        i += 1;
        if r.direction == Direction::Sent {
            // Wait for the client's message that this one stands for.
            loop {
                match ws.read() {
                    Ok(Message::Text(_) | Message::Binary(_)) => break,
                    Ok(Message::Close(_)) | Err(_) => return Ok(true),
                    Ok(_) => {}
                }
            }
            last_time = r.time.or(last_time);
            continue;
        }
        let wait = match (opts.delay_ms, r.time, last_time) {
            (Some(ms), ..) => Duration::from_millis(ms),
            (None, Some(t), Some(prev)) if t > prev => Duration::from_secs_f64(t - prev),
            _ => Duration::ZERO,
        };
        last_time = r.time.or(last_time);
        std::thread::sleep(wait);
        match r.frame() {
            Frame::Close { code, reason } => {
                if matches!(code, 0 | 1005 | 1006 | 1015) {
                    // No close frame can carry these: the connection just
                    // ends, as it did.
                    return Ok(true);
                }
                let _ = ws.close(Some(CloseFrame {
                    code: CloseCode::from(code),
                    reason: reason.to_string().into(),
                }));
                while ws.read().is_ok() {}
                return Ok(true);
            }
            Frame::Failed => return Ok(true),
            Frame::Binary => {
                let bytes = r.bytes.clone().unwrap_or_default();
                ws.send(Message::Binary(bytes.into())).map_err(io_err)?;
            }
            _ => ws
                .send(Message::Text(r.data.clone().into()))
                .map_err(io_err)?,
        }
    }
    // The log ends with no close: the client says when it is done.
    loop {
        match ws.read() {
            Ok(Message::Close(_)) | Err(_) => break,
            Ok(_) => {}
        }
    }
    let _ = ws.close(None);
    let _ = ws.flush();
    Ok(true)
}
