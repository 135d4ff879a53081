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

fn side_name(s: &Side) -> String {
    if s.result.label == s.spec || s.spec.contains('#') {
        s.spec.clone()
    } else {
        format!("{} {}", s.spec, s.result.label)
    }
}

fn short(s: &str, max: usize) -> String {
    // Stream text reaches the terminal: escape controls and bidi marks.
    let esc = crate::lint::printable(&s.replace('\n', "\\n"));
    if esc.chars().count() <= max {
        esc
    } else {
        let mut t: String = esc.chars().take(max).collect();
        t.push('…');
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
    if c.differences.is_empty() {
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
    let mut t = Table::new();
    t.load_style(presets::UTF8_FULL_CONDENSED);
    t.set_content_arrangement(ContentArrangement::Dynamic);
    if !color {
        t.force_no_tty();
    }
    t.set_width(140);
    t.set_header(["section", "item", "A", "B", "note"]);
    for d in &c.differences {
        let mut bcell = Cell::new(short(&d.b, 60));
        if color {
            bcell = bcell.fg(Color::Yellow);
        }
        t.add_row(vec![
            Cell::new(d.section.name()),
            Cell::new(short(&d.item, 64)),
            Cell::new(short(&d.a, 60)),
            bcell,
            Cell::new(short(&d.class, 40)),
        ]);
    }
    writeln!(out, "{t}")?;
    for td in &c.text_diffs {
        writeln!(out, "\nchoice {} text, word by word (A → B):", td.choice)?;
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
    let verdict = if c.compatible {
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
    events: u64,
    ending: &'static str,
    sequence: String,
}

#[derive(Serialize)]
struct Doc<'a> {
    version: u32,
    tool: &'static str,
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
        events: s.result.events,
        ending: s.result.ending.name(),
        sequence: s.shape.sequence_text(),
    }
}

/// Writes the JSON report (`version` 1).
///
/// # Errors
/// The writer's.
pub fn json(a: &Side, b: &Side, c: &Comparison, out: &mut dyn Write) -> io::Result<()> {
    let doc = Doc {
        version: VERSION,
        tool: "sselint",
        a: side_json(a),
        b: side_json(b),
        identical: c.differences.is_empty(),
        comparison: c,
    };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}
