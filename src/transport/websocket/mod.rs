//! The WebSocket transport: the messages of one socket, each with its
//! direction (sent by the client, received from the server), its time and
//! its opcode, as a *message log*: one JSON object a line.
//!
//! ```text
//! {"direction":"sent","time":1798000000.125,"opcode":1,"data":"{\"type\":\"response.create\",…}"}
//! {"direction":"received","time":1798000000.402,"opcode":1,"data":"{\"type\":\"response.created\",…}"}
//! {"direction":"received","time":1798000003.010,"opcode":8,"code":1011,"reason":"internal error"}
//! ```
//!
//! - `direction`: `sent` or `received` (Chrome's HAR spelling, `type`:
//!   `send` or `receive`, is read too);
//! - `time`: seconds since the epoch, fractional (Chrome's `time`), or
//!   absent;
//! - `opcode`: RFC 6455's: 1 text (`data` is the text), 2 binary (`data`
//!   is base64 of the bytes), 8 close (`code` and `reason`); -1 is
//!   Chrome's `error` entry (the socket failed; `data` is the browser's
//!   error text). Absent means 1;
//! - `data`: the message as a JSON string.
//!
//! This is the form `record` is to write, and the form a HAR entry's
//! `_webSocketMessages` is turned into when it is read ([`log_line`]), so
//! every input of a socket comes here as one body. A message's span is
//! its line in that body; its data is the string decoded (not verbatim),
//! so a finding points at the whole line. The SSE framing rules do not
//! apply: a socket's messages are framed by the socket.
//!
//! A [`Message`] of this transport is named by its direction (`sent`,
//! `received`: what `inspect` shows as its type), and carries its
//! direction and opcode as headers ([`DIRECTION`], [`OPCODE`], and [`CLOSE_CODE`] and
//! [`CLOSE_REASON`] on a close), read back by [`direction`],
//! [`opcode`] and [`close`]. A line that is no message record is handed
//! over as a message with a [`Fault`].
//!
//! What this folder does not know: what the messages mean (which
//! dialect, which response a message belongs to); that is the dialect's
//! (`Api::socket_route`) and the pipeline's (`pipeline/socket.rs`).

use super::{ndjson, Fault, Frame, Framed, Header, Message, Sink};
use base64::Engine;
use serde_json::Value;

/// The transport's name in reports.
pub const NAME: &str = "websocket";

/// A socket has no media type of its own: its handshake is an HTTP 101.
pub const MEDIA_TYPE: &str = "";
/// What one message is called.
pub const MESSAGE: &str = "message";
/// What a body of this transport is, in a phrase for messages.
pub const WHAT: &str = "a WebSocket message log";

/// Header naming a message's direction (`sent` or `received`).
pub const DIRECTION: &str = ":direction";
/// Header naming a message's opcode (`1` text, `2` binary, `8` close,
/// `-1` a browser's socket error).
pub const OPCODE: &str = ":opcode";
/// Header holding a close message's status code.
pub const CLOSE_CODE: &str = ":close-code";
/// Header holding a close message's reason.
pub const CLOSE_REASON: &str = ":close-reason";

/// Opcode of a text message.
pub const TEXT: i64 = 1;
/// Opcode of a binary message.
pub const BINARY: i64 = 2;
/// Opcode of a close message.
pub const CLOSE: i64 = 8;
/// Chrome's opcode for an `error` entry: the socket failed.
pub const ERROR: i64 = -1;

pub use super::Direction;

/// The direction a message of this transport went (its [`DIRECTION`]
/// header); `None` on another transport's message.
pub fn direction(m: &Message<'_>) -> Option<Direction> {
    header(m, DIRECTION).and_then(Direction::parse)
}

/// A message's opcode ([`OPCODE`]); `None` on another transport's.
pub fn opcode(m: &Message<'_>) -> Option<i64> {
    header(m, OPCODE).and_then(|v| v.parse().ok())
}

/// A close message's code (0 when it gave none) and reason; `None` for a
/// message that is not a close.
pub fn close<'a>(m: &Message<'a>) -> Option<(u16, &'a str)> {
    (opcode(m) == Some(CLOSE)).then(|| {
        (
            header(m, CLOSE_CODE)
                .and_then(|c| c.parse().ok())
                .unwrap_or(0),
            header(m, CLOSE_REASON).unwrap_or(""),
        )
    })
}

