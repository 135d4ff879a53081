//! Which provider a stream looks like, and so which `--profile` fits it:
//! from the request URL's host where the capture has it (HAR, curl `-v`,
//! `record`), the `model` value, the provider extension fields the chunks
//! carry and the finish_reason values outside OpenAI's set — all matched
//! against the profiles' own data (`hosts`, `model_prefixes`, `extensions`,
//! `finish_reasons` in `rules/profiles/*.toml`).
//!
//! It only names the profile; it never switches to it. The default stays
//! strict OpenAI, so the verdicts do not depend on a guess.

use super::Linter;
use crate::lint::profile::{profiles, providers_of, providers_of_finish_reason};
use std::collections::BTreeMap;

/// The provider a stream looks like.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ProviderGuess {
    /// The profile that fits (`vllm`).
    pub profile: String,
    /// The provider's display name (`vLLM`).
    pub provider: String,
    /// What points at it, most telling first (`host api.groq.com`, `field
    /// /x_groq`, `model grok-3`).
    pub evidence: Vec<String>,
    /// Other profiles the same evidence fits as well (a field two
    /// providers send), by name; empty when the guess is unique.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<String>,
}

/// Host part of a URL (`api.groq.com:443`), lower case; the whole string
/// when it has no scheme.
fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.split(['/', '?', '#'])
        .next()
        .unwrap_or("")
        .rsplit('@')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase()
}

impl Linter<'_> {
    /// The best-supported provider, or `None` when nothing points at one
    /// (or two point equally).
    pub(super) fn guess_provider(&self) -> Option<ProviderGuess> {
        // Weights: a host names the provider outright; a model prefix is
        // strong; an extension field counts in full when one provider sends
        // it and is shared out when several do.
        let mut score: BTreeMap<&str, (f64, Vec<String>)> = BTreeMap::new();
        let mut add = |name: &'static str, w: f64, why: String| {
            let e = score.entry(name).or_insert((0.0, Vec::new()));
            e.0 += w;
            if e.1.len() < 4 {
                e.1.push(why);
            }
        };
        let host = self.ctx.url.as_deref().map(host_of);
        let model = self.hints.model.as_deref().map(str::to_ascii_lowercase);
        let dialect = self.dialect.unwrap_or(crate::dialect::DEFAULT);
        for p in profiles().iter().filter(|p| p.dialect == dialect) {
            if let Some(h) = &host {
                if let Some(pat) = p.hosts.iter().find(|pat| h.contains(pat.as_str())) {
                    let shown = crate::lint::printable(h);
                    // A port (`:8080`) is only a server's default, which
                    // other servers use too: weak evidence, said as such.
                    // Otherwise the pattern matched, when it is not the
                    // whole host (`host x.openai.azure.com (openai.azure.com)`).
                    if let Some(port) = pat.strip_prefix(':') {
                        add(p.name.as_str(), 1.0, format!("its default port {port}"));
                    } else if pat.eq_ignore_ascii_case(h) {
                        add(p.name.as_str(), 10.0, format!("host {shown}"));
                    } else {
                        add(p.name.as_str(), 10.0, format!("host {shown} ({pat})"));
                    }
                }
            }
            if let Some(m) = &model {
                if p.model_prefixes
                    .iter()
                    .any(|pre| m.starts_with(pre.as_str()))
                {
                    let shown = crate::lint::printable(m);
                    add(p.name.as_str(), 2.5, format!("model {shown}"));
                }
            }
        }
        // The fields and finish reasons are looked up among the profiles of
        // the dialect whose checker saw them.
        let seen = self.hints.dialect.unwrap_or(dialect);
        for f in &self.hints.fields {
            let who = providers_of(seen, f);
            let w = 2.0 / who.len().max(1) as f64;
            for p in who {
                add(p.name.as_str(), w, format!("field {f}"));
            }
        }
        for fr in &self.hints.finish_reasons {
            let who = providers_of_finish_reason(seen, fr);
            let w = 2.0 / who.len().max(1) as f64;
            for p in who {
                add(p.name.as_str(), w, format!("finish_reason {fr:?}"));
            }
        }
        score.remove("strict");
        let mut ranked: Vec<(&str, (f64, Vec<String>))> = score.into_iter().collect();
        ranked.sort_by(|a, b| b.1 .0.total_cmp(&a.1 .0).then(a.0.cmp(b.0)));
        let (best, (s, evidence)) = ranked.first()?.clone();
        // Profiles the evidence fits equally well (a field shared by two
        // providers): named together, up to three; more says nothing.
        let also: Vec<String> = ranked[1..]
            .iter()
            .filter(|(_, (s2, _))| (*s2 - s).abs() < 1e-9)
            .map(|(n, _)| n.to_string())
            .collect();
        if s < 1.0 || also.len() > 2 {
            return None;
        }
        let p = crate::lint::profile(best)?;
        Some(ProviderGuess {
            profile: p.name.clone(),
            provider: p.provider.clone(),
            evidence,
            also,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::host_of;

    #[test]
    fn the_host_is_read_from_a_url_with_or_without_a_scheme() {
        assert_eq!(
            host_of("https://API.groq.com/openai/v1/chat/completions"),
            "api.groq.com"
        );
        assert_eq!(
            host_of("http://127.0.0.1:11434/v1/chat/completions"),
            "127.0.0.1:11434"
        );
        assert_eq!(host_of("http://user:pw@example.com/x"), "example.com");
        assert_eq!(host_of("/v1/chat/completions"), "");
    }
}
