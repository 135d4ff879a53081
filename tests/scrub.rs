//! `redact --scrub-text` leaves no prose (issue 25): no run of 10 or more
//! characters with a space, taken from a string value of the original's
//! events (text, reasoning, tool input, what a server-side tool returned,
//! a gateway's note), is left in the copy; over every capture under
//! `samples/` and `tests/`, and over random captures of each dialect.

mod common;
use assert_cmd::Command;
use base64::Engine;
use common::root;
use proptest::prelude::*;
use serde_json::{json, Value};
use sselint::redact::{self, Scrubber};
use std::path::{Path, PathBuf};

/// The shortest run of prose that counts.
const RUN: usize = 10;

/// The SSE bodies a capture holds, as text: a HAR's response texts and
/// its `_eventSourceMessages` data; any other capture as it is.
fn bodies(bytes: &[u8]) -> Vec<String> {
    let har = serde_json::from_slice::<Value>(bytes)
        .ok()
        .filter(|v| v.pointer("/log/entries").is_some());
    let Some(har) = har else {
        return vec![String::from_utf8_lossy(bytes).into_owned()];
    };
    let mut out = Vec::new();
    for e in har["log"]["entries"].as_array().into_iter().flatten() {
        let content = &e["response"]["content"];
        if let Some(t) = content["text"].as_str() {
            if content["encoding"] == "base64" {
                if let Ok(b) = base64::engine::general_purpose::STANDARD.decode(t) {
                    out.push(String::from_utf8_lossy(&b).into_owned());
                }
            } else {
                out.push(t.to_string());
            }
        }
        for m in e["response"]["_eventSourceMessages"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if let Some(d) = m["data"].as_str() {
                out.push(format!("data: {d}\n"));
            }
        }
    }
    out
}

/// Every string value of every JSON `data` line of the bodies (keys not
/// included), decoded.
fn strings(bytes: &[u8]) -> Vec<String> {
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            Value::Object(m) => m.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for body in bodies(bytes) {
        for line in body.lines() {
            let Some(v) = line.strip_prefix("data:") else {
                continue;
            };
            if let Ok(v) = serde_json::from_str::<Value>(v.trim()) {
                walk(&v, &mut out);
            }
        }
    }
    out
}

/// The runs of prose in `s`: every window of [`RUN`] characters that has a
/// space and at least three letters that a scrub would change (flat
/// scrubbing writes every letter as `x`).
fn runs(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    for w in chars.windows(RUN) {
        let letters = w
            .iter()
            .filter(|c| c.is_alphabetic() && !matches!(c, 'x' | 'X'))
            .count();
        if w.contains(&' ') && letters >= 3 {
            out.push(w.iter().collect());
        }
    }
    out
}

/// The runs of the original's prose that are still in the copy.
fn leaks(original: &[u8], copy: &[u8]) -> Vec<String> {
    let kept: String = strings(copy).join("\u{1}");
    let raw = String::from_utf8_lossy(copy);
    let mut found: Vec<String> = strings(original)
        .iter()
        .flat_map(|s| runs(s))
        .filter(|r| kept.contains(r.as_str()) || raw.contains(r.as_str()))
        .collect();
    found.sort();
    found.dedup();
    found
}

fn captures() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if !matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("json" | "md" | "bin")
            ) {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    for d in ["samples", "tests/cases", "tests/fixtures"] {
        walk(&root().join(d), &mut out);
    }
    out.sort();
    out
}

#[test]
fn scrub_text_leaves_no_prose_of_any_capture() {
    let dir = common::scratch("scrub-prose");
    let mut failures = Vec::new();
    let mut checked = 0;
    for input in captures() {
        let out = dir.join("copy");
        let _ = std::fs::remove_file(&out);
        let run = Command::cargo_bin("sselint")
            .unwrap()
            .args(["redact", "--scrub-text"])
            .arg(&input)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        // A trace dump and a compressed body are refused, as they say.
        if run.status.code() != Some(0) {
            continue;
        }
        checked += 1;
        let (a, b) = (std::fs::read(&input).unwrap(), std::fs::read(&out).unwrap());
        let found = leaks(&a, &b);
        if !found.is_empty() {
            failures.push(format!("{}: {found:?}", input.display()));
        }
    }
    assert!(checked > 150, "only {checked} captures were scrubbed");
    assert!(failures.is_empty(), "prose left:\n{}", failures.join("\n"));
}

