//! Where each HAR entry's `response.content.text` sits in the file, learnt
//! while the document is parsed from its reader (no second copy, no second
//! pass), and how body positions map onto it.
//!
//! `Tracker` sits between the buffered file and `serde_json`, which reads
//! one byte at a time, so it sees every byte just as the parser takes it and
//! counts lines and columns. The document is built by [`Doc`], which
//! follows the path `log.entries[N].response.content` and, on the key
//! `text`, arms the tracker: the next character that is neither white space
//! nor `:` is the value's start. Inside a string the tracker counts the
//! body bytes it decodes to and notes the first unusual escape (`\/`, a
//! `\uXXXX` for a character that needs none); up to there the body maps onto
//! the file, character by character.

use super::spool::{Spool, Spooled};
use super::{FilePos, HarText};
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::io::{self, BufRead, Read};
use std::rc::Rc;

/// The state shared by the reader and the document's visitors.
#[derive(Debug, Default)]
pub struct Track {
    /// Bytes taken so far.
    pos: u64,
    /// The current line (0 before the first byte is counted; see `new`).
    line: u64,
    /// Code points taken on the current line.
    col: u64,
    /// Bytes of the current line the reader took past the parser
    /// ([`Track::skip_run`]): serde_json's column for an error on this
    /// line is short by that many.
    hidden: u64,
    state: State,
    /// `(entry index, where its text value is)`, in document order.
    pub found: Vec<(usize, HarText)>,
    /// `(entry index, its text value)`, in document order: a string is
    /// decoded into a [`Spool`] as the parser reads it (the parser itself
    /// skips the string and never holds it).
    pub texts: Vec<(usize, Text)>,
    /// The string being decoded.
    out: Decoded,
    /// `(entry index, its _sselint.reads)`, in document order, when the
    /// reads are kept aside ([`Track::keep_reads_aside`]): a time per read
    /// as 16 bytes, not as a JSON object in the document (about 600 bytes:
    /// 12,700 reads of a 100 MB recording held 8 MB).
    pub reads: Option<Vec<(usize, Vec<super::Read_>)>>,
}

