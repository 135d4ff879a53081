//! Found by a fresh-user trial of the Responses and Messages dialects
//! (fourth trial): one finding per root cause, honest comparisons, where
//! findings point. Each was a failing test first.

mod common;
use common::*;
use sselint::lint::Diagnostic;

/// The events (blank-line separated blocks) of a shipped sample.
fn events(sample: &str) -> Vec<String> {
    let text = std::fs::read_to_string(root().join("samples").join(sample))
        .unwrap_or_else(|e| panic!("{sample}: {e}"));
    text.split("\n\n")
        .filter(|b| !b.trim().is_empty())
        .map(str::to_string)
        .collect()
}

fn join(blocks: &[String]) -> Vec<u8> {
    let mut s = blocks.join("\n\n");
    s.push_str("\n\n");
    s.into_bytes()
}

fn codes(b: &[u8]) -> Vec<&'static str> {
    let r = lint_bytes(b);
    diags(&r).iter().map(|d| d.code).collect()
}

fn all(b: &[u8]) -> Vec<Diagnostic> {
    let r = lint_bytes(b);
    diags(&r).into_iter().cloned().collect()
}

#[test]
fn a_backward_sequence_number_is_one_finding_not_also_a_gap() {
    // Two deltas swapped: 4, 6, 5, 7 — the 4 → 6 "gap" is filled by the 5
    // that comes back: only the backward step is the fault.
    let mut ev = events("good/responses-basic.sse");
    ev.swap(5, 6);
    let got = codes(&join(&ev));
    assert!(got.contains(&"RS102"), "{got:?}");
    assert!(!got.contains(&"RS103"), "{got:?}");
    // The numbering restarts (llama.cpp's separate counters): no gap either.
    let mut ev = events("good/responses-basic.sse");
    for (k, b) in ev.iter_mut().enumerate().skip(10) {
        *b = b.replace(
            &format!("\"sequence_number\":{k},"),
            &format!("\"sequence_number\":{},", k - 7),
        );
    }
    let got = codes(&join(&ev));
    assert_eq!(got.iter().filter(|c| **c == "RS102").count(), 1, "{got:?}");
    assert!(!got.contains(&"RS103"), "{got:?}");
    // A real gap still is one.
    let ev = events("good/responses-basic.sse");
    let dropped: Vec<String> = ev
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 6)
        .map(|(_, b)| b.clone())
        .collect();
    let got = codes(&join(&dropped));
    assert!(got.contains(&"RS103"), "{got:?}");
}

#[test]
fn a_delta_rejected_as_too_deep_is_one_finding() {
    let mut ev = events("good/responses-basic.sse");
    let deep = format!("\"logprobs\":{}{}", "[".repeat(200), "]".repeat(200));
    ev[6] = ev[6].replace("\"logprobs\":[]", &deep);
    let got = codes(&join(&ev));
    assert_eq!(got, vec!["P301"], "{got:?}");
    // Any unreadable event: the same (invalid JSON in a Messages stream).
    let mut ev = events("good/messages-tool-use.sse");
    let i = ev
        .iter()
        .position(|b| b.contains("input_json_delta"))
        .unwrap();
    ev[i] = ev[i].trim_end().trim_end_matches('}').to_string();
    let got = codes(&join(&ev));
    assert_eq!(got, vec!["P301"], "{got:?}");
}

#[test]
fn an_absurd_output_index_is_reported_once_and_does_not_cascade() {
    let huge = "\"output_index\":18446744073709551616";
    // On every event: one finding for the field, nothing about the items
    // that could not be placed.
    for sample in [
        "good/responses-basic.sse",
        "good/responses-function-call.sse",
    ] {
        let ev: Vec<String> = events(sample)
            .iter()
            .map(|b| b.replace("\"output_index\":0", huge))
            .collect();
        let got = codes(&join(&ev));
        assert_eq!(got, vec!["RS124"], "{sample}: {got:?}");
    }
    // On one delta: that event is lost, and that is the finding.
    let mut ev = events("good/responses-basic.sse");
    ev[6] = ev[6].replace("\"output_index\":0", huge);
    assert_eq!(codes(&join(&ev)), vec!["RS124"]);
    // On the item's announcement only (a valid u64, far past the next
    // index): the gap finding, and the item's later events, which name it
    // by its id, still find it.
    let mut ev = events("good/responses-basic.sse");
    ev[2] = ev[2].replace(
        "\"output_index\":0",
        "\"output_index\":18446744073709551615",
    );
    let got = codes(&join(&ev));
    assert_eq!(got, vec!["RS112"], "{got:?}");
}

