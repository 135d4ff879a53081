//! `sselint probe` end to end, on 127.0.0.1 only: `sselint replay DIR`
//! serves a scenario capture set (tests/fixtures/probe/, written by
//! scripts/probe_fixtures.py), good or broken in one of issue 15's ways,
//! and the probe must give each scenario its verdict with the right rule.

mod common;
use assert_cmd::cargo::cargo_bin;
use common::{root, scratch, Replay};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixtures() -> PathBuf {
    root().join("tests/fixtures/probe")
}

/// A scenario set in `dir`: the good set of every dialect, with the chat
/// captures `broken` (names in tests/fixtures/probe/broken/chat/)
/// replacing the good files of the same scenario, and the chat scenarios
/// `removed` left out.
fn capture_set(dir: &Path, broken: &[&str], removed: &[&str]) -> PathBuf {
    let set = dir.join("set");
    for d in ["chat", "responses", "messages"] {
        let to = set.join(d);
        std::fs::create_dir_all(&to).unwrap();
        for e in std::fs::read_dir(fixtures().join("good").join(d)).unwrap() {
            let p = e.unwrap().path();
            std::fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
        }
    }
    let chat = set.join("chat");
    let stem = |f: &str| f.split('.').next().unwrap().to_string();
    for f in broken.iter().chain(removed) {
        for e in std::fs::read_dir(&chat).unwrap() {
            let p = e.unwrap().path();
            if stem(p.file_name().unwrap().to_str().unwrap()) == stem(f) {
                std::fs::remove_file(p).unwrap();
            }
        }
    }
    for f in broken {
        std::fs::copy(fixtures().join("broken/chat").join(f), chat.join(f)).unwrap();
    }
    set
}

fn base(r: &Replay) -> String {
    format!("http://{}/v1", r.addr)
}

fn probe(base: &str, out: &Path, extra: &[&str]) -> Output {
    Command::new(cargo_bin("sselint"))
        .args(["probe", base, "--model", "probe-model", "-o"])
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

fn probe_json(base: &str, out: &Path, extra: &[&str]) -> (Option<i32>, Value) {
    let mut args = vec!["--format", "json"];
    args.extend_from_slice(extra);
    let o = probe(base, out, &args);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: stdout {} stderr {}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    });
    (o.status.code(), v)
}

fn verdicts(v: &Value) -> Vec<(String, String)> {
    v["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn scenario<'v>(v: &'v Value, name: &str) -> &'v Value {
    v["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no scenario {name} in {v}"))
}

fn rules(s: &Value) -> Vec<String> {
    s["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn against_the_good_set_every_scenario_passes_in_every_dialect() {
    let dir = scratch("probe-good");
    let r = Replay::start(&fixtures().join("good"), &[]);
    for (dialect, names) in [
        (
            "chat",
            &[
                "plain",
                "usage",
                "length",
                "stop",
                "tool",
                "parallel-tools",
                "n2",
                "json",
                "long",
                "reasoning",
                "invalid",
                "disconnect",
            ][..],
        ),
        (
            "responses",
            &[
                "plain",
                "length",
                "tool",
                "json",
                "long",
                "reasoning",
                "invalid",
                "disconnect",
            ][..],
        ),
        (
            "messages",
            &[
                "plain",
                "length",
                "stop",
                "tool",
                "long",
                "thinking",
                "invalid",
                "disconnect",
            ][..],
        ),
        (
            "gemini",
            &[
                "plain",
                "length",
                "stop",
                "tool",
                "n2",
                "json",
                "long",
                "thinking",
                "invalid",
                "disconnect",
            ][..],
        ),
    ] {
        let out = dir.join(dialect);
        let (code, v) = probe_json(&base(&r), &out, &["--dialect", dialect, "--reasoning"]);
        let got = verdicts(&v);
        let want: Vec<(String, String)> = names
            .iter()
            .map(|n| (n.to_string(), "pass".to_string()))
            .collect();
        assert_eq!(got, want, "{dialect}: {v:#}");
        assert_eq!(code, Some(0), "{dialect}");
        assert_eq!(v["version"], 1);
        assert_eq!(v["dialect"], dialect);
        assert_eq!(v["summary"]["pass"], names.len());
        for s in v["scenarios"].as_array().unwrap() {
            let cap = s["capture"].as_str().unwrap();
            assert!(Path::new(cap).is_file(), "{cap}");
            assert!(
                rules(s).iter().all(|r| r != "usage-missing"),
                "{dialect} {}: {s}",
                s["name"]
            );
            assert!(s["total_ms"].as_f64().is_some());
        }
        // The invalid request got the set's 400 JSON error.
        assert_eq!(scenario(&v, "invalid")["status"], 400);
    }
}

#[test]
fn each_fault_fails_its_scenario_with_its_rule_and_the_others_pass() {
    // (broken capture, scenario, the rules that must name the fault)
    let faults: &[(&str, &str, &[&str])] = &[
        ("usage.sse", "usage", &["usage-missing"]),
        ("n2.sse", "n2", &["probe-n-ignored"]),
        ("tool.sse", "tool", &["tool-call-arguments"]),
        (
            "parallel-tools.sse",
            "parallel-tools",
            &["tool-call-index-reused"],
        ),
        ("length.sse", "length", &["missing-finish-reason"]),
        (
            "invalid.sse",
            "invalid",
            &["probe-invalid-accepted", "error-event"],
        ),
    ];
    for (file, name, want) in faults {
        let dir = scratch(&format!("probe-fault-{name}"));
        let set = capture_set(&dir, &[file], &[]);
        let r = Replay::start(&set, &[]);
        let (code, v) = probe_json(&base(&r), &dir.join("out"), &[]);
        assert_eq!(code, Some(1), "{name}: {v:#}");
        for (n, verdict) in verdicts(&v) {
            if n == *name {
                assert_eq!(verdict, "fail", "{name}: {v:#}");
                let got = rules(scenario(&v, name));
                for w in *want {
                    assert!(got.iter().any(|g| g == w), "{name}: {w} not in {got:?}");
                }
                // The message says what was asked and what came back.
                let msgs: Vec<&str> = scenario(&v, name)["findings"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| f["message"].as_str().unwrap())
                    .collect();
                assert!(msgs.iter().all(|m| !m.is_empty()));
            } else {
                assert_eq!(verdict, "pass", "{name} broke {n}: {v:#}");
            }
        }
    }
}

#[test]
fn a_4xx_to_an_optional_feature_is_unsupported_and_to_a_required_one_a_failure() {
    let dir = scratch("probe-unsupported");
    let set = capture_set(&dir, &[], &["n2", "plain"]);
    let r = Replay::start(&set, &[]);
    let (code, v) = probe_json(&base(&r), &dir.join("out"), &["--only", "n2,plain,tool"]);
    assert_eq!(
        verdicts(&v),
        vec![
            ("plain".to_string(), "fail".to_string()),
            ("tool".to_string(), "pass".to_string()),
            ("n2".to_string(), "unsupported".to_string()),
        ]
    );
    assert_eq!(scenario(&v, "n2")["status"], 400);
    assert!(scenario(&v, "n2")["note"]
        .as_str()
        .unwrap()
        .contains("`n2` scenario"));
    assert!(rules(scenario(&v, "plain")).contains(&"probe-http-status".to_string()));
    assert_eq!(code, Some(1));
    // Unsupported alone does not fail the run.
    let (code, v) = probe_json(&base(&r), &dir.join("out2"), &["--only", "n2"]);
    assert_eq!(v["summary"]["unsupported"], 1);
    assert_eq!(code, Some(0));
}

#[test]
fn a_server_that_is_down_is_an_error_with_exit_1() {
    let dir = scratch("probe-down");
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let (code, v) = probe_json(
        &format!("http://127.0.0.1:{port}/v1"),
        &dir.join("out"),
        &["--only", "plain,usage", "--timeout", "5"],
    );
    // 2 is kept for usage errors (nothing sent); a scenario that could not
    // be judged fails the run like a failed one.
    assert_eq!(code, Some(1));
    // Said once: the first scenario's error, the others not run.
    assert_eq!(
        verdicts(&v),
        vec![("plain".to_string(), "error".to_string())],
        "{v:#}"
    );
    assert_eq!(v["not_run"], serde_json::json!(["usage"]), "{v:#}");
    assert!(
        v["halted"]
            .as_str()
            .unwrap()
            .contains("could not be reached"),
        "{v:#}"
    );
    assert!(scenario(&v, "plain")["capture"].is_null());
    assert!(!scenario(&v, "plain")["note"].as_str().unwrap().is_empty());
}

#[test]
fn disconnect_passes_when_the_server_answers_after_a_hang_up_and_fails_when_it_does_not() {
    let dir = scratch("probe-disconnect");
    let set = capture_set(&dir, &[], &[]);
    // Slow enough that the client hangs up mid-stream.
    let r = Replay::start(&set, &["--delay-ms", "100"]);
    let (code, v) = probe_json(&base(&r), &dir.join("out"), &["--only", "disconnect"]);
    assert_eq!(code, Some(0), "{v:#}");
    let s = scenario(&v, "disconnect");
    assert_eq!(s["verdict"], "pass");
    assert!(s["note"].as_str().unwrap().contains("hung up after"), "{s}");
    let dropped: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("out/disconnect-dropped.har")).unwrap(),
    )
    .unwrap();
    let e = &dropped["log"]["entries"][0];
    // The probe hung up, not the user: the capture says so.
    assert_eq!(e["_sselint"]["stopped"], "hung-up");
    let check = Command::new(cargo_bin("sselint"))
        .arg("check")
        .arg(dir.join("out/disconnect-dropped.har"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&check.stdout);
    assert!(!text.contains("Ctrl-C"), "{text}");
    assert!(text.contains("hung up on purpose"), "{text}");
    let full = std::fs::read(set.join("chat/long.sse")).unwrap();
    assert!(e["response"]["content"]["text"].as_str().unwrap().len() < full.len());
    drop(r);
    // A server that stops after the first request (`--once`) leaves the
    // follow-up unanswered.
    let r = Replay::start(&set, &["--delay-ms", "100", "--once"]);
    let (code, v) = probe_json(&base(&r), &dir.join("out2"), &["--only", "disconnect"]);
    let s = scenario(&v, "disconnect");
    assert_eq!(s["verdict"], "fail", "{v:#}");
    assert!(rules(s).contains(&"probe-no-answer-after-disconnect".to_string()));
    assert_eq!(code, Some(1));
}

#[test]
fn the_key_reaches_neither_captures_nor_output() {
    let dir = scratch("probe-key");
    let key = "sk-probeFAKEkey0123456789abcdef";
    let r = Replay::start(&fixtures().join("good"), &[]);
    for format in ["human", "json", "sarif", "junit", "github"] {
        let out = dir.join(format);
        let o = Command::new(cargo_bin("sselint"))
            .args([
                "probe",
                &base(&r),
                "--model",
                "m",
                "--api-key-env",
                "PROBE_TEST_KEY",
            ])
            .args(["--format", format, "-o"])
            .arg(&out)
            .args(["-H", "X-Trace: probe-test"])
            .env("PROBE_TEST_KEY", key)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{format}");
        for bytes in [&o.stdout, &o.stderr] {
            assert!(!String::from_utf8_lossy(bytes).contains(key), "{format}");
        }
        let mut hars = 0;
        for e in std::fs::read_dir(&out).unwrap() {
            let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
            assert!(!text.contains(key), "{format}");
            let har: Value = serde_json::from_str(&text).unwrap();
            let headers = har["log"]["entries"][0]["request"]["headers"].clone();
            assert!(
                headers
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|h| h["name"] == "Authorization" && h["value"] == "[REDACTED]"),
                "the header was sent, redacted: {headers}"
            );
            hars += 1;
        }
        assert_eq!(hars, 12, "11 scenarios and disconnect's dropped capture");
    }
}

