//! Issue 27's last command gaps, found by a fresh user on Gemini streams:
//! each a test first, each failing before its fix.

mod common;
use common::*;
use sselint::capture::{self, Options};
use sselint::dialect::{self, Dialect, RequestKind};
use sselint::lint::{profile, Settings};
use sselint::pipeline::{lint_capture, NoObserver};

fn gemini() -> Dialect {
    Dialect::parse("gemini").unwrap()
}

/// POSTs `body` to `path` on `addr`: the status, the head and the body
/// (its chunked coding undone).
fn post(addr: &str, path: &str, body: &str) -> (u16, String, Vec<u8>) {
    use std::io::{Read, Write};
    let mut sock = std::net::TcpStream::connect(addr).unwrap();
    write!(
        sock,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = Vec::new();
    sock.read_to_end(&mut raw).unwrap();
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let head = String::from_utf8_lossy(&raw[..end]).into_owned();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let mut rest = &raw[end..];
    let mut out = Vec::new();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        loop {
            let nl = rest.windows(2).position(|w| w == b"\r\n").unwrap();
            let size = usize::from_str_radix(std::str::from_utf8(&rest[..nl]).unwrap().trim(), 16)
                .unwrap();
            if size == 0 {
                break;
            }
            out.extend_from_slice(&rest[nl + 2..nl + 2 + size]);
            rest = &rest[nl + 2 + size + 2..];
        }
    } else {
        out.extend_from_slice(rest);
    }
    (status, head, out)
}

fn sample(rel: &str) -> std::path::PathBuf {
    root().join("samples").join(rel)
}

