//! The stream log: what the HTML pages (`check --format html`, `diff
//! --format html`) show beyond a [`StreamResult`]: the stream's events
//! (the first [`HEAD_EVENTS`] and the last [`TAIL_EVENTS`], so a 100 MB
//! capture does not make a 1 GB page) and the points of its timeline,
//! recorded by an [`Observer`] while the pipeline lints the stream.
//!
//! Not for deciding anything: the findings are the linter's, attached to
//! the event that produced them by their index in the stream's
//! diagnostics.

use crate::capture::{self, Timing};
use crate::checks::Linter;
use crate::lint::{printable, printable_text, Diagnostic, Settings, Severity};
use crate::pipeline::{self, FileResult, Observer, StreamResult};
use crate::sse::{Block, LineKind};
use std::collections::VecDeque;
use std::ops::Range;

/// Events kept from the start of a stream.
pub const HEAD_EVENTS: usize = 2000;
/// Events kept from the end of a stream.
pub const TAIL_EVENTS: usize = 200;
/// Characters of an event's data shown; the rest is counted.
pub const DATA_CHARS: usize = 2000;
/// Characters of what an event adds (its summary) shown; the rest is
/// counted. A 15 MB content delta would otherwise be all on the page.
pub const ADDS_CHARS: usize = 300;
/// Points kept for a timeline line; past it every other point is dropped
/// (the first and the last stay), so memory is bounded.
pub const MAX_POINTS: usize = 2000;
/// Stalls kept for the timeline; the rest are counted.
pub const MAX_STALLS: usize = 100;
/// Choices whose answer characters the timeline counts (a hostile stream
/// with thousands of choices would otherwise cost a walk of them all per
/// event).
const COUNTED_CHOICES: usize = 64;

/// One block of the stream as the page shows it.
#[derive(Debug, Clone)]
pub struct EventRow {
    /// The event's index, `tail` (undispatched) or `·` (comment, no data).
    pub label: String,
    /// 1-based line of the block's first line.
    pub line: u64,
    /// Byte offset of the block in the body.
    pub offset: u64,
    /// Byte offset just past the block (its span is `offset..end`).
    pub end: u64,
    /// Milliseconds since the exchange started, where the capture has
    /// timings.
    pub time_ms: Option<f64>,
    /// The `event:` name dispatched (printable).
    pub event_type: String,
    /// Kinds the linter gave it (`role`, `content`, `finish`, …).
    pub kinds: Vec<String>,
    /// What the chunk adds, in short (printable), at most [`ADDS_CHARS`].
    pub adds: String,
    /// Characters of `adds` left out.
    pub adds_cut: usize,
    /// The data (printable, secrets redacted), at most [`DATA_CHARS`].
    pub data: String,
    /// Characters of the data left out.
    pub data_cut: usize,
    /// Indices of its findings in the stream's diagnostics.
    pub findings: Range<usize>,
    /// Its findings past the per-rule limit (counted, not kept): how many,
    /// and the worst severity among them.
    pub past_limit: u64,
    /// The worst severity of the findings past the limit.
    pub past_limit_worst: Option<Severity>,
}

/// A point of the timeline: at `ms`, `bytes` of the body had arrived and
/// `chars` characters of answer text were rebuilt.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Milliseconds since the exchange started.
    pub ms: f64,
    /// Body bytes received.
    pub bytes: u64,
    /// Answer characters rebuilt (text and refusal of every choice).
    pub chars: u64,
}

/// A gap between two events longer than the stall threshold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stall {
    /// When the earlier event arrived.
    pub from_ms: f64,
    /// When the later one arrived.
    pub to_ms: f64,
    /// The later event's index.
    pub before_event: u64,
}