#[test]
fn only_and_skip_choose_scenarios_and_an_unknown_name_is_a_usage_error() {
    let dir = scratch("probe-only");
    let r = Replay::start(&fixtures().join("good"), &[]);
    let (_, v) = probe_json(&base(&r), &dir.join("a"), &["--only", "tool,plain"]);
    let names: Vec<String> = verdicts(&v).into_iter().map(|x| x.0).collect();
    assert_eq!(names, ["plain", "tool"]);
    let (_, v) = probe_json(
        &base(&r),
        &dir.join("b"),
        &["--skip", "invalid,disconnect,long"],
    );
    let names: Vec<String> = verdicts(&v).into_iter().map(|x| x.0).collect();
    assert_eq!(
        names,
        [
            "plain",
            "usage",
            "length",
            "stop",
            "tool",
            "parallel-tools",
            "n2",
            "json"
        ]
    );
    let o = probe(&base(&r), &dir.join("c"), &["--only", "plain,bogus"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no scenario \"bogus\""));
    // A URL whose path names another API than --dialect.
    let o = Command::new(cargo_bin("sselint"))
        .args(["probe", &format!("{}/messages", base(&r)), "--model", "m"])
        .args(["--dialect", "chat", "-o"])
        .arg(dir.join("e"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--dialect says chat"));
    // Messages has no n2.
    let o = probe(
        &base(&r),
        &dir.join("d"),
        &["--dialect", "messages", "--only", "n2"],
    );
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn fail_on_sets_the_level_that_fails_a_scenario() {
    let dir = scratch("probe-fail-on");
    let r = Replay::start(&fixtures().join("good"), &[]);
    // The reasoning capture carries `reasoning_content`, an info
    // (vendor-extension) under the openai profile.
    let (code, v) = probe_json(
        &base(&r),
        &dir.join("a"),
        &["--only", "reasoning", "--reasoning"],
    );
    assert_eq!(code, Some(0));
    let s = scenario(&v, "reasoning");
    assert_eq!(s["verdict"], "pass");
    assert!(rules(s).contains(&"vendor-extension".to_string()));
    let (code, v) = probe_json(
        &base(&r),
        &dir.join("b"),
        &["--only", "reasoning", "--fail-on", "info"],
    );
    assert_eq!(scenario(&v, "reasoning")["verdict"], "fail");
    assert_eq!(code, Some(1));
}

#[test]
fn fail_on_never_keeps_the_card_and_exits_0_as_check_does() {
    // The same --fail-on values as `check`: `never` is accepted, the card
    // still judges each scenario at `error`, and a failing one no longer
    // fails the run.
    let dir = scratch("probe-fail-on-never");
    let set = capture_set(&dir, &["tool.sse"], &[]);
    let r = Replay::start(&set, &[]);
    let (code, v) = probe_json(
        &base(&r),
        &dir.join("out"),
        &["--only", "tool,plain", "--fail-on", "never"],
    );
    assert_eq!(scenario(&v, "tool")["verdict"], "fail", "{v:#}");
    assert_eq!(scenario(&v, "plain")["verdict"], "pass", "{v:#}");
    assert_eq!(v["fail_on"], "never");
    assert_eq!(v["tool"]["name"], "sselint");
    assert_eq!(v["tool"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(code, Some(0), "{v:#}");
}

#[test]
fn existing_captures_are_kept_unless_forced() {
    let dir = scratch("probe-keep");
    let r = Replay::start(&fixtures().join("good"), &[]);
    let out = dir.join("out");
    assert_eq!(
        probe(&base(&r), &out, &["--only", "plain"]).status.code(),
        Some(0)
    );
    std::fs::write(out.join("plain.har"), "mine").unwrap();
    let o = probe(&base(&r), &out, &["--only", "plain"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("already exists"));
    assert_eq!(
        std::fs::read_to_string(out.join("plain.har")).unwrap(),
        "mine"
    );
    let o = probe(&base(&r), &out, &["--only", "plain", "--force"]);
    assert_eq!(o.status.code(), Some(0));
    assert_ne!(
        std::fs::read_to_string(out.join("plain.har")).unwrap(),
        "mine"
    );
}

#[test]
fn the_report_formats_give_one_entry_per_scenario() {
    let dir = scratch("probe-formats");
    let set = capture_set(&dir, &["usage.sse"], &["n2"]);
    let r = Replay::start(&set, &[]);
    let only = ["--only", "plain,usage,n2"];
    let run = |format: &str, out: &str| {
        let mut a = vec!["--format", format];
        a.extend_from_slice(&only);
        let o = probe(&base(&r), &dir.join(out), &a);
        assert_eq!(o.status.code(), Some(1), "{format}");
        String::from_utf8(o.stdout).unwrap()
    };
    let human = run("human", "h");
    for w in [
        "plain",
        "usage",
        "n2",
        "pass",
        "fail",
        "unsupported",
        "usage-missing",
    ] {
        assert!(human.contains(w), "{w} in {human}");
    }
    let junit = run("junit", "j");
    let doc = roxmltree::Document::parse(&junit).unwrap();
    let cases: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|n| n.attribute("name").unwrap())
        .collect();
    assert_eq!(cases, ["plain", "usage", "n2"], "{junit}");
    assert!(junit.contains("<failure"));
    assert!(junit.contains("<skipped"));
    let sarif: Value = serde_json::from_str(&run("sarif", "s")).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("tests/sarif-2.1.0-subset.schema.json")).unwrap(),
    )
    .unwrap();
    let errors: Vec<String> = jsonschema::validator_for(&schema)
        .unwrap()
        .iter_errors(&sarif)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert!(results
        .iter()
        .any(|x| x["level"] == "error" && x["properties"]["scenario"] == "usage"));
    let github = run("github", "g");
    assert!(
        github
            .lines()
            .any(|l| l.starts_with("::error ") && l.contains("usage-missing")),
        "{github}"
    );
}

#[test]
fn two_endpoints_are_compared_scenario_by_scenario() {
    let dir = scratch("probe-compare");
    let good = Replay::start(&fixtures().join("good"), &[]);
    let set = capture_set(&dir, &["n2.sse", "usage.sse"], &[]);
    let broken = Replay::start(&set, &[]);
    let o = Command::new(cargo_bin("sselint"))
        .args(["probe", &base(&good), &base(&broken), "--model", "m"])
        .args(["--only", "plain,usage,n2", "--format", "json", "-o"])
        .arg(dir.join("out"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["summary"]["pass"], 3);
    assert_eq!(v["compared_with"]["summary"]["fail"], 2);
    let diffs = v["differences"].as_array().unwrap();
    let of = |n: &str| diffs.iter().find(|d| d["name"] == n).unwrap();
    assert_eq!(of("n2")["verdicts"], serde_json::json!(["pass", "fail"]));
    assert!(!of("n2")["differences"].as_array().unwrap().is_empty());
    assert!(!of("usage")["differences"].as_array().unwrap().is_empty());
    assert!(dir.join("out/a/plain.har").is_file());
    assert!(dir.join("out/b/plain.har").is_file());
    let human = Command::new(cargo_bin("sselint"))
        .args(["probe", &base(&good), &base(&broken), "--model", "m"])
        .args(["--only", "n2", "-o"])
        .arg(dir.join("out2"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("A against B"), "{text}");
    assert!(text.contains("n2: A pass, B fail"), "{text}");
}

#[test]
fn replay_dir_rejects_a_file_named_by_no_scenario() {
    let dir = scratch("probe-badset");
    std::fs::create_dir_all(dir.join("set/chat")).unwrap();
    std::fs::copy(
        fixtures().join("good/chat/plain.sse"),
        dir.join("set/chat/hello.sse"),
    )
    .unwrap();
    let o = Command::new(cargo_bin("sselint"))
        .arg("replay")
        .arg(dir.join("set"))
        .args(["--listen", "127.0.0.1:0"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("hello.sse") && err.contains("is no"), "{err}");
}

#[cfg(unix)]
#[test]
fn ctrl_c_keeps_the_captures_so_far_and_reports_the_scenarios_run() {
    let dir = scratch("probe-sigint");
    let r = Replay::start(&fixtures().join("good"), &["--delay-ms", "300"]);
    let out = dir.join("out");
    let child = Command::new(cargo_bin("sselint"))
        .args(["probe", &base(&r), "--model", "m", "--format", "json"])
        .args(["--only", "plain,long,invalid", "-o"])
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // At 300 ms an event, plain takes a few seconds and long (42 events)
    // over ten: the signal lands while long streams.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !out.join("plain.har").exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(900));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let o = child.wait_with_output().unwrap();
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
    let names: Vec<String> = verdicts(&v).into_iter().map(|x| x.0).collect();
    assert_eq!(names, ["plain", "long"], "{v:#}");
    assert_eq!(scenario(&v, "plain")["verdict"], "pass");
    // The scenario cut short is not judged, let alone passed.
    let long = scenario(&v, "long");
    assert_eq!(long["interrupted"], true);
    assert_eq!(long["verdict"], "error", "{v:#}");
    assert!(long["note"].as_str().unwrap().contains("Ctrl-C"), "{long}");
    assert_eq!(v["interrupted"], true, "{v:#}");
    assert_eq!(v["not_run"], serde_json::json!(["invalid"]), "{v:#}");
    assert_eq!(v["summary"]["pass"], 1);
    assert_eq!(o.status.code(), Some(130), "{v:#}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("interrupted"));
    let long: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("long.har")).unwrap()).unwrap();
    assert_eq!(
        long["log"]["entries"][0]["_sselint"]["stopped"],
        "interrupted"
    );
    assert!(!out.join("invalid.har").exists());
}

/// Found by a fresh-user trial: Ctrl-C during `--delay-ms` still sent the
/// next request. The scenario after the wait is not run.
#[cfg(unix)]
#[test]
fn ctrl_c_during_the_delay_sends_nothing_more() {
    let dir = scratch("probe-sigint-delay");
    let r = Replay::start(&fixtures().join("good"), &[]);
    let out = dir.join("out");
    let child = Command::new(cargo_bin("sselint"))
        .args(["probe", &base(&r), "--model", "m", "--format", "json"])
        .args(["--only", "plain,usage", "--delay-ms", "20000", "-o"])
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !out.join("plain.har").exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // plain is saved; the probe now waits 20 s before usage.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let o = child.wait_with_output().unwrap();
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
    let names: Vec<String> = verdicts(&v).into_iter().map(|x| x.0).collect();
    assert_eq!(names, ["plain"], "{v:#}");
    assert_eq!(v["not_run"], serde_json::json!(["usage"]), "{v:#}");
    assert!(!out.join("usage.har").exists());
    assert_eq!(o.status.code(), Some(130), "{v:#}");
}

/// Found by a fresh-user trial: a `-H` without a colon was echoed whole in
/// the error, key and all (CI logs keep it).
#[test]
fn a_malformed_header_is_refused_without_printing_its_value() {
    const SECRET: &str = "HDRNOCOLON9";
    let dir = scratch("probe-bad-header");
    let body = dir.join("req.json");
    std::fs::write(&body, r#"{"model":"m","messages":[]}"#).unwrap();
    let o = Command::new(cargo_bin("sselint"))
        .args(["probe", "http://127.0.0.1:9/v1", "--model", "m", "-H"])
        .arg(format!("Authorization Bearer {SECRET}"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("-H") && !err.contains(SECRET), "{err}");
    let o = Command::new(cargo_bin("sselint"))
        .args([
            "record",
            "http://127.0.0.1:9/v1/chat/completions",
            "-o",
            "x.har",
            "-H",
        ])
        .arg(format!("Authorization Bearer {SECRET}"))
        .arg("--body")
        .arg(&body)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("-H") && !err.contains(SECRET), "{err}");
}

#[test]
fn a_stream_that_outlasts_the_scenario_time_out_fails_with_probe_timeout() {
    let dir = scratch("probe-timeout");
    // long has 42 events: at 400 ms each it far outlasts a 1 s time-out.
    let r = Replay::start(&fixtures().join("good"), &["--delay-ms", "400"]);
    let (code, v) = probe_json(
        &base(&r),
        &dir.join("out"),
        &["--only", "long", "--timeout", "1"],
    );
    let s = scenario(&v, "long");
    assert_eq!(s["verdict"], "fail", "{v:#}");
    assert!(rules(s).contains(&"probe-timeout".to_string()), "{s}");
    assert!(dir.join("out/long.har").is_file());
    assert_eq!(code, Some(1));
}

#[test]
fn rule_explains_a_probe_rule() {
    let o = Command::new(cargo_bin("sselint"))
        .args(["rule", "probe-n-ignored"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("n = 2") && text.contains("sselint probe"),
        "{text}"
    );
}

#[test]
fn the_probe_rules_fail_what_only_the_request_makes_wrong() {
    // (dialect, scenario file, how to break it, scenario, rule)
    type Break = fn(&Path, &Path);
    let cases: &[(&str, &str, Break, &str, &str)] = &[
        (
            "chat",
            "length.sse",
            |from, to| {
                let t = std::fs::read_to_string(from).unwrap();
                std::fs::write(
                    to,
                    t.replace(r#""finish_reason":"length""#, r#""finish_reason":"stop""#),
                )
                .unwrap();
            },
            "length",
            "probe-not-cut",
        ),
        (
            "messages",
            "length.sse",
            |from, to| {
                let t = std::fs::read_to_string(from).unwrap();
                std::fs::write(
                    to,
                    t.replace(
                        r#""stop_reason":"max_tokens""#,
                        r#""stop_reason":"end_turn""#,
                    ),
                )
                .unwrap();
            },
            "length",
            "probe-not-cut",
        ),
        (
            "chat",
            "tool.sse",
            |from, to| {
                // A text answer to a forced tool call.
                let plain = from.parent().unwrap().join("plain.sse");
                std::fs::copy(plain, to).unwrap();
            },
            "tool",
            "probe-no-tool-call",
        ),
        (
            "chat",
            "tool.sse",
            |from, to| {
                // The call went to a tool the request never offered.
                let t = std::fs::read_to_string(from).unwrap();
                std::fs::write(to, t.replace("get_weather", "delete_everything")).unwrap();
            },
            "tool",
            "probe-wrong-tool",
        ),
        (
            "responses",
            "tool.sse",
            |from, to| {
                let t = std::fs::read_to_string(from).unwrap();
                std::fs::write(to, t.replace("get_weather", "delete_everything")).unwrap();
            },
            "tool",
            "probe-wrong-tool",
        ),
        (
            "messages",
            "tool.sse",
            |from, to| {
                let t = std::fs::read_to_string(from).unwrap();
                std::fs::write(to, t.replace("get_weather", "delete_everything")).unwrap();
            },
            "tool",
            "probe-wrong-tool",
        ),
        (
            "messages",
            "stop.sse",
            |_, to| {
                // The list went on past the stop sequence.
                let good = fixtures().join("good/messages/long.sse");
                std::fs::copy(good, to).unwrap();
            },
            "stop",
            "probe-stop-ignored",
        ),
        (
            "chat",
            "json.sse",
            |from, to| {
                let t = std::fs::read_to_string(from).unwrap();
                std::fs::write(to, t.replace(r#"{\"greeting\""#, r#"Sure! {\"greeting\""#))
                    .unwrap();
            },
            "json",
            "probe-json-invalid",
        ),
    ];
    for (dialect, file, brk, name, rule) in cases {
        let dir = scratch(&format!("probe-rule-{dialect}-{name}"));
        let set = capture_set(&dir, &[], &[]);
        let good = fixtures().join("good").join(dialect).join(file);
        brk(&good, &set.join(dialect).join(file));
        assert_ne!(
            std::fs::read(&good).unwrap(),
            std::fs::read(set.join(dialect).join(file)).unwrap(),
            "{dialect} {name}: the capture was not broken"
        );
        let r = Replay::start(&set, &[]);
        let (code, v) = probe_json(
            &base(&r),
            &dir.join("out"),
            &["--dialect", dialect, "--skip", "disconnect,invalid"],
        );
        for (n, verdict) in verdicts(&v) {
            if n == *name {
                assert_eq!(verdict, "fail", "{dialect} {name}: {v:#}");
                assert!(
                    rules(scenario(&v, name)).contains(&rule.to_string()),
                    "{dialect} {name}: {v:#}"
                );
            } else {
                assert_eq!(verdict, "pass", "{dialect} {name} broke {n}: {v:#}");
            }
        }
        assert_eq!(code, Some(1));
    }
}

#[test]
fn a_stream_past_the_size_limit_is_cut_and_fails_with_probe_too_long() {
    let dir = scratch("probe-too-long");
    let set = capture_set(&dir, &[], &[]);
    let mut body = String::new();
    let chunk = r#"data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"content":"word "},"finish_reason":null}]}"#;
    body.push_str(r#"data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"#);
    body.push_str("\n\n");
    while body.len() < 5 << 20 {
        body.push_str(chunk);
        body.push_str("\n\n");
    }
    std::fs::write(set.join("chat/long.sse"), &body).unwrap();
    std::fs::write(set.join("chat/stop.sse"), &body).unwrap();
    let r = Replay::start(&set, &[]);
    let (code, v) = probe_json(&base(&r), &dir.join("out"), &["--only", "long,plain,stop"]);
    // Each message names the budget its own request set.
    let budget_in = |name: &str| {
        scenario(&v, name)["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["rule"] == "probe-too-long")
            .unwrap_or_else(|| panic!("{name}: {v:#}"))["message"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(budget_in("long").contains("at most 256 tokens"), "{v:#}");
    assert!(budget_in("stop").contains("at most 64 tokens"), "{v:#}");
    let s = scenario(&v, "long");
    assert_eq!(s["verdict"], "fail", "{s}");
    assert!(rules(s).contains(&"probe-too-long".to_string()), "{s}");
    assert_eq!(scenario(&v, "plain")["verdict"], "pass");
    let har: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/long.har")).unwrap()).unwrap();
    let e = &har["log"]["entries"][0];
    let kept = e["response"]["content"]["text"].as_str().unwrap().len();
    let full = std::fs::metadata(set.join("chat/long.sse")).unwrap().len() as usize;
    assert!(
        kept < full,
        "the read stopped before the end: {kept} of {full} bytes"
    );
    // The probe's size limit cut it, not the user's Ctrl-C.
    assert_eq!(e["_sselint"]["stopped"], "size-limit");
    let msgs = s["findings"].to_string();
    assert!(!msgs.contains("Ctrl-C"), "{msgs}");
    assert_eq!(code, Some(1));
}

#[test]
fn a_secret_in_the_url_reaches_neither_captures_nor_output() {
    let dir = scratch("probe-url-secret");
    let r = Replay::start(&fixtures().join("good"), &[]);
    let secret_url = |addr: &str| {
        format!("http://alice:PASSWORDforProbe9@{addr}/v1?key=sk-urlFAKEkey0123456789")
    };
    let down = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().to_string()
    };
    for (name, url) in [("up", secret_url(&r.addr)), ("down", secret_url(&down))] {
        let out = dir.join(name);
        for format in ["human", "json", "github"] {
            let o = probe(
                &url,
                &out.join(format),
                &[
                    "--only",
                    "plain,invalid",
                    "--format",
                    format,
                    "--timeout",
                    "5",
                ],
            );
            for bytes in [&o.stdout, &o.stderr] {
                let text = String::from_utf8_lossy(bytes);
                assert!(
                    !text.contains("PASSWORDforProbe9") && !text.contains("urlFAKEkey"),
                    "{name} {format}: {text}"
                );
            }
            if name == "up" {
                assert_eq!(o.status.code(), Some(0), "{name} {format}");
                for e in std::fs::read_dir(out.join(format)).unwrap() {
                    let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
                    assert!(!text.contains("PASSWORDforProbe9") && !text.contains("urlFAKEkey"));
                }
            } else {
                assert_eq!(o.status.code(), Some(1), "{name} {format}");
            }
        }
    }
}

#[test]
fn report_writes_more_formats_to_files_while_stdout_keeps_the_card() {
    let dir = scratch("probe-report");
    let r = Replay::start(&fixtures().join("good"), &[]);
    let sarif = dir.join("probe.sarif");
    let junit = dir.join("probe.xml");
    let o = probe(
        &base(&r),
        &dir.join("out"),
        &[
            "--only",
            "plain,tool",
            "--report",
            &format!("sarif={}", sarif.display()),
            "--report",
            &format!("junit={}", junit.display()),
        ],
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).contains("2 scenario(s): 2 pass"));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert_eq!(v["version"], "2.1.0");
    let x = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&x).unwrap();
    assert_eq!(
        doc.descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .count(),
        2
    );
    let o = probe(&base(&r), &dir.join("out2"), &["--report", "yaml=x.yaml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown format"));
    // A usage error leaves nothing behind.
    assert!(!dir.join("out2").exists());
}

#[test]
fn an_invalid_request_answered_with_a_200_error_stream_fails_in_every_dialect() {
    let cases = [
        (
            "responses",
            "event: error\ndata: {\"type\":\"error\",\"code\":\"invalid_request_error\",\"message\":\"Invalid type for 'input'.\",\"param\":\"input\",\"sequence_number\":0}\n\n",
            "responses-error-event",
        ),
        (
            "messages",
            "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"messages: Input should be a valid list\"}}\n\n",
            "messages-error-event",
        ),
    ];
    for (dialect, stream, rule) in cases {
        let dir = scratch(&format!("probe-invalid-{dialect}"));
        let set = capture_set(&dir, &[], &[]);
        std::fs::remove_file(set.join(dialect).join("invalid.json")).unwrap();
        std::fs::write(set.join(dialect).join("invalid.sse"), stream).unwrap();
        let r = Replay::start(&set, &[]);
        let (code, v) = probe_json(
            &base(&r),
            &dir.join("out"),
            &["--dialect", dialect, "--only", "plain,invalid"],
        );
        let s = scenario(&v, "invalid");
        assert_eq!(s["verdict"], "fail", "{dialect}: {v:#}");
        assert_eq!(s["status"], 200);
        let got = rules(s);
        assert!(
            got.contains(&"probe-invalid-accepted".to_string()) && got.contains(&rule.to_string()),
            "{dialect}: {got:?}"
        );
        assert_eq!(scenario(&v, "plain")["verdict"], "pass");
        assert_eq!(code, Some(1));
    }
}

#[test]
fn an_invalid_request_answered_with_a_5xx_or_a_non_json_error_is_judged() {
    let cases = [
        ("invalid.500.json", "probe-http-status", "fail"),
        ("invalid.txt", "probe-error-not-json", "pass"),
    ];
    for (file, rule, verdict) in cases {
        let dir = scratch(&format!("probe-invalid-{file}"));
        let set = capture_set(&dir, &[], &["invalid"]);
        if file.ends_with(".json") {
            std::fs::write(
                set.join("chat").join(file),
                r#"{"error":{"message":"internal error","type":"server_error","param":null,"code":null}}"#,
            )
            .unwrap();
        } else {
            // A `curl -i` dump of a 400 whose body is plain text.
            std::fs::write(
                set.join("chat/invalid.txt"),
                "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\n\r\nbad request\n",
            )
            .unwrap();
        }
        let r = Replay::start(&set, &[]);
        let (_, v) = probe_json(&base(&r), &dir.join("out"), &["--only", "invalid"]);
        let s = scenario(&v, "invalid");
        assert!(rules(s).contains(&rule.to_string()), "{file}: {v:#}");
        assert_eq!(s["verdict"], verdict, "{file}: {v:#}");
    }
}

#[test]
fn max_completion_tokens_renames_the_chat_budget_and_every_scenario_still_passes() {
    let dir = scratch("probe-mct");
    let r = Replay::start(&fixtures().join("good"), &[]);
    let (code, v) = probe_json(&base(&r), &dir.join("out"), &["--max-completion-tokens"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert!(verdicts(&v).iter().all(|(_, x)| x == "pass"), "{v:#}");
    let har: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/length.har")).unwrap())
            .unwrap();
    let body: Value = serde_json::from_str(
        har["log"]["entries"][0]["request"]["postData"]["text"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(body["max_completion_tokens"], 5);
    assert!(body.get("max_tokens").is_none(), "{body}");
}

#[test]
fn a_refusal_of_the_probe_itself_is_an_error_that_says_why_not_unsupported_or_a_pass() {
    // (scenario, status, words the note must hold)
    let cases: &[(&str, u16, &[&str])] = &[
        ("plain", 401, &["HTTP 401", "--api-key-env"]),
        ("usage", 403, &["HTTP 403", "--api-key-env"]),
        (
            "tool",
            404,
            &["HTTP 404", "/v1/chat/completions", "URL looks wrong"],
        ),
        ("n2", 429, &["HTTP 429", "rate-limited", "--delay-ms"]),
        ("invalid", 429, &["HTTP 429", "rate-limited"]),
        ("stop", 401, &["HTTP 401"]),
        (
            "length",
            307,
            &["HTTP 307", "redirected to", "only the URL given"],
        ),
    ];
    let dir = scratch("probe-refused");
    let removed: Vec<&str> = cases.iter().map(|c| c.0).collect();
    let set = capture_set(&dir, &[], &removed);
    for (name, status, _) in cases {
        std::fs::write(
            set.join("chat").join(format!("{name}.{status}.json")),
            r#"{"error":{"message":"refused","type":"x","param":null,"code":null}}"#,
        )
        .unwrap();
    }
    // A "bad request" to an optional feature stays unsupported.
    std::fs::remove_file(set.join("chat/json.sse")).unwrap();
    std::fs::write(
        set.join("chat/json.422.json"),
        r#"{"error":{"message":"response_format is not supported","type":"x"}}"#,
    )
    .unwrap();
    let r = Replay::start(&set, &[]);
    let only = "plain,usage,length,stop,tool,n2,json,invalid";
    let (code, v) = probe_json(&base(&r), &dir.join("out"), &["--only", only]);
    for (name, status, words) in cases {
        let s = scenario(&v, name);
        assert_eq!(s["verdict"], "error", "{name}: {s}");
        assert_eq!(s["status"], *status, "{name}: {s}");
        let note = s["note"].as_str().unwrap();
        for w in *words {
            assert!(note.contains(w), "{name}: {w:?} not in {note:?}");
        }
    }
    assert_eq!(scenario(&v, "json")["verdict"], "unsupported", "{v:#}");
    assert_eq!(code, Some(1), "{v:#}");
}

/// A real HTTP server on 127.0.0.1 that echoes the secret-bearing request
/// headers it gets (`Authorization`, `api-key`, `x-api-key`, `Apikey`,
/// `X-Auth`) in a response
/// header `x-echo` and in the answer text of a Chat stream; a request
/// asking for usage gets a 401 whose JSON body echoes them instead. Each
/// connection is closed after one answer. Returns `host:port`.
fn echo_server() -> String {
    use std::io::{BufRead, BufReader, Read, Write};
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for conn in l.incoming() {
            let Ok(mut conn) = conn else { continue };
            let mut r = BufReader::new(conn.try_clone().unwrap());
            let mut echo = Vec::new();
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                if r.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                let (n, v) = line.split_once(':').unwrap_or((&line, ""));
                let (n, v) = (n.trim().to_ascii_lowercase(), v.trim().to_string());
                if n == "content-length" {
                    len = v.parse().unwrap_or(0);
                } else if ["authorization", "api-key", "x-api-key", "apikey", "x-auth"]
                    .contains(&n.as_str())
                {
                    echo.push(v);
                }
            }
            let mut body = vec![0; len];
            let _ = r.read_exact(&mut body);
            let echo = echo.join(" | ");
            let resp = if String::from_utf8_lossy(&body).contains("include_usage") {
                let b = serde_json::json!({"error": {"message": format!("bad credentials: {echo}"), "type": "auth"}}).to_string();
                format!("HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: {}\r\nx-echo: {echo}\r\nconnection: close\r\n\r\n{b}", b.len())
            } else {
                let chunk = |delta: Value, fin: Value| {
                    let c = serde_json::json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1_700_000_000, "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": fin}]});
                    format!("data: {c}\n\n")
                };
                format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nx-echo: {echo}\r\nconnection: close\r\n\r\n{}{}{}data: [DONE]\n\n",
                    chunk(serde_json::json!({"role": "assistant", "content": ""}), Value::Null),
                    chunk(serde_json::json!({"content": format!("you sent {echo}")}), Value::Null),
                    chunk(serde_json::json!({}), serde_json::json!("stop")),
                )
            };
            let _ = conn.write_all(resp.as_bytes());
        }
    });
    addr
}

#[test]
fn secrets_of_h_headers_and_the_key_are_masked_where_the_server_echoes_them() {
    let dir = scratch("probe-echo");
    let addr = echo_server();
    let url = format!("http://{addr}/v1");
    let runs: [(&str, &[&str], &[&str]); 2] = [
        (
            "h",
            &[
                "-H",
                "Authorization: Bearer trialhdr777",
                "-H",
                "api-key: azurekey555",
            ],
            &["trialhdr777", "azurekey555"],
        ),
        (
            "key",
            &["--api-key-env", "PROBE_ECHO_KEY"],
            &["echokey0123456789"],
        ),
    ];
    for (name, args, secrets) in runs {
        let out = dir.join(name);
        let o = Command::new(cargo_bin("sselint"))
            .args(["probe", &url, "--model", "m", "--only", "plain,usage"])
            .args(["--format", "json", "-o"])
            .arg(&out)
            .args(args)
            .env("PROBE_ECHO_KEY", "echokey0123456789")
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
        for bytes in [&o.stdout, &o.stderr] {
            let text = String::from_utf8_lossy(bytes);
            for s in secrets {
                assert!(!text.contains(s), "{name}: {s} in {text}");
            }
        }
        let plain = scenario(&v, "plain");
        assert_eq!(plain["verdict"], "pass", "{name}: {v:#}");
        // Masking kept the HAR whole: no false cut.
        assert!(
            !rules(plain).contains(&"capture-truncated".to_string()),
            "{name}: {plain}"
        );
        assert_eq!(scenario(&v, "usage")["verdict"], "error", "{name}: {v:#}");
        for har in ["plain.har", "usage.har"] {
            let text = std::fs::read_to_string(out.join(har)).unwrap();
            for s in secrets {
                assert!(!text.contains(s), "{name} {har}: {s} in {text}");
            }
            let h: Value = serde_json::from_str(&text).unwrap();
            let resp = &h["log"]["entries"][0]["response"];
            let echo = resp["headers"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["name"].as_str().unwrap().eq_ignore_ascii_case("x-echo"))
                .unwrap_or_else(|| panic!("{name} {har}: no x-echo in {resp}"));
            assert!(
                echo["value"].as_str().unwrap().contains("[REDACTED]"),
                "{name} {har}: {echo}"
            );
            let body = resp["content"]["text"].as_str().unwrap();
            assert!(body.contains("[REDACTED]"), "{name} {har}: {body}");
            assert_eq!(
                resp["content"]["size"].as_u64().unwrap() as usize,
                body.len(),
                "{name} {har}"
            );
        }
    }
}

#[test]
fn the_invalid_scenario_messages_say_what_came_back() {
    // (curl -i dump answering `invalid`, words the message must hold,
    // words it must not)
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\n\r\noops\n",
            "probe-error-not-json",
            "HTTP 500",
            "as it should",
        ),
        // An empty body: said so, no dangling `: ` (found by a trial).
        (
            "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\nContent-Length: 0\r\n\r\n",
            "probe-error-not-json",
            "its body is empty",
            "not JSON: ",
        ),
        (
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{\"ok\": true}\n",
            "probe-invalid-accepted",
            "application/json",
            "with a stream",
        ),
        (
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html>hi</html>\n",
            "probe-invalid-accepted",
            "text/html",
            "with a stream",
        ),
    ];
    for (i, (dump, rule, has, not)) in cases.iter().enumerate() {
        let dir = scratch(&format!("probe-invalid-msg-{i}"));
        let set = capture_set(&dir, &[], &["invalid"]);
        std::fs::write(set.join("chat/invalid.txt"), dump).unwrap();
        let r = Replay::start(&set, &[]);
        let (_, v) = probe_json(&base(&r), &dir.join("out"), &["--only", "invalid"]);
        let s = scenario(&v, "invalid");
        let f = s["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["rule"] == *rule)
            .unwrap_or_else(|| panic!("{i}: no {rule} in {v:#}"));
        let m = f["message"].as_str().unwrap();
        assert!(m.contains(has) && !m.contains(not), "{i}: {m}");
    }
}

#[test]
fn a_bad_report_target_or_a_url_without_scheme_is_a_usage_error_before_any_request() {
    let dir = scratch("probe-usage-early");
    let r = Replay::start(&fixtures().join("good"), &[]);
    let cases: [(&str, Vec<&str>, &str); 3] = [
        (
            "stdout",
            vec!["--report", "json=-"],
            "standard output carries the main report",
        ),
        (
            "missing-dir",
            vec!["--report", "json=/nonexistent/dir/x.json"],
            "/nonexistent/dir",
        ),
        ("no-scheme", vec![], "http://"),
    ];
    for (name, extra, says) in cases {
        let url = if name == "no-scheme" {
            format!("{}/v1", r.addr)
        } else {
            base(&r)
        };
        let out = dir.join(name);
        let mut args = vec!["--only", "plain"];
        args.extend(extra);
        let o = probe(&url, &out, &args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(says), "{name}: {err}");
        assert!(o.stdout.is_empty(), "{name}");
        // Refused before the first scenario: no capture directory.
        assert!(!out.exists(), "{name}");
    }
}

#[test]
fn a_stream_cut_short_is_blamed_once_not_on_the_features_it_never_reached() {
    let dir = scratch("probe-cut-follow-on");
    let r = Replay::start(&fixtures().join("good"), &["--cut-after-bytes", "400"]);
    let (code, v) = probe_json(&base(&r), &dir.join("out"), &["--only", "tool,n2,json"]);
    for name in ["tool", "n2", "json"] {
        let s = scenario(&v, name);
        assert_eq!(s["verdict"], "fail", "{name}: {v:#}");
        let got = rules(s);
        assert!(
            got.iter()
                .any(|r| r.contains("cut-off") || r == "capture-truncated"),
            "{name}: the cut is named: {got:?}"
        );
        for follow_on in [
            "probe-n-ignored",
            "probe-no-tool-call",
            "probe-json-invalid",
        ] {
            assert!(!got.iter().any(|r| r == follow_on), "{name}: {got:?}");
        }
    }
    assert_eq!(code, Some(1));
}

#[test]
fn small_things_the_trial_tripped_on() {
    let dir = scratch("probe-small");
    let r = Replay::start(&fixtures().join("good"), &[]);
    // --only with spaces after the commas.
    let (code, v) = probe_json(&base(&r), &dir.join("a"), &["--only", "plain, usage"]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(verdicts(&v).len(), 2);
    // -o naming a file.
    let file = dir.join("afile");
    std::fs::write(&file, "x").unwrap();
    let o = probe(&base(&r), &file, &["--only", "plain"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("is a file, not a directory"), "{err}");
    // An empty key variable is said to be empty.
    let o = Command::new(cargo_bin("sselint"))
        .args([
            "probe",
            &base(&r),
            "--model",
            "m",
            "--api-key-env",
            "PROBE_EMPTY_KEY",
        ])
        .arg("-o")
        .arg(dir.join("b"))
        .env("PROBE_EMPTY_KEY", "")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("is empty"), "{err}");
    // --fail-on info: the card shows the info finding that failed it.
    let o = probe(
        &base(&r),
        &dir.join("c"),
        &["--only", "reasoning", "--fail-on", "info"],
    );
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("info[vendor-extension]"), "{out}");
    assert!(!out.ends_with("\n\n"), "no blank line at the end: {out:?}");
}

#[test]
fn disconnect_blames_the_status_not_the_hang_up_when_the_first_request_is_refused() {
    // A server that answers `long` (the request disconnect hangs up on)
    // and `plain` (its follow-up) with a 500, as LiteLLM 1.106.12's mock
    // does every Responses request: nothing streamed, so no hang-up was
    // tested, and the follow-up's 500 is not the hang-up's doing.
    let dir = scratch("probe-disconnect-refused");
    let set = capture_set(&dir, &[], &["long", "plain"]);
    let err =
        r#"{"error":{"message":"internal error","type":"server_error","param":null,"code":null}}"#;
    for f in ["long.500.json", "plain.500.json"] {
        std::fs::write(set.join("chat").join(f), err).unwrap();
    }
    let r = Replay::start(&set, &[]);
    let (code, v) = probe_json(&base(&r), &dir.join("out"), &["--only", "disconnect"]);
    let s = scenario(&v, "disconnect");
    assert_eq!(s["verdict"], "fail", "{v:#}");
    assert_eq!(s["status"], 500, "{v:#}");
    assert_eq!(rules(s), ["probe-http-status"], "{v:#}");
    let msg = s["findings"][0]["message"].as_str().unwrap();
    assert!(
        msg.contains("HTTP 500") && msg.contains("internal error"),
        "{msg}"
    );
    assert!(!msg.contains("hung up"), "{msg}");
    assert!(dir.join("out/disconnect-dropped.har").exists());
    assert_eq!(code, Some(1));
}

/// Found by a fresh-user trial: a password in the URL went out as Basic
/// auth, and a server echoing the Authorization header showed its base64
/// on the terminal and in the HAR.
#[test]
fn a_url_password_echoed_as_basic_auth_is_masked() {
    use std::io::{BufRead as _, Write as _};
    let dir = scratch("probe-basic-echo");
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for conn in l.incoming().flatten() {
            let mut r = std::io::BufReader::new(conn);
            let mut auth = String::new();
            loop {
                let mut line = String::new();
                if r.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if line.to_ascii_lowercase().starts_with("authorization:") {
                    auth = line[14..].trim().to_string();
                }
            }
            let body = format!("{{\"error\":{{\"message\":\"nope, your key was {auth}\"}}}}");
            let mut c = r.into_inner();
            let _ = write!(
                c,
                "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    let url = format!("http://user:URLPASS1@{addr}/v1");
    let o = probe(
        &url,
        &dir.join("out"),
        &["--only", "plain", "--format", "json"],
    );
    let basic = "dXNlcjpVUkxQQVNTMQ"; // base64("user:URLPASS1"), unpadded
    let mut texts = vec![
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    ];
    for e in std::fs::read_dir(dir.join("out")).unwrap() {
        texts.push(std::fs::read_to_string(e.unwrap().path()).unwrap());
    }
    assert!(texts[0].contains("nope, your key was"), "{}", texts[0]);
    for t in &texts {
        assert!(!t.contains(basic) && !t.contains("URLPASS1"), "{t}");
    }
}

/// A real HTTP server on 127.0.0.1 that answers each request with what
/// `answer` makes of its head (request line and header lines, CRLF-joined)
/// and body: a whole HTTP/1.1 response, sent before the connection is
/// closed. Returns `host:port`.
fn answer_server(answer: impl Fn(&str, &str) -> String + Send + 'static) -> String {
    use std::io::{BufRead as _, Read as _, Write as _};
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for conn in l.incoming().flatten() {
            let mut r = std::io::BufReader::new(conn);
            let mut head = Vec::new();
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                if r.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                let line = line.trim_end().to_string();
                if let Some((n, v)) = line.split_once(':') {
                    if n.eq_ignore_ascii_case("content-length") {
                        len = v.trim().parse().unwrap_or(0);
                    }
                }
                head.push(line);
            }
            let mut body = vec![0; len];
            let _ = r.read_exact(&mut body);
            let resp = answer(&head.join("\r\n"), &String::from_utf8_lossy(&body));
            let _ = r.into_inner().write_all(resp.as_bytes());
        }
    });
    addr
}

/// A Chat stream whose answer text is `text`, as an HTTP/1.1 200 response
/// with `extra` header lines (each ending in CRLF).
fn chat_stream(text: &str, extra: &str) -> String {
    let chunk = |delta: Value, fin: Value| {
        let c = serde_json::json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1_700_000_000, "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": fin}]});
        format!("data: {c}\n\n")
    };
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n{extra}connection: close\r\n\r\n{}{}{}data: [DONE]\n\n",
        chunk(serde_json::json!({"role": "assistant", "content": ""}), Value::Null),
        chunk(serde_json::json!({"content": text}), Value::Null),
        chunk(serde_json::json!({}), serde_json::json!("stop")),
    )
}

/// Every report format of `probe URL --only S` with `args`, and the
/// captures it saved: stdout and stderr of each, then each file's text.
fn every_output(
    url: &str,
    out: &Path,
    only: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> Vec<String> {
    let mut texts = Vec::new();
    for format in ["human", "json", "sarif", "junit", "github"] {
        let dir = out.join(format);
        let o = Command::new(cargo_bin("sselint"))
            .args(["probe", url, "--model", "m", "--only", only])
            .args(["--format", format, "--timeout", "10", "-o"])
            .arg(&dir)
            .args(args)
            .envs(env.iter().copied())
            .output()
            .unwrap();
        texts.push(String::from_utf8_lossy(&o.stdout).into_owned());
        texts.push(String::from_utf8_lossy(&o.stderr).into_owned());
        for e in std::fs::read_dir(&dir).unwrap() {
            texts.push(std::fs::read_to_string(e.unwrap().path()).unwrap());
        }
    }
    texts
}

/// Found by a fresh-user trial: a long error message echoing the request
/// headers was cut (its start, " … ", its end) and masked after, so a key
/// cut in two no longer matched and its end was shown in every format.
/// Secrets are masked first, then the text is cut.
#[test]
fn a_secret_cut_by_the_shortening_of_an_error_message_is_not_shown() {
    let dir = scratch("probe-cut-secret");
    let addr = answer_server(|head, _| {
        let pad: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("x-pad: "))
            .and_then(|p| p.trim().parse().ok())
            .unwrap_or(14);
        let echoed: Vec<&str> = head
            .lines()
            .filter(|l| {
                let l = l.to_ascii_lowercase();
                l.starts_with("authorization:") || l.starts_with("cookie:")
            })
            .collect();
        let msg = format!(
            "{}{}{}",
            "x".repeat(300),
            echoed.join(" | "),
            " p".repeat(pad)
        );
        let b = serde_json::json!({"error": {"message": msg}}).to_string();
        format!(
            "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{b}",
            b.len()
        )
    });
    let url = format!("http://{addr}/v1");
    let runs: [(&str, &[&str], &[&str]); 2] = [
        // The cut keeps "k-SECRETKEY123456 p p …".
        (
            "key",
            &["--api-key-env", "PROBE_CUT_KEY", "-H", "x-pad: 14"],
            &["SECRETKEY", "123456"],
        ),
        // The cut keeps "ECRET44 p p …".
        (
            "cookie",
            &["-H", "Cookie: session=CKSECRET44", "-H", "x-pad: 19"],
            &["RET44", "CKSECRET"],
        ),
    ];
    for (name, args, parts) in runs {
        let texts = every_output(
            &url,
            &dir.join(name),
            "plain,stop",
            args,
            &[("PROBE_CUT_KEY", "sk-SECRETKEY123456")],
        );
        assert!(
            texts
                .iter()
                .any(|t| t.contains("xxxx") && t.contains(" … ")),
            "{name}: the message is shown, cut: {texts:#?}"
        );
        for t in &texts {
            for p in parts {
                assert!(!t.contains(p), "{name}: {p} in {t}");
            }
        }
    }
}

/// Found by a fresh-user trial: a key in the URL's query was masked in
/// the URL shown, but a server echoing the request line saved it verbatim
/// in the HAR's body, and `sselint check` of that HAR printed it; so did
/// a `Location` echoing the URL. What the probe treats as a secret is
/// masked wherever it appears.
#[test]
fn a_secret_of_the_url_echoed_by_the_server_is_masked_in_captures_and_check() {
    let dir = scratch("probe-url-echo");
    let addr = answer_server(|head, body| {
        let line = head.lines().next().unwrap_or("").to_string();
        let target = line.split(' ').nth(1).unwrap_or("/").to_string();
        if body.contains("include_usage") {
            format!(
                "HTTP/1.1 307 Temporary Redirect\r\nlocation: https://alice:PWSECRET55@example.invalid{target}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            )
        } else {
            chat_stream(
                &format!("you sent {line}"),
                &format!("x-echo: {target}\r\n"),
            )
        }
    });
    let url = format!(
        "http://alice:PWSECRET55@{addr}/v1?api_key=QUERYSECRET01&sig=SIGSECRET77abc&keep=visible"
    );
    let out = dir.join("out");
    let texts = every_output(&url, &out, "plain,usage", &[], &[]);
    let secrets = ["QUERYSECRET01", "SIGSECRET77", "PWSECRET55"];
    for t in &texts {
        for s in secrets {
            assert!(!t.contains(s), "{s} in {t}");
        }
    }
    let har = std::fs::read_to_string(out.join("json/plain.har")).unwrap();
    assert!(har.contains("keep=visible"), "{har}");
    for f in ["plain.har", "usage.har"] {
        let o = Command::new(cargo_bin("sselint"))
            .arg("check")
            .arg(out.join("json").join(f))
            .args(["--format", "json"])
            .output()
            .unwrap();
        for bytes in [&o.stdout, &o.stderr] {
            let t = String::from_utf8_lossy(bytes);
            for s in secrets {
                assert!(!t.contains(s), "check {f}: {s} in {t}");
            }
        }
    }
}

/// Found by a fresh-user trial: with the key `data` (or `content`,
/// `chat`, `assistant`), masking the key wherever the server echoed it
/// turned the body's `data:` lines into `[REDACTED]:`, and the capture
/// was no longer SSE. A value under 8 bytes is masked in the request
/// headers only, and the card says so; a long one is masked in the body
/// too.
#[test]
fn masking_a_short_key_leaves_the_stream_as_it_came() {
    let dir = scratch("probe-short-key");
    let addr = echo_server();
    let url = format!("http://{addr}/v1");
    for key in ["data", "content", "chat"] {
        let out = dir.join(key);
        let o = Command::new(cargo_bin("sselint"))
            .args(["probe", &url, "--model", "m", "--only", "plain"])
            .args(["--api-key-env", "PROBE_SHORT_KEY", "-o"])
            .arg(&out)
            .env("PROBE_SHORT_KEY", key)
            .output()
            .unwrap();
        let card = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(0), "{key}: {card}");
        assert_eq!(
            card.matches("shorter than 8 bytes").count(),
            1,
            "{key}: {card}"
        );
        let har: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("plain.har")).unwrap()).unwrap();
        let entry = &har["log"]["entries"][0];
        let body = entry["response"]["content"]["text"].as_str().unwrap();
        assert!(body.starts_with("data: {"), "{key}: {body}");
        assert!(!body.contains("[REDACTED]"), "{key}: {body}");
        let auth = entry["request"]["headers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["name"] == "Authorization")
            .unwrap();
        assert_eq!(auth["value"], "[REDACTED]", "{key}");
    }
    // A key of 8 bytes or more that is also the stream's own text is left
    // there, and the card says so: masking `"role":"assistant"` would
    // make a finding.
    let out = dir.join("assistant");
    let o = Command::new(cargo_bin("sselint"))
        .args(["probe", &url, "--model", "m", "--only", "plain"])
        .args(["--api-key-env", "PROBE_SHORT_KEY", "-o"])
        .arg(&out)
        .env("PROBE_SHORT_KEY", "assistant")
        .output()
        .unwrap();
    let card = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{card}");
    assert!(!card.contains("shorter than"), "{card}");
    assert!(
        card.contains("note: plain: the API key came back as the stream's own text"),
        "{card}"
    );
    let har: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("plain.har")).unwrap()).unwrap();
    let body = har["log"]["entries"][0]["response"]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(body.contains(r#""role":"assistant""#), "{body}");
    // A long key is masked in the body still, and the card says nothing.
    let out = dir.join("long");
    let o = Command::new(cargo_bin("sselint"))
        .args(["probe", &url, "--model", "m", "--only", "plain"])
        .args(["--api-key-env", "PROBE_SHORT_KEY", "-o"])
        .arg(&out)
        .env("PROBE_SHORT_KEY", "longkey-0123456789")
        .output()
        .unwrap();
    let card = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{card}");
    assert!(!card.contains("shorter than"), "{card}");
    let har = std::fs::read_to_string(out.join("plain.har")).unwrap();
    assert!(!har.contains("longkey-0123456789"), "{har}");
    assert!(har.contains("you sent Bearer [REDACTED]"), "{har}");
}

/// Found by a fresh-user trial: `Apikey` (Supabase, Kong) and `X-Auth`
/// headers were not taken for secrets: their values were saved and, when
/// echoed, shown.
#[test]
fn headers_named_like_a_key_or_auth_are_secret() {
    let dir = scratch("probe-header-names");
    let addr = echo_server();
    let url = format!("http://{addr}/v1");
    let out = dir.join("out");
    let texts = every_output(
        &url,
        &out,
        "plain,usage",
        &[
            "-H",
            "Apikey: APIKEYVALUE888",
            "-H",
            "X-Auth: XAUTHVALUE999",
            "-H",
            "X-Session: SHORT1",
        ],
        &[],
    );
    // X-Session's value is under 8 bytes: not echoed here, as it would
    // not be searched for in the answer.
    for t in &texts {
        for s in ["APIKEYVALUE888", "XAUTHVALUE999", "SHORT1"] {
            assert!(!t.contains(s), "{s} in {t}");
        }
    }
    let har: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("json/plain.har")).unwrap())
            .unwrap();
    for name in ["Apikey", "X-Auth", "X-Session"] {
        let h = har["log"]["entries"][0]["request"]["headers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["name"] == name)
            .unwrap_or_else(|| panic!("{name} not in {har}"));
        assert_eq!(h["value"], "[REDACTED]", "{name}");
    }
}

