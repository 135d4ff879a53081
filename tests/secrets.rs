//! Secrets never leave sselint: a HAR full of fake ones goes through every
//! command and format; `redact` writes a copy without them; and a copy with
//! the text scrubbed gets the same findings as the original.

mod common;
use assert_cmd::cargo::cargo_bin;
use common::*;
use serde_json::Value;
use std::process::Command;

const SECRETS: &[&str] = &[
    "sk-test-FAKESECRETKEY0123456789",
    "FAKECOOKIEVALUE42",
    "FAKEXAPIKEY99",
    "FAKEAPIKEYHEADER77",
    "FAKEPROXYAUTH55",
    "AIzaFAKEURLKEY31337",
    "FAKESETCOOKIE88",
];

/// chrome.har with fake secrets in every place a capture holds them.
fn secret_har(dir: &std::path::Path) -> std::path::PathBuf {
    let mut har: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("samples/har/chrome.har")).unwrap(),
    )
    .unwrap();
    let e = &mut har["log"]["entries"][3];
    e["request"]["url"] = Value::from(format!(
        "{}?key={}&stream=1",
        e["request"]["url"].as_str().unwrap(),
        SECRETS[5]
    ));
    let hs = e["request"]["headers"].as_array_mut().unwrap();
    hs.push(
        serde_json::json!({"name": "Authorization", "value": format!("Bearer {}", SECRETS[0])}),
    );
    hs.push(serde_json::json!({"name": "Cookie", "value": format!("session={}", SECRETS[1])}));
    hs.push(serde_json::json!({"name": "x-api-key", "value": SECRETS[2]}));
    hs.push(serde_json::json!({"name": "api-key", "value": SECRETS[3]}));
    hs.push(serde_json::json!({"name": "Proxy-Authorization", "value": format!("Basic {}", SECRETS[4])}));
    e["request"]["cookies"] = serde_json::json!([{"name": "session", "value": SECRETS[1]}]);
    e["response"]["headers"].as_array_mut().unwrap().push(
        serde_json::json!({"name": "Set-Cookie", "value": format!("sid={}; HttpOnly", SECRETS[6])}),
    );
    let body: Value =
        serde_json::from_str(e["request"]["postData"]["text"].as_str().unwrap()).unwrap();
    let mut body = body;
    body["user"] = Value::from(SECRETS[0]);
    e["request"]["postData"]["text"] = Value::from(body.to_string());
    let p = dir.join("secrets.har");
    std::fs::write(&p, serde_json::to_string_pretty(&har).unwrap()).unwrap();
    p
}

/// A HAR 1.2 document of one POST to a Chat Completions URL answered by
/// `body` as `text/event-stream`, with no headers or cookies to redact.
fn one_entry_har(body: &str) -> Value {
    serde_json::json!({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"},
        "entries": [{"startedDateTime": "2026-01-01T00:00:00Z", "time": 1,
            "request": {"method": "POST", "url": "https://api.example.com/v1/chat/completions",
                "httpVersion": "HTTP/1.1", "headers": [], "queryString": [], "cookies": [],
                "headersSize": -1, "bodySize": 0},
            "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                "headers": [{"name": "content-type", "value": "text/event-stream"}], "cookies": [],
                "content": {"size": body.len(), "mimeType": "text/event-stream", "text": body},
                "redirectURL": "", "headersSize": -1, "bodySize": -1},
            "cache": {}, "timings": {"send": 0, "wait": 0, "receive": 0}}]}})
}

fn scratch(name: &str) -> common::Scratch {
    common::Scratch::new(&format!("secrets-{name}"))
}

/// Runs `sselint ARGS… INPUT`: its output.
fn run_on<I, S>(args: I, input: impl AsRef<std::ffi::OsStr>) -> std::process::Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    Command::new(cargo_bin("sselint"))
        .args(args)
        .arg(input)
        .output()
        .unwrap()
}

/// Runs `sselint redact [--scrub-text] INPUT -o OUT`: its output.
fn redact(
    input: impl AsRef<std::ffi::OsStr>,
    out: impl AsRef<std::ffi::OsStr>,
    scrub: bool,
) -> std::process::Output {
    let mut c = Command::new(cargo_bin("sselint"));
    c.arg("redact");
    if scrub {
        c.arg("--scrub-text");
    }
    c.arg(input).arg("-o").arg(out).output().unwrap()
}

fn assert_clean(what: &str, text: &str) {
    for s in SECRETS {
        assert!(
            !text.contains(s),
            "{s} leaked in {what}:\n{}",
            &text[..text.len().min(3000)]
        );
    }
}

/// The run ended with a verdict, not a crash: exit `codes`, something on
/// stdout, no panic. A check for absent secrets proves nothing otherwise.
fn assert_ran(what: &str, out: &std::process::Output, codes: &[i32]) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code().is_some_and(|c| codes.contains(&c)),
        "{what}: exit {:?}, want one of {codes:?}: {stderr}",
        out.status.code()
    );
    assert!(
        !out.stdout.is_empty(),
        "{what}: no output; stderr: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
}

