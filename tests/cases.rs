//! Our conformance cases (`tests/cases/NN-name.sse` + `.expect.json`), in
//! the shape of the shared runner's: captures shaped like public bug
//! reports and the seed documents, with the verdict each must get.

mod common;
use common::*;
use serde_json::Value;
use sselint::lint::Severity;

fn sev(s: &str) -> Severity {
    Severity::parse(s).unwrap_or_else(|| panic!("bad severity {s}"))
}

#[test]
fn every_case_gets_its_verdict() {
    let dir = root().join("tests/cases");
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/cases exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".expect.json"))
        .collect();
    cases.sort();
    assert!(
        cases.len() >= 18,
        "expected at least 18 cases, found {}",
        cases.len()
    );
    let mut failures = Vec::new();
    for exp_path in cases {
        let stem = exp_path
            .to_string_lossy()
            .trim_end_matches(".expect.json")
            .to_string();
        let input = ["sse", "txt", "har"]
            .iter()
            .map(|e| std::path::PathBuf::from(format!("{stem}.{e}")))
            .find(|p| p.exists())
            .unwrap_or_else(|| panic!("no capture for {stem}"));
        let exp: Value =
            serde_json::from_str(&std::fs::read_to_string(&exp_path).unwrap()).unwrap();
        let r = lint_file(&input);
        let ds = diags(&r);
        let mut problems = Vec::new();
        for want in exp["must_report"].as_array().into_iter().flatten() {
            let want = want.as_str().unwrap();
            if !want.split('|').any(|alt| ds.iter().any(|d| d.rule == alt)) {
                problems.push(format!("missing {want}"));
            }
        }
        for not in exp["must_not_report"].as_array().into_iter().flatten() {
            let (name, floor) = not
                .as_str()
                .unwrap()
                .split_once(':')
                .unwrap_or((not.as_str().unwrap(), "info"));
            if ds
                .iter()
                .any(|d| d.rule == name && d.severity >= sev(floor))
            {
                problems.push(format!("wrongly reports {name}"));
            }
        }
        if let Some(max) = exp["max_severity"].as_str() {
            let over: Vec<_> = ds
                .iter()
                .filter(|d| d.severity > sev(max))
                .map(|d| d.rule)
                .collect();
            if !over.is_empty() {
                problems.push(format!("above {max}: {over:?}"));
            }
        }
        for (rule, want) in exp["severity_of"].as_object().into_iter().flatten() {
            let got: Vec<_> = ds
                .iter()
                .filter(|d| d.rule == rule)
                .map(|d| d.severity)
                .collect();
            if got.is_empty() {
                problems.push(format!("{rule} never fired (severity_of wants {want})"));
            } else if !got.contains(&sev(want.as_str().unwrap())) {
                problems.push(format!("{rule} severity {got:?} != {want}"));
            }
        }
        let stream = &r.streams[0];
        let c0 = stream.answer.choices.values().next();
        if let Some(t) = exp.get("text").and_then(Value::as_str) {
            let got = c0.map(|c| c.text.kept.as_str()).unwrap_or("");
            if got != t {
                problems.push(format!("text {got:?} != {t:?}"));
            }
        }
        if let Some(f) = exp.get("finish_reason") {
            let got = c0.and_then(|c| c.finish_reason.clone());
            if got.as_deref() != f.as_str() {
                problems.push(format!("finish_reason {got:?} != {f}"));
            }
        }
        if let Some(e) = exp.get("ending").and_then(Value::as_str) {
            if stream.ending.name() != e {
                problems.push(format!("ending {} != {e}", stream.ending.name()));
            }
        }
        if !problems.is_empty() {
            failures.push(format!("{}: {}", input.display(), problems.join("; ")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
