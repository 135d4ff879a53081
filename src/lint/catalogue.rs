//! The rule catalogue: one TOML file per rule under `rules/DIALECT/`
//! (`transport` for the rules every dialect shares), embedded at build time
//! (see `build.rs`). The files are the single source of a rule's
//! name, code, group, default severity and documentation; `sselint rule
//! NAME` prints them and the example test runs their examples.

use super::Severity;
use std::collections::BTreeMap;
use std::sync::OnceLock;

mod files {
    include!(concat!(env!("OUT_DIR"), "/catalogue.rs"));
}
pub use files::{ids, PROFILE_FILES, RULE_EXAMPLES, RULE_FILES, RULE_HEADS};

/// One example of a rule's docs: a capture that must (invalid) or must not
/// (valid) trigger the rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Example {
    /// Whether the capture is clean as far as this rule goes.
    pub valid: bool,
    /// What the example shows.
    pub note: String,
    /// The capture's bytes.
    pub capture: Vec<u8>,
    /// The request body, when the example depends on it.
    pub request: Option<String>,
    /// A smaller `--max-event-bytes` for the example, when it needs one.
    pub max_event_bytes: Option<usize>,
    /// The text the server meant, when sselint's reconstruction cannot
    /// show it (text sent under a key clients do not read): the client
    /// harness compares the clients' text with this instead.
    pub meant_text: Option<String>,
    /// How many findings of the rule an invalid example gives: 1 unless the
    /// example holds several faults on purpose (`count = N`).
    pub count: usize,
}

/// A rule's metadata and documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// Stable kebab-case name (`data-no-space`).
    pub name: &'static str,
    /// Stable code (`F204`).
    pub code: &'static str,
    /// Family (`framing`).
    pub group: &'static str,
    /// The dialect whose streams the rule judges; `None` for the transport
    /// and framing rules every dialect shares (`rules/transport/`).
    pub dialect: Option<crate::vocab::Dialect>,
    /// The file the rule comes from (`rules/chat/cut-off.toml`).
    pub file: &'static str,
    /// Default severity.
    pub severity: Severity,
    /// One line.
    pub summary: &'static str,
    /// Why it matters.
    pub rationale: &'static str,
    /// What to send instead.
    pub fix: &'static str,
    /// Specs and public reports.
    pub references: Vec<&'static str>,
    /// Why the default severity is not the one the client observations
    /// give (`rules/observed.json`, see [`super::observed`]): a rule whose
    /// effect replaying cannot show (timing, the capture tool, the request),
    /// or whose clients all inherit the server's fault. `None` when the
    /// severity is the observed one, which `tests/observed.rs` checks.
    pub severity_basis: Option<&'static str>,
    /// The rule file's `[[examples]]` tables, parsed on first use: most
    /// runs never need them, and they are most of the catalogue's bytes.
    /// Where in [`RULE_EXAMPLES`]: sliced only when they are parsed, since
    /// even a slice's start is a byte read, which maps in the 64 KiB of
    /// read-only data around it.
    examples_toml: std::ops::Range<usize>,
    examples: OnceLock<Vec<Example>>,
}

