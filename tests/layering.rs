//! The modules' order: each module of `src/` uses only the modules
//! `src/lib.rs` declares before it (STYLE.md, "Modules follow the
//! pipeline"), so the crate reads from the leaves up and has no import
//! cycle. docs/architecture.md draws the order.
//!
//! The imports that still look ahead are listed in [`KNOWN`], each with
//! what it is waiting for: the test fails on any other one, and on a
//! listed one that is gone, so the list only shrinks.

mod common;
use common::root;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// (module, the later module it uses, why it still does).
const KNOWN: &[(&str, &str, &str)] = &[];

/// The top-level modules in the order lib.rs declares them.
fn order() -> Vec<String> {
    let lib = std::fs::read_to_string(root().join("src/lib.rs")).unwrap();
    lib.lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';').to_string())
        .collect()
}

/// The top-level modules `text` (Rust source, comments left out) names
/// as `crate::NAME`, also inside `use crate::{a::b, c}`.
fn uses(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + "crate::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                let inner = group.split('}').next().unwrap_or("");
                for part in inner.split(',') {
                    let name: String = part
                        .trim()
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() {
                        out.insert(name);
                    }
                }
            } else {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                out.insert(name);
            }
        }
    }
    out
}

/// Every `.rs` file of module `m` (`src/m.rs`, or `src/m/`).
fn files(m: &str) -> Vec<std::path::PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    let file = root().join("src").join(format!("{m}.rs"));
    if file.exists() {
        out.push(file);
    }
    let dir = root().join("src").join(m);
    if dir.is_dir() {
        walk(&dir, &mut out);
    }
    out
}

#[test]
fn no_module_uses_one_declared_after_it() {
    let order = order();
    assert!(order.len() >= 10, "lib.rs declares {order:?}");
    let pos: BTreeMap<&str, usize> = order
        .iter()
        .enumerate()
        .map(|(i, m)| (m.as_str(), i))
        .collect();
    let mut ahead = BTreeSet::new();
    for (i, m) in order.iter().enumerate() {
        for f in files(m) {
            let text = std::fs::read_to_string(&f).unwrap();
            for used in uses(&text) {
                if let Some(&j) = pos.get(used.as_str()) {
                    if j > i {
                        ahead.insert((m.clone(), used.clone()));
                    }
                }
            }
        }
    }
    let known: BTreeSet<(String, String)> = KNOWN
        .iter()
        .map(|(a, b, _)| (a.to_string(), b.to_string()))
        .collect();
    let new: Vec<_> = ahead.difference(&known).collect();
    let gone: Vec<_> = known.difference(&ahead).collect();
    assert!(
        new.is_empty(),
        "modules that use one declared after them in src/lib.rs: {new:?}; \
         move the shared piece down (or the module up), do not add to KNOWN"
    );
    assert!(
        gone.is_empty(),
        "no longer looked ahead, remove from KNOWN: {gone:?}"
    );
}

#[test]
fn the_scanner_reads_paths_and_groups_and_skips_comments() {
    let text = "use crate::{lint::Finding, model};\nlet x = crate::sse::parse();\n// crate::report in a comment\n/// [`crate::diff`] in a doc\n";
    let got: Vec<String> = uses(text).into_iter().collect();
    assert_eq!(got, ["lint", "model", "sse"]);
}

/// `Dialect::NAME` spots in `text` (Rust source, comments left out): a
/// variant named, as `Dialect::Chat`; `Dialect::parse` and the other
/// functions start lower case and are not.
fn variants_named(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find("Dialect::") {
            rest = &rest[i + "Dialect::".len()..];
            if rest.starts_with(|c: char| c.is_ascii_uppercase()) {
                out.push(line.trim().to_string());
            }
        }
    }
    out
}

/// A dialect is known in its folder alone (and by its id in
/// `src/vocab.rs`): outside them, code
/// passes a `Dialect` along, compares it with one the registry gives
/// (`dialect::DEFAULT`, `dialect::ALL`) or asks it (`d.api()`,
/// `d.words()`), and never names a variant.
#[test]
fn no_variant_is_named_outside_the_dialect_folder() {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                if p.file_name().is_some_and(|n| n != "dialect")
                    || p.parent() != Some(&root().join("src"))
                {
                    walk(&p, out);
                }
            } else if p.extension().is_some_and(|x| x == "rs") && p != root().join("src/vocab.rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&root().join("src"), &mut files);
    assert!(files.len() > 20, "{files:?}");
    let mut named = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for l in variants_named(&text) {
            named.push(format!(
                "{}: {l}",
                f.strip_prefix(root()).unwrap().display()
            ));
        }
    }
    assert!(
        named.is_empty(),
        "dialect variants named outside src/dialect/ (ask the dialect instead: Dialect::api, Dialect::words): {named:#?}"
    );
}

