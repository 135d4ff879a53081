//! `sselint probe`: send a fixed set of streaming scenarios to a live
//! endpoint (or two), save and lint each capture with its request in hand,
//! and print a report card.

use super::ColorChoice;
use anyhow::Context as _;
use sselint::card::{compare_cards, Card, ScenarioDiff};
use sselint::dialect::Dialect;
use sselint::lint::Severity;
use sselint::probe::{self, Scenario, Target, Verdict};
use sselint::report::probe as report;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

const AFTER_HELP: &str = "\
Examples:
  sselint probe http://127.0.0.1:8080/v1 --model gpt-4o-mini
  sselint probe https://api.openai.com/v1 --model gpt-4o-mini --api-key-env OPENAI_API_KEY
  sselint probe https://api.anthropic.com/v1 --dialect messages --model claude-3-5-haiku-latest \\
      --api-key-env ANTHROPIC_API_KEY --reasoning
  sselint probe https://generativelanguage.googleapis.com --dialect gemini --model gemini-2.5-flash \\
      --api-key-env GEMINI_API_KEY
  sselint probe https://us-central1-aiplatform.googleapis.com/v1/projects/P/locations/us-central1 \\
      --dialect gemini --model gemini-2.5-flash --api-key-env VERTEX_ACCESS_TOKEN
  sselint probe http://localhost:4000/v1 --model m --only plain,usage,tool -o probe-out
  sselint probe http://localhost:4000/v1 --model m --report sarif=probe.sarif
  sselint probe https://a.example/v1 https://b.example/v1 --model m   compare two endpoints
  sselint probe http://localhost:11434 --dialect ollama --model llama3.2
  sselint probe https://bedrock-runtime.us-east-1.amazonaws.com --dialect bedrock-converse \
      --model anthropic.claude-sonnet-4-5-20250929-v1:0 --reasoning

