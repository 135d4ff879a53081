//! The linter's side of the dialects (see [`crate::dialect`]): settling a
//! stream's dialect, handing each event to that dialect's
//! [`Checker`](crate::dialect::Checker), and the `unknown-format` finding
//! for a stream of no dialect sselint reads.
//!
//! Until something names the dialect, events go to a provisional checker
//! of the default dialect ([`dialect::DEFAULT`]), as sselint read every
//! stream before it knew others. When a later event names that dialect,
//! the provisional checker goes on; when it names another, a checker of
//! that one takes over, and the provisional one is kept only for what it
//! saw of the provider.
//!
//! `--dialect` settles it before any event. The request path (HAR, curl
//! `-v`, `record`) is weaker than the body: the first event that names a
//! dialect settles it, and when that is another dialect than the path's,
//! the body wins and `path-dialect-mismatch` says so (a client that called
//! the path parses the stream as the path's API). The path decides only
//! where the body names none: a first event of no known format, or no
//! event at all.

use super::Linter;
use crate::dialect::{self, Dialect, Event, Out, Sniffed, StreamEnd, Transport};
use crate::lint::{Finding, Location};
use crate::model::shorten;
use crate::model::{self, span, Payload};
use crate::sse::Block;
use crate::transport::Message;
use serde_json::Value;

/// What the linter does with one event, once its dialect is looked at.
pub(super) enum Route {
    /// The stream's checker (the settled dialect's, or the provisional
    /// one) takes it.
    Dialect,
    /// No dialect is settled and the event belongs to none: skipped.
    Unknown,
}

