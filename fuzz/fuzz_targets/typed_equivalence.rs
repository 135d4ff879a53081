//! The typed fast path changes nothing but speed: any bytes lint to the
//! same result (findings, fingerprints, answer, ending) with it on and off,
//! read as the stream says and as each dialect in turn (`--dialect`, every
//! dialect of `dialect::ALL`, so each dialect's fast path sees every input);
//! and what `inspect` is told of each event (its kinds and summary) is the
//! same too.
#![no_main]
use libfuzzer_sys::fuzz_target;
use sselint::capture::{from_reader, Options};
use sselint::checks::Linter;
use sselint::dialect::Dialect;
use sselint::lint::{Diagnostic, Settings};
use sselint::pipeline::{lint_stream_with, Extras, Observer};
use sselint::sse::Block;

/// Each event's kinds and summary, as `inspect` reads them.
struct Seen(Vec<String>);

impl Observer for Seen {
    fn block(&mut self, _: &Block<'_>, _: &[Diagnostic], linter: &Linter<'_>) {
        self.0
            .push(format!("{:?} {:?}", linter.event_kind, linter.event_summary));
    }
}

fn lint(data: &[u8], typed: bool, dialect: Option<Dialect>, summaries: bool) -> Option<String> {
    let cap = from_reader("fuzz", Box::new(std::io::Cursor::new(data.to_vec())), &Options::default()).ok()?;
    let settings = Settings {
        typed,
        dialect,
        ..Settings::default()
    };
    let mut seen = Seen(Vec::new());
    let mut shown = String::new();
    for s in cap.streams {
        let extras = Extras {
            fields: false,
            summaries,
        };
        let mut r = lint_stream_with(s, &settings, &mut seen, extras);
        r.typed_chunks = 0;
        shown.push_str(&format!("{r:#?}\n"));
    }
    shown.push_str(&seen.0.join("\n"));
    Some(shown)
}

fuzz_target!(|data: &[u8]| {
    let forced = sselint::dialect::ALL.iter().map(|d| Some(*d));
    for dialect in std::iter::once(None).chain(forced) {
        for summaries in [false, true] {
            let (Some(fast), Some(general)) = (
                lint(data, true, dialect, summaries),
                lint(data, false, dialect, summaries),
            ) else {
                return;
            };
            assert_eq!(fast, general, "{dialect:?}, summaries {summaries}");
        }
    }
});
