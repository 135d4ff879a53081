//! Embeds the rule catalogue (`rules/*.toml`) and the provider profiles
//! (`rules/profiles/*.toml`) into the binary, so `sselint rule NAME` and the
//! checks read the same data the repository holds.

use std::fmt::Write as _;
use std::path::Path;

fn list(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.extension().and_then(|x| x.to_str()) == Some("toml") {
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            out.push((
                stem,
                p.canonicalize().unwrap().to_string_lossy().into_owned(),
            ));
        }
    }
    out.sort();
    out
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    println!("cargo:rerun-if-changed=rules");
    println!("cargo:rerun-if-changed=rules/profiles");
    let mut code = String::new();
    for (name, dir) in [("RULE_FILES", "rules"), ("PROFILE_FILES", "rules/profiles")] {
        let files = list(&root.join(dir));
        writeln!(
            code,
            "/// `{dir}/*.toml`: (file stem, contents), sorted by stem."
        )
        .unwrap();
        writeln!(code, "pub static {name}: &[(&str, &str)] = &[").unwrap();
        for (stem, path) in files {
            println!("cargo:rerun-if-changed={path}");
            writeln!(code, "    ({stem:?}, include_str!({path:?})),").unwrap();
        }
        writeln!(code, "];").unwrap();
    }
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("catalogue.rs");
    std::fs::write(out, code).unwrap();
}
