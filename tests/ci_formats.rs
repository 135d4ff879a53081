//! CI gating: the SARIF, JUnit and GitHub outputs are valid and say what the
//! findings say; exit codes hold for every format; output is byte-identical
//! between runs; sselint.toml, baselines and --report work end to end.

mod common;
use assert_cmd::Command;
use common::root;
use predicates::prelude::*;
use serde_json::Value;

fn sselint() -> Command {
    let mut c = Command::cargo_bin("sselint").unwrap();
    c.current_dir(root()).env("NO_COLOR", "1");
    c
}

fn stdout(args: &[&str]) -> (i32, Vec<u8>) {
    let out = sselint().args(args).output().unwrap();
    (out.status.code().unwrap(), out.stdout)
}

/// Inputs with findings of every severity, a HAR and a body-relative dump.
const MIXED: &[&str] = &[
    "samples/providers/xai.sse",
    "samples/bad/cut-off.sse",
    "samples/har/firefox-truncated.har",
    "samples/curl/curl-v.txt",
    "samples/bad/invalid-json.sse",
];

fn scratch(name: &str) -> common::Scratch {
    common::Scratch::new(&format!("ci-{name}"))
}

#[test]
fn sarif_is_valid_against_our_sarif_2_1_0_schema_and_matches_the_findings() {
    let mut args = vec!["check", "--format", "sarif", "--fail-on", "never"];
    args.extend(MIXED);
    let (code, out) = stdout(&args);
    assert_eq!(code, 0);
    let sarif: Value = serde_json::from_slice(&out).unwrap();
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("tests/sarif-2.1.0-subset.schema.json")).unwrap(),
    )
    .unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = v
        .iter_errors(&sarif)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let (_, json) = stdout(
        &[
            &["check", "--format", "json", "--fail-on", "never"][..],
            MIXED,
        ]
        .concat(),
    );
    let json: Value = serde_json::from_slice(&json).unwrap();
    let n: usize = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["streams"].as_array().unwrap())
        .map(|s| s["diagnostics"].as_array().unwrap().len())
        .sum();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), n);
    let rules = sarif["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    for r in results {
        let idx = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[idx]["id"], r["ruleId"]);
    }
    let har = results
        .iter()
        .find(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                == "samples/har/firefox-truncated.har"
        })
        .expect("a HAR result");
    assert_eq!(har["properties"]["harEntry"], 0);
    assert!(
        har["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]
            .as_str()
            .unwrap()
            .starts_with("entries[0]")
    );
    let raw = results
        .iter()
        .find(|r| r["properties"]["rule"] == "invalid-json")
        .expect("an invalid-json result");
    assert!(raw["locations"][0]["physicalLocation"]["region"]["byteOffset"].is_u64());
    assert_eq!(sarif["runs"][0]["columnKind"], "unicodeCodePoints");
}

#[test]
fn junit_parses_as_xml_and_its_counts_match_the_findings() {
    let mut args = vec!["check", "--format", "junit", "--fail-on", "warning"];
    args.extend(MIXED);
    let (code, out) = stdout(&args);
    assert_eq!(code, 1);
    let text = String::from_utf8(out).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("JUnit output is XML");
    let (_, json) = stdout(
        &[
            &["check", "--format", "json", "--fail-on", "never"][..],
            MIXED,
        ]
        .concat(),
    );
    let json: Value = serde_json::from_slice(&json).unwrap();
    let streams: Vec<&Value> = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["streams"].as_array().unwrap())
        .collect();
    let suites: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    assert_eq!(suites.len(), streams.len());
    for (suite, stream) in suites.iter().zip(&streams) {
        let diags = stream["diagnostics"].as_array().unwrap();
        let want_failures = diags.iter().filter(|d| d["severity"] != "info").count();
        let failures = suite
            .descendants()
            .filter(|n| n.has_tag_name("failure"))
            .count();
        assert_eq!(failures, want_failures, "{:?}", suite.attribute("name"));
        assert_eq!(
            suite
                .attribute("failures")
                .unwrap()
                .parse::<usize>()
                .unwrap(),
            want_failures
        );
        let cases = suite
            .children()
            .filter(|n| n.has_tag_name("testcase"))
            .count();
        assert_eq!(
            suite.attribute("tests").unwrap().parse::<usize>().unwrap(),
            cases
        );
    }
}

