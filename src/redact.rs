//! A shareable copy of a capture: secrets removed and, on request, the
//! prompt and answer text replaced by placeholders of the same byte length,
//! so that a user can attach it to a bug report for a provider.
//!
//! What stays: the stream's framing byte for byte (line endings, `data:`
//! spacing, comments, invalid UTF-8, blank lines), every JSON key and the
//! JSON structure, finish reasons, ids, usage numbers, and the relations the
//! rules look at (a text that repeats the previous delta still does, tool
//! arguments stay valid or invalid JSON). What goes: secret header values,
//! cookies, secret URL parameters, `sk-…` keys, secret `NAME: value`
//! pairs quoted in text, and with `scrub_text` the characters of
//! `content`, `refusal`, reasoning text, tool-call `arguments` (JSON or
//! not), error messages, logprobs tokens (and their `bytes`), audio
//! transcripts, whatever else a dialect says holds text
//! ([`crate::dialect::words::Words::text_keys`]: a custom tool's input, a
//! web search's query, a server tool's output), any prose (words and a
//! space) under a key no dialect says names a thing, and every string of
//! the request but names and options ([`Scrubber::request`]), in SSE `data` lines and in a body that is a
//! JSON document instead of SSE; a `data` value that is not JSON and a
//! body that is neither SSE nor JSON are scrubbed flat.
//!
//! `redact --scrub-text` first scrubs flat ([`Scrubber::flat`]: every
//! letter `x`, every digit `0`) and keeps that copy when it lints the same
//! as the input. Otherwise letters map to letters and digits to digits
//! through a permutation drawn per run (so equal texts stay equal, and
//! prefixes stay prefixes: the relations some rules compare); other
//! characters map to a placeholder of the same UTF-8 length. In tool-call
//! arguments, outside the inner JSON strings, the JSON structure and the
//! literals `true`, `false`, `null` stay; other letters become `x`/`X` and
//! digits other than `0` become `1` (a number stays a valid number).

use crate::capture::{self, REDACTED};
use crate::dialect::words::Words;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};

mod har_stream;
pub use har_stream::{har_to, CopyError};

/// Whether `key` is in the list `list` gives of some dialect's words.
fn in_any(key: &str, list: impl Fn(&Words) -> &'static [&'static str]) -> bool {
    crate::dialect::ALL
        .iter()
        .any(|d| list(d.words()).contains(&key))
}

/// Whether `name=value` is the query parameter some dialect's endpoint
/// streams only with ([`crate::dialect::api::Api::stream_query`]: Gemini's
/// `alt=sse`): no prose, and the copy must still ask for a stream.
fn is_stream_switch(name: &str, value: &str) -> bool {
    crate::dialect::ALL
        .iter()
        .any(|d| d.api().stream_query() == Some((name, value)))
}

/// Whether a JSON string literal's content reads as prose: a space, and
/// letters.
fn is_prose(lit: &str) -> bool {
    lit.contains(' ') && lit.chars().filter(|c| c.is_alphabetic()).count() >= 2
}

/// The character mapping of one run.
#[derive(Debug, Clone)]
pub struct Scrubber {
    lower: [u8; 26],
    upper: [u8; 26],
    digits: [u8; 10],
    /// Inner JSON state of each tool call's arguments, by the key
    /// `(choice, index)`, across fragments.
    args_state: HashMap<(u64, u64), ArgsState>,
    /// Scrub the letters and digits of arguments outside inner strings
    /// (`false` only for `minimize`'s probe, which looks for the text the
    /// permutation moves).
    unquoted: bool,
    /// Whether the body being scrubbed is plain text (neither SSE nor
    /// JSON); `None`: [`Scrubber::body`] tells from the body itself.
    plain_body: Option<bool>,
    /// Give each key of an object in tool-call arguments a placeholder of
    /// its own ([`key_placeholder`]): set for the flat scrubber, under
    /// which `city` and `unit` would both be `xxxx`, one key twice.
    distinct_keys: bool,
}

/// Whether `body` is plain text: no line is an SSE field line (`data:`,
/// `event:`, `id:`, `retry:`, a `:` comment) and it does not open as a
/// JSON document (an HTML error page, a proxy's text message).
pub fn is_plain_body(body: &[u8]) -> bool {
    is_plain_pieces([body])
}

/// As [`is_plain_body`], for a body given in pieces that end at line
/// ends.
pub fn is_plain_pieces<'a>(pieces: impl IntoIterator<Item = &'a [u8]>) -> bool {
    let mut scan = PlainScan::default();
    for p in pieces {
        if scan.piece(p) == Some(false) {
            return false;
        }
    }
    scan.finish()
}

/// [`is_plain_body`] a piece at a time: [`PlainScan::piece`] says `false`
/// as soon as a line shows the body is not plain text; [`PlainScan::finish`]
/// gives the answer for the whole body.
#[derive(Debug)]
pub struct PlainScan {
    /// No line but blank or `curl -v` ones yet.
    first: bool,
}

impl Default for PlainScan {
    fn default() -> Self {
        PlainScan { first: true }
    }
}

impl PlainScan {
    /// Reads the lines of `piece` (which ends at a line end, or the body's
    /// end); `Some(false)` once the body is known not to be plain.
    pub fn piece(&mut self, piece: &[u8]) -> Option<bool> {
        for l in piece.split(|b| *b == b'\n' || *b == b'\r') {
            let t = l.trim_ascii_start();
            if t.is_empty() || is_curl_v_line(l) {
                continue;
            }
            if self.first && (t.starts_with(b"{") || t.starts_with(b"[")) {
                return Some(false);
            }
            self.first = false;
            if [&b"data"[..], b"event", b"id", b"retry", b""]
                .iter()
                .any(|f| l.strip_prefix(*f).is_some_and(|r| r.starts_with(b":")))
            {
                return Some(false);
            }
        }
        None
    }

    /// Whether the body read is plain text.
    pub fn finish(&self) -> bool {
        !self.first
    }
}

/// Whether a data value is (a piece of) JSON: it opens as JSON
/// punctuation would, or parses (a number, `true`).
fn looks_json(v: &str) -> bool {
    let t = v.trim();
    t.is_empty()
        || t == "[DONE]"
        || t.starts_with(['{', '[', '"', '}', ']', ','])
        || serde_json::from_str::<Value>(t).is_ok()
}

/// The request keys whose string values stay: what names a thing or picks
/// an option rather than says something.
const REQUEST_KEEP: &[&str] = &[
    "model",
    "role",
    "type",
    "id",
    "call_id",
    "tool_call_id",
    "tool_use_id",
    "previous_response_id",
    "tool_choice",
    "status",
    "service_tier",
    "reasoning_effort",
    "effort",
    "verbosity",
    "truncation",
    "modalities",
    "voice",
    "format",
    "detail",
    "media_type",
    "encoding_format",
];

/// Where a tool call's arguments text stands, across fragments.
#[derive(Debug, Clone, Default)]
struct ArgsState {
    /// Inside an inner JSON string.
    in_str: bool,
    /// Just after an inner `\`.
    esc: bool,
    /// The letters met so far of the bare word outside strings (up to 5:
    /// enough to tell `true`, `false`, `null` from other words).
    word: [u8; 5],
    /// How many of `word` are set; 6 once the word is none of those.
    word_len: u8,
    /// The last character outside strings was a digit (an exponent's `e`
    /// follows).
    after_digit: bool,
    /// The inner arrays and objects open: for an object, how many keys
    /// it has had (`None` for an array).
    open: Vec<Option<u64>>,
    /// A string opened here is an object's key (after `{` or `,` in an
    /// object).
    key_next: bool,
    /// Inside a key: what is left to write of its number in its object
    /// ([`key_placeholder`]).
    key: Option<u64>,
}

/// The placeholder of character `c` (the flat scrubber's `x`, `X`, `0`,
/// `ß`, `中` or `😀`) at the next letter or digit of an object's key,
/// which carries the next digit of the key's number in its object, `n`
/// (divided by the digit's base as it is written): the first key reads
/// as the text would (`xxxx`), the second `yxxx`, the third `zxxx`, and
/// so on, so the keys of one object stay distinct however the fragments
/// cut them, and the same key in sibling objects stays the same. Other
/// characters (punctuation) stay.
fn key_placeholder(c: char, n: &mut u64) -> char {
    let (base, first, count) = match c {
        'x' => (26, 'a', 26),
        'X' => (26, 'A', 26),
        '0' => (10, '0', 10),
        'ß' => (26, 'а', 32),
        '中' => (26, '一', 26),
        '😀' => (26, '😁', 26),
        _ => return c,
    };
    let d = (*n % base) as u32;
    *n /= base;
    if d == 0 {
        return c;
    }
    let at = match c {
        'x' | 'X' => (c as u32 - first as u32 + d) % count,
        _ => (d - u32::from(!c.is_ascii())) % count,
    };
    char::from_u32(first as u32 + at).unwrap_or(c)
}

/// Whether `c` is punctuation or a space in Unicode's terms (general
/// category P or Z): scrubbing keeps it, as it keeps ASCII punctuation, so
/// only letters, digits and symbols turn into placeholders.
fn is_punctuation_or_space(c: char) -> bool {
    use unicode_general_category::{get_general_category, GeneralCategory as G};
    matches!(
        get_general_category(c),
        G::ConnectorPunctuation
            | G::DashPunctuation
            | G::OpenPunctuation
            | G::ClosePunctuation
            | G::InitialPunctuation
            | G::FinalPunctuation
            | G::OtherPunctuation
            | G::SpaceSeparator
            | G::LineSeparator
            | G::ParagraphSeparator
    )
}

/// The JSON literals whose letters stay in arguments.
const LITERALS: [&[u8]; 3] = [b"true", b"false", b"null"];

