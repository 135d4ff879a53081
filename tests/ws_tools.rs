//! The live tools over a WebSocket (issue 39): `replay`'s faults at their
//! socket meaning, each served by our replay on 127.0.0.1 and read by
//! tungstenite or by our recorder, the recording then linted as `check`
//! lints it; `record` of Realtime sessions (the server speaks first, and
//! some client messages ask for no response) and the round trip replay →
//! record, message for message, for Responses and Realtime sessions.

mod common;
use common::{lint_file, scratch, sselint};
use sselint::live::socket::{record, Script, SocketRecording, SocketRequest};
use sselint::transport::socket_log::{self, Record};
use sselint::transport::{Direction, Frame};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

type Server = std::thread::JoinHandle<std::io::Result<()>>;

/// A session written by `scripts/SCRIPT` (ws_session.py: Responses,
/// realtime_session.py: Realtime).
fn session(script: &str, kind: &str) -> String {
    common::session_log(script, kind)
}

/// Our replay of the log at `path`, with `opts`, serving one connection.
fn serve(path: &Path, opts: sselint::replay::Options) -> (SocketAddr, Server) {
    let replay = sselint::replay::Replay::load(
        path.to_str().unwrap(),
        &sselint::capture::Options::default(),
        None,
    )
    .unwrap();
    assert!(replay.is_socket(), "{}", path.display());
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let opts = sselint::replay::Options { once: true, ..opts };
    let stop = Arc::new(AtomicBool::new(false));
    let server =
        std::thread::spawn(move || sselint::replay::serve(listener, Arc::new(replay), opts, stop));
    (addr, server)
}

/// No waits: the capture's times are not what these tests are about.
fn fast() -> sselint::replay::Options {
    sselint::replay::Options {
        delay_ms: Some(0),
        ..Default::default()
    }
}

