//! OpenAI's Realtime API (`wss://…/v1/realtime`), which rides on a
//! WebSocket ([`crate::transport::websocket`]): one JSON event a message,
//! several responses on one socket, each opened by `response.created` and
//! always ended by `response.done` with its `status` (`completed`,
//! `cancelled`, `incomplete`, `failed`) and `usage` (shared reference
//! transports.md §2; openai-python `src/openai/types/realtime/` for the
//! GA shapes, `types/beta/realtime/` for the beta ones).
//!
//! The pipeline (`pipeline/socket.rs`) routes each message
//! ([`socket::route`]) and hands each response's events to a checker of
//! its own, plus the session's events that come while it runs
//! (`rate_limits.updated`, `conversation.item.*`). The checker reads:
//!
//! - text answers: `response.output_text.delta` / `.done` (GA),
//!   `response.text.delta` / `.done` (beta);
//! - audio answers: the transcript (`response.output_audio_transcript.*`,
//!   beta `response.audio_transcript.*`) as the answer's transcript, and
//!   the audio deltas (`response.output_audio.delta`, beta
//!   `response.audio.delta`) counted and checked as base64, never kept or
//!   printed;
//! - function calls: `response.function_call_arguments.delta` / `.done`
//!   by `item_id`, with the call's `call_id` and `name`;
//! - `response.done`: the status and its details, and the usage;
//! - `error` events inside a response, and `rate_limits.updated`.
//!
//! Both trees' event names are read; which one a response used is kept,
//! and each finding about a named event quotes the name it saw
//! (`realtime-event-names` says when the beta names come, or both).

pub mod api;
mod socket;
pub mod words;

use crate::dialect::{Event, Hints, Out, StreamEnd};
use crate::lint::{rule, Finding, Severity};
use crate::model::assembly::{Answer, Ending, ToolCall};
use crate::model::{json_type, shorten};
use base64::Engine as _;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// `response.done`'s statuses (`RealtimeResponse.status`; `in_progress`
/// is the status of `response.created`).
pub const STATUSES: &[&str] = &[
    "completed",
    "cancelled",
    "incomplete",
    "failed",
    "in_progress",
];

/// The beta names of the output events and their GA names (shared
/// reference transports.md §2.2).
pub const RENAMED: &[(&str, &str)] = &[
    ("response.text.delta", "response.output_text.delta"),
    ("response.text.done", "response.output_text.done"),
    ("response.audio.delta", "response.output_audio.delta"),
    ("response.audio.done", "response.output_audio.done"),
    (
        "response.audio_transcript.delta",
        "response.output_audio_transcript.delta",
    ),
    (
        "response.audio_transcript.done",
        "response.output_audio_transcript.done",
    ),
];

/// Which tree an event name is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tree {
    Beta,
    Ga,
}

impl Tree {
    fn of(ty: &str) -> Option<Tree> {
        if RENAMED.iter().any(|(b, _)| *b == ty) {
            Some(Tree::Beta)
        } else if RENAMED.iter().any(|(_, g)| *g == ty)
            || ty == "conversation.item.added"
            || ty == "conversation.item.done"
        {
            Some(Tree::Ga)
        } else {
            None
        }
    }

    fn name(self) -> &'static str {
        match self {
            Tree::Beta => "beta",
            Tree::Ga => "GA",
        }
    }
}

/// What a streamed piece is part of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Text,
    Transcript,
    Arguments,
}

impl Kind {
    /// The key of the `.done` event that repeats the whole value.
    fn done_key(self) -> &'static str {
        match self {
            Kind::Text => "text",
            Kind::Transcript => "transcript",
            Kind::Arguments => "arguments",
        }
    }
}

