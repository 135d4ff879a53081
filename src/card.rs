//! What a probe run gives, as plain data: each scenario's verdict and
//! findings ([`Outcome`]), one endpoint's report card ([`Card`]), and two
//! endpoints' captures compared scenario by scenario ([`ScenarioDiff`]),
//! with the probe's own rules ([`PROBE_RULES`]) the findings name.
//!
//! `probe` fills these in (it sends the requests); `report::probe` renders
//! them; the command line only parses its arguments and calls both. This
//! module sits before `report` so that the renderers may read it, and
//! sends nothing over the network.

use crate::dialect::Dialect;
use crate::lint::Severity;
use std::path::PathBuf;

/// Secrets under this many bytes are masked where the probe writes them
/// (the request's headers and URL in the capture) but not searched for in
/// what the server sends back, nor in the notes and findings made of it:
/// a placeholder key (vLLM's `EMPTY`, `none`, `x`, `data`) would match
/// the stream's own text and change it.
pub const MIN_SEARCHED_SECRET: usize = 8;

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

/// What one scenario gave.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The scenario's name.
    pub name: &'static str,
    /// The verdict.
    pub verdict: Verdict,
    /// The saved capture (HAR), if anything came back.
    pub capture: Option<PathBuf>,
    /// HTTP status of the (last) answer.
    pub status: Option<u16>,
    /// Time to first token: milliseconds from sending the request to the
    /// first event that adds content (text, refusal, reasoning, a tool
    /// call), as `diff` and the HTML page count it; `None` when none came.
    pub ttft_ms: Option<f64>,
    /// Milliseconds from sending the request to the first body byte (a
    /// keep-alive comment counts).
    pub first_byte_ms: Option<f64>,
    /// Milliseconds in all.
    pub total_ms: Option<f64>,
    /// The longest wait between two reads of the body, in milliseconds.
    pub max_gap_ms: Option<f64>,
    /// Findings: the catalogue's on the capture, then the probe rules'.
    pub findings: Vec<Finding>,
    /// Why it is `unsupported` or `error`, or what else to know.
    pub note: Option<String>,
    /// Ctrl-C cut it short.
    pub interrupted: bool,
    /// What the secrets left in a saved body are (`the API key`, `-H
    /// X-Auth`), each once: the server sent them back as the stream's own
    /// text (a field name, `assistant`), where masking them would change
    /// how the capture lints.
    pub unmasked: Vec<String>,
    /// A saved capture's body was withheld: a secret the server echoed
    /// was still in it once masked (see [`crate::probe::WITHHELD`]).
    pub withheld: bool,
}

impl Outcome {
    pub(crate) fn new(name: &'static str) -> Self {
        Outcome {
            name,
            verdict: Verdict::Pass,
            capture: None,
            status: None,
            ttft_ms: None,
            first_byte_ms: None,
            total_ms: None,
            max_gap_ms: None,
            findings: Vec::new(),
            note: None,
            interrupted: false,
            unmasked: Vec::new(),
            withheld: false,
        }
    }

    pub(crate) fn error(name: &'static str, note: String) -> Self {
        Outcome {
            verdict: Verdict::Error,
            note: Some(note),
            ..Outcome::new(name)
        }
    }
}

/// One endpoint's report card.
pub struct Card {
    /// The endpoint, its secrets masked.
    pub endpoint: String,
    /// The API it speaks.
    pub dialect: Dialect,
    /// Where its captures are saved.
    pub dir: PathBuf,
    /// Each scenario run, in order.
    pub outcomes: Vec<Outcome>,
    /// Ctrl-C stopped the run.
    pub interrupted: bool,
    /// The scenarios chosen that did not run (Ctrl-C, or the endpoint
    /// could not be reached).
    pub not_run: Vec<&'static str>,
    /// Why the run on this endpoint stopped early, other than Ctrl-C.
    pub halted: Option<String>,
    /// What the secrets too short to search for in answers are (`the API
    /// key`, `-H Apikey`): see [`crate::probe::short_secrets`].
    pub short_secrets: Vec<String>,
}

/// Per scenario run on both endpoints: the differences `diff` finds
/// between the two captures (or why they were not compared).
pub struct ScenarioDiff {
    /// The scenario.
    pub name: &'static str,
    /// Its verdict on A and on B.
    pub verdicts: (Verdict, Verdict),
    /// What `diff` found between the two captures, timing noise left out.
    pub differences: Vec<crate::diff::Difference>,
    /// Why they were not compared.
    pub note: Option<String>,
}

