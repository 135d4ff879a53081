//! `sselint check`: lint inputs (in parallel, reported in input order) and
//! report in one or more formats.

use super::batch::Progress;
use super::parse_event_limit;
use super::{ColorChoice, InputArgs};
use anyhow::{bail, Context as _};
use clap::ValueEnum;
use sselint::baseline::Baseline;
use sselint::config::{self, Config};
use sselint::lint::{verdict, FailOn, Settings};
use sselint::pipeline::{self, FileResult};
use sselint::report::html::Html;
use sselint::report::{
    github::Github, human::Human, json::Json, jsonl::Jsonl, junit::Junit, sarif::Sarif, Render,
    Run, Streaming, Totals,
};
use sselint::streamlog::StreamLog;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

const AFTER_HELP: &str = "\
Examples:
  sselint check capture.sse
  sselint check network.har --url-match /chat/completions
  sselint check captures/ --format sarif --output sselint.sarif --fail-on warning
  sselint check captures/ --report junit=junit.xml --report sarif=sselint.sarif
  sselint check captures/ --write-baseline sselint-baseline.json
  sselint check captures/ --baseline sselint-baseline.json

Settings come from sselint.toml (found upward from the working directory, or
--config FILE); command-line flags win. `sselint init` writes a starting file.";

/// Lint captures and report what a strict client would trip over.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// Files, directories (every capture inside, recursively), globs, `-`
    /// for stdin, or `FILE.har#N` for entry N of a HAR.
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<String>,
    /// Output format on stdout (or --output).
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Write the report to FILE (atomically; a FIFO or device is written
    /// through) instead of stdout; `-` is stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    /// Also write FORMAT to FILE (repeatable), e.g. `--report sarif=out.sarif`;
    /// the terminal still gets the main report (so FILE cannot be `-`).
    #[arg(long = "report", value_name = "FORMAT=FILE")]
    reports: Vec<String>,
    /// Provider profile (`sselint rules --profiles` lists them); default
    /// from sselint.toml, else `openai`.
    #[arg(long, value_name = "NAME")]
    profile: Option<String>,
    /// Run only these rules (names, codes or groups, comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    select: Vec<String>,
    /// Skip these rules (names, codes or groups, comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    ignore: Vec<String>,
    /// Exit 1 when a finding reaches this severity [default: error, or
    /// sselint.toml's fail-on].
    #[arg(long, value_enum)]
    fail_on: Option<FailOn>,
    /// Configuration file (default: sselint.toml found upward).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Ignore any sselint.toml.
    #[arg(long, conflicts_with = "config")]
    no_config: bool,
    /// Findings recorded in FILE do not count toward --fail-on.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Record the current findings in FILE (atomically) as a baseline.
    #[arg(long, value_name = "FILE")]
    write_baseline: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j', value_name = "N")]
    jobs: Option<usize>,
    #[command(flatten)]
    input: InputArgs,
    /// Gaps between events longer than this are `stall` findings.
    #[arg(long, default_value_t = 10_000, value_name = "MS")]
    stall_ms: u64,
    /// The largest event read, in bytes [default: 16 MiB, or sselint.toml's
    /// max-event-bytes].
    #[arg(long, value_name = "BYTES", value_parser = parse_event_limit)]
    max_event_bytes: Option<usize>,
    /// Colour.
    #[arg(long, value_enum, default_value = "auto")]
    color: ColorChoice,
    /// Show info findings too.
    #[arg(short, long)]
    verbose: bool,
    /// Only summary lines.
    #[arg(short, long)]
    quiet: bool,
    /// Live URLs (`check https://…`): recorded to a temporary capture, then
    /// linted. Last: its heading covers every option after it.
    #[command(flatten, next_help_heading = "Live URLs")]
    live: super::live::LiveArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Human,
    Json,
    Sarif,
    Junit,
    Github,
    /// A self-contained page (write it with -o and open it in a browser).
    Html,
    /// One JSON line per stream or log record, written as it goes.
    Jsonl,
}

impl Format {
    fn parse(s: &str) -> Option<Self> {
        <Format as ValueEnum>::from_str(s, true).ok()
    }
}

fn resolve(items: &[String]) -> anyhow::Result<Vec<&'static str>> {
    let refs: Vec<&str> = items.iter().map(String::as_str).collect();
    config::resolve_rules(&refs).map_err(anyhow::Error::msg)
}

