//! The benchmark's baseline: the least work a stream linter must do — read
//! the file in blocks, split lines with memchr, and deserialize each
//! `data:` payload into a borrowed typed struct with serde_json — and
//! nothing else. `bench/run.sh` compares `sselint check` against it.
//!
//! The typed struct holds what the format carries, read the same way for
//! every dialect: identifiers and types as borrowed strings, numbers, and
//! every text the stream carries (content, tool-call arguments, and for
//! Responses the `.done` events' and the items' repeated text) as a
//! string; the rest is skipped. What only the rarer events carry (the
//! response, an item, a part, the message, a block) is boxed, so that a
//! delta does not pay for moving a larger struct. With `--responses` or
//! `--messages` each payload goes into that dialect's typed event, and
//! the `event:` line that names it is read too (Chat streams have none).
//!
//! On the transports that are not SSE (issue 37): `--ollama` reads each
//! NDJSON line (memchr) into Ollama's typed line; `--converse` reads AWS
//! event-stream frames (lengths, both CRCs with crc32fast, the
//! `:event-type` header) and each payload into a ConverseStream typed
//! event; `--invoke` the same frames, each `chunk` payload's base64
//! `bytes` decoded into a Messages typed event.
//!
//! usage: parse_limit FILE [--responses | --messages | --gemini | --ollama | --converse | --invoke]

use serde::Deserialize;
use std::io::Read;

#[derive(Deserialize)]
#[allow(dead_code)]
struct Chunk<'a> {
    #[serde(borrow)]
    id: Option<&'a str>,
    #[serde(borrow)]
    object: Option<&'a str>,
    created: Option<u64>,
    #[serde(borrow)]
    model: Option<&'a str>,
    #[serde(borrow, default)]
    choices: Vec<Choice<'a>>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Choice<'a> {
    index: Option<u64>,
    #[serde(borrow)]
    delta: Option<Delta<'a>>,
    #[serde(borrow)]
    finish_reason: Option<&'a str>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Delta<'a> {
    #[serde(borrow)]
    role: Option<&'a str>,
    #[serde(borrow)]
    content: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    refusal: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    tool_calls: Option<Vec<ToolCall<'a>>>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct ToolCall<'a> {
    index: Option<u64>,
    #[serde(borrow)]
    id: Option<&'a str>,
    #[serde(borrow, rename = "type")]
    kind: Option<&'a str>,
    #[serde(borrow)]
    function: Option<Function<'a>>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Function<'a> {
    #[serde(borrow)]
    name: Option<&'a str>,
    #[serde(borrow)]
    arguments: Option<std::borrow::Cow<'a, str>>,
}

/// An OpenAI Responses event: a delta, a `.done` event with its text or
/// arguments, a content part, an output item, or the response.
#[derive(Deserialize)]
#[allow(dead_code)]
struct ResponsesEvent<'a> {
    #[serde(borrow, rename = "type")]
    kind: &'a str,
    sequence_number: Option<u64>,
    #[serde(borrow)]
    item_id: Option<&'a str>,
    output_index: Option<u64>,
    content_index: Option<u64>,
    #[serde(borrow)]
    delta: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    text: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    arguments: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    name: Option<&'a str>,
    #[serde(borrow)]
    part: Option<Box<ResponsesPart<'a>>>,
    #[serde(borrow)]
    item: Option<Box<ResponsesItem<'a>>>,
    #[serde(borrow)]
    response: Option<Box<Response<'a>>>,
}

/// A Responses content part.
#[derive(Deserialize)]
#[allow(dead_code)]
struct ResponsesPart<'a> {
    #[serde(borrow, rename = "type")]
    kind: &'a str,
    #[serde(borrow)]
    text: Option<std::borrow::Cow<'a, str>>,
}

/// A Responses output item: a message of parts, or a function call.
#[derive(Deserialize)]
#[allow(dead_code)]
struct ResponsesItem<'a> {
    #[serde(borrow)]
    id: Option<&'a str>,
    #[serde(borrow, rename = "type")]
    kind: &'a str,
    #[serde(borrow)]
    status: Option<&'a str>,
    #[serde(borrow)]
    role: Option<&'a str>,
    #[serde(borrow)]
    content: Option<Vec<ResponsesPart<'a>>>,
    #[serde(borrow)]
    arguments: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    call_id: Option<&'a str>,
    #[serde(borrow)]
    name: Option<&'a str>,
}

/// The response a lifecycle event carries.
#[derive(Deserialize)]
#[allow(dead_code)]
struct Response<'a> {
    #[serde(borrow)]
    id: Option<&'a str>,
    #[serde(borrow)]
    status: Option<&'a str>,
    #[serde(borrow)]
    model: Option<&'a str>,
    #[serde(borrow, default)]
    output: Vec<ResponsesItem<'a>>,
    usage: Option<Usage>,
}

/// Token counts (both dialects' names).
#[derive(Deserialize)]
#[allow(dead_code)]
struct Usage {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    total_tokens: Option<u64>,
}

