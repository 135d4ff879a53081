//! `sselint proxy`: a real `sselint replay` on 127.0.0.1 as the upstream,
//! a real HTTP client (ureq, and `sselint record` as the wrapped command)
//! through the proxy. What the client receives through the proxy is what
//! replay sent, in every fault mode; a cut is reported as cut; Ctrl-C and
//! the end of a wrapped command write the reports and lose no record;
//! keys never reach the output, the reports or the saved HARs.

mod common;
use common::{root, scratch, Replay};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `sselint proxy`, its stderr read line by line on a thread.
struct Proxy {
    child: Child,
    addr: String,
    lines: std::sync::mpsc::Receiver<String>,
    stdout: Option<std::process::ChildStdout>,
}

impl Proxy {
    /// Starts `sselint proxy --listen 127.0.0.1:0 ARGS`.
    fn start(args: &[&str]) -> Proxy {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("sselint"))
            .arg("proxy")
            .args(["--listen", "127.0.0.1:0"])
            .args(args)
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for l in BufReader::new(err).lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    return;
                }
            }
        });
        let first = rx.recv_timeout(Duration::from_secs(30)).unwrap();
        let addr = first
            .split("http://")
            .nth(1)
            .and_then(|s| s.split([' ', '/']).next())
            .unwrap_or_else(|| panic!("no address in {first:?}"))
            .to_string();
        Proxy {
            stdout: child.stdout.take(),
            child,
            addr,
            lines: rx,
        }
    }

    /// Ctrl-C (SIGINT), then its exit code, stdout and every stderr line.
    fn interrupt(self) -> (Option<i32>, String, Vec<String>) {
        self.signal("-INT")
    }

    /// `kill SIGNAL` (`-INT`, `-TERM`), then its exit code, stdout and
    /// every stderr line.
    fn signal(mut self, signal: &str) -> (Option<i32>, String, Vec<String>) {
        let pid = self.child.id().to_string();
        assert!(Command::new("kill")
            .args([signal, &pid])
            .status()
            .unwrap()
            .success());
        let mut out = String::new();
        self.stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        let status = self.child.wait().unwrap();
        let lines: Vec<String> = self.lines.iter().collect();
        (status.code(), out, lines)
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What a client got: the status, the body bytes read until the end or
/// until the connection failed, and whether it failed.
#[derive(Debug, PartialEq)]
struct Got {
    status: u16,
    body: Vec<u8>,
    cut: bool,
}

/// POSTs `body` to `url` with `headers` and reads the answer to its end.
fn post(url: &str, body: &str, headers: &[(&str, &str)]) -> Got {
    let agent = ureq::Agent::new_with_config(
        ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .build(),
    );
    let mut req = agent.post(url).header("Content-Type", "application/json");
    for (n, v) in headers {
        req = req.header(*n, *v);
    }
    let resp = req.send(body.as_bytes()).unwrap();
    let status = resp.status().as_u16();
    let mut r = resp.into_body().into_reader();
    let (mut out, mut buf, mut cut) = (Vec::new(), [0u8; 4096], false);
    loop {
        match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(_) => {
                cut = true;
                break;
            }
        }
    }
    Got {
        status,
        body: out,
        cut,
    }
}

/// `--upstream DIALECT=http://ADDR` for the replay `r`: the dialect its
/// path names (a plain URL serves the OpenAI dialects only), else a plain
/// URL.
fn upstream_of(r: &Replay) -> String {
    match sselint::dialect::endpoint_of(path_of(&r.url).split('?').next().unwrap_or("")) {
        Some(d) => format!("{}=http://{}", d.name(), r.addr),
        None => format!("http://{}", r.addr),
    }
}

/// The path (and query) of a URL.
fn path_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.find('/').map_or("/", |i| &rest[i..])
}

const CHAT: &str = r#"{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}"#;

/// Every capture kind and fault `replay` has: what the client reads
/// through the proxy is what it reads from replay itself, byte for byte,
/// cut where replay cut.
#[test]
fn bytes_through_the_proxy_equal_what_replay_sent_in_every_fault_mode() {
    let faults: &[&[&str]] = &[
        &[],
        &["--split-bytes", "1"],
        &["--delay-ms", "3", "--first-delay-ms", "20"],
        &["--keepalive-ms", "2", "--delay-ms", "6"],
        &["--cut-after-bytes", "150"],
        &["--cut-after-messages", "2"],
    ];
    let captures = [
        "samples/good/openai-basic.sse",
        "samples/good/messages-basic.sse",
        "samples/good/ollama-chat.ndjson",
        "samples/good/bedrock-converse.bin",
        "samples/bad/cut-off.sse",
    ];
    let mut compared = 0;
    for capture in captures {
        let path = root().join(capture);
        if !path.exists() {
            continue;
        }
        for fault in faults {
            if fault.contains(&"--keepalive-ms") && !capture.ends_with(".sse") {
                continue; // replay refuses keep-alives without comments
            }
            let r = Replay::start(&path, fault);
            let direct = post(&r.url, CHAT, &[]);
            let p = Proxy::start(&["--upstream", &upstream_of(&r)]);
            let via = post(&format!("http://{}{}", p.addr, path_of(&r.url)), CHAT, &[]);
            assert_eq!(direct.status, 200, "{capture} {fault:?}");
            assert!(!direct.body.is_empty(), "{capture} {fault:?}");
            assert!(
                via == direct,
                "{capture} {fault:?}: through the proxy {} bytes (cut: {}), direct {} bytes (cut: {})",
                via.body.len(),
                via.cut,
                direct.body.len(),
                direct.cut
            );
            let cutting = fault.iter().any(|f| f.starts_with("--cut"));
            assert_eq!(via.cut, cutting, "{capture} {fault:?}");
            let (_, _, lines) = p.interrupt();
            assert!(
                lines
                    .iter()
                    .any(|l| l.starts_with("sselint proxy: #1 POST")),
                "{lines:#?}"
            );
            compared += 1;
        }
    }
    assert!(compared >= 25, "only {compared} comparisons ran");
}