/// Expands inputs: directories, files, `-`, and globs the shell left
/// alone (quoted, or on Windows).
fn expand_inputs(inputs: &[String]) -> (Vec<String>, Vec<sselint::capture::InputError>) {
    let mut plain = Vec::new();
    let mut errors = Vec::new();
    for i in inputs {
        let is_glob = i.contains(['*', '?', '[']) && !Path::new(i).exists();
        if !is_glob {
            plain.push(i.clone());
            continue;
        }
        let Ok(glob) = globset::GlobBuilder::new(i).literal_separator(true).build() else {
            errors.push(sselint::capture::InputError::new(i, "not a valid glob"));
            continue;
        };
        let m = glob.compile_matcher();
        let base: PathBuf = Path::new(i)
            .components()
            .take_while(|c| !c.as_os_str().to_string_lossy().contains(['*', '?', '[']))
            .collect();
        let base = if base.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            base
        };
        let (found, errs) = sselint::capture::expand(&[base.to_string_lossy().into_owned()]);
        errors.extend(errs);
        let hits: Vec<String> = found
            .into_iter()
            .filter(|p| m.is_match(p.trim_start_matches("./")))
            .collect();
        if hits.is_empty() {
            errors.push(sselint::capture::InputError::new(
                i,
                "the glob matches no capture",
            ));
        }
        plain.extend(hits);
    }
    let (files, more) = sselint::capture::expand(&plain);
    errors.extend(more);
    (files, errors)
}

fn renderer<'a>(
    format: Format,
    a: &Args,
    color: bool,
    logs: &'a [Vec<StreamLog>],
    on_stdout: bool,
) -> Box<dyn Render + 'a> {
    match format {
        Format::Html => Box::new(Html {
            logs,
            command: "check",
        }),
        Format::Json => Box::new(Json),
        Format::Jsonl => Box::new(Jsonl),
        Format::Sarif => Box::new(Sarif),
        Format::Junit => Box::new(Junit),
        Format::Github => Box::new(Github { verbose: a.verbose }),
        Format::Human => Box::new(human(a, color, on_stdout)),
    }
}

/// The human report as `a` asks for it.
fn human(a: &Args, color: bool, on_stdout: bool) -> Human {
    Human {
        // Infos that fail the run are shown.
        verbose: a.verbose || a.fail_on == Some(FailOn::Info),
        color,
        quiet: a.quiet,
        // Unreadable inputs go to stderr (below); a report on stdout
        // would say them a second time on the same terminal.
        errors_elsewhere: on_stdout,
    }
}

/// `format` written as the results come, when it can be: every format
/// but the HTML page (which shows each stream's events, recorded apart).
/// `profile`: the run's (the JSON report names it when its streams do
/// not share one).
fn streaming(
    format: Format,
    a: &Args,
    color: bool,
    on_stdout: bool,
    fail_on: Option<sselint::lint::Severity>,
    profile: &str,
) -> Option<Box<dyn Streaming>> {
    use sselint::report::{json::JsonParts, junit::JunitParts, sarif::SarifParts};
    match format {
        Format::Human => Some(Box::new(human(a, color, on_stdout))),
        Format::Github => Some(Box::new(Github { verbose: a.verbose })),
        Format::Jsonl => Some(Box::new(sselint::report::jsonl::JsonlParts { fail_on })),
        Format::Json => Some(Box::new(JsonParts::new(profile.to_string()))),
        Format::Sarif => Some(Box::new(SarifParts::default())),
        Format::Junit => Some(Box::new(JunitParts::new(fail_on))),
        Format::Html => None,
    }
}

