//! curl dumps: `curl -i` (status line, headers, body; HTTP/1.1 and HTTP/2,
//! several header blocks after `100 Continue`, a proxy's `Connection
//! established` or a redirect), `curl -v … 2>&1` (request and response
//! header lines prefixed `> ` and `< `, info lines `* `, data markers `{ [`
//! and `} [` interleaved with the body), `curl --raw` (chunked framing left
//! in) and `curl --trace`/`--trace-ascii` (with `--trace-time`, a time per
//! read). Sources: the curl man page; curl's `src/tool_cb_dbg.c` for the
//! trace layout.
//!
//! `-i` and `-v` bodies stream; a trace is read whole (it is a hex or text
//! dump about three times the body's size).

use super::decode::{self, CurlErrorTail, Dechunk, Encoding};
use super::{
    header, Body, Capture, Evidence, Header, Http, InputError, InputFormat, Origin, Read_, Request,
    Stream, Timing,
};
use std::io::{self, BufRead, BufReader, Cursor, Read};

/// Whether the first bytes (whitespace and BOM skipped) look like a curl
/// dump rather than a raw body.
pub fn looks_like_curl(t: &[u8]) -> bool {
    if is_status_line(t) {
        return true;
    }
    let mut lines = t.split(|b| *b == b'\n').take(8).peekable();
    if lines
        .peek()
        .is_some_and(|l| trace_record(strip_time(l)).is_some())
    {
        return true;
    }
    t.split(|b| *b == b'\n')
        .take(8)
        .any(|l| verbose_prefix(l) && !l.starts_with(b"{ [") && !l.starts_with(b"} ["))
}

fn is_status_line(t: &[u8]) -> bool {
    t.starts_with(b"HTTP/") && t.get(5).is_some_and(u8::is_ascii_digit)
}

/// Lines curl `-v` writes to stderr: info, request and response headers,
/// data markers.
fn verbose_prefix(l: &[u8]) -> bool {
    l.starts_with(b"* ")
        || l.starts_with(b"> ")
        || l.starts_with(b"< ")
        || l.starts_with(b"{ [")
        || l.starts_with(b"} [")
}

/// A `<` or `>` line with nothing after it: curl's blank line that ends
/// the response (or request) headers, whose trailing space was lost (a copy
/// from a terminal, an editor trimming whitespace). It is curl's, not the
/// body's, and must not end the header block early.
fn bare_marker(l: &[u8]) -> bool {
    matches!(trim_eol(l), [b'<' | b'>'])
}

/// Strips a `--trace-time` prefix (`HH:MM:SS.uuuuuu `) and a `--trace-ids`
/// prefix (`[0-0] `).
fn strip_time(l: &[u8]) -> &[u8] {
    let mut l = l;
    if l.len() > 16
        && l[2] == b':'
        && l[5] == b':'
        && l[8] == b'.'
        && l[15] == b' '
        && l[..15]
            .iter()
            .all(|b| b.is_ascii_digit() || *b == b':' || *b == b'.')
    {
        l = &l[16..];
    }
    if l.starts_with(b"[") {
        if let Some(end) = memchr::memchr(b']', &l[..l.len().min(24)]) {
            if l.get(end + 1) == Some(&b' ') {
                l = &l[end + 2..];
            }
        }
    }
    l
}

