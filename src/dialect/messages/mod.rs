//! Anthropic Messages streams (`POST /v1/messages` with `stream: true`):
//! the stream model that assembles the answer from named events.
//!
//! Events (Anthropic streaming guide, "Event types"): `message_start` (a
//! Message with empty `content` and its `usage`), then per content block
//! `content_block_start` (`index`, `content_block`), `content_block_delta`
//! (`text_delta`, `input_json_delta`, `thinking_delta`, `signature_delta`,
//! `citations_delta`) and `content_block_stop`; then `message_delta`
//! (`delta.stop_reason`, cumulative `usage`) and `message_stop`. `ping`
//! may come anywhere; `error` ends a failed stream.
//!
//! The answer is choice 0 of [`Answer`]: the text blocks joined in index
//! order, thinking joined as reasoning, each `tool_use` block as a tool
//! call (`id`, `name`, the `input_json_delta` fragments joined as its
//! arguments). Its `finish_reason` is the `stop_reason`; its usage is
//! `message_start`'s usage updated by each `message_delta`'s.

use super::{Event, Out, StreamEnd};
use crate::model::assembly::{Answer, Ending, Text, ToolCall};
use serde_json::Value;
use std::collections::BTreeMap;

/// One content block as assembled.
#[derive(Debug, Default, Clone)]
pub struct Block {
    /// `content_block.type` (`text`, `thinking`, `tool_use`, …).
    pub kind: String,
    /// Text (`text_delta`) or thinking (`thinking_delta`).
    pub text: Text,
    /// A `tool_use` block's `id` and `name`.
    pub id: Option<String>,
    /// See `id`.
    pub name: Option<String>,
    /// `input_json_delta.partial_json` fragments joined.
    pub input: String,
}

/// The Messages checker for one stream.
#[derive(Debug, Default)]
pub struct Checker {
    blocks: BTreeMap<u64, Block>,
    usage: Option<Value>,
    stop_reason: Option<String>,
    stopped: bool,
    errored: bool,
    last: String,
}

impl super::Checker for Checker {
    fn event(&mut self, ev: &Event<'_>, out: &mut dyn Out) {
        self.last.clear();
        let Some(v) = ev.json else {
            return;
        };
        let ty = v.get("type").and_then(Value::as_str).unwrap_or(ev.name);
        let index = v.get("index").and_then(Value::as_u64);
        match ty {
            "message_start" => {
                out.kind("role");
                if let Some(u) = v.pointer("/message/usage").filter(|u| u.is_object()) {
                    self.usage = Some(u.clone());
                }
            }
            "content_block_start" => {
                let cb = v.get("content_block").unwrap_or(&Value::Null);
                let b = self.blocks.entry(index.unwrap_or(0)).or_default();
                b.kind = cb
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                b.id = cb.get("id").and_then(Value::as_str).map(str::to_string);
                b.name = cb.get("name").and_then(Value::as_str).map(str::to_string);
                if let Some(t) = cb.get("text").and_then(Value::as_str) {
                    b.text.push(t);
                }
            }
            "content_block_delta" => {
                let d = v.get("delta").unwrap_or(&Value::Null);
                let b = self.blocks.entry(index.unwrap_or(0)).or_default();
                match d.get("type").and_then(Value::as_str) {
                    Some("text_delta") => {
                        out.kind("content");
                        if let Some(t) = d.get("text").and_then(Value::as_str) {
                            b.text.push(t);
                            self.last = format!("text {t:?}");
                        }
                    }
                    Some("thinking_delta") => {
                        out.kind("reasoning");
                        if let Some(t) = d.get("thinking").and_then(Value::as_str) {
                            b.text.push(t);
                        }
                    }
                    Some("input_json_delta") => {
                        out.kind("tool");
                        if let Some(t) = d.get("partial_json").and_then(Value::as_str) {
                            if b.input.len() + t.len() <= crate::model::assembly::MAX_TEXT_BYTES {
                                b.input.push_str(t);
                            }
                        }
                    }
                    _ => {}
                }
            }
            "message_delta" => {
                out.kind("finish");
                if let Some(r) = v.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(r.to_string());
                }
                if let Some(u) = v.get("usage").and_then(Value::as_object) {
                    let usage = self
                        .usage
                        .get_or_insert_with(|| Value::Object(Default::default()));
                    if let Some(o) = usage.as_object_mut() {
                        for (k, x) in u {
                            o.insert(k.clone(), x.clone());
                        }
                    }
                }
            }
            "message_stop" => {
                out.kind("done");
                self.stopped = true;
            }
            "error" => {
                out.kind("error");
                self.errored = true;
            }
            _ => {}
        }
    }

    fn finish(&mut self, end: StreamEnd, _out: &mut dyn Out) -> (Answer, Ending) {
        let mut answer = Answer {
            usage: self.usage.clone(),
            done: self.stopped,
            ..Answer::default()
        };
        let c = answer.choice(0);
        for b in self.blocks.values() {
            match b.kind.as_str() {
                "text" => c.text.push(&b.text.kept),
                "thinking" => c.reasoning.push(&b.text.kept),
                "tool_use" | "server_tool_use" => {
                    let index = c.tool_calls.len() as u64;
                    let arguments = if b.input.is_empty() {
                        "{}".to_string()
                    } else {
                        b.input.clone()
                    };
                    c.tool_calls.insert(
                        index,
                        ToolCall {
                            index,
                            id: b.id.clone(),
                            kind: Some("function".into()),
                            name: b.name.clone(),
                            arguments,
                        },
                    );
                }
                _ => {}
            }
        }
        c.finish_reason = self.stop_reason.clone();
        let ending = if self.errored {
            Ending::Failed
        } else if self.stopped && self.stop_reason.is_some() {
            Ending::Complete
        } else if self.stop_reason.is_some() {
            Ending::NoDone
        } else if end.events == 0 {
            Ending::Empty
        } else {
            Ending::CutOff
        };
        (answer, ending)
    }

    fn summary(&self) -> String {
        self.last.clone()
    }
}