impl Rule {
    /// Valid and invalid examples.
    ///
    /// # Panics
    /// When the rule file's examples are malformed: the build ships them,
    /// and the example test parses every one.
    pub fn examples(&self) -> &[Example] {
        self.examples.get_or_init(|| {
            let f: ExamplesFile = toml::from_str(&RULE_EXAMPLES[self.examples_toml.clone()])
                .unwrap_or_else(|e| panic!("{}: examples: {e}", self.file));
            f.examples
                .into_iter()
                .map(|e| Example {
                    valid: e.valid,
                    note: e.note,
                    capture: match (e.capture, e.capture_hex) {
                        (Some(c), _) => c.into_bytes(),
                        (None, Some(h)) => {
                            hex(&h).unwrap_or_else(|e| panic!("{}: capture_hex: {e}", self.file))
                        }
                        (None, None) => Vec::new(),
                    },
                    request: e.request,
                    max_event_bytes: e.max_event_bytes,
                    meant_text: e.meant_text,
                    count: e.count.unwrap_or(1),
                })
                .collect()
        })
    }
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleFile {
    name: String,
    code: String,
    group: String,
    severity: String,
    summary: String,
    rationale: String,
    fix: String,
    #[serde(default)]
    references: Vec<String>,
    severity_basis: Option<String>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ExamplesFile {
    #[serde(default)]
    examples: Vec<ExampleFile>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ExampleFile {
    valid: bool,
    #[serde(default)]
    note: String,
    capture: Option<String>,
    capture_hex: Option<String>,
    request: Option<String>,
    max_event_bytes: Option<usize>,
    meant_text: Option<String>,
    count: Option<usize>,
}

/// All rules, by name and by code.
#[derive(Debug)]
pub struct Catalogue {
    rules: Vec<Rule>,
    by_name: BTreeMap<&'static str, usize>,
    by_code: BTreeMap<&'static str, usize>,
    order: Vec<usize>,
}

/// The groups in pipeline order.
pub const GROUPS: &[&str] = &[
    "transport",
    "socket",
    "framing",
    "payload",
    "lifecycle",
    "ending",
    "envelope",
    "items",
    "choices",
    "delta",
    "text",
    "finish",
    "blocks",
    "deltas",
    "tools",
    "usage",
    "timing",
    "fields",
];

impl Catalogue {
    /// The rule called `name`.
    pub fn get(&self, name: &str) -> Option<&Rule> {
        self.by_name.get(name).map(|&i| &self.rules[i])
    }

    /// The rule called `name_or_code` (name or code, case-insensitive code).
    pub fn find(&self, name_or_code: &str) -> Option<&Rule> {
        self.get(name_or_code)
            .or_else(|| self.get(&name_or_code.to_ascii_lowercase()))
            .or_else(|| {
                self.by_code
                    .get(name_or_code.to_ascii_uppercase().as_str())
                    .map(|&i| &self.rules[i])
            })
    }

    /// Rules whose code starts with `prefix` (`E4` → E401, E402, E403), as
    /// ruff selects by code prefix; empty when `prefix` is not letters and
    /// digits. The letters must be the code's own (`R` → R801…, not the
    /// Responses rules' RS101…; `RS` → RS101…).
    pub fn by_prefix(&self, prefix: &str) -> Vec<&Rule> {
        let p = prefix.to_ascii_uppercase();
        let split = |s: &str| -> (String, String) {
            let letters: String = s.chars().take_while(char::is_ascii_alphabetic).collect();
            let rest = s[letters.len()..].to_string();
            (letters, rest)
        };
        let (letters, digits) = split(&p);
        if letters.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
            return Vec::new();
        }
        self.rules()
            .filter(|r| {
                let (l, d) = split(r.code);
                l == letters && d.starts_with(&digits)
            })
            .collect()
    }

    /// Every rule, in pipeline order of their groups (transport, framing,
    /// payload, ending, envelope, choices, delta, finish, tools, usage,
    /// fields; unknown groups last), then by code.
    pub fn rules(&self) -> impl Iterator<Item = &Rule> {
        self.order.iter().map(|&i| &self.rules[i])
    }

    /// The groups, in code order.
    pub fn groups(&self) -> Vec<&'static str> {
        let mut g: Vec<&'static str> = Vec::new();
        for r in self.rules() {
            if !g.contains(&r.group) {
                g.push(r.group);
            }
        }
        g
    }

    /// The known name or code closest to `s` (for "did you mean").
    pub fn suggest(&self, s: &str) -> Option<&'static str> {
        self.rules
            .iter()
            .map(|r| (edit_distance(&s.to_ascii_lowercase(), r.name), r.name))
            .filter(|(d, _)| *d <= (s.len() / 3).clamp(1, 3))
            .min()
            .map(|(_, n)| n)
    }
}

/// Levenshtein distance (small strings only).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// Hex digits (whitespace ignored) as bytes; an odd count or a pair that is
/// not hex is an error naming it, never silently dropped.
fn hex(s: &str) -> Result<Vec<u8>, String> {
    let clean: Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if !clean.len().is_multiple_of(2) {
        return Err(format!("{} hex digits, an odd count", clean.len()));
    }
    clean
        .chunks(2)
        .enumerate()
        .map(|(i, p)| {
            std::str::from_utf8(p)
                .ok()
                .filter(|t| t.bytes().all(|b| b.is_ascii_hexdigit()))
                .and_then(|t| u8::from_str_radix(t, 16).ok())
                .ok_or_else(|| {
                    format!(
                        "byte {i}: {:?} is not a hex pair",
                        String::from_utf8_lossy(p)
                    )
                })
        })
        .collect()
}

