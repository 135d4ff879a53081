//! `sselint record` (and `check URL`): record a live stream to HAR while
//! linting it; `sselint replay`: serve a capture as an endpoint.

use super::ColorChoice;
use anyhow::{bail, Context as _};
use sselint::checks::{Context, Linter};
use sselint::lint::{Settings, Severity};
use sselint::live::{self, Recording};
use sselint::sse::Parser;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// Options of a live request (`record`, `check URL`).
#[derive(Debug, clap::Args, Clone)]
pub struct LiveArgs {
    /// The request body (JSON); `"stream": true` is forced.
    #[arg(long, value_name = "FILE")]
    body: Option<PathBuf>,
    /// An extra request header, `Name: value` (repeatable).
    #[arg(short = 'H', long = "header", value_name = "NAME: VALUE")]
    headers: Vec<String>,
    /// Environment variable holding the API key, sent as `Authorization:
    /// Bearer …`, as `x-api-key` to an Anthropic Messages endpoint, or as
    /// `x-goog-api-key` to a Gemini one (a Bearer token to Vertex AI's
    /// project paths; a Bedrock API key as a Bearer token); never printed,
    /// never saved. Without it, a Bedrock request is signed with SigV4
    /// from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN
    /// and AWS_REGION (or AWS_DEFAULT_REGION, else the host's region).
    #[arg(long, value_name = "VAR")]
    api_key_env: Option<String>,
    /// Stop after this many seconds (what arrived is kept).
    #[arg(long, value_name = "SECS")]
    timeout: Option<f64>,
    /// Stop when nothing arrives for this many seconds (what arrived is
    /// kept).
    #[arg(long, default_value_t = 300.0, value_name = "SECS")]
    read_timeout: f64,
    /// Do not add `stream_options.include_usage` (Chat Completions only;
    /// Responses, Messages and Gemini streams carry usage unasked).
    #[arg(long)]
    no_usage: bool,
    /// Accept any TLS certificate.
    #[arg(long)]
    insecure: bool,
}

impl LiveArgs {
    /// The request for `url`; its dialect is `dialect` when given, else the
    /// one the URL's path names, else Chat Completions.
    fn request(
        &self,
        url: &str,
        dialect: Option<sselint::dialect::Dialect>,
    ) -> anyhow::Result<live::Request> {
        let Some(path) = &self.body else {
            bail!("a live URL needs --body FILE (the request JSON)");
        };
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the request body {}", path.display()))?;
        let body: serde_json::Value = serde_json::from_str(&text)
            .with_context(|| format!("{}: the request body is not JSON", path.display()))?;
        let mut headers = Vec::new();
        for h in &self.headers {
            let Some((n, v)) = h.split_once(':') else {
                bail!(live::NO_COLON);
            };
            headers.push((n.trim().to_string(), v.trim().to_string()));
        }
        let api_key = match &self.api_key_env {
            Some(var) => Some(
                std::env::var(var).with_context(|| format!("--api-key-env: ${var} is not set"))?,
            ),
            None => None,
        };
        // The path names the API where it is one an API streams at (its
        // endpoint, or another path it names: Gemini's `tunedModels/…`).
        let path_dialect = || {
            let path = url.split(['?', '#']).next().unwrap_or(url);
            let path = path
                .split_once("://")
                .and_then(|(_, rest)| rest.find('/').map(|i| &rest[i..]))
                .unwrap_or(path);
            sselint::dialect::sniff_url(url).or_else(|| sselint::dialect::endpoint_of(path))
        };
        let dialect = match dialect.or_else(path_dialect) {
            Some(d) => d,
            None => request_dialect(url, &body),
        };
        let aws = aws_credentials(dialect, api_key.is_some(), &headers);
        Ok(live::Request {
            url: url.to_string(),
            dialect,
            body,
            headers,
            api_key,
            aws,
            include_usage: !self.no_usage,
            timeout: self.timeout.map(Duration::from_secs_f64),
            read_timeout: Duration::from_secs_f64(self.read_timeout.max(0.001)),
            insecure: self.insecure,
            follow_redirects: true,
        })
    }
}

/// The AWS credentials of the environment for a request to an API signed
/// with SigV4 (Bedrock) that has no key (`--api-key-env`: a Bedrock API
/// key goes as a Bearer token) and no `Authorization` header of the
/// user's. Without them a note says the request goes unsigned.
pub(super) fn aws_credentials(
    dialect: sselint::dialect::Dialect,
    keyed: bool,
    headers: &[(String, String)],
) -> Option<live::sigv4::Credentials> {
    dialect.api().sigv4_service()?;
    if keyed
        || headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("authorization"))
    {
        return None;
    }
    let creds = live::sigv4::Credentials::from_env();
    if creds.is_none() {
        eprintln!(
            "sselint: note: {} takes a SigV4 signature or a Bedrock API key, and neither AWS_ACCESS_KEY_ID with AWS_SECRET_ACCESS_KEY nor --api-key-env is given: the request goes unsigned",
            dialect.title()
        );
    }
    creds
}

