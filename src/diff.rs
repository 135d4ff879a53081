//! Comparing two streams point by point, the way a client would notice:
//! the answer (word by word), finish reasons, usage, tool calls (arguments
//! compared as JSON), the shape (which kinds of chunks come in which order,
//! how the text is chunked, how the stream ends), the fields each side uses
//! (classified as OpenAI's, a known extension, or unknown), each side's
//! findings, and timing where both captures have it.
//!
//! Two streams of different dialects (Chat Completions against Responses
//! or Anthropic Messages: the migration question) are compared on what
//! both have: the answer, tool calls with arguments as JSON, the finish
//! mapped to one vocabulary ([`finish_class`]), usage on one footing
//! ([`UsageCounts`]: cached tokens inside the input, as OpenAI counts them),
//! the ending, the findings (one fault under each dialect's name for it is
//! one finding, [`Words::faults`](crate::dialect::words::Words::faults); a rule of one dialect alone is weighed by
//! its severity) and timing. The rows that do not apply across dialects
//! (chunk sequence, `[DONE]`, usage placement, fields) are named in
//! [`Comparison::not_applicable`] instead of being compared.
//!
//! Two streams on different transports (an Ollama NDJSON body or a
//! Bedrock event-stream body against an SSE one) are compared the same
//! way: the framing rows (line endings, keep-alive comments, `data:`
//! spacing) belong to one transport and are named among what is not
//! compared, and a framing rule of one side's transport is weighed as a
//! rule of its own dialect is, by its severity. How the bytes were framed
//! is no difference in the answer.
//!
//! A byte diff of two streams is useless (ids, timings and chunking always
//! differ); this compares what matters. It only reads results of the
//! pipeline; it renders nothing (see `report::diff`).

use crate::capture::{self, Timing};
use crate::checks::Linter;
use crate::dialect::words::{self, Fault, Words};
use crate::lint::{Diagnostic, Settings, Severity};
use crate::pipeline::{self, Observer, StreamResult};
use crate::sse::{Block, LineKind};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The shape of a stream as the diff sees it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Shape {
    /// Chunk kinds in order, runs compressed: (`role+content`, 1),
    /// (`content`, 42), (`finish`, 1), (`[DONE]`, 1).
    pub sequence: Vec<(String, u64)>,
    /// Dispatched events.
    pub events: u64,
    /// Chunks that carried content.
    pub content_chunks: u64,
    /// Characters of content over all chunks.
    pub content_chars: u64,
    /// Comment lines (keep-alives).
    pub comments: u64,
    /// `[DONE]` came.
    pub done: bool,
    /// Every field pointer (indices folded) → the chunk kinds it appeared in.
    pub fields: BTreeMap<String, BTreeSet<String>>,
    /// Time of the first content chunk (ms), where the capture has timing.
    pub first_content_ms: Option<f64>,
    /// Time of the last event (ms).
    pub total_ms: Option<f64>,
    /// The largest gap between two events (ms) and the event after it.
    pub largest_gap_ms: Option<(f64, u64)>,
    /// Chunks that carried usage, and the kind of each (to say where usage
    /// comes: on its own chunk, on the finish chunk, on every chunk).
    pub usage_kinds: Vec<String>,
}

impl Shape {
    /// The sequence as text: `role · content×42 · finish · [DONE]`.
    pub fn sequence_text(&self) -> String {
        self.sequence
            .iter()
            .map(|(k, n)| {
                if *n == 1 {
                    k.clone()
                } else {
                    format!("{k}×{n}")
                }
            })
            .collect::<Vec<_>>()
            .join(" · ")
    }

    /// The same with counts dropped, to tell chunking from structure.
    fn sequence_kinds(&self) -> Vec<&str> {
        self.sequence.iter().map(|(k, _)| k.as_str()).collect()
    }

    /// Where usage comes, in words.
    pub fn usage_placement(&self) -> String {
        match self.usage_kinds.as_slice() {
            [] => "none".to_string(),
            [k] if k == "usage" => "its own chunk after the finish".to_string(),
            [k] if k.contains("finish") => "the finish chunk".to_string(),
            [k] => format!("one {k} chunk"),
            ks => format!("{} chunks", ks.len()),
        }
    }

    /// Average content characters per content chunk.
    pub fn avg_content(&self) -> f64 {
        if self.content_chunks == 0 {
            0.0
        } else {
            self.content_chars as f64 / self.content_chunks as f64
        }
    }
}

/// Builds a [`Shape`] while the pipeline runs.
struct ShapeRecorder {
    shape: Shape,
    timing: Option<Timing>,
    last_ms: Option<f64>,
    /// The HTML page's recorder, for the timeline (only when asked).
    log: Option<crate::streamlog::StreamLog>,
}

impl ShapeRecorder {
    /// Counts the event `linter` just read (an SSE event, or a socket's
    /// received message) into the shape: its kinds joined by `+`
    /// (`other` when it has none), content chunks, usage kinds and the
    /// fields seen per kind. With `sse`, a `done` event is `[DONE]` and
    /// marks the stream done. Returns the kind.
    fn count_kinds(&mut self, linter: &Linter<'_>, sse: bool) -> String {
        self.shape.events += 1;
        let kind = match linter.event_kind.as_slice() {
            [] => "other".to_string(),
            ["done"] if sse => "[DONE]".to_string(),
            ks => ks.join("+"),
        };
        if sse && kind == "[DONE]" {
            self.shape.done = true;
        }
        if linter.event_kind.contains(&"content") {
            self.shape.content_chunks += 1;
        }
        if linter.event_kind.contains(&"usage") {
            self.shape.usage_kinds.push(kind.clone());
        }
        if let Some(fields) = &linter.fields_seen {
            for f in fields {
                self.shape
                    .fields
                    .entry(f.clone())
                    .or_default()
                    .insert(kind.clone());
            }
        }
        kind
    }

    fn push_kind(&mut self, kind: String) {
        match self.shape.sequence.last_mut() {
            Some((k, n)) if *k == kind => *n += 1,
            _ => self.shape.sequence.push((kind, 1)),
        }
    }
}

impl Observer for ShapeRecorder {
    fn block(&mut self, block: &Block<'_>, new: &[Diagnostic], linter: &Linter<'_>) {
        if let Some(log) = self.log.as_mut() {
            log.block(block, new, linter);
        }
        let comments = block
            .lines
            .iter()
            .filter(|l| l.kind == LineKind::Comment)
            .count() as u64
            + block.skipped_comments.lines;
        self.shape.comments += comments;
        let Some(d) = &block.dispatch else {
            return;
        };
        let kind = self.count_kinds(linter, true);
        if let Some(t) = self
            .timing
            .as_ref()
            .and_then(|t| t.time_of(block.end_offset, Some(d.index)))
        {
            if linter.event_kind.contains(&"content") && self.shape.first_content_ms.is_none() {
                self.shape.first_content_ms = Some(t);
            }
            if let Some(prev) = self.last_ms {
                let gap = t - prev;
                if self.shape.largest_gap_ms.is_none_or(|(g, _)| gap > g) {
                    self.shape.largest_gap_ms = Some((gap, d.index));
                }
            }
            self.last_ms = Some(t);
            self.shape.total_ms = Some(t);
        }
        self.push_kind(kind);
    }