/// What frame a message of this transport is ([`Message::frame`]);
/// `None` on another transport's.
pub fn frame<'a>(m: &Message<'a>) -> Option<Frame<'a>> {
    Some(match opcode(m)? {
        TEXT => Frame::Text,
        BINARY => Frame::Binary,
        CLOSE => {
            let (code, reason) = close(m).unwrap_or((0, ""));
            Frame::Close { code, reason }
        }
        ERROR => Frame::Failed,
        other => Frame::Other(other),
    })
}

/// The opcode a log keeps for `frame`.
pub fn opcode_of(frame: Frame<'_>) -> i64 {
    match frame {
        Frame::Text => TEXT,
        Frame::Binary => BINARY,
        Frame::Close { .. } => CLOSE,
        Frame::Failed => ERROR,
        Frame::Other(o) => o,
    }
}

/// [`log_line`] of a message of kind `frame`; a close with its code and
/// reason.
pub fn log_line_of(
    direction: Direction,
    time: Option<f64>,
    frame: Frame<'_>,
    data: &str,
) -> String {
    let Frame::Close { code, reason } = frame else {
        return log_line(direction, time, opcode_of(frame), data);
    };
    let mut o = serde_json::Map::new();
    o.insert("direction".into(), direction.name().into());
    if let Some(t) = time.and_then(serde_json::Number::from_f64) {
        o.insert("time".into(), Value::Number(t));
    }
    o.insert("opcode".into(), CLOSE.into());
    o.insert("code".into(), code.into());
    o.insert("reason".into(), reason.into());
    let mut line = Value::Object(o).to_string();
    line.push('\n');
    line
}

fn header<'a>(m: &Message<'a>, name: &str) -> Option<&'a str> {
    m.headers
        .iter()
        .find(|h| h.name == name)
        .map(|h| h.value.as_str())
}

/// One line of a message log (with its newline): what `record` writes and
/// what a HAR's `_webSocketMessages` entry becomes. `time` in seconds
/// since the epoch; `data` the text (opcode 1), base64 (2) or an error
/// text (-1).
pub fn log_line(direction: Direction, time: Option<f64>, opcode: i64, data: &str) -> String {
    let mut o = serde_json::Map::new();
    o.insert("direction".into(), direction.name().into());
    if let Some(t) = time.and_then(serde_json::Number::from_f64) {
        o.insert("time".into(), Value::Number(t));
    }
    o.insert("opcode".into(), opcode.into());
    o.insert("data".into(), data.into());
    let mut line = Value::Object(o).to_string();
    line.push('\n');
    line
}

/// The message log of a HAR entry's `_webSocketMessages` (Chrome:
/// `type` send/receive/error, `time`, `opcode`, `data`): one
/// [`log_line`] per entry, in order. An entry that is not an object with
/// a known `type` is kept as a line the framer reports as a fault.
pub fn log_of_har(messages: &[Value]) -> Vec<u8> {
    let mut out = String::new();
    for m in messages {
        let ty = m.get("type").and_then(Value::as_str).unwrap_or("");
        let time = m.get("time").and_then(Value::as_f64);
        let opcode = m.get("opcode").and_then(Value::as_i64).unwrap_or(TEXT);
        let data = m.get("data").and_then(Value::as_str).unwrap_or("");
        match (ty, Direction::parse(ty)) {
            (_, Some(d)) => out.push_str(&log_line(d, time, opcode, data)),
            ("error", None) => out.push_str(&log_line(Direction::Received, time, ERROR, data)),
            _ => {
                out.push_str(&m.to_string());
                out.push('\n');
            }
        }
    }
    out.into_bytes()
}

/// A browser's frame record (a HAR entry's `_webSocketMessages` item:
/// `type` send, receive or error, `time`, `opcode`, `data`) of one log
/// line: the inverse of [`log_of_har`]. A line that is no message record
/// is given back as its JSON value (as `log_of_har` wrote it), else as a
/// string.
pub fn har_of_line(line: &str) -> Value {
    let Ok(r) = record(line) else {
        return serde_json::from_str(line).unwrap_or_else(|_| Value::String(line.to_string()));
    };
    let mut o = serde_json::Map::new();
    let ty = match (r.opcode, r.direction) {
        (ERROR, _) => "error",
        (_, Direction::Sent) => "send",
        (_, Direction::Received) => "receive",
    };
    o.insert("type".into(), ty.into());
    if let Some(t) = r.time.and_then(serde_json::Number::from_f64) {
        o.insert("time".into(), Value::Number(t));
    }
    o.insert("opcode".into(), r.opcode.into());
    // A binary message's data stays base64, as the line has it.
    let data = serde_json::from_str::<Value>(line)
        .ok()
        .and_then(|v| v.get("data")?.as_str().map(str::to_string))
        .unwrap_or_default();
    o.insert("data".into(), data.into());
    Value::Object(o)
}

