//! `--format junit`: JUnit XML (the Jenkins/Surefire layout CI systems
//! render), written with quick-junit. One test suite per stream; one test
//! case per rule that ran and found nothing, and one per finding: a
//! failure when it is an error or reaches `--fail-on` (which sets only the
//! exit code) and the baseline does not cover it, a passing case with the
//! finding in `system-out` otherwise. A stream's rules are the shared
//! ones its transport can give (no SSE framing rule for an event stream,
//! no socket rule but for a socket), its dialect's and those of the
//! dialect its messages wrap, and any rule that found something. An input that could not be read is an
//! `<error>` test case named `read`.

use super::{stream_name, Render, Run};
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
use std::io::{self, Write};

/// The JUnit renderer.
pub struct Junit;

/// One input's test suites: a `read` error case when it could not be
/// read, else one suite per stream.
fn suites(
    f: &crate::pipeline::FileResult,
    fail_on: Option<crate::lint::Severity>,
) -> Vec<TestSuite> {
    let mut out = Vec::new();
    if let Some(e) = &f.error {
        let mut suite = TestSuite::new(super::display_path(&f.path));
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
        status.set_message(e.clone());
        let mut tc = TestCase::new("read", status);
        tc.set_classname(super::display_path(&f.path));
        suite.add_test_case(tc);
        out.push(suite);
        return out;
    }
    for s in &f.streams {
        let name = stream_name(f, &s.label);
        let mut suite = TestSuite::new(name.clone());
        // The rules that judge this stream: the shared ones its
        // transport can give, its dialect's and those of the dialect its
        // messages wrap (an Invoke stream's Claude events: Messages'); a
        // stream of no known dialect: the shared ones. A rule that found
        // something is listed whatever its dialect: no finding is left
        // out.
        let wraps = s.dialect.and_then(|d| d.api().wraps());
        let applies = |rule: &str| {
            s.diagnostics.iter().any(|d| d.rule == rule)
                || s.omitted.contains_key(rule)
                || crate::lint::catalogue().get(rule).is_some_and(|r| {
                    (r.dialect.is_none() || r.dialect == s.dialect || r.dialect == wraps)
                        && crate::checks::judges(r, s.transport)
                })
        };
        for rule in f.rules_run.iter().filter(|r| applies(r)) {
            let found: Vec<_> = s.diagnostics.iter().filter(|d| d.rule == *rule).collect();
            let omitted = s.omitted.get(rule).copied().unwrap_or(0);
            if found.is_empty() {
                let mut tc = TestCase::new(*rule, TestCaseStatus::success());
                tc.set_classname(name.clone());
                suite.add_test_case(tc);
                continue;
            }
            for d in found {
                // An error is a failure whatever `--fail-on` says (it
                // sets only the exit code); below error, the threshold
                // decides.
                let fails = !d.suppressed
                    && (d.severity == crate::lint::Severity::Error
                        || fail_on.is_some_and(|t| d.severity >= t));
                // A binary body has no lines: its byte and frame.
                let at = super::binary_position(s, d).unwrap_or_else(|| {
                    format!("line {}, column {}", d.location.line, d.location.column)
                });
                let text = format!(
                    "{}[{}] {} at {at}{}",
                    d.severity,
                    d.code,
                    d.message,
                    if d.suppressed { " (in baseline)" } else { "" }
                );
                let status = if fails {
                    let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    st.set_message(d.message.clone());
                    st.set_type(d.severity.name());
                    st.set_description(text.clone());
                    st
                } else {
                    TestCaseStatus::success()
                };
                let mut tc = TestCase::new(*rule, status);
                tc.set_classname(name.clone());
                if !fails {
                    tc.set_system_out(text);
                }
                suite.add_test_case(tc);
            }
            if omitted > 0 {
                suite.set_system_out(format!(
                    "{omitted} more `{rule}` finding(s) past the per-rule limit"
                ));
            }
        }
        out.push(suite);
    }
    out
}

/// `report` as XML.
fn xml(report: &Report) -> io::Result<String> {
    let mut buf = Vec::new();
    report
        .serialize(&mut buf)
        .map_err(|e| io::Error::other(e.to_string()))?;
    String::from_utf8(buf).map_err(io::Error::other)
}