/// The dialect of a request to a URL whose path names none (a gateway's
/// `/api/proxy`): the one the request body is, said on stderr since it
/// decides the headers sent; Chat when the body fits several, with a
/// warning that says how to choose.
fn request_dialect(url: &str, body: &serde_json::Value) -> sselint::dialect::Dialect {
    use sselint::dialect::{sniff_request, Dialect, RequestKind};
    // The path only: a query string may hold a key.
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let path = path
        .split_once("://")
        .and_then(|(_, rest)| rest.find('/').map(|i| &rest[i..]))
        .unwrap_or("/");
    let path = sselint::lint::printable(path);
    let how = |d: Dialect| d.api().auth().how;
    match sniff_request(body) {
        RequestKind::Is(d, why) => {
            eprintln!(
                "sselint: note: the URL path `{path}` names no API; the request body is {} request ({why}): sending it as one ({}); `--dialect` chooses another",
                d.a_title(),
                how(d)
            );
            d
        }
        RequestKind::Ambiguous(why) => {
            let d = sselint::dialect::DEFAULT;
            eprintln!(
                "sselint: warning: the URL path `{path}` names no API and the request body does not tell ({why}): sending it as {} ({}); pass `--dialect` ({}) if it is for another API",
                d.title(),
                how(d),
                sselint::dialect::ALL
                    .iter()
                    .filter(|x| **x != d)
                    .map(|x| x.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            d
        }
    }
}

/// Records `url` to `out` (atomically). With `live`, findings are printed
/// as they happen and a status line runs on a terminal. Gives the
/// recording and the length of the body saved (its bytes are in the file).
pub fn record_to(
    url: &str,
    args: &LiveArgs,
    out: &Path,
    live: bool,
    settings: &Settings,
) -> anyhow::Result<(Recording, u64)> {
    let req = args.request(url, settings.dialect)?;
    let stop = live::interrupted();
    let mut parser = Parser::new();
    let ctx = Context {
        url: Some(url.to_string()),
        ..Context::default()
    };
    let mut linter = Linter::new(settings, ctx);
    let status = live && std::io::stderr().is_terminal();
    let mut shown = 0usize;
    let mut bytes = 0usize;
    let mut reading = LiveReading::default();
    let (rec, body) = live::record_spooled(&req, &stop, |chunk, ms| {
        bytes += chunk.len();
        linter.observe_bytes(chunk);
        reading.feed(chunk, &mut parser, &mut linter, settings.max_event_bytes);
        if live {
            let mut o = std::io::stdout().lock();
            for d in &linter.out.diagnostics[shown..] {
                if d.severity >= Severity::Warning {
                    let _ = writeln!(
                        o,
                        "[{:>7.1} s] {}[{}] {} (line {})",
                        ms / 1000.0,
                        d.severity,
                        d.rule,
                        d.message,
                        d.location.line
                    );
                }
            }
            let _ = o.flush();
            shown = linter.out.diagnostics.len();
        }
        if status {
            eprint!(
                "\r\x1b[2K  {:.1} s · {} bytes · {} events",
                ms / 1000.0,
                bytes,
                linter.events
            );
        }
    })
    .map_err(anyhow::Error::msg)?;
    if status {
        eprint!("\r\x1b[2K");
    }
    // Written from the spooled body as it is read: the HAR is never held.
    let mut file = sselint::output::Streamed::create(out)
        .with_context(|| format!("writing {}", out.display()))?;
    rec.write_har(&body, &mut file)
        .and_then(|()| file.commit())
        .with_context(|| format!("writing {}", out.display()))?;
    Ok((rec, body.len()))
}

/// How `record` frames a stream as it arrives, for the findings it prints
/// then: SSE, unless the first bytes show another transport (an NDJSON
/// line, an event-stream prelude), whose framer then hands the linter
/// its messages. The report at the end is `check`'s of the saved capture.
enum LiveReading {
    /// The first bytes, until they show a transport, hold a line, or
    /// reach 4 KiB.
    Held(Vec<u8>),
    Sse,
    Framed(Box<dyn sselint::transport::Framer>),
}

/// Hands a framer's messages to the linter.
struct ToLinter<'a, 's>(&'a mut Linter<'s>);

impl sselint::transport::Sink for ToLinter<'_, '_> {
    fn message(&mut self, m: &sselint::transport::Message<'_>) {
        self.0.read_message(m);
    }
}

impl Default for LiveReading {
    fn default() -> Self {
        LiveReading::Held(Vec::new())
    }
}

impl LiveReading {
    fn feed(&mut self, chunk: &[u8], parser: &mut Parser, linter: &mut Linter<'_>, limit: usize) {
        use sselint::transport::Transport;
        let held = match std::mem::take(self) {
            LiveReading::Held(mut h) => {
                h.extend_from_slice(chunk);
                h
            }
            LiveReading::Sse => {
                *self = LiveReading::Sse;
                parser.feed(chunk, linter);
                return;
            }
            LiveReading::Framed(mut f) => {
                f.feed(chunk, &mut ToLinter(linter));
                *self = LiveReading::Framed(f);
                return;
            }
        };
        let shown = Transport::of_bytes(&held);
        if shown.is_none() && held.len() < 4096 && !held.contains(&b'\n') {
            *self = LiveReading::Held(held);
            return;
        }
        match shown.and_then(|t| t.framer(limit).map(|f| (t, f))) {
            Some((t, mut f)) => {
                linter.set_transport(t);
                f.feed(&held, &mut ToLinter(linter));
                *self = LiveReading::Framed(f);
            }
            None => {
                parser.feed(&held, linter);
                *self = LiveReading::Sse;
            }
        }
    }
}

/// Record a live stream to HAR, linting it as it arrives.
#[derive(Debug, clap::Args)]
pub struct RecordArgs {
    /// The endpoint, e.g. https://api.openai.com/v1/chat/completions,
    /// …/v1/responses, https://api.anthropic.com/v1/messages,
    /// https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse,
    /// http://localhost:11434/api/chat (Ollama) or
    /// https://bedrock-runtime.us-east-1.amazonaws.com/model/MODEL/converse-stream;
    /// or a WebSocket, ws://HOST/v1/responses or wss://…/v1/realtime (the
    /// client's messages from --body: one a line, or a capture of a
    /// session; saved as a message log).
    #[arg(value_name = "URL")]
    url: String,
    /// The API the endpoint speaks, when its path does not say (`chat`,
    /// `responses`, `messages`, `gemini`, `ollama`, `bedrock-converse`,
    /// `bedrock-invoke`, `realtime`): how the key is sent (or the request signed) and
    /// what the body gains or loses (`stream`: true for Ollama, none for
    /// Bedrock).
    #[arg(long, value_enum)]
    dialect: Option<super::DialectArg>,
    #[command(flatten)]
    live: LiveArgs,
    /// Where to save the capture (default: sselint-TIMESTAMP.har); not `-`
    /// (the capture is read back to lint it). A FIFO or device is written
    /// through.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Replace an existing output file.
    #[arg(long)]
    force: bool,
    /// Provider profile for the live findings.
    #[arg(long, default_value = "openai", value_name = "NAME")]
    profile: String,
    /// Colour of the final report.
    #[arg(long, value_enum, default_value = "auto")]
    color: ColorChoice,
    /// Exit 1 when the capture holds a finding at or above this severity
    /// (`never`: exit 0 whenever something was recorded), as `check` of
    /// the saved capture would.
    #[arg(long, value_enum, default_value = "error")]
    fail_on: sselint::lint::FailOn,
}

pub fn record(a: RecordArgs) -> anyhow::Result<ExitCode> {
    let mut settings = super::profile_settings(&a.profile)?;
    settings.dialect = a.dialect.and_then(super::DialectArg::dialect);
    let socket = a.url.starts_with("ws://") || a.url.starts_with("wss://");
    let out = a.output.clone().unwrap_or_else(|| {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        PathBuf::from(format!(
            "sselint-{secs}.{}",
            if socket { "jsonl" } else { "har" }
        ))
    });
    if sselint::output::is_stdout(&out) {
        eprintln!(
            "sselint: error: -o -: record saves a HAR file and lints it from there; give a file name"
        );
        return Ok(ExitCode::from(2));
    }
    if out.exists() && !a.force {
        eprintln!(
            "sselint: error: {} already exists; use --force to replace it",
            out.display()
        );
        return Ok(ExitCode::from(2));
    }
    if socket {
        return record_socket(&a, &out, &settings);
    }
    let (rec, body_len) = match record_to(&a.url, &a.live, &out, true, &settings) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("sselint: error: {e:#}");
            return Ok(ExitCode::from(2));
        }
    };
    let _ = writeln!(
        std::io::stdout(),
        "saved {} ({} bytes in {} reads, HTTP {}, {:.1} s, stopped: {})",
        out.display(),
        body_len,
        rec.reads.len(),
        rec.status,
        rec.total_ms / 1000.0,
        rec.stop.name()
    );
    // The HAR holds the one exchange just made: it is linted whatever the
    // response was (an HTTP error, JSON where a stream was asked for),
    // as its entry, not only when it looks like an event stream.
    let opts = sselint::capture::Options {
        entry: Some(0),
        ..Default::default()
    };
    // As `check URL` (and `check` of the saved file) with the same
    // `--fail-on`: a finding at or above it fails the run.
    Ok(lint_saved(
        &out,
        &opts,
        &settings,
        a.color.enabled(),
        a.fail_on.threshold(),
    ))
}

