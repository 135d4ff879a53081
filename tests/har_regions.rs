//! A finding inside a HAR body points, in SARIF and GitHub output, at the
//! exact bytes of the `.har` that hold it when the body is the JSON string
//! as it is (not base64, escapes in their usual form), and at the start of
//! the entry's `response.content.text` value otherwise.

mod common;
use assert_cmd::Command;
use base64::Engine;
use common::root;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> common::Scratch {
    common::Scratch::new(&format!("har-{name}"))
}

fn run(format: &str, path: &Path) -> String {
    let out = Command::cargo_bin("sselint")
        .unwrap()
        .args(["check", "-v", "--fail-on", "never", "--format", format])
        .arg(path)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// A shipped sample with two edits made in the file's own text (so the
/// browser's layout stays): non-ASCII answer text early in the body and an
/// unknown field deep inside it, past many `\n` and `\"` escapes.
fn edited(sample: &str, dir: &Path) -> PathBuf {
    let raw = std::fs::read_to_string(root().join("samples/har").join(sample)).unwrap();
    let start = raw.find("\"text\": \"data: ").expect("an SSE body");
    let (head, body) = raw.split_at(start);
    let body = body.replacen(r#"\"content\":\""#, r#"\"content\":\"héllo ✓ 🦀 "#, 2);
    let marker = r#"\"object\":\"chat.completion.chunk\""#;
    let at = body.match_indices(marker).nth(4).expect("five chunks").0 + marker.len();
    let body = format!(r#"{},\"zz_unknown\":1{}"#, &body[..at], &body[at..]);
    let p = dir.join(sample);
    std::fs::write(&p, format!("{head}{body}")).unwrap();
    p
}

/// The body of each entry, as the HAR's JSON says.
fn bodies(path: &Path) -> Vec<Option<String>> {
    let doc: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    doc["log"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            e["response"]["content"]["text"]
                .as_str()
                .map(str::to_string)
        })
        .collect()
}

/// Line and column (Unicode code points, both 1-based) of a byte offset.
fn line_col(file: &[u8], off: usize) -> (u64, u64) {
    let before = &file[..off];
    let line = before.iter().filter(|b| **b == b'\n').count() as u64 + 1;
    let start = before
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    let col = std::str::from_utf8(&before[start..])
        .unwrap()
        .chars()
        .count() as u64
        + 1;
    (line, col)
}

/// The JSON string escape of `s`, without quotes.
fn escaped(s: &str) -> String {
    let j = serde_json::to_string(s).unwrap();
    j[1..j.len() - 1].to_string()
}

#[test]
fn a_finding_in_a_plain_text_body_points_at_its_bytes_in_the_har() {
    let dir = scratch("plain");
    for sample in ["chrome.har", "firefox.har"] {
        let path = edited(sample, &dir);
        let file = std::fs::read(&path).unwrap();
        let bodies = bodies(&path);
        let sarif: Value = serde_json::from_str(&run("sarif", &path)).unwrap();
        let results = sarif["runs"][0]["results"].as_array().unwrap();
        let mut deep = 0;
        let mut spots = Vec::new();
        for r in results {
            let p = &r["properties"];
            let entry = p["harEntry"].as_u64().unwrap() as usize;
            let body = bodies[entry].as_deref().unwrap();
            let b = p["bodyByteOffset"].as_u64().unwrap() as usize;
            let region = &r["locations"][0]["physicalLocation"]["region"];
            let off = region["byteOffset"]
                .as_u64()
                .unwrap_or_else(|| panic!("{sample}: no byte offset in {r}"))
                as usize;
            let len = region["byteLength"].as_u64().unwrap() as usize;
            // The file's bytes there are the body's bytes, as JSON writes them.
            let blen = body[b..].len().min(
                (1..=body.len() - b)
                    .find(|n| escaped(&body[b..b + n]).len() == len)
                    .unwrap_or(0),
            );
            assert!(
                blen > 0,
                "{sample}: {len} file bytes match no body span: {r}"
            );
            assert_eq!(
                std::str::from_utf8(&file[off..off + len]).unwrap(),
                escaped(&body[b..b + blen]),
                "{sample}: {r}"
            );
            // And everything before it in the value maps too.
            let prefix = escaped(&body[..b]);
            assert_eq!(
                &file[off - prefix.len() - 1..off],
                format!("\"{prefix}").as_bytes(),
                "{sample}: {r}"
            );
            let (line, col) = line_col(&file, off);
            assert_eq!(region["startLine"], line, "{sample}: {r}");
            assert_eq!(region["startColumn"], col, "{sample}: {r}");
            if p["bodyLine"].as_u64().unwrap() > 5 {
                deep += 1;
            }
            spots.push((line, col));
        }
        assert!(deep > 0, "{sample}: no finding past the body's first lines");
        // GitHub annotations point at the same places.
        let gh = run("github", &path);
        let mut gh_spots = Vec::new();
        for l in gh.lines().filter(|l| l.starts_with("::")) {
            let field = |k: &str| {
                l.split([',', ':'])
                    .find_map(|f| f.strip_prefix(k))
                    .unwrap()
                    .parse::<u64>()
                    .unwrap()
            };
            gh_spots.push((field("line="), field("col=")));
        }
        assert_eq!(gh_spots, spots, "{sample}: {gh}");
    }
}

/// Where the entry's `content.text` value starts: its opening quote.
fn text_start(file: &[u8]) -> usize {
    let s = std::str::from_utf8(file).unwrap();
    let at = s.rfind("\"text\": \"").unwrap();
    at + "\"text\": ".len()
}

#[test]
fn a_body_that_does_not_map_points_at_the_start_of_its_text_value() {
    let dir = scratch("fallback");
    let plain = edited("chrome.har", &dir);
    let raw = std::fs::read_to_string(&plain).unwrap();
    let start = raw.find("\"text\": \"data: ").unwrap();
    // 1. An unusual escape (`\u006f` for `o`) before the findings.
    let unusual = format!(
        "{}{}",
        &raw[..start],
        raw[start..].replacen(r#"\"object\""#, r#"\"\u006fbject\""#, 1)
    );
    // 2. The same body in base64.
    let doc: Value = serde_json::from_str(&raw).unwrap();
    let body = doc["log"]["entries"][3]["response"]["content"]["text"]
        .as_str()
        .unwrap();
    let end = start + "\"text\": ".len() + serde_json::to_string(body).unwrap().len();
    let b64 = base64::engine::general_purpose::STANDARD.encode(body);
    let based = format!(
        "{}\"text\": \"{b64}\", \"encoding\": \"base64\"{}",
        &raw[..start],
        &raw[end..]
    );
    for (name, text) in [("unusual.har", unusual), ("base64.har", based)] {
        let path = dir.join(name);
        std::fs::write(&path, &text).unwrap();
        let file = text.as_bytes();
        let quote = text_start(file);
        let (line, col) = line_col(file, quote);
        let sarif: Value = serde_json::from_str(&run("sarif", &path)).unwrap();
        let results = sarif["runs"][0]["results"].as_array().unwrap();
        assert!(!results.is_empty(), "{name}");
        for r in results {
            let region = &r["locations"][0]["physicalLocation"]["region"];
            assert_eq!(region["startLine"], line, "{name}: {r}");
            assert_eq!(region["startColumn"], col, "{name}: {r}");
            assert_eq!(region["byteOffset"], quote as u64, "{name}: {r}");
            let text = r["message"]["text"].as_str().unwrap();
            assert!(text.starts_with("entries[3] body line "), "{name}: {text}");
        }
        let gh = run("github", &path);
        let first = gh.lines().next().unwrap();
        assert!(
            first.contains(&format!(",line={line},col={col},")),
            "{name}: {first}"
        );
    }
}

#[test]
fn the_firefox_cap_finding_points_into_the_har() {
    // 1 MiB of plain text: the capture-truncated finding at its last byte
    // maps to the file too.
    let path = root().join("samples/har/firefox-truncated.har");
    let file = std::fs::read(&path).unwrap();
    let sarif: Value = serde_json::from_str(&run("sarif", &path)).unwrap();
    let r = &sarif["runs"][0]["results"][0];
    let region = &r["locations"][0]["physicalLocation"]["region"];
    let off = region["byteOffset"].as_u64().unwrap() as usize;
    assert!(off > 1_048_575, "{r}");
    let (line, col) = line_col(&file, off);
    assert_eq!(region["startLine"], line, "{r}");
    assert_eq!(region["startColumn"], col, "{r}");
}

#[test]
fn a_finding_at_the_end_of_a_spooled_body_points_into_the_har() {
    // 3 MB of plain text, past the 2 MiB a body keeps in memory (the rest
    // is read back from a temporary file), cut in the middle of its last
    // chunk: the cut-off at its end maps to the file as a body in memory
    // does, not to the start of the text value.
    let dir = scratch("spooled");
    let chunk = r#"data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"word "},"finish_reason":null}]}"#;
    let mut body = String::from(
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n",
    );
    while body.len() < 3_000_000 {
        body.push_str(chunk);
        body.push_str("\n\n");
    }
    body.push_str(&chunk[..60]);
    let har = serde_json::json!({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [{
        "startedDateTime": "2025-01-01T00:00:00.000Z", "time": 1,
        "request": {"method": "POST", "url": "https://api.openai.com/v1/chat/completions", "httpVersion": "HTTP/1.1", "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": -1},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [{"name": "Content-Type", "value": "text/event-stream"}], "cookies": [],
            "content": {"size": body.len(), "mimeType": "text/event-stream", "text": body},
            "redirectURL": "", "headersSize": -1, "bodySize": -1},
        "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}
    }]}});
    let path = dir.join("spooled.har");
    std::fs::write(&path, serde_json::to_vec_pretty(&har).unwrap()).unwrap();
    let file = std::fs::read(&path).unwrap();
    let sarif: Value = serde_json::from_str(&run("sarif", &path)).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let r = results
        .iter()
        .find(|r| r["properties"]["rule"] == "cut-off")
        .unwrap_or_else(|| panic!("no cut-off: {sarif}"));
    let region = &r["locations"][0]["physicalLocation"]["region"];
    let off = region["byteOffset"].as_u64().unwrap() as usize;
    let b = r["properties"]["bodyByteOffset"].as_u64().unwrap() as usize;
    assert!(b > 2_900_000, "{r}");
    // The body is ASCII with `"` escaped: the file's bytes before it are the
    // value's opening quote and the body's first `b` bytes, as JSON writes
    // them.
    let prefix = escaped(&body[..b]);
    assert_eq!(
        &file[off - prefix.len() - 1..off],
        format!("\"{prefix}").as_bytes(),
        "{r}"
    );
    let (line, col) = line_col(&file, off);
    assert_eq!(region["startLine"], line, "{r}");
    assert_eq!(region["startColumn"], col, "{r}");
}