/// An upstream that cuts: the client gets every byte before the cut,
/// then the cut, every time. The cut reaches hyper only after the client
/// connection has flushed the bytes before it (no timer): 60 cuts in a
/// row at three points, each read to the byte against replay's own.
#[test]
fn every_byte_before_an_upstream_cut_reaches_the_client_every_time() {
    let capture = root().join("samples/good/openai-basic.sse");
    let mut cuts = 0;
    for at in ["1", "150", "333"] {
        // Small reads: many frames are in hyper's buffer when the cut comes.
        let r = Replay::start(&capture, &["--cut-after-bytes", at, "--split-bytes", "7"]);
        let direct = post(&r.url, CHAT, &[]);
        assert!(direct.cut && !direct.body.is_empty(), "{at}");
        let p = Proxy::start(&["--upstream", &format!("http://{}", r.addr), "-q"]);
        for i in 0..20 {
            let via = post(&format!("http://{}/v1/chat/completions", p.addr), CHAT, &[]);
            assert!(
                via == direct,
                "cut {i} at {at}: {} bytes through the proxy (cut: {}), {} from replay",
                via.body.len(),
                via.cut,
                direct.body.len()
            );
            cuts += 1;
        }
    }
    assert_eq!(cuts, 60);
}

/// Requests the proxy answered itself (the upstream unreachable, a TLS
/// handshake that failed) are records in the report, in every format,
/// saying why; the streams beside them are reported as usual.
#[test]
fn the_proxys_own_502s_are_records_in_every_report_format() {
    let dir = scratch("proxy-502");
    let r = Replay::start(&root().join("samples/good/openai-basic.sse"), &[]);
    // A server that hangs up on every connection: no TLS handshake.
    let hangs_up = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let tls_addr = hangs_up.local_addr().unwrap();
    std::thread::spawn(move || {
        for conn in hangs_up.incoming() {
            drop(conn);
        }
    });
    for format in ["human", "json", "sarif", "junit", "github", "html"] {
        let report = dir.join(format!("report.{format}"));
        let p = Proxy::start(&[
            // Nothing listens on port 9.
            "--upstream",
            "responses=http://127.0.0.1:9",
            "--upstream",
            &format!("messages=https://{tls_addr}"),
            "--upstream",
            &format!("chat=http://{}", r.addr),
            "--format",
            format,
            "-o",
            report.to_str().unwrap(),
        ]);
        let unreachable = post(&format!("http://{}/v1/responses", p.addr), CHAT, &[]);
        assert_eq!(unreachable.status, 502, "{format}");
        let tls = post(&format!("http://{}/v1/messages", p.addr), "{}", &[]);
        assert_eq!(tls.status, 502, "{format}");
        let streamed = post(&format!("http://{}/v1/chat/completions", p.addr), CHAT, &[]);
        assert_eq!(streamed.status, 200, "{format}");
        let (_, _, lines) = p.interrupt();
        assert!(
            lines.iter().any(|l| l.contains("1 stream linted")
                && l.contains("2 not forwarded (the proxy answered)")),
            "{format}: {lines:#?}"
        );
        let text = std::fs::read_to_string(&report).unwrap();
        for (what, path) in [
            (
                "cannot reach the upstream 127.0.0.1:9",
                "#1 POST /v1/responses",
            ),
            ("the upstream", "#2 POST /v1/messages"),
        ] {
            assert!(text.contains(what), "{format}: {what} missing: {text}");
            assert!(text.contains(path), "{format}: {path} missing: {text}");
        }
        assert!(
            text.contains("not forwarded, the proxy answered 502 itself"),
            "{format}: {text}"
        );
        // The human, SARIF and GitHub reports name only the streams with
        // findings; the others name each.
        assert!(
            ["human", "sarif", "github"].contains(&format)
                || text.contains("#3 POST /v1/chat/completions"),
            "{format}: the clean stream is missing"
        );
        match format {
            "json" => {
                let json: serde_json::Value = serde_json::from_str(&text).unwrap();
                assert_eq!(json["files"].as_array().unwrap().len(), 3, "{json:#}");
                assert_eq!(json["summary"]["unreadable"], 2, "{json:#}");
            }
            "junit" => {
                roxmltree::Document::parse(&text).unwrap();
            }
            "sarif" => {
                serde_json::from_str::<serde_json::Value>(&text).unwrap();
            }
            _ => {}
        }
    }
}

/// A frame CRC flipped in flight reaches the client as replay sent it,
/// and the proxy's lint finds it.
#[test]
fn a_corrupt_event_stream_frame_passes_through_and_is_found() {
    let r = Replay::start(
        &root().join("samples/good/bedrock-converse.bin"),
        &["--corrupt-crc", "2"],
    );
    let direct = post(&r.url, "{}", &[]);
    let p = Proxy::start(&["--upstream", &upstream_of(&r)]);
    let via = post(&format!("http://{}{}", p.addr, path_of(&r.url)), "{}", &[]);
    assert!(via == direct);
    let (code, _, lines) = p.interrupt();
    let line = lines.iter().find(|l| l.contains("#1 POST")).unwrap();
    assert!(
        line.contains("bedrock-converse") && line.contains("error:"),
        "{line}"
    );
    assert_eq!(code, Some(1), "{lines:#?}");
}

/// An upstream that drops the connection mid-stream: the client sees the
/// cut, the line and the report say the stream was cut, and the run fails.
#[test]
fn a_cut_upstream_is_reported_as_cut() {
    let dir = scratch("proxy-cut");
    let report = dir.join("report.json");
    let r = Replay::start(
        &root().join("samples/good/openai-basic.sse"),
        &["--cut-after-messages", "2"],
    );
    let p = Proxy::start(&[
        "--upstream",
        &format!("http://{}", r.addr),
        "--format",
        "json",
        "-o",
        report.to_str().unwrap(),
    ]);
    let via = post(&format!("http://{}/v1/chat/completions", p.addr), CHAT, &[]);
    assert!(via.cut);
    let (code, _, lines) = p.interrupt();
    assert_eq!(code, Some(1), "{lines:#?}");
    let line = lines.iter().find(|l| l.contains("#1 POST")).unwrap();
    assert!(
        line.contains("error: cut-off") && line.contains("the upstream cut the stream"),
        "{line}"
    );
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let stream = &json["files"][0]["streams"][0];
    assert_eq!(stream["ending"], "cut-off", "{json:#}");
    assert_eq!(stream["http"]["status"], 200);
}

