//! The lifecycle rules of a Responses stream: `sequence_number`, the first
//! event, the terminal event and what follows it, `[DONE]`, errors, the
//! cut-off ending, and usage.

use super::events::STATUSES;
use super::{json_type, literal, str_of, Checker, Terminal};
use crate::dialect::{Event, Out, StreamEnd};
use crate::lint::{Finding, Severity};
use serde_json::{Map, Value};

impl Checker {
    /// `responses-sequence-number` (not an integer, not increasing) and the
    /// bookkeeping for the missing and gap findings at the end.
    pub(super) fn check_sequence(
        &mut self,
        ev: &Event<'_>,
        o: &Map<String, Value>,
        out: &mut dyn Out,
    ) {
        let Some(n) = o.get("sequence_number") else {
            self.seq.missing += 1;
            if self.seq.first_missing.is_none() {
                self.seq.first_missing = Some((out.at_event(), ev.index));
            }
            return;
        };
        let Some(u) = n.as_u64() else {
            if !self.seq.bad_reported {
                self.seq.bad_reported = true;
                report!(
                    out,
                    Finding::new(
                        crate::lint::rule::RESPONSES_SEQUENCE_NUMBER,
                        format!(
                            "sequence_number is {} ({}), not a non-negative integer: a stream resumed after it (`starting_after`) cannot say where it stands",
                            literal(n),
                            json_type(n)
                        ),
                        out.at_pointer("/sequence_number", false),
                    )
                    .event(ev.index)
                    .pointer("/sequence_number")
                    .help("number the events 0, 1, 2, … with integers"),
                );
            }
            return;
        };
        let unread = std::mem::take(&mut self.seq.unread);
        match self.seq.last {
            None => {
                self.seq.first = Some((u, (out.at_pointer("/sequence_number", false), ev.index)));
                // Events before it that the checker never read (rejected,
                // or read before the stream was known to be Responses).
                self.seq.unread_before_first = unread.max(ev.index.unwrap_or(0));
            }
            Some(last) if u <= last => {
                if !self.seq.order_reported {
                    self.seq.order_reported = true;
                    report!(
                        out,
                        Finding::new(
                            crate::lint::rule::RESPONSES_SEQUENCE_NUMBER,
                            format!(
                                "sequence_number {u} follows {last}: the numbers must rise with every event; resuming after {last} (`starting_after`) would skip or repeat events (reported once per stream)"
                            ),
                            out.at_pointer("/sequence_number", false),
                        )
                        .event(ev.index)
                        .pointer("/sequence_number")
                        .help("use one counter for every event of the response, incremented by 1 per event"),
                    );
                }
            }
            Some(last) => {
                let max = self.seq.max.unwrap_or(last);
                // A gap no wider than the events rejected since the last
                // number is theirs (`invalid-json` said so).
                if u > max.saturating_add(1) && u - max - 1 > unread {
                    if self.seq.holes.len() < super::MAX_HOLES {
                        self.seq.holes.push((
                            max,
                            u,
                            (out.at_pointer("/sequence_number", false), ev.index),
                        ));
                    } else {
                        self.seq.more_gaps += 1;
                    }
                }
            }
        }
        // A number that comes back into a gap fills it.
        if self.seq.max.is_some_and(|m| u < m) {
            self.seq.holes.retain(|(a, b, _)| !(*a < u && u < *b));
        }
        self.seq.max = Some(self.seq.max.map_or(u, |m| m.max(u)));
        self.seq.min = Some(self.seq.min.map_or(u, |m| m.min(u)));
        self.seq.last = Some(u);
    }

