//! `sselint check`: lint inputs and report.

use super::{ColorChoice, InputArgs};
use anyhow::{bail, Context as _};
use clap::ValueEnum;
use sselint::lint::{catalogue, profile, Settings, Severity, SeveritySource};
use sselint::pipeline;
use sselint::report::{human::Human, json::Json, Render, Run};
use std::io::{BufWriter, Write};
use std::process::ExitCode;

/// Lint captures and report what a strict client would trip over.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files, directories (every capture inside), or `-` for stdin.
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Provider profile: which extensions and annotation chunks are normal
    /// (`sselint rules --profiles` lists them).
    #[arg(long, default_value = "openai", value_name = "NAME")]
    profile: String,
    /// Run only these rules (names or codes, comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    select: Vec<String>,
    /// Skip these rules (names or codes, comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    ignore: Vec<String>,
    /// Exit 1 when a finding reaches this severity.
    #[arg(long, value_enum, default_value = "error")]
    fail_on: FailOn,
    #[command(flatten)]
    input: InputArgs,
    /// Colour.
    #[arg(long, value_enum, default_value = "auto")]
    color: ColorChoice,
    /// Show info findings too.
    #[arg(short, long)]
    verbose: bool,
    /// Only summary lines.
    #[arg(short, long)]
    quiet: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Human,
    Json,
}

/// The `--fail-on` threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
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
    /// Whether findings up to `worst` fail the run.
    pub fn fails(self, worst: Option<Severity>) -> bool {
        let Some(w) = worst else { return false };
        match self {
            FailOn::Error => w >= Severity::Error,
            FailOn::Warning => w >= Severity::Warning,
            FailOn::Info => true,
            FailOn::Never => false,
        }
    }
}

/// Builds settings from the profile name and --select/--ignore.
pub fn settings(
    profile_name: &str,
    select: &[String],
    ignore: &[String],
) -> anyhow::Result<Settings> {
    let Some(p) = profile::profile(profile_name) else {
        let names: Vec<&str> = profile::profiles()
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        bail!(
            "unknown profile {profile_name:?}; known profiles: {}",
            names.join(", ")
        );
    };
    let mut s = Settings {
        profile: p,
        ..Settings::default()
    };
    let resolve = |items: &[String]| -> anyhow::Result<Vec<&'static str>> {
        let cat = catalogue();
        let mut out = Vec::new();
        for item in items.iter().filter(|i| !i.is_empty()) {
            if let Some(r) = cat.find(item) {
                out.push(r.name);
            } else if cat.groups().contains(&item.as_str()) {
                out.extend(cat.rules().filter(|r| r.group == item).map(|r| r.name));
            } else {
                let hint = cat
                    .suggest(item)
                    .map(|n| format!("; did you mean `{n}`?"))
                    .unwrap_or_default();
                bail!("unknown rule {item:?}{hint} (`sselint rules` lists them)");
            }
        }
        Ok(out)
    };
    let selected = resolve(select)?;
    let ignored = resolve(ignore)?;
    for r in catalogue().rules() {
        let off =
            (!selected.is_empty() && !selected.contains(&r.name)) || ignored.contains(&r.name);
        if off {
            s.overrides
                .insert(r.name.to_string(), (None, SeveritySource::CommandLine));
        }
    }
    Ok(s)
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let settings = settings(&a.profile, &a.select, &a.ignore)?;
    let opts = a.input.options();
    let (files, walk_errors) = sselint::capture::expand(&a.inputs);
    let mut results = Vec::new();
    for e in walk_errors {
        results.push(pipeline::FileResult {
            path: e.path,
            input_format: None,
            detail: "",
            error: Some(e.message),
            streams: Vec::new(),
        });
    }
    if files.is_empty() && results.is_empty() {
        bail!("no capture found in {}", a.inputs.join(", "));
    }
    for f in &files {
        results.push(pipeline::lint_path(f, &opts, &settings));
    }
    let run = Run {
        files: results,
        profile: settings.profile.name.clone(),
    };
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let renderer: Box<dyn Render> = match a.format {
        Format::Json => Box::new(Json),
        Format::Human => Box::new(Human {
            verbose: a.verbose,
            color: a.color.enabled(),
            quiet: a.quiet,
        }),
    };
    renderer
        .render(&run, &mut out)
        .context("writing the report")?;
    out.flush().context("writing the report")?;
    if run.had_input_errors() {
        for f in run.files.iter().filter(|f| f.error.is_some()) {
            eprintln!(
                "sselint: error: {}: {}",
                sselint::report::display_path(&f.path),
                f.error.as_deref().unwrap_or("")
            );
        }
        return Ok(ExitCode::from(2));
    }
    Ok(if a.fail_on.fails(run.worst()) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
