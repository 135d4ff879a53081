//! Real third-party servers on 127.0.0.1, linted live with `sselint check
//! URL --body FILE` and `sselint record`: the LiteLLM proxy answering with
//! its `mock_response`, and llama.cpp's server (llama-cpp-python) serving a
//! tiny random-weight GGUF. The findings asserted are what sselint says of
//! the pinned versions today (servers/README.md); a change in either the
//! servers or sselint's verdict shows up here.
//!
//! Without the servers' venvs (`.ci/run` installs them) each test prints
//! that it did not run; with `CI=true` that is a failure.

mod common;
use assert_cmd::cargo::cargo_bin;
use common::scratch;
use common::servers::{self, Server, LITELLM_KEY, LITELLM_MOCK_TEXT};
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

/// The outcome of one `sselint check URL --format json`.
struct Checked {
    code: Option<i32>,
    /// The JSON report's first stream.
    stream: Value,
    /// The whole report.
    report: Value,
    stderr: String,
    /// The end of the server's log just after the request.
    server_log: String,
}

impl Checked {
    /// Rule names at or above warning, in report order.
    fn findings(&self) -> Vec<String> {
        self.stream["diagnostics"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter(|d| d["severity"] == "warning" || d["severity"] == "error")
                    .map(|d| d["rule"].as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default()
    }

    fn choice0(&self) -> &Value {
        &self.stream["choices"][0]
    }

    fn text(&self) -> &str {
        self.choice0()["text"].as_str().unwrap_or_default()
    }
}

impl std::fmt::Display for Checked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {:?}\nstderr: {}\nreport: {:#}\n{}",
            self.code, self.stderr, self.report, self.server_log
        )
    }
}

/// Writes `body` to `dir/name.json` and runs `sselint check URL --body it
/// --format json` with `extra` arguments and the LiteLLM key in
/// `SSELINT_TEST_KEY`. The rules about timing (`buffered`, `stall`) are
/// skipped: how a server's writes arrive depends on the machine's load, and
/// timings are not asserted in tests.
fn check(
    server: &Server,
    path: &str,
    dir: &Path,
    name: &str,
    body: &Value,
    extra: &[&str],
) -> Checked {
    let req = dir.join(format!("{name}.json"));
    std::fs::write(&req, body.to_string()).unwrap();
    let out = Command::new(cargo_bin("sselint"))
        .args(["check", &server.url(path), "--format", "json"])
        .args(["--ignore", "buffered,stall", "--body"])
        .arg(&req)
        .args(extra)
        .env("SSELINT_TEST_KEY", LITELLM_KEY)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{name}: the report is not JSON ({e}): {}\nstderr: {stderr}\n{}",
            String::from_utf8_lossy(&out.stdout),
            server.log_tail()
        )
    });
    Checked {
        code: out.status.code(),
        stream: report["files"][0]["streams"][0].clone(),
        report,
        stderr,
        server_log: server.log_tail(),
    }
}

const KEY: [&str; 2] = ["--api-key-env", "SSELINT_TEST_KEY"];

/// The answer `check` reconstructs from a shipped sample.
fn sample_text(sample: &str) -> String {
    common::text0(&common::lint_file(&common::root().join(sample)))
}

#[test]
fn litellm_chat_mock_streams_its_text_and_usage_only_when_asked() {
    let Some(server) = servers::litellm("litellm_chat_mock_streams_its_text") else {
        return;
    };
    let dir = scratch("litellm-chat");
    let body = json!({"model": "mock-gpt", "messages": [{"role": "user", "content": "Hi"}]});
    // `check URL` adds stream_options.include_usage: a usage chunk comes
    // before [DONE].
    let c = check(&server, "/v1/chat/completions", &dir, "usage", &body, &KEY);
    assert_eq!(c.code, Some(0), "{c}");
    assert_eq!(c.stream["dialect"], "chat", "{c}");
    assert_eq!(c.stream["http"]["status"], 200, "{c}");
    assert_eq!(c.text(), LITELLM_MOCK_TEXT, "{c}");
    assert_eq!(c.choice0()["finish_reason"], "stop", "{c}");
    assert_eq!(c.stream["ending"], "complete", "{c}");
    assert!(
        c.stream["usage"]["completion_tokens"].as_u64() > Some(0),
        "{c}"
    );
    assert_eq!(c.findings(), Vec::<String>::new(), "{c}");
    // Without it, no usage.
    let extra = [KEY[0], KEY[1], "--no-usage"];
    let c = check(
        &server,
        "/v1/chat/completions",
        &dir,
        "no-usage",
        &body,
        &extra,
    );
    assert_eq!(c.code, Some(0), "{c}");
    assert_eq!(c.text(), LITELLM_MOCK_TEXT, "{c}");
    assert!(c.stream["usage"].is_null(), "{c}");
    assert_eq!(c.findings(), Vec::<String>::new(), "{c}");
}