impl ArgsState {
    /// The placeholder of `c`, met outside inner strings: the letters of
    /// `true`, `false`, `null` and of an exponent stay, other letters
    /// become `x` (`X`), digits other than `0` become `1` (so a number
    /// stays a number, with or without its leading zero), the rest stays.
    fn unquoted(&mut self, c: char) -> char {
        let after_digit = std::mem::replace(&mut self.after_digit, c.is_ascii_digit());
        if !c.is_ascii_alphabetic() {
            self.word_len = 0;
            return match c {
                '1'..='9' => '1',
                c if c.is_ascii() || is_punctuation_or_space(c) => c,
                c => match c.len_utf8() {
                    2 => 'ß',
                    3 => '中',
                    _ => '😀',
                },
            };
        }
        if after_digit && self.word_len == 0 && (c == 'e' || c == 'E') {
            self.word_len = 6;
            return c;
        }
        let n = self.word_len as usize;
        if n < 5 {
            self.word[n] = c as u8;
            let w = &self.word[..=n];
            if LITERALS.iter().any(|l| l.starts_with(w)) {
                self.word_len += 1;
                return c;
            }
        }
        self.word_len = 6;
        if c.is_ascii_uppercase() {
            'X'
        } else {
            'x'
        }
    }
}

fn permutation<const N: usize>(seed: &mut u64) -> [u8; N] {
    let mut p: [u8; N] = std::array::from_fn(|i| i as u8);
    for i in (1..N).rev() {
        // xorshift64*
        *seed ^= *seed >> 12;
        *seed ^= *seed << 25;
        *seed ^= *seed >> 27;
        let r = seed.wrapping_mul(0x2545_F491_4F6C_DD1D);
        let j = (r % (i as u64 + 1)) as usize;
        p.swap(i, j);
    }
    p
}

impl Scrubber {
    /// A scrubber with a permutation drawn from `seed`.
    pub fn new(seed: u64) -> Self {
        let mut s = seed | 1;
        Scrubber {
            lower: permutation::<26>(&mut s),
            upper: permutation::<26>(&mut s),
            digits: permutation::<10>(&mut s),
            args_state: HashMap::new(),
            unquoted: true,
            plain_body: None,
            distinct_keys: false,
        }
    }

    /// The flat scrubber: every letter becomes `x` (`X`) and every digit
    /// `0`, so nothing of the text is left but its length, spacing and
    /// punctuation. Equal texts stay equal but so do texts that differ
    /// only by letters; `redact --scrub-text` and `minimize` use it unless
    /// a finding needs the letter patterns the permutation keeps.
    pub fn flat() -> Self {
        let x = b'x' - b'a';
        Self {
            distinct_keys: true,
            ..Self::with_tables([x; 26], [x; 26], [0; 10])
        }
    }

    /// A scrubber with the given maps: letter `c` becomes
    /// `'a' + lower[c - 'a']` (and so on for upper case and digits). Each
    /// table must be a permutation for the text relations to survive;
    /// `minimize` uses it for a mapping that is its own fixed point.
    pub fn with_tables(lower: [u8; 26], upper: [u8; 26], digits: [u8; 10]) -> Self {
        let clamp = |t: &mut [u8], n: u8| t.iter_mut().for_each(|x| *x %= n);
        let (mut lower, mut upper, mut digits) = (lower, upper, digits);
        clamp(&mut lower, 26);
        clamp(&mut upper, 26);
        clamp(&mut digits, 10);
        Scrubber {
            lower,
            upper,
            digits,
            args_state: HashMap::new(),
            unquoted: true,
            plain_body: None,
            distinct_keys: false,
        }
    }

    /// This scrubber, leaving the letters and digits of tool-call
    /// arguments outside inner strings as they are (`minimize` finds the
    /// text with it; those characters have fixed placeholders).
    pub fn keeping_unquoted(mut self) -> Self {
        self.unquoted = false;
        self
    }

    /// A scrubber seeded from the clock and the process (a new mapping per
    /// run, so the placeholders cannot be reversed from another capture).
    pub fn random() -> Self {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        Self::new(t ^ (u64::from(std::process::id()) << 32))
    }

    /// One character's placeholder (same UTF-8 length).
    pub fn char(&self, c: char) -> char {
        match c {
            'a'..='z' => (b'a' + self.lower[(c as u8 - b'a') as usize]) as char,
            'A'..='Z' => (b'A' + self.upper[(c as u8 - b'A') as usize]) as char,
            '0'..='9' => (b'0' + self.digits[(c as u8 - b'0') as usize]) as char,
            c if c.is_ascii() => c,
            // A byte-order mark says nothing and `bom` reads it: kept, so
            // the copy keeps its findings (a fresh-user trial saw it turn
            // into 中, and the copy lose its `bom` error).
            '\u{feff}' => c,
            // A stand-in for an invalid byte (see `held_bytes`).
            c if (HELD_BYTE..HELD_BYTE + 0x100).contains(&u32::from(c)) => c,
            // Punctuation and spaces stay, as ASCII's do ("—", "“", "。").
            c if is_punctuation_or_space(c) => c,
            c => match c.len_utf8() {
                2 => 'ß',
                3 => '中',
                _ => '😀',
            },
        }
    }

    /// Scrubs the values of `name=value&…` (a URL's query, or a form body
    /// when `plus_is_space`), keeping the names and the separators; a value
    /// is percent-decoded, scrubbed and encoded again, so prose written as
    /// `%XX` escapes goes too.
    pub fn form(&self, query: &str, plus_is_space: bool) -> String {
        query
            .split('&')
            .map(|kv| match kv.split_once('=') {
                Some((k, v)) if is_stream_switch(k, v) => format!("{k}={v}"),
                Some((k, v)) => {
                    let v = if plus_is_space {
                        v.replace('+', " ")
                    } else {
                        v.to_string()
                    };
                    let v = capture::percent_decoded(&v);
                    let kept = v
                        .split(REDACTED)
                        .map(|p| capture::percent_encoded(&self.text(p)));
                    format!("{k}={}", kept.collect::<Vec<_>>().join(REDACTED))
                }
                None => kv.to_string(),
            })
            .collect::<Vec<_>>()
            .join("&")
    }

    /// Scrubs the prose a HAR entry holds outside its bodies: its comments,
    /// the values of its URL's query and `queryString`, and a form body's
    /// `params` (HAR 1.2: `entries[].comment`, `request.queryString`,
    /// `request.postData.params`). Names, hosts and paths stay.
    fn har_prose(&self, e: &mut Value) {
        for at in ["/comment", "/request/comment", "/response/comment"] {
            if let Some(Value::String(c)) = e.pointer_mut(at) {
                *c = self.text(c);
            }
        }
        if let Some(Value::String(u)) = e.pointer_mut("/request/url") {
            if let Some((base, rest)) = u.split_once('?') {
                let (query, frag) = match rest.split_once('#') {
                    Some((q, f)) => (q, Some(f)),
                    None => (rest, None),
                };
                let mut url = format!("{base}?{}", self.form(query, false));
                if let Some(f) = frag {
                    url.push('#');
                    url.push_str(&self.text(f));
                }
                *u = url;
            }
        }
        for at in ["/request/queryString", "/request/postData/params"] {
            for p in e
                .pointer_mut(at)
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten()
            {
                let name = p.get("name").and_then(Value::as_str).unwrap_or("");
                let switch =
                    matches!(p.get("value"), Some(Value::String(v)) if is_stream_switch(name, v));
                if let Some(Value::String(v)) = p.get_mut("value").filter(|_| !switch) {
                    *v = self.text(v);
                }
            }
        }
    }

