//! One WebSocket through the pipeline: its message log
//! ([`crate::transport::websocket`]) is framed, each message is routed to
//! the response it belongs to, and each response is linted as a stream of
//! its own, with every rule of its dialect.
//!
//! The routing follows the socket's lanes (Responses' `stream_id`; none
//! is the default lane), which the dialect's API names for each message
//! ([`crate::dialect::Api::socket_route`]). A lane is first in, first
//! out: each client request (`response.create`) waits in its lane's queue
//! until the server starts its response, so a request sent while a
//! response runs is no fault. Lanes run side by side, their messages
//! interleaved; an event goes to the response its id names, else to its
//! lane's running one.
//!
//! The socket's own rules (`rules/transport/ws-*`) are judged here: a
//! message no client can read, an error that answers a request with no
//! response, a response no request asked for, two responses running at
//! once on one lane, a response id used twice, a close code that is not
//! a normal one, and a socket that ends while a response runs (which
//! replaces the dialect's cut-off finding). Findings that belong to no
//! response are the stream `LABEL · socket`, reported only when there
//! are some.
//!
//! Memory: one linter per response, kept until the socket's end (a
//! response can still be told of events after its end); the messages are
//! not kept.

use super::{Extras, Observer, StreamResult, READ_BYTES};
use crate::capture::{self, Body, Stream};
use crate::checks::{Context, Linter};
use crate::dialect::api::{SocketRoute, SocketStep};
use crate::dialect::chat::RequestOptions;
use crate::dialect::Dialect;
use crate::lint::{rule, Finding, Location, Settings};
use crate::sse::Framing;
use crate::transport::websocket::{self, Direction};
use crate::transport::{Framer as _, Message};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::io::Read;

/// Whether `stream`'s body is a WebSocket message log: its first bytes
/// are read (and put back) to tell.
pub(super) fn is_socket(stream: &mut Stream) -> bool {
    let head_len = 64 * 1024;
    match &mut stream.body {
        Body::Bytes(b) => websocket::looks_like(&b[..b.len().min(head_len)]),
        Body::Reader(r) => {
            let mut head = Vec::new();
            let ok = r.by_ref().take(head_len as u64).read_to_end(&mut head);
            let rest = std::mem::replace(r, Box::new(std::io::empty()));
            *r = Box::new(std::io::Cursor::new(head.clone()).chain(rest));
            ok.is_ok() && websocket::looks_like(&head)
        }
    }
}

/// The dialect a socket's messages are read as: `--dialect`'s, the URL's,
/// else the first whose API rides on sockets. `None` when `--dialect`
/// names one whose API does not: `--dialect` says what the messages mean,
/// so the socket is then read as one stream of that dialect, every
/// message to its checker ([`super::lint_stream_with`]).
fn socket_dialect(
    settings: &Settings,
    url: Option<&str>,
    head: Option<Dialect>,
) -> Option<Dialect> {
    let rides = |d: &Dialect| d.api().rides_sockets();
    if let Some(d) = settings.dialect {
        return rides(&d).then_some(d);
    }
    url.and_then(crate::dialect::sniff_url)
        .filter(rides)
        .or(head)
        .or_else(|| crate::dialect::ALL.iter().copied().find(rides))
}

/// The dialect the first messages of the socket show
/// ([`crate::dialect::of_socket_message`]: Realtime's `session.created`),
/// read from the body's first bytes, which are put back.
fn head_dialect(stream: &mut Stream) -> Option<Dialect> {
    struct Shown(Option<Dialect>);
    impl crate::transport::Sink for Shown {
        fn message(&mut self, m: &Message<'_>) {
            if self.0.is_none() {
                let sent = websocket::direction(m) == Some(Direction::Sent);
                self.0 = crate::dialect::of_socket_message(sent, m.data);
            }
        }
    }
    let head_len = 64 * 1024;
    let head = match &mut stream.body {
        Body::Bytes(b) => b[..b.len().min(head_len)].to_vec(),
        Body::Reader(r) => {
            let mut head = Vec::new();
            let _ = r.by_ref().take(head_len as u64).read_to_end(&mut head);
            let rest = std::mem::replace(r, Box::new(std::io::empty()));
            *r = Box::new(std::io::Cursor::new(head.clone()).chain(rest));
            head
        }
    };
    let mut shown = Shown(None);
    websocket::Framer::with_limit(head_len).feed(&head, &mut shown);
    shown.0
}