/// Records `url` with `script` into DIR/out.jsonl: what the recorder saw,
/// and the log.
fn record_to(
    dir: &Path,
    url: String,
    script: Script,
    dialect: sselint::dialect::Dialect,
    timeout: Duration,
) -> (SocketRecording, String) {
    let req = SocketRequest {
        url,
        headers: Vec::new(),
        api_key: Some("sk-wsTOOLSECRET".into()),
        script,
        dialect,
        read_timeout: timeout,
        timeout: None,
        insecure: false,
    };
    let mut out = Vec::new();
    let rec = record(&req, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(!text.contains("TOOLSECRET"));
    std::fs::write(dir.join("out.jsonl"), &text).unwrap();
    (rec, text)
}

/// Every record of a log, its time left out.
fn shape(log: &str) -> Vec<Record> {
    log.lines()
        .map(|l| socket_log::record(l).unwrap())
        .map(|r| Record { time: None, ..r })
        .collect()
}

fn found(p: &Path) -> Vec<(&'static str, u64)> {
    common::findings_by_line(&lint_file(p))
}

/// A Responses session of two turns (9 and 10 server messages) served
/// with `opts`, recorded back by our recorder with the capture as its
/// script: the recording, the saved log and its path.
fn responses_with(
    name: &str,
    opts: sselint::replay::Options,
) -> (SocketRecording, String, std::path::PathBuf, common::Scratch) {
    let dir = scratch(&format!("ws-tools-{name}"));
    let original = dir.join("in.jsonl");
    let log = session("ws_session.py", "two-turns");
    std::fs::write(&original, &log).unwrap();
    let (addr, server) = serve(&original, opts);
    let (rec, text) = record_to(
        &dir,
        format!("ws://{addr}/v1/responses"),
        Script::of_log(&log).unwrap(),
        sselint::dialect::Dialect::Responses,
        Duration::from_secs(2),
    );
    server.join().unwrap().unwrap();
    let saved = dir.join("out.jsonl");
    (rec, text, saved, dir)
}

fn close_of(r: &Record) -> Option<(u16, String)> {
    match r.frame() {
        Frame::Close { code, reason } => Some((code, reason.to_string())),
        _ => None,
    }
}

#[test]
fn cut_after_messages_drops_the_socket_with_no_close_frame() {
    let opts = sselint::replay::Options {
        cut_after_messages: Some(5),
        ..fast()
    };
    let (rec, text, saved, _dir) = responses_with("cut-messages", opts);
    let records = shape(&text);
    // The client's message, 5 of the server's, then the drop: a client
    // reports 1006, and the recorder saves it so.
    assert_eq!(records.len(), 7, "{text}");
    assert_eq!(close_of(&records[6]), Some((1006, String::new())));
    assert_eq!(rec.closed, Some((1006, String::new())));
    // Found at the response's last message.
    assert_eq!(found(&saved), vec![("ws-closed-mid-response", 6)]);
}

#[test]
fn close_code_closes_where_the_cut_falls_with_that_code_and_reason() {
    let opts = sselint::replay::Options {
        cut_after_messages: Some(5),
        close_code: Some(1011),
        close_reason: Some("overloaded"),
        ..fast()
    };
    let (rec, text, saved, _dir) = responses_with("close-code", opts);
    let records = shape(&text);
    assert_eq!(records.len(), 7, "{text}");
    assert_eq!(close_of(&records[6]), Some((1011, "overloaded".into())));
    assert_eq!(rec.closed, Some((1011, "overloaded".into())));
    // A close inside a response is the response's cut (found at its last
    // message), whatever its code.
    assert_eq!(found(&saved), vec![("ws-closed-mid-response", 6)]);
}

#[test]
fn close_code_alone_ends_a_whole_session_with_it() {
    let opts = sselint::replay::Options {
        close_code: Some(4000),
        ..fast()
    };
    let (_, text, saved, _dir) = responses_with("close-end", opts);
    let records = shape(&text);
    // Both turns whole (2 + 19), then the server's close.
    assert_eq!(records.len(), 22, "{text}");
    assert_eq!(close_of(&records[21]), Some((4000, String::new())));
    assert_eq!(found(&saved), vec![("ws-close-code", 22)]);
}

#[test]
fn error_after_messages_sends_an_error_and_drops_the_rest_of_the_turn() {
    let opts = sselint::replay::Options {
        error_after_messages: Some(3),
        ..fast()
    };
    let (_, text, saved, _dir) = responses_with("error", opts);
    let records = shape(&text);
    // Turn one: 3 events and the error; turn two whole.
    let log = session("ws_session.py", "two-turns");
    let second = Script::of_log(&log).unwrap().replies.unwrap()[2];
    assert_eq!(records.len(), 1 + 3 + 1 + 1 + second, "{text}");
    let error: serde_json::Value = serde_json::from_str(&records[4].data).unwrap();
    assert_eq!(error["type"], "error");
    assert_eq!(records[5].direction, Direction::Sent);
    assert_eq!(error["sequence_number"], 3, "the count goes on");
    // The error is the running response's and ends it, as over SSE: the
    // next turn on the lane is no overlap (it was one before the
    // fresh-user trial of issue 39, M4).
    assert_eq!(found(&saved), vec![("responses-error-event", 5)]);
}

#[test]
fn garbage_after_messages_sends_a_message_that_is_no_json() {
    let opts = sselint::replay::Options {
        garbage_after_messages: Some(3),
        ..fast()
    };
    let (_, text, saved, _dir) = responses_with("garbage", opts);
    let records = shape(&text);
    assert_eq!(records.len(), 2 + 19 + 1, "every message and the garbage");
    assert!(serde_json::from_str::<serde_json::Value>(&records[4].data).is_err());
    assert_eq!(found(&saved), vec![("ws-unparseable-message", 5)]);
}

#[test]
fn stall_after_messages_holds_the_socket_open_and_silent() {
    let opts = sselint::replay::Options {
        stall_after_messages: Some(4),
        ..fast()
    };
    let started = std::time::Instant::now();
    let (rec, text, saved, _dir) = responses_with("stall", opts);
    // The recorder waited its 2 s for the rest, got nothing, and closed.
    assert!(started.elapsed() >= Duration::from_secs(2));
    assert!(
        rec.stopped
            .as_deref()
            .is_some_and(|s| s.contains("no message")),
        "{rec:?}"
    );
    let records = shape(&text);
    assert_eq!(records.len(), 5, "{text}");
    assert!(records.iter().all(|r| close_of(r).is_none()));
    let f = found(&saved);
    assert!(!f.is_empty(), "a response that never ended is a finding");
}

/// A stalled server that keeps pinging: the recorder on its own thread,
/// `req` adjusted by `tune`; what it saw, or a panic if it never returned
/// (the bound is a hang's, not a timing: the recorder's limits are 1 s).
fn record_a_pinging_stall(name: &str, tune: impl FnOnce(&mut SocketRequest)) -> SocketRecording {
    let dir = scratch(&format!("ws-tools-{name}"));
    let original = dir.join("in.jsonl");
    let log = session("ws_session.py", "two-turns");
    std::fs::write(&original, &log).unwrap();
    let opts = sselint::replay::Options {
        stall_after_messages: Some(4),
        keepalive_ms: Some(100),
        ..fast()
    };
    let (addr, server) = serve(&original, opts);
    let mut req = SocketRequest {
        url: format!("ws://{addr}/v1/responses"),
        headers: Vec::new(),
        api_key: None,
        script: Script::of_log(&log).unwrap(),
        dialect: sselint::dialect::Dialect::Responses,
        read_timeout: Duration::from_secs(60),
        timeout: None,
        insecure: false,
    };
    tune(&mut req);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = tx.send(record(&req, &mut out).map(|r| (r, out)));
    });
    let (rec, out) = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the recorder never stopped while the server pinged")
        .unwrap();
    server.join().unwrap().unwrap();
    // What arrived before the stall is kept: the first create and the
    // four messages the server sent.
    assert_eq!(shape(&String::from_utf8(out).unwrap()).len(), 5);
    rec
}