/// Lints `files` on `jobs` threads; results come back in input order.
fn lint_all(
    files: &[String],
    jobs: usize,
    settings_for: &(dyn Fn(&str) -> Settings + Sync),
    opts: &sselint::capture::Options,
    record: bool,
) -> Vec<(FileResult, Vec<StreamLog>)> {
    let next = AtomicUsize::new(0);
    type Linted = (FileResult, Vec<StreamLog>);
    let slots: Mutex<Vec<Option<Linted>>> = Mutex::new((0..files.len()).map(|_| None).collect());
    let progress = Progress::new(files.len());
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(path) = files.get(i) else { break };
        let settings = settings_for(path);
        // The HTML page shows events and timelines: recorded only for it.
        let r = if record {
            sselint::streamlog::lint_path(path, opts, &settings)
        } else {
            (pipeline::lint_path(path, opts, &settings), Vec::new())
        };
        if let Ok(mut s) = slots.lock() {
            s[i] = Some(r);
        }
        progress.done(path);
    };
    let workers = jobs.max(1).min(files.len().max(1));
    if workers == 1 {
        // One input (or --jobs 1): no thread to start, no second heap.
        work();
    } else {
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(work);
            }
        });
    }
    progress.clear();
    slots
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect()
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let Some(cfg) = load_config(&a) else {
        return Ok(ExitCode::from(2));
    };
    if let Some(p) = &a.profile {
        super::profile_settings(p)?;
    }
    let cli_select = resolve(&a.select)?;
    let cli_ignore = resolve(&a.ignore)?;
    let reports = extra_reports(&a.reports)?;
    if a.write_baseline
        .as_deref()
        .is_some_and(sselint::output::is_stdout)
    {
        bail!("--write-baseline -: a baseline is a file (its paths are relative to its directory); give a file name");
    }
    let baseline = match &a.baseline {
        Some(p) => Some(Baseline::load(p).map_err(anyhow::Error::msg)?),
        None => None,
    };
    let fail_on = a
        .fail_on
        .map(FailOn::threshold)
        .or(cfg.fail_on)
        .unwrap_or(Some(sselint::lint::Severity::Error));
    let mut opts = a.input.options();
    // SARIF and GitHub annotations point into a .har; the other formats
    // give body positions and skip the slower tracking parse.
    opts.har_positions = matches!(a.format, Format::Sarif | Format::Github)
        || reports
            .iter()
            .any(|(f, _)| matches!(f, Format::Sarif | Format::Github));
    let (urls, paths): (Vec<String>, Vec<String>) = a
        .inputs
        .iter()
        .cloned()
        .partition(|i| i.starts_with("http://") || i.starts_with("https://"));
    let logs = a.input.is_jsonl();
    if logs {
        jsonl_fits(&a, &urls, &opts, &reports)?;
        // A record's body is the body itself, whatever it starts with.
        opts.input_format = Some(sselint::capture::InputFormat::Sse);
    }
    let (files, walk_errors) = input_files(&paths, logs);
    if files.is_empty() && walk_errors.is_empty() && urls.is_empty() {
        bail!("no capture found in {}", a.inputs.join(", "));
    }
    // A report written over a capture would destroy it.
    if let Some(msg) = output_over_input(&a, &reports, &files) {
        eprintln!("sselint: error: {msg}");
        return Ok(ExitCode::from(2));
    }
    let jobs = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let stall_ms = a.stall_ms;
    let settings_for = |path: &str| {
        let mut s = cfg.settings_for(path, a.profile.as_deref(), &cli_select, &cli_ignore);
        s.stall_ms = stall_ms;
        s.dialect = a.input.dialect();
        if let Some(n) = a.max_event_bytes {
            s.max_event_bytes = n;
        }
        s
    };
    // A JSON Lines report needs nothing held: each result is written as
    // it comes and dropped.
    if a.format == Format::Jsonl && reports.is_empty() && a.write_baseline.is_none() {
        return stream_jsonl(Streamed {
            a: &a,
            walk_errors,
            files: &files,
            logs,
            jobs,
            opts: &opts,
            settings_for: &settings_for,
            baseline: baseline.as_ref(),
            fail_on,
        });
    }
    let profile = a
        .profile
        .clone()
        .or_else(|| cfg.profile.clone())
        .unwrap_or_else(|| "openai".to_string());
    // Every report but the HTML page is written as the results come,
    // keeping only its totals: flat memory in the number of inputs and
    // of a socket's responses.
    let streamed = |f: Format| streaming(f, &a, false, false, fail_on, &profile).is_some();
    if urls.is_empty()
        && a.write_baseline.is_none()
        && streamed(a.format)
        && reports.iter().all(|(f, _)| streamed(*f))
    {
        let run = Streamed {
            a: &a,
            walk_errors,
            files: &files,
            logs,
            jobs,
            opts: &opts,
            settings_for: &settings_for,
            baseline: baseline.as_ref(),
            fail_on,
        };
        return Ok(stream_reports(run, &reports, &profile));
    }
    let mut results: Vec<FileResult> = walk_errors
        .into_iter()
        .map(|e| FileResult {
            path: e.path,
            input_format: None,
            detail: "",
            error: Some(e.message),
            rules_run: Vec::new(),
            streams: Vec::new(),
        })
        .collect();
    results.extend(lint_urls(&urls, &a, &settings_for));
    let logs_in = logs;
    let record = a.format == Format::Html || reports.iter().any(|(f, _)| *f == Format::Html);
    // Logs line up with results: none for the inputs read above.
    let mut logs: Vec<Vec<StreamLog>> = results.iter().map(|_| Vec::new()).collect();
    if logs_in {
        super::batch::run(&files, true, jobs, &opts, &settings_for, &mut |r| {
            results.push(r);
            true
        });
        logs.resize_with(results.len(), Vec::new);
    } else {
        for (r, l) in lint_all(&files, jobs, &settings_for, &opts, record) {
            results.push(r);
            logs.push(l);
        }
    }
    let mut run = Run {
        files: results,
        profile,
        suppressed: 0,
        fail_on,
    };
    if let (Some(b), Some(p)) = (&baseline, &a.baseline) {
        run.suppressed = b.apply(&mut run.files, &config::parent_dir(p));
    }
    let write_errors = write_reports(&a, &run, &reports, &logs)?;
    Ok(exit_code(
        &a,
        &run,
        baseline.as_ref(),
        &write_errors,
        fail_on,
    ))
}