/// One response on the socket.
struct Response<'s> {
    linter: Linter<'s>,
    lane: Option<String>,
    id: Option<String>,
    /// The server has started it (an event of it came).
    started: bool,
    /// Its terminal event came.
    ended: bool,
    /// Where the client's request for it is, if one came.
    create: Option<Location>,
}

/// The socket being read.
struct Socket<'s, 'o, O: Observer> {
    settings: &'s Settings,
    ctx: Context,
    dialect: Dialect,
    extras: Extras,
    observer: &'o mut O,
    responses: Vec<Response<'s>>,
    /// Per lane, the requests waiting for their response (indices into
    /// `responses`), first first.
    queued: BTreeMap<Option<String>, VecDeque<usize>>,
    /// Per lane, the response running.
    running: BTreeMap<Option<String>, usize>,
    /// Response ids seen, and whose they are.
    ids: HashMap<String, usize>,
    /// The socket's own findings (a linter fed no message: its findings
    /// and locations).
    socket: Linter<'s>,
    socket_messages: u64,
    /// How the socket ended, when a close or an error says so.
    closed: Option<String>,
}

/// Lints a WebSocket's message log: one result per response, and one for
/// the socket's own findings when there are some.
pub(super) fn lint_socket<O: Observer>(
    mut stream: Stream,
    settings: &Settings,
    observer: &mut O,
    extras: Extras,
) -> Vec<StreamResult> {
    let url = stream.request.as_ref().map(|r| r.url.clone());
    let ctx = Context {
        http: stream.http.clone(),
        request: None,
        origin: stream.origin,
        timing: None,
        url: url.clone(),
    };
    let head = head_dialect(&mut stream);
    let Some(dialect) = socket_dialect(settings, url.as_deref(), head) else {
        return vec![super::lint_stream_with(stream, settings, observer, extras)];
    };
    let mut socket_linter = Linter::new(settings, ctx.clone());
    socket_linter.socket_response(dialect, websocket::TRANSPORT);
    let mut sock = Socket {
        settings,
        ctx,
        dialect,
        extras,
        observer,
        responses: Vec::new(),
        queued: BTreeMap::new(),
        running: BTreeMap::new(),
        ids: HashMap::new(),
        socket: socket_linter,
        socket_messages: 0,
        closed: None,
    };
    let mut framer = websocket::Framer::with_limit(settings.max_event_bytes);
    let mut read_error = None;
    match stream.body {
        Body::Bytes(ref bytes) => {
            for part in bytes.chunks(READ_BYTES) {
                framer.feed(part, &mut sock);
            }
        }
        Body::Reader(mut r) => {
            let mut buf = vec![0u8; READ_BYTES];
            loop {
                match r.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => framer.feed(&buf[..n], &mut sock),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        read_error = Some(capture::io_message(&e));
                        break;
                    }
                }
            }
        }
    }
    framer.finish(&mut sock);
    let evidence: Vec<_> = stream
        .evidence
        .lock()
        .map(|v| v.clone())
        .unwrap_or_default();
    let base = Base {
        label: stream.label,
        http: stream.http,
        notes: stream.notes,
        origin: stream.origin,
        read_error,
        settings,
        evidence,
    };
    sock.finish(&base)
}

/// What every result of the socket shares.
struct Base<'a> {
    label: String,
    http: Option<capture::Http>,
    notes: Vec<String>,
    origin: capture::Origin,
    read_error: Option<String>,
    settings: &'a Settings,
    evidence: Vec<capture::Truncation>,
}

