//! `sselint inspect`: every block of a stream in order (events, comments,
//! the undispatched tail) with offsets, times, kinds and findings, then the
//! reconstructed answer. The table keeps the first and the last rows of a
//! long stream, so memory does not grow with the capture; `--format jsonl`
//! streams one record a line, every event.

use super::parse_event_limit;
use super::{ColorChoice, InputArgs};
use anyhow::Context as _;
use clap::ValueEnum;
use sselint::capture;
use sselint::lint::Severity;
use sselint::pipeline;
use sselint::report::inspect::Recorder;
use std::io::{BufWriter, Write};
use std::process::ExitCode;

/// Show every event with its kind and findings, then the answer.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A file, `FILE.har#N` for entry N of a HAR, or `-` for stdin.
    #[arg(value_name = "INPUT")]
    input: String,
    /// `human` (the table, for people; `table` is another name for it),
    /// `jsonl` for one JSON record per line, `html` for a self-contained
    /// page (with -o, a file to open in a browser).
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Write the report to FILE (atomically; a FIFO or device is written
    /// through) instead of stdout; `-` is stdout; never the input.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<std::path::PathBuf>,
    /// Provider profile [default: sselint.toml's, else openai].
    #[arg(long, value_name = "NAME")]
    profile: Option<String>,
    /// The largest event read, in bytes [default: 16 MiB, or sselint.toml's
    /// max-event-bytes].
    #[arg(long, value_name = "BYTES", value_parser = parse_event_limit)]
    max_event_bytes: Option<usize>,
    /// Gaps between events longer than this are `stall` findings, shaded
    /// on the HTML timeline (as `check --stall-ms`).
    #[arg(long, default_value_t = 10_000, value_name = "MS")]
    stall_ms: u64,
    #[command(flatten)]
    input_args: InputArgs,
    /// Colour.
    #[arg(long, value_enum, default_value = "auto")]
    color: ColorChoice,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// The table, as `check`'s `human` is its terminal report.
    #[value(alias = "table")]
    Human,
    Jsonl,
    Html,
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    a.input_args.refuse_jsonl("inspect")?;
    if let Some(p) = &a.profile {
        super::profile_settings(p)?;
    }
    let cfg = match sselint::config::Config::find(&std::env::current_dir().unwrap_or_default()) {
        Some(p) => match sselint::config::Config::load(&p) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("sselint: error: bad configuration\n{}", e.message);
                return Ok(ExitCode::from(2));
            }
        },
        None => sselint::config::Config::empty(),
    };
    let mut settings = cfg.settings_for(&a.input, a.profile.as_deref(), &[], &[]);
    settings.dialect = a.input_args.dialect();
    settings.stall_ms = a.stall_ms;
    if let Some(n) = a.max_event_bytes {
        settings.max_event_bytes = n;
    }
    let cap = match capture::open(&a.input, &a.input_args.options()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("sselint: error: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let output = a.output.clone().filter(|p| p.as_os_str() != "-");
    if let Some(p) = &output {
        if let Some(msg) = super::output_is_input(p, std::slice::from_ref(&a.input), "-o ") {
            eprintln!("sselint: error: {msg}");
            return Ok(ExitCode::from(2));
        }
    }
    if a.format == Format::Html {
        let (file, logs) = sselint::streamlog::lint_capture(cap, &settings);
        let run = sselint::report::Run {
            files: vec![file],
            profile: settings.profile.name.clone(),
            suppressed: 0,
            fail_on: Some(Severity::Error),
        };
        let mut buf = Vec::new();
        sselint::report::Render::render(
            &sselint::report::html::Html {
                logs: &[logs],
                command: "inspect",
            },
            &run,
            &mut buf,
        )?;
        return super::write_report(output.as_deref(), &buf);
    }
    let color = a.color.enabled() && output.is_none();
    // With -o the report is written as it goes to a temporary file that
    // replaces the target whole once done (`output::Streamed`).
    let mut file = match output.as_deref().map(sselint::output::Streamed::create) {
        Some(Ok(f)) => Some(f),
        Some(Err(e)) => {
            let p = output.as_deref().unwrap_or(std::path::Path::new("-"));
            eprintln!("sselint: error: writing the report {}: {e}", p.display());
            return Ok(ExitCode::from(2));
        }
        None => None,
    };
    let mut stdout;
    let out: &mut dyn Write = match file.as_mut() {
        Some(f) => f,
        None => {
            stdout = BufWriter::new(std::io::stdout().lock());
            &mut stdout
        }
    };
    for stream in cap.streams {
        let label = stream.label.clone();
        let timing = stream.timing.clone();
        let jsonl = a.format == Format::Jsonl;
        let mut rec = Recorder::new(jsonl.then_some(&mut *out), timing, color);
        // A WebSocket's responses are streams of their own: the table is
        // the socket's whole timeline (sent and received), written with
        // the first; each other response gets its answer and findings.
        // Those come after the first's, which is written once the socket
        // is read: they wait in a scratch file as they come, not in memory.
        let mut first = None;
        let mut later: Option<sselint::output::Scratch> = None;
        let mut spill_error = None;
        pipeline::lint_streams_each(
            stream,
            &settings,
            &mut rec,
            pipeline::Extras {
                fields: false,
                summaries: true,
            },
            &mut |result| {
                if first.is_none() {
                    first = Some(result);
                    return;
                }
                if spill_error.is_some() {
                    return;
                }
                let written = (|| {
                    let spill = match &mut later {
                        Some(s) => s,
                        None => later.insert(sselint::output::Scratch::create("inspect")?),
                    };
                    let quiet = Recorder::new(None, None, color).finish()?;
                    quiet.write(&result.label, &result, jsonl, spill)
                })();
                if let Err(e) = written {
                    spill_error = Some(e);
                }
            },
        );
        let seen = rec.finish().context("writing the report")?;
        if let Some(e) = spill_error {
            return Err(e).context("writing the report");
        }
        if let Some(first) = first {
            let first_label = if first.label.starts_with(&label) {
                first.label.clone()
            } else {
                label.clone()
            };
            seen.write(&first_label, &first, jsonl, out)
                .context("writing the report")?;
        }
        if let Some(mut spill) = later {
            spill.copy_to(out).context("writing the report")?;
        }
    }
    out.flush().context("writing the report")?;
    if let (Some(f), Some(p)) = (file, output) {
        if let Err(e) = f.commit() {
            eprintln!("sselint: error: writing the report {}: {e}", p.display());
            return Ok(ExitCode::from(2));
        }
    }
    Ok(ExitCode::SUCCESS)
}
