//! One stream through the pipeline: its body is read in blocks of
//! [`READ_BYTES`], framed by the SSE parser, checked by the linter, and
//! summed up in a [`StreamResult`]. A [`FileResult`] holds one input's
//! streams, or the error that kept it from being read.
//!
//! This is the only place that reads body bytes; nothing is printed here.

use crate::capture::{self, Body, Capture, FilePos, Http, InputFormat, Origin, Stream, Timing};
use crate::checks::{Context, Linter};
use crate::dialect::chat::RequestOptions;
use crate::lint::{Diagnostic, Settings};
use crate::model::assembly::{Answer, Ending};
use crate::sse::{Block, Framing, Parser, Sink};
use crate::transport::{self, Message, Transport};
use std::collections::BTreeMap;
use std::io::Read;

mod socket;

/// Bytes read from a body at a time.
pub const READ_BYTES: usize = 64 * 1024;

/// What linting one stream produced.
#[derive(Debug)]
pub struct StreamResult {
    /// The stream's label.
    pub label: String,
    /// HTTP metadata.
    pub http: Option<Http>,
    /// Reader notes (decoding, de-chunking, lossy trace).
    pub notes: Vec<String>,
    /// Dispatched events.
    pub events: u64,
    /// Chunks linted on Chat's typed fast path (`dialect/chat/typed.rs`);
    /// the rest took the general path. Not part of any report.
    pub typed_chunks: u64,
    /// How it ended.
    pub ending: Ending,
    /// The reconstructed answer.
    pub answer: Answer,
    /// Findings kept (per-rule limit applied), in order found.
    pub diagnostics: Vec<Diagnostic>,
    /// Findings past the per-rule limit, by rule.
    pub omitted: BTreeMap<&'static str, u64>,
    /// The worst severity of each rule's omitted findings.
    pub omitted_worst: BTreeMap<&'static str, crate::lint::Severity>,
    /// Rules whose omitted findings the baseline covers.
    pub omitted_suppressed: Vec<&'static str>,
    /// All findings (errors, warnings, infos), omitted ones included.
    pub counts: (u64, u64, u64),
    /// Body → file positions.
    pub origin: Origin,
    /// The file position of each finding's body byte offset (and of its
    /// span's end, by its byte) where the body is not a contiguous part of
    /// the file but maps onto it: a HAR body that is the entry's
    /// `content.text` string as it is (see [`Origin::har_text`]), or a
    /// `curl -v` body with curl's lines left out ([`capture::Shifts`]).
    pub file_positions: BTreeMap<u64, FilePos>,
    /// Timing, if the capture had it.
    pub timing: Option<Timing>,
    /// Framing counts.
    pub framing: Framing,
    /// The body could not be read to its end (an I/O error mid-body).
    pub read_error: Option<String>,
    /// The provider the stream looks like (host, model, extension fields),
    /// and so the `--profile` that fits; never applied on its own.
    pub provider: Option<crate::checks::provider::ProviderGuess>,
    /// The dialect the stream was judged as (`None`: no known dialect).
    pub dialect: Option<crate::dialect::Dialect>,
    /// The transport its messages were framed by (SSE, NDJSON lines, AWS
    /// event-stream frames).
    pub transport: Transport,
    /// The profile the stream was read under: the one in force where it
    /// describes the stream's dialect, else that dialect's own
    /// ([`crate::lint::profile::applied`]; `gemini-api` for a Gemini
    /// stream under the default `openai`).
    pub profile: &'static str,
}

/// What linting one input produced.
#[derive(Debug)]
pub struct FileResult {
    /// The path as given.
    pub path: String,
    /// The format read.
    pub input_format: Option<InputFormat>,
    /// Finer detail of the format.
    pub detail: &'static str,
    /// Why the input could not be read at all.
    pub error: Option<String>,
    /// The rules that ran on it (after selection and profile), in code
    /// order.
    pub rules_run: Vec<&'static str>,
    /// Its streams.
    pub streams: Vec<StreamResult>,
}

