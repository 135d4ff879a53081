//! curl's progress meter, merged into a capture by `curl … > file 2>&1`
//! without `-s`: a two-line header, then a row every second that starts
//! with CR and rewrites itself in place (`\r100  716    0  635 …`), and one
//! line feed after the last row. stdout and stderr share the file, so rows
//! land wherever curl's writes met: before the status line, glued to the
//! front of a `data:` line, inside a line or inside `--raw` chunk framing.
//!
//! [`MeterFilter`] removes the meter from a byte stream, wherever it lands,
//! before anything else reads the bytes. The row layout is curl's
//! (`lib/progress.c`): after the CR, 78 columns of fixed width, so a row is
//! told from body bytes by its shape, not by a guess.

use std::io::{self, Read};

/// The header curl prints once, before the first row (one write, so it is
/// never split by body bytes).
pub const HEADER: &[u8] = b"  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n                                 Dload  Upload   Total   Spent    Left  Speed\n";

/// The columns of a row after its CR: `p` a percentage (`%3d`), `s` a size
/// or speed (curl's 5-character `max5data`), `t` a time (8 characters:
/// `--:--:--`, ` 0:00:01`, `  1d 02h`), and literal spaces.
const ROW: &[u8; 78] =
    b"ppp sssss  ppp sssss  ppp sssss  sssss  sssss tttttttt tttttttt tttttttt sssss";

/// Whether `b` (the bytes after a CR, at most 78) fits a row so far; with
/// all 78, whether it is one.
fn fits_row(b: &[u8]) -> bool {
    let n = b.len().min(ROW.len());
    let cols_ok = b[..n].iter().zip(ROW.iter()).all(|(c, k)| match k {
        b'p' => c.is_ascii_digit() || *c == b' ',
        b's' => c.is_ascii_digit() || b" .kMGTPE".contains(c),
        b't' => c.is_ascii_digit() || b" :-dh".contains(c),
        _ => c == k,
    });
    if !cols_ok || n < ROW.len() {
        return cols_ok;
    }
    // Every field ends in something other than a blank (right-aligned).
    ROW.iter()
        .enumerate()
        .filter(|(i, k)| **k != b' ' && ROW.get(i + 1).is_none_or(|n| *n == b' '))
        .all(|(i, _)| b[i] != b' ')
}

/// Whether the head of a capture shows curl's progress meter: its header,
/// or a row.
pub fn present(head: &[u8]) -> bool {
    memchr::memmem::find(head, &HEADER[..40]).is_some()
        || memchr::memchr_iter(b'\r', head).any(|i| {
            let rest = &head[i + 1..];
            rest.len() >= ROW.len() && fits_row(&rest[..ROW.len()])
        })
}

/// What curl writes after its last row's line feed, in a merged dump: the
/// `-v` closing lines and its error line. Only then is that line feed the
/// meter's, not the body's.
fn meter_tail_follows(rest: &[u8]) -> Option<bool> {
    for t in [&b"* "[..], b"curl: ("] {
        let n = rest.len().min(t.len());
        if rest[..n] == t[..n] {
            return (n == t.len()).then_some(true);
        }
    }
    Some(false)
}

/// Removes curl's progress meter from a merged dump, streaming; counts the
/// rows it removed.
pub struct MeterFilter<R> {
    inner: R,
    pending: Vec<u8>,
    out: Vec<u8>,
    out_pos: usize,
    eof: bool,
    removed: usize,
}

enum Found {
    /// Not the meter: move on one byte.
    No,
    /// Could be the meter: wait for more bytes (from this index).
    More,
    /// The meter, over `start..end`.
    Meter(usize, usize),
}

impl<R: Read> MeterFilter<R> {
    /// Wraps `inner`.
    pub fn new(inner: R) -> Self {
        MeterFilter {
            inner,
            pending: Vec::new(),
            out: Vec::new(),
            out_pos: 0,
            eof: false,
            removed: 0,
        }
    }

    /// How many header blocks and rows were removed so far.
    pub fn removed(&self) -> usize {
        self.removed
    }

    /// Whether the meter starts at `buf[at]` (a CR or the header's first
    /// `%`, two bytes in).
    fn classify(&self, buf: &[u8], at: usize) -> Found {
        if buf[at] == b'%' {
            let Some(start) = at.checked_sub(2) else {
                return Found::No;
            };
            let have = &buf[start..];
            let n = have.len().min(HEADER.len());
            if have[..n] != HEADER[..n] {
                return Found::No;
            }
            if n < HEADER.len() {
                return if self.eof { Found::No } else { Found::More };
            }
            return Found::Meter(start, start + HEADER.len());
        }
        let row = &buf[at + 1..];
        if !fits_row(&row[..row.len().min(ROW.len())]) {
            return Found::No;
        }
        if row.len() < ROW.len() {
            return if self.eof { Found::No } else { Found::More };
        }
        let end = at + 1 + ROW.len();
        // After the last row curl writes a line feed: it goes with the row
        // when only curl's own lines (or nothing) follow it.
        match buf.get(end) {
            None if !self.eof => Found::More,
            Some(b'\n') => match meter_tail_follows(&buf[end + 1..]) {
                _ if end + 1 == buf.len() && !self.eof => Found::More,
                None if !self.eof => Found::More,
                Some(true) => Found::Meter(at, end + 1),
                _ if end + 1 == buf.len() => Found::Meter(at, end + 1),
                _ => Found::Meter(at, end),
            },
            _ => Found::Meter(at, end),
        }
    }

