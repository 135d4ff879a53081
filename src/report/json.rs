//! `check --format json`: one JSON document, versioned. The shape is the
//! contract in DESIGN.md ("Machine-readable output"); fields may be added,
//! never renamed or removed, without bumping `version`.

use super::{Render, Run};
use crate::capture::masked_keys;
use crate::lint::Diagnostic;
use crate::model::assembly::ToolCall;
use crate::pipeline::{FileResult, StreamResult};
use serde::Serialize;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::{self, Write};

/// The JSON report's format version.
pub const VERSION: u32 = 1;

/// The JSON renderer.
pub struct Json;

#[derive(Serialize)]
pub(crate) struct Doc<'a> {
    pub(crate) version: u32,
    pub(crate) tool: super::Tool,
    pub(crate) profile: &'a str,
    pub(crate) files: Vec<File<'a>>,
    pub(crate) summary: Summary,
}

#[derive(Serialize)]
pub(crate) struct Summary {
    pub(crate) errors: u64,
    pub(crate) warnings: u64,
    pub(crate) infos: u64,
    /// Findings the baseline covers (counted in the three above too).
    pub(crate) suppressed: u64,
    /// Inputs that could not be read (each `files[].error` is set).
    pub(crate) unreadable: u64,
}

#[derive(Serialize)]
pub(crate) struct File<'a> {
    pub(crate) path: &'a str,
    pub(crate) input_format: Option<String>,
    pub(crate) error: Option<&'a str>,
    pub(crate) streams: Vec<Stream<'a>>,
}

#[derive(Serialize)]
pub(crate) struct Http<'a> {
    pub(crate) status: u16,
    pub(crate) content_type: Option<&'a str>,
}

#[derive(Serialize)]
pub(crate) struct Stream<'a> {
    pub(crate) label: &'a str,
    /// `chat`, `responses`, `messages`, or null for a stream of no known
    /// dialect.
    pub(crate) dialect: Option<crate::dialect::Dialect>,
    /// The profile the stream was read under (`StreamResult::profile`).
    pub(crate) profile: &'a str,
    pub(crate) http: Option<Http<'a>>,
    pub(crate) events: u64,
    pub(crate) ending: &'static str,
    /// `file`: line, column and byte offset are the file's; `body`: they
    /// are the body's (HAR entries, de-chunked, decoded or filtered dumps).
    pub(crate) positions: &'static str,
    pub(crate) choices: Vec<Choice<'a>>,
    /// Why choice 0's answer is blank (`empty-answer`), when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) empty_answer: Option<&'a str>,
    /// The provider the stream looks like, and the profile that fits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) provider_guess: Option<&'a crate::checks::provider::ProviderGuess>,
    pub(crate) usage: Option<&'a Value>,
    pub(crate) diagnostics: &'a [Diagnostic],
    pub(crate) omitted: &'a BTreeMap<&'static str, u64>,
    pub(crate) notes: &'a [String],
}

/// A choice's texts are the stream's own, which may quote a key (an error
/// message echoing it): each is masked (`capture::redact_keys`), as every
/// other report shows it.
#[derive(Serialize)]
pub(crate) struct Choice<'a> {
    pub(crate) index: u64,
    pub(crate) text: Cow<'a, str>,
    pub(crate) refusal: Option<Cow<'a, str>>,
    pub(crate) reasoning: Option<Cow<'a, str>>,
    /// `delta.audio.transcript` joined (audio models).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) transcript: Option<Cow<'a, str>>,
    pub(crate) finish_reason: Option<&'a str>,
    pub(crate) tool_calls: Vec<&'a ToolCall>,
    /// Bytes of text past the kept limit.
    #[serde(skip_serializing_if = "is_zero")]
    pub(crate) text_omitted_bytes: u64,
    /// Bytes of the refusal past the kept limit.
    #[serde(skip_serializing_if = "is_zero")]
    pub(crate) refusal_omitted_bytes: u64,
    /// Bytes of the reasoning past the kept limit.
    #[serde(skip_serializing_if = "is_zero")]
    pub(crate) reasoning_omitted_bytes: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn stream(s: &StreamResult) -> Stream<'_> {
    Stream {
        label: &s.label,
        dialect: s.dialect,
        profile: s.profile,
        http: s.http.as_ref().map(|h| Http {
            status: h.status,
            content_type: h.content_type.as_deref(),
        }),
        events: s.events,
        ending: s.ending.name(),
        positions: if s.origin.file_start.is_some() {
            "file"
        } else {
            "body"
        },
        choices: s
            .answer
            .choices
            .values()
            .map(|c| Choice {
                index: c.index,
                text: masked_keys(&c.text.kept),
                refusal: c.refusal.as_ref().map(|r| masked_keys(&r.kept)),
                reasoning: (!c.reasoning.is_empty()).then(|| masked_keys(&c.reasoning.kept)),
                transcript: (!c.transcript.is_empty()).then(|| masked_keys(&c.transcript.kept)),
                finish_reason: c.finish_reason.as_deref(),
                tool_calls: c.tool_calls.values().collect(),
                text_omitted_bytes: c.text.dropped,
                refusal_omitted_bytes: c.refusal.as_ref().map_or(0, |r| r.dropped),
                reasoning_omitted_bytes: c.reasoning.dropped,
            })
            .collect(),
        empty_answer: s.answer.empty.as_deref(),
        provider_guess: s.provider.as_ref(),
        usage: s.answer.usage.as_ref(),
        diagnostics: &s.diagnostics,
        omitted: &s.omitted,
        notes: &s.notes,
    }
}

fn file(f: &FileResult) -> File<'_> {
    File {
        path: &f.path,
        input_format: f.format_name(),
        error: f.error.as_deref(),
        streams: f.streams.iter().map(stream).collect(),
    }
}

/// The document's parts, borrowed from the run.
pub(crate) fn doc(run: &Run) -> Doc<'_> {
    let (errors, warnings, infos) = run.totals();
    // The profile the run's streams were read under, where they share
    // one (a Gemini-only run under the default is read as `gemini-api`,
    // not `openai`); else the one the run was given.
    let mut read_under = run.files.iter().flat_map(|f| &f.streams).map(|s| s.profile);
    let first = read_under.next();
    let profile = match first {
        Some(p) if read_under.all(|q| q == p) => p,
        _ => run.profile.as_str(),
    };
    Doc {
        version: VERSION,
        tool: super::TOOL,
        profile,
        files: run.files.iter().map(file).collect(),
        summary: Summary {
            errors,
            warnings,
            infos,
            suppressed: run.suppressed,
            unreadable: run.files.iter().filter(|f| f.error.is_some()).count() as u64,
        },
    }
}

impl Render for Json {
    fn render(&self, run: &Run, out: &mut dyn Write) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, &doc(run))?;
        writeln!(out)
    }
}
