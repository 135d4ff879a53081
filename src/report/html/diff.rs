//! The HTML page of `sselint diff A B`: both inputs and their dialects, the
//! verdict, the answer's word diff (`<ins>`/`<del>`), tool calls side by
//! side, the rows the JSON diff gives and both streams' answer characters
//! against one time axis.
//!
//! Every capture-derived string reaches the page through askama's HTML
//! escaping after [`printable`] or [`printable_text`] (controls escaped,
//! secrets redacted), as on the inspect page; the page's one script reads
//! only a checkbox and class names.
//!
//! Not for deciding compatibility: the [`Comparison`] does.

use super::{head_chars, inert, plural, timeline, timing_line};
use crate::diff::{Comparison, Section, Side};
use crate::lint::{printable, printable_text};
use crate::model::assembly::ToolCall;
use askama::Template;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Write};

/// Characters of a difference row's value shown (a long answer).
const CELL_CHARS: usize = 2000;

struct SideView {
    key: &'static str,
    input: String,
    label: String,
    url: Option<String>,
    dialect: String,
    detail: &'static str,
    ending: &'static str,
    events: u64,
    timing: String,
}

struct OpView {
    tag: &'static str,
    text: String,
}

struct TextDiffView {
    choice: u64,
    ops: Vec<OpView>,
    /// What the runs leave out, when the texts ran past what sselint
    /// keeps (`TextCut::describe`).
    cut: Option<String>,
}

struct ToolSide {
    name: String,
    arguments: String,
}

struct ToolRow {
    choice: u64,
    index: u64,
    a: Option<ToolSide>,
    b: Option<ToolSide>,
    verdict: &'static str,
    verdict_class: &'static str,
}

struct RowView {
    section: &'static str,
    item: String,
    a: String,
    b: String,
    class: String,
}

#[derive(Template)]
#[template(path = "diff.html")]
struct DiffPage {
    title: String,
    version: &'static str,
    sides: Vec<SideView>,
    cross: bool,
    not_applicable: Vec<String>,
    compatible: bool,
    reasons: Vec<String>,
    summary: String,
    text_diffs: Vec<TextDiffView>,
    /// What one answer is called: the dialect's own word within one
    /// dialect (Gemini's `candidate`), `choice` across dialects.
    choice_word: &'static str,
    tools: Vec<ToolRow>,
    rows: Vec<RowView>,
    both: String,
    notes: Vec<String>,
    plot: Option<timeline::PairPlot>,
}

fn side_view(key: &'static str, s: &Side) -> SideView {
    SideView {
        key,
        input: printable(&s.spec),
        label: printable(&s.result.label),
        url: s.url.as_deref().map(printable),
        dialect: s
            .result
            .dialect
            .map_or("no known dialect", |d| d.title())
            .to_string(),
        detail: s.detail,
        ending: s.result.ending.name(),
        events: s.result.events,
        timing: match &s.timeline {
            Some(t) if !t.points.is_empty() => timing_line(t),
            _ => super::no_timing_note(s.detail).to_string(),
        },
    }
}

fn tool_side(t: &ToolCall) -> ToolSide {
    ToolSide {
        name: printable(t.name.as_deref().unwrap_or("?")),
        arguments: inert(
            &serde_json::from_str::<Value>(&t.arguments)
                .ok()
                .and_then(|v| serde_json::to_string_pretty(&v).ok())
                .unwrap_or_else(|| t.arguments.clone()),
        ),
    }
}

