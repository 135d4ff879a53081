//! Found by trying sselint as a new user (third trial): each a test first.

mod common;
use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn sselint() -> Command {
    Command::cargo_bin("sselint").unwrap()
}

fn scratch(name: &str) -> common::Scratch {
    common::Scratch::new(&format!("trial-{name}"))
}

#[test]
fn control_characters_in_a_har_url_and_a_model_never_reach_the_terminal() {
    let dir = scratch("ctl");
    let har = std::fs::read_to_string("samples/har/chrome.har").unwrap();
    let bad = har
        .replace(
            "https://api.example.com/v1/chat/completions",
            "https://api.example.com/v1/chat/completions\\u001b[31mRED\\u0000",
        )
        .replace(
            "\\\"model\\\":\\\"gpt-4o-mini",
            "\\\"model\\\":\\\"deepseek-chat\\u001b[31mX",
        );
    let p = dir.join("ctl.har");
    std::fs::write(&p, bad).unwrap();
    let out = sselint()
        .args(["check", "--color", "never", "--fail-on", "never"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("POST https://api.example.com/v1/chat/completions"),
        "{text}"
    );
    assert!(
        !text.contains('\u{1b}'),
        "an ESC reached the report:\n{text}"
    );
    assert!(!text.contains('\u{0}'), "a NUL reached the report");
    assert!(text.contains("\\u{1b}[31mRED"), "{text}");
}

#[test]
fn standard_input_named_twice_is_a_usage_error() {
    sselint()
        .args(["check", "-", "-"])
        .write_stdin("data: [DONE]\n\n")
        .assert()
        .code(2)
        .stderr(predicates::str::contains("standard input is named twice"));
}

#[test]
fn a_max_event_bytes_too_small_for_any_event_is_refused() {
    for cmd in ["check", "inspect"] {
        sselint()
            .args([cmd, "--max-event-bytes", "0", "samples/good/emoji.sse"])
            .assert()
            .code(2)
            .stderr(predicates::str::contains("too small for any event"));
    }
}

#[test]
fn an_error_only_stream_says_why_its_answer_is_blank() {
    sselint()
        .args([
            "check",
            "tests/cases/60-error-only-stream.sse",
            "--color",
            "never",
        ])
        .assert()
        .code(1)
        .stdout(predicates::str::contains(
            "answer: (none: an error event came instead)",
        ));
}

#[test]
fn the_request_key_that_set_the_token_budget_is_named() {
    let dir = scratch("budget");
    let body = std::fs::read_to_string("samples/bad/empty-answer.sse").unwrap();
    let req = r#"{"model":"deepseek-reasoner","messages":[{"role":"user","content":"haiku"}],"stream":true,"max_completion_tokens":32}"#;
    let har = serde_json::json!({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [{
        "request": {"method": "POST", "url": "https://api.deepseek.com/chat/completions", "headers": [],
                    "postData": {"mimeType": "application/json", "text": req}},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                     "headers": [{"name": "content-type", "value": "text/event-stream"}],
                     "content": {"size": body.len(), "mimeType": "text/event-stream", "text": body}}}]}});
    let p = dir.join("budget.har");
    std::fs::write(&p, har.to_string()).unwrap();
    let out = sselint()
        .args(["check", "--format", "json", "--fail-on", "never"])
        .arg(&p)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &v["files"][0]["streams"][0];
    let d = s["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["rule"] == "empty-answer")
        .expect("empty-answer")
        .clone();
    let msg = d["message"].as_str().unwrap();
    assert!(
        msg.contains("the request's max_completion_tokens was 32"),
        "{msg}"
    );
    assert_eq!(s["empty_answer"], "length: the budget went on reasoning");
    assert_eq!(s["provider_guess"]["profile"], "deepseek");
}

#[test]
fn azure_is_named_by_its_filter_fields_although_it_serves_openai_models() {
    sselint()
        .args(["check", "samples/providers/azure.sse", "--color", "never"])
        .assert()
        .stdout(
            predicates::str::contains("looks like Azure OpenAI")
                .and(predicates::str::contains("`--profile azure` fits")),
        );
}

/// An empty body is no stream of any dialect (issue 29): `empty-body`, and
/// the dialect is unknown (`null`); where `--dialect` or the request path
/// names one, that dialect's own rule judges the empty stream.
#[test]
fn an_empty_body_has_no_dialect_unless_something_names_one() {
    let dir = scratch("empty-body");
    let empty = dir.join("empty.sse");
    std::fs::write(&empty, "").unwrap();
    let blank = dir.join("blank.sse");
    std::fs::write(&blank, "\n\n  \n").unwrap();
    let json = |args: &[&str]| -> Value {
        let out = sselint()
            .args(["check", "--format", "json"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let rules = |v: &Value| -> Vec<String> {
        v["files"][0]["streams"][0]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["rule"].as_str().unwrap().to_string())
            .collect()
    };
    for p in [&empty, &blank] {
        let v = json(&[p.to_str().unwrap()]);
        let s = &v["files"][0]["streams"][0];
        assert_eq!(s["dialect"], Value::Null, "{}", p.display());
        assert_eq!(rules(&v), ["empty-body"], "{}", p.display());
    }
    for (d, rule) in [
        ("chat", "empty-stream"),
        ("responses", "responses-created-first"),
        ("messages", "messages-start-missing"),
    ] {
        let v = json(&["--dialect", d, empty.to_str().unwrap()]);
        assert_eq!(v["files"][0]["streams"][0]["dialect"], d);
        assert_eq!(rules(&v), [rule], "--dialect {d}");
    }
    // A HAR entry names its dialect by its request path.
    let mut har: Value = serde_json::from_str(
        &std::fs::read_to_string(common::root().join("samples/har/chrome.har")).unwrap(),
    )
    .unwrap();
    let entry = har["log"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| {
            e["request"]["url"]
                .as_str()
                .unwrap_or("")
                .ends_with("/v1/chat/completions")
                && e["response"]["content"]["mimeType"]
                    .as_str()
                    .unwrap_or("")
                    .starts_with("text/event-stream")
        })
        .cloned()
        .expect("chrome.har has a chat entry");
    let mut entry = entry;
    entry["response"]["content"]["text"] = Value::String(String::new());
    entry["response"]["content"]["size"] = 0.into();
    har["log"]["entries"] = Value::Array(vec![entry]);
    let p = dir.join("empty.har");
    std::fs::write(&p, har.to_string()).unwrap();
    let v = json(&[p.to_str().unwrap()]);
    assert_eq!(v["files"][0]["streams"][0]["dialect"], "chat");
    assert!(
        !rules(&v).contains(&"empty-body".to_string()),
        "{:?}",
        rules(&v)
    );
}
