//! WebSocket captures (issue 39): Responses' WebSocket mode from a Chrome
//! HAR's `_webSocketMessages` and from a message log, one stream per
//! response, and the socket's own rules at their messages. The sessions
//! are written by scripts/ws_session.py from the documented shapes.

mod common;
use common::{lint_file, root, scratch, sselint};

fn session(kind: &str) -> String {
    common::session_log("ws_session.py", kind)
}

fn lint_log(kind: &str) -> sselint::pipeline::FileResult {
    common::lint_session_log("ws_session.py", "ws", kind)
}

fn found(r: &sselint::pipeline::FileResult) -> Vec<(&'static str, u64)> {
    common::findings_by_line(r)
}

#[test]
fn a_chrome_har_of_two_turns_and_a_tool_call_gives_each_response_its_answer_and_no_finding() {
    let r = lint_file(&root().join("samples/websocket/responses-two-turns.har"));
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.streams.len(), 2, "one stream per response");
    let first = &r.streams[0];
    assert!(first.label.ends_with("· resp_a1"), "{}", first.label);
    let call = &first.answer.choices[&0].tool_calls[&0];
    assert_eq!(call.name.as_deref(), Some("get_weather"));
    assert_eq!(call.arguments, r#"{"city":"Paris"}"#);
    let second = &r.streams[1];
    assert!(second.label.ends_with("· resp_d4"), "{}", second.label);
    assert_eq!(
        second.answer.choices[&0].text.kept,
        "It is 18 °C and sunny in Paris."
    );
    for s in &r.streams {
        assert_eq!(s.dialect, Some(sselint::dialect::Dialect::Responses));
        assert_eq!(s.ending, sselint::model::assembly::Ending::Complete);
        assert!(s.diagnostics.is_empty(), "{}: {:?}", s.label, s.diagnostics);
    }
}

#[test]
fn each_documented_fault_is_found_at_its_message() {
    // (session, rule, the log line of the message it is found at)
    let cases = [
        ("cut", "ws-closed-mid-response", 7),
        ("cut-no-close", "ws-closed-mid-response", 7),
        ("close-1011", "ws-close-code", 13),
        ("refused", "ws-error-message", 14),
        ("unparseable", "ws-unparseable-message", 5),
        ("no-create", "ws-response-without-create", 1),
        ("overlap", "ws-lane-overlap", 5),
        ("collide", "ws-response-id-collision", 4),
        // An error inside a running response is that response's.
        ("failed-inside", "responses-error-event", 7),
    ];
    for (kind, rule, line) in cases {
        let got = found(&lint_log(kind));
        assert_eq!(got, vec![(rule, line)], "{kind}");
    }
}

/// An `error` inside a response ends it, as over SSE (its line says
/// `failed`): a close with 1011 after it is the socket's abnormal close,
/// and the next turn on the lane is no overlap. A response id used again
/// by the next response on the lane is only noted: each response gets its
/// own events (fresh-user trial of issue 39, M3 and M4).
#[test]
fn an_error_ends_its_response_and_a_reused_id_keeps_each_responses_events() {
    let cases: [(&str, &[(&str, u64)]); 3] = [
        (
            "error-then-close",
            &[("responses-error-event", 7), ("ws-close-code", 8)],
        ),
        ("error-then-next", &[("responses-error-event", 7)]),
        ("reused-id", &[("ws-response-id-collision", 14)]),
    ];
    for (kind, want) in cases {
        let r = lint_log(kind);
        assert_eq!(found(&r), want, "{kind}");
    }
    let reused = lint_log("reused-id");
    let texts: Vec<&str> = reused
        .streams
        .iter()
        .map(|s| s.answer.choices[&0].text.kept.as_str())
        .collect();
    assert_eq!(texts, ["Hi there!", "Rain."]);
    assert!(reused
        .streams
        .iter()
        .all(|s| s.ending == sselint::model::assembly::Ending::Complete));
}

#[test]
fn a_queued_create_and_interleaved_lanes_are_no_fault() {
    for kind in ["queued", "lanes", "full", "two-turns", "rate-limits"] {
        let r = lint_log(kind);
        assert!(found(&r).is_empty(), "{kind}: {:?}", found(&r));
        assert!(r
            .streams
            .iter()
            .all(|s| s.ending == sselint::model::assembly::Ending::Complete));
    }
    let lanes = lint_log("lanes");
    let texts: Vec<&str> = lanes
        .streams
        .iter()
        .map(|s| s.answer.choices[&0].text.kept.as_str())
        .collect();
    assert_eq!(texts, ["Hi there!", "Bonjour!"]);
}

