//! A body too large to hold, kept on disk: bytes are appended in memory up
//! to [`MEM_BYTES`], then go to an unnamed temporary file (created in the
//! system's temporary directory and unlinked at once, so nothing is left
//! behind whatever happens) and are read back with positional reads, as
//! many times as needed, each reader independent of the others.
//!
//! A HAR's `content.text` is decoded into one while the document is
//! parsed (`har_pos`), so a 100 MB body costs a file, not 100 MB of memory.

use std::fs::File;
use std::io::{self, Read, Write};
use std::sync::Arc;

/// Bytes kept in memory before the body moves to a file (2 MiB: a body
/// past it costs a file, not memory; `check` of a 100 MB HAR body held 8
/// MiB here when it was 8 MiB). Above Firefox's 1 MiB body cap: a
/// finding at a body's last byte points into the HAR only for a body in
/// memory.
pub const MEM_BYTES: usize = 2 * 1024 * 1024;

/// Bytes written to the file at a time once it is on disk; also how much
/// of a body is held before it starts going there (see [`Spool`]).
const CHUNK: usize = 256 * 1024;

/// A body being written: in memory until [`MEM_BYTES`], then on disk.
/// Past [`CHUNK`] bytes it already goes to the file a chunk at a time, so a
/// long body costs [`CHUNK`] of memory, not [`MEM_BYTES`] (issue 40: `check`
/// of a 100 MB HAR in 8 MiB); one that ends below [`MEM_BYTES`] is read
/// back and given as in memory, as before. When the file cannot be made
/// that early, the body stays in memory up to [`MEM_BYTES`], as before.
#[derive(Debug, Default)]
pub struct Spool {
    mem: Vec<u8>,
    file: Option<File>,
    /// Bytes written to the file.
    on_disk: u64,
    error: Option<SpoolError>,
    /// The file could not be made before [`MEM_BYTES`]: wait for it.
    late: bool,
}

/// Why a body past [`MEM_BYTES`] could not be kept ([`Spool::finish`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SpoolError {
    /// The temporary file could not be made (what the system said).
    #[error("cannot keep the body in a temporary file ({0}); it is larger than {MEM_BYTES} bytes")]
    Create(io::Error),
    /// Writing to it failed (what the system said).
    #[error("cannot write the body to a temporary file ({0})")]
    Write(io::Error),
}

/// A finished body: bytes in memory, or a file and its length.
#[derive(Debug, Clone)]
pub enum Spooled {
    /// The whole body.
    Mem(Vec<u8>),
    /// An unlinked temporary file holding `len` bytes.
    File(Arc<File>, u64),
}

/// Makes room in `mem` for `more` bytes, doubling its capacity as a `Vec`
/// does but never past `cap` (unless more is needed): a doubling from
/// just under it would hold nearly twice the bytes meant to be kept in
/// memory.
pub(crate) fn reserve_capped(mem: &mut Vec<u8>, more: usize, cap: usize) {
    let need = mem.len() + more;
    if need > mem.capacity() {
        let to = (mem.capacity() * 2).max(need).min(cap.max(need));
        mem.reserve_exact(to - mem.len());
    }
}

impl Spool {
    /// Appends one byte.
    #[inline]
    pub fn push(&mut self, b: u8) {
        if self.mem.len() == self.mem.capacity() {
            let limit = self.limit();
            reserve_capped(&mut self.mem, 1, limit);
        }
        self.mem.push(b);
        if self.mem.len() >= self.limit() {
            self.spill();
        }
    }

    /// Bytes held in memory before they go to the file.
    fn limit(&self) -> usize {
        if self.late && self.file.is_none() {
            MEM_BYTES
        } else {
            CHUNK
        }
    }

    /// Appends bytes.
    pub fn extend(&mut self, mut b: &[u8]) {
        while !b.is_empty() {
            let limit = self.limit();
            let n = b.len().min(limit.saturating_sub(self.mem.len()).max(1));
            reserve_capped(&mut self.mem, n, limit);
            self.mem.extend_from_slice(&b[..n]);
            b = &b[n..];
            if self.mem.len() >= limit {
                self.spill();
            }
        }
    }

    /// Moves what is in memory to the file (creating it).
    fn spill(&mut self) {
        if self.error.is_some() {
            self.mem.clear();
            return;
        }
        if self.file.is_none() {
            match anonymous_file() {
                Ok(f) => self.file = Some(f),
                // Too early to need it: kept in memory up to MEM_BYTES.
                Err(_) if self.mem.len() < MEM_BYTES => {
                    self.late = true;
                    return;
                }
                Err(e) => {
                    self.error = Some(SpoolError::Create(e));
                    self.mem = Vec::new();
                    return;
                }
            }
        }
        if let Some(f) = self.file.as_mut() {
            match f.write_all(&self.mem) {
                Ok(()) => self.on_disk += self.mem.len() as u64,
                Err(e) => self.error = Some(SpoolError::Write(e)),
            }
        }
        self.mem.clear();
    }

    /// The body written; `Err` when the temporary file could not be
    /// written.
    ///
    /// # Errors
    /// Creating or writing the temporary file ([`SpoolError`]).
    pub fn finish(mut self) -> Result<Spooled, SpoolError> {
        let Some(file) = self.file.as_ref() else {
            return Ok(Spooled::Mem(self.mem));
        };
        let total = self.on_disk + self.mem.len() as u64;
        if self.error.is_none() && total < MEM_BYTES as u64 {
            // Short enough to hold: given back in memory, as it would
            // have stayed had it not gone to the file early.
            let mut all = vec![0u8; self.on_disk as usize];
            let mut done = 0;
            while done < all.len() {
                match read_at(file, &mut all[done..], done as u64) {
                    Ok(0) => {
                        let e = io::Error::from(io::ErrorKind::UnexpectedEof);
                        return Err(SpoolError::Write(e));
                    }
                    Ok(n) => done += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(SpoolError::Write(e)),
                }
            }
            all.extend_from_slice(&self.mem);
            return Ok(Spooled::Mem(all));
        }
        if !self.mem.is_empty() {
            self.spill();
        }
        if let Some(e) = self.error {
            return Err(e);
        }
        let file = self.file.take().expect("on disk");
        Ok(Spooled::File(Arc::new(file), self.on_disk))
    }
}

