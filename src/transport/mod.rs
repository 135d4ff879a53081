//! Transports: how a body's bytes become the messages a dialect reads.
//!
//! A transport frames bytes; a dialect reads what the frames carry. The
//! two seams are apart (ripgrep's searcher and matcher): server-sent
//! events, NDJSON lines, and later AWS event-stream frames and WebSocket
//! messages each turn a body into [`Message`]s with their byte spans (and
//! times, where the input has them), and the dialect's checker reads the
//! messages whichever transport brought them. The framing rules of a
//! transport (`rules/transport/`'s SSE framing: `data-no-space`,
//! `line-endings`, …) apply to that transport alone.
//!
//! Each transport is a folder here, known in its folder alone, and picked
//! by its id ([`Transport`]) in this file:
//! - [`sse`]: `text/event-stream`. Its framing is the WHATWG algorithm in
//!   [`crate::sse`], which feeds the linter block by block (the linter's
//!   SSE framing rules need the lines of a block, not only its data);
//! - [`ndjson`]: `application/x-ndjson`, one JSON text a line (Ollama's
//!   native API);
//! - [`eventstream`]: `application/vnd.amazon.eventstream`, AWS's binary
//!   frames with their CRCs (Amazon Bedrock's streams);
//! - [`websocket`]: a socket's messages, sent and received, as a message
//!   log (one JSON record a line: a HAR's `_webSocketMessages`, or what
//!   `record` writes); one socket may carry several responses, which the
//!   pipeline tells apart (`pipeline/socket.rs`).
//!
//! What a transport does not know: JSON beyond telling itself from
//! another by a body's first bytes, dialects, rules. A dialect says which
//! transport it rides on (`Api::transport`); the pipeline settles a
//! stream's transport before its first byte is framed.

pub mod eventstream;
pub mod ndjson;
pub mod sse;
pub mod websocket;

/// Which way a message went on a socket ([`Transport::is_socket`]),
/// whose messages go both ways.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// From the client to the server.
    Sent,
    /// From the server to the client.
    Received,
}

impl Direction {
    /// `sent` or `received`.
    pub fn name(self) -> &'static str {
        match self {
            Direction::Sent => "sent",
            Direction::Received => "received",
        }
    }

    /// A log's or a HAR's spelling: `sent`/`send`, `received`/`receive`.
    pub fn parse(s: &str) -> Option<Direction> {
        match s {
            "sent" | "send" => Some(Direction::Sent),
            "received" | "receive" => Some(Direction::Received),
            _ => None,
        }
    }
}

/// What a socket's message is: RFC 6455's frame kinds as a socket's
/// message log keeps them (and a browser's record of the socket failing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame<'a> {
    /// A text message (opcode 1): its data is the text.
    Text,
    /// A binary message (opcode 2).
    Binary,
    /// A close (opcode 8), with its status code (0 when it gave none) and
    /// reason.
    Close {
        /// The status code, 0 for none.
        code: u16,
        /// The reason, `""` for none.
        reason: &'a str,
    },
    /// The socket failed (a browser's `error` entry): the data is the
    /// browser's text.
    Failed,
    /// Another opcode (a ping or pong a log kept).
    Other(i64),
}

/// A socket's message log: the one form every input of a socket is read
/// in (a HAR's frames are turned into it, `record` writes it), one
/// record a line. These are the seam's names for it; the socket transport
/// ([`websocket`]) says how a record is written.
pub mod socket_log {
    pub use super::websocket::{Record, RecordError};
    use super::{websocket, Direction, Frame};

    /// Reads one log line.
    ///
    /// # Errors
    /// Why the line is no message record ([`RecordError`]; its message is
    /// a sentence).
    pub fn record(line: &str) -> Result<Record, RecordError> {
        websocket::record(line)
    }

    /// One log line (with its newline) of a message that went `direction`
    /// at `time` (seconds since the epoch): `data` is a text message's
    /// text, a binary one's bytes in base64, a failure's text. A close is
    /// written with its code and reason.
    pub fn line(direction: Direction, time: Option<f64>, frame: Frame<'_>, data: &str) -> String {
        websocket::log_line_of(direction, time, frame, data)
    }

