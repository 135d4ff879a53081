//! Where `minimize` keeps the bytes of its units: appended, never changed,
//! in memory up to [`MEM_BYTES`], then in an unnamed temporary file (as a
//! HAR body's spool, [`crate::capture::spool`]). A unit holds a [`Piece`]
//! (where its bytes are), so the states `minimize` compares and the
//! candidates it renders cost a few words per unit, not a copy of the
//! capture: a 100 MB capture is minimized in flat memory.

use crate::capture::spool;
use std::borrow::Cow;
use std::cell::RefCell;
use std::fs::File;
use std::io::{self, Write};

/// Bytes kept in memory before the heap moves on to a file (8 MiB).
pub const MEM_BYTES: usize = 8 * 1024 * 1024;

/// Bytes written to the file at a time.
const CHUNK: usize = 256 * 1024;

/// Where the file's pieces start in the heap's offsets (memory pieces lie
/// below).
const FILE_BASE: u64 = 1 << 62;

/// The most bytes read from the file at once when rendering.
const READ_BYTES: usize = 1024 * 1024;

/// Where one run of bytes is in a [`Heap`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Piece {
    at: u64,
    len: u32,
}

impl Piece {
    /// Its length in bytes.
    pub fn len(self) -> usize {
        self.len as usize
    }

    /// Whether it holds no byte.
    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    /// Whether `next` follows it in the heap.
    fn continues_to(self, next: Piece) -> bool {
        self.at + u64::from(self.len) == next.at
    }
}

/// The bytes of a run's units (see the module docs). Pieces are added and
/// read through a shared reference.
#[derive(Debug, Default)]
pub struct Heap {
    inner: RefCell<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    mem: Vec<u8>,
    file: Option<File>,
    /// Bytes in the file.
    flushed: u64,
    /// Bytes past `flushed`, not yet written.
    pending: Vec<u8>,
    error: Option<String>,
}

impl Heap {
    /// Adds bytes; where they are.
    ///
    /// A piece is at most 4 GiB (a longer one is cut: no SSE block is
    /// that long under `--max-event-bytes`).
    pub fn put(&self, b: &[u8]) -> Piece {
        let b = &b[..b.len().min(u32::MAX as usize)];
        let mut h = self.inner.borrow_mut();
        let len = b.len() as u32;
        if h.file.is_none() && h.mem.len() + b.len() <= MEM_BYTES {
            let at = h.mem.len() as u64;
            spool::reserve_capped(&mut h.mem, b.len(), MEM_BYTES);
            h.mem.extend_from_slice(b);
            return Piece { at, len };
        }
        if h.file.is_none() && h.error.is_none() {
            match spool::anonymous_file() {
                Ok(f) => h.file = Some(f),
                Err(e) => {
                    h.error = Some(format!("cannot keep the capture in a temporary file ({e})"))
                }
            }
        }
        let at = FILE_BASE + h.flushed + h.pending.len() as u64;
        h.pending.extend_from_slice(b);
        if h.pending.len() >= CHUNK {
            h.write_pending();
        }
        Piece { at, len }
    }

    /// The bytes of a piece.
    pub fn get(&self, p: Piece) -> Cow<'_, [u8]> {
        let mut v = Vec::new();
        self.read_into(p.at, p.len(), &mut v);
        Cow::Owned(v)
    }

    /// Writes the bytes of `pieces`, in order, to `out`, reading runs of
    /// pieces that follow each other in the heap at once; `each` sees the
    /// bytes of whole pieces (never a piece cut in two) before they go.
    pub fn write_all(
        &self,
        pieces: impl IntoIterator<Item = Piece>,
        out: &mut dyn Write,
        each: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut buf = Vec::new();
        let mut run: Option<(u64, usize)> = None;
        let mut last = Piece::default();
        let mut flush = |run: &mut Option<(u64, usize)>, buf: &mut Vec<u8>| -> io::Result<()> {
            if let Some((at, len)) = run.take() {
                buf.clear();
                self.read_into(at, len, buf);
                each(buf)?;
                out.write_all(buf)?;
            }
            Ok(())
        };
        for p in pieces {
            match &mut run {
                Some((_, len)) if last.continues_to(p) && *len + p.len() <= READ_BYTES => {
                    *len += p.len();
                }
                _ => {
                    flush(&mut run, &mut buf)?;
                    run = Some((p.at, p.len()));
                }
            }
            last = p;
        }
        flush(&mut run, &mut buf)
    }

    /// Why the heap could not keep its bytes, if it could not (they then
    /// read as zeros).
    pub fn error(&self) -> Option<String> {
        self.inner.borrow().error.clone()
    }

    fn read_into(&self, at: u64, len: usize, v: &mut Vec<u8>) {
        let mut h = self.inner.borrow_mut();
        if at < FILE_BASE {
            let start = at as usize;
            v.extend_from_slice(&h.mem[start..start + len]);
            return;
        }
        let off = at - FILE_BASE;
        if off + len as u64 > h.flushed {
            h.write_pending();
        }
        let start = v.len();
        v.resize(start + len, 0);
        let Some(f) = h.file.as_ref() else {
            return;
        };
        let mut done = 0;
        while done < len {
            match spool::read_at(f, &mut v[start + done..start + len], off + done as u64) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    h.error = Some(format!(
                        "cannot read the capture back from a temporary file ({e})"
                    ));
                    break;
                }
            }
        }
    }
}

impl Inner {
    fn write_pending(&mut self) {
        if let Some(f) = self.file.as_mut() {
            if let Err(e) = f.write_all(&self.pending) {
                self.error = Some(format!(
                    "cannot write the capture to a temporary file ({e})"
                ));
            }
        }
        self.flushed += self.pending.len() as u64;
        self.pending.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_read_back_in_memory_and_past_it() {
        let h = Heap::default();
        let big: Vec<u8> = (0..MEM_BYTES / 3).map(|i| (i % 251) as u8).collect();
        let pieces: Vec<Piece> = (0..5).map(|_| h.put(&big)).collect();
        let small = h.put(b"tail");
        for p in &pieces {
            assert!(h.get(*p) == big);
        }
        assert_eq!(&*h.get(small), b"tail");
        let mut out = Vec::new();
        let mut seen = 0;
        h.write_all(pieces.iter().copied().chain([small]), &mut out, &mut |b| {
            seen += b.len();
            Ok(())
        })
        .unwrap();
        assert_eq!(out.len(), 5 * big.len() + 4);
        assert_eq!(seen, out.len());
        assert!(out[..big.len()] == big[..] && out.ends_with(b"tail"));
        assert!(h.error().is_none());
    }
}