    /// Scrubs the prose of a HAR's log outside its entries: `log.comment`,
    /// and each page's `title` (a chat app names the tab after the
    /// conversation) and `comment`.
    fn har_log_prose(&self, doc: &mut Value) {
        if let Some(Value::String(c)) = doc.pointer_mut("/log/comment") {
            *c = self.text(c);
        }
        for p in doc
            .pointer_mut("/log/pages")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            for k in ["title", "comment"] {
                if let Some(Value::String(t)) = p.get_mut(k) {
                    *t = self.text(t);
                }
            }
        }
    }

    /// Scrubs plain text.
    pub fn text(&self, s: &str) -> String {
        // What was masked already stays recognisable.
        s.split(REDACTED)
            .map(|part| part.chars().map(|c| self.char(c)).collect::<String>())
            .collect::<Vec<_>>()
            .join(REDACTED)
    }

    /// Scrubs the *content* of a JSON string literal as it appears in JSON
    /// text (escapes kept, BMP `\uXXXX` letters replaced by `\u2022`),
    /// byte for byte the same length.
    fn literal(&self, lit: &str, out: &mut String) {
        // What was masked already stays recognisable.
        if let Some((before, after)) = lit.split_once(REDACTED) {
            self.literal(before, out);
            out.push_str(REDACTED);
            self.literal(after, out);
            return;
        }
        let mut it = lit.chars().peekable();
        while let Some(c) = it.next() {
            if c != '\\' {
                out.push(self.char(c));
                continue;
            }
            match it.next() {
                Some('u') => {
                    let hex: String = std::iter::from_fn(|| it.next_if(char::is_ascii_hexdigit))
                        .take(4)
                        .collect();
                    let surrogate = hex.len() == 4
                        && u16::from_str_radix(&hex, 16)
                            .is_ok_and(|u| (0xD800..0xE000).contains(&u));
                    if hex.len() == 4 && !surrogate {
                        out.push_str("\\u2022");
                    } else {
                        out.push_str("\\u");
                        out.push_str(&hex);
                    }
                }
                Some(n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => out.push('\\'),
            }
        }
    }

    /// Scrubs tool-call arguments (JSON text carried in a JSON string,
    /// split over fragments): the characters inside inner strings through
    /// the permutation, the bare words and numbers outside them as
    /// [`ArgsState::unquoted`] says (arguments that are not JSON, such as
    /// `{'city': 'Lyon'}`, are text too), keeping the inner structure and
    /// the literals so the assembled arguments stay as valid (or invalid)
    /// JSON as they were.
    fn arguments(&mut self, key: (u64, u64), lit: &str, out: &mut String) {
        let mut st = self.args_state.remove(&key).unwrap_or_default();
        let mut it = lit.chars().peekable();
        while let Some(c) = it.next() {
            // An outer escape stands for one inner character; copy it as it
            // is and track what it stands for.
            let inner = if c == '\\' {
                out.push('\\');
                match it.next() {
                    Some('u') => {
                        out.push('u');
                        for h in std::iter::from_fn(|| it.next_if(char::is_ascii_hexdigit)).take(4)
                        {
                            out.push(h);
                        }
                        'x'
                    }
                    Some(n) => {
                        out.push(n);
                        match n {
                            '"' => '"',
                            '\\' => '\\',
                            _ => ' ',
                        }
                    }
                    None => 'x',
                }
            } else {
                if st.in_str && !st.esc && c != '"' {
                    let p = self.char(c);
                    out.push(match st.key.as_mut() {
                        Some(n) if self.distinct_keys => key_placeholder(p, n),
                        _ => p,
                    });
                } else if !st.in_str && c != '"' && self.unquoted {
                    out.push(st.unquoted(c));
                } else {
                    out.push(c);
                }
                c
            };
            if !st.in_str && c == '\\' {
                st.word_len = 0;
                st.after_digit = false;
            }
            if st.esc {
                st.esc = false;
            } else if inner == '\\' && st.in_str {
                st.esc = true;
            } else if inner == '"' {
                st.in_str = !st.in_str;
                st.word_len = 0;
                st.after_digit = false;
                st.key = None;
                if st.in_str && std::mem::take(&mut st.key_next) {
                    // A key: its number in its object.
                    if let Some(Some(n)) = st.open.last_mut() {
                        st.key = Some(*n);
                        *n += 1;
                    }
                }
            } else if !st.in_str && !inner.is_whitespace() {
                match inner {
                    '{' => st.open.push(Some(0)),
                    '[' => st.open.push(None),
                    '}' | ']' => {
                        st.open.pop();
                    }
                    _ => {}
                }
                st.key_next = matches!(inner, '{' | ',') && matches!(st.open.last(), Some(Some(_)));
            }
        }
        self.args_state.insert(key, st);
    }

    /// Scrubs one event's data line value (JSON text): the literals after
    /// the keys the dialects say hold text (`content`, `text`, `input`, …;
    /// a string in an array after the array's key), the strings inside
    /// `arguments`, and prose under any key that names no thing. A value that is not JSON
    /// (`The capital`, `Internal Server Error: …`) is scrubbed flat (every
    /// letter `x`, every digit `0`), but `[DONE]`.
    pub fn data_value(&mut self, v: &str) -> String {
        if !looks_json(v) {
            return Scrubber::flat().text(v);
        }
        // What holds text is each dialect's knowledge
        // (`crate::dialect::words`): a data line's dialect is not known
        // here, so the keys of every dialect count. A `delta` that is a
        // Responses arguments event's is JSON text.
        let args_delta = v.contains("_arguments.delta\"");
        let is_args = |k: &str| in_any(k, |w| w.json_text_keys) || (k == "delta" && args_delta);
        let b = v.as_bytes();
        let mut out = String::with_capacity(v.len());
        let mut i = 0;
        let mut last_key: Option<String> = None;
        // The keys of the open arrays and objects (`None`: no key, or an
        // object): a string in an array belongs to the array's key.
        let mut open: Vec<(bool, Option<String>)> = Vec::new();
        // For each open container, whether it is the value of one of the
        // keys whose every string is text ([`Words::text_objects`]).
        let mut text_object: Vec<bool> = Vec::new();
        let mut choice: u64 = 0;
        let mut tool: u64 = 0;
        // The last scrubbed `token`, for the `bytes` array after it.
        let mut token: Option<String> = None;
        while i < b.len() {
            if b[i] != b'"' {
                // Outside strings: copy through to the next quote.
                let next = memchr::memchr(b'"', &b[i..]).map_or(b.len(), |n| i + n);
                let seg = &v[i..next];
                let bytes_of = token
                    .as_ref()
                    .filter(|_| last_key.as_deref() == Some("bytes"));
                match (bytes_of, seg.find('['), seg.find(']')) {
                    (Some(t), Some(a), Some(z)) if a < z && seg[..a].trim() == ":" => {
                        let list: Vec<String> = t.bytes().map(|b| b.to_string()).collect();
                        out.push_str(&seg[..=a]);
                        out.push_str(&list.join(","));
                        out.push_str(&seg[z..]);
                    }
                    _ => out.push_str(seg),
                }
                for (at, c) in seg.bytes().enumerate() {
                    // Whether this container is the value of the key just
                    // before it (`"args": {`), not a later one (`}, {`).
                    let of_key = || {
                        seg[..at].trim() == ":"
                            && last_key
                                .as_deref()
                                .is_some_and(|k| in_any(k, |w| w.text_objects))
                    };
                    match c {
                        b'[' => {
                            text_object.push(of_key());
                            open.push((true, last_key.clone()));
                        }
                        b'{' => {
                            text_object.push(of_key());
                            open.push((false, last_key.clone()));
                        }
                        b']' | b'}' => {
                            open.pop();
                            text_object.pop();
                        }
                        _ => {}
                    }
                }
                i = next;
                continue;
            }
            // A string literal: find its end.
            let start = i + 1;
            let mut j = start;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let end = v.ceil_char_boundary(j);
            let lit = &v[start..end];
            let after = v[end.min(v.len())..].trim_start_matches('"').trim_start();
            let is_key = after.starts_with(':');
            out.push('"');
            // A string's key: its own, or its array's.
            let key = last_key.clone().or_else(|| match open.last() {
                Some((true, k)) => k.clone(),
                _ => None,
            });
            match (&key, is_key) {
                (Some(k), false) if is_args(k) => self.arguments((choice, tool), lit, &mut out),
                (Some(k), false) if k == "token" => {
                    let at = out.len();
                    self.literal(lit, &mut out);
                    token = serde_json::from_str::<String>(&format!("\"{}\"", &out[at..])).ok();
                }
                (Some(k), false) if in_any(k, |w| w.text_keys) => self.literal(lit, &mut out),
                // Inside an object whose every string is text (a Gemini
                // function call's `args`): all but the identifiers.
                (k, false)
                    if text_object.contains(&true)
                        && !k.as_deref().is_some_and(|k| in_any(k, |w| w.identifiers)) =>
                {
                    self.literal(lit, &mut out)
                }
                // Prose in a field no dialect says holds text (a gateway's
                // routing note, a bare error string, a date): words with a
                // space between them, under a key that names no thing.
                (k, false)
                    if is_prose(lit)
                        && !k.as_deref().is_some_and(|k| in_any(k, |w| w.identifiers)) =>
                {
                    self.literal(lit, &mut out)
                }
                _ => out.push_str(lit),
            }
            if end < b.len() {
                out.push('"');
            }
            if is_key {
                last_key = Some(lit.to_string());
                if lit == "output_index" {
                    // Responses: each output item is a tool call's own
                    // stream of argument fragments.
                    let num: String = after[1..]
                        .trim_start()
                        .chars()
                        .take_while(char::is_ascii_digit)
                        .collect();
                    if let Ok(n) = num.parse::<u64>() {
                        choice = n;
                    }
                } else if lit == "index" {
                    // The next number is a choice or tool index.
                    let num: String = after[1..]
                        .trim_start()
                        .chars()
                        .take_while(char::is_ascii_digit)
                        .collect();
                    if let Ok(n) = num.parse::<u64>() {
                        if v[..i].contains("\"tool_calls\"")
                            && v[..i].rfind("\"tool_calls\"") > v[..i].rfind("\"delta\"")
                        {
                            tool = n;
                        } else {
                            choice = n;
                        }
                    }
                }
            } else {
                last_key = None;
            }
            i = end + 1;
        }
        out
    }

    /// Scrubs an SSE body: only the values of `data` lines change, every
    /// other byte (terminators, comments, other fields, invalid UTF-8
    /// lines) stays. A body that is neither SSE nor JSON
    /// ([`is_plain_body`]) is scrubbed flat, line by line.
    pub fn body(&mut self, body: &[u8]) -> Vec<u8> {
        let set = self.plain_body.is_none();
        if set {
            self.plain_body = Some(is_plain_body(body));
        }
        let mut out = Vec::with_capacity(body.len());
        self.body_lines(body, &mut out);
        if set {
            self.plain_body = None;
        }
        out
    }

    /// This scrubber, taking the body it scrubs as plain text or not
    /// (`minimize` scrubs a body piece by piece and tells from the whole).
    pub fn with_plain_body(mut self, plain: bool) -> Self {
        self.plain_body = Some(plain);
        self
    }

    /// Scrubs the lines of `body` into `out` ([`Scrubber::body`] once it
    /// knows whether the body is plain text).
    fn body_lines(&mut self, body: &[u8], out: &mut Vec<u8>) {
        let mut rest = body;
        while !rest.is_empty() {
            let end = memchr::memchr2(b'\n', b'\r', rest).unwrap_or(rest.len());
            let (line, tail) = rest.split_at(end);
            if std::str::from_utf8(line).is_err() {
                // Scrubbed around its invalid bytes, which stay as they are.
                if let Some(held) = held_bytes(line, |t| self.body(t.as_bytes())) {
                    out.extend_from_slice(&held);
                } else {
                    out.extend_from_slice(line);
                }
            } else {
                self.line(line, out);
            }
            // Copy the terminator(s) as they are.
            let term = tail
                .iter()
                .take_while(|b| **b == b'\n' || **b == b'\r')
                .count()
                .min(1);
            let term = if tail.starts_with(b"\r\n") { 2 } else { term };
            out.extend_from_slice(&tail[..term]);
            rest = &tail[term..];
        }
    }

    /// Scrubs one line of a body (valid UTF-8, no terminator) into `out`.
    fn line(&mut self, line: &[u8], out: &mut Vec<u8>) {
        // A byte-order mark before the first field: kept, and the line
        // after it read as any other.
        if let Some(rest) = line.strip_prefix("\u{feff}".as_bytes()) {
            out.extend_from_slice("\u{feff}".as_bytes());
            return self.line(rest, out);
        }
        match (line.strip_prefix(b"data:"), std::str::from_utf8(line)) {
            (Some(v), Ok(_)) => {
                out.extend_from_slice(b"data:");
                let (space, val) = match v.strip_prefix(b" ") {
                    Some(x) => (&b" "[..], x),
                    None => (&b""[..], v),
                };
                out.extend_from_slice(space);
                let val = std::str::from_utf8(val).unwrap_or("");
                out.extend_from_slice(self.data_value(val).as_bytes());
            }
            // A body that is not SSE (a JSON document, pretty-printed
            // or not): its lines scan the same way.
            (None, Ok(t)) if t.trim_start().starts_with(['{', '[', '"', '}', ']']) => {
                out.extend_from_slice(self.data_value(t).as_bytes());
            }
            // A field name alone (a field with an empty value, or a
            // capture cut right after the name) says nothing and frames
            // the stream: kept.
            (None, Ok("data" | "event" | "id" | "retry")) => out.extend_from_slice(line),
            (None, Ok(t)) if self.plain_body == Some(true) && !is_curl_v_line(line) => {
                out.extend_from_slice(Scrubber::flat().text(t).as_bytes());
            }
            _ => out.extend_from_slice(line),
        }
    }

    /// Scrubs the text of a request body: every string value (messages,
    /// tool-call arguments, tool and schema descriptions, `metadata`,
    /// `user`, a message's `name`, image data URLs, `prediction`, stop
    /// sequences) but the ones that name a thing rather than say something
    /// ([`REQUEST_KEEP`]: `model`, `role`, `type`, ids, enumerated
    /// options; and each dialect's [`Words::request_options`]) and tool names (`name` under `tools`, `functions`,
    /// `tool_choice`, `tool_calls`, `function_call`, and a declared tool's
    /// name wherever the request repeats it: a `name` or a list of names,
    /// as a past call or its result in the conversation, or the functions
    /// a request allows, so that it reads as the response's call does);
    /// `stream_options` stays whole. The rules read no string of the
    /// request (see [`crate::model::RequestOptions`]).
    pub fn request(&self, body: &mut Value) {
        let mut declared = BTreeSet::new();
        tool_names(body, None, false, &mut declared);
        self.request_value(body, None, false, &declared);
    }

    fn request_value(
        &self,
        v: &mut Value,
        key: Option<&str>,
        tool: bool,
        declared: &BTreeSet<String>,
    ) {
        match v {
            Value::String(s) => {
                let keep = key.is_some_and(|k| {
                    REQUEST_KEEP.contains(&k)
                        || in_any(k, |w| w.request_options)
                        || (tool && k == "name")
                        || (names_key(k) && declared.contains(s.as_str()))
                });
                if !keep && s != REDACTED {
                    *s = self.text(s);
                }
            }
            Value::Array(items) => {
                for x in items {
                    self.request_value(x, key, tool, declared);
                }
            }
            Value::Object(m) => {
                for (k, x) in m.iter_mut() {
                    if k == "stream_options" {
                        continue;
                    }
                    let tool = tool || TOOL_KEYS.contains(&k.as_str());
                    self.request_value(x, Some(k), tool, declared);
                }
            }
            _ => {}
        }
    }
}