The base URL gets the dialect's path: /chat/completions (--dialect chat, the
default), /responses or /messages; a URL already ending in one of those is
used as it is and names the dialect. Ollama (--dialect ollama) takes the
origin and /api/chat; Bedrock (bedrock-converse, bedrock-invoke) takes the
origin and /model/MODEL/converse-stream or
/model/MODEL/invoke-with-response-stream, each request signed with SigV4
from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN and
AWS_REGION (or sent with --api-key-env's Bedrock API key as a Bearer token). Gemini (--dialect gemini) puts the
model in the path, /models/MODEL:streamGenerateContent?alt=sse: an origin
or proxy prefix gains /v1beta first, a URL ending in /v1, /v1beta or
/v1beta1 gains only the model's path, Vertex AI's
.../v1/projects/P/locations/L gains /publishers/google first, and an
endpoint URL given whole gets ?alt=sse unless its query has an alt. Only
that URL is contacted, one request at a time (--delay-ms between), each with
a small token budget and --timeout seconds at most.

Scenarios (--only/--skip take these names):
  chat:      plain usage length stop tool parallel-tools n2 json long
             reasoning (with --reasoning) invalid disconnect
  responses: plain length tool json long reasoning (with --reasoning)
             invalid disconnect
  messages:  plain length stop tool long thinking (with --reasoning)
             invalid disconnect
  gemini:    plain length stop tool n2 json long thinking (with
             --reasoning) invalid disconnect
  ollama, bedrock-converse, bedrock-invoke:
             plain length stop tool long thinking (with --reasoning)
             invalid disconnect

Verdicts: pass (no finding at or above --fail-on), fail (one is),
unsupported (an optional feature - stop, tool, parallel-tools, n2, json,
reasoning, thinking - answered with a bad-request status: 400, 422 or
another 4xx not named below, or 501), error (the scenario could not be
judged: nothing came back, as with a refused connection or a time-out
before the response; HTTP 401/403, check the key; 404, the URL looks
wrong; 408, the server timed the request out; 429,
rate-limited, try --delay-ms; a 3xx redirect, not followed; or Ctrl-C
cut it short). When nothing answers the first scenario (connection
refused, no such host, a TLS failure) or the answer is not readable HTTP
(a response head too big or with too many fields, another protocol), the
probe says so once and runs no more on that endpoint. `invalid` passes
when the server answers such a 4xx with a JSON error, and fails on a 2xx
stream or a 5xx.

Each capture is saved as HAR (keys and cookies redacted) in -o DIR
(default: a new directory probe-YYYYmmdd-HHMMSS, with -2, -3, … when
taken; with two URLs, DIR/a and DIR/b), named by scenario: plain.har, tool.har, … Captures are linted with
their request, so usage-missing, choice-index and the tool-call rules
apply. The probe's own rules judge what one stream alone cannot
(`sselint rule NAME` explains each): probe-n-ignored, probe-no-tool-call,
probe-wrong-tool, probe-not-cut, probe-stop-ignored, probe-json-invalid,
probe-invalid-accepted, probe-error-not-json,
probe-no-answer-after-disconnect, probe-timeout, probe-too-long,
probe-http-status. Ctrl-C stops after keeping what came.

Secrets - the key, a -H header whose name holds key, token, auth, secret,
password, session, cookie, signature or credential (Apikey, X-Auth), the
URL's password and secret query values (?api_key=, ?sig=) - are masked
wherever the server echoes them, in captures and reports (in a compressed
body decoded, and JSON-escaped ones in their decoded strings); a capture
whose body would still show one (a key split across two events) is saved
without its body, and the card says so. One under 8
bytes (a placeholder such as EMPTY) is masked in the saved request only,
not searched for in answers, where it would match the stream's own text;
the card says so.

A server to try it on: `sselint replay tests/fixtures/probe/good --listen
127.0.0.1:8080` (that directory is in a checkout of the sselint source, not
in an installed package) answers each scenario from a capture (`sselint
replay --help`).

A ws:// or wss:// URL probes an API's WebSocket mode (OpenAI Responses):
each scenario's body goes as a `response.create` on a socket of its own,
saved as NAME.jsonl; disconnect is not run over a socket.

Exit codes: 0 every scenario pass or unsupported, 1 a scenario failed or
could not be judged (fail or error), 2 usage error (nothing was sent; a
URL without http://, https://, ws:// or wss://, or with a #fragment or a space, a bad -H
name, a key or -H value with a control or non-ASCII character, a --report
file in a missing directory, `-`, the capture directory itself, named twice,
or named like a capture in the capture directory) or a --report file that could not
be written (the card is printed first), 130 interrupted by Ctrl-C (the
card lists the scenarios not run).";

/// Report formats of `probe`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A table of scenario × verdict, then the findings.
    Human,
    /// One JSON document (`"version": 1`).
    Json,
    /// SARIF 2.1.0 (GitHub code scanning).
    Sarif,
    /// JUnit XML, one testcase per scenario.
    Junit,
    /// GitHub Actions workflow commands.
    Github,
}