    /// The message log of a browser's frames (a HAR entry's
    /// `_webSocketMessages`: `type`, `time`, `opcode`, `data`), one line
    /// per frame ([`websocket::log_of_har`]).
    pub fn of_har(messages: &[serde_json::Value]) -> Vec<u8> {
        websocket::log_of_har(messages)
    }

    /// A browser's frame record (a HAR entry's `_webSocketMessages`
    /// item) of one log line: what [`of_har`] read it from
    /// ([`websocket::har_of_line`]).
    pub fn har_message(line: &str) -> serde_json::Value {
        websocket::har_of_line(line)
    }

    /// Whether `head`, a body's first bytes, starts a message log.
    pub fn looks_like(head: &[u8]) -> bool {
        websocket::looks_like(head)
    }
}

/// One of the ways a stream's messages arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    /// Server-sent events (`text/event-stream`), framed by [`crate::sse`].
    #[default]
    Sse,
    /// Newline-delimited JSON (`application/x-ndjson`).
    Ndjson,
    /// AWS event-stream frames (`application/vnd.amazon.eventstream`).
    EventStream,
    /// WebSocket messages, from a message log ([`websocket`]).
    WebSocket,
}

/// Every transport, in the order reports list them.
pub const ALL: &[Transport] = &[
    Transport::Sse,
    Transport::Ndjson,
    Transport::EventStream,
    Transport::WebSocket,
];

