//! The linter's side of the dialects (see [`crate::dialect`]): settling a
//! stream's dialect, handing each event of a Responses or Messages stream
//! to that dialect's [`Checker`](crate::dialect::Checker), and the
//! `unknown-format` finding for a stream of no dialect sselint reads.
//!
//! `--dialect` settles it before any event. The request path (HAR, curl
//! `-v`, `record`) is weaker than the body: the first event that names a
//! dialect settles it, and when that is another dialect than the path's,
//! the body wins and `path-dialect-mismatch` says so (a client that called
//! the path parses the stream as the path's API). The path decides only
//! where the body names none: a first event of no known format, or no
//! event at all.

use super::framing::shorten;
use super::Linter;
use crate::dialect::{self, Dialect, Event, Out, Sniffed, StreamEnd};
use crate::lint::{Finding, Location};
use crate::model::{self, Payload};
use crate::sse::Block;
use serde_json::Value;

/// What the linter does with one event, once its dialect is looked at.
pub(super) enum Route {
    /// Chat's checks (the linter's own).
    Chat,
    /// The settled dialect's checker took it.
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
    fn path_dialect(&self) -> Option<Dialect> {
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

    fn settle(&mut self, d: Dialect) {
        self.dialect = Some(d);
        self.checker = d.checker();
        // Events of no recognised format came first: the checker hears of
        // them (a vendor event ahead of a Responses stream's first event).
        if let (Some(c), Some((loc, index, _))) = (self.checker.as_mut(), &self.first_unknown) {
            c.skipped(self.unknown_events, loc.clone(), *index);
        }
    }

    /// Whether the stream is (so far) read as Chat.
    pub(crate) fn is_chat(&self) -> bool {
        matches!(self.dialect, None | Some(Dialect::Chat))
    }

    /// Looks at one event's name and data, settles the dialect when they
    /// name one, and says where the event goes. A stream not yet settled
    /// is read as Chat (as sselint always read it), except an event that
    /// has a `type` or a shape of another known format.
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
            let json = match data.trim_start().as_bytes().first() {
                Some(b'{') => serde_json::from_str::<Value>(data).ok(),
                _ => None,
            };
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
        if self.is_chat() {
            Route::Chat
        } else {
            Route::Dialect
        }
    }

