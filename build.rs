//! Embeds the rule catalogue (`rules/*.toml`) and the provider profiles
//! (`rules/profiles/*.toml`) into the binary, so `sselint rule NAME` and the
//! checks read the same data the repository holds.
//!
//! The checkout is found at run time of this script
//! (`std::env::var("CARGO_MANIFEST_DIR")`), never at its compile time:
//! Cargo reuses a compiled build script for a moved checkout or a second
//! one that shares `CARGO_TARGET_DIR`. The build fails when `rules/` holds
//! no rule or `rules/profiles/` no `openai` profile, rather than embedding
//! an empty catalogue.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// `(file stem, absolute path)` of every `*.toml` directly in `dir`, sorted.
fn list(dir: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut out = Vec::new();
    for e in entries.flatten() {
        let p = e.path();
        if p.extension().and_then(|x| x.to_str()) == Some("toml") {
            let stem = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let abs = p
                .canonicalize()
                .map_err(|e| format!("{}: {e}", p.display()))?;
            out.push((stem, abs));
        }
    }
    out.sort();
    Ok(out)
}

/// The generated Rust source embedding the catalogue of the checkout at
/// `root`, and the files it embeds.
///
/// # Errors
/// `rules/` or `rules/profiles/` cannot be read, `rules/` holds no rule, or
/// there is no `openai` profile.
pub fn generate(root: &Path) -> Result<(String, Vec<PathBuf>), String> {
    let mut code = String::new();
    let mut files = Vec::new();
    for (name, dir) in [("RULE_FILES", "rules"), ("PROFILE_FILES", "rules/profiles")] {
        let found = list(&root.join(dir))?;
        if dir == "rules" && found.is_empty() {
            return Err(format!(
                "{} holds no rule (*.toml): refusing to build a binary without its rule catalogue",
                root.join(dir).display()
            ));
        }
        if dir == "rules/profiles" && !found.iter().any(|(s, _)| s == "openai") {
            return Err(format!(
                "{} has no openai.toml: refusing to build a binary without its default profile",
                root.join(dir).display()
            ));
        }
        let _ = writeln!(
            code,
            "/// `{dir}/*.toml`: (file stem, contents), sorted by stem."
        );
        let _ = writeln!(code, "pub static {name}: &[(&str, &str)] = &[");
        for (stem, path) in found {
            let _ = writeln!(
                code,
                "    ({stem:?}, include_str!({:?})),",
                path.to_string_lossy()
            );
            files.push(path);
        }
        let _ = writeln!(code, "];");
    }
    Ok((code, files))
}

fn main() {
    let Ok(root) = std::env::var("CARGO_MANIFEST_DIR") else {
        eprintln!("error: CARGO_MANIFEST_DIR is not set; build sselint with cargo");
        std::process::exit(1);
    };
    let root = PathBuf::from(root);
    println!("cargo:rerun-if-changed=rules");
    println!("cargo:rerun-if-changed=rules/profiles");
    let (code, files) = match generate(&root) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    let out = Path::new(&std::env::var("OUT_DIR").unwrap_or_default()).join("catalogue.rs");
    if let Err(e) = std::fs::write(&out, code) {
        eprintln!("error: {}: {e}", out.display());
        std::process::exit(1);
    }
}