/// Send a set of streaming scenarios to an endpoint and print a report card.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// The API base URL (`http://127.0.0.1:8080/v1`), or the endpoint
    /// itself; a second one compares the two endpoints scenario by
    /// scenario.
    #[arg(value_name = "BASE_URL", required = true, num_args = 1..=2)]
    urls: Vec<String>,
    /// The model every request names.
    #[arg(long, value_name = "MODEL")]
    model: String,
    /// Environment variable holding the API key, sent as `Authorization:
    /// Bearer …` (`x-api-key` for Messages, `x-goog-api-key` for Gemini, a
    /// Bearer token to Vertex AI's project paths; a Bedrock API key);
    /// never printed, never saved. Without it, Bedrock requests are signed
    /// with SigV4 from the AWS environment variables.
    #[arg(long, value_name = "VAR")]
    api_key_env: Option<String>,
    /// An extra request header, `Name: value` (repeatable); it replaces
    /// the probe's own header of that name (Content-Type, Accept, the
    /// key's Authorization or x-api-key, anthropic-version).
    /// Content-Length, Transfer-Encoding, Host, Connection and the other
    /// hop-by-hop headers are refused (usage error).
    #[arg(short = 'H', long = "header", value_name = "NAME: VALUE")]
    headers: Vec<String>,
    /// The API: `chat` (default), `responses`, `messages`, `gemini`,
    /// `ollama`, `bedrock-converse` or `bedrock-invoke` (`realtime` has no
    /// scenarios yet); a URL ending in the API's path names it.
    #[arg(long, value_enum, default_value = "auto")]
    dialect: super::DialectArg,
    /// Run only these scenarios (comma-separated).
    #[arg(long, value_name = "S,…", value_delimiter = ',')]
    only: Vec<String>,
    /// Leave out these scenarios (comma-separated).
    #[arg(long, value_name = "S,…", value_delimiter = ',')]
    skip: Vec<String>,
    /// Where to save the captures [default: a new directory
    /// probe-YYYYmmdd-HHMMSS, or probe-YYYYmmdd-HHMMSS-2, … when taken].
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    output: Option<PathBuf>,
    /// Replace the captures already in DIR: every file a probe run names
    /// (SCENARIO.har of any dialect's scenario, disconnect-dropped.har) is
    /// removed first, so DIR holds this run alone; other files stay.
    #[arg(long)]
    force: bool,
    /// Milliseconds to wait between scenarios (rate limits).
    #[arg(long, default_value_t = 0, value_name = "MS")]
    delay_ms: u64,
    /// The longest one scenario may take, in seconds (disconnect's two
    /// requests share it).
    #[arg(long, default_value_t = 60.0, value_name = "SECS")]
    timeout: f64,
    /// Also run the reasoning scenario (`thinking` for Messages, Gemini,
    /// Ollama and Bedrock).
    #[arg(long)]
    reasoning: bool,
    /// Report format.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Also write FORMAT to FILE, atomically (repeatable, each to its own
    /// FILE), e.g. `--report sarif=probe.sarif`; stdout keeps --format.
    #[arg(long = "report", value_name = "FORMAT=FILE")]
    reports: Vec<String>,
    /// The lowest severity that fails a scenario (and the run): `error`,
    /// `warning`, `info`, or `never` (scenarios are judged at `error` on
    /// the card, and only one that could not run fails the run).
    #[arg(long, value_enum, default_value = "error")]
    fail_on: sselint::lint::FailOn,
    /// Provider profile the captures are linted under.
    #[arg(long, default_value = "openai", value_name = "NAME")]
    profile: String,
    /// Accept any TLS certificate.
    #[arg(long)]
    insecure: bool,
    /// Chat: send the token budget as `max_completion_tokens`, which
    /// OpenAI's reasoning models require, instead of `max_tokens`.
    #[arg(long)]
    max_completion_tokens: bool,
    /// Colour of the human report.
    #[arg(long, value_enum, default_value = "auto")]
    color: ColorChoice,
}

/// Whether `s` is an HTTP token, as a header name must be: ASCII letters,
/// digits and ``!#$%&'*+-.^_`|~`` (RFC 9110 §5.6.2), no space.
fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// The longest `--timeout`, in seconds: a day.
const MAX_TIMEOUT_SECS: f64 = 86_400.0;

/// Why URL `u` cannot be probed, checked before any request: a scheme
/// other than http:// or https://, a fragment (which HTTP does not send),
/// a space or control character, what the HTTP client's URI parser
/// refuses (`<`, a broken `[::1`), or a port of 0 or past 65535. The URL is shown
/// redacted.
fn url_problem(u: &str) -> Option<String> {
    let shown = sselint::capture::redact_url(u);
    let lower = u.to_ascii_lowercase();
    let socket = lower.starts_with("ws://") || lower.starts_with("wss://");
    if !(lower.starts_with("http://") || lower.starts_with("https://") || socket) {
        return Some(match u.split_once("://") {
            Some((scheme, _)) => format!(
                "{shown}: only http:// and https:// URLs are supported (and ws:// or wss:// for an API's WebSocket mode), not {}://",
                sselint::lint::printable(scheme)
            ),
            None => format!(
                "{shown} is not an http:// or https:// URL; give the scheme, e.g. http://{shown}"
            ),
        });
    }
    if u.contains('#') {
        return Some(format!(
            "{shown}: the URL has a fragment (#…), which is never sent to the server; leave it out"
        ));
    }
    if let Some(c) = u.chars().find(|c| c.is_whitespace() || c.is_control()) {
        return Some(format!(
            "{shown:?}: the URL holds {}, which a URL cannot; percent-encode it or leave it out",
            if c == ' ' {
                "a space".to_string()
            } else {
                format!("the character {:?}", c)
            }
        ));
    }
    match ureq::http::Uri::try_from(u) {
        Err(e) => Some(format!("{shown}: not a valid URL ({e})")),
        Ok(uri) => {
            // `host:99999`: the URI parser keeps it; the connection fails.
            let authority = uri.authority().map_or("", |a| a.as_str());
            let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
            let port = match host.strip_prefix('[') {
                Some(v6) => v6.split_once("]:").map(|(_, p)| p),
                None => host.split_once(':').map(|(_, p)| p),
            };
            // Port 0 names no port a server listens on.
            port.filter(|p| !p.is_empty() && !p.parse::<u16>().is_ok_and(|n| n > 0))
                .map(|_| format!("{shown}: the port is not a number from 1 to 65535"))
        }
    }
}

