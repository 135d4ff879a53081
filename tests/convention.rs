//! One convention for every command (docs/commands/index.md,
//! "Conventions"): the same `--fail-on` and `--color` values wherever they
//! are taken, the same JSON header, exit codes 0/1/2, an unreadable input
//! said once on stderr, `-o -` for standard output where the output is a
//! report, and `--force` before a capture or a config file is replaced.
//!
//! The table below names every command `sselint --help` lists; a command
//! added without a row fails the first test.

mod common;
use assert_cmd::Command;
use common::{root, scratch};
use serde_json::Value;

fn sselint() -> Command {
    let mut c = Command::cargo_bin("sselint").unwrap();
    c.current_dir(root()).env("NO_COLOR", "1");
    c
}

/// What the convention asks of one command.
struct Cmd {
    name: &'static str,
    /// Arguments that read a missing input (`{}` stands for it), when the
    /// command reads a capture.
    missing: Option<&'static [&'static str]>,
    /// Arguments whose JSON report must carry the header.
    json: Option<&'static [&'static str]>,
}

const MISSING: &str = "no/such/capture.sse";

const COMMANDS: &[Cmd] = &[
    Cmd {
        name: "check",
        missing: Some(&["check", "{}"]),
        json: Some(&["check", "samples/good/openai-basic.sse", "--format", "json"]),
    },
    Cmd {
        name: "inspect",
        missing: Some(&["inspect", "{}"]),
        // Its JSON is one object per event (jsonl), a stream, not a report.
        json: None,
    },
    Cmd {
        name: "rules",
        missing: None,
        json: None,
    },
    Cmd {
        name: "rule",
        missing: None,
        json: None,
    },
    Cmd {
        name: "diff",
        missing: Some(&["diff", "{}", "samples/good/openai-basic.sse"]),
        json: Some(&[
            "diff",
            "samples/diff/openai.sse",
            "samples/diff/whole-words.sse",
            "--format",
            "json",
        ]),
    },
    // A live URL: its input errors and JSON are tested against real
    // servers in tests/live.rs and tests/probe.rs.
    Cmd {
        name: "record",
        missing: None,
        json: None,
    },
    Cmd {
        name: "replay",
        missing: Some(&["replay", "{}", "--listen", "127.0.0.1:0", "--once"]),
        json: None,
    },
    Cmd {
        name: "probe",
        missing: None,
        json: None,
    },
    Cmd {
        name: "proxy",
        missing: None,
        // A wrapped command that makes no request: the report has no
        // stream, and its header.
        json: Some(&[
            "proxy",
            "--upstream",
            "http://127.0.0.1:9",
            "-q",
            "--format",
            "json",
            "--",
            "true",
        ]),
    },
    Cmd {
        name: "redact",
        missing: Some(&["redact", "{}", "-o", "-"]),
        json: None,
    },
    Cmd {
        name: "minimize",
        missing: Some(&["minimize", "{}", "-o", "/dev/null"]),
        json: Some(&[
            "minimize",
            "samples/bad/cut-off.sse",
            "-o",
            "/dev/null",
            "--format",
            "json",
        ]),
    },
    Cmd {
        name: "init",
        missing: None,
        json: None,
    },
    Cmd {
        name: "completions",
        missing: None,
        json: None,
    },
    Cmd {
        name: "man",
        missing: None,
        json: None,
    },
];

fn help(args: &[&str]) -> String {
    let out = sselint().args(args).arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{args:?} --help");
    String::from_utf8(out.stdout).unwrap()
}

/// The values `--help` lists for `flag`: its own block, from its line to
/// the next option's, either inline (`[possible values: a, b]`) or one per
/// line (`- a: doc`).
fn values(help: &str, flag: &str) -> Option<Vec<String>> {
    let mut lines = help.lines().skip_while(|l| {
        !l.trim_start()
            .split(", ")
            .any(|part| part.starts_with(&format!("--{flag} ")) || part == format!("--{flag}"))
    });
    // The flag's own line holds its doc in a compact help.
    let first = lines.next()?;
    let block: Vec<&str> =
        std::iter::once(first)
            .chain(lines.take_while(|l| {
                !l.trim_start().starts_with('-') || l.trim_start().starts_with("- ")
            }))
            .collect();
    let text = block.join("\n");
    if let Some(list) = text.split("[possible values: ").nth(1) {
        let list = list.split(']').next()?;
        return Some(list.split(", ").map(str::to_string).collect());
    }
    let listed: Vec<String> = block
        .iter()
        .filter_map(|l| l.trim_start().strip_prefix("- "))
        .map(|l| l.split(':').next().unwrap().trim().to_string())
        .collect();
    (!listed.is_empty()).then_some(listed)
}

