//! `sselint redact IN -o OUT`: a shareable copy of a capture.

use anyhow::Context as _;
use sselint::capture::{self, InputFormat};
use sselint::redact::{self, Scrubber};
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
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
    // The file's start tells what it is; a raw body or curl dump is then
    // copied a line at a time, a HAR (JSON) read whole.
    let head = match read_head(&a.input) {
        Ok(b) => b,
        Err(e) => return fail(capture::unreadable(&a.input.to_string_lossy(), &e).to_string()),
    };
    if let Some(which) = capture::utf16(&head) {
        // Not read as a capture, it would be copied as it is, keys and all.
        return fail(format!(
            "{}: the file is {which} (PowerShell's `>` writes UTF-16): an event stream is UTF-8; save it as UTF-8, then redact it",
            a.input.display()
        ));
    }
    if first_line_is_gateway_record(&head) {
        // Copied line by line as text, a record's `headers` would keep
        // what the text masks miss (a SigV4 signature, a short cookie).
        return fail(format!(
            "{}: the file is a gateway's JSON Lines log (a record with a body and its headers), which redact does not rewrite yet; no copy written. Lint it with `sselint check --input-format jsonl` (its headers' secrets are masked on reading), or redact each body saved on its own",
            a.input.display()
        ));
    }
    let format = capture::detect(&head);
    {
        // A trace dump holds every byte twice (hex and ASCII columns), so
        // it cannot be redacted line by line.
        let opts = capture::Options::default();
        let opened = std::fs::File::open(&a.input)
            .map_err(|e| capture::unreadable(&a.input.to_string_lossy(), &e).to_string())
            .and_then(|f| {
                capture::from_reader("in", Box::new(f), &opts).map_err(|e| e.to_string())
            });
        if let Ok(mut cap) = opened {
            // An AWS event stream is binary frames with lengths and CRCs:
            // a raw body, a HAR's and a `curl -i -o FILE` dump's are
            // rewritten frame by frame; one among a `curl -v` dump's text
            // lines, or with `--raw`'s chunked framing left between them,
            // would be rewritten line by line, breaking them.
            let frames_in_curl =
                matches!(format, InputFormat::Curl) && cap.streams.iter_mut().any(is_event_stream);
            if frames_in_curl && !redact::curl_i_of_frames(&head) {
                return fail(frames_in_curl_dump(&a.input, cap.detail));
            }
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
            let encoded_raw = !matches!(format, InputFormat::Har) && compressed;
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
        && !matches!(format, InputFormat::Har)
    {
        if let Err(e) = capture::open(&a.input.to_string_lossy(), &capture::Options::default()) {
            return fail(e.to_string());
        }
    }
    let to = if to_stdout {
        None
    } else {
        Some(a.output.as_path())
    };
    // The text is scrubbed flat (every letter x) unless that changes the
    // findings (a delta that differs from the done text by one letter, a
    // delta repeating the previous one); then through a letter permutation,
    // which keeps those relations and which the note warns about.
    let mut patterns_kept = None;
    if !a.scrub_text {
        if let Err(e) = rewrite(&a.input, format, None, to)? {
            return fail(format!("{}: {e}", a.input.display()));
        }
    } else {
        // The flat copy goes to a scratch file first, to be linted.
        let scratch = Scratch::next_to(to);
        if let Err(e) = rewrite(&a.input, format, Some(Scrubber::flat()), Some(&scratch.0))? {
            return fail(format!("{}: {e}", a.input.display()));
        }
        let changed = finding_changes(&a.input, &scratch.0);
        if changed.is_empty() {
            copy_out(&scratch.0, to)?;
        } else {
            drop(scratch);
            patterns_kept = Some(changed);
            if let Err(e) = rewrite(&a.input, format, Some(Scrubber::random()), to)? {
                return fail(format!("{}: {e}", a.input.display()));
            }
        }
    }
    if let Some(changed) = &patterns_kept {
        eprintln!(
            "sselint: note: the text keeps its letter patterns (each letter always becomes the same other letter, which frequency analysis can read: read the copy before sharing it), because with every letter as x the findings change: {changed}"
        );
    }
    if to_stdout {
        return Ok(ExitCode::SUCCESS);
    }
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

/// The first [`capture::SNIFF_BYTES`] of the file at `p`.
fn read_head(p: &Path) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::new();
    std::fs::File::open(p)?
        .take(capture::SNIFF_BYTES as u64)
        .read_to_end(&mut head)?;
    Ok(head)
}

/// Whether the file at `p` starts with an AWS event-stream frame.
fn first_bytes_are_event_stream(p: &Path) -> bool {
    let mut head = [0u8; 12];
    std::fs::File::open(p)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| redact::is_event_stream(&head))
}

