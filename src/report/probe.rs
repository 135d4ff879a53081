//! `sselint probe`'s report card in each format: a table per endpoint
//! with its findings (human), one JSON document (`"version": 1`), SARIF
//! 2.1.0, JUnit XML (one testcase per scenario) and GitHub Actions
//! workflow commands. The cards are plain data ([`crate::card`]); nothing
//! here decides a verdict.

use crate::card::{counts, interrupted_line, saved_any, Card, ScenarioDiff, MIN_SEARCHED_SECRET};
use crate::card::{Finding, Verdict};
use crate::lint::Severity;
use comfy_table::{presets, Cell, Color, ContentArrangement, Table};
use serde_json::{json, Value};
use std::io::{self, Write};
use std::time::Duration;

fn ms(v: Option<f64>) -> String {
    v.map_or("-".to_string(), |m| format!("{m:.0} ms"))
}

fn verdict_cell(v: Verdict, color: bool) -> Cell {
    let c = Cell::new(v.name());
    if !color {
        return c;
    }
    c.fg(match v {
        Verdict::Pass => Color::Green,
        Verdict::Fail => Color::Red,
        Verdict::Unsupported => Color::Yellow,
        Verdict::Error => Color::Magenta,
    })
}

/// The human card: per endpoint a table of scenario × verdict, then the
/// findings at `fail_on` or warning and up, then A against B.
///
/// # Errors
/// Only the writer's.
pub fn human(
    cards: &[Card],
    compare: Option<&[ScenarioDiff]>,
    color: bool,
    fail_on: Severity,
    out: &mut Vec<u8>,
) -> io::Result<()> {
    // Warnings and up, and whatever --fail-on counts (info included with
    // --fail-on info), so that a failed scenario shows why.
    let shown_from = fail_on.min(Severity::Warning);
    for (i, c) in cards.iter().enumerate() {
        if cards.len() == 2 {
            write!(out, "{}: ", if i == 0 { "A" } else { "B" })?;
        }
        writeln!(out, "sselint probe {} ({})", c.endpoint, c.dialect.title())?;
        if c.outcomes.is_empty() {
            // Ctrl-C before this endpoint's first scenario: no table.
            writeln!(out, "no scenario ran; {}", interrupted_line(c))?;
            if i + 1 < cards.len() {
                writeln!(out)?;
            }
            continue;
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
        t.set_header([
            "scenario", "verdict", "HTTP", "TTFT", "total", "max gap", "findings",
        ]);
        for o in &c.outcomes {
            let mut rules: Vec<String> = Vec::new();
            for f in &o.findings {
                if f.severity >= shown_from && !rules.contains(&f.rule) {
                    rules.push(f.rule.clone());
                }
            }
            let what = if rules.is_empty() {
                o.note.clone().unwrap_or_default()
            } else {
                rules.join(", ")
            };
            let what = short(&what, 90);
            t.add_row(vec![
                Cell::new(o.name),
                verdict_cell(o.verdict, color),
                Cell::new(o.status.map_or("-".into(), |s| s.to_string())),
                Cell::new(ms(o.ttft_ms)),
                Cell::new(ms(o.total_ms)),
                Cell::new(ms(o.max_gap_ms)),
                Cell::new(what),
            ]);
        }
        writeln!(out, "{t}")?;
        if !c.short_secrets.is_empty() {
            writeln!(
                out,
                "note: {} {} shorter than {} bytes: masked in the saved request, but not searched for in what the server sent back",
                c.short_secrets.join(", "),
                if c.short_secrets.len() == 1 { "is" } else { "are" },
                MIN_SEARCHED_SECRET
            )?;
        }
        for o in &c.outcomes {
            if !o.unmasked.is_empty() {
                writeln!(
                    out,
                    "note: {}: {} came back as the stream's own text (a field name or value), where masking would change how the capture lints; it was left in the saved body",
                    o.name,
                    o.unmasked.join(", ")
                )?;
            }
        }
        for o in &c.outcomes {
            let shown: Vec<_> = o
                .findings
                .iter()
                .filter(|f| f.severity >= shown_from)
                .collect();
            if shown.is_empty()
                && !o.withheld
                && !matches!(o.verdict, Verdict::Error | Verdict::Fail)
            {
                continue;
            }
            writeln!(out, "{}:", o.name)?;
            // A failing scenario's note (the first request's time-out of
            // `disconnect`) says what the findings alone do not.
            if let Some(n) = &o.note {
                let what = if o.verdict == Verdict::Error {
                    "error"
                } else {
                    "note"
                };
                writeln!(out, "  {what}: {}", crate::lint::printable(n))?;
            }
            for f in shown {
                writeln!(
                    out,
                    "  {}[{}] {}",
                    f.severity,
                    f.rule,
                    crate::lint::printable(&f.message)
                )?;
            }
        }
        let [p, f, u, e] = counts(&c.outcomes);
        let saved = if saved_any(c) {
            format!("captures in {}", c.dir.display())
        } else {
            "no capture saved".to_string()
        };
        writeln!(
            out,
            "{} scenario(s): {p} pass, {f} fail, {u} unsupported, {e} error; {saved}",
            c.outcomes.len(),
        )?;
        if c.interrupted {
            writeln!(out, "{}", interrupted_line(c))?;
        }
        if let Some(h) = &c.halted {
            // With no other scenario chosen, the error line said it all.
            if !c.not_run.is_empty() {
                writeln!(out, "{}: {}", h, c.not_run.join(", "))?;
            }
        }
        if i + 1 < cards.len() || compare.is_some_and(|d| !d.is_empty()) {
            writeln!(out)?;
        }
    }
    // Nothing ran on both endpoints: nothing to compare.
    if let Some(diffs) = compare.filter(|d| !d.is_empty()) {
        writeln!(out, "A against B, per scenario:")?;
        for d in diffs {
            let head = format!(
                "{}: A {}, B {}",
                d.name,
                d.verdicts.0.name(),
                d.verdicts.1.name()
            );
            if let Some(n) = &d.note {
                writeln!(out, "  {head}; {n}")?;
                continue;
            }
            if d.differences.is_empty() {
                writeln!(out, "  {head}; the streams agree")?;
                continue;
            }
            writeln!(out, "  {head}; {} difference(s):", d.differences.len())?;
            for x in d.differences.iter().take(12) {
                writeln!(
                    out,
                    "    {} {}: A {} | B {}",
                    x.section.name(),
                    crate::lint::printable(&x.item),
                    short(&x.a, 60),
                    short(&x.b, 60)
                )?;
            }
            if d.differences.len() > 12 {
                writeln!(out, "    … {} more", d.differences.len() - 12)?;
            }
        }
    }
    Ok(())
}

fn short(s: &str, max: usize) -> String {
    let p = crate::lint::printable(s);
    if p.chars().count() <= max {
        return p;
    }
    // Cut between escapes, never inside one (`\u{202e}`, `\t`, `\"`).
    let mut kept = String::new();
    let mut n = 0;
    let mut chars = p.chars().peekable();
    while let Some(c) = chars.next() {
        let mut unit = c.to_string();
        if c == '\\' {
            if let Some(d) = chars.next() {
                unit.push(d);
                if d == 'u' && chars.peek() == Some(&'{') {
                    for e in chars.by_ref() {
                        unit.push(e);
                        if e == '}' {
                            break;
                        }
                    }
                }
            }
        }
        let len = unit.chars().count();
        if n + len > max {
            break;
        }
        n += len;
        kept.push_str(&unit);
    }
    format!("{kept}…")
}

/// One scenario in the JSON report.
#[derive(serde::Serialize)]
struct ScenarioJson<'a> {
    name: &'a str,
    verdict: Verdict,
    capture: Option<String>,
    status: Option<u16>,
    ttft_ms: Option<f64>,
    first_byte_ms: Option<f64>,
    total_ms: Option<f64>,
    max_gap_ms: Option<f64>,
    findings: &'a [Finding],
    note: Option<&'a str>,
    interrupted: bool,
}