#[test]
fn an_error_event_before_message_stop_is_the_one_finding() {
    // The error takes the place of the block's stop; message_delta and
    // message_stop follow.
    let mut ev = events("good/messages-basic.sse");
    let stop = ev
        .iter()
        .position(|b| b.starts_with("event: content_block_stop"))
        .unwrap();
    ev[stop] = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}".into();
    let got = codes(&join(&ev));
    assert_eq!(got, vec!["MS109"], "{got:?}");
    // Inserted before message_stop, after everything else.
    let mut ev = events("good/messages-basic.sse");
    let n = ev.len();
    ev.insert(n - 1, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal\"}}".into());
    let got = codes(&join(&ev));
    assert_eq!(got, vec!["MS109"], "{got:?}");
    let _ = all;
}

/// The sequence numbers of a Responses event block shifted by `by`.
fn renumber(block: &str, to: Option<u64>, by: u64) -> String {
    let key = "\"sequence_number\":";
    let Some(at) = block.find(key) else {
        return block.to_string();
    };
    let start = at + key.len();
    let end = start
        + block[start..]
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(0);
    let n: u64 = block[start..end].parse().unwrap_or(0);
    let new = to.unwrap_or(n + by);
    format!("{}{new}{}", &block[..start], &block[end..])
}

/// Every single-event mutation of the good Responses and Messages samples
/// (the stream cut after each event; each event dropped, repeated,
/// unreadable, moved one place later; an `error` event inserted before
/// each) gives at most two findings: the fault, and at most one visible
/// effect of it that a client meets (a gap in the numbering that shows an
/// event was dropped, with the item it announced; an unreadable terminal
/// event, with the ending it leaves). Before the fourth trial's fixes, 204
/// of 1010 gave three to five (a backward step also reported as a gap, a
/// repeated announcement as a new item that never got its done event and
/// an `output` that disagrees, an unreadable event as a gap and a text
/// difference, …). A cascade that returns fails here.
#[test]
fn no_single_event_mutation_of_a_good_sample_cascades() {
    const CAP: usize = 2;
    let mut files: Vec<_> = samples("good")
        .into_iter()
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy().to_string();
            n.starts_with("responses-") || n.starts_with("messages-")
        })
        .collect();
    files.sort();
    assert!(files.len() >= 9, "{files:?}");
    let mut over = Vec::new();
    let mut tried = 0;
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let ev = events(&format!("good/{name}"));
        let responses = name.starts_with("responses-");
        // What the sample itself gets (a refusal's `responses-refusal`) is
        // no cascade of a mutation.
        let own: Vec<&str> = all(&join(&ev)).iter().map(|d| d.rule).collect();
        for i in 0..ev.len() {
            let mut muts: Vec<(String, Vec<String>)> = Vec::new();
            muts.push(("cut after".into(), ev[..=i].to_vec()));
            let mut v = ev.clone();
            v.remove(i);
            muts.push(("drop".into(), v));
            let mut v = ev.clone();
            v.insert(i, ev[i].clone());
            muts.push(("repeat".into(), v));
            let mut v = ev.clone();
            v[i] = v[i].trim_end().trim_end_matches('}').to_string();
            muts.push(("unreadable".into(), v));
            if i + 1 < ev.len() {
                let mut v = ev.clone();
                v.swap(i, i + 1);
                muts.push(("move later".into(), v));
            }
            let mut v = ev.clone();
            if responses {
                let err = format!("event: error\ndata: {{\"type\":\"error\",\"sequence_number\":{i},\"error\":{{\"type\":\"server_error\",\"code\":\"server_error\",\"message\":\"boom\",\"param\":null}}}}");
                for b in v.iter_mut().skip(i) {
                    *b = renumber(b, None, 1);
                }
                v.insert(i, renumber(&err, Some(i as u64), 0));
            } else {
                v.insert(i, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}".into());
            }
            muts.push(("error before".into(), v));
            for (what, blocks) in muts {
                tried += 1;
                let found: Vec<Diagnostic> = all(&join(&blocks))
                    .into_iter()
                    .filter(|d| !own.contains(&d.rule))
                    .collect();
                if found.len() > CAP {
                    over.push(format!(
                        "{name}, {what} event {i}: {:?}",
                        found.iter().map(|d| d.code).collect::<Vec<_>>()
                    ));
                }
            }
        }
    }
    assert!(tried > 500, "{tried} mutations");
    assert!(
        over.is_empty(),
        "{} of {tried} mutations give more than {CAP} findings:\n{}",
        over.len(),
        over.join("\n")
    );
}

