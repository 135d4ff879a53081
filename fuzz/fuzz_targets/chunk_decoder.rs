//! One event's data through the chunk decoder and every chunk check.
#![no_main]
use libfuzzer_sys::fuzz_target;
use sselint::checks::{Context, Linter};
use sselint::lint::Settings;
use sselint::sse::Parser;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = sselint::model::decode(text);
    let settings = Settings::default();
    let mut linter = Linter::new(&settings, Context::default());
    let mut p = Parser::new();
    let body = format!("data: {}\n\ndata: [DONE]\n\n", text.replace(['\n', '\r'], " "));
    p.feed(body.as_bytes(), &mut linter);
    let f = p.finish(&mut linter);
    let _ = linter.finish(&f, &[]);
});
