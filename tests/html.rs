//! `--format html` in a real browser: pages are loaded by headless
//! Chromium (`chromium --dump-dom`) and the rendered DOM is checked: the
//! answer is there, each finding sits at its event, hostile capture text is
//! inert text (no element, no handler, no `javascript:` link), secrets
//! never reach the page, no request leaves it, and the filter script ran.
//!
//! Chromium is found as `SSELINT_CHROMIUM`, else `chromium`,
//! `chromium-browser` or `google-chrome` on PATH; without it the browser
//! tests say they did not run (and fail under CI=true). The snapshot and
//! size tests need no browser.

mod common;

use assert_cmd::Command;
use std::io::Read as _;
use std::path::{Path, PathBuf};

fn sselint() -> Command {
    let mut c = Command::cargo_bin("sselint").unwrap();
    c.current_dir(common::root());
    c
}

/// A scratch directory under the system temp dir, removed on drop.
struct Scratch(common::Scratch);

impl Scratch {
    fn new(name: &str) -> Self {
        Scratch(common::Scratch::new(&format!("html-{name}")))
    }
}

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("SSELINT_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// The browser, or `None` after saying the test did not run.
fn browser(test: &str) -> Option<PathBuf> {
    let b = chromium();
    if b.is_none() {
        common::not_run(
            test,
            "no chromium on PATH and SSELINT_CHROMIUM unset (apt-get install chromium)",
        );
    }
    b
}

/// The DOM of `page` after Chromium loaded it and ran its script.
fn dump_dom(chrome: &Path, page: &Path, scratch: &Path) -> String {
    let profile = scratch.join("profile");
    let out = std::process::Command::new(chrome)
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--no-first-run",
            "--disable-extensions",
            "--virtual-time-budget=2000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("the DOM is UTF-8")
}

/// Start tags in serialized HTML: (name, [(attribute, value)]). Text is
/// escaped in a serialized DOM, so every `<` starts markup.
fn tags(html: &str) -> Vec<(String, Vec<(String, String)>)> {
    let b = html.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(lt) = html[i..].find('<').map(|x| x + i) {
        i = lt + 1;
        if b.get(i).is_none_or(|c| !c.is_ascii_alphabetic()) {
            continue;
        }
        let name_end = html[i..]
            .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
            .map_or(html.len(), |x| x + i);
        let name = html[i..name_end].to_ascii_lowercase();
        let mut attrs = Vec::new();
        let mut j = name_end;
        loop {
            while j < b.len() && (b[j].is_ascii_whitespace() || b[j] == b'/') {
                j += 1;
            }
            if j >= b.len() || b[j] == b'>' {
                break;
            }
            let a_end = html[j..]
                .find(|c: char| c.is_whitespace() || c == '=' || c == '>')
                .map_or(html.len(), |x| x + j);
            let attr = html[j..a_end].to_ascii_lowercase();
            j = a_end;
            let mut value = String::new();
            if b.get(j) == Some(&b'=') {
                j += 1;
                let q = b[j];
                if q == b'"' || q == b'\'' {
                    let end = html[j + 1..]
                        .find(q as char)
                        .map_or(html.len(), |x| x + j + 1);
                    value = html[j + 1..end].to_string();
                    j = end + 1;
                } else {
                    let end = html[j..]
                        .find(|c: char| c.is_whitespace() || c == '>')
                        .map_or(html.len(), |x| x + j);
                    value = html[j..end].to_string();
                    j = end;
                }
            }
            attrs.push((attr, value));
        }
        i = j;
        out.push((name, attrs));
    }
    out
}

/// No element, attribute or link a capture could have smuggled in.
fn assert_inert(dom: &str) {
    let tags = tags(dom);
    assert!(!tags.is_empty());
    let scripts = tags.iter().filter(|(n, _)| n == "script").count();
    assert_eq!(scripts, 1, "only the page's own script");
    for (name, attrs) in &tags {
        assert!(
            !matches!(
                name.as_str(),
                "img" | "iframe" | "object" | "embed" | "link" | "base" | "audio" | "video"
            ),
            "a <{name}> element: {attrs:?}"
        );
        for (a, v) in attrs {
            assert!(!a.starts_with("on"), "<{name} {a}={v:?}>: an event handler");
            let v = v.trim().to_ascii_lowercase();
            assert!(
                !v.starts_with("javascript:") && !v.starts_with("data:") && !v.contains("://"),
                "<{name} {a}={v:?}>: a link off the page"
            );
        }
    }
}

/// A HAR whose stream is a catalogue of hostile text: markup in the
/// answer, the event name, a comment, a tool call, invalid JSON, a key in
/// the text and the URL, and links to `port` on this machine.
fn hostile_har(port: u16) -> String {
    let leak = format!("http://127.0.0.1:{port}/leak.png");
    let chunk = |delta: serde_json::Value, finish: serde_json::Value| {
        serde_json::json!({"id": "c1", "object": "chat.completion.chunk", "created": 1700000000,
            "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        .to_string()
    };
    let null = serde_json::Value::Null;
    let mut body = String::new();
    let mut push = |s: String| {
        body.push_str(&s);
        body.push_str("\n\n");
    };
    push(format!(
        "data: {}",
        chunk(
            serde_json::json!({"role": "assistant", "content": ""}),
            null.clone()
        )
    ));
    for text in [
        "<img src=x onerror=alert(1)>".to_string(),
        "</script><script>alert(2)</script>".to_string(),
        "\" onmouseover=\"alert(3)\" x=\"".to_string(),
        "<a href=\"javascript:alert(4)\">click</a>".to_string(),
        format!("<img src=\"{leak}\"><link rel=stylesheet href=\"{leak}\">"),
        " key sk-abcdefghijklmnopqrstuvwx end".to_string(),
    ] {
        push(format!(
            "data: {}",
            chunk(serde_json::json!({"content": text}), null.clone())
        ));
    }
    push(format!(
        "event: x\"><img src=x onerror=alert(7)>\ndata: {}",
        chunk(serde_json::json!({"content": "."}), null.clone())
    ));
    push(": <script>alert(8)</script>".to_string());
    push(format!("data: {{<iframe src=javascript:alert(9)> {leak}"));
    push(format!(
        "data: {}",
        chunk(
            serde_json::json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                "function": {"name": "\"><svg onload=alert(5)>", "arguments": "{\"u\":\"</script><script>alert(6)</script>\"}"}}]}),
            null.clone()
        )
    ));
    push(format!(
        "data: {}",
        chunk(serde_json::json!({}), serde_json::json!("stop"))
    ));
    push("data: [DONE]".to_string());
    serde_json::json!({"log": {"version": "1.2", "creator": {"name": "test", "version": "1"},
        "entries": [{
            "startedDateTime": "2024-01-01T00:00:00.000Z", "time": 100,
            "request": {"method": "POST",
                "url": format!("http://127.0.0.1:{port}/v1/chat/completions?api_key=SECRETKEY123&q=\"><img src=x onerror=alert(10)>"),
                "httpVersion": "HTTP/1.1", "headers": [{"name": "Authorization", "value": "Bearer sk-headersecretheadersecret"}],
                "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
            "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                "headers": [{"name": "content-type", "value": "text/event-stream"}], "cookies": [],
                "content": {"size": body.len(), "mimeType": "text/event-stream", "text": body},
                "redirectURL": "", "headersSize": -1, "bodySize": -1},
            "cache": {}, "timings": {"send": 1, "wait": 50, "receive": 49}}]}})
    .to_string()
}