/// Found by a fresh-user trial: `--timeout 1e20` panicked (a Duration
/// from a float out of range), a URL fragment was sent as part of the
/// path, and bad -H names, a URL with a space, `--only ''` and an ftp://
/// URL were found out only by a request (or not at all). Each is a usage
/// error, exit 2, before anything is sent, naming the problem.
#[test]
fn bad_options_are_usage_errors_before_any_request() {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    let url = format!("http://{addr}/v1");
    let dir = scratch("probe-bad-options");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![url.clone(), "--timeout".into(), "1e20".into()],
            "--timeout",
        ),
        (
            vec![
                url.clone(),
                "--timeout".into(),
                "18446744073709551616".into(),
            ],
            "--timeout",
        ),
        (vec![format!("{url}#frag")], "fragment"),
        (
            vec![url.clone(), "-H".into(), "Bad Name: v".into()],
            "Bad Name",
        ),
        (vec![url.clone(), "-H".into(), "X-Ü: v".into()], "X-Ü"),
        (
            vec![url.clone(), "-H".into(), ": EMPTYNAME1".into()],
            "name is empty",
        ),
        (vec![format!("{url} ")], "URL"),
        (vec![format!("http://{addr}/v 1")], "URL"),
        (vec![format!("http://{addr}/v<1")], "not a valid URL"),
        (vec!["http://127.0.0.1:99999/v1".into()], "port"),
        (vec![url.clone(), "--only".into(), "".into()], "--only"),
        (vec![url.clone(), "--only".into(), ",".into()], "--only"),
        (vec![url.clone(), "--skip".into(), "".into()], "--skip"),
        (
            vec!["ftp://127.0.0.1:1/v1".into()],
            "only http:// and https://",
        ),
    ];
    for (i, (args, says)) in cases.iter().enumerate() {
        let o = Command::new(cargo_bin("sselint"))
            .arg("probe")
            .args(args)
            .args(["--model", "m", "-o"])
            .arg(dir.join(i.to_string()))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(
            !err.contains("panicked") && !err.contains("EMPTYNAME1") && !err.contains("http://ftp"),
            "{args:?}: {err}"
        );
    }
    // Nothing was sent.
    l.set_nonblocking(true).unwrap();
    assert!(l.accept().is_err(), "a request reached the server");
}

