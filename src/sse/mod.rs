//! The WHATWG event-stream parser, incremental and span-keeping.
//!
//! This module turns body bytes into *blocks*: the runs of lines between two
//! blank lines. A block whose data buffer is not empty is what the spec calls
//! a dispatched event; the others (comment-only keep-alives, `id:`-only
//! blocks) are kept too, because rules talk about them. Every line carries its
//! byte offset and line number in the stream, so later stages can point at the
//! exact bytes.
//!
//! It follows the HTML Living Standard, §9.2.5 "Parsing an event stream" and
//! §9.2.6 "Interpreting an event stream", exactly:
//! - one byte order mark is stripped at the very start only;
//! - CRLF, LF and a lone CR each end a line (a CR at the end of one fed chunk
//!   waits for the next byte before the line is processed);
//! - a line starting with `:` is a comment; `name:value` drops one leading
//!   space of the value; a line without a colon is a field with an empty value;
//! - `data` values are joined with LF; the event type defaults to `message`;
//!   an `id` holding NUL is ignored; the last event ID persists across events;
//!   `retry` counts only when its value is all ASCII digits;
//! - a blank line dispatches; an empty data buffer dispatches nothing;
//! - bytes after the last line end are discarded at the end of the stream
//!   (they are still reported, as the block's `tail` state);
//! - bytes that are not UTF-8 decode to U+FFFD.
//!
//! It knows nothing of JSON, chunks or HTTP: see `model` and `capture`.

use memchr::memchr2;

/// How a line ended. `Eof` marks a last line with no terminator at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LineEnd {
    /// `\n`
    Lf,
    /// `\r\n`
    CrLf,
    /// a `\r` not followed by `\n`
    Cr,
    /// the stream ended inside the line
    Eof,
}

/// What a line is, by the spec's classification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// Starts with `:`; the text after the colon is ignored by the spec.
    Comment,
    /// A field line. `colon` is the index of the first colon within the line
    /// (`None` when there is none: the whole line is the name, the value is
    /// empty).
    Field { colon: Option<usize> },
}

/// One non-blank line of a block, located in the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line {
    /// Start of the line's bytes inside [`Block::raw`].
    pub start: usize,
    /// Length in bytes of the line content, terminator excluded.
    pub len: usize,
    /// Byte offset of the line's first byte in the body (a BOM counts).
    pub offset: u64,
    /// 1-based line number in the body.
    pub line: u64,
    /// How the line ended.
    pub end: LineEnd,
    /// Comment or field.
    pub kind: LineKind,
}

/// The event the spec's algorithm dispatches at the end of a block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dispatch<'a> {
    /// 0-based count of dispatched events before this one.
    pub index: u64,
    /// The event type: the last `event` field's value, or `message`.
    pub event_type: &'a str,
    /// The data buffer, values joined with LF, the final LF removed.
    pub data: &'a str,
    /// The last event ID string in force at dispatch (`None` when no `id`
    /// field has ever been accepted in this stream).
    pub last_event_id: Option<&'a str>,
}

/// A run of non-blank lines ended by a blank line, or the stream's tail.
#[derive(Debug)]
pub struct Block<'a> {
    /// The raw bytes of the block's lines, each line's content stored without
    /// its terminator; index with [`Line::start`] and [`Line::len`].
    pub raw: &'a [u8],
    /// The lines, in order.
    pub lines: &'a [Line],
    /// The dispatched event, or `None` when the data buffer was empty or the
    /// block is an unterminated tail (the spec discards it).
    pub dispatch: Option<Dispatch<'a>>,
    /// The data buffer the block built, as it would have been dispatched.
    /// For a terminated block equal to `dispatch.data`; for the tail, what
    /// the spec discards.
    pub data: Option<&'a str>,
    /// The reconnection time (milliseconds) set by a valid `retry` field of
    /// this block, if any.
    pub retry: Option<u64>,
    /// False for the tail: bytes after the last blank line at end of stream.
    pub terminated: bool,
    /// Byte offset just past the block's last line terminator (or the end of
    /// the body for the tail).
    pub end_offset: u64,
    /// Bytes of the block not kept because it grew past the parser's limit
    /// ([`Parser::with_limit`]); when non-zero nothing is dispatched.
    pub dropped: u64,
    /// Comment lines of the block counted but not kept: past the first
    /// [`KEPT_LINES`] lines of a block, a comment line is kept only while
    /// it is the block's last line, or when it is the block's first line
    /// with its kind of line end or with invalid UTF-8 (what the framing
    /// rules point at), so that a run of millions of comments in one block
    /// (no blank line between them) costs no memory.
    pub skipped_comments: Skipped,
}

