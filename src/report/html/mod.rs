//! The HTML report: one self-contained page (CSS and a little JS inline,
//! no network loads, a Content-Security-Policy that forbids them) with a
//! header per stream, its timeline, its events with the findings at their
//! bytes, the rebuilt answer, the docs of the rules that fired and, over
//! several streams, an index.
//!
//! A capture is hostile input: every capture-derived string reaches the
//! page through askama's HTML escaping, after [`crate::lint::printable`]
//! (controls escaped, secrets redacted); the script reads only class
//! names and data attributes the renderer wrote, never capture text.
//! The page is bounded: events are capped ([`record::HEAD_EVENTS`] +
//! [`record::TAIL_EVENTS`]), each event's data and summary too, the
//! rebuilt answer at [`ANSWER_CHARS`] per text, and the whole page at
//! about [`PAGE_BUDGET`] bytes (past it, streams are shown without their
//! events); every cut says what it left out and how to see it all.
//!
//! Not for deciding a verdict: the page shows the run's findings and its
//! `--fail-on` threshold.

pub mod diff;
/// The stream log the page shows, recorded while the pipeline lints
/// ([`crate::streamlog`]; `diff` records it too).
pub use crate::streamlog as record;
pub mod timeline;

use super::{display_path, stream_name, Render, Run};
use crate::lint::{catalogue, printable, printable_text, Diagnostic, Severity};
use crate::pipeline::{FileResult, StreamResult};
use askama::Template;
use record::{cut, StreamLog, ADDS_CHARS, DATA_CHARS, HEAD_EVENTS, TAIL_EVENTS};
use std::collections::BTreeSet;
use std::io::{self, Write};

/// Characters of a finding's source line shown on each side of its span.
const CONTEXT_CHARS: usize = 160;
/// Characters of an event's data shown before the row is opened.
const SHORT_DATA_CHARS: usize = 120;
/// Characters of a rule example's capture shown in the rule docs.
const EXAMPLE_CHARS: usize = 4000;
/// Characters of each rebuilt text (answer, reasoning, refusal, tool call
/// arguments) shown; the rest is counted.
pub const ANSWER_CHARS: usize = 20_000;
/// About the most bytes a page holds: past it, further streams are shown
/// without their events (a note at the top names them).
pub const PAGE_BUDGET: usize = 8 * 1024 * 1024;

/// Why a capture of this format detail (`raw body`, `curl -i`, `curl
/// --trace-ascii`, `har`, …) has no timeline: what it records, and which
/// capture would.
pub fn no_timing_note(detail: &str) -> &'static str {
    if detail == "har" {
        "No timings per event: a HAR file records each request's total time, not when each event arrived (Firefox and Safari exports stop there). Chrome's export of an EventSource request keeps a time per message, and sselint record keeps the time of every network read."
    } else if detail.starts_with("curl --trace") {
        "No timings: this curl trace has no timestamps. curl --trace-ascii FILE --trace-time keeps the time of every network read."
    } else if detail.starts_with("curl") {
        "No timings: a curl -i or -v dump has no times. curl --trace-ascii FILE --trace-time, or sselint record, keeps the time of every network read."
    } else {
        "No timings: a raw body has no arrival times. curl --trace-ascii FILE --trace-time, sselint record, or Chrome's HAR export of an EventSource request keeps them."
    }
}

/// A piece of prose: plain text, or a `code` span (Markdown backticks).
struct Seg {
    code: bool,
    text: String,
}

/// `s` cut at its backticks: odd pieces are code. An unpaired backtick
/// stays as text.
fn code_spans(s: &str) -> Vec<Seg> {
    let parts: Vec<&str> = s.split('`').collect();
    let paired = parts.len() % 2 == 1;
    let mut out: Vec<Seg> = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        let code = paired && i % 2 == 1;
        if !paired && i > 0 {
            out.push(Seg {
                code: false,
                text: "`".to_string(),
            });
        }
        if !p.is_empty() {
            out.push(Seg {
                code,
                text: p.to_string(),
            });
        }
    }
    out
}

