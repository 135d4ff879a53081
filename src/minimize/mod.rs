//! `minimize`: the smallest capture that still shows a fault.
//!
//! Given a capture and the findings to keep (by default every finding at
//! warning or above, each rule at least once at the same severity), it cuts
//! the capture down and returns the bytes of a file in the input's own
//! format that, linted again, still gives them — and gives no finding at
//! warning or above that the input did not have. Each candidate is linted
//! in-process ([`crate::pipeline`] on a byte buffer); a change is kept only
//! when the candidate passes. The passes, repeated until a round changes
//! nothing (or the budget of re-lints runs out):
//!
//! 1. **events**: the body's SSE blocks (dispatched events and the blocks
//!    between them: comments, keep-alives, the tail) are cut with `ddmin`
//!    ([`ddmin`], Zeller & Hildebrandt 2002), after a first try that keeps
//!    only the stream's head and end and a window around the findings'
//!    events — on a long capture that one test removes nearly everything;
//! 2. **inside events**: in each remaining event with one `data` line of
//!    JSON, members, choices and tool-call fragments are dropped and long
//!    strings shortened ([`reduce`]); only that data value is re-serialized,
//!    and never in a block that a framing finding points into, so the
//!    stream's framing (a lone CR, a missing blank line, `data:` without a
//!    space) stays byte for byte;
//! 3. **around the body**: header lines of a curl dump, a HAR entry's
//!    metadata and its request body (kept only where a rule reads it:
//!    `stream_options.include_usage`, `n`, `tools`, the path's dialect).
//!
//! Secrets are redacted as `redact` does, always; without `keep_text` the
//! prompt and answer text is scrubbed as `redact --scrub-text` does, but
//! flat: every letter becomes `x` (`X`), every digit `0`. Only when the
//! findings do not survive that (a rule that compares letters: a delta
//! repeating the previous one) is a letter mapping chosen from the text
//! itself (the first letter met becomes `a`, the next new one `b`, …),
//! and a note says so. Both are their own fixed points, so minimizing the
//! output again changes nothing.
//!
//! Nothing here prints: progress goes to a callback.

pub mod ddmin;
pub mod reduce;
pub mod shell;

use crate::capture::{self, Body, InputError, InputFormat, Timing};
use crate::dialect::Dialect;
use crate::lint::{Diagnostic, Settings, Severity};
use crate::pipeline::{self, NoObserver};
use crate::redact::{self, Scrubber};
use crate::sse::{Block, Parser, Sink};
use ddmin::Verdict;
use reduce::Guard;
use serde_json::Value;
use shell::{ByteShell, HarShell, Shell, Unit};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read as _;
use std::sync::atomic::{AtomicBool, Ordering};

/// The default budget of re-lints.
pub const DEFAULT_MAX_STEPS: u64 = 2000;

/// A finding kept: rule and severity.
pub type Pair = (&'static str, Severity);

/// What to minimize for, and how.
#[derive(Debug, Clone)]
pub struct Options {
    /// Rules to keep (names); empty: every rule with a finding at warning
    /// or above.
    pub rules: Vec<&'static str>,
    /// Leave the prompt and answer text as it is (secrets still go).
    pub keep_text: bool,
    /// Most re-lints.
    pub max_steps: u64,
    /// Lint settings (profile, severities, `--dialect`).
    pub settings: Settings,
    /// How the input is read (`--entry`, `--url-match`, `--input-format`).
    pub capture: capture::Options,
}

/// Size of a capture.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Size {
    /// Dispatched events.
    pub events: u64,
    /// Bytes of the file.
    pub bytes: u64,
}

/// Why minimizing stopped before a round changed nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stopped {
    /// `max_steps` re-lints were spent.
    Budget,
    /// The stop flag was raised (Ctrl-C).
    Interrupted,
}

/// Progress of a run, for a progress bar.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    /// Re-lints so far.
    pub relints: u64,
    /// The budget.
    pub max_steps: u64,
    /// Blocks in the current best body.
    pub units: usize,
    /// Bytes of the current best body.
    pub bytes: usize,
    /// The pass running (`events`, `inside events`, `around the body`,
    /// `text`).
    pub pass: &'static str,
}

/// The result of a run.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The output file's bytes.
    pub output: Vec<u8>,
    /// The label of the stream minimized.
    pub label: String,
    /// The output's format: `sse`, `curl -i`, `curl -v`, `har`, …
    pub format: String,
    /// The extension for a default output name (`sse`, `txt`, `har`).
    pub extension: &'static str,
    /// The stream's dialect.
    pub dialect: Option<Dialect>,
    /// The findings kept.
    pub chosen: Vec<Pair>,
    /// Findings of the input: (rule, severity) → count.
    pub before: BTreeMap<Pair, u64>,
    /// Findings of the output.
    pub after: BTreeMap<Pair, u64>,
    /// Size of the input.
    pub size_before: Size,
    /// Size of the output.
    pub size_after: Size,
    /// Candidates linted (and looks at where the findings are), at most
    /// `max_steps`; the input, its redacted copy and the output's final
    /// check are not counted.
    pub relints: u64,
    /// Set when the run stopped early; the output is the best so far.
    pub stopped: Option<Stopped>,
    /// What the reader should know (which entry, a changed format).
    pub notes: Vec<String>,
}

/// What linting one candidate gave.
#[derive(Debug)]
struct Observed {
    format: InputFormat,
    detail: &'static str,
    streams: usize,
    dialect: Option<Dialect>,
    counts: BTreeMap<Pair, u64>,
    /// Message shapes ([`message_shape`]) by pair.
    shapes: BTreeMap<Pair, BTreeSet<String>>,
    events: u64,
    diagnostics: Vec<Diagnostic>,
    /// The body's first byte in the file, when positions are file
    /// positions.
    file_start: Option<u64>,
}

