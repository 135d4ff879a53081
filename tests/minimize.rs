//! `sselint minimize`: on every bad sample and every capture under tests/,
//! the output gives the same findings, is no larger, is its own fixed
//! point, holds no secret and (without --keep-text) none of the answer's
//! words; mutated samples keep their findings; the command's UX.

mod common;

use assert_cmd::Command;
use common::root;
use sselint::capture;
use sselint::lint::{Settings, Severity};
use sselint::minimize::{self, Options, Outcome, Pair};
use sselint::pipeline::{lint_capture, NoObserver};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

fn opts(rules: Vec<&'static str>, keep_text: bool) -> Options {
    Options {
        rules,
        keep_text,
        max_steps: minimize::DEFAULT_MAX_STEPS,
        settings: Settings::default(),
        capture: capture::Options::default(),
    }
}

fn run(name: &str, bytes: &[u8], o: &Options) -> Result<Outcome, capture::InputError> {
    minimize::minimize(name, bytes, o, &AtomicBool::new(false), &mut |_| {})
}

/// (rule, severity) of every finding of each stream of a capture's bytes.
fn streams_pairs(name: &str, bytes: &[u8]) -> Option<Vec<BTreeSet<Pair>>> {
    let mut o = capture::Options::default();
    if name.ends_with(".har") {
        o.input_format = Some(capture::InputFormat::Har);
    }
    let cap =
        capture::from_reader(name, Box::new(std::io::Cursor::new(bytes.to_vec())), &o).ok()?;
    // One set per captured stream: a socket's responses (each a result
    // of its own) are one capture, as minimize keeps them.
    let mut out = Vec::new();
    for stream in cap.streams {
        let mut pairs = BTreeSet::new();
        sselint::pipeline::lint_streams_each(
            stream,
            &Settings::default(),
            &mut NoObserver,
            sselint::pipeline::Extras::default(),
            &mut |s| {
                pairs.extend(
                    s.diagnostics
                        .iter()
                        .map(|d| (d.rule, d.severity))
                        .chain(s.omitted_worst.iter().map(|(r, sev)| (*r, *sev))),
                );
            },
        );
        out.push(pairs);
    }
    Some(out)
}

/// The message shapes (`minimize::message_shape`) of the findings of every
/// stream of a capture's bytes, by (rule, severity).
fn shapes(name: &str, bytes: &[u8]) -> std::collections::BTreeMap<Pair, BTreeSet<String>> {
    let mut o = capture::Options::default();
    if name.ends_with(".har") {
        o.input_format = Some(capture::InputFormat::Har);
    }
    let mut m: std::collections::BTreeMap<Pair, BTreeSet<String>> = Default::default();
    let Ok(cap) = capture::from_reader(name, Box::new(std::io::Cursor::new(bytes.to_vec())), &o)
    else {
        return m;
    };
    for s in lint_capture(cap, &Settings::default(), &mut NoObserver).streams {
        for d in s.diagnostics {
            m.entry((d.rule, d.severity))
                .or_default()
                .insert(minimize::message_shape(&d.message));
        }
    }
    m
}

fn at_least_warning(s: &BTreeSet<Pair>) -> BTreeSet<Pair> {
    s.iter()
        .filter(|p| p.1 >= Severity::Warning)
        .copied()
        .collect()
}

/// The captures the properties hold for: samples/bad, samples/curl,
/// samples/har, tests/cases and
/// tests/fixtures (expectation files left out).
fn corpus() -> Vec<PathBuf> {
    let mut v = common::samples("bad");
    v.extend(common::samples("curl"));
    // firefox-truncated.har too (1.2 MB): its body's exact size is its
    // finding's evidence, so the body stays whole and only the entry
    // around it is cut.
    v.extend(common::samples("har"));
    // WebSocket captures: Chrome HARs with `_webSocketMessages` (message
    // logs are in samples/bad).
    v.extend(common::samples("websocket"));
    for dir in ["tests/cases", "tests/fixtures"] {
        for e in std::fs::read_dir(root().join(dir)).unwrap() {
            let p = e.unwrap().path();
            let n = p.to_string_lossy().into_owned();
            if p.is_file() && !n.ends_with(".json") && !n.ends_with(".sh") {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

/// Values of secret headers and keys in a capture's text.
fn secrets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let l = line.trim_start_matches(['<', '>', ' ']);
        if let Some((name, value)) = l.split_once(':') {
            if capture::is_secret_header(name.trim_matches(['"', ' '])) {
                let v = value.trim().trim_matches(['"', ',', ' ']);
                let v = v.strip_prefix("Bearer ").unwrap_or(v);
                if v.len() >= 8 && v != capture::REDACTED {
                    out.push(v.to_string());
                }
            }
        }
    }
    // HAR: header objects.
    if let Ok(doc) = serde_json::from_str::<serde_json::Value>(text) {
        let mut stack = vec![&doc];
        while let Some(v) = stack.pop() {
            match v {
                serde_json::Value::Object(m) => {
                    if let (Some(n), Some(val)) = (
                        m.get("name").and_then(|n| n.as_str()),
                        m.get("value").and_then(|n| n.as_str()),
                    ) {
                        let val = val.strip_prefix("Bearer ").unwrap_or(val);
                        if capture::is_secret_header(n) && val.len() >= 8 {
                            out.push(val.to_string());
                        }
                    }
                    stack.extend(m.values());
                }
                serde_json::Value::Array(a) => stack.extend(a.iter()),
                _ => {}
            }
        }
    }
    let b = text.as_bytes();
    for (i, _) in text.match_indices("sk-") {
        let end = b[i..]
            .iter()
            .position(|c| !(c.is_ascii_alphanumeric() || *c == b'-' || *c == b'_'))
            .map_or(b.len(), |e| i + e);
        if end - i >= 12 {
            out.push(text[i..end].to_string());
        }
    }
    out
}

/// Words (4+ letters) of the answers `check --format json` rebuilds for
/// the input, less those a text-scrubbed copy still has (JSON keys and
/// values that are not text: `stop`, `assistant`, …).
fn answer_words(path: &Path, bytes: &[u8]) -> Vec<String> {
    let out = Command::cargo_bin("sselint")
        .unwrap()
        .args(["check", "--format", "json", "--fail-on", "never"])
        .arg(path)
        .output()
        .unwrap();
    let Ok(doc) = serde_json::from_slice::<serde_json::Value>(&out.stdout) else {
        return Vec::new();
    };
    let mut text = String::new();
    for s in doc["files"][0]["streams"].as_array().into_iter().flatten() {
        for c in s["choices"].as_array().into_iter().flatten() {
            for k in ["text", "refusal", "reasoning"] {
                if let Some(t) = c[k].as_str() {
                    text.push_str(t);
                    text.push(' ');
                }
            }
        }
    }
    let mut scrubber = sselint::redact::Scrubber::new(12345);
    let scrubbed =
        String::from_utf8_lossy(&sselint::redact::raw(bytes, Some(&mut scrubber))).into_owned();
    let mut words: Vec<String> = text
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| w.chars().count() >= 4)
        .filter(|w| !scrubbed.contains(w))
        .map(str::to_string)
        .collect();
    words.sort();
    words.dedup();
    words
}

/// Every word (3+ letters) of the answer text, tool-call arguments and
/// prompt of each stream of a capture: strings under text keys, argument
/// strings as they are (JSON or not), the request's prompt, in bodies read
/// the way sselint reads them (HAR text decoded, gzip undone, data lines
/// and lines that are whole JSON documents). `true`, `false` and `null`
/// are left out (they are JSON, not text).
fn text_words(name: &str, bytes: &[u8]) -> BTreeSet<String> {
    const KEYS: &[&str] = &[
        "content",
        "refusal",
        "reasoning_content",
        "reasoning",
        "text",
        "delta",
        "thinking",
        "arguments",
        "partial_json",
        "instructions",
        "input",
        "system",
    ];
    fn walk(v: &serde_json::Value, key: &str, out: &mut Vec<String>) {
        match v {
            serde_json::Value::String(s) if KEYS.contains(&key) => out.push(s.clone()),
            serde_json::Value::Object(m) => m.iter().for_each(|(k, x)| walk(x, k, out)),
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, key, out)),
            _ => {}
        }
    }
    let mut o = capture::Options::default();
    if name.ends_with(".har") {
        o.input_format = Some(capture::InputFormat::Har);
    }
    let Ok(cap) = capture::from_reader(name, Box::new(std::io::Cursor::new(bytes.to_vec())), &o)
    else {
        return BTreeSet::new();
    };
    let mut strings = Vec::new();
    for s in cap.streams {
        let body = match s.body {
            capture::Body::Bytes(b) => b,
            capture::Body::Reader(mut r) => {
                let mut b = Vec::new();
                let _ = std::io::Read::read_to_end(&mut r, &mut b);
                b
            }
        };
        let mut docs: Vec<String> = String::from_utf8_lossy(&body)
            .split(['\n', '\r'])
            .map(|l| {
                let l = l.strip_prefix("data:").unwrap_or(l);
                l.strip_prefix(' ').unwrap_or(l).to_string()
            })
            .collect();
        docs.extend(s.request.and_then(|r| r.body));
        // A socket's log line: the message is the record's `data`.
        let inner: Vec<String> = docs
            .iter()
            .filter_map(|d| serde_json::from_str::<serde_json::Value>(d).ok())
            .filter_map(|v| v.get("data")?.as_str().map(str::to_string))
            .collect();
        docs.extend(inner);
        for d in docs {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&d) {
                walk(&v, "", &mut strings);
            }
        }
    }
    strings
        .iter()
        .flat_map(|t| t.split(|c: char| !c.is_alphabetic()))
        .filter(|w| w.chars().count() >= 3 && !["true", "false", "null"].contains(w))
        .map(str::to_string)
        .collect()
}

