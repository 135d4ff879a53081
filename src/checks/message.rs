//! The linter's side of a transport other than SSE (see
//! [`crate::transport`]): each [`Message`] a framer hands over goes to the
//! stream's dialect's checker as an [`Event`], located by the message's
//! span; the SSE framing rules do not run, since there are no SSE lines.
//!
//! An SSE stream does not come here: its blocks go through
//! [`crate::sse::Sink`] (`checks/mod.rs`), where the SSE framing rules
//! read their lines.

use super::dialect::Sink as Out;
use super::Linter;
use crate::dialect::Event;
use crate::lint::{Finding, Location};
use crate::model::{self, span, Payload};
use crate::transport::{Message, Transport};

impl<'s> Linter<'s> {
    /// Says which transport the stream's messages come by, before the
    /// first. The dialect waits for the first message
    /// ([`Linter::read_message`]), which may show another dialect than
    /// the path's; a body with no message names none (`empty-body`, as an
    /// empty event stream), unless `--dialect` or the path does.
    pub fn set_transport(&mut self, t: Transport) {
        self.transport = t;
    }

    /// Says that the body's bytes are binary and that no transport frames
    /// them ([`crate::transport::settle`]): nothing is read as a message,
    /// and at the end `body-not-sse` says what the bytes are not, the one
    /// finding of the stream.
    pub fn set_unframed(&mut self) {
        self.unframed = true;
    }

    /// The transport the stream's messages come by.
    pub fn transport(&self) -> Transport {
        self.transport
    }

    /// One message of a transport other than SSE.
    pub fn read_message(&mut self, m: &Message<'_>) {
        self.note_last(m);
        let first = self.out.diagnostics.len();
        self.in_event = true;
        self.events += 1;
        self.event_kind.clear();
        self.event_summary.clear();
        if let Some(f) = self.fields_seen.as_mut() {
            f.clear();
        }
        if !self.route_message(m) {
            self.kind("unknown");
        } else if let Some(f) = m.fault {
            self.fault_event(m, f);
        } else if m.oversized {
            self.report_oversized_message(m);
        } else {
            self.message_event(m);
        }
        let time = m.time_ms.or_else(|| {
            self.ctx
                .timing
                .as_ref()
                .and_then(|t| t.time_of(m.end(), Some(m.index)))
        });
        self.check_time(time, m.index, |l| l.message_loc(m, 0, m.data.len()));
        if self.first_event_kind.is_none() {
            self.first_event_kind = Some(self.event_kind.clone());
        }
        self.in_event = false;
        self.fingerprint_event(first, m.data);
    }

    /// Settles the stream's dialect at its first message: `--dialect`'s;
    /// else the one its type shows (a frame's `:event-type`:
    /// ConverseStream's `messageStart`, Invoke's `chunk`), the request
    /// path's where that dialect rides on this transport, or the first
    /// dialect riding on the transport. When the path names another
    /// dialect than the one settled, `path-dialect-mismatch` says so at
    /// this message.
    /// Returns false when none reads it (no dialect rides on the
    /// transport yet): the message is then of no known dialect, and the
    /// stream ends with `unknown-format`.
    fn route_message(&mut self, m: &Message<'_>) -> bool {
        if self.checker.is_some() {
            return true;
        }
        let path = self.path_dialect();
        let transport = self.transport;
        let d = crate::dialect::of_message(transport, m.name)
            .or(path.filter(|p| p.api().transport() == transport))
            .or(crate::dialect::riding_on(transport).first().copied());
        if let Some(d) = self.dialect {
            self.settle(d);
            return true;
        }
        match d {
            Some(d) => {
                if let Some(p) = path.filter(|p| *p != d) {
                    self.report_message_path_mismatch(m, p, d);
                }
                self.settle(d);
                true
            }
            None => {
                self.unknown_events += 1;
                if self.first_unknown.is_none() {
                    let what = format!(
                        "{}s of {} (`{}`), which no dialect of sselint reads yet",
                        self.transport.message(),
                        self.transport.media_type(),
                        crate::lint::printable(&crate::model::shorten(m.name, 40))
                    );
                    let loc = self.message_loc(m, 0, m.data.len());
                    self.first_unknown = Some((loc, Some(m.index), what));
                }
                false
            }
        }
    }

    /// A message its transport could not read whole: its checker says
    /// what that costs ([`crate::dialect::Checker::fault`]), at the bytes
    /// at fault.
    fn fault_event(&mut self, m: &Message<'_>, f: &crate::transport::Fault) {
        self.kind("invalid");
        self.invalid_payloads += 1;
        let Some(mut checker) = self.checker.take() else {
            return;
        };
        checker.fault(Some(m.index), &f.what, &mut self.out_for(m));
        checker.rejected(Some(m.index));
        self.checker = Some(checker);
    }

    /// The bytes a transport's fault names (a CRC, the last byte of a cut
    /// frame): binary, so its column is its offset and no line is shown.
    pub(super) fn fault_loc(&self, f: &crate::transport::Fault) -> Location {
        let mut l = Location {
            byte_offset: f.at,
            byte_len: f.len.max(1),
            line: 1,
            column: f.at + 1,
            source: None,
        };
        self.to_file(&mut l);
        l
    }

