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
//!
//! A claim names its clients (issue 41, item 4). "Clients" alone, or "the
//! clients", "every client", "the observed clients", means every client of
//! the dialect: such a claim needs a capture where the rule fired on which
//! every client of the capture's dialect, as the record's `clients` table
//! lists them, showed that kind of outcome (all raised; all raised or
//! ended with another answer; none did either). A claim about some of them
//! qualifies its subject ("the stream helpers", "raw loops", "two SDKs of
//! the record", "strict clients", "clients that …") and needs only the
//! observation above.

mod common;
use common::{awaits_observation, lint_example, lint_file, root, rule_awaits_clients};
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

/// Words before "clients" that restrict it to some of them ("strict
/// clients", "two clients", "line-based clients": hyphens are spaces).
const SOME_OF_THEM: &[&str] = &[
    "some",
    "many",
    "several",
    "most",
    "few",
    "other",
    "naive",
    "strict",
    "stricter",
    "typed",
    "such",
    "these",
    "those",
    "certain",
    "older",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "sse",
    "raw",
    "based",
    "style",
    "rust",
    "your",
    "its",
    "validating",
    "non",
    "http",
    "python",
    "node",
    "js",
    "go",
    "java",
    "browser",
    "agent",
    "careful",
    "lenient",
    "conforming",
    "javascript",
    "typescript",
    "following",
    "accumulating",
    "generic",
    "spec",
    "s",
];

/// Words after "clients" that restrict it ("clients that wait for it",
/// "clients outside the harness"); a comma before them makes the clause
/// say more about every client instead ("clients, which …").
const RESTRICTED_BY: &[&str] = &[
    "that",
    "which",
    "who",
    "whose",
    "outside",
    "in",
    "with",
    "using",
    "built",
    "written",
    "expecting",
    "relying",
    "reading",
    "doing",
    "like",
    "such",
];

/// Nouns (and pronouns) that can be the subject of a claimed behaviour,
/// as a claim's words are looked back through from its verb.
const SUBJECT_NOUNS: &[&str] = &[
    "client",
    "clients",
    "sdk",
    "sdks",
    "helper",
    "helpers",
    "parser",
    "parsers",
    "loop",
    "loops",
    "application",
    "applications",
    "consumer",
    "consumers",
    "library",
    "libraries",
    "others",
    "them",
    "accumulators",
    "accumulator",
    "gateway",
    "gateways",
    "proxy",
    "user",
    "users",
    "ui",
    "validator",
    "benchmarker",
    "some",
    "they",
];

/// The words that make `kind`'s claim (a phrase is matched where it
/// starts).
fn triggers(kind: Kind) -> Vec<String> {
    let list: &[&str] = match kind {
        Kind::Read => READ,
        Kind::Raise => RAISE,
        Kind::Lose => LOSE,
    };
    list.iter()
        .filter(|p| **p != "no client")
        .map(|p| p.trim().to_string())
        .collect()
}

