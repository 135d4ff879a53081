//! OpenAI's Realtime API over a WebSocket (issue 39): a Chrome HAR of a
//! text session and of a function-call turn, read with the right answer
//! and no finding; the documented faults found at their messages; both
//! trees' event names read; audio checked and never printed; `inspect`,
//! `redact` and `replay` on a Realtime capture. The sessions are written
//! by scripts/realtime_session.py from the documented shapes.

mod common;
use common::{lint_file, root, scratch, sselint};
use sselint::dialect::Dialect;
use sselint::model::assembly::Ending;

fn session(kind: &str) -> String {
    common::session_log("realtime_session.py", kind)
}

fn lint_log(kind: &str) -> sselint::pipeline::FileResult {
    common::lint_session_log("realtime_session.py", "rt", kind)
}

fn found(r: &sselint::pipeline::FileResult) -> Vec<(&'static str, u64)> {
    common::findings_by_line(r)
}

#[test]
fn a_chrome_har_of_a_text_session_gives_the_answer_and_no_finding() {
    let r = lint_file(&root().join("samples/websocket/realtime-text.har"));
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.streams.len(), 1, "one response");
    let s = &r.streams[0];
    assert!(s.label.ends_with("· resp_001"), "{}", s.label);
    assert_eq!(s.dialect, Some(Dialect::Realtime));
    assert_eq!(s.ending, Ending::Complete);
    let c = &s.answer.choices[&0];
    assert_eq!(c.text.kept, "The capital of France is Paris.");
    assert_eq!(c.finish_reason.as_deref(), Some("completed"));
    let usage = s.answer.usage.as_ref().unwrap();
    assert_eq!(usage["total_tokens"], 33);
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
}

#[test]
fn a_function_call_turn_gives_the_call_then_the_answer() {
    let r = lint_file(&root().join("samples/websocket/realtime-function-call.har"));
    assert_eq!(r.streams.len(), 2, "{:?}", found(&r));
    let call = &r.streams[0].answer.choices[&0].tool_calls[&0];
    assert_eq!(call.name.as_deref(), Some("get_weather"));
    assert_eq!(call.id.as_deref(), Some("call_001"));
    assert_eq!(call.arguments, r#"{"city":"Paris"}"#);
    assert_eq!(
        r.streams[1].answer.choices[&0].text.kept,
        "It is 18 °C and sunny in Paris."
    );
    for s in &r.streams {
        assert_eq!(s.dialect, Some(Dialect::Realtime));
        assert_eq!(s.ending, Ending::Complete);
        assert!(s.diagnostics.is_empty(), "{}: {:?}", s.label, s.diagnostics);
    }
}

#[test]
fn the_beta_names_are_read_and_the_finding_says_they_were_seen() {
    let r = lint_file(&root().join("samples/websocket/realtime-text-beta.har"));
    assert_eq!(r.streams.len(), 1);
    let s = &r.streams[0];
    assert_eq!(
        s.answer.choices[&0].text.kept,
        "The capital of France is Paris."
    );
    assert_eq!(s.ending, Ending::Complete);
    let rules: Vec<_> = s.diagnostics.iter().map(|d| d.rule).collect();
    assert_eq!(rules, ["realtime-event-names"]);
    let d = &s.diagnostics[0];
    assert_eq!(d.severity, sselint::lint::Severity::Info);
    assert!(
        d.message.contains("`response.text.delta`, the beta name"),
        "{}",
        d.message
    );
    // Both trees in one response: an error naming both.
    let r = lint_log("mixed-names");
    let d = &r.streams[0].diagnostics;
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].severity, sselint::lint::Severity::Error);
    assert!(
        d[0].message.contains("response.text.delta")
            && d[0].message.contains("beta")
            && d[0].message.contains("GA"),
        "{}",
        d[0].message
    );
}

#[test]
fn each_documented_fault_is_found_at_its_message() {
    // (session, rule, the log line of the message it is found at)
    let cases = [
        // The socket closes (1006) inside the response.
        ("cut", "ws-closed-mid-response", 14),
        // A server error inside the response, which then ends failed:
        // one cause, one finding.
        ("error", "realtime-error-event", 14),
        ("unparseable", "ws-unparseable-message", 10),
        ("audio-bad", "realtime-audio-base64", 13),
        ("delta-mismatch", "realtime-delta-mismatch", 16),
        ("bad-args", "realtime-arguments-json", 14),
        ("no-usage", "realtime-usage", 20),
        ("bad-rate-limits", "realtime-rate-limits", 9),
        ("incomplete", "realtime-response-status", 20),
        // A second create while the response runs is refused, not queued:
        // the error answers it, and the running response is not to blame
        // (fresh-user trial of issue 39, M2).
        ("busy", "ws-error-message", 15),
    ];
    for (kind, rule, line) in cases {
        let got = found(&lint_log(kind));
        assert_eq!(got, [(rule, line)], "{kind}");
    }
    let cut = lint_log("cut");
    assert_eq!(cut.streams[0].ending, Ending::CutOff);
    assert_eq!(
        cut.streams[0].answer.choices[&0].text.kept,
        "The capital of France"
    );
    let error = lint_log("error");
    assert_eq!(error.streams[0].ending, Ending::Failed);
}

