//! Recording a live stream: POST a Chat Completions request with
//! `"stream": true`, read the response as it arrives with a monotonic
//! timestamp per read, and keep everything needed to write a HAR 1.2 capture
//! that our HAR reader replays byte for byte (the per-read times go in the
//! entry's `_sselint.reads`).
//!
//! Secrets never reach the capture: Authorization, api-key, x-api-key,
//! cookie and set-cookie header values are `[REDACTED]`, and `sk-…` keys in
//! the request body are masked. The API key comes from an environment
//! variable and is only ever put in the outgoing header.
//!
//! The network read runs on its own thread so that Ctrl-C, a `--timeout` or
//! a dropped connection all end with the bytes received so far.

pub mod socket;
use crate::capture::spool::{Spool, SpoolError, Spooled};
use crate::capture::{self, header, Header, Read_};
use serde_json::{json, Value};
use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant, SystemTime};

/// The error for a `-H` with no `:` (`record`, `probe`). The header is not
/// shown: it may be `Authorization Bearer sk-…` with the colon forgotten.
pub const NO_COLON: &str =
    "-H takes `Name: value`; one -H has no `:` (it is not shown here, as it may hold a key)";

/// The Ctrl-C flag, installed once per process (`ctrlc` takes one
/// handler): set when Ctrl-C is pressed, or SIGTERM or SIGHUP comes
/// (`ctrlc`'s `termination`: `timeout`, `docker stop`, a cancelled CI
/// job); `record`, `probe` and `minimize`
/// read it to stop with what they have.
pub fn interrupted() -> Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let f = flag.clone();
        let _ = ctrlc::set_handler(move || f.store(true, Ordering::SeqCst));
        flag
    })
    .clone()
}

pub mod sigv4;
pub mod tls;

/// How long a live read may wait for the next bytes: 5 minutes.
pub const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(300);

/// What to send.
#[derive(Debug, Clone)]
pub struct Request {
    /// The endpoint (`https://…/v1/chat/completions`, `…/v1/responses`,
    /// `…/v1/messages`).
    pub url: String,
    /// The API the endpoint speaks: how the key is sent and what the body
    /// gains (see [`prepare_body`]).
    pub dialect: crate::dialect::Dialect,
    /// The request body (JSON); `stream: true` is forced.
    pub body: Value,
    /// Extra headers (name, value); one replaces the header of the same
    /// name (any case) the client would send itself: `Content-Type`,
    /// `Accept`, the key's `Authorization` / `x-api-key`,
    /// `anthropic-version`.
    pub headers: Vec<(String, String)>,
    /// The API key, sent as `Authorization: Bearer …` (Chat, Responses),
    /// `x-api-key` (Messages, with `anthropic-version: 2023-06-01` unless a
    /// header gives one) or `x-goog-api-key` (Gemini; a Bearer token to
    /// Vertex AI's project paths): [`crate::dialect::Api::auth_for`].
    pub api_key: Option<String>,
    /// Chat: add `stream_options.include_usage: true` (unless the body sets
    /// it). Responses, Messages and Gemini streams carry usage unasked.
    pub include_usage: bool,
    /// Give up after this long (the bytes so far are kept).
    pub timeout: Option<Duration>,
    /// Give up when nothing arrives for this long (default
    /// [`DEFAULT_READ_TIMEOUT`]).
    pub read_timeout: Duration,
    /// Accept any TLS certificate.
    pub insecure: bool,
    /// Follow HTTP redirects (`record`, `check URL`); `false` returns a
    /// 3xx as the answer, so that only the URL given is contacted
    /// (`probe`).
    pub follow_redirects: bool,
    /// AWS credentials to sign the request with (SigV4), for an API that
    /// takes a signature ([`crate::dialect::Api::sigv4_service`]:
    /// Bedrock) when no `api_key` is given; the signature headers are
    /// saved as `[REDACTED]`.
    pub aws: Option<sigv4::Credentials>,
}

/// Why a recording ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// The server ended the body.
    Complete,
    /// Ctrl-C.
    Interrupted,
    /// `--timeout` (the whole exchange's limit) passed: the user's cut.
    TimedOut,
    /// Nothing arrived for `--read-timeout`: the server stalled.
    ReadTimedOut,
    /// The connection failed mid-body (the server's or the network's doing).
    ConnectionError(String),
    /// The recorder hung up on purpose (`sselint probe`'s `disconnect`
    /// scenario, after the first read). Set by the caller; stored as
    /// `hung-up`.
    HungUp,
    /// The recorder stopped reading at its size limit (`sselint probe`:
    /// 4 MiB). Set by the caller; stored as `size-limit`.
    SizeLimit,
}

impl Stop {
    /// The word stored in the capture.
    pub fn name(&self) -> String {
        match self {
            Stop::Complete => "complete".into(),
            Stop::Interrupted => "interrupted".into(),
            Stop::TimedOut => "timeout".into(),
            Stop::ReadTimedOut => "read-timeout".into(),
            Stop::ConnectionError(e) => format!("connection-error: {e}"),
            Stop::HungUp => "hung-up".into(),
            Stop::SizeLimit => "size-limit".into(),
        }
    }
}

