//! `sselint diff`: what a client would notice between two streams, and
//! nothing else.

mod common;
use assert_cmd::Command;
use common::root;
use serde_json::Value;

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

fn items(v: &Value) -> Vec<(String, String, String)> {
    v["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["section"].as_str().unwrap().to_string(),
                d["item"].as_str().unwrap().to_string(),
                d["class"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_capture_against_itself_is_equivalent_in_one_line() {
    for f in [
        "samples/good/openai-tool-calls.sse",
        "samples/har/chrome.har",
        "samples/providers/azure.sse",
    ] {
        let out = Command::cargo_bin("sselint")
            .unwrap()
            .current_dir(root())
            .args(["diff", f, f, "--color", "never"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{f}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(text.contains("are equivalent"), "{text}");
    }
}

#[test]
fn no_done_usage_on_finish_and_reasoning_content_are_the_only_differences() {
    let (code, v) = diff("samples/diff/openai.sse", "samples/diff/provider.sse", &[]);
    assert_eq!(code, 1, "a different ending is not compatible");
    let items = items(&v);
    // Each of the three causes shows up, classified…
    assert!(
        items.contains(&("shape".into(), "[DONE]".into(), "ending".into())),
        "{items:#?}"
    );
    assert!(
        items.contains(&("shape".into(), "ending".into(), "ending".into())),
        "{items:#?}"
    );
    assert!(
        items.contains(&(
            "shape".into(),
            "usage placement".into(),
            "usage placement".into()
        )),
        "{items:#?}"
    );
    assert!(
        items.iter().any(|(s, i, c)| s == "fields"
            && i == "/choices/*/delta/reasoning_content"
            && c.starts_with("extension (")
            && c.contains("DeepSeek")),
        "{items:#?}"
    );
    // …and everything else listed is one of their direct consequences.
    for (s, i, _) in &items {
        let explained = matches!(
            (s.as_str(), i.as_str()),
            (
                "shape",
                "[DONE]" | "ending" | "usage placement" | "chunk sequence"
            ) | ("fields", "/choices/*/delta/reasoning_content")
                | ("answer", "choice 0 reasoning")
                | ("diagnostics", "missing-done" | "vendor-extension")
        );
        assert!(explained, "unexpected difference {s} / {i}");
    }
    let seq = v["differences"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["item"] == "chunk sequence")
        .unwrap();
    assert_eq!(seq["a"], "role · content×7 · finish · usage · [DONE]");
    assert_eq!(seq["b"], "role · reasoning×4 · content×7 · finish+usage");
    assert!(
        v["text_diffs"].as_array().unwrap().is_empty(),
        "same answer text"
    );
}

#[test]
fn the_same_answer_chunked_differently_is_a_chunking_difference_not_a_text_one() {
    let (code, v) = diff(
        "samples/diff/whole-words.sse",
        "samples/diff/one-char-per-chunk.sse",
        &[],
    );
    assert_eq!(code, 0);
    assert_eq!(
        items(&v),
        [(
            "shape".to_string(),
            "chunking".to_string(),
            "chunking".to_string()
        )]
    );
    assert!(v["text_diffs"].as_array().unwrap().is_empty());
}

#[test]
fn different_answers_get_a_word_diff_unless_text_is_ignored() {
    let (code, v) = diff(
        "samples/good/openai-usage.sse",
        "samples/providers/deepseek.sse",
        &[],
    );
    assert_eq!(code, 1);
    let ops = v["text_diffs"][0]["ops"].as_array().unwrap();
    assert!(ops.iter().any(|o| o[0] == "delete") && ops.iter().any(|o| o[0] == "insert"));
    let (code, v) = diff(
        "samples/good/openai-usage.sse",
        "samples/providers/deepseek.sse",
        &["--ignore-text"],
    );
    assert_eq!(code, 0, "{v:#}");
    assert!(!items(&v).iter().any(|(_, i, _)| i.ends_with(" text")));
}

#[test]
fn tool_call_arguments_compare_as_json() {
    let dir = common::Scratch::new("diff");
    let mk = |name: &str, args: &[&str]| {
        let mut s = String::from("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n");
        for a in args {
            s.push_str(&format!("data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":0,\"function\":{{\"arguments\":{}}}}}]}},\"finish_reason\":null}}]}}\n\n", serde_json::to_string(a).unwrap()));
        }
        s.push_str("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n");
        let p = dir.join(name);
        std::fs::write(&p, s).unwrap();
        p.to_string_lossy().into_owned()
    };
    let a = mk("a.sse", &["{\"city\": \"Paris\",", " \"days\": 3}"]);
    let b = mk("b.sse", &["{\"days\":3,\"city\":\"Paris\"}"]);
    let c = mk("c.sse", &["{\"days\":4,\"city\":\"Paris\"}"]);
    let (code, v) = diff(&a, &b, &[]);
    assert_eq!(code, 0);
    assert!(
        !items(&v).iter().any(|(s, _, _)| s == "tool-calls"),
        "{v:#}"
    );
    let (_, v) = diff(&a, &c, &[]);
    let d = v["differences"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["section"] == "tool-calls")
        .expect("arguments differ");
    assert_eq!(d["class"], "/days 3 ≠ 4");
}

#[test]
fn a_har_side_needs_an_entry_when_it_holds_several_streams_and_accepts_path_hash_n() {
    let (code, _) = diff(
        "samples/har/chrome.har#3",
        "samples/har/chrome-base64.har#3",
        &[],
    );
    assert_eq!(code, 0);
    let mut har: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("samples/har/chrome.har")).unwrap(),
    )
    .unwrap();
    let entries = har["log"]["entries"].as_array_mut().unwrap();
    let sse = entries[3].clone();
    entries.push(sse);
    let dir = common::Scratch::new("two-streams");
    let p = dir.join("two-streams.har");
    std::fs::write(&p, serde_json::to_string(&har).unwrap()).unwrap();
    let out = Command::cargo_bin("sselint")
        .unwrap()
        .current_dir(root())
        .arg("diff")
        .arg(&p)
        .arg("samples/har/chrome.har#3")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("holds 2 SSE streams") && err.contains("#N"),
        "{err}"
    );
    let (code, _) = diff(
        &format!("{}#4", p.display()),
        "samples/har/chrome.har#3",
        &[],
    );
    assert_eq!(code, 0);
    // An index past the entries is said in diff's own terms (no `--entry`,
    // which diff does not take).
    let out = Command::cargo_bin("sselint")
        .unwrap()
        .current_dir(root())
        .args([
            "diff",
            "samples/har/chrome.har#9",
            "samples/har/chrome.har#3",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("samples/har/chrome.har: entry 9 is out of range: the HAR has 4 entries"),
        "{err}"
    );
    assert!(!err.contains("--entry 9"), "{err}");
}

#[test]
fn human_and_json_diff_reports_are_stable() {
    for (name, a, b) in [
        (
            "diff-provider",
            "samples/diff/openai.sse",
            "samples/diff/provider.sse",
        ),
        (
            "diff-chunking",
            "samples/diff/whole-words.sse",
            "samples/diff/one-char-per-chunk.sse",
        ),
        (
            "diff-text",
            "samples/good/openai-usage.sse",
            "samples/providers/deepseek.sse",
        ),
    ] {
        let out = Command::cargo_bin("sselint")
            .unwrap()
            .current_dir(root())
            .args(["diff", a, b, "--color", "never"])
            .output()
            .unwrap();
        insta::assert_snapshot!(
            format!("{name}.human"),
            String::from_utf8(out.stdout).unwrap()
        );
        let (_, v) = diff(a, b, &[]);
        insta::assert_json_snapshot!(format!("{name}.json"), v);
    }
}

#[test]
fn the_human_table_wraps_cells_instead_of_cutting_them() {
    let out = Command::cargo_bin("sselint")
        .unwrap()
        .current_dir(root())
        .args([
            "diff",
            "samples/diff/whole-words.sse",
            "samples/diff/one-char-per-chunk.sse",
            "--color",
            "never",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains('…'), "a cell was cut:\n{text}");
    // The cells' words, wrapped over lines, are all there.
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || "│┆".contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    let joined = words.join(" ");
    for want in [
        "3.9 chars per content chunk)",
        "1.0 chars per content chunk)",
    ] {
        assert!(joined.contains(want), "{want} missing:\n{text}");
    }
}

/// The same answer (a weather tool call, then its finish) as Chat
/// Completions, Responses and Anthropic Messages streams, and a Messages
/// one that stops on max_tokens instead.
fn migration_streams(dir: &std::path::Path) -> [std::path::PathBuf; 4] {
    let chat = concat!(
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n",
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}}]},\"finish_reason\":null}]}\n\n",
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"gpt-4o-mini\",\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":8,\"total_tokens\":20}}\n\n",
        "data: [DONE]\n\n",
    );
    // A conformant Responses stream (every rule of its dialect passes).
    let responses = concat!(
        "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"created_at\":1700000000,\"status\":\"in_progress\",\"error\":null,\"incomplete_details\":null,\"instructions\":null,\"model\":\"gpt-4o-mini\",\"output\":[],\"parallel_tool_calls\":true,\"temperature\":1.0,\"tool_choice\":\"auto\",\"tools\":[],\"top_p\":1.0,\"usage\":null,\"metadata\":{}}}\n\n",
        "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"sequence_number\":1,\"output_index\":0,\"item\":{\"id\":\"fc_1\",\"type\":\"function_call\",\"call_id\":\"call_1\",\"name\":\"get_weather\",\"arguments\":\"\",\"status\":\"in_progress\"}}\n\n",
        "event: response.function_call_arguments.delta\ndata: {\"type\":\"response.function_call_arguments.delta\",\"sequence_number\":2,\"item_id\":\"fc_1\",\"output_index\":0,\"delta\":\"{\\\"city\\\": \\\"Paris\\\"}\"}\n\n",
        "event: response.function_call_arguments.done\ndata: {\"type\":\"response.function_call_arguments.done\",\"sequence_number\":3,\"item_id\":\"fc_1\",\"output_index\":0,\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\": \\\"Paris\\\"}\"}\n\n",
        "event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\",\"sequence_number\":4,\"output_index\":0,\"item\":{\"id\":\"fc_1\",\"type\":\"function_call\",\"call_id\":\"call_1\",\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\": \\\"Paris\\\"}\",\"status\":\"completed\"}}\n\n",
        "event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":5,\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"created_at\":1700000000,\"status\":\"completed\",\"error\":null,\"incomplete_details\":null,\"instructions\":null,\"model\":\"gpt-4o-mini\",\"output\":[{\"id\":\"fc_1\",\"type\":\"function_call\",\"call_id\":\"call_1\",\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\": \\\"Paris\\\"}\",\"status\":\"completed\"}],\"parallel_tool_calls\":true,\"temperature\":1.0,\"tool_choice\":\"auto\",\"tools\":[],\"top_p\":1.0,\"usage\":{\"input_tokens\":12,\"output_tokens\":8,\"total_tokens\":20},\"metadata\":{}}}\n\n",
    );
    let messages = |stop: &str| {
        format!(
            concat!(
                "event: message_start\ndata: {{\"type\":\"message_start\",\"message\":{{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4-5\",\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{{\"input_tokens\":12,\"output_tokens\":1}}}}}}\n\n",
                "event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"get_weather\",\"input\":{{}}}}}}\n\n",
                "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"input_json_delta\",\"partial_json\":\"{{\\\"city\\\":\\\"Paris\\\"}}\"}}}}\n\n",
                "event: content_block_stop\ndata: {{\"type\":\"content_block_stop\",\"index\":0}}\n\n",
                "event: message_delta\ndata: {{\"type\":\"message_delta\",\"delta\":{{\"stop_reason\":\"{}\",\"stop_sequence\":null}},\"usage\":{{\"output_tokens\":8}}}}\n\n",
                "event: message_stop\ndata: {{\"type\":\"message_stop\"}}\n\n",
            ),
            stop
        )
    };
    let files = [
        ("chat.sse", chat.to_string()),
        ("responses.sse", responses.to_string()),
        ("messages.sse", messages("tool_use")),
        ("messages-length.sse", messages("max_tokens")),
    ];
    files.map(|(name, text)| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    })
}