/// An entry's `content.text`, as the tracker read it.
#[derive(Debug)]
pub enum Text {
    /// `null`.
    Null,
    /// A string, decoded; `Err` says why it cannot be read (not UTF-8, a
    /// lone surrogate escape, the temporary file).
    Str(Result<Spooled, TextError>),
    /// Another JSON type: its name (`number`, `boolean`, `object`, `array`).
    Other(&'static str),
}

/// Why an entry's `content.text` string cannot be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TextError {
    /// It ends inside a UTF-8 character.
    #[error("the string is not UTF-8")]
    NotUtf8,
    /// A byte that is not UTF-8, or a lone surrogate escape (which).
    #[error("the string cannot be read: {0}")]
    Unreadable(&'static str),
    /// Its temporary file (what the spool said).
    #[error(transparent)]
    Spool(#[from] super::spool::SpoolError),
}

/// The string being decoded, and the check that it is UTF-8.
#[derive(Debug, Default)]
struct Decoded {
    spool: Spool,
    /// Continuation bytes the current character still needs, and the
    /// range the next one must be in.
    need: u8,
    lo: u8,
    hi: u8,
    bad: Option<&'static str>,
}

impl Decoded {
    #[inline(always)]
    fn byte(&mut self, b: u8) {
        self.spool.push(b);
        if self.need == 0 && b < 0x80 {
            return;
        }
        self.multibyte(b);
    }

    /// The UTF-8 check of a byte that is not ASCII or continues a
    /// character.
    fn multibyte(&mut self, b: u8) {
        if self.need > 0 {
            if b < self.lo || b > self.hi {
                self.bad.get_or_insert("it is not UTF-8");
            }
            self.need -= 1;
            (self.lo, self.hi) = (0x80, 0xBF);
            return;
        }
        (self.need, self.lo, self.hi) = match b {
            0x00..=0x7F => return,
            0xC2..=0xDF => (1, 0x80, 0xBF),
            0xE0 => (2, 0xA0, 0xBF),
            0xED => (2, 0x80, 0x9F),
            0xE1..=0xEF => (2, 0x80, 0xBF),
            0xF0 => (3, 0x90, 0xBF),
            0xF1..=0xF3 => (3, 0x80, 0xBF),
            0xF4 => (3, 0x80, 0x8F),
            _ => {
                self.bad.get_or_insert("it is not UTF-8");
                return;
            }
        };
    }

    /// A run of bytes that holds no escape: ASCII is appended at once.
    fn run(&mut self, run: &[u8]) {
        if self.need == 0 && run.is_ascii() {
            self.spool.extend(run);
        } else {
            for &b in run {
                self.byte(b);
            }
        }
    }

    fn char(&mut self, c: char) {
        let mut buf = [0u8; 4];
        for &b in c.encode_utf8(&mut buf).as_bytes() {
            self.byte(b);
        }
    }

    fn finish(&mut self) -> Result<Spooled, TextError> {
        let d = std::mem::take(self);
        if d.need > 0 {
            return Err(TextError::NotUtf8);
        }
        if let Some(why) = d.bad {
            return Err(TextError::Unreadable(why));
        }
        Ok(d.spool.finish()?)
    }
}

#[derive(Debug, Default, Clone, Copy)]
enum State {
    #[default]
    Idle,
    /// The key `text` of entry N was read; its value comes next.
    Armed(usize),
    /// Inside entry N's text string.
    Str {
        entry: usize,
        start: FilePos,
        /// Body bytes decoded so far.
        body: u64,
        /// Body offset of the first unusual escape.
        mapped: Option<u64>,
        esc: Esc,
    },
}

/// Where the tracker is inside an escape sequence.
#[derive(Debug, Default, Clone, Copy)]
enum Esc {
    #[default]
    None,
    /// After `\`.
    Backslash,
    /// After `\u` and `n` hex digits making `cp`; `hi` is a pending high
    /// surrogate.
    Hex { n: u8, cp: u32, hi: Option<u32> },
    /// After a high surrogate, expecting `\`.
    WantLow(u32),
    /// After a high surrogate and `\`, expecting `u`.
    WantLowU(u32),
}

impl Track {
    /// A tracker for a file whose first `skipped` bytes (a BOM) were taken
    /// before parsing.
    pub fn new(skipped: u64) -> Self {
        Track {
            pos: skipped,
            line: 1,
            ..Track::default()
        }
    }

    /// Each entry's `_sselint.reads` array goes to [`Track::reads`], and
    /// out of the document: for a document read to be linted, not written
    /// again.
    pub fn keep_reads_aside(&mut self) {
        self.reads = Some(Vec::new());
    }

    /// The value of entry `i`'s `content.text` comes next.
    fn arm(&mut self, i: usize) {
        self.state = State::Armed(i);
    }

    /// The value was read: whatever the tracker thought, it is done.
    fn disarm(&mut self) {
        self.state = State::Idle;
    }

    #[inline]
    fn byte(&mut self, b: u8) {
        self.pos += 1;
        if b == b'\n' {
            self.line += 1;
            self.col = 0;
            self.hidden = 0;
            // A JSON string holds no raw line feed: only white space here.
            return;
        }
        if b & 0xC0 != 0x80 {
            self.col += 1;
        }
        // The common cases, inline: outside any text, and a plain byte of
        // a text (the parser hands them over one call each).
        match &mut self.state {
            State::Idle => return,
            State::Str {
                body,
                esc: Esc::None,
                ..
            } if b != b'\\' && b != b'"' => {
                *body += 1;
                self.out.byte(b);
                return;
            }
            _ => {}
        }
        self.step(b);
    }

    /// Inside a text string, takes from `avail` what the parser would
    /// only skip over, in bulk: runs of plain bytes (no `"`, `\\`, or
    /// control character) and two-byte escapes (`\\n`, `\\"`, `\\/`, ...).
    /// It stops before anything the parser must see: the closing quote, a
    /// `\\u` escape, a byte the parser refuses, or a `\\` that ends
    /// `avail`. Returns how many bytes it took (0 outside a text string);
    /// the parser is never handed them, so they are counted as hidden.
    fn skip_run(&mut self, avail: &[u8]) -> usize {
        let mut i = 0;
        while let State::Str {
            body,
            esc: Esc::None,
            ..
        } = &mut self.state
        {
            let rest = &avail[i..];
            let end = memchr::memchr2(b'"', b'\\', rest).unwrap_or(rest.len());
            let n = rest[..end].iter().position(|&b| b < 0x20).unwrap_or(end);
            if n > 0 {
                let run = &rest[..n];
                *body += n as u64;
                self.out.run(run);
                self.pos += n as u64;
                self.col += run.iter().filter(|&&b| b & 0xC0 != 0x80).count() as u64;
                i += n;
            }
            if n < end {
                break;
            }
            match avail.get(i..i + 2) {
                Some(&[b'\\', e])
                    if matches!(e, b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') =>
                {
                    self.byte(b'\\');
                    self.byte(e);
                    i += 2;
                }
                _ => break,
            }
        }
        self.hidden += i as u64;
        i
    }

    /// serde_json's message for `e`, a parse error of the document read
    /// through [`Tracking`]: its column counts the bytes the reader took
    /// past the parser, so the message is the one the parser would give
    /// had it read them.
    pub fn error_message(&self, e: &serde_json::Error) -> String {
        let s = e.to_string();
        if e.line() == 0 || self.hidden == 0 || e.line() as u64 != self.line {
            return s;
        }
        let tail = format!(" at line {} column {}", e.line(), e.column());
        match s.strip_suffix(&tail) {
            Some(head) => format!(
                "{head} at line {} column {}",
                e.line(),
                e.column() as u64 + self.hidden
            ),
            None => s,
        }
    }

    /// What byte `b`, at `self.pos - 1`, does to the state.
    fn step(&mut self, b: u8) {
        let at = self.pos - 1;
        let mut again = false;
        match &mut self.state {
            State::Idle => {}
            State::Armed(i) => {
                if b.is_ascii_whitespace() || b == b':' {
                    return;
                }
                let start = FilePos {
                    byte: at,
                    line: self.line,
                    column: self.col,
                };
                if b == b'"' {
                    self.state = State::Str {
                        entry: *i,
                        start,
                        body: 0,
                        mapped: None,
                        esc: Esc::None,
                    };
                } else {
                    // Not a string: the body is not read from it.
                    self.found.push((*i, HarText { start, mapped: 0 }));
                    let text = match b {
                        b'n' => Text::Null,
                        b't' | b'f' => Text::Other("boolean"),
                        b'{' => Text::Other("object"),
                        b'[' => Text::Other("array"),
                        _ => Text::Other("number"),
                    };
                    self.texts.push((*i, text));
                    self.state = State::Idle;
                }
            }
            State::Str {
                entry,
                start,
                body,
                mapped,
                esc,
            } => {
                let unusual = |mapped: &mut Option<u64>, at: u64| {
                    mapped.get_or_insert(at);
                };
                let out = &mut self.out;
                match *esc {
                    Esc::None => match b {
                        b'\\' => *esc = Esc::Backslash,
                        b'"' => {
                            let t = HarText {
                                start: *start,
                                mapped: mapped.unwrap_or(*body),
                            };
                            let entry = *entry;
                            self.found.push((entry, t));
                            let text = self.out.finish();
                            self.texts.push((entry, Text::Str(text)));
                            self.state = State::Idle;
                        }
                        _ => {
                            *body += 1;
                            out.byte(b);
                        }
                    },
                    Esc::Backslash => match b {
                        b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => {
                            *body += 1;
                            *esc = Esc::None;
                            out.byte(match b {
                                b'b' => 0x08,
                                b'f' => 0x0C,
                                b'n' => b'\n',
                                b'r' => b'\r',
                                b't' => b'\t',
                                _ => b,
                            });
                        }
                        b'u' => {
                            *esc = Esc::Hex {
                                n: 0,
                                cp: 0,
                                hi: None,
                            }
                        }
                        _ => {
                            // `\/` (or anything the parser will refuse).
                            unusual(mapped, *body);
                            *body += 1;
                            *esc = Esc::None;
                            out.byte(b);
                        }
                    },
                    Esc::Hex { n, cp, hi } => {
                        let d = (b as char).to_digit(16).unwrap_or(0);
                        let cp = cp * 16 + d;
                        if n < 3 {
                            *esc = Esc::Hex { n: n + 1, cp, hi };
                            return;
                        }
                        *esc = Esc::None;
                        match (hi, cp) {
                            (None, 0xD800..=0xDBFF) => *esc = Esc::WantLow(cp),
                            (Some(hi), _) => {
                                // A surrogate pair: one character of 4 bytes.
                                unusual(mapped, *body);
                                *body += 4;
                                let pair = (0xDC00..=0xDFFF).contains(&cp).then(|| {
                                    char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (cp - 0xDC00))
                                });
                                match pair.flatten() {
                                    Some(c) => out.char(c),
                                    None => {
                                        out.bad.get_or_insert("a lone surrogate escape");
                                    }
                                }
                            }
                            (None, _) => {
                                let short = matches!(cp, 0x08 | 0x09 | 0x0A | 0x0C | 0x0D);
                                if cp >= 0x20 || short {
                                    unusual(mapped, *body);
                                }
                                *body += char::from_u32(cp).map_or(3, |c| c.len_utf8() as u64);
                                match char::from_u32(cp) {
                                    Some(c) => out.char(c),
                                    None => {
                                        out.bad.get_or_insert("a lone surrogate escape");
                                    }
                                }
                            }
                        }
                    }
                    Esc::WantLow(hi) => {
                        if b == b'\\' {
                            *esc = Esc::WantLowU(hi);
                        } else {
                            // A lone surrogate: the body cannot be read;
                            // the byte is read again as any other.
                            out.bad.get_or_insert("a lone surrogate escape");
                            unusual(mapped, *body);
                            *esc = Esc::None;
                            again = true;
                        }
                    }
                    Esc::WantLowU(hi) => {
                        unusual(mapped, *body);
                        *esc = if b == b'u' {
                            Esc::Hex {
                                n: 0,
                                cp: 0,
                                hi: Some(hi),
                            }
                        } else {
                            out.bad.get_or_insert("a lone surrogate escape");
                            Esc::None
                        };
                    }
                }
            }
        }
        if again {
            self.step(b);
        }
    }
}

/// A reader that shows every byte it hands out to the [`Track`]. It hands
/// out at most what the caller asks for (`serde_json` asks for one byte at
/// a time), so the track is never ahead of the parser, except for the
/// plain bytes and simple escapes of a text string, which it takes past
/// the parser in bulk ([`Track::skip_run`]; [`Track::error_message`]
/// gives the parser's error as if it had read them).
pub struct Tracking<R> {
    inner: R,
    track: Rc<RefCell<Track>>,
}

impl<R: BufRead> Tracking<R> {
    /// Wraps a buffered reader.
    pub fn new(inner: R, track: Rc<RefCell<Track>>) -> Self {
        Tracking { inner, track }
    }
}

impl<R: BufRead> Read for Tracking<R> {
    #[inline]
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut avail = self.inner.fill_buf()?;
        // Inside a text string, the bytes the parser would only skip are
        // taken here in bulk, a buffer at a time: the parser, which reads
        // a byte per call, sees just the quotes and the escapes it checks.
        loop {
            let took = self.track.borrow_mut().skip_run(avail);
            if took == 0 {
                break;
            }
            self.inner.consume(took);
            avail = self.inner.fill_buf()?;
        }
        let n = avail.len().min(buf.len());
        if n == 1 {
            // The parser's usual request: no copy call for one byte.
            let b = avail[0];
            buf[0] = b;
            self.track.borrow_mut().byte(b);
            self.inner.consume(1);
            return Ok(1);
        }
        buf[..n].copy_from_slice(&avail[..n]);
        let mut t = self.track.borrow_mut();
        for &b in &buf[..n] {
            t.byte(b);
        }
        drop(t);
        self.inner.consume(n);
        Ok(n)
    }
}

/// Where the parser is on the path to `content.text`.
#[derive(Clone, Copy)]
enum Path {
    Root,
    Log,
    Entries,
    Entry(usize),
    Response(usize),
    Content(usize),
    /// An entry's `_sselint` object.
    Sselint(usize),
}

/// A seed that builds a [`Value`] and arms the tracker at each entry's
/// `response.content.text`, which it leaves out of the value: the tracker
/// keeps it ([`Track::texts`]).
pub struct Doc {
    track: Rc<RefCell<Track>>,
    path: Path,
}

impl Doc {
    /// The whole document.
    pub fn new(track: Rc<RefCell<Track>>) -> Self {
        Doc {
            track,
            path: Path::Root,
        }
    }