#[test]
fn github_annotations_escape_percent_comma_colon_and_newlines() {
    let dir = scratch("gh");
    let name = dir.join("odd,name:100%.sse");
    // An unknown field whose name holds a newline escape, a comma, a colon
    // and a percent sign: they reach the message.
    std::fs::write(
        &name,
        "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"},\"finish_reason\":\"stop\"}],\"a,b:c%d\\ne\":1}\n\ndata: [DONE]\n\n",
    )
    .unwrap();
    // unknown-field is info by default; the strict profile makes it a
    // warning, which GitHub shows as an annotation.
    let out = sselint()
        .args(["check", "--format", "github", "--profile", "strict"])
        .arg(&name)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("::warning"))
        .expect("a warning annotation");
    assert!(line.contains("odd%2Cname%3A100%25.sse"), "{line}");
    assert!(line.contains("title=unknown-field (X101)"), "{line}");
    // `::warning <properties>::<message>`
    let message = line[2..].split_once("::").unwrap().1;
    // The newline in the field name is escaped before it reaches any
    // output (`\n`), so the message holds no line break either way.
    assert!(message.contains("a,b:c%25d\\ne"), "{message}");
    assert!(!message.contains('\n'));
}

#[test]
fn exit_codes_hold_for_every_format() {
    for fmt in ["human", "json", "sarif", "junit", "github"] {
        sselint()
            .args(["check", "samples/good/openai-basic.sse", "--format", fmt])
            .assert()
            .code(0);
        sselint()
            .args(["check", "samples/bad/cut-off.sse", "--format", fmt])
            .assert()
            .code(1);
        sselint()
            .args([
                "check",
                "samples/bad/cut-off.sse",
                "--format",
                fmt,
                "--fail-on",
                "never",
            ])
            .assert()
            .code(0);
        sselint()
            .args([
                "check",
                "samples/providers/xai.sse",
                "--format",
                fmt,
                "--fail-on",
                "warning",
            ])
            .assert()
            .code(1);
        sselint()
            .args(["check", "nope.sse", "--format", fmt])
            .assert()
            .code(2);
        sselint()
            .args(["check", "samples/good", "--format", fmt, "--select", "nope"])
            .assert()
            .code(2);
    }
}

#[test]
fn output_is_byte_identical_between_runs_and_thread_counts() {
    for fmt in ["human", "json", "sarif", "junit", "github"] {
        let a = stdout(&[
            "check",
            "samples",
            "--format",
            fmt,
            "--fail-on",
            "never",
            "-j",
            "1",
        ])
        .1;
        let b = stdout(&[
            "check",
            "samples",
            "--format",
            fmt,
            "--fail-on",
            "never",
            "-j",
            "2",
        ])
        .1;
        let c = stdout(&["check", "samples", "--format", fmt, "--fail-on", "never"]).1;
        assert!(!a.is_empty());
        assert_eq!(a, b, "{fmt}");
        assert_eq!(b, c, "{fmt}");
    }
}