/// An error status passes through unchanged, body and all; a response
/// that is no stream is passed through and counted, not linted.
#[test]
fn an_error_status_passes_through_unchanged_and_non_streams_are_counted() {
    let r = Replay::start(&root().join("samples/good/openai-basic.sse"), &[]);
    let p = Proxy::start(&["--upstream", &format!("http://{}", r.addr)]);
    let origin = format!("http://{}", r.addr);
    let direct = post(&format!("{origin}/v1/nowhere"), "{}", &[]);
    let via = post(&format!("http://{}/v1/nowhere", p.addr), "{}", &[]);
    assert_eq!(direct.status, 404);
    assert!(via == direct);
    let (code, _, lines) = p.interrupt();
    assert_eq!(code, Some(0), "{lines:#?}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("#1 POST /v1/nowhere 404") && l.contains("passed through")),
        "{lines:#?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("0 streams linted, 1 response passed through")),
        "{lines:#?}"
    );
}

/// A client that hangs up mid-stream closes its upstream request: the
/// exchange ends then, said as the client's doing, long before the stream
/// would have ended.
#[test]
fn a_client_that_disconnects_closes_the_upstream_request() {
    let r = Replay::start(
        &root().join("samples/good/openai-basic.sse"),
        &["--delay-ms", "400"],
    );
    let p = Proxy::start(&["--upstream", &format!("http://{}", r.addr)]);
    let agent = ureq::Agent::new_with_config(ureq::Agent::config_builder().build());
    let resp = agent
        .post(&format!("http://{}/v1/chat/completions", p.addr))
        .send(CHAT.as_bytes())
        .unwrap();
    let mut reader = resp.into_body().into_reader();
    let mut first = [0u8; 16];
    reader.read_exact(&mut first).unwrap();
    drop(reader);
    let line = p
        .lines
        .recv_timeout(Duration::from_secs(5))
        .expect("the exchange ends when the client goes");
    assert!(line.contains("the client went away"), "{line}");
    let (_, _, lines) = p.interrupt();
    assert!(
        !lines.iter().any(|l| l.contains("#1 POST")),
        "one line each: {lines:#?}"
    );
}

/// Ctrl-C while a stream is open: the stream is cut after --grace, every
/// exchange is in the report and saved, the report written whole.
#[test]
fn ctrl_c_writes_the_reports_and_loses_no_record() {
    let dir = scratch("proxy-ctrl-c");
    let report = dir.join("report.xml");
    let saved = dir.join("captures");
    let quick = Replay::start(&root().join("samples/good/messages-basic.sse"), &[]);
    let slow = Replay::start(
        &root().join("samples/good/openai-basic.sse"),
        &["--delay-ms", "1000"],
    );
    let p = Proxy::start(&[
        "--upstream",
        &format!("messages=http://{}", quick.addr),
        "--upstream",
        &format!("chat=http://{}", slow.addr),
        "--format",
        "junit",
        "-o",
        report.to_str().unwrap(),
        "--save",
        saved.to_str().unwrap(),
        "--grace",
        "0.2",
    ]);
    for _ in 0..4 {
        let got = post(&format!("http://{}/v1/messages", p.addr), "{}", &[]);
        assert_eq!(got.status, 200);
    }
    let url = format!("http://{}/v1/chat/completions", p.addr);
    let open = std::thread::spawn(move || post(&url, CHAT, &[]));
    // The slow stream's head and first event come at once, the rest a
    // second apart: it is open well past this.
    std::thread::sleep(Duration::from_millis(400));
    let (code, _, lines) = p.interrupt();
    let got = open.join().unwrap();
    assert!(got.cut, "the open stream is cut at shutdown");
    let xml = std::fs::read_to_string(&report).unwrap();
    roxmltree::Document::parse(&xml).unwrap();
    assert_eq!(xml.matches("<testsuite ").count(), 5, "{xml}");
    let hars = std::fs::read_dir(&saved).unwrap().count();
    assert_eq!(hars, 5, "{lines:#?}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("#5 POST") && l.contains("capture-truncated (cut at shutdown)")),
        "{lines:#?}"
    );
    assert!(
        lines.iter().any(|l| l.contains("5 streams linted")),
        "{lines:#?}"
    );
    // The answer it cut short is lost, as `check` of its capture says.
    assert_eq!(code, Some(1), "{lines:#?}");
}

/// The wrapped command reaches the proxy through the SDKs' base URL
/// variables; the proxy's exit code is the command's failure, else the
/// streams' verdict, and the reports are written when it ends.
#[test]
fn a_wrapped_command_runs_through_the_proxy_and_decides_the_exit_code() {
    let dir = scratch("proxy-wrap");
    let body = dir.join("request.json");
    std::fs::write(&body, CHAT).unwrap();
    let sselint = assert_cmd::cargo::cargo_bin("sselint");
    let record = format!(
        "{} record \"$OPENAI_BASE_URL/chat/completions\" --body {} -o {} --fail-on never --force >/dev/null",
        sselint.display(),
        body.display(),
        dir.join("seen.har").display()
    );
    let run = |capture: &str, tail: &str, report: &Path| {
        let r = Replay::start(&root().join(capture), &[]);
        let out = Command::new(&sselint)
            .args(["proxy", "--upstream", &format!("http://{}", r.addr)])
            .args(["--format", "sarif", "-o", report.to_str().unwrap()])
            .args(["--", "sh", "-c", &format!("{record}{tail}")])
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let clean = dir.join("clean.sarif");
    let (code, err) = run("samples/good/openai-basic.sse", "", &clean);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("#1 POST /v1/chat/completions 200 chat"),
        "{err}"
    );
    let sarif: serde_json::Value = serde_json::from_slice(&std::fs::read(&clean).unwrap()).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    // A stream with an error fails the run, the command having passed.
    let (code, err) = run("samples/bad/cut-off.sse", "", &dir.join("bad.sarif"));
    assert_eq!(code, Some(1), "{err}");
    // The command's own failure comes first.
    let (code, err) = run(
        "samples/good/openai-basic.sse",
        "; exit 3",
        &dir.join("c.sarif"),
    );
    assert_eq!(code, Some(3), "{err}");
}

