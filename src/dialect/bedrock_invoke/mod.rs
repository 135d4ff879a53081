//! Amazon Bedrock's `InvokeModelWithResponseStream` (`POST
//! /model/MODEL/invoke-with-response-stream`), which rides on the AWS
//! event-stream transport ([`crate::transport::eventstream`]) and wraps
//! the model's own events: each `chunk` frame's payload is
//! `{"bytes": "<base64>"}` (plus Bedrock's `p` padding), and the bytes
//! are one event of the model's API, JSON without SSE framing. For
//! Anthropic's Claude models these are Anthropic Messages events
//! (`message_start` … `message_stop`), the last carrying
//! `amazon-bedrock-invocationMetrics` (`inputTokenCount`,
//! `outputTokenCount`, `invocationLatency`, `firstByteLatency`). An
//! exception comes as a frame whose `:message-type` is `exception` or
//! `error`, as in ConverseStream (the Bedrock API reference,
//! `InvokeModelWithResponseStream` and `ResponseStream`; botocore's
//! `bedrock-runtime` service model; `reference/transports.md` §5-6).
//!
//! The checker unwraps each chunk and hands the inner event to the
//! Messages checker ([`crate::dialect::messages::Checker`]), which judges
//! and assembles it as it would an SSE event named by its `type`, read
//! under the `bedrock` profile (Claude on Bedrock); its findings point at
//! the frame's `bytes` value, since the event's own bytes are not in the
//! body. The wrapper's own rules are the frame (`invoke-frame`), the
//! chunk (`invoke-chunk`: not `{"bytes": …}`, not base64, not a JSON
//! event), the exception (`invoke-exception`) and the metrics
//! (`invoke-metrics`).
//!
//! Other models' events are their own APIs' ([`models`]): the model
//! is told by the request path's model id, else by the first event's
//! shape. Amazon Nova's are ConverseStream's events, read by its checker
//! ([`crate::dialect::bedrock_converse::Checker`]); Titan's, Llama's,
//! Mistral's, Cohere's and AI21's are read for their text, finish reason
//! and usage ([`models::Plain`]), with the wrapper's rules only; a model of
//! no known family is not read (the answer says so), and only the
//! wrapper's rules apply.

pub mod api;
mod fast;
pub mod models;
pub mod words;

use models::Family;

use crate::dialect::bedrock_converse::{exception_kind, report_fault, shown, Exception};
use crate::dialect::{
    bedrock_converse, messages, Checker as _, Event, Hints, Out, StreamEnd, Transport,
};
use crate::lint::rule;
use crate::lint::{Finding, Location, Severity};
use crate::model::assembly::{Answer, Ending};
use crate::model::shorten;
use base64::Engine as _;
use serde_json::Value;

/// The Messages profile the inner events are read under: Claude on
/// Bedrock, whose `message_stop` carries the invocation metrics.
const INNER_PROFILE: &str = "bedrock";

/// The key of the invocation metrics on the last inner event.
const METRICS: &str = "amazon-bedrock-invocationMetrics";

/// One Invoke stream's checks.
#[derive(Debug, Default)]
pub struct Checker {
    /// The Messages checker the unwrapped events go to.
    inner: messages::Checker,
    /// Chunks unwrapped and handed on.
    chunks: u64,
    /// Frames the transport could not read.
    faults: u64,
    /// Chunks that could not be unwrapped (`invoke-chunk`).
    bad_chunks: u64,
    /// Frames of another event type than `chunk` (`invoke-chunk`, info).
    unknown_frames: u64,
    /// The last frame was one the transport could not read (a cut frame
    /// is always the last): its finding says the stream was cut.
    last_faulted: bool,
    exception: Option<String>,
    /// The invocation metrics and where they were.
    metrics: Option<(Value, Location, Option<u64>)>,
    /// Where the inner `message_stop` was, and whether one came.
    stop_at: Option<(Location, Option<u64>)>,
    summary: String,
    /// The fast path's buffer for a chunk's decoded `bytes` (reused).
    decoded: Vec<u8>,
    /// Chunks the fast path took.
    typed_frames: u64,
    /// The inner model, once the path or the first event tells it
    /// (`None` until then: read as Claude, as before any chunk).
    family: Option<Family>,
    /// The model id the request path names.
    model_id: Option<String>,
    /// Amazon Nova's events: ConverseStream's checker.
    nova: Option<Box<bedrock_converse::Checker>>,
    /// Titan's, Llama's, Mistral's, Cohere's or AI21's events.
    plain: Option<Box<models::Plain>>,
}

