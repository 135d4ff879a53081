//! The human report: each finding rustc-style (annotate-snippets) with the
//! rule name and code, the location, the capture's line with the span
//! underlined, a help line and a note on where the severity came from;
//! then one summary line per stream and the totals.

use super::{stream_name, Render, Run};
use crate::lint::{catalogue, Diagnostic, Severity, SeveritySource};
use crate::model::shorten;
use crate::pipeline::{FileResult, StreamResult};
use annotate_snippets::renderer::DecorStyle;
use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};
use owo_colors::OwoColorize;
use std::io::{self, Write};

/// The human renderer.
pub struct Human {
    /// Show info findings too (`-v`).
    pub verbose: bool,
    /// Colour the output.
    pub color: bool,
    /// Only the summary lines (`-q`).
    pub quiet: bool,
    /// The inputs that could not be read are said elsewhere: `check`
    /// prints them on stderr when this report goes to stdout, so they are
    /// not said twice on a terminal. The closing line still counts them.
    pub errors_elsewhere: bool,
}

/// The note saying where a finding's severity came from.
pub fn severity_note(d: &Diagnostic) -> String {
    let default = catalogue()
        .get(d.rule)
        .map(|r| r.severity)
        .unwrap_or(d.severity);
    match &d.severity_source {
        SeveritySource::Default => format!("`{}` is {} by default", d.rule, article(d.severity)),
        SeveritySource::Case => format!(
            "`{}` is {} by default and {} in this case",
            d.rule,
            article(default),
            article(d.severity)
        ),
        SeveritySource::Profile(p) => format!(
            "`{}` is {} under the `{p}` profile",
            d.rule,
            article(d.severity)
        ),
        SeveritySource::Config(path) => format!("`{}` is set to {} in {path}", d.rule, d.severity),
        SeveritySource::CommandLine => {
            format!("`{}` is set to {} on the command line", d.rule, d.severity)
        }
    }
}

fn article(s: Severity) -> &'static str {
    match s {
        Severity::Error => "an error",
        Severity::Warning => "a warning",
        Severity::Info => "info",
    }
}

