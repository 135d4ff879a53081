//! `sselint minimize CAPTURE`: the smallest capture that still shows the
//! fault, written next to the input (or to `-o OUT`), atomically, with a
//! report of what was kept. The work is in `sselint::minimize`.

use super::{parse_event_limit, InputArgs};
use clap::ValueEnum;
use sselint::capture::{self, InputFormat};
use sselint::minimize::{self, Outcome, Pair, Progress};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const AFTER_HELP: &str = "\
It keeps, by default, every rule with a finding at warning or above, each at
least once and at the same severity, and adds no new warning or error. The
output is in the input's format (a raw body, a curl dump, a one-entry HAR with
the request only where a rule reads it), secrets redacted and, unless
--keep-text, the prompt and answer text scrubbed as `redact --scrub-text`
does but flat (every letter x, every digit 0; a letter mapping only where a
kept finding needs it, and the report says so). Minimizing the output again
gives the same bytes.

Examples:
  sselint minimize capture.sse                      writes capture.min.sse
  sselint minimize network.har --entry 3 -o bug.har one HAR entry
  sselint minimize dump.txt --rule missing-done     keep one rule's finding
  sselint minimize big.sse --max-steps 500 --format json

Exit codes: 0 written, 130 written after Ctrl-C (the best result so far),
2 usage or input error (nothing written).

--max-steps counts the candidates linted; the input, its redacted copy and
the output's final check are linted once each on top.";

/// Cut a capture down to the smallest one that still gives its findings.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// The capture (raw SSE body, curl dump or HAR file; `FILE.har#N` for
    /// entry N).
    #[arg(value_name = "CAPTURE")]
    input: PathBuf,
    /// Where to write it [default: CAPTURE.min.EXT next to the input];
    /// never the input itself, nor `-` (stdout has the report). A FIFO or
    /// device is written through, as is `/dev/stdout` redirected to a file
    /// (no --force; `>>` appends); with `/dev/stdout` the report goes to
    /// stderr.
    #[arg(short = 'o', long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Keep only these rules' findings (names or codes, comma-separated);
    /// may name an info finding. Default: every rule at warning or above.
    #[arg(long, value_delimiter = ',', value_name = "NAME")]
    rule: Vec<String>,
    /// Leave the prompt and answer text as it is (secrets are still
    /// redacted).
    #[arg(long)]
    keep_text: bool,
    /// Replace an existing output file.
    #[arg(long)]
    force: bool,
    /// The most candidates linted while minimizing (the re-lints of the
    /// report); the input, its redacted copy and the output's final check
    /// are linted once each on top and not counted. The best result so far
    /// is written when they run out.
    #[arg(long, value_name = "N", default_value_t = minimize::DEFAULT_MAX_STEPS)]
    max_steps: u64,
    /// Configuration file (default: sselint.toml found upward from the
    /// current directory); its severities and rules decide the findings
    /// kept.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Ignore any sselint.toml: keep the findings of the default rules.
    #[arg(long, conflicts_with = "config")]
    no_config: bool,
    /// Report format.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Provider profile [default: sselint.toml's, else openai].
    #[arg(long, value_name = "NAME")]
    profile: Option<String>,
    /// The largest event read, in bytes [default: 16 MiB].
    #[arg(long, value_name = "BYTES", value_parser = parse_event_limit)]
    max_event_bytes: Option<usize>,
    #[command(flatten)]
    input_args: InputArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Human,
    Json,
}

/// `dir/name.min.ext`: the input's extension, or the format's.
fn default_output(input: &Path, bytes: &[u8]) -> PathBuf {
    let ext = input
        .extension()
        .map(|e| e.to_string_lossy().into_owned())
        .unwrap_or_else(|| {
            match capture::detect(bytes) {
                InputFormat::Har => "har",
                InputFormat::Curl => "txt",
                InputFormat::Sse => "sse",
            }
            .to_string()
        });
    let stem = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "capture".to_string());
    input.with_file_name(format!("{stem}.min.{ext}"))
}