#[test]
fn pings_are_no_message_to_the_read_timeout() {
    let rec = record_a_pinging_stall("ping-read", |r| {
        r.read_timeout = Duration::from_secs(1);
    });
    assert!(
        rec.stopped
            .as_deref()
            .is_some_and(|s| s.contains("no message for 1.0 s")),
        "{rec:?}"
    );
}

#[test]
fn the_overall_timeout_stops_a_recording_that_pings_go_on_feeding() {
    let rec = record_a_pinging_stall("ping-total", |r| {
        r.timeout = Some(Duration::from_secs(1));
    });
    assert!(
        rec.stopped
            .as_deref()
            .is_some_and(|s| s.contains("the --timeout of 1.0 s ran out")),
        "{rec:?}"
    );
}

#[test]
fn split_bytes_and_keepalive_pings_leave_every_message_whole() {
    let dir = scratch("ws-tools-split");
    let original = dir.join("in.jsonl");
    let log = session("ws_session.py", "two-turns");
    std::fs::write(&original, &log).unwrap();
    let opts = sselint::replay::Options {
        split_bytes: Some(3),
        delay_ms: Some(30),
        keepalive_ms: Some(10),
        ..Default::default()
    };
    let (addr, server) = serve(&original, opts);
    let (mut ws, _) = tungstenite::connect(format!("ws://{addr}/v1/responses")).unwrap();
    let (mut got, mut pings) = (Vec::new(), 0);
    for r in log.lines().map(|l| socket_log::record(l).unwrap()) {
        if r.direction == Direction::Sent {
            ws.send(tungstenite::Message::Text(r.data.into())).unwrap();
            continue;
        }
        loop {
            match ws.read().unwrap() {
                tungstenite::Message::Text(t) => {
                    got.push(t.to_string());
                    break;
                }
                tungstenite::Message::Ping(_) => pings += 1,
                other => panic!("{other:?}"),
            }
        }
    }
    let want: Vec<String> = log
        .lines()
        .map(|l| socket_log::record(l).unwrap())
        .filter(|r| r.direction == Direction::Received)
        .map(|r| r.data)
        .collect();
    assert_eq!(got, want, "frames written 3 bytes at a time arrive whole");
    // 19 waits of 30 ms, a ping every 10 ms of each.
    assert!(pings >= 19, "{pings} pings");
    ws.close(None).unwrap();
    while ws.read().is_ok() {}
    server.join().unwrap().unwrap();
    // The recorder reads the same, pings left out of the log.
    let (_, text, _, _dir) = responses_with("split-record", opts);
    assert_eq!(shape(&text), shape(&log));
}

