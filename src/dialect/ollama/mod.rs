//! Ollama's native streaming API (`POST /api/chat` and `/api/generate`),
//! which rides on the NDJSON transport ([`crate::transport::ndjson`]):
//! each line one JSON object, `done: false` until the last line, which has
//! `done: true`, the `done_reason` and the counts (`prompt_eval_count`,
//! `eval_count`, the durations in nanoseconds). A chat line carries
//! `message` (`role`, `content`, `thinking`, `tool_calls` whose
//! `function.arguments` is a JSON object); a generate line carries
//! `response` and `thinking`. An error after the first byte is one more
//! line `{"error": "…"}` under the HTTP 200 already sent, and the stream
//! ends (`ollama/ollama` `docs/api.md`, `docs/api/errors.mdx`,
//! `server/routes.go` `streamResponse`; `reference/transports.md` §4).
//!
//! The checker reads each line's data itself ([`Checker::reads_data`]):
//! a line that is not JSON, or is blank, is this dialect's finding
//! (`ollama-invalid-line`), since its clients differ on it. It assembles
//! choice 0 (text, thinking, tool calls, `done_reason`) and the counts as
//! the usage.
//!
//! What it is not for: Ollama's OpenAI-compatible `/v1/chat/completions`
//! (the Chat dialect with the `ollama` profile).

pub mod api;
mod fast;
pub mod words;

use crate::dialect::{Event, Hints, Out, StreamEnd};
use crate::lint::rule;
use crate::lint::{Finding, Location, Severity};
use crate::model::assembly::{Answer, Ending, ToolCall};
use crate::model::{json_type, shorten};
use serde_json::{Map, Value};

/// The `done_reason` values the server sends (`llm/server.go`
/// `DoneReason.String`; `load` and `unload` answer an empty prompt that
/// loads or unloads the model, `server/routes.go`).
pub const DONE_REASONS: &[&str] = &["stop", "length", "load", "unload"];

/// The counts of the last line, in the order the API documents them.
pub const COUNTS: &[&str] = &[
    "total_duration",
    "load_duration",
    "prompt_eval_count",
    "prompt_eval_duration",
    "eval_count",
    "eval_duration",
];

/// Which endpoint a stream answers, told by its lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Endpoint {
    /// `/api/chat`: lines with `message`.
    Chat,
    /// `/api/generate`: lines with `response`.
    Generate,
}

/// One Ollama stream's checks.
#[derive(Debug, Default)]
pub struct Checker {
    endpoint: Option<Endpoint>,
    answer: Answer,
    /// Lines read as JSON objects.
    objects: u64,
    /// The `done: true` line: its index and where it is.
    done: Option<(u64, Location)>,
    /// Lines after the `done: true` line, and whether any added to the
    /// answer; the first one's place.
    after_done: u64,
    after_done_adds: bool,
    first_after_done: Option<(Location, Option<u64>)>,
    /// The error line, when one came.
    error: Option<String>,
    /// Lines that were not JSON objects (reported as they came).
    invalid: u64,
    /// Lines rejected before the checker (past the size limit).
    rejected: u64,
    /// Findings said once per stream.
    shape_reported: bool,
    tool_reported: bool,
    /// What the last line added, for `inspect`.
    summary: String,
    hints: Hints,
    /// The fast path's buffers for a text and a thinking with escapes
    /// (reused).
    unescaped: (String, String),
    /// Lines the fast path took.
    typed_lines: u64,
}

impl crate::dialect::Checker for Checker {
    fn reads_data(&self) -> bool {
        true
    }

