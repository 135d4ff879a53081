//! Whole-stream rules, run once the body has ended: transport
//! (`http-status`, `content-type`, `body-not-sse`, `capture-truncated`),
//! then the dialect's own ending rules: a Responses or Messages stream's
//! checker judges its own, Chat's are in [`crate::dialect::chat`], and a
//! stream of no known dialect gets `unknown-format`.
//!
//! One root cause gives one diagnostic: a non-2xx status silences the body
//! rules; capture damage (which the dialect's rules hear of) replaces
//! `cut-off`.

use super::Linter;
use crate::capture::har::media_type;
use crate::capture::Truncation;
use crate::lint::{Finding, Location, Severity};
use crate::model::assembly::Ending;
use crate::model::error_message;
use crate::model::shorten;
use serde_json::Value;

impl Linter<'_> {
    /// A location for whole-body findings: the start of the body.
    pub(super) fn body_start(&self) -> Location {
        let text = self.head.split(|b| *b == b'\n').next().unwrap_or(&[]);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        let mut l = Location::in_line(text, 0, 1, 0, text.len().min(200));
        self.to_file(&mut l);
        l
    }

    pub(super) fn finish_stream(&mut self, evidence: &[Truncation]) {
        let http = self.ctx.http.clone();
        let head_json: Option<Value> = serde_json::from_slice(trim(&self.head)).ok();
        let socket = self.transport.is_socket();
        if let Some(h) = http.as_ref().filter(|h| h.status != 0) {
            // A socket's handshake succeeds with 101 Switching Protocols.
            if !((200..300).contains(&h.status) || (socket && h.status == 101)) {
                let detail = head_json
                    .as_ref()
                    .map(|v| error_message(v.get("error").unwrap_or(v)))
                    .or_else(|| {
                        let t = String::from_utf8_lossy(trim(&self.head)).into_owned();
                        (!t.is_empty()).then(|| format!("{:?}", shorten(&t, 160)))
                    })
                    .unwrap_or_else(|| "(empty body)".to_string());
                let loc = self.body_start();
                self.report(Finding::new(
                    crate::lint::rule::HTTP_STATUS,
                    format!(
                        "HTTP status {}{}: the request failed before streaming; the body says {detail}",
                        h.status,
                        // HTTP/2 and HAR entries often have no reason phrase.
                        match h.reason.trim() {
                            "" => String::new(),
                            r => format!(" {r}"),
                        }
                    ),
                    loc,
                ));
                return;
            }
            let ct = h.content_type.as_deref().map(media_type);
            if socket {
                // A socket's messages have no Content-Type.
            } else if self.transport != crate::transport::Transport::Sse {
                self.check_message_content_type(h.content_type.as_deref(), ct.as_deref());
            } else if ct.as_deref() != Some("text/event-stream") {
                let ignored = head_json
                    .as_ref()
                    .and_then(|v| v.get("object"))
                    .and_then(Value::as_str)
                    == Some("chat.completion");
                let other = h
                    .content_type
                    .as_deref()
                    .and_then(crate::transport::Transport::of_media_type);
                let loc = self.body_start();
                self.report(Finding::new(
                    crate::lint::rule::CONTENT_TYPE,
                    match (&h.content_type, ignored) {
                        (_, true) => "the response is `application/json` with one chat.completion object: the server ignored `\"stream\": true`".to_string(),
                        // A type that names another transport: the body
                        // was read as its bytes show (`transport::settle`).
                        (Some(c), false) if other.is_some() => format!(
                            "Content-Type is {c:?}, which names {}, but the body is {} (text/event-stream): it is read as its bytes show; a client that goes by the type reads it with the wrong parser, and browsers' EventSource refuses it",
                            other.map_or("", |t| t.what()),
                            crate::transport::Transport::Sse.what()
                        ),
                        (Some(c), false) => format!(
                            "Content-Type is {c:?}, not text/event-stream: browsers' EventSource refuses the stream and proxies may buffer it whole"
                        ),
                        (None, false) => "the response has no Content-Type; clients and proxies cannot tell it is an event stream".to_string(),
                    },
                    loc,
                ));
            }
        }
        let cut_reasons: Vec<&str> = evidence
            .iter()
            .filter(|t| !t.by_capture)
            .map(|t| t.reason.as_str())
            .collect();
        // Reported once the dialect has read the ending, whose state sets
        // the level (`truncated_level`).
        let truncated: Vec<Finding> = evidence
            .iter()
            .filter(|t| t.by_capture)
            .map(|t| {
                Finding::new(
                    crate::lint::rule::CAPTURE_TRUNCATED,
                    format!(
                        "{}; the capture is incomplete, so how it ends says nothing about the server",
                        t.reason
                    ),
                    self.last_location(),
                )
                .help("capture again (with `sselint record`, or a browser export with full bodies) to judge the ending")
            })
            .collect();
        let body_blank = trim(&self.head).is_empty();
        if self.transport == crate::transport::Transport::Sse && self.sse_lines == 0 && !body_blank
        {
            let loc = self.body_start();
            // A body a dialect names (its answer in a shape that is no
            // event stream) is read as that dialect's.
            let named = match &head_json {
                _ if self.unframed => None,
                Some(v) => crate::dialect::sniff_body(v),
                None => {
                    let head = trim(&self.head);
                    let text = match std::str::from_utf8(head) {
                        Ok(t) => t,
                        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or(""),
                    };
                    crate::dialect::sniff_cut_body(text)
                }
            };
            if let Some((d, _)) = &named {
                if self.dialect.is_none() {
                    self.settle(*d);
                }
            }
            let what = match &head_json {
                _ if self.unframed => "binary bytes, not SSE text, not NDJSON lines, and no AWS event-stream frame (no sound 12-byte prelude at its start)".to_string(),
                _ if named.is_some() => named.map(|(_, what)| what).unwrap_or_default(),
                Some(v) if v.get("error").is_some_and(|e| !e.is_null()) => {
                    "a bare JSON error object".to_string()
                }
                Some(v) if v.get("object").and_then(Value::as_str) == Some("chat.completion") => {
                    "one non-streamed chat.completion object (the server ignored `\"stream\": true`)".to_string()
                }
                Some(v) => format!("a JSON {}", crate::model::json_type(v)),
                None => "text with no SSE field lines".to_string(),
            };
            let f = if self.unframed {
                Finding::new(
                    crate::lint::rule::BODY_NOT_SSE,
                    format!("the body is {what}: no client reads it as a stream, and sselint read no event in it"),
                    loc,
                )
                .help({
                    // The binary transports (AWS event stream), and the
                    // dialects that ride on them.
                    let binary: Vec<crate::transport::Transport> = crate::transport::ALL
                        .iter()
                        .copied()
                        .filter(|t| t.is_binary())
                        .collect();
                    let media: Vec<&str> = binary.iter().map(|t| t.media_type()).collect();
                    let names: Vec<&str> = binary
                        .iter()
                        .flat_map(|t| crate::dialect::riding_on(*t))
                        .map(|d| d.name())
                        .collect();
                    format!(
                        "if it is an AWS event stream whose first frame is damaged, its Content-Type ({}), its path or `--dialect {}` frames it as one and points at the fault",
                        media.join(", "),
                        names.join("|")
                    )
                })
            } else {
                Finding::new(
                    crate::lint::rule::BODY_NOT_SSE,
                    format!("the body is {what}, not an event stream: it has no `data:` lines, so SSE clients see no event at all"),
                    loc,
                )
                .help("stream `data: {json}` events, each followed by a blank line")
            };
            self.report(f);
        }
        let damaged = evidence.iter().any(|t| t.by_capture);
        // No event, no byte but whitespace, and neither `--dialect` nor the
        // request path names a dialect: there is no stream to judge as one.
        if body_blank && !damaged && self.events == 0 && self.dialect.is_none() {
            self.empty_body = true;
            let loc = self.body_start();
            self.report(
                Finding::new(
                    crate::lint::rule::EMPTY_BODY,
                    format!(
                        "the body is empty{}: not one event, so there is no answer and nothing says which dialect it was meant to be",
                        if self.head.is_empty() { "" } else { " (whitespace only)" }
                    ),
                    loc,
                )
                .help(format!("when generation fails, answer with a non-2xx status and a JSON error body; `--dialect {}` judges the empty stream by that dialect's rules", crate::vocab::names("|"))),
            );
            return;
        }
        // The rest is the dialect's: its checker judges the ending, and a
        // stream of no known dialect gets one finding. Binary bytes that
        // no transport framed are no dialect's: `body-not-sse` said so.
        if !self.unframed && !self.finish_unknown() {
            let closed = self.socket_closed.is_some();
            self.finish_dialect(damaged || closed, &cut_reasons, head_json.as_ref());
            if closed {
                self.report_socket_closed();
            }
        }
        let level = truncated_level(self.dialect_ending);
        for f in truncated {
            self.report(match level {
                Some(l) => f.level(l),
                None => f,
            });
        }
    }
}

