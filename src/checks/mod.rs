//! The checks: one [`Linter`] per stream, fed block by block by the SSE
//! parser. The linter keeps the format-neutral state (framing counts,
//! timing, the head of the body, the settled dialect) and runs the rules
//! every dialect shares (`rules/transport/`); each event then goes to the
//! stream's dialect's [`Checker`](crate::dialect::Checker), which keeps
//! that dialect's state and assembles the answer (see `dialect`). Findings
//! go to a [`Collector`].
//!
//! What lives here is dialect-blind: `framing` (bytes and lines),
//! `payload` (an event's way through, and `invalid-json`), `ending` (the
//! transport rules, then the dialect's ending), the timing rules
//! (`stall`, `buffered`), `provider` (which profile a stream looks like)
//! and `dialect` (settling the stream's dialect, and the glue to its
//! checker).
//!
//! Checks never re-read bytes and never print; every finding carries a
//! location computed while its block is at hand.

mod dialect;
mod ending;
mod framing;
mod message;
pub(crate) mod payload;
pub mod provider;

use crate::capture::{Http, Origin, Truncation};
use crate::dialect::chat::RequestOptions;
use crate::dialect::{Dialect, Hints};
use crate::lint::{Collector, Finding, Location, Profile, Settings};
use crate::model::assembly::Answer;
use crate::model::span;
use crate::sse::{Block, Framing, Line, Sink};

/// Bytes of the body kept from its start, to read a body that is not SSE
/// (a bare JSON error) as a whole.
pub const HEAD_BYTES: usize = 64 * 1024;

/// What the linter knows about the stream before reading its body.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// HTTP metadata.
    pub http: Option<Http>,
    /// Request options, when the capture holds the request.
    pub request: Option<RequestOptions>,
    /// Body position → file position.
    pub origin: Origin,
    /// When the body's bytes arrived, if the capture knows.
    pub timing: Option<crate::capture::Timing>,
    /// The request URL, when the capture has it (HAR, curl `-v`, `record`).
    pub url: Option<String>,
}

