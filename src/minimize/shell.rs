//! What surrounds a body in the output file, and how a body is written
//! into it: a raw body (nothing around it), a curl dump (the header lines
//! before it, curl's own lines after it, chunked framing and gzip where the
//! input had them), or a one-entry HAR.
//!
//! A body is a list of [`Unit`]s: one SSE block each (a dispatched event, a
//! comment-only keep-alive, the tail), its bytes in the run's [`Heap`], with
//! the HAR timing that belongs to it. Rendering joins the units and wraps
//! them, as it goes, into a writer; the output of [`render`] is exactly what
//! `minimize` writes.

use super::heap::{Heap, Piece};
use serde_json::{json, Value};
use std::io::{self, Write};

/// One block of a body, with what a HAR knows of its timing.
#[derive(Debug, Clone)]
pub struct Unit {
    /// Where the block's bytes are (line terminators and blank line
    /// included).
    pub bytes: Piece,
    /// What a HAR knows of it, when it knows anything.
    pub timing: Option<Box<UnitTiming>>,
}

/// A HAR's timing of one block.
#[derive(Debug, Clone, Default)]
pub struct UnitTiming {
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
    pub fn new(bytes: Piece) -> Self {
        Unit {
            bytes,
            timing: None,
        }
    }

    /// Its `_eventSourceMessages` record.
    pub fn message(&self) -> Option<&Value> {
        self.timing.as_ref()?.message.as_ref()
    }

    /// Its `_sselint.reads` records.
    pub fn reads(&self) -> &[(u64, f64)] {
        self.timing.as_ref().map_or(&[], |t| &t.reads)
    }

    /// Its timing, made when it has none.
    pub fn timing_mut(&mut self) -> &mut UnitTiming {
        self.timing.get_or_insert_with(Box::default)
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
    /// The entry is a WebSocket's (Chrome's `_webSocketMessages`): the
    /// units are its message log's lines, written back as its frames, and
    /// the response's content is left as it is.
    pub socket: bool,
}

/// Writes the file for `units` inside `shell` to `out`, a gzip body
/// compressed fast (for candidates: the level changes the bytes, never
/// what they decode to).
///
/// # Errors
/// Writing to `out`.
pub fn render(shell: &Shell, heap: &Heap, units: &[&Unit], out: &mut dyn Write) -> io::Result<()> {
    render_at(shell, heap, units, out, flate2::Compression::fast())
}

/// The file written: as [`render`], a gzip body compressed best, in
/// memory (the output is the minimized capture).
pub fn render_final(shell: &Shell, heap: &Heap, units: &[&Unit]) -> Vec<u8> {
    let mut out = Vec::new();
    let done = render_at(shell, heap, units, &mut out, flate2::Compression::best());
    debug_assert!(done.is_ok(), "writing to memory cannot fail");
    out
}

fn render_at(
    shell: &Shell,
    heap: &Heap,
    units: &[&Unit],
    out: &mut dyn Write,
    level: flate2::Compression,
) -> io::Result<()> {
    match shell {
        Shell::Bytes(s) => render_bytes(s, heap, units, out, level),
        Shell::Har(h) => render_har(h, heap, units, out),
    }
}

/// The units' bytes, joined, to `out`.
fn write_body(heap: &Heap, units: &[&Unit], out: &mut dyn Write) -> io::Result<()> {
    heap.write_all(units.iter().map(|u| u.bytes), out, &mut |_| Ok(()))
}

/// Lets writes through until it is closed, then drops them: a gzip stream
/// left unfinished is flushed, then its encoder dropped without a trailer.
struct Gate<'a> {
    out: &'a mut dyn Write,
    open: bool,
}

