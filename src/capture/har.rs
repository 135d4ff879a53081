//! HAR 1.2 (W3C draft; Chrome, Firefox, Safari, Charles, Proxyman,
//! mitmproxy exports): every entry whose response is an event stream
//! becomes a stream labelled `#INDEX METHOD URL`.
//!
//! The body is `response.content.text` (base64 when `encoding` says so;
//! browsers store it HTTP-decoded, while a body stored as received, gzip
//! by its magic bytes or deflate/br by `Content-Encoding`, is decoded). Chrome's `_eventSourceMessages` gives a time per
//! message; its `data` is usually stripped (sanitized export), so the text
//! stays the source of truth. Evidence of capture damage: text absent while
//! `size` > 0, text shorter than `size`, a body exactly at Firefox's 1 MiB
//! cap. Our own `record` writes `_sselint.reads`, a time per network read.

use super::spool::{Spool, Spooled};
use super::{har_pos, HarText};
use super::{
    header, Body, Capture, Http, InputError, InputFormat, Origin, Read_, Request, Stream, Timing,
};
use base64::Engine;
use serde::de::DeserializeSeed;
use serde_json::Value;
use std::cell::RefCell;
use std::io::Read;
use std::rc::Rc;

/// Firefox's default `devtools.netmonitor.responseBodyLimit` (bytes).
pub const FIREFOX_BODY_LIMIT: usize = 1_048_576;

/// Most entries a HAR may hold before we refuse it.
pub const MAX_ENTRIES: usize = 100_000;

/// Reads a HAR file.
///
/// # Errors
/// Not JSON, no `log.entries` array, or no SSE entry (the message lists the
/// entries present), or `--entry`/`--url-match` matched nothing.
pub fn read(
    name: &str,
    reader: Box<dyn Read + Send>,
    opts: &super::Options,
) -> Result<Capture, InputError> {
    let (mut doc, mut texts, found, mut reads) = parse(name, reader, true)?;
    // Positions only when a renderer uses them (`Options::har_positions`).
    let text_at: std::collections::HashMap<usize, HarText> = if opts.har_positions {
        found.into_iter().collect()
    } else {
        std::collections::HashMap::new()
    };
    let entries = doc
        .get_mut("log")
        .ok_or_else(|| InputError::new(name, "not a HAR file: no top-level `log` object"))?
        .get_mut("entries")
        .and_then(Value::as_array_mut)
        .ok_or_else(|| InputError::new(name, "not a HAR file: `log.entries` is not an array"))?;
    if entries.len() > MAX_ENTRIES {
        return Err(InputError::new(
            name,
            format!(
                "HAR has {} entries, more than the limit of {MAX_ENTRIES}",
                entries.len()
            ),
        ));
    }
    let mut streams: Vec<(bool, Stream)> = Vec::new();
    let mut listing = Vec::new();
    for (i, entry) in entries.iter_mut().enumerate() {
        let method = str_at(entry, &["request", "method"]).unwrap_or("?");
        let url = str_at(entry, &["request", "url"]).unwrap_or("?");
        let status = status_of(entry);
        let mime = str_at(entry, &["response", "content", "mimeType"]).unwrap_or("");
        let url_shown = super::redact_url(url);
        listing.push(format!("  #{i} {method} {url_shown} → {status} {mime}"));
        if let Some(n) = opts.entry {
            if n != i {
                continue;
            }
        } else if !is_sse_entry(entry) {
            continue;
        }
        if let Some(m) = &opts.url_match {
            if !url.contains(m.as_str()) {
                continue;
            }
        }
        let chat = is_chat_completion(entry);
        let (method, url) = (method.to_string(), super::redact_url(url));
        let text = texts.remove(&i);
        // A body that cannot be read is bad input, as a string that is not
        // UTF-8 is: the file's error, naming the entry (`--entry` picks
        // another).
        let mut stream = entry_stream(
            i,
            entry,
            text,
            text_at.get(&i).copied(),
            &method,
            &url,
            opts.decoded_limit(),
        )
        .map_err(|why| {
            InputError::new(
                name,
                format!("entries[{i}] ({method} {url}): {why}; the body cannot be read"),
            )
        })?;
        // Our own per-read times, kept aside by the parse, come first.
        if let Some(r) = reads.remove(&i).filter(|r| !r.is_empty()) {
            stream.timing = Some(Timing::Reads(r));
        }
        streams.push((chat, stream));
    }
    if streams.is_empty() {
        let why = match (&opts.entry, &opts.url_match) {
            (Some(n), _) if *n >= entries.len() => format!(
                "entry {n} is out of range: the HAR has {} entries",
                entries.len()
            ),
            (_, Some(m)) => format!("no SSE entry's URL contains {m:?}"),
            _ => {
                let sockets: Vec<String> = entries
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| is_socket_entry(e))
                    .map(|(i, _)| format!("#{i}"))
                    .collect();
                if sockets.is_empty() {
                    "no entry is an event stream (text/event-stream response)".to_string()
                } else {
                    format!(
                        "no entry is an event stream (text/event-stream response) or a WebSocket with frames: entry {} is a WebSocket that holds no frames ({FRAMES_HOW})",
                        sockets.join(", ")
                    )
                }
            }
        };
        // With nothing to pick, no hint to pick one.
        let message = if listing.is_empty() {
            format!("{why}; the HAR has no entries")
        } else if opts.entry_by_spec_only {
            format!(
                "{why}; entries:\n{}\n(pick one as {name}#N)",
                listing.join("\n")
            )
        } else {
            format!(
                "{why}; entries:\n{}\n(pick one with --entry N, or as FILE#N)",
                listing.join("\n")
            )
        };
        return Err(InputError::new(name, message));
    }
    // An app's other event streams (notifications, live reload) are not
    // LLM streams: when the HAR holds LLM requests, lint those.
    let any_chat = streams.iter().any(|(chat, _)| *chat);
    let streams = streams
        .into_iter()
        .filter(|(chat, _)| !any_chat || *chat || opts.entry.is_some())
        .map(|(_, s)| s)
        .collect();
    Ok(Capture {
        path: name.to_string(),
        input_format: InputFormat::Har,
        detail: "har",
        streams,
    })
}

