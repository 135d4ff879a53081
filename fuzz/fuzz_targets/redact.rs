//! `redact` on any bytes: raw bodies and HAR documents, with and without
//! text scrubbing; no panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use sselint::redact::{self, Scrubber};

fuzz_target!(|data: &[u8]| {
    let mut s = Scrubber::new(7);
    let _ = redact::raw(data, Some(&mut s));
    let _ = redact::raw(data, None);
    if let Ok(mut doc) = serde_json::from_slice::<serde_json::Value>(data) {
        let _ = redact::har(&mut doc, Some(&mut s));
    }
});
