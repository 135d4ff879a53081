//! Ollama's native API over the NDJSON transport (issue 37): the realistic
//! streams assemble to their answer with no finding, each documented fault
//! is found at its byte, the transport is told from the Content-Type, the
//! path and the bytes, a stream's verdict does not depend on how its bytes
//! arrive, and `inspect` shows each line as a message.

mod common;
use common::*;
use sselint::dialect::Dialect;
use sselint::lint::{Diagnostic, Settings};
use sselint::model::assembly::Ending;
use sselint::pipeline::StreamResult;

fn ollama() -> Dialect {
    Dialect::parse("ollama").unwrap()
}

fn lint_bytes_with(bytes: &[u8], step: usize, settings: &Settings) -> StreamResult {
    lint_stream_in_reads(bytes, step, settings)
}

fn lint_bytes(bytes: &[u8]) -> StreamResult {
    lint_bytes_with(bytes, 0, &Settings::default())
}

fn sample(name: &str) -> Vec<u8> {
    std::fs::read(root().join("samples").join(name)).unwrap()
}

fn rules(s: &StreamResult) -> Vec<&'static str> {
    s.diagnostics.iter().map(|d| d.rule).collect()
}

fn only<'a>(s: &'a StreamResult, rule: &str) -> &'a Diagnostic {
    let found: Vec<&Diagnostic> = s.diagnostics.iter().filter(|d| d.rule == rule).collect();
    assert_eq!(found.len(), 1, "{rule}: {:?}", rules(s));
    found[0]
}

#[test]
fn a_chat_with_thinking_and_a_tool_call_reads_whole_with_no_finding() {
    let s = lint_bytes(&sample("good/ollama-chat-tool.ndjson"));
    assert_eq!(s.dialect, Some(ollama()));
    assert!(s.diagnostics.is_empty(), "{:?}", rules(&s));
    let c = &s.answer.choices[&0];
    assert_eq!(c.reasoning.kept, "I should call get_weather for Oslo.");
    assert_eq!(c.text.kept, "");
    let call = &c.tool_calls[&0];
    assert_eq!(call.name.as_deref(), Some("get_weather"));
    assert_eq!(call.id.as_deref(), Some("call_k1"));
    let args: serde_json::Value = serde_json::from_str(&call.arguments).unwrap();
    assert_eq!(args, serde_json::json!({"city": "Oslo", "unit": "celsius"}));
    assert_eq!(c.finish_reason.as_deref(), Some("stop"));
    assert_eq!(s.ending, Ending::Complete);
    let usage = s.answer.usage.as_ref().unwrap();
    assert_eq!(usage["prompt_eval_count"], 31);
    assert_eq!(usage["eval_count"], 22);
    assert_eq!(s.events, 3);
}

#[test]
fn chat_text_and_generate_read_to_their_text() {
    let s = lint_bytes(&sample("good/ollama-chat.ndjson"));
    assert!(s.diagnostics.is_empty(), "{:?}", rules(&s));
    let c = &s.answer.choices[&0];
    assert_eq!(
        c.text.kept,
        "Sunlight scatters off air molecules, and blue light scatters most."
    );
    assert_eq!(c.reasoning.kept, "The user asks why the sky is blue.");
    let g = lint_bytes(&sample("good/ollama-generate.ndjson"));
    assert!(g.diagnostics.is_empty(), "{:?}", rules(&g));
    assert_eq!(
        g.answer.choices[&0].text.kept,
        "Rain forms when vapour condenses."
    );
    assert_eq!(g.ending, Ending::Complete);
}

#[test]
fn a_line_that_is_not_json_is_found_at_its_first_byte() {
    let body = sample("bad/ollama-invalid-line.ndjson");
    let s = lint_bytes(&body);
    let d = only(&s, "ollama-invalid-line");
    let at = body.iter().position(|b| *b == b'\n').unwrap() as u64 + 1;
    assert_eq!(
        (d.location.byte_offset, d.location.line, d.location.column),
        (at, 2, 1)
    );
    assert_eq!(d.event_index, Some(1));
    // The lines around it still make the answer; the stream is complete.
    assert_eq!(s.ending, Ending::Complete);
    assert_eq!(rules(&s), ["ollama-invalid-line"]);
}

#[test]
fn a_blank_line_is_one_finding_and_nothing_else() {
    let body = b"{\"model\":\"m\",\"created_at\":\"t\",\"message\":{\"role\":\"assistant\",\"content\":\"Hi\"},\"done\":false}\n\n{\"model\":\"m\",\"created_at\":\"t\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\",\"prompt_eval_count\":3,\"eval_count\":1}\n";
    let s = lint_bytes(body);
    let d = only(&s, "ollama-invalid-line");
    assert!(d.message.contains("blank line"), "{}", d.message);
    assert_eq!(d.location.line, 2);
    assert_eq!(rules(&s), ["ollama-invalid-line"]);
}