/// Words of prose (no `x`, which a flat scrub writes).
fn prose() -> impl Strategy<Value = String> {
    proptest::collection::vec("[a-wA-W]{2,9}", 3..8).prop_map(|w| w.join(" "))
}

fn sse(events: &[(&str, Value)]) -> String {
    events
        .iter()
        .map(|(name, data)| {
            if name.is_empty() {
                format!("data: {data}\n\n")
            } else {
                format!("event: {name}\ndata: {data}\n\n")
            }
        })
        .collect()
}

/// A Responses stream: a web search, a custom tool call, the message, and
/// the terminal response with every item.
fn responses(text: &str, query: &str, input: &str, note: &str) -> String {
    let ws = json!({"id": "ws_1", "type": "web_search_call", "status": "completed",
                    "action": {"type": "search", "query": query}});
    let ct = json!({"id": "ctc_1", "type": "custom_tool_call", "status": "completed",
                    "call_id": "call_1", "name": "code_exec", "input": input});
    let part = json!({"type": "output_text", "annotations": [], "text": text});
    let msg = json!({"id": "msg_1", "type": "message", "status": "completed",
                     "role": "assistant", "content": [part]});
    let (half, rest) = text.split_at(text.len() / 2);
    let (i1, i2) = input.split_at(input.len() / 2);
    let resp = |status: &str, output: Value| {
        json!({"id": "resp_1", "object": "response", "created_at": 1700000000,
               "status": status, "model": "gpt-5", "output": output,
               "usage": null, "x_gateway": {"note": note}})
    };
    let mut seq = 0;
    let mut e = |ty: &'static str, mut v: Value| {
        v["type"] = json!(ty);
        v["sequence_number"] = json!(seq);
        seq += 1;
        (ty, v)
    };
    sse(&[
        e(
            "response.created",
            json!({"response": resp("in_progress", json!([]))}),
        ),
        e(
            "response.output_item.added",
            json!({"output_index": 0, "item": {"id": "ws_1", "type": "web_search_call", "status": "in_progress"}}),
        ),
        e(
            "response.output_item.done",
            json!({"output_index": 0, "item": ws}),
        ),
        e(
            "response.output_item.added",
            json!({"output_index": 1, "item": {"id": "ctc_1", "type": "custom_tool_call", "status": "in_progress", "call_id": "call_1", "name": "code_exec", "input": ""}}),
        ),
        e(
            "response.custom_tool_call_input.delta",
            json!({"output_index": 1, "item_id": "ctc_1", "delta": i1}),
        ),
        e(
            "response.custom_tool_call_input.delta",
            json!({"output_index": 1, "item_id": "ctc_1", "delta": i2}),
        ),
        e(
            "response.custom_tool_call_input.done",
            json!({"output_index": 1, "item_id": "ctc_1", "input": input}),
        ),
        e(
            "response.output_item.done",
            json!({"output_index": 1, "item": ct}),
        ),
        e(
            "response.output_item.added",
            json!({"output_index": 2, "item": {"id": "msg_1", "type": "message", "status": "in_progress", "role": "assistant", "content": []}}),
        ),
        e(
            "response.content_part.added",
            json!({"output_index": 2, "item_id": "msg_1", "content_index": 0, "part": {"type": "output_text", "annotations": [], "text": ""}}),
        ),
        e(
            "response.output_text.delta",
            json!({"output_index": 2, "item_id": "msg_1", "content_index": 0, "delta": half}),
        ),
        e(
            "response.output_text.delta",
            json!({"output_index": 2, "item_id": "msg_1", "content_index": 0, "delta": rest}),
        ),
        e(
            "response.output_text.done",
            json!({"output_index": 2, "item_id": "msg_1", "content_index": 0, "text": text}),
        ),
        e(
            "response.content_part.done",
            json!({"output_index": 2, "item_id": "msg_1", "content_index": 0, "part": part}),
        ),
        e(
            "response.output_item.done",
            json!({"output_index": 2, "item": msg}),
        ),
        e(
            "response.completed",
            json!({"response": resp("completed", json!([ws, ct, msg]))}),
        ),
    ])
}