impl Transport {
    /// Its short name (`sse`, `ndjson`), for reports.
    pub fn name(self) -> &'static str {
        match self {
            Transport::Sse => sse::NAME,
            Transport::Ndjson => ndjson::NAME,
            Transport::EventStream => eventstream::NAME,
            Transport::WebSocket => websocket::NAME,
        }
    }

    /// The media type a response of this transport is sent as.
    pub fn media_type(self) -> &'static str {
        match self {
            Transport::Sse => sse::MEDIA_TYPE,
            Transport::Ndjson => ndjson::MEDIA_TYPE,
            Transport::EventStream => eventstream::MEDIA_TYPE,
            Transport::WebSocket => websocket::MEDIA_TYPE,
        }
    }

    /// What one message is called in reports (`event`, `line`).
    pub fn message(self) -> &'static str {
        match self {
            Transport::Sse => sse::MESSAGE,
            Transport::Ndjson => ndjson::MESSAGE,
            Transport::EventStream => eventstream::MESSAGE,
            Transport::WebSocket => websocket::MESSAGE,
        }
    }

    /// What a body of this transport is, in a phrase for messages
    /// (`AWS event-stream frames`, `NDJSON lines`).
    pub fn what(self) -> &'static str {
        match self {
            Transport::Sse => sse::WHAT,
            Transport::Ndjson => ndjson::WHAT,
            Transport::EventStream => eventstream::WHAT,
            Transport::WebSocket => websocket::WHAT,
        }
    }

    /// A framer for one body of this transport, refusing a message past
    /// `limit` bytes; `None` for SSE, which [`crate::sse::Parser`] frames
    /// into blocks for the linter's SSE framing rules.
    pub fn framer(self, limit: usize) -> Option<Box<dyn Framer>> {
        match self {
            Transport::Sse => None,
            Transport::Ndjson => Some(Box::new(ndjson::Framer::with_limit(limit))),
            Transport::EventStream => Some(Box::new(eventstream::Framer::with_limit(limit))),
            Transport::WebSocket => Some(Box::new(websocket::Framer::with_limit(limit))),
        }
    }

    /// Whether this transport's messages are binary frames (AWS
    /// event-stream): a copy of a body is written message by message
    /// ([`Transport::rewrite`]), never line by line as text.
    pub fn is_binary(self) -> bool {
        matches!(self, Transport::EventStream)
    }

    /// A copy of `body` with each message's payload put through
    /// `payload`, the framing around it (lengths, checksums) written anew
    /// and its faults kept where they were ([`eventstream::rewrite`]);
    /// `None` for a text transport, whose messages are rewritten as lines.
    ///
    /// # Errors
    /// Inside `Some`: a message whose framing cannot be read, past which
    /// no byte can be told apart.
    pub fn rewrite(
        self,
        body: &[u8],
        payload: impl FnMut(&[u8]) -> Vec<u8>,
    ) -> Option<Result<Vec<u8>, String>> {
        match self {
            Transport::EventStream => Some(eventstream::rewrite(body, payload)),
            Transport::Sse | Transport::Ndjson | Transport::WebSocket => None,
        }
    }

    /// Whether this transport is a socket: one connection whose messages
    /// go both ways and may carry several responses, opened by a
    /// handshake that answers 101 Switching Protocols (WebSocket).
    pub fn is_socket(self) -> bool {
        self == Transport::WebSocket
    }

    /// The socket transport a body's first bytes show: a body that
    /// carries several streams (a socket's message log, whose responses
    /// the pipeline tells apart); `None` for a body of one stream. The
    /// code that reads such a body asks this, never a transport by name.
    pub fn socket_of(head: &[u8]) -> Option<Transport> {
        Transport::of_bytes(head).filter(|t| t.is_socket())
    }

    /// Whether this transport has comments a server may send between
    /// messages (SSE's `: keep-alive`); NDJSON and event-stream have none:
    /// every line or frame is a message to its clients.
    pub fn has_comments(self) -> bool {
        self == Transport::Sse
    }

    /// Where the checksums of the frame at body bytes `frame` are, for a
    /// transport whose frames carry them (AWS event-stream: the prelude
    /// CRC and the message CRC), as `(prelude, message)` body ranges;
    /// `None` for a transport without checksums or a frame too short to
    /// hold them.
    pub fn checksums(
        self,
        frame: std::ops::Range<u64>,
    ) -> Option<(std::ops::Range<u64>, std::ops::Range<u64>)> {
        match self {
            Transport::EventStream => eventstream::checksums(frame),
            Transport::Sse | Transport::Ndjson | Transport::WebSocket => None,
        }
    }

    /// Whether this transport's frames carry checksums
    /// ([`Transport::checksums`]).
    pub fn has_checksums(self) -> bool {
        self.checksums(0..u64::MAX).is_some()
    }

    /// [`Transport::rewrite`] from a reader to a writer, a message at a
    /// time ([`eventstream::rewrite_to`]): memory holds one message;
    /// `None` for a text transport.
    ///
    /// # Errors
    /// Inside `Some`: reading or writing (the outer error), a message
    /// whose framing cannot be read (the inner one).
    pub fn rewrite_to(
        self,
        input: &mut dyn std::io::Read,
        out: &mut dyn std::io::Write,
        payload: impl FnMut(&[u8]) -> Vec<u8>,
    ) -> Option<std::io::Result<Result<(), String>>> {
        match self {
            Transport::EventStream => Some(eventstream::rewrite_to(input, out, payload)),
            Transport::Sse | Transport::Ndjson | Transport::WebSocket => None,
        }
    }

    /// The transport whose media type `content_type` is (parameters and
    /// case ignored); `None` for any other.
    pub fn of_media_type(content_type: &str) -> Option<Transport> {
        let media = content_type
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        ALL.iter()
            .copied()
            .find(|t| !t.media_type().is_empty() && t.media_type() == media)
    }

    /// The transport a body's first bytes show, when they show one that
    /// is not SSE (SSE is what a body is read as otherwise): an AWS
    /// event-stream frame whose prelude holds ([`eventstream::looks_like`]),
    /// a WebSocket message log ([`websocket::looks_like`]), or NDJSON when
    /// its first line is a JSON object of the shape [`ndjson::looks_like`]
    /// names.
    pub fn of_bytes(head: &[u8]) -> Option<Transport> {
        if eventstream::looks_like(head) {
            return Some(Transport::EventStream);
        }
        if websocket::looks_like(head) {
            return Some(Transport::WebSocket);
        }
        ndjson::looks_like(head).then_some(Transport::Ndjson)
    }
}

/// What names a body's transport besides its bytes, each as the
/// transport it names: the response's Content-Type
/// ([`Transport::of_media_type`]), the request path's dialect's, and
/// `--dialect`'s (the transport its API rides on). The code that knows
/// dialects fills it; [`settle`] weighs it against the bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Named {
    /// The transport the Content-Type names.
    pub media: Option<Transport>,
    /// The transport of the dialect the request path names.
    pub path: Option<Transport>,
    /// The transport of the dialect `--dialect` names.
    pub forced: Option<Transport>,
}

