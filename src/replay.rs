//! Serving a capture as the endpoint of its API: a small HTTP/1.1 server
//! (std `TcpListener`, a thread per connection) that answers the POST of
//! the capture's dialect (`/v1/chat/completions`, `/v1/responses` or
//! `/v1/messages`, each also without `/v1`; Gemini's
//! `/v1beta/models/MODEL:streamGenerateContent` and the other paths its
//! API streams at, [`crate::dialect::Api::other_endpoint`]) with the capture's status,
//! headers and body, in chunked transfer coding, paced by the capture's own
//! timing or by fixed delays, and able to inject faults: writes of N bytes
//! (splitting UTF-8 characters and CRLF pairs), keep-alive comments during
//! waits, and a connection dropped after N bytes.
//!
//! The dialect is told as `check` tells it ([`crate::dialect`]): the
//! first event that names one, else the request path the capture holds; a
//! stream of no known dialect is served as Chat (as `check` reads it). Any
//! other request gets a 404 whose JSON body has the error shape of the API
//! the path belongs to (OpenAI's `{"error": {…}}`, Anthropic's `{"type":
//! "error", "error": {…}}`) and names the path that serves the capture.
//!
//! It is for testing clients (and sselint's own `record`); it is not a
//! general web server.

use crate::capture::spool::{Spool, Spooled};
use crate::capture::{self, Body, Timing};
use crate::dialect::{self, Dialect, Sniffed};
use crate::sse::{Block, Parser};
use crate::transport::{self, Transport};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

mod socket;

/// Largest request head read (bytes).
pub const MAX_REQUEST_HEAD: usize = 64 * 1024;
/// Largest request body read (bytes).
pub const MAX_REQUEST_BODY: usize = 16 * 1024 * 1024;

/// What to serve.
#[derive(Debug, Clone)]
pub struct Replay {
    /// Status code.
    pub status: u16,
    /// Reason phrase.
    pub reason: String,
    /// Headers to send (hop-by-hop and framing headers removed).
    pub headers: Vec<(String, String)>,
    /// The body (decoded, de-chunked): in memory, or past
    /// [`capture::spool::MEM_BYTES`] in a temporary file, read a segment at
    /// a time as it is served.
    pub body: Spooled,
    /// Timing from the capture, if any.
    pub timing: Option<Timing>,
    /// The stream's dialect, as told from the capture (`None`: no known
    /// dialect; it is served as Chat).
    pub dialect: Option<Dialect>,
    /// How the body's messages are framed (SSE events, NDJSON lines,
    /// event-stream frames): where `--delay-ms` waits and
    /// `--cut-after-messages` cuts.
    pub transport: Transport,
    /// The path the stream answers where its API streams at several and
    /// the capture tells which ([`crate::dialect::Api::endpoint_of_message`]:
    /// Ollama's `/api/generate`); `None`: the dialect's endpoint.
    pub endpoint: Option<&'static str>,
}

/// How to serve it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Milliseconds between events (when the capture has no timing, or to
    /// override it).
    pub delay_ms: Option<u64>,
    /// Milliseconds before the first byte.
    pub first_delay_ms: Option<u64>,
    /// Write the body N bytes at a time.
    pub split_bytes: Option<usize>,
    /// Drop the connection after N body bytes.
    pub cut_after_bytes: Option<u64>,
    /// Drop the connection after N whole messages (SSE events, NDJSON
    /// lines, event-stream frames).
    pub cut_after_messages: Option<u64>,
    /// Flip the message CRC of event-stream frame N (counted from 1) in
    /// flight.
    pub corrupt_crc: Option<u64>,
    /// Flip the prelude CRC of event-stream frame N (counted from 1) in
    /// flight.
    pub corrupt_prelude_crc: Option<u64>,
    /// Send `: keep-alive` comments at event boundaries during waits of this
    /// many milliseconds (SSE; NDJSON and event-stream have no comments);
    /// over a WebSocket, a ping frame every this many milliseconds of a
    /// wait.
    pub keepalive_ms: Option<u64>,
    /// WebSocket only: where the socket ends (after
    /// [`Options::cut_after_messages`] N, or in place of the log's own
    /// end), close it with this code and [`Options::close_reason`]
    /// instead.
    pub close_code: Option<u16>,
    /// WebSocket only: the reason of [`Options::close_code`]'s close frame
    /// (at most 123 bytes; empty when `None`).
    pub close_reason: Option<&'static str>,
    /// WebSocket only: after N server messages, send an `error` message
    /// (`{"type":"error","error":{…}}`, the shape Responses' WebSocket
    /// mode and Realtime share) and drop the rest of that turn's messages.
    pub error_after_messages: Option<u64>,
    /// WebSocket only: after N server messages, send one text message
    /// that is not JSON, then go on.
    pub garbage_after_messages: Option<u64>,
    /// WebSocket only: after N server messages, send nothing more and
    /// hold the socket open until the client closes it (pings still go
    /// with [`Options::keepalive_ms`]).
    pub stall_after_messages: Option<u64>,
    /// Answer any path and method, not only the POST of the dialect's
    /// endpoint.
    pub any_path: bool,
    /// Serve one request, then stop.
    pub once: bool,
}

/// Headers never copied from the capture (they describe the original
/// transfer, not this one).
const DROPPED_HEADERS: &[&str] = &[
    "content-length",
    "transfer-encoding",
    "content-encoding",
    "connection",
    "keep-alive",
    "date",
];

/// Why a capture could not be served ([`Replay::load`]); the message names
/// it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The capture could not be read.
    #[error(transparent)]
    Input(#[from] capture::InputError),
    /// It holds several event streams (their labels) and none was picked.
    #[error("{path}: the capture holds {} event streams; serve one with --entry N:\n{}", labels.len(), labels.iter().map(|l| format!("  {l}")).collect::<Vec<_>>().join("\n"))]
    Streams {
        /// The capture.
        path: String,
        /// Each stream's label.
        labels: Vec<String>,
    },
    /// It holds no stream.
    #[error("{path}: no stream to replay")]
    NoStream {
        /// The capture.
        path: String,
    },
    /// Its body could not be read whole.
    #[error("{path}: {reason}")]
    Read {
        /// The capture.
        path: String,
        /// What went wrong.
        reason: String,
    },
}