    /// Keeps the message as the last line seen, where whole-stream
    /// findings point.
    fn note_last(&mut self, m: &Message<'_>) {
        let bytes = m.data.as_bytes();
        let cut = m
            .data
            .ceil_char_boundary(bytes.len().saturating_sub(crate::lint::MAX_SOURCE_LINE));
        self.last_line.0.clear();
        self.last_line.0.extend_from_slice(&bytes[cut..]);
        self.last_line.1 = m.data_offset + cut as u64;
        self.last_line.2 = m.line;
        self.last_line_dropped_chars = m.data[..cut].chars().count() as u64;
        self.last_message_end = Some(m.offset + m.len);
    }

    /// The message's data to its stream's checker: parsed here unless the
    /// checker reads the data itself
    /// ([`crate::dialect::Checker::reads_data`]).
    fn message_event(&mut self, m: &Message<'_>) {
        let Some(mut checker) = self.checker.take() else {
            return;
        };
        let mut ev = Event {
            index: Some(m.index),
            name: m.name,
            named: false,
            id: None,
            data: m.data,
            json: None,
            done: false,
        };
        // A frame that is no event (an exception) first; then the typed
        // fast path: an ordinary line or frame never becomes a JSON value
        // (not on a socket, whose responses' checkers read each message
        // whole).
        let typed = self.out.settings().typed && !self.transport.is_socket();
        let taken = checker.takes_unparsed(&ev, &mut self.out_for(m))
            || (typed && checker.fast(&ev, &mut self.out_for(m)));
        if !taken && checker.reads_data() {
            checker.event(&ev, &mut self.out_for(m));
        } else if !taken {
            let payload = model::decode(m.data);
            match &payload {
                Payload::Json(v) | Payload::LoneSurrogates(v) => ev.json = Some(v),
                Payload::Invalid(invalid) => {
                    self.kind("invalid");
                    self.invalid_payloads += 1;
                    self.report_invalid_message(m, invalid);
                    checker.rejected(Some(m.index));
                    self.checker = Some(checker);
                    return;
                }
                Payload::Done | Payload::MalformedDone => {}
            }
            ev.done = matches!(payload, Payload::Done);
            checker.event(&ev, &mut self.out_for(m));
        }
        if self.summaries {
            self.event_summary = checker.summary();
        }
        self.checker = Some(checker);
    }

    /// What a checker reports through, for message `m`.
    fn out_for<'a, 'b>(&'a mut self, m: &'a Message<'b>) -> Out<'a, 'b, 's> {
        Out {
            linter: self,
            block: None,
            message: Some(m),
            data: m.data,
            index: Some(m.index),
            separator: false,
            transport: None,
        }
    }

    /// `start..end` of message `m`'s data: a span of the body where the
    /// data is the body's bytes, else the whole message.
    pub(super) fn message_loc(&self, m: &Message<'_>, start: usize, end: usize) -> Location {
        let bytes = m.data.as_bytes();
        let (start, end) = if m.verbatim {
            (start, end)
        } else {
            (0, bytes.len())
        };
        let mut l = Location::in_line(bytes, m.data_offset, m.line, start, end);
        // Data the dialect never shows (audio) is no snippet either.
        let sent = m.direction() == Some(crate::transport::Direction::Sent);
        if self
            .dialect
            .is_some_and(|d| d.api().socket_summary(sent, m.data).is_some())
        {
            l.source = None;
        }
        self.to_file(&mut l);
        l
    }

    /// The bytes a JSON pointer names in message `m`'s data (its key when
    /// `key`), or the whole message.
    pub(super) fn message_pointer_loc(
        &self,
        m: &Message<'_>,
        pointer: &str,
        key: bool,
    ) -> Location {
        let Some(js) = span::find(m.data, pointer) else {
            return self.message_loc(m, 0, m.data.len());
        };
        match (key, js.key, js.key_end) {
            (true, Some(k), Some(e)) => self.message_loc(m, k, e),
            _ => self.message_loc(m, js.start, js.end),
        }
    }

    /// `invalid-json` on a message whose data is not JSON, at the byte
    /// where the parser gave up.
    pub(super) fn report_invalid_message(&mut self, m: &Message<'_>, invalid: &model::InvalidJson) {
        if self.out.count_only("invalid-json", None) {
            return;
        }
        let at = invalid.at(m.data);
        let loc = self.message_loc(m, at, at + 1);
        let what = self.transport.message();
        self.report(
            Finding::new(
                crate::lint::rule::INVALID_JSON,
                format!("the {what} is not JSON: {}", invalid.message()),
                loc,
            )
            .event(Some(m.index)),
        );
    }

    /// `event-too-large` for a message past `--max-event-bytes`: read and
    /// refused, as an event of SSE is.
    fn report_oversized_message(&mut self, m: &Message<'_>) {
        let loc = self.message_loc(m, 0, m.data.len());
        let what = self.transport.message();
        self.report(
            Finding::new(
                crate::lint::rule::EVENT_TOO_LARGE,
                format!(
                    "a {what} of {} bytes is larger than the limit of {} bytes (--max-event-bytes): it was not read, so whatever it held is missing from this report",
                    m.len,
                    self.out.settings().max_event_bytes
                ),
                loc,
            )
            .event(Some(m.index))
            .help("raise --max-event-bytes if such messages are expected"),
        );
        self.kind("invalid");
        self.oversized += 1;
        if let Some(c) = self.checker.as_mut() {
            c.rejected(Some(m.index));
        }
    }

    /// Content-Type on a transport other than SSE: the transport's own
    /// media type is expected (an NDJSON stream sent as
    /// `application/x-ndjson`).
    pub(super) fn check_message_content_type(&mut self, raw: Option<&str>, media: Option<&str>) {
        let want = self.transport.media_type();
        if media == Some(want) {
            return;
        }
        let loc = self.body_start();
        // A type that names another transport: the body was read as its
        // bytes show (`transport::settle`), not as the type says.
        let named = raw
            .and_then(Transport::of_media_type)
            .filter(|t| *t != self.transport);
        self.report(Finding::new(
            crate::lint::rule::CONTENT_TYPE,
            match (raw, named) {
                (Some(c), Some(t)) => format!(
                    "Content-Type is {c:?}, which names {}, but the body is {} ({want}): it is read as its bytes show; a client or proxy that goes by the type reads it with the wrong parser",
                    t.what(),
                    self.transport.what()
                ),
                (Some(c), None) => format!(
                    "Content-Type is {c:?}, not {want}: this is a {} stream, and proxies and tools that go by the type may buffer it whole or not read it as one",
                    self.transport.name()
                ),
                (None, _) => format!(
                    "the response has no Content-Type; this is a {} stream ({want}), and proxies and tools cannot tell it is one",
                    self.transport.name()
                ),
            },
            loc,
        ));
    }
}

/// The linter's side of a WebSocket (`pipeline/socket.rs` drives it: one
/// linter per response on the socket).
impl Linter<'_> {
    /// Reads the stream as dialect `d`'s, one response on a socket whose
    /// messages `transport` frames ([`Transport::is_socket`]), and the
    /// checker hears so ([`crate::dialect::Checker::on_socket`]).
    pub fn socket_response(&mut self, d: crate::dialect::Dialect, transport: Transport) {
        self.transport = transport;
        self.settle(d);
        if let Some(c) = self.checker.as_mut() {
            c.on_socket();
        }
    }

