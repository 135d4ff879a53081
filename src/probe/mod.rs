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
//! Nothing here prints; the command line (`cli/probe.rs`) does.

mod run;

pub use run::{run_scenario, short_secrets, Outcome, Target, MIN_SEARCHED_SECRET};

use crate::dialect::Dialect;
use crate::lint::Severity;
use crate::pipeline::StreamResult;
use serde_json::{json, Value};

/// One scenario of a dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scenario {
    /// Stable kebab-case name (`plain`, `n2`, `parallel-tools`, …); also
    /// the capture's file name.
    pub name: &'static str,
    /// What it asks, in a few words (help and reports).
    pub about: &'static str,
    /// A 4xx answer means the endpoint does not offer the feature
    /// (`unsupported`), not that it is broken.
    pub optional: bool,
    /// Sent only with `--reasoning`.
    pub reasoning: bool,
}

const fn sc(name: &'static str, about: &'static str, optional: bool) -> Scenario {
    Scenario {
        name,
        about,
        optional,
        reasoning: false,
    }
}

const CHAT: &[Scenario] = &[
    sc("plain", "a short text answer", false),
    sc(
        "usage",
        "stream_options.include_usage: a usage chunk must come",
        false,
    ),
    sc(
        "length",
        "max_tokens 5: the answer must end with finish_reason length",
        false,
    ),
    sc("stop", "a stop sequence", true),
    sc(
        "tool",
        "one tool call forced by tool_choice: the call must come whole",
        true,
    ),
    sc(
        "parallel-tools",
        "two tools, tool_choice required, parallel_tool_calls",
        true,
    ),
    sc("n2", "n: 2: two choices must come", true),
    sc(
        "json",
        "response_format json_object: the answer must be JSON",
        true,
    ),
    sc(
        "long",
        "a longer answer (max_tokens 256): TTFT and gaps",
        false,
    ),
    Scenario {
        name: "reasoning",
        about: "reasoning_effort low (only with --reasoning)",
        optional: true,
        reasoning: true,
    },
    sc(
        "invalid",
        "an invalid request: must get a non-2xx JSON error, not a stream",
        false,
    ),
    sc(
        "disconnect",
        "the client hangs up mid-stream; the next request must be answered",
        false,
    ),
];

const RESPONSES: &[Scenario] = &[
    sc("plain", "a short text answer", false),
    sc(
        "length",
        "max_output_tokens 16: the response must end incomplete",
        false,
    ),
    sc(
        "tool",
        "one function call forced by tool_choice: the call must come whole",
        true,
    ),
    sc(
        "json",
        "text.format json_object: the answer must be JSON",
        true,
    ),
    sc(
        "long",
        "a longer answer (max_output_tokens 256): TTFT and gaps",
        false,
    ),
    Scenario {
        name: "reasoning",
        about: "reasoning.effort low (only with --reasoning)",
        optional: true,
        reasoning: true,
    },
    sc(
        "invalid",
        "an invalid request: must get a non-2xx JSON error, not a stream",
        false,
    ),
    sc(
        "disconnect",
        "the client hangs up mid-stream; the next request must be answered",
        false,
    ),
];

const MESSAGES: &[Scenario] = &[
    sc("plain", "a short text answer", false),
    sc(
        "length",
        "max_tokens 5: the message must stop with max_tokens",
        false,
    ),
    sc("stop", "stop_sequences", true),
    sc(
        "tool",
        "one tool use forced by tool_choice: the call must come whole",
        true,
    ),
    sc(
        "long",
        "a longer answer (max_tokens 256): TTFT and gaps",
        false,
    ),
    Scenario {
        name: "thinking",
        about: "extended thinking, budget 1024 (only with --reasoning)",
        optional: true,
        reasoning: true,
    },
    sc(
        "invalid",
        "an invalid request: must get a non-2xx JSON error, not a stream",
        false,
    ),
    sc(
        "disconnect",
        "the client hangs up mid-stream; the next request must be answered",
        false,
    ),
];

/// Every scenario of `dialect`, in the order they run (the reasoning ones
/// included; the caller drops them without `--reasoning`).
pub fn scenarios(dialect: Dialect) -> &'static [Scenario] {
    match dialect {
        Dialect::Chat => CHAT,
        Dialect::Responses => RESPONSES,
        Dialect::Messages => MESSAGES,
    }
}

/// The scenario `name` of `dialect`.
pub fn scenario(dialect: Dialect, name: &str) -> Option<Scenario> {
    scenarios(dialect).iter().copied().find(|s| s.name == name)
}