impl Replay {
    /// Loads the stream of a capture (`opts` picks a HAR entry);
    /// `dialect` (`--dialect`) overrides the one told from the capture.
    ///
    /// # Errors
    /// The capture cannot be read, holds no stream, or holds several (a
    /// HAR with more than one event stream and no `--entry`): the message
    /// lists them ([`LoadError`]).
    pub fn load(
        path: &str,
        opts: &capture::Options,
        dialect: Option<Dialect>,
    ) -> Result<Self, LoadError> {
        let cap = capture::open(path, opts)?;
        if cap.streams.len() > 1 {
            // Serving the first would answer with a stream the user may not
            // have meant, and say nothing: name them and let them pick.
            return Err(LoadError::Streams {
                path: path.to_string(),
                labels: cap.streams.iter().map(|s| s.label.clone()).collect(),
            });
        }
        let Some(stream) = cap.streams.into_iter().next() else {
            return Err(LoadError::NoStream {
                path: path.to_string(),
            });
        };
        let body = match stream.body {
            Body::Bytes(b) => Spooled::Mem(b),
            Body::Reader(mut r) => {
                let mut spool = Spool::default();
                let mut buf = vec![0u8; 64 * 1024];
                loop {
                    match r.read(&mut buf) {
                        Ok(0) => break,
                        Ok(n) => spool.extend(&buf[..n]),
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) => {
                            return Err(LoadError::Read {
                                path: path.to_string(),
                                reason: capture::io_message(&e),
                            })
                        }
                    }
                }
                spool.finish().map_err(|e| LoadError::Read {
                    path: path.to_string(),
                    reason: e.to_string(),
                })?
            }
        };
        let (status, reason, mut headers) = match &stream.http {
            Some(h) => (
                h.status,
                h.reason.clone(),
                h.headers
                    .iter()
                    .filter(|x| {
                        !DROPPED_HEADERS
                            .iter()
                            .any(|d| d.eq_ignore_ascii_case(&x.name))
                            && x.value != capture::REDACTED
                    })
                    .map(|x| (x.name.clone(), x.value.clone()))
                    .collect::<Vec<_>>(),
            ),
            None => (200, "OK".to_string(), Vec::new()),
        };
        // The body's dialect over the request path's, as `check` reads it
        // (`path-dialect-mismatch`): the capture is served as what it is.
        // A body that is no event stream but one JSON value in a shape an
        // API answers with (Gemini's JSON array, without `alt=sse`) is that
        // API's, as `check` tells it (`body-not-sse`), served as captured.
        let url = stream.request.as_ref().map(|r| r.url.as_str());
        let content_type = stream.http.as_ref().and_then(|h| h.content_type.clone());
        let transport = settle_transport(&body, content_type.as_deref(), url, dialect);
        let shape = if transport == Transport::Sse {
            body_shape(&body)
        } else {
            None
        };
        let (sniffed, endpoint) = match transport {
            Transport::Sse => (sniff_body(&body), None),
            t => sniff_messages(&body, t),
        };
        let url_dialect = url.and_then(dialect::sniff_url);
        let dialect = dialect.or_else(|| {
            sniffed
                .or(shape.as_ref().map(|(d, _)| *d))
                .or(url_dialect)
                .or_else(|| {
                    // As `check` reads a stream of another transport.
                    let riding = dialect::riding_on(transport);
                    (transport != Transport::Sse).then(|| riding.first().copied())?
                })
        });
        // The path the capture was asked at, where it is one the dialect
        // streams at, over what its messages show.
        let endpoint = url
            .and_then(|u| {
                let path = u.split(['?', '#']).next().unwrap_or(u);
                let path = path
                    .split_once("://")
                    .map_or(path, |(_, rest)| rest.find('/').map_or("", |i| &rest[i..]));
                // Only an API that streams at several paths (Ollama's
                // `/api/chat` and `/api/generate`) is pinned to one.
                let d = dialect?;
                let others = d.other_paths();
                let paths = others.iter().copied().chain(std::iter::once(d.endpoint()));
                paths
                    .filter(|_| !others.is_empty())
                    .find(|p| !p.contains('{') && path.ends_with(*p))
            })
            .or(endpoint.filter(|_| dialect == sniffed));
        if !headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("content-type"))
        {
            let ct = content_type.unwrap_or_else(|| {
                if shape.is_some() {
                    "application/json".to_string()
                } else {
                    dialect
                        .map_or(transport, |d| d.api().transport())
                        .media_type()
                        .to_string()
                }
            });
            headers.push(("Content-Type".to_string(), ct));
        }
        Ok(Replay {
            status,
            reason: if reason.is_empty() {
                reason_phrase(status).to_string()
            } else {
                reason
            },
            headers,
            body,
            timing: stream.timing,
            dialect,
            transport,
            endpoint,
        })
    }

    /// The path the capture is served at: its [`Replay::endpoint`], or
    /// the served dialect's endpoint under its base.
    pub fn path(&self) -> String {
        match self.endpoint {
            Some(p) => p.to_string(),
            None => format!("{}{}", self.served().base(), self.served().endpoint()),
        }
    }

    /// Whether a request for `path` (no query) is one the capture answers:
    /// its [`Replay::endpoint`] where it has one, else any path the served
    /// dialect streams at.
    pub fn answers(&self, path: &str) -> bool {
        match self.endpoint {
            Some(p) => path == p,
            None => endpoint_dialect(path) == Some(self.served()),
        }
    }

    /// The end offset of message `n` (counted from 1) of the body, if it
    /// has that many.
    pub fn message_end(&self, n: u64) -> Option<u64> {
        if n == 0 {
            return Some(0);
        }
        MessageEnds::new(&self.body, self.transport)
            .nth((n - 1) as usize)
            .map(|e| e as u64)
    }

    /// How many messages the body holds (a last one cut included).
    pub fn messages(&self) -> u64 {
        MessageEnds::new(&self.body, self.transport).count() as u64
    }

    /// What the body is when it is no event stream but one JSON value (or
    /// the start of one) in a shape its API answers with: a few words
    /// (`a JSON array of 2 Gemini GenerateContentResponse object(s): …`).
    pub fn shape(&self) -> Option<String> {
        body_shape(&self.body).map(|(_, what)| what)
    }

    /// Whether the capture is a socket's message log, served as a
    /// WebSocket endpoint (`replay/socket.rs`).
    pub fn is_socket(&self) -> bool {
        socket::is_socket(self)
    }

    /// How many messages a socket capture's server sends (text and binary
    /// records received; the close is none): what
    /// [`Options::cut_after_messages`] and the other socket faults count.
    ///
    /// # Errors
    /// The body cannot be read.
    pub fn socket_messages(&self) -> io::Result<u64> {
        socket::server_messages(self)
    }

    /// The dialect the capture is served as (the default dialect, Chat,
    /// when none is known).
    pub fn served(&self) -> Dialect {
        self.dialect.unwrap_or(dialect::DEFAULT)
    }

    /// Whether some wait of its schedule under `opts` is longer than `ms`
    /// milliseconds: `--keepalive-ms` sends its comments only during such
    /// waits.
    pub fn waits_longer_than(&self, ms: u64, opts: &Options) -> bool {
        self.schedule(opts).iter().any(|(wait, _)| *wait > ms)
    }

    /// The body as (wait in ms before, bytes) segments, following the
    /// capture's timing, or `opts`' delays at event boundaries: the
    /// [`Replay::segments`] collected.
    pub fn schedule(&self, opts: &Options) -> Vec<(u64, std::ops::Range<usize>)> {
        self.segments(opts).collect()
    }

    /// [`Replay::schedule`] as it goes: the event boundaries are found as
    /// the body is read (a few at a time), so a capture of a million
    /// events is served without a list of them. Only a capture's own
    /// per-read times (`_sselint.reads`, held with the capture) are
    /// sorted first.
    pub fn segments<'a>(
        &'a self,
        opts: &Options,
    ) -> impl Iterator<Item = (u64, std::ops::Range<usize>)> + 'a {
        let len = self.body.len() as usize;
        let overridden = opts.delay_ms.is_some() || opts.first_delay_ms.is_some();
        // (start offset, absolute ms), by offset.
        let cuts: Box<dyn Iterator<Item = (usize, f64)> + 'a> = match (&self.timing, overridden) {
            (Some(Timing::Reads(reads)), false) => {
                let mut cuts: Vec<(usize, f64)> = reads
                    .iter()
                    .map(|r| ((r.offset as usize).min(len), r.ms))
                    .collect();
                cuts.sort_by_key(|c| c.0);
                Box::new(cuts.into_iter())
            }
            (Some(Timing::Events(times)), false) => Box::new(
                std::iter::once((0, times.first().copied().unwrap_or(0.0))).chain(
                    MessageEnds::new(&self.body, self.transport)
                        .zip(times.iter().skip(1))
                        .map(|(end, t)| (end, *t)),
                ),
            ),
            _ => {
                let first = opts.first_delay_ms.unwrap_or(0) as f64;
                let step = opts.delay_ms.unwrap_or(0) as f64;
                Box::new(
                    std::iter::once((0, first)).chain(
                        MessageEnds::new(&self.body, self.transport)
                            .enumerate()
                            .map(move |(i, end)| (end, first + step * (i as f64 + 1.0))),
                    ),
                )
            }
        };
        segments(cuts, len)
    }
}