/// The variables the command gets name the proxy's base URLs.
#[test]
fn the_wrapped_command_gets_each_sdks_base_url() {
    let dir = scratch("proxy-env");
    let seen = dir.join("env.txt");
    let out = Command::new(assert_cmd::cargo::cargo_bin("sselint"))
        .args(["proxy", "--upstream", "http://127.0.0.1:9", "-q", "--"])
        .args([
            "sh",
            "-c",
            &format!(
                "echo \"$OPENAI_BASE_URL $ANTHROPIC_BASE_URL $GOOGLE_GEMINI_BASE_URL $OLLAMA_HOST\" > {}",
                seen.display()
            ),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let env = std::fs::read_to_string(&seen).unwrap();
    let urls: Vec<&str> = env.split_whitespace().collect();
    assert_eq!(urls.len(), 4, "{env}");
    assert!(
        urls[0].starts_with("http://127.0.0.1:") && urls[0].ends_with("/v1"),
        "{env}"
    );
    let origin = urls[0].trim_end_matches("/v1");
    assert_eq!(&urls[1..], [origin, origin, origin], "{env}");
}

/// The client's key, cookie and prompt never reach the proxy's output
/// or its report; the saved HAR masks the key and cookie, also where the
/// upstream quotes the key back in the stream.
#[test]
fn keys_never_appear_in_output_reports_or_saved_hars() {
    let dir = scratch("proxy-keys");
    let key = "sk-proj-PROXYSECRET0123456789";
    // An upstream that quotes the key back (as an error message would).
    let capture = dir.join("echo.sse");
    std::fs::write(
        &capture,
        format!(
            "{}{}data: [DONE]\n\n",
            common::chat_chunk(&format!("your key is {key}"), "null"),
            common::chat_chunk("", "\"stop\"")
        ),
    )
    .unwrap();
    let r = Replay::start(&capture, &[]);
    let saved = dir.join("saved");
    let report = dir.join("report.json");
    let p = Proxy::start(&[
        "--upstream",
        &format!("http://{}", r.addr),
        "--save",
        saved.to_str().unwrap(),
        "--format",
        "json",
        "-o",
        report.to_str().unwrap(),
    ]);
    let prompt = "PROMPT-TEXT-never-printed";
    let body = CHAT.replace("hi", prompt);
    let got = post(
        &format!("http://{}/v1/chat/completions?key={key}", p.addr),
        &body,
        &[
            ("Authorization", &format!("Bearer {key}")),
            ("x-api-key", key),
            ("Cookie", "session=COOKIESECRET42"),
        ],
    );
    assert_eq!(got.status, 200);
    // The client gets the bytes as the upstream sent them.
    assert!(String::from_utf8_lossy(&got.body).contains(key));
    let (_, out, lines) = p.interrupt();
    let printed = format!("{out}\n{}", lines.join("\n"));
    for secret in [key, "COOKIESECRET42", prompt] {
        assert!(!printed.contains(secret), "{secret} printed: {printed}");
    }
    let report = std::fs::read_to_string(&report).unwrap();
    for secret in [key, "COOKIESECRET42"] {
        assert!(!report.contains(secret), "{secret} in the report");
    }
    let hars: Vec<_> = std::fs::read_dir(&saved)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(hars.len(), 1);
    let har = std::fs::read_to_string(&hars[0]).unwrap();
    for secret in [key, "COOKIESECRET42"] {
        assert!(!har.contains(secret), "{secret} in the saved HAR");
    }
    // The saved HAR is a capture `check` reads, its key masked in the body.
    assert!(har.contains("your key is [REDACTED]"), "{har}");
    let (code, out, err) = common::sselint(&["check", hars[0].to_str().unwrap()]);
    assert!(matches!(code, Some(0 | 1)), "{out}{err}");
    assert!(out.contains("answer: \"your key is [REDACTED]\""), "{out}");
    assert!(!out.contains(key) && !err.contains(key));
}

/// The proxy binds loopback unless told otherwise, twice.
#[test]
fn a_remote_listen_address_needs_allow_remote() {
    let (code, _, err) = common::sselint(&[
        "proxy",
        "--listen",
        "0.0.0.0:0",
        "--upstream",
        "http://127.0.0.1:9",
    ]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--allow-remote"), "{err}");
    let (code, _, err) = common::sselint(&["proxy", "--upstream", "ftp://x"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("http:// or https://"), "{err}");
    let (code, _, err) = common::sselint(&["proxy", "--upstream", "chatt=http://x"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("`chatt` is no dialect"), "{err}");
    // A dialect, or the plain URL, given twice is refused (the last won
    // silently before).
    for twice in [
        ["chat=http://127.0.0.1:1", "chat=http://127.0.0.1:2"],
        ["http://127.0.0.1:1", "http://127.0.0.1:2"],
    ] {
        let (code, _, err) = common::sselint(&[
            "proxy",
            "--upstream",
            twice[0],
            "--upstream",
            twice[1],
            "--",
            "true",
        ]);
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains("given twice"), "{err}");
    }
}

/// A request whose dialect has no upstream gets the proxy's own 502,
/// naming the option to give; nothing is sent anywhere.
#[test]
fn a_dialect_without_an_upstream_gets_a_502_that_says_which() {
    let r = Replay::start(&root().join("samples/good/openai-basic.sse"), &[]);
    let p = Proxy::start(&[
        "--upstream",
        &format!("chat=http://{}", r.addr),
        "--upstream",
        &format!("responses=http://{}", r.addr),
    ]);
    let got = post(&format!("http://{}/v1/messages", p.addr), "{}", &[]);
    assert_eq!(got.status, 502);
    let text = String::from_utf8_lossy(&got.body);
    assert!(text.contains("--upstream messages=URL"), "{text}");
    let (_, _, lines) = p.interrupt();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("#1 POST /v1/messages 502") && l.contains("not forwarded")),
        "{lines:#?}"
    );
}

/// The pinned SDKs (openai-python, anthropic, google-genai) of
/// clients/.venv, run as the wrapped command with nothing but the
/// variables the proxy sets: each assembles through the proxy the answer
/// it assembles from replay directly, and the proxy lints each stream.
#[test]
fn the_pinned_python_sdks_assemble_the_same_answers_through_the_proxy() {
    let python = root().join("clients/.venv/bin/python");
    if !python.exists() {
        common::not_run(
            "proxy::the_pinned_python_sdks_assemble_the_same_answers_through_the_proxy",
            &format!(
                "it needs {} (.ci/run installs it: python3 -m venv clients/.venv && clients/.venv/bin/pip install -r clients/requirements.txt)",
                python.display()
            ),
        );
        return;
    }
    let dir = scratch("proxy-sdks");
    let script = dir.join("sdks.py");
    std::fs::write(
        &script,
        r#"
import json, os, openai, anthropic
from google import genai
out = {}
o = openai.OpenAI(api_key="sk-test-not-a-key")
s = o.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}], stream=True)
out["chat"] = "".join(c.choices[0].delta.content or "" for c in s if c.choices)
a = anthropic.Anthropic(api_key="sk-ant-test-not-a-key")
with a.messages.stream(model="m", max_tokens=64, messages=[{"role": "user", "content": "hi"}]) as s:
    out["messages"] = s.get_final_text()
g = genai.Client(api_key="test-not-a-key")
out["gemini"] = "".join(c.text or "" for c in g.models.generate_content_stream(model="gemini-2.5-flash", contents="hi"))
print(json.dumps(out, sort_keys=True))
"#,
    )
    .unwrap();
    let chat = Replay::start(&root().join("samples/good/openai-basic.sse"), &[]);
    let messages = Replay::start(&root().join("samples/good/messages-basic.sse"), &[]);
    let gemini = Replay::start(&root().join("samples/good/gemini-basic.sse"), &[]);
    let direct = Command::new(&python)
        .arg(&script)
        .env("OPENAI_BASE_URL", format!("http://{}/v1", chat.addr))
        .env("ANTHROPIC_BASE_URL", format!("http://{}", messages.addr))
        .env("GOOGLE_GEMINI_BASE_URL", format!("http://{}", gemini.addr))
        .output()
        .unwrap();
    assert!(
        direct.status.success(),
        "{}",
        String::from_utf8_lossy(&direct.stderr)
    );
    let via = Command::new(assert_cmd::cargo::cargo_bin("sselint"))
        .args(["proxy", "--upstream", &format!("chat=http://{}", chat.addr)])
        .args(["--upstream", &format!("messages=http://{}", messages.addr)])
        .args(["--upstream", &format!("gemini=http://{}", gemini.addr)])
        .arg("--")
        .arg(&python)
        .arg(&script)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&via.stderr);
    assert_eq!(via.status.code(), Some(0), "{err}");
    let answers = String::from_utf8_lossy(&direct.stdout);
    assert!(answers.contains("Paris"), "{answers}");
    // The SDK's line comes first on stdout; the report follows it.
    let first = String::from_utf8_lossy(&via.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    assert_eq!(first, answers.trim_end(), "{err}");
    for d in ["chat", "messages", "gemini"] {
        assert!(
            err.lines()
                .any(|l| l.contains(&format!(" 200 {d} ")) && l.ends_with(": ok")),
            "{d}: {err}"
        );
    }
    assert!(!err.contains("not-a-key"), "{err}");
}

