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
//! Events are capped ([`record::HEAD_EVENTS`] + [`record::TAIL_EVENTS`]).
//!
//! Not for deciding a verdict: the page shows the run's findings and its
//! `--fail-on` threshold.

pub mod diff;
pub mod record;
pub mod timeline;

use super::{display_path, stream_name, Render, Run};
use crate::lint::{catalogue, printable, printable_text, Diagnostic, Severity};
use crate::pipeline::{FileResult, StreamResult};
use askama::Template;
use record::{cut, StreamLog, DATA_CHARS, HEAD_EVENTS, TAIL_EVENTS};
use std::collections::BTreeSet;
use std::io::{self, Write};

/// Characters of a finding's source line shown on each side of its span.
const CONTEXT_CHARS: usize = 160;
/// Characters of an event's data shown before the row is opened.
const SHORT_DATA_CHARS: usize = 120;
/// Characters of a rule example's capture shown in the rule docs.
const EXAMPLE_CHARS: usize = 4000;

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
    message: String,
    help: Option<String>,
    note: String,
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
    event_type: String,
    kinds: Vec<String>,
    /// Space-separated kinds, for the filter.
    kind_attr: String,
    /// The worst severity of its findings, or `none`.
    sev: &'static str,
    adds: String,
    /// The start of a long data, shown until the row is opened.
    data_short: Option<String>,
    data: String,
    data_cut: usize,
    findings: Vec<FindingView>,
}

struct ToolView {
    index: u64,
    name: String,
    id: String,
    arguments: String,
}

struct ChoiceView {
    index: u64,
    text: String,
    text_dropped: u64,
    reasoning: Option<String>,
    refusal: Option<String>,
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
    head: Vec<EventView>,
    skipped: u64,
    tail: Vec<EventView>,
    /// Findings not shown at an event (end-of-stream rules, or events left
    /// out).
    stream_findings: Vec<FindingView>,
    omitted: Vec<String>,
    choices: Vec<ChoiceView>,
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
    summary: &'static str,
    basis: Option<&'static str>,
    rationale: &'static str,
    fix: &'static str,
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
        message: printable_text(&d.message),
        help: d.help.as_deref().map(printable_text),
        note: super::human::severity_note(d),
        line: d.location.line,
        column: d.location.column,
        offset: d.location.byte_offset,
        pointer: d.pointer.as_deref().map(printable),
        suppressed: d.suppressed,
        before,
        span,
        after,
        has_source,
    }
}

fn event_view(row: &record::EventRow, diags: &[Diagnostic]) -> EventView {
    let found: Vec<&Diagnostic> = diags
        .get(row.findings.clone())
        .map(|d| d.iter().collect())
        .unwrap_or_default();
    let sev = found
        .iter()
        .map(|d| d.severity)
        .max()
        .map_or("none", sev_name);
    EventView {
        label: row.label.clone(),
        line: row.line,
        offset: row.offset,
        time: row.time_ms.map_or(String::new(), |t| format!("{t:.0} ms")),
        event_type: row.event_type.clone(),
        kinds: row.kinds.clone(),
        kind_attr: row.kinds.join(" "),
        sev,
        adds: row.adds.clone(),
        data_short: (row.data.chars().count() > SHORT_DATA_CHARS)
            .then(|| head_chars(&row.data, SHORT_DATA_CHARS)),
        data: row.data.clone(),
        data_cut: row.data_cut,
        findings: found.into_iter().map(finding).collect(),
    }
}

