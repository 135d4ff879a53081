//! Found by the trial of issue 40 (its findings 1–16): each was a failing
//! test first, then the fix.

mod common;
use common::*;

/// A sample's events (blank-line separated blocks), and the blank line
/// that separates them (`\n\n`, or Gemini's `\r\n\r\n`).
fn blocks(sample: &str) -> (Vec<String>, &'static str) {
    let text = std::fs::read_to_string(root().join("samples").join(sample))
        .unwrap_or_else(|e| panic!("{sample}: {e}"));
    let sep = if text.contains("\r\n\r\n") {
        "\r\n\r\n"
    } else {
        "\n\n"
    };
    let bs = text
        .split(sep)
        .filter(|b| !b.trim().is_empty())
        .map(str::to_string)
        .collect();
    (bs, sep)
}

/// `block` with the first non-empty string value after `key` (`"content":"`
/// with its quote) replaced by `value` (which needs no escaping); `None`
/// when it has none.
fn set_value(block: &str, key: &str, value: &str) -> Option<String> {
    let at = block.find(key)? + key.len();
    let end = at + block[at..].find('"')?;
    (end > at).then(|| format!("{}{value}{}", &block[..at], &block[end..]))
}

/// Words `w0 w1 …` of about `bytes` bytes, the last one `last`.
fn long_text(bytes: usize, last: &str) -> String {
    let mut s = String::new();
    let mut k = 0;
    while s.len() < bytes {
        s.push_str(&format!("w{k} "));
        k += 1;
    }
    s.push_str(last);
    s
}

/// A good sample whose answer is `text`: its text deltas (found by `key`,
/// empty ones left alone) carry `text` in as many pieces, and `whole`, the
/// sample's full answer where events repeat it (Responses), becomes `text`.
fn with_answer(sample: &str, key: &str, whole: Option<&str>, text: &str) -> Vec<u8> {
    let (bs, sep) = blocks(sample);
    let n = bs
        .iter()
        .filter(|b| set_value(b, key, "x").is_some())
        .count();
    assert!(
        n > 1,
        "{sample}: no text deltas under {key}: {n} of {}",
        bs.len()
    );
    let step = text.len().div_ceil(n);
    let mut k = 0;
    let mut out = String::new();
    for b in bs {
        let mut b = match set_value(&b, key, "x") {
            Some(_) => {
                let piece = &text[(k * step).min(text.len())..((k + 1) * step).min(text.len())];
                k += 1;
                set_value(&b, key, piece).unwrap()
            }
            None => b,
        };
        if let Some(w) = whole {
            b = b.replace(w, text);
        }
        out.push_str(&b);
        out.push_str(sep);
    }
    out.into_bytes()
}

/// Each dialect's good sample: the key of its text deltas, and the full
/// answer where events repeat it.
const LONG: &[(&str, &str, Option<&str>)] = &[
    ("good/openai-basic.sse", "\"content\":\"", None),
    (
        "good/responses-basic.sse",
        "\"delta\":\"",
        Some("Low tide comes about six hours after high tide."),
    ),
    ("good/messages-basic.sse", "\"text\":\"", None),
    ("good/gemini-basic.sse", "\"text\": \"", None),
];