/// One stream's linter. Feed it blocks (it is an [`Sink`]), then call
/// [`Linter::finish`].
pub struct Linter<'s> {
    /// The findings.
    pub out: Collector<'s>,
    profile: &'static Profile,
    ctx: Context,
    /// The answer, once the stream's checker has finished (see
    /// [`Linter::answer`]).
    answer: Answer,
    head: Vec<u8>,
    /// Lines that are SSE fields with a known name, or comments.
    sse_lines: u64,
    comment_lines: u64,
    first_comment: Option<Location>,
    data_lines: u64,
    no_space_lines: u64,
    first_no_space: Option<Location>,
    /// Events whose data spans several `data` lines (`multiline-data`,
    /// said once at the end): how many, the most lines one had, and the
    /// first (its second `data` line, its event index, its data's hash,
    /// which fingerprints the finding as it did when said per event).
    multiline_events: u64,
    multiline_most: usize,
    first_multiline: Option<(Location, Option<u64>, [u8; 8])>,
    first_cr: Option<Location>,
    first_crlf: Option<Location>,
    first_lf: Option<Location>,
    invalid_utf8_reported: u64,
    first_invalid_utf8: Option<(Location, String)>,
    /// Location of the last line seen.
    /// The last line seen (its bytes, offset, line number), kept raw: the
    /// location is built only when a whole-stream finding needs it.
    last_line: (Vec<u8>, u64, u64),
    /// Characters of the last line before its kept tail (a line longer
    /// than `MAX_SOURCE_LINE` keeps only its end): added to the column.
    last_line_dropped_chars: u64,
    /// Body offset just past the last binary message (an event-stream
    /// frame, whose last bytes are its CRC, not its payload): where a
    /// binary stream ends.
    last_message_end: Option<u64>,
    /// Dispatched events.
    pub events: u64,
    /// Chat chunks linted on the typed fast path, once the stream's checker
    /// is done ([`crate::dialect::Checker::typed_chunks`]).
    pub typed_chunks: u64,
    /// `error:` field lines (`error-event`, reported by the framing).
    error_fields: u64,
    /// The first line of the tail (an unterminated block) when it holds no
    /// complete event.
    tail_loc: Option<Location>,
    /// `unterminated-event` for a tail that holds data, held until the
    /// stream's end says whether the capture cut it (then it is the cut,
    /// `capture-truncated`, not the server's), fingerprinted by the
    /// tail's data as when said at once.
    tail_unterminated: Option<Finding>,
    /// Events whose data was not JSON.
    invalid_payloads: u64,
    /// Events past the size limit (`event-too-large`).
    oversized: u64,
    separator_errors: u64,
    /// The block at hand has an `event:` line (see `check_block_framing`).
    block_named: bool,
    /// The block at hand's last `id:` line, by its index in the block.
    block_id: Option<usize>,
    /// `unknown-sse-field` findings held until the body shows SSE lines.
    pending_fields: Vec<Finding>,
    /// Where the `unknown-sse-field` findings reported before the dialect
    /// was settled are in `out.diagnostics` (their level is the settled
    /// dialect's to give, at the end).
    unsettled_fields: Vec<usize>,
    /// What the last event was (`role`, `content`, `finish`, `usage`,
    /// `done`, `error`, `invalid`, …), for `inspect`.
    pub event_kind: Vec<&'static str>,
    /// What the first dispatched event did (its `event_kind`), for `bom`:
    /// the event a parser that keeps the BOM loses.
    first_event_kind: Option<Vec<&'static str>>,
    /// An event's data is being checked: its findings are fingerprinted
    /// by that data once the event is done (see `fingerprint_event`), so
    /// the data is hashed only for events that have findings.
    in_event: bool,
    /// When set (by `inspect`), a short rendering of what the last chunk
    /// adds is kept in `event_summary`.
    pub summaries: bool,
    /// See `summaries`.
    pub event_summary: String,
    /// When set (by `diff`), the JSON pointers (indices folded) of the last
    /// chunk are collected here, cleared per event.
    pub fields_seen: Option<Vec<String>>,
    /// Time (ms) and index of the previous dispatched event.
    prev_time: Option<(f64, u64)>,
    /// Times (ms) of content events, and where the first was.
    content_times: Vec<f64>,
    first_content_loc: Option<(Location, Option<u64>)>,
    /// The stream's dialect, once settled (see `dialect_of`).
    pub dialect: Option<Dialect>,
    /// The stream's checks: the settled dialect's, or the default
    /// dialect's while none is settled (taken out while it runs).
    checker: Option<Box<dyn crate::dialect::Checker>>,
    /// How the stream ended, once its checker has finished.
    dialect_ending: Option<crate::model::assembly::Ending>,
    /// What the checkers saw of the provider, once they are done.
    hints: Hints,
    /// Events of no known dialect, while none is settled: the first one's
    /// location and what it looks like.
    unknown_events: u64,
    first_unknown: Option<(Location, Option<u64>, String)>,
    /// The body held no byte but whitespace and nothing named a dialect
    /// (`empty-body`): the stream's dialect is unknown.
    empty_body: bool,
    /// The body's bytes are binary and no transport frames them
    /// ([`Linter::set_unframed`]): `body-not-sse` says what they are not,
    /// and no dialect judges them.
    unframed: bool,
    /// `--dialect` named one dialect and the first event is another's: a
    /// note saying which it looks like (`Some` once the first event with
    /// JSON data was looked at; empty when it fits).
    pub forced_hint: Option<String>,
    /// The transport the stream's messages came by (see
    /// [`Linter::set_transport`]): SSE unless the pipeline says otherwise.
    transport: crate::transport::Transport,
    /// WebSocket: how the socket ended while this stream's response was
    /// running ([`Linter::socket_closed`]).
    socket_closed: Option<String>,
}

