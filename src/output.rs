//! Writing files the user asked for without ever leaving a half-written
//! one, and without ever replacing what is not a file of ours to replace:
//!
//! - a path that does not exist is written to a temporary file in the same
//!   directory, flushed to disk, then renamed over the target (atomic on
//!   POSIX file systems);
//! - a regular file is replaced the same way; reached through a symbolic
//!   link, the real file is replaced and the link stays a link;
//! - a FIFO, a character device or a socket (`-o /dev/stdout`, `-o
//!   /dev/null`, a named pipe, after following links) is opened and
//!   written through: renaming over it would delete the device node or
//!   the pipe the reader waits on;
//! - `-` is refused: it means standard output, which each command handles
//!   before calling here (see [`is_stdout`]).

use std::io::Write;
use std::path::{Path, PathBuf};

/// Whether `path` is `-`, the command line's name for standard output.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// How [`write_atomic`] writes a target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// Open this path for writing and write through it (no temporary file,
    /// no rename): the target is a FIFO, a device or a socket.
    Through(PathBuf),
    /// Write a temporary file next to this path and rename it over it: the
    /// real file (symbolic links resolved), which may not exist yet.
    Replace(PathBuf),
}

/// Links followed before giving up (as the kernel's `ELOOP`).
const MAX_LINKS: usize = 40;

/// How `path` would be written, links followed.
///
/// # Errors
/// `-` (standard output), a directory, a loop of symbolic links, or an
/// error reading a link.
pub fn plan(path: &Path) -> std::io::Result<Plan> {
    use std::io::{Error, ErrorKind};
    if is_stdout(path) {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            "`-` means standard output, which this command cannot write to; give a file name (./- for a file named -)",
        ));
    }
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(Error::new(ErrorKind::IsADirectory, "is a directory")),
        Ok(m) if m.is_file() => {
            // A link through an open descriptor (`/dev/stdout` →
            // `/proc/self/fd/1`) writes to what the shell set up: an
            // append stays an append.
            if names_descriptor(path)? {
                return Ok(Plan::Through(path.to_path_buf()));
            }
            // Through every link to the file.
            let real = if std::fs::symlink_metadata(path)?.file_type().is_symlink() {
                std::fs::canonicalize(path)?
            } else {
                path.to_path_buf()
            };
            Ok(Plan::Replace(real))
        }
        // A FIFO, a character or block device, a socket.
        Ok(_) => Ok(Plan::Through(path.to_path_buf())),
        Err(e) if e.kind() == ErrorKind::NotFound => {
            // Missing, or a link to a file not created yet: create the
            // link's target, keep the link.
            let mut p = path.to_path_buf();
            for _ in 0..MAX_LINKS {
                match std::fs::symlink_metadata(&p) {
                    Ok(m) if m.file_type().is_symlink() => {
                        let to = std::fs::read_link(&p)?;
                        p = match p.parent() {
                            Some(dir) if to.is_relative() => dir.join(to),
                            _ => to,
                        };
                    }
                    _ => return Ok(Plan::Replace(p)),
                }
            }
            Err(Error::other("too many levels of symbolic links"))
        }
        Err(e) => Err(e),
    }
}

/// Whether the chain of symbolic links from `path` passes through an open
/// file descriptor's name (`/proc/PID/fd/N`, `/dev/fd/N`).
fn names_descriptor(path: &Path) -> std::io::Result<bool> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        let s = p.to_string_lossy();
        let in_proc = s.starts_with("/proc/") && s.split('/').nth(3) == Some("fd");
        if in_proc || s.starts_with("/dev/fd/") {
            return Ok(true);
        }
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&p)?;
                p = match p.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(false),
        }
    }
    Ok(false)
}

/// Checks, before any work, that [`write_atomic`] could write `path`
/// later: what [`plan`] refuses, a missing directory, or one where no
/// file can be created (a file is created there and removed at once).
///
/// # Errors
/// As [`plan`], or creating the trial file.
pub fn check_writable(path: &Path) -> std::io::Result<()> {
    match plan(path)? {
        Plan::Through(p) => std::fs::OpenOptions::new()
            .append(true)
            .open(&p)
            .map(|_| ()),
        Plan::Replace(p) => {
            let tmp = temporary(&p);
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)?;
            std::fs::remove_file(&tmp)
        }
    }
}

