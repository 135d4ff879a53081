//! `sselint redact IN -o OUT`: a shareable copy of a capture.

use anyhow::Context as _;
use sselint::capture::{self, InputFormat};
use sselint::redact::{self, Scrubber};
use std::path::PathBuf;
use std::process::ExitCode;

/// Write a shareable copy of a capture: secrets removed and, with
/// --scrub-text, prompt and answer text replaced by placeholders of the same
/// length (framing, JSON shapes and findings stay).
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Every dialect is covered. In a Gemini capture the key in `x-goog-api-key`
or in `?key=` is masked; --scrub-text also replaces its text and thought
parts, function-call `args` values, executed code and its output, inline
data, and the citations' and grounding sources' titles, addresses and
licenses (ids, roles, `finishReason` and `thoughtSignature` stay).

Examples:
  sselint redact network.har -o shareable.har
  sselint redact network.har -o shareable.har --scrub-text
  sselint redact capture.sse -o shareable.sse --scrub-text")]
pub struct Args {
    /// The capture (HAR, raw SSE body or curl dump).
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// Where to write the copy (never the input itself); `-` is stdout.
    #[arg(short = 'o', long, value_name = "OUT")]
    output: PathBuf,
    /// Also replace the prompt and answer text (content, refusal,
    /// reasoning, strings in tool arguments, a custom tool's input, what
    /// server-side tools were asked and returned, request messages, and
    /// any prose under a key that names no thing): every letter by x and
    /// every digit by 0, or, when that changes the findings, through a
    /// letter permutation (a note says so).
    #[arg(long)]
    scrub_text: bool,
    /// Replace an existing output file.
    #[arg(long)]
    force: bool,
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let fail = |msg: String| {
        eprintln!("sselint: error: {msg}");
        Ok(ExitCode::from(2))
    };
    // `-` is standard input in every command that can read it; redact
    // reads its input whole, twice (to check, then to rewrite): a file.
    if a.input.as_os_str() == "-" {
        return fail("redact reads a file, not standard input; save the capture first (`./-` names a file called -)".into());
    }
    if let Some((file, _)) = a.input.to_str().and_then(sselint::capture::entry_spec) {
        return fail(format!(
            "{}: redact copies a whole capture, every entry of it; give {file}",
            a.input.display()
        ));
    }
    let to_stdout = sselint::output::is_stdout(&a.output);
    let same = !to_stdout
        && std::fs::canonicalize(&a.input).ok() == std::fs::canonicalize(&a.output).ok()
        && a.output.exists();
    if same {
        return fail(format!(
            "{}: the output must not be the input",
            a.output.display()
        ));
    }
    if !to_stdout && a.output.exists() && !a.force {
        return fail(format!(
            "{} already exists; use --force to replace it",
            a.output.display()
        ));
    }
    let bytes = match std::fs::read(&a.input) {
        Ok(b) => b,
        Err(e) => return fail(capture::unreadable(&a.input.to_string_lossy(), &e).to_string()),
    };
    if let Some(which) = capture::utf16(&bytes) {
        // Not read as a capture, it would be copied as it is, keys and all.
        return fail(format!(
            "{}: the file is {which} (PowerShell's `>` writes UTF-16): an event stream is UTF-8; save it as UTF-8, then redact it",
            a.input.display()
        ));
    }
    {
        // A trace dump holds every byte twice (hex and ASCII columns), so
        // it cannot be redacted line by line.
        let opts = capture::Options::default();
        if let Ok(cap) =
            capture::from_reader("in", Box::new(std::io::Cursor::new(bytes.clone())), &opts)
        {
            if cap.detail.contains("trace") {
                return fail(format!(
                    "{}: redact cannot rewrite a curl trace dump (its hex column holds every byte); capture with `curl -N`, `curl -i` or as HAR",
                    a.input.display()
                ));
            }
            let compressed = cap
                .streams
                .iter()
                .any(|s| s.notes.iter().any(|n| n.contains("decoded from")));
            // A gzip, deflate or br body is bytes redact cannot read in a
            // raw body or curl dump: a key in it (an error message quoting
            // it) would stay in the copy. A HAR's is decoded and written
            // back decoded (`redact::har`).
            let encoded_raw = !matches!(capture::detect(&bytes), InputFormat::Har) && compressed;
            if encoded_raw {
                return fail(format!(
                    "{}: the body is compressed (Content-Encoding), so redact cannot see the secrets in it; capture it uncompressed (curl without --compressed or an Accept-Encoding header), or save it as HAR, whose text the browser stores decoded",
                    a.input.display()
                ));
            }
        }
    }
    // A `.har` file is read as HAR, as every command reads it: one that is
    // not is refused, not copied as a raw body (a fresh-user trial: an
    // empty or non-HAR `.har` was "written", secrets and all unread).
    if a.input
        .to_string_lossy()
        .to_ascii_lowercase()
        .ends_with(".har")
        && !matches!(capture::detect(&bytes), InputFormat::Har)
    {
        if let Err(e) = capture::open(&a.input.to_string_lossy(), &capture::Options::default()) {
            return fail(e.to_string());
        }
    }
    let rewrite = |scrubber: Option<Scrubber>| -> Result<Vec<u8>, String> {
        let mut scrubber = scrubber;
        Ok(match capture::detect(&bytes) {
            InputFormat::Har => {
                let mut doc: serde_json::Value = serde_json::from_slice(&bytes)
                    .map_err(|e| format!("not a HAR file: the JSON does not parse ({e})"))?;
                redact::har(&mut doc, scrubber.as_mut())?;
                let mut v = serde_json::to_vec_pretty(&doc).map_err(|e| e.to_string())?;
                v.push(b'\n');
                v
            }
            InputFormat::Sse | InputFormat::Curl => redact::raw(&bytes, scrubber.as_mut()),
        })
    };
    // The text is scrubbed flat (every letter x) unless that changes the
    // findings (a delta that differs from the done text by one letter, a
    // delta repeating the previous one); then through a letter permutation,
    // which keeps those relations and which the note warns about.
    let mut patterns_kept = None;
    let out = match rewrite(a.scrub_text.then(Scrubber::flat)) {
        Ok(flat) if a.scrub_text => {
            let changed = finding_changes(&bytes, &flat);
            if changed.is_empty() {
                flat
            } else {
                patterns_kept = Some(changed);
                match rewrite(Some(Scrubber::random())) {
                    Ok(o) => o,
                    Err(e) => return fail(format!("{}: {e}", a.input.display())),
                }
            }
        }
        Ok(o) => o,
        Err(e) => return fail(format!("{}: {e}", a.input.display())),
    };
    if let Some(changed) = &patterns_kept {
        eprintln!(
            "sselint: note: the text keeps its letter patterns (each letter always becomes the same other letter, which frequency analysis can read: read the copy before sharing it), because with every letter as x the findings change: {changed}"
        );
    }
    if to_stdout {
        return super::write_report(None, &out);
    }
    sselint::output::write_atomic(&a.output, &out)
        .with_context(|| format!("writing {}", a.output.display()))?;
    let note = format!(
        "wrote {} (secrets redacted{})\n",
        a.output.display(),
        match (a.scrub_text, patterns_kept.is_some()) {
            (false, _) => "",
            (true, false) => ", text scrubbed: every letter x, every digit 0",
            (true, true) => ", text scrubbed through a letter permutation",
        }
    );
    super::write_report(None, note.as_bytes())
}

