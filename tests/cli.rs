//! The command line as users meet it: exit codes, errors that name the
//! file, the JSON contract, `inspect --format jsonl`, `rule` and `rules`.

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

fn json_of(out: &[u8]) -> Value {
    serde_json::from_slice(out).expect("stdout is JSON")
}

#[test]
fn a_clean_sample_exits_0_and_says_what_the_answer_was() {
    sselint()
        .args(["check", "samples/good/openai-usage.sse"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("answer: \"Hello! How can I help you today?\" | finish: stop | usage: 19+10=29 | ending: complete"));
}

#[test]
fn findings_at_or_above_fail_on_exit_1_and_never_exits_0() {
    let input = "tests/cases/48-no-finish-no-done.sse";
    sselint().args(["check", input]).assert().code(1);
    sselint()
        .args(["check", input, "--fail-on", "never"])
        .assert()
        .code(0);
}

#[test]
fn warnings_fail_only_with_fail_on_warning() {
    let f = "samples/providers/xai.sse";
    sselint().args(["check", f]).assert().code(0);
    sselint()
        .args(["check", f, "--fail-on", "warning"])
        .assert()
        .code(1);
}

#[test]
fn a_missing_file_exits_2_and_names_it_once() {
    let out = sselint()
        .args(["check", "no/such/capture.sse"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let (stdout, stderr) = (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    );
    // On stderr, once; the report on stdout only counts it.
    assert_eq!(
        stderr.matches("no/such/capture.sse: no such file").count(),
        1,
        "{stderr}"
    );
    assert!(!stdout.contains("no such file"), "{stdout}");
    assert!(stdout.contains("(1 could not be read)"), "{stdout}");
}

#[test]
fn a_human_report_written_to_a_file_keeps_the_unreadable_input() {
    let dir = common::scratch("missing-o");
    let report = dir.join("report.txt");
    sselint()
        .args(["check", "no/such/capture.sse", "-o"])
        .arg(&report)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no/such/capture.sse: no such file",
        ));
    let text = std::fs::read_to_string(&report).unwrap();
    assert!(
        text.contains("error: no/such/capture.sse: no such file"),
        "{text}"
    );
    assert!(text.contains("(1 could not be read)"), "{text}");
}

#[test]
fn a_bad_input_does_not_stop_the_others_and_the_json_says_so() {
    let out = sselint()
        .args([
            "check",
            "samples/good/emoji.sse",
            "missing.sse",
            "--format",
            "json",
        ])
        .assert()
        .code(2)
        .get_output()
        .stdout
        .clone();
    let v = json_of(&out);
    assert_eq!(v["files"][0]["streams"][0]["choices"][0]["text"], "😀😀😀");
    assert_eq!(v["files"][1]["path"], "missing.sse");
    assert!(v["files"][1]["error"]
        .as_str()
        .unwrap()
        .contains("no such file"));
}

#[test]
fn the_json_report_follows_the_documented_shape() {
    let out = sselint()
        .args(["check", "samples/good/openai-usage.sse", "--format", "json"])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let v = json_of(&out);
    assert_eq!(v["version"], 1);
    assert_eq!(v["tool"]["name"], "sselint");
    assert_eq!(v["profile"], "openai");
    let s = &v["files"][0]["streams"][0];
    assert_eq!(v["files"][0]["input_format"], "sse");
    assert_eq!(s["ending"], "complete");
    assert_eq!(s["choices"][0]["finish_reason"], "stop");
    assert_eq!(s["usage"]["total_tokens"], 29);
    assert!(s["diagnostics"].is_array());
    assert_eq!(v["summary"]["errors"], 0);
}

#[test]
fn diagnostics_point_at_the_bytes_in_json() {
    let body = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"},\"finish_reason\":\"\"}]}\n\ndata: [DONE]\n\n";
    let out = sselint()
        .args(["check", "-", "--format", "json", "--fail-on", "never"])
        .write_stdin(body)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let v = json_of(&out);
    let d = v["files"][0]["streams"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["rule"] == "finish-reason-value")
        .expect("finish-reason-value")
        .clone();
    let off = d["byte_offset"].as_u64().unwrap() as usize;
    assert_eq!(&body[off..off + 2], "\"\"");
    assert_eq!(d["line"], 1);
    assert_eq!(d["column"].as_u64().unwrap() as usize, off + 1);
    assert_eq!(d["pointer"], "/choices/0/finish_reason");
    // Every observed client reads `""` as no finish yet (rules/observed.json).
    assert_eq!(d["severity"], "info");
}

#[test]
fn the_human_report_is_rustc_style_with_a_severity_note() {
    sselint()
        .args(["check", "samples/providers/xai.sse", "--color", "never"])
        .assert()
        .stdout(
            predicate::str::contains("warning[U101]")
                .and(predicate::str::contains("--> samples/providers/xai.sse:"))
                .and(predicate::str::contains(
                    "= note: `usage-mismatch` is a warning by default",
                )),
        );
}

#[test]
fn inspect_jsonl_gives_one_record_per_event_as_the_spec_dispatches() {
    let body = "retry: 3000\nid: 7\ndata: a\ndata: b\n\n: ping\n\nevent: x\ndata: [DONE]\n\n";
    let out = sselint()
        .args(["inspect", "-", "--format", "jsonl"])
        .write_stdin(body)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let recs: Vec<Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let events: Vec<&Value> = recs.iter().filter(|r| r["type"] == "event").collect();
    assert_eq!(events.len(), 2);
    assert_eq!(events[0]["data"], "a\nb");
    assert_eq!(events[0]["id"], "7");
    assert_eq!(events[0]["retry"], 3000);
    assert_eq!(events[0]["event"], "message");
    assert_eq!(events[1]["event"], "x");
    assert_eq!(events[1]["id"], "7");
    assert_eq!(events[1]["retry"], Value::Null);
    assert_eq!(events[1]["kind"], "done");
    assert!(recs.iter().any(|r| r["type"] == "comment"));
    assert_eq!(recs.last().unwrap()["type"], "stream");
}

#[test]
fn rule_explains_by_name_or_code_and_suggests_on_a_typo() {
    sselint().args(["rule", "cut-off"]).assert().code(0).stdout(
        predicate::str::contains("cut-off (E401)").and(predicate::str::contains("## Fails")),
    );
    sselint().args(["rule", "e401"]).assert().code(0);
    sselint()
        .args(["rule", "cutoff"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("did you mean `cut-off`"));
    sselint()
        .args(["check", "samples/good/emoji.sse", "--select", "cutoff"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("did you mean `cut-off`"));
}

#[test]
fn rules_lists_the_catalogue_and_the_profiles() {
    sselint()
        .args(["rules"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("data-no-space").and(predicate::str::contains("F204")));
    sselint()
        .args(["rules", "--profiles"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("openrouter"));
}

#[test]
fn select_and_ignore_take_names_codes_and_groups() {
    let f = "samples/providers/xai.sse";
    // xai.sse's one warning is usage-mismatch (group usage, code U101);
    // its schema finding (no finish_reason key) is info.
    sselint()
        .args(["check", f, "--fail-on", "warning"])
        .assert()
        .code(1);
    sselint()
        .args(["check", f, "--fail-on", "warning", "--ignore", "usage"])
        .assert()
        .code(0);
    sselint()
        .args(["check", f, "--fail-on", "info", "--ignore", "usage"])
        .assert()
        .code(1);
    sselint()
        .args([
            "check",
            f,
            "--fail-on",
            "info",
            "--ignore",
            "usage,schema,vendor-extension",
        ])
        .assert()
        .code(0);
    sselint()
        .args(["check", f, "--fail-on", "warning", "--select", "U101"])
        .assert()
        .code(1);
}

#[test]
fn a_har_without_sse_lists_its_entries() {
    sselint()
        .args(["check", "samples/har/har-no-sse.har"])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("no entry is an event stream")
                .and(predicate::str::contains("#0 ")),
        );
}

#[test]
fn a_directory_is_linted_recursively_in_a_stable_order() {
    let run = || {
        sselint()
            .args(["check", "samples/good", "--format", "json"])
            .assert()
            .code(0)
            .get_output()
            .stdout
            .clone()
    };
    let a = run();
    assert_eq!(a, run());
    let v = json_of(&a);
    let paths: Vec<&str> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(paths, sorted);
    assert!(paths.len() >= 8);
}

#[test]
fn help_teaches_with_examples() {
    sselint()
        .args(["--help"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("Examples:").and(predicate::str::contains("Exit codes")));
}

/// The records of `inspect --format jsonl` on a file.
fn inspect_records(args: &[&str]) -> Vec<Value> {
    let out = sselint()
        .arg("inspect")
        .args(args)
        .args(["--format", "jsonl"])
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Rule names of every diagnostic in `inspect`'s records, and those of
/// `check --format json` on the same file.
fn inspect_and_check_rules(file: &str) -> (Vec<String>, Vec<String>) {
    let recs = inspect_records(&[file]);
    let mut seen: Vec<String> = recs
        .iter()
        .flat_map(|r| r["diagnostics"].as_array().cloned().unwrap_or_default())
        .map(|d| d["rule"].as_str().unwrap().to_string())
        .collect();
    let out = sselint()
        .args(["check", file, "--format", "json"])
        .output()
        .unwrap();
    let mut checked: Vec<String> = json_of(&out.stdout)["files"][0]["streams"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap().to_string())
        .collect();
    seen.sort();
    checked.sort();
    (seen, checked)
}

#[test]
fn inspect_shows_every_finding_check_reports_once() {
    // End-of-stream findings tied to an event (tool-call-arguments,
    // cumulative-content) were left out; block findings were shown twice.
    for f in [
        "samples/bad/tool-call-arguments.sse",
        "samples/bad/cumulative-content.sse",
        "samples/bad/unknown-sse-field.sse",
        "samples/bad/unterminated-event.sse",
    ] {
        let (seen, checked) = inspect_and_check_rules(f);
        assert!(!checked.is_empty(), "{f}");
        assert_eq!(seen, checked, "{f}");
    }
}

#[test]
fn inspect_says_how_many_findings_the_per_rule_limit_left_out() {
    let chunk = |c: &str| {
        format!("data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{c},\"finish_reason\":null}}]}}\n\n")
    };
    let mut body = chunk("{\"role\":\"assistant\",\"content\":\"\"}");
    for _ in 0..30 {
        body.push_str("data: {\"broken\n\n");
    }
    body.push_str("data: [DONE]\n\n");
    let out = sselint()
        .args(["inspect", "-", "--format", "jsonl"])
        .write_stdin(body.clone())
        .output()
        .unwrap();
    let last: Value = serde_json::from_str(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .last()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(last["omitted"]["invalid-json"], 10, "{last}");
    sselint()
        .args(["inspect", "-"])
        .write_stdin(body)
        .assert()
        .stdout(predicate::str::contains(
            "… and 10 more invalid-json finding(s) (the per-rule limit)",
        ));
}

#[test]
fn inspect_shows_the_readers_notes_like_check() {
    let recs = inspect_records(&["samples/curl/curl-gzip.bin"]);
    let stream = recs.last().unwrap();
    assert_eq!(stream["type"], "stream");
    let notes = stream["notes"].to_string();
    assert!(
        notes.contains("body decoded from Content-Encoding: gzip"),
        "{stream}"
    );
    sselint()
        .args(["inspect", "samples/curl/curl-gzip.bin"])
        .assert()
        .stdout(predicate::str::contains(
            "note: body decoded from Content-Encoding: gzip",
        ));
}

#[test]
fn a_gzip_body_under_a_list_of_encodings_is_decoded_without_a_contradicting_note() {
    use std::io::Write;
    let body = std::fs::read(root().join("samples/good/openai-basic.sse")).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&body).unwrap();
    let mut capture = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-encoding: gzip, identity\r\n\r\n".to_vec();
    capture.extend(gz.finish().unwrap());
    let out = sselint()
        .args(["check", "-", "--input-format", "curl"])
        .write_stdin(capture)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("body decoded from Content-Encoding: gzip"),
        "{text}"
    );
    assert!(!text.contains("is not one sselint decodes"), "{text}");
}

#[test]
fn inspect_on_a_long_capture_shows_the_head_and_tail_rows_and_points_to_jsonl() {
    // The table keeps a bounded number of rows, whatever the capture's
    // length: the first and the last, with a note on what was left out.
    let chunk = |i: usize| {
        format!("data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"w{i} \"}},\"finish_reason\":null}}]}}\n\n")
    };
    let mut body = String::new();
    let n = 5000;
    for i in 0..n {
        body.push_str(&chunk(i));
    }
    body.push_str("data: [DONE]\n\n");
    let out = sselint()
        .args(["inspect", "-", "--color", "never"])
        .write_stdin(body)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let rows = |idx: usize| {
        text.lines()
            .filter(|l| l.starts_with(&format!("│ {idx} ")))
            .count()
    };
    assert_eq!(rows(0), 1, "the first event is shown");
    assert_eq!(rows(999), 1, "the head holds 1000 rows");
    assert_eq!(rows(1000), 0, "the middle is left out");
    assert_eq!(rows(n - 1), 1, "the last event is shown");
    assert!(
        text.contains("note: 3901 rows not shown")
            && text.contains("--format jsonl prints every event"),
        "{}",
        &text[..text.len().min(2000)]
    );
    // The answer is still whole.
    assert!(text.contains(&format!("w{} ", n - 1)));
}

/// The `-o` targets of each command that writes one: (args before the
/// target, args after it).
fn output_commands() -> Vec<(&'static str, Vec<&'static str>, Vec<&'static str>)> {
    vec![
        (
            "inspect -o",
            vec![
                "inspect",
                "samples/bad/invalid-json.sse",
                "--format",
                "html",
                "-o",
            ],
            vec![],
        ),
        (
            "check --report html=",
            vec!["check", "samples/bad/invalid-json.sse", "--report"],
            vec![],
        ),
        (
            "diff -o",
            vec![
                "diff",
                "samples/diff/openai.sse",
                "samples/diff/provider.sse",
                "--format",
                "html",
                "-o",
            ],
            vec![],
        ),
        (
            "minimize -o --force",
            vec!["minimize", "samples/bad/invalid-json.sse", "-o"],
            vec!["--force"],
        ),
    ]
}

/// Runs `cmd` with `target` as its output.
fn run_with_output(
    before: &[&str],
    target: &std::path::Path,
    after: &[&str],
) -> std::process::Output {
    let mut c = sselint();
    c.args(before);
    if before.last() == Some(&"--report") {
        c.arg(format!("html={}", target.display()));
    } else {
        c.arg(target);
    }
    c.args(after).output().unwrap()
}

#[cfg(unix)]
#[test]
fn output_through_a_link_replaces_the_real_file_and_keeps_the_link() {
    // A fresh-user trial: `-o /dev/stdout` as root deleted the link and left
    // a regular file. Here the links live in a scratch directory.
    let dir = common::scratch("out-link");
    for (name, before, after) in output_commands() {
        let real = dir.join("real.out");
        std::fs::write(&real, b"old").unwrap();
        let link = dir.join("link.out");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink("real.out", &link).unwrap();
        let out = run_with_output(&before, &link, &after);
        assert!(
            out.status.code().unwrap() < 2,
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let t = std::fs::symlink_metadata(&link).unwrap().file_type();
        assert!(t.is_symlink(), "{name}: the link was replaced by a file");
        let got = std::fs::read(&real).unwrap();
        assert!(got.len() > 10, "{name}: the real file was not written");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn output_to_a_fifo_or_a_link_to_stdout_is_written_through() {
    use std::os::unix::fs::FileTypeExt as _;
    let dir = common::scratch("out-fifo");
    for (name, before, after) in output_commands() {
        // A named pipe, read in a thread.
        let fifo = dir.join("pipe");
        let _ = std::fs::remove_file(&fifo);
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        let out = run_with_output(&before, &fifo, &after);
        if !std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
        {
            // Unblock the reader before failing.
            let _ = std::fs::OpenOptions::new().write(true).open(&fifo);
            panic!("{name}: the FIFO was replaced by a regular file");
        }
        let got = reader.join().unwrap();
        assert!(
            out.status.code().unwrap() < 2,
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(got.len() > 10, "{name}: nothing came through the pipe");
        // A link to the process's own stdout (as /dev/stdout is).
        let link = dir.join("stdout");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink("/proc/self/fd/1", &link).unwrap();
        let out = run_with_output(&before, &link, &after);
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "{name}: the link to stdout was replaced"
        );
        assert!(
            out.stdout.len() > 10,
            "{name}: nothing on stdout: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn dash_means_stdout_or_a_clear_error_never_a_file_named_dash() {
    let dir = common::scratch("out-dash");
    let run = |args: &[&str]| {
        Command::cargo_bin("sselint")
            .unwrap()
            .current_dir(&dir)
            .env("NO_COLOR", "1")
            .args(args)
            .output()
            .unwrap()
    };
    let sample = |p: &str| root().join(p).display().to_string();
    let (bad, a, b) = (
        sample("samples/bad/invalid-json.sse"),
        sample("samples/diff/openai.sse"),
        sample("samples/diff/provider.sse"),
    );
    // Standard output.
    for args in [
        vec!["inspect", &bad, "--format", "html", "-o", "-"],
        vec!["check", &bad, "--format", "json", "-o", "-"],
        vec!["diff", &a, &b, "--format", "json", "-o", "-"],
        vec!["redact", &bad, "-o", "-"],
    ] {
        let out = run(&args);
        assert!(
            out.status.code().unwrap() < 2,
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.len() > 10, "{args:?}: nothing on stdout");
    }
    // A clear error, naming the flag.
    for (args, flag) in [
        (vec!["minimize", &bad, "-o", "-"], "-o -"),
        (vec!["check", &bad, "--report", "html=-"], "--report html=-"),
        (
            vec!["check", &bad, "--write-baseline", "-"],
            "--write-baseline -",
        ),
        (
            vec![
                "record",
                "http://127.0.0.1:9/v1/chat/completions",
                "-o",
                "-",
            ],
            "-o -",
        ),
    ] {
        let out = run(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(flag), "{args:?}: {err}");
    }
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    assert!(left.is_empty(), "files were written: {left:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `sselint … | head -0`: stdout closed before the command writes its
/// report. A closed pipe is not an error (src/main.rs); no command panics
/// on it (exit 101).
#[test]
fn a_closed_stdout_is_not_a_panic() {
    let dir = common::scratch("closed-stdout");
    let input = root().join("samples/bad/cut-off.sse");
    let out = dir.join("min.sse");
    let red = dir.join("red.sse");
    let runs: Vec<Vec<String>> = vec![
        vec![
            "minimize".into(),
            input.display().to_string(),
            "-o".into(),
            out.display().to_string(),
        ],
        vec![
            "redact".into(),
            input.display().to_string(),
            "-o".into(),
            red.display().to_string(),
        ],
        vec!["check".into(), input.display().to_string()],
        vec!["inspect".into(), input.display().to_string()],
    ];
    for args in runs {
        let bin = assert_cmd::cargo::cargo_bin("sselint");
        let mut child = std::process::Command::new(bin)
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Close the reading end before the command prints.
        drop(child.stdout.take());
        let done = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&done.stderr);
        assert_ne!(done.status.code(), Some(101), "{args:?} panicked: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// `sselint … 2>&1 | head -0` on an input that cannot be read: stderr is
/// a pipe whose reader is gone, so writing the error fails (EPIPE). A
/// fresh-user trial saw a panic (exit 101); the error is lost and the
/// exit code is still 2.
#[test]
fn a_closed_stderr_is_not_a_panic() {
    let dir = common::scratch("closed-stderr");
    let bad = dir.join("not.har");
    std::fs::write(&bad, "{\"x\": 1}").unwrap();
    std::fs::copy(
        root().join("samples/bad/cut-off.sse"),
        dir.join("cut-off.sse"),
    )
    .unwrap();
    for args in [
        vec!["check".to_string(), bad.display().to_string()],
        vec!["check".into(), "-v".into(), dir.display().to_string()],
    ] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let done = std::process::Command::new(assert_cmd::cargo::cargo_bin("sselint"))
            .args(&args)
            .stdout(std::process::Stdio::null())
            .stderr(writer)
            .status()
            .unwrap();
        assert_eq!(done.code(), Some(2), "{args:?}");
    }
}

#[test]
fn every_json_report_names_the_tool_the_same_way() {
    let version = env!("CARGO_PKG_VERSION");
    for args in [
        &["check", "samples/good/openai-basic.sse", "--format", "json"][..],
        &[
            "diff",
            "samples/diff/openai.sse",
            "samples/diff/whole-words.sse",
            "--format",
            "json",
        ][..],
    ] {
        let out = sselint().args(args).output().unwrap();
        let v = json_of(&out.stdout);
        assert_eq!(v["tool"]["name"], "sselint", "{args:?}");
        assert_eq!(v["tool"]["version"], version, "{args:?}");
    }
}

#[test]
fn invalid_utf8_names_the_bytes_in_hex_not_as_a_count() {
    let dir = common::scratch("utf8-wording");
    let f = dir.join("two.sse");
    std::fs::write(
        &f,
        b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\xe2\x82\"}}]}\n\n",
    )
    .unwrap();
    let out = sselint().arg("check").arg(&f).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("the bytes 0xE2 0x82 are not UTF-8; they decode to U+FFFD"),
        "{text}"
    );
    let out = sselint()
        .args(["check", "samples/bad/invalid-utf8.sse"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("the byte 0xE9 is not UTF-8; it decodes to U+FFFD"),
        "{text}"
    );
}

#[test]
fn a_huge_index_is_written_in_digits_not_as_a_float() {
    let dir = common::scratch("huge-index");
    let f = dir.join("big.sse");
    std::fs::write(
        &f,
        concat!(
            r#"data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":100000000000000000000,"delta":{"role":"assistant","content":"Hi","tool_calls":[{"index":18446744073709551616,"id":"x","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":null}]}"#,
            "\n\ndata: [DONE]\n\n"
        ),
    )
    .unwrap();
    let out = sselint().arg("check").arg(&f).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("`index` is 100000000000000000000, too large for an index"),
        "{text}"
    );
    assert!(
        text.contains("has `index` 18446744073709551616 instead of an integer"),
        "{text}"
    );
    assert!(!text.contains("e+"), "{text}");
}

/// A negative or fractional choice index is named as the number it is, not
/// as "number (-1)" (a fresh-user trial).
#[test]
fn a_negative_index_is_said_to_be_no_index() {
    let dir = common::scratch("negative-index");
    let f = dir.join("neg.sse");
    std::fs::write(
        &f,
        "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":-1,\"delta\":{\"role\":\"assistant\",\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
    )
    .unwrap();
    let out = sselint().arg("check").arg(&f).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("`index` is -1, which is no index (choices are numbered 0, 1, …)"),
        "{text}"
    );
}

/// A stream whose only choice is numbered 5 on every chunk is a
/// `choice-index` error (both observed stream helpers raised on it); a
/// stream of two choices that opens with choice 1 is not.
#[test]
fn a_single_choice_must_be_numbered_0() {
    let dir = common::scratch("single-choice-5");
    let chunk = |i: u64, delta: &str, finish: &str| {
        format!("data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{{\"index\":{i},\"delta\":{delta},\"finish_reason\":{finish}}}]}}\n\n")
    };
    let five = dir.join("five.sse");
    std::fs::write(
        &five,
        chunk(5, r#"{"role":"assistant","content":"Hi"}"#, "null")
            + &chunk(5, "{}", "\"stop\"")
            + "data: [DONE]\n\n",
    )
    .unwrap();
    let out = sselint().arg("check").arg(&five).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("the stream's only choice is numbered 5 on every chunk"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let two = dir.join("two.sse");
    std::fs::write(
        &two,
        chunk(1, r#"{"role":"assistant","content":"Hello"}"#, "null")
            + &chunk(0, r#"{"role":"assistant","content":"Hi"}"#, "null")
            + &chunk(1, "{}", "\"stop\"")
            + &chunk(0, "{}", "\"stop\"")
            + "data: [DONE]\n\n",
    )
    .unwrap();
    let out = sselint().arg("check").arg(&two).output().unwrap();
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("choice-index"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// A full stdout (`> /dev/full`) is a clear error, exit 2, in every
/// command that writes a report there, and the message says what failed.
#[test]
fn a_full_stdout_is_an_error_that_says_the_report_could_not_be_written() {
    if !std::path::Path::new("/dev/full").exists() {
        return common::not_run("a_full_stdout", "this system has no /dev/full");
    }
    let s = "samples/good/openai-basic.sse";
    for args in [
        vec!["check", s],
        vec!["check", s, "--format", "json"],
        vec!["inspect", s],
        vec!["inspect", s, "--format", "jsonl"],
        vec!["diff", s, s],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("sselint"))
            .current_dir(root())
            .env("NO_COLOR", "1")
            .args(&args)
            .stdout(full)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(
            stderr.contains("writing the report") && stderr.contains("No space left"),
            "{args:?}: {stderr}"
        );
    }
}

/// Every command that takes `--dialect` names every dialect of the
/// registry in its help (the values clap lists and the option's own text),
/// and no help says there are three.
#[test]
fn every_dialect_option_names_every_dialect() {
    for cmd in ["check", "inspect", "diff", "record", "replay", "probe"] {
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("sselint"))
            .args([cmd, "--help"])
            .output()
            .unwrap();
        let help = String::from_utf8_lossy(&out.stdout);
        let start = help.find("--dialect <").expect(cmd);
        let option = &help[start..];
        let option = &option[..option[2..]
            .find("\n      -")
            .map_or(option.len(), |i| i + 2)];
        for d in sselint::dialect::ALL {
            assert!(
                option.contains(&format!("`{}`", d.name())),
                "{cmd} --help: --dialect does not name {d}: {option}"
            );
        }
        assert!(!help.contains("three dialects"), "{cmd}");
    }
}

/// A HAR named with its entry (`capture.har#0`) is still the input: no
/// output may be written over it (a fresh-user trial lost a HAR this way).
#[test]
fn an_entry_of_a_har_is_never_overwritten() {
    let dir = common::Scratch::new("entry-overwrite");
    let har = dir.join("g.har");
    let original = std::fs::read(root().join("samples/har/chrome.har")).unwrap();
    std::fs::write(&har, &original).unwrap();
    let spec = format!("{}#0", har.display());
    let h = har.to_str().unwrap();
    let report = format!("json={h}");
    let runs: [Vec<&str>; 4] = [
        vec!["check", &spec, "-o", h],
        vec!["check", &spec, "--report", &report],
        vec!["check", &spec, "--write-baseline", h],
        vec!["inspect", &spec, "--format", "html", "-o", h],
    ];
    for args in runs {
        sselint()
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("would overwrite the capture"));
        assert_eq!(
            std::fs::read(&har).unwrap(),
            original,
            "{args:?} wrote over the HAR"
        );
    }
}

/// `check DIR` does not lint the reports a user wrote into the directory
/// (an HTML page quotes the stream, GitHub annotations open with `::`):
/// a fresh-user trial saw them fail the directory.
#[test]
fn a_directory_walk_skips_reports() {
    let dir = common::Scratch::new("dir-reports");
    std::fs::copy(
        root().join("samples/good/openai-basic.sse"),
        dir.join("a.sse"),
    )
    .unwrap();
    for (format, name) in [
        ("html", "out.html"),
        ("github", "out.github"),
        ("sarif", "out.sarif"),
    ] {
        let report = dir.join(name);
        sselint()
            .args(["check", "samples/bad/cut-off.sse", "--format", format, "-o"])
            .arg(&report)
            .current_dir(root())
            .assert()
            .code(1);
    }
    let out = sselint()
        .args(["check", "--format", "json"])
        .arg(dir.as_os_str())
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    let files: Vec<&str> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(files[0].ends_with("a.sse"), "{files:?}");
}

/// 50 copies of a clean sample in a scratch folder: enough inputs for
/// `check`'s `[N/M]` progress line.
fn fifty_captures() -> common::Scratch {
    let dir = common::scratch("progress");
    let sample = std::fs::read(root().join("samples/good/openai-usage.sse")).unwrap();
    for i in 0..50 {
        std::fs::write(dir.join(format!("c{i:02}.sse")), &sample).unwrap();
    }
    dir
}

/// The `[N/M]` line is for a person at a terminal: with stderr piped (a CI
/// log, a script) none of it is written, in any streamed format.
#[test]
fn the_progress_line_is_not_written_when_stderr_is_no_terminal() {
    let dir = fifty_captures();
    for format in ["human", "github", "jsonl", "json"] {
        let out = sselint()
            .args(["check", "--format", format])
            .arg(&*dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{format}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !err.contains("/50]") && !err.contains("\x1b[2K"),
            "{format}: {err:?}"
        );
    }
}

/// On a terminal, `check` of 50 inputs or more keeps a `[N/M] PATH` line
/// on stderr while it runs, in the formats written as the results come
/// (human, GitHub, JSON Lines) as in those written at the end (JSON), and
/// clears it at the end. The terminal is `script`'s (util-linux), with
/// stdout sent elsewhere so what it shows is stderr alone.
#[test]
fn a_terminal_gets_the_progress_line_in_every_format() {
    let has_script = std::process::Command::new("script")
        .args(["-q", "-e", "-c", "true", "/dev/null"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_script {
        common::not_run(
            "a_terminal_gets_the_progress_line_in_every_format",
            "util-linux's `script` (a terminal for the test) is not installed",
        );
        return;
    }
    let dir = fifty_captures();
    let bin = assert_cmd::cargo::cargo_bin("sselint");
    for format in ["human", "github", "jsonl", "json"] {
        let cmd = format!(
            "'{}' check --format {format} '{}' > /dev/null",
            bin.display(),
            dir.display()
        );
        let out = std::process::Command::new("script")
            .args(["-q", "-e", "-c", &cmd, "/dev/null"])
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert!(out.status.success(), "{format}: {out:?}");
        let shown = String::from_utf8_lossy(&out.stdout);
        for n in [1, 50] {
            assert!(shown.contains(&format!("[{n}/50] ")), "{format}: {shown:?}");
        }
        assert!(shown.contains("c49.sse"), "{format}: {shown:?}");
        // Cleared at the end: the last thing written erases the line.
        assert!(shown.trim_end().ends_with("\x1b[2K"), "{format}: {shown:?}");
    }
}