/// The configuration in force: none with `--no-config`, `--config FILE`,
/// else sselint.toml found upward from the working directory. `None` when
/// it is bad (said on stderr: exit 2).
fn load_config(a: &Args) -> Option<Config> {
    Some(if a.no_config {
        Config::empty()
    } else {
        let path = match &a.config {
            Some(p) => Some(p.clone()),
            None => Config::find(&std::env::current_dir().unwrap_or_default()),
        };
        match path {
            Some(p) => match Config::load(&p) {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("sselint: error: bad configuration\n{}", e.message);
                    return None;
                }
            },
            None => Config::empty(),
        }
    })
}

/// The `--report FORMAT=FILE` options, parsed.
fn extra_reports(reports: &[String]) -> anyhow::Result<Vec<(Format, PathBuf)>> {
    let mut out = Vec::new();
    for r in reports {
        let Some((fmt, file)) = r.split_once('=') else {
            bail!("--report takes FORMAT=FILE (e.g. sarif=out.sarif), not {r:?}");
        };
        let Some(f) = Format::parse(fmt) else {
            bail!(
                "--report: unknown format {fmt:?}; use human, json, sarif, junit, github, html or jsonl"
            );
        };
        if file.is_empty() {
            bail!("--report {fmt}= needs a file name");
        }
        if file == "-" {
            bail!(
                "--report {fmt}=-: standard output carries the main report; use --format {fmt} for it (and -o FILE for the other)"
            );
        }
        out.push((f, PathBuf::from(file)));
    }
    Ok(out)
}

/// A JSON Lines log is read from files or stdin, all its records, into
/// any report but the HTML page.
fn jsonl_fits(
    a: &Args,
    urls: &[String],
    opts: &sselint::capture::Options,
    reports: &[(Format, PathBuf)],
) -> anyhow::Result<()> {
    if !urls.is_empty() {
        bail!("--input-format jsonl reads logs from files or -, not live URLs");
    }
    if opts.entry.is_some() || opts.url_match.is_some() {
        bail!("--entry and --url-match pick entries of a HAR file; a log's records are all linted");
    }
    if a.format == Format::Html || reports.iter().any(|(f, _)| *f == Format::Html) {
        bail!("--format html shows captures' events; for a log use --format jsonl (or json)");
    }
    Ok(())
}

/// The files to read under `paths` (directories walked; with `logs`, the
/// log files), and the paths that could not be read.
fn input_files(paths: &[String], logs: bool) -> (Vec<String>, Vec<sselint::capture::InputError>) {
    if paths.is_empty() {
        (Vec::new(), Vec::new())
    } else if logs {
        let (files, errors) = super::batch::log_files(paths);
        let errors = errors
            .into_iter()
            .map(|e| sselint::capture::InputError::new(e.path, e.error.unwrap_or_default()))
            .collect();
        (files, errors)
    } else {
        expand_inputs(paths)
    }
}

