//! Renderers: findings are plain data (`pipeline::FileResult`), and each
//! output format is one file behind the [`Render`] trait. Renderers never
//! decide a verdict; they only show what the checks found.

pub mod diff;
pub mod github;
pub mod html;
pub mod human;
pub mod inspect;
pub mod json;
pub mod jsonl;
pub mod junit;
pub mod probe;
pub mod rule;
pub mod sarif;

use crate::lint::Severity;

/// Who wrote a JSON report: `"tool": {"name": "sselint", "version":
/// "0.1.0"}` in `check`'s, `diff`'s and `probe`'s JSON alike.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct Tool {
    /// Always `sselint`.
    pub name: &'static str,
    /// The crate version (`CARGO_PKG_VERSION`).
    pub version: &'static str,
}

/// This binary, as [`Tool`].
pub const TOOL: Tool = Tool {
    name: "sselint",
    version: env!("CARGO_PKG_VERSION"),
};
use crate::pipeline::{FileResult, StreamResult};
use std::io::{self, Write};

/// A whole run: the inputs' results and the settings that shaped them.
#[derive(Debug)]
pub struct Run {
    /// Per input, in the order given (directories expanded and sorted).
    pub files: Vec<FileResult>,
    /// The profile's name.
    pub profile: String,
    /// Findings the baseline suppressed.
    pub suppressed: u64,
    /// The `--fail-on` threshold (`None` = never).
    pub fail_on: Option<Severity>,
}

/// (errors, warnings, infos) of one stream that the baseline covers: its
/// suppressed findings, and those past the per-rule limit of a rule whose
/// findings the baseline covers.
pub fn suppressed_counts(s: &StreamResult) -> (u64, u64, u64) {
    let mut t = (0, 0, 0);
    let mut add = |sev: Severity, n: u64| match sev {
        Severity::Error => t.0 += n,
        Severity::Warning => t.1 += n,
        Severity::Info => t.2 += n,
    };
    for d in s.diagnostics.iter().filter(|d| d.suppressed) {
        add(d.severity, 1);
    }
    for (rule, n) in &s.omitted {
        if s.omitted_suppressed.contains(rule) {
            if let Some(sev) = s.omitted_worst.get(rule) {
                add(*sev, *n);
            }
        }
    }
    t
}

/// The worst severity of one stream's findings that the baseline does not
/// cover, those past the per-rule limit included.
pub fn stream_worst(s: &StreamResult) -> Option<Severity> {
    s.diagnostics
        .iter()
        .filter(|d| !d.suppressed)
        .map(|d| d.severity)
        .chain(
            s.omitted_worst
                .iter()
                .filter(|(r, _)| !s.omitted_suppressed.contains(r))
                .map(|(_, sev)| *sev),
        )
        .max()
}

impl Run {
    /// (errors, warnings, infos) over every stream, omitted findings
    /// included.
    pub fn totals(&self) -> (u64, u64, u64) {
        let mut t = (0, 0, 0);
        for s in self.files.iter().flat_map(|f| &f.streams) {
            t.0 += s.counts.0;
            t.1 += s.counts.1;
            t.2 += s.counts.2;
        }
        t
    }

    /// (errors, warnings, infos) the baseline covers: part of
    /// [`Run::totals`], but they do not count toward `--fail-on`.
    pub fn suppressed_totals(&self) -> (u64, u64, u64) {
        let mut t = (0, 0, 0);
        for s in self.files.iter().flat_map(|f| &f.streams) {
            let n = suppressed_counts(s);
            t = (t.0 + n.0, t.1 + n.1, t.2 + n.2);
        }
        t
    }

    /// (errors, warnings, infos) the baseline does not cover: what the
    /// reports' closing lines count.
    pub fn counted_totals(&self) -> (u64, u64, u64) {
        let (a, b) = (self.totals(), self.suppressed_totals());
        (
            a.0.saturating_sub(b.0),
            a.1.saturating_sub(b.1),
            a.2.saturating_sub(b.2),
        )
    }

