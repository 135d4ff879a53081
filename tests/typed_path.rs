//! The typed fast path (`src/dialect/chat/typed.rs`) changes nothing but
//! speed: every shipped sample and case, and a stream whose ordinary chunk
//! is mutated in every way the schema agreement test knows (plus unknown
//! keys, escapes, duplicate keys, new choices and calls), lint to the same
//! findings, fingerprints, answer and ending with the fast path on and
//! off. The fuzz target `typed_equivalence` asserts the same on any bytes.

mod common;
use common::*;
use serde_json::{json, Value};
use sselint::capture::{self, Options};
use sselint::lint::{profile, Settings};
use sselint::pipeline::{lint_capture, FileResult, NoObserver};
use std::path::{Path, PathBuf};

/// Everything the result holds, as text, but the count of typed chunks.
fn outcome(mut r: FileResult) -> String {
    for s in &mut r.streams {
        s.typed_chunks = 0;
    }
    format!("{r:#?}")
}

/// `None` for the samples that are not captures at all.
fn lint_path(p: &Path, settings: &Settings) -> Option<FileResult> {
    let cap = capture::open(p.to_str().unwrap(), &Options::default()).ok()?;
    Some(lint_capture(cap, settings, &mut NoObserver))
}

fn lint_body(body: &str, settings: &Settings) -> FileResult {
    let cap = capture::from_reader(
        "bytes",
        Box::new(std::io::Cursor::new(body.as_bytes().to_vec())),
        &Options::default(),
    )
    .expect("bytes read as a capture");
    lint_capture(cap, settings, &mut NoObserver)
}

fn typed(on: bool, base: &Settings) -> Settings {
    Settings {
        profile: base.profile,
        typed: on,
        ..Settings::default()
    }
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files_under(&p, out);
        } else if !p.to_string_lossy().ends_with(".json") && !p.ends_with("README.md") {
            out.push(p);
        }
    }
}

#[test]
fn samples_and_cases_lint_the_same_on_both_paths() {
    let mut files = Vec::new();
    files_under(&root().join("samples"), &mut files);
    files_under(&root().join("tests/cases"), &mut files);
    files.sort();
    assert!(files.len() > 80, "only {} files", files.len());
    let mut typed_chunks = 0;
    for p in &files {
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        let mut profiles = vec![Settings::default()];
        if let Some(prof) = profile::profile(&stem) {
            profiles.push(Settings {
                profile: prof,
                ..Settings::default()
            });
        }
        for s in &profiles {
            let Some(fast) = lint_path(p, &typed(true, s)) else {
                continue;
            };
            let slow = lint_path(p, &typed(false, s)).unwrap();
            assert!(slow.streams.iter().all(|s| s.typed_chunks == 0));
            typed_chunks += fast.streams.iter().map(|s| s.typed_chunks).sum::<u64>();
            assert_eq!(outcome(fast), outcome(slow), "{}", p.display());
        }
    }
    // The comparison means something only if the fast path ran.
    assert!(typed_chunks > 100, "{typed_chunks} chunks on the fast path");
}

fn envelope(choices: Value) -> Value {
    json!({"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,
        "model":"gpt-4o-mini","system_fingerprint":"fp_1","service_tier":"default",
        "choices":choices})
}