/// Renders one diagnostic as a rustc-style block. `binary`: the
/// finding's byte and frame in a binary body ([`super::binary_at`]),
/// which has no lines: it is shown at `FILE:@BYTE (frame N)`, its
/// payload's excerpt without a line number.
pub fn render_diagnostic(
    d: &Diagnostic,
    origin: &str,
    binary: Option<(u64, String)>,
    renderer: &Renderer,
) -> String {
    let level = match d.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
        Severity::Info => Level::INFO,
    };
    let title = if d.suppressed {
        format!("{} [{}] (in the baseline)", d.message, d.rule)
    } else {
        format!("{} [{}]", d.message, d.rule)
    };
    let mut group = Group::with_title(level.primary_title(title).id(d.code));
    let l = &d.location;
    let whole_line = binary.is_none() && l.source.as_ref().is_some_and(|s| !s.cut.0);
    if let Some((byte, frame)) = &binary {
        group = group.element(Origin::path(format!("{origin}:@{byte}{frame}")));
    } else if !whole_line {
        group = group.element(
            Origin::path(origin.to_string())
                .line(l.line.max(1) as usize)
                .char_column(l.column.max(1) as usize),
        );
    }
    if let Some(src) = &l.source {
        let (s, e) = src.span;
        let e = if e == s {
            (s + 1).min(src.text.len()).max(s)
        } else {
            e
        };
        // On whole characters of the text shown: a span one byte wide can
        // end inside the `�` an invalid byte was shown as.
        let text = &src.text;
        let s = text.floor_char_boundary(s);
        let e = text.ceil_char_boundary(e.clamp(s, text.len()));
        let label = d
            .pointer
            .as_deref()
            .filter(|p| !p.is_empty())
            .map(|p| format!("at {p}"));
        let mut ann = AnnotationKind::Primary.span(s..e);
        if let Some(lbl) = label {
            ann = ann.label(lbl);
        }
        group = group.element(
            Snippet::source(src.text.clone())
                .line_start(l.line.max(1) as usize)
                .line_numbering(binary.is_none())
                .path(whole_line.then(|| origin.to_string()))
                .annotation(ann),
        );
    }
    if let Some(h) = &d.help {
        group = group.element(Level::HELP.message(h.clone()));
    }
    group = group.element(Level::NOTE.message(severity_note(d)));
    let out = renderer.render(&[group]);
    if binary.is_none() {
        return out;
    }
    // The excerpt has no path of its own (its place is the origin's
    // byte), and with no line number the renderer marks it as another
    // file's (`:::`): that mark is dropped.
    out.lines()
        .filter(|l| !matches!(strip_styles(l).trim(), ":::" | "⸬"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `line` without its ANSI colour sequences.
fn strip_styles(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // ESC [ … final byte (a letter).
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Where a stream's diagnostics point: the file, or the HAR entry's body.
fn origin_label(f: &FileResult, s: &StreamResult) -> String {
    match s.origin.har_entry {
        Some(i) => format!("{} › entries[{i}] body", super::display_path(&f.path)),
        None if s.origin.file_start.is_none()
            && f.input_format != Some(crate::capture::InputFormat::Sse) =>
        {
            format!("{} (body)", super::display_path(&f.path))
        }
        None => super::display_path(&f.path),
    }
}

/// Most tool calls the summary line names; the rest are counted
/// (`… and 1021 more`), so a stream with a thousand calls keeps a line.
pub const SHOWN_TOOL_CALLS: usize = 3;

/// The one-line summary of a stream's answer.
pub fn summary_line(s: &StreamResult) -> String {
    let mut parts = Vec::new();
    let many = s.answer.choices.len() > 1;
    for c in s.answer.choices.values() {
        let prefix = if many {
            format!("[{}] ", c.index)
        } else {
            String::new()
        };
        // Masked before it is cut: the text may quote a key.
        let masked = |t: &str| shorten(&crate::capture::redact_keys(t), 60);
        let text = masked(&c.text.kept);
        let mut p = match (&s.answer.empty, c.index) {
            (Some(why), 0) => format!("{prefix}answer: (empty: {})", crate::lint::printable(why)),
            _ => format!("{prefix}answer: {text:?}"),
        };
        if !c.transcript.is_empty() {
            p.push_str(&format!(" | transcript: {:?}", masked(&c.transcript.kept)));
        }
        if let Some(r) = &c.refusal {
            p.push_str(&format!(" | refusal: {:?}", masked(&r.kept)));
        }
        if !c.tool_calls.is_empty() {
            let mut names: Vec<String> = c
                .tool_calls
                .values()
                .take(SHOWN_TOOL_CALLS)
                .map(|t| {
                    format!(
                        "{}({})",
                        crate::lint::printable(t.name.as_deref().unwrap_or("?")),
                        shorten(&crate::lint::printable(&t.arguments), 40)
                    )
                })
                .collect();
            let more = c.tool_calls.len().saturating_sub(SHOWN_TOOL_CALLS);
            if more > 0 {
                names.push(format!("… and {more} more"));
            }
            p.push_str(&format!(" | tool calls: {}", names.join(", ")));
        }
        // The server's own string: escaped as the answer text is.
        p.push_str(&format!(
            " | finish: {}",
            c.finish_reason
                .as_deref()
                .map_or("(none)".to_string(), crate::lint::printable)
        ));
        parts.push(p);
    }
    if parts.is_empty() {
        parts.push(match &s.answer.empty {
            Some(why) => format!("answer: (none: {})", crate::lint::printable(why)),
            None => "answer: (none)".to_string(),
        });
    }
    let line = s
        .dialect
        .zip(s.answer.usage.as_ref())
        .and_then(|(d, u)| d.api().usage_line(u));
    let usage = match &s.answer.usage {
        _ if line.is_some() => line.unwrap_or_default(),
        Some(u) => {
            let n = |k: &str| {
                u.get(k)
                    .and_then(serde_json::Value::as_u64)
                    .map_or("?".to_string(), |v| v.to_string())
            };
            // Chat's names, or Responses' and Messages' (which has no
            // total).
            let first = |a: &str, b: &str| if u.get(a).is_some() { n(a) } else { n(b) };
            let (input, output) = (
                first("prompt_tokens", "input_tokens"),
                first("completion_tokens", "output_tokens"),
            );
            if s.dialect.is_some_and(|d| !d.api().usage_total()) {
                format!("usage: {input} in, {output} out")
            } else {
                format!("usage: {input}+{output}={}", n("total_tokens"))
            }
        }
        None => "usage: (none)".to_string(),
    };
    parts.push(usage);
    parts.push(format!("ending: {}", s.ending.name()));
    // The default dialect (Chat) goes unnamed; the others lead the line.
    match s.dialect {
        Some(d) if d == crate::dialect::DEFAULT => {}
        Some(d) => parts.insert(0, format!("[{d}]")),
        None => parts.insert(0, "[unknown format]".to_string()),
    }
    parts.join(" | ")
}

/// The stream's info findings in one line, by rule (`infos: unknown-field
/// ×2, vendor-extension ×3`), so conformance findings are seen without
/// `-v`; `None` when there are none.
fn info_line(s: &StreamResult) -> Option<String> {
    let mut by_rule: std::collections::BTreeMap<&str, u64> = std::collections::BTreeMap::new();
    for d in s
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Info)
    {
        *by_rule.entry(d.rule).or_insert(0) += 1;
    }
    if by_rule.is_empty() {
        return None;
    }
    let parts: Vec<String> = by_rule
        .iter()
        .map(|(r, n)| {
            if *n == 1 {
                r.to_string()
            } else {
                format!("{r} ×{n}")
            }
        })
        .collect();
    Some(format!("infos: {} (-v shows them)", parts.join(", ")))
}

/// "1 error, 2 infos": the nonzero counts of (errors, warnings, infos), or
/// `None` when all are zero.
fn held_phrase((e, w, i): (u64, u64, u64)) -> Option<String> {
    let parts: Vec<String> = [
        (e, "error", "errors"),
        (w, "warning", "warnings"),
        (i, "info", "infos"),
    ]
    .iter()
    .filter(|(n, _, _)| *n > 0)
    .map(|(n, one, many)| plural(*n, one, many))
    .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl Render for Human {
    fn render(&self, run: &Run, out: &mut dyn Write) -> io::Result<()> {
        for f in &run.files {
            self.file(f, out)?;
        }
        self.total(&super::Totals::of(run), out)
    }
}

impl super::Streaming for Human {
    fn part(
        &mut self,
        file: &FileResult,
        _first: bool,
        _several: bool,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        self.file(file, out)
    }

    fn end(&mut self, totals: &super::Totals, out: &mut dyn Write) -> io::Result<()> {
        self.total(totals, out)
    }
}

impl Human {
    /// Writes one input's error, or the findings and summary of each
    /// stream it carries.
    fn file(&self, f: &FileResult, out: &mut dyn Write) -> io::Result<()> {
        let renderer = if self.color {
            Renderer::styled().decor_style(DecorStyle::Unicode)
        } else {
            Renderer::plain()
        };
        if let Some(e) = f.error.as_ref().filter(|_| !self.errors_elsewhere) {
            let line = format!(
                "error: {}: {}",
                crate::report::display_path(&f.path),
                // Its lines stay lines.
                crate::lint::printable_text(e)
            );
            if self.color {
                writeln!(out, "{}\n", line.red().bold())?;
            } else {
                writeln!(out, "{line}\n")?;
            }
        }
        for s in &f.streams {
            let origin = origin_label(f, s);
            if !self.quiet {
                for d in &s.diagnostics {
                    if d.severity == Severity::Info && !self.verbose {
                        continue;
                    }
                    writeln!(
                        out,
                        "{}\n",
                        render_diagnostic(d, &origin, super::binary_at(s, d), &renderer)
                    )?;
                }
                for (rule, n) in &s.omitted {
                    writeln!(out, "… and {} more `{rule}` finding(s) in this stream (limit per rule reached)\n", n)?;
                }
            }
            let name = stream_name(f, &s.label);
            // As the closing line: what the baseline covers is named
            // apart, not counted.
            let held = super::suppressed_counts(s);
            let mut counts = format!(
                "{}, {}, {}",
                plural(s.counts.0.saturating_sub(held.0), "error", "errors"),
                plural(s.counts.1.saturating_sub(held.1), "warning", "warnings"),
                plural(s.counts.2.saturating_sub(held.2), "info", "infos")
            );
            if let Some(held) = held_phrase(held) {
                counts.push_str(&format!("; {held} in the baseline"));
            }
            if self.color {
                writeln!(out, "{} {}", format!("{name}:").bold(), summary_line(s))?;
            } else {
                writeln!(out, "{name}: {}", summary_line(s))?;
            }
            writeln!(out, "  {counts}")?;
            if !self.verbose {
                if let Some(line) = info_line(s) {
                    writeln!(out, "  {line}")?;
                }
            }
            if let Some(g) = s
                .provider
                .as_ref()
                // Against the profile the stream was read under: a
                // Gemini stream under the default is read as gemini-api.
                .filter(|g| g.profile != s.profile && !g.also.iter().any(|a| a == s.profile))
            {
                let mut names = vec![g.provider.clone()];
                let mut flags = vec![format!("`--profile {}`", g.profile)];
                for a in &g.also {
                    if let Some(p) = crate::lint::profile(a) {
                        names.push(p.provider.clone());
                        flags.push(format!("`--profile {a}`"));
                    }
                }
                writeln!(
                    out,
                    "  looks like {} ({}): {} fits",
                    names.join(" or "),
                    crate::lint::printable(&g.evidence.join(", ")),
                    flags.join(" or ")
                )?;
            }
            for n in &s.notes {
                writeln!(out, "  note: {}", crate::lint::printable(n))?;
            }
            if let Some(e) = &s.read_error {
                writeln!(
                    out,
                    "  note: reading the body stopped early: {}",
                    crate::lint::printable(e)
                )?;
            }
        }
        Ok(())
    }

    /// Writes the closing line.
    fn total(&self, totals: &super::Totals, out: &mut dyn Write) -> io::Result<()> {
        // Findings the baseline covers are not counted: they are named
        // apart, so "1 error" never sits beside exit 0.
        let (e, w, i) = totals.counted();
        let (streams, unread, by_dialect) = (totals.streams, totals.unread, &totals.by_dialect);
        // Streams per dialect, when any is not Chat.
        let dialects = if by_dialect.keys().any(|k| *k != "chat") {
            let parts: Vec<String> = by_dialect.iter().map(|(k, n)| format!("{n} {k}")).collect();
            format!(" ({})", parts.join(", "))
        } else {
            String::new()
        };
        let mut total = format!(
            "Checked {}{dialects} in {}{}: {}, {}, {}",
            plural(streams, "stream", "streams"),
            plural(totals.inputs, "input", "inputs"),
            if unread > 0 {
                format!(" ({unread} could not be read)")
            } else {
                String::new()
            },
            plural(e, "error", "errors"),
            plural(w, "warning", "warnings"),
            plural(i, "info", "infos")
        );
        if totals.suppressed > 0 {
            if let Some(held) = held_phrase(totals.held) {
                total.push_str(&format!("; {held} in the baseline, not counted"));
            }
        }
        if !self.verbose && totals.kept_infos > 0 {
            total.push_str(" (infos hidden; -v shows them)");
        }
        if self.color {
            writeln!(out, "{}", total.bold())
        } else {
            writeln!(out, "{total}")
        }
    }
}
