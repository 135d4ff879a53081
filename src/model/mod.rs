//! The chunk view of an event: what a dispatched event's data *is* — the
//! `[DONE]` sentinel, a malformed sentinel, a JSON payload (a
//! `chat.completion.chunk`, an error, anything else), or not JSON — plus the
//! map from a JSON pointer to the bytes it names, so a diagnostic can
//! underline a key or a value inside the capture.
//!
//! It knows nothing of rules or severities: see `lint` and `checks`. The
//! per-choice assembly of the answer lives in [`assembly`].

pub mod assembly;
pub mod span;

use serde_json::Value;

/// What an event's data holds.
#[derive(Debug)]
pub enum Payload {
    /// Exactly `[DONE]`.
    Done,
    /// Something meant as the sentinel but not exactly it (`[DONE] `,
    /// `DONE`, `"[DONE]"`, `[done]`).
    MalformedDone,
    /// A JSON text.
    Json(Value),
    /// Not JSON; the parser's message and the byte offset in the data where
    /// it gave up.
    Invalid {
        /// serde_json's message (without position).
        message: String,
        /// Byte offset in the data of the failure.
        at: usize,
    },
}

/// Largest JSON nesting depth accepted (serde_json's own recursion limit is
/// 128; deeper data is reported as invalid, never a stack overflow).
pub const MAX_JSON_DEPTH: usize = 128;

/// Classifies an event's data.
pub fn decode(data: &str) -> Payload {
    if data == "[DONE]" {
        return Payload::Done;
    }
    let t = data.trim();
    if t.eq_ignore_ascii_case("[done]")
        || t == "DONE"
        || t == "\"[DONE]\""
        || t.starts_with("[DONE]")
        || t == "[DONE"
    {
        return Payload::MalformedDone;
    }
    match serde_json::from_str::<Value>(data) {
        Ok(v) => Payload::Json(v),
        Err(e) => {
            let at = offset_of(data, e.line(), e.column());
            let msg = e.to_string();
            let message = match msg.find(" at line ") {
                Some(i) => msg[..i].to_string(),
                None => msg,
            };
            Payload::Invalid { message, at }
        }
    }
}

/// Byte offset of serde_json's 1-based (line, column) in `s`.
fn offset_of(s: &str, line: usize, column: usize) -> usize {
    let mut off = 0;
    for (i, l) in s.split('\n').enumerate() {
        if i + 1 == line {
            return (off + column.saturating_sub(1)).min(s.len());
        }
        off += l.len() + 1;
    }
    s.len()
}

/// The JSON type of a value, in JSON's words.
pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A field of an object as clients see it: absent, null, or present.
#[derive(Debug, Clone, Copy)]
pub enum Field<'v> {
    /// The key is not there.
    Absent,
    /// `null`.
    Null,
    /// Any other value.
    Present(&'v Value),
}

impl<'v> Field<'v> {
    /// The field `key` of `obj` (absent when `obj` is not an object).
    pub fn of(obj: &'v Value, key: &str) -> Self {
        match obj.get(key) {
            None => Field::Absent,
            Some(Value::Null) => Field::Null,
            Some(v) => Field::Present(v),
        }
    }

    /// The value when present.
    pub fn value(self) -> Option<&'v Value> {
        match self {
            Field::Present(v) => Some(v),
            _ => None,
        }
    }

    /// The string when present and a string.
    pub fn str(self) -> Option<&'v str> {
        self.value().and_then(Value::as_str)
    }

    /// A non-empty string (the test for "this delta adds text").
    pub fn nonempty_str(self) -> Option<&'v str> {
        self.str().filter(|s| !s.is_empty())
    }
}

/// The request options that change what a stream should hold, read from a
/// captured request body (HAR `postData`, a curl trace's `Send data`, the
/// body `record` sent).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestOptions {
    /// `stream` as sent.
    pub stream: Option<bool>,
    /// `stream_options.include_usage` was true.
    pub include_usage: bool,
    /// `n`, the number of choices asked for.
    pub n: Option<u64>,
    /// `tools` was a non-empty array (or `functions` for the old API).
    pub tools: bool,
}

impl RequestOptions {
    /// Reads the options from a request body; `None` when it is not a JSON
    /// object.
    pub fn from_body(body: &str) -> Option<Self> {
        let v: Value = serde_json::from_str(body).ok()?;
        let obj = v.as_object()?;
        Some(RequestOptions {
            stream: obj.get("stream").and_then(Value::as_bool),
            include_usage: v
                .pointer("/stream_options/include_usage")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            n: obj.get("n").and_then(Value::as_u64),
            tools: obj
                .get("tools")
                .or_else(|| obj.get("functions"))
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty()),
        })
    }
}
