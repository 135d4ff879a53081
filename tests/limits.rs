//! Every named limit, at the limit and one past it: the largest event, the
//! deepest JSON, the most HAR entries, the largest decoded body, the live
//! read time-out.

mod common;
use assert_cmd::Command;
use common::*;
use sselint::capture::{self, Options};
use sselint::lint::Settings;
use sselint::pipeline::{lint_capture, NoObserver};
use std::io::Write;

fn rules(bytes: &[u8], settings: &Settings, opts: &Options) -> Vec<&'static str> {
    let cap = capture::from_reader(
        "limit",
        Box::new(std::io::Cursor::new(bytes.to_vec())),
        opts,
    )
    .unwrap();
    let r = lint_capture(cap, settings, &mut NoObserver);
    r.streams
        .iter()
        .flat_map(|s| s.diagnostics.iter().map(|d| d.rule))
        .collect()
}

fn event_of(len: usize) -> Vec<u8> {
    // One `data:` line of exactly `len` bytes (the limit counts line bytes).
    let mut line = b"data: {\"x\":\"".to_vec();
    while line.len() < len - 2 {
        line.push(b'a');
    }
    line.extend_from_slice(b"\"}");
    assert_eq!(line.len(), len);
    line.extend_from_slice(b"\n\ndata: [DONE]\n\n");
    line
}

fn event_too_large_messages(bytes: &[u8], settings: &Settings) -> Vec<String> {
    let cap = capture::from_reader(
        "limit",
        Box::new(std::io::Cursor::new(bytes.to_vec())),
        &Options::default(),
    )
    .unwrap();
    let r = lint_capture(cap, settings, &mut NoObserver);
    r.streams
        .iter()
        .flat_map(|s| s.diagnostics.iter())
        .filter(|d| d.rule == "event-too-large")
        .map(|d| d.message.clone())
        .collect()
}

#[test]
fn max_event_bytes_at_and_past_the_limit() {
    let settings = Settings {
        max_event_bytes: 4096,
        ..Default::default()
    };
    let at = rules(&event_of(4096), &settings, &Options::default());
    assert!(!at.contains(&"event-too-large"), "{at:?}");
    let past = event_too_large_messages(&event_of(4097), &settings);
    assert_eq!(past.len(), 1, "{past:?}");
    // The event's size is known exactly: it is named, not "more than".
    assert!(
        past[0].starts_with("an event of 4097 bytes "),
        "{}",
        past[0]
    );
}

#[test]
fn a_file_that_is_one_oversized_event_names_its_exact_size() {
    // No line end at all: the event is the whole file.
    let settings = Settings {
        max_event_bytes: 1000,
        ..Default::default()
    };
    let mut file = b"data: ".to_vec();
    file.resize(1006, b'a');
    let m = event_too_large_messages(&file, &settings);
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(m[0].starts_with("an event of 1006 bytes "), "{}", m[0]);
}

#[test]
fn the_default_event_limit_is_16_mib() {
    // Behaviour under `Settings::default()`, no explicit limit.
    let mib16 = 16 * 1024 * 1024;
    let at = rules(&event_of(mib16), &Settings::default(), &Options::default());
    assert!(!at.contains(&"event-too-large"), "{at:?}");
    let past = event_too_large_messages(&event_of(mib16 + 1), &Settings::default());
    assert_eq!(past.len(), 1, "{past:?}");
    assert!(past[0].contains("limit of 16777216 bytes"), "{}", past[0]);
}

#[test]
fn json_nesting_at_and_past_the_limit() {
    let nested = |depth: usize| {
        // The chunk object is one level; the rest are arrays.
        let inner = format!("{}{}", "[".repeat(depth - 1), "]".repeat(depth - 1));
        format!("data: {{\"deep\":{inner}}}\n\ndata: [DONE]\n\n").into_bytes()
    };
    let max = sselint::model::MAX_JSON_DEPTH;
    let at = lint_bytes(&nested(max));
    assert!(!diags(&at).iter().any(|d| d.rule == "invalid-json"));
    let past = lint_bytes(&nested(max + 1));
    let d = diags(&past)
        .into_iter()
        .find(|d| d.rule == "invalid-json")
        .expect("invalid-json past the limit");
    assert!(
        d.message.contains("nested deeper than 127 levels"),
        "{}",
        d.message
    );
}

#[test]
fn har_entries_at_and_past_the_limit() {
    let max = sselint::capture::har::MAX_ENTRIES;
    let har = |n: usize| {
        let mut s = String::from("{\"log\":{\"version\":\"1.2\",\"entries\":[");
        for i in 0..n {
            if i > 0 {
                s.push(',');
            }
            s.push_str("{}");
        }
        s.push_str("]}}");
        s.into_bytes()
    };
    let err = |b: Vec<u8>| {
        capture::from_reader(
            "x.har",
            Box::new(std::io::Cursor::new(b)),
            &Options::default(),
        )
        .unwrap_err()
        .message
    };
    assert!(err(har(max)).contains("no entry is an event stream"));
    assert!(err(har(max + 1)).contains("more than the limit"));
}

#[test]
fn decoded_size_at_and_past_the_limit() {
    let body = std::fs::read(root().join("samples/good/openai-basic.sse")).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&body).unwrap();
    let gz = gz.finish().unwrap();
    let opts = |n: u64| Options {
        max_decoded_bytes: Some(n),
        ..Default::default()
    };
    let at = rules(&gz, &Settings::default(), &opts(body.len() as u64));
    assert!(!at.contains(&"capture-truncated"), "{at:?}");
    let past = rules(&gz, &Settings::default(), &opts(body.len() as u64 - 1));
    assert!(past.contains(&"capture-truncated"), "{past:?}");
}

#[test]
fn the_default_decoded_limit_stops_a_decompression_bomb() {
    // 64 MiB of zeros compress to about 64 KiB; with a 1 MiB limit the read
    // stops at the limit (the default is 512 MiB).
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![0u8; 1024 * 1024];
    for _ in 0..64 {
        gz.write_all(&zeros).unwrap();
    }
    let gz = gz.finish().unwrap();
    let dir = common::Scratch::new("bomb");
    let p = dir.join("bomb.bin");
    std::fs::write(&p, gz).unwrap();
    Command::cargo_bin("sselint")
        .unwrap()
        .args([
            "check",
            "--color",
            "never",
            "--max-decoded-bytes",
            "1048576",
        ])
        .arg(&p)
        .assert()
        .stdout(predicates::str::contains(
            "decodes to more than 1048576 bytes",
        ));
}

#[test]
fn a_whole_stream_finding_on_a_line_past_64_kib_has_its_real_column() {
    // The last line keeps only its end for the snippet; its column still
    // counts every character before it (it stopped at 65536).
    let text = "é".repeat(40_000) + &"x".repeat(30_000);
    let line = format!(
        "data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{{\"role\":\"assistant\",\"content\":\"{text}\"}},\"finish_reason\":null}}]}}"
    );
    let dir = common::scratch("long-line-column");
    let f = dir.join("long.sse");
    std::fs::write(&f, format!("{line}\n\n")).unwrap();
    let out = assert_cmd::Command::cargo_bin("sselint")
        .unwrap()
        .arg("check")
        .arg(&f)
        .args(["--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cut = v["files"][0]["streams"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["rule"] == "cut-off")
        .expect("a cut-off finding")
        .clone();
    assert_eq!(cut["line"], 1, "{cut}");
    assert_eq!(cut["column"], line.chars().count() as u64, "{cut}");
}
