//! Which inputs are taken, and options that do not fit an input.

mod common;
use assert_cmd::cargo::cargo_bin;
use common::root;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

fn scratch(name: &str) -> common::Scratch {
    common::Scratch::new(&format!("inputs-{name}"))
}

fn sselint(args: &[&str]) -> std::process::Output {
    Command::new(cargo_bin("sselint"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

#[test]
fn entry_on_an_input_that_is_not_har_is_an_error() {
    let sse = root().join("samples/good/openai-basic.sse");
    let sse = sse.to_str().unwrap();
    for args in [
        vec!["check", "--entry", "0", sse],
        vec!["check", "--entry", "3", "--format", "json", sse],
        vec!["inspect", "--entry", "0", sse],
    ] {
        let out = sselint(&args);
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(2), "{args:?}: {all}");
        assert!(all.contains("--entry"), "{args:?}: {all}");
        assert!(all.contains("openai-basic.sse"), "{args:?}: {all}");
        assert!(!all.contains("panicked"), "{args:?}: {all}");
    }
    // On a HAR it still picks the entry.
    let har = root().join("samples/har/chrome.har");
    if har.exists() {
        let out = sselint(&["check", "--entry", "0", "-q", har.to_str().unwrap()]);
        assert_ne!(out.status.code(), Some(2));
    }
}

#[test]
fn url_match_on_an_input_that_is_not_har_is_an_error() {
    let sse = root().join("samples/good/openai-basic.sse");
    let sse = sse.to_str().unwrap();
    for args in [
        vec!["check", "--url-match", "/chat/completions", sse],
        vec!["check", "--url-match", "x", "--format", "json", sse],
        vec!["check", "--url-match", "x", "--format", "sarif", sse],
        vec!["inspect", "--url-match", "x", sse],
    ] {
        let out = sselint(&args);
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(2), "{args:?}: {all}");
        assert!(all.contains("--url-match"), "{args:?}: {all}");
        assert!(all.contains("openai-basic.sse"), "{args:?}: {all}");
        assert!(!all.contains("panicked"), "{args:?}: {all}");
    }
    // On a HAR it still picks the entries whose URL contains the text.
    let har = root().join("samples/har/chrome.har");
    let out = sselint(&[
        "check",
        "--url-match",
        "/chat/completions",
        "-q",
        har.to_str().unwrap(),
    ]);
    assert_ne!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn a_directory_takes_a_log_or_txt_file_only_when_it_sniffs_as_a_capture() {
    let d = scratch("dir");
    std::fs::copy(
        root().join("samples/good/openai-basic.sse"),
        d.join("a.sse"),
    )
    .unwrap();
    std::fs::write(
        d.join("server.log"),
        "2025-01-01T10:00:00Z INFO listening on :8080\n2025-01-01T10:00:01Z ERROR upstream timed out\n",
    )
    .unwrap();
    std::fs::write(d.join("notes.txt"), "remember to rotate the key\n").unwrap();
    std::fs::write(d.join("blob.bin"), [0u8, 1, 2, 3, 255, 254]).unwrap();
    // Captures under those names are still taken.
    std::fs::copy(
        root().join("samples/good/openai-basic.sse"),
        d.join("body.log"),
    )
    .unwrap();
    let curl_i = std::fs::read_dir(root().join("samples/curl"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| std::fs::read(p).unwrap().starts_with(b"HTTP/"))
        .expect("a curl -i sample");
    std::fs::copy(&curl_i, d.join("dump.txt")).unwrap();
    let out = sselint(&["check", "--format", "json", d.to_str().unwrap()]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut paths: Vec<String> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            PathBuf::from(f["path"].as_str().unwrap())
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    paths.sort();
    assert_eq!(paths, ["a.sse", "body.log", "dump.txt"], "{v}");
}

/// A `curl -v` dump whose blank header lines lost their space (`<\r`,
/// `>\r`: a copy from a terminal, or an editor that trims trailing
/// whitespace), here around a `100 Continue`: the request, the final
/// status and its headers are still read, and no `<` line reaches the body.
#[test]
fn a_curl_v_dump_with_bare_blank_header_markers_keeps_its_status_and_headers() {
    let p = root().join("tests/fixtures/curl-v-bare-markers.txt");
    let out = sselint(&["check", "--format", "json", "-v", p.to_str().unwrap()]);
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(out.status.code(), Some(0), "{v:#}");
    let file = &v["files"][0];
    assert_eq!(file["input_format"], "curl", "{v:#}");
    let s = &file["streams"][0];
    assert_eq!(s["http"]["status"], 200, "{v:#}");
    assert_eq!(
        s["http"]["content_type"], "text/event-stream; charset=utf-8",
        "{v:#}"
    );
    assert_eq!(s["choices"][0]["text"], "Bare markers.", "{v:#}");
    assert_eq!(s["ending"], "complete", "{v:#}");
    let rules: Vec<&str> = s["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap())
        .collect();
    assert!(rules.is_empty(), "{rules:?}");
}
