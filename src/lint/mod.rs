//! The lint engine's vocabulary: severities, diagnostics with their
//! locations, the rule catalogue (read from `rules/*.toml`, embedded at
//! build time), provider profiles (`rules/profiles/*.toml`) and the settings
//! that select rules and change severities.
//!
//! It does not look at streams: the checks in `checks` do, and hand their
//! findings to a [`Collector`], which applies selection, severity and the
//! per-rule limit. Nothing here prints.

pub mod catalogue;
pub mod observed;
pub mod profile;

/// Every rule's id ([`RuleId`]), generated from `rules/` by `build.rs`:
/// `rule::CUT_OFF` is `cut-off`.
pub use catalogue::ids as rule;
pub use catalogue::{catalogue, Rule};
pub use profile::{profile, Profile};
// The escape helpers live with the redaction they build on.
pub use crate::capture::{printable, printable_text};

use std::collections::BTreeMap;
use std::fmt;

/// How bad a finding is. Ordered: `Info < Warning < Error`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Legal variation and known extensions; never a CI failure by default.
    Info,
    /// Differs from OpenAI in a way some real clients break on.
    Warning,
    /// A standard client cannot read the answer correctly.
    Error,
}

impl Severity {
    /// The lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    /// Parses `error`, `warning` (or `warn`), `info`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "error" => Some(Severity::Error),
            "warning" | "warn" => Some(Severity::Warning),
            "info" => Some(Severity::Info),
            _ => None,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The `--fail-on` threshold of `check`, `diff`, `record` and `probe`: the
/// least severity that fails a run (clap's values `error`, `warning`,
/// `info`, `never`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    /// Errors fail the run.
    Error,
    /// Warnings and errors.
    Warning,
    /// Any finding.
    Info,
    /// Never fail on findings.
    Never,
}

impl FailOn {
    /// The severity threshold (`None` = never).
    pub fn threshold(self) -> Option<Severity> {
        match self {
            FailOn::Error => Some(Severity::Error),
            FailOn::Warning => Some(Severity::Warning),
            FailOn::Info => Some(Severity::Info),
            FailOn::Never => None,
        }
    }
}

/// The exit code of a run whose worst finding is `worst`: 1 when it
/// reaches `fail_on` (`None`: never), else 0. `check` and `record` share it.
pub fn verdict(fail_on: Option<Severity>, worst: Option<Severity>) -> std::process::ExitCode {
    match (fail_on, worst) {
        (Some(t), Some(w)) if w >= t => std::process::ExitCode::from(1),
        _ => std::process::ExitCode::SUCCESS,
    }
}

/// Where a severity came from, for the human report's note.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "name")]
pub enum SeveritySource {
    /// The rule's default.
    Default,
    /// The rule's second default level for this case (e.g. `line-endings`
    /// is info for CRLF, warning for a lone CR).
    Case,
    /// A profile's severity table.
    Profile(String),
    /// The configuration file.
    Config(String),
    /// A command-line option.
    CommandLine,
}

/// A position in a capture.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Location {
    /// Byte offset in the body (HAR) or the file (raw, `curl -i`).
    pub byte_offset: u64,
    /// Length of the span in bytes (at least 1 where there are bytes).
    pub byte_len: u64,
    /// 1-based line.
    pub line: u64,
    /// 1-based column, in Unicode scalar values.
    pub column: u64,
    /// The line's text (lossy UTF-8, at most [`MAX_SOURCE_LINE`] bytes
    /// around the span), for snippets; `None` when there is no line to show.
    #[serde(skip)]
    pub source: Option<SourceLine>,
}

/// Most bytes kept before a finding's span for its snippet: lines up to
/// this long are shown from their start, so columns stay right.
pub const MAX_SOURCE_LINE: usize = 64 * 1024;

/// An excerpt of one line of the capture.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceLine {
    /// The excerpt.
    pub text: String,
    /// Byte range of the span inside `text`.
    pub span: (usize, usize),
    /// Whether text was cut before / after the excerpt.
    pub cut: (bool, bool),
}