/// Comment lines a block counted without keeping them ([`Block::skipped_comments`]).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Skipped {
    /// How many.
    pub lines: u64,
    /// How many of them hold bytes that are not UTF-8.
    pub invalid_utf8: u64,
}

/// Lines of one block kept before further comment lines are only counted
/// ([`Block::skipped_comments`]).
pub const KEPT_LINES: usize = 1024;

impl<'a> Block<'a> {
    /// The content bytes of `line` (terminator excluded).
    pub fn bytes(&self, line: &Line) -> &'a [u8] {
        &self.raw[line.start..line.start + line.len]
    }

    /// The field name bytes of a field line (all of it without a colon);
    /// empty for a comment.
    pub fn name(&self, line: &Line) -> &'a [u8] {
        let b = self.bytes(line);
        match line.kind {
            LineKind::Comment => &[],
            LineKind::Field { colon: Some(c) } => &b[..c],
            LineKind::Field { colon: None } => b,
        }
    }

    /// The field value bytes with the spec's one leading space removed; for a
    /// comment the text after the colon, unchanged.
    pub fn value(&self, line: &Line) -> &'a [u8] {
        let b = self.bytes(line);
        match line.kind {
            LineKind::Comment => &b[1..],
            LineKind::Field { colon: Some(c) } => {
                let v = &b[c + 1..];
                v.strip_prefix(b" ").unwrap_or(v)
            }
            LineKind::Field { colon: None } => &[],
        }
    }

    /// Offset within the line of the value's first byte (after the optional
    /// space). For a line without a colon, the line length.
    pub fn value_start(&self, line: &Line) -> usize {
        let b = self.bytes(line);
        match line.kind {
            LineKind::Comment => 1,
            LineKind::Field { colon: Some(c) } => {
                if b.get(c + 1) == Some(&b' ') {
                    c + 2
                } else {
                    c + 1
                }
            }
            LineKind::Field { colon: None } => b.len(),
        }
    }

    /// What a report row adds for the comment lines this block counted
    /// without keeping them ([`Block::skipped_comments`]): ` … and N more
    /// comment lines, counted, not kept`, or nothing.
    pub fn skipped_note(&self) -> String {
        match self.skipped_comments.lines {
            0 => String::new(),
            n => format!(" … and {n} more comment lines, counted, not kept"),
        }
    }

    /// The `data` field lines of the block, in order.
    pub fn data_lines(&self) -> impl Iterator<Item = &'a Line> + '_ {
        let raw = self.raw;
        self.lines
            .iter()
            .filter(move |l| field_name(raw, l) == Some(b"data".as_slice()))
    }
}

fn field_name<'r>(raw: &'r [u8], line: &Line) -> Option<&'r [u8]> {
    let b = &raw[line.start..line.start + line.len];
    match line.kind {
        LineKind::Comment => None,
        LineKind::Field { colon: Some(c) } => Some(&b[..c]),
        LineKind::Field { colon: None } => Some(b),
    }
}

/// Counts of what the parser saw in the whole stream, for the framing rules.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Framing {
    /// A byte order mark was stripped at the start.
    pub bom: bool,
    /// Lines ended by LF.
    pub lf: u64,
    /// Lines ended by CRLF.
    pub crlf: u64,
    /// Lines ended by a lone CR.
    pub cr: u64,
    /// Total bytes fed, BOM included.
    pub bytes: u64,
    /// Events dispatched.
    pub events: u64,
}

