//! The curl reader (-i, -v, --raw, --trace) on any bytes: no panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use sselint::capture::{from_reader, Body, InputFormat, Options};
use std::io::Read;

fuzz_target!(|data: &[u8]| {
    let opts = Options {
        input_format: Some(InputFormat::Curl),
        ..Options::default()
    };
    if let Ok(cap) = from_reader("fuzz", Box::new(std::io::Cursor::new(data.to_vec())), &opts) {
        for s in cap.streams {
            if let Body::Reader(mut r) = s.body {
                let mut sink = Vec::new();
                let _ = r.read_to_end(&mut sink);
            }
        }
    }
});
