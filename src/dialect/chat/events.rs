//! One event of a Chat stream, once the shared stage has framed it: what
//! its data is — `[DONE]` (`done-marker` when it is not exactly that),
//! data after `[DONE]` (`data-after-done`, judged at the end), an error
//! (`error-event`, `error-shape`), a named event that is not a chunk
//! (`event-type`), or a chunk, which goes on to the chunk rules (`chunk`,
//! by way of the typed fast path, `typed`).

use crate::checks::payload::error_message;
use crate::checks::{shorten, Linter};
use crate::lint::{Finding, Severity};
use crate::model::{self, Payload};
use crate::sse::Block;
use serde_json::Value;

impl Linter<'_> {
    /// Chat's rules on one event (a dispatched one, or the tail with
    /// `index == None`), after the shared framing rules; `separator` says
    /// the event's data is several JSON texts run together.
    pub(crate) fn check_chat_event(
        &mut self,
        block: &Block<'_>,
        data: &str,
        index: Option<u64>,
        event_type: &str,
        separator: bool,
    ) {
        // A named event whose data is neither a chunk nor an error: one
        // `event-type` finding, and none of the chunk rules.
        let foreign = event_type != "message" && is_foreign_event(data);
        self.check_event_type(block, event_type, index, foreign);
        if self.chat.done_event.is_some() {
            self.kind("after-done");
            self.chat.after_done += 1;
            if data.trim() != "[DONE]" {
                self.chat.after_done_data += 1;
            }
            if self.chat.first_after_done.is_none() {
                self.chat.first_after_done = Some(self.event_loc(block));
            }
            return;
        }
        if event_type == "error" {
            self.kind("error");
            self.error_events += 1;
            let loc = self.event_loc(block);
            let what = match model::decode(data) {
                Payload::Json(v) => error_message(v.get("error").unwrap_or(&v)),
                _ => shorten(data, 160),
            };
            self.report(
                Finding::new(
                    "error-event",
                    format!("an `event: error` arrived inside the stream: {what}"),
                    loc,
                )
                .event(index),
            );
            return;
        }
        if foreign {
            self.kind("foreign");
            return;
        }
        let Some(payload) = self.check_typed(block, data, index) else {
            return;
        };
        match payload {
            Payload::Done => {
                self.kind("done");
                self.answer.done = true;
                self.chat.done_event = Some(index.unwrap_or(self.events));
            }
            Payload::MalformedDone => {
                self.kind("done");
                let loc = self.event_loc(block);
                self.report(
                    Finding::new(
                        "done-marker",
                        format!(
                            "{:?} is meant as the end sentinel but is not exactly `[DONE]`: clients compare the string, miss the sentinel and raise on it as a chunk",
                            shorten(data, 40)
                        ),
                        loc,
                    )
                    .event(index)
                    .help("send exactly `data: [DONE]` followed by a blank line"),
                );
                self.answer.done = true;
                self.chat.done_event = Some(index.unwrap_or(self.events));
            }
            Payload::Invalid(invalid) => {
                self.kind("invalid");
                self.invalid_payloads += 1;
                self.report_invalid_json(block, data, index, &invalid, separator);
            }
            Payload::Json(v) => self.check_json(block, data, index, &v),
            Payload::LoneSurrogates(v) => {
                let at = data.find("\\ud").or_else(|| data.find("\\uD")).unwrap_or(0);
                let loc = match model::span::data_position(block, at) {
                    Some((line, s)) => self.loc(block, line, s, (s + 6).min(line.len)),
                    None => self.event_loc(block),
                };
                self.report(
                    Finding::new(
                        "invalid-json",
                        "a string holds a lone UTF-16 surrogate escape (half of a pair such as \\ud83d\\ude00, perhaps split across chunks): JavaScript's JSON.parse accepts it, strict parsers (Rust, Go, Java) reject the whole event; read here with U+FFFD in its place",
                        loc,
                    )
                    .level(Severity::Warning)
                    .event(index),
                );
                self.check_json(block, data, index, &v);
            }
        }
    }

    /// `event-type`: a named event in a Chat stream, whose events are
    /// unnamed (`foreign`: its data is not a chunk either, see
    /// [`is_foreign_event`]); once per type.
    fn check_event_type(
        &mut self,
        block: &Block<'_>,
        event_type: &str,
        index: Option<u64>,
        foreign: bool,
    ) {
        if self.is_chat()
            && self.unknown_events == 0
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
            let loc = block
                .lines
                .iter()
                .find(|l| block.name(l) == b"event")
                .map(|l| self.loc(block, l, 0, l.len))
                .unwrap_or_else(|| self.event_loc(block));
            // A named event whose data is not a chunk (a progress or
            // status event mixed into a chat stream) is one root cause:
            // observed, the clients that read every event as a chunk fail
            // on it (rules/observed.json, tests/cases/61).
            let finding = if foreign {
                Finding::new(
                    "event-type",
                    format!(
                        "a `{}` event whose data is not a chunk is mixed into the chat stream: clients that read every event as a chunk fail on it (reported at its first event; later events of this type are not repeated)",
                        shorten(event_type, 60)
                    ),
                    loc,
                )
                .level(Severity::Error)
            } else {
                Finding::new(
                    "event-type",
                    format!(
                        "event type `{}` instead of the default `message`: `EventSource.onmessage` never sees it, and clients that filter on the type drop it (reported at its first event; later events of this type are not repeated)",
                        shorten(event_type, 60)
                    ),
                    loc,
                )
            };
            self.report(finding.event(index));
        }
    }

    fn check_json(&mut self, block: &Block<'_>, data: &str, index: Option<u64>, v: &Value) {
        let Some(obj) = v.as_object() else {
            self.kind("invalid");
            let loc = self.event_loc(block);
            self.report(
                Finding::new(
                    "schema",
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
        let err_value = obj
            .get("error")
            .filter(|e| !e.is_null())
            .or(bare_error.then_some(v));
        if let Some(err) = err_value {
            self.kind("error");
            self.error_events += 1;
            let ptr = if bare_error { "" } else { "/error" };
            let loc = self.pointer_loc(block, data, ptr, !bare_error);
            self.report(
                Finding::new(
                    "error-event",
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
                self.report(
                    Finding::new(
                        "error-shape",
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
        self.check_chunk(block, data, index, v);
    }
}

/// Whether a named event's data is a JSON object that is neither a chunk
/// nor an error (no `choices`, no `error`): a foreign event such as
/// `{"type":"progress",…}`. A substring test, so it costs one scan.
fn is_foreign_event(data: &str) -> bool {
    let t = data.trim_start();
    t.starts_with('{') && !t.contains("\"choices\"") && !t.contains("\"error\"")
}