#[test]
fn cut_after_bytes_cuts_inside_a_frame() {
    let dir = scratch("ws-tools-cut-bytes");
    let original = dir.join("in.jsonl");
    let log = session("ws_session.py", "two-turns");
    std::fs::write(&original, &log).unwrap();
    let first = socket_log::record(log.lines().nth(1).unwrap()).unwrap();
    // Past the first frame (2-4 bytes of header, then its text), into the
    // second.
    let n = first.data.len() as u64 + 4 + 20;
    let opts = sselint::replay::Options {
        cut_after_bytes: Some(n),
        ..fast()
    };
    let (addr, server) = serve(&original, opts);
    let (mut ws, _) = tungstenite::connect(format!("ws://{addr}/v1/responses")).unwrap();
    ws.send(tungstenite::Message::Text(first_sent(&log).into()))
        .unwrap();
    assert_eq!(
        ws.read().unwrap(),
        tungstenite::Message::Text(first.data.into())
    );
    let e = ws.read().unwrap_err();
    assert!(
        matches!(
            e,
            tungstenite::Error::Protocol(_) | tungstenite::Error::Io(_)
        ),
        "{e:?}"
    );
    server.join().unwrap().unwrap();
    let (rec, text, saved, _dir) = responses_with("cut-bytes-record", opts);
    assert_eq!(rec.closed, Some((1006, String::new())));
    assert_eq!(shape(&text).len(), 3, "{text}");
    assert_eq!(found(&saved), vec![("ws-closed-mid-response", 2)]);
}

fn first_sent(log: &str) -> String {
    log.lines()
        .map(|l| socket_log::record(l).unwrap())
        .find(|r| r.direction == Direction::Sent)
        .unwrap()
        .data
}

/// Replay → record of a session, the capture as the script: the same
/// records, and the same findings at the same lines.
fn round_trip(script: &str, kind: &str, path: &str, dialect: sselint::dialect::Dialect) {
    let dir = scratch(&format!("ws-tools-rt-{kind}"));
    let original = dir.join("in.jsonl");
    let log = session(script, kind);
    std::fs::write(&original, &log).unwrap();
    let (addr, server) = serve(&original, fast());
    let (_, text) = record_to(
        &dir,
        format!("ws://{addr}{path}"),
        Script::of_log(&log).unwrap(),
        dialect,
        Duration::from_secs(5),
    );
    server.join().unwrap().unwrap();
    assert_eq!(shape(&text), shape(&log), "{kind}: message for message");
    assert_eq!(found(&original), found(&dir.join("out.jsonl")), "{kind}");
}

#[test]
fn realtime_sessions_come_back_message_for_message() {
    for kind in [
        "text",
        "text-beta",
        "function-call",
        "audio",
        "error",
        "cut",
        "unparseable",
    ] {
        round_trip(
            "realtime_session.py",
            kind,
            "/v1/realtime?model=gpt-realtime",
            sselint::dialect::Dialect::Realtime,
        );
    }
}

#[test]
fn responses_sessions_come_back_message_for_message() {
    for kind in [
        "two-turns",
        "close-1011",
        "refused",
        "failed-inside",
        "rate-limits",
        "cut",
        "unparseable",
    ] {
        round_trip(
            "ws_session.py",
            kind,
            "/v1/responses",
            sselint::dialect::Dialect::Responses,
        );
    }
}

/// A script of bare client messages: the recorder waits for Realtime's
/// greeting and for the answers of the messages that ask for no
/// response (it waited for a response after `session.update`, and
/// recorded nothing useful).
#[test]
fn a_realtime_script_of_bare_messages_is_recorded_whole() {
    let dir = scratch("ws-tools-rt-bare");
    let original = dir.join("in.jsonl");
    let log = session("realtime_session.py", "text");
    std::fs::write(&original, &log).unwrap();
    let sent = Script::of_log(&log).unwrap().messages;
    assert_eq!(sent.len(), 3, "session.update, the item, response.create");
    let (addr, server) = serve(&original, fast());
    let (rec, text) = record_to(
        &dir,
        format!("ws://{addr}/v1/realtime"),
        Script::of_messages(sent),
        sselint::dialect::Dialect::Realtime,
        Duration::from_secs(5),
    );
    server.join().unwrap().unwrap();
    assert!(rec.stopped.is_none(), "{rec:?}");
    assert_eq!(shape(&text), shape(&log));
    let r = lint_file(&dir.join("out.jsonl"));
    assert_eq!(r.streams.len(), 1);
    assert_eq!(
        r.streams[0].answer.choices[&0].text.kept,
        "The capital of France is Paris."
    );
    // The recorder's waits for the quiet after each bare message are in
    // the log's times (a wait, then every event at once from a replay with
    // no delays): timing findings, and nothing else.
    let f = common::findings_by_line(&r);
    assert!(
        f.iter()
            .all(|(rule, _)| ["stall", "buffered"].contains(rule)),
        "{f:?}"
    );
}

