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

/// `-` is shown as `<stdin>`.
pub fn display_path(p: &str) -> String {
    if p == "-" {
        "<stdin>".to_string()
    } else {
        p.to_string()
    }
}