impl Location {
    /// A location inside `line_bytes` (the whole line's content), which
    /// starts at `line_offset` in the body and is line `line`; the span is
    /// `start..end` bytes within the line.
    pub fn in_line(
        line_bytes: &[u8],
        line_offset: u64,
        line: u64,
        start: usize,
        end: usize,
    ) -> Self {
        let start = start.min(line_bytes.len());
        let full_end = end.clamp(start, line_bytes.len());
        // The snippet shows at most the first 4 KiB of a long span (a
        // whole oversized event, say); `byte_len` keeps the real length.
        let end = full_end.min(start + 4096);
        let column = 1 + String::from_utf8_lossy(&line_bytes[..start])
            .chars()
            .count() as u64;
        // Cut long lines around the span, on char boundaries of the lossy
        // text.
        let from = start.saturating_sub(MAX_SOURCE_LINE);
        let to = (end.max(start + 1) + 400).min(line_bytes.len());
        // Secrets in the line (an `Authorization:` header in a dump read as
        // SSE, a `Bearer` token, an `sk-` key) never reach a snippet.
        let before = String::from_utf8_lossy(&line_bytes[from..start]).into_owned();
        let mid = String::from_utf8_lossy(&line_bytes[start..end]).into_owned();
        let after = String::from_utf8_lossy(&line_bytes[end..to.max(end)]).into_owned();
        let whole = format!("{before}{mid}{after}");
        // Redact on the whole excerpt (a header's name and value may fall
        // on both sides of the span); keep the span inside what is left.
        let text = crate::capture::redact_text(&whole);
        let (before, mid) = if text == whole {
            (before, mid)
        } else {
            let b = before.len().min(text.len());
            let m = (before.len() + mid.len()).min(text.len()) - b;
            let b = text.floor_char_boundary(b);
            let m = text.floor_char_boundary(b + m) - b;
            (text[..b].to_string(), text[b..b + m].to_string())
        };
        Location {
            byte_offset: line_offset + start as u64,
            byte_len: (full_end - start) as u64,
            line,
            column,
            source: Some(SourceLine {
                span: (before.len(), before.len() + mid.len()),
                text,
                cut: (from > 0, to < line_bytes.len()),
            }),
        }
    }
}

/// FNV-1a, 64 bits: a small stable hash for fingerprints (stable across
/// runs and platforms, unlike `std`'s hasher).
pub fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in *p {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// A rule of the catalogue, by name. Only the constants `build.rs`
/// generates from the rule files ([`rule`]) make one, so
/// [`Finding::new`] cannot be given a rule that does not exist:
///
/// ```
/// use sselint::lint::{rule, Finding, Location};
/// let f = Finding::new(rule::CUT_OFF, "the stream broke", Location::default());
/// assert_eq!(f.rule, "cut-off");
/// ```
///
/// A misspelt rule is a compile error, as is a bare name:
///
/// ```compile_fail
/// use sselint::lint::{rule, Finding, Location};
/// let f = Finding::new(rule::CUT_OF, "the stream broke", Location::default());
/// ```
///
/// ```compile_fail
/// use sselint::lint::{Finding, Location};
/// let f = Finding::new("cut-off", "the stream broke", Location::default());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RuleId(&'static str);

impl RuleId {
    /// The id of the rule file `name` (the generated constants only).
    pub(crate) const fn of(name: &'static str) -> Self {
        RuleId(name)
    }

    /// The rule's kebab-case name (`cut-off`).
    pub fn name(self) -> &'static str {
        self.0
    }
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    /// The rule's kebab-case name.
    pub rule: &'static str,
    /// The rule's code.
    pub code: &'static str,
    /// The severity after profile, config and command-line changes.
    pub severity: Severity,
    /// What is wrong, in one sentence, naming the offending values.
    pub message: String,
    /// Where.
    #[serde(flatten)]
    pub location: Location,
    /// 0-based index of the dispatched event, if the finding is about one.
    pub event_index: Option<u64>,
    /// JSON pointer inside the event's data, if any.
    pub pointer: Option<String>,
    /// A hint on what to do.
    #[serde(skip)]
    pub help: Option<String>,
    /// Where the severity came from.
    #[serde(skip)]
    pub severity_source: SeveritySource,
    /// A stable fingerprint (16 hex digits) of the rule, the JSON pointer
    /// (indices folded) and the offending event's data — or the message for
    /// stream-level findings — for baselines and SARIF.
    pub fingerprint: String,
    /// Recorded in the baseline: shown, but not counted toward `--fail-on`.
    pub suppressed: bool,
}

