//! The typed fast path changes nothing but speed: any bytes lint to the
//! same result (findings, fingerprints, answer, ending) with it on and off.
#![no_main]
use libfuzzer_sys::fuzz_target;
use sselint::capture::{from_reader, Options};
use sselint::lint::Settings;
use sselint::pipeline::{lint_capture, FileResult, NoObserver};

fn lint(data: &[u8], typed: bool) -> Option<FileResult> {
    let cap = from_reader("fuzz", Box::new(std::io::Cursor::new(data.to_vec())), &Options::default()).ok()?;
    let settings = Settings { typed, ..Settings::default() };
    let mut r = lint_capture(cap, &settings, &mut NoObserver);
    for s in &mut r.streams {
        s.typed_chunks = 0;
    }
    Some(r)
}

fuzz_target!(|data: &[u8]| {
    let (Some(fast), Some(general)) = (lint(data, true), lint(data, false)) else {
        return;
    };
    assert_eq!(format!("{fast:#?}"), format!("{general:#?}"));
});