#[test]
fn hostile_capture_renders_as_inert_text_and_loads_nothing() {
    let Some(chrome) = browser("hostile_capture_renders_as_inert_text_and_loads_nothing") else {
        return;
    };
    let scratch = Scratch::new("hostile");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let har = scratch.0.join("hostile.har");
    std::fs::write(&har, hostile_har(port)).unwrap();
    let page = scratch.0.join("hostile.html");
    sselint()
        .args(["inspect", "--format", "html", "-o"])
        .arg(&page)
        .arg(&har)
        .assert()
        .success();
    let html = std::fs::read_to_string(&page).unwrap();
    for secret in ["SECRETKEY123", "sk-abcdefghijklmnop", "headersecret"] {
        assert!(!html.contains(secret), "{secret} reached the page");
    }
    assert!(html.contains("http-equiv=\"Content-Security-Policy\""));
    assert!(html.contains("default-src 'none'"));
    let dom = dump_dom(&chrome, &page, &scratch.0);
    assert_inert(&dom);
    // The payloads are there, as text.
    for text in [
        "&lt;img src=x onerror=alert(1)&gt;",
        "&lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt;",
        "onmouseover=\"alert(3)\"",
        "&lt;a href=\"javascript:alert(4)\"&gt;click&lt;/a&gt;",
        "&lt;svg onload=alert(5)&gt;",
        "alert(6)",
        "x\"&gt;&lt;img src=x onerror=alert(7)&gt;",
        "&lt;script&gt;alert(8)&lt;/script&gt;",
        "&lt;iframe src=javascript:alert(9)&gt;",
    ] {
        assert!(dom.contains(text), "{text} is not on the page as text");
    }
    assert!(
        dom.contains("Content-Security-Policy"),
        "CSP meta in the DOM"
    );
    // The script ran (under that policy): the filters are shown.
    assert!(dom.contains("<form id=\"filters\" class=\"card filters\">"));
    // Nothing connected to the links the capture holds.
    match listener.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        Ok((mut s, _)) => {
            let mut req = String::new();
            let _ = s.read_to_string(&mut req);
            panic!("the page made a request: {req}");
        }
        Err(e) => panic!("{e}"),
    }
}