/// The request keys under which a `name` is a tool's.
const TOOL_KEYS: &[&str] = &[
    "tools",
    "functions",
    "tool_choice",
    "tool_calls",
    "function_call",
];

/// Whether a request's string under `key` can be a tool's name: a `name`,
/// or one of a list of names (`allowedFunctionNames`,
/// `allowed_function_names`).
fn names_key(key: &str) -> bool {
    key == "name" || key.to_ascii_lowercase().ends_with("names")
}

/// The tools a request declares: every `name` under [`TOOL_KEYS`].
fn tool_names(v: &Value, key: Option<&str>, tool: bool, out: &mut BTreeSet<String>) {
    match v {
        Value::String(s) if tool && key == Some("name") => {
            out.insert(s.clone());
        }
        Value::Array(items) => {
            for x in items {
                tool_names(x, key, tool, out);
            }
        }
        Value::Object(m) => {
            for (k, x) in m {
                let tool = tool || TOOL_KEYS.contains(&k.as_str());
                tool_names(x, Some(k), tool, out);
            }
        }
        _ => {}
    }
}

/// The binary transport `body` is framed by ([`Transport::is_binary`]:
/// its first message's framing holds), if any.
///
/// [`Transport::is_binary`]: crate::transport::Transport::is_binary
pub fn binary_transport(body: &[u8]) -> Option<crate::transport::Transport> {
    crate::transport::Transport::of_bytes(body).filter(|t| t.is_binary())
}

/// Whether `body` is binary frames (AWS event-stream: its first prelude
/// holds), which are redacted frame by frame ([`event_stream`]).
pub fn is_event_stream(body: &[u8]) -> bool {
    binary_transport(body).is_some()
}

/// A redacted copy of a body of binary frames ([`binary_transport`]; AWS
/// event-stream): each frame's payload has its keys
/// masked ([`capture::redact_keys`]) and, with a scrubber, its text
/// scrubbed ([`Scrubber::data_value`]); where a dialect riding on the
/// transport carries its text inside an encoding of its own
/// ([`crate::dialect::Api::rewrap`]), that text is. Frames keep their
/// headers and get their framing written anew
/// ([`crate::transport::Transport::rewrite`]), so the copy reads as the
/// original did, faults included. A payload that is not UTF-8 is kept as
/// it is (a key is text). A body of no binary transport is refused.
///
/// # Errors
/// A frame whose prelude cannot be read: what follows it cannot be told
/// apart, so no copy is made.
pub fn event_stream(body: &[u8], scrub: Option<&mut Scrubber>) -> Result<Vec<u8>, String> {
    match binary_transport(body) {
        Some(t) => frames(t, body, scrub),
        None => Err("the body does not start with a frame whose prelude holds".to_string()),
    }
}

/// [`event_stream`] on `body` framed by transport `t`, which may be any
/// run of its frames (a last one cut short, or shorter than a prelude, is
/// kept as far as it came); a text transport's body is refused.
///
/// # Errors
/// As [`event_stream`].
pub fn frames(
    t: crate::transport::Transport,
    body: &[u8],
    scrub: Option<&mut Scrubber>,
) -> Result<Vec<u8>, String> {
    let rewritten = t.rewrite(body, payload_copy(t, scrub));
    rewritten.unwrap_or_else(|| Err("the body is not of a binary transport".to_string()))
}

/// [`frames`] from a reader to a writer, a frame at a time (memory holds
/// one frame): the same bytes.
///
/// # Errors
/// Reading or writing (the outer error); a frame whose prelude cannot be
/// read, or a text transport (the inner one), after the frames before it
/// were written (write to a file that is kept only whole).
pub fn frames_to(
    t: crate::transport::Transport,
    input: &mut dyn std::io::Read,
    out: &mut dyn std::io::Write,
    scrub: Option<&mut Scrubber>,
) -> std::io::Result<Result<(), String>> {
    t.rewrite_to(input, out, payload_copy(t, scrub))
        .unwrap_or_else(|| Ok(Err("the body is not of a binary transport".to_string())))
}

/// What a frame's payload becomes in a copy ([`frames`]): keys masked,
/// text scrubbed (inside a dialect's own encoding where one riding on
/// `t` has it: [`crate::dialect::Api::rewrap`]); not UTF-8, as it is.
fn payload_copy<'s>(
    t: crate::transport::Transport,
    mut scrub: Option<&'s mut Scrubber>,
) -> impl FnMut(&[u8]) -> Vec<u8> + 's {
    let dialects = crate::dialect::riding_on(t);
    move |payload| {
        let Ok(p) = std::str::from_utf8(payload) else {
            return payload.to_vec();
        };
        let mut text = |t: &str| match scrub.as_deref_mut() {
            Some(s) => s.data_value(&capture::redact_keys(t)),
            None => capture::redact_keys(t),
        };
        dialects
            .iter()
            .find_map(|d| d.api().rewrap(p, &mut text))
            .unwrap_or_else(|| text(p))
            .into_bytes()
    }
}

/// Whether `dump` (a file's first bytes) is a `curl -i` dump whose body,
/// after its header blocks, starts with a binary frame ([`binary_transport`]:
/// `curl -i -o FILE` of a Bedrock stream).
pub fn curl_i_of_frames(dump: &[u8]) -> bool {
    curl_i_body_start(dump, false)
        .filter(|at| *at > 0)
        .is_some_and(|at| is_event_stream(&dump[at..]))
}

/// A redacted copy of a `curl -i` dump whose body is binary frames
/// ([`curl_i_of_frames`]): its header blocks line by line as [`raw`]
/// masks them (kept as they are by a scrubber, as in any `curl -i`
/// dump), its body frame by frame as [`event_stream`] rewrites it.
///
/// # Errors
/// The body after the headers does not start with a frame (`curl --raw`
/// left the chunked framing in), or a frame's prelude cannot be read.
pub fn curl_i_frames(dump: &[u8], scrub: Option<&mut Scrubber>) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let done = curl_i_frames_to(&mut std::io::Cursor::new(dump), &mut out, scrub);
    done.unwrap_or_else(|e| Err(e.to_string()))?;
    Ok(out)
}

/// [`curl_i_frames`] from a reader to a writer: the header blocks (in the
/// first 64 KiB), then the body a frame at a time ([`frames_to`]).
///
/// # Errors
/// As [`frames_to`], and the inner error of [`curl_i_frames`].
pub fn curl_i_frames_to(
    input: &mut dyn std::io::Read,
    out: &mut dyn std::io::Write,
    scrub: Option<&mut Scrubber>,
) -> std::io::Result<Result<(), String>> {
    let mut head = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(&mut *input, capture::SNIFF_BYTES as u64),
        &mut head,
    )?;
    let at = curl_i_body_start(&head, false).unwrap_or(0);
    let Some(t) = binary_transport(&head[at..]).filter(|_| at > 0) else {
        return Ok(Err("the body after the curl -i headers does not start with a whole frame (a `curl --raw` dump keeps the chunked framing between them, which redact does not rewrite)".to_string()));
    };
    out.write_all(&mask_lines(&head[..at]))?;
    let mut body = std::io::Read::chain(&head[at..], input);
    frames_to(t, &mut body, out, scrub)
}

/// A redacted copy of a raw body or a curl dump: secret headers, `Bearer`
/// tokens and `sk-` keys on every line; with a scrubber, the text of every
/// `data` line too. Line terminators and invalid UTF-8 stay as they are.
/// [`raw_to`] does the same from a reader to a writer.
pub fn raw(bytes: &[u8], scrub: Option<&mut Scrubber>) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let done = raw_to(&mut std::io::Cursor::new(bytes), &mut out, scrub);
    debug_assert!(done.is_ok(), "reading and writing memory cannot fail");
    out
}

