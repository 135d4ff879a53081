//! One rule explained: its summary, severity and why, what to send
//! instead, its examples as failing and passing captures, what each client
//! of the harness did with each example (`rules/observed.json`), and its
//! references.
//!
//! Two renderings of the same text: [`Style::Text`] is what `sselint rule
//! NAME` prints on a terminal (examples indented, the observations in a
//! drawn table), [`Style::Markdown`] the rule's page of the book
//! (`docs/rules/NAME.md`, written by `sselint rule NAME --format markdown`
//! and kept fresh by `tests/book.rs`). It renders only: the severities it
//! shows are the catalogue's and the checks' own.
//!
//! It also renders the lists `sselint rules` prints: the catalogue
//! ([`write_catalogue`]) and the profiles, each with its dialect
//! ([`write_profiles`]).

use crate::lint::catalogue::Example;
use crate::lint::{observed, profile, Rule, Severity};
use comfy_table::{presets, ContentArrangement, Table};
use std::io::{self, Write};

/// How a rule is written out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Plain text for a terminal (`sselint rule NAME`).
    Text,
    /// A Markdown page for the book (`docs/rules/NAME.md`).
    Markdown,
}

/// Writes rule `r` in `style`.
///
/// # Errors
/// Only `out`'s write errors.
pub fn write(out: &mut dyn Write, r: &Rule, style: Style) -> io::Result<()> {
    let md = style == Style::Markdown;
    if md {
        writeln!(out, "# {} ({})\n", r.name, r.code)?;
        writeln!(out, "{}\n", r.summary)?;
        writeln!(out, "- group: {}", r.group)?;
        writeln!(out, "- default severity: {}", r.severity)?;
    } else {
        writeln!(out, "{} ({}) — {}", r.name, r.code, r.summary)?;
        writeln!(out, "group: {}; default severity: {}", r.group, r.severity)?;
    }
    let bullet = if md { "- " } else { "" };
    match r.severity_basis {
        Some(why) => writeln!(out, "{bullet}severity basis: {}", why.trim())?,
        None => writeln!(
            out,
            "{bullet}severity basis: what the clients did with the failing examples (below)"
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
        writeln!(
            out,
            "{bullet}profiles that change it: {}",
            changed.join(", ")
        )?;
    }
    writeln!(out, "\n## Why it matters\n\n{}", r.rationale.trim())?;
    writeln!(out, "\n## What to send instead\n\n{}", r.fix.trim())?;
    for ex in r.examples() {
        let head = if ex.valid { "Passes" } else { "Fails" };
        writeln!(out, "\n## {head}: {}\n", ex.note)?;
        if let Some(req) = &ex.request {
            if md {
                writeln!(out, "request: `{req}`\n")?;
            } else {
                writeln!(out, "request: {req}")?;
            }
        }
        write_capture(out, &ex.capture, md)?;
    }
    write_observed(out, r, md)?;
    if !r.references.is_empty() {
        writeln!(out, "\n## References\n")?;
        for x in &r.references {
            writeln!(out, "- {x}")?;
        }
    }
    Ok(())
}

/// An example's bytes: indented on a terminal, fenced in Markdown; a
/// carriage return is shown as `\r` so line endings stay visible. A
/// binary transport's example (AWS event-stream frames) is shown as its
/// frames ([`framed_lines`]), never as raw bytes.
fn write_capture(out: &mut dyn Write, capture: &[u8], md: bool) -> io::Result<()> {
    let framed = framed_lines(capture);
    let text = match &framed {
        Some(lines) => std::borrow::Cow::Owned(lines.join("\n")),
        None => String::from_utf8_lossy(capture),
    };
    let fence = if text.contains("```") { "~~~~" } else { "```" };
    if md {
        writeln!(out, "{fence}text")?;
    }
    for line in text.split_inclusive('\n') {
        let shown = line.replace('\r', "\\r");
        if md {
            write!(out, "{shown}")?;
        } else {
            write!(out, "    {shown}")?;
        }
        if !line.ends_with('\n') {
            writeln!(out)?;
        }
    }
    if md {
        writeln!(out, "{fence}")?;
    }
    Ok(())
}

/// The frames of a capture on a binary transport, one line each (its
/// offset, headers and payload, or why it cannot be read), as a
/// transport's framer reads them; `None` for a text capture (SSE, NDJSON).
fn framed_lines(capture: &[u8]) -> Option<Vec<String>> {
    use crate::transport::{Message, Sink, Transport};
    let t = Transport::of_bytes(capture).filter(|t| t.is_binary())?;
    struct Lines(Vec<String>, &'static str);
    impl Sink for Lines {
        fn message(&mut self, m: &Message<'_>) {
            let headers: Vec<String> = m
                .headers
                .iter()
                .map(|h| format!("{}={}", h.name, h.value))
                .collect();
            let mut line = format!(
                "{} {} at byte {} ({} bytes)",
                self.1, m.index, m.offset, m.len
            );
            if !headers.is_empty() {
                line.push_str(&format!(" [{}]", headers.join(" ")));
            }
            match m.fault {
                Some(f) => line.push_str(&format!(" ! at byte {}: {}", f.at, f.what)),
                None => line.push_str(&format!(" {}", crate::lint::printable(m.data))),
            }
            self.0.push(line);
        }
    }
    let mut framer = t.framer(crate::transport::eventstream::MAX_FRAME)?;
    let mut lines = Lines(Vec::new(), t.message());
    framer.feed(capture, &mut lines);
    framer.finish(&mut lines);
    Some(lines.0)
}

/// The "Observed in clients" section: one row per client, one column per
/// example, each cell what the client did (from `rules/observed.json`).
fn write_observed(out: &mut dyn Write, r: &Rule, md: bool) -> io::Result<()> {
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
            "responses" | observed::SOCKET_DIALECT => "status",
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
         or {}), raised (the exception). Each client is judged against what it does with its \
         dialect's reference stream ({}): what it also does there is how it reads every stream, \
         not what the example's shape does, and the policy does not count it.\n",
        finish.join(" or "),
        {
            let mut refs: Vec<String> = Vec::new();
            for c in &clients {
                let r = format!("`{}`", observed::reference_capture(&c.dialect));
                if !refs.contains(&r) {
                    refs.push(r);
                }
            }
            refs.join(", ")
        }
    )?;
    let mut header = vec!["client".to_string()];
    for (k, _) in &examples {
        let ex = &r.examples()[k - 1];
        header.push(format!("{} {k}", if ex.valid { "passes" } else { "fails" }));
    }
    let rows: Vec<Vec<String>> = clients
        .iter()
        .map(|c| {
            let mut row = vec![if md {
                format!("{} {}", c.name, c.version)
            } else {
                format!("{}\n{}", c.name, c.version)
            }];
            for (_, cap) in &examples {
                row.push(match cap.clients.get(&c.name) {
                    Some(o) => match &o.detail {
                        Some(d) if md => format!("{}: {}", o.verdict.name(), d),
                        Some(d) => format!(
                            "{}: {}",
                            o.verdict.name(),
                            crate::model::shorten_within(d, 70)
                        ),
                        None => o.verdict.name().to_string(),
                    },
                    None => "-".to_string(),
                });
            }
            row
        })
        .collect();
    if md {
        let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
        writeln!(out, "| {} |", header.join(" | "))?;
        writeln!(out, "|{}", "---|".repeat(header.len()))?;
        for row in &rows {
            let cells: Vec<String> = row.iter().map(|c| cell(c)).collect();
            writeln!(out, "| {} |", cells.join(" | "))?;
        }
        writeln!(out)?;
    } else {
        let mut t = Table::new();
        t.load_style(presets::UTF8_FULL_CONDENSED);
        t.set_content_arrangement(ContentArrangement::Dynamic);
        t.set_width(120);
        t.set_header(header);
        for row in rows {
            t.add_row(row);
        }
        writeln!(out, "{t}")?;
    }
    for (k, cap) in &examples {
        let ex = &r.examples()[k - 1];
        if !ex.valid {
            let derived = observed::derived_severity_of(r.name, cap);
            // Where the budget-cut floor, not the clients, set the level,
            // the line says so (every client may have read the cut).
            let floor = if derived > observed::derived_severity(cap) {
                " (a budget cut is a warning in every dialect)"
            } else {
                ""
            };
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
            let bullet = if md { "- " } else { "" };
            writeln!(
                out,
                "{bullet}fails {k} ({}): {}; the policy gives {derived}{floor}{kept}",
                ex.note,
                observed::summary(cap),
            )?;
        }
    }
    Ok(())
}

