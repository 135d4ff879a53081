//! The README's capture recipes, run as written with the real `curl`
//! against `sselint replay` on 127.0.0.1: with and without `-s`, so curl's
//! progress meter lands in the file (stderr merged with `2>&1`) and
//! updates mid-body. Every recipe must give the served answer, no finding
//! about curl's own output, and findings at the body's own bytes.

mod common;
use assert_cmd::cargo::cargo_bin;
use common::{root, scratch, Replay};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn curl_present() -> bool {
    Command::new("curl")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// One README recipe: the curl options, how the output is redirected, and
/// the file sselint reads.
struct Recipe {
    name: &'static str,
    /// Shell words after `curl` and before the URL.
    opts: &'static str,
    /// Shell redirections after the URL; `{out}` is the capture file.
    redirect: &'static str,
    /// Whether curl's progress meter reaches the capture file.
    meter: bool,
}

/// Every curl mode of the README's capture table, with and without `-s`.
/// The meter only reaches the file when stderr is merged into it.
fn recipes() -> Vec<Recipe> {
    let mut v = Vec::new();
    for (name, opts, redirect) in [
        ("raw", "-N", "> {out} 2>/dev/null"),
        ("raw-2>&1", "-N", "> {out} 2>&1"),
        ("i", "-i -N", "> {out} 2>/dev/null"),
        ("i-2>&1", "-i -N", "> {out} 2>&1"),
        ("v", "-v -N", "> {out} 2>&1"),
        ("raw-i", "--raw -i -N", "> {out} 2>&1"),
        (
            "trace",
            "--trace-time --trace {out}",
            "> /dev/null 2>/dev/null",
        ),
        (
            "trace-ascii",
            "--trace-time --trace-ascii {out}",
            "> /dev/null 2>/dev/null",
        ),
    ] {
        let merged = redirect.contains("{out} 2>&1");
        v.push(Recipe {
            name,
            opts,
            redirect,
            meter: merged,
        });
        let silent: &'static str = Box::leak(format!("-s {opts}").into_boxed_str());
        let sname: &'static str = Box::leak(format!("s-{name}").into_boxed_str());
        v.push(Recipe {
            name: sname,
            opts: silent,
            redirect,
            meter: false,
        });
    }
    v
}

/// Runs every recipe against `url` at once (each takes a few seconds of
/// paced events) and returns the capture file of each.
fn run_all(url: &str, dir: &Path, recipes: &[Recipe]) -> Vec<PathBuf> {
    let req = dir.join("req.json");
    std::fs::write(
        &req,
        r#"{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"hi"}]}"#,
    )
    .unwrap();
    let mut children = Vec::new();
    let mut outs = Vec::new();
    for r in recipes {
        let out = dir.join(format!("{}.txt", r.name));
        let o = out.to_str().unwrap();
        let cmd = format!(
            "curl {} '{url}' -H 'Content-Type: application/json' -H 'Authorization: Bearer sk-test' -d @'{}' {}",
            r.opts.replace("{out}", &format!("'{o}'")),
            req.display(),
            r.redirect.replace("{out}", &format!("'{o}'")),
        );
        children.push((
            r.name,
            Command::new("sh").args(["-c", &cmd]).spawn().unwrap(),
        ));
        outs.push(out);
    }
    for (name, mut c) in children {
        let st = c.wait().unwrap();
        assert!(st.success(), "{name}: curl failed: {st}");
    }
    outs
}

fn check_json(p: &Path) -> (Option<i32>, Value) {
    let out = Command::new(cargo_bin("sselint"))
        .args(["check", "--format", "json", "--fail-on", "warning"])
        .arg(p)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{}: {e}: {}",
            p.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code(), v)
}

/// Whether a progress-meter row (`\r` then `100 …`) sits after the first
/// `data:` line: the meter updated mid-body.
fn meter_mid_body(bytes: &[u8]) -> bool {
    let Some(first) = bytes.windows(5).position(|w| w == b"data:") else {
        return false;
    };
    bytes[first..]
        .windows(2)
        .any(|w| w[0] == b'\r' && w[1] != b'\n')
}