/// One endpoint in the JSON report.
#[derive(serde::Serialize)]
struct CardJson<'a> {
    endpoint: &'a str,
    dialect: &'a str,
    captures: String,
    scenarios: Vec<ScenarioJson<'a>>,
    summary: Summary,
    /// Ctrl-C stopped the run.
    interrupted: bool,
    /// The scenarios chosen that did not run.
    not_run: &'a [&'static str],
    /// Why the run stopped early (the endpoint could not be reached).
    halted: Option<&'a str>,
}

#[derive(serde::Serialize)]
struct Summary {
    scenarios: usize,
    pass: usize,
    fail: usize,
    unsupported: usize,
    error: usize,
}

/// The JSON report (`"version": 1`).
#[derive(serde::Serialize)]
pub struct ReportJson<'a> {
    version: u32,
    tool: super::Tool,
    fail_on: &'static str,
    #[serde(flatten)]
    card: CardJson<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    compared_with: Option<CardJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    differences: Option<Vec<Value>>,
}

fn round(v: Option<f64>) -> Option<f64> {
    v.map(|m| (m * 10.0).round() / 10.0)
}

fn card_json(c: &Card) -> CardJson<'_> {
    let [pass, fail, unsupported, error] = counts(&c.outcomes);
    CardJson {
        endpoint: &c.endpoint,
        dialect: c.dialect.name(),
        captures: c.dir.display().to_string(),
        scenarios: c
            .outcomes
            .iter()
            .map(|o| ScenarioJson {
                name: o.name,
                verdict: o.verdict,
                capture: o.capture.as_ref().map(|p| p.display().to_string()),
                status: o.status,
                ttft_ms: round(o.ttft_ms),
                first_byte_ms: round(o.first_byte_ms),
                total_ms: round(o.total_ms),
                max_gap_ms: round(o.max_gap_ms),
                findings: &o.findings,
                note: o.note.as_deref(),
                interrupted: o.interrupted,
            })
            .collect(),
        summary: Summary {
            scenarios: c.outcomes.len(),
            pass,
            fail,
            unsupported,
            error,
        },
        interrupted: c.interrupted,
        not_run: &c.not_run,
        halted: c.halted.as_deref(),
    }
}

