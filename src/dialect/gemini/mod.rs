//! Google Gemini's `streamGenerateContent` streams (the Gemini API's
//! `POST /v1beta/models/MODEL:streamGenerateContent?alt=sse`, and Vertex
//! AI's `…/publishers/google/models/MODEL:streamGenerateContent`): the
//! stream model that assembles each candidate, and the `gemini-*` rules
//! (`rules/gemini/`).
//!
//! Every event is `data: <GenerateContentResponse>`, unnamed, and every
//! chunk has the shape of a whole response: `candidates[]` (each with an
//! `index`, which Vertex leaves out, `content.parts[]`, and at its end a
//! `finishReason`), `promptFeedback` (a blocked prompt), running
//! `usageMetadata`, `modelVersion` and `responseId`. There is no end
//! marker: the stream ends when the connection closes after the chunk
//! with the `finishReason`.
//!
//! The answer ([`Answer`]) has a choice per candidate `index`: its text
//! parts joined, its thought parts (`thought: true`) joined as reasoning,
//! each `functionCall` part as a tool call (its whole `args`, or Vertex's
//! streamed `partialArgs` put together by `jsonPath`, [`args`]), each
//! `executableCode` part as a call the server ran; the `finishReason` as
//! sent (the last one); the last chunk's `usageMetadata`. A blocked
//! prompt has no candidate: choice 0 is empty, its finish
//! `blockReason:REASON`.
//!
//! How the stream ended ([`Ending`]): `complete` when candidate 0 has a
//! `finishReason` or the prompt was blocked (Gemini has no end marker:
//! the finish is the end), `failed` on an `error` chunk, `cut-off` when
//! neither came, `empty` when no event did.

pub mod api;
pub mod args;
mod fast;
pub mod words;

use super::{Event, Out, StreamEnd};
use crate::lint::{rule, Finding, Location, Severity};
use crate::model::assembly::{Answer, Ending, Text, ToolCall};
use crate::model::shorten;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Most candidates assembled; the parts of others are counted, not kept.
const MAX_CANDIDATES: usize = 16;
/// Most function calls kept per candidate.
const MAX_CALLS: usize = 1024;

/// A finding's location and event index.
type At = (Location, Option<u64>);

/// Every `finishReason` value (python-genai `types.FinishReason`).
const FINISH_REASONS: &[&str] = &[
    "FINISH_REASON_UNSPECIFIED",
    "STOP",
    "MAX_TOKENS",
    "SAFETY",
    "RECITATION",
    "LANGUAGE",
    "OTHER",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "MALFORMED_FUNCTION_CALL",
    "IMAGE_SAFETY",
    "UNEXPECTED_TOOL_CALL",
    "TOO_MANY_TOOL_CALLS",
    "IMAGE_PROHIBITED_CONTENT",
    "NO_IMAGE",
    "IMAGE_RECITATION",
    "IMAGE_OTHER",
];

/// The top-level fields of a `GenerateContentResponse`.
const TOP_FIELDS: &[&str] = &[
    "candidates",
    "promptFeedback",
    "usageMetadata",
    "modelVersion",
    "responseId",
    "createTime",
    "modelStatus",
    "automaticFunctionCallingHistory",
    "sdkHttpResponse",
];

/// One candidate's assembly.
#[derive(Debug, Default)]
struct Candidate {
    text: Text,
    reasoning: Text,
    calls: Vec<ToolCall>,
    /// Calls past [`MAX_CALLS`].
    calls_dropped: u64,
    /// A streamed call still open, and the arguments put together so far.
    streaming: Option<(usize, Value)>,
    finish: Option<String>,
    finish_at: Option<At>,
    finish_message: Option<String>,
    /// Chunks with parts after the finishReason, and the first.
    after_finish: u64,
    first_after: Option<At>,
    /// Non-empty text parts (not thoughts).
    text_parts: u64,
    /// Where the last text part, the third or later, repeated all the text
    /// before it (`gemini-repeated-answer`); cleared by any later one.
    repeat_at: Option<At>,
    parts: u64,
    thoughts: u64,
    signatures: u64,
    code: u64,
    results: u64,
    inline: u64,
    inline_bytes: u64,
    files: u64,
    citations: u64,
    grounding: bool,
}

impl Candidate {
    /// Closes the streamed call, writing its arguments.
    fn close_streaming(&mut self) {
        if let Some((pos, args)) = self.streaming.take() {
            if let Some(c) = self.calls.get_mut(pos) {
                c.arguments.clear();
                c.push_arguments(&args.to_string());
            }
        }
    }

    fn add_call(&mut self, call: ToolCall) -> Option<usize> {
        if self.calls.len() >= MAX_CALLS {
            self.calls_dropped += 1;
            return None;
        }
        self.calls.push(call);
        Some(self.calls.len() - 1)
    }

    /// Whether nothing was said: no text, thought, call or code.
    fn is_blank(&self) -> bool {
        self.text.is_empty() && self.reasoning.is_empty() && self.calls.is_empty()
    }
}

/// The Gemini checker for one stream.
#[derive(Debug, Default)]
pub struct Checker {
    events: u64,
    /// Chunks that carried at least one candidate.
    with_candidates: u64,
    candidates: BTreeMap<u64, Candidate>,
    /// Parts of candidates past [`MAX_CANDIDATES`].
    overflow_parts: u64,
    usage: Option<Value>,
    /// The last usage came on the fast path ([`fast`]): it is the
    /// `usageMetadata` of the chunk kept in `usage_chunk`, read at the end.
    usage_in_chunk: bool,
    /// The data of the last chunk the fast path took with a usage (the
    /// buffer is reused).
    usage_chunk: String,
    /// Chunks the fast path took.
    typed: u64,
    /// The highest `candidatesTokenCount` before the last usage, and where.
    peak_candidates: Option<(u64, At)>,
    /// The last usage's `candidatesTokenCount` and where.
    last_candidates: Option<(u64, At)>,
    /// The last usage's `totalTokenCount` and the sum of its parts, and
    /// where, when the total is below the sum.
    usage_short: Option<(u64, u64, At)>,
    response_id: Option<String>,
    model_version: Option<String>,
    id_reported: bool,
    blocked: Option<(String, At)>,
    errored: Option<At>,
    done: bool,
    done_reported: bool,
    named: u64,
    first_named: Option<(At, String)>,
    index_reported: bool,
    args_reported: bool,
    partial_reported: bool,
    signature_reported: bool,
    value_reported: bool,
    /// A usage count of the wrong type was reported (once a stream).
    count_reported: bool,
    schema_reported: u64,
    last: String,
    /// What the current event added, for `inspect` (when it asks).
    adds: Vec<String>,
}