    /// The worst severity among findings the baseline does not cover.
    pub fn worst(&self) -> Option<Severity> {
        self.files
            .iter()
            .flat_map(|f| &f.streams)
            .filter_map(stream_worst)
            .max()
    }

    /// Whether any input could not be read.
    pub fn had_input_errors(&self) -> bool {
        self.files.iter().any(|f| f.error.is_some())
    }
}

/// What the closing lines of the reports count, summed as the results
/// come: a few numbers whatever the number of inputs and streams, so a
/// report written as it goes ([`Streaming`]) keeps no result.
#[derive(Debug, Default, Clone)]
pub struct Totals {
    /// Inputs (each counted once, however many parts it came in).
    pub inputs: u64,
    /// Inputs that could not be read.
    pub unread: u64,
    /// Streams.
    pub streams: u64,
    /// (errors, warnings, infos) over every stream, omitted ones included
    /// ([`Run::totals`]).
    pub counts: (u64, u64, u64),
    /// The part of `counts` the baseline covers ([`Run::suppressed_totals`]).
    pub held: (u64, u64, u64),
    /// Streams per dialect name (`unknown format` for none).
    pub by_dialect: std::collections::BTreeMap<&'static str, u64>,
    /// Info findings kept in the streams (not past a per-rule limit).
    pub kept_infos: u64,
    /// The worst severity the baseline does not cover ([`Run::worst`]).
    pub worst: Option<Severity>,
    /// Findings the baseline suppressed ([`Run::suppressed`]).
    pub suppressed: u64,
}

impl Totals {
    /// Counts one input, or part of one: `new` when it is the input's
    /// first part (an input whose streams come in several parts is one
    /// input).
    pub fn add(&mut self, file: &FileResult, new: bool) {
        if new {
            self.inputs += 1;
            if file.error.is_some() {
                self.unread += 1;
            }
        }
        for s in &file.streams {
            self.streams += 1;
            self.counts.0 += s.counts.0;
            self.counts.1 += s.counts.1;
            self.counts.2 += s.counts.2;
            let h = suppressed_counts(s);
            self.held = (self.held.0 + h.0, self.held.1 + h.1, self.held.2 + h.2);
            *self
                .by_dialect
                .entry(s.dialect.map_or("unknown format", |d| d.name()))
                .or_default() += 1;
            self.kept_infos += s
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Info)
                .count() as u64;
            self.worst = self.worst.max(stream_worst(s));
        }
    }

    /// The totals of a whole run.
    pub fn of(run: &Run) -> Self {
        let mut t = Totals::default();
        for f in &run.files {
            t.add(f, true);
        }
        t.suppressed = run.suppressed;
        t
    }

    /// (errors, warnings, infos) the baseline does not cover
    /// ([`Run::counted_totals`]).
    pub fn counted(&self) -> (u64, u64, u64) {
        (
            self.counts.0.saturating_sub(self.held.0),
            self.counts.1.saturating_sub(self.held.1),
            self.counts.2.saturating_sub(self.held.2),
        )
    }
}

/// A format written as the results come: each input (or each part of
/// one: a socket's responses come one by one) as it is linted, then the
/// closing lines from [`Totals`]. Human, GitHub, JSON Lines, JSON, SARIF
/// and JUnit reports are (the JSON and JUnit documents' heads count the
/// whole run: their middles wait in a scratch file, [`crate::output::Scratch`]);
/// the HTML page is written by [`Render`] from every result.
pub trait Streaming {
    /// Writes `file`'s part: its error, or the streams it carries now.
    /// `first`: the input's first part (the parts of one input come one
    /// after another); `several`: the input has (or will have) more than
    /// one stream.
    ///
    /// # Errors
    /// Only the writer's.
    fn part(
        &mut self,
        file: &FileResult,
        first: bool,
        several: bool,
        out: &mut dyn Write,
    ) -> io::Result<()>;