/// Found by a fresh-user trial: the answer text quoted in a finding had
/// its control characters escaped twice (`One,\\ttwo`) in the card and
/// four times in JSON.
#[test]
fn an_answer_quoted_in_a_finding_is_escaped_once() {
    let dir = scratch("probe-escape-once");
    let addr = answer_server(|_, _| chat_stream("One,\ttwo\r\n\"three\" END more", ""));
    let url = format!("http://{addr}/v1");
    let o = probe(&url, &dir.join("h"), &["--only", "stop"]);
    let card = String::from_utf8_lossy(&o.stdout);
    assert!(card.contains("probe-stop-ignored"), "{card}");
    assert!(card.contains(r#""One,\ttwo\r\n\"three\" END"#), "{card}");
    assert!(!card.contains(r"\\t"), "{card}");
    let (_, v) = probe_json(&url, &dir.join("j"), &["--only", "stop"]);
    let msg = scenario(&v, "stop")["findings"][0]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(msg.contains(r#""One,\ttwo\r\n\"three\" END"#), "{msg}");
}

/// Found by a fresh-user trial: a key with a stray newline (read from a
/// file) or a -H value with a control character failed every scenario
/// with "failed to parse header value" and "could not be reached", exit 1.
/// It is a usage error, before anything is sent, and the value is not
/// shown.
#[test]
fn a_header_http_cannot_carry_is_a_usage_error() {
    let o = Command::new(cargo_bin("sselint"))
        .args(["probe", "http://127.0.0.1:9/v1", "--model", "m"])
        .args(["--api-key-env", "PROBE_NL_KEY"])
        .env("PROBE_NL_KEY", "sk-NLSECRET123\nX-Injected: 1")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("PROBE_NL_KEY") && !err.contains("NLSECRET"),
        "{err}"
    );
    let o = Command::new(cargo_bin("sselint"))
        .args(["probe", "http://127.0.0.1:9/v1", "--model", "m", "-H"])
        .arg("api-key: bad\u{1}CTRLSECRET")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("api-key") && !err.contains("CTRLSECRET"),
        "{err}"
    );
    // A tab too (found by a later trial: a value holding a tab, echoed in
    // the stream's content as `\t`, was masked only after the tab).
    let o = Command::new(cargo_bin("sselint"))
        .args(["probe", "http://127.0.0.1:9/v1", "--model", "m", "-H"])
        .arg("X-Auth: abcdefghij\tTABSECRET12")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("X-Auth") && !err.contains("TABSECRET") && !err.contains("abcdefghij"),
        "{err}"
    );
}

/// Found by a fresh-user trial: a first request that timed out (a model
/// loading cold) halted the whole run as "could not be reached". Only
/// nothing answering at all (refused, no such host, TLS) halts; a time-out
/// is that scenario's error and the next ones are tried.
#[test]
fn a_first_scenario_that_times_out_does_not_halt_the_run() {
    let dir = scratch("probe-slow-first");
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    // Accepts and never answers; the connections stay open until exit.
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for c in l.incoming().flatten() {
            held.push(c);
        }
    });
    let (code, v) = probe_json(
        &format!("http://{addr}/v1"),
        &dir.join("out"),
        &["--only", "plain,usage", "--timeout", "1"],
    );
    let names: Vec<String> = verdicts(&v).into_iter().map(|x| x.0).collect();
    assert_eq!(names, ["plain", "usage"], "{v:#}");
    assert!(v["halted"].is_null(), "{v:#}");
    assert_eq!(scenario(&v, "plain")["verdict"], "error", "{v:#}");
    assert_eq!(code, Some(1));
}

