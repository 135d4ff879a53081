//! The client harness, for real: replays the whole corpus to the pinned
//! SDKs (clients/README.md) and requires that they still do what
//! `rules/observed.json` records. A client upgrade that reads a stream
//! differently fails here with the diff to review.
//!
//! It needs `clients/.venv` and `clients/node_modules` (`.ci/run` installs
//! both). Without them it says plainly that it did not run; with `CI=true`
//! their absence is a failure.

mod common;
use assert_cmd::cargo::cargo_bin;
use common::root;
use std::io::Write;
use std::process::Command;

/// Prints past the test harness's capture, so `cargo test` shows it.
fn say(msg: &str) {
    let _ = writeln!(std::io::stderr(), "{msg}");
}

#[test]
fn real_clients_still_do_what_rules_observed_json_records() {
    let python = root().join("clients/.venv/bin/python");
    let node = root().join("clients/node_modules/.bin/node");
    let missing: Vec<String> = [
        (&python, "python3 -m venv clients/.venv && clients/.venv/bin/pip install -r clients/requirements.txt"),
        (&node, "cd clients && npm ci"),
    ]
    .iter()
    .filter(|(p, _)| !p.exists())
    .map(|(p, how)| format!("{} (install: {how})", p.display()))
    .collect();
    if !missing.is_empty() {
        let msg = format!(
            "it did not run: it needs {} (.ci/run installs them)",
            missing.join(" and ")
        );
        common::not_run("the client harness", &msg);
        return;
    }
    let out = Command::new(&python)
        .arg(root().join("clients/run.py"))
        .arg("--check")
        .arg("--sselint")
        .arg(cargo_bin("sselint"))
        .output()
        .expect("clients/run.py runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the clients no longer do what rules/observed.json records:\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains("match rules/observed.json"),
        "clients/run.py --check said nothing about the record:\n{stdout}"
    );
    say(stdout.trim());
}
