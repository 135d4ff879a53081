//! A deterministic generator of synthetic captures for the benchmark
//! (`bench/run.sh`): OpenAI-shaped chunks of about 267 bytes, optionally
//! with CRLF line ends, keep-alive comments, tool-call deltas, two choices,
//! or every chunk broken (cut before its closing brace, so that a parser
//! reads all of it before it fails).
//!
//! With `--har` the stream is written as the response body of the one
//! entry of a HAR 1.2 file (SIZE_BYTES is then the body's size), whose
//! request URL is the dialect's endpoint (the model's path for Gemini).
//!
//! `--responses` writes an OpenAI Responses stream instead (one message
//! item of `response.output_text.delta` events, about 200 bytes each,
//! with `sequence_number`, `logprobs` and `obfuscation` as OpenAI sends
//! them), and `--messages` an Anthropic Messages stream (one text block of
//! `content_block_delta` events, about 150 bytes each); both with their
//! lifecycle events and a terminal with usage. `--tools` then streams
//! function-call arguments / `input_json_delta` instead of text.
//!
//! `--gemini` writes a Gemini `streamGenerateContent` stream: unnamed
//! `data:` chunks of about 250 bytes, each a whole response with one
//! candidate's text part (a `functionCall` part with `--tools`), the
//! running `usageMetadata`, `modelVersion` and `responseId`, and a last
//! chunk with `finishReason: STOP`.
//!
//! Streams on other transports than SSE (issue 37): `--ollama` writes an
//! Ollama `/api/chat` NDJSON stream (a line of about 130 bytes per text
//! fragment, then the `done: true` line with the counts); `--converse` a
//! Bedrock ConverseStream body of AWS event-stream frames (one text
//! block of `contentBlockDelta` frames of about 170 bytes, with Bedrock's
//! `p` padding, then `messageStop` and `metadata`); `--invoke` a Bedrock
//! Invoke body whose `chunk` frames carry Claude's Messages events in
//! base64 (about 230 bytes each), the last with
//! `amazon-bedrock-invocationMetrics`.
//!
//! usage: gen_capture SIZE_BYTES OUT [--crlf] [--keepalive] [--tools] [--n2] [--broken] [--har]
//!        gen_capture SIZE_BYTES OUT (--responses | --messages | --gemini) [--crlf] [--tools] [--har]
//!        gen_capture SIZE_BYTES OUT (--ollama | --converse | --invoke)
//!        gen_capture SIZE_BYTES OUT --websocket [--deltas N] [--n2]
//!
//! `--websocket` writes a Responses WebSocket session as a message log
//! (one JSON record a line, the form `record` writes; issue 39): turn
//! after turn of a `response.create` sent, then `response.created`,
//! `in_progress`, one message item of `--deltas N` (default 20)
//! `response.output_text.delta` events, its `done` events and
//! `response.completed` with usage, until SIZE_BYTES is reached; each
//! turn's `previous_response_id` names the turn before. With `--n2` the
//! turns alternate between two lanes (`stream_id` `a` and `b`), each
//! turn's events interleaved with the other lane's.
//!
//! `--help` prints the usage; a missing or bad argument is exit 2 with it.

use std::io::{BufRead, BufWriter, Write};

const USAGE: &str =
    "usage: gen_capture SIZE_BYTES OUT [--crlf] [--keepalive] [--tools] [--n2] [--broken] [--har]
       gen_capture SIZE_BYTES OUT (--responses | --messages | --gemini) [--crlf] [--tools] [--har]
       gen_capture SIZE_BYTES OUT (--ollama | --converse | --invoke)
       gen_capture SIZE_BYTES OUT --websocket [--deltas N] [--n2]";

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().skip(1).any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return std::process::ExitCode::SUCCESS;
    }
    let (Some(size), Some(out)) = (
        args.get(1).and_then(|s| s.parse::<u64>().ok()),
        args.get(2).filter(|o| !o.starts_with("--")),
    ) else {
        eprintln!("gen_capture: SIZE_BYTES (a number of bytes) and OUT are needed\n{USAGE}");
        return std::process::ExitCode::from(2);
    };
    let numbers: Vec<usize> = (3..args.len())
        .filter(|&i| args[i - 1] == "--deltas")
        .collect();
    if let Some(bad) = args
        .iter()
        .enumerate()
        .skip(3)
        .find(|(i, a)| !FLAGS.contains(&a.as_str()) && !numbers.contains(i))
        .map(|(_, a)| a)
    {
        eprintln!("gen_capture: unknown option {bad:?}\n{USAGE}");
        return std::process::ExitCode::from(2);
    }
    match generate(size, out, &args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gen_capture: {out}: {e}");
            std::process::ExitCode::from(2)
        }
    }
}

