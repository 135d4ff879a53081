//! `sselint minimize` of a WebSocket capture (issue 39, item 5): a
//! message log is cut message by message (and inside each message's JSON,
//! as an SSE event's), all of the socket's responses judged together, and
//! written back in its own form: a message log stays a log, a Chrome HAR
//! keeps its `_webSocketMessages`. A response kept keeps the
//! `response.create` that asked for it.

mod common;

use common::{root, sselint};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The socket captures shipped: message logs in samples/bad, Chrome HARs
/// in samples/websocket.
fn socket_samples() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = common::samples("bad")
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    v.extend(common::samples("websocket"));
    v.extend(
        common::samples("bad")
            .into_iter()
            .filter(|p| p.to_string_lossy().ends_with(".har") && common::is_socket_capture(p)),
    );
    v.sort();
    v.dedup();
    v
}

/// `check --format json`'s findings of a file: (rule, severity) over all
/// its streams, and how many streams.
fn findings(path: &Path) -> (BTreeSet<(String, String)>, usize) {
    let (code, out, err) = sselint(&[
        "check",
        "--format",
        "json",
        "--fail-on",
        "never",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{}: {err}", path.display());
    let doc: Value = serde_json::from_str(&out).unwrap();
    let streams = doc["files"][0]["streams"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut set = BTreeSet::new();
    for s in &streams {
        for d in s["diagnostics"].as_array().into_iter().flatten() {
            set.insert((
                d["rule"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
            ));
        }
    }
    (set, streams.len())
}

/// Whether `bytes` are a message log: every line that is not blank a
/// message record.
fn is_message_log(bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(bytes);
    sselint::transport::socket_log::looks_like(bytes)
        && text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .all(|l| sselint::transport::socket_log::record(l).is_ok())
}

#[test]
fn every_socket_sample_minimizes_to_its_own_form_smaller_and_check_reads_it() {
    let dir = common::scratch("minimize-sockets");
    let mut minimized = 0;
    for path in socket_samples() {
        let name = path.display().to_string();
        let (before, _) = findings(&path);
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        // Every finding at warning or above; a sample named after an info
        // rule is minimized for that rule.
        let warn: BTreeSet<_> = before
            .iter()
            .filter(|(_, s)| s == "error" || s == "warning")
            .cloned()
            .collect();
        let chosen: BTreeSet<_> = if warn.is_empty() {
            before.iter().filter(|(r, _)| *r == stem).cloned().collect()
        } else {
            warn
        };
        let ext = path.extension().unwrap().to_string_lossy().into_owned();
        let out = dir.join(format!("{stem}.min.{ext}"));
        let mut args = vec!["minimize", &name, "-o", out.to_str().unwrap()];
        let rule;
        if chosen.is_empty() {
            // Nothing to keep: a clear error, exit 2, nothing written.
            let (code, _, err) = sselint(&args);
            assert_eq!(code, Some(2), "{name}: {err}");
            assert!(err.contains("nothing to minimize"), "{name}: {err}");
            assert!(!out.exists(), "{name}");
            continue;
        }
        if before.iter().all(|(_, s)| s == "info") {
            rule = stem.clone();
            args.extend(["--rule", &rule]);
        }
        let (code, _, err) = sselint(&args);
        assert_eq!(code, Some(0), "{name}: {err}");
        let bytes = std::fs::read(&out).unwrap();
        let input = std::fs::read(&path).unwrap();
        assert!(
            bytes.len() < input.len(),
            "{name}: {} bytes, the input {}",
            bytes.len(),
            input.len()
        );
        // Its own form.
        if ext == "har" {
            let doc: Value = serde_json::from_slice(&bytes).unwrap();
            let e = &doc["log"]["entries"][0];
            let frames = e["_webSocketMessages"].as_array();
            assert!(
                frames.is_some_and(|f| !f.is_empty()),
                "{name}: no frames: {e:#}"
            );
            for f in frames.unwrap() {
                assert!(
                    matches!(f["type"].as_str(), Some("send" | "receive" | "error")),
                    "{name}: {f}"
                );
            }
            assert!(e["response"]["content"].get("text").is_none(), "{name}");
        } else {
            assert!(
                is_message_log(&bytes),
                "{name}: not a message log:\n{}",
                String::from_utf8_lossy(&bytes)
            );
        }
        // `check` reads it, with the findings kept and no new one at
        // warning or above.
        let (after, streams) = findings(&out);
        assert!(streams >= 1, "{name}");
        for p in &chosen {
            assert!(after.contains(p), "{name}: {p:?} lost; after {after:?}");
        }
        for p in &after {
            if p.1 != "info" {
                assert!(before.contains(p), "{name}: new {p:?}");
            }
        }
        // A response kept keeps its request: no response the client did
        // not ask for, where the input had none.
        let orphan = |s: &BTreeSet<(String, String)>| {
            s.iter().any(|(r, _)| r == "ws-response-without-create")
        };
        if !orphan(&before) {
            assert!(
                !orphan(&after),
                "{name}: a response lost its response.create:\n{}",
                String::from_utf8_lossy(&bytes)
            );
        }
        minimized += 1;
    }
    assert!(
        minimized >= 15,
        "only {minimized} socket captures minimized"
    );
}

/// A message log line.
fn line(sent: bool, data: Value) -> String {
    let dir = if sent { "sent" } else { "received" };
    format!(
        "{}\n",
        serde_json::json!({"direction": dir, "opcode": 1, "data": data.to_string()})
    )
}

/// A Responses turn on the default lane: its request and its events,
/// `text` the answer; cut before its end when `cut`.
fn turn(i: usize, text: &str, cut: bool) -> String {
    let id = format!("resp_{i}");
    let item = format!("msg_{i}");
    let mut out = line(
        true,
        serde_json::json!({"type": "response.create", "model": "gpt-x", "input": format!("question {i}")}),
    );
    let resp = |status: &str| serde_json::json!({"id": id, "object": "response", "status": status, "model": "gpt-x", "output": []});
    let mut events = vec![
        serde_json::json!({"type": "response.created", "response": resp("in_progress")}),
        serde_json::json!({"type": "response.output_item.added", "output_index": 0,
            "item": {"id": item, "type": "message", "status": "in_progress", "role": "assistant", "content": []}}),
        serde_json::json!({"type": "response.content_part.added", "item_id": item, "output_index": 0, "content_index": 0,
            "part": {"type": "output_text", "text": "", "annotations": []}}),
        serde_json::json!({"type": "response.output_text.delta", "item_id": item, "output_index": 0, "content_index": 0, "delta": text}),
    ];
    if !cut {
        let done = serde_json::json!({"id": item, "type": "message", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": []}]});
        let mut c = resp("completed");
        c["output"] = serde_json::json!([done]);
        events.extend([
            serde_json::json!({"type": "response.output_text.done", "item_id": item, "output_index": 0, "content_index": 0, "text": text}),
            serde_json::json!({"type": "response.content_part.done", "item_id": item, "output_index": 0, "content_index": 0,
                "part": {"type": "output_text", "text": text, "annotations": []}}),
            serde_json::json!({"type": "response.output_item.done", "output_index": 0, "item": done}),
            serde_json::json!({"type": "response.completed", "response": c}),
        ]);
    }
    for (n, mut e) in events.into_iter().enumerate() {
        e["sequence_number"] = n.into();
        out.push_str(&line(false, e));
    }
    out
}

#[test]
fn a_long_socket_is_cut_to_the_turn_with_the_fault_and_its_request() {
    // Many complete turns, then one the socket's close cuts: the output
    // is that turn alone, asked for by its own `response.create` (the
    // first line), then the close.
    let dir = common::scratch("minimize-sockets");
    let mut log = String::new();
    for i in 0..40 {
        log.push_str(&turn(i, "Paris is sunny today.", false));
    }
    log.push_str(&turn(40, "Paris is", true));
    log.push_str(
        "{\"direction\":\"received\",\"opcode\":8,\"code\":1011,\"reason\":\"internal error\"}\n",
    );
    let input = dir.join("long.jsonl");
    std::fs::write(&input, &log).unwrap();
    let out = dir.join("long.min.jsonl");
    let (code, _, err) = sselint(&[
        "minimize",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let bytes = std::fs::read(&out).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    assert!(is_message_log(&bytes), "{text}");
    let records: Vec<_> = text
        .lines()
        .map(|l| sselint::transport::socket_log::record(l).unwrap())
        .collect();
    assert!(records.len() <= 6, "{} messages:\n{text}", records.len());
    let first: Value = serde_json::from_str(&records[0].data).unwrap();
    assert_eq!(records[0].direction, sselint::transport::Direction::Sent);
    assert_eq!(first["type"], "response.create", "{text}");
    assert!(!text.contains("Paris"), "{text}");
    let (after, _) = findings(&out);
    assert!(
        after.contains(&("ws-closed-mid-response".into(), "error".into())),
        "{after:?}"
    );
    assert!(
        !after.iter().any(|(r, _)| r == "ws-response-without-create"),
        "{after:?}\n{text}"
    );
}

#[test]
fn a_minimized_har_socket_is_minimized_again_to_the_same_bytes() {
    let dir = common::scratch("minimize-sockets");
    let input = root().join("samples/websocket/realtime-cut.har");
    let once = dir.join("once.har");
    let twice = dir.join("twice.har");
    for (i, o) in [(input.as_path(), &once), (once.as_path(), &twice)] {
        let (code, _, err) = sselint(&["minimize", i.to_str().unwrap(), "-o", o.to_str().unwrap()]);
        assert_eq!(code, Some(0), "{err}");
    }
    let a = std::fs::read(&once).unwrap();
    assert_eq!(a, std::fs::read(&twice).unwrap());
    let doc: Value = serde_json::from_slice(&a).unwrap();
    assert_eq!(
        doc["log"]["entries"][0]["_resourceType"], "websocket",
        "Chrome's mark of a socket entry stays"
    );
}