    fn at(&self, path: Path) -> Doc {
        Doc {
            track: self.track.clone(),
            path,
        }
    }
}

impl<'de> DeserializeSeed<'de> for Doc {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Doc {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut v = Vec::new();
        if let Path::Entries = self.path {
            while let Some(e) = seq.next_element_seed(self.at(Path::Entry(v.len())))? {
                v.push(e);
            }
        } else {
            while let Some(e) = seq.next_element::<Value>()? {
                v.push(e);
            }
        }
        Ok(Value::Array(v))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut m = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            let next = match (self.path, k.as_str()) {
                (Path::Root, "log") => Some(Path::Log),
                (Path::Log, "entries") => Some(Path::Entries),
                (Path::Entry(i), "response") => Some(Path::Response(i)),
                (Path::Response(i), "content") => Some(Path::Content(i)),
                (Path::Entry(i), "_sselint") => Some(Path::Sselint(i)),
                _ => None,
            };
            let aside = self.track.borrow().reads.is_some();
            if let (Path::Sselint(i), "reads", true) = (self.path, k.as_str(), aside) {
                match map.next_value_seed(ReadsSeed)? {
                    Ok(reads) => {
                        if let Some(all) = self.track.borrow_mut().reads.as_mut() {
                            all.push((i, reads));
                        }
                    }
                    Err(v) => {
                        m.insert(k, v);
                    }
                }
                continue;
            }
            let v = match next {
                Some(p) => map.next_value_seed(self.at(p))?,
                None if matches!(self.path, Path::Content(_)) && k == "text" => {
                    let Path::Content(i) = self.path else {
                        unreachable!()
                    };
                    // The parser skips the string; the tracker decodes it
                    // as it goes by ([`Track::texts`]).
                    self.track.borrow_mut().arm(i);
                    let v = map.next_value::<serde::de::IgnoredAny>();
                    self.track.borrow_mut().disarm();
                    v?;
                    continue;
                }
                None => map.next_value::<Value>()?,
            };
            m.insert(k, v);
        }
        Ok(Value::Object(m))
    }
}