impl Linter<'_> {
    /// Settles the dialect where the command line names it (before the
    /// first event).
    pub(super) fn settle_from_context(&mut self) {
        if self.dialect.is_some() {
            return;
        }
        if let Some(d) = self.out.settings().dialect {
            self.settle(d);
        }
    }

    /// The dialect the request path names, when the capture has one.
    pub(super) fn path_dialect(&self) -> Option<Dialect> {
        self.ctx.url.as_deref().and_then(dialect::sniff_url)
    }

    /// At the end of a stream whose events named no dialect: the request
    /// path's, where it names one.
    pub(super) fn settle_from_path(&mut self) {
        if self.dialect.is_none() {
            if let Some(d) = self.path_dialect() {
                self.settle(d);
            }
        }
    }

    pub(super) fn settle(&mut self, d: Dialect) {
        // A provisional checker (the default dialect's) read the events so
        // far: it goes on when the stream is of its dialect.
        let provisional = self.dialect.is_none() && self.checker.is_some();
        self.dialect = Some(d);
        if provisional && d == dialect::DEFAULT {
            return;
        }
        if let Some(c) = self.checker.take() {
            self.hints.add(c.hints());
            self.typed_chunks += c.typed_chunks();
        }
        self.start_checker(d);
    }

    /// Makes the checker of `d`, set up from the settings and the request.
    fn start_checker(&mut self, d: Dialect) {
        let Some(mut c) = d.checker() else {
            return;
        };
        c.setup(self.out.settings(), self.ctx.request.as_ref());
        if let Some(url) = self.ctx.url.as_deref() {
            c.request_url(url);
        }
        // Events of no recognised format came first: the checker hears of
        // them (a vendor event ahead of a Responses stream's first event).
        if let Some((loc, index, _)) = &self.first_unknown {
            c.skipped(self.unknown_events, loc.clone(), *index);
        }
        // Events too large to read came before any checker (the first
        // event, say): it hears of them as of those that come later.
        for _ in 0..self.oversized {
            c.rejected(None);
        }
        self.checker = Some(c);
    }

    /// Looks at one event's name and data, settles the dialect when they
    /// name one, and says where the event goes. A stream not yet settled
    /// is read by a provisional checker of the default dialect (Chat, as
    /// sselint always read it), except an event that has a `type` or a
    /// shape of another known format.
    pub(super) fn route(
        &mut self,
        block: &Block<'_>,
        data: &str,
        index: Option<u64>,
        name: &str,
    ) -> Route {
        self.settle_from_context();
        self.check_forced(data, name);
        if self.dialect.is_none() {
            let json = model::json_object(data);
            let path = self.path_dialect();
            match dialect::sniff_event(name, json.as_ref()) {
                Sniffed::Dialect(d) => {
                    if let Some(p) = path.filter(|p| *p != d) {
                        self.report_path_mismatch(block, index, name, json.as_ref(), p, d);
                    }
                    self.settle(d);
                }
                // The body names no dialect here: the path decides.
                Sniffed::Neutral | Sniffed::Other(_) if path.is_some() => {
                    if let Some(p) = path {
                        self.settle(p);
                    }
                }
                Sniffed::Neutral => {
                    let typed = json
                        .as_ref()
                        .and_then(|v| v.get("type"))
                        .and_then(Value::as_str)
                        .is_some_and(|t| t != "error");
                    if typed {
                        self.note_unknown(block, index, format!(
                            "events whose data has a `type` ({}) but is neither a chat.completion.chunk, a Responses event nor an Anthropic Messages event",
                            shorten(json.as_ref().and_then(|v| v["type"].as_str()).unwrap_or(""), 40)
                        ));
                        return Route::Unknown;
                    }
                }
                Sniffed::Other(what) => {
                    self.note_unknown(block, index, what);
                    return Route::Unknown;
                }
            }
        }
        if self.checker.is_none() {
            self.start_checker(dialect::DEFAULT);
        }
        Route::Dialect
    }

    /// With `--dialect` given: whether the first event with JSON data is
    /// another dialect's; if so, a note names the dialect it looks like
    /// and the option to try (`forced_hint`).
    fn check_forced(&mut self, data: &str, name: &str) {
        let Some(forced) = self.out.settings().dialect else {
            return;
        };
        if self.forced_hint.is_some() {
            return;
        }
        let Some(json) = model::json_object(data) else {
            return;
        };
        let hint = match dialect::sniff_event(name, Some(&json)) {
            Sniffed::Dialect(d) if d != forced => {
                // The field that shows it, in that dialect's terms.
                let by = d.api().shown_by(&json);
                let shown = by.as_deref().unwrap_or(name);
                format!(
                    "the events look like {} (`{}`); try --dialect {}",
                    d.title(),
                    shorten(shown, 40),
                    d.name()
                )
            }
            Sniffed::Dialect(_) => String::new(),
            // An error or a keep-alive decides nothing: the next event may.
            Sniffed::Neutral | Sniffed::Other(_) => return,
        };
        self.forced_hint = Some(hint);
    }

    /// `path-dialect-mismatch`: the request path names `path`, the body's
    /// first event is of `body`.
    fn report_path_mismatch(
        &mut self,
        block: &Block<'_>,
        index: Option<u64>,
        name: &str,
        json: Option<&Value>,
        path: Dialect,
        body: Dialect,
    ) {
        let first = if name != "message" {
            format!("`{}`", shorten(name, 40))
        } else if let Some(t) = json.and_then(|v| v.get("type")).and_then(Value::as_str) {
            format!("of type `{}`", shorten(t, 40))
        } else {
            // What shows it to be the body's dialect: its `object` value
            // (`a `chat.completion.chunk``), else the key (a Gemini chunk's
            // `candidates`).
            let shown = json.and_then(|v| body.api().shown_by(v));
            let object = json.and_then(|v| v.get("object")).and_then(Value::as_str);
            match shown {
                Some(s) if object == Some(s.as_str()) => format!("a `{}`", shorten(&s, 40)),
                Some(s) => format!("a {} with `{}`", body.words().event, shorten(&s, 40)),
                None => format!("a {}", body.words().event),
            }
        };
        let loc = self.event_loc(block);
        let f = self.path_mismatch(loc, &format!("its first event is {first}"), path, body);
        self.report(f.event(index));
    }

    /// `path-dialect-mismatch` on a transport other than SSE: the request
    /// path names `path`, and message `m`, the body's first, is read as
    /// `body`'s (its type shows it, or the path's dialect does not ride
    /// on the transport).
    pub(super) fn report_message_path_mismatch(
        &mut self,
        m: &Message<'_>,
        path: Dialect,
        body: Dialect,
    ) {
        let what = self.transport.message();
        let json = model::json_object(m.data);
        let shown = json.as_ref().and_then(|v| body.api().shown_by(v));
        let first = match (m.name, shown) {
            ("message", Some(s)) => format!("a {what} with `{}`", shorten(&s, 40)),
            ("message", None) => format!("a {what}"),
            (name, _) => format!("`{}`", crate::lint::printable(&shorten(name, 40))),
        };
        let loc = self.message_loc(m, 0, m.data.len());
        let f = self.path_mismatch(
            loc,
            &format!(
                "{} {what}s; its first {what} is {first}",
                self.transport.media_type(),
            ),
            path,
            body,
        );
        self.report(f.event(Some(m.index)));
    }

    /// The `path-dialect-mismatch` finding at `loc`: the request path
    /// names `path`, the body is `body`'s (`first`: what shows it).
    fn path_mismatch(&self, loc: Location, first: &str, path: Dialect, body: Dialect) -> Finding {
        // The path only: a query string may hold a key.
        let url = self.ctx.url.as_deref().unwrap_or("");
        let no_query = url.split(['?', '#']).next().unwrap_or(url);
        let shown = no_query
            .split_once("://")
            .and_then(|(_, rest)| rest.find('/').map(|i| &rest[i..]))
            .unwrap_or(no_query);
        Finding::new(
            crate::lint::rule::PATH_DIALECT_MISMATCH,
            format!(
                "the request went to `{}`, {} path, but the body is {} stream ({first}): it is read as {}; a client of this path expects {} events",
                crate::lint::printable(&shorten(shown, 80)),
                path.a_title(),
                body.a_title(),
                body.title(),
                path.title()
            ),
            loc,
        )
        .help(format!(
            "if the path is right, the server or a gateway answered in another API's format; if the body is, call its API's endpoint (`…{}{}`); `--dialect {}` reads the stream as the one you name",
            body.base(),
            body.endpoint(),
            crate::vocab::names("|")
        ))
    }

    fn note_unknown(&mut self, block: &Block<'_>, index: Option<u64>, what: String) {
        self.unknown_events += 1;
        if self.first_unknown.is_none() {
            self.first_unknown = Some((self.event_loc(block), index, what));
        }
        // The provisional checker read events before this one: it hears of
        // it too.
        if let (Some(c), Some((loc, index, _))) = (self.checker.as_mut(), &self.first_unknown) {
            c.skipped(self.unknown_events, loc.clone(), *index);
        }
        self.kind("unknown");
    }

    /// One event, to the stream's checker: its typed fast path first, then
    /// the shared payload rule (`invalid-json`) and the checker's general
    /// path; or, for a checker that reads the data itself, the data
    /// unparsed. `separator`: the event's data is several JSON texts run
    /// together (`missing-separator`).
    pub(super) fn dialect_event(
        &mut self,
        block: &Block<'_>,
        data: &str,
        index: Option<u64>,
        name: &str,
        separator: bool,
    ) {
        let Some(mut checker) = self.checker.take() else {
            return;
        };
        // Read off the block's lines by the framing rules, which walk them.
        let named = self.block_named;
        let id = self
            .block_id
            .and_then(|i| block.lines.get(i))
            .and_then(|l| std::str::from_utf8(block.value(l)).ok());
        let mut ev = Event {
            index,
            name,
            named,
            id,
            data,
            json: None,
            done: false,
        };
        let mut out = Sink {
            linter: self,
            block: Some(block),
            message: None,
            data,
            index,
            separator,
            transport: None,
        };
        // The typed fast path first: an ordinary delta never becomes a
        // JSON value.
        let taken =
            out.linter.out.settings().typed && index.is_some() && checker.fast(&ev, &mut out);
        if !taken && checker.reads_data() {
            checker.event(&ev, &mut out);
        } else if !taken {
            let payload = model::decode(data);
            match &payload {
                Payload::Json(v) | Payload::LoneSurrogates(v) => ev.json = Some(v),
                Payload::Invalid(invalid) => {
                    self.kind("invalid");
                    self.invalid_payloads += 1;
                    self.report_invalid_json(block, data, index, invalid, false);
                    checker.rejected(index);
                    self.checker = Some(checker);
                    return;
                }
                Payload::Done | Payload::MalformedDone => {}
            }
            ev.done = matches!(payload, Payload::Done);
            checker.event(
                &ev,
                &mut Sink {
                    linter: self,
                    block: Some(block),
                    message: None,
                    data,
                    index,
                    separator,
                    transport: None,
                },
            );
        }
        if self.summaries {
            self.event_summary = checker.summary();
        }
        self.checker = Some(checker);
    }

    /// The end of the stream: the checker's whole-stream rules, its answer
    /// and ending (a stream no event reached is read as the default
    /// dialect's). `breaks` says why the transfer broke, when the capture
    /// says; `body` is the body as one JSON value, when it is one.
    pub(super) fn finish_dialect(&mut self, damaged: bool, breaks: &[&str], body: Option<&Value>) {
        if self.checker.is_none() {
            self.start_checker(self.dialect.unwrap_or(dialect::DEFAULT));
        }
        let Some(mut checker) = self.checker.take() else {
            return;
        };
        let joined = (!breaks.is_empty()).then(|| breaks.join("; "));
        let end = StreamEnd {
            events: self.events,
            damaged,
            invalid_payloads: self.invalid_payloads,
            oversized: self.oversized,
            not_sse: self.transport == crate::transport::Transport::Sse
                && self.sse_lines == 0
                && !self.head.iter().all(u8::is_ascii_whitespace),
            separator_errors: self.separator_errors,
            sse_lines: self.sse_lines,
            error_fields: self.error_fields,
            transfer: joined.as_deref(),
        };
        let transport = Transport {
            status: self.ctx.http.as_ref().map(|h| h.status),
            body: body.cloned(),
            body_start: self.body_start(),
            breaks: breaks.iter().map(|b| b.to_string()).collect(),
            tail: self.tail_loc.clone(),
        };
        let (answer, ending) = checker.finish(
            end,
            &mut Sink {
                linter: self,
                block: None,
                message: None,
                data: "",
                index: None,
                separator: false,
                transport: Some(transport),
            },
        );
        self.hints.add(checker.hints());
        self.typed_chunks += checker.typed_chunks();
        self.answer = answer;
        self.dialect_ending = Some(ending);
    }

    /// `unknown-format`: no event belonged to a dialect sselint reads.
    /// Returns whether it was reported (the provisional checker's ending
    /// rules then say nothing more).
    pub(super) fn finish_unknown(&mut self) -> bool {
        if self.dialect.is_some() || self.answer().chunks_with_choices > 0 {
            return false;
        }
        let Some((loc, index, what)) = self.first_unknown.clone() else {
            return false;
        };
        let n = self.unknown_events;
        self.report(
            Finding::new(
                crate::lint::rule::UNKNOWN_FORMAT,
                format!(
                    "this stream is none of the dialects sselint reads ({}): it looks like {what} ({n} such event(s)); only its framing was checked",
                    crate::vocab::titles()
                ),
                loc,
            )
            .event(index)
            .help(format!(
                "if it is one of them, say which with `--dialect {}`",
                crate::vocab::names("|")
            )),
        );
        true
    }
}