#[test]
fn output_and_reports_are_written_to_files_while_the_terminal_gets_the_human_report() {
    let dir = scratch("reports");
    let sarif = dir.join("out.sarif");
    let junit = dir.join("junit.xml");
    let json = dir.join("report.json");
    sselint()
        .args(["check", "samples/bad/cut-off.sse", "--report"])
        .arg(format!("sarif={}", sarif.display()))
        .arg("--report")
        .arg(format!("junit={}", junit.display()))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("ending: cut-off"));
    assert!(std::fs::read_to_string(&sarif)
        .unwrap()
        .contains("\"2.1.0\""));
    assert!(std::fs::read_to_string(&junit)
        .unwrap()
        .contains("<testsuites"));
    sselint()
        .args([
            "check",
            "samples/bad/cut-off.sse",
            "--format",
            "json",
            "--output",
        ])
        .arg(&json)
        .assert()
        .code(1)
        .stdout(predicate::str::is_empty());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["version"], 1);
    sselint()
        .args(["check", "samples/good/emoji.sse", "--report", "xml=x"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown format"));
}

#[test]
fn a_config_file_sets_profile_severities_fail_on_and_per_path_profiles() {
    let dir = scratch("config");
    std::fs::create_dir_all(dir.join("captures/azure")).unwrap();
    std::fs::copy(
        root().join("samples/providers/azure.sse"),
        dir.join("captures/azure/a.sse"),
    )
    .unwrap();
    std::fs::copy(
        root().join("samples/bad/missing-done.sse"),
        dir.join("captures/m.sse"),
    )
    .unwrap();
    let run = |toml: &str| {
        std::fs::write(dir.join("sselint.toml"), toml).unwrap();
        let mut c = Command::cargo_bin("sselint").unwrap();
        c.current_dir(&dir)
            .env("NO_COLOR", "1")
            .args(["check", "captures"])
            .output()
            .unwrap()
    };
    // Defaults: azure's preamble is a warning, missing-done a warning.
    assert_eq!(run("").status.code(), Some(0));
    assert_eq!(run("fail-on = \"warning\"\n").status.code(), Some(1));
    // Severity override, with the note naming the file.
    let out = run("[rules]\nmissing-done = \"error\"\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("`missing-done` is set to error in"));
    // Per-path profile and rule off: clean under fail-on warning.
    let out = run(
        "fail-on = \"warning\"\n[rules]\nmissing-done = \"off\"\n[per-path]\n\"captures/azure/**\" = \"azure\"\n",
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // Command-line flags win over the file.
    let mut c = Command::cargo_bin("sselint").unwrap();
    c.current_dir(&dir)
        .args(["check", "captures", "--fail-on", "never"])
        .assert()
        .code(0);
    // Mistakes are exit 2 with a snippet of the file and a suggestion.
    let out = run("[rules]\nmissing-dne = \"error\"\n");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("sselint.toml:2:1") && err.contains("did you mean `missing-done`"),
        "{err}"
    );
    let out = run("fail_on = \"warning\"\n");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown field `fail_on`"));
}

#[test]
fn init_writes_a_starting_config_and_never_overwrites() {
    let dir = scratch("init");
    let mut c = Command::cargo_bin("sselint").unwrap();
    c.current_dir(&dir).arg("init").assert().code(0);
    let text = std::fs::read_to_string(dir.join("sselint.toml")).unwrap();
    assert!(text.contains("fail-on"));
    let mut c = Command::cargo_bin("sselint").unwrap();
    c.current_dir(&dir)
        .arg("init")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("already exists"));
    std::fs::copy(root().join("samples/good/emoji.sse"), dir.join("e.sse")).unwrap();
    let mut c = Command::cargo_bin("sselint").unwrap();
    c.current_dir(&dir)
        .args(["check", "e.sse"])
        .assert()
        .code(0);
}

#[test]
fn a_baseline_suppresses_known_findings_but_not_new_ones() {
    let dir = scratch("baseline");
    let base = dir.join("baseline.json");
    let known = "samples/bad/cut-off.sse";
    // Recording a baseline accepts today's findings: exit 0.
    sselint()
        .args(["check", known, "--write-baseline"])
        .arg(&base)
        .assert()
        .code(0);
    // The same file spelled another way still matches.
    let absolute = root().join(known);
    for spelling in [
        format!("./{known}"),
        absolute.to_string_lossy().into_owned(),
    ] {
        sselint()
            .args(["check", &spelling, "--baseline"])
            .arg(&base)
            .assert()
            .code(0);
    }
    sselint()
        .args(["check", known, "--baseline"])
        .arg(&base)
        .assert()
        .code(0);
    // A new finding in another file still fails.
    sselint()
        .args(["check", known, "samples/bad/invalid-json.sse", "--baseline"])
        .arg(&base)
        .assert()
        .code(1);
    let out = sselint()
        .args(["check", known, "--format", "github", "--baseline"])
        .arg(&base)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("suppressed by the baseline"));
    sselint()
        .args(["check", known, "--baseline", "no-such-baseline.json"])
        .assert()
        .code(2);
}