/// The block sink: called once per block, in stream order.
pub trait Sink {
    /// Receives one block; the borrow ends when the call returns.
    fn block(&mut self, block: &Block<'_>);
}

impl<F: FnMut(&Block<'_>)> Sink for F {
    fn block(&mut self, block: &Block<'_>) {
        self(block)
    }
}

/// The incremental parser. Feed it byte chunks of any size with
/// [`Parser::feed`], then call [`Parser::finish`]. Memory use is bounded by
/// the largest block (plus its decoded data), never by the stream.
/// The default largest block (event) kept: 16 MiB.
pub const DEFAULT_MAX_BLOCK_BYTES: usize = 16 * 1024 * 1024;

#[derive(Debug, Default)]
pub struct Parser {
    /// Largest block kept (bytes of its lines); 0 means the default.
    max_block: usize,
    /// Bytes of the current block dropped past `max_block`.
    dropped: u64,
    /// Bytes of the current block's lines (contents only).
    raw: Vec<u8>,
    lines: Vec<Line>,
    /// Start in `raw` of the line being accumulated.
    cur_start: usize,
    /// Offset and line number of the line being accumulated.
    cur_offset: u64,
    cur_line: u64,
    cur_has_bytes: bool,
    /// A CR ended the previous feed: the line is complete but we must see the
    /// next byte to tell CR from CRLF.
    cr_pending: bool,
    /// Bytes consumed so far (absolute offset of the next byte).
    offset: u64,
    /// 1-based number of the line being accumulated.
    line_no: u64,
    /// BOM detection state: bytes of a possible BOM seen at the start.
    bom_state: BomState,
    /// The data buffer, built only once a block has a second `data` line
    /// (or one that is not UTF-8); a single line's value is lent from
    /// `raw` instead (`first_data`).
    data: String,
    /// `data` lines in the current block.
    data_lines: usize,
    /// Start and length in `raw` of the first `data` line's value.
    first_data: (usize, usize),
    /// Start and length in `raw` of the last `event` line's value: the
    /// event type is lent from `raw` at dispatch (copied to `event_type`
    /// only when it is not UTF-8).
    event_field: Option<(usize, usize)>,
    event_type: String,
    last_event_id: Option<String>,
    /// The last event ID buffer (`None` until an `id` field is accepted).
    id_buffer: Option<String>,
    retry: Option<u64>,
    framing: Framing,
    /// Comment lines of the current block counted, not kept.
    skipped: Skipped,
    /// The block's last line is a comment past [`KEPT_LINES`] that the
    /// next comment line may replace (it is counted in `skipped` then).
    replaceable: bool,
    /// Line ends (LF, CRLF, CR, none) seen on the current block's lines,
    /// and whether one of them held invalid UTF-8.
    ends_seen: [bool; 4],
    invalid_seen: bool,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum BomState {
    #[default]
    Start,
    /// Matched this many BOM bytes so far (1 or 2), held back.
    Partial(u8),
    Done,
}

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

impl Parser {
    /// A parser at the start of a stream, keeping blocks up to
    /// [`DEFAULT_MAX_BLOCK_BYTES`].
    pub fn new() -> Self {
        Self::with_limit(DEFAULT_MAX_BLOCK_BYTES)
    }

    /// A parser that keeps at most `max_block` bytes of one block's lines;
    /// the rest of an oversized block is counted in [`Block::dropped`] and
    /// the block dispatches nothing. Memory stays bounded by the limit
    /// whatever the input (a 50 MB line without a newline included).
    pub fn with_limit(max_block: usize) -> Self {
        Parser {
            line_no: 1,
            cur_line: 1,
            max_block: max_block.max(1),
            ..Parser::default()
        }
    }

    /// What the parser has counted so far.
    pub fn framing(&self) -> &Framing {
        &self.framing
    }

    /// Feeds the next bytes of the stream; complete blocks go to `sink`.
    pub fn feed(&mut self, mut bytes: &[u8], sink: &mut impl Sink) {
        self.framing.bytes += bytes.len() as u64;
        if self.bom_state != BomState::Done {
            bytes = self.skip_bom(bytes);
            if self.bom_state != BomState::Done {
                return;
            }
        }
        self.feed_body(bytes, sink);
    }