/// A Groq Chat stream with an executed search, reasoning and a gateway's
/// routing note.
fn groq(text: &str, query: &str, found: &str, note: &str) -> String {
    let c = |delta: Value, finish: Value| {
        (
            "",
            json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1700000000,
                    "model": "groq/compound", "x_gateway": {"routing_note": note},
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}),
        )
    };
    let args = json!({"query": query}).to_string();
    let mut s = sse(&[
        c(json!({"role": "assistant", "content": ""}), Value::Null),
        c(json!({"reasoning": query}), Value::Null),
        c(
            json!({"executed_tools": [{"index": 0, "type": "search", "arguments": args, "output": found}]}),
            Value::Null,
        ),
        c(json!({"content": text}), Value::Null),
        c(json!({}), json!("stop")),
    ]);
    s.push_str("data: [DONE]\n\n");
    s
}

/// A Messages stream: thinking, a server-run search with its whole input,
/// text, and a tool call.
fn messages(text: &str, thinking: &str, query: &str, city: &str) -> String {
    let input = json!({"city": city}).to_string();
    sse(&[
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "claude", "stop_reason": null, "usage": {"input_tokens": 5, "output_tokens": 1}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": thinking}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": query}}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 1}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 2, "delta": {"type": "text_delta", "text": text}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 2}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 3, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 3, "delta": {"type": "input_json_delta", "partial_json": input}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 3}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ])
}

proptest! {
    // SSELINT_TEST_DEPTH=full (.ci/run) runs 48 cases, the default 12.
    #![proptest_config(ProptestConfig::with_cases(common::cases(12, 48)))]

    #[test]
    fn scrub_text_leaves_no_prose_of_a_random_capture(
        a in prose(), b in prose(), c in prose(), d in prose(), flat in any::<bool>()
    ) {
        for capture in [responses(&a, &b, &c, &d), groq(&a, &b, &c, &d), messages(&a, &b, &c, &d)] {
            let mut s = if flat { Scrubber::flat() } else { Scrubber::random() };
            let copy = redact::raw(capture.as_bytes(), Some(&mut s));
            let found = leaks(capture.as_bytes(), &copy);
            prop_assert!(found.is_empty(), "{found:?} left in:\n{}", String::from_utf8_lossy(&copy));
        }
    }
}

/// A HAR carries prose outside its bodies too: the page's title (a chat
/// app names the tab after the conversation), comments, the query of the
/// URL (a search box's `q=`) and a request body that is not JSON (a form).
/// `--scrub-text` leaves none of it.
#[test]
fn scrub_text_leaves_no_prose_in_a_har_s_title_comments_query_or_form() {
    let secret_prose = [
        "Plan a trip to Lisbon in May",
        "asked about the weather in Porto",
        "what is the capital of Portugal",
        "tell me about the tram lines",
        "notes on the third attempt",
    ];
    let body = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    let har = json!({"log": {
        "version": "1.2",
        "creator": {"name": "t", "version": "1"},
        "comment": secret_prose[4],
        "pages": [{"id": "page_1", "title": secret_prose[0], "startedDateTime": "2026-01-01T00:00:00Z", "pageTimings": {}}],
        "entries": [{
            "pageref": "page_1",
            "comment": secret_prose[1],
            "startedDateTime": "2026-01-01T00:00:00Z",
            "time": 1,
            "request": {
                "method": "POST",
                "url": "https://api.example.com/v1/chat/completions?q=what%20is%20the%20capital%20of%20Portugal&trace=1",
                "httpVersion": "HTTP/1.1",
                "headers": [{"name": "Content-Type", "value": "application/x-www-form-urlencoded"}],
                "cookies": [],
                "queryString": [{"name": "q", "value": secret_prose[2]}, {"name": "trace", "value": "1"}],
                "postData": {
                    "mimeType": "application/x-www-form-urlencoded",
                    "text": "prompt=tell+me+about+the+tram+lines",
                    "params": [{"name": "prompt", "value": secret_prose[3]}]
                },
                "headersSize": -1, "bodySize": -1
            },
            "response": {
                "status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                "headers": [{"name": "Content-Type", "value": "text/event-stream"}],
                "cookies": [],
                "content": {"size": body.len(), "mimeType": "text/event-stream", "text": body},
                "redirectURL": "", "headersSize": -1, "bodySize": -1
            },
            "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}
        }]
    }});
    let dir = common::Scratch::new("scrub-har-meta");
    let input = dir.join("in.har");
    let out = dir.join("out.har");
    std::fs::write(&input, har.to_string()).unwrap();
    scrub_file(&input, &out);
    let copy = std::fs::read_to_string(&out).unwrap();
    let decoded = copy.replace("%20", " ").replace('+', " ");
    for p in secret_prose {
        for r in runs(p) {
            assert!(
                !decoded.contains(&r),
                "`{r}` (from `{p}`) is still in the scrubbed HAR:\n{copy}"
            );
        }
    }
    // What is not prose stays: the host, the path, the names.
    let v: Value = serde_json::from_str(&copy).unwrap();
    let e = &v["log"]["entries"][0];
    assert!(e["request"]["url"]
        .as_str()
        .unwrap()
        .starts_with("https://api.example.com/v1/chat/completions?q="));
    assert_eq!(e["request"]["queryString"][0]["name"], "q");
    assert_eq!(e["request"]["postData"]["params"][0]["name"], "prompt");
    assert_eq!(v["log"]["pages"][0]["id"], "page_1");
}