/// The timeline of a timed stream, bounded in memory.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    /// Per dispatched event (thinned past [`MAX_POINTS`]).
    pub points: Vec<Point>,
    /// Per network read (`record`, curl `--trace-time`) or per message
    /// (Chrome): when bytes arrived (thinned past [`MAX_POINTS`]).
    pub arrivals: Vec<f64>,
    /// Time of the first event.
    pub first_event_ms: Option<f64>,
    /// Time of the first event carrying answer content (TTFT).
    pub first_content_ms: Option<f64>,
    /// Gaps over the threshold, in order, at most [`MAX_STALLS`].
    pub stalls: Vec<Stall>,
    /// Stalls past [`MAX_STALLS`].
    pub stalls_more: u64,
    /// The threshold used, in ms.
    pub stall_ms: u64,
    stride: u64,
    seen: u64,
    last: Option<Point>,
}

impl Timeline {
    fn push(&mut self, p: Point) {
        self.stride = self.stride.max(1);
        if self.seen.is_multiple_of(self.stride) {
            self.points.push(p);
            if self.points.len() > MAX_POINTS {
                thin(&mut self.points);
                self.stride *= 2;
            }
        }
        self.seen += 1;
        self.last = Some(p);
    }

    /// Keeps the last point (call once, when the stream ended).
    pub fn finish(&mut self) {
        if let Some(l) = self.last {
            if self.points.last() != Some(&l) {
                self.points.push(l);
            }
        }
    }

    /// The last time on the timeline (events and arrivals).
    pub fn end_ms(&self) -> f64 {
        let a = self.arrivals.iter().copied().fold(0.0, f64::max);
        let p = self.points.iter().map(|p| p.ms).fold(0.0, f64::max);
        a.max(p)
    }
}

/// Keeps every other element (the first stays).
fn thin<T: Copy>(v: &mut Vec<T>) {
    let mut i = 0;
    v.retain(|_| {
        i += 1;
        i % 2 == 1
    });
}

/// Arrival times from a capture's timing, at most [`MAX_POINTS`].
fn arrivals(timing: &Timing) -> Vec<f64> {
    let mut v: Vec<f64> = match timing {
        Timing::Reads(r) => r.iter().map(|r| r.ms).collect(),
        Timing::Events(t) => t.clone(),
    };
    while v.len() > MAX_POINTS {
        thin(&mut v);
    }
    v
}

/// One stream's events and timeline, recorded while it is linted.
#[derive(Debug, Default)]
pub struct StreamLog {
    /// The request URL, secrets redacted, where the capture has it.
    pub url: Option<String>,
    /// The first [`HEAD_EVENTS`] blocks.
    pub head: Vec<EventRow>,
    /// The last [`TAIL_EVENTS`] blocks after the head.
    pub tail: VecDeque<EventRow>,
    /// Blocks between the head and the tail, counted and dropped.
    pub skipped: u64,
    /// The timeline, where the capture has timings.
    pub timeline: Option<Timeline>,
    timing: Option<Timing>,
    prev_text: Vec<(u64, usize, usize)>,
    chars: u64,
    /// The collector's counts (errors, warnings, infos; kept or not) at
    /// the last block: what a block adds past the limit is the difference.
    prev_counts: (u64, u64, u64),
}

impl StreamLog {
    /// A log for a stream with `timing`, stalls longer than `stall_ms`.
    pub fn new(url: Option<&str>, timing: Option<Timing>, stall_ms: u64) -> Self {
        let timeline = timing.as_ref().map(|t| Timeline {
            arrivals: arrivals(t),
            stall_ms,
            ..Timeline::default()
        });
        StreamLog {
            url: url.map(capture::redact_url),
            timeline,
            timing,
            ..StreamLog::default()
        }
    }

    /// Every kept row, in order (head, then tail).
    pub fn rows(&self) -> impl Iterator<Item = &EventRow> {
        self.head.iter().chain(self.tail.iter())
    }

    fn push_row(&mut self, row: EventRow) {
        if self.head.len() < HEAD_EVENTS {
            self.head.push(row);
        } else {
            if self.tail.len() == TAIL_EVENTS {
                self.tail.pop_front();
                self.skipped += 1;
            }
            self.tail.push_back(row);
        }
    }

