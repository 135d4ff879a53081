//! `check --format jsonl`: one line per stream (one per file or log
//! record; a HAR gives one per entry), each a flat JSON object made to be
//! counted and joined back to its row: the same fields, in the same order,
//! as a row of the Python API's `lint_arrow`.
//!
//! ```text
//! {"id":"log.jsonl:1","verdict":"fail","errors":1,"warnings":0,"infos":0,
//!  "dialect":"chat","ending":"cut-off","provider_guess":null,
//!  "answer_chars":12,"rules":["cut-off"],"read_error":null}
//! ```
//!
//! Lines are written as results come, so a directory or a log of any size
//! is reported in flat memory (`check` streams them).

use super::{Render, Run};
use crate::lint::Severity;
use crate::pipeline::{FileResult, StreamResult};
use serde::Serialize;
use std::io::{self, Write};

/// The JSON Lines renderer (for a run already held whole; `check` writes
/// [`rows`] as it goes instead).
pub struct Jsonl;

/// One result line: what one stream (or an unreadable input) came to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Row {
    /// The record's id, or the file's path (with the entry's label for a
    /// HAR of several streams).
    pub id: String,
    /// `pass`, `fail` (a finding reached `--fail-on`) or `error` (the input
    /// or its body could not be read).
    pub verdict: &'static str,
    /// Findings by severity, those past a rule's per-stream cap included.
    pub errors: u64,
    /// See `errors`.
    pub warnings: u64,
    /// See `errors`.
    pub infos: u64,
    /// `chat`, `responses`, `messages`, or null (no known dialect, or
    /// unread).
    pub dialect: Option<&'static str>,
    /// How the stream ended (`complete`, `cut-off`, …), null when unread.
    pub ending: Option<&'static str>,
    /// The profile the stream looks like (`vllm`, `groq`, …), or null.
    pub provider_guess: Option<String>,
    /// Unicode scalar values in choice 0's answer text (as kept: up to
    /// 1 MiB of it).
    pub answer_chars: u64,
    /// The rules that fired, each once, in the order first found.
    pub rules: Vec<&'static str>,
    /// Why the input, the record or the body could not be read; null when
    /// it was.
    pub read_error: Option<String>,
}

/// The result lines of one input under `fail_on` (`None`: never fails):
/// one per stream, or one carrying the input's error.
pub fn rows(file: &FileResult, fail_on: Option<Severity>) -> Vec<Row> {
    rows_of(file, file.streams.len() > 1, fail_on)
}

/// [`rows`] of an input, or of a part of one whose streams come in
/// several parts: `several` says whether the whole input has more than
/// one stream (each line is then named by its stream).
pub fn rows_of(file: &FileResult, several: bool, fail_on: Option<Severity>) -> Vec<Row> {
    if let Some(e) = &file.error {
        return vec![Row {
            id: file.path.clone(),
            verdict: "error",
            errors: 0,
            warnings: 0,
            infos: 0,
            dialect: None,
            ending: None,
            provider_guess: None,
            answer_chars: 0,
            rules: Vec::new(),
            read_error: Some(e.clone()),
        }];
    }
    file.streams
        .iter()
        .map(|s| {
            let id = if several {
                super::stream_name(file, &s.label)
            } else {
                file.path.clone()
            };
            row(id, s, fail_on)
        })
        .collect()
}

/// The result line of one stream, named `id`.
pub fn row(id: String, s: &StreamResult, fail_on: Option<Severity>) -> Row {
    let mut rules: Vec<&'static str> = Vec::new();
    for d in &s.diagnostics {
        if !rules.contains(&d.rule) {
            rules.push(d.rule);
        }
    }
    for r in s.omitted.keys() {
        if !rules.contains(r) {
            rules.push(r);
        }
    }
    let worst = super::stream_worst(s);
    let verdict = if s.read_error.is_some() {
        "error"
    } else {
        match (fail_on, worst) {
            (Some(t), Some(w)) if w >= t => "fail",
            _ => "pass",
        }
    };
    Row {
        id,
        verdict,
        errors: s.counts.0,
        warnings: s.counts.1,
        infos: s.counts.2,
        dialect: s.dialect.map(|d| d.name()),
        ending: Some(s.ending.name()),
        provider_guess: s.provider.as_ref().map(|p| p.profile.clone()),
        answer_chars: s
            .answer
            .choices
            .get(&0)
            .map_or(0, |c| c.text.kept.chars().count() as u64),
        rules,
        read_error: s.read_error.clone(),
    }
}

/// Writes `rows` as JSON Lines.
///
/// # Errors
/// Only the writer's.
pub fn write_rows(rows: &[Row], out: &mut dyn Write) -> io::Result<()> {
    for r in rows {
        serde_json::to_writer(&mut *out, r)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

impl Render for Jsonl {
    fn render(&self, run: &Run, out: &mut dyn Write) -> io::Result<()> {
        for f in &run.files {
            write_rows(&rows(f, run.fail_on), out)?;
        }
        Ok(())
    }
}

/// JSON Lines written as the results come: each part's lines as it comes;
/// no closing line.
pub struct JsonlParts {
    /// The `--fail-on` threshold each line's verdict is judged by.
    pub fail_on: Option<Severity>,
}

impl super::Streaming for JsonlParts {
    fn part(
        &mut self,
        file: &FileResult,
        _first: bool,
        several: bool,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        write_rows(&rows_of(file, several, self.fail_on), out)
    }

    fn end(&mut self, _totals: &super::Totals, _out: &mut dyn Write) -> io::Result<()> {
        Ok(())
    }
}