    /// Writes the closing lines.
    ///
    /// # Errors
    /// Only the writer's.
    fn end(&mut self, totals: &Totals, out: &mut dyn Write) -> io::Result<()>;
}

/// Writes a whole run through a [`Streaming`] format: what its [`Render`]
/// gives.
///
/// # Errors
/// Only the writer's.
pub fn render_streaming(
    format: &mut dyn Streaming,
    run: &Run,
    out: &mut dyn Write,
) -> io::Result<()> {
    for f in &run.files {
        format.part(f, true, f.streams.len() > 1, out)?;
    }
    format.end(&Totals::of(run), out)
}

/// `value` as `serde_json::to_writer_pretty` writes it inside a document
/// at `depth` (each level two spaces): its lines after the first indented
/// by `2 * depth` spaces, as they are in the whole document. A JSON text
/// holds no raw newline in its strings, so every newline is the
/// formatter's.
///
/// # Errors
/// Only serialization's (a map with keys that are not strings).
pub(crate) fn pretty_at(value: &impl serde::Serialize, depth: usize) -> io::Result<String> {
    let text = serde_json::to_string_pretty(value)?;
    Ok(text.replace('\n', &format!("\n{}", "  ".repeat(depth))))
}

/// One output format.
pub trait Render {
    /// Writes the run's report.
    ///
    /// # Errors
    /// Only the writer's.
    fn render(&self, run: &Run, out: &mut dyn Write) -> io::Result<()>;
}

/// How a stream is named in a report: the file, plus the stream label when
/// a capture holds several (HAR entries; a socket's responses, whose
/// labels are the file's own label plus ` · RESPONSE`, named once).
pub fn stream_name(file: &FileResult, label: &str) -> String {
    let own = if file.path == "-" {
        "<stdin>"
    } else {
        file.path.as_str()
    };
    if label == file.path || label == own {
        display_path(&file.path)
    } else if let Some(rest) = label.strip_prefix(own).filter(|r| r.starts_with(" · ")) {
        format!(
            "{}{}",
            display_path(&file.path),
            crate::lint::printable(rest)
        )
    } else {
        format!(
            "{} {}",
            display_path(&file.path),
            crate::lint::printable(label)
        )
    }
}

/// Where a finding of a binary stream (AWS event-stream frames, which
/// have no lines) is: `(byte, " (frame 3)")`, the byte offset (the file's
/// or the body's, as its `positions`) and the message it is in when it is
/// in one; `None` for a stream of a text transport, whose findings have a
/// line and a column.
pub fn binary_at(s: &StreamResult, d: &crate::lint::Diagnostic) -> Option<(u64, String)> {
    s.transport.is_binary().then(|| {
        let frame = d
            .event_index
            .map(|i| format!(" ({} {i})", s.transport.message()))
            .unwrap_or_default();
        (d.location.byte_offset, frame)
    })
}

/// [`binary_at`] as words: `byte 1150 (frame 3)`.
pub fn binary_position(s: &StreamResult, d: &crate::lint::Diagnostic) -> Option<String> {
    binary_at(s, d).map(|(byte, frame)| format!("byte {byte}{frame}"))
}