/// Found by a fresh-user trial: the card's TTFT was the first body byte,
/// so a keep-alive comment made a slow first token look instant. TTFT is
/// the first content (as `diff` and the HTML page say); the first byte is
/// `first_byte_ms`.
#[test]
fn ttft_is_the_first_content_not_the_first_byte() {
    use std::io::{BufRead as _, Write as _};
    let dir = scratch("probe-ttft");
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for conn in l.incoming().flatten() {
            let mut r = std::io::BufReader::new(conn);
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                if r.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0u8; len];
            let _ = std::io::Read::read_exact(&mut r, &mut body);
            let mut c = r.into_inner();
            let chunk = |c: &mut std::net::TcpStream, s: &str| {
                let _ = write!(c, "{:x}\r\n{s}\r\n", s.len());
                let _ = c.flush();
            };
            let _ = write!(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
            chunk(&mut c, ": ping\n\n");
            std::thread::sleep(std::time::Duration::from_millis(600));
            let head = r#"{"id":"c1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":"#;
            chunk(&mut c, &format!("data: {head}{{\"role\":\"assistant\",\"content\":\"Hi\"}},\"finish_reason\":null}}]}}\n\n"));
            chunk(
                &mut c,
                &format!("data: {head}{{}},\"finish_reason\":\"stop\"}}]}}\n\ndata: [DONE]\n\n"),
            );
            let _ = write!(c, "0\r\n\r\n");
        }
    });
    let (_, v) = probe_json(
        &format!("http://{addr}/v1"),
        &dir.join("out"),
        &["--only", "plain"],
    );
    let s = scenario(&v, "plain");
    let ttft = s["ttft_ms"].as_f64().unwrap_or_else(|| panic!("{s}"));
    let first_byte = s["first_byte_ms"].as_f64().unwrap_or_else(|| panic!("{s}"));
    assert!(ttft >= 550.0, "{s}");
    assert!(first_byte < ttft, "{s}");
}

/// Found by a fresh-user trial: Ctrl-C while B streamed compared B's cut
/// capture with A's whole one (false differences: ending, [DONE],
/// capture-truncated), and called A's finished card interrupted.
#[cfg(unix)]
#[test]
fn ctrl_c_in_a_comparison_compares_nothing_cut_and_leaves_a_finished_card_alone() {
    let dir = scratch("probe-compare-sigint");
    let fast = Replay::start(&fixtures().join("good"), &[]);
    let slow = Replay::start(&fixtures().join("good"), &["--delay-ms", "300"]);
    let out = dir.join("out");
    let child = Command::new(cargo_bin("sselint"))
        .args(["probe", &base(&fast), &base(&slow), "--model", "m"])
        .args(["--only", "plain,long", "--format", "json", "-o"])
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !out.join("b/plain.har").exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // B's long (42 events at 300 ms) is streaming now.
    std::thread::sleep(std::time::Duration::from_millis(900));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let o = child.wait_with_output().unwrap();
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
    assert_eq!(o.status.code(), Some(130), "{v:#}");
    assert_eq!(v["interrupted"], false, "A finished: {v:#}");
    assert_eq!(v["compared_with"]["interrupted"], true, "{v:#}");
    let diffs = v["differences"].as_array().unwrap();
    let long = diffs.iter().find(|d| d["name"] == "long").unwrap();
    assert!(long["differences"].as_array().unwrap().is_empty(), "{long}");
    assert!(
        long["note"].as_str().unwrap_or("").contains("Ctrl-C"),
        "{long}"
    );
}

/// Found by a fresh-user trial: a Responses or Messages server that closed
/// right after the 200 head got `probe-no-tool-call` (and
/// `probe-json-invalid ""`) on top of the missing stream; a stream with no
/// event is the one fault, as a cut Chat stream already was.
#[test]
fn an_empty_stream_is_blamed_alone_in_every_dialect() {
    let dir = scratch("probe-empty-dialects");
    for d in ["responses", "messages"] {
        std::fs::create_dir_all(dir.join("set").join(d)).unwrap();
        std::fs::write(dir.join("set").join(d).join("tool.sse"), b"").unwrap();
    }
    let r = Replay::start(&dir.join("set"), &[]);
    for d in ["responses", "messages"] {
        let (code, v) = probe_json(
            &base(&r),
            &dir.join(format!("out-{d}")),
            &["--dialect", d, "--only", "tool"],
        );
        let s = scenario(&v, "tool");
        assert_eq!(s["verdict"], "fail", "{d}: {s}");
        let rs = rules(s);
        assert!(!rs.is_empty(), "{d}: {s}");
        assert!(rs.iter().all(|r| !r.starts_with("probe-")), "{d}: {rs:?}");
        assert_eq!(code, Some(1));
    }
}

