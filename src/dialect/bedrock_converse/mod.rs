//! Amazon Bedrock's `ConverseStream` (`POST /model/MODEL/converse-stream`),
//! which rides on the AWS event-stream transport
//! ([`crate::transport::eventstream`]): each frame's `:event-type` names
//! the event and its payload is that event's JSON: `messageStart`
//! (`role`), `contentBlockStart` (a tool call's `toolUse` `toolUseId` and
//! `name`), `contentBlockDelta` (`text`, `toolUse.input` as a piece of
//! JSON text, `reasoningContent.text`), `contentBlockStop`, `messageStop`
//! (`stopReason`) and `metadata` (`usage`, `metrics`). An exception comes
//! as a frame whose `:message-type` is `exception` (its name in
//! `:exception-type`, `{"message": …}` as payload), or `error` (with
//! `:error-code` and `:error-message`), under the HTTP 200 already sent
//! (the Bedrock API reference, `ConverseStreamOutput`; botocore's
//! `bedrock-runtime` service model; `reference/transports.md` §5-6).
//!
//! The checker assembles choice 0 (the text, the reasoning, each tool
//! call with its input put together by `contentBlockIndex`, the
//! `stopReason`) and the `metadata` usage. Unknown keys (the `p` padding
//! Bedrock adds to every event) and unknown event types are read past, as
//! the SDKs drop them.

pub mod api;
mod fast;
pub mod words;

use fast::Delta;

use crate::dialect::{Event, Hints, Out, StreamEnd};
use crate::lint::rule;
use crate::lint::{Finding, Location, RuleId};
use crate::model::assembly::{Answer, Ending, ToolCall};
use crate::model::shorten;
use serde_json::Value;
use std::collections::BTreeMap;

/// One content block, by its `contentBlockIndex`.
#[derive(Debug, Default, Clone)]
struct Block {
    /// A tool call's id and name (`contentBlockStart.start.toolUse`).
    tool: Option<(Option<String>, Option<String>)>,
    /// Its input's pieces, joined.
    input: String,
    /// Where its first input piece was, for `converse-tool-input`.
    first_input: Option<(Location, Option<u64>)>,
}

/// One ConverseStream's checks.
#[derive(Debug, Default)]
pub struct Checker {
    answer: Answer,
    blocks: BTreeMap<u64, Block>,
    /// Frames read as events (not faults, not exceptions).
    events: u64,
    stop: Option<String>,
    exception: Option<String>,
    /// A frame the transport could not read.
    faults: u64,
    rejected: u64,
    summary: String,
    hints: Hints,
    /// The fast path's buffer for a delta's text with escapes (reused).
    unescaped: String,
    /// Frames the fast path took.
    typed_frames: u64,
}

/// The `:message-type` of a frame that is no event (`exception`,
/// `error`); `None` for an event (or a message with no such header).
pub(crate) fn exception_kind(out: &dyn Out) -> Option<String> {
    out.header(":message-type")
        .filter(|k| *k != "event")
        .map(str::to_string)
}

/// `converse-max-tokens`: `messageStop` says the token budget cut the
/// answer (`stopReason` `max_tokens`), a warning as a budget cut is in
/// every dialect.
fn report_max_tokens(ev: &Event<'_>, out: &mut dyn Out) {
    if out.muted(rule::CONVERSE_MAX_TOKENS.name()) {
        return;
    }
    let loc = out.at_pointer("/stopReason", false);
    out.report(
        Finding::new(
            rule::CONVERSE_MAX_TOKENS,
            "`stopReason` is `max_tokens`: the token budget (`inferenceConfig.maxTokens`) ran out, so the answer stops where the budget did",
            loc,
        )
        .event(ev.index)
        .pointer("/stopReason")
        .help("raise `inferenceConfig.maxTokens`, or ask for a shorter answer"),
    );
}