/// `sselint record ws://…` with a key in the URL and an Authorization
/// header: neither reaches the saved log, stdout or stderr; the script is
/// the capture itself (a Chrome HAR's socket entry).
#[test]
fn record_cli_masks_the_handshake_key_and_the_url_key() {
    let dir = scratch("ws-tools-cli");
    let har = common::root().join("samples/websocket/realtime-text.har");
    let (addr, server) = serve(&har, fast());
    let out = dir.join("saved.jsonl");
    let url = format!("ws://{addr}/v1/realtime?model=gpt-realtime&api_key=sk-urlKEYSECRET");
    let o = std::process::Command::new(assert_cmd::cargo::cargo_bin("sselint"))
        .args([
            "record",
            &url,
            "--body",
            har.to_str().unwrap(),
            "--api-key-env",
            "WS_TOOLS_KEY",
            "-H",
            "X-Extra: sk-headerKEYSECRET",
            "-o",
            out.to_str().unwrap(),
        ])
        .env("WS_TOOLS_KEY", "sk-envKEYSECRET")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    server.join().unwrap().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    let saved = std::fs::read_to_string(&out).unwrap();
    for text in [&saved, &stdout.to_string(), &stderr.to_string()] {
        assert!(!text.contains("KEYSECRET"), "{text}");
    }
    let want = sselint::capture::open(har.to_str().unwrap(), &Default::default()).unwrap();
    let sselint::capture::Body::Bytes(b) = &want.streams[0].body else {
        panic!("a HAR's socket entry is read into memory")
    };
    assert_eq!(shape(&saved), shape(&String::from_utf8_lossy(b)));
    let (code, text, _) = sselint(&["check", out.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("resp_001"), "{text}");
}

/// The socket faults are refused where they have no meaning, with exit 2
/// and a sentence that says why.
#[test]
fn replay_refuses_faults_a_transport_has_no_place_for() {
    let root = common::root();
    let sse = root.join("samples/good/emoji.sse");
    let har = root.join("samples/websocket/realtime-text.har");
    let cases: [(&Path, &[&str], &str); 4] = [
        (
            &sse,
            &["--error-after-messages", "2"],
            "is a WebSocket fault",
        ),
        (&har, &["--corrupt-crc", "1"], "carry none"),
        (&har, &["--close-code", "1006"], "1000-4999"),
        (&har, &["--close-code", "999"], "1000-4999"),
    ];
    for (cap, flags, says) in cases {
        let mut args = vec!["replay", cap.to_str().unwrap(), "--listen", "127.0.0.1:0"];
        args.extend_from_slice(flags);
        let (code, out, err) = sselint(&args);
        assert_eq!(code, Some(2), "{flags:?}: {out}{err}");
        assert!(err.contains(says), "{flags:?}: {err}");
    }
}

/// A TLS front on 127.0.0.1 for `target` (our replay): one connection,
/// its bytes relayed both ways, with a certificate `openssl` makes for
/// 127.0.0.1. `None` when openssl cannot make one.
fn tls_front(dir: &Path, target: SocketAddr) -> Option<(SocketAddr, std::thread::JoinHandle<()>)> {
    use std::io::{Read, Write};
    use std::process::Command;
    use tokio_rustls::rustls;
    let (key, cert) = (dir.join("key.pem"), dir.join("cert.der"));
    let key_der = dir.join("key.der");
    let made = Command::new("openssl")
        .args(["req", "-x509", "-newkey", "ec", "-pkeyopt"])
        .args(["ec_paramgen_curve:prime256v1", "-nodes", "-days", "2"])
        .args([
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
        ])
        .args(["-outform", "DER", "-keyout"])
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .is_ok_and(|o| o.status.success())
        && Command::new("openssl")
            .args(["pkcs8", "-topk8", "-nocrypt", "-outform", "DER", "-in"])
            .arg(&key)
            .arg("-out")
            .arg(&key_der)
            .output()
            .is_ok_and(|o| o.status.success());
    if !made {
        return None;
    }
    let cert = rustls::pki_types::CertificateDer::from(std::fs::read(&cert).unwrap());
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(std::fs::read(&key_der).unwrap().into());
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(vec![cert], key)
    .unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let front = std::thread::spawn(move || {
        let (tcp, _) = listener.accept().unwrap();
        let conn = rustls::ServerConnection::new(Arc::new(config)).unwrap();
        let mut tls = rustls::StreamOwned::new(conn, tcp);
        let mut plain = std::net::TcpStream::connect(target).unwrap();
        let tick = Some(Duration::from_millis(5));
        tls.sock.set_read_timeout(tick).unwrap();
        plain.set_read_timeout(tick).unwrap();
        let mut buf = vec![0u8; 16 * 1024];
        let quiet = |e: &std::io::Error| {
            matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            )
        };
        loop {
            match tls.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => plain.write_all(&buf[..n]).unwrap(),
                Err(e) if quiet(&e) => {}
                Err(_) => break,
            }
            match plain.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    if tls.write_all(&buf[..n]).and_then(|()| tls.flush()).is_err() {
                        break;
                    }
                }
                Err(e) if quiet(&e) => {}
                Err(_) => break,
            }
        }
        tls.conn.send_close_notify();
        let _ = tls.flush();
    });
    Some((addr, front))
}