/// One Realtime response's checks.
#[derive(Debug, Default)]
pub struct Checker {
    /// Read as one response on a socket (`pipeline/socket.rs`), not as a
    /// stream of events with no socket around them.
    socket: bool,
    answer: Answer,
    /// Events read as JSON objects.
    objects: u64,
    created: bool,
    /// `response.done`'s status, once it came.
    done: Option<String>,
    /// An `error` event's message, once one came.
    error: Option<String>,
    /// The first event name of each tree seen, and where.
    first_beta: Option<String>,
    first_ga: Option<String>,
    names_reported: bool,
    /// The streamed pieces so far, by kind, item and content index.
    pieces: BTreeMap<(Kind, String, u64), String>,
    /// The tool call (index into choice 0's calls) of each function-call
    /// item.
    calls: BTreeMap<String, u64>,
    /// Audio deltas, and the bytes they decode to.
    audio_deltas: u64,
    audio_bytes: u64,
    audio_reported: bool,
    /// Reusable buffer for decoding audio.
    audio_buf: Vec<u8>,
    rate_limits_reported: bool,
    rejected: u64,
    summary: String,
}

impl crate::dialect::Checker for Checker {
    fn event(&mut self, ev: &Event<'_>, out: &mut dyn Out) {
        self.summary.clear();
        let Some(o) = ev.json.and_then(Value::as_object) else {
            return;
        };
        let Some(ty) = o.get("type").and_then(Value::as_str) else {
            return;
        };
        self.objects += 1;
        self.note_tree(ev, ty, out);
        match ty {
            "response.created" => {
                self.created = true;
                out.kind("start");
            }
            "response.output_text.delta" | "response.text.delta" => self.delta(o, Kind::Text, out),
            "response.output_audio_transcript.delta" | "response.audio_transcript.delta" => {
                self.delta(o, Kind::Transcript, out)
            }
            "response.function_call_arguments.delta" => self.delta(o, Kind::Arguments, out),
            "response.output_text.done" | "response.text.done" => {
                self.piece_done(ev, ty, o, Kind::Text, out)
            }
            "response.output_audio_transcript.done" | "response.audio_transcript.done" => {
                self.piece_done(ev, ty, o, Kind::Transcript, out)
            }
            "response.function_call_arguments.done" => {
                self.piece_done(ev, ty, o, Kind::Arguments, out);
                self.arguments_done(ev, ty, o, out);
            }
            "response.output_audio.delta" | "response.audio.delta" => self.audio(ev, ty, o, out),
            "response.output_item.added" | "response.output_item.done" => self.item(o, out),
            "response.done" => self.response_done(ev, o, out),
            "error" => self.error_event(ev, o, out),
            "rate_limits.updated" => self.rate_limits(ev, o, out),
            _ => out.kind("event"),
        }
    }

    fn finish(&mut self, end: StreamEnd<'_>, out: &mut dyn Out) -> (Answer, Ending) {
        self.answer.chunks_with_choices = self.objects;
        self.answer.done = self.done.is_some();
        let ending = match self.done.as_deref() {
            Some("failed") => Ending::Failed,
            Some(_) => Ending::Complete,
            None if self.error.is_some() => Ending::Failed,
            // The socket closed (the pipeline's `ws-closed-mid-response`
            // says so), the capture is damaged, or a message of it was
            // unreadable (its finding is the cause).
            None if end.damaged || self.rejected + end.unread() > 0 => Ending::CutOff,
            None => {
                self.report_done_missing(&end, out);
                if self.objects == 0 {
                    Ending::Empty
                } else {
                    Ending::CutOff
                }
            }
        };
        (self.answer.clone(), ending)
    }

    fn on_socket(&mut self) {
        self.socket = true;
    }

    fn summary(&self) -> String {
        self.summary.clone()
    }

    fn answer(&self) -> Option<&Answer> {
        Some(&self.answer)
    }

    fn hints(&self) -> Hints {
        Hints {
            dialect: Some(crate::vocab::Dialect::Realtime),
            ..Hints::default()
        }
    }

    fn rejected(&mut self, _index: Option<u64>) {
        self.rejected += 1;
    }
}

impl Checker {
    /// `realtime-done-missing`: the events end with no `response.done`,
    /// and no socket's end says why (a socket's close is
    /// `ws-closed-mid-response`, reported in its place).
    fn report_done_missing(&mut self, end: &StreamEnd<'_>, out: &mut dyn Out) {
        if out.muted(rule::REALTIME_DONE_MISSING.name()) {
            return;
        }
        let what = if self.objects == 0 {
            "the capture holds no Realtime event at all: no response, so no answer".to_string()
        } else {
            format!(
                "the events end after {} event(s) without `response.done`{}: the response may be cut, and a client that waits for `response.done` waits for ever",
                self.objects,
                end.broke()
            )
        };
        let outside = if self.socket {
            ""
        } else {
            " (read with no socket around the events: a relay's copy of them)"
        };
        let loc = out.at_end();
        out.report(
            Finding::new(rule::REALTIME_DONE_MISSING, format!("{what}{outside}"), loc)
                .help("end every response with `response.done`, whatever its status; capture the socket whole (a HAR's socket entry, or `record`)"),
        );
    }

