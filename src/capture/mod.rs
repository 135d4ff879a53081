//! Turning what the user gave us into streams: body bytes plus what the
//! capture knows about HTTP, the request and timing.
//!
//! Inputs are raw SSE bodies, curl dumps (`-i`, `-v`, `--raw`, `--trace`,
//! `--trace-ascii`) and HAR 1.2 files (see `reference/anchors-formats-schema.md`
//! §3). Raw and curl bodies are handed on as readers so they stream through in
//! bounded memory; a HAR is JSON and is read whole.
//!
//! This module does not frame SSE or judge anything: it records evidence (a
//! curl error line, a missing zero-size chunk, a HAR body at Firefox's cap)
//! that the `capture-truncated` rule reports later.

pub mod curl;
pub mod decode;
pub mod har;
pub mod har_pos;
pub mod jsonl;
pub mod meter;
pub mod raw;
pub mod spool;
mod websocket;

use std::borrow::Cow;
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Bytes looked at to detect the input format (and kept for replay).
pub const SNIFF_BYTES: usize = 64 * 1024;

/// The input format, as named in the JSON report's `input_format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum InputFormat {
    /// A raw `text/event-stream` body (`curl -N URL > file`).
    Sse,
    /// A curl dump: `-i`, `-v ... 2>&1`, `--raw`, `--trace`, `--trace-ascii`.
    Curl,
    /// A HAR 1.2 file from a browser or a proxy.
    Har,
}

impl fmt::Display for InputFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            InputFormat::Sse => "sse",
            InputFormat::Curl => "curl",
            InputFormat::Har => "har",
        })
    }
}

/// One HTTP header as captured. Values of secret-bearing headers are replaced
/// by [`REDACTED`] when the capture is read, so nothing downstream sees them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Header {
    /// The name as the capture spelled it.
    pub name: String,
    /// The value, or `[REDACTED]`.
    pub value: String,
}

/// The placeholder written instead of a secret.
pub const REDACTED: &str = "[REDACTED]";

/// Header names whose values are never kept (compared case-insensitively).
pub const SECRET_HEADERS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "api-key",
    "x-api-key",
    "cookie",
    "set-cookie",
    "x-goog-api-key",
    "openai-organization",
    // AWS SigV4: the signing time, kept apart from the signature in
    // `Authorization` (the session token is `X-Amz-Security-Token`, a
    // `token` name).
    "x-amz-date",
];

/// Query parameters whose values are secrets (compared case-insensitively).
pub const SECRET_PARAMS: &[&str] = &[
    "key",
    "api_key",
    "api-key",
    "apikey",
    "token",
    "access_token",
    "auth",
    "sig",
    "signature",
    "secret",
    "password",
    "code",
];