/// The transport a body is framed by, from its first bytes `head` (as
/// [`Head`] holds them) and what names one (`named`), first match wins:
/// 1. what the bytes show beyond doubt: an AWS event-stream frame whose
///    prelude holds, a socket's message log, an NDJSON line with a boolean
///    `done` ([`Transport::of_bytes`]), or SSE text ([`sse::looks_like`]).
///    They beat any name: a body whose Content-Type or path names another
///    transport is read as what it is, and `content-type` or
///    `path-dialect-mismatch` says the names are wrong;
/// 2. bytes that show none (a first frame whose prelude fails, a body cut
///    inside its first prelude, a line of another shape): the first name
///    of a transport other than SSE, in the order Content-Type, path,
///    `--dialect` (binary bytes take the first name of a binary
///    transport), since they are no SSE text;
/// 3. else SSE, unless the bytes are binary ([`looks_binary`]): `None`,
///    no transport can read them.
pub fn settle(head: &[u8], named: Named) -> Option<Transport> {
    if let Some(t) = Transport::of_bytes(head) {
        return Some(t);
    }
    if sse::looks_like(head) {
        return Some(Transport::Sse);
    }
    let mut others = [named.media, named.path, named.forced]
        .into_iter()
        .flatten()
        .filter(|t| *t != Transport::Sse);
    let binary = looks_binary(head);
    let first_binary = others.clone().find(|t| t.is_binary());
    match (first_binary.filter(|_| binary), others.next()) {
        (Some(t), _) | (None, Some(t)) => Some(t),
        (None, None) => (!binary).then_some(Transport::Sse),
    }
}

/// Whether a body's first bytes are binary, not text: a control byte
/// other than white space (a NUL, as an event-stream prelude's length
/// starts with) among its first 16 bytes.
pub fn looks_binary(head: &[u8]) -> bool {
    head.iter()
        .take(16)
        .any(|&b| (b < 0x20 && !b.is_ascii_whitespace()) || b == 0x7f)
}

/// Bytes held before a body's transport is settled, unless its first line
/// is a JSON object (see [`Head`]).
pub const SNIFF_BYTES: usize = 64 * 1024;

/// A body's first bytes, held until they are enough to settle its
/// transport ([`settle`]) whatever pieces they arrive in: a sound
/// event-stream prelude (12 bytes); else its first line that is not
/// blank, ended by a newline, and 12 bytes at least (a binary prelude may
/// hold a newline byte); else [`SNIFF_BYTES`], or, when that line starts
/// as a JSON object (an NDJSON line, whose `done` comes last), the line
/// whole up to `limit` bytes (`--max-event-bytes`, which its framer holds
/// anyway). The body's end settles it too, on what came.
#[derive(Debug, Default)]
pub struct Head {
    held: Vec<u8>,
    /// Offset of the first byte that is not white space, once seen.
    start: Option<usize>,
    /// Bytes already looked at for the start and the newline.
    scanned: usize,
    /// The first line that is not blank has ended.
    line: bool,
    limit: usize,
}

/// Bytes of an event-stream prelude: what [`Head`] holds at least.
const PRELUDE: usize = 12;

impl Head {
    /// An empty head for a body whose messages may be `limit` bytes.
    pub fn new(limit: usize) -> Self {
        Head {
            limit,
            ..Head::default()
        }
    }

    /// Holds `bytes`; whether the head is now enough to settle on.
    pub fn push(&mut self, bytes: &[u8]) -> bool {
        self.held.extend_from_slice(bytes);
        while !self.line && self.scanned < self.held.len() {
            let rest = &self.held[self.scanned..];
            match self.start {
                None => match rest.iter().position(|b| !b.is_ascii_whitespace()) {
                    Some(i) => self.start = Some(self.scanned + i),
                    None => self.scanned = self.held.len(),
                },
                Some(s) => {
                    let from = self.scanned.max(s);
                    match memchr::memchr(b'\n', &self.held[from..]) {
                        Some(_) => self.line = true,
                        None => self.scanned = self.held.len(),
                    }
                }
            }
        }
        self.enough()
    }

