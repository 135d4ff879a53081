//! `sselint inspect`'s report: every block of a stream in order (events,
//! comments, the undispatched tail) with offsets, times, kinds and
//! findings, then the reconstructed answer, as a table (the first and the
//! last rows of a long stream, so memory does not grow with the capture)
//! or as JSON lines (`--format jsonl`: one record per block as it is read,
//! then one for the stream).
//!
//! [`Recorder`] watches the pipeline ([`crate::pipeline::Observer`]);
//! [`Recorder::finish`] gives what it kept, which [`Inspected::write`]
//! writes after the stream's result.

use crate::capture::Timing;
use crate::checks::Linter;
use crate::lint::{printable, printable_text, Diagnostic, Severity};
use crate::pipeline::{Observer, StreamResult};
use crate::report::human::summary_line;
use crate::sse::{Block, LineKind};
use crate::transport::Message;
use comfy_table::{presets, Cell, Color, ContentArrangement, Table};
use serde_json::{json, Value};
use std::io::Write;

/// Rows of the table kept from the start of a stream.
pub const HEAD_ROWS: usize = 1000;
/// Rows of the table kept from the end of a stream.
pub const TAIL_ROWS: usize = 100;

/// `inspect`'s observer: it writes one JSON line per block as the pipeline
/// reads it (`--format jsonl`), or keeps the table's rows (the first
/// [`HEAD_ROWS`] and the last [`TAIL_ROWS`]).
pub struct Recorder<'w> {
    jsonl: Option<&'w mut dyn Write>,
    /// The first [`HEAD_ROWS`] rows.
    rows: Vec<Vec<Cell>>,
    /// The last [`TAIL_ROWS`] rows after the head: memory stays bounded
    /// whatever the capture's length.
    tail: std::collections::VecDeque<Vec<Cell>>,
    /// Rows between the head and the tail, counted and dropped.
    skipped: u64,
    timing: Option<Timing>,
    error: Option<std::io::Error>,
    color: bool,
    /// (event index, ms, carried content) per timed event.
    times: Vec<(u64, f64, bool)>,
    /// Findings shown on the rows so far; those after them (the
    /// end-of-stream rules') go with the stream.
    shown: usize,
    /// The messages are binary frames with headers (AWS event-stream):
    /// the table's second column is their headers, not a line.
    binary: bool,
}

/// Time to first byte and content, total, largest gaps, and a sparkline of
/// arrivals, from the timed events.
#[derive(Debug, Clone)]
struct TimingSummary {
    first_ms: f64,
    first_content_ms: Option<f64>,
    total_ms: f64,
    gaps: Vec<(f64, u64)>,
    sparkline: String,
}

fn timing_summary(times: &[(u64, f64, bool)]) -> Option<TimingSummary> {
    let (_, first, _) = *times.first()?;
    let total = times.iter().map(|t| t.1).fold(first, f64::max);
    let mut gaps: Vec<(f64, u64)> = times
        .windows(2)
        .map(|w| (w[1].1 - w[0].1, w[1].0))
        .filter(|g| g.0 > 0.0)
        .collect();
    gaps.sort_by(|a, b| b.0.total_cmp(&a.0));
    gaps.truncate(3);
    // Arrivals over time, 40 buckets from 0 to the last event.
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let buckets = 40usize;
    let mut counts = vec![0u32; buckets];
    for (_, t, _) in times {
        let i = if total > 0.0 {
            ((t / total) * (buckets as f64 - 1.0)).round() as usize
        } else {
            0
        };
        counts[i.min(buckets - 1)] += 1;
    }
    let max = counts.iter().copied().max().unwrap_or(1).max(1);
    let sparkline = counts
        .iter()
        .map(|&c| {
            if c == 0 {
                ' '
            } else {
                BARS[((c as usize * 7) / max as usize).min(7)]
            }
        })
        .collect();
    Some(TimingSummary {
        first_ms: first,
        first_content_ms: times.iter().find(|t| t.2).map(|t| t.1),
        total_ms: total,
        gaps,
        sparkline,
    })
}