    /// A socket's received message, as an SSE event is: its kinds in the
    /// sequence (what the client sent is no event of the answer). Other
    /// transports' messages are not recorded here.
    fn message(
        &mut self,
        m: &crate::transport::Message<'_>,
        _new: &[Diagnostic],
        linter: &Linter<'_>,
    ) {
        if m.direction() != Some(crate::transport::Direction::Received)
            || !matches!(m.frame(), Some(crate::transport::Frame::Text))
        {
            return;
        }
        let kind = self.count_kinds(linter, false);
        self.push_kind(kind);
    }
}

/// One side of a comparison.
#[derive(Debug)]
pub struct Side {
    /// The input as given (`file.har#3` included).
    pub spec: String,
    /// The stream's lint result.
    pub result: StreamResult,
    /// Its shape.
    pub shape: Shape,
    /// The capture's format detail (`raw body`, `curl -i`, `har`).
    pub detail: &'static str,
    /// The request URL, secrets redacted, where the capture has it.
    pub url: Option<String>,
    /// Answer characters and bytes over time, where the capture has
    /// timings and [`read_side_with`] was asked for them.
    pub timeline: Option<crate::streamlog::Timeline>,
}

/// The most labels a refused socket's message names ([`SideError::Responses`]);
/// the others are counted.
pub const SHOWN_RESPONSES: usize = 20;

/// Why a side of a diff could not be read ([`read_side`]); the message
/// names the input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SideError {
    /// The input could not be read as a capture.
    #[error(transparent)]
    Input(#[from] capture::InputError),
    /// It holds several streams (their labels) and none was picked.
    #[error("{path}: holds {} SSE streams; pick one as {path}#N (the entry index):\n{}", labels.len(), labels.iter().map(|l| format!("  {l}")).collect::<Vec<_>>().join("\n"))]
    Streams {
        /// The input, without its `#N`.
        path: String,
        /// Each stream's label.
        labels: Vec<String>,
    },
    /// It is a socket that carries several responses (their labels):
    /// diff compares one answer with one.
    #[error("{path}: a socket carrying {count} responses; diff compares one response with one (save a capture of one turn):\n{}{}", labels.iter().map(|l| format!("  {l}")).collect::<Vec<_>>().join("\n"), if *count > labels.len() { format!("\n  … and {} more", count - labels.len()) } else { String::new() })]
    Responses {
        /// The input, without its `#N`.
        path: String,
        /// The results the socket gave (its responses, and its own
        /// findings' stream when they are not one response's).
        count: usize,
        /// The first [`SHOWN_RESPONSES`] results' labels.
        labels: Vec<String>,
    },
    /// It holds no stream.
    #[error("{path}: no stream")]
    NoStream {
        /// The input, without its `#N`.
        path: String,
    },
}

/// Reads one side: `PATH` or `PATH#N` (HAR entry N). A capture with
/// several SSE streams needs an entry.
///
/// # Errors
/// The input cannot be read, or holds several streams and none was picked
/// ([`SideError`]).
pub fn read_side(
    spec: &str,
    opts: &capture::Options,
    settings: &Settings,
) -> Result<Side, SideError> {
    read_side_with(spec, opts, settings, false)
}

/// [`read_side`], recording the stream's timeline too when `timeline` is
/// set (for the HTML page).
///
/// # Errors
/// As [`read_side`].
pub fn read_side_with(
    spec: &str,
    opts: &capture::Options,
    settings: &Settings,
    timeline: bool,
) -> Result<Side, SideError> {
    // `PATH#N` is read by `capture::open`, as in every command.
    let cap = capture::open(spec, opts)?;
    let path = capture::entry_spec(spec).map_or(spec, |(p, _)| p);
    let detail = cap.detail;
    let n = cap.streams.len();
    if n != 1 {
        return Err(SideError::Streams {
            path: path.to_string(),
            labels: cap.streams.iter().map(|s| s.label.clone()).collect(),
        });
    }
    let Some(stream) = cap.streams.into_iter().next() else {
        return Err(SideError::NoStream {
            path: path.to_string(),
        });
    };
    let url = stream.request.as_ref().map(|r| capture::redact_url(&r.url));
    let mut rec = ShapeRecorder {
        shape: Shape::default(),
        timing: stream.timing.clone(),
        last_ms: None,
        log: timeline.then(|| {
            crate::streamlog::StreamLog::new(None, stream.timing.clone(), settings.stall_ms)
        }),
    };
    // A socket's log carries several streams: one response (with the
    // socket's own findings) is compared; several are refused, named by
    // the first few labels. Two results are kept at most, whatever the
    // number of responses.
    let mut results = Vec::new();
    let mut labels = Vec::new();
    let mut count = 0;
    pipeline::lint_streams_each(
        stream,
        settings,
        &mut rec,
        pipeline::Extras {
            fields: true,
            summaries: false,
        },
        &mut |r| {
            count += 1;
            if labels.len() < SHOWN_RESPONSES {
                labels.push(r.label.clone());
            }
            if results.len() < 2 {
                results.push(r);
            }
        },
    );
    if count == 2 && results[1].label.ends_with(" · socket") {
        let socket = results.pop().expect("two results");
        let r = &mut results[0];
        r.diagnostics.extend(socket.diagnostics);
        r.counts.0 += socket.counts.0;
        r.counts.1 += socket.counts.1;
        r.counts.2 += socket.counts.2;
        count = 1;
    }
    if count > 1 {
        return Err(SideError::Responses {
            path: path.to_string(),
            count,
            labels,
        });
    }
    let Some(result) = results.pop() else {
        return Err(SideError::NoStream {
            path: path.to_string(),
        });
    };
    in_words(&mut rec.shape, crate::dialect::words::of(result.dialect));
    rec.shape.content_chars = result
        .answer
        .choices
        .values()
        .map(|c| c.text.kept.chars().count() as u64)
        .sum();
    let timeline = rec.log.and_then(|l| l.timeline).map(|mut t| {
        t.finish();
        t
    });
    Ok(Side {
        spec: spec.to_string(),
        result,
        shape: rec.shape,
        detail,
        url,
        timeline,
    })
}

/// Names the shape's event kinds in the stream's dialect: its end marker
/// (`message_stop`) where the pipeline says `[DONE]`, its keep-alive
/// (`ping`) where it says `keepalive`.
fn in_words(shape: &mut Shape, w: &crate::dialect::words::Words) {
    let rename = |kind: &str| -> String {
        if kind == "[DONE]" {
            return w.end_marker.to_string();
        }
        kind.split('+')
            .map(|k| if k == "keepalive" { w.keepalive } else { k })
            .collect::<Vec<_>>()
            .join("+")
    };
    for (k, _) in &mut shape.sequence {
        *k = rename(k);
    }
    for k in &mut shape.usage_kinds {
        *k = rename(k);
    }
    for kinds in shape.fields.values_mut() {
        *kinds = kinds.iter().map(|k| rename(k)).collect();
    }
}

/// Options of a comparison.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Compare shape and fields only (different prompts).
    pub ignore_text: bool,
    /// Findings on B that A lacks count against compatibility from this
    /// severity on (`None`: never).
    pub fail_on: Option<Severity>,
}

