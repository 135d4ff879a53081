//! Telling a stream's dialect: from `--dialect`, the request URL, the
//! `event:` names or the data's `type`; a stream of none gets one
//! `unknown-format` finding; and no stream is judged by another dialect's
//! rules.

mod common;
use common::*;
use sselint::capture::{from_reader, Options};
use sselint::dialect::{Dialect, ALL};
use sselint::lint::{catalogue, Settings};
use sselint::pipeline::{lint_capture, NoObserver};

const RESPONSES: &str = "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"in_progress\",\"output\":[]}}\n\n";
const MESSAGES: &str = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n";

#[test]
fn the_dialect_comes_from_event_names_or_the_data_type() {
    let r = lint_as(RESPONSES.as_bytes(), None);
    assert_eq!(r.streams[0].dialect, Some(Dialect::Responses));
    let r = lint_as(MESSAGES.as_bytes(), None);
    assert_eq!(r.streams[0].dialect, Some(Dialect::Messages));
    // Without `event:` lines (OpenRouter's Responses stream), the data's
    // `type` says it.
    let bare: String = RESPONSES
        .lines()
        .filter(|l| !l.starts_with("event:"))
        .map(|l| format!("{l}\n"))
        .collect();
    let r = lint_as(bare.as_bytes(), None);
    assert_eq!(r.streams[0].dialect, Some(Dialect::Responses));
    // A Chat stream is Chat.
    let r = lint_file(&root().join("samples/good/openai-basic.sse"));
    assert_eq!(r.streams[0].dialect, Some(Dialect::Chat));
}

#[test]
fn no_stream_is_judged_by_another_dialects_rules() {
    for (text, d) in [
        (RESPONSES, Dialect::Responses),
        (MESSAGES, Dialect::Messages),
    ] {
        let r = lint_as(text.as_bytes(), None);
        for f in diags(&r) {
            let rule = catalogue().get(f.rule).unwrap();
            assert!(
                rule.dialect.is_none() || rule.dialect == Some(d),
                "{d}: {} ({:?}) fired",
                f.rule,
                rule.dialect
            );
        }
    }
    // And a Chat sample gets no rule of the other two.
    for p in samples("good").into_iter().chain(samples("providers")) {
        let r = lint_file(&p);
        if r.streams[0].dialect != Some(Dialect::Chat) {
            continue;
        }
        for f in diags(&r) {
            let rule = catalogue().get(f.rule).unwrap();
            assert!(
                rule.dialect.is_none() || rule.dialect == Some(Dialect::Chat),
                "{}: {}",
                p.display(),
                f.rule
            );
        }
    }
}

#[test]
fn dialect_overrides_what_the_stream_looks_like_and_holds_for_every_input() {
    // Forced, even on an empty body and on a stream of another dialect;
    // every sample read as every dialect: no panic, the dialect obeyed.
    let r = lint_as(b"", Some(Dialect::Messages));
    assert_eq!(r.streams[0].dialect, Some(Dialect::Messages));
    let r = lint_as(RESPONSES.as_bytes(), Some(Dialect::Chat));
    assert_eq!(r.streams[0].dialect, Some(Dialect::Chat));
    let mut inputs = Vec::new();
    for d in ["good", "providers", "bad"] {
        inputs.extend(samples(d));
    }
    for p in inputs {
        for d in ALL {
            let settings = Settings {
                dialect: Some(*d),
                ..Settings::default()
            };
            let r = lint_file_with(&p, &settings);
            for s in &r.streams {
                assert_eq!(s.dialect, Some(*d), "{}", p.display());
            }
        }
    }
}

