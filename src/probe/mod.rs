//! `sselint probe`: a fixed matrix of streaming requests ("scenarios") sent
//! to a live endpoint one at a time, each capture saved as HAR and linted
//! with its request in hand, then judged: pass, fail, unsupported or error.
//!
//! The scenario definitions serve both ends: [`body`] writes the request
//! a scenario sends, and [`classify`] tells which scenario a request body
//! is (what `sselint replay DIR` answers by). Both read the same features
//! (`n`, `tools` with `tool_choice`, `response_format`, a small or large
//! token budget, …), so a capture set keyed by scenario answers the probe.
//!
//! What the catalogue rules cannot see from one stream, because it depends
//! on what the scenario asked for, is judged here under the probe rules
//! ([`PROBE_RULES`], names starting `probe-`): `n: 2` answered with one
//! choice, a forced tool call that produced none or called another tool,
//! a token cut that did not end as one, an answer that ran past its stop sequence, a reply to
//! `response_format` that is not JSON, an invalid request accepted (or
//! answered with a 5xx, or an error that is not JSON), no answer after a
//! client hung up, a stream that outlasts the scenario's time-out or its
//! size limit, and a required scenario refused.
//!
//! What a run gives (verdicts, findings, outcomes, the report card) is in
//! [`crate::card`], which the renderers in `report/probe.rs` read; nothing
//! here prints.

mod run;

pub use run::{run_scenario, short_secrets, Target};

pub use crate::card::{
    probe_rule, Finding, Outcome, ProbeRule, Verdict, MIN_SEARCHED_SECRET, PROBE_RULES,
    SCENARIO_RULES,
};

use crate::dialect::Dialect;
use crate::pipeline::StreamResult;
use serde_json::Value;

pub use crate::dialect::api::{
    Scenario, LENGTH_TOKENS, LENGTH_TOKENS_RESPONSES, LONG_TOKENS, SHORT_TOKENS, STOP_SEQUENCE,
};

/// Every scenario of `dialect`, in the order they run (the reasoning ones
/// included; the caller drops them without `--reasoning`).
pub fn scenarios(dialect: Dialect) -> &'static [Scenario] {
    dialect.api().scenarios()
}

/// The scenario `name` of `dialect`.
pub fn scenario(dialect: Dialect, name: &str) -> Option<Scenario> {
    scenarios(dialect).iter().copied().find(|s| s.name == name)
}

/// The captures a `disconnect` run saves, each as `(file stem, the
/// scenario whose request it answered)`: the first request, `long`'s,
/// which the client hung up on (`disconnect-dropped`), and the follow-up,
/// `plain`'s (`disconnect`). `replay DIR` serves each to that scenario's
/// request where DIR holds no capture of the scenario itself.
pub const DISCONNECT_CAPTURES: [(&str, &str); 2] =
    [("disconnect-dropped", "long"), ("disconnect", "plain")];

/// A budget at or below this is the `length` scenario ([`classify`]).
const LENGTH_MAX: u64 = 16;
/// A budget at or above this is the `long` scenario ([`classify`]).
const LONG_MIN: u64 = 200;

/// The request body scenario `name` of `dialect` sends (`stream: true`
/// included); `None` for an unknown name. `disconnect` sends `long`'s
/// body, then `plain`'s.
pub fn body(dialect: Dialect, name: &str, model: &str) -> Option<Value> {
    let name = if name == "disconnect" { "long" } else { name };
    scenario(dialect, name)?;
    Some(dialect.api().scenario_body(name, model))
}

/// The scenario a request body of `dialect` is, told by the same features
/// [`body`] writes (so a request from another client lands on the nearest
/// one): a body that is not an object, or whose `messages` (`input` for
/// Responses) is neither an array nor (Responses) a string, is `invalid`;
/// then `n` ≥ 2 → `n2`; tools with `tool_choice` `required` and
/// `parallel_tool_calls` → `parallel-tools`; other tools → `tool`;
/// `response_format` (`text.format`) → `json`; reasoning (`thinking`) →
/// `reasoning` (`thinking`); a stop sequence → `stop`; a token budget of
/// at most 16 → `length`; `stream_options.include_usage` → `usage`; a
/// budget of at least 200 → `long`; anything else → `plain`.
pub fn classify(dialect: Dialect, body: &Value) -> &'static str {
    let Some(o) = body.as_object() else {
        return "invalid";
    };
    let api = dialect.api();
    let keys = api.budget_keys();
    let budget_key = keys
        .iter()
        .find(|k| o.contains_key(**k))
        .or(keys.last())
        .copied()
        .unwrap_or("max_tokens");
    let budget = o.get(budget_key).and_then(Value::as_u64);
    if let Some(name) = api.scenario_of(o) {
        return name;
    }
    if budget.is_some_and(|b| b <= LENGTH_MAX) {
        return "length";
    }
    if o.get("stream_options")
        .and_then(|s| s.get("include_usage"))
        .and_then(Value::as_bool)
        == Some(true)
    {
        return "usage";
    }
    if budget.is_some_and(|b| b >= LONG_MIN) {
        return "long";
    }
    "plain"
}

