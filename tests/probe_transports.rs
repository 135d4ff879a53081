//! `sselint probe` of Ollama's native API and Amazon Bedrock's streaming
//! operations (issue 37), on 127.0.0.1 only: `sselint replay DIR` serves
//! the scenario sets in tests/fixtures/probe/good/{ollama,bedrock-converse,
//! bedrock-invoke}/ (NDJSON lines and event-stream frames, written by
//! scripts/probe_fixtures.py), whole or with one scenario's capture
//! replaced by a broken one, and each scenario must get its verdict with
//! the right rule.

mod common;
use assert_cmd::cargo::cargo_bin;
use common::{root, scratch, Replay};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const DIALECTS: [&str; 3] = ["ollama", "bedrock-converse", "bedrock-invoke"];

fn good() -> PathBuf {
    root().join("tests/fixtures/probe/good")
}

/// The probe's JSON report of `dialect` against the replay at `r` (its
/// origin is the base URL these APIs' clients take), with `extra` options
/// and the environment `env`: the exit code and the report.
fn probe(
    r: &Replay,
    dialect: &str,
    out: &Path,
    extra: &[&str],
    env: &[(&str, &str)],
) -> (Option<i32>, Value, String) {
    let o = Command::new(cargo_bin("sselint"))
        .args(["probe", &format!("http://{}", r.addr), "--dialect", dialect])
        .args(["--model", "probe-model", "--format", "json", "-o"])
        .arg(out)
        .args(extra)
        .env_remove("AWS_ACCESS_KEY_ID")
        .env_remove("AWS_SECRET_ACCESS_KEY")
        .env_remove("AWS_SESSION_TOKEN")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: stdout {} stderr {stderr}",
            String::from_utf8_lossy(&o.stdout)
        )
    });
    (o.status.code(), v, stderr)
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
fn against_the_good_sets_every_scenario_passes() {
    let dir = scratch("probe-transports-good");
    let r = Replay::start(&good(), &[]);
    let names = [
        "plain",
        "length",
        "stop",
        "tool",
        "long",
        "thinking",
        "invalid",
        "disconnect",
    ];
    for dialect in DIALECTS {
        let (code, v, _) = probe(&r, dialect, &dir.join(dialect), &["--reasoning"], &[]);
        let want: Vec<(String, String)> = names
            .iter()
            .map(|n| (n.to_string(), "pass".to_string()))
            .collect();
        assert_eq!(verdicts(&v), want, "{dialect}: {v:#}");
        assert_eq!(code, Some(0), "{dialect}");
        assert_eq!(v["dialect"], dialect);
        for s in v["scenarios"].as_array().unwrap() {
            let cap = s["capture"].as_str().unwrap();
            assert!(Path::new(cap).is_file(), "{cap}");
            // Content came, so its time did: the messages are read as
            // this transport frames them.
            // (The tool scenario's answer is a call, no text.)
            if s["status"] == 200 && s["name"] != "disconnect" && s["name"] != "tool" {
                assert!(s["ttft_ms"].as_f64().is_some(), "{dialect}: {s}");
            }
        }
        assert_eq!(scenario(&v, "invalid")["status"], 400);
        // The tool scenario's call came whole.
        let tool = std::fs::read_to_string(scenario(&v, "tool")["capture"].as_str().unwrap());
        assert!(tool.unwrap().contains("get_weather"), "{dialect}");
    }
}