impl<'s> Linter<'s> {
    /// A linter for one stream.
    pub fn new(settings: &'s Settings, ctx: Context) -> Self {
        let mut linter = Linter {
            out: Collector::new(settings),
            profile: settings.profile,
            ctx,
            answer: Answer::default(),
            head: Vec::new(),
            sse_lines: 0,
            comment_lines: 0,
            first_comment: None,
            data_lines: 0,
            no_space_lines: 0,
            first_no_space: None,
            multiline_events: 0,
            multiline_most: 0,
            first_multiline: None,
            first_cr: None,
            first_crlf: None,
            first_lf: None,
            invalid_utf8_reported: 0,
            first_invalid_utf8: None,
            last_line: (Vec::new(), 0, 0),
            last_line_dropped_chars: 0,
            last_message_end: None,
            events: 0,
            typed_chunks: 0,
            error_fields: 0,
            block_named: false,
            block_id: None,
            tail_loc: None,
            tail_unterminated: None,
            invalid_payloads: 0,
            socket_closed: None,
            oversized: 0,
            separator_errors: 0,
            pending_fields: Vec::new(),
            unsettled_fields: Vec::new(),
            event_kind: Vec::new(),
            first_event_kind: None,
            in_event: false,
            summaries: false,
            event_summary: String::new(),
            fields_seen: None,
            prev_time: None,
            content_times: Vec::new(),
            first_content_loc: None,
            dialect: None,
            checker: None,
            dialect_ending: None,
            unknown_events: 0,
            first_unknown: None,
            empty_body: false,
            unframed: false,
            forced_hint: None,
            hints: Hints::default(),
            transport: crate::transport::Transport::Sse,
        };
        // `--dialect` settles it before any event (the request path waits
        // for the body: see `checks::dialect`).
        linter.settle_from_context();
        linter
    }

    /// Keeps the start of the body (call with every byte slice fed to the
    /// parser).
    pub fn observe_bytes(&mut self, bytes: &[u8]) {
        if self.head.len() < HEAD_BYTES {
            let n = (HEAD_BYTES - self.head.len()).min(bytes.len());
            self.head.extend_from_slice(&bytes[..n]);
        }
    }

    /// The answer: as the stream's checker has assembled it so far (Chat's
    /// grows event by event; the other dialects' comes whole at the end),
    /// or as it finished.
    pub fn answer(&self) -> &Answer {
        match (&self.dialect_ending, &self.checker) {
            (None, Some(c)) => c.answer().unwrap_or(&self.answer),
            _ => &self.answer,
        }
    }

    /// The location of `start..end` within `line` of `block`.
    fn loc(&self, block: &Block<'_>, line: &Line, start: usize, end: usize) -> Location {
        let mut l = Location::in_line(block.bytes(line), line.offset, line.line, start, end);
        self.to_file(&mut l);
        l
    }

    /// Shifts a body-relative location to the file where the body is a
    /// contiguous part of it.
    fn to_file(&self, l: &mut Location) {
        if let Some((off, line)) = self.ctx.origin.file_start {
            l.byte_offset += off;
            l.line += line - 1;
        }
    }

    /// Where the stream stops: the last byte of its last line.
    fn last_location(&self) -> Location {
        // A binary stream ends at its last frame's last byte (no line).
        if let Some(end) = self.last_message_end.filter(|_| self.transport.is_binary()) {
            let mut l = Location {
                byte_offset: end.saturating_sub(1),
                byte_len: 1,
                line: 1,
                column: end,
                source: None,
            };
            self.to_file(&mut l);
            return l;
        }
        let (bytes, offset, line) = &self.last_line;
        if bytes.is_empty() && *line == 0 {
            return Location::default();
        }
        let n = bytes.len();
        let mut l = Location::in_line(bytes, *offset, *line, n.saturating_sub(1), n);
        l.column += self.last_line_dropped_chars;
        self.to_file(&mut l);
        l
    }

    /// The whole value of the first `data` line of `block` (or its first
    /// line).
    fn event_loc(&self, block: &Block<'_>) -> Location {
        match block.data_lines().next().or(block.lines.first()) {
            Some(line) => {
                let s = block.value_start(line);
                self.loc(block, line, s, line.len)
            }
            None => self.last_location(),
        }
    }