/// Per scenario run on both cards, the differences between its two
/// captures (or why they were not compared).
pub fn compare_cards(a: &Card, b: &Card, settings: &crate::lint::Settings) -> Vec<ScenarioDiff> {
    let mut out = Vec::new();
    for oa in &a.outcomes {
        let Some(ob) = b.outcomes.iter().find(|o| o.name == oa.name) else {
            continue;
        };
        let mut d = ScenarioDiff {
            name: oa.name,
            verdicts: (oa.verdict, ob.verdict),
            differences: Vec::new(),
            note: None,
        };
        let both_streams = [oa, ob]
            .iter()
            .all(|o| o.status.is_some_and(|s| (200..300).contains(&s)));
        if oa.interrupted || ob.interrupted {
            let side = if oa.interrupted { "A" } else { "B" };
            d.note = Some(format!("not compared: Ctrl-C cut {side}'s stream short"));
            out.push(d);
            continue;
        }
        match (&oa.capture, &ob.capture) {
            (Some(pa), Some(pb)) if both_streams => {
                let opts = crate::capture::Options::default();
                let sides = (
                    crate::diff::read_side(&pa.to_string_lossy(), &opts, settings),
                    crate::diff::read_side(&pb.to_string_lossy(), &opts, settings),
                );
                match sides {
                    (Ok(sa), Ok(sb)) => {
                        let c = crate::diff::compare(
                            &sa,
                            &sb,
                            crate::diff::Options {
                                ignore_text: false,
                                fail_on: Some(Severity::Error),
                            },
                        );
                        d.differences = c.differences;
                        d.differences.retain(|x| !timing_noise(x));
                    }
                    (Err(e), _) | (_, Err(e)) => d.note = Some(e.to_string()),
                }
            }
            _ => {
                d.note = Some(format!(
                    "not compared: A {} ({}), B {} ({})",
                    oa.verdict.name(),
                    http(oa.status),
                    ob.verdict.name(),
                    http(ob.status)
                ))
            }
        }
        out.push(d);
    }
    out
}

/// Timing differences below this many milliseconds are noise (localhost
/// jitter: 10 ms against 13 ms), as are those under [`TIMING_RATIO`].
const TIMING_MIN_MS: f64 = 100.0;
/// A timing difference must also be at least this fraction of the smaller
/// value.
const TIMING_RATIO: f64 = 0.5;

/// Whether a difference is a timing one too small to mean anything: both
/// sides measured ("N ms"), apart by less than [`TIMING_MIN_MS`] or less
/// than [`TIMING_RATIO`] of the smaller.
fn timing_noise(d: &crate::diff::Difference) -> bool {
    if d.section != crate::diff::Section::Timing {
        return false;
    }
    let parse = |v: &str| v.strip_suffix(" ms").and_then(|n| n.parse::<f64>().ok());
    match (parse(&d.a), parse(&d.b)) {
        (Some(x), Some(y)) => {
            let gap = (x - y).abs();
            gap < TIMING_MIN_MS || gap < TIMING_RATIO * x.min(y)
        }
        _ => false,
    }
}

/// `HTTP 200`, or `no response` when none came.
fn http(status: Option<u16>) -> String {
    status.map_or("no response".into(), |s| format!("HTTP {s}"))
}

/// Whether the run on card `c` saved a capture: a scenario's, or the
/// `disconnect-dropped.har` of a `disconnect` run (a file of that name in
/// the directory is this run's: an earlier one is refused or removed
/// before the run).
pub fn saved_any(c: &Card) -> bool {
    c.outcomes.iter().any(|o| {
        o.capture.is_some()
            || (o.name == "disconnect" && c.dir.join("disconnect-dropped.har").is_file())
    })
}

/// How many scenarios of `outcomes` pass, fail, are unsupported and
/// could not run, in that order.
pub fn counts(outcomes: &[Outcome]) -> [usize; 4] {
    let n = |v| outcomes.iter().filter(|o| o.verdict == v).count();
    [
        n(Verdict::Pass),
        n(Verdict::Fail),
        n(Verdict::Unsupported),
        n(Verdict::Error),
    ]
}

/// "interrupted (Ctrl-C); N scenario(s) not run: a, b".
pub fn interrupted_line(c: &Card) -> String {
    if c.not_run.is_empty() {
        "interrupted (Ctrl-C); every scenario chosen had started".to_string()
    } else {
        format!(
            "interrupted (Ctrl-C); {} scenario(s) not run: {}",
            c.not_run.len(),
            c.not_run.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::{Difference, Section};

    fn timing(a: &str, b: &str) -> Difference {
        Difference {
            section: Section::Timing,
            item: "total".into(),
            a: a.into(),
            b: b.into(),
            class: "timing".into(),
        }
    }

    #[test]
    fn timing_jitter_is_no_difference_but_a_real_gap_is() {
        assert!(timing_noise(&timing("10 ms", "13 ms")));
        assert!(timing_noise(&timing("900 ms", "1200 ms")));
        assert!(!timing_noise(&timing("10 ms", "400 ms")));
        assert!(!timing_noise(&timing("—", "13 ms")));
        let mut other = timing("10 ms", "13 ms");
        other.section = Section::Answer;
        assert!(!timing_noise(&other));
    }
}
