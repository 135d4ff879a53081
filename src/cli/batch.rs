//! `check` over inputs of any number: files, or the records of JSON Lines
//! logs (`--input-format jsonl`), linted a batch at a time on worker
//! threads and handed on in input order, so that with a report written as
//! it goes (`--format jsonl`) nothing is held per capture.

use sselint::capture::{self, jsonl};
use sselint::lint::Settings;
use sselint::pipeline::{self, FileResult};
use std::collections::BTreeMap;
use std::io::{self, BufRead, BufReader, IsTerminal, Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Condvar, Mutex};

/// Items per worker in a batch.
const PER_WORKER: usize = 64;
/// Record bytes a batch holds at most (one longer record is a batch alone).
const BATCH_BYTES: usize = 32 * 1024 * 1024;
/// The longest log line read: a record is held whole while it is linted.
pub const RECORD_BYTES: u64 = 1 << 30;

/// One thing to lint.
enum Item {
    /// A capture file.
    File(String),
    /// A log record: the log's path, its 1-based line number, the line.
    Record {
        log: usize,
        line: u64,
        bytes: Vec<u8>,
    },
    /// An input or a line that could not be read, already reported.
    Failed(FileResult),
}

/// An error result for `path`.
pub fn failed(path: String, message: String) -> FileResult {
    FileResult {
        path,
        input_format: None,
        detail: "",
        error: Some(message),
        rules_run: Vec::new(),
        streams: Vec::new(),
    }
}

/// The files a log input names: a file or `-` as given; a directory's
/// `*.jsonl` and `*.ndjson` files, recursively, sorted.
pub fn log_files(inputs: &[String]) -> (Vec<String>, Vec<FileResult>) {
    fn walk(dir: &Path, out: &mut Vec<String>, depth: usize) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<_> = rd.flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            let hidden = p
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'));
            if hidden {
                continue;
            }
            if p.is_dir() && depth < 64 {
                walk(&p, out, depth + 1);
            } else if p.extension().is_some_and(|e| {
                e.eq_ignore_ascii_case("jsonl") || e.eq_ignore_ascii_case("ndjson")
            }) {
                out.push(p.to_string_lossy().into_owned());
            }
        }
    }
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for i in inputs {
        let p = Path::new(i);
        if i != "-" && p.is_dir() {
            let before = files.len();
            walk(p, &mut files, 0);
            if files.len() == before {
                errors.push(failed(
                    i.clone(),
                    "no .jsonl or .ndjson log found in this directory".to_string(),
                ));
            }
        } else {
            files.push(i.clone());
        }
    }
    (files, errors)
}

/// Yields the items of `files` (their records, for logs) one by one.
struct Items<'a> {
    files: &'a [String],
    next_file: usize,
    logs: bool,
    reader: Option<(usize, u64, Box<dyn BufRead + 'a>)>,
    line_cap: u64,
}

impl Iterator for Items<'_> {
    type Item = Item;
    fn next(&mut self) -> Option<Item> {
        loop {
            if let Some((log, line, r)) = &mut self.reader {
                let mut bytes = Vec::new();
                *line += 1;
                let n = *line;
                match read_line(r, self.line_cap, &mut bytes) {
                    Ok(Line::End) => {
                        self.reader = None;
                        continue;
                    }
                    Ok(Line::Blank) => continue,
                    Ok(Line::Whole) => {
                        return Some(Item::Record {
                            log: *log,
                            line: n,
                            bytes,
                        })
                    }
                    Ok(Line::TooLong) => {
                        return Some(Item::Failed(failed(
                            record_name(&self.files[*log], n),
                            format!("line {n} is longer than {} bytes; skipped", self.line_cap),
                        )))
                    }
                    Err(e) => {
                        let path = self.files[*log].clone();
                        self.reader = None;
                        return Some(Item::Failed(failed(
                            path,
                            format!(
                                "reading line {n}: {}; the rest of the log was not read",
                                capture::io_message(&e)
                            ),
                        )));
                    }
                }
            }
            let i = self.next_file;
            let path = self.files.get(i)?;
            self.next_file += 1;
            if !self.logs {
                return Some(Item::File(path.clone()));
            }
            let source: Box<dyn Read> = if path == "-" {
                Box::new(io::stdin())
            } else {
                match std::fs::File::open(path) {
                    Ok(f) if f.metadata().is_ok_and(|m| m.is_dir()) => {
                        return Some(Item::Failed(failed(
                            path.clone(),
                            "is a directory".to_string(),
                        )))
                    }
                    Ok(f) => Box::new(f),
                    Err(e) => {
                        return Some(Item::Failed(failed(path.clone(), capture::io_message(&e))))
                    }
                }
            };
            self.reader = Some((i, 0, Box::new(BufReader::with_capacity(64 * 1024, source))));
        }
    }
}