/// The outer linter, seen by the Messages checker: findings on an inner
/// event point at its frame's `bytes`, and the inner events are read
/// under [`INNER_PROFILE`]. A rule in `quiet` is muted without being
/// counted: the wrapper reports that fault itself.
struct Inner<'a> {
    out: &'a mut dyn Out,
    quiet: Option<&'static str>,
}

impl<'a> Inner<'a> {
    fn of(out: &'a mut dyn Out) -> Self {
        Inner { out, quiet: None }
    }
}

impl Out for Inner<'_> {
    fn report(&mut self, f: Finding) {
        if self.quiet != Some(f.rule) {
            self.out.report(f);
        }
    }
    fn at_event(&self) -> Location {
        self.out.at_pointer("/bytes", false)
    }
    fn at_pointer(&self, _pointer: &str, _key: bool) -> Location {
        self.out.at_pointer("/bytes", false)
    }
    fn at_name(&self) -> Location {
        self.out.at_pointer("/bytes", false)
    }
    fn at_end(&self) -> Location {
        self.out.at_end()
    }
    fn kind(&mut self, kind: &'static str) {
        self.out.kind(kind);
    }
    fn muted(&mut self, rule: &'static str) -> bool {
        self.quiet == Some(rule) || self.out.muted(rule)
    }
    fn profile(&self) -> &'static str {
        INNER_PROFILE
    }
    fn allowed(&self, pointer: &str) -> bool {
        self.out.allowed(pointer)
    }
    fn summaries(&self) -> bool {
        self.out.summaries()
    }
    fn invalid_json(&mut self, invalid: &crate::model::InvalidJson) {
        self.out.invalid_json(invalid);
    }
    fn transport(&self) -> Transport {
        self.out.transport()
    }
    fn header(&self, name: &str) -> Option<&str> {
        self.out.header(name)
    }
}

impl crate::dialect::Checker for Checker {
    fn takes_unparsed(&mut self, ev: &Event<'_>, out: &mut dyn Out) -> bool {
        let Some(kind) = exception_kind(out) else {
            return false;
        };
        self.summary.clear();
        self.last_faulted = false;
        self.exception_frame(ev, &kind, out);
        true
    }

    fn fast(&mut self, ev: &Event<'_>, out: &mut dyn Out) -> bool {
        // Only Claude's deltas have a fast path (and only a stream known
        // to be Claude's, or not yet known: its first event settles it).
        matches!(self.family, None | Some(Family::Claude)) && self.fast_chunk(ev, out)
    }

    fn request_url(&mut self, url: &str) {
        self.model_id = models::model_id_of_url(url);
        self.family = self.model_id.as_deref().and_then(models::of_model_id);
    }

    fn typed_chunks(&self) -> u64 {
        self.typed_frames
    }