    /// Notes the `event:` name, a missing name and an `id:` line, for
    /// `responses-event-name` and `responses-event-id` at the end.
    pub(super) fn check_framing(&mut self, ev: &Event<'_>, ty: Option<&str>, out: &mut dyn Out) {
        // A socket's messages have no `event:` or `id:` lines.
        if self.socket {
            return;
        }
        if let Some(t) = ty {
            if ev.named && ev.name != t {
                let what = format!("`{}` names an event whose type is `{}`", ev.name, t);
                self.names_differ
                    .note(|| (out.at_name(), ev.index), || what);
            }
        }
        if !ev.named {
            self.unnamed
                .note(|| (out.at_event(), ev.index), String::new);
        }
        if let Some(id) = ev.id {
            let id = super::text::shorten(id, 40);
            self.id_lines.note(|| (out.at_event(), ev.index), || id);
        }
    }

    /// `responses-created-first`, when `response.created` comes late.
    pub(super) fn note_created(&mut self, ev: &Event<'_>, ty: &str, out: &mut dyn Out) {
        if self.created {
            return;
        }
        if ty != "response.created" {
            let shown = format!("a `{}` event", super::text::shorten(ty, 60));
            self.before_created
                .note(|| (out.at_event(), ev.index), || shown);
            return;
        }
        self.created = true;
        let n = self.before_created.count;
        if let Some(((loc, index), what)) = self.before_created.first.take() {
            report!(
                out,
                Finding::new(
                    crate::lint::rule::RESPONSES_CREATED_FIRST,
                    format!(
                        "{n} event(s) come before `response.created`, the first of them {what}: `response.created` must open the stream, and clients that build the response from it raise on anything earlier"
                    ),
                    loc,
                )
                .event(index)
                .help("send `response.created` first; send vendor events (rate limits, keep-alives) after it, or not at all"),
            );
        }
    }

    /// `[DONE]`: noted for `responses-done-marker` at the end.
    pub(super) fn on_done_marker(&mut self, ev: &Event<'_>, out: &mut dyn Out) {
        out.kind("done");
        if self.done_marker.is_none() {
            let early = self.terminal.is_none() && !self.errored;
            self.done_marker = Some(((out.at_event(), ev.index), early));
        }
    }

    /// Data that is meant as `[DONE]` but is not exactly it.
    pub(super) fn on_malformed_done(&mut self, ev: &Event<'_>, out: &mut dyn Out) {
        out.kind("done");
        let shown = super::text::shorten(ev.data.trim(), 40);
        report!(
            out,
            Finding::new(
                crate::lint::rule::RESPONSES_DONE_MARKER,
                format!(
                    "{shown:?} is meant as the end sentinel but is not exactly `[DONE]`: the SDKs compare the string, then fail to parse it as JSON (the table)"
                ),
                out.at_event(),
            )
            .event(ev.index)
            .help("send exactly `data: [DONE]` (or, for OpenAI's own variant, nothing) after the terminal event"),
        );
        if self.done_marker.is_none() {
            let early = self.terminal.is_none() && !self.errored;
            self.done_marker = Some(((out.at_event(), ev.index), early));
        }
    }