    fn event(&mut self, ev: &Event<'_>, out: &mut dyn Out) {
        self.summary.clear();
        let Some(o) = self.parse(ev, out) else {
            return;
        };
        self.objects += 1;
        if self.hints.model.is_none() {
            self.hints.model = o.get("model").and_then(Value::as_str).map(str::to_string);
        }
        if let Some(err) = o.get("error").filter(|e| !e.is_null()) {
            self.error_line(ev, err, out);
            return;
        }
        self.check_shape(ev, &o, out);
        let adds = self.apply(ev, &o, out);
        if self.done.is_some() {
            self.after_done += 1;
            self.after_done_adds |= adds;
            if self.first_after_done.is_none() {
                self.first_after_done = Some((out.at_event(), ev.index));
            }
            out.kind("after-done");
            return;
        }
        if o.get("done") == Some(&Value::Bool(true)) {
            self.done_line(ev, &o, out);
        }
    }

    fn finish(&mut self, end: StreamEnd<'_>, out: &mut dyn Out) -> (Answer, Ending) {
        self.finish_after_done(out);
        let ending = self.finish_ending(&end, out);
        self.answer.chunks_with_choices = self.objects;
        self.answer.done = self.done.is_some();
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
            dialect: Some(crate::vocab::Dialect::Ollama),
            ..self.hints.clone()
        }
    }

    fn rejected(&mut self, _index: Option<u64>) {
        self.rejected += 1;
    }

    fn fast(&mut self, ev: &Event<'_>, out: &mut dyn Out) -> bool {
        self.fast_line(ev, out)
    }

    fn typed_chunks(&self) -> u64 {
        self.typed_lines
    }
}

impl Checker {
    /// The line as a JSON object; a blank line, a line that is not JSON
    /// or a JSON value that is no object is `ollama-invalid-line`.
    fn parse(&mut self, ev: &Event<'_>, out: &mut dyn Out) -> Option<Map<String, Value>> {
        let what = if ev.data.trim().is_empty() {
            "a blank line: a client that decodes every line raises on it, one that skips what it cannot decode reads on".to_string()
        } else {
            match serde_json::from_str::<Value>(ev.data) {
                Ok(Value::Object(o)) => return Some(o),
                Ok(v) => format!(
                    "a JSON {}, not an object: a client that validates each line raises on it, one that reads fields finds none",
                    json_type(&v)
                ),
                Err(e) => format!(
                    "not JSON ({e}): a client that decodes every line raises and ends the stream here, one that skips bad lines shows the answer without it"
                ),
            }
        };
        self.invalid += 1;
        out.kind("invalid");
        // One cause, one finding: the first such line (the server, or a
        // proxy, writes something else than NDJSON).
        if self.invalid == 1 && !out.muted(rule::OLLAMA_INVALID_LINE.name()) {
            let loc = out.at_event();
            out.report(
                Finding::new(
                    rule::OLLAMA_INVALID_LINE,
                    format!("the line is {what}"),
                    loc,
                )
                .event(ev.index)
                .help("write one JSON object per line, each ended by a newline, and nothing else"),
            );
        }
        None
    }