/// The DOM's rows for event `index` (its row and its findings' row).
fn event_rows(dom: &str, index: u64) -> &str {
    let start = format!("data-index=\"{index}\"");
    dom.split("<tr class=\"ev ")
        .find(|seg| {
            seg.split('>')
                .next()
                .is_some_and(|tag| tag.contains(&start))
        })
        .unwrap_or_else(|| panic!("no row for event {index}"))
}

#[test]
fn each_finding_is_shown_at_its_event_with_its_rule_docs() {
    let Some(chrome) = browser("each_finding_is_shown_at_its_event_with_its_rule_docs") else {
        return;
    };
    let scratch = Scratch::new("findings");
    for sample in [
        "samples/bad/invalid-json.sse",
        "samples/bad/content-after-finish.sse",
        "samples/bad/event-type.sse",
        "samples/bad/messages-delta-type.sse",
        "samples/good/openai-tool-calls.sse",
        "samples/har/chrome.har",
    ] {
        let page = scratch.0.join("page.html");
        sselint()
            .args(["inspect", sample, "--format", "html", "-o"])
            .arg(&page)
            .assert()
            .success();
        let dom = dump_dom(&chrome, &page, &scratch.0);
        assert_inert(&dom);
        let jsonl = sselint()
            .args(["inspect", sample, "--format", "jsonl"])
            .output()
            .unwrap();
        let records: Vec<serde_json::Value> = String::from_utf8(jsonl.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        for r in &records {
            match r["type"].as_str() {
                Some("event") => {
                    let index = r["index"].as_u64().unwrap();
                    for d in r["diagnostics"].as_array().unwrap() {
                        let rule = d["rule"].as_str().unwrap();
                        let rows = event_rows(&dom, index);
                        assert!(
                            rows.contains(&format!("data-rule=\"{rule}\"")),
                            "{sample}: {rule} not shown at event {index}"
                        );
                        assert!(rows.contains(&format!("href=\"#rule-{rule}\"")));
                        assert!(
                            dom.contains(&format!("<article class=\"rule\" id=\"rule-{rule}\">"))
                        );
                    }
                }
                Some("stream") => {
                    for c in r["choices"].as_array().unwrap() {
                        let text = c["text"].as_str().unwrap();
                        let first_line = text.lines().next().unwrap_or("");
                        let escaped = first_line
                            .replace('&', "&amp;")
                            .replace('<', "&lt;")
                            .replace('>', "&gt;");
                        assert!(
                            dom.contains(&escaped),
                            "{sample}: answer {first_line:?} missing"
                        );
                    }
                    for d in r["diagnostics"].as_array().unwrap() {
                        let rule = d["rule"].as_str().unwrap();
                        assert!(
                            dom.contains(&format!("data-rule=\"{rule}\"")),
                            "{sample}: {rule}"
                        );
                    }
                }
                _ => {}
            }
        }
        if sample.ends_with(".har") {
            assert!(
                dom.contains("<svg class=\"timeline\""),
                "{sample}: a timeline"
            );
            assert!(dom.contains("first content"));
        } else {
            assert!(
                !dom.contains("<svg"),
                "{sample}: no timeline without timings"
            );
            assert!(dom.contains("No timings"));
        }
    }
}

#[test]
fn check_over_several_inputs_has_an_index_of_verdicts() {
    let Some(chrome) = browser("check_over_several_inputs_has_an_index_of_verdicts") else {
        return;
    };
    let scratch = Scratch::new("check");
    let page = scratch.0.join("check.html");
    sselint()
        .args([
            "check",
            "samples/good/openai-basic.sse",
            "samples/bad/cut-off.sse",
            "samples/har/firefox.har",
            "samples/missing.sse",
            "--format",
            "html",
            "-o",
        ])
        .arg(&page)
        .assert()
        .code(2);
    let dom = dump_dom(&chrome, &page, &scratch.0);
    assert_inert(&dom);
    let index = dom
        .split("<table class=\"index\">")
        .nth(1)
        .and_then(|t| t.split("</table>").next())
        .expect("an index");
    assert!(index.contains("samples/good/openai-basic.sse</a>"));
    assert!(index.contains("<span class=\"verdict pass\">passes</span>"));
    assert!(index.contains("samples/bad/cut-off.sse</a>"));
    assert!(index.contains("<span class=\"verdict fail\">fails</span>"));
    assert!(index.contains("samples/missing.sse</a>"));
    assert!(index.contains("could not be read"));
    assert!(dom.contains("id=\"rule-cut-off\""));
}

#[test]
fn a_long_capture_gives_a_bounded_page_that_says_what_it_left_out() {
    let scratch = Scratch::new("long");
    let mut body = String::new();
    for i in 0..20_000 {
        body.push_str(&format!(
            "data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"w{i} \"}},\"finish_reason\":null}}]}}\n\n"
        ));
    }
    body.push_str("data: [DONE]\n\n");
    let cap = scratch.0.join("long.sse");
    std::fs::write(&cap, &body).unwrap();
    let page = scratch.0.join("long.html");
    sselint()
        .args(["inspect", "--format", "html", "-o"])
        .arg(&page)
        .arg(&cap)
        .assert()
        .success();
    let html = std::fs::read_to_string(&page).unwrap();
    let rows = html.matches("<tr class=\"ev ").count();
    assert_eq!(rows, 2000 + 200, "the first 2000 and the last 200 events");
    assert!(
        html.contains("17801 events left out"),
        "the note on what was left out"
    );
    assert!(html.contains("--format jsonl"));
    assert!(
        html.len() < body.len() * 2,
        "{} bytes for a {} byte capture",
        html.len(),
        body.len()
    );
}

#[test]
fn bad_input_is_a_clear_error_and_no_page() {
    let scratch = Scratch::new("bad");
    let page = scratch.0.join("out.html");
    sselint()
        .args([
            "inspect",
            "samples/does-not-exist.sse",
            "--format",
            "html",
            "-o",
        ])
        .arg(&page)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("sselint: error:"));
    assert!(!page.exists());
    // Never over an input.
    let cap = scratch.0.join("cap.sse");
    std::fs::copy(common::root().join("samples/good/openai-basic.sse"), &cap).unwrap();
    let before = std::fs::read(&cap).unwrap();
    sselint()
        .args(["inspect", "--format", "html", "-o"])
        .arg(&cap)
        .arg(&cap)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("would overwrite the capture"));
    sselint()
        .args(["check", "--format", "html", "-o"])
        .arg(&cap)
        .arg(&cap)
        .assert()
        .code(2);
    assert_eq!(std::fs::read(&cap).unwrap(), before);
}