/// Whether a JSON object is a Gemini chunk: it has `candidates` (an
/// array), `promptFeedback`, or `usageMetadata` with Gemini's counts
/// (the usage-only trailing chunk), and no other dialect's keys.
pub fn is_chunk(o: &Map<String, Value>) -> bool {
    o.get("candidates").is_some_and(Value::is_array)
        || o.get("promptFeedback").is_some_and(Value::is_object)
        || o.get("usageMetadata").is_some_and(|u| {
            u.get("promptTokenCount").is_some() || u.get("totalTokenCount").is_some()
        })
}

/// What shows a request body to be a `generateContent` request: its
/// `contents` array (the conversation; the other APIs call theirs
/// `messages` or `input`), as a few words for `record`'s note. `None`:
/// not one.
pub fn request_field(body: &Value) -> Option<String> {
    let o = body.as_object()?;
    (o.get("contents").is_some_and(Value::is_array)
        && !o.contains_key("messages")
        && !o.contains_key("input"))
    .then(|| "`contents` (the conversation, as a GenerateContentRequest holds it)".to_string())
}

/// Whether an event's data cut before its end (the undispatched tail of
/// a stream that ended inside its first event) starts as a Gemini chunk
/// does: `{"candidates": [`, or with the keys a chunk without candidates
/// opens with (a blocked prompt's `{"promptFeedback": {`,
/// a usage-only chunk's `{"usageMetadata": {`), whitespace allowed
/// between the tokens. No other dialect's event starts with those keys.
pub fn is_partial_chunk(data: &str) -> bool {
    let rest = data.trim_start();
    let Some(rest) = rest.strip_prefix('{') else {
        return false;
    };
    let rest = rest.trim_start();
    let (rest, open) = if let Some(r) = rest.strip_prefix("\"candidates\"") {
        (r, '[')
    } else if let Some(r) = rest
        .strip_prefix("\"promptFeedback\"")
        .or_else(|| rest.strip_prefix("\"usageMetadata\""))
    {
        (r, '{')
    } else {
        return false;
    };
    let Some(rest) = rest.trim_start().strip_prefix(':') else {
        return false;
    };
    rest.trim_start().starts_with(open)
}

/// Reports `f` unless its rule is off or past its limit.
fn emit(out: &mut dyn Out, f: Finding) {
    if !out.muted(f.rule) {
        out.report(f);
    }
}

/// Whether `s` is base64 as Google's SDKs decode a `thoughtSignature`
/// (standard or URL-safe alphabet, padded or not).
fn is_base64(s: &str) -> bool {
    use base64::engine::general_purpose::{STANDARD, URL_SAFE};
    use base64::Engine as _;
    STANDARD.decode(s).is_ok()
        || URL_SAFE.decode(s).is_ok()
        || base64::engine::general_purpose::STANDARD_NO_PAD
            .decode(s)
            .is_ok()
        || base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(s)
            .is_ok()
}

impl Checker {
    /// The last `usageMetadata`: the value the general path kept, or the
    /// one in the chunk the fast path kept (parsed as the general path
    /// would have parsed it).
    fn usage_value(&self) -> Option<Value> {
        if !self.usage_in_chunk {
            return self.usage.clone();
        }
        serde_json::from_str::<Value>(&self.usage_chunk)
            .ok()
            .and_then(|mut v| v.get_mut("usageMetadata").map(Value::take))
    }

    /// Records whether a usage's `totalTokenCount` is below the sum of
    /// its parts (`prompt`, `candidates`, `thoughts`, `toolUsePrompt`;
    /// the cached count is part of the prompt). Only the last usage
    /// counts: a later whole one clears it.
    fn usage_total(
        &mut self,
        out: &mut dyn Out,
        ev: &Event<'_>,
        parts: [Option<u64>; 4],
        total: Option<u64>,
    ) {
        let sum: u64 = parts
            .iter()
            .flatten()
            .fold(0u64, |a, b| a.saturating_add(*b));
        self.usage_short = match total {
            Some(t) if sum > t => Some((
                t,
                sum,
                (
                    out.at_pointer("/usageMetadata/totalTokenCount", false),
                    ev.index,
                ),
            )),
            _ => None,
        };
    }

    /// `gemini-schema`: a field of the wrong type.
    fn schema(&mut self, out: &mut dyn Out, ev: &Event<'_>, pointer: &str, message: String) {
        self.schema_reported += 1;
        if self.schema_reported > 32 || out.muted(rule::GEMINI_SCHEMA.name()) {
            return;
        }
        let loc = out.at_pointer(pointer, false);
        out.report(
            Finding::new(rule::GEMINI_SCHEMA, message, loc)
                .event(ev.index)
                .pointer(pointer.to_string())
                .help("send each chunk as a GenerateContentResponse: `candidates` an array of objects, `content.parts` an array of parts"),
        );
    }

    fn ids(&mut self, out: &mut dyn Out, ev: &Event<'_>, o: &Map<String, Value>) {
        for (key, slot) in [("responseId", 0), ("modelVersion", 1)] {
            let Some(v) = o.get(key).and_then(Value::as_str) else {
                continue;
            };
            let held = if slot == 0 {
                &mut self.response_id
            } else {
                &mut self.model_version
            };
            match held {
                None => *held = Some(v.to_string()),
                Some(first) if first != v && !self.id_reported => {
                    let message = format!(
                        "`{key}` changed from `{}` to `{}`: every chunk of one response repeats the first chunk's",
                        crate::lint::printable(&shorten(first, 60)),
                        crate::lint::printable(&shorten(v, 60))
                    );
                    self.id_reported = true;
                    if !out.muted(rule::GEMINI_RESPONSE_ID.name()) {
                        let loc = out.at_pointer(&format!("/{key}"), false);
                        out.report(
                            Finding::new(rule::GEMINI_RESPONSE_ID, message, loc)
                                .event(ev.index)
                                .help("repeat one response's id and model version on every chunk; a gateway that joins streams must not mix them"),
                        );
                    }
                }
                Some(_) => {}
            }
        }
    }