    fn event(&mut self, ev: &Event<'_>, out: &mut dyn Out) {
        self.summary.clear();
        self.last_faulted = false;
        if let Some(kind) = exception_kind(out) {
            self.exception_frame(ev, &kind, out);
            return;
        }
        if ev.name != "chunk" {
            out.kind("unknown");
            self.bad_chunk(
                ev,
                "",
                format!("a frame of type `{}`, where an Invoke stream sends only `chunk` frames: the SDKs read past an event type they do not know, and nothing it carries reaches the answer{}", shown(ev.name), if is_converse_event(ev.name) { " (it is a ConverseStream event: a gateway answered an Invoke request with a ConverseStream)" } else { "" }),
                // Dropped whole, as the SDKs drop it: what the answer lost
                // with it is the Messages checker's to report.
                Severity::Info,
                out,
            );
            return;
        }
        match unwrap(ev.json) {
            Ok(inner) => self.inner_event(ev, &inner, out),
            Err((pointer, why)) => self.bad_chunk(ev, pointer, why, Severity::Error, out),
        }
    }

    fn fault(&mut self, index: Option<u64>, what: &str, out: &mut dyn Out) {
        self.faults += 1;
        self.last_faulted = true;
        self.inner.rejected(index);
        if self.faults == 1 {
            report_fault(rule::INVOKE_FRAME, index, what, out);
        }
    }

    fn rejected(&mut self, index: Option<u64>) {
        self.inner.rejected(index);
    }

    fn setup(
        &mut self,
        settings: &crate::lint::Settings,
        request: Option<&crate::dialect::chat::RequestOptions>,
    ) {
        self.inner.setup(settings, request);
    }

    fn finish(&mut self, end: StreamEnd<'_>, out: &mut dyn Out) -> (Answer, Ending) {
        if !matches!(self.family, None | Some(Family::Claude)) {
            return self.finish_other(end, out);
        }
        // A stream whose last frame could not be read ends there:
        // `invoke-frame` says so, and Messages' cut-off would say it again.
        let quiet = self.last_faulted.then_some(rule::MESSAGES_CUT_OFF.name());
        let (answer, ending) = self.inner.finish(
            end,
            &mut Inner {
                out: &mut *out,
                quiet,
            },
        );
        if self.exception.is_some() {
            return (answer, Ending::Failed);
        }
        if ending == Ending::Complete {
            self.check_metrics(&answer, out);
        }
        (answer, ending)
    }

    fn summary(&self) -> String {
        if self.summary.is_empty() {
            self.inner.summary()
        } else {
            self.summary.clone()
        }
    }

    fn hints(&self) -> Hints {
        Hints {
            model: self.inner.hints().model,
            dialect: Some(crate::vocab::Dialect::BedrockInvoke),
            ..Hints::default()
        }
    }
}

/// The inner event of a `chunk` payload: `bytes` decoded from base64, as
/// JSON. Errs with the pointer at fault and why.
fn unwrap(json: Option<&Value>) -> Result<Value, (&'static str, String)> {
    let Some(o) = json.and_then(Value::as_object) else {
        return Err((
            "",
            "the chunk's payload is not a JSON object `{\"bytes\": …}`: there is no event in it"
                .to_string(),
        ));
    };
    let Some(b64) = o.get("bytes").and_then(Value::as_str) else {
        return Err((
            "",
            "the chunk has no `bytes` string: there is no event in it".to_string(),
        ));
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .map_err(|e| {
            (
                "/bytes",
                format!("the chunk's `bytes` is not base64 ({e}): the SDKs raise when they decode it, and the stream ends there"),
            )
        })?;
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(v) if v.is_object() => Ok(v),
        Ok(v) => Err((
            "/bytes",
            format!(
                "the chunk's `bytes` decode to a JSON {}, not an event object",
                crate::model::json_type(&v)
            ),
        )),
        Err(e) => Err((
            "/bytes",
            format!(
                "the chunk's `bytes` decode to {} that is not JSON ({e}): {:?}",
                if std::str::from_utf8(&bytes).is_ok() {
                    "text"
                } else {
                    "bytes"
                },
                shorten(&String::from_utf8_lossy(&bytes), 60)
            ),
        )),
    }
}

/// Whether `name` is one of ConverseStream's event types.
fn is_converse_event(name: &str) -> bool {
    crate::dialect::Dialect::BedrockConverse
        .api()
        .message_types()
        .contains(&name)
}