/// A finding's message with what minimizing may legitimately change
/// taken out, and the fault's class kept: two findings of a rule with the
/// same shape report the same fault.
///
/// Inside double quotes (quoted text, which scrubbing and shortening
/// change), each run of digits becomes `#`, each ASCII letter `a` and each
/// other non-ASCII character `?`: scrubbed text keeps its length and its
/// punctuation, so "`object` is \"chat.completions.chunk\"" and
/// "`object` is \"chat.com\"" differ. Outside quotes the letters stay (the
/// event, field and item a message names), and each number (counts,
/// offsets, indices) becomes `#` and its rank among the distinct numbers of its
/// clause (the text between `:`, `;`, `,`, parentheses and
/// quotes): the numbers may change, their equality and order may not, so
/// "sequence_number 3 follows 6" (`#0 follows #1`: it goes back) and
/// "6 follows 6" (`#0 follows #0`: a repeat) differ.
pub fn message_shape(m: &str) -> String {
    enum Piece {
        Text(char),
        Number(String),
    }
    let mut pieces = Vec::new();
    let mut quoted = false;
    let mut escaped = false;
    let mut chars = m.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                quoted = false;
            }
            if c.is_ascii_digit() {
                while chars.peek().is_some_and(char::is_ascii_digit) {
                    chars.next();
                }
                pieces.push(Piece::Text('#'));
                continue;
            }
            pieces.push(Piece::Text(if c.is_ascii_alphabetic() {
                'a'
            } else if c.is_ascii() {
                c
            } else {
                '?'
            }));
        } else if c.is_ascii_digit() {
            let mut n = String::from(c);
            while let Some(d) = chars.next_if(char::is_ascii_digit) {
                n.push(d);
            }
            pieces.push(Piece::Number(n));
        } else {
            quoted = c == '"';
            pieces.push(Piece::Text(if c.is_ascii() { c } else { '?' }));
        }
    }
    // Numbers compare by value (without leading zeros: by length, then
    // digit by digit, so long ones do not overflow), within a clause: the
    // text between `:`, `;`, `,`, parentheses and quotes. "after 5
    // event(s) (32 characters of text)" counts two things, whose order
    // says nothing of the fault.
    let key = |n: &str| {
        let t = n.trim_start_matches('0');
        (t.len(), t.to_string())
    };
    let mut out = String::with_capacity(m.len());
    let mut clause: Vec<Piece> = Vec::new();
    let flush = |clause: &mut Vec<Piece>, out: &mut String| {
        let mut distinct: Vec<(usize, String)> = clause
            .iter()
            .filter_map(|p| match p {
                Piece::Number(n) => Some(key(n)),
                Piece::Text(_) => None,
            })
            .collect();
        distinct.sort();
        distinct.dedup();
        for p in clause.drain(..) {
            match p {
                Piece::Text(c) => out.push(c),
                Piece::Number(n) => {
                    let rank = distinct.binary_search(&key(&n)).unwrap_or(0);
                    out.push('#');
                    out.push_str(&rank.to_string());
                }
            }
        }
    };
    for p in pieces {
        let ends = matches!(p, Piece::Text(':' | ';' | ',' | '(' | ')' | '"'));
        clause.push(p);
        if ends {
            flush(&mut clause, &mut out);
        }
    }
    flush(&mut clause, &mut out);
    out
}

/// The message shapes of a stream's findings, by (rule, severity).
fn shapes_of(diagnostics: &[Diagnostic]) -> BTreeMap<Pair, BTreeSet<String>> {
    let mut m: BTreeMap<Pair, BTreeSet<String>> = BTreeMap::new();
    for d in diagnostics {
        m.entry((d.rule, d.severity))
            .or_default()
            .insert(message_shape(&d.message));
    }
    m
}

/// Whether the findings in `got` keep the faults of `want` for every
/// chosen pair: each of its messages has a shape the input had (a rule
/// whose findings were all omitted from the input's list is not checked).
fn same_faults(
    chosen: &[Pair],
    want: &BTreeMap<Pair, BTreeSet<String>>,
    got: &BTreeMap<Pair, BTreeSet<String>>,
) -> bool {
    chosen.iter().all(|p| match (want.get(p), got.get(p)) {
        (Some(w), Some(g)) => !w.is_empty() && g.is_subset(w),
        (Some(_), None) => false,
        (None, _) => true,
    })
}

/// The judge of candidates: lints them and counts.
struct Oracle<'a> {
    settings: &'a Settings,
    read: capture::Options,
    format: InputFormat,
    detail: &'static str,
    dialect: Option<Dialect>,
    chosen: Vec<Pair>,
    /// The input's message shapes of the chosen findings.
    want: BTreeMap<Pair, BTreeSet<String>>,
    allowed: BTreeSet<Pair>,
    relints: u64,
    max_steps: u64,
    stop: &'a AtomicBool,
    stopped: Option<Stopped>,
    progress: &'a mut dyn FnMut(&Progress),
    pass: &'static str,
}

impl Oracle<'_> {
    fn lint(&mut self, bytes: Vec<u8>) -> Option<Observed> {
        self.relints += 1;
        lint_bytes(bytes, &self.read, self.settings)
    }

    /// Whether the run must stop (Ctrl-C, or the budget spent); sets
    /// `stopped`.
    fn must_stop(&mut self) -> bool {
        if self.stop.load(Ordering::Relaxed) {
            self.stopped = Some(Stopped::Interrupted);
        } else if self.relints >= self.max_steps {
            self.stopped = Some(Stopped::Budget);
        }
        self.stopped.is_some()
    }

    /// A look at the current best (where its findings are), counted in
    /// the budget; `None` when the run must stop.
    fn look(&mut self, bytes: Vec<u8>) -> Option<Observed> {
        if self.must_stop() {
            return None;
        }
        self.lint(bytes)
    }

    fn accepts(&self, o: &Observed) -> bool {
        o.streams == 1
            && o.format == self.format
            && o.detail == self.detail
            && o.dialect == self.dialect
            && self.chosen.iter().all(|p| o.counts.contains_key(p))
            && same_faults(&self.chosen, &self.want, &o.shapes)
            && o.counts.keys().all(|p| {
                p.1 < Severity::Warning || self.allowed.contains(p) || self.chosen.contains(p)
            })
    }

    /// Tests one candidate; `None` when the budget is spent or the run
    /// was interrupted.
    fn test(&mut self, shell: &Shell, units: &[&Unit]) -> Verdict {
        if self.must_stop() {
            return None;
        }
        let bytes = shell::render(shell, units);
        let len = bytes.len();
        let ok = self.lint(bytes).is_some_and(|o| self.accepts(&o));
        let p = Progress {
            relints: self.relints,
            max_steps: self.max_steps,
            units: units.len(),
            bytes: len,
            pass: self.pass,
        };
        (self.progress)(&p);
        Some(ok)
    }
}

/// Lints a file's bytes (taken, not copied: a candidate can be as large
/// as the input); `None` when they do not read as a capture.
fn lint_bytes(bytes: Vec<u8>, read: &capture::Options, settings: &Settings) -> Option<Observed> {
    let cap = capture::from_reader("minimize", Box::new(std::io::Cursor::new(bytes)), read).ok()?;
    let (format, detail, streams) = (cap.input_format, cap.detail, cap.streams.len());
    let r = pipeline::lint_capture(cap, settings, &mut NoObserver);
    let s = r.streams.into_iter().next()?;
    Some(Observed {
        format,
        detail,
        streams,
        dialect: s.dialect,
        counts: s.finding_counts(),
        shapes: shapes_of(&s.diagnostics),
        events: s.events,
        file_start: s.origin.file_start.map(|(o, _)| o),
        diagnostics: s.diagnostics,
    })
}

/// The current best candidate.
#[derive(Debug, Clone)]
struct State {
    shell: Shell,
    units: Vec<Unit>,
}

impl State {
    fn refs(&self) -> Vec<&Unit> {
        self.units.iter().collect()
    }

    fn render(&self) -> Vec<u8> {
        shell::render(&self.shell, &self.refs())
    }
}

/// Splits a body into its SSE blocks: each block's bytes run from the end
/// of the previous one to just past its blank line; the rest (the tail,
/// trailing blank lines) is the last unit. Returns the units and, for
/// each, the index of the event it dispatched.
fn split_units(body: &[u8], max_event_bytes: usize) -> (Vec<Unit>, Vec<Option<u64>>) {
    struct Ends(Vec<(u64, Option<u64>)>);
    impl Sink for Ends {
        fn block(&mut self, b: &Block<'_>) {
            if b.terminated {
                self.0
                    .push((b.end_offset, b.dispatch.as_ref().map(|d| d.index)));
            }
        }
    }
    let mut ends = Ends(Vec::new());
    let mut p = Parser::with_limit(max_event_bytes);
    p.feed(body, &mut ends);
    let _ = p.finish(&mut ends);
    let mut units = Vec::new();
    let mut dispatch = Vec::new();
    let mut start = 0usize;
    for (end, d) in ends.0 {
        let end = (end as usize).min(body.len());
        if end > start {
            units.push(Unit::new(body[start..end].to_vec()));
            dispatch.push(d);
            start = end;
        }
    }
    if start < body.len() {
        units.push(Unit::new(body[start..].to_vec()));
        dispatch.push(None);
    }
    (units, dispatch)
}