#[test]
fn litellm_record_needs_the_key_and_saves_none() {
    let Some(server) = servers::litellm("litellm_record_needs_the_key") else {
        return;
    };
    let dir = scratch("litellm-record");
    let req = dir.join("request.json");
    std::fs::write(
        &req,
        json!({"model": "mock-gpt", "messages": [{"role": "user", "content": "Hi"}]}).to_string(),
    )
    .unwrap();
    let record = |har: &str, key: bool| {
        let mut cmd = Command::new(cargo_bin("sselint"));
        cmd.args(["record", &server.url("/v1/chat/completions"), "--body"])
            .arg(&req)
            .arg("-o")
            .arg(dir.join(har))
            .env("SSELINT_TEST_KEY", LITELLM_KEY)
            .env("NO_COLOR", "1");
        if key {
            cmd.args(KEY);
        }
        let out = cmd.output().unwrap();
        let text = std::fs::read_to_string(dir.join(har)).unwrap_or_else(|e| {
            panic!(
                "{har}: {e}\n{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (out, text)
    };
    let (out, har) = record("keyed.har", true);
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0), "{printed}");
    for t in [&har, &printed] {
        assert!(!t.contains(LITELLM_KEY), "the key leaked into:\n{t}");
        assert!(
            !t.contains("FAKE5e4d3c2b"),
            "part of the key leaked into:\n{t}"
        );
    }
    let v: Value = serde_json::from_str(&har).unwrap();
    let entry = &v["log"]["entries"][0];
    assert_eq!(entry["response"]["status"], 200, "{har}");
    let auth = entry["request"]["headers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| {
            h["name"]
                .as_str()
                .unwrap()
                .eq_ignore_ascii_case("authorization")
        })
        .map(|h| h["value"].clone());
    assert_eq!(auth, Some(json!("[REDACTED]")), "{har}");
    // The saved capture lints to the same answer.
    let out = Command::new(cargo_bin("sselint"))
        .args(["check", "--format", "json"])
        .arg(dir.join("keyed.har"))
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let stream = &report["files"][0]["streams"][0];
    assert_eq!(
        stream["choices"][0]["text"], LITELLM_MOCK_TEXT,
        "{report:#}"
    );
    // Without the key the proxy refuses (so the key was sent above).
    let (out, har) = record("unkeyed.har", false);
    let v: Value = serde_json::from_str(&har).unwrap();
    let status = v["log"]["entries"][0]["response"]["status"].as_u64();
    assert_eq!(status, Some(500), "{har}");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let out = Command::new(cargo_bin("sselint"))
        .args(["check", "--format", "json"])
        .arg(dir.join("unkeyed.har"))
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rules: Vec<&Value> = report["files"][0]["streams"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| &d["rule"])
        .collect();
    assert_eq!(rules, [&json!("http-status")], "{report:#}");
}

#[test]
fn litellm_mock_answers_responses_and_messages_without_streaming() {
    let Some(server) = servers::litellm("litellm_mock_answers_responses_and_messages") else {
        return;
    };
    let dir = scratch("litellm-mock-dialects");
    // LiteLLM 1.106.12 answers a mock_response model's Responses request
    // with a finished (not streamed) response object, which its streaming
    // path then fails on: a 500 whose event-stream body is one Chat-style
    // error event and [DONE].
    let body = json!({"model": "mock-gpt", "input": "Hi"});
    let c = check(&server, "/v1/responses", &dir, "responses", &body, &KEY);
    assert_eq!(c.code, Some(1), "{c}");
    assert_eq!(c.stream["dialect"], "responses", "{c}");
    assert_eq!(c.stream["http"]["status"], 500, "{c}");
    assert_eq!(c.stream["ending"], "empty", "{c}");
    assert_eq!(
        c.findings(),
        ["responses-error-event", "http-status"],
        "{c}"
    );
    // Its Messages answer is the whole message as one JSON object
    // (application/json), for the Anthropic model and the OpenAI one alike.
    for model in ["mock-claude", "mock-gpt"] {
        let body = json!({"model": model, "max_tokens": 64,
            "messages": [{"role": "user", "content": "Hi"}]});
        let c = check(&server, "/v1/messages", &dir, model, &body, &KEY);
        assert_eq!(c.code, Some(1), "{model}: {c}");
        assert_eq!(c.stream["http"]["status"], 200, "{model}: {c}");
        assert_eq!(
            c.stream["http"]["content_type"], "application/json",
            "{model}: {c}"
        );
        assert_eq!(c.stream["ending"], "empty", "{model}: {c}");
        assert_eq!(c.findings(), ["body-not-sse"], "{model}: {c}");
    }
}

