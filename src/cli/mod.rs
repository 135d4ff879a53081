//! Command-line definitions (clap) and the subcommands, one file each.
//! This layer prints; the library below it never does.

/// `eprintln!` that never panics: a closed stderr (`sselint check x 2>&1 |
/// head -0`) loses the message, as a closed stdout loses the report,
/// instead of aborting with exit 101.
macro_rules! eprintln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// `eprint!` that never panics (see [`eprintln!`]).
macro_rules! eprint {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

mod batch;
mod check;
mod diff;
mod inspect;
mod live;
mod minimize;
mod probe;
mod proxy;
mod redact;
mod rules;
mod shell;

use anyhow::Context as _;
use clap::{Parser, Subcommand, ValueEnum};
use std::io::IsTerminal;
use std::process::ExitCode;

const AFTER_HELP: &str = "\
Examples:
  sselint check capture.sse                 lint a raw SSE body (curl -N URL > capture.sse)
  sselint check network.har --entry 3       lint one entry of a browser HAR export
  sselint check captures/ --format json     lint every capture in a directory, JSON report
  sselint inspect capture.sse               every event with its kind and findings
  sselint rule cut-off                      explain a rule

Exit codes: 0 nothing at or above --fail-on, 1 findings at or above it, 2 usage or input error.";

/// A stream inspector and conformance linter for LLM streams (server-sent
/// events): OpenAI Chat Completions, OpenAI Responses and Anthropic
/// Messages.
#[derive(Debug, Parser)]
#[command(name = "sselint", version, about, after_help = AFTER_HELP)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Lint captures: raw SSE bodies, curl dumps, HAR files, directories.
    Check(Box<check::Args>),
    /// Show every event of a stream with its kind and findings, then the
    /// reconstructed answer.
    Inspect(inspect::Args),
    /// List the rule catalogue.
    Rules(rules::ListArgs),
    /// Explain one rule (by name or code) with its examples.
    Rule(rules::RuleArgs),
    /// Compare two streams point by point (answer, tool calls, shape,
    /// fields, findings, timing); two dialects on what both have.
    Diff(diff::Args),
    /// Record a live stream to HAR (per-read timing, secrets redacted),
    /// linting it as it arrives.
    Record(live::RecordArgs),
    /// Serve a capture at its dialect's endpoint (/v1/chat/completions,
    /// /v1/responses, /v1/messages, a Gemini model's
    /// :streamGenerateContent, Ollama's /api/chat or Bedrock's
    /// /model/ID/converse-stream), with fault injection (delays, split
    /// writes, keep-alives, a dropped connection, a bad frame CRC).
    Replay(live::ReplayArgs),
    /// Send a set of streaming scenarios (plain, usage, length, tool, n: 2,
    /// an invalid request, a client disconnect, …) to a live endpoint, save
    /// and lint each capture with its request, and print a report card.
    Probe(Box<probe::Args>),
    /// Forward an application's LLM requests to their upstreams, byte for
    /// byte, and lint every stream as it passes; with `-- CMD`, run the
    /// command through it and gate on the streams it made.
    Proxy(Box<proxy::Args>),
    /// Write a shareable copy of a capture: secrets removed, and with
    /// --scrub-text the prompt and answer text replaced.
    Redact(redact::Args),
    /// Cut a capture down to the smallest one that still gives its
    /// findings (events, fields inside them, headers), redacted.
    Minimize(minimize::Args),
    /// Write a commented sselint.toml to start from.
    Init(check::InitArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish,
    /// powershell).
    Completions(shell::CompletionsArgs),
    /// Print the man page (roff, section 1).
    Man(shell::ManArgs),
}

/// When to colour output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ColorChoice {
    /// When stdout is a terminal, unless NO_COLOR is set or TERM=dumb.
    #[default]
    Auto,
    /// Always (also CLICOLOR_FORCE=1).
    Always,
    /// Never.
    Never,
}

impl ColorChoice {
    /// Resolves `auto` against the environment and stdout.
    pub fn enabled(self) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) {
                    return false;
                }
                if std::env::var_os("CLICOLOR_FORCE").is_some_and(|v| v != "0") {
                    return true;
                }
                std::env::var("TERM").map_or(true, |t| t != "dumb")
                    && std::io::stdout().is_terminal()
            }
        }
    }
}