enum Line {
    End,
    Blank,
    Whole,
    TooLong,
}

/// Reads one line (without its line break) into `buf`, up to `cap` bytes;
/// a longer line is skipped to its end.
fn read_line(r: &mut dyn BufRead, cap: u64, buf: &mut Vec<u8>) -> io::Result<Line> {
    let n = r.take(cap.saturating_add(1)).read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(Line::End);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
    } else if buf.len() as u64 > cap {
        buf.clear();
        loop {
            let chunk = r.fill_buf()?;
            if chunk.is_empty() {
                break;
            }
            match memchr::memchr(b'\n', chunk) {
                Some(i) => {
                    r.consume(i + 1);
                    break;
                }
                None => {
                    let n = chunk.len();
                    r.consume(n);
                }
            }
        }
        return Ok(Line::TooLong);
    }
    if buf.iter().all(u8::is_ascii_whitespace) {
        return Ok(Line::Blank);
    }
    Ok(Line::Whole)
}

/// How a record without an id is named: `LOG:LINE`.
fn record_name(log: &str, line: u64) -> String {
    format!("{}:{line}", sselint::report::display_path(log))
}

/// Lints one log record (a line of the log `log`): its id names the
/// result; an unreadable line or body is the result's error.
pub fn lint_record(
    log: &str,
    line: u64,
    bytes: &[u8],
    opts: &capture::Options,
    settings: &Settings,
) -> FileResult {
    let fallback = record_name(log, line);
    match jsonl::parse_line(bytes) {
        Err(m) => failed(fallback, m.to_string()),
        Ok(rec) => {
            // A row is named by its record's id, and its `read_error` is
            // the one `lint_many` and `lint_arrow` give the same row
            // (issue 28: the results agree row by row), so the line
            // number is the name only of a record without an id.
            let id = rec.id.unwrap_or(fallback);
            match rec.body {
                Err(m) => failed(id, m),
                Ok(body) => {
                    let cap = jsonl::capture(&id, body, &rec.facts, opts);
                    pipeline::lint_opened(&id, cap, settings)
                }
            }
        }
    }
}

/// Lints every file of `files` (with `logs`, every record of each log) on
/// `jobs` threads, a batch at a time, and hands each result to `sink` in
/// input order. Stops early when `sink` says so (`false`).
pub fn run(
    files: &[String],
    logs: bool,
    jobs: usize,
    opts: &capture::Options,
    settings_for: &(dyn Fn(&str) -> Settings + Sync),
    sink: &mut dyn FnMut(FileResult) -> bool,
) {
    let mut items = Items {
        files,
        next_file: 0,
        logs,
        reader: None,
        line_cap: RECORD_BYTES,
    }
    .peekable();
    let workers = jobs.max(1);
    while items.peek().is_some() {
        let mut batch: Vec<Item> = Vec::new();
        let mut bytes = 0;
        while batch.len() < workers * PER_WORKER && bytes < BATCH_BYTES {
            let Some(item) = items.next() else { break };
            if let Item::Record { bytes: b, .. } = &item {
                bytes += b.len();
            }
            batch.push(item);
        }
        let mut slots: Vec<Option<FileResult>> = Vec::with_capacity(batch.len());
        let mut work: Vec<(usize, Item)> = Vec::new();
        for (i, item) in batch.into_iter().enumerate() {
            match item {
                Item::Failed(r) => slots.push(Some(r)),
                other => {
                    slots.push(None);
                    work.push((i, other));
                }
            }
        }
        let slots = Mutex::new(slots);
        let next = AtomicUsize::new(0);
        let lint = || loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            let Some((i, item)) = work.get(k) else { break };
            let r = match item {
                Item::File(p) => pipeline::lint_path(p, opts, &settings_for(p)),
                Item::Record { log, line, bytes } => {
                    let log = &files[*log];
                    lint_record(log, *line, bytes, opts, &settings_for(log))
                }
                Item::Failed(_) => continue,
            };
            if let Ok(mut s) = slots.lock() {
                s[*i] = Some(r);
            }
        };
        let n = workers.min(work.len());
        if n <= 1 {
            lint();
        } else {
            std::thread::scope(|scope| {
                for _ in 0..n {
                    scope.spawn(lint);
                }
            });
        }
        drop(work);
        for r in slots.into_inner().unwrap_or_default().into_iter().flatten() {
            if !sink(r) {
                return;
            }
        }
    }
}