/// Found by a fresh-user trial: `-o out --report sarif=out/probe.sarif`
/// (the natural layout for a CI artifact) was refused because `out` did
/// not exist yet, though the probe makes it.
#[test]
fn a_report_inside_the_capture_directory_is_accepted() {
    let dir = scratch("probe-report-inside");
    let r = Replay::start(&fixtures().join("good"), &[]);
    let out = dir.join("out");
    let sarif = out.join("probe.sarif");
    let o = probe(
        &base(&r),
        &out,
        &[
            "--only",
            "plain",
            "--report",
            &format!("sarif={}", sarif.display()),
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert_eq!(v["version"], "2.1.0");
}

/// Found by a fresh-user trial: with `--fail-on info` a scenario failed on
/// an info finding and `--format github` printed no annotation for it.
#[test]
fn github_annotates_the_infos_that_failed_a_scenario() {
    let dir = scratch("probe-github-info");
    let r = Replay::start(&fixtures().join("good"), &[]);
    let o = probe(
        &base(&r),
        &dir.join("out"),
        &[
            "--reasoning",
            "--only",
            "reasoning",
            "--fail-on",
            "info",
            "--format",
            "github",
        ],
    );
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(text.contains("::notice "), "{text}");
}

/// Found by a fresh-user trial: `--model ''` was sent as is.
#[test]
fn an_empty_model_is_a_usage_error() {
    let o = Command::new(cargo_bin("sselint"))
        .args(["probe", "http://127.0.0.1:9/v1", "--model", ""])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--model"));
}

/// A server that answers every request with `head` (status line and
/// headers, without the blank line) and `body`, then closes.
fn fixed_server(head: String, body: Vec<u8>) -> String {
    use std::io::{BufRead as _, Write as _};
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for conn in l.incoming().flatten() {
            let mut r = std::io::BufReader::new(conn);
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                if r.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap_or(0);
                }
            }
            let mut req = vec![0u8; len];
            let _ = std::io::Read::read_exact(&mut r, &mut req);
            let mut c = r.into_inner();
            let _ = write!(c, "{head}\r\nConnection: close\r\n\r\n");
            let _ = c.write_all(&body);
        }
    });
    addr
}

/// Found by a fresh-user trial: the size limit counted the bytes on the
/// wire, so a gzip body (never asked for) of some KB decoding to many MB
/// was saved and linted whole.
#[test]
fn a_compressed_stream_is_bounded_by_its_decoded_size() {
    use std::io::Write as _;
    let dir = scratch("probe-gzip-bomb");
    let head = r#"{"id":"c1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":"#;
    let mut sse = format!(
        "data: {head}{{\"role\":\"assistant\",\"content\":\"\"}},\"finish_reason\":null}}]}}\n\n"
    );
    let word = format!("data: {head}{{\"content\":\"word \"}},\"finish_reason\":null}}]}}\n\n");
    while sse.len() < 9 << 20 {
        sse.push_str(&word);
    }
    sse.push_str(&format!(
        "data: {head}{{}},\"finish_reason\":\"stop\"}}]}}\n\ndata: [DONE]\n\n"
    ));
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(sse.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    assert!(gz.len() < 1 << 20, "{} bytes on the wire", gz.len());
    let addr = fixed_server(
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Encoding: gzip\r\nContent-Length: {}",
            gz.len()
        ),
        gz,
    );
    let out = dir.join("out");
    let (code, v) = probe_json(&format!("http://{addr}/v1"), &out, &["--only", "plain"]);
    let s = scenario(&v, "plain");
    assert_eq!(s["verdict"], "fail", "{s}");
    assert!(rules(s).contains(&"probe-too-long".to_string()), "{s}");
    assert!(
        s["findings"].to_string().contains("decoded from gzip"),
        "{s}"
    );
    assert_eq!(code, Some(1));
    // What is saved is bounded too: the decoded body, cut at 4 MiB.
    let text = std::fs::read_to_string(out.join("plain.har")).unwrap();
    assert!(text.len() < 6 << 20, "plain.har is {} bytes", text.len());
    let har: Value = serde_json::from_str(&text).unwrap();
    let e = &har["log"]["entries"][0];
    assert_eq!(e["_sselint"]["stopped"], "size-limit", "{}", e["_sselint"]);
    let body = e["response"]["content"]["text"].as_str().unwrap();
    assert!(
        body.len() <= 4 << 20 && body.starts_with("data: "),
        "{}",
        body.len()
    );
    // `check` of it reads the cut, not a decompression of many MB.
    let check = Command::new(cargo_bin("sselint"))
        .arg("check")
        .arg(out.join("plain.har"))
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&check.stdout);
    assert!(report.contains("size limit"), "{report}");
}

/// A HAR as the probe writes it, of `body`, stopped as `stopped`.
fn probe_har(body: &str, stopped: &str) -> String {
    serde_json::json!({"log": {"version": "1.2", "creator": {"name": "sselint", "version": "0"},
    "entries": [{
        "startedDateTime": "2026-01-01T00:00:00.000Z", "time": 5,
        "request": {"method": "POST", "url": "http://127.0.0.1:1/v1/x", "httpVersion": "HTTP/1.1",
            "headers": [], "cookies": [], "queryString": [], "headersSize": -1, "bodySize": 0},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
            "headers": [{"name": "content-type", "value": "text/event-stream"}], "cookies": [],
            "content": {"size": body.len(), "mimeType": "text/event-stream", "text": body},
            "redirectURL": "", "headersSize": -1, "bodySize": body.len()},
        "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 4},
        "_sselint": {"reads": [{"offset": 0, "ms": 1}], "stopped": stopped}
    }]}})
    .to_string()
}

/// Found by a fresh-user trial: `disconnect` hangs up after the first
/// read, which may already hold the whole stream; `check` of that capture
/// said the recorder hung up "before the stream ended" and called it
/// truncated.
#[test]
fn a_hang_up_after_the_stream_ended_is_no_truncation() {
    let dir = scratch("probe-hung-up-complete");
    for d in ["chat", "responses", "messages"] {
        let full =
            std::fs::read_to_string(fixtures().join("good").join(d).join("plain.sse")).unwrap();
        // The whole stream, and the stream without its last event.
        let trimmed = full.trim_end();
        let cut = &trimmed[..trimmed.rfind("\n\n").unwrap() + 2];
        for (name, body) in [("complete", full.as_str()), ("cut", cut)] {
            let path = dir.join(format!("{d}-{name}.har"));
            std::fs::write(&path, probe_har(body, "hung-up")).unwrap();
            let o = Command::new(cargo_bin("sselint"))
                .arg("check")
                .arg(&path)
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&o.stdout);
            if name == "complete" {
                assert_eq!(o.status.code(), Some(0), "{d}: {text}");
                assert!(!text.contains("capture-truncated"), "{d}: {text}");
                assert!(!text.contains("before the stream ended"), "{d}: {text}");
            } else {
                assert!(text.contains("capture-truncated"), "{d} cut: {text}");
                assert!(
                    text.contains("hung up on purpose before the stream ended"),
                    "{d} cut: {text}"
                );
            }
        }
    }
}

/// Found by a fresh-user trial: `--force` with another `--only` left the
/// earlier run's captures beside the new ones, mixing two runs.
#[test]
fn force_removes_the_earlier_runs_captures_and_nothing_else() {
    let dir = scratch("probe-force-clean");
    let r = Replay::start(&fixtures().join("good"), &[]);
    let out = dir.join("out");
    let o = probe(&base(&r), &out, &["--only", "usage,disconnect"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(out.join("usage.har").is_file() && out.join("disconnect-dropped.har").is_file());
    // Another dialect's capture name, and the user's own files.
    std::fs::write(out.join("thinking.har"), "{}").unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    std::fs::write(out.join("mine.har"), "mine").unwrap();
    let o = probe(&base(&r), &out, &["--only", "plain", "--force"]);
    assert_eq!(o.status.code(), Some(0));
    let mut left: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["mine.har", "notes.txt", "plain.har"]);
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine"
    );
}

/// Found by a fresh-user trial: a password in the URL goes out as
/// `Authorization: Basic …`, which the HAR's request headers left out. A
/// HAR shows each auth header sent, its value `[REDACTED]`, never the
/// value.
#[test]
fn every_auth_header_sent_is_in_the_har_masked() {
    let dir = scratch("probe-auth-headers");
    let r = Replay::start(&fixtures().join("good"), &[]);
    let plain = format!("http://{}/v1", r.addr);
    let with_password = format!("http://user:URLPASSword7@{}/v1", r.addr);
    /// Case, URL, extra arguments, the header expected, the secrets.
    type Case<'a> = (&'a str, &'a str, Vec<&'a str>, &'a str, Vec<&'a str>);
    let cases: Vec<Case> = vec![
        (
            "url-password",
            &with_password,
            vec![],
            "Authorization",
            // base64("user:URLPASSword7")
            vec!["URLPASSword7", "dXNlcjpVUkxQQVNTd29yZDc"],
        ),
        (
            "api-key",
            &plain,
            vec!["--api-key-env", "PROBE_AUTH_KEY"],
            "Authorization",
            vec!["sk-authFAKEkey0123456789"],
        ),
        (
            "messages-key",
            &plain,
            vec!["--dialect", "messages", "--api-key-env", "PROBE_AUTH_KEY"],
            "x-api-key",
            vec!["sk-authFAKEkey0123456789"],
        ),
        (
            "h-api-key",
            &plain,
            vec!["-H", "api-key: azureFAKEsecret42"],
            "api-key",
            vec!["azureFAKEsecret42"],
        ),
        (
            "h-authorization",
            &plain,
            vec!["-H", "Authorization: Bearer hFAKEtoken0123"],
            "Authorization",
            vec!["hFAKEtoken0123"],
        ),
    ];
    for (name, url, extra, header, secrets) in cases {
        let out = dir.join(name);
        let o = Command::new(cargo_bin("sselint"))
            .args(["probe", url, "--model", "m", "--only", "plain", "-o"])
            .arg(&out)
            .args(&extra)
            .env("PROBE_AUTH_KEY", "sk-authFAKEkey0123456789")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{name}: {o:?}");
        let har: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("plain.har")).unwrap()).unwrap();
        let headers = &har["log"]["entries"][0]["request"]["headers"];
        let sent: Vec<&Value> = headers
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| h["name"].as_str().unwrap().eq_ignore_ascii_case(header))
            .collect();
        assert_eq!(sent.len(), 1, "{name}: {headers}");
        assert_eq!(sent[0]["value"], "[REDACTED]", "{name}: {headers}");
        for e in std::fs::read_dir(&out).unwrap() {
            let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
            for s in &secrets {
                assert!(!text.contains(s), "{name}: {s} in {text}");
            }
        }
        for bytes in [&o.stdout, &o.stderr] {
            let text = String::from_utf8_lossy(bytes);
            for s in &secrets {
                assert!(!text.contains(s), "{name}: {s} in {text}");
            }
        }
    }
}

/// Found by a fresh-user trial: the human card of a run that saved no
/// capture said "captures in DIR", the halt line ended on an empty list
/// ("not run: "), the error after a redacted URL lost its `:`, and a
/// comparison said "HTTP -" of a side that got no response.
#[test]
fn the_human_card_says_only_what_is_true() {
    let dir = scratch("probe-card-words");
    let down = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().to_string()
    };
    let out = dir.join("down");
    let o = probe(
        &format!("http://{down}/v1?key=sk-cardFAKEkey0123456789"),
        &out,
        &["--only", "plain", "--timeout", "5"],
    );
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(!text.contains("captures in"), "{text}");
    assert!(text.contains("no capture saved"), "{text}");
    assert!(text.contains("?key=[REDACTED]: "), "{text}");
    assert!(!text.contains("sk-cardFAKEkey"), "{text}");
    assert!(
        text.lines()
            .all(|l| !l.trim_end().ends_with(':') || l.starts_with("plain")),
        "{text}"
    );
    // A saved capture is named.
    let r = Replay::start(&fixtures().join("good"), &[]);
    let o = probe(&base(&r), &dir.join("up"), &["--only", "plain"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("captures in"));
    // A comparison with a side that got no response.
    let o = probe(
        &base(&r),
        &dir.join("cmp"),
        &[
            &format!("http://{down}/v1"),
            "--only",
            "plain",
            "--timeout",
            "5",
        ],
    );
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(!text.contains("HTTP -"), "{text}");
    assert!(text.contains("no response"), "{text}");
}

