//! The HAR reader on any bytes: no panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use sselint::capture::{from_reader, InputFormat, Options};

fuzz_target!(|data: &[u8]| {
    let opts = Options {
        input_format: Some(InputFormat::Har),
        ..Options::default()
    };
    let _ = from_reader("fuzz.har", Box::new(std::io::Cursor::new(data.to_vec())), &opts);
});