/// `record wss://` against our replay behind a TLS front on 127.0.0.1:
/// with `insecure` the session comes back message for message; without
/// it, the self-signed certificate is refused and the error says so.
#[test]
fn record_wss_speaks_tls() {
    let dir = scratch("ws-tools-wss");
    let original = dir.join("in.jsonl");
    let log = session("realtime_session.py", "text");
    std::fs::write(&original, &log).unwrap();
    for insecure in [true, false] {
        let (addr, server) = serve(&original, fast());
        let Some((front, relay)) = tls_front(&dir, addr) else {
            common::not_run(
                "ws_tools::record_wss_speaks_tls",
                "openssl cannot make a certificate",
            );
            return;
        };
        let req = SocketRequest {
            url: format!("wss://127.0.0.1:{}/v1/realtime", front.port()),
            headers: Vec::new(),
            api_key: Some("sk-wssSECRET".into()),
            script: Script::of_log(&log).unwrap(),
            dialect: sselint::dialect::Dialect::Realtime,
            read_timeout: Duration::from_secs(5),
            timeout: None,
            insecure,
        };
        let mut out = Vec::new();
        let got = record(&req, &mut out);
        relay.join().unwrap();
        if insecure {
            let rec = got.unwrap();
            assert_eq!(rec.status, 101);
            let text = String::from_utf8(out).unwrap();
            assert!(!text.contains("wssSECRET"));
            assert_eq!(shape(&text), shape(&log));
            server.join().unwrap().unwrap();
        } else {
            let e = got.unwrap_err().to_string();
            assert!(e.contains("the handshake failed"), "{e}");
            assert!(e.to_lowercase().contains("certificate"), "{e}");
            // The replay never got an upgrade; end it with one.
            let _ = tungstenite::connect(format!("ws://{addr}/"));
            let _ = server.join();
        }
    }
}

/// Our replay of `log` on 127.0.0.1 for any number of connections, until
/// the flag is set.
fn serve_many(path: &Path) -> (SocketAddr, Arc<AtomicBool>, Server) {
    let replay = sselint::replay::Replay::load(
        path.to_str().unwrap(),
        &sselint::capture::Options::default(),
        None,
    )
    .unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let stop2 = stop.clone();
    let server = std::thread::spawn(move || {
        sselint::replay::serve(listener, Arc::new(replay), fast(), stop2)
    });
    (addr, stop, server)
}