fn choices(s: &StreamResult) -> Vec<ChoiceView> {
    s.answer
        .choices
        .values()
        .map(|c| ChoiceView {
            index: c.index,
            text: printable_text(&c.text.kept),
            text_dropped: c.text.dropped,
            reasoning: (!c.reasoning.is_empty()).then(|| printable_text(&c.reasoning.kept)),
            refusal: c.refusal.as_ref().map(|r| printable_text(&r.kept)),
            tool_calls: c
                .tool_calls
                .values()
                .map(|t| ToolView {
                    index: t.index,
                    name: printable(t.name.as_deref().unwrap_or("?")),
                    id: printable(t.id.as_deref().unwrap_or("none")),
                    arguments: inert(
                        &serde_json::from_str::<serde_json::Value>(&t.arguments)
                            .ok()
                            .and_then(|v| serde_json::to_string_pretty(&v).ok())
                            .unwrap_or_else(|| t.arguments.clone()),
                    ),
                })
                .collect(),
            finish: printable(c.finish_reason.as_deref().unwrap_or("(none)")),
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

fn stream_view(
    run: &Run,
    f: &FileResult,
    s: &StreamResult,
    log: Option<&StreamLog>,
    id: String,
) -> StreamView {
    let worst = s
        .diagnostics
        .iter()
        .filter(|d| !d.suppressed)
        .map(|d| d.severity)
        .chain(
            s.omitted_worst
                .iter()
                .filter(|(r, _)| !s.omitted_suppressed.contains(r))
                .map(|(_, v)| *v),
        )
        .max();
    let fails = matches!((run.fail_on, worst), (Some(t), Some(w)) if w >= t);
    let (verdict, verdict_class) = match (fails, worst) {
        (true, _) => ("fails", "fail"),
        (false, Some(Severity::Error | Severity::Warning)) => ("passes, with findings", "warn"),
        _ => ("passes", "pass"),
    };
    let mut shown = vec![false; s.diagnostics.len()];
    let mut rows = |rs: &mut dyn Iterator<Item = &record::EventRow>| -> Vec<EventView> {
        rs.map(|r| {
            for i in r.findings.clone() {
                if let Some(x) = shown.get_mut(i) {
                    *x = true;
                }
            }
            event_view(r, &s.diagnostics)
        })
        .collect()
    };
    let (head, tail, skipped) = match log {
        Some(l) => (
            rows(&mut l.head.iter()),
            rows(&mut l.tail.iter()),
            l.skipped,
        ),
        None => (Vec::new(), Vec::new(), 0),
    };
    let stream_findings = s
        .diagnostics
        .iter()
        .zip(&shown)
        .filter(|(_, shown)| !**shown)
        .map(|(d, _)| finding(d))
        .collect();
    let (plot, timing_line, no_timing) = match log.and_then(|l| l.timeline.as_ref()) {
        Some(t) => match timeline::plot(t) {
            Some(p) => (Some(p), Some(self::timing_line(t)), None),
            None => (None, None, Some("The capture has timings, but no event got a time.")),
        },
        None => (
            None,
            None,
            Some("No timings: this capture has no arrival times (a raw body or curl -i dump). A HAR export, curl --trace-ascii with --trace-time, or sselint record keep them."),
        ),
    };
    let mut notes: Vec<String> = s.notes.iter().map(|n| printable(n)).collect();
    if let Some(e) = &s.read_error {
        notes.push(format!("reading the body stopped early: {}", printable(e)));
    }
    StreamView {
        id,
        input: printable(&display_path(&f.path)),
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
        head: Vec::new(),
        skipped: 0,
        tail: Vec::new(),
        stream_findings: Vec::new(),
        omitted: Vec::new(),
        choices: Vec::new(),
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
        summary: r.summary,
        basis: r.severity_basis.map(str::trim),
        rationale: r.rationale.trim(),
        fix: r.fix.trim(),
        examples,
        references: r.references.clone(),
    })
}

fn page(run: &Run, logs: &[Vec<StreamLog>], command: &str) -> Page {
    let mut streams = Vec::new();
    for (fi, f) in run.files.iter().enumerate() {
        if let Some(e) = &f.error {
            streams.push(error_view(f, e, format!("s{}", streams.len())));
        }
        for (si, s) in f.streams.iter().enumerate() {
            let log = logs.get(fi).and_then(|l| l.get(si));
            let id = format!("s{}", streams.len());
            streams.push(stream_view(run, f, s, log, id));
        }
    }
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
