//! The shipped samples get the verdicts their folders promise: `good/` is
//! clean (nothing above info), `providers/` gets no error unless an
//! observed client breaks on it (and every extension field is named after
//! its provider), the HAR
//! and curl readers find the stream and its answer.

mod common;
use common::*;
use sselint::lint::{profile, Severity};
use sselint::model::assembly::Ending;

/// The profile a provider sample is named after: its file stem
/// (`groq.sse`), or for another dialect's samples the stem without the
/// dialect prefix, with or without a last `-variant`
/// (`messages-anthropic-thinking.sse` → `anthropic`).
fn profile_for(stem: &str) -> Option<&'static sselint::lint::Profile> {
    if let Some(p) = profile::profile(stem) {
        return Some(p);
    }
    let rest = stem.strip_prefix("messages-")?;
    profile::profile(rest).or_else(|| profile::profile(rest.rsplit_once('-')?.0))
}

#[test]
fn good_samples_have_nothing_above_info() {
    for p in samples("good") {
        let r = lint_file(&p);
        let bad = rules_at_least(&r, Severity::Warning);
        assert!(bad.is_empty(), "{}: {bad:?}", p.display());
        assert_eq!(r.streams[0].ending, Ending::Complete, "{}", p.display());
    }
}

#[test]
fn provider_samples_get_no_false_errors_and_name_their_extensions() {
    let rec = sselint::lint::observed::record();
    for p in samples("providers") {
        let r = lint_file(&p);
        let errors = rules_at_least(&r, Severity::Error);
        // An error only where an observed client breaks on the sample
        // (rules/observed.json): Vertex's `vertex_event` makes a client
        // that validates event types raise.
        let id = p
            .strip_prefix(root())
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let broke = rec
            .captures
            .get(&id)
            .is_some_and(|c| rec.severity(c) == Severity::Error);
        assert!(errors.is_empty() || broke, "{}: {errors:?}", p.display());
        // Some answer: text, tool calls (a call with no text before it,
        // as llama.cpp and OpenRouter send one), or a refusal (OpenAI's).
        let calls =
            r.streams[0].answer.choices.values().any(|c| {
                !c.tool_calls.is_empty() || c.refusal.as_ref().is_some_and(|t| !t.is_empty())
            });
        assert!(
            !text0(&r).is_empty() || calls,
            "{}: no text, no tool call and no refusal",
            p.display()
        );
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        let Some(prof) = profile_for(&stem) else {
            continue;
        };
        for d in diags(&r)
            .into_iter()
            .filter(|d| d.rule == "vendor-extension")
        {
            let provider = &prof.provider;
            assert!(
                d.message.contains(provider.as_str()),
                "{}: {} does not name {provider}",
                p.display(),
                d.message
            );
        }
    }
}

#[test]
fn provider_samples_are_clean_under_their_own_profile_except_documented_quirks() {
    for p in samples("providers") {
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        let Some(prof) = profile_for(&stem) else {
            continue;
        };
        let settings = sselint::lint::Settings {
            profile: prof,
            ..Default::default()
        };
        let r = lint_file_with(&p, &settings);
        // Under its own profile a provider's annotation chunks and enum
        // values are normal; what stays is what clients really trip on.
        let warnings = rules_at_least(&r, Severity::Warning);
        for w in &warnings {
            assert!(
                ["schema", "unknown-field", "usage-mismatch"].contains(w),
                "{} under --profile {stem}: {w}",
                p.display()
            );
        }
    }
}

#[test]
fn har_samples_pick_the_sse_entry_and_its_request() {
    let r = lint_file(&root().join("samples/har/chrome.har"));
    assert_eq!(r.streams.len(), 1);
    assert!(r.streams[0]
        .label
        .starts_with("#3 POST https://api.example.com/v1/chat/completions"));
    assert!(text0(&r).starts_with("The sky looks blue"));
    assert!(
        r.streams[0].timing.is_some(),
        "Chrome's _eventSourceMessages give times"
    );
    let b64 = lint_file(&root().join("samples/har/chrome-base64.har"));
    assert_eq!(text0(&b64), text0(&r));
}

#[test]
fn a_firefox_body_at_the_1_mib_cap_is_capture_damage_not_a_server_cut() {
    let r = lint_file(&root().join("samples/har/firefox-truncated.har"));
    let rules: Vec<_> = diags(&r).iter().map(|d| d.rule).collect();
    assert!(rules.contains(&"capture-truncated"), "{rules:?}");
    assert!(!rules.contains(&"cut-off"), "{rules:?}");
    let d = diags(&r)
        .into_iter()
        .find(|d| d.rule == "capture-truncated")
        .unwrap();
    assert!(d.message.contains("Firefox"), "{}", d.message);
}