    /// Strips one leading BOM, which may arrive split over several feeds.
    fn skip_bom<'b>(&mut self, bytes: &'b [u8]) -> &'b [u8] {
        let mut matched = match self.bom_state {
            BomState::Partial(n) => n as usize,
            _ => 0,
        };
        let mut i = 0;
        while matched < 3 && i < bytes.len() {
            if bytes[i] != BOM[matched] {
                // Not a BOM: replay the held-back prefix as content.
                self.bom_state = BomState::Done;
                let held = BOM[..matched].to_vec();
                self.offset_adjust_for_replay(&held);
                return &bytes[i..];
            }
            matched += 1;
            i += 1;
        }
        if matched == 3 {
            self.bom_state = BomState::Done;
            self.framing.bom = true;
            self.offset = 3;
            self.cur_offset = 3;
            &bytes[i..]
        } else {
            self.bom_state = BomState::Partial(matched as u8);
            &bytes[bytes.len()..]
        }
    }

    /// Puts back the bytes that looked like the start of a BOM but were not.
    fn offset_adjust_for_replay(&mut self, held: &[u8]) {
        let mut sink = |_: &Block<'_>| {};
        // None of EF BB is a line terminator, so no block can complete here.
        self.feed_body(held, &mut sink);
    }

    fn feed_body(&mut self, mut bytes: &[u8], sink: &mut impl Sink) {
        if self.cr_pending && !bytes.is_empty() {
            self.cr_pending = false;
            if bytes[0] == b'\n' {
                self.offset += 1;
                bytes = &bytes[1..];
                self.end_line(LineEnd::CrLf, sink);
            } else {
                self.end_line(LineEnd::Cr, sink);
            }
        }
        while !bytes.is_empty() {
            match memchr2(b'\r', b'\n', bytes) {
                None => {
                    self.push_content(bytes);
                    return;
                }
                Some(i) => {
                    self.push_content(&bytes[..i]);
                    if bytes[i] == b'\n' {
                        self.offset += 1;
                        bytes = &bytes[i + 1..];
                        self.end_line(LineEnd::Lf, sink);
                    } else if i + 1 < bytes.len() {
                        if bytes[i + 1] == b'\n' {
                            self.offset += 2;
                            bytes = &bytes[i + 2..];
                            self.end_line(LineEnd::CrLf, sink);
                        } else {
                            self.offset += 1;
                            bytes = &bytes[i + 1..];
                            self.end_line(LineEnd::Cr, sink);
                        }
                    } else {
                        self.offset += 1;
                        self.cr_pending = true;
                        return;
                    }
                }
            }
        }
    }

    fn push_content(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        if !self.cur_has_bytes {
            self.cur_has_bytes = true;
            self.cur_start = self.raw.len();
            self.cur_offset = self.offset;
            self.cur_line = self.line_no;
        }
        let room = self.max_block.saturating_sub(self.raw.len());
        let keep = room.min(bytes.len());
        self.raw.extend_from_slice(&bytes[..keep]);
        self.dropped += (bytes.len() - keep) as u64;
        self.offset += bytes.len() as u64;
    }