/// [`raw`] as a stream: reads `input` a line at a time and writes the copy
/// to `out` as it goes, so memory holds a line, not the capture (with a
/// scrubber, also a `curl -i` dump's header blocks, and the body's first
/// lines until one shows it is not plain text: all of a plain-text body).
///
/// # Errors
/// Reading `input` or writing `out`.
pub fn raw_to(
    input: &mut impl std::io::BufRead,
    out: &mut (impl std::io::Write + ?Sized),
    scrub: Option<&mut Scrubber>,
) -> std::io::Result<()> {
    masked_to(input, out, scrub, true)
}

/// [`raw_to`]; a `curl -i` dump's header blocks are kept as they are only
/// when `curl_head` (a HAR's body has none: it is scrubbed as
/// [`Scrubber::body`] scrubs it).
fn masked_to(
    input: &mut impl std::io::BufRead,
    out: &mut (impl std::io::Write + ?Sized),
    scrub: Option<&mut Scrubber>,
    curl_head: bool,
) -> std::io::Result<()> {
    // Keys and secret pairs are masked first, so that the scrubber, which
    // leaves `[REDACTED]` as it is, never turns a key into a look-alike
    // (a fresh-user trial: the letter-keeping mode mapped `sk-proj-…` to
    // `fo-qhje-…` with the same mapping as the prose around it).
    let mut piece = Vec::new();
    let mut masked = Vec::new();
    let mut next = |masked: &mut Vec<u8>| -> std::io::Result<bool> {
        piece.clear();
        masked.clear();
        if input.read_until(b'\n', &mut piece)? == 0 {
            return Ok(false);
        }
        mask_piece(&piece, masked);
        Ok(true)
    };
    let Some(s) = scrub else {
        while next(&mut masked)? {
            out.write_all(&masked)?;
        }
        return Ok(());
    };
    // A `curl -i` dump: its header blocks stay as they are.
    let mut held = Vec::new();
    let mut more = true;
    let at = loop {
        if !curl_head {
            break 0;
        }
        if let Some(at) = curl_i_body_start(&held, !more) {
            break at;
        }
        more = next(&mut masked)?;
        held.extend_from_slice(&masked);
    };
    out.write_all(&held[..at])?;
    held.drain(..at);
    // The body's lines are held until one shows whether it is plain text.
    let given = s.plain_body;
    let plain = match given {
        Some(p) => p,
        None => {
            let mut scan = PlainScan::default();
            let mut decided = scan.piece(&held);
            while decided.is_none() && more {
                more = next(&mut masked)?;
                held.extend_from_slice(&masked);
                decided = scan.piece(&masked);
            }
            decided.unwrap_or(scan.finish())
        }
    };
    s.plain_body = Some(plain);
    let result = (|| {
        let mut lines = Vec::new();
        s.body_lines(&held, &mut lines);
        out.write_all(&lines)?;
        while more && next(&mut masked)? {
            lines.clear();
            s.body_lines(&masked, &mut lines);
            out.write_all(&lines)?;
        }
        Ok(())
    })();
    s.plain_body = given;
    result
}

/// Every line of `bytes` with its keys and secret `NAME: value` pairs
/// masked ([`mask_piece`]).
fn mask_lines(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for piece in bytes.split_inclusive(|b| *b == b'\n') {
        mask_piece(piece, &mut out);
    }
    out
}

/// One line of a capture (up to and with its LF) with its keys and secret
/// `NAME: value` pairs masked ([`capture::redact_line`]), appended to
/// `out`; invalid UTF-8 stays as it is.
fn mask_piece(piece: &[u8], out: &mut Vec<u8>) {
    match std::str::from_utf8(piece) {
        Ok(text) => {
            let (line, end) = match text.find(['\r', '\n']) {
                Some(i) => text.split_at(i),
                None => (text, ""),
            };
            out.extend_from_slice(capture::redact_line(line).as_bytes());
            out.extend_from_slice(end.as_bytes());
        }
        // Masked around its invalid bytes, which stay as they are.
        Err(_) => match held_bytes(piece, |t| capture::redact_line(t).into_bytes()) {
            Some(held) => out.extend_from_slice(&held),
            None => out.extend_from_slice(piece),
        },
    }
}

/// Where the body of a `curl -i` dump starts: after its header blocks
/// (`HTTP/…` status line to blank line, an interim `100 Continue` block
/// included); 0 for anything else. `bytes` is the dump's start, whole
/// lines; `None` while more of it is needed to tell (`all`: it is the
/// whole dump).
fn curl_i_body_start(bytes: &[u8], all: bool) -> Option<usize> {
    let mut at = 0;
    loop {
        let rest = &bytes[at..];
        if !rest.starts_with(b"HTTP/") {
            let maybe = rest.len() < 5 && b"HTTP/".starts_with(rest);
            return (all || !maybe).then_some(at);
        }
        let end = [&b"\r\n\r\n"[..], b"\n\n"]
            .iter()
            .filter_map(|sep| memchr::memmem::find(rest, sep).map(|i| i + sep.len()))
            .min();
        match end {
            Some(e) => at += e,
            None => return all.then_some(bytes.len()),
        }
    }
}

/// Whether a line is one of `curl -v`'s own (`* `, `> `, `< `, `{ [`,
/// `} [`), which text scrubbing leaves alone.
fn is_curl_v_line(l: &[u8]) -> bool {
    let l = l.strip_suffix(b"\r").unwrap_or(l);
    [&b"* "[..], b"> ", b"< ", b"{ [", b"} ["]
        .iter()
        .any(|p| l.starts_with(p))
        || l == b"<"
        || l == b">"
}

/// First of the code points that stand for one invalid byte each while a
/// line with invalid UTF-8 is scrubbed (Supplementary Private Use Area-A:
/// U+F0000 + the byte's value; not letters or digits, so nothing changes
/// them).
const HELD_BYTE: u32 = 0xF0000;

