//! The benchmark's baseline: the least work a stream linter must do — read
//! the file in blocks, split lines with memchr, and deserialize each
//! `data:` payload into a borrowed typed struct with serde_json — and
//! nothing else. `bench/run.sh` compares `sselint check` against it.
//!
//! With `--responses` or `--messages` each payload goes into that
//! dialect's typed event instead (type, indices, the text or arguments
//! delta), the same least work for those streams.
//!
//! usage: parse_limit FILE [--responses | --messages]

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
}

/// An OpenAI Responses event, as far as a text or arguments delta goes.
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
}

/// An Anthropic Messages event, as far as a text or input delta goes.
#[derive(Deserialize)]
#[allow(dead_code)]
struct MessagesEvent<'a> {
    #[serde(borrow, rename = "type")]
    kind: &'a str,
    index: Option<u64>,
    #[serde(borrow)]
    delta: Option<MessagesDelta<'a>>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct MessagesDelta<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<&'a str>,
    #[serde(borrow)]
    text: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    partial_json: Option<std::borrow::Cow<'a, str>>,
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

fn main() -> std::io::Result<()> {
    let path = std::env::args()
        .nth(1)
        .expect("usage: parse_limit FILE [--responses | --messages]");
    let dialect = std::env::args().nth(2).unwrap_or_default();
    let mut f = std::fs::File::open(path)?;
    let mut buf = vec![0u8; 1 << 20];
    let mut carry: Vec<u8> = Vec::new();
    let (mut events, mut chunks, mut chars) = (0u64, 0u64, 0u64);
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
            if let Some(data) = line.strip_prefix(b"data: ") {
                events += 1;
                if data != b"[DONE]" {
                    if let Some(n) = parse(data, &dialect) {
                        chunks += 1;
                        chars += n;
                    }
                }
            }
            start += i + 1;
        }
        carry.drain(..start);
    }
    println!("{events} events, {chunks} chunks, {chars} content bytes");
    Ok(())
}
