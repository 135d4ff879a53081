//! The Python wheel, installed: its `sselint` command lints a shipped
//! sample, and the Python package's tests (python/tests, pytest) and type
//! check (mypy --strict) pass against it.
//!
//! It needs `python/.venv` with the wheel, pytest and mypy installed
//! (`.ci/run` builds the wheel with maturin and installs it there).
//! Without it it says plainly that it did not run; with `CI=true` its
//! absence is a failure.

mod common;
use common::root;
use std::io::Write;
use std::process::Command;

/// How to make the venv this test needs.
const HOW: &str = "python3 -m venv python/.venv && python/.venv/bin/pip install \
    -r python/requirements-test.txt target/wheels/sselint-*.whl \
    (the wheel: maturin build --release --out target/wheels; .ci/run does both)";

fn venv_bin(name: &str) -> std::path::PathBuf {
    root().join("python/.venv/bin").join(name)
}

/// The venv's tools, or None (and a "did not run" notice) without them.
fn tools() -> Option<()> {
    let missing: Vec<String> = ["python", "sselint", "pytest", "mypy"]
        .iter()
        .map(|n| venv_bin(n))
        .filter(|p| !p.exists())
        .map(|p| p.display().to_string())
        .collect();
    if missing.is_empty() {
        return Some(());
    }
    common::not_run(
        "the Python wheel's tests",
        &format!("it did not run: it needs {} ({HOW})", missing.join(", ")),
    );
    None
}

fn run(cmd: &mut Command) -> (i32, String) {
    let out = cmd
        .current_dir(root())
        .env_remove("SSELINT_BIN")
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn the_installed_command_lints_a_shipped_sample() {
    if tools().is_none() {
        return;
    }
    let (code, out) = run(Command::new(venv_bin("sselint")).args([
        "check",
        "--color",
        "never",
        "samples/good/openai-basic.sse",
    ]));
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("0 errors, 0 warnings"), "{out}");
    let (code, out) = run(Command::new(venv_bin("sselint")).args([
        "check",
        "--color",
        "never",
        "samples/bad/cut-off.sse",
    ]));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[E401]"), "{out}");
}

#[test]
fn the_wheel_installs_the_man_page_and_the_completions() {
    if tools().is_none() {
        return;
    }
    let venv = root().join("python/.venv");
    for f in [
        "share/man/man1/sselint.1",
        "share/bash-completion/completions/sselint",
        "share/zsh/site-functions/_sselint",
        "share/fish/vendor_completions.d/sselint.fish",
    ] {
        let p = venv.join(f);
        let text = std::fs::read_to_string(&p)
            .unwrap_or_else(|e| panic!("the wheel did not install {}: {e}", p.display()));
        assert!(text.contains("sselint"), "{}", p.display());
    }
}

#[test]
fn the_python_package_passes_its_tests() {
    if tools().is_none() {
        return;
    }
    let (code, out) = run(Command::new(venv_bin("python")).args([
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "python/tests",
    ]));
    assert_eq!(code, 0, "pytest failed:\n{out}");
    let summary = out
        .lines()
        .rev()
        .find(|l| l.contains("passed"))
        .unwrap_or("");
    // Past the test harness's capture, so `cargo test` shows it.
    let _ = writeln!(std::io::stderr(), "pytest: {summary}");
}

#[test]
fn the_python_package_type_checks_strictly() {
    if tools().is_none() {
        return;
    }
    let (code, out) = run(Command::new(venv_bin("mypy")).args([
        "--strict",
        "--no-incremental",
        "--cache-dir",
        "/dev/null",
        "python/sselint",
        "python/tests",
    ]));
    assert_eq!(code, 0, "mypy --strict:\n{out}");
}