impl crate::dialect::Checker for Checker {
    fn takes_unparsed(&mut self, ev: &Event<'_>, out: &mut dyn Out) -> bool {
        let Some(kind) = exception_kind(out) else {
            return false;
        };
        self.summary.clear();
        self.exception_frame(ev, &kind, out);
        true
    }

    fn fast(&mut self, ev: &Event<'_>, out: &mut dyn Out) -> bool {
        self.fast_delta(ev, out)
    }

    fn typed_chunks(&self) -> u64 {
        self.typed_frames
    }

    fn event(&mut self, ev: &Event<'_>, out: &mut dyn Out) {
        self.summary.clear();
        if let Some(kind) = exception_kind(out) {
            self.exception_frame(ev, &kind, out);
            return;
        }
        self.events += 1;
        let Some(v) = ev.json else {
            return;
        };
        match ev.name {
            "messageStart" => out.kind("role"),
            "contentBlockStart" => self.block_start(v, out),
            "contentBlockDelta" => self.block_delta(ev, v, out),
            "contentBlockStop" => out.kind("block"),
            "messageStop" => {
                out.kind("finish");
                if let Some(r) = v.get("stopReason").and_then(Value::as_str) {
                    self.stop = Some(r.to_string());
                    self.summary = format!("stopReason {}", shown(r));
                    if r == "max_tokens" {
                        report_max_tokens(ev, out);
                    }
                }
            }
            "metadata" => {
                if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
                    out.kind("usage");
                    self.answer.usage = Some(u.clone());
                }
            }
            _ => out.kind("unknown"),
        }
    }

    fn fault(&mut self, index: Option<u64>, what: &str, out: &mut dyn Out) {
        self.faults += 1;
        if self.faults == 1 {
            report_fault(rule::CONVERSE_FRAME, index, what, out);
        }
    }

    fn finish(&mut self, end: StreamEnd<'_>, out: &mut dyn Out) -> (Answer, Ending) {
        self.finish_tools(out);
        let ending = self.finish_ending(&end, out);
        self.answer.chunks_with_choices = self.events;
        self.answer.done = self.stop.is_some();
        (self.answer.clone(), ending)
    }

    fn summary(&self) -> String {
        self.summary.clone()
    }

    fn answer(&self) -> Option<&Answer> {
        Some(&self.answer)
    }

    fn hints(&self) -> Hints {
        Hints {
            dialect: Some(crate::vocab::Dialect::BedrockConverse),
            ..self.hints.clone()
        }
    }

    fn rejected(&mut self, _index: Option<u64>) {
        self.rejected += 1;
    }
}

impl Checker {
    /// An `exception` or `error` frame: the stream failed.
    fn exception_frame(&mut self, ev: &Event<'_>, kind: &str, out: &mut dyn Out) {
        let e = Exception::of(ev, kind, out);
        self.summary = e.summary();
        if self.exception.is_none() {
            e.report(rule::CONVERSE_EXCEPTION, ev.index, out);
        }
        self.exception = Some(e.name);
    }

    fn block_start(&mut self, v: &Value, out: &mut dyn Out) {
        out.kind("block");
        let index = v
            .get("contentBlockIndex")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        if let Some(t) = v.pointer("/start/toolUse") {
            out.kind("tool");
            let id = t
                .get("toolUseId")
                .and_then(Value::as_str)
                .map(str::to_string);
            let name = t.get("name").and_then(Value::as_str).map(str::to_string);
            self.summary = format!("tool call {}", shown(name.as_deref().unwrap_or("")));
            self.blocks.entry(index).or_default().tool = Some((id, name));
        }
    }

    fn block_delta(&mut self, ev: &Event<'_>, v: &Value, out: &mut dyn Out) {
        let index = v
            .get("contentBlockIndex")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let Some(d) = v.get("delta") else {
            return;
        };
        if let Some(t) = d.get("text").and_then(Value::as_str) {
            self.add_delta(ev, index, Delta::Text, t, out);
        }
        if let Some(t) = d.pointer("/reasoningContent/text").and_then(Value::as_str) {
            self.add_delta(ev, index, Delta::Reasoning, t, out);
        }
        if let Some(t) = d.pointer("/toolUse/input").and_then(Value::as_str) {
            self.add_delta(ev, index, Delta::ToolInput, t, out);
        }
    }