/// The client's side of a socket session from --body: a capture of one
/// (a message log, or a HAR whose one stream is a socket's), whose client
/// messages are sent again, each answered by as many messages as the
/// capture shows; else one JSON message, or one a line.
fn socket_script(path: &Path, text: &str) -> Result<live::socket::Script, String> {
    use sselint::transport::socket_log;
    if socket_log::looks_like(text.as_bytes()) {
        return live::socket::Script::of_log(text);
    }
    if text.contains("\"_webSocketMessages\"") {
        let cap = sselint::capture::open(
            &path.display().to_string(),
            &sselint::capture::Options::default(),
        )
        .map_err(|e| e.to_string())?;
        let logs: Vec<Vec<u8>> = cap
            .streams
            .into_iter()
            .filter_map(|s| match s.body {
                sselint::capture::Body::Bytes(b) if socket_log::looks_like(&b) => Some(b),
                _ => None,
            })
            .collect();
        return match logs.as_slice() {
            [log] => live::socket::Script::of_log(&String::from_utf8_lossy(log)),
            [] => Err("the HAR holds no WebSocket entry".into()),
            _ => Err(format!(
                "the HAR holds {} WebSocket entries; record needs a capture of one session: keep its entry alone",
                logs.len()
            )),
        };
    }
    Ok(live::socket::Script::of_messages(
        match serde_json::from_str::<serde_json::Value>(text) {
            Ok(v) => vec![v.to_string()],
            Err(_) => text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::to_string)
                .collect(),
        },
    ))
}