#[test]
fn the_request_url_settles_the_dialect_before_any_event() {
    // A HAR entry posted to /v1/messages whose body starts with an event
    // of no dialect (a proxy's own) is still read as Messages.
    let body = format!("event: proxy_status\ndata: {{\"type\":\"proxy_status\"}}\n\n{MESSAGES}");
    let har = serde_json::json!({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [{
        "startedDateTime": "2026-01-01T00:00:00.000Z", "time": 10,
        "request": {"method": "POST", "url": "https://api.anthropic.com/v1/messages", "httpVersion": "HTTP/1.1", "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": -1},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [{"name": "Content-Type", "value": "text/event-stream"}], "cookies": [],
            "content": {"size": body.len(), "mimeType": "text/event-stream", "text": body}, "redirectURL": "", "headersSize": -1, "bodySize": -1},
        "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 1}}]}});
    let dir = scratch("dialect-url");
    let p = dir.join("m.har");
    std::fs::write(&p, har.to_string()).unwrap();
    let r = lint_file(&p);
    assert_eq!(r.streams[0].dialect, Some(Dialect::Messages));
    assert!(diags(&r).iter().all(|d| d.rule != "unknown-format"));
}

#[test]
fn a_stream_of_no_known_dialect_gets_one_finding_not_a_wall() {
    let r = lint_file(&root().join("samples/bad/unknown-format.sse"));
    let s = &r.streams[0];
    assert_eq!(s.dialect, None);
    let rules: Vec<&str> = s.diagnostics.iter().map(|d| d.rule).collect();
    assert_eq!(
        rules.iter().filter(|r| **r == "unknown-format").count(),
        1,
        "{rules:?}"
    );
    // Only shared (framing) rules besides it.
    for r in &rules {
        assert!(catalogue().get(r).unwrap().dialect.is_none(), "{r}");
    }
    let d = &s
        .diagnostics
        .iter()
        .find(|d| d.rule == "unknown-format")
        .unwrap();
    assert!(d.message.contains("Cohere"), "{}", d.message);
    // Ollama's native NDJSON objects sent as SSE events: named as such.
    let ollama = "data: {\"model\":\"llama3\",\"created_at\":\"2026-01-01T00:00:00Z\",\"message\":{\"role\":\"assistant\",\"content\":\"Hi\"},\"done\":false}\n\ndata: {\"model\":\"llama3\",\"created_at\":\"2026-01-01T00:00:01Z\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true}\n\n";
    let r = lint_as(ollama.as_bytes(), None);
    let u: Vec<_> = diags(&r)
        .into_iter()
        .filter(|d| d.rule == "unknown-format")
        .collect();
    assert_eq!(u.len(), 1);
    assert!(u[0].message.contains("Ollama"), "{}", u[0].message);
}

#[test]
fn an_empty_stream_of_any_dialect_is_an_error_and_a_body_that_is_not_sse_is_one_cause() {
    // Found by a fresh-user trial: an empty Responses stream passed clean.
    for d in ALL {
        for body in [&b""[..], b": keep-alive\n\n"] {
            let r = lint_as(body, Some(*d));
            let mut errors = rules_at_least(&r, sselint::lint::Severity::Error);
            // The keep-alive itself is an error only where the dialect's
            // clients raise on a comment line (Gemini's, in the record).
            if *d == Dialect::Gemini && !body.is_empty() {
                assert_eq!(errors.first(), Some(&"comment"), "{d}: {errors:?}");
                errors.remove(0);
            }
            assert_eq!(
                errors.len(),
                1,
                "{d} {:?}: {errors:?}",
                String::from_utf8_lossy(body)
            );
        }
    }
    // A bare JSON error instead of a stream: `body-not-sse` (shared) says
    // it; no Chat rule on a Messages or Responses stream, and no second
    // "no events" finding.
    let body = br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    for d in [Dialect::Responses, Dialect::Messages] {
        let r = lint_as(body, Some(d));
        let rules: Vec<&str> = diags(&r).iter().map(|f| f.rule).collect();
        assert!(rules.contains(&"body-not-sse"), "{d}: {rules:?}");
        for f in diags(&r) {
            let rule = catalogue().get(f.rule).unwrap();
            assert!(
                rule.dialect.is_none() || rule.dialect == Some(d),
                "{d}: {}",
                f.rule
            );
        }
        assert_eq!(
            rules_at_least(&r, sselint::lint::Severity::Error).len(),
            1,
            "{d}: {rules:?}"
        );
    }
}

#[test]
fn allow_fields_accepts_an_extra_field_in_every_dialect() {
    // Found by a fresh-user trial: allow-fields silenced Chat's
    // unknown-field only.
    let responses = RESPONSES.replace("\"output\":[]", "\"output\":[],\"x_gateway\":1");
    let messages = MESSAGES.replace("\"model\":\"m\"", "\"model\":\"m\",\"x_gateway\":1");
    for (text, rule, pattern) in [
        (
            responses.as_str(),
            "responses-unknown-field",
            "/response/x_gateway",
        ),
        (
            messages.as_str(),
            "messages-unknown-field",
            "/message/x_gateway",
        ),
    ] {
        let r = lint_as(text.as_bytes(), None);
        assert!(
            diags(&r).iter().any(|d| d.rule == rule),
            "{rule} without allow-fields"
        );
        let cap = from_reader(
            "t.sse",
            Box::new(std::io::Cursor::new(text.as_bytes().to_vec())),
            &Options::default(),
        )
        .unwrap();
        let settings = Settings {
            allow_fields: vec![pattern.to_string()],
            ..Settings::default()
        };
        let r = lint_capture(cap, &settings, &mut NoObserver);
        assert!(
            diags(&r).iter().all(|d| d.rule != rule),
            "{rule} with allow-fields"
        );
    }
}

/// A whole Messages answer ("Hi.") and a whole Responses one.
const MESSAGES_WHOLE: &str = concat!(
    "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4-5\",\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":12,\"output_tokens\":1}}}\n\n",
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi.\"}}\n\n",
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
    "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":8}}\n\n",
    "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
);

fn har_at(url: &str, body: &str) -> serde_json::Value {
    serde_json::json!({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [{
        "startedDateTime": "2026-01-01T00:00:00.000Z", "time": 10,
        "request": {"method": "POST", "url": url, "httpVersion": "HTTP/1.1", "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": -1},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [{"name": "Content-Type", "value": "text/event-stream"}], "cookies": [],
            "content": {"size": body.len(), "mimeType": "text/event-stream", "text": body}, "redirectURL": "", "headersSize": -1, "bodySize": -1},
        "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 1}}]}})
}

fn curl_v_at(path: &str, body: &str) -> String {
    format!(
        "* Connected to gateway.example.com (203.0.113.10) port 443 (#0)\n> POST {path} HTTP/1.1\r\n> Host: gateway.example.com\r\n> Content-Type: application/json\r\n> \r\n< HTTP/1.1 200 OK\r\n< Content-Type: text/event-stream\r\n< \r\n{body}"
    )
}

#[test]
fn a_body_of_another_dialect_than_its_path_is_read_as_the_body_says_with_one_error() {
    let dir = scratch("dialect-path-body");
    let har = dir.join("chat-path-messages-body.har");
    std::fs::write(
        &har,
        har_at(
            "https://gateway.example.com/v1/chat/completions",
            MESSAGES_WHOLE,
        )
        .to_string(),
    )
    .unwrap();
    let curl = dir.join("chat-path-messages-body.txt");
    std::fs::write(&curl, curl_v_at("/v1/chat/completions", MESSAGES_WHOLE)).unwrap();
    for p in [&har, &curl] {
        let r = lint_file(p);
        let s = &r.streams[0];
        assert_eq!(s.dialect, Some(Dialect::Messages), "{}", p.display());
        let found: Vec<(&str, sselint::lint::Severity)> =
            s.diagnostics.iter().map(|d| (d.rule, d.severity)).collect();
        assert_eq!(
            found,
            // An error: the path's clients, served this body, raise or end
            // with an empty answer (rules/observed.json).
            [("path-dialect-mismatch", sselint::lint::Severity::Error)],
            "{}",
            p.display()
        );
        let d = &s.diagnostics[0];
        assert!(
            d.message.contains("/v1/chat/completions")
                && d.message.contains("Chat Completions")
                && d.message.contains("Anthropic Messages"),
            "{}",
            d.message
        );
        assert_eq!(text0(&r), "Hi.");
    }
    // A Responses body on the Messages path: the same.
    let body = std::fs::read_to_string(root().join("samples/good/responses-basic.sse")).unwrap();
    let p = dir.join("messages-path-responses-body.har");
    std::fs::write(
        &p,
        har_at("https://gateway.example.com/v1/messages", &body).to_string(),
    )
    .unwrap();
    let r = lint_file(&p);
    assert_eq!(r.streams[0].dialect, Some(Dialect::Responses));
    let rules: Vec<&str> = diags(&r).iter().map(|d| d.rule).collect();
    assert_eq!(rules, ["path-dialect-mismatch"]);
    // `--dialect` is taken as said: no finding about the path.
    let cap = sselint::capture::open(har.to_str().unwrap(), &Options::default()).unwrap();
    let forced = lint_capture(
        cap,
        &Settings {
            dialect: Some(Dialect::Messages),
            ..Settings::default()
        },
        &mut NoObserver,
    );
    assert!(diags(&forced).is_empty(), "{:?}", diags(&forced));
    // A path and a body that agree: nothing.
    let p = dir.join("messages-path.har");
    std::fs::write(
        &p,
        har_at("https://api.anthropic.com/v1/messages", MESSAGES_WHOLE).to_string(),
    )
    .unwrap();
    assert!(diags(&lint_file(&p)).is_empty());
}

#[test]
fn a_request_body_tells_its_api_by_the_fields_only_one_api_has() {
    use serde_json::json;
    use sselint::dialect::{sniff_request, RequestKind};
    let is = |v: serde_json::Value| match sniff_request(&v) {
        RequestKind::Is(d, _) => Some(d),
        RequestKind::Ambiguous(_) => None,
    };
    let msgs = json!([{"role": "user", "content": "Hi"}]);
    assert_eq!(
        is(json!({"anthropic_version": "vertex-2023-10-16", "max_tokens": 9, "messages": msgs})),
        Some(Dialect::Messages)
    );
    assert_eq!(
        is(json!({"model": "m", "max_tokens": 9, "system": "x", "messages": msgs})),
        Some(Dialect::Messages)
    );
    assert_eq!(
        is(
            json!({"model": "m", "max_tokens": 9, "messages": msgs, "tools": [{"name": "f", "input_schema": {}}]})
        ),
        Some(Dialect::Messages)
    );
    assert_eq!(
        is(
            json!({"model": "m", "max_tokens": 9, "messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "1"}]}]})
        ),
        Some(Dialect::Messages)
    );
    assert_eq!(
        is(json!({"model": "m", "input": [{"role": "user", "content": "Hi"}]})),
        Some(Dialect::Responses)
    );
    assert_eq!(
        is(json!({"model": "m", "messages": msgs})),
        Some(Dialect::Chat)
    );
    assert_eq!(
        is(
            json!({"model": "m", "max_tokens": 9, "messages": [{"role": "system", "content": "x"}, {"role": "user", "content": "Hi"}]})
        ),
        Some(Dialect::Chat)
    );
    assert_eq!(
        is(json!({"model": "m", "max_tokens": 9, "n": 2, "messages": msgs})),
        Some(Dialect::Chat)
    );
    assert_eq!(
        is(json!({"model": "m", "max_tokens": 9, "messages": msgs})),
        None
    );
    assert_eq!(is(json!({"model": "m", "prompt": "Hi"})), None);
}

/// Replaces the first event's `event:` line with `event: NAME` (adding
/// one when it has none).
fn renamed_first(path: &str, name: &str) -> Vec<u8> {
    let text = std::fs::read_to_string(root().join(path)).unwrap();
    let text = text.strip_prefix("\u{feff}").unwrap_or(&text);
    let rest = match text.split_once('\n') {
        Some((first, rest)) if first.starts_with("event:") => rest.to_string(),
        _ => text.to_string(),
    };
    format!("event: {name}\n{rest}").into_bytes()
}

#[test]
fn the_data_decides_the_dialect_when_the_first_event_name_disagrees() {
    // (sample, the name its first event gets, the dialect its data is,
    // the most findings the wrong name may cost).
    for (path, name, want) in [
        (
            "samples/good/openai-usage.sse",
            "message_start",
            Dialect::Chat,
        ),
        (
            "samples/good/messages-basic.sse",
            "response.created",
            Dialect::Messages,
        ),
        (
            "samples/good/responses-basic.sse",
            "message_start",
            Dialect::Responses,
        ),
    ] {
        let r = lint_as(&renamed_first(path, name), None);
        assert_eq!(r.streams[0].dialect, Some(want), "{path} named {name}");
        let found: Vec<_> = diags(&r).iter().map(|d| d.rule).collect();
        assert!(found.len() <= 1, "{path} named {name}: {found:?}");
        for f in diags(&r) {
            let rule = catalogue().get(f.rule).unwrap();
            assert!(
                rule.dialect.is_none() || rule.dialect == Some(want),
                "{path} named {name}: {} fired",
                f.rule
            );
        }
    }
}

#[test]
fn an_anthropic_error_only_stream_is_messages_and_a_responses_error_is_not() {
    let body = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"invalid x-api-key\"}}\n\n";
    let r = lint_as(body.as_bytes(), None);
    assert_eq!(r.streams[0].dialect, Some(Dialect::Messages));
    let found: Vec<_> = diags(&r).iter().map(|d| d.rule).collect();
    assert!(found.contains(&"messages-error-event"), "{found:?}");
    // OpenAI's nested Responses error has a `sequence_number`: it is not
    // taken for Anthropic's.
    let body = "event: error\ndata: {\"type\":\"error\",\"sequence_number\":0,\"error\":{\"type\":\"insufficient_quota\",\"code\":\"insufficient_quota\",\"message\":\"m\",\"param\":null}}\n\n";
    let r = lint_as(body.as_bytes(), None);
    assert_ne!(r.streams[0].dialect, Some(Dialect::Messages));
    // Nor is Chat's error object (no top-level `type`).
    let body = "data: {\"error\":{\"type\":\"server_error\",\"message\":\"m\"}}\n\n";
    let r = lint_as(body.as_bytes(), None);
    assert_ne!(r.streams[0].dialect, Some(Dialect::Messages));
}

/// Issue 25: `--dialect responses` forced on a Messages stream gave eight
/// errors and no hint that the stream looks like Anthropic Messages; any
/// forced dialect on another dialect's stream now says which it looks
/// like, and what to try.
#[test]
fn a_forced_dialect_on_another_dialects_stream_hints_at_the_right_one() {
    for (file, forced, looks, try_) in [
        (
            "samples/good/messages-text.sse",
            "responses",
            "Anthropic Messages (`message_start`)",
            "--dialect messages",
        ),
        (
            "samples/good/responses-text.sse",
            "messages",
            "OpenAI Responses (`response.created`)",
            "--dialect responses",
        ),
        (
            "samples/good/openai-basic.sse",
            "messages",
            "OpenAI Chat Completions (`chat.completion.chunk`)",
            "--dialect chat",
        ),
    ] {
        let out = assert_cmd::Command::cargo_bin("sselint")
            .unwrap()
            .current_dir(common::root())
            .args(["check", "--no-config", "--dialect", forced, file])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains(&format!("the events look like {looks}; try {try_}")),
            "{file} as {forced}:\n{text}"
        );
    }
    // Not forced, or forced right: no hint.
    for args in [
        vec!["check", "--no-config", "samples/good/messages-text.sse"],
        vec![
            "check",
            "--no-config",
            "--dialect",
            "messages",
            "samples/good/messages-text.sse",
        ],
    ] {
        let out = assert_cmd::Command::cargo_bin("sselint")
            .unwrap()
            .current_dir(common::root())
            .args(&args)
            .output()
            .unwrap();
        assert!(!String::from_utf8_lossy(&out.stdout).contains("look like"));
    }
}

/// Each dialect's counterparts (`Words::faults`, what `diff` pairs across
/// dialects) name rules of its own, each pair once. A fault has one rule
/// per dialect, except an ending that several rules report, each for its
/// own cause (Gemini's filtered finish and blocked prompt); a rule stands
/// for several faults only where the finish tells them apart.
#[test]
fn every_dialects_fault_rules_are_its_own_and_listed_once() {
    for d in sselint::dialect::ALL {
        let faults = d.words().faults;
        for (f, rule) in faults {
            let r = sselint::lint::catalogue()
                .get(rule)
                .unwrap_or_else(|| panic!("{d}: {rule} is no rule"));
            // A dialect that wraps another's events (Bedrock Invoke:
            // Messages) names that dialect's rules for what they report.
            assert!(
                r.dialect == Some(*d) || r.dialect == d.api().wraps(),
                "{d}: {rule} is not a {d} rule"
            );
            assert_eq!(
                faults.iter().filter(|p| p == &&(*f, *rule)).count(),
                1,
                "{d}: {f:?} {rule} listed twice"
            );
            // Two rules for one fault: the side's finish, or its ending
            // (a cut-off: ConverseStream's `converse-cut-off`, or
            // `converse-frame` for a body that ends inside a frame),
            // says which the fault is.
            if faults.iter().filter(|(g, _)| g == f).count() > 1 {
                assert!(
                    f.finish().is_some() || f.ending().is_some(),
                    "{d}: two rules for {f:?}"
                );
            }
            let others: Vec<_> = faults.iter().filter(|(g, r)| r == rule && g != f).collect();
            for (g, _) in others {
                let by_finish =
                    f.finish().is_some() && g.finish().is_some() && f.finish() != g.finish();
                assert!(
                    by_finish || f.ending() != g.ending(),
                    "{d}: {rule} stands for {f:?} and {g:?}, which no finish or ending tells apart"
                );
            }
        }
    }
    // Gemini has its own: its cut-off is Chat's cut-off.
    let gemini = sselint::dialect::Dialect::parse("gemini").unwrap();
    assert!(gemini
        .words()
        .faults
        .iter()
        .any(|(_, r)| *r == "gemini-cut-off"));
}