/// `s` with its `%XX` escapes decoded (an invalid one, or bytes that are
/// not UTF-8, kept as written): a URL's user, password or query value as
/// the server reads it.
pub fn percent_decoded(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (
            b[i],
            b.get(i + 1).and_then(|&c| hex(c)),
            b.get(i + 2).and_then(|&c| hex(c)),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

/// `s` percent-encoded as a URL query value: every byte but the unreserved
/// ones (RFC 3986 §2.3: letters, digits, `-._~`) written as `%XX`.
pub fn percent_encoded(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A URL with the values of secret-looking query parameters redacted
/// (`?key=AIza…` → `?key=[REDACTED]`).
pub fn redact_url(url: &str) -> String {
    // Control characters (ESC, NUL) in a captured URL would drive the
    // terminal that shows the label: escaped, as `\u{1b}`.
    let url = redact_url_text(url);
    if url.chars().any(char::is_control) {
        url.chars()
            .map(|c| {
                if c.is_control() {
                    c.escape_default().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect()
    } else {
        url
    }
}

fn redact_url_text(url: &str) -> String {
    // `https://user:password@host/…`: the user info goes.
    let url = match url.find("://") {
        Some(s) => {
            let rest = &url[s + 3..];
            let host_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
            match rest[..host_end].rfind('@') {
                Some(at) => format!("{}{REDACTED}@{}", &url[..s + 3], &rest[at + 1..]),
                None => url.to_string(),
            }
        }
        None => url.to_string(),
    };
    let Some((base, query)) = url.split_once('?') else {
        return url;
    };
    let (query, frag) = match query.split_once('#') {
        Some((q, f)) => (q, Some(f)),
        None => (query, None),
    };
    let parts: Vec<String> = query
        .split('&')
        .map(|kv| match kv.split_once('=') {
            Some((k, _)) if is_secret_param(k) => {
                format!("{k}={REDACTED}")
            }
            _ => kv.to_string(),
        })
        .collect();
    let mut out = format!("{base}?{}", parts.join("&"));
    if let Some(f) = frag {
        out.push('#');
        out.push_str(f);
    }
    out
}

/// Redacts secrets in a line of text shown to the user: the value of a
/// secret header written as `Name: value` (also after curl's `> `/`< `),
/// `Bearer` tokens, and `sk-…` keys; control characters in a URL are
/// escaped (see [`redact_url`]).
pub fn redact_text(line: &str) -> String {
    redact_line_with(line, redact_url)
}

/// Text safe to print: secrets redacted, control characters (ESC and the
/// rest, which could drive a terminal) escaped as `\u{1b}`.
pub fn printable(s: &str) -> String {
    let s = redact_text(s);
    // Bidi overrides and isolates reorder what a terminal shows; a BOM
    // (U+FEFF) inside a line is invisible but is what the finding is about.
    let unsafe_char = |c: char| {
        c.is_control()
            || matches!(c, '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
    };
    if !s.chars().any(unsafe_char) {
        return s;
    }
    s.chars()
        .map(|c| {
            if unsafe_char(c) {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Like [`printable`], but line feeds and tabs stay (for answer text shown
/// on its own lines).
pub fn printable_text(s: &str) -> String {
    s.split('\n')
        .map(|l| l.split('\t').map(printable).collect::<Vec<_>>().join("\t"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// [`redact_text`] for a line written back into a capture (`redact`,
/// `minimize`): the same secrets go, every other character stays as it
/// is. A control character after a `?` is not rewritten as `\u{14}`,
/// which would make the capture larger and a second pass change it again.
pub fn redact_line(line: &str) -> String {
    redact_line_with(line, redact_url_text)
}

fn redact_line_with(line: &str, redact_url: fn(&str) -> String) -> String {
    let lower = line.to_ascii_lowercase();
    // `Name: value` at the line start (also after curl's `> `/`< `).
    let start = lower.len() - lower.trim_start_matches([' ', '>', '<']).len();
    if let Some(colon) = lower[start..].find(':') {
        let name = &lower[start..start + colon];
        // A header name is a token: `{"api_key"` (a JSON body's first
        // key) is not one, and masking "the rest of the line" would cut
        // the document; its pairs are masked below.
        let token = name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_');
        if !name.is_empty() && token && is_secret_header(name) {
            return format!("{} {REDACTED}", &line[..start + colon + 1]);
        }
    }
    // Request lines and URLs: secret query values and user info.
    if lower.contains("://") || lower.contains('?') {
        let redacted: Vec<String> = line
            .split(' ')
            .map(|w| {
                if w.contains('?') || w.contains("://") {
                    // Punctuation after a URL (`URL: error`, `URL,`) is the
                    // sentence's, not the last query value's.
                    let url = w.trim_end_matches([':', ',', ';', ')']);
                    format!("{}{}", redact_url(url), &w[url.len()..])
                } else {
                    w.to_string()
                }
            })
            .collect();
        let joined = redacted.join(" ");
        if joined != line {
            return redact_keys(&joined);
        }
    }
    let mut out = line.to_string();
    if let Some(i) = lower.find("bearer ") {
        let start = i + "bearer ".len();
        let end = line[start..]
            .find(|c: char| c.is_whitespace() || c == '"' || c == '\'')
            .map_or(line.len(), |e| start + e);
        if end > start {
            out = format!("{}{REDACTED}{}", &line[..start], &line[end..]);
        }
    }
    redact_keys(&out)
}

/// Masks `sk-…`-shaped keys (OpenAI and many compatible providers) and
/// Google's `AIza…` API keys in text ([`KEY_SHAPES`]), and the values of secret `NAME: value` / `NAME=value` pairs
/// quoted in it (an error message naming the `x-api-key` it was sent).
pub fn redact_keys(text: &str) -> String {
    masked_keys(text).into_owned()
}

/// [`redact_keys`] without a copy of a text that holds nothing to mask:
/// the reports show answers of up to a mebibyte each through it.
pub fn masked_keys(text: &str) -> Cow<'_, str> {
    let text = match mask_sk_keys(text) {
        Cow::Borrowed(t) => mask_secret_pairs(t),
        Cow::Owned(t) => Cow::Owned(mask_secret_pairs(&t).into_owned()),
    };
    match text {
        Cow::Borrowed(t) => mask_bearer_tokens(t),
        Cow::Owned(t) => Cow::Owned(mask_bearer_tokens(&t).into_owned()),
    }
}

/// Masks the token after each `Bearer ` (any case, as a word) in text:
/// whatever its shape, it is a credential (a JWT's letters and dots, an
/// opaque token, Google's `ya29.…`), where [`mask_secret_pairs`] wants
/// a value with digits. A token is 8 or more of RFC 6750's token
/// characters, with a digit, one of `.-_~+/` or both cases (so the
/// prose of `bearer bonds` or `Bearer authentication` stays).
fn mask_bearer_tokens(text: &str) -> Cow<'_, str> {
    const SCHEME: &str = "bearer ";
    let b = text.as_bytes();
    let is_token = |c: u8| c.is_ascii_alphanumeric() || b"-._~+/=".contains(&c);
    let mut out = String::new();
    let mut last = 0;
    let mut i = 0;
    while i + SCHEME.len() <= b.len() {
        let at_word = i == 0 || !b[i - 1].is_ascii_alphanumeric();
        if !(at_word && b[i..i + SCHEME.len()].eq_ignore_ascii_case(SCHEME.as_bytes())) {
            i += 1;
            continue;
        }
        let v = i + SCHEME.len();
        let end = b[v..]
            .iter()
            .position(|c| !is_token(*c))
            .map_or(b.len(), |e| v + e);
        let token = &b[v..end];
        let credential = token.len() >= 8
            && (token.iter().any(u8::is_ascii_digit)
                || token.iter().any(|c| b"-._~+/".contains(c))
                || (token.iter().any(u8::is_ascii_uppercase)
                    && token.iter().any(u8::is_ascii_lowercase)));
        if credential {
            out.push_str(&text[last..v]);
            out.push_str(REDACTED);
            last = end;
        }
        i = end.max(i + 1);
    }
    if last == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

/// Key shapes masked wherever they stand in text: a prefix, and the
/// shortest whole key (prefix included) of letters, digits, `-` and `_`.
/// OpenAI's and many compatible providers' `sk-…`; Google's API keys
/// (`AIza` and 35 more characters, 39 in all: the Gemini API's
/// `x-goog-api-key` or `?key=`, pasted into a prompt or echoed in an
/// error), masked from 20 characters on so that a cut or mistyped key
/// goes too.
const KEY_SHAPES: &[(&str, usize)] = &[("sk-", 12), ("AIza", 20)];

/// The keys of [`redact_keys`] masked ([`KEY_SHAPES`]).
fn mask_sk_keys(text: &str) -> Cow<'_, str> {
    let mut text = Cow::Borrowed(text);
    for &(prefix, min) in KEY_SHAPES {
        if let Cow::Owned(t) = mask_shape(&text, prefix, min) {
            text = Cow::Owned(t);
        }
    }
    text
}

/// The keys that open with `prefix` and run at least `min` bytes masked.
fn mask_shape<'t>(text: &'t str, prefix: &str, min: usize) -> Cow<'t, str> {
    let b = text.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    let mut last = 0;
    // Each `sk-` in turn (found with memchr's substring search: locations
    // on long lines pass through here), as a byte-by-byte scan would.
    while let Some(at) = memchr::memmem::find(&b[i..], prefix.as_bytes()) {
        i += at;
        if i == 0 || !b[i - 1].is_ascii_alphanumeric() {
            let mut j = i + prefix.len();
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'-' || b[j] == b'_') {
                j += 1;
            }
            if j - i >= min {
                out.push_str(&text[last..i]);
                out.push_str(REDACTED);
                last = j;
                i = j;
                continue;
            }
        }
        i += 1;
    }
    if last == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

/// Masks the value of each `NAME: value` or `NAME=value` pair in `text`
/// whose name carries a secret ([`is_secret_header`]) and is a compound
/// name or a bare secret word (`x-api-key: abc…`, `api_key=abc…`,
/// `Authorization: Basic …` quoted in an error message; not `… input
/// tokens: cached …`). A value runs to the next white space, quote, `,`,
/// `;`, `&` or `\\`; it is masked after `Bearer ` or `Basic `, and
/// otherwise when it is 8 characters or more with a letter, digits or
/// none (`password: CorrectHorseBattery`), but a count's name (`…tokens`)
/// needs a digit too (not `… total_tokens: clients …`).
fn mask_secret_pairs(text: &str) -> Cow<'_, str> {
    if !text.contains([':', '=']) {
        return Cow::Borrowed(text);
    }
    let b = text.as_bytes();
    let is_name = |c: u8| c.is_ascii_alphanumeric() || c == b'-' || c == b'_';
    let mut out = String::new();
    let mut last = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b':' && b[i] != b'=' {
            i += 1;
            continue;
        }
        // `"name": "value"`, a JSON member: the name between its quotes.
        let quoted = b[i] == b':' && i > 0 && b[i - 1] == b'"';
        let start = if quoted {
            b[..i - 1]
                .iter()
                .rposition(|c| *c == b'"')
                .map_or(i - 1, |q| q + 1)
        } else {
            b[..i]
                .iter()
                .rposition(|c| !is_name(*c))
                .map_or(0, |p| p + 1)
        };
        let name = &text[start..if quoted { i - 1 } else { i }];
        let mut v = i + 1;
        // The value follows `Bearer ` or `Basic `: a credential whatever
        // its letters (Basic's base64 of `user:pass` may have no digit).
        let mut after_scheme = false;
        if b[i] == b':' {
            while v < b.len() && b[v] == b' ' {
                v += 1;
            }
            // `Authorization: Bearer …` / `Basic …`: the scheme stays.
            let word_end = b[v..]
                .iter()
                .position(|c| !c.is_ascii_alphabetic())
                .map_or(b.len(), |e| v + e);
            let scheme = &text[v..word_end];
            if (scheme.eq_ignore_ascii_case("bearer") || scheme.eq_ignore_ascii_case("basic"))
                && b.get(word_end) == Some(&b' ')
            {
                v = word_end + 1;
                after_scheme = true;
            }
        }
        // A JSON string value: masked inside its quotes.
        if quoted && b.get(v) == Some(&b'"') {
            v += 1;
        }
        let end = b[v..]
            .iter()
            .position(|c| {
                c.is_ascii_whitespace() || matches!(c, b'"' | b'\'' | b',' | b';' | b'&' | b'\\')
            })
            .map_or(b.len(), |e| v + e);
        // A compound name (`x-api-key`, `api_key`) or one of the bare
        // names that say secret; not a word of a sentence (`… input
        // tokens: cached …`).
        let compound = name.contains(['-', '_'])
            || [
                "authorization",
                "password",
                "passwd",
                "apikey",
                "token",
                "secret",
                "cookie",
                "session",
            ]
            .iter()
            .any(|n| name.eq_ignore_ascii_case(n));
        // A JSON member's name must name a credential outright: members
        // such as `thought_signature` or `signature` carry a model's
        // opaque data, not a secret of the user's.
        let credential = !quoted || {
            let n = name.to_ascii_lowercase();
            [
                "key",
                "token",
                "secret",
                "password",
                "passwd",
                "authorization",
                "cookie",
                "session",
            ]
            .iter()
            .any(|w| n.contains(w))
        };
        // What the value must look like: after a scheme, any token; else
        // 8 characters or more with a letter (a number alone is a count),
        // and a digit too where the name is a count's or a kind's
        // (`total_tokens: unlimited`, `"token_type":"cache_write"`); a
        // password, key, token or session id needs none (`password:
        // CorrectHorseBattery`).
        let value = &b[v..end];
        let lower = name.to_ascii_lowercase();
        let counts = ["tokens", "type", "count", "limit"]
            .iter()
            .any(|w| lower.ends_with(w));
        let shaped = if after_scheme {
            value.len() >= 4
        } else {
            value.len() >= 8
                && value.iter().any(u8::is_ascii_alphabetic)
                && (!counts || value.iter().any(u8::is_ascii_digit))
        };
        if compound
            && credential
            && is_secret_header(name)
            && shaped
            && !text[v..end].starts_with(REDACTED)
        {
            out.push_str(&text[last..v]);
            out.push_str(REDACTED);
            last = end;
            i = end;
            continue;
        }
        i += 1;
    }
    if last == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

/// Parts of a header or query parameter name that mark its value as a
/// secret (compared case-insensitively): `Apikey`, `X-Auth`,
/// `X-Auth-Token`, `Ocp-Apim-Subscription-Key`, `X-Amz-Security-Token`,
/// `X-Session-Id`, `?access_token=`, `?X-Amz-Signature=`.
pub const SECRET_NAME_PARTS: &[&str] = &[
    "key",
    "token",
    "auth",
    "secret",
    "password",
    "passwd",
    "session",
    "cookie",
    "signature",
    "credential",
];

/// Header names holding a [`SECRET_NAME_PARTS`] part that carry no
/// secret: the challenges naming the scheme a server wants, and HTTP/2's
/// `:authority` (the host).
const NOT_SECRET_HEADERS: &[&str] = &["www-authenticate", "proxy-authenticate", ":authority"];

/// Whether a header name carries a secret: the known ones
/// ([`SECRET_HEADERS`]), and any name holding one of
/// [`SECRET_NAME_PARTS`] (`Apikey`, `X-Auth`, `X-Auth-Token`,
/// `Ocp-Apim-Subscription-Key`, `X-Amz-Security-Token`), but the
/// `WWW-Authenticate` and `Proxy-Authenticate` challenges and `:authority`.
pub fn is_secret_header(name: &str) -> bool {
    let n = name.trim().to_ascii_lowercase();
    if NOT_SECRET_HEADERS.contains(&n.as_str()) {
        return false;
    }
    SECRET_HEADERS.iter().any(|s| *s == n)
        || SECRET_NAME_PARTS.iter().any(|p| n.contains(p))
        || n.starts_with("ocp-apim")
}

/// Whether a URL query parameter carries a secret: the known ones
/// ([`SECRET_PARAMS`]), and any name holding one of
/// [`SECRET_NAME_PARTS`].
pub fn is_secret_param(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    SECRET_PARAMS.iter().any(|s| *s == n) || SECRET_NAME_PARTS.iter().any(|p| n.contains(p))
}

/// Builds a header, redacting the value of a secret-bearing one.
pub fn header(name: &str, value: &str) -> Header {
    let secret = is_secret_header(name);
    Header {
        name: name.trim().to_string(),
        value: if secret {
            REDACTED.to_string()
        } else {
            value.trim().to_string()
        },
    }
}

/// The response's HTTP metadata where the capture has it.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Http {
    /// Status code (200, 404, …).
    pub status: u16,
    /// The status line's reason phrase, if any.
    #[serde(skip)]
    pub reason: String,
    /// The protocol from the status line (`HTTP/1.1`, `HTTP/2`).
    #[serde(skip)]
    pub version: String,
    /// Response headers, secrets redacted.
    #[serde(skip)]
    pub headers: Vec<Header>,
    /// The `Content-Type` value (HAR: `content.mimeType` when no header).
    pub content_type: Option<String>,
}

impl Http {
    /// The first header of that name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }
}

/// The first header called `name` (case-insensitive) in `headers`.
pub fn find_header<'h>(headers: &'h [Header], name: &str) -> Option<&'h str> {
    headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case(name))
        .map(|h| h.value.as_str())
}

/// The request, where the capture holds it (HAR `postData`, curl `-v` and
/// `--trace` dumps).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Request {
    /// `POST`, `GET`, …
    pub method: String,
    /// The URL, or the path when only the request line is known.
    pub url: String,
    /// Request headers, secrets redacted.
    pub headers: Vec<Header>,
    /// The request body text, if captured (may hold secrets: never printed).
    pub body: Option<String>,
}

/// Arrival time of one network read: the body bytes from `offset` on arrived
/// `ms` milliseconds after the request was sent (or after the first
/// recorded read when the capture has no send time).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Read_ {
    /// Byte offset in the body of the read's first byte.
    pub offset: u64,
    /// Milliseconds since the start of the exchange.
    pub ms: f64,
}

/// Where a stream's timing came from and what it holds.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub enum Timing {
    /// A time per network read (`record`, curl `--trace-time`).
    Reads(Vec<Read_>),
    /// A time per dispatched event with data (Chrome `_eventSourceMessages`),
    /// in milliseconds since the exchange started.
    Events(Vec<f64>),
}

impl Timing {
    /// The time (ms) of the event that ended at body offset `end` (exclusive)
    /// and was dispatched as event `index`: the read that delivered its
    /// last byte, or the message time.
    pub fn time_of(&self, end: u64, index: Option<u64>) -> Option<f64> {
        match self {
            Timing::Reads(reads) => {
                let last = end.saturating_sub(1);
                reads.iter().rev().find(|r| r.offset <= last).map(|r| r.ms)
            }
            Timing::Events(times) => index.and_then(|i| times.get(i as usize).copied()),
        }
    }
}

/// Evidence that the capture tool (not the server) cut the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Truncation {
    /// What the evidence is, in a sentence.
    pub reason: String,
    /// True when the capture tool (or the user, or a limit of ours) cut the
    /// body: `capture-truncated`. False when the transfer itself broke (the
    /// server or the network closed early): the ending rules judge the
    /// stream and cite this reason.
    pub by_capture: bool,
}

/// Shared slot for evidence found while a streamed body is being read.
pub type Evidence = Arc<Mutex<Vec<Truncation>>>;

/// Records a truncation reason in `evidence`.
pub fn note_truncation(evidence: &Evidence, reason: impl Into<String>) {
    if let Ok(mut v) = evidence.lock() {
        v.push(Truncation {
            reason: reason.into(),
            by_capture: true,
        });
    }
}

/// Records that the transfer broke (server or network), with its evidence.
pub fn note_cut(evidence: &Evidence, reason: impl Into<String>) {
    if let Ok(mut v) = evidence.lock() {
        v.push(Truncation {
            reason: reason.into(),
            by_capture: false,
        });
    }
}

/// A body: bytes in memory (HAR) or a reader (raw, curl).
pub enum Body {
    /// The whole body.
    Bytes(Vec<u8>),
    /// A reader yielding the body (already de-chunked and decoded).
    Reader(Box<dyn Read + Send>),
}

impl fmt::Debug for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Body::Bytes(b) => write!(f, "Body::Bytes({} bytes)", b.len()),
            Body::Reader(_) => f.write_str("Body::Reader"),
        }
    }
}