/// The JSON report (`"version": 1`) of one card, or of two compared.
pub fn json_report<'a>(
    cards: &'a [Card],
    compare: Option<&[ScenarioDiff]>,
    fail_on: Severity,
    never: bool,
) -> ReportJson<'a> {
    ReportJson {
        version: 1,
        tool: super::TOOL,
        fail_on: if never { "never" } else { fail_on.name() },
        card: card_json(&cards[0]),
        compared_with: cards.get(1).map(card_json),
        differences: compare.map(|diffs| {
            diffs
                .iter()
                .map(|d| {
                    json!({
                        "name": d.name,
                        "verdicts": [d.verdicts.0, d.verdicts.1],
                        "differences": d.differences,
                        "note": d.note,
                    })
                })
                .collect()
        }),
    }
}

fn rule_help(rule: &str) -> (String, String, &'static str) {
    if let Some(r) = crate::card::probe_rule(rule) {
        return (r.name.to_string(), r.doc.to_string(), r.severity.name());
    }
    match crate::lint::catalogue().get(rule) {
        Some(r) => (r.code.to_string(), r.summary.to_string(), r.severity.name()),
        None => (rule.to_string(), rule.to_string(), "error"),
    }
}

fn sarif_level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// SARIF 2.1.0: each finding a result at its scenario's capture.
pub fn sarif(cards: &[Card]) -> Value {
    let mut rules: Vec<String> = Vec::new();
    let mut results = Vec::new();
    let mut notes = Vec::new();
    for c in cards {
        for o in &c.outcomes {
            let uri = o
                .capture
                .as_ref()
                .map_or_else(|| c.dir.display().to_string(), |p| p.display().to_string());
            let location = json!([{"physicalLocation": {"artifactLocation": {"uri": uri}}}]);
            for f in &o.findings {
                if !rules.contains(&f.rule) {
                    rules.push(f.rule.clone());
                }
                let (id, _, _) = rule_help(&f.rule);
                results.push(json!({
                    "ruleId": id,
                    "ruleIndex": rules.iter().position(|r| r == &f.rule),
                    "level": sarif_level(f.severity),
                    "message": {"text": format!("{} ({}): {}", o.name, c.endpoint, f.message)},
                    "locations": location,
                    "properties": {"scenario": o.name, "endpoint": c.endpoint},
                }));
            }
            if o.verdict == Verdict::Error {
                notes.push(json!({
                    "level": "error",
                    "message": {"text": format!("{} ({}): {}", o.name, c.endpoint, o.note.clone().unwrap_or_default())},
                }));
            }
        }
        if c.interrupted {
            notes.push(json!({
                "level": "error",
                "message": {"text": format!("{}: {}", c.endpoint, interrupted_line(c))},
            }));
        }
    }
    let descriptors: Vec<Value> = rules
        .iter()
        .map(|r| {
            let (id, text, level) = rule_help(r);
            json!({
                "id": id,
                "name": r,
                "shortDescription": {"text": text},
                "help": {"text": if r.starts_with("probe-") { format!("sselint probe --help lists the probe rules; {r}: {text}") } else { format!("Run `sselint rule {r}` for examples.") }},
                "defaultConfiguration": {"level": if level == "info" { "note" } else { level }},
            })
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "sselint",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "rules": descriptors,
            }},
            "results": results,
            "invocations": [{"executionSuccessful": notes.is_empty(), "toolExecutionNotifications": notes}],
        }]
    })
}