/// The HTML renderer. `logs[i]` holds the events and timelines of
/// `run.files[i]`'s streams; a file without logs (unread, or linted
/// without recording) shows its findings without events.
pub struct Html<'a> {
    /// Per input, per stream: what the recorder kept.
    pub logs: &'a [Vec<StreamLog>],
    /// The page title's subject (`inspect` or `check`).
    pub command: &'static str,
}

/// One finding as the page shows it.
struct FindingView {
    rule: &'static str,
    code: &'static str,
    severity: &'static str,
    /// Message, help and note, their `code` spans apart.
    message: Vec<Seg>,
    help: Option<Vec<Seg>>,
    note: Vec<Seg>,
    line: u64,
    column: u64,
    offset: u64,
    pointer: Option<String>,
    suppressed: bool,
    /// The source line around the span: before, span, after.
    before: String,
    span: String,
    after: String,
    has_source: bool,
}

struct EventView {
    label: String,
    line: u64,
    offset: u64,
    time: String,
    /// The `event:` name cut after each `.` and `_`, so a long name wraps
    /// there rather than mid-word.
    event_parts: Vec<String>,
    kinds: Vec<String>,
    /// Space-separated kinds, for the filter.
    kind_attr: String,
    /// The worst severity of its findings, or `none`.
    sev: &'static str,
    adds: String,
    adds_cut: usize,
    /// The start of a long data, shown until the row is opened.
    data_short: Option<String>,
    data: String,
    data_cut: usize,
    findings: Vec<FindingView>,
    /// Its findings past the per-rule limit (counted, not shown).
    past_limit: u64,
}

struct ToolView {
    index: u64,
    name: String,
    id: String,
    arguments: String,
    arguments_cut: usize,
}

struct ChoiceView {
    index: u64,
    text: String,
    text_dropped: u64,
    /// Characters of the text not shown (past [`ANSWER_CHARS`]).
    text_cut: usize,
    reasoning: Option<String>,
    reasoning_cut: usize,
    refusal: Option<String>,
    refusal_cut: usize,
    tool_calls: Vec<ToolView>,
    finish: String,
}

struct StreamView {
    id: String,
    input: String,
    name: String,
    url: Option<String>,
    dialect: String,
    verdict: &'static str,
    verdict_class: &'static str,
    summary: String,
    counts: String,
    notes: Vec<String>,
    error: Option<String>,
    plot: Option<timeline::Plot>,
    timing_line: Option<String>,
    /// Why there is no plot.
    no_timing: Option<&'static str>,
    recorded: bool,
    /// The events were left out to keep the page within its budget.
    over_budget: bool,
    head: Vec<EventView>,
    skipped: u64,
    tail: Vec<EventView>,
    /// Findings not shown at an event (end-of-stream rules, or events left
    /// out).
    stream_findings: Vec<FindingView>,
    omitted: Vec<String>,
    choices: Vec<ChoiceView>,
    /// What one of the answers is called (`choice`, Gemini's
    /// `candidate`), and its reasoning (`reasoning`, `thoughts`).
    choice_word: &'static str,
    reasoning_word: &'static str,
    usage: Option<String>,
}

struct ExampleView {
    valid: bool,
    note: String,
    capture: String,
}

struct RuleDoc {
    name: &'static str,
    code: &'static str,
    group: &'static str,
    severity: &'static str,
    summary: Vec<Seg>,
    basis: Option<Vec<Seg>>,
    rationale: Vec<Seg>,
    fix: Vec<Seg>,
    examples: Vec<ExampleView>,
    references: Vec<&'static str>,
}

#[derive(Template)]
#[template(path = "report.html")]
struct Page {
    title: String,
    version: &'static str,
    totals: String,
    fail_on: String,
    index: bool,
    streams: Vec<StreamView>,
    kinds: Vec<String>,
    rules: Vec<RuleDoc>,
    head_events: usize,
    tail_events: usize,
    data_chars: usize,
    adds_chars: usize,
    answer_chars: usize,
    /// What the page budget left out, for the top of the page.
    budget_note: Option<String>,
}