/// The probe rules' findings on the 2xx stream of scenario `name` (the
/// catalogue's come from linting its capture).
pub fn expectations(dialect: Dialect, name: &str, r: &StreamResult) -> Vec<Finding> {
    let mut out = Vec::new();
    let answer = &r.answer;
    let calls: usize = answer.choices.values().map(|c| c.tool_calls.len()).sum();
    match name {
        "n2" => {
            let n = answer.choices.len();
            if n < 2 {
                // In the API's words (Gemini's `candidateCount`, candidates).
                let (asked, choice) = (dialect.api().n2_field(), dialect.words().terms.choice);
                out.push(Finding::probe(
                    "probe-n-ignored",
                    format!("the request asked for {asked} 2 {choice}s; the stream carried {n} ({choice} indexes {:?})", answer.choices.keys().collect::<Vec<_>>()),
                ));
            }
        }
        "tool" | "parallel-tools" if calls == 0 => {
            let how = dialect.api().forced_tool(name);
            let fin = answer
                .choices
                .get(&0)
                .and_then(|c| c.finish_reason.clone())
                .unwrap_or_else(|| "none".to_string());
            out.push(Finding::probe(
                "probe-no-tool-call",
                format!(
                    "{how}, forcing a tool call; the stream carried no tool call (finish: {fin})"
                ),
            ));
        }
        "tool" | "parallel-tools" => {
            // `tool` forces get_weather; `parallel-tools` offers get_weather
            // and get_time.
            let offered: &[&str] = if name == "tool" {
                &["get_weather"]
            } else {
                &["get_weather", "get_time"]
            };
            for c in answer.choices.values().flat_map(|c| c.tool_calls.values()) {
                let Some(called) = c.name.as_deref() else {
                    continue;
                };
                if offered.contains(&called) {
                    continue;
                }
                let asked = if name == "tool" {
                    dialect.api().forced_tool_named().to_string()
                } else {
                    "the request offered the tools get_weather and get_time".to_string()
                };
                out.push(Finding::probe(
                    "probe-wrong-tool",
                    format!(
                        "{asked}; the stream called {:?} (tool call index {})",
                        crate::lint::printable(called),
                        c.index
                    ),
                ));
            }
        }
        "length" => {
            let fin = answer.choices.get(&0).and_then(|c| c.finish_reason.clone());
            let want = dialect.api().cut_finish();
            // A missing finish is the catalogue's (missing-finish-reason,
            // cut-off); only a different one is the probe's.
            if let Some(f) = fin {
                // Gemini's `MAX_TOKENS` is its API's `length`.
                let cut = matches!(f.as_str(), "length" | "max_tokens" | "max_output_tokens")
                    || f.starts_with("incomplete")
                    || dialect
                        .api()
                        .finish_class(&f.to_ascii_lowercase(), &f, false)
                        == "length";
                if !cut {
                    let budget = dialect.api().length_budget();
                    out.push(Finding::probe(
                        "probe-not-cut",
                        format!("the request set {budget} for an answer that needs more; it ended with `{f}`, not {want}"),
                    ));
                }
            }
        }
        "stop" => {
            let text = answer
                .choices
                .get(&0)
                .map(|c| c.text.kept.clone())
                .unwrap_or_default();
            if let Some(at) = text.find(STOP_SEQUENCE) {
                let key = dialect.api().stop_key();
                out.push(Finding::probe(
                    "probe-stop-ignored",
                    format!(
                        "the request set {key} [{STOP_SEQUENCE:?}]; the answer went on past it (at character {}): {}",
                        text[..at].chars().count(),
                        quoted(&text)
                    ),
                ));
            }
        }
        "json" => {
            let text = answer
                .choices
                .get(&0)
                .map(|c| c.text.kept.clone())
                .unwrap_or_default();
            if serde_json::from_str::<Value>(text.trim()).is_err() {
                out.push(Finding::probe(
                    "probe-json-invalid",
                    format!(
                        "the request asked for a JSON object; the answer text is not JSON: {}",
                        quoted(&text)
                    ),
                ));
            }
        }
        _ => {}
    }
    out
}

/// The first 80 characters of answer `text`, quoted, its quotes and
/// control characters escaped once (`"One,\ttwo"`), secrets redacted.
fn quoted(text: &str) -> String {
    crate::lint::printable(&format!("{:?}", text.chars().take(80).collect::<String>()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scenario_body_classifies_as_itself() {
        for d in crate::dialect::ALL {
            for s in scenarios(*d) {
                let b = body(*d, s.name, "m").unwrap();
                let want = if s.name == "disconnect" {
                    "long"
                } else {
                    s.name
                };
                assert_eq!(classify(*d, &b), want, "{d} {}: {b}", s.name);
            }
        }
    }

    #[test]
    fn every_probe_rule_name_is_probe_prefixed_and_unique() {
        let mut names: Vec<_> = PROBE_RULES.iter().map(|r| r.name).collect();
        assert!(names.iter().all(|n| n.starts_with("probe-")));
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), PROBE_RULES.len());
    }
}