/// Runs `f` on `line` with each byte of its invalid UTF-8 replaced by a
/// stand-in code point, and puts the original bytes back into what `f`
/// returns. `None` when the line already holds a stand-in code point (it
/// could not be told apart from one of ours): the caller keeps the line.
fn held_bytes(line: &[u8], f: impl FnOnce(&str) -> Vec<u8>) -> Option<Vec<u8>> {
    let is_held = |c: char| (HELD_BYTE..HELD_BYTE + 0x100).contains(&u32::from(c));
    let mut text = String::with_capacity(line.len() + 8);
    for chunk in line.utf8_chunks() {
        if chunk.valid().chars().any(is_held) {
            return None;
        }
        text.push_str(chunk.valid());
        for b in chunk.invalid() {
            text.push(char::from_u32(HELD_BYTE + u32::from(*b))?);
        }
    }
    let done = f(&text);
    let done = String::from_utf8(done).ok()?;
    let mut out = Vec::with_capacity(done.len());
    for c in done.chars() {
        if is_held(c) {
            out.push((u32::from(c) - HELD_BYTE) as u8);
        } else {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
    Some(out)
}

fn redact_headers(hs: Option<&mut Value>) {
    for h in hs.and_then(Value::as_array_mut).into_iter().flatten() {
        let secret = h
            .get("name")
            .and_then(Value::as_str)
            .is_some_and(capture::is_secret_header);
        if secret {
            h["value"] = Value::String(REDACTED.to_string());
        } else if let Some(Value::String(v)) = h.get_mut("value") {
            // A URL in any other header (`:path`, `referer`, `location`)
            // carries the same `?key=` as the request's.
            *v = mask_url_and_keys(v);
        }
    }
}

/// `text` with the secret query values of any URL in it, and the key
/// shapes anywhere in it, masked.
fn mask_url_and_keys(text: &str) -> String {
    capture::redact_keys(&capture::redact_url(text))
}

/// Every string under `v` through [`mask_url_and_keys`]: the parts of a HAR
/// entry sselint does not read (`_initiator`, a browser's own fields).
fn mask_strings(v: &mut Value) {
    match v {
        Value::String(s) => *s = mask_url_and_keys(s),
        Value::Array(a) => a.iter_mut().for_each(mask_strings),
        Value::Object(o) => o.values_mut().for_each(mask_strings),
        _ => {}
    }
}

/// Why a HAR document could not be redacted ([`har`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HarError {
    /// Not a HAR: its `log.entries` is not an array.
    #[error("not a HAR file: `log.entries` is not an array")]
    NotHar,
    /// A response body stored compressed (its encoding's name) that does
    /// not decode whole, or decodes past `limit_mib` MiB
    /// ([`capture::decode::MAX_DECODED_BYTES`]): its copy could not be made
    /// safe.
    #[error("a response body stored {encoding}-compressed does not decode whole (or decodes past {limit_mib} MiB), so its keys and text cannot be masked; no copy written")]
    Undecodable {
        /// `gzip`, `deflate` or `br`.
        encoding: &'static str,
        /// The limit, in MiB.
        limit_mib: u64,
    },
    /// A body could not be kept aside while the document was redacted as
    /// a stream ([`har_to`]): reading or writing its temporary file failed
    /// (what the system said).
    #[error("{0}")]
    Aside(String),
    /// An AWS event-stream body whose frames cannot be rewritten
    /// ([`event_stream`]'s reason).
    #[error("{0}")]
    Frames(String),
    /// A body past the memory bound could not be kept in a temporary file.
    #[error(transparent)]
    Spool(#[from] capture::spool::SpoolError),
}

/// A redacted copy of a HAR document (see the module docs).
///
/// # Errors
/// Not a HAR (`log.entries` missing), or a compressed body that does not
/// decode whole ([`HarError`]).
pub fn har(doc: &mut Value, scrub: Option<&mut Scrubber>) -> Result<(), HarError> {
    har_with(doc, scrub, &mut InDocument)
}

/// Where each HAR entry's `response.content.text` is while the document
/// is redacted: in the entry ([`InDocument`]), or aside, decoded from the
/// file as it was read (`Aside`, [`har_to`]).
trait Bodies {
    /// Rewrites entry `i`'s text (and `content.size`) through `how`, as
    /// [`rewrite_response_text`] does.
    fn rewrite(&mut self, i: usize, entry: &mut Value, how: How<'_>) -> Result<(), HarError>;
}

/// How a response body is rewritten.
enum How<'a> {
    /// Keys and secret pairs masked ([`raw`]).
    Mask,
    /// Masked, then its text scrubbed ([`Scrubber::body`]).
    Scrub(&'a mut Scrubber),
}

impl How<'_> {
    /// A response body rewritten: AWS event-stream frames frame by frame
    /// ([`event_stream`]), any other body line by line ([`raw`], then
    /// [`Scrubber::body`]).
    fn body(self, b: &[u8]) -> Result<Vec<u8>, HarError> {
        match (is_event_stream(b), self) {
            (true, How::Mask) => event_stream(b, None).map_err(HarError::Frames),
            (true, How::Scrub(s)) => event_stream(b, Some(s)).map_err(HarError::Frames),
            (false, How::Mask) => Ok(raw(b, None)),
            (false, How::Scrub(s)) => Ok(s.body(&mask_lines(b))),
        }
    }
}

/// The texts are in the document.
struct InDocument;

impl Bodies for InDocument {
    fn rewrite(&mut self, _: usize, entry: &mut Value, how: How<'_>) -> Result<(), HarError> {
        rewrite_response_text(entry, |b| how.body(b))
    }
}

/// [`har`], the texts where `bodies` keeps them.
fn har_with(
    doc: &mut Value,
    scrub: Option<&mut Scrubber>,
    bodies: &mut dyn Bodies,
) -> Result<(), HarError> {
    if doc
        .pointer("/log/entries")
        .and_then(Value::as_array)
        .is_none()
    {
        return Err(HarError::NotHar);
    }
    let mut scrub = scrub;
    if let Some(s) = scrub.as_deref() {
        s.har_log_prose(doc);
    }
    // A page's title is often its URL (Chrome's, for a page without a
    // title), query key and all (a fresh-user trial).
    for p in doc
        .pointer_mut("/log/pages")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        if let Some(t) = p.get_mut("title") {
            mask_strings(t);
        }
    }
    let entries = doc
        .pointer_mut("/log/entries")
        .and_then(Value::as_array_mut)
        .ok_or(HarError::NotHar)?;
    for (i, e) in entries.iter_mut().enumerate() {
        for side in ["request", "response"] {
            redact_headers(e.pointer_mut(&format!("/{side}/headers")));
            if let Some(c) = e.pointer_mut(&format!("/{side}/cookies")) {
                *c = Value::Array(Vec::new());
            }
        }
        if let Some(Value::String(u)) = e.pointer_mut("/request/url") {
            *u = capture::redact_url(u);
        }
        if let Some(o) = e.as_object_mut() {
            for (k, v) in o.iter_mut() {
                if k.starts_with('_') || k == "comment" {
                    mask_strings(v);
                }
            }
        }
        if let Some(v) = e.pointer_mut("/response/redirectURL") {
            mask_strings(v);
        }
        for q in e
            .pointer_mut("/request/queryString")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            let secret = q
                .get("name")
                .and_then(Value::as_str)
                .is_some_and(capture::is_secret_param);
            if secret {
                q["value"] = Value::String(REDACTED.to_string());
            }
        }
        // A form body's fields as the HAR also lists them (HAR 1.2
        // `postData.params`): a secret field's value masked, keys in the
        // others too, as in `postData.text` (a fresh-user trial saw a
        // login request's password kept here).
        for p in e
            .pointer_mut("/request/postData/params")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            let secret = p
                .get("name")
                .and_then(Value::as_str)
                .is_some_and(|n| capture::is_secret_param(n) || n.eq_ignore_ascii_case("password"));
            if secret {
                p["value"] = Value::String(REDACTED.to_string());
            } else if let Some(v) = p.get_mut("value") {
                mask_strings(v);
            }
        }
        let form = e
            .pointer("/request/postData/mimeType")
            .and_then(Value::as_str)
            .is_some_and(|m| m.starts_with("application/x-www-form-urlencoded"));
        if let Some(Value::String(t)) = e.pointer_mut("/request/postData/text") {
            let mut text = crate::capture::redact_keys(t);
            if let Some(s) = scrub.as_deref_mut() {
                text = match serde_json::from_str::<Value>(&text) {
                    Ok(mut v) => {
                        s.request(&mut v);
                        serde_json::to_string(&v).unwrap_or(text)
                    }
                    Err(_) if form => s.form(&text, true),
                    Err(_) => s.text(&text),
                };
            }
            *t = text;
        }
        if let Some(s) = scrub.as_deref() {
            s.har_prose(e);
        }
        if scrub.is_none() {
            // Without --scrub-text the answer stays, but keys and secret
            // `NAME: value` pairs in it are masked, as in a raw body.
            bodies.rewrite(i, e, How::Mask)?;
            rewrite_messages(e, capture::redact_keys);
        }
        if let Some(s) = scrub.as_deref_mut() {
            s.args_state.clear();
            // Keys masked first, as in a raw body ([`raw`]): comment
            // lines and other fields are not scrubbed, and the scrubber
            // keeps `[REDACTED]` as it is.
            bodies.rewrite(i, e, How::Scrub(s))?;
            rewrite_messages(e, |d| s.data_value(&capture::redact_keys(d)));
            rewrite_socket_frames(e, s);
        }
    }
    Ok(())
}

/// Rewrites the `data` of each of a HAR entry's `_eventSourceMessages`
/// (Chrome's EventStream panel) through `f`.
fn rewrite_messages(entry: &mut Value, mut f: impl FnMut(&str) -> String) {
    for m in entry
        .get_mut("_eventSourceMessages")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        if let Some(Value::String(d)) = m.get_mut("data") {
            *d = f(d);
        }
    }
}

/// Scrubs the prose of a HAR entry's WebSocket frames (Chrome's
/// `_webSocketMessages`; keys in them are masked with the entry's other
/// `_` fields), each as [`scrub_frame`] does.
fn rewrite_socket_frames(entry: &mut Value, s: &mut Scrubber) {
    for m in entry
        .get_mut("_webSocketMessages")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        let dir = m
            .get("type")
            .and_then(Value::as_str)
            .and_then(crate::transport::Direction::parse);
        let binary = m.get("opcode").and_then(Value::as_i64) == Some(2);
        if let Some(Value::String(d)) = m.get_mut("data") {
            *d = scrub_frame(s, dir, binary, d);
        }
    }
}

/// One WebSocket frame's data with its keys masked and its prose
/// scrubbed: a sent frame as a request body (a `response.create`'s
/// `input` and `instructions`), a received one as an event's data; a
/// binary frame's bytes (base64) the same way when they are UTF-8 text,
/// else left as they are (no dialect reads them); a frame of neither
/// direction (a browser's error) as text.
fn scrub_frame(
    s: &mut Scrubber,
    dir: Option<crate::transport::Direction>,
    binary: bool,
    data: &str,
) -> String {
    use crate::transport::Direction;
    use base64::Engine;
    let mut one = |text: &str| -> String {
        let text = capture::redact_keys(text);
        match (serde_json::from_str::<Value>(&text), dir) {
            (Ok(mut v), Some(Direction::Sent)) => {
                // What routes the message on the socket (its type, lane
                // and parent response) is no prose: kept, so the copy's
                // responses pair with their requests as the original's.
                let keep: Vec<(&str, Value)> = ["type", "stream_id", "previous_response_id"]
                    .into_iter()
                    .filter_map(|k| Some((k, v.get(k)?.clone())))
                    .collect();
                s.request(&mut v);
                if let Some(o) = v.as_object_mut() {
                    for (k, x) in keep {
                        o.insert(k.to_string(), x);
                    }
                }
                serde_json::to_string(&v).unwrap_or(text)
            }
            (Ok(_), Some(Direction::Received)) => s.data_value(&text),
            _ => s.text(&text),
        }
    };
    if !binary {
        return one(data);
    }
    let b64 = base64::engine::general_purpose::STANDARD;
    match b64
        .decode(data.trim())
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
    {
        Some(text) => b64.encode(one(&text)),
        None => data.to_string(),
    }
}

/// A redacted copy of a WebSocket message log
/// ([`crate::transport::socket_log`]), a line at a time: keys masked on
/// every line; with a scrubber, each record's `data` scrubbed as
/// [`scrub_frame`] does, its other fields kept, so the copy is still a
/// log. A line that is no record is masked and scrubbed as text.
///
/// # Errors
/// Reading `input` or writing `out`.
pub fn message_log_to(
    input: &mut impl std::io::BufRead,
    out: &mut (impl std::io::Write + ?Sized),
    mut scrub: Option<&mut Scrubber>,
) -> std::io::Result<()> {
    use crate::transport::Direction;
    let mut line = Vec::new();
    let mut masked = Vec::new();
    loop {
        line.clear();
        masked.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        mask_piece(&line, &mut masked);
        let Some(s) = scrub.as_deref_mut() else {
            out.write_all(&masked)?;
            continue;
        };
        let text = String::from_utf8_lossy(&masked);
        let body = text.trim_end_matches(['\n', '\r']);
        let ending = &text[body.len()..];
        let copy = match serde_json::from_str::<Value>(body) {
            Ok(Value::Object(mut o)) => {
                let dir = o
                    .get("direction")
                    .and_then(Value::as_str)
                    .and_then(Direction::parse);
                let binary = o.get("opcode").and_then(Value::as_i64) == Some(2);
                for k in ["data", "reason"] {
                    if let Some(Value::String(d)) = o.get_mut(k) {
                        *d = if k == "data" {
                            scrub_frame(s, dir, binary, d)
                        } else {
                            s.text(d)
                        };
                    }
                }
                Value::Object(o).to_string()
            }
            _ if body.trim().is_empty() => body.to_string(),
            _ => s.text(body),
        };
        out.write_all(copy.as_bytes())?;
        out.write_all(ending.as_bytes())?;
    }
}