/// The severity sselint gives rule `r`'s finding on example `ex` under the
/// default settings (the highest, if several), as the tests lint it.
fn reported_severity(r: &Rule, ex: &Example) -> Option<Severity> {
    let mut cap = crate::capture::from_reader(
        "example",
        Box::new(std::io::Cursor::new(ex.capture.clone())),
        &crate::capture::Options::default(),
    )
    .ok()?;
    if let Some(body) = &ex.request {
        for s in &mut cap.streams {
            s.request = Some(crate::capture::Request {
                method: "POST".into(),
                url: "/v1/chat/completions".into(),
                headers: Vec::new(),
                body: Some(body.clone()),
            });
        }
    }
    let mut settings = crate::lint::Settings::default();
    if let Some(n) = ex.max_event_bytes {
        settings.max_event_bytes = n;
    }
    let res = crate::pipeline::lint_capture(cap, &settings, &mut crate::pipeline::NoObserver);
    res.streams
        .iter()
        .flat_map(|s| s.diagnostics.iter())
        .filter(|d| d.rule == r.name)
        .map(|d| d.severity)
        .max()
}

/// "an error", "a warning", "info".
fn with_article(s: Severity) -> String {
    match s.name() {
        "error" => "an error".to_string(),
        "warning" => "a warning".to_string(),
        other => other.to_string(),
    }
}