/// How body positions map back to the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Origin {
    /// The body is a contiguous part of the file starting at this byte
    /// offset and line (1-based); `None` when it is not (HAR, de-chunked or
    /// decoded bodies, filtered `-v` dumps): positions are body-relative.
    pub file_start: Option<(u64, u64)>,
    /// HAR entry index, for labels and SARIF.
    pub har_entry: Option<usize>,
    /// HAR: where the entry's `response.content.text` value sits in the
    /// file, and how much of the body maps onto it byte for byte.
    pub har_text: Option<HarText>,
}

/// A position in a file: byte offset, 1-based line and 1-based column in
/// Unicode code points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FilePos {
    /// Byte offset from the start of the file.
    pub byte: u64,
    /// 1-based line.
    pub line: u64,
    /// 1-based column, in Unicode code points.
    pub column: u64,
}

/// Where a HAR entry's `response.content.text` value starts in the file (its
/// first character: the opening quote of a string), and how many leading
/// body bytes can be mapped onto the string's characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HarText {
    /// The value's first character.
    pub start: FilePos,
    /// Body bytes, from the start, that are the string's characters as they
    /// are: every character before this offset is written raw or with the
    /// usual escape (`\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`, `\u00XX` for
    /// other control characters). 0 when the body is not the string itself
    /// (base64, decoded) or the value is not a string.
    pub mapped: u64,
}