/// A HAR body stored as received, gzip-compressed and base64-encoded (some
/// exporters and proxies keep it so): `redact` masks the key in it, and
/// `--scrub-text` its prose, as in a body stored decoded (a fresh-user
/// trial found both left as they were, inside the compressed bytes).
#[test]
fn redact_reads_a_compressed_har_body() {
    use std::io::{Read, Write};
    let body = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"The tram to Belem leaves every ten minutes\"},\"finish_reason\":null}]}\n\ndata: {\"error\":{\"message\":\"key sk-proj-abcdefghijklmnop0123456789 is over quota\"}}\n\ndata: [DONE]\n\n";
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(body.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    let text = base64::engine::general_purpose::STANDARD.encode(&gz);
    let har = common::one_entry_har(
        json!({"size": body.len(), "text": text, "encoding": "base64"}),
        &[("Content-Encoding", "gzip")],
    );
    let dir = common::Scratch::new("scrub-gzip-har");
    let input = dir.join("in.har");
    std::fs::write(&input, har.to_string()).unwrap();
    for scrub in [false, true] {
        let out = dir.join(format!("out-{scrub}.har"));
        let mut c = Command::cargo_bin("sselint").unwrap();
        c.args(["redact", "-o"]).arg(&out).arg(&input);
        if scrub {
            c.arg("--scrub-text");
        }
        c.assert().success();
        // The copy's body, decoded however it is stored.
        let v: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        let content = &v["log"]["entries"][0]["response"]["content"];
        let mut bytes = content["text"].as_str().unwrap().as_bytes().to_vec();
        if content["encoding"] == "base64" {
            bytes = base64::engine::general_purpose::STANDARD
                .decode(&bytes)
                .unwrap();
        }
        if bytes.starts_with(&[0x1f, 0x8b]) {
            let mut plain = Vec::new();
            flate2::read::MultiGzDecoder::new(&bytes[..])
                .read_to_end(&mut plain)
                .unwrap();
            bytes = plain;
        }
        let copy = String::from_utf8_lossy(&bytes);
        assert!(
            copy.contains("data: [DONE]"),
            "the body is readable: {copy}"
        );
        assert!(
            !copy.contains("abcdefghijklmnop0123456789"),
            "the key is left: {copy}"
        );
        if scrub {
            assert!(!copy.contains("leaves every ten"), "prose is left: {copy}");
        }
        // And the copy still lints as the original does.
        Command::cargo_bin("sselint")
            .unwrap()
            .args(["check", "--fail-on", "never"])
            .arg(&out)
            .assert()
            .success();
    }
}

/// Every string under a `name` key (or in a list of names) of a JSON
/// value, in document order.
fn names_in(v: &Value, key: Option<&str>, out: &mut Vec<String>) {
    match v {
        Value::String(s) if key.is_some_and(|k| k == "name" || k.ends_with("Names")) => {
            out.push(s.clone());
        }
        Value::Array(a) => a.iter().for_each(|x| names_in(x, key, out)),
        Value::Object(m) => m.iter().for_each(|(k, x)| names_in(x, Some(k), out)),
        _ => {}
    }
}

/// A declared tool's name reads the same wherever the capture repeats
/// it, after `redact --scrub-text`: in the request's declarations, its
/// history of calls and results, the list of allowed functions, and the
/// call the response streams.
#[test]
fn scrub_text_keeps_a_tool_s_name_the_same_in_request_and_response() {
    let dir = common::Scratch::new("scrub-tool-names");
    let tool = "lookup_city_weather";
    let gemini_body = format!(
        "data: {}\n\n",
        json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": tool, "args": {"city": "Paris"}}}]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 5, "totalTokenCount": 14}})
    );
    let gemini_request = json!({
        "contents": [
            {"role": "user", "parts": [{"text": "What is the weather in Lyon today?"}]},
            {"role": "model", "parts": [{"functionCall": {"name": tool, "args": {"city": "Lyon"}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": tool, "response": {"forecast": "Sunny and warm all day"}}}]},
            {"role": "user", "parts": [{"text": "And in Paris, please?"}]}
        ],
        "tools": [{"functionDeclarations": [{"name": tool, "description": "Looks up the current weather for a city", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]}],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [tool]}}
    });
    let messages_body = [
        format!("event: message_start\ndata: {}\n\n", json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "claude-sonnet-4-5", "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 9, "output_tokens": 1}}})),
        format!("event: content_block_start\ndata: {}\n\n", json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": tool, "input": {}}})),
        format!("event: content_block_delta\ndata: {}\n\n", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"city\":\"Paris\"}"}})),
        format!("event: content_block_stop\ndata: {}\n\n", json!({"type": "content_block_stop", "index": 0})),
        format!("event: message_delta\ndata: {}\n\n", json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 5}})),
        format!("event: message_stop\ndata: {}\n\n", json!({"type": "message_stop"})),
    ]
    .concat();
    let messages_request = json!({
        "model": "claude-sonnet-4-5", "max_tokens": 100, "stream": true,
        "tools": [{"name": tool, "description": "Looks up the current weather for a city", "input_schema": {"type": "object"}}],
        "messages": [
            {"role": "user", "content": "What is the weather in Lyon today?"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_0", "name": tool, "input": {"city": "Lyon"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_0", "content": "Sunny and warm all day"}]}
        ]
    });
    let chat_body = format!(
        "data: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
        json!({"id": "c1", "object": "chat.completion.chunk", "created": 1700000000, "model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": tool, "arguments": "{\"city\":\"Paris\"}"}}]}, "finish_reason": null}]}),
        json!({"id": "c1", "object": "chat.completion.chunk", "created": 1700000000, "model": "m", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    );
    let chat_request = json!({
        "model": "gpt-4o-mini", "stream": true,
        "tools": [{"type": "function", "function": {"name": tool, "description": "Looks up the current weather for a city", "parameters": {"type": "object"}}}],
        "messages": [
            {"role": "user", "content": "What is the weather in Lyon today?"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "call_0", "type": "function", "function": {"name": tool, "arguments": "{\"city\":\"Lyon\"}"}}]},
            {"role": "tool", "tool_call_id": "call_0", "name": tool, "content": "Sunny and warm all day"}
        ]
    });
    let cases = [
        ("gemini", "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", gemini_request, gemini_body),
        ("messages", "https://api.anthropic.com/v1/messages", messages_request, messages_body),
        ("chat", "https://api.openai.com/v1/chat/completions", chat_request, chat_body),
    ];
    for (name, url, request, body) in cases {
        let mut har = common::one_entry_har(json!({"size": body.len(), "text": body}), &[]);
        let e = &mut har["log"]["entries"][0];
        e["request"]["url"] = json!(url);
        e["request"]["postData"] =
            json!({"mimeType": "application/json", "text": request.to_string()});
        let input = dir.join(format!("{name}.har"));
        std::fs::write(&input, har.to_string()).unwrap();
        let out = dir.join(format!("{name}-scrubbed.har"));
        scrub_file(&input, &out);
        let v: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        let e = &v["log"]["entries"][0];
        let req: Value =
            serde_json::from_str(e["request"]["postData"]["text"].as_str().unwrap()).unwrap();
        let mut names = Vec::new();
        names_in(&req, None, &mut names);
        let body = e["response"]["content"]["text"].as_str().unwrap();
        for data in body.lines().filter_map(|l| l.strip_prefix("data: ")) {
            if let Ok(d) = serde_json::from_str::<Value>(data) {
                names_in(&d, None, &mut names);
            }
        }
        assert!(names.len() >= 3, "{name}: {names:?}");
        assert!(names.iter().all(|n| n == tool), "{name}: {names:?}");
        // The prose around them is scrubbed.
        assert!(!e.to_string().contains("Sunny and warm"), "{name}");
    }
}