#[test]
fn streams_of_two_dialects_are_compared_on_what_both_have() {
    let dir = common::scratch("diff-dialects");
    let [chat, responses, messages, truncated] = migration_streams(&dir);
    let s = |p: &std::path::Path| p.to_string_lossy().into_owned();
    // The same tool call as Chat, Responses and Messages: equivalent where
    // they can be compared (ids differ by format, arguments as JSON).
    for other in [&responses, &messages] {
        let (code, v) = diff(&s(&chat), &s(other), &[]);
        assert_eq!(code, 0, "{v:#}");
        assert_eq!(v["identical"], true, "{v:#}");
        assert_eq!(v["a"]["dialect"], "chat");
        let na = v["not_applicable"].as_array().unwrap();
        assert_eq!(na.len(), 1, "{v:#}");
        assert!(na[0].as_str().unwrap().contains("[DONE]"), "{v:#}");
    }
    // A Messages stream cut by max_tokens: the finish is mapped (tool_use
    // is tool_calls; max_tokens is length) and the run fails.
    let (code, v) = diff(&s(&messages), &s(&truncated), &[]);
    assert_eq!(code, 1);
    assert!(v["not_applicable"].as_array().unwrap().is_empty());
    let (code, v) = diff(&s(&chat), &s(&truncated), &[]);
    assert_eq!(code, 1, "{v:#}");
    let finish = v["differences"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["item"] == "choice 0 finish")
        .unwrap_or_else(|| panic!("{v:#}"));
    assert_eq!(finish["a"], "\"tool_calls\"");
    assert_eq!(finish["b"], "\"max_tokens\" (= length)");
    // No shape or field rows across dialects.
    assert!(
        items(&v)
            .iter()
            .all(|(sec, _, _)| sec != "fields" && sec != "shape"),
        "{v:#}"
    );
    // The human report says what was not compared.
    let out = Command::cargo_bin("sselint")
        .unwrap()
        .args(["diff", &s(&chat), &s(&messages)])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("equivalent where two dialects can be compared"),
        "{text}"
    );
    assert!(text.contains("not compared:"), "{text}");
}