/// Which rules run and at which severity.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The active profile.
    pub profile: &'static Profile,
    /// The profile was chosen (`--profile`, `profile` in sselint.toml),
    /// not the default every stream is read with when none is: a choice
    /// of another dialect's profile than a stream's is worth a note, even
    /// when it names the default.
    pub profile_chosen: bool,
    /// Rule name → (severity or `None` for off, source), from config and the
    /// command line; applied after the profile.
    pub overrides: BTreeMap<String, (Option<Severity>, SeveritySource)>,
    /// Most diagnostics of one rule kept per stream; the rest are counted.
    pub per_rule_limit: usize,
    /// Extra fields the user accepts (JSON pointers, `*` = any index), from
    /// `allow-fields` in `sselint.toml`.
    pub allow_fields: Vec<String>,
    /// A gap between events longer than this (milliseconds) is a `stall`.
    pub stall_ms: u64,
    /// The largest event (bytes of its lines) read; larger ones are
    /// `event-too-large` and not read. Bounds memory per stream.
    pub max_event_bytes: usize,
    /// Lint ordinary chunks on the typed fast path (Chat's
    /// `dialect/chat/typed.rs`, and each other dialect's `Checker::fast`);
    /// the findings are the same either way, so this is off only in the
    /// tests that compare the two paths.
    pub typed: bool,
    /// `--dialect`: read every stream as this dialect instead of telling
    /// it from the request URL and the events.
    pub dialect: Option<crate::vocab::Dialect>,
}

/// The `openai` profile. A binary built without it (see [`check_embedded`],
/// which every command runs first) gets an empty stand-in, never a panic.
pub fn default_profile() -> &'static Profile {
    static EMPTY: std::sync::OnceLock<Profile> = std::sync::OnceLock::new();
    profile("openai").unwrap_or_else(|| {
        EMPTY.get_or_init(|| Profile {
            name: "openai".to_string(),
            provider: "OpenAI".to_string(),
            description: String::new(),
            references: Vec::new(),
            extensions: Vec::new(),
            finish_reasons: Vec::new(),
            service_tiers: Vec::new(),
            annotation_pointers: Vec::new(),
            severity: BTreeMap::new(),
            extension_severity: None,
            finish_reason_optional: false,
            hosts: Vec::new(),
            model_prefixes: Vec::new(),
            dialect: crate::vocab::DEFAULT,
            events: Vec::new(),
            dialect_default: true,
        })
    })
}

/// A binary built without its rule catalogue or its default profile
/// ([`check_embedded`]): the message says what is missing and how to get a
/// working binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("this sselint binary was built with {missing} (rules/ was empty or missing when it was built); rebuild it from a checkout that has rules/ (cargo build --release)")]
pub struct EmbeddedError {
    /// What it lacks: `no rule catalogue`, or `no \`openai\` profile`.
    pub missing: &'static str,
}

/// Whether this binary holds its rule catalogue and its default profile.
///
/// # Errors
/// [`EmbeddedError`] naming what is missing.
pub fn check_embedded() -> Result<(), EmbeddedError> {
    embedded_problem(catalogue().rules().count(), profile("openai").is_some())
}

/// What is wrong with an embedded catalogue of `rules` rules, with or
/// without the `openai` profile.
fn embedded_problem(rules: usize, has_openai: bool) -> Result<(), EmbeddedError> {
    let missing = match (rules, has_openai) {
        (0, _) => "no rule catalogue",
        (_, false) => "no `openai` profile",
        _ => return Ok(()),
    };
    Err(EmbeddedError { missing })
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            profile: default_profile(),
            profile_chosen: false,
            overrides: BTreeMap::new(),
            per_rule_limit: 20,
            allow_fields: Vec::new(),
            stall_ms: 10_000,
            max_event_bytes: crate::sse::DEFAULT_MAX_BLOCK_BYTES,
            typed: true,
            dialect: None,
        }
    }
}

