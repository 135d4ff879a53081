//! The linting path: a stream's reads, handed over by the forwarding path
//! as they were forwarded, read by [`crate::pipeline::lint_stream`] from a
//! thread of their own as any streamed body is (`check -`), so memory is
//! the linter's state and the queue ([`super::forward::LINT_QUEUE_BYTES`]
//! reads), not the stream. With `--save`, the reads also go to a spool
//! (memory, then a temporary file) and the exchange is written as a HAR,
//! secrets masked, once the stream ends.

use super::forward::Asked;
use super::{Exchange, Shared, Stop};
use crate::capture::spool::{Spool, Spooled};
use crate::capture::{self, Body, Evidence, Header, Http, Read_, Stream, Truncation};
use crate::pipeline::NoObserver;
use bytes::Bytes;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::sync::mpsc;

/// The most of each text of an answer (its text, reasoning, refusal,
/// transcript) a stream's lint keeps while the stream is open: 64 KiB
/// (`check` keeps 1 MiB, [`crate::model::assembly::MAX_TEXT_BYTES`]).
/// Past it the text is counted and hashed, and the rules that read a
/// whole text skip it, as `check` does past its own cap; the record of
/// such a stream says so in its notes ([`text_past_cap_note`]), since
/// `check` of its saved HAR may then find more.
pub const LINT_TEXT_BYTES: usize = 64 * 1024;

/// The most of each text of an answer (its text, reasoning, refusal,
/// transcript) the report keeps: 4 KiB; the rest is counted in the
/// report (`text_omitted_bytes`), and `--save`'s HAR has it whole.
pub const REPORT_TEXT_BYTES: usize = 4 * 1024;

/// One upstream read: its bytes, when they came, and its room in the
/// queue (given back when the lint has read it).
pub(crate) type Read = (Bytes, Instant, tokio::sync::OwnedSemaphorePermit);

/// Where the forwarding path says how the stream ended, before it lets
/// the lint's queue close.
#[derive(Clone, Default)]
pub(crate) struct StopSlot(Arc<Mutex<Option<Stop>>>);

impl StopSlot {
    pub(crate) fn set(&self, stop: Stop) {
        if let Ok(mut s) = self.0.lock() {
            s.get_or_insert(stop);
        }
    }

    fn get(&self) -> Stop {
        self.0
            .lock()
            .ok()
            .and_then(|s| s.clone())
            .unwrap_or(Stop::Complete)
    }
}

/// The response head, its secret headers redacted.
pub(crate) struct Head {
    pub(crate) status: u16,
    pub(crate) reason: String,
    pub(crate) headers: Vec<Header>,
}

/// Whether the request asked for a stream, so that an error answer to it
/// is linted (and reported) as the stream it replaced: `"stream": true`,
/// or, with no `stream` field, an API that streams by its path or unless
/// told not to (what [`crate::live::prepare_body`] makes of an empty
/// request says which).
pub(crate) fn asked_to_stream(asked: &Asked) -> bool {
    let Some(d) = asked.dialect else {
        return false;
    };
    let body: serde_json::Value = asked
        .body
        .lock()
        .ok()
        .and_then(|b| b.as_ref().and_then(|b| serde_json::from_slice(b).ok()))
        .unwrap_or(serde_json::Value::Null);
    match body.get("stream").and_then(serde_json::Value::as_bool) {
        Some(s) => s,
        None => {
            let api = d.api();
            api.unstream_field().is_some()
                || api.stream_query().is_some()
                || crate::live::prepare_body(serde_json::json!({}), false, d)
                    .is_ok_and(|b| b.get("stream").is_none())
        }
    }
}

/// What the reader saw, for the record and the HAR.
#[derive(Default)]
struct Seen {
    first: Option<Instant>,
    last: Option<Instant>,
    reads: Vec<Read_>,
    len: u64,
    spool: Option<Spool>,
}