/// What part of the streams a difference is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Section {
    /// Text, refusal, reasoning, finish_reason, usage numbers.
    Answer,
    /// Tool calls.
    ToolCalls,
    /// Chunk kinds, chunking, ending, `[DONE]`, comments, framing.
    Shape,
    /// Field pointers only one side uses.
    Fields,
    /// Findings only one side has.
    Diagnostics,
    /// Time to first content, total, largest gap.
    Timing,
}

impl Section {
    /// The section's name.
    pub fn name(self) -> &'static str {
        match self {
            Section::Answer => "answer",
            Section::ToolCalls => "tool calls",
            Section::Shape => "shape",
            Section::Fields => "fields",
            Section::Diagnostics => "diagnostics",
            Section::Timing => "timing",
        }
    }
}

/// One difference.
#[derive(Debug, Clone, Serialize)]
pub struct Difference {
    /// Where.
    pub section: Section,
    /// What (`choice 0 text`, `ending`, `/choices/*/delta/reasoning_content`).
    pub item: String,
    /// A's value, as text.
    pub a: String,
    /// B's value, as text.
    pub b: String,
    /// A classification: for fields `openai-schema`, `extension (Provider)`
    /// or `unknown`; for shape the aspect (`ending`, `chunking`, …).
    pub class: String,
}

/// A word-level diff of one choice's text.
#[derive(Debug, Clone, Serialize)]
pub struct TextDiff {
    /// The choice index.
    pub choice: u64,
    /// What the text is, in the dialect's words (`choice 0 text`,
    /// `message text`).
    #[serde(skip)]
    pub label: String,
    /// Runs of (`equal` | `delete` | `insert`, text).
    pub ops: Vec<(&'static str, String)>,
    /// Set when either text ran past what sselint keeps
    /// ([`crate::model::assembly::MAX_TEXT_BYTES`]): the runs cover only
    /// the kept bytes; the texts were compared whole, by length and hash.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub cut: Option<TextCut>,
}

/// How much of two texts a [`TextDiff`] shows, when not all (bytes).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct TextCut {
    /// A's whole text.
    pub a_bytes: u64,
    /// B's whole text.
    pub b_bytes: u64,
    /// A's bytes the runs show (its first ones).
    pub a_shown_bytes: u64,
    /// B's bytes the runs show.
    pub b_shown_bytes: u64,
}

impl TextCut {
    /// The cut of texts `a` and `b`, when either was not kept whole.
    pub fn of(a: &crate::model::assembly::Text, b: &crate::model::assembly::Text) -> Option<Self> {
        (a.dropped > 0 || b.dropped > 0).then(|| TextCut {
            a_bytes: a.received(),
            b_bytes: b.received(),
            a_shown_bytes: a.kept.len() as u64,
            b_shown_bytes: b.kept.len() as u64,
        })
    }

    /// What the cut means, for people: `the texts (A 1150003 bytes, B
    /// 1150003) run past the first 1 MiB that sselint keeps of each: they
    /// were compared whole, by length and hash, and the words above are
    /// their first 1048576 and 1048576 bytes`.
    pub fn describe(&self) -> String {
        let kept = crate::model::assembly::MAX_TEXT_BYTES >> 20;
        format!(
            "the texts (A {} bytes, B {}) run past the first {kept} MiB that sselint keeps of each: they were compared whole, by length and hash, and the words above are their first {} and {} bytes",
            self.a_bytes, self.b_bytes, self.a_shown_bytes, self.b_shown_bytes
        )
    }
}

/// The comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// Every difference, by section.
    pub differences: Vec<Difference>,
    /// Word diffs of texts that differ.
    pub text_diffs: Vec<TextDiff>,
    /// Rules found only on A, only on B, on both (with counts per side).
    pub diagnostics: DiagnosticsDiff,
    /// Compatible under the options.
    pub compatible: bool,
    /// Why not, when not.
    pub reasons: Vec<String>,
    /// The dialects of A and B (`None`: no known dialect); the JSON has
    /// them per side.
    #[serde(skip)]
    pub dialects: (
        Option<crate::dialect::Dialect>,
        Option<crate::dialect::Dialect>,
    ),
    /// Rows left out because the two streams are of different dialects,
    /// each with why.
    pub not_applicable: Vec<String>,
    /// What the verdict weighed without counting it (across dialects:
    /// findings of each side's own dialect at the same level).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The answers' text and tool calls were left out (`--ignore-text`):
    /// the verdict must not call them the same.
    #[serde(skip)]
    pub ignored_text: bool,
}

/// A finish in one vocabulary across dialects: `stop` (Chat `stop`,
/// Responses `completed` without function calls, Messages `end_turn` and
/// `stop_sequence`), `length` (Chat `length`, Responses `incomplete` for
/// `max_output_tokens`, Messages `max_tokens`), `tool_calls` (Chat
/// `tool_calls`, Responses `completed` with function calls, Messages
/// `tool_use`), `content_filter` (Chat `content_filter`, Responses
/// `incomplete` for `content_filter`, Messages `refusal`), `error`
/// (Responses `failed`); anything else is kept as it is.
pub fn finish_class(
    dialect: Option<crate::dialect::Dialect>,
    finish: &str,
    has_tool_calls: bool,
) -> String {
    let f = finish.to_ascii_lowercase();
    match dialect {
        Some(d) => d.api().finish_class(&f, finish, has_tool_calls),
        None => finish.to_string(),
    }
}

/// Findings by rule on each side. Across dialects a fault that both
/// dialects name (each with its own rule, see [`Words::faults`](crate::dialect::words::Words::faults)) is keyed
/// `A's rule / B's rule` when both sides have it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DiagnosticsDiff {
    /// Rule → (severity, count) on A only.
    pub only_a: BTreeMap<String, (Severity, u64)>,
    /// Rule → (severity, count) on B only.
    pub only_b: BTreeMap<String, (Severity, u64)>,
    /// Rule → (count on A, count on B) on both.
    pub both: BTreeMap<String, (u64, u64)>,
    /// Across dialects: the rules of `only_a` and `only_b` that belong to
    /// one side's dialect and have no counterpart in the other's (they are
    /// weighed by severity, not by name).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dialect_only: Vec<String>,
}

/// Dialect `d`'s rule for fault `f` ([`Words::faults`]); `None` where it
/// has none.
///
/// [`Words::faults`]: crate::dialect::words::Words::faults
fn counterpart_in(f: Fault, d: crate::dialect::Dialect) -> Option<&'static str> {
    d.words()
        .faults
        .iter()
        .find(|(x, _)| *x == f)
        .map(|(_, r)| *r)
}

/// The faults `rule` reports, where its dialect names it as one
/// ([`Words::faults`]; another dialect may have a rule for it too).
///
/// [`Words::faults`]: crate::dialect::words::Words::faults
fn faults_of(rule: &str) -> impl Iterator<Item = Fault> + '_ {
    crate::dialect::ALL
        .iter()
        .flat_map(|d| d.words().faults)
        .filter(move |(_, r)| *r == rule)
        .map(|(f, _)| *f)
}

/// How a rule stands when A and B are of different dialects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Standing {
    /// A transport or framing rule every dialect shares: compared by name.
    Shared,
    /// A dialect's rule for a fault the other dialect reports too.
    Counterpart(Fault),
    /// A rule of one dialect with nothing to compare it with in the other.
    DialectOnly,
    /// A framing rule of one side's transport (SSE's `line-endings`,
    /// `comment`, …) where the other side rides on another transport,
    /// which has no such lines.
    TransportOnly,
}