#[test]
fn no_format_of_any_command_prints_a_secret() {
    let dir = scratch("formats");
    let har = secret_har(&dir);
    let raw = std::fs::read_to_string(&har).unwrap();
    assert!(
        SECRETS.iter().all(|s| raw.contains(s)),
        "the fixture holds every secret"
    );
    let mut runs: Vec<(String, Vec<String>)> = Vec::new();
    for fmt in ["human", "json", "sarif", "junit", "github"] {
        runs.push((
            format!("check {fmt}"),
            vec!["check".into(), "-v".into(), "--format".into(), fmt.into()],
        ));
    }
    runs.push(("inspect".into(), vec!["inspect".into()]));
    runs.push((
        "inspect jsonl".into(),
        vec!["inspect".into(), "--format".into(), "jsonl".into()],
    ));
    for (what, args) in runs {
        let out = run_on(&args, &har);
        assert_ran(&what, &out, &[0, 1]);
        assert_clean(&what, &String::from_utf8_lossy(&out.stdout));
        assert_clean(&what, &String::from_utf8_lossy(&out.stderr));
    }
    let out = Command::new(cargo_bin("sselint"))
        .arg("diff")
        .arg(&har)
        .arg(&har)
        .output()
        .unwrap();
    assert_ran("diff", &out, &[0]);
    assert_clean("diff", &String::from_utf8_lossy(&out.stdout));
    assert_clean("diff", &String::from_utf8_lossy(&out.stderr));
    let base = dir.join("baseline.json");
    let st = Command::new(cargo_bin("sselint"))
        .args(["check", "--write-baseline"])
        .arg(&base)
        .arg(&har)
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(0), "{st:?}");
    let baseline = std::fs::read_to_string(&base).unwrap();
    assert!(baseline.contains("\"findings\""), "{baseline}");
    assert_clean("baseline", &baseline);
    // A HAR with no SSE entry lists its entries: URLs redacted there too.
    let out = run_on(["check", "--url-match", "nothing-matches"], &har);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("entries:"), "{stderr}");
    assert_clean("entry listing", &stderr);
}

