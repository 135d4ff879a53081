//! Live streams end to end, on 127.0.0.1 only: `sselint replay` serves a
//! capture, `sselint record` captures it back, and the saved HAR must hold
//! the same bytes, the right verdict, and no secret.

mod common;
use assert_cmd::cargo::cargo_bin;
use common::{request_file, root, scratch, Replay};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

fn har_body(har: &Path) -> (Vec<u8>, Value) {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(har).unwrap()).unwrap();
    let e = v["log"]["entries"][0].clone();
    let text = e["response"]["content"]["text"].as_str().unwrap();
    let body = if e["response"]["content"]["encoding"] == "base64" {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD
            .decode(text)
            .unwrap()
    } else {
        text.as_bytes().to_vec()
    };
    (body, e)
}

fn record(url: &str, dir: &Path, out: &str, extra: &[&str]) -> std::process::Output {
    Command::new(cargo_bin("sselint"))
        .args(["record", url, "--body"])
        .arg(request_file(dir))
        .arg("-o")
        .arg(dir.join(out))
        .args(extra)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

#[test]
fn record_of_a_replay_gives_back_the_same_bytes_for_every_sample() {
    let dir = scratch("roundtrip");
    let mut samples = common::samples("good");
    samples.extend(common::samples("providers"));
    samples.extend(common::samples("diff"));
    for (i, s) in samples.iter().enumerate() {
        // A Responses or Messages sample is recorded from its own endpoint
        // (the path settles the dialect `record` reads it as).
        let dialect = common::lint_file(s).streams[0].dialect;
        let endpoint = dialect.map_or("/chat/completions", |d| d.endpoint());
        let replay = if endpoint == "/chat/completions" {
            Replay::start(s, &["--once"])
        } else {
            Replay::start(s, &["--once", "--any-path"])
        };
        let url = replay.url.replace("/chat/completions", endpoint);
        // `--fail-on never`: the verdict is not what this test is about (a
        // provider sample may have an error a client breaks on).
        let out = record(&url, &dir, &format!("r{i}.har"), &["--fail-on", "never"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {}",
            s.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let (body, entry) = har_body(&dir.join(format!("r{i}.har")));
        assert_eq!(body, std::fs::read(s).unwrap(), "{}", s.display());
        assert_eq!(entry["_sselint"]["stopped"], "complete");
        assert!(!entry["_sselint"]["reads"].as_array().unwrap().is_empty());
    }
}

#[test]
fn one_byte_writes_still_give_three_emoji() {
    let dir = scratch("split");
    let sample = root().join("samples/good/emoji.sse");
    let replay = Replay::start(&sample, &["--once", "--split-bytes", "1"]);
    let out = record(&replay.url, &dir, "emoji.har", &["--no-usage"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("answer: \"😀😀😀\""),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // How many reads the client sees depends on the network stack; the
    // bytes, and so the three emoji, must not.
    let (body, _) = har_body(&dir.join("emoji.har"));
    assert_eq!(body, std::fs::read(&sample).unwrap());
}

#[test]
fn a_dropped_connection_keeps_the_partial_body_and_is_cut_off() {
    let dir = scratch("cut");
    let sample = root().join("samples/good/openai-basic.sse");
    let replay = Replay::start(&sample, &["--once", "--cut-after-bytes", "700"]);
    let out = record(&replay.url, &dir, "cut.har", &[]);
    // Saved, and a failure as `check` of it would be: cut-off is an error.
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (body, entry) = har_body(&dir.join("cut.har"));
    assert_eq!(body, std::fs::read(&sample).unwrap()[..700]);
    assert!(entry["_sselint"]["stopped"]
        .as_str()
        .unwrap()
        .starts_with("connection-error"));
    let check = Command::new(cargo_bin("sselint"))
        .args(["check", "--format", "json"])
        .arg(dir.join("cut.har"))
        .output()
        .unwrap();
    assert_eq!(check.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&check.stdout).unwrap();
    let s = &v["files"][0]["streams"][0];
    assert_eq!(s["ending"], "cut-off");
    assert!(s["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d["rule"] == "cut-off"));
}

#[cfg(unix)]
#[test]
fn ctrl_c_during_record_leaves_a_valid_har_with_what_arrived() {
    let dir = scratch("sigint");
    let sample = root().join("samples/good/openai-basic.sse");
    let replay = Replay::start(&sample, &["--once", "--delay-ms", "400"]);
    let child = Command::new(cargo_bin("sselint"))
        .args(["record", &replay.url, "--body"])
        .arg(request_file(&dir))
        .arg("-o")
        .arg(dir.join("int.har"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    // `record` exits as `check` of the saved capture does: cut before the
    // answer's finish, its `capture-truncated` is an error.
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (body, entry) = har_body(&dir.join("int.har"));
    let full = std::fs::read(&sample).unwrap();
    assert!(
        !body.is_empty() && body.len() < full.len(),
        "partial: {} of {}",
        body.len(),
        full.len()
    );
    assert_eq!(body, full[..body.len()]);
    assert_eq!(entry["_sselint"]["stopped"], "interrupted");
    let check = Command::new(cargo_bin("sselint"))
        .args(["check", "--format", "json", "--fail-on", "never"])
        .arg(dir.join("int.har"))
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&check.stdout).unwrap();
    let rules: Vec<&str> = v["files"][0]["streams"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"capture-truncated"), "{rules:?}");
}

#[test]
fn no_output_and_no_saved_capture_holds_the_key_or_a_cookie() {
    let dir = scratch("secrets");
    let key = "sk-test-FAKE9f8e7d6c5b4a39281706";
    let cookie = "session=FAKECOOKIE12345";
    let sample = root().join("samples/good/openai-usage.sse");
    let replay = Replay::start(&sample, &["--once"]);
    let req = dir.join("req.json");
    std::fs::write(
        &req,
        format!(r#"{{"model":"m","messages":[],"user":"{key}"}}"#),
    )
    .unwrap();
    let out = Command::new(cargo_bin("sselint"))
        .args(["record", &replay.url, "--body"])
        .arg(&req)
        .args([
            "--api-key-env",
            "SSELINT_TEST_KEY",
            "-H",
            &format!("Cookie: {cookie}"),
            "-H",
            "x-api-key: FAKEXAPIKEY777",
        ])
        .arg("-o")
        .arg(dir.join("s.har"))
        .env("SSELINT_TEST_KEY", key)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut texts = vec![
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        std::fs::read_to_string(dir.join("s.har")).unwrap(),
    ];
    for fmt in ["human", "json", "sarif", "junit", "github"] {
        let o = Command::new(cargo_bin("sselint"))
            .args(["check", "-v", "--format", fmt])
            .arg(dir.join("s.har"))
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "check --format {fmt}: {o:?}");
        assert!(!o.stdout.is_empty(), "check --format {fmt} printed nothing");
        texts.push(String::from_utf8_lossy(&o.stdout).into_owned());
        texts.push(String::from_utf8_lossy(&o.stderr).into_owned());
    }
    let inspect = Command::new(cargo_bin("sselint"))
        .args(["inspect", "--format", "jsonl"])
        .arg(dir.join("s.har"))
        .output()
        .unwrap();
    assert_eq!(inspect.status.code(), Some(0), "{inspect:?}");
    assert!(
        String::from_utf8_lossy(&inspect.stdout).contains("\"type\":\"stream\""),
        "{inspect:?}"
    );
    texts.push(String::from_utf8_lossy(&inspect.stdout).into_owned());
    for t in &texts {
        for secret in [key, "FAKECOOKIE12345", "FAKEXAPIKEY777", "9f8e7d6c5b4a"] {
            assert!(
                !t.contains(secret),
                "{secret} leaked into:\n{}",
                &t[..t.len().min(2000)]
            );
        }
    }
    assert!(texts[2].contains("[REDACTED]"));
}

#[test]
fn check_url_records_to_a_temporary_capture_and_lints_it() {
    let dir = scratch("checkurl");
    let sample = root().join("samples/bad/missing-done.sse");
    let replay = Replay::start(&sample, &["--once"]);
    let out = Command::new(cargo_bin("sselint"))
        .args([
            "check",
            &replay.url,
            "--format",
            "json",
            "--no-usage",
            "--body",
        ])
        .arg(request_file(&dir))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["files"][0]["path"], replay.url.as_str());
    assert_eq!(v["files"][0]["streams"][0]["ending"], "no-done");
    let out = Command::new(cargo_bin("sselint"))
        .args(["check", &replay.url])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--body"));
}

#[test]
fn replayed_timing_shows_up_as_stall_and_in_inspect() {
    let dir = scratch("timing");
    let sample = root().join("samples/good/openai-basic.sse");
    let replay = Replay::start(
        &sample,
        &["--once", "--delay-ms", "150", "--keepalive-ms", "60"],
    );
    let out = record(&replay.url, &dir, "t.har", &["--no-usage"]);
    assert_eq!(out.status.code(), Some(0));
    let check = Command::new(cargo_bin("sselint"))
        .args(["check", "-v", "--color", "never", "--stall-ms", "100"])
        .arg(dir.join("t.har"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&check.stdout);
    assert!(text.contains("[stall]"), "{text}");
    assert!(
        text.contains("[comment]"),
        "keep-alives were inserted: {text}"
    );
    let inspect = Command::new(cargo_bin("sselint"))
        .args(["inspect", "--color", "never"])
        .arg(dir.join("t.har"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&inspect.stdout);
    assert!(
        text.contains("timing: first event") && text.contains("arrivals: |"),
        "{text}"
    );
}

#[test]
fn replay_answers_other_paths_with_404_and_serves_any_path_when_asked() {
    let sample = root().join("samples/good/emoji.sse");
    let replay = Replay::start(&sample, &[]);
    let other = replay.url.replace("/v1/chat/completions", "/v1/models");
    let dir = scratch("paths");
    let out = record(&other, &dir, "x.har", &[]);
    // Saved; a 404 is an `http-status` error, so the run fails as `check`.
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("HTTP 404"));
    // Several connections, one after the other, on the same server.
    let out = record(&replay.url, &dir, "y.har", &[]);
    assert_eq!(out.status.code(), Some(0));
    let replay2 = Replay::start(&sample, &["--any-path", "--once"]);
    let out = record(
        &replay2.url.replace("/v1/chat/completions", "/anything"),
        &dir,
        "z.har",
        &[],
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("HTTP 200"));
}

#[test]
fn replay_of_a_har_with_several_streams_names_them_and_serves_the_one_picked() {
    // chrome.har's one event stream (#3), and a copy of it as #4.
    let mut har: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("samples/har/chrome.har")).unwrap(),
    )
    .unwrap();
    let entries = har["log"]["entries"].as_array_mut().unwrap();
    let mut second = entries[3].clone();
    second["request"]["url"] = "https://api.example.com/v1/chat/completions?copy=4".into();
    entries.push(second);
    let dir = scratch("replay-two-streams");
    let p = dir.join("two.har");
    std::fs::write(&p, serde_json::to_string(&har).unwrap()).unwrap();
    let out = assert_cmd::Command::cargo_bin("sselint")
        .unwrap()
        .arg("replay")
        .arg(&p)
        .args(["--listen", "127.0.0.1:0", "--once"])
        .timeout(std::time::Duration::from_secs(20))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("holds 2 event streams; serve one with --entry N"),
        "{err}"
    );
    assert!(
        err.contains("#3 POST") && err.contains("#4 POST") && err.contains("copy=4"),
        "{err}"
    );
    // With --entry it serves that one.
    let replay = Replay::start(&p, &["--entry", "4", "--once"]);
    let (status, body) = http(&replay.addr, "POST", "/v1/chat/completions");
    assert_eq!(status, 200);
    assert!(String::from_utf8_lossy(&body).contains("[DONE]"));
}

/// One request over a fresh connection: (status, body de-chunked).
fn http(addr: &str, method: &str, path: &str) -> (u16, Vec<u8>) {
    use std::io::{Read, Write};
    let mut sock = std::net::TcpStream::connect(addr).unwrap();
    write!(
        sock,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{{}}"
    )
    .unwrap();
    let mut raw = Vec::new();
    sock.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let mut rest = &raw[split..];
    if !head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        return (status, rest.to_vec());
    }
    let mut body = Vec::new();
    loop {
        let eol = rest.windows(2).position(|w| w == b"\r\n").unwrap();
        let n = usize::from_str_radix(std::str::from_utf8(&rest[..eol]).unwrap(), 16).unwrap();
        if n == 0 {
            return (status, body);
        }
        body.extend_from_slice(&rest[eol + 2..eol + 2 + n]);
        rest = &rest[eol + 4 + n..];
    }
}

#[test]
fn replay_serves_each_dialect_at_its_own_path_and_names_it_in_the_404() {
    // (sample, its dialect's endpoint, the API's title, the base URL's tail)
    let cases = [
        (
            "openai-basic.sse",
            "/chat/completions",
            "OpenAI Chat Completions",
            "/v1 ",
        ),
        (
            "responses-basic.sse",
            "/responses",
            "OpenAI Responses",
            "/v1 ",
        ),
        ("messages-basic.sse", "/messages", "Anthropic Messages", " "),
    ];
    for (file, endpoint, title, base) in cases {
        let sample = root().join("samples/good").join(file);
        let want = std::fs::read(&sample).unwrap();
        let replay = Replay::start(&sample, &[]);
        let addr = replay.addr.as_str();
        assert!(
            replay
                .line
                .contains(&format!("(an {title} stream) on http://{addr}{base}"))
                && replay.line.contains(&format!("(POST /v1{endpoint})")),
            "{file}: {}",
            replay.line
        );
        // Its path, with and without /v1 and with a query.
        for path in [
            format!("/v1{endpoint}"),
            endpoint.to_string(),
            format!("/v1{endpoint}?beta=true"),
        ] {
            let (status, body) = http(addr, "POST", &path);
            assert_eq!(status, 200, "{file} at {path}");
            assert_eq!(body, want, "{file} at {path}");
        }
        // Another dialect's path: a 404 in that API's error shape, naming
        // the path that serves the capture.
        for other in [
            "/v1/chat/completions",
            "/v1/responses",
            "/v1/messages",
            "/v1/models",
        ] {
            if other == format!("/v1{endpoint}") {
                let (status, _) = http(addr, "GET", other);
                assert_eq!(status, 404, "{file}: GET {other}");
                continue;
            }
            let (status, body) = http(addr, "POST", other);
            assert_eq!(status, 404, "{file}: POST {other}");
            let v: Value = serde_json::from_slice(&body)
                .unwrap_or_else(|e| panic!("{file}: POST {other}: {e}: {body:?}"));
            let said = format!("at POST /v1{endpoint}, not POST {other}");
            if other == "/v1/messages" || (other == "/v1/models" && endpoint == "/messages") {
                // Anthropic's shape.
                assert_eq!(v["type"], "error", "{file}: {other}: {v}");
                assert_eq!(
                    v["error"]["type"], "not_found_error",
                    "{file}: {other}: {v}"
                );
            } else {
                // OpenAI's shape.
                assert_eq!(
                    v["error"]["type"], "invalid_request_error",
                    "{file}: {other}: {v}"
                );
                assert!(v["error"].get("code").is_some(), "{file}: {other}: {v}");
            }
            let msg = v["error"]["message"].as_str().unwrap();
            assert!(
                msg.contains(&said) && msg.contains(title),
                "{file}: {other}: {msg}"
            );
        }
    }
    // --any-path serves a Messages capture at the Chat path too, and
    // --dialect moves a capture to another dialect's path.
    let sample = root().join("samples/good/messages-basic.sse");
    let replay = Replay::start(&sample, &["--any-path"]);
    assert!(
        replay.line.contains("(any method and path)"),
        "{}",
        replay.line
    );
    assert_eq!(http(&replay.addr, "POST", "/v1/chat/completions").0, 200);
    let replay = Replay::start(&sample, &["--dialect", "chat"]);
    assert_eq!(http(&replay.addr, "POST", "/v1/chat/completions").0, 200);
    assert_eq!(http(&replay.addr, "POST", "/v1/messages").0, 404);
}

/// The official OpenAI Python client reads a replayed sample and gets the
/// text `check` reconstructs. Uses the harness's pinned client
/// (`clients/.venv`), else `python3` with `openai` installed. Without the
/// package it prints SKIPPED on stderr and passes, except when `CI=true`:
/// in CI a missing client is a failure, not a silent pass.
#[test]
fn the_openai_python_client_reads_a_replay_like_check_does() {
    // The harness's pinned client (clients/README.md), else the system's.
    let venv = root().join("clients/.venv/bin/python");
    let python = if venv.exists() {
        venv.to_string_lossy().into_owned()
    } else {
        "python3".to_string()
    };
    let has_openai = Command::new(&python)
        .args(["-c", "import openai"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_openai {
        let why =
            "the openai Python package is not installed (clients/README.md, or pip install openai)";
        common::not_run(
            "the_openai_python_client_reads_a_replay_like_check_does",
            why,
        );
        return;
    }
    for name in [
        "samples/good/openai-usage.sse",
        "samples/good/emoji.sse",
        "samples/providers/deepseek.sse",
    ] {
        let sample = root().join(name);
        let replay = Replay::start(&sample, &["--once", "--split-bytes", "7"]);
        let base = replay.url.trim_end_matches("/chat/completions").to_string();
        let script = r#"
import sys, openai
c = openai.OpenAI(base_url=sys.argv[1], api_key="sk-test-unused")
s = c.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}], stream=True)
print("".join((ch.choices[0].delta.content or "") for ch in s if ch.choices), end="")
"#;
        let out = Command::new(&python)
            .args(["-c", script, &base])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let check = Command::new(cargo_bin("sselint"))
            .args(["check", "--format", "json", "--fail-on", "never"])
            .arg(&sample)
            .output()
            .unwrap();
        assert_eq!(check.status.code(), Some(0), "{name}");
        let v: Value = serde_json::from_slice(&check.stdout).unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(!text.is_empty(), "{name}: the client read no text");
        assert_eq!(
            text,
            v["files"][0]["streams"][0]["choices"][0]["text"]
                .as_str()
                .unwrap(),
            "{name}"
        );
    }
}

#[test]
fn the_read_timeout_keeps_what_arrived_at_and_past_the_limit() {
    let dir = scratch("readtimeout");
    let sample = root().join("samples/good/openai-basic.sse");
    // Events every 600 ms: a 2 s read time-out is never reached…
    let replay = Replay::start(&sample, &["--once", "--delay-ms", "600"]);
    let out = record(&replay.url, &dir, "slow.har", &["--read-timeout", "2"]);
    assert_eq!(out.status.code(), Some(0));
    let (body, entry) = har_body(&dir.join("slow.har"));
    assert_eq!(entry["_sselint"]["stopped"], "complete");
    assert_eq!(body, std::fs::read(&sample).unwrap());
    // …a 0.2 s one is, after the first event.
    let replay = Replay::start(&sample, &["--once", "--delay-ms", "600"]);
    let out = record(&replay.url, &dir, "fast.har", &["--read-timeout", "0.2"]);
    // The server stalled: cut-off, an error, so the run fails.
    assert_eq!(out.status.code(), Some(1));
    let (body, entry) = har_body(&dir.join("fast.har"));
    assert_eq!(entry["_sselint"]["stopped"], "read-timeout");
    assert!(body.len() < std::fs::read(&sample).unwrap().len());
}

#[test]
fn record_saves_no_url_or_custom_header_secret() {
    let dir = scratch("urlsecrets");
    let sample = root().join("samples/good/emoji.sse");
    let replay = Replay::start(&sample, &["--once", "--any-path"]);
    let url = replay
        .url
        .replace("http://", "http://alice:FAKEPASS31@")
        .replace(
            "/v1/chat/completions",
            "/v1/chat/completions?key=FAKEKEY41&x-goog-api-key=FAKEGOOG51&stream=1",
        );
    let out = Command::new(cargo_bin("sselint"))
        .args(["record", &url, "--body"])
        .arg(request_file(&dir))
        .args([
            "-H",
            "Ocp-Apim-Subscription-Key: FAKEAPIM61",
            "-H",
            "X-Custom-Token: FAKETOKEN71",
        ])
        .arg("-o")
        .arg(dir.join("u.har"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The capture exists and holds the exchange: an absent file would
    // hold no secret either.
    let saved = std::fs::read_to_string(dir.join("u.har")).unwrap();
    assert!(saved.contains("\"entries\""), "{saved}");
    assert!(
        saved.contains("[REDACTED]") || saved.contains("REDACTED"),
        "{saved}"
    );
    for t in [
        saved,
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ] {
        for s in [
            "FAKEPASS31",
            "FAKEKEY41",
            "FAKEGOOG51",
            "FAKEAPIM61",
            "FAKETOKEN71",
        ] {
            assert!(!t.contains(s), "{s} leaked:\n{}", &t[..t.len().min(1500)]);
        }
    }
}

#[test]
fn replay_once_stops_when_the_client_hangs_up_mid_stream() {
    use std::io::{Read, Write};
    let sample = root().join("samples/good/openai-basic.sse");
    let mut replay = Replay::start(&sample, &["--once", "--delay-ms", "300"]);
    let addr = replay
        .url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_string();
    let mut sock = std::net::TcpStream::connect(&addr).unwrap();
    sock.write_all(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
        .unwrap();
    let mut buf = [0u8; 64];
    let _ = sock.read(&mut buf).unwrap();
    drop(sock);
    for _ in 0..100 {
        if replay.child.try_wait().unwrap().is_some() {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("replay --once still running 10 s after the client hung up");
}

#[test]
fn record_speaks_each_dialects_endpoint_and_keeps_its_key_out() {
    // A Messages endpoint gets the key as x-api-key and an
    // anthropic-version; a Responses one as a Bearer token; neither gets
    // Chat's stream_options. The saved HAR holds no key and lints as the
    // endpoint's dialect.
    let dir = scratch("record-dialects");
    let key = "sk-ant-api03-FAKE0a1b2c3d4e5f6a7b8c9d";
    for (sample, dialect, key_header) in [
        ("samples/good/messages-basic.sse", "messages", "x-api-key"),
        (
            "samples/good/responses-basic.sse",
            "responses",
            "Authorization",
        ),
    ] {
        let replay = Replay::start(&root().join(sample), &["--once"]);
        assert!(
            replay.url.ends_with(&format!("/v1/{dialect}")),
            "{}",
            replay.url
        );
        let har = dir.join(format!("{dialect}.har"));
        let out = Command::new(cargo_bin("sselint"))
            .args(["record", &replay.url, "--body"])
            .arg(request_file(&dir))
            .args(["--api-key-env", "SSELINT_TEST_KEY", "-o"])
            .arg(&har)
            .env("SSELINT_TEST_KEY", key)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{stdout}{:?}", out.stderr);
        assert!(stdout.contains(&format!("[{dialect}]")), "{stdout}");
        let text = std::fs::read_to_string(&har).unwrap();
        assert!(!text.contains("FAKE0a1b2c3d") && !stdout.contains("FAKE0a1b2c3d"));
        let (_, entry) = har_body(&har);
        let headers = entry["request"]["headers"].as_array().unwrap();
        let value = |name: &str| {
            headers
                .iter()
                .find(|h| h["name"].as_str().unwrap().eq_ignore_ascii_case(name))
                .map(|h| h["value"].as_str().unwrap().to_string())
        };
        assert_eq!(
            value(key_header).as_deref(),
            Some("[REDACTED]"),
            "{headers:?}"
        );
        let version = value("anthropic-version");
        if dialect == "messages" {
            assert_eq!(version.as_deref(), Some("2023-06-01"));
            assert!(value("Authorization").is_none(), "{headers:?}");
        } else {
            assert!(version.is_none(), "{headers:?}");
        }
        let body: Value =
            serde_json::from_str(entry["request"]["postData"]["text"].as_str().unwrap()).unwrap();
        assert_eq!(body["stream"], true);
        assert!(body.get("stream_options").is_none(), "{body}");
    }
}

/// Records `body` from a replay of `sample` served at a gateway path that
/// names no API (`/api/proxy`), with a key; returns the process output and
/// the saved HAR entry.
fn record_at_gateway(
    sample: &str,
    name: &str,
    body: &Value,
    extra: &[&str],
) -> (std::process::Output, Value) {
    let dir = scratch(&format!("record-gateway-{name}"));
    let replay = Replay::start(&root().join(sample), &["--once", "--any-path"]);
    let url = format!("http://{}/api/proxy", replay.addr);
    let req = dir.join("request.json");
    std::fs::write(&req, body.to_string()).unwrap();
    let har = dir.join(format!("{name}.har"));
    let out = Command::new(cargo_bin("sselint"))
        .args(["record", &url, "--body"])
        .arg(&req)
        .args(["--api-key-env", "SSELINT_TEST_KEY", "-o"])
        .arg(&har)
        .args(extra)
        .env("SSELINT_TEST_KEY", "sk-ant-api03-FAKE0a1b2c3d4e5f6a7b8c9d")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(har.exists(), "{}", String::from_utf8_lossy(&out.stderr));
    let (_, entry) = har_body(&har);
    (out, entry)
}

fn sent_header(entry: &Value, name: &str) -> Option<String> {
    entry["request"]["headers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"].as_str().unwrap().eq_ignore_ascii_case(name))
        .map(|h| h["value"].as_str().unwrap().to_string())
}

fn sent_body(entry: &Value) -> Value {
    serde_json::from_str(entry["request"]["postData"]["text"].as_str().unwrap()).unwrap()
}

#[test]
fn record_on_a_gateway_path_sends_the_dialect_the_request_body_is() {
    use serde_json::json;
    // A Messages request (top-level `system`): x-api-key and
    // anthropic-version, no stream_options, and a note saying why.
    let messages = json!({"model": "claude-sonnet-4-5", "max_tokens": 256, "system": "Be brief.",
        "messages": [{"role": "user", "content": "Hi"}]});
    let (out, entry) = record_at_gateway(
        "samples/good/messages-basic.sse",
        "messages",
        &messages,
        &[],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        sent_header(&entry, "x-api-key").as_deref(),
        Some("[REDACTED]")
    );
    assert_eq!(
        sent_header(&entry, "anthropic-version").as_deref(),
        Some("2023-06-01")
    );
    assert!(sent_header(&entry, "authorization").is_none());
    assert!(sent_body(&entry).get("stream_options").is_none());
    assert!(
        stderr.contains("Anthropic Messages") && stderr.contains("`system`"),
        "{stderr}"
    );
    // A Responses request (`input`, no `messages`): a Bearer key, no
    // stream_options.
    let responses = json!({"model": "gpt-4.1-mini", "input": "Hi", "instructions": "Be brief."});
    let (out, entry) = record_at_gateway(
        "samples/good/responses-basic.sse",
        "responses",
        &responses,
        &[],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        sent_header(&entry, "authorization").as_deref(),
        Some("[REDACTED]")
    );
    assert!(sent_body(&entry).get("stream_options").is_none());
    assert!(stderr.contains("OpenAI Responses"), "{stderr}");
    // A request both APIs take (`model`, `max_tokens`, `messages`): sent as
    // Chat, with a warning that says so and how to choose.
    let either =
        json!({"model": "m", "max_tokens": 64, "messages": [{"role": "user", "content": "Hi"}]});
    let (out, entry) = record_at_gateway("samples/good/openai-basic.sse", "either", &either, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(sent_body(&entry).get("stream_options").is_some());
    assert!(
        stderr.contains("warning")
            && stderr.contains("OpenAI Chat Completions")
            && stderr.contains("--dialect"),
        "{stderr}"
    );
    // `--dialect` chooses, and nothing is said.
    let (out, entry) = record_at_gateway(
        "samples/good/messages-basic.sse",
        "forced",
        &either,
        &["--dialect", "messages"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        sent_header(&entry, "x-api-key").as_deref(),
        Some("[REDACTED]")
    );
    assert!(!stderr.contains("--dialect"), "{stderr}");
    // No output holds the key.
    assert!(!stderr.contains("FAKE0a1b2c3d"));
}

/// A URL that answers with an error, or not at all, is named once in
/// each message and line, with its `?key=` masked.
#[test]
fn a_live_urls_error_names_it_once_with_its_key_masked() {
    let dir = scratch("checkurl-once");
    let key = "AIzaSyLiveUrlKey0123456789";
    // Nothing listens: a port the OS gave and took back.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/v1/chat/completions?key={key}");
    let shown = format!("http://127.0.0.1:{port}/v1/chat/completions?key=[REDACTED]");
    let out = Command::new(cargo_bin("sselint"))
        .args(["check", &url, "--body"])
        .arg(request_file(&dir))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains(key), "{err}");
    let line = err
        .lines()
        .find(|l| l.starts_with("sselint: error:"))
        .unwrap_or_else(|| panic!("{err}"));
    assert_eq!(line.matches(&shown).count(), 1, "{line}");
    assert_eq!(line.matches("127.0.0.1").count(), 1, "{line}");
    // A server that answers 401 with a JSON error: each report names the
    // URL once per stream.
    let replay = Replay::start(&root().join("samples/bad/http-status.txt"), &[]);
    let url = format!("{}?key={key}", replay.url);
    for format in ["human", "json", "junit", "sarif", "github"] {
        let out = Command::new(cargo_bin("sselint"))
            .args(["check", &url, "--format", format, "--body"])
            .arg(request_file(&dir))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{format}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!text.contains(key), "{format}: {text}");
        for l in text.lines().filter(|l| l.contains(&replay.addr)) {
            assert!(
                l.matches(&replay.addr).count() == 1,
                "{format}: the URL twice in {l}"
            );
        }
    }
    // A 200 that is no event stream (Gemini's JSON array, asked without
    // `alt=sse`): a finding of the URL's, not an error about the
    // temporary capture's entries.
    let replay = Replay::start(&root().join("samples/good/gemini-basic.sse"), &[]);
    let url = replay.url.replace("{model}", "gemini-2.5-flash");
    let url = format!("{}?key={key}", url.split('?').next().unwrap());
    let out = Command::new(cargo_bin("sselint"))
        .args(["check", &url, "--format", "json", "--body"])
        .arg(request_file(&dir))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(!err.contains("--entry"), "{err}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = v.to_string();
    assert!(!text.contains(key), "{text}");
    assert!(text.contains("\"body-not-sse\""), "{text}");
}
