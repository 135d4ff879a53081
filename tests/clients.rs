//! The client harness, for real: replays the whole corpus to the pinned
//! SDKs (clients/README.md) and requires that they still do what
//! `rules/observed.json` records. A client upgrade that reads a stream
//! differently fails here with the diff to review.
//!
//! It needs `clients/.venv` and `clients/node_modules` (`.ci/run` installs
//! both), and for the agent apps `clients/agents/node_modules`. Without them it says plainly that it did not run; with `CI=true`
//! their absence is a failure.
//!
//! The WebSocket-mode clients (openai-python's `responses.connect()`, which
//! needs `websockets`; openai-node's `ResponsesWS`, which needs `ws`) are
//! pinned in the same `requirements.txt` and `package.json`: an install
//! without them is a stale one (`clients/run.py` exits 3), which this test
//! reports as not run, and fails on under `CI=true`.

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
    // The agent apps (clients/agents/) run on the fixed subset of
    // clients/agents-subset.txt; `clients/run.py` without `--check`
    // refreshes their whole record. Without them installed, their recorded
    // outcomes stand and the test says so.
    // Every app's own binary, not one of them: a partial install (one app's
    // package missing) otherwise runs the subset and records "raised" for
    // the missing app, as if the app had failed on the stream.
    let agents_missing: Vec<String> = ["claude", "codex", "gemini", "opencode"]
        .iter()
        .map(|bin| root().join("clients/agents/node_modules/.bin").join(bin))
        .filter(|p| !p.exists())
        .map(|p| p.display().to_string())
        .collect();
    let mut cmd = Command::new(&python);
    cmd.arg(root().join("clients/run.py"))
        .arg("--check")
        .arg("--sselint")
        .arg(cargo_bin("sselint"));
    if agents_missing.is_empty() {
        cmd.arg("--agents-subset");
    } else {
        common::not_run(
            "the client harness's agent apps",
            &format!(
                "they did not run: it needs {} (install: cd clients/agents && npm ci); the SDKs ran",
                agents_missing.join(" and ")
            ),
        );
        cmd.arg("--no-agents");
    }
    // The gateway (LiteLLM) runs from its own venv; without it, its
    // recorded outcomes stand (clients/run.py leaves it out).
    let gateway = root().join("clients/.venv-litellm/bin/python");
    if !gateway.exists() {
        common::not_run(
            "the client harness's gateway",
            &format!(
                "it did not run: it needs {} (install: python3 -m venv clients/.venv-litellm && clients/.venv-litellm/bin/pip install -r clients/requirements-litellm.txt)",
                gateway.display()
            ),
        );
    }
    let out = cmd.output().expect("clients/run.py runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // A venv or node_modules installed before a client was pinned
    // (clients/run.py's STALE_INSTALL): not the clients of the record.
    if out.status.code() == Some(3) {
        common::not_run("the client harness", stderr.trim());
        return;
    }
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

/// The agent apps and the gateway stay contained (clients/README.md): each
/// app once per dialect it speaks, on that dialect's tool call, run under
/// `strace -f` by clients/containment.py, which fails on any connect beyond
/// 127.0.0.1, any file written outside the run's temporary HOME, and any
/// app that gave no outcome. It needs strace (`.ci/run` installs it), the
/// agent apps and the gateway's venv; without them it says SKIPPED, and
/// with `CI=true` their absence fails.
#[test]
fn agent_apps_and_gateway_reach_nothing_beyond_loopback_and_their_home() {
    let python = root().join("clients/.venv/bin/python");
    let strace = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("strace"))
            .find(|p| p.is_file())
    });
    let mut missing: Vec<String> = [
        (
            root().join("clients/agents/node_modules/.bin/opencode"),
            "cd clients/agents && npm ci",
        ),
        (root().join("clients/node_modules/.bin/node"), "cd clients && npm ci"),
        (
            root().join("clients/.venv-litellm/bin/python"),
            "python3 -m venv clients/.venv-litellm && clients/.venv-litellm/bin/pip install -r clients/requirements-litellm.txt",
        ),
        (
            python.clone(),
            "python3 -m venv clients/.venv && clients/.venv/bin/pip install -r clients/requirements.txt",
        ),
    ]
    .iter()
    .filter(|(p, _)| !p.exists())
    .map(|(p, how)| format!("{} (install: {how})", p.display()))
    .collect();
    if strace.is_none() {
        missing.push("strace on PATH (install: apt-get install strace)".into());
    }
    if !missing.is_empty() {
        common::not_run(
            "the containment check of the agent apps",
            &format!(
                "it did not run: it needs {} (.ci/run installs them)",
                missing.join(" and ")
            ),
        );
        return;
    }
    // containment.py replays with the sselint this test was built with.
    let out = Command::new(&python)
        .arg(root().join("clients/containment.py"))
        .arg("--ci")
        .env("SSELINT_BIN", cargo_bin("sselint"))
        .output()
        .expect("clients/containment.py runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "an agent app or the gateway was not contained, or did not run:\n{stdout}\n{stderr}"
    );
    let last = stdout.lines().last().unwrap_or_default();
    assert!(
        last.contains(" 0 breach(es), 0 without an outcome") && !last.contains(" 0 runs"),
        "clients/containment.py said no verdict:\n{stdout}"
    );
    say(last);
}
