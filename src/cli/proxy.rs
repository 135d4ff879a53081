//! `sselint proxy`: parse the options, start the library's proxy
//! ([`sselint::proxy`]), print a line per exchange, run the wrapped
//! command, and write the reports at the end.

use super::ColorChoice;
use sselint::lint::{FailOn, Severity};
use sselint::pipeline::FileResult;
use sselint::proxy::{self, wrap, Exchange, Stop};
use sselint::report::{self, Render, Run};
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// Forward an application's LLM requests and lint every stream as it
/// passes.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  sselint proxy --upstream https://api.openai.com
      listen on 127.0.0.1:8787; point the SDK there
      (OPENAI_BASE_URL=http://127.0.0.1:8787/v1); Ctrl-C ends and reports
  sselint proxy --upstream chat=http://127.0.0.1:8080 \\
                --upstream messages=https://api.anthropic.com -- pytest tests/
      run the tests through the proxy; exit 1 when a stream has an error
  sselint proxy --upstream https://api.openai.com --format sarif -o streams.sarif \\
                --save captures/ -- npm test

What it does: each request goes to the upstream of the dialect its path
names (/v1/chat/completions is chat, /v1/messages is messages, ...;
`sselint check --help` lists the dialects). A plain --upstream URL takes
the OpenAI dialects without their own (chat, responses, realtime) and
paths that name no dialect, never an Anthropic, Gemini, Ollama or Bedrock
request (another provider's key): those need --upstream DIALECT=URL, else
the proxy answers 502 saying which. The client's path goes after the upstream's (a prefix the path
already starts with is not repeated). Each response comes back byte for
byte as it arrives, each read flushed; nothing is retried, no redirect is
followed, an error status and a cut body reach the client as they came.
A client that hangs up closes its upstream request.

A response that is a stream (text/event-stream, NDJSON, AWS event stream;
or an error answer to a request that asked for one) is linted on the side
as it passes, in flat memory, and gets a line on stderr: number, method,
path (no query), status, dialect, time to the first byte, duration and
verdict. Other responses pass untouched and are counted. Keys, cookies
and prompts are never printed; --save masks them in the HARs it writes.

With `-- CMD ARGS...` the command runs with OPENAI_BASE_URL,
ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL and OLLAMA_HOST pointing at
the proxy (on a free port unless --listen says). When it ends, or on
Ctrl-C or SIGTERM, open streams get --grace seconds, then are cut (a
command still running gets --grace too, then is killed); the report is
written (--format, --output, atomically) and the exit code is the
command's failure, else 1 when a stream reached --fail-on, else 0.
Without a command the proxy runs until Ctrl-C or SIGTERM.")]
pub struct Args {
    /// Where requests go: `DIALECT=URL` (chat, responses, realtime,
    /// messages, gemini, ollama, bedrock-converse, bedrock-invoke), or a
    /// plain `URL` for the OpenAI dialects (chat, responses, realtime)
    /// without their own and paths of no dialect; repeatable. http:// or https://
    /// (rustls, the webpki roots), with an optional path prefix. Without
    /// any: chat and responses to https://api.openai.com, messages to
    /// https://api.anthropic.com, gemini to
    /// https://generativelanguage.googleapis.com, nothing else.
    #[arg(long = "upstream", value_name = "[DIALECT=]URL")]
    upstreams: Vec<String>,
    /// Address to listen on [default: 127.0.0.1:8787, or a free port on
    /// 127.0.0.1 when a command is wrapped].
    #[arg(long, value_name = "ADDR:PORT")]
    listen: Option<String>,
    /// Allow --listen on an address other than loopback: anyone who can
    /// reach it can spend the keys the clients send through it.
    #[arg(long)]
    allow_remote: bool,
    /// Exit 1 when a stream has a finding at or above this severity.
    #[arg(long, value_enum, default_value = "error")]
    fail_on: FailOn,
    /// The report written at the end (html: a page of each stream's
    /// verdict, answer and findings, without its events).
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Write the report to FILE (atomically) instead of stdout.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Save each streamed exchange as DIR/NNNN-DIALECT.har, keys and
    /// cookies masked, for `check`, `diff` and `minimize`.
    #[arg(long, value_name = "DIR")]
    save: Option<PathBuf>,
    /// Provider profile for the lint.
    #[arg(long, default_value = "openai", value_name = "NAME")]
    profile: String,
    /// Seconds open streams get to finish when the command ends or
    /// Ctrl-C (or SIGTERM) comes, before they are cut.
    #[arg(long, default_value_t = 2.0, value_name = "SECS")]
    grace: f64,
    /// Accept any TLS certificate from an upstream.
    #[arg(long)]
    insecure: bool,
    /// Seconds an upstream gets to accept the connection, and then to
    /// finish the TLS handshake; past either the proxy answers 502 itself
    /// and says which. The response itself has no timeout.
    #[arg(long, default_value_t = 10.0, value_name = "SECS")]
    connect_timeout: f64,
    /// Colour of the human report.
    #[arg(long, value_enum, default_value = "auto")]
    color: ColorChoice,
    /// No line per exchange.
    #[arg(short, long)]
    quiet: bool,
    /// The command to run through the proxy, after `--`.
    #[arg(last = true, value_name = "CMD")]
    command: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Human,
    Json,
    Sarif,
    Junit,
    Github,
    Html,
}

/// The port `sselint proxy` listens on without a command and --listen.
const DEFAULT_PORT: u16 = 8787;

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let fail = |e: String| {
        eprintln!("sselint: error: {e}");
        Ok(ExitCode::from(2))
    };
    // Given none, each dialect goes to its provider; given any, only
    // where they say (a key never goes to a host not named).
    let mut upstreams = if a.upstreams.is_empty() {
        proxy::Upstreams::providers()
    } else {
        proxy::Upstreams::default()
    };
    for u in &a.upstreams {
        if let Err(e) = upstreams.add(u) {
            return fail(e.to_string());
        }
    }
    let listen: SocketAddr = match &a.listen {
        Some(l) => match l.parse() {
            Ok(addr) => addr,
            Err(_) => return fail(format!("--listen {l}: give ADDR:PORT, e.g. 127.0.0.1:8787")),
        },
        None if a.command.is_empty() => SocketAddr::from(([127, 0, 0, 1], DEFAULT_PORT)),
        None => SocketAddr::from(([127, 0, 0, 1], 0)),
    };
    if !listen.ip().is_loopback() && !a.allow_remote {
        return fail(format!(
            "--listen {listen} is not a loopback address: anyone who reaches it could send requests with the keys your clients pass through; add --allow-remote if that is meant"
        ));
    }
    for (name, v) in [
        ("--connect-timeout", a.connect_timeout),
        ("--grace", a.grace),
    ] {
        if !v.is_finite() || v < 0.0 {
            return fail(format!("{name} {v}: give a number of seconds, 0 or more"));
        }
    }
    // An --output that cannot be written is found now, not after the
    // whole run with its report lost.
    if let Some(out) = a
        .output
        .as_deref()
        .filter(|p| !sselint::output::is_stdout(p))
    {
        if let Err(e) = sselint::output::check_writable(out) {
            return fail(format!("--output {}: {e}", out.display()));
        }
    }
    let settings = super::profile_settings(&a.profile)?;
    let options = proxy::Options {
        listen,
        upstreams,
        settings,
        save: a.save.clone(),
        insecure: a.insecure,
        connect_timeout: Duration::from_secs_f64(a.connect_timeout.clamp(0.001, 3600.0)),
    };
    let quiet = a.quiet;
    let on_exchange: proxy::OnExchange = Arc::new(move |ex: &Exchange| {
        if !quiet {
            eprintln!("sselint proxy: {}", line(ex));
        }
    });
    // Installed before anything runs: Ctrl-C (SIGINT, SIGTERM, SIGHUP)
    // stops the proxy (and the
    // command's wait), never the process.
    let stop = sselint::live::interrupted();
    let running = match proxy::Proxy::start(options, on_exchange) {
        Ok(p) => p,
        Err(e) => return fail(e.to_string()),
    };
    let addr = running.addr();
    let bases: Vec<String> = wrap::child_env(addr)
        .into_iter()
        .map(|(var, url)| format!("{var}={url}"))
        .collect();
    eprintln!(
        "sselint proxy: listening on http://{addr} ({}){}",
        bases.join(" "),
        if a.command.is_empty() {
            "; Ctrl-C stops"
        } else {
            ""
        }
    );
    let grace = Duration::from_secs_f64(a.grace.clamp(0.0, 3600.0));
    let child_code = if a.command.is_empty() {
        while !stop.load(std::sync::atomic::Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    } else {
        match wrap::spawn(&a.command[0], &a.command[1..], addr) {
            Ok(mut child) => Some(match wrap::wait(&mut child, &stop, grace) {
                wrap::ChildEnd::Exited(s) | wrap::ChildEnd::Interrupted(Some(s)) => s,
                wrap::ChildEnd::Interrupted(None) => {
                    let summary = running.stop(grace);
                    write_report(&a, summary)?;
                    return Ok(ExitCode::from(130));
                }
            }),
            Err(e) => {
                let _ = running.stop(Duration::ZERO);
                return fail(format!("cannot run {}: {e}", a.command[0]));
            }
        }
    };
    let summary = running.stop(grace);
    let worst = summary.exchanges.iter().filter_map(Exchange::worst).max();
    let report_code = write_report(&a, summary)?;
    if report_code != ExitCode::SUCCESS {
        return Ok(report_code);
    }
    if let Some(status) = child_code.filter(|s| !s.success()) {
        // A signal has no code: the shells' 128 + N is not known here.
        let code = status.code().unwrap_or(1).clamp(1, 255);
        return Ok(ExitCode::from(code as u8));
    }
    Ok(sselint::lint::verdict(a.fail_on.threshold(), worst))
}

/// One exchange's line: `#N METHOD PATH STATUS DIALECT ttft X ms, Y ms:
/// VERDICT`.
fn line(ex: &Exchange) -> String {
    let dialect = ex.dialect.map_or("-", |d| d.name());
    let ttft = ex
        .ttft_ms
        .map_or(String::from("ttft -"), |t| format!("ttft {t:.1} ms"));
    let verdict = match (&ex.failed, &ex.result) {
        (Some(why), _) => format!("not forwarded: {}", sselint::capture::printable(why)),
        (None, None) => match &ex.upgrade {
            Some(u) => format!(
                "{} upgrade passed through ({} bytes sent, {} received; its messages are not linted){}",
                sselint::capture::printable(&u.protocol),
                u.sent,
                u.received,
                match &ex.stop {
                    Stop::Complete => String::new(),
                    Stop::UpstreamCut(e) =>
                        format!(", the connection broke: {}", sselint::capture::printable(e)),
                    Stop::ClientGone => ", the client went away".to_string(),
                    Stop::Shutdown => ", cut at shutdown".to_string(),
                }
            ),
            None => "not a stream, passed through".to_string(),
        },
        (None, Some(r)) => {
            let worst = report::stream_worst(r);
            let mut rules: Vec<&str> = r
                .diagnostics
                .iter()
                .filter(|d| Some(d.severity) == worst && !d.suppressed)
                .map(|d| d.rule)
                .collect();
            rules.dedup();
            rules.truncate(4);
            let how = match worst {
                None | Some(Severity::Info) => "ok".to_string(),
                Some(s) => format!("{s}: {}", rules.join(", ")),
            };
            match &ex.stop {
                Stop::Complete => how,
                Stop::UpstreamCut(_) => format!("{how} (the upstream cut the stream)"),
                Stop::ClientGone => format!("{how} (the client went away)"),
                Stop::Shutdown => format!("{how} (cut at shutdown)"),
            }
        }
    };
    let saved = ex
        .saved
        .as_ref()
        .map(|p| format!(" -> {}", p.display()))
        .or_else(|| ex.save_error.as_ref().map(|e| format!(" (not saved: {e})")))
        .unwrap_or_default();
    format!(
        "#{} {} {} {} {dialect} {ttft}, {:.1} ms: {verdict}{saved}",
        ex.index,
        ex.method,
        sselint::capture::printable(&ex.path),
        ex.status,
        ex.duration_ms
    )
}

/// Writes the report of every stream, in request order, as `--format`
/// says, to `--output` (atomically) or stdout; exit 2 when it cannot be
/// written. Each stream is an input of its own: its saved HAR's path when
/// there is one (SARIF points there), else `#N METHOD PATH`.
fn write_report(a: &Args, summary: proxy::Summary) -> anyhow::Result<ExitCode> {
    let settings = super::profile_settings(&a.profile)?;
    let rules_run = sselint::pipeline::rules_run(&settings);
    let passed = summary.passed_through;
    // Every stream, and every request the proxy answered itself (no
    // upstream reached: its 502 is a record whose error says why).
    let mut exchanges: Vec<Exchange> = summary
        .exchanges
        .into_iter()
        .filter(|e| e.result.is_some() || e.failed.is_some())
        .collect();
    exchanges.sort_by_key(|e| e.index);
    let streams = exchanges.iter().filter(|e| e.result.is_some()).count();
    let refused = exchanges.len() - streams;
    let files: Vec<FileResult> = exchanges
        .into_iter()
        .map(|e| FileResult {
            path: match (&e.saved, &e.result) {
                (Some(p), _) => p.display().to_string(),
                (None, Some(r)) => r.label.clone(),
                (None, None) => format!(
                    "#{} {} {}",
                    e.index,
                    e.method,
                    sselint::capture::printable(&e.path)
                ),
            },
            input_format: None,
            detail: "proxy",
            error: e.failed.as_ref().map(|why| {
                format!(
                    "not forwarded, the proxy answered {} itself: {}",
                    e.status,
                    sselint::capture::printable(why)
                )
            }),
            rules_run: if e.failed.is_some() {
                Vec::new()
            } else {
                rules_run.clone()
            },
            streams: e.result.into_iter().collect(),
        })
        .collect();
    let run = Run {
        files,
        profile: a.profile.clone(),
        suppressed: 0,
        fail_on: a.fail_on.threshold(),
    };
    let to_file = a
        .output
        .as_deref()
        .filter(|p| !sselint::output::is_stdout(p));
    let color = to_file.is_none() && a.color.enabled();
    let renderer: Box<dyn Render> = match a.format {
        Format::Human => Box::new(report::human::Human {
            verbose: a.fail_on == FailOn::Info,
            color,
            quiet: false,
            errors_elsewhere: false,
        }),
        Format::Json => Box::new(report::json::Json),
        Format::Sarif => Box::new(report::sarif::Sarif),
        Format::Junit => Box::new(report::junit::Junit),
        Format::Github => Box::new(report::github::Github { verbose: false }),
        // The streams' events are not kept (flat memory): the page shows
        // each stream's verdict, answer and findings.
        Format::Html => Box::new(report::html::Html {
            logs: &[],
            command: "proxy",
        }),
    };
    let mut buf = Vec::new();
    renderer.render(&run, &mut buf)?;
    if !a.quiet {
        eprintln!(
            "sselint proxy: {streams} stream{} linted, {passed} response{} passed through{}",
            if streams == 1 { "" } else { "s" },
            if passed == 1 { "" } else { "s" },
            match refused {
                0 => String::new(),
                n => format!(", {n} not forwarded (the proxy answered)"),
            }
        );
    }
    let _ = std::io::stdout().flush();
    super::write_report(to_file, &buf)
}
