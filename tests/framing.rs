//! Framing is a function of the bytes alone: the same events, blocks and
//! findings whether a capture is fed whole, a byte at a time or split at
//! random points; and no input makes the parser panic.

mod common;
use common::*;
use proptest::prelude::*;
use sselint::checks::{Context, Linter};
use sselint::lint::Settings;
use sselint::sse::{Block, Parser, Sink};

/// A dispatched event: (index, type, data, last event id).
type Event = (u64, String, String, Option<String>);
/// A line: (offset, line number, content).
type LineRec = (u64, u64, String);
/// A block: (event, retry, terminated, lines).
type BlockRec = (Option<Event>, Option<u64>, bool, Vec<LineRec>);

/// A record of everything the parser hands out, comparable across splits.
#[derive(Debug, Default, PartialEq, Eq)]
struct Trace {
    blocks: Vec<BlockRec>,
}

impl Sink for Trace {
    fn block(&mut self, b: &Block<'_>) {
        let lines = b
            .lines
            .iter()
            .map(|l| {
                (
                    l.offset,
                    l.line,
                    String::from_utf8_lossy(b.bytes(l)).into_owned(),
                )
            })
            .collect();
        self.blocks.push((
            b.dispatch.as_ref().map(|d| {
                (
                    d.index,
                    d.event_type.to_string(),
                    d.data.to_string(),
                    d.last_event_id.map(str::to_string),
                )
            }),
            b.retry,
            b.terminated,
            lines,
        ));
    }
}

/// Feeds `body` to a parser in the pieces `cuts` makes, into `sink`.
fn feed_split(body: &[u8], cuts: &[usize], sink: &mut impl Sink) -> sselint::sse::Framing {
    let mut p = Parser::new();
    let mut last = 0;
    for &c in cuts {
        let c = c.min(body.len());
        if c >= last {
            p.feed(&body[last..c], sink);
            last = c;
        }
    }
    p.feed(&body[last..], sink);
    p.finish(sink)
}

fn frame(body: &[u8], cuts: &[usize]) -> (Trace, sselint::sse::Framing) {
    let mut t = Trace::default();
    let f = feed_split(body, cuts, &mut t);
    (t, f)
}

/// The findings a split feed produces (rule, offset, line, column).
fn findings(body: &[u8], cuts: &[usize]) -> Vec<(&'static str, u64, u64, u64)> {
    let settings = Settings::default();
    let mut l = Linter::new(&settings, Context::default());
    let f = feed_split(body, cuts, &mut l);
    let r = l.finish(&f, &[]);
    r.out
        .diagnostics
        .iter()
        .map(|d| {
            (
                d.rule,
                d.location.byte_offset,
                d.location.line,
                d.location.column,
            )
        })
        .collect()
}

fn all_raw_samples() -> Vec<Vec<u8>> {
    let mut v = Vec::new();
    for dir in ["good", "providers", "bad"] {
        // `samples` panics on a missing folder: nothing is skipped.
        for p in samples(dir) {
            if p.extension().is_some_and(|e| e == "sse") {
                v.push(std::fs::read(p).unwrap());
            }
        }
    }
    let cases = std::fs::read_dir(root().join("tests/cases"))
        .unwrap_or_else(|e| panic!("tests/cases: {e}"));
    for p in cases.map(|e| e.unwrap()) {
        if p.path().extension().is_some_and(|e| e == "sse") {
            v.push(std::fs::read(p.path()).unwrap());
        }
    }
    assert!(v.len() > 50, "only {} raw samples found", v.len());
    v
}

#[test]
fn every_sample_frames_the_same_whole_and_byte_by_byte() {
    for body in all_raw_samples() {
        let whole = frame(&body, &[]);
        let cuts: Vec<usize> = (0..body.len()).collect();
        let bytewise = frame(&body, &cuts);
        assert_eq!(whole, bytewise);
        assert_eq!(findings(&body, &[]), findings(&body, &cuts));
    }
}

proptest! {
    // SSELINT_TEST_DEPTH=full (.ci/run) runs 64 cases, the default 16.
    #![proptest_config(ProptestConfig::with_cases(cases(16, 64)))]

    #[test]
    fn every_sample_frames_the_same_at_random_splits(seed in any::<u64>(), n in 1usize..12) {
        for body in all_raw_samples() {
            let mut cuts: Vec<usize> = (0..n)
                .map(|i| (seed.wrapping_mul(6364136223846793005).wrapping_add(i as u64 * 1442695040888963407) % (body.len() as u64 + 1)) as usize)
                .collect();
            cuts.sort_unstable();
            prop_assert_eq!(frame(&body, &[]), frame(&body, &cuts));
            prop_assert_eq!(findings(&body, &[]), findings(&body, &cuts));
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic_and_split_the_same(body in proptest::collection::vec(any::<u8>(), 0..600), cut in any::<usize>()) {
        let c = if body.is_empty() { 0 } else { cut % body.len() };
        prop_assert_eq!(frame(&body, &[]), frame(&body, &[c]));
        let _ = lint_bytes(&body);
    }

    #[test]
    fn sse_shaped_noise_never_panics(lines in proptest::collection::vec(
        prop_oneof![
            Just("data: [DONE]".to_string()),
            Just("".to_string()),
            Just(": ping".to_string()),
            Just("event: error".to_string()),
            Just("retry: 10".to_string()),
            Just("id: 7".to_string()),
            "data: \\{\"choices\":\\[\\{\"index\":[0-2],\"delta\":\\{\"content\":\"[a-z]{0,3}\"\\},\"finish_reason\":(null|\"stop\")\\}\\]\\}",
            "data: \\{\"choices\":\\[\\{\"delta\":\\{\"tool_calls\":\\[\\{\"index\":[0-1],\"function\":\\{\"arguments\":\"[{}a-z:]{0,4}\"\\}\\}\\]\\}\\}\\]\\}",
            "[a-z:{}\\[\\] ]{0,12}",
        ], 0..30), sep in prop_oneof![Just("\n"), Just("\r\n"), Just("\r")]) {
        let body = lines.join(sep);
        let _ = lint_bytes(body.as_bytes());
    }
}

#[test]
fn crlf_lf_and_cr_give_the_same_events() {
    let lf = std::fs::read(root().join("samples/good/openai-basic.sse")).unwrap();
    let text = String::from_utf8(lf.clone()).unwrap();
    let events = |b: &[u8]| -> Vec<_> {
        frame(b, &[])
            .0
            .blocks
            .into_iter()
            .filter_map(|b| b.0)
            .collect::<Vec<_>>()
    };
    let want = events(&lf);
    assert!(!want.is_empty());
    assert_eq!(events(text.replace('\n', "\r\n").as_bytes()), want);
    assert_eq!(events(text.replace('\n', "\r").as_bytes()), want);
}