impl Settings {
    /// The severity a finding of `rule` gets, given the level the check
    /// chose (`case`, `None` = the rule's default), and where it came from.
    /// `None` when the rule is off.
    pub fn severity(
        &self,
        rule: &Rule,
        case: Option<Severity>,
    ) -> Option<(Severity, SeveritySource)> {
        if let Some((sev, src)) = self.overrides.get(rule.name) {
            return sev.map(|s| (s, src.clone()));
        }
        if let Some(sev) = self.profile.severity.get(rule.name) {
            return sev.map(|s| (s, SeveritySource::Profile(self.profile.name.clone())));
        }
        match case {
            Some(s) if s != rule.severity => Some((s, SeveritySource::Case)),
            _ => Some((rule.severity, SeveritySource::Default)),
        }
    }
}

/// Gathers one stream's findings: drops rules that are off, applies
/// severities, keeps at most the per-rule limit and counts the rest.
#[derive(Debug)]
pub struct Collector<'s> {
    settings: &'s Settings,
    /// The findings kept, in the order found.
    pub diagnostics: Vec<Diagnostic>,
    /// Findings past the per-rule limit, by rule name.
    pub omitted: BTreeMap<&'static str, u64>,
    /// The worst severity among each rule's omitted findings.
    pub omitted_worst: BTreeMap<&'static str, Severity>,
    /// All findings by severity, kept or omitted: (errors, warnings, infos).
    pub counts: (u64, u64, u64),
    kept: BTreeMap<&'static str, usize>,
}

/// A finding as a check reports it, before settings apply.
#[derive(Debug, Clone)]
pub struct Finding {
    /// Rule name (must be in the catalogue).
    pub rule: &'static str,
    /// The check's level for this case, or `None` for the rule's default.
    pub case: Option<Severity>,
    /// The message.
    pub message: String,
    /// Where.
    pub location: Location,
    /// Event index.
    pub event_index: Option<u64>,
    /// JSON pointer.
    pub pointer: Option<String>,
    /// A hint.
    pub help: Option<String>,
    /// Fingerprint (set by the linter when it reports).
    pub fingerprint: u64,
}

impl Finding {
    /// A finding of `rule` at `location`.
    pub fn new(rule: RuleId, message: impl Into<String>, location: Location) -> Self {
        Finding {
            rule: rule.name(),
            case: None,
            message: message.into(),
            location,
            event_index: None,
            pointer: None,
            help: None,
            fingerprint: 0,
        }
    }

    /// Sets the level for this case.
    pub fn level(mut self, s: Severity) -> Self {
        self.case = Some(s);
        self
    }

    /// Sets the event index.
    pub fn event(mut self, i: Option<u64>) -> Self {
        self.event_index = i;
        self
    }

    /// Sets the JSON pointer.
    pub fn pointer(mut self, p: impl Into<String>) -> Self {
        self.pointer = Some(p.into());
        self
    }

    /// Sets the help line.
    pub fn help(mut self, h: impl Into<String>) -> Self {
        self.help = Some(h.into());
        self
    }
}

impl<'s> Collector<'s> {
    /// An empty collector under `settings`.
    pub fn new(settings: &'s Settings) -> Self {
        Collector {
            settings,
            diagnostics: Vec::new(),
            omitted: BTreeMap::new(),
            omitted_worst: BTreeMap::new(),
            counts: (0, 0, 0),
            kept: BTreeMap::new(),
        }
    }