/// The (wait in ms, byte range) segments that `cuts` (start offset and
/// absolute ms, in offset order) make of a body of `len` bytes: a cut at
/// an offset already cut is dropped, the first segment starts at 0, an
/// empty one is skipped, and a wait is the time past the latest so far.
fn segments(
    cuts: impl Iterator<Item = (usize, f64)>,
    len: usize,
) -> impl Iterator<Item = (u64, std::ops::Range<usize>)> {
    let mut last = None;
    let deduped = cuts.filter(move |c| {
        let new = last != Some(c.0);
        last = Some(c.0);
        new
    });
    let mut cuts = deduped.peekable();
    let head = match cuts.peek() {
        Some(c) if c.0 == 0 => None,
        _ => Some((0, 0.0)),
    };
    let mut cuts = head.into_iter().chain(cuts).peekable();
    let mut prev_ms: f64 = 0.0;
    std::iter::from_fn(move || loop {
        let (start, ms) = cuts.next()?;
        let end = cuts.peek().map_or(len, |c| c.0);
        if end <= start {
            continue;
        }
        let wait = (ms - prev_ms).max(0.0);
        prev_ms = prev_ms.max(ms);
        return Some((wait.round() as u64, start..end));
    })
}

/// End offsets of every message of a body, in order, found as it is
/// read (64 KiB at a time): each SSE block after its blank line (through
/// the SSE parser), each NDJSON line after its newline, each event-stream
/// frame after its CRC (through the transport's framer; a frame that
/// fails its CRC too, a cut one at the body's end).
struct MessageEnds<'a> {
    body: &'a Spooled,
    /// The body's reader once on disk; bytes fed so far when in memory.
    reader: Option<Box<dyn Read + Send>>,
    fed: usize,
    framing: Option<Framing>,
    ends: std::collections::VecDeque<usize>,
    buf: Vec<u8>,
}

/// How [`MessageEnds`] frames a body.
enum Framing {
    Sse(Box<Parser>),
    Framed(Box<dyn transport::Framer>),
}

/// A sink that keeps the end of every whole message.
struct Ends<'a>(&'a mut std::collections::VecDeque<usize>);

impl crate::sse::Sink for Ends<'_> {
    fn block(&mut self, b: &Block<'_>) {
        if b.terminated {
            self.0.push_back(b.end_offset as usize);
        }
    }
}

impl transport::Sink for Ends<'_> {
    fn message(&mut self, m: &transport::Message<'_>) {
        self.0.push_back(m.end() as usize);
    }
}

impl Framing {
    fn of(t: Transport) -> Self {
        match t.framer(transport::eventstream::MAX_FRAME) {
            Some(f) => Framing::Framed(f),
            None => Framing::Sse(Box::new(Parser::new())),
        }
    }

    fn feed(&mut self, bytes: &[u8], ends: &mut std::collections::VecDeque<usize>) {
        match self {
            Framing::Sse(p) => p.feed(bytes, &mut Ends(ends)),
            Framing::Framed(f) => f.feed(bytes, &mut Ends(ends)),
        }
    }

    fn finish(self, ends: &mut std::collections::VecDeque<usize>) {
        match self {
            Framing::Sse(p) => {
                p.finish(&mut Ends(ends));
            }
            Framing::Framed(mut f) => {
                f.finish(&mut Ends(ends));
            }
        }
    }
}

impl<'a> MessageEnds<'a> {
    fn new(body: &'a Spooled, t: Transport) -> Self {
        MessageEnds {
            body,
            reader: None,
            fed: 0,
            framing: Some(Framing::of(t)),
            ends: std::collections::VecDeque::new(),
            buf: Vec::new(),
        }
    }

    /// Feeds the framing the next 64 KiB; at the end, finishes it. False
    /// once nothing is left.
    fn refill(&mut self) -> bool {
        const STEP: usize = 64 * 1024;
        let Some(p) = self.framing.as_mut() else {
            return false;
        };
        let n = match self.body {
            Spooled::Mem(b) => {
                let piece = &b[self.fed..(self.fed + STEP).min(b.len())];
                self.fed += piece.len();
                p.feed(piece, &mut self.ends);
                piece.len()
            }
            Spooled::File(..) => {
                let r = self.reader.get_or_insert_with(|| self.body.reader());
                self.buf.resize(STEP, 0);
                let n = loop {
                    match r.read(&mut self.buf) {
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        // An unreadable rest ends the messages here.
                        r => break r.unwrap_or(0),
                    }
                };
                p.feed(&self.buf[..n], &mut self.ends);
                n
            }
        };
        if n == 0 {
            if let Some(p) = self.framing.take() {
                p.finish(&mut self.ends);
            }
        }
        true
    }
}

impl Iterator for MessageEnds<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        loop {
            if let Some(e) = self.ends.pop_front() {
                return Some(e);
            }
            if !self.refill() {
                return None;
            }
        }
    }
}

/// The transport of a body, as `check` settles it
/// ([`transport::settle`]): what its first bytes show (an event-stream
/// prelude, an NDJSON line, SSE text), else the first of its
/// Content-Type, the request path and `--dialect` that names another
/// transport than SSE, else SSE (binary bytes that nothing frames are
/// served as they are, as SSE).
fn settle_transport(
    body: &Spooled,
    content_type: Option<&str>,
    url: Option<&str>,
    forced: Option<Dialect>,
) -> Transport {
    let head = body.head(transport::SNIFF_BYTES);
    let named = transport::Named {
        media: content_type.and_then(Transport::of_media_type),
        path: url
            .and_then(dialect::sniff_url)
            .map(|d| d.api().transport()),
        forced: forced.map(|d| d.api().transport()),
    };
    transport::settle(&head, named).unwrap_or_default()
}