/// Found by a fresh-user trial: the same --report file given twice was
/// accepted, one report silently overwriting the other.
#[test]
fn the_same_report_file_twice_is_a_usage_error_before_any_request() {
    let dir = scratch("probe-report-twice");
    let r = Replay::start(&fixtures().join("good"), &[]);
    let file = dir.join("r.out");
    let same = dir.join(".").join("r.out");
    for (a, b) in [
        (
            format!("json={}", file.display()),
            format!("sarif={}", file.display()),
        ),
        (
            format!("json={}", file.display()),
            format!("json={}", same.display()),
        ),
    ] {
        let out = dir.join("out");
        let o = probe(
            &base(&r),
            &out,
            &["--only", "plain", "--report", &a, "--report", &b],
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains("twice"), "{err}");
        assert!(!out.exists() && !file.exists());
    }
    // One format to two files is allowed (e.g. one for CI, one to keep).
    let (x, y) = (dir.join("x.json"), dir.join("y.json"));
    let o = probe(
        &base(&r),
        &dir.join("out2"),
        &[
            "--only",
            "plain",
            "--report",
            &format!("json={}", x.display()),
            "--report",
            &format!("json={}", y.display()),
        ],
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(x.is_file() && y.is_file());
}

/// Found by a fresh-user trial: `--report json=DIR/usage.har` replaced
/// the capture the run had just saved there. A report named like a
/// capture in the capture directory is a usage error before any request.
#[test]
fn a_report_that_would_replace_a_capture_is_a_usage_error() {
    let dir = scratch("probe-report-capture");
    let r = Replay::start(&fixtures().join("good"), &[]);
    let out = dir.join("r3");
    for (extra, file) in [
        (vec!["--only", "plain,usage"], "usage.har"),
        // A capture this run does not write, but an earlier run's could be.
        (vec!["--only", "plain"], "disconnect-dropped.har"),
    ] {
        let report = format!("json={}", out.join(file).display());
        let mut args = extra.clone();
        args.extend(["--report", &report]);
        let o = probe(&base(&r), &out, &args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{file}: {err}");
        assert!(err.contains("would replace the capture"), "{err}");
        assert!(!out.join("plain.har").exists(), "nothing was sent");
    }
    // With two endpoints, the captures are in DIR/a and DIR/b.
    let report = format!("sarif={}", out.join("b/plain.har").display());
    let o = Command::new(cargo_bin("sselint"))
        .args([
            "probe",
            &base(&r),
            &base(&r),
            "--model",
            "m",
            "--only",
            "plain",
        ])
        .arg("-o")
        .arg(&out)
        .args(["--report", &report])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Found by a fresh-user trial: Ctrl-C in `probe A B` before B ran
/// anything printed an empty table for B and a comparison heading with
/// nothing under it.
#[test]
fn ctrl_c_before_the_second_endpoint_ran_says_so_and_compares_nothing() {
    let dir = scratch("probe-compare-sigint-early");
    let slow = Replay::start(&fixtures().join("good"), &["--delay-ms", "300"]);
    let fast = Replay::start(&fixtures().join("good"), &[]);
    let out = dir.join("out");
    let child = Command::new(cargo_bin("sselint"))
        .args(["probe", &base(&slow), &base(&fast), "--model", "m"])
        .args(["--only", "plain,long", "-o"])
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !out.join("a/plain.har").exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // A's long (42 events at 300 ms) is streaming now.
    std::thread::sleep(std::time::Duration::from_millis(900));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let o = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(130), "{text}");
    let b = text.split("B: sselint probe").nth(1).unwrap_or("");
    assert!(b.contains("no scenario ran"), "{text}");
    assert!(!b.contains("scenario │ verdict"), "no table for B: {text}");
    assert!(!text.contains("A against B"), "{text}");
}

/// `YYYYmmdd-HHMMSS` of `secs` after the epoch (UTC), by `date`.
fn utc_stamp(secs: u64) -> String {
    let o = Command::new("date")
        .args(["-u", "-d", &format!("@{secs}"), "+%Y%m%d-%H%M%S"])
        .output()
        .unwrap();
    String::from_utf8(o.stdout).unwrap().trim().to_string()
}

/// Found by a fresh-user trial: two runs without -o started within one
/// second collided (`probe-… already exists; give -o DIR`). The second
/// takes the name with `-2`.
#[test]
fn a_default_directory_taken_gets_a_counter() {
    let dir = scratch("probe-default-dir");
    let r = Replay::start(&fixtures().join("good"), &[]);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    // Every name the run may pick in the next two minutes is taken.
    for s in now..now + 120 {
        std::fs::create_dir(dir.join(format!("probe-{}", utc_stamp(s)))).unwrap();
    }
    let o = Command::new(cargo_bin("sselint"))
        .current_dir(&dir)
        .args(["probe", &base(&r), "--model", "m", "--only", "plain"])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let made: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("plain.har").is_file())
        .collect();
    assert_eq!(made.len(), 1, "{made:?}");
    assert!(made[0].to_string_lossy().ends_with("-2"), "{made:?}");
}

/// `data` as a brotli stream of stored (uncompressed) meta-blocks (RFC
/// 7932 §9.2), so that the test needs no brotli encoder.
fn br_stored(data: &[u8]) -> Vec<u8> {
    let mut bits: Vec<bool> = Vec::new();
    let put = |bits: &mut Vec<bool>, v: u32, n: u32| {
        for i in 0..n {
            bits.push(v >> i & 1 == 1);
        }
    };
    let mut out = Vec::new();
    let flush = |bits: &mut Vec<bool>, out: &mut Vec<u8>| {
        for byte in bits.chunks(8) {
            out.push(
                byte.iter()
                    .enumerate()
                    .fold(0u8, |b, (i, &x)| b | (u8::from(x) << i)),
            );
        }
        bits.clear();
    };
    // WBITS 16.
    put(&mut bits, 0, 1);
    for block in data.chunks(1 << 16) {
        // ISLAST 0, MNIBBLES 4, MLEN-1, ISUNCOMPRESSED 1, then the bytes
        // from the next byte boundary.
        put(&mut bits, 0, 1);
        put(&mut bits, 0, 2);
        put(&mut bits, block.len() as u32 - 1, 16);
        put(&mut bits, 1, 1);
        flush(&mut bits, &mut out);
        out.extend_from_slice(block);
    }
    // ISLAST 1, ISLASTEMPTY 1.
    put(&mut bits, 1, 1);
    put(&mut bits, 1, 1);
    flush(&mut bits, &mut out);
    out
}

/// Found by a fresh-user trial: a deflate or br body (never asked for)
/// under the size limit is saved as received, and the HAR reader decoded
/// only gzip, so the capture was linted as compressed bytes.
#[test]
fn a_deflate_or_br_body_is_decoded_when_its_capture_is_read() {
    use std::io::{Read as _, Write as _};
    let dir = scratch("probe-deflate-br");
    let sse = std::fs::read(fixtures().join("good/chat/plain.sse")).unwrap();
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&sse).unwrap();
    let br = br_stored(&sse);
    let mut back = Vec::new();
    brotli_decompressor::Decompressor::new(&br[..], 4096)
        .read_to_end(&mut back)
        .unwrap();
    assert_eq!(back, sse, "the test's br stream is valid");
    for (enc, body) in [("deflate", z.finish().unwrap()), ("br", br)] {
        let addr = fixed_server(
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Encoding: {enc}\r\nContent-Length: {}",
                body.len()
            ),
            body,
        );
        let out = dir.join(enc);
        let (code, v) = probe_json(&format!("http://{addr}/v1"), &out, &["--only", "plain"]);
        let s = scenario(&v, "plain");
        assert_eq!(s["verdict"], "pass", "{enc}: {s}");
        assert_eq!(code, Some(0), "{enc}: {v}");
        let check = Command::new(cargo_bin("sselint"))
            .arg("check")
            .arg(out.join("plain.har"))
            .output()
            .unwrap();
        let report = String::from_utf8_lossy(&check.stdout);
        assert_eq!(check.status.code(), Some(0), "{enc}: {report}");
        assert!(
            report.contains(&format!("decoded from {enc}")),
            "{enc}: {report}"
        );
    }
}

/// Found by a fresh-user trial: against a server that sends its head and
/// then nothing, `disconnect` took twice --timeout (its follow-up got a
/// time-out of its own) and said "hung up after 0 bytes" of a request
/// that timed out. The two requests share one time-out.
#[test]
fn disconnect_shares_one_time_out_and_says_the_first_request_timed_out() {
    use std::io::{BufRead as _, Write as _};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let dir = scratch("probe-disconnect-timeout");
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    let requests = Arc::new(AtomicUsize::new(0));
    let counted = requests.clone();
    std::thread::spawn(move || {
        for conn in l.incoming().flatten() {
            counted.fetch_add(1, Ordering::SeqCst);
            std::thread::spawn(move || {
                let mut r = std::io::BufReader::new(conn);
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                }
                let mut c = r.into_inner();
                let _ = write!(
                    c,
                    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                );
                let _ = c.flush();
                std::thread::sleep(std::time::Duration::from_secs(20));
            });
        }
    });
    let (code, v) = probe_json(
        &format!("http://{addr}/v1"),
        &dir.join("out"),
        &["--only", "disconnect", "--timeout", "1"],
    );
    let s = scenario(&v, "disconnect");
    assert_eq!(requests.load(Ordering::SeqCst), 1, "{s}");
    let note = s["note"].as_str().unwrap_or("");
    assert!(note.contains("timed out"), "{s}");
    assert!(!note.contains("hung up"), "{s}");
    assert!(rules(s).contains(&"probe-timeout".to_string()), "{s}");
    assert_eq!(s["verdict"], "fail", "{s}");
    assert_eq!(code, Some(1));
    // The human card shows a failing scenario's note too (found by a
    // fresh-user trial: only an error's was shown).
    let o = probe(
        &format!("http://{addr}/v1"),
        &dir.join("human"),
        &["--only", "disconnect", "--timeout", "1"],
    );
    let card = String::from_utf8_lossy(&o.stdout);
    assert!(
        card.contains("  note: first request: timed out after 0 bytes"),
        "{card}"
    );
}

/// Found by a fresh-user trial: an endpoint that answered, but not in
/// HTTP a client can read (a 1 MB response head, an SSH banner), halted
/// the run as "the endpoint could not be reached".
#[test]
fn an_answer_that_is_not_readable_http_halts_the_run_saying_so() {
    let dir = scratch("probe-not-http");
    let big = format!("HTTP/1.1 200 OK\r\nX-Big: {}", "a".repeat(1 << 20));
    let many: String = (0..5000).map(|i| format!("\r\nX-H{i}: 1")).collect();
    let many = format!("HTTP/1.1 200 OK{many}");
    for (name, head) in [
        ("big-head", big),
        ("many-fields", many),
        ("ssh", "SSH-2.0-OpenSSH_9.6".to_string()),
    ] {
        let addr = fixed_server(head, Vec::new());
        let (code, v) = probe_json(
            &format!("http://{addr}/v1"),
            &dir.join(name),
            &["--only", "plain,usage"],
        );
        assert_eq!(code, Some(1), "{name}: {v}");
        let halted = v["halted"].as_str().unwrap_or("");
        assert!(
            halted.contains("not a readable HTTP response"),
            "{name}: {v}"
        );
        assert!(!halted.contains("could not be reached"), "{name}: {v}");
    }
}

/// A server answering every request with the good Chat `plain` stream,
/// keeping each request's header lines (lower-cased names).
fn header_server() -> (String, std::sync::Arc<std::sync::Mutex<Vec<Vec<String>>>>) {
    use std::io::{BufRead as _, Read as _, Write as _};
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = seen.clone();
    let sse = std::fs::read(fixtures().join("good/chat/plain.sse")).unwrap();
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for conn in l.incoming().flatten() {
            let mut r = std::io::BufReader::new(conn);
            let mut lines = Vec::new();
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                if r.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                let (n, v) = line.split_once(':').unwrap_or((&line, ""));
                let n = n.trim().to_ascii_lowercase();
                if n == "content-length" {
                    len = v.trim().parse().unwrap_or(0);
                }
                lines.push(format!("{n}:{}", v.trim()));
            }
            let mut body = vec![0u8; len];
            let _ = r.read_exact(&mut body);
            kept.lock().unwrap().push(lines);
            let mut c = r.into_inner();
            let _ = write!(
                c,
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
            );
            let _ = c.write_all(&sse);
        }
    });
    (addr, seen)
}