/// Where a body read with lines left out of it (curl's own lines in a
/// `curl -v` dump) sits in its file: each [`Shift`] holds from its body
/// offset on, up to the next. Filled while the body is read; at most
/// [`MAX_SHIFTS`] of them (past that, later positions stay body-relative).
pub type Shifts = Arc<Mutex<Vec<Shift>>>;

/// Most [`Shift`]s kept for one body (24 bytes each): a `curl -v` dump
/// has one per run of curl lines, about one per read.
pub const MAX_SHIFTS: usize = 1 << 16;

/// From body offset `body` on, the file is `bytes` bytes and `lines` lines
/// further on than the body (the lines before the body and those left out
/// of it so far).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Shift {
    /// Body byte offset where it starts to hold.
    pub body: u64,
    /// File bytes before that offset that are not body bytes.
    pub bytes: u64,
    /// File lines before that offset that are not body lines.
    pub lines: u64,
}

/// Where a body reassembled from a `curl --trace` or `--trace-ascii`
/// dump sits in its file: each [`DumpRun`] is a run of dump lines of
/// the same layout, from its body offset on, up to the next. At most
/// [`MAX_SHIFTS`] of them (past that, later positions have none).
pub type DumpRuns = Vec<DumpRun>;

/// A run of dump lines that each show `per_line` body bytes and take
/// `line_bytes` bytes of the file: line `i` of the run shows body bytes
/// from `body + i × per_line` at column `column` of file line `line + i`,
/// `step` columns a byte (3 in `--trace`'s hex, `xx `; 1 in
/// `--trace-ascii`). curl's `tool_cb_dbg.c` writes each record's lines
/// as `%04zx: ` then 16 bytes of hex and their ASCII, or 64 characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DumpRun {
    /// Body offset of the run's first byte.
    pub body: u64,
    /// File byte offset of the run's first line.
    pub byte: u64,
    /// 1-based file line of the run's first line.
    pub line: u64,
    /// 1-based column of the first byte on each line.
    pub column: u64,
    /// Body bytes a line shows.
    pub per_line: u64,
    /// File bytes a line takes, line end included (0 while the run has
    /// one line).
    pub line_bytes: u64,
    /// Columns a body byte takes.
    pub step: u64,
    /// Lines in the run.
    pub lines: u64,
}