    /// The bytes a JSON pointer names inside the block's data.
    fn pointer_loc(&self, block: &Block<'_>, data: &str, pointer: &str, key: bool) -> Location {
        let Some(js) = span::find(data, pointer) else {
            return self.event_loc(block);
        };
        let (start, end) = match (key, js.key, js.key_end) {
            (true, Some(k), Some(e)) => (k, e),
            _ => (js.start, js.end),
        };
        let (Some((l1, s)), Some((l2, e))) = (
            span::data_position(block, start),
            span::data_position(block, end),
        ) else {
            return self.event_loc(block);
        };
        let end = if std::ptr::eq(l1, l2) { e } else { l1.len };
        self.loc(block, l1, s, end)
    }

    /// Reports a finding, fingerprinted by rule, pointer (indices folded)
    /// and the current event's data (by `fingerprint_event`, once the event
    /// is done) or, outside an event, the message.
    fn report(&mut self, mut f: Finding) {
        // A binary body (AWS event-stream frames) has no lines: a finding
        // is at its byte, its line 1 and its column the byte's (as a
        // transport's fault is), never a column inside a frame's payload.
        if self.transport.is_binary() {
            f.location.line = 1;
            f.location.column = f.location.byte_offset + 1;
        }
        if !self.in_event {
            let ptr = f
                .pointer
                .as_deref()
                .map(crate::lint::profile::fold_indices)
                .unwrap_or_default();
            f.fingerprint =
                crate::lint::fnv1a(&[f.rule.as_bytes(), ptr.as_bytes(), f.message.as_bytes()]);
        }
        self.out.push(f);
    }

    /// Fingerprints the findings kept since the `first`-th by rule, pointer
    /// (indices folded) and the hash of the event's `data`.
    fn fingerprint_event(&mut self, first: usize, data: &str) {
        let kept = &mut self.out.diagnostics[first..];
        if kept.is_empty() {
            return;
        }
        let data_hash = crate::lint::fnv1a(&[data.as_bytes()]).to_le_bytes();
        for d in kept {
            let ptr = d
                .pointer
                .as_deref()
                .map(crate::lint::profile::fold_indices)
                .unwrap_or_default();
            let h = crate::lint::fnv1a(&[d.rule.as_bytes(), ptr.as_bytes(), &data_hash]);
            d.fingerprint = format!("{h:016x}");
        }
    }

    /// Notes what the current event does, once per kind.
    fn kind(&mut self, k: &'static str) {
        if !self.event_kind.contains(&k) {
            self.event_kind.push(k);
        }
    }

    /// Ends the stream: the whole-stream rules (transport, framing counts,
    /// ending, usage, tool-call arguments).
    pub fn finish(mut self, framing: &Framing, evidence: &[Truncation]) -> Report<'s> {
        if let Some(f) = self.tail_unterminated.take() {
            if !evidence.iter().any(|t| t.by_capture) {
                self.out.push(f);
            }
        }
        // A stream whose events named no dialect: the request path's.
        self.settle_from_path();
        // The SSE framing rules judge SSE lines: another transport's
        // stream has none.
        if self.transport == crate::transport::Transport::Sse {
            self.finish_framing(framing);
        }
        self.finish_stream(evidence);
        self.finish_timing();
        // A checker that did not finish (the HTTP status failed the
        // request, or the stream is of no known dialect): what it saw of
        // the provider counts, and its answer is what it assembled.
        if let Some(c) = self.checker.take() {
            self.hints.add(c.hints());
            self.typed_chunks += c.typed_chunks();
            if let Some(a) = c.answer() {
                self.answer = a.clone();
            }
        }
        let ending = self.dialect_ending.unwrap_or_else(|| self.answer.ending());
        let provider = self.guess_provider();
        // A stream never settled was judged as the default dialect, unless
        // it was of no known dialect at all (`unknown-format`).
        // An empty body names none (`empty-body`).
        let dialect = self.dialect.or((!self.empty_body
            && !self.unframed
            && (self.first_unknown.is_none() || self.answer.chunks_with_choices > 0))
            .then_some(crate::dialect::DEFAULT));
        Report {
            dialect,
            provider,
            out: self.out,
            answer: self.answer,
            ending,
            events: self.events,
            typed_chunks: self.typed_chunks,
            head: self.head,
        }
    }
}