    /// The settings in force.
    pub fn settings(&self) -> &'s Settings {
        self.settings
    }

    /// Whether findings of `rule` are wanted at all (lets checks skip work).
    pub fn enabled(&self, rule: &str) -> bool {
        catalogue()
            .get(rule)
            .and_then(|r| self.settings.severity(r, None))
            .is_some()
    }

    /// Counts a finding of `rule` at level `case` (`None` = the rule's
    /// default) without building it, when it would not be kept anyway: the
    /// rule is off, or past the per-rule limit (then it is counted as
    /// omitted, as [`Collector::push`] would). Returns `false` when the
    /// finding would be kept: build it and push it.
    ///
    /// # Panics
    /// When `rule` is not in the catalogue (a programming error).
    pub fn count_only(&mut self, rule: &str, case: Option<Severity>) -> bool {
        let rule = catalogue()
            .get(rule)
            .unwrap_or_else(|| panic!("rule {rule} is not in the catalogue"));
        let Some((severity, _)) = self.settings.severity(rule, case) else {
            return true;
        };
        if self.kept.get(rule.name).copied().unwrap_or(0) < self.settings.per_rule_limit {
            return false;
        }
        self.count(rule.name, severity);
        true
    }

    /// Counts one finding; `false` when it is past the per-rule limit (and
    /// counted as omitted).
    fn count(&mut self, rule: &'static str, severity: Severity) -> bool {
        match severity {
            Severity::Error => self.counts.0 += 1,
            Severity::Warning => self.counts.1 += 1,
            Severity::Info => self.counts.2 += 1,
        }
        let kept = self.kept.entry(rule).or_insert(0);
        if *kept >= self.settings.per_rule_limit {
            *self.omitted.entry(rule).or_insert(0) += 1;
            let worst = self.omitted_worst.entry(rule).or_insert(severity);
            *worst = (*worst).max(severity);
            return false;
        }
        *kept += 1;
        true
    }

    /// Gives the kept finding at `index` the level `case` (as a check's
    /// level for its case, so settings and profiles still decide over it)
    /// and adds `; why` to its message: for a finding whose level depends
    /// on something learnt after it was reported (the stream's dialect,
    /// settled by a later event). The counts follow; its fingerprint stays.
    pub fn relevel(&mut self, index: usize, case: Severity, why: &str) {
        let settings = self.settings;
        let Some(d) = self.diagnostics.get_mut(index) else {
            return;
        };
        let Some(rule) = catalogue().get(d.rule) else {
            return;
        };
        let Some((severity, source)) = settings.severity(rule, Some(case)) else {
            return;
        };
        for (s, n) in [(d.severity, -1i64), (severity, 1)] {
            let c = match s {
                Severity::Error => &mut self.counts.0,
                Severity::Warning => &mut self.counts.1,
                Severity::Info => &mut self.counts.2,
            };
            *c = c.saturating_add_signed(n);
        }
        d.severity = severity;
        d.severity_source = source;
        d.message.push_str("; ");
        d.message.push_str(&printable(why));
    }

    /// Records a finding.
    ///
    /// # Panics
    /// When `f.rule` is not in the catalogue: a programming error that the
    /// catalogue test catches.
    pub fn push(&mut self, f: Finding) {
        let rule = catalogue()
            .get(f.rule)
            .unwrap_or_else(|| panic!("rule {} is not in the catalogue", f.rule));
        let Some((severity, source)) = self.settings.severity(rule, f.case) else {
            return;
        };
        if !self.count(rule.name, severity) {
            return;
        }
        self.diagnostics.push(Diagnostic {
            rule: rule.name,
            code: rule.code,
            severity,
            message: printable(&f.message),
            location: f.location,
            event_index: f.event_index,
            pointer: f.pointer,
            help: f.help,
            severity_source: source,
            fingerprint: format!("{:016x}", f.fingerprint),
            suppressed: false,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_without_its_catalogue_or_profile_says_so_instead_of_panicking() {
        let e = embedded_problem(0, true).unwrap_err().to_string();
        assert!(
            e.contains("no rule catalogue") && e.contains("rebuild"),
            "{e}"
        );
        let e = embedded_problem(57, false).unwrap_err().to_string();
        assert!(e.contains("no `openai` profile"), "{e}");
        assert!(embedded_problem(57, true).is_ok());
        assert!(check_embedded().is_ok());
        assert_eq!(default_profile().name, "openai");
        assert_eq!(Settings::default().profile.name, "openai");
    }
}