/// `sselint probe ws://…` of Responses' WebSocket mode against our
/// replay: each scenario's body goes as a `response.create` on a socket of
/// its own, the socket is saved as a message log, and the verdicts come
/// from it. The replay answers every scenario with one text answer, so
/// the plain scenario passes and those that asked for something else
/// fail with the probe rule that says so; a server that answers the
/// invalid request with an `error` message passes `invalid`.
#[test]
fn probe_runs_its_scenarios_over_a_websocket() {
    use serde_json::Value;
    let dir = scratch("ws-tools-probe");
    let text = dir.join("text.jsonl");
    std::fs::write(&text, session("ws_session.py", "full")).unwrap();
    // The refused turn of `refused`: a create answered by an `error`.
    let refused = session("ws_session.py", "refused");
    let lines: Vec<&str> = refused.lines().collect();
    let error = dir.join("error.jsonl");
    std::fs::write(&error, lines[lines.len() - 2..].join("\n") + "\n").unwrap();
    let probe = |served: &Path, out: &str, only: &str| -> (Option<i32>, Value) {
        let (addr, stop, server) = serve_many(served);
        let o = std::process::Command::new(assert_cmd::cargo::cargo_bin("sselint"))
            .args(["probe", &format!("ws://{addr}/v1/responses")])
            .args([
                "--model",
                "m",
                "--format",
                "json",
                "--api-key-env",
                "WS_PROBE_KEY",
            ])
            .args(["--only", only, "-o"])
            .arg(dir.join(out))
            .env("WS_PROBE_KEY", "sk-probeKEYSECRET")
            .output()
            .unwrap();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        server.join().unwrap().unwrap();
        for out in [&o.stdout, &o.stderr] {
            assert!(!String::from_utf8_lossy(out).contains("KEYSECRET"));
        }
        let v: Value = serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
        (o.status.code(), v)
    };
    let verdict = |v: &Value, name: &str| -> (String, Vec<String>) {
        let s = v["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {v}"));
        let rules = s["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["rule"].as_str().unwrap().to_string())
            .collect();
        (s["verdict"].as_str().unwrap().to_string(), rules)
    };
    let (code, v) = probe(&text, "text", "plain,tool,invalid,disconnect");
    assert_eq!(code, Some(1), "{v:#}");
    assert_eq!(verdict(&v, "plain"), ("pass".into(), vec![]));
    assert_eq!(
        verdict(&v, "tool"),
        ("fail".into(), vec!["probe-no-tool-call".to_string()])
    );
    assert_eq!(
        verdict(&v, "invalid"),
        ("fail".into(), vec!["probe-invalid-accepted".to_string()])
    );
    assert_eq!(verdict(&v, "disconnect").0, "unsupported");
    // Each scenario's socket, saved as a message log with no key in it.
    let plain = dir.join("text/plain.jsonl");
    let saved = std::fs::read_to_string(&plain).unwrap();
    assert!(!saved.contains("KEYSECRET"));
    let first: Value = serde_json::from_str(
        &socket_log::record(saved.lines().next().unwrap())
            .unwrap()
            .data,
    )
    .unwrap();
    assert_eq!(first["type"], "response.create");
    assert!(
        first.get("stream").is_none(),
        "a socket's create has no stream field"
    );
    assert_eq!(lint_file(&plain).streams.len(), 1);
    let (code, v) = probe(&error, "error", "invalid");
    assert_eq!(verdict(&v, "invalid"), ("pass".into(), vec![]), "{v:#}");
    assert_eq!(code, Some(0));
}

