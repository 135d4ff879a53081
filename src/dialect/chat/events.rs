//! One event of a Chat stream, once the shared stage has framed it: what
//! its data is — `[DONE]` (`done-marker` when it is not exactly that),
//! data after `[DONE]` (`data-after-done`, judged at the end), an error
//! (`error-event`, `error-shape`), a named event that is not a chunk
//! (`event-type`), or a chunk, which goes on to the chunk rules (`chunk`,
//! by way of the typed fast path, `typed`).

use super::Checker;
use crate::dialect::{Event, Out};
use crate::lint::{Finding, Severity};
use crate::model::error_message;
use crate::model::shorten;
use crate::model::{self, Payload};
use serde_json::Value;

impl Checker {
    /// Chat's rules on one event (a dispatched one, or the tail with no
    /// index), after the shared framing rules; its data comes unparsed.
    pub(super) fn check_event(&mut self, ev: &Event<'_>, out: &mut dyn Out) {
        let (data, index, event_type) = (ev.data, ev.index, ev.name);
        self.summary.clear();
        // A named event whose data is neither a chunk nor an error: one
        // `event-type` finding, and none of the chunk rules.
        let foreign = event_type != "message" && is_foreign_event(data);
        self.check_event_type(out, event_type, index, foreign);
        if self.chat.done {
            out.kind("after-done");
            self.chat.after_done += 1;
            if data.trim() != "[DONE]" {
                self.chat.after_done_data += 1;
            }
            if self.chat.first_after_done.is_none() {
                self.chat.first_after_done = Some(out.at_event());
            }
            return;
        }
        if event_type == "error" {
            out.kind("error");
            self.error_events += 1;
            let loc = out.at_event();
            let what = match model::decode(data) {
                Payload::Json(v) => error_message(v.get("error").unwrap_or(&v)),
                _ => shorten(data, 160),
            };
            out.report(
                Finding::new(
                    crate::lint::rule::ERROR_EVENT,
                    format!("an `event: error` arrived inside the stream: {what}"),
                    loc,
                )
                .event(index),
            );
            return;
        }
        if foreign {
            out.kind("foreign");
            return;
        }
        // What the typed fast path's parse found, or a parse of its own.
        let payload = self.parsed.take().unwrap_or_else(|| model::decode(data));
        match payload {
            Payload::Done => {
                out.kind("done");
                self.answer.done = true;
                self.chat.done = true;
            }
            Payload::MalformedDone => {
                out.kind("done");
                let loc = out.at_event();
                out.report(
                    Finding::new(
                        crate::lint::rule::DONE_MARKER,
                        format!(
                            "{:?} is meant as the end sentinel but is not exactly `[DONE]`: clients compare the string, find no match and raise on it as a chunk",
                            shorten(data, 40)
                        ),
                        loc,
                    )
                    .event(index)
                    .help("send exactly `data: [DONE]` followed by a blank line"),
                );
                self.answer.done = true;
                self.chat.done = true;
            }
            Payload::Invalid(invalid) => {
                self.chat.unread += 1;
                out.invalid_json(&invalid);
            }
            Payload::Json(v) => self.check_json(out, index, &v),
            Payload::LoneSurrogates(v) => {
                let at = data.find("\\ud").or_else(|| data.find("\\uD")).unwrap_or(0);
                let loc = out.at_data(at, 6);
                out.report(
                    Finding::new(
                        crate::lint::rule::INVALID_JSON,
                        "a string holds a lone UTF-16 surrogate escape (half of a pair such as \\ud83d\\ude00, perhaps split across chunks): JavaScript's JSON.parse accepts it, strict parsers (Rust, Go, Java) reject the whole event; read here with U+FFFD in its place",
                        loc,
                    )
                    .level(Severity::Warning)
                    .event(index),
                );
                self.check_json(out, index, &v);
            }
        }
    }

