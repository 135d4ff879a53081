//! Every integration test, in one test binary: each file beside this one
//! is a module of it (`cargo test --test suite diff::` runs tests/diff.rs).
//! One binary links the library once, where a binary per file linked it
//! 48 times (docs/development.md, "Tests"); its tests run on the
//! harness's threads together, not one file after another.
//!
//! Each module is named with `#[path]`, though the file sits beside this
//! one: a module read through `#[path]` finds its own `mod common;` in
//! tests/common/, as a test binary's root file does, so every file reads
//! the same in the suite as it did alone. A new file in tests/ needs its
//! line here (Cargo.toml's `autotests = false`); `every_test_file_is_in_the_suite`
//! fails until it has one.

// Each file keeps its own `mod common;`, so tests/common is loaded once
// per file (what each file's binary did before); and build_script.rs
// names its module of build.rs after itself. Neither is a fault here.
#![allow(clippy::duplicate_mod, clippy::module_inception)]

#[path = "bedrock_converse.rs"]
mod bedrock_converse;
#[path = "bedrock_invoke.rs"]
mod bedrock_invoke;
#[path = "binary_reports.rs"]
mod binary_reports;
#[path = "book.rs"]
mod book;
#[path = "build_script.rs"]
mod build_script;
#[path = "cases.rs"]
mod cases;
#[path = "catalogue.rs"]
mod catalogue;
#[path = "ci_formats.rs"]
mod ci_formats;
#[path = "claims.rs"]
mod claims;
#[path = "cli.rs"]
mod cli;
#[path = "clients.rs"]
mod clients;
#[path = "convention.rs"]
mod convention;
#[path = "curl_recipes.rs"]
mod curl_recipes;
#[path = "dialects.rs"]
mod dialects;
#[path = "diff.rs"]
mod diff;
#[path = "diff_transports.rs"]
mod diff_transports;
#[path = "findings.rs"]
mod findings;
#[path = "framing.rs"]
mod framing;
#[path = "gemini.rs"]
mod gemini;
#[path = "gemini_gaps.rs"]
mod gemini_gaps;
#[path = "gemini_trial.rs"]
mod gemini_trial;
#[path = "har_errors.rs"]
mod har_errors;
#[path = "har_regions.rs"]
mod har_regions;
#[path = "hostile.rs"]
mod hostile;
#[path = "html.rs"]
mod html;
#[path = "inputs.rs"]
mod inputs;
#[path = "jsonl.rs"]
mod jsonl;
#[path = "layering.rs"]
mod layering;
#[path = "limits.rs"]
mod limits;
#[path = "live.rs"]
mod live;
#[path = "live_timeouts.rs"]
mod live_timeouts;
#[path = "messages.rs"]
mod messages;
#[path = "ollama.rs"]
mod ollama;
#[path = "minimize.rs"]
mod minimize;
#[path = "minimize_sockets.rs"]
mod minimize_sockets;
#[path = "minimize_transports.rs"]
mod minimize_transports;
#[path = "observed.rs"]
mod observed;
#[path = "probe.rs"]
mod probe;
#[path = "probe_servers.rs"]
mod probe_servers;
#[path = "probe_transports.rs"]
mod probe_transports;
#[path = "provider.rs"]
mod provider;
#[path = "proxy.rs"]
mod proxy;
#[path = "python.rs"]
mod python;
#[path = "reading.rs"]
mod reading;
#[path = "real_servers.rs"]
mod real_servers;
#[path = "realtime.rs"]
mod realtime;
#[path = "repeated_answer.rs"]
mod repeated_answer;
#[path = "replay_transports.rs"]
mod replay_transports;
#[path = "responses.rs"]
mod responses;
#[path = "rule_examples.rs"]
mod rule_examples;
#[path = "samples.rs"]
mod samples;
#[path = "scale.rs"]
mod scale;
#[path = "schema_agreement.rs"]
mod schema_agreement;
#[path = "scrub.rs"]
mod scrub;
#[path = "secrets.rs"]
mod secrets;
#[path = "shipping.rs"]
mod shipping;
#[path = "snapshots.rs"]
mod snapshots;
#[path = "sniffing.rs"]
mod sniffing;
#[path = "third_party.rs"]
mod third_party;
#[path = "trial.rs"]
mod trial;
#[path = "trial40.rs"]
mod trial40;
#[path = "typed_path.rs"]
mod typed_path;
#[path = "websocket.rs"]
mod websocket;
#[path = "ws_tools.rs"]
mod ws_tools;

/// Every `*.rs` file in tests/ but this one is a module above: a file left
/// out would never be compiled or run.
#[test]
fn every_test_file_is_in_the_suite() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let suite = include_str!("suite.rs");
    let mut missing = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".rs")
            && name != "suite.rs"
            && !suite.contains(&format!("#[path = \"{name}\"]"))
        {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "tests/suite.rs names no module for {missing:?}: add `#[path = \"NAME.rs\"] mod NAME;` there"
    );
}
