//! Amazon Bedrock's ConverseStream over the AWS event-stream transport
//! (issue 37): the realistic stream assembles to its answer with no
//! finding, each documented fault is found at its byte (a frame that
//! fails its CRC, a cut frame, an exception frame mid-stream, a missing
//! `messageStop`), and the verdict does not depend on how the bytes
//! arrive.

mod common;
use common::*;
use sselint::dialect::Dialect;
use sselint::lint::Settings;
use sselint::model::assembly::Ending;
use sselint::pipeline::StreamResult;
use sselint::transport::eventstream::encode;

fn converse() -> Dialect {
    Dialect::parse("bedrock-converse").unwrap()
}

pub(crate) fn lint_in_reads(bytes: &[u8], step: usize) -> StreamResult {
    lint_stream_in_reads(bytes, step, &Settings::default())
}

pub(crate) fn lint(bytes: &[u8]) -> StreamResult {
    lint_in_reads(bytes, 0)
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

pub(crate) fn rules(s: &StreamResult) -> Vec<&'static str> {
    s.diagnostics.iter().map(|d| d.rule).collect()
}

/// A text answer: messageStart, two text deltas, the block's stop,
/// messageStop and metadata; each frame apart.
fn text_frames() -> Vec<Vec<u8>> {
    vec![
        ev("messageStart", r#"{"role":"assistant","p":"abcd"}"#),
        ev(
            "contentBlockDelta",
            r#"{"contentBlockIndex":0,"delta":{"text":"Rain forms"},"p":"ab"}"#,
        ),
        ev(
            "contentBlockDelta",
            r#"{"contentBlockIndex":0,"delta":{"text":" when vapour condenses."}}"#,
        ),
        ev("contentBlockStop", r#"{"contentBlockIndex":0}"#),
        ev("messageStop", r#"{"stopReason":"end_turn"}"#),
        ev(
            "metadata",
            r#"{"usage":{"inputTokens":12,"outputTokens":7,"totalTokens":19},"metrics":{"latencyMs":420}}"#,
        ),
    ]
}

#[test]
fn reasoning_text_and_a_tool_call_read_whole_with_no_finding() {
    let s = lint(&std::fs::read(root().join("samples/good/bedrock-converse.bin")).unwrap());
    assert_eq!(s.dialect, Some(converse()));
    assert!(s.diagnostics.is_empty(), "{:?}", rules(&s));
    let c = &s.answer.choices[&0];
    assert_eq!(c.reasoning.kept, "The user wants the weather in Oslo.");
    assert_eq!(c.text.kept, "Let me check the weather.");
    let call = &c.tool_calls[&0];
    assert_eq!(call.name.as_deref(), Some("get_weather"));
    assert_eq!(call.arguments, r#"{"city":"Oslo"}"#);
    assert_eq!(c.finish_reason.as_deref(), Some("tool_use"));
    assert_eq!(s.answer.usage.as_ref().unwrap()["totalTokens"], 508);
    assert_eq!(s.ending, Ending::Complete);
}

#[test]
fn a_frame_that_fails_its_crc_is_found_at_the_crc() {
    let frames = text_frames();
    let mut body = Vec::new();
    for (i, f) in frames.iter().enumerate() {
        let mut f = f.clone();
        if i == 2 {
            let n = f.len();
            f[n - 1] ^= 0x5a;
        }
        body.extend(f);
    }
    let crc_at = (frames[0].len() + frames[1].len() + frames[2].len() - 4) as u64;
    let s = lint(&body);
    assert_eq!(rules(&s), ["converse-frame"]);
    let d = &s.diagnostics[0];
    assert_eq!(d.location.byte_offset, crc_at);
    assert!(d.message.contains("message CRC"), "{}", d.message);
    assert_eq!(d.event_index, Some(2));
    // The frames around it still count: the stream ends as it should.
    assert_eq!(s.ending, Ending::Complete);
}

#[test]
fn a_frame_cut_at_the_end_is_one_finding_at_its_last_byte() {
    let frames = text_frames();
    let mut body: Vec<u8> = frames[..3].concat();
    body.extend_from_slice(&frames[3][..10]);
    let s = lint(&body);
    assert_eq!(rules(&s), ["converse-frame"], "{:?}", s.diagnostics);
    assert_eq!(s.diagnostics[0].location.byte_offset, body.len() as u64 - 1);
    assert_eq!(s.ending, Ending::CutOff);
}

#[test]
fn an_exception_frame_mid_stream_fails_the_stream() {
    let frames = text_frames();
    let mut body: Vec<u8> = frames[..2].concat();
    let start = body.len();
    body.extend(encode(
        &[
            (":exception-type", "modelStreamErrorException"),
            (":content-type", "application/json"),
            (":message-type", "exception"),
        ],
        br#"{"message":"The model failed to generate a response.","originalStatusCode":500}"#,
    ));
    let s = lint(&body);
    assert_eq!(rules(&s), ["converse-exception"]);
    let d = &s.diagnostics[0];
    assert!(
        d.message.contains("modelStreamErrorException"),
        "{}",
        d.message
    );
    // At its payload: after the 12 bytes of prelude and the headers.
    let headers = u32::from_be_bytes(body[start + 4..start + 8].try_into().unwrap()) as usize;
    assert_eq!(d.location.byte_offset, (start + 12 + headers) as u64);
    assert_eq!(s.ending, Ending::Failed);
}

/// An `error` frame (AWS's unmodeled error: `:error-code` and
/// `:error-message` headers, an empty payload, as botocore and the Rust SDK
/// read it) is the stream's exception, not a payload that is not JSON.
#[test]
fn an_error_frame_with_an_empty_payload_is_an_exception() {
    let frames = text_frames();
    let mut body: Vec<u8> = frames[..2].concat();
    let start = body.len();
    body.extend(encode(
        &[
            (":error-code", "InternalServerException"),
            (":error-message", "The service had an error."),
            (":message-type", "error"),
        ],
        b"",
    ));
    let s = lint(&body);
    assert_eq!(rules(&s), ["converse-exception"], "{:?}", s.diagnostics);
    let d = &s.diagnostics[0];
    assert!(
        d.message
            .contains("an error frame `InternalServerException`"),
        "{}",
        d.message
    );
    assert!(
        d.message.contains("The service had an error."),
        "{}",
        d.message
    );
    assert_eq!(d.event_index, Some(2));
    // At its payload, which is empty: just after the headers.
    let headers = u32::from_be_bytes(body[start + 4..start + 8].try_into().unwrap()) as usize;
    assert_eq!(d.location.byte_offset, (start + 12 + headers) as u64);
    assert_eq!(s.ending, Ending::Failed);
    assert_eq!(s.answer.choices[&0].text.kept, "Rain forms");
}

#[test]
fn a_stream_without_message_stop_is_cut_off() {
    let frames = text_frames();
    let s = lint(&frames[..4].concat());
    assert_eq!(rules(&s), ["converse-cut-off"]);
    assert_eq!(s.ending, Ending::CutOff);
    assert_eq!(
        s.answer.choices[&0].text.kept,
        "Rain forms when vapour condenses."
    );
}

/// Each sample's findings (rule and byte), ending and text are the same
/// read whole and in reads of each of `steps` bytes.
pub(crate) fn assert_same_verdict_in_reads(samples: &[&str], steps: &[usize]) {
    let verdict = |s: &StreamResult| {
        let found: Vec<(String, u64)> = s
            .diagnostics
            .iter()
            .map(|d| (d.rule.to_string(), d.location.byte_offset))
            .collect();
        (
            found,
            format!("{:?}", s.ending),
            s.answer.choices.get(&0).map(|c| c.text.kept.clone()),
        )
    };
    for name in samples {
        let body = std::fs::read(root().join("samples").join(name)).unwrap();
        let whole = verdict(&lint(&body));
        for step in steps {
            assert_eq!(
                whole,
                verdict(&lint_in_reads(&body, *step)),
                "{name} in reads of {step}"
            );
        }
    }
}

/// The `message` records `inspect --format jsonl` writes for `sample`.
pub(crate) fn inspected_messages(sample: &str) -> Vec<serde_json::Value> {
    let path = root().join("samples").join(sample);
    let (code, out, err) = sselint(&["inspect", "--format", "jsonl", path.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    out.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["type"] == "message")
        .collect()
}

#[test]
fn the_verdict_does_not_depend_on_how_the_bytes_arrive() {
    assert_same_verdict_in_reads(
        &[
            "good/bedrock-converse.bin",
            "bad/converse-frame.bin",
            "bad/converse-exception.bin",
            "bad/converse-tool-input.bin",
        ],
        &[1, 5, 13, 100],
    );
}

#[test]
fn inspect_shows_each_frame_with_its_event_type() {
    let frames = inspected_messages("good/bedrock-converse.bin");
    assert_eq!(frames.len(), 13);
    assert!(frames.iter().all(|f| f["transport"] == "eventstream"));
    assert_eq!(frames[0]["name"], "messageStart");
    assert_eq!(frames[0]["kind"], "role");
    assert_eq!(frames[11]["name"], "messageStop");
    assert_eq!(frames[11]["kind"], "finish");
}

/// `body` as `curl --trace` writes what it received: a header record,
/// then the body in data records of at most 400 bytes, 16 a line in hex.
pub(crate) fn curl_trace(head: &str, body: &[u8]) -> String {
    let mut t = String::from(
        "== Info: Connected to bedrock-runtime.us-east-1.amazonaws.com (203.0.113.7) port 443\n",
    );
    let hex_record = |t: &mut String, label: &str, bytes: &[u8]| {
        t.push_str(&format!(
            "{label}, {} bytes (0x{:x})\n",
            bytes.len(),
            bytes.len()
        ));
        for (i, row) in bytes.chunks(16).enumerate() {
            let hex: Vec<String> = row.iter().map(|b| format!("{b:02x}")).collect();
            let ascii: String = row
                .iter()
                .map(|b| {
                    if (0x20..0x7f).contains(b) {
                        *b as char
                    } else {
                        '.'
                    }
                })
                .collect();
            t.push_str(&format!(
                "{:04x}: {:<48}{ascii}\n",
                i * 16,
                hex.join(" ") + " "
            ));
        }
    };
    hex_record(&mut t, "<= Recv header", head.as_bytes());
    for piece in body.chunks(400) {
        hex_record(&mut t, "<= Recv data", piece);
    }
    t
}

#[test]
fn a_har_entry_a_gateway_log_and_a_curl_trace_read_as_the_raw_body() {
    let body = std::fs::read(root().join("samples/good/bedrock-converse.bin")).unwrap();
    let dir = scratch("converse-inputs");
    let b64 = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &body);
    let url = "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-sonnet-4-5%3A0/converse-stream";
    let har = serde_json::json!({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [{
        "startedDateTime": "2026-01-02T03:04:05.000Z", "time": 1900,
        "request": {"method": "POST", "url": url, "httpVersion": "HTTP/1.1", "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": -1,
            "postData": {"mimeType": "application/json", "text": "{\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":\"Weather in Oslo?\"}]}]}"}},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [{"name": "Content-Type", "value": "application/vnd.amazon.eventstream"}], "cookies": [],
            "content": {"size": body.len(), "mimeType": "application/vnd.amazon.eventstream", "text": b64, "encoding": "base64"}, "redirectURL": "", "headersSize": -1, "bodySize": -1},
        "cache": {}, "timings": {"send": 0, "wait": 400, "receive": 1500}}]}});
    let har_path = dir.join("converse.har");
    std::fs::write(&har_path, har.to_string()).unwrap();
    let raw = lint(&body);
    let same = |s: &StreamResult, what: &str| {
        assert_eq!(s.dialect, Some(converse()), "{what}");
        assert!(s.diagnostics.is_empty(), "{what}: {:?}", rules(s));
        assert_eq!(s.ending, Ending::Complete, "{what}");
        let c = &s.answer.choices[&0];
        assert_eq!(c.text.kept, raw.answer.choices[&0].text.kept, "{what}");
        assert_eq!(c.tool_calls[&0].arguments, r#"{"city":"Oslo"}"#, "{what}");
    };
    let r = lint_file(&har_path);
    assert_eq!(r.streams.len(), 1);
    same(&r.streams[0], "HAR");

    let trace = dir.join("converse.trace");
    std::fs::write(
        &trace,
        curl_trace(
            "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.amazon.eventstream\r\n\r\n",
            &body,
        ),
    )
    .unwrap();
    let r = lint_file(&trace);
    assert_eq!(r.streams.len(), 1);
    same(&r.streams[0], "curl --trace");

    // A gateway's log names the path and says the body is JSON: the path
    // and the bytes still say ConverseStream, and the content type is the
    // finding.
    let rec = serde_json::json!({"id": "r1", "status": 200, "headers": {"content-type": "application/json"}, "path": "/model/anthropic.claude-sonnet-4-5%3A0/converse-stream", "body_base64": b64});
    let (code, stream, out) = check_gateway_record(&dir, &rec);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(stream["dialect"], "bedrock-converse", "{out}");
    assert_eq!(stream["ending"], "complete", "{out}");
    assert_eq!(stream["choices"][0]["tool_calls"][0]["name"], "get_weather");
    let found: Vec<&str> = stream["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap())
        .collect();
    assert_eq!(found, ["content-type"], "{out}");
}

#[test]
fn a_rule_page_shows_binary_examples_as_frames_not_raw_bytes() {
    let (code, out, err) = sselint(&["rule", "converse-frame"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        !out.chars()
            .any(|c| c.is_control() && c != '\n' || c == char::REPLACEMENT_CHARACTER),
        "{out}"
    );
    assert!(
        out.contains("frame 2 at byte 299 (178 bytes) [:event-type=contentBlockDelta"),
        "{out}"
    );
    assert!(out.contains("! at byte 473: the message CRC is"), "{out}");
}

#[test]
fn redact_rewrites_the_frames_and_the_copy_reads_the_same() {
    let dir = scratch("converse-redact");
    let input = root().join("samples/bad/converse-frame.bin");
    let original = lint(&std::fs::read(&input).unwrap());
    for scrub in [false, true] {
        let out = dir.join(format!("copy-{scrub}.bin"));
        let mut args = vec![
            "redact",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ];
        if scrub {
            args.push("--scrub-text");
        }
        let (code, _, err) = sselint(&args);
        assert_eq!(code, Some(0), "{err}");
        let copy = lint(&std::fs::read(&out).unwrap());
        let found = |s: &StreamResult| s.diagnostics.iter().map(|d| d.rule).collect::<Vec<_>>();
        assert_eq!(found(&copy), found(&original));
        assert_eq!(copy.ending, original.ending);
        let text = &copy.answer.choices[&0].text.kept;
        if scrub {
            assert!(!text.contains("Rain"), "{text}");
            assert_eq!(text.len(), "Rain forms".len());
        } else {
            assert_eq!(text, "Rain forms");
        }
    }
}

#[test]
fn redact_masks_sigv4_headers_and_keys_inside_invoke_chunks() {
    use base64::Engine as _;
    let dir = scratch("converse-sigv4");
    let key = "sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    let inner = format!(
        r#"{{"type":"error","error":{{"type":"invalid_request_error","message":"bad key {key}"}}}}"#
    );
    let b64 = base64::engine::general_purpose::STANDARD.encode(&inner);
    let body = sselint::transport::eventstream::encode(
        &[(":event-type", "chunk"), (":message-type", "event")],
        format!(r#"{{"bytes":"{b64}","p":"abc"}}"#).as_bytes(),
    );
    let body64 = base64::engine::general_purpose::STANDARD.encode(&body);
    let sig = "Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4cb5b4c3a7b2d4e0b3f8c9a1";
    let har = serde_json::json!({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [{
        "startedDateTime": "2026-01-02T03:04:05.000Z", "time": 10,
        "request": {"method": "POST", "url": "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-sonnet-4-5/invoke-with-response-stream", "httpVersion": "HTTP/1.1",
            "headers": [
                {"name": "Authorization", "value": format!("AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20260102/us-east-1/bedrock/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-security-token, {sig}")},
                {"name": "X-Amz-Security-Token", "value": "IQoJb3JpZ2luX2VjEXAMPLESESSIONTOKEN"},
                {"name": "X-Amz-Date", "value": "20260102T030405Z"}],
            "queryString": [], "cookies": [], "headersSize": -1, "bodySize": -1},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [{"name": "Content-Type", "value": "application/vnd.amazon.eventstream"}], "cookies": [],
            "content": {"size": body.len(), "mimeType": "application/vnd.amazon.eventstream", "text": body64, "encoding": "base64"}, "redirectURL": "", "headersSize": -1, "bodySize": -1},
        "cache": {}, "timings": {"send": 0, "wait": 5, "receive": 5}}]}});
    let input = dir.join("bedrock.har");
    std::fs::write(&input, har.to_string()).unwrap();
    let out = dir.join("copy.har");
    let (code, _, err) = sselint(&[
        "redact",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let copy = std::fs::read_to_string(&out).unwrap();
    for secret in [
        "AKIAIOSFODNN7EXAMPLE",
        sig,
        "EXAMPLESESSIONTOKEN",
        "20260102T030405Z",
    ] {
        assert!(!copy.contains(secret), "{secret} in {copy}");
    }
    // The key inside the chunk's base64 is masked, and the frame still
    // reads: one Messages error event, its CRCs sound.
    let v: serde_json::Value = serde_json::from_str(&copy).unwrap();
    let text = v["log"]["entries"][0]["response"]["content"]["text"]
        .as_str()
        .unwrap();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap();
    assert!(!String::from_utf8_lossy(&bytes).contains(&b64));
    let s = lint(&bytes);
    assert!(!rules(&s).contains(&"invoke-frame"), "{:?}", rules(&s));
    assert!(!rules(&s).contains(&"invoke-chunk"), "{:?}", rules(&s));
    let (_, report, _) = sselint(&["check", "--format", "json", out.to_str().unwrap()]);
    assert!(!report.contains(key), "{report}");
    assert!(report.contains("[REDACTED]"), "{report}");
}

#[test]
fn redact_rewrites_the_frames_of_a_curl_i_dump_and_refuses_a_curl_v_one() {
    let dir = scratch("converse-redact-curl");
    let key = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
    let body = std::fs::read(root().join("samples/good/bedrock-converse.bin")).unwrap();
    // A key in the answer's text, in a frame of its own before messageStop.
    let f = text_frames();
    let mut with_key = f[..2].concat();
    with_key.extend(ev(
        "contentBlockDelta",
        &format!(r#"{{"contentBlockIndex":0,"delta":{{"text":" and {key}"}}}}"#),
    ));
    with_key.extend(f[2..].concat());
    for (name, frames) in [("sample", &body), ("key", &with_key)] {
        // `curl -i -o FILE`: the headers, then the binary body.
        let mut dump = b"HTTP/1.1 200 OK\r\nContent-Type: application/vnd.amazon.eventstream\r\nSet-Cookie: session=abcdef0123456789\r\n\r\n".to_vec();
        dump.extend(frames);
        let input = dir.join(format!("curl-i-{name}.txt"));
        std::fs::write(&input, &dump).unwrap();
        for scrub in [false, true] {
            let out = dir.join(format!("copy-{name}-{scrub}.txt"));
            let mut args = vec![
                "redact",
                input.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ];
            if scrub {
                args.push("--scrub-text");
            }
            let (code, _, err) = sselint(&args);
            assert_eq!(code, Some(0), "{err}");
            let copy = std::fs::read(&out).unwrap();
            let text = String::from_utf8_lossy(&copy);
            assert!(
                !text.contains(key) && !text.contains("abcdef0123456789"),
                "{text}"
            );
            assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{text}");
            // The copy reads as a curl -i dump of the same stream: every
            // frame whole, the same findings and ending.
            let (a, b) = (common::lint_bytes(&dump), common::lint_bytes(&copy));
            let (sa, sb) = (&a.streams[0], &b.streams[0]);
            assert_eq!(b.detail, "curl -i");
            assert_eq!(sa.ending, sb.ending);
            assert_eq!(rules(sa), rules(sb), "{name} {scrub}");
            assert!(!rules(sb).contains(&"converse-frame"));
            if !scrub {
                assert_eq!(
                    common::text0(&a).replace(key, ""),
                    common::text0(&b).replace("[REDACTED]", "").replace(key, "")
                );
            }
        }
    }
    // `curl -v … 2>&1`: curl's lines among the frames: refused.
    let mut dump = b"* Connected to bedrock-runtime.us-east-1.amazonaws.com\n< HTTP/1.1 200 OK\r\n< Content-Type: application/vnd.amazon.eventstream\r\n< \r\n".to_vec();
    dump.extend(&body);
    let input = dir.join("curl-v.txt");
    std::fs::write(&input, dump).unwrap();
    let out = dir.join("copy-v.txt");
    let (code, _, err) = sselint(&[
        "redact",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("a curl -v dump of an AWS event stream"),
        "{err}"
    );
    assert!(!out.exists());
}
