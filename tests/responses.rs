//! OpenAI Responses streams: the answer each shipped sample assembles to,
//! findings and answers that do not depend on how the bytes are split,
//! hostile streams (bounded, no panic, a clear message), the variant
//! profiles, and `--dialect responses`.

mod common;
use common::*;
use sselint::capture::{self, Options};
use sselint::dialect::Dialect;
use sselint::lint::{profile, Settings, Severity};
use sselint::model::assembly::{Ending, MAX_TEXT_BYTES};
use sselint::pipeline::{lint_capture, FileResult, NoObserver};
use std::path::PathBuf;

fn sample(p: &str) -> PathBuf {
    root().join("samples").join(p)
}

/// Lints bytes under `settings`.
fn lint_with(bytes: &[u8], settings: &Settings) -> FileResult {
    let cap = capture::from_reader(
        "bytes",
        Box::new(std::io::Cursor::new(bytes.to_vec())),
        &Options::default(),
    )
    .expect("bytes read as a capture");
    lint_capture(cap, settings, &mut NoObserver)
}

fn under(profile_name: &str) -> Settings {
    Settings {
        profile: profile::profile(profile_name)
            .unwrap_or_else(|| panic!("no profile {profile_name}")),
        ..Settings::default()
    }
}

fn rules(r: &FileResult) -> Vec<(&'static str, Severity)> {
    diags(r).iter().map(|d| (d.rule, d.severity)).collect()
}

fn messages(r: &FileResult, rule: &str) -> Vec<String> {
    diags(r)
        .iter()
        .filter(|d| d.rule == rule)
        .map(|d| d.message.clone())
        .collect()
}

/// What a client should end up with: text, reasoning, refusal, tool calls
/// (id, name, arguments), finish_reason, usage (input, output, total).
struct Want {
    file: &'static str,
    text: &'static str,
    reasoning: &'static str,
    refusal: Option<&'static str>,
    calls: &'static [(&'static str, &'static str, &'static str)],
    usage: (u64, u64, u64),
}

