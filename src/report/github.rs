//! `--format github`: GitHub Actions workflow commands, one per finding
//! (`::error`, `::warning`, `::notice` for info), an `::error` per input
//! that could not be read, then a summary line.
//! Escaping follows GitHub's workflow-command rules: in the message `%`, CR
//! and LF become `%25`, `%0D`, `%0A`; in property values also `:` and `,`
//! become `%3A` and `%2C`. GitHub shows only some annotations per step; the
//! summary line and SARIF carry the rest.

use super::{Render, Run};
use crate::lint::Severity;
use crate::pipeline::FileResult;
use std::io::{self, Write};

/// The GitHub renderer.
pub struct Github {
    /// Also annotate info findings (`::notice`); GitHub caps annotations per
    /// step, so infos are left out by default.
    pub verbose: bool,
}

/// Escapes a workflow command's message.
pub fn escape_data(s: &str) -> String {
    let s = s
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A");
    // Other control characters (ESC…) must not reach the runner's log.
    crate::lint::printable(&s)
}

/// Escapes a workflow command's property value.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

impl Render for Github {
    fn render(&self, run: &Run, out: &mut dyn Write) -> io::Result<()> {
        for f in &run.files {
            self.file(f, out)?;
        }
        self.total(&super::Totals::of(run), out)
    }
}

impl super::Streaming for Github {
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

impl Github {
    /// Writes one input's error, or its streams' findings.
    fn file(&self, f: &FileResult, out: &mut dyn Write) -> io::Result<()> {
        if let Some(e) = &f.error {
            writeln!(
                out,
                "::error file={},title={}::{}",
                escape_property(&super::display_path(&f.path)),
                escape_property("sselint: input error"),
                escape_data(e)
            )?;
        }
        for s in &f.streams {
            let body_relative = s.origin.file_start.is_none();
            for d in &s.diagnostics {
                if d.severity == Severity::Info && !self.verbose {
                    continue;
                }
                // A finding the baseline covers is a notice, not a
                // failure annotation.
                let cmd = match (d.suppressed, d.severity) {
                    (true, _) | (_, Severity::Info) => "notice",
                    (_, Severity::Error) => "error",
                    (_, Severity::Warning) => "warning",
                };
                let l = &d.location;
                // A binary body has no line to mark: the annotation is the
                // file's, its byte and frame leading the message.
                let (line, col, prefix) = if let Some(at) = super::binary_position(s, d) {
                    (None, None, format!("{at}: "))
                } else if body_relative {
                    let prefix = format!("{}: ", super::sarif::body_position(s, d));
                    match super::sarif::file_region(s, d) {
                        Some((p, _)) => (Some(p.line), Some(p.column), prefix),
                        None => (Some(1), None, prefix),
                    }
                } else {
                    (Some(l.line.max(1)), Some(l.column.max(1)), String::new())
                };
                let line = line.map(|n| format!(",line={n}")).unwrap_or_default();
                let col = col.map(|c| format!(",col={c}")).unwrap_or_default();
                let suppressed = if d.suppressed { " (in baseline)" } else { "" };
                writeln!(
                    out,
                    "::{cmd} file={}{line}{col},title={}::{}",
                    escape_property(&super::display_path(&f.path)),
                    escape_property(&format!("{} ({}){suppressed}", d.rule, d.code)),
                    escape_data(&format!("{prefix}{}", d.message))
                )?;
            }
        }
        Ok(())
    }

    /// Writes the closing line.
    fn total(&self, totals: &super::Totals, out: &mut dyn Write) -> io::Result<()> {
        let (e, w, i) = totals.counted();
        // As the human report's closing line: an input that could not be
        // read is counted, so "0 error(s)" never stands alone beside exit 2.
        let unread = totals.unread;
        writeln!(
            out,
            "sselint: {e} error(s), {w} warning(s), {i} info(s){}{}",
            if unread > 0 {
                format!(" ({unread} could not be read)")
            } else {
                String::new()
            },
            if totals.suppressed > 0 {
                format!(
                    ", and {} more suppressed by the baseline (not counted)",
                    totals.suppressed
                )
            } else {
                String::new()
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_and_properties_are_escaped() {
        assert_eq!(escape_data("100% done\r\nnext"), "100%25 done%0D%0Anext");
        assert_eq!(escape_property("a:b,c%"), "a%3Ab%2Cc%25");
    }
}