/// The endpoint URL and dialect for `base` and `model`: the dialect the
/// URL names, else `dialect` (`--dialect`), else the default; the URL as
/// that dialect's API builds it ([`Dialect::url_under`]: Gemini's model
/// path and `?alt=sse`).
fn endpoint(base: &str, model: &str, dialect: Option<Dialect>) -> (String, Dialect) {
    let d = sselint::dialect::sniff_url(base)
        .or(dialect)
        .unwrap_or(sselint::dialect::DEFAULT);
    (d.url_under(base, model), d)
}

/// The scenarios to run for `dialect`.
fn selection(a: &Args, dialect: Dialect) -> Result<Vec<Scenario>, String> {
    let all = probe::scenarios(dialect);
    for n in a.only.iter().chain(&a.skip) {
        if !all.iter().any(|s| s.name == n) {
            let names: Vec<_> = all.iter().map(|s| s.name).collect();
            return Err(format!(
                "no scenario {n:?} for {}; its scenarios: {}",
                dialect.title(),
                names.join(", ")
            ));
        }
    }
    Ok(all
        .iter()
        .copied()
        .filter(|s| {
            if a.only.is_empty() {
                !s.reasoning || a.reasoning
            } else {
                a.only.iter().any(|o| o == s.name)
            }
        })
        .filter(|s| !a.skip.iter().any(|o| o == s.name))
        .collect())
}

/// `YYYYmmdd-HHMMSS` (UTC) for the default directory.
fn stamp() -> String {
    let [year, month, day, h, m, s] = sselint::live::utc_parts(std::time::SystemTime::now());
    format!("{year:04}{month:02}{day:02}-{h:02}{m:02}{s:02}")
}

/// The file names a probe run may write in its directory: `NAME.har` for
/// every scenario of every dialect, and `disconnect-dropped.har`.
fn capture_names() -> Vec<String> {
    let mut out: Vec<String> = sselint::dialect::ALL
        .iter()
        .flat_map(|d| probe::scenarios(*d))
        .map(|s| format!("{}.har", s.name))
        .collect();
    out.push("disconnect-dropped.har".into());
    out.sort();
    out.dedup();
    out
}

/// Makes `dir` ready for the captures of `names`: created when missing;
/// an existing capture is an error unless `force`, which removes every
/// capture an earlier run may have left ([`capture_names`]), so that the
/// directory holds one run; other files stay.
fn prepare_dir(dir: &Path, names: &[Scenario], force: bool) -> Result<(), String> {
    if dir.exists() && !dir.is_dir() {
        return Err(format!(
            "-o {}: that is a file, not a directory; -o takes the directory for the captures",
            dir.display()
        ));
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    if force {
        for f in capture_names() {
            let p = dir.join(&f);
            // A file only: a directory of that name is the user's.
            if p.symlink_metadata().is_ok_and(|m| !m.is_dir()) {
                std::fs::remove_file(&p)
                    .map_err(|e| format!("--force: removing {}: {e}", p.display()))?;
            }
        }
        return Ok(());
    }
    for s in names {
        let mut files = vec![format!("{}.har", s.name)];
        if s.name == "disconnect" {
            files.push("disconnect-dropped.har".into());
        }
        for f in files {
            let p = dir.join(&f);
            if p.exists() {
                return Err(format!(
                    "{} already exists; choose another -o DIR, or --force to replace it",
                    p.display()
                ));
            }
        }
    }
    Ok(())
}

/// The usual file extension of a report in `f`.
fn report_ext(f: Format) -> &'static str {
    match f {
        Format::Json => "json",
        Format::Sarif => "sarif",
        Format::Junit => "xml",
        Format::Human | Format::Github => "txt",
    }
}

fn usage_error(msg: &str) -> ExitCode {
    eprintln!("sselint: error: {msg}");
    ExitCode::from(2)
}

