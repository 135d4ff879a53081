//! Amazon Bedrock's InvokeModelWithResponseStream with Claude (issue 37):
//! each `chunk` frame's base64 `bytes` unwrap to an Anthropic Messages
//! event that the Messages checker reads; the realistic stream (thinking,
//! text, a tool call, the invocation metrics) assembles with no finding;
//! the wrapper's own faults (a frame that fails its CRC, a cut frame, an
//! exception frame, a chunk that is not base64, missing metrics) are found
//! where they are, and a missing `message_stop` by Messages' own rule.

mod common;
use crate::bedrock_converse::{
    assert_same_verdict_in_reads, curl_trace, inspected_messages, lint, rules,
};
use base64::Engine as _;
use common::*;
use sselint::dialect::Dialect;
use sselint::lint::Settings;
use sselint::model::assembly::Ending;
use sselint::pipeline::StreamResult;
use sselint::transport::eventstream::encode;

fn invoke() -> Dialect {
    Dialect::parse("bedrock-invoke").unwrap()
}

fn sample(name: &str) -> Vec<u8> {
    std::fs::read(root().join("samples").join(name)).unwrap()
}

/// A `chunk` frame wrapping `event` (Claude's JSON) in base64.
fn chunk(event: &str) -> Vec<u8> {
    let b64 = base64::engine::general_purpose::STANDARD.encode(event);
    chunk_payload(&format!(r#"{{"bytes":"{b64}","p":"abcd"}}"#))
}

fn chunk_payload(payload: &str) -> Vec<u8> {
    encode(
        &[
            (":event-type", "chunk"),
            (":content-type", "application/json"),
            (":message-type", "event"),
        ],
        payload.as_bytes(),
    )
}

/// A text answer from Claude, a frame each event; `metrics` is added to
/// `message_stop`.
fn text_frames(metrics: &str) -> Vec<Vec<u8>> {
    [
        r#"{"type":"message_start","message":{"id":"msg_bdrk_01","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":19,"output_tokens":5}}}"#,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Rain forms"}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" when vapour condenses."}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":14}}"#,
        &format!(r#"{{"type":"message_stop"{metrics}}}"#),
    ]
    .iter()
    .map(|e| chunk(e))
    .collect()
}

/// A HAR of one POST to `url` answered 200 with `body` as an AWS event
/// stream, stored base64 as browsers store binary bodies.
fn har(url: &str, body: &[u8]) -> serde_json::Value {
    let b64 = base64::engine::general_purpose::STANDARD.encode(body);
    serde_json::json!({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [{
        "startedDateTime": "2026-01-02T03:04:05.000Z", "time": 2210,
        "request": {"method": "POST", "url": url, "httpVersion": "HTTP/1.1", "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": -1},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [{"name": "Content-Type", "value": "application/vnd.amazon.eventstream"}], "cookies": [],
            "content": {"size": body.len(), "mimeType": "application/vnd.amazon.eventstream", "text": b64, "encoding": "base64"}, "redirectURL": "", "headersSize": -1, "bodySize": -1},
        "cache": {}, "timings": {"send": 0, "wait": 600, "receive": 1610}}]}})
}

const URL: &str = "https://bedrock-runtime.us-west-2.amazonaws.com/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream";

const METRICS: &str = r#","amazon-bedrock-invocationMetrics":{"inputTokenCount":19,"outputTokenCount":14,"invocationLatency":688,"firstByteLatency":412}"#;

#[test]
fn claude_with_thinking_and_a_tool_call_reads_whole_with_no_finding() {
    let s = lint(&sample("good/bedrock-invoke.bin"));
    assert_eq!(s.dialect, Some(invoke()));
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    let c = &s.answer.choices[&0];
    assert_eq!(c.reasoning.kept, "The user wants the weather in Oslo.");
    assert_eq!(c.text.kept, "Let me check the weather.");
    let call = &c.tool_calls[&0];
    assert_eq!(call.name.as_deref(), Some("get_weather"));
    assert_eq!(
        call.id.as_deref(),
        Some("toolu_bdrk_01Xb7GmQ2sYkP9vR4tLcW8nD")
    );
    assert_eq!(call.arguments, r#"{"city":"Oslo"}"#);
    assert_eq!(c.finish_reason.as_deref(), Some("tool_use"));
    let usage = s.answer.usage.as_ref().unwrap();
    assert_eq!(usage["input_tokens"], 412);
    assert_eq!(usage["output_tokens"], 96);
    assert_eq!(s.ending, Ending::Complete);
}

#[test]
fn a_frame_that_fails_its_crc_is_found_at_the_crc() {
    let frames = text_frames(METRICS);
    let mut body = Vec::new();
    for (i, f) in frames.iter().enumerate() {
        let mut f = f.clone();
        if i == 3 {
            let n = f.len();
            f[n - 1] ^= 0x5a;
        }
        body.extend(f);
    }
    let crc_at = frames[..4].iter().map(Vec::len).sum::<usize>() - 4;
    let s = lint(&body);
    assert_eq!(rules(&s), ["invoke-frame"]);
    assert_eq!(s.diagnostics[0].location.byte_offset, crc_at as u64);
    assert_eq!(s.diagnostics[0].event_index, Some(3));
}

#[test]
fn a_frame_cut_at_the_end_is_found_at_its_last_byte() {
    let frames = text_frames(METRICS);
    let mut body = frames[..3].concat();
    body.extend_from_slice(&frames[3][..20]);
    let s = lint(&body);
    assert_eq!(rules(&s), ["invoke-frame"], "{:?}", s.diagnostics);
    assert_eq!(s.diagnostics[0].location.byte_offset, body.len() as u64 - 1);
    assert_eq!(s.ending, Ending::CutOff);
}

#[test]
fn an_exception_frame_mid_stream_fails_the_stream_once() {
    let frames = text_frames(METRICS);
    let mut body = frames[..4].concat();
    let start = body.len();
    body.extend(encode(
        &[
            (":exception-type", "modelStreamErrorException"),
            (":content-type", "application/json"),
            (":message-type", "exception"),
        ],
        br#"{"message":"Model produced invalid sequence as part of ToolUse.","originalStatusCode":424}"#,
    ));
    let s = lint(&body);
    // One finding: the Messages checker hears it as its own `error`
    // event, so the text so far is not also `messages-cut-off`.
    assert_eq!(rules(&s), ["invoke-exception"]);
    let headers = u32::from_be_bytes(body[start + 4..start + 8].try_into().unwrap()) as usize;
    assert_eq!(
        s.diagnostics[0].location.byte_offset,
        (start + 12 + headers) as u64
    );
    assert!(s.diagnostics[0]
        .message
        .contains("modelStreamErrorException"));
    assert_eq!(s.ending, Ending::Failed);
}

/// An `error` frame (`:error-code`, `:error-message`, an empty payload)
/// is the stream's exception, not a payload that is not JSON.
#[test]
fn an_error_frame_with_an_empty_payload_is_an_exception() {
    let frames = text_frames(METRICS);
    let mut body = frames[..4].concat();
    body.extend(encode(
        &[
            (":error-code", "InternalServerException"),
            (":error-message", "The service had an error."),
            (":message-type", "error"),
        ],
        b"",
    ));
    let s = lint(&body);
    assert_eq!(rules(&s), ["invoke-exception"], "{:?}", s.diagnostics);
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
    assert_eq!(s.ending, Ending::Failed);
}

#[test]
fn a_stream_without_message_stop_is_messages_own_cut_off() {
    let frames = text_frames(METRICS);
    let s = lint(&frames[..5].concat());
    assert_eq!(rules(&s), ["messages-cut-off"]);
    assert_eq!(s.ending, Ending::CutOff);
    assert_eq!(
        s.answer.choices[&0].text.kept,
        "Rain forms when vapour condenses."
    );
}

#[test]
fn a_chunk_that_is_not_base64_is_found_at_its_bytes_and_the_event_is_lost() {
    let s = lint(&sample("bad/invoke-chunk.bin"));
    assert_eq!(rules(&s), ["invoke-chunk"]);
    let d = &s.diagnostics[0];
    assert!(d.message.contains("not base64"), "{}", d.message);
    assert_eq!(d.pointer.as_deref(), Some("/bytes"));
    assert_eq!(d.event_index, Some(3));
    // The lost delta is the finding's cause, not another finding.
    assert_eq!(s.answer.choices[&0].text.kept, "Rain forms");
    // A payload without `bytes`, and bytes that are not JSON.
    let mut frames = text_frames(METRICS);
    frames[2] = chunk_payload(r#"{"p":"abc"}"#);
    let s = lint(&frames.concat());
    assert_eq!(rules(&s), ["invoke-chunk"]);
    assert!(s.diagnostics[0].message.contains("no `bytes`"));
    frames[2] = chunk("Rain forms");
    let s = lint(&frames.concat());
    assert_eq!(rules(&s), ["invoke-chunk"]);
    assert!(
        s.diagnostics[0].message.contains("not JSON"),
        "{}",
        s.diagnostics[0].message
    );
}

#[test]
fn converse_events_in_an_invoke_stream_are_named_as_such() {
    // A gateway that answers the Invoke path with a ConverseStream: the
    // body is read as what it is, and the path is reported at its first
    // frame, as on SSE.
    let converse = sample("good/bedrock-converse.bin");
    let b64 = base64::engine::general_purpose::STANDARD.encode(&converse);
    let rec = serde_json::json!({"id": "r1", "status": 200, "headers": {"content-type": "application/vnd.amazon.eventstream"}, "path": "/model/anthropic.claude-sonnet-4-5/invoke-with-response-stream", "body_base64": b64});
    let dir = scratch("invoke-converse");
    let (code, stream, out) = check_gateway_record(&dir, &rec);
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(stream["dialect"], "bedrock-converse", "{out}");
    let found: Vec<&str> = stream["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap())
        .collect();
    assert_eq!(found, ["path-dialect-mismatch"], "{out}");
    // Read as Invoke (`--dialect bedrock-invoke`), its frames are named
    // as ConverseStream's.
    let settings = Settings {
        dialect: Some(invoke()),
        ..Settings::default()
    };
    let s = lint_stream_in_reads(&converse, 0, &settings);
    assert_eq!(s.diagnostics[0].rule, "invoke-chunk", "{:?}", s.diagnostics);
    assert!(
        s.diagnostics[0].message.contains("ConverseStream event"),
        "{}",
        s.diagnostics[0].message
    );
}

#[test]
fn missing_or_disagreeing_metrics_are_a_warning() {
    let s = lint(&text_frames("").concat());
    assert_eq!(rules(&s), ["invoke-metrics"]);
    assert_eq!(s.diagnostics[0].severity, sselint::lint::Severity::Warning);
    assert_eq!(s.ending, Ending::Complete);
    let wrong = METRICS.replace("\"outputTokenCount\":14", "\"outputTokenCount\":41");
    let s = lint(&text_frames(&wrong).concat());
    assert_eq!(rules(&s), ["invoke-metrics"]);
    assert!(
        s.diagnostics[0]
            .message
            .contains("outputTokenCount 41 against output_tokens 14"),
        "{}",
        s.diagnostics[0].message
    );
}

#[test]
fn the_dialect_is_told_from_the_first_frame_and_the_path() {
    // The bytes alone: a `chunk` frame is Invoke's, a `messageStart`
    // ConverseStream's.
    assert_eq!(
        lint(&sample("good/bedrock-invoke.bin")).dialect,
        Some(invoke())
    );
    assert_eq!(
        lint(&sample("good/bedrock-converse.bin")).dialect,
        Dialect::parse("bedrock-converse")
    );
    // A HAR entry whose first frame is an exception: the path says Invoke.
    let body = encode(
        &[
            (":exception-type", "throttlingException"),
            (":message-type", "exception"),
        ],
        br#"{"message":"Too many requests, please wait before trying again."}"#,
    );
    let dir = scratch("invoke-path");
    let p = dir.join("invoke.har");
    std::fs::write(&p, har(URL, &body).to_string()).unwrap();
    let r = lint_file(&p);
    let s = &r.streams[0];
    assert_eq!(s.dialect, Some(invoke()));
    assert_eq!(rules(s), ["invoke-exception"]);
    assert_eq!(s.ending, Ending::Failed);
}

#[test]
fn a_har_entry_and_a_curl_trace_read_as_the_raw_body() {
    let body = sample("good/bedrock-invoke.bin");
    let raw = lint(&body);
    let dir = scratch("invoke-inputs");
    let p = dir.join("invoke.har");
    std::fs::write(&p, har("https://gateway.example/any", &body).to_string()).unwrap();
    let trace = dir.join("invoke.trace");
    std::fs::write(
        &trace,
        curl_trace(
            "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.amazon.eventstream\r\nX-Amzn-Bedrock-Content-Type: application/json\r\n\r\n",
            &body,
        ),
    )
    .unwrap();
    for p in [p, trace] {
        let r = lint_file(&p);
        let s: &StreamResult = &r.streams[0];
        assert_eq!(s.dialect, Some(invoke()), "{}", p.display());
        assert!(s.diagnostics.is_empty(), "{}: {:?}", p.display(), rules(s));
        assert_eq!(
            s.answer.choices[&0].text.kept,
            raw.answer.choices[&0].text.kept
        );
        assert_eq!(
            s.answer.choices[&0].tool_calls[&0].arguments,
            r#"{"city":"Oslo"}"#
        );
    }
}

#[test]
fn the_verdict_does_not_depend_on_how_the_bytes_arrive() {
    assert_same_verdict_in_reads(
        &[
            "good/bedrock-invoke.bin",
            "bad/invoke-frame.bin",
            "bad/invoke-chunk.bin",
            "bad/invoke-exception.bin",
            "bad/invoke-metrics.bin",
        ],
        &[1, 7, 64],
    );
}

#[test]
fn inspect_shows_each_chunk_as_a_frame_with_what_its_event_did() {
    let frames = inspected_messages("good/bedrock-invoke.bin");
    assert_eq!(frames.len(), 16);
    assert!(frames
        .iter()
        .all(|f| f["transport"] == "eventstream" && f["name"] == "chunk"));
    let kinds: Vec<&str> = frames
        .iter()
        .map(|f| f["kind"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(kinds[0], "role");
    assert!(kinds.contains(&"block+tool"), "{kinds:?}");
    assert!(kinds.contains(&"finish+usage"), "{kinds:?}");
}

/// An Invoke stream of `events` (each a model's own JSON event) as
/// `chunk` frames.
fn model_frames(events: &[&str]) -> Vec<u8> {
    events.iter().flat_map(|e| chunk(e)).collect()
}

/// Titan Text's stream: `outputText` pieces, `completionReason` on the
/// last (the Bedrock user guide, "Amazon Titan Text models").
const TITAN: [&str; 3] = [
    r#"{"outputText":"Rain forms","index":0,"totalOutputTextTokenCount":3,"completionReason":null,"inputTextTokenCount":11}"#,
    r#"{"outputText":" when vapour condenses.","index":0,"totalOutputTextTokenCount":9,"completionReason":null,"inputTextTokenCount":11}"#,
    r#"{"outputText":"","index":0,"totalOutputTextTokenCount":9,"completionReason":"FINISH","inputTextTokenCount":11,"amazon-bedrock-invocationMetrics":{"inputTokenCount":11,"outputTokenCount":9,"invocationLatency":701,"firstByteLatency":290}}"#,
];

#[test]
fn other_models_read_with_their_answer_finish_and_usage_and_no_finding() {
    // (sample, finish, input tokens, output tokens): the counts are
    // Bedrock's invocation metrics on the last chunk.
    let cases = [
        ("titan", "FINISH", 11, 12),
        ("llama", "stop", 18, 13),
        ("mistral", "stop", 21, 14),
        ("nova", "end_turn", 9, 14),
    ];
    for (model, finish, input, output) in cases {
        let s = lint(&sample(&format!("good/bedrock-invoke-{model}.bin")));
        assert_eq!(s.dialect, Some(invoke()), "{model}");
        assert!(s.diagnostics.is_empty(), "{model}: {:?}", s.diagnostics);
        let c = &s.answer.choices[&0];
        assert_eq!(
            c.text.kept, "Rain forms when water vapour cools and condenses into droplets.",
            "{model}"
        );
        assert_eq!(c.finish_reason.as_deref(), Some(finish), "{model}");
        let usage = s.answer.usage.as_ref().unwrap();
        assert_eq!(usage["input_tokens"], input, "{model}");
        assert_eq!(usage["output_tokens"], output, "{model}");
        assert_eq!(s.ending, Ending::Complete, "{model}");
        assert_eq!(s.answer.empty, None, "{model}");
    }
}

#[test]
fn the_model_in_the_path_decides_and_an_unknown_one_is_not_read() {
    let dir = scratch("invoke-models");
    let lint_at = |name: &str, url: &str, body: &[u8]| {
        let p = dir.join(name);
        std::fs::write(&p, har(url, body).to_string()).unwrap();
        lint_file(&p).streams.remove(0)
    };
    // Titan's stream under a Titan path (an ARN, percent-encoded): read.
    let titan = "https://bedrock-runtime.us-east-1.amazonaws.com/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A%3Afoundation-model%2Famazon.titan-text-express-v1/invoke-with-response-stream";
    let s = lint_at("titan.har", titan, &model_frames(&TITAN));
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    assert_eq!(
        s.answer.choices[&0].text.kept,
        "Rain forms when vapour condenses."
    );
    assert_eq!(s.ending, Ending::Complete);
    // Cut before its last chunk: no finish reason, so not complete.
    let s = lint_at("titan-cut.har", titan, &model_frames(&TITAN[..2]));
    assert_eq!(s.ending, Ending::CutOff);
    assert_eq!(s.answer.choices[&0].finish_reason, None);
    // A model sselint does not know (an application inference profile),
    // events of no known shape: only the wrapper is checked, and the
    // answer says the model is not read.
    let unknown = "https://bedrock-runtime.us-east-1.amazonaws.com/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A111122223333%3Aapplication-inference-profile%2Fa1b2c3d4e5/invoke-with-response-stream";
    let events = [
        r#"{"token":{"text":"Rain"}}"#,
        r#"{"token":{"text":" falls."},"amazon-bedrock-invocationMetrics":{"inputTokenCount":4,"outputTokenCount":2,"invocationLatency":90,"firstByteLatency":40}}"#,
    ];
    let s = lint_at("unknown.har", unknown, &model_frames(&events));
    assert_eq!(s.dialect, Some(invoke()));
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    assert!(s.answer.empty.as_deref().unwrap().contains("not read"));
    assert!(s
        .answer
        .empty
        .as_deref()
        .unwrap()
        .contains("application-inference-profile"));
    assert_eq!(s.ending, Ending::Complete);
    // The path names Claude: the events are read as Messages', whatever
    // their shape (a gateway that sent Titan's events under Claude's
    // path is wrong for a Claude client).
    let s = lint_at("claude-path.har", URL, &model_frames(&TITAN));
    assert!(rules(&s).contains(&"messages-schema"), "{:?}", rules(&s));
}

#[test]
fn the_wrappers_rules_hold_for_other_models() {
    // An exception frame mid-stream fails a Titan stream once.
    let mut body = model_frames(&TITAN[..2]);
    body.extend(encode(
        &[
            (":exception-type", "modelStreamErrorException"),
            (":content-type", "application/json"),
            (":message-type", "exception"),
        ],
        br#"{"message":"The model stream failed.","originalStatusCode":424}"#,
    ));
    let s = lint(&body);
    assert_eq!(rules(&s), ["invoke-exception"]);
    assert_eq!(s.ending, Ending::Failed);
    assert_eq!(
        s.answer.choices[&0].text.kept,
        "Rain forms when vapour condenses."
    );
    // A complete stream whose last chunk has no invocation metrics.
    let last = TITAN[2]
        .split(r#","amazon-bedrock"#)
        .next()
        .unwrap()
        .to_string()
        + "}";
    let s = lint(&model_frames(&[TITAN[0], TITAN[1], &last]));
    assert_eq!(rules(&s), ["invoke-metrics"]);
    assert_eq!(s.ending, Ending::Complete);
    // The model's own counts stand in for the metrics' in the usage.
    assert_eq!(s.answer.usage.as_ref().unwrap()["output_tokens"], 9);
    // A chunk whose bytes are not base64.
    let mut body = model_frames(&TITAN[..1]);
    body.extend(chunk_payload(r#"{"bytes":"not base64!"}"#));
    body.extend(model_frames(&TITAN[1..]));
    let s = lint(&body);
    assert_eq!(rules(&s), ["invoke-chunk"]);
    // Nova's events without a `messageStop`: ConverseStream's own cut-off.
    let nova = sample("good/bedrock-invoke-nova.bin");
    let mut frames = Vec::new();
    let mut at = 0;
    while at < nova.len() {
        let n = u32::from_be_bytes(nova[at..at + 4].try_into().unwrap()) as usize;
        frames.push(&nova[at..at + n]);
        at += n;
    }
    let cut: Vec<u8> = frames[..frames.len() - 2].concat();
    let s = lint(&cut);
    assert_eq!(rules(&s), ["converse-cut-off"]);
    assert_eq!(s.ending, Ending::CutOff);
}

/// Bytes as curl's trace shows them in its ASCII column: printable ASCII
/// as it is, every other byte as `.`.
fn dump_ascii(row: &[u8]) -> String {
    row.iter()
        .map(|b| {
            if (0x20..0x7f).contains(b) {
                *b as char
            } else {
                '.'
            }
        })
        .collect()
}

/// A `curl --trace` dump (curl's `tool_cb_dbg.c` layout: a record line,
/// then `%04zx: `, 16 bytes as `%02x ` padded to 48 columns, and their
/// ASCII) of a response whose body arrives in reads of `read` bytes;
/// `time` prefixes each record line as `--trace-time` does.
fn trace_of(head: &str, body: &[u8], read: usize, time: bool) -> String {
    let mut t = String::from(
        "== Info: Connected to bedrock-runtime.us-east-1.amazonaws.com (203.0.113.7) port 443\n",
    );
    let record = |t: &mut String, label: &str, bytes: &[u8], i: usize| {
        if time {
            t.push_str(&format!(
                "10:{:02}:{:02}.{:06} ",
                i / 60 % 60,
                i % 60,
                i * 137 % 1_000_000
            ));
        }
        t.push_str(&format!(
            "{label}, {} bytes (0x{:x})\n",
            bytes.len(),
            bytes.len()
        ));
        for (n, row) in bytes.chunks(16).enumerate() {
            let hex: String = row.iter().map(|b| format!("{b:02x} ")).collect();
            let ascii = dump_ascii(row);
            t.push_str(&format!("{:04x}: {hex:<48}{ascii}\n", n * 16));
        }
    };
    record(&mut t, "<= Recv header", head.as_bytes(), 0);
    for (i, piece) in body.chunks(read).enumerate() {
        record(&mut t, "<= Recv data", piece, i + 1);
    }
    t
}

#[test]
fn a_binary_body_in_a_curl_trace_is_read_and_its_findings_point_at_the_dump_line() {
    // Enough deltas that one read passes 0x10000 bytes (five-digit
    // offsets), a frame past it with a bad CRC.
    let mut frames = text_frames(METRICS);
    let delta = frames[2].clone();
    frames.splice(3..3, std::iter::repeat_n(delta, 700));
    let bad = 650;
    let n = frames[bad].len();
    frames[bad][n - 1] ^= 0x5a;
    let body = frames.concat();
    assert!(body.len() > 0x10000 + 1000, "{}", body.len());
    let head = "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.amazon.eventstream\r\n\r\n";
    let raw = lint(&body);
    assert_eq!(rules(&raw), ["invoke-frame"]);
    let at = raw.diagnostics[0].location.byte_offset;
    let dir = scratch("invoke-trace");
    for (read, time) in [(body.len(), false), (16_384, true), (1_000, false)] {
        let trace = trace_of(head, &body, read, time);
        let p = dir.join(format!("invoke-{read}.trace"));
        std::fs::write(&p, &trace).unwrap();
        let r = lint_file(&p);
        let s = &r.streams[0];
        assert_eq!(s.dialect, Some(invoke()));
        assert_eq!(rules(s), ["invoke-frame"], "{read}");
        assert_eq!(s.diagnostics[0].location.byte_offset, at, "{read}");
        // The finding's byte, on the dump line that shows it.
        let pos = s.file_positions[&at];
        let line = trace.lines().nth(pos.line as usize - 1).unwrap();
        let col = pos.column as usize - 1;
        assert_eq!(
            &line[col..col + 2],
            format!("{:02x}", body[at as usize]),
            "{read}: {line}"
        );
        assert_eq!(
            &trace[pos.byte as usize..pos.byte as usize + 2],
            &line[col..col + 2]
        );
        // SARIF names that line of the trace file.
        let (_, out, _) = sselint(&[
            "check",
            "--format",
            "sarif",
            "--fail-on",
            "never",
            p.to_str().unwrap(),
        ]);
        let sarif: serde_json::Value = serde_json::from_str(&out).unwrap();
        let region = &sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"];
        assert_eq!(region["startLine"], pos.line, "{read}");
        assert_eq!(region["startColumn"], pos.column, "{read}");
    }
}

#[test]
fn a_trace_ascii_dump_of_a_binary_body_is_refused_with_why() {
    let body = sample("good/bedrock-invoke.bin");
    let mut t = String::from("<= Recv header, 71 bytes (0x47)\n0000: HTTP/1.1 200 OK\n0011: Content-Type: application/vnd.amazon.eventstream\n0044: \n");
    t.push_str(&format!(
        "<= Recv data, {} bytes (0x{:x})\n",
        body.len(),
        body.len()
    ));
    for (n, row) in body.chunks(64).enumerate() {
        let ascii = dump_ascii(row);
        t.push_str(&format!("{:04x}: {ascii}\n", n * 64));
    }
    let dir = scratch("invoke-trace-ascii");
    let p = dir.join("invoke.trace");
    std::fs::write(&p, t).unwrap();
    let (code, _, err) = sselint(&["check", p.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("invoke.trace"), "{err}");
    assert!(err.contains("--trace-ascii dump cannot carry"), "{err}");
}