/// `record ws://…` (or `wss://`): the client's messages from --body (one
/// JSON message, one a line, or a capture's), sent a turn at a time; the
/// socket saved as a message log (`sselint::live::socket`), then linted
/// as `check` lints it.
fn record_socket(a: &RecordArgs, out: &Path, settings: &Settings) -> anyhow::Result<ExitCode> {
    let fail = |e: String| {
        eprintln!("sselint: error: {e}");
        Ok(ExitCode::from(2))
    };
    let Some(path) = &a.live.body else {
        return fail("a WebSocket URL needs --body FILE: the client's messages (one JSON message, or one a line), or a capture of a session (a message log, a HAR's socket entry) whose client messages are sent again".into());
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return fail(format!("reading {}: {e}", path.display())),
    };
    let script = match socket_script(path, &text) {
        Ok(s) => s,
        Err(e) => return fail(format!("{}: {e}", path.display())),
    };
    let mut headers = Vec::new();
    for h in &a.live.headers {
        let Some((n, v)) = h.split_once(':') else {
            return fail(live::NO_COLON.to_string());
        };
        headers.push((n.trim().to_string(), v.trim().to_string()));
    }
    let api_key = match &a.live.api_key_env {
        Some(var) => match std::env::var(var) {
            Ok(k) => Some(k),
            Err(_) => return fail(format!("--api-key-env: ${var} is not set")),
        },
        None => None,
    };
    let rides = |d: &sselint::dialect::Dialect| d.api().rides_sockets();
    let dialect = settings
        .dialect
        .or_else(|| sselint::dialect::sniff_url(&a.url))
        .filter(rides)
        .or_else(|| sselint::dialect::ALL.iter().copied().find(rides));
    let Some(dialect) = dialect else {
        return fail("no dialect sselint reads has a WebSocket mode".into());
    };
    let req = live::socket::SocketRequest {
        url: a.url.clone(),
        headers,
        api_key,
        script,
        dialect,
        read_timeout: std::time::Duration::from_secs_f64(a.live.read_timeout.max(0.001)),
        timeout: a.live.timeout.map(std::time::Duration::from_secs_f64),
        insecure: a.live.insecure,
    };
    let mut file = match sselint::output::Streamed::create(out) {
        Ok(f) => f,
        Err(e) => return fail(format!("writing {}: {e}", out.display())),
    };
    let rec = match live::socket::record(&req, &mut file) {
        Ok(r) => r,
        Err(e) => return fail(e.to_string()),
    };
    if let Err(e) = file.commit() {
        return fail(format!("writing {}: {e}", out.display()));
    }
    let _ = writeln!(
        std::io::stdout(),
        "saved {} ({} messages, HTTP {}, {:.1} s{})",
        out.display(),
        rec.messages,
        rec.status,
        rec.total_ms / 1000.0,
        rec.stopped
            .as_deref()
            .map(|s| format!(", stopped: {s}"))
            .unwrap_or_default()
    );
    Ok(lint_saved(
        out,
        &sselint::capture::Options::default(),
        settings,
        a.color.enabled(),
        a.fail_on.threshold(),
    ))
}