/// `capture-truncated`'s level, from the ending the saved bytes reach, as
/// the clients of the record read them (`sselint rule capture-truncated`):
/// - part of an answer and no finish (cut off, `[DONE]` without a
///   finish): error, as a cut-off stream is in every dialect: replaying
///   it, the stream helpers raise or end with no finish;
/// - every finish, no `[DONE]`: the rule's default, a warning, as
///   `missing-done` is; no answer saved at all (an unreadable or absent
///   body): the default too, as there is no stream to replay;
/// - the whole ending, or an error the stream ended on: info; every client
///   reads the saved stream as meant, and the cut only lost what came after.
///
/// `None` (no dialect read the stream): the rule's default.
fn truncated_level(ending: Option<Ending>) -> Option<Severity> {
    match ending? {
        Ending::CutOff | Ending::DoneWithoutFinish => Some(Severity::Error),
        Ending::NoDone | Ending::Empty => None,
        Ending::Complete | Ending::Failed => Some(Severity::Info),
    }
}

/// `b` without leading and trailing ASCII whitespace (and a BOM).
fn trim(b: &[u8]) -> &[u8] {
    let b = b.strip_prefix(&[0xEF, 0xBB, 0xBF][..]).unwrap_or(b);
    let s = b
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(b.len());
    let e = b
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(s, |i| i + 1);
    &b[s..e]
}