/// `sselint redact --scrub-text -o OUT INPUT`, which must succeed.
fn scrub_file(input: &std::path::Path, out: &std::path::Path) {
    Command::cargo_bin("sselint")
        .unwrap()
        .args(["redact", "--scrub-text", "-o"])
        .arg(out)
        .arg(input)
        .assert()
        .success();
}

/// The keys of every object in `v`, one list per object.
fn object_keys(v: &Value, out: &mut Vec<Vec<String>>) {
    match v {
        Value::Object(m) => {
            out.push(m.keys().cloned().collect());
            m.values().for_each(|v| object_keys(v, out));
        }
        Value::Array(a) => a.iter().for_each(|v| object_keys(v, out)),
        _ => {}
    }
}

/// `check --format json` of `path`: every finding as (rule, severity),
/// sorted, and the keys of each object in each tool call's arguments.
fn findings_and_argument_keys(path: &Path) -> (Vec<(String, String)>, Vec<Vec<usize>>) {
    let out = Command::cargo_bin("sselint")
        .unwrap()
        .args(["check", "--format", "json", "--fail-on", "never"])
        .arg(path)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let (mut rules, mut keys) = (Vec::new(), Vec::new());
    for s in v["files"][0]["streams"].as_array().unwrap() {
        for d in s["diagnostics"].as_array().unwrap() {
            rules.push((d["rule"].to_string(), d["severity"].to_string()));
        }
        for c in s["choices"].as_array().unwrap() {
            for t in c["tool_calls"].as_array().into_iter().flatten() {
                let args = t["arguments"].as_str().unwrap_or("");
                let mut k = Vec::new();
                if let Ok(a) = serde_json::from_str::<Value>(args) {
                    object_keys(&a, &mut k);
                }
                keys.push(k.iter().map(Vec::len).collect());
            }
        }
    }
    rules.sort();
    (rules, keys)
}