impl FileResult {
    /// The input's format as the JSON report names it (`input_format`):
    /// `curl` or `har`, and a raw body by its transport: `sse`, or
    /// `eventstream`, `ndjson`, `websocket` (a message log) for a body of
    /// another transport, which is no SSE body.
    pub fn format_name(&self) -> Option<String> {
        let f = self.input_format?;
        let other = self
            .streams
            .first()
            .map(|s| s.transport)
            .filter(|t| f == InputFormat::Sse && *t != Transport::Sse);
        Some(match other {
            Some(t) => t.name().to_string(),
            None => f.to_string(),
        })
    }
}

/// Called after each block with the block and the findings it produced.
pub trait Observer {
    /// One block and its new findings; `linter` is the state after it.
    fn block(&mut self, block: &Block<'_>, new: &[Diagnostic], linter: &Linter<'_>);
    /// One message of a transport other than SSE ([`crate::transport`])
    /// and its new findings; `linter` is the state after it. Nothing by
    /// default.
    fn message(&mut self, _message: &Message<'_>, _new: &[Diagnostic], _linter: &Linter<'_>) {}
}

/// An observer that does nothing (for `check`).
pub struct NoObserver;

impl Observer for NoObserver {
    fn block(&mut self, _: &Block<'_>, _: &[Diagnostic], _: &Linter<'_>) {}
}

struct Tee<'a, 's, O: Observer> {
    linter: Linter<'s>,
    observer: &'a mut O,
}

impl<O: Observer> Sink for Tee<'_, '_, O> {
    fn block(&mut self, block: &Block<'_>) {
        let before = self.linter.out.diagnostics.len();
        self.linter.block(block);
        let new = &self.linter.out.diagnostics[before..];
        self.observer.block(block, new, &self.linter);
    }
}

impl<O: Observer> transport::Sink for Tee<'_, '_, O> {
    fn message(&mut self, message: &Message<'_>) {
        let before = self.linter.out.diagnostics.len();
        self.linter.read_message(message);
        let new = &self.linter.out.diagnostics[before..];
        self.observer.message(message, new, &self.linter);
    }
}

/// How a body is being framed: not yet (its first bytes are held until
/// they show the transport: [`transport::Head`]), by the SSE parser, by
/// another transport's framer, or not at all (binary bytes that nothing
/// frames: [`transport::settle`]).
enum Reading {
    Undecided(transport::Head),
    Sse(Box<Parser>),
    Framed(Box<dyn transport::Framer>),
    Unframed,
}

/// What names a stream's transport besides its bytes: the Content-Type,
/// the request path's dialect, `--dialect` ([`transport::settle`] weighs
/// them against the bytes).
fn named_transports(stream: &Stream, settings: &Settings) -> transport::Named {
    let url = stream.request.as_ref().map(|r| r.url.as_str());
    transport::Named {
        media: stream
            .http
            .as_ref()
            .and_then(|h| h.content_type.as_deref())
            .and_then(Transport::of_media_type),
        path: url
            .and_then(crate::dialect::sniff_url)
            .map(|d| d.api().transport()),
        forced: settings.dialect.map(|d| d.api().transport()),
    }
}

impl Reading {
    /// Frames `bytes`, settling the transport first when they complete
    /// what it is told by.
    fn feed<O: Observer>(
        &mut self,
        bytes: &[u8],
        tee: &mut Tee<'_, '_, O>,
        named: transport::Named,
        limit: usize,
    ) {
        match self {
            Reading::Undecided(head) => {
                if head.push(bytes) {
                    self.decide(tee, named, limit);
                }
            }
            Reading::Sse(p) => p.feed(bytes, tee),
            Reading::Framed(f) => f.feed(bytes, tee),
            Reading::Unframed => {}
        }
    }

    /// Settles the transport on the bytes held, and frames them.
    fn decide<O: Observer>(
        &mut self,
        tee: &mut Tee<'_, '_, O>,
        named: transport::Named,
        limit: usize,
    ) {
        let Reading::Undecided(head) = self else {
            return;
        };
        let held = head.take();
        let settled = transport::settle(&held, named);
        tee.linter.set_transport(settled.unwrap_or_default());
        *self = match settled.map(|t| t.framer(limit)) {
            Some(Some(f)) => Reading::Framed(f),
            Some(None) => Reading::Sse(Box::new(Parser::with_limit(limit))),
            None => {
                tee.linter.set_unframed();
                Reading::Unframed
            }
        };
        if !held.is_empty() {
            self.feed(&held, tee, named, limit);
        }
    }

