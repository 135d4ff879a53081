//! What surrounds a body in the output file, and how a body is written
//! into it: a raw body (nothing around it), a curl dump (the header lines
//! before it, curl's own lines after it, chunked framing and gzip where the
//! input had them), or a one-entry HAR.
//!
//! A body is a list of [`Unit`]s: the bytes of one SSE block each (a
//! dispatched event, a comment-only keep-alive, the tail), with the HAR
//! timing that belongs to it. Rendering joins the units and wraps them; the
//! output of [`render`] is exactly what `minimize` writes.

use base64::Engine as _;
use serde_json::{json, Value};
use std::io::Write as _;

/// One block of a body, with what a HAR knows of its timing.
#[derive(Debug, Clone)]
pub struct Unit {
    /// The block's bytes, line terminators and blank line included.
    pub bytes: Vec<u8>,
    /// The `_eventSourceMessages` record of the event this block
    /// dispatched (Chrome's per-event time).
    pub message: Option<Value>,
    /// `_sselint.reads` records that fall in this block: (offset inside
    /// the block, milliseconds). The first is at offset 0 when the block
    /// started inside an earlier read.
    pub reads: Vec<(u64, f64)>,
}

impl Unit {
    /// A unit of bare bytes.
    pub fn new(bytes: Vec<u8>) -> Self {
        Unit {
            bytes,
            message: None,
            reads: Vec::new(),
        }
    }
}

/// The file around a body.
#[derive(Debug, Clone)]
pub enum Shell {
    /// A raw body or a curl dump.
    Bytes(ByteShell),
    /// A one-entry HAR.
    Har(HarShell),
}

/// A raw body or a curl dump: `prefix` lines, the body (gzip-compressed,
/// then chunk-framed, as the input was), `suffix`.
#[derive(Debug, Clone, Default)]
pub struct ByteShell {
    /// Lines before the body (status line, headers, curl -v lines), each
    /// with its terminator.
    pub prefix: Vec<Vec<u8>>,
    /// Bytes after the body (curl's `curl: (18) …` line).
    pub suffix: Vec<u8>,
    /// Compress the body with gzip (the input's was).
    pub gzip: bool,
    /// Leave the gzip stream unfinished (flushed, without its last block
    /// and trailer), as the input's was: a cut compressed body is the
    /// finding's evidence.
    pub gzip_cut: bool,
    /// Chunked transfer framing (curl --raw): `Some(true)` with the final
    /// zero-size chunk, `Some(false)` without it.
    pub chunked: Option<bool>,
    /// The chunked body ends inside a chunk's data, as the input's did
    /// (the chunk's size says one byte more than it holds): the cut is the
    /// finding's evidence.
    pub chunk_cut: bool,
}

/// A one-entry HAR: the entry without its body text, timing records and
/// messages, which are rendered from the units.
#[derive(Debug, Clone)]
pub struct HarShell {
    /// The entry, secrets redacted.
    pub entry: Value,
    /// Write the body as base64 (always when it is not UTF-8).
    pub base64: bool,
    /// How much `content.size` exceeded the body (a cut capture's
    /// evidence), kept as a difference.
    pub size_extra: i64,
    /// The input had `_eventSourceMessages`.
    pub messages: bool,
    /// The input had `_sselint.reads`.
    pub reads: bool,
}

/// The output file for `units` inside `shell`, a gzip body compressed
/// fast (for candidates: the level changes the bytes, never what they
/// decode to).
pub fn render(shell: &Shell, units: &[&Unit]) -> Vec<u8> {
    render_at(shell, units, flate2::Compression::fast())
}

/// The file written: as [`render`], a gzip body compressed best.
pub fn render_final(shell: &Shell, units: &[&Unit]) -> Vec<u8> {
    render_at(shell, units, flate2::Compression::best())
}