/// `_sselint.reads` read one element at a time: an array becomes the
/// reads of its elements that are objects with an `offset` (an unsigned
/// integer) and an `ms` (a number), as `har::timing` takes them from the
/// document; any other value is kept as it is (`Err`).
struct ReadsSeed;

impl<'de> DeserializeSeed<'de> for ReadsSeed {
    type Value = Result<Vec<super::Read_>, Value>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ReadsSeed {
    type Value = Result<Vec<super::Read_>, Value>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut v = Vec::new();
        while let Some(r) = seq.next_element::<Value>()? {
            let read = || {
                Some(super::Read_ {
                    offset: r.get("offset")?.as_u64()?,
                    ms: r.get("ms")?.as_f64()?,
                })
            };
            v.extend(read());
        }
        Ok(Ok(v))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        use serde::Deserialize;
        Value::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Err)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Err(Value::Bool(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Err(Value::from(v)))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Err(Value::from(v)))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Err(Value::from(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Err(Value::String(v.to_string())))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Err(Value::Null))
    }
}

/// The file positions of body offsets `offsets` (sorted or not) in a body
/// read from the HAR string at `text`: each offset up to `text.mapped` is
/// mapped by walking the body's characters as the string writes them;
/// others are left out.
pub fn map_offsets(
    body: &[u8],
    text: &HarText,
    offsets: impl IntoIterator<Item = u64>,
) -> std::collections::BTreeMap<u64, FilePos> {
    // Reading a slice does not fail.
    map_offsets_read(body, text, offsets).unwrap_or_default()
}