impl Render for Junit {
    fn render(&self, run: &Run, out: &mut dyn Write) -> io::Result<()> {
        let mut report = Report::new("sselint");
        for f in &run.files {
            report.add_test_suites(suites(f, run.fail_on));
        }
        // Serialize in memory, then write: a closed pipe stays an io error
        // of its own kind.
        out.write_all(xml(&report)?.as_bytes())?;
        writeln!(out)
    }
}

/// `check --format junit` written as the results come: the same XML as
/// [`Junit`] gives from every result, byte for byte. The root element's
/// totals (tests, failures, errors) come before the suites, so each
/// stream's suite is written to a scratch file as it comes and its
/// counts summed; the document is the root with those totals, the scratch
/// file's bytes, and the root's end. Memory holds the counts, no result.
pub struct JunitParts {
    /// The `--fail-on` threshold (a finding at or above it fails).
    pub fail_on: Option<crate::lint::Severity>,
    /// Where the suites wait (`None` until the first).
    scratch: Option<crate::output::Scratch>,
    /// The totals so far: the suites' counts, added as `Report` adds them.
    totals: Report,
}

impl JunitParts {
    /// A report judged by `fail_on`.
    pub fn new(fail_on: Option<crate::lint::Severity>) -> Self {
        JunitParts {
            fail_on,
            scratch: None,
            totals: Report::new("sselint"),
        }
    }

    /// Bytes of suites written so far.
    pub fn written(&self) -> u64 {
        self.scratch.as_ref().map_or(0, crate::output::Scratch::len)
    }
}

/// A report's XML cut around its suites: the text up to the root's start
/// tag's end, the suites, and the rest.
fn cut_root(text: &str) -> (&str, &str, &str) {
    let open = text
        .find("<testsuites")
        .and_then(|i| text[i..].find('>').map(|j| i + j + 1))
        .unwrap_or(0);
    let close = text
        .rfind("\n</testsuites>")
        .unwrap_or(text.len())
        .max(open);
    (&text[..open], &text[open..close], &text[close..])
}

impl super::Streaming for JunitParts {
    fn part(
        &mut self,
        f: &crate::pipeline::FileResult,
        _first: bool,
        _several: bool,
        _out: &mut dyn Write,
    ) -> io::Result<()> {
        for suite in suites(f, self.fail_on) {
            if self.scratch.is_none() {
                self.scratch = Some(crate::output::Scratch::create("junit")?);
            }
            let mut one = Report::new("sselint");
            one.add_test_suite(suite);
            let text = xml(&one)?;
            let (_, middle, _) = cut_root(&text);
            if let Some(w) = self.scratch.as_mut() {
                w.write_all(middle.as_bytes())?;
            }
            // The counts only: the suite itself is written.
            self.totals.tests += one.tests;
            self.totals.failures += one.failures;
            self.totals.errors += one.errors;
            self.totals.skipped += one.skipped;
            if let Some(d) = one.disabled {
                *self.totals.disabled.get_or_insert(0) += d;
            }
        }
        Ok(())
    }

    fn end(&mut self, _totals: &super::Totals, out: &mut dyn Write) -> io::Result<()> {
        let text = xml(&self.totals)?;
        match self.scratch.as_mut() {
            Some(w) => {
                // The root with no suite may be written as an empty
                // element; with suites it has an end tag, as one suite's
                // report shows.
                let mut shell = Report::new("sselint");
                shell.add_test_suite(TestSuite::new(""));
                shell.tests = self.totals.tests;
                shell.failures = self.totals.failures;
                shell.errors = self.totals.errors;
                shell.skipped = self.totals.skipped;
                shell.disabled = self.totals.disabled;
                let shell = xml(&shell)?;
                let (head, _, tail) = cut_root(&shell);
                out.write_all(head.as_bytes())?;
                w.copy_to(out)?;
                out.write_all(tail.as_bytes())?;
            }
            None => out.write_all(text.as_bytes())?,
        }
        writeln!(out)
    }
}