    /// Adds one piece of a `contentBlockDelta` (`t`, of `kind`, to block
    /// `index`) to the answer. Shared by the general path and the fast
    /// path.
    fn add_delta(&mut self, ev: &Event<'_>, index: u64, kind: Delta, t: &str, out: &mut dyn Out) {
        let summaries = out.summaries();
        match kind {
            Delta::Text => {
                out.kind("content");
                self.answer.choice(0).text.push(t);
                if summaries {
                    self.summary = format!("{:?}", shorten(t, 60));
                }
            }
            Delta::Reasoning => {
                out.kind("reasoning");
                self.answer.choice(0).reasoning.push(t);
                if summaries {
                    self.summary = format!("reasoning {:?}", shorten(t, 50));
                }
            }
            Delta::ToolInput => {
                out.kind("tool");
                let b = self.blocks.entry(index).or_default();
                if b.first_input.is_none() {
                    b.first_input = Some((out.at_pointer("/delta/toolUse/input", false), ev.index));
                }
                b.input.push_str(t);
                if summaries {
                    self.summary = format!("tool input {:?}", shorten(t, 50));
                }
            }
        }
    }

    /// The tool calls, by block index; `converse-tool-input` for the
    /// first whose input is not JSON.
    fn finish_tools(&mut self, out: &mut dyn Out) {
        let mut reported = false;
        for (i, b) in &self.blocks {
            let Some((id, name)) = &b.tool else {
                continue;
            };
            let c = self.answer.choice(0);
            let n = c.tool_calls.len() as u64;
            c.tool_calls.insert(
                n,
                ToolCall {
                    index: *i,
                    id: id.clone(),
                    name: name.clone(),
                    arguments: b.input.clone(),
                    ..ToolCall::default()
                },
            );
            let input = if b.input.trim().is_empty() {
                "{}"
            } else {
                b.input.as_str()
            };
            if reported || serde_json::from_str::<Value>(input).is_ok() {
                continue;
            }
            if self.faults + self.rejected > 0 || out.muted(rule::CONVERSE_TOOL_INPUT.name()) {
                continue;
            }
            reported = true;
            let (loc, index) = b
                .first_input
                .clone()
                .unwrap_or_else(|| (out.at_end(), None));
            out.report(
                Finding::new(
                    rule::CONVERSE_TOOL_INPUT,
                    format!(
                        "the input of tool call `{}` (block {i}) is not JSON once its pieces are joined: {}",
                        shown(name.as_deref().unwrap_or("")),
                        shown(&shorten(&b.input, 80))
                    ),
                    loc,
                )
                .event(index)
                .help("send `toolUse.input` pieces that join into one JSON object"),
            );
        }
    }

    /// `converse-cut-off`: no `messageStop` and no exception before the
    /// end. Returns the ending.
    fn finish_ending(&mut self, end: &StreamEnd<'_>, out: &mut dyn Out) -> Ending {
        if let Some(stop) = &self.stop {
            self.answer.choice(0).finish_reason = Some(stop.clone());
        }
        if self.exception.is_some() {
            return Ending::Failed;
        }
        if self.stop.is_some() {
            return Ending::Complete;
        }
        let t = out.transport();
        let failed = t.status.is_some_and(|s| !(200..300).contains(&s));
        if failed || end.damaged || self.faults + self.rejected > 0 || end.invalid_payloads > 0 {
            return if self.events == 0 {
                Ending::Empty
            } else {
                Ending::CutOff
            };
        }
        if !out.muted(rule::CONVERSE_CUT_OFF.name()) {
            let what = if self.events == 0 {
                "the stream has no frame at all".to_string()
            } else {
                format!(
                    "the stream ended after {} frame(s) without a `messageStop`{}",
                    self.events,
                    end.broke()
                )
            };
            let loc = out.at_end();
            out.report(
                Finding::new(
                    rule::CONVERSE_CUT_OFF,
                    format!("{what}: nothing says the answer is complete, and there is no stopReason"),
                    loc,
                )
                .help("end every stream with `messageStop` (and `metadata`), or an exception frame when generation fails"),
            );
        }
        if self.events == 0 {
            Ending::Empty
        } else {
            Ending::CutOff
        }
    }
}

