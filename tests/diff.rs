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
    let dir = std::env::temp_dir().join(format!("sselint-diff-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
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
    let p = std::env::temp_dir().join(format!("sselint-two-streams-{}.har", std::process::id()));
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
    let responses = concat!(
        "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"in_progress\",\"output\":[],\"usage\":null}}\n\n",
        "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"sequence_number\":1,\"output_index\":0,\"item\":{\"id\":\"fc_1\",\"type\":\"function_call\",\"call_id\":\"call_1\",\"name\":\"get_weather\",\"arguments\":\"\",\"status\":\"in_progress\"}}\n\n",
        "event: response.function_call_arguments.delta\ndata: {\"type\":\"response.function_call_arguments.delta\",\"sequence_number\":2,\"item_id\":\"fc_1\",\"output_index\":0,\"delta\":\"{\\\"city\\\": \\\"Paris\\\"}\"}\n\n",
        "event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":3,\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"completed\",\"output\":[{\"id\":\"fc_1\",\"type\":\"function_call\",\"call_id\":\"call_1\",\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\": \\\"Paris\\\"}\",\"status\":\"completed\"}],\"usage\":{\"input_tokens\":12,\"output_tokens\":8,\"total_tokens\":20}}}\n\n",
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