    /// Keeps the first event name of each tree; `realtime-event-names`
    /// when a response's events come in the beta names, or in both.
    fn note_tree(&mut self, ev: &Event<'_>, ty: &str, out: &mut dyn Out) {
        let Some(tree) = Tree::of(ty) else {
            return;
        };
        let slot = match tree {
            Tree::Beta => &mut self.first_beta,
            Tree::Ga => &mut self.first_ga,
        };
        if slot.is_some() {
            return;
        }
        *slot = Some(ty.to_string());
        if self.names_reported || out.muted(rule::REALTIME_EVENT_NAMES.name()) {
            return;
        }
        let (what, level) = match (&self.first_beta, &self.first_ga) {
            (Some(b), Some(g)) => (
                format!(
                    "this response mixes both trees' event names: `{}` ({}) here, `{}` ({}) before it; a client of either tree misses the other's events, so it loses part of the answer",
                    printable(ty, 60),
                    tree.name(),
                    printable(if tree == Tree::Beta { g } else { b }, 60),
                    if tree == Tree::Beta { "GA" } else { "beta" },
                ),
                Severity::Error,
            ),
            (Some(b), None) => (
                format!(
                    "the event is named `{}`, the beta name (GA: `{}`): the beta shape is retired, and a client written for the GA events does not read it as part of the answer",
                    printable(b, 60),
                    RENAMED.iter().find(|(x, _)| x == b).map_or("", |(_, g)| g)
                ),
                Severity::Info,
            ),
            _ => return,
        };
        self.names_reported = true;
        let loc = out.at_pointer("/type", false);
        out.report(
            Finding::new(rule::REALTIME_EVENT_NAMES, what, loc)
                .event(ev.index)
                .pointer("/type")
                .level(level)
                .help("send the GA names (`response.output_text.delta`, `response.output_audio.delta`, `response.output_audio_transcript.delta`) to GA clients, and one tree's names throughout a session"),
        );
    }

    /// A text, transcript or argument delta: added to choice 0 and to
    /// its piece.
    fn delta(&mut self, o: &Map<String, Value>, kind: Kind, out: &mut dyn Out) {
        let Some(d) = o.get("delta").and_then(Value::as_str) else {
            out.kind("event");
            return;
        };
        let item = o.get("item_id").and_then(Value::as_str).unwrap_or("");
        let part = o.get("content_index").and_then(Value::as_u64).unwrap_or(0);
        self.pieces
            .entry((kind, item.to_string(), part))
            .or_default()
            .push_str(d);
        let c = self.answer.choice(0);
        match kind {
            Kind::Text => {
                c.text.push(d);
                out.kind("content");
            }
            Kind::Transcript => {
                c.transcript.push(d);
                out.kind("content");
            }
            Kind::Arguments => {
                let index = self.call_index(item, o);
                if let Some(call) = self.answer.choice(0).tool_calls.get_mut(&index) {
                    call.push_arguments(d);
                }
                out.kind("tool");
            }
        }
        if out.summaries() {
            let what = match kind {
                Kind::Text => "text",
                Kind::Transcript => "transcript",
                Kind::Arguments => "arguments",
            };
            self.summary = format!("{what} {}", printable(&format!("{d:?}"), 80));
        }
    }

    /// The tool call of function-call item `item`, made when its first
    /// event comes.
    fn call_index(&mut self, item: &str, o: &Map<String, Value>) -> u64 {
        if let Some(&i) = self.calls.get(item) {
            return i;
        }
        let c = self.answer.choice(0);
        let index = c.tool_calls.len() as u64;
        c.tool_calls.insert(
            index,
            ToolCall {
                index,
                id: o.get("call_id").and_then(Value::as_str).map(str::to_string),
                name: o.get("name").and_then(Value::as_str).map(str::to_string),
                kind: Some("function".into()),
                ..ToolCall::default()
            },
        );
        self.calls.insert(item.to_string(), index);
        index
    }