#[test]
fn quoted_globs_expand() {
    sselint()
        .args(["check", "samples/good/openai-*.sse", "--format", "json"])
        .assert()
        .code(0)
        .stdout(
            predicate::str::contains("samples/good/openai-basic.sse")
                .and(predicate::str::contains("emoji").not()),
        );
}

#[test]
fn inspect_reads_max_event_bytes_from_the_config_like_check() {
    let dir = scratch("inspect-config");
    std::fs::copy(
        root().join("samples/good/openai-basic.sse"),
        dir.join("a.sse"),
    )
    .unwrap();
    std::fs::write(dir.join("sselint.toml"), "max-event-bytes = 200\n").unwrap();
    let run = |cmd: &[&str]| {
        let out = Command::cargo_bin("sselint")
            .unwrap()
            .current_dir(&dir)
            .env("NO_COLOR", "1")
            .args(cmd)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let check = run(&["check", "a.sse", "--format", "json"]);
    let inspect = run(&["inspect", "a.sse", "--format", "jsonl"]);
    let too_large = |s: &str| s.matches("\"event-too-large\"").count();
    assert!(too_large(&check) > 0, "{check}");
    assert_eq!(too_large(&inspect), too_large(&check), "{inspect}");
    // The command line still wins.
    let wide = run(&[
        "inspect",
        "a.sse",
        "--format",
        "jsonl",
        "--max-event-bytes",
        "100000",
    ]);
    assert_eq!(too_large(&wide), 0, "{wide}");
}

/// `check good.sse emptydir/` in `format`: (exit code, stdout).
fn with_an_empty_directory(format: &str) -> (i32, String) {
    let dir = scratch(&format!("empty-{format}"));
    let empty = dir.join("emptydir");
    std::fs::create_dir_all(&empty).unwrap();
    let out = sselint()
        .args(["check", "--format", format, "samples/good/openai-basic.sse"])
        .arg(&empty)
        .output()
        .unwrap();
    let mut text = String::from_utf8(out.stdout).unwrap();
    if format == "human" {
        // The human report names input errors on stderr.
        text.push_str(&String::from_utf8(out.stderr).unwrap());
    }
    (out.status.code().unwrap(), text)
}

#[test]
fn a_directory_without_a_capture_is_an_input_error_in_every_format() {
    for format in ["human", "json", "sarif", "junit", "github"] {
        let (code, out) = with_an_empty_directory(format);
        assert_eq!(code, 2, "{format}: {out}");
        assert!(out.contains("emptydir"), "{format}: {out}");
        assert!(out.contains("no capture"), "{format}: {out}");
    }
}

#[test]
fn input_errors_reach_sarif_junit_github_and_json() {
    let (_, sarif) = with_an_empty_directory("sarif");
    let sarif: Value = serde_json::from_str(&sarif).unwrap();
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("tests/sarif-2.1.0-subset.schema.json")).unwrap(),
    )
    .unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = v.iter_errors(&sarif).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let inv = &sarif["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false, "{inv}");
    let n = &inv["toolExecutionNotifications"][0];
    assert_eq!(n["level"], "error", "{n}");
    assert!(n["message"]["text"]
        .as_str()
        .unwrap()
        .contains("no capture"));
    assert!(
        n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap()
            .contains("emptydir")
    );

    let (_, junit) = with_an_empty_directory("junit");
    let doc = roxmltree::Document::parse(&junit).unwrap();
    let error = doc
        .descendants()
        .find(|n| n.has_tag_name("error"))
        .expect("an <error> test case");
    assert!(error.attribute("message").unwrap().contains("no capture"));

    let (_, github) = with_an_empty_directory("github");
    assert!(
        github.lines().any(|l| l.starts_with("::error file=")
            && l.contains("emptydir")
            && l.contains("no capture")),
        "{github}"
    );
    // Its closing line counts the input, as the human one does.
    assert!(
        github
            .lines()
            .last()
            .unwrap()
            .starts_with("sselint: 0 error(s), 0 warning(s), 0 info(s) (1 could not be read)"),
        "{github}"
    );

    let (_, json) = with_an_empty_directory("json");
    let json: Value = serde_json::from_str(&json).unwrap();
    let errors: Vec<&str> = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["error"].as_str())
        .collect();
    assert_eq!(errors.len(), 1, "{json}");
    assert!(errors[0].contains("no capture"), "{errors:?}");
}