impl Linter<'_> {
    /// `stall`: a long gap before this event; and the content times that
    /// `buffered` judges at the end.
    fn check_timing(&mut self, block: &Block<'_>, index: u64) {
        let t = self
            .ctx
            .timing
            .as_ref()
            .and_then(|tm| tm.time_of(block.end_offset, Some(index)));
        self.check_time(t, index, |l| l.event_loc(block));
    }

    /// [`Linter::check_timing`] of an event of any transport: `time` is
    /// when it arrived (ms), `at` where it is.
    fn check_time(&mut self, time: Option<f64>, index: u64, at: impl Fn(&Self) -> Location) {
        let Some(t) = time else {
            return;
        };
        if let Some((prev, prev_index)) = self.prev_time {
            let gap = t - prev;
            if gap > self.out.settings().stall_ms as f64 {
                let loc = at(self);
                self.report(
                    Finding::new(
                        crate::lint::rule::STALL,
                        format!(
                            "no event for {:.1} s between events {prev_index} and {index} (over --stall-ms {}): clients with a read timeout give up, and users see a frozen answer",
                            gap / 1000.0,
                            self.out.settings().stall_ms
                        ),
                        loc,
                    )
                    .event(Some(index)),
                );
            }
        }
        self.prev_time = Some((t, index));
        if self.event_kind.contains(&"content") {
            if self.first_content_loc.is_none() {
                self.first_content_loc = Some((at(self), Some(index)));
            }
            self.content_times.push(t);
        }
    }

    /// `buffered`: every content chunk arrived in one read, after a long
    /// wait — the sign of a proxy that holds the stream until it ends.
    pub(crate) fn finish_timing(&mut self) {
        let n = self.content_times.len();
        let Some(&first) = self.content_times.first() else {
            return;
        };
        let one_read = self.content_times.iter().all(|t| (*t - first).abs() < 0.5);
        if n >= 3 && one_read && first >= BUFFERED_WAIT_MS {
            let (loc, ev) = self.first_content_loc.clone().unwrap_or_default();
            self.report(
                Finding::new(
                    crate::lint::rule::BUFFERED,
                    format!(
                        "all {n} content chunks arrived in one read after {:.1} s: something (a proxy, a server flag, compression) buffered the stream, so users wait and then get the whole answer at once",
                        first / 1000.0
                    ),
                    loc,
                )
                .event(ev)
                .help("disable response buffering for text/event-stream (e.g. nginx `proxy_buffering off`, `X-Accel-Buffering: no`), and do not compress event streams"),
            );
        }
    }
}

/// The least wait (ms) before a single-read answer counts as `buffered`.
pub const BUFFERED_WAIT_MS: f64 = 1000.0;

/// What linting one stream produced.
#[derive(Debug)]
pub struct Report<'s> {
    /// The findings.
    pub out: Collector<'s>,
    /// The reconstructed answer.
    pub answer: Answer,
    /// How the stream ended.
    pub ending: crate::model::assembly::Ending,
    /// Dispatched events.
    pub events: u64,
    /// Chunks linted on the typed fast path.
    pub typed_chunks: u64,
    /// The first bytes of the body.
    pub head: Vec<u8>,
    /// The provider the stream looks like, if anything points at one.
    pub provider: Option<provider::ProviderGuess>,
    /// The dialect the stream was judged as; `None` when it is of no
    /// known dialect (`unknown-format`).
    pub dialect: Option<Dialect>,
}