/// Without --upstream, the dialects' providers are the upstreams; a path
/// of no dialect goes nowhere (its key is no provider's to guess), and
/// gets the proxy's own 502. Nothing here reaches the internet.
#[test]
fn without_upstream_a_path_of_no_dialect_is_not_sent_anywhere() {
    let p = Proxy::start(&[]);
    let got = post(&format!("http://{}/v1/models", p.addr), "{}", &[]);
    assert_eq!(got.status, 502);
    let text = String::from_utf8_lossy(&got.body);
    assert!(text.contains("no --upstream for this path"), "{text}");
    let (_, _, lines) = p.interrupt();
    assert!(
        lines.iter().any(|l| l.contains("#1 POST /v1/models 502")),
        "{lines:#?}"
    );
}

/// The AI SDK script of the Node test: `streamText` through each provider
/// the application would use (`@ai-sdk/openai`'s Chat and Responses
/// models, `@ai-sdk/anthropic`, `@ai-sdk/google`), for each dialect named
/// in `SSELINT_DIALECTS`; prints {dialect: {text, finish, error}}. The
/// OpenAI and Anthropic providers find the proxy by the variables it sets
/// (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`); the Google provider reads no
/// base URL variable, so the script passes `GOOGLE_GEMINI_BASE_URL`'s as
/// an application must.
const AI_SDK_SCRIPT: &str = r#"
import { streamText } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
async function run(model) {
  const r = streamText({ model, prompt: "hi", maxRetries: 0, abortSignal: AbortSignal.timeout(20000) });
  let text = "", finish = null, error = null;
  for await (const p of r.fullStream) {
    if (p.type === "text-delta") text += p.text ?? "";
    else if (p.type === "error" && !error) error = String(p.error?.message ?? p.error);
    else if (p.type === "finish") finish = p.rawFinishReason ?? p.finishReason ?? null;
  }
  return { text, finish, error };
}
const openai = () => createOpenAI({ apiKey: "sk-test-not-a-key" });
const models = {
  chat: () => openai().chat("gpt-4o-mini"),
  responses: () => openai().responses("gpt-4o-mini"),
  messages: () => createAnthropic({ apiKey: "sk-ant-test-not-a-key" }).messages("claude-sonnet-4-5"),
  gemini: () => createGoogleGenerativeAI({ apiKey: "test-not-a-key", baseURL: process.env.GOOGLE_GEMINI_BASE_URL + "/v1beta" })("gemini-2.5-flash"),
};
const out = {};
for (const d of process.env.SSELINT_DIALECTS.split(",")) out[d] = await run(models[d]());
console.log(JSON.stringify(out));
"#;

