//! One socket through the pipeline: its message log (a body that carries
//! several streams, [`Transport::socket_of`]) is framed, each message is routed to
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
//! Memory: a linter per response still open (asked for, or running),
//! and the last [`KEEP_ENDED`] that ended, which can still be told of
//! events after their end (a second terminal event, an event after it);
//! a response is finished and its result made once it leaves that window,
//! so a socket of many turns holds the linters of a few. The messages are
//! not kept, nor are the results: each is handed on as soon as every
//! response asked for before it has been (the order the report lists
//! them in), so only the results of responses that ended while an earlier
//! one still runs wait.

use super::{Extras, Observer, StreamResult, READ_BYTES};
use crate::capture::{self, Body, Stream};
use crate::checks::{Context, Linter};
use crate::dialect::api::{SocketRoute, SocketStep};
use crate::dialect::chat::RequestOptions;
use crate::dialect::Dialect;
use crate::lint::{rule, Finding, Location, Settings};
use crate::sse::Framing;
use crate::transport::{Direction, Frame, Message, Transport};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::io::Read;

/// How many ended responses keep their linter, for events that still
/// name them, before they are finished. An event naming one finished
/// already is routed as one naming an id never seen.
pub(super) const KEEP_ENDED: usize = 8;

#[cfg(test)]
thread_local! {
    /// The most responses one socket held at once, on this thread.
    static MOST_HELD: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// The most results one socket held at once (made and not handed
    /// on), on this thread.
    static MOST_RESULTS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The socket transport `stream`'s body is framed by, when it is a body
/// that carries several streams ([`Transport::socket_of`]): its first
/// bytes are read (and put back) to tell.
pub(super) fn is_socket(stream: &mut Stream) -> Option<Transport> {
    let head_len = 64 * 1024;
    match &mut stream.body {
        Body::Bytes(b) => Transport::socket_of(&b[..b.len().min(head_len)]),
        Body::Reader(r) => {
            let mut head = Vec::new();
            let ok = r.by_ref().take(head_len as u64).read_to_end(&mut head);
            let rest = std::mem::replace(r, Box::new(std::io::empty()));
            *r = Box::new(std::io::Cursor::new(head.clone()).chain(rest));
            ok.ok().and_then(|_| Transport::socket_of(&head))
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
fn head_dialect(stream: &mut Stream, transport: Transport) -> Option<Dialect> {
    struct Shown(Option<Dialect>);
    impl crate::transport::Sink for Shown {
        fn message(&mut self, m: &Message<'_>) {
            if self.0.is_none() {
                let sent = m.direction() == Some(Direction::Sent);
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
    if let Some(mut framer) = transport.framer(head_len) {
        framer.feed(&head, &mut shown);
    }
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
    /// The response its request continues ([`Parent`]).
    parent: Option<Parent>,
}

/// The response a request continues (Responses' `previous_response_id`,
/// [`crate::dialect::Api::socket_parent`]), and what the socket had of it
/// when the request was sent.
#[derive(Debug, Clone)]
struct Parent {
    id: String,
    /// The lane of the earlier response on this socket that had the id;
    /// `None`: none had it.
    lane: Option<Option<String>>,
}

impl Parent {
    /// What the chain is, for a note and (`refused`: an error answered
    /// the request) a finding's message.
    fn said(&self, lane: &Option<String>, refused: bool) -> String {
        let id = crate::lint::printable(&crate::model::shorten(&self.id, 60));
        match &self.lane {
            None if refused => format!(
                "continues `{id}` (its `previous_response_id`), which no earlier response on this socket had"
            ),
            Some(l) if l == lane => {
                format!("continues `{id}` (its `previous_response_id`), an earlier response on this lane")
            }
            Some(l) => format!(
                "continues `{id}` (its `previous_response_id`), a response on {}: a fork onto another lane, which the API allows",
                lane_name(l)
            ),
            None => format!(
                "continues `{id}` (its `previous_response_id`), which no earlier response on this socket had: the server finds it only if it was stored (`store: true`), or if the capture misses the start of the connection; else it answers `previous_response_not_found`"
            ),
        }
    }
}

/// A response's result, made when it was finished, with what its label
/// is made of once every response before it is handed on.
struct Done {
    /// Its id, where it had one.
    id: Option<String>,
    lane: Option<String>,
    result: StreamResult,
}

/// The socket being read.
struct Socket<'s, 'o, O: Observer> {
    settings: &'s Settings,
    ctx: Context,
    dialect: Dialect,
    transport: Transport,
    extras: Extras,
    observer: &'o mut O,
    base: Base<'s>,
    /// The responses not finished yet, by index.
    responses: BTreeMap<usize, Response<'s>>,
    /// The index the next response gets.
    next: usize,
    /// Responses ended and not finished yet, first ended first.
    ended: VecDeque<usize>,
    /// The results of the responses finished that wait for an earlier
    /// response's, by index.
    done: BTreeMap<usize, Done>,
    /// The index of the next response whose result is handed on.
    due: usize,
    /// Results handed on so far (a response with no id is named by its
    /// place among them: `response N`).
    handed: usize,
    /// Where each result goes, in the order the responses were asked for.
    emit: &'o mut dyn FnMut(StreamResult),
    /// Per lane, the requests waiting for their response (indices into
    /// `responses`), first first.
    queued: BTreeMap<Option<String>, VecDeque<usize>>,
    /// Per lane, the response running.
    running: BTreeMap<Option<String>, usize>,
    /// Response ids seen, whose they are and that response's lane.
    ids: HashMap<String, (usize, Option<String>)>,
    /// The socket's own findings (a linter fed no message: its findings
    /// and locations).
    socket: Linter<'s>,
    socket_messages: u64,
    /// How the socket ended, when a close or an error says so.
    closed: Option<String>,
}

/// Lints a WebSocket's message log: one result per response, handed to
/// `emit` in the order the responses were asked for as soon as it is
/// made, then one for the socket's own findings when there are some.
pub(super) fn lint_socket<O: Observer>(
    mut stream: Stream,
    transport: Transport,
    settings: &Settings,
    observer: &mut O,
    extras: Extras,
    emit: &mut dyn FnMut(StreamResult),
) {
    let url = stream.request.as_ref().map(|r| r.url.clone());
    let ctx = Context {
        http: stream.http.clone(),
        request: None,
        origin: stream.origin,
        timing: None,
        url: url.clone(),
    };
    let head = head_dialect(&mut stream, transport);
    let Some(dialect) = socket_dialect(settings, url.as_deref(), head) else {
        emit(super::lint_stream_with(stream, settings, observer, extras));
        return;
    };
    let mut socket_linter = Linter::new(settings, ctx.clone());
    socket_linter.socket_response(dialect, transport);
    let base = Base {
        label: stream.label,
        http: stream.http,
        notes: stream.notes,
        origin: stream.origin,
        read_error: None,
        settings,
        evidence: stream.evidence,
        transport,
    };
    let mut sock = Socket {
        settings,
        ctx,
        dialect,
        transport,
        extras,
        observer,
        base,
        responses: BTreeMap::new(),
        next: 0,
        ended: VecDeque::new(),
        done: BTreeMap::new(),
        due: 0,
        handed: 0,
        emit,
        queued: BTreeMap::new(),
        running: BTreeMap::new(),
        ids: HashMap::new(),
        socket: socket_linter,
        socket_messages: 0,
        closed: None,
    };
    let Some(mut framer) = transport.framer(settings.max_event_bytes) else {
        return;
    };
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
    sock.base.read_error = read_error;
    sock.finish();
}

/// What every result of the socket shares.
struct Base<'a> {
    label: String,
    http: Option<capture::Http>,
    notes: Vec<String>,
    origin: capture::Origin,
    /// Set once the body is read (each result gets it then).
    read_error: Option<String>,
    settings: &'a Settings,
    /// The capture's evidence of a cut, as far as it is known when a
    /// response is finished.
    evidence: capture::Evidence,
    transport: Transport,
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
            transport: self.transport,
        }
    }

    /// A response's result, labelled later ([`Socket::finish`]).
    fn result(&self, linter: Linter<'_>) -> StreamResult {
        let evidence: Vec<_> = self.evidence.lock().map(|v| v.clone()).unwrap_or_default();
        let report = linter.finish(&Framing::default(), &evidence);
        StreamResult {
            label: String::new(),
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
            transport: self.transport,
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
        linter.socket_response(self.dialect, self.transport);
        let r = self.next;
        self.next += 1;
        self.responses.insert(
            r,
            Response {
                linter,
                lane,
                id: None,
                started: false,
                ended: false,
                create,
                parent: None,
            },
        );
        #[cfg(test)]
        MOST_HELD.with(|m| m.set(m.get().max(self.responses.len())));
        r
    }

    /// The response at index `r`, which is not finished: each index the
    /// socket holds is one of [`Socket::responses`]' (a running or
    /// waiting one, or one ended within [`KEEP_ENDED`]).
    fn resp(&mut self, r: usize) -> &mut Response<'s> {
        self.responses
            .get_mut(&r)
            .expect("a response running, waiting or just ended is kept")
    }

    /// Response `r` ended: it is kept while [`KEEP_ENDED`] others ended
    /// after it, then finished.
    fn ended(&mut self, r: usize) {
        let resp = self.resp(r);
        if resp.ended {
            return;
        }
        resp.ended = true;
        self.ended.push_back(r);
        if self.ended.len() > KEEP_ENDED {
            if let Some(old) = self.ended.pop_front() {
                self.finish_response(old);
            }
        }
    }

    /// Finishes response `r` (one that started): its result is made and
    /// its linter dropped.
    fn finish_response(&mut self, r: usize) {
        let Some(resp) = self.responses.remove(&r) else {
            return;
        };
        let mut linter = resp.linter;
        if !resp.ended {
            let how = self.closed.clone().unwrap_or_else(|| {
                "the socket's messages end (the capture holds no close)".to_string()
            });
            linter.socket_closed(how);
        }
        let mut result = self.base.result(linter);
        if let Some(p) = &resp.parent {
            result
                .notes
                .push(format!("this response {}", p.said(&resp.lane, false)));
        }
        self.done.insert(
            r,
            Done {
                id: resp.id,
                lane: resp.lane,
                result,
            },
        );
        #[cfg(test)]
        MOST_RESULTS.with(|m| m.set(m.get().max(self.done.len())));
        self.hand_on();
    }

    /// Hands on the results that wait for no earlier response: in the
    /// order the responses were asked for, past the ones that give none
    /// (a request an error refused).
    fn hand_on(&mut self) {
        while self.due < self.next {
            if let Some(d) = self.done.remove(&self.due) {
                let which = match &d.id {
                    Some(id) => crate::lint::printable(&crate::model::shorten(id, 60)),
                    None => format!("response {}", self.handed + 1),
                };
                let lane = match &d.lane {
                    Some(l) => format!(" (lane {})", crate::lint::printable(l)),
                    None => String::new(),
                };
                let mut result = d.result;
                result.label = format!("{} · {which}{lane}", self.base.label);
                result.read_error.clone_from(&self.base.read_error);
                self.handed += 1;
                (self.emit)(result);
            } else if self.responses.contains_key(&self.due) {
                // Still open: what ended after it waits.
                return;
            }
            self.due += 1;
        }
    }

    /// The response an event on `lane` naming `id` belongs to: the one
    /// that id is, the lane's running one, the lane's first request
    /// waiting (its start event never came), or a new one no request
    /// asked for (`ws-response-without-create`).
    fn response_for(&mut self, lane: &Option<String>, id: Option<&str>, m: &Message<'_>) -> usize {
        if let Some((r, l)) = id.and_then(|i| self.ids.get(i)) {
            if l == lane && self.responses.contains_key(r) {
                return *r;
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
        let here = self.resp(r).linter.message_location(m);
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
                        self.resp(prev).id.as_deref().map_or("with no id".to_string(), |i| format!("`{}`", crate::lint::printable(&crate::model::shorten(i, 60)))),
                    ),
                    here.clone(),
                )
                .event(Some(m.index)),
            );
        }
        if let Some(id) = id {
            if let Some((other, other_lane)) = self.ids.get(id) {
                if *other != r {
                    findings.push(
                        Finding::new(
                            rule::WS_RESPONSE_ID_COLLISION,
                            format!(
                                "response id `{}` is already the id of another response on this socket (on {}): events that name it cannot be told apart, and a `previous_response_id` naming it is ambiguous",
                                crate::lint::printable(&crate::model::shorten(id, 60)),
                                lane_name(other_lane)
                            ),
                            here,
                        )
                        .event(Some(m.index)),
                    );
                }
            }
            // The id names this response from now on, unless another one
            // that has it still runs (then neither can be told apart).
            let holder = self.ids.get(id).map(|(other, _)| *other);
            let free = holder.is_none_or(|o| self.responses.get(&o).is_none_or(|x| x.ended));
            if free {
                self.ids.insert(id.to_string(), (r, lane.clone()));
            }
            self.resp(r).id = Some(id.to_string());
        }
        self.resp(r).started = true;
        self.running.insert(lane.clone(), r);
        let linter = &mut self.resp(r).linter;
        for f in findings {
            linter.report_socket(f);
        }
        r
    }

    /// Feeds message `m` to response `r`'s linter, and tells the observer.
    fn feed(&mut self, r: usize, m: &Message<'_>, before: usize) {
        let linter = &mut self
            .responses
            .get_mut(&r)
            .expect("a response fed is kept")
            .linter;
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
            .filter(|r| self.responses.get(r).is_some_and(|x| !x.ended))
            .collect();
        let f = |loc| {
            Finding::new(rule::WS_UNPARSEABLE_MESSAGE, what.clone(), loc)
                .event(Some(m.index))
                .help("send every message as one JSON object with a string `type`, in a text frame")
        };
        if let [r] = running.as_slice() {
            let linter = &mut self
                .responses
                .get_mut(r)
                .expect("a running response is kept")
                .linter;
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
        // What the dialect shows instead of the data (audio, never shown).
        let sent = m.direction() == Some(Direction::Sent);
        match self.dialect.api().socket_summary(sent, m.data) {
            Some(summary) => {
                self.socket.event_summary = summary;
                self.observer.message(m, &[], &self.socket);
                self.socket.event_summary.clear();
            }
            None => self.observer.message(m, &[], &self.socket),
        }
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
                let parent = self
                    .dialect
                    .api()
                    .socket_parent(true, m.data)
                    .map(|id| Parent {
                        lane: self.ids.get(&id).map(|(_, l)| l.clone()),
                        id,
                    });
                let r = self.new_response(lane.clone(), Some(loc), request);
                self.resp(r).parent = parent;
                self.queued.entry(lane).or_default().push_back(r);
                let linter = &self.responses[&r].linter;
                self.observer.message(m, &[], linter);
            }
            _ => self.socket_message(m),
        }
    }

    fn received(&mut self, m: &Message<'_>) {
        if m.frame() == Some(Frame::Binary) {
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
                let before = self.resp(r).linter.out.diagnostics.len();
                self.feed(r, m, before);
                if end {
                    if self.running.get(&lane) == Some(&r) {
                        self.running.remove(&lane);
                    }
                    self.ended(r);
                }
            }
            SocketStep::Error => self.error(lane, m, false),
            SocketStep::Failure => self.error(lane, m, true),
            SocketStep::Refusal => self.refusal(lane, m),
            SocketStep::Socket => match self.running.get(&lane) {
                Some(&r) => {
                    let before = self.resp(r).linter.out.diagnostics.len();
                    self.feed(r, m, before);
                }
                None => self.socket_message(m),
            },
            SocketStep::Create | SocketStep::Client => self.socket_message(m),
        }
    }

    /// An `error` event: the running response's on its lane (its checker
    /// judges it; it `ends` that response where the API sends nothing of
    /// it after an error); else the answer to the lane's first waiting
    /// request, which then gets no response; else the socket's.
    fn error(&mut self, lane: Option<String>, m: &Message<'_>, ends: bool) {
        if let Some(&r) = self.running.get(&lane) {
            let before = self.resp(r).linter.out.diagnostics.len();
            self.feed(r, m, before);
            if ends {
                self.running.remove(&lane);
                self.ended(r);
            }
            return;
        }
        self.refuse(lane, m);
    }

    /// An `error` event that refuses the lane's first waiting request even
    /// while a response runs (the API queues none); with no request
    /// waiting, an error as [`Socket::error`] reads it.
    fn refusal(&mut self, lane: Option<String>, m: &Message<'_>) {
        if self.queued.get(&lane).is_some_and(|q| !q.is_empty()) {
            self.refuse(lane, m);
        } else {
            self.error(lane, m, false);
        }
    }

    /// An error no running response takes: the answer to the lane's first
    /// waiting request, which then gets no response, else the socket's.
    fn refuse(&mut self, lane: Option<String>, m: &Message<'_>) {
        let refused = self.queued.get_mut(&lane).and_then(VecDeque::pop_front);
        let mut chain = None;
        if let Some(r) = refused {
            // Answered by the error: no response comes, nothing to keep.
            chain = self
                .responses
                .remove(&r)
                .and_then(|x| x.parent)
                .map(|p| p.said(&lane, true));
            self.hand_on();
        }
        let said = serde_json::from_str::<serde_json::Value>(m.data)
            .ok()
            .map(|v| crate::model::error_message(v.get("error").unwrap_or(&v)))
            .unwrap_or_default();
        let what = if refused.is_some() {
            // The request a chain's parent was not found for says which
            // response it continued, and whether this socket had it.
            let chain = chain
                .map(|c| format!("; the request {c}"))
                .unwrap_or_default();
            format!(
                "an error answers the `response.create` waiting on {}, which gets no response: {said}{chain}",
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
        let close = match m.frame() {
            Some(Frame::Close { code, reason }) => Some((code, reason)),
            _ => None,
        };
        let how = match close {
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
        let code = close.map(|(c, _)| c);
        let running = self
            .running
            .values()
            .any(|r| self.responses.get(r).is_some_and(|x| !x.ended));
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
        // A close mid-response is one finding, the cut's
        // (`ws-closed-mid-response`, not also `ws-close-code`: one root
        // cause, one finding), so the cut says when the code was not a
        // normal closure.
        let how = match code {
            Some(1000) | None => how,
            Some(_) => format!("{how}, not 1000 (normal closure),"),
        };
        self.closed.get_or_insert(how);
    }

    /// Hands on every response's result left, in the order they were
    /// asked for, then the socket's when it has findings (or when the
    /// socket gave no response at all).
    fn finish(mut self) {
        let how = self.closed.clone().unwrap_or_else(|| {
            "the socket's messages end (the capture holds no close)".to_string()
        });
        let left: Vec<usize> = self.responses.keys().copied().collect();
        for r in left {
            let resp = &self.responses[&r];
            if resp.started {
                self.finish_response(r);
                continue;
            }
            // A request the server never answered.
            if let Some(loc) = resp.create.clone() {
                let f = Finding::new(
                    rule::WS_CLOSED_MID_RESPONSE,
                    format!(
                        "{how} before the response this `response.create` asked for (on {}) started: the client gets no answer",
                        lane_name(&resp.lane)
                    ),
                    loc,
                );
                self.socket.report_socket(f);
            }
            self.responses.remove(&r);
            self.hand_on();
        }
        self.hand_on();
        if !self.socket.out.diagnostics.is_empty() || self.handed == 0 {
            let result = self
                .base
                .socket_result(self.socket, self.socket_messages, self.dialect);
            (self.emit)(result);
        }
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
        if let Some(Frame::Close { .. } | Frame::Failed) = m.frame() {
            return self.close(m);
        }
        match m.direction() {
            Some(Direction::Sent) => self.sent(m),
            Some(Direction::Received) => self.received(m),
            None => self.socket_message(m),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A message log of `turns` Responses turns, each asked for and
    /// complete; with `lanes`, the turns alternate between lanes `a` and
    /// `b`, two at a time, their events interleaved.
    fn log(turns: usize, lanes: bool) -> Vec<u8> {
        let line = |sent: bool, data: serde_json::Value| {
            let dir = if sent { "sent" } else { "received" };
            let rec = serde_json::json!({"direction": dir, "opcode": 1, "data": data.to_string()});
            format!("{rec}\n")
        };
        let lane_of = |t: usize| lanes.then_some(if t.is_multiple_of(2) { "a" } else { "b" });
        let with = |t: usize, mut v: serde_json::Value| {
            if let Some(l) = lane_of(t) {
                v["stream_id"] = l.into();
            }
            v
        };
        let events = |t: usize| -> Vec<String> {
            let id = format!("resp_{t}");
            let item = format!("msg_{t}");
            let resp = |status: &str| serde_json::json!({"id": id, "object": "response", "status": status, "output": []});
            let done = serde_json::json!({"id": item, "type": "message", "status": "completed", "role": "assistant",
                "content": [{"type": "output_text", "text": "Hi.", "annotations": []}]});
            let mut out = vec![
                serde_json::json!({"type": "response.created", "response": resp("in_progress")}),
                serde_json::json!({"type": "response.output_item.added", "output_index": 0,
                    "item": {"id": item, "type": "message", "status": "in_progress", "role": "assistant", "content": []}}),
                serde_json::json!({"type": "response.content_part.added", "item_id": item, "output_index": 0, "content_index": 0,
                    "part": {"type": "output_text", "text": "", "annotations": []}}),
                serde_json::json!({"type": "response.output_text.delta", "item_id": item, "output_index": 0, "content_index": 0, "delta": "Hi."}),
                serde_json::json!({"type": "response.output_text.done", "item_id": item, "output_index": 0, "content_index": 0, "text": "Hi."}),
                serde_json::json!({"type": "response.content_part.done", "item_id": item, "output_index": 0, "content_index": 0,
                    "part": {"type": "output_text", "text": "Hi.", "annotations": []}}),
                serde_json::json!({"type": "response.output_item.done", "output_index": 0, "item": done}),
            ];
            let mut c = resp("completed");
            c["output"] = serde_json::json!([done]);
            out.push(serde_json::json!({"type": "response.completed", "response": c}));
            out.into_iter()
                .enumerate()
                .map(|(i, mut e)| {
                    e["sequence_number"] = i.into();
                    line(false, with(t, e))
                })
                .collect()
        };
        let create = |t: usize| {
            line(
                true,
                with(
                    t,
                    serde_json::json!({"type": "response.create", "model": "m", "input": "hi"}),
                ),
            )
        };
        let mut out = String::new();
        let mut t = 0;
        while t < turns {
            if lanes {
                out.push_str(&create(t));
                out.push_str(&create(t + 1));
                for (a, b) in events(t).into_iter().zip(events(t + 1)) {
                    out.push_str(&a);
                    out.push_str(&b);
                }
                t += 2;
            } else {
                out.push_str(&create(t));
                out.extend(events(t));
                t += 1;
            }
        }
        out.into_bytes()
    }

    /// The socket's results, the most responses it held at once, and the
    /// most results it held at once.
    fn lint(body: Vec<u8>) -> (Vec<StreamResult>, usize, usize) {
        MOST_HELD.with(|m| m.set(0));
        MOST_RESULTS.with(|m| m.set(0));
        let settings = Settings::default();
        let mut stream = Stream::new("log", Body::Bytes(body));
        let t = is_socket(&mut stream).expect("a message log");
        let mut out = Vec::new();
        lint_socket(
            stream,
            t,
            &settings,
            &mut super::super::NoObserver,
            Extras::default(),
            &mut |r| out.push(r),
        );
        (
            out,
            MOST_HELD.with(std::cell::Cell::get),
            MOST_RESULTS.with(std::cell::Cell::get),
        )
    }

    #[test]
    fn a_socket_holds_the_responses_open_not_every_one() {
        for lanes in [false, true] {
            let (results, held, _) = lint(log(300, lanes));
            assert_eq!(results.len(), 300, "lanes {lanes}");
            assert!(
                held <= KEEP_ENDED + 2,
                "lanes {lanes}: {held} responses held at once"
            );
            for (i, r) in results.iter().enumerate() {
                assert!(
                    r.label.starts_with(&format!("log · resp_{i}")),
                    "{i}: {}",
                    r.label
                );
                // Each turn is alike: its findings (the short shape's
                // missing fields) are the first turn's, none the socket's.
                assert_eq!(r.counts, results[0].counts, "{}", r.label);
                assert!(
                    r.diagnostics.iter().all(|d| !d.rule.starts_with("ws-")),
                    "{}: {:?}",
                    r.label,
                    r.diagnostics
                );
                assert_eq!(r.ending, crate::model::assembly::Ending::Complete);
            }
        }
    }

    #[test]
    fn a_socket_hands_each_result_on_as_it_is_made() {
        // The results are handed on as the responses are finished, not
        // kept to the socket's end: one at a time on one lane; on two
        // lanes a response can end before the one asked for before it.
        for lanes in [false, true] {
            let (results, _, most) = lint(log(300, lanes));
            assert_eq!(results.len(), 300, "lanes {lanes}");
            assert!(most <= 2, "lanes {lanes}: {most} results held at once");
        }
    }

    #[test]
    fn a_result_waits_for_the_responses_asked_for_before_it() {
        // Lane `a`'s response is asked for first and is still running
        // when lane `b`'s ends: `b`'s result waits, and the report keeps
        // the order they were asked for.
        let mut body = log(2, true);
        let text = String::from_utf8(body.clone()).unwrap();
        // Move lane a's terminal event (resp_0's `response.completed`)
        // to the end.
        let lines: Vec<&str> = text.lines().collect();
        let last_a = lines
            .iter()
            .rposition(|l| l.contains("response.completed") && l.contains("resp_0"))
            .unwrap();
        let mut moved: Vec<&str> = lines.clone();
        let line = moved.remove(last_a);
        moved.push(line);
        body = (moved.join("\n") + "\n").into_bytes();
        let (results, _, _) = lint(body);
        let labels: Vec<&str> = results.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(labels, ["log · resp_0 (lane a)", "log · resp_1 (lane b)"]);
    }
}
