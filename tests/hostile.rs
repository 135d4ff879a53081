//! Hostile and broken inputs, each with the outcome it must get: a finding
//! (exit 0 or 1) or exit 2 with a message naming the file and the problem.
//! Never a panic (exit 101), never a hang.

mod common;
use assert_cmd::Command;
use std::io::Write;
use std::path::{Path, PathBuf};

struct Case {
    name: &'static str,
    bytes: Vec<u8>,
    /// Expected exit code.
    code: i32,
    /// Text that must appear in stdout (exit 0/1) or stderr (exit 2).
    says: &'static str,
}

fn tmp(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::File::create(&p).unwrap().write_all(bytes).unwrap();
    p
}

fn scratch(test: &str) -> common::Scratch {
    common::Scratch::new(&format!("hostile-{test}"))
}

fn gzip(b: &[u8]) -> Vec<u8> {
    use flate2::write::GzEncoder;
    let mut e = GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(b).unwrap();
    e.finish().unwrap()
}

const CHUNK: &str = r#"data: {"id":"c","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}

data: [DONE]

"#;

fn cases() -> Vec<Case> {
    let mut nested = String::from("data: ");
    nested.push_str(&"[".repeat(100_000));
    nested.push_str(&"]".repeat(100_000));
    nested.push_str("\n\n");
    let digits = format!(
        "data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":{},\"model\":\"m\",\"choices\":[]}}\n\n",
        "9".repeat(10_000)
    );
    let surrogate = CHUNK.replace("\"hi\"", "\"\\ud800\"");
    let mut overlong = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"".to_vec();
    overlong.extend_from_slice(&[0xC0, 0xAF, 0xE2, 0x82]);
    overlong.extend_from_slice(b"\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
    let mut random = Vec::with_capacity(100_000);
    let mut x: u32 = 2463534242;
    for _ in 0..100_000 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        random.push((x & 0xff) as u8);
    }
    let body_gz = gzip(CHUNK.as_bytes());
    let mut gz_cut =
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-encoding: gzip\r\n\r\n"
            .to_vec();
    gz_cut.extend_from_slice(&body_gz[..body_gz.len() / 2]);
    let har = |content: &str| {
        format!(
            r#"{{"log":{{"version":"1.2","entries":[{{"request":{{"method":"POST","url":"https://x/v1/chat/completions","headers":[]}},"response":{{"status":200,"headers":[],"content":{{"mimeType":"text/event-stream",{content}}}}}}}]}}}}"#
        )
        .into_bytes()
    };
    let mut har_gz = har(&format!(
        r#""text":"{}","encoding":"base64""#,
        base64_of(&body_gz[..body_gz.len() / 2])
    ));
    har_gz.shrink_to_fit();
    let mut mid_bom = CHUNK
        .replace("data: [DONE]", "\u{FEFF}data: [DONE]")
        .into_bytes();
    mid_bom.shrink_to_fit();
    let declared = |encoding: &str| {
        format!("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-encoding: {encoding}\r\n\r\n{CHUNK}")
            .into_bytes()
    };
    // A zstd frame (magic 28 B5 2F FD) sselint cannot decode.
    let mut zstd_binary =
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-encoding: zstd\r\n\r\n"
            .to_vec();
    zstd_binary.extend_from_slice(&[
        0x28, 0xB5, 0x2F, 0xFD, 0x04, 0x58, 0x9D, 0x02, 0x00, 0xC2, 0x85, 0x0F, 0xFF, 0xE1, 0x01,
    ]);
    // ASCII text as UTF-16 code units, without a byte-order mark.
    let utf16 = |text: &[u8], big_endian: bool| -> Vec<u8> {
        text.iter()
            .flat_map(|&b| if big_endian { [0, b] } else { [b, 0] })
            .collect()
    };
    vec![
        // An invisible U+FEFF in a message is shown escaped.
        Case { name: "mid-bom.sse", bytes: mid_bom, code: 0, says: "field `\\u{feff}data`" },
        Case { name: "gzip-decoded.txt", bytes: declared("gzip"), code: 0, says: "Content-Encoding: gzip, but the body is not encoded" },
        Case { name: "zstd.txt", bytes: declared("zstd"), code: 0, says: "Content-Encoding: zstd is not one sselint decodes" },
        Case { name: "zstd-binary.txt", bytes: zstd_binary, code: 1, says: "decompress it first" },
        Case { name: "empty.sse", bytes: vec![], code: 1, says: "empty-body" },
        Case { name: "bom.sse", bytes: vec![0xEF, 0xBB, 0xBF], code: 1, says: "empty-body" },
        Case { name: "blank.sse", bytes: b"\n\n\r\n\r\r\n".to_vec(), code: 1, says: "empty-body" },
        Case { name: "nuls.sse", bytes: vec![0; 4096], code: 1, says: "body-not-sse" },
        Case { name: "utf16.sse", bytes: b"\xFF\xFEd\x00a\x00t\x00a\x00".to_vec(), code: 2, says: "UTF-16" },
        Case { name: "utf16le-no-bom.sse", bytes: utf16(b"data: {\"id\":\"chatcmpl-1\",\"choices\":[]}\n\n", false), code: 2, says: "UTF-16LE without a byte-order mark" },
        Case { name: "utf16be-no-bom.sse", bytes: utf16(b"data: {\"id\":\"chatcmpl-1\",\"choices\":[]}\n\n", true), code: 2, says: "UTF-16BE without a byte-order mark" },
        Case { name: "cut-in-first-event.sse", bytes: b"data: {\"id\":\"c\",\"choi".to_vec(), code: 1, says: "ended inside its first event" },
        Case { name: "no-log.json.har", bytes: b"{\"entries\": []}".to_vec(), code: 2, says: "not a HAR file" },
        Case { name: "random.bin", bytes: random, code: 1, says: "ending: empty" },
        Case { name: "long-line.sse", bytes: vec![b'a'; 10 * 1024 * 1024], code: 1, says: "body-not-sse" },
        Case { name: "line-50mb.sse", bytes: vec![b'a'; 50 * 1000 * 1000], code: 1, says: "event-too-large" },
        Case { name: "nested.sse", bytes: nested.into_bytes(), code: 1, says: "invalid-json" },
        Case { name: "digits.sse", bytes: digits.into_bytes(), code: 1, says: "invalid-json" },
        Case { name: "surrogate.sse", bytes: surrogate.into_bytes(), code: 0, says: "invalid-json" },
        Case { name: "overlong.sse", bytes: overlong, code: 1, says: "invalid-utf8" },
        Case { name: "not-json.har", bytes: b"{\"log\": [1, 2".to_vec(), code: 2, says: "not a HAR file: the JSON does not parse" },
        Case { name: "no-log.har", bytes: b"{\"logs\": {}, \"log\"  : null}".to_vec(), code: 2, says: "not a HAR file" },
        Case { name: "wrong-type.har", bytes: har(r#""text": 42"#), code: 2, says: "content.text is a JSON number" },
        Case { name: "bad-base64.har", bytes: har(r#""text":"@@@not base64@@@","encoding":"base64""#), code: 2, says: "not valid base64" },
        Case { name: "gzip-cut.har", bytes: har_gz, code: 1, says: "the transfer broke" },
        Case { name: "gzip-cut.txt", bytes: gz_cut, code: 1, says: "the transfer broke" },
        Case { name: "cut-headers.txt", bytes: b"HTTP/1.1 200 OK\r\ncontent-type: text/eve".to_vec(), code: 0, says: "inside the response headers" },
        Case {
            name: "cut-chunk-size.txt",
            bytes: b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-type: text/event-stream\r\n\r\n10\r\ndata: [DONE]\n\n\r\n\r\n1".to_vec(),
            code: 1,
            says: "the transfer broke",
        },
    ]
}

fn base64_of(b: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(b)
}

#[test]
fn every_hostile_input_gets_its_outcome_and_never_a_panic() {
    let dir = scratch("table");
    let mut failures = Vec::new();
    for c in cases() {
        let p = tmp(&dir, c.name, &c.bytes);
        let out = Command::cargo_bin("sselint")
            .unwrap()
            .args(["check", "-v", "--color", "never"])
            .arg(&p)
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap();
        let code = out.status.code().unwrap_or(-1);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let text = if c.code == 2 { &stderr } else { &stdout };
        if code != c.code || !text.contains(c.says) {
            failures.push(format!(
                "{}: exit {code} (want {}), wanted {:?} in {}:\n{}{}",
                c.name,
                c.code,
                c.says,
                if c.code == 2 { "stderr" } else { "stdout" },
                &stdout.chars().take(600).collect::<String>(),
                &stderr.chars().take(600).collect::<String>()
            ));
        }
        if c.code == 2 && !stderr.contains(c.name) {
            failures.push(format!(
                "{}: the error does not name the file: {stderr}",
                c.name
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
}

#[test]
fn stdin_with_nothing_on_it_is_an_empty_body() {
    Command::cargo_bin("sselint")
        .unwrap()
        .args(["check", "-", "--color", "never"])
        .write_stdin("")
        .assert()
        .code(1)
        .stdout(predicates::str::contains("empty-body"));
}

#[cfg(unix)]
#[test]
fn unreadable_files_and_symlink_loops_in_a_directory_are_reported_not_fatal() {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let dir = scratch("dir");
    tmp(&dir, "good.sse", CHUNK.as_bytes());
    let locked = tmp(&dir, "locked.sse", CHUNK.as_bytes());
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    symlink(&dir, dir.join("sub/loop")).unwrap();
    let root_can_read = std::fs::read(&locked).is_ok();
    // Root reads a mode-000 file; nobody reads /proc/self/mem from offset
    // 0 (EIO), so an unreadable input is tested under root too.
    let eio = cfg!(target_os = "linux") && symlink("/proc/self/mem", dir.join("eio.sse")).is_ok();
    let out = Command::cargo_bin("sselint")
        .unwrap()
        .args(["check", "--format", "json"])
        .arg(&dir)
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let files = v["files"].as_array().unwrap();
    assert!(files
        .iter()
        .any(|f| f["path"].as_str().unwrap().ends_with("good.sse") && f["error"].is_null()));
    assert!(stderr.contains("symlink loop"), "{stderr}");
    if !root_can_read {
        assert!(
            stderr.contains("locked.sse") && stderr.contains("permission denied"),
            "{stderr}"
        );
    }
    if eio {
        assert!(stderr.contains("eio.sse: input/output error"), "{stderr}");
    }
    assert!(
        !root_can_read || eio,
        "no unreadable input could be made on this system"
    );
    assert_eq!(out.status.code(), Some(2));
}

#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_quietly() {
    use std::process::{Command as Std, Stdio};
    let bin = assert_cmd::cargo::cargo_bin("sselint");
    let mut child = Std::new(bin)
        .args(["check", "-v", "--color", "never", "--fail-on", "never"])
        .arg(common::root().join("samples/providers"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read one byte, then close our end.
    let mut stdout = child.stdout.take().unwrap();
    let mut one = [0u8; 1];
    std::io::Read::read_exact(&mut stdout, &mut one).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    // With `--fail-on never` the verdict is 0 (one provider sample has an
    // error a client was seen to break on), and a closed pipe changes
    // neither it nor stderr (main.rs: not an error).
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Found by a fresh-user trial: `check` printed a stream's `finish_reason`
/// (and Messages' `stop_reason`) as the server sent it, so one holding
/// `ESC [2J` cleared the terminal. Every server-controlled string in the
/// human report is escaped as the answer text is.
#[test]
fn a_finish_reason_with_control_characters_is_printed_escaped() {
    let dir = scratch("finish-escape");
    let chat = concat!(
        r#"data: {"id":"c\u001b[31m","object":"chat.completion.chunk","created":1,"model":"m\u0007","choices":[{"index":0,"delta":{"role":"assistant","content":"hi"},"finish_reason":null}]}"#,
        "\n\n",
        r#"data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"weird\u001b[2J\u0007"}]}"#,
        "\n\ndata: [DONE]\n\n"
    );
    let messages = concat!(
        "event: message_start\n",
        r#"data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude\u001b[2J","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":0}}}"#,
        "\n\nevent: content_block_start\n",
        r#"data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        "\n\nevent: content_block_delta\n",
        r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}"#,
        "\n\nevent: content_block_stop\n",
        r#"data: {"type":"content_block_stop","index":0}"#,
        "\n\nevent: message_delta\n",
        r#"data: {"type":"message_delta","delta":{"stop_reason":"odd\u001b[2J\u0007"},"usage":{"output_tokens":1}}"#,
        "\n\nevent: message_stop\n",
        r#"data: {"type":"message_stop"}"#,
        "\n\n"
    );
    for (name, body) in [("chat.sse", chat), ("messages.sse", messages)] {
        let p = tmp(&dir, name, body.as_bytes());
        for extra in [&[][..], &["-v"][..]] {
            let o = Command::cargo_bin("sselint")
                .unwrap()
                .arg("check")
                .arg(&p)
                .args(["--color", "never"])
                .args(extra)
                .output()
                .unwrap();
            let out = String::from_utf8_lossy(&o.stdout).to_string()
                + &String::from_utf8_lossy(&o.stderr);
            assert!(
                !out.chars().any(|c| c.is_control() && c != '\n'),
                "{name}: a control character in {out:?}"
            );
            assert!(out.contains(r"\u{1b}[2J\u{7}"), "{name}: {out}");
        }
    }
}

/// Found by a probe run: a compressed body in an encoding sselint does not
/// decode (`Content-Encoding: v1`) made `check -v` panic in the snippet
/// renderer, a one-byte span ending inside the `�` an invalid byte is
/// shown as. These are those bytes (zlib).
#[test]
fn a_span_inside_a_replacement_character_renders_without_a_panic() {
    let dir = scratch("span-in-replacement");
    let hex = "789ccd8e4d6fc2300c86effd1595af7c16d8862a714002c4097e004253483c1a48edaa31d2a4a9ff1da7270ebb6fb7bcf163bf8f3362cafc07bc8332075bc03007bedcd04a9f2b2363cb7513503cd3d8560fba27c4b66804d34ea1a9668721f1753fabd85b8c9a4f7a971c7eeb73aa0385c4406a6b3960e24d8c3e8a21e9f79804a9ef854ef397271fab4f6d8a4cfa4b8f10ba739765ee4f9c5ff450f13cde474dcbb7c9fa32b09b15eecaebbe98cd176fef1fcb7fa8ff9b1144e1065e9c4e9be3617bceb2270deba3cf";
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    // Binary bytes alone are one `body-not-sse` (no transport frames
    // them); on a `data:` line they are read as SSE, and `invalid-utf8`
    // points inside them.
    let mut on_a_line = b"data: ".to_vec();
    on_a_line.extend_from_slice(&bytes);
    for (name, body, rule) in [
        ("body.bin", &bytes, "[body-not-sse]"),
        ("line.bin", &on_a_line, "[invalid-utf8]"),
    ] {
        let p = tmp(&dir, name, body);
        let o = Command::cargo_bin("sselint")
            .unwrap()
            .arg("check")
            .arg(&p)
            .arg("-v")
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(
            o.status.code(),
            Some(1),
            "{out}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(out.contains(rule), "{out}");
    }
}