/// How `rule`, found on a side whose finishes (in one vocabulary, see
/// [`finish_class`]) are `finishes` and whose stream ended `ending`,
/// stands against the `other` side's dialect: the counterpart of a fault
/// the other dialect names too, where the side's finish and ending are the
/// ones the fault goes with ([`Fault::finish`], [`Fault::ending`]); a
/// framing rule of one transport where `transports_differ`.
fn standing(
    rule: &str,
    other: Option<crate::dialect::Dialect>,
    (finishes, ending): (&BTreeSet<String>, crate::model::assembly::Ending),
    transports_differ: bool,
) -> Standing {
    let meta = crate::lint::catalogue().get(rule);
    if meta.is_none_or(|r| r.dialect.is_none()) {
        return if transports_differ && meta.is_some_and(|r| r.group == "framing") {
            Standing::TransportOnly
        } else {
            Standing::Shared
        };
    }
    let Some(o) = other else {
        return Standing::DialectOnly;
    };
    faults_of(rule)
        .find(|f| {
            f.finish().is_none_or(|c| finishes.contains(c))
                && f.ending().is_none_or(|e| e == ending)
                && counterpart_in(*f, o).is_some()
        })
        .map_or(Standing::DialectOnly, Standing::Counterpart)
}

/// A side of a diff across dialects, as its findings are weighed: its
/// dialect, its choices' finishes in one vocabulary with its ending, and
/// its transport.
type Across<'a> = (
    Option<crate::dialect::Dialect>,
    (&'a BTreeSet<String>, crate::model::assembly::Ending),
    crate::transport::Transport,
);

/// The finishes of `r`'s choices, in one vocabulary ([`finish_class`]).
fn finishes_of(r: &StreamResult) -> BTreeSet<String> {
    r.answer
        .choices
        .values()
        .filter_map(|c| {
            c.finish_reason
                .as_deref()
                .map(|f| finish_class(r.dialect, f, c.has_client_calls()))
        })
        .collect()
}

type RuleCounts = BTreeMap<&'static str, (Severity, u64)>;
type RuleCount = (&'static str, (Severity, u64));

fn rules_of(s: &StreamResult) -> RuleCounts {
    let mut m: BTreeMap<&'static str, (Severity, u64)> = BTreeMap::new();
    for d in &s.diagnostics {
        let e = m.entry(d.rule).or_insert((d.severity, 0));
        e.0 = e.0.max(d.severity);
        e.1 += 1;
    }
    for (rule, n) in &s.omitted {
        let sev = s.omitted_worst.get(rule).copied().unwrap_or(Severity::Info);
        let e = m.entry(rule).or_insert((sev, 0));
        e.1 += n;
    }
    m
}

/// A field's class in the Fields rows: the default dialect's (Chat's)
/// reading of the pointer ([`crate::dialect::Api::field_class`]), as
/// every stream's fields were classified before the dialects came.
fn classify(pointer: &str) -> String {
    crate::dialect::DEFAULT.api().field_class(pointer)
}

pub use crate::dialect::api::UsageCounts;

/// Reads a usage object of `dialect` on the footing of [`UsageCounts`].
pub fn usage_counts(dialect: Option<crate::dialect::Dialect>, u: &Value) -> UsageCounts {
    let n = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64);
    let sum = |i: Option<u64>, o: Option<u64>| Some(i?.saturating_add(o?));
    if u.get("prompt_tokens").is_some() || u.get("completion_tokens").is_some() {
        let (input, output) = (n(u, "prompt_tokens"), n(u, "completion_tokens"));
        return UsageCounts {
            input,
            output,
            total: n(u, "total_tokens").or_else(|| sum(input, output)),
            cached: u
                .get("prompt_tokens_details")
                .and_then(|d| n(d, "cached_tokens")),
            cache_write: None,
        };
    }
    if let Some(c) = dialect.and_then(|d| d.api().usage_apart(u)) {
        return c;
    }
    let output = n(u, "output_tokens");
    let input = n(u, "input_tokens");
    let details = u.get("input_tokens_details");
    UsageCounts {
        input,
        output,
        total: n(u, "total_tokens").or_else(|| sum(input, output)),
        cached: details.and_then(|d| n(d, "cached_tokens")),
        cache_write: details.and_then(|d| n(d, "cache_write_tokens")),
    }
}

/// `1212+8=1220 (1200 cached)`: input (cached included) + output = total,
/// and the cached part where there is one.
fn usage_text(dialect: Option<crate::dialect::Dialect>, u: Option<&Value>) -> String {
    let Some(u) = u else {
        return "(none)".to_string();
    };
    let c = usage_counts(dialect, u);
    let q = |v: Option<u64>| v.map_or("?".to_string(), |v| v.to_string());
    let mut s = format!("{}+{}={}", q(c.input), q(c.output), q(c.total));
    let mut parts = Vec::new();
    if let Some(r) = c.cached.filter(|r| *r > 0) {
        parts.push(format!("{r} cached"));
    }
    if let Some(w) = c.cache_write.filter(|w| *w > 0) {
        parts.push(format!("{w} cache write"));
    }
    if !parts.is_empty() {
        s.push_str(&format!(" ({})", parts.join(", ")));
    }
    s
}

fn opt(s: Option<&str>) -> String {
    s.map_or("(none)".to_string(), |s| format!("{s:?}"))
}

/// The differences of JSON values by pointer (for tool-call arguments).
fn json_diff(a: &Value, b: &Value, base: &str, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let p = format!("{base}/{k}");
                match (x.get(k), y.get(k)) {
                    (Some(u), Some(v)) => json_diff(u, v, &p, out),
                    (Some(_), None) => out.push(format!("{p} only in A")),
                    (None, Some(_)) => out.push(format!("{p} only in B")),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                json_diff(u, v, &format!("{base}/{i}"), out);
            }
        }
        _ if a != b => out.push(format!(
            "{} {} ≠ {}",
            if base.is_empty() { "/" } else { base },
            a,
            b
        )),
        _ => {}
    }
}

/// What [`compare`] gathers as it goes through the two streams: the rows,
/// the word diffs of the texts, why the streams are not compatible, and
/// what it did not compare or weighed without counting.
struct Gathered<'s> {
    a: &'s Side,
    b: &'s Side,
    opts: Options,
    /// The sides are of different dialects.
    cross: bool,
    /// Each side's words, and those the rows use: the dialect's own
    /// within one (Gemini's `candidate 0`), across dialects the words the
    /// rows have always used (`choice 0`), which name no side's events.
    wa: &'static Words,
    wb: &'static Words,
    w: &'static Words,
    diffs: Vec<Difference>,
    text_diffs: Vec<TextDiff>,
    reasons: Vec<String>,
    not_applicable: Vec<String>,
    notes: Vec<String>,
}

/// Compares A (the reference) with B: the answer per choice (text, refusal,
/// reasoning, finish, tool calls), usage, the stream's shape, the fields
/// each side uses, the findings, and timing where both sides have it.
pub fn compare(a: &Side, b: &Side, opts: Options) -> Comparison {
    let mut g = Gathered::new(a, b, opts);
    g.answers();
    g.usage();
    g.shape();
    g.fields();
    let diagnostics = g.findings();
    g.timing();
    g.into_comparison(diagnostics)
}

