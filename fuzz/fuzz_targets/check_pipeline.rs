//! The whole `check` pipeline on any bytes, every renderer included.
#![no_main]
use libfuzzer_sys::fuzz_target;
use sselint::capture::{from_reader, Options};
use sselint::lint::Settings;
use sselint::pipeline::{lint_capture, NoObserver};
use sselint::report::{github::Github, human::Human, json::Json, junit::Junit, sarif::Sarif, Render, Run};

fuzz_target!(|data: &[u8]| {
    let Ok(cap) = from_reader("fuzz", Box::new(std::io::Cursor::new(data.to_vec())), &Options::default()) else {
        return;
    };
    let settings = Settings::default();
    let file = lint_capture(cap, &settings, &mut NoObserver);
    let run = Run {
        files: vec![file],
        profile: "openai".into(),
        suppressed: 0,
        fail_on: None,
    };
    let renderers: [&dyn Render; 5] = [
        &Human { verbose: true, color: false, quiet: false },
        &Json,
        &Sarif,
        &Junit,
        &Github { verbose: true },
    ];
    for r in renderers {
        let mut out = Vec::new();
        r.render(&run, &mut out).unwrap();
    }
});
