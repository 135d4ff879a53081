//! Content-Encoding decoding (gzip, deflate, br) and transfer-level readers:
//! chunked de-framing (`curl --raw`) and curl's error-line tail.
//!
//! Every decoder is a `Read` adapter, so decoded bodies still stream, and
//! every one is capped at [`MAX_DECODED_BYTES`] so a decompression bomb
//! cannot take the machine down.

use super::{note_cut, note_truncation, Evidence};
use std::io::{self, Read};

/// Default largest decoded body accepted from a compressed one (bytes):
/// 512 MiB, so a decompression bomb ends as a finding, not as the machine's
/// memory (a HAR body is decoded in memory).
pub const MAX_DECODED_BYTES: u64 = 512 * 1024 * 1024;

/// A Content-Encoding we can undo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// `gzip` (RFC 1952)
    Gzip,
    /// `deflate`: zlib-wrapped (RFC 1950), or raw (RFC 1951) as some servers send
    Deflate,
    /// `br` (RFC 7932)
    Brotli,
}

impl Encoding {
    /// The encoding named by a `Content-Encoding` value, if we decode it.
    pub fn from_header(value: &str) -> Option<Self> {
        match value.trim().to_ascii_lowercase().as_str() {
            "gzip" | "x-gzip" => Some(Encoding::Gzip),
            "deflate" => Some(Encoding::Deflate),
            "br" => Some(Encoding::Brotli),
            _ => None,
        }
    }

    /// The token, for notes.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Gzip => "gzip",
            Encoding::Deflate => "deflate",
            Encoding::Brotli => "br",
        }
    }
}

/// Whether `head` starts like a gzip member.
pub fn is_gzip(head: &[u8]) -> bool {
    head.starts_with(&[0x1f, 0x8b])
}

/// Wraps `inner` in the decoder for `enc`; decoding errors (a truncated or
/// corrupt stream) end the body and are recorded as truncation evidence.
pub fn decoder(
    enc: Encoding,
    inner: Box<dyn Read + Send>,
    evidence: Evidence,
    limit: u64,
) -> Box<dyn Read + Send> {
    let decoded = raw_decoder(enc, inner);
    Box::new(Lenient {
        inner: decoded.take(limit.saturating_add(1)),
        evidence,
        what: enc.name(),
        produced: 0,
        done: false,
        limit,
    })
}

/// Whether `body` starts as an `enc` stream: its first read decodes to
/// some bytes without error. A HAR's `Content-Encoding` header may name
/// what the server sent while the body is stored decoded (browsers do);
/// this tells the two apart. (Text such as `data: …` is no valid
/// deflate or br stream.)
pub fn starts_encoded(enc: Encoding, body: &[u8]) -> bool {
    let mut r = raw_decoder(enc, Box::new(io::Cursor::new(body.to_vec())));
    let mut buf = [0u8; 512];
    matches!(r.read(&mut buf), Ok(n) if n > 0)
}

/// Whether `body` decodes from `enc` to its end without an error (a
/// compressed body cut short does not).
pub fn decodes_whole(enc: Encoding, body: &[u8]) -> bool {
    let mut r = raw_decoder(enc, Box::new(io::Cursor::new(body.to_vec())));
    io::copy(&mut r, &mut io::sink()).is_ok()
}

/// The bare decoder for `enc` over `inner`: no size cap, errors as they are.
fn raw_decoder(enc: Encoding, inner: Box<dyn Read + Send>) -> Box<dyn Read + Send> {
    let mut inner = io::BufReader::new(inner);
    match enc {
        Encoding::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(inner)),
        Encoding::Deflate => {
            // zlib header: CMF 0x78 in practice; otherwise raw deflate.
            let zlib = io::BufRead::fill_buf(&mut inner)
                .map(|b| b.first() == Some(&0x78))
                .unwrap_or(false);
            if zlib {
                Box::new(flate2::bufread::ZlibDecoder::new(inner))
            } else {
                Box::new(flate2::bufread::DeflateDecoder::new(inner))
            }
        }
        Encoding::Brotli => Box::new(brotli_decompressor::Decompressor::new(inner, 4096)),
    }
}

