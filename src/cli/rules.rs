//! `sselint rules` and `sselint rule NAME`: the catalogue as the rule files
//! hold it.

use anyhow::bail;
use comfy_table::{presets, ContentArrangement, Table};
use sselint::lint::{catalogue, profile};
use std::io::Write;
use std::process::ExitCode;

/// List the rules (or the profiles).
#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// List the provider profiles instead.
    #[arg(long)]
    profiles: bool,
}

/// Explain one rule.
#[derive(Debug, clap::Args)]
pub struct RuleArgs {
    /// Rule name (`cut-off`) or code (`E401`).
    name: String,
}

pub fn list(a: ListArgs) -> anyhow::Result<ExitCode> {
    let mut t = Table::new();
    t.load_style(presets::UTF8_FULL_CONDENSED);
    t.set_content_arrangement(ContentArrangement::Dynamic);
    if !std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        // Piped: wrap at a readable width instead of one very long row.
        t.set_width(120);
    }
    if a.profiles {
        t.set_header(["profile", "provider", "extensions", "description"]);
        for p in profile::profiles() {
            t.add_row([
                p.name.clone(),
                p.provider.clone(),
                p.extensions.len().to_string(),
                p.description.clone(),
            ]);
        }
    } else {
        t.set_header(["code", "name", "group", "default", "summary"]);
        for r in catalogue().rules() {
            t.add_row([r.code, r.name, r.group, r.severity.name(), r.summary]);
        }
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "{t}")?;
    Ok(ExitCode::SUCCESS)
}

pub fn explain(a: RuleArgs) -> anyhow::Result<ExitCode> {
    let cat = catalogue();
    let Some(r) = cat.find(&a.name) else {
        let hint = cat
            .suggest(&a.name)
            .map(|n| format!("; did you mean `{n}`?"))
            .unwrap_or_default();
        bail!(
            "unknown rule {:?}{hint} (`sselint rules` lists them)",
            a.name
        );
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "{} ({}) — {}", r.name, r.code, r.summary)?;
    writeln!(out, "group: {}; default severity: {}", r.group, r.severity)?;
    let changed: Vec<String> = profile::profiles()
        .iter()
        .filter_map(|p| {
            p.severity
                .get(r.name)
                .map(|s| format!("{}: {}", p.name, s.map_or("off", |s| s.name())))
        })
        .collect();
    if !changed.is_empty() {
        writeln!(out, "profiles that change it: {}", changed.join(", "))?;
    }
    writeln!(out, "\n## Why it matters\n\n{}", r.rationale.trim())?;
    writeln!(out, "\n## What to send instead\n\n{}", r.fix.trim())?;
    for ex in r.examples() {
        let head = if ex.valid { "Passes" } else { "Fails" };
        writeln!(out, "\n## {head}: {}\n", ex.note)?;
        if let Some(req) = &ex.request {
            writeln!(out, "request: {req}")?;
        }
        let text = String::from_utf8_lossy(&ex.capture);
        for line in text.split_inclusive('\n') {
            let shown = line.replace('\r', "\\r");
            write!(out, "    {shown}")?;
            if !line.ends_with('\n') {
                writeln!(out)?;
            }
        }
    }
    if !r.references.is_empty() {
        writeln!(out, "\n## References\n")?;
        for x in &r.references {
            writeln!(out, "- {x}")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