impl<'s> Gathered<'s> {
    fn new(a: &'s Side, b: &'s Side, opts: Options) -> Self {
        let cross = a.result.dialect != b.result.dialect;
        let (wa, wb) = (words::of(a.result.dialect), words::of(b.result.dialect));
        Gathered {
            a,
            b,
            opts,
            cross,
            wa,
            wb,
            w: if cross { words::of(None) } else { wa },
            diffs: Vec::new(),
            text_diffs: Vec::new(),
            reasons: Vec::new(),
            not_applicable: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// A row.
    fn push(&mut self, section: Section, item: String, x: String, y: String, class: &str) {
        self.diffs.push(Difference {
            section,
            item,
            a: x,
            b: y,
            class: class.to_string(),
        });
    }

    /// How rows name answer `i` (`choice 0`, `candidate 0`, or the
    /// dialect's one answer).
    fn unit(&self, i: u64) -> String {
        let w = self.w;
        w.answer
            .map_or_else(|| format!("{} {i}", w.terms.choice), str::to_string)
    }

    /// The answer, per choice: its texts, its finish and its tool calls.
    fn answers(&mut self) {
        let (a, b) = (self.a, self.b);
        let (ra, rb) = (&a.result, &b.result);
        let indices: BTreeSet<u64> = ra
            .answer
            .choices
            .keys()
            .chain(rb.answer.choices.keys())
            .copied()
            .collect();
        for i in indices {
            let (ca, cb) = (ra.answer.choices.get(&i), rb.answer.choices.get(&i));
            let u = self.unit(i);
            self.texts(i, &u, ca, cb);
            self.finish(&u, ca, cb);
            self.tool_calls(&u, ca, cb);
        }
    }

    /// Text, refusal and reasoning of answer `i` (`u` in rows).
    fn texts(
        &mut self,
        i: u64,
        u: &str,
        ca: Option<&'s crate::model::assembly::Choice>,
        cb: Option<&'s crate::model::assembly::Choice>,
    ) {
        let (opts, w, wa, wb) = (self.opts, self.w, self.wa, self.wb);
        let empty = crate::model::assembly::Text::default();
        let (xa, xb) = (
            ca.map_or(&empty, |c| &c.text),
            cb.map_or(&empty, |c| &c.text),
        );
        let (ta, tb) = (xa.kept.clone(), xb.kept.clone());
        if !opts.ignore_text && !xa.same(xb) {
            let cut = TextCut::of(xa, xb);
            self.push(Section::Answer,
                format!("{u} text"),
                ta.clone(),
                tb.clone(),
                if cut.is_some() {
                    "text (past sselint's 1 MiB per text: compared by length and hash; the first bytes are shown)"
                } else {
                    "text"
                },
            );
            let d = similar::TextDiff::from_words(ta.as_str(), tb.as_str());
            let mut ops: Vec<(&'static str, String)> = Vec::new();
            for ch in d.iter_all_changes() {
                let tag = match ch.tag() {
                    similar::ChangeTag::Equal => "equal",
                    similar::ChangeTag::Delete => "delete",
                    similar::ChangeTag::Insert => "insert",
                };
                match ops.last_mut() {
                    Some((t, s)) if *t == tag => s.push_str(ch.value()),
                    _ => ops.push((tag, ch.value().to_string())),
                }
            }
            self.text_diffs.push(TextDiff {
                choice: i,
                label: format!("{u} text"),
                ops,
                cut,
            });
            self.reasons.push(match cut.filter(|_| ta == tb) {
                Some(c) => format!(
                    "{u}'s text differs past the first {} MiB (A {} bytes, B {}; compared by length and hash)",
                    crate::model::assembly::MAX_TEXT_BYTES >> 20,
                    c.a_bytes,
                    c.b_bytes
                ),
                None => format!("{u}'s text differs"),
            });
        }
        let refusal = |c: Option<&crate::model::assembly::Choice>| {
            c.and_then(|c| c.refusal.as_ref().map(|r| r.kept.clone()))
        };
        let refusals_differ = match (
            ca.and_then(|c| c.refusal.as_ref()),
            cb.and_then(|c| c.refusal.as_ref()),
        ) {
            (Some(x), Some(y)) => !x.same(y),
            (x, y) => x.is_some() != y.is_some(),
        };
        if !opts.ignore_text && refusals_differ {
            self.push(
                Section::Answer,
                format!("{u} refusal"),
                opt(refusal(ca).as_deref()),
                opt(refusal(cb).as_deref()),
                "refusal",
            );
        }
        let reasoning = |c: Option<&crate::model::assembly::Choice>| {
            c.filter(|c| !c.reasoning.is_empty())
                .map(|c| c.reasoning.kept.clone())
        };
        let (qa, qb) = (reasoning(ca), reasoning(cb));
        let reasoning_differs = match (ca, cb) {
            (Some(x), Some(y)) => !x.reasoning.same(&y.reasoning),
            _ => qa != qb,
        };
        if qa.is_some() != qb.is_some() || (!opts.ignore_text && reasoning_differs) {
            self.push(
                Section::Answer,
                format!("{u} {}", w.reasoning),
                opt(qa.as_deref()),
                opt(qb.as_deref()),
                &if wa.reasoning_class == wb.reasoning_class {
                    wa.reasoning_class.to_string()
                } else {
                    format!("{} / {}", wa.reasoning_class, wb.reasoning_class)
                },
            );
        }
    }

    /// The finish of answer `u`: across dialects, each side's own word
    /// compared in one vocabulary.
    fn finish(
        &mut self,
        u: &str,
        ca: Option<&'s crate::model::assembly::Choice>,
        cb: Option<&'s crate::model::assembly::Choice>,
    ) {
        let (a, b, w) = (self.a, self.b, self.w);
        let (ra, rb) = (&a.result, &b.result);
        let fa = ca.and_then(|c| c.finish_reason.clone());
        let fb = cb.and_then(|c| c.finish_reason.clone());
        if self.cross {
            // Each side's own word, compared in one vocabulary.
            let class = |d, f: &Option<String>, c: Option<&crate::model::assembly::Choice>| {
                f.as_deref()
                    .map(|f| finish_class(d, f, c.is_some_and(|c| c.has_client_calls())))
            };
            let (ka, kb) = (class(ra.dialect, &fa, ca), class(rb.dialect, &fb, cb));
            if ka != kb {
                let shown = |f: &Option<String>, k: &Option<String>| match (f, k) {
                    (Some(f), Some(k)) if f != k => format!("{f:?} (= {k})"),
                    _ => opt(f.as_deref()),
                };
                self.push(
                    Section::Answer,
                    format!("{u} finish"),
                    shown(&fa, &ka),
                    shown(&fb, &kb),
                    "finish, mapped across dialects",
                );
                // Each side's own word, as the row shows it.
                self.reasons.push(format!(
                    "{u} finishes with {} on A, {} on B",
                    shown(&fa, &ka),
                    shown(&fb, &kb)
                ));
            }
        } else if fa != fb {
            self.push(
                Section::Answer,
                format!("{u} {}", w.finish),
                opt(fa.as_deref()),
                opt(fb.as_deref()),
                w.finish,
            );
            self.reasons.push(format!(
                "{u} finishes with {} on A, {} on B",
                opt(fa.as_deref()),
                opt(fb.as_deref())
            ));
        }
    }

    /// The tool calls of answer `u`.
    fn tool_calls(
        &mut self,
        u: &str,
        ca: Option<&'s crate::model::assembly::Choice>,
        cb: Option<&'s crate::model::assembly::Choice>,
    ) {
        let (opts, w) = (self.opts, self.w);
        let empty = BTreeMap::new();
        let tca = ca.map_or(&empty, |c| &c.tool_calls);
        let tcb = cb.map_or(&empty, |c| &c.tool_calls);
        let tidx: BTreeSet<u64> = tca.keys().chain(tcb.keys()).copied().collect();
        for t in tidx {
            let (x, y) = (tca.get(&t), tcb.get(&t));
            let item = match w.call_unit {
                None => format!("{u} tool call {t}"),
                Some(call) => format!("tool call {t} ({call})"),
            };
            match (x, y) {
                (Some(x), Some(y)) => {
                    if x.name != y.name {
                        self.push(
                            Section::ToolCalls,
                            format!("{item} name"),
                            opt(x.name.as_deref()),
                            opt(y.name.as_deref()),
                            "name",
                        );
                        self.reasons
                            .push(format!("{item} calls a different function"));
                    }
                    if x.id.is_some() != y.id.is_some() {
                        self.push(
                            Section::ToolCalls,
                            format!("{item} id"),
                            if x.id.is_some() { "present" } else { "absent" }.into(),
                            if y.id.is_some() { "present" } else { "absent" }.into(),
                            "id",
                        );
                    }
                    // Arguments as JSON, unless a side's are a custom
                    // tool's free-text input (compared as a string).
                    let free = x.is_free_text() || y.is_free_text();
                    let parse = |a: &str| {
                        if free {
                            Err(())
                        } else {
                            serde_json::from_str::<Value>(a).map_err(|_| ())
                        }
                    };
                    let (pa, pb) = (parse(&x.arguments), parse(&y.arguments));
                    let what = if free { "input" } else { "arguments" };
                    let differ = match (&pa, &pb) {
                        (Ok(u), Ok(v)) => u != v,
                        _ => x.arguments != y.arguments,
                    };
                    // For a tool-call stream the call is the answer:
                    // other arguments are another answer.
                    if differ && !opts.ignore_text {
                        let verb = if free { "differs" } else { "differ" };
                        self.reasons.push(format!("{item}'s {what} {verb}"));
                    }
                    match (pa, pb) {
                        (Ok(u), Ok(v)) if u == v => {}
                        (Ok(u), Ok(v)) => {
                            let mut out = Vec::new();
                            json_diff(&u, &v, "", &mut out);
                            self.push(
                                Section::ToolCalls,
                                format!("{item} arguments"),
                                x.arguments.clone(),
                                y.arguments.clone(),
                                &out.join("; "),
                            );
                        }
                        _ if x.arguments != y.arguments => {
                            self.push(
                                Section::ToolCalls,
                                format!("{item} {what}"),
                                x.arguments.clone(),
                                y.arguments.clone(),
                                if free {
                                    "custom tool input, compared as text"
                                } else {
                                    "not both valid JSON"
                                },
                            );
                        }
                        _ => {}
                    }
                }
                (Some(x), None) => {
                    self.push(
                        Section::ToolCalls,
                        item.clone(),
                        opt(x.name.as_deref()),
                        "(none)".into(),
                        "only in A",
                    );
                    self.reasons.push(format!("{item} only on A"));
                }
                (None, Some(y)) => {
                    self.push(
                        Section::ToolCalls,
                        item.clone(),
                        "(none)".into(),
                        opt(y.name.as_deref()),
                        "only in B",
                    );
                    self.reasons.push(format!("{item} only on B"));
                }
                (None, None) => {}
            }
        }
    }

    /// Usage (`--ignore-text` drops the answer's text only: usage is
    /// compared).
    fn usage(&mut self) {
        let (a, b) = (self.a, self.b);
        let (ra, rb) = (&a.result, &b.result);
        let (ua, ub) = (
            usage_text(ra.dialect, ra.answer.usage.as_ref()),
            usage_text(rb.dialect, rb.answer.usage.as_ref()),
        );
        let has = |r: &StreamResult| r.answer.usage.is_some();
        if has(ra) != has(rb) || ua != ub {
            let apart = [ra.dialect, rb.dialect]
                .iter()
                .any(|d| d.is_some_and(|d| d.api().cache_apart()));
            let class = if self.cross && apart {
                "usage, cached tokens counted in the input (Anthropic's: input_tokens + cache_read_input_tokens + cache_creation_input_tokens)"
            } else {
                "usage"
            };
            self.push(Section::Answer, "usage".into(), ua, ub, class);
        }
    }

    /// The shape: ending, end marker, event sequence and chunking, usage
    /// placement, comments, line endings, `data:` spacing.
    fn shape(&mut self) {
        let (a, b, w, wa, wb) = (self.a, self.b, self.w, self.wa, self.wb);
        let (ra, rb) = (&a.result, &b.result);
        let cross = self.cross;
        let (sa, sb) = (&a.shape, &b.shape);
        if ra.ending != rb.ending {
            self.push(
                Section::Shape,
                "ending".into(),
                ra.ending.name().into(),
                rb.ending.name().into(),
                "ending",
            );
            self.reasons.push(format!(
                "the ending differs ({} vs {})",
                ra.ending.name(),
                rb.ending.name()
            ));
        }
        if cross {
            let name =
                |d: Option<crate::dialect::Dialect>| d.map_or("no known dialect", |d| d.title());
            // A sentinel end marker (`[DONE]`) is named among what is not
            // compared; an end that is an event of its dialect is not.
            let sentinel = [wa, wb].into_iter().find(|w| w.sentinel);
            let lead = match sentinel {
                Some(s) => format!("{} sequence, chunking, {},", s.event, s.end_marker),
                None => format!("{} sequence, chunking,", wa.event),
            };
            self.not_applicable.push(format!(
                "{lead} usage placement and fields: A is {}, B is {}, whose events and fields differ by design",
                name(ra.dialect),
                name(rb.dialect)
            ));
        }
        if !cross && sa.done != sb.done {
            self.push(
                Section::Shape,
                w.end_marker.into(),
                yes(sa.done),
                yes(sb.done),
                "ending",
            );
        }
        if !cross && sa.sequence_kinds() != sb.sequence_kinds() {
            self.push(
                Section::Shape,
                format!("{} sequence", w.event),
                sa.sequence_text(),
                sb.sequence_text(),
                &format!("{} kinds and order", w.event),
            );
        } else if !cross && sa.sequence != sb.sequence {
            self.push(
                Section::Shape,
                "chunking".into(),
                format!(
                    "{} ({} events, {:.1} chars per content {})",
                    sa.sequence_text(),
                    sa.events,
                    sa.avg_content(),
                    w.event
                ),
                format!(
                    "{} ({} events, {:.1} chars per content {})",
                    sb.sequence_text(),
                    sb.events,
                    sb.avg_content(),
                    w.event
                ),
                "chunking",
            );
        }
        // Framing belongs to a transport: across two, it is not compared.
        let apart = ra.transport != rb.transport;
        if apart {
            let on = |t: crate::transport::Transport| format!("{} ({})", t.name(), t.media_type());
            self.not_applicable.push(format!(
                "framing (line endings, keep-alive comments, `data:` spacing): A rides on {}, B on {}, which frame messages differently; how the bytes are framed is no difference in the answer",
                on(ra.transport),
                on(rb.transport)
            ));
        }
        if !cross && sa.usage_placement() != sb.usage_placement() {
            self.push(
                Section::Shape,
                "usage placement".into(),
                sa.usage_placement(),
                sb.usage_placement(),
                "usage placement",
            );
        }
        if !apart && (sa.comments > 0) != (sb.comments > 0) {
            self.push(
                Section::Shape,
                "comments (keep-alives)".into(),
                sa.comments.to_string(),
                sb.comments.to_string(),
                "framing",
            );
        }
        if !apart && endings(ra) != endings(rb) && !(cross && own_endings(ra) && own_endings(rb)) {
            self.push(
                Section::Shape,
                "line endings".into(),
                endings(ra),
                endings(rb),
                "framing",
            );
        }
        let spacing = |s: &StreamResult| {
            if s.diagnostics.iter().any(|d| d.rule == "data-no-space") {
                "data:x"
            } else {
                "data: x"
            }
            .to_string()
        };
        if !apart && spacing(ra) != spacing(rb) {
            self.push(
                Section::Shape,
                "data: spacing".into(),
                spacing(ra),
                spacing(rb),
                "framing",
            );
        }
    }

    /// The fields each side uses, by JSON pointer (within one dialect).
    fn fields(&mut self) {
        let (a, b) = (self.a, self.b);
        let cross = self.cross;
        let (sa, sb) = (&a.shape, &b.shape);
        let pointers: BTreeSet<&String> = sa.fields.keys().chain(sb.fields.keys()).collect();
        for p in pointers.into_iter().filter(|_| !cross) {
            let (x, y) = (sa.fields.get(p), sb.fields.get(p));
            if x.is_some() != y.is_some() {
                let kinds = |k: Option<&BTreeSet<String>>| {
                    k.map_or("—".to_string(), |k| {
                        format!("in {}", k.iter().cloned().collect::<Vec<_>>().join(", "))
                    })
                };
                self.push(Section::Fields, p.clone(), kinds(x), kinds(y), &classify(p));
            }
        }
    }

    /// The findings, by rule (across dialects, by the fault they name).
    fn findings(&mut self) -> DiagnosticsDiff {
        let (a, b, opts) = (self.a, self.b, self.opts);
        let (ra, rb) = (&a.result, &b.result);
        let cross = self.cross;
        let (mut da, mut db) = (rules_of(ra), rules_of(rb));
        if cross {
            // A stream framed as its own API frames it has no `line-endings`
            // fault to weigh against another dialect.
            for (s, d) in [(ra, &mut da), (rb, &mut db)] {
                if own_endings(s) {
                    d.remove("line-endings");
                }
            }
        }
        if cross {
            let (fa, fb) = (finishes_of(ra), finishes_of(rb));
            compare_findings_across(
                &da,
                &db,
                (
                    (ra.dialect, (&fa, ra.ending), ra.transport),
                    (rb.dialect, (&fb, rb.ending), rb.transport),
                ),
                opts,
                &mut self.diffs,
                &mut self.reasons,
                &mut self.notes,
            )
        } else {
            compare_findings(&da, &db, opts, &mut self.diffs, &mut self.reasons)
        }
    }

    /// Timing, where both sides have it.
    fn timing(&mut self) {
        let (a, b) = (self.a, self.b);
        let (sa, sb) = (&a.shape, &b.shape);
        let ms = |v: Option<f64>| v.map_or("—".to_string(), |v| format!("{v:.0} ms"));
        if sa.total_ms.is_some() && sb.total_ms.is_some() {
            for (item, x, y) in [
                (
                    "time to first content",
                    sa.first_content_ms,
                    sb.first_content_ms,
                ),
                ("total", sa.total_ms, sb.total_ms),
                (
                    "largest gap",
                    sa.largest_gap_ms.map(|g| g.0),
                    sb.largest_gap_ms.map(|g| g.0),
                ),
            ] {
                if ms(x) != ms(y) {
                    self.push(Section::Timing, item.into(), ms(x), ms(y), "timing");
                }
            }
        }
    }

    /// The comparison, its rows by section.
    fn into_comparison(mut self, diagnostics: DiagnosticsDiff) -> Comparison {
        self.diffs.sort_by_key(|d| d.section);
        Comparison {
            compatible: self.reasons.is_empty(),
            differences: self.diffs,
            text_diffs: self.text_diffs,
            diagnostics,
            reasons: self.reasons,
            dialects: (self.a.result.dialect, self.b.result.dialect),
            not_applicable: self.not_applicable,
            notes: self.notes,
            ignored_text: self.opts.ignore_text,
        }
    }
}

/// The line endings of a stream, as rows name them (`LF`, `CRLF+CR`, …).
fn endings(s: &StreamResult) -> String {
    let f = &s.framing;
    let mut k = Vec::new();
    if f.lf > 0 {
        k.push("LF");
    }
    if f.crlf > 0 {
        k.push("CRLF");
    }
    if f.cr > 0 {
        k.push("CR");
    }
    k.join("+")
}

/// Whether a stream ends its lines as its own API's servers do (Gemini's
/// CRLF, the others' LF): across dialects, no difference.
fn own_endings(s: &StreamResult) -> bool {
    s.dialect
        .is_some_and(|d| endings(s) == d.api().line_ending())
}

fn finding_row(rule: &str, v: (Severity, u64), on_a: bool, class: &str) -> Difference {
    let (sev, n) = v;
    let (x, y) = if on_a {
        (format!("{sev} ×{n}"), "—".to_string())
    } else {
        ("—".to_string(), format!("{sev} ×{n}"))
    };
    Difference {
        section: Section::Diagnostics,
        item: rule.to_string(),
        a: x,
        b: y,
        class: class.to_string(),
    }
}

/// Findings of two streams of one dialect: by rule name.
fn compare_findings(
    da: &RuleCounts,
    db: &RuleCounts,
    opts: Options,
    diffs: &mut Vec<Difference>,
    reasons: &mut Vec<String>,
) -> DiagnosticsDiff {
    let mut dd = DiagnosticsDiff::default();
    for (rule, v) in da {
        match db.get(rule) {
            Some(w) => {
                dd.both.insert(rule.to_string(), (v.1, w.1));
            }
            None => {
                dd.only_a.insert(rule.to_string(), *v);
            }
        }
    }
    for (rule, v) in db {
        if !da.contains_key(rule) {
            dd.only_b.insert(rule.to_string(), *v);
            if opts.fail_on.is_some_and(|t| v.0 >= t) {
                reasons.push(format!("B has `{rule}` ({}) that A lacks", v.0));
            }
        }
    }
    for (rule, v) in &dd.only_a {
        diffs.push(finding_row(rule, *v, true, "only in A"));
    }
    for (rule, v) in &dd.only_b {
        diffs.push(finding_row(rule, *v, false, "only in B"));
    }
    dd
}

/// Findings of two streams of different dialects. A shared rule (transport,
/// framing) is compared by name; a dialect's rule for a fault the other
/// dialect names too ([`Words::faults`](crate::dialect::words::Words::faults)) is compared with that rule, so one
/// fault is one row whatever each dialect calls it; a rule of one dialect
/// alone is listed as such and weighed by its severity: a B finding of
/// that kind at or above `--fail-on` counts only when A has no finding of
/// its own dialect alone at that level (each dialect's severities say the
/// same thing of its clients, so two unmatched rules at one level are no
/// difference, and B failing its clients where A's read fine is one). A
/// framing rule of one side's transport, where the other side rides on
/// another, is weighed the same way.
fn compare_findings_across(
    da: &RuleCounts,
    db: &RuleCounts,
    sides: (Across, Across),
    opts: Options,
    diffs: &mut Vec<Difference>,
    reasons: &mut Vec<String>,
    notes: &mut Vec<String>,
) -> DiagnosticsDiff {
    let dialects = (sides.0 .0, sides.1 .0);
    let (fin_a, fin_b) = (sides.0 .1, sides.1 .1);
    let (tr_a, tr_b) = (sides.0 .2, sides.1 .2);
    let apart = tr_a != tr_b;
    let standing = |rule: &str, other, finishes| standing(rule, other, finishes, apart);
    // A framing rule of one transport: `a framing rule of sse, …`.
    let transport_only = |t: crate::transport::Transport, o: crate::transport::Transport| {
        format!(
            "a framing rule of {} ({}), which {} ({}) has no lines of",
            t.name(),
            t.media_type(),
            o.name(),
            o.media_type()
        )
    };
    let title = |d: Option<crate::dialect::Dialect>| d.map_or("no known dialect", |d| d.title());
    let (ta, tb) = (title(dialects.0), title(dialects.1));
    let a_title = |d: Option<crate::dialect::Dialect>| {
        d.map_or("a stream of no known dialect".to_string(), |d| d.a_title())
    };
    let (a_ta, a_tb) = (a_title(dialects.0), a_title(dialects.1));
    // Each side's findings by what they are about: a counterpart fault by
    // its index, any other rule by its name.
    let key = |rule: &str, other, finishes| match standing(rule, other, finishes) {
        // Keyed by the fault's place in `Fault::ALL`.
        Standing::Counterpart(f) => {
            format!("#{}", Fault::ALL.iter().position(|x| *x == f).unwrap_or(0))
        }
        Standing::Shared | Standing::DialectOnly | Standing::TransportOnly => rule.to_string(),
    };
    let group = |m: &RuleCounts, other, finishes| {
        let mut g: BTreeMap<String, Vec<RuleCount>> = BTreeMap::new();
        for (rule, v) in m {
            g.entry(key(rule, other, finishes))
                .or_default()
                .push((rule, *v));
        }
        g
    };
    let (ga, gb) = (group(da, dialects.1, fin_a), group(db, dialects.0, fin_b));
    let names = |v: &[RuleCount]| v.iter().map(|(r, _)| *r).collect::<Vec<_>>().join(" + ");
    let count = |v: &[RuleCount]| v.iter().map(|(_, (_, n))| n).sum::<u64>();
    let mut dd = DiagnosticsDiff::default();
    let mut worst_a_own: Option<Severity> = None;
    let mut b_own = Vec::new();
    let keys: BTreeSet<&String> = ga.keys().chain(gb.keys()).collect();
    for k in keys {
        match (ga.get(k), gb.get(k)) {
            (Some(x), Some(y)) => {
                let (nx, ny) = (names(x), names(y));
                let name = if nx == ny { nx } else { format!("{nx} / {ny}") };
                dd.both.insert(name, (count(x), count(y)));
            }
            (Some(x), None) => {
                for (rule, v) in x {
                    dd.only_a.insert(rule.to_string(), *v);
                    let class = match standing(rule, dialects.1, fin_a) {
                        Standing::Counterpart(f) => counterpart_note("A", f, dialects.1),
                        Standing::Shared => "only in A".to_string(),
                        Standing::DialectOnly => {
                            dd.dialect_only.push(rule.to_string());
                            worst_a_own = worst_a_own.max(Some(v.0));
                            format!("only in A: {a_ta} rule with no {tb} counterpart")
                        }
                        Standing::TransportOnly => {
                            dd.dialect_only.push(rule.to_string());
                            worst_a_own = worst_a_own.max(Some(v.0));
                            format!("only in A: {}", transport_only(tr_a, tr_b))
                        }
                    };
                    diffs.push(finding_row(rule, *v, true, &class));
                }
            }
            (None, Some(y)) => {
                for (rule, v) in y {
                    dd.only_b.insert(rule.to_string(), *v);
                    let counts = opts.fail_on.is_some_and(|t| v.0 >= t);
                    let class = match standing(rule, dialects.0, fin_b) {
                        Standing::Counterpart(f) => {
                            if counts {
                                reasons.push(format!("B has `{rule}` ({}) that A lacks", v.0));
                            }
                            counterpart_note("B", f, dialects.0)
                        }
                        Standing::Shared => {
                            if counts {
                                reasons.push(format!("B has `{rule}` ({}) that A lacks", v.0));
                            }
                            "only in B".to_string()
                        }
                        Standing::DialectOnly => {
                            dd.dialect_only.push(rule.to_string());
                            let what = format!("{a_tb} rule with no {ta} counterpart");
                            if counts {
                                b_own.push((*rule, v.0, what.clone()));
                            }
                            format!("only in B: {what}")
                        }
                        Standing::TransportOnly => {
                            dd.dialect_only.push(rule.to_string());
                            let what = transport_only(tr_b, tr_a);
                            if counts {
                                b_own.push((*rule, v.0, what.clone()));
                            }
                            format!("only in B: {what}")
                        }
                    };
                    diffs.push(finding_row(rule, *v, false, &class));
                }
            }
            (None, None) => {}
        }
    }
    if let Some(t) = opts.fail_on {
        let a_own: Vec<&str> = da
            .iter()
            .filter(|(r, v)| {
                v.0 >= t
                    && matches!(
                        standing(r, dialects.1, fin_a),
                        Standing::DialectOnly | Standing::TransportOnly
                    )
            })
            .map(|(r, _)| *r)
            .collect();
        if worst_a_own.is_none_or(|w| w < t) {
            for (rule, sev, what) in b_own {
                reasons.push(format!(
                    "B has `{rule}` ({sev}), {what}, and A has no such finding of its own at that level"
                ));
            }
        } else if !b_own.is_empty() {
            let b_names: Vec<&str> = b_own.iter().map(|(r, _, _)| *r).collect();
            notes.push(format!(
                "each side has a finding at the --fail-on level under a rule of its own {} alone (A: {}; B: {}): both fail clients of their own API, so these are no difference",
                if apart { "dialect or transport" } else { "dialect" },
                a_own.join(", "),
                b_names.join(", ")
            ));
        }
    }
    dd.dialect_only.sort();
    dd
}

/// "only in B (`missing-done` in OpenAI Chat Completions)": where the
/// other side's dialect has a rule for the same fault.
fn counterpart_note(side: &str, f: Fault, other: Option<crate::dialect::Dialect>) -> String {
    let what = f.about();
    match other.and_then(|o| counterpart_in(f, o).map(|r| (o, r))) {
        Some((o, r)) => format!("only in {side} ({what}; `{r}` in {})", o.title()),
        None => format!("only in {side}"),
    }
}

fn yes(b: bool) -> String {
    if b { "yes" } else { "no" }.to_string()
}

/// Whether a comparison found nothing at all.
pub fn identical(c: &Comparison) -> bool {
    c.differences.is_empty()
}
