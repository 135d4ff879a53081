//! Anthropic Messages streams: the answer each provider sample assembles
//! to, the same findings and answer however the bytes are split, hostile
//! inputs (bounded memory, no panic, a clear message), `--dialect
//! messages`, and a stream whose events have no `event:` line.

mod common;
use assert_cmd::Command;
use common::*;
use serde_json::{json, Value};
use sselint::dialect::Dialect;
use sselint::lint::{Settings, Severity};
use sselint::model::assembly::{Answer, Ending, MAX_TEXT_BYTES};
use sselint::pipeline::FileResult;
use std::path::Path;

fn sample(rel: &str) -> FileResult {
    let r = lint_file(&root().join("samples").join(rel));
    assert_eq!(r.streams.len(), 1, "{rel}");
    assert_eq!(r.streams[0].dialect, Some(Dialect::Messages), "{rel}");
    r
}

/// Choice 0 as (text, reasoning, finish, tool calls as (id, name,
/// arguments parsed)).
type Summary = (String, String, Option<String>, Vec<(String, String, Value)>);

fn summary(a: &Answer) -> Summary {
    let c = &a.choices[&0];
    let tools = c
        .tool_calls
        .values()
        .map(|t| {
            (
                t.id.clone().unwrap_or_default(),
                t.name.clone().unwrap_or_default(),
                serde_json::from_str(&t.arguments)
                    .unwrap_or_else(|e| panic!("arguments {:?}: {e}", t.arguments)),
            )
        })
        .collect();
    (
        c.text.kept.clone(),
        c.reasoning.kept.clone(),
        c.finish_reason.clone(),
        tools,
    )
}

fn usage(r: &FileResult) -> Value {
    r.streams[0].answer.usage.clone().unwrap_or(Value::Null)
}

fn rules(r: &FileResult) -> Vec<(&'static str, Severity)> {
    diags(r).iter().map(|d| (d.rule, d.severity)).collect()
}

#[test]
fn anthropic_with_thinking_assembles_thinking_text_and_cumulative_usage() {
    let r = sample("providers/messages-anthropic-thinking.sse");
    let (text, thinking, finish, tools) = summary(&r.streams[0].answer);
    assert_eq!(
        text,
        "No. 2100 is divisible by 100 but not by 400, so it is not a leap year."
    );
    assert_eq!(
        thinking,
        "A leap year is divisible by 4, except centuries, unless divisible by 400. 2100 is a century not divisible by 400."
    );
    assert_eq!(finish.as_deref(), Some("end_turn"));
    assert!(tools.is_empty());
    // message_delta's cumulative counts overwrite message_start's; fields
    // only message_start had stay.
    let u = usage(&r);
    assert_eq!(u["input_tokens"], 36);
    assert_eq!(u["output_tokens"], 154);
    assert_eq!(u["cache_read_input_tokens"], 2048);
    assert_eq!(u["service_tier"], "standard");
    assert_eq!(r.streams[0].ending, Ending::Complete);
    assert!(rules(&r).is_empty(), "{:?}", rules(&r));
}

#[test]
fn anthropic_with_tools_assembles_each_tool_use_block_as_a_call() {
    let r = sample("providers/messages-anthropic-tools.sse");
    let (text, thinking, finish, tools) = summary(&r.streams[0].answer);
    assert_eq!(text, "I'll check both cities.");
    assert!(thinking.is_empty());
    assert_eq!(finish.as_deref(), Some("tool_use"));
    assert_eq!(
        tools,
        vec![
            (
                "toolu_01T1x1fJ34qAmk2tNTrN7Up6".to_string(),
                "get_weather".to_string(),
                json!({"city": "Oslo", "unit": "celsius"})
            ),
            (
                "toolu_01B7mV4sKq2Zr9Xy5WdL3hPc".to_string(),
                "get_weather".to_string(),
                json!({"city": "Bergen", "unit": "celsius"})
            ),
        ]
    );
    assert_eq!(usage(&r)["output_tokens"], 118);
    assert!(rules(&r).is_empty(), "{:?}", rules(&r));
}

