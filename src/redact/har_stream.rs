//! A HAR redacted as a stream: the document is parsed from the file with
//! each entry's `response.content.text` decoded aside as it goes by
//! ([`capture::har::texts`]: memory up to 2 MiB, then a temporary file), the
//! rest redacted as [`super::har`] does, each body rewritten aside, and the
//! copy written with each body put back in its place. The copy is the same
//! bytes as the whole document rewritten in memory gives; a 100 MB body
//! costs files, not memory.

use super::{follow_size, masked_to, stored_as, undecodable, Bodies, HarError, How, Scrubber};
use crate::capture::spool::{Spool, Spooled};
use crate::capture::{self, decode, har_pos};
use base64::Engine as _;
use serde_json::Value;
use std::collections::HashMap;
use std::io::{self, BufReader, Read, Write};

/// What went wrong redacting a HAR.
#[derive(Debug)]
pub enum CopyError {
    /// The input: not a HAR, unreadable, a body that cannot be made safe.
    Input(String),
    /// Writing the copy.
    Write(io::Error),
}

impl std::fmt::Display for CopyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CopyError::Input(m) => f.write_str(m),
            CopyError::Write(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for CopyError {}

/// Writes the redacted copy ([`super::har`], pretty-printed, then a line
/// end) of the HAR that `open` reads to `out`, in flat memory. A file the
/// streamed parse does not take as it is (a byte-order mark, a body that
/// is not a string, JSON that does not parse) is read whole, as before, so
/// that its copy, or its error, is the same.
///
/// # Errors
/// [`CopyError::Input`] for the input (its message names no file),
/// [`CopyError::Write`] for writing.
pub fn har_to(
    open: &dyn Fn() -> io::Result<Box<dyn Read + Send>>,
    out: &mut dyn Write,
    scrub: Option<&mut Scrubber>,
) -> Result<(), CopyError> {
    let input = |e: io::Error| CopyError::Input(capture::io_message(&e));
    let mut head = [0u8; 3];
    let n = read_full(&mut open().map_err(input)?, &mut head);
    let streamed = if head[..n] == [0xEF, 0xBB, 0xBF] {
        None
    } else {
        capture::har::texts("", open().map_err(input)?)
            .ok()
            .filter(|(_, t)| {
                t.values()
                    .all(|t| matches!(t, har_pos::Text::Str(Ok(_)) | har_pos::Text::Null))
            })
    };
    let Some((mut doc, texts)) = streamed else {
        return whole(open, out, scrub);
    };
    let mut aside = Aside::default();
    for (i, t) in texts {
        match t {
            har_pos::Text::Str(Ok(s)) => {
                aside.texts.insert(i, s);
            }
            _ => {
                aside.nulls.push(i);
            }
        }
    }
    super::har_with(&mut doc, scrub, &mut aside).map_err(|e| CopyError::Input(e.to_string()))?;
    aside.write(&mut doc, out).map_err(CopyError::Write)
}

/// The copy of a HAR read whole (the way every HAR was redacted before).
fn whole(
    open: &dyn Fn() -> io::Result<Box<dyn Read + Send>>,
    out: &mut dyn Write,
    scrub: Option<&mut Scrubber>,
) -> Result<(), CopyError> {
    let mut bytes = Vec::new();
    open()
        .and_then(|mut r| r.read_to_end(&mut bytes))
        .map_err(|e| CopyError::Input(capture::io_message(&e)))?;
    let mut doc: Value = serde_json::from_slice(&bytes)
        .map_err(|e| CopyError::Input(format!("not a HAR file: the JSON does not parse ({e})")))?;
    drop(bytes);
    super::har(&mut doc, scrub).map_err(|e| CopyError::Input(e.to_string()))?;
    serde_json::to_writer_pretty(&mut *out, &doc)
        .map_err(io::Error::from)
        .and_then(|()| out.write_all(b"\n"))
        .map_err(CopyError::Write)
}

/// Each entry's body, aside: as read, then as rewritten.
#[derive(Default)]
struct Aside {
    /// Entry index → its text as read (a JSON string, decoded).
    texts: HashMap<usize, Spooled>,
    /// Entries whose text was `null`.
    nulls: Vec<usize>,
    /// Entry index → its text as rewritten: UTF-8, a JSON string's content.
    done: HashMap<usize, Spooled>,
}

impl Bodies for Aside {
    fn rewrite(&mut self, i: usize, entry: &mut Value, how: How<'_>) -> Result<(), HarError> {
        let Some(text) = self.texts.remove(&i) else {
            return Ok(());
        };
        let new = rewrite_text(entry, &text, how)?;
        self.done.insert(i, new.unwrap_or(text));
        Ok(())
    }
}

/// What stands for entry `i`'s text in the serialized document until the
/// text is written in its place (a NUL is written `\u0000` by serde_json;
/// the mark is searched for with its quotes, from where the last one was).
fn mark(i: usize) -> String {
    format!("\u{0}sselint:content.text:{i}\u{0}")
}

impl Aside {
    /// Writes the document, pretty-printed, each text in its place.
    fn write(mut self, doc: &mut Value, out: &mut dyn Write) -> io::Result<()> {
        let mut order: Vec<usize> = self.done.keys().chain(self.texts.keys()).copied().collect();
        order.sort_unstable();
        let entries = doc
            .pointer_mut("/log/entries")
            .and_then(Value::as_array_mut);
        if let Some(entries) = entries {
            for (i, e) in entries.iter_mut().enumerate() {
                let text = if order.binary_search(&i).is_ok() {
                    Value::String(mark(i))
                } else if self.nulls.contains(&i) {
                    Value::Null
                } else {
                    continue;
                };
                if let Some(Value::Object(c)) = e.pointer_mut("/response/content") {
                    c.insert("text".to_string(), text);
                }
            }
        }
        let shell = serde_json::to_vec_pretty(doc).map_err(io::Error::from)?;
        let mut at = 0;
        for i in order {
            let m = serde_json::to_vec(&mark(i)).map_err(io::Error::from)?;
            let Some(found) = memchr::memmem::find(&shell[at..], &m) else {
                continue;
            };
            out.write_all(&shell[at..at + found])?;
            let text = self.done.remove(&i).or_else(|| self.texts.remove(&i));
            out.write_all(b"\"")?;
            if let Some(t) = text {
                write_escaped(&t, out)?;
            }
            out.write_all(b"\"")?;
            at += found + m.len();
        }
        out.write_all(&shell[at..])?;
        out.write_all(b"\n")
    }
}

/// Writes UTF-8 text as the content of a JSON string (serde_json's
/// escapes), a piece of whole characters at a time.
fn write_escaped(t: &Spooled, out: &mut dyn Write) -> io::Result<()> {
    let mut r = t.reader();
    let mut buf = vec![0u8; 256 * 1024];
    let mut carry = 0;
    loop {
        let n = read_full(&mut r, &mut buf[carry..]) + carry;
        if n == 0 {
            return Ok(());
        }
        let ends = n < buf.len();
        // The last character may be cut: it waits for the next piece.
        let mut cut = n;
        if !ends {
            while cut > 0 && buf[cut - 1] & 0xC0 == 0x80 {
                cut -= 1;
            }
            cut = cut.saturating_sub(1);
        }
        let s = std::str::from_utf8(&buf[..cut]).map_err(io::Error::other)?;
        let q = serde_json::to_vec(s).map_err(io::Error::from)?;
        out.write_all(&q[1..q.len() - 1])?;
        buf.copy_within(cut..n, 0);
        carry = n - cut;
        if ends {
            return Ok(());
        }
    }
}

/// Reads until `buf` is full or the reader ends; the bytes read.
fn read_full(r: &mut dyn Read, buf: &mut [u8]) -> usize {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) | Err(_) => break,
            Ok(k) => n += k,
        }
    }
    n
}

