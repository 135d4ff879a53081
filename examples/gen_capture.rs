//! A deterministic generator of synthetic captures for the benchmark
//! (`bench/run.sh`): OpenAI-shaped chunks of about 267 bytes, optionally
//! with CRLF line ends, keep-alive comments, tool-call deltas, two choices,
//! or every chunk broken (cut before its closing brace, so that a parser
//! reads all of it before it fails).
//!
//! With `--har` the stream is written as the response body of the one
//! entry of a HAR 1.2 file (SIZE_BYTES is then the body's size).
//!
//! usage: gen_capture SIZE_BYTES OUT [--crlf] [--keepalive] [--tools] [--n2] [--broken] [--har]

use std::io::{BufWriter, Write};

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let size: u64 = args.get(1).and_then(|s| s.parse().ok()).expect(
        "usage: gen_capture SIZE_BYTES OUT [--crlf] [--keepalive] [--tools] [--n2] [--broken] [--har]",
    );
    let out = args.get(2).expect("an output path");
    let has = |f: &str| args.iter().any(|a| a == f);
    let (crlf, keepalive, tools, n2, broken) = (
        has("--crlf"),
        has("--keepalive"),
        has("--tools"),
        has("--n2"),
        has("--broken"),
    );
    let eol = if crlf { "\r\n" } else { "\n" };
    // Written beside OUT and renamed when complete, so that an interrupted
    // run never leaves a partial capture for the benchmark to reuse.
    let partial = format!("{out}.partial");
    let mut w = BufWriter::new(std::fs::File::create(&partial)?);
    let head = r#"{"id":"chatcmpl-Bench0000000000000000000000","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":["#;
    let words = [
        "The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", ".",
    ];
    let mut written: u64 = 0;
    let mut i: u64 = 0;
    let har = has("--har");
    if har {
        w.write_all(HAR_HEAD.as_bytes())?;
    }
    let emit =
        |w: &mut BufWriter<std::fs::File>, s: &str, written: &mut u64| -> std::io::Result<()> {
            if har {
                // A JSON string's contents: the quotes serde_json adds cut off.
                let quoted = serde_json::to_string(s)?;
                w.write_all(&quoted.as_bytes()[1..quoted.len() - 1])?;
            } else {
                w.write_all(s.as_bytes())?;
            }
            *written += s.len() as u64;
            Ok(())
        };
    let choices = if n2 { 2 } else { 1 };
    for c in 0..choices {
        let ev = format!(
            "data: {head}{{\"index\":{c},\"delta\":{{\"role\":\"assistant\",\"content\":\"\",\"refusal\":null}},\"logprobs\":null,\"finish_reason\":null}}]}}{eol}{eol}"
        );
        emit(&mut w, &ev, &mut written)?;
    }
    while written < size {
        let c = i % choices;
        let delta = if tools && i % 2 == 1 {
            format!(
                "{{\"tool_calls\":[{{\"index\":0,\"function\":{{\"arguments\":\"{}\"}}}}]}}",
                [
                    "{\\\"city\\\":",
                    " \\\"Pa",
                    "ris\\\", ",
                    "\\\"days\\\": 3",
                    ", \\\"x\\\": 1"
                ][(i / 2 % 5) as usize]
            )
        } else {
            format!("{{\"content\":\"{}\"}}", words[(i % 10) as usize])
        };
        let body = format!("{head}{{\"index\":{c},\"delta\":{delta},\"logprobs\":null,\"finish_reason\":null}}],\"obfuscation\":\"Ab3dE6\"}}");
        let body = if broken {
            body[..body.len() - 1].to_string()
        } else {
            body
        };
        emit(&mut w, &format!("data: {body}{eol}{eol}"), &mut written)?;
        if keepalive && i % 10 == 9 {
            emit(&mut w, &format!(": keep-alive{eol}{eol}"), &mut written)?;
        }
        i += 1;
    }
    for c in 0..choices {
        let ev = format!("data: {head}{{\"index\":{c},\"delta\":{{}},\"logprobs\":null,\"finish_reason\":\"stop\"}}]}}{eol}{eol}");
        emit(&mut w, &ev, &mut written)?;
    }
    emit(&mut w, &format!("data: [DONE]{eol}{eol}"), &mut written)?;
    if har {
        w.write_all(HAR_TAIL.as_bytes())?;
    }
    w.flush()?;
    drop(w);
    std::fs::rename(&partial, out)
}

/// A HAR 1.2 file up to the opening quote of the response body.
const HAR_HEAD: &str = r#"{"log":{"version":"1.2","creator":{"name":"gen_capture","version":"1"},"entries":[{"startedDateTime":"2026-01-01T00:00:00.000Z","time":1000,"request":{"method":"POST","url":"https://api.example.com/v1/chat/completions","httpVersion":"HTTP/1.1","headers":[],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":-1},"response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","headers":[{"name":"Content-Type","value":"text/event-stream"}],"cookies":[],"content":{"size":0,"mimeType":"text/event-stream","text":""#;

/// The rest of the HAR file after the body.
const HAR_TAIL: &str = r#""},"redirectURL":"","headersSize":-1,"bodySize":-1},"cache":{},"timings":{"send":0,"wait":0,"receive":1000}}]}}"#;