/// Found by a fresh-user trial: `-H 'Authorization: …'` beside
/// --api-key-env sent two Authorization headers, and `-H 'Content-Length:
/// 3'` went out beside chunked framing. A -H replaces the probe's header
/// of its name; a framing header is a usage error.
#[test]
fn an_h_header_replaces_the_probes_own_and_a_framing_one_is_refused() {
    let dir = scratch("probe-h-replace");
    let (addr, seen) = header_server();
    let url = format!("http://{addr}/v1");
    let o = Command::new(cargo_bin("sselint"))
        .env("PROBE_H_KEY", "sk-hreplaceFAKE0123456789")
        .args(["probe", &url, "--model", "m", "--only", "plain"])
        .args(["--api-key-env", "PROBE_H_KEY"])
        .args(["-H", "authorization: Bearer GIVENtoken42"])
        .args(["-H", "Accept: text/event-stream; q=1"])
        .arg("-o")
        .arg(dir.join("out"))
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let got = seen.lock().unwrap().clone();
    assert_eq!(got.len(), 1);
    let named = |n: &str| -> Vec<String> {
        got[0]
            .iter()
            .filter(|l| l.starts_with(&format!("{n}:")))
            .cloned()
            .collect()
    };
    assert_eq!(
        named("authorization"),
        ["authorization:Bearer GIVENtoken42"]
    );
    assert_eq!(named("accept"), ["accept:text/event-stream; q=1"]);
    for h in [
        "Content-Length: 3",
        "transfer-encoding: gzip",
        "Host: x.example",
    ] {
        let o = probe(&url, &dir.join("refused"), &["--only", "plain", "-H", h]);
        assert_eq!(o.status.code(), Some(2), "{h}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("sets this header itself"), "{h}: {err}");
    }
    assert_eq!(seen.lock().unwrap().len(), 1, "nothing more was sent");
}

/// The key of [`a_key_the_server_echoes_escaped_compressed_or_split_is_in_no_file`].
const LEAK_KEY: &str = "sk-leak/KEY0123456789abc";

/// A Chat stream whose content deltas are `parts`, as SSE text.
fn chat_deltas(parts: &[String]) -> String {
    let chunk = |delta: Value, fin: Value| {
        let c = serde_json::json!({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": fin}]});
        format!("data: {c}\n\n")
    };
    let mut s = chunk(
        serde_json::json!({"role": "assistant", "content": ""}),
        Value::Null,
    );
    for p in parts {
        s.push_str(&chunk(serde_json::json!({ "content": p }), Value::Null));
    }
    s.push_str(&chunk(serde_json::json!({}), serde_json::json!("stop")));
    s.push_str("data: [DONE]\n\n");
    s
}

fn gzipped(b: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(b).unwrap();
    z.finish().unwrap()
}

/// Found by a fresh-user trial: a key the server sent back JSON-escaped
/// (`\/`, or every character `\u`-escaped), gzip-compressed, or split
/// across two content deltas was saved in the HAR, and `check` of the HAR
/// printed it.
#[test]
fn a_key_the_server_echoes_escaped_compressed_or_split_is_in_no_file() {
    let dir = scratch("probe-leak-forms");
    let piece = &LEAK_KEY[9..15];
    let all_u: String = LEAK_KEY
        .chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect();
    let (a, b) = LEAK_KEY.split_at(11);
    let stream = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream".to_string();
    let json_400 = "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json".to_string();
    let slashed = format!(
        "{{\"error\":{{\"message\":\"bad key {}\"}}}}",
        LEAK_KEY.replace('/', "\\/")
    );
    let cases: Vec<(&str, &str, String, Vec<u8>)> = vec![
        (
            "slash",
            "plain",
            json_400.clone(),
            slashed.clone().into_bytes(),
        ),
        (
            "uesc",
            "plain",
            stream.clone(),
            chat_deltas(&["AAAA".to_string()])
                .replace("AAAA", &format!("echo {all_u}"))
                .into_bytes(),
        ),
        (
            "gzstream",
            "plain",
            format!("{stream}\r\nContent-Encoding: gzip"),
            gzipped(chat_deltas(&[format!("echo {LEAK_KEY}")]).as_bytes()),
        ),
        (
            "gzerror",
            "invalid",
            format!("{json_400}\r\nContent-Encoding: gzip"),
            gzipped(slashed.replace("\\/", "/").as_bytes()),
        ),
        (
            "split",
            "plain",
            stream.clone(),
            chat_deltas(&[a.to_string(), b.to_string()]).into_bytes(),
        ),
    ];
    for (name, only, head, body) in cases {
        let head = format!("{head}\r\nContent-Length: {}", body.len());
        let addr = fixed_server(head, body);
        let out = dir.join(name);
        let o = Command::new(cargo_bin("sselint"))
            .args(["probe", &format!("http://{addr}/v1"), "--model", "m"])
            .args([
                "--only",
                only,
                "--format",
                "json",
                "--api-key-env",
                "LEAK_KEY",
                "-o",
            ])
            .arg(&out)
            .env("LEAK_KEY", LEAK_KEY)
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|e| panic!("{name}: {e}: {}", String::from_utf8_lossy(&o.stderr)));
        let s = scenario(&v, only);
        match name {
            // Judged on the decoded error: JSON, a 4xx.
            "gzerror" => assert_eq!(s["verdict"], "pass", "{name}: {s}"),
            "slash" => assert!(
                rules(s).contains(&"probe-http-status".to_string()),
                "{name}: {s}"
            ),
            _ => assert_eq!(s["verdict"], "pass", "{name}: {s}"),
        }
        if name == "split" {
            assert!(
                s["note"].as_str().unwrap_or("").contains("withheld"),
                "{name}: {s}"
            );
        }
        let mut texts = vec![
            String::from_utf8_lossy(&o.stdout).to_string(),
            String::from_utf8_lossy(&o.stderr).to_string(),
        ];
        for f in std::fs::read_dir(&out).unwrap() {
            let p = f.unwrap().path();
            texts.push(String::from_utf8_lossy(&std::fs::read(&p).unwrap()).to_string());
            if p.extension().is_some_and(|e| e == "har") {
                for extra in [&[][..], &["-v", "--format", "json"][..]] {
                    let c = Command::new(cargo_bin("sselint"))
                        .arg("check")
                        .arg(&p)
                        .args(extra)
                        .output()
                        .unwrap();
                    let said = String::from_utf8_lossy(&c.stdout).to_string();
                    // `check` says why the body is empty.
                    if name == "split" && extra.is_empty() {
                        assert!(
                            said.contains("note: the response body was withheld"),
                            "{said}"
                        );
                    }
                    texts.push(said);
                    texts.push(String::from_utf8_lossy(&c.stderr).to_string());
                }
            }
        }
        for t in &texts {
            assert!(!t.contains(LEAK_KEY), "{name}: the key in {t}");
            assert!(!t.contains(piece), "{name}: {piece} in {t}");
        }
    }
}

/// Found by a fresh-user trial: a percent-encoded password in the URL
/// (`p%40ss`) went out as `Basic` of the still-encoded text. It is decoded
/// first, as curl does, and the decoded password is masked too.
#[test]
fn a_percent_encoded_url_password_is_decoded_for_basic_auth_and_masked() {
    use base64::Engine as _;
    use std::io::{BufRead as _, Write as _};
    let dir = scratch("probe-url-password");
    let password = "p@ss/w0rd:LongSecret";
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for conn in l.incoming().flatten() {
            let mut r = std::io::BufReader::new(conn);
            let (mut len, mut auth) = (0usize, String::new());
            loop {
                let mut line = String::new();
                if r.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                let lower = line.to_ascii_lowercase();
                if let Some(v) = lower.strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap_or(0);
                }
                if lower.starts_with("authorization:") {
                    auth = line["authorization:".len()..].trim().to_string();
                }
            }
            let mut req = vec![0u8; len];
            let _ = std::io::Read::read_exact(&mut r, &mut req);
            let decoded = auth
                .strip_prefix("Basic ")
                .and_then(|t| base64::engine::general_purpose::STANDARD.decode(t).ok())
                .map(|b| String::from_utf8_lossy(&b).to_string())
                .unwrap_or_default();
            let _ = tx.send(decoded.clone());
            let body = chat_deltas(&[format!("you are {decoded}")]);
            let mut c = r.into_inner();
            let _ = write!(
                c,
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    let url = format!("http://alice:p%40ss%2Fw0rd%3ALongSecret@{addr}/v1");
    let out = dir.join("o");
    let o = probe(&url, &out, &["--only", "plain"]);
    let card = String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{card}");
    assert_eq!(rx.recv().unwrap(), format!("alice:{password}"));
    let har = std::fs::read_to_string(out.join("plain.har")).unwrap();
    for t in [&card, &har] {
        for s in [password, "LongSecret", "p%40ss%2Fw0rd%3ALongSecret"] {
            assert!(!t.contains(s), "{s} in {t}");
        }
    }
    assert!(har.contains("[REDACTED]"), "{har}");
}

/// Found by a fresh-user trial: a non-ASCII key (or `-H` value) was sent
/// off and came back as "protocol: authorization header is not a string
/// … could not be reached", exit 1. It is a usage error before any
/// request, the value not shown.
#[test]
fn a_non_ascii_key_or_header_value_is_a_usage_error_before_any_request() {
    let dir = scratch("probe-non-ascii");
    let cases: [(&str, &[&str], &str); 2] = [
        (
            "key",
            &["--api-key-env", "NON_ASCII_KEY"],
            "sk-clé0123456789",
        ),
        (
            "header",
            &["-H", "X-Auth: tökén0123456789"],
            "tökén0123456789",
        ),
    ];
    for (name, args, secret) in cases {
        let out = dir.join(name);
        let o = Command::new(cargo_bin("sselint"))
            .args([
                "probe",
                "http://127.0.0.1:9/v1",
                "--model",
                "m",
                "--only",
                "plain",
            ])
            .args(args)
            .arg("-o")
            .arg(&out)
            .env("NON_ASCII_KEY", "sk-clé0123456789")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains("non-ASCII"), "{name}: {err}");
        assert!(!err.contains(secret), "{name}: {err}");
        assert!(o.stdout.is_empty(), "{name}");
        assert!(!out.exists(), "{name}");
    }
}

/// Found by a fresh-user trial: `--report json=DIR` with DIR the `-o`
/// directory (not yet made) was only refused after every request ("is a
/// directory"). It is a usage error before any.
#[test]
fn a_report_named_as_the_capture_directory_is_a_usage_error_before_any_request() {
    let dir = scratch("probe-report-is-out");
    let r = Replay::start(&fixtures().join("good"), &[]);
    for (name, two) in [("one", false), ("two", true)] {
        let out = dir.join(name);
        let target = if two { out.join("b") } else { out.clone() };
        let report = format!("json={}", target.display());
        let mut cmd = Command::new(cargo_bin("sselint"));
        cmd.args(["probe", &base(&r)]);
        if two {
            cmd.arg(base(&r));
        }
        let o = cmd
            .args(["--model", "m", "--only", "plain", "--report", &report, "-o"])
            .arg(&out)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains("capture directory"), "{name}: {err}");
        assert!(o.stdout.is_empty(), "{name}");
        assert!(!out.exists(), "{name}");
    }
}

/// Found by a fresh-user trial: a redirect with an empty body was noted
/// as "…so give that one: " (a dangling colon), and port 0 was taken,
/// then refused, though the message said "0 to 65535".
#[test]
fn a_redirect_without_a_body_and_port_0_read_cleanly() {
    let dir = scratch("probe-redirect-port0");
    let addr = fixed_server(
        "HTTP/1.1 307 Temporary Redirect\r\nLocation: http://127.0.0.1:9/v1/chat/completions\r\nContent-Length: 0".to_string(),
        Vec::new(),
    );
    let (code, v) = probe_json(
        &format!("http://{addr}/v1"),
        &dir.join("r"),
        &["--only", "plain"],
    );
    let s = scenario(&v, "plain");
    let note = s["note"].as_str().unwrap_or("");
    assert!(note.ends_with("so give that one"), "{s}");
    assert_eq!(code, Some(1));
    let o = probe(
        "http://127.0.0.1:0/v1",
        &dir.join("p"),
        &["--only", "plain"],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("1 to 65535"), "{err}");
    assert!(!dir.join("p").exists());
    let o = probe(
        "http://127.0.0.1:70000/v1",
        &dir.join("q"),
        &["--only", "plain"],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("1 to 65535"), "{err}");
}

/// A compressed body cut short is kept as received, so that `check` of
/// the capture still says it is incomplete (a whole one is kept decoded).
#[test]
fn a_compressed_body_cut_short_is_kept_as_received() {
    let dir = scratch("probe-gzip-cut");
    let whole = gzipped(chat_deltas(&["Hello there, a longer answer.".to_string()]).as_bytes());
    let cut = whole[..whole.len() * 2 / 3].to_vec();
    let addr = fixed_server(
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Encoding: gzip\r\nContent-Length: {}",
            cut.len()
        ),
        cut,
    );
    let out = dir.join("o");
    let (_, v) = probe_json(&format!("http://{addr}/v1"), &out, &["--only", "plain"]);
    let s = scenario(&v, "plain");
    assert_eq!(s["verdict"], "fail", "{s}");
    let check = Command::new(cargo_bin("sselint"))
        .arg("check")
        .arg(out.join("plain.har"))
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&check.stdout);
    assert!(report.contains("incomplete compressed body"), "{report}");
}

/// The HAR request of `har`: its URL and its headers (name, value).
fn har_request(har: &Path) -> (String, Vec<(String, String)>) {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(har).unwrap()).unwrap();
    let req = &v["log"]["entries"][0]["request"];
    let headers = req["headers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["name"].as_str().unwrap().to_lowercase(),
                h["value"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (req["url"].as_str().unwrap().to_string(), headers)
}

#[test]
fn a_gemini_endpoint_is_probed_at_its_model_path_with_alt_sse_and_the_key_unseen() {
    let dir = scratch("probe-gemini");
    let r = Replay::start(&fixtures().join("good"), &[]);
    let key = "AIzaSyFAKE-probe-gemini-0123456789abcd";
    // (base URL given, the URL the requests go to, the header the key is in)
    let origin = format!("http://{}", r.addr);
    for (i, (given, want, key_header)) in [
        // An origin, as Google's SDKs take it: /v1beta added.
        (
            origin.clone(),
            format!("{origin}/v1beta/models/probe-model:streamGenerateContent?alt=sse"),
            "x-goog-api-key",
        ),
        // Vertex AI's project and location: /publishers/google added,
        // and the token as a Bearer token.
        (
            format!("{origin}/v1/projects/my-proj/locations/us-central1"),
            format!("{origin}/v1/projects/my-proj/locations/us-central1/publishers/google/models/probe-model:streamGenerateContent?alt=sse"),
            "authorization",
        ),
        // The endpoint itself, without alt=sse: it is added.
        (
            format!("{origin}/v1beta/models/probe-model:streamGenerateContent"),
            format!("{origin}/v1beta/models/probe-model:streamGenerateContent?alt=sse"),
            "x-goog-api-key",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let out = dir.join(format!("run{i}"));
        let o = Command::new(cargo_bin("sselint"))
            .args(["probe", &given, "--dialect", "gemini", "--model", "probe-model"])
            .args(["--api-key-env", "PROBE_GEMINI_KEY", "--format", "json", "-o"])
            .arg(&out)
            .env("PROBE_GEMINI_KEY", key)
            .output()
            .unwrap();
        for bytes in [&o.stdout, &o.stderr] {
            assert!(!String::from_utf8_lossy(bytes).contains(key), "{given}");
        }
        let v: Value = serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
        assert_eq!(o.status.code(), Some(0), "{given}: {v:#}");
        assert_eq!(v["dialect"], "gemini");
        assert!(verdicts(&v).iter().all(|(_, x)| x == "pass"), "{v:#}");
        assert_eq!(verdicts(&v).len(), 9, "the scenarios but thinking: {v:#}");
        let mut hars = 0;
        for e in std::fs::read_dir(&out).unwrap() {
            let p = e.unwrap().path();
            assert!(!std::fs::read_to_string(&p).unwrap().contains(key), "{}", p.display());
            let (url, headers) = har_request(&p);
            assert_eq!(url, want, "{}", p.display());
            assert!(
                headers.iter().any(|(n, v)| n == key_header && v == "[REDACTED]"),
                "{given}: the key went out as {key_header}, redacted: {headers:?}"
            );
            let other = if key_header == "authorization" { "x-goog-api-key" } else { "authorization" };
            assert!(headers.iter().all(|(n, _)| n != other), "{headers:?}");
            hars += 1;
        }
        assert_eq!(hars, 10, "9 scenarios and disconnect's dropped capture");
    }
    // A key in the URL's `?key=` is masked where the card shows the URL and
    // in every capture.
    let out = dir.join("query-key");
    let o = probe(
        &format!("{origin}/v1beta?key={key}"),
        &out,
        &["--dialect", "gemini", "--only", "plain"],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        !stdout.contains(key) && stdout.contains("key=[REDACTED]&alt=sse"),
        "{stdout}"
    );
    let (url, _) = har_request(&out.join("plain.har"));
    assert_eq!(
        url,
        format!("{origin}/v1beta/models/probe-model:streamGenerateContent?key=[REDACTED]&alt=sse")
    );
}

#[test]
fn a_gemini_n2_answered_with_one_candidate_fails_in_gemini_words() {
    let dir = scratch("probe-gemini-n2");
    let set = dir.join("set/gemini");
    std::fs::create_dir_all(&set).unwrap();
    for e in std::fs::read_dir(fixtures().join("good/gemini")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, set.join(p.file_name().unwrap())).unwrap();
    }
    // candidateCount 2 answered with one candidate.
    std::fs::copy(set.join("plain.sse"), set.join("n2.sse")).unwrap();
    let r = Replay::start(&dir.join("set"), &[]);
    let (code, v) = probe_json(
        &format!("http://{}", r.addr),
        &dir.join("out"),
        &["--dialect", "gemini", "--only", "n2,length"],
    );
    assert_eq!(code, Some(1), "{v:#}");
    let n2 = scenario(&v, "n2");
    assert_eq!(n2["verdict"], "fail");
    // (line-endings: the fixtures end lines with CRLF, as the API does.)
    assert!(rules(n2).contains(&"probe-n-ignored".to_string()), "{n2}");
    let message = n2["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "probe-n-ignored")
        .unwrap()["message"]
        .as_str()
        .unwrap();
    assert_eq!(
        message,
        "the request asked for generationConfig.candidateCount 2 candidates; the stream carried 1 (candidate indexes [0])"
    );
    // MAX_TOKENS is Gemini's cut: no probe-not-cut.
    assert_eq!(scenario(&v, "length")["verdict"], "pass", "{v:#}");
}

#[test]
fn a_gemini_call_to_another_tool_names_what_the_gemini_request_forced() {
    // Trial finding: probe-wrong-tool said `tool_choice` for Gemini, whose
    // request forces the call with `toolConfig.functionCallingConfig`.
    let dir = scratch("probe-wrong-tool-gemini");
    let set = capture_set(&dir, &[], &[]);
    std::fs::create_dir_all(set.join("gemini")).unwrap();
    for e in std::fs::read_dir(fixtures().join("good/gemini")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, set.join("gemini").join(p.file_name().unwrap())).unwrap();
    }
    let good = fixtures().join("good/gemini/tool.sse");
    let t = std::fs::read_to_string(&good).unwrap();
    std::fs::write(
        set.join("gemini/tool.sse"),
        t.replace("get_weather", "delete_everything"),
    )
    .unwrap();
    let r = Replay::start(&set, &[]);
    let (code, v) = probe_json(
        &base(&r),
        &dir.join("out"),
        &["--dialect", "gemini", "--only", "tool"],
    );
    let s = scenario(&v, "tool");
    let f = s["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "probe-wrong-tool")
        .unwrap_or_else(|| panic!("{v:#}"));
    let m = f["message"].as_str().unwrap();
    assert!(m.contains("toolConfig"), "{m}");
    assert!(!m.contains("tool_choice"), "{m}");
    assert_eq!(code, Some(1));
}