/// Turns a decoder's error into end-of-body plus evidence, and enforces the
/// size cap.
struct Lenient<R> {
    inner: R,
    evidence: Evidence,
    what: &'static str,
    produced: u64,
    done: bool,
    limit: u64,
}

impl<R: Read> Read for Lenient<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.done {
            return Ok(0);
        }
        match self.inner.read(buf) {
            Ok(n) => {
                self.produced += n as u64;
                if self.produced > self.limit {
                    self.done = true;
                    note_truncation(
                        &self.evidence,
                        format!(
                            "the {} body decodes to more than {} bytes (--max-decoded-bytes); the rest was not read",
                            self.what, self.limit
                        ),
                    );
                    let keep = n - (self.produced - self.limit) as usize;
                    return Ok(keep);
                }
                Ok(n)
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Err(e),
            Err(e) => {
                self.done = true;
                note_cut(
                    &self.evidence,
                    format!(
                        "the {} body could not be decoded past byte {} of its decoded form ({}): the capture holds an incomplete compressed body",
                        self.what,
                        self.produced,
                        e
                    ),
                );
                Ok(0)
            }
        }
    }
}

/// Undoes HTTP/1.1 chunked transfer coding (RFC 9112 §7.1), as left in by
/// `curl --raw`. A body that ends before the zero-size chunk is recorded as
/// truncation evidence; a malformed size line ends the body with evidence.
pub struct Dechunk<R> {
    inner: io::BufReader<R>,
    state: ChunkState,
    evidence: Evidence,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ChunkState {
    Size,
    Data(u64),
    DataEnd,
    Done,
}

impl<R: Read> Dechunk<R> {
    /// De-chunks `inner`.
    pub fn new(inner: R, evidence: Evidence) -> Self {
        Dechunk {
            inner: io::BufReader::new(inner),
            state: ChunkState::Size,
            evidence,
        }
    }

    fn read_line(&mut self) -> io::Result<Option<Vec<u8>>> {
        let mut line = Vec::new();
        let n = io::BufRead::read_until(&mut self.inner, b'\n', &mut line)?;
        if n == 0 {
            return Ok(None);
        }
        if !line.ends_with(b"\n") {
            // Cut inside the line.
            return Ok(None);
        }
        while line.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
            line.pop();
        }
        Ok(Some(line))
    }
}

/// Whether `body` starts like chunked framing: a hex size line (optionally
/// with `;ext`) ended by CRLF.
pub fn looks_chunked(body: &[u8]) -> bool {
    let Some(end) = memchr::memmem::find(&body[..body.len().min(64)], b"\r\n") else {
        return false;
    };
    let size = body[..end].split(|b| *b == b';').next().unwrap_or(&[]);
    !size.is_empty() && size.len() <= 16 && size.iter().all(u8::is_ascii_hexdigit)
}

impl<R: Read> Read for Dechunk<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.state {
                ChunkState::Done => return Ok(0),
                ChunkState::Size => {
                    let Some(line) = self.read_line()? else {
                        note_cut(
                            &self.evidence,
                            "the chunked body ends without its final zero-size chunk (curl --raw): the transfer was cut",
                        );
                        self.state = ChunkState::Done;
                        return Ok(0);
                    };
                    let text = String::from_utf8_lossy(&line);
                    let hex = text.split(';').next().unwrap_or("").trim();
                    match u64::from_str_radix(hex, 16) {
                        Ok(0) => {
                            // Trailers until a blank line; we do not need them.
                            while let Some(l) = self.read_line()? {
                                if l.is_empty() {
                                    break;
                                }
                            }
                            self.state = ChunkState::Done;
                        }
                        Ok(n) => self.state = ChunkState::Data(n),
                        Err(_) => {
                            note_cut(
                                &self.evidence,
                                format!(
                                    "a chunk-size line of the chunked body is malformed ({:?}); the body ends there",
                                    text.chars().take(40).collect::<String>()
                                ),
                            );
                            self.state = ChunkState::Done;
                        }
                    }
                }
                ChunkState::Data(left) => {
                    let want = buf.len().min(left.min(usize::MAX as u64) as usize);
                    let n = self.inner.read(&mut buf[..want])?;
                    if n == 0 {
                        note_cut(
                            &self.evidence,
                            format!(
                                "the chunked body ends {left} bytes into a chunk's data (curl --raw): the transfer was cut"
                            ),
                        );
                        self.state = ChunkState::Done;
                        return Ok(0);
                    }
                    self.state = if left - n as u64 == 0 {
                        ChunkState::DataEnd
                    } else {
                        ChunkState::Data(left - n as u64)
                    };
                    return Ok(n);
                }
                ChunkState::DataEnd => {
                    // The CRLF after a chunk's data.
                    match self.read_line()? {
                        Some(l) if l.is_empty() => self.state = ChunkState::Size,
                        Some(_) | None => {
                            note_cut(
                                &self.evidence,
                                "a chunk of the chunked body is not followed by CRLF; the body ends there",
                            );
                            self.state = ChunkState::Done;
                        }
                    }
                }
            }
        }
    }
}

