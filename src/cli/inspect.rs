//! `sselint inspect`: every block of a stream in order (events, comments,
//! the undispatched tail) with offsets, times, kinds and findings, then the
//! reconstructed answer. `--format jsonl` streams one record a line.

use super::{ColorChoice, InputArgs};
use anyhow::Context as _;
use clap::ValueEnum;
use comfy_table::{presets, Cell, Color, ContentArrangement, Table};
use serde_json::{json, Value};
use sselint::capture::{self, Timing};
use sselint::checks::Linter;
use sselint::lint::{Diagnostic, Severity};
use sselint::pipeline::{self, Observer};
use sselint::report::human::summary_line;
use sselint::sse::{Block, LineKind};
use std::io::{BufWriter, Write};
use std::process::ExitCode;

/// Show every event with its kind and findings, then the answer.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A file or `-` for stdin.
    #[arg(value_name = "INPUT")]
    input: String,
    /// `table` for people, `jsonl` for one JSON record per line.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    /// Provider profile.
    #[arg(long, default_value = "openai", value_name = "NAME")]
    profile: String,
    #[command(flatten)]
    input_args: InputArgs,
    /// Colour.
    #[arg(long, value_enum, default_value = "auto")]
    color: ColorChoice,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Table,
    Jsonl,
}

struct Recorder<'w> {
    jsonl: Option<&'w mut dyn Write>,
    rows: Vec<Vec<Cell>>,
    timing: Option<Timing>,
    error: Option<std::io::Error>,
    color: bool,
}

fn short(s: &str, max: usize) -> String {
    // Control characters escaped, quotes left alone: JSON stays readable.
    let esc: String = s
        .chars()
        .flat_map(|c| match c {
            '\n' => vec!['\\', 'n'],
            '\r' => vec!['\\', 'r'],
            '\t' => vec!['\\', 't'],
            c if c.is_control() => c.escape_unicode().collect(),
            c => vec![c],
        })
        .collect();
    if esc.chars().count() <= max {
        esc
    } else {
        let mut t: String = esc.chars().take(max).collect();
        t.push('…');
        t
    }
}

fn diag_json(d: &Diagnostic) -> Value {
    json!({"rule": d.rule, "code": d.code, "severity": d.severity, "message": d.message,
           "line": d.location.line, "column": d.location.column, "byte_offset": d.location.byte_offset,
           "pointer": d.pointer})
}

impl Recorder<'_> {
    fn time_of(&self, block: &Block<'_>, event_index: Option<u64>) -> Option<f64> {
        self.timing.as_ref()?.time_of(block.end_offset, event_index)
    }

    fn emit(&mut self, v: Value) {
        if let Some(w) = self.jsonl.as_mut() {
            if self.error.is_none() {
                if let Err(e) = serde_json::to_writer(&mut **w, &v)
                    .map_err(std::io::Error::from)
                    .and_then(|_| writeln!(w))
                {
                    self.error = Some(e);
                }
            }
        }
    }
}