/// Serve a capture as the endpoint of its API, with fault injection.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  sselint replay samples/good/emoji.sse --listen 127.0.0.1:8080
  sselint replay capture.har --split-bytes 1 --delay-ms 50
  sselint replay capture.sse --cut-after-bytes 300 --once
  sselint replay samples/good/ollama-chat.ndjson --cut-after-messages 3
  sselint replay samples/good/bedrock-converse.bin --corrupt-crc 2
  sselint replay samples/websocket/realtime-text.har --cut-after-messages 8

The capture is served at the POST of its dialect (told as `check` tells it,
or --dialect): /v1/chat/completions (Chat Completions; also a stream of no
known dialect), /v1/responses (OpenAI Responses) or /v1/messages (Anthropic
Messages), each also without /v1, or
/v1beta/models/MODEL:streamGenerateContent (Google Gemini; also /v1/...,
/v1beta1/..., tunedModels/MODEL, without the version, and Vertex AI's
/v1/projects/P/locations/L/publishers/google/models/MODEL). A Gemini request
without ?alt=sse gets what the API sends then: the stream's chunks as one
JSON array (application/json), or a 400 saying why when a chunk is not a
JSON object.

Ollama's NDJSON (application/x-ndjson) is served at /api/chat, or at
/api/generate when its lines carry `response` (or the capture was asked
there); a request with \"stream\": false gets what Ollama sends then: one
JSON object, the last line with the fragments joined. Bedrock's event
stream (application/vnd.amazon.eventstream) is served at
/model/MODEL/converse-stream (ConverseStream) or
/model/MODEL/invoke-with-response-stream (InvokeModelWithResponseStream),
any MODEL; hand an AWS SDK's Bedrock runtime client the endpoint
http://127.0.0.1:PORT and any credentials (the JavaScript SDK with
requestHandler: new NodeHttpHandler(): replay speaks HTTP/1.1, and its
default is HTTP/2). These transports have no comments: --keepalive-ms is
refused for them. --delay-ms waits between lines or frames,
--cut-after-messages cuts after whole ones, --cut-after-bytes can cut inside
a frame, and --corrupt-crc / --corrupt-prelude-crc flip a frame's CRC.