fn short(s: &str, max: usize) -> String {
    let s = &printable_text(s);
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
        self.shown = linter.out.diagnostics.len();
        let first = block.lines.first();
        let line = first.map_or(0, |l| l.line);
        let offset = first.map_or(0, |l| l.offset);
        let diags: Vec<Value> = new.iter().map(diag_json).collect();
        let (ty, kind, data) = if let Some(d) = &block.dispatch {
            let time = self.time_of(block, Some(d.index));
            if let Some(t) = time {
                self.times
                    .push((d.index, t, linter.event_kind.contains(&"content")));
            }
            // Every event has a kind: one that does none of the named
            // things (a value of the wrong type, a delta the dialect
            // skips) is `other`.
            let kind = if linter.event_kind.is_empty() {
                "other".to_string()
            } else {
                linter.event_kind.join("+")
            };
            self.emit(
                json!({"type": "event", "index": d.index, "line": line, "byte_offset": offset,
                "time_ms": time, "event": crate::capture::redact_keys(d.event_type),
                "data": crate::capture::redact_keys(d.data),
                "id": d.last_event_id.map(crate::capture::redact_keys),
                "retry": block.retry, "kind": kind, "diagnostics": diags}),
            );
            let shown = if linter.event_summary.is_empty() {
                d.data.to_string()
            } else {
                linter.event_summary.clone()
            };
            (d.index.to_string(), kind, shown)
        } else if !block.terminated {
            self.emit(json!({"type": "tail", "line": line, "byte_offset": offset,
                "data": block.data.map(crate::capture::redact_keys), "diagnostics": diags}));
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
            let mut record = json!({"type": "comment", "line": line, "byte_offset": offset,
                "text": crate::capture::redact_keys(&text.join("\n")), "diagnostics": diags});
            let shown = text.join(" ") + &block.skipped_note();
            if block.skipped_comments.lines > 0 {
                record["skipped_comments"] = json!(block.skipped_comments.lines);
            }
            self.emit(record);
            ("·".to_string(), "comment".to_string(), shown)
        } else {
            let text: Vec<String> = block
                .lines
                .iter()
                .map(|l| String::from_utf8_lossy(block.bytes(l)).into_owned())
                .collect();
            let masked: Vec<String> = text
                .iter()
                .map(|t| crate::capture::redact_keys(t))
                .collect();
            let mut record = json!({"type": "block", "line": line, "byte_offset": offset,
                "lines": masked, "diagnostics": diags});
            if block.skipped_comments.lines > 0 {
                record["skipped_comments"] = json!(block.skipped_comments.lines);
            }
            self.emit(record);
            (
                "·".to_string(),
                "no data".to_string(),
                text.join(" ") + &block.skipped_note(),
            )
        };
        let time = self.time_of(block, block.dispatch.as_ref().map(|d| d.index));
        let name = block.dispatch.as_ref().map_or("", |d| d.event_type);
        self.row(
            [ty, line.to_string(), offset.to_string()],
            time,
            name,
            kind,
            &data,
            new,
        );
    }

    fn message(&mut self, m: &Message<'_>, new: &[Diagnostic], linter: &Linter<'_>) {
        self.shown = linter.out.diagnostics.len();
        let time = m
            .time_ms
            .or_else(|| self.timing.as_ref()?.time_of(m.end(), Some(m.index)));
        if let Some(t) = time {
            self.times
                .push((m.index, t, linter.event_kind.contains(&"content")));
        }
        let kind = if linter.event_kind.is_empty() {
            "other".to_string()
        } else {
            linter.event_kind.join("+")
        };
        let diags: Vec<Value> = new.iter().map(diag_json).collect();
        // Data the dialect never shows (audio): what it shows instead,
        // in the record and the table alike.
        let sent = m.direction() == Some(crate::transport::Direction::Sent);
        let withheld = linter
            .dialect
            .and_then(|d| d.api().socket_summary(sent, m.data));
        // A binary frame's headers (`:event-type`, `:message-type`,
        // `:content-type`, `:exception-type`), and the event it wraps
        // where its dialect's messages wrap one (an Invoke chunk's
        // base64 `bytes`, decoded); each masked, as the data is.
        self.binary |= linter.transport().is_binary();
        let unwrapped = linter
            .dialect
            .filter(|_| m.fault.is_none())
            .and_then(|d| d.api().unwrapped(m.data));
        let mut record = json!({"type": "message", "transport": linter.transport().name(),
            "index": m.index, "line": m.line, "byte_offset": m.offset, "byte_len": m.len,
            "time_ms": time, "name": crate::capture::redact_keys(m.name),
            "data": withheld.as_deref().map_or_else(|| crate::capture::redact_keys(m.data), Into::into),
            "kind": kind, "diagnostics": diags});
        if withheld.is_some() {
            record["withheld"] = Value::Bool(true);
        }
        if linter.transport().is_binary() {
            let headers: serde_json::Map<String, Value> = m
                .headers
                .iter()
                .map(|h| {
                    (
                        crate::capture::redact_keys(&h.name),
                        crate::capture::redact_keys(&h.value).into(),
                    )
                })
                .collect();
            record["headers"] = headers.into();
        }
        if let Some(u) = &unwrapped {
            record["decoded"] = crate::capture::redact_keys(u).into();
        }
        self.emit(record);
        let shown = match withheld {
            Some(w) if linter.event_summary.is_empty() => w,
            _ if !linter.event_summary.is_empty() => linter.event_summary.clone(),
            _ => unwrapped.unwrap_or_else(|| m.data.to_string()),
        };
        // The headers the event column does not show (it shows the one
        // that names the frame).
        let second = if linter.transport().is_binary() {
            m.headers
                .iter()
                .filter(|h| h.value != m.name)
                .map(|h| format!("{} {}", h.name, h.value))
                .collect::<Vec<_>>()
                .join("\n")
        } else {
            m.line.to_string()
        };
        let cells = [m.index.to_string(), second, m.offset.to_string()];
        self.row(cells, time, m.name, kind, &shown, new);
    }
}