impl Observer for Recorder<'_> {
    fn block(&mut self, block: &Block<'_>, new: &[Diagnostic], linter: &Linter<'_>) {
        let first = block.lines.first();
        let line = first.map_or(0, |l| l.line);
        let offset = first.map_or(0, |l| l.offset);
        let diags: Vec<Value> = new.iter().map(diag_json).collect();
        let (ty, kind, data) = if let Some(d) = &block.dispatch {
            let time = self.time_of(block, Some(d.index));
            let kind = linter.event_kind.join("+");
            self.emit(
                json!({"type": "event", "index": d.index, "line": line, "byte_offset": offset,
                "time_ms": time, "event": d.event_type, "data": d.data, "id": d.last_event_id,
                "retry": block.retry, "kind": kind, "diagnostics": diags}),
            );
            (d.index.to_string(), kind, d.data.to_string())
        } else if !block.terminated {
            self.emit(json!({"type": "tail", "line": line, "byte_offset": offset,
                "data": block.data, "diagnostics": diags}));
            (
                "tail".to_string(),
                "undispatched".to_string(),
                block.data.unwrap_or("").to_string(),
            )
        } else if block.lines.iter().all(|l| l.kind == LineKind::Comment) {
            let text: Vec<String> = block
                .lines
                .iter()
                .map(|l| String::from_utf8_lossy(block.bytes(l)).into_owned())
                .collect();
            self.emit(
                json!({"type": "comment", "line": line, "byte_offset": offset,
                "text": text.join("\n"), "diagnostics": diags}),
            );
            ("·".to_string(), "comment".to_string(), text.join(" "))
        } else {
            let text: Vec<String> = block
                .lines
                .iter()
                .map(|l| String::from_utf8_lossy(block.bytes(l)).into_owned())
                .collect();
            self.emit(json!({"type": "block", "line": line, "byte_offset": offset,
                "lines": text, "diagnostics": diags}));
            ("·".to_string(), "no data".to_string(), text.join(" "))
        };
        if self.jsonl.is_none() {
            let time = self
                .time_of(block, block.dispatch.as_ref().map(|d| d.index))
                .map_or(String::new(), |t| format!("{t:.0} ms"));
            let findings: Vec<String> = new
                .iter()
                .map(|d| format!("{} {}", d.severity, d.rule))
                .collect();
            let mut fcell = Cell::new(findings.join("\n"));
            if self.color {
                let worst = new.iter().map(|d| d.severity).max();
                fcell = match worst {
                    Some(Severity::Error) => fcell.fg(Color::Red),
                    Some(Severity::Warning) => fcell.fg(Color::Yellow),
                    Some(Severity::Info) => fcell.fg(Color::Cyan),
                    None => fcell,
                };
            }
            self.rows.push(vec![
                Cell::new(ty),
                Cell::new(line),
                Cell::new(offset),
                Cell::new(time),
                Cell::new(block.dispatch.as_ref().map_or("", |d| d.event_type)),
                Cell::new(kind),
                Cell::new(short(&data, 60)),
                fcell,
            ]);
        }
    }
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let settings = super::check::settings(&a.profile)?;
    let cap = match capture::open(&a.input, &a.input_args.options()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("sselint: error: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let color = a.color.enabled();
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for stream in cap.streams {
        let label = stream.label.clone();
        let timing = stream.timing.clone();
        let jsonl = a.format == Format::Jsonl;
        let mut rec = Recorder {
            jsonl: if jsonl { Some(&mut out) } else { None },
            rows: Vec::new(),
            timing,
            error: None,
            color,
        };
        let result = pipeline::lint_stream(stream, &settings, &mut rec);
        if let Some(e) = rec.error.take() {
            return Err(e).context("writing the report");
        }
        let rows = std::mem::take(&mut rec.rows);
        drop(rec);
        let attached: usize = 0;
        let _ = attached;
        let stream_diags: Vec<&Diagnostic> = result
            .diagnostics
            .iter()
            .filter(|d| d.event_index.is_none())
            .collect();
        if jsonl {
            let choices: Vec<Value> = result
                .answer
                .choices
                .values()
                .map(|c| {
                    json!({"index": c.index, "text": c.text.kept, "refusal": c.refusal.as_ref().map(|r| &r.kept),
                        "reasoning": (!c.reasoning.is_empty()).then_some(&c.reasoning.kept),
                        "finish_reason": c.finish_reason, "tool_calls": c.tool_calls.values().collect::<Vec<_>>()})
                })
                .collect();
            serde_json::to_writer(
                &mut out,
                &json!({"type": "stream", "label": label, "events": result.events, "ending": result.ending,
                    "choices": choices, "usage": result.answer.usage,
                    "diagnostics": stream_diags.iter().map(|d| diag_json(d)).collect::<Vec<_>>(),
                    "counts": {"errors": result.counts.0, "warnings": result.counts.1, "infos": result.counts.2}}),
            )?;
            writeln!(out)?;
        } else {
            let mut t = Table::new();
            t.load_style(presets::UTF8_FULL_CONDENSED);
            t.set_content_arrangement(ContentArrangement::Dynamic);
            if !color {
                t.force_no_tty();
            }
            t.set_header([
                "#", "line", "offset", "time", "event", "kind", "data", "findings",
            ]);
            for r in rows {
                t.add_row(r);
            }
            writeln!(out, "{label}")?;
            writeln!(out, "{t}")?;
            for d in &stream_diags {
                writeln!(
                    out,
                    "{} {}: {} (line {})",
                    d.severity, d.rule, d.message, d.location.line
                )?;
            }
            for c in result.answer.choices.values() {
                writeln!(out, "\nchoice {}:", c.index)?;
                if !c.reasoning.is_empty() {
                    writeln!(out, "  reasoning: {}", c.reasoning.kept)?;
                }
                writeln!(out, "  text: {}", c.text.kept)?;
                if let Some(r) = &c.refusal {
                    writeln!(out, "  refusal: {}", r.kept)?;
                }
                for tc in c.tool_calls.values() {
                    let args = serde_json::from_str::<Value>(&tc.arguments)
                        .ok()
                        .and_then(|v| serde_json::to_string_pretty(&v).ok())
                        .unwrap_or_else(|| tc.arguments.clone());
                    writeln!(
                        out,
                        "  tool call {} {} (id {}):\n    {}",
                        tc.index,
                        tc.name.as_deref().unwrap_or("?"),
                        tc.id.as_deref().unwrap_or("none"),
                        args.replace('\n', "\n    ")
                    )?;
                }
                writeln!(
                    out,
                    "  finish_reason: {}",
                    c.finish_reason.as_deref().unwrap_or("(none)")
                )?;
            }
            writeln!(out, "\n{}", summary_line(&result))?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