/// The byte range of the value of a block's only `data` line, when the
/// block has exactly one.
fn data_value_range(unit: &[u8]) -> Option<(usize, usize)> {
    let mut found = None;
    let mut at = 0;
    for l in shell::lines(unit) {
        let content_len = l
            .iter()
            .rposition(|b| *b != b'\n' && *b != b'\r')
            .map_or(0, |i| i + 1);
        let content = &l[..content_len];
        if let Some(v) = content.strip_prefix(b"data:") {
            if found.is_some() {
                return None;
            }
            let skip = usize::from(v.first() == Some(&b' '));
            found = Some((at + 5 + skip, at + content_len));
        }
        at += l.len();
    }
    found
}

/// The canonical letter mapping of a text: the n-th distinct letter met
/// (in order) maps to the n-th letter of the alphabet, the letters never
/// met fill the rest in order. A text already in that form maps to itself.
fn canonical_table<const N: usize>(seen: &[u8], base: u8) -> [u8; N] {
    let mut table = [u8::MAX; N];
    let mut used = [false; N];
    let mut next = 0u8;
    for c in seen {
        let i = (c - base) as usize;
        if table[i] == u8::MAX {
            table[i] = next;
            used[next as usize] = true;
            next += 1;
        }
    }
    let mut free = (0..N as u8).filter(|t| !used[*t as usize]);
    for slot in table.iter_mut() {
        if *slot == u8::MAX {
            *slot = free.next().unwrap_or(0);
        }
    }
    table
}

/// A scrubber that moves every letter and digit (a shift by one), to find
/// where the text is.
fn shift_scrubber() -> Scrubber {
    let l: [u8; 26] = std::array::from_fn(|i| ((i + 1) % 26) as u8);
    let d: [u8; 10] = std::array::from_fn(|i| ((i + 1) % 10) as u8);
    Scrubber::with_tables(l, l, d).keeping_unquoted()
}

/// Letters and digits that the scrubber would change, in order.
fn text_chars(before: &[u8], after: &[u8], out: &mut Vec<u8>) {
    if before.len() != after.len() {
        return;
    }
    for (a, b) in before.iter().zip(after) {
        if a != b && a.is_ascii_alphanumeric() {
            out.push(*a);
        }
    }
}

/// How the text is scrubbed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scrub {
    /// Every letter becomes `x` (`X`), every digit `0`: nothing of the
    /// text is left but its length and punctuation.
    Flat,
    /// The canonical letter mapping ([`canonical_table`]): a substitution
    /// that keeps which letters are equal, for the findings that need it
    /// (a delta repeating the previous one, a done text that differs from
    /// the deltas by a letter).
    Canonical,
}

/// Scrubs the state's text (`how`): the body's data lines, the HAR
/// messages' data and the request's prompt.
fn scrub(st: &State, how: Scrub) -> State {
    if how == Scrub::Flat {
        return scrub_with(st, Scrubber::flat());
    }
    // Where the text is: what a scrubber that moves every letter changes.
    let mut seen = Vec::new();
    let mut probe = shift_scrubber();
    for u in &st.units {
        text_chars(&u.bytes, &probe.body(&u.bytes), &mut seen);
    }
    for u in &st.units {
        if let Some(d) = u.message.as_ref().and_then(|m| m.get("data")?.as_str()) {
            text_chars(d.as_bytes(), probe.data_value(d).as_bytes(), &mut seen);
        }
    }
    let request = har_request(st);
    if let Some(r) = &request {
        let mut moved = r.clone();
        probe.request(&mut moved);
        text_chars(
            r.to_string().as_bytes(),
            moved.to_string().as_bytes(),
            &mut seen,
        );
    }
    let lower: Vec<u8> = seen
        .iter()
        .copied()
        .filter(u8::is_ascii_lowercase)
        .collect();
    let upper: Vec<u8> = seen
        .iter()
        .copied()
        .filter(u8::is_ascii_uppercase)
        .collect();
    let digits: Vec<u8> = seen.iter().copied().filter(u8::is_ascii_digit).collect();
    let s = Scrubber::with_tables(
        canonical_table::<26>(&lower, b'a'),
        canonical_table::<26>(&upper, b'A'),
        canonical_table::<10>(&digits, b'0'),
    );
    scrub_with(st, s)
}

/// The request body of a HAR shell, parsed (`None` for a raw body or a
/// request without a JSON body).
fn har_request(st: &State) -> Option<Value> {
    match &st.shell {
        Shell::Har(h) => h
            .entry
            .pointer("/request/postData/text")
            .and_then(Value::as_str)
            .and_then(|t| serde_json::from_str::<Value>(t).ok()),
        Shell::Bytes(_) => None,
    }
}

/// The state with its text put through `s`.
fn scrub_with(st: &State, s: Scrubber) -> State {
    let request = har_request(st);
    // Whether the body is plain text is told from all of it (a piece
    // alone may look like neither SSE nor JSON).
    let plain = redact::is_plain_pieces(st.units.iter().map(|u| u.bytes.as_slice()));
    let mut s = s.with_plain_body(plain);
    let mut out = State {
        shell: st.shell.clone(),
        units: st
            .units
            .iter()
            .map(|u| Unit {
                bytes: s.body(&u.bytes),
                message: u.message.clone(),
                reads: u.reads.clone(),
            })
            .collect(),
    };
    for u in &mut out.units {
        if let Some(m) = u.message.as_mut() {
            if let Some(Value::String(d)) = m.get_mut("data") {
                *d = s.data_value(d);
            }
        }
    }
    if let (Shell::Har(h), Some(mut r)) = (&mut out.shell, request) {
        s.request(&mut r);
        if let Some(Value::String(t)) = h.entry.pointer_mut("/request/postData/text") {
            *t = r.to_string();
        }
    }
    out
}

/// What a candidate's lint `o` lost of the input's chosen findings, or
/// added at warning or above, as the report names them.
fn lost_of(
    chosen: &[Pair],
    want: &BTreeMap<Pair, BTreeSet<String>>,
    allowed: &BTreeSet<Pair>,
    o: &Observed,
) -> Vec<String> {
    chosen
        .iter()
        .filter(|p| !o.counts.contains_key(p))
        .map(|(r, s)| format!("{r} ({s})"))
        .chain(
            chosen
                .iter()
                .filter(|p| {
                    o.counts.contains_key(p)
                        && !same_faults(std::slice::from_ref(p), want, &o.shapes)
                })
                .map(|(r, s)| format!("{r} ({s}) with another message")),
        )
        .chain(
            o.counts
                .keys()
                .filter(|p| p.1 >= Severity::Warning && !allowed.contains(p))
                .map(|(r, s)| format!("new {r} ({s})")),
        )
        .collect()
}

/// An error of `minimize`, naming the input.
pub type Error = InputError;

