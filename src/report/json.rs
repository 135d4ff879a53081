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

/// `check --format json` written as the results come: the same document
/// as [`Json`] gives from every result, byte for byte. The head names the
/// profile the run's streams share, which only the last stream settles,
/// so the `files` array is written to a scratch file as each input (or
/// each of a socket's responses) comes, and the document is put together
/// at the end: head, the scratch file's bytes, summary. Memory holds the
/// profile seen and the counts, no result.
pub struct JsonParts {
    /// The profile the run was given (`Run::profile`).
    pub profile: String,
    /// Where the `files` array waits (`None` until the first part).
    scratch: Option<crate::output::Scratch>,
    /// Inputs written to the array.
    files: u64,
    /// Streams written to the open input's `streams` array (`None`: no
    /// input open).
    open: Option<u64>,
    /// The profile of every stream so far, while they share one: (the
    /// first, whether all were it).
    read_under: Option<(&'static str, bool)>,
}

impl JsonParts {
    /// A report of a run given `profile`.
    pub fn new(profile: String) -> Self {
        JsonParts {
            profile,
            scratch: None,
            files: 0,
            open: None,
            read_under: None,
        }
    }

    /// Bytes of the `files` array written so far.
    pub fn written(&self) -> u64 {
        self.scratch.as_ref().map_or(0, crate::output::Scratch::len)
    }

    /// Closes the open input's `streams` array and its object.
    fn close_file(&mut self, w: &mut dyn Write) -> io::Result<()> {
        match self.open.take() {
            None => Ok(()),
            Some(0) => write!(w, "[]\n    }}"),
            Some(_) => write!(w, "\n      ]\n    }}"),
        }
    }
}

impl super::Streaming for JsonParts {
    fn part(
        &mut self,
        f: &FileResult,
        first: bool,
        _several: bool,
        _out: &mut dyn Write,
    ) -> io::Result<()> {
        if self.scratch.is_none() {
            self.scratch = Some(crate::output::Scratch::create("json")?);
        }
        let mut scratch = self.scratch.take();
        let w = scratch.as_mut().expect("created above");
        let written = (|| -> io::Result<()> {
            if first || self.open.is_none() {
                self.close_file(w)?;
                w.write_all(if self.files == 0 {
                    b"[\n    "
                } else {
                    b",\n    "
                })?;
                self.files += 1;
                // The input's object up to its `streams` array.
                let head = super::pretty_at(
                    &File {
                        path: &f.path,
                        input_format: f.format_name(),
                        error: f.error.as_deref(),
                        streams: Vec::new(),
                    },
                    2,
                )?;
                let head = head.strip_suffix("[]\n    }").unwrap_or(&head);
                w.write_all(head.as_bytes())?;
                self.open = Some(0);
            }
            for s in &f.streams {
                self.read_under = Some(match self.read_under {
                    None => (s.profile, true),
                    Some((p, same)) => (p, same && p == s.profile),
                });
                let n = self.open.get_or_insert(0);
                w.write_all(if *n == 0 {
                    b"[\n        "
                } else {
                    b",\n        "
                })?;
                *n += 1;
                w.write_all(super::pretty_at(&stream(s), 4)?.as_bytes())?;
            }
            Ok(())
        })();
        self.scratch = scratch;
        written
    }

    fn end(&mut self, totals: &super::Totals, out: &mut dyn Write) -> io::Result<()> {
        let profile = match self.read_under {
            Some((p, true)) => p,
            _ => self.profile.as_str(),
        };
        let doc = Doc {
            version: VERSION,
            tool: super::TOOL,
            profile,
            files: Vec::new(),
            summary: Summary {
                errors: totals.counts.0,
                warnings: totals.counts.1,
                infos: totals.counts.2,
                suppressed: totals.suppressed,
                unreadable: totals.unread,
            },
        };
        let text = serde_json::to_string_pretty(&doc)?;
        let mut scratch = self.scratch.take();
        let (head, tail) = match (&mut scratch, text.split_once("\n  \"files\": []")) {
            (Some(w), Some((head, tail))) if self.files > 0 => {
                self.close_file(w)?;
                w.write_all(b"\n  ]")?;
                (head, tail)
            }
            _ => {
                out.write_all(text.as_bytes())?;
                return writeln!(out);
            }
        };
        out.write_all(head.as_bytes())?;
        out.write_all(b"\n  \"files\": ")?;
        if let Some(w) = scratch.as_mut() {
            w.copy_to(out)?;
        }
        out.write_all(tail.as_bytes())?;
        writeln!(out)
    }
}