#[test]
fn junit_fails_every_error_finding_whatever_fail_on_says() {
    let (code, out) = stdout(&[
        "check",
        "--format",
        "junit",
        "--fail-on",
        "never",
        "samples/bad/cut-off.sse",
    ]);
    assert_eq!(code, 0, "--fail-on never sets the exit code");
    let xml = String::from_utf8(out).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let failed: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("failure"))
        .filter_map(|n| n.parent().and_then(|p| p.attribute("name")))
        .collect();
    assert_eq!(failed, ["cut-off"], "{xml}");
}

#[test]
fn with_a_baseline_the_counts_are_of_the_findings_that_still_count() {
    let dir = scratch("baseline-words");
    let base = dir.join("baseline.json");
    let known = "samples/bad/cut-off.sse";
    sselint()
        .args(["check", known, "--write-baseline"])
        .arg(&base)
        .assert()
        .code(0);
    let out = sselint()
        .args(["check", known, "--baseline"])
        .arg(&base)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let last = text.lines().last().unwrap();
    assert!(
        last.starts_with("Checked 1 stream in 1 input: 0 errors, 0 warnings, 0 infos"),
        "{last}"
    );
    assert!(
        last.contains("1 error in the baseline, not counted"),
        "{last}"
    );
    // The stream's own count line agrees with the closing line (a
    // fresh-user trial saw "1 error" above "0 errors").
    assert!(
        text.lines()
            .any(|l| l == "  0 errors, 0 warnings, 0 infos; 1 error in the baseline"),
        "{text}"
    );
    let out = sselint()
        .args(["check", known, "--format", "github", "--baseline"])
        .arg(&base)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.lines()
            .last()
            .unwrap()
            .starts_with("sselint: 0 error(s), 0 warning(s), 0 info(s)"),
        "{text}"
    );
}

#[test]
fn the_human_report_names_an_input_that_could_not_be_read() {
    let out = sselint()
        .args(["check", "samples/har/har-no-sse.har"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // Said once: on stderr, while the report on stdout counts it.
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let said = "error: samples/har/har-no-sse.har: no entry is an event stream";
    assert_eq!(stderr.matches(said).count(), 1, "{stderr}");
    assert!(!stdout.contains(said), "{stdout}");
    assert!(stdout.contains("1 could not be read"), "{stdout}");
    // A report written to a file names it itself.
    let dir = common::scratch("unreadable-report");
    let report = dir.join("report.txt");
    let out = sselint()
        .args(["check", "samples/har/har-no-sse.har", "-o"])
        .arg(&report)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let text = std::fs::read_to_string(&report).unwrap();
    assert!(text.contains(said), "{text}");
}

#[test]
fn har_findings_name_the_entry_and_body_position_in_sarif_and_github() {
    let (_, out) = stdout(&[
        "check",
        "--format",
        "sarif",
        "--fail-on",
        "never",
        "samples/har/firefox-truncated.har",
    ]);
    let sarif: Value = serde_json::from_slice(&out).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert!(!results.is_empty());
    for r in results {
        let text = r["message"]["text"].as_str().unwrap();
        assert!(text.starts_with("entries[0] body line "), "{text}");
        assert!(text.contains(", byte "), "{text}");
        assert_eq!(r["properties"]["harEntry"], 0, "{r}");
        assert!(r["properties"]["bodyByteOffset"].is_u64(), "{r}");
    }
    let (_, out) = stdout(&[
        "check",
        "--format",
        "github",
        "--fail-on",
        "never",
        "samples/har/firefox-truncated.har",
    ]);
    let text = String::from_utf8(out).unwrap();
    let first = text.lines().next().unwrap();
    assert!(first.contains("::entries[0] body line "), "{first}");
    assert!(
        first.contains("%2C byte ") || first.contains(", byte "),
        "{first}"
    );
}
