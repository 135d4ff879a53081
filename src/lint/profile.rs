//! Provider profiles (`rules/profiles/*.toml`): the fields a provider adds
//! to chunks, the values it sends outside OpenAI's enums, its annotation
//! chunks, and the severities it changes.
//!
//! Every profile's extensions are known to every profile: under the default
//! `openai` profile an extension field is a `vendor-extension` info naming
//! the providers that send it; only under that provider's own profile do
//! its enum values and annotation chunks stop being findings.

use super::catalogue::PROFILE_FILES;
use super::Severity;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// One known extension field.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Extension {
    /// JSON pointer inside a chunk; `*` stands for any array index. Covers
    /// everything below it.
    pub pointer: String,
    /// What the field holds.
    #[serde(default)]
    pub note: String,
}

/// A provider profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// File stem (`groq`).
    pub name: String,
    /// Display name (`Groq`).
    pub provider: String,
    /// What the profile is for.
    pub description: String,
    /// Evidence.
    pub references: Vec<String>,
    /// Extension fields this provider adds.
    pub extensions: Vec<Extension>,
    /// finish_reason values outside OpenAI's enum that it sends.
    pub finish_reasons: Vec<String>,
    /// service_tier values outside OpenAI's enum that it sends.
    pub service_tiers: Vec<String>,
    /// Pointers that mark a provider annotation chunk.
    pub annotation_pointers: Vec<String>,
    /// Rule name → severity (`None` = off).
    pub severity: BTreeMap<String, Option<Severity>>,
    /// Severity of `vendor-extension` findings (strict: warning).
    pub extension_severity: Option<Severity>,
    /// The provider leaves the `finish_reason` key out of chunks until the
    /// last (xAI, Gemini, LiteLLM): under this profile that is not a
    /// `schema` finding.
    pub finish_reason_optional: bool,
    /// Pieces of the request URL's host (and port) that name this provider
    /// (`api.groq.com`, `:11434`), for telling which provider a capture
    /// looks like.
    pub hosts: Vec<String>,
    /// Prefixes of the `model` value that only this provider uses
    /// (`grok-`), lower case.
    pub model_prefixes: Vec<String>,
    /// The dialect whose streams the profile describes (`dialect = "…"` in
    /// the file; Chat when absent). Extension fields, finish reasons and
    /// hosts are looked up among the profiles of the stream's dialect.
    pub dialect: crate::vocab::Dialect,
    /// Event types outside the dialect's own catalogue that this provider
    /// sends (`events = [...]`; vLLM's `response.reasoning_part.added`).
    pub events: Vec<String>,
    /// It is its dialect's own API as sselint reads every stream of that
    /// dialect when no profile of it is chosen (`dialect_default = true`:
    /// `openai`, `openai-responses`, `anthropic`, `gemini-api`); one per
    /// dialect ([`dialect_default`]).
    pub dialect_default: bool,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ProfileFile {
    name: String,
    provider: String,
    description: String,
    #[serde(default)]
    references: Vec<String>,
    #[serde(default)]
    extensions: Vec<Extension>,
    #[serde(default)]
    finish_reasons: Vec<String>,
    #[serde(default)]
    service_tiers: Vec<String>,
    #[serde(default)]
    annotation_pointers: Vec<String>,
    #[serde(default)]
    severity: BTreeMap<String, String>,
    extension_severity: Option<String>,
    #[serde(default)]
    finish_reason_optional: bool,
    #[serde(default)]
    hosts: Vec<String>,
    #[serde(default)]
    model_prefixes: Vec<String>,
    dialect: Option<String>,
    #[serde(default)]
    events: Vec<String>,
    #[serde(default)]
    dialect_default: bool,
}

/// Whether `pattern` (with `*` for array indices) matches `pointer` or one
/// of its ancestors.
pub fn pointer_covers(pattern: &str, pointer: &str) -> bool {
    let mut p = pattern.split('/');
    let mut q = pointer.split('/');
    loop {
        match (p.next(), q.next()) {
            (None, _) => return true,
            (Some(_), None) => return false,
            (Some(a), Some(b)) => {
                if a != b && !(a == "*" && b.bytes().all(|c| c.is_ascii_digit())) {
                    return false;
                }
            }
        }
    }
}