    /// Moves what can be decided from `pending` to `out`.
    fn process(&mut self) {
        let buf = std::mem::take(&mut self.pending);
        let mut emitted = 0;
        let mut scan = 0;
        let mut held_from = None;
        while let Some(rel) = memchr::memchr2(b'\r', b'%', &buf[scan..]) {
            let at = scan + rel;
            match self.classify(&buf, at) {
                Found::No => scan = at + 1,
                Found::More => {
                    held_from = Some(if buf[at] == b'%' { at - 2 } else { at });
                    break;
                }
                Found::Meter(start, end) => {
                    self.out.extend_from_slice(&buf[emitted..start]);
                    self.removed += 1;
                    emitted = end;
                    scan = end;
                }
            }
        }
        // Keep the last two bytes back: they could be the header's first
        // two spaces.
        let keep = match held_from {
            Some(h) => h.max(emitted),
            None if self.eof => buf.len(),
            None => buf.len().saturating_sub(2).max(emitted),
        };
        self.out.extend_from_slice(&buf[emitted..keep]);
        self.pending = buf[keep..].to_vec();
    }
}

impl<R: Read> Read for MeterFilter<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if let Some(n) = super::decode::drain(&mut self.out, &mut self.out_pos, buf) {
                return Ok(n);
            }
            if self.eof {
                if self.pending.is_empty() {
                    return Ok(0);
                }
                self.process();
                if self.out.is_empty() {
                    // Nothing decided from what is left: hand it on as is.
                    self.out = std::mem::take(&mut self.pending);
                }
                continue;
            }
            self.eof = super::decode::fill(&mut self.inner, &mut self.pending)?;
            self.process();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROW0: &[u8] =
        b"\r  0     0    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0";
    const ROW1: &[u8] =
        b"\r100   706    0   693  100    13    840     15 --:--:--  0:00:01 --:--:--   855";

    fn filter(b: &[u8], piece: usize) -> Vec<u8> {
        struct Pieces<'a>(&'a [u8], usize);
        impl Read for Pieces<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.0.len().min(self.1).min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut out = Vec::new();
        MeterFilter::new(Pieces(b, piece))
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    #[test]
    fn the_meter_goes_wherever_it_lands_in_any_split() {
        let body = b"data: {\"a\":1}\n\ndata: [DONE]\n\n";
        let mut dump = HEADER.to_vec();
        dump.extend_from_slice(ROW0);
        dump.extend_from_slice(b"HTTP/1.1 200 OK\r\n\r\ndat");
        dump.extend_from_slice(ROW1);
        dump.extend_from_slice(b"a: {\"a\":1}\n");
        dump.extend_from_slice(ROW1);
        dump.extend_from_slice(b"\ndata: [DONE]\n\n");
        dump.extend_from_slice(ROW1);
        dump.extend_from_slice(b"\n");
        let mut want = b"HTTP/1.1 200 OK\r\n\r\n".to_vec();
        want.extend_from_slice(body);
        for piece in [1, 2, 3, 7, 64, 100_000] {
            assert_eq!(
                String::from_utf8_lossy(&filter(&dump, piece)),
                String::from_utf8_lossy(&want),
                "pieces of {piece}"
            );
        }
        assert!(present(&dump));
        assert!(!present(body));
    }

    #[test]
    fn the_last_rows_line_feed_goes_before_a_curl_error_line() {
        let mut dump = b"data: {\"a\":1}\n\ndat".to_vec();
        dump.extend_from_slice(ROW1);
        dump.extend_from_slice(b"\ncurl: (18) transfer closed\n");
        for piece in [1, 5, 1000] {
            assert_eq!(
                filter(&dump, piece),
                b"data: {\"a\":1}\n\ndatcurl: (18) transfer closed\n".to_vec()
            );
        }
    }

    #[test]
    fn crlf_bodies_and_look_alikes_stay() {
        let body = b"data: {\"p\":\"100% done\"}\r\n\r\n\r  0 not a row\r\n";
        for piece in [1, 3, 1000] {
            assert_eq!(filter(body, piece), body.to_vec());
        }
    }
}