    fn usage(&mut self, ev: &Event<'_>, out: &mut dyn Out, u: &Value) {
        let Some(o) = u.as_object() else {
            return;
        };
        // A count that is not a whole number (`"9"`, a quoted count):
        // validating readers reject the chunk, others read no count.
        if !self.count_reported {
            if let Some((k, v)) = o
                .iter()
                .find(|(k, v)| k.ends_with("TokenCount") && v.as_u64().is_none())
            {
                self.count_reported = true;
                let t = crate::model::json_type(v);
                self.schema(
                    out,
                    ev,
                    &format!("/usageMetadata/{k}"),
                    format!(
                        "`usageMetadata.{k}` is a JSON {t} ({}), not a non-negative integer: readers that validate the chunk's types reject it",
                        crate::lint::printable(&shorten(&v.to_string(), 20))
                    ),
                );
            }
        }
        let at = || {
            (
                out.at_pointer("/usageMetadata/candidatesTokenCount", false),
                ev.index,
            )
        };
        if let Some(n) = u.get("candidatesTokenCount").and_then(Value::as_u64) {
            if let Some((prev, at_prev)) = self.last_candidates.take() {
                if self.peak_candidates.as_ref().is_none_or(|(p, _)| prev > *p) {
                    self.peak_candidates = Some((prev, at_prev));
                }
            }
            self.last_candidates = Some((n, at()));
        }
        let n = |k: &str| o.get(k).and_then(Value::as_u64);
        self.usage_total(
            out,
            ev,
            [
                n("promptTokenCount"),
                n("candidatesTokenCount"),
                n("thoughtsTokenCount"),
                n("toolUsePromptTokenCount"),
            ],
            n("totalTokenCount"),
        );
        self.usage = Some(u.clone());
        self.usage_in_chunk = false;
    }

    fn candidate(
        &mut self,
        out: &mut dyn Out,
        ev: &Event<'_>,
        pos: usize,
        c: &Value,
        kinds: &mut Vec<&'static str>,
    ) {
        let base = format!("/candidates/{pos}");
        let Some(co) = c.as_object() else {
            self.schema(
                out,
                ev,
                &base,
                format!(
                    "candidate {pos} is a JSON {}, not an object",
                    crate::model::json_type(c)
                ),
            );
            return;
        };
        let index = match co.get("index") {
            None => pos as u64,
            Some(v) => match v.as_u64() {
                Some(i) => i,
                None => {
                    self.schema(
                        out,
                        ev,
                        &format!("{base}/index"),
                        format!(
                            "candidate {pos}'s `index` is {}, not a non-negative integer",
                            shorten(&v.to_string(), 40)
                        ),
                    );
                    pos as u64
                }
            },
        };
        if pos == 0 && index != 0 && !self.index_reported {
            self.index_reported = true;
            if !out.muted(rule::GEMINI_CANDIDATE_INDEX.name()) {
                let loc = out.at_pointer(&format!("{base}/index"), false);
                out.report(
                    Finding::new(
                        rule::GEMINI_CANDIDATE_INDEX,
                        format!(
                            "this chunk's first candidate is candidate {index}, not 0: clients read `candidates[0]` by position, so its parts end up in candidate 0's answer"
                        ),
                        loc,
                    )
                    .event(ev.index)
                    .help("list candidate 0 first in every chunk that holds it, or send each other candidate only beside it"),
                );
            }
        }
        if !self.candidates.contains_key(&index) && self.candidates.len() >= MAX_CANDIDATES {
            if let Some(n) = c.pointer("/content/parts").and_then(Value::as_array) {
                self.overflow_parts += n.len() as u64;
            }
            return;
        }
        let parts = match co.get("content") {
            None | Some(Value::Null) => None,
            Some(Value::Object(content)) => match content.get("parts") {
                None | Some(Value::Null) => None,
                Some(Value::Array(p)) => Some(p),
                Some(other) => {
                    let t = crate::model::json_type(other);
                    self.schema(
                        out,
                        ev,
                        &format!("{base}/content/parts"),
                        format!("candidate {index}'s `content.parts` is a JSON {t}, not an array"),
                    );
                    None
                }
            },
            Some(other) => {
                let t = crate::model::json_type(other);
                self.schema(
                    out,
                    ev,
                    &format!("{base}/content"),
                    format!("candidate {index}'s `content` is a JSON {t}, not an object"),
                );
                None
            }
        };
        // Parts that say something (an empty text part with a signature,
        // as the last chunk of a thinking model has, says nothing).
        let says = |p: &Value| match p.get("text") {
            Some(Value::String(s)) => !s.is_empty(),
            Some(_) => true,
            None => p.as_object().is_some_and(|o| {
                o.keys()
                    .any(|k| !matches!(k.as_str(), "thought" | "thoughtSignature" | "partMetadata"))
            }),
        };
        let cand = self.candidates.entry(index).or_default();
        if cand.finish.is_some() && parts.is_some_and(|p| p.iter().any(says)) {
            cand.after_finish += 1;
            if cand.first_after.is_none() {
                cand.first_after =
                    Some((out.at_pointer(&format!("{base}/content"), false), ev.index));
            }
        }
        for (i, p) in parts.into_iter().flatten().enumerate() {
            let at = format!("{base}/content/parts/{i}");
            self.part(out, ev, index, &at, p, kinds);
        }
        let cand = self.candidates.entry(index).or_default();
        if co.get("citationMetadata").is_some_and(Value::is_object) {
            let m = &co["citationMetadata"];
            let n = ["citationSources", "citations"]
                .iter()
                .filter_map(|k| m.get(*k).and_then(Value::as_array))
                .map(|a| a.len() as u64)
                .sum::<u64>();
            cand.citations += n;
        }
        if co.get("groundingMetadata").is_some_and(Value::is_object) {
            cand.grounding = true;
        }
        if let Some(m) = co.get("finishMessage").and_then(Value::as_str) {
            cand.finish_message = Some(shorten(m, 200));
        }
        match co.get("finishReason") {
            None | Some(Value::Null) => {}
            Some(Value::String(f)) => {
                kinds.push("finish");
                if out.summaries() {
                    self.adds
                        .push(format!("[{index}] finish {}", shorten(f, 30)));
                }
                self.finish_reason(out, ev, index, &base, f);
            }
            Some(other) => {
                let t = crate::model::json_type(other);
                self.schema(
                    out,
                    ev,
                    &format!("{base}/finishReason"),
                    format!("candidate {index}'s `finishReason` is a JSON {t}, not a string"),
                );
            }
        }
    }