/// A provider sample: file, profile, text, thinking, tool call (name,
/// input), input and output tokens.
type Case = (
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
    Option<(&'static str, Value)>,
    u64,
    u64,
);

#[test]
fn bedrock_vertex_deepseek_and_litellm_read_right_and_clean_under_their_profile() {
    let cases: &[Case] = &[
        (
            "messages-bedrock.sse",
            "bedrock",
            "Bonjour means \"good day\" in French.",
            None,
            None,
            19,
            14,
        ),
        (
            "messages-vertex-anthropic.sse",
            "vertex-anthropic",
            "Hello! What would you like to talk about?",
            None,
            None,
            9,
            12,
        ),
        (
            "messages-deepseek-anthropic.sse",
            "deepseek-anthropic",
            "The capital of Australia is Canberra.",
            Some("The user asks for the capital of Australia. It is Canberra, not Sydney."),
            None,
            14,
            41,
        ),
        (
            "messages-litellm-messages.sse",
            "litellm-messages",
            "Let me convert that.",
            None,
            Some((
                "convert_currency",
                json!({"amount": 100, "from": "EUR", "to": "JPY"}),
            )),
            83,
            27,
        ),
    ];
    for (file, profile, text, thinking, tool, input, output) in cases {
        let r = sample(&format!("providers/{file}"));
        let (t, th, finish, tools) = summary(&r.streams[0].answer);
        assert_eq!(&t, text, "{file}");
        assert_eq!(th, thinking.unwrap_or(""), "{file}");
        let want_finish = if tool.is_some() {
            "tool_use"
        } else {
            "end_turn"
        };
        assert_eq!(finish.as_deref(), Some(want_finish), "{file}");
        match tool {
            Some((name, args)) => {
                assert_eq!(tools.len(), 1, "{file}");
                assert_eq!(&tools[0].1, name, "{file}");
                assert_eq!(&tools[0].2, args, "{file}");
            }
            None => assert!(tools.is_empty(), "{file}"),
        }
        assert_eq!(usage(&r)["input_tokens"], *input, "{file}");
        assert_eq!(usage(&r)["output_tokens"], *output, "{file}");
        // Under the default profile: only infos (a provider's own field or
        // event, a zero usage the last message_delta corrects), unless an
        // observed client breaks on the sample (Vertex's `vertex_event`:
        // rules/observed.json).
        let rec = sselint::lint::observed::record();
        let observed = rec
            .captures
            .get(&format!("samples/providers/{file}"))
            .map_or(Severity::Info, |c| rec.severity(c));
        let above_info: Vec<_> = rules(&r)
            .into_iter()
            .filter(|(_, s)| *s > Severity::Info && *s > observed)
            .collect();
        assert!(above_info.is_empty(), "{file}: {above_info:?}");
        // Under its own profile: nothing at all.
        let p = sselint::lint::profile(profile).unwrap();
        assert_eq!(p.dialect, Dialect::Messages, "{profile}");
        let settings = Settings {
            profile: p,
            ..Settings::default()
        };
        let own = lint_file_with(&root().join("samples/providers").join(file), &settings);
        assert!(
            rules(&own).is_empty(),
            "{file} --profile {profile}: {:?}",
            rules(&own)
        );
    }
}

#[test]
fn a_provider_field_or_event_names_its_provider_under_the_default_profile() {
    let r = sample("providers/messages-bedrock.sse");
    let d = &diags(&r)[0];
    assert_eq!(d.rule, "messages-unknown-field");
    assert!(
        d.message.contains("Amazon Bedrock") && d.message.contains("--profile bedrock"),
        "{}",
        d.message
    );
    let r = sample("providers/messages-vertex-anthropic.sse");
    let d = &diags(&r)[0];
    assert_eq!(d.rule, "messages-unknown-type");
    assert!(
        d.message.contains("Vertex AI") && d.message.contains("--profile vertex-anthropic"),
        "{}",
        d.message
    );
}

fn messages_samples() -> Vec<std::path::PathBuf> {
    let v = samples_named(|n| n.starts_with("messages-"));
    assert!(v.len() >= 33, "only {} Messages samples", v.len());
    v
}

#[test]
fn every_messages_sample_gives_the_same_findings_and_answer_however_it_is_split() {
    for p in messages_samples() {
        let body = std::fs::read(&p).unwrap();
        assert_same_verdict_bytewise(&body, &p.display().to_string());
    }
    // Every two-piece split of one sample with all the block kinds.
    let body = std::fs::read(root().join("samples/good/messages-server-tool.sse")).unwrap();
    let whole = assert_same_verdict_at_every_split(&body);
    assert!(whole.0.is_empty(), "{:?}", whole.0);
}

fn ev(name: &str, data: &Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

fn message_start() -> String {
    ev(
        "message_start",
        &json!({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}),
    )
}

fn message_end() -> String {
    ev(
        "message_delta",
        &json!({"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":9}}),
    ) + &ev("message_stop", &json!({"type":"message_stop"}))
}

fn lint_str(s: &str) -> FileResult {
    lint_bytes(s.as_bytes())
}

#[test]
fn deep_nesting_is_one_invalid_json_finding_and_the_stream_is_still_read() {
    let deep = format!(
        "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{}{}}}\n\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let body = message_start()
        + &ev(
            "content_block_start",
            &json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}),
        )
        + &ev(
            "content_block_delta",
            &json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}}),
        )
        + &deep
        + &ev(
            "content_block_stop",
            &json!({"type":"content_block_stop","index":0}),
        )
        + &message_end();
    let r = lint_str(&body);
    let invalid: Vec<_> = diags(&r)
        .into_iter()
        .filter(|d| d.rule == "invalid-json")
        .collect();
    assert_eq!(invalid.len(), 1, "{:?}", rules(&r));
    assert!(
        invalid[0].message.contains("nest"),
        "{}",
        invalid[0].message
    );
    assert_eq!(text0(&r), "ok");
    assert_eq!(r.streams[0].ending, Ending::Complete);
}

