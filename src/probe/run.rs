//! Running one scenario: send its request ([`crate::live::record`]), save
//! the capture as HAR (secrets redacted), lint it with the request in hand,
//! add the probe rules' findings, and give the verdict.

use super::{expectations, Finding, Outcome, Scenario, Verdict, MIN_SEARCHED_SECRET};
use crate::dialect::Dialect;
use crate::lint::{Settings, Severity};
use crate::live::{self, percent_decoded, Recording, Stop};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The endpoint probed.
#[derive(Debug, Clone)]
pub struct Target {
    /// The endpoint URL (the dialect's path included).
    pub url: String,
    /// The API it speaks.
    pub dialect: Dialect,
    /// The `model` every request names.
    pub model: String,
    /// Extra request headers (name, value).
    pub headers: Vec<(String, String)>,
    /// The API key (sent as `Authorization: Bearer …`, or `x-api-key` for
    /// Messages; never saved or shown: it is masked wherever the server
    /// echoes it).
    pub api_key: Option<String>,
    /// The longest a scenario's request may take (and may stay silent).
    pub timeout: Duration,
    /// Accept any TLS certificate.
    pub insecure: bool,
    /// Chat: send the token budget as `max_completion_tokens` (OpenAI's
    /// reasoning models reject `max_tokens`) instead of `max_tokens`.
    pub max_completion_tokens: bool,
    /// AWS credentials to sign each request with (SigV4), for an API that
    /// takes a signature (Bedrock) when no key is given; the key id and
    /// session token are masked as the API key is.
    pub aws: Option<crate::live::sigv4::Credentials>,
}

/// Each secret the probe sends, with what it is (`the API key`,
/// `-H Apikey`, `the URL's password`, `the URL's api_key parameter`): the
/// API key, the value of each `-H` header that carries a secret
/// (`Authorization`, `Apikey`, `X-Auth`, `Cookie`, …: see
/// [`crate::capture::is_secret_header`]) whole, by its last word (the
/// token of `Bearer TOKEN`) and by each cookie value, the URL's password
/// and the `Basic` token it goes out as, and the value of each secret
/// query parameter (see [`crate::capture::is_secret_param`]) as written
/// and percent-decoded. Empty values are left out.
fn sent_secrets(t: &Target) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = t
        .api_key
        .iter()
        .map(|k| (k.clone(), "the API key".to_string()))
        .collect();
    if let Some(a) = &t.aws {
        out.push((a.access_key_id.clone(), "the AWS access key id".to_string()));
        if let Some(token) = &a.session_token {
            out.push((token.clone(), "the AWS session token".to_string()));
        }
    }
    for (name, value) in &t.headers {
        if crate::capture::is_secret_header(name) {
            let what = format!("-H {name}");
            out.push((value.clone(), what.clone()));
            if let Some(last) = value.split_whitespace().last() {
                out.push((last.to_string(), what.clone()));
            }
            // A cookie's values, one by one.
            for part in value.split(';') {
                if let Some((_, v)) = part.split_once('=') {
                    out.push((v.trim().to_string(), what.clone()));
                }
            }
        }
    }
    // A password in the URL goes out as `Authorization: Basic
    // base64(user:password)`, both percent-decoded: the password as
    // written and decoded, and that token with and without its padding.
    if let Some((user, pass)) = url_credentials(&t.url) {
        use base64::Engine as _;
        let (user, decoded) = (percent_decoded(&user), percent_decoded(&pass));
        let token = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{decoded}"));
        let what = "the URL's password".to_string();
        out.push((token.trim_end_matches('=').to_string(), what.clone()));
        out.push((token, what.clone()));
        out.push((decoded, what.clone()));
        out.push((pass, what));
    }
    // A key in the query (`?api_key=…`, `?sig=…`): the values the URL
    // shown has masked.
    if let Some((_, query)) = t.url.split_once('?') {
        let query = query.split('#').next().unwrap_or("");
        for kv in query.split('&') {
            if let Some((k, v)) = kv.split_once('=') {
                if crate::capture::is_secret_param(k) {
                    let what = format!("the URL's {k} parameter");
                    out.push((percent_decoded(v), what.clone()));
                    out.push((v.to_string(), what));
                }
            }
        }
    }
    out.retain(|(v, _)| !v.is_empty());
    out
}

/// The secrets the probe sends (see [`sent_secrets`]) of
/// [`MIN_SEARCHED_SECRET`] bytes or more, to mask wherever the server
/// echoes them, longest first (so a value is masked before a part of it).
fn secrets(t: &Target) -> Vec<String> {
    let mut out: Vec<String> = sent_secrets(t)
        .into_iter()
        .map(|(v, _)| v)
        .filter(|v| v.len() >= MIN_SEARCHED_SECRET)
        .collect();
    out.sort_by_key(|s| std::cmp::Reverse(s.len()));
    out.dedup();
    out
}

/// What the secrets under [`MIN_SEARCHED_SECRET`] bytes are (`the API
/// key`, `-H Apikey`, …), each once: they are masked in the request saved,
/// but not searched for in what the server sends back.
pub fn short_secrets(t: &Target) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (v, what) in sent_secrets(t) {
        if v.len() < MIN_SEARCHED_SECRET && !out.contains(&what) {
            out.push(what);
        }
    }
    out
}

/// The `user` and `password` of a URL's `scheme://user:password@host/…`
/// (as written; `None` without a password).
fn url_credentials(url: &str) -> Option<(String, String)> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let (userinfo, _) = authority.rsplit_once('@')?;
    let (user, pass) = userinfo.split_once(':')?;
    (!pass.is_empty()).then(|| (user.to_string(), pass.to_string()))
}

/// `text` with every occurrence of each of `secrets` masked.
fn mask(text: &str, secrets: &[String]) -> String {
    let mut out = text.to_string();
    for k in secrets {
        out = out.replace(k.as_str(), crate::capture::REDACTED);
    }
    out
}

/// `body` with every occurrence of `secret` replaced by
/// [`crate::capture::REDACTED`], and `offsets` (into `body`) moved to
/// where the same bytes are in the result (an offset inside a secret moves
/// to the mask's start).
fn mask_bytes(body: &[u8], secret: &[u8], offsets: &mut [u64]) -> Vec<u8> {
    let with = crate::capture::REDACTED.as_bytes();
    let hits: Vec<(usize, usize, Vec<u8>)> = memchr::memmem::find_iter(body, secret)
        .scan(0usize, |next, i| {
            // Occurrences do not overlap: one masked, the search goes on
            // past it.
            let keep = i >= *next;
            if keep {
                *next = i + secret.len();
            }
            Some(keep.then(|| (i, i + secret.len(), with.to_vec())))
        })
        .flatten()
        .collect();
    splice(body, &hits, offsets)
}

