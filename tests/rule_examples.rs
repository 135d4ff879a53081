//! Every rule's documented examples are executed (biome's habit): an
//! invalid example must produce that rule exactly once (or `count` times
//! when it holds several faults on purpose), a valid one must not.

mod common;
use sselint::lint::catalogue;

fn rules_found(
    capture_bytes: &[u8],
    request: Option<&str>,
    limit: Option<usize>,
) -> Vec<&'static str> {
    common::lint_example(capture_bytes, request, limit)
        .iter()
        .map(|d| d.rule)
        .collect()
}

#[test]
fn every_rule_has_a_valid_and_an_invalid_example() {
    for r in catalogue().rules() {
        assert!(
            r.examples().iter().any(|e| e.valid),
            "{} has no valid example",
            r.name
        );
        assert!(
            r.examples().iter().any(|e| !e.valid),
            "{} has no invalid example",
            r.name
        );
    }
}

#[test]
fn invalid_examples_trigger_their_rule_and_valid_ones_do_not() {
    let mut failures = Vec::new();
    for r in catalogue().rules() {
        for (i, ex) in r.examples().iter().enumerate() {
            let found = rules_found(&ex.capture, ex.request.as_deref(), ex.max_event_bytes);
            // An invalid example holds one fault unless it says `count`:
            // the rule fires exactly that often, one root cause once.
            let hits = found.iter().filter(|f| **f == r.name).count();
            let want = if ex.valid { 0 } else { ex.count };
            if hits != want {
                failures.push(format!(
                    "{} example {i} ({}, {}): {hits} finding(s) of the rule, want {want}; found {:?}",
                    r.name,
                    if ex.valid { "valid" } else { "invalid" },
                    ex.note,
                    found
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} example(s) disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