/// Every option.
const FLAGS: &[&str] = &[
    "--crlf",
    "--keepalive",
    "--tools",
    "--n2",
    "--broken",
    "--har",
    "--responses",
    "--messages",
    "--gemini",
    "--ollama",
    "--converse",
    "--invoke",
    "--websocket",
    "--deltas",
];

fn generate(size: u64, out: &str, args: &[String]) -> std::io::Result<()> {
    let has = |f: &str| args.iter().any(|a| a == f);
    let (crlf, keepalive, tools, n2, broken) = (
        has("--crlf"),
        has("--keepalive"),
        has("--tools"),
        has("--n2"),
        has("--broken"),
    );
    let eol = if crlf { "\r\n" } else { "\n" };
    if has("--websocket") {
        let deltas = match args.iter().position(|a| a == "--deltas") {
            Some(i) => args
                .get(i + 1)
                .and_then(|n| n.parse().ok())
                .filter(|&n: &u64| n > 0)
                .ok_or_else(|| std::io::Error::other("--deltas needs a number above 0"))?,
            None => 20,
        };
        return socket_log(size, out, deltas, n2);
    }
    for kind in ["--ollama", "--converse", "--invoke"] {
        if has(kind) {
            return framed_stream(size, out, kind);
        }
    }
    let other = if has("--gemini") {
        Some(GEMINI_URL)
    } else if has("--messages") {
        Some("https://api.anthropic.com/v1/messages")
    } else if has("--responses") {
        Some("https://api.openai.com/v1/responses")
    } else {
        None
    };
    if let Some(url) = other {
        // The raw stream first; with --har it becomes the body of a HAR.
        let raw = if has("--har") {
            format!("{out}.sse.partial")
        } else {
            out.to_string()
        };
        if has("--gemini") {
            gemini_stream(size, &raw, eol, tools)?;
        } else {
            dialect_stream(size, &raw, eol, tools, has("--messages"))?;
        }
        if has("--har") {
            let wrapped = wrap_har(&raw, out, url);
            std::fs::remove_file(&raw)?;
            wrapped?;
        }
        return Ok(());
    }
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
        w.write_all(har_head(CHAT_URL).as_bytes())?;
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

/// The request URL of a Chat capture's HAR.
const CHAT_URL: &str = "https://api.example.com/v1/chat/completions";

/// The request URL of a Gemini capture's HAR: the model's path, `alt=sse`.
const GEMINI_URL: &str = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse";

/// A HAR 1.2 file for a request to `url`, up to the opening quote of the
/// response body.
fn har_head(url: &str) -> String {
    format!(
        r#"{{"log":{{"version":"1.2","creator":{{"name":"gen_capture","version":"1"}},"entries":[{{"startedDateTime":"2026-01-01T00:00:00.000Z","time":1000,"request":{{"method":"POST","url":"{url}","httpVersion":"HTTP/1.1","headers":[],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":-1}},"response":{{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","headers":[{{"name":"Content-Type","value":"text/event-stream"}}],"cookies":[],"content":{{"size":0,"mimeType":"text/event-stream","text":""#
    )
}

/// Writes the stream in `raw` as the response body of a one-entry HAR at
/// `out` (written beside it and renamed when complete).
fn wrap_har(raw: &str, out: &str, url: &str) -> std::io::Result<()> {
    let partial = format!("{out}.partial");
    let mut r = std::io::BufReader::new(std::fs::File::open(raw)?);
    let mut w = BufWriter::new(std::fs::File::create(&partial)?);
    w.write_all(har_head(url).as_bytes())?;
    let mut line = Vec::new();
    loop {
        line.clear();
        if r.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        // A JSON string's contents: the quotes serde_json adds cut off.
        let quoted = serde_json::to_string(&String::from_utf8_lossy(&line))?;
        w.write_all(&quoted.as_bytes()[1..quoted.len() - 1])?;
    }
    w.write_all(HAR_TAIL.as_bytes())?;
    w.flush()?;
    drop(w);
    std::fs::rename(&partial, out)
}

/// The rest of the HAR file after the body.
const HAR_TAIL: &str = r#""},"redirectURL":"","headersSize":-1,"bodySize":-1},"cache":{},"timings":{"send":0,"wait":0,"receive":1000}}]}}"#;

/// Deltas per output item / content block: a new one starts after this
/// many, so the `.done` events that repeat the text stay small.
const PER_ITEM: u64 = 1000;

/// A Responses (`messages == false`) or Messages stream of about `size`
/// bytes: the lifecycle, output items / content blocks of [`PER_ITEM`]
/// deltas each (text, or function-call arguments with `tools`), and the
/// terminal with usage.
fn dialect_stream(
    size: u64,
    out: &str,
    eol: &str,
    tools: bool,
    messages: bool,
) -> std::io::Result<()> {
    let partial = format!("{out}.partial");
    let mut w = BufWriter::new(std::fs::File::create(&partial)?);
    let mut written: u64 = 0;
    let emit = |w: &mut BufWriter<std::fs::File>, written: &mut u64, name: &str, data: &str| {
        let ev = format!("event: {name}{eol}data: {data}{eol}{eol}");
        *written += ev.len() as u64;
        w.write_all(ev.as_bytes())
    };
    let words = [
        "The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", ".",
    ];
    let mut total: u64 = 0;
    if messages {
        emit(
            &mut w,
            &mut written,
            "message_start",
            r#"{"type":"message_start","message":{"id":"msg_01Bench000000000000000000","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1,"service_tier":"standard"}}}"#,
        )?;
        let mut index = 0u64;
        while written < size {
            let start = if tools {
                format!(
                    r#"{{"type":"content_block_start","index":{index},"content_block":{{"type":"tool_use","id":"toolu_01Bench{index:016}","name":"get_weather","input":{{}}}}}}"#
                )
            } else {
                format!(
                    r#"{{"type":"content_block_start","index":{index},"content_block":{{"type":"text","text":""}}}}"#
                )
            };
            emit(&mut w, &mut written, "content_block_start", &start)?;
            for n in 0..PER_ITEM {
                let word = words[(n % 10) as usize];
                let d = if tools {
                    // An object of one array, opened by the first fragment
                    // and closed by the last.
                    let open = if n == 0 { "{\\\"a\\\": [" } else { ", " };
                    let close = if n + 1 == PER_ITEM { "]}" } else { "" };
                    format!(
                        r#"{{"type":"content_block_delta","index":{index},"delta":{{"type":"input_json_delta","partial_json":"{open}\"{word}\"{close}"}}}}"#
                    )
                } else {
                    format!(
                        r#"{{"type":"content_block_delta","index":{index},"delta":{{"type":"text_delta","text":"{word}"}}}}"#
                    )
                };
                emit(&mut w, &mut written, "content_block_delta", &d)?;
                total += 1;
            }
            emit(
                &mut w,
                &mut written,
                "content_block_stop",
                &format!(r#"{{"type":"content_block_stop","index":{index}}}"#),
            )?;
            index += 1;
        }
        let stop = if tools { "tool_use" } else { "end_turn" };
        emit(
            &mut w,
            &mut written,
            "message_delta",
            &format!(
                r#"{{"type":"message_delta","delta":{{"stop_reason":"{stop}","stop_sequence":null}},"usage":{{"output_tokens":{total}}}}}"#
            ),
        )?;
        emit(
            &mut w,
            &mut written,
            "message_stop",
            r#"{"type":"message_stop"}"#,
        )?;
    } else {
        let mut seq: u64 = 0;
        let mut next = || {
            seq += 1;
            seq - 1
        };
        let resp = |status: &str, output: &str, usage: &str| {
            format!(
                r#"{{"id":"resp_Bench000000000000000000000000","object":"response","created_at":1700000000,"status":"{status}","error":null,"incomplete_details":null,"instructions":null,"model":"gpt-4.1-mini-2025-04-14","output":{output},"parallel_tool_calls":true,"temperature":1.0,"tool_choice":"auto","tools":[],"top_p":1.0,"metadata":{{}},"usage":{usage}}}"#
            )
        };
        emit(
            &mut w,
            &mut written,
            "response.created",
            &format!(
                r#"{{"type":"response.created","sequence_number":{},"response":{}}}"#,
                next(),
                resp("in_progress", "[]", "null")
            ),
        )?;
        emit(
            &mut w,
            &mut written,
            "response.in_progress",
            &format!(
                r#"{{"type":"response.in_progress","sequence_number":{},"response":{}}}"#,
                next(),
                resp("in_progress", "[]", "null")
            ),
        )?;
        let mut items = Vec::new();
        let mut oi = 0u64;
        while written < size {
            let (item_id, item, delta_type) = if tools {
                let id = format!("fc_Bench{oi:026}");
                let item = format!(
                    r#"{{"id":"{id}","type":"function_call","status":"in_progress","arguments":"","call_id":"call_Bench{oi:016}","name":"get_weather"}}"#
                );
                (id, item, "response.function_call_arguments.delta")
            } else {
                let id = format!("msg_Bench{oi:026}");
                let item = format!(
                    r#"{{"id":"{id}","type":"message","status":"in_progress","content":[],"role":"assistant"}}"#
                );
                (id, item, "response.output_text.delta")
            };
            emit(
                &mut w,
                &mut written,
                "response.output_item.added",
                &format!(
                    r#"{{"type":"response.output_item.added","sequence_number":{},"output_index":{oi},"item":{item}}}"#,
                    next()
                ),
            )?;
            if !tools {
                emit(
                    &mut w,
                    &mut written,
                    "response.content_part.added",
                    &format!(
                        r#"{{"type":"response.content_part.added","sequence_number":{},"item_id":"{item_id}","output_index":{oi},"content_index":0,"part":{{"type":"output_text","annotations":[],"logprobs":[],"text":""}}}}"#,
                        next()
                    ),
                )?;
            }
            let mut all = String::new();
            for n in 0..PER_ITEM {
                let word = words[(n % 10) as usize];
                let piece = if tools {
                    let open = if n == 0 { "{\\\"a\\\": [" } else { ", " };
                    let close = if n + 1 == PER_ITEM { "]}" } else { "" };
                    format!("{open}\\\"{word}\\\"{close}")
                } else {
                    word.to_string()
                };
                all.push_str(&piece);
                let d = if tools {
                    format!(
                        r#"{{"type":"{delta_type}","sequence_number":{},"item_id":"{item_id}","output_index":{oi},"delta":"{piece}","obfuscation":"Ab3dE6fG"}}"#,
                        next()
                    )
                } else {
                    format!(
                        r#"{{"type":"{delta_type}","sequence_number":{},"item_id":"{item_id}","output_index":{oi},"content_index":0,"delta":"{piece}","logprobs":[],"obfuscation":"Ab3dE6fG"}}"#,
                        next()
                    )
                };
                emit(&mut w, &mut written, delta_type, &d)?;
                total += 1;
            }
            let done_item = if tools {
                emit(
                    &mut w,
                    &mut written,
                    "response.function_call_arguments.done",
                    &format!(
                        r#"{{"type":"response.function_call_arguments.done","sequence_number":{},"item_id":"{item_id}","output_index":{oi},"name":"get_weather","arguments":"{all}"}}"#,
                        next()
                    ),
                )?;
                format!(
                    r#"{{"id":"{item_id}","type":"function_call","status":"completed","arguments":"{all}","call_id":"call_Bench{oi:016}","name":"get_weather"}}"#
                )
            } else {
                emit(
                    &mut w,
                    &mut written,
                    "response.output_text.done",
                    &format!(
                        r#"{{"type":"response.output_text.done","sequence_number":{},"item_id":"{item_id}","output_index":{oi},"content_index":0,"text":"{all}","logprobs":[]}}"#,
                        next()
                    ),
                )?;
                emit(
                    &mut w,
                    &mut written,
                    "response.content_part.done",
                    &format!(
                        r#"{{"type":"response.content_part.done","sequence_number":{},"item_id":"{item_id}","output_index":{oi},"content_index":0,"part":{{"type":"output_text","annotations":[],"logprobs":[],"text":"{all}"}}}}"#,
                        next()
                    ),
                )?;
                format!(
                    r#"{{"id":"{item_id}","type":"message","status":"completed","content":[{{"type":"output_text","annotations":[],"logprobs":[],"text":"{all}"}}],"role":"assistant"}}"#
                )
            };
            emit(
                &mut w,
                &mut written,
                "response.output_item.done",
                &format!(
                    r#"{{"type":"response.output_item.done","sequence_number":{},"output_index":{oi},"item":{done_item}}}"#,
                    next()
                ),
            )?;
            // The terminal response repeats the items: kept for the first
            // few only, so that it stays one ordinary event.
            if items.len() < 4 {
                items.push(done_item);
            }
            oi += 1;
        }
        let usage = format!(
            r#"{{"input_tokens":25,"input_tokens_details":{{"cached_tokens":0}},"output_tokens":{total},"output_tokens_details":{{"reasoning_tokens":0}},"total_tokens":{}}}"#,
            total + 25
        );
        emit(
            &mut w,
            &mut written,
            "response.completed",
            &format!(
                r#"{{"type":"response.completed","sequence_number":{},"response":{}}}"#,
                next(),
                resp("completed", &format!("[{}]", items.join(",")), &usage)
            ),
        )?;
    }
    w.flush()?;
    drop(w);
    std::fs::rename(&partial, out)
}

/// A Gemini stream of about `size` bytes (see the module docs).
fn gemini_stream(size: u64, out: &str, eol: &str, tools: bool) -> std::io::Result<()> {
    let partial = format!("{out}.partial");
    let mut w = BufWriter::new(std::fs::File::create(&partial)?);
    let mut written: u64 = 0;
    let words = [
        "The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", ".",
    ];
    let tail = r#""modelVersion": "gemini-2.5-flash","responseId": "Bench0aPq3Bc2o1MkP0d6hqAo"}"#;
    let mut n: u64 = 0;
    loop {
        let last = written >= size;
        let part = if tools {
            format!(
                r#"{{"functionCall": {{"name": "get_weather","args": {{"city": "Paris","n": {n}}}}}}}"#
            )
        } else {
            format!(r#"{{"text": "{}"}}"#, words[(n % 10) as usize])
        };
        let (finish, usage) = if last {
            (
                r#","finishReason": "STOP""#.to_string(),
                format!(
                    r#"{{"promptTokenCount": 9,"candidatesTokenCount": {n},"totalTokenCount": {}}}"#,
                    n + 9
                ),
            )
        } else {
            (
                String::new(),
                r#"{"promptTokenCount": 9,"totalTokenCount": 9}"#.to_string(),
            )
        };
        let ev = format!(
            r#"data: {{"candidates": [{{"content": {{"parts": [{part}],"role": "model"}}{finish},"index": 0}}],"usageMetadata": {usage},{tail}{eol}{eol}"#
        );
        written += ev.len() as u64;
        w.write_all(ev.as_bytes())?;
        n += 1;
        if last {
            break;
        }
    }
    w.flush()?;
    drop(w);
    std::fs::rename(&partial, out)
}

/// A stream on another transport than SSE (see the module docs): `kind`
/// is `--ollama`, `--converse` or `--invoke`.
fn framed_stream(size: u64, out: &str, kind: &str) -> std::io::Result<()> {
    use base64::Engine as _;
    use sselint::transport::eventstream::encode;
    let b64 = base64::engine::general_purpose::STANDARD;
    let partial = format!("{out}.partial");
    let mut w = BufWriter::new(std::fs::File::create(&partial)?);
    let mut written: u64 = 0;
    let put = |w: &mut BufWriter<std::fs::File>, written: &mut u64, b: &[u8]| {
        *written += b.len() as u64;
        w.write_all(b)
    };
    let frame = |ty: &str, payload: &str| {
        encode(
            &[
                (":event-type", ty),
                (":content-type", "application/json"),
                (":message-type", "event"),
            ],
            payload.as_bytes(),
        )
    };
    let chunk = |event: &str| {
        frame(
            "chunk",
            &format!(r#"{{"bytes":"{}","p":"abcdefgh"}}"#, b64.encode(event)),
        )
    };
    let words = [
        "The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", ".",
    ];
    let mut n: u64 = 0;
    match kind {
        "--converse" => put(
            &mut w,
            &mut written,
            &frame("messageStart", r#"{"role":"assistant","p":"abcdefgh"}"#),
        )?,
        "--invoke" => {
            put(
                &mut w,
                &mut written,
                &chunk(
                    r#"{"type":"message_start","message":{"id":"msg_bdrk_01Bench000000000000000000","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1}}}"#,
                ),
            )?;
            put(
                &mut w,
                &mut written,
                &chunk(
                    r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
                ),
            )?;
        }
        _ => {}
    }
    while written < size {
        let word = words[(n % 10) as usize];
        match kind {
            "--ollama" => {
                let line = format!(
                    "{{\"model\":\"qwen3:8b\",\"created_at\":\"2026-01-02T03:04:05.{:06}Z\",\"message\":{{\"role\":\"assistant\",\"content\":\"{word}\"}},\"done\":false}}\n",
                    n % 1_000_000
                );
                put(&mut w, &mut written, line.as_bytes())?;
            }
            "--converse" => put(
                &mut w,
                &mut written,
                &frame(
                    "contentBlockDelta",
                    &format!(
                        r#"{{"contentBlockIndex":0,"delta":{{"text":"{word}"}},"p":"abcdefghijk"}}"#
                    ),
                ),
            )?,
            _ => put(
                &mut w,
                &mut written,
                &chunk(&format!(
                    r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":"{word}"}}}}"#
                )),
            )?,
        }
        n += 1;
    }
    match kind {
        "--ollama" => {
            let last = format!(
                "{{\"model\":\"qwen3:8b\",\"created_at\":\"2026-01-02T03:04:06Z\",\"message\":{{\"role\":\"assistant\",\"content\":\"\"}},\"done\":true,\"done_reason\":\"stop\",\"total_duration\":912000000,\"prompt_eval_count\":25,\"eval_count\":{n}}}\n"
            );
            put(&mut w, &mut written, last.as_bytes())?;
        }
        "--converse" => {
            put(
                &mut w,
                &mut written,
                &frame("contentBlockStop", r#"{"contentBlockIndex":0,"p":"ab"}"#),
            )?;
            put(
                &mut w,
                &mut written,
                &frame("messageStop", r#"{"stopReason":"end_turn","p":"abcd"}"#),
            )?;
            let meta = format!(
                r#"{{"usage":{{"inputTokens":25,"outputTokens":{n},"totalTokens":{}}},"metrics":{{"latencyMs":830}},"p":"abc"}}"#,
                n + 25
            );
            put(&mut w, &mut written, &frame("metadata", &meta))?;
        }
        _ => {
            put(
                &mut w,
                &mut written,
                &chunk(r#"{"type":"content_block_stop","index":0}"#),
            )?;
            put(
                &mut w,
                &mut written,
                &chunk(&format!(
                    r#"{{"type":"message_delta","delta":{{"stop_reason":"end_turn","stop_sequence":null}},"usage":{{"output_tokens":{n}}}}}"#
                )),
            )?;
            put(
                &mut w,
                &mut written,
                &chunk(&format!(
                    r#"{{"type":"message_stop","amazon-bedrock-invocationMetrics":{{"inputTokenCount":25,"outputTokenCount":{n},"invocationLatency":2210,"firstByteLatency":604}}}}"#
                )),
            )?;
        }
    }
    w.flush()?;
    drop(w);
    std::fs::rename(&partial, out)
}

/// `--websocket`: a message log of Responses turns over one socket (see
/// the module's docs), written to `OUT.partial` then renamed.
fn socket_log(size: u64, out: &str, deltas: u64, n2: bool) -> std::io::Result<()> {
    use serde_json::json;
    let partial = format!("{out}.partial");
    let mut w = BufWriter::new(std::fs::File::create(&partial)?);
    let written = std::cell::Cell::new(0u64);
    let mut time = 1_798_000_000.0_f64;
    let mut line = |w: &mut BufWriter<std::fs::File>, sent: bool, data: serde_json::Value| {
        time += 0.001;
        let rec = json!({
            "direction": if sent { "sent" } else { "received" },
            "time": (time * 1000.0).round() / 1000.0,
            "opcode": 1,
            "data": data.to_string(),
        });
        let mut l = rec.to_string();
        l.push('\n');
        written.set(written.get() + l.len() as u64);
        w.write_all(l.as_bytes())
    };
    let words = [
        "The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", ".",
    ];
    let text: String = (0..deltas).map(|i| words[(i % 10) as usize]).collect();
    let response = |id: &str, status: &str, output: serde_json::Value, usage: serde_json::Value| {
        json!({"id": id, "object": "response", "created_at": 1798000000, "status": status,
               "error": null, "incomplete_details": null, "instructions": null,
               "model": "gpt-4.1-mini-2025-04-14", "output": output,
               "parallel_tool_calls": true, "temperature": 1.0, "tool_choice": "auto",
               "tools": [], "top_p": 1.0, "usage": usage, "metadata": {}})
    };
    // The events of turn `t` on its lane, in order.
    let turn = |t: u64| -> Vec<serde_json::Value> {
        let id = format!("resp_{t:08}");
        let item = format!("msg_{t:08}");
        let lane = n2.then(|| if t.is_multiple_of(2) { "a" } else { "b" });
        let with_lane = |mut v: serde_json::Value| {
            if let Some(l) = lane {
                v["stream_id"] = l.into();
            }
            v
        };
        let part = json!({"type": "output_text", "annotations": [], "logprobs": [], "text": text});
        let done_item = json!({"id": item, "type": "message", "status": "completed",
                               "content": [part], "role": "assistant"});
        let mut seq = 0;
        let mut ev = |mut v: serde_json::Value| {
            v["sequence_number"] = seq.into();
            seq += 1;
            with_lane(v)
        };
        let mut out = vec![
            ev(
                json!({"type": "response.created", "response": response(&id, "in_progress", json!([]), json!(null))}),
            ),
            ev(
                json!({"type": "response.in_progress", "response": response(&id, "in_progress", json!([]), json!(null))}),
            ),
            ev(
                json!({"type": "response.output_item.added", "output_index": 0,
                      "item": {"id": item, "type": "message", "status": "in_progress", "content": [], "role": "assistant"}}),
            ),
            ev(
                json!({"type": "response.content_part.added", "item_id": item, "output_index": 0, "content_index": 0,
                      "part": {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}}),
            ),
        ];
        for i in 0..deltas {
            out.push(ev(json!({"type": "response.output_text.delta", "item_id": item, "output_index": 0,
                               "content_index": 0, "delta": words[(i % 10) as usize], "logprobs": []})));
        }
        out.push(ev(
            json!({"type": "response.output_text.done", "item_id": item, "output_index": 0,
                           "content_index": 0, "text": text, "logprobs": []}),
        ));
        out.push(ev(
            json!({"type": "response.content_part.done", "item_id": item, "output_index": 0,
                           "content_index": 0, "part": part}),
        ));
        out.push(ev(
            json!({"type": "response.output_item.done", "output_index": 0, "item": done_item}),
        ));
        let usage = json!({"input_tokens": 12, "input_tokens_details": {"cached_tokens": 0},
                           "output_tokens": deltas, "output_tokens_details": {"reasoning_tokens": 0},
                           "total_tokens": deltas + 12});
        out.push(ev(json!({"type": "response.completed",
                           "response": response(&id, "completed", json!([done_item]), usage)})));
        out
    };
    let create = |t: u64| {
        let mut c = json!({"type": "response.create", "model": "gpt-4.1-mini-2025-04-14",
                           "store": false, "input": format!("Turn {t}: say the sentence.")});
        if t >= if n2 { 2 } else { 1 } {
            c["previous_response_id"] = format!("resp_{:08}", t - if n2 { 2 } else { 1 }).into();
        }
        if n2 {
            c["stream_id"] = (if t.is_multiple_of(2) { "a" } else { "b" }).into();
        }
        c
    };
    let mut t = 0;
    while written.get() < size {
        if n2 {
            // Two turns side by side, one a lane, their events interleaved.
            line(&mut w, true, create(t))?;
            line(&mut w, true, create(t + 1))?;
            let (a, b) = (turn(t), turn(t + 1));
            for (x, y) in a.into_iter().zip(b) {
                line(&mut w, false, x)?;
                line(&mut w, false, y)?;
            }
            t += 2;
        } else {
            line(&mut w, true, create(t))?;
            for e in turn(t) {
                line(&mut w, false, e)?;
            }
            t += 1;
        }
    }
    let close = json!({"direction": "sent", "time": 1_798_000_000.0 + t as f64, "opcode": 8, "code": 1000, "reason": ""});
    w.write_all(format!("{close}\n").as_bytes())?;
    w.flush()?;
    drop(w);
    eprintln!("gen_capture: {out}: {t} turns");
    std::fs::rename(&partial, out)
}