#[test]
fn pages_are_stable() {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"sselint \d+\.\d+\.\d+[-.\w]*", "sselint [VERSION]");
    settings.add_filter(
        r"(?s)<style>.*?</style>",
        "<style>[CSS: templates/report.css]</style>",
    );
    settings.add_filter(
        r"(?s)<script>.*?</script>",
        "<script>[JS: templates/report.js]</script>",
    );
    settings.bind(|| {
        for (name, args) in [
            (
                "inspect-invalid-json",
                vec!["inspect", "samples/bad/invalid-json.sse"],
            ),
            (
                "inspect-chrome-har",
                vec!["inspect", "samples/har/chrome.har"],
            ),
            (
                "check-two",
                vec![
                    "check",
                    "samples/good/openai-tool-calls.sse",
                    "samples/bad/cut-off.sse",
                ],
            ),
        ] {
            let out = sselint()
                .args(&args)
                .args(["--format", "html"])
                .output()
                .unwrap();
            insta::assert_snapshot!(
                format!("html-{name}"),
                String::from_utf8(out.stdout).unwrap()
            );
        }
    });
}

/// `diff --format html` of `a` and `b` into `page`; the exit code.
fn diff_page(a: &str, b: &str, page: &Path) -> i32 {
    let out = sselint()
        .args(["diff", a, b, "--format", "html", "-o"])
        .arg(page)
        .output()
        .unwrap();
    assert!(out.stdout.is_empty(), "-o writes nothing to stdout");
    out.status.code().unwrap()
}