#[test]
fn dialect_names_what_a_sockets_messages_mean() {
    // A dialect with no WebSocket mode reads the socket as one stream.
    let dir = scratch("ws-forced");
    let p = dir.join("s.jsonl");
    std::fs::write(&p, session("two-turns")).unwrap();
    for d in ["chat", "gemini", "responses"] {
        let (code, out, err) = sselint(&[
            "check",
            p.to_str().unwrap(),
            "--dialect",
            d,
            "--format",
            "json",
        ]);
        assert!(matches!(code, Some(0 | 1)), "{d}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let streams = v["files"][0]["streams"].as_array().unwrap();
        assert_eq!(streams.len(), if d == "responses" { 2 } else { 1 }, "{d}");
    }
}

#[test]
fn a_binary_frame_in_a_har_is_unparseable_and_no_key_is_printed() {
    let dir = scratch("ws-binary");
    let src =
        std::fs::read_to_string(root().join("samples/websocket/responses-two-turns.har")).unwrap();
    let mut har: serde_json::Value = serde_json::from_str(&src).unwrap();
    let entry = &mut har["log"]["entries"][0];
    entry["request"]["url"] = "wss://api.openai.com/v1/responses?api_key=sk-wsSECRET1".into();
    entry["request"]["headers"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"name": "Authorization", "value": "Bearer sk-wsSECRET1"}));
    entry["_webSocketMessages"].as_array_mut().unwrap().insert(
        3,
        serde_json::json!({"type": "receive", "time": 1798000000.3, "opcode": 2, "data": "AAEC"}),
    );
    let p = dir.join("ws.har");
    std::fs::write(&p, har.to_string()).unwrap();
    let r = lint_file(&p);
    assert_eq!(
        found(&r).iter().map(|f| f.0).collect::<Vec<_>>(),
        ["ws-unparseable-message"]
    );
    let path = p.to_str().unwrap();
    for format in ["human", "json", "sarif", "github", "junit"] {
        let (code, out, err) = sselint(&["check", path, "--format", format]);
        assert_eq!(code, Some(1), "{format}: {err}");
        assert!(out.contains("ws-unparseable-message"), "{format}");
        assert!(
            !out.contains("wsSECRET") && !err.contains("wsSECRET"),
            "{format}"
        );
    }
    let (code, out, _) = sselint(&["inspect", path]);
    assert_eq!(code, Some(0));
    assert!(out.contains("sent") && out.contains("received"));
    assert!(!out.contains("wsSECRET"));
}

#[test]
fn redact_masks_the_handshake_and_scrubs_the_frames_of_a_har_and_of_a_log() {
    let dir = scratch("ws-redact");
    let src =
        std::fs::read_to_string(root().join("samples/websocket/responses-two-turns.har")).unwrap();
    let mut har: serde_json::Value = serde_json::from_str(&src).unwrap();
    let entry = &mut har["log"]["entries"][0];
    entry["request"]["url"] = "wss://api.openai.com/v1/responses?api_key=sk-wsSECRET2".into();
    entry["request"]["headers"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"name": "Authorization", "value": "Bearer sk-wsSECRET2"}));
    let p = dir.join("ws.har");
    std::fs::write(&p, har.to_string()).unwrap();
    let log = dir.join("ws.jsonl");
    std::fs::write(&log, session("two-turns")).unwrap();
    for (input, out) in [(&p, dir.join("out.har")), (&log, dir.join("out.jsonl"))] {
        let (code, _, err) = sselint(&[
            "redact",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--scrub-text",
        ]);
        assert_eq!(code, Some(0), "{err}");
        let copy = std::fs::read_to_string(&out).unwrap();
        for prose in ["wsSECRET", "Paris", "sunny", "weather in"] {
            assert!(!copy.contains(prose), "{}: {prose}", out.display());
        }
        // The copy is still a socket of two complete responses.
        let r = lint_file(&out);
        assert_eq!(r.streams.len(), 2, "{}", out.display());
        assert!(found(&r).is_empty(), "{:?}", found(&r));
    }
}