/// The time of a `--trace-time` line in milliseconds since midnight.
fn line_time_ms(l: &[u8]) -> Option<f64> {
    if strip_time(l).len() == l.len() || l.len() < 15 {
        return None;
    }
    let s = std::str::from_utf8(&l[..15]).ok()?;
    let h: f64 = s[0..2].parse().ok()?;
    let m: f64 = s[3..5].parse().ok()?;
    let sec: f64 = s[6..15].parse().ok()?;
    Some(((h * 60.0 + m) * 60.0 + sec) * 1000.0)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Record {
    Info,
    SendHeader,
    SendData,
    RecvHeader,
    RecvData,
    Ssl,
}

fn trace_record(l: &[u8]) -> Option<Record> {
    if l.starts_with(b"== Info:") {
        Some(Record::Info)
    } else if l.starts_with(b"=> Send header") {
        Some(Record::SendHeader)
    } else if l.starts_with(b"=> Send data") {
        Some(Record::SendData)
    } else if l.starts_with(b"<= Recv header") {
        Some(Record::RecvHeader)
    } else if l.starts_with(b"<= Recv data") {
        Some(Record::RecvData)
    } else if l.starts_with(b"=> Send SSL data") || l.starts_with(b"<= Recv SSL data") {
        Some(Record::Ssl)
    } else {
        None
    }
}

/// Reads a curl dump.
///
/// # Errors
/// I/O errors, or a trace with no received data at all.
pub fn read(
    name: &str,
    reader: Box<dyn Read + Send>,
    max_decoded: u64,
) -> Result<Capture, InputError> {
    let mut reader = BufReader::with_capacity(super::SNIFF_BYTES, reader);
    let mut head = reader
        .fill_buf()
        .map_err(|e| InputError::new(name, super::io_message(&e)))?
        .to_vec();
    // A BOM (a Windows editor, PowerShell's Out-File) before the status
    // line belongs to the file, not to the response.
    let bom = head.starts_with(&[0xEF, 0xBB, 0xBF]);
    if bom {
        reader.consume(3);
        head.drain(..3);
    }
    let start = head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(0);
    let t = &head[start..];
    let first = t.split(|b| *b == b'\n').next().unwrap_or(&[]);
    if trace_record(strip_time(first)).is_some() {
        return read_trace(name, reader, max_decoded);
    }
    if is_status_line(t) {
        read_include(name, reader, max_decoded)
    } else {
        read_verbose(name, reader, if bom { 3 } else { 0 }, max_decoded)
    }
}

/// Reads one line including its terminator; `None` at end of input.
fn next_line(r: &mut impl BufRead) -> io::Result<Option<Vec<u8>>> {
    let mut line = Vec::new();
    // Header lines are short; cap them so a body without newlines cannot
    // grow this buffer without bound.
    let n = r.by_ref().take(64 * 1024).read_until(b'\n', &mut line)?;
    Ok((n > 0).then_some(line))
}

fn trim_eol(l: &[u8]) -> &[u8] {
    let mut l = l;
    while let Some(rest) = l.strip_suffix(b"\n").or_else(|| l.strip_suffix(b"\r")) {
        l = rest;
    }
    l
}

/// Parses `HTTP/1.1 200 OK` / `HTTP/2 200`.
fn parse_status(l: &[u8]) -> Option<Http> {
    let s = String::from_utf8_lossy(trim_eol(l));
    let mut parts = s.splitn(3, ' ');
    let version = parts.next()?.to_string();
    let status = parts.next()?.trim().parse().ok()?;
    let reason = parts.next().unwrap_or("").trim().to_string();
    Some(Http {
        status,
        reason,
        version,
        headers: Vec::new(),
        content_type: None,
    })
}

fn parse_header(l: &[u8]) -> Option<Header> {
    let s = String::from_utf8_lossy(trim_eol(l));
    let (n, v) = s.split_once(':')?;
    Some(header(n, v))
}

/// The response of a `curl -i` dump: header blocks, then the body.
fn read_include(
    name: &str,
    mut r: BufReader<Box<dyn Read + Send>>,
    max_decoded: u64,
) -> Result<Capture, InputError> {
    let err = |e: io::Error| InputError::new(name, super::io_message(&e));
    let mut offset = 0u64;
    let mut line_no = 1u64;
    let mut http = None;
    let mut cut_in_headers = false;
    // Skip leading blank lines.
    loop {
        let buf = r.fill_buf().map_err(err)?;
        match buf.first() {
            Some(b'\r' | b'\n' | b' ' | b'\t') => {
                if buf[0] == b'\n' {
                    line_no += 1;
                }
                r.consume(1);
                offset += 1;
            }
            _ => break,
        }
    }
    loop {
        let buf = r.fill_buf().map_err(err)?;
        if !is_status_line(buf) {
            break;
        }
        let Some(status) = next_line(&mut r).map_err(err)? else {
            break;
        };
        offset += status.len() as u64;
        line_no += 1;
        let mut h = parse_status(&status).unwrap_or_default();
        let mut ended = false;
        while let Some(l) = next_line(&mut r).map_err(err)? {
            offset += l.len() as u64;
            line_no += 1;
            if trim_eol(&l).is_empty() {
                ended = true;
                break;
            }
            if let Some(hd) = parse_header(&l) {
                h.headers.push(hd);
            }
        }
        h.content_type = h.header("content-type").map(str::to_string);
        http = Some(h);
        if !ended {
            cut_in_headers = true;
            break;
        }
    }
    let mut stream = Stream::new(name_of(name), Body::Bytes(Vec::new()));
    if cut_in_headers {
        super::note_truncation(
            &stream.evidence,
            "the capture ends inside the response headers: no body was captured",
        );
    }
    let body_reader: Box<dyn Read + Send> = Box::new(r);
    let contiguous = finish_body(&mut stream, http.as_ref(), body_reader, max_decoded);
    stream.http = http;
    stream.origin = Origin {
        file_start: contiguous.then_some((offset, line_no)),
        har_entry: None,
        ..Origin::default()
    };
    Ok(Capture {
        path: name.to_string(),
        input_format: InputFormat::Curl,
        detail: "curl -i",
        streams: vec![stream],
    })
}

fn name_of(name: &str) -> String {
    super::raw::display_name(name)
}

/// Wraps a body reader in de-chunking, decoding and the curl error-line
/// filter as the headers and the first bytes call for. Returns whether the
/// body is still byte-for-byte the file's.
fn finish_body(
    stream: &mut Stream,
    http: Option<&Http>,
    body: Box<dyn Read + Send>,
    max_decoded: u64,
) -> bool {
    let mut body = BufReader::with_capacity(super::SNIFF_BYTES, body);
    let head = body.fill_buf().map(<[u8]>::to_vec).unwrap_or_default();
    let chunked = http
        .and_then(|h| h.header("transfer-encoding"))
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    let declared = http
        .and_then(|h| h.header("content-encoding"))
        .map(str::trim)
        .filter(|d| !d.is_empty() && !d.eq_ignore_ascii_case("identity"));
    let encoding = declared.and_then(Encoding::from_header);
    let mut contiguous = true;
    let mut reader: Box<dyn Read + Send> = Box::new(body);
    if chunked && decode::looks_chunked(&head) {
        reader = Box::new(Dechunk::new(reader, stream.evidence.clone()));
        stream
            .notes
            .push("chunked transfer framing removed (curl --raw)".to_string());
        contiguous = false;
    }
    // Only decode what is still encoded: curl --compressed already decoded
    // it although the header stays.
    let mut r2 = BufReader::with_capacity(super::SNIFF_BYTES, reader);
    let head2 = r2.fill_buf().map(<[u8]>::to_vec).unwrap_or_default();
    let mut reader: Box<dyn Read + Send> = Box::new(r2);
    let already_decoded = |e: Encoding| {
        format!(
            "Content-Encoding: {}, but the body is not encoded (curl --compressed decodes it and keeps the header); read as is",
            e.name()
        )
    };
    let enc = match encoding {
        Some(Encoding::Gzip) if !decode::is_gzip(&head2) => {
            stream.notes.push(already_decoded(Encoding::Gzip));
            None
        }
        // Compressed bytes can hold a line that starts with `:` by chance;
        // a gzip stream is never taken for SSE.
        Some(e)
            if !(e == Encoding::Gzip && decode::is_gzip(&head2))
                && super::raw::looks_like_sse(&head2) =>
        {
            stream.notes.push(already_decoded(e));
            None
        }
        Some(e) => Some(e),
        None if decode::is_gzip(&head2) => Some(Encoding::Gzip),
        None => None,
    };
    if let (Some(d), None, None) = (declared, encoding, enc) {
        let advice = if super::raw::looks_like_sse(&head2) {
            ""
        } else {
            ": it does not look like text, so the findings below are about the compressed bytes; decompress it first (or capture with curl --compressed) and lint that"
        };
        stream.notes.push(format!(
            "Content-Encoding: {d} is not one sselint decodes (gzip, deflate, br); the body is read as is{advice}"
        ));
    }
    if let Some(e) = enc {
        reader = decode::decoder(e, reader, stream.evidence.clone(), max_decoded);
        stream
            .notes
            .push(format!("body decoded from Content-Encoding: {}", e.name()));
        contiguous = false;
    }
    stream.body = Body::Reader(Box::new(CurlErrorTail::new(
        reader,
        stream.evidence.clone(),
    )));
    contiguous
}

/// A `curl -v … 2>&1` dump: header lines from `< `, request line from `> `,
/// the body with curl's own lines removed. `start` is the file offset of
/// the reader's first byte (3 after a BOM).
fn read_verbose(
    name: &str,
    mut r: BufReader<Box<dyn Read + Send>>,
    start: u64,
    max_decoded: u64,
) -> Result<Capture, InputError> {
    let err = |e: io::Error| InputError::new(name, super::io_message(&e));
    let mut http: Option<Http> = None;
    let mut request = Request::default();
    let mut first_body_line = Vec::new();
    // The file bytes and lines before the body.
    let (mut before, mut lines_before) = (start, 0u64);
    while let Some(l) = next_line(&mut r).map_err(err)? {
        if let Some(rest) = l.strip_prefix(b"< ") {
            if is_status_line(rest) {
                http = parse_status(rest);
            } else if let (Some(h), Some(hd)) = (http.as_mut(), parse_header(rest)) {
                h.headers.push(hd);
            }
        } else if let Some(rest) = l.strip_prefix(b"> ") {
            let text = String::from_utf8_lossy(trim_eol(rest)).into_owned();
            if request.method.is_empty() {
                let mut parts = text.split(' ');
                request.method = parts.next().unwrap_or("").to_string();
                request.url = parts.next().unwrap_or("").to_string();
            } else if let Some(hd) = parse_header(rest) {
                request.headers.push(hd);
            }
        } else if verbose_prefix(&l)
            || bare_marker(&l)
            || trim_eol(&l).is_empty() && http.is_none()
            || l.starts_with(b"*")
            || l.starts_with(b"Note: ")
        {
            // curl's: skipped.
        } else {
            first_body_line = l;
            break;
        }
        before += l.len() as u64;
        lines_before += u64::from(l.ends_with(b"\n"));
    }
    if let Some(h) = http.as_mut() {
        h.content_type = h.header("content-type").map(str::to_string);
    }
    let mut stream = Stream::new(name_of(name), Body::Bytes(Vec::new()));
    if let Some(host) = super::find_header(&request.headers, "host") {
        request.url = format!("https://{host}{}", request.url);
    }
    let rest: Box<dyn Read + Send> = Box::new(Cursor::new(first_body_line).chain(r));
    let shifts: super::Shifts = Default::default();
    if let Ok(mut v) = shifts.lock() {
        v.push(super::Shift {
            body: 0,
            bytes: before,
            lines: lines_before,
        });
    }
    let filtered: Box<dyn Read + Send> = Box::new(VerboseFilter::new(rest, shifts.clone()));
    if finish_body(&mut stream, http.as_ref(), filtered, max_decoded) {
        stream.shifts = Some(shifts);
    }
    stream.http = http;
    stream.request = (!request.method.is_empty()).then_some(request);
    Ok(Capture {
        path: name.to_string(),
        input_format: InputFormat::Curl,
        detail: "curl -v",
        streams: vec![stream],
    })
}

/// Drops the lines curl `-v` writes to stderr (`* `, `> `, `< `, `{ [`,
/// `} [`) from a merged dump, streaming, and the info line curl writes
/// right after the last body bytes of a transfer that broke mid-line (`*
/// transfer closed with outstanding read data remaining`); records where
/// the body's bytes sit in the file ([`super::Shifts`]).
struct VerboseFilter<R> {
    inner: R,
    /// Bytes at the start of the current line not yet classified (≤ 3),
    /// or of a possible curl info line inside a body line.
    held: Vec<u8>,
    state: LineState,
    out: Vec<u8>,
    pos: usize,
    eof: bool,
    /// Body bytes given out so far.
    body: u64,
    /// File bytes and lines left out so far.
    dropped: u64,
    dropped_lines: u64,
    /// `dropped` when the last shift was recorded.
    recorded: u64,
    shifts: super::Shifts,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineState {
    Start,
    Keep,
    Drop,
    /// A bare marker line just ended with CR: an LF next belongs to it.
    AfterCr,
    /// Inside a body line, `held` begins like one of curl's info lines
    /// ([`MIDLINE_INFO`]).
    MaybeInfo,
}

/// What curl's info lines say after `* ` when a transfer ends or breaks:
/// written to stderr as it happens, they follow the last body bytes on
/// the same line when the body stopped mid-line (curl's `lib/transfer.c`,
/// `lib/http.c`, `lib/vtls/`, `lib/connect.c`).
const MIDLINE_INFO: &[&[u8]] = &[
    b"transfer closed with ",
    b"Recv failure",
    b"OpenSSL SSL_read",
    b"Operation timed out",
    b"HTTP/2 stream ",
    b"Closing connection",
    b"Connection #",
    b"Connection died",
    b"end of response with",
    b"Failed writing",
    b"Illegal or missing hexadecimal",
    b"TLSv1.",
];

/// Whether `held` (starting with `*`) is one of curl's info lines:
/// `None` while it could still become one.
fn midline_info(held: &[u8]) -> Option<bool> {
    let rest = match held {
        [b'*'] => return None,
        [b'*', b' ', rest @ ..] => rest,
        _ => return Some(false),
    };
    let mut open = false;
    for m in MIDLINE_INFO {
        if rest.starts_with(m) {
            return Some(true);
        }
        open |= m.starts_with(rest);
    }
    if open {
        None
    } else {
        Some(false)
    }
}

impl<R: Read> VerboseFilter<R> {
    fn new(inner: R, shifts: super::Shifts) -> Self {
        VerboseFilter {
            inner,
            held: Vec::new(),
            state: LineState::Start,
            out: Vec::new(),
            pos: 0,
            eof: false,
            body: 0,
            dropped: 0,
            dropped_lines: 0,
            recorded: 0,
            shifts,
        }
    }

    /// Gives out body bytes, recording a shift first when bytes were left
    /// out since the last one.
    fn emit(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        if self.dropped != self.recorded {
            self.recorded = self.dropped;
            if let Ok(mut v) = self.shifts.lock() {
                let (bytes, lines) = v.first().map_or((0, 0), |s| (s.bytes, s.lines));
                if v.len() < super::MAX_SHIFTS {
                    v.push(super::Shift {
                        body: self.body,
                        bytes: bytes + self.dropped,
                        lines: lines + self.dropped_lines,
                    });
                }
            }
        }
        self.out.extend_from_slice(bytes);
        self.body += bytes.len() as u64;
    }

    /// Leaves out `bytes` of the file.
    fn drop_bytes(&mut self, bytes: &[u8]) {
        self.dropped += bytes.len() as u64;
        self.dropped_lines += bytes.iter().filter(|b| **b == b'\n').count() as u64;
    }

    fn classify(held: &[u8]) -> Option<LineState> {
        match held {
            [] => None,
            [b'*' | b'>' | b'<'] | [b'{' | b'}'] | [b'{' | b'}', b' '] => None,
            [b'*' | b'>' | b'<', b' ', ..] => Some(LineState::Drop),
            [b'{' | b'}', b' ', b'[', ..] => Some(LineState::Drop),
            _ => Some(LineState::Keep),
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        for &b in bytes {
            match self.state {
                LineState::Keep if b == b'*' => {
                    self.held.push(b);
                    self.state = LineState::MaybeInfo;
                }
                LineState::Keep => {
                    self.emit(&[b]);
                    if b == b'\n' {
                        self.state = LineState::Start;
                    }
                }
                LineState::MaybeInfo => {
                    self.held.push(b);
                    let held = std::mem::take(&mut self.held);
                    match midline_info(&held) {
                        None => self.held = held,
                        Some(true) => {
                            self.drop_bytes(&held);
                            self.state = LineState::Drop;
                        }
                        Some(false) => {
                            self.emit(&held);
                            self.state = if b == b'\n' {
                                LineState::Start
                            } else {
                                LineState::Keep
                            };
                        }
                    }
                }
                LineState::Drop => {
                    self.drop_bytes(&[b]);
                    if b == b'\n' {
                        self.state = LineState::Start;
                    }
                }
                LineState::AfterCr if b == b'\n' => {
                    self.drop_bytes(&[b]);
                    self.state = LineState::Start;
                }
                LineState::Start | LineState::AfterCr => {
                    self.state = LineState::Start;
                    if b == b'\n' || b == b'\r' {
                        let held = std::mem::take(&mut self.held);
                        // The line ended before it could be classified: a
                        // bare `>`, `<` or `*` is curl's too (trailing
                        // space lost in a copy).
                        if matches!(held.as_slice(), [b'>' | b'<' | b'*']) {
                            self.drop_bytes(&held);
                            self.drop_bytes(&[b]);
                            // The LF of a CRLF goes with the dropped line.
                            if b == b'\r' {
                                self.state = LineState::AfterCr;
                            }
                            continue;
                        }
                        self.emit(&held);
                        self.emit(&[b]);
                        continue;
                    }
                    self.held.push(b);
                    if let Some(s) = Self::classify(&self.held) {
                        let held = std::mem::take(&mut self.held);
                        if s == LineState::Keep {
                            self.emit(&held);
                        } else {
                            self.drop_bytes(&held);
                        }
                        self.state = s;
                    }
                }
            }
        }
    }
}

impl<R: Read> Read for VerboseFilter<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.pos < self.out.len() {
                let n = buf.len().min(self.out.len() - self.pos);
                buf[..n].copy_from_slice(&self.out[self.pos..self.pos + n]);
                self.pos += n;
                if self.pos == self.out.len() {
                    self.out.clear();
                    self.pos = 0;
                }
                return Ok(n);
            }
            if self.eof {
                return Ok(0);
            }
            let mut tmp = [0u8; 16 * 1024];
            let n = self.inner.read(&mut tmp)?;
            if n == 0 {
                self.eof = true;
                let held = std::mem::take(&mut self.held);
                self.emit(&held);
            } else {
                self.push(&tmp[..n]);
            }
        }
    }
}