/// A HAR document parsed, without its entries' `content.text` (the
/// tracker's: decoded, by entry index), and where each text sits.
type Parsed = (
    Value,
    std::collections::HashMap<usize, har_pos::Text>,
    Vec<(usize, HarText)>,
    std::collections::HashMap<usize, Vec<Read_>>,
);

/// Parses a HAR document from `reader` (see [`read`]), each entry's
/// `content.text` decoded aside as it goes by; with `reads_aside`, each
/// entry's `_sselint.reads` array too (out of the document, 16 bytes a
/// read: [`har_pos::Track::keep_reads_aside`]).
fn parse(
    name: &str,
    reader: Box<dyn Read + Send>,
    reads_aside: bool,
) -> Result<Parsed, InputError> {
    // Parse from the reader: the file is never held whole beside the
    // document (a 200 MB HAR peaks near twice its size, not three times).
    // 64 KiB at a time: a megabyte's buffer was 1 MiB of `check`'s peak on a
    // large HAR, and the parse reads the same bytes whatever its size.
    let mut reader = std::io::BufReader::with_capacity(64 * 1024, reader);
    let head = std::io::BufRead::fill_buf(&mut reader)
        .map_err(|e| InputError::new(name, super::io_message(&e)))?;
    let bom = head.starts_with(&[0xEF, 0xBB, 0xBF]);
    if bom {
        std::io::BufRead::consume(&mut reader, 3);
    }
    // The document is parsed from the reader a byte at a time (a text's
    // plain runs and simple escapes are taken past the parser in bulk),
    // and each entry's content.text is decoded as it goes by, into memory or, past
    // 2 MiB, a temporary file (`spool`): the parser skips the string, so
    // a 100 MB body is never held. The tracker also learns where each text
    // starts, so findings in its body can point into the file.
    let track = Rc::new(RefCell::new(har_pos::Track::new(if bom { 3 } else { 0 })));
    if reads_aside {
        track.borrow_mut().keep_reads_aside();
    }
    let parsed = {
        let mut de =
            serde_json::Deserializer::from_reader(har_pos::Tracking::new(reader, track.clone()));
        har_pos::Doc::new(track.clone())
            .deserialize(&mut de)
            .and_then(|v| de.end().map(|()| v))
    };
    let found = std::mem::take(&mut track.borrow_mut().found);
    let reads = track
        .borrow_mut()
        .reads
        .take()
        .unwrap_or_default()
        .into_iter()
        .collect();
    let texts: std::collections::HashMap<usize, har_pos::Text> =
        std::mem::take(&mut track.borrow_mut().texts)
            .into_iter()
            .collect();
    let doc: Value = parsed.map_err(|e| {
        let why = track.borrow().error_message(&e);
        InputError::new(
            name,
            if e.is_io() {
                format!("cannot read the file ({why})")
            } else {
                format!("not a HAR file: the JSON does not parse ({why})")
            },
        )
    })?;
    // A string serde_json would refuse (not UTF-8, a lone surrogate) makes
    // the document unreadable, as it did when the parser read it.
    let mut bad: Vec<_> = texts
        .iter()
        .filter_map(|(i, t)| match t {
            har_pos::Text::Str(Err(why)) => Some((*i, why.to_string())),
            _ => None,
        })
        .collect();
    bad.sort();
    if let Some((i, why)) = bad.into_iter().next() {
        return Err(InputError::new(
            name,
            format!("not a HAR file: the JSON does not parse (entry {i}'s content.text: {why})"),
        ));
    }
    Ok((doc, texts, found, reads))
}

