//! What the reports and `inspect` say of binary (AWS event-stream) and
//! NDJSON streams (fresh-user trial of issue 37): a finding in a binary
//! body points at its byte and frame in every format, JSON names the
//! input's real format, `inspect` shows each frame's headers and the event
//! an Invoke chunk wraps.

mod common;
use common::{root, sselint};
use serde_json::Value;

/// `check --format FORMAT` of `path` (relative to the repository), its
/// standard output.
fn check(path: &str, format: &str) -> String {
    let p = root().join(path);
    let (code, out, err) = sselint(&[
        "check",
        "--format",
        format,
        "--fail-on",
        "never",
        p.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{path} {format}: {err}");
    out
}

/// The first diagnostic of `path`'s JSON report, and the report.
fn first_finding(path: &str) -> (Value, Value) {
    let doc: Value = serde_json::from_str(&check(path, "json")).unwrap();
    let d = doc["files"][0]["streams"][0]["diagnostics"][0].clone();
    assert!(d.is_object(), "{path}: no finding: {doc}");
    (d, doc)
}

#[test]
fn a_finding_in_a_binary_body_points_at_its_byte_and_frame_in_every_format() {
    // invoke-chunk: a finding inside a frame's payload (its `bytes`);
    // invoke-frame: one at a CRC the transport checks.
    for path in [
        "samples/bad/invoke-chunk.bin",
        "samples/bad/invoke-frame.bin",
    ] {
        let (d, doc) = first_finding(path);
        let byte = d["byte_offset"].as_u64().unwrap();
        let frame = d["event_index"].as_u64().unwrap();
        let at = format!("byte {byte} (frame {frame})");
        // JSON: the input is an event stream, not SSE; a binary body has
        // no lines, so line 1 and the column is the byte's.
        assert_eq!(doc["files"][0]["input_format"], "eventstream", "{path}");
        assert_eq!(d["line"], 1, "{path}");
        assert_eq!(d["column"].as_u64(), Some(byte + 1), "{path}");
        let full = root().join(path);
        let shown = full.to_str().unwrap();
        // Human: FILE:@BYTE, never FILE:1:COLUMN.
        let human = check(path, "human");
        assert!(
            human.contains(&format!("--> {shown}:@{byte} (frame {frame})")),
            "{path}: {human}"
        );
        assert!(!human.contains(&format!("{shown}:1:")), "{path}: {human}");
        assert!(
            !human.contains("\n1 |"),
            "{path}: a binary body has no line 1: {human}"
        );
        // JUnit: the byte and the frame, not a line and column.
        let junit = check(path, "junit");
        assert!(junit.contains(&format!("at {at}")), "{path}: {junit}");
        assert!(!junit.contains("at line 1, column"), "{path}: {junit}");
        // GitHub: a file annotation (no line of a binary file to mark),
        // the byte and frame leading the message.
        let gh = check(path, "github");
        let line = gh.lines().next().unwrap();
        assert!(!line.contains(",line="), "{path}: {line}");
        assert!(!line.contains(",col="), "{path}: {line}");
        assert!(line.contains(&format!("::{at}: ")), "{path}: {line}");
        // SARIF: a binary region (byteOffset, byteLength), no column.
        let sarif: Value = serde_json::from_str(&check(path, "sarif")).unwrap();
        let r = &sarif["runs"][0]["results"][0];
        let region = &r["locations"][0]["physicalLocation"]["region"];
        assert_eq!(
            region["byteOffset"].as_u64(),
            Some(byte),
            "{path}: {region}"
        );
        assert_eq!(region["byteLength"], d["byte_len"], "{path}: {region}");
        assert!(region.get("startColumn").is_none(), "{path}: {region}");
        assert!(
            r["message"]["text"]
                .as_str()
                .unwrap()
                .starts_with(&format!("{at}: ")),
            "{path}: {r}"
        );
    }
}

#[test]
fn json_names_the_real_format_of_a_raw_body() {
    for (path, format) in [
        ("samples/good/bedrock-converse.bin", "eventstream"),
        ("samples/good/bedrock-invoke-titan.bin", "eventstream"),
        ("samples/good/ollama-chat.ndjson", "ndjson"),
        ("samples/good/messages-text.sse", "sse"),
        ("samples/curl/curl-v.txt", "curl"),
    ] {
        let doc: Value = serde_json::from_str(&check(path, "json")).unwrap();
        assert_eq!(doc["files"][0]["input_format"], format, "{path}");
    }
}

/// `inspect --format jsonl` of `body` (written to a scratch file), its
/// `message` records.
fn inspected(body: &[u8], name: &str) -> Vec<Value> {
    let dir = common::scratch(name);
    let p = dir.join("capture.bin");
    std::fs::write(&p, body).unwrap();
    let (code, out, err) = sselint(&["inspect", "--format", "jsonl", p.to_str().unwrap()]);
    assert!(code.is_some_and(|c| c < 2), "{err}");
    out.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["type"] == "message")
        .collect()
}

#[test]
fn inspect_shows_each_frames_headers_and_the_event_an_invoke_chunk_wraps() {
    let body = std::fs::read(root().join("samples/good/bedrock-invoke.bin")).unwrap();
    let frames = inspected(&body, "inspect-invoke");
    let first = &frames[0];
    assert_eq!(first["headers"][":event-type"], "chunk", "{first}");
    assert_eq!(first["headers"][":message-type"], "event", "{first}");
    assert_eq!(
        first["headers"][":content-type"], "application/json",
        "{first}"
    );
    // The chunk's base64 `bytes`, decoded: Claude's own event.
    let decoded: Value = serde_json::from_str(first["decoded"].as_str().unwrap()).unwrap();
    assert_eq!(decoded["type"], "message_start", "{first}");
    // An exception frame: its type is a header.
    let body = std::fs::read(root().join("samples/bad/invoke-exception.bin")).unwrap();
    let frames = inspected(&body, "inspect-exception");
    let last = frames.last().unwrap();
    assert_eq!(last["headers"][":message-type"], "exception", "{last}");
    assert_eq!(
        last["headers"][":exception-type"], "modelStreamErrorException",
        "{last}"
    );
    assert!(
        last.get("decoded").is_none(),
        "an exception wraps nothing: {last}"
    );
    // ConverseStream's frames carry no wrapped event, but their headers.
    let body = std::fs::read(root().join("samples/good/bedrock-converse.bin")).unwrap();
    let frames = inspected(&body, "inspect-converse");
    assert_eq!(frames[0]["headers"][":event-type"], "messageStart");
    assert!(frames[0].get("decoded").is_none(), "{}", frames[0]);
    // The table: a headers column in place of the line, which a binary
    // body has not.
    let p = root().join("samples/good/bedrock-invoke.bin");
    let (_, table, _) = sselint(&["inspect", p.to_str().unwrap()]);
    assert!(table.contains("headers"), "{table}");
    assert!(table.contains(":message-type event"), "{table}");
}

#[test]
fn inspect_never_prints_a_key_an_invoke_chunk_carries() {
    use base64::Engine as _;
    let key = "sk-ant-api03-FAKEKEYinBEDROCKchunk0123456789";
    let inner = format!(
        r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":"my key is {key}"}}}}"#
    );
    let b64 = base64::engine::general_purpose::STANDARD.encode(inner);
    let frame = sselint::transport::eventstream::encode(
        &[
            (":event-type", "chunk"),
            (":content-type", "application/json"),
            (":message-type", "event"),
        ],
        format!(r#"{{"bytes":"{b64}"}}"#).as_bytes(),
    );
    let frames = inspected(&frame, "inspect-key");
    let decoded = frames[0]["decoded"].as_str().unwrap();
    assert!(decoded.contains("my key is"), "{decoded}");
    assert!(!decoded.contains(key), "{decoded}");
    let dir = common::scratch("inspect-key-table");
    let p = dir.join("capture.bin");
    std::fs::write(&p, &frame).unwrap();
    let (_, table, _) = sselint(&["inspect", p.to_str().unwrap()]);
    assert!(!table.contains(key), "{table}");
}

/// An Invoke stream of `events` (each a model's own JSON event), a
/// `chunk` frame each.
fn invoke_stream(events: &[&str]) -> Vec<u8> {
    use base64::Engine as _;
    events
        .iter()
        .flat_map(|e| {
            let b64 = base64::engine::general_purpose::STANDARD.encode(e);
            sselint::transport::eventstream::encode(
                &[
                    (":event-type", "chunk"),
                    (":content-type", "application/json"),
                    (":message-type", "event"),
                ],
                format!(r#"{{"bytes":"{b64}","p":"ab"}}"#).as_bytes(),
            )
        })
        .collect()
}

#[test]
fn a_titan_or_llama_stream_cut_at_a_frame_boundary_is_cut_off_at_its_last_byte() {
    let titan = [
        r#"{"outputText":"Rain forms","index":0,"totalOutputTextTokenCount":3,"completionReason":null,"inputTextTokenCount":11}"#,
        r#"{"outputText":" when water vapour","index":0,"totalOutputTextTokenCount":6,"completionReason":null,"inputTextTokenCount":11}"#,
        r#"{"outputText":" cools.","index":0,"totalOutputTextTokenCount":8,"completionReason":"FINISH","inputTextTokenCount":11,"amazon-bedrock-invocationMetrics":{"inputTokenCount":11,"outputTokenCount":8,"invocationLatency":812,"firstByteLatency":305}}"#,
    ];
    let llama = [
        r#"{"generation":"Rain forms","prompt_token_count":18,"generation_token_count":3,"stop_reason":null}"#,
        r#"{"generation":" when water vapour","prompt_token_count":null,"generation_token_count":6,"stop_reason":null}"#,
        r#"{"generation":"","prompt_token_count":null,"generation_token_count":6,"stop_reason":"stop","amazon-bedrock-invocationMetrics":{"inputTokenCount":18,"outputTokenCount":6,"invocationLatency":812,"firstByteLatency":305}}"#,
    ];
    let invoke = sselint::dialect::Dialect::parse("bedrock-invoke");
    for (model, events) in [("titan", titan), ("llama", llama)] {
        let whole = common::lint_as(&invoke_stream(&events), invoke);
        assert!(
            whole.streams[0].diagnostics.is_empty(),
            "{model}: {:?}",
            whole.streams[0].diagnostics
        );
        // Cut after the second frame: no finish reason, no metrics.
        let cut = invoke_stream(&events[..2]);
        let r = common::lint_as(&cut, invoke);
        let s = &r.streams[0];
        let rules: Vec<_> = s.diagnostics.iter().map(|d| d.rule).collect();
        assert_eq!(rules, ["invoke-cut-off"], "{model}");
        let d = &s.diagnostics[0];
        assert_eq!(d.severity, sselint::lint::Severity::Error, "{model}");
        assert_eq!(d.location.byte_offset, cut.len() as u64 - 1, "{model}");
        assert_eq!(
            s.ending,
            sselint::model::assembly::Ending::CutOff,
            "{model}"
        );
    }
}

#[test]
fn converse_usage_with_cache_reads_adds_up_in_the_summary_line() {
    let frame = |ty: &str, payload: &str| {
        sselint::transport::eventstream::encode(
            &[
                (":event-type", ty),
                (":content-type", "application/json"),
                (":message-type", "event"),
            ],
            payload.as_bytes(),
        )
    };
    let body: Vec<u8> = [
        frame("messageStart", r#"{"role":"assistant"}"#),
        frame("contentBlockDelta", r#"{"contentBlockIndex":0,"delta":{"text":"Hi"}}"#),
        frame("contentBlockStop", r#"{"contentBlockIndex":0}"#),
        frame("messageStop", r#"{"stopReason":"end_turn"}"#),
        frame(
            "metadata",
            r#"{"usage":{"inputTokens":10,"outputTokens":3,"totalTokens":1013,"cacheReadInputTokens":1000},"metrics":{"latencyMs":420}}"#,
        ),
    ]
    .concat();
    let r = common::lint_as(&body, sselint::dialect::Dialect::parse("bedrock-converse"));
    let line = sselint::report::human::summary_line(&r.streams[0]);
    // 10+3=1013 read as if the counts were joined as text.
    assert!(line.contains("usage: 10+1000 cache read+3=1013"), "{line}");
}

#[test]
fn junit_lists_the_rules_of_the_streams_transport_and_dialect_and_every_finding() {
    let junit = check("samples/bad/invoke-frame.bin", "junit");
    let case = |rule: &str| junit.contains(&format!("<testcase name=\"{rule}\""));
    assert!(
        case("invoke-frame") && case("invoke-cut-off") && case("event-too-large"),
        "{junit}"
    );
    // SSE framing and socket rules cannot judge an event stream.
    for rule in [
        "data-no-space",
        "comment",
        "body-not-sse",
        "ws-close-code",
        "ws-lane-overlap",
    ] {
        assert!(!case(rule), "{rule}: {junit}");
    }
    // An Invoke stream's Claude events are judged by Messages' rules: a
    // finding of one is a failure, never dropped.
    let junit = check("clients/corpus/bedrock-invoke/no-message-stop.bin", "junit");
    assert!(junit.contains("failures=\"1\""), "{junit}");
    assert!(
        junit.contains("<testcase name=\"messages-stop-missing\""),
        "{junit}"
    );
    // An SSE stream keeps its framing rules.
    let junit = check("samples/bad/cut-off.sse", "junit");
    assert!(
        junit.contains("<testcase name=\"data-no-space\""),
        "{junit}"
    );
    assert!(
        !junit.contains("<testcase name=\"ws-close-code\""),
        "{junit}"
    );
}

#[test]
fn redact_of_a_curl_v_or_trace_dump_of_a_bedrock_stream_says_exactly_what_to_do() {
    let sig = "deadbeefcafebabe0123456789abcdef0123456789abcdef0123456789abcdef";
    let token = "IQoJb3JpZ2luX2VjEXAMPLEFAKETOKEN0123456789";
    let request = format!(
        "POST /model/anthropic.claude-3-haiku-20240307-v1%3A0/converse-stream HTTP/1.1\r\nHost: bedrock-runtime.us-east-1.amazonaws.com\r\nX-Amz-Date: 20260102T030405Z\r\nX-Amz-Security-Token: {token}\r\nAuthorization: AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20260102/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature={sig}\r\n\r\n"
    );
    let response = "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.amazon.eventstream\r\n\r\n";
    let body = std::fs::read(root().join("samples/good/bedrock-converse.bin")).unwrap();
    let mut v =
        b"* Connected to bedrock-runtime.us-east-1.amazonaws.com (203.0.113.7) port 443\n".to_vec();
    for (mark, head) in [("> ", request.as_str()), ("< ", response)] {
        for line in head.split("\r\n").filter(|l| !l.is_empty()) {
            v.extend(format!("{mark}{line}\n").bytes());
        }
        v.extend(format!("{}\n", mark.trim_end()).bytes());
    }
    v.extend(&body);
    v.extend(b"* Connection #0 to host bedrock-runtime.us-east-1.amazonaws.com left intact\n");
    let trace = crate::bedrock_converse::curl_trace(response, &body);
    for (name, dump) in [("v.txt", v), ("trace.txt", trace.into_bytes())] {
        let dir = common::scratch("redact-bedrock-dump");
        let p = dir.join(name);
        std::fs::write(&p, &dump).unwrap();
        // sselint reads the dump.
        let (code, _, err) = sselint(&["check", p.to_str().unwrap()]);
        assert_eq!(code, Some(0), "{name}: {err}");
        let out = dir.join("copy.txt");
        let (code, stdout, err) =
            sselint(&["redact", p.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        assert_eq!(code, Some(2), "{name}: {err}");
        assert!(!out.exists(), "{name}: a copy was written");
        assert!(stdout.is_empty(), "{name}: {stdout}");
        // What to do, exactly: capture again with -i -o, redact that.
        assert!(
            err.contains("curl -sS -N -i -o capture.txt"),
            "{name}: {err}"
        );
        assert!(err.contains("sselint redact capture.txt"), "{name}: {err}");
        // What the dump holds, and that it is not to be shared as it is.
        assert!(err.contains("SigV4 `Authorization`"), "{name}: {err}");
        assert!(err.contains("X-Amz-Security-Token"), "{name}: {err}");
        assert!(!err.contains(sig) && !err.contains(token), "{name}: {err}");
    }
}

#[test]
fn a_header_length_changed_on_the_way_is_a_message_crc_failure_as_boto3_says() {
    let events = [
        r#"{"outputText":"Rain forms","index":0,"completionReason":null}"#,
        r#"{"outputText":" now.","index":0,"completionReason":"FINISH","amazon-bedrock-invocationMetrics":{"inputTokenCount":1,"outputTokenCount":2,"invocationLatency":3,"firstByteLatency":4}}"#,
    ];
    let mut body = invoke_stream(&events);
    // The first header's name length (`:event-type`, 11), at byte 12 of
    // the first frame: the frame's lengths stand, its message CRC fails.
    assert_eq!(body[12], 11);
    body[12] = 200;
    let r = common::lint_as(&body, sselint::dialect::Dialect::parse("bedrock-invoke"));
    let d = &r.streams[0].diagnostics[0];
    assert_eq!(d.rule, "invoke-frame");
    assert!(d.message.contains("the message CRC is"), "{}", d.message);
    let frame_len = u32::from_be_bytes(body[..4].try_into().unwrap()) as u64;
    assert_eq!(d.location.byte_offset, frame_len - 4, "at the CRC");
}