/// `-` is shown as `<stdin>`.
pub fn display_path(p: &str) -> String {
    if p == "-" {
        "<stdin>".to_string()
    } else {
        p.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::{self, FileResult};

    /// A message log of `turns` short Responses turns on one socket: each
    /// response lacks fields the stream's events should carry, so each
    /// has findings (a SARIF result to write).
    fn socket_log(turns: usize) -> String {
        let line = |sent: bool, data: serde_json::Value| {
            let dir = if sent { "sent" } else { "received" };
            let rec = serde_json::json!({"direction": dir, "opcode": 1, "data": data.to_string()});
            format!("{rec}\n")
        };
        let mut out = String::new();
        for t in 0..turns {
            let id = format!("resp_{t}");
            out.push_str(&line(
                true,
                serde_json::json!({"type": "response.create", "model": "m", "input": "hi"}),
            ));
            let resp = |status: &str| serde_json::json!({"id": id, "object": "response", "status": status, "output": []});
            for (i, e) in [
                serde_json::json!({"type": "response.created", "response": resp("in_progress")}),
                serde_json::json!({"type": "response.output_text.delta", "item_id": "m", "output_index": 0, "content_index": 0, "delta": "Hi."}),
                serde_json::json!({"type": "response.completed", "response": resp("completed")}),
            ]
            .into_iter()
            .enumerate()
            {
                let mut e = e;
                e["sequence_number"] = i.into();
                out.push_str(&line(false, e));
            }
        }
        out
    }

    /// Lints a socket of `turns` responses into `format` as `check` does
    /// (each response's result handed on as it ends, then dropped), and
    /// gives the number of results, the most results handed on whose
    /// report was not written yet (`written`: the bytes the report has
    /// written, to its output or its scratch file), and the report.
    fn stream_socket<F: Streaming + 'static>(
        mut format: F,
        turns: usize,
        written: &dyn Fn(&F, &[u8]) -> u64,
    ) -> (usize, usize, String) {
        let dir = std::env::temp_dir().join(format!(
            "sselint-report-test-{}-{turns}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("socket-{}.jsonl", std::any::type_name::<F>().len()));
        std::fs::write(&path, socket_log(turns)).unwrap();
        let settings = crate::lint::Settings::default();
        let mut out = Vec::new();
        let (mut results, mut unwritten, mut most) = (0usize, 0usize, 0usize);
        let mut totals = Totals::default();
        let mut first = true;
        pipeline::lint_path_each(
            &path.to_string_lossy(),
            &crate::capture::Options::default(),
            &settings,
            &mut |head: &FileResult, s| {
                let before = written(&format, &out);
                let mut part = FileResult {
                    path: head.path.clone(),
                    input_format: head.input_format,
                    detail: head.detail,
                    error: head.error.clone(),
                    rules_run: head.rules_run.clone(),
                    streams: vec![s],
                };
                totals.add(&part, first);
                format.part(&part, first, true, &mut out).unwrap();
                first = false;
                results += 1;
                unwritten += 1;
                if written(&format, &out) > before {
                    unwritten = 0;
                }
                most = most.max(unwritten);
                part.streams.clear();
            },
        );
        format.end(&totals, &mut out).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        (results, most, String::from_utf8(out).unwrap())
    }

    #[test]
    fn the_json_sarif_and_junit_reports_write_each_response_of_a_socket_as_it_ends() {
        let turns = 300;
        let (n, most, json) =
            stream_socket(json::JsonParts::new("openai".into()), turns, &|f, _| {
                f.written()
            });
        assert_eq!(n, turns);
        assert_eq!(most, 0, "JSON: {most} results handed on and not written");
        let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(
            doc["files"][0]["streams"].as_array().map(Vec::len),
            Some(turns)
        );
        let (n, most, sarif) = stream_socket(sarif::SarifParts::default(), turns, &|_, out| {
            out.len() as u64
        });
        assert_eq!(n, turns);
        assert_eq!(most, 0, "SARIF: {most} results handed on and not written");
        let log: serde_json::Value = serde_json::from_str(&sarif).unwrap();
        assert!(log["runs"][0]["results"].as_array().map_or(0, Vec::len) >= turns);
        let (n, most, junit) =
            stream_socket(junit::JunitParts::new(None), turns, &|f, _| f.written());
        assert_eq!(n, turns);
        assert_eq!(most, 0, "JUnit: {most} results handed on and not written");
        assert_eq!(junit.matches("<testsuite ").count(), turns);
    }
}