    /// Answer characters rebuilt so far, counting only what each event
    /// added.
    fn count_chars(&mut self, linter: &Linter<'_>) -> u64 {
        for c in linter.answer().choices.values().take(COUNTED_CHOICES) {
            let refusal = c.refusal.as_ref().map_or("", |r| r.kept.as_str());
            let slot = match self.prev_text.iter().position(|p| p.0 == c.index) {
                Some(i) => i,
                None => {
                    self.prev_text.push((c.index, 0, 0));
                    self.prev_text.len() - 1
                }
            };
            let (_, t0, r0) = self.prev_text[slot];
            let added = |s: &str, from: usize| s.get(from..).map_or(0, |x| x.chars().count());
            self.chars += (added(&c.text.kept, t0) + added(refusal, r0)) as u64;
            self.prev_text[slot] = (c.index, c.text.kept.len(), refusal.len());
        }
        self.chars
    }
}

/// `s` made printable (controls escaped, secrets redacted) and cut to
/// `max` characters; the count of characters left out.
pub fn cut(s: &str, max: usize) -> (String, usize) {
    let n = s.chars().count();
    if n <= max {
        (printable_text(s), 0)
    } else {
        let kept: String = s.chars().take(max).collect();
        (printable_text(&kept), n - max)
    }
}

/// `s` (already printable) cut to `max` characters; the count left out.
fn cut_printable(s: &str, max: usize) -> (String, usize) {
    match s.char_indices().nth(max) {
        None => (s.to_string(), 0),
        Some((at, _)) => (s[..at].to_string(), s[at..].chars().count()),
    }
}

impl Observer for StreamLog {
    fn block(&mut self, block: &Block<'_>, new: &[Diagnostic], linter: &Linter<'_>) {
        let all = linter.out.diagnostics.len();
        let findings = all - new.len()..all;
        // Findings since the last block, kept or past the per-rule limit:
        // the ones past it are only counted, yet they are this event's.
        let c = linter.out.counts;
        let p = std::mem::replace(&mut self.prev_counts, c);
        let kept = |s: Severity| new.iter().filter(|d| d.severity == s).count() as u64;
        let past = [
            (Severity::Error, c.0.saturating_sub(p.0)),
            (Severity::Warning, c.1.saturating_sub(p.1)),
            (Severity::Info, c.2.saturating_sub(p.2)),
        ]
        .map(|(s, n)| (s, n.saturating_sub(kept(s))));
        let past_limit = past.iter().map(|(_, n)| n).sum();
        let past_limit_worst = past.iter().filter(|(_, n)| *n > 0).map(|(s, _)| *s).max();
        let first = block.lines.first();
        let line = first.map_or(0, |l| l.line);
        let offset = first.map_or(0, |l| l.offset);
        let index = block.dispatch.as_ref().map(|d| d.index);
        let time_ms = self
            .timing
            .as_ref()
            .and_then(|t| t.time_of(block.end_offset, index));
        let lines_text = || {
            block
                .lines
                .iter()
                .map(|l| String::from_utf8_lossy(block.bytes(l)).into_owned())
                .collect::<Vec<_>>()
                .join("\n")
                + &block.skipped_note()
        };
        let (label, kinds, adds, data, event_type) = if let Some(d) = &block.dispatch {
            let mut kinds: Vec<String> = linter.event_kind.iter().map(|k| k.to_string()).collect();
            // Every row has a kind, so the kind filter can show it.
            if kinds.is_empty() {
                kinds.push("other".to_string());
            }
            (
                d.index.to_string(),
                kinds,
                printable(&linter.event_summary),
                d.data.to_string(),
                printable(d.event_type),
            )
        } else if !block.terminated {
            (
                "tail".to_string(),
                vec!["undispatched".to_string()],
                String::new(),
                block.data.unwrap_or("").to_string(),
                String::new(),
            )
        } else if block.lines.iter().all(|l| l.kind == LineKind::Comment) {
            (
                "·".to_string(),
                vec!["comment".to_string()],
                String::new(),
                lines_text(),
                String::new(),
            )
        } else {
            (
                "·".to_string(),
                vec!["no-data".to_string()],
                String::new(),
                lines_text(),
                String::new(),
            )
        };
        if let (Some(i), Some(t)) = (index, time_ms) {
            let chars = self.count_chars(linter);
            let content = linter.event_kind.contains(&"content");
            if let Some(tl) = self.timeline.as_mut() {
                tl.first_event_ms.get_or_insert(t);
                if content && tl.first_content_ms.is_none() {
                    tl.first_content_ms = Some(t);
                }
                if let Some(last) = tl.last {
                    if t - last.ms > tl.stall_ms as f64 {
                        if tl.stalls.len() < MAX_STALLS {
                            tl.stalls.push(Stall {
                                from_ms: last.ms,
                                to_ms: t,
                                before_event: i,
                            });
                        } else {
                            tl.stalls_more += 1;
                        }
                    }
                }
                tl.push(Point {
                    ms: t,
                    bytes: block.end_offset,
                    chars,
                });
            }
        }
        let (data, data_cut) = cut(&data, DATA_CHARS);
        let (adds, adds_cut) = cut_printable(&adds, ADDS_CHARS);
        self.push_row(EventRow {
            label,
            line,
            offset,
            end: block.end_offset,
            time_ms,
            event_type,
            kinds,
            adds,
            adds_cut,
            data,
            data_cut,
            findings,
            past_limit,
            past_limit_worst,
        });
    }
}