impl Checker {
    /// An `exception` or `error` frame: `invoke-exception`, once. The
    /// Messages checker hears it as Messages' own `error` event, so it ends
    /// the answer as failed, not cut off; the finding is the wrapper's (its
    /// `messages-error-event` is muted, uncounted).
    fn exception_frame(&mut self, ev: &Event<'_>, kind: &str, out: &mut dyn Out) {
        let e = Exception::of(ev, kind, out);
        self.summary = e.summary();
        if self.exception.is_none() {
            e.report(rule::INVOKE_EXCEPTION, ev.index, out);
            let error =
                serde_json::json!({"type": "error", "error": {"type": e.name, "message": e.text}});
            let data = error.to_string();
            let iev = Event {
                index: ev.index,
                name: "error",
                named: true,
                id: None,
                data: &data,
                json: Some(&error),
                done: false,
            };
            let mut inner = Inner {
                out: &mut *out,
                quiet: Some(rule::MESSAGES_ERROR_EVENT.name()),
            };
            self.inner.event(&iev, &mut inner);
        }
        self.exception = Some(e.name);
    }

    /// A chunk unwrapped: its event to the Messages checker, named by its
    /// `type` (the SDKs' Bedrock decoders read it by its type).
    fn inner_event(&mut self, ev: &Event<'_>, inner: &Value, out: &mut dyn Out) {
        let family = *self
            .family
            .get_or_insert_with(|| models::of_event(inner).unwrap_or(Family::Other));
        if family != Family::Claude {
            self.other_event(family, ev, inner, out);
            return;
        }
        self.chunks += 1;
        let data = inner.to_string();
        let ty = inner.get("type").and_then(Value::as_str);
        let iev = Event {
            index: ev.index,
            name: ty.unwrap_or("message"),
            named: ty.is_some(),
            id: None,
            data: &data,
            json: Some(inner),
            done: false,
        };
        if let Some(m) = inner.get(METRICS) {
            self.metrics = Some((m.clone(), out.at_pointer("/bytes", false), ev.index));
        }
        if ty == Some("message_stop") {
            self.stop_at = Some((out.at_pointer("/bytes", false), ev.index));
        }
        self.inner.event(&iev, &mut Inner::of(&mut *out));
    }

    /// A chunk of another model than Claude: Nova's to ConverseStream's
    /// checker, Titan's, Llama's, … read for their answer, another
    /// model's not read.
    fn other_event(&mut self, family: Family, ev: &Event<'_>, inner: &Value, out: &mut dyn Out) {
        self.chunks += 1;
        if let Some(m) = inner.get(METRICS) {
            out.kind("usage");
            self.metrics = Some((m.clone(), out.at_pointer("/bytes", false), ev.index));
        }
        match family {
            Family::Nova => {
                // Each event is an object of one key, its type (the last
                // also carries the invocation metrics).
                let Some((name, v)) = inner
                    .as_object()
                    .and_then(|o| o.iter().find(|(k, _)| k.as_str() != METRICS))
                else {
                    return;
                };
                let data = v.to_string();
                let iev = Event {
                    index: ev.index,
                    name,
                    named: true,
                    id: None,
                    data: &data,
                    json: Some(v),
                    done: false,
                };
                let nova = self.nova.get_or_insert_with(Default::default);
                nova.event(&iev, &mut Inner::of(&mut *out));
                self.summary = nova.summary();
            }
            Family::Claude | Family::Other => {
                out.kind("unknown");
            }
            _ => {
                let added = self
                    .plain
                    .get_or_insert_with(Default::default)
                    .event(family, inner);
                if let Some(t) = added.text.as_deref().filter(|t| !t.is_empty()) {
                    out.kind("content");
                    if out.summaries() {
                        self.summary = format!("{:?}", shorten(t, 60));
                    }
                }
                if let Some(f) = &added.finish {
                    out.kind("finish");
                    self.summary = format!("finish {}", shown(f));
                }
            }
        }
    }

