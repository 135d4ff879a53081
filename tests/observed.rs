//! Severities and client claims follow `rules/observed.json`, the record of
//! what real clients did with each capture (written by `clients/run.py`;
//! `tests/clients.rs` checks that a fresh run still matches it).

mod common;
use common::{
    awaits_clients, awaits_observation, file_dialect, first_stream_is_socket, lint_example,
    lint_file, root, rule_awaits_clients,
};
use sselint::capture::Options;
use sselint::lint::observed::{
    derived_severity, derived_severity_of, designed_exception, record, Verdict, BUDGET_CUT_RULES,
};
use sselint::lint::{catalogue, Severity};
use std::path::{Path, PathBuf};

/// Capture files of the corpus the harness runs (besides rule examples).
fn corpus_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for base in ["samples", "tests/cases"] {
        let mut stack = vec![root().join(base)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else if matches!(
                    p.extension().and_then(|x| x.to_str()),
                    Some(
                        "sse"
                            | "har"
                            | "curl"
                            | "trace"
                            | "txt"
                            | "bin"
                            | "log"
                            | "ndjson"
                            | "jsonl"
                    )
                ) {
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    assert!(
        out.len() > 50,
        "the corpus went missing: {} files",
        out.len()
    );
    out
}

fn id_of(p: &Path) -> String {
    p.strip_prefix(root())
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

/// Whether sselint reports `path-dialect-mismatch` on the corpus capture
/// `id` (a rule example `rules/…toml#K`, or a file).
fn reports_path_mismatch(id: &str) -> bool {
    let found = match id.split_once(".toml#") {
        Some((file, k)) => {
            let file = format!("{file}.toml");
            let r = catalogue()
                .rules()
                .find(|r| r.file == file)
                .unwrap_or_else(|| panic!("{id}: no such rule file"));
            let ex = &r.examples()[k.parse::<usize>().unwrap() - 1];
            lint_example(&ex.capture, ex.request.as_deref(), ex.max_event_bytes)
                .iter()
                .map(|d| d.rule)
                .collect::<Vec<_>>()
        }
        None => lint_file(&root().join(id))
            .streams
            .iter()
            .flat_map(|s| s.diagnostics.iter().map(|d| d.rule))
            .collect(),
    };
    found.contains(&"path-dialect-mismatch")
}

/// Whether `cap` holds Realtime events that came over no socket (a relay
/// that passed them on as server-sent events): the SDKs read the Realtime
/// API over a WebSocket only, so no client of the harness reads such a
/// capture (clients/run.py leaves it out; `realtime-done-missing`, the rule
/// about it, says so in its severity basis).
fn realtime_off_socket(dialect: Option<&str>, cap: sselint::capture::Capture) -> bool {
    dialect == Some("realtime") && !first_stream_is_socket(cap)
}

#[test]
fn every_example_sample_and_case_has_observations() {
    let rec = record();
    let mut missing = Vec::new();
    let mut waiting = Vec::new();
    for r in catalogue().rules() {
        if rule_awaits_clients(r) {
            waiting.push(r.file.to_string());
            continue;
        }
        for (k, ex) in (1..).zip(r.examples()) {
            let cap = sselint::capture::from_reader(
                "example",
                Box::new(std::io::Cursor::new(ex.capture.to_vec())),
                &Options::default(),
            )
            .expect("example reads as a capture");
            if realtime_off_socket(r.dialect.map(|d| d.name()), cap) {
                continue;
            }
            if rec.example(r, k).is_none() {
                missing.push(format!("{}#{k}", r.file));
            }
        }
    }
    for p in corpus_files() {
        // A file that is not a capture (a HAR with no stream) has nothing to
        // replay.
        let readable = sselint::capture::open(p.to_str().unwrap(), &Options::default())
            .is_ok_and(|c| !c.streams.is_empty());
        let unread = || {
            sselint::capture::open(p.to_str().unwrap(), &Options::default())
                .is_ok_and(|c| realtime_off_socket(file_dialect(&p), c))
        };
        if readable && !rec.captures.contains_key(&id_of(&p)) && !unread() {
            if file_dialect(&p).is_some_and(awaits_clients) {
                waiting.push(id_of(&p));
                continue;
            }
            missing.push(id_of(&p));
        }
    }
    if !waiting.is_empty() {
        awaits_observation(
            "every_example_sample_and_case_has_observations",
            &format!("no client of their dialect in rules/observed.json yet: {waiting:?}"),
        );
    }
    assert!(
        missing.is_empty(),
        "no observations for {missing:#?}; run clients/run.py (clients/README.md)"
    );
    assert!(rec.clients.len() >= 6, "too few clients: {:?}", rec.clients);
}

#[test]
fn each_capture_is_read_by_the_clients_of_one_dialect() {
    let rec = record();
    let dialects: std::collections::BTreeSet<&str> =
        rec.clients.iter().map(|c| c.dialect.as_str()).collect();
    assert_eq!(
        dialects,
        [
            "bedrock-converse",
            "bedrock-invoke",
            "chat",
            "gemini",
            "messages",
            "ollama",
            "responses",
            // Responses over a WebSocket: the WebSocket-mode clients.
            "responses-ws",
            // The Realtime API (a socket): the SDKs' Realtime clients.
            "realtime",
        ]
        .into_iter()
        .collect(),
        "{:?}",
        rec.clients
    );
    let set = |ds: &[&str]| {
        let mut want: Vec<&str> = rec
            .clients
            .iter()
            .filter(|c| ds.contains(&c.dialect.as_str()))
            .map(|c| c.name.as_str())
            .collect();
        want.sort_unstable();
        want
    };
    let mut wrong = Vec::new();
    for (id, cap) in &rec.captures {
        let mut got: Vec<&str> = cap.clients.keys().map(String::as_str).collect();
        got.sort_unstable();
        let fits = dialects.iter().any(|d| set(&[d]) == got)
            // A body served at a path of another dialect is also read by
            // that path's clients (clients/run.py), and only then.
            || (dialects.iter().any(|a| {
                dialects
                    .iter()
                    .any(|b| a != b && set(&[a, b]) == got)
            }) && reports_path_mismatch(id))
            // A Bedrock Invoke stream of another model than Claude is not
            // read by the clients that only ask for Claude (clients/run.py's
            // CLAUDE_ONLY), and only by them not.
            || (set(&["bedrock-invoke"])
                .into_iter()
                .filter(|n| !["anthropic-python-bedrock", "vercel-ai-bedrock-invoke"].contains(n))
                .collect::<Vec<_>>()
                == got);
        if !fits {
            wrong.push(format!("{id}: {got:?}"));
        }
        // A rule example of a dialect is read by that dialect's clients.
        if let Some(d) = id
            .strip_prefix("rules/")
            .and_then(|r| r.split('/').next())
            .filter(|d| dialects.contains(d))
        {
            let theirs = rec.clients.iter().find(|c| c.name == got[0]);
            if theirs.is_none_or(|c| c.dialect != d) {
                wrong.push(format!("{id}: read by {got:?}, not the {d} clients"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "captures whose clients are not one dialect's set:\n{}",
        wrong.join("\n")
    );
}

/// The harness's own crafted streams (`clients/corpus/DIALECT/*`: SSE
/// captures, Ollama's NDJSON, Bedrock's event-stream frames), each with its
/// folder's dialect.
fn crafted_streams() -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for d in std::fs::read_dir(root().join("clients/corpus")).expect("clients/corpus") {
        let d = d.unwrap().path();
        if !d.is_dir() {
            // The script that writes the Bedrock streams.
            continue;
        }
        let dialect = d.file_name().unwrap().to_string_lossy().to_string();
        for f in std::fs::read_dir(&d).unwrap() {
            let f = f.unwrap().path();
            if matches!(
                f.extension().and_then(|x| x.to_str()),
                Some("sse" | "ndjson" | "bin")
            ) {
                out.push((f, dialect.clone()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_crafted_stream_is_read_by_the_clients_of_its_folder() {
    let rec = record();
    let streams = crafted_streams();
    assert!(
        streams.len() >= 30,
        "the crafted streams went missing: {}",
        streams.len()
    );
    let mut wrong = Vec::new();
    for (p, dialect) in streams {
        let Some(cap) = rec.captures.get(&id_of(&p)) else {
            wrong.push(format!("{}: no observations", id_of(&p)));
            continue;
        };
        let want = rec.clients.iter().filter(|c| c.dialect == dialect).count();
        let theirs = cap
            .clients
            .keys()
            .filter(|n| {
                rec.clients
                    .iter()
                    .any(|c| &c.name == *n && c.dialect == dialect)
            })
            .count();
        if want == 0 || theirs != want || cap.clients.len() != want {
            wrong.push(format!(
                "{}: read by {:?}, not the {dialect} clients",
                id_of(&p),
                cap.clients.keys().collect::<Vec<_>>()
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{}\nrun clients/run.py (clients/README.md)",
        wrong.join("\n")
    );
}

#[test]
fn the_basic_responses_and_messages_samples_read_as_meant_by_every_client() {
    let rec = record();
    for (id, dialect) in [
        ("samples/good/responses-basic.sse", "responses"),
        ("samples/good/messages-basic.sse", "messages"),
    ] {
        let cap = rec
            .captures
            .get(id)
            .unwrap_or_else(|| panic!("{id}: no observations"));
        let want = rec.clients.iter().filter(|c| c.dialect == dialect).count();
        assert!(want >= 4, "{dialect}: {want} clients");
        assert_eq!(cap.clients.len(), want, "{id}: {:?}", cap.clients);
        assert_eq!(
            derived_severity(cap),
            Severity::Info,
            "{id}: {:?}",
            cap.clients
        );
    }
}

#[test]
fn severities_follow_what_the_clients_did() {
    let rec = record();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for r in catalogue().rules() {
        if r.severity_basis.is_some() {
            continue;
        }
        if r.dialect.is_some_and(|d| awaits_clients(d.name())) {
            awaits_observation(
                "severities_follow_what_the_clients_did",
                &format!(
                    "{}: no client of its dialect in rules/observed.json yet",
                    r.file
                ),
            );
            continue;
        }
        for (i, ex) in r.examples().iter().enumerate() {
            if ex.valid {
                continue;
            }
            let obs = rec
                .example(r, i + 1)
                .unwrap_or_else(|| panic!("{}#{}: no observations", r.file, i + 1));
            let want = derived_severity_of(r.name, obs);
            let found = lint_example(&ex.capture, ex.request.as_deref(), ex.max_event_bytes);
            let got: Vec<Severity> = found
                .iter()
                .filter(|d| d.rule == r.name)
                .map(|d| d.severity)
                .collect();
            checked += 1;
            if got.first() != Some(&want) {
                wrong.push(format!(
                    "{}#{} ({}): the finding is {:?}, the clients give {want}",
                    r.file,
                    i + 1,
                    ex.note,
                    got.first()
                ));
            }
        }
    }
    assert!(checked > 50, "only {checked} examples checked");
    assert!(
        wrong.is_empty(),
        "severities that do not follow rules/observed.json (change the check's level, or give the rule a severity_basis):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn a_designed_exception_is_read_as_a_faithful_reading() {
    // openai-python's stream helpers raise on purpose to report the finish
    // the server sent (`LengthFinishReasonError` on `length`,
    // `ContentFilterFinishReasonError` on `content_filter`, "Didn't
    // receive a `response.completed` event." on `response.incomplete`):
    // the policy reads those raises as `diverges`, a warning. Without the
    // classification these captures would be errors (the raise alone).
    let rec = record();
    let mut designed = Vec::new();
    for (id, cap) in &rec.captures {
        for (n, o) in &cap.clients {
            if designed_exception(cap, o) {
                assert_eq!(o.verdict, Verdict::Raised, "{id}: {n}");
                assert_eq!(rec.verdict(cap, n, o), Verdict::Diverges, "{id}: {n}");
                designed.push((id.as_str(), n.as_str()));
            }
        }
    }
    for (id, client) in [
        ("rules/chat/finish-length.toml#1", "openai-python-stream"),
        ("rules/chat/empty-answer.toml#4", "openai-python-stream"),
        (
            "rules/responses/responses-incomplete.toml#1",
            "openai-python-responses-stream",
        ),
    ] {
        assert!(
            designed.contains(&(id, client)),
            "{id}: {client} no longer raises a designed exception: {designed:?}"
        );
        // That raise is the capture's only break: a warning, not an error.
        assert_eq!(
            derived_severity(&rec.captures[id]),
            Severity::Warning,
            "{id}"
        );
    }
    // The same raise on a stream that simply stops is no designed exception:
    // the Responses helper's "Didn't receive a `response.completed`" on a
    // cut stream still counts as a raise.
    let cut = rec
        .captures
        .iter()
        .filter(|(_, c)| {
            c.clients.values().any(|o| {
                o.verdict == Verdict::Raised
                    && o.detail
                        .as_deref()
                        .is_some_and(|d| d.contains("response.completed"))
            })
        })
        .filter(|(_, c)| !sselint::lint::observed::budget_cut(c))
        .count();
    assert!(cut > 0, "no cut Responses stream where the helper raises");
    for (id, c) in &rec.captures {
        for (n, o) in &c.clients {
            if o.verdict == Verdict::Raised && !designed_exception(c, o) {
                assert_ne!(rec.verdict(c, n, o), Verdict::Diverges, "{id}: {n}");
            }
        }
    }
}

#[test]
fn a_budget_cut_is_a_warning_in_every_dialect() {
    // Each dialect's budget-cut rule warns on its plain cut example, whether
    // a stream helper raises on it by design (Chat, Responses) or every
    // client reads it as sent (Messages, Gemini, Ollama, Bedrock Converse).
    let mut seen = Vec::new();
    for name in BUDGET_CUT_RULES {
        let r = catalogue()
            .get(name)
            .unwrap_or_else(|| panic!("{name}: no such rule"));
        assert_eq!(r.severity, Severity::Warning, "{name}");
        let ex = &r.examples()[0];
        assert!(!ex.valid, "{name}: its first example passes");
        let obs = record()
            .example(r, 1)
            .unwrap_or_else(|| panic!("{name}#1: no observations"));
        assert!(
            sselint::lint::observed::budget_cut(obs),
            "{name}#1: {:?}",
            obs.expected
        );
        assert_eq!(
            derived_severity_of(name, obs),
            Severity::Warning,
            "{name}#1"
        );
        let got: Vec<Severity> =
            lint_example(&ex.capture, ex.request.as_deref(), ex.max_event_bytes)
                .iter()
                .filter(|d| d.rule == *name)
                .map(|d| d.severity)
                .collect();
        assert_eq!(got, [Severity::Warning], "{name}#1");
        seen.push(r.dialect.map(|d| d.name()));
    }
    seen.sort();
    seen.dedup();
    // Bedrock Invoke's Claude events are Messages events, read by
    // `messages-max-tokens`.
    assert_eq!(seen.len(), 6, "one budget-cut rule per dialect: {seen:?}");
}

#[test]
fn a_rule_without_observed_severity_says_why() {
    for r in catalogue().rules() {
        if let Some(why) = r.severity_basis {
            assert!(
                why.trim().len() > 40,
                "{}: severity_basis is too short to explain anything: {why:?}",
                r.name
            );
        }
    }
}

#[test]
fn real_provider_streams_get_no_error_unless_a_client_broke() {
    let rec = record();
    let mut wrong = Vec::new();
    let mut files = common::samples("providers");
    files.extend(common::samples("good"));
    for p in files {
        let res = lint_file(&p);
        let errors: Vec<&str> = res
            .streams
            .iter()
            .flat_map(|s| s.diagnostics.iter())
            .filter(|d| d.severity == Severity::Error)
            .map(|d| d.rule)
            .collect();
        if !rec.captures.contains_key(&id_of(&p)) && file_dialect(&p).is_some_and(awaits_clients) {
            awaits_observation(
                "real_provider_streams_get_no_error_unless_a_client_broke",
                &format!(
                    "{}: no client of its dialect in rules/observed.json yet",
                    id_of(&p)
                ),
            );
            assert!(errors.is_empty(), "{}: errors {errors:?}", id_of(&p));
            continue;
        }
        let obs = rec
            .captures
            .get(&id_of(&p))
            .unwrap_or_else(|| panic!("{}: no observations", id_of(&p)));
        if !errors.is_empty() && derived_severity(obs) != Severity::Error {
            wrong.push(format!(
                "{}: errors {errors:?}, yet every client read it",
                id_of(&p)
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The harness's clients, as a message or a rule doc might name them.
const CLIENT_NAMES: &[&str] = &[
    "openai-python",
    "openai python",
    "openai-node",
    "openai node",
    "langchain",
    "vercel",
    "ai sdk",
    "ai-sdk",
    "anthropic-python",
    "anthropic python",
    "anthropic-ts",
    "anthropic-sdk",
    "@anthropic-ai/sdk",
    "google-genai",
    "@google/genai",
    "ollama-python",
    "ollama python",
    "ollama-js",
    "ollama-ai-provider",
    "boto3",
    "aws-sdk",
    "client-bedrock-runtime",
];

#[test]
fn no_message_or_rule_doc_names_a_client_except_the_observations() {
    // Claims about a named client come only from rules/observed.json (the
    // `sselint rule` table and the report's notes), so they are what was
    // observed; tests/claims.rs checks that what a text says clients do was
    // observed. References (public reports) may name anything.
    let mut hits = Vec::new();
    for r in catalogue().rules() {
        let mut texts = vec![
            ("summary", r.summary),
            ("rationale", r.rationale),
            ("fix", r.fix),
        ];
        if let Some(b) = r.severity_basis {
            texts.push(("severity_basis", b));
        }
        let notes: Vec<String> = r.examples().iter().map(|e| e.note.clone()).collect();
        for (what, t) in texts
            .into_iter()
            .map(|(w, t)| (w.to_string(), t.to_string()))
            .chain(notes.into_iter().map(|n| ("example note".to_string(), n)))
        {
            let low = t.to_lowercase();
            for n in CLIENT_NAMES {
                if low.contains(n) {
                    hits.push(format!("{} {what}: names {n}", r.file));
                }
            }
        }
    }
    let mut stack = vec![root().join("src")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.ends_with("lint/observed.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            for (i, line) in text.lines().enumerate() {
                // Code comments may cite a client's source; everything
                // else can reach users.
                let code = line.split("//").next().unwrap_or("");
                let low = code.to_lowercase();
                for n in CLIENT_NAMES {
                    if low.contains(n) {
                        hits.push(format!("{}:{}: names {n}", id_of(&p), i + 1));
                    }
                }
            }
        }
    }
    assert!(
        hits.is_empty(),
        "claims about named clients outside rules/observed.json:\n{}",
        hits.join("\n")
    );
}

/// A rule of a dialect no client of the harness reads yet (Ollama, Bedrock:
/// issue 37) rests on the reference and the clients' code, not on the
/// record: its `severity_basis` says so, so that no reader takes its level
/// for an observed one.
#[test]
fn rules_no_client_has_read_say_so() {
    let mut unsaid = Vec::new();
    for r in catalogue().rules() {
        if !rule_awaits_clients(r) {
            continue;
        }
        let says = r.severity_basis.is_some_and(|b| {
            b.contains("harness") && (b.contains("no client") || b.contains("not yet"))
        });
        if !says {
            unsaid.push(r.file.to_string());
        }
    }
    assert!(
        unsaid.is_empty(),
        "rules of a dialect no harness client reads whose severity_basis does not say so: {unsaid:?}"
    );
}
