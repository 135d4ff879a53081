//! The book under `docs/` (mdBook): its generated rule pages are what
//! `sselint rule NAME --format markdown` writes today, every page is in
//! `SUMMARY.md`, and no link between its pages, or to a file of the
//! repository, is broken.
//!
//! `SSELINT_BLESS=1 cargo test --test suite book::` writes the generated pages
//! (`docs/rules/NAME.md`, one page per dialect's rules, and the rule list
//! in `SUMMARY.md`) instead of comparing them. `.ci/run` also builds the
//! book with mdBook, which checks what these tests do not (its markup).

mod common;
use common::root;
use sselint::lint::{catalogue, Rule};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const START: &str =
    "<!-- rules:start (written by `SSELINT_BLESS=1 cargo test --test suite book::`) -->";
const END: &str = "<!-- rules:end -->";

fn docs() -> PathBuf {
    root().join("docs")
}

fn bless() -> bool {
    std::env::var_os("SSELINT_BLESS").is_some_and(|v| v == "1")
}

/// The folder a rule's file is in (`transport`, `chat`, …) and that
/// folder's title.
fn folder(r: &Rule) -> (&'static str, &'static str) {
    let f = r.file.split('/').nth(1).unwrap_or("transport");
    let title = match f {
        "transport" => "Transport, framing and timing (every dialect)",
        "chat" => "OpenAI Chat Completions",
        "responses" => "OpenAI Responses",
        "messages" => "Anthropic Messages",
        "gemini" => "Google Gemini",
        "ollama" => "Ollama (native API)",
        "bedrock-converse" => "Amazon Bedrock ConverseStream",
        "bedrock-invoke" => "Amazon Bedrock InvokeModelWithResponseStream",
        "realtime" => "OpenAI Realtime",
        other => panic!("a rule folder the book does not know: {other}"),
    };
    (
        match f {
            "transport" => "transport",
            "chat" => "chat",
            "responses" => "responses",
            "gemini" => "gemini",
            "ollama" => "ollama",
            "bedrock-converse" => "bedrock-converse",
            "bedrock-invoke" => "bedrock-invoke",
            "realtime" => "realtime",
            _ => "messages",
        },
        title,
    )
}

/// Every generated file: path under docs/ → content.
fn generated() -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let mut by_folder: BTreeMap<&str, (&str, Vec<&Rule>)> = BTreeMap::new();
    for r in catalogue().rules() {
        let mut page = Vec::new();
        sselint::report::rule::write(&mut page, r, sselint::report::rule::Style::Markdown).unwrap();
        files.insert(
            format!("rules/{}.md", r.name),
            String::from_utf8(page).unwrap(),
        );
        let (f, title) = folder(r);
        by_folder.entry(f).or_insert((title, Vec::new())).1.push(r);
    }
    let order = [
        "transport",
        "chat",
        "responses",
        "messages",
        "gemini",
        "ollama",
        "bedrock-converse",
        "bedrock-invoke",
        "realtime",
    ];
    let mut summary = String::new();
    for f in order {
        let Some((title, rules)) = by_folder.get(f) else {
            continue;
        };
        let mut page = format!(
            "# {title}\n\nThe rules in `rules/{f}/`, in code order. `sselint rules` lists them all, \
             and `sselint rule NAME` prints each page below.\n\n\
             | code | rule | default | summary |\n|---|---|---|---|\n"
        );
        summary.push_str(&format!("- [{title}](rules/{f}-rules.md)\n"));
        let mut rules = rules.clone();
        rules.sort_by_key(|r| r.code);
        for r in rules {
            page.push_str(&format!(
                "| {} | [{}]({}.md) | {} | {} |\n",
                r.code,
                r.name,
                r.name,
                r.severity,
                r.summary.replace('|', "\\|")
            ));
            summary.push_str(&format!("  - [{}](rules/{}.md)\n", r.name, r.name));
        }
        files.insert(format!("rules/{f}-rules.md"), page);
    }
    let current = std::fs::read_to_string(docs().join("SUMMARY.md")).unwrap();
    let (head, rest) = current
        .split_once(START)
        .expect("SUMMARY.md has the rules:start marker");
    let (_, tail) = rest
        .split_once(END)
        .expect("SUMMARY.md has the rules:end marker");
    files.insert(
        "SUMMARY.md".into(),
        format!("{head}{START}\n{summary}{END}{tail}"),
    );
    files
}