    fn end_line(&mut self, end: LineEnd, sink: &mut impl Sink) {
        match end {
            LineEnd::Lf => self.framing.lf += 1,
            LineEnd::CrLf => self.framing.crlf += 1,
            LineEnd::Cr => self.framing.cr += 1,
            LineEnd::Eof => {}
        }
        let terminator = match end {
            LineEnd::CrLf => 2,
            LineEnd::Lf | LineEnd::Cr => 1,
            LineEnd::Eof => 0,
        };
        if !self.cur_has_bytes {
            // A blank line: dispatch (spec: "If the line is empty").
            let offset = self.offset;
            self.line_no += 1;
            self.dispatch(true, offset, sink);
            return;
        }
        let start = self.cur_start;
        let len = self.raw.len() - start;
        let content = &self.raw[start..];
        // `content` may be empty when the block limit dropped the line.
        let kind = if content.first() == Some(&b':') {
            LineKind::Comment
        } else {
            LineKind::Field {
                colon: memchr::memchr(b':', content),
            }
        };
        let mut line = Line {
            start,
            len,
            offset: self.cur_offset.min(self.offset - terminator),
            line: self.cur_line,
            end,
            kind,
        };
        if kind == LineKind::Comment {
            self.keep_comment(&mut line);
        } else {
            // (Its bytes are not validated here: the hot path. A comment
            // after it with invalid UTF-8 is kept, which is only more.)
            self.replaceable = false;
            self.ends_seen[end_index(end)] = true;
        }
        self.lines.push(line);
        self.process_field(&line);
        self.cur_has_bytes = false;
        self.line_no += 1;
    }

    /// Before the comment `line` is pushed: past [`KEPT_LINES`], the
    /// block's last line, a comment nothing needs kept, is counted and
    /// its bytes given back (`line` moves down over them); `line` itself
    /// becomes replaceable unless it is the block's first with its line
    /// end or with invalid UTF-8.
    fn keep_comment(&mut self, line: &mut Line) {
        let end = end_index(line.end);
        let invalid = std::str::from_utf8(&self.raw[line.start..line.start + line.len]).is_err();
        if self.replaceable {
            if let Some(prev) = self.lines.pop() {
                self.skipped.lines += 1;
                let prev_bytes = &self.raw[prev.start..prev.start + prev.len];
                if std::str::from_utf8(prev_bytes).is_err() {
                    self.skipped.invalid_utf8 += 1;
                }
                self.raw.drain(prev.start..line.start);
                line.start = prev.start;
            }
        }
        let needed = !self.ends_seen[end] || (invalid && !self.invalid_seen);
        self.ends_seen[end] = true;
        self.invalid_seen |= invalid;
        self.replaceable = !needed && self.lines.len() >= KEPT_LINES;
    }

    /// The spec's "process the field" step.
    fn process_field(&mut self, line: &Line) {
        let LineKind::Field { colon } = line.kind else {
            return;
        };
        let content = &self.raw[line.start..line.start + line.len];
        let (name, value) = match colon {
            Some(c) => {
                let v = &content[c + 1..];
                (&content[..c], v.strip_prefix(b" ").unwrap_or(v))
            }
            None => (content, &[][..]),
        };
        match name {
            b"event" => {
                let start = line.start + line.len - value.len();
                self.event_field = Some((start, value.len()));
            }
            b"data" => {
                self.data_lines += 1;
                if self.data_lines == 1 {
                    let start = line.start + line.len - value.len();
                    self.first_data = (start, value.len());
                } else {
                    if self.data_lines == 2 {
                        let (start, len) = self.first_data;
                        push_lossy(&mut self.data, &self.raw[start..start + len]);
                        self.data.push('\n');
                    }
                    let content = &self.raw[line.start..line.start + line.len];
                    let value = &content[content.len() - value.len()..];
                    push_lossy(&mut self.data, value);
                    self.data.push('\n');
                }
            }
            b"id" if !value.contains(&0) => {
                let mut id = String::new();
                push_lossy(&mut id, value);
                self.id_buffer = Some(id);
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                // All digits: an integer in base ten. Saturate rather than
                // reject a value too large for u64.
                let ms = std::str::from_utf8(value)
                    .ok()
                    .and_then(|s| s.parse::<u64>().ok())
                    .unwrap_or(u64::MAX);
                self.retry = Some(ms);
            }
            _ => {}
        }
    }