/// What is wrong when a report (`-o`, `--report`, `--write-baseline`)
/// would be written over one of the input `files`.
fn output_over_input(a: &Args, reports: &[(Format, PathBuf)], files: &[String]) -> Option<String> {
    // Each target is named as the user wrote it.
    let fmt_name = |f: Format| {
        f.to_possible_value()
            .map_or_else(String::new, |v| v.get_name().to_string())
    };
    let targets = a
        .output
        .iter()
        .map(|p| ("-o ".to_string(), p))
        .chain(
            reports
                .iter()
                .map(|(f, p)| (format!("--report {}=", fmt_name(*f)), p)),
        )
        .chain(
            a.write_baseline
                .iter()
                .map(|p| ("--write-baseline ".to_string(), p)),
        );
    targets
        .into_iter()
        .find_map(|(flag, p)| super::output_is_input(p, files, &flag))
}

/// Records and lints each live URL (its result named by the URL, its key
/// masked).
fn lint_urls(
    urls: &[String],
    a: &Args,
    settings_for: &dyn Fn(&str) -> Settings,
) -> Vec<FileResult> {
    let mut results = Vec::new();
    for (i, url) in urls.iter().enumerate() {
        let tmp = std::env::temp_dir().join(format!("sselint-live-{}-{i}.har", std::process::id()));
        let settings = settings_for(url);
        // The URL's query or user part may hold a key.
        let shown = sselint::capture::redact_url(url);
        let result = match super::live::record_to(url, &a.live, &tmp, false, &settings) {
            Ok(_) => {
                // The recording's one entry, whatever its media type: a
                // body that is no event stream is a finding of the URL's
                // (`body-not-sse`), not an error about a HAR's entries.
                let one = sselint::capture::Options {
                    entry: Some(0),
                    ..Default::default()
                };
                let mut r = pipeline::lint_path(&tmp.to_string_lossy(), &one, &settings);
                // The one stream is the URL's: named by it, as a file's
                // one stream is by its path, not as the temporary HAR's
                // entry (`#0 POST URL`), which would name the URL twice.
                for s in &mut r.streams {
                    s.label.clone_from(&shown);
                }
                r.path = shown;
                r
            }
            Err(e) => {
                // The error names the URL, and so does the report's line.
                let message = format!("{e:#}");
                let message = message
                    .strip_prefix(&format!("{shown}: "))
                    .map_or_else(|| message.clone(), str::to_string);
                FileResult {
                    path: shown,
                    input_format: None,
                    detail: "",
                    error: Some(message),
                    rules_run: Vec::new(),
                    streams: Vec::new(),
                }
            }
        };
        let _ = std::fs::remove_file(&tmp);
        results.push(result);
    }
    results
}

/// Writes the main report (stdout, or `-o`), then each `--report` and the
/// `--write-baseline` file; gives what could not be written.
fn write_reports(
    a: &Args,
    run: &Run,
    reports: &[(Format, PathBuf)],
    logs: &[Vec<StreamLog>],
) -> anyhow::Result<Vec<String>> {
    let mut write_errors: Vec<String> = Vec::new();
    let color = a.color.enabled() && a.output.is_none();
    let on_stdout = a.output.as_deref().is_none_or(|p| p == Path::new("-"));
    let main = renderer(a.format, a, color, logs, on_stdout);
    // The main report first, so a failing --report never hides it; `-` is
    // stdout.
    match a.output.as_deref().filter(|p| *p != Path::new("-")) {
        Some(path) => {
            let mut buf = Vec::new();
            main.render(run, &mut buf)?;
            if let Err(e) = sselint::output::write_atomic(path, &buf) {
                write_errors.push(format!("writing the report {}: {e}", path.display()));
            }
        }
        None => {
            let stdout = std::io::stdout();
            let mut out = BufWriter::new(stdout.lock());
            let written = main.render(run, &mut out).and_then(|()| out.flush());
            match written {
                // `sselint check … | head`: stop writing, keep the verdict.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                Err(e) => write_errors.push(format!("writing the report: {e}")),
                Ok(()) => {}
            }
        }
    }
    for (fmt, path) in reports {
        let mut buf = Vec::new();
        renderer(*fmt, a, false, logs, false).render(run, &mut buf)?;
        if let Err(e) = sselint::output::write_atomic(path, &buf) {
            write_errors.push(format!("writing the report {}: {e}", path.display()));
        }
    }
    if let Some(p) = &a.write_baseline {
        let b = Baseline::from_results(&run.files, &config::parent_dir(p));
        if let Err(e) = sselint::output::write_atomic(p, b.to_json().as_bytes()) {
            write_errors.push(format!("writing the baseline {}: {e}", p.display()));
        }
    }
    Ok(write_errors)
}

