//! `--format sarif`: SARIF 2.1.0 (OASIS), with our own serde structs. One
//! run; `tool.driver.rules` is the catalogue (id = code); each result has
//! `ruleId`, `ruleIndex`, `level`, a message and a physical location whose
//! region holds line, column (`columnKind`: Unicode code points), byte
//! offset and length. Findings inside a HAR body point at their bytes in
//! the entry's `content.text` string when the body maps onto it (else at the
//! start of that value); findings inside another body that is not a
//! contiguous part of its file (de-chunked, decoded, a filtered `curl -v`
//! dump) point at line 1 of the file. Both carry the body position in
//! `properties`, HAR ones a logical location such as `entries[3]/event[12]`.
//! Findings in a binary body (AWS event-stream frames), which has no
//! lines, have a binary region (byte offset and length, line 1 for code
//! scanning, no column) and their byte and frame lead the message.
//! Baseline-suppressed findings carry an external suppression. Inputs that
//! could not be read are `invocations[0].toolExecutionNotifications`, and
//! make `executionSuccessful` false.

use super::{Render, Run};
use crate::capture::FilePos;
use crate::lint::{catalogue, Diagnostic, Severity};
use crate::pipeline::{FileResult, StreamResult};
use serde::Serialize;
use std::io::{self, Write};

/// The SARIF renderer.
pub struct Sarif;

#[derive(Serialize)]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<SarifRun<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRun<'a> {
    tool: Tool,
    column_kind: &'static str,
    results: Vec<SarifResult<'a>>,
    invocations: Vec<Invocation<'a>>,
}

/// The run's invocation: unsuccessful when an input could not be read,
/// with one notification per such input.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation<'a> {
    execution_successful: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_execution_notifications: Vec<Notification<'a>>,
}

#[derive(Serialize)]
struct Notification<'a> {
    level: &'static str,
    message: Text,
    locations: Vec<Location<'a>>,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    semantic_version: &'static str,
    rules: Vec<RuleDescriptor>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RuleDescriptor {
    id: &'static str,
    name: &'static str,
    short_description: Text,
    full_description: Text,
    help: Help,
    default_configuration: DefaultConfiguration,
    properties: RuleProperties,
}

#[derive(Serialize)]
struct Text {
    text: String,
}

#[derive(Serialize)]
struct Help {
    text: String,
    markdown: String,
}

#[derive(Serialize)]
struct DefaultConfiguration {
    level: &'static str,
}

#[derive(Serialize)]
struct RuleProperties {
    tags: Vec<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: Text,
    locations: Vec<Location<'a>>,
    partial_fingerprints: Fingerprints<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    suppressions: Vec<Suppression>,
    properties: ResultProperties<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location<'a> {
    physical_location: PhysicalLocation,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    logical_locations: Vec<LogicalLocation>,
    #[serde(skip)]
    _p: std::marker::PhantomData<&'a ()>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_column: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    byte_offset: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    byte_length: Option<u64>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LogicalLocation {
    fully_qualified_name: String,
    kind: &'static str,
}

#[derive(Serialize)]
struct Fingerprints<'a> {
    #[serde(rename = "sselint/v1")]
    v1: &'a str,
}

#[derive(Serialize)]
struct Suppression {
    kind: &'static str,
    justification: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResultProperties<'a> {
    rule: &'static str,
    stream: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    har_entry: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    event_index: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pointer: Option<&'a str>,
    body_relative: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    body_line: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    body_column: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    body_byte_offset: Option<u64>,
}

/// SARIF's level for a severity.
pub fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A path as a SARIF URI: relative paths as they are (with `/`),
/// absolute ones as `file://` URIs, stdin as `stdin`.
pub fn uri(path: &str) -> (String, Option<&'static str>) {
    if path == "-" {
        return ("stdin".to_string(), None);
    }
    let p = path.replace('\\', "/");
    // RFC 3986: keep unreserved characters and `/`, percent-encode every
    // other byte (non-ASCII names included).
    let enc: String = p
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    if p.starts_with('/') {
        (format!("file://{enc}"), None)
    } else {
        (enc.trim_start_matches("./").to_string(), Some("%SRCROOT%"))
    }
}

/// Where a finding sits in a body that is not a contiguous part of its
/// file: `entries[3] body line 12, column 5, byte 345` (HAR) or `body line
/// …`. For a HAR, [`file_region`] gives the region in the file.
pub fn body_position(s: &StreamResult, d: &Diagnostic) -> String {
    let l = &d.location;
    let where_ = match s.origin.har_entry {
        Some(e) => format!("entries[{e}] body"),
        None => "body".to_string(),
    };
    match super::binary_position(s, d) {
        Some(at) => format!("{where_} {at}"),
        None => format!(
            "{where_} line {}, column {}, byte {}",
            l.line, l.column, l.byte_offset
        ),
    }
}