    /// `{"error": …}`: the server gave up after the stream started.
    fn error_line(&mut self, ev: &Event<'_>, err: &Value, out: &mut dyn Out) {
        out.kind("error");
        let text = match err {
            Value::String(s) => s.clone(),
            Value::Object(e) => e
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| err.to_string(), str::to_string),
            other => other.to_string(),
        };
        self.summary = format!("error: {}", printable_shorten(&text, 60));
        let first = self.error.is_none();
        self.error = Some(text.clone());
        if first && !out.muted(rule::OLLAMA_ERROR_LINE.name()) {
            let loc = out.at_pointer("/error", false);
            out.report(
                Finding::new(
                    rule::OLLAMA_ERROR_LINE,
                    format!(
                        "an error line under the HTTP status already sent: {:?}; the answer so far is not the answer, and no `done: true` line follows",
                        shorten(&text, 160)
                    ),
                    loc,
                )
                .event(ev.index)
                .pointer("/error")
                .help("a failure before any line is better sent as a non-2xx status with a JSON error body; after the first line, this error line is the API's way, and nothing may follow it"),
            );
        }
    }

    /// `ollama-line-shape`: the fields every client reads.
    fn check_shape(&mut self, ev: &Event<'_>, o: &Map<String, Value>, out: &mut dyn Out) {
        if self.endpoint.is_none() {
            self.endpoint = if o.contains_key("message") {
                Some(Endpoint::Chat)
            } else if o.contains_key("response") {
                Some(Endpoint::Generate)
            } else {
                None
            };
        }
        let fault = match o.get("done") {
            None => Some((
                "/done".to_string(),
                "has no `done`: clients end the stream and read the finish at `done: true`"
                    .to_string(),
                Severity::Error,
            )),
            Some(Value::Bool(_)) => None,
            Some(v) => Some((
                "/done".to_string(),
                format!("has `done` as a JSON {}, not a boolean", json_type(v)),
                Severity::Error,
            )),
        };
        let fault = fault.or_else(|| match self.endpoint {
            Some(Endpoint::Chat) => match o.get("message") {
                None => Some((
                    "/message".to_string(),
                    "is a chat line without `message`: a client that validates each line raises on it".to_string(),
                    Severity::Error,
                )),
                Some(Value::Object(m)) => match m.get("content") {
                    None | Some(Value::String(_)) => None,
                    Some(v) => Some((
                        "/message/content".to_string(),
                        format!("has `message.content` as a JSON {}, not a string", json_type(v)),
                        Severity::Error,
                    )),
                },
                Some(v) => Some((
                    "/message".to_string(),
                    format!("has `message` as a JSON {}, not an object", json_type(v)),
                    Severity::Error,
                )),
            },
            Some(Endpoint::Generate) => match o.get("response") {
                None | Some(Value::String(_)) => None,
                Some(v) => Some((
                    "/response".to_string(),
                    format!("has `response` as a JSON {}, not a string", json_type(v)),
                    Severity::Error,
                )),
            },
            None => None,
        });
        let Some((pointer, what, level)) = fault else {
            return;
        };
        if self.shape_reported || out.muted(rule::OLLAMA_LINE_SHAPE.name()) {
            return;
        }
        self.shape_reported = true;
        let loc = out.at_pointer(&pointer, false);
        out.report(
            Finding::new(rule::OLLAMA_LINE_SHAPE, format!("the line {what}"), loc)
                .event(ev.index)
                .pointer(pointer)
                .level(level)
                .help("send every line as the API documents it: `model`, `created_at`, `done`, and `message` (chat) or `response` (generate)"),
        );
    }

    /// Adds the line's text, thinking and tool calls to choice 0; returns
    /// whether it added any.
    fn apply(&mut self, ev: &Event<'_>, o: &Map<String, Value>, out: &mut dyn Out) -> bool {
        let (body, base) = match o.get("message").and_then(Value::as_object) {
            Some(m) => (m, "/message"),
            None => (o, ""),
        };
        let text_key = if base.is_empty() {
            "response"
        } else {
            "content"
        };
        let mut summary = Vec::new();
        let mut added = self.add_text(
            body.get(text_key).and_then(Value::as_str),
            body.get("thinking").and_then(Value::as_str),
            &mut summary,
            out,
        );
        if let Some(calls) = body.get("tool_calls").and_then(Value::as_array) {
            for (pos, call) in calls.iter().enumerate() {
                let name = self.tool_call(ev, call, &format!("{base}/tool_calls/{pos}"), out);
                added = true;
                out.kind("tool");
                summary.push(format!("tool call {}", name.unwrap_or_default()));
            }
        }
        if out.summaries() {
            self.summary = printable_shorten(&summary.join(", "), 120);
        }
        added
    }

    /// Adds a line's text and thinking (each when it is a non-empty
    /// string) to choice 0, notes their kinds and their part of the
    /// summary; returns whether it added either. Shared by the general
    /// path and the fast path.
    fn add_text(
        &mut self,
        text: Option<&str>,
        thinking: Option<&str>,
        summary: &mut Vec<String>,
        out: &mut dyn Out,
    ) -> bool {
        let mut added = false;
        let c = self.answer.choice(0);
        if let Some(t) = text.filter(|t| !t.is_empty()) {
            c.text.push(t);
            added = true;
            out.kind("content");
            if out.summaries() {
                summary.push(format!("{t:?}"));
            }
        }
        if let Some(t) = thinking.filter(|t| !t.is_empty()) {
            c.reasoning.push(t);
            added = true;
            out.kind("reasoning");
            if out.summaries() {
                summary.push(format!("thinking {t:?}"));
            }
        }
        added
    }

    /// One tool call (`{id?, function: {index?, name, arguments}}`),
    /// added whole; `ollama-tool-call` when it has no name or its
    /// arguments are not a JSON object. Returns its name.
    fn tool_call(
        &mut self,
        ev: &Event<'_>,
        call: &Value,
        pointer: &str,
        out: &mut dyn Out,
    ) -> Option<String> {
        let f = call.get("function");
        let name = f.and_then(|f| f.get("name")).and_then(Value::as_str);
        let args = f.and_then(|f| f.get("arguments"));
        let c = self.answer.choice(0);
        let index = c.tool_calls.len() as u64;
        c.tool_calls.insert(
            index,
            ToolCall {
                index,
                id: call.get("id").and_then(Value::as_str).map(str::to_string),
                name: name.map(str::to_string),
                arguments: match args {
                    Some(Value::String(s)) => s.clone(),
                    Some(v) => v.to_string(),
                    None => String::new(),
                },
                ..ToolCall::default()
            },
        );
        let fault = match (name, args) {
            (None | Some(""), _) => Some((
                format!("{pointer}/function/name"),
                "has no `function.name`: nothing says which tool to run".to_string(),
            )),
            (_, Some(Value::Object(_))) => None,
            (_, Some(Value::String(_))) => Some((
                format!("{pointer}/function/arguments"),
                "has `function.arguments` as a string of JSON text, as OpenAI's API sends it, not a JSON object: a client that validates the call raises, and one that encodes the arguments as JSON encodes the string again, so the tool gets a string where it expects an object".to_string(),
            )),
            (_, None) => Some((
                format!("{pointer}/function"),
                "has no `function.arguments`: a client that waits for them drops the call".to_string(),
            )),
            (_, Some(v)) => Some((
                format!("{pointer}/function/arguments"),
                format!("has `function.arguments` as a JSON {}, not an object", json_type(v)),
            )),
        };
        if let Some((at, what)) = fault {
            if !self.tool_reported && !out.muted(rule::OLLAMA_TOOL_CALL.name()) {
                self.tool_reported = true;
                let loc = out.at_pointer(&at, false);
                out.report(
                    Finding::new(rule::OLLAMA_TOOL_CALL, format!("the tool call {what}"), loc)
                        .event(ev.index)
                        .pointer(at)
                        .help("send each call as `{\"function\": {\"name\": …, \"arguments\": {…}}}`, the arguments a JSON object"),
                );
            }
        }
        name.map(str::to_string)
    }

    /// The `done: true` line: the finish and the counts.
    fn done_line(&mut self, ev: &Event<'_>, o: &Map<String, Value>, out: &mut dyn Out) {
        out.kind("finish");
        self.done = Some((ev.index.unwrap_or(0), out.at_event()));
        let reason = o.get("done_reason");
        if let Some(r) = reason.and_then(Value::as_str).filter(|r| !r.is_empty()) {
            self.answer.choice(0).finish_reason = Some(r.to_string());
        }
        self.check_done_reason(ev, reason, out);
        if reason.and_then(Value::as_str) == Some("length") {
            let calls = !self.answer.choice(0).tool_calls.is_empty();
            self.report_length(ev, calls, out);
        }
        let usage: Map<String, Value> = COUNTS
            .iter()
            .filter_map(|k| o.get(*k).map(|v| (k.to_string(), v.clone())))
            .collect();
        if !usage.is_empty() {
            out.kind("usage");
            self.answer.usage = Some(Value::Object(usage));
        }
        self.check_counts(ev, o, out);
        if out.summaries() {
            let reason = reason.map_or("(none)".to_string(), |r| match r {
                Value::String(s) => printable_shorten(s, 20),
                v => v.to_string(),
            });
            let counts = ["prompt_eval_count", "eval_count"]
                .iter()
                .filter_map(|k| o.get(*k).map(|v| format!(", {k} {v}")))
                .collect::<String>();
            let before = std::mem::take(&mut self.summary);
            let sep = if before.is_empty() { "" } else { ", " };
            self.summary = format!("{before}{sep}done: {reason}{counts}");
        }
    }

    /// `ollama-done-reason`: the last line says why it stopped, in one of
    /// the server's words.
    fn check_done_reason(&mut self, ev: &Event<'_>, reason: Option<&Value>, out: &mut dyn Out) {
        let (what, level) = match reason {
            None | Some(Value::Null) => (
                "the `done: true` line has no `done_reason`: nothing tells a finished answer from one cut by the token budget".to_string(),
                Severity::Info,
            ),
            Some(Value::String(s)) if s.is_empty() => (
                "`done_reason` is an empty string, which the server sends when its connection to the model runner closed: the answer may be cut, and clients hand on the empty finish".to_string(),
                Severity::Error,
            ),
            Some(Value::String(s)) if DONE_REASONS.contains(&s.as_str()) => return,
            Some(Value::String(s)) => (
                format!(
                    "`done_reason` is `{}`, none of the server's values (stop, length, load, unload): clients that map the reason report an unknown finish",
                    printable_shorten(s, 40)
                ),
                Severity::Info,
            ),
            Some(v) => (
                format!("`done_reason` is a JSON {}, not a string", json_type(v)),
                Severity::Error,
            ),
        };
        if out.muted(rule::OLLAMA_DONE_REASON.name()) {
            return;
        }
        let loc = if reason.is_some() {
            out.at_pointer("/done_reason", false)
        } else {
            out.at_event()
        };
        out.report(
            Finding::new(rule::OLLAMA_DONE_REASON, what, loc)
                .event(ev.index)
                .pointer("/done_reason")
                .level(level)
                .help("end with `\"done\": true` and a `done_reason` of `stop` or `length`"),
        );
    }

    /// `ollama-length`: the token budget cut the answer. A warning (the
    /// cut is sent as it is), an error when the answer called tools
    /// (`calls`): a client that reports a stream with tool calls as
    /// finished for them then hides the cut.
    fn report_length(&mut self, ev: &Event<'_>, calls: bool, out: &mut dyn Out) {
        if out.muted(rule::OLLAMA_LENGTH.name()) {
            return;
        }
        let loc = out.at_pointer("/done_reason", false);
        let (what, level) = if calls {
            ("`done_reason` is `length` after tool calls: the token budget (`options.num_predict`) or the context ran out, and a client that reports a stream with tool calls as finished for them hides the cut", Severity::Error)
        } else {
            ("`done_reason` is `length`: the token budget (`options.num_predict`) or the context ran out, so the answer stops where the budget did", Severity::Warning)
        };
        out.report(
            Finding::new(rule::OLLAMA_LENGTH, what, loc)
                .event(ev.index)
                .level(level)
                .pointer("/done_reason")
                .help("raise `options.num_predict` (or `num_ctx`), or ask for a shorter answer"),
        );
    }

    /// `ollama-counts`: the last line's token counts.
    fn check_counts(&mut self, ev: &Event<'_>, o: &Map<String, Value>, out: &mut dyn Out) {
        let wrong = COUNTS
            .iter()
            .find(|k| o.get(**k).is_some_and(|v| v.as_u64().is_none()));
        let missing: Vec<&str> = ["prompt_eval_count", "eval_count"]
            .into_iter()
            .filter(|k| !o.contains_key(*k))
            .collect();
        let (pointer, what, level) = if let Some(k) = wrong {
            (
                format!("/{k}"),
                format!(
                    "`{k}` is {}, not a non-negative integer: a client that validates the line against its schema drops the line, and the finish with it",
                    printable_shorten(&o[*k].to_string(), 40)
                ),
                Severity::Error,
            )
        } else if !missing.is_empty() {
            (
                format!("/{}", missing[0]),
                format!(
                    "the `done: true` line has no `{}`: the token usage is unknown, and clients that add the counts report zero",
                    missing.join("` or `")
                ),
                Severity::Warning,
            )
        } else {
            return;
        };
        if out.muted(rule::OLLAMA_COUNTS.name()) {
            return;
        }
        let loc = if wrong.is_some() {
            out.at_pointer(&pointer, false)
        } else {
            out.at_event()
        };
        out.report(
            Finding::new(rule::OLLAMA_COUNTS, what, loc)
                .event(ev.index)
                .pointer(pointer)
                .level(level)
                .help("send `prompt_eval_count` and `eval_count` as integers on the `done: true` line"),
        );
    }

    /// `ollama-after-done`: lines after `done: true`.
    fn finish_after_done(&mut self, out: &mut dyn Out) {
        let Some((loc, index)) = self.first_after_done.clone() else {
            return;
        };
        if out.muted(rule::OLLAMA_AFTER_DONE.name()) {
            return;
        }
        let n = self.after_done;
        let (what, level) = if self.after_done_adds {
            ("and add to the answer: a client that stops at `done: true` drops them, one that reads to the end keeps them, so they end with different answers", Severity::Error)
        } else {
            ("adding nothing to the answer: a client that reads to the end yields them as more parts", Severity::Info)
        };
        out.report(
            Finding::new(
                rule::OLLAMA_AFTER_DONE,
                format!("{n} line(s) come after the `done: true` line {what}"),
                loc,
            )
            .event(index)
            .level(level)
            .help("end the stream with the `done: true` line"),
        );
    }

    /// `ollama-cut-off`: the stream ended with neither `done: true` nor an
    /// error line. Returns the ending.
    fn finish_ending(&mut self, end: &StreamEnd<'_>, out: &mut dyn Out) -> Ending {
        if self.error.is_some() {
            return Ending::Failed;
        }
        if self.done.is_some() {
            return if self
                .answer
                .choices
                .get(&0)
                .is_some_and(|c| c.finish_reason.is_some())
            {
                Ending::Complete
            } else {
                Ending::DoneWithoutFinish
            };
        }
        let t = out.transport();
        // A failed request (its status said so), a damaged capture, or
        // lines the checks could not read (their finding is the cause).
        let failed = t.status.is_some_and(|s| !(200..300).contains(&s));
        if failed || end.damaged || self.invalid + self.rejected > 0 {
            return Ending::CutOff;
        }
        if !out.muted(rule::OLLAMA_CUT_OFF.name()) {
            let what = if self.objects == 0 {
                "the stream has no line at all".to_string()
            } else {
                format!(
                    "the stream ended after {} line(s) without a `done: true` line{}",
                    self.objects,
                    end.broke()
                )
            };
            let loc = out.at_end();
            out.report(
                Finding::new(
                    rule::OLLAMA_CUT_OFF,
                    format!("{what}: the answer may be cut; a client that waits for `done: true` raises, one that does not ends quietly with what came"),
                    loc,
                )
                .help("end every stream with a `done: true` line, or an `{\"error\": …}` line when generation fails"),
            );
        }
        if self.objects == 0 {
            Ending::Empty
        } else {
            Ending::CutOff
        }
    }
}

/// `s` shortened to `n` characters, control characters escaped.
fn printable_shorten(s: &str, n: usize) -> String {
    crate::lint::printable(&shorten(s, n))
}