    /// An `error` event, in either shape: `responses-error-event` once per
    /// stream, and `responses-error-shape` for the shape.
    pub(super) fn on_error(&mut self, ev: &Event<'_>, o: &Map<String, Value>, out: &mut dyn Out) {
        out.kind("error");
        self.errored = true;
        let nested = o.get("error").filter(|e| !e.is_null());
        let (code, message) = match nested {
            Some(Value::Object(e)) => (e.get("code").or(e.get("type")), e.get("message")),
            Some(s @ Value::String(_)) => (None, Some(s)),
            _ => (o.get("code"), o.get("message")),
        };
        let message_str = message.and_then(Value::as_str);
        let said = match (code.filter(|c| !c.is_null()), message_str) {
            (Some(c), Some(m)) => format!(
                "{}: {:?}",
                c.as_str().map_or_else(|| literal(c), str::to_string),
                super::text::shorten(m, 160)
            ),
            (None, Some(m)) => format!("{:?}", super::text::shorten(m, 160)),
            (Some(c), None) => literal(c),
            (None, None) => "(no message)".to_string(),
        };
        if !self.error_reported {
            self.error_reported = true;
            let chars = self.streamed_chars();
            report!(
                out,
                Finding::new(
                    crate::lint::rule::RESPONSES_ERROR_EVENT,
                    format!(
                        "an `error` event arrived inside the stream ({said}) after {chars} characters of text: the response failed, and clients raise here or keep the partial text"
                    ),
                    out.at_event(),
                )
                .event(ev.index)
                .help("fix the failure at its cause; report it with one `error` event followed by `response.failed`"),
            );
        }
        if self.error_shape_reported {
            return;
        }
        let nested_ok = nested
            .and_then(|e| e.get("message"))
            .is_some_and(Value::is_string);
        let flat_ok = nested.is_none() && o.get("message").is_some_and(Value::is_string);
        let finding = if nested_ok {
            return;
        } else if flat_ok {
            Finding::new(
                crate::lint::rule::RESPONSES_ERROR_SHAPE,
                "the error's `code`, `message` and `param` are at the top level of the event (the schema's flat shape), while OpenAI's own streams nest them in an `error` object: readers written for one shape miss the other's message",
                out.at_event(),
            )
            .level(Severity::Info)
        } else {
            Finding::new(
                crate::lint::rule::RESPONSES_ERROR_SHAPE,
                "the error event has no `message` string, neither in an `error` object (OpenAI's shape) nor at the top level (the schema's): clients cannot say what failed",
                out.at_event(),
            )
        };
        self.error_shape_reported = true;
        report!(
            out,
            finding
                .event(ev.index)
                .help("send `{\"type\":\"error\",\"sequence_number\":N,\"error\":{\"type\":…,\"code\":…,\"message\":…,\"param\":null}}`"),
        );
    }