#[test]
fn a_stream_without_done_is_cut_off_at_its_last_byte() {
    let body = sample("bad/ollama-cut-off.ndjson");
    let s = lint_bytes(&body);
    let d = only(&s, "ollama-cut-off");
    // The last byte of the last line (its newline excluded).
    assert_eq!(d.location.byte_offset, body.len() as u64 - 2);
    assert_eq!(d.location.line, 4);
    assert_eq!(s.ending, Ending::CutOff);
    assert_eq!(s.answer.choices[&0].finish_reason, None);
}

#[test]
fn a_stream_cut_inside_a_line_is_cut_off_not_also_invalid() {
    let mut body = sample("good/ollama-chat.ndjson");
    body.truncate(body.len() - 40);
    let s = lint_bytes(&body);
    // The half line is not JSON: its finding is the cause, and the
    // ending rule says nothing more.
    assert_eq!(rules(&s), ["ollama-invalid-line"], "{:?}", s.diagnostics);
    assert_eq!(s.ending, Ending::CutOff);
}

#[test]
fn an_error_line_is_found_at_its_message_and_the_stream_failed() {
    let body = sample("bad/ollama-error-line.ndjson");
    let s = lint_bytes(&body);
    let d = only(&s, "ollama-error-line");
    let text = String::from_utf8(body.clone()).unwrap();
    let at = text.find("\"model runner").unwrap() as u64;
    assert_eq!(d.location.byte_offset, at);
    assert_eq!(d.pointer.as_deref(), Some("/error"));
    assert!(d.message.contains("model runner has unexpectedly stopped"));
    assert_eq!(s.ending, Ending::Failed);
    assert_eq!(rules(&s), ["ollama-error-line"]);
}

#[test]
fn lines_after_done_are_an_error_when_they_add_text() {
    let s = lint_bytes(&sample("bad/ollama-after-done.ndjson"));
    let d = only(&s, "ollama-after-done");
    assert_eq!(d.severity, sselint::lint::Severity::Error);
    assert_eq!(d.location.line, 3);
}

#[test]
fn string_arguments_are_found_at_the_arguments() {
    let body = sample("bad/ollama-tool-call.ndjson");
    let s = lint_bytes(&body);
    let d = only(&s, "ollama-tool-call");
    let text = String::from_utf8(body).unwrap();
    let at = text.find("\"{\\\"city").unwrap() as u64;
    assert_eq!(d.location.byte_offset, at);
    assert_eq!(
        d.pointer.as_deref(),
        Some("/message/tool_calls/0/function/arguments")
    );
}

#[test]
fn the_verdict_does_not_depend_on_how_the_bytes_arrive() {
    let verdict = |s: &StreamResult| {
        let found: Vec<String> = s
            .diagnostics
            .iter()
            .map(|d| {
                format!(
                    "{} {} {}:{}",
                    d.rule, d.location.byte_offset, d.location.line, d.location.column
                )
            })
            .collect();
        (
            found,
            format!(
                "{:?} {:?}",
                s.ending,
                s.answer.choices.get(&0).map(|c| &c.text.kept)
            ),
            s.dialect,
        )
    };
    for name in [
        "good/ollama-chat-tool.ndjson",
        "bad/ollama-invalid-line.ndjson",
        "bad/ollama-error-line.ndjson",
        "bad/ollama-cut-off.ndjson",
    ] {
        let body = sample(name);
        let whole = verdict(&lint_bytes(&body));
        assert_eq!(whole.2, Some(ollama()), "{name}");
        for step in [1, 2, 7, 64] {
            let split = verdict(&lint_bytes_with(&body, step, &Settings::default()));
            assert_eq!(whole, split, "{name} in reads of {step} bytes");
        }
    }
}

#[test]
fn the_transport_is_told_from_the_content_type_and_the_path() {
    // A first line that is not an Ollama line: the bytes alone say SSE.
    let body = "{\"model\":\"m\",\"created_at\":\"t\",\"message\":{\"role\":\"assistant\",\"content\":\"Hi\"}}\n{\"model\":\"m\",\"created_at\":\"t\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\",\"prompt_eval_count\":3,\"eval_count\":1}\n";
    let plain = lint_bytes(body.as_bytes());
    assert_ne!(plain.dialect, Some(ollama()));
    assert!(
        rules(&plain).contains(&"body-not-sse"),
        "{:?}",
        rules(&plain)
    );
    // The same body sent as application/x-ndjson: Ollama's, and the first
    // line's missing `done` is the finding.
    let dump = format!("HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\n\r\n{body}");
    let by_type = lint_bytes(dump.as_bytes());
    assert_eq!(by_type.dialect, Some(ollama()));
    assert_eq!(rules(&by_type), ["ollama-line-shape"]);
    // Sent as JSON to /api/chat (curl -v shows the path): Ollama's too,
    // and the content type is reported.
    let dump = format!(
        "> POST /api/chat HTTP/1.1\r\n> Host: localhost:11434\r\n>\r\n< HTTP/1.1 200 OK\r\n< Content-Type: application/json\r\n<\r\n{body}"
    );
    let by_path = lint_bytes(dump.as_bytes());
    assert_eq!(by_path.dialect, Some(ollama()), "{:?}", rules(&by_path));
    assert!(
        rules(&by_path).contains(&"content-type"),
        "{:?}",
        rules(&by_path)
    );
    // --dialect ollama reads it as Ollama's whatever the rest says.
    let settings = Settings {
        dialect: Some(ollama()),
        ..Settings::default()
    };
    let forced = lint_bytes_with(body.as_bytes(), 0, &settings);
    assert_eq!(forced.dialect, Some(ollama()));
    assert_eq!(rules(&forced), ["ollama-line-shape"]);
}