/// The AI SDK's providers (as pinned in clients/package.json), run by
/// Node 22 from clients/node_modules as the wrapped command with the
/// variables the proxy sets: each assembles through the proxy the answer
/// it assembles from replay directly (each dialect's replay given to it
/// alone), and the proxy's line for each stream says ok.
#[test]
fn the_pinned_ai_sdk_providers_assemble_the_same_answers_through_the_proxy() {
    let clients = root().join("clients");
    let node = clients.join("node_modules/.bin/node");
    let pinned = [
        "ai",
        "@ai-sdk/openai",
        "@ai-sdk/anthropic",
        "@ai-sdk/google",
    ]
    .iter()
    .all(|p| {
        clients
            .join("node_modules")
            .join(p)
            .join("package.json")
            .exists()
    });
    if !node.exists() || !pinned {
        common::not_run(
            "proxy::the_pinned_ai_sdk_providers_assemble_the_same_answers_through_the_proxy",
            &format!(
                "it needs {} and the AI SDK's providers in clients/node_modules (.ci/run installs them: cd clients && npm ci)",
                node.display()
            ),
        );
        return;
    }
    let samples = [
        ("chat", "samples/good/openai-basic.sse"),
        ("responses", "samples/good/responses-basic.sse"),
        ("messages", "samples/good/messages-basic.sse"),
        ("gemini", "samples/good/gemini-basic.sse"),
    ];
    let replays: Vec<(&str, Replay)> = samples
        .iter()
        .map(|(d, s)| (*d, Replay::start(&root().join(s), &[])))
        .collect();
    // `node --input-type=module -e` resolves its imports from the working
    // directory: clients/, whose node_modules holds the pinned SDKs.
    let script = |cmd: &mut Command| {
        cmd.current_dir(&clients)
            .env("NODE_NO_WARNINGS", "1")
            .args(["--input-type=module", "-e", AI_SDK_SCRIPT]);
    };
    let mut direct = serde_json::Map::new();
    for (d, r) in &replays {
        let origin = format!("http://{}", r.addr);
        let mut cmd = Command::new(&node);
        script(&mut cmd);
        let out = cmd
            .env("SSELINT_DIALECTS", d)
            .env("OPENAI_BASE_URL", format!("{origin}/v1"))
            .env("ANTHROPIC_BASE_URL", &origin)
            .env("GOOGLE_GEMINI_BASE_URL", &origin)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{d} direct: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let got: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
        direct.insert(d.to_string(), got[d].clone());
    }
    for (d, answer) in &direct {
        assert!(
            answer["error"].is_null() && answer["text"].as_str().is_some_and(|t| !t.is_empty()),
            "{d} from replay directly: {answer}"
        );
    }
    let mut proxy = Command::new(assert_cmd::cargo::cargo_bin("sselint"));
    proxy.arg("proxy");
    for (d, r) in &replays {
        proxy.args(["--upstream", &format!("{d}=http://{}", r.addr)]);
    }
    proxy.arg("--").arg(&node);
    script(&mut proxy);
    let via = proxy
        .env("SSELINT_DIALECTS", "chat,responses,messages,gemini")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&via.stderr);
    assert_eq!(via.status.code(), Some(0), "{err}");
    // The script's line comes first on stdout; the report follows it.
    let stdout = String::from_utf8_lossy(&via.stdout);
    let first = stdout.lines().next().unwrap_or_default();
    let through: serde_json::Value =
        serde_json::from_str(first).unwrap_or_else(|e| panic!("{e}: {stdout}\n{err}"));
    assert_eq!(through, serde_json::Value::Object(direct), "{err}");
    for (d, _) in &samples {
        assert!(
            err.lines()
                .any(|l| l.contains(&format!(" 200 {d} ")) && l.ends_with(": ok")),
            "{d}: {err}"
        );
    }
    assert!(err.contains("4 streams linted"), "{err}");
    assert!(!err.contains("not-a-key"), "{err}");
}

/// A TCP stream whose reads are kept, and whose writes are counted.
struct Tee {
    tcp: std::net::TcpStream,
    read: Vec<u8>,
    written: usize,
}

impl Read for Tee {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.tcp.read(buf)?;
        self.read.extend_from_slice(&buf[..n]);
        Ok(n)
    }
}

impl std::io::Write for Tee {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.tcp.write(buf)?;
        self.written += n;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.tcp.flush()
    }
}

/// What a WebSocket client got from one session.
struct Session {
    /// The handshake's status.
    status: u16,
    /// Each text message received.
    messages: Vec<String>,
    /// Every byte received after the 101's head (the server's frames).
    frames: Vec<u8>,
    /// Bytes the client wrote after its request's head (its frames).
    sent: usize,
}

/// Plays the client's side of the socket log `records` against
/// `ws://ADDR/v1/responses` with tungstenite: each sent message when the
/// log sends it, each received one read; then a close, read to the end.
fn socket_session(addr: &str, records: &[sselint::transport::socket_log::Record]) -> Session {
    let tcp = std::net::TcpStream::connect(addr).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let tee = Tee {
        tcp,
        read: Vec::new(),
        written: 0,
    };
    let (mut ws, resp) =
        tungstenite::client::client(format!("ws://{addr}/v1/responses"), tee).unwrap();
    let head_written = ws.get_ref().written;
    let mut messages = Vec::new();
    for r in records {
        if r.direction == sselint::transport::Direction::Sent {
            ws.send(tungstenite::Message::Text(r.data.clone().into()))
                .unwrap();
            continue;
        }
        match ws.read().unwrap() {
            tungstenite::Message::Text(t) => messages.push(t.to_string()),
            other => panic!("not text: {other:?}"),
        }
    }
    ws.close(None).unwrap();
    while ws.read().is_ok() {}
    let tee = ws.get_ref();
    // The 101's head ends at the first blank line; what follows it in the
    // same read is the server's first frames.
    let head_end = tee
        .read
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| i + 4)
        .unwrap();
    Session {
        status: resp.status().as_u16(),
        messages,
        frames: tee.read[head_end..].to_vec(),
        sent: tee.written - head_written,
    }
}