/// A text answer ("Hi.") as a Chat Completions stream with `usage`, with or
/// without its finish and `[DONE]`, and with or without a role on the
/// first delta.
fn chat_text(usage: &str, finish: bool, done: bool, role: bool) -> String {
    let head = r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini","#;
    let role = if role { r#""role":"assistant","# } else { "" };
    let mut s = format!(
        "data: {head}\"choices\":[{{\"index\":0,\"delta\":{{{role}\"content\":\"Hi.\"}},\"finish_reason\":null}}]}}\n\n"
    );
    if finish {
        s += &format!(
            "data: {head}\"choices\":[{{\"index\":0,\"delta\":{{}},\"finish_reason\":\"stop\"}}]}}\n\n"
        );
        s += &format!("data: {head}\"choices\":[],\"usage\":{usage}}}\n\n");
    }
    if done {
        s += "data: [DONE]\n\n";
    }
    s
}

/// The same answer as an Anthropic Messages stream: `start_usage` on
/// `message_start`, 8 output tokens on `message_delta` (left out with
/// `stop: false`), `message_stop` when `message_stop`, `event:` lines when
/// `named`.
fn messages_text(start_usage: &str, stop: bool, message_stop: bool, named: bool) -> String {
    let mut events = vec![
        ("message_start", format!(r#"{{"type":"message_start","message":{{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":{start_usage}}}}}"#)),
        ("content_block_start", r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#.to_string()),
        ("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi."}}"#.to_string()),
        ("content_block_stop", r#"{"type":"content_block_stop","index":0}"#.to_string()),
    ];
    if stop {
        events.push(("message_delta", r#"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":8}}"#.to_string()));
    }
    if message_stop {
        events.push(("message_stop", r#"{"type":"message_stop"}"#.to_string()));
    }
    events
        .into_iter()
        .map(|(name, data)| {
            if named {
                format!("event: {name}\ndata: {data}\n\n")
            } else {
                format!("data: {data}\n\n")
            }
        })
        .collect()
}

/// The same answer as an OpenAI Responses stream with `usage` on
/// `response.completed`.
fn responses_text(usage: &str) -> String {
    let resp = |status: &str, output: &str, usage: &str| {
        format!(
            r#"{{"id":"resp_1","object":"response","created_at":1700000000,"status":"{status}","error":null,"incomplete_details":null,"instructions":null,"model":"gpt-4o-mini","output":[{output}],"parallel_tool_calls":true,"temperature":1.0,"tool_choice":"auto","tools":[],"top_p":1.0,"usage":{usage},"metadata":{{}}}}"#
        )
    };
    let item = |status: &str, text: &str| {
        format!(
            r#"{{"id":"msg_1","type":"message","status":"{status}","role":"assistant","content":[{text}]}}"#
        )
    };
    let part = r#"{"type":"output_text","text":"Hi.","annotations":[]}"#;
    let events = [
        ("response.created", format!(r#"{{"type":"response.created","sequence_number":0,"response":{}}}"#, resp("in_progress", "", "null"))),
        ("response.output_item.added", format!(r#"{{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{}}}"#, item("in_progress", ""))),
        ("response.content_part.added", r#"{"type":"response.content_part.added","sequence_number":2,"item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}"#.to_string()),
        ("response.output_text.delta", r#"{"type":"response.output_text.delta","sequence_number":3,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi.","logprobs":[]}"#.to_string()),
        ("response.output_text.done", r#"{"type":"response.output_text.done","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"text":"Hi.","logprobs":[]}"#.to_string()),
        ("response.content_part.done", format!(r#"{{"type":"response.content_part.done","sequence_number":5,"item_id":"msg_1","output_index":0,"content_index":0,"part":{part}}}"#)),
        ("response.output_item.done", format!(r#"{{"type":"response.output_item.done","sequence_number":6,"output_index":0,"item":{}}}"#, item("completed", part))),
        ("response.completed", format!(r#"{{"type":"response.completed","sequence_number":7,"response":{}}}"#, resp("completed", &item("completed", part), usage))),
    ];
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

fn row<'v>(v: &'v Value, item: &str) -> Option<&'v Value> {
    v["differences"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["item"] == item)
}

#[test]
fn usage_across_dialects_counts_cached_tokens_on_one_footing() {
    let dir = common::scratch("diff-cached-usage");
    // 1212 input tokens of which 1200 came from the cache, 8 output: OpenAI
    // counts the cached ones inside prompt_tokens / input_tokens, Anthropic
    // apart from input_tokens (cache_read_input_tokens).
    let chat = write(
        &dir,
        "chat.sse",
        &chat_text(
            r#"{"prompt_tokens":1212,"completion_tokens":8,"total_tokens":1220,"prompt_tokens_details":{"cached_tokens":1200}}"#,
            true,
            true,
            true,
        ),
    );
    let responses = write(
        &dir,
        "responses.sse",
        &responses_text(
            r#"{"input_tokens":1212,"input_tokens_details":{"cached_tokens":1200},"output_tokens":8,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":1220}"#,
        ),
    );
    let messages = write(
        &dir,
        "messages.sse",
        &messages_text(
            r#"{"input_tokens":12,"cache_creation_input_tokens":0,"cache_read_input_tokens":1200,"output_tokens":1}"#,
            true,
            true,
            true,
        ),
    );
    for (a, b) in [
        (&chat, &messages),
        (&chat, &responses),
        (&responses, &messages),
    ] {
        let (code, v) = diff(a, b, &[]);
        assert_eq!(code, 0, "{v:#}");
        assert!(row(&v, "usage").is_none(), "{v:#}");
        assert_eq!(v["identical"], true, "{v:#}");
    }
    // The same total with the cached part written to the cache instead of
    // read from it: a usage row that shows the cached part on each side.
    let written = write(
        &dir,
        "messages-written.sse",
        &messages_text(
            r#"{"input_tokens":12,"cache_creation_input_tokens":1200,"cache_read_input_tokens":0,"output_tokens":1}"#,
            true,
            true,
            true,
        ),
    );
    let (code, v) = diff(&chat, &written, &[]);
    assert_eq!(code, 0, "usage alone is no incompatibility: {v:#}");
    let usage = row(&v, "usage").unwrap_or_else(|| panic!("{v:#}"));
    assert_eq!(usage["a"], "1212+8=1220 (1200 cached)", "{v:#}");
    assert_eq!(usage["b"], "1212+8=1220 (1200 cache write)", "{v:#}");
    assert!(
        usage["class"]
            .as_str()
            .unwrap()
            .contains("cache_read_input_tokens"),
        "{v:#}"
    );
    // Each side's usage on that footing in the JSON.
    assert_eq!(v["a"]["usage"]["input"], 1212, "{v:#}");
    assert_eq!(v["a"]["usage"]["cached"], 1200, "{v:#}");
    assert_eq!(v["b"]["usage"]["input"], 1212, "{v:#}");
    assert_eq!(v["b"]["usage"]["cache_write"], 1200, "{v:#}");
}

#[test]
fn equivalent_faults_across_dialects_are_one_finding_not_a_difference() {
    let dir = common::scratch("diff-equivalent-faults");
    let usage = r#"{"prompt_tokens":12,"completion_tokens":8,"total_tokens":20}"#;
    let start = r#"{"input_tokens":12,"output_tokens":1}"#;
    // A finish but no end marker: `missing-done` on Chat, the same fault as
    // `messages-stop-missing` on Messages.
    let chat_no_done = write(
        &dir,
        "chat-no-done.sse",
        &chat_text(usage, true, false, true),
    );
    let messages_no_stop = write(
        &dir,
        "messages-no-stop.sse",
        &messages_text(start, true, false, true),
    );
    let (code, v) = diff(&chat_no_done, &messages_no_stop, &[]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["identical"], true, "{v:#}");
    assert_eq!(
        v["diagnostics"]["both"]["missing-done / messages-stop-missing"],
        serde_json::json!([1, 1]),
        "{v:#}"
    );
    // Cut before the finish on both sides: one fault under two names.
    let chat_cut = write(&dir, "chat-cut.sse", &chat_text(usage, false, false, true));
    let messages_cut = write(
        &dir,
        "messages-cut.sse",
        &messages_text(start, false, false, true),
    );
    let (code, v) = diff(&chat_cut, &messages_cut, &[]);
    assert_eq!(code, 0, "{v:#}");
    assert!(
        v["diagnostics"]["both"]
            .get("cut-off / messages-cut-off")
            .is_some(),
        "{v:#}"
    );
    // The fault on B alone is still a difference, named by B's rule.
    let chat = write(&dir, "chat.sse", &chat_text(usage, true, true, true));
    let (code, v) = diff(&chat, &messages_no_stop, &[]);
    assert_eq!(code, 1, "{v:#}");
    let r = row(&v, "messages-stop-missing").unwrap_or_else(|| panic!("{v:#}"));
    let class = r["class"].as_str().unwrap();
    assert!(
        class.starts_with("only in B (")
            && class.contains("`missing-done` in OpenAI Chat Completions"),
        "{v:#}"
    );
}

#[test]
fn findings_of_one_dialect_only_are_labelled_and_weighed_by_severity() {
    let dir = common::scratch("diff-dialect-only");
    let usage = r#"{"prompt_tokens":12,"completion_tokens":8,"total_tokens":20}"#;
    let start = r#"{"input_tokens":12,"output_tokens":1}"#;
    let chat = write(&dir, "chat.sse", &chat_text(usage, true, true, true));
    // An info that only Messages has (`[DONE]` in a Messages stream):
    // labelled, and below the default --fail-on error.
    let mut done = messages_text(start, true, true, true);
    done += "data: [DONE]\n\n";
    let messages_done = write(&dir, "messages-done.sse", &done);
    let (code, v) = diff(&chat, &messages_done, &[]);
    assert_eq!(code, 0, "{v:#}");
    let r = row(&v, "messages-done-marker").unwrap_or_else(|| panic!("{v:#}"));
    assert_eq!(
        r["class"],
        "only in B: an Anthropic Messages rule with no OpenAI Chat Completions counterpart",
        "{v:#}"
    );
    assert_eq!(
        v["diagnostics"]["dialect_only"],
        serde_json::json!(["messages-done-marker"]),
        "{v:#}"
    );
    // With --fail-on info it counts: A has no info of its own dialect.
    let (code, v) = diff(&chat, &messages_done, &["--fail-on", "info"]);
    assert_eq!(code, 1, "{v:#}");
    assert!(
        v["reasons"][0]
            .as_str()
            .unwrap()
            .contains("an Anthropic Messages rule with no OpenAI Chat Completions counterpart"),
        "{v:#}"
    );
    // An error only Messages has (events without `event:` lines, which its
    // clients raise on) against a clean Chat stream: B's clients fail where
    // A's do not, so it counts.
    let unnamed = write(
        &dir,
        "messages-unnamed.sse",
        &messages_text(start, true, true, false),
    );
    let (code, v) = diff(&chat, &unnamed, &[]);
    assert_eq!(code, 1, "{v:#}");
    let reasons = v["reasons"].to_string();
    assert!(reasons.contains("messages-unnamed-event"), "{v:#}");
    // The same against a Chat stream with an error of its own dialect (no
    // role on the first delta): each side fails its own clients at the same
    // level, and two rules that cannot be matched are no difference.
    let chat_no_role = write(
        &dir,
        "chat-no-role.sse",
        &chat_text(usage, true, true, false),
    );
    let (code, v) = diff(&chat_no_role, &unnamed, &[]);
    assert_eq!(code, 0, "{v:#}");
    assert!(row(&v, "messages-unnamed-event").is_some(), "{v:#}");
    assert!(row(&v, "missing-role").is_some(), "{v:#}");
    assert!(
        v["notes"][0]
            .as_str()
            .unwrap()
            .contains("A: missing-role; B: messages-unnamed-event"),
        "{v:#}"
    );
}

#[test]
fn dialect_applies_to_both_sides_and_dialect_a_or_b_to_one() {
    let dir = common::scratch("diff-dialect-option");
    let usage = r#"{"prompt_tokens":12,"completion_tokens":8,"total_tokens":20}"#;
    let start = r#"{"input_tokens":12,"output_tokens":1}"#;
    let chat = write(&dir, "chat.sse", &chat_text(usage, true, true, true));
    let messages = write(
        &dir,
        "messages.sse",
        &messages_text(start, true, true, true),
    );
    let dialects = |extra: &[&str]| {
        let (_, v) = diff(&chat, &messages, extra);
        (
            v["a"]["dialect"].as_str().map(str::to_string),
            v["b"]["dialect"].as_str().map(str::to_string),
        )
    };
    let d = |a: &str, b: &str| (Some(a.to_string()), Some(b.to_string()));
    assert_eq!(dialects(&[]), d("chat", "messages"));
    assert_eq!(
        dialects(&["--dialect", "messages"]),
        d("messages", "messages")
    );
    assert_eq!(dialects(&["--dialect-b", "chat"]), d("chat", "chat"));
    assert_eq!(
        dialects(&["--dialect", "responses", "--dialect-a", "chat"]),
        d("chat", "responses")
    );
    let help = Command::cargo_bin("sselint")
        .unwrap()
        .args(["diff", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for flag in [
        "--dialect <DIALECT>",
        "--dialect-a <DIALECT>",
        "--dialect-b <DIALECT>",
    ] {
        assert!(help.contains(flag), "{help}");
    }
}

#[test]
fn ignore_text_across_dialects_still_compares_usage_and_tool_arguments() {
    let (_, v) = diff(
        "samples/good/messages-tool-use.sse",
        "samples/good/responses-function-call.sse",
        &["--ignore-text"],
    );
    assert_eq!(v["identical"], false, "{v:#}");
    let found = items(&v);
    assert!(found.iter().any(|(_, i, _)| i == "usage"), "{found:?}");
    assert!(
        found.iter().any(|(_, i, _)| i.ends_with(" arguments")),
        "{found:?}"
    );
    // The text is what it drops.
    assert!(!found.iter().any(|(_, i, _)| i.ends_with(" text")));
}

#[test]
fn the_finish_reason_names_each_sides_own_word() {
    let (_, v) = diff(
        "samples/good/messages-tool-use.sse",
        "samples/good/openai-basic.sse",
        &[],
    );
    let reasons = v.to_string();
    assert!(
        reasons.contains(r#"finishes with \"tool_use\" (= tool_calls) on A, \"stop\" on B"#),
        "{v:#}"
    );
}

/// Issue 25: two GPT-5 custom tool calls whose inputs differ were
/// "equivalent" (exit 0): a `custom_tool_call` was no tool call of the
/// answer. Its input is compared as a string.
#[test]
fn custom_tool_calls_whose_input_differs_are_not_compatible() {
    let (code, v) = diff(
        "tests/fixtures/seam/responses-custom-tool-a.sse",
        "tests/fixtures/seam/responses-custom-tool-b.sse",
        &[],
    );
    assert_eq!(code, 1, "{v:#}");
    let row = v["differences"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["section"] == "tool-calls")
        .unwrap_or_else(|| panic!("no tool-call row: {v:#}"));
    assert_eq!(row["a"], r#"print("hello world")"#, "{v:#}");
    assert_eq!(row["b"], "print(sum(range(10)) * 2)", "{v:#}");
    assert!(
        v["reasons"].to_string().contains("input"),
        "the verdict says why: {v:#}"
    );
    // With --ignore-text (different prompts), tool-call inputs are not
    // weighed.
    let (code, _) = diff(
        "tests/fixtures/seam/responses-custom-tool-a.sse",
        "tests/fixtures/seam/responses-custom-tool-b.sse",
        &["--ignore-text"],
    );
    assert_eq!(code, 0);
}

/// Issue 25: a `web_search_call` (and Messages' `server_tool_use`) is a
/// tool call of the answer too, of its own kind: the server ran it.
#[test]
fn server_side_tool_calls_are_tool_calls_of_their_kind() {
    let json = |f: &str| -> Value {
        let out = Command::cargo_bin("sselint")
            .unwrap()
            .current_dir(root())
            .args(["check", "--no-config", "--format", "json", f])
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let v = json("tests/fixtures/seam/responses-web-search.sse");
    let calls = &v["files"][0]["streams"][0]["choices"][0]["tool_calls"];
    assert_eq!(calls[0]["kind"], "web_search_call", "{calls:#}");
    assert!(
        calls[0]["arguments"]
            .as_str()
            .unwrap()
            .contains("botanical garden"),
        "{calls:#}"
    );
    // A server-run search is no client tool call: the finish stays `stop`.
    let (code, d) = diff(
        "tests/fixtures/seam/responses-web-search.sse",
        "tests/fixtures/seam/responses-web-search.sse",
        &[],
    );
    assert_eq!(code, 0, "{d:#}");
    let v = json("samples/good/messages-server-tool.sse");
    let calls = &v["files"][0]["streams"][0]["choices"][0]["tool_calls"];
    assert_eq!(calls[0]["kind"], "server_tool_use", "{calls:#}");
    assert_eq!(calls[0]["name"], "web_search", "{calls:#}");
}

/// Issue 25: tool calls with the same name and other arguments made two
/// streams "compatible" (exit 0), within a dialect and across dialects: a
/// CI gate built on `diff` failed open.
#[test]
fn tool_calls_whose_arguments_differ_are_not_compatible() {
    for (a, b) in [
        (
            "tests/fixtures/seam/chat-tool-lisbon.sse",
            "tests/fixtures/seam/chat-tool-porto.sse",
        ),
        (
            "samples/good/messages-tool-use.sse",
            "tests/fixtures/seam/messages-tool-porto.sse",
        ),
        (
            "samples/good/messages-tool-use.sse",
            "tests/fixtures/seam/chat-tool-porto.sse",
        ),
    ] {
        let (code, v) = diff(a, b, &[]);
        assert_eq!(code, 1, "{a} vs {b}: {v:#}");
        assert!(
            v["reasons"].to_string().contains("arguments"),
            "{a} vs {b}: {v:#}"
        );
        // The same arguments written differently are the same call.
        let (code, v) = diff(a, a, &[]);
        assert_eq!(code, 0, "{a}: {v:#}");
        let (code, _) = diff(a, b, &["--ignore-text"]);
        assert_eq!(code, 0, "{a} vs {b} --ignore-text");
    }
    // Arguments compared as JSON: key order and spacing do not count.
    let (code, v) = diff(
        "samples/good/messages-tool-use.sse",
        "tests/fixtures/seam/chat-tool-lisbon.sse",
        &[],
    );
    assert!(
        !v["reasons"].to_string().contains("arguments"),
        "{code} {v:#}"
    );
}

/// Issue 25: `diff` of two Messages streams spoke Chat: `[DONE]` rows for
/// `message_stop`, `keepalive` for `ping`, "choice 0", and thinking as a
/// "reasoning (extension field)"; and "[DONE]" was named among what is
/// not compared for Messages against Responses.
#[test]
fn diff_speaks_the_dialect_of_its_streams() {
    let human = |a: &str, b: &str| {
        let out = Command::cargo_bin("sselint")
            .unwrap()
            .current_dir(root())
            .args(["diff", "--color", "never", a, b])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let t = human(
        "samples/good/messages-text.sse",
        "samples/good/messages-thinking.sse",
    );
    for word in ["[DONE]", "keepalive", "choice 0", "extension field"] {
        assert!(!t.contains(word), "{word:?} in:\n{t}");
    }
    for word in ["message_stop", "ping", "message text", "thinking"] {
        assert!(t.contains(word), "{word:?} not in:\n{t}");
    }
    let t = human(
        "samples/good/responses-text.sse",
        "samples/good/responses-reasoning.sse",
    );
    for word in ["choice 0", "extension field"] {
        assert!(!t.contains(word), "{word:?} in:\n{t}");
    }
    assert!(t.contains("response text"), "{t}");
    let t = human(
        "samples/good/messages-text.sse",
        "samples/good/responses-text.sse",
    );
    assert!(t.contains("not compared"), "{t}");
    assert!(!t.contains("[DONE]"), "{t}");
    // Chat keeps its words.
    let t = human("samples/diff/openai.sse", "samples/diff/provider.sse");
    assert!(t.contains("choice 0"), "{t}");
    assert!(t.contains("reasoning (extension field)"), "{t}");
}

#[test]
fn ignore_text_never_says_same_answer_when_the_texts_differ() {
    let human = |args: &[&str]| {
        let out = Command::cargo_bin("sselint")
            .unwrap()
            .current_dir(root())
            .arg("diff")
            .args(args)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        (
            out.status.code().unwrap(),
            String::from_utf8(out.stdout).unwrap(),
        )
    };
    // Other texts, other shapes: compatible, but not "same answer".
    let (code, text) = human(&[
        "samples/good/openai-usage.sse",
        "samples/providers/deepseek.sse",
        "--ignore-text",
    ]);
    assert_eq!(code, 0, "{text}");
    let last = text.lines().last().unwrap();
    assert!(!last.contains("same answer"), "{last}");
    assert!(
        last.contains("text and tool-call arguments were not compared: --ignore-text"),
        "{last}"
    );
    // Only the text differs: "equivalent" says what was compared.
    let dir = common::scratch("ignore-text-equivalent");
    let a = std::fs::read_to_string(root().join("samples/good/openai-usage.sse")).unwrap();
    let b = a.replace(r#""content":"Hello""#, r#""content":"Howdy""#);
    assert_ne!(a, b);
    std::fs::write(dir.join("a.sse"), &a).unwrap();
    std::fs::write(dir.join("b.sse"), &b).unwrap();
    let (pa, pb) = (dir.join("a.sse"), dir.join("b.sse"));
    let (code, text) = human(&[pa.to_str().unwrap(), pb.to_str().unwrap(), "--ignore-text"]);
    assert_eq!(code, 0, "{text}");
    assert!(!text.contains("same answer"), "{text}");
    assert!(
        text.contains("their text and the tool calls' arguments were not compared (--ignore-text)"),
        "{text}"
    );
    let (code, _) = human(&[pa.to_str().unwrap(), pb.to_str().unwrap()]);
    assert_eq!(code, 1, "without --ignore-text the texts differ");
}

/// Every diff row and reason that names `rule`.
fn mentions(v: &Value, rule: &str) -> Vec<String> {
    let mut out: Vec<String> = v["differences"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["item"].as_str().is_some_and(|i| i.contains(rule)))
        .map(|d| d.to_string())
        .collect();
    out.extend(
        v["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .filter(|r| r.contains(rule))
            .map(str::to_string),
    );
    out
}

#[test]
fn a_budget_cut_is_one_finding_in_every_pair_of_dialects() {
    // One stream per dialect that the token budget cut, each reported by
    // its own dialect's rule.
    let cut = [
        ("samples/bad/finish-length.sse", "finish-length"),
        (
            "samples/bad/responses-incomplete.sse",
            "responses-incomplete",
        ),
        ("samples/bad/messages-max-tokens.sse", "messages-max-tokens"),
        ("samples/bad/gemini-max-tokens.sse", "gemini-max-tokens"),
        // On another transport too: Ollama's NDJSON lines.
        ("samples/bad/ollama-length.ndjson", "ollama-length"),
    ];
    for (a, ra) in cut {
        for (b, rb) in cut {
            if a == b {
                continue;
            }
            // Their texts differ: only the ending is compared.
            let (code, v) = diff(a, b, &["--ignore-text"]);
            let both = v["diagnostics"]["both"]
                .as_object()
                .unwrap_or_else(|| panic!("{v:#}"));
            assert_eq!(
                both.get(&format!("{ra} / {rb}")),
                Some(&serde_json::json!([1, 1])),
                "{a} against {b}: {v:#}"
            );
            for rule in [ra, rb] {
                assert_eq!(mentions(&v, rule), Vec::<String>::new(), "{a} against {b}");
            }
            assert_eq!(code, 0, "{a} against {b}: {v:#}");
        }
    }
}

#[test]
fn a_filtered_ending_is_one_finding_and_a_filter_is_not_a_budget_cut() {
    let dir = common::scratch("diff-filtered");
    // Responses stopped by a content filter, against Gemini's SAFETY finish
    // and a prompt Gemini blocked: the same ending.
    let filtered = std::fs::read_to_string(root().join("samples/bad/responses-incomplete.sse"))
        .unwrap()
        .replace("\"max_output_tokens\"}", "\"content_filter\"}");
    let filtered = write(&dir, "responses-filtered.sse", &filtered);
    for (gemini, rule) in [
        (
            "samples/bad/gemini-finish-reason.sse",
            "gemini-finish-reason",
        ),
        (
            "samples/bad/gemini-prompt-blocked.sse",
            "gemini-prompt-blocked",
        ),
    ] {
        for (a, b, key) in [
            (
                filtered.clone(),
                gemini.to_string(),
                format!("responses-incomplete / {rule}"),
            ),
            (
                gemini.to_string(),
                filtered.clone(),
                format!("{rule} / responses-incomplete"),
            ),
        ] {
            let (_, v) = diff(&a, &b, &["--ignore-text"]);
            assert_eq!(
                v["diagnostics"]["both"].get(&key),
                Some(&serde_json::json!([1, 1])),
                "{a} against {b}: {v:#}"
            );
            assert_eq!(mentions(&v, "responses-incomplete"), Vec::<String>::new());
        }
    }
    // A Chat answer the filter left blank (`empty-answer`, for its
    // `content_filter` finish) against Gemini's SAFETY finish.
    let blank = write(
        &dir,
        "chat-filtered.sse",
        concat!(
            "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n",
            "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"content_filter\"}]}\n\n",
            "data: [DONE]\n\n",
        ),
    );
    let (code, v) = diff(
        "samples/bad/gemini-finish-reason.sse",
        &blank,
        &["--ignore-text"],
    );
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(
        v["diagnostics"]["both"]["gemini-finish-reason / empty-answer"],
        serde_json::json!([1, 1]),
        "{v:#}"
    );
    // A filter on one side and the budget on the other are two endings:
    // the finish row says so, and the two rules are not paired.
    let (code, v) = diff(
        &filtered,
        "samples/bad/gemini-max-tokens.sse",
        &["--ignore-text"],
    );
    assert_eq!(code, 1, "{v:#}");
    assert!(
        v["diagnostics"]["both"].as_object().unwrap().is_empty(),
        "{v:#}"
    );
    assert!(row(&v, "responses-incomplete").is_some(), "{v:#}");
    assert!(row(&v, "gemini-max-tokens").is_some(), "{v:#}");
    assert!(row(&v, "choice 0 finish").is_some(), "{v:#}");
}

#[test]
fn a_bad_entry_names_the_path_hash_n_syntax_diff_has_not_an_entry_option() {
    let dir = common::scratch("diff-bad-entry");
    let sse = write(
        &dir,
        "a.sse",
        &std::fs::read_to_string(root().join("samples/good/openai-basic.sse")).unwrap(),
    );
    for (a, want) in [
        (
            "samples/har/chrome.har#9".to_string(),
            "(pick one as samples/har/chrome.har#N)",
        ),
        (format!("{sse}#2"), "without #2"),
    ] {
        let out = Command::cargo_bin("sselint")
            .unwrap()
            .current_dir(root())
            .args(["diff", &a, "samples/good/openai-basic.sse"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("--entry"), "{a}: {err}");
        assert!(err.contains(want), "{a}: {err}");
    }
}

/// A refusal is one fault under two names across Chat and Responses
/// (`refusal`, `responses-refusal`): a fresh-user trial saw it listed as
/// "only in A" and "only in B".
#[test]
fn a_refusal_on_both_sides_is_one_finding_across_chat_and_responses() {
    let (_, v) = diff(
        "samples/bad/responses-refusal.sse",
        "samples/bad/refusal.sse",
        &[],
    );
    assert_eq!(
        v["diagnostics"]["both"]["responses-refusal / refusal"],
        serde_json::json!([1, 1]),
        "{v:#}"
    );
    assert!(row(&v, "refusal").is_none(), "{v:#}");
}