/// `body` with each `(start, end, with)` of `hits` (in order, not
/// overlapping) replaced by `with`, and `offsets` (into `body`) moved to
/// where the same bytes are in the result (an offset inside a replaced
/// range moves to the replacement's start).
fn splice(body: &[u8], hits: &[(usize, usize, Vec<u8>)], offsets: &mut [u64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len());
    // (old start, old end, new start, new end) of each replacement.
    let mut moved: Vec<(usize, usize, usize, usize)> = Vec::new();
    let mut at = 0;
    for (start, end, with) in hits {
        out.extend_from_slice(&body[at..*start]);
        moved.push((*start, *end, out.len(), out.len() + with.len()));
        out.extend_from_slice(with);
        at = *end;
    }
    out.extend_from_slice(&body[at..]);
    for o in offsets.iter_mut() {
        let old = *o as usize;
        let mut new = old as i64;
        for &(start, end, new_start, new_end) in &moved {
            if old >= end {
                new += (new_end - new_start) as i64 - (end - start) as i64;
            } else if old > start {
                new = new_start as i64;
                break;
            } else {
                break;
            }
        }
        *o = new.max(0) as u64;
    }
    out
}

/// `v` with each of `secrets` masked in its strings and keys, decoded
/// (a key the server wrote JSON-escaped, `\/` or `\u0073`, is found
/// too); `None` when none holds one.
fn mask_json(v: &serde_json::Value, secrets: &[String]) -> Option<serde_json::Value> {
    use serde_json::Value;
    let held = |s: &str| secrets.iter().any(|k| s.contains(k.as_str()));
    fn holds(v: &Value, held: &dyn Fn(&str) -> bool) -> bool {
        match v {
            Value::String(s) => held(s),
            Value::Array(a) => a.iter().any(|x| holds(x, held)),
            Value::Object(o) => o.iter().any(|(k, x)| held(k) || holds(x, held)),
            _ => false,
        }
    }
    fn masked(v: &Value, secrets: &[String]) -> Value {
        match v {
            Value::String(s) => Value::String(mask(s, secrets)),
            Value::Array(a) => Value::Array(a.iter().map(|x| masked(x, secrets)).collect()),
            Value::Object(o) => Value::Object(
                o.iter()
                    .map(|(k, x)| (mask(k, secrets), masked(x, secrets)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
    holds(v, &held).then(|| masked(v, secrets))
}

/// Where `body` holds one of `secrets` only in a JSON-escaped form: the
/// whole body when it is one JSON document (an error), else each SSE
/// `data:` line whose value is JSON; each with its re-serialized text,
/// the secrets masked in its decoded strings. Only what held a secret is
/// listed.
fn json_hits(body: &[u8], secrets: &[String]) -> Vec<(usize, usize, Vec<u8>)> {
    let redo = |text: &[u8]| {
        let v: serde_json::Value = serde_json::from_slice(text).ok()?;
        mask_json(&v, secrets).and_then(|m| serde_json::to_vec(&m).ok())
    };
    let trimmed = body.trim_ascii();
    if trimmed.starts_with(b"{") || trimmed.starts_with(b"[") {
        if let Some(with) = redo(trimmed) {
            let start = body.len() - body.trim_ascii_start().len();
            return vec![(start, start + trimmed.len(), with)];
        }
    }
    let mut out = Vec::new();
    let mut at = 0;
    for line in body.split_inclusive(|&b| b == b'\n') {
        let start = at;
        at += line.len();
        let Some(rest) = line.strip_prefix(b"data:") else {
            continue;
        };
        let value = rest.strip_prefix(b" ").unwrap_or(rest);
        let value_start = start + (line.len() - value.len());
        let value = value.trim_ascii_end();
        if value.is_empty() {
            continue;
        }
        if let Some(with) = redo(value) {
            out.push((value_start, value_start + value.len(), with));
        }
    }
    out
}

/// What the linter finds in `body` read alone: each finding's rule,
/// severity, event and JSON pointer (not its text, nor its byte offsets,
/// which a mask shorter or longer than the secret moves).
type Shape = Vec<(&'static str, Severity, Option<u64>, Option<String>)>;

fn lint_shape(body: &[u8]) -> Option<Shape> {
    let cap = crate::capture::from_reader(
        "body",
        Box::new(std::io::Cursor::new(body.to_vec())),
        &Default::default(),
    )
    .ok()?;
    let r =
        crate::pipeline::lint_capture(cap, &Settings::default(), &mut crate::pipeline::NoObserver);
    Some(
        r.streams
            .iter()
            .flat_map(|s| &s.diagnostics)
            .map(|d| (d.rule, d.severity, d.event_index, d.pointer.clone()))
            .collect(),
    )
}

/// `rec` with every one of `secrets` masked in its response headers and
/// body, its read offsets moved to match, so that the saved HAR stays
/// consistent (`content.size` is the masked body's length, no false
/// `capture-truncated`) and the linter reads the stream as the server
/// sent it, the secret aside. A secret whose masking would change what
/// the linter finds in the body (a value that is also the stream's own
/// text: a field name, `assistant`) is left in the body: masking never
/// changes how a capture is linted. `Location` and `Content-Location`
/// have their secret query values and password masked as the URL is.
///
/// The second is the secrets left in the body.
fn masked(rec: &Recording, secrets: &[String]) -> (Recording, Vec<String>) {
    let mut rec = rec.clone();
    let mut shape = None;
    let mut left = Vec::new();
    for k in secrets {
        if memchr::memmem::find(&rec.body, k.as_bytes()).is_none() {
            continue;
        }
        let mut offsets: Vec<u64> = rec.reads.iter().map(|r| r.offset).collect();
        let body = mask_bytes(&rec.body, k.as_bytes(), &mut offsets);
        let before = shape.get_or_insert_with(|| lint_shape(&rec.body));
        if lint_shape(&body) != *before {
            left.push(k.clone());
            continue;
        }
        rec.body = body;
        for (r, o) in rec.reads.iter_mut().zip(offsets) {
            r.offset = o;
        }
    }
    // What is left JSON-escaped (`\/`, `\u…`): masked in the decoded
    // strings of the one document or line that holds it.
    let hits = json_hits(&rec.body, secrets);
    if !hits.is_empty() {
        let mut offsets: Vec<u64> = rec.reads.iter().map(|r| r.offset).collect();
        let body = splice(&rec.body, &hits, &mut offsets);
        let before = shape.get_or_insert_with(|| lint_shape(&rec.body));
        if lint_shape(&body) == *before {
            rec.body = body;
            for (r, o) in rec.reads.iter_mut().zip(offsets) {
                r.offset = o;
            }
        }
    }
    for h in rec.headers.iter_mut().chain(rec.request.headers.iter_mut()) {
        h.value = mask(&h.value, secrets);
        if h.name.eq_ignore_ascii_case("location")
            || h.name.eq_ignore_ascii_case("content-location")
        {
            h.value = crate::capture::redact_url(&h.value);
        }
    }
    (rec, left)
}

/// `v` with `secrets` masked in every string but the response body
/// (`content.text`, masked by [`masked`] as far as it can be).
fn mask_strings(v: &mut serde_json::Value, secrets: &[String], body: bool) {
    match v {
        serde_json::Value::String(s) if !body => *s = mask(s, secrets),
        serde_json::Value::Array(a) => a.iter_mut().for_each(|x| mask_strings(x, secrets, false)),
        serde_json::Value::Object(o) => {
            let content = o.contains_key("mimeType") && o.contains_key("size");
            for (k, x) in o.iter_mut() {
                mask_strings(x, secrets, content && k == "text");
            }
        }
        _ => {}
    }
}

/// A transport error's text, safe to show: the URL as given (which may
/// hold a key in its query or a password) replaced by its redacted form,
/// the key masked, and `sk-…` keys masked.
fn clean_error(t: &Target, e: &str) -> String {
    let e = e.replace(&t.url, &crate::capture::redact_url(&t.url));
    crate::capture::redact_keys(&mask(&e, &secrets(t)))
}

fn request(t: &Target, mut body: serde_json::Value) -> live::Request {
    if let Some((old, new)) = t
        .dialect
        .api()
        .budget_rename()
        .filter(|_| t.max_completion_tokens)
    {
        if let Some(o) = body.as_object_mut() {
            if let Some(n) = o.remove(old) {
                o.insert(new.into(), n);
            }
        }
    }
    live::Request {
        url: t.url.clone(),
        dialect: t.dialect,
        body,
        headers: t.headers.clone(),
        api_key: t.api_key.clone(),
        // Each scenario's body says what it asks; usage only in `usage`.
        include_usage: false,
        timeout: Some(t.timeout),
        read_timeout: t.timeout,
        insecure: t.insecure,
        // Only the URL given is contacted: a 3xx is the answer.
        follow_redirects: false,
        aws: t.aws.clone(),
    }
}

/// The most body bytes a scenario reads (its request asks for at most a
/// few hundred tokens): 4 MiB.
pub const MAX_BODY_BYTES: usize = 4 << 20;

/// The decoded form of a compressed body (`Content-Encoding` gzip,
/// deflate or br, or gzip bytes unannounced, which the capture readers
/// decode too), decoded as it arrives and kept up to [`MAX_BODY_BYTES`]:
/// the probe never asks for compression, and 44 KB of gzip can decode to
/// 44 MB.
struct Decoding {
    /// The decoder, writing into `out`; `None` once it failed or the
    /// decoded body passed the limit.
    decoder: Option<Box<dyn std::io::Write>>,
    /// The body did not decode (the capture keeps the bytes received,
    /// and its reader says what is wrong with them).
    failed: bool,
    out: std::rc::Rc<std::cell::RefCell<Capped>>,
    /// The encoding undone.
    encoding: crate::capture::decode::Encoding,
    /// The decoded length at the start of each read (body offsets of the
    /// decoded body, one per [`Recording::reads`] entry).
    offsets: Vec<u64>,
}

/// A sink that takes at most [`MAX_BODY_BYTES`] and fails past them.
#[derive(Default)]
struct Capped {
    bytes: Vec<u8>,
    over: bool,
}

/// Writes into the shared [`Capped`].
struct Shared(std::rc::Rc<std::cell::RefCell<Capped>>);

impl std::io::Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut c = self.0.borrow_mut();
        let room = MAX_BODY_BYTES - c.bytes.len();
        if c.over || buf.len() > room {
            c.bytes.extend_from_slice(&buf[..room.min(buf.len())]);
            c.over = true;
            return Err(std::io::Error::other("past the probe's size limit"));
        }
        c.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Decoding {
    /// A decoder for the body whose first bytes are `head`, under
    /// response headers `headers`; `None` for a body that is not
    /// compressed (or in an encoding sselint does not decode).
    fn start(headers: &[crate::capture::Header], head: &[u8]) -> Option<Self> {
        use crate::capture::decode::{self, Encoding};
        let enc = crate::capture::find_header(headers, "content-encoding")
            .and_then(Encoding::from_header)
            .or_else(|| decode::is_gzip(head).then_some(Encoding::Gzip))?;
        let out = std::rc::Rc::new(std::cell::RefCell::new(Capped::default()));
        let sink = Shared(out.clone());
        let decoder: Box<dyn std::io::Write> = match enc {
            Encoding::Gzip => Box::new(flate2::write::MultiGzDecoder::new(sink)),
            // zlib-wrapped (RFC 1950, CMF 0x78 in practice) or raw.
            Encoding::Deflate if head.first() == Some(&0x78) => {
                Box::new(flate2::write::ZlibDecoder::new(sink))
            }
            Encoding::Deflate => Box::new(flate2::write::DeflateDecoder::new(sink)),
            Encoding::Brotli => Box::new(brotli_decompressor::DecompressorWriter::new(sink, 4096)),
        };
        Some(Decoding {
            decoder: Some(decoder),
            failed: false,
            out,
            encoding: enc,
            offsets: Vec::new(),
        })
    }

    /// Decodes one read; `true` once the decoded body passed the limit.
    fn feed(&mut self, b: &[u8]) -> bool {
        self.offsets.push(self.out.borrow().bytes.len() as u64);
        if let Some(d) = &mut self.decoder {
            if d.write_all(b).is_err() {
                // Past the limit, or not decodable (the capture reader
                // reports that from the bytes as received).
                self.decoder = None;
                self.failed = !self.out.borrow().over;
            }
        }
        self.out.borrow().over
    }

    /// `rec` holding the decoded body, cut at [`MAX_BODY_BYTES`] (its reads
    /// at their decoded offsets), in place of the compressed bytes, as a
    /// HAR's `content.text` holds a decoded body: what the server sent is
    /// then masked and shown as text. The `Content-Encoding` header is
    /// dropped (so that no reader decodes the text again) and
    /// [`Recording::decoded`] names it.
    fn replace(self, rec: &mut Recording) {
        // Dropping the decoder flushes what it holds.
        drop(self.decoder);
        rec.headers
            .retain(|h| !h.name.eq_ignore_ascii_case("content-encoding"));
        rec.decoded = Some(self.encoding.name());
        let body = std::mem::take(&mut self.out.borrow_mut().bytes);
        let mut reads: Vec<crate::capture::Read_> = Vec::new();
        for (r, &offset) in rec.reads.iter().zip(&self.offsets) {
            if offset >= body.len() as u64 {
                break;
            }
            // A read that decoded to nothing yet: the bytes at this
            // offset came with the later one.
            if reads.last().is_some_and(|l| l.offset == offset) {
                reads.pop();
            }
            reads.push(crate::capture::Read_ { offset, ms: r.ms });
        }
        rec.body = body;
        rec.reads = reads;
    }
}

/// Which size passed [`MAX_BODY_BYTES`].
#[derive(Debug, Clone, Copy)]
enum SizeCut {
    /// The bytes received.
    Wire,
    /// The body decoded from this `Content-Encoding`.
    Decoded(crate::capture::decode::Encoding),
}

/// [`live::record`] of `req`, stopped by `stop` (Ctrl-C) or once the body
/// passes [`MAX_BODY_BYTES`], as received or, compressed, decoded (the
/// capture then holds the decoded body up to the limit), or, with
/// `hang_up`, after the first read (stored as [`Stop::HungUp`]); the
/// second says which size cut it, if one did.
fn bounded_record(
    req: &live::Request,
    stop: &AtomicBool,
    hang_up: bool,
) -> Result<(Recording, Option<SizeCut>), live::RecordError> {
    let cut = AtomicBool::new(false);
    let hung_up = AtomicBool::new(false);
    let too_large = AtomicBool::new(false);
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        // Ctrl-C is seen during silences too, not only at reads.
        scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                if stop.load(Ordering::Relaxed) {
                    cut.store(true, Ordering::SeqCst);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        let mut bytes = 0usize;
        let headers = std::cell::RefCell::new(Vec::new());
        let mut decoding: Option<Decoding> = None;
        let mut first = true;
        let rec = live::record_watching(
            req,
            &cut,
            |h| *headers.borrow_mut() = h.to_vec(),
            |b, _| {
                if first {
                    first = false;
                    decoding = Decoding::start(&headers.borrow(), b);
                }
                bytes += b.len();
                let decoded_over = decoding.as_mut().is_some_and(|d| d.feed(b));
                if bytes > MAX_BODY_BYTES || decoded_over {
                    too_large.store(true, Ordering::SeqCst);
                    cut.store(true, Ordering::SeqCst);
                }
                if hang_up {
                    hung_up.store(true, Ordering::SeqCst);
                    cut.store(true, Ordering::SeqCst);
                }
            },
        );
        done.store(true, Ordering::Relaxed);
        let too_large = too_large.load(Ordering::SeqCst);
        rec.map(|mut r| {
            // The probe's own cut, not the user's Ctrl-C.
            if too_large && r.stop == Stop::Interrupted {
                r.stop = Stop::SizeLimit;
            } else if hung_up.load(Ordering::SeqCst) && r.stop == Stop::Interrupted {
                r.stop = Stop::HungUp;
            }
            let mut cut = too_large.then_some(SizeCut::Wire);
            if let Some(d) = decoding {
                if d.out.borrow().over {
                    // The decoded body passed the limit, whether the
                    // server went on or had ended: the capture keeps what
                    // the probe reads.
                    cut = Some(SizeCut::Decoded(d.encoding));
                    d.replace(&mut r);
                    r.stop = Stop::SizeLimit;
                } else if !d.failed && crate::capture::decode::decodes_whole(d.encoding, &r.body) {
                    // Kept decoded, so that an echoed secret is masked in
                    // it and an error body is read as the text it is. One
                    // cut short is kept as received, so that its capture
                    // says so (a secret the reader finds in it still
                    // withholds the body: see `save`).
                    d.replace(&mut r);
                }
            }
            (r, cut)
        })
    })
}

/// A capture saved.
struct Saved {
    /// Where.
    path: PathBuf,
    /// The capture read as `check` reads it, from the HAR with its body
    /// (secrets masked), even where the body was withheld from the file:
    /// what the scenario is judged on.
    file: crate::pipeline::FileResult,
    /// The body was left out of the file: a secret was still there once
    /// the capture was read (see [`echoed_secret`]).
    withheld: bool,
}

/// The note of a scenario whose saved body was withheld.
const WITHHELD: &str = "the response body was withheld from the saved capture: the server echoed a secret in a form masking cannot reach (split across events, or escaped); the verdict comes from the body as received";

/// Reads `har` (a HAR's text) as `check` reads `path`.
fn read_har(path: &Path, har: &str, settings: &Settings) -> crate::pipeline::FileResult {
    let name = path.to_string_lossy();
    let opts = crate::capture::Options {
        input_format: Some(crate::capture::InputFormat::Har),
        ..Default::default()
    };
    let cap = crate::capture::from_reader(
        &name,
        Box::new(std::io::Cursor::new(har.as_bytes().to_vec())),
        &opts,
    );
    crate::pipeline::lint_opened(&name, cap, settings)
}

/// Whether one of `secrets` is in what `check` makes of `file`: the
/// assembled answer (each choice's, output item's or content block's text,
/// tool-call arguments, error messages, findings), as its human (`-v`) and
/// JSON reports print it. A key split across two events, which no mask of
/// the body's lines reaches, is found here.
/// `file` is given back as it was.
fn echoed_secret(
    file: crate::pipeline::FileResult,
    secrets: &[String],
) -> (crate::pipeline::FileResult, bool) {
    use crate::report::Render as _;
    let run = crate::report::Run {
        files: vec![file],
        profile: "openai".to_string(),
        suppressed: 0,
        fail_on: None,
    };
    let mut text = format!("{:?}", run.files).into_bytes();
    let human = crate::report::human::Human {
        verbose: true,
        color: false,
        quiet: false,
        errors_elsewhere: false,
    };
    let _ = human.render(&run, &mut text);
    let _ = crate::report::json::Json.render(&run, &mut text);
    let found = secrets
        .iter()
        .any(|k| memchr::memmem::find(&text, k.as_bytes()).is_some());
    let file = run.files.into_iter().next().expect("the one file put in");
    (file, found)
}

/// Saves `rec` as `dir/NAME.har`, the key masked even where the server
/// echoed it; what a secret left in the body is goes in `unmasked`
/// (see [`masked`]). Where a secret is still in the capture read back
/// (see [`echoed_secret`]), the file gets no body: `content.text` empty,
/// and a `comment` and `_sselint.withheld` saying why.
/// Why a probe's capture was not saved ([`save`]).
#[derive(Debug, thiserror::Error)]
enum SaveError {
    /// The HAR document did not serialize (what serde_json said).
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// The file could not be written (what the system said).
    #[error("writing {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

fn save(
    t: &Target,
    rec: &Recording,
    dir: &Path,
    name: &str,
    unmasked: &mut Vec<String>,
    settings: &Settings,
) -> Result<Saved, SaveError> {
    let secrets = secrets(t);
    let (rec, left) = masked(rec, &secrets);
    for (v, what) in sent_secrets(t) {
        if left.contains(&v) && !unmasked.contains(&what) {
            unmasked.push(what);
        }
    }
    let mut har = rec.to_har();
    // Belt and braces: the request, the URL.
    mask_strings(&mut har, &secrets, false);
    let text = serde_json::to_string_pretty(&har)?;
    let path = dir.join(format!("{name}.har"));
    // A secret left as the stream's own text (`assistant`) is said on
    // the card; withholding the body would not hide it.
    let searched: Vec<String> = secrets
        .iter()
        .filter(|k| !left.contains(k))
        .cloned()
        .collect();
    let (file, withheld) = echoed_secret(read_har(&path, &text, settings), &searched);
    let text = if withheld {
        let entry = &mut har["log"]["entries"][0];
        entry["response"]["content"] = serde_json::json!({
            "size": 0,
            "mimeType": entry["response"]["content"]["mimeType"].clone(),
            "text": "",
            "comment": WITHHELD,
        });
        entry["response"]["bodySize"] = serde_json::json!(0);
        entry["_sselint"]["reads"] = serde_json::json!([]);
        entry["_sselint"]["withheld"] = serde_json::json!(WITHHELD);
        serde_json::to_string_pretty(&har)?
    } else {
        text
    };
    crate::output::write_atomic(&path, text.as_bytes()).map_err(|source| SaveError::Write {
        path: path.clone(),
        source,
    })?;
    Ok(Saved {
        path,
        file,
        withheld,
    })
}

fn timing(o: &mut Outcome, rec: &Recording) {
    o.status = Some(rec.status);
    o.first_byte_ms = rec.reads.first().map(|r| r.ms);
    o.total_ms = Some(rec.total_ms);
    o.max_gap_ms = rec
        .reads
        .windows(2)
        .map(|w| w[1].ms - w[0].ms)
        .reduce(f64::max);
    o.interrupted = rec.stop == Stop::Interrupted;
}

/// Adds `note` to `o`'s note.
fn add_note(o: &mut Outcome, note: &str) {
    o.note = Some(match o.note.take() {
        Some(n) if !n.contains(note) => format!("{n}; {note}"),
        Some(n) => n,
        None => note.to_string(),
    });
}

/// Saves `rec` as the scenario's capture and reads its time to first
/// content into `o`; on a failed save, `o` becomes an `error` saying why
/// and `None` is returned. What it gives is the capture as read (see
/// [`Saved::file`]).
fn keep(
    o: &mut Outcome,
    t: &Target,
    rec: &Recording,
    dir: &Path,
    settings: &Settings,
) -> Option<crate::pipeline::FileResult> {
    match save(t, rec, dir, o.name, &mut o.unmasked, settings) {
        Ok(saved) => {
            if saved.withheld {
                o.withheld = true;
            } else {
                o.ttft_ms = first_content_ms(&saved.path, settings);
            }
            o.capture = Some(saved.path);
            Some(saved.file)
        }
        Err(e) => {
            o.verdict = Verdict::Error;
            o.note = Some(e.to_string());
            None
        }
    }
}

/// When the saved capture's first content event arrived (ms since the
/// request): the time of the first SSE event, NDJSON line or event-stream
/// frame the linter reads content in; `None` without content or timing.
fn first_content_ms(path: &Path, settings: &Settings) -> Option<f64> {
    let cap = crate::capture::open(&path.to_string_lossy(), &Default::default()).ok()?;
    let stream = cap.streams.into_iter().next()?;
    let mut first = FirstContent {
        timing: stream.timing.clone()?,
        at: None,
    };
    crate::pipeline::lint_stream(stream, settings, &mut first);
    first.at
}

/// Watches a stream's events for the first with content ([`first_content_ms`]).
struct FirstContent {
    timing: crate::capture::Timing,
    at: Option<f64>,
}

impl FirstContent {
    fn event(&mut self, end: u64, index: u64, linter: &crate::checks::Linter<'_>) {
        if self.at.is_none() && linter.event_kind.contains(&"content") {
            self.at = self.timing.time_of(end, Some(index));
        }
    }
}

impl crate::pipeline::Observer for FirstContent {
    fn block(
        &mut self,
        block: &crate::sse::Block<'_>,
        _new: &[crate::lint::Diagnostic],
        linter: &crate::checks::Linter<'_>,
    ) {
        if let Some(d) = &block.dispatch {
            self.event(block.end_offset, d.index, linter);
        }
    }

    fn message(
        &mut self,
        m: &crate::transport::Message<'_>,
        _new: &[crate::lint::Diagnostic],
        linter: &crate::checks::Linter<'_>,
    ) {
        self.event(m.end(), m.index, linter);
    }
}

/// The error message of a non-2xx body (`error.message`, or the body's
/// start), printable and short.
fn error_text(body: &[u8], key: &[String]) -> String {
    let text = String::from_utf8_lossy(body);
    let msg = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| {
            v.pointer("/error/message")
                .or_else(|| v.get("message"))
                .or_else(|| v.get("detail"))
                .and_then(|m| m.as_str().map(str::to_string))
        })
        .unwrap_or_else(|| text.trim().to_string());
    // Masked before it is cut: a secret cut in two would match no more.
    let msg = crate::capture::redact_text(&mask(&msg, key));
    // Long messages keep their start and their end (where a server often
    // says what it wanted), with "…" between.
    let n = msg.chars().count();
    let short: String = if n > 160 {
        let head: String = msg.chars().take(110).collect();
        let tail: String = msg.chars().skip(n - 45).collect();
        format!("{head} … {tail}")
    } else {
        msg
    };
    crate::lint::printable(&short)
}

/// `why`, then `: ` and what the body said, when it said anything.
fn with_body(why: &str, said: &str) -> String {
    if said.is_empty() {
        why.to_string()
    } else {
        format!("{why}: {said}")
    }
}

/// The path of the endpoint URL (no query, no credentials), for messages.
fn url_path(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let path = rest.find('/').map_or("/", |i| &rest[i..]);
    path.split(['?', '#']).next().unwrap_or("/").to_string()
}

/// Why an answer of HTTP `status` means the probe itself was refused
/// (so the scenario cannot be judged: verdict `error`), or `None` when the
/// status says something about the request's features. 3xx: a redirect
/// (not followed); 401/403: the credentials; 404: the URL; 408/429: the
/// rate or the load.
pub fn refused(t: &Target, rec: &Recording) -> Option<String> {
    let status = rec.status;
    Some(match status {
        301 | 302 | 303 | 307 | 308 => format!(
            "HTTP {status}: redirected to {}; probe contacts only the URL given, so give that one",
            crate::capture::find_header(&rec.headers, "location")
                .map_or("(no Location)".to_string(), |l| crate::lint::printable(
                    &mask(&crate::capture::redact_url(l), &secrets(t))
                ))
        ),
        401 | 403 => format!(
            "HTTP {status}: the server refused the credentials; check --api-key-env (and any -H auth header)"
        ),
        404 => format!(
            "HTTP 404 at {}: the URL looks wrong (give the API base, e.g. http://host/v1, or the endpoint itself)",
            url_path(&t.url)
        ),
        429 => "HTTP 429: rate-limited; wait, or space the scenarios out with --delay-ms".to_string(),
        408 => "HTTP 408: the server timed out the request".to_string(),
        _ => return None,
    })
}

/// Whether HTTP `status` is a "bad request" refusal: the endpoint does not
/// take what the request asked (an optional feature is `unsupported`;
/// the `invalid` request passes).
pub fn bad_request(status: u16) -> bool {
    (400..500).contains(&status) || status == 501
}

/// `probe-timeout` when the recording was cut by the scenario's time-out.
fn timed_out(t: &Target, rec: &Recording) -> Option<Finding> {
    matches!(rec.stop, Stop::TimedOut | Stop::ReadTimedOut).then(|| {
        Finding::probe(
            "probe-timeout",
            format!(
                "the stream did not end within the scenario's time-out of {} s ({} bytes arrived; stopped: {})",
                t.timeout.as_secs_f64(),
                rec.body.len(),
                rec.stop.name()
            ),
        )
    })
}

/// Catalogue rules whose finding means the stream cannot show what the
/// scenario asked for: it was cut short, or is not SSE.
const PRIMARY_FAULTS: &[&str] = &[
    "body-not-sse",
    "capture-truncated",
    "cut-off",
    "responses-cut-off",
    "messages-cut-off",
    "unknown-format",
    "empty-stream",
];

/// The catalogue's findings on the capture `file` (read with its
/// request), then the probe rules' for scenario `name`.
fn lint(t: &Target, name: &str, file: &crate::pipeline::FileResult) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some(e) = &file.error {
        out.push(Finding {
            rule: "unknown-format".to_string(),
            severity: Severity::Error,
            message: e.clone(),
        });
        return out;
    }
    if file.streams.is_empty() {
        out.push(Finding {
            rule: "unknown-format".to_string(),
            severity: Severity::Error,
            message: "the answer holds no stream to read".to_string(),
        });
    }
    for s in &file.streams {
        for d in &s.diagnostics {
            if d.suppressed {
                continue;
            }
            out.push(Finding {
                rule: d.rule.to_string(),
                severity: d.severity,
                message: mask(&d.message, &secrets(t)),
            });
        }
        for (rule, n) in &s.omitted {
            let sev = s.omitted_worst.get(rule).copied().unwrap_or(Severity::Info);
            out.push(Finding {
                rule: rule.to_string(),
                severity: sev,
                message: format!("{n} more `{rule}` finding(s) past the per-rule limit"),
            });
        }
        // A stream cut short, or not SSE at all, is the one fault: what the
        // scenario asked for (n = 2, a tool call, JSON) cannot be judged
        // on it, so the probe rules would only blame its follow-ons.
        // A stream of no event at all is that fault alone too (each
        // dialect names it its own way: `responses-created-first`,
        // `messages-start-missing`, `empty-stream`).
        let primary = s.events == 0
            || s.diagnostics.iter().any(|d| {
                !d.suppressed && PRIMARY_FAULTS.contains(&d.rule) && d.severity >= Severity::Warning
            });
        if !primary {
            out.extend(expectations(t.dialect, name, s));
        }
    }
    // What the scenario asked for is no fault: `length` asks for the cut
    // that each dialect's budget-cut rule warns about.
    if name == "length" {
        const BUDGET_CUT: &[&str] = &[
            "responses-incomplete",
            "finish-length",
            "messages-max-tokens",
            "gemini-max-tokens",
        ];
        out.retain(|f| !BUDGET_CUT.contains(&f.rule.as_str()));
    }
    // The rule about the very feature a scenario asked for judges it as an
    // error: `usage` asked for usage, so `usage-missing` (a warning where
    // a capture's request is unknown) fails it.
    for f in &mut out {
        if super::SCENARIO_RULES.contains(&(name, f.rule.as_str())) {
            f.severity = Severity::Error;
        }
    }
    out
}

fn judge(o: &mut Outcome, fail_on: Severity) {
    if matches!(o.verdict, Verdict::Pass | Verdict::Fail) {
        o.verdict = if o.findings.iter().any(|f| f.severity >= fail_on) {
            Verdict::Fail
        } else {
            Verdict::Pass
        };
    }
}

/// Runs scenario `s` against `t`, saving its capture in `dir` (which must
/// exist); `stop` is the Ctrl-C flag (what came so far is kept and
/// judged). A scenario fails when it has a finding at or above `fail_on`.
pub fn run_scenario(
    t: &Target,
    s: Scenario,
    dir: &Path,
    settings: &Settings,
    fail_on: Severity,
    stop: &AtomicBool,
) -> Outcome {
    let mut o = run_one(t, s, dir, settings, fail_on, stop);
    if o.withheld {
        add_note(&mut o, WITHHELD);
    }
    o
}

fn run_one(
    t: &Target,
    s: Scenario,
    dir: &Path,
    settings: &Settings,
    fail_on: Severity,
    stop: &AtomicBool,
) -> Outcome {
    if is_socket_url(&t.url) {
        return socket_scenario(t, s, dir, settings, fail_on);
    }
    if s.name == "disconnect" {
        return disconnect(t, s, dir, settings, fail_on, stop);
    }
    let key = &secrets(t);
    let Some(body) = super::body(t.dialect, s.name, &t.model) else {
        return Outcome::error(s.name, format!("no scenario {} in {}", s.name, t.dialect));
    };
    let asked = budget(&body);
    let (rec, too_large) = match bounded_record(&request(t, body), stop, false) {
        Ok(r) => r,
        Err(e) => return Outcome::error(s.name, clean_error(t, &e.to_string())),
    };
    let mut o = Outcome::new(s.name);
    timing(&mut o, &rec);
    let Some(file) = keep(&mut o, t, &rec, dir, settings) else {
        return o;
    };
    if rec.stop == Stop::Interrupted {
        o.verdict = Verdict::Error;
        o.note = Some(format!(
            "interrupted by Ctrl-C after {} bytes; not judged",
            rec.body.len()
        ));
        return o;
    }
    let ok = (200..300).contains(&rec.status);
    if !ok {
        if let Some(why) = refused(t, &rec) {
            o.verdict = Verdict::Error;
            o.note = Some(with_body(&why, &error_text(&rec.body, key)));
            return o;
        }
    }
    if s.name == "invalid" {
        if ok {
            let ctype = crate::capture::find_header(&rec.headers, "content-type")
                .unwrap_or("")
                .to_ascii_lowercase();
            let what = if ctype.contains("event-stream") {
                "a stream".to_string()
            } else if ctype.is_empty() {
                format!("{} bytes without a Content-Type", rec.body.len())
            } else {
                format!(
                    "{} bytes of {}",
                    rec.body.len(),
                    crate::lint::printable(ctype.split(';').next().unwrap_or("").trim())
                )
            };
            o.findings.push(Finding::probe(
                "probe-invalid-accepted",
                format!(
                    "the request was invalid (its `{}` is the number 42); the server answered HTTP {} with {what} instead of a 4xx error",
                    t.dialect.api().input_key(),
                    rec.status
                ),
            ));
            o.findings.extend(lint(t, s.name, &file));
        } else {
            o.note = Some(with_body(
                &format!("HTTP {}", rec.status),
                &error_text(&rec.body, key),
            ));
            if !bad_request(rec.status) || rec.status == 501 {
                o.findings.push(Finding::probe(
                    "probe-http-status",
                    with_body(
                        &format!(
                            "the request was invalid; the server answered HTTP {}, not a 4xx that tells the client its request is at fault",
                            rec.status
                        ),
                        &error_text(&rec.body, key),
                    ),
                ));
            }
            if serde_json::from_slice::<serde_json::Value>(&rec.body).is_err() {
                o.findings.push(Finding::probe("probe-error-not-json", {
                    let got = format!(
                        "the invalid request got HTTP {}{}",
                        rec.status,
                        if bad_request(rec.status) && rec.status != 501 {
                            ", a 4xx as it should"
                        } else {
                            ""
                        }
                    );
                    match error_text(&rec.body, key) {
                        said if said.is_empty() => {
                            format!("{got}, but its body is empty: no JSON error")
                        }
                        said => format!("{got}, but its body is not JSON: {said}"),
                    }
                }));
            }
        }
        judge(&mut o, fail_on);
        return o;
    }
    if !ok {
        let text = error_text(&rec.body, key);
        if s.optional && bad_request(rec.status) {
            o.verdict = Verdict::Unsupported;
            o.note = Some(with_body(&format!("HTTP {}", rec.status), &text));
            return o;
        }
        o.findings.push(Finding::probe(
            "probe-http-status",
            with_body(
                &format!(
                    "the {} request ({}) got HTTP {}",
                    s.name, s.about, rec.status
                ),
                &text,
            ),
        ));
        judge(&mut o, fail_on);
        return o;
    }
    o.findings = lint(t, s.name, &file);
    o.findings.extend(timed_out(t, &rec));
    if let Some(cut) = too_large {
        o.findings.push(too_long(&rec, cut, asked));
    }
    judge(&mut o, fail_on);
    o
}

/// Whether `url` is a WebSocket's (`ws://`, `wss://`).
fn is_socket_url(url: &str) -> bool {
    let lower = url.get(..6).unwrap_or(url).to_ascii_lowercase();
    lower.starts_with("ws://") || lower.starts_with("wss://")
}

/// Why `disconnect` is not run over a socket.
const NO_SOCKET_DISCONNECT: &str = "not run over a WebSocket: a socket's client hangs up by closing it mid-response, which probe does not do yet";

/// A scenario over a WebSocket (issue 39): its request body sent as the
/// dialect's response-asking message on a socket of its own (Responses'
/// WebSocket mode: `{"type": "response.create", …}`, the body's fields
/// beside `type`, no `stream`), recorded by [`live::socket`] into
/// `DIR/NAME.jsonl` (a message log, secrets masked), and judged on that
/// log as `check` reads it. `invalid` passes when the server answers with
/// an `error` message and starts no response; a scenario refused so, when
/// optional, is `unsupported`. `disconnect` is not run.
fn socket_scenario(
    t: &Target,
    s: Scenario,
    dir: &Path,
    settings: &Settings,
    fail_on: Severity,
) -> Outcome {
    let api = t.dialect.api();
    if !api.rides_sockets() {
        return Outcome::error(
            s.name,
            format!("{} has no WebSocket mode", t.dialect.title()),
        );
    }
    if s.name == "disconnect" {
        let mut o = Outcome::new(s.name);
        o.verdict = Verdict::Unsupported;
        o.note = Some(NO_SOCKET_DISCONNECT.to_string());
        return o;
    }
    let Some(mut body) = super::body(t.dialect, s.name, &t.model) else {
        return Outcome::error(s.name, format!("no scenario {} in {}", s.name, t.dialect));
    };
    let message = match body.as_object_mut() {
        Some(fields) => {
            fields.remove("stream");
            let mut m = serde_json::Map::new();
            m.insert("type".into(), "response.create".into());
            m.extend(std::mem::take(fields));
            serde_json::Value::Object(m).to_string()
        }
        None => body.to_string(),
    };
    let req = live::socket::SocketRequest {
        url: t.url.clone(),
        headers: t.headers.clone(),
        api_key: t.api_key.clone(),
        script: live::socket::Script::of_messages(vec![message]),
        dialect: t.dialect,
        read_timeout: t.timeout,
        timeout: Some(t.timeout),
        insecure: t.insecure,
    };
    let mut log = Vec::new();
    let rec = match live::socket::record(&req, &mut log) {
        Ok(r) => r,
        Err(e) => return Outcome::error(s.name, clean_error(t, &e.to_string())),
    };
    let path = dir.join(format!("{}.jsonl", s.name));
    let text = mask(&String::from_utf8_lossy(&log), &secrets(t));
    if let Err(e) = crate::output::write_atomic(&path, text.as_bytes()) {
        return Outcome::error(s.name, format!("writing {}: {e}", path.display()));
    }
    let mut o = Outcome::new(s.name);
    o.status = Some(rec.status);
    o.total_ms = Some(rec.total_ms);
    o.ttft_ms = first_content_ms(&path, settings);
    o.capture = Some(path.clone());
    let name = path.to_string_lossy();
    let file = crate::pipeline::lint_opened(
        &name,
        crate::capture::open(&name, &Default::default()),
        settings,
    );
    // Refused: an `error` came and no response started.
    let (mut errored, mut started) = (false, false);
    for line in text.lines() {
        let Ok(r) = crate::transport::socket_log::record(line) else {
            continue;
        };
        if r.direction != crate::transport::Direction::Received {
            continue;
        }
        match api.socket_route(false, &r.data).map(|r| r.step) {
            Some(
                crate::dialect::api::SocketStep::Error
                | crate::dialect::api::SocketStep::Failure
                | crate::dialect::api::SocketStep::Refusal,
            ) => errored = true,
            Some(crate::dialect::api::SocketStep::Start(_)) => started = true,
            _ => {}
        }
    }
    let refused = errored && !started;
    if s.name == "invalid" {
        if !refused {
            o.findings.push(Finding::probe(
                "probe-invalid-accepted",
                format!(
                    "the request was invalid (its `{}` is the number 42); the server answered it on the socket with a response instead of an `error` message",
                    api.input_key()
                ),
            ));
            o.findings.extend(lint(t, s.name, &file));
        }
        judge(&mut o, fail_on);
        return o;
    }
    if refused && s.optional {
        o.verdict = Verdict::Unsupported;
        o.note = Some("refused with an `error` message".to_string());
        return o;
    }
    o.findings = lint(t, s.name, &file);
    if let Some(why) = rec.stopped {
        o.note = Some(why);
    }
    judge(&mut o, fail_on);
    o
}

/// The token budget of a request body (`max_tokens`,
/// `max_completion_tokens` or `max_output_tokens`).
fn budget(body: &serde_json::Value) -> Option<u64> {
    ["max_tokens", "max_completion_tokens", "max_output_tokens"]
        .iter()
        .find_map(|k| body.get(*k).and_then(serde_json::Value::as_u64))
}

fn too_long(rec: &Recording, cut: SizeCut, budget: Option<u64>) -> Finding {
    let asked = budget.map_or("a small answer".to_string(), |b| {
        format!("at most {b} tokens")
    });
    let decoded = match cut {
        SizeCut::Decoded(e) => format!(" decoded from {}", e.name()),
        SizeCut::Wire => String::new(),
    };
    Finding::probe(
        "probe-too-long",
        format!(
            "the request asked for {asked}; the stream went on past {} bytes{decoded}, where the probe stopped reading ({} bytes kept)",
            MAX_BODY_BYTES,
            rec.body.len()
        ),
    )
}

/// `disconnect`: send `long`'s request and hang up after the first read;
/// then `plain`'s, which must get a complete answer. Both captures are
/// saved: `disconnect-dropped.har`, and `disconnect.har` (the follow-up,
/// the one judged).
fn disconnect(
    t: &Target,
    s: Scenario,
    dir: &Path,
    settings: &Settings,
    fail_on: Severity,
    stop: &AtomicBool,
) -> Outcome {
    let key = &secrets(t);
    let Some(first) = super::body(t.dialect, "long", &t.model) else {
        return Outcome::error(s.name, "no long scenario".into());
    };
    // The two requests share the scenario's one --timeout.
    let started = std::time::Instant::now();
    // Hung up after the first read; a compressed first read is bounded
    // by its decoded size as every scenario's body is.
    let rec = match bounded_record(&request(t, first), stop, true) {
        Ok((r, _)) => r,
        Err(e) => return Outcome::error(s.name, clean_error(t, &e.to_string())),
    };
    let mut o = Outcome::new(s.name);
    let dropped_path = match save(
        t,
        &rec,
        dir,
        "disconnect-dropped",
        &mut o.unmasked,
        settings,
    ) {
        Ok(p) => {
            o.withheld |= p.withheld;
            p.path
        }
        Err(e) => {
            o.verdict = Verdict::Error;
            o.note = Some(e.to_string());
            return o;
        }
    };
    // A refusal of the probe itself (credentials, URL, rate) is an error,
    // whichever request met it.
    if !(200..300).contains(&rec.status) {
        if let Some(why) = refused(t, &rec) {
            timing(&mut o, &rec);
            o.capture = Some(dropped_path);
            o.verdict = Verdict::Error;
            o.note = Some(with_body(&why, &error_text(&rec.body, key)));
            return o;
        }
    }
    // A refused first request streamed nothing to hang up on: the
    // scenario could not be tried, and a refusal of the follow-up would
    // not be the hang-up's doing. It fails as any required scenario
    // refused does.
    if !(200..300).contains(&rec.status) {
        timing(&mut o, &rec);
        o.capture = Some(dropped_path);
        o.findings.push(Finding::probe(
            "probe-http-status",
            with_body(
                &format!(
                    "the disconnect scenario's first request (long's, to be cut mid-stream) got HTTP {}, so there was no stream to leave",
                    rec.status
                ),
                &error_text(&rec.body, key),
            ),
        ));
        judge(&mut o, fail_on);
        return o;
    }
    let dropped = match rec.stop {
        Stop::Complete => "the stream had already ended at the first read".to_string(),
        Stop::TimedOut | Stop::ReadTimedOut => format!(
            "timed out after {} bytes, at the scenario's time-out of {} s",
            rec.body.len(),
            t.timeout.as_secs_f64()
        ),
        _ => format!("hung up after {} bytes", rec.body.len()),
    };
    // No body came within the time-out: nothing to hang up on, and no
    // time left for the follow-up.
    if matches!(rec.stop, Stop::TimedOut | Stop::ReadTimedOut) {
        timing(&mut o, &rec);
        o.capture = Some(dropped_path);
        o.note = Some(format!(
            "first request: {dropped}; the follow-up was not sent"
        ));
        o.findings.extend(timed_out(t, &rec));
        judge(&mut o, fail_on);
        return o;
    }
    if stop.load(Ordering::Relaxed) {
        o.interrupted = true;
        o.verdict = Verdict::Error;
        o.note = Some("interrupted before the follow-up request".into());
        return o;
    }
    // Give the server a moment to notice the closed connection.
    std::thread::sleep(Duration::from_millis(100));
    let Some(second) = super::body(t.dialect, "plain", &t.model) else {
        return Outcome::error(s.name, "no plain scenario".into());
    };
    let asked = budget(&second);
    let mut follow_up = request(t, second);
    let left = t.timeout.saturating_sub(started.elapsed());
    follow_up.timeout = Some(left);
    follow_up.read_timeout = left;
    let (rec, too_large) = match bounded_record(&follow_up, stop, false) {
        Ok(r) => r,
        Err(e) => {
            o.findings.push(Finding::probe(
                "probe-no-answer-after-disconnect",
                format!(
                    "the client hung up a streaming request ({dropped}); the next request got no answer: {}",
                    clean_error(t, &e.to_string())
                ),
            ));
            o.verdict = Verdict::Fail;
            return o;
        }
    };
    timing(&mut o, &rec);
    let Some(file) = keep(&mut o, t, &rec, dir, settings) else {
        return o;
    };
    o.note = Some(format!("first request: {dropped}"));
    if rec.stop == Stop::Interrupted {
        o.verdict = Verdict::Error;
        o.note = Some(format!(
            "first request: {dropped}; the follow-up was interrupted by Ctrl-C after {} bytes; not judged",
            rec.body.len()
        ));
        return o;
    }
    if let Some(why) = (!(200..300).contains(&rec.status))
        .then(|| refused(t, &rec))
        .flatten()
    {
        o.verdict = Verdict::Error;
        o.note = Some(with_body(&why, &error_text(&rec.body, key)));
        return o;
    }
    if (200..300).contains(&rec.status) {
        o.findings = lint(t, "plain", &file);
        o.findings.extend(timed_out(t, &rec));
        if let Some(cut) = too_large {
            o.findings.push(too_long(&rec, cut, asked));
        }
    } else {
        o.findings.push(Finding::probe(
            "probe-no-answer-after-disconnect",
            with_body(
                &format!(
                    "the client hung up a streaming request ({dropped}); the next request got HTTP {}",
                    rec.status
                ),
                &error_text(&rec.body, key),
            ),
        ));
    }
    judge(&mut o, fail_on);
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masking_moves_the_read_offsets_with_the_body() {
        let body = b"aa SECRETKEY bb SECRETKEY cc";
        // Reads at 0, inside the first secret, and at "bb", and at "cc".
        let mut offsets = [0, 5, 13, 26];
        let out = mask_bytes(body, b"SECRETKEY", &mut offsets);
        assert_eq!(out, b"aa [REDACTED] bb [REDACTED] cc".to_vec());
        assert_eq!(offsets, [0, 3, 14, 28]);
        assert_eq!(&out[14..16], b"bb");
        assert_eq!(&out[28..30], b"cc");
    }

    #[test]
    fn a_long_error_message_keeps_its_start_and_end() {
        let msg = format!("start {} the end you need", "x".repeat(300));
        let body = serde_json::json!({"error": {"message": msg}}).to_string();
        let t = error_text(body.as_bytes(), &[]);
        assert!(
            t.starts_with("start ") && t.ends_with("the end you need"),
            "{t}"
        );
        assert!(t.contains(" … "), "{t}");
    }
}