/// Options shared by the commands that read captures.
#[derive(Debug, clap::Args, Clone)]
pub struct InputArgs {
    /// Input format; detected from the first bytes by default. `jsonl`
    /// (check only): a gateway log, one JSON record per line with `id`,
    /// `status`, `headers`, `path` and `body` (or `body_base64`).
    #[arg(long, value_enum, default_value = "auto")]
    input_format: InputFormatArg,
    /// HAR: lint only entry N (0-based index in log.entries).
    #[arg(long, value_name = "N")]
    entry: Option<usize>,
    /// HAR: lint only entries whose URL contains TEXT.
    #[arg(long, value_name = "TEXT")]
    url_match: Option<String>,
    /// The largest size a gzip/deflate/br body may decode to, in bytes
    /// [default: 512 MiB].
    #[arg(long, value_name = "BYTES")]
    max_decoded_bytes: Option<u64>,
    /// The stream format: told from the request path (HAR, curl -v,
    /// record) and the events by default; `chat` (Chat Completions),
    /// `responses` (OpenAI Responses), `messages` (Anthropic Messages),
    /// `gemini` (Google Gemini's streamGenerateContent), `ollama`
    /// (Ollama's native API, NDJSON), `bedrock-converse` (Amazon
    /// Bedrock's ConverseStream, AWS event-stream frames),
    /// `bedrock-invoke` (Bedrock's InvokeModelWithResponseStream: the
    /// model's own events, Claude's, Nova's, Titan's, Llama's or
    /// Mistral's, in base64 chunks) or `realtime` (OpenAI's Realtime API,
    /// a WebSocket) reads every stream as that one.
    #[arg(long, value_enum, default_value = "auto")]
    dialect: DialectArg,
}

/// `--dialect`: `auto`, or one of the dialects the registry lists
/// (`sselint::dialect::ALL`, by name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DialectArg(Option<sselint::dialect::Dialect>);

impl DialectArg {
    /// `auto`: told from the request path and the events.
    pub const AUTO: DialectArg = DialectArg(None);
}

impl ValueEnum for DialectArg {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: std::sync::OnceLock<Vec<DialectArg>> = std::sync::OnceLock::new();
        ALL.get_or_init(|| {
            std::iter::once(DialectArg::AUTO)
                .chain(sselint::dialect::ALL.iter().map(|d| DialectArg(Some(*d))))
                .collect()
        })
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(
            self.0.map_or("auto", sselint::dialect::Dialect::name),
        ))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum InputFormatArg {
    Auto,
    Sse,
    Curl,
    Har,
    Jsonl,
}

impl InputArgs {
    /// Whether the inputs are JSON Lines logs (`--input-format jsonl`).
    fn is_jsonl(&self) -> bool {
        self.input_format == InputFormatArg::Jsonl
    }

    /// Refuses `--input-format jsonl` for a command that reads one capture.
    fn refuse_jsonl(&self, command: &str) -> anyhow::Result<()> {
        if self.is_jsonl() {
            anyhow::bail!(
                "--input-format jsonl reads a log of many records, which only `sselint check` takes; {command} reads one capture (write the record's body to a file)"
            );
        }
        Ok(())
    }

    fn options(&self) -> sselint::capture::Options {
        use sselint::capture::InputFormat;
        sselint::capture::Options {
            input_format: match self.input_format {
                // A record's body is read as a raw body.
                InputFormatArg::Auto | InputFormatArg::Jsonl => None,
                InputFormatArg::Sse => Some(InputFormat::Sse),
                InputFormatArg::Curl => Some(InputFormat::Curl),
                InputFormatArg::Har => Some(InputFormat::Har),
            },
            entry: self.entry,
            url_match: self.url_match.clone(),
            max_decoded_bytes: self.max_decoded_bytes,
            har_positions: false,
            entry_by_spec_only: false,
        }
    }

    /// `--dialect`, unless `auto`.
    fn dialect(&self) -> Option<sselint::dialect::Dialect> {
        self.dialect.dialect()
    }
}

impl DialectArg {
    /// The dialect, unless `auto`.
    pub fn dialect(self) -> Option<sselint::dialect::Dialect> {
        self.0
    }
}

