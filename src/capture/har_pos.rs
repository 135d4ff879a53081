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
    state: State,
    /// `(entry index, where its text value is)`, in document order.
    pub found: Vec<(usize, HarText)>,
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

    /// The value of entry `i`'s `content.text` comes next.
    fn arm(&mut self, i: usize) {
        self.state = State::Armed(i);
    }

    /// The value was read: whatever the tracker thought, it is done.
    fn disarm(&mut self) {
        self.state = State::Idle;
    }

    fn byte(&mut self, b: u8) {
        let at = self.pos;
        self.pos += 1;
        if b == b'\n' {
            self.line += 1;
            self.col = 0;
            // A JSON string holds no raw line feed: only white space here.
            return;
        }
        if b & 0xC0 != 0x80 {
            self.col += 1;
        }
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
                match *esc {
                    Esc::None => match b {
                        b'\\' => *esc = Esc::Backslash,
                        b'"' => {
                            let t = HarText {
                                start: *start,
                                mapped: mapped.unwrap_or(*body),
                            };
                            self.found.push((*entry, t));
                            self.state = State::Idle;
                        }
                        _ => *body += 1,
                    },
                    Esc::Backslash => match b {
                        b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => {
                            *body += 1;
                            *esc = Esc::None;
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
                            (Some(_), _) => {
                                // A surrogate pair: one character of 4 bytes.
                                unusual(mapped, *body);
                                *body += 4;
                            }
                            (None, _) => {
                                let short = matches!(cp, 0x08 | 0x09 | 0x0A | 0x0C | 0x0D);
                                if cp >= 0x20 || short {
                                    unusual(mapped, *body);
                                }
                                *body += char::from_u32(cp).map_or(3, |c| c.len_utf8() as u64);
                            }
                        }
                    }
                    Esc::WantLow(hi) => {
                        if b == b'\\' {
                            *esc = Esc::WantLowU(hi);
                        } else {
                            // A lone surrogate: the parser refuses it.
                            unusual(mapped, *body);
                            *esc = Esc::None;
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
                            Esc::None
                        };
                    }
                }
            }
        }
    }
}

/// A reader that shows every byte it hands out to the [`Track`]. It hands
/// out at most what the caller asks for (`serde_json` asks for one byte at
/// a time), so the track is never ahead of the parser.
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
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let avail = self.inner.fill_buf()?;
        let n = avail.len().min(buf.len());
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
}

/// A seed that builds a [`Value`] and arms the tracker at each entry's
/// `response.content.text`.
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
                _ => None,
            };
            let v = match next {
                Some(p) => map.next_value_seed(self.at(p))?,
                None if matches!(self.path, Path::Content(_)) && k == "text" => {
                    let Path::Content(i) = self.path else {
                        unreachable!()
                    };
                    self.track.borrow_mut().arm(i);
                    let v = map.next_value::<Value>();
                    self.track.borrow_mut().disarm();
                    v?
                }
                None => map.next_value::<Value>()?,
            };
            m.insert(k, v);
        }
        Ok(Value::Object(m))
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
    let limit = text.mapped.min(body.len() as u64);
    let mut want: Vec<u64> = offsets.into_iter().filter(|o| *o <= limit).collect();
    want.sort_unstable();
    want.dedup();
    let mut out = std::collections::BTreeMap::new();
    // Just past the opening quote.
    let mut pos = FilePos {
        byte: text.start.byte + 1,
        line: text.start.line,
        column: text.start.column + 1,
    };
    let mut at = 0u64;
    for o in want {
        for &b in &body[at as usize..o as usize] {
            let (bytes, cps) = match b {
                b'"' | b'\\' | 0x08 | 0x09 | 0x0A | 0x0C | 0x0D => (2, 2),
                0x00..=0x1F => (6, 6),
                _ if b & 0xC0 == 0x80 => (1, 0),
                _ => (1, 1),
            };
            pos.byte += bytes;
            pos.column += cps;
        }
        at = o;
        out.insert(o, pos);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> (Value, Vec<(usize, HarText)>) {
        let track = Rc::new(RefCell::new(Track::new(0)));
        let r = Tracking::new(io::BufReader::new(json.as_bytes()), track.clone());
        let mut de = serde_json::Deserializer::from_reader(r);
        let v = Doc::new(track.clone()).deserialize(&mut de).unwrap();
        let found = std::mem::take(&mut track.borrow_mut().found);
        (v, found)
    }

    #[test]
    fn finds_each_text_value_and_how_far_it_maps() {
        let json = "{\"log\": {\"entries\": [\n {\"response\": {\"content\": {\"size\": 1, \"text\" :\n  \"a\\n\\\"é\\u0001x\\/y\"}}},\n {\"response\": {\"content\": {\"text\": null}}},\n {\"text\": \"no\"}]}}";
        let (v, found) = parse(json);
        let expect: Value = serde_json::from_str(json).unwrap();
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
}