/// A finished recording.
#[derive(Debug, Clone)]
pub struct Recording {
    /// The request as sent, secrets redacted.
    pub request: capture::Request,
    /// Status code.
    pub status: u16,
    /// Reason phrase.
    pub reason: String,
    /// HTTP version (`HTTP/1.1`).
    pub version: String,
    /// Response headers, secrets redacted.
    pub headers: Vec<Header>,
    /// The body bytes, exactly as received.
    pub body: Vec<u8>,
    /// A time per read: the body offset of its first byte and the
    /// milliseconds since the request was sent.
    pub reads: Vec<Read_>,
    /// Wall-clock start.
    pub started: SystemTime,
    /// Milliseconds to the response head.
    pub wait_ms: f64,
    /// Milliseconds in all.
    pub total_ms: f64,
    /// Why it ended.
    pub stop: Stop,
    /// The `Content-Encoding` the body was decoded from (`gzip`,
    /// `deflate`, `br`) when [`Recording::body`] holds the decoded bytes
    /// (as `probe` keeps a compressed answer, the header dropped); written
    /// to the HAR as `_sselint.decoded`.
    pub decoded: Option<&'static str>,
}

/// Why nothing was recorded ([`record`], [`record_watching`],
/// [`record_spooled`]): no response head came, or the body could not be
/// kept. The URL is shown redacted ([`capture::redact_url`]): its query or
/// user part may hold a key.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// The request body is not a JSON object.
    #[error(transparent)]
    Body(#[from] NotAnObject),
    /// The request body could not be written as JSON.
    #[error(transparent)]
    Json(serde_json::Error),
    /// The request failed before a response head came (what went wrong).
    #[error("{url}: {message}")]
    Failed {
        /// The URL, redacted.
        url: String,
        /// What the HTTP client said.
        message: String,
    },
    /// Ctrl-C came before the response.
    #[error("{url}: interrupted before the response came")]
    Interrupted {
        /// The URL, redacted.
        url: String,
    },
    /// `--timeout` (seconds) passed before the response came.
    #[error("{url}: no response within --timeout {seconds} s")]
    TimedOut {
        /// The URL, redacted.
        url: String,
        /// The time-out, in seconds.
        seconds: f64,
    },
    /// `--read-timeout` (seconds) passed before the response came.
    #[error("{url}: no response within --read-timeout {seconds} s")]
    ReadTimedOut {
        /// The URL, redacted.
        url: String,
        /// The time-out, in seconds.
        seconds: f64,
    },
    /// The connection ended with no response.
    #[error("{url}: no response")]
    NoResponse {
        /// The URL, redacted.
        url: String,
    },
    /// The body could not be kept in its temporary file.
    #[error(transparent)]
    Spool(#[from] SpoolError),
    /// The kept body could not be read back to mask the key in it.
    #[error("reading the recorded body back: {0}")]
    ReadBack(std::io::Error),
}

/// A request body that is not a JSON object ([`prepare_body`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the request body is not a JSON object")]
pub struct NotAnObject;

/// The request body as sent: `stream: true` forced, then what the
/// dialect's API adds ([`crate::dialect::Api::prepare`]: for Chat, usage
/// asked for unless told not to; `stream_options` is Chat's alone, the
/// Responses API and Anthropic's reject or ignore it, and both send usage
/// anyway).
///
/// # Errors
/// The body is not a JSON object ([`NotAnObject`]).
pub fn prepare_body(
    mut body: Value,
    include_usage: bool,
    dialect: crate::dialect::Dialect,
) -> Result<Value, NotAnObject> {
    let Some(obj) = body.as_object_mut() else {
        return Err(NotAnObject);
    };
    obj.insert("stream".into(), Value::Bool(true));
    dialect.api().prepare(obj, include_usage);
    Ok(body)
}

enum Msg {
    Head {
        status: u16,
        reason: String,
        version: String,
        headers: Vec<Header>,
        at: Instant,
    },
    Bytes(Vec<u8>, Instant),
    End,
    Error(String),
}

/// Records one exchange. `on_read` sees each read (bytes, ms since the
/// request was sent) as it arrives; `stop` ends the recording early (the
/// Ctrl-C flag). The key sent is masked wherever the response quotes it
/// back ([`mask_echoed_key`]); `sselint probe`, which says on its card
/// where a key stays, records with [`record_watching`] and masks itself.
///
/// # Errors
/// The request could not be sent or no response head came (nothing to
/// save).
pub fn record(
    req: &Request,
    stop: &AtomicBool,
    on_read: impl FnMut(&[u8], f64),
) -> Result<Recording, RecordError> {
    let mut rec = record_watching(req, stop, |_| {}, on_read)?;
    if let Some(k) = req.api_key.as_deref() {
        mask_echoed_key(&mut rec, k);
    }
    Ok(rec)
}

/// [`record`], with `on_head` seeing the response headers (secrets
/// redacted) once they arrive, before the first body read (`sselint
/// probe` reads `Content-Encoding` there to bound the decoded body).
///
/// # Errors
/// As [`record`].
pub fn record_watching(
    req: &Request,
    stop: &AtomicBool,
    on_head: impl FnMut(&[Header]),
    on_read: impl FnMut(&[u8], f64),
) -> Result<Recording, RecordError> {
    record_into(req, stop, on_head, on_read, None)
}

/// [`record`], the body kept as it arrives in a [`Spool`] (memory, then a
/// temporary file past [`crate::capture::spool::MEM_BYTES`]) instead of
/// [`Recording::body`], which stays empty; the key sent is masked in it
/// too. Write the HAR with [`Recording::write_har`].
///
/// # Errors
/// As [`record`]; or the temporary file could not be written.
pub fn record_spooled(
    req: &Request,
    stop: &AtomicBool,
    on_read: impl FnMut(&[u8], f64),
) -> Result<(Recording, Spooled), RecordError> {
    let mut spool = Spool::default();
    let mut rec = record_into(req, stop, |_| {}, on_read, Some(&mut spool))?;
    let mut body = spool.finish()?;
    if let Some(k) = req.api_key.as_deref() {
        body = mask_echoed_key_spooled(&mut rec, body, k)?;
    }
    Ok((rec, body))
}

fn record_into(
    req: &Request,
    stop: &AtomicBool,
    mut on_head: impl FnMut(&[Header]),
    mut on_read: impl FnMut(&[u8], f64),
    mut spool: Option<&mut Spool>,
) -> Result<Recording, RecordError> {
    let body = prepare_body(req.body.clone(), req.include_usage, req.dialect)?;
    let body_text = serde_json::to_string(&body).map_err(RecordError::Json)?;
    let mut tls = ureq::tls::TlsConfig::builder();
    if req.insecure {
        tls = tls.disable_verification(true);
    }
    let config = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .tls_config(tls.build())
        .timeout_connect(Some(Duration::from_secs(30)))
        .max_redirects(if req.follow_redirects { 10 } else { 0 })
        .build();
    let agent = ureq::Agent::new_with_config(config);
    // A header given (`-H`) replaces ours of the same name.
    let given = |name: &str| {
        req.headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case(name))
    };
    // The stream's media type: `text/event-stream`, Ollama's
    // `application/x-ndjson`, Bedrock's `application/vnd.amazon.eventstream`.
    let accept = req.dialect.api().transport().media_type();
    let mut sent_headers: Vec<(String, String)> =
        [("Content-Type", "application/json"), ("Accept", accept)]
            .into_iter()
            .filter(|(n, _)| !given(n))
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
    sent_headers.extend(req.headers.iter().cloned());
    // The user part goes out as our own `Authorization: Basic` (below),
    // never as the HTTP client would send it: still percent-encoded.
    let (url, userinfo) = split_userinfo(&req.url);
    let mut builder = agent.post(&url);
    for (n, v) in &sent_headers {
        builder = builder.header(n.as_str(), v.as_str());
    }
    let auth = req.dialect.api().auth_for(&req.url);
    if let Some(k) = &req.api_key {
        if !given(auth.key_header) {
            builder = builder.header(auth.key_header, format!("{}{k}", auth.key_prefix));
            sent_headers.push((auth.key_header.to_string(), format!("{}…", auth.key_prefix)));
        }
    }
    // A URL with a user part (`http://user:password@host/…`) and no
    // Authorization header of ours: the user part goes out as
    // `Authorization: Basic base64(user:password)`, each percent-decoded
    // first as curl does (`p%40ss` is `p@ss`), which the capture lists
    // (redacted) too.
    if let Some(info) = userinfo.filter(|_| {
        !sent_headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("authorization"))
    }) {
        use base64::Engine as _;
        let (user, pass) = info.split_once(':').unwrap_or((info.as_str(), ""));
        let token = base64::engine::general_purpose::STANDARD.encode(format!(
            "{}:{}",
            percent_decoded(user),
            percent_decoded(pass)
        ));
        builder = builder.header("Authorization", format!("Basic {token}"));
        sent_headers.push(("Authorization".to_string(), "Basic …".to_string()));
    }
    // What the API requires on every request (Anthropic's version
    // header); no secret, kept in the capture.
    for (name, value) in auth.fixed {
        if !sent_headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case(name))
        {
            builder = builder.header(*name, *value);
            sent_headers.push((name.to_string(), value.to_string()));
        }
    }
    // An AWS API with AWS credentials and no key of ours: SigV4 over the
    // headers so far and the body. The capture keeps `Authorization`,
    // `X-Amz-Date` and `X-Amz-Security-Token` as `[REDACTED]`.
    let service = req.dialect.api().sigv4_service();
    let keyed = sent_headers
        .iter()
        .any(|(n, _)| n.eq_ignore_ascii_case("authorization"));
    if let (Some(creds), Some(service), false) = (&req.aws, service, keyed) {
        let signed = sigv4::sign(
            "POST",
            &url,
            &sent_headers,
            body_text.as_bytes(),
            creds,
            service,
            SystemTime::now(),
        )
        .map_err(|e| RecordError::Failed {
            url: capture::redact_url(&req.url),
            message: e.to_string(),
        })?;
        for (n, v) in signed {
            builder = builder.header(n.as_str(), v.as_str());
            sent_headers.push((n, v));
        }
    }
    let started = SystemTime::now();
    let t0 = Instant::now();
    // Bounded: a reader faster than the linting waits (16 reads of at most
    // 64 KiB in flight), so memory does not grow with the stream.
    let (tx, rx) = mpsc::sync_channel::<Msg>(16);
    let payload = body_text.clone();
    std::thread::spawn(move || {
        let resp = match builder.send(payload.as_bytes()) {
            Ok(r) => r,
            Err(e) if unreadable_answer(&e) => {
                let _ = tx.send(Msg::Error(format!("{NOT_HTTP} ({e})")));
                return;
            }
            Err(e) => {
                let _ = tx.send(Msg::Error(e.to_string()));
                return;
            }
        };
        let status = resp.status();
        let headers = resp
            .headers()
            .iter()
            .map(|(n, v)| header(n.as_str(), &String::from_utf8_lossy(v.as_bytes())))
            .collect();
        let version = format!("{:?}", resp.version());
        let _ = tx.send(Msg::Head {
            status: status.as_u16(),
            reason: status.canonical_reason().unwrap_or("").to_string(),
            version,
            headers,
            at: Instant::now(),
        });
        let mut reader = resp.into_body().into_reader();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => {
                    let _ = tx.send(Msg::End);
                    return;
                }
                Ok(n) => {
                    if tx
                        .send(Msg::Bytes(buf[..n].to_vec(), Instant::now()))
                        .is_err()
                    {
                        return;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let _ = tx.send(Msg::Error(e.to_string()));
                    return;
                }
            }
        }
    });
    let ms = |at: Instant| at.duration_since(t0).as_secs_f64() * 1000.0;
    let request = capture::Request {
        method: "POST".into(),
        url: capture::redact_url(&req.url),
        headers: sent_headers.iter().map(|(n, v)| header(n, v)).collect(),
        body: Some(capture::redact_keys(&body_text)),
    };
    let mut rec = Recording {
        request,
        status: 0,
        reason: String::new(),
        version: String::new(),
        headers: Vec::new(),
        body: Vec::new(),
        reads: Vec::new(),
        started,
        wait_ms: 0.0,
        total_ms: 0.0,
        stop: Stop::Complete,
        decoded: None,
    };
    let mut got_head = false;
    let mut body_len = 0u64;
    let mut last_activity = Instant::now();
    loop {
        if stop.load(Ordering::Relaxed) {
            rec.stop = Stop::Interrupted;
            break;
        }
        if req.timeout.is_some_and(|t| t0.elapsed() >= t) {
            rec.stop = Stop::TimedOut;
            break;
        }
        if last_activity.elapsed() >= req.read_timeout {
            rec.stop = Stop::ReadTimedOut;
            break;
        }
        let msg = rx.recv_timeout(Duration::from_millis(50));
        if msg.is_ok() {
            last_activity = Instant::now();
        }
        match msg {
            Ok(Msg::Head {
                status,
                reason,
                version,
                headers,
                at,
            }) => {
                got_head = true;
                on_head(&headers);
                rec.status = status;
                rec.reason = reason;
                rec.version = version;
                rec.headers = headers;
                rec.wait_ms = ms(at);
            }
            Ok(Msg::Bytes(b, at)) => {
                let t = ms(at);
                rec.reads.push(Read_ {
                    offset: body_len,
                    ms: t,
                });
                on_read(&b, t);
                body_len += b.len() as u64;
                match spool.as_deref_mut() {
                    Some(s) => s.extend(&b),
                    None => rec.body.extend_from_slice(&b),
                }
            }
            Ok(Msg::End) => break,
            Ok(Msg::Error(e)) => {
                if !got_head {
                    return Err(RecordError::Failed {
                        url: capture::redact_url(&req.url),
                        message: e,
                    });
                }
                rec.stop = Stop::ConnectionError(e);
                break;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    // Errors name the URL redacted: its query or user part may hold a key.
    let shown = capture::redact_url(&req.url);
    if !got_head {
        let url = shown;
        return Err(match rec.stop {
            Stop::Interrupted => RecordError::Interrupted { url },
            Stop::TimedOut => RecordError::TimedOut {
                url,
                seconds: req.timeout.map_or(0.0, |t| t.as_secs_f64()),
            },
            Stop::ReadTimedOut => RecordError::ReadTimedOut {
                url,
                seconds: req.read_timeout.as_secs_f64(),
            },
            _ => RecordError::NoResponse { url },
        });
    }
    rec.total_ms = t0.elapsed().as_secs_f64() * 1000.0;
    Ok(rec)
}

/// The key sent, wherever the response quotes it back (an error such as
/// "API key not valid: KEY", or Google's `metadata.key`), replaced by
/// `[REDACTED]` in the body and the headers, with the reads' offsets moved
/// to match: nothing the recording saves may hold it.
fn mask_echoed_key(rec: &mut Recording, key: &str) {
    let k = key.as_bytes();
    if k.len() < 8 {
        return;
    }
    let starts: Vec<usize> = memchr::memmem::find_iter(&rec.body, k).collect();
    if !starts.is_empty() {
        let mut body = Vec::with_capacity(rec.body.len());
        let mut last = 0;
        for &at in &starts {
            body.extend_from_slice(&rec.body[last..at]);
            body.extend_from_slice(capture::REDACTED.as_bytes());
            last = at + k.len();
        }
        body.extend_from_slice(&rec.body[last..]);
        let shrink = k.len() as i64 - capture::REDACTED.len() as i64;
        for r in &mut rec.reads {
            let before = starts.iter().filter(|&&at| (at as u64) < r.offset).count() as i64;
            r.offset = (r.offset as i64 - before * shrink).clamp(0, body.len() as i64) as u64;
        }
        rec.body = body;
    }
    for h in &mut rec.headers {
        if h.value.contains(key) {
            h.value = h.value.replace(key, capture::REDACTED);
        }
    }
}

/// [`mask_echoed_key`] for a body kept in a [`Spooled`]: read through once
/// into a new one, the key replaced wherever it occurs (also across two
/// reads), the reads' offsets moved to match (`record`, and `proxy
/// --save` with each secret header value its client sent). A key shorter
/// than 8 bytes is left (it would mask ordinary text).
///
/// # Errors
/// Reading the body back, or keeping the new one.
pub fn mask_echoed_key_spooled(
    rec: &mut Recording,
    body: Spooled,
    key: &str,
) -> Result<Spooled, RecordError> {
    let k = key.as_bytes();
    if k.len() >= 8 {
        let mut r = body.reader();
        let mut out = Spool::default();
        let mut starts: Vec<u64> = Vec::new();
        // Bytes read and not yet written: the start of a key may sit at
        // their end. `base` is the body offset of the first of them.
        let mut pending: Vec<u8> = Vec::new();
        let mut base = 0u64;
        let mut buf = vec![0u8; 256 * 1024];
        loop {
            let n = match r.read(&mut buf) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(RecordError::ReadBack(e)),
            };
            pending.extend_from_slice(&buf[..n]);
            let mut last = 0;
            for at in memchr::memmem::find_iter(&pending, k) {
                out.extend(&pending[last..at]);
                out.extend(capture::REDACTED.as_bytes());
                starts.push(base + at as u64);
                last = at + k.len();
            }
            // Keep what could be the start of a key still to come.
            let keep_from = if n == 0 {
                pending.len()
            } else {
                last.max(pending.len().saturating_sub(k.len() - 1))
            };
            out.extend(&pending[last..keep_from]);
            pending.drain(..keep_from);
            base += keep_from as u64;
            if n == 0 {
                break;
            }
        }
        if !starts.is_empty() {
            let masked = out.finish()?;
            let shrink = k.len() as i64 - capture::REDACTED.len() as i64;
            let len = masked.len() as i64;
            for r in &mut rec.reads {
                let before = starts.iter().filter(|&&at| at < r.offset).count() as i64;
                r.offset = (r.offset as i64 - before * shrink).clamp(0, len) as u64;
            }
            mask_echoed_key_headers(rec, key);
            return Ok(masked);
        }
    }
    mask_echoed_key_headers(rec, key);
    Ok(body)
}

/// The headers' part of [`mask_echoed_key`].
fn mask_echoed_key_headers(rec: &mut Recording, key: &str) {
    for h in &mut rec.headers {
        if h.value.contains(key) {
            h.value = h.value.replace(key, capture::REDACTED);
        }
    }
}

/// The start of a transport error's text when something answered, but
/// not as an HTTP/1.1 response the client can read (a response head too
/// big or with too many fields, an SSH banner, another protocol).
pub const NOT_HTTP: &str =
    "the endpoint answered with something that is not a readable HTTP response";

/// Whether `e` says the server answered, but not in readable HTTP: a
/// response head past the client's size or field-count limit, or bytes
/// that do not parse as a status line and header fields.
fn unreadable_answer(e: &ureq::Error) -> bool {
    match e {
        ureq::Error::LargeResponseHeader(..) => true,
        // ureq-proto's error kinds are not exported; their texts are.
        ureq::Error::Protocol(p) => {
            let t = p.to_string();
            t.starts_with("http parse") || t == "unsupported http version"
        }
        _ => false,
    }
}

/// Whether `url`'s authority has a user part (`scheme://user@host`,
/// `scheme://user:password@host`).
#[cfg(test)]
fn url_has_userinfo(url: &str) -> bool {
    split_userinfo(url).1.is_some()
}

/// `url` without its user part (`scheme://user:password@host/…` →
/// `scheme://host/…`), and that part as written (`user:password`), if any.
fn split_userinfo(url: &str) -> (String, Option<String>) {
    let Some((scheme, rest)) = url.split_once("://") else {
        return (url.to_string(), None);
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..end].rsplit_once('@') {
        Some((info, host)) => (
            format!("{scheme}://{host}{}", &rest[end..]),
            Some(info.to_string()),
        ),
        None => (url.to_string(), None),
    }
}

pub use crate::capture::percent_decoded;

fn har_headers(hs: &[Header]) -> Value {
    Value::Array(
        hs.iter()
            .map(|h| json!({"name": h.name, "value": h.value}))
            .collect(),
    )
}

/// `t` in UTC as `[year, month, day, hour, minute, second]` (a time
/// before 1970 is 1970's start): what the HAR's `startedDateTime`, SigV4's
/// `X-Amz-Date` and `probe`'s directory stamp are written from.
pub fn utc_parts(t: SystemTime) -> [i64; 6] {
    let secs = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = if month <= 2 { y + 1 } else { y };
    [year, month, day, rem / 3600, rem % 3600 / 60, rem % 60]
}

fn iso8601(t: SystemTime) -> String {
    let [year, month, day, h, m, s] = utc_parts(t);
    let millis = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default()
        .subsec_millis();
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{millis:03}Z")
}

impl Recording {
    /// The capture as a HAR 1.2 document with one entry.
    pub fn to_har(&self) -> Value {
        let (text, encoding) = match std::str::from_utf8(&self.body) {
            Ok(s) => (s.to_string(), None),
            Err(_) => {
                use base64::Engine;
                (
                    base64::engine::general_purpose::STANDARD.encode(&self.body),
                    Some("base64"),
                )
            }
        };
        self.har_with(text, encoding, self.body.len() as u64, None)
    }

    /// Writes the HAR of [`Recording::to_har`] (pretty-printed, as
    /// `serde_json::to_writer_pretty` writes it) with `body` as the
    /// response body, read from it as it is written: the same bytes,
    /// without ever holding the body (the recording's own
    /// [`Recording::body`] is not used), nor the reads' records as JSON
    /// (each is written as it is made).
    ///
    /// # Errors
    /// Reading `body` or writing `out`.
    pub fn write_har(&self, body: &Spooled, out: &mut impl std::io::Write) -> std::io::Result<()> {
        let utf8 = is_utf8(body.reader())?;
        let encoding = (!utf8).then_some("base64");
        // Placeholders where the text and the reads go, written around.
        const HOLE: &str = "\u{1}sselint-body\u{1}";
        const READS: &str = "\u{1}sselint-reads\u{1}";
        let doc = self.har_with(HOLE.to_string(), encoding, body.len(), Some(READS));
        let text = serde_json::to_vec_pretty(&doc)?;
        let (hole, reads) = (serde_json::to_vec(HOLE)?, serde_json::to_vec(READS)?);
        let find = |what: &[u8]| {
            memchr::memmem::find(&text, what)
                .ok_or_else(|| std::io::Error::other("the HAR has no place for the body"))
        };
        // In the document's order (the keys are sorted: `_sselint` first).
        let mut places = [(find(&hole)?, true), (find(&reads)?, false)];
        places.sort_unstable();
        let mut from = 0;
        for (at, is_body) in places {
            out.write_all(&text[from..at])?;
            if is_body {
                out.write_all(b"\"")?;
                let mut r = body.reader();
                if utf8 {
                    write_escaped(&mut r, out)?;
                } else {
                    write_base64(&mut r, out)?;
                }
                out.write_all(b"\"")?;
                from = at + hole.len();
            } else {
                // The indentation of the line `"reads":` is on.
                let line = text[..at]
                    .iter()
                    .rposition(|b| *b == b'\n')
                    .map_or(0, |i| i + 1);
                let indent = text[line..].iter().take_while(|b| **b == b' ').count();
                self.write_reads(indent, out)?;
                from = at + reads.len();
            }
        }
        out.write_all(&text[from..])
    }

    /// Writes the reads' records as `serde_json::to_writer_pretty` writes
    /// the array at a line indented `indent` spaces: one record at a time.
    fn write_reads(&self, indent: usize, out: &mut impl std::io::Write) -> std::io::Result<()> {
        if self.reads.is_empty() {
            return out.write_all(b"[]");
        }
        let pad = " ".repeat(indent + 2);
        let (mut buf, mut item) = (Vec::with_capacity(64 * 1024 + 256), Vec::new());
        buf.push(b'[');
        for (i, r) in self.reads.iter().enumerate() {
            item.clear();
            serde_json::to_writer_pretty(&mut item, &json!({"offset": r.offset, "ms": r.ms}))?;
            buf.extend_from_slice(if i == 0 { b"\n" } else { b",\n" });
            for (j, line) in item.split(|b| *b == b'\n').enumerate() {
                if j > 0 {
                    buf.push(b'\n');
                }
                buf.extend_from_slice(pad.as_bytes());
                buf.extend_from_slice(line);
            }
            if buf.len() >= 64 * 1024 {
                out.write_all(&buf)?;
                buf.clear();
            }
        }
        buf.push(b'\n');
        buf.extend_from_slice(&pad.as_bytes()[2..]);
        buf.push(b']');
        out.write_all(&buf)
    }

    /// The HAR document around a body given as its `text` (and its
    /// `encoding`) and its length in bytes; with `reads`, that string
    /// stands where the reads' records go.
    fn har_with(
        &self,
        text: String,
        encoding: Option<&str>,
        size: u64,
        reads: Option<&str>,
    ) -> Value {
        let mime = capture::find_header(&self.headers, "content-type").unwrap_or("");
        let mut content = json!({"size": size, "mimeType": mime, "text": text});
        if let Some(e) = encoding {
            content["encoding"] = json!(e);
        }
        let receive = (self.total_ms - self.wait_ms).max(0.0);
        let mut har = json!({
            "log": {
                "version": "1.2",
                "creator": {"name": "sselint", "version": env!("CARGO_PKG_VERSION")},
                "entries": [{
                    "startedDateTime": iso8601(self.started),
                    "time": self.total_ms,
                    "request": {
                        "method": self.request.method,
                        "url": self.request.url,
                        "httpVersion": "HTTP/1.1",
                        "headers": har_headers(&self.request.headers),
                        "cookies": [],
                        "queryString": [],
                        "postData": {"mimeType": "application/json", "text": self.request.body.clone().unwrap_or_default()},
                        "headersSize": -1,
                        "bodySize": self.request.body.as_ref().map_or(0, String::len)
                    },
                    "response": {
                        "status": self.status,
                        "statusText": self.reason,
                        "httpVersion": self.version,
                        "headers": har_headers(&self.headers),
                        "cookies": [],
                        "content": content,
                        "redirectURL": "",
                        "headersSize": -1,
                        "bodySize": size
                    },
                    "cache": {},
                    "timings": {"send": 0, "wait": self.wait_ms, "receive": receive},
                    "_sselint": {
                        "reads": match reads {
                            Some(hole) => json!(hole),
                            None => json!(self.reads.iter().map(|r| json!({"offset": r.offset, "ms": r.ms})).collect::<Vec<_>>()),
                        },
                        "stopped": self.stop.name()
                    }
                }]
            }
        });
        if let Some(e) = self.decoded {
            har["log"]["entries"][0]["_sselint"]["decoded"] = json!(e);
        }
        har
    }
}

/// Hands `each` what `r` reads as UTF-8 text, a read at a time (a
/// character cut at the end of a read goes whole into the next piece).
/// Ok(false) at the first byte that is not UTF-8, or when the input ends
/// inside a character; Ok(true) when all of it was UTF-8.
fn utf8_pieces(
    mut r: impl Read,
    mut each: impl FnMut(&str) -> std::io::Result<()>,
) -> std::io::Result<bool> {
    let mut buf = vec![0u8; 256 * 1024];
    let mut carry = 0;
    loop {
        let n = match r.read(&mut buf[carry..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let end = carry + n;
        let valid = match std::str::from_utf8(&buf[..end]) {
            Ok(_) => end,
            Err(e) if e.error_len().is_none() && n > 0 => e.valid_up_to(),
            Err(_) => return Ok(false),
        };
        each(std::str::from_utf8(&buf[..valid]).unwrap_or_default())?;
        buf.copy_within(valid..end, 0);
        carry = end - valid;
        if n == 0 {
            return Ok(true);
        }
    }
}

/// Whether what `r` reads is UTF-8 throughout.
fn is_utf8(r: impl Read) -> std::io::Result<bool> {
    utf8_pieces(r, |_| Ok(()))
}

/// Writes the UTF-8 text `r` reads as the inside of a JSON string, escaped
/// as `serde_json` escapes it (the quotes left out). Errors with
/// `InvalidData` when what it reads is not UTF-8.
fn write_escaped(r: &mut impl Read, out: &mut impl std::io::Write) -> std::io::Result<()> {
    let mut esc = Vec::with_capacity(256 * 1024 + 64);
    let utf8 = utf8_pieces(r, |text| {
        esc.clear();
        serde_json::to_writer(&mut esc, text)?;
        out.write_all(&esc[1..esc.len() - 1])
    })?;
    if utf8 {
        Ok(())
    } else {
        Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "the body is not UTF-8",
        ))
    }
}

/// Writes what `r` reads in standard base64 with padding, as one
/// `encode` of the whole would.
fn write_base64(r: &mut impl Read, out: &mut impl std::io::Write) -> std::io::Result<()> {
    use base64::Engine;
    // A multiple of 3 bytes at a time: the pieces' encodings join up.
    let mut buf = vec![0u8; 3 * 64 * 1024];
    loop {
        let mut filled = 0;
        while filled < buf.len() {
            match r.read(&mut buf[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if filled > 0 {
            let piece = base64::engine::general_purpose::STANDARD.encode(&buf[..filled]);
            out.write_all(piece.as_bytes())?;
        }
        if filled < buf.len() {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recording(body: &[u8]) -> Recording {
        Recording {
            request: capture::Request {
                method: "POST".into(),
                url: "http://127.0.0.1:1/v1/chat/completions".into(),
                headers: vec![header("Content-Type", "application/json")],
                body: Some("{\"stream\":true}".into()),
            },
            status: 200,
            reason: "OK".into(),
            version: "HTTP/1.1".into(),
            headers: vec![
                header("content-type", "text/event-stream"),
                header("x-echo", "key sk-abcdefghijkl"),
            ],
            body: body.to_vec(),
            reads: vec![
                Read_ { offset: 0, ms: 1.0 },
                Read_ {
                    offset: 20,
                    ms: 2.0,
                },
                Read_ {
                    offset: body.len() as u64,
                    ms: 3.0,
                },
            ],
            started: SystemTime::UNIX_EPOCH,
            wait_ms: 1.0,
            total_ms: 3.0,
            stop: Stop::Complete,
            decoded: None,
        }
    }

    /// The HAR written from a spooled body is the one `to_har` gives, byte
    /// for byte: text with every kind of escape, and base64.
    #[test]
    fn a_har_written_from_a_spool_is_the_har_of_the_body() {
        let long: Vec<u8> = "data: {\"x\":\"é\u{1}\\\t\"}\r\n\n"
            .repeat(40_000)
            .into_bytes();
        let mut bad = long.clone();
        bad.push(0xFF);
        for (n, body) in [&b""[..], b"data: [DONE]\n\n", &long, &bad, b"\xFF\x00ab"]
            .into_iter()
            .enumerate()
        {
            let mut rec = recording(body);
            // No reads; reads of odd times.
            match n {
                0 => rec.reads.clear(),
                2 => rec.reads.push(Read_ {
                    offset: 7,
                    ms: 1_234.567_890_123,
                }),
                _ => {}
            }
            let want = serde_json::to_vec_pretty(&rec.to_har()).unwrap();
            for spooled in [Spooled::Mem(body.to_vec()), {
                let mut s = Spool::default();
                s.extend(body);
                s.finish().unwrap()
            }] {
                let mut without = rec.clone();
                without.body.clear();
                let mut got = Vec::new();
                without.write_har(&spooled, &mut got).unwrap();
                assert!(got == want, "{} bytes", body.len());
            }
        }
    }

    /// The key masked in a spooled body as in one held whole, where it
    /// straddles two reads too.
    #[test]
    fn the_key_is_masked_in_a_spooled_body_as_in_a_held_one() {
        let key = "sk-abcdefghijkl";
        let mut body = b"data: one sk-abcdefghijkl two\n\n".to_vec();
        body.extend(std::iter::repeat_n(b'x', 256 * 1024 - 5 - body.len()));
        body.extend_from_slice(b"sk-abcdefghijkl and\n\n");
        let mut held = recording(&body);
        mask_echoed_key(&mut held, key);
        let mut spooled = recording(b"");
        spooled.reads = recording(&body).reads;
        let masked = mask_echoed_key_spooled(&mut spooled, Spooled::Mem(body), key).unwrap();
        let mut got = Vec::new();
        masked.reader().read_to_end(&mut got).unwrap();
        assert!(got == held.body);
        assert_eq!(spooled.headers, held.headers);
        let offsets = |r: &Recording| r.reads.iter().map(|x| x.offset).collect::<Vec<_>>();
        assert_eq!(offsets(&spooled), offsets(&held));
    }

    #[test]
    fn stream_options_are_chats_alone() {
        for d in crate::dialect::ALL.iter().filter(|d| d.name() != "chat") {
            let b = prepare_body(json!({"model": "m"}), true, *d).unwrap();
            // `stream: true`, unless the API streams by its method and
            // rejects the field (the dialect's `prepare` removes it).
            assert!(b.get("stream").is_none_or(|s| *s == true), "{d}: {b}");
            assert!(b.get("stream_options").is_none(), "{d}: {b}");
        }
    }

    fn chat() -> crate::dialect::Dialect {
        crate::dialect::Dialect::parse("chat").unwrap()
    }

    #[test]
    fn stream_is_forced_and_usage_asked() {
        let b = prepare_body(json!({"model": "m", "stream": false}), true, chat()).unwrap();
        assert_eq!(b["stream"], true);
        assert_eq!(b["stream_options"]["include_usage"], true);
        let b = prepare_body(
            json!({"stream_options": {"include_usage": false}}),
            true,
            chat(),
        )
        .unwrap();
        assert_eq!(b["stream_options"]["include_usage"], false);
    }

    #[test]
    fn a_user_part_is_found_in_the_authority_only() {
        assert!(url_has_userinfo("http://u:p@h/v1"));
        assert!(url_has_userinfo("https://u@h:8080"));
        assert!(!url_has_userinfo("http://h/v1?to=a@b"));
        assert!(!url_has_userinfo("http://h/a@b"));
    }

    #[test]
    fn dates_are_iso_8601() {
        let t = SystemTime::UNIX_EPOCH + Duration::from_millis(1_700_000_000_123);
        assert_eq!(iso8601(t), "2023-11-14T22:13:20.123Z");
    }
}
