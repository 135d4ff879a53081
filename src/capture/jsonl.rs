//! Gateway logs: a body with the HTTP facts a gateway kept beside it
//! (status, response headers, request path), from a JSON Lines record or
//! from a caller that has them as values (the Python API, an Arrow row).
//!
//! A record is one JSON object on one line:
//! `{"id": …, "status": 200, "headers": {…}, "path": "/v1/chat/completions",
//! "body": "data: …"}`, with `body_base64` instead of `body` for a body that
//! is not text. Every field but the body may be left out or null. The body
//! is read as a raw SSE body (a gzip body is decoded, as for a file), and
//! the facts stand for what a curl dump's status line and headers and a
//! HAR's request URL give: the status decides `http-status`, the
//! `Content-Type` header `content-type`, the path the dialect.

use super::{header, Capture, Header, Http, InputError, Options, Request};
use base64::Engine as _;
use serde::Deserialize;
use std::borrow::Cow;

/// The HTTP facts a gateway log keeps beside a body. With headers (or a
/// status outside 2xx) they stand for the response's status line and
/// headers; a 2xx status alone adds nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    /// The response's status code.
    pub status: Option<u16>,
    /// The response headers, secret values already redacted
    /// ([`super::header`]).
    pub headers: Vec<Header>,
    /// The request's path or URL (`/v1/responses`, `https://host/v1/messages`).
    pub request_path: Option<String>,
}

impl Facts {
    /// Facts from raw header pairs; secret-bearing values are redacted
    /// here, so nothing downstream can print them.
    pub fn new<'a>(
        status: Option<u16>,
        headers: impl IntoIterator<Item = (&'a str, &'a str)>,
        request_path: Option<String>,
    ) -> Self {
        Facts {
            status,
            headers: headers.into_iter().map(|(n, v)| header(n, v)).collect(),
            request_path: request_path.filter(|p| !p.is_empty()),
        }
    }

    /// Whether there is any fact at all.
    pub fn is_empty(&self) -> bool {
        self.status.is_none() && self.headers.is_empty() && self.request_path.is_none()
    }
}

/// A record (or row) whose body is missing or null.
pub const NO_BODY: &str = "the record has no body (it is missing or null)";

/// One record of a JSON Lines log, parsed.
#[derive(Debug)]
pub struct Record {
    /// The record's `id` (a string, or a number written as text); `None`
    /// when it has none.
    pub id: Option<String>,
    /// Its HTTP facts.
    pub facts: Facts,
    /// The body's bytes, or why the record cannot be linted (no body, bad
    /// base64, a status or headers of the wrong shape).
    pub body: Result<Vec<u8>, String>,
}

#[derive(Deserialize)]
struct Raw<'a> {
    #[serde(default)]
    id: Option<serde_json::Value>,
    #[serde(default)]
    status: Option<serde_json::Value>,
    #[serde(default)]
    headers: Option<serde_json::Value>,
    #[serde(default)]
    path: Option<String>,
    #[serde(default, borrow)]
    body: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    body_base64: Option<Cow<'a, str>>,
}

/// What is wrong with a line of a JSON Lines log as a whole
/// ([`parse_line`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LineError {
    /// Bytes that are not UTF-8.
    #[error(
        "the line is not valid UTF-8 (a JSON Lines log is UTF-8; put a binary body in body_base64)"
    )]
    NotUtf8,
    /// Not a JSON object at all.
    #[error("not a JSON object with id, status, headers, path and body")]
    NotObject,
    /// A JSON text that is not the record's object (what serde said).
    #[error("not a JSON object with id, status, headers, path and body: {0}")]
    Fields(serde_json::Error),
    /// `id` of another JSON type than string or number (its type).
    #[error("\"id\" is a JSON {0}; give a string or a number")]
    Id(&'static str),
}

