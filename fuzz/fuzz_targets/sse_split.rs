//! The SSE parser fed in random splits gives the same blocks as fed whole.
#![no_main]
use libfuzzer_sys::fuzz_target;
use sselint::sse::{Block, Parser};

fn frame(body: &[u8], cuts: &[usize]) -> Vec<String> {
    let mut out = Vec::new();
    let mut sink = |b: &Block<'_>| {
        out.push(format!(
            "{:?}|{:?}|{}|{}|{:?}",
            b.dispatch,
            b.retry,
            b.terminated,
            b.dropped,
            b.lines.iter().map(|l| (l.offset, l.line, b.bytes(l).to_vec())).collect::<Vec<_>>()
        ));
    };
    let mut p = Parser::with_limit(4096);
    let mut last = 0;
    for &c in cuts {
        if c >= last && c <= body.len() {
            p.feed(&body[last..c], &mut sink);
            last = c;
        }
    }
    p.feed(&body[last..], &mut sink);
    p.finish(&mut sink);
    out
}

fuzz_target!(|data: &[u8]| {
    // The first bytes choose the split points, the rest is the body.
    let (seed, body) = data.split_at(data.len().min(4));
    let mut cuts: Vec<usize> = seed.iter().map(|b| *b as usize * body.len() / 256).collect();
    cuts.sort_unstable();
    assert_eq!(frame(body, &[]), frame(body, &cuts));
});