impl Base<'_> {
    /// The socket's own findings as a stream `LABEL · socket`: no
    /// response, so no dialect's ending rules run on it.
    fn socket_result(&self, linter: Linter<'_>, messages: u64, d: Dialect) -> StreamResult {
        let out = linter.out;
        StreamResult {
            label: format!("{} · socket", self.label),
            http: self.http.clone(),
            notes: self.notes.clone(),
            events: messages,
            typed_chunks: 0,
            ending: crate::model::assembly::Ending::Empty,
            answer: crate::model::assembly::Answer::default(),
            diagnostics: out.diagnostics,
            omitted: out.omitted,
            omitted_worst: out.omitted_worst,
            omitted_suppressed: Vec::new(),
            counts: out.counts,
            origin: self.origin,
            file_positions: BTreeMap::new(),
            timing: None,
            framing: Framing::default(),
            read_error: self.read_error.clone(),
            provider: None,
            profile: &crate::lint::profile::applied(self.settings.profile, Some(d)).name,
            dialect: Some(d),
            transport: websocket::TRANSPORT,
        }
    }

    fn result(&self, label: String, linter: Linter<'_>) -> StreamResult {
        let report = linter.finish(&Framing::default(), &self.evidence);
        StreamResult {
            label,
            http: self.http.clone(),
            notes: self.notes.clone(),
            events: report.events,
            typed_chunks: report.typed_chunks,
            ending: report.ending,
            answer: report.answer,
            diagnostics: report.out.diagnostics,
            omitted: report.out.omitted,
            omitted_worst: report.out.omitted_worst,
            omitted_suppressed: Vec::new(),
            counts: report.out.counts,
            origin: self.origin,
            file_positions: BTreeMap::new(),
            timing: None,
            framing: Framing::default(),
            read_error: self.read_error.clone(),
            provider: report.provider,
            profile: &crate::lint::profile::applied(self.settings.profile, report.dialect).name,
            dialect: report.dialect,
            transport: websocket::TRANSPORT,
        }
    }
}

/// `lane` for messages: `lane "main"` or `the default lane`.
fn lane_name(lane: &Option<String>) -> String {
    match lane {
        Some(l) => format!(
            "lane `{}`",
            crate::lint::printable(&crate::model::shorten(l, 40))
        ),
        None => "the default lane".to_string(),
    }
}