#[test]
fn audio_is_counted_and_checked_and_never_printed() {
    let r = lint_log("audio");
    assert!(found(&r).is_empty(), "{:?}", found(&r));
    let c = &r.streams[0].answer.choices[&0];
    assert_eq!(c.transcript.kept, "The capital of France is Paris.");
    let dir = scratch("rt-audio-print");
    let p = dir.join("audio.jsonl");
    std::fs::write(&p, session("audio")).unwrap();
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, session("audio-bad")).unwrap();
    // 960 zero bytes in base64 start with this run.
    let audio = "AAAAAAAAAAAAAAAA";
    for path in [&p, &bad] {
        let path = path.to_str().unwrap();
        for format in ["human", "json", "sarif", "github", "junit"] {
            let (_, out, err) = sselint(&["check", path, "--format", format]);
            assert!(!out.contains(audio) && !err.contains(audio), "{format}");
        }
        let (code, out, _) = sselint(&["inspect", path]);
        assert_eq!(code, Some(0));
        assert!(!out.contains(audio), "inspect printed the audio");
        assert!(out.contains("audio"), "{out}");
    }
}

#[test]
fn the_url_or_the_events_tell_a_realtime_socket() {
    // A log (no URL) is told by its events: `session.created` first.
    let r = lint_log("text");
    assert_eq!(r.streams[0].dialect, Some(Dialect::Realtime));
    assert!(found(&r).is_empty(), "{:?}", found(&r));
    // A HAR whose URL is /v1/realtime, whose events show nothing of their
    // own before the response (no session events): the URL tells.
    let src = std::fs::read_to_string(root().join("samples/websocket/realtime-text.har")).unwrap();
    let mut har: serde_json::Value = serde_json::from_str(&src).unwrap();
    let msgs = har["log"]["entries"][0]["_webSocketMessages"]
        .as_array_mut()
        .unwrap();
    msgs.retain(|m| {
        let d = m["data"].as_str().unwrap_or("");
        !d.contains("\"session.") && !d.contains("\"conversation.")
    });
    let dir = scratch("rt-url");
    let p = dir.join("url.har");
    std::fs::write(&p, har.to_string()).unwrap();
    let r = lint_file(&p);
    assert_eq!(r.streams[0].dialect, Some(Dialect::Realtime));
    // The Responses socket sample is still Responses.
    let r = lint_file(&root().join("samples/websocket/responses-two-turns.har"));
    assert!(r
        .streams
        .iter()
        .all(|s| s.dialect == Some(Dialect::Responses)));
}

#[test]
fn redact_scrubs_the_frames_and_the_audio_and_the_copy_still_reads() {
    let dir = scratch("rt-redact");
    let src = std::fs::read_to_string(root().join("samples/websocket/realtime-audio.har")).unwrap();
    let mut har: serde_json::Value = serde_json::from_str(&src).unwrap();
    let entry = &mut har["log"]["entries"][0];
    entry["request"]["headers"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"name": "Authorization", "value": "Bearer sk-rtSECRET1"}));
    let p = dir.join("rt.har");
    std::fs::write(&p, har.to_string()).unwrap();
    let log = dir.join("rt.jsonl");
    std::fs::write(&log, session("audio")).unwrap();
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
        for prose in ["rtSECRET", "Paris", "capital", "AAAAAAAAAAAAAAAA"] {
            assert!(!copy.contains(prose), "{}: {prose}", out.display());
        }
        // Still a Realtime socket of one complete response, with its
        // audio still base64.
        let r = lint_file(&out);
        assert_eq!(r.streams.len(), 1, "{}", out.display());
        assert_eq!(r.streams[0].dialect, Some(Dialect::Realtime));
        assert_eq!(r.streams[0].ending, Ending::Complete);
        assert!(found(&r).is_empty(), "{}: {:?}", out.display(), found(&r));
    }
}

