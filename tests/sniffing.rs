//! How a body's transport and dialect are settled (issue 37's fresh-user
//! trial): bytes that are unmistakably one transport beat the
//! Content-Type, the path and `--dialect`, and the names that are wrong
//! are reported (`content-type`, `path-dialect-mismatch`); bytes that
//! show no transport are framed as the names say, so a first frame's
//! fault is found at its byte; binary bytes nothing frames get one
//! finding that says what they are not. Each verdict holds whatever
//! pieces the bytes arrive in.

mod common;
use common::*;
use sselint::capture::{self, Body};
use sselint::dialect::Dialect;
use sselint::lint::Settings;
use sselint::model::assembly::Ending;
use sselint::pipeline::{lint_stream, NoObserver, StreamResult};
use sselint::transport::eventstream::encode;
use sselint::transport::Transport;
use std::io::Read;

fn dialect(name: &str) -> Option<Dialect> {
    Dialect::parse(name)
}

fn forced(name: &str) -> Settings {
    Settings {
        dialect: dialect(name),
        ..Settings::default()
    }
}

fn rules(s: &StreamResult) -> Vec<&'static str> {
    s.diagnostics.iter().map(|d| d.rule).collect()
}

/// A ConverseStream answer, frame by frame.
fn converse_frames() -> Vec<Vec<u8>> {
    let ev = |ty: &str, json: &str| {
        encode(
            &[
                (":event-type", ty),
                (":content-type", "application/json"),
                (":message-type", "event"),
            ],
            json.as_bytes(),
        )
    };
    vec![
        ev("messageStart", r#"{"role":"assistant"}"#),
        ev(
            "contentBlockDelta",
            r#"{"contentBlockIndex":0,"delta":{"text":"Rain forms."}}"#,
        ),
        ev("contentBlockStop", r#"{"contentBlockIndex":0}"#),
        ev("messageStop", r#"{"stopReason":"end_turn"}"#),
        ev(
            "metadata",
            r#"{"usage":{"inputTokens":3,"outputTokens":2,"totalTokens":5},"metrics":{"latencyMs":9}}"#,
        ),
    ]
}

const OLLAMA: &str = "{\"model\":\"m\",\"created_at\":\"t\",\"message\":{\"role\":\"assistant\",\"content\":\"Hi\"},\"done\":false}\n{\"model\":\"m\",\"created_at\":\"t\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\",\"prompt_eval_count\":3,\"eval_count\":1}\n";

const CHAT: &str = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";

/// A `curl -v` dump of `body` answered with `content_type`, to `path`
/// when given.
fn dump(path: Option<&str>, content_type: &str, body: &[u8]) -> Vec<u8> {
    let mut d = match path {
        Some(p) => format!(
            "> POST {p} HTTP/1.1\r\n> Host: h\r\n>\r\n< HTTP/1.1 200 OK\r\n< Content-Type: {content_type}\r\n<\r\n"
        ),
        None => format!("HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n\r\n"),
    }
    .into_bytes();
    d.extend_from_slice(body);
    d
}

/// The one stream of `bytes` (a capture) under `settings`, its body
/// handed to the pipeline in reads of `step` bytes, as `proxy` and a
/// slow pipe hand it (the capture reader gathers the first 64 KiB of a
/// file before the pipeline sees them).
fn lint_in_pieces(bytes: &[u8], step: usize, settings: &Settings) -> StreamResult {
    struct Trickle(Vec<u8>, usize, usize);
    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = (self.0.len() - self.1).min(self.2).min(buf.len());
            buf[..n].copy_from_slice(&self.0[self.1..self.1 + n]);
            self.1 += n;
            Ok(n)
        }
    }
    let mut cap = capture::from_reader(
        "stream",
        Box::new(std::io::Cursor::new(bytes.to_vec())),
        &capture::Options::default(),
    )
    .expect("reads as a capture");
    let mut s = cap.streams.remove(0);
    let body = match std::mem::replace(&mut s.body, Body::Bytes(Vec::new())) {
        Body::Bytes(b) => b,
        Body::Reader(mut r) => {
            let mut v = Vec::new();
            r.read_to_end(&mut v).unwrap();
            v
        }
    };
    s.body = Body::Reader(Box::new(Trickle(body, 0, step)));
    lint_stream(s, settings, &mut NoObserver)
}

/// The one stream of `bytes` under `settings`, read whole; the same body
/// handed over in pieces of 1, 5 and 13 bytes gives the same rules,
/// dialect and transport.
fn lint(bytes: &[u8], settings: &Settings) -> StreamResult {
    let whole = lint_stream_in_reads(bytes, 0, settings);
    for step in [1, 5, 13] {
        let s = lint_in_pieces(bytes, step, settings);
        assert_eq!(
            (rules(&s), s.dialect, s.transport),
            (rules(&whole), whole.dialect, whole.transport),
            "in reads of {step} bytes"
        );
    }
    whole
}

#[test]
fn event_stream_frames_sent_as_text_event_stream_are_read_as_frames() {
    let body = converse_frames().concat();
    let d = dump(None, "text/event-stream", &body);
    for settings in [Settings::default(), forced("bedrock-converse")] {
        let s = lint(&d, &settings);
        assert_eq!(s.transport, Transport::EventStream);
        assert_eq!(s.dialect, dialect("bedrock-converse"));
        assert_eq!(rules(&s), ["content-type"], "{:?}", s.diagnostics);
        let m = &s.diagnostics[0].message;
        assert!(
            m.contains("text/event-stream") && m.contains("application/vnd.amazon.eventstream"),
            "{m}"
        );
        assert_eq!(s.ending, Ending::Complete);
        assert_eq!(s.answer.choices[&0].text.kept, "Rain forms.");
    }
}

#[test]
fn an_sse_body_sent_as_ndjson_is_read_as_sse() {
    let s = lint(
        &dump(None, "application/x-ndjson", CHAT.as_bytes()),
        &Settings::default(),
    );
    assert_eq!(s.transport, Transport::Sse);
    assert_eq!(s.dialect, dialect("chat"));
    assert_eq!(rules(&s), ["content-type"], "{:?}", s.diagnostics);
    assert!(
        s.diagnostics[0].message.contains("application/x-ndjson"),
        "{}",
        s.diagnostics[0].message
    );
    // And an Ollama body sent as an event stream is read as its lines.
    let s = lint(
        &dump(None, "text/event-stream", OLLAMA.as_bytes()),
        &Settings::default(),
    );
    assert_eq!(s.transport, Transport::Ndjson);
    assert_eq!(s.dialect, dialect("ollama"));
    assert_eq!(rules(&s), ["content-type"], "{:?}", s.diagnostics);
}

#[test]
fn a_path_of_another_dialect_than_the_body_is_reported_at_the_first_message() {
    let frames = converse_frames();
    let payload_at = |f: &[u8]| {
        let headers = u32::from_be_bytes([f[4], f[5], f[6], f[7]]) as u64;
        12 + headers
    };
    let es = "application/vnd.amazon.eventstream";
    for path in [
        "/v1/chat/completions",
        "/api/chat",
        "/model/m/invoke-with-response-stream",
    ] {
        let s = lint(
            &dump(Some(path), es, &frames.concat()),
            &Settings::default(),
        );
        assert_eq!(s.dialect, dialect("bedrock-converse"), "{path}");
        assert_eq!(
            rules(&s),
            ["path-dialect-mismatch"],
            "{path}: {:?}",
            s.diagnostics
        );
        let d = &s.diagnostics[0];
        assert_eq!(d.location.byte_offset, payload_at(&frames[0]), "{path}");
        assert_eq!(d.event_index, Some(0));
        assert!(
            d.message.contains(path) && d.message.contains("`messageStart`"),
            "{}",
            d.message
        );
        assert_eq!(s.ending, Ending::Complete, "{path}");
    }
    for path in ["/v1/chat/completions", "/model/m/converse-stream"] {
        let s = lint(
            &dump(Some(path), "application/x-ndjson", OLLAMA.as_bytes()),
            &Settings::default(),
        );
        assert_eq!(s.dialect, dialect("ollama"), "{path}");
        assert_eq!(
            rules(&s),
            ["path-dialect-mismatch"],
            "{path}: {:?}",
            s.diagnostics
        );
        assert_eq!(s.diagnostics[0].location.byte_offset, 0);
        assert_eq!(s.ending, Ending::Complete, "{path}");
    }
    // The path's own body, and `--dialect`, say nothing of the path.
    let s = lint(
        &dump(Some("/api/chat"), "application/x-ndjson", OLLAMA.as_bytes()),
        &Settings::default(),
    );
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    let s = lint(
        &dump(Some("/v1/chat/completions"), es, &frames.concat()),
        &forced("bedrock-converse"),
    );
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
}

#[test]
fn a_first_frame_that_fails_is_found_at_its_byte_when_a_name_says_event_stream() {
    let mut bad_crc = converse_frames().concat();
    bad_crc[9] ^= 0x55;
    // The Content-Type says SSE, `--dialect` says ConverseStream.
    let d = dump(None, "text/event-stream", &bad_crc);
    let head = (d.len() - bad_crc.len()) as u64;
    let s = lint(&d, &forced("bedrock-converse"));
    assert_eq!(s.transport, Transport::EventStream);
    let found: Vec<_> = rules(&s)
        .into_iter()
        .filter(|r| *r != "content-type")
        .collect();
    assert_eq!(found, ["converse-frame"], "{:?}", s.diagnostics);
    let d = s
        .diagnostics
        .iter()
        .find(|d| d.rule == "converse-frame")
        .unwrap();
    assert_eq!(d.location.byte_offset, head + 8);
    assert!(d.message.contains("prelude CRC"), "{}", d.message);
    // Lengths no frame can have, at a ConverseStream path sent as SSE.
    let mut bad_len = converse_frames().concat();
    bad_len[..4].copy_from_slice(&4u32.to_be_bytes());
    let crc = crc32fast::hash(&bad_len[..8]).to_be_bytes();
    bad_len[8..12].copy_from_slice(&crc);
    let s = lint(
        &dump(
            Some("/model/m/converse-stream"),
            "text/event-stream",
            &bad_len,
        ),
        &Settings::default(),
    );
    assert_eq!(s.transport, Transport::EventStream);
    assert_eq!(s.dialect, dialect("bedrock-converse"));
    let d = s
        .diagnostics
        .iter()
        .find(|d| d.rule == "converse-frame")
        .expect("converse-frame");
    assert_eq!(d.location.byte_offset, 0);
}

#[test]
fn a_body_cut_inside_its_first_prelude_is_a_cut_event_stream() {
    let body = &converse_frames()[0][..7];
    let s = lint(
        &dump(Some("/model/m/converse-stream"), "text/event-stream", body),
        &Settings::default(),
    );
    assert_eq!(s.transport, Transport::EventStream);
    let d = s
        .diagnostics
        .iter()
        .find(|d| d.rule == "converse-frame")
        .expect("converse-frame");
    assert_eq!(d.location.byte_offset, 6);
    assert!(d.message.contains("7 of its 12 bytes"), "{}", d.message);
    assert!(!rules(&s).contains(&"body-not-sse"), "{:?}", rules(&s));
}

#[test]
fn a_prelude_that_holds_a_newline_byte_is_read_alike_in_any_pieces() {
    // 266 bytes in all: the prelude's fourth byte is 0x0a.
    let payload = format!("{{\"role\":\"assistant\",\"p\":\"{}\"}}", "a".repeat(141));
    let mut f = encode(
        &[
            (":event-type", "messageStart"),
            (":content-type", "application/json"),
            (":message-type", "event"),
        ],
        payload.as_bytes(),
    );
    assert_eq!(f[3], b'\n');
    f.extend(converse_frames()[1..].concat());
    let s = lint(&f, &Settings::default());
    assert_eq!(s.transport, Transport::EventStream);
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
}

#[test]
fn an_ollama_stream_whose_first_line_is_over_64_kib_is_told_by_its_bytes() {
    let long = "x".repeat(70 * 1024);
    let body = format!(
        "{{\"model\":\"m\",\"created_at\":\"t\",\"message\":{{\"role\":\"assistant\",\"content\":\"{long}\"}},\"done\":false}}\n{}",
        OLLAMA.lines().nth(1).unwrap()
    ) + "\n";
    let s = lint_stream_in_reads(body.as_bytes(), 0, &Settings::default());
    assert_eq!(s.transport, Transport::Ndjson);
    assert_eq!(s.dialect, dialect("ollama"));
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    assert_eq!(s.answer.choices[&0].text.kept.len(), long.len());
    let split = lint_in_pieces(body.as_bytes(), 4096, &Settings::default());
    assert_eq!(
        (split.transport, rules(&split)),
        (Transport::Ndjson, vec![])
    );
    // A .ndjson file in a folder is found and read so too.
    let dir = scratch("sniff-long-line");
    std::fs::write(dir.join("long.ndjson"), &body).unwrap();
    let (code, out, err) = sselint(&[
        "check",
        "--no-config",
        "--format",
        "json",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["files"][0]["streams"][0]["dialect"], "ollama", "{out}");
}

#[test]
fn binary_bytes_nothing_frames_are_one_finding_that_says_what_they_are_not() {
    let random: Vec<u8> = (0..3000u32)
        .map(|i| ((i * 7919 + 13) % 256) as u8)
        .collect();
    let mut bad_crc = converse_frames().concat();
    bad_crc[9] ^= 0x55;
    for body in [random, bad_crc] {
        let s = lint(&body, &Settings::default());
        assert_eq!(rules(&s), ["body-not-sse"], "{:?}", s.diagnostics);
        let m = &s.diagnostics[0].message;
        assert!(m.contains("binary") && m.contains("not SSE text"), "{m}");
        assert_eq!(s.dialect, None);
    }
}

#[test]
fn an_empty_ndjson_body_says_what_an_empty_event_stream_says() {
    let sse = lint(&dump(None, "text/event-stream", b""), &Settings::default());
    let ndjson = lint(
        &dump(None, "application/x-ndjson", b""),
        &Settings::default(),
    );
    assert_eq!(rules(&sse), ["empty-body"]);
    assert_eq!(rules(&ndjson), rules(&sse));
    assert_eq!(ndjson.dialect, None);
    // Named by `--dialect`, it is that dialect's empty stream.
    let named = lint(&dump(None, "application/x-ndjson", b""), &forced("ollama"));
    assert_eq!(rules(&named), ["ollama-cut-off"]);
}