/// A HAR document without its entries' `content.text`, and each text as
/// the tracker read it, by entry index (a string decoded into memory up to
/// 2 MiB, then a temporary file): `redact` rewrites a HAR from these.
///
/// # Errors
/// As [`read`]: the file cannot be read, is not JSON, or holds a text
/// that is not UTF-8.
pub fn texts(
    name: &str,
    reader: Box<dyn Read + Send>,
) -> Result<(Value, std::collections::HashMap<usize, har_pos::Text>), InputError> {
    let (doc, texts, _, _) = parse(name, reader, false)?;
    Ok((doc, texts))
}

/// The document of a HAR file, each entry's `content.text` left as `""`
/// when it was a string and `null` otherwise (its bytes are not kept: a
/// body of any size costs no memory). `minimize` takes an entry from it.
///
/// # Errors
/// As [`read`]: the file cannot be read, is not JSON, or holds a text
/// that is not UTF-8.
pub fn document(name: &str, reader: Box<dyn Read + Send>) -> Result<Value, InputError> {
    let (mut doc, texts, _, _) = parse(name, reader, false)?;
    if let Some(entries) = doc
        .pointer_mut("/log/entries")
        .and_then(Value::as_array_mut)
    {
        for (i, e) in entries.iter_mut().enumerate() {
            if let Some(Value::Object(c)) = e.pointer_mut("/response/content") {
                let text = match texts.get(&i) {
                    Some(har_pos::Text::Str(_)) => Value::String(String::new()),
                    _ => Value::Null,
                };
                if texts.contains_key(&i) {
                    c.insert("text".to_string(), text);
                }
            }
        }
    }
    Ok(doc)
}

fn str_at<'v>(v: &'v Value, path: &[&str]) -> Option<&'v str> {
    let mut cur = v;
    for p in path {
        cur = cur.get(p)?;
    }
    cur.as_str()
}