/// The dialect of a body on transport `t` (not SSE) as `check` tells it
/// at its first message (the one its type shows: a frame's
/// `:event-type`), and the path the first message with JSON data shows
/// it answers ([`crate::dialect::Api::endpoint_of_message`]).
fn sniff_messages(body: &Spooled, t: Transport) -> (Option<Dialect>, Option<&'static str>) {
    let mut found = None;
    let mut datas = Vec::new();
    let mut sink = Named(|m: &transport::Message<'_>| {
        if found.is_none() && m.fault.is_none() {
            found = if t.is_socket() {
                // A socket's dialect as `check` tells it: the first
                // message only one API has (Realtime's `session.created`).
                let sent = m.direction() == Some(transport::Direction::Sent);
                dialect::of_socket_message(sent, m.data)
            } else {
                dialect::of_message(t, m.name)
            };
        }
        if datas.is_empty() && m.fault.is_none() && !m.data.trim().is_empty() {
            datas.push(m.data.to_string());
        }
    });
    if let Some(mut f) = t.framer(transport::eventstream::MAX_FRAME) {
        let head = body.head(256 * 1024);
        f.feed(&head, &mut sink);
        if (head.len() as u64) == body.len() {
            f.finish(&mut sink);
        }
    }
    let d = found.or_else(|| {
        if t.is_socket() {
            // Else the first that rides sockets (Responses), as `check`.
            dialect::ALL
                .iter()
                .copied()
                .find(|d| d.api().rides_sockets())
        } else {
            dialect::riding_on(t).first().copied()
        }
    });
    let endpoint = d.and_then(|d| {
        let v = serde_json::from_str::<serde_json::Value>(datas.first()?).ok()?;
        d.api().endpoint_of_message(&v)
    });
    (d, endpoint)
}

/// A transport sink that calls a closure.
struct Named<F>(F);

impl<F: FnMut(&transport::Message<'_>)> transport::Sink for Named<F> {
    fn message(&mut self, m: &transport::Message<'_>) {
        (self.0)(m)
    }
}

/// The dialect of the first event that names one (its `event:` name or
/// its data's shape, as the linter settles it), if any.
fn sniff_body(body: &Spooled) -> Option<Dialect> {
    let found = std::cell::Cell::new(None);
    let mut sink = |b: &Block<'_>| {
        if found.get().is_some() {
            return;
        }
        let Some(d) = &b.dispatch else {
            return;
        };
        let json = crate::model::json_object(d.data);
        if let Sniffed::Dialect(x) = dialect::sniff_event(d.event_type, json.as_ref()) {
            found.set(Some(x));
        }
    };
    let mut p = Parser::new();
    let _ = feed(body, &mut p, &mut sink, || found.get().is_some());
    p.finish(&mut sink);
    found.get()
}

/// Feeds `body` to `p` a piece at a time, until `done` says enough.
fn feed(
    body: &Spooled,
    p: &mut Parser,
    sink: &mut impl crate::sse::Sink,
    mut done: impl FnMut() -> bool,
) -> io::Result<()> {
    match body {
        Spooled::Mem(b) => p.feed(b, sink),
        Spooled::File(..) => {
            let mut r = body.reader();
            let mut buf = vec![0u8; 64 * 1024];
            while !done() {
                match r.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => p.feed(&buf[..n], sink),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
        }
    }
    Ok(())
}

/// Whether the HAR at `p` holds exactly one entry.
fn has_one_entry(p: &std::path::Path) -> bool {
    std::fs::read(p)
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|v| {
            v.pointer("/log/entries")
                .and_then(|e| e.as_array())
                .map(Vec::len)
        })
        == Some(1)
}

/// The dialect and shape of a body that holds no event but is one JSON
/// value an API answers with ([`dialect::sniff_body`]), or the start of
/// one ([`dialect::sniff_cut_body`]).
fn body_shape(body: &Spooled) -> Option<(Dialect, String)> {
    let body: std::borrow::Cow<[u8]> = match body {
        Spooled::Mem(b) => b.as_slice().into(),
        // Past the memory limit: its first bytes tell whether it can be
        // one JSON value at all, before the whole of it is read.
        Spooled::File(..) => {
            let head = body.head(4096);
            let t = head.trim_ascii_start();
            if !matches!(t.first(), Some(b'[' | b'{')) || t.starts_with(b"data:") {
                return None;
            }
            let mut all = Vec::new();
            body.reader().read_to_end(&mut all).ok()?;
            all.into()
        }
    };
    let head = body.trim_ascii_start();
    if !matches!(head.first(), Some(b'[' | b'{')) || head.starts_with(b"data:") {
        return None;
    }
    match serde_json::from_slice::<serde_json::Value>(head) {
        Ok(v) => dialect::sniff_body(&v),
        Err(_) => {
            let text = String::from_utf8_lossy(&head[..head.len().min(4096)]);
            dialect::sniff_cut_body(&text)
        }
    }
}

/// The dialect whose endpoint `path` (query excluded) is, with or without
/// its base (`/v1`), any model standing in for the endpoint's `{model}`,
/// or another path its API streams at (Gemini's `/v1/…`,
/// `tunedModels/…`, Vertex AI's; [`dialect::endpoint_of`]).
pub fn endpoint_dialect(path: &str) -> Option<Dialect> {
    dialect::endpoint_of(path)
}

/// Whether a request for `path` (with its query) to an endpoint of `d`
/// lacks the query parameter without which `d`'s API does not stream
/// ([`crate::dialect::Api::stream_query`]: Gemini's `alt=sse`).
fn lacks_stream_query(d: Dialect, path: &str) -> bool {
    let Some((k, v)) = d.api().stream_query() else {
        return false;
    };
    let query = path.split_once('?').map_or("", |(_, q)| q);
    !query.split('&').any(|p| p.split_once('=') == Some((k, v)))
}

/// `r` as its API answers a request without its stream query (Gemini's
/// JSON array, [`crate::dialect::Api::unstreamed`]): `Ok(None)` when `r`
/// is no 2xx stream (an error answer is the same either way); `Err`: the
/// status and body of the 400 that says why the capture has no such
/// shape.
fn unstreamed(r: &Replay) -> Result<Option<Replay>, (u16, String)> {
    // An error answer is the same either way, and a body already in a
    // non-stream shape (the JSON array itself) is served as captured.
    if !(200..300).contains(&r.status) || r.shape().is_some() {
        return Ok(None);
    }
    let datas = datas_of(r);
    let d = r.served();
    let refs: Vec<&str> = datas.iter().map(String::as_str).collect();
    let (kind, body) = d.api().unstreamed(&refs).map_err(|e| {
        let message = match (d.api().stream_query(), d.api().unstream_field()) {
            (Some((k, v)), _) => format!(
                "sselint replay: this request has no `{k}={v}`, so {} API answers in its unstreamed shape, but {e}; ask with ?{k}={v}",
                d.title()
            ),
            (None, Some(f)) => format!(
                "sselint replay: this request has `\"{f}\": false`, so {} answers with one JSON object, but {e}; ask with `\"{f}\": true`",
                d.title()
            ),
            (None, None) => format!("sselint replay: {e}"),
        };
        (400, d.api().error_body("invalid_request_error", &message))
    })?;
    let mut headers: Vec<(String, String)> = r
        .headers
        .iter()
        .filter(|(n, _)| !n.eq_ignore_ascii_case("content-type"))
        .cloned()
        .collect();
    headers.insert(0, ("Content-Type".to_string(), kind));
    Ok(Some(Replay {
        status: r.status,
        reason: r.reason.clone(),
        headers,
        body: Spooled::Mem(body.into_bytes()),
        timing: None,
        dialect: r.dialect,
        transport: r.transport,
        endpoint: r.endpoint,
    }))
}