/// The file positions of the body byte offsets `at` in a body read from a
/// curl trace ([`DumpRuns`]); an offset before the first run or past the
/// last line of its run (the end of the body) has none.
pub fn dumped(
    runs: &[DumpRun],
    at: impl Iterator<Item = u64>,
) -> std::collections::BTreeMap<u64, FilePos> {
    let mut out = std::collections::BTreeMap::new();
    for b in at {
        let i = runs.partition_point(|r| r.body <= b);
        let Some(r) = i.checked_sub(1).map(|i| runs[i]) else {
            continue;
        };
        let k = b - r.body;
        let (n, j) = (k / r.per_line.max(1), k % r.per_line.max(1));
        if n >= r.lines {
            continue;
        }
        let column = r.column + j * r.step;
        out.insert(
            b,
            FilePos {
                byte: r.byte + n * r.line_bytes + column - 1,
                line: r.line + n,
                column,
            },
        );
    }
    out
}

/// The file positions of the body positions `at` (byte offset, 1-based
/// line, column), under `shifts`; a position before the first shift, or
/// past the last one when [`MAX_SHIFTS`] was reached, has none.
pub fn shifted(
    shifts: &[Shift],
    full: bool,
    at: impl Iterator<Item = (u64, u64, u64)>,
) -> std::collections::BTreeMap<u64, FilePos> {
    let mut out = std::collections::BTreeMap::new();
    for (byte, line, column) in at {
        let i = shifts.partition_point(|s| s.body <= byte);
        if i == 0 || (full && i == shifts.len()) {
            continue;
        }
        let s = shifts[i - 1];
        out.insert(
            byte,
            FilePos {
                byte: byte + s.bytes,
                line: line + s.lines,
                column,
            },
        );
    }
    out
}

/// One stream to lint.
#[derive(Debug)]
pub struct Stream {
    /// Human label: the file for single-stream captures, `#3 POST url` for a
    /// HAR entry.
    pub label: String,
    /// HTTP metadata, if the capture has it.
    pub http: Option<Http>,
    /// The request, if the capture has it.
    pub request: Option<Request>,
    /// The body.
    pub body: Body,
    /// Timing, if the capture has it.
    pub timing: Option<Timing>,
    /// Truncation evidence (some known up front, some found while reading).
    pub evidence: Evidence,
    /// What the reader did that the report should mention (decoding,
    /// de-chunking, a lossy trace).
    pub notes: Vec<String>,
    /// Mapping of body positions to the file.
    pub origin: Origin,
    /// A body read with lines left out (`curl -v`), contiguous otherwise:
    /// where its positions sit in the file.
    pub shifts: Option<Shifts>,
    /// HAR: a body past [`spool::MEM_BYTES`] that is its text value as it
    /// is ([`HarText::mapped`] > 0), kept in its temporary file: read
    /// again once the lint is over, to map the findings' body offsets into
    /// the file as a body in memory is.
    pub spooled_text: Option<spool::Spooled>,
    /// A body read from a curl trace's dump lines, byte for byte: where
    /// its bytes sit in the file.
    pub dump: Option<DumpRuns>,
}

