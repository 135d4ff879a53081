//! `sselint probe` against real third-party servers on 127.0.0.1 (started
//! by tests/common/servers.rs): the LiteLLM proxy and llama.cpp's server
//! through llama-cpp-python. Each report card is asserted scenario by
//! scenario (verdict and the rules found at warning or above) as the pinned
//! versions answer today (README, "Real servers we test against"): a change
//! in either server or in sselint's verdicts fails here.
//!
//! The timing rules (`buffered`, `stall`) are left out of the asserted
//! rule sets: how a server's writes arrive depends on the machine's load.
//!
//! Without the servers' venvs (`.ci/run` installs them) each test prints
//! that it did not run; with `CI=true` that is a failure.

mod common;
use assert_cmd::cargo::cargo_bin;
use common::scratch;
use common::servers::{self, Server, LITELLM_KEY};
use serde_json::Value;
use std::process::Command;

/// One row of a report card: scenario, verdict, the rules at warning or
/// above (sorted, each once).
type Row = (&'static str, &'static str, &'static [&'static str]);

/// The rows of a probe's JSON report, in its order, as [`Row`]s.
fn card(v: &Value) -> Card {
    v["scenarios"]
        .as_array()
        .unwrap_or_else(|| panic!("no scenarios in {v:#}"))
        .iter()
        .map(|s| {
            let mut rules: Vec<String> = s["findings"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|f| f["severity"] == "warning" || f["severity"] == "error")
                .map(|f| f["rule"].as_str().unwrap().to_string())
                .filter(|r| r != "buffered" && r != "stall")
                .collect();
            rules.sort();
            rules.dedup();
            (
                s["name"].as_str().unwrap().to_string(),
                s["verdict"].as_str().unwrap().to_string(),
                rules,
            )
        })
        .collect()
}

fn owned(want: &[Row]) -> Card {
    want.iter()
        .map(|(n, v, r)| {
            (
                n.to_string(),
                v.to_string(),
                r.iter().map(|s| s.to_string()).collect(),
            )
        })
        .collect()
}

/// Runs `sselint probe BASE --dialect D --model M --format json -o DIR`
/// (with the LiteLLM key when `key`) and compares its card with `want`;
/// gives a description of the difference (with the report and the
/// server's log) or None. The exit code must be 1 when a scenario fails,
/// 0 otherwise.
fn probe(server: &Server, dialect: &str, model: &str, key: bool, want: &[Row]) -> Option<String> {
    probe_with(server, dialect, model, key, want, &|_, _| {})
}

/// A card as compared: (scenario, verdict, rules).
type Card = Vec<(String, String, Vec<String>)>;

/// [`probe`], with `adjust` given the captures' directory to fix the
/// wanted card where it depends on what the model wrote.
fn probe_with(
    server: &Server,
    dialect: &str,
    model: &str,
    key: bool,
    want: &[Row],
    adjust: &dyn Fn(&std::path::Path, &mut Card),
) -> Option<String> {
    // The scratch directory lives until the card is compared, and is
    // removed with everything probe wrote under it.
    let dir = scratch(&format!("probe-{}-{dialect}-{model}", server.name));
    let out_dir = dir.join("card");
    let mut cmd = Command::new(cargo_bin("sselint"));
    cmd.args(["probe", &format!("{}/v1", server.base)])
        .args(["--dialect", dialect, "--model", model, "--format", "json"])
        .arg("-o")
        .arg(&out_dir)
        .env("SSELINT_TEST_KEY", LITELLM_KEY);
    if key {
        cmd.args(["--api-key-env", "SSELINT_TEST_KEY"]);
    }
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let v: Value = match serde_json::from_slice(&out.stdout) {
        Ok(v) => v,
        Err(e) => {
            return Some(format!(
                "{dialect} {model}: the report is not JSON ({e}): {}\nstderr: {stderr}\n{}",
                String::from_utf8_lossy(&out.stdout),
                server.log_tail()
            ))
        }
    };
    let got = card(&v);
    let mut want = owned(want);
    adjust(&out_dir, &mut want);
    let fails = want.iter().any(|(_, v, _)| v == "fail");
    let code = out.status.code();
    if got == want && code == Some(i32::from(fails)) {
        // Every scenario ran and left the capture its report names, in
        // the output directory.
        for s in v["scenarios"].as_array().unwrap() {
            let har = std::path::PathBuf::from(s["capture"].as_str().unwrap_or_default());
            if !har.starts_with(&out_dir) || !har.is_file() {
                return Some(format!("{dialect} {model}: no capture for {s}"));
            }
            let text = std::fs::read_to_string(&har).unwrap();
            if key && text.contains(LITELLM_KEY) {
                return Some(format!(
                    "{dialect} {model}: the key is in {}",
                    har.display()
                ));
            }
        }
        return None;
    }
    let show = |c: &Card| {
        c.iter()
            .map(|(n, v, r)| format!("  {n}: {v} {r:?}\n"))
            .collect::<String>()
    };
    Some(format!(
        "{} {dialect} {model}: exit {code:?}\nwanted:\n{}got:\n{}report: {v:#}\nstderr: {stderr}\n{}",
        server.name,
        show(&want),
        show(&got),
        server.log_tail()
    ))
}