/// One trace record with its bytes.
struct TraceRecord {
    kind: Record,
    time_ms: Option<f64>,
    bytes: Vec<u8>,
}

/// A `--trace` (hex, exact) or `--trace-ascii` (lossy) dump.
fn read_trace(
    name: &str,
    mut r: BufReader<Box<dyn Read + Send>>,
    max_decoded: u64,
) -> Result<Capture, InputError> {
    let mut text = Vec::new();
    r.read_to_end(&mut text)
        .map_err(|e| InputError::new(name, super::io_message(&e)))?;
    let mut records: Vec<TraceRecord> = Vec::new();
    let mut ascii = None::<bool>;
    let mut last_end = 0usize; // expected next offset inside the record
    let mut declared = 0usize;
    // Where the received body's bytes sit in the file.
    let mut runs: super::DumpRuns = Vec::new();
    let (mut pos, mut line_no, mut recv_base) = (0u64, 0u64, 0u64);
    for raw_line in text.split(|b| *b == b'\n') {
        let line_start = pos;
        pos += raw_line.len() as u64 + 1;
        line_no += 1;
        let raw_line = raw_line.strip_suffix(b"\r").unwrap_or(raw_line);
        let time = line_time_ms(raw_line);
        let l = strip_time(raw_line);
        if let Some(kind) = trace_record(l) {
            if let Some(rec) = records.last_mut() {
                fill_crlf(rec, ascii, last_end, declared);
                if rec.kind == Record::RecvData {
                    recv_base += rec.bytes.len() as u64;
                }
            }
            declared = declared_size(l);
            last_end = 0;
            records.push(TraceRecord {
                kind,
                time_ms: time,
                bytes: Vec::new(),
            });
            continue;
        }
        let Some(rec) = records.last_mut() else {
            continue;
        };
        if matches!(rec.kind, Record::Info | Record::Ssl) {
            continue;
        }
        let Some(colon) = l.iter().position(|b| *b == b':') else {
            continue;
        };
        let Some(off) = std::str::from_utf8(&l[..colon])
            .ok()
            .and_then(|h| usize::from_str_radix(h, 16).ok())
        else {
            continue;
        };
        let content = l.get(colon + 2..).unwrap_or(&[]);
        let is_ascii = *ascii.get_or_insert_with(|| !is_hex_dump(content));
        let run = |body: u64, per_line: u64, step: u64| super::DumpRun {
            body: recv_base + body,
            byte: line_start,
            line: line_no,
            // The prefixes strip_time took, the offset, `: `.
            column: (raw_line.len() - l.len() + colon + 2) as u64 + 1,
            per_line,
            line_bytes: 0,
            step,
            lines: 1,
        };
        if is_ascii {
            // Bytes the dump skipped between lines were a CRLF.
            if off > last_end && off - last_end <= 2 {
                rec.bytes
                    .extend_from_slice(&b"\r\n"[2 - (off - last_end)..]);
            }
            if rec.kind == Record::RecvData {
                extend_runs(&mut runs, run(rec.bytes.len() as u64, 64, 1));
            }
            rec.bytes.extend_from_slice(content);
            last_end = off + content.len();
        } else {
            if rec.kind == Record::RecvData {
                extend_runs(&mut runs, run(rec.bytes.len() as u64, 16, 3));
            }
            for pair in content.get(..48).unwrap_or(content).chunks(3) {
                let h = std::str::from_utf8(&pair[..pair.len().min(2)]).unwrap_or("");
                if let Ok(b) = u8::from_str_radix(h.trim(), 16) {
                    if !h.trim().is_empty() {
                        rec.bytes.push(b);
                    }
                }
            }
            last_end = off + 16;
        }
    }
    if let Some(rec) = records.last_mut() {
        fill_crlf(rec, ascii, last_end, declared);
    }
    let is_ascii = ascii.unwrap_or(false);
    let t0 = records.iter().find_map(|r| r.time_ms);
    let mut request = Request::default();
    let mut req_body = Vec::new();
    let mut head_bytes = Vec::new();
    let mut body = Vec::new();
    let mut reads = Vec::new();
    for rec in &records {
        match rec.kind {
            Record::SendHeader => {
                let s = String::from_utf8_lossy(&rec.bytes).into_owned();
                let mut lines = s.lines();
                if let Some(first) = lines.next() {
                    let mut parts = first.split(' ');
                    request.method = parts.next().unwrap_or("").to_string();
                    request.url = parts.next().unwrap_or("").to_string();
                }
                for l in lines {
                    if let Some(h) = parse_header(l.as_bytes()) {
                        request.headers.push(h);
                    }
                }
            }
            Record::SendData => req_body.extend_from_slice(&rec.bytes),
            Record::RecvHeader => head_bytes.extend_from_slice(&rec.bytes),
            Record::RecvData => {
                if let (Some(t), Some(t0)) = (rec.time_ms, t0) {
                    reads.push(Read_ {
                        offset: body.len() as u64,
                        ms: t - t0,
                    });
                }
                body.extend_from_slice(&rec.bytes);
            }
            Record::Info | Record::Ssl => {}
        }
    }
    if records.iter().all(|r| r.kind != Record::RecvData) && head_bytes.is_empty() {
        return Err(InputError::new(
            name,
            "curl trace holds no received data (no `<= Recv header` or `<= Recv data` record)",
        ));
    }
    // The last header block before the body is the response's.
    let mut http = None;
    for block in split_header_blocks(&head_bytes) {
        let mut lines = block.split(|b| *b == b'\n');
        if let Some(mut h) = lines.next().and_then(parse_status) {
            h.headers = lines.filter_map(parse_header).collect();
            h.content_type = h.header("content-type").map(str::to_string);
            http = Some(h);
        }
    }
    let binary = http
        .as_ref()
        .and_then(|h| h.content_type.as_deref())
        .is_some_and(|t| {
            t.trim()
                .to_ascii_lowercase()
                .starts_with("application/vnd.amazon.eventstream")
        });
    if is_ascii && binary {
        return Err(InputError::new(
            name,
            "a --trace-ascii dump cannot carry this binary body (Content-Type application/vnd.amazon.eventstream): curl printed every byte outside printable ASCII as '.', so the frames' lengths and CRCs are lost; capture with --trace, or save the body alone with -o FILE",
        ));
    }
    if is_ascii {
        body = infer_line_feeds(&body);
    }
    if let Some(host) = super::find_header(&request.headers, "host") {
        request.url = format!("https://{host}{}", request.url);
    }
    if !req_body.is_empty() {
        request.body = Some(String::from_utf8_lossy(&req_body).into_owned());
    }
    let mut stream = Stream::new(name_of(name), Body::Bytes(Vec::new()));
    if is_ascii {
        stream.notes.push(
            "read from a --trace-ascii dump, which is lossy: curl printed every byte outside printable ASCII as '.', so line feeds were inferred and non-ASCII text is lost; use --trace for exact bytes".to_string(),
        );
    }
    let chunked = http
        .as_ref()
        .and_then(|h: &Http| h.header("transfer-encoding"))
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    let dechunked = chunked && decode::looks_chunked(&body);
    if dechunked {
        let (plain, map) = dechunk_mapped(&body, &stream.evidence);
        for r in &mut reads {
            r.offset = map(r.offset);
        }
        body = plain;
        stream
            .notes
            .push("chunked transfer framing removed".to_string());
    }
    if !reads.is_empty() {
        stream.timing = Some(Timing::Reads(reads));
    }
    let body_reader: Box<dyn Read + Send> = Box::new(Cursor::new(body));
    let contiguous = finish_body(&mut stream, http.as_ref(), body_reader, max_decoded);
    // The body is the dump lines' bytes as they are: its positions map
    // onto them.
    if contiguous && !dechunked && !runs.is_empty() {
        stream.dump = Some(runs);
    }
    stream.http = http;
    stream.request = (!request.method.is_empty()).then_some(request);
    Ok(Capture {
        path: name.to_string(),
        input_format: InputFormat::Curl,
        detail: if is_ascii {
            "curl --trace-ascii"
        } else {
            "curl --trace"
        },
        streams: vec![stream],
    })
}

