//! What a published tool ships beside its binary: shell completions and a
//! man page written from the same clap definitions, the licence files the
//! manifest names, and a changelog, all in what `cargo package` ships.

mod common;
use assert_cmd::Command;
use common::root;

fn sselint() -> Command {
    let mut c = Command::cargo_bin("sselint").unwrap();
    c.current_dir(root()).env("NO_COLOR", "1");
    c
}

/// The commands `sselint --help` lists, read from its output.
fn commands() -> Vec<String> {
    let out = sselint().arg("--help").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let list = text
        .split("Commands:")
        .nth(1)
        .and_then(|t| t.split("\n\n").next())
        .expect("--help has a Commands: section");
    let names: Vec<String> = list
        .lines()
        .filter_map(|l| l.strip_prefix("  "))
        .filter(|l| !l.starts_with(' '))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help")
        .map(str::to_string)
        .collect();
    assert!(
        names.len() >= 10,
        "too few commands read from --help: {names:?}"
    );
    names
}

#[test]
fn completions_for_each_shell_name_every_command() {
    let names = commands();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = sselint().args(["completions", shell]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = String::from_utf8(out.stdout).unwrap();
        for n in &names {
            assert!(
                script.contains(n.as_str()),
                "{shell} completions lack `{n}`"
            );
        }
        // Options of a command are completed too, not only its name.
        assert!(
            script.contains("scrub-text"),
            "{shell}: redact's --scrub-text"
        );
    }
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    let out = sselint().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("possible values"));
}

#[test]
fn the_man_page_has_a_section_per_command_with_its_options() {
    let out = sselint().arg("man").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(
        page.starts_with(".ie") || page.contains(".TH sselint 1"),
        "roff title"
    );
    for n in commands() {
        let head = format!(".SH \"SSELINT {}\"", n.to_uppercase());
        assert!(page.contains(&head), "man page lacks {head}");
    }
    assert!(
        page.contains("scrub\\-text"),
        "redact's options are in the page"
    );
    assert!(
        page.contains("Exit codes"),
        "the exit codes are in the page"
    );
}

/// The page is the only one shipped: it may not send the reader to
/// `sselint-check(1)` and the like, and it is plain ASCII so `groff`
/// renders it without being told the encoding.
#[test]
fn the_man_page_names_no_other_page_and_is_ascii() {
    let out = sselint().arg("man").output().unwrap();
    let page = String::from_utf8(out.stdout).unwrap();
    for n in commands() {
        let other = format!("sselint\\-{n}(1)");
        assert!(
            !page.contains(&other),
            "man page refers to {other}, which is not shipped"
        );
        assert!(
            page.contains(&format!("see \\fBSSELINT {}\\fR below", n.to_uppercase())),
            "the COMMANDS list points `{n}` at its section"
        );
    }
    assert!(
        page.is_ascii(),
        "non-ASCII character left unescaped in the man page"
    );
}

#[test]
fn the_licences_the_manifest_names_and_a_changelog_are_shipped() {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    assert!(manifest.contains("license = \"MIT OR Apache-2.0\""));
    let mit = std::fs::read_to_string(root().join("LICENSE-MIT")).unwrap();
    assert!(mit.contains("Permission is hereby granted, free of charge"));
    let apache = std::fs::read_to_string(root().join("LICENSE-APACHE")).unwrap();
    assert!(apache.contains("Apache License") && apache.contains("Version 2.0"));
    let changelog = std::fs::read_to_string(root().join("CHANGELOG.md")).unwrap();
    assert!(
        changelog.contains(&format!("## {}", env!("CARGO_PKG_VERSION")))
            || changelog.contains("## Unreleased")
    );
    for f in ["/LICENSE-MIT", "/LICENSE-APACHE", "/CHANGELOG.md"] {
        assert!(
            manifest.contains(&format!("\"{f}\"")),
            "Cargo.toml's include lacks {f}"
        );
    }
}

/// The wheel's data files (pyproject.toml's `data`): path under
/// python/sselint.data → the command that writes it.
const WHEEL_DATA: &[(&str, &[&str])] = &[
    ("data/share/man/man1/sselint.1", &["man"]),
    (
        "data/share/bash-completion/completions/sselint",
        &["completions", "bash"],
    ),
    (
        "data/share/zsh/site-functions/_sselint",
        &["completions", "zsh"],
    ),
    (
        "data/share/fish/vendor_completions.d/sselint.fish",
        &["completions", "fish"],
    ),
];

#[test]
fn the_wheel_ships_the_man_page_and_completions_this_binary_writes() {
    // `SSELINT_BLESS=1 cargo test --test suite shipping::` writes them.
    let bless = std::env::var_os("SSELINT_BLESS").is_some_and(|v| v == "1");
    let dir = root().join("python/sselint.data");
    let mut stale = Vec::new();
    for (path, args) in WHEEL_DATA {
        let out = sselint().args(*args).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let p = dir.join(path);
        if std::fs::read(&p).ok().as_deref() != Some(out.stdout.as_slice()) {
            if bless {
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(&p, &out.stdout).unwrap();
            } else {
                stale.push(*path);
            }
        }
    }
    assert!(
        stale.is_empty(),
        "stale wheel data, write it with `SSELINT_BLESS=1 cargo test --test suite shipping::`: {stale:?}"
    );
    let pyproject = std::fs::read_to_string(root().join("pyproject.toml")).unwrap();
    assert!(pyproject.contains("data = \"python/sselint.data\""));
}