/// An Anthropic Messages event: the message, a content block, a delta
/// (of a block, or of the message with its stop reason), and usage.
#[derive(Deserialize)]
#[allow(dead_code)]
struct MessagesEvent<'a> {
    #[serde(borrow, rename = "type")]
    kind: &'a str,
    index: Option<u64>,
    #[serde(borrow)]
    message: Option<Box<Message<'a>>>,
    #[serde(borrow)]
    content_block: Option<Box<Block<'a>>>,
    #[serde(borrow)]
    delta: Option<MessagesDelta<'a>>,
    usage: Option<Usage>,
}

/// The message `message_start` carries.
#[derive(Deserialize)]
#[allow(dead_code)]
struct Message<'a> {
    #[serde(borrow)]
    id: Option<&'a str>,
    #[serde(borrow)]
    role: Option<&'a str>,
    #[serde(borrow)]
    model: Option<&'a str>,
    #[serde(borrow)]
    stop_reason: Option<&'a str>,
    usage: Option<Usage>,
}

/// A content block as `content_block_start` opens it.
#[derive(Deserialize)]
#[allow(dead_code)]
struct Block<'a> {
    #[serde(borrow, rename = "type")]
    kind: &'a str,
    #[serde(borrow)]
    text: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    id: Option<&'a str>,
    #[serde(borrow)]
    name: Option<&'a str>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct MessagesDelta<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<&'a str>,
    #[serde(borrow)]
    text: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    thinking: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    partial_json: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    stop_reason: Option<&'a str>,
}

/// A Gemini chunk: candidates with their parts, the running usage, the
/// model and response ids.
#[derive(Deserialize)]
#[allow(dead_code)]
#[serde(rename_all = "camelCase")]
struct GeminiChunk<'a> {
    #[serde(borrow)]
    candidates: Option<Vec<GeminiCandidate<'a>>>,
    usage_metadata: Option<GeminiUsage>,
    #[serde(borrow)]
    model_version: Option<&'a str>,
    #[serde(borrow)]
    response_id: Option<&'a str>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
#[serde(rename_all = "camelCase")]
struct GeminiCandidate<'a> {
    #[serde(borrow)]
    content: Option<GeminiContent<'a>>,
    #[serde(borrow)]
    finish_reason: Option<&'a str>,
    index: Option<u64>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct GeminiContent<'a> {
    #[serde(borrow)]
    parts: Option<Vec<GeminiPart<'a>>>,
    #[serde(borrow)]
    role: Option<&'a str>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
#[serde(rename_all = "camelCase")]
struct GeminiPart<'a> {
    #[serde(borrow)]
    text: Option<std::borrow::Cow<'a, str>>,
    function_call: Option<serde_json::Value>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
#[serde(rename_all = "camelCase")]
struct GeminiUsage {
    prompt_token_count: Option<u64>,
    candidates_token_count: Option<u64>,
    total_token_count: Option<u64>,
}

/// An Ollama `/api/chat` line.
#[derive(Deserialize)]
#[allow(dead_code)]
struct OllamaLine<'a> {
    #[serde(borrow)]
    model: Option<&'a str>,
    #[serde(borrow)]
    created_at: Option<&'a str>,
    #[serde(borrow)]
    message: Option<OllamaMessage<'a>>,
    #[serde(borrow)]
    response: Option<std::borrow::Cow<'a, str>>,
    done: Option<bool>,
    #[serde(borrow)]
    done_reason: Option<&'a str>,
    prompt_eval_count: Option<u64>,
    eval_count: Option<u64>,
    #[serde(borrow)]
    error: Option<std::borrow::Cow<'a, str>>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct OllamaMessage<'a> {
    #[serde(borrow)]
    role: Option<&'a str>,
    #[serde(borrow)]
    content: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    thinking: Option<std::borrow::Cow<'a, str>>,
    tool_calls: Option<serde_json::Value>,
}

/// A ConverseStream event (any of them: the fields of each, optional).
#[derive(Deserialize)]
#[allow(dead_code)]
#[serde(rename_all = "camelCase")]
struct ConverseEvent<'a> {
    #[serde(borrow)]
    role: Option<&'a str>,
    content_block_index: Option<u64>,
    #[serde(borrow)]
    delta: Option<ConverseDelta<'a>>,
    start: Option<serde_json::Value>,
    #[serde(borrow)]
    stop_reason: Option<&'a str>,
    usage: Option<serde_json::Value>,
    #[serde(borrow)]
    p: Option<&'a str>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
#[serde(rename_all = "camelCase")]
struct ConverseDelta<'a> {
    #[serde(borrow)]
    text: Option<std::borrow::Cow<'a, str>>,
    tool_use: Option<serde_json::Value>,
    reasoning_content: Option<serde_json::Value>,
}

/// An Invoke `chunk` payload.
#[derive(Deserialize)]
#[allow(dead_code)]
struct InvokeChunk<'a> {
    #[serde(borrow)]
    bytes: &'a str,
    #[serde(borrow)]
    p: Option<&'a str>,
}