/// The (rule, severity) pairs whose finding counts differ between two
/// versions of a capture, as `rule (severity) N → M`, comma-separated;
/// empty when they agree (or neither reads as a capture).
fn finding_changes(before: &[u8], after: &[u8]) -> String {
    let counts = |b: &[u8]| {
        let cap = capture::from_reader(
            "redact",
            Box::new(std::io::Cursor::new(b.to_vec())),
            &capture::Options::default(),
        )
        .ok()?;
        let r = sselint::pipeline::lint_capture(
            cap,
            &sselint::lint::Settings::default(),
            &mut sselint::pipeline::NoObserver,
        );
        let mut all = std::collections::BTreeMap::new();
        for (i, s) in r.streams.iter().enumerate() {
            for (pair, n) in s.finding_counts() {
                all.insert((i, pair), n);
            }
        }
        Some(all)
    };
    let (a, b) = (
        counts(before).unwrap_or_default(),
        counts(after).unwrap_or_default(),
    );
    let keys: std::collections::BTreeSet<_> = a.keys().chain(b.keys()).collect();
    keys.into_iter()
        .filter(|k| a.get(k) != b.get(k))
        .map(|k @ (_, (rule, sev))| {
            format!(
                "{rule} ({}) {} → {}",
                sev,
                a.get(k).copied().unwrap_or(0),
                b.get(k).copied().unwrap_or(0)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}