A WebSocket capture (a message log, a HAR's socket entry) answers the
upgrade on any path and plays the log back against the client. Its faults:
--cut-after-messages N drops the socket after N server messages with no
close frame (or closes with --close-code CODE --close-reason TEXT),
--cut-after-bytes N drops it inside a frame, --split-bytes N writes the
frames N bytes at a time, --keepalive-ms sends ping frames during waits,
--close-code alone replaces the capture's end, --error-after-messages N
sends an `error` message and drops the rest of that turn,
--garbage-after-messages N a text message that is not JSON, and
--stall-after-messages N nothing more.

The startup line gives the base URL to hand a client:
http://127.0.0.1:PORT/v1 for OpenAI SDKs, http://127.0.0.1:PORT for
Anthropic, Google, Ollama and AWS SDKs. Other paths and methods get a 404
in that API's error shape naming the path that serves the capture
(Bedrock's with x-amzn-ErrorType: ResourceNotFoundException;
--any-path serves them all). The body goes out in chunked transfer
coding.

A directory is a scenario set, the server `sselint probe` is tested
against: each request is answered with the capture of the scenario it is
(told from its body as probe writes them: `n` 2 -> n2, tools with
tool_choice -> tool, ... ; see `sselint probe --help`). Files are named by
scenario, DIR/chat/plain.sse, DIR/chat/usage.har, DIR/responses/tool.sse,
DIR/messages/thinking.sse, DIR/gemini/n2.sse (or DIR/NAME.EXT, its dialect
told from it); a directory `sselint probe -o DIR` wrote is one as it is
(a HAR whose one entry is an error answer is served as that answer):
its disconnect-dropped and disconnect captures answer long's and plain's
requests (the two the disconnect scenario sends) where DIR has none of
their own;
NAME.json holds a JSON error body served with HTTP 400 (NAME.404.json:
404). A request whose scenario has no capture gets a 400 JSON error that
names the scenario. Example:
  sselint replay tests/fixtures/probe/good --listen 127.0.0.1:8080")]
pub struct ReplayArgs {
    /// The capture to serve (any format `check` reads), or a directory of
    /// captures named by scenario.
    #[arg(value_name = "CAPTURE|DIR")]
    capture: String,
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "ADDR:PORT")]
    listen: String,
    /// HAR: serve entry N.
    #[arg(long, value_name = "N")]
    entry: Option<usize>,
    /// Milliseconds between messages: SSE events, NDJSON lines,
    /// event-stream frames (overrides the capture's timing).
    #[arg(long, value_name = "MS")]
    delay_ms: Option<u64>,
    /// Milliseconds before the first byte.
    #[arg(long, value_name = "MS")]
    first_delay_ms: Option<u64>,
    /// Write the body N bytes at a time (splits UTF-8 characters and CRLF).
    #[arg(long, value_name = "N")]
    split_bytes: Option<usize>,
    /// Drop the connection after N body bytes (inside a message or frame
    /// where N falls there).
    #[arg(long, value_name = "N")]
    cut_after_bytes: Option<u64>,
    /// Drop the connection after N whole messages (SSE events, NDJSON
    /// lines, event-stream frames).
    #[arg(long, value_name = "N")]
    cut_after_messages: Option<u64>,
    /// Flip the message CRC of event-stream frame N (counted from 1) in
    /// flight (Bedrock captures only).
    #[arg(long, value_name = "N")]
    corrupt_crc: Option<u64>,
    /// Flip the prelude CRC of event-stream frame N (counted from 1) in
    /// flight: readers lose the frame's length, so every frame after it
    /// (Bedrock captures only).
    #[arg(long, value_name = "N")]
    corrupt_prelude_crc: Option<u64>,
    /// Send `: keep-alive` comments during waits, every MS milliseconds
    /// (SSE; over a WebSocket, ping frames).
    #[arg(long, value_name = "MS")]
    keepalive_ms: Option<u64>,
    /// WebSocket: close with this code (1000-4999) where the socket ends:
    /// after --cut-after-messages N, else in place of the capture's own
    /// end.
    #[arg(long, value_name = "CODE")]
    close_code: Option<u16>,
    /// WebSocket: the reason of --close-code's close frame (at most 123
    /// bytes).
    #[arg(long, value_name = "TEXT", requires = "close_code")]
    close_reason: Option<String>,
    /// WebSocket: send an `error` message after N server messages and
    /// drop the rest of that turn.
    #[arg(long, value_name = "N")]
    error_after_messages: Option<u64>,
    /// WebSocket: send a text message that is not JSON after N server
    /// messages.
    #[arg(long, value_name = "N")]
    garbage_after_messages: Option<u64>,
    /// WebSocket: send nothing after N server messages, holding the
    /// socket open until the client closes it.
    #[arg(long, value_name = "N")]
    stall_after_messages: Option<u64>,
    /// Answer any path and method.
    #[arg(long)]
    any_path: bool,
    /// Serve the capture as this dialect's endpoint (`chat`,
    /// `responses`, `messages`, `gemini`, `ollama`, `bedrock-converse`,
    /// `bedrock-invoke`, `realtime`); told from the capture by default.
    #[arg(long, value_enum, default_value = "auto")]
    dialect: super::DialectArg,
    /// Serve one request, then exit.
    #[arg(long)]
    once: bool,
}

/// `--dialect`, unless `auto`.
fn dialect_of(d: super::DialectArg) -> Option<sselint::dialect::Dialect> {
    d.dialect()
}

pub fn replay(a: ReplayArgs) -> anyhow::Result<ExitCode> {
    let opts = sselint::capture::Options {
        entry: a.entry,
        ..Default::default()
    };
    if std::path::Path::new(&a.capture).is_dir() {
        return replay_set(&a, &opts);
    }
    let replay = match sselint::replay::Replay::load(&a.capture, &opts, dialect_of(a.dialect)) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("sselint: error: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let listener = match std::net::TcpListener::bind(&a.listen) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("sselint: error: cannot listen on {}: {e}", a.listen);
            return Ok(ExitCode::from(2));
        }
    };
    let addr = listener.local_addr()?;
    let served = replay.served();
    // The base URL a client of that API takes: OpenAI's SDKs add the path
    // to `…/v1`, Anthropic's add `/v1/messages` to the origin.
    let socket = replay.is_socket();
    let base = if socket {
        // A socket's log answers the upgrade on any path.
        let path = replay.dialect.map_or("/".to_string(), |_| replay.path());
        format!("ws://{addr}{path}")
    } else {
        format!("http://{addr}{}", served.api().sdk_base())
    };
    let what = match (replay.dialect, replay.shape()) {
        (Some(_), Some(shape)) => {
            format!("{shape}; not an event stream, served as captured to every request")
        }
        (Some(d), None) => format!("{} stream", d.a_title()),
        // A log whose URL names no API: its messages are sent as they
        // are, whatever they mean.
        (None, _) if socket => "a WebSocket message log, served message for message".to_string(),
        (None, _) => "a stream of no known dialect, served as Chat".to_string(),
    };
    let paths = if a.any_path {
        "any method and path".to_string()
    } else if socket {
        "a WebSocket, on any path".to_string()
    } else {
        format!("POST {}", replay.path())
    };
    if let Err(e) = check_faults(&a, &replay) {
        eprintln!("sselint: error: {}: {e}", a.capture);
        return Ok(ExitCode::from(2));
    }
    if let Some(k) = a.keepalive_ms.filter(|k| *k > 0) {
        if !replay.waits_longer_than(k, &serve_options(&a)) {
            eprintln!(
                "sselint: note: --keepalive-ms {k} sends `: keep-alive` comments only while replay waits between events, for waits longer than {k} ms, and this capture has none (no timing of its own, or shorter gaps): add --delay-ms or --first-delay-ms to make such waits"
            );
        }
    }
    let _ = writeln!(
        std::io::stdout(),
        "sselint replay: serving {} ({what}) on {base} ({paths}); Ctrl-C stops",
        a.capture
    );
    let _ = std::io::stdout().flush();
    let stop = live::interrupted();
    sselint::replay::serve(listener, Arc::new(replay), serve_options(&a), stop)?;
    Ok(ExitCode::SUCCESS)
}