/// The data of every message of `r`'s body, in order: each SSE event's
/// data as dispatched, each NDJSON line, each event-stream frame's payload
/// (a frame that fails its CRC left out).
fn datas_of(r: &Replay) -> Vec<String> {
    let mut datas = Vec::new();
    match r.transport.framer(transport::eventstream::MAX_FRAME) {
        None => {
            let mut sink = |b: &Block<'_>| {
                if let Some(d) = &b.dispatch {
                    datas.push(d.data.to_string());
                }
            };
            let mut p = Parser::new();
            let _ = feed(&r.body, &mut p, &mut sink, || false);
            p.finish(&mut sink);
        }
        Some(mut f) => {
            let mut sink = Named(|m: &transport::Message<'_>| {
                if m.fault.is_none() {
                    datas.push(m.data.to_string());
                }
            });
            let mut reader = r.body.reader();
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => f.feed(&buf[..n], &mut sink),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            f.finish(&mut sink);
        }
    }
    datas
}

/// Whether `body` (a request's JSON) asks `d`'s API for no stream by its
/// [`crate::dialect::Api::unstream_field`] (Ollama's `"stream": false`).
fn asks_unstreamed(d: Dialect, body: &[u8]) -> bool {
    let Some(field) = d.api().unstream_field() else {
        return false;
    };
    serde_json::from_slice::<serde_json::Value>(body)
        .is_ok_and(|v| v.get(field) == Some(&serde_json::Value::Bool(false)))
}

/// The body of the 404 for a request the replay does not serve: the
/// error shape of the API `path` belongs to (the served dialect's when it
/// belongs to none), its message naming the path that serves the capture.
pub fn not_found_body(served: Dialect, method: &str, path: &str) -> String {
    let at = format!("{}{}", served.base(), served.endpoint());
    not_found_at(served, &at, method, path)
}

/// [`not_found_body`] of a capture served at `at`.
fn not_found_at(served: Dialect, at: &str, method: &str, path: &str) -> String {
    let message = format!(
        "sselint replay serves this capture ({} stream) at POST {at}, not {method} {path}",
        served.a_title(),
    );
    let api = endpoint_dialect(path.split('?').next().unwrap_or(""))
        .unwrap_or(served)
        .api();
    api.error_body(api.not_found_kind(), &message)
}

fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "",
    }
}

/// Serves `replay` on `listener` until `stop` is set (or after one
/// request with `opts.once`). Each connection gets its own thread.
///
/// # Errors
/// Accepting fails for a reason other than the listener being
/// non-blocking.
pub fn serve(
    listener: TcpListener,
    replay: Arc<Replay>,
    opts: Options,
    stop: Arc<AtomicBool>,
) -> io::Result<()> {
    let source = Arc::new(Source::One(Arc::unwrap_or_clone(replay)));
    serve_source(listener, source, opts, stop)
}

/// What a server answers from: one capture for every request, or a
/// scenario set that answers each request by what it asks for.
#[derive(Debug)]
pub enum Source {
    /// One capture ([`serve`]).
    One(Replay),
    /// A directory of captures keyed by scenario ([`ScenarioSet`]).
    Set(ScenarioSet),
}

/// Serves `source` on `listener` until `stop` is set (or after one
/// request with `opts.once`), as [`serve`] does.
///
/// # Errors
/// As [`serve`].
pub fn serve_source(
    listener: TcpListener,
    replay: Arc<Source>,
    opts: Options,
    stop: Arc<AtomicBool>,
) -> io::Result<()> {
    listener.set_nonblocking(true)?;
    let mut workers = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        match listener.accept() {
            Ok((sock, _)) => {
                sock.set_nonblocking(false)?;
                let replay = replay.clone();
                let stop2 = stop.clone();
                let handle = std::thread::spawn(move || {
                    // A client that hangs up mid-stream was still served.
                    let served = handle_connection(sock, &replay, &opts, &stop2).unwrap_or(true);
                    if served && opts.once {
                        stop2.store(true, Ordering::Relaxed);
                    }
                });
                if opts.once {
                    let _ = handle.join();
                } else {
                    workers.push(handle);
                }
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(e),
        }
        workers.retain(|h| !h.is_finished());
    }
    Ok(())
}

/// Reads one request and answers it; returns whether it was a replay.
fn handle_connection(
    sock: TcpStream,
    source: &Source,
    opts: &Options,
    stop: &AtomicBool,
) -> io::Result<bool> {
    sock.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut reader = BufReader::new(sock.try_clone()?);
    let mut head = Vec::new();
    loop {
        let n = reader
            .by_ref()
            .take((MAX_REQUEST_HEAD - head.len()) as u64)
            .read_until(b'\n', &mut head)?;
        if n == 0 || head.ends_with(b"\r\n\r\n") || head.ends_with(b"\n\n") {
            break;
        }
        if head.len() >= MAX_REQUEST_HEAD {
            break;
        }
    }
    let text = String::from_utf8_lossy(&head);
    let mut lines = text.lines();
    let request_line = lines.next().unwrap_or("");
    let mut parts = request_line.split(' ');
    let method = parts.next().unwrap_or("");
    let path = parts.next().unwrap_or("");
    let mut content_length = 0usize;
    for l in lines {
        if let Some((n, v)) = l.split_once(':') {
            if n.trim().eq_ignore_ascii_case("content-length") {
                content_length = v.trim().parse().unwrap_or(0);
            }
        }
    }
    // A WebSocket capture answers the upgrade on any path
    // (`replay/socket.rs`).
    if let Source::One(r) = source {
        if socket::is_upgrade(&text) && socket::is_socket(r) {
            let mut head = head.clone();
            head.extend_from_slice(reader.buffer());
            return socket::serve(sock, head, r, opts, stop);
        }
    }
    // A scenario set answers a socket's request by its scenario, as it
    // answers a POST's.
    if let Source::Set(set) = source {
        if socket::is_upgrade(&text) {
            let mut head = head.clone();
            head.extend_from_slice(reader.buffer());
            return socket::serve_set(sock, head, path, set, opts, stop);
        }
    }
    let mut body = vec![0u8; content_length.min(MAX_REQUEST_BODY)];
    reader.read_exact(&mut body)?;
    let mut sock = sock;
    let path_only = path.split('?').next().unwrap_or("");
    let picked = source
        .pick(method, path, &body, opts.any_path)
        .and_then(|r| {
            // Asked without its API's stream query (Gemini's `?alt=sse`), or
            // with its stream field false (Ollama's `"stream": false`): what
            // the API answers then, unless any path is served.
            if !opts.any_path
                && endpoint_dialect(path_only) == Some(r.served())
                && (lacks_stream_query(r.served(), path) || asks_unstreamed(r.served(), &body))
            {
                Ok(unstreamed(r)?.map_or(std::borrow::Cow::Borrowed(r), std::borrow::Cow::Owned))
            } else {
                Ok(std::borrow::Cow::Borrowed(r))
            }
        });
    let replay = match picked {
        Ok(r) => r,
        Err((status, msg)) => {
            let mut extra = String::new();
            for (n, v) in source.error_dialect(path_only).api().error_headers(status) {
                extra.push_str(&format!("{n}: {v}\r\n"));
            }
            write!(
                sock,
                "HTTP/1.1 {status} {}\r\ncontent-type: application/json\r\n{extra}content-length: {}\r\nconnection: close\r\n\r\n{msg}",
                reason_phrase(status),
                msg.len()
            )?;
            return Ok(false);
        }
    };
    let mut resp = format!("HTTP/1.1 {} {}\r\n", replay.status, replay.reason);
    for (n, v) in &replay.headers {
        resp.push_str(&format!("{n}: {v}\r\n"));
    }
    resp.push_str("transfer-encoding: chunked\r\nconnection: close\r\n\r\n");
    sock.write_all(resp.as_bytes())?;
    sock.flush()?;
    let _ = sock.set_nodelay(true);
    let mut sent: u64 = 0;
    let mut at_boundary = true;
    // NDJSON and event-stream have no comments: no keep-alive is sent
    // there (the CLI refuses `--keepalive-ms` for such a capture).
    let keepalive_ms = opts
        .keepalive_ms
        .filter(|_| replay.transport.has_comments());
    // A keep-alive ends its lines as the stream's events do (Gemini's
    // servers, and some others, end every line with CRLF), so that it adds
    // a comment, not a second line-ending convention.
    let crlf = keepalive_ms.is_some() && first_line_end_is_crlf(&replay.body);
    let keepalive: &[u8] = if crlf {
        b": keep-alive\r\n\r\n"
    } else {
        b": keep-alive\n\n"
    };
    let faults = Faults::of(&replay, opts);
    for (wait, range) in replay.segments(opts) {
        wait_with_keepalives(&mut sock, wait, keepalive_ms, at_boundary, keepalive, stop)?;
        let start = range.start as u64;
        let mut seg = replay.body.range(range)?;
        faults.corrupt(start, &mut seg);
        let seg = &seg[..];
        let step = opts.split_bytes.unwrap_or(seg.len()).max(1);
        for piece in seg.chunks(step) {
            let piece = match faults.cut {
                Some(cut) if sent + piece.len() as u64 >= cut => {
                    let keep = (cut - sent) as usize;
                    write_chunk(&mut sock, &piece[..keep])?;
                    // Drop the connection without the final chunk.
                    let _ = sock.shutdown(std::net::Shutdown::Both);
                    return Ok(true);
                }
                _ => piece,
            };
            write_chunk(&mut sock, piece)?;
            sent += piece.len() as u64;
        }
        at_boundary =
            seg.ends_with(b"\n\n") || seg.ends_with(b"\r\n\r\n") || seg.ends_with(b"\r\r");
    }
    sock.write_all(b"0\r\n\r\n")?;
    sock.flush()?;
    let _ = sock.shutdown(std::net::Shutdown::Write);
    Ok(true)
}