    fn enough(&self) -> bool {
        let n = self.held.len();
        if n >= PRELUDE && (self.line || eventstream::looks_like(&self.held)) {
            return true;
        }
        let json_line = self.start.is_some_and(|s| self.held.get(s) == Some(&b'{'));
        let cap = if json_line {
            self.limit.max(SNIFF_BYTES)
        } else {
            SNIFF_BYTES
        };
        n >= cap
    }

    /// The bytes held.
    pub fn bytes(&self) -> &[u8] {
        &self.held
    }

    /// The bytes held, taken.
    pub fn take(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.held)
    }
}

impl std::fmt::Display for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One message as a transport framed it: its place in the body and what
/// it carries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Message<'a> {
    /// 0-based count of messages before this one.
    pub index: u64,
    /// Byte offset in the body of the message's first byte.
    pub offset: u64,
    /// Its length in bytes, terminator (or CRCs) included.
    pub len: u64,
    /// 1-based line of its first byte in the body (text transports; 1 for
    /// a binary one).
    pub line: u64,
    /// What the message carries, as text (lossy UTF-8); for a text
    /// transport these are the message's bytes without the terminator,
    /// starting at `offset`, so a span inside it is a span of the body.
    pub data: &'a str,
    /// Whether `data` is exactly the body's bytes at `offset` (not
    /// decoded or unwrapped): spans inside it are then the body's.
    pub verbatim: bool,
    /// The message's type where the transport names one (an event-stream
    /// frame's `:event-type`); `message` otherwise.
    pub name: &'a str,
    /// Whether its terminator came (a last NDJSON line with no newline:
    /// false).
    pub terminated: bool,
    /// Milliseconds from the request where the transport itself carries a
    /// time (a WebSocket message in a HAR); `None` leaves it to the
    /// capture's timing of the bytes.
    pub time_ms: Option<f64>,
    /// Whether the message was larger than the framer's limit: `data` is
    /// then only its start.
    pub oversized: bool,
    /// Body offset of `data`'s first byte where `data` is verbatim (a
    /// frame's payload starts after its prelude and headers; a line at
    /// its own start).
    pub data_offset: u64,
    /// The message's headers, where the transport has them (an
    /// event-stream frame's `:event-type`, `:message-type`, …); each
    /// value as text.
    pub headers: &'a [Header],
    /// Why the transport could not read the message whole (a frame that
    /// fails its CRC, a cut frame): `data` is then not handed to a
    /// dialect.
    pub fault: Option<&'a Fault>,
}

/// One header of a message, its value as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The header's name (`:event-type`).
    pub name: String,
    /// Its value: a string as it is; a number, boolean or timestamp (ms)
    /// as written in decimal; bytes and UUIDs in hex.
    pub value: String,
}

/// Where and why a transport could not read a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// Body offset of the first byte at fault (a CRC, the last byte of a
    /// cut frame).
    pub at: u64,
    /// Bytes at fault from there.
    pub len: u64,
    /// What is wrong, as a sentence.
    pub what: String,
}

impl<'a> Message<'a> {
    /// Byte offset in the body just past the message.
    pub fn end(&self) -> u64 {
        self.offset + self.len
    }

    /// Which way the message went, on a socket; `None` on a transport
    /// whose messages all come from the server.
    pub fn direction(&self) -> Option<Direction> {
        websocket::direction(self)
    }

    /// What frame the message is, on a socket; `None` on another
    /// transport.
    pub fn frame(&self) -> Option<Frame<'a>> {
        websocket::frame(self)
    }
}

/// Where a framer hands its messages.
pub trait Sink {
    /// One message, in body order.
    fn message(&mut self, message: &Message<'_>);
}

/// What a framer counted over a whole body.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Framed {
    /// Messages handed over.
    pub messages: u64,
    /// Body bytes read.
    pub bytes: u64,
}

/// A transport's incremental framer: bytes in, in any pieces; messages
/// out, each once whole (or at the end of the body, as far as it came).
pub trait Framer {
    /// Frames what `bytes` completes.
    fn feed(&mut self, bytes: &[u8], sink: &mut dyn Sink);
    /// The end of the body: hands over a last message the body ended
    /// inside, and says what was framed.
    fn finish(&mut self, sink: &mut dyn Sink) -> Framed;
}