/// Removes curl's own error line (`curl: (18) transfer closed …`) when it is
/// the last line of the body, recording it as truncation evidence. Such a
/// line lands in the capture when stderr was merged (`2>&1`).
///
/// Bytes stream through; only a line starting with `curl: (` is held back
/// until we know whether anything but whitespace follows it.
pub struct CurlErrorTail<R> {
    inner: R,
    evidence: Evidence,
    /// Bytes read but not yet released.
    pending: Vec<u8>,
    /// Whether `pending[0]` is at a line start.
    at_line_start: bool,
    eof: bool,
    out: Vec<u8>,
    out_pos: usize,
}

const CURL_ERR: &[u8] = b"curl: (";

impl<R: Read> CurlErrorTail<R> {
    /// Wraps `inner`.
    pub fn new(inner: R, evidence: Evidence) -> Self {
        CurlErrorTail {
            inner,
            evidence,
            pending: Vec::new(),
            at_line_start: true,
            eof: false,
            out: Vec::new(),
            out_pos: 0,
        }
    }

    /// Moves whatever in `pending` can be released into `out`.
    fn release(&mut self) {
        loop {
            if self.pending.is_empty() {
                return;
            }
            if memchr::memmem::find(&self.pending, CURL_ERR).is_none() {
                // No `curl: (` in it: every line goes at once (what the loop
                // below does line by line), holding back, until the end of the
                // input, the tail that could begin one.
                let hold = if self.eof { 0 } else { hold_len(&self.pending) };
                let n = self.pending.len() - hold;
                if n > 0 {
                    self.at_line_start = self.pending[n - 1] == b'\n';
                    self.out.extend_from_slice(&self.pending[..n]);
                    self.pending.drain(..n);
                }
                return;
            }
            if self.at_line_start {
                let n = self.pending.len().min(CURL_ERR.len());
                if self.pending[..n] == CURL_ERR[..n] {
                    // A possible curl error line: hold it while it could
                    // still be the last line.
                    if n < CURL_ERR.len() && !self.eof {
                        return;
                    }
                    if n == CURL_ERR.len() {
                        let line_end = memchr::memchr(b'\n', &self.pending);
                        let rest_start = line_end.map_or(self.pending.len(), |i| i + 1);
                        let rest_blank = self.pending[rest_start..]
                            .iter()
                            .all(u8::is_ascii_whitespace);
                        if !self.eof && rest_blank {
                            return;
                        }
                        if self.eof && rest_blank {
                            self.record(rest_start);
                            self.pending.clear();
                            return;
                        }
                    }
                }
            }
            // `curl: (` after body bytes on the same line: the transfer
            // broke mid-line and curl's message follows the last bytes.
            let line_len = memchr::memchr(b'\n', &self.pending).map(|i| i + 1);
            let line = &self.pending[..line_len.unwrap_or(self.pending.len())];
            if let Some(p) = memchr::memmem::find(line, CURL_ERR) {
                let rest_start = line.len();
                let rest_blank = self.pending[rest_start..]
                    .iter()
                    .all(u8::is_ascii_whitespace);
                if rest_blank && !self.eof {
                    // Hold it while it could still be the last line.
                    if p > 0 {
                        self.out.extend(self.pending.drain(..p));
                        self.at_line_start = false;
                    }
                    return;
                }
                if rest_blank && is_curl_error(&self.pending[p..]) {
                    self.out.extend(self.pending.drain(..p));
                    self.at_line_start = false;
                    self.record(rest_start - p);
                    self.pending.clear();
                    return;
                }
            } else if line_len.is_none() && !self.eof {
                // Hold back what could begin `curl: (`.
                let hold = hold_len(&self.pending);
                let n = self.pending.len() - hold;
                if n > 0 {
                    self.out.extend(self.pending.drain(..n));
                    self.at_line_start = false;
                }
                return;
            }
            // Release through the next line end (or everything).
            match memchr::memchr(b'\n', &self.pending) {
                Some(i) => {
                    self.out.extend(self.pending.drain(..=i));
                    self.at_line_start = true;
                }
                None => {
                    self.out.append(&mut self.pending);
                    self.at_line_start = false;
                }
            }
        }
    }
}