/// The faults a connection injects in the body, as byte offsets.
struct Faults {
    /// Drop the connection after this many body bytes (`--cut-after-bytes`,
    /// or the end of message `--cut-after-messages`, the earlier).
    cut: Option<u64>,
    /// Body byte ranges whose bytes are flipped in flight (a frame's CRC).
    flipped: Vec<std::ops::Range<u64>>,
}

impl Faults {
    fn of(replay: &Replay, opts: &Options) -> Self {
        let by_messages = opts
            .cut_after_messages
            .map(|n| replay.message_end(n).unwrap_or(replay.body.len()));
        let cut = match (opts.cut_after_bytes, by_messages) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        // Frame N runs from the end of frame N-1 to its own end; its
        // checksums are where its transport says (none outside
        // event-stream).
        let checksums = |n: u64| {
            let start = replay.message_end(n.checked_sub(1)?)?;
            let end = replay.message_end(n)?;
            replay.transport.checksums(start..end)
        };
        let mut flipped = Vec::new();
        if let Some((_, message)) = opts.corrupt_crc.and_then(checksums) {
            flipped.push(message);
        }
        if let Some((prelude, _)) = opts.corrupt_prelude_crc.and_then(checksums) {
            flipped.push(prelude);
        }
        Faults { cut, flipped }
    }

    /// Flips the bytes of `seg` (starting at body offset `start`) that
    /// fall in a flipped range (copying it only then).
    fn corrupt(&self, start: u64, seg: &mut std::borrow::Cow<'_, [u8]>) {
        let end = start + seg.len() as u64;
        for r in &self.flipped {
            for at in r.start.max(start)..r.end.min(end) {
                seg.to_mut()[(at - start) as usize] ^= 0xff;
            }
        }
    }
}

/// Whether the body's first line ends with CRLF.
fn first_line_end_is_crlf(body: &Spooled) -> bool {
    if let Spooled::Mem(b) = body {
        return b
            .iter()
            .position(|x| *x == b'\n')
            .is_some_and(|i| i > 0 && b[i - 1] == b'\r');
    }
    let mut r = body.reader();
    let mut buf = vec![0u8; 64 * 1024];
    let mut prev = None;
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) | Err(_) => return false,
            Ok(n) => n,
        };
        if let Some(i) = buf[..n].iter().position(|b| *b == b'\n') {
            let before = if i > 0 { Some(buf[i - 1]) } else { prev };
            return before == Some(b'\r');
        }
        prev = Some(buf[n - 1]);
    }
}

fn write_chunk(sock: &mut TcpStream, bytes: &[u8]) -> io::Result<()> {
    if bytes.is_empty() {
        return Ok(());
    }
    write!(sock, "{:x}\r\n", bytes.len())?;
    sock.write_all(bytes)?;
    sock.write_all(b"\r\n")?;
    sock.flush()
}

fn wait_with_keepalives(
    sock: &mut TcpStream,
    wait_ms: u64,
    keepalive_ms: Option<u64>,
    at_boundary: bool,
    keepalive: &[u8],
    stop: &AtomicBool,
) -> io::Result<()> {
    let mut left = wait_ms;
    let every = keepalive_ms.filter(|k| *k > 0 && at_boundary);
    let mut since = 0;
    while left > 0 {
        if stop.load(Ordering::Relaxed) {
            return Err(io::Error::new(io::ErrorKind::Interrupted, "stopped"));
        }
        let slice = left.min(50);
        std::thread::sleep(Duration::from_millis(slice));
        left -= slice;
        since += slice;
        if let Some(k) = every {
            if since >= k && left > 0 {
                since = 0;
                write_chunk(sock, keepalive)?;
            }
        }
    }
    Ok(())
}

impl Source {
    /// The capture that answers `method path` with request `body`, or the
    /// status and JSON body of the error that does.
    fn pick(
        &self,
        method: &str,
        path: &str,
        body: &[u8],
        any_path: bool,
    ) -> Result<&Replay, (u16, String)> {
        let path_only = path.split('?').next().unwrap_or("");
        match self {
            Source::One(replay) => {
                if any_path || replay.answers(path_only) && method == "POST" {
                    Ok(replay)
                } else {
                    Err((
                        404,
                        not_found_at(replay.served(), &replay.path(), method, path),
                    ))
                }
            }
            Source::Set(set) => set.pick(method, path, body, any_path),
        }
    }

    /// The dialect whose error shape answers a request for `path` (no
    /// query) that is refused: the API the path belongs to, else the
    /// served one.
    fn error_dialect(&self, path: &str) -> Dialect {
        endpoint_dialect(path).unwrap_or(match self {
            Source::One(r) => r.served(),
            Source::Set(set) => set.dialects().first().copied().unwrap_or(dialect::DEFAULT),
        })
    }
}