    /// A terminal event: status, incomplete, failure, usage, and the
    /// comparison of its `output` with what streamed.
    pub(super) fn on_terminal(
        &mut self,
        ev: &Event<'_>,
        ty: &str,
        o: &Map<String, Value>,
        out: &mut dyn Out,
    ) {
        out.kind("finish");
        if self.terminal.is_some() {
            // A second terminal event: `responses-after-terminal` counts it.
            return;
        }
        let word = ty.trim_start_matches("response.");
        let r = o.get("response").and_then(Value::as_object);
        self.check_response(ev, o, true, out);
        let status = r.and_then(|r| str_of(r, "status"));
        let reason = r
            .and_then(|r| r.get("incomplete_details"))
            .and_then(|d| d.get("reason"))
            .and_then(Value::as_str);
        if let Some(st) = status {
            if st != word {
                let known = if STATUSES.contains(&st) {
                    String::new()
                } else {
                    " (not a status the API defines)".to_string()
                };
                report!(
                    out,
                    Finding::new(
                        crate::lint::rule::RESPONSES_TERMINAL_STATUS,
                        format!(
                            "`{ty}` carries a response whose status is {st:?}{known}: clients that go by the event type take the response as {word}, those that read `status` as {st}"
                        ),
                        out.at_pointer("/response/status", false),
                    )
                    .event(ev.index)
                    .pointer("/response/status")
                    .help("end with the event that matches the status: `response.completed` for completed, `response.incomplete` for incomplete (with `incomplete_details.reason`), `response.failed` for failed"),
                );
            }
        }
        let effective = status.unwrap_or(word);
        if effective == "incomplete" {
            let why = match reason {
                Some("max_output_tokens") => {
                    "the output token budget (`max_output_tokens`) ran out".to_string()
                }
                Some("content_filter") => "a content filter stopped the output".to_string(),
                Some(r) => format!("reason {r:?}"),
                None => "no `incomplete_details.reason` says why".to_string(),
            };
            let chars = self.streamed_chars();
            report!(
                out,
                // A budget cut is a warning in every dialect (the severity
                // policy): a stream helper that waits for
                // `response.completed` raises on a `response.incomplete`
                // ending by design (rules/observed.json; a designed
                // exception), and every client reads a
                // `response.completed` whose status is incomplete as sent.
                if ty == "response.incomplete" {
                    Finding::new(
                        crate::lint::rule::RESPONSES_INCOMPLETE,
                        format!(
                            "the response ended incomplete ({why}) after {chars} characters of text: the answer stops there; a stream helper that waits for `response.completed` raises on it by design, and raw loops read the text as sent (the table)"
                        ),
                        out.at_pointer("/response/incomplete_details", false),
                    )
                } else {
                    Finding::new(
                        crate::lint::rule::RESPONSES_INCOMPLETE,
                        format!(
                            "the response ended incomplete ({why}) after {chars} characters of text, under `{}`: the answer stops there; the clients of the record read the text as sent",
                            crate::model::shorten(ty, 60)
                        ),
                        out.at_pointer("/response/incomplete_details", false),
                    )
                }
                .event(ev.index)
                .help("raise `max_output_tokens` (reasoning models spend part of it before the answer), or shorten the task"),
            );
        }
        if effective == "failed" || ty == "response.failed" {
            self.errored = true;
            let err = r.and_then(|r| r.get("error")).filter(|e| !e.is_null());
            if !self.error_reported {
                self.error_reported = true;
                let said = match err {
                    Some(e) => {
                        let code = e.get("code").and_then(Value::as_str).unwrap_or("?");
                        let m = e.get("message").and_then(Value::as_str).unwrap_or("");
                        format!("{code}: {:?}", super::text::shorten(m, 160))
                    }
                    None => "no `response.error` says why".to_string(),
                };
                report!(
                    out,
                    Finding::new(
                        crate::lint::rule::RESPONSES_ERROR_EVENT,
                        format!(
                            "the response failed ({said}): the answer is incomplete or missing"
                        ),
                        out.at_event(),
                    )
                    .event(ev.index)
                    .help("fix the failure at its cause; the stream reports it correctly"),
                );
            }
            if err.is_none() && !self.error_shape_reported {
                self.error_shape_reported = true;
                report!(
                    out,
                    Finding::new(
                        crate::lint::rule::RESPONSES_ERROR_SHAPE,
                        "`response.failed` carries no `response.error` ({code, message}): clients cannot say what failed",
                        out.at_pointer("/response/error", false),
                    )
                    .event(ev.index),
                );
            }
        } else if r.is_some() {
            self.check_usage(ev, r, out);
        }
        // A failed response's output holds what was done before the
        // failure, if anything: not compared.
        if let (Some(r), false) = (r, effective == "failed" || ty == "response.failed") {
            self.compare_output(ev, r, out);
        }
        let mut finish = effective.to_string();
        if effective == "incomplete" {
            if let Some(reason) = reason {
                finish = format!("incomplete: {reason}");
            }
        }
        self.terminal = Some(Terminal {
            ty: ty.to_string(),
            finish,
            usage: r
                .and_then(|r| r.get("usage"))
                .filter(|u| u.is_object())
                .cloned(),
            at: (out.at_event(), ev.index),
            incomplete: effective == "incomplete",
        });
        self.last = effective.to_string();
    }

