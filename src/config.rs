//! `sselint.toml`: the project's settings for `check`, found upward from
//! the working directory or named with `--config`. It chooses the profile,
//! selects and ignores rules, changes severities, allows extra extension
//! fields, sets `fail-on`, and maps path globs to profiles.
//!
//! Mistakes are errors that quote the file (cargo-deny's habit): unknown
//! keys, unknown rule names (with a suggestion), bad severities, unknown
//! profiles, bad globs. This module only builds [`Settings`]; it prints
//! nothing.

use crate::lint::profile::{profile, profiles};
use crate::lint::{catalogue, Settings, Severity, SeveritySource};
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// The file name searched for.
pub const FILE_NAME: &str = "sselint.toml";

/// A commented starting configuration (`sselint init`).
pub const TEMPLATE: &str = r#"# sselint configuration. Command-line flags win over this file.
# Docs: `sselint rules`, `sselint rule NAME`, `sselint rules --profiles`.

# The provider profile: which extension fields, enum values and events are
# normal for the server you lint. `sselint rules --profiles` lists them all:
#   Chat Completions: openai, strict, azure, openrouter, groq, deepseek, vllm, ...
#   Responses:        openai-responses, azure-responses, openrouter-responses, ...
#   Messages:         anthropic, bedrock, vertex-anthropic, litellm-messages, ...
#   Gemini:           gemini-api, vertex-gemini
#   Ollama:           ollama-native
#   Bedrock Converse: bedrock-converse
#   Bedrock Invoke:   bedrock-invoke
#   Realtime:         openai-realtime
# A profile knows the fields of its own dialect only: under `groq`, a
# Messages stream's extension fields are still reported.
profile = "openai"

# Exit 1 when a finding reaches this severity: error | warning | info | never.
fail-on = "error"

# Run only these rules (names, codes or groups); empty means all.
select = []

# Skip these rules (names, codes or groups).
ignore = []

# Extra fields your providers send that you accept: JSON pointers inside an
# event's data (a Chat chunk, a Responses or a Messages event; `*` is any
# array index), e.g. "/choices/*/delta/x_cache" or "/message/x_route".
# Instead of an unknown-field warning, such a field is a `vendor-extension`
# info in a Chat stream, and no finding in a Responses or Messages one.
allow-fields = []

# The largest event read, in bytes (larger ones are `event-too-large`).
# max-event-bytes = 16777216

# Per-rule severity: "error" | "warning" | "info" | "off".
[rules]
# missing-done = "error"
# comment = "off"

# Per-path settings, by glob on the path relative to this file's directory
# (however the path is spelled on the command line): a profile name, or a
# table with `profile` and `ignore`.
[per-path]
# "captures/groq/**" = "groq"
# "captures/azure/**" = { profile = "azure", ignore = ["empty-choices"] }
"#;

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct File {
    profile: Option<Spanned<String>>,
    fail_on: Option<Spanned<String>>,
    #[serde(default)]
    select: Vec<Spanned<String>>,
    #[serde(default)]
    ignore: Vec<Spanned<String>>,
    #[serde(default)]
    allow_fields: Vec<Spanned<String>>,
    max_event_bytes: Option<usize>,
    #[serde(default)]
    rules: BTreeMap<Spanned<String>, Spanned<String>>,
    #[serde(default)]
    per_path: BTreeMap<Spanned<String>, Spanned<toml::Value>>,
}

/// The `fail-on` threshold: `None` = never.
pub type FailOn = Option<Severity>;

/// A loaded configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where it came from (`None`: no file, defaults).
    pub path: Option<PathBuf>,
    /// Profile name.
    pub profile: Option<String>,
    /// `fail-on`, if set.
    pub fail_on: Option<FailOn>,
    /// Rule names selected (resolved from names, codes, groups).
    pub select: Vec<&'static str>,
    /// Rule names ignored.
    pub ignore: Vec<&'static str>,
    /// Allowed extra fields.
    pub allow_fields: Vec<String>,
    /// `max-event-bytes`, if set.
    pub max_event_bytes: Option<usize>,
    /// Rule → severity (`None` = off).
    pub rules: BTreeMap<&'static str, Option<Severity>>,
    /// Glob → (profile, extra ignores), in file order.
    pub per_path: Vec<(globset::GlobMatcher, Option<String>, Vec<&'static str>)>,
}

/// A configuration mistake, with the file and the snippet that shows it.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct ConfigError {
    /// The rendered message (with a snippet when there is a span).
    pub message: String,
}

fn snippet_error(path: &Path, text: &str, span: Range<usize>, msg: &str) -> ConfigError {
    use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};
    let origin = path.display().to_string();
    let report = [Level::ERROR.primary_title(msg.to_string()).element(
        Snippet::source(text)
            .path(origin)
            .fold(true)
            .annotation(AnnotationKind::Primary.span(span)),
    )];
    ConfigError {
        message: Renderer::plain().render(&report),
    }
}