/// [`map_offsets`] of a body read from `body` (a spooled body read back
/// from its temporary file): it walks the body up to the last offset
/// wanted, 64 KiB at a time, holding none of it; offsets past its end are
/// left out.
///
/// # Errors
/// Reading the body failed (what the system said).
pub fn map_offsets_read(
    mut body: impl Read,
    text: &HarText,
    offsets: impl IntoIterator<Item = u64>,
) -> io::Result<std::collections::BTreeMap<u64, FilePos>> {
    let mut want: Vec<u64> = offsets.into_iter().filter(|o| *o <= text.mapped).collect();
    want.sort_unstable();
    want.dedup();
    let mut out = std::collections::BTreeMap::new();
    // Just past the opening quote.
    let mut pos = FilePos {
        byte: text.start.byte + 1,
        line: text.start.line,
        column: text.start.column + 1,
    };
    let mut buf = vec![0u8; want.last().map_or(0, |l| (*l).min(64 * 1024) as usize)];
    let (mut at, mut have) = (0u64, 0..0);
    for o in want {
        while at < o {
            if have.is_empty() {
                let n = match body.read(&mut buf) {
                    Ok(0) => return Ok(out),
                    Ok(n) => n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                };
                have = 0..n;
            }
            let take = have.len().min((o - at) as usize);
            for &b in &buf[have.start..have.start + take] {
                let (bytes, cps) = match b {
                    b'"' | b'\\' | 0x08 | 0x09 | 0x0A | 0x0C | 0x0D => (2, 2),
                    0x00..=0x1F => (6, 6),
                    _ if b & 0xC0 == 0x80 => (1, 0),
                    _ => (1, 1),
                };
                pos.byte += bytes;
                pos.column += cps;
            }
            have.start += take;
            at += take as u64;
        }
        out.insert(o, pos);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> (Value, Vec<(usize, HarText)>) {
        let (v, found, _) = parse_texts(json);
        (v, found)
    }

    /// The document, where each text is, and each text.
    type Parsed = (Value, Vec<(usize, HarText)>, Vec<(usize, Text)>);

    fn parse_texts(json: &str) -> Parsed {
        let track = Rc::new(RefCell::new(Track::new(0)));
        let r = Tracking::new(io::BufReader::new(json.as_bytes()), track.clone());
        let mut de = serde_json::Deserializer::from_reader(r);
        let v = Doc::new(track.clone()).deserialize(&mut de).unwrap();
        let found = std::mem::take(&mut track.borrow_mut().found);
        let texts = std::mem::take(&mut track.borrow_mut().texts);
        (v, found, texts)
    }

    fn entry(text: &str) -> String {
        format!(
            r#"{{"log": {{"entries": [{{"response": {{"content": {{"text": {text}, "size": 1}}}}}}]}}}}"#
        )
    }

    /// The decoded text of each entry, as `serde_json` reads the string.
    #[test]
    fn decodes_each_text_as_the_json_string_reads() {
        let strings = [
            r#""plain""#,
            r#""a\n\"é\u0001x\/y\\ \b\f\r\t""#,
            r#""\ud83d\ude00 \u00e9\u20ac""#,
            r#""""#,
        ];
        for s in strings {
            let (_, _, texts) = parse_texts(&entry(s));
            let want: String = serde_json::from_str(s).unwrap();
            match &texts[..] {
                [(0, Text::Str(Ok(Spooled::Mem(b))))] => assert_eq!(b, want.as_bytes(), "{s}"),
                other => panic!("{s}: {other:?}"),
            }
        }
        let kinds = [
            ("42", "number"),
            ("true", "boolean"),
            ("[1]", "array"),
            ("{}", "object"),
        ];
        for (v, kind) in kinds {
            match &parse_texts(&entry(v)).2[..] {
                [(0, Text::Other(k))] => assert_eq!(*k, kind),
                other => panic!("{v}: {other:?}"),
            }
        }
        assert!(matches!(
            &parse_texts(&entry("null")).2[..],
            [(0, Text::Null)]
        ));
        // A lone surrogate, which serde_json refuses in a string.
        let (v, _, texts) = parse_texts(&entry(r#""a\ud800b""#));
        assert!(matches!(&texts[..], [(0, Text::Str(Err(_)))]));
        assert_eq!(
            v.pointer("/log/entries/0/response/content/size"),
            Some(&Value::from(1))
        );
    }

    #[test]
    fn finds_each_text_value_and_how_far_it_maps() {
        let json = "{\"log\": {\"entries\": [\n {\"response\": {\"content\": {\"size\": 1, \"text\" :\n  \"a\\n\\\"é\\u0001x\\/y\"}}},\n {\"response\": {\"content\": {\"text\": null}}},\n {\"text\": \"no\"}]}}";
        let (v, found) = parse(json);
        let mut expect: Value = serde_json::from_str(json).unwrap();
        // The entries' texts are the tracker's, not the document's.
        for e in 0..2 {
            let c = format!("/log/entries/{e}/response/content");
            expect
                .pointer_mut(&c)
                .unwrap()
                .as_object_mut()
                .unwrap()
                .remove("text");
        }
        assert_eq!(v, expect);
        assert_eq!(found.len(), 2);
        let (i, t) = found[0];
        assert_eq!(i, 0);
        assert_eq!(&json[t.start.byte as usize..][..3], "\"a\\");
        assert_eq!((t.start.line, t.start.column), (3, 3));
        // `a`, LF, `"`, `é` (2 bytes), U+0001, `x` map; `\/` does not.
        assert_eq!(t.mapped, 7);
        let (i, t) = found[1];
        assert_eq!(i, 1);
        assert_eq!(&json[t.start.byte as usize..][..4], "null");
        assert_eq!(t.mapped, 0);
        let body = "a\n\"é\u{1}x/y".as_bytes();
        let m = map_offsets(body, &found[0].1, [0, 3, 6, 7, 8]);
        let text = found[0].1.start;
        assert_eq!(m[&0].byte, text.byte + 1);
        assert_eq!(&json[m[&3].byte as usize..][..2], "é");
        assert_eq!(m[&3].column, text.column + 6);
        assert_eq!(&json[m[&6].byte as usize..][..1], "x");
        assert_eq!(m[&6].column, text.column + 13);
        assert!(m.contains_key(&7));
        assert!(!m.contains_key(&8));
    }

    #[test]
    fn reads_kept_aside_leave_the_document_and_keep_what_timing_takes() {
        let json = r#"{"log": {"entries": [
            {"_sselint": {"reads": [{"offset": 0, "ms": 1.5}, {"offset": -1, "ms": 2}, {"offset": 7, "ms": 3}, 5], "stopped": "timeout"}},
            {"_sselint": {"reads": {"offset": 0}}}
        ]}}"#;
        let track = Rc::new(RefCell::new(Track::new(0)));
        track.borrow_mut().keep_reads_aside();
        let r = Tracking::new(io::BufReader::new(json.as_bytes()), track.clone());
        let mut de = serde_json::Deserializer::from_reader(r);
        let v = Doc::new(track.clone()).deserialize(&mut de).unwrap();
        let reads = track.borrow_mut().reads.take().unwrap();
        // The array's reads that have an unsigned offset and a number of ms.
        assert_eq!(
            reads,
            [(
                0,
                vec![
                    super::super::Read_ { offset: 0, ms: 1.5 },
                    super::super::Read_ { offset: 7, ms: 3.0 }
                ]
            )]
        );
        assert_eq!(
            v["log"]["entries"][0]["_sselint"],
            serde_json::json!({"stopped": "timeout"})
        );
        // Not an array: left in the document as it is.
        assert_eq!(
            v["log"]["entries"][1]["_sselint"]["reads"],
            serde_json::json!({"offset": 0})
        );
        // Without it, the document holds the reads.
        let (v, _) = parse(json);
        assert_eq!(v["log"]["entries"][0]["_sselint"]["reads"][1]["offset"], -1);
    }

    /// Parses `json` through the tracker, its reader buffering `cap` bytes.
    fn parse_with(json: &str, cap: usize) -> (Result<Value, String>, Rc<RefCell<Track>>) {
        let track = Rc::new(RefCell::new(Track::new(0)));
        let r = Tracking::new(
            io::BufReader::with_capacity(cap, json.as_bytes()),
            track.clone(),
        );
        let mut de = serde_json::Deserializer::from_reader(r);
        let v = Doc::new(track.clone())
            .deserialize(&mut de)
            .and_then(|v| de.end().map(|()| v))
            .map_err(|e| track.borrow().error_message(&e));
        (v, track)
    }

    /// The runs taken past the parser in bulk decode the text as the
    /// parser reads it, and find it at the same place, wherever the
    /// reader's buffer happens to end.
    #[test]
    fn bulk_runs_decode_alike_at_any_buffer_size() {
        let s = r#""data: {\"a\":\"é€😀\\n\"}\n\nx\/y\u0001 \ud83d\ude00\u00e9 \t\r\b\f end""#;
        let want: String = serde_json::from_str(s).unwrap();
        let json = format!("{}\n", entry(s));
        let (_, whole) = parse_with(&json, 8192);
        let whole_found = whole.borrow().found.clone();
        for cap in 1..40 {
            let (v, track) = parse_with(&json, cap);
            assert!(v.is_ok(), "{cap}: {v:?}");
            let t = track.borrow();
            match &t.texts[..] {
                [(0, Text::Str(Ok(Spooled::Mem(b))))] => assert_eq!(b, want.as_bytes(), "{cap}"),
                other => panic!("{cap}: {other:?}"),
            }
            assert_eq!(t.found, whole_found, "{cap}");
            assert_eq!((t.pos, t.line, t.col), (whole.borrow().pos, 2, 0), "{cap}");
        }
    }

    /// A document that does not parse gives the parser's own message,
    /// column and all, though the reader took part of the line past it.
    #[test]
    fn errors_read_as_the_parser_alone_gives_them() {
        let bad = [
            entry("\"ab\\\"cd\u{1}ef\""),
            entry(r#""ab\"cd\xef""#),
            entry(r#""ab\"cd\u12g4""#),
            entry(r#""ab\"cd éé"#),
            format!("{} x", entry(r#""ab\"cd\n\n""#)),
            format!("{}\n x", entry(r#""ab\"cd\n\n""#)),
            entry(r#""ab\"cd" "#).replace("\"size\"", "size"),
        ];
        for json in bad {
            // The parser alone: nothing is taken past it.
            let alone = {
                let track = Rc::new(RefCell::new(Track::new(0)));
                let mut de = serde_json::Deserializer::from_reader(json.as_bytes());
                Doc::new(track)
                    .deserialize(&mut de)
                    .and_then(|v| de.end().map(|()| v))
                    .unwrap_err()
                    .to_string()
            };
            for cap in [1, 2, 3, 5, 8192] {
                let (v, _) = parse_with(&json, cap);
                assert_eq!(v.unwrap_err(), alone, "{json} ({cap})");
            }
        }
    }
}
