//! `sselint rules` and `sselint rule NAME`: the catalogue as the rule files
//! hold it.

use anyhow::bail;
use sselint::lint::catalogue;
use sselint::report::rule;
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
#[command(after_help = "\
Examples:
  sselint rule cut-off                       the rule, its examples, what clients did
  sselint rule E401                          the same rule by its code
  sselint rule cut-off --format markdown     its page of the book (docs/rules/cut-off.md)")]
pub struct RuleArgs {
    /// Rule name (`cut-off`) or code (`E401`).
    name: String,
    /// `human` for a terminal; `markdown` writes the rule's page of the
    /// book (docs/rules/NAME.md).
    #[arg(long, value_enum, default_value = "human")]
    format: RuleFormat,
}

/// `sselint rule --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum RuleFormat {
    Human,
    Markdown,
}

pub fn list(a: ListArgs) -> anyhow::Result<ExitCode> {
    // Piped: wrap at a readable width instead of one very long row.
    let piped = !std::io::IsTerminal::is_terminal(&std::io::stdout());
    let width = piped.then_some(120);
    let mut out = Vec::new();
    if a.profiles {
        rule::write_profiles(&mut out, width)?;
    } else {
        rule::write_catalogue(&mut out, width)?;
    }
    super::write_report(None, &out)
}

pub fn explain(a: RuleArgs) -> anyhow::Result<ExitCode> {
    let cat = catalogue();
    if let Some(r) = sselint::probe::probe_rule(&a.name) {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{} — a rule of `sselint probe`", r.name)?;
        writeln!(out, "default severity: {}", r.severity)?;
        writeln!(out, "\n{}.", r.doc)?;
        writeln!(
            out,
            "\nIt judges a scenario by what its request asked, which one capture alone does not show, so `check` never reports it; `sselint probe --help` lists the scenarios."
        )?;
        return Ok(ExitCode::SUCCESS);
    }
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
    let style = match a.format {
        RuleFormat::Human => rule::Style::Text,
        RuleFormat::Markdown => rule::Style::Markdown,
    };
    let mut out = Vec::new();
    rule::write(&mut out, r, style)?;
    super::write_report(None, &out)
}