/// The [`Out`] a checker reports through: the linter, and the event at
/// hand (none at the end of the stream, where the transfer's facts are).
pub(super) struct Sink<'a, 'b, 's> {
    pub(super) linter: &'a mut Linter<'s>,
    pub(super) block: Option<&'a Block<'b>>,
    /// The message at hand, on a transport other than SSE (then `block`
    /// is `None`).
    pub(super) message: Option<&'a Message<'b>>,
    pub(super) data: &'a str,
    pub(super) index: Option<u64>,
    /// The event's data is several JSON texts run together.
    pub(super) separator: bool,
    pub(super) transport: Option<Transport>,
}

impl Out for Sink<'_, '_, '_> {
    fn report(&mut self, f: Finding) {
        self.linter.report(f);
    }

    fn at_event(&self) -> Location {
        if let Some(m) = self.message {
            if let Some(f) = m.fault {
                return self.linter.fault_loc(f);
            }
            return self.linter.message_loc(m, 0, m.data.len());
        }
        match self.block {
            Some(b) => self.linter.event_loc(b),
            None => self.linter.last_location(),
        }
    }

    fn at_pointer(&self, pointer: &str, key: bool) -> Location {
        if let Some(m) = self.message {
            return self.linter.message_pointer_loc(m, pointer, key);
        }
        match self.block {
            Some(b) => self.linter.pointer_loc(b, self.data, pointer, key),
            None => self.linter.last_location(),
        }
    }

    fn at_name(&self) -> Location {
        if let Some(m) = self.message {
            return self.linter.message_loc(m, 0, m.data.len());
        }
        match self.block {
            Some(b) => b
                .lines
                .iter()
                .find(|l| b.name(l) == b"event")
                .map(|l| self.linter.loc(b, l, 0, l.len))
                .unwrap_or_else(|| self.linter.event_loc(b)),
            None => self.linter.last_location(),
        }
    }

    fn at_end(&self) -> Location {
        self.linter.last_location()
    }

    fn kind(&mut self, kind: &'static str) {
        self.linter.kind(kind);
    }

    fn muted(&mut self, rule: &'static str) -> bool {
        // Counts the finding when it is off or past the limit.
        self.linter.out.count_only(rule, None)
    }

    fn allowed(&self, pointer: &str) -> bool {
        let folded = crate::lint::profile::fold_indices(pointer);
        self.linter
            .out
            .settings()
            .allow_fields
            .iter()
            .any(|a| crate::lint::profile::pointer_covers(a, &folded))
    }

    fn profile(&self) -> &'static str {
        &self.linter.profile.name
    }

    fn summaries(&self) -> bool {
        self.linter.summaries
    }

    fn fields_seen(&mut self) -> Option<&mut Vec<String>> {
        self.linter.fields_seen.as_mut()
    }

    fn at_data(&self, start: usize, len: usize) -> Location {
        if let Some(m) = self.message {
            return self.linter.message_loc(m, start, start + len);
        }
        let Some(b) = self.block else {
            return self.linter.last_location();
        };
        match span::data_position(b, start) {
            Some((line, s)) => self.linter.loc(b, line, s, (s + len).min(line.len)),
            None => self.linter.event_loc(b),
        }
    }

    fn invalid_json(&mut self, invalid: &model::InvalidJson) {
        self.linter.kind("invalid");
        self.linter.invalid_payloads += 1;
        if let Some(m) = self.message {
            self.linter.report_invalid_message(m, invalid);
        }
        if let Some(b) = self.block {
            self.linter
                .report_invalid_json(b, self.data, self.index, invalid, self.separator);
        }
    }

    fn transport(&self) -> Transport {
        self.transport.clone().unwrap_or_default()
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.message?
            .headers
            .iter()
            .find(|h| h.name == name)
            .map(|h| h.value.as_str())
    }
}