/// Whether `head`, a body's first bytes, is a message log: its first line
/// (blank space before it skipped) is a JSON object with a `direction`
/// of `sent` or `received`; or, where `head` ends inside that line, it
/// starts as [`log_line`] writes one.
pub fn looks_like(head: &[u8]) -> bool {
    let start = head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(head.len());
    let rest = &head[start..];
    if rest.first() != Some(&b'{') {
        return false;
    }
    let line = match memchr::memchr(b'\n', rest) {
        Some(end) => &rest[..end],
        // A first line longer than the bytes at hand: the start of a
        // record as this module writes it.
        None if !rest.ends_with(b"}") => {
            return rest.starts_with(br#"{"direction":"sent""#)
                || rest.starts_with(br#"{"direction":"received""#);
        }
        None => rest,
    };
    serde_json::from_slice::<Value>(line).ok().is_some_and(|v| {
        v.get("direction")
            .and_then(Value::as_str)
            .is_some_and(|d| matches!(d, "sent" | "received"))
    })
}

/// A message record read from one log line ([`record`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Which way it went.
    pub direction: Direction,
    /// Seconds since the epoch, where the log has it.
    pub time: Option<f64>,
    /// Its opcode ([`TEXT`], [`BINARY`], [`CLOSE`], [`ERROR`]).
    pub opcode: i64,
    /// Its text (a binary message's bytes decoded from base64, as lossy
    /// UTF-8).
    pub data: String,
    /// A binary message's bytes.
    pub bytes: Option<Vec<u8>>,
    /// A close's code (0 when none) and reason.
    pub close: Option<(u64, String)>,
}

impl Record {
    /// What frame the record is.
    pub fn frame(&self) -> Frame<'_> {
        match self.opcode {
            CLOSE => {
                let (code, reason) = self.close.as_ref().map_or((0, ""), |(c, r)| {
                    (u16::try_from(*c).unwrap_or(0), r.as_str())
                });
                Frame::Close { code, reason }
            }
            TEXT => Frame::Text,
            BINARY => Frame::Binary,
            ERROR => Frame::Failed,
            other => Frame::Other(other),
        }
    }
}

/// Why a log line is no message record ([`record`]); its message is the
/// sentence a finding or an error shows.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// The line is not JSON (what serde said).
    #[error("the line is not JSON ({0})")]
    NotJson(serde_json::Error),
    /// The line is JSON but not an object.
    #[error("the line is not a JSON object with a `direction`")]
    NotObject,
    /// No `direction` (or Chrome's `type`) of `sent` or `received`.
    #[error("the line has no `direction` of `sent` or `received`")]
    NoDirection,
    /// `opcode` is there but no integer.
    #[error("`opcode` is not an integer")]
    Opcode,
    /// `data` is there but no string (nor null).
    #[error("`data` is not a string")]
    Data,
    /// A binary message's `data` is not base64 (what the decoder said).
    #[error("a binary message's `data` is not base64 ({0})")]
    Base64(base64::DecodeError),
}

/// Reads one log line.
///
/// # Errors
/// Why it is no message record (not a JSON object, no `direction`, an
/// `opcode` or `data` of the wrong type, a binary message whose `data` is
/// not base64): [`RecordError`].
pub fn record(line: &str) -> Result<Record, RecordError> {
    let v: Value = serde_json::from_str(line).map_err(RecordError::NotJson)?;
    let o = v.as_object().ok_or(RecordError::NotObject)?;
    let direction = o
        .get("direction")
        .or_else(|| o.get("type"))
        .and_then(Value::as_str)
        .and_then(Direction::parse)
        .ok_or(RecordError::NoDirection)?;
    let opcode = match o.get("opcode") {
        None => TEXT,
        Some(n) => n.as_i64().ok_or(RecordError::Opcode)?,
    };
    let raw = match o.get("data") {
        None | Some(Value::Null) => "",
        Some(Value::String(s)) => s.as_str(),
        Some(_) => return Err(RecordError::Data),
    };
    let (data, bytes) = if opcode == BINARY {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(raw.trim())
            .map_err(RecordError::Base64)?;
        (String::from_utf8_lossy(&bytes).into_owned(), Some(bytes))
    } else {
        (raw.to_string(), None)
    };
    let close = (opcode == CLOSE).then(|| {
        (
            o.get("code").and_then(Value::as_u64).unwrap_or(0),
            o.get("reason")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
        )
    });
    Ok(Record {
        direction,
        time: o.get("time").and_then(Value::as_f64),
        opcode,
        data,
        bytes,
        close,
    })
}