    fn finish_reason(
        &mut self,
        out: &mut dyn Out,
        ev: &Event<'_>,
        index: u64,
        base: &str,
        f: &str,
    ) {
        let pointer = format!("{base}/finishReason");
        if !FINISH_REASONS.contains(&f) && !self.value_reported {
            self.value_reported = true;
            let upper = f.to_ascii_uppercase();
            let (message, level) = if f.is_empty() {
                (
                    "`finishReason` is an empty string: it names no reason, and clients that drop empty values end with no finish at all".to_string(),
                    Severity::Error,
                )
            } else if FINISH_REASONS.contains(&upper.as_str()) {
                (
                    format!(
                        "`finishReason` is `{}`, in the wrong case: the API sends `{upper}`; the clients of the record end with different finishes, one folding it to `{upper}` and the others passing it on as sent, which code that checks for `{upper}` does not match (the table)",
                        crate::lint::printable(&shorten(f, 40))
                    ),
                    Severity::Error,
                )
            } else {
                (
                    format!(
                        "`finishReason` is `{}`, not one of the API's values (STOP, MAX_TOKENS, SAFETY, …)",
                        crate::lint::printable(&shorten(f, 40))
                    ),
                    Severity::Info,
                )
            };
            if !out.muted(rule::GEMINI_FINISH_REASON_VALUE.name()) {
                let loc = out.at_pointer(&pointer, false);
                out.report(
                    Finding::new(rule::GEMINI_FINISH_REASON_VALUE, message, loc)
                        .event(ev.index)
                        .level(level)
                        .help("send the FinishReason value as the API spells it (upper case)"),
                );
            }
        }
        let cand = self.candidates.entry(index).or_default();
        if cand.finish.is_none() {
            cand.finish_at = Some((out.at_pointer(&pointer, false), ev.index));
        }
        cand.finish = Some(f.to_string());
    }

    fn part(
        &mut self,
        out: &mut dyn Out,
        ev: &Event<'_>,
        index: u64,
        at: &str,
        p: &Value,
        kinds: &mut Vec<&'static str>,
    ) {
        let Some(po) = p.as_object() else {
            let t = crate::model::json_type(p);
            self.schema(
                out,
                ev,
                at,
                format!("a part of candidate {index} is a JSON {t}, not an object"),
            );
            return;
        };
        if let Some(sig) = po.get("thoughtSignature") {
            self.candidates.entry(index).or_default().signatures += 1;
            let valid = sig.as_str().is_some_and(is_base64);
            if !valid && !self.signature_reported {
                self.signature_reported = true;
                if !out.muted(rule::GEMINI_THOUGHT_SIGNATURE.name()) {
                    let loc = out.at_pointer(&format!("{at}/thoughtSignature"), false);
                    out.report(
                        Finding::new(
                            rule::GEMINI_THOUGHT_SIGNATURE,
                            format!(
                                "`thoughtSignature` is {}, not base64: clients that decode the signature to bytes raise, and the next turn cannot send it back",
                                shorten(&sig.to_string(), 40)
                            ),
                            loc,
                        )
                        .event(ev.index)
                        .help("pass the signature through as the API sent it (a base64 string); a gateway must not rewrite it"),
                    );
                }
            }
        }
        let thought = po.get("thought").and_then(Value::as_bool) == Some(true);
        let cand = self.candidates.entry(index).or_default();
        cand.parts += 1;
        if let Some(t) = po.get("text") {
            match t.as_str() {
                Some(s) if thought => {
                    cand.thoughts += 1;
                    cand.reasoning.push(s);
                    kinds.push("reasoning");
                    if out.summaries() {
                        self.adds
                            .push(format!("[{index}] thought {:?}", shorten(s, 30)));
                    }
                }
                Some(s) => {
                    if !s.is_empty() {
                        let repeats = cand.text.is_repeated_by(s);
                        cand.text_parts += 1;
                        cand.repeat_at = (repeats && cand.text_parts >= 3)
                            .then(|| (out.at_pointer(&format!("{at}/text"), false), ev.index));
                    }
                    cand.text.push(s);
                    if !s.is_empty() {
                        kinds.push("content");
                        if out.summaries() {
                            self.adds
                                .push(format!("[{index}] text {:?}", shorten(s, 30)));
                        }
                    }
                }
                None => {
                    let ty = crate::model::json_type(t);
                    self.schema(
                        out,
                        ev,
                        &format!("{at}/text"),
                        format!("a part's `text` is a JSON {ty}, not a string"),
                    );
                }
            }
            return;
        }
        if thought {
            cand.thoughts += 1;
        }
        if let Some(fc) = po.get("functionCall") {
            kinds.push("tool");
            if out.summaries() {
                let what = match fc.get("name").and_then(Value::as_str) {
                    Some(n) => format!("[{index}] call {}", shorten(n, 30)),
                    None if fc.get("partialArgs").is_some() => format!("[{index}] call arguments"),
                    None => format!("[{index}] call closed"),
                };
                self.adds.push(what);
            }
            self.function_call(out, ev, index, at, fc);
            return;
        }
        if let Some(code) = po.get("executableCode") {
            kinds.push("tool");
            if out.summaries() {
                self.adds.push(format!("[{index}] code"));
            }
            let cand = self.candidates.entry(index).or_default();
            cand.code += 1;
            let n = cand.calls.len() as u64;
            cand.add_call(ToolCall {
                index: n,
                id: code.get("id").and_then(Value::as_str).map(str::to_string),
                kind: Some("executableCode".to_string()),
                // The call of the `codeExecution` tool (the request's
                // `tools: [{"codeExecution": {}}]`); its `language`
                // (`PYTHON`, the only one) names no tool.
                name: Some("codeExecution".to_string()),
                arguments: shorten(code.get("code").and_then(Value::as_str).unwrap_or(""), 4096),
                server: true,
            });
            return;
        }
        let cand = self.candidates.entry(index).or_default();
        if let Some(r) = po.get("codeExecutionResult") {
            cand.results += 1;
            kinds.push("tool");
            if out.summaries() {
                let outcome = r.get("outcome").and_then(Value::as_str).unwrap_or("");
                self.adds
                    .push(format!("[{index}] code result {}", shorten(outcome, 30)));
            }
        } else if let Some(d) = po.get("inlineData") {
            cand.inline += 1;
            let bytes = d
                .get("data")
                .and_then(Value::as_str)
                .map_or(0, |s| s.len() as u64)
                * 3
                / 4;
            cand.inline_bytes += bytes;
            kinds.push("content");
            if out.summaries() {
                let mime = d.get("mimeType").and_then(Value::as_str).unwrap_or("?");
                self.adds.push(format!(
                    "[{index}] inline data {} (~{bytes} bytes)",
                    shorten(mime, 30)
                ));
            }
        } else if po.contains_key("fileData") {
            cand.files += 1;
            kinds.push("content");
        }
    }