    /// The spec's "dispatch the event" step, plus the block bookkeeping.
    fn dispatch(&mut self, terminated: bool, end_offset: u64, sink: &mut impl Sink) {
        if terminated {
            // Step 1: the last event ID string takes the buffer's value.
            if self.id_buffer.is_some() {
                self.last_event_id.clone_from(&self.id_buffer);
            }
        }
        // Step 2: the data buffer is non-empty once a `data` line added its
        // value and an LF.
        let has_data = self.data_lines > 0;
        let dropped = std::mem::take(&mut self.dropped);
        let (start, len) = self.first_data;
        let single = match self.data_lines {
            1 => std::str::from_utf8(&self.raw[start..start + len]).ok(),
            _ => None,
        };
        if self.data_lines == 1 && single.is_none() {
            push_lossy(&mut self.data, &self.raw[start..start + len]);
        } else if self.data_lines > 1 {
            // Step 3: remove the data buffer's final LF.
            self.data.pop();
        }
        let (es, en) = self.event_field.unwrap_or((0, 0));
        let lent_type = std::str::from_utf8(&self.raw[es..es + en]).ok();
        if lent_type.is_none() {
            push_lossy(&mut self.event_type, &self.raw[es..es + en]);
        }
        let data: &str = single.unwrap_or(&self.data);
        if !self.lines.is_empty() || has_data {
            let event_type = match lent_type {
                Some("") => "message",
                Some(t) => t,
                None => self.event_type.as_str(),
            };
            let dispatch = (terminated && has_data && dropped == 0).then_some(Dispatch {
                index: self.framing.events,
                event_type,
                data,
                last_event_id: self.last_event_id.as_deref(),
            });
            let block = Block {
                raw: &self.raw,
                lines: &self.lines,
                dispatch,
                data: has_data.then_some(data),
                retry: self.retry,
                terminated,
                end_offset,
                dropped,
                skipped_comments: self.skipped,
            };
            sink.block(&block);
            if terminated && has_data && dropped == 0 {
                self.framing.events += 1;
            }
        }
        self.data.clear();
        self.data_lines = 0;
        self.event_type.clear();
        self.event_field = None;
        self.retry = None;
        self.raw.clear();
        self.lines.clear();
        self.cur_start = 0;
        self.skipped = Skipped::default();
        self.replaceable = false;
        self.ends_seen = [false; 4];
        self.invalid_seen = false;
    }

    /// Ends the stream: a pending CR ends its line; bytes after the last blank
    /// line (an unterminated line or block) are handed to `sink` as the tail
    /// block (`terminated == false`, never dispatched), as the spec discards
    /// them. Returns the stream's counts.
    pub fn finish(mut self, sink: &mut impl Sink) -> Framing {
        if self.bom_state == BomState::Partial(0) || self.bom_state == BomState::Start {
            self.bom_state = BomState::Done;
        } else if let BomState::Partial(n) = self.bom_state {
            self.bom_state = BomState::Done;
            let held = BOM[..n as usize].to_vec();
            self.offset_adjust_for_replay(&held);
        }
        if self.cr_pending {
            self.cr_pending = false;
            self.end_line(LineEnd::Cr, sink);
        }
        if self.cur_has_bytes {
            self.end_line(LineEnd::Eof, sink);
            self.line_no -= 1;
        }
        if !self.lines.is_empty() {
            let end = self.offset;
            self.dispatch(false, end, sink);
        }
        self.framing
    }
}

/// The index of a line end in [`Parser`]'s `ends_seen`.
fn end_index(end: LineEnd) -> usize {
    match end {
        LineEnd::Lf => 0,
        LineEnd::CrLf => 1,
        LineEnd::Cr => 2,
        LineEnd::Eof => 3,
    }
}

/// Appends `bytes` decoded as UTF-8, each invalid sequence as U+FFFD (the
/// WHATWG "UTF-8 decode" replacement behaviour, which Rust's lossy decoding
/// shares: one U+FFFD per maximal invalid subpart).
fn push_lossy(out: &mut String, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(s) => out.push_str(s),
        Err(_) => out.push_str(&String::from_utf8_lossy(bytes)),
    }
}

/// Parses a whole body at once; a convenience over [`Parser`] for tests and
/// small inputs.
pub fn parse_all(body: &[u8], sink: &mut impl Sink) -> Framing {
    let mut p = Parser::new();
    p.feed(body, sink);
    p.finish(sink)
}

#[cfg(test)]
mod tests;
