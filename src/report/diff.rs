//! Rendering a `diff`: a side-by-side table (comfy-table) with A as the
//! reference, the word diff of texts that differ (changed words emphasised),
//! the findings only one side has, and the verdict; or the versioned JSON.

use crate::diff::{Comparison, Side};
use comfy_table::{presets, Cell, Color, ContentArrangement, Table};
use owo_colors::OwoColorize;
use serde::Serialize;
use std::io::{self, Write};

/// The diff JSON's format version.
pub const VERSION: u32 = 1;

/// A side as the user named it, then its stream's label where it adds
/// to that: a socket's response label is the file's own plus
/// ` · RESPONSE`, so the file is named once.
fn side_name(s: &Side) -> String {
    let label = &s.result.label;
    if *label == s.spec || s.spec.contains('#') {
        s.spec.clone()
    } else if let Some(rest) = label
        .strip_prefix(s.spec.as_str())
        .filter(|r| r.starts_with(" · "))
    {
        format!("{}{rest}", s.spec)
    } else {
        format!("{} {label}", s.spec)
    }
}

/// A cell's text, escaped. Cells wrap rather than being cut; only a value
/// past `max` characters (a long answer) is shortened, and the cell says by
/// how much and where the whole value is.
fn cell_text(s: &str, max: usize) -> String {
    cell_text_of(s, max, "--format json has them all")
}

/// [`cell_text`], saying where the rest is (`where`).
fn cell_text_of(s: &str, max: usize, rest: &str) -> String {
    // Stream text reaches the terminal: escape controls and bidi marks.
    let esc = crate::lint::printable(&s.replace('\n', "\\n"));
    let n = esc.chars().count();
    if n <= max {
        esc
    } else {
        let mut t: String = esc.chars().take(max).collect();
        t.push_str(&format!(" [… {} more characters; {rest}]", n - max));
        t
    }
}

/// Writes the human report.
///
/// # Errors
/// The writer's.
pub fn human(
    a: &Side,
    b: &Side,
    c: &Comparison,
    color: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    let (na, nb) = (side_name(a), side_name(b));
    if c.differences.is_empty() && c.ignored_text {
        // --ignore-text left the texts and tool calls out: "same answer"
        // would claim what was not compared.
        writeln!(
            out,
            "A ({na}) and B ({nb}) are equivalent in what was compared: finish, usage, ending, findings and the tool calls' names; their text and the tool calls' arguments were not compared (--ignore-text)."
        )?;
        for n in &c.not_applicable {
            writeln!(out, "not compared: {n}")?;
        }
        return Ok(());
    }
    if c.differences.is_empty() {
        if c.dialects.0 != c.dialects.1 {
            writeln!(
                out,
                "A ({na}) and B ({nb}) are equivalent where two dialects can be compared: same answer, finish (mapped across dialects), usage, tool calls, ending and findings."
            )?;
            for n in &c.not_applicable {
                writeln!(out, "not compared: {n}")?;
            }
            return Ok(());
        }
        return writeln!(
            out,
            "A ({na}) and B ({nb}) are equivalent: same answer, finish reasons, usage, tool calls, shape, fields and findings."
        );
    }
    writeln!(
        out,
        "A: {}\nB: {}\n",
        crate::lint::printable(&na),
        crate::lint::printable(&nb)
    )?;
    if c.dialects.0 != c.dialects.1 {
        let name = |d: Option<crate::dialect::Dialect>| d.map_or("no known dialect", |d| d.title());
        writeln!(
            out,
            "A is {}, B is {}: comparing what both have (answer, tool calls, finish mapped across dialects, usage, ending, timing).",
            name(c.dialects.0),
            name(c.dialects.1)
        )?;
        for n in &c.not_applicable {
            writeln!(out, "not compared: {n}")?;
        }
        writeln!(out)?;
    }
    let mut t = Table::new();
    t.load_style(presets::UTF8_FULL_CONDENSED);
    t.set_content_arrangement(ContentArrangement::Dynamic);
    if color {
        // Styled even through a pipe (`--color always | less -R`).
        t.enforce_styling();
    } else {
        t.force_no_tty();
    }
    // On a terminal cells wrap to its width; elsewhere (a pipe, a file,
    // CI logs) rows stay whole on one line each.
    t.set_header(["section", "item", "A", "B", "note"]);
    for d in &c.differences {
        // A text past what sselint keeps: the JSON has the kept part only.
        let rest = if c
            .text_diffs
            .iter()
            .any(|t| t.label == d.item && t.cut.is_some())
        {
            "--format json has the first 1 MiB"
        } else {
            "--format json has them all"
        };
        let mut bcell = Cell::new(cell_text_of(&d.b, 500, rest));
        if color {
            bcell = bcell.fg(Color::Yellow);
        }
        t.add_row(vec![
            Cell::new(d.section.name()),
            Cell::new(cell_text(&d.item, 500)),
            Cell::new(cell_text_of(&d.a, 500, rest)),
            bcell,
            Cell::new(cell_text(&d.class, 500)),
        ]);
    }
    writeln!(out, "{t}")?;
    for td in &c.text_diffs {
        writeln!(out, "\n{}, word by word (A → B):", td.label)?;
        let mut line = String::new();
        for (tag, text) in &td.ops {
            let text = &crate::lint::printable(&text.replace('\n', "\\n"));
            match (*tag, color) {
                ("equal", _) => line.push_str(text),
                ("delete", true) => line.push_str(&format!("{}", text.red().strikethrough())),
                ("insert", true) => line.push_str(&format!("{}", text.green().underline())),
                ("delete", false) => line.push_str(&format!("[-{text}-]")),
                (_, false) => line.push_str(&format!("{{+{text}+}}")),
                _ => line.push_str(text),
            }
        }
        writeln!(out, "  {line}")?;
        if let Some(cut) = &td.cut {
            writeln!(out, "  ({})", cut.describe())?;
        }
    }
    if !c.diagnostics.both.is_empty() {
        let both: Vec<String> = c
            .diagnostics
            .both
            .iter()
            .map(|(r, (x, y))| format!("{r} ({x}/{y})"))
            .collect();
        writeln!(out, "\nfindings on both sides (A/B): {}", both.join(", "))?;
    }
    for n in &c.notes {
        writeln!(out, "\nnote: {n}")?;
    }
    let verdict = if c.compatible && c.ignored_text {
        "compatible: same ending and finish reasons, no new finding at the --fail-on level (the answers' text and tool-call arguments were not compared: --ignore-text)".to_string()
    } else if c.compatible {
        "compatible: same ending and finish reasons, no new finding at the --fail-on level, same answer".to_string()
    } else {
        format!("not compatible: {}", c.reasons.join("; "))
    };
    if color {
        let v = if c.compatible {
            format!("{}", verdict.green())
        } else {
            format!("{}", verdict.red())
        };
        writeln!(out, "\n{v}")
    } else {
        writeln!(out, "\n{verdict}")
    }
}