/// Parses one payload as the chosen format; the bytes of text it carried.
fn parse(data: &[u8], dialect: &str) -> Option<u64> {
    match dialect {
        "--responses" => serde_json::from_slice::<ResponsesEvent>(data)
            .ok()
            .map(|e| e.delta.map_or(0, |d| d.len() as u64)),
        "--messages" => serde_json::from_slice::<MessagesEvent>(data).ok().map(|e| {
            e.delta.map_or(0, |d| {
                d.text.or(d.partial_json).map_or(0, |t| t.len() as u64)
            })
        }),
        "--ollama" => serde_json::from_slice::<OllamaLine>(data).ok().map(|l| {
            l.message
                .and_then(|m| m.content)
                .or(l.response)
                .map_or(0, |t| t.len() as u64)
        }),
        "--converse" => serde_json::from_slice::<ConverseEvent>(data)
            .ok()
            .map(|e| e.delta.and_then(|d| d.text).map_or(0, |t| t.len() as u64)),
        "--invoke" => {
            use base64::Engine as _;
            let c = serde_json::from_slice::<InvokeChunk>(data).ok()?;
            let inner = base64::engine::general_purpose::STANDARD
                .decode(c.bytes)
                .ok()?;
            parse(&inner, "--messages")
        }
        "--gemini" => serde_json::from_slice::<GeminiChunk>(data).ok().map(|c| {
            c.candidates
                .iter()
                .flatten()
                .flat_map(|c| c.content.iter().flat_map(|c| c.parts.iter().flatten()))
                .map(|p| p.text.as_ref().map_or(0, |t| t.len() as u64))
                .sum()
        }),
        _ => serde_json::from_slice::<Chunk>(data).ok().map(|c| {
            c.choices
                .iter()
                .map(|ch| {
                    ch.delta
                        .as_ref()
                        .and_then(|d| d.content.as_ref())
                        .map_or(0, |s| s.len() as u64)
                })
                .sum()
        }),
    }
}

/// An AWS event-stream body, frame by frame: lengths, both CRCs, the
/// `:event-type` header found, each payload parsed as `dialect`.
fn frames(f: &mut std::fs::File, dialect: &str) -> std::io::Result<()> {
    let u32_at = |b: &[u8], i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    let mut buf = vec![0u8; 1 << 20];
    let mut carry: Vec<u8> = Vec::new();
    let (mut frames, mut named, mut chunks, mut chars, mut bad) = (0u64, 0u64, 0u64, 0u64, 0u64);
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        carry.extend_from_slice(&buf[..n]);
        let mut at = 0;
        while carry.len() - at >= 12 {
            let b = &carry[at..];
            let (total, headers) = (u32_at(b, 0) as usize, u32_at(b, 4) as usize);
            if b.len() < total {
                break;
            }
            frames += 1;
            if crc32fast::hash(&b[..8]) != u32_at(b, 8)
                || crc32fast::hash(&b[..total - 4]) != u32_at(b, total - 4)
            {
                bad += 1;
            }
            if memchr::memmem::find(&b[12..12 + headers], b":event-type").is_some() {
                named += 1;
            }
            if let Some(n) = parse(&b[12 + headers..total - 4], dialect) {
                chunks += 1;
                chars += n;
            }
            at += total;
        }
        carry.drain(..at);
    }
    println!(
        "{frames} frames ({named} named, {bad} bad), {chunks} payloads, {chars} content bytes"
    );
    Ok(())
}

fn main() -> std::io::Result<()> {
    let path = std::env::args().nth(1).expect(
        "usage: parse_limit FILE [--responses | --messages | --gemini | --ollama | --converse | --invoke]",
    );
    let dialect = std::env::args().nth(2).unwrap_or_default();
    let mut f = std::fs::File::open(path)?;
    if dialect == "--converse" || dialect == "--invoke" {
        return frames(&mut f, &dialect);
    }
    let ollama = dialect == "--ollama";
    let mut buf = vec![0u8; 1 << 20];
    let mut carry: Vec<u8> = Vec::new();
    let (mut events, mut names, mut chunks, mut chars) = (0u64, 0u64, 0u64, 0u64);
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        carry.extend_from_slice(&buf[..n]);
        let mut start = 0;
        while let Some(i) = memchr::memchr(b'\n', &carry[start..]) {
            let line = &carry[start..start + i];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if ollama {
                // Every line is a message.
                events += 1;
                if let Some(n) = parse(line, &dialect) {
                    chunks += 1;
                    chars += n;
                }
            } else if let Some(data) = line.strip_prefix(b"data: ") {
                events += 1;
                if data != b"[DONE]" {
                    if let Some(n) = parse(data, &dialect) {
                        chunks += 1;
                        chars += n;
                    }
                }
            } else if let Some(name) = line.strip_prefix(b"event: ") {
                // The event's name, which a linter compares with its type.
                if std::str::from_utf8(name).is_ok() {
                    names += 1;
                }
            }
            start += i + 1;
        }
        carry.drain(..start);
    }
    println!("{events} events ({names} named), {chunks} chunks, {chars} content bytes");
    Ok(())
}
