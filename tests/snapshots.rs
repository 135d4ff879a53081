//! Snapshots of the human and JSON reports for every shipped sample: the
//! exact text is part of the product. Review changes with
//! `INSTA_UPDATE=always cargo test` (or `cargo insta review`).

mod common;
use common::*;
use sselint::lint::Settings;
use sselint::pipeline::lint_path;
use sselint::report::{human::Human, json::Json, Render, Run};

fn render(r: &dyn Render, path: &str) -> String {
    let run = Run {
        files: vec![lint_path(path, &Default::default(), &Settings::default())],
        profile: "openai".to_string(),
        suppressed: 0,
        fail_on: Some(sselint::lint::Severity::Error),
    };
    let mut out = Vec::new();
    r.render(&run, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn human_and_json_reports_of_every_sample() {
    std::env::set_current_dir(root()).unwrap();
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r#""version": "[0-9.]+""#, r#""version": "[version]""#);
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        for dir in ["good", "providers", "bad", "har", "curl"] {
            if !root().join("samples").join(dir).exists() {
                continue;
            }
            for p in samples(dir) {
                let rel = p
                    .strip_prefix(root())
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                let name = rel.replace(['/', '.'], "_");
                let human = render(
                    &Human {
                        verbose: true,
                        color: false,
                        quiet: false,
                    },
                    &rel,
                );
                insta::assert_snapshot!(format!("{name}.human"), human);
                let json = render(&Json, &rel);
                insta::assert_snapshot!(format!("{name}.json"), json);
            }
        }
    });
}