impl Write for Gate<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.open {
            self.out.write(buf)
        } else {
            Ok(buf.len())
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The body gzip-compressed (left unfinished when `cut`) to `out`.
fn write_gzip(
    heap: &Heap,
    units: &[&Unit],
    out: &mut dyn Write,
    cut: bool,
    level: flate2::Compression,
) -> io::Result<()> {
    let mut enc = flate2::write::GzEncoder::new(Gate { out, open: true }, level);
    write_body(heap, units, &mut enc)?;
    if cut {
        enc.flush()?;
        enc.get_mut().open = false;
        Ok(())
    } else {
        enc.finish().map(|_| ())
    }
}

fn render_bytes(
    s: &ByteShell,
    heap: &Heap,
    units: &[&Unit],
    out: &mut dyn Write,
    level: flate2::Compression,
) -> io::Result<()> {
    for l in &s.prefix {
        out.write_all(l)?;
    }
    match s.chunked {
        None if s.gzip => write_gzip(heap, units, out, s.gzip_cut, level)?,
        None => write_body(heap, units, out)?,
        Some(last) => {
            // The chunk's size comes first: a compressed body is
            // compressed aside, then copied.
            let mut aside = crate::capture::spool::Spool::default();
            let len = if s.gzip {
                write_gzip(heap, units, &mut aside, s.gzip_cut, level)?;
                None
            } else {
                Some(units.iter().map(|u| u.bytes.len()).sum::<usize>())
            };
            let aside = aside.finish().map_err(io::Error::other)?;
            let len = len.unwrap_or(aside.len() as usize);
            if len > 0 {
                let size = if s.chunk_cut { len + 1 } else { len };
                write!(out, "{size:x}\r\n")?;
                if s.gzip {
                    io::copy(&mut aside.into_reader(), out)?;
                } else {
                    write_body(heap, units, out)?;
                }
                if !s.chunk_cut {
                    out.write_all(b"\r\n")?;
                }
            }
            if last {
                out.write_all(b"0\r\n\r\n")?;
            }
        }
    }
    out.write_all(&s.suffix)
}

/// What stands for the body's text in the serialized entry until the body
/// is written in its place (a NUL is never in a string of a redacted
/// entry: serde_json writes it `\u0000`, and the marker is searched for
/// with its quotes).
const TEXT_MARK: &str = "\u{0}sselint:content.text\u{0}";

/// Whether the units' bytes, joined, are UTF-8 (each unit ends at a line
/// end, so no character is cut between two).
fn body_is_utf8(heap: &Heap, units: &[&Unit]) -> bool {
    let mut ok = true;
    let _ = heap.write_all(units.iter().map(|u| u.bytes), &mut io::sink(), &mut |b| {
        ok &= std::str::from_utf8(b).is_ok();
        Ok(())
    });
    ok
}

/// What stands for a socket's frames in the serialized entry until they
/// are written in its place (as [`TEXT_MARK`]).
const FRAMES_MARK: &str = "\u{0}sselint:_webSocketMessages\u{0}";

/// The one-entry HAR document around `e`, serialized.
fn har_document(e: Value) -> io::Result<Vec<u8>> {
    let doc = json!({
        "log": {
            "version": "1.2",
            "creator": {"name": "sselint minimize", "version": env!("CARGO_PKG_VERSION")},
            "entries": [e],
        }
    });
    let mut v = serde_json::to_vec_pretty(&doc).map_err(io::Error::other)?;
    v.push(b'\n');
    Ok(v)
}

/// A socket's entry: the units (message log lines) written as its
/// `_webSocketMessages`, one frame record a line, as they go (the frames
/// are never all held as JSON values).
fn render_socket_har(
    h: &HarShell,
    heap: &Heap,
    units: &[&Unit],
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut e = h.entry.clone();
    e["_webSocketMessages"] = Value::String(FRAMES_MARK.to_string());
    let v = har_document(e)?;
    let mark = serde_json::to_vec(FRAMES_MARK).map_err(io::Error::other)?;
    let Some(at) = memchr::memmem::find(&v, &mark) else {
        return Err(io::Error::other(
            "the frames' place in the HAR entry is lost",
        ));
    };
    out.write_all(&v[..at])?;
    out.write_all(b"[")?;
    let mut first = true;
    heap.write_all(units.iter().map(|u| u.bytes), &mut io::sink(), &mut |b| {
        // Each unit is whole lines: a record and the blank lines after it.
        for line in String::from_utf8_lossy(b).lines() {
            if line.trim().is_empty() {
                continue;
            }
            let frame = crate::transport::socket_log::har_message(line);
            // Indented as the entry's other members are.
            out.write_all(if first {
                b"\n          "
            } else {
                b",\n          "
            })?;
            first = false;
            serde_json::to_writer(&mut *out, &frame).map_err(io::Error::other)?;
        }
        Ok(())
    })?;
    out.write_all(b"\n        ]")?;
    out.write_all(&v[at + mark.len()..])
}

fn render_har(h: &HarShell, heap: &Heap, units: &[&Unit], out: &mut dyn Write) -> io::Result<()> {
    if h.socket {
        return render_socket_har(h, heap, units, out);
    }
    let mut e = h.entry.clone();
    if !e.get("response").is_some_and(Value::is_object) {
        e["response"] = json!({});
    }
    if !e["response"].get("content").is_some_and(Value::is_object) {
        e["response"]["content"] = json!({});
    }
    let body_len: usize = units.iter().map(|u| u.bytes.len()).sum();
    let size = body_len as i64 + h.size_extra;
    let text = !h.base64 && body_is_utf8(heap, units);
    let c = &mut e["response"]["content"];
    c["text"] = Value::String(TEXT_MARK.to_string());
    if text {
        if let Some(m) = c.as_object_mut() {
            m.remove("encoding");
        }
    } else {
        c["encoding"] = Value::String("base64".to_string());
    }
    c["size"] = Value::from(size);
    if h.messages {
        let msgs: Vec<Value> = units.iter().filter_map(|u| u.message().cloned()).collect();
        e["_eventSourceMessages"] = Value::Array(msgs);
    }
    if h.reads {
        let mut reads = Vec::new();
        let mut at = 0u64;
        for u in units {
            for (off, ms) in u.reads() {
                reads.push(json!({"offset": at + off, "ms": ms}));
            }
            at += u.bytes.len() as u64;
        }
        if !e.get("_sselint").is_some_and(Value::is_object) {
            e["_sselint"] = json!({});
        }
        e["_sselint"]["reads"] = Value::Array(reads);
    }
    let v = har_document(e)?;
    let mark = serde_json::to_vec(TEXT_MARK).map_err(io::Error::other)?;
    let Some(at) = memchr::memmem::find(&v, &mark) else {
        return Err(io::Error::other(
            "the body's place in the HAR entry is lost",
        ));
    };
    out.write_all(&v[..at])?;
    out.write_all(b"\"")?;
    if text {
        // Each piece is whole characters: escaped alone, as the whole
        // string would be.
        heap.write_all(units.iter().map(|u| u.bytes), &mut io::sink(), &mut |b| {
            let s = std::str::from_utf8(b).map_err(io::Error::other)?;
            let q = serde_json::to_vec(s).map_err(io::Error::other)?;
            out.write_all(&q[1..q.len() - 1])
        })?;
    } else {
        let mut enc = base64::write::EncoderWriter::new(
            &mut *out,
            &base64::engine::general_purpose::STANDARD,
        );
        write_body(heap, units, &mut enc)?;
        enc.finish()?;
    }
    out.write_all(b"\"")?;
    out.write_all(&v[at + mark.len()..])
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
