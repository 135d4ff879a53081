//! The build script embeds the catalogue of the checkout it builds, found
//! at its run time, and refuses to embed an empty one.

#[allow(dead_code)]
#[path = "../build.rs"]
mod build_script;

mod common;
use std::path::PathBuf;

fn scratch(name: &str) -> common::Scratch {
    let d = common::Scratch::new(&format!("build-{name}"));
    std::fs::create_dir_all(d.join("rules/profiles")).unwrap();
    std::fs::create_dir_all(d.join("rules/chat")).unwrap();
    d
}

#[test]
fn a_checkout_whose_rules_folder_holds_no_rule_does_not_build() {
    let d = scratch("empty");
    std::fs::write(d.join("rules/profiles/openai.toml"), "name = \"openai\"\n").unwrap();
    let err = build_script::generate(&d).unwrap_err();
    assert!(err.contains("holds no rule"), "{err}");
    // A rule outside a dialect folder is refused by name.
    std::fs::write(d.join("rules/cut-off.toml"), "name = \"cut-off\"\n").unwrap();
    let err = build_script::generate(&d).unwrap_err();
    assert!(
        err.contains("cut-off.toml") && err.contains("dialect"),
        "{err}"
    );
    std::fs::remove_file(d.join("rules/cut-off.toml")).unwrap();
    assert!(
        err.contains(&d.join("rules").display().to_string()),
        "{err}"
    );
    // No rules folder at all: also an error naming it.
    std::fs::remove_dir_all(d.join("rules")).unwrap();
    let err = build_script::generate(&d).unwrap_err();
    assert!(err.contains("rules"), "{err}");
}

#[test]
fn a_checkout_without_the_openai_profile_does_not_build() {
    let d = scratch("noprofile");
    std::fs::write(d.join("rules/chat/cut-off.toml"), "name = \"cut-off\"\n").unwrap();
    let err = build_script::generate(&d).unwrap_err();
    assert!(err.contains("openai"), "{err}");
}

#[test]
fn the_catalogue_comes_from_the_checkout_given_at_run_time() {
    let d = scratch("moved");
    std::fs::write(d.join("rules/chat/cut-off.toml"), "name = \"cut-off\"\n").unwrap();
    std::fs::write(d.join("rules/profiles/openai.toml"), "name = \"openai\"\n").unwrap();
    let (code, texts, files) = build_script::generate(&d).unwrap();
    assert_eq!(files.len(), 2);
    let canon = d.canonicalize().unwrap();
    assert!(files.iter().all(|f| f.starts_with(&canon)), "{files:?}");
    // The file's head (all of it: it has no examples) is a range of the
    // heads' text, its examples an empty range of theirs.
    assert!(
        code.contains("(\"chat\", \"cut-off\", 0..17, 0..0),"),
        "{code}"
    );
    assert_eq!(
        texts,
        [
            ("rule-heads.toml", "name = \"cut-off\"\n".to_string()),
            ("rule-examples.toml", String::new())
        ]
    );
    // Each rule gets its typed id, named after its file.
    assert!(
        code.contains(
            "pub const CUT_OFF: crate::lint::RuleId = crate::lint::RuleId::of(\"cut-off\");"
        ),
        "{code}"
    );
    // This checkout's own catalogue is the one the binary holds.
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let (_, _, files) = build_script::generate(&here).unwrap();
    assert!(files.len() > 40, "{}", files.len());
    // And the script reads the variable when it runs, not when it is built.
    let src = std::fs::read_to_string(here.join("build.rs")).unwrap();
    assert!(!src.contains(concat!("env!", "(\"CARGO_MANIFEST_DIR\")")));
}