/// Whether the claim of `kind` in `sentence` is said of every client of
/// the dialect: the nearest subject before one of its verbs is "clients"
/// with nothing that picks some of them (or "every client", "each
/// client", "all clients"); "they" stands for the subject before it.
fn universal(sentence: &str, kind: Kind) -> bool {
    let words: Vec<String> = sentence
        .split(|c: char| !(c.is_alphanumeric() || c == '@' || c == ','))
        .filter(|w| !w.is_empty())
        .map(String::from)
        .collect();
    let bare = |i: usize| words[i].trim_end_matches(',').to_string();
    let every_client = |i: usize| -> bool {
        let w = bare(i);
        let before = |k: usize| (i >= k).then(|| bare(i - k));
        if w == "client" {
            return matches!(before(1).as_deref(), Some("every" | "each"));
        }
        if w != "clients" {
            return false;
        }
        // "all clients", not "at all: clients".
        if matches!(before(1).as_deref(), Some("all" | "every"))
            && before(2).as_deref() != Some("at")
        {
            return true;
        }
        let prev = (0..i)
            .rev()
            .map(bare)
            .find(|p| p != "the" && p != "observed" && p != "all");
        // "some of the clients", "two of the clients".
        let restricted_before = prev
            .as_deref()
            .is_some_and(|p| p == "of" || SOME_OF_THEM.contains(&p));
        let restricted_after = !words[i].ends_with(',')
            && (i + 1 < words.len())
            && RESTRICTED_BY.contains(&bare(i + 1).as_str());
        !restricted_before && !restricted_after
    };
    let stems = triggers(kind);
    for t in 0..words.len() {
        let from_here = words[t..]
            .iter()
            .map(|w| w.trim_end_matches(','))
            .collect::<Vec<_>>()
            .join(" ");
        if !stems.iter().any(|s| from_here.starts_with(s.as_str())) {
            continue;
        }
        // The nearest subject before the verb; "they" looks further back.
        let mut j = t;
        while j > 0 {
            j -= 1;
            let b = bare(j);
            if !SUBJECT_NOUNS.contains(&b.as_str()) {
                continue;
            }
            // A pronoun stands for the subject before it, unless it is
            // "one of them", "some of them".
            if b == "they" || (b == "them" && (j == 0 || bare(j - 1) != "of")) {
                continue;
            }
            if every_client(j) {
                return true;
            }
            break;
        }
    }
    false
}

/// The claims of a text said of every client: (kind, sentence). A sentence
/// that says they raise or lose ("clients either fail or show it as
/// empty") claims that each of them did one or the other: `Lose`, which
/// every client shows when each raised or ended with another answer.
fn every_client_claims(text: &str) -> Vec<(Kind, String)> {
    let all: Vec<(Kind, String)> = claims(text)
        .into_iter()
        .filter(|(k, s)| universal(s, *k))
        .collect();
    let both = |s: &str| {
        all.iter().any(|(k, x)| *k == Kind::Raise && x == s)
            && all.iter().any(|(k, x)| *k == Kind::Lose && x == s)
    };
    all.iter()
        .filter(|(k, s)| !(*k == Kind::Raise && both(s)))
        .cloned()
        .collect()
}

/// The claims of a text: (kind, sentence), sentences split at `.` and
/// `;`.
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