/// The WebSocket framer: a message log's lines ([`ndjson::Framer`]) read
/// as message records. Times are made milliseconds from the first
/// message's.
pub struct Framer {
    lines: ndjson::Framer,
    first_time: Option<f64>,
    /// Messages handed over (blank lines are none).
    index: u64,
}

impl std::fmt::Debug for Framer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("websocket::Framer").finish_non_exhaustive()
    }
}

impl Framer {
    /// A framer that keeps at most `limit` bytes of a log line.
    pub fn with_limit(limit: usize) -> Self {
        Framer {
            lines: ndjson::Framer::with_limit(limit),
            first_time: None,
            index: 0,
        }
    }
}

/// Turns each log line into a message for `sink`.
struct Records<'a> {
    sink: &'a mut dyn Sink,
    first_time: &'a mut Option<f64>,
    index: &'a mut u64,
}

impl Sink for Records<'_> {
    fn message(&mut self, line: &Message<'_>) {
        if line.data.trim().is_empty() && !line.oversized {
            return;
        }
        let mut m = *line;
        m.index = *self.index;
        *self.index += 1;
        m.verbatim = false;
        if line.oversized {
            self.sink.message(&m);
            return;
        }
        match record(line.data) {
            Ok(r) => {
                let mut headers = vec![
                    Header {
                        name: DIRECTION.into(),
                        value: r.direction.name().into(),
                    },
                    Header {
                        name: OPCODE.into(),
                        value: r.opcode.to_string(),
                    },
                ];
                if let Some((code, reason)) = r.close {
                    headers.push(Header {
                        name: CLOSE_CODE.into(),
                        value: code.to_string(),
                    });
                    headers.push(Header {
                        name: CLOSE_REASON.into(),
                        value: reason,
                    });
                }
                m.time_ms = r.time.map(|t| {
                    let first = *self.first_time.get_or_insert(t);
                    (t - first) * 1000.0
                });
                m.data = &r.data;
                m.name = r.direction.name();
                m.headers = &headers;
                self.sink.message(&m);
            }
            Err(what) => {
                let fault = Fault {
                    at: line.offset,
                    len: line.len.max(1),
                    what: format!("line {} of the message log: {what}", line.line),
                };
                m.fault = Some(&fault);
                self.sink.message(&m);
            }
        }
    }
}

impl super::Framer for Framer {
    fn feed(&mut self, bytes: &[u8], sink: &mut dyn Sink) {
        let mut records = Records {
            sink,
            first_time: &mut self.first_time,
            index: &mut self.index,
        };
        super::Framer::feed(&mut self.lines, bytes, &mut records);
    }