/// A rule name, code, group or dialect that names no rule
/// ([`resolve_rules`]), with the nearest rule name when one is near.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown rule {item:?}{} (`sselint rules` lists names, codes and groups)", suggestion.map(|n| format!("; did you mean `{n}`?")).unwrap_or_default())]
pub struct UnknownRule {
    /// The item as given.
    pub item: String,
    /// The rule name it is nearest to.
    pub suggestion: Option<&'static str>,
}

/// A profile name that names none of `rules/profiles/`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown profile {name:?}; known profiles: {}", known().join(", "))]
pub struct UnknownProfile {
    /// The name as given.
    pub name: String,
}

/// The profiles' names, in catalogue order.
fn known() -> Vec<&'static str> {
    profiles().iter().map(|p| p.name.as_str()).collect()
}

/// Resolves rule names, codes, code prefixes, groups and dialects (`chat`,
/// `responses`, `messages`: that dialect's own rules); an unknown one is an
/// error with a suggestion.
///
/// # Errors
/// The first unknown item ([`UnknownRule`]).
pub fn resolve_rules(items: &[&str]) -> Result<Vec<&'static str>, UnknownRule> {
    let cat = catalogue();
    let mut out = Vec::new();
    for item in items.iter().filter(|i| !i.is_empty()) {
        let lower = item.to_ascii_lowercase();
        if let Some(r) = cat.find(item) {
            out.push(r.name);
        } else if cat.groups().contains(&lower.as_str()) {
            out.extend(cat.rules().filter(|r| r.group == lower).map(|r| r.name));
        } else if let Some(d) = crate::dialect::Dialect::parse(&lower) {
            // A dialect: its own rules (the shared ones have their groups).
            out.extend(cat.rules().filter(|r| r.dialect == Some(d)).map(|r| r.name));
        } else if !cat.by_prefix(item).is_empty() {
            out.extend(cat.by_prefix(item).iter().map(|r| r.name));
        } else {
            return Err(UnknownRule {
                item: item.to_string(),
                suggestion: cat.suggest(item),
            });
        }
    }
    Ok(out)
}

