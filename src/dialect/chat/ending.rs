//! How a Chat stream ended, and the rules that need the whole stream
//! (Chat's [`crate::dialect::Checker::finish`]): `error-event` for a body
//! that is one JSON error, `data-after-done`, the ending (`empty-stream`,
//! `cut-off`, `missing-done`, `missing-finish-reason`, the undispatched
//! tail's `unterminated-event`), the sequence rules (`choice-index` drift,
//! `role-repeated`, `cumulative-content`, `repeated-answer`), tool calls,
//! `empty-answer` and `usage-missing`. The transport rules before them are
//! shared (`checks::ending`); what they know of the transfer comes through
//! [`crate::dialect::Out::transport`].
//!
//! One root cause gives one diagnostic: capture damage replaces `cut-off`;
//! a stream cut off is not also `missing-done` and
//! `missing-finish-reason`.

use super::Checker;
use crate::dialect::{Out, StreamEnd, Transport};
use crate::lint::{Finding, Location, Severity};
use crate::model::assembly::{Answer, Ending};
use crate::model::error_message;

impl Checker {
    /// Chat's whole-stream rules, after the shared transport rules; then
    /// the answer and how the stream ended.
    pub(super) fn finish_stream(&mut self, end: StreamEnd, out: &mut dyn Out) -> (Answer, Ending) {
        let damaged = end.damaged;
        let Transport {
            status,
            body,
            body_start,
            breaks,
            mut tail,
        } = out.transport();
        // The shared framing reports `error:` lines as `error-event`: they
        // explain an empty or cut answer as error events do.
        self.error_events += end.error_fields;
        self.check_error_body(&end, status, body.as_ref(), body_start, out);
        // How the transfer broke, when the capture says: a clause for the
        // ending's messages.
        let transport = if breaks.is_empty() {
            String::new()
        } else {
            format!(" (the transfer broke: {})", breaks.join("; "))
        };
        let ending = self.answer.ending();
        self.check_after_done(out);
        self.check_ending(ending, &end, &transport, &breaks, &mut tail, out);
        if ending != Ending::CutOff {
            if let Some(loc) = tail {
                out.report(Finding::new(
                    crate::lint::rule::UNTERMINATED_EVENT,
                    "bytes after the last blank line at the end of the stream: an incomplete event that every client discards",
                    loc,
                ));
            }
        }
        self.check_choice_indices(out);
        self.check_sequences(out);
        self.finish_tool_calls(out, ending == Ending::CutOff || damaged);
        self.check_empty_answer(out, ending);
        self.check_usage_asked(ending, out);
        // A stream that carried an error and then stopped unfinished
        // failed, as a Responses, Messages or Gemini stream that ends on
        // an error does: the same consequence, the same ending (`diff`
        // across dialects compares it). The findings above were judged on
        // what the chunks alone said. (A body that is one JSON error and
        // no stream stays `empty`: `body-not-sse` describes it.)
        let ending = match ending {
            Ending::CutOff | Ending::Empty if self.error_events > 0 && end.sse_lines > 0 => {
                Ending::Failed
            }
            e => e,
        };
        (std::mem::take(&mut self.answer), ending)
    }

    /// A body that is one JSON error object where a stream was expected
    /// (`body-not-sse`, shared, said so): `error-event`.
    fn check_error_body(
        &mut self,
        end: &StreamEnd,
        status: Option<u16>,
        body: Option<&serde_json::Value>,
        body_start: Location,
        out: &mut dyn Out,
    ) {
        if end.sse_lines == 0 {
            if let Some(err) = body.and_then(|v| v.get("error")).filter(|e| !e.is_null()) {
                self.error_events += 1;
                out.report(Finding::new(
                    crate::lint::rule::ERROR_EVENT,
                    format!(
                        "an error came back inside an HTTP {} stream: {}",
                        status.map_or("200".to_string(), |s| s.to_string()),
                        error_message(err)
                    ),
                    body_start,
                ));
            }
        }
    }

    /// `data-after-done`: `[DONE]` repeated (info), or data after it.
    fn check_after_done(&mut self, out: &mut dyn Out) {
        if self.chat.after_done > 0 {
            let loc = self.chat.first_after_done.clone().unwrap_or_default();
            // Observed: every client stops at the first `[DONE]`; a repeated
            // `[DONE]` loses nothing, data after it is lost to all of them.
            let finding = if self.chat.after_done_data == 0 {
                Finding::new(
                    crate::lint::rule::DATA_AFTER_DONE,
                    format!(
                        "`[DONE]` is sent {} more time(s); clients stop at the first, so nothing is lost",
                        self.chat.after_done
                    ),
                    loc,
                )
                .level(Severity::Info)
            } else {
                Finding::new(
                    crate::lint::rule::DATA_AFTER_DONE,
                    format!(
                        "{} event(s) with data follow `[DONE]`: the stream ends at the first `[DONE]`, so what they carry is not part of the answer (no client of the record read past it)",
                        self.chat.after_done_data
                    ),
                    loc,
                )
            };
            out.report(finding);
        }
    }