/// Adds one dump line of received data (`at`, a run of one line) to
/// `runs`: the last run grows when the line is where its layout puts the
/// next one, else a run starts (up to [`super::MAX_SHIFTS`] of them).
fn extend_runs(runs: &mut super::DumpRuns, at: super::DumpRun) {
    if let Some(r) = runs.last_mut() {
        let same = r.per_line == at.per_line
            && r.step == at.step
            && r.column == at.column
            && at.body == r.body + r.lines * r.per_line
            && at.line == r.line + r.lines;
        if same && r.lines == 1 && at.byte > r.byte {
            r.line_bytes = at.byte - r.byte;
            r.lines = 2;
            return;
        }
        if same && r.lines > 1 && at.byte == r.byte + r.lines * r.line_bytes {
            r.lines += 1;
            return;
        }
    }
    if runs.len() < super::MAX_SHIFTS {
        runs.push(at);
    }
}

/// A record's declared byte count (`<= Recv data, 123 bytes (0x7b)`).
fn declared_size(l: &[u8]) -> usize {
    let s = String::from_utf8_lossy(l);
    s.split(", ")
        .nth(1)
        .and_then(|p| p.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// In an ASCII trace a record ending in CRLF shows fewer bytes than it
/// declares: put the CRLF back.
fn fill_crlf(rec: &mut TraceRecord, ascii: Option<bool>, last_end: usize, declared: usize) {
    if ascii == Some(true) && declared > last_end && declared - last_end <= 2 {
        rec.bytes
            .extend_from_slice(&b"\r\n"[2 - (declared - last_end)..]);
    }
}

/// Whether a dump line's content is `--trace` hex (`xx xx … ` then ASCII).
fn is_hex_dump(content: &[u8]) -> bool {
    // 16 columns of `xx ` (padded with spaces on a short last line), then
    // the ASCII column.
    content.len() >= 48
        && content[..48].chunks(3).enumerate().all(|(i, p)| {
            (p[0].is_ascii_hexdigit() && p[1].is_ascii_hexdigit() || i > 0 && p[..2] == *b"  ")
                && p[2] == b' '
        })
}

/// Splits received header bytes into blocks at blank lines.
fn split_header_blocks(b: &[u8]) -> Vec<Vec<u8>> {
    let text = String::from_utf8_lossy(b).replace("\r\n", "\n");
    text.split("\n\n")
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.as_bytes().to_vec())
        .collect()
}

/// `--trace-ascii` prints LF as `.`; turn runs of dots back into line feeds
/// where they end an SSE line: before a field name at a line start (`data:`,
/// `event:`, `id:`, `retry:`, `:`) or at the very end, after JSON's closing
/// `}` or `]` or after `[DONE]`.
fn infer_line_feeds(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'.' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let run_end = b[i..]
            .iter()
            .position(|c| *c != b'.')
            .map_or(b.len(), |p| i + p);
        let after = &b[run_end..];
        let before_ok = i == 0
            || matches!(b[i - 1], b'}' | b']' | b'\n')
            || out.ends_with(b"[DONE]")
            || out.ends_with(b"\r\n");
        let next_is_field = after.is_empty()
            || after.starts_with(b"data:")
            || after.starts_with(b"event:")
            || after.starts_with(b"id:")
            || after.starts_with(b"retry:")
            || after.starts_with(b":")
            || after.starts_with(b"\r\n");
        if before_ok && next_is_field {
            out.extend(std::iter::repeat_n(b'\n', run_end - i));
        } else {
            out.extend_from_slice(&b[i..run_end]);
        }
        i = run_end;
    }
    out
}

