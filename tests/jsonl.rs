//! Gateway logs in and result lines out: `check --input-format jsonl`
//! reads one record per line with its HTTP facts, `--format jsonl` writes
//! one line per stream as a `lint_arrow` row; a bad record is a row with
//! its `read_error`, and no record is lost.

mod common;
use assert_cmd::cargo::cargo_bin;
use base64::Engine as _;
use common::root;
use serde_json::{json, Value};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sselint-jsonl-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn sselint(args: &[&str]) -> Output {
    Command::new(cargo_bin("sselint"))
        .args(args)
        .env("NO_COLOR", "1")
        .current_dir(root())
        .output()
        .unwrap()
}

fn sselint_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(cargo_bin("sselint"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn lines(out: &Output) -> Vec<Value> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

fn sample(name: &str) -> String {
    std::fs::read_to_string(root().join("samples").join(name)).unwrap()
}

/// The fields of a `lint_arrow` row, in order.
const FIELDS: &[&str] = &[
    "id",
    "verdict",
    "errors",
    "warnings",
    "infos",
    "dialect",
    "ending",
    "provider_guess",
    "answer_chars",
    "rules",
    "read_error",
];

#[test]
fn a_record_is_judged_with_its_status_headers_and_path_and_keys_stay_hidden() {
    let good = sample("good/openai-basic.sse");
    let log: String = [
        json!({"id": "ok", "status": 200, "headers": {"content-type": "text/event-stream", "authorization": "Bearer sk-test-FAKE0123456789abcdef"}, "path": "/v1/chat/completions", "body": good}),
        json!({"id": "limited", "status": 429, "headers": {"content-type": "application/json"}, "path": "/v1/chat/completions", "body": "{\"error\":{\"message\":\"slow down\"}}"}),
        json!({"id": "plain", "status": 200, "headers": [["Content-Type", "text/plain"]], "body": good}),
        json!({"id": "elsewhere", "path": "/v1/messages", "body": good}),
        json!({"id": 42, "body": good}),
    ]
    .iter()
    .map(|v| v.to_string() + "\n")
    .collect();
    let out = sselint_stdin(
        &["check", "--input-format", "jsonl", "--format", "jsonl", "-"],
        log.as_bytes(),
    );
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(!text.contains("FAKE0123"), "a key was printed: {text}");
    assert_eq!(out.status.code(), Some(1), "{text}");
    let rows = lines(&out);
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["ok", "limited", "plain", "elsewhere", "42"]);
    for (line, r) in String::from_utf8_lossy(&out.stdout).lines().zip(&rows) {
        assert_eq!(r.as_object().unwrap().len(), FIELDS.len(), "{line}");
        let at: Vec<usize> = FIELDS
            .iter()
            .map(|f| {
                line.find(&format!("\"{f}\":"))
                    .unwrap_or_else(|| panic!("{f}: {line}"))
            })
            .collect();
        assert!(
            at.windows(2).all(|w| w[0] < w[1]),
            "fields out of order: {line}"
        );
    }
    let rules = |i: usize| -> Vec<&str> {
        rows[i]["rules"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect()
    };
    assert_eq!(rows[0]["verdict"], "pass");
    assert_eq!(rows[0]["dialect"], "chat");
    assert_eq!(rows[0]["ending"], "complete");
    assert_eq!(rows[0]["answer_chars"], 31);
    assert!(rules(0).is_empty(), "{}", rows[0]);
    assert_eq!(rows[1]["verdict"], "fail");
    assert_eq!(
        rules(1),
        ["http-status"],
        "the status decides, not body-not-sse"
    );
    assert!(rules(2).contains(&"content-type"), "{}", rows[2]);
    assert!(rules(3).contains(&"path-dialect-mismatch"), "{}", rows[3]);
    // The same body with no facts: none of those.
    assert!(rules(4).is_empty(), "{}", rows[4]);
}

#[test]
fn bad_records_get_a_read_error_each_and_none_is_lost() {
    let dir = scratch("bad");
    let good = sample("good/messages-basic.sse");
    let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
    // 2 MiB that decode from a few KiB of gzip: past --max-decoded-bytes.
    let bomb = {
        let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        z.write_all(&vec![b'a'; 2 << 20]).unwrap();
        z.finish().unwrap()
    };
    // Noise: bytes of every value, no line of SSE.
    let noise: Vec<u8> = (0..(1u32 << 20))
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let mut log = Vec::new();
    let mut add = |line: &[u8]| {
        log.extend_from_slice(line);
        log.push(b'\n');
    };
    add(json!({"id": "null", "body": null}).to_string().as_bytes());
    add(json!({"id": "missing"}).to_string().as_bytes());
    add(json!({"id": "empty", "body": ""}).to_string().as_bytes());
    add(b"{\"id\": \"cut");
    add(b"\xff\xfe{\"id\": \"utf16\"}");
    add(json!({"id": "both", "body": "x", "body_base64": "eA=="})
        .to_string()
        .as_bytes());
    add(json!({"id": "not-base64", "body_base64": "***"})
        .to_string()
        .as_bytes());
    add(json!({"id": "status", "status": "200", "body": good})
        .to_string()
        .as_bytes());
    add(json!({"id": "bomb", "body_base64": b64(&bomb)})
        .to_string()
        .as_bytes());
    add(json!({"id": "noise", "body_base64": b64(&noise)})
        .to_string()
        .as_bytes());
    add(
        json!({"id": "bad-utf8", "body_base64": b64(b"data: {\"a\":\"\xff\xfe\"}\n\n")})
            .to_string()
            .as_bytes(),
    );
    let dump = format!("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n{good}");
    add(json!({"id": "headers-in-body", "body": dump})
        .to_string()
        .as_bytes());
    add(b"");
    add(b"[1, 2]");
    add(json!({"id": "last", "body": good}).to_string().as_bytes());
    let path = dir.join("log.jsonl");
    std::fs::write(&path, &log).unwrap();
    let out = sselint(&[
        "check",
        "--input-format",
        "jsonl",
        "--format",
        "jsonl",
        "--max-decoded-bytes",
        "2048",
        path.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let rows = lines(&out);
    let p = path.to_str().unwrap();
    let ids: Vec<String> = rows
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        ids,
        [
            "null",
            "missing",
            "empty",
            &format!("{p}:4"),
            &format!("{p}:5"),
            "both",
            "not-base64",
            "status",
            "bomb",
            "noise",
            "bad-utf8",
            "headers-in-body",
            &format!("{p}:14"),
            "last"
        ],
        "one row per non-blank line, in order"
    );
    let by_id = |id: &str| rows.iter().find(|r| r["id"] == id).unwrap();
    for (id, says) in [
        ("null", "no body"),
        ("missing", "no body"),
        ("both", "both"),
        ("not-base64", "not base64"),
        (&format!("{p}:4"), "not a JSON object"),
        (&format!("{p}:5"), "not valid UTF-8"),
        ("status", "\"status\" is \"200\""),
        (&format!("{p}:14"), "not a JSON object"),
    ] {
        let r = by_id(id);
        assert_eq!(r["verdict"], "error", "{r}");
        let e = r["read_error"].as_str().unwrap_or_else(|| panic!("{r}"));
        assert!(e.contains(says), "{id}: {e}");
        assert!(err.contains(e), "stderr names it too: {err}");
    }
    // Read, and judged: no read error, but findings.
    let rules = |id: &str| -> Vec<String> {
        let r = by_id(id);
        assert!(r["read_error"].is_null(), "{r}");
        r["rules"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    // No path names a dialect: the empty body is no stream of any.
    assert!(rules("empty").contains(&"empty-body".to_string()));
    assert!(rules("bomb").contains(&"capture-truncated".to_string()));
    assert!(
        rules("noise").contains(&"body-not-sse".to_string()),
        "{:?}",
        rules("noise")
    );
    assert!(!rules("bad-utf8").is_empty());
    assert!(!rules("headers-in-body").is_empty());
    assert_eq!(by_id("last")["verdict"], "pass");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A directory of captures and the same bodies as a log give the same
/// rows (bar the id), and the same counts as the JSON report.
#[test]
fn rows_agree_with_the_files_and_with_the_json_report() {
    let dir = scratch("agree");
    let caps = dir.join("caps");
    std::fs::create_dir_all(&caps).unwrap();
    let mut log = String::new();
    let mut names = Vec::new();
    for d in ["good", "bad"] {
        for e in std::fs::read_dir(root().join("samples").join(d)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "sse") {
                let name = format!("{d}-{}", p.file_name().unwrap().to_string_lossy());
                let body = std::fs::read(&p).unwrap();
                std::fs::write(caps.join(&name), &body).unwrap();
                names.push(name);
            }
        }
    }
    names.sort();
    for n in &names {
        let body = std::fs::read(caps.join(n)).unwrap();
        let b64 = base64::engine::general_purpose::STANDARD.encode(&body);
        log.push_str(&json!({"id": n, "body_base64": b64}).to_string());
        log.push('\n');
    }
    let log_path = dir.join("log.jsonl");
    std::fs::write(&log_path, log).unwrap();
    let files = sselint(&["check", "--format", "jsonl", caps.to_str().unwrap()]);
    let records = sselint(&[
        "check",
        "--input-format",
        "jsonl",
        "--format",
        "jsonl",
        "-j",
        "2",
        log_path.to_str().unwrap(),
    ]);
    assert_eq!(files.status.code(), records.status.code());
    let (a, b) = (lines(&files), lines(&records));
    assert_eq!(a.len(), names.len());
    assert_eq!(a.len(), b.len());
    for ((mut x, mut y), n) in a.into_iter().zip(b).zip(&names) {
        assert_eq!(x["id"], caps.join(n).to_str().unwrap());
        assert_eq!(y["id"], n.as_str());
        x["id"] = Value::Null;
        y["id"] = Value::Null;
        assert_eq!(x, y, "{n}");
    }
    // The JSON report of the same log: the same counts, file by file.
    let json = sselint(&[
        "check",
        "--input-format",
        "jsonl",
        "--format",
        "json",
        log_path.to_str().unwrap(),
    ]);
    let doc: Value = serde_json::from_slice(&json.stdout).unwrap();
    let rows = lines(&records);
    let files = doc["files"].as_array().unwrap();
    assert_eq!(files.len(), rows.len());
    for (f, r) in files.iter().zip(&rows) {
        assert_eq!(f["path"], r["id"]);
        let d = f["streams"][0]["diagnostics"].as_array().unwrap();
        let errors = d.iter().filter(|x| x["severity"] == "error").count() as u64;
        let omitted: u64 = f["streams"][0]["omitted"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum();
        if omitted == 0 {
            assert_eq!(r["errors"].as_u64().unwrap(), errors, "{r}");
        }
        assert_eq!(f["streams"][0]["dialect"], r["dialect"]);
        assert_eq!(f["streams"][0]["ending"], r["ending"]);
    }
    // Written to a file with -o: the same lines, and nothing left over.
    let out = dir.join("out").join("rows.jsonl");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let written = sselint(&[
        "check",
        "--input-format",
        "jsonl",
        "--format",
        "jsonl",
        "-o",
        out.to_str().unwrap(),
        log_path.to_str().unwrap(),
    ]);
    assert_eq!(written.status.code(), records.status.code());
    assert!(written.stdout.is_empty());
    assert_eq!(std::fs::read(&out).unwrap(), records.stdout);
    assert_eq!(std::fs::read_dir(out.parent().unwrap()).unwrap().count(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_directory_of_logs_and_the_commands_that_take_one_capture() {
    let dir = scratch("dirs");
    std::fs::create_dir_all(dir.join("a")).unwrap();
    let rec = json!({"id": "r", "body": sample("good/responses-basic.sse")}).to_string() + "\n";
    std::fs::write(dir.join("a/one.jsonl"), &rec).unwrap();
    std::fs::write(dir.join("two.ndjson"), &rec).unwrap();
    std::fs::write(dir.join("notes.txt"), "not a log").unwrap();
    let out = sselint(&[
        "check",
        "--input-format",
        "jsonl",
        "--format",
        "jsonl",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = lines(&out);
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r["dialect"] == "responses"));
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = sselint(&["check", "--input-format", "jsonl", empty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no .jsonl or .ndjson log"));
    for cmd in ["inspect", "minimize"] {
        let f = dir.join("two.ndjson");
        let out = sselint(&[cmd, "--input-format", "jsonl", f.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {err}");
        assert!(err.contains("only `sselint check`"), "{cmd}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
    let _ = Path::new("");
}