#[test]
fn replay_serves_a_realtime_capture_message_for_message() {
    use sselint::transport::{socket_log::record, Direction};
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    let cap = root().join("samples/websocket/realtime-function-call.har");
    let replay = sselint::replay::Replay::load(
        cap.to_str().unwrap(),
        &sselint::capture::Options::default(),
        None,
    )
    .unwrap();
    let records: Vec<_> = session("function-call")
        .lines()
        .map(|l| record(l).unwrap())
        .collect();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let opts = sselint::replay::Options {
        once: true,
        delay_ms: Some(0),
        ..Default::default()
    };
    let stop = Arc::new(AtomicBool::new(false));
    let server =
        std::thread::spawn(move || sselint::replay::serve(listener, Arc::new(replay), opts, stop));
    let (mut ws, resp) =
        tungstenite::connect(format!("ws://{addr}/v1/realtime?model=gpt-realtime")).unwrap();
    assert_eq!(resp.status(), 101);
    let (mut got, mut want) = (Vec::new(), Vec::new());
    for r in &records {
        if r.direction == Direction::Sent {
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
    assert_eq!(got.len(), 29);
    assert_eq!(got, want, "message for message");
    ws.close(None).unwrap();
    while ws.read().is_ok() {}
    server.join().unwrap().unwrap();
}

/// A sent `input_audio_buffer.append` is the client's audio: `inspect`
/// shows how many bytes it decodes to, never its base64 (it printed the
/// first ~60 characters of the message, the audio's start among them).
#[test]
fn inspect_never_prints_the_audio_a_client_sends() {
    use base64::Engine as _;
    let bytes: Vec<u8> = (0..3000u32).map(|i| (i * 7 + 13) as u8).collect();
    let audio = base64::engine::general_purpose::STANDARD.encode(&bytes);
    let append = serde_json::json!({"type": "input_audio_buffer.append", "audio": audio});
    let line = serde_json::json!({"direction": "sent", "opcode": 1, "data": append.to_string()});
    let log = session("audio");
    let mut lines: Vec<String> = log.lines().map(str::to_string).collect();
    lines.insert(1, line.to_string());
    let dir = scratch("rt-sent-audio");
    let p = dir.join("sent-audio.jsonl");
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    let (code, out, _) = sselint(&["inspect", p.to_str().unwrap(), "--color", "never"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        !out.contains(&audio[..12]),
        "inspect printed the audio:\n{out}"
    );
    assert!(out.contains("input_audio_buffer.append"), "{out}");
    assert!(out.contains("3000 bytes"), "{out}");
}

#[test]
fn the_audio_bytes_never_appear_in_any_inspect_or_check_format() {
    // Audio a client sends (`input_audio_buffer.append`) and audio the
    // server sends (GA `response.output_audio.delta`, beta
    // `response.audio.delta`), each of bytes no other part of the
    // capture holds.
    use base64::Engine as _;
    let b64 = |seed: u32| {
        let bytes: Vec<u8> = (0..600u32).map(|i| (i * 7 + seed) as u8).collect();
        base64::engine::general_purpose::STANDARD.encode(&bytes)
    };
    let dir = scratch("rt-audio-formats");
    for kind in ["audio", "audio-beta"] {
        let mut shown = Vec::new();
        let mut lines = Vec::new();
        for (n, line) in session(kind).lines().enumerate() {
            let mut rec: serde_json::Value = serde_json::from_str(line).unwrap();
            if let Some(data) = rec["data"].as_str() {
                let mut ev: serde_json::Value = serde_json::from_str(data).unwrap_or_default();
                if ev["type"]
                    .as_str()
                    .is_some_and(|t| t.ends_with("audio.delta"))
                {
                    let audio = b64(n as u32 + 13);
                    shown.push(audio[..16].to_string());
                    ev["delta"] = audio.into();
                    rec["data"] = ev.to_string().into();
                }
            }
            lines.push(rec.to_string());
        }
        let sent = b64(3);
        shown.push(sent[..16].to_string());
        let append = serde_json::json!({"type": "input_audio_buffer.append", "audio": sent});
        let append =
            serde_json::json!({"direction": "sent", "opcode": 1, "data": append.to_string()});
        lines.insert(1, append.to_string());
        assert!(shown.len() >= 4, "{kind}: {shown:?}");
        let p = dir.join(format!("{kind}.jsonl"));
        std::fs::write(&p, lines.join("\n") + "\n").unwrap();
        let path = p.to_str().unwrap();
        let mut runs: Vec<Vec<&str>> = Vec::new();
        for format in ["human", "jsonl", "html"] {
            runs.push(vec!["inspect", path, "--format", format]);
        }
        for format in ["human", "json", "sarif", "github", "junit", "jsonl", "html"] {
            runs.push(vec!["check", path, "--format", format, "-v"]);
        }
        for args in runs {
            let (code, out, err) = sselint(&args);
            assert!(matches!(code, Some(0 | 1)), "{args:?}: {err}");
            assert!(!out.is_empty(), "{args:?}");
            for audio in &shown {
                assert!(
                    !out.contains(audio.as_str()) && !err.contains(audio.as_str()),
                    "{kind}: {args:?} printed the audio {audio}"
                );
            }
        }
        // What is shown instead: the message and its decoded size.
        let (_, out, _) = sselint(&["inspect", path, "--format", "jsonl"]);
        assert!(out.contains("600 bytes"), "{kind}: {out}");
    }
}