    /// The end of the body: the SSE framing counts (none on another
    /// transport).
    fn finish<O: Observer>(
        mut self,
        tee: &mut Tee<'_, '_, O>,
        named: transport::Named,
        limit: usize,
    ) -> Framing {
        self.decide(tee, named, limit);
        match self {
            Reading::Sse(p) => p.finish(tee),
            Reading::Framed(mut f) => {
                f.finish(tee);
                Framing::default()
            }
            Reading::Undecided(_) | Reading::Unframed => Framing::default(),
        }
    }
}

/// Lints one stream.
pub fn lint_stream(
    stream: Stream,
    settings: &Settings,
    observer: &mut impl Observer,
) -> StreamResult {
    lint_stream_with(stream, settings, observer, Extras::default())
}

/// What the linter records beyond findings, for the commands that show it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Extras {
    /// Each chunk's field pointers (`diff`).
    pub fields: bool,
    /// A short rendering of what each chunk adds (`inspect`).
    pub summaries: bool,
}

/// Lints one stream, recording the `extras` for the observer.
pub fn lint_stream_with(
    stream: Stream,
    settings: &Settings,
    observer: &mut impl Observer,
    extras: Extras,
) -> StreamResult {
    let request = stream
        .request
        .as_ref()
        .and_then(|r| r.body.as_deref())
        .and_then(RequestOptions::from_body);
    let ctx = Context {
        http: stream.http.clone(),
        request,
        origin: stream.origin,
        timing: stream.timing.clone(),
        url: stream.request.as_ref().map(|r| r.url.clone()),
    };
    let mut linter = Linter::new(settings, ctx);
    if extras.fields {
        linter.fields_seen = Some(Vec::new());
    }
    linter.summaries = extras.summaries;
    let mut tee = Tee { linter, observer };
    let named = named_transports(&stream, settings);
    let limit = settings.max_event_bytes;
    let mut reading = Reading::Undecided(transport::Head::new(limit));
    let mut read_error = None;
    // A HAR body is kept until its findings are mapped into the file.
    let mut kept = None;
    match stream.body {
        Body::Bytes(bytes) => {
            for part in bytes.chunks(READ_BYTES) {
                tee.linter.observe_bytes(part);
                reading.feed(part, &mut tee, named, limit);
            }
            kept = Some(bytes);
        }
        Body::Reader(mut r) => {
            let mut buf = vec![0u8; READ_BYTES];
            loop {
                match r.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        tee.linter.observe_bytes(&buf[..n]);
                        reading.feed(&buf[..n], &mut tee, named, limit);
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        read_error = Some(capture::io_message(&e));
                        break;
                    }
                }
            }
        }
    }
    let framing = reading.finish(&mut tee, named, limit);
    let evidence: Vec<_> = stream
        .evidence
        .lock()
        .map(|v| v.clone())
        .unwrap_or_default();
    let forced_hint = tee.linter.forced_hint.take().filter(|h| !h.is_empty());
    let transport = tee.linter.transport();
    let report = tee.linter.finish(&framing, &evidence);
    let spans = || {
        report.out.diagnostics.iter().flat_map(|d| {
            let l = &d.location;
            [l.byte_offset, l.byte_offset + l.byte_len]
        })
    };
    let file_positions = match (stream.origin.har_text, kept, &stream.shifts) {
        (Some(t), Some(body), _) if t.mapped > 0 => {
            capture::har_pos::map_offsets(&body, &t, spans())
        }
        // A spooled body is read again from its file; should that fail,
        // its findings point at the start of the text value, as a body
        // that does not map does.
        (Some(t), None, _) if t.mapped > 0 => match &stream.spooled_text {
            Some(s) if !report.out.diagnostics.is_empty() => {
                capture::har_pos::map_offsets_read(s.reader(), &t, spans()).unwrap_or_default()
            }
            _ => BTreeMap::new(),
        },
        (None, _, Some(shifts)) => shifted_positions(shifts, &report.out.diagnostics),
        // A body read from a curl trace's dump lines.
        (None, _, None) if stream.dump.is_some() => {
            capture::dumped(stream.dump.as_deref().unwrap_or_default(), spans())
        }
        _ => BTreeMap::new(),
    };
    let mut notes = stream.notes;
    notes.extend(
        evidence
            .iter()
            .filter(|t| !t.by_capture)
            .map(|t| format!("the transfer broke: {}", t.reason)),
    );
    notes.extend(forced_hint);
    notes.extend(profile_mismatch(settings, report.dialect));
    StreamResult {
        label: stream.label,
        http: stream.http,
        notes,
        events: report.events,
        typed_chunks: report.typed_chunks,
        ending: report.ending,
        answer: report.answer,
        diagnostics: report.out.diagnostics,
        omitted: report.out.omitted,
        omitted_worst: report.out.omitted_worst,
        omitted_suppressed: Vec::new(),
        counts: report.out.counts,
        origin: stream.origin,
        file_positions,
        timing: stream.timing,
        framing,
        read_error,
        provider: report.provider,
        profile: &crate::lint::profile::applied(settings.profile, report.dialect).name,
        dialect: report.dialect,
        transport,
    }
}