#[test]
fn every_readme_curl_recipe_gives_the_served_answer_with_and_without_s() {
    if !curl_present() {
        common::not_run("curl recipes", "the curl binary is not on PATH");
        return;
    }
    let dir = scratch("recipes");
    let sample = root().join("samples/good/openai-usage.sse");
    // Events 250 ms apart in 7-byte writes: curl's meter (once a second)
    // lands inside the body several times.
    let replay = Replay::start(&sample, &["--split-bytes", "7", "--delay-ms", "250"]);
    let recipes = recipes();
    let outs = run_all(&replay.url, &dir, &recipes);
    let mut failures = Vec::new();
    for (r, out) in recipes.iter().zip(&outs) {
        let bytes = std::fs::read(out).unwrap();
        if r.meter {
            assert!(
                meter_mid_body(&bytes),
                "{}: the meter never landed mid-body; the test proves nothing",
                r.name
            );
        }
        let (code, v) = check_json(out);
        let s = &v["files"][0]["streams"][0];
        let text = s["choices"][0]["text"].as_str().unwrap_or("");
        let notes: Vec<&str> = s["notes"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let said_meter = notes.iter().any(|n| n.contains("progress meter"));
        let findings: Vec<String> = s["diagnostics"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|d| format!("{} {}", d["rule"], d["message"]))
                    .collect()
            })
            .unwrap_or_default();
        let ok = code == Some(0)
            && text == "Hello! How can I help you today?"
            && s["ending"] == "complete"
            && s["usage"]["total_tokens"] == 29
            && findings.is_empty()
            && said_meter == r.meter
            && (r.opts.contains("-i") || r.opts.contains("-v") || r.opts.contains("trace"))
                == (s["http"]["status"] == 200);
        if !ok {
            failures.push(format!(
                "{}: exit {code:?}, text {text:?}, ending {}, usage {}, http {}, notes {notes:?}, findings {findings:?}",
                r.name, s["ending"], s["usage"], s["http"]
            ));
        }
        // No secret reaches a report.
        assert!(!v.to_string().contains("sk-test"), "{}", r.name);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn findings_in_a_metered_capture_point_at_the_bodys_own_bytes() {
    if !curl_present() {
        common::not_run("curl recipes", "the curl binary is not on PATH");
        return;
    }
    let dir = scratch("positions");
    let sample = root().join("samples/bad/invalid-json.sse");
    let replay = Replay::start(&sample, &["--split-bytes", "5", "--delay-ms", "200"]);
    let recipes: Vec<Recipe> = recipes().into_iter().filter(|r| r.meter).collect();
    let outs = run_all(&replay.url, &dir, &recipes);
    let (_, direct) = check_json(&sample);
    let key = |v: &Value| -> Vec<String> {
        v["files"][0]["streams"][0]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                format!(
                    "{} {} line {} col {} at {}+{}",
                    d["rule"],
                    d["message"],
                    d["line"],
                    d["column"],
                    d["byte_offset"],
                    d["byte_len"]
                )
            })
            .collect()
    };
    let want = key(&direct);
    assert_eq!(want.len(), 1, "{want:?}");
    for (r, out) in recipes.iter().zip(&outs) {
        let (code, v) = check_json(out);
        assert_eq!(code, Some(1), "{}", r.name);
        let s = &v["files"][0]["streams"][0];
        // Positions are in the body with curl's lines taken out: the
        // served bytes, so they match a check of the sample itself.
        assert_eq!(s["positions"], "body", "{}", r.name);
        assert_eq!(key(&v), want, "{}", r.name);
    }
}