#[test]
fn diff_page_shows_the_word_diff_tool_calls_and_verdict() {
    let Some(chrome) = browser("diff_page_shows_the_word_diff_tool_calls_and_verdict") else {
        return;
    };
    let scratch = Scratch::new("diff");
    // Two answers that differ word by word.
    let page = scratch.0.join("text.html");
    assert_eq!(
        diff_page(
            "samples/diff/openai.sse",
            "samples/providers/groq.sse",
            &page
        ),
        1
    );
    let dom = dump_dom(&chrome, &page, &scratch.0);
    assert_inert(&dom);
    for w in ["tide", "rises", "twice"] {
        assert!(dom.contains(&format!("<del>{w}</del>")), "A's {w} deleted");
    }
    for w in ["inference", "latency"] {
        assert!(dom.contains(&format!("<ins>{w}</ins>")), "B's {w} inserted");
    }
    assert!(dom.contains("<span class=\"verdict fail\">not compatible</span>"));
    assert!(dom.contains("choice 0's text differs"));
    assert!(dom.contains("Neither stream called a tool."));
    assert!(dom.contains("No timings on either side"));
    // Tool calls side by side, compared as JSON.
    let page = scratch.0.join("tools.html");
    assert_eq!(
        diff_page(
            "samples/good/openai-tool-calls.sse",
            "samples/providers/gemini.sse",
            &page
        ),
        1
    );
    let dom = dump_dom(&chrome, &page, &scratch.0);
    assert_inert(&dom);
    assert_eq!(
        dom.matches("<code class=\"tool-name\">get_weather</code>")
            .count(),
        3,
        "two calls on A, one on B"
    );
    assert!(dom.contains("same name, arguments differ as JSON"));
    assert!(dom.contains("only in A"));
    assert!(
        dom.contains("\"city\": \"Paris\""),
        "arguments pretty-printed"
    );
    // Two timed captures: one time axis, a line and a TTFT marker each.
    let page = scratch.0.join("timed.html");
    diff_page(
        "samples/har/chrome.har",
        "samples/curl/curl-trace.txt",
        &page,
    );
    let dom = dump_dom(&chrome, &page, &scratch.0);
    assert_eq!(dom.matches("<svg class=\"timeline pair\"").count(), 1);
    assert!(dom.contains("<polyline class=\"series-a\""));
    assert!(dom.contains("<polyline class=\"series-b\""));
    assert!(dom.contains("A first content 438 ms"));
    assert!(dom.contains("B first content 260 ms"));
    // One side without timings: a plain note for it, the other's line.
    let page = scratch.0.join("half.html");
    diff_page("samples/har/chrome.har", "samples/diff/openai.sse", &page);
    let dom = dump_dom(&chrome, &page, &scratch.0);
    assert!(dom.contains("<polyline class=\"series-a\""));
    assert!(!dom.contains("<polyline class=\"series-b\""));
    assert!(dom.contains("No timings: a raw body has no arrival times"));
}