    /// `event-type`: a named event in a Chat stream, whose events are
    /// unnamed (`foreign`: its data is not a chunk either, see
    /// [`is_foreign_event`]); once per type.
    fn check_event_type(
        &mut self,
        out: &mut dyn Out,
        event_type: &str,
        index: Option<u64>,
        foreign: bool,
    ) {
        if !self.skipped
            && event_type != "message"
            && event_type != "error"
            && !self.chat.reported_event_types.contains(event_type)
        {
            // Bounded: past 64 distinct types each is reported (and the
            // per-rule limit counts the rest).
            if self.chat.reported_event_types.len() < 64 {
                self.chat
                    .reported_event_types
                    .insert(event_type.to_string());
            }
            let loc = out.at_name();
            // A named event whose data is not a chunk (a progress or
            // status event mixed into a chat stream) is one root cause:
            // observed, the clients that read every event as a chunk fail
            // on it (rules/observed.json, tests/cases/61).
            let finding = if foreign {
                Finding::new(
                    crate::lint::rule::EVENT_TYPE,
                    format!(
                        "a `{}` event whose data is not a chunk is mixed into the chat stream: clients that read every event as a chunk fail on it (reported at its first event; later events of this type are not repeated)",
                        shorten(event_type, 60)
                    ),
                    loc,
                )
                .level(Severity::Error)
            } else {
                Finding::new(
                    crate::lint::rule::EVENT_TYPE,
                    format!(
                        "event type `{}` instead of the default `message`: the spec dispatches it under that name, so an `EventSource.onmessage` handler is not called for it (reported at its first event; later events of this type are not repeated)",
                        shorten(event_type, 60)
                    ),
                    loc,
                )
            };
            out.report(finding.event(index));
        }
    }

    fn check_json(&mut self, out: &mut dyn Out, index: Option<u64>, v: &Value) {
        let Some(obj) = v.as_object() else {
            out.kind("invalid");
            let loc = out.at_event();
            out.report(
                Finding::new(
                    crate::lint::rule::SCHEMA,
                    format!(
                        "the event's data is a JSON {}, not a chunk object: clients read `choices` from it and fail",
                        model::json_type(v)
                    ),
                    loc,
                )
                .level(Severity::Error)
                .event(index)
                .pointer(""),
            );
            return;
        };
        // Older vLLM sent errors as `{"object": "error", "message": …}`.
        let bare_error = obj.get("object").and_then(Value::as_str) == Some("error")
            && obj.get("message").is_some()
            && !obj.contains_key("choices");
        // `"error": null` beside choices: no error, but a client that asks
        // whether the member is there takes the chunk for one (observed).
        if obj.get("error").is_some_and(Value::is_null)
            && obj.contains_key("choices")
            && !self.chat.error_null_reported
        {
            self.chat.error_null_reported = true;
            let loc = out.at_pointer("/error", true);
            out.report(
                Finding::new(
                    crate::lint::rule::ERROR_NULL,
                    "the chunk carries `\"error\": null` beside its choices: a client that takes any chunk with an `error` member for an error skips the chunk and what it carries (the table shows one ending with another text); reported at the first such chunk",
                    loc,
                )
                .event(index)
                .pointer("/error"),
            );
        }
        let err_value = obj
            .get("error")
            .filter(|e| !e.is_null())
            .or(bare_error.then_some(v));
        if let Some(err) = err_value {
            out.kind("error");
            self.error_events += 1;
            let ptr = if bare_error { "" } else { "/error" };
            let loc = out.at_pointer(ptr, !bare_error);
            out.report(
                Finding::new(
                    crate::lint::rule::ERROR_EVENT,
                    format!(
                        "an error arrived inside the stream: {}; the answer failed (`sselint rule error-event` shows what each client did)",
                        error_message(err)
                    ),
                    loc.clone(),
                )
                .event(index)
                .pointer(ptr),
            );
            let shaped = err
                .as_object()
                .is_some_and(|o| o.get("message").is_some_and(Value::is_string));
            if !shaped {
                out.report(
                    Finding::new(
                        crate::lint::rule::ERROR_SHAPE,
                        format!(
                            "the error is a JSON {} without a string `message`: clients that read `error.message` show nothing useful",
                            if err.is_object() { "object" } else { model::json_type(err) }
                        ),
                        loc,
                    )
                    .event(index)
                    .pointer(ptr),
                );
            }
            if !obj.contains_key("choices") {
                return;
            }
        }
        self.check_chunk(out, index, v);
    }
}

/// Whether a named event's data is a JSON object that is neither a chunk
/// nor an error (no `choices`, no `error`): a foreign event such as
/// `{"type":"progress",…}`. A substring test, so it costs one scan.
fn is_foreign_event(data: &str) -> bool {
    let t = data.trim_start();
    t.starts_with('{') && !t.contains("\"choices\"") && !t.contains("\"error\"")
}