/// Found by a helper (the pair had been moved out of `samples/`, which
/// hid it): `--scrub-text` turned `{"city":…,"unit":…}` into
/// `{"xxxx":…,"xxxx":…}`, an object with one key twice. Every capture
/// whose arguments hold two keys of one length keeps as many keys in
/// each object, and its findings; so does a Chat call whose keys are cut
/// across fragments.
#[test]
fn scrub_text_keeps_the_keys_of_tool_arguments_distinct() {
    let dir = common::scratch("scrub-arg-keys");
    let split = dir.join("split.sse");
    let chunk = |args: &str| {
        let v = json!({"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":args}}]},"finish_reason":null}]});
        format!("data: {v}\n\n")
    };
    let first = json!({"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]});
    let last = json!({"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]});
    let mut body = format!("data: {first}\n\n");
    for a in [
        r#"{"ci"#,
        r#"ty": "Oslo", "un"#,
        r#"it": "c", "da"#,
        r#"ys": 3}"#,
    ] {
        body.push_str(&chunk(a));
    }
    body.push_str(&format!("data: {last}\n\ndata: [DONE]\n\n"));
    std::fs::write(&split, body).unwrap();
    let inputs = [
        split,
        root().join("samples/good/responses-function-call.sse"),
        root().join("samples/providers/messages-anthropic-tools.sse"),
        root().join("samples/providers/sglang-messages-tool.sse"),
        root().join("samples/providers/gemini.sse"),
        root().join("tests/fixtures/diff/chat-ollama-weather.sse"),
    ];
    for (i, input) in inputs.iter().enumerate() {
        let out = dir.join(format!("out-{i}.sse"));
        scrub_file(input, &out);
        let (a, b) = (
            findings_and_argument_keys(input),
            findings_and_argument_keys(&out),
        );
        assert!(a.1.iter().flatten().any(|n| *n >= 2), "{}", input.display());
        assert_eq!(a, b, "{}", input.display());
    }
}