/// The stem of a sample named after its rule, when it names one.
fn rule_of(path: &Path) -> Option<&'static str> {
    let stem = path.file_stem()?.to_str()?;
    sselint::lint::catalogue()
        .rules()
        .find(|r| r.name == stem)
        .map(|r| r.name)
}

#[test]
fn every_capture_minimizes_to_the_same_findings_smaller_idempotent_and_clean() {
    let mut checked = 0;
    let mut failed = Vec::new();
    for path in corpus() {
        // Every capture is tried; the failures are listed at the end.
        let one = std::panic::catch_unwind(|| minimize_one(&path));
        match one {
            Ok(true) => checked += 1,
            Ok(false) => {}
            Err(_) => failed.push(path.to_string_lossy().into_owned()),
        }
    }
    assert!(failed.is_empty(), "failed: {failed:#?}");
    assert!(checked >= 60, "only {checked} captures minimized");
}

/// The properties for one capture; `false` when it is not minimized (not
/// a capture, or nothing to keep).
fn minimize_one(path: &Path) -> bool {
    let path = path.to_path_buf();
    {
        let name = path.to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let Some(before) = streams_pairs(&name, &bytes) else {
            return false; // not a capture
        };
        // Default: every finding at warning or above; a sample named
        // after a rule whose findings are infos is minimized for it.
        let warn = before.iter().map(at_least_warning).find(|s| !s.is_empty());
        let (o, chosen) = match (warn, rule_of(&path)) {
            (Some(w), _) => (opts(vec![], false), w),
            (None, Some(rule)) => {
                let c: BTreeSet<Pair> = before
                    .iter()
                    .find(|s| s.iter().any(|p| p.0 == rule))
                    .map(|s| s.iter().filter(|p| p.0 == rule).copied().collect())
                    .unwrap_or_default();
                if c.is_empty() {
                    return false;
                }
                (opts(vec![rule], false), c)
            }
            (None, None) => {
                // Nothing to keep: a clear error, exit 2.
                assert!(run(&name, &bytes, &opts(vec![], false)).is_err(), "{name}");
                return false;
            }
        };
        let allowed: BTreeSet<Pair> = before.iter().flatten().copied().collect();
        let out = run(&name, &bytes, &o).unwrap_or_else(|e| panic!("{name}: {e}"));
        let after = streams_pairs(&name, &out.output)
            .unwrap_or_else(|| panic!("{name}: output is not a capture"));
        assert_eq!(after.len(), 1, "{name}: one stream");
        let after = &after[0];
        for p in &chosen {
            assert!(after.contains(p), "{name}: {p:?} lost; after: {after:?}");
        }
        for p in at_least_warning(after) {
            assert!(allowed.contains(&p), "{name}: new {p:?}");
        }
        if o.rules.is_empty() {
            assert_eq!(at_least_warning(after), chosen, "{name}");
        }
        // The same fault, not another one under the same rule name.
        let (want, got) = (shapes(&name, &bytes), shapes(&name, &out.output));
        for p in &chosen {
            if let Some(w) = want.get(p) {
                let g = got.get(p).cloned().unwrap_or_default();
                assert!(
                    !g.is_empty() && g.is_subset(w),
                    "{name}: {p:?} says another thing now: {g:#?}\nbefore: {w:#?}"
                );
            }
        }
        // HAR metadata stays whole (HAR 1.2: an ISO 8601 date).
        if name.ends_with(".har") {
            let doc: serde_json::Value = serde_json::from_slice(&out.output).unwrap();
            let d = doc["log"]["entries"][0]["startedDateTime"]
                .as_str()
                .unwrap_or("");
            let input: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            let dates: Vec<&str> = input["log"]["entries"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|e| e["startedDateTime"].as_str())
                .collect();
            assert!(
                dates.contains(&d),
                "{name}: startedDateTime {d:?}, input {dates:?}"
            );
        }
        assert!(
            out.output.len() <= bytes.len(),
            "{name}: {} > {} bytes",
            out.output.len(),
            bytes.len()
        );
        // Idempotent: byte for byte.
        let again = run(&name, &out.output, &o).unwrap_or_else(|e| panic!("{name} again: {e}"));
        assert!(
            again.output == out.output,
            "{name}: minimizing the output changed it:\n{}\n---\n{}",
            String::from_utf8_lossy(&out.output),
            String::from_utf8_lossy(&again.output)
        );
        // No secret, no answer word.
        let text = String::from_utf8_lossy(&out.output);
        for s in secrets(&String::from_utf8_lossy(&bytes)) {
            assert!(!text.contains(&s), "{name}: secret {s:?} in the output");
        }
        for w in answer_words(&path, &bytes) {
            assert!(
                !text.contains(&w),
                "{name}: answer word {w:?} in the output:\n{text}"
            );
        }
        let leaked: Vec<String> = text_words(&name, &bytes)
            .intersection(&text_words(&name, &out.output))
            .cloned()
            .collect();
        assert!(
            leaked.is_empty(),
            "{name}: text {leaked:?} in the output:\n{text}"
        );
    }
    true
}

#[test]
fn faults_a_trial_saw_change_under_the_same_rule_stay_the_same() {
    // A fresh-user trial: minimizing kept the rule but not the fault
    // ("chat.completions.chunk" shortened to "chat.com", "3 follows 6"
    // turned into "lack sequence_number", curl's explanation dropped).
    for f in [
        "bad/object-value.sse",
        "bad/responses-unknown-event.sse",
        "bad/messages-thinking-signature.sse",
        "bad/messages-block-index.sse",
        "bad/responses-sequence-number.sse",
        "bad/responses-arguments-json.sse",
        "bad/responses-delta-mismatch.sse",
        "bad/responses-created-first.sse",
        "bad/responses-missing-field.sse",
        "bad/messages-schema.sse",
        "bad/messages-block-not-open.sse",
        "bad/empty-answer.sse",
        "curl/curl-error-18.txt",
        "curl/curl-gzip-truncated.bin",
        "curl/curl-raw-cut.txt",
    ] {
        assert!(
            minimize_one(&root().join("samples").join(f)),
            "{f}: not minimized"
        );
    }
    // The README's promise: a curl dump keeps curl's own error line.
    let p = root().join("samples/curl/curl-error-18.txt");
    let out = run(
        "curl-error-18.txt",
        &std::fs::read(&p).unwrap(),
        &opts(vec![], false),
    )
    .unwrap();
    let text = String::from_utf8_lossy(&out.output);
    assert!(text.contains("curl: (18)"), "{text}");
}