    /// `gemini-partial-args`: the first function call whose arguments
    /// are streamed, at its first part with `partialArgs` pieces.
    fn partial_args(&mut self, out: &mut dyn Out, ev: &Event<'_>, at: &str, name: Option<&str>) {
        if out.muted(rule::GEMINI_PARTIAL_ARGS.name()) {
            return;
        }
        let call = match name {
            Some(n) => format!(
                "function call `{}`",
                crate::lint::printable(&shorten(n, 60))
            ),
            None => "a function call".to_string(),
        };
        let loc = out.at_pointer(&format!("{at}/functionCall"), false);
        out.report(
            Finding::new(
                rule::GEMINI_PARTIAL_ARGS,
                format!(
                    "{call} streams its arguments in `partialArgs` pieces (Vertex AI's streamed function-call arguments): sselint puts them together by `jsonPath`, but clients that do not assemble them lose the arguments, and end with a call without a name for every later part"
                ),
                loc,
            )
            .event(ev.index)
            .help("read the stream with a client that assembles `partialArgs`, or leave `streamFunctionCallArguments` off so that each call comes whole in `args`"),
        );
    }

    fn function_call(
        &mut self,
        out: &mut dyn Out,
        ev: &Event<'_>,
        index: u64,
        at: &str,
        fc: &Value,
    ) {
        let Some(f) = fc.as_object() else {
            let t = crate::model::json_type(fc);
            self.schema(
                out,
                ev,
                &format!("{at}/functionCall"),
                format!("a `functionCall` is a JSON {t}, not an object"),
            );
            return;
        };
        let more = f.get("willContinue").and_then(Value::as_bool) == Some(true);
        let pieces = f.get("partialArgs").and_then(Value::as_array);
        let name = f
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty());
        if let Some(args) = f.get("args").filter(|a| !a.is_object() && !a.is_null()) {
            if !self.args_reported {
                self.args_reported = true;
                if !out.muted(rule::GEMINI_FUNCTION_ARGS.name()) {
                    let loc = out.at_pointer(&format!("{at}/functionCall/args"), false);
                    out.report(
                        Finding::new(
                            rule::GEMINI_FUNCTION_ARGS,
                            format!(
                                "`functionCall.args` is a JSON {} ({}), not an object: clients that validate the part raise, others hand the tool a string where it expects fields",
                                crate::model::json_type(args),
                                shorten(&args.to_string(), 40)
                            ),
                            loc,
                        )
                        .event(ev.index)
                        .help("send the arguments as a JSON object (`\"args\": {\"city\": \"Paris\"}`), not as JSON text"),
                    );
                }
            }
        }
        // Reported at the first `partialArgs` piece, the evidence (a call
        // opened with `willContinue` and closed without a piece streamed
        // nothing); the call's name is the opener's.
        let streamed = pieces.is_some_and(|p| {
            p.iter()
                .any(|x| x.get("jsonPath").is_some_and(Value::is_string))
        });
        if streamed && !self.partial_reported {
            self.partial_reported = true;
            let opened = self.candidates.get(&index).and_then(|c| {
                c.streaming
                    .as_ref()
                    .and_then(|(i, _)| c.calls.get(*i))
                    .and_then(|call| call.name.clone())
            });
            self.partial_args(out, ev, at, name.or(opened.as_deref()));
        }
        let cand = self.candidates.entry(index).or_default();
        if let Some(name) = name {
            cand.close_streaming();
            if cand.calls.len() >= MAX_CALLS {
                // Past the cap the call is only counted (as `add_call`
                // would): its arguments are never put together.
                cand.calls_dropped += 1;
                return;
            }
            let mut args = f.get("args").cloned().unwrap_or(Value::Null);
            for p in pieces.into_iter().flatten() {
                args::apply(&mut args, p);
            }
            let arguments = match &args {
                Value::Null => "{}".to_string(),
                Value::String(s) => s.clone(),
                a => a.to_string(),
            };
            let n = cand.calls.len() as u64;
            let pos = cand.add_call(ToolCall {
                index: n,
                id: f.get("id").and_then(Value::as_str).map(str::to_string),
                kind: None,
                name: Some(name.to_string()),
                arguments: shorten(&arguments, crate::model::assembly::MAX_TEXT_BYTES),
                server: false,
            });
            if let (Some(pos), true) = (pos, more) {
                let args = if args.is_object() {
                    args
                } else {
                    Value::Object(Map::new())
                };
                cand.streaming = Some((pos, args));
            }
            return;
        }
        match cand.streaming.as_mut() {
            Some((_, args)) => {
                for p in pieces.into_iter().flatten() {
                    args::apply(args, p);
                }
                if !more {
                    cand.close_streaming();
                }
            }
            None if f.is_empty() => {}
            None => {
                self.schema(
                    out,
                    ev,
                    &format!("{at}/functionCall"),
                    "a `functionCall` without a `name`, and no streamed call (`willContinue`) is open: the arguments belong to no call".to_string(),
                );
            }
        }
    }

    /// `gemini-repeated-answer`: a candidate whose last text part, the third
    /// or later, repeats all the text of the parts before it.
    fn check_repeated_answer(&self, out: &mut dyn Out) {
        for (i, c) in &self.candidates {
            if let Some((loc, ev)) = c.repeat_at.clone() {
                emit(
                    out,
                    Finding::new(
                        rule::GEMINI_REPEATED_ANSWER,
                        format!("candidate {i}'s last text part repeats the whole text of the parts before it: clients that append each chunk's text show the answer twice"),
                        loc,
                    )
                    .event(ev)
                    .help("send only the new text in each chunk"),
                );
            }
        }
    }

    /// The answer: each candidate's text, thoughts, finish and calls; a
    /// blocked prompt as choice 0's finish (and its stand-in when no
    /// candidate 0 came); why an answer is empty.
    fn assemble_answer(&mut self) -> Answer {
        for c in self.candidates.values_mut() {
            c.close_streaming();
        }
        let mut answer = Answer {
            usage: self.usage_value(),
            done: self.done,
            chunks_with_choices: self.with_candidates,
            ..Answer::default()
        };
        // The texts are moved in at the very end ([`Checker::give_texts`]):
        // the checks before it still read them.
        for (i, c) in &self.candidates {
            let ch = answer.choice(*i);
            ch.finish_reason = c.finish.clone();
            for (n, call) in c.calls.iter().enumerate() {
                ch.tool_calls.insert(n as u64, call.clone());
            }
        }
        if let Some((reason, _)) = &self.blocked {
            let no_candidate = !self.candidates.contains_key(&0);
            let ch = answer.choice(0);
            if ch.finish_reason.is_none() {
                ch.finish_reason = Some(format!("blockReason:{reason}"));
            }
            // No candidate 0 came: choice 0 is the blocked prompt.
            if no_candidate {
                ch.stands_for = Some(format!(
                    "prompt blocked: `promptFeedback.blockReason` {}, no candidate",
                    shorten(reason, 40)
                ));
            }
            // A candidate that came anyway is the answer the clients show.
            if self.candidates.get(&0).is_none_or(Candidate::is_blank) {
                answer.empty = Some(format!("the prompt was blocked ({reason})"));
            }
        } else if let Some(c) = self.candidates.get(&0).filter(|c| c.is_blank()) {
            if let Some(f) = c.finish.as_deref().filter(|f| *f != "STOP") {
                answer.empty = Some(match &c.finish_message {
                    Some(m) => format!("{f}: {m}"),
                    None => f.to_string(),
                });
            }
        }
        answer
    }

    /// Moves each candidate's text and thoughts into its choice of
    /// `answer`, the last thing the stream's end does: the text is not
    /// held twice.
    fn give_texts(&mut self, answer: &mut Answer) {
        for (i, c) in &mut self.candidates {
            let ch = answer.choice(*i);
            ch.text = std::mem::take(&mut c.text);
            ch.reasoning = std::mem::take(&mut c.reasoning);
        }
    }

    /// How the stream ended: failed on an error, complete once candidate 0
    /// finished (or the prompt was blocked), else empty or cut off.
    fn stream_ending(&self) -> Ending {
        let finished =
            self.candidates.get(&0).is_some_and(|c| c.finish.is_some()) || self.blocked.is_some();
        if self.errored.is_some() {
            Ending::Failed
        } else if finished {
            Ending::Complete
        } else if self.events == 0 {
            Ending::Empty
        } else {
            Ending::CutOff
        }
    }

    /// `gemini-event-line`: events with an `event:` line, said once.
    fn check_event_lines(&mut self, out: &mut dyn Out) {
        if let Some(((loc, ev), name)) = self.first_named.take() {
            emit(
                out,
                Finding::new(
                    rule::GEMINI_EVENT_LINE,
                    format!(
                        "{} event(s) have an `event:` line (the first `event: {}`): a Gemini stream is `data:` lines only; clients that keep only blocks starting with `data:` lose these events whole, and clients that parse every other line as JSON raise",
                        self.named,
                        crate::lint::printable(&name)
                    ),
                    loc,
                )
                .event(ev)
                .help("send each chunk as a `data: {…}` line and a blank line, with no `event:` line"),
            );
        }
    }

    /// `gemini-after-finish`: parts added to a candidate after its
    /// `finishReason`.
    fn check_after_finish(&self, out: &mut dyn Out) {
        for (i, c) in &self.candidates {
            if let Some((loc, ev)) = c.first_after.clone() {
                emit(
                    out,
                    Finding::new(
                        rule::GEMINI_AFTER_FINISH,
                        format!(
                            "candidate {i} had its `finishReason` ({}) and {} later chunk(s) still add parts to it: a reader that stops at the finishReason ends without them",
                            crate::lint::printable(&shorten(c.finish.as_deref().unwrap_or(""), 40)),
                            c.after_finish
                        ),
                        loc,
                    )
                    .event(ev)
                    .help("send the `finishReason` only on a candidate's last chunk"),
                );
            }
        }
    }

    /// `gemini-prompt-blocked`: a blocked prompt with no candidate, or one
    /// answered anyway.
    fn check_prompt_blocked(&self, out: &mut dyn Out) {
        if let Some((reason, (loc, ev))) = self.blocked.clone() {
            if self.with_candidates == 0 {
                emit(
                    out,
                    Finding::new(
                        rule::GEMINI_PROMPT_BLOCKED,
                        format!(
                            "the prompt was blocked (`promptFeedback.blockReason` {}): no candidate came, so the answer is empty and no `finishReason` says why; clients that read only candidates show an empty answer",
                            crate::lint::printable(&shorten(&reason, 40))
                        ),
                        loc,
                    )
                    .event(ev)
                    .help("a blocked prompt is legitimate; a gateway that translates it must say so (a content-filter finish), not report an empty success"),
                );
            } else if self.candidates.get(&0).is_some_and(|c| !c.is_blank()) {
                // Blocked, and answered anyway: the two say opposite things.
                emit(
                    out,
                    Finding::new(
                        rule::GEMINI_PROMPT_BLOCKED,
                        format!(
                            "the prompt is marked blocked (`promptFeedback.blockReason` {}), yet candidate 0 has an answer: clients that trust the block drop the candidates' text and report the block reason as the finish, the others show the text",
                            crate::lint::printable(&shorten(&reason, 40))
                        ),
                        loc,
                    )
                    .event(ev)
                    .help("send `promptFeedback.blockReason` only when the prompt was blocked and no candidate answers"),
                );
            }
        }
    }

    /// `gemini-max-tokens` and `gemini-finish-reason`: a candidate that
    /// stopped at the token limit, or for another reason than `STOP`.
    fn check_finishes(&self, out: &mut dyn Out) {
        for (i, c) in &self.candidates {
            let Some(f) = c.finish.as_deref() else {
                continue;
            };
            let Some((loc, ev)) = c.finish_at.clone() else {
                continue;
            };
            let upper = f.to_ascii_uppercase();
            if upper == "MAX_TOKENS" {
                let what = if c.text.is_empty() && !c.reasoning.is_empty() {
                    "the budget went on thoughts, and no answer text came".to_string()
                } else {
                    format!(
                        "{} byte(s) of answer text came",
                        c.text.kept.len() as u64 + c.text.dropped
                    )
                };
                emit(
                    out,
                    Finding::new(
                        rule::GEMINI_MAX_TOKENS,
                        format!("candidate {i} stopped at the token limit (`MAX_TOKENS`): {what}; the answer is cut"),
                        loc,
                    )
                    .event(ev)
                    .help("raise `generationConfig.maxOutputTokens` (thinking tokens count against it), or lower the thinking budget"),
                );
            } else if upper != "STOP" && FINISH_REASONS.contains(&upper.as_str()) {
                let empty = if c.is_blank() {
                    ", and the candidate has no text and no call"
                } else {
                    ""
                };
                let why = c
                    .finish_message
                    .as_deref()
                    .map(|m| format!(" (`finishMessage`: {})", crate::lint::printable(m)))
                    .unwrap_or_default();
                emit(
                    out,
                    Finding::new(
                        rule::GEMINI_FINISH_REASON,
                        format!("candidate {i} ended with `{upper}`{why}{empty}: the model did not finish its answer"),
                        loc,
                    )
                    .event(ev)
                    .help("SAFETY, RECITATION and the other filters' reasons mean a filter stopped the output; MALFORMED_FUNCTION_CALL means the model's call was invalid: show the user why, or retry"),
                );
            }
        }
    }

    /// `gemini-usage-decreasing` and `gemini-usage-total`, unless the stream
    /// failed.
    fn check_usage(&mut self, ending: Ending, out: &mut dyn Out) {
        // The final candidatesTokenCount below an earlier chunk's.
        if let (Some((last, (loc, ev))), Some((peak, _))) =
            (self.last_candidates.clone(), &self.peak_candidates)
        {
            if last < *peak && ending != Ending::Failed {
                emit(
                    out,
                    Finding::new(
                        rule::GEMINI_USAGE_DECREASING,
                        format!(
                            "the last chunk's `candidatesTokenCount` is {last}, below an earlier chunk's {peak}: the running counts are estimates, and a client that keeps the highest count bills {peak}"
                        ),
                        loc,
                    )
                    .event(ev)
                    .help("only the last chunk's usage is the bill; if a gateway adds usage up or keeps the maximum, make it keep the last"),
                );
            }
        }
        if let Some((total, sum, (loc, ev))) = self.usage_short.take() {
            if ending != Ending::Failed {
                emit(
                    out,
                    Finding::new(
                        rule::GEMINI_USAGE_TOTAL,
                        format!(
                            "the last chunk's `totalTokenCount` is {total}, below the sum of its parts ({sum}: the prompt, candidates, thoughts and tool-use prompt counts): clients that read the total and clients that add up the parts report different usage"
                        ),
                        loc,
                    )
                    .event(ev)
                    .help("send `totalTokenCount` as `promptTokenCount` + `candidatesTokenCount` + `thoughtsTokenCount` + `toolUsePromptTokenCount`"),
                );
            }
        }
    }

    /// `gemini-cut-off`: no chunk at all (or cut inside the first), or no
    /// `finishReason` for candidate 0 before the end; an unread event or a
    /// damaged capture explains it instead.
    fn check_cut_off(&self, ending: Ending, end: &StreamEnd<'_>, out: &mut dyn Out) {
        let unread = if end.unread() > 0 {
            format!(
                " ({} event(s) could not be read, and one of them may have been it)",
                end.unread()
            )
        } else {
            String::new()
        };
        // An event that could not be read (not JSON, too large) may have
        // been the chunk: its finding is the cause.
        if ending == Ending::Empty && !end.damaged && !end.not_sse && end.unread() == 0 {
            // Cut inside its first chunk (the tail holds its start), or
            // no chunk at all.
            let (what, loc) = match out.transport().tail {
                Some(tail) => ("the stream ended inside its first chunk", tail),
                None => ("no chunk of the stream was read", out.at_end()),
            };
            emit(
                out,
                Finding::new(
                    rule::GEMINI_CUT_OFF,
                    format!(
                        "{what}{}: no candidate, no `finishReason`, so there is no answer",
                        end.broke()
                    ),
                    loc,
                )
                .help("when generation fails, answer with a non-2xx status and Google's JSON error body"),
            );
        }
        if ending == Ending::CutOff && !end.damaged && !end.not_sse {
            let said = self
                .candidates
                .get(&0)
                .map_or("no candidate 0".to_string(), |c| {
                    let mut bits = Vec::new();
                    let text = c.text.kept.len() as u64 + c.text.dropped;
                    bits.push(format!("{text} byte(s) of text"));
                    if !c.calls.is_empty() {
                        bits.push(format!("{} call(s)", c.calls.len()));
                    }
                    bits.join(" and ")
                });
            let loc = out.at_end();
            emit(
                out,
                Finding::new(
                    rule::GEMINI_CUT_OFF,
                    format!(
                        "the stream ended after {} event(s) with no `finishReason` for candidate 0{unread}{}: {said} had come; nothing says the answer is complete",
                        end.events,
                        end.broke()
                    ),
                    loc,
                )
                .help("find what closed the connection early (a proxy timeout, a crash); a whole answer's last chunk carries its `finishReason`, a failed one is an `error` chunk or a non-2xx status"),
            );
        }
    }
}