/// A note when the profile chosen is another dialect's than the stream's
/// (`--profile gemini-api` on a Chat stream): its extensions, finish
/// values and severities describe streams this one is not. Said for any
/// profile chosen (`--profile openai` too), not for the default one when
/// none was, which every stream is read with then. It names the profiles
/// of the stream's dialect.
fn profile_mismatch(settings: &Settings, dialect: Option<crate::vocab::Dialect>) -> Option<String> {
    let p = settings.profile;
    let d = dialect?;
    if p.dialect == d || (p.name == crate::lint::default_profile().name && !settings.profile_chosen)
    {
        return None;
    }
    let names: Vec<&str> = crate::lint::profile::profiles()
        .iter()
        .filter(|q| q.dialect == d)
        .map(|q| q.name.as_str())
        .collect();
    // A few are named; a long list is counted.
    let which = if names.len() <= 6 {
        format!("{} profiles ({}; ", d.title(), names.join(", "))
    } else {
        format!("{} {} profiles (", names.len(), d.title())
    };
    Some(format!(
        "the profile `{}` describes {} streams, but this stream is {}: its extensions, values and severities do not apply here; choose one of the {which}`sselint rules --profiles` lists every profile with its dialect)",
        p.name,
        p.dialect.title(),
        d.title(),
    ))
}

/// The rules `settings` leaves on, in code order.
pub fn rules_run(settings: &Settings) -> Vec<&'static str> {
    crate::lint::catalogue()
        .rules()
        .filter(|r| settings.severity(r, None).is_some())
        .map(|r| r.name)
        .collect()
}

impl StreamResult {
    /// How many findings of each (rule, severity) the stream has, the
    /// omitted ones (past a rule's per-stream cap) counted at their rule's
    /// worst severity. `minimize` and `redact --scrub-text` compare these
    /// before and after rewriting a capture.
    pub fn finding_counts(&self) -> BTreeMap<(&'static str, crate::lint::Severity), u64> {
        let mut m = BTreeMap::new();
        for d in &self.diagnostics {
            *m.entry((d.rule, d.severity)).or_insert(0) += 1;
        }
        for (rule, n) in &self.omitted {
            if let Some(sev) = self.omitted_worst.get(rule) {
                *m.entry((*rule, *sev)).or_insert(0) += n;
            }
        }
        m
    }
}