    /// With `--dialect` given: whether the first event with JSON data is
    /// another dialect's; if so, a note names the dialect it looks like
    /// and the option to try (`forced_hint`).
    fn check_forced(&mut self, data: &str, name: &str) {
        let Some(forced) = self.out.settings().dialect else {
            return;
        };
        if self.forced_hint.is_some() || !data.trim_start().starts_with('{') {
            return;
        }
        let Ok(json) = serde_json::from_str::<Value>(data) else {
            return;
        };
        let hint = match dialect::sniff_event(name, Some(&json)) {
            Sniffed::Dialect(d) if d != forced => {
                let shown = ["type", "object"]
                    .iter()
                    .find_map(|k| json.get(*k).and_then(Value::as_str))
                    .unwrap_or(name);
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
        // The path only: a query string may hold a key.
        let url = self.ctx.url.as_deref().unwrap_or("");
        let no_query = url.split(['?', '#']).next().unwrap_or(url);
        let shown = no_query
            .split_once("://")
            .and_then(|(_, rest)| rest.find('/').map(|i| &rest[i..]))
            .unwrap_or(no_query);
        let first = if name != "message" {
            format!("`{}`", shorten(name, 40))
        } else if let Some(t) = json.and_then(|v| v.get("type")).and_then(Value::as_str) {
            format!("of type `{}`", shorten(t, 40))
        } else {
            "a `chat.completion.chunk`".to_string()
        };
        let loc = self.event_loc(block);
        self.report(
            Finding::new(
                "path-dialect-mismatch",
                format!(
                    "the request went to `{}`, an {} path, but the body is an {} stream (its first event is {first}): it is read as {}; a client that called this path parses the stream as {} and fails on it",
                    crate::lint::printable(&shorten(shown, 80)),
                    path.title(),
                    body.title(),
                    body.title(),
                    path.title()
                ),
                loc,
            )
            .event(index)
            .help(format!(
                "if the path is right, the server or a gateway answered in another API's format; if the body is, call its API's endpoint (`…/v1{}`); `--dialect chat|responses|messages` reads the stream as the one you name",
                body.endpoint()
            )),
        );
    }

    fn note_unknown(&mut self, block: &Block<'_>, index: Option<u64>, what: String) {
        self.unknown_events += 1;
        if self.first_unknown.is_none() {
            self.first_unknown = Some((self.event_loc(block), index, what));
        }
        self.kind("unknown");
    }

    /// One event of a Responses or Messages stream: the shared payload
    /// rule (`invalid-json`), then the dialect's checker.
    pub(super) fn dialect_event(
        &mut self,
        block: &Block<'_>,
        data: &str,
        index: Option<u64>,
        name: &str,
    ) {
        let named = block.lines.iter().any(|l| block.name(l) == b"event");
        let id = block
            .lines
            .iter()
            .rev()
            .find(|l| block.name(l) == b"id")
            .and_then(|l| std::str::from_utf8(block.value(l)).ok());
        // The typed fast path first: an ordinary delta never becomes a
        // JSON value.
        if self.out.settings().typed && index.is_some() {
            if let Some(mut checker) = self.checker.take() {
                let ev = Event {
                    index,
                    name,
                    named,
                    id,
                    data,
                    json: None,
                    done: false,
                };
                let taken = checker.fast(
                    &ev,
                    &mut Sink {
                        linter: self,
                        block: Some(block),
                        data,
                    },
                );
                if taken && self.summaries {
                    self.event_summary = checker.summary();
                }
                self.checker = Some(checker);
                if taken {
                    return;
                }
            }
        }
        let payload = model::decode(data);
        let json = match &payload {
            Payload::Json(v) | Payload::LoneSurrogates(v) => Some(v),
            Payload::Invalid(invalid) => {
                self.kind("invalid");
                self.invalid_payloads += 1;
                self.report_invalid_json(block, data, index, invalid, false);
                if let Some(c) = self.checker.as_mut() {
                    c.rejected(index);
                }
                return;
            }
            Payload::Done | Payload::MalformedDone => None,
        };
        let ev = Event {
            index,
            name,
            named,
            id,
            data,
            json,
            done: matches!(payload, Payload::Done),
        };
        let Some(mut checker) = self.checker.take() else {
            return;
        };
        checker.event(
            &ev,
            &mut Sink {
                linter: self,
                block: Some(block),
                data,
            },
        );
        if self.summaries {
            self.event_summary = checker.summary();
        }
        self.checker = Some(checker);
    }

    /// The end of a Responses or Messages stream: the checker's
    /// whole-stream rules, its answer and ending; `transfer` says how the
    /// transfer broke, where the capture says so. Returns false for Chat.
    pub(super) fn finish_dialect(&mut self, damaged: bool, transfer: Option<&str>) -> bool {
        let Some(mut checker) = self.checker.take() else {
            return false;
        };
        let end = StreamEnd {
            events: self.events,
            damaged,
            invalid_payloads: self.invalid_payloads,
            not_sse: self.sse_lines == 0 && !self.head.iter().all(u8::is_ascii_whitespace),
            transfer,
        };
        let (answer, ending) = checker.finish(
            end,
            &mut Sink {
                linter: self,
                block: None,
                data: "",
            },
        );
        self.answer = answer;
        self.dialect_ending = Some(ending);
        true
    }

    /// `unknown-format`: no event belonged to a dialect sselint reads.
    /// Returns whether it was reported (the Chat ending rules then say
    /// nothing more).
    pub(super) fn finish_unknown(&mut self) -> bool {
        if self.dialect.is_some() || self.answer.chunks_with_choices > 0 {
            return false;
        }
        let Some((loc, index, what)) = self.first_unknown.clone() else {
            return false;
        };
        let n = self.unknown_events;
        self.report(
            Finding::new(
                "unknown-format",
                format!(
                    "this stream is none of the dialects sselint reads (Chat Completions, Responses, Anthropic Messages): it looks like {what} ({n} such event(s)); only its framing was checked"
                ),
                loc,
            )
            .event(index)
            .help("if it is one of the three, say which with `--dialect chat|responses|messages`"),
        );
        true
    }
}

/// The [`Out`] a checker reports through: the linter, and the event at
/// hand (none at the end of the stream).
struct Sink<'a, 'b, 's> {
    linter: &'a mut Linter<'s>,
    block: Option<&'a Block<'b>>,
    data: &'a str,
}

impl Out for Sink<'_, '_, '_> {
    fn report(&mut self, f: Finding) {
        self.linter.report(f);
    }

    fn at_event(&self) -> Location {
        match self.block {
            Some(b) => self.linter.event_loc(b),
            None => self.linter.last_location(),
        }
    }

    fn at_pointer(&self, pointer: &str, key: bool) -> Location {
        match self.block {
            Some(b) => self.linter.pointer_loc(b, self.data, pointer, key),
            None => self.linter.last_location(),
        }
    }

    fn at_name(&self) -> Location {
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
}