#[test]
fn minimize_keeps_a_gemini_chunks_model_version_and_response_id_whole() {
    let dir = scratch("gemini-gaps-minimize");
    let out = dir.join("min.sse");
    let input = sample("bad/gemini-cut-off.sse");
    let (code, _, err) = sselint(&[
        "minimize",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let min = std::fs::read_to_string(&out).unwrap();
    assert!(
        min.contains("\"responseId\":\"Xk9zaPq3Bc2o1MkP0d6hqAo\""),
        "{min}"
    );
    assert!(
        min.contains("\"modelVersion\":\"gemini-2.5-flash\""),
        "{min}"
    );
}

#[test]
fn scrub_text_masks_a_parts_file_uri_its_display_names_and_inline_data() {
    let dir = scratch("gemini-gaps-filedata");
    let p = dir.join("file.sse");
    let uri = "gs://acme-private/reports/q3-layoffs.pdf";
    std::fs::write(
        &p,
        format!("data: {{\"candidates\": [{{\"content\": {{\"parts\": [{{\"fileData\": {{\"mimeType\": \"application/pdf\", \"fileUri\": \"{uri}\", \"displayName\": \"q3-layoffs.pdf\"}}}}, {{\"inlineData\": {{\"mimeType\": \"image/png\", \"data\": \"iVBORw0KGgoAAAANSUhEUg==\", \"displayName\": \"secret-chart.png\"}}}}],\"role\": \"model\"}},\"finishReason\": \"STOP\",\"index\": 0}}],\"modelVersion\": \"gemini-2.5-flash\"}}\r\n\r\n"),
    )
    .unwrap();
    let out = dir.join("red.sse");
    let (code, _, err) = sselint(&[
        "redact",
        "--scrub-text",
        p.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let red = std::fs::read_to_string(&out).unwrap();
    for private in [
        uri,
        "acme-private",
        "q3-layoffs",
        "secret-chart",
        "iVBORw0KGgo",
    ] {
        assert!(!red.contains(private), "{private} kept: {red}");
    }
    // The shape stays: the keys, the media types, one JSON object.
    let data = red.strip_prefix("data: ").unwrap().trim_end();
    let v: serde_json::Value = serde_json::from_str(data).unwrap();
    let parts = &v["candidates"][0]["content"]["parts"];
    assert_eq!(parts[0]["fileData"]["mimeType"], "application/pdf");
    assert_eq!(parts[1]["inlineData"]["mimeType"], "image/png");
    assert_eq!(
        parts[0]["fileData"]["fileUri"].as_str().map(str::len),
        Some(uri.len())
    );
}

#[test]
fn replay_serves_a_directory_probe_wrote_with_its_disconnect_captures() {
    let dir = scratch("gemini-gaps-probe-dir");
    let capture = std::fs::read(sample("good/gemini-basic.sse")).unwrap();
    let chat = std::fs::read(sample("good/openai-basic.sse")).unwrap();
    std::fs::create_dir_all(dir.join("chat")).unwrap();
    for name in ["plain", "long", "disconnect", "disconnect-dropped"] {
        std::fs::write(dir.join(format!("{name}.sse")), &capture).unwrap();
        std::fs::write(dir.join("chat").join(format!("{name}.sse")), &chat).unwrap();
    }
    // `invalid.har`: the one entry of a 400 with a JSON error body.
    let mut invalid = one_entry_har(
        serde_json::json!({"text": r#"{"error":{"code":400,"message":"Invalid value at 'contents'","status":"INVALID_ARGUMENT"}}"#}),
        &[],
    );
    let entry = &mut invalid["log"]["entries"][0];
    entry["request"]["url"] =
        "http://127.0.0.1:1/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse".into();
    entry["response"]["status"] = 400.into();
    entry["response"]["headers"][0]["value"] = "application/json".into();
    entry["response"]["content"]["mimeType"] = "application/json".into();
    std::fs::write(dir.join("invalid.har"), invalid.to_string()).unwrap();
    let set =
        sselint::replay::ScenarioSet::load(dir.to_str().unwrap(), &capture::Options::default())
            .unwrap_or_else(|e| panic!("{e}"));
    for d in [gemini(), Dialect::parse("chat").unwrap()] {
        let names = set.names(d);
        assert!(names.contains(&"disconnect"), "{names:?}");
        assert!(names.contains(&"disconnect-dropped"), "{names:?}");
    }
    assert!(set.names(gemini()).contains(&"invalid"));
    // A name that is no scenario is still refused, and the list the
    // message gives names the disconnect's captures.
    std::fs::write(dir.join("bogus.sse"), &capture).unwrap();
    let e = sselint::replay::ScenarioSet::load(dir.to_str().unwrap(), &Options::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("disconnect, disconnect-dropped"), "{e}");
}

#[test]
fn a_disconnect_runs_captures_answer_long_and_plain_when_the_set_has_no_others() {
    let dir = scratch("gemini-gaps-disconnect-only");
    let g = dir.join("gemini");
    std::fs::create_dir_all(&g).unwrap();
    let capture = std::fs::read(sample("good/gemini-basic.sse")).unwrap();
    std::fs::write(g.join("disconnect.sse"), &capture).unwrap();
    std::fs::write(g.join("disconnect-dropped.sse"), &capture[..120]).unwrap();
    let replay = Replay::start(&dir, &[]);
    let path = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse";
    let post = |body: &str| post(&replay.addr, path, body).2;
    let m = "gemini-2.5-flash";
    let plain = sselint::probe::body(gemini(), "plain", m).unwrap();
    let long = sselint::probe::body(gemini(), "long", m).unwrap();
    assert_eq!(
        post(&plain.to_string()),
        capture,
        "plain's request gets the follow-up's capture"
    );
    assert_eq!(
        post(&long.to_string()),
        capture[..120].to_vec(),
        "long's request gets the dropped one"
    );
}

#[test]
fn a_gemini_request_body_is_told_by_its_contents() {
    let body = serde_json::json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]});
    match dialect::sniff_request(&body) {
        RequestKind::Is(d, why) => {
            assert_eq!(d, gemini());
            assert!(why.contains("`contents`"), "{why}");
        }
        other => panic!("{other:?}"),
    }
    // The other three are told as before.
    let chat = serde_json::json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
    assert!(matches!(dialect::sniff_request(&chat), RequestKind::Is(d, _) if d.name() == "chat"));
}

#[test]
fn record_tells_gemini_from_a_tuned_model_path_and_from_the_body() {
    let replay = Replay::start(&sample("good/gemini-basic.sse"), &["--any-path"]);
    let origin = format!("http://{}", replay.addr);
    let dir = scratch("gemini-gaps-record");
    let req = dir.join("req.json");
    std::fs::write(
        &req,
        r#"{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}"#,
    )
    .unwrap();
    for path in ["/api/proxy", "/v1beta/tunedModels/t1:streamGenerateContent"] {
        let out = dir.join("r.har");
        let url = format!("{origin}{path}?alt=sse");
        let (code, _, err) = sselint(&[
            "record",
            &url,
            "--body",
            req.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(0), "{path}: {err}");
        assert!(!err.contains("warning"), "{path}: {err}");
        let har = std::fs::read_to_string(&out).unwrap();
        // Sent as Gemini: no `stream_options`, no `stream` field.
        assert!(!har.contains("stream_options"), "{path}: {har}");
        std::fs::remove_file(&out).unwrap();
    }
}

#[test]
fn a_cut_first_chunk_that_opens_with_usage_or_prompt_feedback_is_gemini() {
    for head in [
        "data: {\"usageMetadata\": {\"promptTokenCount\": 9, \"totalTok",
        "data: {\"promptFeedback\": {\"blockReason\": \"SAF",
        "data: { \"candidates\" : [ {\"content\": {\"parts\": [{\"text\": \"Ra",
    ] {
        let data = head.strip_prefix("data: ").unwrap();
        assert_eq!(dialect::sniff_partial(data), Some(gemini()), "{head}");
        let r = lint_as(head.as_bytes(), None);
        assert_eq!(r.streams[0].dialect, Some(gemini()), "{head}");
    }
    // Another dialect's keys are not.
    assert_eq!(
        dialect::sniff_partial("{\"usage\": {\"prompt_tokens\""),
        None
    );
    assert_eq!(dialect::sniff_partial("{\"usageMetadata\": 3"), None);
}

#[test]
fn replay_serves_a_json_array_capture_as_gemini_the_way_check_reads_it() {
    let dir = scratch("gemini-gaps-array");
    let p = dir.join("array.json");
    let body = "[{\n  \"candidates\": [\n    {\n      \"content\": {\n        \"parts\": [\n          {\n            \"text\": \"Hi\"\n          }\n        ],\n        \"role\": \"model\"\n      },\n      \"finishReason\": \"STOP\",\n      \"index\": 0\n    }\n  ],\n  \"modelVersion\": \"gemini-2.5-flash\"\n}\n]";
    std::fs::write(&p, body).unwrap();
    let r = lint_file(&p);
    assert_eq!(r.streams[0].dialect, Some(gemini()));
    let replay =
        sselint::replay::Replay::load(p.to_str().unwrap(), &Options::default(), None).unwrap();
    assert_eq!(replay.dialect, Some(gemini()));
    assert!(
        replay.shape().is_some_and(|s| s.contains("JSON array")),
        "{:?}",
        replay.shape()
    );
    // Served as captured, without `alt=sse` too.
    let server = Replay::start(&p, &[]);
    for q in ["", "?alt=sse"] {
        let path = format!("/v1beta/models/gemini-2.5-flash:streamGenerateContent{q}");
        let (status, head, served) = post(&server.addr, &path, "{}");
        assert_eq!(status, 200, "{q}: {head}");
        assert!(head.contains("application/json"), "{q}: {head}");
        assert_eq!(String::from_utf8_lossy(&served), body, "{q}");
    }
}

/// The first event of each dialect's good sample, and what the
/// `path-dialect-mismatch` message must cite of it.
const BODIES: [(&str, &str, &str); 4] = [
    ("chat", "good/openai-basic.sse", "a `chat.completion.chunk`"),
    // Its events are named: the name is cited.
    (
        "responses",
        "good/responses-basic.sse",
        "`response.created`",
    ),
    ("messages", "good/messages-basic.sse", "`message_start`"),
    (
        "gemini",
        "good/gemini-basic.sse",
        "a chunk with `candidates`",
    ),
];

#[test]
fn path_dialect_mismatch_names_what_the_body_is_for_every_pairing() {
    let paths = [
        ("chat", "/v1/chat/completions"),
        ("responses", "/v1/responses"),
        ("messages", "/v1/messages"),
        (
            "gemini",
            "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
        ),
    ];
    let dir = scratch("gemini-gaps-mismatch");
    for (body_d, file, cited) in BODIES {
        let text = std::fs::read_to_string(sample(file)).unwrap();
        for (path_d, path) in paths {
            let mut har = one_entry_har(serde_json::json!({ "text": text }), &[]);
            har["log"]["entries"][0]["request"]["url"] =
                format!("https://api.example.com{path}").into();
            let p = dir.join("m.har");
            std::fs::write(&p, har.to_string()).unwrap();
            let r = lint_file(&p);
            let found: Vec<_> = diags(&r)
                .into_iter()
                .filter(|d| d.rule == "path-dialect-mismatch")
                .collect();
            if body_d == path_d {
                assert!(found.is_empty(), "{body_d} at {path}: {found:#?}");
                continue;
            }
            assert_eq!(found.len(), 1, "{body_d} at {path}: {:#?}", diags(&r));
            let m = &found[0].message;
            assert!(m.contains(cited), "{body_d} at {path}: {m}");
            if body_d != "chat" {
                assert!(!m.contains("chat.completion.chunk"), "{m}");
            }
        }
    }
}

#[test]
fn dialect_hint_names_what_the_body_is_and_the_field_that_shows_it() {
    let shown = [
        ("chat", "`chat.completion.chunk`"),
        ("responses", "`response.created`"),
        ("messages", "`message_start`"),
        ("gemini", "`candidates`"),
    ];
    for (body_d, file, _) in BODIES {
        let bytes = std::fs::read(sample(file)).unwrap();
        let field = shown.iter().find(|(d, _)| *d == body_d).unwrap().1;
        for forced in dialect::ALL {
            let r = lint_as(&bytes, Some(*forced));
            let notes = &r.streams[0].notes;
            let hint = notes.iter().find(|n| n.contains("look like"));
            if forced.name() == body_d {
                assert!(hint.is_none(), "{body_d}: {notes:?}");
                continue;
            }
            let hint = hint.unwrap_or_else(|| panic!("{body_d} as {forced:?}: {notes:?}"));
            let body = Dialect::parse(body_d).unwrap();
            assert!(hint.contains(body.title()), "{hint}");
            assert!(hint.contains(&format!("({field})")), "{hint}");
        }
    }
    // A Chat chunk without an `object` is shown by its `choices`.
    let bare = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    let r = lint_as(bare.as_bytes(), Some(gemini()));
    assert!(
        r.streams[0]
            .notes
            .iter()
            .any(|n| n.contains("OpenAI Chat Completions (`choices`)")),
        "{:?}",
        r.streams[0].notes
    );
}

#[test]
fn a_profile_of_another_dialect_says_so() {
    let lint = |file: &str, name: &str| {
        let cap = capture::open(sample(file).to_str().unwrap(), &Options::default()).unwrap();
        let settings = Settings {
            profile: profile(name).unwrap(),
            ..Settings::default()
        };
        lint_capture(cap, &settings, &mut NoObserver)
    };
    for (file, name, stream) in [
        (
            "good/openai-basic.sse",
            "gemini-api",
            "OpenAI Chat Completions",
        ),
        (
            "good/openai-basic.sse",
            "anthropic",
            "OpenAI Chat Completions",
        ),
        (
            "good/messages-basic.sse",
            "vertex-gemini",
            "Anthropic Messages",
        ),
        ("good/gemini-basic.sse", "openrouter", "Google Gemini"),
        ("good/responses-basic.sse", "anthropic", "OpenAI Responses"),
    ] {
        let r = lint(file, name);
        let notes = &r.streams[0].notes;
        assert!(
            notes
                .iter()
                .any(|n| n.contains(&format!("the profile `{name}`"))
                    && n.contains(&format!("this stream is {stream}"))),
            "{file} --profile {name}: {notes:?}"
        );
    }
    // A profile of the stream's dialect says nothing.
    for (file, name) in [
        ("good/gemini-basic.sse", "gemini-api"),
        ("good/messages-basic.sse", "anthropic"),
        ("good/openai-basic.sse", "openrouter"),
    ] {
        let r = lint(file, name);
        assert!(
            r.streams[0].notes.iter().all(|n| !n.contains("profile")),
            "{file} --profile {name}: {:?}",
            r.streams[0].notes
        );
    }
}

#[test]
fn the_line_endings_page_does_not_tell_a_gemini_server_to_drop_crlf() {
    let (code, out, err) = sselint(&["rule", "line-endings"]);
    assert_eq!(code, Some(0), "{err}");
    let fix = out
        .split("## What to send instead")
        .nth(1)
        .unwrap_or_else(|| panic!("{out}"));
    let fix = fix.split("\n## ").next().unwrap_or(fix);
    assert!(!fix.contains("End every line with a single LF"), "{fix}");
    assert!(fix.contains("CRLF"), "{fix}");
    assert!(fix.contains("Gemini"), "{fix}");
}