/// Token budget of the `length` scenario (Chat, Messages).
pub const LENGTH_TOKENS: u64 = 5;
/// Token budget of the `length` scenario of Responses (its documented
/// minimum is 16).
pub const LENGTH_TOKENS_RESPONSES: u64 = 16;
/// Token budget of the `long` (and `disconnect`) scenario.
pub const LONG_TOKENS: u64 = 256;
/// Token budget of every other scenario.
pub const SHORT_TOKENS: u64 = 64;
/// A budget at or below this is the `length` scenario ([`classify`]).
const LENGTH_MAX: u64 = 16;
/// A budget at or above this is the `long` scenario ([`classify`]).
const LONG_MIN: u64 = 200;

/// The `stop` scenario's stop sequence; its prompt asks for a list
/// separated by it.
pub const STOP_SEQUENCE: &str = ",";

const PROMPT: &str = "Say hello in one short sentence.";
const LONG_PROMPT: &str = "Count from 1 to 60 in words, separated by commas.";
const TOOL_PROMPT: &str = "What is the weather in Paris?";
const PARALLEL_PROMPT: &str = "What are the weather and the local time in Paris?";
const JSON_PROMPT: &str = "Reply with a JSON object {\"greeting\": \"hello\"} and nothing else.";

fn weather_params() -> Value {
    json!({
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"]
    })
}

/// The request body scenario `name` of `dialect` sends (`stream: true`
/// included); `None` for an unknown name. `disconnect` sends `long`'s
/// body, then `plain`'s.
pub fn body(dialect: Dialect, name: &str, model: &str) -> Option<Value> {
    let name = if name == "disconnect" { "long" } else { name };
    scenario(dialect, name)?;
    Some(match dialect {
        Dialect::Chat => chat_body(name, model),
        Dialect::Responses => responses_body(name, model),
        Dialect::Messages => messages_body(name, model),
    })
}

fn chat_tool(name: &str, about: &str) -> Value {
    json!({"type": "function", "function": {"name": name, "description": about, "parameters": weather_params()}})
}

fn chat_body(name: &str, model: &str) -> Value {
    let user = |text: &str| json!([{"role": "user", "content": text}]);
    let mut b = json!({"model": model, "stream": true, "max_tokens": SHORT_TOKENS, "messages": user(PROMPT)});
    match name {
        "usage" => b["stream_options"] = json!({"include_usage": true}),
        "length" => {
            b["max_tokens"] = json!(LENGTH_TOKENS);
            b["messages"] = user(LONG_PROMPT);
        }
        "stop" => {
            b["messages"] = user(LONG_PROMPT);
            b["stop"] = json!([STOP_SEQUENCE]);
        }
        "tool" => {
            b["messages"] = user(TOOL_PROMPT);
            b["tools"] = json!([chat_tool("get_weather", "The weather in a city")]);
            b["tool_choice"] = json!({"type": "function", "function": {"name": "get_weather"}});
        }
        "parallel-tools" => {
            b["messages"] = user(PARALLEL_PROMPT);
            b["tools"] = json!([
                chat_tool("get_weather", "The weather in a city"),
                chat_tool("get_time", "The local time in a city")
            ]);
            b["tool_choice"] = json!("required");
            b["parallel_tool_calls"] = json!(true);
        }
        "n2" => b["n"] = json!(2),
        "json" => {
            b["messages"] = user(JSON_PROMPT);
            b["response_format"] = json!({"type": "json_object"});
        }
        "long" => {
            b["max_tokens"] = json!(LONG_TOKENS);
            b["messages"] = user(LONG_PROMPT);
        }
        "reasoning" => {
            b["reasoning_effort"] = json!("low");
            b["max_tokens"] = json!(LONG_TOKENS);
        }
        // `messages` must be an array: every Chat server rejects a number.
        "invalid" => b["messages"] = json!(42),
        _ => {}
    }
    b
}

fn responses_body(name: &str, model: &str) -> Value {
    let mut b =
        json!({"model": model, "stream": true, "max_output_tokens": SHORT_TOKENS, "input": PROMPT});
    match name {
        "length" => {
            b["max_output_tokens"] = json!(LENGTH_TOKENS_RESPONSES);
            b["input"] = json!(LONG_PROMPT);
        }
        "tool" => {
            b["input"] = json!(TOOL_PROMPT);
            b["tools"] = json!([{"type": "function", "name": "get_weather", "description": "The weather in a city", "parameters": weather_params()}]);
            b["tool_choice"] = json!({"type": "function", "name": "get_weather"});
        }
        "json" => {
            b["input"] = json!(JSON_PROMPT);
            b["text"] = json!({"format": {"type": "json_object"}});
        }
        "long" => {
            b["max_output_tokens"] = json!(LONG_TOKENS);
            b["input"] = json!(LONG_PROMPT);
        }
        "reasoning" => {
            b["reasoning"] = json!({"effort": "low"});
            b["max_output_tokens"] = json!(LONG_TOKENS);
        }
        "invalid" => b["input"] = json!(42),
        _ => {}
    }
    b
}

