//! Found by a fresh user trying sselint on Gemini streams (issue 27's
//! trial): each a test first, each failing before its fix.

mod common;
use common::*;
use sselint::dialect::Dialect;
use sselint::lint::Severity;
use std::process::Command;

fn gemini() -> Dialect {
    Dialect::parse("gemini").unwrap()
}

/// A Gemini chunk with candidate 0's `text`, and `extra` fields at the top.
fn chunk(text: &str, finish: Option<&str>, extra: &str) -> String {
    let finish = finish.map_or(String::new(), |f| format!(r#","finishReason": "{f}""#));
    format!(
        "data: {{{extra}\"candidates\": [{{\"content\": {{\"parts\": [{{\"text\": \"{text}\"}}],\"role\": \"model\"}}{finish},\"index\": 0}}],\"modelVersion\": \"gemini-2.5-flash\"}}\r\n\r\n"
    )
}

#[test]
fn a_blocked_prompt_that_is_answered_anyway_shows_the_answer_and_says_so() {
    let body = chunk(
        "Rain forms",
        None,
        r#""promptFeedback": {"blockReason": "SAFETY"},"#,
    ) + &chunk(" when vapour condenses.", Some("STOP"), "");
    let r = lint_as(body.as_bytes(), None);
    let s = &r.streams[0];
    assert_eq!(s.dialect, Some(gemini()));
    // The summary is the answer that came, not "(empty: the prompt was
    // blocked)".
    assert_eq!(s.answer.empty, None, "{:?}", s.answer.empty);
    assert_eq!(text0(&r), "Rain forms when vapour condenses.");
    let d = diags(&r);
    let blocked: Vec<_> = d
        .iter()
        .filter(|d| d.rule == "gemini-prompt-blocked")
        .collect();
    assert_eq!(blocked.len(), 1, "{d:#?}");
    assert!(
        blocked[0].message.contains("yet candidate 0 has an answer"),
        "{}",
        blocked[0].message
    );
    // inspect says "prompt blocked" on the chunk that carried it alone.
    let dir = scratch("gemini-trial-blocked");
    let p = dir.join("blocked.sse");
    std::fs::write(&p, &body).unwrap();
    let (_, out, _) = sselint(&["inspect", p.to_str().unwrap()]);
    let row = |i: &str| {
        out.lines()
            .find(|l| l.trim_start_matches(['│', '|', ' ']).starts_with(i))
            .unwrap_or_else(|| panic!("no row {i}: {out}"))
            .to_string()
    };
    assert!(row("0 ").contains("prompt blocked"), "{out}");
    assert!(!row("1 ").contains("prompt blocked"), "{out}");
}

#[test]
fn a_cut_json_array_body_and_an_oversized_first_chunk_are_judged_in_gemini_words() {
    // The JSON-array shape (no `alt=sse`), cut inside its first element.
    let cut = "[{\n  \"candidates\": [\n    {\n      \"content\": {\n        \"parts\": [\n          {\n            \"text\": \"Arr";
    let r = lint_as(cut.as_bytes(), None);
    assert_eq!(r.streams[0].dialect, Some(gemini()));
    let d = diags(&r);
    assert_eq!(
        rules_at_least(&r, Severity::Info),
        ["body-not-sse"],
        "{d:#?}"
    );
    assert!(
        d[0].message
            .contains("JSON array of Gemini GenerateContentResponse"),
        "{}",
        d[0].message
    );
    // One chunk larger than --max-event-bytes: its start names the dialect.
    let big = chunk(&"x".repeat(4000), Some("STOP"), "");
    let dir = scratch("gemini-trial-big");
    let p = dir.join("big.sse");
    std::fs::write(&p, &big).unwrap();
    let (code, out, _) = sselint(&[
        "check",
        p.to_str().unwrap(),
        "--max-event-bytes",
        "2048",
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(1), "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let stream = &v["files"][0]["streams"][0];
    assert_eq!(stream["dialect"], "gemini", "{out}");
    let msgs = stream["diagnostics"].to_string();
    assert!(msgs.contains("event-too-large"), "{msgs}");
    for chat_word in ["choices", "[DONE]", "finish_reason"] {
        assert!(!msgs.contains(chat_word), "{chat_word} in {msgs}");
    }
}

#[test]
fn an_empty_finish_reason_is_an_error_that_says_so() {
    let body = chunk("Rain forms", None, "") + &chunk(" when vapour condenses.", Some(""), "");
    let r = lint_as(body.as_bytes(), None);
    let d = diags(&r);
    let f = d
        .iter()
        .find(|d| d.rule == "gemini-finish-reason-value")
        .unwrap_or_else(|| panic!("{d:#?}"));
    assert_eq!(f.severity, Severity::Error);
    assert!(f.message.contains("empty string"), "{}", f.message);
}

#[test]
fn token_counts_given_as_strings_are_a_schema_error() {
    let body = chunk("Rain.", Some("STOP"), "").replace(
        "\"modelVersion\"",
        r#""usageMetadata": {"promptTokenCount": "9", "totalTokenCount": 12},"modelVersion""#,
    );
    let r = lint_as(body.as_bytes(), None);
    let d = diags(&r);
    let f = d
        .iter()
        .find(|d| d.rule == "gemini-schema")
        .unwrap_or_else(|| panic!("{d:#?}"));
    assert_eq!(f.severity, Severity::Error);
    assert!(
        f.message
            .contains("`usageMetadata.promptTokenCount` is a JSON string"),
        "{}",
        f.message
    );
    // Integers are fine.
    let ok = body.replace(r#""9""#, "9");
    assert!(diags(&lint_as(ok.as_bytes(), None))
        .iter()
        .all(|d| d.rule != "gemini-schema"));
}

#[test]
fn crlf_in_a_gemini_stream_is_the_apis_own_framing() {
    let body = chunk("Rain.", Some("STOP"), "");
    let r = lint_as(body.as_bytes(), None);
    let d = diags(&r);
    let f = d
        .iter()
        .find(|d| d.rule == "line-endings")
        .unwrap_or_else(|| panic!("{d:#?}"));
    assert_eq!(f.severity, Severity::Info);
    assert!(f.message.contains("the API's own framing"), "{}", f.message);
    // Another dialect's CRLF stream keeps its message.
    let chat = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\r\n\r\ndata: [DONE]\r\n\r\n";
    let r = lint_as(chat.as_bytes(), None);
    let f = diags(&r)
        .into_iter()
        .find(|d| d.rule == "line-endings")
        .unwrap();
    assert!(!f.message.contains("Gemini"), "{}", f.message);
}

#[test]
fn an_error_chunk_after_the_finish_says_the_answer_had_ended() {
    let body = chunk("Rain.", Some("STOP"), "")
        + "data: {\"error\": {\"code\": 503, \"message\": \"overloaded\", \"status\": \"UNAVAILABLE\"}}\r\n\r\n";
    let r = lint_as(body.as_bytes(), None);
    let d = diags(&r);
    let f = d
        .iter()
        .find(|d| d.rule == "gemini-error-event")
        .unwrap_or_else(|| panic!("{d:#?}"));
    assert!(
        f.message
            .contains("after candidate 0's `finishReason` (STOP)"),
        "{}",
        f.message
    );
    assert!(
        !f.message.contains("no `finishReason` follows"),
        "{}",
        f.message
    );
}

#[test]
fn scrub_text_leaves_no_citation_license_behind() {
    let body = chunk("Rain.", Some("STOP"), "").replace(
        r#","finishReason""#,
        r#","citationMetadata": {"citations": [{"startIndex": 0, "endIndex": 5, "uri": "https://example.com/rain", "license": "CC-BY-4.0"}]},"finishReason""#,
    );
    let dir = scratch("gemini-trial-license");
    let p = dir.join("cited.sse");
    std::fs::write(&p, &body).unwrap();
    let out = dir.join("out.sse");
    let (code, _, err) = sselint(&[
        "redact",
        p.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--scrub-text",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let copy = std::fs::read_to_string(&out).unwrap();
    assert!(!copy.contains("CC-BY"), "{copy}");
    assert!(copy.contains(r#""license": "XX-XX-0.0""#), "{copy}");
}

#[test]
fn minimize_keeps_the_partial_args_that_make_the_finding() {
    let dir = scratch("gemini-trial-minimize");
    let out = dir.join("min.sse");
    let (code, _, err) = sselint(&[
        "minimize",
        root()
            .join("samples/bad/gemini-partial-args.sse")
            .to_str()
            .unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--rule",
        "gemini-partial-args",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let min = std::fs::read_to_string(&out).unwrap();
    assert!(min.contains("\"partialArgs\""), "{min}");
    assert!(min.contains("\"jsonPath\""), "{min}");
    // A call opened with `willContinue` and closed without a piece
    // streamed nothing.
    let opened = "data: {\"candidates\": [{\"content\": {\"role\": \"model\",\"parts\": [{\"functionCall\": {\"name\": \"get_weather\",\"willContinue\": true}}]}}]}\r\n\r\ndata: {\"candidates\": [{\"content\": {\"role\": \"model\",\"parts\": [{\"functionCall\": {}}]},\"finishReason\": \"STOP\"}]}\r\n\r\n";
    let r = lint_as(opened.as_bytes(), None);
    assert!(
        diags(&r).iter().all(|d| d.rule != "gemini-partial-args"),
        "{:#?}",
        diags(&r)
    );
}

#[test]
fn replay_keep_alives_end_their_lines_as_the_stream_does() {
    let capture = root().join("samples/good/gemini-basic.sse");
    let replay = Replay::start(
        &capture,
        &[
            "--split-bytes",
            "1",
            "--delay-ms",
            "150",
            "--keepalive-ms",
            "40",
        ],
    );
    use std::io::{Read, Write};
    let mut sock = std::net::TcpStream::connect(&replay.addr).unwrap();
    write!(
        sock,
        "POST /v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{{}}"
    )
    .unwrap();
    let mut raw = Vec::new();
    sock.read_to_end(&mut raw).unwrap();
    // Undo the chunked coding: each chunk is `SIZE\r\nBYTES\r\n`.
    let head_end = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let mut body = Vec::new();
    let mut rest = &raw[head_end..];
    loop {
        let nl = rest.windows(2).position(|w| w == b"\r\n").unwrap();
        let n = usize::from_str_radix(std::str::from_utf8(&rest[..nl]).unwrap(), 16).unwrap();
        if n == 0 {
            break;
        }
        body.extend_from_slice(&rest[nl + 2..nl + 2 + n]);
        rest = &rest[nl + 2 + n + 2..];
    }
    let text = String::from_utf8(body).unwrap();
    assert!(text.contains(": keep-alive\r\n\r\n"), "{text:?}");
    // Every LF is the end of a CRLF: no second convention.
    let bytes = text.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'\n' {
            assert!(i > 0 && bytes[i - 1] == b'\r', "a bare LF at {i}: {text:?}");
        }
    }
    // The body is the capture's with the comments taken out.
    let original = std::fs::read_to_string(&capture).unwrap();
    assert_eq!(text.replace(": keep-alive\r\n\r\n", ""), original);
}

#[test]
fn a_total_below_the_sum_of_its_parts_is_a_warning_on_the_last_usage_only() {
    let usage = |u: &str| {
        chunk("Rain.", Some("STOP"), "").replace(
            "\"modelVersion\"",
            &format!(r#""usageMetadata": {u},"modelVersion""#),
        )
    };
    let short = usage(
        r#"{"promptTokenCount": 9, "candidatesTokenCount": 11, "thoughtsTokenCount": 20, "totalTokenCount": 20}"#,
    );
    let r = lint_as(short.as_bytes(), None);
    let d = diags(&r);
    let f = d
        .iter()
        .find(|d| d.rule == "gemini-usage-total")
        .unwrap_or_else(|| panic!("{d:#?}"));
    assert_eq!(f.severity, Severity::Warning);
    assert!(
        f.message.contains("is 20, below the sum of its parts (40"),
        "{}",
        f.message
    );
    // A short total mid-stream that the last usage corrects is no finding.
    let fixed = short.clone()
        + &usage(
            r#"{"promptTokenCount": 9, "candidatesTokenCount": 11, "thoughtsTokenCount": 20, "totalTokenCount": 40}"#,
        );
    let r = lint_as(fixed.as_bytes(), None);
    assert!(
        diags(&r).iter().all(|d| d.rule != "gemini-usage-total"),
        "{:#?}",
        diags(&r)
    );
}

/// The benchmark generator (`examples/gen_capture.rs`), built by `cargo
/// test` with the other examples, or here when a single test target runs.
fn gen_capture() -> std::path::PathBuf {
    let exe = std::env::current_exe().unwrap();
    let debug = exe.parent().unwrap().parent().unwrap();
    let bin = debug.join("examples").join("gen_capture");
    if !bin.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let ok = Command::new(cargo)
            .args(["build", "--quiet", "--example", "gen_capture"])
            .current_dir(root())
            .status()
            .unwrap();
        assert!(ok.success());
    }
    bin
}

#[test]
fn gen_capture_prints_its_usage_and_writes_a_gemini_har() {
    let bin = gen_capture();
    let o = Command::new(&bin).arg("--help").output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).contains("usage: gen_capture"));
    let o = Command::new(&bin).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("usage: gen_capture"));
    let dir = scratch("gemini-trial-gen");
    let har = dir.join("g.har");
    let o = Command::new(&bin)
        .args(["4000", har.to_str().unwrap(), "--har", "--gemini"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&har).unwrap()).unwrap();
    let entry = &v["log"]["entries"][0];
    assert!(entry["request"]["url"]
        .as_str()
        .unwrap()
        .contains(":streamGenerateContent?alt=sse"));
    let (code, out, _) = sselint(&["check", har.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, Some(0), "{out}");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["files"][0]["streams"][0]["dialect"], "gemini", "{out}");
    assert!(!dir.join("g.har.sse.partial").exists());
}

#[test]
fn a_lone_surrogate_in_the_first_chunk_reads_as_gemini_as_it_does_later() {
    // An emoji split across chunks: `\ud83d` ends one chunk, `\ude00`
    // starts the next; serde_json refuses a lone surrogate.
    let first = chunk("Hi \\ud83d", None, "") + &chunk("\\ude00 there.", Some("STOP"), "");
    let later = chunk("Hi ", None, "") + &chunk("\\ud83d there.", Some("STOP"), "");
    let verdict = |body: &str| {
        let r = lint_as(body.as_bytes(), None);
        let mut found: Vec<String> = diags(&r)
            .iter()
            .map(|d| format!("{} {}", d.rule, d.severity))
            .collect();
        found.sort();
        (r.streams[0].dialect, r.streams[0].ending.name(), found)
    };
    let (dialect, ending, found) = verdict(&first);
    assert_eq!(dialect, Some(gemini()), "{found:?}");
    assert_eq!(ending, "complete", "{found:?}");
    for chat in ["empty-stream", "missing-choices"] {
        assert!(!found.iter().any(|f| f.starts_with(chat)), "{found:?}");
    }
    // Whatever the lone surrogate gets in a later chunk, it gets in the
    // first.
    assert_eq!(verdict(&first).2, verdict(&later).2);
    let r = lint_as(first.as_bytes(), None);
    assert_eq!(text0(&r), "Hi \u{FFFD}\u{FFFD} there.");
    // With --dialect gemini there is no hint to try another dialect.
    let dir = scratch("gemini-trial-surrogate");
    let p = dir.join("first.sse");
    std::fs::write(&p, &first).unwrap();
    let (code, out, err) = sselint(&["check", p.to_str().unwrap(), "--dialect", "gemini"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(!out.contains("try --dialect"), "{out}");
    // A Chat stream whose first chunk has one keeps its Chat finding.
    let chat = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hi \\ud83d\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    let r = lint_as(chat.as_bytes(), None);
    assert_eq!(r.streams[0].dialect.map(|d| d.name()), Some("chat"));
    assert!(
        diags(&r)
            .iter()
            .any(|d| d.rule == "invalid-json" && d.message.contains("lone UTF-16 surrogate")),
        "{:#?}",
        diags(&r)
    );
}

#[test]
fn a_har_entry_at_stream_generate_content_is_linted_whatever_its_media_type() {
    // `sselint record` of a request without `alt=sse`: the API (here
    // replay, which answers as it does) sends the JSON-array shape as
    // `application/json`.
    let dir = scratch("gemini-trial-json-har");
    let replay = Replay::start(&root().join("samples/good/gemini-basic.sse"), &[]);
    let req = dir.join("req.json");
    std::fs::write(
        &req,
        r#"{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}"#,
    )
    .unwrap();
    let recorded = dir.join("rec.har");
    let url = format!(
        "http://{}/v1beta/models/gemini-2.5-flash:streamGenerateContent",
        replay.addr
    );
    let (_, out, err) = sselint(&[
        "record",
        &url,
        "--body",
        req.to_str().unwrap(),
        "-o",
        recorded.to_str().unwrap(),
    ]);
    let har: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(&recorded).unwrap_or_else(|e| panic!("{e}: {out}{err}")),
    )
    .unwrap();
    let mime = har["log"]["entries"][0]["response"]["content"]["mimeType"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(mime.starts_with("application/json"), "{mime}");
    drop(replay);
    // The same entry at Vertex AI's path.
    let mut vertex = har.clone();
    vertex["log"]["entries"][0]["request"]["url"] = "https://us-central1-aiplatform.googleapis.com/v1/projects/p-1/locations/us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent".into();
    let vertex_har = dir.join("vertex.har");
    std::fs::write(&vertex_har, vertex.to_string()).unwrap();
    for har in [&recorded, &vertex_har] {
        let p = har.to_str().unwrap();
        let (code, out, err) = sselint(&["check", p, "--format", "json"]);
        assert_eq!(code, Some(1), "{p}: {out}{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let stream = &v["files"][0]["streams"][0];
        assert_eq!(stream["dialect"], "gemini", "{out}");
        let body_not_sse = stream["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["rule"] == "body-not-sse")
            .unwrap_or_else(|| panic!("{out}"));
        assert!(
            body_not_sse["message"]
                .as_str()
                .unwrap()
                .contains("JSON array of 2 Gemini GenerateContentResponse"),
            "{body_not_sse}"
        );
        // `inspect` exits 0 whatever it finds; 2 when it reads nothing.
        let (code, out, err) = sselint(&["inspect", p]);
        assert_eq!(code, Some(0), "{p}: {out}{err}");
        assert!(out.contains("[gemini]"), "{out}");
        let served = Replay::start(har, &[]);
        assert!(
            served.line.contains("a JSON array of 2 Gemini"),
            "{}",
            served.line
        );
    }
    // The method that does not stream, and another API's JSON answer,
    // are still no stream entries.
    for url in [
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
        "https://api.openai.com/v1/chat/completions",
    ] {
        let mut other = har.clone();
        other["log"]["entries"][0]["request"]["url"] = url.into();
        let p = dir.join("other.har");
        std::fs::write(&p, other.to_string()).unwrap();
        let (code, _, err) = sselint(&["check", p.to_str().unwrap()]);
        assert_eq!(code, Some(2), "{url}: {err}");
        assert!(err.contains("no entry is an event stream"), "{err}");
    }
}

/// One `data:` line of `size` bytes of text in each dialect's event that
/// would carry it (a Gemini chunk with its finish, a Chat chunk, a
/// Responses delta, a Messages delta).
fn one_big_event(dialect: &str, size: usize) -> String {
    let big = "x".repeat(size);
    match dialect {
        "gemini" => chunk(&big, Some("STOP"), ""),
        "chat" => format!("data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{{\"role\":\"assistant\",\"content\":\"{big}\"}},\"finish_reason\":\"stop\"}}]}}\n\n"),
        "responses" => format!("event: response.output_text.delta\ndata: {{\"type\":\"response.output_text.delta\",\"sequence_number\":0,\"item_id\":\"m\",\"output_index\":0,\"content_index\":0,\"delta\":\"{big}\"}}\n\n"),
        "messages" => format!("event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"{big}\"}}}}\n\n"),
        _ => unreachable!(),
    }
}

#[test]
fn an_event_too_large_to_read_is_that_finding_alone_not_an_empty_or_cut_stream() {
    // One 30 MB event, past the 16 MiB default of --max-event-bytes: it
    // was read and refused for its size, so no ending finding blames the
    // server for a stream that was cut or empty. The same in every
    // dialect (and for Chat with its `[DONE]` after it).
    let size = 30 * 1024 * 1024;
    let mut bodies: Vec<(String, String)> = ["gemini", "chat", "responses", "messages"]
        .iter()
        .map(|d| (d.to_string(), one_big_event(d, size)))
        .collect();
    bodies.push((
        "chat + [DONE]".into(),
        one_big_event("chat", size) + "data: [DONE]\n\n",
    ));
    for (what, body) in &bodies {
        let r = lint_as(body.as_bytes(), None);
        assert_eq!(
            rules_at_least(&r, Severity::Warning),
            ["event-too-large"],
            "{what}: {:#?}",
            diags(&r)
        );
    }
    let r = lint_as(bodies[0].1.as_bytes(), None);
    assert_eq!(r.streams[0].dialect, Some(gemini()));
    // After a chunk that was read, a cut-off says the event too large to
    // read may have held the finish, as it does for one that was not JSON.
    let after = chunk("Hi", None, "") + &bodies[0].1;
    let r = lint_as(after.as_bytes(), None);
    let d = diags(&r);
    let cut = d
        .iter()
        .find(|d| d.rule == "gemini-cut-off")
        .unwrap_or_else(|| panic!("{d:#?}"));
    assert!(
        cut.message
            .contains("1 event(s) could not be read, and one of them may have been it"),
        "{}",
        cut.message
    );
    // minimize keeps event-too-large alone: the reproducer has no
    // ending finding either.
    let dir = scratch("gemini-trial-too-large");
    let p = dir.join("big.sse");
    std::fs::write(&p, &bodies[0].1).unwrap();
    let out = dir.join("min.sse");
    let (code, report, err) =
        sselint(&["minimize", p.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{report}{err}");
    let kept = report
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("kept:"))
        .unwrap_or_else(|| panic!("{report}"));
    assert_eq!(kept.trim(), "event-too-large (error)", "{report}");
    let (_, json, _) = sselint(&["check", out.to_str().unwrap(), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let rules: Vec<&str> = v["files"][0]["streams"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] != "info")
        .map(|d| d["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["event-too-large"], "{json}");
}

#[test]
fn minimize_keeps_alt_sse_in_a_gemini_hars_url_and_never_the_key() {
    let key = "AIzaSyD-FAKEKEY1234567890abcdefghijklmn";
    let body = std::fs::read_to_string(root().join("samples/bad/gemini-cut-off.sse")).unwrap();
    let mut har = one_entry_har(serde_json::json!({ "text": body }), &[]);
    let entry = &mut har["log"]["entries"][0];
    entry["request"]["url"] = format!(
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key={key}"
    )
    .into();
    entry["request"]["queryString"] =
        serde_json::json!([{"name": "alt", "value": "sse"}, {"name": "key", "value": key}]);
    entry["request"]["headers"] = serde_json::json!([{"name": "x-goog-api-key", "value": key}]);
    entry["request"]["postData"] = serde_json::json!({
        "mimeType": "application/json",
        "text": r#"{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}"#,
    });
    let dir = scratch("gemini-trial-minimize-alt");
    let input = dir.join("g.har");
    std::fs::write(&input, har.to_string()).unwrap();
    let out = dir.join("min.har");
    let (code, report, err) = sselint(&[
        "minimize",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{report}{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(!text.contains("FAKEKEY"), "{text}");
    let min: serde_json::Value = serde_json::from_str(&text).unwrap();
    let request = &min["log"]["entries"][0]["request"];
    assert_eq!(
        request["url"],
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
        "{request:#}"
    );
    assert_eq!(
        request["queryString"],
        serde_json::json!([{"name": "alt", "value": "sse"}]),
        "{request:#}"
    );
    // redact keeps it too, with the key masked.
    let red = dir.join("red.har");
    let (code, _, err) = sselint(&[
        "redact",
        input.to_str().unwrap(),
        "-o",
        red.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let text = std::fs::read_to_string(&red).unwrap();
    assert!(!text.contains("FAKEKEY"), "{text}");
    assert!(
        text.contains(":streamGenerateContent?alt=sse&key="),
        "{text}"
    );
}

#[test]
fn another_dialects_profile_gets_a_note_naming_this_dialects_profiles_even_when_it_is_openai() {
    let g = root().join("samples/good/gemini-basic.sse");
    let g = g.to_str().unwrap();
    let note = "the profile `openai` describes OpenAI Chat Completions streams, but this stream is Google Gemini";
    // Chosen on the command line, or in sselint.toml: a note, which names
    // the profiles of this stream's dialect.
    let (_, out, _) = sselint(&["check", g, "--profile", "openai", "--no-config"]);
    assert!(out.contains(note), "{out}");
    assert!(
        out.contains("choose one of the Google Gemini profiles (gemini-api, vertex-gemini;"),
        "{out}"
    );
    let dir = scratch("gemini-trial-profile-note");
    let cfg = dir.join("sselint.toml");
    std::fs::write(&cfg, "profile = \"openai\"\n").unwrap();
    let (_, out, _) = sselint(&["check", g, "--config", cfg.to_str().unwrap()]);
    assert!(out.contains(note), "{out}");
    // The default, which every stream is read with when none is chosen:
    // no note.
    let (_, out, _) = sselint(&["check", g, "--no-config"]);
    assert!(!out.contains("the profile `"), "{out}");
    // `rules --profiles` says each profile's dialect: `gemini` is the
    // OpenAI-compatible endpoint's (Chat), `gemini-api` Gemini's own.
    let (code, out, _) = sselint(&["rules", "--profiles"]);
    assert_eq!(code, Some(0));
    let cells = |name: &str| -> Vec<String> {
        out.lines()
            .find(|l| {
                l.trim_start_matches('│')
                    .trim_start()
                    .starts_with(&format!("{name} "))
            })
            .unwrap_or_else(|| panic!("no row {name}: {out}"))
            .trim_matches('│')
            .split('┆')
            .map(|c| c.trim().to_string())
            .collect()
    };
    let header = cells("profile");
    assert_eq!(header[1], "dialect", "{out}");
    assert_eq!(cells("gemini-api")[1], "gemini", "{out}");
    assert_eq!(cells("vertex-gemini")[1], "gemini", "{out}");
    assert_eq!(cells("gemini")[1], "chat", "{out}");
    assert_eq!(cells("anthropic")[1], "messages", "{out}");
}

#[test]
fn the_json_report_names_the_profile_each_stream_was_read_under() {
    let g = root().join("samples/good/gemini-basic.sse");
    let c = root().join("samples/good/openai-basic.sse");
    let (g, c) = (g.to_str().unwrap(), c.to_str().unwrap());
    let report = |args: &[&str]| -> serde_json::Value {
        let mut all = vec!["check", "--format", "json", "--no-config"];
        all.extend_from_slice(args);
        let (_, out, err) = sselint(&all);
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"))
    };
    let profiles = |v: &serde_json::Value| -> (String, Vec<String>) {
        let streams = v["files"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|f| f["streams"].as_array().unwrap().iter())
            .map(|s| s["profile"].as_str().unwrap_or("(none)").to_string())
            .collect();
        (v["profile"].as_str().unwrap().to_string(), streams)
    };
    // A Gemini-only run is read as Gemini's own API, which the default
    // profile (`openai`, Chat's) does not describe.
    assert_eq!(
        profiles(&report(&[g])),
        ("gemini-api".into(), vec!["gemini-api".into()])
    );
    assert_eq!(
        profiles(&report(&[c])),
        ("openai".into(), vec!["openai".into()])
    );
    // A mixed run: each stream says its own; the run names the profile
    // it was given.
    assert_eq!(
        profiles(&report(&[c, g])),
        ("openai".into(), vec!["openai".into(), "gemini-api".into()])
    );
    assert_eq!(
        profiles(&report(&[g, "--profile", "vertex-gemini"])),
        ("vertex-gemini".into(), vec!["vertex-gemini".into()])
    );
    // Another dialect's profile does not apply to the stream (its note
    // says so): the stream is read as its own API.
    let v = report(&[g, "--profile", "groq"]);
    assert_eq!(
        profiles(&v),
        ("gemini-api".into(), vec!["gemini-api".into()])
    );
    assert!(
        v["files"][0]["streams"][0]["notes"]
            .to_string()
            .contains("the profile `groq` describes"),
        "{v:#}"
    );
}

#[test]
fn inspect_shows_a_blocked_prompt_as_the_blocked_prompt_not_as_candidate_0() {
    let p = root().join("samples/bad/gemini-prompt-blocked.sse");
    let (code, out, err) = sselint(&["inspect", p.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(!out.contains("candidate 0"), "{out}");
    assert!(
        out.contains("\nprompt blocked: `promptFeedback.blockReason` SAFETY, no candidate\n"),
        "{out}"
    );
    // The JSON report keeps its contract: choice 0 with the block reason
    // as its finish.
    let (_, json, _) = sselint(&["check", p.to_str().unwrap(), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let c = &v["files"][0]["streams"][0]["choices"][0];
    assert_eq!(c["index"], 0, "{json}");
    assert_eq!(c["finish_reason"], "blockReason:SAFETY", "{json}");
    // A blocked prompt answered anyway has its candidate 0.
    let answered = chunk(
        "Rain forms",
        None,
        r#""promptFeedback": {"blockReason": "SAFETY"},"#,
    ) + &chunk(" when vapour condenses.", Some("STOP"), "");
    let dir = scratch("gemini-trial-blocked-inspect");
    let q = dir.join("answered.sse");
    std::fs::write(&q, &answered).unwrap();
    let (_, out, _) = sselint(&["inspect", q.to_str().unwrap()]);
    assert!(out.contains("\ncandidate 0:\n"), "{out}");
    assert!(!out.contains("no candidate"), "{out}");
}
