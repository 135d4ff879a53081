//! The rule names and codes are an interface: this snapshot fails when one
//! is renamed, renumbered or removed (cargo-deny's habit). Adding a rule
//! means accepting the new snapshot.

use sselint::lint::{catalogue, profile};

#[test]
fn rule_names_and_codes_never_change() {
    let list: Vec<String> = catalogue()
        .rules()
        .map(|r| format!("{} {} {} {}", r.code, r.name, r.group, r.severity))
        .collect();
    insta::assert_snapshot!(list.join("\n"));
}

#[test]
fn codes_and_names_are_unique_and_well_formed() {
    let mut names = std::collections::BTreeSet::new();
    let mut codes = std::collections::BTreeSet::new();
    for r in catalogue().rules() {
        assert!(names.insert(r.name), "duplicate name {}", r.name);
        assert!(codes.insert(r.code), "duplicate code {}", r.code);
        assert!(
            r.name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "{}",
            r.name
        );
        assert!(
            !r.summary.is_empty() && !r.rationale.trim().is_empty() && !r.fix.trim().is_empty(),
            "{}",
            r.name
        );
    }
}

#[test]
fn profiles_name_real_rules_and_well_formed_pointers() {
    for p in profile::profiles() {
        for rule in p.severity.keys() {
            assert!(
                catalogue().get(rule).is_some(),
                "profile {} changes unknown rule {rule}",
                p.name
            );
        }
        for e in &p.extensions {
            assert!(
                e.pointer.starts_with('/'),
                "profile {}: {}",
                p.name,
                e.pointer
            );
        }
    }
    assert!(profile::profile("openai").is_some() && profile::profile("strict").is_some());
}
