//! OpenAI Responses streams (`POST /v1/responses` with `stream: true`):
//! the stream model that assembles the answer from `response.*` events.
//!
//! Events (OpenAI `openapi.yaml`, `ResponseStreamEvent`): a lifecycle
//! (`response.created`, `response.in_progress`, then one terminal event:
//! `response.completed`, `response.incomplete` or `response.failed`),
//! output items (`response.output_item.added` / `.done`, keyed by
//! `output_index`), content parts (`response.content_part.added` / `.done`,
//! keyed by `content_index`), and deltas (`response.output_text.delta`,
//! `response.refusal.delta`, `response.function_call_arguments.delta`,
//! `response.reasoning_text.delta`, `response.reasoning_summary_text.delta`).
//! An `error` event carries its fields at the top level (the schema) or in
//! an `error` object (what OpenAI sends).
//!
//! The answer is choice 0 of [`Answer`]: the text of every `message` item
//! in output order, refusals, reasoning, and each `function_call` item as a
//! tool call (`call_id`, `name`, `arguments`). Its `finish_reason` is the
//! terminal status (`completed`, `incomplete`, `failed`).

use super::{Event, Out, StreamEnd};
use crate::model::assembly::{Answer, Ending, Text, ToolCall};
use serde_json::Value;
use std::collections::BTreeMap;

/// One output item as assembled.
#[derive(Debug, Default, Clone)]
pub struct Item {
    /// `item.type` (`message`, `function_call`, `reasoning`, …).
    pub kind: String,
    /// `item.id`.
    pub id: Option<String>,
    /// Text per `content_index` (`output_text` deltas).
    pub parts: BTreeMap<u64, Text>,
    /// Refusal deltas joined.
    pub refusal: Option<Text>,
    /// Reasoning text and summary deltas joined.
    pub reasoning: Text,
    /// A `function_call` item's `call_id`, `name` and arguments.
    pub call_id: Option<String>,
    /// See `call_id`.
    pub name: Option<String>,
    /// See `call_id`.
    pub arguments: String,
}

/// The Responses checker for one stream.
#[derive(Debug, Default)]
pub struct Checker {
    items: BTreeMap<u64, Item>,
    /// The terminal event's type and its `response` object.
    terminal: Option<(String, Value)>,
    errored: bool,
    last: String,
}

impl Checker {
    fn item(&mut self, v: &Value) -> Option<&mut Item> {
        let i = v.get("output_index").and_then(Value::as_u64)?;
        Some(self.items.entry(i).or_default())
    }
}

impl super::Checker for Checker {
    fn event(&mut self, ev: &Event<'_>, out: &mut dyn Out) {
        self.last.clear();
        let Some(v) = ev.json else {
            return;
        };
        let ty = v.get("type").and_then(Value::as_str).unwrap_or(ev.name);
        let s = |k: &str| v.get(k).and_then(Value::as_str);
        match ty {
            "response.output_item.added" | "response.output_item.done" => {
                if let Some(item) = v.get("item") {
                    let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
                    let id = item.get("id").and_then(Value::as_str).map(str::to_string);
                    let call_id = item
                        .get("call_id")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    let name = item.get("name").and_then(Value::as_str).map(str::to_string);
                    if let Some(it) = self.item(v) {
                        if it.kind.is_empty() {
                            it.kind = kind.to_string();
                        }
                        it.id = it.id.take().or(id);
                        it.call_id = it.call_id.take().or(call_id);
                        it.name = it.name.take().or(name);
                    }
                }
            }
            "response.output_text.delta" => {
                out.kind("content");
                let ci = v.get("content_index").and_then(Value::as_u64).unwrap_or(0);
                if let (Some(d), Some(it)) = (s("delta"), self.item(v)) {
                    it.parts.entry(ci).or_default().push(d);
                    self.last = format!("text {d:?}");
                }
            }
            "response.refusal.delta" => {
                out.kind("content");
                if let (Some(d), Some(it)) = (s("delta"), self.item(v)) {
                    it.refusal.get_or_insert_with(Text::default).push(d);
                }
            }
            "response.reasoning_text.delta" | "response.reasoning_summary_text.delta" => {
                out.kind("reasoning");
                if let (Some(d), Some(it)) = (s("delta"), self.item(v)) {
                    it.reasoning.push(d);
                }
            }
            "response.function_call_arguments.delta" => {
                out.kind("tool");
                if let (Some(d), Some(it)) = (s("delta"), self.item(v)) {
                    if it.arguments.len() + d.len() <= crate::model::assembly::MAX_TEXT_BYTES {
                        it.arguments.push_str(d);
                    }
                }
            }
            "response.completed" | "response.incomplete" | "response.failed" => {
                out.kind("finish");
                let r = v.get("response").cloned().unwrap_or(Value::Null);
                self.terminal = Some((ty.to_string(), r));
            }
            "error" => {
                out.kind("error");
                self.errored = true;
            }
            _ => {}
        }
    }

    fn finish(&mut self, end: StreamEnd, _out: &mut dyn Out) -> (Answer, Ending) {
        let mut answer = Answer::default();
        let c = answer.choice(0);
        for it in self.items.values() {
            for t in it.parts.values() {
                c.text.push(&t.kept);
            }
            if let Some(r) = &it.refusal {
                c.refusal.get_or_insert_with(Text::default).push(&r.kept);
            }
            c.reasoning.push(&it.reasoning.kept);
            if it.kind == "function_call" {
                let index = c.tool_calls.len() as u64;
                c.tool_calls.insert(
                    index,
                    ToolCall {
                        index,
                        id: it.call_id.clone(),
                        kind: Some("function".into()),
                        name: it.name.clone(),
                        arguments: it.arguments.clone(),
                    },
                );
            }
        }
        let ending = match &self.terminal {
            Some((ty, r)) => {
                let status = r
                    .get("status")
                    .and_then(Value::as_str)
                    .unwrap_or(ty.trim_start_matches("response."));
                c.finish_reason = Some(status.to_string());
                answer.usage = r.get("usage").filter(|u| !u.is_null()).cloned();
                if ty == "response.failed" {
                    Ending::Failed
                } else {
                    Ending::Complete
                }
            }
            None if self.errored => Ending::Failed,
            None if end.events == 0 => Ending::Empty,
            None => Ending::CutOff,
        };
        (answer, ending)
    }

    fn summary(&self) -> String {
        self.last.clone()
    }
}
