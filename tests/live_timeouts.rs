//! A live read that times out is the server's failure: `check URL` and
//! `record` against a `sselint replay` that stalls, on 127.0.0.1 only.

mod common;
use common::{request_file, root, scratch, sselint, Replay};
use serde_json::Value;

fn rules_of(stream: &Value) -> Vec<(String, String, String)> {
    stream["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Events 3 s apart: a 1 s read time-out fires after the first.
fn stalling_replay() -> Replay {
    let sample = root().join("samples/good/openai-basic.sse");
    Replay::start(&sample, &["--once", "--delay-ms", "3000"])
}

#[test]
fn check_url_fails_when_the_server_stalls_past_the_read_timeout_and_names_that_option() {
    let dir = scratch("check");
    let replay = stalling_replay();
    let req = request_file(&dir);
    let (code, out, err) = sselint(&[
        "check",
        &replay.url,
        "--body",
        req.to_str().unwrap(),
        "--read-timeout",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let s = &v["files"][0]["streams"][0];
    // What arrived is kept.
    assert!(s["events"].as_u64().unwrap() >= 1, "{s}");
    assert_eq!(s["http"]["status"], 200);
    let rules = rules_of(s);
    let cut = rules
        .iter()
        .find(|(r, _, _)| r == "cut-off")
        .unwrap_or_else(|| panic!("no cut-off: {rules:?}"));
    assert_eq!(cut.1, "error");
    assert!(cut.2.contains("--read-timeout"), "{}", cut.2);
    assert!(!cut.2.contains("--timeout "), "{}", cut.2);
    assert!(
        rules.iter().all(|(r, _, _)| r != "capture-truncated"),
        "{rules:?}"
    );
}

#[test]
fn record_agrees_with_check_url_on_a_stalled_server() {
    let dir = scratch("record");
    let replay = stalling_replay();
    let req = request_file(&dir);
    let har = dir.join("stalled.har");
    let (code, out, err) = sselint(&[
        "record",
        &replay.url,
        "--body",
        req.to_str().unwrap(),
        "--read-timeout",
        "1",
        "-o",
        har.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("--read-timeout"), "{out}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&har).unwrap()).unwrap();
    let e = &v["log"]["entries"][0];
    assert_eq!(e["_sselint"]["stopped"], "read-timeout");
    assert!(!e["response"]["content"]["text"]
        .as_str()
        .unwrap()
        .is_empty());
    // The saved capture gives the same verdict and exit code to check.
    let (code, out, _) = sselint(&["check", "--format", "json", har.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    let v: Value = serde_json::from_str(&out).unwrap();
    let rules = rules_of(&v["files"][0]["streams"][0]);
    assert!(
        rules
            .iter()
            .any(|(r, s, m)| r == "cut-off" && s == "error" && m.contains("--read-timeout")),
        "{rules:?}"
    );
}

#[test]
fn the_whole_exchange_timeout_is_the_capture_tools_cut_and_names_timeout() {
    let dir = scratch("total");
    let replay = stalling_replay();
    let req = request_file(&dir);
    let (code, out, err) = sselint(&[
        "check",
        &replay.url,
        "--body",
        req.to_str().unwrap(),
        "--timeout",
        "1",
        "--format",
        "json",
    ]);
    // The user's limit cut the capture before the answer's finish: as the
    // clients replaying such bytes raise, capture-truncated is an error
    // (its level follows the ending the saved bytes reach; issue 26).
    assert_eq!(code, Some(1), "{out}{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let rules = rules_of(&v["files"][0]["streams"][0]);
    let t = rules
        .iter()
        .find(|(r, _, _)| r == "capture-truncated")
        .unwrap_or_else(|| panic!("{rules:?}"));
    assert_eq!(t.1, "error", "{t:?}");
    assert!(t.2.contains("--timeout"), "{}", t.2);
    assert!(!t.2.contains("--read-timeout"), "{}", t.2);
    assert!(rules.iter().all(|(r, _, _)| r != "cut-off"), "{rules:?}");
}
