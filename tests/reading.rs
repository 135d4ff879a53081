//! sselint reads a stream as the clients read it (issue 26, item 4): what
//! the spec does not dispatch is not assembled, and shapes that real
//! servers send are assembled into the answer their clients show.

mod common;
use common::*;
use sselint::lint::Severity;
use sselint::model::assembly::Ending;

fn example(rule: &str, note_starts: &str) -> Vec<u8> {
    let r = sselint::lint::catalogue()
        .rules()
        .find(|r| r.name == rule)
        .unwrap_or_else(|| panic!("no rule {rule}"));
    r.examples()
        .iter()
        .find(|e| e.note.starts_with(note_starts))
        .unwrap_or_else(|| panic!("{rule}: no example {note_starts:?}"))
        .capture
        .clone()
}

fn found(r: &sselint::pipeline::FileResult, rule: &str) -> Vec<Severity> {
    diags(r)
        .into_iter()
        .filter(|d| d.rule == rule)
        .map(|d| d.severity)
        .collect()
}

#[test]
fn an_event_without_its_blank_line_at_eof_is_not_read() {
    // Messages: `message_stop` is discarded, so the stream ends without it.
    let r = lint_bytes(&example("unterminated-event", "Messages:"));
    assert!(
        found(&r, "messages-stop-missing") == [Severity::Error],
        "{:#?}",
        diags(&r)
    );
    assert_eq!(found(&r, "unterminated-event"), [Severity::Error]);
    // The finding points at the undispatched bytes: the tail's first line.
    let d = diags(&r)
        .into_iter()
        .find(|d| d.rule == "unterminated-event")
        .unwrap();
    assert_eq!(d.location.line, 16, "{d:?}");
    assert_eq!(
        d.location.source.as_ref().map(|s| s.text.as_str()),
        Some("event: message_stop")
    );

    // Responses: `response.completed` is discarded; the stream is cut.
    let r = lint_bytes(&example("unterminated-event", "Responses:"));
    assert_eq!(found(&r, "unterminated-event"), [Severity::Error]);
    assert_ne!(r.streams[0].ending, Ending::Complete, "{:#?}", diags(&r));

    // Chat: the finish chunk is discarded; no finish_reason arrived.
    let r = lint_bytes(&example("unterminated-event", "Chat:"));
    assert_eq!(found(&r, "unterminated-event"), [Severity::Error]);
    assert_eq!(r.streams[0].answer.choices[&0].finish_reason, None);
    assert_eq!(text0(&r), "Hi");

    // A `[DONE]` without its blank line: the stream ended at the close
    // after its finish_reason, which loses nothing (info, and no
    // `missing-done` for the same cause).
    let r = lint_bytes(&example(
        "unterminated-event",
        "[DONE] followed by a single",
    ));
    assert_eq!(found(&r, "unterminated-event"), [Severity::Info]);
    assert!(found(&r, "missing-done").is_empty(), "{:#?}", diags(&r));
}