/// A table in the lists' style, `width` columns wide when given (a pipe),
/// else as wide as the terminal.
fn list_table(width: Option<u16>) -> Table {
    let mut t = Table::new();
    t.load_style(presets::UTF8_FULL_CONDENSED);
    t.set_content_arrangement(ContentArrangement::Dynamic);
    if let Some(w) = width {
        t.set_width(w);
    }
    t
}

/// `sselint rules`: every rule (code, name, group, default severity,
/// summary), then the severity policy wrapped at 100 columns.
///
/// # Errors
/// Only `out`'s write errors.
pub fn write_catalogue(out: &mut dyn Write, width: Option<u16>) -> io::Result<()> {
    let mut t = list_table(width);
    t.set_header(["code", "name", "group", "default", "summary"]);
    for r in crate::lint::catalogue().rules() {
        t.add_row([r.code, r.name, r.group, r.severity.name(), r.summary]);
    }
    writeln!(out, "{t}")?;
    let mut line = String::new();
    writeln!(out)?;
    for word in observed::SEVERITY_POLICY.split(' ') {
        if !line.is_empty() && line.len() + 1 + word.len() > 100 {
            writeln!(out, "{line}")?;
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    writeln!(out, "{line}")
}

/// `sselint rules --profiles`: every profile with the dialect whose
/// streams it describes (a profile applies only to streams of its
/// dialect: `gemini` is Gemini's OpenAI-compatible Chat endpoint,
/// `gemini-api` its own API), its provider, how many extension fields it
/// knows, and what it is for.
///
/// # Errors
/// Only `out`'s write errors.
pub fn write_profiles(out: &mut dyn Write, width: Option<u16>) -> io::Result<()> {
    let mut t = list_table(width);
    t.set_header([
        "profile",
        "dialect",
        "provider",
        "extensions",
        "description",
    ]);
    for p in profile::profiles() {
        t.add_row([
            p.name.clone(),
            p.dialect.name().to_string(),
            p.provider.clone(),
            p.extensions.len().to_string(),
            p.description.clone(),
        ]);
    }
    writeln!(out, "{t}")
}
