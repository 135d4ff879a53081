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
            // `samples` panics on a missing folder: nothing is skipped.
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
                        errors_elsewhere: false,
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

#[test]
fn sarif_junit_and_github_reports_of_a_mixed_set() {
    std::env::set_current_dir(root()).unwrap();
    let inputs = [
        "samples/providers/xai.sse",
        "samples/bad/cut-off.sse",
        "samples/bad/invalid-json.sse",
        "samples/har/firefox-truncated.har",
        "samples/curl/curl-v.txt",
    ];
    let run = Run {
        files: inputs
            .iter()
            .map(|p| {
                // As `check --format sarif|github` reads them: HAR findings
                // point into the .har.
                let opts = sselint::capture::Options {
                    har_positions: true,
                    ..Default::default()
                };
                lint_path(p, &opts, &Settings::default())
            })
            .collect(),
        profile: "openai".to_string(),
        suppressed: 0,
        fail_on: Some(sselint::lint::Severity::Warning),
    };
    let render = |r: &dyn Render| {
        let mut out = Vec::new();
        r.render(&run, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    };
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(
        r#""(semanticVersion|version)": "[0-9][0-9.]*""#,
        r#""$1": "[version]""#,
    );
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        insta::assert_snapshot!("mixed.sarif", render(&sselint::report::sarif::Sarif));
        insta::assert_snapshot!("mixed.junit", render(&sselint::report::junit::Junit));
        insta::assert_snapshot!(
            "mixed.github",
            render(&sselint::report::github::Github { verbose: true })
        );
    });
}

#[test]
fn findings_past_the_per_rule_limit_are_counted_not_shown() {
    let mut body = String::new();
    for _ in 0..50 {
        body.push_str("data: {not json}\n\n");
    }
    body.push_str("data: [DONE]\n\n");
    let r = lint_bytes(body.as_bytes());
    let s = &r.streams[0];
    let shown = s
        .diagnostics
        .iter()
        .filter(|d| d.rule == "invalid-json")
        .count();
    assert_eq!(shown, 20);
    assert_eq!(s.omitted.get("invalid-json"), Some(&30));
    assert_eq!(
        s.counts.0, 50,
        "50 invalid-json; the empty answer is their consequence"
    );
    let run = Run {
        files: vec![r],
        profile: "openai".into(),
        suppressed: 0,
        fail_on: None,
    };
    let mut out = Vec::new();
    Human {
        verbose: false,
        color: false,
        quiet: false,
        errors_elsewhere: false,
    }
    .render(&run, &mut out)
    .unwrap();
    assert!(String::from_utf8(out)
        .unwrap()
        .contains("… and 30 more `invalid-json` finding(s) in this stream"));
}