/// Parses one line of a JSON Lines log (without its line break).
///
/// # Errors
/// A sentence saying what is wrong with the line as a whole (not JSON, not
/// an object, a field of the wrong type); a missing or undecodable body is
/// no error here but the record's `body` error.
pub fn parse_line(line: &[u8]) -> Result<Record, LineError> {
    // serde would take a JSON array for the record's fields in order.
    if line.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(if std::str::from_utf8(line).is_err() {
            LineError::NotUtf8
        } else {
            LineError::NotObject
        });
    }
    let raw: Raw<'_> = serde_json::from_slice(line).map_err(|e| {
        if std::str::from_utf8(line).is_err() {
            LineError::NotUtf8
        } else {
            LineError::Fields(e)
        }
    })?;
    let id = match raw.id {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(s)) => Some(s),
        Some(v @ serde_json::Value::Number(_)) => Some(v.to_string()),
        Some(v) => {
            return Err(LineError::Id(match v {
                serde_json::Value::Bool(_) => "boolean",
                serde_json::Value::Array(_) => "array",
                _ => "object",
            }))
        }
    };
    // Past the id, what is wrong is the record's error, under its id.
    let status = match raw.status {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .and_then(|n| u16::try_from(n).ok())
            .filter(|n| (100..1000).contains(n))
            .map(Some)
            .ok_or_else(|| format!("\"status\" is {v}, not an HTTP status code (100-999)")),
    };
    let headers = match raw.headers {
        None | Some(serde_json::Value::Null) => Ok(Vec::new()),
        Some(v) => header_pairs(&v),
    };
    let body = match (raw.body, raw.body_base64) {
        (Some(b), None) => Ok(b.into_owned().into_bytes()),
        (None, Some(b)) => base64::engine::general_purpose::STANDARD
            .decode(b.trim().as_bytes())
            .map_err(|e| format!("\"body_base64\" is not base64: {e}")),
        (Some(_), Some(_)) => {
            Err("the record has both \"body\" and \"body_base64\"; give one".into())
        }
        (None, None) => Err(NO_BODY.into()),
    };
    let (status, headers, body) = match (status, headers) {
        (Ok(s), Ok(h)) => (s, h, body),
        (Err(e), _) | (_, Err(e)) => (None, Vec::new(), Err(e)),
    };
    Ok(Record {
        id,
        facts: Facts::new(
            status,
            headers.iter().map(|(n, v)| (n.as_str(), v.as_str())),
            raw.path,
        ),
        body,
    })
}

/// Header pairs from a JSON object (`{"content-type": "text/event-stream"}`)
/// or a list of `[name, value]` pairs.
///
/// # Errors
/// Any other shape, or a value that is not a string.
pub fn header_pairs(v: &serde_json::Value) -> Result<Vec<(String, String)>, String> {
    let bad = || {
        "\"headers\" is neither an object of strings nor a list of [name, value] pairs".to_string()
    };
    match v {
        serde_json::Value::Object(m) => m
            .iter()
            .map(|(k, v)| match v {
                serde_json::Value::String(s) => Ok((k.clone(), s.clone())),
                serde_json::Value::Number(n) => Ok((k.clone(), n.to_string())),
                _ => Err(bad()),
            })
            .collect(),
        serde_json::Value::Array(a) => a
            .iter()
            .map(|p| match p.as_array().map(Vec::as_slice) {
                Some([serde_json::Value::String(k), serde_json::Value::String(v)]) => {
                    Ok((k.clone(), v.clone()))
                }
                _ => Err(bad()),
            })
            .collect(),
        _ => Err(bad()),
    }
}

/// Header pairs from a JSON object's text (a log's `headers` column stored
/// as JSON text).
///
/// # Errors
/// Text that is not such an object.
pub fn header_pairs_text(text: &str) -> Result<Vec<(String, String)>, String> {
    let v: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| format!("the headers are not a JSON object: {e}"))?;
    header_pairs(&v)
}

/// The capture of one logged body: `body` read as `opts` says (a log's
/// bodies are raw SSE bodies: `Some(InputFormat::Sse)`; `None` detects
/// the format as for a file), each stream
/// given the record's `facts` where the body itself had none: the status
/// and headers become the response's, the path the request's URL.
///
/// # Errors
/// As [`super::from_reader`] (a HAR or curl body that is no such thing).
pub fn capture(
    id: &str,
    body: Vec<u8>,
    facts: &Facts,
    opts: &Options,
) -> Result<Capture, InputError> {
    let mut cap = super::from_reader(id, Box::new(std::io::Cursor::new(body)), opts)?;
    for s in &mut cap.streams {
        apply(&mut s.http, &mut s.request, facts);
    }
    Ok(cap)
}

fn apply(http: &mut Option<Http>, request: &mut Option<Request>, facts: &Facts) {
    // A 2xx status alone says nothing the body does not: the response is
    // then taken as the body shows it (no Content-Type to judge).
    let odd_status = facts.status.is_some_and(|s| !(200..300).contains(&s));
    if http.is_none() && (odd_status || !facts.headers.is_empty()) {
        *http = Some(Http {
            status: facts.status.unwrap_or(200),
            reason: String::new(),
            version: String::new(),
            content_type: super::find_header(&facts.headers, "content-type").map(str::to_string),
            headers: facts.headers.clone(),
        });
    }
    if let (None, Some(p)) = (&request, &facts.request_path) {
        *request = Some(Request {
            method: "POST".to_string(),
            url: p.clone(),
            headers: Vec::new(),
            body: None,
        });
    }
}