/// Parses the command line and runs the command.
///
/// # Errors
/// Usage and I/O errors; the caller prints them and exits 2.
pub fn run() -> anyhow::Result<ExitCode> {
    run_from(std::env::args_os())
}

/// [`run`] with these arguments (the first is the program's name): the
/// Python module runs the command so (`sselint._native.main`).
///
/// # Errors
/// As [`run`].
pub fn run_from<I, T>(args: I) -> anyhow::Result<ExitCode>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            e.print()?;
            return Ok(ExitCode::from(code));
        }
    };
    // A binary built from a checkout without rules/ has nothing to lint
    // with: say so (exit 2) rather than print an empty catalogue or panic.
    if let Err(e) = sselint::lint::check_embedded() {
        anyhow::bail!(e);
    }
    match cli.command {
        Command::Check(a) => check::run(*a),
        Command::Inspect(a) => inspect::run(a),
        Command::Rules(a) => rules::list(a),
        Command::Rule(a) => rules::explain(a),
        Command::Init(a) => check::init(a),
        Command::Diff(a) => diff::run(a),
        Command::Record(a) => live::record(a),
        Command::Replay(a) => live::replay(a),
        Command::Probe(a) => probe::run(*a),
        Command::Proxy(a) => proxy::run(*a),
        Command::Redact(a) => redact::run(a),
        Command::Minimize(a) => minimize::run(a),
        Command::Completions(a) => shell::completions(a),
        Command::Man(a) => shell::man(a),
    }
}

/// `--max-event-bytes`: at least 64 bytes (smaller drops every line of an
/// ordinary stream).
///
/// # Errors
/// Not a number, or below 64.
pub fn parse_event_limit(s: &str) -> Result<usize, String> {
    let n: usize = s
        .parse()
        .map_err(|_| format!("{s:?} is not a number of bytes"))?;
    if n < 64 {
        return Err(format!(
            "{n} bytes is too small for any event; use at least 64 (the default is 16 MiB)"
        ));
    }
    Ok(n)
}

/// Settings for commands without a config file (`inspect`).
pub fn profile_settings(profile_name: &str) -> anyhow::Result<sselint::lint::Settings> {
    use sselint::lint::{profile, Settings};
    let Some(p) = profile::profile(profile_name) else {
        let names: Vec<&str> = profile::profiles()
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        anyhow::bail!(
            "unknown profile {profile_name:?}; known profiles: {}",
            names.join(", ")
        );
    };
    Ok(Settings {
        profile: p,
        ..Settings::default()
    })
}

/// Why `output` must not be written: it is one of `inputs` (the same file,
/// through any path, or the HAR of a `PATH#N` input), so writing it would
/// destroy the capture. `flag` is
/// how the user named it (`-o`, `--report html=`, `--write-baseline`).
pub fn output_is_input(output: &std::path::Path, inputs: &[String], flag: &str) -> Option<String> {
    if sselint::output::is_stdout(output) {
        return None;
    }
    let out = std::fs::canonicalize(output).ok()?;
    inputs
        .iter()
        .filter(|i| i.as_str() != "-")
        .find(|i| {
            // `capture.har#3` reads the file `capture.har`.
            let file = sselint::capture::entry_spec(i).map_or(i.as_str(), |(f, _)| f);
            std::fs::canonicalize(file).is_ok_and(|p| p == out)
        })
        .map(|i| {
            format!(
                "{flag}{} is the input {i}; writing it would overwrite the capture: choose another file",
                output.display()
            )
        })
}

/// Writes a report to `path` atomically (see [`sselint::output`]), or to
/// stdout (no path, or `-`); a write error is exit 2, a closed pipe is not
/// an error.
pub fn write_report(path: Option<&std::path::Path>, bytes: &[u8]) -> anyhow::Result<ExitCode> {
    use std::io::Write as _;
    match path.filter(|p| !sselint::output::is_stdout(p)) {
        Some(p) => {
            if let Err(e) = sselint::output::write_atomic(p, bytes) {
                eprintln!("sselint: error: writing the report {}: {e}", p.display());
                return Ok(ExitCode::from(2));
            }
        }
        None => {
            let mut out = std::io::stdout().lock();
            match out.write_all(bytes).and_then(|()| out.flush()) {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                Err(e) => return Err(e).context("writing the report"),
                Ok(()) => {}
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