/// Entry's text rewritten through `how`, as [`super::rewrite_response_text`]
/// does it in memory: base64 decoded, a body stored compressed decoded, the
/// body masked (and scrubbed), written back as base64 or as text (invalid
/// UTF-8 replaced), `content.size` following. `None`: left as it is (its
/// base64 does not decode).
fn rewrite_text(
    entry: &mut Value,
    text: &Spooled,
    how: How<'_>,
) -> Result<Option<Spooled>, HarError> {
    let (base64, named) = stored_as(entry);
    let bytes = if base64 {
        match decode_base64(text)? {
            Some(b) => b,
            None => return Ok(None),
        }
    } else {
        text.clone()
    };
    let plain = decoded(bytes, named)?;
    let aside = |e: io::Error| HarError::Aside(capture::io_message(&e));
    let mut head = Vec::new();
    (&mut plain.reader())
        .take(16)
        .read_to_end(&mut head)
        .map_err(aside)?;
    let mut masked = Spool::default();
    if super::is_event_stream(&head) {
        // Frames are rewritten whole (their lengths and CRCs change), in
        // memory, as the in-document path does.
        let mut frames = Vec::with_capacity(plain.len() as usize);
        plain.reader().read_to_end(&mut frames).map_err(aside)?;
        masked.write_all(&how.body(&frames)?).map_err(aside)?;
    } else {
        let mut reader = BufReader::with_capacity(64 * 1024, plain.reader());
        let done = match how {
            How::Mask => masked_to(&mut reader, &mut masked, None, false),
            How::Scrub(s) => masked_to(&mut reader, &mut masked, Some(s), false),
        };
        done.map_err(aside)?;
    }
    let masked = masked.finish()?;
    let grew = masked.len() as i64 - plain.len() as i64;
    drop(plain);
    let written = if base64 {
        let mut out = Spool::default();
        {
            let mut enc = base64::write::EncoderWriter::new(
                &mut out,
                &base64::engine::general_purpose::STANDARD,
            );
            io::copy(&mut masked.reader(), &mut enc)
                .map_err(|e| HarError::Aside(capture::io_message(&e)))?;
            enc.finish()
                .map_err(|e| HarError::Aside(capture::io_message(&e)))?;
        }
        out.finish()?
    } else {
        lossy(&masked)?
    };
    follow_size(entry, grew);
    Ok(Some(written))
}

