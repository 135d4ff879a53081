//! The typed checks and the JSON Schema (`rules/schemas/chunk.schema.json`)
//! agree on a corpus of mutated chunks: whenever a typed check reports a
//! structural or type problem of a chunk, the schema rejects that chunk
//! too; and the typed fast path never takes a chunk the schema rejects (so
//! the validator's `schema` rule sees it). The `schema` rule itself is not
//! counted as agreement: it is the validator's own verdict.

mod common;
use common::*;
use sselint::dialect::chat::chunk_schema;

/// Rules whose findings are about a chunk's JSON shape (types, required
/// keys, enum values), i.e. what the schema also describes. Not `schema`
/// itself: that rule is the validator's own verdict, so counting it would
/// make the schema agree with itself.
const SHAPE_RULES: &[&str] = &[
    "missing-field",
    "object-value",
    "created-value",
    "missing-choices",
    "missing-delta",
    "choice-index",
    "role-value",
    "finish-reason-value",
    "tool-call-index",
    "usage-shape",
];

#[test]
fn typed_checks_and_the_schema_agree_on_mutated_chunks() {
    let root = full_chunk();
    assert!(chunk_schema().is_valid(&root));
    let mut corpus = Vec::new();
    mutations(&root, &mut Vec::new(), &mut corpus, &root);
    assert!(corpus.len() > 200, "corpus of {}", corpus.len());
    let mut disagreements = Vec::new();
    for (what, chunk) in &corpus {
        let body = format!("data: {chunk}\n\ndata: [DONE]\n\n");
        let r = lint_bytes(body.as_bytes());
        // `choice-index` also judges the stream's numbering (an index that
        // drifts, a lone choice numbered other than 0): no schema of one
        // chunk says that, so only its findings on the chunk's own field
        // (`the choice's index is …`) count here.
        let shape: Vec<&str> = diags(&r)
            .iter()
            .filter(|d| d.rule != "choice-index" || d.message.starts_with("the choice's"))
            .map(|d| d.rule)
            .filter(|r| SHAPE_RULES.contains(r))
            .collect();
        let valid = chunk_schema().is_valid(chunk);
        if !shape.is_empty() && valid {
            disagreements.push(format!("{what}: typed {shape:?} but schema-valid"));
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} of {} disagree:\n{}",
        disagreements.len(),
        corpus.len(),
        disagreements
            .iter()
            .take(60)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn the_typed_fast_path_never_takes_a_chunk_the_schema_rejects() {
    let ordinary: serde_json::Value = serde_json::from_str(
        r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}"#,
    )
    .unwrap();
    assert!(chunk_schema().is_valid(&ordinary));
    let first = r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"#;
    let last = r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#;
    let typed = |chunk: &serde_json::Value| {
        let body = format!("data: {first}\n\ndata: {chunk}\n\ndata: {last}\n\ndata: [DONE]\n\n");
        lint_bytes(body.as_bytes()).streams[0].typed_chunks
    };
    // Not vacuous: the unmutated chunk does take the fast path.
    let base = typed(&ordinary);
    assert!(base >= 1, "the ordinary chunk took the general path");
    let mut corpus = Vec::new();
    mutations(&ordinary, &mut Vec::new(), &mut corpus, &ordinary);
    assert!(corpus.len() > 50, "corpus of {}", corpus.len());
    let mut wrong = Vec::new();
    let mut invalid = 0;
    for (what, chunk) in &corpus {
        if chunk_schema().is_valid(chunk) {
            continue;
        }
        invalid += 1;
        if typed(chunk) >= base {
            wrong.push(what.clone());
        }
    }
    assert!(invalid > 20, "only {invalid} schema-invalid mutations");
    assert!(
        wrong.is_empty(),
        "the fast path took schema-invalid chunks: {wrong:#?}"
    );
}