/// A Chat Completions stream whose answer is `text`.
fn chat_sse(text: &str) -> String {
    let chunk = |delta: serde_json::Value, finish: serde_json::Value| {
        let c = serde_json::json!({"id": "c1", "object": "chat.completion.chunk",
            "created": 1700000000, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        format!("data: {c}\n\n")
    };
    let null = serde_json::Value::Null;
    chunk(
        serde_json::json!({"role": "assistant", "content": ""}),
        null.clone(),
    ) + &chunk(serde_json::json!({"content": text}), null)
        + &chunk(serde_json::json!({}), serde_json::json!("stop"))
        + "data: [DONE]\n\n"
}

#[test]
fn hostile_diff_renders_as_inert_text() {
    let Some(chrome) = browser("hostile_diff_renders_as_inert_text") else {
        return;
    };
    let scratch = Scratch::new("hostile-diff");
    let a = scratch.0.join("a.sse");
    let b = scratch.0.join("b.sse");
    std::fs::write(&a, chat_sse("hello world")).unwrap();
    std::fs::write(
        &b,
        chat_sse("hello <img src=x onerror=alert(1)> </script><script>alert(2)</script>"),
    )
    .unwrap();
    let page = scratch.0.join("diff.html");
    assert_eq!(
        diff_page(a.to_str().unwrap(), b.to_str().unwrap(), &page),
        1
    );
    let dom = dump_dom(&chrome, &page, &scratch.0);
    assert_inert(&dom);
    assert!(dom.contains("&lt;img"), "{dom}");
    assert!(dom.contains("onerror=alert(1)&gt;"));
    assert!(dom.contains("&lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt;"));
    assert!(dom.contains("<del>world</del>"));
}

#[test]
fn diff_output_is_never_an_input() {
    let scratch = Scratch::new("diff-o");
    let cap = scratch.0.join("a.sse");
    std::fs::write(&cap, chat_sse("hello")).unwrap();
    let before = std::fs::read(&cap).unwrap();
    for format in ["html", "json", "human"] {
        sselint()
            .args(["diff", "samples/diff/openai.sse"])
            .arg(format!("{}#0", cap.display()))
            .args(["--format", format, "-o"])
            .arg(&cap)
            .assert()
            .code(2)
            .stderr(predicates::str::contains("would overwrite the capture"));
        assert_eq!(std::fs::read(&cap).unwrap(), before);
    }
    // Any format goes to the file, none to stdout.
    let out = scratch.0.join("d.json");
    sselint()
        .args([
            "diff",
            "samples/diff/openai.sse",
            "samples/diff/provider.sse",
        ])
        .args(["--format", "json", "-o"])
        .arg(&out)
        .assert()
        .code(1)
        .stdout("");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(v["compatible"], false);
}

#[test]
fn diff_page_is_stable() {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"sselint \d+\.\d+\.\d+[-.\w]*", "sselint [VERSION]");
    settings.add_filter(
        r"(?s)<style>.*?</style>",
        "<style>[CSS: templates/report.css, templates/diff.css]</style>",
    );
    settings.add_filter(
        r"(?s)<script>.*?</script>",
        "<script>[JS: templates/diff.js]</script>",
    );
    settings.bind(|| {
        let out = sselint()
            .args([
                "diff",
                "samples/har/chrome.har",
                "samples/curl/curl-trace.txt",
                "--format",
                "html",
            ])
            .output()
            .unwrap();
        insta::assert_snapshot!(
            "html-diff-chrome-curl",
            String::from_utf8(out.stdout).unwrap()
        );
    });
}

/// A Chat Completions chunk carrying `text`, as one SSE event.
fn chat_chunk(text: &str) -> String {
    let c = serde_json::json!({"id": "c1", "object": "chat.completion.chunk",
        "created": 1700000000, "model": "m",
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]});
    format!("data: {c}\n\n")
}

/// `inspect --format html` of `body` (written to `dir/name`): the page.
fn inspect_page(dir: &Path, name: &str, body: &str, extra: &[&str]) -> String {
    let cap = dir.join(name);
    std::fs::write(&cap, body).unwrap();
    let page = dir.join(format!("{name}.html"));
    sselint()
        .args(["inspect", "--format", "html", "-o"])
        .arg(&page)
        .arg(&cap)
        .args(extra)
        .assert()
        .success();
    std::fs::read_to_string(&page).unwrap()
}