impl<'s, O: Observer> Socket<'s, '_, O> {
    /// A new response on `lane`, asked for by the message at `create`.
    fn new_response(
        &mut self,
        lane: Option<String>,
        create: Option<Location>,
        request: Option<RequestOptions>,
    ) -> usize {
        let mut ctx = self.ctx.clone();
        ctx.request = request;
        let mut linter = Linter::new(self.settings, ctx);
        linter.summaries = self.extras.summaries;
        if self.extras.fields {
            linter.fields_seen = Some(Vec::new());
        }
        linter.socket_response(self.dialect, websocket::TRANSPORT);
        self.responses.push(Response {
            linter,
            lane,
            id: None,
            started: false,
            ended: false,
            create,
        });
        self.responses.len() - 1
    }

    /// The response an event on `lane` naming `id` belongs to: the one
    /// that id is, the lane's running one, the lane's first request
    /// waiting (its start event never came), or a new one no request
    /// asked for (`ws-response-without-create`).
    fn response_for(&mut self, lane: &Option<String>, id: Option<&str>, m: &Message<'_>) -> usize {
        if let Some(&r) = id.and_then(|i| self.ids.get(i)) {
            if &self.responses[r].lane == lane {
                return r;
            }
        }
        if let Some(&r) = self.running.get(lane) {
            return r;
        }
        self.start(lane, id, m)
    }

    /// The server starts a response on `lane` (its `response.created`, or
    /// the first event of one): the lane's first waiting request's, or a
    /// new one.
    fn start(&mut self, lane: &Option<String>, id: Option<&str>, m: &Message<'_>) -> usize {
        let overlap = self.running.get(lane).copied();
        let queued = self.queued.get_mut(lane).and_then(VecDeque::pop_front);
        let r = match queued {
            Some(r) => r,
            None => self.new_response(lane.clone(), None, None),
        };
        let mut findings = Vec::new();
        let here = self.responses[r].linter.message_location(m);
        if queued.is_none() {
            findings.push(
                Finding::new(
                    rule::WS_RESPONSE_WITHOUT_CREATE,
                    format!(
                        "a response starts on {} with no `response.create` waiting for it: the client never asked for it (or its request is missing from the capture), so a client that pairs each request with its response reads this one as another's",
                        lane_name(lane)
                    ),
                    here.clone(),
                )
                .event(Some(m.index)),
            );
        }
        if let Some(prev) = overlap {
            findings.push(
                Finding::new(
                    rule::WS_LANE_OVERLAP,
                    format!(
                        "a response starts on {} while the one before it ({}) is still running: a lane runs its responses one after the other, so the events that follow cannot be told apart",
                        lane_name(lane),
                        self.responses[prev].id.as_deref().map_or("with no id".to_string(), |i| format!("`{}`", crate::lint::printable(&crate::model::shorten(i, 60)))),
                    ),
                    here.clone(),
                )
                .event(Some(m.index)),
            );
        }
        if let Some(id) = id {
            if let Some(&other) = self.ids.get(id) {
                if other != r {
                    findings.push(
                        Finding::new(
                            rule::WS_RESPONSE_ID_COLLISION,
                            format!(
                                "response id `{}` is already the id of another response on this socket (on {}): events that name it cannot be told apart, and a `previous_response_id` naming it is ambiguous",
                                crate::lint::printable(&crate::model::shorten(id, 60)),
                                lane_name(&self.responses[other].lane)
                            ),
                            here,
                        )
                        .event(Some(m.index)),
                    );
                }
            } else {
                self.ids.insert(id.to_string(), r);
            }
            self.responses[r].id = Some(id.to_string());
        }
        self.responses[r].started = true;
        self.running.insert(lane.clone(), r);
        let linter = &mut self.responses[r].linter;
        for f in findings {
            linter.report_socket(f);
        }
        r
    }

    /// Feeds message `m` to response `r`'s linter, and tells the observer.
    fn feed(&mut self, r: usize, m: &Message<'_>, before: usize) {
        let linter = &mut self.responses[r].linter;
        linter.read_message(m);
        let new = &linter.out.diagnostics[before.min(linter.out.diagnostics.len())..];
        self.observer.message(m, new, linter);
    }

    /// A message the socket's response cannot read: reported in the one
    /// response running, else as the socket's.
    fn unreadable(&mut self, m: &Message<'_>, what: String) {
        let running: Vec<usize> = self
            .running
            .values()
            .copied()
            .filter(|r| !self.responses[*r].ended)
            .collect();
        let f = |loc| {
            Finding::new(rule::WS_UNPARSEABLE_MESSAGE, what.clone(), loc)
                .event(Some(m.index))
                .help("send every message as one JSON object with a string `type`, in a text frame")
        };
        if let [r] = running.as_slice() {
            let linter = &mut self.responses[*r].linter;
            let before = linter.out.diagnostics.len();
            let loc = linter.message_location(m);
            linter.read_unreadable(m, f(loc));
            let new = &linter.out.diagnostics[before..];
            self.observer.message(m, new, linter);
        } else {
            let loc = self.socket.message_location(m);
            self.socket_finding(m, f(loc));
        }
    }

    /// A finding of the socket's own, at message `m`.
    fn socket_finding(&mut self, m: &Message<'_>, f: Finding) {
        let before = self.socket.out.diagnostics.len();
        self.socket.report_socket(f);
        self.socket_messages += 1;
        let new = &self.socket.out.diagnostics[before..];
        self.observer.message(m, new, &self.socket);
    }

    /// A message that belongs to no response and says nothing wrong.
    fn socket_message(&mut self, m: &Message<'_>) {
        self.socket_messages += 1;
        self.observer.message(m, &[], &self.socket);
    }

    fn sent(&mut self, m: &Message<'_>) {
        let route = self.dialect.api().socket_route(true, m.data);
        match route {
            Some(SocketRoute {
                lane,
                step: SocketStep::Create,
            }) => {
                let loc = self.socket.message_location(m);
                let request = RequestOptions::from_body(m.data);
                let r = self.new_response(lane.clone(), Some(loc), request);
                self.queued.entry(lane).or_default().push_back(r);
                let linter = &self.responses[r].linter;
                self.observer.message(m, &[], linter);
            }
            _ => self.socket_message(m),
        }
    }

    fn received(&mut self, m: &Message<'_>) {
        if websocket::opcode(m) == Some(websocket::BINARY) {
            self.unreadable(
                m,
                format!(
                    "a binary message ({} bytes): the API sends its events as text, one JSON object each; a client that parses every message as JSON fails on it",
                    m.data.len()
                ),
            );
            return;
        }
        let Some(SocketRoute { lane, step }) = self.dialect.api().socket_route(false, m.data)
        else {
            let what = match serde_json::from_str::<serde_json::Value>(m.data) {
                Ok(v) => format!(
                    "the message is a JSON {} with no string `type`, not an event: a client that dispatches on `type` cannot read it",
                    crate::model::json_type(&v)
                ),
                Err(e) => format!(
                    "the message is not JSON ({e}): a client that parses every message as JSON fails on it"
                ),
            };
            self.unreadable(m, what);
            return;
        };
        match step {
            SocketStep::Start(id) => {
                // A response's linter has no finding before its start
                // but the ones `start` reports, which are this message's.
                let r = self.start(&lane, id.as_deref(), m);
                self.feed(r, m, 0);
            }
            SocketStep::Event(ref id) | SocketStep::End(ref id) => {
                let end = matches!(step, SocketStep::End(_));
                let r = self.response_for(&lane, id.as_deref(), m);
                let before = self.responses[r].linter.out.diagnostics.len();
                self.feed(r, m, before);
                if end {
                    self.responses[r].ended = true;
                    if self.running.get(&lane) == Some(&r) {
                        self.running.remove(&lane);
                    }
                }
            }
            SocketStep::Error => self.error(lane, m),
            SocketStep::Socket => match self.running.get(&lane) {
                Some(&r) => {
                    let before = self.responses[r].linter.out.diagnostics.len();
                    self.feed(r, m, before);
                }
                None => self.socket_message(m),
            },
            SocketStep::Create | SocketStep::Client => self.socket_message(m),
        }
    }

    /// An `error` event: the running response's on its lane (its checker
    /// judges it); else the answer to the lane's first waiting request,
    /// which then gets no response; else the socket's.
    fn error(&mut self, lane: Option<String>, m: &Message<'_>) {
        if let Some(&r) = self.running.get(&lane) {
            let before = self.responses[r].linter.out.diagnostics.len();
            self.feed(r, m, before);
            return;
        }
        let refused = self.queued.get_mut(&lane).and_then(VecDeque::pop_front);
        if let Some(r) = refused {
            self.responses[r].ended = true;
        }
        let said = serde_json::from_str::<serde_json::Value>(m.data)
            .ok()
            .map(|v| crate::model::error_message(v.get("error").unwrap_or(&v)))
            .unwrap_or_default();
        let what = if refused.is_some() {
            format!(
                "an error answers the `response.create` waiting on {}, which gets no response: {said}",
                lane_name(&lane)
            )
        } else {
            format!("an error on the socket, outside any response: {said}")
        };
        let loc = self.socket.message_location(m);
        self.socket_finding(
            m,
            Finding::new(rule::WS_ERROR_MESSAGE, what, loc).event(Some(m.index)),
        );
    }

    /// A close message, or a browser's socket error: how the socket
    /// ended. A close that is not normal (1000) with no response running
    /// is `ws-close-code`; with one running, its cut says how.
    fn close(&mut self, m: &Message<'_>) {
        let how = match websocket::close(m) {
            Some((0, _)) => "the socket closed with no status code".to_string(),
            Some((code, "")) => format!("the socket closed with code {code}"),
            Some((code, reason)) => format!(
                "the socket closed with code {code} ({:?})",
                crate::model::shorten(reason, 80)
            ),
            None => format!(
                "the socket failed ({:?})",
                crate::model::shorten(m.data, 80)
            ),
        };
        let code = websocket::close(m).map(|(c, _)| c);
        let running = self.running.values().any(|r| !self.responses[*r].ended);
        if code != Some(1000) && !running {
            let loc = self.socket.message_location(m);
            let f = Finding::new(
                rule::WS_CLOSE_CODE,
                format!("{how}, not 1000 (normal closure): the socket ended abnormally, and a client that reconnects on such a code opens a new socket without the responses it held"),
                loc,
            )
            .event(Some(m.index));
            self.socket_finding(m, f);
        } else {
            self.socket_message(m);
        }
        self.closed.get_or_insert(how);
    }

    /// Every response's result, then the socket's when it has findings.
    fn finish(self, base: &Base<'_>) -> Vec<StreamResult> {
        let how = self.closed.clone().unwrap_or_else(|| {
            "the socket's messages end (the capture holds no close)".to_string()
        });
        let mut socket = self.socket;
        let mut out = Vec::new();
        let mut n = 0;
        for resp in self.responses {
            if !resp.started {
                if resp.ended {
                    continue;
                }
                // A request the server never answered.
                if let Some(loc) = resp.create {
                    socket.report_socket(Finding::new(
                        rule::WS_CLOSED_MID_RESPONSE,
                        format!(
                            "{how} before the response this `response.create` asked for (on {}) started: the client gets no answer",
                            lane_name(&resp.lane)
                        ),
                        loc,
                    ));
                }
                continue;
            }
            n += 1;
            let mut linter = resp.linter;
            if !resp.ended {
                linter.socket_closed(how.clone());
            }
            let which = match &resp.id {
                Some(id) => crate::lint::printable(&crate::model::shorten(id, 60)),
                None => format!("response {n}"),
            };
            let lane = match &resp.lane {
                Some(l) => format!(" (lane {})", crate::lint::printable(l)),
                None => String::new(),
            };
            out.push(base.result(format!("{} · {which}{lane}", base.label), linter));
        }
        if !socket.out.diagnostics.is_empty() || out.is_empty() {
            out.push(base.socket_result(socket, self.socket_messages, self.dialect));
        }
        out
    }
}

impl<O: Observer> crate::transport::Sink for Socket<'_, '_, O> {
    fn message(&mut self, m: &Message<'_>) {
        if let Some(f) = m.fault {
            let loc = self.socket.message_location(m);
            self.socket_finding(
                m,
                Finding::new(
                    rule::WS_UNPARSEABLE_MESSAGE,
                    format!("{}: the message cannot be read", f.what),
                    loc,
                )
                .event(Some(m.index)),
            );
            return;
        }
        if m.oversized {
            let what = format!(
                "a message of {} bytes is larger than the limit of {} bytes (--max-event-bytes): it was not read",
                m.len, self.settings.max_event_bytes
            );
            self.unreadable(m, what);
            return;
        }
        match websocket::opcode(m) {
            Some(websocket::CLOSE) | Some(websocket::ERROR) => return self.close(m),
            _ => {}
        }
        match websocket::direction(m) {
            Some(Direction::Sent) => self.sent(m),
            Some(Direction::Received) => self.received(m),
            None => self.socket_message(m),
        }
    }
}