/// A stream whose fourth event is `middle`: role, content and the start of
/// a tool call before it; more text, arguments, the finish, usage and
/// `[DONE]` after.
fn stream_around(middle: &str) -> String {
    let choice = |delta: Value, finish: Value| json!([{"index":0,"delta":delta,"logprobs":null,"finish_reason":finish}]);
    let before = [
        envelope(choice(
            json!({"role":"assistant","content":""}),
            Value::Null,
        )),
        envelope(choice(json!({"content":"Hel"}), Value::Null)),
        envelope(choice(
            json!({"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}),
            Value::Null,
        )),
    ];
    let after = [
        envelope(choice(json!({"content":"lo"}), Value::Null)),
        envelope(choice(
            json!({"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}),
            Value::Null,
        )),
        envelope(choice(json!({}), json!("tool_calls"))),
    ];
    let mut usage = envelope(json!([]));
    usage["usage"] = json!({"prompt_tokens":3,"completion_tokens":4,"total_tokens":7});
    let mut body = String::new();
    for c in &before {
        body.push_str(&format!("data: {c}\n\n"));
    }
    body.push_str(&format!("data: {middle}\n\n"));
    for c in after.iter().chain([&usage]) {
        body.push_str(&format!("data: {c}\n\n"));
    }
    body.push_str("data: [DONE]\n\n");
    body
}

/// The ordinary chunk the mutations start from: text and more arguments
/// of a call under way.
fn ordinary() -> Value {
    let mut c = envelope(json!([{"index":0,
        "delta":{"content":" wor","refusal":null,
            "tool_calls":[{"index":0,"function":{"arguments":"{\"a\":"}}]},
        "logprobs":null,"finish_reason":null}]));
    c["obfuscation"] = json!("abc");
    c
}

#[test]
fn mutated_chunks_lint_the_same_on_both_paths() {
    let root = ordinary();
    let defaults = Settings::default();
    // The unmutated stream takes the fast path for its ordinary chunks.
    let plain = lint_body(&stream_around(&root.to_string()), &typed(true, &defaults));
    assert_eq!(plain.streams[0].typed_chunks, 4, "{:#?}", plain.streams[0]);
    assert!(diags(&plain).is_empty(), "{:#?}", diags(&plain));

    let mut corpus = Vec::new();
    mutations(&root, &mut Vec::new(), &mut corpus, &root);
    // Chunks with every field (role, usage, a call's start): the general
    // path, where the typed form proves schema validity instead of the
    // validator.
    let full = full_chunk();
    mutations(&full, &mut Vec::new(), &mut corpus, &full);
    corpus.push(("full".into(), full));
    let mut extra = |what: &str, f: &dyn Fn(&mut Value)| {
        let mut m = root.clone();
        f(&mut m);
        corpus.push((what.to_string(), m));
    };
    extra("unknown top key", &|m| m["x_extra"] = json!(1));
    extra("known extension", &|m| {
        m["prompt_filter_results"] = json!([])
    });
    extra("moderation", &|m| m["moderation"] = json!(null));
    extra(
        "usage",
        &|m| m["usage"] = json!({"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}),
    );
    extra("other id", &|m| m["id"] = json!("chatcmpl-2"));
    extra("other model", &|m| m["model"] = json!("gpt-4o"));
    extra("created ms", &|m| {
        m["created"] = json!(1_700_000_000_000u64)
    });
    extra("service tier", &|m| m["service_tier"] = json!("on_demand"));
    extra("role", &|m| {
        m["choices"][0]["delta"]["role"] = json!("assistant")
    });
    extra("role null", &|m| {
        m["choices"][0]["delta"]["role"] = json!(null)
    });
    extra("reasoning", &|m| {
        m["choices"][0]["delta"]["reasoning_content"] = json!("hm")
    });
    extra("reasoning null", &|m| {
        m["choices"][0]["delta"]["reasoning_content"] = json!(null)
    });
    extra("reasoning (groq) null", &|m| {
        m["choices"][0]["delta"]["reasoning"] = json!(null)
    });
    extra("reasoning (groq) empty", &|m| {
        m["choices"][0]["delta"]["reasoning"] = json!("")
    });
    extra("refusal", &|m| {
        m["choices"][0]["delta"]["refusal"] = json!("no")
    });
    extra("finish", &|m| {
        m["choices"][0]["finish_reason"] = json!("stop")
    });
    extra("finish other", &|m| {
        m["choices"][0]["finish_reason"] = json!("eos")
    });
    extra("new choice", &|m| m["choices"][0]["index"] = json!(1));
    extra("two choices", &|m| {
        let c = m["choices"][0].clone();
        m["choices"].as_array_mut().unwrap().push(c);
    });
    extra("no choices", &|m| m["choices"] = json!([]));
    extra("new call", &|m| {
        m["choices"][0]["delta"]["tool_calls"][0]["index"] = json!(1)
    });
    extra("call id", &|m| {
        m["choices"][0]["delta"]["tool_calls"][0]["id"] = json!("call_2")
    });
    extra("call name", &|m| {
        m["choices"][0]["delta"]["tool_calls"][0]["function"]["name"] = json!("f")
    });
    extra("no calls", &|m| {
        m["choices"][0]["delta"]["tool_calls"] = json!([])
    });
    extra("cumulative", &|m| {
        m["choices"][0]["delta"]["content"] = json!("Hello, world");
        m["choices"][0]["delta"]
            .as_object_mut()
            .unwrap()
            .remove("tool_calls");
    });
    extra("adds nothing", &|m| {
        m["choices"][0]["delta"] = json!({"content":""});
    });
    extra("logprobs", &|m| {
        m["choices"][0]["logprobs"] = json!({"content":[],"refusal":null})
    });
    let mut texts: Vec<(String, String)> = corpus
        .iter()
        .map(|(w, v)| (w.clone(), v.to_string()))
        .collect();
    let r = root.to_string();
    texts.push(("escapes".into(), r.replace(" wor", "\\u0020w\\u006fr")));
    texts.push(("lone surrogate".into(), r.replace(" wor", "\\ud83d")));
    texts.push((
        "duplicate key".into(),
        r.replace("{\"id\"", "{\"id\":\"x\",\"id\""),
    ));
    texts.push(("not JSON".into(), r.replacen('{', "{{", 1)));
    // Broken JSON: the typed parse's syntax error stands for a second parse.
    for cut in (1..r.len()).step_by(9) {
        texts.push((format!("cut at {cut}"), r[..cut].to_string()));
    }
    for (what, from, to) in [
        ("trailing bytes", "}]}", "}]} x"),
        ("bad escape", " wor", "\\x"),
        ("raw control character", " wor", "\u{1}"),
        ("leading zero", "1700000000", "01"),
        ("huge number", "1700000000", "1e999"),
        ("bare word", "null", "nul"),
        ("missing comma", ",\"model\"", "\"model\""),
        ("surrogate then cut", " wor\"", "\\ud83d"),
    ] {
        texts.push((what.to_string(), r.replacen(from, to, 1)));
    }
    texts.push((
        "event error".into(),
        "{\"error\":{\"message\":\"boom\"}}".into(),
    ));
    texts.push(("[DONE]".into(), "[DONE]".into()));
    assert!(texts.len() > 500, "corpus of {}", texts.len());
    // All of them at SSELINT_TEST_DEPTH=full, a spread of them by default.
    let texts = sample(texts, 120);

    let azure = Settings {
        profile: profile::profile("azure").unwrap(),
        ..Settings::default()
    };
    let mut differ = Vec::new();
    for (what, middle) in &texts {
        let body = stream_around(middle);
        for s in [&defaults, &azure] {
            let fast = outcome(lint_body(&body, &typed(true, s)));
            let slow = outcome(lint_body(&body, &typed(false, s)));
            if fast != slow {
                differ.push(format!(
                    "{what} ({}):\n--- fast\n{fast}\n--- general\n{slow}",
                    s.profile.name,
                ));
            }
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {} differ; the first:\n{}",
        differ.len(),
        texts.len(),
        differ[0]
    );
}

#[test]
fn every_rule_example_lints_the_same_on_both_paths() {
    // The examples hold the odd states (an unopened block, a delta after a
    // signature, a reused index, unknown keys) that the dialects' fast
    // paths must hand to the general path.
    let base = Settings::default();
    let mut compared = 0;
    for r in sselint::lint::catalogue().rules() {
        for (i, ex) in r.examples().iter().enumerate() {
            let Ok(body) = std::str::from_utf8(&ex.capture) else {
                continue;
            };
            let mut on = typed(true, &base);
            let mut off = typed(false, &base);
            on.dialect = r.dialect;
            off.dialect = r.dialect;
            assert_eq!(
                outcome(lint_body(body, &on)),
                outcome(lint_body(body, &off)),
                "{} example {i} ({})",
                r.file,
                ex.note
            );
            compared += 1;
        }
    }
    assert!(compared > 200, "{compared}");
}

#[test]
fn a_messages_delta_mutated_in_any_way_lints_the_same_on_both_paths() {
    let start = r#"event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":1}}}

"#;
    let blocks = [
        r#"{"type":"text","text":""}"#,
        r#"{"type":"thinking","thinking":"","signature":""}"#,
        r#"{"type":"tool_use","id":"toolu_1","name":"f","input":{}}"#,
        // Blocks of no type take any delta (as the overflow block does).
        r#"{"type":""}"#,
        r#"{}"#,
    ];
    let deltas = [
        json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi \"there\" \u{00e9}"}}),
        json!({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm"}}),
        json!({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}),
        json!({"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig"}}),
    ];
    let mut variants: Vec<String> = Vec::new();
    for d in &deltas {
        variants.push(d.to_string());
        let mut muts = Vec::new();
        mutations(d, &mut Vec::new(), &mut muts, d);
        variants.extend(muts.into_iter().map(|(_, v)| v.to_string()));
        let mut extra = d.clone();
        extra["delta"]["x"] = json!(1);
        variants.push(extra.to_string());
        let mut other = d.clone();
        other["index"] = json!(1);
        variants.push(other.to_string());
    }
    assert!(variants.len() > 100, "{}", variants.len());
    // All of them at SSELINT_TEST_DEPTH=full, a spread of them by default.
    let variants = sample(variants, 30);
    let base = Settings::default();
    let mut n = 0;
    for block in blocks {
        for name in ["content_block_delta", "ping", "message_delta"] {
            for v in &variants {
                // The delta twice (a second signature), then a stop.
                let body = format!(
                    "{start}event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{block}}}\n\nevent: {name}\ndata: {v}\n\nevent: {name}\ndata: {v}\n\nevent: content_block_stop\ndata: {{\"type\":\"content_block_stop\",\"index\":0}}\n\n"
                );
                assert_eq!(
                    outcome(lint_body(&body, &typed(true, &base))),
                    outcome(lint_body(&body, &typed(false, &base))),
                    "{body}"
                );
                n += 1;
            }
        }
    }
    assert_eq!(n, 15 * variants.len());
}

#[test]
fn a_compact_messages_delta_changed_byte_by_byte_lints_the_same_on_both_paths() {
    // The fast path reads a delta in Anthropic's compact form byte by
    // byte (dialect::compact), and any other form by its typed parse (the
    // unit tests there show the unchanged seeds are read that way).
    let start = r#"event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":1}}}

"#;
    let seeds = [
        (
            r#"{"type":"text","text":""}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi \"you\" \u00e9"}}"#,
        ),
        (
            r#"{"type":"thinking","thinking":"","signature":""}"#,
            // Anthropic pads thinking deltas with spaces.
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm"}}   "#,
        ),
        (
            r#"{"type":"tool_use","id":"toolu_1","name":"f","input":{}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\": 1"}}"#,
        ),
    ];
    let base = Settings::default();
    let mut n = 0;
    let mut tried = 0;
    for (block, seed) in seeds {
        let changes = char_changes(seed);
        n += 1 + changes.len();
        // All of them at SSELINT_TEST_DEPTH=full, a spread of them by default.
        for v in std::iter::once(seed.to_string()).chain(sample(changes, 100)) {
            let body = format!(
                "{start}event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{block}}}\n\nevent: content_block_delta\ndata: {v}\n\nevent: content_block_delta\ndata: {v}\n\nevent: content_block_stop\ndata: {{\"type\":\"content_block_stop\",\"index\":0}}\n\n"
            );
            let fast = lint_body(&body, &typed(true, &base));
            assert_eq!(
                outcome(fast),
                outcome(lint_body(&body, &typed(false, &base))),
                "{body}"
            );
            tried += 1;
        }
    }
    assert!(n > 2000, "{n}");
    assert!(tried > 250, "{tried}");
}

#[test]
fn deltas_to_blocks_past_the_block_limit_lint_the_same_on_both_paths() {
    // Past `MAX_BLOCKS` a block is only counted and its deltas go to the
    // overflow block, which has no type: the fast path takes them too.
    let mut body = String::from(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n",
    );
    let limit = sselint::dialect::messages::model::MAX_BLOCKS as u64;
    for i in 0..limit + 3 {
        let kind = if i % 2 == 0 { "text" } else { "thinking" };
        body.push_str(&format!(
            "event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":{i},\"content_block\":{{\"type\":\"{kind}\"}}}}\n\n"
        ));
        if i >= limit - 1 {
            for (dtype, field, value) in [
                ("text_delta", "text", "Hi \\\"there\\\""),
                ("thinking_delta", "thinking", "hm"),
                ("input_json_delta", "partial_json", "{\\\"a\\\":"),
                ("signature_delta", "signature", "sig"),
                ("thinking_delta", "thinking", "late"),
            ] {
                body.push_str(&format!(
                    "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":{i},\"delta\":{{\"type\":\"{dtype}\",\"{field}\":\"{value}\"}}}}\n\n"
                ));
            }
        }
        body.push_str(&format!(
            "event: content_block_stop\ndata: {{\"type\":\"content_block_stop\",\"index\":{i}}}\n\n"
        ));
    }
    body.push_str("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":9}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    let base = Settings::default();
    let fast = outcome(lint_body(&body, &typed(true, &base)));
    assert!(
        fast.contains("late"),
        "the overflow block's thinking is read"
    );
    assert_eq!(fast, outcome(lint_body(&body, &typed(false, &base))));
}

#[test]
fn deltas_to_items_past_the_item_limit_lint_the_same_on_both_paths() {
    // Past `MAX_ITEMS` an item is only counted: its deltas find no item,
    // and the fast path drops them as the general path does (unless the id
    // names a misplaced item, which the general path reads).
    let mut seq = 0u64;
    let mut body = String::new();
    let mut ev = |body: &mut String, v: Value| {
        let mut v = v;
        v["sequence_number"] = json!(seq);
        seq += 1;
        body.push_str(&format!(
            "event: {}\ndata: {v}\n\n",
            v["type"].as_str().unwrap()
        ));
    };
    ev(
        &mut body,
        json!({"type":"response.created","response":{"id":"resp_1","object":"response","created_at":1,"status":"in_progress","model":"m","output":[],"usage":null}}),
    );
    let limit = sselint::dialect::responses::MAX_ITEMS as u64;
    for i in 0..limit + 3 {
        let (kind, id) = match i % 3 {
            0 => ("message", format!("msg_{i}")),
            1 => ("reasoning", format!("rs_{i}")),
            _ => ("function_call", format!("fc_{i}")),
        };
        let item = match kind {
            "message" => {
                json!({"id":id,"type":"message","status":"in_progress","content":[],"role":"assistant"})
            }
            "reasoning" => json!({"id":id,"type":"reasoning","summary":[]}),
            _ => {
                json!({"id":id,"type":"function_call","status":"in_progress","call_id":format!("call_{i}"),"name":"f","arguments":""})
            }
        };
        ev(
            &mut body,
            json!({"type":"response.output_item.added","output_index":i,"item":item}),
        );
        if i >= limit - 2 {
            for (ty, extra) in [
                (
                    "response.output_text.delta",
                    json!({"content_index":0,"logprobs":[]}),
                ),
                ("response.refusal.delta", json!({"content_index":0})),
                ("response.reasoning_text.delta", json!({"content_index":0})),
                (
                    "response.reasoning_summary_text.delta",
                    json!({"summary_index":0}),
                ),
                ("response.function_call_arguments.delta", json!({})),
            ] {
                for item_id in [id.as_str(), "msg_0", "nobody"] {
                    let mut d = json!({"type":ty,"item_id":item_id,"output_index":i,"delta":format!("late \"{i}\"")});
                    for (k, v) in extra.as_object().unwrap() {
                        d[k] = v.clone();
                    }
                    ev(&mut body, d);
                }
            }
        }
        ev(
            &mut body,
            json!({"type":"response.output_item.done","output_index":i,"item":item}),
        );
    }
    ev(
        &mut body,
        json!({"type":"response.completed","response":{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"m","output":[],"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}}),
    );
    let base = Settings::default();
    let fast = outcome(lint_body(&body, &typed(true, &base)));
    assert!(
        fast.contains("more than 1024 output items"),
        "the cap is reached"
    );
    assert_eq!(fast, outcome(lint_body(&body, &typed(false, &base))));
}

/// What `inspect` is told of each event (its kinds and its summary), and
/// the result: everything both paths must agree on for a Gemini stream.
fn gemini_outcome(body: &str, settings: &Settings) -> (String, u64) {
    use sselint::checks::Linter;
    use sselint::lint::Diagnostic;
    use sselint::pipeline::{lint_stream_with, Extras, Observer};
    use sselint::sse::Block;
    struct Seen(Vec<String>);
    impl Observer for Seen {
        fn block(&mut self, _: &Block<'_>, _: &[Diagnostic], linter: &Linter<'_>) {
            self.0.push(format!(
                "{:?} {:?}",
                linter.event_kind, linter.event_summary
            ));
        }
    }
    let mut seen = Seen(Vec::new());
    let mut typed_chunks = 0;
    let mut shown = String::new();
    for summaries in [false, true] {
        let cap = capture::from_reader(
            "bytes",
            Box::new(std::io::Cursor::new(body.as_bytes().to_vec())),
            &Options::default(),
        )
        .expect("bytes read as a capture");
        for s in cap.streams {
            let extras = Extras {
                fields: false,
                summaries,
            };
            let mut r = lint_stream_with(s, settings, &mut seen, extras);
            typed_chunks += r.typed_chunks;
            r.typed_chunks = 0;
            shown.push_str(&format!("{r:#?}\n"));
        }
    }
    shown.push_str(&seen.0.join("\n"));
    (shown, typed_chunks)
}

/// A Gemini stream whose fourth and fifth events are `middle`: a text
/// chunk (candidate 0's first), a thought and more text before it; more
/// text, a thought, then the finish with the whole usage after.
fn gemini_stream_around(middle: &str, name: Option<&str>) -> String {
    gemini_stream_after_calls(middle, name, 0)
}

/// [`gemini_stream_around`] with `calls` function-call chunks after the
/// first text chunk (the checker keeps 1,024 calls, and only counts the
/// rest).
fn gemini_stream_after_calls(middle: &str, name: Option<&str>, calls: usize) -> String {
    let usage = r#""usageMetadata": {"promptTokenCount": 9,"totalTokenCount": 9,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 9}]}"#;
    let tail = r#""modelVersion": "gemini-2.5-flash","responseId": "Xk9zaPq3Bc2o1MkP0d6hqAo""#;
    let chunk = |part: &str, finish: &str, usage: &str| {
        format!(
            r#"{{"candidates": [{{"content": {{"parts": [{part}],"role": "model"}}{finish},"index": 0}}],{usage},{tail}}}"#
        )
    };
    let before = [
        chunk(r#"{"text": "Hel"}"#, "", usage),
        chunk(r#"{"text": "hm","thought": true}"#, "", usage),
        chunk(r#"{"text": "lo"}"#, "", usage),
    ];
    let after = [
        chunk(r#"{"text": " there"}"#, "", usage),
        chunk(
            r#"{"text": "more","thought": true,"thoughtSignature": "CiQB0e2Kb3hJ"}"#,
            "",
            usage,
        ),
        chunk(
            r#"{"text": ""}"#,
            r#","finishReason": "STOP""#,
            r#""usageMetadata": {"promptTokenCount": 9,"candidatesTokenCount": 4,"totalTokenCount": 13}"#,
        ),
    ];
    let mut body = String::new();
    for (i, c) in before.iter().enumerate() {
        body.push_str(&format!("data: {c}\r\n\r\n"));
        if i == 0 {
            for n in 0..calls {
                let call = chunk(
                    &format!(r#"{{"functionCall": {{"name": "f","args": {{"n": {n}}}}}}}"#),
                    "",
                    usage,
                );
                body.push_str(&format!("data: {call}\r\n\r\n"));
            }
        }
    }
    let named = name.map(|n| format!("event: {n}\r\n")).unwrap_or_default();
    for _ in 0..2 {
        body.push_str(&format!("{named}data: {middle}\r\n\r\n"));
    }
    for c in &after {
        body.push_str(&format!("data: {c}\r\n\r\n"));
    }
    body
}

/// The chunks the Gemini mutations start from, in the compact form the
/// Gemini API sends (`": "` after a key, a bare comma between members):
/// a text part, a thought part with its signature and the usage's
/// running count, Vertex's shape (`role` first, no `index`,
/// `createTime`, `trafficType`), a function call with arguments that
/// `Value::to_string` rewrites (keys out of order, `1.0`, `1e2`, `-0`, a
/// number past `u64`, escapes), and Vertex's function call (an `id`, a
/// signature).
const GEMINI_SEEDS: [&str; 5] = [
    r#"{"candidates": [{"content": {"parts": [{"text": " wor\"ld\" \u00e9\n"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 9,"totalTokenCount": 9,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 9}]},"modelVersion": "gemini-2.5-flash","responseId": "Xk9zaPq3Bc2o1MkP0d6hqAo"}"#,
    r#"{"candidates": [{"content": {"parts": [{"text": "**Rain**","thought": true,"thoughtSignature": "CiQB0e2Kb3hJ7y0Y"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 9,"candidatesTokenCount": 3,"totalTokenCount": 52,"thoughtsTokenCount": 43},"modelVersion": "gemini-2.5-flash","responseId": "Xk9zaPq3Bc2o1MkP0d6hqAo"}"#,
    r#"{"candidates": [{"content": {"role": "model","parts": [{"text": "Boston"}]}}],"usageMetadata": {"trafficType": "ON_DEMAND"},"modelVersion": "gemini-2.5-flash","createTime": "2026-08-21T09:14:03.118204Z","responseId": "Xk9zaPq3Bc2o1MkP0d6hqAo"}"#,
    r#"{"candidates": [{"content": {"parts": [{"functionCall": {"name": "get_weather","args": {"zeta": [1.0, 1e2, -0, 12345678901234567890, "\u00e9\ud83d\ude00\"\/", {"b": null,"a": true}],"city": "Paris","n": 3}}}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 9,"totalTokenCount": 9},"modelVersion": "gemini-2.5-flash","responseId": "Xk9zaPq3Bc2o1MkP0d6hqAo"}"#,
    r#"{"candidates": [{"content": {"role": "model","parts": [{"functionCall": {"id": "call_0a1b","name": "get_weather","args": {"city": "Boston"}},"thoughtSignature": "CiQB0e2Kb3hJ7y0Y"}]}}],"usageMetadata": {"trafficType": "ON_DEMAND"},"modelVersion": "gemini-2.5-flash","createTime": "2026-08-21T09:14:03.118204Z","responseId": "Xk9zaPq3Bc2o1MkP0d6hqAo"}"#,
];

/// Variants of a function-call chunk's `args` (and of the call around
/// them) that the general path reads in its own way: numbers, escapes,
/// duplicate keys, nesting at serde's depth limit, other types.
fn gemini_call_variants() -> Vec<String> {
    let s = GEMINI_SEEDS[3];
    let mut variants = Vec::new();
    for args in [
        r#"{"n": 1.0}"#,
        r#"{"n": 1e2}"#,
        r#"{"n": 1E+2,"m": -1.5e-3}"#,
        r#"{"n": 1e400}"#,
        r#"{"n": -0.0}"#,
        r#"{"n": 18446744073709551616}"#,
        r#"{"n": -9223372036854775809}"#,
        r#"{"n": 0.1e1}"#,
        r#"{"b": 1,"a": 2,"b": 3}"#,
        r#"{"a": 1,"a": {"x": [1]}}"#,
        r#"{"\u0061": 1,"a": 2}"#,
        r#"{"k\ud83d": 1}"#,
        r#"{"k": "\udc00"}"#,
        r#"{"k": "\u0000\t\b"}"#,
        r#"{"k": "\u00zz"}"#,
        "{\"k\": \"a\tb\"}",
        r#"{"\u00e9\u20ac": "\u00e9"}"#,
        r#"{"é": "日本","a b": "x\ny"}"#,
        r#"{}"#,
        r#"{ }"#,
        r#"[]"#,
        r#"[{"a": 1}]"#,
        r#""{\"city\": \"Paris\"}""#,
        r#"null"#,
        r#"1"#,
        r#"{"a": [1, 2,]}"#,
        r#"{"a": 01}"#,
        r#"{"a": NaN}"#,
        r#"{"a": true,}"#,
    ] {
        variants.push(s.replacen(
            &s[s.find(r#"{"zeta""#).unwrap()..s.find(r#"}}],"role""#).unwrap() - 1],
            args,
            1,
        ));
    }
    // Nesting at serde's limit (128 levels, the chunk's own 8 included).
    for depth in 115..125 {
        variants.push(s.replacen(
            "\"n\": 3",
            &format!("\"n\": {}3{}", "[".repeat(depth), "]".repeat(depth)),
            1,
        ));
        variants.push(s.replacen(
            "\"n\": 3",
            &format!("\"n\": {}3{}", "{\"k\": ".repeat(depth), "}".repeat(depth)),
            1,
        ));
    }
    for (from, to) in [
        ("\"name\": \"get_weather\"", "\"name\": \"\""),
        (
            "\"name\": \"get_weather\"",
            "\"name\": \"get_\\u0077eather\"",
        ),
        ("\"name\": \"get_weather\"", "\"name\": null"),
        ("\"name\": \"get_weather\"", "\"name\": 1"),
        ("\"name\": \"get_weather\",", ""),
        ("\"functionCall\"", "\"function\\u0043all\""),
        ("\"functionCall\": {", "\"functionCall\": {\"id\": null,"),
        ("\"functionCall\": {", "\"functionCall\": {\"id\": 7,"),
        (
            "\"functionCall\": {",
            "\"functionCall\": {\"id\": \"c\\u00e9\",",
        ),
        (
            "\"functionCall\": {",
            "\"functionCall\": {\"willContinue\": true,",
        ),
        (
            "\"functionCall\": {",
            "\"functionCall\": {\"willContinue\": false,",
        ),
        (
            "\"functionCall\": {",
            "\"functionCall\": {\"partialArgs\": [],",
        ),
        ("\"functionCall\": {", "\"functionCall\": {\"name\": \"g\","),
        ("\"args\": {\"zeta\"", "\"args\": null,\"x\": {\"zeta\""),
        ("{\"functionCall\"", "{\"thought\": true,\"functionCall\""),
        ("{\"functionCall\"", "{\"thought\": false,\"functionCall\""),
        ("{\"functionCall\"", "{\"text\": \"hi\",\"functionCall\""),
        (
            "{\"functionCall\"",
            "{\"thoughtSignature\": \"QUJD\",\"functionCall\"",
        ),
        (
            "{\"functionCall\"",
            "{\"thoughtSignature\": \"no!\",\"functionCall\"",
        ),
        (
            "{\"functionCall\"",
            "{\"partMetadata\": {},\"functionCall\"",
        ),
        (
            "{\"functionCall\"",
            "{\"executableCode\": {},\"functionCall\"",
        ),
    ] {
        assert!(s.contains(from), "{from}");
        variants.push(s.replacen(from, to, 1));
    }
    // Arrays where objects are (serde reads a struct from an array).
    variants.push(
        s.replacen("[{\"functionCall\"", "[[{\"functionCall\"", 1)
            .replacen("}],\"role\"", "}]],\"role\"", 1),
    );
    variants.push(
        s.replacen("{\"functionCall\": {", "[{\"functionCall\": [", 1)
            .replacen("}}}],\"role\"", "}]]],\"role\"", 1),
    );
    variants.push(
        s.replacen(
            "\"functionCall\": {\"name\": \"get_weather\",",
            "\"functionCall\": [\"get_weather\",",
            1,
        )
        .replacen("}}}],\"role\"", "}]}],\"role\"", 1),
    );
    variants.push(s.replacen(
        "\"usageMetadata\": {\"promptTokenCount\": 9,\"totalTokenCount\": 9}",
        "\"usageMetadata\": [9, 9]",
        1,
    ));
    variants.push(s.replacen(
        "\"usageMetadata\": {\"promptTokenCount\": 9,\"totalTokenCount\": 9}",
        "\"usageMetadata\": []",
        1,
    ));
    variants.push(
        s.replacen("\"candidates\": [{\"content\": ", "\"candidates\": [[", 1)
            .replacen(",\"index\": 0}]", ", 0]]", 1),
    );
    // Arguments longer than an answer keeps (1 MiB).
    variants.push(s.replacen("\"Paris\"", &format!("\"{}\"", "x".repeat(1 << 20)), 1));
    variants
}

#[test]
fn a_gemini_chunk_mutated_in_any_way_lints_the_same_on_both_paths() {
    let base = Settings::default();
    let vertex = Settings {
        profile: profile::profile("vertex-gemini").unwrap(),
        ..Settings::default()
    };
    // The unmutated seeds take the fast path for every ordinary chunk.
    for seed in GEMINI_SEEDS {
        let body = gemini_stream_around(seed, None);
        let (fast, typed_chunks) = gemini_outcome(&body, &typed(true, &base));
        // Per run (two runs: with and without summaries): the thought and
        // text before, the two middle chunks and the two after.
        assert_eq!(typed_chunks, 2 * 6, "{body}\n{fast}");
        assert_eq!(fast, gemini_outcome(&body, &typed(false, &base)).0);
    }
    let mut variants: Vec<String> = Vec::new();
    for seed in GEMINI_SEEDS {
        let v: Value = serde_json::from_str(seed).unwrap();
        let mut muts = Vec::new();
        mutations(&v, &mut Vec::new(), &mut muts, &v);
        variants.extend(muts.into_iter().map(|(_, m)| m.to_string()));
        let mut extra = |f: &dyn Fn(&mut Value)| {
            let mut m = v.clone();
            f(&mut m);
            variants.push(m.to_string());
        };
        let cand = |m: &mut Value| m["candidates"][0].clone();
        extra(&|m| m["candidates"][0]["index"] = json!(1));
        extra(&|m| {
            let c = cand(m);
            m["candidates"].as_array_mut().unwrap().push(c);
        });
        extra(&|m| {
            let mut c = cand(m);
            c["index"] = json!(1);
            m["candidates"].as_array_mut().unwrap().push(c);
        });
        extra(&|m| m["candidates"] = json!([]));
        extra(&|m| m["candidates"][0]["finishReason"] = json!("STOP"));
        extra(&|m| m["candidates"][0]["finishReason"] = json!("SAFETY"));
        extra(&|m| m["candidates"][0]["finishMessage"] = json!("why"));
        extra(&|m| m["candidates"][0]["safetyRatings"] = json!([]));
        extra(&|m| m["candidates"][0]["citationMetadata"] = json!({"citations": [{}]}));
        extra(&|m| m["candidates"][0]["groundingMetadata"] = json!({}));
        extra(&|m| {
            let p = m["candidates"][0]["content"]["parts"][0].clone();
            m["candidates"][0]["content"]["parts"]
                .as_array_mut()
                .unwrap()
                .push(p);
        });
        extra(&|m| m["candidates"][0]["content"]["parts"] = json!([]));
        extra(&|m| m["candidates"][0]["content"]["parts"][0]["thought"] = json!(false));
        extra(&|m| m["candidates"][0]["content"]["parts"][0]["thought"] = json!(true));
        extra(&|m| m["candidates"][0]["content"]["parts"][0]["text"] = json!(""));
        extra(&|m| {
            m["candidates"][0]["content"]["parts"][0]["thoughtSignature"] = json!("not base64!")
        });
        extra(&|m| m["candidates"][0]["content"]["parts"][0]["thoughtSignature"] = json!("QUJD"));
        extra(&|m| m["candidates"][0]["content"]["parts"][0]["partMetadata"] = json!({}));
        extra(&|m| {
            m["candidates"][0]["content"]["parts"][0]["functionCall"] = json!({"name": "f"})
        });
        extra(&|m| m["candidates"][0]["content"]["parts"][0]["inlineData"] = json!({}));
        extra(&|m| m["responseId"] = json!("other"));
        extra(&|m| m["modelVersion"] = json!("gemini-2.5-pro"));
        extra(&|m| m["promptFeedback"] = json!({"blockReason": "SAFETY"}));
        extra(&|m| m["error"] = json!({"code": 500}));
        extra(&|m| m["sdkHttpResponse"] = json!({}));
        extra(&|m| m["usageMetadata"]["candidatesTokenCount"] = json!(1));
        extra(&|m| m["usageMetadata"]["candidatesTokenCount"] = json!(100));
        extra(&|m| m["usageMetadata"]["serviceTier"] = json!("standard"));
        extra(&|m| m["usageMetadata"]["cachedContentTokenCount"] = json!(2));
        extra(&|m| m["usageMetadata"]["trafficType"] = json!("ON_DEMAND"));
        extra(&|m| {
            m["usageMetadata"]["candidatesTokensDetails"] =
                json!([{"modality": "TEXT", "tokenCount": 1}, {"modality": "AUDIO"}])
        });
        extra(&|m| {
            m["usageMetadata"]["toolUsePromptTokensDetails"] = json!([{"modality": "TEXT", "x": 1}])
        });
        extra(&|m| m["usageMetadata"]["promptTokensDetails"] = json!([[[[[[[[[[1]]]]]]]]]]));
        extra(&|m| m["usageMetadata"] = json!({}));
        extra(&|m| m["usageMetadata"] = json!({"x": {"y": [1, 2, {"z": null}]}}));
        extra(&|m| {
            m.as_object_mut().unwrap().remove("usageMetadata");
        });
    }
    // Escapes, duplicate keys, depth, broken JSON, and byte changes of
    // the compact form.
    let s = GEMINI_SEEDS[0];
    variants.push(s.replace("\"Xk9z", "\"\\u0058k9z"));
    variants.push(s.replace("gemini-2.5-flash", "gemini-2.5\\/flash"));
    variants.push(s.replace(" wor", "\\ud83d"));
    variants.push(s.replace(" wor", "\\ud83d\\ude00"));
    variants.push(s.replace("{\"text\"", "{\"text\": \"a\",\"text\""));
    variants.push(s.replace("\"modelVersion\"", "\"responseId\": \"x\",\"modelVersion\""));
    variants.push(s.replace(
        "\"promptTokensDetails\": [",
        &format!(
            "\"promptTokensDetails\": [{}{}",
            "[".repeat(200),
            "]".repeat(200)
        ),
    ));
    variants.push(format!("  {s}  "));
    variants.push(format!("{s} x"));
    variants.push(s.replacen('{', "[{", 1));
    variants.push(format!("[{s}]"));
    variants.push("[DONE]".to_string());
    for seed in GEMINI_SEEDS {
        variants.extend(char_changes(seed));
        for cut in (1..seed.len()).step_by(7) {
            if seed.is_char_boundary(cut) {
                variants.push(seed[..cut].to_string());
            }
        }
    }
    variants.extend(gemini_call_variants());
    assert!(variants.len() > 3000, "{}", variants.len());
    let all = variants.len();
    // All of them at SSELINT_TEST_DEPTH=full, a spread of them by default.
    let variants = sample(variants, 400);
    let mut differ = Vec::new();
    // Streams whose every ordinary chunk, the two middle ones included,
    // took the fast path.
    let mut whole = 0;
    for (i, v) in variants.iter().enumerate() {
        // Most of them as unnamed data, every tenth under an `event:` line.
        let name = (i % 10 == 0).then_some("message");
        let body = gemini_stream_around(v, name);
        for s in [&base, &vertex] {
            let (fast, n) = gemini_outcome(&body, &typed(true, s));
            let (slow, _) = gemini_outcome(&body, &typed(false, s));
            whole += usize::from(n == 2 * 6);
            if fast != slow {
                differ.push(format!("{v}\n--- fast\n{fast}\n--- general\n{slow}"));
            }
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {} differ; the first:\n{}",
        differ.len(),
        variants.len(),
        differ[0]
    );
    // The middle chunk itself took the fast path in many of them: over
    // 1,000 of the whole corpus, as many in proportion of a sample.
    let need = 1000 * variants.len() / all;
    assert!(whole > need, "{whole} of {}", 2 * variants.len());
}

#[test]
fn gemini_samples_and_examples_lint_the_same_on_both_paths_for_inspect_too() {
    // The comparisons of whole results above cover these files; this one
    // adds what `inspect` is told of each event (its kinds, its summary).
    let base = Settings::default();
    let mut files = samples_named(|n| n.contains("gemini"));
    files.retain(|p| file_dialect(p) == Some("gemini"));
    assert!(files.len() > 10, "{}", files.len());
    let mut typed_chunks = 0;
    for p in &files {
        let body = std::fs::read_to_string(p).unwrap();
        let (fast, n) = gemini_outcome(&body, &typed(true, &base));
        assert_eq!(
            fast,
            gemini_outcome(&body, &typed(false, &base)).0,
            "{}",
            p.display()
        );
        typed_chunks += n;
    }
    for r in sselint::lint::catalogue().rules() {
        if r.dialect.map(|d| d.name()) != Some("gemini") {
            continue;
        }
        for ex in r.examples() {
            let body = std::str::from_utf8(&ex.capture).unwrap();
            let (fast, n) = gemini_outcome(body, &typed(true, &base));
            assert_eq!(
                fast,
                gemini_outcome(body, &typed(false, &base)).0,
                "{}",
                r.file
            );
            typed_chunks += n;
        }
    }
    // The samples and examples are short: a first chunk and a finish,
    // both on the general path; gemini-thinking has a text chunk between
    // (taken once per run, with and without summaries). The mutation test
    // above is where the fast path is exercised.
    assert!(typed_chunks >= 2, "{typed_chunks}");
}

#[test]
fn a_gemini_call_past_the_kept_ones_lints_the_same_on_both_paths() {
    // Past 1,024 calls a call's arguments are only read, not built: the
    // call variants, and mutations of the call seeds, after 1,024 calls.
    let base = Settings::default();
    let mut variants = gemini_call_variants();
    for seed in &GEMINI_SEEDS[3..] {
        let v: Value = serde_json::from_str(seed).unwrap();
        let mut muts = Vec::new();
        mutations(&v, &mut Vec::new(), &mut muts, &v);
        variants.extend(muts.into_iter().map(|(_, m)| m.to_string()));
        variants.push(seed.to_string());
    }
    let all = variants.len();
    // All of them at SSELINT_TEST_DEPTH=full, a spread of them by default:
    // each is a stream of over a thousand calls.
    let variants = sample(variants, 24);
    let mut differ = Vec::new();
    let mut whole = 0;
    for v in &variants {
        let body = gemini_stream_after_calls(v, None, 1024);
        let (fast, n) = gemini_outcome(&body, &typed(true, &base));
        let (slow, _) = gemini_outcome(&body, &typed(false, &base));
        whole += usize::from(n == 2 * (6 + 1024));
        if fast != slow {
            differ.push(format!("{v}\n--- fast\n{fast}\n--- general\n{slow}"));
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {} differ; the first:\n{}",
        differ.len(),
        variants.len(),
        differ[0]
    );
    // Over 20 of the whole corpus, as many in proportion of a sample.
    let need = 20 * variants.len() / all;
    assert!(whole > need, "{whole} of {}", variants.len());
}

/// Everything both paths must agree on for a stream on a transport other
/// than SSE: the result, read with and without summaries, and what
/// `inspect` is told of each message (its kinds and its summary); and the
/// messages the fast path took.
fn message_outcome(body: &[u8], settings: &Settings) -> (String, u64) {
    use sselint::checks::Linter;
    use sselint::lint::Diagnostic;
    use sselint::pipeline::{lint_stream_with, Extras, Observer};
    use sselint::sse::Block;
    use sselint::transport::Message;
    struct Seen(Vec<String>);
    impl Observer for Seen {
        fn block(&mut self, _: &Block<'_>, _: &[Diagnostic], _: &Linter<'_>) {}
        fn message(&mut self, m: &Message<'_>, new: &[Diagnostic], linter: &Linter<'_>) {
            self.0.push(format!(
                "{} {:?} {:?} {}",
                m.index,
                linter.event_kind,
                linter.event_summary,
                new.len()
            ));
        }
    }
    let mut seen = Seen(Vec::new());
    let mut typed_chunks = 0;
    let mut shown = String::new();
    for summaries in [false, true] {
        let cap = capture::from_reader(
            "bytes",
            Box::new(std::io::Cursor::new(body.to_vec())),
            &Options::default(),
        )
        .expect("bytes read as a capture");
        for s in cap.streams {
            let extras = Extras {
                fields: false,
                summaries,
            };
            let mut r = lint_stream_with(s, settings, &mut seen, extras);
            typed_chunks += r.typed_chunks;
            r.typed_chunks = 0;
            shown.push_str(&format!("{r:#?}\n"));
        }
    }
    shown.push_str(&seen.0.join("\n"));
    (shown, typed_chunks)
}

/// `body` read on both paths agrees ([`message_outcome`]); the messages the
/// fast path took.
fn same_on_both_paths(body: &[u8], what: &str) -> u64 {
    let base = Settings::default();
    let (fast, taken) = message_outcome(body, &typed(true, &base));
    let (slow, none) = message_outcome(body, &typed(false, &base));
    assert_eq!(none, 0);
    assert_eq!(fast, slow, "{what}");
    taken
}

/// `seed` and a spread of its one-character changes (all of them at
/// SSELINT_TEST_DEPTH=full), each put in a stream by `around`, read the
/// same on both paths; the unchanged seed is taken by the fast path.
fn changes_agree(seed: &str, around: &dyn Fn(&str) -> Vec<u8>) {
    assert!(
        same_on_both_paths(&around(seed), seed) > 0,
        "the fast path takes {seed}"
    );
    for v in sample(char_changes(seed), 120) {
        same_on_both_paths(&around(&v), &v);
    }
}

#[test]
fn ollama_lines_changed_byte_by_byte_lint_the_same_on_both_paths() {
    let chat = |content: &str| {
        format!(
            r#"{{"model":"qwen3:8b","created_at":"2026-01-02T03:04:05.1Z","message":{{"role":"assistant","content":{content}}},"done":false}}"#
        )
    };
    let last = r#"{"model":"qwen3:8b","created_at":"2026-01-02T03:04:06Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":3,"eval_count":4}"#;
    let around = |middle: &str| {
        format!(
            "{}\n{middle}\n{middle}\n{}\n{last}\n",
            chat(r#""Hi""#),
            chat(r#"" there""#)
        )
        .into_bytes()
    };
    for seed in [
        chat(r#""Hi \"you\" \u00e9""#),
        r#"{"model":"qwen3:8b","created_at":"2026-01-02T03:04:05.1Z","message":{"role":"assistant","content":"","thinking":"hm\n"},"done":false}"#.to_string(),
        r#"{"model":"qwen3:8b","created_at":"2026-01-02T03:04:05.1Z","response":"Hi","thinking":"so","done":false}"#.to_string(),
    ] {
        changes_agree(&seed, &around);
    }
    // A line after `done: true`, and a line before an error line.
    let after = format!("{}\n{last}\n{}\n", chat(r#""a""#), chat(r#""b""#));
    same_on_both_paths(after.as_bytes(), "after done");
    let error = format!(
        "{}\n{{\"error\":\"boom\"}}\n{}\n",
        chat(r#""a""#),
        chat(r#""b""#)
    );
    same_on_both_paths(error.as_bytes(), "after an error");
}

fn converse_frame(ty: &str, payload: &str) -> Vec<u8> {
    sselint::transport::eventstream::encode(
        &[
            (":event-type", ty),
            (":content-type", "application/json"),
            (":message-type", "event"),
        ],
        payload.as_bytes(),
    )
}

#[test]
fn converse_deltas_changed_byte_by_byte_lint_the_same_on_both_paths() {
    let around = |middle: &str| {
        [
            converse_frame("messageStart", r#"{"role":"assistant","p":"ab"}"#),
            converse_frame(
                "contentBlockStart",
                r#"{"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"t1","name":"f"}},"p":"a"}"#,
            ),
            converse_frame("contentBlockDelta", middle),
            converse_frame("contentBlockDelta", middle),
            converse_frame(
                "contentBlockDelta",
                r#"{"contentBlockIndex":1,"delta":{"toolUse":{"input":"1}"}},"p":"a"}"#,
            ),
            converse_frame("messageStop", r#"{"stopReason":"tool_use"}"#),
            converse_frame(
                "metadata",
                r#"{"usage":{"inputTokens":1,"outputTokens":2,"totalTokens":3},"metrics":{"latencyMs":4}}"#,
            ),
        ]
        .concat()
    };
    for seed in [
        r#"{"contentBlockIndex":0,"delta":{"text":"Hi \"you\" \u00e9"},"p":"abcdefgh"}"#,
        r#"{"contentBlockIndex":0,"delta":{"reasoningContent":{"text":"hm"}},"p":"ab"}"#,
        r#"{"contentBlockIndex":1,"delta":{"toolUse":{"input":"{\"a\":"}}}"#,
    ] {
        changes_agree(seed, &around);
    }
}

#[test]
fn invoke_chunks_changed_byte_by_byte_lint_the_same_on_both_paths() {
    use base64::Engine as _;
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    let chunk = |event: &str| {
        converse_frame(
            "chunk",
            &format!(r#"{{"bytes":"{}","p":"abcdefgh"}}"#, b64(event)),
        )
    };
    let head = [
        chunk(
            r#"{"type":"message_start","message":{"id":"msg_bdrk_1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1}}}"#,
        ),
        chunk(r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#),
    ]
    .concat();
    let tail = [
        chunk(r#"{"type":"content_block_stop","index":0}"#),
        chunk(r#"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":2}}"#),
        chunk(r#"{"type":"message_stop","amazon-bedrock-invocationMetrics":{"inputTokenCount":25,"outputTokenCount":2,"invocationLatency":9,"firstByteLatency":3}}"#),
    ]
    .concat();
    // The inner event changed, then encoded as Bedrock does.
    let inner = |middle: &str| [head.clone(), chunk(middle), chunk(middle), tail.clone()].concat();
    changes_agree(
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi \"you\" \u00e9"}}"#,
        &inner,
    );
    // The chunk's payload changed around its base64.
    let outer = |middle: &str| {
        [
            head.clone(),
            converse_frame("chunk", middle),
            converse_frame("chunk", middle),
            tail.clone(),
        ]
        .concat()
    };
    let payload = format!(
        r#"{{"bytes":"{}","p":"abcdefgh"}}"#,
        b64(
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}"#
        )
    );
    changes_agree(&payload, &outer);
}

#[test]
fn exception_and_error_frames_lint_the_same_on_both_paths() {
    let error = sselint::transport::eventstream::encode(
        &[
            (":error-code", "InternalServerException"),
            (":error-message", "The service had an error."),
            (":message-type", "error"),
        ],
        b"",
    );
    let body = [
        converse_frame("messageStart", r#"{"role":"assistant"}"#),
        converse_frame(
            "contentBlockDelta",
            r#"{"contentBlockIndex":0,"delta":{"text":"Hi"}}"#,
        ),
        error,
        converse_frame(
            "contentBlockDelta",
            r#"{"contentBlockIndex":0,"delta":{"text":"late"}}"#,
        ),
    ]
    .concat();
    same_on_both_paths(&body, "an error frame");
}