    /// `response.output_item.added` / `.done`: a function call's id and
    /// name (and, when done, its arguments where no delta brought them).
    fn item(&mut self, o: &Map<String, Value>, out: &mut dyn Out) {
        let Some(item) = o
            .get("item")
            .and_then(Value::as_object)
            .filter(|i| i.get("type").and_then(Value::as_str) == Some("function_call"))
        else {
            out.kind("item");
            return;
        };
        let Some(id) = item.get("id").and_then(Value::as_str) else {
            return;
        };
        let index = self.call_index(id, item);
        let call = self.answer.choice(0).tool_calls.get_mut(&index);
        if let Some(call) = call {
            if call.name.is_none() {
                call.name = item.get("name").and_then(Value::as_str).map(str::to_string);
            }
            if call.id.is_none() {
                call.id = item
                    .get("call_id")
                    .and_then(Value::as_str)
                    .map(str::to_string);
            }
            if call.arguments.is_empty() {
                if let Some(a) = item.get("arguments").and_then(Value::as_str) {
                    call.arguments = a.to_string();
                }
            }
        }
        out.kind("tool");
    }

    /// A `.done` event that repeats a piece whole:
    /// `realtime-delta-mismatch` when it is not what the deltas built.
    fn piece_done(
        &mut self,
        ev: &Event<'_>,
        ty: &str,
        o: &Map<String, Value>,
        kind: Kind,
        out: &mut dyn Out,
    ) {
        out.kind(if kind == Kind::Arguments {
            "tool"
        } else {
            "content"
        });
        let key = kind.done_key();
        let Some(whole) = o.get(key).and_then(Value::as_str) else {
            return;
        };
        let item = o.get("item_id").and_then(Value::as_str).unwrap_or("");
        let part = o.get("content_index").and_then(Value::as_u64).unwrap_or(0);
        let built = self.pieces.remove(&(kind, item.to_string(), part));
        // A `.done` with no delta before it brings the value alone.
        let Some(built) = built else {
            let c = self.answer.choice(0);
            match kind {
                Kind::Text => c.text.push(whole),
                Kind::Transcript => c.transcript.push(whole),
                Kind::Arguments => {}
            }
            return;
        };
        if built == whole || out.muted(rule::REALTIME_DELTA_MISMATCH.name()) {
            return;
        }
        let pointer = format!("/{key}");
        let loc = out.at_pointer(&pointer, false);
        out.report(
            Finding::new(
                rule::REALTIME_DELTA_MISMATCH,
                format!(
                    "`{}` says the {key} is {} ({} characters), but its deltas built {} ({} characters): a client that shows the deltas and one that keeps the done value end with different answers",
                    printable(ty, 60),
                    printable(&format!("{:?}", shorten(whole, 60)), 80),
                    whole.chars().count(),
                    printable(&format!("{:?}", shorten(&built, 60)), 80),
                    built.chars().count()
                ),
                loc,
            )
            .event(ev.index)
            .pointer(pointer)
            .help("send in the `.done` event exactly what the deltas joined give"),
        );
    }