/// A base64 text decoded, four characters at a time as the whole text
/// would be (padding only at its end); `None` when it is not base64.
fn decode_base64(text: &Spooled) -> Result<Option<Spooled>, HarError> {
    let engine = base64::engine::general_purpose::STANDARD;
    let mut r = text.reader();
    let mut buf = vec![0u8; 4 * 64 * 1024];
    let mut out = Spool::default();
    loop {
        let n = read_full(&mut r, &mut buf);
        let last = n < buf.len();
        if !last && buf.contains(&b'=') {
            return Ok(None);
        }
        match engine.decode(&buf[..n]) {
            Ok(b) => out.extend(&b),
            Err(_) => return Ok(None),
        }
        if last {
            return Ok(Some(out.finish()?));
        }
    }
}

/// The body, decoded when it is stored compressed (gzip by its magic
/// bytes; deflate or br as its `Content-Encoding` names), as `check`
/// reads it.
fn decoded(bytes: Spooled, named: Option<decode::Encoding>) -> Result<Spooled, HarError> {
    // What `starts_encoded` reads of a body: all of one held in memory,
    // the first MiB of one on disk.
    let head = match &bytes {
        Spooled::Mem(b) => b.clone(),
        f @ Spooled::File(..) => f.head(1024 * 1024),
    };
    let stored = if decode::is_gzip(&head) {
        Some(decode::Encoding::Gzip)
    } else {
        named.filter(|e| *e != decode::Encoding::Gzip && decode::starts_encoded(*e, &head))
    };
    let Some(enc) = stored else {
        return Ok(bytes);
    };
    let evidence = capture::Evidence::default();
    let mut r = decode::decoder(
        enc,
        bytes.into_reader(),
        evidence.clone(),
        decode::MAX_DECODED_BYTES,
    );
    let mut plain = Spool::default();
    let read = io::copy(&mut r, &mut plain);
    let damaged = evidence.lock().map(|e| !e.is_empty()).unwrap_or(true);
    if read.is_err() || damaged {
        return Err(undecodable(enc));
    }
    Ok(plain.finish()?)
}

/// Bytes as UTF-8, each invalid sequence replaced (as
/// `String::from_utf8_lossy`), a line at a time (no sequence spans a line
/// end).
fn lossy(b: &Spooled) -> Result<Spooled, HarError> {
    let mut r = b.reader();
    let mut out = Spool::default();
    let mut buf = vec![0u8; 256 * 1024];
    let mut carry = 0;
    loop {
        let n = read_full(&mut r, &mut buf[carry..]) + carry;
        let ends = n < buf.len();
        let cut = if ends {
            n
        } else {
            memchr::memrchr(b'\n', &buf[..n]).map_or(0, |i| i + 1)
        };
        out.extend(String::from_utf8_lossy(&buf[..cut]).as_bytes());
        buf.copy_within(cut..n, 0);
        carry = n - cut;
        if ends {
            return Ok(out.finish()?);
        }
        if carry == buf.len() {
            // A line longer than the buffer: the buffer grows.
            buf.resize(buf.len() * 2, 0);
        }
    }
}