/// A Responses WebSocket session through the proxy, `replay` of a shipped
/// two-turn socket capture as the upstream: the upgrade is passed on, the
/// client's messages reach replay (each turn is answered only after its
/// `response.create`), and the server's frames reach the client byte for
/// byte as replay sent them directly; the proxy's line counts the bytes
/// each way (the messages are passed through, not linted). A socket open
/// at Ctrl-C is cut and still gets its line.
#[test]
fn a_websocket_upgrade_passes_byte_for_byte_both_ways() {
    let har: serde_json::Value = serde_json::from_slice(
        &std::fs::read(root().join("samples/websocket/responses-two-turns.har")).unwrap(),
    )
    .unwrap();
    let records: Vec<sselint::transport::socket_log::Record> = har["log"]["entries"][0]
        ["_webSocketMessages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| sselint::transport::socket_log::record(&m.to_string()).unwrap())
        .collect();
    // `sselint replay` of the socket capture; its first line names the
    // ws:// URL it serves.
    let mut replay = Command::new(assert_cmd::cargo::cargo_bin("sselint"))
        .arg("replay")
        .arg(root().join("samples/websocket/responses-two-turns.har"))
        .args(["--listen", "127.0.0.1:0", "--delay-ms", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(replay.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    struct Kill(Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let _replay = Kill(replay);
    let upstream = first
        .split("ws://")
        .nth(1)
        .and_then(|s| s.split('/').next())
        .unwrap_or_else(|| panic!("no ws:// address in {first:?}"))
        .to_string();
    let direct = socket_session(&upstream, &records);
    assert_eq!(direct.status, 101);
    assert_eq!(direct.messages.len(), 19, "9 events, then 10");
    let p = Proxy::start(&["--upstream", &format!("responses=http://{upstream}")]);
    let via = socket_session(&p.addr, &records);
    assert_eq!(via.status, 101);
    assert_eq!(via.messages, direct.messages, "message for message");
    assert!(
        via.frames == direct.frames,
        "through the proxy {} bytes of frames, direct {}",
        via.frames.len(),
        direct.frames.len()
    );
    let line = p
        .lines
        .recv_timeout(Duration::from_secs(10))
        .expect("the socket's line when it ends");
    assert!(
        line.contains("#1 GET /v1/responses 101 responses")
            && line.contains(&format!(
                "websocket upgrade passed through ({} bytes sent, {} received; its messages are not linted)",
                via.sent,
                via.frames.len()
            )),
        "{line}"
    );
    // A socket still open when the proxy stops is cut, and recorded.
    let (mut open, _) = tungstenite::connect(format!("ws://{}/v1/responses", p.addr)).unwrap();
    let (code, _, lines) = p.interrupt();
    assert!(open.read().is_err(), "the open socket is cut");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("#2 GET /v1/responses 101") && l.ends_with("cut at shutdown")),
        "{lines:#?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("0 streams linted, 2 responses passed through")),
        "{lines:#?}"
    );
    assert_eq!(code, Some(0), "{lines:#?}");
}

/// An HTTPS upstream that accepts the connection and says nothing (a TLS
/// handshake against a port that never answers) gets the proxy's own 502
/// after --connect-timeout, saying which step stalled, not a wait of its
/// own length.
#[test]
fn an_upstream_that_never_finishes_the_tls_handshake_gets_a_502_in_time() {
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let silent_addr = silent.local_addr().unwrap();
    // Accepts and holds each connection, reading nothing, saying nothing.
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for conn in silent.incoming() {
            held.push(conn);
        }
    });
    let p = Proxy::start(&[
        "--upstream",
        &format!("messages=https://{silent_addr}"),
        "--connect-timeout",
        "0.5",
    ]);
    let t = std::time::Instant::now();
    let got = post(&format!("http://{}/v1/messages", p.addr), "{}", &[]);
    let waited = t.elapsed();
    assert_eq!(got.status, 502);
    let body = String::from_utf8_lossy(&got.body);
    assert!(
        body.contains(&format!(
            "the upstream {silent_addr}: the connection was accepted but no TLS handshake finished within 0.5 s"
        )),
        "{body}"
    );
    assert!(
        waited >= Duration::from_millis(450) && waited < Duration::from_secs(5),
        "{waited:?}"
    );
    let (_, _, lines) = p.interrupt();
    assert!(
        lines.iter().any(|l| l.contains("#1 POST /v1/messages 502")
            && l.contains("not forwarded")
            && l.contains("no TLS handshake finished within 0.5 s")),
        "{lines:#?}"
    );
}

/// A stream whose text passes the 64 KiB the proxy's lint keeps of a text
/// says so in its record (its notes, in every report), since `check` of
/// its saved HAR reads up to 1 MiB; a shorter one says nothing of it.
#[test]
fn a_record_whose_text_passed_the_lints_cap_says_so() {
    let dir = scratch("proxy-text-cap");
    let long = dir.join("long.sse");
    let mut body = String::new();
    for _ in 0..700 {
        body.push_str(&common::chat_chunk(&"x".repeat(100), "null"));
    }
    body.push_str(&common::chat_chunk("", "\"stop\""));
    body.push_str("data: [DONE]\n\n");
    std::fs::write(&long, body).unwrap();
    let report = dir.join("report.json");
    let long_replay = Replay::start(&long, &[]);
    let short_replay = Replay::start(&root().join("samples/good/messages-basic.sse"), &[]);
    let p = Proxy::start(&[
        "--upstream",
        &format!("chat=http://{}", long_replay.addr),
        "--upstream",
        &format!("messages=http://{}", short_replay.addr),
        "--format",
        "json",
        "-o",
        report.to_str().unwrap(),
    ]);
    assert_eq!(
        post(&format!("http://{}/v1/chat/completions", p.addr), CHAT, &[]).status,
        200
    );
    assert_eq!(
        post(&format!("http://{}/v1/messages", p.addr), "{}", &[]).status,
        200
    );
    let (_, _, lines) = p.interrupt();
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let notes = |i: usize| json["files"][i]["streams"][0]["notes"].to_string();
    assert!(
        notes(0).contains(
            "choice 0's text is 70000 bytes, past the 64 KiB of a text the proxy's lint keeps"
        ),
        "{json:#}\n{lines:#?}"
    );
    assert!(!notes(1).contains("64 KiB"), "{json:#}");
}

/// Secret header values the client sent and the upstream quotes back (an
/// error message naming the `api-key`, cookie, Google key and proxy
/// credentials it got) are masked in every report format, as in the
/// saved HAR (a fresh-user trial found them in all six).
#[test]
fn secrets_the_upstream_quotes_back_are_masked_in_every_report_format() {
    let dir = scratch("proxy-echoed-secrets");
    let secrets = [
        ("api-key", "AZUREKEYSECRET1"),
        ("Cookie", "sid=COOKIESECRET2"),
        ("x-goog-api-key", "GOOGKEYSECRET3"),
        ("proxy-authorization", "Basic PROXYAUTHSECRET5"),
    ];
    let quoted = secrets
        .iter()
        .map(|(n, v)| format!("{n} {v}"))
        .collect::<Vec<_>>()
        .join(" ");
    let capture = dir.join("echo.sse");
    std::fs::write(
        &capture,
        format!(
            "{}data: {}\n\n",
            common::chat_chunk(&format!("text {quoted}"), "null"),
            serde_json::json!({"error": {"message": format!("bad key {quoted}"), "type": "auth"}})
        ),
    )
    .unwrap();
    let r = Replay::start(&capture, &[]);
    for format in ["human", "json", "sarif", "junit", "github", "html"] {
        let report = dir.join(format!("report.{format}"));
        let p = Proxy::start(&[
            "--upstream",
            &format!("http://{}", r.addr),
            "--format",
            format,
            "-o",
            report.to_str().unwrap(),
        ]);
        let got = post(
            &format!("http://{}/v1/chat/completions", p.addr),
            CHAT,
            &secrets,
        );
        assert_eq!(got.status, 200);
        // The client gets what the upstream sent.
        assert!(String::from_utf8_lossy(&got.body).contains("COOKIESECRET2"));
        let (_, out, lines) = p.interrupt();
        let printed = format!("{out}\n{}", lines.join("\n"));
        let written = std::fs::read_to_string(&report).unwrap();
        assert!(written.contains("[REDACTED]"), "{format}: {written}");
        for (_, v) in secrets {
            let v = v.rsplit([' ', '=']).next().unwrap();
            assert!(!printed.contains(v), "{v} printed ({format}): {printed}");
            assert!(
                !written.contains(v),
                "{v} in the {format} report: {written}"
            );
        }
    }
}

/// SIGTERM (`timeout`, `docker stop`, a CI job cancelled) ends the proxy
/// as Ctrl-C does: open streams get --grace, then are cut and recorded,
/// the reports and HARs are written, and a wrapped command is stopped (a
/// fresh-user trial lost every record, exit 143, and left the command
/// running).
#[test]
fn sigterm_writes_the_reports_and_stops_the_command_as_ctrl_c_does() {
    let dir = scratch("proxy-sigterm");
    let report = dir.join("report.json");
    let saved = dir.join("captures");
    let slow = Replay::start(
        &root().join("samples/good/openai-basic.sse"),
        &["--delay-ms", "1000"],
    );
    let p = Proxy::start(&[
        "--upstream",
        &format!("http://{}", slow.addr),
        "--format",
        "json",
        "-o",
        report.to_str().unwrap(),
        "--save",
        saved.to_str().unwrap(),
        "--grace",
        "0.2",
    ]);
    let url = format!("http://{}/v1/chat/completions", p.addr);
    let open = std::thread::spawn(move || post(&url, CHAT, &[]));
    std::thread::sleep(Duration::from_millis(400));
    let (code, _, lines) = p.signal("-TERM");
    assert!(open.join().unwrap().cut, "the open stream is cut");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("#1 POST") && l.contains("(cut at shutdown)")),
        "{lines:#?}"
    );
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert!(json.to_string().contains("capture-truncated"), "{json}");
    assert_eq!(std::fs::read_dir(&saved).unwrap().count(), 1);
    assert_eq!(code, Some(1), "{lines:#?}");

    // A wrapped command is stopped, not left running.
    let pid_file = dir.join("child.pid");
    let p = Proxy::start(&[
        "--upstream",
        &format!("http://{}", slow.addr),
        "--grace",
        "0.2",
        "--",
        "sh",
        "-c",
        &format!("echo $$ > {}; exec sleep 47", pid_file.display()),
    ]);
    let mut pid = String::new();
    for _ in 0..200 {
        pid = std::fs::read_to_string(&pid_file).unwrap_or_default();
        if !pid.trim().is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    let pid = pid.trim().to_string();
    assert!(!pid.is_empty(), "the command never started");
    let started = std::time::Instant::now();
    let (code, _, lines) = p.signal("-TERM");
    assert!(started.elapsed() < Duration::from_secs(20), "{lines:#?}");
    let alive = Command::new("kill")
        .args(["-0", &pid])
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success();
    if alive {
        let _ = Command::new("kill").args(["-KILL", &pid]).status();
    }
    assert!(!alive, "the wrapped command still runs: {lines:#?}");
    assert_ne!(code, Some(143), "{lines:#?}");
    assert_ne!(code, None, "ended by the signal: {lines:#?}");
}