/// Refuses the fault options a capture's transport has no place for (a
/// keep-alive comment where there are no comments, a frame CRC where
/// there are no frames), and notes a message cut past the last message.
fn check_faults(a: &ReplayArgs, replay: &sselint::replay::Replay) -> Result<(), String> {
    let t = replay.transport;
    let socket = replay.is_socket();
    if socket {
        return check_socket_faults(a, replay);
    }
    let socket_only = [
        ("--close-code", a.close_code.is_some()),
        ("--error-after-messages", a.error_after_messages.is_some()),
        (
            "--garbage-after-messages",
            a.garbage_after_messages.is_some(),
        ),
        ("--stall-after-messages", a.stall_after_messages.is_some()),
    ];
    if let Some((flag, _)) = socket_only.iter().find(|(_, set)| *set) {
        return Err(format!(
            "{flag} is a WebSocket fault, and this capture is {} ({}): over HTTP, cut the stream with --cut-after-messages or --cut-after-bytes",
            t.name(),
            t.media_type()
        ));
    }
    if a.keepalive_ms.is_some() && !t.has_comments() {
        return Err(format!(
            "--keepalive-ms sends `: keep-alive` comments, and {} ({}) has no comments: a client reads every {} as a message; use --delay-ms or --first-delay-ms for a slow stream",
            t.name(),
            t.media_type(),
            t.message()
        ));
    }
    for (flag, n) in [
        ("--corrupt-crc", a.corrupt_crc),
        ("--corrupt-prelude-crc", a.corrupt_prelude_crc),
    ] {
        let Some(n) = n else { continue };
        if !t.has_checksums() {
            return Err(format!(
                "{flag} flips a CRC of an AWS event-stream frame, and this capture is {} ({}), which has none",
                t.name(),
                t.media_type()
            ));
        }
        let frames = replay.messages();
        if n == 0 || n > frames {
            return Err(format!("{flag} {n}: the capture has frames 1 to {frames}"));
        }
    }
    if let Some(n) = a.cut_after_messages {
        let have = replay.messages();
        if n >= have {
            eprintln!(
                "sselint: note: --cut-after-messages {n}: the capture has {have} {}s, so every one is sent and the connection is then dropped without its end",
                t.message()
            );
        }
    }
    Ok(())
}

/// The faults of a socket capture: a frame CRC has no place there, a
/// close code must be one a close frame carries, and a message count
/// past the server's last message is noted.
fn check_socket_faults(a: &ReplayArgs, replay: &sselint::replay::Replay) -> Result<(), String> {
    for (flag, n) in [
        ("--corrupt-crc", a.corrupt_crc),
        ("--corrupt-prelude-crc", a.corrupt_prelude_crc),
    ] {
        if n.is_some() {
            return Err(format!(
                "{flag} flips a CRC of an AWS event-stream frame, and this capture is a WebSocket's, whose frames carry none; use --garbage-after-messages N for a message a client cannot read"
            ));
        }
    }
    if let Some(c) = a.close_code {
        // RFC 6455 7.4: 1005, 1006 and 1015 are never sent; below 1000
        // and 1004 are not used; 5000 and up are not codes.
        if !(1000..5000).contains(&c) || matches!(c, 1004 | 1005 | 1006 | 1015) {
            return Err(format!(
                "--close-code {c}: a close frame carries 1000-4999 but 1004, 1005, 1006 and 1015; for a socket that ends with no close frame (a client sees 1006), use --cut-after-messages alone"
            ));
        }
    }
    if let Some(r) = &a.close_reason {
        if r.len() > 123 {
            return Err(format!(
                "--close-reason is {} bytes, and a close frame's reason holds at most 123",
                r.len()
            ));
        }
    }
    let have = replay
        .socket_messages()
        .map_err(|e| format!("reading the capture: {e}"))?;
    for (flag, n) in [
        ("--cut-after-messages", a.cut_after_messages),
        ("--error-after-messages", a.error_after_messages),
        ("--garbage-after-messages", a.garbage_after_messages),
        ("--stall-after-messages", a.stall_after_messages),
    ] {
        if let Some(n) = n.filter(|n| *n > have) {
            eprintln!(
                "sselint: note: {flag} {n}: the server sends {have} messages in this capture, so the fault never comes"
            );
        }
    }
    Ok(())
}

