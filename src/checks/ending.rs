//! Whole-stream rules, run once the body has ended: transport
//! (`http-status`, `content-type`, `body-not-sse`, `capture-truncated`),
//! the ending (`empty-stream`, `cut-off`, `missing-done`,
//! `missing-finish-reason`, `data-after-done`, the undispatched tail) and
//! the sequence rules that need the whole stream (`choice-index` drift,
//! `role-repeated`, `cumulative-content`, tool calls, `usage-missing`).
//!
//! One root cause gives one diagnostic: a non-2xx status silences the body
//! rules; capture damage replaces `cut-off`; a stream cut off is not also
//! `missing-done` and `missing-finish-reason`.

use super::framing::shorten;
use super::payload::error_message;
use super::Linter;
use crate::capture::har::media_type;
use crate::capture::Truncation;
use crate::lint::{Finding, Location, Severity};
use crate::model::assembly::Ending;
use serde_json::Value;

impl Linter<'_> {
    /// A location for whole-body findings: the start of the body.
    fn body_start(&self) -> Location {
        let text = self.head.split(|b| *b == b'\n').next().unwrap_or(&[]);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        let mut l = Location::in_line(text, 0, 1, 0, text.len().min(200));
        self.to_file(&mut l);
        l
    }

    pub(super) fn finish_stream(&mut self, evidence: &[Truncation]) {
        let http = self.ctx.http.clone();
        let head_json: Option<Value> = serde_json::from_slice(trim(&self.head)).ok();
        if let Some(h) = http.as_ref().filter(|h| h.status != 0) {
            if !(200..300).contains(&h.status) {
                let detail = head_json
                    .as_ref()
                    .map(|v| error_message(v.get("error").unwrap_or(v)))
                    .or_else(|| {
                        let t = String::from_utf8_lossy(trim(&self.head)).into_owned();
                        (!t.is_empty()).then(|| format!("{:?}", shorten(&t, 160)))
                    })
                    .unwrap_or_else(|| "(empty body)".to_string());
                let loc = self.body_start();
                self.report(Finding::new(
                    "http-status",
                    format!(
                        "HTTP status {}{}: the request failed before streaming; the body says {detail}",
                        h.status,
                        // HTTP/2 and HAR entries often have no reason phrase.
                        match h.reason.trim() {
                            "" => String::new(),
                            r => format!(" {r}"),
                        }
                    ),
                    loc,
                ));
                return;
            }
            let ct = h.content_type.as_deref().map(media_type);
            if ct.as_deref() != Some("text/event-stream") {
                let ignored = head_json
                    .as_ref()
                    .and_then(|v| v.get("object"))
                    .and_then(Value::as_str)
                    == Some("chat.completion");
                let loc = self.body_start();
                self.report(Finding::new(
                    "content-type",
                    match (&h.content_type, ignored) {
                        (_, true) => "the response is `application/json` with one chat.completion object: the server ignored `\"stream\": true`".to_string(),
                        (Some(c), false) => format!(
                            "Content-Type is {c:?}, not text/event-stream: browsers' EventSource refuses the stream and proxies may buffer it whole"
                        ),
                        (None, false) => "the response has no Content-Type; clients and proxies cannot tell it is an event stream".to_string(),
                    },
                    loc,
                ));
            }
        }
        let cut_reasons: Vec<&str> = evidence
            .iter()
            .filter(|t| !t.by_capture)
            .map(|t| t.reason.as_str())
            .collect();
        let transport = if cut_reasons.is_empty() {
            String::new()
        } else {
            format!(" (the transfer broke: {})", cut_reasons.join("; "))
        };
        for t in evidence.iter().filter(|t| t.by_capture) {
            let loc = self.last_location();
            self.report(
                Finding::new(
                    "capture-truncated",
                    format!(
                        "{}; the capture is incomplete, so how it ends says nothing about the server",
                        t.reason
                    ),
                    loc,
                )
                .help("capture again (with `sselint record`, or a browser export with full bodies) to judge the ending"),
            );
        }
        let body_blank = trim(&self.head).is_empty();
        if self.sse_lines == 0 && !body_blank {
            let loc = self.body_start();
            let what = match &head_json {
                Some(v) if v.get("error").is_some_and(|e| !e.is_null()) => {
                    "a bare JSON error object".to_string()
                }
                Some(v) if v.get("object").and_then(Value::as_str) == Some("chat.completion") => {
                    "one non-streamed chat.completion object (the server ignored `\"stream\": true`)".to_string()
                }
                Some(v) => format!("a JSON {}", crate::model::json_type(v)),
                None => "text with no SSE field lines".to_string(),
            };
            self.report(
                Finding::new(
                    "body-not-sse",
                    format!("the body is {what}, not an event stream: it has no `data:` lines, so SSE clients see no event at all"),
                    loc.clone(),
                )
                .help("stream `data: {json}` events, each followed by a blank line"),
            );
            // Chat's `error-event`: the other dialects judge their own.
            if let Some(err) = head_json
                .as_ref()
                .and_then(|v| v.get("error"))
                .filter(|e| !e.is_null() && self.is_chat())
            {
                self.error_events += 1;
                self.report(Finding::new(
                    "error-event",
                    format!(
                        "an error came back inside an HTTP {} stream: {}",
                        http.as_ref()
                            .map_or("200".to_string(), |h| h.status.to_string()),
                        error_message(err)
                    ),
                    loc,
                ));
            }
        }
        let damaged = evidence.iter().any(|t| t.by_capture);
        // The rest is Chat's: another dialect's checker judges its own
        // ending, and a stream of no known dialect gets one finding.
        let broke = (!cut_reasons.is_empty()).then(|| cut_reasons.join("; "));
        if self.finish_dialect(damaged, broke.as_deref()) || self.finish_unknown() {
            return;
        }
        let ending = self.answer.ending();
        if self.chat.after_done > 0 {
            let loc = self.chat.first_after_done.clone().unwrap_or_default();
            // Observed: every client stops at the first `[DONE]`; a repeated
            // `[DONE]` loses nothing, data after it is lost to all of them.
            let finding = if self.chat.after_done_data == 0 {
                Finding::new(
                    "data-after-done",
                    format!(
                        "`[DONE]` is sent {} more time(s); clients stop at the first, so nothing is lost",
                        self.chat.after_done
                    ),
                    loc,
                )
                .level(Severity::Info)
            } else {
                Finding::new(
                    "data-after-done",
                    format!(
                        "{} event(s) with data follow `[DONE]`: clients stop reading at the first `[DONE]`, so what they carry is lost",
                        self.chat.after_done_data
                    ),
                    loc,
                )
            };
            self.report(finding);
        }
        match ending {
            Ending::Empty if self.tail_loc.is_some() && !damaged && self.error_events == 0 => {
                // Cut inside the first event: nothing was dispatched.
                let loc = self.tail_loc.clone().unwrap_or_default();
                self.report(Finding::new(
                    "cut-off",
                    format!("the stream ended inside its first event{transport}: no chunk arrived whole, so the client shows nothing"),
                    loc,
                ));
                self.tail_loc = None;
            }
            Ending::Empty => {
                // Events that were not JSON explain the empty answer; so
                // does an error event (one root cause, one finding), except
                // in a body with no SSE lines, where `body-not-sse` and
                // `empty-stream` are the documented pair.
                let explained_by_error = self.error_events > 0 && self.sse_lines > 0;
                if !damaged && self.invalid_payloads == 0 && !explained_by_error {
                    let loc = self.last_location();
                    self.report(Finding::new(
                        "empty-stream",
                        format!(
                            "no chunk with choices in {} event(s){}: the client shows an empty answer",
                            self.events,
                            if self.error_events > 0 { " (the stream carried an error instead)" } else { "" }
                        ),
                        loc,
                    ));
                }
            }
            Ending::CutOff => {
                if !damaged && self.error_events == 0 {
                    let loc = self
                        .tail_loc
                        .clone()
                        .unwrap_or_else(|| self.last_location());
                    let text: usize = self
                        .answer
                        .choices
                        .values()
                        .map(|c| c.text.kept.chars().count())
                        .sum();
                    self.report(
                        Finding::new(
                            "cut-off",
                            format!(
                                "the stream ended with neither a finish_reason nor `[DONE]` after {} event(s) ({text} characters of text){transport}: the answer is incomplete, yet many clients show it as if it were whole",
                                self.events
                            ),
                            loc,
                        )
                        .help(if cut_reasons.iter().any(|r| r.contains("--read-timeout")) {
                            "the server (or a proxy) stopped sending mid-answer; check why it stalls (load, a hung upstream)"
                        } else {
                            "the server (or a proxy) closed the connection early; check its timeouts and error logs"
                        }),
                    );
                }
            }
            Ending::NoDone => {
                if !damaged {
                    let loc = self.last_location();
                    self.report(Finding::new(
                        "missing-done",
                        format!("every choice finished but `data: [DONE]` never came{transport}: clients that wait for it hang until the connection closes, and some report an error"),
                        loc,
                    ).help("send `data: [DONE]` and a blank line after the last chunk"));
                }
            }
            Ending::DoneWithoutFinish => {
                let drift = self.drift_detected();
                let missing: Vec<(u64, Option<Location>)> = self
                    .answer
                    .choices
                    .values()
                    .filter(|c| c.finish_reason.is_none())
                    .filter(|c| {
                        !self
                            .chat
                            .choices
                            .get(&c.index)
                            .is_some_and(|t| t.bad_finish)
                    })
                    .map(|c| {
                        (
                            c.index,
                            self.chat
                                .choices
                                .get(&c.index)
                                .and_then(|t| t.first_loc.clone()),
                        )
                    })
                    .collect();
                // An unreadable event (invalid JSON, events run together)
                // may have held the finish: that finding is the cause.
                let unreadable = self.invalid_payloads > 0 || self.separator_errors > 0;
                if !drift && self.error_events == 0 && !unreadable {
                    for (i, loc) in missing {
                        self.report(Finding::new(
                            "missing-finish-reason",
                            format!("`[DONE]` arrived but choice {i} never got a finish_reason: clients cannot tell a complete answer from a cut one"),
                            loc.unwrap_or_else(|| self.last_location()),
                        ));
                    }
                }
            }
            Ending::Complete | Ending::Failed => {}
        }
        if ending != Ending::CutOff && !self.tail_complete {
            if let Some(loc) = self.tail_loc.clone() {
                self.report(Finding::new(
                    "unterminated-event",
                    "bytes after the last blank line at the end of the stream: an incomplete event that every client discards",
                    loc,
                ));
            }
        }
        if self.drift_detected() {
            if let Some((loc, ev)) = self.chat.drift.first_loc.clone() {
                let last = self.chat.drift.last.unwrap_or(0);
                let message = if self.chat.drift.repeats {
                    format!(
                        "the choice index changes mid-stream on single-choice chunks, up to {last}, and no choice but the last finishes: clients put the later pieces in new choices, so choice 0 holds only part of the answer"
                    )
                } else {
                    format!(
                        "the choice index grows on every chunk (0, 1, 2, … up to {last}): clients put each piece in a new choice, so choice 0 holds only the first piece"
                    )
                };
                self.report(Finding::new("choice-index", message, loc).event(ev));
            }
        }
        let repeated: Option<(u64, u64, u64, Option<Location>)> = self
            .chat
            .choices
            .iter()
            .find(|(_, t)| t.role_deltas >= 2)
            .map(|(i, t)| (*i, t.role_deltas, t.deltas, t.first_role_loc.clone()));
        if let Some((i, n, m, loc)) = repeated {
            self.report(Finding::new(
                "role-repeated",
                format!("choice {i} sends `role` on {n} of its {m} deltas (OpenAI sends it once, first); harmless for most clients, but those that start a new message on each role split the answer"),
                loc.unwrap_or_default(),
            ));
        }
        let cumulative: Vec<(u64, Location, Option<u64>)> = self
            .chat
            .choices
            .iter()
            // A cumulative stream repeats the text so far in (nearly) every
            // delta; a lone token followed by a longer one that starts
            // with it (" " then " the") is ordinary tokenization, so the
            // pattern must hold for at least half of the deltas after the
            // first.
            .filter(|(_, t)| {
                t.cumulative >= 2 && t.cumulative * 2 >= t.content_deltas.saturating_sub(1)
            })
            .filter_map(|(i, t)| t.cumulative_loc.clone().map(|(l, e)| (*i, l, e)))
            .collect();
        for (i, loc, ev) in cumulative {
            self.report(
                Finding::new(
                    "cumulative-content",
                    format!("choice {i}'s content deltas repeat the text so far instead of adding to it: clients that append deltas show the text many times over"),
                    loc,
                )
                .event(ev),
            );
        }
        self.finish_tool_calls(ending == Ending::CutOff || damaged);
        self.check_empty_answer(ending);
        let asked_usage = self.ctx.request.as_ref().is_some_and(|r| r.include_usage);
        if asked_usage
            && self.answer.usage.is_none()
            && matches!(
                ending,
                Ending::Complete | Ending::NoDone | Ending::DoneWithoutFinish
            )
        {
            let loc = self.last_location();
            self.report(Finding::new(
                "usage-missing",
                "the request asked for usage (`stream_options.include_usage`) but no chunk carried it",
                loc,
            ));
        }
    }

    /// The index stayed or grew on every single-choice chunk, grew at least
    /// once, no choice after the first opened with a role, and no choice but
    /// the last one finished: one answer spread over "choices" (a real
    /// `n > 1` stream interleaves its choices or finishes each, opens each
    /// with a role, and its request, when captured, asked for them).
    fn drift_detected(&self) -> bool {
        let last = self.chat.drift.last.unwrap_or(0);
        let asked_several = self.ctx.request.as_ref().and_then(|r| r.n) > Some(1);
        // Real choices each open with their own role delta; drifted pieces
        // of one answer do not — unless the server sends `role` on every
        // delta, when a role tells nothing.
        let first = self.chat.choices.keys().next().copied();
        let role_only_first = self.chat.choices.values().any(|t| t.deltas > t.role_deltas);
        let later_roles = role_only_first
            && self
                .chat
                .choices
                .iter()
                .any(|(i, t)| Some(*i) != first && t.role_deltas > 0);
        self.chat.drift.steps >= 1
            && !self.chat.drift.broken
            && !asked_several
            && !later_roles
            && self
                .answer
                .choices
                .values()
                .all(|c| c.index == last || c.finish_reason.is_none())
    }
}

/// `b` without leading and trailing ASCII whitespace (and a BOM).
fn trim(b: &[u8]) -> &[u8] {
    let b = b.strip_prefix(&[0xEF, 0xBB, 0xBF][..]).unwrap_or(b);
    let s = b
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(b.len());
    let e = b
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(s, |i| i + 1);
    &b[s..e]
}