/// Whether the file at `p` is a WebSocket message log: its first line
/// (at most 64 KiB read) is a message record.
fn first_line_is_message_log(p: &Path) -> bool {
    let mut head = Vec::new();
    std::fs::File::open(p)
        .and_then(|f| f.take(64 * 1024).read_to_end(&mut head))
        .is_ok_and(|_| sselint::transport::Transport::socket_of(&head).is_some())
}

/// Whether `head` (a file's first bytes) opens with a gateway log record:
/// a JSON object on the first line with a `body` or `body_base64` field
/// (`capture::jsonl`), not a WebSocket message log's record.
/// A first line longer than `head` counts when it opens as a JSON object
/// and names `"body"` or `"body_base64"` and `"headers"` in what is read.
fn first_line_is_gateway_record(head: &[u8]) -> bool {
    if sselint::transport::Transport::socket_of(head).is_some() {
        return false;
    }
    let has = |line: &[u8], key: &[u8]| memchr::memmem::find(line, key).is_some();
    match head.iter().position(|&b| b == b'\n') {
        Some(end) => match serde_json::from_slice(&head[..end]) {
            Ok(serde_json::Value::Object(record)) => {
                record.contains_key("body") || record.contains_key("body_base64")
            }
            _ => false,
        },
        None => {
            head.trim_ascii_start().starts_with(b"{")
                && has(head, b"\"headers\"")
                && (has(head, b"\"body\"") || has(head, b"\"body_base64\""))
        }
    }
}

/// Whether the file at `p` is a `curl -i` dump whose body is binary
/// frames ([`redact::curl_i_of_frames`]).
fn first_bytes_are_curl_i_of_frames(p: &Path) -> bool {
    read_head(p).is_ok_and(|head| redact::curl_i_of_frames(&head))
}

/// Whether a stream's body is binary frames (AWS event-stream,
/// [`Transport::is_binary`]): by its Content-Type, or by its first bytes.
///
/// [`Transport::is_binary`]: sselint::transport::Transport::is_binary
fn is_event_stream(s: &mut capture::Stream) -> bool {
    use sselint::transport::Transport;
    let typed = s
        .http
        .as_ref()
        .and_then(|h| h.content_type.as_deref())
        .and_then(Transport::of_media_type);
    if typed.is_some() {
        return typed.is_some_and(Transport::is_binary);
    }
    let mut head = [0u8; 12];
    let n = match &mut s.body {
        capture::Body::Bytes(b) => {
            let n = b.len().min(head.len());
            head[..n].copy_from_slice(&b[..n]);
            n
        }
        capture::Body::Reader(r) => {
            let mut n = 0;
            while n < head.len() {
                match r.read(&mut head[n..]) {
                    Ok(0) | Err(_) => break,
                    Ok(k) => n += k,
                }
            }
            n
        }
    };
    Transport::of_bytes(&head[..n]).is_some_and(Transport::is_binary)
}

/// Writes the redacted copy of `input` to `to` (atomically: a regular file
/// appears only whole; `None` is standard output). A HAR is read, rewritten
/// and written whole; a raw body or curl dump a line at a time
/// ([`redact::raw_to`]). The inner `Err` is what is wrong with the input;
/// the outer one an error writing.
fn rewrite(
    input: &Path,
    format: InputFormat,
    scrubber: Option<Scrubber>,
    to: Option<&Path>,
) -> anyhow::Result<Result<(), String>> {
    let mut scrubber = scrubber;
    let written = |e: std::io::Error| match to {
        Some(p) => anyhow::Error::new(e).context(format!("writing {}", p.display())),
        None => anyhow::Error::new(e).context("writing the copy"),
    };
    let mut file = match to {
        Some(p) => Some(sselint::output::Streamed::create(p).map_err(written)?),
        None => None,
    };
    let stdout = std::io::stdout();
    let mut std_out = BufWriter::new(stdout.lock());
    let out: &mut dyn Write = match file.as_mut() {
        Some(f) => f,
        None => &mut std_out,
    };
    let done = match format {
        InputFormat::Har => {
            let open = || -> std::io::Result<Box<dyn Read + Send>> {
                Ok(Box::new(std::fs::File::open(input)?))
            };
            match redact::har_to(&open, out, scrubber.as_mut()) {
                Ok(()) => Ok(()),
                Err(redact::CopyError::Input(e)) => return Ok(Err(e)),
                Err(redact::CopyError::Write(e)) => Err(e),
            }
        }
        InputFormat::Sse if first_bytes_are_event_stream(input) => {
            let f = match std::fs::File::open(input) {
                Ok(f) => f,
                Err(e) => return Ok(Err(capture::io_message(&e))),
            };
            let head = read_head(input).unwrap_or_default();
            let Some(t) = redact::binary_transport(&head) else {
                return Ok(Err(
                    "the body's first frame cannot be read; no copy written".to_string(),
                ));
            };
            let mut reader = BufReader::with_capacity(1 << 16, f);
            match redact::frames_to(t, &mut reader, out, scrubber.as_mut()) {
                Ok(Err(e)) => return Ok(Err(format!("{e}; no copy written"))),
                done => done.map(|_| ()),
            }
        }
        InputFormat::Sse if first_line_is_message_log(input) => {
            let f = match std::fs::File::open(input) {
                Ok(f) => f,
                Err(e) => return Ok(Err(capture::io_message(&e))),
            };
            let mut reader = BufReader::with_capacity(1 << 16, f);
            redact::message_log_to(&mut reader, out, scrubber.as_mut())
        }
        InputFormat::Curl if first_bytes_are_curl_i_of_frames(input) => {
            let f = match std::fs::File::open(input) {
                Ok(f) => f,
                Err(e) => return Ok(Err(capture::io_message(&e))),
            };
            let mut reader = BufReader::with_capacity(1 << 16, f);
            match redact::curl_i_frames_to(&mut reader, out, scrubber.as_mut()) {
                Ok(Err(e)) => return Ok(Err(format!("{e}; no copy written"))),
                done => done.map(|_| ()),
            }
        }
        InputFormat::Sse | InputFormat::Curl => {
            let f = match std::fs::File::open(input) {
                Ok(f) => f,
                Err(e) => return Ok(Err(capture::io_message(&e))),
            };
            let mut reader = BufReader::with_capacity(1 << 16, f);
            redact::raw_to(&mut reader, out, scrubber.as_mut())
        }
    };
    match done.and_then(|()| out.flush()) {
        Err(e) if to.is_none() && e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => return Err(written(e)),
        Ok(()) => {}
    }
    if let Some(f) = file {
        f.commit().map_err(written)?;
    }
    Ok(Ok(()))
}