/// Opens and lints one input, recording each stream's events and
/// timeline; an unreadable input gives a result with `error` set, no
/// streams and no logs.
pub fn lint_path(
    path: &str,
    opts: &capture::Options,
    settings: &Settings,
) -> (FileResult, Vec<StreamLog>) {
    match capture::open(path, opts) {
        Ok(cap) => lint_capture(cap, settings),
        Err(e) => (
            FileResult {
                path: path.to_string(),
                input_format: None,
                detail: "",
                error: Some(e.message),
                rules_run: pipeline::rules_run(settings),
                streams: Vec::new(),
            },
            Vec::new(),
        ),
    }
}

/// Lints every stream of an opened capture, recording events and
/// timelines.
pub fn lint_capture(cap: capture::Capture, settings: &Settings) -> (FileResult, Vec<StreamLog>) {
    let mut logs = Vec::new();
    let mut streams: Vec<StreamResult> = Vec::new();
    for s in cap.streams {
        let url = s.request.as_ref().map(|r| r.url.clone());
        let mut log = StreamLog::new(url.as_deref(), s.timing.clone(), settings.stall_ms);
        let rs = pipeline::lint_streams_with(
            s,
            settings,
            &mut log,
            pipeline::Extras {
                fields: false,
                summaries: true,
            },
        );
        if let Some(t) = log.timeline.as_mut() {
            t.finish();
        }
        // A WebSocket's responses (several results of one stream): the
        // socket's one log goes with the first, the others have none.
        let mut log = Some(log);
        for r in rs {
            streams.push(r);
            logs.push(log.take().unwrap_or_default());
        }
    }
    (
        FileResult {
            path: cap.path,
            input_format: Some(cap.input_format),
            detail: cap.detail,
            error: None,
            rules_run: pipeline::rules_run(settings),
            streams,
        },
        logs,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinning_keeps_the_first_and_bounds_the_points() {
        let mut t = Timeline::default();
        for i in 0..10_000u64 {
            t.push(Point {
                ms: i as f64,
                bytes: i,
                chars: i,
            });
        }
        t.finish();
        assert!(t.points.len() <= MAX_POINTS + 1, "{}", t.points.len());
        assert_eq!(t.points[0].ms, 0.0);
        assert_eq!(t.points.last().map(|p| p.ms), Some(9999.0));
        assert!(t.points.windows(2).all(|w| w[0].ms < w[1].ms));
    }

    #[test]
    fn cut_counts_what_it_leaves_out() {
        assert_eq!(cut("héllo", 3), ("hél".to_string(), 2));
        assert_eq!(cut("a\u{1b}b", 10).1, 0);
        assert!(!cut("a\u{1b}b", 10).0.contains('\u{1b}'));
    }
}
