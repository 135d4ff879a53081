//! The typed checks and the JSON Schema (`rules/schemas/chunk.schema.json`)
//! agree on a corpus of mutated chunks: whenever a typed check reports a
//! structural or type problem of a chunk, the schema rejects that chunk
//! too, and a chunk the schema accepts gets no structural finding.

mod common;
use common::*;
use sselint::checks::chunk_schema;

/// Rules whose findings are about a chunk's JSON shape (types, required
/// keys, enum values), i.e. what the schema also describes.
const SHAPE_RULES: &[&str] = &[
    "schema",
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
        let shape: Vec<&str> = diags(&r)
            .iter()
            .map(|d| d.rule)
            .filter(|r| SHAPE_RULES.contains(r))
            .collect();
        let valid = chunk_schema().is_valid(chunk);
        if !shape.is_empty() && valid {
            disagreements.push(format!("{what}: typed {shape:?} but schema-valid"));
        }
        if shape.is_empty() && !valid {
            disagreements.push(format!("{what}: schema-invalid but no typed finding"));
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