    /// The end of a stream of another model than Claude: its answer and
    /// ending, `invoke-metrics` when a complete stream has none (the
    /// counts are not compared: the model's own are not Messages' usage).
    fn finish_other(&mut self, end: StreamEnd<'_>, out: &mut dyn Out) -> (Answer, Ending) {
        let family = self.family.unwrap_or(Family::Other);
        let metrics = self.metrics.as_ref().map(|(m, _, _)| m);
        let (answer, ending) = match family {
            Family::Nova => {
                let mut nova = self.nova.take().unwrap_or_default();
                // A frame the transport could not read, or a chunk that
                // could not be unwrapped, is the wrapper's finding: the
                // cut is not said again.
                let broken = self.faults + self.bad_chunks > 0;
                let quiet = broken.then_some(rule::CONVERSE_CUT_OFF.name());
                let (mut answer, ending) = nova.finish(
                    end,
                    &mut Inner {
                        out: &mut *out,
                        quiet,
                    },
                );
                // ConverseStream's `metadata` usage is the model's own count.
                let own = answer.usage.take();
                let n = |k: &str| own.as_ref().and_then(|u| u.get(k)).and_then(Value::as_u64);
                answer.usage = models::usage(metrics, n("inputTokens"), n("outputTokens"));
                (answer, ending)
            }
            Family::Claude | Family::Other => {
                let model = match &self.model_id {
                    Some(id) => format!("model {}", crate::lint::printable(&shorten(id, 120))),
                    None => "their shape is no known model's".to_string(),
                };
                let answer = Answer {
                    chunks_with_choices: self.chunks,
                    empty: Some(format!(
                        "the inner model's events are not read ({model}): only the Invoke wrapper is checked"
                    )),
                    ..Answer::default()
                };
                let ending = if self.chunks == 0 {
                    Ending::Empty
                } else if metrics.is_some() {
                    // Bedrock adds its metrics to the last chunk.
                    Ending::Complete
                } else {
                    Ending::CutOff
                };
                (answer, ending)
            }
            _ => {
                let plain = self.plain.take().unwrap_or_default();
                let (finished, events) = (plain.finished(), plain.events);
                let answer = plain.into_answer(metrics);
                let ending = if finished {
                    Ending::Complete
                } else if events == 0 {
                    Ending::Empty
                } else {
                    Ending::CutOff
                };
                (answer, ending)
            }
        };
        if self.exception.is_some() {
            return (answer, Ending::Failed);
        }
        if ending == Ending::Complete {
            self.check_metrics(&Answer::default(), out);
        } else if ending == Ending::CutOff && family != Family::Nova {
            self.report_cut_off(family, &answer, out);
        }
        (answer, ending)
    }

    /// `invoke-cut-off`: a stream of a model read here (not Claude, whose
    /// cut is `messages-cut-off`, nor Nova, `converse-cut-off`) that ended
    /// with no final chunk, at its last byte. A frame the transport could
    /// not read, or a chunk that could not be unwrapped, is the wrapper's
    /// finding: the cut is not said again.
    fn report_cut_off(&self, family: Family, answer: &Answer, out: &mut dyn Out) {
        if self.faults + self.bad_chunks > 0 || out.muted(rule::INVOKE_CUT_OFF.name()) {
            return;
        }
        let chars = answer
            .choices
            .get(&0)
            .map_or(0, |c| c.text.kept.chars().count());
        out.report(
            Finding::new(
                rule::INVOKE_CUT_OFF,
                format!(
                    "the {} stream ended after {} chunk(s) ({chars} characters of text) with no final chunk: no {} and no `{METRICS}`; the answer is incomplete, yet clients show it as if it were whole",
                    family.name(),
                    self.chunks,
                    family.finish_field()
                ),
                out.at_end(),
            )
            .help("the server (or a proxy) closed the connection early; check its timeouts and error logs"),
        );
    }