#[test]
fn the_variant_scanner_finds_variants_and_skips_functions_and_comments() {
    let text = "let d = Dialect::Chat;\nlet e = Dialect::parse(x);\n// Dialect::Messages here\nmatch d { crate::dialect::Dialect::Responses => 1 }\n";
    assert_eq!(
        variants_named(text),
        [
            "let d = Dialect::Chat;",
            "match d { crate::dialect::Dialect::Responses => 1 }"
        ]
    );
}

/// `Transport::NAME` spots in `text` for a transport other than SSE
/// (`Transport::Ndjson`, `Transport::EventStream`, …), comments left out.
/// SSE is the transport the linter's own framing rules read
/// ([`crate::sse`]) and may be named anywhere.
fn transports_named(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find("Transport::") {
            rest = &rest[i + "Transport::".len()..];
            if rest.starts_with(|c: char| c.is_ascii_uppercase()) && !rest.starts_with("Sse") {
                out.push(line.trim().to_string());
            }
        }
    }
    out
}

/// A transport is known in its folder alone: outside `src/transport/`
/// (and the dialect folders, each of which says the transport its API
/// rides on), code asks a transport (`t.is_binary()`, `t.framer()`,
/// `t.rewrite()`) and never names one but SSE.
#[test]
fn no_transport_but_sse_is_named_outside_its_folder() {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                let own = p.parent() == Some(&root().join("src"))
                    && p.file_name()
                        .is_some_and(|n| n == "transport" || n == "dialect");
                if !own {
                    walk(&p, out);
                }
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&root().join("src"), &mut files);
    assert!(files.len() > 20, "{files:?}");
    let mut named = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for l in transports_named(&text) {
            named.push(format!(
                "{}: {l}",
                f.strip_prefix(root()).unwrap().display()
            ));
        }
    }
    assert!(
        named.is_empty(),
        "transports other than SSE named outside src/transport/ (ask the transport instead: Transport::is_binary, Transport::framer, Transport::rewrite): {named:#?}"
    );
}

#[test]
fn the_transport_scanner_skips_sse_functions_and_comments() {
    let text = "let t = Transport::EventStream;\nif t == Transport::Sse {}\nlet u = Transport::of_bytes(b);\n// Transport::Ndjson here\n";
    assert_eq!(transports_named(text), ["let t = Transport::EventStream;"]);
}

/// Lines of `text` (comments and docs left out) that name the socket
/// transport's module: `transport::websocket`, alone or in a group.
fn socket_module_named(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find("transport::") {
            rest = &rest[i + "transport::".len()..];
            let named = match rest.strip_prefix('{') {
                Some(group) => group
                    .split('}')
                    .next()
                    .unwrap_or("")
                    .split(',')
                    .any(|p| p.trim().starts_with("websocket")),
                None => rest.starts_with("websocket"),
            };
            if named {
                out.push(line.trim().to_string());
                break;
            }
        }
    }
    out
}

/// The socket transport is asked of the transport seam
/// (`Transport::socket_of`, `Message::direction`, `Message::frame`,
/// `transport::socket_log`), never named, in src/ outside src/transport/
/// and in the tests: a second socket transport (or a change to this one)
/// then touches its folder alone.
#[test]
fn the_socket_transport_is_named_in_its_folder_alone() {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                if p != root().join("src/transport") {
                    walk(&p, out);
                }
            } else if p.extension().is_some_and(|x| x == "rs")
                && p != root().join("tests/layering.rs")
            {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    for d in ["src", "tests", "examples", "benches"] {
        if root().join(d).is_dir() {
            walk(&root().join(d), &mut files);
        }
    }
    assert!(files.len() > 40, "{files:?}");
    let mut named = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for l in socket_module_named(&text) {
            named.push(format!(
                "{}: {l}",
                f.strip_prefix(root()).unwrap().display()
            ));
        }
    }
    assert!(
        named.is_empty(),
        "the socket transport named outside src/transport/ (ask the seam instead: Transport::socket_of, Message::direction, Message::frame, transport::socket_log): {named:#?}"
    );
}

#[test]
fn the_socket_scanner_finds_paths_and_groups_and_skips_comments() {
    let text = "use crate::transport::websocket::{self, Direction};\nlet x = sselint::transport::websocket::looks_like(h);\nuse crate::transport::{Message, websocket};\nuse crate::transport::{Message, Transport};\n/// [`crate::transport::websocket`] in a doc\nlet y = super::websocket::stream();\n";
    assert_eq!(
        socket_module_named(text),
        [
            "use crate::transport::websocket::{self, Direction};",
            "let x = sselint::transport::websocket::looks_like(h);",
            "use crate::transport::{Message, websocket};"
        ]
    );
}