/// The media type without parameters, lower-cased (Postman #11753: a
/// `charset` parameter must not hide `text/event-stream`).
pub fn media_type(v: &str) -> String {
    v.split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

fn headers_of(v: Option<&Value>) -> Vec<super::Header> {
    v.and_then(Value::as_array)
        .map(|hs| {
            hs.iter()
                .filter_map(|h| {
                    Some(header(
                        h.get("name")?.as_str()?,
                        h.get("value").and_then(Value::as_str).unwrap_or(""),
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Whether an entry is an LLM streaming request: a URL path of one of the
/// dialects (`/chat/completions`, `/completions`, `/responses`,
/// `/messages`), or a JSON body with `messages`, `input` or
/// `"stream": true`.
fn is_chat_completion(entry: &Value) -> bool {
    let url = str_at(entry, &["request", "url"]).unwrap_or("");
    let path = url.split(['?', '#']).next().unwrap_or("");
    if path.ends_with("/completions") || crate::vocab::sniff_url(url).is_some() {
        return true;
    }
    let body = str_at(entry, &["request", "postData", "text"]).unwrap_or("");
    serde_json::from_str::<Value>(body).ok().is_some_and(|v| {
        v.get("messages").is_some()
            || v.get("input").is_some()
            || v.get("stream") == Some(&Value::Bool(true))
    })
}

/// A socket entry's frames (Chrome's `_webSocketMessages`), when it holds
/// any.
fn frames(entry: &Value) -> Option<&Vec<Value>> {
    entry
        .get("_webSocketMessages")
        .and_then(Value::as_array)
        .filter(|m| !m.is_empty())
}

/// Whether an entry is a WebSocket's (Chrome's `_resourceType`, its
/// frames, a 101 answer, or a `ws://` / `wss://` URL), frames or none.
fn is_socket_entry(entry: &Value) -> bool {
    let url = str_at(entry, &["request", "url"]).unwrap_or("");
    entry.get("_resourceType").and_then(Value::as_str) == Some("websocket")
        || entry.get("_webSocketMessages").is_some()
        || status_of(entry) == 101
        || url.starts_with("ws://")
        || url.starts_with("wss://")
}

/// How to get a socket's frames, where a HAR holds none of them.
const FRAMES_HOW: &str = "Firefox's HAR export saves none; Chrome's devtools save them with \"Save all as HAR with content\", and `sselint record ws://…` writes a message log";

/// Whether an entry's response is an event stream (`reference` §3.1), or
/// a stream of another transport (`application/x-ndjson`,
/// `application/vnd.amazon.eventstream`: [`crate::transport`]).
fn is_sse_entry(entry: &Value) -> bool {
    let streamed = |v: &str| crate::transport::Transport::of_media_type(v).is_some();
    let mime = str_at(entry, &["response", "content", "mimeType"]).unwrap_or("");
    if streamed(mime) {
        return true;
    }
    let hdrs = headers_of(entry.pointer("/response/headers"));
    if super::find_header(&hdrs, "content-type").is_some_and(streamed) {
        return true;
    }
    if entry.get("_resourceType").and_then(Value::as_str) == Some("eventsource")
        || entry.get("_eventSourceMessages").is_some()
        || frames(entry).is_some()
    {
        return true;
    }
    // A request to an endpoint that streams by its path (Gemini's
    // `:streamGenerateContent`, whose answer without `alt=sse` is one JSON
    // array sent as `application/json`), or a streaming request answered
    // with something else (an error, JSON): still lint it, http-status,
    // content-type and body-not-sse will say what happened.
    if crate::vocab::streaming_url(str_at(entry, &["request", "url"]).unwrap_or("")) {
        return true;
    }
    let body = str_at(entry, &["request", "postData", "text"]).unwrap_or("");
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| v.get("stream").and_then(Value::as_bool))
        == Some(true)
}

/// An entry's body while it is read: bytes in memory, or a spooled file
/// and the reader that decodes it (gzip, deflate, br) as it is read.
enum EntryBody {
    Mem(Vec<u8>),
    Spooled(
        Spooled,
        Option<super::decode::Encoding>,
        super::Evidence,
        u64,
    ),
}

impl EntryBody {
    /// Whether the (decoded) body holds a terminal event ([`stream_ended`]).
    fn ended(&self) -> bool {
        match self {
            EntryBody::Mem(b) => stream_ended(&b[..]),
            // Read apart from the body's own reader: what a decoder
            // notes here is not evidence (the lint's read notes it).
            EntryBody::Spooled(..) => match self.reader(Default::default()) {
                Some(r) => stream_ended(std::io::BufReader::new(r)),
                None => false,
            },
        }
    }

    fn reader(&self, evidence: super::Evidence) -> Option<Box<dyn Read + Send>> {
        match self {
            EntryBody::Mem(_) => None,
            EntryBody::Spooled(s, None, ..) => Some(s.reader()),
            EntryBody::Spooled(s, Some(enc), _, limit) => {
                Some(super::decode::decoder(*enc, s.reader(), evidence, *limit))
            }
        }
    }

    fn into_body(self) -> Body {
        match self {
            EntryBody::Mem(b) => Body::Bytes(b),
            EntryBody::Spooled(_, _, ref evidence, _) => {
                let evidence = evidence.clone();
                Body::Reader(
                    self.reader(evidence)
                        .unwrap_or_else(|| Box::new(std::io::empty())),
                )
            }
        }
    }
}

/// The lenient base64 engine: exporters wrap lines and drop padding.
fn lenient_base64() -> base64::engine::GeneralPurpose {
    base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    )
}

/// Why a HAR entry's body cannot be read ([`entry_stream`]); the message
/// goes after the entry's name.
#[derive(Debug, thiserror::Error)]
enum BodyError {
    /// `content.encoding` says base64 and the text does not decode.
    #[error("content.text is not valid base64 ({0})")]
    Base64(Base64Error),
    /// `content.text` is another JSON type (its name).
    #[error("content.text is a JSON {0} where a string belongs")]
    NotString(&'static str),
    /// A WebSocket entry with no frames ([`FRAMES_HOW`]).
    #[error("it is a WebSocket, and the HAR holds no frames of it ({FRAMES_HOW})")]
    NoFrames,
}

/// Why a base64 text did not decode: its characters, or the temporary file
/// its decoded bytes went to.
#[derive(Debug, thiserror::Error)]
enum Base64Error {
    /// What the decoder said.
    #[error(transparent)]
    Decode(#[from] base64::DecodeError),
    /// What the spool said.
    #[error(transparent)]
    Spool(#[from] super::spool::SpoolError),
}

/// Decodes a spooled base64 text into a new spool, white space skipped.
fn decode_base64(text: &Spooled) -> Result<Spooled, Base64Error> {
    let clean = std::io::BufReader::new(text.reader())
        .bytes()
        .map_while(Result::ok)
        .filter(|b| !b.is_ascii_whitespace());
    let mut spool = Spool::default();
    // 64 Ki characters at a time (whole quanta of 4; the last piece,
    // padded or not, is the rest).
    let engine = lenient_base64();
    let mut quanta = Vec::with_capacity(64 * 1024);
    let mut out = Vec::with_capacity(48 * 1024);
    let mut clean = clean.peekable();
    while clean.peek().is_some() {
        quanta.clear();
        quanta.extend(clean.by_ref().take(64 * 1024));
        out.clear();
        engine.decode_vec(&quanta, &mut out)?;
        spool.extend(&out);
    }
    Ok(spool.finish()?)
}

/// Entry `i`'s stream.
///
/// # Errors
/// What makes its body unreadable: `content.text` that is not base64
/// though `encoding` says so, or not a string.
fn entry_stream(
    i: usize,
    entry: &Value,
    text: Option<har_pos::Text>,
    text_at: Option<HarText>,
    method: &str,
    url: &str,
    max_decoded: u64,
) -> Result<Stream, BodyError> {
    // A socket's frames (Chrome): its message log is the body.
    if is_socket_entry(entry) && frames(entry).is_none() {
        return Err(BodyError::NoFrames);
    }
    if let Some(messages) = frames(entry) {
        return Ok(super::websocket::stream(
            i,
            entry,
            messages,
            method,
            url,
            handshake(entry),
            headers_of(entry.pointer("/request/headers")),
        ));
    }
    let content = entry.pointer("/response/content");
    let mut stream = Stream::new(format!("#{i} {method} {url}"), Body::Bytes(Vec::new()));
    let size = content
        .and_then(|c| c.get("size"))
        .and_then(Value::as_i64)
        .unwrap_or(-1);
    let encoding = content
        .and_then(|c| c.get("encoding"))
        .and_then(Value::as_str);
    // The body maps onto the string only when it is the string as it is.
    let as_is = matches!(&text, Some(har_pos::Text::Str(_))) && encoding != Some("base64");
    let empty = Spooled::Mem(Vec::new());
    let body: Spooled = match text {
        None | Some(har_pos::Text::Null) => {
            if size > 0 {
                super::note_truncation(
                    &stream.evidence,
                    format!("the HAR entry has no response body text although content.size is {size}: the capture tool left it out"),
                );
            } else {
                super::note_truncation(
                    &stream.evidence,
                    "the HAR entry has no response body text (content.text is absent): the capture tool did not keep it",
                );
            }
            empty
        }
        Some(har_pos::Text::Str(s)) => {
            // `read` returned the errors before.
            let s = s.unwrap_or(empty);
            match encoding {
                Some("base64") => {
                    let decoded = match &s {
                        Spooled::Mem(text) => {
                            let clean: Vec<u8> = text
                                .iter()
                                .copied()
                                .filter(|b| !b.is_ascii_whitespace())
                                .collect();
                            lenient_base64()
                                .decode(&clean)
                                .map(Spooled::Mem)
                                .map_err(Base64Error::from)
                        }
                        Spooled::File(..) => decode_base64(&s),
                    };
                    decoded.map_err(BodyError::Base64)?
                }
                Some(other) if !other.is_empty() => {
                    stream.notes.push(format!(
                        "unknown content.encoding {other:?}; the text was taken as it is"
                    ));
                    s
                }
                _ => s,
            }
        }
        Some(har_pos::Text::Other(kind)) => {
            return Err(BodyError::NotString(kind));
        }
    };
    // The body as stored (a browser stores it decoded, at most its limit).
    let stored = body.len();
    browser_error(entry, &stream.evidence);
    let mut decoded = false;
    let head = body.head(16);
    let encoded = if super::decode::is_gzip(&head) {
        // Some exporters store the still-encoded bytes.
        stream.notes.push("body decoded from gzip".to_string());
        Some(super::decode::Encoding::Gzip)
    } else if let Some(enc) = super::find_header(
        &headers_of(entry.pointer("/response/headers")),
        "content-encoding",
    )
    .and_then(super::decode::Encoding::from_header)
    .filter(|e| *e != super::decode::Encoding::Gzip)
    .filter(|e| super::decode::starts_encoded(*e, &head))
    {
        // A deflate or br body stored as received (as `probe` saves one);
        // one a browser stored decoded does not decode and stays as it is.
        stream
            .notes
            .push(format!("body decoded from {}", enc.name()));
        Some(enc)
    } else {
        None
    };
    let body = match (body, encoded) {
        (Spooled::Mem(b), None) => EntryBody::Mem(b),
        (Spooled::Mem(b), Some(enc)) => {
            decoded = true;
            let mut plain = Vec::new();
            let mut r = super::decode::decoder(
                enc,
                Box::new(std::io::Cursor::new(b)),
                stream.evidence.clone(),
                max_decoded,
            );
            let _ = r.read_to_end(&mut plain);
            EntryBody::Mem(plain)
        }
        (s, enc) => {
            decoded = enc.is_some();
            EntryBody::Spooled(s, enc, stream.evidence.clone(), max_decoded)
        }
    };
    // content.size is the decoded length (HAR 1.2): a body stored as
    // received, gzip and all, is measured once decoded. A compressed body
    // too large to keep in memory is decoded as it is read, so its decoded
    // length is not known here: only the Firefox limit is checked then.
    let measured = match &body {
        EntryBody::Mem(b) => Some(b.len() as u64),
        EntryBody::Spooled(_, None, ..) => Some(stored),
        EntryBody::Spooled(_, Some(_), ..) => None,
    };
    if stored == FIREFOX_BODY_LIMIT as u64 {
        super::note_truncation(
            &stream.evidence,
            format!(
                "the HAR body is exactly 1 MiB (content.size says {size}), Firefox's default response body limit (devtools.netmonitor.responseBodyLimit): the browser cut it"
            ),
        );
    } else if let Some(len) = measured.filter(|&len| size > 0 && (len as i64) < size && len > 0) {
        super::note_truncation(
            &stream.evidence,
            format!(
                "the HAR body holds {len} bytes{} but content.size says {size}: the capture tool cut it",
                if decoded { " once decoded" } else { "" }
            ),
        );
    }
    let status = status_of(entry);
    let headers = headers_of(entry.pointer("/response/headers"));
    let content_type = super::find_header(&headers, "content-type")
        .map(str::to_string)
        .or_else(|| {
            content
                .and_then(|c| c.get("mimeType"))
                .and_then(Value::as_str)
                .filter(|m| !m.is_empty())
                .map(str::to_string)
        });
    stream.http = Some(Http {
        status: status.min(u16::MAX as u64) as u16,
        reason: str_at(entry, &["response", "statusText"])
            .unwrap_or("")
            .to_string(),
        version: str_at(entry, &["response", "httpVersion"])
            .unwrap_or("")
            .to_string(),
        headers,
        content_type,
    });
    stream.request = Some(Request {
        method: method.to_string(),
        url: url.to_string(),
        headers: headers_of(entry.pointer("/request/headers")),
        body: str_at(entry, &["request", "postData", "text"]).map(str::to_string),
    });
    stream.timing = timing(entry);
    // `probe` leaves out a body that would show a secret, and says why.
    if let Some(w) = entry.pointer("/_sselint/withheld").and_then(Value::as_str) {
        stream.notes.push(super::printable(w));
    }
    // `probe` keeps a compressed answer decoded, its header dropped.
    if let Some(e) = entry.pointer("/_sselint/decoded").and_then(Value::as_str) {
        stream.notes.push(format!(
            "body decoded from {} by the recorder",
            super::printable(e)
        ));
    }
    match entry.pointer("/_sselint/stopped").and_then(Value::as_str) {
        Some("interrupted") => super::note_truncation(
            &stream.evidence,
            "the recording was stopped by Ctrl-C before the stream ended",
        ),
        // The hang-up may come after the whole stream (its first read
        // held it all): no truncation then.
        Some("hung-up") if body.ended() => stream.notes.push(
            "the recorder hung up on purpose after the stream's terminal event (sselint probe's disconnect scenario)"
                .to_string(),
        ),
        Some("hung-up") => super::note_truncation(
            &stream.evidence,
            "the recorder hung up on purpose before the stream ended (sselint probe's disconnect scenario)",
        ),
        Some("size-limit") => super::note_truncation(
            &stream.evidence,
            "the recorder stopped reading at its size limit before the stream ended (sselint probe: 4 MiB)",
        ),
        Some("timeout") => super::note_truncation(
            &stream.evidence,
            "the recording was stopped by its --timeout (the limit on the whole exchange) before the stream ended",
        ),
        // The server sent nothing for the whole --read-timeout: the stream
        // stalled, which is the server's failure, not the recorder's.
        Some("read-timeout") => super::note_cut(
            &stream.evidence,
            "the server sent nothing for the recording's --read-timeout, so the read gave up",
        ),
        Some(s) if s.starts_with("connection-error") => {
            stream.notes.push(format!("recording ended by a {s}"));
        }
        _ => {}
    }
    stream.origin = Origin {
        file_start: None,
        har_entry: Some(i),
        har_text: text_at.map(|t| HarText {
            mapped: if as_is && !decoded { t.mapped } else { 0 },
            ..t
        }),
    };
    if let (Some(HarText { mapped: 1.., .. }), EntryBody::Spooled(s, None, ..)) =
        (stream.origin.har_text, &body)
    {
        stream.spooled_text = Some(s.clone());
    }
    stream.body = body.into_body();
    Ok(stream)
}

/// A WebSocket entry's handshake response (101 on success), its headers
/// redacted as every entry's are.
fn handshake(entry: &Value) -> Http {
    Http {
        status: status_of(entry).min(u16::MAX as u64) as u16,
        reason: str_at(entry, &["response", "statusText"])
            .unwrap_or("")
            .to_string(),
        version: str_at(entry, &["response", "httpVersion"])
            .unwrap_or("")
            .to_string(),
        headers: headers_of(entry.pointer("/response/headers")),
        content_type: None,
    }
}

/// Whether an SSE `body` holds a terminal event of one of the dialects:
/// Chat's `data: [DONE]`, a Responses `response.completed`,
/// `response.failed` or `response.incomplete`, a Messages `message_stop`
/// (by its `event:` field or its data's `type`).
fn stream_ended(body: impl std::io::BufRead) -> bool {
    const TERMINAL: [&str; 4] = [
        "response.completed",
        "response.failed",
        "response.incomplete",
        "message_stop",
    ];
    body.split(b'\n').map_while(Result::ok).any(|line| {
        let line = line.strip_suffix(b"\r").unwrap_or(&line);
        let Ok(line) = std::str::from_utf8(line) else {
            return false;
        };
        let Some((field, value)) = line.split_once(':') else {
            return false;
        };
        // WHATWG: one space after the colon is not part of the value.
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "event" => TERMINAL.contains(&value),
            "data" if value == "[DONE]" => true,
            "data" => serde_json::from_str::<Value>(value).is_ok_and(|v| {
                v.get("type")
                    .and_then(Value::as_str)
                    .is_some_and(|t| TERMINAL.contains(&t))
            }),
            _ => false,
        }
    })
}

/// The response status: a number, or a string of digits (some exporters);
/// 0 when unknown.
fn status_of(entry: &Value) -> u64 {
    match entry.pointer("/response/status") {
        Some(Value::Number(n)) => n.as_u64().unwrap_or(0),
        Some(Value::String(s)) => s.trim().parse().unwrap_or(0),
        _ => 0,
    }
}

/// Per-read times from our own `_sselint.reads`, else per-message times from
/// Chrome's `_eventSourceMessages` (seconds, on DevTools' clock; made
/// relative to the entry's start). [`read`] puts the reads the parse kept
/// aside in their place.
fn timing(entry: &Value) -> Option<Timing> {
    if let Some(reads) = entry.pointer("/_sselint/reads").and_then(Value::as_array) {
        let v: Vec<Read_> = reads
            .iter()
            .filter_map(|r| {
                Some(Read_ {
                    offset: r.get("offset")?.as_u64()?,
                    ms: r.get("ms")?.as_f64()?,
                })
            })
            .collect();
        if !v.is_empty() {
            return Some(Timing::Reads(v));
        }
    }
    let msgs = entry.get("_eventSourceMessages")?.as_array()?;
    let times: Vec<f64> = msgs
        .iter()
        .filter_map(|m| m.get("time").and_then(Value::as_f64))
        .collect();
    let first = *times.first()?;
    // Chrome's message times are on its own clock; anchor the first message
    // at the time to first byte (send + wait) when the entry has timings.
    let ttfb = ["send", "wait", "blocked", "dns", "connect"]
        .iter()
        .filter_map(|k| {
            entry
                .pointer(&format!("/timings/{k}"))
                .and_then(Value::as_f64)
        })
        .filter(|v| *v > 0.0)
        .sum::<f64>();
    Some(Timing::Events(
        times.iter().map(|t| (t - first) * 1000.0 + ttfb).collect(),
    ))
}

/// Errors a browser writes when the page or the user stopped reading:
/// Chrome's `net::ERR_ABORTED` (Stop pressed, the page navigated away, the
/// app aborted the fetch), Firefox's `NS_BINDING_ABORTED`, WebKit's
/// `cancelled` (NSURLErrorCancelled).
const CLIENT_ABORTS: &[&str] = &["ERR_ABORTED", "NS_BINDING_ABORTED", "cancelled"];

/// Records the browser's own error for the entry (`response._error`, or
/// `_error` on the entry): a client abort cut the capture
/// (`capture-truncated`); anything else — `ERR_INCOMPLETE_CHUNKED_ENCODING`,
/// `ERR_HTTP2_PROTOCOL_ERROR`, `ERR_CONNECTION_RESET`,
/// `ERR_NETWORK_CHANGED`, Firefox's `NS_ERROR_NET_*` — broke the transfer,
/// and the ending rules cite it.
fn browser_error(entry: &Value, evidence: &super::Evidence) {
    let Some(err) = entry
        .pointer("/response/_error")
        .or_else(|| entry.get("_error"))
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|e| !e.is_empty())
    else {
        return;
    };
    let code = err.trim_start_matches("net::");
    if CLIENT_ABORTS.iter().any(|a| code.eq_ignore_ascii_case(a)) {
        super::note_truncation(
            evidence,
            format!(
                "the browser reported {err}: the client stopped reading (Stop pressed, the page navigated away, or the app aborted the request), so the capture ends there"
            ),
        );
    } else {
        super::note_cut(evidence, format!("the browser reported {err}"));
    }
}