/// A directory of captures keyed by scenario (`sselint replay DIR`): each
/// request is answered with the capture of the scenario it is, told from
/// its body by [`crate::probe::classify`] (the definitions `sselint probe`
/// sends by).
///
/// The layout: `DIR/NAME.EXT` (any capture `check` reads; its dialect told
/// from it) and `DIR/DIALECT/NAME.EXT` (`chat/`, `responses/`,
/// `messages/`: served as that dialect), NAME a scenario name (`plain`,
/// `usage`, `n2`, `tool`, …, and the `disconnect` run's two captures,
/// `disconnect-dropped` and `disconnect`, which answer `long`'s and
/// `plain`'s requests where those have no capture of their own, as
/// [`crate::probe::DISCONNECT_CAPTURES`] says). `NAME.json` holds the JSON body of an error
/// answer, served with HTTP 400, or with HTTP NNN when named
/// `NAME.NNN.json` (`n2.404.json`). A request whose scenario has no
/// capture gets a 400 in its API's error shape naming the scenario.
#[derive(Debug, Default)]
pub struct ScenarioSet {
    /// The directory, as given.
    pub dir: String,
    /// The captures by dialect and scenario name.
    pub entries: std::collections::BTreeMap<(Dialect, String), Replay>,
}

/// An API error body in `d`'s shape (`type` is the error's type), built
/// by hand to keep each API's field order ([`crate::dialect::Api::error_body`]).
pub fn error_body(d: Dialect, kind: &str, message: &str) -> String {
    d.api().error_body(kind, message)
}

/// Why a scenario directory could not be served ([`ScenarioSet::load`]);
/// the message names the file or directory.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SetError {
    /// A directory or file that could not be read.
    #[error("{path}: {reason}")]
    Unreadable {
        /// It, as shown.
        path: String,
        /// What the system said.
        reason: io::Error,
    },
    /// A `.json` error answer that is not JSON.
    #[error("{path}: an error answer must be JSON: {reason}")]
    NotJson {
        /// The file, as shown.
        path: String,
        /// What the JSON parser said.
        reason: serde_json::Error,
    },
    /// A capture that could not be loaded.
    #[error(transparent)]
    Capture(#[from] LoadError),
    /// A file whose name is none of its dialect's scenarios.
    #[error("{path}: `{name}` is no {} scenario; the file names it takes: {}", dialect.title(), known.join(", "))]
    NoScenario {
        /// The file, as shown.
        path: String,
        /// The scenario it names.
        name: String,
        /// Its dialect.
        dialect: Dialect,
        /// The names the dialect's scenarios take.
        known: Vec<&'static str>,
    },
    /// A second capture for one scenario.
    #[error("{path}: a second capture for the {} scenario `{name}`", dialect.title())]
    Twice {
        /// The file, as shown.
        path: String,
        /// The scenario.
        name: String,
        /// Its dialect.
        dialect: Dialect,
    },
    /// No capture at all.
    #[error("{dir}: no captures; put files named by scenario in it (plain.sse, tool.har, invalid.json, …), or in {}/", dialect::names("/, "))]
    Empty {
        /// The directory.
        dir: String,
    },
}

impl ScenarioSet {
    /// Loads the captures of `dir`.
    ///
    /// # Errors
    /// `dir` cannot be read, a capture in it cannot be read, a `.json`
    /// error body is not JSON, a file's name is no scenario of its
    /// dialect, or it holds no capture at all ([`SetError`]).
    pub fn load(dir: &str, opts: &capture::Options) -> Result<Self, SetError> {
        let mut set = ScenarioSet {
            dir: dir.to_string(),
            ..Default::default()
        };
        let root = std::path::Path::new(dir);
        set.load_dir(root, None, opts)?;
        for d in dialect::ALL {
            let sub = root.join(d.name());
            if sub.is_dir() {
                set.load_dir(&sub, Some(*d), opts)?;
            }
        }
        if set.entries.is_empty() {
            return Err(SetError::Empty {
                dir: dir.to_string(),
            });
        }
        Ok(set)
    }

    fn load_dir(
        &mut self,
        dir: &std::path::Path,
        dialect: Option<Dialect>,
        opts: &capture::Options,
    ) -> Result<(), SetError> {
        let rd = std::fs::read_dir(dir).map_err(|e| SetError::Unreadable {
            path: dir.display().to_string(),
            reason: e,
        })?;
        let mut files: Vec<_> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        for p in files {
            let Some(file) = p.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            if file.starts_with('.') || file.ends_with(".md") {
                continue;
            }
            let shown = p.display().to_string();
            let (stem, ext) = file.rsplit_once('.').unwrap_or((file, ""));
            if ext == "json" {
                let (name, status) = match stem.rsplit_once('.') {
                    Some((n, s)) if s.len() == 3 && s.bytes().all(|b| b.is_ascii_digit()) => {
                        (n, s.parse::<u16>().unwrap_or(400))
                    }
                    _ => (stem, 400),
                };
                let body = std::fs::read(&p).map_err(|e| SetError::Unreadable {
                    path: shown.clone(),
                    reason: e,
                })?;
                serde_json::from_slice::<serde_json::Value>(&body).map_err(|e| {
                    SetError::NotJson {
                        path: shown.clone(),
                        reason: e,
                    }
                })?;
                // At the top, the dialects that have the scenario (the
                // Realtime API has none: `invalid.json` was refused as no
                // scenario of it); none: every one, to say so.
                let targets: Vec<Dialect> = match dialect {
                    Some(d) => vec![d],
                    None => {
                        let having: Vec<Dialect> = dialect::ALL
                            .iter()
                            .copied()
                            .filter(|d| crate::probe::scenarios(*d).iter().any(|s| s.name == name))
                            .collect();
                        if having.is_empty() {
                            dialect::ALL.to_vec()
                        } else {
                            having
                        }
                    }
                };
                for d in targets {
                    // With the headers the API's errors carry (AWS's
                    // x-amzn-ErrorType).
                    let mut headers =
                        vec![("Content-Type".to_string(), "application/json".to_string())];
                    headers.extend(
                        d.api()
                            .error_headers(status)
                            .into_iter()
                            .map(|(n, v)| (n.to_string(), v)),
                    );
                    self.insert(
                        d,
                        name,
                        &shown,
                        Replay {
                            status,
                            reason: reason_phrase(status).to_string(),
                            headers,
                            body: Spooled::Mem(body.clone()),
                            timing: None,
                            dialect: Some(d),
                            transport: Transport::Sse,
                            endpoint: None,
                        },
                    )?;
                }
                continue;
            }
            // A one-entry HAR `probe` saved of an error answer (`invalid`:
            // a 400 with a JSON body) holds no event stream, so `check`'s
            // pick of the stream entries finds none: its one entry is it.
            let r = match Replay::load(&shown, opts, dialect) {
                Ok(r) => r,
                Err(e) if ext == "har" && opts.entry.is_none() => {
                    let one = capture::Options {
                        entry: Some(0),
                        ..opts.clone()
                    };
                    match Replay::load(&shown, &one, dialect) {
                        Ok(r) if !(200..300).contains(&r.status) && has_one_entry(&p) => r,
                        _ => return Err(e.into()),
                    }
                }
                Err(e) => return Err(e.into()),
            };
            let d = r.served();
            self.insert(d, stem, &shown, r)?;
        }
        Ok(())
    }