impl super::Checker for Checker {
    fn event(&mut self, ev: &Event<'_>, out: &mut dyn Out) {
        self.last.clear();
        self.adds.clear();
        self.events += 1;
        if ev.named && ev.index.is_some() {
            self.named += 1;
            if self.first_named.is_none() {
                self.first_named = Some(((out.at_name(), ev.index), shorten(ev.name, 40)));
            }
        }
        if ev.done {
            out.kind("done");
            self.done = true;
            if !self.done_reported {
                self.done_reported = true;
                let loc = out.at_event();
                emit(
                    out,
                    Finding::new(
                        rule::GEMINI_DONE_MARKER,
                        "`data: [DONE]` is not part of a Gemini stream (it ends when the connection closes after the chunk with the `finishReason`): clients that parse every event as a response raise on it",
                        loc,
                    )
                    .event(ev.index)
                    .help("end the stream by closing it after the last chunk; do not add the Chat Completions sentinel"),
                );
            }
            return;
        }
        let Some(v) = ev.json else {
            return;
        };
        let Some(o) = v.as_object() else {
            let t = crate::model::json_type(v);
            self.schema(out, ev, "", format!("the event's data is a JSON {t}, not an object: every chunk is a GenerateContentResponse object"));
            return;
        };
        if let Some(e) = o.get("error").filter(|e| !e.is_null()) {
            out.kind("error");
            let first = self.errored.is_none();
            if first {
                self.errored = Some((out.at_event(), ev.index));
            }
            let code = e.get("code").map(|c| c.to_string()).unwrap_or_default();
            let status = e.get("status").and_then(Value::as_str).unwrap_or("");
            self.last = format!("error {code} {status}");
            if first && !out.muted(rule::GEMINI_ERROR_EVENT.name()) {
                let loc = out.at_event();
                let what = format!(
                    "{}{}",
                    crate::lint::printable(&shorten(&code, 10)),
                    if status.is_empty() {
                        String::new()
                    } else {
                        format!(" {}", crate::lint::printable(&shorten(status, 40)))
                    },
                );
                // After candidate 0's finishReason the answer had come
                // whole: the error does not cut it, it contradicts it.
                let finished = self.candidates.get(&0).and_then(|c| c.finish.as_deref());
                let help = if finished.is_some() {
                    "end the stream after the chunk with the `finishReason`; an error found after the answer must not be sent into the stream that carried it"
                } else {
                    "a gateway must pass the error on as an error (a non-2xx status before the stream, or this chunk), never as a short successful answer"
                };
                let message = match finished {
                    Some(f) => format!(
                        "an `error` chunk ({what}) comes after candidate 0's `finishReason` ({}): the answer had come whole, yet the stream ends in an error, and clients that raise on an error chunk raise after reading all of it",
                        crate::lint::printable(&shorten(f, 40))
                    ),
                    None => format!(
                        "the stream failed after HTTP 200: an `error` chunk ({what}) ends it, and no `finishReason` follows"
                    ),
                };
                out.report(
                    Finding::new(rule::GEMINI_ERROR_EVENT, message, loc)
                        .event(ev.index)
                        .help(help),
                );
            }
            return;
        }
        if !o.keys().any(|k| TOP_FIELDS.contains(&k.as_str())) {
            self.schema(
                out,
                ev,
                "",
                format!(
                    "the chunk has none of a GenerateContentResponse's fields (`candidates`, `promptFeedback`, `usageMetadata`): {}",
                    shorten(&v.to_string(), 60)
                ),
            );
        }
        self.ids(out, ev, o);
        let mut kinds: Vec<&'static str> = Vec::new();
        let block_here = o.get("promptFeedback").and_then(|p| p.get("blockReason"));
        if let Some(b) = block_here {
            let reason = b.as_str().unwrap_or("").to_string();
            if self.blocked.is_none() {
                let at = (
                    out.at_pointer("/promptFeedback/blockReason", false),
                    ev.index,
                );
                self.blocked = Some((reason, at));
            }
            kinds.push("finish");
        }
        match o.get("candidates") {
            None | Some(Value::Null) => {}
            Some(Value::Array(cands)) => {
                if !cands.is_empty() {
                    self.with_candidates += 1;
                }
                for (pos, c) in cands.iter().enumerate() {
                    self.candidate(out, ev, pos, c, &mut kinds);
                }
            }
            Some(other) => {
                let t = crate::model::json_type(other);
                self.schema(
                    out,
                    ev,
                    "/candidates",
                    format!("`candidates` is a JSON {t}, not an array"),
                );
            }
        }
        if let Some(u) = o.get("usageMetadata") {
            self.usage(ev, out, u);
            if kinds.is_empty() {
                kinds.push("usage");
            }
        }
        kinds.dedup();
        for k in &kinds {
            out.kind(k);
        }
        if out.summaries() {
            if let Some((reason, _)) = self.blocked.as_ref().filter(|_| block_here.is_some()) {
                self.adds
                    .push(format!("prompt blocked {}", shorten(reason, 30)));
            }
            if o.contains_key("usageMetadata") {
                self.adds.push("usage".to_string());
            }
            self.last = self.adds.join(", ");
        }
    }