    /// `responses-usage-missing` and `responses-usage-mismatch` on a
    /// terminal response.
    fn check_usage(&mut self, ev: &Event<'_>, r: Option<&Map<String, Value>>, out: &mut dyn Out) {
        if self.usage_reported {
            return;
        }
        let u = r.and_then(|r| r.get("usage"));
        let Some(u) = u.and_then(Value::as_object) else {
            self.usage_reported = true;
            let what = match u {
                None => "no `usage`".to_string(),
                Some(Value::Null) => "`usage: null`".to_string(),
                Some(v) => format!("a `usage` that is {}", json_type(v)),
            };
            report!(
                out,
                Finding::new(
                    crate::lint::rule::RESPONSES_USAGE_MISSING,
                    format!(
                        "the terminal response carries {what}: the token counts (billing, quotas, context size) are unknown to the client"
                    ),
                    out.at_pointer("/response/usage", false),
                )
                .event(ev.index)
                .pointer("/response/usage")
                .help("put `usage` {input_tokens, output_tokens, total_tokens, …} on the terminal event's response"),
            );
            return;
        };
        let n = |k: &str| u.get(k).and_then(Value::as_u64);
        let missing: Vec<&str> = ["input_tokens", "output_tokens", "total_tokens"]
            .into_iter()
            .filter(|k| n(k).is_none())
            .collect();
        if !missing.is_empty() {
            self.usage_reported = true;
            report!(
                out,
                Finding::new(
                    crate::lint::rule::RESPONSES_USAGE_MISSING,
                    format!(
                        "the terminal response's usage lacks {} (as non-negative integers): a client that validates the terminal event raises on it",
                        missing
                            .iter()
                            .map(|k| format!("`{k}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    out.at_pointer("/response/usage", false),
                )
                .event(ev.index)
                .pointer("/response/usage")
                // Observed (rules/observed.json, responses-usage-missing#2):
                // a client that validates the terminal event raises.
                .level(Severity::Error),
            );
            return;
        }
        let (i, o, t) = (
            n("input_tokens").unwrap_or(0),
            n("output_tokens").unwrap_or(0),
            n("total_tokens").unwrap_or(0),
        );
        let cached = u
            .get("input_tokens_details")
            .and_then(|d| d.get("cached_tokens"))
            .and_then(Value::as_u64);
        let reasoning = u
            .get("output_tokens_details")
            .and_then(|d| d.get("reasoning_tokens"))
            .and_then(Value::as_u64);
        let (message, pointer, level) = if i.checked_add(o) != Some(t) {
            (
                format!("usage says total_tokens {t}, but input_tokens + output_tokens = {i} + {o} = {}: clients that copy the figures report {t}, a client that adds the parts itself reports {}, so their totals disagree", i.saturating_add(o), i.saturating_add(o)),
                "/response/usage/total_tokens",
                // Observed (rules/observed.json, responses-usage-mismatch#1):
                // the clients' totals differ, nothing else does.
                Severity::Warning,
            )
        } else if let Some(c) = cached.filter(|c| *c > i) {
            (
                format!("usage says {c} cached tokens out of {i} input tokens: cached tokens are part of input_tokens"),
                "/response/usage/input_tokens_details/cached_tokens",
                // Observed (responses-usage-mismatch#2): opencode shows 30
                // input tokens where the usage says 12; the SDKs read past.
                Severity::Warning,
            )
        } else if let Some(rt) = reasoning.filter(|rt| *rt > o) {
            (
                format!("usage says {rt} reasoning tokens out of {o} output tokens: reasoning tokens are part of output_tokens"),
                "/response/usage/output_tokens_details/reasoning_tokens",
                Severity::Info,
            )
        } else {
            return;
        };
        self.usage_reported = true;
        report!(
            out,
            Finding::new(
                crate::lint::rule::RESPONSES_USAGE_MISMATCH,
                message,
                out.at_pointer(pointer, false),
            )
            .event(ev.index)
            .pointer(pointer)
            .level(level)
            .help("report total_tokens = input_tokens + output_tokens, with cached and reasoning tokens counted inside them"),
        );
    }

    /// The whole-stream lifecycle rules.
    pub(super) fn finish_lifecycle(&mut self, end: StreamEnd<'_>, out: &mut dyn Out) {
        let variant = self.variant(out);
        // No `response.created` at all.
        if !self.created {
            // Nothing at all: an empty body, keep-alives only (a body that
            // is not SSE is `body-not-sse`'s, a cut capture the tool's).
            if self.before_created.first.is_none()
                && self.json_events == 0
                && end.unread() == 0
                && !end.not_sse
                && !end.damaged
            {
                let loc = out.at_end();
                report!(
                    out,
                    Finding::new(
                        crate::lint::rule::RESPONSES_CREATED_FIRST,
                        format!(
                            "the stream has no events ({} dispatched): no `response.created` and no terminal event, so clients see no response at all",
                            end.events
                        ),
                        loc,
                    )
                    .help("stream the response: `response.created`, the output items, then `response.completed`; or fail with a non-2xx status"),
                );
            }
            // The first event, unreadable, may have been it
            // (`invalid-json` is the finding).
            let first = self
                .before_created
                .first
                .take()
                .filter(|_| !self.lost_first);
            if let Some(((loc, index), what)) = first {
                report!(
                    out,
                    Finding::new(
                        crate::lint::rule::RESPONSES_CREATED_FIRST,
                        format!(
                            "the stream has no `response.created`; it opens with {what}: clients that build the response from `response.created` raise before reading the answer"
                        ),
                        loc,
                    )
                    .event(index)
                    .help("open the stream with `response.created` (the response with `status: in_progress`)"),
                );
            }
        }
        // sequence_number missing.
        if let Some((loc, index)) = self.seq.first_missing.take() {
            let n = self.seq.missing;
            let f = if n == self.json_events {
                Finding::new(
                    crate::lint::rule::RESPONSES_SEQUENCE_NUMBER,
                    format!(
                        "no event carries `sequence_number` ({n} event(s)): early servers left it out and clients read on, but the stream cannot be resumed (`starting_after`)"
                    ),
                    loc,
                )
                .level(Severity::Info)
            } else {
                Finding::new(
                    crate::lint::rule::RESPONSES_SEQUENCE_NUMBER,
                    format!(
                        "{n} of {} event(s) lack `sequence_number`, the first one here: a resumed stream cannot say where it stands",
                        self.json_events
                    ),
                    loc,
                )
            };
            report!(
                out,
                f.event(index)
                    .help("give every event, errors included, a `sequence_number`"),
            );
        }
        // Gaps (those no later number filled), and a start other than 0.
        let start = self.seq.first.as_ref().map(|(n, _)| *n).filter(|_| {
            self.seq
                .min
                .is_some_and(|m| m != 0 && m > self.seq.unread_before_first)
        });
        let gaps = self.seq.holes.len() as u64 + self.seq.more_gaps;
        let first_gap = self.seq.holes.first().cloned();
        if gaps > 0 || start.is_some() {
            let all = if gaps > 1 {
                format!(" ({gaps} gaps in all)")
            } else {
                String::new()
            };
            let mut parts = Vec::new();
            let at = match (&first_gap, &self.seq.first) {
                (Some((a, b, at)), _) if start.is_none() => {
                    parts.push(format!("sequence_number jumps from {a} to {b}{all}"));
                    at.clone()
                }
                (gap, Some((s, at))) => {
                    parts.push(format!("sequence_number starts at {s}, not 0"));
                    if let Some((a, b, _)) = gap {
                        parts.push(format!("it jumps from {a} to {b}{all}"));
                    }
                    at.clone()
                }
                _ => (out.at_end(), None),
            };
            report!(
                out,
                Finding::new(
                    crate::lint::rule::RESPONSES_SEQUENCE_GAP,
                    format!(
                        "{}: OpenAI numbers every event 0, 1, 2, …; clients read on, but a gap suggests events went missing on the way",
                        parts.join("; ")
                    ),
                    at.0,
                )
                .event(at.1)
                .pointer("/sequence_number"),
            );
        }
        // Events after the terminal event: an error when they add to the
        // answer (readers of the events and of the final response then
        // differ), info when they only repeat (a second terminal event).
        if let Some(((loc, index), what)) = self.after_terminal.first.take() {
            let term = self
                .terminal
                .as_ref()
                .map_or("the terminal event", |t| t.ty.as_str())
                .to_string();
            let what = if what == "(no type)" {
                "without a type".to_string()
            } else {
                format!("`{what}`")
            };
            let n = self.after_terminal.count;
            let f = if self.after_terminal_adds {
                Finding::new(
                    crate::lint::rule::RESPONSES_AFTER_TERMINAL,
                    format!(
                        "{n} event(s) follow `{term}`, the first {what}, and add to the answer: the terminal event must be the last (an optional `[DONE]` aside); clients that take the final response miss what they add, clients that read the events keep it"
                    ),
                    loc,
                )
            } else if self.after_terminal_ends_again {
                // Observed: a client that adds up the terminal events ends
                // with the status twice (rules/observed.json,
                // responses-after-terminal#2).
                Finding::new(
                    crate::lint::rule::RESPONSES_AFTER_TERMINAL,
                    format!(
                        "{n} event(s) follow `{term}`, the first {what}, and one is a terminal event again: the terminal event must be the last (an optional `[DONE]` aside); a client that adds up what each terminal event says ends with the status twice"
                    ),
                    loc,
                )
            } else {
                Finding::new(
                    crate::lint::rule::RESPONSES_AFTER_TERMINAL,
                    format!(
                        "{n} event(s) follow `{term}`, the first {what}: the terminal event must be the last (an optional `[DONE]` aside); these add nothing to the answer, and clients read past them"
                    ),
                    loc,
                )
                .level(Severity::Info)
            };
            report!(
                out,
                f.event(index)
                    .help("send nothing after `response.completed`, `response.incomplete` or `response.failed` but, where the variant wants it, `data: [DONE]`"),
            );
        }
        // [DONE] before the terminal event, or missing where required.
        match (&self.done_marker, &self.terminal) {
            (Some(((loc, index), true)), Some(t)) => {
                report!(
                    out,
                    Finding::new(
                        crate::lint::rule::RESPONSES_DONE_MARKER,
                        format!(
                            "`[DONE]` comes before `{}`{}: the SDKs stop reading at `[DONE]`, so they never see the terminal event, its status or its usage (the table)",
                            t.ty,
                            t.at.1.map_or(String::new(), |i| format!(" (event {i})"))
                        ),
                        loc.clone(),
                    )
                    .event(*index)
                    .help("send `[DONE]` only after the terminal event"),
                );
            }
            (None, Some(_)) if variant.done_required && !end.damaged => {
                report!(
                    out,
                    Finding::new(
                        crate::lint::rule::RESPONSES_DONE_MARKER,
                        "the stream ends without `data: [DONE]`: the Open Responses specification requires it as the last thing on the wire, and its clients wait for it",
                        out.at_end(),
                    )
                    .level(Severity::Warning)
                    .help("end the stream with `data: [DONE]` after the terminal event"),
                );
            }
            _ => {}
        }
        // Cut off: no terminal event, no error.
        if self.terminal.is_none() && !self.errored && !end.damaged && end.events > 0 {
            let chars = self.streamed_chars();
            let calls = self.calls();
            let mut how = format!(
                "after {} event(s) ({chars} characters of text{})",
                end.events,
                if calls > 0 {
                    format!(", {calls} function call(s)")
                } else {
                    String::new()
                }
            );
            if self.ended_with_response_done {
                how.push_str(", the last a `response.done`, which is no event of the API");
            }
            if end.invalid_payloads > 0 {
                how.push_str(&format!(
                    "; {} event(s) were not JSON",
                    end.invalid_payloads
                ));
            }
            if end.oversized > 0 {
                how.push_str(&format!(
                    "; {} event(s) were too large to read",
                    end.oversized
                ));
            }
            how.push_str(&end.broke());
            let done = self.done_marker.is_some();
            let mut f = Finding::new(
                crate::lint::rule::RESPONSES_CUT_OFF,
                format!(
                    "the stream {} with no terminal event (`response.completed`, `response.incomplete` or `response.failed`) {how}: the answer is incomplete: a stream helper of the record raises, and other clients return the partial response as if it were whole (the table)",
                    if done { "sent `[DONE]` and closed" } else { "closed" }
                ),
                out.at_end(),
            )
            .help("find what closed the connection (proxy time-outs, crashes); a server must end every response with a terminal event");
            if done && variant.may_close_without_terminal {
                f = f.level(Severity::Warning);
            }
            report!(out, f);
        }
    }
}
