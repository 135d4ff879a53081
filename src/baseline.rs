//! Baselines: a file of known findings that do not count toward
//! `--fail-on`, so a CI gate blocks only new ones (ESLint's baseline RFC,
//! Redocly's ignore file). Findings are keyed by file, stream label, rule
//! and fingerprint (rule, JSON pointer, the event's data) — never by line
//! number alone, so edits elsewhere in a capture do not unsuppress them.
//! Findings past the per-rule limit are recorded as a count per rule.

use crate::pipeline::FileResult;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The baseline file's format version.
pub const VERSION: u32 = 1;

/// A baseline file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// Format version (1).
    pub version: u32,
    /// Known findings, sorted.
    pub findings: Vec<Entry>,
    /// Known counts of findings past the per-rule limit, sorted.
    #[serde(default)]
    pub omitted: Vec<Omitted>,
}

/// One known finding.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The input path as given.
    pub file: String,
    /// The stream label.
    pub stream: String,
    /// The rule name.
    pub rule: String,
    /// The finding's fingerprint.
    pub fingerprint: String,
}

/// A known count of omitted findings.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Omitted {
    /// The input path.
    pub file: String,
    /// The stream label.
    pub stream: String,
    /// The rule name.
    pub rule: String,
    /// How many were omitted.
    pub count: u64,
}

/// A stream's key: its label, or the file's key when the label is the path
/// itself (single-stream captures), so spelling the path differently does
/// not matter.
fn stream_key(path: &str, label: &str, file_key: &str) -> String {
    if label == path || label == "<stdin>" {
        file_key.to_string()
    } else {
        label.to_string()
    }
}

/// Why a baseline file could not be loaded ([`Baseline::load`]); the
/// message names the file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The file could not be read.
    #[error("{}: {message}", path.display())]
    Unreadable {
        /// The file.
        path: std::path::PathBuf,
        /// What the system said ([`crate::capture::io_message`]).
        message: String,
    },
    /// Not JSON, or not a baseline's shape.
    #[error("{}: not an sselint baseline ({reason})", path.display())]
    NotBaseline {
        /// The file.
        path: std::path::PathBuf,
        /// What the JSON parser said.
        reason: serde_json::Error,
    },
    /// A baseline of another format version.
    #[error("{}: baseline version {found} is not {VERSION}", path.display())]
    Version {
        /// The file.
        path: std::path::PathBuf,
        /// Its `version`.
        found: u32,
    },
}

impl Baseline {
    /// Records every finding of `files`, their paths relative to `base` (the
    /// baseline file's directory).
    pub fn from_results(files: &[FileResult], base: &Path) -> Self {
        let mut findings = BTreeSet::new();
        let mut omitted = BTreeSet::new();
        for f in files {
            for s in &f.streams {
                let key = crate::config::relative_key(&f.path, base);
                let stream = stream_key(&f.path, &s.label, &key);
                for d in &s.diagnostics {
                    findings.insert(Entry {
                        file: key.clone(),
                        stream: stream.clone(),
                        rule: d.rule.to_string(),
                        fingerprint: d.fingerprint.clone(),
                    });
                }
                for (rule, n) in &s.omitted {
                    omitted.insert(Omitted {
                        file: key.clone(),
                        stream: stream.clone(),
                        rule: rule.to_string(),
                        count: *n,
                    });
                }
            }
        }
        Baseline {
            version: VERSION,
            findings: findings.into_iter().collect(),
            omitted: omitted.into_iter().collect(),
        }
    }

    /// Reads a baseline file.
    ///
    /// # Errors
    /// Unreadable, not JSON, or another version ([`LoadError`], whose
    /// message names the file).
    pub fn load(path: &Path) -> Result<Self, LoadError> {
        let text = std::fs::read_to_string(path).map_err(|e| LoadError::Unreadable {
            path: path.to_path_buf(),
            message: crate::capture::io_message(&e),
        })?;
        let b: Baseline = serde_json::from_str(&text).map_err(|e| LoadError::NotBaseline {
            path: path.to_path_buf(),
            reason: e,
        })?;
        if b.version != VERSION {
            return Err(LoadError::Version {
                path: path.to_path_buf(),
                found: b.version,
            });
        }
        Ok(b)
    }

    /// The file's text (pretty JSON, stable order).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// Marks the findings of `files` that the baseline knows (paths relative to
    /// `base`); returns how many findings it suppressed.
    pub fn apply(&self, files: &mut [FileResult], base: &Path) -> u64 {
        let known: BTreeSet<(&str, &str, &str, &str)> = self
            .findings
            .iter()
            .map(|e| {
                (
                    e.file.as_str(),
                    e.stream.as_str(),
                    e.rule.as_str(),
                    e.fingerprint.as_str(),
                )
            })
            .collect();
        let counts: BTreeMap<(&str, &str, &str), u64> = self
            .omitted
            .iter()
            .map(|o| {
                (
                    (o.file.as_str(), o.stream.as_str(), o.rule.as_str()),
                    o.count,
                )
            })
            .collect();
        let mut n = 0;
        for f in files.iter_mut() {
            let key = crate::config::relative_key(&f.path, base);
            for s in &mut f.streams {
                let stream = stream_key(&f.path, &s.label, &key);
                for d in &mut s.diagnostics {
                    if known.contains(&(
                        key.as_str(),
                        stream.as_str(),
                        d.rule,
                        d.fingerprint.as_str(),
                    )) {
                        d.suppressed = true;
                        n += 1;
                    }
                }
                for (rule, count) in &s.omitted {
                    let k = (key.as_str(), stream.as_str(), *rule);
                    if counts.get(&k).is_some_and(|known| known >= count) {
                        s.omitted_suppressed.push(rule);
                        n += count;
                    }
                }
            }
        }
        n
    }
}