#[test]
fn every_command_is_in_the_table() {
    let top = help(&[]);
    let listed: Vec<&str> = top
        .split("Commands:")
        .nth(1)
        .unwrap()
        .split("\n\n")
        .next()
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("  "))
        .filter(|l| !l.starts_with(' '))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help")
        .collect();
    let known: Vec<&str> = COMMANDS.iter().map(|c| c.name).collect();
    assert_eq!(
        listed, known,
        "a command without a row here, or one removed"
    );
}

/// `--color always` colours a report written to a pipe, and `--color
/// never` does not, in every command that reads a capture and shows
/// findings (a fresh-user trial: `inspect --color always | less -R` was
/// plain).
#[test]
fn color_always_colours_and_never_does_not() {
    let runs: &[(&str, &[&str])] = &[
        ("check", &["check", "samples/bad/cut-off.sse"]),
        ("inspect", &["inspect", "samples/bad/cut-off.sse"]),
        (
            "diff",
            &[
                "diff",
                "samples/diff/openai.sse",
                "samples/diff/provider.sse",
            ],
        ),
    ];
    for (name, args) in runs {
        for (choice, coloured) in [("always", true), ("never", false)] {
            let out = Command::cargo_bin("sselint")
                .unwrap()
                .current_dir(root())
                .env_remove("NO_COLOR")
                .env_remove("CLICOLOR_FORCE")
                .args(*args)
                .args(["--color", choice])
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            assert_eq!(
                text.contains('\u{1b}'),
                coloured,
                "{name} --color {choice}: {}",
                if coloured { "no colour" } else { "colour" }
            );
        }
    }
}

