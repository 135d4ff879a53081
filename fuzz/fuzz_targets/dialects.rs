//! Any bytes read as each dialect in turn (`--dialect chat|responses|
//! messages|gemini`, every dialect of `dialect::ALL`): the Responses,
//! Messages and Gemini checkers see every event, however malformed, and
//! must neither panic nor grow without bound.
#![no_main]
use libfuzzer_sys::fuzz_target;
use sselint::capture::{from_reader, Options};
use sselint::lint::Settings;
use sselint::pipeline::{lint_capture, NoObserver};
use sselint::report::{json::Json, Render, Run};

fuzz_target!(|data: &[u8]| {
    for d in sselint::dialect::ALL {
        let Ok(cap) = from_reader("fuzz", Box::new(std::io::Cursor::new(data.to_vec())), &Options::default()) else {
            return;
        };
        let settings = Settings {
            dialect: Some(*d),
            ..Settings::default()
        };
        let file = lint_capture(cap, &settings, &mut NoObserver);
        for s in &file.streams {
            assert_eq!(s.dialect, Some(*d), "--dialect is obeyed");
        }
        let run = Run {
            files: vec![file],
            profile: "openai".into(),
            suppressed: 0,
            fail_on: None,
        };
        let mut out = Vec::new();
        Json.render(&run, &mut out).unwrap();
    }
});