/// Writes `bytes` to `path` atomically where it is (or will be) a regular
/// file, and straight through where it is a FIFO, a device or a socket;
/// never unlinks a symbolic link or a special file (see the module docs).
///
/// # Errors
/// `-`, a directory, or opening, writing, syncing or renaming the file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    match plan(path)? {
        Plan::Through(p) => {
            // Appending: through `/proc/self/fd/1` the file is opened
            // anew, and only O_APPEND keeps a shell's `>>` an append
            // (harmless on a FIFO or device).
            let mut f = std::fs::OpenOptions::new().append(true).open(&p)?;
            f.write_all(bytes)?;
            f.flush()
        }
        Plan::Replace(p) => replace(&p, bytes),
    }
}

/// Temporary file, sync, rename over `path` (a regular file or nothing);
/// an existing file's permissions carry over.
fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = temporary(path);
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        if let Ok(m) = std::fs::metadata(path) {
            f.set_permissions(m.permissions())?;
        }
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// A file written as it goes (a report too big to hold), with
/// [`write_atomic`]'s guarantees: a regular file appears only whole, on
/// [`Streamed::commit`]; a FIFO or device is written through. Dropped
/// without a commit, the temporary file is removed and the target left as
/// it was.
pub struct Streamed {
    file: std::io::BufWriter<std::fs::File>,
    /// (temporary file, target) when the target is replaced on commit.
    rename: Option<(PathBuf, PathBuf)>,
}

impl Streamed {
    /// Opens `path` for writing.
    ///
    /// # Errors
    /// As [`plan`], or creating the file.
    pub fn create(path: &Path) -> std::io::Result<Self> {
        match plan(path)? {
            Plan::Through(p) => Ok(Streamed {
                file: std::io::BufWriter::new(std::fs::OpenOptions::new().append(true).open(&p)?),
                rename: None,
            }),
            Plan::Replace(p) => {
                let tmp = temporary(&p);
                let file = std::fs::File::create(&tmp)?;
                Ok(Streamed {
                    file: std::io::BufWriter::new(file),
                    rename: Some((tmp, p)),
                })
            }
        }
    }

    /// Flushes, syncs and puts the file in place.
    ///
    /// # Errors
    /// Writing, syncing or renaming.
    pub fn commit(mut self) -> std::io::Result<()> {
        self.file.flush()?;
        if let Some((tmp, target)) = self.rename.take() {
            let f = self.file.get_ref();
            let result = (|| {
                if let Ok(m) = std::fs::metadata(&target) {
                    f.set_permissions(m.permissions())?;
                }
                f.sync_all()?;
                std::fs::rename(&tmp, &target)
            })();
            if result.is_err() {
                let _ = std::fs::remove_file(&tmp);
            }
            return result;
        }
        Ok(())
    }
}

impl Write for Streamed {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

impl Drop for Streamed {
    fn drop(&mut self) {
        if let Some((tmp, _)) = self.rename.take() {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// The temporary file next to `path` that replaces it.
fn temporary(path: &Path) -> PathBuf {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".to_string());
    dir.join(format!(".{name}.sselint-{}.tmp", std::process::id()))
}

/// A scratch file in the temporary directory that a report's middle
/// waits in while its head (which counts the whole run) cannot be written
/// yet; removed when dropped. The JSON and JUnit reports of `check`
/// write each result there as it comes, so memory holds none of them.
pub struct Scratch {
    path: PathBuf,
    file: std::io::BufWriter<std::fs::File>,
    written: u64,
}

impl Scratch {
    /// A new, empty scratch file named after `what` and this process.
    ///
    /// # Errors
    /// Creating the file.
    pub fn create(what: &str) -> std::io::Result<Self> {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("sselint-{what}-{}-{n}.tmp", std::process::id()));
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)?;
        Ok(Scratch {
            path,
            file: std::io::BufWriter::new(file),
            written: 0,
        })
    }

    /// Bytes written so far.
    pub fn len(&self) -> u64 {
        self.written
    }

    /// Whether nothing was written.
    pub fn is_empty(&self) -> bool {
        self.written == 0
    }

    /// Writes what it holds to `out`, from its start.
    ///
    /// # Errors
    /// Reading the scratch file, or `out`'s.
    pub fn copy_to(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        use std::io::Seek;
        self.file.flush()?;
        let f = self.file.get_mut();
        f.seek(std::io::SeekFrom::Start(0))?;
        std::io::copy(f, out)?;
        Ok(())
    }
}

impl Write for Scratch {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch directory, removed when the test ends.
    struct Scratch(PathBuf);