#[test]
fn a_huge_block_index_is_one_clear_finding_not_an_allocation() {
    for (index, says) in [
        (
            "1000000000000000000",
            "has index 1000000000000000000, but the next position",
        ),
        ("1e18", "has `index: 1e+18`, not a non-negative integer"),
        ("18446744073709551615", "has index 18446744073709551615"),
        ("-1", "has `index: -1`, not a non-negative integer"),
    ] {
        let body = message_start()
            + &format!("event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":{index},\"content_block\":{{\"type\":\"text\",\"text\":\"\"}}}}\n\n")
            + &format!("event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":{index},\"delta\":{{\"type\":\"text_delta\",\"text\":\"far\"}}}}\n\n")
            + &format!("event: content_block_stop\ndata: {{\"type\":\"content_block_stop\",\"index\":{index}}}\n\n")
            + &message_end();
        let r = lint_str(&body);
        let found: Vec<_> = diags(&r)
            .into_iter()
            .filter(|d| d.rule == "messages-block-index")
            .collect();
        assert_eq!(found.len(), 1, "{index}: {:?}", rules(&r));
        assert!(
            found[0].message.contains(says),
            "{index}: {}",
            found[0].message
        );
        assert_eq!(found[0].severity, Severity::Error);
    }
}

#[test]
fn a_hundred_thousand_blocks_stay_bounded_and_read_to_the_end() {
    let n = 100_000;
    let mut body = message_start();
    for i in 0..n {
        body.push_str(&format!(
            "event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":{i},\"content_block\":{{\"type\":\"tool_use\",\"id\":\"toolu_{i}\",\"name\":\"f\",\"input\":{{}}}}}}\n\n"
        ));
        body.push_str(&format!(
            "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":{i},\"delta\":{{\"type\":\"input_json_delta\",\"partial_json\":\"{{}}\"}}}}\n\n"
        ));
        body.push_str(&format!(
            "event: content_block_stop\ndata: {{\"type\":\"content_block_stop\",\"index\":{i}}}\n\n"
        ));
    }
    body.push_str(&message_end());
    let r = lint_str(&body);
    assert!(
        rules(&r).is_empty(),
        "{:?}",
        &rules(&r)[..rules(&r).len().min(5)]
    );
    assert_eq!(r.streams[0].ending, Ending::Complete);
    // Blocks past the kept ones are counted, not stored.
    let calls = r.streams[0].answer.choices[&0].tool_calls.len();
    assert_eq!(calls, sselint::dialect::messages::model::MAX_BLOCKS);

    // The same number of text blocks, never stopped and all open at once:
    // one overlap finding, and text capped at the answer's limit.
    let chunk = "x".repeat(64);
    let mut body = message_start();
    for i in 0..n {
        body.push_str(&format!(
            "event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":{i},\"content_block\":{{\"type\":\"text\",\"text\":\"{chunk}\"}}}}\n\n"
        ));
    }
    body.push_str(&message_end());
    let r = lint_str(&body);
    let found: Vec<_> = rules(&r).into_iter().map(|(n, _)| n).collect();
    assert_eq!(found, ["messages-block-overlap"]);
    let text = &r.streams[0].answer.choices[&0].text;
    assert!(text.kept.len() <= MAX_TEXT_BYTES, "{}", text.kept.len());
}