#[test]
fn fail_on_and_color_take_the_same_values_everywhere() {
    let mut with_fail_on = Vec::new();
    for c in COMMANDS {
        let h = help(&[c.name]);
        if h.contains("--fail-on") {
            with_fail_on.push(c.name);
            assert_eq!(
                values(&h, "fail-on").unwrap_or_default(),
                ["error", "warning", "info", "never"],
                "{}: --fail-on",
                c.name
            );
        }
        if h.contains("--color") {
            assert_eq!(
                values(&h, "color").unwrap_or_default(),
                ["auto", "always", "never"],
                "{}: --color",
                c.name
            );
        }
    }
    // Every command that gives a verdict on findings takes it.
    assert_eq!(with_fail_on, ["check", "diff", "record", "probe", "proxy"]);
    // And each accepts `never` for real, not only in its help.
    let out = sselint()
        .args(["check", "samples/bad/cut-off.sse", "--fail-on", "never"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let out = sselint()
        .args([
            "diff",
            "samples/diff/openai.sse",
            "samples/diff/provider.sse",
            "--fail-on",
            "never",
        ])
        .output()
        .unwrap();
    assert_ne!(
        out.status.code(),
        Some(2),
        "diff --fail-on never is a usage error"
    );
}

#[test]
fn format_names_one_rendering_the_same_way_in_every_command() {
    let known = [
        "human", "json", "jsonl", "sarif", "junit", "github", "html", "markdown",
    ];
    let mut seen = 0;
    for c in COMMANDS {
        let h = help(&[c.name]);
        let Some(v) = values(&h, "format") else {
            continue;
        };
        seen += 1;
        assert_eq!(
            v[0], "human",
            "{}: the terminal rendering is `human`",
            c.name
        );
        assert!(
            h.contains("[default: human]"),
            "{}: --format defaults to human",
            c.name
        );
        for f in &v {
            assert!(known.contains(&f.as_str()), "{}: --format {f}", c.name);
        }
    }
    assert_eq!(
        seen, 7,
        "check, inspect, rule, diff, probe, proxy and minimize take --format"
    );
    // inspect's old name for its table still works.
    let out = sselint()
        .args([
            "inspect",
            "samples/good/openai-basic.sse",
            "--format",
            "table",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn every_json_report_starts_with_version_and_tool() {
    for c in COMMANDS {
        let Some(args) = c.json else { continue };
        let out = sselint().args(args).output().unwrap();
        let v: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{}: not JSON: {e}", c.name));
        // They come first, in that order.
        let text = String::from_utf8_lossy(&out.stdout);
        let first: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("  \"") && !l.starts_with("   "))
            .take(2)
            .collect();
        assert!(
            first.len() == 2
                && first[0].starts_with("  \"version\"")
                && first[1].starts_with("  \"tool\""),
            "{}: the report starts with {first:?}",
            c.name
        );
        assert_eq!(v["version"], 1, "{}", c.name);
        assert_eq!(v["tool"]["name"], "sselint", "{}", c.name);
        assert_eq!(
            v["tool"]["version"],
            env!("CARGO_PKG_VERSION"),
            "{}",
            c.name
        );
    }
}

#[test]
fn a_missing_input_is_exit_2_said_once_on_stderr() {
    for c in COMMANDS {
        let Some(args) = c.missing else { continue };
        let args: Vec<&str> = args
            .iter()
            .map(|a| if *a == "{}" { MISSING } else { a })
            .collect();
        let out = sselint()
            .args(&args)
            .timeout(std::time::Duration::from_secs(30))
            .output()
            .unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.matches(MISSING).count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains("no such file"), "{args:?}: {stderr}");
        assert!(!stdout.contains(MISSING), "{args:?}: {stdout}");
    }
}

#[test]
fn a_usage_error_is_exit_2_for_every_command() {
    for c in COMMANDS {
        let out = sselint().args([c.name, "--no-such-flag"]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", c.name);
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("--no-such-flag"),
            "{}",
            c.name
        );
    }
}

#[test]
fn dash_is_standard_output_where_the_output_is_a_report() {
    for args in [
        &["check", "samples/good/openai-basic.sse", "-o", "-"][..],
        &["inspect", "samples/good/openai-basic.sse", "-o", "-"][..],
        &[
            "diff",
            "samples/diff/openai.sse",
            "samples/diff/whole-words.sse",
            "-o",
            "-",
        ][..],
    ] {
        let out = sselint().args(args).output().unwrap();
        assert!(matches!(out.status.code(), Some(0 | 1)), "{args:?}");
        assert!(!out.stdout.is_empty(), "{args:?}: nothing on stdout");
        assert!(!root().join("-").exists(), "{args:?} wrote a file named -");
    }
    // redact's output is a capture, and `-` is stdout too.
    let out = sselint()
        .args(["redact", "samples/good/openai-basic.sse", "-o", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("data: "));
    // probe's -o is the directory of its captures, while the card goes to
    // stdout: refused before any request, and no directory named `-`.
    let out = sselint()
        .args(["probe", "http://127.0.0.1:9/v1", "--model", "m", "-o", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/dev/stdout"));
    assert!(!root().join("-").exists());
    // minimize writes its report to stdout, so the capture cannot go there
    // too: refused, naming /dev/stdout.
    let out = sselint()
        .args(["minimize", "samples/bad/cut-off.sse", "-o", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/dev/stdout"));
}

#[test]
fn force_is_needed_to_replace_a_capture_or_a_config() {
    let dir = scratch("convention-force");
    let existing = dir.join("existing");
    for args in [
        vec!["redact", "samples/good/openai-basic.sse", "-o"],
        vec!["minimize", "samples/bad/cut-off.sse", "-o"],
        vec!["init"],
    ] {
        std::fs::write(&existing, "keep me").unwrap();
        let out = sselint().args(&args).arg(&existing).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--force"), "{args:?}: {err}");
        assert_eq!(std::fs::read_to_string(&existing).unwrap(), "keep me");
        let out = sselint()
            .args(&args)
            .arg(&existing)
            .arg("--force")
            .output()
            .unwrap();
        assert!(matches!(out.status.code(), Some(0 | 1)), "{args:?} --force");
        assert_ne!(std::fs::read_to_string(&existing).unwrap(), "keep me");
    }
    // A report is output, replaced without asking.
    std::fs::write(&existing, "old report").unwrap();
    let out = sselint()
        .args(["check", "samples/good/openai-basic.sse", "-o"])
        .arg(&existing)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_ne!(std::fs::read_to_string(&existing).unwrap(), "old report");
}

/// `check --help` groups the live-request options under "Live URLs:", and
/// only those: a fresh-user trial found `--color`, `-v` and `-q` listed
/// there (clap's heading covers every option declared after it).
#[test]
fn check_help_lists_only_live_options_under_live_urls() {
    let h = help(&["check"]);
    let live = h
        .split("Live URLs:")
        .nth(1)
        .expect("check --help has a Live URLs: section");
    let live = live.split("Examples:").next().unwrap_or(live);
    for general in [
        "--color",
        "--quiet",
        "--verbose",
        "--stall-ms",
        "--max-event-bytes",
        "--format",
    ] {
        assert!(
            !live.contains(general),
            "{general} is listed under Live URLs:"
        );
    }
    assert!(live.contains("--read-timeout"));
}

/// Every command that reads a capture takes one HAR entry as `PATH#N`, as
/// `diff` did first (a fresh-user trial: `check chrome.har#3` was "no such
/// file"); `--entry` naming another entry is refused.
#[test]
fn every_command_reads_a_har_entry_as_path_hash_n() {
    let spec = "samples/har/chrome.har#3";
    for args in [
        vec!["check", spec],
        vec!["inspect", spec],
        vec!["diff", spec, "samples/har/chrome.har#3"],
    ] {
        let out = sselint().args(&args).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("#3 POST") || args[0] == "diff",
            "{args:?}"
        );
    }
    let dir = scratch("entry-spec");
    let copy = dir.join("copy.har");
    let out = sselint()
        .args(["redact", spec, "-o"])
        .arg(&copy)
        .output()
        .unwrap();
    // redact copies the whole file, and says so.
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("redact copies a whole capture"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = sselint()
        .args(["minimize", spec, "-o"])
        .arg(dir.join("min.har"))
        .output()
        .unwrap();
    // The entry is clean, so there is nothing to minimize: said of entry 3.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("#3 POST") && err.contains("nothing to minimize"),
        "{err}"
    );
    let out = sselint()
        .args(["check", spec, "--entry", "2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("names entry 3, and --entry names another"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The JSON summary counts the inputs that could not be read, as the human
/// closing line does.
#[test]
fn the_json_summary_counts_unreadable_inputs() {
    let out = sselint()
        .args([
            "check",
            "--format",
            "json",
            "samples/good/openai-basic.sse",
            MISSING,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["unreadable"], 1, "{}", v["summary"]);
    let out = sselint()
        .args(["check", "--format", "json", "samples/good/openai-basic.sse"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["unreadable"], 0, "{}", v["summary"]);
}

/// A `.har` file is read as HAR by every command: `redact` refuses an empty
/// or non-HAR one as `check` does, and writes nothing (a fresh-user trial:
/// it copied them as raw bodies and said "wrote").
#[test]
fn redact_refuses_a_har_file_that_is_not_a_har() {
    let dir = scratch("redact-not-har");
    for (name, bytes) in [("empty.har", ""), ("other.har", "{\"foo\":[1,2,3]}")] {
        let input = dir.join(name);
        std::fs::write(&input, bytes).unwrap();
        let copy = dir.join(format!("copy-{name}"));
        let out = sselint()
            .arg("redact")
            .arg(&input)
            .arg("-o")
            .arg(&copy)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("not a HAR file"),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!copy.exists(), "{name}: a copy was written");
    }
}

/// Standard input: `diff - -` is refused as `check - -` is (it read B as
/// empty), and `redact -` says it reads a file (it looked for a file named
/// `-`); a HAR with no entries is said to have none, with no hint to pick
/// one.
#[test]
fn stdin_twice_redact_stdin_and_a_har_without_entries_are_said_plainly() {
    let out = sselint()
        .args(["diff", "-", "-"])
        .write_stdin("data: [DONE]\n\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("standard input is named twice"));
    let out = sselint()
        .args(["redact", "-", "-o", "-"])
        .write_stdin("data: [DONE]\n\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("redact reads a file, not standard input")
    );
    let dir = scratch("no-entries");
    let har = dir.join("none.har");
    std::fs::write(&har, r#"{"log":{"version":"1.2","entries":[]}}"#).unwrap();
    let out = sselint().arg("check").arg(&har).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the HAR has no entries") && !err.contains("pick one"),
        "{err}"
    );
}
