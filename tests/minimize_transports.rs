//! `sselint minimize` of a capture on another transport than SSE (issue
//! 37): Ollama's NDJSON is cut by whole lines and Bedrock's AWS
//! event-stream by whole frames; a frame whose payload is cut or scrubbed
//! is written anew with valid lengths and CRCs, except a frame whose
//! failing CRC is the finding kept, which keeps failing; no secret or
//! answer word survives, inside an Invoke chunk's base64 either.

mod common;

use base64::Engine as _;
use common::root;
use sselint::capture;
use sselint::lint::Settings;
use sselint::minimize::{self, Options, Outcome};
use sselint::transport::eventstream::encode;
use sselint::transport::{Message, Sink, Transport};
use std::sync::atomic::AtomicBool;

fn opts() -> Options {
    Options {
        rules: vec![],
        keep_text: false,
        max_steps: minimize::DEFAULT_MAX_STEPS,
        settings: Settings::default(),
        capture: capture::Options::default(),
    }
}

fn run(name: &str, bytes: &[u8]) -> Outcome {
    minimize::minimize(name, bytes, &opts(), &AtomicBool::new(false), &mut |_| {})
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn ev(ty: &str, json: &str) -> Vec<u8> {
    encode(
        &[
            (":event-type", ty),
            (":content-type", "application/json"),
            (":message-type", "event"),
        ],
        json.as_bytes(),
    )
}

/// Each frame of an event-stream body as its framer reads it: (event
/// type, payload, whether it was read without a fault).
fn frames(body: &[u8]) -> Vec<(String, String, bool)> {
    struct Got(Vec<(String, String, bool)>);
    impl Sink for Got {
        fn message(&mut self, m: &Message<'_>) {
            self.0
                .push((m.name.to_string(), m.data.to_string(), m.fault.is_none()));
        }
    }
    let t = Transport::of_bytes(body).expect("an event-stream body");
    let mut framer = t.framer(1 << 20).unwrap();
    let mut got = Got(Vec::new());
    framer.feed(body, &mut got);
    framer.finish(&mut got);
    got.0
}

/// The rules of a capture's findings at warning or above.
fn rules(bytes: &[u8]) -> Vec<&'static str> {
    let r = common::lint_bytes(bytes);
    common::rules_at_least(&r, sselint::lint::Severity::Warning)
}