fn tool_rows(a: &Side, b: &Side) -> Vec<ToolRow> {
    fn calls(s: &Side) -> BTreeMap<(u64, u64), &ToolCall> {
        s.result
            .answer
            .choices
            .values()
            .flat_map(|c| c.tool_calls.values().map(move |t| ((c.index, t.index), t)))
            .collect()
    }
    let (ca, cb) = (calls(a), calls(b));
    let keys: BTreeSet<(u64, u64)> = ca.keys().chain(cb.keys()).copied().collect();
    keys.into_iter()
        .map(|k| {
            let (ta, tb) = (ca.get(&k), cb.get(&k));
            let (verdict, verdict_class) = match (ta, tb) {
                (Some(x), Some(y)) => {
                    let json = |s: &str| serde_json::from_str::<Value>(s).ok();
                    let same_args = match (json(&x.arguments), json(&y.arguments)) {
                        (Some(p), Some(q)) => p == q,
                        _ => x.arguments == y.arguments,
                    };
                    match (x.name == y.name, same_args) {
                        (true, true) => ("same name, same arguments as JSON", "pass"),
                        (true, false) => ("same name, arguments differ as JSON", "fail"),
                        (false, true) => ("names differ, same arguments as JSON", "fail"),
                        (false, false) => ("names and arguments differ", "fail"),
                    }
                }
                (Some(_), None) => ("only in A", "fail"),
                _ => ("only in B", "fail"),
            };
            ToolRow {
                choice: k.0,
                index: k.1,
                a: ta.map(|t| tool_side(t)),
                b: tb.map(|t| tool_side(t)),
                verdict,
                verdict_class,
            }
        })
        .collect()
}

fn summary(c: &Comparison) -> String {
    if c.differences.is_empty() {
        return "no differences where the two can be compared".to_string();
    }
    let mut by: Vec<(Section, u64)> = Vec::new();
    for d in &c.differences {
        match by.last_mut() {
            Some((s, n)) if *s == d.section => *n += 1,
            _ => by.push((d.section, 1)),
        }
    }
    let parts: Vec<String> = by
        .iter()
        .map(|(s, n)| format!("{} {n}", s.name()))
        .collect();
    format!(
        "{}: {}",
        plural(c.differences.len() as u64, "difference", "differences"),
        parts.join(", ")
    )
}

fn page(a: &Side, b: &Side, c: &Comparison) -> DiffPage {
    let cell = |s: &str| printable_text(&head_chars(s, CELL_CHARS));
    DiffPage {
        title: format!(
            "sselint diff: {} vs {}",
            printable(&a.spec),
            printable(&b.spec)
        ),
        version: env!("CARGO_PKG_VERSION"),
        sides: vec![side_view("A", a), side_view("B", b)],
        cross: c.dialects.0 != c.dialects.1,
        choice_word: if c.dialects.0 == c.dialects.1 {
            crate::dialect::words::of(c.dialects.0).terms.choice
        } else {
            crate::dialect::words::CHAT_TERMS.choice
        },
        not_applicable: c.not_applicable.iter().map(|s| printable(s)).collect(),
        compatible: c.compatible,
        reasons: c.reasons.iter().map(|s| printable(s)).collect(),
        summary: summary(c),
        text_diffs: c
            .text_diffs
            .iter()
            .map(|t| TextDiffView {
                choice: t.choice,
                ops: t
                    .ops
                    .iter()
                    .map(|(tag, text)| OpView {
                        tag,
                        text: printable_text(text),
                    })
                    .collect(),
                cut: t.cut.map(|c| c.describe()),
            })
            .collect(),
        tools: tool_rows(a, b),
        rows: c
            .differences
            .iter()
            .map(|d| RowView {
                section: d.section.name(),
                item: printable(&d.item),
                a: cell(&d.a),
                b: cell(&d.b),
                class: printable(&d.class),
            })
            .collect(),
        both: c
            .diagnostics
            .both
            .iter()
            .map(|(r, (x, y))| format!("{} ({x}/{y})", printable(r)))
            .collect::<Vec<_>>()
            .join(", "),
        notes: c.notes.iter().map(|s| printable(s)).collect(),
        plot: timeline::pair(a.timeline.as_ref(), b.timeline.as_ref()),
    }
}

/// Writes the diff page.
///
/// # Errors
/// The writer's, or the template's.
pub fn render(a: &Side, b: &Side, c: &Comparison, out: &mut dyn Write) -> io::Result<()> {
    let html = page(a, b, c).render().map_err(io::Error::other)?;
    out.write_all(html.as_bytes())
}