const WANT: &[Want] = &[
    Want {
        file: "providers/openai-responses.sse",
        text: "The capital of Norway is Oslo.",
        reasoning: "",
        refusal: None,
        calls: &[],
        usage: (14, 7, 21),
    },
    Want {
        file: "providers/azure-responses.sse",
        text: "Paris is the capital of France.",
        reasoning: "",
        refusal: None,
        calls: &[],
        usage: (13, 7, 20),
    },
    Want {
        file: "providers/openrouter-responses.sse",
        text: "Water boils at 100 °C at sea level.",
        reasoning: "",
        refusal: None,
        calls: &[],
        usage: (15, 10, 25),
    },
    Want {
        file: "providers/lmstudio-responses.sse",
        text: "Let me look that up.",
        reasoning: "",
        refusal: None,
        calls: &[(
            "call_839201746",
            "search_docs",
            r#"{"query":"borrow checker"}"#,
        )],
        usage: (96, 31, 127),
    },
    Want {
        file: "providers/bedrock-responses.sse",
        text: "Light from the Sun reaches Earth in about 8 minutes.",
        reasoning: "",
        refusal: None,
        calls: &[],
        usage: (17, 11, 28),
    },
    Want {
        file: "providers/vllm-responses.sse",
        text: "A haiku has three lines: 5, 7 and 5 syllables.",
        reasoning: "",
        refusal: None,
        calls: &[],
        usage: (19, 13, 32),
    },
    Want {
        file: "providers/ollama-responses.sse",
        text: "2 + 2 = 4.",
        reasoning: "",
        refusal: None,
        calls: &[],
        usage: (16, 6, 22),
    },
    Want {
        file: "providers/vllm-responses-gpt-oss.sse",
        text: "Water boils at 212 °F at sea level.",
        reasoning: "The user asks for the boiling point of water in Fahrenheit. It is 212 degrees at sea level.",
        refusal: None,
        calls: &[],
        usage: (74, 41, 115),
    },
    Want {
        file: "providers/llamacpp-responses.sse",
        text: "Three weeks is 21 days.",
        reasoning: "A week has seven days, so 3 weeks is 21 days.",
        refusal: None,
        calls: &[],
        usage: (18, 27, 45),
    },
    Want {
        file: "providers/copilot-responses-id-rotation.sse",
        text: "26.2 miles is about **42.2 km** (one mile is 1.609 km).",
        reasoning: "**Converting miles to kilometres**",
        refusal: None,
        calls: &[],
        usage: (21, 58, 79),
    },
    Want {
        file: "providers/openrouter-responses-reasoning.sse",
        text: "",
        reasoning: "**Listing the directory**\n\nThe user wants to see the files, so I will run ls.",
        refusal: None,
        calls: &[("call_Tx7Pq2Nv5Kb9Wm3Lz8Rf", "bash", r#"{"command":"ls"}"#)],
        usage: (412, 96, 508),
    },
    Want {
        file: "providers/azure-responses-reasoning.sse",
        text: "The area is 9π ≈ 28.27 square units.",
        reasoning: "**Recalling the formula**\n\nThe area of a circle is pi times the radius squared.\n\n**Computing**\n\nWith r = 3, that is 9 pi, about 28.27.",
        refusal: None,
        calls: &[],
        usage: (24, 131, 155),
    },
    Want {
        file: "good/responses-basic.sse",
        text: "Low tide comes about six hours after high tide.",
        reasoning: "",
        refusal: None,
        calls: &[],
        usage: (14, 10, 24),
    },
    Want {
        file: "good/responses-text.sse",
        text: "Rust's borrow checker enforces one writer or many readers at a time.",
        reasoning: "",
        refusal: None,
        calls: &[],
        usage: (21, 14, 35),
    },
    Want {
        file: "good/responses-function-call.sse",
        text: "",
        reasoning: "",
        refusal: None,
        calls: &[(
            "call_Vb3kQx9LmN2pR8sT",
            "get_weather",
            r#"{"city":"Oslo","unit":"c"}"#,
        )],
        usage: (63, 18, 81),
    },
    Want {
        file: "good/responses-reasoning.sse",
        text: "17 × 23 = 391.",
        reasoning: "**Checking the arithmetic**\n\n17 × 23 is 17 × 20 plus 17 × 3.\n\n**Adding up**\n\n340 + 51 = 391.",
        refusal: None,
        calls: &[],
        usage: (18, 212, 230),
    },
    Want {
        file: "providers/openai-responses-refusal.sse",
        text: "",
        reasoning: "",
        refusal: Some("I'm sorry, but I can't help with that."),
        calls: &[],
        usage: (25, 12, 37),
    },
];

#[test]
fn every_responses_sample_assembles_to_the_answer_the_server_meant() {
    for w in WANT {
        let r = lint_file(&sample(w.file));
        let s = &r.streams[0];
        assert_eq!(s.dialect, Some(Dialect::Responses), "{}", w.file);
        assert_eq!(s.ending, Ending::Complete, "{}", w.file);
        let c = &s.answer.choices[&0];
        assert_eq!(c.text.kept, w.text, "{}", w.file);
        assert_eq!(c.reasoning.kept, w.reasoning, "{}", w.file);
        assert_eq!(
            c.refusal.as_ref().map(|t| t.kept.as_str()),
            w.refusal,
            "{}",
            w.file
        );
        assert_eq!(c.finish_reason.as_deref(), Some("completed"), "{}", w.file);
        let calls: Vec<(String, String, String)> = c
            .tool_calls
            .values()
            .map(|t| {
                (
                    t.id.clone().unwrap_or_default(),
                    t.name.clone().unwrap_or_default(),
                    t.arguments.clone(),
                )
            })
            .collect();
        let want: Vec<(String, String, String)> = w
            .calls
            .iter()
            .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
            .collect();
        assert_eq!(calls, want, "{}", w.file);
        let u = s.answer.usage.as_ref().expect("usage");
        assert_eq!(
            (
                u["input_tokens"].as_u64(),
                u["output_tokens"].as_u64(),
                u["total_tokens"].as_u64()
            ),
            (Some(w.usage.0), Some(w.usage.1), Some(w.usage.2)),
            "{}",
            w.file
        );
        // No error on any of them unless a client of the record broke on
        // it (LM Studio's arguments only in their done event: the raw loops
        // end with empty arguments), and under their own profile nothing
        // above info (those arguments are an info there).
        let errors = rules_at_least(&r, Severity::Error);
        let broke = sselint::lint::observed::record()
            .captures
            .get(&format!("samples/{}", w.file))
            .is_some_and(|c| sselint::lint::observed::derived_severity(c) == Severity::Error);
        assert!(errors.is_empty() || broke, "{}: {errors:?}", w.file);
        let stem = PathBuf::from(w.file)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if let Some(p) = profile::profile(&stem) {
            let settings = Settings {
                profile: p,
                ..Settings::default()
            };
            let own = lint_file_with(&sample(w.file), &settings);
            assert!(
                rules_at_least(&own, Severity::Warning).is_empty(),
                "{} under --profile {stem}: {:?}",
                w.file,
                rules(&own)
            );
        }
    }
}

#[test]
fn the_responses_samples_are_covered_here() {
    // A new Responses sample gets its answer checked above.
    for dir in ["good", "providers"] {
        for p in samples(dir) {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if name.contains("responses") {
                let rel = format!("{dir}/{name}");
                assert!(WANT.iter().any(|w| w.file == rel), "{rel} has no Want");
            }
        }
    }
}

fn responses_captures() -> Vec<PathBuf> {
    let v = samples_named(|n| n.contains("responses"));
    assert!(v.len() >= 30, "only {} Responses samples", v.len());
    v
}

#[test]
fn every_responses_sample_gives_the_same_verdict_whole_and_byte_by_byte() {
    for p in responses_captures() {
        let body = std::fs::read(&p).unwrap();
        assert_same_verdict_bytewise(&body, &p.display().to_string());
    }
}

#[test]
fn a_capture_gives_the_same_verdict_at_every_single_split_point() {
    // Every two-piece split of one capture that holds a finding, and
    // pseudo-random many-piece splits of every capture.
    let body = std::fs::read(sample("bad/responses-delta-mismatch.sse")).unwrap();
    let whole = assert_same_verdict_at_every_split(&body);
    assert!(
        whole
            .0
            .iter()
            .any(|f| f.starts_with("responses-delta-mismatch")),
        "{whole:?}"
    );
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for p in responses_captures() {
        let body = std::fs::read(&p).unwrap();
        let whole = split_verdict(&body, &[]);
        for _ in 0..8 {
            let cuts = random_cuts(&mut x, body.len(), 12);
            assert_eq!(
                whole,
                split_verdict(&body, &cuts),
                "{} at {cuts:?}",
                p.display()
            );
        }
    }
}

const CREATED: &str = r#"event: response.created
data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","created_at":1700000000,"status":"in_progress","error":null,"incomplete_details":null,"instructions":null,"model":"m","output":[],"parallel_tool_calls":true,"temperature":1.0,"tool_choice":"auto","tools":[],"top_p":1.0,"usage":null,"metadata":{}}}

"#;

fn event(ty: &str, seq: &str, rest: &str) -> String {
    format!("event: {ty}\ndata: {{\"type\":\"{ty}\",\"sequence_number\":{seq}{rest}}}\n\n")
}

fn completed(seq: u64, output: &str) -> String {
    event(
        "response.completed",
        &seq.to_string(),
        &format!(
            r#","response":{{"id":"resp_1","object":"response","created_at":1700000000,"status":"completed","error":null,"incomplete_details":null,"instructions":null,"model":"m","output":{output},"parallel_tool_calls":true,"temperature":1.0,"tool_choice":"auto","tools":[],"top_p":1.0,"usage":{{"input_tokens":1,"output_tokens":1,"total_tokens":2}},"metadata":{{}}}}"#
        ),
    )
}

/// A message at `index` streaming `text` (one delta), complete.
fn message(index: u64, seq: &mut u64, text: &str) -> String {
    let mut s = String::new();
    let mut next = || {
        *seq += 1;
        seq.to_string()
    };
    let id = format!("msg_{index}");
    s += &event(
        "response.output_item.added",
        &next(),
        &format!(
            r#","output_index":{index},"item":{{"id":"{id}","type":"message","status":"in_progress","content":[],"role":"assistant"}}"#
        ),
    );
    s += &event(
        "response.content_part.added",
        &next(),
        &format!(
            r#","item_id":"{id}","output_index":{index},"content_index":0,"part":{{"type":"output_text","annotations":[],"text":""}}"#
        ),
    );
    s += &event(
        "response.output_text.delta",
        &next(),
        &format!(
            r#","item_id":"{id}","output_index":{index},"content_index":0,"delta":{text:?},"logprobs":[]"#
        ),
    );
    s += &event(
        "response.output_text.done",
        &next(),
        &format!(
            r#","item_id":"{id}","output_index":{index},"content_index":0,"text":{text:?},"logprobs":[]"#
        ),
    );
    s += &event(
        "response.content_part.done",
        &next(),
        &format!(
            r#","item_id":"{id}","output_index":{index},"content_index":0,"part":{{"type":"output_text","annotations":[],"text":{text:?}}}"#
        ),
    );
    s += &event(
        "response.output_item.done",
        &next(),
        &format!(
            r#","output_index":{index},"item":{{"id":"{id}","type":"message","status":"completed","content":[{{"type":"output_text","annotations":[],"text":{text:?}}}],"role":"assistant"}}"#
        ),
    );
    s
}

#[test]
fn a_huge_output_index_is_one_clear_finding_and_the_text_is_still_read() {
    let mut seq = 0;
    let mut body = CREATED.to_string();
    body += &message(1_000_000_000_000_000_000, &mut seq, "Hi");
    body += &completed(seq + 1, "[]");
    let r = lint_bytes(body.as_bytes());
    let m = messages(&r, "responses-output-index");
    assert_eq!(m.len(), 1, "{:?}", rules(&r));
    assert!(
        m[0].contains("1000000000000000000 where 0 was next"),
        "{}",
        m[0]
    );
    assert_eq!(text0(&r), "Hi");
    // As a float it is not an index at all.
    let body = body.replace(
        "\"output_index\":1000000000000000000,\"item\":{\"id\":\"msg_1000000000000000000\",\"type\":\"message\",\"status\":\"in_progress\"",
        "\"output_index\":1e18,\"item\":{\"id\":\"msg_1000000000000000000\",\"type\":\"message\",\"status\":\"in_progress\"",
    );
    let r = lint_bytes(body.as_bytes());
    let m = messages(&r, "responses-missing-field");
    assert!(
        m.iter()
            .any(|m| m.contains("`output_index` is 1e")
                && m.contains("not a non-negative integer")),
        "{m:?}"
    );
}

#[test]
fn negative_float_and_huge_sequence_numbers_are_reported_without_panicking() {
    for (n, shows) in [
        ("-1", "-1 (a number)"),
        ("2.5", "2.5 (a number)"),
        ("\"3\"", "\"3\" (a string)"),
    ] {
        let mut seq = 0;
        let mut body = CREATED.to_string();
        body += &message(0, &mut seq, "Hi");
        body += &completed(seq + 1, "[]");
        let body = body.replacen(
            "\"sequence_number\":3,",
            &format!("\"sequence_number\":{n},"),
            1,
        );
        let r = lint_bytes(body.as_bytes());
        let m = messages(&r, "responses-sequence-number");
        assert_eq!(m.len(), 1, "{n}: {:?}", rules(&r));
        assert!(m[0].contains(shows), "{n}: {}", m[0]);
    }
    // The largest number twice: not increasing, and no overflow.
    let max = u64::MAX.to_string();
    let body = format!(
        "{CREATED}{}{}",
        event("keepalive", &max, ""),
        event("keepalive", &max, "")
    );
    let r = lint_bytes(body.as_bytes());
    assert_eq!(messages(&r, "responses-sequence-number").len(), 1);
}

#[test]
fn nesting_deeper_than_the_parser_goes_is_invalid_json_with_a_reason() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let body = format!(
        "{CREATED}{}",
        event(
            "response.output_text.delta",
            "1",
            &format!(
                r#","item_id":"m","output_index":0,"content_index":0,"delta":"x","logprobs":{deep}"#
            )
        )
    );
    let r = lint_bytes(body.as_bytes());
    let d: Vec<_> = diags(&r)
        .into_iter()
        .filter(|d| d.rule == "invalid-json")
        .collect();
    assert_eq!(d.len(), 1, "{:?}", rules(&r));
    assert!(d[0].message.contains("nested deeper"), "{}", d[0].message);
    // The stream was cut as well: it never ended.
    assert_eq!(r.streams[0].ending, Ending::CutOff);
}

#[test]
fn a_hundred_thousand_items_stay_bounded_and_say_so() {
    let mut body = CREATED.to_string();
    let mut seq = 0u64;
    for i in 0..100_000u64 {
        for ty in ["response.output_item.added", "response.output_item.done"] {
            seq += 1;
            body += &event(
                ty,
                &seq.to_string(),
                &format!(
                    r#","output_index":{i},"item":{{"type":"function_call","id":"fc_{i}","call_id":"c_{i}","name":"f","arguments":"{{}}","status":"completed"}}"#
                ),
            );
        }
    }
    body += &completed(seq + 1, "[]");
    let started = std::time::Instant::now();
    let r = lint_bytes(body.as_bytes());
    let took = started.elapsed();
    let c = &r.streams[0].answer.choices[&0];
    assert_eq!(
        c.tool_calls.len(),
        sselint::dialect::responses::MAX_ITEMS,
        "only the tracked items are assembled"
    );
    let m = messages(&r, "responses-output-index");
    assert_eq!(m.len(), 1, "{:?}", rules(&r));
    assert!(m[0].contains("more than 1024 output items"), "{}", m[0]);
    assert!(took.as_secs() < 60, "took {took:?}");
}

#[test]
fn text_past_the_kept_budget_is_still_compared_and_capped_in_the_answer() {
    // 6 MiB of deltas (past the 2 MiB kept per stream), and a done text
    // whose last character differs: the mismatch is found by length and
    // hash; the answer keeps at most MAX_TEXT_BYTES.
    let piece = "abcdefghij".repeat(100_000); // 1 MB
    let mut body = CREATED.to_string();
    let mut seq = 0u64;
    let mut next = || {
        seq += 1;
        seq.to_string()
    };
    body += &event(
        "response.output_item.added",
        &next(),
        r#","output_index":0,"item":{"id":"m","type":"message","status":"in_progress","content":[],"role":"assistant"}"#,
    );
    body += &event(
        "response.content_part.added",
        &next(),
        r#","item_id":"m","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"text":""}"#,
    );
    for _ in 0..6 {
        body += &event(
            "response.output_text.delta",
            &next(),
            &format!(
                r#","item_id":"m","output_index":0,"content_index":0,"delta":"{piece}","logprobs":[]"#
            ),
        );
    }
    let mut full = piece.repeat(6);
    full.pop();
    full.push('!');
    body += &event(
        "response.output_text.done",
        &next(),
        &format!(
            r#","item_id":"m","output_index":0,"content_index":0,"text":"{full}","logprobs":[]"#
        ),
    );
    let r = lint_bytes(body.as_bytes());
    let m = messages(&r, "responses-delta-mismatch");
    assert_eq!(m.len(), 1, "{:?}", rules(&r));
    assert!(m[0].contains("6000000 bytes"), "{}", m[0]);
    let c = &r.streams[0].answer.choices[&0];
    assert!(c.text.kept.len() <= MAX_TEXT_BYTES);
    assert!(c.text.dropped > 0);
}

#[test]
fn a_stream_of_distinct_vendor_events_is_reported_within_the_limit() {
    let mut body = CREATED.to_string();
    for i in 0..5_000 {
        body += &event(&format!("vendor.note_{i}"), &(i + 1).to_string(), "");
    }
    let r = lint_bytes(body.as_bytes());
    let s = &r.streams[0];
    let kept = s
        .diagnostics
        .iter()
        .filter(|d| d.rule == "responses-unknown-event")
        .count();
    let omitted = s
        .omitted
        .get("responses-unknown-event")
        .copied()
        .unwrap_or(0);
    assert!(kept <= 20, "{kept}");
    assert_eq!(kept as u64 + omitted, 5_000);
    assert_eq!(s.ending, Ending::CutOff);
}

#[test]
fn open_responses_requires_done_named_events_and_no_ids() {
    let text = std::fs::read_to_string(sample("good/responses-text.sse")).unwrap();
    // No [DONE]: a warning under open-responses, nothing under openai.
    let open = lint_with(text.as_bytes(), &under("open-responses"));
    assert_eq!(rules(&open), [("responses-done-marker", Severity::Warning)]);
    assert!(rules(&lint_bytes(text.as_bytes())).is_empty());
    // With [DONE] it is clean.
    let with_done = format!("{text}data: [DONE]\n\n");
    assert!(rules(&lint_with(with_done.as_bytes(), &under("open-responses"))).is_empty());
    // Events without names, and id: lines, are warnings there, infos or
    // nothing by default.
    let unnamed: String = with_done
        .lines()
        .filter(|l| !l.starts_with("event: "))
        .map(|l| format!("{l}\n"))
        .collect();
    let open = lint_with(unnamed.as_bytes(), &under("open-responses"));
    assert_eq!(rules(&open), [("responses-event-name", Severity::Warning)]);
    assert!(rules(&lint_bytes(unnamed.as_bytes())).is_empty());
    let with_ids = with_done.replace("\ndata: {", "\nid: 7\ndata: {");
    assert_eq!(
        rules(&lint_with(with_ids.as_bytes(), &under("open-responses"))),
        [("responses-event-id", Severity::Warning)]
    );
    assert_eq!(
        rules(&lint_bytes(with_ids.as_bytes())),
        [("responses-event-id", Severity::Info)]
    );
}

#[test]
fn openrouter_may_close_after_done_without_a_terminal_event_as_a_warning() {
    let text = std::fs::read_to_string(sample("providers/openrouter-responses.sse")).unwrap();
    let cut: String = text
        .split("\n\n")
        .filter(|b| !b.contains("\"response.completed\""))
        .map(|b| format!("{b}\n\n"))
        .collect::<String>()
        .trim_end()
        .to_string()
        + "\n\n";
    let default = lint_bytes(cut.as_bytes());
    assert_eq!(rules(&default), [("responses-cut-off", Severity::Error)]);
    let m = &messages(&default, "responses-cut-off")[0];
    assert!(
        m.contains("sent `[DONE]` and closed") && m.contains("characters of text"),
        "{m}"
    );
    let own = lint_with(cut.as_bytes(), &under("openrouter-responses"));
    assert_eq!(rules(&own), [("responses-cut-off", Severity::Warning)]);
    assert_eq!(own.streams[0].ending, Ending::CutOff);
}

/// Azure OpenAI and GitHub Copilot echo the request's penalties on the
/// response as Ollama does (vercel/ai's recorded Azure and Copilot
/// streams, `azure-gpt5-reasoning-multi-summary-no-encryption.chunks.txt`
/// and `github-copilot-id-rotation.1.chunks.txt`): the finding names every
/// provider and every profile, and each of those profiles expects the
/// field (an Azure stream was told the field is Ollama's).
#[test]
fn a_field_several_providers_send_names_each_and_each_profile_expects_it() {
    let basic = std::fs::read_to_string(sample("good/responses-basic.sse")).unwrap();
    let body = basic.replace(
        r#""object":"response","#,
        r#""object":"response","frequency_penalty":0.0,"#,
    );
    assert_ne!(body, basic);
    let r = lint_bytes(body.as_bytes());
    let m = messages(&r, "responses-unknown-field");
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(
        m[0].contains("a field Azure OpenAI, GitHub Copilot and Ollama add"),
        "{}",
        m[0]
    );
    for p in ["azure-responses", "copilot-responses", "ollama-responses"] {
        assert!(m[0].contains(&format!("`--profile {p}`")), "{}", m[0]);
        let own = lint_with(body.as_bytes(), &under(p));
        assert!(
            messages(&own, "responses-unknown-field").is_empty(),
            "--profile {p}: {:?}",
            rules(&own)
        );
    }
}

#[test]
fn a_known_vendor_event_names_its_provider_and_is_info_under_its_profile() {
    // vLLM's reasoning part events around a reasoning item's text.
    let mut body = CREATED.to_string();
    let rs = r#","item_id":"rs_0","output_index":0,"content_index":0"#;
    body += &event(
        "response.output_item.added",
        "1",
        r#","output_index":0,"item":{"id":"rs_0","type":"reasoning","summary":[]}"#,
    );
    body += &event(
        "response.reasoning_part.added",
        "2",
        &format!(r#"{rs},"part":{{"type":"reasoning_text","text":""}}"#),
    );
    body += &event(
        "response.reasoning_text.delta",
        "3",
        &format!(r#"{rs},"delta":"Think.""#),
    );
    body += &event(
        "response.reasoning_text.done",
        "4",
        &format!(r#"{rs},"text":"Think.""#),
    );
    body += &event(
        "response.reasoning_part.done",
        "5",
        &format!(r#"{rs},"part":{{"type":"reasoning_text","text":"Think."}}"#),
    );
    body += &event(
        "response.output_item.done",
        "6",
        r#","output_index":0,"item":{"id":"rs_0","type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":"Think."}]}"#,
    );
    let mut seq = 6;
    body += &message(1, &mut seq, "Hi");
    body += &completed(
        seq + 1,
        r#"[{"id":"rs_0","type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":"Think."}]},{"id":"msg_1","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"text":"Hi"}],"role":"assistant"}]"#,
    );
    let r = lint_bytes(body.as_bytes());
    let m = messages(&r, "responses-unknown-event");
    assert_eq!(m.len(), 2);
    assert!(
        m[0].contains("vLLM") && m[0].contains("--profile vllm-responses"),
        "{}",
        m[0]
    );
    // One finding per type; nothing else is wrong with the stream.
    assert_eq!(
        rules(&r),
        [
            ("responses-unknown-event", Severity::Error),
            ("responses-unknown-event", Severity::Error)
        ]
    );
    let c = &r.streams[0].answer.choices[&0];
    assert_eq!(
        (c.text.kept.as_str(), c.reasoning.kept.as_str()),
        ("Hi", "Think.")
    );
    let own = lint_with(body.as_bytes(), &under("vllm-responses"));
    assert_eq!(
        rules(&own),
        [
            ("responses-unknown-event", Severity::Info),
            ("responses-unknown-event", Severity::Info)
        ]
    );
}

#[test]
fn dialect_responses_forces_the_responses_rules_on_a_stream_that_sniffs_otherwise() {
    // An error-only stream is neutral: by default it is read as Chat; with
    // `--dialect responses` it is a Responses failure.
    let body = "data: {\"type\":\"error\",\"sequence_number\":0,\"error\":{\"type\":\"server_error\",\"code\":\"server_error\",\"message\":\"boom\",\"param\":null}}\n\n";
    let auto = lint_bytes(body.as_bytes());
    assert_eq!(auto.streams[0].dialect, Some(Dialect::Chat));
    assert!(rules(&auto).iter().any(|(r, _)| *r == "error-event"));
    let forced = lint_with(
        body.as_bytes(),
        &Settings {
            dialect: Some(Dialect::Responses),
            ..Settings::default()
        },
    );
    assert_eq!(forced.streams[0].dialect, Some(Dialect::Responses));
    assert_eq!(rules(&forced), [("responses-error-event", Severity::Error)]);
    assert_eq!(forced.streams[0].ending, Ending::Failed);
    // And through the command line, on a shipped sample read as Chat.
    let out = assert_cmd::Command::cargo_bin("sselint")
        .unwrap()
        .args(["check", "--format", "json", "--fail-on", "never"])
        .args(["--dialect", "responses"])
        .arg(sample("good/openai-basic.sse"))
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &v["files"][0]["streams"][0];
    assert_eq!(s["dialect"], "responses");
    let found: Vec<&str> = s["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap())
        .collect();
    assert!(found.contains(&"responses-missing-field"), "{found:?}");
    assert!(found.contains(&"responses-cut-off"), "{found:?}");
}

#[test]
fn an_event_before_response_created_is_one_finding_whether_or_not_the_dialect_was_known() {
    let text = std::fs::read_to_string(sample("bad/responses-created-first.sse")).unwrap();
    let auto = lint_bytes(text.as_bytes());
    assert_eq!(rules(&auto), [("responses-created-first", Severity::Error)]);
    // Known from the start (as from a request URL), the vendor event is
    // seen as an event too: it is also an unknown event type.
    let forced = lint_with(
        text.as_bytes(),
        &Settings {
            dialect: Some(Dialect::Responses),
            ..Settings::default()
        },
    );
    let found = rules(&forced);
    assert!(
        found.contains(&("responses-created-first", Severity::Error)),
        "{found:?}"
    );
    let m = &messages(&forced, "responses-created-first")[0];
    assert!(m.contains("`codex.rate_limits`"), "{m}");
}

#[test]
fn findings_point_at_the_bytes_they_are_about() {
    let text = std::fs::read_to_string(sample("bad/responses-sequence-number.sse")).unwrap();
    let r = lint_bytes(text.as_bytes());
    let d = diags(&r)
        .into_iter()
        .find(|d| d.rule == "responses-sequence-number")
        .unwrap();
    let line = text.lines().nth(d.location.line as usize - 1).unwrap();
    let at = &line[d.location.column as usize - 1..];
    assert!(at.starts_with("3,"), "{at}");
    assert_eq!(d.pointer.as_deref(), Some("/sequence_number"));
}

#[test]
fn an_incomplete_response_is_one_warning_and_its_cut_call_a_warning() {
    // A function call cut by max_output_tokens: `responses-incomplete`
    // says so (a warning, as a budget cut is in every dialect); the
    // arguments that do not parse are a warning, and the item left open is
    // not reported again.
    let mut body = CREATED.to_string();
    body += &event(
        "response.output_item.added",
        "1",
        r#","output_index":0,"item":{"id":"fc_0","type":"function_call","status":"in_progress","arguments":"","call_id":"call_0","name":"f"}"#,
    );
    body += &event(
        "response.function_call_arguments.delta",
        "2",
        r#","item_id":"fc_0","output_index":0,"delta":"{\"city\":\"Par""#,
    );
    body += &event(
        "response.incomplete",
        "3",
        r#","response":{"id":"resp_1","object":"response","created_at":1700000000,"status":"incomplete","error":null,"incomplete_details":{"reason":"max_output_tokens"},"instructions":null,"model":"m","output":[{"id":"fc_0","type":"function_call","status":"incomplete","arguments":"{\"city\":\"Par","call_id":"call_0","name":"f"}],"parallel_tool_calls":true,"temperature":1.0,"tool_choice":"auto","tools":[],"top_p":1.0,"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2},"metadata":{}}"#,
    );
    let r = lint_bytes(body.as_bytes());
    assert_eq!(
        rules(&r),
        [
            ("responses-incomplete", Severity::Warning),
            ("responses-arguments-json", Severity::Warning)
        ]
    );
    let s = &r.streams[0];
    assert_eq!(s.ending, Ending::Complete);
    assert_eq!(
        s.answer.choices[&0].finish_reason.as_deref(),
        Some("incomplete: max_output_tokens")
    );
}

#[test]
fn arguments_only_in_their_done_event_are_an_error_and_info_under_lm_studio() {
    let p = sample("providers/lmstudio-responses.sse");
    let r = lint_file(&p);
    assert_eq!(rules(&r), [("responses-done-only", Severity::Error)]);
    let m = &messages(&r, "responses-done-only")[0];
    assert!(m.contains("output_index 1's arguments"), "{m}");
    let own = lint_file_with(&p, &under("lmstudio-responses"));
    assert_eq!(rules(&own), [("responses-done-only", Severity::Info)]);
    // The answer holds the arguments all the same.
    let c = &r.streams[0].answer.choices[&0];
    assert_eq!(c.tool_calls[&0].arguments, r#"{"query":"borrow checker"}"#);
}

/// Everything a result holds, as text.
fn outcome(r: &FileResult) -> String {
    format!("{r:#?}")
}

fn typed(on: bool) -> Settings {
    Settings {
        typed: on,
        ..Settings::default()
    }
}

/// A stream with a message (content part 0 open), a reasoning item
/// (summary part 0 open) and a function call, then `middle` twice under
/// `name` (or unnamed), then the done events and `response.completed`.
fn around_delta(name: Option<&str>, middle: &str) -> String {
    let mut body = CREATED.to_string();
    let mut seq = 0u64;
    let mut next = || {
        seq += 1;
        seq.to_string()
    };
    body += &event(
        "response.output_item.added",
        &next(),
        r#","output_index":0,"item":{"id":"msg_0","type":"message","status":"in_progress","content":[],"role":"assistant"}"#,
    );
    body += &event(
        "response.content_part.added",
        &next(),
        r#","item_id":"msg_0","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"text":""}"#,
    );
    body += &event(
        "response.output_item.added",
        &next(),
        r#","output_index":1,"item":{"id":"rs_1","type":"reasoning","summary":[]}"#,
    );
    body += &event(
        "response.reasoning_summary_part.added",
        &next(),
        r#","item_id":"rs_1","output_index":1,"summary_index":0,"part":{"type":"summary_text","text":""}"#,
    );
    body += &event(
        "response.output_item.added",
        &next(),
        r#","output_index":2,"item":{"id":"fc_2","type":"function_call","status":"in_progress","arguments":"","call_id":"call_2","name":"f"}"#,
    );
    for _ in 0..2 {
        let data = middle.replace(
            "\"sequence_number\":5",
            &format!("\"sequence_number\":{}", next()),
        );
        match name {
            Some(n) => body += &format!("event: {n}\ndata: {data}\n\n"),
            None => body += &format!("data: {data}\n\n"),
        }
    }
    body += &event(
        "response.output_text.done",
        &next(),
        r#","item_id":"msg_0","output_index":0,"content_index":0,"text":"","logprobs":[]"#,
    );
    body += &completed(seq + 1, "[]");
    body
}

#[test]
fn a_responses_delta_mutated_in_any_way_lints_the_same_on_both_paths() {
    use serde_json::json;
    let deltas = [
        json!({"type":"response.output_text.delta","sequence_number":5,"item_id":"msg_0","output_index":0,"content_index":0,"delta":"Hi \"there\" \u{e9}","logprobs":[],"obfuscation":"ab"}),
        json!({"type":"response.refusal.delta","sequence_number":5,"item_id":"msg_0","output_index":0,"content_index":0,"delta":"No."}),
        json!({"type":"response.reasoning_summary_text.delta","sequence_number":5,"item_id":"rs_1","output_index":1,"summary_index":0,"delta":"hm"}),
        json!({"type":"response.reasoning_text.delta","sequence_number":5,"item_id":"rs_1","output_index":1,"content_index":0,"delta":"hm"}),
        json!({"type":"response.function_call_arguments.delta","sequence_number":5,"item_id":"fc_2","output_index":2,"delta":"{\"a\":"}),
    ];
    let mut variants: Vec<String> = Vec::new();
    for d in &deltas {
        variants.push(d.to_string());
        let mut muts = Vec::new();
        mutations(d, &mut Vec::new(), &mut muts, d);
        variants.extend(muts.into_iter().map(|(_, v)| v.to_string()));
        let mut extra = d.clone();
        extra["x_extra"] = json!(1);
        variants.push(extra.to_string());
        variants.push(d.to_string().replace("\"delta\":\"", "\"delta\":\"\\u0041"));
        variants.push(d.to_string().replacen('{', "{\"type\":\"x\",", 1));
    }
    assert!(variants.len() > 300, "{}", variants.len());
    // All of them at SSELINT_TEST_DEPTH=full, a spread of them by default.
    let variants = common::sample(variants, 80);
    let mut n = 0;
    for v in &variants {
        let ty = serde_json::from_str::<serde_json::Value>(v)
            .ok()
            .and_then(|j| j["type"].as_str().map(str::to_string))
            .unwrap_or_default();
        for name in [Some(ty.as_str()), Some("response.output_text.delta"), None] {
            let body = around_delta(name, v);
            assert_eq!(
                outcome(&lint_with(body.as_bytes(), &typed(true))),
                outcome(&lint_with(body.as_bytes(), &typed(false))),
                "{body}"
            );
            n += 1;
        }
    }
    assert_eq!(n, 3 * variants.len());
}

#[test]
fn a_compact_responses_delta_changed_byte_by_byte_lints_the_same_on_both_paths() {
    // The fast path reads a delta in OpenAI's compact form byte by byte
    // (dialect::compact), and any other form by its typed parse (the unit
    // tests in dialect::responses::fast show the unchanged seeds are read
    // that way; the test below, that such deltas are taken).
    let seeds = [
        r#"{"type":"response.output_text.delta","sequence_number":5,"item_id":"msg_0","output_index":0,"content_index":0,"delta":"Hi \"you\" \u00e9","logprobs":[],"obfuscation":"ab"}"#,
        r#"{"type":"response.reasoning_summary_text.delta","sequence_number":5,"item_id":"rs_1","output_index":1,"summary_index":0,"delta":"hm"}"#,
        r#"{"type":"response.function_call_arguments.delta","sequence_number":5,"item_id":"fc_2","output_index":2,"delta":"{\"a\":","obfuscation":"ab"}"#,
    ];
    let mut n = 0;
    let mut tried = 0;
    for seed in seeds {
        let ty = &seed[9..seed.find("\",\"seq").unwrap()];
        let changes = char_changes(seed);
        n += 1 + changes.len();
        // All of them at SSELINT_TEST_DEPTH=full, a spread of them by default.
        for v in std::iter::once(seed.to_string()).chain(common::sample(changes, 150)) {
            let body = around_delta(Some(ty), &v);
            let fast = lint_with(body.as_bytes(), &typed(true));
            assert_eq!(
                outcome(&fast),
                outcome(&lint_with(body.as_bytes(), &typed(false))),
                "{body}"
            );
            tried += 1;
        }
    }
    assert!(n > 3000, "{n}");
    assert!(tried > 300, "{tried}");
}

/// An [`Out`](sselint::dialect::Out) that locates nothing and keeps the
/// findings, to drive a checker by hand.
#[derive(Default)]
struct Bare(Vec<String>);

impl sselint::dialect::Out for Bare {
    fn report(&mut self, f: sselint::lint::Finding) {
        self.0.push(f.rule.to_string());
    }
    fn at_event(&self) -> sselint::lint::Location {
        sselint::lint::Location::default()
    }
    fn at_pointer(&self, _: &str, _: bool) -> sselint::lint::Location {
        sselint::lint::Location::default()
    }
    fn at_name(&self) -> sselint::lint::Location {
        sselint::lint::Location::default()
    }
    fn at_end(&self) -> sselint::lint::Location {
        sselint::lint::Location::default()
    }
    fn kind(&mut self, _: &'static str) {}
    fn muted(&mut self, _: &'static str) -> bool {
        false
    }
    fn profile(&self) -> &'static str {
        "openai"
    }
    fn allowed(&self, _pointer: &str) -> bool {
        false
    }
}

#[test]
fn the_fast_path_takes_ordinary_deltas_and_leaves_the_rest() {
    // Not vacuous: the comparison above means something only if ordinary
    // deltas do take the fast path.
    use sselint::dialect::Event;
    let body = around_delta(
        Some("response.output_text.delta"),
        r#"{"type":"response.output_text.delta","sequence_number":5,"item_id":"msg_0","output_index":0,"content_index":0,"delta":"Hi","logprobs":[],"obfuscation":"ab"}"#,
    );
    let mut c = Dialect::Responses.checker().unwrap();
    let mut out = Bare::default();
    let mut taken = Vec::new();
    for (i, block) in body.split("\n\n").filter(|b| !b.is_empty()).enumerate() {
        let name = block
            .lines()
            .find_map(|l| l.strip_prefix("event: "))
            .unwrap_or("message");
        let data = block
            .lines()
            .find_map(|l| l.strip_prefix("data: "))
            .unwrap();
        let ev = Event {
            index: Some(i as u64),
            name,
            named: true,
            id: None,
            data,
            json: None,
            done: false,
        };
        if c.fast(&ev, &mut out) {
            taken.push(name.to_string());
            continue;
        }
        let json: serde_json::Value = serde_json::from_str(data).unwrap();
        c.event(
            &Event {
                json: Some(&json),
                ..ev
            },
            &mut out,
        );
    }
    assert_eq!(
        taken,
        ["response.output_text.delta", "response.output_text.delta"]
    );
    // The only finding is the terminal `output: []` of this test stream.
    assert_eq!(out.0, ["responses-output-mismatch"]);
}

#[test]
fn logprobs_nested_past_the_depth_limit_are_invalid_json_on_either_path() {
    // Found by a fresh-user trial: the fast path skipped `logprobs`
    // without the depth limit.
    let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
    let body = format!(
        concat!(
            "event: response.created\ndata: {{\"type\":\"response.created\",\"sequence_number\":0,\"response\":{{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"in_progress\",\"output\":[]}}}}\n\n",
            "event: response.output_item.added\ndata: {{\"type\":\"response.output_item.added\",\"sequence_number\":1,\"output_index\":0,\"item\":{{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"status\":\"in_progress\",\"content\":[]}}}}\n\n",
            "event: response.content_part.added\ndata: {{\"type\":\"response.content_part.added\",\"sequence_number\":2,\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"part\":{{\"type\":\"output_text\",\"annotations\":[],\"text\":\"\"}}}}\n\n",
            "event: response.output_text.delta\ndata: {{\"type\":\"response.output_text.delta\",\"sequence_number\":3,\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"Hi\",\"logprobs\":{}}}\n\n",
        ),
        deep
    );
    let r = lint_bytes(body.as_bytes());
    let n = diags(&r)
        .iter()
        .filter(|d| d.rule == "invalid-json")
        .count();
    assert_eq!(
        n,
        1,
        "{:?}",
        diags(&r).iter().map(|d| d.rule).collect::<Vec<_>>()
    );
}

/// `responses-refusal` (issue 26: a refusal is a warning in Chat and
/// Responses alike): reported once per stream, at the first event that
/// shows a refusal part, whichever that is: a refusal delta to a part never
/// announced (the general path), or an item whose content holds the
/// refusal with no delta at all.
#[test]
fn a_refusal_is_one_warning_wherever_it_first_shows() {
    let added = event(
        "response.output_item.added",
        "1",
        r#","output_index":0,"item":{"id":"msg_0","type":"message","status":"in_progress","content":[],"role":"assistant"}"#,
    );
    let item = r#"{"id":"msg_0","type":"message","status":"completed","content":[{"type":"refusal","refusal":"No."}],"role":"assistant"}"#;
    let done = event(
        "response.output_item.done",
        "3",
        &format!(r#","output_index":0,"item":{item}"#),
    );
    let delta = event(
        "response.refusal.delta",
        "2",
        r#","item_id":"msg_0","output_index":0,"content_index":0,"delta":"No.""#,
    );
    let unannounced = format!(
        "{CREATED}{added}{delta}{done}{}",
        completed(4, &format!("[{item}]"))
    );
    let item_only = format!(
        "{CREATED}{added}{}{}",
        done.replace("\"sequence_number\":3", "\"sequence_number\":2"),
        completed(3, &format!("[{item}]"))
    );
    for (what, body) in [("unannounced", unannounced), ("item only", item_only)] {
        let r = lint_bytes(body.as_bytes());
        let found: Vec<_> = rules(&r)
            .into_iter()
            .filter(|(rule, _)| *rule == "responses-refusal")
            .collect();
        assert_eq!(
            found,
            vec![("responses-refusal", Severity::Warning)],
            "{what}: {:?}",
            rules(&r)
        );
    }
    let basic = lint_bytes(&std::fs::read(sample("good/responses-basic.sse")).unwrap());
    assert!(
        rules(&basic).iter().all(|(r, _)| *r != "responses-refusal"),
        "{:?}",
        rules(&basic)
    );
}
