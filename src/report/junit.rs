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

impl Render for Junit {
    fn render(&self, run: &Run, out: &mut dyn Write) -> io::Result<()> {
        let mut report = Report::new("sselint");
        for f in &run.files {
            if let Some(e) = &f.error {
                let mut suite = TestSuite::new(super::display_path(&f.path));
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
                status.set_message(e.clone());
                let mut tc = TestCase::new("read", status);
                tc.set_classname(super::display_path(&f.path));
                suite.add_test_case(tc);
                report.add_test_suite(suite);
                continue;
            }
            for s in &f.streams {
                let name = stream_name(f, &s.label);
                let mut suite = TestSuite::new(name.clone());
                // The rules that judge this stream: the shared ones its
                // transport can give, its dialect's and those of the
                // dialect its messages wrap (an Invoke stream's Claude
                // events: Messages'); a stream of no known dialect: the
                // shared ones. A rule that found something is listed
                // whatever its dialect: no finding is left out.
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
                        // An error is a failure whatever `--fail-on` says
                        // (it sets only the exit code); below error, the
                        // threshold decides.
                        let fails = !d.suppressed
                            && (d.severity == crate::lint::Severity::Error
                                || run.fail_on.is_some_and(|t| d.severity >= t));
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
                report.add_test_suite(suite);
            }
        }
        // Serialize in memory, then write: a closed pipe stays an io error
        // of its own kind.
        let mut buf = Vec::new();
        report
            .serialize(&mut buf)
            .map_err(|e| io::Error::other(e.to_string()))?;
        out.write_all(&buf)?;
        writeln!(out)
    }
}