#[test]
fn curl_dumps_read_to_the_same_kind_of_answer() {
    let cases = [
        ("curl-i-http11.txt", "Hello! How can I help you today?"),
        (
            "curl-i-http2.txt",
            "Rust is a systems programming language.",
        ),
        (
            "curl-i-continue.txt",
            "The document describes a billing dispute.",
        ),
        ("curl-v.txt", "Seven (7) is a prime number."),
        (
            "curl-raw.txt",
            "Chunked transfer encoding frames each write.",
        ),
        ("curl-trace.txt", "Hello! Hola! Bonjour!"),
        ("curl-trace-ascii.txt", "2 + 2 = 4."),
        (
            "curl-gzip.bin",
            "Compressed streams must be flushed per event to arrive on time.",
        ),
    ];
    for (f, text) in cases {
        let r = lint_file(&root().join("samples/curl").join(f));
        assert_eq!(text0(&r), text, "{f}");
        assert_eq!(r.streams[0].ending, Ending::Complete, "{f}");
        let bad = rules_at_least(&r, Severity::Warning);
        assert!(bad.is_empty(), "{f}: {bad:?}");
    }
}

#[test]
fn a_transfer_the_server_broke_is_cut_off_and_says_what_curl_saw() {
    // curl (18), a chunked body without its zero-size chunk, a cut gzip
    // stream: the server or the network closed early, not the capture.
    for f in [
        "curl-error-18.txt",
        "curl-raw-cut.txt",
        "curl-gzip-truncated.bin",
    ] {
        let r = lint_file(&root().join("samples/curl").join(f));
        let rules = rules_at_least(&r, Severity::Warning);
        assert_eq!(rules, ["cut-off"], "{f}");
        assert!(diags(&r)[0].message.contains("the transfer broke"), "{f}");
        assert_eq!(r.streams[0].ending, Ending::CutOff, "{f}");
    }
}

#[test]
fn curl_giving_up_on_its_own_time_out_is_capture_damage() {
    let body = std::fs::read_to_string(root().join("samples/curl/curl-error-18.txt")).unwrap();
    let cut = body.replace(
        "curl: (18) transfer closed with outstanding read data remaining",
        "curl: (28) Operation timed out after 30000 milliseconds with 2048 bytes received",
    );
    let r = lint_bytes(cut.as_bytes());
    assert_eq!(rules_at_least(&r, Severity::Warning), ["capture-truncated"]);
}

#[test]
fn a_404_is_one_http_status_error_naming_the_servers_message() {
    let r = lint_file(&root().join("samples/curl/curl-404.txt"));
    let rules: Vec<_> = diags(&r).iter().map(|d| d.rule).collect();
    assert_eq!(rules, ["http-status"]);
    assert!(diags(&r)[0].message.contains("does not exist"));
}

#[test]
fn every_bad_sample_triggers_the_rule_it_is_named_after_once() {
    for p in samples("bad") {
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        // Under the default settings, as the README promises.
        let r = lint_file(&p);
        let rules: Vec<_> = diags(&r).iter().map(|d| d.rule).collect();
        let hits = rules.iter().filter(|r| **r == stem).count()
            + r.streams
                .iter()
                .map(|s| s.omitted.get(stem.as_str()).copied().unwrap_or(0) as usize)
                .sum::<usize>();
        // One defect per file, so one finding (a defect repeated on every
        // chunk is one cause, reported once).
        let want = 1;
        assert_eq!(hits, want, "{}: {rules:?}", p.display());
    }
}

#[test]
fn every_rule_has_a_bad_sample() {
    let dir = root().join("samples/bad");
    let names: Vec<String> = std::fs::read_dir(&dir)
        .map(|d| {
            d.map(|e| {
                e.unwrap()
                    .path()
                    .file_stem()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect()
        })
        .unwrap_or_default();
    let missing: Vec<&str> = sselint::lint::catalogue()
        .rules()
        .map(|r| r.name)
        .filter(|n| !names.iter().any(|x| x == n))
        .collect();
    assert!(
        missing.is_empty(),
        "rules without samples/bad/<name>.*: {missing:?}"
    );
}

/// `inspect` gives every event a kind (a fresh-user trial found blank
/// kinds: an audio delta, `choices: []`, a skipped Messages delta), over
/// every sample.
#[test]
fn inspect_gives_every_event_of_every_sample_a_kind() {
    let mut blank = Vec::new();
    let mut events = 0;
    for sub in ["good", "bad", "providers", "har", "curl"] {
        let Ok(dir) = std::fs::read_dir(root().join("samples").join(sub)) else {
            continue;
        };
        for e in dir.flatten() {
            let p = e.path();
            let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("sselint"))
                .args(["inspect", "--format", "jsonl"])
                .arg(&p)
                .output()
                .unwrap();
            for line in String::from_utf8_lossy(&out.stdout).lines() {
                let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                    continue;
                };
                if v["type"] == "event" {
                    events += 1;
                    if v["kind"].as_str().unwrap_or("").is_empty() {
                        blank.push(format!("{} event {}", p.display(), v["index"]));
                    }
                }
            }
        }
    }
    assert!(events > 500, "only {events} events read from the samples");
    assert!(blank.is_empty(), "events without a kind: {blank:?}");
}