#[test]
fn finding_1_diff_compares_answers_past_the_first_mib() {
    let dir = scratch("trial40-long-diff");
    for (sample, key, whole) in LONG {
        let a = dir.join("a.sse");
        let b = dir.join("b.sse");
        let same = dir.join("same.sse");
        // 1.1 MB answers that differ only in their last word.
        std::fs::write(
            &a,
            with_answer(sample, key, *whole, &long_text(1_150_000, "end")),
        )
        .unwrap();
        std::fs::write(
            &same,
            with_answer(sample, key, *whole, &long_text(1_150_000, "end")),
        )
        .unwrap();
        std::fs::write(
            &b,
            with_answer(sample, key, *whole, &long_text(1_150_000, "END")),
        )
        .unwrap();
        let (code, out, err) = sselint(&["diff", a.to_str().unwrap(), b.to_str().unwrap()]);
        assert_eq!(code, Some(1), "{sample}: {out}{err}");
        assert!(out.contains("text differs"), "{sample}: {out}");
        // The report says where the shown text stops.
        assert!(out.contains("past the first 1 MiB"), "{sample}: {out}");
        let (code, out, err) = sselint(&["diff", a.to_str().unwrap(), same.to_str().unwrap()]);
        assert_eq!(code, Some(0), "{sample}: {out}{err}");
        // JSON: the text diff says the texts were compared past what it shows.
        let (_, out, _) = sselint(&[
            "diff",
            "--format",
            "json",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
        ]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let td = &v["text_diffs"][0];
        let whole = long_text(1_150_000, "end").len();
        assert_eq!(td["a_bytes"].as_u64(), Some(whole as u64), "{sample}: {td}");
        assert!(
            td["a_shown_bytes"].as_u64().unwrap() <= 1 << 20,
            "{sample}: {td}"
        );
        // HTML: the word diff says the same under it.
        let (_, out, _) = sselint(&[
            "diff",
            "--format",
            "html",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
        ]);
        assert!(
            out.contains("compared whole, by length and hash"),
            "{sample}"
        );
    }
}

#[test]
fn finding_1_a_shortened_answer_says_so_in_every_report() {
    let dir = scratch("trial40-long-reports");
    for (sample, key, whole) in LONG {
        let a = dir.join("a.sse");
        std::fs::write(
            &a,
            with_answer(sample, key, *whole, &long_text(1_150_000, "end")),
        )
        .unwrap();
        let a = a.to_str().unwrap();
        // inspect: the text stops at 1 MiB and says so.
        let (_, out, _) = sselint(&["inspect", a]);
        assert!(
            out.contains("more bytes not kept"),
            "{sample}: {}",
            &out[out.len().saturating_sub(600)..]
        );
        // inspect --format jsonl: the stream record counts them.
        let (_, out, _) = sselint(&["inspect", "--format", "jsonl", a]);
        let stream = out
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .find(|v| v["type"] == "stream")
            .unwrap();
        let omitted = stream["choices"][0]["text_omitted_bytes"]
            .as_u64()
            .unwrap_or(0);
        assert!(
            omitted > 0,
            "{sample}: {}",
            stream["choices"][0]["text_omitted_bytes"]
        );
        // check --format json: the same count.
        let (_, out, _) = sselint(&["check", "--format", "json", a]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            v["files"][0]["streams"][0]["choices"][0]["text_omitted_bytes"].as_u64(),
            Some(omitted),
            "{sample}"
        );
    }
}
/// The `ending` of a file's first stream in `check --format json`.
fn ending_of(path: &str) -> String {
    let (_, out, err) = sselint(&["check", "--format", "json", path]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
    v["files"][0]["streams"][0]["ending"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

#[test]
fn finding_4_a_mid_stream_error_ends_every_dialect_as_failed() {
    for sample in [
        "error-event",
        "messages-error-event",
        "gemini-error-event",
        "responses-error-event",
    ] {
        let p = root().join(format!("samples/bad/{sample}.sse"));
        assert_eq!(ending_of(p.to_str().unwrap()), "failed", "{sample}");
    }
    // Across dialects, the same error on both sides is no ending apart.
    let a = root().join("samples/bad/error-event.sse");
    let b = root().join("samples/bad/messages-error-event.sse");
    let (code, out, err) = sselint(&[
        "diff",
        "--ignore-text",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert!(!out.contains("ending differs"), "{out}{err}");
    assert!(!out.contains("cut-off"), "{out}{err}");
    assert_eq!(code, Some(0), "{out}{err}");
}

#[test]
fn finding_6_an_event_not_read_is_not_also_a_missing_role() {
    let dir = scratch("trial40-skipped-role");
    let first = format!(
        "data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{{\"role\":\"assistant\",\"content\":\"{}\"}},\"finish_reason\":null}}]}}\n\n",
        "x".repeat(4000)
    );
    let rest = [
        chat_chunk(" more", "null"),
        chat_chunk("", "\"stop\""),
        "data: [DONE]\n\n".to_string(),
    ]
    .concat();
    let p = dir.join("big.sse");
    std::fs::write(&p, format!("{first}{rest}")).unwrap();
    let rules = rules_of(&p, &["--max-event-bytes", "1024"]);
    assert!(rules.iter().any(|r| r == "event-too-large"), "{rules:?}");
    assert!(!rules.iter().any(|r| r == "missing-role"), "{rules:?}");
    // The same for an event that is not JSON: it may have held the role.
    let broken = first.replacen("}]}", "}]", 1);
    std::fs::write(&p, format!("{broken}{rest}")).unwrap();
    let rules = rules_of(&p, &[]);
    assert!(rules.iter().any(|r| r == "invalid-json"), "{rules:?}");
    assert!(!rules.iter().any(|r| r == "missing-role"), "{rules:?}");
}

#[test]
fn finding_7_a_gzipped_base64_har_body_is_measured_decoded() {
    use std::io::Write as _;
    let body = std::fs::read(root().join("samples/good/openai-basic.sse")).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&body).unwrap();
    let packed = gz.finish().unwrap();
    assert!(packed.len() < body.len());
    use base64::Engine as _;
    let text = base64::engine::general_purpose::STANDARD.encode(&packed);
    // content.size is the decoded length (HAR 1.2), the stored text the
    // bytes as received.
    let har = one_entry_har(
        serde_json::json!({"size": body.len(), "encoding": "base64", "text": text}),
        &[("Content-Encoding", "gzip")],
    );
    let dir = scratch("trial40-gzip-har");
    let p = dir.join("gz.har");
    std::fs::write(&p, har.to_string()).unwrap();
    let (code, out, err) = sselint(&["check", p.to_str().unwrap()]);
    assert!(!out.contains("capture-truncated"), "{out}{err}");
    assert_eq!(code, Some(0), "{out}{err}");
    // A body cut short is still found: its decoded length falls short.
    let cut = one_entry_har(
        serde_json::json!({"size": body.len() + 100, "encoding": "base64", "text": base64::engine::general_purpose::STANDARD.encode(&packed)}),
        &[("Content-Encoding", "gzip")],
    );
    std::fs::write(&p, cut.to_string()).unwrap();
    let (_, out, _) = sselint(&["check", p.to_str().unwrap()]);
    assert!(out.contains("capture-truncated"), "{out}");
}

#[test]
fn finding_9_a_character_cut_by_the_end_is_the_cut_not_invalid_utf8() {
    let dir = scratch("trial40-cut-char");
    let mut body = chat_chunk("Hello", "null").into_bytes();
    body.extend_from_slice(b"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"caf\xC3");
    let p = dir.join("cut.sse");
    std::fs::write(&p, &body).unwrap();
    let rules = rules_of(&p, &[]);
    assert!(rules.iter().any(|r| r == "cut-off"), "{rules:?}");
    assert!(!rules.iter().any(|r| r == "invalid-utf8"), "{rules:?}");
    // A bad byte that is not the cut still is one.
    let mut bad = chat_chunk("Hello", "null").into_bytes();
    bad.extend_from_slice(b"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"caf\xC3 x");
    std::fs::write(&p, &bad).unwrap();
    let (_, out, _) = sselint(&["check", "--format", "json", p.to_str().unwrap()]);
    assert!(out.contains("\"invalid-utf8\""), "{out}");
}

#[test]
fn finding_5_json_past_sselints_depth_limit_is_said_to_be_sselints_limit() {
    let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    let dir = scratch("trial40-deep");
    let p = dir.join("deep.sse");
    // A chunk too deep to read, and tool arguments too deep to check.
    let body = [
        format!("data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{{\"role\":\"assistant\",\"content\":\"\"}},\"logprobs\":{deep},\"finish_reason\":null}}]}}\n\n"),
        format!("data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{{\"role\":\"assistant\",\"tool_calls\":[{{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{{\"name\":\"f\",\"arguments\":\"{{\\\"a\\\":{deep}}}\"}}}}]}},\"finish_reason\":null}}]}}\n\n"),
        chat_chunk("", "\"tool_calls\""),
        "data: [DONE]\n\n".to_string(),
    ]
    .concat();
    std::fs::write(&p, body).unwrap();
    let (_, out, _) = sselint(&["check", "--format", "json", p.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let diags = v["files"][0]["streams"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .clone();
    for rule in ["invalid-json", "tool-call-arguments"] {
        let d = diags
            .iter()
            .find(|d| d["rule"] == rule)
            .unwrap_or_else(|| panic!("no {rule}: {diags:?}"));
        let m = d["message"].as_str().unwrap();
        assert!(m.contains("sselint's limit"), "{rule}: {m}");
    }
}

/// The first diagnostic of `rule` in `check --format json` of `path`.
fn diagnostic(path: &std::path::Path, args: &[&str], rule: &str) -> serde_json::Value {
    let mut all = vec!["check", "--format", "json"];
    all.extend_from_slice(args);
    all.push(path.to_str().unwrap());
    let (_, out, err) = sselint(&all);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
    v["files"][0]["streams"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["rule"] == rule)
        .cloned()
        .unwrap_or_else(|| panic!("no {rule}: {out}"))
}

#[test]
fn finding_10_a_chat_stream_cut_mid_event_points_where_it_stopped() {
    let dir = scratch("trial40-cut-mid-event");
    for (sample, rule) in [
        ("cut-off", "cut-off"),
        ("messages-cut-off", "messages-cut-off"),
    ] {
        let body = std::fs::read(root().join(format!("samples/bad/{sample}.sse"))).unwrap();
        // Cut 30 bytes before the end: inside the last event's data line.
        let cut = &body[..body.len() - 30];
        let p = dir.join(format!("{sample}.sse"));
        std::fs::write(&p, cut).unwrap();
        let d = diagnostic(&p, &[], rule);
        let last_line = cut.rsplit(|b| *b == b'\n').next().unwrap();
        assert_eq!(d["byte_len"], 1, "{sample}: {d}");
        assert_eq!(d["column"], last_line.len(), "{sample}: {d}");
        assert_eq!(d["byte_offset"], cut.len() - 1, "{sample}: {d}");
    }
}

#[test]
fn finding_12_multiline_data_is_said_once_for_the_stream() {
    let dir = scratch("trial40-multiline");
    // Three chunks, each with its JSON on two `data` lines.
    let split = |c: String| c.replacen(",\"choices\"", "\ndata: ,\"choices\"", 1);
    let body = [
        split(chat_chunk("Hello", "null")),
        split(chat_chunk(" there", "null")),
        split(chat_chunk("", "\"stop\"")),
        "data: [DONE]\n\n".to_string(),
    ]
    .concat();
    let p = dir.join("multi.sse");
    std::fs::write(&p, body).unwrap();
    let (_, out, err) = sselint(&["check", "--format", "json", p.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
    let found: Vec<&serde_json::Value> = v["files"][0]["streams"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "multiline-data")
        .collect();
    assert_eq!(found.len(), 1, "{found:#?}");
    let m = found[0]["message"].as_str().unwrap();
    assert!(m.contains("3 events"), "{m}");
    // It points at the first such event.
    assert_eq!(found[0]["line"], 2, "{m}");
}

#[test]
fn finding_16_a_gemini_stream_read_under_gemini_api_is_not_told_it_fits() {
    let body = std::fs::read_to_string(root().join("samples/good/gemini-basic.sse")).unwrap();
    let mut har = one_entry_har(serde_json::json!({"size": body.len(), "text": body}), &[]);
    har["log"]["entries"][0]["request"]["url"] = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse".into();
    let dir = scratch("trial40-gemini-hint");
    let p = dir.join("g.har");
    std::fs::write(&p, har.to_string()).unwrap();
    // The default profile reads a Gemini stream as gemini-api does.
    let (code, out, err) = sselint(&["check", p.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("ending: complete"), "{out}{err}");
    assert!(!out.contains("looks like"), "{out}{err}");
}

#[test]
fn finding_16_a_capture_cut_after_a_whole_data_line_is_not_also_unterminated() {
    let (bs, _) = blocks("good/openai-basic.sse");
    let whole = std::fs::read_to_string(root().join("samples/good/openai-basic.sse")).unwrap();
    // Three events, then the fourth's `data` line whole but no blank line.
    let cut = format!("{}\n\n{}\n", bs[..3].join("\n\n"), bs[3]);
    let har = one_entry_har(serde_json::json!({"size": whole.len(), "text": cut}), &[]);
    let dir = scratch("trial40-cut-har");
    let p = dir.join("cut.har");
    std::fs::write(&p, har.to_string()).unwrap();
    let (_, out, err) = sselint(&["check", "--format", "json", p.to_str().unwrap()]);
    assert!(out.contains("\"capture-truncated\""), "{out}{err}");
    assert!(!out.contains("\"unterminated-event\""), "{out}{err}");
    // The same bytes as a whole capture: the server left the event open.
    let sse = dir.join("cut.sse");
    std::fs::write(&sse, &cut).unwrap();
    let (_, out, _) = sselint(&["check", "--format", "json", sse.to_str().unwrap()]);
    assert!(out.contains("\"unterminated-event\""), "{out}");
}

/// The rules of the first stream of `path` in `check --format json ARGS`,
/// in report order.
fn rules_of(path: &std::path::Path, args: &[&str]) -> Vec<String> {
    let mut all = vec!["check", "--format", "json"];
    all.extend_from_slice(args);
    all.push(path.to_str().unwrap());
    let (_, out, _) = sselint(&all);
    rules_in(&out)
}

/// What `sselint ARGS` prints on stdout, read as JSON (a panic with its
/// stderr when it is not).
fn json_of(args: &[&str]) -> serde_json::Value {
    let (_, out, err) = sselint(args);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"))
}

/// The rules of the first stream of the first file in `out`, the output of
/// `check --format json`, in report order.
fn rules_in(out: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"));
    v["files"][0]["streams"][0]["diagnostics"]
        .as_array()
        .unwrap_or_else(|| panic!("no diagnostics: {out}"))
        .iter()
        .filter_map(|d| d["rule"].as_str().map(str::to_string))
        .collect()
}

/// A `curl -v … 2>&1` dump of a Chat request: curl's lines (10 before the
/// body), `body`, then `tail` (what curl wrote after it).
fn curl_v_dump(body: &str, tail: &str) -> String {
    [
        "*   Trying 127.0.0.1:8080...\n",
        "* Connected to 127.0.0.1 (127.0.0.1) port 8080\n",
        "> POST /v1/chat/completions HTTP/1.1\n",
        "> Host: 127.0.0.1:8080\n",
        "> Content-Type: application/json\n",
        ">\n",
        "< HTTP/1.1 200 OK\n",
        "< content-type: text/event-stream\n",
        "<\n",
        "{ [120 bytes data]\n",
        body,
        tail,
    ]
    .concat()
}

/// The `line=` and `col=` of the first `::error` annotation of `rule` in
/// `check --format github` output.
fn github_position(out: &str, rule: &str) -> (u64, Option<u64>) {
    let l = out
        .lines()
        .find(|l| l.contains(&format!("title={rule} (")))
        .unwrap_or_else(|| panic!("no {rule}: {out}"));
    let field = |name: &str| -> Option<u64> {
        l.split([',', ' ', ':'])
            .find_map(|p| p.strip_prefix(name))
            .and_then(|v| v.parse().ok())
    };
    (field("line=").unwrap_or(0), field("col="))
}

#[test]
fn finding_8_curl_v_lines_after_a_broken_transfer_are_not_body_bytes() {
    let first = chat_chunk("Hello", "null");
    // The second event stops 60 bytes in; curl writes its info line and
    // error right after the last byte, on the same line.
    let second = chat_chunk(" there", "null");
    let partial = &second[..60];
    let body = format!("{first}{{ [99 bytes data]\n{partial}");
    let dump = curl_v_dump(
        &body,
        "* transfer closed with outstanding read data remaining\n* Closing connection\ncurl: (18) transfer closed with outstanding read data remaining\n",
    );
    let dir = scratch("trial40-curl-v-cut");
    let p = dir.join("cut.txt");
    std::fs::write(&p, &dump).unwrap();
    let d = diagnostic(&p, &[], "cut-off");
    // The caret is on the last body byte, not past curl's words.
    assert_eq!(d["column"], partial.len(), "{d}");
    let (_, out, _) = sselint(&["check", "--format", "json", p.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let text = v["files"][0]["streams"][0]["choices"][0]["text"]
        .as_str()
        .unwrap_or("");
    assert_eq!(text, "Hello", "{out}");
    // GitHub and SARIF point at that line of the file: 10 curl lines, the
    // first event (2 lines), a data marker, then the cut line.
    let (code, out, err) = sselint(&["check", "--format", "github", p.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert_eq!(
        github_position(&out, "cut-off"),
        (14, Some(partial.len() as u64)),
        "{out}"
    );
    let (_, out, _) = sselint(&["check", "--format", "sarif", p.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rules = v["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    let cut = rules.iter().position(|r| r["name"] == "cut-off").unwrap();
    let r = v["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleIndex"] == cut)
        .unwrap_or_else(|| panic!("no cut-off: {out}"));
    let region = &r["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["startLine"], 14, "{r:#}");
}

#[test]
fn finding_8_github_points_at_the_file_line_of_any_curl_v_finding() {
    // A whole stream with one bad event, curl's data markers between.
    let body = [
        chat_chunk("Hello", "null"),
        "{ [80 bytes data]\n".to_string(),
        "data: {not json}\n\n".to_string(),
        "{ [80 bytes data]\n".to_string(),
        chat_chunk("", "\"stop\""),
        "data: [DONE]\n\n".to_string(),
    ]
    .concat();
    let dump = curl_v_dump(&body, "* Connection #0 to host 127.0.0.1 left intact\n");
    let dir = scratch("trial40-curl-v-github");
    let p = dir.join("v.txt");
    std::fs::write(&p, &dump).unwrap();
    let (_, out, err) = sselint(&["check", "--format", "github", p.to_str().unwrap()]);
    // File line 14: 10 curl lines, 2 of the first event, a marker; the
    // column is the body line's.
    let column = diagnostic(&p, &[], "invalid-json")["column"].as_u64();
    assert_eq!(
        github_position(&out, "invalid-json"),
        (14, column),
        "{out}{err}"
    );
    // The finding before the first marker is on the first body line.
    assert_eq!(github_position(&out, "missing-role").0, 11, "{out}{err}");
}

#[test]
fn finding_11_server_side_calls_are_labelled_by_their_tool() {
    let web = root().join("tests/fixtures/seam/responses-web-search.sse");
    let v = json_of(&["check", "--format", "json", web.to_str().unwrap()]);
    let call = &v["files"][0]["streams"][0]["choices"][0]["tool_calls"][0];
    assert_eq!(call["name"], "web_search", "{call}");
    let (_, out, _) = sselint(&["check", web.to_str().unwrap()]);
    assert!(out.contains("tool calls: web_search({"), "{out}");
    let g = root().join("samples/providers/gemini-code-execution.sse");
    let v = json_of(&["check", "--format", "json", g.to_str().unwrap()]);
    let call = &v["files"][0]["streams"][0]["choices"][0]["tool_calls"][0];
    assert_eq!(call["name"], "codeExecution", "{call}");
    let (_, out, _) = sselint(&["check", g.to_str().unwrap()]);
    assert!(!out.contains("PYTHON("), "{out}");
    assert!(out.contains("codeExecution("), "{out}");
}

#[test]
fn finding_13_a_dialects_own_line_endings_are_no_difference_across_dialects() {
    let a = root().join("samples/good/openai-basic.sse");
    let b = root().join("samples/good/gemini-basic.sse");
    let diff = |a: &std::path::Path| {
        json_of(&[
            "diff",
            "--format",
            "json",
            "--ignore-text",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
        ])
        .to_string()
    };
    let v: serde_json::Value = serde_json::from_str(&diff(&a)).unwrap();
    let items: Vec<&str> = v["differences"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["item"].as_str())
        .collect();
    assert!(!items.contains(&"line endings"), "{items:?}");
    assert!(!items.contains(&"line-endings"), "{items:?}");
    // A Chat stream with CRLF is not its dialect's own: still a difference.
    let crlf = root().join("samples/good/crlf.sse");
    let out = diff(&crlf);
    assert!(
        out.contains("\"line endings\"") || out.contains("\"line-endings\""),
        "{out}"
    );
}

#[test]
fn finding_14_scrub_text_keeps_non_ascii_punctuation() {
    let dir = scratch("trial40-scrub-punct");
    let p = dir.join("p.sse");
    let body = [
        chat_chunk("Wait — “quoted” … done，好。", "null"),
        chat_chunk("", "\"stop\""),
        "data: [DONE]\n\n".to_string(),
    ]
    .concat();
    std::fs::write(&p, body).unwrap();
    let o = dir.join("o.sse");
    let (code, out, err) = sselint(&[
        "redact",
        "--scrub-text",
        p.to_str().unwrap(),
        "-o",
        o.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    let copy = std::fs::read_to_string(&o).unwrap();
    assert!(copy.contains("\"Xxxx — “xxxxxx” … xxxx，中。\""), "{copy}");
}

#[test]
fn finding_16_an_event_over_the_limit_is_one_finding_not_one_per_line() {
    let dir = scratch("trial40-big-multiline");
    let lines: String = (0..200)
        .map(|_| format!("data: {}\n", "x".repeat(500)))
        .collect();
    let body = [
        chat_chunk("hi", "null"),
        lines,
        "\n".to_string(),
        chat_chunk("", "\"stop\""),
        "data: [DONE]\n\n".to_string(),
    ]
    .concat();
    let p = dir.join("big.sse");
    std::fs::write(&p, body).unwrap();
    let rules = rules_of(&p, &["--max-event-bytes", "1024"]);
    assert!(rules.iter().any(|r| r == "event-too-large"), "{rules:?}");
    assert!(!rules.iter().any(|r| r == "unknown-sse-field"), "{rules:?}");
}

#[test]
fn finding_16_a_choice_index_past_n_is_one_finding_with_a_count() {
    // n = 1, and every chunk numbers its choice 1.
    let chunk = |c: &str, f: &str| chat_chunk(c, f).replace("\"index\":0", "\"index\":1");
    let body = [
        chunk("a", "null"),
        chunk("b", "null"),
        chunk("c", "null"),
        chunk("", "\"stop\""),
        "data: [DONE]\n\n".to_string(),
    ]
    .concat();
    let mut har = one_entry_har(serde_json::json!({"size": body.len(), "text": body}), &[]);
    har["log"]["entries"][0]["request"]["postData"] = serde_json::json!({
        "mimeType": "application/json",
        "text": "{\"model\":\"m\",\"stream\":true,\"n\":1,\"messages\":[]}"
    });
    let dir = scratch("trial40-n1");
    let p = dir.join("n1.har");
    std::fs::write(&p, har.to_string()).unwrap();
    let (_, out, _) = sselint(&["check", "--format", "json", p.to_str().unwrap()]);
    let found: Vec<String> = rules_in(&out)
        .into_iter()
        .filter(|r| r == "choice-index")
        .collect();
    assert_eq!(found.len(), 1, "{out}");
    let d = diagnostic(&p, &[], "choice-index");
    let m = d["message"].as_str().unwrap();
    assert!(m.contains("n = 1"), "{m}");
    assert!(m.contains("4 chunks"), "{m}");
}

#[test]
fn finding_16_an_unreadable_har_body_is_an_input_error_naming_the_entry() {
    let dir = scratch("trial40-bad-base64");
    let har = one_entry_har(
        serde_json::json!({"size": 10, "encoding": "base64", "text": "@@@not base64@@@"}),
        &[],
    );
    let p = dir.join("bad.har");
    std::fs::write(&p, har.to_string()).unwrap();
    let (code, out, err) = sselint(&["check", p.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{out}{err}");
    assert!(err.contains("bad.har"), "{err}");
    assert!(err.contains("entries[0]"), "{err}");
    assert!(err.contains("not valid base64"), "{err}");
    assert!(!out.contains("capture-truncated"), "{out}");
}

#[test]
fn finding_16_replay_keepalive_with_no_wait_says_none_will_be_sent() {
    let capture = root().join("samples/good/openai-basic.sse");
    let run = |extra: &[&str]| -> String {
        let mut args = vec!["--keepalive-ms", "100"];
        args.extend_from_slice(extra);
        Replay::start_to(&capture, &args, std::process::Stdio::piped()).stop()
    };
    let err = run(&[]);
    assert!(err.contains("--keepalive-ms"), "{err}");
    assert!(err.contains("--delay-ms"), "{err}");
    // With waits long enough, no such note.
    let err = run(&["--delay-ms", "300"]);
    assert!(!err.contains("--keepalive-ms"), "{err}");
}

/// The JSON report of `check --no-config` of `p`: its first stream and its
/// file's input format.
fn first_stream(p: &std::path::Path) -> (serde_json::Value, serde_json::Value) {
    let v = json_of(&[
        "check",
        "--no-config",
        "--format",
        "json",
        p.to_str().unwrap(),
    ]);
    let f = &v["files"][0];
    (f["streams"][0].clone(), f["input_format"].clone())
}

#[test]
fn finding_3_minimize_of_a_curl_v_dump_with_the_meter_before_it_is_a_curl_dump() {
    // `curl -v … 2>&1` of a short stream, as curl 7.88 wrote it: the
    // meter's two header lines, its first row glued to `*   Trying`, the
    // body whole (no row landed in it), the last row after it.
    let header = "  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n                                 Dload  Upload   Total   Spent    Left  Speed\n";
    let first_row =
        "\r  0     0    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0";
    let last_row =
        "\r100  3327    0  3246  100    81   103k   2639 --:--:-- --:--:-- --:--:--  108k\n";
    let body = format!(
        "{}data: {{\"id\":\"c\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"x\"}}\n\n{}data: [DONE]\n\n",
        chat_chunk("Hello", "null"),
        chat_chunk("", "\"stop\""),
    );
    let dump = format!(
        "{header}{first_row}{}",
        curl_v_dump(&body, &format!("{last_row}* Closing connection 0\n"))
    );
    let dir = scratch("trial40-minimize-meter");
    let p = dir.join("v.txt");
    std::fs::write(&p, &dump).unwrap();
    let (before, format) = first_stream(&p);
    assert_eq!(format, "curl", "{before:#}");
    assert_eq!(before["http"]["status"], 200, "{before:#}");
    let min = dir.join("v.min.txt");
    let (code, out, err) = sselint(&[
        "minimize",
        "--no-config",
        "-o",
        min.to_str().unwrap(),
        p.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    let (after, format) = first_stream(&min);
    let written = std::fs::read_to_string(&min).unwrap();
    // Still a curl -v dump: its status, its request line, and no finding
    // about a line of curl's meter.
    assert_eq!(format, "curl", "{written}");
    assert_eq!(after["http"]["status"], 200, "{written}\n{after:#}");
    assert!(written.contains("> POST /v1/chat/completions"), "{written}");
    let rules = |s: &serde_json::Value| -> Vec<String> {
        let mut r: Vec<String> = s["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["rule"].to_string())
            .collect();
        r.sort();
        r
    };
    assert!(
        rules(&before).contains(&"\"invalid-json\"".to_string()),
        "{before:#}"
    );
    assert!(
        !rules(&after).contains(&"\"unknown-sse-field\"".to_string()),
        "{written}\n{after:#}"
    );
    // The meter is no part of the reproducer: neither of its header lines.
    assert!(!written.contains("% Total"), "{written}");
}

/// A fresh-user trial of issue 41: an event past `--max-event-bytes` whose
/// kept bytes end inside a four-byte character got, beside
/// `event-too-large`, an `invalid-utf8` error for bytes that are valid UTF-8
/// in the stream (the rest of the character is in the bytes not kept).
#[test]
fn an_event_cut_by_the_limit_inside_a_character_is_not_invalid_utf8() {
    let chunk = |t: &str| {
        format!(
            "data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":{}}},\"finish_reason\":null}}]}}\n\n",
            serde_json::to_string(t).unwrap()
        )
    };
    let body = format!(
        "{}{}data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{{}},\"finish_reason\":\"stop\"}}]}}\n\ndata: [DONE]\n\n",
        chunk("Hi"),
        chunk(&"🎉".repeat(2000))
    );
    // Each limit cuts the 8 KB event at a different byte of a character.
    for limit in [4096, 4097, 4098, 4099] {
        let rules: Vec<&str> = lint_example(body.as_bytes(), None, Some(limit))
            .iter()
            .map(|d| d.rule)
            .collect();
        assert!(rules.contains(&"event-too-large"), "{limit}: {rules:?}");
        assert!(!rules.contains(&"invalid-utf8"), "{limit}: {rules:?}");
    }
}
