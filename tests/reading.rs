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

#[test]
fn a_content_part_belongs_to_its_own_item_and_part_at_any_content_index() {
    // vLLM numbers a message item's only part 1 after a reasoning item.
    let r = lint_bytes(&example("responses-output-index", "vLLM:"));
    let all = diags(&r);
    assert_eq!(
        text0(&r),
        "The capital of France is Paris.",
        "the text is read once: {all:#?}"
    );
    for wrong in ["responses-delta-mismatch", "responses-output-mismatch"] {
        assert!(found(&r, wrong).is_empty(), "{wrong}: {all:#?}");
    }
    // The part does not append to its item's parts: the finding is there,
    // at the part's `content_index`.
    let d = all
        .iter()
        .find(|d| d.rule == "responses-output-index")
        .unwrap_or_else(|| panic!("{all:#?}"));
    assert_eq!(d.severity, Severity::Error);
    assert_eq!(d.pointer.as_deref(), Some("/content_index"));
}

#[test]
fn chat_content_given_as_an_array_of_typed_parts_is_assembled() {
    // Mistral's Magistral models: thinking parts, then text parts.
    let r = lint_bytes(&example("schema", "Mistral"));
    let all = diags(&r);
    assert_eq!(text0(&r), "The capital of France is Paris.", "{all:#?}");
    let c = &r.streams[0].answer.choices[&0];
    assert_eq!(c.reasoning.kept, "The user asks for France's capital.");
    assert!(found(&r, "empty-answer").is_empty(), "{all:#?}");
    // The shape keeps its finding, on the first array.
    let d = all
        .iter()
        .find(|d| d.rule == "schema")
        .unwrap_or_else(|| panic!("{all:#?}"));
    assert_eq!(d.severity, Severity::Error);
    assert_eq!(d.pointer.as_deref(), Some("/choices/0/delta/content"));
}