fn listing(m: &std::collections::BTreeMap<Pair, u64>) -> String {
    if m.is_empty() {
        return "(none)".to_string();
    }
    m.iter()
        .map(|((r, s), n)| format!("{r} ({s}) ×{n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `part` as a percentage of `whole` with two significant digits below
/// 1 % (`0.0077`, not `0.0`), one decimal above.
fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "100.0".to_string();
    }
    let p = part as f64 * 100.0 / whole as f64;
    if p >= 1.0 || p == 0.0 {
        format!("{p:.1}")
    } else {
        let decimals = (1.0 - p.log10().floor()) as usize;
        format!("{p:.decimals$}")
    }
}

fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub fn run(mut a: Args) -> anyhow::Result<ExitCode> {
    a.input_args.refuse_jsonl("minimize")?;
    let fail = |msg: String| {
        eprintln!("sselint: error: {msg}");
        Ok(ExitCode::from(2))
    };
    // `PATH#N`: entry N of a HAR, as --entry N.
    if let Some((file, n)) = a.input.to_str().and_then(capture::entry_spec) {
        if a.input_args.entry.is_some_and(|e| e != n) {
            return fail(format!(
                "{}: names entry {n}, and --entry names another: give one",
                a.input.display()
            ));
        }
        a.input_args.entry = Some(n);
        a.input = std::path::PathBuf::from(file);
    }
    // Usage errors first, before anything about the files.
    if a.rule.iter().any(|r| r.trim().is_empty()) {
        return fail(
            "--rule: an empty rule name; name one or more rules (`sselint rules` lists them), or leave --rule out to keep every rule at warning or above"
                .into(),
        );
    }
    let refs: Vec<&str> = a.rule.iter().map(String::as_str).collect();
    let rules = match sselint::config::resolve_rules(&refs) {
        Ok(r) => r,
        Err(e) => return fail(format!("--rule: {e}")),
    };
    let shown = a.input.display().to_string();
    if a.input.as_os_str() == "-" {
        return fail("minimize reads a file, not standard input; save the capture first".into());
    }
    if a.input.is_dir() {
        return fail(format!(
            "{shown}: is a directory; minimize takes one capture file (run it once per file)"
        ));
    }
    // Beside a device or FIFO there is no place for `CAPTURE.min.EXT`
    // (`/dev/null.min.sse`): the output needs a name.
    if a.output.is_none() && std::fs::metadata(&a.input).is_ok_and(|m| !m.is_file()) {
        return fail(format!(
            "{shown}: is not a regular file, so there is no place next to it for the output; name one with -o OUT"
        ));
    }
    // The capture is read as a stream (memory stays flat); here only its
    // head, for the output's name, and its size, for the progress bar. A
    // device or FIFO can be read once: it is held whole.
    let read_head = |p: &Path| -> std::io::Result<Vec<u8>> {
        let mut head = Vec::new();
        std::io::Read::read_to_end(
            &mut std::io::Read::take(std::fs::File::open(p)?, 64 * 1024),
            &mut head,
        )?;
        Ok(head)
    };
    let held = if std::fs::metadata(&a.input).is_ok_and(|m| m.is_file()) {
        None
    } else {
        match std::fs::read(&a.input) {
            Ok(b) => Some(b),
            Err(e) => return fail(capture::unreadable(&shown, &e).to_string()),
        }
    };
    let head = match &held {
        Some(b) => b[..b.len().min(64 * 1024)].to_vec(),
        None => match read_head(&a.input) {
            Ok(b) => b,
            Err(e) => return fail(capture::unreadable(&shown, &e).to_string()),
        },
    };
    let size = held.as_ref().map_or_else(
        || std::fs::metadata(&a.input).map_or(0, |m| m.len()),
        |b| b.len() as u64,
    );
    if a.output.as_deref().is_some_and(sselint::output::is_stdout) {
        return fail(
            "-o -: minimize writes a capture file and prints its report on stdout; give a file name (or -o /dev/stdout: the report then goes to stderr)"
                .into(),
        );
    }
    let out = a
        .output
        .clone()
        .unwrap_or_else(|| default_output(&a.input, &head));
    // Only a regular file is replaced; a device or FIFO is written through.
    let regular = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.is_file());
    let same =
        out.exists() && std::fs::canonicalize(&a.input).ok() == std::fs::canonicalize(&out).ok();
    if same {
        return fail(format!(
            "{}: the output must not be the input",
            out.display()
        ));
    }
    // `/dev/stdout` redirected to a file is written through the
    // descriptor, as a pipe is: no --force, and `>>` appends.
    let through = matches!(
        sselint::output::plan(&out),
        Ok(sselint::output::Plan::Through(_))
    );
    if regular(&out) && !through && !a.force {
        return fail(format!(
            "{} already exists; use --force to replace it",
            out.display()
        ));
    }
    // Settings as `check` has them: sselint.toml, then the flags.
    if let Some(p) = &a.profile {
        super::profile_settings(p)?;
    }
    let cfg_path = if a.no_config {
        None
    } else {
        a.config
            .clone()
            .or_else(|| sselint::config::Config::find(&std::env::current_dir().unwrap_or_default()))
    };
    let cfg = match &cfg_path {
        Some(p) => match sselint::config::Config::load(p) {
            Ok(c) => c,
            Err(e) => return fail(format!("bad configuration\n{}", e.message)),
        },
        None => sselint::config::Config::empty(),
    };
    let mut settings = cfg.settings_for(&shown, a.profile.as_deref(), &[], &[]);
    settings.dialect = a.input_args.dialect();
    if let Some(n) = a.max_event_bytes {
        settings.max_event_bytes = n;
    }
    let opts = minimize::Options {
        rules,
        keep_text: a.keep_text,
        max_steps: a.max_steps,
        settings,
        capture: a.input_args.options(),
    };
    let stop = sselint::live::interrupted();
    let bar = (std::io::stderr().is_terminal() && size >= 256 * 1024).then(|| {
        let pb = indicatif::ProgressBar::new(a.max_steps);
        pb.set_style(
            indicatif::ProgressStyle::with_template(
                "minimizing [{bar:30}] {pos}/{len} re-lints · {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        pb
    });
    let mut on_progress = |p: &Progress| {
        if let Some(pb) = &bar {
            pb.set_position(p.relints);
            pb.set_message(format!(
                "{}: trying {} blocks, {} bytes",
                p.pass,
                p.units,
                grouped(p.bytes as u64)
            ));
        }
    };
    let started = std::time::Instant::now();
    let input = match &held {
        Some(b) => minimize::Input::Bytes(b),
        None => minimize::Input::File(&a.input),
    };
    let result = minimize::minimize_input(&shown, input, &opts, &stop, &mut on_progress);
    if let Some(pb) = &bar {
        pb.finish_and_clear();
    }
    let o = match result {
        Ok(o) => o,
        Err(e) => return fail(e.to_string()),
    };
    if let Err(e) = sselint::output::write_atomic(&out, &o.output) {
        return fail(format!(
            "writing {}: {}",
            out.display(),
            capture::io_message(&e)
        ));
    }
    let on_stdout = same_as_stdout(&out);
    // Only a file written here can be checked by its name; what went to
    // stdout, a pipe or a device is saved first.
    let check = if on_stdout || !regular(&out) {
        format!(
            "save it, then {}",
            check_command(&a, "FILE", cfg_path.as_deref())
        )
    } else {
        check_command(&a, &quoted(&out.display().to_string()), cfg_path.as_deref())
    };
    let config = cfg_path.as_ref().map_or_else(
        || "none (default rules and severities)".to_string(),
        |p| p.display().to_string(),
    );
    report(
        &a,
        &shown,
        &out,
        &o,
        &check,
        &config,
        started.elapsed(),
        on_stdout,
    );
    if o.stopped == Some(minimize::Stopped::Interrupted) {
        // Written, but cut short by Ctrl-C: 128 + SIGINT, as shells do.
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}

/// `sselint check FILE` with every option the kept findings depend on, as
/// given to minimize: the configuration, profile, dialect, event and
/// decoded-size limits, and input format. (`--entry` and `--url-match`
/// are not repeated: the output holds the one stream picked.)
fn check_command(a: &Args, file: &str, cfg_path: Option<&Path>) -> String {
    let mut c = format!("sselint check {file}");
    match cfg_path {
        Some(p) if a.config.is_some() => {
            c.push_str(&format!(" --config {}", quoted(&p.display().to_string())));
        }
        None if a.no_config => c.push_str(" --no-config"),
        _ => {}
    }
    if let Some(p) = &a.profile {
        c.push_str(&format!(" --profile {}", quoted(p)));
    }
    if let Some(d) = a.input_args.dialect() {
        c.push_str(&format!(" --dialect {}", d.name()));
    }
    if let Some(n) = a.max_event_bytes {
        c.push_str(&format!(" --max-event-bytes {n}"));
    }
    if let Some(n) = a.input_args.max_decoded_bytes {
        c.push_str(&format!(" --max-decoded-bytes {n}"));
    }
    if let Some(f) = a.input_args.options().input_format {
        let name = match f {
            InputFormat::Sse => "sse",
            InputFormat::Curl => "curl",
            InputFormat::Har => "har",
        };
        c.push_str(&format!(" --input-format {name}"));
    }
    c
}

/// `text` as one shell word: as it is when it holds only safe characters,
/// else in single quotes.
fn quoted(text: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c);
    if !text.is_empty() && text.chars().all(safe) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// Whether `out` is this process's standard output (`/dev/stdout`,
/// `/dev/fd/1`, or the file or pipe stdout goes to).
fn same_as_stdout(out: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        let id = |p: &Path| std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
        if let (Some(a), Some(b)) = (id(out), id(Path::new("/dev/stdout"))) {
            return a == b;
        }
    }
    out == Path::new("/dev/stdout") || out == Path::new("/dev/fd/1")
}

#[allow(clippy::too_many_arguments)]
fn report(
    a: &Args,
    input: &str,
    out: &Path,
    o: &Outcome,
    check: &str,
    config: &str,
    took: std::time::Duration,
    on_stdout: bool,
) {
    let stopped = o.stopped.map(|s| match s {
        minimize::Stopped::Budget => format!(
            "stopped after --max-steps {} re-lints: this is the best result so far (raise --max-steps to go on)",
            a.max_steps
        ),
        minimize::Stopped::Interrupted => {
            "interrupted (Ctrl-C): this is the best result so far".to_string()
        }
    });
    if a.format == Format::Json {
        let list = |m: &std::collections::BTreeMap<Pair, u64>| {
            m.iter()
                .map(|((r, s), n)| serde_json::json!({"rule": r, "severity": s, "count": n}))
                .collect::<Vec<_>>()
        };
        let doc = serde_json::json!({
            "input": input,
            "output": out.display().to_string(),
            "stream": o.label,
            "format": o.format,
            "dialect": o.dialect.map(|d| d.name()),
            "kept": o.chosen.iter().map(|(r, s)| serde_json::json!({"rule": r, "severity": s})).collect::<Vec<_>>(),
            "before": {"events": o.size_before.events, "bytes": o.size_before.bytes, "findings": list(&o.before)},
            "after": {"events": o.size_after.events, "bytes": o.size_after.bytes, "findings": list(&o.after)},
            "relints": o.relints,
            "seconds": (took.as_secs_f64() * 1000.0).round() / 1000.0,
            "stopped": o.stopped,
            "notes": o.notes.iter().cloned().chain(stopped).collect::<Vec<_>>(),
            "config": config,
            "check": check,
        });
        // `version` and `tool` first, as every JSON report starts
        // (serde_json's own maps are sorted).
        #[derive(serde::Serialize)]
        struct Report<'a> {
            version: u32,
            tool: sselint::report::Tool,
            #[serde(flatten)]
            rest: &'a serde_json::Value,
        }
        let doc = Report {
            version: 1,
            tool: sselint::report::TOOL,
            rest: &doc,
        };
        let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        text.push('\n');
        print_report(&text, on_stdout);
        return;
    }
    use std::fmt::Write as _;
    let mut text = String::new();
    let pct = percent(o.size_after.bytes, o.size_before.bytes);
    let dialect = o.dialect.map_or("no known dialect", |d| d.name());
    let _ = writeln!(
        text,
        "minimized {input} → {} ({}, {dialect})",
        out.display(),
        o.format
    );
    let _ = writeln!(
        text,
        "  events: {} → {}   bytes: {} → {} ({pct} %)",
        grouped(o.size_before.events),
        grouped(o.size_after.events),
        grouped(o.size_before.bytes),
        grouped(o.size_after.bytes)
    );
    let kept: Vec<String> = o.chosen.iter().map(|(r, s)| format!("{r} ({s})")).collect();
    let _ = writeln!(text, "  kept:   {}", kept.join(", "));
    let _ = writeln!(text, "  config: {config}");
    let _ = writeln!(text, "  before: {}", listing(&o.before));
    let _ = writeln!(text, "  after:  {}", listing(&o.after));
    let _ = writeln!(
        text,
        "  {} re-lints in {:.2} s",
        grouped(o.relints),
        took.as_secs_f64()
    );
    for n in o.notes.iter().chain(stopped.as_ref()) {
        let _ = writeln!(text, "  note: {n}");
    }
    let _ = writeln!(text, "check it: {check}");
    print_report(&text, on_stdout);
}

/// Prints the report on stdout, or on stderr when the capture went to
/// stdout; a closed pipe (`| head -1`) is not an error, and a failed write
/// is said on stderr.
fn print_report(text: &str, on_stderr: bool) {
    if on_stderr {
        eprint!("{text}");
        return;
    }
    if let Err(e) = super::write_report(None, text.as_bytes()) {
        eprintln!("sselint: error: {e:#}");
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn small_percentages_keep_two_significant_digits() {
        // A fresh-user trial saw 3,609,273 → 278 shown as "0.0 %".
        assert_eq!(super::percent(278, 3_609_273), "0.0077");
        assert_eq!(super::percent(356, 2122), "16.8");
        assert_eq!(super::percent(5, 1000), "0.50");
        assert_eq!(super::percent(0, 10), "0.0");
    }
}
