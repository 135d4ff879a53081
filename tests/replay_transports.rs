//! `sselint replay` of streams that are not SSE (issue 37): Ollama's NDJSON
//! at `/api/chat` and `/api/generate`, Bedrock's event stream at
//! `/model/ID/converse-stream` and `/model/ID/invoke-with-response-stream`,
//! each with its media type, its API's 404, and the faults these
//! transports can have (a cut after whole lines or frames, a cut inside a
//! frame, a frame whose CRC is flipped in flight), read back by `sselint
//! check URL` and `sselint record`, our own clients; and `record` to
//! Bedrock signed with SigV4 from the AWS environment variables, none of
//! which any output holds.

mod common;
use common::{request_file, root, scratch, sselint, Replay};
use serde_json::{json, Value};
use std::path::Path;

/// What one request got back.
struct Answer {
    status: u16,
    /// The head's headers, names in lower case.
    headers: Vec<(String, String)>,
    /// The body, de-chunked.
    body: Vec<u8>,
    /// Whether the chunked body ended with its last chunk (not a dropped
    /// connection).
    complete: bool,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One POST of `body` over a fresh connection.
fn post(addr: &str, path: &str, body: &str) -> Answer {
    use std::io::{Read, Write};
    let mut sock = std::net::TcpStream::connect(addr).unwrap();
    write!(
        sock,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = Vec::new();
    let _ = sock.read_to_end(&mut raw);
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> = head
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut rest = &raw[split..];
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v == "chunked");
    if !chunked {
        return Answer {
            status,
            headers,
            body: rest.to_vec(),
            complete: true,
        };
    }
    let mut body = Vec::new();
    while let Some(eol) = rest.windows(2).position(|w| w == b"\r\n") {
        let n = usize::from_str_radix(std::str::from_utf8(&rest[..eol]).unwrap(), 16).unwrap();
        if n == 0 {
            return Answer {
                status,
                headers,
                body,
                complete: true,
            };
        }
        let end = (eol + 2 + n).min(rest.len());
        body.extend_from_slice(&rest[eol + 2..end]);
        if rest.len() < eol + 4 + n {
            break;
        }
        rest = &rest[eol + 4 + n..];
    }
    Answer {
        status,
        headers,
        body,
        complete: false,
    }
}

fn sample(name: &str) -> std::path::PathBuf {
    root().join("samples").join(name)
}

/// `sselint check URL --format json` with `body` as the request: the
/// stream's report and the exit code.
fn check_url(url: &str, dir: &Path, body: &Value) -> (Option<i32>, Value) {
    let req = dir.join("request.json");
    std::fs::write(&req, body.to_string()).unwrap();
    let (code, out, err) = sselint(&[
        "check",
        url,
        "--body",
        req.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    (code, v["files"][0]["streams"][0].clone())
}

fn rules(stream: &Value) -> Vec<String> {
    stream["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap().to_string())
        .collect()
}

fn chat_request() -> Value {
    json!({"model": "qwen3:8b", "messages": [{"role": "user", "content": "Why is the sky blue?"}]})
}

fn converse_request() -> Value {
    json!({"messages": [{"role": "user", "content": [{"text": "Weather in Oslo?"}]}]})
}

#[test]
fn each_transport_is_served_at_its_apis_path_with_its_media_type() {
    // (sample, the path it is served at, a path of the same API it is
    // not, the media type)
    let cases = [
        (
            "good/ollama-chat.ndjson",
            "/api/chat",
            "/api/generate",
            "application/x-ndjson",
        ),
        (
            "good/ollama-generate.ndjson",
            "/api/generate",
            "/api/chat",
            "application/x-ndjson",
        ),
        (
            "good/bedrock-converse.bin",
            "/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream",
            "/model/m/invoke-with-response-stream",
            "application/vnd.amazon.eventstream",
        ),
        (
            "good/bedrock-invoke.bin",
            "/model/m/invoke-with-response-stream",
            "/model/m/converse-stream",
            "application/vnd.amazon.eventstream",
        ),
    ];
    for (file, path, other, media) in cases {
        let p = sample(file);
        let replay = Replay::start(&p, &[]);
        let addr = replay.addr.as_str();
        // The startup line names the base URL a client of the API takes
        // (the origin) and the path.
        assert!(
            replay.line.contains(&format!("on http://{addr} (POST ")),
            "{file}: {}",
            replay.line
        );
        let a = post(addr, path, "{}");
        assert_eq!(a.status, 200, "{file}");
        assert_eq!(a.header("content-type"), Some(media), "{file}");
        assert!(a.complete, "{file}");
        assert_eq!(a.body, std::fs::read(&p).unwrap(), "{file}");
        // Another path of the same API: a 404 in its error shape naming
        // the path that serves the capture.
        let a = post(addr, other, "{}");
        assert_eq!(a.status, 404, "{file} at {other}");
        let v: Value = serde_json::from_slice(&a.body).unwrap();
        if media == "application/x-ndjson" {
            // Ollama's `{"error": "…"}`.
            let msg = v["error"].as_str().unwrap();
            assert!(msg.contains(&format!("at POST {path}")), "{msg}");
        } else {
            // AWS's `{"message": …}`, its type in x-amzn-ErrorType.
            let msg = v["message"].as_str().unwrap();
            assert!(msg.contains("at POST /model/{model}/"), "{msg}");
            assert_eq!(
                a.header("x-amzn-errortype"),
                Some("ResourceNotFoundException"),
                "{file}"
            );
        }
    }
}

#[test]
fn dialect_moves_a_capture_to_another_apis_path() {
    // The Converse sample served as Invoke: the event stream is sent as it
    // is, at Invoke's path (what a gateway that mixes them up does).
    let p = sample("good/bedrock-converse.bin");
    let replay = Replay::start(&p, &["--dialect", "bedrock-invoke"]);
    assert!(
        replay
            .line
            .contains("(POST /model/{model}/invoke-with-response-stream)"),
        "{}",
        replay.line
    );
    let a = post(&replay.addr, "/model/m/invoke-with-response-stream", "{}");
    assert_eq!(a.status, 200);
    assert_eq!(a.body, std::fs::read(&p).unwrap());
    assert_eq!(
        post(&replay.addr, "/model/m/converse-stream", "{}").status,
        404
    );
}

#[test]
fn an_ollama_request_with_stream_false_gets_one_json_object() {
    let replay = Replay::start(&sample("good/ollama-chat.ndjson"), &[]);
    let a = post(
        &replay.addr,
        "/api/chat",
        r#"{"model":"qwen3:8b","messages":[],"stream":false}"#,
    );
    assert_eq!(a.status, 200);
    assert!(a
        .header("content-type")
        .unwrap()
        .starts_with("application/json"));
    let v: Value = serde_json::from_slice(&a.body).unwrap();
    assert_eq!(
        v["message"]["content"],
        "Sunlight scatters off air molecules, and blue light scatters most."
    );
    assert_eq!(
        v["message"]["thinking"],
        "The user asks why the sky is blue."
    );
    assert_eq!(v["done"], true);
    assert_eq!(v["done_reason"], "stop");
    assert_eq!(v["eval_count"], 14);
    // A stream that never ends has no such answer: a 400 that says why.
    let replay = Replay::start(&sample("bad/ollama-cut-off.ndjson"), &[]);
    let a = post(&replay.addr, "/api/chat", r#"{"stream":false}"#);
    assert_eq!(a.status, 400);
    let v: Value = serde_json::from_slice(&a.body).unwrap();
    let msg = v["error"].as_str().unwrap();
    assert!(
        msg.contains(r#""stream": false"#) && msg.contains("done: true"),
        "{msg}"
    );
}

#[test]
fn a_cut_after_whole_lines_is_read_as_a_cut_off_stream() {
    let p = sample("good/ollama-chat.ndjson");
    let whole = std::fs::read(&p).unwrap();
    let replay = Replay::start(&p, &["--cut-after-messages", "2"]);
    let a = post(&replay.addr, "/api/chat", "{}");
    assert!(!a.complete);
    let two: Vec<&[u8]> = whole.split_inclusive(|b| *b == b'\n').take(2).collect();
    assert_eq!(a.body, two.concat());
    let dir = scratch("replay-ndjson-cut");
    let (code, stream) = check_url(
        &format!("http://{}/api/chat", replay.addr),
        &dir,
        &chat_request(),
    );
    assert_eq!(code, Some(1));
    assert_eq!(stream["dialect"], "ollama");
    assert_eq!(stream["ending"], "cut-off");
    assert!(
        rules(&stream).contains(&"ollama-cut-off".to_string()),
        "{stream}"
    );
}

#[test]
fn a_flipped_crc_is_found_at_its_frame() {
    let p = sample("good/bedrock-converse.bin");
    let whole = std::fs::read(&p).unwrap();
    let dir = scratch("replay-crc");
    let url = |r: &Replay| format!("http://{}/model/m/converse-stream", r.addr);
    // The message CRC of frame 2: four bytes flipped, the rest as it was.
    let replay = Replay::start(&p, &["--corrupt-crc", "2"]);
    let a = post(&replay.addr, "/model/m/converse-stream", "{}");
    let first = u32::from_be_bytes(whole[0..4].try_into().unwrap()) as usize;
    let second = u32::from_be_bytes(whole[first..first + 4].try_into().unwrap()) as usize;
    let crc = first + second - 4;
    let differ: Vec<usize> = (0..whole.len())
        .filter(|i| a.body[*i] != whole[*i])
        .collect();
    assert_eq!(differ, (crc..crc + 4).collect::<Vec<_>>());
    let (code, stream) = check_url(&url(&replay), &dir, &converse_request());
    assert_eq!(code, Some(1));
    let frame: Vec<&Value> = stream["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "converse-frame")
        .collect();
    assert_eq!(frame.len(), 1, "{stream}");
    assert_eq!(frame[0]["byte_offset"], crc as u64);
    // The prelude CRC of frame 2: nothing after it can be read.
    let replay = Replay::start(&p, &["--corrupt-prelude-crc", "2"]);
    let (_, stream) = check_url(&url(&replay), &dir, &converse_request());
    let d = stream["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["rule"] == "converse-frame")
        .unwrap_or_else(|| panic!("{stream}"));
    assert_eq!(d["byte_offset"], (first + 8) as u64);
    assert!(
        d["message"].as_str().unwrap().contains("prelude CRC"),
        "{d}"
    );
}

#[test]
fn cuts_inside_and_between_frames_are_told_apart() {
    let p = sample("good/bedrock-converse.bin");
    let whole = std::fs::read(&p).unwrap();
    let first = u32::from_be_bytes(whole[0..4].try_into().unwrap()) as usize;
    let dir = scratch("replay-frame-cut");
    // Inside frame 2: the body ends in a frame (a cut frame).
    let inside = (first + 20).to_string();
    let replay = Replay::start(&p, &["--cut-after-bytes", &inside]);
    let url = format!("http://{}/model/m/converse-stream", replay.addr);
    let (_, stream) = check_url(&url, &dir, &converse_request());
    assert_eq!(stream["ending"], "cut-off", "{stream}");
    let d = stream["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| {
            d["message"]
                .as_str()
                .unwrap()
                .contains("ends inside a frame")
        })
        .unwrap_or_else(|| panic!("{stream}"));
    assert_eq!(d["byte_offset"], (first + 19) as u64);
    // After whole frame 1: no frame is cut, the stream lacks its end.
    let replay = Replay::start(&p, &["--cut-after-messages", "1"]);
    let a = post(&replay.addr, "/model/m/converse-stream", "{}");
    assert_eq!(a.body, &whole[..first]);
    assert!(!a.complete);
    let url = format!("http://{}/model/m/converse-stream", replay.addr);
    let (_, stream) = check_url(&url, &dir, &converse_request());
    assert_eq!(stream["ending"], "cut-off", "{stream}");
    assert!(
        !stream["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["message"]
                .as_str()
                .unwrap()
                .contains("ends inside a frame")),
        "{stream}"
    );
}

#[test]
fn delays_and_split_writes_keep_the_bytes_and_the_verdict() {
    let dir = scratch("replay-paced");
    for (file, path, req) in [
        ("good/ollama-chat-tool.ndjson", "/api/chat", chat_request()),
        (
            "good/bedrock-invoke.bin",
            "/model/m/invoke-with-response-stream",
            json!({"anthropic_version": "bedrock-2023-05-31", "max_tokens": 64, "messages": [{"role": "user", "content": "Hi"}]}),
        ),
    ] {
        let p = sample(file);
        let replay = Replay::start(
            &p,
            &[
                "--split-bytes",
                "7",
                "--delay-ms",
                "5",
                "--first-delay-ms",
                "20",
            ],
        );
        let a = post(&replay.addr, path, "{}");
        assert_eq!(a.body, std::fs::read(&p).unwrap(), "{file}");
        let (code, stream) = check_url(&format!("http://{}{path}", replay.addr), &dir, &req);
        assert_eq!(code, Some(0), "{file}: {stream}");
        assert_eq!(stream["ending"], "complete", "{file}");
    }
}

#[test]
fn faults_a_transport_has_no_place_for_are_refused() {
    let ndjson = sample("good/ollama-chat.ndjson");
    let bin = sample("good/bedrock-converse.bin");
    let sse = sample("good/openai-basic.sse");
    let cases: [(&Path, &[&str], &str); 4] = [
        (&ndjson, &["--keepalive-ms", "100"], "has no comments"),
        (&bin, &["--keepalive-ms", "100"], "has no comments"),
        (&sse, &["--corrupt-crc", "1"], "has none"),
        (&bin, &["--corrupt-prelude-crc", "99"], "frames 1 to"),
    ];
    for (p, extra, said) in cases {
        let mut args = vec!["replay", p.to_str().unwrap(), "--listen", "127.0.0.1:0"];
        args.extend_from_slice(extra);
        let (code, _, err) = sselint(&args);
        assert_eq!(code, Some(2), "{extra:?}: {err}");
        assert!(err.contains(said), "{extra:?}: {err}");
    }
}

#[test]
fn record_of_a_replay_gives_back_each_transports_bytes() {
    let dir = scratch("replay-record-transports");
    for (file, path) in [
        ("good/ollama-chat.ndjson", "/api/chat"),
        ("good/ollama-generate.ndjson", "/api/generate"),
        ("good/bedrock-converse.bin", "/model/m/converse-stream"),
        (
            "good/bedrock-invoke.bin",
            "/model/m/invoke-with-response-stream",
        ),
        ("bad/converse-exception.bin", "/model/m/converse-stream"),
    ] {
        let p = sample(file);
        let replay = Replay::start(&p, &["--once"]);
        let out = dir.join("r.har");
        let (code, _, err) = sselint(&[
            "record",
            &format!("http://{}{path}", replay.addr),
            "--body",
            request_file(&dir).to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--force",
            "--fail-on",
            "never",
        ]);
        assert_eq!(code, Some(0), "{file}: {err}");
        let har: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        let content = &har["log"]["entries"][0]["response"]["content"];
        let text = content["text"].as_str().unwrap();
        let body = if content["encoding"] == "base64" {
            use base64::Engine;
            base64::engine::general_purpose::STANDARD
                .decode(text)
                .unwrap()
        } else {
            text.as_bytes().to_vec()
        };
        assert_eq!(body, std::fs::read(&p).unwrap(), "{file}");
    }
}

/// Test credentials (AWS's documentation example key id), never real.
const AKID: &str = "AKIAIOSFODNN7EXAMPLE";
const SECRET: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const TOKEN: &str = "FwoGZXIvYXdzEXAMPLESESSIONTOKEN0123456789";

/// `sselint record` with the AWS credentials in its environment.
fn record_signed(url: &str, body: &Value, out: &Path) -> (Option<i32>, String, String) {
    let req = out.with_extension("json");
    std::fs::write(&req, body.to_string()).unwrap();
    let o = std::process::Command::new(assert_cmd::cargo::cargo_bin("sselint"))
        .args(["record", url, "--body"])
        .arg(&req)
        .arg("-o")
        .arg(out)
        .args(["--force", "--fail-on", "never"])
        .env("NO_COLOR", "1")
        .env("AWS_ACCESS_KEY_ID", AKID)
        .env("AWS_SECRET_ACCESS_KEY", SECRET)
        .env("AWS_SESSION_TOKEN", TOKEN)
        .env("AWS_REGION", "eu-central-1")
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn record_to_bedrock_signs_from_the_environment_and_saves_no_credential() {
    let dir = scratch("record-sigv4");
    for (file, path, body) in [
        (
            "good/bedrock-converse.bin",
            "/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream",
            converse_request(),
        ),
        (
            "good/bedrock-invoke.bin",
            "/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream",
            json!({"anthropic_version": "bedrock-2023-05-31", "max_tokens": 64, "messages": [{"role": "user", "content": "Hi"}]}),
        ),
    ] {
        let p = sample(file);
        let replay = Replay::start(&p, &["--once"]);
        let out = dir.join("b.har");
        let (code, stdout, stderr) =
            record_signed(&format!("http://{}{path}", replay.addr), &body, &out);
        assert_eq!(code, Some(0), "{file}: {stderr}");
        let text = std::fs::read_to_string(&out).unwrap();
        for secret in [AKID, SECRET, TOKEN, "AWS4-HMAC-SHA256", "Signature="] {
            assert!(!text.contains(secret), "{file}: the HAR holds {secret}");
            assert!(
                !stdout.contains(secret) && !stderr.contains(secret),
                "{file}: printed {secret}"
            );
        }
        let har: Value = serde_json::from_str(&text).unwrap();
        let entry = &har["log"]["entries"][0];
        let sent = |name: &str| {
            entry["request"]["headers"]
                .as_array()
                .unwrap()
                .iter()
                .find(|h| h["name"].as_str().unwrap().eq_ignore_ascii_case(name))
                .map(|h| h["value"].as_str().unwrap().to_string())
        };
        for name in ["Authorization", "X-Amz-Date", "X-Amz-Security-Token"] {
            assert_eq!(sent(name).as_deref(), Some("[REDACTED]"), "{file}: {name}");
        }
        assert_eq!(
            sent("Accept").as_deref(),
            Some("application/vnd.amazon.eventstream")
        );
        // Bedrock's operations stream by their path: no `stream` field.
        let posted: Value =
            serde_json::from_str(entry["request"]["postData"]["text"].as_str().unwrap()).unwrap();
        assert!(posted.get("stream").is_none(), "{posted}");
        // The body comes back byte for byte.
        let content = &entry["response"]["content"];
        use base64::Engine;
        let got = base64::engine::general_purpose::STANDARD
            .decode(content["text"].as_str().unwrap())
            .unwrap();
        assert_eq!(got, std::fs::read(&p).unwrap(), "{file}");
    }
}

/// Seconds since 1970 of a SigV4 date (`20150830T123600Z`).
fn epoch_of_amz_date(d: &str) -> u64 {
    let n = |r: std::ops::Range<usize>| d[r].parse::<i64>().unwrap();
    let (y, m, day) = (n(0..4), n(4..6), n(6..8));
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    (days * 86_400 + n(9..11) * 3600 + n(11..13) * 60 + n(13..15)) as u64
}

#[test]
fn the_signature_on_the_wire_is_the_one_the_received_request_gives() {
    // A server that keeps the request it gets and answers with a Converse
    // stream: what a SigV4 verifier sees. Signing what it received again
    // with the same credentials and date must give the same header, so
    // nothing between the signer and the socket changed a signed part.
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let stream = std::fs::read(sample("good/bedrock-converse.bin")).unwrap();
    let server = std::thread::spawn(move || {
        let (sock, _) = listener.accept().unwrap();
        let mut r = BufReader::new(sock.try_clone().unwrap());
        let mut head = Vec::new();
        loop {
            let mut line = String::new();
            r.read_line(&mut line).unwrap();
            if line == "\r\n" || line.is_empty() {
                break;
            }
            head.push(line.trim_end().to_string());
        }
        let len: usize = head
            .iter()
            .find_map(|l| {
                l.to_ascii_lowercase()
                    .strip_prefix("content-length:")
                    .map(|v| v.trim().parse().unwrap())
            })
            .unwrap();
        let mut body = vec![0u8; len];
        r.read_exact(&mut body).unwrap();
        let mut sock = sock;
        write!(
            sock,
            "HTTP/1.1 200 OK\r\ncontent-type: application/vnd.amazon.eventstream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            stream.len()
        )
        .unwrap();
        sock.write_all(&stream).unwrap();
        (head, body)
    });
    let dir = scratch("record-sigv4-wire");
    let path = "/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream";
    let url = format!("http://{addr}{path}");
    let (code, _, stderr) = record_signed(&url, &converse_request(), &dir.join("w.har"));
    assert_eq!(code, Some(0), "{stderr}");
    let (head, body) = server.join().unwrap();
    assert_eq!(head[0], format!("POST {path} HTTP/1.1"));
    let header = |name: &str| {
        head.iter()
            .filter_map(|l| l.split_once(':'))
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_else(|| panic!("no {name} in {head:?}"))
    };
    let date = header("x-amz-date");
    assert_eq!(header("x-amz-security-token"), TOKEN);
    let auth = header("authorization");
    assert!(
        auth.starts_with(&format!(
            "AWS4-HMAC-SHA256 Credential={AKID}/{}/eu-central-1/bedrock/aws4_request, SignedHeaders=accept;content-type;host;x-amz-date;x-amz-security-token, Signature=",
            &date[..8]
        )),
        "{auth}"
    );
    let creds = sselint::live::sigv4::Credentials {
        access_key_id: AKID.into(),
        secret_access_key: SECRET.into(),
        session_token: Some(TOKEN.into()),
        region: Some("eu-central-1".into()),
    };
    let received: Vec<(String, String)> = ["content-type", "accept"]
        .iter()
        .map(|n| (n.to_string(), header(n)))
        .collect();
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_secs(epoch_of_amz_date(&date));
    let again = sselint::live::sigv4::sign(
        "POST",
        &format!("http://{}{path}", header("host")),
        &received,
        &body,
        &creds,
        "bedrock",
        at,
    )
    .unwrap();
    assert_eq!(again.last().unwrap().1, auth);
}

#[test]
fn a_cut_after_whole_events_works_on_sse_too() {
    // --cut-after-messages counts SSE events as it counts lines and frames.
    let p = sample("good/openai-basic.sse");
    let whole = std::fs::read(&p).unwrap();
    let replay = Replay::start(&p, &["--cut-after-messages", "2"]);
    let a = post(&replay.addr, "/v1/chat/completions", "{}");
    assert!(!a.complete);
    let text = String::from_utf8(whole).unwrap();
    let two: Vec<&str> = text.split_inclusive("\n\n").take(2).collect();
    assert_eq!(String::from_utf8(a.body).unwrap(), two.concat());
}