#[test]
fn a_curl_dump_read_as_sse_still_hides_its_headers() {
    let dump = format!(
        "> POST /v1/chat/completions HTTP/1.1\n> Authorization: Bearer {}\n> Cookie: a={}\n< HTTP/1.1 200 OK\n< set-cookie: x={}\n\n{}",
        SECRETS[0],
        SECRETS[1],
        SECRETS[6],
        std::fs::read_to_string(root().join("samples/good/openai-basic.sse")).unwrap()
    );
    let dir = scratch("curlsse");
    let p = dir.join("dump.txt");
    std::fs::write(&p, dump).unwrap();
    for fmt in ["human", "json", "github"] {
        let out = run_on(
            ["check", "-v", "--input-format", "sse", "--format", fmt],
            &p,
        );
        assert_ran(fmt, &out, &[0, 1]);
        assert_clean(fmt, &String::from_utf8_lossy(&out.stdout));
        assert_clean(fmt, &String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn redact_writes_a_copy_without_secrets() {
    let dir = scratch("redact");
    let har = secret_har(&dir);
    let out = dir.join("shareable.har");
    let st = redact(&har, &out, false).status;
    assert!(st.success());
    let text = std::fs::read_to_string(&out).unwrap();
    assert_clean("redact output", &text);
    // Never over the input, never over an existing file without --force.
    let st = redact(&har, &har, false).status;
    assert_eq!(st.code(), Some(2));
    let st = redact(&har, &out, false).status;
    assert_eq!(st.code(), Some(2));
}

/// (rule, severity) of every finding, sorted, and the ending.
fn verdict(path: &std::path::Path) -> (Vec<(String, String)>, String, usize, bool) {
    let out = run_on(["check", "--format", "json", "--fail-on", "never"], path);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    let mut rules = Vec::new();
    let mut ending = String::new();
    let mut text_len = 0;
    let mut letters = false;
    for s in v["files"][0]["streams"].as_array().into_iter().flatten() {
        for d in s["diagnostics"].as_array().unwrap() {
            rules.push((
                d["rule"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
            ));
        }
        ending.push_str(s["ending"].as_str().unwrap());
        for c in s["choices"].as_array().unwrap() {
            let t = c["text"].as_str().unwrap();
            text_len += t.len();
            letters |= t.chars().any(|ch| ch.is_ascii_alphanumeric());
        }
    }
    rules.sort();
    (rules, ending, text_len, letters)
}

#[test]
fn a_scrubbed_capture_gets_the_same_findings_as_the_original() {
    let dir = scratch("scrub");
    let mut inputs = Vec::new();
    for d in ["good", "providers", "bad", "har", "curl", "diff"] {
        inputs.extend(samples(d));
    }
    for p in std::fs::read_dir(root().join("tests/cases"))
        .unwrap()
        .flatten()
    {
        if !p.path().to_string_lossy().ends_with(".json") {
            inputs.push(p.path());
        }
    }
    let mut compared = 0;
    for (i, input) in inputs.iter().enumerate() {
        if input.extension().is_some_and(|e| e == "md") || input.ends_with("har-no-sse.har") {
            continue;
        }
        let ext = input
            .extension()
            .map_or("sse".to_string(), |e| e.to_string_lossy().into_owned());
        let out = dir.join(format!("s{i}.{ext}"));
        let st = redact(input, &out, true).status;
        // A `.bin` that is AWS event-stream frames is rewritten frame by
        // frame; the others are compressed curl bodies.
        let frames = std::fs::read(input).is_ok_and(|b| sselint::redact::is_event_stream(&b));
        let unscrubbable = input.to_string_lossy().contains("trace")
            || input.extension().is_some_and(|e| e == "bin") && !frames;
        if unscrubbable {
            // Trace dumps, compressed bodies and AWS event streams are
            // refused, with exit 2.
            assert_eq!(st.code(), Some(2), "{}", input.display());
            continue;
        }
        assert!(st.success(), "{}", input.display());
        let (a, b) = (verdict(input), verdict(&out));
        assert_eq!((&a.0, &a.1, a.2), (&b.0, &b.1, b.2), "{}", input.display());
        if a.3 {
            let same = std::fs::read(input).unwrap() == std::fs::read(&out).unwrap();
            assert!(!same, "{}: the text was not scrubbed", input.display());
        }
        compared += 1;
    }
    assert!(compared > 100, "compared {compared}");
}

#[test]
fn redact_refuses_a_trace_dump_whose_hex_column_holds_every_byte() {
    let dir = scratch("trace");
    let out = dir.join("t.txt");
    let st = redact(root().join("samples/curl/curl-trace.txt"), &out, false);
    assert_eq!(st.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&st.stderr).contains("trace dump"));
    assert!(!out.exists());
}

/// A fresh-user trial (issue 37): a gateway's JSON Lines log was copied
/// line by line as text, so a SigV4 `Authorization` kept its access key id
/// and signature (only the scheme word was masked), and `Cookie: a=b` and
/// `X-Amz-Date` stayed, under "secrets redacted". Until redact rewrites a
/// log record by record, it refuses one and writes nothing.
#[test]
fn redact_refuses_a_gateway_log_rather_than_keep_its_headers() {
    let dir = scratch("gateway-log");
    let log = dir.join("gateway.jsonl");
    let record = serde_json::json!({
        "id": "a",
        "status": 200,
        "headers": {
            "Authorization": "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20250601/us-east-1/bedrock/aws4_request, SignedHeaders=host, Signature=fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024",
            "X-Amz-Date": "20250601T100000Z",
            "Cookie": "a=b"
        },
        "path": "/v1/chat/completions",
        "body": "data: {\"choices\":[]}\n\ndata: [DONE]\n\n"
    });
    std::fs::write(&log, format!("{record}\n")).unwrap();
    let out = dir.join("copy.jsonl");
    let st = redact(&log, &out, false);
    let stderr = String::from_utf8_lossy(&st.stderr);
    assert_eq!(st.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("gateway.jsonl") && stderr.contains("JSON Lines"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("AKIAIOSFODNN7EXAMPLE") && !stderr.contains("fe5f80f7"),
        "{stderr}"
    );
    assert!(!out.exists());
}

#[test]
fn stream_text_cannot_drive_the_terminal_in_diff_or_inspect() {
    let dir = scratch("esc");
    let body = std::fs::read_to_string(root().join("samples/good/openai-basic.sse"))
        .unwrap()
        .replacen(
            "\"content\":\"",
            "\"content\":\"\\u001b[31mRED\\u001b]0;t\\u0007\\u202e",
            2,
        );
    let p = dir.join("esc.sse");
    std::fs::write(&p, body).unwrap();
    for args in [
        vec![
            "diff".to_string(),
            p.to_string_lossy().into_owned(),
            root()
                .join("samples/good/openai-basic.sse")
                .to_string_lossy()
                .into_owned(),
        ],
        vec!["inspect".to_string(), p.to_string_lossy().into_owned()],
        vec![
            "check".to_string(),
            "-v".to_string(),
            p.to_string_lossy().into_owned(),
        ],
    ] {
        let out = Command::new(cargo_bin("sselint"))
            .args(&args)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert_ran(&format!("{args:?}"), &out, &[0, 1]);
        let text = String::from_utf8_lossy(&out.stdout);
        // The text is shown, with its control characters made visible.
        assert!(text.contains("RED"), "{args:?}:\n{text}");
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}') && !text.contains('\u{202e}'),
            "{args:?}:\n{text}"
        );
    }
}

/// A key quoted back in the stream's own data (an error event that echoes
/// the rejected key) is masked in `inspect --format jsonl` as in the table
/// and the human report (fresh-user trial: jsonl printed it raw).
#[test]
fn inspect_jsonl_masks_a_key_inside_the_event_data() {
    let dir = scratch("jsonl-key");
    let p = dir.join("echo.sse");
    std::fs::write(
        &p,
        "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"invalid x-api-key sk-ant-test-9990001112\"}}\n\n",
    )
    .unwrap();
    for format in ["jsonl", "table"] {
        let out = run_on(["inspect", "--format", format], &p);
        let text = String::from_utf8_lossy(&out.stdout);
        // The table shortens the data; the JSONL record holds all of it.
        if format == "jsonl" {
            assert!(text.contains("invalid x-api-key [REDACTED]"), "{text}");
        }
        assert!(!text.contains("sk-ant-test-9990001112"), "{format}: {text}");
    }
}

#[test]
fn inspect_jsonl_masks_keys_in_comments_event_names_ids_and_other_lines() {
    // A fresh-user trial: the JSONL records of a comment, an `event:` or
    // `id:` value and a line of another field printed a key as it came,
    // while every other output masked it.
    let dir = scratch("jsonl-comment-key");
    let p = dir.join("c.sse");
    std::fs::write(
        &p,
        ": proxy note key=AIzaSyD-FAKEKEY1234567890abcdefghijklmn\n\nevent: sk-proj-EVENTSECRET12345\nid: sk-proj-IDSECRET123456789\ndata: {\"id\":\"1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\nxx: sk-proj-LINESECRET12345678\n\ndata: [DONE]\n\n",
    )
    .unwrap();
    let out = run_on(["inspect", "--format", "jsonl"], &p);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\"type\":\"comment\""), "{text}");
    for secret in ["AIzaSyD-FAKEKEY", "EVENTSECRET", "IDSECRET", "LINESECRET"] {
        assert!(!text.contains(secret), "{secret}: {text}");
    }
    assert!(text.matches("[REDACTED]").count() >= 4, "{text}");
}