fn render_at(shell: &Shell, units: &[&Unit], level: flate2::Compression) -> Vec<u8> {
    let total: usize = units.iter().map(|u| u.bytes.len()).sum();
    let mut body = Vec::with_capacity(total);
    for u in units {
        body.extend_from_slice(&u.bytes);
    }
    match shell {
        Shell::Bytes(s) => {
            if s.gzip {
                let mut enc = flate2::write::GzEncoder::new(Vec::new(), level);
                let _ = enc.write_all(&body);
                body = if s.gzip_cut {
                    let _ = enc.flush();
                    enc.get_ref().clone()
                } else {
                    enc.finish().unwrap_or_default()
                };
            }
            let mut out = Vec::with_capacity(body.len() + 256);
            for l in &s.prefix {
                out.extend_from_slice(l);
            }
            match s.chunked {
                Some(last) => {
                    if s.chunk_cut && !body.is_empty() {
                        out.extend_from_slice(format!("{:x}\r\n", body.len() + 1).as_bytes());
                        out.extend_from_slice(&body);
                    } else if !body.is_empty() {
                        out.extend_from_slice(format!("{:x}\r\n", body.len()).as_bytes());
                        out.extend_from_slice(&body);
                        out.extend_from_slice(b"\r\n");
                    }
                    if last {
                        out.extend_from_slice(b"0\r\n\r\n");
                    }
                }
                None => out.extend_from_slice(&body),
            }
            out.extend_from_slice(&s.suffix);
            out
        }
        Shell::Har(h) => {
            let mut e = h.entry.clone();
            if !e.get("response").is_some_and(Value::is_object) {
                e["response"] = json!({});
            }
            if !e["response"].get("content").is_some_and(Value::is_object) {
                e["response"]["content"] = json!({});
            }
            let size = body.len() as i64 + h.size_extra;
            let c = &mut e["response"]["content"];
            match (h.base64, std::str::from_utf8(&body)) {
                (false, Ok(text)) => {
                    c["text"] = Value::String(text.to_string());
                    if let Some(m) = c.as_object_mut() {
                        m.remove("encoding");
                    }
                }
                _ => {
                    let b64 = base64::engine::general_purpose::STANDARD.encode(&body);
                    c["text"] = Value::String(b64);
                    c["encoding"] = Value::String("base64".to_string());
                }
            }
            c["size"] = Value::from(size);
            if h.messages {
                let msgs: Vec<Value> = units.iter().filter_map(|u| u.message.clone()).collect();
                e["_eventSourceMessages"] = Value::Array(msgs);
            }
            if h.reads {
                let mut reads = Vec::new();
                let mut at = 0u64;
                for u in units {
                    for (off, ms) in &u.reads {
                        reads.push(json!({"offset": at + off, "ms": ms}));
                    }
                    at += u.bytes.len() as u64;
                }
                if !e.get("_sselint").is_some_and(Value::is_object) {
                    e["_sselint"] = json!({});
                }
                e["_sselint"]["reads"] = Value::Array(reads);
            }
            let doc = json!({
                "log": {
                    "version": "1.2",
                    "creator": {"name": "sselint minimize", "version": env!("CARGO_PKG_VERSION")},
                    "entries": [e],
                }
            });
            let mut v = serde_json::to_vec_pretty(&doc).unwrap_or_default();
            v.push(b'\n');
            v
        }
    }
}

/// Whether `b` is a gzip stream that ends before its end (decoding it
/// fails).
pub fn gzip_is_cut(b: &[u8]) -> bool {
    use std::io::Read as _;
    let mut d = flate2::read::GzDecoder::new(b);
    let mut sink = Vec::new();
    d.read_to_end(&mut sink).is_err()
}

/// Splits bytes into lines, each keeping its terminator (LF, CRLF or a
/// lone CR).
pub fn lines(b: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\n' => {
                out.push(b[start..=i].to_vec());
                start = i + 1;
            }
            b'\r' if b.get(i + 1) != Some(&b'\n') => {
                out.push(b[start..=i].to_vec());
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if start < b.len() {
        out.push(b[start..].to_vec());
    }
    out
}

/// Where the header blocks of a `curl -i` dump end (the offset of the
/// body's first byte): past leading blank space, every `HTTP/…` status line
/// and its headers up to the blank line.
pub fn curl_i_header_end(file: &[u8]) -> Option<usize> {
    let mut i = 0;
    if file.starts_with(&[0xEF, 0xBB, 0xBF]) {
        i = 3;
    }
    while i < file.len() && file[i].is_ascii_whitespace() {
        i += 1;
    }
    let mut end = None;
    while file[i..].starts_with(b"HTTP/") {
        // Lines up to the blank one.
        loop {
            let nl = memchr::memchr(b'\n', &file[i..])?;
            let line = &file[i..i + nl];
            i += nl + 1;
            if line.is_empty() || line == b"\r" {
                break;
            }
        }
        end = Some(i);
    }
    end
}

/// Chunked framing at the start of `b`: where it ends and whether it ended
/// with the zero-size chunk (its trailer and blank line included); the end
/// is `usize::MAX` when `b` ends inside a chunk's data.
pub fn chunked_end(b: &[u8]) -> (usize, bool) {
    let mut i = 0;
    loop {
        let Some(nl) = memchr::memchr(b'\n', &b[i..]) else {
            return (i, false);
        };
        let line = String::from_utf8_lossy(&b[i..i + nl]);
        let size_text = line
            .trim()
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_string();
        let Ok(size) = usize::from_str_radix(&size_text, 16) else {
            return (i, false);
        };
        let data = i + nl + 1;
        if size == 0 {
            // Trailer lines up to a blank one.
            let mut j = data;
            while let Some(nl) = memchr::memchr(b'\n', &b[j..]) {
                let l = &b[j..j + nl];
                j += nl + 1;
                if l.is_empty() || l == b"\r" {
                    return (j, true);
                }
            }
            return (b.len(), true);
        }
        if data + size > b.len() {
            return (usize::MAX, false);
        }
        let mut next = data + size;
        if b[next..].starts_with(b"\r\n") {
            next += 2;
        } else if b[next..].starts_with(b"\n") {
            next += 1;
        }
        i = next;
    }
}