#[test]
fn replay_serves_a_socket_capture_message_for_message() {
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    let cap = root().join("samples/websocket/responses-two-turns.har");
    let replay = sselint::replay::Replay::load(
        cap.to_str().unwrap(),
        &sselint::capture::Options::default(),
        None,
    )
    .unwrap();
    // The log as the capture holds it: what the client sends, what it gets.
    let log = session("two-turns");
    let records: Vec<sselint::transport::socket_log::Record> = log
        .lines()
        .map(|l| sselint::transport::socket_log::record(l).unwrap())
        .collect();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let opts = sselint::replay::Options {
        once: true,
        ..Default::default()
    };
    let stop = Arc::new(AtomicBool::new(false));
    let server =
        std::thread::spawn(move || sselint::replay::serve(listener, Arc::new(replay), opts, stop));
    let (mut ws, resp) = tungstenite::connect(format!("ws://{addr}/v1/responses")).unwrap();
    assert_eq!(resp.status(), 101);
    let mut got = Vec::new();
    let mut want = Vec::new();
    let mut i = 0;
    while i < records.len() {
        let r = &records[i];
        i += 1;
        if r.direction == sselint::transport::Direction::Sent {
            ws.send(tungstenite::Message::Text(r.data.clone().into()))
                .unwrap();
            continue;
        }
        want.push(r.data.clone());
        match ws.read().unwrap() {
            tungstenite::Message::Text(t) => got.push(t.to_string()),
            other => panic!("not text: {other:?}"),
        }
    }
    assert_eq!(
        got.len(),
        19,
        "9 events of the first turn, 10 of the second"
    );
    assert_eq!(got, want, "message for message");
    ws.close(None).unwrap();
    while ws.read().is_ok() {}
    server.join().unwrap().unwrap();
}

#[test]
fn replay_then_record_gives_the_capture_back_message_for_message() {
    use sselint::transport::{socket_log::record, Direction};
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    // The recorder sends a turn when the one before has ended: logs whose
    // client sends several requests at once (lanes side by side) are not
    // what it records.
    for kind in ["two-turns", "close-1011", "refused"] {
        let dir = scratch(&format!("ws-roundtrip-{kind}"));
        let original = dir.join("in.jsonl");
        std::fs::write(&original, session(kind)).unwrap();
        let replay = sselint::replay::Replay::load(
            original.to_str().unwrap(),
            &sselint::capture::Options::default(),
            None,
        )
        .unwrap();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let opts = sselint::replay::Options {
            once: true,
            delay_ms: Some(0),
            ..Default::default()
        };
        let stop = Arc::new(AtomicBool::new(false));
        let server = std::thread::spawn(move || {
            sselint::replay::serve(listener, Arc::new(replay), opts, stop)
        });
        let log = session(kind);
        let sent: Vec<String> = log
            .lines()
            .map(|l| record(l).unwrap())
            .filter(|r| r.direction == Direction::Sent)
            .map(|r| r.data)
            .collect();
        let req = sselint::live::socket::SocketRequest {
            url: format!("ws://{addr}/v1/responses"),
            headers: Vec::new(),
            api_key: Some("sk-wsSECRET3".into()),
            script: sselint::live::socket::Script::of_messages(sent),
            dialect: sselint::dialect::Dialect::Responses,
            read_timeout: std::time::Duration::from_secs(10),
            timeout: None,
            insecure: false,
        };
        let mut out = Vec::new();
        let rec = sselint::live::socket::record(&req, &mut out).unwrap();
        server.join().unwrap().unwrap();
        assert_eq!(rec.status, 101);
        let text = String::from_utf8(out).unwrap();
        assert!(!text.contains("wsSECRET"));
        // Every record but its time.
        let shape = |t: &str| -> Vec<sselint::transport::socket_log::Record> {
            t.lines()
                .map(|l| record(l).unwrap())
                .map(|r| sselint::transport::socket_log::Record { time: None, ..r })
                .collect()
        };
        assert_eq!(shape(&text), shape(&log), "{kind}: message for message");
        let saved = dir.join("out.jsonl");
        std::fs::write(&saved, &text).unwrap();
        let (r1, r2) = (lint_file(&original), lint_file(&saved));
        assert_eq!(found(&r1), found(&r2), "{kind}");
    }
}

/// A socket's responses are named by the file once, then the response: the
/// label of a message log is its path, and a response's adds ` · ID`
/// (the file's name was printed twice, `F F · resp_1`).
#[test]
fn each_response_of_a_message_log_names_the_file_once() {
    let p = root().join("samples/bad/ws-lane-overlap.jsonl");
    let path = p.display().to_string();
    let (_, text, _) = sselint(&["check", &path]);
    let heads: Vec<&str> = text.lines().filter(|l| l.contains(" · resp_")).collect();
    assert_eq!(heads.len(), 2, "{text}");
    for h in heads {
        assert_eq!(h.matches(path.as_str()).count(), 1, "{h}");
        assert!(h.starts_with(&format!("{path} · resp_")), "{h}");
    }
}