#[test]
fn scrub_text_masks_keys_before_it_scrubs_and_in_a_har_s_comment_lines() {
    // A fresh-user trial: with --scrub-text a key in a HAR body's comment
    // line survived, and a key in the answer came out scrubbed letter by
    // letter (its shape, or a permutation of it) instead of `[REDACTED]`.
    let dir = scratch("scrub-keys");
    let key = "AIzaSyD-FAKEKEY1234567890abcdefghijklmn";
    let sk = "sk-proj-Ab12Cd34Ef56Gh78Ij90";
    let body = format!(
        ": proxy note key={key}\n\ndata: {{\"id\":\"1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{{\"role\":\"assistant\",\"content\":\"the key is {sk} ok\"}},\"finish_reason\":\"stop\"}}]}}\n\ndata: [DONE]\n\n"
    );
    let har = one_entry_har(&body);
    let inputs = [
        ("c.har", serde_json::to_vec(&har).unwrap()),
        ("c.sse", body.clone().into_bytes()),
    ];
    for (name, bytes) in inputs {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        let out = dir.join(format!("out-{name}"));
        let run = redact(&p, &out, true);
        assert_ran(name, &run, &[0]);
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(
            !text.contains("FAKEKEY") && !text.contains("Ab12Cd34"),
            "{name}: {text}"
        );
        assert!(text.matches("[REDACTED]").count() >= 2, "{name}: {text}");
        assert!(!text.contains("the key is"), "{name}: prose kept: {text}");
    }
}

#[test]
fn redact_masks_a_har_s_form_params_and_page_titles() {
    // A fresh-user trial: `postData.params` kept a login's password and
    // an API key (while `postData.text` masked them), and a page title
    // that is its URL kept `?key=`.
    let dir = scratch("har-params");
    let body = std::fs::read_to_string(root().join("samples/good/openai-basic.sse")).unwrap();
    let mut har = one_entry_har(&body);
    har["log"]["pages"] = serde_json::json!([{"startedDateTime": "2026-01-01T00:00:00Z",
        "id": "page_1", "pageTimings": {},
        "title": "https://example.com/app?key=AIzaSyD-FAKEKEY1234567890abcdefghijklmn"}]);
    let e = &mut har["log"]["entries"][0];
    e["pageref"] = "page_1".into();
    e["request"]["postData"] = serde_json::json!({"mimeType": "application/x-www-form-urlencoded",
        "text": "user=jo&password=PWSECRET555&api_key=APIKEYSECRET666",
        "params": [{"name": "user", "value": "jo"},
            {"name": "password", "value": "PWSECRET555"},
            {"name": "api_key", "value": "APIKEYSECRET666"}]});
    let p = dir.join("login.har");
    std::fs::write(&p, serde_json::to_vec(&har).unwrap()).unwrap();
    for scrub in [false, true] {
        let out = dir.join(format!("out-{scrub}.har"));
        let run = redact(&p, &out, scrub);
        assert_ran("redact", &run, &[0]);
        let text = std::fs::read_to_string(&out).unwrap();
        for secret in ["PWSECRET555", "APIKEYSECRET666", "FAKEKEY"] {
            assert!(!text.contains(secret), "scrub {scrub}: {secret} in {text}");
        }
    }
}