/// The lint's side of the queue, as a reader. At its end it notes how
/// the stream ended as truncation evidence ([`evidence_of`]), which the
/// ending rules read once the body is over: the forwarding path sets the
/// slot before it lets the queue close.
struct Queue {
    rx: mpsc::UnboundedReceiver<Read>,
    now: Bytes,
    /// `now`'s room in the queue, given back with the next read.
    room: Option<tokio::sync::OwnedSemaphorePermit>,
    start: Instant,
    seen: Arc<Mutex<Seen>>,
    slot: StopSlot,
    evidence: Evidence,
}

impl std::io::Read for Queue {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.now.is_empty() {
            self.room = None;
            let Some((bytes, at, room)) = self.rx.blocking_recv() else {
                if let (Some(t), Ok(mut v)) = (evidence_of(&self.slot.get()), self.evidence.lock())
                {
                    if !v.contains(&t) {
                        v.push(t);
                    }
                }
                return Ok(0);
            };
            if let Ok(mut s) = self.seen.lock() {
                s.first.get_or_insert(at);
                s.last = Some(at);
                let offset = s.len;
                s.len += bytes.len() as u64;
                // The reads' times are the saved HAR's alone.
                if let Some(sp) = s.spool.as_mut() {
                    sp.extend(&bytes);
                    s.reads.push(Read_ {
                        offset,
                        ms: at.duration_since(self.start).as_secs_f64() * 1000.0,
                    });
                }
            }
            self.now = bytes;
            self.room = Some(room);
        }
        let n = buf.len().min(self.now.len());
        buf[..n].copy_from_slice(&self.now[..n]);
        let _ = self.now.split_to(n);
        Ok(n)
    }
}

/// Starts the lint of one stream on a thread of its own; it ends when the
/// queue closes, and hands the exchange to [`Shared::finish`].
///
/// # Errors
/// The thread could not be started.
pub(crate) fn spawn(
    rx: mpsc::UnboundedReceiver<Read>,
    asked: Asked,
    head: Head,
    slot: StopSlot,
    shared: Arc<Shared>,
) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name(format!("sselint-lint-{}", asked.index))
        .spawn(move || {
            let ex = lint(rx, asked, head, &slot, &shared);
            shared.finish(ex);
            shared.open.fetch_sub(1, Ordering::SeqCst);
        })
        .map(|_| ())
}