/// The exit code, after what stderr must say: input and write errors are
/// 2; recording a baseline accepts today's findings (0); else the
/// `--fail-on` verdict.
fn exit_code(
    a: &Args,
    run: &Run,
    baseline: Option<&Baseline>,
    write_errors: &[String],
    fail_on: Option<sselint::lint::Severity>,
) -> ExitCode {
    let unread: Vec<(&str, &str)> = run
        .files
        .iter()
        .filter_map(|f| Some((f.path.as_str(), f.error.as_deref()?)))
        .collect();
    said_exit(
        a,
        run.suppressed,
        baseline,
        write_errors,
        &unread,
        fail_on,
        run.worst(),
    )
}

/// [`exit_code`] from what it needs: the findings the baseline
/// suppressed, the reports not written, the inputs not read (path and
/// why) and the worst finding counted.
fn said_exit(
    a: &Args,
    suppressed: u64,
    baseline: Option<&Baseline>,
    write_errors: &[String],
    unread: &[(&str, &str)],
    fail_on: Option<sselint::lint::Severity>,
    worst: Option<sselint::lint::Severity>,
) -> ExitCode {
    if let Some(b) = baseline {
        if suppressed == 0 && !b.findings.is_empty() {
            eprintln!(
                "sselint: note: the baseline matched no finding (its paths are relative to the baseline file's directory)"
            );
        }
    }
    for e in write_errors {
        eprintln!("sselint: error: {e}");
    }
    if !unread.is_empty() {
        for (path, error) in unread {
            // Escaped as the report escapes it: the text can quote the
            // input (a HAR's URLs), and its lines stay lines.
            eprintln!(
                "sselint: error: {}: {}",
                sselint::report::display_path(path),
                sselint::lint::printable_text(error)
            );
        }
        return ExitCode::from(2);
    }
    if !write_errors.is_empty() {
        return ExitCode::from(2);
    }
    if a.write_baseline.is_some() {
        // Recording a baseline accepts today's findings.
        return ExitCode::SUCCESS;
    }
    verdict(fail_on, worst)
}

/// What a `check` whose reports are written as the results come
/// ([`stream_reports`], [`stream_jsonl`]) reads and how.
struct Streamed<'a> {
    a: &'a Args,
    /// The inputs that could not be walked: reported first.
    walk_errors: Vec<sselint::capture::InputError>,
    /// The captures (with `logs`, the JSON Lines logs) to lint.
    files: &'a [String],
    /// `files` are JSON Lines logs (`--input-format jsonl`).
    logs: bool,
    /// Worker threads.
    jobs: usize,
    opts: &'a sselint::capture::Options,
    /// The settings for an input's path.
    settings_for: &'a (dyn Fn(&str) -> Settings + Sync),
    baseline: Option<&'a Baseline>,
    fail_on: Option<sselint::lint::Severity>,
}

/// Where a report written as it goes is going.
enum Target {
    Stdout(BufWriter<std::io::StdoutLock<'static>>),
    File(sselint::output::Streamed),
}

/// One report written as the results come.
struct Sink {
    format: Box<dyn Streaming>,
    /// The file (`None`: stdout).
    path: Option<PathBuf>,
    /// `None` once it could not be opened.
    target: Option<Target>,
    /// The first error writing it; nothing more is written to it then.
    error: Option<std::io::Error>,
}

impl Sink {
    fn new(format: Box<dyn Streaming>, path: Option<&Path>) -> Self {
        let (target, error) = match path {
            None => (
                Some(Target::Stdout(BufWriter::new(std::io::stdout().lock()))),
                None,
            ),
            Some(p) => match sselint::output::Streamed::create(p) {
                Ok(f) => (Some(Target::File(f)), None),
                Err(e) => (None, Some(e)),
            },
        };
        Sink {
            format,
            path: path.map(Path::to_path_buf),
            target,
            error,
        }
    }

    /// Writes with `w` unless an error came before.
    fn write(&mut self, w: impl FnOnce(&mut dyn Streaming, &mut dyn Write) -> std::io::Result<()>) {
        if self.error.is_some() {
            return;
        }
        let out: &mut dyn Write = match &mut self.target {
            Some(Target::Stdout(o)) => o,
            Some(Target::File(f)) => f,
            None => return,
        };
        if let Err(e) = w(self.format.as_mut(), out) {
            self.error = Some(e);
        }
    }