    /// `response.function_call_arguments.done`: the call's name and its
    /// arguments, which must be JSON (`realtime-arguments-json`).
    fn arguments_done(
        &mut self,
        ev: &Event<'_>,
        ty: &str,
        o: &Map<String, Value>,
        out: &mut dyn Out,
    ) {
        let item = o.get("item_id").and_then(Value::as_str).unwrap_or("");
        let index = self.call_index(item, o);
        let args = o.get("arguments").and_then(Value::as_str);
        if let Some(call) = self.answer.choice(0).tool_calls.get_mut(&index) {
            if call.name.is_none() {
                call.name = o.get("name").and_then(Value::as_str).map(str::to_string);
            }
            if let Some(a) = args {
                call.arguments = a.to_string();
            }
        }
        if out.summaries() {
            let name = o.get("name").and_then(Value::as_str).unwrap_or("");
            self.summary = format!("call {}", printable(name, 40));
        }
        let fault = match o.get("arguments") {
            Some(Value::String(a)) => match serde_json::from_str::<Value>(a) {
                Ok(Value::Object(_)) => None,
                Ok(v) => Some(format!(
                    "are a JSON {}, not an object: a client that passes them to the tool as keyword arguments fails",
                    json_type(&v)
                )),
                Err(e) => Some(format!(
                    "are not JSON ({e}): {}; the client cannot call the tool",
                    printable(&format!("{:?}", shorten(a, 60)), 80)
                )),
            },
            Some(v) => Some(format!("are a JSON {}, not a string of JSON text", json_type(v))),
            None => Some("are missing: the event has no `arguments`".to_string()),
        };
        let Some(fault) = fault else {
            return;
        };
        if out.muted(rule::REALTIME_ARGUMENTS_JSON.name()) {
            return;
        }
        let loc = out.at_pointer("/arguments", false);
        out.report(
            Finding::new(
                rule::REALTIME_ARGUMENTS_JSON,
                format!(
                    "the function call's arguments in `{}` {fault}",
                    printable(ty, 60)
                ),
                loc,
            )
            .event(ev.index)
            .pointer("/arguments")
            .help("send the arguments as a string holding one JSON object"),
        );
    }

    /// An audio delta: counted and decoded as base64 (standard alphabet,
    /// padded), never kept; `realtime-audio-base64` for the first that
    /// does not decode.
    fn audio(&mut self, ev: &Event<'_>, ty: &str, o: &Map<String, Value>, out: &mut dyn Out) {
        out.kind("audio");
        self.audio_deltas += 1;
        let fault = match o.get("delta") {
            Some(Value::String(d)) => {
                self.audio_buf.clear();
                match base64::engine::general_purpose::STANDARD.decode_vec(d, &mut self.audio_buf) {
                    Ok(()) if self.audio_buf.is_empty() => {
                        Some("is empty: an audio delta carries at least one sample".to_string())
                    }
                    Ok(()) => {
                        self.audio_bytes += self.audio_buf.len() as u64;
                        None
                    }
                    Err(e) => Some(format!(
                        "is not base64 ({e}; {} characters): the audio cannot be decoded and played",
                        d.chars().count()
                    )),
                }
            }
            Some(v) => Some(format!("is a JSON {}, not a base64 string", json_type(v))),
            None => Some("is missing".to_string()),
        };
        if out.summaries() {
            self.summary = format!("audio, {} bytes so far", self.audio_bytes);
        }
        let Some(fault) = fault else {
            return;
        };
        if self.audio_reported || out.muted(rule::REALTIME_AUDIO_BASE64.name()) {
            return;
        }
        self.audio_reported = true;
        let loc = out.at_pointer("/delta", false);
        out.report(
            Finding::new(
                rule::REALTIME_AUDIO_BASE64,
                format!(
                    "the audio `delta` of `{}` (audio delta {}) {fault}",
                    printable(ty, 60),
                    self.audio_deltas
                ),
                loc,
            )
            .event(ev.index)
            .pointer("/delta")
            .help("send each audio delta as standard, padded base64 of whole samples in the session's output audio format"),
        );
    }

    /// `response.done`: the status, its details and the usage.
    fn response_done(&mut self, ev: &Event<'_>, o: &Map<String, Value>, out: &mut dyn Out) {
        out.kind("finish");
        let resp = o.get("response").and_then(Value::as_object);
        let status = resp.and_then(|r| r.get("status"));
        let status_str = status.and_then(Value::as_str).unwrap_or("");
        self.done = Some(status_str.to_string());
        if !status_str.is_empty() {
            self.answer.choice(0).finish_reason = Some(status_str.to_string());
        }
        let usage = resp.and_then(|r| r.get("usage")).filter(|u| !u.is_null());
        if let Some(u) = usage {
            self.answer.usage = Some(u.clone());
        }
        if out.summaries() {
            let total = usage
                .and_then(|u| u.get("total_tokens"))
                .map_or(String::new(), |t| format!(", {t} tokens"));
            self.summary = format!("done: {}{total}", printable(status_str, 20));
        }
        self.check_status(ev, status, resp, out);
        self.check_usage(ev, status_str, usage, out);
    }