#[test]
fn each_fault_fails_its_scenario_with_its_rule() {
    let bad = |f: &str| root().join("samples/bad").join(f);
    let set = |f: &str| good().join(f);
    // (dialect, scenario, its file in the set, the broken capture put in
    // its place, the rules that must name the fault)
    let faults: Vec<(&str, &str, &str, PathBuf, &[&str])> = vec![
        (
            "ollama",
            "plain",
            "plain.ndjson",
            bad("ollama-cut-off.ndjson"),
            &["ollama-cut-off"],
        ),
        (
            "ollama",
            "tool",
            "tool.ndjson",
            set("ollama/plain.ndjson"),
            &["probe-no-tool-call"],
        ),
        (
            "ollama",
            "length",
            "length.ndjson",
            set("ollama/plain.ndjson"),
            &["probe-not-cut"],
        ),
        (
            "bedrock-converse",
            "plain",
            "plain.bin",
            bad("converse-cut-off.bin"),
            &["converse-cut-off"],
        ),
        (
            "bedrock-converse",
            "tool",
            "tool.bin",
            bad("converse-tool-input.bin"),
            &["converse-tool-input"],
        ),
        (
            "bedrock-converse",
            "stop",
            "stop.bin",
            set("bedrock-converse/long.bin"),
            &["probe-stop-ignored"],
        ),
        (
            "bedrock-invoke",
            "plain",
            "plain.bin",
            bad("invoke-frame.bin"),
            &["invoke-frame"],
        ),
        (
            "bedrock-invoke",
            "length",
            "length.bin",
            set("bedrock-invoke/plain.bin"),
            &["probe-not-cut"],
        ),
    ];
    for (dialect, name, file, broken, want) in faults {
        let dir = scratch(&format!("probe-transports-{dialect}-{name}"));
        let to = dir.join("set").join(dialect);
        std::fs::create_dir_all(&to).unwrap();
        for e in std::fs::read_dir(good().join(dialect)).unwrap() {
            let p = e.unwrap().path();
            std::fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
        }
        std::fs::copy(&broken, to.join(file)).unwrap();
        let r = Replay::start(&dir.join("set"), &[]);
        let (code, v, _) = probe(&r, dialect, &dir.join("out"), &[], &[]);
        assert_eq!(code, Some(1), "{dialect} {name}: {v:#}");
        for (n, verdict) in verdicts(&v) {
            if n == name {
                assert_eq!(verdict, "fail", "{dialect} {name}: {v:#}");
                let got = rules(scenario(&v, name));
                for w in want {
                    assert!(
                        got.iter().any(|g| g == w),
                        "{dialect} {name}: {w} not in {got:?}"
                    );
                }
            } else if !(name == "plain" && n == "disconnect") {
                // (disconnect's second request is plain's.)
                assert_eq!(verdict, "pass", "{dialect}: {name} broke {n}: {v:#}");
            }
        }
    }
}

#[test]
fn disconnect_hangs_up_inside_lines_and_frames_and_the_server_answers_again() {
    let dir = scratch("probe-transports-disconnect");
    let r = Replay::start(&good(), &["--delay-ms", "100"]);
    for dialect in DIALECTS {
        let out = dir.join(dialect);
        let (code, v, _) = probe(&r, dialect, &out, &["--only", "disconnect"], &[]);
        assert_eq!(code, Some(0), "{dialect}: {v:#}");
        let s = scenario(&v, "disconnect");
        assert_eq!(s["verdict"], "pass", "{dialect}: {s}");
        let dropped: Value = serde_json::from_str(
            &std::fs::read_to_string(out.join("disconnect-dropped.har")).unwrap(),
        )
        .unwrap();
        assert_eq!(
            dropped["log"]["entries"][0]["_sselint"]["stopped"],
            "hung-up"
        );
    }
}

#[test]
fn a_bedrock_probe_signs_with_the_environment_and_keeps_no_credential() {
    let dir = scratch("probe-transports-sigv4");
    let r = Replay::start(&good(), &[]);
    let akid = "AKIAIOSFODNN7EXAMPLE";
    let secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    let token = "FwoGZXIvYXdzEXAMPLESESSIONTOKEN0123456789";
    let env = [
        ("AWS_ACCESS_KEY_ID", akid),
        ("AWS_SECRET_ACCESS_KEY", secret),
        ("AWS_SESSION_TOKEN", token),
        ("AWS_REGION", "us-west-2"),
    ];
    let out = dir.join("out");
    let (code, v, stderr) = probe(
        &r,
        "bedrock-converse",
        &out,
        &["--only", "plain,tool"],
        &env,
    );
    assert_eq!(code, Some(0), "{v:#}");
    let printed = format!("{v}{stderr}");
    for e in std::fs::read_dir(&out).unwrap() {
        let p = e.unwrap().path();
        let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
        for s in [akid, secret, token, "AWS4-HMAC-SHA256"] {
            assert!(!text.contains(s), "{} holds {s}", p.display());
            assert!(!printed.contains(s), "printed {s}");
        }
        if p.extension().is_some_and(|x| x == "har") {
            let har: Value = serde_json::from_str(&text).unwrap();
            let headers = har["log"]["entries"][0]["request"]["headers"]
                .as_array()
                .unwrap()
                .clone();
            for name in ["Authorization", "X-Amz-Date", "X-Amz-Security-Token"] {
                let h = headers
                    .iter()
                    .find(|h| h["name"] == name)
                    .unwrap_or_else(|| panic!("{}: no {name}", p.display()));
                assert_eq!(h["value"], "[REDACTED]");
            }
        }
    }
    // Without credentials nothing is signed, and a note says so.
    let (_, _, stderr) = probe(
        &r,
        "bedrock-converse",
        &dir.join("out2"),
        &["--only", "plain"],
        &[],
    );
    assert!(stderr.contains("the request goes unsigned"), "{stderr}");
}