/// A plain `--upstream URL` (the docs' first example,
/// `--upstream https://api.openai.com`) is the upstream of the OpenAI
/// dialects and of paths that name none; a request of another dialect
/// (an Anthropic, Gemini or Ollama SDK the application also uses) does
/// not go there with its key (a fresh-user trial saw Anthropic and Google
/// keys sent to the one upstream), nor does it go to a sole
/// `DIALECT=URL` of another dialect.
#[test]
fn a_plain_upstream_takes_the_openai_dialects_only() {
    let r = Replay::start(&root().join("samples/good/ollama-chat.ndjson"), &[]);
    let ollama_path = path_of(&r.url).to_string();
    for given in [
        format!("http://{}", r.addr),
        format!("chat=http://{}", r.addr),
    ] {
        let p = Proxy::start(&["--upstream", &given]);
        let got = post(
            &format!("http://{}{ollama_path}", p.addr),
            "{}",
            &[("Authorization", "Bearer OLLAMAKEYSECRET")],
        );
        assert_eq!(got.status, 502, "{given}: sent to the upstream given");
        let text = String::from_utf8_lossy(&got.body);
        assert!(text.contains("--upstream ollama=URL"), "{given}: {text}");
        // The OpenAI dialects' requests go there.
        // (replay answers 404 off its own path: it was reached).
        let via = post(&format!("http://{}/v1/chat/completions", p.addr), CHAT, &[]);
        assert_eq!(via.status, 404, "{given}");
        let (_, _, lines) = p.interrupt();
        assert!(
            lines
                .iter()
                .any(|l| l.contains(&format!("#1 POST {ollama_path} 502"))),
            "{lines:#?}"
        );
    }
}

/// An --output that cannot be written is refused at start, exit 2, before
/// the wrapped command runs (as an unusable --save is), not found after a
/// whole test run with its report lost.
#[test]
fn an_unwritable_output_is_refused_before_the_command_runs() {
    let dir = scratch("proxy-bad-output");
    let marker = dir.join("ran");
    for bad in [
        dir.join("no/such/dir/report.json"),
        dir.to_path_buf(), // a directory
    ] {
        let (code, _, err) = common::sselint(&[
            "proxy",
            "--upstream",
            "http://127.0.0.1:9",
            "-o",
            bad.to_str().unwrap(),
            "--",
            "sh",
            "-c",
            &format!("touch {}", marker.display()),
        ]);
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains(bad.to_str().unwrap()), "{err}");
        assert!(!marker.exists(), "the command ran: {err}");
    }
}