impl Recorder<'_> {
    /// One row of the table (when no JSON lines are written): the
    /// record's number, line and offset, its time, name and kind, what it
    /// adds, and its findings.
    fn row(
        &mut self,
        [ty, line, offset]: [String; 3],
        time: Option<f64>,
        name: &str,
        kind: String,
        data: &str,
        new: &[Diagnostic],
    ) {
        if self.jsonl.is_some() {
            return;
        }
        let time = time.map_or(String::new(), |t| format!("{t:.0} ms"));
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
        let row = vec![
            Cell::new(ty),
            Cell::new(line),
            Cell::new(offset),
            Cell::new(time),
            Cell::new(printable(name)),
            Cell::new(kind),
            Cell::new(short(data, 60)),
            fcell,
        ];
        if self.rows.len() < HEAD_ROWS {
            self.rows.push(row);
        } else {
            if self.tail.len() == TAIL_ROWS {
                self.tail.pop_front();
                self.skipped += 1;
            }
            self.tail.push_back(row);
        }
    }
}

impl<'w> Recorder<'w> {
    /// A recorder writing JSON lines to `jsonl` (or keeping table rows
    /// when `None`), timing events by `timing`, colouring the findings
    /// cell when `color`.
    pub fn new(jsonl: Option<&'w mut dyn Write>, timing: Option<Timing>, color: bool) -> Self {
        Recorder {
            jsonl,
            rows: Vec::new(),
            tail: std::collections::VecDeque::new(),
            skipped: 0,
            timing,
            error: None,
            color,
            times: Vec::new(),
            shown: 0,
            binary: false,
        }
    }

    /// What the recorder kept, once the pipeline is done with the stream.
    ///
    /// # Errors
    /// A JSON line could not be written.
    pub fn finish(mut self) -> std::io::Result<Inspected> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        Ok(Inspected {
            timing: timing_summary(&self.times),
            rows: self.rows,
            tail: self.tail,
            skipped: self.skipped,
            shown: self.shown,
            color: self.color,
            binary: self.binary,
        })
    }
}