fn messages_body(name: &str, model: &str) -> Value {
    let user = |text: &str| json!([{"role": "user", "content": text}]);
    let mut b = json!({"model": model, "stream": true, "max_tokens": SHORT_TOKENS, "messages": user(PROMPT)});
    match name {
        "length" => {
            b["max_tokens"] = json!(LENGTH_TOKENS);
            b["messages"] = user(LONG_PROMPT);
        }
        "stop" => {
            b["messages"] = user(LONG_PROMPT);
            b["stop_sequences"] = json!([STOP_SEQUENCE]);
        }
        "tool" => {
            b["messages"] = user(TOOL_PROMPT);
            b["tools"] = json!([{"name": "get_weather", "description": "The weather in a city", "input_schema": weather_params()}]);
            b["tool_choice"] = json!({"type": "tool", "name": "get_weather"});
        }
        "long" => {
            b["max_tokens"] = json!(LONG_TOKENS);
            b["messages"] = user(LONG_PROMPT);
        }
        // Anthropic: budget_tokens at least 1024, max_tokens above it.
        "thinking" => {
            b["thinking"] = json!({"type": "enabled", "budget_tokens": 1024});
            b["max_tokens"] = json!(1100);
        }
        "invalid" => b["messages"] = json!(42),
        _ => {}
    }
    b
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
    let budget_key = match dialect {
        Dialect::Responses => "max_output_tokens",
        _ if o.contains_key("max_completion_tokens") => "max_completion_tokens",
        _ => "max_tokens",
    };
    let budget = o.get(budget_key).and_then(Value::as_u64);
    let has = |k: &str| o.get(k).is_some_and(|v| !v.is_null());
    let tools = o
        .get("tools")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty());
    match dialect {
        Dialect::Chat => {
            if !o.get("messages").is_some_and(Value::is_array) {
                return "invalid";
            }
            if o.get("n").and_then(Value::as_u64).unwrap_or(1) >= 2 {
                return "n2";
            }
            if tools {
                let required = o.get("tool_choice").and_then(Value::as_str) == Some("required");
                let parallel = o.get("parallel_tool_calls").and_then(Value::as_bool) == Some(true);
                return if required && parallel {
                    "parallel-tools"
                } else {
                    "tool"
                };
            }
            if has("response_format") {
                return "json";
            }
            if has("reasoning_effort") || has("reasoning") {
                return "reasoning";
            }
            if has("stop") {
                return "stop";
            }
        }
        Dialect::Responses => {
            if !o
                .get("input")
                .is_some_and(|i| i.is_array() || i.is_string())
            {
                return "invalid";
            }
            if tools {
                return "tool";
            }
            if o.get("text").is_some_and(|t| t.get("format").is_some()) {
                return "json";
            }
            if has("reasoning") {
                return "reasoning";
            }
        }
        Dialect::Messages => {
            if !o.get("messages").is_some_and(Value::is_array) {
                return "invalid";
            }
            if tools {
                return "tool";
            }
            if o.get("thinking")
                .and_then(|t| t.get("type"))
                .and_then(Value::as_str)
                == Some("enabled")
            {
                return "thinking";
            }
            if has("stop_sequences") {
                return "stop";
            }
        }
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

/// A rule of the probe itself: an expectation of a scenario that no
/// catalogue rule can judge from the stream alone.
#[derive(Debug, Clone, Copy)]
pub struct ProbeRule {
    /// Kebab-case name, `probe-…`.
    pub name: &'static str,
    /// Severity of its findings.
    pub severity: Severity,
    /// What it checks.
    pub doc: &'static str,
}

/// The probe rules, as `probe --help` and the README list them.
pub const PROBE_RULES: &[ProbeRule] = &[
    ProbeRule {
        name: "probe-n-ignored",
        severity: Severity::Error,
        doc: "n2: the request asked for n = 2 and fewer than 2 choices came",
    },
    ProbeRule {
        name: "probe-no-tool-call",
        severity: Severity::Error,
        doc: "tool, parallel-tools: tool_choice forced a call and the stream holds none",
    },
    ProbeRule {
        name: "probe-wrong-tool",
        severity: Severity::Error,
        doc: "tool, parallel-tools: the stream called a tool other than the one tool_choice forced (or one the request did not offer)",
    },
    ProbeRule {
        name: "probe-not-cut",
        severity: Severity::Error,
        doc: "length: the token budget was tiny and the answer ended with another reason (length, max_tokens or incomplete expected)",
    },
    ProbeRule {
        name: "probe-stop-ignored",
        severity: Severity::Error,
        doc: "stop: the answer text holds the stop sequence the request set, so the server did not stop at it",
    },
    ProbeRule {
        name: "probe-json-invalid",
        severity: Severity::Error,
        doc: "json: JSON output was asked and the answer text does not parse as JSON",
    },
    ProbeRule {
        name: "probe-invalid-accepted",
        severity: Severity::Error,
        doc: "invalid: an invalid request got a 2xx answer (a stream) instead of a 4xx error",
    },
    ProbeRule {
        name: "probe-error-not-json",
        severity: Severity::Warning,
        doc: "invalid: the error answer's body is not JSON, which SDKs cannot read",
    },
    ProbeRule {
        name: "probe-no-answer-after-disconnect",
        severity: Severity::Error,
        doc: "disconnect: after the client hung up mid-stream, the next request got no complete answer",
    },
    ProbeRule {
        name: "probe-timeout",
        severity: Severity::Error,
        doc: "the stream did not end within --timeout (per scenario), or went silent that long",
    },
    ProbeRule {
        name: "probe-too-long",
        severity: Severity::Error,
        doc: "the stream went past 4 MiB, where the probe stops reading (every scenario asks for a few hundred tokens at most)",
    },
    ProbeRule {
        name: "probe-http-status",
        severity: Severity::Error,
        doc: "a scenario every endpoint must serve got a non-2xx answer, or the invalid request got one outside 4xx",
    },
];

/// (scenario, catalogue rule): the rule about the feature the scenario
/// asks for, whose findings count as errors in that scenario whatever
/// their default level (`usage-missing` is a warning by default).
pub const SCENARIO_RULES: &[(&str, &str)] = &[("usage", "usage-missing")];

/// The probe rule `name`.
pub fn probe_rule(name: &str) -> Option<&'static ProbeRule> {
    PROBE_RULES.iter().find(|r| r.name == name)
}