/// The file positions of `diagnostics` in a body with lines left out
/// (`curl -v`): each span's start, and its end (by its byte alone).
fn shifted_positions(
    shifts: &capture::Shifts,
    diagnostics: &[crate::lint::Diagnostic],
) -> BTreeMap<u64, FilePos> {
    let Ok(shifts) = shifts.lock() else {
        return BTreeMap::new();
    };
    let full = shifts.len() >= capture::MAX_SHIFTS;
    let at = |end: bool| {
        diagnostics.iter().map(move |d| {
            let l = &d.location;
            let byte = l.byte_offset + if end { l.byte_len } else { 0 };
            (byte, l.line, l.column)
        })
    };
    // The starts last: a span's end that is another's start takes the
    // start's line and column.
    let mut out = capture::shifted(&shifts, full, at(true));
    out.extend(capture::shifted(&shifts, full, at(false)));
    out
}

/// Lints one captured stream, which is several where its body carries
/// several streams (a socket's message log, [`Transport::socket_of`]):
/// one result per response, each linted as a stream of its own, and one
/// for the socket's own findings when it has some (`pipeline/socket.rs`).
/// Any other stream is one result, as [`lint_stream_with`] gives it.
pub fn lint_streams_with(
    stream: Stream,
    settings: &Settings,
    observer: &mut impl Observer,
    extras: Extras,
) -> Vec<StreamResult> {
    let mut out = Vec::new();
    lint_streams_each(stream, settings, observer, extras, &mut |r| out.push(r));
    out
}

/// [`lint_streams_with`], each result handed to `each` as soon as it is
/// made: a socket's responses one by one as they end (in the order they
/// were asked for), so that a socket of any number of responses is
/// reported in flat memory.
pub fn lint_streams_each(
    mut stream: Stream,
    settings: &Settings,
    observer: &mut impl Observer,
    extras: Extras,
    each: &mut dyn FnMut(StreamResult),
) {
    if let Some(t) = socket::is_socket(&mut stream) {
        return socket::lint_socket(stream, t, settings, observer, extras, each);
    }
    each(lint_stream_with(stream, settings, observer, extras));
}

/// The [`FileResult`] of an opened capture, with no stream yet.
fn file_head(cap: &Capture, settings: &Settings) -> FileResult {
    FileResult {
        path: cap.path.clone(),
        input_format: Some(cap.input_format),
        detail: cap.detail,
        error: None,
        rules_run: rules_run(settings),
        streams: Vec::new(),
    }
}

/// Lints every stream of an opened capture (a WebSocket's responses each
/// as a stream: [`lint_streams_with`]).
pub fn lint_capture(cap: Capture, settings: &Settings, observer: &mut impl Observer) -> FileResult {
    let mut file = file_head(&cap, settings);
    for s in cap.streams {
        lint_streams_each(s, settings, observer, Extras::default(), &mut |r| {
            file.streams.push(r);
        });
    }
    file
}

/// Opens and lints one input as [`lint_path`] does, but hands each
/// stream's result to `each` with the input's [`FileResult`] (its path,
/// format and rules; no streams) as soon as it is made, and returns that
/// head: nothing is kept per stream. An unreadable input gives no stream,
/// and the returned result has `error` set.
pub fn lint_path_each(
    path: &str,
    opts: &capture::Options,
    settings: &Settings,
    each: &mut dyn FnMut(&FileResult, StreamResult),
) -> FileResult {
    match capture::open(path, opts) {
        Ok(cap) => {
            let file = file_head(&cap, settings);
            for s in cap.streams {
                lint_streams_each(s, settings, &mut NoObserver, Extras::default(), &mut |r| {
                    each(&file, r);
                });
            }
            file
        }
        Err(e) => lint_opened(path, Err(e), settings),
    }
}

/// Opens and lints one input; an unreadable input gives a result with
/// `error` set and no streams.
pub fn lint_path(path: &str, opts: &capture::Options, settings: &Settings) -> FileResult {
    lint_opened(path, capture::open(path, opts), settings)
}

/// [`lint_path`] of a capture already opened (or not) as `path`.
pub fn lint_opened(
    path: &str,
    cap: Result<Capture, capture::InputError>,
    settings: &Settings,
) -> FileResult {
    match cap {
        Ok(cap) => lint_capture(cap, settings, &mut NoObserver),
        Err(e) => FileResult {
            path: path.to_string(),
            input_format: None,
            detail: "",
            error: Some(e.message),
            rules_run: rules_run(settings),
            streams: Vec::new(),
        },
    }
}