/// A Responses stream: `response.created`, a message item with one text
/// part, these deltas, then `response.output_text.done` with `done`.
fn text_stream(deltas: &[&str], done: &str) -> Vec<u8> {
    let mut seq = 0u64;
    let mut out = String::new();
    let mut ev = |ty: &str, rest: &str| {
        out += &format!(
            "event: {ty}\ndata: {{\"type\":\"{ty}\",\"sequence_number\":{seq}{rest}}}\n\n"
        );
        seq += 1;
    };
    ev(
        "response.created",
        r#","response":{"id":"resp_1","object":"response","created_at":1700000000,"status":"in_progress","error":null,"incomplete_details":null,"instructions":null,"model":"gpt-4.1-mini","output":[],"parallel_tool_calls":true,"temperature":1.0,"tool_choice":"auto","tools":[],"top_p":1.0,"usage":null,"metadata":{}}"#,
    );
    ev(
        "response.output_item.added",
        r#","output_index":0,"item":{"id":"m","type":"message","status":"in_progress","content":[],"role":"assistant"}"#,
    );
    ev(
        "response.content_part.added",
        r#","item_id":"m","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":""}"#,
    );
    for d in deltas {
        ev(
            "response.output_text.delta",
            &format!(
                r#","item_id":"m","output_index":0,"content_index":0,"delta":"{d}","logprobs":[]"#
            ),
        );
    }
    ev(
        "response.output_text.done",
        &format!(
            r#","item_id":"m","output_index":0,"content_index":0,"text":"{done}","logprobs":[]"#
        ),
    );
    out.into_bytes()
}

#[test]
fn a_mismatch_past_the_kept_text_budget_shows_no_false_empty_value() {
    // 5 MB of deltas (past the 2 MiB kept per stream); the done text is
    // one character short. The done value was not kept at all: it must
    // not show as "".
    let piece = "abcdefghij".repeat(100_000);
    let deltas = vec![piece.as_str(); 5];
    let mut done = piece.repeat(5);
    done.pop();
    let found = all(&text_stream(&deltas, &done));
    let m: Vec<&str> = found
        .iter()
        .filter(|d| d.rule == "responses-delta-mismatch")
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(m.len(), 1, "{found:?}");
    assert!(!m[0].contains("\"\""), "{}", m[0]);
    assert!(
        m[0].contains("5000000 bytes") && m[0].contains("4999999 bytes"),
        "{}",
        m[0]
    );
    assert!(m[0].contains("length and hash"), "{}", m[0]);
    // Same length, another last byte: still found, said to differ by hash.
    let mut done = piece.repeat(5);
    done.pop();
    done.push('!');
    let found = all(&text_stream(&deltas, &done));
    let m: Vec<&str> = found
        .iter()
        .filter(|d| d.rule == "responses-delta-mismatch")
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(m.len(), 1, "{found:?}");
    assert!(!m[0].contains("\"\""), "{}", m[0]);
    assert!(m[0].contains("same length"), "{}", m[0]);
}

/// The bytes a finding's location spans in `body`.
fn spanned(body: &[u8], d: &Diagnostic) -> String {
    let at = d.location.byte_offset as usize;
    String::from_utf8_lossy(&body[at..at + d.location.byte_len as usize]).into_owned()
}