/// The messages of a rule's findings in a capture's bytes.
fn messages(name: &str, bytes: &[u8], rule: &str) -> Vec<String> {
    let mut o = capture::Options::default();
    if name.ends_with(".har") {
        o.input_format = Some(capture::InputFormat::Har);
    }
    let cap = capture::from_reader(name, Box::new(std::io::Cursor::new(bytes.to_vec())), &o)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    lint_capture(cap, &Settings::default(), &mut NoObserver)
        .streams
        .into_iter()
        .flat_map(|s| s.diagnostics)
        .filter(|d| d.rule == rule)
        .map(|d| d.message)
        .collect()
}

#[test]
fn a_kept_finding_is_the_same_fault_not_a_look_alike() {
    // A fresh-user trial: "sequence_number 3 follows 6" (the numbers go
    // back) was minimized to "6 follows 6" (a repeat), and the delta
    // mismatch of `response.output_text.done` to one of
    // `response.output_item.done`: the same rule, another fault.
    let read = |f: &str| std::fs::read(root().join("samples").join(f)).unwrap();
    let f = "bad/responses-sequence-number.sse";
    let out = run(f, &read(f), &opts(vec!["responses-sequence-number"], false)).unwrap();
    let pair = |m: &str| -> (u64, u64) {
        let rest = m.split("sequence_number ").nth(1).unwrap_or("");
        let mut n = rest
            .split(|c: char| !c.is_ascii_digit())
            .filter(|t| !t.is_empty())
            .map(|t| t.parse::<u64>().unwrap());
        (n.next().unwrap(), n.next().unwrap())
    };
    for m in messages(f, &read(f), "responses-sequence-number") {
        let (a, b) = pair(&m);
        assert!(a < b, "the sample's fault: {m}");
    }
    let after = messages(f, &out.output, "responses-sequence-number");
    assert!(!after.is_empty());
    for m in &after {
        let (a, b) = pair(m);
        assert!(a < b, "the numbers no longer go back: {m}");
    }
    let f = "bad/responses-delta-mismatch.sse";
    let out = run(f, &read(f), &opts(vec![], false)).unwrap();
    let event = |m: &str| m.split('`').nth(1).unwrap_or("").to_string();
    let before: BTreeSet<String> = messages(f, &read(f), "responses-delta-mismatch")
        .iter()
        .map(|m| event(m))
        .collect();
    let after: BTreeSet<String> = messages(f, &out.output, "responses-delta-mismatch")
        .iter()
        .map(|m| event(m))
        .collect();
    assert!(
        !after.is_empty() && after.is_subset(&before),
        "{after:?}, input {before:?}"
    );
}

/// The strings under text keys (`content`, `text`, a string `delta`,
/// `thinking`) in the `data` lines of a capture's bytes.
fn texts_of(bytes: &[u8]) -> Vec<String> {
    fn walk(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    match x {
                        serde_json::Value::String(t)
                            if ["content", "text", "delta", "thinking"].contains(&k.as_str()) =>
                        {
                            out.push(t.clone());
                        }
                        _ => walk(x, out),
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for l in String::from_utf8_lossy(bytes).lines() {
        if let Some(v) = l
            .strip_prefix("data:")
            .and_then(|d| serde_json::from_str::<serde_json::Value>(d.trim()).ok())
        {
            walk(&v, &mut out);
        }
    }
    out
}

#[test]
fn the_text_is_scrubbed_flat_unless_a_finding_needs_its_letter_patterns() {
    // A fresh-user trial: the scrubbed text was a substitution cipher of
    // the answer ("Hi there!" -> "Aa bcded!"), which frequency analysis
    // reads. Every letter is now x (X), every digit 0.
    for f in [
        "bad/messages-block-not-open.sse",
        "bad/responses-after-done.sse",
        "bad/missing-separator.sse",
        "bad/responses-arguments-json.sse",
    ] {
        let bytes = std::fs::read(root().join("samples").join(f)).unwrap();
        let out = run(f, &bytes, &opts(vec![], false)).unwrap();
        let texts = texts_of(&out.output);
        assert!(!texts.is_empty(), "{f}: no text kept");
        for t in &texts {
            assert!(
                t.chars()
                    .all(|c| !c.is_ascii_alphanumeric() || "xX0".contains(c)),
                "{f}: {t:?} is not scrubbed flat"
            );
        }
        assert!(
            !out.notes.iter().any(|n| n.contains("letter patterns")),
            "{f}: {:?}",
            out.notes
        );
    }
}

#[test]
fn a_har_cut_by_the_capture_tool_keeps_its_evidence() {
    // A fresh-user trial: firefox-truncated.har (capture-truncated: the
    // body is exactly Firefox's 1 MiB limit, content.size says more) spent
    // the whole budget, every cut losing the finding, and the report said
    // to raise --max-steps. The body's size is the evidence: it stays
    // whole, the run ends on its own, and a note says why.
    let f = "har/firefox-truncated.har";
    let bytes = std::fs::read(root().join("samples").join(f)).unwrap();
    let out = run(f, &bytes, &opts(vec![], false)).unwrap();
    assert_eq!(out.stopped, None, "{:?}", out.notes);
    assert!(
        out.notes
            .iter()
            .any(|n| n.contains("1 MiB") && n.contains("capture-truncated")),
        "{:?}",
        out.notes
    );
    assert_eq!(
        messages(f, &out.output, "capture-truncated").len(),
        1,
        "{}",
        out.output.len()
    );
    assert!(out.output.len() <= bytes.len());
    // A body that merely holds less than content.size says: the gap
    // follows the cuts, and the finding stays.
    let mut doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root().join("samples/har/chrome.har")).unwrap())
            .unwrap();
    for e in doc["log"]["entries"].as_array_mut().unwrap() {
        let c = &mut e["response"]["content"];
        if c["mimeType"]
            .as_str()
            .unwrap_or("")
            .contains("event-stream")
        {
            let n = c["text"].as_str().unwrap().len();
            c["size"] = serde_json::Value::from(n + 500);
        }
    }
    let bytes = serde_json::to_vec(&doc).unwrap();
    // Its whole ending was saved, so capture-truncated is info here, below
    // what minimize keeps by default: it is named.
    let out = run("cut.har", &bytes, &opts(vec!["capture-truncated"], false)).unwrap();
    assert!(out.chosen.iter().any(|p| p.0 == "capture-truncated"));
    assert_eq!(out.stopped, None);
    let m = messages("cut.har", &out.output, "capture-truncated");
    assert!(m.iter().any(|m| m.contains("content.size says")), "{m:?}");
    assert!(out.size_after.events < out.size_before.events);
}

#[test]
fn keep_text_keeps_the_answer_and_still_drops_secrets() {
    let p = root().join("samples/bad/cut-off.sse");
    let bytes = std::fs::read(&p).unwrap();
    let out = run("cut-off.sse", &bytes, &opts(vec!["cut-off"], true)).unwrap();
    // The cut-off fault needs only the stream's start; what text remains is
    // the input's own.
    let text = String::from_utf8_lossy(&out.output).into_owned();
    let input = String::from_utf8_lossy(&bytes);
    for line in text.lines().filter(|l| l.starts_with("data:")) {
        let v: serde_json::Value = serde_json::from_str(&line[5..]).unwrap();
        if let Some(c) = v
            .pointer("/choices/0/delta/content")
            .and_then(|c| c.as_str())
        {
            assert!(input.contains(c), "{c:?}");
        }
    }
    let har = std::fs::read(root().join("samples/har/har-secrets.har")).unwrap();
    let out = run(
        "har-secrets.har",
        &har,
        &opts(vec!["vendor-extension"], true),
    );
    if let Ok(out) = out {
        let text = String::from_utf8_lossy(&out.output);
        for s in secrets(&String::from_utf8_lossy(&har)) {
            assert!(!text.contains(&s), "secret {s:?}");
        }
    }
}