fn serve_options(a: &ReplayArgs) -> sselint::replay::Options {
    sselint::replay::Options {
        delay_ms: a.delay_ms,
        first_delay_ms: a.first_delay_ms,
        split_bytes: a.split_bytes,
        cut_after_bytes: a.cut_after_bytes,
        cut_after_messages: a.cut_after_messages,
        corrupt_crc: a.corrupt_crc,
        corrupt_prelude_crc: a.corrupt_prelude_crc,
        keepalive_ms: a.keepalive_ms,
        close_code: a.close_code,
        // Leaked once: the options are copied to every connection's
        // thread for the server's lifetime.
        close_reason: a
            .close_reason
            .clone()
            .map(|r| &*Box::leak(r.into_boxed_str())),
        error_after_messages: a.error_after_messages,
        garbage_after_messages: a.garbage_after_messages,
        stall_after_messages: a.stall_after_messages,
        any_path: a.any_path,
        once: a.once,
    }
}

/// `sselint replay DIR`: a scenario set, each request answered by what it
/// asks for.
fn replay_set(a: &ReplayArgs, opts: &sselint::capture::Options) -> anyhow::Result<ExitCode> {
    let set = match sselint::replay::ScenarioSet::load(&a.capture, opts) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("sselint: error: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    if a.dialect != super::DialectArg::AUTO {
        eprintln!(
            "sselint: error: --dialect does not apply to a directory; put the captures in {}/ under it",
            sselint::dialect::names("/, ")
        );
        return Ok(ExitCode::from(2));
    }
    let listener = match std::net::TcpListener::bind(&a.listen) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("sselint: error: cannot listen on {}: {e}", a.listen);
            return Ok(ExitCode::from(2));
        }
    };
    let addr = listener.local_addr()?;
    let served: Vec<String> = set
        .dialects()
        .iter()
        .map(|d| {
            format!(
                "POST {}{} ({})",
                d.base(),
                d.endpoint(),
                set.names(*d).join(", ")
            )
        })
        .collect();
    // Keep-alive comments and frame CRCs exist in some transports only.
    let others: Vec<String> = sselint::transport::ALL
        .iter()
        .filter(|t| !t.has_comments())
        .filter(|t| set.dialects().iter().any(|d| d.api().transport() == **t))
        .map(|t| format!("{} ({})", t.name(), t.media_type()))
        .collect();
    if a.keepalive_ms.is_some() && !others.is_empty() {
        eprintln!(
            "sselint: note: --keepalive-ms sends `: keep-alive` comments in the SSE answers only; {} have no comments",
            others.join(" and ")
        );
    }
    if a.corrupt_crc.is_some() || a.corrupt_prelude_crc.is_some() {
        eprintln!(
            "sselint: note: --corrupt-crc and --corrupt-prelude-crc flip a frame's CRC in the event-stream answers only"
        );
    }
    let _ = writeln!(
        std::io::stdout(),
        "sselint replay: serving the scenarios of {} on http://{addr} ({}); Ctrl-C stops",
        a.capture,
        served.join("; ")
    );
    let _ = std::io::stdout().flush();
    let stop = live::interrupted();
    sselint::replay::serve_source(
        listener,
        Arc::new(sselint::replay::Source::Set(set)),
        serve_options(a),
        stop,
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Lints the capture `record` just saved at `out` and prints the human
/// report: exit 2 when it cannot be read, else the verdict at `threshold`
/// (`--fail-on`), as `check` of the saved file gives.
fn lint_saved(
    out: &std::path::Path,
    opts: &sselint::capture::Options,
    settings: &sselint::lint::Settings,
    color: bool,
    threshold: Option<sselint::lint::Severity>,
) -> ExitCode {
    let file = sselint::pipeline::lint_path(&out.to_string_lossy(), opts, settings);
    let unreadable = file.error.is_some();
    let run = sselint::report::Run {
        files: vec![file],
        profile: settings.profile.name.clone(),
        suppressed: 0,
        fail_on: None,
    };
    let mut o = std::io::stdout().lock();
    let _ = sselint::report::Render::render(
        &sselint::report::human::Human {
            verbose: false,
            color,
            quiet: false,
            errors_elsewhere: false,
        },
        &run,
        &mut o,
    );
    if unreadable {
        return ExitCode::from(2);
    }
    sselint::lint::verdict(threshold, run.worst())
}