    /// How the stream ended, as a finding: `cut-off`, `empty-stream`,
    /// `missing-done`, `missing-finish-reason` (none when the capture was
    /// damaged, or an error explains it). `transport` is the clause saying
    /// how the transfer broke; a cut inside the first event takes `tail`.
    fn check_ending(
        &mut self,
        ending: Ending,
        end: &StreamEnd,
        transport: &str,
        breaks: &[String],
        tail: &mut Option<Location>,
        out: &mut dyn Out,
    ) {
        let damaged = end.damaged;
        match ending {
            Ending::Empty if tail.is_some() && !damaged && self.error_events == 0 => {
                // Cut inside the first event: nothing was dispatched.
                let loc = tail.take().unwrap_or_default();
                out.report(Finding::new(
                    crate::lint::rule::CUT_OFF,
                    format!("the stream ended inside its first event{transport}: no chunk arrived whole, so the client shows nothing"),
                    loc,
                ));
            }
            Ending::Empty => {
                // Events that were not JSON or too large to read explain
                // the empty answer; so
                // does an error event (one root cause, one finding), except
                // in a body with no SSE lines, where `body-not-sse` and
                // `empty-stream` are the documented pair.
                let explained_by_error = self.error_events > 0 && end.sse_lines > 0;
                if !damaged && end.unread() == 0 && !explained_by_error {
                    let loc = out.at_end();
                    out.report(Finding::new(
                        crate::lint::rule::EMPTY_STREAM,
                        format!(
                            "no chunk with choices in {} event(s){}: the stream holds no answer",
                            end.events,
                            if self.error_events > 0 {
                                " (the stream carried an error instead)"
                            } else {
                                ""
                            }
                        ),
                        loc,
                    ));
                }
            }
            Ending::CutOff => {
                if !damaged && self.error_events == 0 {
                    // Where the stream stopped, as the other dialects say it
                    // (one caret; the partial line is not the fault).
                    let loc = out.at_end();
                    let text: usize = self
                        .answer
                        .choices
                        .values()
                        .map(|c| c.text.kept.chars().count())
                        .sum();
                    out.report(
                        Finding::new(
                            crate::lint::rule::CUT_OFF,
                            format!(
                                "the stream ended with neither a finish_reason nor `[DONE]` after {} event(s) ({text} characters of text){transport}: the answer is incomplete, yet many clients show it as if it were whole",
                                end.events
                            ),
                            loc,
                        )
                        .help(if breaks.iter().any(|r| r.contains("--read-timeout")) {
                            "the server (or a proxy) stopped sending mid-answer; check why it stalls (load, a hung upstream)"
                        } else {
                            "the server (or a proxy) closed the connection early; check its timeouts and error logs"
                        }),
                    );
                }
            }
            Ending::NoDone => {
                if !damaged {
                    let loc = out.at_end();
                    out.report(Finding::new(
                        crate::lint::rule::MISSING_DONE,
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
                // An unreadable event (invalid JSON, too large, events run
                // together) may have held the finish: that finding is the
                // cause.
                let unreadable = end.unread() > 0 || end.separator_errors > 0;
                if !drift && self.error_events == 0 && !unreadable {
                    for (i, loc) in missing {
                        out.report(Finding::new(
                            crate::lint::rule::MISSING_FINISH_REASON,
                            format!("`[DONE]` arrived but choice {i} never got a finish_reason: clients cannot tell a complete answer from a cut one"),
                            loc.unwrap_or_else(|| out.at_end()),
                        ));
                    }
                }
            }
            Ending::Complete | Ending::Failed => {}
        }
    }

    /// `choice-index`: indices past the request's `n` (one finding per
    /// index, with its chunk count), an index that drifts, a lone choice
    /// numbered other than 0; and `multiple-choices`.
    fn check_choice_indices(&mut self, out: &mut dyn Out) {
        let n = self.request.as_ref().and_then(|r| r.n).unwrap_or(1);
        for (idx, (loc, ev, pointer, chunks)) in std::mem::take(&mut self.chat.past_n) {
            let on = if chunks > 1 {
                format!(", on {chunks} chunks")
            } else {
                String::new()
            };
            out.report(
                Finding::new(
                    crate::lint::rule::CHOICE_INDEX,
                    format!("choice index {idx} but the request asked for n = {n} choice(s){on}"),
                    loc,
                )
                .event(ev)
                .pointer(pointer),
            );
            // The same cause as a lone choice numbered `idx` throughout.
            if self.chat.drift.last == Some(idx) && self.chat.drift.steps == 0 {
                self.chat.drift.start_loc = None;
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
                out.report(Finding::new(crate::lint::rule::CHOICE_INDEX, message, loc).event(ev));
            }
        } else if let (Some((loc, ev)), Some(n), 0, false) = (
            self.chat.drift.start_loc.clone(),
            self.chat.drift.last,
            self.chat.drift.steps,
            self.chat.drift.broken,
        ) {
            // One choice on every chunk, numbered other than 0 throughout.
            out.report(
                Finding::new(
                    crate::lint::rule::CHOICE_INDEX,
                    format!(
                        "the stream's only choice is numbered {n} on every chunk: with one choice the index is 0; the stream helpers of the record raised on it (they file each delta under `choices[index]`)"
                    ),
                    loc,
                )
                .event(ev),
            );
        }
        // Several choices, each with its own index (`n` > 1), and no index
        // fault: a client that reads `choices[0]` of every chunk joins them.
        let many = !self.drift_detected()
            && !self.chat.reported_fields.contains("choice-index:bad-index")
            && self.chat.choices.len() > 1;
        if many {
            let n = self.chat.choices.len();
            let second = self.chat.choices.values().nth(1);
            let (loc, ev) = second
                .map(|t| (t.first_loc.clone(), t.first_event))
                .unwrap_or_default();
            // The request asked for exactly them: the application reads
            // several. (Fewer than asked, or more, is no answer to it.)
            let asked = self
                .request
                .as_ref()
                .and_then(|r| r.n)
                .is_some_and(|want| want == n as u64);
            let f = Finding::new(
                crate::lint::rule::MULTIPLE_CHOICES,
                if asked {
                    format!(
                        "the stream carries {n} choices, as the request asked (`n` = {n}): clients that read `choices[0]` of every chunk join them into one text, so read each by its `index`"
                    )
                } else {
                    format!(
                        "the stream carries {n} choices, each in chunks of its own: clients that read `choices[0]` of every chunk join them into one text, those that keep choices apart by `index` read each whole (the table of `sselint rule multiple-choices`)"
                    )
                },
                loc.unwrap_or_else(|| out.at_end()),
            )
            .event(ev)
            .help("ask for one choice (`n` = 1, the default) unless the application reads each choice by its `index`");
            out.report(if asked { f.level(Severity::Info) } else { f });
        }
    }

    /// Content after a finish (held until now: info), `role-repeated`,
    /// `cumulative-content` and `repeated-answer`.
    fn check_sequences(&mut self, out: &mut dyn Out) {
        // Content after a finish that never came again: info (the clients of
        // the record read on and keep it).
        let held: Vec<Finding> = (self.chat.choices.values_mut())
            .filter_map(|t| t.after_finish.take())
            .map(|(f, _)| f.level(Severity::Info))
            .collect();
        for f in held {
            out.report(f);
        }
        let repeated: Option<(u64, u64, u64, Option<Location>)> = self
            .chat
            .choices
            .iter()
            .find(|(_, t)| t.role_deltas >= 2)
            .map(|(i, t)| (*i, t.role_deltas, t.deltas, t.first_role_loc.clone()));
        if let Some((i, n, m, loc)) = repeated {
            out.report(Finding::new(
                crate::lint::rule::ROLE_REPEATED,
                format!("choice {i} sends `role` on {n} of its {m} deltas (OpenAI sends it once, first); harmless for the clients of the record, which read it as one message"),
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
            out.report(
                Finding::new(
                    crate::lint::rule::CUMULATIVE_CONTENT,
                    format!("choice {i}'s content deltas repeat the text so far instead of adding to it: clients that append deltas show the text many times over"),
                    loc,
                )
                .event(ev),
            );
        }
        let repeated: Vec<(u64, Location, Option<u64>)> = self
            .chat
            .choices
            .iter()
            .filter_map(|(i, t)| t.repeat_loc.clone().map(|(l, e)| (*i, l, e)))
            .collect();
        for (i, loc, ev) in repeated {
            out.report(
                Finding::new(
                    crate::lint::rule::REPEATED_ANSWER,
                    format!("choice {i}'s last content delta repeats the whole text of the deltas before it: clients that append deltas show the answer twice"),
                    loc,
                )
                .event(ev)
                .help("send only the new text in each `delta.content`"),
            );
        }
    }

    /// `usage-missing`: the request asked for usage and a stream that ended
    /// (not cut) carried none.
    fn check_usage_asked(&mut self, ending: Ending, out: &mut dyn Out) {
        let asked_usage = self.request.as_ref().is_some_and(|r| r.include_usage);
        if asked_usage
            && self.answer.usage.is_none()
            && matches!(
                ending,
                Ending::Complete | Ending::NoDone | Ending::DoneWithoutFinish
            )
        {
            let loc = out.at_end();
            out.report(Finding::new(
                crate::lint::rule::USAGE_MISSING,
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
        let asked_several = self.request.as_ref().and_then(|r| r.n) > Some(1);
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