/// The kinds of outcome that every client of a capture's dialect showed
/// (the dialect's clients as the record's `clients` table lists them, so
/// a client added to the table counts once it is there; a capture that
/// lacks one of them shows nothing for every client).
fn shown_by_every(rec: &Record, cap: &Capture) -> BTreeSet<Kind> {
    let dialects: BTreeSet<&str> = rec
        .clients
        .iter()
        .filter(|c| cap.clients.contains_key(&c.name))
        .map(|c| c.dialect.as_str())
        .collect();
    let every: Vec<&str> = rec
        .clients
        .iter()
        .filter(|c| dialects.contains(c.dialect.as_str()))
        .map(|c| c.name.as_str())
        .collect();
    let mut k = BTreeSet::new();
    let outcomes: Option<Vec<(Verdict, bool)>> = every
        .iter()
        .map(|n| {
            cap.clients
                .get(*n)
                .map(|o| (rec.verdict(cap, n, o), designed_exception(cap, o)))
        })
        .collect();
    let Some(outcomes) = outcomes.filter(|o| !o.is_empty()) else {
        return k;
    };
    if outcomes
        .iter()
        .all(|(v, designed)| *v == Verdict::Raised || *designed)
    {
        k.insert(Kind::Raise);
    }
    if outcomes
        .iter()
        .all(|(v, _)| matches!(v, Verdict::Raised | Verdict::Differs))
    {
        k.insert(Kind::Lose);
    }
    if outcomes
        .iter()
        .all(|(v, designed)| matches!(v, Verdict::Ok | Verdict::Diverges) && !designed)
    {
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
fn a_bare_clients_speaks_of_every_client() {
    let all = |t: &str, k: Kind| universal(t, k);
    assert!(!all(
        "an empty string names no reason at all: clients that drop empty values end with no finish",
        Kind::Lose
    ));
    assert!(!all(
        "clients read past them, so the data never reaches them: a generic client drops it",
        Kind::Lose
    ));
    assert!(all("clients fail on this stream", Kind::Raise));
    assert!(all(
        "the clients of the record end with different tool calls and lose the input",
        Kind::Lose
    ));
    assert!(all(
        "clients keep blocks by index, so they fail on it",
        Kind::Raise
    ));
    assert!(all("every client raises", Kind::Raise));
    assert!(all("the observed clients read on", Kind::Read));
    assert!(all("clients, which read only content, lose it", Kind::Lose));
    assert!(!all("the stream helpers raise", Kind::Raise));
    assert!(!all("raw loops read on", Kind::Read));
    assert!(!all("strict clients raise on it", Kind::Raise));
    assert!(!all("clients that wait for it raise", Kind::Raise));
    assert!(!all("two clients of the record raise", Kind::Raise));
    assert!(!all("some of the clients drop it", Kind::Lose));
    assert!(!all("line-based clients split the answer", Kind::Lose));
    // The verb's own subject decides, not another one in the sentence.
    assert!(!all(
        "gemini's clients expect data lines, and one of them raises",
        Kind::Raise
    ));
    assert!(!all(
        "clients read on, but the stream helpers raise",
        Kind::Raise
    ));
}

#[test]
fn every_claim_about_clients_was_observed() {
    let rec = record();
    // rule → kinds of outcome seen on captures where it fired, and on its
    // own examples.
    let mut seen: BTreeMap<&str, BTreeSet<Kind>> = BTreeMap::new();
    // rule → kinds of outcome every client of the dialect showed, on one
    // capture where it fired (or on one of its own examples).
    let mut seen_all: BTreeMap<&str, BTreeSet<Kind>> = BTreeMap::new();
    // (rule, kind) → one message that claims it.
    let mut claimed: BTreeMap<(&str, Kind), (String, String)> = BTreeMap::new();
    // (rule, kind) → one message that claims it of every client.
    let mut claimed_all: BTreeMap<(&str, Kind), (String, String)> = BTreeMap::new();
    let mut messages = 0;
    for (id, found) in corpus() {
        let Some(cap) = rec.captures.get(&id) else {
            continue;
        };
        let kinds = shown(rec, cap);
        let every = shown_by_every(rec, cap);
        for (rule, message) in &found {
            messages += 1;
            seen.entry(rule).or_default().extend(kinds.iter().copied());
            seen_all
                .entry(rule)
                .or_default()
                .extend(every.iter().copied());
            for (kind, sentence) in every_client_claims(message) {
                claimed_all
                    .entry((rule, kind))
                    .or_insert_with(|| (id.clone(), sentence));
            }
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
            seen_all.entry(rule.name).or_default().extend(every);
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
            for (kind, sentence) in every_client_claims(t) {
                claimed_all
                    .entry((r.name, kind))
                    .or_insert_with(|| (format!("{} (rule text)", r.file), sentence));
            }
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
        if catalogue().get(rule).is_some_and(rule_awaits_clients) {
            awaits_observation(
                "every_claim_about_clients_was_observed",
                &format!("{rule}: no client of its dialect or transport in rules/observed.json yet (claimed: \"{sentence}\")"),
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
    assert!(
        claimed_all.len() > 5,
        "the claim finder found only {} claims about every client: it no longer reads the texts",
        claimed_all.len()
    );
    let mut overgeneral = Vec::new();
    for ((rule, kind), (at, sentence)) in &claimed_all {
        if catalogue().get(rule).is_some_and(rule_awaits_clients) {
            continue;
        }
        if !seen_all.get(rule).is_some_and(|k| k.contains(kind)) {
            overgeneral.push(format!(
                "{rule}: {kind:?} claimed of every client in {at}: \"{sentence}\"; every client showed only {:?}",
                seen_all.get(rule)
            ));
        }
    }
    assert!(
        overgeneral.is_empty(),
        "{} claims say \"clients\" for what only some clients did (name them: \"the stream helpers raise; raw loops read on\", from the record):\n{}",
        overgeneral.len(),
        overgeneral.join("\n")
    );
}