/// Whether `s` goes in a header as the probe sends it: no control
/// character, not even the horizontal tab RFC 9110 §5.5 allows (a tab
/// echoed JSON-escaped as `\t` split the value where masking looked for
/// it whole).
fn header_safe(s: &str) -> bool {
    !s.chars().any(char::is_control)
}

/// Whether `name` is a header the HTTP client writes itself, as it frames
/// or routes the request (RFC 9110 §7.2, §7.6.1, §8.6, RFC 9112 §6.1): a
/// `-H` of it would contradict the request sent (a `Content-Length`
/// beside chunked framing).
fn framing_header(name: &str) -> bool {
    [
        "content-length",
        "transfer-encoding",
        "host",
        "connection",
        "keep-alive",
        "proxy-connection",
        "te",
        "trailer",
        "upgrade",
    ]
    .iter()
    .any(|h| name.eq_ignore_ascii_case(h))
}

/// The `-H` headers, each checked: `Name: value` with a token for a name,
/// no control or non-ASCII character, and none the HTTP client sets.
fn headers(a: &Args) -> Result<Vec<(String, String)>, String> {
    let mut headers = Vec::new();
    for h in &a.headers {
        let Some((n, v)) = h.split_once(':') else {
            return Err(sselint::live::NO_COLON.to_string());
        };
        let (n, v) = (n.trim(), v.trim());
        if n.is_empty() {
            return Err("-H: the header name is empty (`: value`); -H takes `Name: value`; the value is not shown".to_string());
        }
        if !header_safe(n) || !header_safe(v) {
            return Err(format!(
                "-H {}: the name or value holds a control character (a tab, a stray CR or newline?), which the probe does not send: a tab could split the value where the server echoes it, past the masking; the value is not shown",
                sselint::lint::printable(n)
            ));
        }
        if !v.is_ascii() {
            return Err(format!(
                "-H {}: the value holds a non-ASCII character, which the HTTP client does not send in a header (percent-encode or base64 it, as the server expects); the value is not shown",
                sselint::lint::printable(n)
            ));
        }
        if !is_token(n) {
            return Err(format!(
                "-H {}: not a header name; a name is ASCII letters, digits and !#$%&'*+-.^_`|~, with no space; the value is not shown",
                sselint::lint::printable(n)
            ));
        }
        headers.push((n.to_string(), v.to_string()));
    }
    if let Some((n, _)) = headers.iter().find(|(n, _)| framing_header(n)) {
        return Err(format!(
            "-H {}: the HTTP client sets this header itself (it frames or routes the request); leave it out",
            sselint::lint::printable(n)
        ));
    }
    Ok(headers)
}

/// The API key from `--api-key-env`, checked for what a header cannot
/// carry.
fn api_key(a: &Args) -> Result<Option<String>, String> {
    Ok(match &a.api_key_env {
        Some(var) => match std::env::var(var) {
            Ok(k) if !k.is_empty() && !header_safe(&k) => {
                return Err(format!(
                    "--api-key-env: ${var} holds a control character (a stray CR or newline?), which an HTTP header cannot carry; the key is not shown"
                ))
            }
            Ok(k) if !k.is_ascii() => {
                return Err(format!(
                    "--api-key-env: ${var} holds a non-ASCII character (a stray quote or space pasted with it?), which an HTTP header cannot carry; the key is not shown"
                ))
            }
            Ok(k) if !k.is_empty() => Some(k),
            Ok(_) => return Err(format!("--api-key-env: ${var} is empty")),
            Err(_) => return Err(format!("--api-key-env: ${var} is not set")),
        },
        None => None,
    })
}