#[test]
fn generated_pages_are_what_sselint_rule_writes() {
    let files = generated();
    let mut stale = Vec::new();
    for (path, want) in &files {
        let p = docs().join(path);
        if std::fs::read_to_string(&p).ok().as_deref() != Some(want.as_str()) {
            if bless() {
                std::fs::write(&p, want).unwrap();
            } else {
                stale.push(path.clone());
            }
        }
    }
    // A page left behind by a rule that was renamed or removed.
    for e in std::fs::read_dir(docs().join("rules")).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        let path = format!("rules/{name}");
        if name != "index.md" && !files.contains_key(&path) {
            if bless() {
                std::fs::remove_file(docs().join(&path)).unwrap();
            } else {
                stale.push(format!("{path} (no such rule)"));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "stale book pages, write them with `SSELINT_BLESS=1 cargo test --test suite book::`: {stale:?}"
    );
}

#[test]
fn a_rule_page_is_the_cli_output() {
    let out = assert_cmd::Command::cargo_bin("sselint")
        .unwrap()
        .args(["rule", "cut-off", "--format", "markdown"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let page = std::fs::read_to_string(docs().join("rules/cut-off.md")).unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), page);
    assert!(page.starts_with("# cut-off (E401)\n"));
    assert!(page.contains("\n## Fails: ") && page.contains("\n## Passes: "));
    assert!(page.contains("\n```text\n"), "examples are fenced");
}

/// Every Markdown file under docs/ (not the build output).
fn pages() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&docs(), &mut out);
    out.sort();
    out
}

/// The anchors mdBook gives a page's headings: lower case, spaces to
/// `-`, punctuation other than `-` and `_` dropped; a repeated one gets
/// `-1`, `-2`.
fn anchors(text: &str) -> Vec<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::new();
    let mut fence = false;
    for line in text.lines() {
        if line.starts_with("```") || line.starts_with("~~~") {
            fence = !fence;
        }
        if fence || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim();
        let slug: String = title
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        let n = seen.entry(slug.clone()).or_insert(0);
        out.push(if *n == 0 {
            slug.clone()
        } else {
            format!("{slug}-{n}")
        });
        *n += 1;
    }
    out
}

/// The targets of a page's inline links `[text](target)`, outside code.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fence = false;
    for line in text.lines() {
        if line.starts_with("```") || line.starts_with("~~~") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        // Inline code spans are not links.
        let plain: String = line.split('`').step_by(2).collect::<Vec<_>>().join("");
        let mut rest = plain.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(j) = after.find(')') else { break };
            out.push(after[..j].to_string());
            rest = &after[j..];
        }
    }
    out
}

#[test]
fn no_link_in_the_book_is_broken() {
    let mut broken = Vec::new();
    let mut all = pages();
    all.push(root().join("README.md"));
    for page in all {
        let text = std::fs::read_to_string(&page).unwrap();
        for link in links(&text) {
            if link.starts_with("http://")
                || link.starts_with("https://")
                || link.starts_with("mailto:")
            {
                continue;
            }
            let (file, anchor) = match link.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (link.as_str(), None),
            };
            let target = if file.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap().join(file)
            };
            let shown = format!("{}: {link}", page.strip_prefix(root()).unwrap().display());
            if !target.exists() {
                broken.push(format!("{shown} (no such file)"));
                continue;
            }
            if let Some(a) = anchor {
                if target.extension().is_some_and(|x| x == "md") {
                    let t = std::fs::read_to_string(&target).unwrap();
                    if !anchors(&t).iter().any(|x| x == a) {
                        broken.push(format!("{shown} (no such heading)"));
                    }
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links in docs/: {broken:#?}");
}

#[test]
fn every_page_is_in_the_summary() {
    let summary = std::fs::read_to_string(docs().join("SUMMARY.md")).unwrap();
    let listed = links(&summary);
    let mut missing = Vec::new();
    for page in pages() {
        let rel = page
            .strip_prefix(docs())
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel == "SUMMARY.md" {
            continue;
        }
        if !listed.contains(&rel) {
            missing.push(rel);
        }
    }
    assert!(
        missing.is_empty(),
        "pages not in docs/SUMMARY.md: {missing:?}"
    );
}

#[test]
fn the_link_checker_finds_a_broken_link_and_heading() {
    // The checker itself, on a page it must reject: a missing file and a
    // missing heading are both found, a code span is not a link.
    let text = "# A page\n\nSee [x](nowhere.md) and `[y](z.md)`.\n\n## Sub part\n";
    assert_eq!(links(text), vec!["nowhere.md".to_string()]);
    assert_eq!(
        anchors(text),
        vec!["a-page".to_string(), "sub-part".to_string()]
    );
    assert_eq!(
        anchors("# Probing an endpoint: `sselint probe`\n# Probing an endpoint: `sselint probe`"),
        vec![
            "probing-an-endpoint-sselint-probe".to_string(),
            "probing-an-endpoint-sselint-probe-1".to_string()
        ]
    );
}

#[test]
fn the_readme_is_short_and_its_quick_start_has_two_commands() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines; the manual is the book"
    );
    let quick = readme
        .split("## Quick start")
        .nth(1)
        .and_then(|t| t.split("```sh\n").nth(1))
        .and_then(|t| t.split("```").next())
        .expect("a Quick start with a sh block");
    assert_eq!(
        quick.lines().collect::<Vec<_>>(),
        [
            "cargo run --release -- check samples/bad/cut-off.sse",
            "cargo test"
        ]
    );
}

/// Each command page and the commands it documents.
const COMMAND_PAGES: &[(&str, &[&str])] = &[
    ("commands/check.md", &["check"]),
    ("commands/inspect.md", &["inspect"]),
    ("commands/diff.md", &["diff"]),
    ("commands/record-and-replay.md", &["record", "replay"]),
    ("commands/probe.md", &["probe"]),
    ("commands/proxy.md", &["proxy"]),
    ("commands/redact.md", &["redact"]),
    ("commands/minimize.md", &["minimize"]),
    (
        "commands/rules.md",
        &["rules", "rule", "init", "completions", "man"],
    ),
];

fn help(args: &[&str]) -> String {
    let out = assert_cmd::Command::cargo_bin("sselint")
        .unwrap()
        .args(args)
        .arg("--help")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "sselint {args:?} --help");
    String::from_utf8(out.stdout).unwrap()
}