    /// `invoke-chunk`, once per stream, at `level`: an error for a `chunk`
    /// whose `bytes` the SDKs cannot decode (they raise), info for a frame
    /// of another type (they drop it and read on). The Messages checker
    /// hears the event was lost.
    fn bad_chunk(
        &mut self,
        ev: &Event<'_>,
        pointer: &str,
        why: String,
        level: Severity,
        out: &mut dyn Out,
    ) {
        self.inner.rejected(ev.index);
        // One finding of each level per stream.
        let seen = if level == Severity::Info {
            &mut self.unknown_frames
        } else {
            &mut self.bad_chunks
        };
        *seen += 1;
        if *seen > 1 || out.muted(rule::INVOKE_CHUNK.name()) {
            return;
        }
        let loc = out.at_pointer(pointer, false);
        let mut f = Finding::new(rule::INVOKE_CHUNK, why, loc)
            .event(ev.index)
            .help("send each event as a `chunk` frame whose payload is `{\"bytes\": \"<base64 of the event's JSON>\"}`")
            .level(level);
        if !pointer.is_empty() {
            f = f.pointer(pointer);
        }
        out.report(f);
    }

    /// `invoke-metrics`: a complete stream whose last event has no
    /// `amazon-bedrock-invocationMetrics`, or whose counts are not
    /// integers or disagree with the Messages usage.
    fn check_metrics(&mut self, answer: &Answer, out: &mut dyn Out) {
        if out.muted(rule::INVOKE_METRICS.name()) {
            return;
        }
        let Some((m, loc, index)) = self.metrics.take() else {
            let (loc, index) = self.stop_at.take().unwrap_or_else(|| (out.at_end(), None));
            out.report(
                Finding::new(
                    rule::INVOKE_METRICS,
                    format!("the stream ends with no `{METRICS}` on its last event: Bedrock's own count of the tokens billed (inputTokenCount, outputTokenCount) and the latencies are missing, as when a gateway drops them"),
                    loc,
                )
                .event(index)
                .help("pass the `message_stop` event on as Bedrock sent it, with its invocation metrics"),
            );
            return;
        };
        let count = |k: &str| m.get(k).and_then(Value::as_u64);
        let bad: Vec<&str> = ["inputTokenCount", "outputTokenCount"]
            .into_iter()
            .filter(|k| count(k).is_none())
            .collect();
        let why = if !bad.is_empty() {
            format!(
                "`{METRICS}` has no integer `{}`: Bedrock's count of the tokens billed is missing",
                bad.join("` or `")
            )
        } else {
            let usage = answer.usage.as_ref();
            let n = |k: &str| usage.and_then(|u| u.get(k)).and_then(Value::as_u64);
            let (input, output) = (count("inputTokenCount"), count("outputTokenCount"));
            let mut differ = Vec::new();
            if n("input_tokens").is_some_and(|u| Some(u) != input) {
                differ.push(format!(
                    "inputTokenCount {} against input_tokens {}",
                    input.unwrap_or(0),
                    n("input_tokens").unwrap_or(0)
                ));
            }
            if n("output_tokens").is_some_and(|u| Some(u) != output) {
                differ.push(format!(
                    "outputTokenCount {} against output_tokens {}",
                    output.unwrap_or(0),
                    n("output_tokens").unwrap_or(0)
                ));
            }
            if differ.is_empty() {
                return;
            }
            format!(
                "`{METRICS}` disagrees with the usage the events report ({}): one of the two counts is wrong",
                differ.join("; ")
            )
        };
        out.report(
            Finding::new(rule::INVOKE_METRICS, why, loc)
                .event(index)
                .help(
                "pass the `message_stop` event on as Bedrock sent it, with its invocation metrics",
            ),
        );
    }
}