/// JUnit XML: a test suite per endpoint, a test case per scenario.
///
/// # Errors
/// The XML writer's.
pub fn junit(cards: &[Card], out: &mut Vec<u8>) -> io::Result<()> {
    use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
    let mut report = Report::new("sselint probe");
    for c in cards {
        let mut suite = TestSuite::new(format!("{} ({})", c.endpoint, c.dialect.name()));
        for o in &c.outcomes {
            let text: Vec<String> = o
                .findings
                .iter()
                .map(|f| format!("{}[{}] {}", f.severity, f.rule, f.message))
                .collect();
            let status = match o.verdict {
                Verdict::Pass => TestCaseStatus::success(),
                Verdict::Fail => {
                    let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    // The first of the most severe findings.
                    let worst = o.findings.iter().map(|f| f.severity).max();
                    let first = o
                        .findings
                        .iter()
                        .find(|f| Some(f.severity) == worst)
                        .map_or(String::new(), |f| format!("[{}] {}", f.rule, f.message));
                    s.set_message(first);
                    s.set_description(text.join("\n"));
                    s
                }
                Verdict::Unsupported => {
                    let mut s = TestCaseStatus::skipped();
                    s.set_message(format!(
                        "unsupported: {}",
                        o.note.clone().unwrap_or_default()
                    ));
                    s
                }
                Verdict::Error => {
                    let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
                    s.set_message(o.note.clone().unwrap_or_default());
                    s
                }
            };
            let mut tc = TestCase::new(o.name, status);
            tc.set_classname(c.endpoint.clone());
            if let Some(t) = o.total_ms {
                tc.set_time(Duration::from_secs_f64(t / 1000.0));
            }
            if o.verdict == Verdict::Pass && !text.is_empty() {
                tc.set_system_out(text.join("\n"));
            }
            suite.add_test_case(tc);
        }
        for name in &c.not_run {
            let mut s = TestCaseStatus::skipped();
            s.set_message(if c.interrupted {
                "not run: the probe was interrupted (Ctrl-C)"
            } else {
                "not run: the endpoint gave its first scenario no usable answer"
            });
            let mut tc = TestCase::new(*name, s);
            tc.set_classname(c.endpoint.clone());
            suite.add_test_case(tc);
        }
        report.add_test_suite(suite);
    }
    report
        .serialize(&mut *out)
        .map_err(|e| io::Error::other(e.to_string()))?;
    out.push(b'\n');
    Ok(())
}

/// GitHub Actions workflow commands: an annotation per finding, a
/// summary line per endpoint.
///
/// # Errors
/// Only the writer's.
pub fn github(cards: &[Card], out: &mut Vec<u8>) -> io::Result<()> {
    use super::github::{escape_data, escape_property};
    for c in cards {
        for o in &c.outcomes {
            let file = o
                .capture
                .as_ref()
                .map(|p| format!("file={},", escape_property(&p.display().to_string())))
                .unwrap_or_default();
            if o.verdict == Verdict::Error {
                writeln!(
                    out,
                    "::error {file}title={}::{}",
                    escape_property(&format!("sselint probe: {} could not run", o.name)),
                    escape_data(&o.note.clone().unwrap_or_default())
                )?;
            }
            for f in &o.findings {
                let cmd = match f.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    // Shown when it may be what failed the scenario
                    // (`--fail-on info`).
                    Severity::Info if o.verdict == Verdict::Fail => "notice",
                    Severity::Info => continue,
                };
                writeln!(
                    out,
                    "::{cmd} {file}title={}::{}",
                    escape_property(&format!("sselint probe {} [{}]", o.name, f.rule)),
                    escape_data(&f.message)
                )?;
            }
        }
        let [p, f, u, e] = counts(&c.outcomes);
        writeln!(
            out,
            "sselint probe {}: {} scenario(s): {p} pass, {f} fail, {u} unsupported, {e} error",
            c.endpoint,
            c.outcomes.len()
        )?;
        if c.interrupted {
            writeln!(out, "::error title=sselint probe::{}", interrupted_line(c))?;
        }
        if let Some(h) = &c.halted {
            writeln!(out, "::error title=sselint probe::{}", escape_data(h))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by a fresh-user trial: the card's cut landed inside an
    /// escape (`\u{202e…`).
    #[test]
    fn a_cut_of_shown_text_keeps_each_escape_whole() {
        let s = "ab\u{202e}cd";
        let p = crate::lint::printable(s);
        assert_eq!(p, "ab\\u{202e}cd");
        let text = "ab\u{202e}cd\u{1b}[2J";
        let escaped = crate::lint::printable("ab\u{202e}cd\u{1b}[2J");
        for max in 0..escaped.chars().count() {
            let cut = short(text, max);
            let kept = cut.trim_end_matches('…');
            assert!(kept.chars().count() <= max, "{max}: {cut}");
            assert!(escaped.starts_with(kept), "{max}: {cut}");
            // Every escape kept is whole.
            for (i, _) in kept.match_indices("\\u{") {
                assert!(kept[i..].contains('}'), "{max}: {cut}");
            }
            assert!(!kept.ends_with('\\'), "{max}: {cut}");
        }
        // A raw bidi override shown escaped, cut inside its escape.
        let cut = short("ab\u{202e}RTL", 6);
        assert_eq!(cut, "ab…", "{cut}");
        let cut = short("ab\tc", 3);
        assert_eq!(cut, "ab…", "{cut}");
    }
}
