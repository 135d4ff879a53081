//! `sselint replay` of streams that are not SSE (issue 37): Ollama's NDJSON
//! at `/api/chat` and `/api/generate`, Bedrock's event stream at
//! `/model/ID/converse-stream` and `/model/ID/invoke-with-response-stream`,
//! each with its media type, its API's 404, and the faults these
//! transports can have (a cut after whole lines or frames, a cut inside a
//! frame, a frame whose CRC is flipped in flight), read back by `sselint
//! check URL` and `sselint record`, our own clients.

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