    /// Flushes what was written to the terminal (stdout), before the
    /// progress line is drawn under it.
    fn flush_stdout(&mut self) {
        if let (None, Some(Target::Stdout(o))) = (&self.error, &mut self.target) {
            if let Err(e) = o.flush() {
                self.error = Some(e);
            }
        }
    }

    /// Flushes (or puts the file in place); what could not be written, as
    /// `write_reports` says it.
    fn close(mut self) -> Option<String> {
        let flushed = match self.target.take() {
            Some(Target::Stdout(mut o)) => o.flush(),
            Some(Target::File(f)) => f.commit(),
            None => Ok(()),
        };
        let e = self.error.or(flushed.err())?;
        match &self.path {
            Some(p) => Some(format!("writing the report {}: {e}", p.display())),
            // `sselint check … | head`: stop writing, keep the verdict.
            None if e.kind() == std::io::ErrorKind::BrokenPipe => None,
            None => Some(format!("writing the report: {e}")),
        }
    }
}

/// `check` whose reports are all written as the results come (every format
/// but HTML; no baseline to write, no live URL): each input's
/// streams are written as they are made, a socket's responses one by one
/// as they end, and only the totals are kept (and the names of the inputs
/// that could not be read, said on stderr at the end as `exit_code` says
/// them). The same bytes as the report made from every result.
fn stream_reports(run: Streamed<'_>, reports: &[(Format, PathBuf)], profile: &str) -> ExitCode {
    let Streamed {
        a,
        walk_errors,
        files,
        logs,
        jobs,
        opts,
        settings_for,
        baseline,
        fail_on,
    } = run;
    let color = a.color.enabled() && a.output.is_none();
    let on_stdout = a.output.as_deref().is_none_or(|p| p == Path::new("-"));
    let main_path = a.output.as_deref().filter(|p| *p != Path::new("-"));
    let mut sinks = Vec::new();
    if let Some(f) = streaming(a.format, a, color, on_stdout, fail_on, profile) {
        sinks.push(Sink::new(f, main_path));
    }
    for (fmt, path) in reports {
        if let Some(f) = streaming(*fmt, a, false, false, fail_on, profile) {
            sinks.push(Sink::new(f, Some(path)));
        }
    }
    let base = a.baseline.as_deref().map(config::parent_dir);
    let mut totals = Totals::default();
    let mut unread: Vec<(String, String)> = Vec::new();
    let progress = Progress::new(if logs { 0 } else { files.len() });
    let mut one = |f: &mut FileResult, first: bool, several: bool| -> bool {
        if let (Some(b), Some(base)) = (baseline, &base) {
            totals.suppressed += b.apply(std::slice::from_mut(f), base);
        }
        totals.add(f, first);
        if let Some(e) = &f.error {
            unread.push((f.path.clone(), e.clone()));
        }
        progress.clear();
        for s in &mut sinks {
            s.write(|fmt, out| fmt.part(f, first, several, out));
            if progress.is_on() {
                s.flush_stdout();
            }
        }
        true
    };
    for e in walk_errors {
        one(&mut pipeline_error(e.path, e.message), true, false);
    }
    if logs {
        super::batch::run(files, logs, jobs, opts, settings_for, &mut |mut r| {
            let several = r.streams.len() > 1;
            one(&mut r, true, several)
        });
    } else {
        super::batch::run_each(files, jobs, opts, settings_for, &progress, &mut |p| {
            one(p.file, p.first, p.several)
        });
    }
    progress.clear();
    let mut write_errors = Vec::new();
    for mut s in sinks {
        s.write(|fmt, out| fmt.end(&totals, out));
        write_errors.extend(s.close());
    }
    let unread: Vec<(&str, &str)> = unread
        .iter()
        .map(|(p, e)| (p.as_str(), e.as_str()))
        .collect();
    said_exit(
        a,
        totals.suppressed,
        baseline,
        &write_errors,
        &unread,
        fail_on,
        totals.worst,
    )
}

/// `check --format jsonl` with no other report: every result is written
/// as one or more lines as soon as it is made (a log's records as their
/// batch is done), unreadable inputs are said on stderr as they come, and
/// only counts are kept.
fn stream_jsonl(run: Streamed<'_>) -> anyhow::Result<ExitCode> {
    let Streamed {
        a,
        walk_errors,
        files,
        logs,
        jobs,
        opts,
        settings_for,
        baseline,
        fail_on,
    } = run;
    use sselint::report::jsonl;
    let target = a.output.as_deref().filter(|p| *p != Path::new("-"));
    let mut file_out = match target {
        Some(p) => match sselint::output::Streamed::create(p) {
            Ok(f) => Some(f),
            Err(e) => {
                eprintln!("sselint: error: writing the report {}: {e}", p.display());
                return Ok(ExitCode::from(2));
            }
        },
        None => None,
    };
    let stdout = std::io::stdout();
    let mut std_out = BufWriter::new(stdout.lock());
    let base = a.baseline.as_deref().map(config::parent_dir);
    let mut worst = None;
    let mut unreadable = 0u64;
    let mut suppressed = 0u64;
    let mut write_error: Option<std::io::Error> = None;
    let progress = Progress::new(if logs { 0 } else { files.len() });
    let mut one = |f: &mut FileResult, several: bool| -> bool {
        progress.clear();
        if let (Some(b), Some(base)) = (baseline, &base) {
            suppressed += b.apply(std::slice::from_mut(f), base);
        }
        worst = worst.max(
            f.streams
                .iter()
                .filter_map(sselint::report::stream_worst)
                .max(),
        );
        if let Some(e) = &f.error {
            unreadable += 1;
            eprintln!(
                "sselint: error: {}: {}",
                sselint::report::display_path(&f.path),
                sselint::lint::printable_text(e)
            );
        }
        let rows = jsonl::rows_of(f, several, fail_on);
        let out: &mut dyn Write = match &mut file_out {
            Some(f) => f,
            None => &mut std_out,
        };
        let written = jsonl::write_rows(&rows, out).and_then(|()| {
            // The terminal's lines are written before the progress line.
            match &mut file_out {
                None if progress.is_on() => std_out.flush(),
                _ => Ok(()),
            }
        });
        match written {
            Ok(()) => true,
            Err(e) => {
                write_error = Some(e);
                false
            }
        }
    };
    let mut go_on = true;
    for e in walk_errors {
        go_on = one(&mut pipeline_error(e.path, e.message), false);
        if !go_on {
            break;
        }
    }
    if go_on && logs {
        super::batch::run(files, logs, jobs, opts, settings_for, &mut |mut r| {
            let several = r.streams.len() > 1;
            one(&mut r, several)
        });
    } else if go_on {
        super::batch::run_each(files, jobs, opts, settings_for, &progress, &mut |p| {
            one(p.file, p.several)
        });
    }
    progress.clear();
    let flushed = match file_out {
        Some(f) => f.commit(),
        None => std_out.flush(),
    };
    let write_error = write_error.or(flushed.err());
    match write_error {
        // `sselint check … --format jsonl | head`: stop, keep the verdict.
        Some(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Some(e) => {
            let to = target.map_or(String::new(), |p| format!(" {}", p.display()));
            eprintln!("sselint: error: writing the report{to}: {e}");
            return Ok(ExitCode::from(2));
        }
        None => {}
    }
    if let Some(b) = baseline {
        if suppressed == 0 && !b.findings.is_empty() {
            eprintln!(
                "sselint: note: the baseline matched no finding (its paths are relative to the baseline file's directory)"
            );
        }
    }
    if unreadable > 0 {
        return Ok(ExitCode::from(2));
    }
    Ok(verdict(fail_on, worst))
}

fn pipeline_error(path: String, message: String) -> FileResult {
    super::batch::failed(path, message)
}

/// `sselint init`: write a commented sselint.toml.
#[derive(Debug, clap::Args)]
pub struct InitArgs {
    /// Where to write it.
    #[arg(default_value = config::FILE_NAME, value_name = "FILE")]
    path: PathBuf,
    /// Replace an existing file.
    #[arg(long)]
    force: bool,
}

pub fn init(a: InitArgs) -> anyhow::Result<ExitCode> {
    if a.path.is_dir() {
        eprintln!(
            "sselint: error: {} is a directory; give a file name such as {}/sselint.toml",
            a.path.display(),
            a.path.display()
        );
        return Ok(ExitCode::from(2));
    }
    if a.path.exists() && !a.force {
        eprintln!(
            "sselint: error: {} already exists; use --force to replace it",
            a.path.display()
        );
        return Ok(ExitCode::from(2));
    }
    sselint::output::write_atomic(&a.path, config::TEMPLATE.as_bytes())
        .with_context(|| format!("writing {}", a.path.display()))?;
    let _ = writeln!(std::io::stdout(), "wrote {}", a.path.display());
    Ok(ExitCode::SUCCESS)
}