    /// The socket ended (`how`: closed with a code, failed, or its
    /// capture ended) while this stream's response was running: at the
    /// end, `ws-closed-mid-response` replaces the dialect's own cut-off
    /// finding (one root cause, one finding).
    pub fn socket_closed(&mut self, how: String) {
        self.socket_closed = Some(how);
    }

    /// Where message `m` is (its whole line in the log), in the file.
    pub fn message_location(&self, m: &Message<'_>) -> Location {
        self.message_loc(m, 0, m.data.len())
    }

    /// Reports `f`, a finding about the socket, found at message `m`
    /// (which the linter may not have read).
    pub fn report_socket(&mut self, f: Finding) {
        self.report(f);
    }

    /// A message this response's checker cannot read (not a JSON object
    /// with a `type`, a binary frame): counted as an event, reported as
    /// `f`, and the checker told it missed one
    /// ([`crate::dialect::Checker::rejected`]), so what it held is not
    /// also reported missing.
    pub fn read_unreadable(&mut self, m: &Message<'_>, f: Finding) {
        self.note_last(m);
        self.events += 1;
        self.event_kind.clear();
        self.event_summary.clear();
        self.kind("invalid");
        self.invalid_payloads += 1;
        self.report(f);
        if let Some(c) = self.checker.as_mut() {
            c.rejected(Some(m.index));
        }
    }

    /// `ws-closed-mid-response`, once the dialect has judged the ending:
    /// when the response did not end.
    pub(super) fn report_socket_closed(&mut self) {
        let Some(how) = self.socket_closed.take() else {
            return;
        };
        if !matches!(
            self.dialect_ending,
            Some(crate::model::assembly::Ending::CutOff)
        ) {
            return;
        }
        let (text, calls) = self.answer.choices.get(&0).map_or((0, 0), |c| {
            (c.text.kept.chars().count(), c.tool_calls.len())
        });
        let loc = self.last_location();
        self.report(
            Finding::new(
                crate::lint::rule::WS_CLOSED_MID_RESPONSE,
                format!(
                    "{how} while this response was running, before its terminal event: it is cut after {text} character(s) of text and {calls} tool call(s)"
                ),
                loc,
            )
            .help("find what closed the socket (server logs, a proxy's idle time-out); a client must check for the terminal event itself, as the SDKs' socket loops end quietly at a normal closure"),
        );
    }
}

impl crate::transport::Sink for Linter<'_> {
    fn message(&mut self, m: &Message<'_>) {
        self.read_message(m);
    }
}