#[test]
fn record_and_check_url_hide_a_secret_in_the_url_when_the_server_is_down() {
    let dir = scratch("url-down");
    let body = dir.join("request.json");
    std::fs::write(&body, r#"{"model":"m","messages":[]}"#).unwrap();
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url = format!(
        "http://alice:FAKEPROXYAUTH55@127.0.0.1:{port}/v1/chat/completions?key=AIzaFAKEURLKEY31337"
    );
    let r = dir.join("r.har");
    let body = body.to_str().unwrap();
    for args in [
        vec![
            "record",
            url.as_str(),
            "--body",
            body,
            "-o",
            r.to_str().unwrap(),
        ],
        vec!["check", url.as_str(), "--body", body],
    ] {
        let out = Command::new(cargo_bin("sselint"))
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("127.0.0.1"), "{args:?}: {text}");
        assert_clean(&format!("{args:?}"), &text);
    }
}

/// The string values of `key` in a raw SSE body's data lines.
fn values_of(body: &str, key: &str) -> Vec<String> {
    body.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .filter_map(|v| v.get(key)?.as_str().map(str::to_string))
        .collect()
}

#[test]
fn redact_scrubs_text_flat_unless_a_finding_needs_its_letters() {
    let dir = scratch("flat");
    let run = |input: &std::path::Path, out: &std::path::Path| {
        let o = redact(input, out, true);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    // A good stream: nothing of the text is left but x, X, 0 and what is
    // not a letter or digit; no note.
    let good = root().join("samples/good/responses-basic.sse");
    let out = dir.join("flat.sse");
    let err = run(&good, &out);
    assert!(!err.contains("letter patterns"), "{err}");
    let body = std::fs::read_to_string(&out).unwrap();
    let texts: Vec<String> = ["delta", "text"]
        .iter()
        .flat_map(|k| values_of(&body, k))
        .collect();
    assert!(texts.iter().any(|t| t.contains("xxx")), "{texts:?}");
    for t in &texts {
        assert!(
            t.chars()
                .all(|c| matches!(c, 'x' | 'X' | '0') || !c.is_alphanumeric()),
            "{t}"
        );
    }
    // The done text differs from the deltas by one letter: with every
    // letter as x the finding would be gone, so the letters are permuted,
    // the note says so, and the finding stays.
    let original = std::fs::read_to_string(&good).unwrap();
    let changed = original.replacen(
        r#""type":"response.output_text.done","sequence_number":14,"item_id":"msg_0a51e7c2f4d84e0b9c3a6d1f2e7b8c91","output_index":0,"content_index":0,"text":"Low tide"#,
        r#""type":"response.output_text.done","sequence_number":14,"item_id":"msg_0a51e7c2f4d84e0b9c3a6d1f2e7b8c91","output_index":0,"content_index":0,"text":"Low tido"#,
        1,
    );
    assert_ne!(changed, original);
    let input = dir.join("one-letter.sse");
    std::fs::write(&input, changed).unwrap();
    let out = dir.join("kept.sse");
    let err = run(&input, &out);
    assert!(
        err.contains("letter patterns") && err.contains("responses-delta-mismatch"),
        "{err}"
    );
    let (a, b) = (verdict(&input), verdict(&out));
    assert!(
        a.0.iter().any(|(r, _)| r == "responses-delta-mismatch"),
        "{a:?}"
    );
    assert_eq!(a.0, b.0);
    let body = std::fs::read_to_string(&out).unwrap();
    assert!(!body.contains("Low tide") && !body.contains("Low tido"));
}

/// Found by a fresh-user trial: text that is not JSON (a data value, an
/// HTML or plain-text body) passed `--scrub-text` verbatim.
#[test]
fn redact_scrubs_text_that_is_not_json() {
    let dir = scratch("plain");
    let cases: [(&str, &str, &[&str]); 3] = [
        (
            "plain.sse",
            "data: The capital\n\ndata:  Paris, PRIVATEANSWER.\n\ndata: Internal Server Error: PRIVATEPROMPT was too long\n\ndata: [DONE]\n\n",
            &["capital", "Paris", "PRIVATEANSWER", "Internal", "PRIVATEPROMPT"],
        ),
        (
            "page.sse",
            "<html><body>Gateway timeout PRIVATE</body></html>\n",
            &["Gateway", "PRIVATE", "html"],
        ),
        ("hello.sse", "Hello PRIVATE 1234\nmore\n", &["Hello", "PRIVATE", "1234", "more"]),
    ];
    for (name, body, words) in cases {
        let input = dir.join(name);
        std::fs::write(&input, body).unwrap();
        let out = dir.join(format!("out-{name}"));
        let o = redact(&input, &out, true);
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let text = std::fs::read_to_string(&out).unwrap();
        assert_eq!(text.len(), body.len(), "{name}: {text}");
        for w in words {
            assert!(!text.contains(w), "{name}: {w} kept: {text}");
        }
        if name == "plain.sse" {
            assert!(text.contains("data: [DONE]"), "{text}");
        }
    }
}

/// Found by a fresh-user trial: an error message quoting the prompt and
/// an `x-api-key: …` pair passed `redact --scrub-text`; without
/// `--scrub-text` the key still goes.
#[test]
fn redact_scrubs_error_messages_and_masks_secret_pairs() {
    let dir = scratch("errmsg");
    let body = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Your prompt PRIVATEPROMPT was rejected, x-api-key: abcdef0123456789SECRETVAL used; api_key=zzSECRET2zz\"}}\n\n";
    let input = dir.join("err.sse");
    std::fs::write(&input, body).unwrap();
    for (scrub, words) in [
        (true, &["PRIVATEPROMPT", "SECRETVAL", "SECRET2"][..]),
        (false, &["SECRETVAL", "SECRET2"][..]),
    ] {
        let out = dir.join(format!("out-{scrub}.sse"));
        let o = redact(&input, &out, scrub);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = std::fs::read_to_string(&out).unwrap();
        for w in words {
            assert!(!text.contains(w), "{w} kept: {text}");
        }
        assert!(text.contains("api_error"), "{text}");
        assert_eq!(text.contains("PRIVATEPROMPT"), !scrub, "{text}");
    }
}

/// Found by a helper: without --scrub-text, `redact` masked the headers of
/// a HAR but left an `sk-…` key in its response text (a raw body's was
/// masked).
#[test]
fn redact_masks_a_key_in_a_hars_response_text() {
    let dir = scratch("har-body-key");
    let mut h: Value = serde_json::from_slice(
        &std::fs::read(root().join("samples/bad/usage-missing.har")).unwrap(),
    )
    .unwrap();
    let key = "sk-proj-LEAKYKEY1234567890abcd";
    let text = h["log"]["entries"][0]["response"]["content"]["text"]
        .as_str()
        .unwrap()
        .replacen(r#""content":""#, &format!(r#""content":"{key} "#), 1);
    assert!(text.contains(key));
    h["log"]["entries"][0]["response"]["content"]["text"] = Value::String(text);
    h["log"]["entries"][0]["_eventSourceMessages"] = serde_json::json!([{"type": "message", "time": 0.1, "data": format!("{{\"note\":\"{key}\"}}")}]);
    let input = dir.join("in.har");
    std::fs::write(&input, serde_json::to_vec(&h).unwrap()).unwrap();
    let out = dir.join("out.har");
    let st = redact(&input, &out, false).status;
    assert!(st.success());
    let saved = std::fs::read_to_string(&out).unwrap();
    assert!(!saved.contains("LEAKYKEY"), "{saved}");
    assert!(saved.contains("[REDACTED]"));
    // The rest of the answer stays.
    assert_eq!(verdict(&input).0, verdict(&out).0);
}

/// Found by a fresh-user trial: redact copied a UTF-16 file, and the
/// compressed body of a curl dump, unread, keys and all, and said
/// "secrets redacted". Both are refused now, and nothing is written.
#[test]
fn redact_refuses_what_it_cannot_read_instead_of_copying_secrets() {
    use std::io::Write as _;
    let dir = scratch("redact-unreadable");
    let har = std::fs::read_to_string(root().join("samples/har/har-secrets.har")).unwrap();
    // UTF-16 with a byte-order mark, and little-endian without one.
    let mut bom = vec![0xFF, 0xFE];
    let mut plain = Vec::new();
    for u in har.encode_utf16() {
        bom.extend_from_slice(&u.to_le_bytes());
        plain.extend_from_slice(&u.to_le_bytes());
    }
    // A curl -i dump whose gzip body quotes a key.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b"{\"error\":{\"message\":\"Incorrect API key provided: sk-proj-GZLEAK0123456789abcdefghijkl\"}}")
        .unwrap();
    let body = gz.finish().unwrap();
    let mut dump = format!(
        "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-encoding: gzip\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    dump.extend_from_slice(&body);
    for (name, bytes, says) in [
        ("bom.har", bom, "UTF-16"),
        ("plain.har", plain, "UTF-16LE without a byte-order mark"),
        ("gzip.txt", dump, "the body is compressed"),
    ] {
        let input = dir.join(name);
        std::fs::write(&input, &bytes).unwrap();
        let out = dir.join(format!("out-{name}"));
        let o = redact(&input, &out, false);
        assert_eq!(o.status.code(), Some(2), "{name}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(says), "{name}: {err}");
        assert!(!out.exists(), "{name}: a copy was written");
    }
}

/// A key in the answer's own text (a model or an error quoting it) is
/// masked in every report of every command, the answer line and the JSON's
/// choice text included (a fresh-user trial found it plain in the human
/// answer line, `check --format json`, the `inspect` jsonl stream record
/// and `diff --format json`).
#[test]
fn a_key_in_the_answer_text_is_masked_in_every_report() {
    let dir = scratch("answer-key");
    let key = "sk-proj-abcdefghijklmnop0123456789XYZ";
    let chunk = common::chat_chunk;
    let a = dir.join("a.sse");
    std::fs::write(
        &a,
        chunk(&format!("your key {key} is over quota"), "null")
            + &chunk("", "\"stop\"")
            + "data: [DONE]\n\n",
    )
    .unwrap();
    let b = dir.join("b.sse");
    std::fs::write(
        &b,
        chunk("another answer", "null") + &chunk("", "\"stop\"") + "data: [DONE]\n\n",
    )
    .unwrap();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let mut runs: Vec<Vec<&str>> = Vec::new();
    for f in ["human", "json", "sarif", "junit", "github", "html", "jsonl"] {
        runs.push(vec!["check", a, "--format", f]);
    }
    for f in ["human", "jsonl", "html"] {
        runs.push(vec!["inspect", a, "--format", f]);
    }
    for f in ["human", "json", "html"] {
        runs.push(vec!["diff", a, b, "--format", f]);
    }
    for args in &runs {
        let out = Command::new(cargo_bin("sselint"))
            .args(args)
            .output()
            .unwrap();
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !all.contains("abcdefghijklmnop"),
            "{args:?} printed the key:\n{all}"
        );
        assert!(!out.stdout.is_empty(), "{args:?} printed nothing");
    }
}

/// A key masked in a HAR body shortens it: `content.size` follows, so the
/// copy is not taken for a truncated capture and gets the original's
/// findings (a fresh-user trial: a complete stream's copy gained a
/// `capture-truncated` warning; a cut one lost its `cut-off` error).
#[test]
fn redact_keeps_a_har_s_content_size_in_step_with_its_masked_body() {
    let dir = scratch("har-size");
    let key = "sk-proj-abcdefghijklmnop0123456789XYZ";
    let chunk = common::chat_chunk;
    let whole = chunk(&format!("key {key} over quota"), "null")
        + &chunk("", "\"stop\"")
        + "data: [DONE]\n\n";
    let cut = chunk(&format!("key {key} over quota"), "null");
    for (name, body, want) in [("whole", whole, 0), ("cut", cut, 1)] {
        let har = common::one_entry_har(serde_json::json!({"size": body.len(), "text": body}), &[]);
        let input = dir.join(format!("{name}.har"));
        std::fs::write(&input, har.to_string()).unwrap();
        let copy = dir.join(format!("{name}.copy.har"));
        let out = redact(&input, &copy, false);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let rules = |p: &std::path::Path| -> (Option<i32>, Vec<String>) {
            let out = run_on(["check", "--format", "json"], p);
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            let rules = v["files"][0]["streams"][0]["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d["rule"].as_str().unwrap().to_string())
                .collect();
            (out.status.code(), rules)
        };
        let (code, original) = rules(&input);
        assert_eq!(
            original.iter().any(|r| r == "cut-off"),
            want == 1,
            "{name}: {original:?}"
        );
        assert!(
            !original.iter().any(|r| r == "capture-truncated"),
            "{name}: {original:?}"
        );
        assert_eq!(rules(&copy), (code, original.clone()), "{name}");
        assert!(!std::fs::read_to_string(&copy)
            .unwrap()
            .contains("abcdefghij"));
    }
}

/// A raw body that is one JSON document (a non-streamed error echoing the
/// request) keeps its shape when a member's name says secret: the values
/// are masked inside their quotes, and the rest of the line stays (a
/// fresh-user trial: `{"api_key": [REDACTED]` and nothing after it).
#[test]
fn redact_masks_a_json_body_s_secret_members_and_keeps_the_document() {
    let dir = scratch("json-members");
    let input = dir.join("error.json");
    std::fs::write(
        &input,
        "{\"api_key\":\"abcdefgh12345678\",\"token\": \"xyz1234567890abc\",\"model\":\"m\"}\n",
    )
    .unwrap();
    let copy = dir.join("copy.json");
    let out = redact(&input, &copy, false);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&copy).unwrap();
    let v: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(v["model"], "m", "{text}");
    assert_eq!(v["api_key"], "[REDACTED]", "{text}");
    assert_eq!(v["token"], "[REDACTED]", "{text}");
}

/// A Bearer token is masked whatever its shape: one without digits (a
/// JWT's letters and dots, an opaque token) quoted in the answer, in an
/// error message after another header's name, and sent in a HAR's
/// `Authorization` header, through every format of check and inspect.
#[test]
fn a_bearer_token_of_any_shape_is_masked_in_every_format() {
    let dir = scratch("bearer");
    let tokens = [
        "eyJhbGciOiJIUzI1NiJ9FAKE.payloadFAKE.sigFAKE",
        "OpaqueBearerFakeTokenValue",
        "ya29.FakeGoogleAccessTokenValue",
    ];
    let chunk = |delta: &str| {
        format!(
            "data: {{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{delta},\"finish_reason\":null}}]}}\n\n"
        )
    };
    let body = [
        chunk(&format!(
            "{{\"role\":\"assistant\",\"content\":\"Send curl -H 'Authorization: Bearer {}' to it\"}}",
            tokens[0]
        )),
        chunk(&format!(
            "{{\"content\":\" or the header bearer {} instead.\"}}",
            tokens[1]
        )),
        format!(
            "data: {{\"error\":{{\"message\":\"Invalid Authorization header: Bearer {} was rejected\"}}}}\n\n",
            tokens[2]
        ),
    ]
    .concat();
    let sse = dir.join("bearer.sse");
    std::fs::write(&sse, &body).unwrap();
    let mut har = one_entry_har(&body);
    har["log"]["entries"][0]["request"]["headers"] = serde_json::json!([
        {"name": "Authorization", "value": format!("Bearer {}", tokens[1])}
    ]);
    let har_path = dir.join("bearer.har");
    std::fs::write(&har_path, har.to_string()).unwrap();
    for input in [&sse, &har_path] {
        let mut runs: Vec<Vec<&str>> = Vec::new();
        for fmt in ["human", "json", "sarif", "junit", "github", "html", "jsonl"] {
            runs.push(vec!["check", "-v", "--format", fmt]);
        }
        for fmt in ["table", "jsonl", "html"] {
            runs.push(vec!["inspect", "--format", fmt]);
        }
        for args in runs {
            let out = run_on(&args, input);
            let what = format!("{} {}", args.join(" "), input.display());
            assert_ran(&what, &out, &[0, 1]);
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            for t in tokens {
                assert!(!text.contains(t), "{t} leaked in {what}");
            }
        }
    }
}

/// A live URL given to a command that reads files names the URL with its
/// key masked, and says where a URL is read.
#[test]
fn a_url_given_to_a_file_command_is_named_with_its_key_masked() {
    let dir = scratch("url-not-file");
    let key = "AIzaSyFileCommandUrlKey0123456789";
    let url = format!("http://127.0.0.1:9/v1beta/models/m:streamGenerateContent?alt=sse&key={key}");
    let out_har = dir.join("out.har");
    let out_har = out_har.to_str().unwrap();
    let runs: Vec<Vec<&str>> = vec![
        vec!["inspect", &url],
        vec!["diff", &url, "samples/good/gemini-basic.sse"],
        vec!["redact", &url, "-o", out_har],
        vec!["minimize", &url, "-o", out_har],
        vec!["replay", &url, "--listen", "127.0.0.1:0"],
    ];
    for args in runs {
        let out = Command::new(cargo_bin("sselint"))
            .current_dir(root())
            .args(&args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(!err.contains(key), "{args:?}: {err}");
        assert!(err.contains("key=[REDACTED]"), "{args:?}: {err}");
        assert!(err.contains("sselint check"), "{args:?}: {err}");
    }
}

/// Found by the trial of issue 40 (finding 2): a secret value with no
/// digit was kept (`password: CorrectHorseBattery`, `x-api-key: abc…`,
/// `token=abc…`, `Authorization: Basic dXNlcjpwYXNz`), and `session`,
/// `SESSION=` and `session_id=` were never masked, though the docs list
/// "session". Each is masked now, by `redact` and in every report, while
/// the prose around them and a count's name (`total_tokens`) stay.
#[test]
fn secret_values_without_digits_and_session_ids_are_masked() {
    let dir = scratch("no-digit-secrets");
    let values = [
        "CorrectHorseBattery",
        "abcdefghijklmnop",
        "qrstuvwxyzabcdef",
        "dXNlcjpwYXNz",
        "sessionvalueupper",
        "sessionidvalue",
        "jsonsessionvalue",
    ];
    let message = format!(
        "Rejected: password: {}, x-api-key: {}, token={}, Authorization: Basic {}, SESSION={}; session_id={}, total_tokens: unlimited",
        values[0], values[1], values[2], values[3], values[4], values[5]
    );
    let body = format!(
        "data: {{\"error\":{{\"message\":\"{message}\",\"session\":\"{}\"}}}}\n\n",
        values[6]
    );
    let input = dir.join("err.sse");
    std::fs::write(&input, &body).unwrap();
    let out = dir.join("out.sse");
    let o = redact(&input, &out, false);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let saved = std::fs::read_to_string(&out).unwrap();
    for v in values {
        assert!(!saved.contains(v), "{v} kept: {saved}");
    }
    // The words around them stay: only the values go.
    assert!(saved.contains("Rejected: password: [REDACTED]"), "{saved}");
    assert!(saved.contains("Authorization: Basic [REDACTED]"), "{saved}");
    assert!(saved.contains("total_tokens: unlimited"), "{saved}");
    for args in [
        &["check", "-v"][..],
        &["check", "--format", "json"],
        &["inspect"],
    ] {
        let o = run_on(args, &input);
        let what = args.join(" ");
        assert_ran(&what, &o, &[0, 1]);
        let text = String::from_utf8_lossy(&o.stdout);
        for v in values {
            assert!(!text.contains(v), "{v} leaked in {what}: {text}");
        }
    }
}
