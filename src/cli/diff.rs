//! `sselint diff A B`: compare two streams point by point.

use super::ColorChoice;
use anyhow::Context as _;
use clap::ValueEnum;
use sselint::diff::{self, Options};
use std::io::{BufWriter, Write};
use std::process::ExitCode;

const AFTER_HELP: &str = "\
Examples:
  sselint diff openai.sse vllm.sse
  sselint diff chrome.har#3 other.har#0 --ignore-text
  sselint diff a.sse b.sse --format json
  sselint diff a.sse b.sse --format html -o diff.html
  sselint diff chat.sse claude.sse --dialect-b messages

Two streams of different dialects are compared on what both have: finish
reasons mapped to one vocabulary, usage with cached tokens counted in the input,
one fault under each dialect's name as one finding (missing-done on Chat is
messages-stop-missing on Messages); a rule of one dialect alone counts only when
A has no finding of its own dialect alone at that level.

Exit codes: 0 compatible (same ending and finish reasons, no finding on B that A
lacks at or above --fail-on, same answer unless --ignore-text: the same text and
the same tool calls, by name and with arguments equal as JSON, a custom tool's
input as text), 1 not, 2 errors.";

/// Compare two streams: answer, tool calls, shape, fields, findings, timing.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// The reference stream (`PATH`, or `PATH#N` for HAR entry N).
    #[arg(value_name = "A")]
    a: String,
    /// The stream compared with it.
    #[arg(value_name = "B")]
    b: String,
    /// Compare shape and fields only (for different prompts): neither the
    /// text nor tool-call arguments count against compatibility.
    #[arg(long)]
    ignore_text: bool,
    /// `human`, `json` or `html` (one self-contained page: the word diff,
    /// tool calls side by side, the rows, both timelines on one axis).
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Write the report to this file (atomically; a FIFO or device is
    /// written through) instead of stdout; `-` is stdout; never an input.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<std::path::PathBuf>,
    /// A finding on B that A lacks makes the two incompatible from this
    /// severity on.
    #[arg(long, value_enum, default_value = "error")]
    fail_on: sselint::lint::FailOn,
    /// Provider profile for both sides.
    #[arg(long, default_value = "openai", value_name = "NAME")]
    profile: String,
    /// Read both streams as this dialect: `chat` (OpenAI Chat Completions),
    /// `responses` (OpenAI Responses), `messages` (Anthropic Messages),
    /// `gemini` (Google Gemini), `ollama` (Ollama's native API),
    /// `bedrock-converse` (Amazon Bedrock ConverseStream) or
    /// `bedrock-invoke` (Bedrock InvokeModelWithResponseStream), or
    /// `realtime` (OpenAI Realtime, over a WebSocket); `auto`
    /// tells each side's dialect from its request path and events.
    #[arg(long, value_enum, default_value = "auto", value_name = "DIALECT")]
    dialect: super::DialectArg,
    /// Read A as this dialect (overrides --dialect for A).
    #[arg(long, value_enum, value_name = "DIALECT")]
    dialect_a: Option<super::DialectArg>,
    /// Read B as this dialect (overrides --dialect for B).
    #[arg(long, value_enum, value_name = "DIALECT")]
    dialect_b: Option<super::DialectArg>,
    /// Colour.
    #[arg(long, value_enum, default_value = "auto")]
    color: ColorChoice,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Human,
    Json,
    Html,
}

/// The file of a side's spec (`PATH#N` names `PATH`).
fn spec_path(spec: &str) -> &str {
    sselint::capture::entry_spec(spec).map_or(spec, |(p, _)| p)
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    if a.a == "-" && a.b == "-" {
        eprintln!("sselint: error: standard input is named twice; it can be read only once");
        return Ok(ExitCode::from(2));
    }
    if let Some(p) = &a.output {
        let inputs = [spec_path(&a.a).to_string(), spec_path(&a.b).to_string()];
        if let Some(msg) = super::output_is_input(p, &inputs, "-o ") {
            eprintln!("sselint: error: {msg}");
            return Ok(ExitCode::from(2));
        }
    }
    let html = a.format == Format::Html;
    let settings = super::profile_settings(&a.profile)?;
    // A side picks a HAR entry as `PATH#N`; diff has no --entry.
    let opts = sselint::capture::Options {
        entry_by_spec_only: true,
        ..Default::default()
    };
    let read = |spec: &str, dialect: Option<super::DialectArg>| {
        let mut settings = settings.clone();
        settings.dialect = dialect.unwrap_or(a.dialect).dialect();
        diff::read_side_with(spec, &opts, &settings, html)
    };
    let (sa, sb) = match (read(&a.a, a.dialect_a), read(&a.b, a.dialect_b)) {
        (Ok(x), Ok(y)) => (x, y),
        (x, y) => {
            for e in [x.err(), y.err()].into_iter().flatten() {
                eprintln!("sselint: error: {e}");
            }
            return Ok(ExitCode::from(2));
        }
    };
    let cmp = diff::compare(
        &sa,
        &sb,
        Options {
            ignore_text: a.ignore_text,
            fail_on: a.fail_on.threshold(),
        },
    );
    let verdict = if cmp.compatible {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    if let Some(p) = a
        .output
        .as_deref()
        .filter(|p| !sselint::output::is_stdout(p))
    {
        let mut buf = Vec::new();
        match a.format {
            // A file gets no colour.
            Format::Human => sselint::report::diff::human(&sa, &sb, &cmp, false, &mut buf),
            Format::Json => sselint::report::diff::json(&sa, &sb, &cmp, &mut buf),
            Format::Html => sselint::report::html::diff::render(&sa, &sb, &cmp, &mut buf),
        }
        .context("rendering the report")?;
        let code = super::write_report(Some(p), &buf)?;
        return Ok(if code == ExitCode::SUCCESS {
            verdict
        } else {
            code
        });
    }
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    match a.format {
        Format::Human => sselint::report::diff::human(&sa, &sb, &cmp, a.color.enabled(), &mut out),
        Format::Json => sselint::report::diff::json(&sa, &sb, &cmp, &mut out),
        Format::Html => sselint::report::html::diff::render(&sa, &sb, &cmp, &mut out),
    }
    .context("writing the report")?;
    out.flush().context("writing the report")?;
    Ok(if cmp.compatible {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