/// Whether `rule` can judge a stream whose messages `transport` frames:
/// the SSE framing rules (the shared rules of group `framing`, but
/// `event-too-large`, which every transport's framer gives) and
/// `body-not-sse` judge SSE alone (there are no SSE lines otherwise), the
/// socket rules (group `socket`) a socket's responses alone; every other
/// rule any transport's streams.
pub fn judges(rule: &crate::lint::Rule, transport: crate::transport::Transport) -> bool {
    use crate::transport::Transport;
    if rule.group == "socket" {
        return transport.is_socket();
    }
    let sse_framing = rule.dialect.is_none()
        && (rule.group == "framing" && rule.name != crate::lint::rule::EVENT_TOO_LARGE.name()
            || rule.name == crate::lint::rule::BODY_NOT_SSE.name());
    !sse_framing || transport == Transport::Sse
}

impl Sink for Linter<'_> {
    fn block(&mut self, block: &Block<'_>) {
        if block.dropped > 0 {
            let loc = self.event_loc(block);
            let kept: usize = block.lines.iter().map(|l| l.len).sum();
            self.report(
                Finding::new(
                    crate::lint::rule::EVENT_TOO_LARGE,
                    format!(
                        "an event of {} bytes is larger than the limit of {} bytes (--max-event-bytes): it was not read, so whatever it held is missing from this report",
                        kept as u64 + block.dropped,
                        self.out.settings().max_event_bytes
                    ),
                    loc,
                )
                .help("raise --max-event-bytes if such events are expected"),
            );
            // An event too large to read may still name the dialect by
            // how its data starts, as the start of a cut event does
            // (`check_tail`), so the stream is judged in its own words.
            if self.dialect.is_none() && self.path_dialect().is_none() {
                if let Some(d) = data_start(block).and_then(crate::dialect::sniff_partial) {
                    self.settle(d);
                }
            }
            // Read and refused: the checker hears of it as of an event
            // that was not JSON, and so do its ending rules.
            self.oversized += 1;
            if let Some(c) = self.checker.as_mut() {
                c.rejected(None);
            }
        }
        self.check_block_framing(block);
        if let Some(last) = block.lines.last() {
            // Whole-stream findings (cut-off, missing-done) point at where
            // the stream stops: the end of its last line.
            let bytes = block.bytes(last);
            // Only the line's end is kept, cut on a character boundary; the
            // characters before it still count in the column.
            let mut cut = bytes.len().saturating_sub(crate::lint::MAX_SOURCE_LINE);
            while cut < bytes.len() && bytes[cut] & 0xC0 == 0x80 {
                cut += 1;
            }
            let keep = &bytes[cut..];
            self.last_line_dropped_chars = if cut == 0 {
                0
            } else {
                String::from_utf8_lossy(&bytes[..cut]).chars().count() as u64
            };
            self.last_line.0.clear();
            self.last_line.0.extend_from_slice(keep);
            self.last_line.1 = last.offset + (bytes.len() - keep.len()) as u64;
            self.last_line.2 = last.line;
        }
        let first = self.out.diagnostics.len();
        if let Some(d) = &block.dispatch {
            self.in_event = true;
            self.events += 1;
            let data = d.data;
            let index = d.index;
            let event_type = d.event_type;
            self.check_event(block, data, Some(index), event_type);
            self.check_timing(block, index);
            self.in_event = false;
            self.fingerprint_event(first, data);
        } else if !block.terminated {
            self.in_event = block.data.is_some();
            self.check_tail(block);
            self.in_event = false;
            if let Some(data) = block.data {
                self.fingerprint_event(first, data);
            }
        }
    }
}

/// The start (at most 256 bytes, whole characters) of the value of a
/// block's first `data` line: what an event too large to read began with.
fn data_start<'a>(block: &Block<'a>) -> Option<&'a str> {
    let line = block.lines.iter().find(|l| {
        block.name(l) == b"data" && matches!(l.kind, crate::sse::LineKind::Field { .. })
    })?;
    let b = block.bytes(line);
    let v = b.get(5..)?;
    let v = v.strip_prefix(b" ").unwrap_or(v);
    let v = &v[..v.len().min(256)];
    match std::str::from_utf8(v) {
        Ok(s) => Some(s),
        Err(e) => std::str::from_utf8(&v[..e.valid_up_to()]).ok(),
    }
}