/// The directory a file lives in (`.` for a bare name).
pub fn parent_dir(file: &Path) -> PathBuf {
    match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// `path` as seen from `base`: relative when it lies under it, however it
/// was spelled (`captures/a.sse`, `./captures/a.sse`, an absolute path, or
/// from a subdirectory); stdin, URLs and missing files as given.
pub fn relative_key(path: &str, base: &Path) -> String {
    if path == "-" || path.starts_with("http://") || path.starts_with("https://") {
        return path.to_string();
    }
    match (std::fs::canonicalize(path), std::fs::canonicalize(base)) {
        (Ok(p), Ok(b)) => match p.strip_prefix(&b) {
            Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
            Err(_) => p.to_string_lossy().into_owned(),
        },
        _ => path.trim_start_matches("./").to_string(),
    }
}

/// Parses a `fail-on` value.
pub fn parse_fail_on(s: &str) -> Option<FailOn> {
    match s {
        "never" => Some(None),
        other => Severity::parse(other).map(Some),
    }
}

fn check_profile(name: &str) -> Result<(), UnknownProfile> {
    if profile(name).is_some() {
        Ok(())
    } else {
        Err(UnknownProfile {
            name: name.to_string(),
        })
    }
}

impl Config {
    /// No file: everything default.
    pub fn empty() -> Self {
        Config {
            path: None,
            profile: None,
            fail_on: None,
            select: Vec::new(),
            ignore: Vec::new(),
            allow_fields: Vec::new(),
            max_event_bytes: None,
            rules: BTreeMap::new(),
            per_path: Vec::new(),
        }
    }

    /// Finds `sselint.toml` in `dir` or its ancestors.
    pub fn find(dir: &Path) -> Option<PathBuf> {
        dir.ancestors()
            .map(|d| d.join(FILE_NAME))
            .find(|p| p.is_file())
    }

    /// Loads and checks a configuration file.
    ///
    /// # Errors
    /// Unreadable file, TOML errors, unknown keys, unknown rules or
    /// profiles, bad severities or globs — each quoting the file.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            message: format!("{}: {}", path.display(), crate::capture::io_message(&e)),
        })?;
        Self::parse(path, &text)
    }

    /// Parses configuration text (`path` names it in errors).
    ///
    /// # Errors
    /// As [`Config::load`].
    pub fn parse(path: &Path, text: &str) -> Result<Self, ConfigError> {
        let file: File = toml::from_str(text).map_err(|e| match e.span() {
            Some(span) => snippet_error(path, text, span, e.message()),
            None => ConfigError {
                message: format!("{}: {}", path.display(), e.message()),
            },
        })?;
        let err = |s: &Spanned<String>, msg: String| snippet_error(path, text, s.span(), &msg);
        let mut c = Config::empty();
        c.path = Some(path.to_path_buf());
        if let Some(p) = &file.profile {
            check_profile(p.get_ref()).map_err(|m| err(p, m.to_string()))?;
            c.profile = Some(p.get_ref().clone());
        }
        if let Some(f) = &file.fail_on {
            c.fail_on = Some(parse_fail_on(f.get_ref()).ok_or_else(|| {
                err(
                    f,
                    format!(
                        "bad fail-on {:?}: use error, warning, info or never",
                        f.get_ref()
                    ),
                )
            })?);
        }
        let rules_of = |items: &[Spanned<String>]| -> Result<Vec<&'static str>, ConfigError> {
            let mut out = Vec::new();
            for s in items {
                out.extend(
                    resolve_rules(&[s.get_ref().as_str()]).map_err(|m| err(s, m.to_string()))?,
                );
            }
            Ok(out)
        };
        c.select = rules_of(&file.select)?;
        c.ignore = rules_of(&file.ignore)?;
        c.max_event_bytes = file.max_event_bytes;
        for f in &file.allow_fields {
            if !f.get_ref().starts_with('/') {
                return Err(err(
                    f,
                    format!(
                        "allow-fields entries are JSON pointers starting with `/`, not {:?}",
                        f.get_ref()
                    ),
                ));
            }
            c.allow_fields
                .push(crate::lint::profile::fold_indices(f.get_ref()));
        }
        for (k, v) in &file.rules {
            let Some(rule) = catalogue().find(k.get_ref()) else {
                let hint = catalogue()
                    .suggest(k.get_ref())
                    .map(|n| format!("; did you mean `{n}`?"))
                    .unwrap_or_default();
                return Err(err(k, format!("unknown rule {:?}{hint}", k.get_ref())));
            };
            let sev = match v.get_ref().as_str() {
                "off" => None,
                s => Some(Severity::parse(s).ok_or_else(|| {
                    err(
                        v,
                        format!(
                            "bad severity {:?}: use error, warning, info or off",
                            v.get_ref()
                        ),
                    )
                })?),
            };
            c.rules.insert(rule.name, sev);
        }
        for (glob, v) in &file.per_path {
            let matcher = globset::GlobBuilder::new(glob.get_ref())
                .literal_separator(true)
                .build()
                .map_err(|e| err(glob, format!("bad glob: {e}")))?
                .compile_matcher();
            let bad = |msg: String| snippet_error(path, text, v.span(), &msg);
            let (prof, ignore): (Option<String>, Vec<&'static str>) = match v.get_ref() {
                toml::Value::String(p) => (Some(p.clone()), Vec::new()),
                toml::Value::Table(t) => {
                    if let Some(k) = t.keys().find(|k| *k != "profile" && *k != "ignore") {
                        return Err(bad(format!(
                            "unknown key `{k}` in a per-path table; expected `profile` or `ignore`"
                        )));
                    }
                    let prof = match t.get("profile") {
                        None => None,
                        Some(toml::Value::String(p)) => Some(p.clone()),
                        Some(_) => return Err(bad("`profile` must be a string".to_string())),
                    };
                    let names: Vec<&str> = match t.get("ignore") {
                        None => Vec::new(),
                        Some(toml::Value::Array(a)) => a
                            .iter()
                            .map(|x| {
                                x.as_str()
                                    .ok_or_else(|| bad("`ignore` must list rule names".to_string()))
                            })
                            .collect::<Result<_, _>>()?,
                        Some(_) => {
                            return Err(bad("`ignore` must be an array of rule names".to_string()))
                        }
                    };
                    (prof, resolve_rules(&names).map_err(|m| bad(m.to_string()))?)
                }
                _ => {
                    return Err(bad(
                        "a per-path value is a profile name or a table with `profile` and `ignore`"
                            .to_string(),
                    ))
                }
            };
            if let Some(p) = &prof {
                check_profile(p).map_err(|m| bad(m.to_string()))?;
            }
            c.per_path.push((matcher, prof, ignore));
        }
        Ok(c)
    }

    /// Settings for one input path, with command-line values layered on top
    /// (`cli_profile`, `cli_select`, `cli_ignore` win when given).
    pub fn settings_for(
        &self,
        path: &str,
        cli_profile: Option<&str>,
        cli_select: &[&'static str],
        cli_ignore: &[&'static str],
    ) -> Settings {
        let source = SeveritySource::Config(
            self.path
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
        );
        let mut profile_name = self.profile.clone();
        let mut extra_ignore: Vec<&'static str> = Vec::new();
        // Globs are relative to the configuration file's directory.
        let rel_owned = match &self.path {
            Some(cfg) => relative_key(path, &parent_dir(cfg)),
            None => path.trim_start_matches("./").to_string(),
        };
        let rel = rel_owned.as_str();
        for (m, prof, ign) in &self.per_path {
            if m.is_match(rel) {
                if prof.is_some() {
                    profile_name.clone_from(prof);
                }
                extra_ignore.extend(ign.iter().copied());
            }
        }
        if let Some(p) = cli_profile {
            profile_name = Some(p.to_string());
        }
        let mut s = Settings {
            profile: profile(profile_name.as_deref().unwrap_or("openai"))
                .unwrap_or_else(|| Settings::default().profile),
            profile_chosen: profile_name.is_some(),
            ..Settings::default()
        };
        s.allow_fields.clone_from(&self.allow_fields);
        if let Some(n) = self.max_event_bytes {
            s.max_event_bytes = n;
        }
        for (rule, sev) in &self.rules {
            s.overrides.insert(rule.to_string(), (*sev, source.clone()));
        }
        let (select, select_src) = if cli_select.is_empty() {
            (self.select.as_slice(), source.clone())
        } else {
            (cli_select, SeveritySource::CommandLine)
        };
        let (ignore, ignore_src): (Vec<&'static str>, SeveritySource) = if cli_ignore.is_empty() {
            (
                self.ignore.iter().chain(&extra_ignore).copied().collect(),
                source.clone(),
            )
        } else {
            (
                cli_ignore.iter().chain(&extra_ignore).copied().collect(),
                SeveritySource::CommandLine,
            )
        };
        for r in catalogue().rules() {
            if !select.is_empty() && !select.contains(&r.name) {
                s.overrides
                    .insert(r.name.to_string(), (None, select_src.clone()));
            } else if ignore.contains(&r.name) {
                s.overrides
                    .insert(r.name.to_string(), (None, ignore_src.clone()));
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(t: &str) -> Result<Config, String> {
        Config::parse(Path::new("sselint.toml"), t).map_err(|e| e.message)
    }

    #[test]
    fn a_full_config_parses() {
        let c = parse(
            r#"profile = "groq"
fail-on = "warning"
select = ["framing", "E401"]
ignore = ["comment"]
allow-fields = ["/choices/*/delta/mine"]
[rules]
missing-done = "error"
comment = "off"
[per-path]
"captures/azure/**" = { profile = "azure", ignore = ["empty-choices"] }
"captures/x/*.sse" = "xai"
"#,
        )
        .unwrap();
        assert_eq!(c.profile.as_deref(), Some("groq"));
        assert_eq!(c.fail_on, Some(Some(Severity::Warning)));
        assert!(c.select.contains(&"cut-off") && c.select.contains(&"bom"));
        let s = c.settings_for("captures/azure/a/b.sse", None, &[], &[]);
        assert_eq!(s.profile.name, "azure");
        assert!(s
            .overrides
            .get("empty-choices")
            .is_some_and(|o| o.0.is_none()));
        let s = c.settings_for("captures/other.sse", Some("openai"), &[], &[]);
        assert_eq!(s.profile.name, "openai");
    }

    #[test]
    fn mistakes_quote_the_file_and_suggest() {
        let e = parse("[rules]\nmissing-dne = \"error\"\n").unwrap_err();
        assert!(e.contains("did you mean `missing-done`"), "{e}");
        assert!(e.contains("sselint.toml:2:1"), "{e}");
        let e = parse("profil = \"openai\"\n").unwrap_err();
        assert!(e.contains("unknown field `profil`"), "{e}");
        let e = parse("[rules]\ncut-off = \"fatal\"\n").unwrap_err();
        assert!(e.contains("bad severity"), "{e}");
        let e = parse("profile = \"nope\"\n").unwrap_err();
        assert!(e.contains("unknown profile"), "{e}");
    }

    #[test]
    fn the_template_names_real_profiles_of_every_dialect() {
        // The profile lines: `#   Dialect:   name, name, ...`.
        let mut seen = Vec::new();
        for line in TEMPLATE.lines().filter(|l| l.starts_with("#   ")) {
            let (_, names) = line.split_once(':').expect("`#   Dialect: names`");
            for n in names.split(',').map(str::trim).filter(|n| *n != "...") {
                let p = profile(n).unwrap_or_else(|| panic!("the template names no profile {n:?}"));
                seen.push(p.dialect);
            }
        }
        for d in crate::dialect::ALL {
            assert!(seen.contains(d), "the template lists no {d} profile");
        }
    }

    #[test]
    fn the_template_is_a_valid_config() {
        parse(TEMPLATE).unwrap();
    }
}
