//! Payload rules: what an event's data is (`invalid-json`, `done-marker`,
//! `data-after-done`, `error-event`, `error-shape`). A chunk goes on to the
//! chunk rules.

use super::framing::shorten;
use super::Linter;
use crate::lint::{Finding, Severity};
use crate::model::{self, Payload};
use crate::sse::Block;
use serde_json::Value;

impl Linter<'_> {
    /// Everything about one event (a dispatched one, or the tail with
    /// `index == None`).
    pub(super) fn check_event(
        &mut self,
        block: &Block<'_>,
        data: &str,
        index: Option<u64>,
        event_type: &str,
    ) {
        self.event_kind.clear();
        self.event_summary.clear();
        if let Some(f) = self.fields_seen.as_mut() {
            f.clear();
        }
        let route = self.route(block, data, index, event_type);
        match route {
            super::dialect::Route::Chat => {}
            super::dialect::Route::Unknown => {
                self.check_event_framing(block, event_type, index, false);
                return;
            }
            super::dialect::Route::Dialect => {
                self.check_event_framing(block, event_type, index, false);
                self.dialect_event(block, data, index, event_type);
                return;
            }
        }
        // A named event whose data is neither a chunk nor an error: one
        // `event-type` finding, and none of the chunk rules.
        let foreign = event_type != "message" && super::framing::is_foreign_event(data);
        let separator = self.check_event_framing(block, event_type, index, foreign);
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
                            "{:?} is meant as the end sentinel but is not exactly `[DONE]`: clients compare the string and then fail to parse it as JSON",
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

    /// `invalid-json` at the byte where the parser gave up.
    pub(super) fn report_invalid_json(
        &mut self,
        block: &Block<'_>,
        data: &str,
        index: Option<u64>,
        invalid: &model::InvalidJson,
        separator: bool,
    ) {
        if self.out.count_only("invalid-json", None) {
            return;
        }
        let (message, at) = (invalid.message(), invalid.at(data));
        let loc = match model::span::data_position(block, at) {
            Some((line, s)) => self.loc(block, line, s, (s + 1).min(line.len)),
            None => self.event_loc(block),
        };
        let why = if separator {
            " (several events run together)".to_string()
        } else {
            String::new()
        };
        self.report(
            Finding::new(
                "invalid-json",
                format!("the event's data is neither JSON nor `[DONE]`{why}: {message}; clients that parse every event fail here"),
                loc,
            )
            .event(index),
        );
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

/// "message (type, code)" of an error value.
pub(super) fn error_message(err: &Value) -> String {
    match err {
        Value::String(s) => format!("{:?}", shorten(s, 160)),
        Value::Object(o) => {
            let msg = o
                .get("message")
                .and_then(Value::as_str)
                .map(|s| format!("{:?}", shorten(s, 160)))
                .unwrap_or_else(|| "(no message)".to_string());
            let mut extra = Vec::new();
            for k in ["type", "code"] {
                match o.get(k) {
                    Some(Value::String(s)) => extra.push(format!("{k} {s}")),
                    Some(Value::Number(n)) => extra.push(format!("{k} {n}")),
                    _ => {}
                }
            }
            if extra.is_empty() {
                msg
            } else {
                format!("{msg} ({})", extra.join(", "))
            }
        }
        other => shorten(&other.to_string(), 160),
    }
}
