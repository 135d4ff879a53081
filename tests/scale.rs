//! The engines, tested (docs/scale.md): the Ray Data job and the PySpark
//! job of examples/scale lint a generated Parquet gateway log of 20,000
//! rows (every dialect, with HTTP facts) through the wheel's
//! `lint_arrow`, in local mode (Ray with 2 CPUs, Spark `local[2]`); each
//! row's result must be the CLI's (`check --input-format jsonl --format
//! jsonl` of the same rows), and the provider × rule tables of both jobs
//! must equal the one counted from the CLI's rows.
//!
//! It needs `python/.venv` with the wheel, pyarrow, ray and pyspark, and a
//! Java runtime (`.ci/run` installs them). Without them it says plainly
//! that it did not run; with `CI=true` that is a failure.

mod common;
use assert_cmd::cargo::cargo_bin;
use common::root;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const ROWS: usize = 20_000;

const HOW: &str = "python/.venv with the wheel and python/requirements-scale.txt, and java \
    (.ci/run installs them: default-jre-headless, then pip install -r python/requirements-scale.txt)";

fn python() -> PathBuf {
    root().join("python/.venv/bin/python")
}

/// Whether the engines can run; says why not when they cannot.
fn ready() -> bool {
    let why = if !python().exists() {
        Some(format!("{} is missing", python().display()))
    } else if Command::new("java").arg("-version").output().is_err() {
        Some("no java on PATH".to_string())
    } else {
        let out = Command::new(python())
            .args(["-c", "import sselint._native, pyarrow, ray, pyspark"])
            .output()
            .expect("python runs");
        (!out.status.success()).then(|| {
            format!(
                "the venv cannot import sselint._native, pyarrow, ray and pyspark: {}",
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            )
        })
    };
    match why {
        None => true,
        Some(w) => {
            common::not_run(
                "the Ray and Spark jobs",
                &format!("it did not run: {w}; it needs {HOW}"),
            );
            false
        }
    }
}

fn run(cmd: &mut Command) -> String {
    let out = cmd
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success() || out.status.code() == Some(1),
        "{cmd:?} exited {:?}:\n{}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The result rows a job wrote (Parquet under `dir`), by id, as JSON.
fn job_rows(dir: &Path) -> BTreeMap<String, Value> {
    let code = "import json, sys, pyarrow.parquet as pq\n\
        t = pq.read_table(sys.argv[1])\n\
        for r in t.drop_columns(['provider']).to_pylist():\n    print(json.dumps(r))\n";
    let text = run(Command::new(python()).args(["-c", code, dir.to_str().unwrap()]));
    text.lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["id"].as_str().unwrap().to_string(), v)
        })
        .collect()
}

fn table(csv: &Path) -> BTreeMap<(String, String), u64> {
    let text = std::fs::read_to_string(csv).unwrap_or_else(|e| panic!("{}: {e}", csv.display()));
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').map(|x| x.trim_matches('"')).collect();
            ((f[0].to_string(), f[1].to_string()), f[2].parse().unwrap())
        })
        .collect()
}

#[test]
fn ray_and_spark_give_the_cli_s_results_row_by_row() {
    if !ready() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("sselint-scale-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("log.parquet");
    let jsonl = dir.join("log.jsonl");
    run(Command::new(python()).args([
        "examples/scale/gateway_log.py",
        &ROWS.to_string(),
        "--parquet",
        log.to_str().unwrap(),
        "--jsonl",
        jsonl.to_str().unwrap(),
    ]));
    // The CLI on the same rows.
    let cli_out = run(Command::new(cargo_bin("sselint")).args([
        "check",
        "--input-format",
        "jsonl",
        "--format",
        "jsonl",
        jsonl.to_str().unwrap(),
    ]));
    let cli: BTreeMap<String, Value> = cli_out
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["id"].as_str().unwrap().to_string(), v)
        })
        .collect();
    assert_eq!(cli.len(), ROWS);
    let dialects: std::collections::BTreeSet<&str> =
        cli.values().filter_map(|v| v["dialect"].as_str()).collect();
    // Every dialect sselint reads over HTTP is in the log. Realtime is a
    // WebSocket API that no HTTP request streams (docs/dialects/realtime.md),
    // so no row of a gateway's HTTP log holds it.
    assert!(
        sselint::dialect::ALL
            .iter()
            .filter(|d| **d != sselint::vocab::Dialect::Realtime)
            .all(|d| dialects.contains(d.name())),
        "{dialects:?}"
    );
    for rule in ["http-status", "content-type", "path-dialect-mismatch"] {
        assert!(
            cli.values()
                .any(|v| v["rules"].as_array().unwrap().iter().any(|r| r == rule)),
            "the log has HTTP facts: {rule}"
        );
    }
    // The providers, from the JSON Lines log (the CLI's rows do not carry it).
    let code = "import json, sys, pyarrow.parquet as pq\n\
        t = pq.read_table(sys.argv[1], columns=['request_id', 'provider'])\n\
        print(json.dumps(dict(zip(t.column(0).to_pylist(), t.column(1).to_pylist()))))\n";
    let providers: BTreeMap<String, String> =
        serde_json::from_str(&run(Command::new(python()).args([
            "-c",
            code,
            log.to_str().unwrap(),
        ])))
        .unwrap();
    let mut want: BTreeMap<(String, String), u64> = BTreeMap::new();
    for (id, v) in &cli {
        for r in v["rules"].as_array().unwrap() {
            *want
                .entry((providers[id].clone(), r.as_str().unwrap().to_string()))
                .or_default() += 1;
        }
    }
    for (job, extra) in [
        ("ray_job.py", ["--num-cpus", "2"]),
        ("spark_job.py", ["--master", "local[2]"]),
    ] {
        let out = dir.join(job.trim_end_matches(".py"));
        run(Command::new(python())
            .arg(format!("examples/scale/{job}"))
            .args([log.to_str().unwrap(), out.to_str().unwrap()])
            .args(extra));
        let rows = job_rows(&out.join("results"));
        assert_eq!(rows.len(), ROWS, "{job}");
        for (id, want_row) in &cli {
            assert_eq!(rows.get(id), Some(want_row), "{job}: row {id}");
        }
        assert_eq!(table(&out.join("provider_rules.csv")), want, "{job}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