/// Rewrites a HAR entry's `response.content.text` through `f`, decoding
/// and re-encoding it when its `encoding` is `base64` (a body that is not
/// valid base64 is left as it is). A body stored as received, still
/// compressed (gzip by its magic bytes; deflate or br as its
/// `Content-Encoding` names), is decoded first, as `check` reads it, and
/// written back decoded: its keys and prose are then masked like any other.
///
/// # Errors
/// A compressed body that does not decode whole, or decodes past
/// [`capture::decode::MAX_DECODED_BYTES`], or `f`'s error: its copy could
/// not be made safe.
fn rewrite_response_text(
    entry: &mut Value,
    f: impl FnOnce(&[u8]) -> Result<Vec<u8>, HarError>,
) -> Result<(), HarError> {
    use base64::Engine;
    use capture::decode::{self, Encoding};
    let (base64, named) = stored_as(entry);
    let Some(Value::String(t)) = entry.pointer_mut("/response/content/text") else {
        return Ok(());
    };
    let engine = base64::engine::general_purpose::STANDARD;
    let bytes = if base64 {
        match engine.decode(t.as_bytes()) {
            Ok(b) => b,
            Err(_) => return Ok(()),
        }
    } else {
        t.as_bytes().to_vec()
    };
    let stored = if decode::is_gzip(&bytes) {
        Some(Encoding::Gzip)
    } else {
        named.filter(|e| *e != Encoding::Gzip && decode::starts_encoded(*e, &bytes))
    };
    let plain = match stored {
        Some(enc) => {
            let evidence = capture::Evidence::default();
            let limit = decode::MAX_DECODED_BYTES;
            let mut r = decode::decoder(
                enc,
                Box::new(std::io::Cursor::new(bytes)),
                evidence.clone(),
                limit,
            );
            let mut plain = Vec::new();
            let read = std::io::Read::read_to_end(&mut r, &mut plain);
            let damaged = evidence.lock().map(|e| !e.is_empty()).unwrap_or(true);
            if read.is_err() || damaged {
                return Err(undecodable(enc));
            }
            plain
        }
        None => bytes,
    };
    let out = f(&plain)?;
    let grew = out.len() as i64 - plain.len() as i64;
    *t = if base64 {
        engine.encode(out)
    } else {
        String::from_utf8_lossy(&out).into_owned()
    };
    follow_size(entry, grew);
    Ok(())
}

/// `content.size` follows the body by as much as masking changed it
/// (`grew`), so a whole body stays whole and one cut short stays as short
/// (a masked key is shorter: the copy must not look truncated).
fn follow_size(entry: &mut Value, grew: i64) {
    if grew != 0 {
        if let Some(size) = entry.pointer_mut("/response/content/size") {
            if let Some(n) = size.as_i64().filter(|n| *n >= 0) {
                *size = Value::from((n + grew).max(0));
            }
        }
    }
}

/// How an entry's response text is stored: base64 or not, and the
/// `Content-Encoding` its headers name.
fn stored_as(entry: &Value) -> (bool, Option<capture::decode::Encoding>) {
    let base64 = entry
        .pointer("/response/content/encoding")
        .and_then(Value::as_str)
        == Some("base64");
    let named = entry
        .pointer("/response/headers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|h| {
            h["name"]
                .as_str()
                .is_some_and(|n| n.eq_ignore_ascii_case("content-encoding"))
        })
        .and_then(|h| h["value"].as_str())
        .and_then(capture::decode::Encoding::from_header);
    (base64, named)
}