#[test]
fn ollama_lines_framed_as_sse_stay_of_no_known_dialect() {
    // Ollama's clients read lines, not SSE events: an SSE stream carrying
    // Ollama objects is not an Ollama stream.
    let body = b"data: {\"model\":\"m\",\"message\":{\"role\":\"assistant\",\"content\":\"Hi\"},\"done\":true}\n\n";
    let s = lint_bytes(body);
    assert_eq!(s.dialect, None);
    assert!(rules(&s).contains(&"unknown-format"), "{:?}", rules(&s));
}

#[test]
fn a_har_entry_an_ndjson_dump_and_a_gateway_log_read_the_same() {
    let body = sample("good/ollama-chat-tool.ndjson");
    let text = String::from_utf8(body.clone()).unwrap();
    let dir = scratch("ollama-inputs");
    let b64 = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &body);
    let har = serde_json::json!({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [{
        "startedDateTime": "2026-01-02T03:04:05.000Z", "time": 190,
        "request": {"method": "POST", "url": "http://localhost:11434/api/chat", "httpVersion": "HTTP/1.1", "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": -1,
            "postData": {"mimeType": "application/json", "text": "{\"model\":\"qwen3:8b\",\"messages\":[{\"role\":\"user\",\"content\":\"Weather in Oslo?\"}]}"}},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [{"name": "Content-Type", "value": "application/x-ndjson"}], "cookies": [],
            "content": {"size": body.len(), "mimeType": "application/x-ndjson", "text": b64, "encoding": "base64"}, "redirectURL": "", "headersSize": -1, "bodySize": -1},
        "cache": {}, "timings": {"send": 0, "wait": 100, "receive": 90}}]}});
    let har_path = dir.join("ollama.har");
    std::fs::write(&har_path, har.to_string()).unwrap();
    let r = lint_file(&har_path);
    assert_eq!(r.streams.len(), 1);
    let h = &r.streams[0];
    assert_eq!(h.dialect, Some(ollama()));
    assert!(h.diagnostics.is_empty(), "{:?}", rules(h));
    assert_eq!(
        h.answer.choices[&0].tool_calls[&0].name.as_deref(),
        Some("get_weather")
    );
    let rec = serde_json::json!({"id": "r1", "status": 200, "headers": {"content-type": "application/x-ndjson"}, "path": "/api/chat", "body_base64": b64});
    let (code, stream, out) = check_gateway_record(&dir, &rec);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(stream["ending"], "complete", "{out}");
    assert_eq!(stream["choices"][0]["tool_calls"][0]["name"], "get_weather");
    assert!(text.ends_with('\n'));
}

#[test]
fn inspect_shows_each_line_as_a_message_with_its_span_and_kind() {
    let path = root().join("samples/bad/ollama-invalid-line.ndjson");
    let (code, out, err) = sselint(&["inspect", "--format", "jsonl", path.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let records: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let messages: Vec<&serde_json::Value> =
        records.iter().filter(|r| r["type"] == "message").collect();
    assert_eq!(messages.len(), 4);
    assert!(messages.iter().all(|m| m["transport"] == "ndjson"));
    assert_eq!(messages[0]["kind"], "content");
    assert_eq!(messages[1]["kind"], "invalid");
    assert_eq!(messages[1]["line"], 2);
    assert_eq!(messages[1]["diagnostics"][0]["rule"], "ollama-invalid-line");
    assert_eq!(messages[3]["kind"], "finish+usage");
    let offsets: Vec<u64> = messages
        .iter()
        .map(|m| m["byte_offset"].as_u64().unwrap())
        .collect();
    let lens: Vec<u64> = messages
        .iter()
        .map(|m| m["byte_len"].as_u64().unwrap())
        .collect();
    for i in 1..offsets.len() {
        assert_eq!(offsets[i], offsets[i - 1] + lens[i - 1]);
    }
}