/// Where a finding in a HAR body sits in the `.har` file, and the length
/// of its span there: the exact bytes when the body maps onto the entry's
/// `content.text` string, else the start of that value (no length); in a
/// `curl -v` dump, its line and column in the dump. `None` when neither is
/// known (another input, or a value the parser did not see).
pub fn file_region(s: &StreamResult, d: &Diagnostic) -> Option<(FilePos, Option<u64>)> {
    let l = &d.location;
    let Some(text) = s.origin.har_text else {
        // A `curl -v` body, with curl's lines left out.
        let p = s.file_positions.get(&l.byte_offset)?;
        let end = s.file_positions.get(&(l.byte_offset + l.byte_len));
        return Some((*p, end.map(|e| e.byte - p.byte)));
    };
    match s.file_positions.get(&l.byte_offset) {
        Some(p) => {
            let end = s.file_positions.get(&(l.byte_offset + l.byte_len));
            Some((*p, end.map(|e| e.byte - p.byte)))
        }
        None => Some((text.start, None)),
    }
}

fn result<'a>(
    f: &FileResult,
    s: &'a StreamResult,
    d: &'a Diagnostic,
    rule_index: usize,
) -> SarifResult<'a> {
    let l = &d.location;
    let body_relative = s.origin.file_start.is_none();
    let binary = super::binary_position(s, d);
    let (uri, base) = uri(&f.path);
    let region = if body_relative {
        match file_region(s, d) {
            Some((p, len)) => Region {
                start_line: p.line,
                start_column: Some(p.column),
                byte_offset: Some(p.byte),
                byte_length: len,
            },
            None => Region {
                start_line: 1,
                start_column: None,
                byte_offset: None,
                byte_length: None,
            },
        }
    } else if binary.is_some() {
        // A binary region: its bytes (GitHub's code scanning wants a
        // line, so line 1; no column, which a binary file has not).
        Region {
            start_line: 1,
            start_column: None,
            byte_offset: Some(l.byte_offset),
            byte_length: Some(l.byte_len),
        }
    } else {
        Region {
            start_line: l.line.max(1),
            start_column: Some(l.column.max(1)),
            byte_offset: Some(l.byte_offset),
            byte_length: Some(l.byte_len),
        }
    };
    let mut logical = Vec::new();
    if let Some(e) = s.origin.har_entry {
        logical.push(LogicalLocation {
            fully_qualified_name: match d.event_index {
                Some(ev) => format!("entries[{e}]/event[{ev}]"),
                None => format!("entries[{e}]"),
            },
            kind: "element",
        });
    }
    SarifResult {
        rule_id: d.code,
        rule_index,
        level: level(d.severity),
        message: Text {
            text: if body_relative {
                format!("{}: {}", body_position(s, d), d.message)
            } else if let Some(at) = &binary {
                format!("{at}: {}", d.message)
            } else {
                d.message.clone()
            },
        },
        locations: vec![Location {
            physical_location: PhysicalLocation {
                artifact_location: ArtifactLocation {
                    uri,
                    uri_base_id: base,
                },
                region: Some(region),
            },
            logical_locations: logical,
            _p: std::marker::PhantomData,
        }],
        partial_fingerprints: Fingerprints { v1: &d.fingerprint },
        suppressions: if d.suppressed {
            vec![Suppression {
                kind: "external",
                justification: "recorded in the sselint baseline",
            }]
        } else {
            Vec::new()
        },
        properties: ResultProperties {
            rule: d.rule,
            stream: &s.label,
            har_entry: s.origin.har_entry,
            event_index: d.event_index,
            pointer: d.pointer.as_deref(),
            body_relative,
            body_line: body_relative.then_some(l.line),
            body_column: body_relative.then_some(l.column),
            body_byte_offset: body_relative.then_some(l.byte_offset),
        },
    }
}

/// The catalogue's rules, in order, as `tool.driver.rules`.
fn descriptors() -> Vec<RuleDescriptor> {
    catalogue()
        .rules()
        .map(|r| RuleDescriptor {
            id: r.code,
            name: r.name,
            short_description: Text {
                text: r.summary.to_string(),
            },
            full_description: Text {
                text: r.rationale.trim().to_string(),
            },
            help: Help {
                text: format!("{}\n\nRun `sselint rule {}` for examples.", r.fix.trim(), r.name),
                markdown: format!(
                    "**{}** ({})\n\n{}\n\n**What to send instead:** {}\n\nRun `sselint rule {}` for examples.",
                    r.name,
                    r.code,
                    r.rationale.trim(),
                    r.fix.trim(),
                    r.name
                ),
            },
            default_configuration: DefaultConfiguration {
                level: level(r.severity),
            },
            properties: RuleProperties {
                tags: vec![r.group],
            },
        })
        .collect()
}