/// The `--report FORMAT=FILE` files, checked before any request: a known
/// format, a file in an existing directory, none named twice, none that is
/// or would replace a capture.
fn report_files(
    a: &Args,
    root: &Path,
    capture_dirs: &[PathBuf],
) -> Result<Vec<(Format, PathBuf)>, String> {
    let mut reports = Vec::new();
    for r in &a.reports {
        use clap::ValueEnum as _;
        let Some((fmt, file)) = r.split_once('=') else {
            return Err(format!(
                "--report takes FORMAT=FILE (e.g. sarif=probe.sarif), not {r:?}"
            ));
        };
        let Ok(f) = Format::from_str(fmt, true) else {
            return Err(format!(
                "--report: unknown format {fmt:?}; use human, json, sarif, junit or github"
            ));
        };
        if file.is_empty() {
            return Err(format!("--report {fmt}= needs a file name"));
        }
        if sselint::output::is_stdout(Path::new(file)) {
            return Err(format!(
                "--report {fmt}={file}: standard output carries the main report; use --format {fmt} for it"
            ));
        }
        // Checked before any request, so that a typo costs no scenario run.
        let parent = Path::new(file)
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        // The capture directory is made before the report is written.
        let in_captures = parent.components().eq(root.components());
        if !parent.is_dir() && !in_captures {
            return Err(format!(
                "--report {fmt}={file}: the directory {} does not exist",
                parent.display()
            ));
        }
        if Path::new(file).is_dir() {
            return Err(format!(
                "--report {fmt}={file}: that is a directory; give a file name"
            ));
        }
        // Two reports to one file: the second would silently replace the
        // first. (One format to two files is allowed.)
        let same = |p: &Path| -> PathBuf {
            let parent = p
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            let parent = parent.canonicalize().unwrap_or_else(|_| {
                parent
                    .components()
                    .filter(|c| *c != std::path::Component::CurDir)
                    .collect()
            });
            parent.join(p.file_name().unwrap_or_default())
        };
        // The capture directory itself (made only once the scenarios
        // start, so not yet a directory above).
        if std::iter::once(root)
            .chain(capture_dirs.iter().map(PathBuf::as_path))
            .any(|d| same(d) == same(Path::new(file)))
        {
            return Err(format!(
                "--report {fmt}={file}: that is the capture directory (-o); give the report a file name, e.g. {fmt}={}",
                Path::new(file).join(format!("probe.{}", report_ext(f))).display()
            ));
        }
        if let Some((g, _)) = reports
            .iter()
            .find(|(_, q): &&(Format, PathBuf)| same(q) == same(Path::new(file)))
        {
            use clap::ValueEnum as _;
            let earlier = g
                .to_possible_value()
                .map_or(String::new(), |v| v.get_name().to_string());
            return Err(format!(
                "--report {fmt}={file}: that file is named twice (also for {earlier}); give each report its own file"
            ));
        }
        // A report named like a capture, in a capture directory, would
        // replace this run's capture (or an earlier run's, which only
        // --force may remove).
        let file_name = Path::new(file).file_name().unwrap_or_default();
        if capture_names()
            .iter()
            .any(|n| std::ffi::OsStr::new(n) == file_name)
            && capture_dirs
                .iter()
                .any(|d| same(&d.join(file_name)) == same(Path::new(file)))
        {
            return Err(format!(
                "--report {fmt}={file}: that is a capture's name in the capture directory; the report would replace the capture; give the report another name"
            ));
        }
        reports.push((f, PathBuf::from(file)));
    }
    Ok(reports)
}