/// Runs each probe of `runs` and fails with every mismatch at once.
fn expect_cards(server: &Server, key: bool, runs: &[(&str, &str, &[Row])]) {
    let mismatches: Vec<String> = runs
        .iter()
        .filter_map(|(dialect, model, want)| probe(server, dialect, model, key, want))
        .collect();
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n\n"));
}

const PASS: &str = "pass";
const FAIL: &str = "fail";

/// LiteLLM 1.106.12's `mock_response` path, Chat: it answers every request
/// with the mock text, whatever it asks (tools, `max_tokens`, JSON mode),
/// and with `n: 2` streams two choices but closes only choice 0.
const LITELLM_MOCK_CHAT: &[Row] = &[
    ("plain", PASS, &[]),
    ("usage", PASS, &[]),
    ("length", FAIL, &["probe-not-cut"]),
    ("stop", PASS, &[]),
    ("tool", FAIL, &["probe-no-tool-call"]),
    ("parallel-tools", FAIL, &["probe-no-tool-call"]),
    ("n2", FAIL, &["missing-finish-reason"]),
    ("json", FAIL, &["probe-json-invalid"]),
    ("long", PASS, &[]),
    ("invalid", FAIL, &["probe-http-status"]),
    ("disconnect", PASS, &[]),
];

/// The mock path of `/v1/responses`: a 500 to every request.
const LITELLM_MOCK_RESPONSES: &[Row] = &[
    ("plain", FAIL, &["probe-http-status"]),
    ("length", FAIL, &["probe-http-status"]),
    ("tool", FAIL, &["probe-http-status"]),
    ("json", FAIL, &["probe-http-status"]),
    ("long", FAIL, &["probe-http-status"]),
    ("invalid", FAIL, &["probe-http-status"]),
    ("disconnect", FAIL, &["probe-http-status"]),
];

/// The mock path of `/v1/messages` (the Anthropic model): one JSON
/// message, not a stream, although `stream: true` was asked.
const LITELLM_MOCK_MESSAGES: &[Row] = &[
    ("plain", FAIL, &["body-not-sse"]),
    ("length", FAIL, &["body-not-sse"]),
    ("stop", FAIL, &["body-not-sse"]),
    // Only the primary fault: a body that is not SSE shows no tool call
    // to judge, so probe-no-tool-call is not added on top.
    ("tool", FAIL, &["body-not-sse"]),
    ("long", FAIL, &["body-not-sse"]),
    ("invalid", FAIL, &["probe-http-status"]),
    ("disconnect", FAIL, &["body-not-sse"]),
];

/// The `scenarios` model: an upstream (`sselint replay` of the good
/// scenario set) that answers each Chat request well, so what fails is
/// LiteLLM's re-streaming: with `n: 2` choice 1 loses its role and its
/// finish_reason.
const LITELLM_SCENARIOS_CHAT: &[Row] = &[
    ("plain", PASS, &[]),
    ("usage", PASS, &[]),
    ("length", PASS, &[]),
    ("stop", PASS, &[]),
    ("tool", PASS, &[]),
    ("parallel-tools", PASS, &[]),
    ("n2", FAIL, &["missing-finish-reason", "missing-role"]),
    ("json", PASS, &[]),
    ("long", PASS, &[]),
    ("invalid", FAIL, &["probe-http-status"]),
    ("disconnect", PASS, &[]),
];

/// LiteLLM's translation of those Chat streams into Responses: right in
/// content, but only `response.output_item.done` carries sequence_number
/// (`responses-sequence-number`, info: no client of the record checks the
/// numbers, so the card lists no rule).
const LITELLM_SCENARIOS_RESPONSES: &[Row] = &[
    ("plain", PASS, &[]),
    ("length", PASS, &[]),
    ("tool", PASS, &[]),
    ("json", PASS, &[]),
    ("long", PASS, &[]),
    ("invalid", FAIL, &["probe-http-status"]),
    ("disconnect", PASS, &[]),
];

/// LiteLLM's translation into Messages.
const LITELLM_SCENARIOS_MESSAGES: &[Row] = &[
    ("plain", PASS, &[]),
    ("length", PASS, &[]),
    ("stop", PASS, &[]),
    ("tool", PASS, &[]),
    ("long", PASS, &[]),
    ("invalid", FAIL, &["probe-http-status"]),
    ("disconnect", PASS, &[]),
];