/// The long options a `--help` text lists (`--help` and `--version`
/// left out), read from its option sections: an indented line that starts
/// with `--NAME` or `-X, --NAME`, up to the examples.
fn long_options(help: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in help.lines() {
        if line.starts_with("Examples:") {
            break;
        }
        let t = line.trim_start();
        if t.len() == line.len() {
            continue;
        }
        let t = match t.strip_prefix('-') {
            Some(r) if r.len() > 3 && &r[1..3] == ", " => &r[3..],
            _ => t,
        };
        let Some(name) = t.strip_prefix("--") else {
            continue;
        };
        let name: String = name
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        if !name.is_empty() && name != "help" && name != "version" && !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// Whether `text` names `--name` (not as the start of a longer option).
fn names_option(text: &str, name: &str) -> bool {
    let needle = format!("--{name}");
    text.match_indices(&needle).any(|(i, _)| {
        !text[i + needle.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
    })
}

/// The options an options table on a page names: every `--NAME` in the
/// first cell of a table row.
fn table_options(page: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in page.lines() {
        let Some(first) = line.strip_prefix('|').and_then(|r| r.split('|').next()) else {
            continue;
        };
        let mut rest = first;
        while let Some(i) = rest.find("--") {
            let name: String = rest[i + 2..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            if name.starts_with(|c: char| c.is_ascii_alphabetic()) {
                out.push(name.clone());
            }
            rest = &rest[i + 2 + name.len()..];
        }
    }
    out
}

#[test]
fn every_command_page_names_every_option_of_its_help() {
    let mut wrong = Vec::new();
    for (page, commands) in COMMAND_PAGES {
        let text = std::fs::read_to_string(docs().join(page)).unwrap();
        let mut known = Vec::new();
        for c in *commands {
            for o in long_options(&help(&[c])) {
                if !names_option(&text, &o) {
                    wrong.push(format!(
                        "{page}: `sselint {c} --help` has --{o}, the page does not"
                    ));
                }
                known.push(o);
            }
        }
        for o in table_options(&text) {
            if !known.contains(&o) && o != "help" {
                wrong.push(format!(
                    "{page}: its options table has --{o}, which no `--help` of {commands:?} lists"
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "command pages behind their --help: {wrong:#?}"
    );
}

#[test]
fn every_command_has_a_page() {
    let top = help(&[]);
    let listed: Vec<&str> = top
        .split("Commands:\n")
        .nth(1)
        .and_then(|t| t.split("\n\n").next())
        .expect("a Commands section")
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(
        listed.contains(&"check") && listed.contains(&"man"),
        "{listed:?}"
    );
    for c in listed {
        assert!(
            COMMAND_PAGES.iter().any(|(_, cs)| cs.contains(&c)),
            "`sselint {c}` has no page in COMMAND_PAGES (tests/book.rs)"
        );
    }
}

#[test]
fn the_option_reader_reads_a_help_text() {
    let help =
        "Usage: x\n\nOptions:\n      --format <F>\n          Output\n  -o, --output <FILE>\n  \
                -v, --verbose\n  -h, --help\n\nExamples:\n      --api-key-env X\n";
    assert_eq!(long_options(help), ["format", "output", "verbose"]);
    assert!(names_option("use `--fail-on`.", "fail-on"));
    assert!(!names_option("use `--fail-on-x`.", "fail-on"));
    assert_eq!(
        table_options("| `--entry N`, `--url-match T` | x --not |\n|---|\n"),
        ["entry", "url-match"]
    );
}