/// What a [`Recorder`] kept of one stream.
pub struct Inspected {
    rows: Vec<Vec<Cell>>,
    tail: std::collections::VecDeque<Vec<Cell>>,
    skipped: u64,
    timing: Option<TimingSummary>,
    shown: usize,
    color: bool,
    binary: bool,
}

impl Inspected {
    /// Writes the stream's end: its JSON record (`jsonl`), or the table,
    /// the findings the rows did not show, the answer, the timing and the
    /// summary line.
    ///
    /// # Errors
    /// `out` cannot be written.
    pub fn write(
        &self,
        label: &str,
        result: &StreamResult,
        jsonl: bool,
        out: &mut dyn Write,
    ) -> std::io::Result<()> {
        // What the rows did not show: the findings of the end-of-stream
        // rules, which may point back at an event.
        let stream_diags: Vec<&Diagnostic> = result.diagnostics.iter().skip(self.shown).collect();
        let (rows, tail, skipped, timing) = (&self.rows, &self.tail, self.skipped, &self.timing);
        if jsonl {
            let choices: Vec<Value> = result
            .answer
            .choices
            .values()
            .map(|c| {
                // Masked as in every report: the text may quote a key.
                let mut choice = json!({"index": c.index, "text": crate::capture::redact_keys(&c.text.kept),
                    "refusal": c.refusal.as_ref().map(|r| crate::capture::redact_keys(&r.kept)),
                    "reasoning": (!c.reasoning.is_empty()).then(|| crate::capture::redact_keys(&c.reasoning.kept)),
                    "finish_reason": c.finish_reason, "tool_calls": c.tool_calls.values().collect::<Vec<_>>()});
                // What the texts above leave out (past sselint's 1 MiB per
                // text), as `check --format json` counts it.
                let omitted = [
                    ("text_omitted_bytes", c.text.dropped),
                    ("refusal_omitted_bytes", c.refusal.as_ref().map_or(0, |r| r.dropped)),
                    ("reasoning_omitted_bytes", c.reasoning.dropped),
                ];
                for (name, n) in omitted.into_iter().filter(|(_, n)| *n > 0) {
                    choice[name] = n.into();
                }
                choice
            })
            .collect();
            serde_json::to_writer(
                &mut *out,
                &json!({"type": "stream", "label": label, "dialect": result.dialect, "notes": result.notes.iter().map(|n| printable(n)).collect::<Vec<_>>(),
                "events": result.events, "ending": result.ending,
                "choices": choices, "usage": result.answer.usage,
                "diagnostics": stream_diags.iter().map(|d| diag_json(d)).collect::<Vec<_>>(),
                "omitted": result.omitted,
                "counts": {"errors": result.counts.0, "warnings": result.counts.1, "infos": result.counts.2},
                "timing": timing.as_ref().map(|t| json!({"first_event_ms": t.first_ms,
                    "first_content_ms": t.first_content_ms, "total_ms": t.total_ms,
                    "largest_gaps": t.gaps.iter().map(|g| json!({"ms": g.0, "before_event": g.1})).collect::<Vec<_>>(),
                    "sparkline": t.sparkline}))}),
            )?;
            writeln!(out)?;
        } else {
            let mut t = Table::new();
            t.load_style(presets::UTF8_FULL_CONDENSED);
            t.set_content_arrangement(ContentArrangement::Dynamic);
            if self.color {
                // Styled even through a pipe (`--color always | less -R`).
                t.enforce_styling();
            } else {
                t.force_no_tty();
            }
            let second = if self.binary { "headers" } else { "line" };
            t.set_header([
                "#", second, "offset", "time", "event", "kind", "adds", "findings",
            ]);
            for r in rows {
                t.add_row(r.clone());
            }
            if skipped > 0 {
                t.add_row(vec![
                    Cell::new("…"),
                    Cell::new(""),
                    Cell::new(""),
                    Cell::new(""),
                    Cell::new(""),
                    Cell::new(""),
                    Cell::new(format!("{skipped} rows not shown")),
                    Cell::new(""),
                ]);
            }
            for r in tail {
                t.add_row(r.clone());
            }
            writeln!(out, "{}", printable(label))?;
            for n in &result.notes {
                writeln!(out, "note: {}", printable(n))?;
            }
            writeln!(out, "{t}")?;
            if skipped > 0 {
                writeln!(
                out,
                "note: {skipped} rows not shown: the table keeps the first {HEAD_ROWS} and the last {TAIL_ROWS} of a stream; --format jsonl prints every event"
            )?;
            }
            for d in &stream_diags {
                let severity = d.severity.to_string();
                let severity = if self.color {
                    use owo_colors::OwoColorize as _;
                    match d.severity {
                        Severity::Error => severity.red().bold().to_string(),
                        Severity::Warning => severity.yellow().bold().to_string(),
                        Severity::Info => severity.cyan().to_string(),
                    }
                } else {
                    severity
                };
                // A binary body has no lines: its byte.
                let at = match crate::report::binary_position(result, d) {
                    Some(at) => at,
                    None => format!("line {}", d.location.line),
                };
                writeln!(out, "{severity} {}: {} ({at})", d.rule, d.message)?;
            }
            for (rule, n) in &result.omitted {
                writeln!(out, "… and {n} more {rule} finding(s) (the per-rule limit)")?;
            }
            // In the stream's own terms (Gemini's candidate, thoughts,
            // finishReason).
            let terms = &crate::dialect::words::of(result.dialect).terms;
            for c in result.answer.choices.values() {
                // What the stream sent instead of such an answer (a
                // blocked prompt).
                if let Some(what) = &c.stands_for {
                    writeln!(out, "\n{}", printable(what))?;
                    continue;
                }
                writeln!(out, "\n{} {}:", terms.choice, c.index)?;
                if !c.reasoning.is_empty() {
                    writeln!(
                        out,
                        "  {}: {}{}",
                        terms.reasoning,
                        printable_text(&c.reasoning.kept),
                        not_kept(&c.reasoning)
                    )?;
                }
                writeln!(
                    out,
                    "  text: {}{}",
                    printable_text(&c.text.kept),
                    not_kept(&c.text)
                )?;
                if let Some(r) = &c.refusal {
                    writeln!(out, "  refusal: {}{}", printable_text(&r.kept), not_kept(r))?;
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
                        printable(tc.name.as_deref().unwrap_or("?")),
                        printable(tc.id.as_deref().unwrap_or("none")),
                        printable_text(&args).replace('\n', "\n    ")
                    )?;
                }
                writeln!(
                    out,
                    "  {}: {}",
                    terms.finish,
                    c.finish_reason.as_deref().unwrap_or("(none)")
                )?;
            }
            if let Some(t) = &timing {
                let gaps: Vec<String> = t
                    .gaps
                    .iter()
                    .map(|g| format!("{:.0} ms before event {}", g.0, g.1))
                    .collect();
                writeln!(
                out,
                "\ntiming: first event {:.0} ms, first content {}, last event {:.0} ms; largest gaps: {}",
                t.first_ms,
                t.first_content_ms.map_or("—".to_string(), |v| format!("{v:.0} ms")),
                t.total_ms,
                if gaps.is_empty() { "none".to_string() } else { gaps.join(", ") }
            )?;
                writeln!(out, "arrivals: |{}| 0 → {:.0} ms", t.sparkline, t.total_ms)?;
            }
            writeln!(out, "\n{}", summary_line(result))?;
        }
        Ok(())
    }
}

/// What a text shown in full leaves out: ` [… 104857 more bytes not kept:
/// sselint keeps the first 1 MiB of each text]`, or nothing.
fn not_kept(t: &crate::model::assembly::Text) -> String {
    if t.dropped == 0 {
        return String::new();
    }
    format!(
        " [… {} more bytes not kept: sselint keeps the first {} MiB of each text]",
        t.dropped,
        crate::model::assembly::MAX_TEXT_BYTES >> 20
    )
}