impl<R> CurlErrorTail<R> {
    /// Records the curl error line `pending[..end]` as evidence.
    fn record(&self, end: usize) {
        let line = String::from_utf8_lossy(&self.pending[..end]);
        let text = line.trim().trim_start_matches("curl: ").to_string();
        // (28) is curl's own time-out (--max-time): the capture was cut.
        // (18), (56), (92)… mean the server or the network closed the
        // transfer.
        if text.starts_with("(28)") {
            note_truncation(
                &self.evidence,
                format!("curl gave up at the end of the capture: {text}"),
            );
        } else {
            note_cut(&self.evidence, format!("curl reported {text}"));
        }
    }
}

/// Whether `t` starts like curl's error line: `curl: (NN)`.
fn is_curl_error(t: &[u8]) -> bool {
    let Some(rest) = t.strip_prefix(CURL_ERR) else {
        return false;
    };
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    digits > 0 && rest.get(digits) == Some(&b')')
}

impl<R: Read> Read for CurlErrorTail<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if let Some(n) = super::decode::drain(&mut self.out, &mut self.out_pos, buf) {
                return Ok(n);
            }
            if self.eof {
                self.release();
                if self.out.is_empty() {
                    return Ok(0);
                }
                continue;
            }
            if self.pending.is_empty() && buf.len() >= 64 {
                // Fast path, no copy: read straight into the caller's
                // buffer and hold back only what could start a curl line.
                let n = self.inner.read(buf)?;
                if n == 0 {
                    self.eof = true;
                    continue;
                }
                if memchr::memmem::find(&buf[..n], CURL_ERR).is_none() {
                    let hold = hold_len(&buf[..n]);
                    self.pending.extend_from_slice(&buf[n - hold..n]);
                    if n - hold > 0 {
                        self.at_line_start = buf[n - hold - 1] == b'\n';
                        return Ok(n - hold);
                    }
                    continue;
                }
                self.pending.extend_from_slice(&buf[..n]);
            } else {
                self.eof = fill(&mut self.inner, &mut self.pending)?;
            }
            self.release();
        }
    }
}

/// How many bytes at the end of `b` could begin `curl: (` (at a line start,
/// or glued to a line the transfer cut).
fn hold_len(b: &[u8]) -> usize {
    (1..CURL_ERR.len())
        .rev()
        .find(|&k| b.len() >= k && b[b.len() - k..] == CURL_ERR[..k])
        .unwrap_or(0)
}

/// Reads the next piece of `inner` onto `pending`; `true` at the end of
/// the input.
///
/// # Errors
/// The read failed.
pub(super) fn fill(inner: &mut impl Read, pending: &mut Vec<u8>) -> io::Result<bool> {
    let mut tmp = [0u8; 16 * 1024];
    let n = inner.read(&mut tmp)?;
    pending.extend_from_slice(&tmp[..n]);
    Ok(n == 0)
}