impl Stream {
    /// A stream with only a body.
    pub fn new(label: impl Into<String>, body: Body) -> Self {
        Stream {
            label: label.into(),
            http: None,
            request: None,
            body,
            timing: None,
            evidence: Evidence::default(),
            notes: Vec::new(),
            origin: Origin::default(),
            shifts: None,
            spooled_text: None,
            dump: None,
        }
    }
}

/// A read input: one file (or stdin) and its streams.
#[derive(Debug)]
pub struct Capture {
    /// The path as given (`-` for stdin).
    pub path: String,
    /// The detected or forced format.
    pub input_format: InputFormat,
    /// Finer detail of the format (`curl -i`, `curl --trace`, …).
    pub detail: &'static str,
    /// The streams, in capture order.
    pub streams: Vec<Stream>,
}

/// Options of the capture stage.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Force a format instead of detecting it.
    pub input_format: Option<InputFormat>,
    /// HAR: only this entry index.
    pub entry: Option<usize>,
    /// HAR: only entries whose URL contains this text.
    pub url_match: Option<String>,
    /// Largest decoded size of a compressed body (bytes); `None` is
    /// [`decode::MAX_DECODED_BYTES`].
    pub max_decoded_bytes: Option<u64>,
    /// HAR: learn where each entry's `content.text` sits in the file, so
    /// findings can point into the .har (SARIF and GitHub output want it).
    /// Costs a byte-by-byte pass while parsing (about 1.8× the HAR read
    /// time), so it is off unless a renderer needs it.
    pub har_positions: bool,
    /// The command picks a HAR entry only as `FILE#N` (it has no
    /// `--entry` option, as `diff`): the HAR's listing of entries says so.
    pub entry_by_spec_only: bool,
}

impl Options {
    /// The decoded-size limit in force.
    pub fn decoded_limit(&self) -> u64 {
        self.max_decoded_bytes.unwrap_or(decode::MAX_DECODED_BYTES)
    }
}

/// An input that could not be read as a capture: names the input and says
/// what is wrong.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct InputError {
    /// The input as given; a URL with its key and user part masked
    /// ([`redact_url`]).
    pub path: String,
    /// What is wrong, in a sentence.
    pub message: String,
}

impl InputError {
    /// An error about `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        let path = path.into();
        // A URL given where a file is read: its query may hold a key.
        let path = if path.contains("://") {
            redact_url(&path)
        } else {
            path
        };
        InputError {
            path,
            message: message.into(),
        }
    }
}

/// Reads the capture at `path` (`-` is stdin).
///
/// # Errors
/// The file cannot be opened or read, is not a capture of the given format,
/// or (HAR) holds no SSE entry matching the options.
pub fn open(path: &str, opts: &Options) -> Result<Capture, InputError> {
    if let Some((file, n)) = entry_spec(path) {
        if opts.entry.is_some_and(|e| e != n) {
            return Err(InputError::new(
                path,
                format!("names entry {n}, and --entry names another: give one"),
            ));
        }
        let opts = Options {
            entry: Some(n),
            ..opts.clone()
        };
        return open(file, &opts);
    }
    let forced_har = opts.input_format.is_none() && path.to_ascii_lowercase().ends_with(".har");
    let reader: Box<dyn Read + Send> = if path == "-" {
        Box::new(io::stdin())
    } else {
        let file = File::open(path).map_err(|e| unreadable(path, &e))?;
        if file.metadata().map(|m| m.is_dir()).unwrap_or(false) {
            return Err(InputError::new(path, "is a directory"));
        }
        Box::new(file)
    };
    if forced_har {
        // A `.har` file is read as HAR, so a broken one says so.
        let opts = Options {
            input_format: Some(InputFormat::Har),
            ..opts.clone()
        };
        return from_reader(path, reader, &opts);
    }
    from_reader(path, reader, opts)
}

/// `PATH#N`, one HAR entry by its index (`capture.har#3`), as every command
/// reads it: the path and N, when `spec` is not itself an existing file and
/// `PATH` is.
pub fn entry_spec(spec: &str) -> Option<(&str, usize)> {
    let (file, n) = spec.rsplit_once('#')?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if std::path::Path::new(spec).exists() || !std::path::Path::new(file).is_file() {
        return None;
    }
    Some((file, n.parse().ok()?))
}

/// Which UTF-16 `head` (a file's first bytes) is written in: `UTF-16`
/// with a byte-order mark, or LE or BE without one; `None` for any other
/// text. Every command refuses such a file (an event stream is UTF-8), and
/// `redact` must too: it would copy it unread, secrets and all.
pub fn utf16(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]) {
        Some("UTF-16")
    } else {
        utf16_without_bom(head)
    }
}

/// Whether `head` is UTF-16 text written without a byte-order mark
/// (`Out-File -Encoding unicode` without one, an editor's "UTF-16 LE"):
/// its first 64 bytes, read as 16-bit units, are all printable ASCII or
/// whitespace, with the NUL half on the odd bytes (little-endian) or the
/// even ones (big-endian). An SSE, curl or HAR capture has no NUL there.
fn utf16_without_bom(head: &[u8]) -> Option<&'static str> {
    let n = head.len().min(64) & !1;
    if n < 8 {
        return None;
    }
    let text = |b: u8| b == b'\t' || b == b'\n' || b == b'\r' || (0x20..0x7F).contains(&b);
    let units = head[..n].chunks_exact(2);
    if units.clone().all(|u| u[1] == 0 && text(u[0])) {
        Some("UTF-16LE without a byte-order mark")
    } else if units.clone().all(|u| u[0] == 0 && text(u[1])) {
        Some("UTF-16BE without a byte-order mark")
    } else {
        None
    }
}