/// Why redact refuses a curl dump (`detail`: `curl -v`, `curl --trace`,
/// …) whose body is AWS event-stream frames, and exactly what to do
/// instead. Masking the request's headers would be safe, but the frames
/// among curl's lines (or in a trace's hex column) would have to be
/// rewritten keeping their lengths and CRCs, which redact does only for a
/// raw body, a `curl -i -o FILE` dump and a HAR.
fn frames_in_curl_dump(input: &Path, detail: &str) -> String {
    format!(
        "{}: a {detail} dump of an AWS event stream (application/vnd.amazon.eventstream): redact does not rewrite its binary frames among curl's lines (a key masked inside a frame changes its length and CRCs), so no copy was written. The dump holds the request's SigV4 `Authorization` (and an `X-Amz-Security-Token` with temporary credentials): do not share it as it is. Capture the stream again with `curl -sS -N -i -o capture.txt …` (the response's headers and the body's exact bytes, and no request header) or as HAR, then run `sselint redact capture.txt`; `sselint check` and `inspect` read this dump as it is",
        input.display()
    )
}

/// Copies the file at `from` to `to` (atomically; `None`: standard output).
fn copy_out(from: &Path, to: Option<&Path>) -> anyhow::Result<()> {
    let mut input = std::fs::File::open(from).context("reading the scrubbed copy")?;
    match to {
        Some(p) => {
            let mut f = sselint::output::Streamed::create(p)
                .with_context(|| format!("writing {}", p.display()))?;
            std::io::copy(&mut input, &mut f)
                .and_then(|_| f.commit())
                .with_context(|| format!("writing {}", p.display()))?;
        }
        None => {
            let mut out = std::io::stdout().lock();
            match std::io::copy(&mut input, &mut out).and_then(|_| out.flush()) {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                Err(e) => return Err(e).context("writing the copy"),
                Ok(()) => {}
            }
        }
    }
    Ok(())
}

/// A scratch file, removed when dropped: the flat copy while it is linted,
/// next to the output (in the temporary directory for standard output).
struct Scratch(PathBuf);

impl Scratch {
    fn next_to(to: Option<&Path>) -> Self {
        let dir = to
            .and_then(Path::parent)
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(std::env::temp_dir, Path::to_path_buf);
        Scratch(dir.join(format!(".sselint-redact-{}.flat.tmp", std::process::id())))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The (rule, severity) pairs whose finding counts differ between two
/// versions of a capture, as `rule (severity) N → M`, comma-separated;
/// empty when they agree (or neither reads as a capture).
fn finding_changes(before: &Path, after: &Path) -> String {
    let counts = |p: &Path| {
        let cap = capture::from_reader(
            "redact",
            Box::new(std::fs::File::open(p).ok()?),
            &capture::Options::default(),
        )
        .ok()?;
        // Each stream's counts as it is made (a socket's responses one by
        // one): the results are not kept.
        let mut all = std::collections::BTreeMap::new();
        let mut i = 0;
        let settings = sselint::lint::Settings::default();
        for stream in cap.streams {
            sselint::pipeline::lint_streams_each(
                stream,
                &settings,
                &mut sselint::pipeline::NoObserver,
                sselint::pipeline::Extras::default(),
                &mut |s| {
                    for (pair, n) in s.finding_counts() {
                        all.insert((i, pair), n);
                    }
                    i += 1;
                },
            );
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