/// Hands out what a filtering reader has ready (`out` from `*pos`) into
/// `buf`; `None` when nothing is ready. Resets `out` once it is all out.
pub(super) fn drain(out: &mut Vec<u8>, pos: &mut usize, buf: &mut [u8]) -> Option<usize> {
    if *pos >= out.len() {
        return None;
    }
    let n = buf.len().min(out.len() - *pos);
    buf[..n].copy_from_slice(&out[*pos..*pos + n]);
    *pos += n;
    if *pos == out.len() {
        out.clear();
        *pos = 0;
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(mut r: impl Read) -> Vec<u8> {
        let mut v = Vec::new();
        r.read_to_end(&mut v).unwrap();
        v
    }

    #[test]
    fn a_trailing_curl_error_line_is_removed_and_recorded() {
        let ev = Evidence::default();
        let body = b"data: a\n\ncurl: (18) transfer closed with outstanding read data remaining\n";
        let out = drain(CurlErrorTail::new(&body[..], ev.clone()));
        assert_eq!(out, b"data: a\n\n");
        assert_eq!(ev.lock().unwrap().len(), 1);
    }

    #[test]
    fn a_read_returns_only_the_bytes_of_the_body() {
        // Regression: the fast path once handed on the unused end of its
        // scratch buffer as body bytes (NULs after the last line).
        let ev = Evidence::default();
        let body = b"data: a\n\ndata: [DONE]\n\n";
        let mut r = CurlErrorTail::new(&body[..], ev);
        let mut buf = vec![0u8; 65536];
        let mut got = Vec::new();
        loop {
            let n = r.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
        }
        assert_eq!(got, body);
    }

    #[test]
    fn a_curl_error_glued_to_a_cut_line_is_removed_and_recorded() {
        // `curl -sS … 2>&1` (or the meter's line feed taken out) when the
        // transfer broke mid-line: curl's message follows the last bytes.
        let body =
            b"data: a\n\ndatcurl: (18) transfer closed with outstanding read data remaining\n";
        for piece in [1, 4, 9, 4096] {
            let ev = Evidence::default();
            let r = Pieces(&body[..], piece);
            let out = drain(CurlErrorTail::new(r, ev.clone()));
            assert_eq!(out, b"data: a\n\ndat", "pieces of {piece}");
            let ev = ev.lock().unwrap();
            assert_eq!(ev.len(), 1);
            assert!(ev[0].reason.contains("(18)"));
        }
        // Text that merely mentions curl stays.
        let body = b"data: run curl: (see docs)\n";
        assert_eq!(
            drain(CurlErrorTail::new(&body[..], Evidence::default())),
            body
        );
    }

    struct Pieces<'a>(&'a [u8], usize);
    impl Read for Pieces<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.0.len().min(self.1).min(buf.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn any_read_size_gives_the_same_body() {
        // Lines that end in what could begin `curl: (` make the reader hold
        // bytes back, whatever the size of the reads.
        let mut body = Vec::new();
        for i in 0..400 {
            body.extend_from_slice(format!("data: {i} abc\ndata: c\ncu\n\n").as_bytes());
        }
        let cut = [&body[..], b"curl: (28) Operation timed out\n"].concat();
        for piece in [1, 3, 7, 64, 100, 4096, 1 << 20] {
            let ev = Evidence::default();
            let out = drain(CurlErrorTail::new(Pieces(&body, piece), ev.clone()));
            assert_eq!(out, body, "pieces of {piece}");
            assert!(ev.lock().unwrap().is_empty());
            let ev = Evidence::default();
            let out = drain(CurlErrorTail::new(Pieces(&cut, piece), ev.clone()));
            assert_eq!(out, body, "pieces of {piece}");
            assert_eq!(ev.lock().unwrap().len(), 1);
        }
    }

    #[test]
    fn a_curl_error_line_in_the_middle_stays() {
        let ev = Evidence::default();
        let body = b"curl: (6) x\ndata: a\n\n";
        let out = drain(CurlErrorTail::new(&body[..], ev.clone()));
        assert_eq!(out, body);
        assert!(ev.lock().unwrap().is_empty());
    }

    #[test]
    fn chunked_bodies_are_dechunked_and_a_missing_zero_chunk_is_evidence() {
        let ev = Evidence::default();
        let out = drain(Dechunk::new(
            &b"5\r\nhello\r\n1;x=y\r\n!\r\n0\r\n\r\n"[..],
            ev.clone(),
        ));
        assert_eq!(out, b"hello!");
        assert!(ev.lock().unwrap().is_empty());
        let out = drain(Dechunk::new(&b"5\r\nhello\r\n3\r\nab"[..], ev.clone()));
        assert_eq!(out, b"helloab");
        assert_eq!(ev.lock().unwrap().len(), 1);
    }
}