    /// `realtime-response-status`: a response that did not complete.
    fn check_status(
        &mut self,
        ev: &Event<'_>,
        status: Option<&Value>,
        resp: Option<&Map<String, Value>>,
        out: &mut dyn Out,
    ) {
        let details = resp.and_then(|r| r.get("status_details"));
        let reason = details
            .and_then(|d| d.get("reason"))
            .and_then(Value::as_str)
            .map(|r| format!(" (reason `{}`)", printable(r, 40)))
            .unwrap_or_default();
        let (what, level) = match status {
            Some(Value::String(s)) => match s.as_str() {
                "completed" => return,
                // The `error` event before it is the cause, said once.
                "failed" if self.error.is_some() => return,
                "failed" => {
                    let err = details
                        .and_then(|d| d.get("error"))
                        .map(|e| {
                            let code = e.get("code").or(e.get("type")).and_then(Value::as_str);
                            format!(" (error `{}`)", printable(code.unwrap_or("?"), 60))
                        })
                        .unwrap_or_default();
                    (
                        format!("the response failed{err}: what came is not the answer"),
                        Severity::Error,
                    )
                }
                "incomplete" => (
                    format!("the response is incomplete{reason}: the answer stops where the budget or the filter stopped it"),
                    Severity::Warning,
                ),
                "cancelled" => (
                    format!("the response was cancelled{reason}: the answer stops where the cancel came"),
                    Severity::Info,
                ),
                "in_progress" => (
                    "`response.done` says the response is still `in_progress`: a client that reads the status does not know it ended".to_string(),
                    Severity::Error,
                ),
                other => (
                    format!(
                        "the status is `{}`, none of the API's (completed, cancelled, incomplete, failed): clients that switch on it treat it as none of them",
                        printable(other, 40)
                    ),
                    Severity::Error,
                ),
            },
            None => (
                "`response.done` has no `response.status`: nothing says whether the response completed".to_string(),
                Severity::Error,
            ),
            Some(v) => (
                format!("`response.status` is a JSON {}, not a string", json_type(v)),
                Severity::Error,
            ),
        };
        if out.muted(rule::REALTIME_RESPONSE_STATUS.name()) {
            return;
        }
        let loc = out.at_pointer("/response/status", false);
        out.report(
            Finding::new(rule::REALTIME_RESPONSE_STATUS, what, loc)
                .event(ev.index)
                .pointer("/response/status")
                .level(level)
                .help("see `response.status_details` for why; raise `max_output_tokens`, or handle a cancelled or failed response as no answer"),
        );
    }

    /// `realtime-usage`: a response that ran has its `usage`, and its
    /// total is input plus output.
    fn check_usage(
        &mut self,
        ev: &Event<'_>,
        status: &str,
        usage: Option<&Value>,
        out: &mut dyn Out,
    ) {
        let (pointer, what) = match usage {
            None if status == "completed" || status == "incomplete" => (
                "/response",
                "`response.done` has no `usage`: the tokens the response cost are unknown, and clients that add them count zero".to_string(),
            ),
            None => return,
            Some(u) => {
                let n = |k: &str| u.get(k).and_then(Value::as_u64);
                match (n("input_tokens"), n("output_tokens"), n("total_tokens")) {
                    (Some(i), Some(o), Some(t)) if i + o == t => return,
                    (Some(i), Some(o), Some(t)) => (
                        "/response/usage/total_tokens",
                        format!("`usage.total_tokens` is {t}, but `input_tokens` {i} and `output_tokens` {o} add up to {}", i + o),
                    ),
                    _ => (
                        "/response/usage",
                        format!(
                            "`usage` lacks one of `input_tokens`, `output_tokens` and `total_tokens` as an integer: {}",
                            printable(&shorten(&u.to_string(), 80), 100)
                        ),
                    ),
                }
            }
        };
        if out.muted(rule::REALTIME_USAGE.name()) {
            return;
        }
        let loc = out.at_pointer(pointer, false);
        out.report(
            Finding::new(rule::REALTIME_USAGE, what, loc)
                .event(ev.index)
                .pointer(pointer)
                .help("send `response.usage` with `input_tokens`, `output_tokens` and their sum as `total_tokens`"),
        );
    }