#[test]
fn messages_error_and_usage_findings_point_at_the_data() {
    // MS109: at the `error` object of the data, not the `event:` line.
    let mut ev = events("good/messages-basic.sse");
    let n = ev.len();
    ev.insert(n - 1, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal\"}}".into());
    let body = join(&ev);
    let found = all(&body);
    let d = found.iter().find(|d| d.code == "MS109").expect("MS109");
    let span = spanned(&body, d);
    assert!(span.starts_with("{\"type\":\"api_error\""), "{span:?}");
    assert_eq!(d.pointer.as_deref(), Some("/error"));
    // MS501: `message_delta` without usage: the event's data.
    let ev: Vec<String> = events("good/messages-basic.sse")
        .into_iter()
        .map(|b| {
            if b.starts_with("event: message_delta") {
                let data = b.split_once("data: ").unwrap().1;
                let v: serde_json::Value = serde_json::from_str(data).unwrap();
                let mut v = v.as_object().unwrap().clone();
                v.remove("usage");
                format!(
                    "event: message_delta\ndata: {}",
                    serde_json::Value::Object(v)
                )
            } else {
                b
            }
        })
        .collect();
    let body = join(&ev);
    let found = all(&body);
    let d = found.iter().find(|d| d.code == "MS501").expect("MS501");
    let span = spanned(&body, d);
    assert!(
        span.starts_with('{') && span.contains("\"message_delta\""),
        "{span:?}"
    );
    // With a usage of the wrong type: that value.
    let ev: Vec<String> = events("good/messages-basic.sse")
        .into_iter()
        .map(|b| {
            if b.starts_with("event: message_delta") {
                let data = b.split_once("data: ").unwrap().1;
                let mut v: serde_json::Value = serde_json::from_str(data).unwrap();
                v["usage"] = serde_json::json!("n/a");
                format!("event: message_delta\ndata: {v}")
            } else {
                b
            }
        })
        .collect();
    let body = join(&ev);
    let found = all(&body);
    let d = found.iter().find(|d| d.code == "MS501").expect("MS501");
    assert_eq!(spanned(&body, d), "\"n/a\"");
}