/// The error of a compressed body that cannot be made safe.
fn undecodable(enc: capture::decode::Encoding) -> HarError {
    HarError::Undecodable {
        encoding: enc.name(),
        limit_mib: capture::decode::MAX_DECODED_BYTES / (1024 * 1024),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mask_already_there_stays_readable() {
        assert_eq!(
            Scrubber::flat().text("key [REDACTED] used"),
            "xxx [REDACTED] xxxx"
        );
        let v = Scrubber::flat()
            .data_value(r#"{"error":{"message":"bad key [REDACTED]; x-api-key: [REDACTED]"}}"#);
        assert_eq!(
            v,
            r#"{"error":{"message":"xxx xxx [REDACTED]; x-xxx-xxx: [REDACTED]"}}"#
        );
    }

    #[test]
    fn a_gemini_requests_options_are_kept_and_its_prose_scrubbed() {
        // A trial: `mode: ANY` became `XXX`, so the copy asked for another
        // function-calling mode.
        let mut body = serde_json::json!({
            "contents": [{"role": "user", "parts": [{"text": "What time is it in Berlin?"}]}],
            "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_time"]}},
            "generationConfig": {"responseMimeType": "application/json", "responseModalities": ["TEXT"],
                "thinkingConfig": {"thinkingLevel": "LOW"}},
            "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}],
            "tools": [{"functionDeclarations": [{"name": "get_time", "description": "Tells the time"}]}]
        });
        Scrubber::flat().request(&mut body);
        let text = body.to_string();
        for kept in [
            "\"ANY\"",
            "\"application/json\"",
            "\"TEXT\"",
            "\"LOW\"",
            "\"HARM_CATEGORY_HARASSMENT\"",
            "\"BLOCK_NONE\"",
            "\"get_time\"",
        ] {
            assert!(text.contains(kept), "{kept} scrubbed: {text}");
        }
        for gone in ["Berlin", "Tells the time"] {
            assert!(!text.contains(gone), "{gone} kept: {text}");
        }
    }

    #[test]
    fn a_field_name_alone_on_its_line_is_kept() {
        // A capture cut right after a field name (`data` with no colon, a
        // field with an empty value) looks like plain text; scrubbing the
        // name turned the copy's `cut-off` into `body-not-sse` (minimize's
        // mutation test, `bom.sse` cut at byte 7).
        for body in [
            &b"\xef\xbb\xbfdata"[..],
            b"\xef\xbb\xbfdata:",
            b"data",
            b"event\n",
            b"id\r\n",
        ] {
            let out = raw(body, Some(&mut Scrubber::new(7)));
            assert_eq!(out, body, "{body:?}");
        }
        let out = raw(b"hello there", Some(&mut Scrubber::new(7)));
        assert_ne!(out, b"hello there");
    }

    #[test]
    fn a_byte_order_mark_is_kept() {
        let s = Scrubber::new(7);
        assert_eq!(s.text("\u{feff}d"), "\u{feff}".to_string() + &s.text("d"));
        let out = raw(b"\xef\xbb\xbfdata: x\n", Some(&mut Scrubber::new(7)));
        assert!(out.starts_with(b"\xef\xbb\xbf"), "{out:?}");
        // The data line after the mark is scrubbed like any other (it was
        // kept whole, prose and all).
        let body =
            b"\xef\xbb\xbfdata: {\"choices\":[{\"delta\":{\"content\":\"secret words\"}}]}\n";
        let out = raw(body, Some(&mut Scrubber::new(7)));
        let text = String::from_utf8_lossy(&out);
        assert!(!text.contains("secret"), "{text}");
        assert!(text.contains("\"choices\""), "{text}");
    }

    #[test]
    fn text_keeps_length_structure_and_prefixes() {
        let mut s = Scrubber::new(7);
        let orig = r#"{"choices":[{"index":0,"delta":{"content":"Hello \"you\"\n"},"finish_reason":null}]}"#;
        let a = s.data_value(orig);
        let b = s.data_value(r#"{"choices":[{"index":0,"delta":{"content":"Hello \"you\"\nthere"},"finish_reason":null}]}"#);
        assert_eq!(a.len(), orig.len());
        assert!(!a.contains("Hello"));
        assert!(a.contains(r#""finish_reason":null"#));
        let ca = &a[a.find("content").unwrap()..];
        let cb = &b[b.find("content").unwrap()..];
        assert!(cb.starts_with(&ca[..ca.find("\"}").unwrap()]));
        serde_json::from_str::<Value>(&a).unwrap();
    }

    proptest::proptest! {
        #[test]
        fn any_text_scrubs_without_panic(s in "\\PC{0,200}", bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300)) {
            let mut sc = Scrubber::new(11);
            let _ = sc.data_value(&s);
            let _ = sc.body(&bytes);
            let _ = raw(&bytes, Some(&mut sc));
            let with_escapes = format!(r#"{{"content":"{}\\é\\u00"}}"#, s.replace('"', ""));
            let _ = sc.data_value(&with_escapes);
        }

        #[test]
        fn valid_chunks_stay_valid_and_keep_their_length(text in "[a-zA-Z0-9 éü中😀\\n\"\\\\]{0,40}") {
            let chunk = serde_json::json!({"choices":[{"index":0,"delta":{"content": text, "reasoning": text},"finish_reason":null}]}).to_string();
            let out = Scrubber::new(5).data_value(&chunk);
            proptest::prop_assert_eq!(out.len(), chunk.len());
            proptest::prop_assert!(serde_json::from_str::<Value>(&out).is_ok(), "{}", out);
        }
    }

    #[test]
    fn tool_arguments_stay_valid_json_across_fragments() {
        let mut s = Scrubber::new(3);
        let frag = |s: &mut Scrubber, a: &str| {
            let v = format!(
                r#"{{"choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":0,"function":{{"arguments":{}}}}}]}}}}]}}"#,
                serde_json::to_string(a).unwrap()
            );
            let out = s.data_value(&v);
            let parsed: Value = serde_json::from_str(&out).unwrap();
            parsed
                .pointer("/choices/0/delta/tool_calls/0/function/arguments")
                .unwrap()
                .as_str()
                .unwrap()
                .to_string()
        };
        let args =
            frag(&mut s, r#"{"city": "Pa"#) + &frag(&mut s, r#"ris", "days": 3, "ok": true}"#);
        // Keys and string values are scrubbed, numbers stay numbers;
        // literals and the structure stay.
        let v: Value = serde_json::from_str(&args).unwrap();
        let values: Vec<&Value> = v.as_object().unwrap().values().collect();
        assert_eq!(values.len(), 3);
        assert!(values.contains(&&Value::from(1)) && values.contains(&&Value::Bool(true)));
        assert!(!args.contains("Paris") && !args.contains("city"));
    }

    /// Found by a helper: the flat scrubber turned `{"city":…,"unit":…}`
    /// into `{"xxxx":…,"xxxx":…}`, an object with one key twice, which a
    /// client reads as one key. Keys stay distinct, however the fragments
    /// split them; the same key in sibling objects stays the same, and a
    /// `.done` event's arguments read as the deltas do.
    #[test]
    fn flat_scrubbed_argument_keys_stay_distinct_across_fragments() {
        let mut s = Scrubber::flat();
        let frag = |s: &mut Scrubber, i: u64, a: &str| {
            let v = serde_json::json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":i,"function":{"arguments":a}}]}}]});
            let out: Value = serde_json::from_str(&s.data_value(&v.to_string())).unwrap();
            out.pointer("/choices/0/delta/tool_calls/0/function/arguments")
                .unwrap()
                .as_str()
                .unwrap()
                .to_string()
        };
        let whole = r#"{"city": "Oslo", "unit": "c", "days": 3, "when": {"date": "d", "time": "t"}, "list": [{"name": "a", "note": "b"}, {"name": "c", "note": "d"}]}"#;
        let pieces = [
            r#"{"ci"#,
            r#"ty": "Oslo", "un"#,
            r#"it"#,
            r#"": "c", "days": 3, "when": {"date": "d", "#,
            r#""time": "t"}, "list": [{"name": "a", "note": "b"}, {"name": "c", "note": "d"}]}"#,
        ];
        assert_eq!(pieces.concat(), whole);
        let split: String = pieces.iter().map(|p| frag(&mut s, 0, p)).collect();
        let at_once = frag(&mut s, 1, whole);
        assert_eq!(split, at_once);
        assert_eq!(split.len(), whole.len());
        fn keys(v: &Value, out: &mut Vec<Vec<String>>) {
            match v {
                Value::Object(m) => {
                    out.push(m.keys().cloned().collect());
                    m.values().for_each(|v| keys(v, out));
                }
                Value::Array(a) => a.iter().for_each(|v| keys(v, out)),
                _ => {}
            }
        }
        let (mut a, mut b) = (Vec::new(), Vec::new());
        keys(&serde_json::from_str(whole).unwrap(), &mut a);
        keys(&serde_json::from_str(&split).unwrap(), &mut b);
        // As many keys in each object as the original had: none twice.
        let counts = |k: &Vec<Vec<String>>| k.iter().map(Vec::len).collect::<Vec<_>>();
        assert_eq!(counts(&a), counts(&b), "{split}");
        // The same keys in sibling objects.
        let v: Value = serde_json::from_str(&split).unwrap();
        let list = v
            .as_object()
            .unwrap()
            .values()
            .find_map(Value::as_array)
            .unwrap();
        let keys_of = |o: &Value| o.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys_of(&list[0]), keys_of(&list[1]), "{split}");
        for k in b.iter().flatten() {
            assert!(
                !["city", "unit", "days", "when", "name", "note"].contains(&k.as_str()),
                "{split}"
            );
        }
        // A Responses call: the deltas, then the same arguments whole.
        let mut s = Scrubber::flat();
        let delta = |s: &mut Scrubber, d: &str| {
            let v = serde_json::json!({"type":"response.function_call_arguments.delta","output_index":0,"delta":d});
            let out: Value = serde_json::from_str(&s.data_value(&v.to_string())).unwrap();
            out["delta"].as_str().unwrap().to_string()
        };
        let streamed = delta(&mut s, r#"{"city":"Os"#) + &delta(&mut s, r#"lo","unit":"c"}"#);
        let done = serde_json::json!({"type":"response.function_call_arguments.done","output_index":0,"arguments":r#"{"city":"Oslo","unit":"c"}"#});
        let done: Value = serde_json::from_str(&s.data_value(&done.to_string())).unwrap();
        assert_eq!(done["arguments"].as_str().unwrap(), streamed);
        let v: Value = serde_json::from_str(&streamed).unwrap();
        assert_eq!(v.as_object().unwrap().len(), 2, "{streamed}");
    }

    #[test]
    fn arguments_that_are_not_json_are_scrubbed_too() {
        // Found by a fresh-user trial: only double-quoted strings were.
        let mut s = Scrubber::new(3);
        let one = |s: &mut Scrubber, i: u64, a: &str| {
            let v = serde_json::json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":i,"function":{"arguments":a}}]}}]});
            let out: Value = serde_json::from_str(&s.data_value(&v.to_string())).unwrap();
            out.pointer("/choices/0/delta/tool_calls/0/function/arguments")
                .unwrap()
                .as_str()
                .unwrap()
                .to_string()
        };
        let a = one(&mut s, 0, "{'n':'Jo Sm") + &one(&mut s, 0, "ith', 'd': '2024-03-15'}");
        assert_eq!(a, "{'n':'Xx Xxxxx', 'x': '1011-01-11'}");
        // Valid JSON with numbers and literals split over fragments stays
        // valid, with the same shape.
        let b = one(&mut s, 1, r#"{"a": [10, 0.5, -2e3, tr"#)
            + &one(&mut s, 1, r#"ue, nul"#)
            + &one(&mut s, 1, r#"l, false]}"#);
        let v: Value = serde_json::from_str(&b).unwrap_or_else(|e| panic!("{b}: {e}"));
        let arr = v.as_object().unwrap().values().next().unwrap();
        assert_eq!(arr, &serde_json::json!([10, 0.1, -1e1, true, null, false]));
        // Messages partial_json.
        let m = r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{'city': 'Lyon'}"}}"#;
        let out = s.data_value(m);
        assert!(!out.contains("Lyon") && !out.contains("city"), "{out}");
    }

    /// Found by a fresh-user trial: one invalid byte in a `data` line
    /// turned off both the text scrubbing and the key masking of that line.
    /// The invalid bytes stay exactly (they are the `invalid-utf8`
    /// finding); the text and the key around them do not.
    #[test]
    fn a_line_with_invalid_utf8_is_still_scrubbed_and_masked() {
        let key = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
        let mut body = format!(
            r#"data: {{"choices":[{{"index":0,"delta":{{"content":"key {key} Jonathan caf#"}}}}]}}"#
        )
        .into_bytes();
        body.extend_from_slice(b"\n\n");
        // A lone 0xE9 (Latin-1 é) where the `#` is.
        let at = body.iter().position(|b| *b == b'#').unwrap();
        body[at] = 0xE9;
        let mut s = Scrubber::new(3);
        let out = raw(&body, Some(&mut s));
        let shown = String::from_utf8_lossy(&out);
        assert!(!shown.contains(key), "{shown}");
        assert!(!shown.contains("Jonathan"), "{shown}");
        assert!(out.contains(&0xE9), "the invalid byte stays: {shown}");
        assert!(shown.contains("\"content\""), "{shown}");
        // Without scrubbing, the key is still masked.
        let out = raw(&body, None);
        let shown = String::from_utf8_lossy(&out);
        assert!(!shown.contains(key), "{shown}");
        assert!(shown.contains("Jonathan") && out.contains(&0xE9), "{shown}");
    }

    #[test]
    fn a_body_that_is_a_json_document_is_scrubbed() {
        let mut s = Scrubber::new(3);
        let body = b"{\"object\":\"chat.completion\",\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"The Great Wall\"}}]}\n{\n  \"content\": \"China\"\n}\n";
        let out = String::from_utf8(s.body(body)).unwrap();
        assert_eq!(out.len(), body.len());
        for w in ["Great", "Wall", "China"] {
            assert!(!out.contains(w), "{w}: {out}");
        }
        assert!(
            out.contains("chat.completion") && out.contains("assistant"),
            "{out}"
        );
        serde_json::from_str::<Value>(out.lines().next().unwrap()).unwrap();
    }

    #[test]
    fn responses_and_messages_arguments_stay_json_and_text_is_scrubbed() {
        let mut s = Scrubber::new(5);
        // Responses: two calls' argument deltas interleave, each keyed by
        // its output_index.
        let ev = |s: &mut Scrubber, i: u64, d: &str| {
            let v = serde_json::json!({"type": "response.function_call_arguments.delta", "output_index": i, "delta": d});
            let out: Value = serde_json::from_str(&s.data_value(&v.to_string())).unwrap();
            out["delta"].as_str().unwrap().to_string()
        };
        let a0 = ev(&mut s, 0, r#"{"city": "Pa"#);
        let a1 = ev(&mut s, 1, r#"{"q": "lon"#);
        let a0 = a0 + &ev(&mut s, 0, r#"ris"}"#);
        let a1 = a1 + &ev(&mut s, 1, r#"don", "n": 2}"#);
        for a in [&a0, &a1] {
            let v: Value = serde_json::from_str(a).unwrap_or_else(|e| panic!("{a}: {e}"));
            assert!(v.is_object(), "{a}");
        }
        assert!(!a0.contains("Paris") && !a1.contains("london"));
        // Messages: partial_json of a tool_use block.
        let v = r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Paris\"}"}}"#;
        let out: Value = serde_json::from_str(&s.data_value(v)).unwrap();
        let pj = out
            .pointer("/delta/partial_json")
            .unwrap()
            .as_str()
            .unwrap();
        assert!(
            serde_json::from_str::<Value>(pj).is_ok() && !pj.contains("Paris"),
            "{pj}"
        );
        // Text: a Responses text delta and a Messages thinking delta; the
        // event types and keys stay.
        let t = s.data_value(r#"{"type":"response.output_text.delta","delta":"Hello"}"#);
        assert!(
            t.contains("response.output_text.delta") && !t.contains("Hello"),
            "{t}"
        );
        let t = s.data_value(r#"{"delta":{"type":"thinking_delta","thinking":"Hmm"}}"#);
        assert!(t.contains("thinking_delta") && !t.contains("Hmm"), "{t}");
        let t =
            s.data_value(r#"{"item":{"type":"reasoning","encrypted_content":"Plain thought"}}"#);
        assert!(!t.contains("Plain thought"), "{t}");
    }

    #[test]
    fn request_prompts_of_every_dialect_are_scrubbed() {
        let s = Scrubber::new(9);
        let mut b = serde_json::json!({
            "model": "m",
            "instructions": "Be brief",
            "input": [{"role": "user", "content": [{"type": "input_text", "text": "Secret plan"}]}],
            "system": [{"type": "text", "text": "You are Bob"}],
            "messages": [{"role": "user", "content": "Hello Bob"}],
        });
        s.request(&mut b);
        let t = b.to_string();
        for secret in ["Be brief", "Secret plan", "You are Bob", "Hello Bob"] {
            assert!(!t.contains(secret), "{secret}: {t}");
        }
        assert_eq!(b["model"], "m");
        let mut b = serde_json::json!({"input": "Tell me a secret", "system": "Be kind"});
        s.request(&mut b);
        assert!(!b.to_string().contains("secret") && !b.to_string().contains("kind"));
    }
}