#[test]
fn a_long_capture_is_cut_to_a_few_events_in_few_relints() {
    // 3,000 good chunks, then a broken one, then 3,000 more and the end.
    let chunk = |i: usize| {
        format!("data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"w{i} \"}},\"finish_reason\":null}}]}}\n\n")
    };
    let mut s = String::from("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n");
    for i in 0..3000 {
        s.push_str(&chunk(i));
    }
    s.push_str("data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"\n\n");
    for i in 0..3000 {
        s.push_str(&chunk(i));
    }
    s.push_str("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
    let out = run("long.sse", s.as_bytes(), &opts(vec![], false)).unwrap();
    assert!(
        out.chosen.iter().any(|p| p.0 == "invalid-json"),
        "{:?}",
        out.chosen
    );
    assert!(
        out.size_after.events <= 4,
        "{} events",
        out.size_after.events
    );
    assert!(out.relints < 400, "{} re-lints", out.relints);
    assert_eq!(
        out.before
            .keys()
            .filter(|p| p.1 >= Severity::Warning)
            .count(),
        out.after
            .keys()
            .filter(|p| p.1 >= Severity::Warning)
            .count()
    );
}

#[test]
fn the_budget_stops_early_with_the_best_so_far() {
    let bytes = std::fs::read(root().join("samples/bad/missing-done.sse")).unwrap();
    let mut o = opts(vec![], false);
    o.max_steps = 5;
    let out = run("missing-done.sse", &bytes, &o).unwrap();
    assert_eq!(out.stopped, Some(minimize::Stopped::Budget));
    let after = streams_pairs("x.sse", &out.output).unwrap();
    assert!(after[0].iter().any(|p| p.0 == "missing-done"));
}

#[test]
fn max_steps_is_a_hard_limit_on_the_relints() {
    // A fresh-user trial: --max-steps 1 reported 4 re-lints, N gave N+1.
    // content-after-finish is info on this sample: named, so it is kept.
    let bytes = std::fs::read(root().join("samples/bad/content-after-finish.sse")).unwrap();
    for n in [0u64, 1, 2, 5, 17] {
        let mut o = opts(vec!["content-after-finish"], false);
        o.max_steps = n;
        let out = run("c.sse", &bytes, &o).unwrap();
        assert_eq!(out.relints, n, "--max-steps {n}");
        assert_eq!(
            out.stopped,
            Some(minimize::Stopped::Budget),
            "--max-steps {n}"
        );
        let after = streams_pairs("x.sse", &out.output).unwrap();
        assert!(
            after[0].iter().any(|p| p.0 == "content-after-finish"),
            "{n}"
        );
    }
    // Unbounded, a run reports what it used, under the default budget.
    let out = run("c.sse", &bytes, &opts(vec!["content-after-finish"], false)).unwrap();
    assert!(
        out.stopped.is_none() && out.relints > 17 && out.relints <= minimize::DEFAULT_MAX_STEPS
    );
}

#[test]
fn a_raised_stop_flag_writes_the_input_redacted() {
    let bytes = std::fs::read(root().join("samples/bad/missing-done.sse")).unwrap();
    let out = minimize::minimize(
        "m.sse",
        &bytes,
        &opts(vec![], false),
        &AtomicBool::new(true),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(out.stopped, Some(minimize::Stopped::Interrupted));
    let after = streams_pairs("x.sse", &out.output).unwrap();
    assert!(after[0].iter().any(|p| p.0 == "missing-done"));
}

mod mutations {
    use super::*;
    use proptest::prelude::*;

    /// Raw SSE bad samples, split into blocks at blank lines.
    fn samples() -> Vec<(String, Vec<String>)> {
        common::samples("bad")
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "sse"))
            .filter_map(|p| {
                let t = std::fs::read_to_string(&p).ok()?;
                let blocks: Vec<String> = t.split_inclusive("\n\n").map(str::to_string).collect();
                Some((p.to_string_lossy().into_owned(), blocks))
            })
            .collect()
    }

    #[derive(Debug, Clone)]
    enum Mutation {
        Drop(usize),
        Duplicate(usize),
        Swap(usize),
        Cut(usize),
    }

    fn mutation() -> impl Strategy<Value = Mutation> {
        prop_oneof![
            (0..64usize).prop_map(Mutation::Drop),
            (0..64usize).prop_map(Mutation::Duplicate),
            (0..64usize).prop_map(Mutation::Swap),
            (0..4096usize).prop_map(Mutation::Cut),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
        #[test]
        fn mutated_samples_keep_their_findings(pick in 0..1000usize, muts in proptest::collection::vec(mutation(), 1..4)) {
            let all = samples();
            let (name, mut blocks) = all[pick % all.len()].clone();
            for m in muts {
                let n = blocks.len();
                if n == 0 { break; }
                match m {
                    Mutation::Drop(i) => { blocks.remove(i % n); }
                    Mutation::Duplicate(i) => { let b = blocks[i % n].clone(); blocks.insert(i % n, b); }
                    Mutation::Swap(i) => { if n > 1 { blocks.swap(i % n, (i + 1) % n); } }
                    Mutation::Cut(at) => {
                        let mut joined: Vec<u8> = blocks.concat().into_bytes();
                        joined.truncate(at % (joined.len() + 1));
                        blocks = vec![String::from_utf8_lossy(&joined).into_owned()];
                    }
                }
            }
            let bytes = blocks.concat().into_bytes();
            let before = streams_pairs("m.sse", &bytes).unwrap();
            let chosen = at_least_warning(&before[0]);
            prop_assume!(!chosen.is_empty());
            let out = run(&name, &bytes, &opts(vec![], false)).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let after = streams_pairs("m.sse", &out.output).unwrap();
            prop_assert_eq!(at_least_warning(&after[0]), chosen);
            prop_assert!(out.output.len() <= bytes.len());
        }
    }
}

fn sselint() -> Command {
    let mut c = Command::cargo_bin("sselint").unwrap();
    c.current_dir(std::env::temp_dir());
    c
}

fn scratch(name: &str) -> common::Scratch {
    common::Scratch::new(&format!("minimize-{name}"))
}

#[test]
fn an_output_on_stdout_gets_the_report_on_stderr() {
    // A fresh-user trial: `-o /dev/stdout` mixed the report into the
    // capture written there.
    let input = root().join("samples/bad/cut-off.sse");
    let a = sselint()
        .arg("minimize")
        .arg(&input)
        .args(["-o", "/dev/stdout", "--no-config"])
        .assert()
        .success();
    let out = a.get_output();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("minimized "), "{stderr}");
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("minimized "),
        "the report is on stdout"
    );
    let pairs = streams_pairs("o.sse", &out.stdout).unwrap();
    assert!(pairs[0].iter().any(|p| p.0 == "cut-off"), "{pairs:?}");
    // `-` is refused, and the message names the way that works.
    let a = sselint()
        .arg("minimize")
        .arg(&input)
        .args(["-o", "-"])
        .assert()
        .code(2);
    let e = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(e.contains("/dev/stdout"), "{e}");
}

