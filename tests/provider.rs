//! Which provider a capture looks like: named, with its evidence and the
//! `--profile` that fits, and never applied on its own.

mod common;
use assert_cmd::Command;
use serde_json::Value;

fn report(args: &[&str]) -> Value {
    let out = Command::cargo_bin("sselint")
        .unwrap()
        .args(["check", "--format", "json", "--fail-on", "never"])
        .args(args)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn provider_samples_are_named_by_their_fields_and_models() {
    for (file, profile, evidence) in [
        ("samples/providers/groq.sse", "groq", "field /x_groq"),
        (
            "samples/providers/sglang.sse",
            "sglang",
            "field /choices/*/matched_stop",
        ),
        ("samples/providers/xai.sse", "xai", "model grok-3-mini"),
        (
            "samples/providers/deepseek.sse",
            "deepseek",
            "model deepseek-reasoner",
        ),
        (
            "samples/providers/openrouter.sse",
            "openrouter",
            "field /provider",
        ),
    ] {
        let v = report(&[file]);
        let g = &v["files"][0]["streams"][0]["provider_guess"];
        assert_eq!(g["profile"], profile, "{file}: {g}");
        assert!(
            g["evidence"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e == evidence),
            "{file}: {g}"
        );
        // Named, not applied: the verdicts stay the default profile's.
        assert_eq!(v["profile"], "openai", "{file}");
    }
}

/// A port is a server's default, not its name: a stream from
/// `127.0.0.1:8080` is said to use llama.cpp's default port, once, and
/// without a repeated `(:8080)` (a fresh-user trial saw
/// `host 127.0.0.1:8080 (:8080)`).
#[test]
fn a_default_port_is_weak_evidence_and_said_as_such() {
    let dir = common::Scratch::new("provider-port");
    let har = std::fs::read_to_string("samples/har/chrome.har").unwrap();
    // A model name that names no provider: the port is all there is.
    let moved = har
        .replace("https://api.example.com/", "http://127.0.0.1:8080/")
        .replace("gpt-4o-mini-2024-07-18", "my-local-model");
    let p = dir.join("local.har");
    std::fs::write(&p, moved).unwrap();
    let r = report(&[p.to_str().unwrap()]);
    let g = &r["files"][0]["streams"][0]["provider_guess"];
    let evidence: Vec<&str> = g["evidence"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e.as_str())
        .collect();
    assert!(evidence.contains(&"its default port 8080"), "{g}");
    assert!(!evidence.iter().any(|e| e.contains("(:8080)")), "{g}");
}

#[test]
fn a_har_names_the_provider_by_its_request_host() {
    let dir = common::Scratch::new("provider");
    let har = std::fs::read_to_string("samples/har/chrome.har").unwrap();
    // The chat entries go to api.example.com: the same capture, sent to
    // Groq's host.
    assert!(har.contains("https://api.example.com/v1/chat/completions"));
    let moved = har.replace("https://api.example.com/", "https://api.groq.com/");
    let p = dir.join("groq.har");
    std::fs::write(&p, moved).unwrap();
    let r = report(&[p.to_str().unwrap()]);
    let g = &r["files"][0]["streams"][0]["provider_guess"];
    assert_eq!(g["profile"], "groq", "{g}");
    assert!(
        g["evidence"][0]
            .as_str()
            .unwrap()
            .starts_with("host api.groq.com"),
        "{g}"
    );
    let human = Command::cargo_bin("sselint")
        .unwrap()
        .args(["check", "--fail-on", "never", "--color", "never"])
        .arg(&p)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains("looks like Groq (host api.groq.com"),
        "{text}"
    );
    assert!(text.contains("`--profile groq` fits"), "{text}");
    // Under that profile, nothing more is suggested.
    let under = Command::cargo_bin("sselint")
        .unwrap()
        .args([
            "check",
            "--fail-on",
            "never",
            "--color",
            "never",
            "--profile",
            "groq",
        ])
        .arg(&p)
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&under.stdout).contains("looks like"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_stream_with_nothing_provider_specific_names_no_provider() {
    let v = report(&["samples/good/openai-basic.sse"]);
    let g = &v["files"][0]["streams"][0]["provider_guess"];
    // OpenAI's own model prefix may name OpenAI; nothing else may be named.
    assert!(g.is_null() || g["profile"] == "openai", "{g}");
}

/// Amazon Bedrock serves the Responses API on two hosts
/// (docs.aws.amazon.com/bedrock/latest/userguide/inference-responses-api):
/// `bedrock-mantle.{region}.api.aws/v1` and
/// `bedrock-runtime.{region}.amazonaws.com/openai/v1`. A curl `-v` dump to
/// either names the Responses profile; the runtime host names the Messages
/// profile only for a Messages stream.
#[test]
fn both_bedrock_responses_hosts_name_the_bedrock_responses_profile() {
    let dir = common::Scratch::new("bedrock");
    let body = std::fs::read_to_string("samples/providers/bedrock-responses.sse").unwrap();
    for (host, path) in [
        ("bedrock-mantle.us-east-1.api.aws", "/v1/responses"),
        (
            "bedrock-runtime.us-east-1.amazonaws.com",
            "/openai/v1/responses",
        ),
    ] {
        let dump = format!(
            "> POST {path} HTTP/1.1\r\n> Host: {host}\r\n> content-type: application/json\r\n> \r\n\
             < HTTP/1.1 200 OK\r\n< content-type: text/event-stream\r\n< \r\n{body}"
        );
        let p = dir.join(format!("{host}.txt"));
        std::fs::write(&p, dump).unwrap();
        let v = report(&[p.to_str().unwrap()]);
        let s = &v["files"][0]["streams"][0];
        assert_eq!(s["dialect"], "responses", "{host}: {s}");
        assert_eq!(
            s["provider_guess"]["profile"], "bedrock-responses",
            "{host}: {s}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