/// A piece of one input's result, as [`run_each`] hands it on.
pub struct Part<'a> {
    /// The input's path, format and rules, and its error or the streams
    /// this piece carries (at most one).
    pub file: &'a mut FileResult,
    /// The input's first piece: it counts as an input.
    pub first: bool,
    /// The input has more than one stream.
    pub several: bool,
}

/// What a worker sends for its input.
enum Msg {
    /// The input's path, format and rules (before its first stream).
    Head(FileResult),
    /// One stream's result (boxed: it is large beside the others).
    Stream(Box<pipeline::StreamResult>),
    /// The input is done: its head, with its error if it could not be read.
    End(FileResult),
}

/// Puts one input's messages together into [`Part`]s: each stream as it
/// comes but the first, held until a second comes or the input ends (a
/// report names an input's streams apart only when it has several).
#[derive(Default)]
struct Assembler {
    head: Option<FileResult>,
    held: Option<pipeline::StreamResult>,
    streams: u64,
}

impl Assembler {
    fn msg(&mut self, m: Msg, sink: &mut dyn FnMut(Part<'_>) -> bool) -> bool {
        match m {
            Msg::Head(h) => {
                self.head = Some(h);
                true
            }
            Msg::Stream(s) => {
                self.streams += 1;
                if self.streams == 1 {
                    self.held = Some(*s);
                    return true;
                }
                let Some(head) = self.head.as_mut() else {
                    return true;
                };
                if let Some(first) = self.held.take() {
                    if !Self::one(head, first, true, true, sink) {
                        return false;
                    }
                }
                Self::one(head, *s, false, true, sink)
            }
            Msg::End(mut end) => {
                let held = self.held.take();
                let head = self.head.take();
                self.streams = 0;
                match (held, head) {
                    (Some(s), Some(mut head)) => Self::one(&mut head, s, true, false, sink),
                    (None, Some(_)) => true,
                    _ => sink(Part {
                        file: &mut end,
                        first: true,
                        several: false,
                    }),
                }
            }
        }
    }

    fn one(
        head: &mut FileResult,
        s: pipeline::StreamResult,
        first: bool,
        several: bool,
        sink: &mut dyn FnMut(Part<'_>) -> bool,
    ) -> bool {
        head.streams.push(s);
        let go_on = sink(Part {
            file: head,
            first,
            several,
        });
        head.streams.clear();
        go_on
    }
}

/// A copy of `f` with no streams.
fn head_of(f: &FileResult) -> FileResult {
    FileResult {
        path: f.path.clone(),
        input_format: f.input_format,
        detail: f.detail,
        error: f.error.clone(),
        rules_run: f.rules_run.clone(),
        streams: Vec::new(),
    }
}

/// Inputs from which `check` shows its progress line on a terminal.
pub const PROGRESS_FROM: usize = 50;

/// The `[N/M] PATH` line that `check` of many inputs ([`PROGRESS_FROM`] or
/// more) keeps on stderr while it runs, when stderr is a terminal: drawn
/// as each input is done, cleared before anything else is written to the
/// terminal (a report written as it goes, an error) and at the end.
pub struct Progress {
    total: usize,
    on: bool,
    done: AtomicUsize,
    shown: AtomicBool,
}

impl Progress {
    /// The line for `total` inputs: on when stderr is a terminal and
    /// `total` is at least [`PROGRESS_FROM`].
    pub fn new(total: usize) -> Self {
        Progress {
            total,
            on: io::stderr().is_terminal() && total >= PROGRESS_FROM,
            done: AtomicUsize::new(0),
            shown: AtomicBool::new(false),
        }
    }

    /// Whether the line is drawn at all.
    pub fn is_on(&self) -> bool {
        self.on
    }

    /// Counts `path` as done and draws the line for it.
    pub fn done(&self, path: &str) {
        if !self.on {
            return;
        }
        let n = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        let mut err = io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K[{n}/{}] {path}", self.total);
        let _ = err.flush();
        self.shown.store(true, Ordering::Relaxed);
    }

    /// Clears the line, if it is shown.
    pub fn clear(&self) {
        if self.shown.swap(false, Ordering::Relaxed) {
            let mut err = io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
        }
    }
}

/// Lints capture `files` on `jobs` threads and hands each stream's result
/// to `sink` as soon as every input before it is done, in input order: a
/// socket's responses one by one as they end. Nothing is kept per stream
/// or per input: a worker runs at most a few results ahead of the input
/// being handed on, and waits when it is further. `sink` returns false to
/// stop (the inputs being linted are finished, no other is started).
/// `progress` is told of each input once all of it was handed on.
pub fn run_each(
    files: &[String],
    jobs: usize,
    opts: &capture::Options,
    settings_for: &(dyn Fn(&str) -> Settings + Sync),
    progress: &Progress,
    sink: &mut dyn FnMut(Part<'_>) -> bool,
) {
    /// Results a worker sends ahead of the input being handed on.
    const AHEAD: usize = 16;
    let lint = |path: &str, send: &mut dyn FnMut(Msg) -> bool| {
        let mut first = true;
        let mut open = true;
        let head = pipeline::lint_path_each(path, opts, &settings_for(path), &mut |f, s| {
            if first {
                first = false;
                open = send(Msg::Head(head_of(f)));
            }
            if open {
                open = send(Msg::Stream(Box::new(s)));
            }
        });
        if open {
            send(Msg::End(head));
        }
    };
    let workers = jobs.max(1).min(files.len());
    if workers <= 1 {
        // One input (or --jobs 1): no thread to start, no second heap.
        let mut asm = Assembler::default();
        for path in files {
            let mut go_on = true;
            lint(path, &mut |m| {
                go_on = asm.msg(m, sink);
                go_on
            });
            if !go_on {
                return;
            }
            progress.done(path);
        }
        return;
    }
    type Queues = (bool, BTreeMap<usize, mpsc::Receiver<Msg>>);
    let queues: Mutex<Queues> = Mutex::new((false, BTreeMap::new()));
    let ready = Condvar::new();
    let next = AtomicUsize::new(0);
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(path) = files.get(i) else { break };
        let (tx, rx) = mpsc::sync_channel(AHEAD);
        {
            let Ok(mut q) = queues.lock() else { break };
            if q.0 {
                // Stopped: start nothing more.
                break;
            }
            q.1.insert(i, rx);
        }
        ready.notify_all();
        lint(path, &mut |m| tx.send(m).is_ok());
    };
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(work);
        }
        let mut asm = Assembler::default();
        'inputs: for (i, path) in files.iter().enumerate() {
            let rx = {
                let Ok(mut q) = queues.lock() else { break };
                loop {
                    if let Some(rx) = q.1.remove(&i) {
                        break rx;
                    }
                    q = match ready.wait(q) {
                        Ok(q) => q,
                        Err(_) => break 'inputs,
                    };
                }
            };
            for m in rx {
                if !asm.msg(m, sink) {
                    // Stop: the queues are dropped, so the workers'
                    // sends fail and they take no other input.
                    if let Ok(mut q) = queues.lock() {
                        q.0 = true;
                        q.1.clear();
                    }
                    break 'inputs;
                }
            }
            progress.done(path);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_past_the_cap_is_skipped_to_its_end() {
        let text = b"short\n0123456789abcdef\r\n  \nlast";
        let mut r = BufReader::new(&text[..]);
        let mut got = Vec::new();
        loop {
            let mut buf = Vec::new();
            match read_line(&mut r, 8, &mut buf).unwrap() {
                Line::End => break,
                Line::Blank => got.push("blank".to_string()),
                Line::TooLong => got.push("too long".to_string()),
                Line::Whole => got.push(String::from_utf8(buf).unwrap()),
            }
        }
        assert_eq!(got, ["short", "too long", "blank", "last"]);
    }
}