/// Reads a capture from any reader; `name` labels it.
///
/// # Errors
/// As [`open`].
pub fn from_reader(
    name: &str,
    reader: Box<dyn Read + Send>,
    opts: &Options,
) -> Result<Capture, InputError> {
    let mut reader = BufReader::with_capacity(SNIFF_BYTES, reader);
    let head = fill_sniff(&mut reader).map_err(|e| InputError::new(name, io_message(&e)))?;
    if let Some(which) = utf16(&head) {
        return Err(InputError::new(
            name,
            format!("the file is {which} (PowerShell's `>` writes UTF-16): an event stream is UTF-8; save it as UTF-8 (e.g. `curl -o file`, or `Out-File -Encoding utf8`)"),
        ));
    }
    let mut reader: Box<dyn Read + Send> = Box::new(io::Cursor::new(head.clone()).chain(reader));
    let mut head = head;
    // curl's progress meter (stderr merged without -s) goes before anything
    // looks at the bytes: it can sit before the status line and inside the
    // body. A HAR is JSON, where a bare CR cannot sit inside a string.
    let meter = opts.input_format != Some(InputFormat::Har)
        && detect(&head) != InputFormat::Har
        && meter::present(&head);
    if meter {
        let mut filtered = BufReader::with_capacity(
            SNIFF_BYTES,
            Box::new(meter::MeterFilter::new(reader)) as Box<dyn Read + Send>,
        );
        head = fill_sniff(&mut filtered).map_err(|e| InputError::new(name, io_message(&e)))?;
        reader = Box::new(io::Cursor::new(head.clone()).chain(filtered));
    }
    let format = match opts.input_format {
        Some(f) => f,
        None => detect(&head),
    };
    if let (Some(n), false, true) = (
        opts.entry,
        format == InputFormat::Har,
        opts.entry_by_spec_only,
    ) {
        return Err(InputError::new(
            name,
            format!("{name}#{n} picks entry {n} of a HAR file, but this input is read as {format}, not HAR; give {name} without #{n}"),
        ));
    }
    if let (Some(n), false) = (opts.entry, format == InputFormat::Har) {
        return Err(InputError::new(
            name,
            format!("--entry {n} picks an entry of a HAR file, but this input is read as {format}, not HAR; leave --entry out (or pass --input-format har if it is one)"),
        ));
    }
    if let (Some(m), false) = (&opts.url_match, format == InputFormat::Har) {
        return Err(InputError::new(
            name,
            format!("--url-match {m:?} picks entries of a HAR file by URL, but this input is read as {format}, not HAR; leave --url-match out (or pass --input-format har if it is one)"),
        ));
    }
    let mut cap = match format {
        InputFormat::Har => har::read(name, reader, opts),
        InputFormat::Curl => curl::read(name, reader, opts.decoded_limit()),
        InputFormat::Sse => raw::read(name, reader, opts.decoded_limit()),
    }?;
    if meter {
        for s in &mut cap.streams {
            s.notes.insert(0, METER_NOTE.to_string());
            // The file holds curl's meter between body bytes: positions
            // are in the body without it.
            s.origin.file_start = None;
        }
    }
    Ok(cap)
}

/// The note on a capture that held curl's progress meter.
pub const METER_NOTE: &str = "curl's progress meter (stderr merged into the file without -s) was removed wherever it landed, including inside body lines; positions are in the body without it (capture with curl -s to leave it out)";

/// Reads up to [`SNIFF_BYTES`] from the start of `reader`.
fn fill_sniff(reader: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(4096);
    reader
        .by_ref()
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut head)?;
    Ok(head)
}

/// Guesses the format from the first bytes (`reference` §3.4): a JSON object
/// with `"log"` is HAR; `HTTP/`, curl `-v` prefixes or trace records are
/// curl; anything else is a raw body.
pub fn detect(head: &[u8]) -> InputFormat {
    let head = head.strip_prefix(&[0xEF, 0xBB, 0xBF][..]).unwrap_or(head);
    let start = head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(head.len());
    let t = &head[start..];
    if t.starts_with(b"{") && memchr::memmem::find(t, b"\"log\"").is_some() {
        return InputFormat::Har;
    }
    if curl::looks_like_curl(t) {
        return InputFormat::Curl;
    }
    InputFormat::Sse
}

/// The error of a file `path` that could not be opened or read: a URL
/// given where a file is read is named masked, with where a URL is read.
pub fn unreadable(path: &str, e: &io::Error) -> InputError {
    let message = io_message(e);
    let url = ["http://", "https://"].iter().any(|s| path.starts_with(s));
    if url && e.kind() == io::ErrorKind::NotFound {
        InputError::new(
            path,
            format!("{message}: a live URL is read by `sselint check URL --body FILE` (or saved by `sselint record`)"),
        )
    } else {
        InputError::new(path, message)
    }
}

/// A message for an I/O error that does not repeat the path.
pub fn io_message(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => {
            let s = e.to_string();
            match s.find(" (os error") {
                Some(i) => s[..i].to_lowercase(),
                None => s,
            }
        }
    }
}

/// Extensions of files a directory walk takes without sniffing. Others
/// (`.txt`, `.log`, `.bin`, `.json`, none) are taken when they sniff as a
/// capture.
const CAPTURE_EXTENSIONS: &[&str] = &["sse", "har", "curl", "trace"];

/// Extensions of reports (sselint's own among them: HTML pages, SARIF,
/// JUnit XML, GitHub annotations, Markdown) that a directory walk never
/// takes, though an HTML page that quotes a stream sniffs as one.
const REPORT_EXTENSIONS: &[&str] = &["html", "htm", "sarif", "xml", "github", "md"];