#[test]
fn a_stream_without_event_lines_is_read_as_messages_and_said_to_lose_everything() {
    let named = std::fs::read_to_string(root().join("samples/good/messages-text.sse")).unwrap();
    let bare: String = named
        .lines()
        .filter(|l| !l.starts_with("event:"))
        .map(|l| format!("{l}\n"))
        .collect();
    let r = lint_str(&bare);
    assert_eq!(r.streams[0].dialect, Some(Dialect::Messages));
    // sselint still reads the answer the server meant.
    assert_eq!(text0(&r), text0(&sample("good/messages-text.sse")));
    assert_eq!(r.streams[0].ending, Ending::Complete);
    let found = rules(&r);
    assert_eq!(found, [("messages-unnamed-event", Severity::Error)]);
    let d = &diags(&r)[0];
    assert!(
        d.message
            .starts_with("9 event(s) have no `event:` line (the first is a `message_start`)"),
        "{}",
        d.message
    );
    assert_eq!(d.location.line, 1);
}

fn check_json(args: &[&str], file: &Path) -> Value {
    let out = Command::cargo_bin("sselint")
        .unwrap()
        .arg("check")
        .args(["--format", "json", "--fail-on", "never"])
        .args(args)
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn dialect_messages_forces_a_stream_that_would_not_be_told_apart() {
    let dir = scratch("messages-dialect");
    // An error event alone: its nested `error` with a `type` and no
    // `sequence_number` is Anthropic's shape, so it is read as Messages
    // without --dialect too (a fresh-user trial found it read as Chat).
    let p = dir.join("error-only.sse");
    std::fs::write(
        &p,
        "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
    )
    .unwrap();
    let auto = check_json(&[], &p);
    assert_eq!(auto["files"][0]["streams"][0]["dialect"], "messages");
    // Chat's error shape (no top-level `type`) names no dialect: Chat
    // unless forced.
    let chat = dir.join("chat-error-only.sse");
    std::fs::write(
        &chat,
        "data: {\"error\":{\"message\":\"Overloaded\",\"type\":\"server_error\"}}\n\n",
    )
    .unwrap();
    let auto = check_json(&[], &chat);
    assert_eq!(auto["files"][0]["streams"][0]["dialect"], "chat");
    let forced = check_json(&["--dialect", "messages"], &chat);
    assert_eq!(forced["files"][0]["streams"][0]["dialect"], "messages");
    let forced = check_json(&["--dialect", "messages"], &p);
    let s = &forced["files"][0]["streams"][0];
    assert_eq!(s["dialect"], "messages");
    assert_eq!(s["ending"], "failed");
    let rules: Vec<&str> = s["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["messages-error-event"]);
    assert!(s["diagnostics"][0]["message"]
        .as_str()
        .unwrap()
        .contains("overloaded_error: \"Overloaded\""));
    // An empty body forced to Messages: no message at all.
    let empty = dir.join("empty.sse");
    std::fs::write(&empty, "").unwrap();
    let s = &check_json(&["--dialect", "messages"], &empty)["files"][0]["streams"][0];
    assert_eq!(s["dialect"], "messages");
    assert_eq!(s["diagnostics"][0]["rule"], "messages-start-missing");
    // A Chat sample forced to Messages is judged by Messages rules only.
    let chat = root().join("samples/good/openai-basic.sse");
    let s = &check_json(&["--dialect", "messages"], &chat)["files"][0]["streams"][0];
    assert_eq!(s["dialect"], "messages");
    for d in s["diagnostics"].as_array().unwrap() {
        let rule = d["rule"].as_str().unwrap();
        let r = sselint::lint::catalogue().get(rule).unwrap();
        assert!(
            matches!(r.dialect, None | Some(Dialect::Messages)),
            "{rule}"
        );
    }
}

#[test]
fn the_messages_rules_are_selected_by_their_two_letter_code_prefix() {
    let f = root().join("samples/bad/messages-block-overlap.sse");
    let count = |select: &str| {
        check_json(&["--select", select], &f)["files"][0]["streams"][0]["diagnostics"]
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!(count("MS"), 1);
    assert_eq!(count("ms2"), 1);
    assert_eq!(count("MS203"), 1);
    assert_eq!(count("MS1"), 0);
    assert_eq!(count("messages"), 1);
}

/// Issue 25: a server-run tool is a tool call of the answer, of its own
/// kind (so `diff` compares it), but no call for the client.
#[test]
fn a_server_run_tool_is_checked_and_a_tool_call_of_its_own_kind() {
    let r = sample("good/messages-server-tool.sse");
    let (text, _, finish, tools) = summary(&r.streams[0].answer);
    assert_eq!(
        text,
        "I'll search for the launch date.The Example Telescope launched on 3 March 2026."
    );
    let c = &r.streams[0].answer.choices[&0];
    assert_eq!(tools.len(), 1, "{tools:?}");
    assert_eq!(c.tool_calls[&0].kind.as_deref(), Some("server_tool_use"));
    assert!(c.tool_calls[&0].server);
    assert!(!c.has_client_calls());
    assert_eq!(finish.as_deref(), Some("end_turn"));
    assert_eq!(usage(&r)["server_tool_use"]["web_search_requests"], 1);
    assert!(rules(&r).is_empty(), "{:?}", rules(&r));
}

#[test]
fn a_null_count_in_message_delta_usage_keeps_the_count_message_start_gave() {
    // Observed: the SDKs keep message_start's count when message_delta
    // repeats it as null (found by the client harness).
    let delta = ev(
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null},
                "usage": {"input_tokens": null, "output_tokens": 7}}),
    );
    let s = format!(
        "{}{}{}{}{}{}",
        message_start(),
        ev(
            "content_block_start",
            &json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})
        ),
        ev(
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}})
        ),
        ev(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": 0})
        ),
        delta,
        ev("message_stop", &json!({"type": "message_stop"})),
    );
    let r = lint_str(&s);
    let u = usage(&r);
    assert!(u["input_tokens"].as_u64().is_some(), "{u}");
    assert_eq!(u["output_tokens"], 7, "{u}");
}

#[test]
fn inspect_names_what_every_messages_event_does() {
    // A block's start and stop had a blank kind: every event of the good
    // Messages samples says what it does.
    for sample in [
        "samples/good/messages-basic.sse",
        "samples/good/messages-text.sse",
        "samples/good/messages-thinking.sse",
        "samples/good/messages-tool-use.sse",
        "samples/good/messages-server-tool.sse",
    ] {
        let out = assert_cmd::Command::cargo_bin("sselint")
            .unwrap()
            .current_dir(common::root())
            .args(["inspect", sample, "--format", "jsonl"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{sample}");
        for line in String::from_utf8(out.stdout).unwrap().lines() {
            let row: serde_json::Value = serde_json::from_str(line).unwrap();
            if row["type"] != "event" {
                continue;
            }
            let kind = row["kind"].as_str().unwrap_or("");
            assert!(!kind.is_empty(), "{sample}: {}", row["event"]);
            if row["event"] == "content_block_start" || row["event"] == "content_block_stop" {
                assert!(kind.split('+').any(|k| k == "block"), "{sample}: {kind}");
            }
        }
    }
}