#[test]
fn big_events_and_a_big_answer_are_cut_with_a_note() {
    // A fresh-user trial: 6 events of 15 MB gave a 91 MB page, the event
    // rows' "adds" cell holding all of it.
    let scratch = Scratch::new("big-events");
    let big = "x".repeat(2_000_000);
    let body = [big.as_str(), big.as_str(), big.as_str()]
        .iter()
        .map(|t| chat_chunk(t))
        .collect::<String>()
        + "data: [DONE]\n\n";
    let html = inspect_page(&scratch.0, "big.sse", &body, &[]);
    assert!(
        html.len() < 400_000,
        "{} bytes of page for {} bytes of capture",
        html.len(),
        body.len()
    );
    assert!(
        html.contains("more characters (the page shows 300)"),
        "adds cut"
    );
    assert!(html.contains("--format jsonl</code> shows all"), "data cut");
    assert!(
        html.contains("more characters of text: the page shows 20000"),
        "answer cut"
    );
}

#[test]
fn many_inputs_share_one_page_budget_and_the_top_says_what_was_left_out() {
    // A fresh-user trial: check over 20 × 1.2 MB HARs gave a 46 MB page.
    let scratch = Scratch::new("budget");
    let words = "word ".repeat(420);
    let body: String =
        (0..1000).map(|_| chat_chunk(&words)).collect::<String>() + "data: [DONE]\n\n";
    let mut args = vec!["check".to_string()];
    for i in 0..4 {
        let cap = scratch.0.join(format!("cap{i}.sse"));
        std::fs::write(&cap, &body).unwrap();
        args.push(cap.display().to_string());
    }
    let page = scratch.0.join("check.html");
    sselint()
        .args(&args)
        .args(["--format", "html", "-o"])
        .arg(&page)
        .assert()
        .code(1);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.len() < 9 * 1024 * 1024,
        "{} bytes of page for {} bytes of captures",
        html.len(),
        body.len() * 4
    );
    let header = html.split("</header>").next().unwrap();
    let left_out: usize = header
        .split("the events of ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no note at the top: {header}"));
    assert!((1..4).contains(&left_out), "{header}");
    assert!(
        header.contains("cap3.sse"),
        "the last stream is named: {header}"
    );
    // Each stream left out says so where its events would be.
    assert_eq!(html.matches("shows this stream's events").count(), left_out);
}