/// De-chunks an in-memory body and returns a map from offsets in the
/// chunked bytes to offsets in the plain body (for read timings).
fn dechunk_mapped(raw: &[u8], evidence: &Evidence) -> (Vec<u8>, impl Fn(u64) -> u64) {
    // (raw start, plain start, len) of each chunk's data
    let mut spans: Vec<(u64, u64, u64)> = Vec::new();
    let mut plain = Vec::new();
    let mut rest = Dechunk::new(Cursor::new(raw), evidence.clone());
    // Walk the framing ourselves for the map, and use the reader for bytes.
    let mut pos = 0usize;
    while pos < raw.len() {
        let Some(eol) = memchr::memmem::find(&raw[pos..], b"\r\n") else {
            break;
        };
        let size_text = String::from_utf8_lossy(&raw[pos..pos + eol]);
        let Ok(size) = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
        else {
            break;
        };
        let data = pos + eol + 2;
        if size == 0 {
            break;
        }
        spans.push((data as u64, plain_len(&spans), size as u64));
        pos = data + size + 2;
    }
    let _ = rest.read_to_end(&mut plain);
    let map = move |off: u64| -> u64 {
        let mut best = 0;
        for &(raw_start, plain_start, len) in &spans {
            if off >= raw_start {
                best = plain_start + (off - raw_start).min(len);
            }
        }
        best
    };
    (plain, map)
}