/// Replaces array indices in a pointer by `*` (`/choices/0/delta` →
/// `/choices/*/delta`).
pub fn fold_indices(pointer: &str) -> String {
    pointer
        .split('/')
        .map(|s| {
            if !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()) {
                "*"
            } else {
                s
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// All profiles, sorted by name.
pub fn profiles() -> &'static [Profile] {
    static PROFILES: OnceLock<Vec<Profile>> = OnceLock::new();
    PROFILES.get_or_init(|| {
        PROFILE_FILES
            .iter()
            .map(|(stem, text)| {
                let f: ProfileFile = toml::from_str(text)
                    .unwrap_or_else(|e| panic!("rules/profiles/{stem}.toml does not parse: {e}"));
                let parse = |s: &str| -> Option<Severity> {
                    if s == "off" {
                        None
                    } else {
                        Some(Severity::parse(s).unwrap_or_else(|| {
                            panic!("rules/profiles/{stem}.toml: bad severity {s}")
                        }))
                    }
                };
                Profile {
                    name: f.name,
                    provider: f.provider,
                    description: f.description,
                    references: f.references,
                    extensions: f.extensions,
                    finish_reasons: f.finish_reasons,
                    service_tiers: f.service_tiers,
                    annotation_pointers: f.annotation_pointers,
                    severity: f
                        .severity
                        .iter()
                        .map(|(k, v)| (k.clone(), parse(v)))
                        .collect(),
                    extension_severity: f.extension_severity.as_deref().and_then(parse),
                    finish_reason_optional: f.finish_reason_optional,
                    hosts: f.hosts,
                    model_prefixes: f.model_prefixes,
                    dialect: match f.dialect.as_deref() {
                        None => crate::vocab::DEFAULT,
                        Some(d) => crate::vocab::Dialect::parse(d).unwrap_or_else(|| {
                            panic!("rules/profiles/{stem}.toml: unknown dialect {d}")
                        }),
                    },
                    events: f.events,
                    dialect_default: f.dialect_default,
                }
            })
            .collect()
    })
}

/// The profile called `name`.
pub fn profile(name: &str) -> Option<&'static Profile> {
    profiles().iter().find(|p| p.name == name)
}

/// The profile that is `dialect`'s own API as sselint reads it when none
/// of its profiles is chosen ([`Profile::dialect_default`]).
pub fn dialect_default(dialect: crate::vocab::Dialect) -> Option<&'static Profile> {
    profiles()
        .iter()
        .find(|p| p.dialect == dialect && p.dialect_default)
}

/// The profile a stream of `dialect` is read under with `chosen` in
/// force: `chosen` where it describes that dialect (or the dialect is
/// unknown), else the dialect's own ([`dialect_default`]): another
/// dialect's profile changes nothing of such a stream (`openai`, the
/// default, on a Gemini stream reads it as `gemini-api` does).
pub fn applied(
    chosen: &'static Profile,
    dialect: Option<crate::vocab::Dialect>,
) -> &'static Profile {
    match dialect {
        Some(d) if chosen.dialect != d => dialect_default(d).unwrap_or(chosen),
        _ => chosen,
    }
}

/// The providers of `dialect` that send a field at `pointer` (indices
/// folded or not), across its profiles, in profile order.
pub fn providers_of(dialect: crate::vocab::Dialect, pointer: &str) -> Vec<&'static Profile> {
    profiles()
        .iter()
        .filter(|p| p.dialect == dialect)
        .filter(|p| {
            p.extensions
                .iter()
                .any(|e| pointer_covers(&e.pointer, pointer))
        })
        .collect()
}

/// The providers of `dialect` that send `value` as a finish_reason.
pub fn providers_of_finish_reason(
    dialect: crate::vocab::Dialect,
    value: &str,
) -> Vec<&'static Profile> {
    profiles()
        .iter()
        .filter(|p| p.dialect == dialect)
        .filter(|p| p.finish_reasons.iter().any(|f| f == value))
        .collect()
}

/// The providers of `dialect` that send `value` as a service_tier.
pub fn providers_of_service_tier(
    dialect: crate::vocab::Dialect,
    value: &str,
) -> Vec<&'static Profile> {
    profiles()
        .iter()
        .filter(|p| p.dialect == dialect)
        .filter(|p| p.service_tiers.iter().any(|f| f == value))
        .collect()
}

/// Joins provider names for messages: "DeepSeek, xAI and vLLM".
pub fn provider_list(ps: &[&Profile]) -> String {
    let names: Vec<&str> = ps.iter().map(|p| p.provider.as_str()).collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_dialect_has_one_default_profile_of_its_own() {
        for d in crate::vocab::ALL {
            let own: Vec<&str> = profiles()
                .iter()
                .filter(|p| p.dialect_default && p.dialect == *d)
                .map(|p| p.name.as_str())
                .collect();
            assert_eq!(own.len(), 1, "{d}: {own:?}");
        }
        assert!(profiles()
            .iter()
            .filter(|p| p.dialect_default)
            .all(|p| p.extensions.is_empty() && p.severity.is_empty()));
        assert_eq!(
            dialect_default(crate::vocab::DEFAULT).map(|p| p.name.as_str()),
            Some("openai")
        );
    }

    #[test]
    fn patterns_cover_descendants_and_wildcard_indices() {
        assert!(pointer_covers("/x_groq", "/x_groq/usage/queue_time"));
        assert!(pointer_covers(
            "/choices/*/delta/reasoning",
            "/choices/3/delta/reasoning"
        ));
        assert!(!pointer_covers(
            "/choices/*/delta/reasoning",
            "/choices/x/delta/reasoning"
        ));
        assert!(!pointer_covers("/usage/cost", "/usage"));
        assert_eq!(fold_indices("/choices/12/delta"), "/choices/*/delta");
    }
}
