//! A deterministic generator of synthetic captures for the benchmark
//! (`bench/run.sh`): OpenAI-shaped chunks of about 267 bytes, optionally
//! with CRLF line ends, keep-alive comments, tool-call deltas, two choices,
//! or every chunk broken (cut before its closing brace, so that a parser
//! reads all of it before it fails).
//!
//! usage: gen_capture SIZE_BYTES OUT [--crlf] [--keepalive] [--tools] [--n2] [--broken]

use std::io::{BufWriter, Write};

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let size: u64 = args.get(1).and_then(|s| s.parse().ok()).expect(
        "usage: gen_capture SIZE_BYTES OUT [--crlf] [--keepalive] [--tools] [--n2] [--broken]",
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
    let mut w = BufWriter::new(std::fs::File::create(out)?);
    let head = r#"{"id":"chatcmpl-Bench0000000000000000000000","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":["#;
    let words = [
        "The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", ".",
    ];
    let mut written: u64 = 0;
    let mut i: u64 = 0;
    let emit =
        |w: &mut BufWriter<std::fs::File>, s: &str, written: &mut u64| -> std::io::Result<()> {
            w.write_all(s.as_bytes())?;
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
    w.flush()
}