/// Minimizes the capture in `input` (read from `path`), as the module docs
/// say. `stop` ends the run early with the best result so far (Ctrl-C);
/// `progress` is called after each re-lint.
///
/// # Errors
/// The input is not a capture, has no stream, has none of the findings to
/// keep, or its findings do not survive being written back redacted.
pub fn minimize(
    path: &str,
    input: &[u8],
    opts: &Options,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Outcome, Error> {
    let err = |m: String| InputError::new(path, m);
    let cap = capture::from_reader(path, Box::new(std::io::Cursor::new(input.to_vec())), &{
        let mut o = opts.capture.clone();
        if o.input_format.is_none() && path.to_ascii_lowercase().ends_with(".har") {
            o.input_format = Some(InputFormat::Har);
        }
        o
    })?;
    let (format, detail) = (cap.input_format, cap.detail);
    let n_streams = cap.streams.len();
    let mut notes = Vec::new();
    // Read each stream's body, lint it, and take the first that has the
    // findings asked for.
    let mut picked = None;
    let mut listing = Vec::new();
    for mut s in cap.streams {
        let body = match std::mem::replace(&mut s.body, Body::Bytes(Vec::new())) {
            Body::Bytes(b) => b,
            Body::Reader(mut r) => {
                let mut b = Vec::new();
                r.read_to_end(&mut b)
                    .map_err(|e| err(capture::io_message(&e)))?;
                b
            }
        };
        let meta = (
            s.label.clone(),
            s.http.clone(),
            s.request.clone(),
            s.timing.clone(),
            s.notes.clone(),
            s.origin,
        );
        s.body = Body::Bytes(body.clone());
        let r = pipeline::lint_stream(s, &opts.settings, &mut NoObserver);
        let counts = r.finding_counts();
        let chosen: Vec<Pair> = if opts.rules.is_empty() {
            counts
                .keys()
                .filter(|p| p.1 >= Severity::Warning)
                .copied()
                .collect()
        } else {
            counts
                .keys()
                .filter(|p| opts.rules.contains(&p.0))
                .copied()
                .collect()
        };
        listing.push(format!(
            "  {}: {}",
            r.label,
            if counts.is_empty() {
                "no findings".to_string()
            } else {
                counts
                    .iter()
                    .map(|((rule, sev), n)| format!("{rule} ({sev}) ×{n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        ));
        if picked.is_none() && !chosen.is_empty() {
            picked = Some((body, meta, r, counts, chosen));
        }
    }
    let Some((body, meta, first, before, chosen)) = picked else {
        let what = if opts.rules.is_empty() {
            "no finding at warning or above (name one with --rule to keep an info finding)"
                .to_string()
        } else {
            format!("no finding of {}", opts.rules.join(", "))
        };
        return Err(err(format!(
            "nothing to minimize: {what}; findings:\n{}",
            listing.join("\n")
        )));
    };
    if let Some(missing) = opts
        .rules
        .iter()
        .find(|r| !chosen.iter().any(|p| p.0 == **r))
    {
        return Err(err(format!(
            "nothing to minimize for {missing}: the stream has no such finding; findings:\n{}",
            listing.join("\n")
        )));
    }
    let (label, http, request, timing, stream_notes, origin) = meta;
    if n_streams > 1 {
        notes.push(format!(
            "the input has {n_streams} event streams; minimized {label}, the first with the findings asked for (pick another with --entry N)"
        ));
    }
    let (mut units, dispatch) = split_units(&body, opts.settings.max_event_bytes);
    // Secrets never reach a candidate.
    for u in &mut units {
        u.bytes = redact::raw(&u.bytes, None);
    }
    let mut shells: Vec<(Shell, Option<String>)> = Vec::new();
    let mut out_ext = "sse";
    match format {
        InputFormat::Har => {
            out_ext = "har";
            let doc: Value = serde_json::from_slice(
                input.strip_prefix(&[0xEF, 0xBB, 0xBF][..]).unwrap_or(input),
            )
            .map_err(|e| err(format!("not a HAR file: the JSON does not parse ({e})")))?;
            let i = origin.har_entry.unwrap_or(0);
            let mut entry = doc
                .pointer(&format!("/log/entries/{i}"))
                .cloned()
                .ok_or_else(|| err(format!("HAR entry {i} is missing")))?;
            let size = entry
                .pointer("/response/content/size")
                .and_then(Value::as_i64)
                .unwrap_or(-1);
            let text_len = entry
                .pointer("/response/content/text")
                .and_then(Value::as_str)
                .map(|_| body.len() as i64);
            let size_extra = match text_len {
                Some(n) if size > n => size - n,
                _ => 0,
            };
            let base64 = entry
                .pointer("/response/content/encoding")
                .and_then(Value::as_str)
                == Some("base64");
            // Timing goes with the units.
            if let Some(msgs) = entry.get("_eventSourceMessages").and_then(Value::as_array) {
                for (u, d) in units.iter_mut().zip(&dispatch) {
                    if let Some(m) = d.and_then(|d| msgs.get(d as usize)) {
                        let mut m = m.clone();
                        if let Some(Value::String(t)) = m.get_mut("data") {
                            *t = capture::redact_keys(t);
                        }
                        u.message = Some(m);
                    }
                }
            }
            if let Some(Timing::Reads(reads)) = &timing {
                let mut at = 0u64;
                for u in &mut units {
                    let end = at + u.bytes.len() as u64;
                    let covering = reads.iter().rev().find(|r| r.offset <= at);
                    if let Some(c) = covering.filter(|c| c.offset < at) {
                        u.reads.push((0, c.ms));
                    }
                    for r in reads.iter().filter(|r| r.offset >= at && r.offset < end) {
                        u.reads.push((r.offset - at, r.ms));
                    }
                    at = end;
                }
            }
            let messages = entry.get("_eventSourceMessages").is_some();
            let reads = matches!(timing, Some(Timing::Reads(_)));
            if let Some(m) = entry.as_object_mut() {
                m.remove("_eventSourceMessages");
                m.remove("pageref");
            }
            if let Some(Value::Object(s)) = entry.get_mut("_sselint") {
                s.remove("reads");
            }
            if let Some(Value::Object(c)) = entry.pointer_mut("/response/content") {
                c.remove("text");
                c.remove("compression");
            }
            let mut wrap = serde_json::json!({"log": {"entries": [entry]}});
            redact::har(&mut wrap, None).map_err(|e| err(e.to_string()))?;
            let entry = wrap["log"]["entries"][0].take();
            shells.push((
                Shell::Har(HarShell {
                    entry,
                    base64,
                    size_extra,
                    messages,
                    reads,
                }),
                None,
            ));
        }
        InputFormat::Sse => {
            let gzip = crate::capture::decode::is_gzip(input);
            // The bytes around the body as they were first (curl's error
            // line is a finding's evidence: `--input-format sse` on a curl
            // dump), the body alone if that loses a finding.
            let dump = unmetered(input);
            let around = (!gzip && !body.is_empty() && body.as_slice() != &*dump)
                .then(|| memchr::memmem::find(&dump, &body))
                .flatten();
            if let Some(p) = around {
                shells.push((
                    Shell::Bytes(ByteShell {
                        prefix: shell::lines(&redact::raw(&dump[..p], None)),
                        suffix: redact::raw(&dump[p + body.len()..], None),
                        ..ByteShell::default()
                    }),
                    None,
                ));
            }
            shells.push((
                Shell::Bytes(ByteShell {
                    gzip,
                    gzip_cut: gzip && shell::gzip_is_cut(input),
                    ..ByteShell::default()
                }),
                (body.as_slice() != input && !gzip).then(|| "the output holds the body as sselint read it (curl's progress meter and other bytes around it left out)".to_string()),
            ));
        }
        InputFormat::Curl => {
            out_ext = "txt";
            let dump = unmetered(input);
            let input = &*dump;
            let gzip = stream_notes
                .iter()
                .any(|n| n.contains("decoded from Content-Encoding: gzip"));
            let other_encoding =
                !gzip && stream_notes.iter().any(|n| n.contains("body decoded from"));
            let same = |prefix: &[u8], rest: &[u8], chunked: Option<bool>| ByteShell {
                prefix: shell::lines(&redact::raw(prefix, None)),
                suffix: redact::raw(rest, None),
                gzip,
                gzip_cut: false,
                chunked,
                chunk_cut: false,
            };
            if detail == "curl -i" && !other_encoding {
                if let Some(h) = shell::curl_i_header_end(input) {
                    let rest = &input[h..];
                    let chunked = stream_notes
                        .iter()
                        .any(|n| n.contains("chunked transfer framing removed"));
                    if chunked {
                        let (end, last) = shell::chunked_end(rest);
                        let cut = end == usize::MAX;
                        let mut sh = same(&input[..h], &rest[end.min(rest.len())..], Some(last));
                        sh.chunk_cut = cut;
                        shells.push((Shell::Bytes(sh), None));
                    } else if gzip {
                        let mut sh = same(&input[..h], &[], None);
                        sh.gzip_cut = shell::gzip_is_cut(rest);
                        shells.push((Shell::Bytes(sh), None));
                    } else if rest.starts_with(&body) {
                        shells.push((
                            Shell::Bytes(same(&input[..h], &rest[body.len()..], None)),
                            None,
                        ));
                    }
                }
            }
            if detail == "curl -v" && !gzip && !other_encoding && !body.is_empty() {
                if let Some(p) = memchr::memmem::find(input, &body) {
                    shells.push((
                        Shell::Bytes(same(&input[..p], &input[p + body.len()..], None)),
                        None,
                    ));
                }
            }
            // Else: a dump written anew from what was read.
            let mut prefix = Vec::new();
            let http = http.clone().unwrap_or_default();
            let status = format!(
                "{} {} {}",
                if http.version.is_empty() {
                    "HTTP/1.1"
                } else {
                    &http.version
                },
                http.status,
                http.reason
            );
            let keep = |n: &str| {
                !["transfer-encoding", "content-encoding", "content-length"]
                    .iter()
                    .any(|x| n.eq_ignore_ascii_case(x))
            };
            let verbose = request.as_ref().is_some_and(|r| !r.method.is_empty());
            if let Some(r) = request.as_ref().filter(|_| verbose) {
                let (host, path) = match r.url.split_once("://") {
                    Some((_, rest)) => match rest.find('/') {
                        Some(i) => (&rest[..i], &rest[i..]),
                        None => (rest, "/"),
                    },
                    None => ("", r.url.as_str()),
                };
                // The request went out in the response's HTTP version.
                let version = if http.version.is_empty() {
                    "HTTP/1.1"
                } else {
                    &http.version
                };
                prefix.push(format!("> {} {path} {version}\r\n", r.method));
                if !host.is_empty() {
                    prefix.push(format!("> Host: {host}\r\n"));
                }
                for h in r
                    .headers
                    .iter()
                    .filter(|h| !h.name.eq_ignore_ascii_case("host"))
                {
                    prefix.push(format!("> {}: {}\r\n", h.name, h.value));
                }
                prefix.push(">\r\n".to_string());
                prefix.push(format!("< {}\r\n", status.trim_end()));
                for h in http.headers.iter().filter(|h| keep(&h.name)) {
                    prefix.push(format!("< {}: {}\r\n", h.name, h.value));
                }
                prefix.push("<\r\n".to_string());
            } else {
                prefix.push(format!("{}\r\n", status.trim_end()));
                for h in http.headers.iter().filter(|h| keep(&h.name)) {
                    prefix.push(format!("{}: {}\r\n", h.name, h.value));
                }
                prefix.push("\r\n".to_string());
            }
            let kind = if verbose { "curl -v" } else { "curl -i" };
            shells.push((
                Shell::Bytes(ByteShell {
                    prefix: prefix
                        .iter()
                        .map(|l| redact::raw(l.as_bytes(), None))
                        .collect(),
                    ..ByteShell::default()
                }),
                Some(format!(
                    "the input is a {detail} dump; the output is a {kind} dump written anew from what sselint read (the body decoded, no transfer framing{})",
                    if detail.contains("trace") { ", the trace's timing left out" } else { "" }
                )),
            ));
        }
    }
    let size_before = Size {
        events: first.events,
        bytes: input.len() as u64,
    };
    let allowed: BTreeSet<Pair> = before.keys().copied().collect();
    let want: BTreeMap<Pair, BTreeSet<String>> = shapes_of(&first.diagnostics)
        .into_iter()
        .filter(|(p, _)| chosen.contains(p))
        .collect();
    let mut read = opts.capture.clone();
    read.entry = None;
    read.url_match = None;
    if format == InputFormat::Har {
        read.input_format = Some(InputFormat::Har);
    }
    let passes = |o: &Observed| {
        o.streams == 1
            && o.dialect == first.dialect
            && chosen.iter().all(|p| o.counts.contains_key(p))
            && same_faults(&chosen, &want, &o.shapes)
            && o.counts
                .keys()
                .all(|p| p.1 < Severity::Warning || allowed.contains(p))
    };
    // The first shell that carries the findings, text scrubbed: flat
    // when the findings survive it, else with the canonical mapping.
    let mut start = None;
    let mut lost = Vec::new();
    // The body is in the units now.
    let body_len = body.len();
    drop(body);
    'shells: for (sh, note) in shells {
        let plain = State {
            shell: sh,
            units: std::mem::take(&mut units),
        };
        let tries: &[Option<Scrub>] = if opts.keep_text {
            &[None]
        } else {
            &[Some(Scrub::Flat), Some(Scrub::Canonical)]
        };
        for how in tries {
            let scrubbed = how.map(|h| scrub(&plain, h));
            let st = scrubbed.as_ref().unwrap_or(&plain);
            let Some(o) = lint_bytes(st.render(), &read, &opts.settings) else {
                continue;
            };
            if passes(&o) {
                start = Some((scrubbed.unwrap_or(plain), o, note));
                break 'shells;
            }
            lost = lost_of(&chosen, &want, &allowed, &o);
        }
        units = plain.units;
    }
    let Some((mut st, o, note)) = start else {
        // The true causes first: a timing finding the output cannot hold,
        // an entry that is no event stream.
        let cat = crate::lint::catalogue();
        let timing_rules: Vec<&str> = chosen
            .iter()
            .map(|p| p.0)
            .filter(|r| cat.rules().any(|x| x.name == *r && x.group == "timing"))
            .collect();
        if format != InputFormat::Har && !timing_rules.is_empty() && timing.is_some() {
            return Err(err(format!(
                "cannot minimize {}: it needs the capture's timing, and the output (a {} file) cannot hold it{}; record the stream with `sselint record` (a HAR with per-read times) to minimize a timing finding",
                timing_rules.join(", "),
                if format == InputFormat::Curl { "curl dump" } else { "raw body" },
                if detail.contains("trace") {
                    " (a trace is written back as a curl -v dump, without its times)"
                } else {
                    ""
                }
            )));
        }
        let content_type = http
            .as_ref()
            .and_then(|h| h.content_type.clone())
            .unwrap_or_default();
        if !content_type.is_empty() && !content_type.contains("event-stream") {
            return Err(err(format!(
                "cannot minimize {label}: it is not an event stream (Content-Type: {content_type}); pick a streamed entry with --entry N",
            )));
        }
        // A body cut where --max-decoded-bytes stopped the decoding: the
        // copy holds only the bytes read, which decode whole.
        let cut_by_limit = first
            .diagnostics
            .iter()
            .any(|d| d.rule == "capture-truncated" && d.message.contains("(--max-decoded-bytes)"));
        if cut_by_limit && chosen.iter().any(|p| p.0 == "capture-truncated") {
            return Err(err(format!(
                "cannot minimize: the body decodes to more than --max-decoded-bytes {} and was read only that far, so any copy written from what was read decodes whole and loses capture-truncated; minimize without --max-decoded-bytes (or with a larger one), or keep other findings with --rule",
                read.decoded_limit()
            )));
        }
        let why = if lost.is_empty() {
            "the copy does not read as the same capture".to_string()
        } else {
            lost.join(", ")
        };
        return Err(err(format!(
            "cannot minimize: a redacted{} copy already differs ({why}){}",
            if opts.keep_text {
                ""
            } else {
                ", text-scrubbed"
            },
            if opts.keep_text {
                ""
            } else {
                "; --keep-text leaves the text as it is"
            }
        )));
    };
    notes.extend(note);
    // A body cut at exactly Firefox's limit: its size is the evidence of
    // capture-truncated, so no byte of it can go (each cut would make it
    // another claim, "holds N bytes but content.size says M").
    let body_fixed = format == InputFormat::Har
        && body_len == capture::har::FIREFOX_BODY_LIMIT
        && chosen.iter().any(|p| p.0 == "capture-truncated");
    if body_fixed {
        notes.push("capture-truncated's evidence is the body's exact size (1 MiB, Firefox's response body limit), so the body is kept whole; only the HAR entry around it was cut".to_string());
    }
    let mut oracle = Oracle {
        settings: &opts.settings,
        read,
        format: o.format,
        detail: o.detail,
        dialect: first.dialect,
        chosen: chosen.clone(),
        want,
        allowed,
        relints: 0,
        max_steps: opts.max_steps,
        stop,
        stopped: None,
        progress,
        pass: "events",
    };
    let format_name = match o.format {
        InputFormat::Har => "har".to_string(),
        _ => o.detail.to_string(),
    };
    // Rounds until nothing changes.
    loop {
        let mut changed = false;
        if !body_fixed {
            changed |= events_pass(&mut oracle, &mut st);
            if oracle.stopped.is_none() {
                changed |= inside_pass(&mut oracle, &mut st);
            }
        }
        if oracle.stopped.is_none() {
            changed |= shell_pass(&mut oracle, &mut st);
        }
        if oracle.stopped.is_none() && !opts.keep_text {
            // Cuts may have taken away what needed the letter mapping (the
            // flat scrub is tried again), and change which letter comes
            // first (the text is mapped anew).
            let now = st.render();
            for how in [Scrub::Flat, Scrub::Canonical] {
                let again = scrub(&st, how);
                if again.render() == now {
                    break;
                }
                oracle.pass = "text";
                match oracle.test(&again.shell, &again.refs()) {
                    Some(true) => {
                        st = again;
                        changed = true;
                        break;
                    }
                    Some(false) => {}
                    None => break,
                }
            }
        }
        if !changed || oracle.stopped.is_some() {
            break;
        }
    }
    if !opts.keep_text {
        // Say when the text kept its letter patterns, and for what (one
        // more lint, not counted: no candidate).
        let flat = scrub(&st, Scrub::Flat);
        if flat.render() != st.render() {
            let why = lint_bytes(flat.render(), &oracle.read, &opts.settings)
                .map(|o| lost_of(&oracle.chosen, &oracle.want, &oracle.allowed, &o))
                .unwrap_or_default();
            notes.push(format!(
                "the text keeps its letter patterns (each letter always replaced by the same one, which frequency analysis can read; read it before sharing): with every letter as x, {}",
                if why.is_empty() {
                    "the copy no longer reads as the same capture".to_string()
                } else {
                    format!("the input's findings change ({})", why.join(", "))
                }
            ));
        }
    }
    let mut output = shell::render_final(&st.shell, &st.refs());
    // A HAR is written indented, unless that makes it larger than the
    // input (a run stopped early, before it cut much): then compact, so
    // the output is never the larger (and minimizing it again, compact
    // again, gives the same bytes).
    if matches!(st.shell, Shell::Har(_)) && output.len() as u64 > size_before.bytes {
        if let Ok(doc) = serde_json::from_slice::<Value>(&output) {
            let mut compact = serde_json::to_vec(&doc).unwrap_or_default();
            compact.push(b'\n');
            if compact.len() < output.len() {
                output = compact;
            }
        }
    }
    // The final check (not counted: it is no candidate).
    let last = lint_bytes(output.clone(), &oracle.read, &opts.settings);
    let (after, events_after) = last.map(|o| (o.counts, o.events)).unwrap_or_default();
    Ok(Outcome {
        size_after: Size {
            events: events_after,
            bytes: output.len() as u64,
        },
        output,
        label,
        format: format_name,
        extension: out_ext,
        dialect: first.dialect,
        chosen,
        before,
        after,
        size_before,
        relints: oracle.relints,
        stopped: oracle.stopped,
        notes,
    })
}

/// The units holding the findings in `o` (by event index, else by byte
/// offset), and those a framing finding points into.
fn locate(
    o: &Observed,
    st: &State,
    dispatch: &[Option<u64>],
    rules: &[Pair],
) -> (BTreeSet<usize>, BTreeSet<usize>) {
    let mut starts = Vec::with_capacity(st.units.len());
    let mut at = 0u64;
    for u in &st.units {
        starts.push(at);
        at += u.bytes.len() as u64;
    }
    let unit_at = |off: u64| starts.partition_point(|s| *s <= off).saturating_sub(1);
    let mut anchors = BTreeSet::new();
    let mut framing = BTreeSet::new();
    let cat = crate::lint::catalogue();
    for d in &o.diagnostics {
        let off = d
            .location
            .byte_offset
            .saturating_sub(o.file_start.unwrap_or(0));
        let by_event = d
            .event_index
            .and_then(|e| dispatch.iter().position(|x| *x == Some(e)));
        let u = by_event.unwrap_or_else(|| unit_at(off));
        if rules.iter().any(|p| p.0 == d.rule) {
            anchors.insert(u);
        }
        let group = cat.rules().find(|r| r.name == d.rule).map(|r| r.group);
        if group == Some("framing") {
            let end = off + d.location.byte_len.max(1);
            for i in unit_at(off)..=unit_at(end.saturating_sub(1)) {
                framing.insert(i);
            }
        }
    }
    (anchors, framing)
}

/// Each unit's dispatched event index in the current state.
fn dispatch_of(st: &State, max_event_bytes: usize) -> Vec<Option<u64>> {
    let mut body = Vec::new();
    for u in &st.units {
        body.extend_from_slice(&u.bytes);
    }
    let (units, d) = split_units(&body, max_event_bytes);
    if units.len() == st.units.len() {
        d
    } else {
        vec![None; st.units.len()]
    }
}

/// Pass 1: cut blocks (see the module docs).
fn events_pass(oracle: &mut Oracle<'_>, st: &mut State) -> bool {
    oracle.pass = "events";
    let n = st.units.len();
    if n < 2 {
        return false;
    }
    let mut cur: Vec<usize> = (0..n).collect();
    if n > 16 {
        // One look at where the findings are, then windows around them.
        if let Some(o) = oracle.look(st.render()) {
            let dispatch = dispatch_of(st, oracle.settings.max_event_bytes);
            let (anchors, _) = locate(&o, st, &dispatch, &oracle.chosen);
            for r in [1usize, 4, 16, 64] {
                let mut keep = BTreeSet::new();
                for a in anchors.iter().copied().chain([0, n - 1]) {
                    for i in a.saturating_sub(r)..=(a + r).min(n - 1) {
                        keep.insert(i);
                    }
                }
                for i in 0..r.min(n) {
                    keep.insert(i);
                    keep.insert(n - 1 - i);
                }
                if keep.len() >= n {
                    break;
                }
                let cand: Vec<usize> = keep.into_iter().collect();
                let refs: Vec<&Unit> = cand.iter().map(|i| &st.units[*i]).collect();
                match oracle.test(&st.shell, &refs) {
                    None => return false,
                    Some(true) => {
                        cur = cand;
                        break;
                    }
                    Some(false) => {}
                }
            }
        }
    }
    let shell = st.shell.clone();
    let units = &st.units;
    let best = ddmin::ddmin(cur, &mut |sub: &[usize]| {
        let refs: Vec<&Unit> = sub.iter().map(|i| &units[*i]).collect();
        oracle.test(&shell, &refs)
    });
    if best.len() < n {
        st.units = best.into_iter().map(|i| st.units[i].clone()).collect();
        true
    } else {
        false
    }
}

/// Pass 2: inside each event's JSON (see the module docs).
fn inside_pass(oracle: &mut Oracle<'_>, st: &mut State) -> bool {
    oracle.pass = "inside events";
    let Some(o) = oracle.look(st.render()) else {
        return false;
    };
    let dispatch = dispatch_of(st, oracle.settings.max_event_bytes);
    let (_, framing) = locate(&o, st, &dispatch, &oracle.chosen);
    let mut changed = false;
    for ui in 0..st.units.len() {
        if framing.contains(&ui) {
            continue;
        }
        let Some((vs, ve)) = data_value_range(&st.units[ui].bytes) else {
            continue;
        };
        let orig = st.units[ui].bytes.clone();
        let Some(mut v) = std::str::from_utf8(&orig[vs..ve])
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(t).ok())
            .filter(|v| v.is_object() || v.is_array())
        else {
            continue;
        };
        let with = |v: &Value| {
            let mut b = orig[..vs].to_vec();
            b.extend_from_slice(v.to_string().as_bytes());
            b.extend_from_slice(&orig[ve..]);
            b
        };
        // Re-serializing alone must be harmless, or nothing here can change.
        let plain = with(&v);
        if plain != orig {
            st.units[ui].bytes = plain;
            if oracle.test(&st.shell, &st.refs()) != Some(true) {
                st.units[ui].bytes = orig;
                if oracle.stopped.is_some() {
                    return changed;
                }
                continue;
            }
        }
        let shell = st.shell.clone();
        let mut units = st.units.clone();
        // What the dialect reads an event by (Messages' `type`, Responses'
        // `type` and `sequence_number`) stays; what is inside may go.
        let kept = oracle.dialect.map_or(&[][..], |d| d.words().kept);
        // Its identifiers (Gemini's `modelVersion`, `responseId`) stay whole.
        let ids = oracle.dialect.map_or(&[][..], |d| d.words().identifiers);
        let guard = |ptr: &str| {
            let key = ptr.rsplit('/').next().unwrap_or("");
            if kept.contains(&key) {
                Guard::Keep
            } else {
                Guard::Free
            }
        };
        let r = reduce::reduce(&mut v, &guard, Some(ids), &mut |cand: &Value| {
            units[ui].bytes = with(cand);
            let refs: Vec<&Unit> = units.iter().collect();
            oracle.test(&shell, &refs)
        });
        let now = with(&v);
        if now != orig {
            st.units[ui].bytes = now;
            changed = true;
        }
        if r.is_none() {
            return changed;
        }
    }
    changed
}

/// What HAR 1.2 requires of an entry: these stay (what is inside them may
/// go), so the output opens in other HAR tools too.
const HAR_REQUIRED: &[&str] = &[
    "/startedDateTime",
    "/time",
    "/request",
    "/request/method",
    "/request/httpVersion",
    "/request/cookies",
    "/request/headers",
    "/request/queryString",
    "/request/headersSize",
    "/request/bodySize",
    "/response",
    "/response/status",
    "/response/statusText",
    "/response/httpVersion",
    "/response/cookies",
    "/response/headers",
    "/response/redirectURL",
    "/response/headersSize",
    "/response/bodySize",
    "/cache",
    "/timings",
    "/timings/send",
    "/timings/wait",
    "/timings/receive",
];

/// Whether a request's query parameter `name` is one an API streams by
/// ([`crate::dialect::Api::stream_query`]: Gemini's `alt`, whose `sse`
/// asks for an event stream instead of one JSON array).
fn makes_it_stream(name: &str) -> bool {
    crate::dialect::ALL
        .iter()
        .filter_map(|d| d.api().stream_query())
        .any(|(k, _)| k == name)
}

/// `input` without curl's progress meter, when it holds one: the lines
/// around the body are the dump's, not the meter's. Built from the file as
/// it is, a shell kept the meter's first header line (never dropped, as the
/// first line) and lost its second, so the output no longer read as a curl
/// dump (issue 40, finding 3).
fn unmetered(input: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    use std::io::Read;
    if !capture::meter::present(input) {
        return std::borrow::Cow::Borrowed(input);
    }
    let mut out = Vec::with_capacity(input.len());
    // Reading from a slice cannot fail.
    let _ = capture::meter::MeterFilter::new(input).read_to_end(&mut out);
    std::borrow::Cow::Owned(out)
}

/// Lines of a curl dump's head that make it that dump, never dropped: the
/// first line, status and request lines, the blank (or bare `<`, `>`)
/// lines that end header blocks, and the `Transfer-Encoding` and
/// `Content-Encoding` headers (without them the body kept chunked or
/// gzipped would read as other bytes).
fn is_frame_line(i: usize, line: &[u8]) -> bool {
    let t = String::from_utf8_lossy(line);
    let bare = t.trim_end_matches(['\r', '\n']);
    let inner = bare.trim_start_matches(['<', '>']).trim();
    let name = inner.split(':').next().unwrap_or("").trim();
    i == 0
        || inner.is_empty()
        || name.eq_ignore_ascii_case("transfer-encoding")
        || name.eq_ignore_ascii_case("content-encoding")
        || inner.starts_with("HTTP/")
        || (bare.starts_with("> ")
            && inner
                .split(' ')
                .nth(2)
                .is_some_and(|v| v.starts_with("HTTP/")))
}

/// Pass 3: around the body (see the module docs).
fn shell_pass(oracle: &mut Oracle<'_>, st: &mut State) -> bool {
    oracle.pass = "around the body";
    let mut changed = false;
    match st.shell.clone() {
        Shell::Bytes(mut b) => {
            let units = st.refs();
            let mut i = 0;
            while i < b.prefix.len() {
                if is_frame_line(i, &b.prefix[i]) {
                    i += 1;
                    continue;
                }
                let mut cand = b.clone();
                cand.prefix.remove(i);
                match oracle.test(&Shell::Bytes(cand.clone()), &units) {
                    None => break,
                    Some(true) => {
                        b = cand;
                        changed = true;
                    }
                    Some(false) => i += 1,
                }
            }
            if !b.suffix.is_empty() && oracle.stopped.is_none() {
                let mut cand = b.clone();
                cand.suffix.clear();
                if oracle.test(&Shell::Bytes(cand.clone()), &units) == Some(true) {
                    b = cand;
                    changed = true;
                }
            }
            st.shell = Shell::Bytes(b);
        }
        Shell::Har(mut h) => {
            let units = st.refs();
            // The URL's query and `queryString` change together, below.
            let guard = |p: &str| {
                if p.starts_with("/response/content")
                    || p.starts_with("/request/postData/")
                    || p.starts_with("/request/url")
                    || p.starts_with("/request/queryString")
                {
                    Guard::Frozen
                } else if HAR_REQUIRED.contains(&p) {
                    Guard::Keep
                } else {
                    Guard::Free
                }
            };
            let base = h.clone();
            let mut entry = h.entry.clone();
            let r = reduce::reduce(&mut entry, &guard, None, &mut |cand: &Value| {
                let s = Shell::Har(HarShell {
                    entry: cand.clone(),
                    ..base.clone()
                });
                oracle.test(&s, &units)
            });
            h.entry = entry;
            changed |= r == Some(true);
            // The request body: only what a rule reads stays.
            let body = h
                .entry
                .pointer("/request/postData/text")
                .and_then(Value::as_str)
                .and_then(|t| serde_json::from_str::<Value>(t).ok());
            if let (Some(mut req), None) = (body, oracle.stopped) {
                let h0 = h.clone();
                let with = |v: &Value| {
                    let mut e = h0.entry.clone();
                    if let Some(Value::String(t)) = e.pointer_mut("/request/postData/text") {
                        *t = v.to_string();
                    }
                    e
                };
                let before = req.clone();
                let _ = reduce::reduce(
                    &mut req,
                    &|_| Guard::Free,
                    Some(&[]),
                    &mut |cand: &Value| {
                        let s = Shell::Har(HarShell {
                            entry: with(cand),
                            ..h0.clone()
                        });
                        oracle.test(&s, &units)
                    },
                );
                if req != before {
                    h.entry = with(&req);
                    changed = true;
                }
            }
            // The query string, where no finding needs it (it may hold a
            // user's name or an id next to the redacted key), but for the
            // parameters that make the endpoint stream (`alt=sse`): the
            // reproducer is a request its API streams too.
            let url = h.entry.pointer("/request/url").and_then(Value::as_str);
            let bare = url.and_then(|u| u.split_once('?')).map(|(path, query)| {
                let kept: Vec<&str> = query
                    .split('&')
                    .filter(|p| makes_it_stream(p.split('=').next().unwrap_or("")))
                    .collect();
                if kept.is_empty() {
                    path.to_string()
                } else {
                    format!("{path}?{}", kept.join("&"))
                }
            });
            if let (Some(bare), None) = (bare.filter(|b| Some(b.as_str()) != url), oracle.stopped) {
                let mut e = h.entry.clone();
                e["request"]["url"] = Value::String(bare);
                if let Some(Value::Array(q)) = e["request"].get_mut("queryString") {
                    q.retain(|p| {
                        p.get("name")
                            .and_then(Value::as_str)
                            .is_some_and(makes_it_stream)
                    });
                }
                let s = Shell::Har(HarShell {
                    entry: e.clone(),
                    ..h.clone()
                });
                if oracle.test(&s, &units) == Some(true) {
                    h.entry = e;
                    changed = true;
                }
            }
            // HAR's bodySize: the bytes of the request body kept.
            let kept = h
                .entry
                .pointer("/request/postData/text")
                .and_then(Value::as_str)
                .map_or(0, str::len);
            if let Some(size) = h.entry.pointer_mut("/request/bodySize") {
                if size.as_i64().is_some_and(|n| n >= 0) && size.as_u64() != Some(kept as u64) {
                    *size = Value::from(kept);
                }
            }
            st.shell = Shell::Har(h);
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_cover_the_body_exactly() {
        let body = b": hi\n\ndata: 1\n\n\ndata: 2\r\rtail";
        let (units, d) = split_units(body, 1 << 20);
        let joined: Vec<u8> = units.iter().flat_map(|u| u.bytes.clone()).collect();
        assert_eq!(joined, body);
        assert_eq!(d, vec![None, Some(0), Some(1), None]);
    }

    #[test]
    fn canonical_mapping_is_its_own_fixed_point() {
        let t = canonical_table::<26>(b"hello", b'a');
        let mapped: Vec<u8> = b"hello"
            .iter()
            .map(|c| b'a' + t[(c - b'a') as usize])
            .collect();
        assert_eq!(mapped, b"abccd");
        let again = canonical_table::<26>(&mapped, b'a');
        assert!(again.iter().enumerate().all(|(i, v)| *v as usize == i));
    }

    #[test]
    fn the_data_value_of_a_one_data_line_block() {
        let u = b"event: x\ndata: {\"a\":1}\r\n\r\n";
        let (s, e) = data_value_range(u).unwrap();
        assert_eq!(&u[s..e], b"{\"a\":1}");
        assert_eq!(data_value_range(b"data:1\ndata:2\n\n"), None);
    }

    #[test]
    fn a_shape_keeps_how_the_numbers_compare() {
        let s = message_shape;
        assert_ne!(
            s("sequence_number 3 follows 6"),
            s("sequence_number 6 follows 6")
        );
        assert_eq!(
            s("sequence_number 3 follows 6"),
            s("sequence_number 10 follows 62")
        );
        assert_ne!(
            s("sequence_number 3 follows 6"),
            s("sequence_number 7 follows 6")
        );
        assert_eq!(s("jumps 0 to 2"), s("jumps 00 to 0002"));
        // Counts of different things in different clauses.
        assert_eq!(
            s("after 5 event(s) (32 characters of text)"),
            s("after 1 event(s) (0 characters of text)")
        );
        assert_eq!(
            s("99999999999999999999999 and 100000000000000000000000"),
            s("1 and 2")
        );
    }

    #[test]
    fn a_shape_folds_quoted_text_only() {
        let s = message_shape;
        assert_eq!(s("text \"Hi there!\" (9)"), s("text \"Aa bcded!\" (9)"));
        assert_eq!(s("text \"a 12\\\" b\""), s("text \"x 99\\\" y\""));
        assert_ne!(
            s("`response.output_text.done`'s text"),
            s("`response.output_item.done`'s item")
        );
        assert_ne!(
            s("`object` is \"chat.completions.chunk\""),
            s("`object` is \"chat.com\"")
        );
    }
}
