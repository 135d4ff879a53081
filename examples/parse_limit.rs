//! The benchmark's baseline: the least work a stream linter must do — read
//! the file in blocks, split lines with memchr, and deserialize each
//! `data:` payload into a borrowed typed struct with serde_json — and
//! nothing else. `bench/run.sh` compares `sselint check` against it.
//!
//! usage: parse_limit FILE

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

fn main() -> std::io::Result<()> {
    let path = std::env::args().nth(1).expect("usage: parse_limit FILE");
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
                    if let Ok(c) = serde_json::from_slice::<Chunk>(data) {
                        chunks += 1;
                        for ch in &c.choices {
                            chars += ch
                                .delta
                                .as_ref()
                                .and_then(|d| d.content.as_ref())
                                .map_or(0, |s| s.len() as u64);
                        }
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