#[test]
fn every_event_with_a_finding_is_tagged_past_the_per_rule_limit() {
    // A fresh-user trial: past the 20 kept invalid-json findings, the
    // other events were tagged "no findings", so the filter lied.
    let scratch = Scratch::new("limit");
    let mut body = chat_chunk("a");
    for _ in 0..60 {
        body.push_str("data: {not json\n\n");
    }
    body.push_str(&format!(
        "data: {}\n\n",
        serde_json::json!({"id": "c1", "object": "chat.completion.chunk", "created": 1700000000,
            "model": "m", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    ));
    body.push_str("data: [DONE]\n\n");
    let html = inspect_page(&scratch.0, "limit.sse", &body, &[]);
    let tagged = html
        .lines()
        .filter(|l| {
            l.starts_with("<tr class=\"ev sev-error\"") && l.contains("data-kind=\"invalid\"")
        })
        .count();
    assert_eq!(tagged, 60, "every invalid-json event is tagged an error");
    assert_eq!(html.matches("past the per-rule limit (counted").count(), 40);
    // The header says the events left out, not only the table.
    let body: String = (0..3000)
        .map(|i| chat_chunk(&format!("w{i} ")))
        .collect::<String>()
        + "data: [DONE]\n\n";
    let html = inspect_page(&scratch.0, "long.sse", &body, &[]);
    let head = html.split("<h3>Timeline</h3>").next().unwrap();
    assert!(head.contains("801 events left out"), "{head}");
}

#[test]
fn findings_located_in_an_event_are_shown_at_it() {
    let Some(chrome) = browser("findings_located_in_an_event_are_shown_at_it") else {
        return;
    };
    let scratch = Scratch::new("located");
    // invalid-utf8 is found at the end of the stream, at byte 1152 (event
    // 3); cut-off at the end of the body, the end of event 8.
    for (sample, rule, event) in [
        ("samples/bad/invalid-utf8.sse", "invalid-utf8", 3),
        ("samples/bad/cut-off.sse", "cut-off", 8),
    ] {
        let page = scratch.0.join("page.html");
        sselint()
            .args(["inspect", sample, "--format", "html", "-o"])
            .arg(&page)
            .assert()
            .success();
        let dom = dump_dom(&chrome, &page, &scratch.0);
        let rows = event_rows(&dom, event);
        assert!(
            rows.contains(&format!("data-rule=\"{rule}\"")),
            "{sample}: {rule} not at event {event}"
        );
        assert!(rows.starts_with("sev-error"), "{sample}: the row is marked");
        assert!(
            !dom.contains("Findings about the whole stream"),
            "{sample}: listed as about the whole stream"
        );
    }
}

#[test]
fn the_no_timings_note_says_what_the_input_format_records() {
    let scratch = Scratch::new("no-timing");
    let har = "a HAR file records each request's total time";
    for (sample, want) in [
        ("samples/har/firefox.har", har),
        (
            "samples/good/openai-basic.sse",
            "a raw body has no arrival times",
        ),
        (
            "samples/bad/content-type.txt",
            "a curl -i or -v dump has no times",
        ),
    ] {
        let out = sselint()
            .args(["inspect", sample, "--format", "html"])
            .output()
            .unwrap();
        let html = String::from_utf8(out.stdout).unwrap().replace("&#39;", "'");
        assert!(html.contains(want), "{sample}: {want}");
        assert!(!html.contains("dump). A HAR export"), "{sample}");
    }
    // The diff page words it the same way.
    let page = scratch.0.join("diff.html");
    diff_page("samples/har/firefox.har", "samples/diff/openai.sse", &page);
    let html = std::fs::read_to_string(&page)
        .unwrap()
        .replace("&#39;", "'");
    assert!(html.contains(har));
    assert!(html.contains("a raw body has no arrival times"));
}

#[test]
fn inspect_takes_stall_ms_for_the_timeline() {
    let stalls = |extra: &[&str]| {
        let out = sselint()
            .args(["inspect", "samples/har/chrome.har", "--format", "html"])
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .unwrap()
            .matches("<rect class=\"stall\"")
            .count()
    };
    assert_eq!(stalls(&[]), 0, "no gap over 10 s");
    assert!(stalls(&["--stall-ms", "1"]) > 1, "each gap over 1 ms");
}

#[test]
fn small_things_a_trial_found() {
    let scratch = Scratch::new("small");
    // An empty capture's finding is at 1:1, as check says.
    let html = inspect_page(&scratch.0, "empty.sse", "", &[]);
    assert!(html.contains("line 1, column 1, byte 0"), "empty capture");
    assert!(!html.contains("line 0, column 0"));
    // The error names the flag used.
    let cap = scratch.0.join("x.sse");
    std::fs::copy(common::root().join("samples/good/openai-basic.sse"), &cap).unwrap();
    let out = sselint()
        .arg("check")
        .arg(&cap)
        .arg("--report")
        .arg(format!("html={}", cap.display()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--report html="), "{err}");
    assert!(!err.contains("-o "), "{err}");
    // A label near the right edge is anchored at its end.
    let out = sselint()
        .args(["inspect", "samples/bad/buffered.har", "--format", "html"])
        .output()
        .unwrap();
    let html = String::from_utf8(out.stdout).unwrap();
    assert!(
        html.contains("dx=\"-4\" dy=\"10\" text-anchor=\"end\">first content"),
        "buffered.har's first content label"
    );
    // Rule docs render `code`, not backticks.
    let out = sselint()
        .args([
            "inspect",
            "samples/bad/invalid-json.sse",
            "--format",
            "html",
        ])
        .output()
        .unwrap();
    let html = String::from_utf8(out.stdout).unwrap();
    let rules = html.split("<h2>Rules that fired</h2>").nth(1).unwrap();
    let prose: String = rules
        .split("<pre class=\"example\">")
        .enumerate()
        .map(|(i, p)| {
            if i == 0 {
                p
            } else {
                p.split("</pre>").nth(1).unwrap_or("")
            }
        })
        .collect();
    assert!(!prose.contains('`'), "raw backticks in the rule docs");
    assert!(prose.contains("<code>"));
    // Event names wrap at their separators, not mid-word.
    let out = sselint()
        .args([
            "inspect",
            "samples/bad/messages-delta-type.sse",
            "--format",
            "html",
        ])
        .output()
        .unwrap();
    let html = String::from_utf8(out.stdout).unwrap();
    assert!(html.contains("<td class=\"evname\">content_<wbr>block_<wbr>delta<wbr></td>"));
}