#[derive(Serialize)]
struct SideJson<'a> {
    input: &'a str,
    label: &'a str,
    dialect: Option<crate::dialect::Dialect>,
    events: u64,
    ending: &'static str,
    sequence: String,
    /// Usage on one footing across dialects (cached tokens in the input).
    usage: Option<crate::diff::UsageCounts>,
}

#[derive(Serialize)]
struct Doc<'a> {
    version: u32,
    tool: super::Tool,
    a: SideJson<'a>,
    b: SideJson<'a>,
    identical: bool,
    #[serde(flatten)]
    comparison: &'a Comparison,
}

fn side_json(s: &Side) -> SideJson<'_> {
    SideJson {
        input: &s.spec,
        label: &s.result.label,
        dialect: s.result.dialect,
        events: s.result.events,
        ending: s.result.ending.name(),
        sequence: s.shape.sequence_text(),
        usage: s
            .result
            .answer
            .usage
            .as_ref()
            .map(|u| crate::diff::usage_counts(s.result.dialect, u)),
    }
}

/// Writes the JSON report (`version` 1).
///
/// # Errors
/// The writer's.
pub fn json(a: &Side, b: &Side, c: &Comparison, out: &mut dyn Write) -> io::Result<()> {
    // The streams' text may quote a key (an error echoing it): masked, as
    // the human table's cells are.
    let mut c = c.clone();
    for d in &mut c.differences {
        d.a = crate::capture::redact_keys(&d.a);
        d.b = crate::capture::redact_keys(&d.b);
    }
    for td in &mut c.text_diffs {
        for (_, t) in &mut td.ops {
            *t = crate::capture::redact_keys(t);
        }
    }
    let c = &c;
    let doc = Doc {
        version: VERSION,
        tool: super::TOOL,
        a: side_json(a),
        b: side_json(b),
        identical: c.differences.is_empty(),
        comparison: c,
    };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}
