//! `sselint redact IN -o OUT`: a shareable copy of a capture.

use anyhow::Context as _;
use sselint::capture::{self, InputFormat};
use sselint::redact::{self, Scrubber};
use std::path::PathBuf;
use std::process::ExitCode;

/// Write a shareable copy of a capture: secrets removed and, with
/// --scrub-text, prompt and answer text replaced by placeholders of the same
/// length (framing, JSON shapes and findings stay).
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  sselint redact network.har -o shareable.har
  sselint redact network.har -o shareable.har --scrub-text
  sselint redact capture.sse -o shareable.sse --scrub-text")]
pub struct Args {
    /// The capture (HAR, raw SSE body or curl dump).
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// Where to write the copy (never the input itself); `-` is stdout.
    #[arg(short = 'o', long, value_name = "OUT")]
    output: PathBuf,
    /// Also replace the prompt and answer text (content, refusal,
    /// reasoning, strings in tool arguments, request messages).
    #[arg(long)]
    scrub_text: bool,
    /// Replace an existing output file.
    #[arg(long)]
    force: bool,
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let fail = |msg: String| {
        eprintln!("sselint: error: {msg}");
        Ok(ExitCode::from(2))
    };
    let to_stdout = sselint::output::is_stdout(&a.output);
    let same = !to_stdout
        && std::fs::canonicalize(&a.input).ok() == std::fs::canonicalize(&a.output).ok()
        && a.output.exists();
    if same {
        return fail(format!(
            "{}: the output must not be the input",
            a.output.display()
        ));
    }
    if !to_stdout && a.output.exists() && !a.force {
        return fail(format!(
            "{} already exists; use --force to replace it",
            a.output.display()
        ));
    }
    let bytes = match std::fs::read(&a.input) {
        Ok(b) => b,
        Err(e) => {
            return fail(format!(
                "{}: {}",
                a.input.display(),
                capture::io_message(&e)
            ))
        }
    };
    {
        // A trace dump holds every byte twice (hex and ASCII columns), so
        // it cannot be redacted line by line; scrubbing rewrites `data:`
        // lines in place, which a compressed body does not have.
        let opts = capture::Options::default();
        if let Ok(cap) =
            capture::from_reader("in", Box::new(std::io::Cursor::new(bytes.clone())), &opts)
        {
            if cap.detail.contains("trace") {
                return fail(format!(
                    "{}: redact cannot rewrite a curl trace dump (its hex column holds every byte); capture with `curl -N`, `curl -i` or as HAR",
                    a.input.display()
                ));
            }
            let compressed = cap
                .streams
                .iter()
                .any(|s| s.notes.iter().any(|n| n.contains("decoded from")));
            if a.scrub_text && compressed {
                return fail(format!(
                    "{}: --scrub-text cannot rewrite a compressed body; capture uncompressed, or redact without --scrub-text",
                    a.input.display()
                ));
            }
        }
    }
    let mut scrubber = a.scrub_text.then(Scrubber::random);
    let out = match capture::detect(&bytes) {
        InputFormat::Har => {
            let mut doc: serde_json::Value = match serde_json::from_slice(&bytes) {
                Ok(d) => d,
                Err(e) => {
                    return fail(format!(
                        "{}: not a HAR file: the JSON does not parse ({e})",
                        a.input.display()
                    ))
                }
            };
            if let Err(e) = redact::har(&mut doc, scrubber.as_mut()) {
                return fail(format!("{}: {e}", a.input.display()));
            }
            let mut v = serde_json::to_vec_pretty(&doc)?;
            v.push(b'\n');
            v
        }
        InputFormat::Sse | InputFormat::Curl => redact::raw(&bytes, scrubber.as_mut()),
    };
    if to_stdout {
        return super::write_report(None, &out);
    }
    sselint::output::write_atomic(&a.output, &out)
        .with_context(|| format!("writing {}", a.output.display()))?;
    let note = format!(
        "wrote {} (secrets redacted{})\n",
        a.output.display(),
        if a.scrub_text { ", text scrubbed" } else { "" }
    );
    super::write_report(None, note.as_bytes())
}
