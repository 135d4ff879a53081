//! The event view every dialect shares: what a dispatched event's data
//! *is* — the `[DONE]` sentinel, a malformed sentinel, a JSON payload, or
//! not JSON ([`Payload`], [`decode`]) — plus the map from a JSON pointer to
//! the bytes it names ([`span`]), so a diagnostic can underline a key or a
//! value inside the capture, and the answer every dialect assembles
//! ([`assembly`]).
//!
//! It knows nothing of rules or severities: see `lint` and `checks`. What
//! one dialect's events carry is that dialect's own: Chat's chunk model is
//! in [`crate::dialect::chat`], the others' beside it.

pub mod assembly;
pub mod span;
pub mod valid;

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
    /// A JSON text whose strings hold lone UTF-16 surrogate escapes
    /// (`"\ud83d"`): RFC 8259's grammar allows them and JavaScript's
    /// `JSON.parse` accepts them, but they are not Unicode, so strict
    /// parsers (serde_json, Go's, Java's) reject the event. Read here with
    /// each lone surrogate as U+FFFD.
    LoneSurrogates(Value),
    /// Not JSON.
    Invalid(InvalidJson),
}

/// Why an event's data is not JSON. The message and position are worked
/// out only when asked for (a report shows them; a stream of thousands of
/// broken events shows the first few).
#[derive(Debug)]
pub struct InvalidJson(serde_json::Error);

impl InvalidJson {
    /// serde_json's message, without its position ([`json_error`]).
    pub fn message(&self) -> String {
        json_error(&self.0)
    }

    /// The byte offset in `data` (the event's data this came from) where
    /// the parser gave up.
    pub fn at(&self, data: &str) -> usize {
        offset_of(data, self.0.line(), self.0.column())
    }
}

/// Deepest JSON nesting read: 127 levels (serde_json's recursion limit);
/// deeper data is `invalid-json`, never a stack overflow.
pub const MAX_JSON_DEPTH: usize = 127;

/// Whether a JSON parse error is serde_json's recursion limit
/// ([`MAX_JSON_DEPTH`]), not a fault of the JSON.
pub fn too_deep(e: &serde_json::Error) -> bool {
    e.to_string().contains("recursion limit")
}

/// What a JSON parse error says, for a finding: serde_json's message
/// without its position; past [`MAX_JSON_DEPTH`], that the limit is
/// sselint's, not JSON's (Python's `json` and Node's `JSON.parse` read
/// deeper nesting), so the finding does not pass for the server's fault.
pub fn json_error(e: &serde_json::Error) -> String {
    let msg = e.to_string();
    let message = match msg.find(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg,
    };
    if too_deep(e) {
        format!("nested deeper than {MAX_JSON_DEPTH} levels, sselint's limit: the JSON may be valid (Python's json and Node's JSON.parse read deeper nesting), so sselint could not check it")
    } else {
        message
    }
}

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
        Err(e) if has_surrogate_escape(data) => {
            match serde_json::from_str::<Value>(&replace_lone_surrogates(data)) {
                Ok(v) => Payload::LoneSurrogates(v),
                Err(_) => Payload::Invalid(InvalidJson(e)),
            }
        }
        Err(e) => Payload::Invalid(InvalidJson(e)),
    }
}

/// The data of an event as a JSON object, read as [`decode`] reads it
/// (a lone surrogate escape as U+FFFD): what the dialect is told by
/// before any checker reads the event. `None` for data that is not a JSON
/// object. The first chunk of a stream may end inside an emoji split
/// across chunks (`"text": "\ud83d"`): strict parsing refuses it, yet its
/// keys name the dialect as well as any other chunk's.
pub fn json_object(data: &str) -> Option<Value> {
    if data.trim_start().as_bytes().first() != Some(&b'{') {
        return None;
    }
    match decode(data) {
        Payload::Json(v) | Payload::LoneSurrogates(v) => Some(v),
        _ => None,
    }
}

/// The payload of `data` when a typed deserializer of it failed with
/// `error`: a syntax error (or an early end) is where any JSON parser of
/// `data` stops, so it is the error a `Value` parse would meet too and
/// `data` need not be parsed again. `None` for other errors (the data is
/// JSON of another shape) and for data with surrogate escapes, which
/// [`decode`] reads leniently: call [`decode`] then.
pub fn decode_failed(data: &str, error: serde_json::Error) -> Option<Payload> {
    let syntax = matches!(
        error.classify(),
        serde_json::error::Category::Syntax | serde_json::error::Category::Eof
    );
    (syntax && !has_surrogate_escape(data)).then_some(Payload::Invalid(InvalidJson(error)))
}