impl Write for Spool {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.extend(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Spooled {
    /// A reader of the whole body from its start, taking the body (no
    /// copy of a body in memory).
    pub fn into_reader(self) -> Box<dyn Read + Send> {
        match self {
            Spooled::Mem(b) => Box::new(io::Cursor::new(b)),
            f @ Spooled::File(..) => f.reader(),
        }
    }

    /// The body's length in bytes.
    pub fn len(&self) -> u64 {
        match self {
            Spooled::Mem(b) => b.len() as u64,
            Spooled::File(_, n) => *n,
        }
    }

    /// Whether the body is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A reader of the whole body from its start, independent of any other.
    pub fn reader(&self) -> Box<dyn Read + Send> {
        match self {
            Spooled::Mem(b) => Box::new(io::Cursor::new(b.clone())),
            Spooled::File(f, n) => Box::new(At {
                file: f.clone(),
                pos: 0,
                end: *n,
            }),
        }
    }

    /// The bytes in `range` (which must lie within the body).
    ///
    /// # Errors
    /// Reading the file.
    pub fn range(&self, range: std::ops::Range<usize>) -> io::Result<std::borrow::Cow<'_, [u8]>> {
        match self {
            Spooled::Mem(b) => Ok(b[range].into()),
            Spooled::File(f, _) => {
                let mut v = vec![0u8; range.len()];
                let mut done = 0;
                while done < v.len() {
                    match read_at(f, &mut v[done..], (range.start + done) as u64) {
                        Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                        Ok(n) => done += n,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(e),
                    }
                }
                Ok(v.into())
            }
        }
    }

    /// The first `n` bytes (fewer when the body is shorter).
    pub fn head(&self, n: usize) -> Vec<u8> {
        match self {
            Spooled::Mem(b) => b[..n.min(b.len())].to_vec(),
            Spooled::File(..) => {
                let mut v = Vec::with_capacity(n);
                let _ = self.reader().take(n as u64).read_to_end(&mut v);
                v
            }
        }
    }
}

/// Reads a file from `pos` to `end` by positional reads.
struct At {
    file: Arc<File>,
    pos: u64,
    end: u64,
}

impl Read for At {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let want = buf
            .len()
            .min((self.end - self.pos).min(usize::MAX as u64) as usize);
        if want == 0 {
            return Ok(0);
        }
        let n = read_at(&self.file, &mut buf[..want], self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

#[cfg(unix)]
pub(crate) fn read_at(f: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(f, buf, at)
}

#[cfg(windows)]
pub(crate) fn read_at(f: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(f, buf, at)
}

/// A new file in the temporary directory, already unlinked where the
/// system allows it (elsewhere removed at exit is not promised).
pub(crate) fn anonymous_file() -> io::Result<File> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let path = std::env::temp_dir().join(format!(
        ".sselint-body-{}-{}.tmp",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)?;
    let _ = std::fs::remove_file(&path);
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_body_stays_in_memory_and_a_large_one_reads_back_whole() {
        let mut s = Spool::default();
        s.extend(b"hello");
        assert!(matches!(s.finish(), Ok(Spooled::Mem(b)) if b == b"hello"));
        let mut s = Spool::default();
        let body: Vec<u8> = (0..MEM_BYTES + 1000).map(|i| (i % 251) as u8).collect();
        s.extend(&body);
        let done = s.finish().unwrap();
        assert!(matches!(done, Spooled::File(..)));
        assert_eq!(done.len(), body.len() as u64);
        for _ in 0..2 {
            let mut back = Vec::new();
            done.reader().read_to_end(&mut back).unwrap();
            assert!(back == body);
        }
        assert_eq!(done.head(3), &body[..3]);
    }

    /// A body past [`CHUNK`] goes to the file as it comes (memory stays at
    /// a chunk), yet one that ends below [`MEM_BYTES`] is given in memory,
    /// byte for byte, whether written a byte or a slice at a time; one of
    /// exactly [`MEM_BYTES`] is on disk, as before.
    #[test]
    fn a_body_on_disk_early_comes_back_in_memory_when_short() {
        for len in [
            CHUNK - 1,
            CHUNK,
            CHUNK + 1,
            3 * CHUNK + 7,
            MEM_BYTES - 1,
            MEM_BYTES,
        ] {
            let body: Vec<u8> = (0..len).map(|i| (i % 253) as u8).collect();
            for bytewise in [false, true] {
                let mut s = Spool::default();
                if bytewise {
                    body.iter().for_each(|b| s.push(*b));
                } else {
                    for piece in body.chunks(100_003) {
                        s.extend(piece);
                    }
                }
                assert!(s.mem.capacity() <= CHUNK, "{len}");
                match s.finish().unwrap() {
                    Spooled::Mem(b) => {
                        assert!(len < MEM_BYTES, "{len}");
                        assert!(b == body, "{len}");
                    }
                    f @ Spooled::File(..) => {
                        assert_eq!(len, MEM_BYTES);
                        let mut back = Vec::new();
                        f.reader().read_to_end(&mut back).unwrap();
                        assert!(back == body, "{len}");
                    }
                }
            }
        }
    }
}