fn lint(
    rx: mpsc::UnboundedReceiver<Read>,
    asked: Asked,
    head: Head,
    slot: &StopSlot,
    shared: &Shared,
) -> Exchange {
    let options = &shared.options;
    let seen = Arc::new(Mutex::new(Seen {
        spool: options.save.as_ref().map(|_| Spool::default()),
        ..Seen::default()
    }));
    let evidence = Evidence::default();
    let queue = Queue {
        rx,
        now: Bytes::new(),
        room: None,
        start: asked.start,
        seen: seen.clone(),
        slot: slot.clone(),
        evidence: evidence.clone(),
    };
    let encoding = capture::find_header(&head.headers, "content-encoding")
        .and_then(capture::decode::Encoding::from_header);
    let reader: Box<dyn std::io::Read + Send> = match encoding {
        Some(enc) => capture::decode::decoder(
            enc,
            Box::new(queue),
            evidence.clone(),
            capture::decode::MAX_DECODED_BYTES,
        ),
        None => Box::new(queue),
    };
    let request_body = asked
        .body
        .lock()
        .ok()
        .and_then(|b| b.as_ref().map(|b| String::from_utf8_lossy(b).into_owned()));
    let request = capture::Request {
        method: asked.method.clone(),
        url: asked.url.clone(),
        headers: asked.headers.clone(),
        body: request_body.as_deref().map(capture::redact_keys),
    };
    let mut stream = Stream::new(
        format!("#{} {} {}", asked.index, asked.method, asked.path),
        Body::Reader(reader),
    );
    stream.http = Some(Http {
        status: head.status,
        reason: head.reason.clone(),
        version: "HTTP/1.1".into(),
        headers: head.headers.clone(),
        content_type: capture::find_header(&head.headers, "content-type").map(str::to_string),
    });
    // The lint reads the request's own body (what it asked for); the HAR
    // keeps it with keys masked.
    stream.request = Some(capture::Request {
        body: request_body,
        ..request.clone()
    });
    stream.evidence = evidence.clone();
    let mut result = crate::model::assembly::with_text_cap(LINT_TEXT_BYTES, || {
        crate::pipeline::lint_stream(stream, &options.settings, &mut NoObserver)
    });
    // A text past the lint's cap was not read whole by the rules that
    // read a whole text, where `check` of the saved HAR (1 MiB) may read
    // it: the record says so.
    let mut past_cap = Vec::new();
    for (i, c) in &result.answer.choices {
        for (what, t) in [
            ("text", &c.text),
            ("reasoning", &c.reasoning),
            ("transcript", &c.transcript),
        ]
        .into_iter()
        .chain(c.refusal.as_ref().map(|r| ("refusal", r)))
        {
            if t.dropped > 0 {
                past_cap.push(text_past_cap_note(*i, what, t.received()));
            }
        }
    }
    result.notes.extend(past_cap);
    // The record lives until the report: its texts are kept short.
    for c in result.answer.choices.values_mut() {
        for t in [&mut c.text, &mut c.reasoning, &mut c.transcript]
            .into_iter()
            .chain(c.refusal.as_mut())
        {
            t.keep_at_most(REPORT_TEXT_BYTES);
        }
    }
    // What the upstream quoted of the request's secret header values
    // (an error message naming the key it got) is masked in the record,
    // as in the saved HAR: every report renders from it.
    mask_result(&mut result, &asked.secrets);
    let stop = slot.get();
    let seen = match Arc::try_unwrap(seen) {
        Ok(m) => m.into_inner().unwrap_or_default(),
        Err(shared_seen) => shared_seen
            .lock()
            .map(|mut s| std::mem::take(&mut *s))
            .unwrap_or_default(),
    };
    let ms = |at: Option<Instant>| at.map(|t| t.duration_since(asked.start).as_secs_f64() * 1000.0);
    let duration_ms = asked.start.elapsed().as_secs_f64() * 1000.0;
    let mut ex = Exchange {
        index: asked.index,
        method: asked.method.clone(),
        path: asked.path.clone(),
        status: head.status,
        dialect: asked.dialect.or(result.dialect),
        ttft_ms: ms(seen.first),
        duration_ms,
        stop,
        result: Some(result),
        saved: None,
        save_error: None,
        failed: None,
        upgrade: None,
    };
    if let (Some(dir), Some(spool)) = (&options.save, seen.spool) {
        let rec = crate::live::Recording {
            request,
            status: head.status,
            reason: head.reason,
            version: "HTTP/1.1".into(),
            headers: head.headers,
            body: Vec::new(),
            reads: seen.reads,
            started: asked.started,
            wait_ms: ms(seen.first).unwrap_or(duration_ms),
            total_ms: duration_ms,
            stop: match &ex.stop {
                Stop::Complete => crate::live::Stop::Complete,
                Stop::UpstreamCut(e) => crate::live::Stop::ConnectionError(e.clone()),
                Stop::ClientGone => crate::live::Stop::HungUp,
                Stop::Shutdown => crate::live::Stop::Interrupted,
            },
            decoded: None,
        };
        let name = format!(
            "{:04}-{}.har",
            asked.index,
            ex.dialect.map_or("stream", |d| d.name())
        );
        let path = dir.join(name);
        match save(rec, spool, &asked.secrets, &path) {
            Ok(()) => ex.saved = Some(path),
            Err(e) => ex.save_error = Some(format!("{}: {e}", path.display())),
        }
    }
    ex
}