#[test]
fn the_command_writes_next_to_the_input_reports_and_refuses_to_overwrite() {
    let d = scratch("cli");
    let input = d.join("cut.sse");
    std::fs::copy(root().join("samples/bad/cut-off.sse"), &input).unwrap();
    let out = sselint().arg("minimize").arg(&input).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = String::from_utf8_lossy(&out.stdout);
    let written = d.join("cut.min.sse");
    assert!(written.exists(), "{report}");
    for want in [
        "events: 9 → ",
        "kept:   cut-off (error)",
        "before: ",
        "after: ",
        "re-lints",
        "check it: sselint check ",
    ] {
        assert!(report.contains(want), "{want:?} in {report}");
    }
    // Again: the output exists.
    let again = sselint().arg("minimize").arg(&input).output().unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists; use --force"));
    // --force replaces it; -o the input itself is refused even so.
    sselint()
        .arg("minimize")
        .arg(&input)
        .arg("--force")
        .assert()
        .success();
    let same = sselint()
        .arg("minimize")
        .arg(&input)
        .arg("-o")
        .arg(&input)
        .arg("--force")
        .output()
        .unwrap();
    assert_eq!(same.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&same.stderr).contains("must not be the input"));
    assert_eq!(
        std::fs::read(&input).unwrap(),
        std::fs::read(root().join("samples/bad/cut-off.sse")).unwrap()
    );
    // JSON report.
    let j = sselint()
        .arg("minimize")
        .arg(&input)
        .args(["--force", "--format", "json"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&j.stdout).unwrap();
    assert_eq!(doc["kept"][0]["rule"], "cut-off");
    assert!(doc["after"]["bytes"].as_u64() < doc["before"]["bytes"].as_u64());
    assert!(doc["check"].as_str().unwrap().starts_with("sselint check "));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn the_configuration_used_is_reported_and_can_be_turned_off() {
    // A fresh-user trial: in a directory whose sselint.toml turned
    // missing-done off, minimize dropped `[DONE]` and said nothing.
    let d = scratch("config");
    std::fs::write(
        d.join("sselint.toml"),
        "[rules]\ncomment = \"error\"\nmissing-done = \"off\"\n",
    )
    .unwrap();
    std::fs::copy(root().join("samples/bad/cut-off.sse"), d.join("cut.sse")).unwrap();
    let go = |extra: &[&str]| {
        let out = Command::cargo_bin("sselint")
            .unwrap()
            .current_dir(&d)
            .args([
                "minimize", "cut.sse", "-o", "o.sse", "--force", "--format", "json",
            ])
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let with = go(&[]);
    assert!(
        with["config"].as_str().unwrap().ends_with("sselint.toml"),
        "{with}"
    );
    let without = go(&["--no-config"]);
    assert!(
        without["config"].as_str().unwrap().starts_with("none"),
        "{without}"
    );
    assert!(
        without["check"].as_str().unwrap().ends_with("--no-config"),
        "{without}"
    );
    let named = go(&["--config", "sselint.toml"]);
    assert!(
        named["check"]
            .as_str()
            .unwrap()
            .contains("--config sselint.toml"),
        "{named}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn errors_name_the_true_cause() {
    // A fresh-user trial got "a redacted, text-scrubbed copy already
    // differs; --keep-text …" for both of these.
    // A curl trace with a 14 s stall: the dump is written back without
    // its times.
    let trace = std::fs::read_to_string(root().join("samples/curl/curl-trace-ascii.txt")).unwrap();
    let mut recv = 0;
    let stalled: Vec<String> = trace
        .lines()
        .map(|l| {
            if l.contains("<= Recv data") {
                recv += 1;
            }
            match (
                recv >= 2,
                l.get(..15).and_then(|t| t.get(6..8)?.parse::<u32>().ok()),
            ) {
                (true, Some(sec)) if l.as_bytes().get(2) == Some(&b':') => {
                    let (min, sec) = (
                        l[3..5].parse::<u32>().unwrap() + (sec + 14) / 60,
                        (sec + 14) % 60,
                    );
                    format!("{}:{min:02}:{sec:02}{}", &l[..2], &l[8..])
                }
                _ => l.to_string(),
            }
        })
        .collect();
    let stalled = stalled.join("\n");
    let lint = streams_pairs("trace-stall.txt", stalled.as_bytes()).unwrap();
    assert!(lint[0].iter().any(|p| p.0 == "stall"), "{lint:?}");
    for keep_text in [false, true] {
        let e = run(
            "trace-stall.txt",
            stalled.as_bytes(),
            &opts(vec!["stall"], keep_text),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("needs the capture's timing") && !e.contains("--keep-text"),
            "{e}"
        );
    }
    // A HAR entry that is no stream.
    let har = std::fs::read(root().join("samples/har/chrome.har")).unwrap();
    let mut o = opts(vec![], false);
    o.capture.entry = Some(1);
    let e = run("chrome.har", &har, &o).unwrap_err().to_string();
    assert!(e.contains("not an event stream"), "{e}");
}

#[test]
fn bad_input_is_a_clear_error_naming_the_file() {
    let d = scratch("bad");
    let junk = d.join("junk.har");
    std::fs::write(&junk, b"{\"log\": 3").unwrap();
    for (args, want) in [
        (vec![junk.to_string_lossy().into_owned()], "junk.har"),
        (
            vec![d.join("missing.sse").to_string_lossy().into_owned()],
            "missing.sse: no such file",
        ),
        (vec![d.to_string_lossy().into_owned()], "is a directory"),
        (
            vec![
                root()
                    .join("samples/good/openai-basic.sse")
                    .to_string_lossy()
                    .into_owned(),
                "-o".into(),
                d.join("o.sse").to_string_lossy().into_owned(),
            ],
            "nothing to minimize",
        ),
        (
            vec![
                root()
                    .join("samples/bad/cut-off.sse")
                    .to_string_lossy()
                    .into_owned(),
                "--rule".into(),
                "missing-done".into(),
                "-o".into(),
                d.join("o.sse").to_string_lossy().into_owned(),
            ],
            "missing-done",
        ),
    ] {
        let out = sselint().arg("minimize").args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(want) && !err.contains("panicked"),
            "{want:?} in {err}"
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn help_teaches_with_examples() {
    let out = sselint().args(["minimize", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    for want in [
        "Examples:",
        "--rule",
        "--keep-text",
        "--max-steps",
        "--force",
        "sselint minimize capture.sse",
    ] {
        assert!(help.contains(want), "{want:?}");
    }
}

#[test]
fn a_har_stays_a_one_entry_har_and_keeps_the_request_only_where_read() {
    // usage-missing needs the request's stream_options.include_usage.
    let bytes = std::fs::read(root().join("samples/bad/usage-missing.har")).unwrap();
    let out = run(
        "usage-missing.har",
        &bytes,
        &opts(vec!["usage-missing"], false),
    )
    .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.output).unwrap();
    assert_eq!(doc["log"]["entries"].as_array().unwrap().len(), 1);
    let req = doc["log"]["entries"][0]["request"]["postData"]["text"]
        .as_str()
        .unwrap();
    assert!(req.contains("include_usage"), "{req}");
    // The request's bodySize follows the body kept (a trial saw 147 for 41).
    let size = doc["log"]["entries"][0]["request"]["bodySize"].as_u64();
    assert_eq!(size, Some(req.len() as u64), "{doc:#}");
    // A fault in the body alone needs no request body.
    let bytes = std::fs::read(root().join("samples/bad/buffered.har")).unwrap();
    let out = run("buffered.har", &bytes, &opts(vec!["buffered"], false)).unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.output).unwrap();
    assert!(
        doc.pointer("/log/entries/0/request/postData").is_none(),
        "{doc:#}"
    );
    // Nor a query string: a fresh-user trial saw `user=jonathan.smithers`
    // kept next to the redacted key.
    let mut har: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    let e = &mut har["log"]["entries"][0]["request"];
    let url = e["url"]
        .as_str()
        .unwrap()
        .split('?')
        .next()
        .unwrap()
        .to_string();
    e["url"] = format!("{url}?api_key=SECRETKEY123&user=jonathan.smithers").into();
    e["queryString"] = serde_json::json!([
        {"name": "api_key", "value": "SECRETKEY123"},
        {"name": "user", "value": "jonathan.smithers"},
    ]);
    let bytes = serde_json::to_vec(&har).unwrap();
    let out = run("buffered.har", &bytes, &opts(vec!["buffered"], false)).unwrap();
    let text = String::from_utf8_lossy(&out.output);
    assert!(
        !text.contains("jonathan") && !text.contains("SECRETKEY"),
        "{text}"
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.output).unwrap();
    assert_eq!(doc["log"]["entries"][0]["request"]["url"], url.as_str());
}

#[test]
fn secrets_in_headers_urls_and_bodies_never_reach_the_output() {
    const KEY: &str = "sk-live-SECRET0123456789abcdef";
    const XKEY: &str = "xk-9f8e7d6c5b4a39281706";
    const COOKIE: &str = "session=c0ffee15deadbeef";
    // A curl -v dump around a body with a fault (cumulative text), and the
    // same body in a HAR whose request needs stream_options.
    let body = std::fs::read_to_string(root().join("samples/bad/cumulative-content.sse")).unwrap();
    let dump = format!(
        "* Connected to api.example.com\n> POST /v1/chat/completions?api_key={XKEY} HTTP/1.1\r\n> Host: api.example.com\r\n> Authorization: Bearer {KEY}\r\n> x-api-key: {XKEY}\r\n> Cookie: {COOKIE}\r\n>\r\n< HTTP/1.1 200 OK\r\n< Content-Type: text/event-stream\r\n< Set-Cookie: {COOKIE}\r\n<\r\n{body}"
    );
    let mut har: serde_json::Value = serde_json::from_slice(
        &std::fs::read(root().join("samples/bad/usage-missing.har")).unwrap(),
    )
    .unwrap();
    let e = &mut har["log"]["entries"][0];
    e["request"]["url"] = format!("https://api.example.com/v1/chat/completions?key={XKEY}").into();
    e["request"]["headers"] = serde_json::json!([
        {"name": "Authorization", "value": format!("Bearer {KEY}")},
        {"name": "x-api-key", "value": XKEY},
        {"name": "Cookie", "value": COOKIE},
    ]);
    e["request"]["postData"]["text"] = serde_json::json!({
        "model": "m", "stream": true, "stream_options": {"include_usage": true}, "api_key": KEY,
        "messages": [{"role": "user", "content": "Summarise the confidential quarterly figures"}]
    })
    .to_string()
    .into();
    let har = serde_json::to_vec_pretty(&har).unwrap();
    for (name, bytes) in [("dump.txt", dump.into_bytes()), ("cap.har", har)] {
        let input = String::from_utf8_lossy(&bytes).into_owned();
        assert!(input.contains(KEY) && input.contains(XKEY) && input.contains(COOKIE));
        for keep_text in [false, true] {
            let out = run(
                name,
                &bytes,
                &opts(
                    if name == "cap.har" {
                        vec!["usage-missing"]
                    } else {
                        vec![]
                    },
                    keep_text,
                ),
            )
            .unwrap_or_else(|e| panic!("{name}: {e}"));
            let text = String::from_utf8_lossy(&out.output);
            for s in [KEY, XKEY, COOKIE, "c0ffee15"] {
                assert!(!text.contains(s), "{name}: {s} in\n{text}");
            }
            if !keep_text {
                for w in ["confidential", "quarterly", "Summarise"] {
                    assert!(!text.contains(w), "{name}: {w} in\n{text}");
                }
            }
            assert!(!out.chosen.is_empty(), "{name}");
        }
    }
}

/// Bytes from a fixed seed (xorshift64*), the same on every run.
fn seeded_bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8
        })
        .collect()
}

#[test]
fn binary_junk_is_never_grown_and_minimizes_to_a_fixed_point() {
    // A fresh-user trial: `?\x14` became `?\u{14}` (a control byte after a
    // `?` rewritten as an escape, as a URL shown on a terminal is), and
    // 5,000 random bytes grew to 6,045, then 6,514 when minimized again.
    for (name, bytes) in [
        ("q.sse", b"?\x14".to_vec()),
        ("bin.sse", seeded_bytes(0x5e5e_1147, 5000)),
    ] {
        for keep_text in [false, true] {
            let o = opts(vec![], keep_text);
            let once = run(name, &bytes, &o).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(
                once.output.len() <= bytes.len(),
                "{name}: {} bytes → {}",
                bytes.len(),
                once.output.len()
            );
            let twice = run(name, &once.output, &o).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(twice.output, once.output, "{name}: not idempotent");
        }
    }
    // The control byte stays a byte.
    let q = run("q.sse", b"?\x14", &opts(vec![], false)).unwrap();
    assert_eq!(q.output, b"?\x14");
}

#[test]
fn an_input_that_is_no_regular_file_needs_o() {
    // A fresh-user trial: `minimize /dev/null` wrote /dev/null.min.sse.
    let a = sselint()
        .args(["minimize", "/dev/null", "--no-config"])
        .assert()
        .code(2);
    let e = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(e.contains("/dev/null") && e.contains("-o"), "{e}");
    assert!(!Path::new("/dev/null.min.sse").exists());
    #[cfg(unix)]
    {
        let d = scratch("fifo-in");
        let fifo = d.join("in.fifo");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let a = sselint()
            .arg("minimize")
            .arg(&fifo)
            .arg("--no-config")
            .assert()
            .code(2);
        let e = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
        assert!(e.contains("-o"), "{e}");
        let left: Vec<_> = std::fs::read_dir(&d).unwrap().flatten().collect();
        assert_eq!(left.len(), 1, "only the FIFO: {left:?}");
    }
}

#[test]
fn an_empty_rule_is_a_usage_error() {
    let input = root().join("samples/bad/cut-off.sse");
    for empty in ["", ","] {
        let d = scratch("empty-rule");
        let a = sselint()
            .arg("minimize")
            .arg(&input)
            .arg("-o")
            .arg(d.join("o.sse"))
            .args(["--no-config", "--rule", empty])
            .assert()
            .code(2);
        let e = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
        assert!(e.contains("--rule"), "{empty:?}: {e}");
        assert!(!d.join("o.sse").exists());
        // Said first, also when the output exists (found by a trial: it
        // said "already exists; use --force").
        std::fs::write(d.join("o.sse"), "mine").unwrap();
        let a = sselint()
            .arg("minimize")
            .arg(&input)
            .arg("-o")
            .arg(d.join("o.sse"))
            .args(["--no-config", "--rule", empty])
            .assert()
            .code(2);
        let e = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
        assert!(e.contains("empty rule name"), "{empty:?}: {e}");
        assert_eq!(std::fs::read_to_string(d.join("o.sse")).unwrap(), "mine");
    }
    // An unknown rule too.
    let d = scratch("unknown-rule");
    std::fs::write(d.join("o.sse"), "mine").unwrap();
    let a = sselint()
        .arg("minimize")
        .arg(&input)
        .arg("-o")
        .arg(d.join("o.sse"))
        .args(["--no-config", "--rule", "nosuch"])
        .assert()
        .code(2);
    let e = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(e.contains("nosuch") && !e.contains("already exists"), "{e}");
}

/// The report's `check it: …` line.
fn check_line(report: &str) -> String {
    report
        .lines()
        .find_map(|l| l.strip_prefix("check it: "))
        .unwrap_or_else(|| panic!("no check line in\n{report}"))
        .to_string()
}

#[test]
fn the_check_line_repeats_the_options_the_findings_depend_on() {
    // A fresh-user trial: with --max-event-bytes the line left it out, and
    // the command it gave showed no event-too-large.
    let d = scratch("check-line");
    let input = d.join("cut.sse");
    std::fs::copy(root().join("samples/bad/cut-off.sse"), &input).unwrap();
    let out = d.join("small.sse");
    let a = sselint()
        .arg("minimize")
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .args(["--no-config", "--max-event-bytes", "100"])
        .args(["--max-decoded-bytes", "5000", "--input-format", "sse"])
        .args(["--dialect", "chat", "--profile", "openai"])
        .assert()
        .success();
    let report = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
    assert!(report.contains("event-too-large (error)"), "{report}");
    let line = check_line(&report);
    for want in [
        "--no-config",
        "--max-event-bytes 100",
        "--max-decoded-bytes 5000",
        "--input-format sse",
        "--dialect chat",
        "--profile openai",
    ] {
        assert!(line.contains(want), "{want} missing: {line}");
    }
    // The line runs, and shows the kept finding.
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(&words[..2], ["sselint", "check"], "{line}");
    let shown = sselint()
        .args(&words[1..])
        .args(["--format", "json"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(
        text.contains("event-too-large"),
        "{line}\n{text}{}",
        String::from_utf8_lossy(&shown.stderr)
    );
}

#[test]
fn the_check_line_for_an_output_on_stdout_says_to_save_it() {
    let a = sselint()
        .arg("minimize")
        .arg(root().join("samples/bad/cut-off.sse"))
        .args(["-o", "/dev/stdout", "--no-config"])
        .assert()
        .success();
    let report = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    let line = check_line(&report);
    assert!(!line.contains("/dev/stdout"), "{line}");
    assert!(
        line.contains("save it") && line.contains("sselint check FILE --no-config"),
        "{line}"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn o_dev_stdout_redirected_to_a_file_is_written_through_and_appends() {
    // A fresh-user trial: `-o /dev/stdout > so.txt` said "already exists;
    // use --force", and with --force `>> so.txt` lost the earlier content.
    let d = scratch("stdout-file");
    let input = root().join("samples/bad/cut-off.sse");
    let so = d.join("so.txt");
    std::fs::write(&so, b"earlier;").unwrap();
    let redirect = |append: bool| {
        std::fs::OpenOptions::new()
            .append(append)
            .write(true)
            .truncate(!append)
            .open(&so)
            .unwrap()
    };
    let st = std::process::Command::new(assert_cmd::cargo::cargo_bin("sselint"))
        .arg("minimize")
        .arg(&input)
        .args(["-o", "/dev/stdout", "--no-config"])
        .stdout(redirect(true))
        .output()
        .unwrap();
    assert_eq!(
        st.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let got = std::fs::read(&so).unwrap();
    assert!(got.starts_with(b"earlier;"), "the earlier content was lost");
    let pairs = streams_pairs("o.sse", &got[b"earlier;".len()..]).unwrap();
    assert!(pairs[0].iter().any(|p| p.0 == "cut-off"), "{pairs:?}");
    // `>`: no --force needed either.
    let st = std::process::Command::new(assert_cmd::cargo::cargo_bin("sselint"))
        .arg("minimize")
        .arg(&input)
        .args(["-o", "/dev/stdout", "--no-config"])
        .stdout(redirect(false))
        .output()
        .unwrap();
    assert_eq!(
        st.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let got = std::fs::read(&so).unwrap();
    assert!(!got.starts_with(b"earlier;"));
    assert!(streams_pairs("o.sse", &got).is_some());
}

#[test]
fn candidates_are_read_with_the_inputs_capture_options() {
    // A fresh-user trial: `--input-format sse` on a curl dump with curl's
    // error line gave "cut-off with another message" (the copy dropped
    // the line the message quotes), and `--max-decoded-bytes 300` on a
    // gzip dump blamed the text scrub for a new cut-off.
    let d = scratch("capture-options");
    let out = d.join("e18.txt");
    let a = sselint()
        .arg("minimize")
        .arg(root().join("samples/curl/curl-error-18.txt"))
        .arg("-o")
        .arg(&out)
        .args(["--no-config", "--input-format", "sse"])
        .assert()
        .success();
    let report = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
    assert!(report.contains("kept:   cut-off (error)"), "{report}");
    let line = check_line(&report);
    let words: Vec<&str> = line.split_whitespace().collect();
    let shown = sselint()
        .args(&words[1..])
        .args(["--format", "json"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(text.contains("curl reported (18)"), "{line}\n{text}");
    let input = std::fs::metadata(root().join("samples/curl/curl-error-18.txt")).unwrap();
    assert!(std::fs::metadata(&out).unwrap().len() <= input.len());
    // The body cut where decoding stopped: said as it is, nothing written.
    let out = d.join("g.bin");
    let a = sselint()
        .arg("minimize")
        .arg(root().join("samples/curl/curl-gzip.bin"))
        .arg("-o")
        .arg(&out)
        .args(["--no-config", "--max-decoded-bytes", "300"])
        .assert()
        .code(2);
    let e = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(e.contains("--max-decoded-bytes 300"), "{e}");
    assert!(!e.contains("text-scrubbed"), "{e}");
    assert!(!out.exists());
}

/// Found by a fresh-user trial: a data value that is not JSON, and a body
/// that is neither SSE nor JSON, passed verbatim.
#[test]
fn text_that_is_not_json_is_scrubbed_flat() {
    let cases: [(&str, &[u8], &[&str]); 2] = [
        (
            "plain.sse",
            b"data: The capital\n\ndata:  of France is\n\ndata:  Paris, PRIVATEANSWER.\n\ndata: [DONE]\n\n",
            &["capital", "France", "Paris", "PRIVATEANSWER"],
        ),
        (
            "error.sse",
            b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":null}]}\n\ndata: Internal Server Error: PRIVATEPROMPT was too long 42\n\n",
            &["Internal", "PRIVATEPROMPT", "42"],
        ),
    ];
    for (name, bytes, words) in cases {
        let out = run(name, bytes, &opts(vec![], false)).unwrap();
        let text = String::from_utf8_lossy(&out.output);
        for w in words {
            assert!(!text.contains(w), "{name}: {w} kept: {text}");
        }
    }
}

/// Found by a fresh-user trial: an error event's message was kept word
/// for word, with the prompt it quoted and an `x-api-key: …` value.
#[test]
fn error_messages_are_scrubbed_and_their_secrets_masked() {
    let f = "bad/messages-error-event.sse";
    let bytes = std::fs::read_to_string(root().join("samples").join(f)).unwrap();
    let changed = bytes.replace(
        "Internal server error",
        "Your prompt PRIVATEPROMPT about grandma was rejected; key sk-ant-api03-AbCdEf0123456789xyz used, x-api-key: abcdef0123456789SECRETVAL",
    );
    assert_ne!(changed, bytes);
    let out = run(f, changed.as_bytes(), &opts(vec![], false)).unwrap();
    let text = String::from_utf8_lossy(&out.output);
    for w in ["PRIVATEPROMPT", "grandma", "AbCdEf0123456789", "SECRETVAL"] {
        assert!(!text.contains(w), "{w} kept: {text}");
    }
    // With --keep-text the words stay, the secrets do not.
    let out = run(f, changed.as_bytes(), &opts(vec![], true)).unwrap();
    let text = String::from_utf8_lossy(&out.output);
    assert!(text.contains("grandma"), "{text}");
    for w in ["AbCdEf0123456789", "SECRETVAL"] {
        assert!(!text.contains(w), "{w} kept: {text}");
    }
}

/// Found by a fresh-user trial: what a budget-limited run writes (and
/// `redact --scrub-text`) kept the request's text outside the messages'
/// content, and the answer's logprobs tokens and audio transcript.
#[test]
fn a_budget_limited_run_and_redact_scrub_every_text_of_the_request_and_answer() {
    let f = "bad/usage-missing.har";
    let mut doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root().join("samples").join(f)).unwrap()).unwrap();
    let request = serde_json::json!({
        "model": "gpt-4o-mini", "stream": true, "stream_options": {"include_usage": true},
        "user": "MARKUSER",
        "metadata": {"k": "MARKMETA"},
        "prediction": {"type": "content", "content": "MARKPRED"},
        "response_format": {"type": "json_schema", "json_schema": {"name": "MARKSCHEMANAME", "description": "MARKSCHEMADESC", "schema": {"type": "object", "properties": {"a": {"type": "string", "description": "MARKPROPDESC"}}}}},
        "tools": [{"type": "function", "function": {"name": "get_weather", "description": "MARKTOOLDESC", "parameters": {"type": "object"}}}],
        "messages": [
            {"role": "user", "name": "MARKNAME", "content": [{"type": "text", "text": "MARKTEXT"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,MARKIMAGE"}}]},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"MARKARGS\"}"}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "MARKTOOLRESULT"}
        ]
    });
    let e = &mut doc["log"]["entries"][0];
    e["request"]["postData"]["text"] = serde_json::Value::String(request.to_string());
    let body = e["response"]["content"]["text"]
        .as_str()
        .unwrap()
        .to_string();
    let body = body.replacen(
        r#"{"content":"Kangaroos"},"logprobs":null"#,
        r#"{"content":"Kangaroos","audio":{"transcript":"MARKAUDIO","data":"MARKSOUND"}},"logprobs":{"content":[{"token":"MARKLP","logprob":-0.1,"bytes":[77,65,82,75,76,80],"top_logprobs":[{"token":"MARKTOP","logprob":-0.2,"bytes":[77,65,82,75,84,79,80]}]}]}"#,
        1,
    );
    assert!(body.contains("MARKLP"));
    e["response"]["content"]["text"] = serde_json::Value::String(body);
    let markers = [
        "MARKUSER",
        "MARKMETA",
        "MARKPRED",
        "MARKSCHEMANAME",
        "MARKSCHEMADESC",
        "MARKPROPDESC",
        "MARKTOOLDESC",
        "MARKNAME",
        "MARKTEXT",
        "MARKIMAGE",
        "MARKARGS",
        "MARKTOOLRESULT",
        "MARKAUDIO",
        "MARKSOUND",
        "MARKLP",
        "MARKTOP",
        "77,65,82,75",
    ];
    let check = |what: &str, out: &str| {
        for m in markers {
            assert!(!out.contains(m), "{what}: {m} kept: {out}");
        }
        assert!(
            out.contains("get_weather") && out.contains("gpt-4o-mini"),
            "{what}: {out}"
        );
    };
    let bytes = serde_json::to_vec(&doc).unwrap();
    let mut o = opts(vec!["usage-missing"], false);
    o.max_steps = 0;
    let out = run("in.har", &bytes, &o).unwrap();
    check(
        "minimize --max-steps 0",
        &String::from_utf8_lossy(&out.output),
    );
    // Never larger than the input, even when nothing was cut (found by a
    // trial: the HAR was written indented, 116 % of a compact input), and
    // the same bytes when minimized again.
    assert!(
        out.output.len() <= bytes.len(),
        "{} > {}",
        out.output.len(),
        bytes.len()
    );
    let again = run("in.har", &out.output, &o).unwrap();
    assert_eq!(again.output, out.output);
    let dir = scratch("budget-scrub");
    let input = dir.join("in.har");
    std::fs::write(&input, &bytes).unwrap();
    let red = sselint()
        .args(["redact", "--scrub-text"])
        .arg(&input)
        .arg("-o")
        .arg("-")
        .output()
        .unwrap();
    assert!(
        red.status.success(),
        "{}",
        String::from_utf8_lossy(&red.stderr)
    );
    check("redact --scrub-text", &String::from_utf8_lossy(&red.stdout));
}

/// Found by a fresh-user trial: the flat scrub of a gzip body in a curl -i
/// dump fell back to the letter mapping with a false note: the compressed
/// bytes happened to hold a line starting with `:`, and the reader took
/// them for an already decoded SSE body.
#[test]
fn a_gzip_body_is_scrubbed_flat() {
    let f = "bad/event-too-large.bin";
    let bytes = std::fs::read(root().join("samples").join(f)).unwrap();
    let out = run(f, &bytes, &opts(vec![], false)).unwrap();
    assert!(
        !out.notes.iter().any(|n| n.contains("letter patterns")),
        "{:?}",
        out.notes
    );
}

/// Issue 25: minimize of a Messages stream dropped `type` from events
/// (`data: {}` for `message_stop`), and the reproducer gained
/// `messages-schema` findings the original did not have. What an event
/// keeps comes from its dialect (Messages' `type`; Responses' `type`,
/// `sequence_number` and ids).
#[test]
fn a_reproducer_keeps_what_its_dialect_reads_events_by_and_gains_no_finding() {
    let mut checked = 0;
    for p in corpus() {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let dialect_key = if name.starts_with("messages-") {
            "type"
        } else if name.starts_with("responses-") {
            "sequence_number"
        } else {
            continue;
        };
        let bytes = std::fs::read(&p).unwrap();
        let Ok(o) = run(&name, &bytes, &opts(vec![], false)) else {
            continue;
        };
        checked += 1;
        // No Messages schema finding above info that the input did not
        // have (dropping whole events may still leave a block unstopped,
        // as the input's fault can; a `message_start` without `role` is
        // info, as every client reads it). Responses reproducers keep
        // their events' type and numbering; the Response object's other
        // required fields may go (`responses-missing-field` infos).
        let before: BTreeSet<&str> = o.before.keys().map(|p| p.0).collect();
        let gained: Vec<_> = o
            .after
            .keys()
            .filter(|p| !before.contains(p.0))
            .filter(|p| p.0 == "messages-schema" && p.1 > sselint::lint::Severity::Info)
            .collect();
        assert!(gained.is_empty(), "{name}: gained {gained:?}");
        let text = String::from_utf8_lossy(&o.output);
        // (A vendor event ahead of `response.created` has no number.)
        for line in text
            .lines()
            .filter(|l| l.starts_with("data: {") && !l.contains("codex."))
        {
            assert!(
                line.contains(&format!("\"{dialect_key}\"")),
                "{name}: an event lost `{dialect_key}`: {line}"
            );
        }
    }
    assert!(checked > 20, "{checked}");
}

/// Issue 25: a scrubbed copy of a custom tool call gained a false
/// `responses-delta-mismatch` (its deltas scrubbed, its input not), so
/// minimize refused the capture.
#[test]
fn a_custom_tool_call_is_minimized_with_its_input_scrubbed_like_its_deltas() {
    let name = "tests/fixtures/seam/responses-custom-tool-usage.sse";
    let bytes = std::fs::read(root().join(name)).unwrap();
    let o = run(name, &bytes, &opts(vec!["responses-usage-mismatch"], false))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!o.after.keys().any(|p| p.0 == "responses-delta-mismatch"));
}

/// Issue 25: Chat's `cut-off` says how the transfer broke (curl's `(92)`
/// line, a HAR's `_error`); for Responses and Messages that was only a
/// note, so minimize dropped the curl line and the HAR's `_error` from the
/// reproducer. Their cut-off findings now cite it, and the reproducer
/// keeps it.
#[test]
fn a_cut_off_of_every_dialect_cites_the_broken_transfer_and_its_reproducer_keeps_it() {
    for (name, rule, evidence) in [
        (
            "tests/fixtures/seam/messages-curl-92.txt",
            "messages-cut-off",
            "curl: (92)",
        ),
        (
            "tests/fixtures/seam/responses-har-error.har",
            "responses-cut-off",
            "net::ERR_HTTP2_PROTOCOL_ERROR",
        ),
    ] {
        let bytes = std::fs::read(root().join(name)).unwrap();
        let cap = capture::from_reader(
            name,
            Box::new(std::io::Cursor::new(bytes.clone())),
            &capture::Options::default(),
        )
        .unwrap();
        let r = lint_capture(cap, &Settings::default(), &mut NoObserver);
        let d = r.streams[0]
            .diagnostics
            .iter()
            .find(|d| d.rule == rule)
            .unwrap_or_else(|| panic!("{name}: no {rule}"));
        assert!(
            d.message.contains("the transfer broke"),
            "{name}: {}",
            d.message
        );
        let o = run(name, &bytes, &opts(vec![], false)).unwrap_or_else(|e| panic!("{e}"));
        let out = String::from_utf8_lossy(&o.output);
        assert!(out.contains(evidence), "{name}: {out}");
    }
}