fn sev_name(s: Severity) -> &'static str {
    s.name()
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn counts_line(c: (u64, u64, u64)) -> String {
    format!(
        "{}, {}, {}",
        plural(c.0, "error", "errors"),
        plural(c.1, "warning", "warnings"),
        plural(c.2, "info", "infos")
    )
}

/// The last `n` characters of `s` (with `…` when cut).
fn tail_chars(s: &str, n: usize) -> String {
    let count = s.chars().count();
    if count <= n {
        s.to_string()
    } else {
        let t: String = s.chars().skip(count - n).collect();
        format!("…{t}")
    }
}

/// The first `n` characters of `s` (with `…` when cut).
fn head_chars(s: &str, n: usize) -> String {
    let (t, left) = (s.chars().take(n).collect::<String>(), s.chars().count() > n);
    if left {
        format!("{t}…")
    } else {
        t
    }
}

/// JSON text made safe to show without reading it as header lines (which
/// [`printable_text`] would, redacting `"prompt_tokens": 5`): `sk-…` keys
/// masked, control and bidi characters other than newline and tab
/// escaped.
fn inert(s: &str) -> String {
    crate::capture::redact_keys(s)
        .chars()
        .map(|c| {
            let bidi = matches!(c, '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}');
            if (c.is_control() && c != '\n' && c != '\t') || bidi {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

fn finding(d: &Diagnostic) -> FindingView {
    let (before, span, after, has_source) = match &d.location.source {
        Some(src) => {
            let text = &src.text;
            let (s, e) = src.span;
            let s = s.min(text.len());
            let mut e = e.min(text.len()).max(s);
            // An empty span marks the character after it, as the human
            // report underlines one.
            if e == s {
                e = text
                    .get(s..)
                    .and_then(|t| t.chars().next())
                    .map_or(s, |c| s + c.len_utf8());
            }
            let piece = |a: usize, b: usize| text.get(a..b).unwrap_or("");
            (
                printable(&tail_chars(piece(0, s), CONTEXT_CHARS)),
                printable(&head_chars(piece(s, e), CONTEXT_CHARS)),
                printable(&head_chars(piece(e, text.len()), CONTEXT_CHARS)),
                true,
            )
        }
        None => (String::new(), String::new(), String::new(), false),
    };
    FindingView {
        rule: d.rule,
        code: d.code,
        severity: sev_name(d.severity),
        message: code_spans(&printable_text(&d.message)),
        help: d.help.as_deref().map(|h| code_spans(&printable_text(h))),
        note: code_spans(&super::human::severity_note(d)),
        // As the human report: an empty capture's finding is at 1:1.
        line: d.location.line.max(1),
        column: d.location.column.max(1),
        offset: d.location.byte_offset,
        pointer: d.pointer.as_deref().map(printable),
        suppressed: d.suppressed,
        before,
        span,
        after,
        has_source,
    }
}

/// `name` cut after each `.` and `_` (the separator kept).
fn name_parts(name: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    for c in name.chars() {
        cur.push(c);
        if c == '.' || c == '_' {
            parts.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        parts.push(cur);
    }
    parts
}

/// The row of `row`, with the findings `found` (its own and those located
/// in its bytes). Its severity counts the findings past the per-rule limit
/// too, so the severity filter never hides a faulty event.
fn event_view(row: &record::EventRow, found: Vec<&Diagnostic>) -> EventView {
    let sev = found
        .iter()
        .map(|d| d.severity)
        .chain(row.past_limit_worst)
        .max()
        .map_or("none", sev_name);
    EventView {
        label: row.label.clone(),
        line: row.line,
        offset: row.offset,
        time: row.time_ms.map_or(String::new(), |t| format!("{t:.0} ms")),
        event_parts: name_parts(&row.event_type),
        kinds: row.kinds.clone(),
        kind_attr: row.kinds.join(" "),
        sev,
        adds: row.adds.clone(),
        adds_cut: row.adds_cut,
        data_short: (row.data.chars().count() > SHORT_DATA_CHARS)
            .then(|| head_chars(&row.data, SHORT_DATA_CHARS)),
        data: row.data.clone(),
        data_cut: row.data_cut,
        findings: found.into_iter().map(finding).collect(),
        past_limit: row.past_limit,
    }
}

/// `s` made printable and cut to [`ANSWER_CHARS`]; the characters left
/// out.
fn answer_text(s: &str) -> (String, usize) {
    let (t, left) = cut(s, ANSWER_CHARS);
    (t, left)
}

fn choices(s: &StreamResult) -> Vec<ChoiceView> {
    s.answer
        .choices
        .values()
        .map(|c| {
            let (text, text_cut) = answer_text(&c.text.kept);
            let (reasoning, reasoning_cut) = if c.reasoning.is_empty() {
                (None, 0)
            } else {
                let (r, n) = answer_text(&c.reasoning.kept);
                (Some(r), n)
            };
            let (refusal, refusal_cut) = match &c.refusal {
                Some(r) => {
                    let (r, n) = answer_text(&r.kept);
                    (Some(r), n)
                }
                None => (None, 0),
            };
            ChoiceView {
                index: c.index,
                text,
                text_dropped: c.text.dropped,
                text_cut,
                reasoning,
                reasoning_cut,
                refusal,
                refusal_cut,
                tool_calls: c
                    .tool_calls
                    .values()
                    .map(|t| {
                        let pretty = serde_json::from_str::<serde_json::Value>(&t.arguments)
                            .ok()
                            .and_then(|v| serde_json::to_string_pretty(&v).ok())
                            .unwrap_or_else(|| t.arguments.clone());
                        let n = pretty.chars().count();
                        let shown: String = pretty.chars().take(ANSWER_CHARS).collect();
                        ToolView {
                            index: t.index,
                            name: printable(t.name.as_deref().unwrap_or("?")),
                            id: printable(t.id.as_deref().unwrap_or("none")),
                            arguments: inert(&shown),
                            arguments_cut: n.saturating_sub(ANSWER_CHARS),
                        }
                    })
                    .collect(),
                finish: printable(c.finish_reason.as_deref().unwrap_or("(none)")),
            }
        })
        .collect()
}

fn timing_line(t: &record::Timeline) -> String {
    let mut parts = vec![];
    if let Some(f) = t.first_event_ms {
        parts.push(format!("first event {}", timeline::short_ms(f)));
    }
    parts.push(match t.first_content_ms {
        Some(f) => format!("first content (TTFT) {}", timeline::short_ms(f)),
        None => "no content".to_string(),
    });
    parts.push(format!("last {}", timeline::short_ms(t.end_ms())));
    let stalls = t.stalls.len() as u64 + t.stalls_more;
    parts.push(format!(
        "{} over {}",
        plural(stalls, "stall", "stalls"),
        timeline::short_ms(t.stall_ms as f64)
    ));
    parts.join(" · ")
}

/// The kept row (of `rows`) whose bytes hold `offset`: the row whose span
/// holds it, else the last row ending there (a cut-off at the end of the
/// body is about the last event).
fn row_at(rows: &[&record::EventRow], offset: u64) -> Option<usize> {
    rows.iter()
        .position(|r| r.offset <= offset && offset < r.end)
        .or_else(|| {
            rows.iter()
                .rposition(|r| r.offset < offset && r.end == offset)
        })
}

fn stream_view(
    run: &Run,
    f: &FileResult,
    s: &StreamResult,
    log: Option<&StreamLog>,
    id: String,
    with_events: bool,
) -> StreamView {
    let worst = crate::report::stream_worst(s);
    let fails = matches!((run.fail_on, worst), (Some(t), Some(w)) if w >= t);
    let (verdict, verdict_class) = match (fails, worst) {
        (true, _) => ("fails", "fail"),
        (false, Some(Severity::Error | Severity::Warning)) => ("passes, with findings", "warn"),
        _ => ("passes", "pass"),
    };
    // Each finding goes to the event that produced it, else to the kept
    // event whose bytes hold it; the rest are about the whole stream.
    let rows: Vec<&record::EventRow> = match log {
        Some(l) if with_events => l.rows().collect(),
        _ => Vec::new(),
    };
    let n = s.diagnostics.len();
    let mut at_row: Vec<Option<usize>> = vec![None; n];
    for (ri, r) in rows.iter().enumerate() {
        for i in r.findings.clone().filter(|i| *i < n) {
            at_row[i] = Some(ri);
        }
    }
    for (i, d) in s.diagnostics.iter().enumerate() {
        if at_row[i].is_none() {
            at_row[i] = row_at(&rows, d.location.byte_offset);
        }
    }
    let mut views: Vec<EventView> = rows
        .iter()
        .enumerate()
        .map(|(ri, r)| {
            let found = s
                .diagnostics
                .iter()
                .zip(&at_row)
                .filter(|(_, at)| **at == Some(ri))
                .map(|(d, _)| d)
                .collect();
            event_view(r, found)
        })
        .collect();
    let head_len = log.map_or(0, |l| l.head.len()).min(views.len());
    let tail = views.split_off(head_len);
    let head = views;
    let skipped = log.map_or(0, |l| l.skipped);
    let stream_findings = s
        .diagnostics
        .iter()
        .zip(&at_row)
        .filter(|(_, at)| at.is_none())
        .map(|(d, _)| finding(d))
        .collect();
    let (plot, timing_line, no_timing) = match log.and_then(|l| l.timeline.as_ref()) {
        Some(t) => match timeline::plot(t) {
            Some(p) => (Some(p), Some(self::timing_line(t)), None),
            None => (
                None,
                None,
                Some("The capture has timings, but no event got a time."),
            ),
        },
        None => (None, None, Some(no_timing_note(f.detail))),
    };
    let mut notes: Vec<String> = s.notes.iter().map(|n| printable(n)).collect();
    let input = printable(&display_path(&f.path));
    if log.is_some() && !with_events {
        notes.push(format!(
            "its events are left out to keep the page within about {} MB; sselint inspect {input} --format html shows them",
            PAGE_BUDGET / (1024 * 1024)
        ));
    } else if skipped > 0 {
        notes.push(format!(
            "{skipped} events left out: the page keeps the first {HEAD_EVENTS} and the last {TAIL_EVENTS}; sselint inspect {input} --format jsonl prints every event"
        ));
    }
    if let Some(e) = &s.read_error {
        notes.push(format!("reading the body stopped early: {}", printable(e)));
    }
    StreamView {
        id,
        input,
        name: printable(&stream_name(f, &s.label)),
        url: log.and_then(|l| l.url.as_deref()).map(printable),
        dialect: s.dialect.map_or("unknown format".to_string(), |d| {
            format!("{} ({})", d.title(), d.name())
        }),
        verdict,
        verdict_class,
        summary: printable(&super::human::summary_line(s)),
        counts: counts_line(s.counts),
        notes,
        error: None,
        plot,
        timing_line,
        no_timing,
        recorded: log.is_some(),
        over_budget: log.is_some() && !with_events,
        head,
        skipped,
        tail,
        stream_findings,
        omitted: s
            .omitted
            .iter()
            .map(|(r, n)| format!("… and {n} more {r} finding(s) (the per-rule limit)"))
            .collect(),
        choices: choices(s),
        choice_word: crate::dialect::words::of(s.dialect).terms.choice,
        reasoning_word: crate::dialect::words::of(s.dialect).terms.reasoning,
        usage: s
            .answer
            .usage
            .as_ref()
            .and_then(|u| serde_json::to_string_pretty(u).ok())
            .map(|u| inert(&u)),
    }
}

fn error_view(f: &FileResult, e: &str, id: String) -> StreamView {
    StreamView {
        id,
        input: printable(&display_path(&f.path)),
        name: printable(&display_path(&f.path)),
        url: None,
        dialect: String::new(),
        verdict: "could not be read",
        verdict_class: "fail",
        summary: printable(e),
        counts: String::new(),
        notes: Vec::new(),
        error: Some(printable(e)),
        plot: None,
        timing_line: None,
        no_timing: None,
        recorded: false,
        over_budget: false,
        head: Vec::new(),
        skipped: 0,
        tail: Vec::new(),
        stream_findings: Vec::new(),
        omitted: Vec::new(),
        choices: Vec::new(),
        choice_word: crate::dialect::words::CHAT_TERMS.choice,
        reasoning_word: crate::dialect::words::CHAT_TERMS.reasoning,
        usage: None,
    }
}

fn rule_doc(name: &str) -> Option<RuleDoc> {
    let r = catalogue().get(name)?;
    // One failing and one passing example keep the page short; `sselint
    // rule NAME` has them all.
    let mut examples = Vec::new();
    for valid in [false, true] {
        if let Some(ex) = r.examples().iter().find(|e| e.valid == valid) {
            let (capture, left) = cut(&String::from_utf8_lossy(&ex.capture), EXAMPLE_CHARS);
            let capture = if left > 0 {
                format!("{capture}\n… ({left} more characters)")
            } else {
                capture
            };
            examples.push(ExampleView {
                valid,
                note: printable_text(&ex.note),
                capture,
            });
        }
    }
    Some(RuleDoc {
        name: r.name,
        code: r.code,
        group: r.group,
        severity: r.severity.name(),
        summary: code_spans(r.summary),
        basis: r.severity_basis.map(|b| code_spans(b.trim())),
        rationale: code_spans(r.rationale.trim()),
        fix: code_spans(r.fix.trim()),
        examples,
        references: r.references.clone(),
    })
}

/// About the bytes `v` adds to the page (its texts and a fixed cost per
/// row and finding for the markup).
fn weight(v: &StreamView) -> usize {
    let f = |x: &FindingView| {
        600 + x.message.iter().map(|g| g.text.len()).sum::<usize>()
            + x.before.len()
            + x.span.len()
            + x.after.len()
    };
    let rows: usize = v
        .head
        .iter()
        .chain(&v.tail)
        .map(|e| {
            400 + e.adds.len()
                + e.data.len()
                + e.data_short.as_ref().map_or(0, String::len)
                + e.findings.iter().map(f).sum::<usize>()
        })
        .sum();
    let answer: usize = v
        .choices
        .iter()
        .map(|c| {
            c.text.len()
                + c.reasoning.as_ref().map_or(0, String::len)
                + c.refusal.as_ref().map_or(0, String::len)
                + c.tool_calls
                    .iter()
                    .map(|t| 200 + t.arguments.len())
                    .sum::<usize>()
        })
        .sum();
    let plot = v.plot.as_ref().map_or(0, |p| {
        p.bytes_line.len() + p.chars_line.len() + 80 * (p.arrivals.len() + p.stalls.len())
    });
    2000 + rows + answer + plot + v.stream_findings.iter().map(f).sum::<usize>()
}

fn page(run: &Run, logs: &[Vec<StreamLog>], command: &str) -> Page {
    let mut streams = Vec::new();
    let mut used = 0usize;
    let mut over: Vec<String> = Vec::new();
    for (fi, f) in run.files.iter().enumerate() {
        if let Some(e) = &f.error {
            streams.push(error_view(f, e, format!("s{}", streams.len())));
        }
        for (si, s) in f.streams.iter().enumerate() {
            let log = logs.get(fi).and_then(|l| l.get(si));
            let id = format!("s{}", streams.len());
            let mut v = stream_view(run, f, s, log, id.clone(), true);
            if used + weight(&v) > PAGE_BUDGET && log.is_some() {
                v = stream_view(run, f, s, log, id, false);
                over.push(v.name.clone());
            }
            used += weight(&v);
            streams.push(v);
        }
    }
    let budget_note = (!over.is_empty()).then(|| {
        let named: Vec<&str> = over.iter().take(5).map(String::as_str).collect();
        let more = over.len().saturating_sub(named.len());
        format!(
            "This page keeps to about {} MB: the events of {} are left out ({}{}). Their findings and answers are shown; sselint inspect FILE --format html shows one stream's events.",
            PAGE_BUDGET / (1024 * 1024),
            plural(over.len() as u64, "stream", "streams"),
            named.join(", "),
            if more > 0 { format!(", and {more} more") } else { String::new() }
        )
    });
    let mut kinds = BTreeSet::new();
    for v in &streams {
        for e in v.head.iter().chain(&v.tail) {
            kinds.extend(e.kinds.iter().cloned());
        }
    }
    let fired: BTreeSet<&str> = run
        .files
        .iter()
        .flat_map(|f| &f.streams)
        .flat_map(|s| {
            s.diagnostics
                .iter()
                .map(|d| d.rule)
                .chain(s.omitted.keys().copied())
        })
        .collect();
    let (e, w, i) = run.counted_totals();
    let inputs = run.files.len() as u64;
    let title = match (run.files.first(), inputs) {
        (Some(f), 1) => format!("sselint {command}: {}", printable(&display_path(&f.path))),
        _ => format!("sselint {command}: {}", plural(inputs, "input", "inputs")),
    };
    Page {
        title,
        version: env!("CARGO_PKG_VERSION"),
        totals: format!(
            "{} in {}: {}",
            plural(
                run.files.iter().map(|f| f.streams.len() as u64).sum(),
                "stream",
                "streams"
            ),
            plural(inputs, "input", "inputs"),
            counts_line((e, w, i))
        ),
        fail_on: run
            .fail_on
            .map_or("never".to_string(), |s| s.name().to_string()),
        index: streams.len() > 1,
        streams,
        kinds: kinds.into_iter().collect(),
        rules: fired.into_iter().filter_map(rule_doc).collect(),
        head_events: HEAD_EVENTS,
        tail_events: TAIL_EVENTS,
        data_chars: DATA_CHARS,
        adds_chars: ADDS_CHARS,
        answer_chars: ANSWER_CHARS,
        budget_note,
    }
}

impl Render for Html<'_> {
    fn render(&self, run: &Run, out: &mut dyn Write) -> io::Result<()> {
        let html = page(run, self.logs, self.command)
            .render()
            .map_err(io::Error::other)?;
        out.write_all(html.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(segs: &[Seg]) -> String {
        segs.iter()
            .map(|g| {
                if g.code {
                    format!("<{}>", g.text)
                } else {
                    g.text.clone()
                }
            })
            .collect()
    }

    #[test]
    fn backticks_become_code_spans_and_an_unpaired_one_stays() {
        assert_eq!(
            show(&code_spans("send `[DONE]` last")),
            "send <[DONE]> last"
        );
        assert_eq!(show(&code_spans("`a` and `b`")), "<a> and <b>");
        assert_eq!(show(&code_spans("it`s")), "it`s");
        assert_eq!(show(&code_spans("no code")), "no code");
    }

    #[test]
    fn event_names_wrap_after_their_separators() {
        assert_eq!(
            name_parts("content_block_delta"),
            vec!["content_", "block_", "delta"]
        );
        assert_eq!(
            name_parts("response.output_text.delta"),
            vec!["response.", "output_", "text.", "delta"]
        );
        assert!(name_parts("").is_empty());
    }

    #[test]
    fn the_no_timings_note_follows_the_format() {
        assert!(no_timing_note("har").contains("HAR file records each request's total time"));
        assert!(no_timing_note("curl --trace-ascii").contains("--trace-time"));
        assert!(no_timing_note("curl -i").contains("curl -i or -v dump"));
        assert!(no_timing_note("raw body").contains("raw body"));
    }
}