/// A ConverseStream answer of `n` text deltas, its frames apart; the
/// text says `word` in each delta.
fn converse(n: usize, word: &str) -> Vec<Vec<u8>> {
    let mut f = vec![ev("messageStart", r#"{"role":"assistant","p":"abcd"}"#)];
    for i in 0..n {
        f.push(ev(
            "contentBlockDelta",
            &format!(
                r#"{{"contentBlockIndex":0,"delta":{{"text":"{word} number {i}. "}},"p":"abcdefgh"}}"#
            ),
        ));
    }
    f.push(ev("contentBlockStop", r#"{"contentBlockIndex":0}"#));
    f.push(ev("messageStop", r#"{"stopReason":"end_turn"}"#));
    f.push(ev(
        "metadata",
        r#"{"usage":{"inputTokens":12,"outputTokens":700,"totalTokens":712},"metrics":{"latencyMs":420}}"#,
    ));
    f
}

#[test]
fn every_frame_and_line_sample_is_cut_smaller_and_reads_as_before() {
    let mut seen = 0;
    for dir in ["bad"] {
        for p in common::samples(dir) {
            let name = p.to_string_lossy().into_owned();
            if !(name.ends_with(".bin") || name.ends_with(".ndjson")) {
                continue;
            }
            let bytes = std::fs::read(&p).unwrap();
            let before = rules(&bytes);
            if before.is_empty() || name.contains("event-too-large") {
                continue;
            }
            let out = run(&name, &bytes);
            assert!(
                out.output.len() < bytes.len(),
                "{name}: {} → {} bytes",
                bytes.len(),
                out.output.len()
            );
            assert_eq!(rules(&out.output), before, "{name}");
            // Every frame of the copy reads whole unless a frame's fault
            // is the finding kept.
            if name.ends_with(".bin") {
                let faulty = frames(&out.output).iter().filter(|f| !f.2).count();
                let kept_fault = before.iter().any(|r| r.ends_with("-frame"));
                assert_eq!(faulty > 0, kept_fault, "{name}: {:?}", frames(&out.output));
            } else {
                // Whole lines: every line of the copy ends with a newline
                // as every line of the input did.
                let text = String::from_utf8(out.output.clone()).unwrap();
                assert!(text.ends_with('\n') == String::from_utf8_lossy(&bytes).ends_with('\n'));
            }
            seen += 1;
        }
    }
    assert!(seen >= 16, "{seen}");
}

#[test]
fn a_frame_whose_crc_fails_is_kept_failing_and_the_rest_goes() {
    let mut f = converse(200, "Drizzle");
    // Frame 100's last byte (its message CRC) is off.
    let last = f[100].len() - 1;
    f[100][last] ^= 0x5a;
    let body = f.concat();
    assert_eq!(rules(&body), ["converse-frame"]);
    let out = run("long-crc.bin", &body);
    assert!(out.output.len() * 20 < body.len(), "{}", out.output.len());
    let got = frames(&out.output);
    assert_eq!(got.iter().filter(|f| !f.2).count(), 1, "{got:?}");
    assert_eq!(rules(&out.output), ["converse-frame"]);
    // The text inside the failing frame is scrubbed too.
    assert!(!String::from_utf8_lossy(&out.output).contains("Drizzle"));
}

#[test]
fn a_cut_frame_at_the_end_stays_cut_and_whole_frames_are_rewritten_valid() {
    let f = converse(50, "Sleet");
    let mut body = f[..40].concat();
    body.extend_from_slice(&f[40][..25]);
    assert_eq!(rules(&body), ["converse-frame"]);
    let out = run("cut-frame.bin", &body);
    assert!(out.output.len() * 5 < body.len());
    let got = frames(&out.output);
    // The cut frame is last, and the only one that does not read whole.
    assert!(!got.last().unwrap().2, "{got:?}");
    assert!(got[..got.len() - 1].iter().all(|f| f.2), "{got:?}");
    assert!(!String::from_utf8_lossy(&out.output).contains("Sleet"));
}

#[test]
fn a_long_ndjson_stream_is_cut_to_the_lines_that_show_its_fault() {
    let mut body = String::new();
    for i in 0..400 {
        body.push_str(&format!(
            r#"{{"model":"qwen3:8b","created_at":"2026-01-02T03:04:05.{i:03}Z","message":{{"role":"assistant","content":"Hail {i} "}},"done":false}}"#
        ));
        body.push('\n');
        if i == 200 {
            body.push_str("{\"model\":\"qwen3:8b\",\"message\":{\"content\":\"Hail\"\n");
        }
    }
    body.push_str(r#"{"model":"qwen3:8b","created_at":"2026-01-02T03:04:06Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":9,"eval_count":400}"#);
    body.push('\n');
    assert_eq!(rules(body.as_bytes()), ["ollama-invalid-line"]);
    let out = run("long.ndjson", body.as_bytes());
    let text = String::from_utf8(out.output).unwrap();
    assert!(text.lines().count() <= 3, "{text}");
    assert!(!text.contains("Hail"), "{text}");
    assert_eq!(rules(text.as_bytes()), ["ollama-invalid-line"]);
}

#[test]
fn secrets_in_frames_and_inside_invoke_chunks_never_reach_the_copy() {
    let key = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
    // ConverseStream: a key in the text; the stream is cut off.
    let mut f = converse(20, "Mist");
    f[3] = ev(
        "contentBlockDelta",
        &format!(r#"{{"contentBlockIndex":0,"delta":{{"text":"the key is {key}"}}}}"#),
    );
    let body = f[..10].concat();
    let out = run("key.bin", &body);
    assert!(!String::from_utf8_lossy(&out.output).contains(key));
    assert!(!String::from_utf8_lossy(&out.output).contains("Mist"));
    // Invoke: the key inside a chunk's base64, in an exception-ended stream.
    let engine = base64::engine::general_purpose::STANDARD;
    let chunk = |event: &str| {
        ev(
            "chunk",
            &format!(r#"{{"bytes":"{}","p":"abc"}}"#, engine.encode(event)),
        )
    };
    let mut body = chunk(
        r#"{"type":"message_start","message":{"id":"msg_bdrk_01","type":"message","role":"assistant","content":[],"model":"claude","usage":{"input_tokens":5,"output_tokens":1}}}"#,
    );
    body.extend(chunk(
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
    ));
    body.extend(chunk(&format!(
        r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":"Fog and {key}"}}}}"#
    )));
    body.extend(encode(
        &[
            (":exception-type", "throttlingException"),
            (":content-type", "application/json"),
            (":message-type", "exception"),
        ],
        br#"{"message":"Too many requests"}"#,
    ));
    let before = rules(&body);
    assert!(before.contains(&"invoke-exception"), "{before:?}");
    let out = run("key-invoke.bin", &body);
    let mut inner = String::new();
    for (_, data, ok) in frames(&out.output) {
        assert!(ok);
        inner.push_str(&data);
        if let Some(b) = serde_json::from_str::<serde_json::Value>(&data)
            .ok()
            .and_then(|v| v["bytes"].as_str().map(str::to_string))
        {
            inner.push_str(&String::from_utf8(engine.decode(b).unwrap()).unwrap());
        }
    }
    assert!(!inner.contains(key), "{inner}");
    assert!(!inner.contains("Fog"), "{inner}");
    assert_eq!(rules(&out.output), before);
}

#[test]
fn the_cli_minimizes_a_har_entry_with_a_base64_event_stream_body() {
    let dir = common::scratch("minimize-transports-har");
    let body = std::fs::read(root().join("samples/bad/converse-tool-input.bin")).unwrap();
    let har = serde_json::json!({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [{
        "startedDateTime": "2026-01-01T00:00:00Z", "time": 1,
        "request": {"method": "POST", "url": "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-sonnet-4-5/converse-stream",
            "httpVersion": "HTTP/1.1", "cookies": [], "queryString": [], "headersSize": -1, "bodySize": -1,
            "headers": [{"name": "Authorization", "value": "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20260101/us-east-1/bedrock/aws4_request, SignedHeaders=host, Signature=0123456789abcdef"}]},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
            "headers": [{"name": "Content-Type", "value": "application/vnd.amazon.eventstream"}],
            "content": {"size": body.len(), "mimeType": "application/vnd.amazon.eventstream", "encoding": "base64",
                "text": base64::engine::general_purpose::STANDARD.encode(&body)},
            "redirectURL": "", "headersSize": -1, "bodySize": -1},
        "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}
    }]}});
    let input = dir.join("conv.har");
    std::fs::write(&input, serde_json::to_vec(&har).unwrap()).unwrap();
    let output = dir.join("conv.min.har");
    let (code, _, err) = common::sselint(&[
        "minimize",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let (code, out, _) = common::sselint(&["check", output.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, Some(1));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rules: Vec<&str> = v["files"][0]["streams"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["rule"].as_str())
        .collect();
    assert!(rules.contains(&"converse-tool-input"), "{v:#}");
    let copy = std::fs::read_to_string(&output).unwrap();
    assert!(!copy.contains("AKIAIOSFODNN7EXAMPLE") && !copy.contains("0123456789abcdef"));
}

#[test]
fn a_checksum_in_a_finding_is_one_opaque_number_to_the_fault_shape() {
    let a = "the message CRC is 0xe7566825, but the frame's bytes give 0x570cb9bf";
    let b = "the message CRC is 0x0badf00d, but the frame's bytes give 0x12345678";
    assert_eq!(minimize::message_shape(a), minimize::message_shape(b));
    assert_ne!(
        minimize::message_shape(a),
        minimize::message_shape("the prelude CRC is 0x01, but the frame's bytes give 0x02")
    );
}