    fn finish(&mut self, end: StreamEnd<'_>, out: &mut dyn Out) -> (Answer, Ending) {
        let mut answer = self.assemble_answer();
        let ending = self.stream_ending();
        self.check_repeated_answer(out);
        self.check_event_lines(out);
        self.check_after_finish(out);
        self.check_prompt_blocked(out);
        self.check_finishes(out);
        self.check_usage(ending, out);
        self.check_cut_off(ending, &end, out);
        self.give_texts(&mut answer);
        (answer, ending)
    }

    fn fast(&mut self, ev: &Event<'_>, out: &mut dyn Out) -> bool {
        self.fast_event(ev, out)
    }

    fn typed_chunks(&self) -> u64 {
        self.typed
    }

    fn summary(&self) -> String {
        if !self.last.is_empty() {
            return self.last.clone();
        }
        let mut s = Vec::new();
        for (i, c) in &self.candidates {
            let mut bits = Vec::new();
            if c.inline > 0 {
                bits.push(format!(
                    "{} inline data part(s), ~{} bytes",
                    c.inline, c.inline_bytes
                ));
            }
            if c.citations > 0 {
                bits.push(format!("{} citation(s)", c.citations));
            }
            if c.grounding {
                bits.push("grounding".to_string());
            }
            if !bits.is_empty() {
                s.push(format!("candidate {i}: {}", bits.join(", ")));
            }
        }
        s.join("; ")
    }
}