fn plain_len(spans: &[(u64, u64, u64)]) -> u64 {
    spans.last().map_or(0, |&(_, s, l)| s + l)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body_of(c: Capture) -> Vec<u8> {
        let mut out = Vec::new();
        for s in c.streams {
            if let Body::Reader(mut r) = s.body {
                r.read_to_end(&mut out).unwrap();
            }
        }
        out
    }

    #[test]
    fn curl_i_takes_the_last_header_block() {
        let dump = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/2 200\r\ncontent-type: text/event-stream\r\nauthorization: x\r\n\r\ndata: a\n\n";
        let c = read(
            "t",
            Box::new(Cursor::new(dump.to_vec())),
            decode::MAX_DECODED_BYTES,
        )
        .unwrap();
        let http = c.streams[0].http.clone().unwrap();
        assert_eq!(http.status, 200);
        assert_eq!(http.content_type.as_deref(), Some("text/event-stream"));
        assert_eq!(http.header("authorization"), Some("[REDACTED]"));
        assert_eq!(c.streams[0].origin.file_start, Some((90, 7)));
        assert_eq!(body_of(c), b"data: a\n\n");
    }

    #[test]
    fn curl_v_lines_are_dropped_from_the_body() {
        let dump = b"* Trying 1.2.3.4\n> POST /v1/chat/completions HTTP/1.1\n> Host: api.example.com\n>\n< HTTP/1.1 200 OK\n< Content-Type: text/event-stream\n<\n{ [5 bytes data]\ndata: a\n* TLSv1.3 (IN), TLS header\n\ndata: b\n\n* Connection #0 left intact\n";
        let c = read(
            "t",
            Box::new(Cursor::new(dump.to_vec())),
            decode::MAX_DECODED_BYTES,
        )
        .unwrap();
        assert_eq!(c.detail, "curl -v");
        let req = c.streams[0].request.clone().unwrap();
        assert_eq!(req.url, "https://api.example.com/v1/chat/completions");
        // The bare `>` and `<` lines end the header blocks, not the dump's
        // head: the status and headers after them are kept.
        assert_eq!(c.streams[0].http.as_ref().map(|h| h.status), Some(200));
        assert_eq!(body_of(c), b"data: a\n\ndata: b\n\n");
    }

    #[test]
    fn bare_markers_inside_the_body_are_dropped_with_their_line_end() {
        let mut out = Vec::new();
        VerboseFilter::new(
            Cursor::new(b"data: a\n\n<\r\n>\n*\r\ndata: b\r\n\r\n".to_vec()),
            Default::default(),
        )
        .read_to_end(&mut out)
        .unwrap();
        assert_eq!(out, b"data: a\n\ndata: b\r\n\r\n");
    }

    #[test]
    fn trace_ascii_line_feeds_are_inferred() {
        assert_eq!(
            infer_line_feeds(b"data: {\"a\":1.5}..data: [DONE].."),
            b"data: {\"a\":1.5}\n\ndata: [DONE]\n\n"
        );
    }
}