#[test]
fn a_transfer_cut_mid_line_is_cut_off_and_names_curls_error_with_or_without_the_meter() {
    if !curl_present() {
        common::not_run("curl recipes", "the curl binary is not on PATH");
        return;
    }
    let dir = scratch("cut");
    let sample = root().join("samples/good/openai-usage.sse");
    // 2000 bytes end inside a `data:` line; curl's `(18)` line follows the
    // last bytes (glued to them with -sS, after the meter's last row
    // without -s).
    let replay = Replay::start(
        &sample,
        &[
            "--split-bytes",
            "7",
            "--delay-ms",
            "300",
            "--cut-after-bytes",
            "2000",
        ],
    );
    let recipes = vec![
        Recipe {
            name: "meter",
            opts: "-N",
            redirect: "> {out} 2>&1",
            meter: true,
        },
        Recipe {
            name: "sS",
            opts: "-sS -N",
            redirect: "> {out} 2>&1",
            meter: false,
        },
        // Issue 40's trial: curl -v writes `* transfer closed with
        // outstanding read data remaining` right after the last bytes.
        Recipe {
            name: "v",
            opts: "-v -N",
            redirect: "> {out} 2>&1",
            meter: true,
        },
    ];
    let req = dir.join("req.json");
    std::fs::write(&req, "{}").unwrap();
    for r in &recipes {
        let out = dir.join(format!("{}.txt", r.name));
        let cmd = format!(
            "curl {} '{}' -d @'{}' {}",
            r.opts,
            replay.url,
            req.display(),
            r.redirect.replace("{out}", &format!("'{}'", out.display()))
        );
        // curl exits 18: the transfer broke.
        let st = Command::new("sh").args(["-c", &cmd]).status().unwrap();
        assert_eq!(st.code(), Some(18), "{}", r.name);
        let (code, v) = check_json(&out);
        assert_eq!(code, Some(1), "{}", r.name);
        let s = &v["files"][0]["streams"][0];
        assert_eq!(s["ending"], "cut-off", "{}", r.name);
        assert_eq!(s["choices"][0]["text"], "Hello! How can I", "{}", r.name);
        let notes = s["notes"].to_string();
        assert!(notes.contains("curl reported (18)"), "{}: {notes}", r.name);
        assert_eq!(notes.contains("progress meter"), r.meter, "{}", r.name);
        let cut = s["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["rule"] == "cut-off")
            .unwrap_or_else(|| panic!("{}: no cut-off", r.name));
        assert!(cut["message"]
            .as_str()
            .unwrap()
            .contains("curl reported (18)"));
        assert!(
            !s["diagnostics"].to_string().contains("curl:"),
            "{}: a finding about curl's own line: {}",
            r.name,
            s["diagnostics"]
        );
        // The caret is on the last body byte: curl's words are no part of
        // the line.
        let served = std::fs::read(&sample).unwrap();
        let line = served[..2000].rsplit(|b| *b == b'\n').next().unwrap();
        assert_eq!(cut["column"], line.len(), "{}: {cut}", r.name);
    }
}

/// Issue 40's trial: `minimize` of a `curl -v … 2>&1` dump with the
/// progress meter in it kept the meter's first line, so the result no
/// longer read as a curl dump (status null, path lost, a new
/// `unknown-sse-field`). Tried again with the real curl (7.88) it did not
/// happen; this keeps it so.
#[test]
fn minimize_of_a_metered_curl_v_dump_is_a_curl_dump_with_the_same_findings() {
    if !curl_present() {
        common::not_run("curl recipes", "the curl binary is not on PATH");
        return;
    }
    let dir = scratch("minimize-v");
    let sample = root().join("samples/bad/invalid-json.sse");
    let replay = Replay::start(&sample, &["--split-bytes", "50", "--delay-ms", "150"]);
    let recipes: Vec<Recipe> = recipes().into_iter().filter(|r| r.name == "v").collect();
    let outs = run_all(&replay.url, &dir, &recipes);
    let dump = std::fs::read(&outs[0]).unwrap();
    assert!(meter_mid_body(&dump), "no meter in the dump");
    let min = dir.join("v.min.txt");
    let st = Command::new(cargo_bin("sselint"))
        .args(["minimize", "--no-config", "-o"])
        .arg(&min)
        .arg(&outs[0])
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let rules = |v: &Value| -> Vec<String> {
        let mut r: Vec<String> = v["files"][0]["streams"][0]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["severity"] != "info")
            .map(|d| d["rule"].to_string())
            .collect();
        r.sort();
        r
    };
    let (_, before) = check_json(&outs[0]);
    let (_, after) = check_json(&min);
    assert_eq!(after["files"][0]["input_format"], "curl", "{after:#}");
    let s = &after["files"][0]["streams"][0];
    assert_eq!(s["http"]["status"], 200, "{s:#}");
    assert_eq!(rules(&after), rules(&before), "{after:#}");
    assert!(
        !after.to_string().contains("unknown-sse-field"),
        "{after:#}"
    );
}