    fn finish(&mut self, sink: &mut dyn Sink) -> Framed {
        let mut records = Records {
            sink,
            first_time: &mut self.first_time,
            index: &mut self.index,
        };
        let framed = super::Framer::finish(&mut self.lines, &mut records);
        Framed {
            messages: self.index,
            bytes: framed.bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::Framer as _;

    /// The sentences a line that is no record gets, as they were when
    /// [`record`] returned them as strings.
    #[test]
    fn a_bad_record_is_said_as_before() {
        let said = |line: &str| record(line).map(|_| ()).unwrap_err().to_string();
        assert_eq!(
            said("nope"),
            "the line is not JSON (expected ident at line 1 column 2)"
        );
        assert_eq!(
            said("[1]"),
            "the line is not a JSON object with a `direction`"
        );
        assert_eq!(
            said(r#"{"direction":"up"}"#),
            "the line has no `direction` of `sent` or `received`"
        );
        assert_eq!(
            said(r#"{"direction":"sent","opcode":"1"}"#),
            "`opcode` is not an integer"
        );
        assert_eq!(
            said(r#"{"direction":"sent","data":3}"#),
            "`data` is not a string"
        );
        assert_eq!(
            said(r#"{"direction":"received","opcode":2,"data":"@@"}"#),
            "a binary message's `data` is not base64 (Invalid symbol 64, offset 0.)"
        );
        assert!(matches!(
            record(r#"{"direction":"sent","data":3}"#),
            Err(RecordError::Data)
        ));
    }

    /// (index, offset, line, name, direction, opcode, data, time, fault)
    type Row = (
        u64,
        u64,
        u64,
        String,
        Option<Direction>,
        Option<i64>,
        String,
        Option<f64>,
        bool,
    );

    #[derive(Default)]
    struct Got(Vec<Row>);

    impl Sink for Got {
        fn message(&mut self, m: &Message<'_>) {
            self.0.push((
                m.index,
                m.offset,
                m.line,
                m.name.to_string(),
                direction(m),
                opcode(m),
                m.data.to_string(),
                m.time_ms,
                m.fault.is_some(),
            ));
        }
    }

    fn frame(pieces: &[&[u8]]) -> (Got, Framed) {
        let mut f = Framer::with_limit(1 << 20);
        let mut got = Got::default();
        for p in pieces {
            f.feed(p, &mut got);
        }
        let framed = f.finish(&mut got);
        (got, framed)
    }

    #[test]
    fn records_keep_direction_time_opcode_and_span_whatever_the_pieces() {
        let mut body = String::new();
        body.push_str(&log_line(
            Direction::Sent,
            Some(10.0),
            TEXT,
            r#"{"type":"a"}"#,
        ));
        body.push('\n');
        body.push_str(&log_line(Direction::Received, Some(10.25), BINARY, "AAEC"));
        body.push_str("{\"direction\":\"received\",\"opcode\":8,\"code\":1011,\"reason\":\"x\"}\n");
        body.push_str("not a record\n");
        let (whole, framed) = frame(&[body.as_bytes()]);
        let bytes: Vec<&[u8]> = body.as_bytes().chunks(1).collect();
        let (split, _) = frame(&bytes);
        assert_eq!(whole.0, split.0);
        assert_eq!(framed.messages, 4, "the blank line is no message");
        let first = &whole.0[0];
        assert_eq!(
            (
                first.0,
                first.1,
                first.2,
                first.3.as_str(),
                first.4,
                first.5,
                first.6.as_str(),
                first.7
            ),
            (
                0,
                0,
                1,
                "sent",
                Some(Direction::Sent),
                Some(TEXT),
                r#"{"type":"a"}"#,
                Some(0.0)
            )
        );
        let second = &whole.0[1];
        assert_eq!(
            (second.2, second.4, second.5, second.7),
            (3, Some(Direction::Received), Some(BINARY), Some(250.0))
        );
        assert_eq!(second.6, "\u{0}\u{1}\u{2}", "binary data is base64-decoded");
        assert_eq!(whole.0[2].5, Some(CLOSE));
        assert!(whole.0[3].8, "a line that is no record is a fault");
    }

    #[test]
    fn a_close_says_its_code_and_reason() {
        struct Close(Option<(u16, String)>);
        impl Sink for Close {
            fn message(&mut self, m: &Message<'_>) {
                self.0 = close(m).map(|(c, r)| (c, r.to_string()));
            }
        }
        let mut f = Framer::with_limit(1024);
        let mut got = Close(None);
        f.feed(
            b"{\"direction\":\"received\",\"opcode\":8,\"code\":4000,\"reason\":\"beta\"}\n",
            &mut got,
        );
        assert_eq!(got.0, Some((4000, "beta".to_string())));
    }

    #[test]
    fn chrome_frames_become_log_lines() {
        let msgs: Vec<Value> = serde_json::from_str(
            r#"[{"type":"send","time":1.5,"opcode":1,"data":"{}"},
                {"type":"receive","time":2,"opcode":2,"data":"AA=="},
                {"type":"error","time":3,"opcode":-1,"data":"net::ERR_CONNECTION_RESET"},
                {"what":1}]"#,
        )
        .unwrap();
        let log = String::from_utf8(log_of_har(&msgs)).unwrap();
        let lines: Vec<Value> = log
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines[0]["direction"], "sent");
        assert_eq!(lines[1]["opcode"], 2);
        assert_eq!(lines[2]["opcode"], ERROR);
        assert_eq!(lines[3], serde_json::json!({"what": 1}));
        assert!(looks_like(log.as_bytes()));
    }

    #[test]
    fn a_log_is_told_from_ndjson_and_sse() {
        assert!(looks_like(
            b"\n{\"direction\":\"received\",\"data\":\"{}\"}\n"
        ));
        assert!(looks_like(
            b"{\"direction\":\"sent\",\"time\":1,\"data\":\"{\\\"type\\\":\\\"respo"
        ));
        assert!(!looks_like(b"{\"done\":false}\n"));
        assert!(!looks_like(b"{\"direction\":\"up\"}\n"));
        assert!(!looks_like(b"data: {}\n\n"));
    }
}
