//! `sselint diff` across transports (issue 37): a Bedrock ConverseStream
//! or Invoke body (AWS event-stream frames) and an Ollama NDJSON body are
//! compared with Anthropic Messages and Chat Completions SSE streams on
//! what a client gets (answer, tool calls, finish, usage) and by the same
//! neutral faults as the SSE dialects; how each transport frames its
//! bytes is no difference.

mod common;
use assert_cmd::Command;
use common::root;
use serde_json::Value;
use sselint::transport::eventstream::encode;

fn diff(a: &str, b: &str, extra: &[&str]) -> (i32, Value) {
    let out = Command::cargo_bin("sselint")
        .unwrap()
        .current_dir(root())
        .args(["diff", a, b, "--format", "json"])
        .args(extra)
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap(), v)
}

/// The rows of a comparison, as (section, item).
fn rows(v: &Value) -> Vec<(String, String)> {
    v["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["section"].as_str().unwrap().to_string(),
                d["item"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The frames of an event-stream body, each whole.
fn frames(body: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 4 <= body.len() {
        let n = u32::from_be_bytes(body[at..at + 4].try_into().unwrap()) as usize;
        out.push(body[at..at + n].to_vec());
        at += n;
    }
    out
}

fn sample(path: &str) -> Vec<u8> {
    std::fs::read(root().join(path)).unwrap()
}

/// The SSE events of a sample (blocks ended by a blank line).
fn events(path: &str) -> Vec<String> {
    String::from_utf8(sample(path))
        .unwrap()
        .split("\n\n")
        .filter(|e| !e.is_empty())
        .map(|e| format!("{e}\n\n"))
        .collect()
}

fn write(dir: &std::path::Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_str().unwrap().to_string()
}

const CONVERSE: &str = "samples/good/bedrock-converse.bin";
const INVOKE: &str = "samples/good/bedrock-invoke.bin";
const MESSAGES: &str = "tests/fixtures/diff/messages-weather.sse";
const CHAT: &str = "tests/fixtures/diff/chat-weather.sse";
const OLLAMA: &str = "samples/good/ollama-chat-tool.ndjson";
const CHAT_OLLAMA: &str = "tests/fixtures/diff/chat-ollama-weather.sse";

#[test]
fn the_same_answer_on_frames_lines_and_events_is_compatible_with_no_framing_row() {
    // One answer (reasoning, "Let me check the weather.", get_weather for
    // Oslo, a tool-use finish, 412+96 tokens) in four dialects on three
    // transports; and Ollama's tool call against Chat's.
    let pairs = [
        (CONVERSE, MESSAGES),
        (CONVERSE, CHAT),
        (INVOKE, MESSAGES),
        (INVOKE, CHAT),
        (CONVERSE, INVOKE),
        (MESSAGES, CONVERSE),
        (CHAT, CONVERSE),
        (OLLAMA, CHAT_OLLAMA),
        (CHAT_OLLAMA, OLLAMA),
    ];
    for (a, b) in pairs {
        let (code, v) = diff(a, b, &[]);
        assert_eq!(code, 0, "{a} against {b}: {v:#}");
        assert_eq!(v["compatible"], true, "{a} against {b}: {v:#}");
        // Only a reasoning row may stand (Chat has no reasoning field of
        // its own): no text, tool call, finish, usage, shape or finding.
        for (section, item) in rows(&v) {
            assert!(
                section == "answer" && item.ends_with("reasoning"),
                "{a} against {b}: {section} {item}: {v:#}"
            );
        }
        let apart = (a.ends_with(".sse")) != (b.ends_with(".sse"))
            || a.ends_with(".ndjson") != b.ends_with(".ndjson");
        let named = v["not_applicable"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().starts_with("framing (line endings"));
        assert_eq!(named, apart, "{a} against {b}: {v:#}");
    }
}

#[test]
fn a_different_tool_call_on_another_transport_is_still_a_difference() {
    // Ollama's get_weather(Oslo, celsius) against Chat's Paris call.
    let (code, v) = diff(OLLAMA, "samples/good/openai-tool-calls.sse", &[]);
    assert_eq!(code, 1, "{v:#}");
    let reasons = v["reasons"].to_string();
    assert!(reasons.contains("arguments differ"), "{v:#}");
    // ... and nothing about line endings.
    assert!(!v.to_string().contains("line endings\""), "{v:#}");
}

/// ConverseStream's sample cut after its text block (7 frames); Chat's
/// and Messages' cut after the same text.
fn cut_streams(dir: &std::path::Path) -> (String, String, String) {
    let c = frames(&sample(CONVERSE));
    let converse = write(dir, "converse-cut.bin", &c[..7].concat());
    let chat = write(dir, "chat-cut.sse", events(CHAT)[..3].concat().as_bytes());
    let messages = write(
        dir,
        "messages-cut.sse",
        events(MESSAGES)[..9].concat().as_bytes(),
    );
    (converse, chat, messages)
}

#[test]
fn a_cut_stream_is_one_fault_whatever_its_transport_calls_it() {
    let dir = common::scratch("diff-transports-cut");
    let (converse, chat, messages) = cut_streams(&dir);
    for (b, key) in [
        (&chat, "converse-cut-off / cut-off"),
        (&messages, "converse-cut-off / messages-cut-off"),
    ] {
        let (code, v) = diff(&converse, b, &[]);
        assert_eq!(code, 0, "{v:#}");
        assert_eq!(
            v["diagnostics"]["both"][key],
            serde_json::json!([1, 1]),
            "{v:#}"
        );
    }
    // A body that ends inside a frame is `converse-frame`, the one finding
    // of its cut: the same fault as Chat's `cut-off`, and as Invoke's
    // `invoke-frame` on a frame cut the same way.
    let c = frames(&sample(CONVERSE));
    let mut body = c[..7].concat();
    body.extend_from_slice(&c[7][..30]);
    let converse_cut_frame = write(&dir, "converse-cut-frame.bin", &body);
    let (code, v) = diff(&converse_cut_frame, &chat, &[]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(
        v["diagnostics"]["both"]["converse-frame / cut-off"],
        serde_json::json!([1, 1]),
        "{v:#}"
    );
    let i = frames(&sample(INVOKE));
    let mut body = i[..8].concat();
    body.extend_from_slice(&i[8][..30]);
    let invoke_cut_frame = write(&dir, "invoke-cut-frame.bin", &body);
    let (_, v) = diff(&converse_cut_frame, &invoke_cut_frame, &[]);
    assert_eq!(
        v["diagnostics"]["both"]["converse-frame / invoke-frame"],
        serde_json::json!([1, 1]),
        "{v:#}"
    );
    let (code, v) = diff(&invoke_cut_frame, &messages, &[]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(
        v["diagnostics"]["both"]["invoke-frame / messages-cut-off"],
        serde_json::json!([1, 1]),
        "{v:#}"
    );
}

#[test]
fn a_frame_that_fails_its_crc_mid_stream_is_not_a_cut() {
    let dir = common::scratch("diff-transports-crc");
    let (_, chat_cut, _) = cut_streams(&dir);
    let mut c = frames(&sample(CONVERSE));
    let last = c[4].len() - 1;
    c[4][last] ^= 0xff;
    let converse = write(&dir, "converse-crc.bin", &c.concat());
    // Against a complete Chat stream: the frame fault stands on A alone,
    // a ConverseStream rule with no Chat counterpart (and the frame's text
    // is lost, so the texts differ).
    let (code, v) = diff(&converse, CHAT, &[]);
    assert_eq!(code, 1, "{v:#}");
    assert_eq!(
        v["diagnostics"]["only_a"]["converse-frame"],
        serde_json::json!(["error", 1]),
        "{v:#}"
    );
    // Against a cut Chat stream it is not the cut: the stream went on.
    let (_, v) = diff(&converse, &chat_cut, &[]);
    assert!(
        v["diagnostics"]["both"].as_object().unwrap().is_empty(),
        "{v:#}"
    );
    assert!(
        v["reasons"].to_string().contains("B has `cut-off`"),
        "{v:#}"
    );
    // Against Invoke with the same fault: one fault under two names.
    let mut i = frames(&sample(INVOKE));
    let last = i[4].len() - 1;
    i[4][last] ^= 0xff;
    let invoke = write(&dir, "invoke-crc.bin", &i.concat());
    let (_, v) = diff(&converse, &invoke, &["--ignore-text"]);
    assert_eq!(
        v["diagnostics"]["both"]["converse-frame / invoke-frame"],
        serde_json::json!([1, 1]),
        "{v:#}"
    );
}

#[test]
fn an_exception_frame_is_the_error_event_of_the_other_dialects() {
    let dir = common::scratch("diff-transports-exception");
    let c = frames(&sample(CONVERSE));
    let mut body = c[..7].concat();
    body.extend(encode(
        &[
            (":exception-type", "throttlingException"),
            (":content-type", "application/json"),
            (":message-type", "exception"),
        ],
        br#"{"message":"Too many requests, please wait before trying again."}"#,
    ));
    let converse = write(&dir, "converse-exception.bin", &body);
    let chat = write(
        &dir,
        "chat-error.sse",
        format!(
            "{}data: {{\"error\":{{\"message\":\"Too many requests, please wait before trying again.\",\"type\":\"rate_limit_error\"}}}}\n\n",
            events(CHAT)[..3].concat()
        )
        .as_bytes(),
    );
    let messages = write(
        &dir,
        "messages-error.sse",
        format!(
            "{}event: error\ndata: {{\"type\":\"error\",\"error\":{{\"type\":\"overloaded_error\",\"message\":\"Too many requests, please wait before trying again.\"}}}}\n\n",
            events(MESSAGES)[..9].concat()
        )
        .as_bytes(),
    );
    for (b, key) in [
        (&chat, "converse-exception / error-event"),
        (&messages, "converse-exception / messages-error-event"),
    ] {
        let (code, v) = diff(&converse, b, &[]);
        assert_eq!(code, 0, "{v:#}");
        assert_eq!(
            v["diagnostics"]["both"][key],
            serde_json::json!([1, 1]),
            "{v:#}"
        );
    }
}

#[test]
fn an_sse_framing_finding_is_weighed_as_its_transports_own() {
    // Chat's stream with CRLF line ends and a keep-alive comment: infos of
    // SSE's framing rules, which an event-stream body has no lines for.
    let dir = common::scratch("diff-transports-framing");
    let text = String::from_utf8(sample(CHAT)).unwrap();
    let crlf = format!(": keep-alive\n\n{text}").replace('\n', "\r\n");
    let chat = write(&dir, "chat-crlf.sse", crlf.as_bytes());
    let (code, v) = diff(CONVERSE, &chat, &[]);
    assert_eq!(code, 0, "{v:#}");
    let class = |rule: &str| {
        v["differences"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["item"] == rule)
            .map(|d| d["class"].as_str().unwrap().to_string())
    };
    for rule in ["line-endings", "comment"] {
        let c = class(rule).unwrap_or_else(|| panic!("{rule}: {v:#}"));
        assert!(
            c.starts_with("only in B: a framing rule of sse (text/event-stream)"),
            "{c}"
        );
    }
    // No shape row about line endings or comments.
    assert!(rows(&v).iter().all(|(s, _)| s != "shape"), "{v:#}");
    // `--fail-on info` counts B's infos: A has none of its own.
    let (code, v) = diff(CONVERSE, &chat, &["--fail-on", "info"]);
    assert_eq!(code, 1, "{v:#}");
    assert!(
        v["reasons"]
            .to_string()
            .contains("a framing rule of sse (text/event-stream), which eventstream"),
        "{v:#}"
    );
}

/// A message log of one Responses turn over a socket: the sample's events
/// received after a `response.create`, then a normal close.
fn socket_log_of(sse: &str) -> String {
    let line = |dir: &str, data: &str| {
        format!(
            "{}\n",
            serde_json::json!({"direction": dir, "opcode": 1, "data": data})
        )
    };
    let mut out = line(
        "sent",
        r#"{"type":"response.create","model":"gpt-4.1-mini","input":"hi"}"#,
    );
    for e in events(sse) {
        let data: Vec<&str> = e
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(str::trim_start)
            .collect();
        if !data.is_empty() && data != ["[DONE]"] {
            out.push_str(&line("received", &data.join("\n")));
        }
    }
    out.push_str("{\"direction\":\"received\",\"opcode\":8,\"code\":1000,\"reason\":\"\"}\n");
    out
}

#[test]
fn an_sse_stream_and_the_same_response_over_a_socket_differ_by_transport_alone() {
    let dir = common::scratch("diff-socket");
    for sample in [
        "samples/good/responses-basic.sse",
        "samples/good/responses-function-call.sse",
    ] {
        let log = dir.join("turn.jsonl");
        std::fs::write(&log, socket_log_of(sample)).unwrap();
        let (code, v) = diff(sample, log.to_str().unwrap(), &[]);
        assert_eq!(code, 0, "{sample}: {v:#}");
        assert_eq!(rows(&v), Vec::<(String, String)>::new(), "{sample}: {v:#}");
        // Another answer (text, or a call's arguments) over the socket is
        // an answer difference.
        let other = socket_log_of(sample).replacen("\\\"delta\\\":\\\"", "\\\"delta\\\":\\\"X", 1);
        std::fs::write(&log, other).unwrap();
        let (code, v) = diff(sample, log.to_str().unwrap(), &[]);
        assert_eq!(code, 1, "{sample}: {v:#}");
        assert!(
            rows(&v)
                .iter()
                .any(|(s, _)| s == "answer" || s == "tool-calls"),
            "{sample}: {v:#}"
        );
    }
}

#[test]
fn a_socket_of_several_responses_is_refused_by_name() {
    let out = Command::cargo_bin("sselint")
        .unwrap()
        .current_dir(root())
        .args([
            "diff",
            "samples/good/responses-basic.sse",
            "samples/websocket/responses-two-turns.har",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("a socket carrying 2 responses") && err.contains("resp_d4"),
        "{err}"
    );
}

/// A socket side is named by its file once, then its response (it read
/// `F F · resp_…`, as `check` did before its fix).
#[test]
fn a_socket_side_names_its_file_once() {
    let dir = common::scratch("diff-socket-name");
    let sample = "samples/good/responses-basic.sse";
    let log = dir.join("turn.jsonl");
    std::fs::write(&log, socket_log_of(sample)).unwrap();
    let path = log.to_str().unwrap();
    let out = Command::cargo_bin("sselint")
        .unwrap()
        .current_dir(root())
        .args(["diff", sample, path, "--color", "never"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(text.matches(path).count(), 1, "{text}");
    assert!(text.contains(&format!("B ({path} · resp_")), "{text}");
}