/// `rule` (a Bedrock dialect's frame rule) for a frame its transport
/// could not read: `what` says why, at the bytes at fault. Shared by
/// ConverseStream and Invoke, whose frames fail alike.
pub(crate) fn report_fault(rule: RuleId, index: Option<u64>, what: &str, out: &mut dyn Out) {
    report_at_frame(
        rule,
        index,
        format!("a frame of the event stream cannot be read: {what}"),
        "send each event as one whole frame with both CRCs; a gateway must not write other bytes (an SSE line, a log message) into an event-stream body",
        out,
    );
}

/// `rule` at the current frame (its payload, or the bytes at fault),
/// unless it is off.
fn report_at_frame(
    rule: RuleId,
    index: Option<u64>,
    message: String,
    help: &str,
    out: &mut dyn Out,
) {
    if out.muted(rule.name()) {
        return;
    }
    let loc = out.at_event();
    out.report(Finding::new(rule, message, loc).event(index).help(help));
}

/// An `exception` or `error` frame of a Bedrock stream: its
/// `:message-type`, its name (`:exception-type`, or `:error-code`) and its
/// message (the payload's `message`, or `:error-message`).
pub(crate) struct Exception {
    /// `exception` or `error`.
    pub kind: String,
    /// `throttlingException`, `modelStreamErrorException`, …
    pub name: String,
    /// What it says; empty when it says nothing.
    pub text: String,
}

impl Exception {
    /// The exception frame at hand, whose `:message-type` is `kind`;
    /// marks the event an `error` for `inspect`.
    pub fn of(ev: &Event<'_>, kind: &str, out: &mut dyn Out) -> Exception {
        out.kind("error");
        let name = out
            .header(":exception-type")
            .or(out.header(":error-code"))
            .unwrap_or(ev.name)
            .to_string();
        // The payload is the exception's own, read here: `{"message": …}`
        // for an `exception`, empty for an `error`.
        let parsed = match ev.json {
            Some(_) => None,
            None => crate::model::json_object(ev.data),
        };
        let text = ev
            .json
            .or(parsed.as_ref())
            .and_then(|v| v.get("message"))
            .and_then(Value::as_str)
            .or(out.header(":error-message"))
            .unwrap_or("")
            .to_string();
        Exception {
            kind: kind.to_string(),
            name,
            text,
        }
    }

    /// What `inspect` shows for it.
    pub fn summary(&self) -> String {
        format!("{} {}: {}", self.kind, shown(&self.name), shown(&self.text))
    }

    /// `rule` (a Bedrock dialect's exception rule) at the frame's payload.
    pub fn report(&self, rule: RuleId, index: Option<u64>, out: &mut dyn Out) {
        let said = if self.text.is_empty() {
            "(no message)".to_string()
        } else {
            format!("{:?}", shorten(&self.text, 160))
        };
        report_at_frame(
            rule,
            index,
            format!(
                "an {} frame `{}` under the HTTP status already sent: {said}; the answer so far is not the answer",
                self.kind,
                shown(&self.name),
            ),
            "find the cause (throttling, a model error) in the service's logs; a gateway must pass the exception on as one, not end the stream as if it were complete",
            out,
        );
    }
}

/// `s` shortened, control characters escaped.
pub(crate) fn shown(s: &str) -> String {
    crate::lint::printable(&shorten(s, 60))
}