/// Writes the exchange's HAR atomically, every secret header value the
/// client sent masked wherever the response quotes it.
fn save(
    mut rec: crate::live::Recording,
    spool: Spool,
    secrets: &[String],
    path: &std::path::Path,
) -> Result<(), String> {
    let mut body: Spooled = spool.finish().map_err(|e| e.to_string())?;
    for key in secrets {
        body =
            crate::live::mask_echoed_key_spooled(&mut rec, body, key).map_err(|e| e.to_string())?;
    }
    let mut file = crate::output::Streamed::create(path).map_err(|e| e.to_string())?;
    rec.write_har(&body, &mut file)
        .and_then(|()| file.commit())
        .map_err(|e| e.to_string())
}

/// `text` with each of `secrets` (the request's secret header values, 8
/// bytes or more, as the saved HAR masks them) and whatever
/// [`capture::redact_keys`] masks replaced by `[REDACTED]`.
pub fn mask_text(text: &str, secrets: &[String]) -> String {
    let mut out = text.to_string();
    for key in secrets.iter().filter(|k| k.len() >= 8) {
        if out.contains(key.as_str()) {
            out = out.replace(key.as_str(), capture::REDACTED);
        }
    }
    capture::redact_keys(&out)
}

/// Masks ([`mask_text`]) every text of a stream's lint that a report
/// shows: the findings' messages, hints and source lines (their spans
/// moved with the text), the notes, the read error and the answer's
/// texts, finish reasons and tool calls.
pub fn mask_result(result: &mut crate::pipeline::StreamResult, secrets: &[String]) {
    let m = |t: &mut String| {
        let masked = mask_text(t, secrets);
        if masked != *t {
            *t = masked;
        }
    };
    for d in &mut result.diagnostics {
        m(&mut d.message);
        if let Some(h) = &mut d.help {
            m(h);
        }
        if let Some(src) = &mut d.location.source {
            let (s, e) = src.span;
            let before = src.text.get(..s).map(|t| mask_text(t, secrets));
            let through = src.text.get(..e).map(|t| mask_text(t, secrets));
            let masked = mask_text(&src.text, secrets);
            if masked != src.text {
                // A span inside a masked value points at the mask.
                let s = before.map_or(0, |t| t.len()).min(masked.len());
                let e = through.map_or(s, |t| t.len()).clamp(s, masked.len());
                src.span = (s, e);
                src.text = masked;
            }
        }
    }
    result.notes.iter_mut().for_each(m);
    if let Some(e) = &mut result.read_error {
        m(e);
    }
    if let Some(e) = &mut result.answer.empty {
        m(e);
    }
    for c in result.answer.choices.values_mut() {
        for t in [&mut c.text, &mut c.reasoning, &mut c.transcript]
            .into_iter()
            .chain(c.refusal.as_mut())
        {
            m(&mut t.kept);
        }
        if let Some(f) = &mut c.finish_reason {
            m(f);
        }
        for call in c.tool_calls.values_mut() {
            m(&mut call.arguments);
            for x in [&mut call.id, &mut call.name].into_iter().flatten() {
                m(x);
            }
        }
    }
}

/// The note of a record whose choice `index` had a `what` (text,
/// reasoning, refusal, transcript) of `bytes`, past [`LINT_TEXT_BYTES`].
pub fn text_past_cap_note(index: u64, what: &str, bytes: u64) -> String {
    format!(
        "choice {index}'s {what} is {bytes} bytes, past the {} KiB of a text the proxy's lint keeps: the rules that read a whole text did not read it, so `check` of the saved exchange (which keeps 1 MiB) may find more",
        LINT_TEXT_BYTES / 1024
    )
}

/// The truncation evidence for a stop (none for a complete stream).
fn evidence_of(stop: &Stop) -> Option<Truncation> {
    match stop {
        Stop::Complete => None,
        Stop::UpstreamCut(e) => Some(Truncation {
            reason: format!("the upstream connection broke mid-body ({e})"),
            by_capture: false,
        }),
        Stop::ClientGone => Some(Truncation {
            reason: "the client disconnected before the end; the proxy closed the upstream request"
                .into(),
            by_capture: true,
        }),
        Stop::Shutdown => Some(Truncation {
            reason: "the proxy stopped while the stream was open and cut it".into(),
            by_capture: true,
        }),
    }
}