    impl std::ops::Deref for Scratch {
        type Target = Path;
        fn deref(&self) -> &Path {
            &self.0
        }
    }

    impl AsRef<Path> for Scratch {
        fn as_ref(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn scratch(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("sselint-out-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    #[test]
    fn writes_and_replaces_leaving_no_temporary_file() {
        let dir = scratch("plain");
        let p = dir.join("report.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
        assert_eq!(left.len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_link_stays_a_link_and_its_file_is_replaced() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = scratch("link");
        let real = dir.join("real.html");
        std::fs::write(&real, b"old").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.join("link.html");
        std::os::unix::fs::symlink("real.html", &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        let mode = std::fs::metadata(&real).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "the file's permissions carry over");
        // A dangling link: its target is created, the link stays.
        let dangling = dir.join("dangling.html");
        std::os::unix::fs::symlink("sub/target.html", &dangling).unwrap();
        std::fs::create_dir(dir.join("sub")).unwrap();
        write_atomic(&dangling, b"made").unwrap();
        assert!(std::fs::symlink_metadata(&dangling)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(dir.join("sub/target.html")).unwrap(), b"made");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_written_through_and_stays_a_fifo() {
        use std::os::unix::fs::FileTypeExt as _;
        let dir = scratch("fifo");
        let fifo = dir.join("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        assert_eq!(plan(&fifo).unwrap(), Plan::Through(fifo.clone()));
        write_atomic(&fifo, b"through the pipe").unwrap();
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        let t = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(t.is_fifo());
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
        assert_eq!(left.len(), 1, "no temporary file");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn dev_null_is_written_through() {
        use std::os::unix::fs::FileTypeExt as _;
        let null = Path::new("/dev/null");
        // The plan first: a wrong one must not get to rename over the device.
        assert_eq!(plan(null).unwrap(), Plan::Through(null.to_path_buf()));
        write_atomic(null, b"discarded").unwrap();
        assert!(std::fs::metadata(null)
            .unwrap()
            .file_type()
            .is_char_device());
        let dir = scratch("null");
        let link = dir.join("null-link");
        std::os::unix::fs::symlink(null, &link).unwrap();
        assert_eq!(plan(&link).unwrap(), Plan::Through(link.clone()));
        write_atomic(&link, b"discarded").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// `-o /dev/stdout` with stdout redirected to a file: the link chain
    /// goes through `/proc/self/fd/1` to a regular file. The descriptor is
    /// the user's (a `>>` append, a pipe the shell set up); it is written
    /// through, never replaced by rename.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_link_to_an_open_descriptor_is_written_through() {
        use std::os::fd::AsRawFd as _;
        let dir = scratch("fd");
        let real = dir.join("redirected.txt");
        std::fs::write(&real, b"kept;").unwrap();
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(&real)
            .unwrap();
        let link = dir.join("stdout-link");
        std::os::unix::fs::symlink(format!("/proc/self/fd/{}", file.as_raw_fd()), &link).unwrap();
        assert_eq!(plan(&link).unwrap(), Plan::Through(link.clone()));
        drop(file);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn dash_and_directories_are_refused() {
        assert!(write_atomic(Path::new("-"), b"x").is_err());
        let dir = scratch("dir");
        let e = write_atomic(&dir, b"x").unwrap_err();
        assert!(e.to_string().contains("directory"), "{e}");
        assert!(dir.is_dir());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