pub fn run(mut a: Args) -> anyhow::Result<ExitCode> {
    // `--only "plain, usage"`: names without their spaces.
    for (opt, list) in [("--only", &mut a.only), ("--skip", &mut a.skip)] {
        let given = !list.is_empty();
        for n in list.iter_mut() {
            *n = n.trim().to_string();
        }
        list.retain(|n| !n.is_empty());
        if given && list.is_empty() {
            return Ok(usage_error(&format!(
                "{opt} names no scenario; give names, e.g. {opt} plain,usage"
            )));
        }
    }
    if a.output.as_deref() == Some(Path::new("-")) {
        // The card goes to stdout; the captures are files in a directory.
        return Ok(usage_error(
            "-o -: probe saves its captures in a directory, and the card already goes to standard output (/dev/stdout); give a directory name (write ./- for a directory named -)",
        ));
    }
    let mut settings = super::profile_settings(&a.profile)?;
    // `never` judges the card's scenarios at `error`; the exit code then
    // ignores their findings (below), as `check --fail-on never` does.
    let never = a.fail_on.threshold().is_none();
    let fail_on = a.fail_on.threshold().unwrap_or(Severity::Error);
    if a.model.trim().is_empty() {
        return Ok(usage_error(
            "--model is empty; give the model name the endpoint serves",
        ));
    }
    if !(a.timeout > 0.0 && a.timeout <= MAX_TIMEOUT_SECS) {
        return Ok(usage_error(&format!(
            "--timeout takes a positive number of seconds, at most {MAX_TIMEOUT_SECS} (a day)"
        )));
    }
    let headers = match headers(&a) {
        Ok(h) => h,
        Err(e) => return Ok(usage_error(&e)),
    };
    let api_key = match api_key(&a) {
        Ok(k) => k,
        Err(e) => return Ok(usage_error(&e)),
    };
    for u in &a.urls {
        if let Some(e) = url_problem(u) {
            return Ok(usage_error(&e));
        }
        if let (Some(named), Some(given)) = (sselint::dialect::sniff_url(u), a.dialect.dialect()) {
            if named != given {
                return Ok(usage_error(&format!(
                    "{} is {} endpoint, but --dialect says {given}; give the base URL (…/v1) or drop --dialect",
                    sselint::capture::redact_url(u),
                    named.a_title()
                )));
            }
        }
    }
    let targets: Vec<Target> = a
        .urls
        .iter()
        .map(|u| {
            let (url, dialect) = endpoint(u, &a.model, a.dialect.dialect());
            Target {
                url,
                dialect,
                model: a.model.clone(),
                headers: headers.clone(),
                aws: super::live::aws_credentials(dialect, api_key.is_some(), &headers),
                api_key: api_key.clone(),
                timeout: Duration::from_secs_f64(a.timeout),
                insecure: a.insecure,
                max_completion_tokens: a.max_completion_tokens,
            }
        })
        .collect();
    if targets.len() == 2 && targets[0].dialect != targets[1].dialect {
        return Ok(usage_error(&format!(
            "the two endpoints speak different APIs ({} and {}); probe compares endpoints of one API",
            targets[0].dialect, targets[1].dialect
        )));
    }
    let dialect = targets[0].dialect;
    settings.dialect = Some(dialect);
    let chosen = match selection(&a, dialect) {
        Ok(s) if s.is_empty() => return Ok(usage_error("--only/--skip leave no scenario to run")),
        Ok(s) => s,
        Err(e) => return Ok(usage_error(&e)),
    };
    let mut root = a
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("probe-{}", stamp())));
    // The directories the captures go to (a report must not replace one).
    let capture_dirs: Vec<PathBuf> = if targets.len() == 2 {
        vec![root.join("a"), root.join("b")]
    } else {
        vec![root.clone()]
    };
    let reports = match report_files(&a, &root, &capture_dirs) {
        Ok(r) => r,
        Err(e) => return Ok(usage_error(&e)),
    };

    if a.output.is_none() {
        // Made here, atomically: a second run started in the same second
        // takes probe-YYYYmmdd-HHMMSS-2 (then -3, …).
        let stamped = root.clone();
        let mut n = 1;
        loop {
            match std::fs::create_dir(&root) {
                Ok(()) => break,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1000 => {
                    n += 1;
                    root = PathBuf::from(format!("{}-{n}", stamped.display()));
                }
                Err(e) => {
                    return Ok(usage_error(&format!("creating {}: {e}", root.display())));
                }
            }
        }
    }
    let dirs: Vec<PathBuf> = if targets.len() == 2 {
        vec![root.join("a"), root.join("b")]
    } else {
        vec![root.clone()]
    };
    for d in &dirs {
        if let Err(e) = prepare_dir(d, &chosen, a.force) {
            return Ok(usage_error(&e));
        }
    }
    let stop = sselint::live::interrupted();
    let mut cards = Vec::new();
    for (t, dir) in targets.iter().zip(&dirs) {
        cards.push(run_card(
            t,
            dir,
            &chosen,
            a.delay_ms,
            (&settings, fail_on),
            &stop,
        ));
    }
    let interrupted = stop.load(Ordering::Relaxed);
    for c in &mut cards {
        if c.outcomes.iter().any(|o| o.interrupted) {
            c.interrupted = true;
        }
    }
    if interrupted {
        // A card that finished before Ctrl-C stays as it was.
        for c in &mut cards {
            if !c.not_run.is_empty() {
                c.interrupted = true;
            }
        }
        eprintln!("sselint: interrupted: reporting the scenarios run so far");
    }
    let compare = (cards.len() == 2).then(|| compare_cards(&cards[0], &cards[1], &settings));
    // The card first: a report file that cannot be written late must not
    // lose it.
    let buf = render(
        a.format,
        &cards,
        compare.as_deref(),
        (fail_on, never),
        a.color.enabled(),
    )?;
    let code = super::write_report(None, &buf)?;
    if code != ExitCode::SUCCESS {
        return Ok(code);
    }
    let mut report_failed = false;
    for (f, path) in &reports {
        let buf = render(*f, &cards, compare.as_deref(), (fail_on, never), false)?;
        if super::write_report(Some(path), &buf)? != ExitCode::SUCCESS {
            report_failed = true;
        }
    }
    if report_failed {
        return Ok(ExitCode::from(2));
    }
    let all = cards.iter().flat_map(|c| &c.outcomes);
    let verdicts: Vec<Verdict> = all.map(|o| o.verdict).collect();
    Ok(if interrupted {
        ExitCode::from(130)
    } else if verdicts.contains(&Verdict::Error) || (!never && verdicts.contains(&Verdict::Fail)) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The scenarios `chosen` run one by one on target `t`, saved in `dir`:
/// its card. Ctrl-C (`stop`) and an endpoint that cannot be reached at
/// all leave the rest not run.
fn run_card(
    t: &Target,
    dir: &Path,
    chosen: &[Scenario],
    delay_ms: u64,
    (settings, fail_on): (&sselint::lint::Settings, Severity),
    stop: &AtomicBool,
) -> Card {
    let progress = std::io::stderr().is_terminal();
    let mut card = Card {
        endpoint: sselint::capture::redact_url(&t.url),
        dialect: t.dialect,
        dir: dir.to_path_buf(),
        outcomes: Vec::new(),
        interrupted: false,
        not_run: Vec::new(),
        halted: None,
        short_secrets: probe::short_secrets(t),
    };
    for (i, s) in chosen.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            card.interrupted = true;
            card.not_run.push(s.name);
            continue;
        }
        if card.halted.is_some() {
            card.not_run.push(s.name);
            continue;
        }
        if i > 0 && delay_ms > 0 {
            let mut left = delay_ms;
            while left > 0 && !stop.load(Ordering::Relaxed) {
                let step = left.min(50);
                std::thread::sleep(Duration::from_millis(step));
                left -= step;
            }
            // Ctrl-C during the wait: nothing more is sent.
            if stop.load(Ordering::Relaxed) {
                card.interrupted = true;
                card.not_run.push(s.name);
                continue;
            }
        }
        if progress {
            eprint!("\r\x1b[2K  {} {} …", card.endpoint, s.name);
        }
        let o = probe::run_scenario(t, *s, dir, settings, fail_on, stop);
        // Nothing at all came back to the first request (connection
        // refused, no such host, a TLS failure), or nothing a client
        // can read as HTTP: the other scenarios would only say it
        // again.
        // A time-out is not that: a model loading cold answers late
        // and the next scenario may be answered.
        let timed_out = o
            .note
            .as_deref()
            .is_some_and(|n| n.contains("within --timeout") || n.contains("within --read-timeout"));
        let unreachable = i == 0
            && o.verdict == Verdict::Error
            && o.status.is_none()
            && !timed_out
            && !o.interrupted
            && !stop.load(Ordering::Relaxed);
        if unreachable {
            let why = if o
                .note
                .as_deref()
                .is_some_and(|n| n.contains(sselint::live::NOT_HTTP))
            {
                sselint::live::NOT_HTTP
            } else {
                "the endpoint could not be reached"
            };
            card.halted = Some(format!(
                "{why} (see {}); the other scenarios were not run",
                o.name
            ));
        }
        card.outcomes.push(o);
    }
    if progress {
        eprint!("\r\x1b[2K");
    }
    card
}

/// The report in `format`, rendered by `report::probe`.
fn render(
    format: Format,
    cards: &[Card],
    compare: Option<&[ScenarioDiff]>,
    (fail_on, never): (Severity, bool),
    color: bool,
) -> anyhow::Result<Vec<u8>> {
    let mut buf = Vec::new();
    match format {
        Format::Human => report::human(cards, compare, color, fail_on, &mut buf)?,
        Format::Json => {
            let doc = report::json_report(cards, compare, fail_on, never);
            serde_json::to_writer_pretty(&mut buf, &doc)?;
            buf.push(b'\n');
        }
        Format::Sarif => {
            serde_json::to_writer_pretty(&mut buf, &report::sarif(cards))?;
            buf.push(b'\n');
        }
        Format::Junit => report::junit(cards, &mut buf).context("writing JUnit XML")?,
        Format::Github => report::github(cards, &mut buf)?,
    }
    Ok(buf)
}
