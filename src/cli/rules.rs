//! `sselint rules` and `sselint rule NAME`: the catalogue as the rule files
//! hold it.

use anyhow::bail;
use comfy_table::{presets, ContentArrangement, Table};
use sselint::lint::{catalogue, observed, profile};
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
    let mut out = std::io::stdout().lock();
    writeln!(out, "{} ({}) — {}", r.name, r.code, r.summary)?;
    writeln!(out, "group: {}; default severity: {}", r.group, r.severity)?;
    match r.severity_basis {
        Some(why) => writeln!(out, "severity basis: {}", why.trim())?,
        None => writeln!(
            out,
            "severity basis: what the clients did with the failing examples (below)"
        )?,
    }
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
    write_observed(&mut out, r)?;
    if !r.references.is_empty() {
        writeln!(out, "\n## References\n")?;
        for x in &r.references {
            writeln!(out, "- {x}")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The "Observed in clients" section: one row per client, one column per
/// example, each cell what the client did (from `rules/observed.json`).
fn write_observed(out: &mut impl Write, r: &sselint::lint::Rule) -> anyhow::Result<()> {
    let rec = observed::record();
    let examples: Vec<_> = (1..=r.examples().len())
        .filter_map(|k| rec.example(r, k).map(|c| (k, c)))
        .collect();
    writeln!(out, "\n## Observed in clients\n")?;
    if examples.is_empty() {
        writeln!(out, "No observations recorded (run clients/run.py).")?;
        return Ok(());
    }
    let caps: Vec<_> = examples.iter().map(|(_, c)| *c).collect();
    let clients = rec.clients_of(&caps);
    // What "finish" is in the examples' dialect(s).
    let mut finish: Vec<&str> = Vec::new();
    for c in &clients {
        let f = match c.dialect.as_str() {
            "responses" => "status",
            "messages" => "stop_reason",
            _ => "finish_reason",
        };
        if !finish.contains(&f) {
            finish.push(f);
        }
    }
    writeln!(
        out,
        "Each example replayed by `sselint replay` to each client of its dialect (clients/README.md); \
         a cell is what the application ended up with: ok (the answer the server meant), \
         diverges (usage or refusal reported otherwise), differs (another text, tool calls \
         or {}), raised (the exception).\n",
        finish.join(" or ")
    )?;
    let mut t = Table::new();
    t.load_style(presets::UTF8_FULL_CONDENSED);
    t.set_content_arrangement(ContentArrangement::Dynamic);
    t.set_width(120);
    let mut header = vec!["client".to_string()];
    for (k, _) in &examples {
        let ex = &r.examples()[k - 1];
        header.push(format!("{} {k}", if ex.valid { "passes" } else { "fails" }));
    }
    t.set_header(header);
    for c in clients {
        let mut row = vec![format!("{}\n{}", c.name, c.version)];
        for (_, cap) in &examples {
            row.push(match cap.clients.get(&c.name) {
                Some(o) => match &o.detail {
                    Some(d) => format!("{}: {}", o.verdict.name(), shorten(d, 70)),
                    None => o.verdict.name().to_string(),
                },
                None => "-".to_string(),
            });
        }
        t.add_row(row);
    }
    writeln!(out, "{t}")?;
    for (k, cap) in &examples {
        let ex = &r.examples()[k - 1];
        if !ex.valid {
            let derived = observed::derived_severity(cap);
            // Where sselint keeps another severity (a severity basis the
            // replays cannot show), the line says so rather than leave
            // the policy's word as the last.
            let kept = match reported_severity(r, ex) {
                Some(s) if s != derived => format!(
                    "; sselint reports {}{}",
                    with_article(s),
                    if r.severity_basis.is_some() {
                        ", for the reason the severity basis gives"
                    } else {
                        ""
                    }
                ),
                _ => String::new(),
            };
            writeln!(
                out,
                "fails {k} ({}): {}; the policy gives {derived}{kept}",
                ex.note,
                observed::summary(cap),
            )?;
        }
    }
    Ok(())
}

/// The severity sselint gives rule `r`'s finding on example `ex` under the
/// default settings (the highest, if several), as the tests lint it.
fn reported_severity(
    r: &sselint::lint::Rule,
    ex: &sselint::lint::catalogue::Example,
) -> Option<sselint::lint::Severity> {
    let mut cap = sselint::capture::from_reader(
        "example",
        Box::new(std::io::Cursor::new(ex.capture.clone())),
        &sselint::capture::Options::default(),
    )
    .ok()?;
    if let Some(body) = &ex.request {
        for s in &mut cap.streams {
            s.request = Some(sselint::capture::Request {
                method: "POST".into(),
                url: "/v1/chat/completions".into(),
                headers: Vec::new(),
                body: Some(body.clone()),
            });
        }
    }
    let mut settings = sselint::lint::Settings::default();
    if let Some(n) = ex.max_event_bytes {
        settings.max_event_bytes = n;
    }
    let res = sselint::pipeline::lint_capture(cap, &settings, &mut sselint::pipeline::NoObserver);
    res.streams
        .iter()
        .flat_map(|s| s.diagnostics.iter())
        .filter(|d| d.rule == r.name)
        .map(|d| d.severity)
        .max()
}

/// "an error", "a warning", "info".
fn with_article(s: sselint::lint::Severity) -> String {
    match s.name() {
        "error" => "an error".to_string(),
        "warning" => "a warning".to_string(),
        other => other.to_string(),
    }
}

fn shorten(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n - 1).collect();
        t.push('…');
        t
    }
}