    /// An `error` event inside a response: `realtime-error-event`.
    fn error_event(&mut self, ev: &Event<'_>, o: &Map<String, Value>, out: &mut dyn Out) {
        out.kind("error");
        let err = o.get("error");
        let msg = err
            .and_then(|e| e.get("message"))
            .and_then(Value::as_str)
            .unwrap_or("(no message)");
        let code = err
            .and_then(|e| e.get("code").filter(|c| !c.is_null()).or(e.get("type")))
            .and_then(Value::as_str)
            .unwrap_or("?");
        if out.summaries() {
            self.summary = format!("error {}: {}", printable(code, 40), printable(msg, 60));
        }
        let first = self.error.is_none();
        self.error = Some(msg.to_string());
        if !first || out.muted(rule::REALTIME_ERROR_EVENT.name()) {
            return;
        }
        let shape = match err {
            Some(Value::Object(e)) if e.get("message").is_some_and(Value::is_string) => {
                String::new()
            }
            Some(_) => "; its `error` has no string `message`, which clients print".to_string(),
            None => "; it has no `error` object, where clients read the message".to_string(),
        };
        let loc = out.at_event();
        out.report(
            Finding::new(
                rule::REALTIME_ERROR_EVENT,
                format!(
                    "an `error` event inside the response (`{}`): {:?}{shape}: what the response gives is not to be trusted",
                    printable(code, 60),
                    shorten(msg, 160)
                ),
                loc,
            )
            .event(ev.index)
            .help("the error names the client event that caused it (`error.event_id`): fix that request"),
        );
    }

    /// `rate_limits.updated`: `rate_limits` is a list of `{name, limit,
    /// remaining, reset_seconds}`, `remaining` at most `limit`.
    fn rate_limits(&mut self, ev: &Event<'_>, o: &Map<String, Value>, out: &mut dyn Out) {
        out.kind("rate-limits");
        let fault = match o.get("rate_limits") {
            Some(Value::Array(list)) => list.iter().enumerate().find_map(|(i, l)| {
                let at = format!("/rate_limits/{i}");
                let Some(l) = l.as_object() else {
                    return Some((
                        at,
                        format!("entry {i} is a JSON {}, not an object", json_type(l)),
                    ));
                };
                if !l.get("name").is_some_and(Value::is_string) {
                    return Some((
                        format!("{at}/name"),
                        format!("entry {i} has no string `name`"),
                    ));
                }
                for k in ["limit", "remaining"] {
                    if l.get(k).and_then(Value::as_u64).is_none() {
                        return Some((
                            format!("{at}/{k}"),
                            format!("entry {i} has no `{k}` as a non-negative integer"),
                        ));
                    }
                }
                if !l.get("reset_seconds").is_some_and(Value::is_number) {
                    return Some((
                        format!("{at}/reset_seconds"),
                        format!("entry {i} has no `reset_seconds` as a number"),
                    ));
                }
                let (lim, rem) = (l["limit"].as_u64()?, l["remaining"].as_u64()?);
                (rem > lim).then(|| {
                    (
                        format!("{at}/remaining"),
                        format!("entry {i} has `remaining` {rem} over its `limit` {lim}"),
                    )
                })
            }),
            Some(v) => Some((
                "/rate_limits".to_string(),
                format!("`rate_limits` is a JSON {}, not a list", json_type(v)),
            )),
            None => Some((
                "/rate_limits".to_string(),
                "the event has no `rate_limits`".to_string(),
            )),
        };
        let Some((pointer, what)) = fault else {
            return;
        };
        if self.rate_limits_reported || out.muted(rule::REALTIME_RATE_LIMITS.name()) {
            return;
        }
        self.rate_limits_reported = true;
        let loc = out.at_pointer(&pointer, false);
        out.report(
            Finding::new(
                rule::REALTIME_RATE_LIMITS,
                format!("`rate_limits.updated`: {what}; a client that paces itself by the limits reads none"),
                loc,
            )
            .event(ev.index)
            .pointer(pointer)
            .help("send each limit as `{\"name\": \"requests\"|\"tokens\", \"limit\": N, \"remaining\": N, \"reset_seconds\": S}`"),
        );
    }
}

/// `s` shortened to `n` characters, control characters escaped.
fn printable(s: &str, n: usize) -> String {
    crate::lint::printable(&shorten(s, n))
}