#[test]
fn litellm_report_cards_for_its_mock_and_its_translations() {
    let Some(server) = servers::litellm("litellm_report_cards") else {
        return;
    };
    expect_cards(
        &server,
        true,
        &[
            ("chat", "mock-gpt", LITELLM_MOCK_CHAT),
            ("responses", "mock-gpt", LITELLM_MOCK_RESPONSES),
            ("messages", "mock-claude", LITELLM_MOCK_MESSAGES),
            ("chat", "scenarios", LITELLM_SCENARIOS_CHAT),
            ("responses", "scenarios", LITELLM_SCENARIOS_RESPONSES),
            ("messages", "scenarios", LITELLM_SCENARIOS_MESSAGES),
        ],
    );
}

/// llama-cpp-python 0.3.36 with the tiny random-weight model. It ignores
/// `include_usage`, `n` and `tool_choice: "required"`, answers an invalid
/// request with a 500, and sends `id`, `type` and `function.name` again in
/// every tool-call fragment. The gibberish differs from run to run (the
/// probe sets no temperature), so two verdicts are fixed by reading the
/// captures ([`llama_by_text`]).
const LLAMA_CHAT: &[Row] = &[
    ("plain", PASS, &[]),
    ("usage", FAIL, &["usage-missing"]),
    ("length", PASS, &[]),
    ("stop", PASS, &[]),
    (
        "tool",
        FAIL,
        &["tool-call-arguments", "tool-call-id-repeated"],
    ),
    ("parallel-tools", FAIL, &["probe-no-tool-call"]),
    ("n2", FAIL, &["probe-n-ignored"]),
    ("json", PASS, &[]),
    ("long", PASS, &[]),
    ("invalid", FAIL, &["probe-http-status"]),
    ("disconnect", PASS, &[]),
];

#[test]
fn llama_report_card() {
    let Some(server) = servers::llama("llama_report_card") else {
        return;
    };
    let mismatch = probe_with(&server, "chat", "tiny", false, LLAMA_CHAT, &llama_by_text);
    assert!(mismatch.is_none(), "{}", mismatch.unwrap_or_default());
}

/// The chunks of choice 0 in the Chat capture `dir/NAME.har`.
fn deltas(dir: &std::path::Path, name: &str) -> Vec<Value> {
    let har: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{name}.har"))).unwrap())
            .unwrap();
    let body = har["log"]["entries"][0]["response"]["content"]["text"]
        .as_str()
        .unwrap()
        .to_string();
    body.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .map(|c| c["choices"][0]["delta"].clone())
        .collect()
}

/// Whether scenario `name`'s capture ends with `finish_reason: "length"`
/// after some text: the budget cut `finish-length` reports.
fn cut_after_text(dir: &std::path::Path, name: &str) -> bool {
    if !dir.join(format!("{name}.har")).exists() {
        return false;
    }
    let har: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{name}.har"))).unwrap())
            .unwrap();
    let body = har["log"]["entries"][0]["response"]["content"]["text"]
        .as_str()
        .unwrap_or("")
        .to_string();
    let chunks: Vec<Value> = body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .collect();
    let text = chunks.iter().any(|c| {
        c["choices"][0]["delta"]["content"]
            .as_str()
            .is_some_and(|t| !t.is_empty())
    });
    let length = chunks
        .iter()
        .any(|c| c["choices"][0]["finish_reason"] == "length");
    text && length
}

/// Where the verdict depends on the random model's text: the forced tool
/// call's arguments (cut by the token budget, or holding raw control
/// characters, they are not JSON, and `tool-call-arguments` must say so;
/// when they happen to parse, it must not), the JSON-mode answer
/// (`probe-json-invalid` exactly when it does not parse), and whether an
/// answer ran into the token budget after some text (`finish-length`, a
/// warning, as a budget cut is in every dialect: listed, though the
/// scenario does not fail for it; the `length` scenario asks for that cut,
/// so not there).
fn llama_by_text(dir: &std::path::Path, want: &mut Card) {
    let args: String = deltas(dir, "tool")
        .iter()
        .filter_map(|d| d["tool_calls"][0]["function"]["arguments"].as_str())
        .collect();
    let text: String = deltas(dir, "json")
        .iter()
        .filter_map(|d| d["content"].as_str())
        .collect();
    let parses = |t: &str| serde_json::from_str::<Value>(t.trim()).is_ok();
    for (name, verdict, rules) in want.iter_mut() {
        match name.as_str() {
            "tool" if parses(&args) => rules.retain(|r| r != "tool-call-arguments"),
            "json" if !parses(&text) => {
                *verdict = FAIL.to_string();
                rules.push("probe-json-invalid".to_string());
            }
            _ => {}
        }
        if name != "length" && cut_after_text(dir, name) {
            rules.push("finish-length".to_string());
            rules.sort();
        }
    }
}