#[test]
fn litellm_translates_a_chat_upstream_for_each_dialect() {
    let Some(server) = servers::litellm("litellm_translates_a_chat_upstream") else {
        return;
    };
    let dir = scratch("litellm-bridge");
    let want = sample_text(servers::LITELLM_UPSTREAM_SAMPLE);
    assert!(!want.is_empty());
    let hi = json!([{"role": "user", "content": "Hi"}]);
    for (path, body, dialect, finish, findings) in [
        (
            "/v1/chat/completions",
            json!({"model": "bridge", "messages": hi}),
            "chat",
            "stop",
            &[] as &[&str],
        ),
        // Every event but one lacks sequence_number.
        (
            "/v1/responses",
            json!({"model": "bridge", "input": "Hi"}),
            "responses",
            "completed",
            // Only `response.output_item.done` carries sequence_number:
            // `responses-sequence-number`, an info (no client of the
            // record checks the numbers).
            &[] as &[&str],
        ),
        (
            "/v1/messages",
            json!({"model": "bridge", "max_tokens": 64, "messages": hi}),
            "messages",
            "end_turn",
            &[] as &[&str],
        ),
    ] {
        let c = check(&server, path, &dir, dialect, &body, &KEY);
        assert_eq!(c.stream["dialect"], dialect, "{path}: {c}");
        assert_eq!(c.stream["http"]["status"], 200, "{path}: {c}");
        assert_eq!(c.text(), want, "{path}: {c}");
        assert_eq!(c.choice0()["finish_reason"], finish, "{path}: {c}");
        assert_eq!(c.stream["ending"], "complete", "{path}: {c}");
        assert!(!c.stream["usage"].is_null(), "{path}: {c}");
        assert_eq!(c.findings(), findings, "{path}: {c}");
        assert_eq!(c.code, Some(0), "{path}: {c}");
    }
}

/// A Chat request to the tiny model: greedy, at most `max_tokens` tokens.
fn tiny_chat(max_tokens: u64) -> Value {
    json!({"model": "tiny", "temperature": 0, "max_tokens": max_tokens,
        "messages": [{"role": "user", "content": "Say hello"}]})
}

#[test]
fn llama_chat_stream_is_cut_with_length_at_max_tokens() {
    let Some(server) = servers::llama("llama_chat_stream_is_cut_with_length") else {
        return;
    };
    let dir = scratch("llama-chat");
    let c = check(
        &server,
        "/v1/chat/completions",
        &dir,
        "length",
        &tiny_chat(8),
        &["--no-usage"],
    );
    assert_eq!(c.stream["dialect"], "chat", "{c}");
    assert_eq!(c.stream["http"]["status"], 200, "{c}");
    assert!(!c.text().trim().is_empty(), "{c}");
    assert_eq!(c.choice0()["finish_reason"], "length", "{c}");
    assert_eq!(c.stream["ending"], "complete", "{c}");
    // The cut after text is `finish-length`, and nothing else: a warning,
    // as a budget cut is in every dialect (openai-python's stream helper
    // raises on it by design), so `check` exits 0.
    assert_eq!(c.findings(), ["finish-length"], "{c}");
    assert_eq!(c.code, Some(0), "{c}");
}

#[test]
fn llama_chat_stream_carries_no_usage_when_asked() {
    let Some(server) = servers::llama("llama_chat_stream_carries_no_usage") else {
        return;
    };
    let dir = scratch("llama-usage");
    // `check URL` adds stream_options.include_usage; llama-cpp-python
    // 0.3.36 ignores it.
    let c = check(
        &server,
        "/v1/chat/completions",
        &dir,
        "usage",
        &tiny_chat(4),
        &[],
    );
    let sent = std::fs::read_to_string(dir.join("usage.json")).unwrap();
    assert!(
        !sent.contains("stream_options"),
        "the file is the user's: {sent}"
    );
    assert!(!c.text().is_empty(), "{c}");
    assert_eq!(c.choice0()["finish_reason"], "length", "{c}");
    assert!(c.stream["usage"].is_null(), "{c}");
    // `usage-missing` is an info (every client reports no usage, as the
    // stream gives none); the cut is `finish-length`, a warning.
    assert_eq!(c.findings(), ["finish-length"], "{c}");
    assert!(
        c.stream["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["rule"] == "usage-missing" && d["severity"] == "info"),
        "{c}"
    );
    assert_eq!(c.code, Some(0), "{c}");
}

#[test]
fn llama_serves_no_responses_or_messages_endpoint() {
    let Some(server) = servers::llama("llama_serves_no_responses_or_messages") else {
        return;
    };
    let dir = scratch("llama-dialects");
    for (path, body) in [
        (
            "/v1/responses",
            json!({"model": "tiny", "input": "Hi", "max_output_tokens": 4}),
        ),
        (
            "/v1/messages",
            json!({"model": "tiny", "max_tokens": 4, "messages": [{"role": "user", "content": "Hi"}]}),
        ),
    ] {
        let name = path.trim_start_matches("/v1/");
        let c = check(&server, path, &dir, name, &body, &[]);
        assert_eq!(c.stream["dialect"], name, "{path}: {c}");
        assert_eq!(c.stream["http"]["status"], 404, "{path}: {c}");
        assert_eq!(c.findings(), ["http-status"], "{path}: {c}");
        assert_eq!(c.code, Some(1), "{path}: {c}");
    }
}