/// `replay` of a message log with no URL says in its start line that it
/// serves a WebSocket, at its `ws://` address (clients/run.py reads it),
/// not "a stream of no known dialect, served as Chat".
#[test]
fn replay_of_a_log_with_no_url_says_it_serves_a_websocket() {
    use std::io::BufRead;
    let dir = scratch("ws-replay-line");
    let p = dir.join("session.jsonl");
    std::fs::write(&p, session("two-turns")).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sselint"))
        .arg("replay")
        .arg(&p)
        .args(["--listen", "127.0.0.1:0", "--once"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(line.contains(" on ws://127.0.0.1:"), "{line}");
    assert!(line.contains("WebSocket"), "{line}");
    assert!(!line.contains("no known dialect"), "{line}");
    assert!(!line.contains("served as Chat"), "{line}");
}

#[test]
fn a_close_mid_response_is_one_finding_that_names_its_code_and_whether_it_is_normal() {
    // The response of `close-1011` is cut before `response.completed`:
    // the close is the cause of the cut, so it is one finding
    // (`ws-closed-mid-response`, not also `ws-close-code`), which names
    // the code and says when it is not a normal closure.
    let log = session("close-1011");
    let lines: Vec<&str> = log
        .lines()
        .filter(|l| !l.contains("response.completed"))
        .collect();
    let dir = scratch("ws-close-mid");
    for (code, abnormal) in [(1011, true), (4000, true), (1001, true), (1000, false)] {
        let mut body = lines.join("\n") + "\n";
        body = body.replace("\"code\":1011", &format!("\"code\":{code}"));
        let p = dir.join(format!("close-{code}.jsonl"));
        std::fs::write(&p, body).unwrap();
        let r = lint_file(&p);
        let got: Vec<_> = r
            .streams
            .iter()
            .flat_map(|s| &s.diagnostics)
            .map(|d| (d.rule, d.message.clone()))
            .collect();
        assert_eq!(got.len(), 1, "{code}: {got:?}");
        let (rule, message) = &got[0];
        assert_eq!(*rule, "ws-closed-mid-response", "{code}");
        assert!(
            message.contains(&format!("code {code}")),
            "{code}: {message}"
        );
        assert_eq!(
            message.contains("not 1000 (normal closure)"),
            abnormal,
            "{code}: {message}"
        );
    }
}

/// A message log line.
fn log_line(sent: bool, data: serde_json::Value) -> String {
    let dir = if sent { "sent" } else { "received" };
    format!(
        "{}\n",
        serde_json::json!({"direction": dir, "opcode": 1, "data": data.to_string()})
    )
}

/// A complete Responses turn `id` on `lane`, asked for by a create that
/// continues `parent`.
fn chained_turn(id: &str, lane: Option<&str>, parent: Option<&str>) -> String {
    let with_lane = |mut v: serde_json::Value| {
        if let Some(l) = lane {
            v["stream_id"] = l.into();
        }
        v
    };
    let mut create = serde_json::json!({"type": "response.create", "model": "gpt-x", "store": false, "input": "next"});
    if let Some(p) = parent {
        create["previous_response_id"] = p.into();
    }
    let mut out = log_line(true, with_lane(create));
    let item = format!("msg_{id}");
    let resp = |status: &str| serde_json::json!({"id": id, "object": "response", "created_at": 1798000000, "status": status, "model": "gpt-x", "output": []});
    let done = serde_json::json!({"id": item, "type": "message", "status": "completed", "role": "assistant",
        "content": [{"type": "output_text", "text": "Hi.", "annotations": []}]});
    let mut c = resp("completed");
    c["output"] = serde_json::json!([done]);
    let events = [
        serde_json::json!({"type": "response.created", "response": resp("in_progress")}),
        serde_json::json!({"type": "response.output_item.added", "output_index": 0,
            "item": {"id": item, "type": "message", "status": "in_progress", "role": "assistant", "content": []}}),
        serde_json::json!({"type": "response.content_part.added", "item_id": item, "output_index": 0, "content_index": 0,
            "part": {"type": "output_text", "text": "", "annotations": []}}),
        serde_json::json!({"type": "response.output_text.delta", "item_id": item, "output_index": 0, "content_index": 0, "delta": "Hi."}),
        serde_json::json!({"type": "response.output_text.done", "item_id": item, "output_index": 0, "content_index": 0, "text": "Hi."}),
        serde_json::json!({"type": "response.content_part.done", "item_id": item, "output_index": 0, "content_index": 0,
            "part": {"type": "output_text", "text": "Hi.", "annotations": []}}),
        serde_json::json!({"type": "response.output_item.done", "output_index": 0, "item": done}),
        serde_json::json!({"type": "response.completed", "response": c}),
    ];
    for (n, mut e) in events.into_iter().enumerate() {
        e["sequence_number"] = n.into();
        out.push_str(&log_line(false, with_lane(e)));
    }
    out
}

#[test]
fn a_previous_response_id_chain_is_shown_a_fork_is_no_fault_and_a_lost_parent_is_named() {
    // resp_1 on lane `a`; resp_2 continues it there; resp_3 forks it onto
    // lane `b`; then a request continues `resp_gone`, which this socket
    // never had, and the server answers `previous_response_not_found`.
    let mut log = chained_turn("resp_1", Some("a"), None);
    log.push_str(&chained_turn("resp_2", Some("a"), Some("resp_1")));
    log.push_str(&chained_turn("resp_3", Some("b"), Some("resp_1")));
    log.push_str(&log_line(
        true,
        serde_json::json!({"type": "response.create", "model": "gpt-x", "store": false, "input": "more", "previous_response_id": "resp_gone"}),
    ));
    log.push_str(&log_line(
        false,
        serde_json::json!({"type": "error", "status": 400, "error": {"type": "invalid_request_error", "code": "previous_response_not_found",
            "message": "Previous response with id 'resp_gone' not found.", "param": "previous_response_id"}}),
    ));
    let dir = scratch("ws-chain");
    let path = dir.join("chain.jsonl");
    std::fs::write(&path, &log).unwrap();
    let r = lint_file(&path);
    let by = |id: &str| {
        r.streams
            .iter()
            .find(|s| s.label.contains(&format!("· {id} ")) || s.label.ends_with(id))
            .unwrap_or_else(|| panic!("no {id}"))
    };
    assert!(by("resp_1").notes.iter().all(|n| !n.contains("continues")));
    let note = |id: &str| by(id).notes.join("\n");
    assert!(
        note("resp_2").contains("continues `resp_1`")
            && note("resp_2").contains("an earlier response on this lane"),
        "{}",
        note("resp_2")
    );
    assert!(
        note("resp_3").contains("continues `resp_1`") && note("resp_3").contains("fork"),
        "{}",
        note("resp_3")
    );
    // The fork and the chain are no fault; the lost parent is the error's.
    let all: Vec<_> = r
        .streams
        .iter()
        .flat_map(|s| &s.diagnostics)
        .filter(|d| d.severity >= sselint::lint::Severity::Warning)
        .collect();
    assert_eq!(all.len(), 1, "{all:#?}");
    let d = all[0];
    assert_eq!(d.rule, "ws-error-message");
    assert!(
        d.message.contains("previous_response_not_found")
            && d.message.contains("continues `resp_gone`")
            && d.message.contains("no earlier response on this socket had"),
        "{}",
        d.message
    );
    // `inspect` shows the chain.
    let (_, out, _) = sselint(&["inspect", path.to_str().unwrap()]);
    assert!(
        out.contains("this response continues `resp_1` (its `previous_response_id`), an earlier response on this lane"),
        "{out}"
    );
    assert!(out.contains("a fork onto another lane"), "{out}");
}

/// A HAR socket entry that holds no frames (Chrome's with an empty
/// `_webSocketMessages`, Firefox's with none at all) is no failed request:
/// the error says the export holds no frames and how to get them
/// (fresh-user trial of issue 39, M7).
#[test]
fn a_har_socket_entry_without_frames_says_so() {
    let har: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("samples/websocket/responses-two-turns.har")).unwrap(),
    )
    .unwrap();
    let dir = scratch("ws-no-frames");
    let chrome = {
        let mut h = har.clone();
        h["log"]["entries"][0]["_webSocketMessages"] = serde_json::json!([]);
        h
    };
    let firefox = {
        let mut h = har.clone();
        let e = h["log"]["entries"][0].as_object_mut().unwrap();
        e.remove("_webSocketMessages");
        e.remove("_resourceType");
        h
    };
    for (name, h) in [("chrome", chrome), ("firefox", firefox)] {
        let p = dir.join(format!("{name}.har"));
        std::fs::write(&p, h.to_string()).unwrap();
        let path = p.to_str().unwrap();
        for entry in [None, Some("0")] {
            let mut args = vec!["check", path];
            if let Some(n) = entry {
                args.extend(["--entry", n]);
            }
            let (code, _, err) = sselint(&args);
            assert_eq!(code, Some(2), "{name} {entry:?}: {err}");
            assert!(
                err.contains("WebSocket") && err.contains("holds no frames"),
                "{name} {entry:?}: {err}"
            );
            assert!(!err.contains("the request failed"), "{name}: {err}");
        }
    }
}