fn load() -> Catalogue {
    let mut rules = Vec::new();
    for (folder, stem, head, examples) in RULE_FILES {
        let file = leak(format!("rules/{folder}/{stem}.toml"));
        let dialect = match *folder {
            "transport" => None,
            d => Some(
                crate::vocab::Dialect::parse(d)
                    .unwrap_or_else(|| panic!("{file}: rules/{d}/ is not a dialect sselint knows")),
            ),
        };
        // The top-level keys (the build split them from the examples, which
        // are parsed when asked for).
        let f: RuleFile = toml::from_str(&RULE_HEADS[head.clone()])
            .unwrap_or_else(|e| panic!("{file} does not parse: {e}"));
        assert_eq!(&f.name, stem, "{file} names another rule");
        let severity = Severity::parse(&f.severity)
            .unwrap_or_else(|| panic!("{file}: bad severity {}", f.severity));
        rules.push(Rule {
            name: leak(f.name),
            code: leak(f.code),
            group: leak(f.group),
            dialect,
            file,
            severity,
            summary: leak(f.summary),
            rationale: leak(f.rationale),
            fix: leak(f.fix),
            references: f.references.into_iter().map(leak).collect(),
            severity_basis: f.severity_basis.map(leak),
            examples_toml: examples.clone(),
            examples: OnceLock::new(),
        });
    }
    let by_name = rules.iter().enumerate().map(|(i, r)| (r.name, i)).collect();
    let by_code = rules.iter().enumerate().map(|(i, r)| (r.code, i)).collect();
    let mut order: Vec<usize> = (0..rules.len()).collect();
    let rank = |g: &str| GROUPS.iter().position(|x| *x == g).unwrap_or(GROUPS.len());
    // The default dialect's (Chat's) rules and the shared ones first, as
    // before the dialects came; then each dialect's, in the registry's
    // order, by group and code.
    let dialect_rank = |r: &Rule| match r.dialect {
        None => 0,
        Some(d) => crate::vocab::ALL
            .iter()
            .filter(|x| **x != crate::vocab::DEFAULT)
            .position(|x| *x == d)
            .map_or(0, |i| i + 1),
    };
    order.sort_by_key(|&i| (dialect_rank(&rules[i]), rank(rules[i].group), rules[i].code));
    Catalogue {
        rules,
        by_name,
        by_code,
        order,
    }
}

/// The catalogue, parsed once.
///
/// # Panics
/// When an embedded rule file is malformed: the build ships them, and the
/// catalogue test parses every one.
pub fn catalogue() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(load)
}

#[cfg(test)]
mod tests {
    use super::{catalogue, hex};

    #[test]
    fn a_code_prefix_matches_the_code_letters_exactly() {
        let names =
            |p: &str| -> Vec<&str> { catalogue().by_prefix(p).iter().map(|r| r.code).collect() };
        let r = names("R");
        assert!(
            !r.is_empty() && r.iter().all(|c| c.starts_with('R') && !c.starts_with("RS")),
            "{r:?}"
        );
        let rs = names("rs1");
        assert!(
            rs.len() >= 20 && rs.iter().all(|c| c.starts_with("RS1")),
            "{rs:?}"
        );
        let e4 = names("E4");
        assert!(
            !e4.is_empty() && e4.iter().all(|c| c.starts_with("E4")),
            "{e4:?}"
        );
        assert!(names("4").is_empty() && names("R-").is_empty());
    }

    #[test]
    fn hex_reads_pairs_and_refuses_bad_ones() {
        assert_eq!(hex("64 61\n0a").unwrap(), b"da\n");
        assert!(hex("6").unwrap_err().contains("odd"));
        let e = hex("64zz0a").unwrap_err();
        assert!(e.contains("byte 1") && e.contains("zz"), "{e}");
        // `from_str_radix` alone would read "+f" as 15.
        assert!(hex("+f").is_err());
    }
}
