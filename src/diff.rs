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
//! mapped to one vocabulary ([`finish_class`]), usage as input/output
//! tokens, the ending and timing. The rows that do not apply across
//! dialects (chunk sequence, `[DONE]`, usage placement, fields) are named
//! in [`Comparison::not_applicable`] instead of being compared.
//!
//! A byte diff of two streams is useless (ids, timings and chunking always
//! differ); this compares what matters. It only reads results of the
//! pipeline; it renders nothing (see `report::diff`).

use crate::capture::{self, Timing};
use crate::checks::{chunk::is_openai_field, Linter};
use crate::lint::profile::{provider_list, providers_of};
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
}

impl ShapeRecorder {
    fn push_kind(&mut self, kind: String) {
        match self.shape.sequence.last_mut() {
            Some((k, n)) if *k == kind => *n += 1,
            _ => self.shape.sequence.push((kind, 1)),
        }
    }
}

impl Observer for ShapeRecorder {
    fn block(&mut self, block: &Block<'_>, _new: &[Diagnostic], linter: &Linter<'_>) {
        let comments = block
            .lines
            .iter()
            .filter(|l| l.kind == LineKind::Comment)
            .count() as u64;
        self.shape.comments += comments;
        let Some(d) = &block.dispatch else {
            return;
        };
        self.shape.events += 1;
        let kind = match linter.event_kind.as_slice() {
            [] => "other".to_string(),
            ["done"] => "[DONE]".to_string(),
            ks => ks.join("+"),
        };
        if kind == "[DONE]" {
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
}

/// Reads one side: `PATH` or `PATH#N` (HAR entry N). A capture with
/// several SSE streams needs an entry.
///
/// # Errors
/// The input cannot be read, or holds several streams and none was picked.
pub fn read_side(spec: &str, opts: &capture::Options, settings: &Settings) -> Result<Side, String> {
    let (path, entry) = match spec.rsplit_once('#') {
        Some((p, n)) if n.bytes().all(|b| b.is_ascii_digit()) && !n.is_empty() => {
            (p, n.parse::<usize>().ok())
        }
        _ => (spec, None),
    };
    let mut opts = opts.clone();
    if entry.is_some() {
        opts.entry = entry;
    }
    let cap = capture::open(path, &opts).map_err(|e| e.to_string())?;
    let detail = cap.detail;
    let n = cap.streams.len();
    if n != 1 {
        let labels: Vec<String> = cap
            .streams
            .iter()
            .map(|s| format!("  {}", s.label))
            .collect();
        return Err(format!(
            "{path}: holds {n} SSE streams; pick one as {path}#N (the entry index):\n{}",
            labels.join("\n")
        ));
    }
    let Some(stream) = cap.streams.into_iter().next() else {
        return Err(format!("{path}: no stream"));
    };
    let mut rec = ShapeRecorder {
        shape: Shape::default(),
        timing: stream.timing.clone(),
        last_ms: None,
    };
    let result = pipeline::lint_stream_with(
        stream,
        settings,
        &mut rec,
        pipeline::Extras {
            fields: true,
            summaries: false,
        },
    );
    rec.shape.content_chars = result
        .answer
        .choices
        .values()
        .map(|c| c.text.kept.chars().count() as u64)
        .sum();
    Ok(Side {
        spec: spec.to_string(),
        result,
        shape: rec.shape,
        detail,
    })
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
    /// Runs of (`equal` | `delete` | `insert`, text).
    pub ops: Vec<(&'static str, String)>,
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
    use crate::dialect::Dialect;
    let f = finish.to_ascii_lowercase();
    match dialect {
        Some(Dialect::Responses) => {
            if f.starts_with("completed") {
                if has_tool_calls { "tool_calls" } else { "stop" }.to_string()
            } else if f.starts_with("incomplete") {
                if f.contains("content_filter") {
                    "content_filter".to_string()
                } else {
                    "length".to_string()
                }
            } else if f.starts_with("failed") || f.starts_with("cancelled") {
                "error".to_string()
            } else {
                finish.to_string()
            }
        }
        Some(Dialect::Messages) => match f.as_str() {
            "end_turn" | "stop_sequence" => "stop".to_string(),
            "max_tokens" | "model_context_window_exceeded" => "length".to_string(),
            "tool_use" => "tool_calls".to_string(),
            "refusal" => "content_filter".to_string(),
            _ => finish.to_string(),
        },
        _ => finish.to_string(),
    }
}

/// Findings by rule on each side.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DiagnosticsDiff {
    /// Rule → (severity, count) on A only.
    pub only_a: BTreeMap<&'static str, (Severity, u64)>,
    /// Rule → (severity, count) on B only.
    pub only_b: BTreeMap<&'static str, (Severity, u64)>,
    /// Rule → (count on A, count on B) on both.
    pub both: BTreeMap<&'static str, (u64, u64)>,
}

fn rules_of(s: &StreamResult) -> BTreeMap<&'static str, (Severity, u64)> {
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

fn classify(pointer: &str) -> String {
    if is_openai_field(pointer) {
        return "openai-schema".to_string();
    }
    let ps = providers_of(pointer);
    if ps.is_empty() {
        "unknown".to_string()
    } else {
        format!("extension ({})", provider_list(&ps))
    }
}

fn usage_text(u: Option<&Value>) -> String {
    match u {
        None => "(none)".to_string(),
        Some(u) => {
            let n = |k: &str| {
                u.get(k)
                    .and_then(Value::as_u64)
                    .map_or("?".to_string(), |v| v.to_string())
            };
            // Chat's names, or Responses' and Messages' (which has no
            // total: input + output stands in, as both sides then say).
            let first = |a: &str, b: &str| if u.get(a).is_some() { n(a) } else { n(b) };
            let (i, o) = (
                first("prompt_tokens", "input_tokens"),
                first("completion_tokens", "output_tokens"),
            );
            let total = match (u.get("total_tokens"), i.parse::<u64>(), o.parse::<u64>()) {
                (Some(_), _, _) => n("total_tokens"),
                (None, Ok(x), Ok(y)) => (x + y).to_string(),
                _ => "?".to_string(),
            };
            format!("{i}+{o}={total}")
        }
    }
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

/// Compares A (the reference) with B.
pub fn compare(a: &Side, b: &Side, opts: Options) -> Comparison {
    let mut diffs = Vec::new();
    let mut text_diffs = Vec::new();
    let mut reasons = Vec::new();
    let (ra, rb) = (&a.result, &b.result);
    let cross = ra.dialect != rb.dialect;
    let mut not_applicable = Vec::new();
    let push =
        |diffs: &mut Vec<Difference>, section, item: String, x: String, y: String, class: &str| {
            diffs.push(Difference {
                section,
                item,
                a: x,
                b: y,
                class: class.to_string(),
            });
        };
    // 1. The answer, per choice.
    let indices: BTreeSet<u64> = ra
        .answer
        .choices
        .keys()
        .chain(rb.answer.choices.keys())
        .copied()
        .collect();
    for i in &indices {
        let ca = ra.answer.choices.get(i);
        let cb = rb.answer.choices.get(i);
        let text = |c: Option<&crate::model::assembly::Choice>| {
            c.map(|c| c.text.kept.clone()).unwrap_or_default()
        };
        let (ta, tb) = (text(ca), text(cb));
        if !opts.ignore_text && ta != tb {
            push(
                &mut diffs,
                Section::Answer,
                format!("choice {i} text"),
                ta.clone(),
                tb.clone(),
                "text",
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
            text_diffs.push(TextDiff { choice: *i, ops });
            reasons.push(format!("choice {i}'s text differs"));
        }
        let refusal = |c: Option<&crate::model::assembly::Choice>| {
            c.and_then(|c| c.refusal.as_ref().map(|r| r.kept.clone()))
        };
        if !opts.ignore_text && refusal(ca) != refusal(cb) {
            push(
                &mut diffs,
                Section::Answer,
                format!("choice {i} refusal"),
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
        if qa.is_some() != qb.is_some() || (!opts.ignore_text && qa != qb) {
            push(
                &mut diffs,
                Section::Answer,
                format!("choice {i} reasoning"),
                opt(qa.as_deref()),
                opt(qb.as_deref()),
                "reasoning (extension field)",
            );
        }
        let fa = ca.and_then(|c| c.finish_reason.clone());
        let fb = cb.and_then(|c| c.finish_reason.clone());
        if cross {
            // Each side's own word, compared in one vocabulary.
            let class = |d, f: &Option<String>, c: Option<&crate::model::assembly::Choice>| {
                f.as_deref()
                    .map(|f| finish_class(d, f, c.is_some_and(|c| !c.tool_calls.is_empty())))
            };
            let (ka, kb) = (class(ra.dialect, &fa, ca), class(rb.dialect, &fb, cb));
            if ka != kb {
                let shown = |f: &Option<String>, k: &Option<String>| match (f, k) {
                    (Some(f), Some(k)) if f != k => format!("{f:?} (= {k})"),
                    _ => opt(f.as_deref()),
                };
                push(
                    &mut diffs,
                    Section::Answer,
                    format!("choice {i} finish"),
                    shown(&fa, &ka),
                    shown(&fb, &kb),
                    "finish, mapped across dialects",
                );
                reasons.push(format!(
                    "choice {i} finishes with {} on A, {} on B",
                    opt(ka.as_deref()),
                    opt(kb.as_deref())
                ));
            }
        } else if fa != fb {
            push(
                &mut diffs,
                Section::Answer,
                format!("choice {i} finish_reason"),
                opt(fa.as_deref()),
                opt(fb.as_deref()),
                "finish_reason",
            );
            reasons.push(format!(
                "choice {i} finishes with {} on A, {} on B",
                opt(fa.as_deref()),
                opt(fb.as_deref())
            ));
        }
        // 2. Tool calls.
        let empty = BTreeMap::new();
        let tca = ca.map_or(&empty, |c| &c.tool_calls);
        let tcb = cb.map_or(&empty, |c| &c.tool_calls);
        let tidx: BTreeSet<u64> = tca.keys().chain(tcb.keys()).copied().collect();
        for t in tidx {
            let (x, y) = (tca.get(&t), tcb.get(&t));
            let item = format!("choice {i} tool call {t}");
            match (x, y) {
                (Some(x), Some(y)) => {
                    if x.name != y.name {
                        push(
                            &mut diffs,
                            Section::ToolCalls,
                            format!("{item} name"),
                            opt(x.name.as_deref()),
                            opt(y.name.as_deref()),
                            "name",
                        );
                        reasons.push(format!("{item} calls a different function"));
                    }
                    if x.id.is_some() != y.id.is_some() {
                        push(
                            &mut diffs,
                            Section::ToolCalls,
                            format!("{item} id"),
                            if x.id.is_some() { "present" } else { "absent" }.into(),
                            if y.id.is_some() { "present" } else { "absent" }.into(),
                            "id",
                        );
                    }
                    let pa = serde_json::from_str::<Value>(&x.arguments);
                    let pb = serde_json::from_str::<Value>(&y.arguments);
                    match (pa, pb) {
                        (Ok(u), Ok(v)) if u == v => {}
                        (Ok(_), Ok(_)) if opts.ignore_text => {}
                        (Ok(u), Ok(v)) => {
                            let mut out = Vec::new();
                            json_diff(&u, &v, "", &mut out);
                            push(
                                &mut diffs,
                                Section::ToolCalls,
                                format!("{item} arguments"),
                                x.arguments.clone(),
                                y.arguments.clone(),
                                &out.join("; "),
                            );
                        }
                        _ if x.arguments != y.arguments => {
                            push(
                                &mut diffs,
                                Section::ToolCalls,
                                format!("{item} arguments"),
                                x.arguments.clone(),
                                y.arguments.clone(),
                                "not both valid JSON",
                            );
                        }
                        _ => {}
                    }
                }
                (Some(x), None) => {
                    push(
                        &mut diffs,
                        Section::ToolCalls,
                        item.clone(),
                        opt(x.name.as_deref()),
                        "(none)".into(),
                        "only in A",
                    );
                    reasons.push(format!("{item} only on A"));
                }
                (None, Some(y)) => {
                    push(
                        &mut diffs,
                        Section::ToolCalls,
                        item.clone(),
                        "(none)".into(),
                        opt(y.name.as_deref()),
                        "only in B",
                    );
                    reasons.push(format!("{item} only on B"));
                }
                (None, None) => {}
            }
        }
    }
    let (ua, ub) = (ra.answer.usage.as_ref(), rb.answer.usage.as_ref());
    if ua.is_some() != ub.is_some() || (!opts.ignore_text && usage_text(ua) != usage_text(ub)) {
        push(
            &mut diffs,
            Section::Answer,
            "usage".into(),
            usage_text(ua),
            usage_text(ub),
            "usage",
        );
    }
    // 3. Shape.
    let (sa, sb) = (&a.shape, &b.shape);
    if ra.ending != rb.ending {
        push(
            &mut diffs,
            Section::Shape,
            "ending".into(),
            ra.ending.name().into(),
            rb.ending.name().into(),
            "ending",
        );
        reasons.push(format!(
            "the ending differs ({} vs {})",
            ra.ending.name(),
            rb.ending.name()
        ));
    }
    if cross {
        let name = |d: Option<crate::dialect::Dialect>| d.map_or("no known dialect", |d| d.title());
        not_applicable.push(format!(
            "chunk sequence, chunking, [DONE], usage placement and fields: A is {}, B is {}, whose events and fields differ by design",
            name(ra.dialect),
            name(rb.dialect)
        ));
    }
    if !cross && sa.done != sb.done {
        push(
            &mut diffs,
            Section::Shape,
            "[DONE]".into(),
            yes(sa.done),
            yes(sb.done),
            "ending",
        );
    }
    if !cross && sa.sequence_kinds() != sb.sequence_kinds() {
        push(
            &mut diffs,
            Section::Shape,
            "chunk sequence".into(),
            sa.sequence_text(),
            sb.sequence_text(),
            "chunk kinds and order",
        );
    } else if !cross && sa.sequence != sb.sequence {
        push(
            &mut diffs,
            Section::Shape,
            "chunking".into(),
            format!(
                "{} ({} events, {:.1} chars per content chunk)",
                sa.sequence_text(),
                sa.events,
                sa.avg_content()
            ),
            format!(
                "{} ({} events, {:.1} chars per content chunk)",
                sb.sequence_text(),
                sb.events,
                sb.avg_content()
            ),
            "chunking",
        );
    }
    if !cross && sa.usage_placement() != sb.usage_placement() {
        push(
            &mut diffs,
            Section::Shape,
            "usage placement".into(),
            sa.usage_placement(),
            sb.usage_placement(),
            "usage placement",
        );
    }
    if (sa.comments > 0) != (sb.comments > 0) {
        push(
            &mut diffs,
            Section::Shape,
            "comments (keep-alives)".into(),
            sa.comments.to_string(),
            sb.comments.to_string(),
            "framing",
        );
    }
    let endings = |s: &StreamResult| {
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
    };
    if endings(ra) != endings(rb) {
        push(
            &mut diffs,
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
    if spacing(ra) != spacing(rb) {
        push(
            &mut diffs,
            Section::Shape,
            "data: spacing".into(),
            spacing(ra),
            spacing(rb),
            "framing",
        );
    }
    // 4. Fields.
    let pointers: BTreeSet<&String> = sa.fields.keys().chain(sb.fields.keys()).collect();
    for p in pointers.into_iter().filter(|_| !cross) {
        let (x, y) = (sa.fields.get(p), sb.fields.get(p));
        if x.is_some() != y.is_some() {
            let kinds = |k: Option<&BTreeSet<String>>| {
                k.map_or("—".to_string(), |k| {
                    format!("in {}", k.iter().cloned().collect::<Vec<_>>().join(", "))
                })
            };
            push(
                &mut diffs,
                Section::Fields,
                p.clone(),
                kinds(x),
                kinds(y),
                &classify(p),
            );
        }
    }
    // 5. Diagnostics.
    let (da, db) = (rules_of(ra), rules_of(rb));
    let mut dd = DiagnosticsDiff::default();
    for (rule, v) in &da {
        match db.get(rule) {
            Some(w) => {
                dd.both.insert(rule, (v.1, w.1));
            }
            None => {
                dd.only_a.insert(rule, *v);
            }
        }
    }
    for (rule, v) in &db {
        if !da.contains_key(rule) {
            dd.only_b.insert(rule, *v);
            if opts.fail_on.is_some_and(|t| v.0 >= t) {
                reasons.push(format!("B has `{rule}` ({}) that A lacks", v.0));
            }
        }
    }
    for (rule, (sev, n)) in &dd.only_a {
        push(
            &mut diffs,
            Section::Diagnostics,
            (*rule).to_string(),
            format!("{sev} ×{n}"),
            "—".into(),
            "only in A",
        );
    }
    for (rule, (sev, n)) in &dd.only_b {
        push(
            &mut diffs,
            Section::Diagnostics,
            (*rule).to_string(),
            "—".into(),
            format!("{sev} ×{n}"),
            "only in B",
        );
    }
    // 6. Timing, where both sides have it.
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
                push(
                    &mut diffs,
                    Section::Timing,
                    item.into(),
                    ms(x),
                    ms(y),
                    "timing",
                );
            }
        }
    }
    diffs.sort_by_key(|d| d.section);
    Comparison {
        compatible: reasons.is_empty(),
        differences: diffs,
        text_diffs,
        diagnostics: dd,
        reasons,
        dialects: (ra.dialect, rb.dialect),
        not_applicable,
    }
}

fn yes(b: bool) -> String {
    if b { "yes" } else { "no" }.to_string()
}

/// Whether a comparison found nothing at all.
pub fn identical(c: &Comparison) -> bool {
    c.differences.is_empty()
}