/// Whether `data` holds a `\\uD800`–`\\uDFFF` escape.
fn has_surrogate_escape(data: &str) -> bool {
    let b = data.as_bytes();
    memchr::memchr_iter(b'\\', b).any(|i| {
        b.get(i + 1..i + 4).is_some_and(|w| {
            (w[0] == b'u' || w[0] == b'U')
                && (w[1] == b'd' || w[1] == b'D')
                && matches!(w[2], b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F')
        })
    })
}

/// Replaces `\uD800`–`\uDFFF` escapes that do not form a pair with
/// `\uFFFD`, leaving proper pairs alone.
fn replace_lone_surrogates(data: &str) -> String {
    fn unit(b: &[u8]) -> Option<u16> {
        if b.len() >= 6 && b[0] == b'\\' && (b[1] == b'u' || b[1] == b'U') {
            u16::from_str_radix(std::str::from_utf8(&b[2..6]).ok()?, 16).ok()
        } else {
            None
        }
    }
    let b = data.as_bytes();
    let mut out = String::with_capacity(data.len());
    let mut i = 0;
    let mut last = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            if let Some(u) = unit(&b[i..]) {
                let high = (0xD800..0xDC00).contains(&u);
                let low = (0xDC00..0xE000).contains(&u);
                let paired =
                    high && unit(&b[i + 6..]).is_some_and(|n| (0xDC00..0xE000).contains(&n));
                if paired {
                    i += 12;
                    continue;
                }
                if high || low {
                    out.push_str(&data[last..i]);
                    out.push_str("\\ufffd");
                    i += 6;
                    last = i;
                    continue;
                }
                i += 6;
                continue;
            }
            i += 2;
            continue;
        }
        i += 1;
    }
    out.push_str(&data[last..]);
    out
}

#[cfg(test)]
mod decode_tests {
    use super::*;

    #[test]
    fn lone_surrogates_read_as_replacement_and_pairs_stay() {
        match decode(r#"{"a":"\ud83d","b":"\ud83d\ude00"}"#) {
            Payload::LoneSurrogates(v) => {
                assert_eq!(v["a"], "\u{FFFD}");
                assert_eq!(v["b"], "😀");
            }
            other => panic!("{other:?}"),
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

/// A JSON value as a message shows it: its JSON text, except that a whole
/// number too large for an integer (serde_json reads it as a float, which
/// prints as `1e20`) is written out in digits, `100000000000000000000`,
/// as the server most likely sent it. Past 2^53 the digits are those of the
/// nearest float.
pub fn value_text(v: &Value) -> String {
    match v.as_f64() {
        // serde_json writes 1e20 for a whole float that large: digits
        // instead, as it was sent. Smaller ones keep their `.0`.
        Some(f) if v.is_f64() && f.fract() == 0.0 && f.abs() >= 1e16 && f.abs() < 1e30 => {
            format!("{f:.0}")
        }
        _ => v.to_string(),
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

/// `s` cut to its first `max` characters (Unicode scalar values) with an
/// ellipsis after them when it is longer; as it is otherwise. The one
/// excerpt helper of the messages and reports.
pub fn shorten(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// `s` in at most `n` characters, the ellipsis included: [`shorten`] to
/// `n - 1` and `…` when it is longer than `n`.
pub fn shorten_within(s: &str, n: usize) -> String {
    if s.char_indices().nth(n).is_some() {
        shorten(s, n - 1)
    } else {
        s.to_string()
    }
}

/// "message (type, code)" of an error value: OpenAI's `{"message", "type",
/// "code"}`, Anthropic's `{"type", "message"}`, a bare string, anything
/// else as JSON; messages cut to 160 characters.
pub fn error_message(err: &Value) -> String {
    match err {
        Value::String(s) => format!("{:?}", shorten(s, 160)),
        Value::Object(o) => {
            let msg = o
                .get("message")
                .and_then(Value::as_str)
                .map(|s| format!("{:?}", shorten(s, 160)))
                .unwrap_or_else(|| "(no message)".to_string());
            let mut extra = Vec::new();
            for k in ["type", "code"] {
                match o.get(k) {
                    Some(Value::String(s)) => extra.push(format!("{k} {s}")),
                    Some(Value::Number(n)) => extra.push(format!("{k} {n}")),
                    _ => {}
                }
            }
            if extra.is_empty() {
                msg
            } else {
                format!("{msg} ({})", extra.join(", "))
            }
        }
        other => shorten(&other.to_string(), 160),
    }
}
