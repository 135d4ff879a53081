//! Embeds the rule catalogue (`rules/DIALECT/*.toml`, one folder per
//! dialect plus `transport` for the rules every dialect shares) and the
//! provider profiles (`rules/profiles/*.toml`) into the binary, so `sselint rule NAME` and the
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

/// Folders under `rules/` that hold data other than rules.
const NOT_RULES: &[&str] = &["profiles", "schemas"];

/// The rule folders under `rules/` (every subfolder but [`NOT_RULES`]),
/// sorted.
fn rule_folders(rules: &Path) -> Result<Vec<String>, String> {
    let entries = std::fs::read_dir(rules).map_err(|e| format!("{}: {e}", rules.display()))?;
    let mut out = Vec::new();
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() && !NOT_RULES.contains(&name.as_str()) {
            out.push(name);
        }
    }
    out.sort();
    Ok(out)
}

/// The constant naming rule `stem` (`cut-off` → `CUT_OFF`).
fn const_name(stem: &str) -> String {
    stem.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// The generated Rust source embedding the catalogue of the checkout at
/// `root`, the texts it includes (file name in `OUT_DIR`, contents), and
/// the files it embeds. `RULE_FILES` holds `(folder, file stem, head,
/// examples)`: the folder is the rule's dialect (`transport` for the shared
/// ones), `head` the file up to its first `[[examples]]` table and
/// `examples` the rest, each a byte range of `RULE_HEADS` and
/// `RULE_EXAMPLES`. Every `check` parses the heads and almost none the
/// examples, so the heads sit together: interleaved, the 0.2 MB of heads
/// were spread over the whole 0.8 MB, all of it mapped in (the kernel maps
/// read-only data in 64 KiB windows around each page a run touches).
///
/// # Errors
/// `rules/` or `rules/profiles/` cannot be read, `rules/` holds no rule or
/// a rule file outside a dialect folder, or there is no `openai` profile.
#[allow(clippy::type_complexity)]
pub fn generate(
    root: &Path,
) -> Result<(String, Vec<(&'static str, String)>, Vec<PathBuf>), String> {
    let mut code = String::new();
    let mut files = Vec::new();
    let rules = root.join("rules");
    if let Some((stem, _)) = list(&rules)?.into_iter().next() {
        return Err(format!(
            "{}: a rule file must sit in its dialect's folder (rules/transport, rules/chat, ...)",
            rules.join(format!("{stem}.toml")).display()
        ));
    }
    let mut found = Vec::new();
    for folder in rule_folders(&rules)? {
        for (stem, path) in list(&rules.join(&folder))? {
            found.push((folder.clone(), stem, path));
        }
    }
    if found.is_empty() {
        return Err(format!(
            "{} holds no rule (*.toml in a dialect folder): refusing to build a binary without its rule catalogue",
            rules.display()
        ));
    }
    let _ = writeln!(
        code,
        "/// `rules/FOLDER/*.toml`: (folder, file stem, head, examples), sorted;\n/// the head and the examples are byte ranges of [`RULE_HEADS`] and\n/// [`RULE_EXAMPLES`]."
    );
    let _ = writeln!(
        code,
        "pub static RULE_FILES: &[(&str, &str, std::ops::Range<usize>, std::ops::Range<usize>)] = &["
    );
    let mut ids = String::new();
    let (mut heads, mut examples) = (String::new(), String::new());
    for (folder, stem, path) in found {
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        // The top-level keys come before the first table.
        let cut = text.find("\n[[examples]]").map_or(text.len(), |i| i + 1);
        let h = heads.len()..heads.len() + cut;
        let x = examples.len()..examples.len() + text.len() - cut;
        heads.push_str(&text[..cut]);
        examples.push_str(&text[cut..]);
        let _ = writeln!(
            code,
            "    ({folder:?}, {stem:?}, {}..{}, {}..{}),",
            h.start, h.end, x.start, x.end
        );
        let _ = writeln!(
            ids,
            "    /// `{stem}` (`rules/{folder}/{stem}.toml`).\n    pub const {}: crate::lint::RuleId = crate::lint::RuleId::of({stem:?});",
            const_name(&stem)
        );
        files.push(path);
    }
    let _ = writeln!(code, "];");
    let _ = writeln!(
        code,
        "/// The rule files' heads, one after the other.\npub static RULE_HEADS: &str = include_str!(concat!(env!(\"OUT_DIR\"), \"/rule-heads.toml\"));\n/// The rule files' `[[examples]]` tables, one after the other.\npub static RULE_EXAMPLES: &str = include_str!(concat!(env!(\"OUT_DIR\"), \"/rule-examples.toml\"));"
    );
    let _ = writeln!(
        code,
        "/// Every rule's id, one constant per rule file (`cut-off` is\n/// `CUT_OFF`): a misspelt rule does not compile.\npub mod ids {{\n{ids}}}"
    );
    let profiles = list(&root.join("rules/profiles"))?;
    if !profiles.iter().any(|(s, _)| s == "openai") {
        return Err(format!(
            "{} has no openai.toml: refusing to build a binary without its default profile",
            root.join("rules/profiles").display()
        ));
    }
    let _ = writeln!(
        code,
        "/// `rules/profiles/*.toml`: (file stem, contents), sorted by stem."
    );
    let _ = writeln!(code, "pub static PROFILE_FILES: &[(&str, &str)] = &[");
    for (stem, path) in profiles {
        let _ = writeln!(
            code,
            "    ({stem:?}, include_str!({:?})),",
            path.to_string_lossy()
        );
        files.push(path);
    }
    let _ = writeln!(code, "];");
    let texts = vec![("rule-heads.toml", heads), ("rule-examples.toml", examples)];
    Ok((code, texts, files))
}

/// The linker arguments that lay the release binary's code out in the
/// order `link/order.txt` gives: the functions a `check` runs, packed
/// together ahead of the rest. The kernel maps a binary's code in 64 KiB
/// windows around each page a run touches, so code scattered over the
/// whole text section is resident in full; packed, a Chat `check` touches
/// about a third as many windows (docs/performance.md, "Link order").
///
/// Given only where the flag is sure to be understood: a release build for
/// `x86_64-unknown-linux-gnu` by rustc 1.90 or later, whose default linker
/// is LLD, with no other linker configured. `SSELINT_LINK_ORDER=0` turns
/// it off. Names the file no longer matches (after a toolchain update;
/// `scripts/link-order.sh` writes it again) are skipped by LLD, silently:
/// the layout then falls back to the compiler's.
fn link_order_args(root: &Path) -> Vec<String> {
    let order = root.join("link/order.txt");
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    let rustc_minor = std::process::Command::new(std::env::var("RUSTC").unwrap_or("rustc".into()))
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| {
            let v = String::from_utf8_lossy(&o.stdout).into_owned();
            v.split_whitespace()
                .nth(1)?
                .split('.')
                .nth(1)?
                .parse::<u32>()
                .ok()
        })
        .unwrap_or(0);
    let other_linker = !var("CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER").is_empty()
        || var("CARGO_ENCODED_RUSTFLAGS").contains("link");
    if var("PROFILE") != "release"
        || var("TARGET") != "x86_64-unknown-linux-gnu"
        || rustc_minor < 90
        || other_linker
        || var("SSELINT_LINK_ORDER") == "0"
        || !order.is_file()
    {
        return Vec::new();
    }
    let mut args = vec![
        format!("-Wl,--symbol-ordering-file={}", order.display()),
        "-Wl,--no-warn-symbol-ordering".into(),
    ];
    if glibc_has_relr() {
        args.push("-Wl,-z,pack-relative-relocs".into());
    }
    args
}

/// Whether the C library the binary is built against (the build machine's:
/// the target is the host here) is glibc 2.36 or later, which applies
/// relocations packed as DT_RELR. Packed, the release binary's 18,000
/// relative relocations take a few KiB instead of 0.44 MB, which the loader
/// reads, and keeps resident, at every start (docs/performance.md,
/// "`check` in 8 MiB"). An older glibc would refuse such a binary
/// (`GLIBC_ABI_DT_RELR` not found), so it is not asked for there.
fn glibc_has_relr() -> bool {
    std::process::Command::new("getconf")
        .arg("GNU_LIBC_VERSION")
        .output()
        .ok()
        .and_then(|o| {
            let v = String::from_utf8_lossy(&o.stdout).into_owned();
            let (major, minor) = v.strip_prefix("glibc ")?.trim().split_once('.')?;
            Some((major.parse::<u32>().ok()?, minor.parse::<u32>().ok()?))
        })
        .is_some_and(|v| v >= (2, 36))
}

fn main() {
    let Ok(root) = std::env::var("CARGO_MANIFEST_DIR") else {
        eprintln!("error: CARGO_MANIFEST_DIR is not set; build sselint with cargo");
        std::process::exit(1);
    };
    let root = PathBuf::from(root);
    println!("cargo:rerun-if-changed=rules");
    println!("cargo:rerun-if-changed=rules/profiles");
    let (code, texts, files) = match generate(&root) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    println!("cargo:rerun-if-changed=link/order.txt");
    println!("cargo:rerun-if-env-changed=SSELINT_LINK_ORDER");
    println!("cargo:rerun-if-env-changed=CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER");
    for a in link_order_args(&root) {
        println!("cargo:rustc-link-arg-bins={a}");
    }
    let dir = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default());
    for (name, text) in texts.into_iter().chain([("catalogue.rs", code)]) {
        let out = dir.join(name);
        if let Err(e) = std::fs::write(&out, text) {
            eprintln!("error: {}: {e}", out.display());
            std::process::exit(1);
        }
    }
}
