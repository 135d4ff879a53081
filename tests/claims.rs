//! Claims about clients are data (issue 26, item 2): a finding's message
//! or a rule's text may say what clients do only when `rules/observed.json`
//! holds an observation of it. Names and versions are never written into
//! a message or a rule text (`tests/observed.rs` checks that): `sselint
//! rule NAME` renders them from the record, in its "Observed in clients"
//! table, and rule texts point at that table.
//!
//! A claim is a sentence that has a client for subject (`client`, `SDK`,
//! `helper`, `parser`, `application`, …) and says what it does. Three kinds
//! are told apart by their words, each needing its own observation among
//! the captures where the rule fired (every rule example, sample and case
//! of the corpus is linted, and the record has each one's outcomes, each
//! client judged against what it does with its dialect's reference stream):
//! - **raise** (`raise`, `throw`, `crash`, `reject`, `fail`): some client
//!   raised;
//! - **lose** (`lose`, `drop`, `miss`, `show nothing`, `another text`, …):
//!   some client ended with another text, tool calls or finish;
//! - **read** (`read on`, `read past`, `lose nothing`, `harmless`, …): on
//!   some such capture no client broke.
//!
//! Conditional claims ("clients that wait for X raise") are claims too:
//! their kind of outcome must have been seen.

mod common;
use common::{awaits_clients, lint_example, lint_file, not_run, root};
use sselint::lint::observed::{designed_exception, record, Capture, Record, Verdict};
use sselint::lint::{catalogue, Severity};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// The kinds of claim, in the order they are looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Read,
    Raise,
    Lose,
}

/// Words that make a sentence speak of a client.
const SUBJECTS: &[&str] = &[
    "client",
    "sdk",
    "helper",
    "parser",
    "application",
    "consumer",
    "library",
    "libraries",
    "loop",
];

/// Benign phrases, looked for (and taken out) first, so that "loses
/// nothing" is not read as "loses".
const READ: &[&str] = &[
    "read on",
    "reads on",
    "read past",
    "reads past",
    "read it as meant",
    "read as meant",
    "read the answer as meant",
    "lose nothing",
    "loses nothing",
    "lost nothing",
    "nothing is lost",
    "costs nothing",
    "harmless",
    "no client",
];

const RAISE: &[&str] = &["raise", "throw", "crash", "reject", "exception", "fail"];

const LOSE: &[&str] = &[
    "lose",
    "lost",
    "drop",
    "miss ",
    "misses",
    "show nothing",
    "shows nothing",
    "show an empty",
    "shows an empty",
    "get an empty",
    "another text",
    "wrong text",
    "truncat",
    "cut short",
    "never see",
    "never get",
    "get none",
    "gets none",
    "get nothing",
    "doubled",
    "split the answer",
];