/// One finding of a scenario: a catalogue rule's on its capture, or a
/// probe rule's.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    /// The rule's name.
    pub rule: String,
    /// Its severity.
    pub severity: Severity,
    /// What was asked and what came back.
    pub message: String,
}

impl Finding {
    /// A finding of the probe rule `rule` (which must be one of
    /// [`PROBE_RULES`]; an unknown one is an error).
    pub fn probe(rule: &'static str, message: String) -> Self {
        Finding {
            rule: rule.to_string(),
            severity: probe_rule(rule).map_or(Severity::Error, |r| r.severity),
            message,
        }
    }
}

/// A scenario's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// No finding at or above the fail level.
    Pass,
    /// A finding at or above the fail level.
    Fail,
    /// An optional feature answered with a 4xx.
    Unsupported,
    /// The scenario could not be judged: nothing came back (connection
    /// refused, time-out before the response head), the server refused
    /// the probe itself (HTTP 401/403 authentication, 404 wrong URL, 429
    /// rate limit), or Ctrl-C cut it short.
    Error,
}

impl Verdict {
    /// The lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::Unsupported => "unsupported",
            Verdict::Error => "error",
        }
    }
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
                out.push(Finding::probe(
                    "probe-n-ignored",
                    format!("the request asked for n = 2 choices; the stream carried {n} (choice indexes {:?})", answer.choices.keys().collect::<Vec<_>>()),
                ));
            }
        }
        "tool" | "parallel-tools" if calls == 0 => {
            let how = match dialect {
                Dialect::Chat if name == "tool" => "tool_choice named get_weather",
                Dialect::Chat => "tool_choice was required",
                Dialect::Responses => "tool_choice named the function get_weather",
                Dialect::Messages => "tool_choice named the tool get_weather",
            };
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
                    "tool_choice forced the tool get_weather".to_string()
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
            let want = match dialect {
                Dialect::Chat => "length",
                Dialect::Responses => "incomplete (max_output_tokens)",
                Dialect::Messages => "max_tokens",
            };
            // A missing finish is the catalogue's (missing-finish-reason,
            // cut-off); only a different one is the probe's.
            if let Some(f) = fin {
                let cut = matches!(f.as_str(), "length" | "max_tokens" | "max_output_tokens")
                    || f.starts_with("incomplete");
                if !cut {
                    let budget = if dialect == Dialect::Responses {
                        format!("max_output_tokens = {LENGTH_TOKENS_RESPONSES}")
                    } else {
                        format!("a token budget of {LENGTH_TOKENS}")
                    };
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
                let key = if dialect == Dialect::Messages {
                    "stop_sequences"
                } else {
                    "stop"
                };
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