    fn insert(&mut self, d: Dialect, name: &str, shown: &str, r: Replay) -> Result<(), SetError> {
        // Every name a probe run saves: its scenarios, and both of the
        // disconnect's captures.
        let known: Vec<&str> = crate::probe::scenarios(d)
            .iter()
            .map(|s| s.name)
            .chain(
                crate::probe::DISCONNECT_CAPTURES
                    .iter()
                    .map(|(file, _)| *file)
                    .filter(|f| *f != "disconnect"),
            )
            .collect();
        if !known.contains(&name) {
            return Err(SetError::NoScenario {
                path: shown.to_string(),
                name: name.to_string(),
                dialect: d,
                known,
            });
        }
        if self.entries.contains_key(&(d, name.to_string())) {
            return Err(SetError::Twice {
                path: shown.to_string(),
                name: name.to_string(),
                dialect: d,
            });
        }
        self.entries.insert((d, name.to_string()), r);
        Ok(())
    }

    /// The dialects the set serves, in [`dialect::ALL`] order.
    pub fn dialects(&self) -> Vec<Dialect> {
        dialect::ALL
            .iter()
            .copied()
            .filter(|d| self.entries.keys().any(|(x, _)| x == d))
            .collect()
    }

    /// The scenario names served for `d`.
    pub fn names(&self, d: Dialect) -> Vec<&str> {
        self.entries
            .keys()
            .filter(|(x, _)| *x == d)
            .map(|(_, n)| n.as_str())
            .collect()
    }

    /// The capture that answers a socket's request `message` (the
    /// dialect's response-asking message: its fields but `type` are the
    /// request body) in dialect `d`, by the scenario it is; `Err` holds
    /// why none does, as the `error` message says it.
    fn pick_message(&self, d: Dialect, message: &str) -> Result<&Replay, String> {
        let name = match serde_json::from_str::<serde_json::Value>(message) {
            Ok(serde_json::Value::Object(mut o)) => {
                o.remove("type");
                crate::probe::classify(d, &serde_json::Value::Object(o))
            }
            _ => "invalid",
        };
        self.scenario(d, name).ok_or_else(|| {
            format!(
                "sselint replay: this request is the `{name}` scenario and {} has no capture for it (it has: {})",
                self.dir,
                self.names(d).join(", ")
            )
        })
    }

    /// The capture of scenario `name` in `d`: its own, or a `disconnect`
    /// run's that answers it.
    fn scenario(&self, d: Dialect, name: &str) -> Option<&Replay> {
        let fallback = || {
            crate::probe::DISCONNECT_CAPTURES
                .iter()
                .filter(|(_, answered)| *answered == name)
                .find_map(|(file, _)| self.entries.get(&(d, file.to_string())))
        };
        self.entries.get(&(d, name.to_string())).or_else(fallback)
    }

    fn pick(
        &self,
        method: &str,
        path: &str,
        body: &[u8],
        any_path: bool,
    ) -> Result<&Replay, (u16, String)> {
        let path_only = path.split('?').next().unwrap_or("");
        let served = self.dialects();
        let first = served.first().copied().unwrap_or(dialect::DEFAULT);
        let d = match endpoint_dialect(path_only) {
            Some(d) if served.contains(&d) && (method == "POST" || any_path) => d,
            _ if any_path => first,
            _ => {
                let paths: Vec<String> = served
                    .iter()
                    .map(|d| format!("POST {}{}", d.base(), d.endpoint()))
                    .collect();
                let d = endpoint_dialect(path_only).unwrap_or(first);
                return Err((
                    404,
                    error_body(
                        d,
                        "not_found_error",
                        &format!(
                            "sselint replay serves the scenarios of {} at {}, not {method} {path}",
                            self.dir,
                            paths.join(", ")
                        ),
                    ),
                ));
            }
        };
        let name = match serde_json::from_slice::<serde_json::Value>(body) {
            Ok(v) => crate::probe::classify(d, &v),
            Err(_) => "invalid",
        };
        // A `disconnect` run's captures answer the requests it sent
        // (`long`'s, then `plain`'s) where the set has none of their own.
        self.scenario(d, name).ok_or_else(|| {
            (
                400,
                error_body(
                    d,
                    "invalid_request_error",
                    &format!(
                        "sselint replay: this request is the `{name}` scenario and {} has no capture for it (it has: {})",
                        self.dir,
                        self.names(d).join(", ")
                    ),
                ),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::Read_;

    fn replay(body: &[u8], timing: Option<Timing>) -> Replay {
        Replay {
            status: 200,
            reason: "OK".into(),
            headers: Vec::new(),
            body: Spooled::Mem(body.to_vec()),
            timing,
            dialect: None,
            transport: Transport::Sse,
            endpoint: None,
        }
    }

    const BODY: &[u8] = b"data: a\n\ndata: b\r\n\r\ndata: c";

    #[test]
    fn delays_cut_the_body_at_each_event_end() {
        let opts = Options {
            delay_ms: Some(10),
            first_delay_ms: Some(5),
            ..Options::default()
        };
        assert_eq!(
            replay(BODY, None).schedule(&opts),
            vec![(5, 0..9), (10, 9..20), (10, 20..27)]
        );
    }

    #[test]
    fn event_times_wait_from_one_to_the_next() {
        let r = replay(BODY, Some(Timing::Events(vec![100.0, 150.0, 400.0])));
        assert_eq!(
            r.schedule(&Options::default()),
            vec![(100, 0..9), (50, 9..20), (250, 20..27)]
        );
    }

    #[test]
    fn reads_are_sorted_by_offset_the_first_at_an_offset_kept() {
        let read = |offset, ms| Read_ { offset, ms };
        let reads = vec![read(5, 30.0), read(0, 10.0), read(5, 40.0), read(100, 50.0)];
        let r = replay(BODY, Some(Timing::Reads(reads)));
        assert_eq!(
            r.schedule(&Options::default()),
            vec![(10, 0..5), (20, 5..27)]
        );
    }

    #[test]
    fn a_body_on_disk_is_cut_as_the_same_body_in_memory() {
        // Events across the 64 KiB reads, a CRLF pair split by one.
        let mut body = Vec::new();
        let mut i = 0;
        while body.len() < 300_000 {
            body.extend_from_slice(format!("data: {}\r\n\r\n", "x".repeat(i % 97)).as_bytes());
            i += 1;
        }
        body.extend_from_slice(b"data: cut");
        let mut f = crate::capture::spool::anonymous_file().unwrap();
        f.write_all(&body).unwrap();
        let on_disk = Replay {
            body: Spooled::File(Arc::new(f), body.len() as u64),
            ..replay(b"", None)
        };
        let opts = Options {
            delay_ms: Some(1),
            ..Options::default()
        };
        let mem = replay(&body, None).schedule(&opts);
        assert_eq!(mem.len(), i + 1);
        assert_eq!(mem.last(), Some(&(1, body.len() - 9..body.len())));
        assert_eq!(on_disk.schedule(&opts), mem);
    }
}