fn sselint(args: &[&str]) -> String {
    let out = assert_cmd::Command::cargo_bin("sselint")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn inspect_renders_content_parts_and_names_the_dialect() {
    let out = sselint(&[
        "inspect",
        "--color",
        "never",
        "samples/good/responses-basic.sse",
    ]);
    assert!(!out.contains("{\"type\":\"response.content_part"), "{out}");
    assert!(out.contains("part 0 output_text added"), "{out}");
    assert!(
        out.contains("part 0 output_text done, 47 characters"),
        "{out}"
    );
    let out = sselint(&[
        "inspect",
        "--color",
        "never",
        "samples/good/responses-reasoning.sse",
    ]);
    assert!(
        !out.contains("{\"type\":\"response.reasoning_summary_part"),
        "{out}"
    );
    // The JSONL stream record says which dialect it read.
    for (file, dialect) in [
        ("samples/good/responses-basic.sse", "responses"),
        ("samples/good/messages-basic.sse", "messages"),
        ("samples/good/openai-basic.sse", "chat"),
    ] {
        let out = sselint(&["inspect", "--format", "jsonl", file]);
        let last: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
        assert_eq!(last["type"], "stream");
        assert_eq!(last["dialect"], dialect, "{file}");
    }
}

#[test]
fn the_summary_line_names_a_few_tool_calls_and_counts_the_rest() {
    const N: usize = 300;
    // Chat: one chunk per call.
    let mut chat = String::new();
    for i in 0..N {
        chat += &format!("data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":{i},\"id\":\"call_{i}\",\"type\":\"function\",\"function\":{{\"name\":\"tool_{i}\",\"arguments\":\"{{}}\"}}}}]}},\"finish_reason\":null}}]}}\n\n");
    }
    chat += "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n";
    // Responses: function_call items announced and done whole.
    let mut resp = String::new();
    let mut seq = 0;
    let mut ev = |ty: &str, rest: String| {
        resp += &format!(
            "event: {ty}\ndata: {{\"type\":\"{ty}\",\"sequence_number\":{seq}{rest}}}\n\n"
        );
        seq += 1;
    };
    ev("response.created", r#","response":{"id":"r","object":"response","created_at":1700000000,"status":"in_progress","error":null,"incomplete_details":null,"instructions":null,"model":"m","output":[],"parallel_tool_calls":true,"temperature":1.0,"tool_choice":"auto","tools":[],"top_p":1.0,"usage":null,"metadata":{}}"#.into());
    for i in 0..N {
        ev(
            "response.output_item.added",
            format!(
                r#","output_index":{i},"item":{{"id":"fc_{i}","type":"function_call","status":"in_progress","call_id":"call_{i}","name":"tool_{i}","arguments":""}}"#
            ),
        );
        ev(
            "response.function_call_arguments.delta",
            format!(r#","item_id":"fc_{i}","output_index":{i},"delta":"{{}}""#),
        );
    }
    // Messages: tool_use blocks.
    let mut msg = String::from("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n");
    for i in 0..N {
        msg += &format!("event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":{i},\"content_block\":{{\"type\":\"tool_use\",\"id\":\"toolu_{i}\",\"name\":\"tool_{i}\",\"input\":{{}}}}}}\n\nevent: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":{i},\"delta\":{{\"type\":\"input_json_delta\",\"partial_json\":\"{{}}\"}}}}\n\nevent: content_block_stop\ndata: {{\"type\":\"content_block_stop\",\"index\":{i}}}\n\n");
    }
    msg += "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":9}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
    for (what, body) in [("chat", chat), ("responses", resp), ("messages", msg)] {
        let r = lint_bytes(body.as_bytes());
        let s = &r.streams[0];
        assert_eq!(
            s.answer.choices[&0].tool_calls.len(),
            N,
            "{what}: {:?}",
            diags(&r).iter().map(|d| d.code).collect::<Vec<_>>()
        );
        let line = sselint::report::human::summary_line(s);
        assert!(line.len() < 400, "{what}: {} bytes: {line}", line.len());
        assert!(line.contains("tool_0({})"), "{what}: {line}");
        assert!(
            line.contains(&format!("and {} more", N - 3)),
            "{what}: {line}"
        );
    }
}

#[test]
fn an_http_status_without_a_reason_phrase_has_no_stray_space() {
    // HTTP/2 has no reason phrase.
    let body = b"HTTP/2 500\r\ncontent-type: application/json\r\n\r\n{\"error\":{\"message\":\"boom\",\"type\":\"server_error\"}}\n";
    let found = all(body);
    let d = found
        .iter()
        .find(|d| d.rule == "http-status")
        .unwrap_or_else(|| panic!("{found:?}"));
    assert!(d.message.starts_with("HTTP status 500: "), "{}", d.message);
    let body = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\n\r\nbusy\n";
    let found = all(body);
    let d = found.iter().find(|d| d.rule == "http-status").unwrap();
    assert!(
        d.message
            .starts_with("HTTP status 503 Service Unavailable: "),
        "{}",
        d.message
    );
}

#[test]
fn the_provider_guess_names_the_host_once() {
    // A HAR of Gemini's native stream, cut after one chunk: read as
    // Gemini, and a guess from the host, whose profile pattern is the
    // whole host.
    let har: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("samples/har/chrome.har").unwrap()).unwrap();
    let mut e = har["log"]["entries"][0].clone();
    e["request"]["url"] = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse".into();
    let body = "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hi\"}],\"role\":\"model\"},\"index\":0}]}\n\n";
    e["response"]["content"] =
        serde_json::json!({"size": body.len(), "mimeType": "text/event-stream", "text": body});
    let mut har = har.clone();
    har["log"]["entries"] = serde_json::json!([e]);
    let dir = common::Scratch::new("findings");
    let p = dir.join("gemini.har");
    std::fs::write(&p, har.to_string()).unwrap();
    let out = sselint(&[
        "check",
        "--color",
        "never",
        "--no-config",
        p.to_str().unwrap(),
    ]);
    assert!(
        out.contains("[gemini]") && out.contains("gemini-cut-off"),
        "{out}"
    );
    // The human report gives no hint: the stream was read under
    // gemini-api, the profile guessed (issue 40, finding 16). The JSON
    // report keeps the guess.
    assert!(!out.contains("looks like"), "{out}");
    let json = sselint(&[
        "check",
        "--format",
        "json",
        "--no-config",
        p.to_str().unwrap(),
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let guess = &v["files"][0]["streams"][0]["provider_guess"];
    assert_eq!(guess["profile"], "gemini-api", "{json}");
    let evidence = guess["evidence"].to_string();
    assert_eq!(
        evidence
            .matches("generativelanguage.googleapis.com")
            .count(),
        1,
        "{evidence}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_rule_footer_says_what_sselint_reports_when_it_keeps_another_severity() {
    // missing-done keeps a warning that replaying cannot show (its
    // severity basis: a proxy that keeps the connection open, and the
    // conformance cases): the footer must not leave "the policy gives
    // info" as the last word beside "default severity: warning".
    let out = sselint(&["rule", "missing-done"]);
    let footers: Vec<&str> = out.lines().filter(|l| l.starts_with("fails ")).collect();
    assert_eq!(footers.len(), 1, "{out}");
    assert!(
        footers[0].ends_with("the policy gives info; sselint reports a warning, for the reason the severity basis gives"),
        "{}",
        footers[0]
    );
    // A rule that follows the record gets no note: RS102 is info, as
    // the policy gives for each of its examples.
    let out = sselint(&["rule", "RS102"]);
    let footers: Vec<&str> = out.lines().filter(|l| l.starts_with("fails ")).collect();
    assert_eq!(footers.len(), 4, "{out}");
    for f in &footers {
        assert!(f.ends_with("the policy gives info"), "{f}");
    }
    // No note where sselint reports what the policy gives (MS101).
    let out = sselint(&["rule", "MS101"]);
    assert!(!out.contains("sselint reports"), "{out}");
    // Where every client read a budget cut as sent, the footer says why
    // the policy still gives a warning (issue 41: a budget cut is a
    // warning in every dialect).
    let out = sselint(&["rule", "gemini-max-tokens"]);
    let footers: Vec<&str> = out.lines().filter(|l| l.starts_with("fails ")).collect();
    assert_eq!(footers.len(), 1, "{out}");
    // "all N clients": every Gemini client of the record (SDKs, agent
    // apps, gateway), however many it holds.
    let (_, tail) = footers[0]
        .split_once(": all ")
        .unwrap_or_else(|| panic!("{}", footers[0]));
    let (n, tail) = tail.split_once(' ').unwrap();
    assert!(n.parse::<u32>().is_ok_and(|n| n >= 3), "{}", footers[0]);
    assert_eq!(
        tail,
        "clients read it as meant; the policy gives warning (a budget cut is a warning in every dialect)",
        "{}",
        footers[0]
    );
}

#[test]
fn a_text_delta_in_a_tool_use_block_is_not_in_the_rebuilt_answer() {
    // What every SDK did with MS301's failing example (clients/observed):
    // text "" — the text is dropped, as the finding says. The rebuilt
    // answer shows what a client shows.
    let cat = sselint::lint::catalogue();
    let r = cat.find("MS301").unwrap();
    let ex = &r.examples()[0];
    assert!(!ex.valid);
    // The server meant the text: the harness compares with that.
    assert_eq!(ex.meant_text.as_deref(), Some("Checking the weather."));
    let res = lint_bytes(&ex.capture);
    let s = &res.streams[0];
    assert!(diags(&res).iter().any(|d| d.code == "MS301"));
    let c = &s.answer.choices[&0];
    assert_eq!(c.text.kept, "", "the clients keep no text");
    assert_eq!(c.tool_calls.len(), 1);
    assert_eq!(c.tool_calls[&0].arguments, "{\"city\": \"Paris\"}");
    // Thinking sent to a text block: not in the text either.
    let body = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"hmm\"}}\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":3}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
    let res = lint_bytes(body.as_bytes());
    let c = &res.streams[0].answer.choices[&0];
    assert_eq!(c.text.kept, "Hi");
    assert_eq!(c.reasoning.kept, "");
}

/// Found by `sselint probe` of llama-cpp-python (tests/probe_servers.rs):
/// a lone space token followed by a token that starts with a space (`" "`
/// then `" there"`) is ordinary tokenization, not a delta repeating the
/// text so far, even when it happens twice in one answer; a real
/// cumulative stream still is reported.
#[test]
fn a_space_token_before_spaced_tokens_is_not_cumulative_content() {
    let chunk = |delta: &str| {
        format!(
            r#"data: {{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1796170000,"model":"tiny","choices":[{{"index":0,"delta":{delta},"logprobs":null,"finish_reason":null}}]}}"#
        )
    };
    let stream = |parts: &[&str]| {
        let mut blocks = vec![chunk(r#"{"role":"assistant"}"#)];
        for p in parts {
            blocks.push(chunk(&serde_json::json!({ "content": p }).to_string()));
        }
        blocks.push(r#"data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1796170000,"model":"tiny","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}"#.to_string());
        blocks.push("data: [DONE]".to_string());
        join(&blocks)
    };
    let tokens = stream(&["Hi", " ", " there", ",", " ", " friend", "."]);
    let r = lint_bytes(&tokens);
    assert_eq!(text0(&r), "Hi  there,  friend.");
    assert!(
        !rules_at_least(&r, sselint::lint::Severity::Info).contains(&"cumulative-content"),
        "{:#?}",
        diags(&r)
    );
    let snapshots = stream(&["Hi", "Hi there", "Hi there,", "Hi there, friend."]);
    assert!(
        rules_at_least(&lint_bytes(&snapshots), sselint::lint::Severity::Error)
            .contains(&"cumulative-content")
    );
}

/// `capture-truncated` at each ending the saved bytes reach (issue 26: the
/// level follows what the clients did with that shape): the cut before the
/// finish is an error (`samples/bad/capture-truncated.txt`, openai-node's
/// stream helper and the Vercel AI SDK raise on it), the cut after the
/// whole ending is info (the rule's first example: every client reads it
/// as meant), and a cut that took only `[DONE]` stays a warning, as
/// `missing-done` is.
#[test]
fn capture_truncated_takes_the_level_of_the_ending_the_saved_bytes_reach() {
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n";
    let text = chat_chunk("Hi", "null");
    let stop = chat_chunk("", "\"stop\"");
    let curl = "curl: (28) Operation timed out after 30000 milliseconds with 512 bytes received\n";
    let level = |body: String| {
        let r = lint_bytes(body.as_bytes());
        let found: Vec<_> = diags(&r)
            .into_iter()
            .filter(|d| d.rule == "capture-truncated")
            .map(|d| d.severity)
            .collect();
        assert_eq!(found.len(), 1, "{body}: {:?}", diags(&r));
        assert!(
            diags(&r)
                .iter()
                .all(|d| !matches!(d.rule, "cut-off" | "missing-done")),
            "{:?}",
            diags(&r)
        );
        found[0]
    };
    assert_eq!(
        level(format!("{head}{text}{curl}")),
        sselint::lint::Severity::Error
    );
    assert_eq!(
        level(format!("{head}{text}{stop}{curl}")),
        sselint::lint::Severity::Warning
    );
    assert_eq!(
        level(format!("{head}{text}{stop}data: [DONE]\n\n{curl}")),
        sselint::lint::Severity::Info
    );
}

/// `multiple-choices` is info only when the request asked for exactly the
/// choices that came: fewer than asked (`n` = 3, two came) is no answer to
/// the request, and an application that reads `choices[0]` joins them
/// (fresh-user trial: it said "as the request asked").
#[test]
fn multiple_choices_is_info_only_for_exactly_the_choices_asked_for() {
    let two = format!(
        "{}{}",
        chat_chunk("Blue", "\"stop\""),
        chat_chunk("Green", "\"stop\"").replace("\"index\":0", "\"index\":1")
    );
    let level = |n: u64| {
        let found = lint_example(
            two.as_bytes(),
            Some(&format!(
                r#"{{"model":"m","stream":true,"n":{n},"messages":[]}}"#
            )),
            None,
        );
        found
            .iter()
            .find(|d| d.rule == "multiple-choices")
            .map(|d| d.severity)
            .unwrap_or_else(|| panic!("n = {n}: {found:?}"))
    };
    assert_eq!(level(2), sselint::lint::Severity::Info);
    assert_eq!(level(3), sselint::lint::Severity::Error);
    assert_eq!(level(1), sselint::lint::Severity::Error);
}