/// `minimize` of a socket's capture cuts it and writes it back in its own
/// form (it was refused, issue 39 item 5): the log a log, the HAR a HAR
/// with its frames, each still showing its fault to `check`.
#[test]
fn minimize_cuts_a_socket_capture_into_its_own_form() {
    let dir = scratch("ws-tools-minimize");
    let log = dir.join("unparseable.jsonl");
    std::fs::write(&log, session("ws_session.py", "unparseable")).unwrap();
    let har = common::root().join("samples/websocket/realtime-cut.har");
    for (cap, rule) in [
        (log.as_path(), "ws-unparseable-message"),
        (har.as_path(), "ws-closed-mid-response"),
    ] {
        let ext = cap.extension().unwrap().to_str().unwrap();
        let out = dir.join(format!("min.{ext}"));
        let (code, _, err) = sselint(&[
            "minimize",
            cap.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(0), "{err}");
        let bytes = std::fs::read(&out).unwrap();
        assert!(bytes.len() < std::fs::metadata(cap).unwrap().len() as usize);
        if ext == "har" {
            let doc: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            assert!(doc["log"]["entries"][0]["_webSocketMessages"].is_array());
        } else {
            assert!(socket_log::looks_like(&bytes));
        }
        let got: Vec<&str> = found(&out).into_iter().map(|(r, _)| r).collect();
        assert!(got.contains(&rule), "{got:?}");
    }
}

/// `replay DIR` serves its scenario set over a WebSocket as it does over
/// HTTP: each socket's `response.create` is told by its scenario (the
/// probe's names) and answered with that scenario's capture: a message
/// log's answer, an event stream's events as messages, an error answer
/// (`NAME.json`) as an `error` message. So `probe ws://` against it
/// passes plain, tool and invalid (each got its own answer, not one
/// capture's).
#[test]
fn replay_dir_serves_its_scenarios_over_a_websocket() {
    use serde_json::Value;
    let dir = scratch("ws-tools-set");
    let set = dir.join("set");
    std::fs::create_dir_all(&set).unwrap();
    std::fs::write(set.join("plain.jsonl"), session("ws_session.py", "full")).unwrap();
    std::fs::copy(
        common::root().join("samples/good/responses-function-call.sse"),
        set.join("tool.sse"),
    )
    .unwrap();
    std::fs::write(
        set.join("invalid.json"),
        r#"{"error":{"type":"invalid_request_error","code":"invalid_type","message":"Invalid type for 'input'.","param":"input"}}"#,
    )
    .unwrap();
    let source = sselint::replay::Source::Set(
        sselint::replay::ScenarioSet::load(set.to_str().unwrap(), &Default::default()).unwrap(),
    );
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let stop2 = stop.clone();
    let server = std::thread::spawn(move || {
        sselint::replay::serve_source(listener, Arc::new(source), fast(), stop2)
    });
    let o = std::process::Command::new(assert_cmd::cargo::cargo_bin("sselint"))
        .args(["probe", &format!("ws://{addr}/v1/responses")])
        .args(["--model", "m", "--format", "json"])
        .args(["--only", "plain,tool,invalid,json", "-o"])
        .arg(dir.join("out"))
        .output()
        .unwrap();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    server.join().unwrap().unwrap();
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
    let verdict = |name: &str| -> (String, Vec<String>) {
        let s = v["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {v}"));
        let rules = s["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|f| f["rule"].as_str().unwrap().to_string())
            .collect();
        (s["verdict"].as_str().unwrap().to_string(), rules)
    };
    assert_eq!(verdict("plain").0, "pass", "{v:#}");
    assert_eq!(verdict("tool").0, "pass", "{v:#}");
    assert_eq!(verdict("invalid").0, "pass", "{v:#}");
    // A scenario the set has no capture for is answered with an `error`
    // message naming it.
    let usage = std::fs::read_to_string(dir.join("out/json.jsonl")).unwrap();
    assert!(
        usage.contains("is the `json` scenario") && usage.contains("has no capture for it"),
        "{usage}"
    );
    // The tool scenario got the event stream's events, the call among them.
    let tool = std::fs::read_to_string(dir.join("out/tool.jsonl")).unwrap();
    assert!(
        tool.contains("response.function_call_arguments.done"),
        "{tool}"
    );
}

/// A recording of bare messages on a Responses socket sends its first
/// message without waiting for a greeting (Responses' WebSocket mode
/// sends none; only Realtime's server speaks first).
#[test]
fn record_waits_for_a_greeting_only_where_the_api_sends_one() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server = std::thread::spawn(move || {
        let (sock, _) = listener.accept().unwrap();
        let mut ws = tungstenite::accept(sock).unwrap();
        let opened = std::time::Instant::now();
        loop {
            match ws.read().unwrap() {
                tungstenite::Message::Text(_) => break,
                _ => continue,
            }
        }
        let waited = opened.elapsed();
        // Refused: the request is answered.
        let _ = ws.send(tungstenite::Message::Text(
            r#"{"type":"error","status":400,"error":{"type":"invalid_request_error","code":null,"message":"no","param":null}}"#.into(),
        ));
        while ws.read().is_ok() {}
        waited
    });
    let dir = scratch("ws-tools-greeting");
    let (_, text) = record_to(
        &dir,
        format!("ws://{addr}/v1/responses"),
        Script::of_messages(vec![r#"{"type":"response.create","input":"hi"}"#.into()]),
        sselint::dialect::Dialect::Responses,
        Duration::from_secs(2),
    );
    let waited = server.join().unwrap();
    assert!(
        waited < sselint::live::socket::QUIET - Duration::from_millis(100),
        "the first message came after {waited:?}:\n{text}"
    );
}