/// Each of `f`'s findings as a result, with its rule's index in the
/// catalogue.
fn results_of<'a>(f: &FileResult, s: &'a StreamResult) -> Vec<SarifResult<'a>> {
    let cat = catalogue();
    s.diagnostics
        .iter()
        .map(|d| {
            let idx = cat.rules().position(|r| r.name == d.rule).unwrap_or(0);
            result(f, s, d, idx)
        })
        .collect()
}

/// The notification of an input that could not be read.
fn notification(f: &FileResult) -> Option<Notification<'static>> {
    let e = f.error.as_ref()?;
    let (uri, base) = uri(&f.path);
    Some(Notification {
        level: "error",
        message: Text {
            text: format!("{}: {e}", super::display_path(&f.path)),
        },
        locations: vec![Location {
            physical_location: PhysicalLocation {
                artifact_location: ArtifactLocation {
                    uri,
                    uri_base_id: base,
                },
                region: None,
            },
            logical_locations: Vec::new(),
            _p: std::marker::PhantomData,
        }],
    })
}

/// The log of one run holding `results` and `notifications`.
fn log<'a>(results: Vec<SarifResult<'a>>, notifications: Vec<Notification<'a>>) -> Log<'a> {
    Log {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: vec![SarifRun {
            tool: Tool {
                driver: Driver {
                    name: "sselint",
                    version: env!("CARGO_PKG_VERSION"),
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    rules: descriptors(),
                },
            },
            column_kind: "unicodeCodePoints",
            results,
            invocations: vec![Invocation {
                execution_successful: notifications.is_empty(),
                tool_execution_notifications: notifications,
            }],
        }],
    }
}

impl Render for Sarif {
    fn render(&self, run: &Run, out: &mut dyn Write) -> io::Result<()> {
        let mut results = Vec::new();
        for f in &run.files {
            for s in &f.streams {
                results.extend(results_of(f, s));
            }
        }
        let notifications: Vec<Notification> = run.files.iter().filter_map(notification).collect();
        serde_json::to_writer_pretty(&mut *out, &log(results, notifications))?;
        writeln!(out)
    }
}

/// Where `results` sits in a log's pretty text: the text up to its empty
/// array, and the text after it.
fn around_results(text: &str) -> (&str, &str) {
    const AT: &str = "\n      \"results\": []";
    match text.split_once(AT) {
        Some((head, tail)) => (head, tail),
        None => (text, ""),
    }
}

/// `check --format sarif` written as the results come: the same log as
/// [`Sarif`] gives from every result, byte for byte. Its head (the tool
/// and the catalogue) is known before any result, so it is written first,
/// then each result as its stream comes; the invocation (which names the
/// inputs that could not be read, the one thing kept) closes it. Memory
/// holds no result.
#[derive(Default)]
pub struct SarifParts {
    /// Whether the head was written.
    started: bool,
    /// Results written.
    results: u64,
    /// The inputs that could not be read.
    notifications: Vec<Notification<'static>>,
}

impl SarifParts {
    fn start(&mut self, out: &mut dyn Write) -> io::Result<()> {
        if !self.started {
            self.started = true;
            let text = serde_json::to_string_pretty(&log(Vec::new(), Vec::new()))?;
            let (head, _) = around_results(&text);
            out.write_all(head.as_bytes())?;
            out.write_all(b"\n      \"results\": ")?;
        }
        Ok(())
    }

    /// Results written so far.
    pub fn written(&self) -> u64 {
        self.results
    }
}

impl super::Streaming for SarifParts {
    fn part(
        &mut self,
        f: &FileResult,
        _first: bool,
        _several: bool,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        self.start(out)?;
        self.notifications.extend(notification(f));
        for s in &f.streams {
            for r in results_of(f, s) {
                out.write_all(if self.results == 0 {
                    b"[\n        "
                } else {
                    b",\n        "
                })?;
                self.results += 1;
                out.write_all(super::pretty_at(&r, 4)?.as_bytes())?;
            }
        }
        Ok(())
    }

    fn end(&mut self, _totals: &super::Totals, out: &mut dyn Write) -> io::Result<()> {
        self.start(out)?;
        out.write_all(if self.results == 0 {
            b"[]"
        } else {
            b"\n      ]"
        })?;
        let text = serde_json::to_string_pretty(&log(
            Vec::new(),
            std::mem::take(&mut self.notifications),
        ))?;
        let (_, tail) = around_results(&text);
        out.write_all(tail.as_bytes())?;
        writeln!(out)
    }
}