/// Expands inputs: a directory becomes every capture inside, recursively,
/// sorted by path (so output order never depends on the file system). A file
/// given by name is always taken. Symlink loops and unreadable directories
/// become errors of their own, returned beside the paths.
pub fn expand(inputs: &[String]) -> (Vec<String>, Vec<InputError>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for input in inputs {
        let p = Path::new(input);
        if input != "-" && p.is_dir() {
            let mut found = Vec::new();
            let mut seen = Vec::new();
            let errors_before = errors.len();
            walk(p, &mut found, &mut errors, &mut seen, 0);
            if found.is_empty() && errors.len() == errors_before {
                // Named on the command line, so it must not vanish from the
                // report (`check good.sse emptydir/` would pass silently).
                errors.push(InputError::new(
                    input.clone(),
                    "no capture found in this directory",
                ));
            }
            found.sort();
            files.extend(found.into_iter().map(|p| p.to_string_lossy().into_owned()));
        } else if input == "-" && files.iter().any(|f| f == "-") {
            // Standard input can be read once; a second `-` would lint an
            // empty stream and blame the server for it.
            errors.push(InputError::new(
                input.clone(),
                "standard input is named twice; it can be read only once",
            ));
        } else {
            files.push(input.clone());
        }
    }
    (files, errors)
}

fn walk(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    errors: &mut Vec<InputError>,
    seen: &mut Vec<PathBuf>,
    depth: usize,
) {
    let shown = dir.to_string_lossy().into_owned();
    let Ok(canon) = dir.canonicalize() else {
        errors.push(InputError::new(shown, "cannot resolve directory"));
        return;
    };
    if seen.contains(&canon) || depth > 64 {
        errors.push(InputError::new(
            shown,
            "directory already visited (symlink loop); skipped",
        ));
        return;
    }
    seen.push(canon);
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            errors.push(InputError::new(shown, io_message(&e)));
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        if name.as_deref().is_some_and(|n| n.starts_with('.')) {
            continue;
        }
        let Ok(meta) = std::fs::metadata(&path) else {
            continue; // a dangling symlink
        };
        if meta.is_dir() {
            walk(&path, out, errors, seen, depth + 1);
        } else if !meta.is_file() {
            // FIFOs, sockets, devices: reading one could block forever.
            continue;
        } else if path.to_str().is_none() {
            errors.push(InputError::new(
                path.to_string_lossy(),
                "the file name is not valid UTF-8; rename it to lint it",
            ));
        } else if is_capture_file(&path) {
            out.push(path);
        }
    }
    seen.pop();
}

/// Whether a file found in a directory walk is a capture: by extension, or
/// by sniffing it: HAR, a curl dump, SSE field lines, a gzip body,
/// curl's progress meter (a merged `curl … 2>&1` dump), or the first line
/// of another transport's stream (an Ollama NDJSON line).
fn is_capture_file(path: &Path) -> bool {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let name = path.to_string_lossy();
    if name.ends_with(".expect.json") || name.ends_with(".expected.json") {
        return false;
    }
    if CAPTURE_EXTENSIONS.contains(&ext.as_str()) {
        return true;
    }
    if REPORT_EXTENSIONS.contains(&ext.as_str()) {
        return false;
    }
    let mut head = Vec::new();
    if let Ok(f) = File::open(path) {
        let mut f = BufReader::new(f);
        let _ = (&mut f).take(4096).read_to_end(&mut head);
        // An NDJSON file whose first line is longer (an Ollama line holds
        // its `done` last): that line whole, as `check` reads it.
        if ext == "ndjson" && !head.contains(&b'\n') && head.len() == 4096 {
            let cap = crate::sse::DEFAULT_MAX_BLOCK_BYTES as u64;
            let _ = f.take(cap).read_until(b'\n', &mut head);
        }
    }
    match detect(&head) {
        InputFormat::Har | InputFormat::Curl => true,
        InputFormat::Sse => {
            raw::looks_like_sse(&head)
                || decode::is_gzip(&head)
                || meter::present(&head)
                || crate::transport::Transport::of_bytes(&head).is_some()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn punctuation_after_a_url_is_kept() {
        assert_eq!(
            redact_text("http://h/v1?key=abc123: io: refused"),
            "http://h/v1?key=[REDACTED]: io: refused"
        );
        assert_eq!(
            redact_text("see (http://u:p@h/v1?token=t1), then"),
            "see (http://[REDACTED]@h/v1?token=[REDACTED]), then"
        );
    }

    #[test]
    fn keys_are_masked_and_other_text_kept() {
        assert_eq!(
            redact_keys(r#"{"api_key":"sk-test-FAKE0000000000000000","x":"ask-me sk-short"}"#),
            r#"{"api_key":"[REDACTED]","x":"ask-me sk-short"}"#
        );
        // At the start, back to back, after a letter, cut at the end.
        assert_eq!(redact_keys("sk-0123456789ab"), "[REDACTED]");
        // A Google API key (39 bytes) pasted into a prompt; a shorter
        // `AIza…` word is no key.
        assert_eq!(
            redact_keys("my key is AIzaSyD-FAKEKEY1234567890abcdefghijklmn, thanks"),
            "my key is [REDACTED], thanks"
        );
        assert_eq!(
            redact_keys("AIzaWord and xAIzaSyD-FAKEKEY1234567890abcdefghijklmn"),
            "AIzaWord and xAIzaSyD-FAKEKEY1234567890abcdefghijklmn"
        );
        assert_eq!(
            redact_keys("sk-sk-0123456789 ask-0123456789ab -sk-0123456789ab_é sk-"),
            "[REDACTED] ask-0123456789ab -[REDACTED]é sk-"
        );
    }

    #[test]
    fn header_names_holding_a_secret_word_are_secret_and_challenges_are_not() {
        for n in [
            "Authorization",
            "Apikey",
            "X-Auth",
            "X-Auth-Token",
            "X-Session-Id",
            "Cookie",
            "X-Amz-Signature",
            "X-Client-Credential",
            "ocp-apim-subscription-key",
        ] {
            assert!(is_secret_header(n), "{n}");
        }
        for n in [
            "Content-Type",
            "Keep-Alive",
            "WWW-Authenticate",
            "Proxy-Authenticate",
            ":authority",
            "anthropic-version",
        ] {
            assert!(!is_secret_header(n), "{n}");
        }
        assert!(is_secret_param("access_token") && is_secret_param("X-Amz-Signature"));
        assert!(!is_secret_param("model"));
    }
}