/// The claims of a text: (kind, sentence), sentences split at `.`, `;`
/// and `:`.
fn claims(text: &str) -> Vec<(Kind, String)> {
    let low = text.to_lowercase().replace('\n', " ");
    let mut out = Vec::new();
    for sentence in low.split(['.', ';']) {
        // Words are matched at their start (" lose" is not in "closes").
        let words: String = format!(
            " {}",
            sentence
                .chars()
                .map(|c| if c.is_alphanumeric() || c == '@' {
                    c
                } else {
                    ' '
                })
                .collect::<String>()
        );
        let has = |w: &str| words.contains(&format!(" {w}"));
        if !SUBJECTS.iter().any(|s| has(s)) {
            continue;
        }
        let mut rest = words.clone();
        for p in READ {
            if rest.contains(&format!(" {p}")) {
                out.push((Kind::Read, sentence.trim().to_string()));
                rest = rest.replace(&format!(" {p}"), " ");
            }
        }
        if RAISE.iter().any(|w| rest.contains(&format!(" {w}"))) {
            out.push((Kind::Raise, sentence.trim().to_string()));
        }
        if LOSE.iter().any(|w| rest.contains(&format!(" {w}"))) {
            out.push((Kind::Lose, sentence.trim().to_string()));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The kinds of outcome a capture's clients showed.
fn shown(rec: &Record, cap: &Capture) -> BTreeSet<Kind> {
    let mut k = BTreeSet::new();
    for (n, o) in &cap.clients {
        // A designed exception is read as a faithful reading (a warning),
        // but the raise happened: a text may say the helper raises.
        if designed_exception(cap, o) {
            k.insert(Kind::Raise);
        }
        match rec.verdict(cap, n, o) {
            Verdict::Raised => {
                k.insert(Kind::Raise);
            }
            Verdict::Differs => {
                k.insert(Kind::Lose);
            }
            _ => {}
        }
    }
    if rec.severity(cap) < Severity::Error {
        k.insert(Kind::Read);
    }
    k
}

/// Every capture of the corpus with its findings (rule, message), as the
/// harness replays it (a file's first stream).
fn corpus() -> Vec<(String, Vec<(&'static str, String)>)> {
    let mut out = Vec::new();
    for r in catalogue().rules() {
        for (i, ex) in r.examples().iter().enumerate() {
            let found = lint_example(&ex.capture, ex.request.as_deref(), ex.max_event_bytes);
            out.push((
                format!("{}#{}", r.file, i + 1),
                found.into_iter().map(|d| (d.rule, d.message)).collect(),
            ));
        }
    }
    let rec = record();
    for id in rec.captures.keys().filter(|id| !id.starts_with("rules/")) {
        let p: PathBuf = root().join(id);
        let res = lint_file(&p);
        let found = res
            .streams
            .into_iter()
            .next()
            .map(|s| s.diagnostics)
            .unwrap_or_default();
        out.push((
            id.clone(),
            found.into_iter().map(|d| (d.rule, d.message)).collect(),
        ));
    }
    out
}

#[test]
fn the_claim_finder_reads_the_three_kinds() {
    let got = |t: &str| claims(t).into_iter().map(|(k, _)| k).collect::<Vec<_>>();
    assert_eq!(got("clients that wait for it raise"), [Kind::Raise]);
    assert_eq!(got("clients read on; nothing is lost"), [Kind::Read]);
    assert_eq!(got("the client loses nothing it shows"), [Kind::Read]);
    assert_eq!(got("so the client shows nothing"), [Kind::Lose]);
    // No client for subject: the spec's own behaviour is no claim.
    assert!(got("the spec discards it at end of stream").is_empty());
}

#[test]
fn every_claim_about_clients_was_observed() {
    let rec = record();
    // rule → kinds of outcome seen on captures where it fired, and on its
    // own examples.
    let mut seen: BTreeMap<&str, BTreeSet<Kind>> = BTreeMap::new();
    // (rule, kind) → one message that claims it.
    let mut claimed: BTreeMap<(&str, Kind), (String, String)> = BTreeMap::new();
    let mut messages = 0;
    for (id, found) in corpus() {
        let Some(cap) = rec.captures.get(&id) else {
            continue;
        };
        let kinds = shown(rec, cap);
        for (rule, message) in &found {
            messages += 1;
            seen.entry(rule).or_default().extend(kinds.iter().copied());
            for (kind, sentence) in claims(message) {
                claimed
                    .entry((rule, kind))
                    .or_insert_with(|| (id.clone(), sentence));
            }
        }
        if let Some(rule) = id
            .strip_prefix("rules/")
            .and_then(|r| r.split('#').next())
            .and_then(|f| catalogue().rules().find(|r| r.file == format!("rules/{f}")))
        {
            seen.entry(rule.name).or_default().extend(kinds);
        }
    }
    assert!(messages > 300, "only {messages} findings in the corpus");
    let mut texts = 0;
    for r in catalogue().rules() {
        let mut all: Vec<String> = vec![r.summary.into(), r.rationale.into(), r.fix.into()];
        all.extend(r.severity_basis.map(String::from));
        all.extend(r.examples().iter().map(|e| e.note.clone()));
        for t in &all {
            texts += 1;
            for (kind, sentence) in claims(t) {
                claimed
                    .entry((r.name, kind))
                    .or_insert_with(|| (format!("{} (rule text)", r.file), sentence));
            }
        }
    }
    assert!(texts > 100, "only {texts} rule texts");
    assert!(
        claimed.len() > 20,
        "the claim finder found only {} claims: it no longer reads the texts",
        claimed.len()
    );
    let mut unobserved = Vec::new();
    for ((rule, kind), (at, sentence)) in &claimed {
        let dialect = catalogue().get(rule).and_then(|r| r.dialect);
        if dialect.is_some_and(|d| awaits_clients(d.name())) {
            not_run(
                "every_claim_about_clients_was_observed",
                &format!("{rule}: no client of its dialect in rules/observed.json yet (claimed: \"{sentence}\")"),
            );
            continue;
        }
        let ok = seen.get(rule).is_some_and(|k| k.contains(kind));
        if !ok {
            unobserved.push(format!(
                "{rule}: {kind:?} claimed in {at}: \"{sentence}\"; the record shows {:?}",
                seen.get(rule)
            ));
        }
    }
    assert!(
        unobserved.is_empty(),
        "{} claims about clients that rules/observed.json does not show (reword them, or observe the shape):\n{}",
        unobserved.len(),
        unobserved.join("\n")
    );
}
