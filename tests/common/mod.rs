//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod servers;

use serde_json::Value;
use sselint::capture::{self, Options};
use sselint::lint::{Diagnostic, Settings, Severity};
use sselint::pipeline::{lint_capture, FileResult, NoObserver};
use std::path::{Path, PathBuf};

/// The one stream of a capture read from `bytes` in reads of `step`
/// bytes (0: all at once), under `settings`: the verdict must not depend
/// on how the bytes arrive.
pub fn lint_stream_in_reads(
    bytes: &[u8],
    step: usize,
    settings: &Settings,
) -> sselint::pipeline::StreamResult {
    struct Trickle(Vec<u8>, usize, usize);
    impl std::io::Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = (self.0.len() - self.1).min(self.2).min(buf.len());
            buf[..n].copy_from_slice(&self.0[self.1..self.1 + n]);
            self.1 += n;
            Ok(n)
        }
    }
    let step = if step == 0 { bytes.len().max(1) } else { step };
    let cap = capture::from_reader(
        "stream",
        Box::new(Trickle(bytes.to_vec(), 0, step)),
        &Options::default(),
    )
    .expect("reads as a capture");
    let mut res = lint_capture(cap, settings, &mut NoObserver);
    assert_eq!(res.streams.len(), 1);
    res.streams.remove(0)
}

/// `sselint check --format json` on a gateway log of one record
/// (`--input-format jsonl`), written into `dir` as `gateway.jsonl`:
/// `record`'s body goes as `body_base64` with its `status`, `headers` and
/// `path`. Returns the exit code, the first stream's JSON, and the whole
/// output for messages.
pub fn check_gateway_record(dir: &Path, record: &Value) -> (Option<i32>, Value, String) {
    let log = dir.join("gateway.jsonl");
    std::fs::write(&log, format!("{record}\n")).unwrap();
    let (code, out, err) = sselint(&[
        "check",
        "--no-config",
        "--input-format",
        "jsonl",
        "--format",
        "json",
        log.to_str().unwrap(),
    ]);
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    (
        code,
        v["files"][0]["streams"][0].clone(),
        format!("{out}{err}"),
    )
}

/// Lints `bytes` as one capture read as `dialect` (`None`: told from
/// the stream), under otherwise default settings.
pub fn lint_as(bytes: &[u8], dialect: Option<sselint::dialect::Dialect>) -> FileResult {
    let cap = capture::from_reader(
        "t.sse",
        Box::new(std::io::Cursor::new(bytes.to_vec())),
        &Options::default(),
    )
    .unwrap();
    let settings = Settings {
        dialect,
        ..Settings::default()
    };
    lint_capture(cap, &settings, &mut NoObserver)
}

/// The project root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `samples/<dir>`, sorted.
pub fn samples(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("samples").join(dir))
        .unwrap_or_else(|e| panic!("samples/{dir}: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    v.sort();
    v
}

/// Lints a file under the default settings.
pub fn lint_file(p: &Path) -> FileResult {
    lint_file_with(p, &Settings::default())
}

/// Lints a file under `settings`.
pub fn lint_file_with(p: &Path, settings: &Settings) -> FileResult {
    let cap = capture::open(p.to_str().unwrap(), &Options::default())
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    lint_capture(cap, settings, &mut NoObserver)
}

/// Lints bytes as a capture.
pub fn lint_bytes(b: &[u8]) -> FileResult {
    let cap = capture::from_reader(
        "bytes",
        Box::new(std::io::Cursor::new(b.to_vec())),
        &Options::default(),
    )
    .expect("bytes read as a capture");
    lint_capture(cap, &Settings::default(), &mut NoObserver)
}

/// All diagnostics of a result.
pub fn diags(r: &FileResult) -> Vec<&Diagnostic> {
    r.streams
        .iter()
        .flat_map(|s| s.diagnostics.iter())
        .collect()
}

/// Rule names at or above `min`.
pub fn rules_at_least(r: &FileResult, min: Severity) -> Vec<&'static str> {
    diags(r)
        .into_iter()
        .filter(|d| d.severity >= min)
        .map(|d| d.rule)
        .collect()
}

/// The text of choice 0 of stream 0.
pub fn text0(r: &FileResult) -> String {
    r.streams[0]
        .answer
        .choices
        .get(&0)
        .map(|c| c.text.kept.clone())
        .unwrap_or_default()
}

/// Every mutation of `v` (a part of `root` at `path`): remove a key, or
/// set it to a value of each JSON type; each is `(what, mutated root)`.
pub fn mutations(v: &Value, path: &mut Vec<String>, out: &mut Vec<(String, Value)>, root: &Value) {
    use serde_json::json;
    let replacements = [
        json!(null),
        json!(7),
        json!("x"),
        json!(true),
        json!([]),
        json!({}),
        json!(""),
        json!(-1),
        json!(1.5),
        json!(["x"]),
    ];
    match v {
        Value::Object(o) => {
            for (k, child) in o {
                path.push(k.clone());
                let mut removed = root.clone();
                remove_at(&mut removed, path);
                out.push((format!("remove /{}", path.join("/")), removed));
                for r in &replacements {
                    let mut m = root.clone();
                    *get_mut(&mut m, path) = r.clone();
                    out.push((format!("/{} = {r}", path.join("/")), m));
                }
                mutations(child, path, out, root);
                path.pop();
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                path.push(i.to_string());
                mutations(child, path, out, root);
                path.pop();
            }
        }
        _ => {}
    }
}

pub fn get_mut<'v>(v: &'v mut Value, path: &[String]) -> &'v mut Value {
    path.iter().fold(v, |cur, p| match cur {
        Value::Array(a) => &mut a[p.parse::<usize>().unwrap()],
        other => &mut other[p.as_str()],
    })
}

pub fn remove_at(v: &mut Value, path: &[String]) {
    let (last, parent) = path.split_last().unwrap();
    if let Value::Object(o) = get_mut(v, parent) {
        o.remove(last);
    }
}

/// A chunk with every field OpenAI's schema describes, all valid.
pub fn full_chunk() -> Value {
    serde_json::json!({"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini",
        "system_fingerprint":"fp_1","service_tier":"default","obfuscation":"abc",
        "choices":[{"index":0,"delta":{"role":"assistant","content":"Hi","refusal":null,
            "tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]},
            "logprobs":null,"finish_reason":null}],
        "usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2,
            "prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}})
}

/// A running `sselint replay` on 127.0.0.1 (port picked by the OS),
/// stopped on drop.
pub struct Replay {
    /// The replay process.
    pub child: std::process::Child,
    /// The endpoint it serves: `http://127.0.0.1:PORT/v1/chat/completions`
    /// (`/v1/responses`, `/v1/messages` for those dialects' captures).
    pub url: String,
    /// `127.0.0.1:PORT`.
    pub addr: String,
    /// The line it printed on start.
    pub line: String,
}

impl Replay {
    /// Serves `capture` with the extra `replay` options.
    pub fn start(capture: &Path, extra: &[&str]) -> Self {
        Self::start_to(capture, extra, std::process::Stdio::null())
    }

    /// [`Replay::start`], its stderr going to `stderr` (`Stdio::piped()`
    /// for [`Replay::stop`] to read it).
    pub fn start_to(capture: &Path, extra: &[&str], stderr: std::process::Stdio) -> Self {
        use std::io::{BufRead, BufReader};
        use std::process::{Command, Stdio};
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("sselint"))
            .arg("replay")
            .arg(capture)
            .args(["--listen", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|s| s.split(['/', ' ']).next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_string();
        // The endpoint it names (`(POST /v1/messages)`); Chat's with
        // --any-path.
        let path = line
            .split("(POST ")
            .nth(1)
            .and_then(|s| s.split(')').next())
            .unwrap_or("/v1/chat/completions")
            .to_string();
        Replay {
            child,
            url: format!("http://{addr}{path}"),
            addr,
            line,
        }
    }
}

impl Replay {
    /// Stops the server and returns what it wrote to stderr (empty unless
    /// started with a piped stderr, [`Replay::start_to`]).
    pub fn stop(mut self) -> String {
        use std::io::Read;
        let _ = self.child.kill();
        let _ = self.child.wait();
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            e.read_to_string(&mut err).unwrap();
        }
        err
    }
}

impl Drop for Replay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A fresh, empty scratch directory for one test, removed when the value
/// is dropped, so repeated runs leave nothing in the temp dir. It derefs to
/// the directory's `Path`.
pub struct Scratch(PathBuf);

impl Scratch {
    /// `$TMPDIR/sselint-NAME-PID-N`, the first N whose directory this call
    /// creates. Test files run concurrently in one process, and two of them
    /// may choose the same NAME (each file has its own copy of this module,
    /// so a counter alone would not tell them apart): creating the directory
    /// claims it, and a directory that already exists, another test's or one
    /// left behind, is never touched.
    ///
    /// # Panics
    /// When the temp dir cannot be written.
    pub fn new(name: &str) -> Self {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let tmp = std::env::temp_dir();
        loop {
            let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let d = tmp.join(format!("sselint-{name}-{}-{n}", std::process::id()));
            match std::fs::create_dir(&d) {
                Ok(()) => return Scratch(d),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => panic!("creating {}: {e}", d.display()),
            }
        }
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One Chat chunk as an SSE event: choice 0 adds `content`, with
/// `finish` as the finish_reason's JSON (`null`, `"stop"`).
pub fn chat_chunk(content: &str, finish: &str) -> String {
    format!("data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{content}\"}},\"finish_reason\":{finish}}}]}}\n\n")
}

/// A HAR of one POST to `/v1/chat/completions` answered 200 with
/// `content` (its `text`, `size`, and `encoding` when given) and these
/// response headers beside `Content-Type: text/event-stream`.
pub fn one_entry_har(content: Value, headers: &[(&str, &str)]) -> Value {
    let mut hs = vec![serde_json::json!({"name": "Content-Type", "value": "text/event-stream"})];
    hs.extend(
        headers
            .iter()
            .map(|(n, v)| serde_json::json!({"name": n, "value": v})),
    );
    let mut content = content;
    content["mimeType"] = "text/event-stream".into();
    serde_json::json!({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [{
        "startedDateTime": "2026-01-01T00:00:00Z", "time": 1,
        "request": {"method": "POST", "url": "https://api.example.com/v1/chat/completions", "httpVersion": "HTTP/1.1", "headers": [], "cookies": [], "queryString": [], "headersSize": -1, "bodySize": -1},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": hs, "cookies": [],
            "content": content, "redirectURL": "", "headersSize": -1, "bodySize": -1},
        "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}
    }]}})
}

/// A fresh scratch directory for one test, removed on drop.
pub fn scratch(name: &str) -> Scratch {
    Scratch::new(&format!("test-{name}"))
}

/// A minimal chat request body in `dir/request.json`.
pub fn request_file(dir: &Path) -> PathBuf {
    let p = dir.join("request.json");
    std::fs::write(
        &p,
        r#"{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}"#,
    )
    .unwrap();
    p
}

/// Lints a rule example: its bytes, with its request (as a HAR would hold
/// it) and its `--max-event-bytes`, under the default settings.
pub fn lint_example(bytes: &[u8], request: Option<&str>, limit: Option<usize>) -> Vec<Diagnostic> {
    let mut cap = sselint::capture::from_reader(
        "example",
        Box::new(std::io::Cursor::new(bytes.to_vec())),
        &Options::default(),
    )
    .expect("example reads as a capture");
    if let Some(body) = request {
        for s in &mut cap.streams {
            s.request = Some(sselint::capture::Request {
                method: "POST".into(),
                url: "/v1/chat/completions".into(),
                headers: Vec::new(),
                body: Some(body.to_string()),
            });
        }
    }
    let mut settings = Settings::default();
    if let Some(n) = limit {
        settings.max_event_bytes = n;
    }
    let res = lint_capture(cap, &settings, &mut NoObserver);
    res.streams
        .into_iter()
        .flat_map(|s| s.diagnostics.into_iter())
        .collect()
}

/// A check that waits for the client harness to read a dialect (issue 37:
/// no client of the Ollama or Bedrock dialects is in rules/observed.json
/// yet): says so past the test harness's capture, as `UNOBSERVED`, and does
/// not fail under `CI=true`, where no install would make it run.
/// `observed::rules_no_client_has_read_say_so` holds those rules to saying
/// it in their `severity_basis`.
pub fn awaits_observation(test: &str, why: &str) {
    let _ = std::io::Write::write_all(
        &mut std::io::stderr(),
        format!("UNOBSERVED {test}: {why}\n").as_bytes(),
    );
}

/// A test that cannot run here (a tool or package is missing): says so past
/// the test harness's capture, so `cargo test` shows it, and fails under
/// `CI=true`, where everything the deeper tests need is installed.
///
/// # Panics
/// When `CI=true`.
pub fn not_run(test: &str, why: &str) {
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI=true and {test} cannot run: {why}"
    );
    let _ = std::io::Write::write_all(
        &mut std::io::stderr(),
        format!("SKIPPED {test}: {why}\n").as_bytes(),
    );
}

/// Findings (rule, severity, offset, line, column, message) and the answer
/// (choice 0's text, reasoning, finish, tool-call arguments; the usage, the
/// ending and the dialect) of `body` fed to one linter in the pieces `cuts`
/// makes (cut points past the end or going backwards are skipped). A
/// stream's verdict must not depend on how its bytes arrive: the dialect
/// tests compare this for the whole body and for splits of it.
pub fn split_verdict(body: &[u8], cuts: &[usize]) -> (Vec<String>, String) {
    use sselint::checks::{Context, Linter};
    use sselint::sse::Parser;
    let settings = Settings::default();
    let mut l = Linter::new(&settings, Context::default());
    let mut p = Parser::new();
    let mut last = 0;
    for &c in cuts {
        let c = c.min(body.len());
        if c >= last {
            l.observe_bytes(&body[last..c]);
            p.feed(&body[last..c], &mut l);
            last = c;
        }
    }
    l.observe_bytes(&body[last..]);
    p.feed(&body[last..], &mut l);
    let f = p.finish(&mut l);
    let r = l.finish(&f, &[]);
    let found = r
        .out
        .diagnostics
        .iter()
        .map(|d| {
            format!(
                "{} {} {}:{}:{} {}",
                d.rule,
                d.severity,
                d.location.byte_offset,
                d.location.line,
                d.location.column,
                d.message
            )
        })
        .collect();
    let c = r.answer.choices.get(&0);
    let answer = format!(
        "{:?} {:?} {:?} {:?} {:?} {:?} {:?}",
        c.map(|c| &c.text.kept),
        c.map(|c| &c.reasoning.kept),
        c.and_then(|c| c.finish_reason.as_ref()),
        c.map(|c| c
            .tool_calls
            .values()
            .map(|t| &t.arguments)
            .collect::<Vec<_>>()),
        r.answer.usage,
        r.ending,
        r.dialect
    );
    (found, answer)
}

/// The shipped samples (`samples/good`, `providers`, `bad`) whose file
/// name `keep` accepts, sorted.
pub fn samples_named(keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = ["good", "providers", "bad"]
        .iter()
        .flat_map(|d| samples(d))
        .filter(|p| p.file_name().is_some_and(|n| keep(&n.to_string_lossy())))
        .collect();
    v.sort();
    v
}

/// Asserts that `body` gives the same [`split_verdict`] whole and fed one
/// byte at a time.
pub fn assert_same_verdict_bytewise(body: &[u8], what: &str) {
    let whole = split_verdict(body, &[]);
    let bytewise: Vec<usize> = (0..body.len()).collect();
    assert_eq!(whole, split_verdict(body, &bytewise), "{what}");
}

/// Asserts that `body` gives the same [`split_verdict`] whole and split in
/// two at every byte; returns the whole verdict.
pub fn assert_same_verdict_at_every_split(body: &[u8]) -> (Vec<String>, String) {
    let whole = split_verdict(body, &[]);
    for cut in 0..=body.len() {
        assert_eq!(whole, split_verdict(body, &[cut]), "split at byte {cut}");
    }
    whole
}

/// `n` sorted pseudo-random cut points in `0..=len` (xorshift on `state`,
/// so a run is reproducible).
pub fn random_cuts(state: &mut u64, len: usize, n: usize) -> Vec<usize> {
    let mut cuts: Vec<usize> = (0..n)
        .map(|_| {
            *state ^= *state << 13;
            *state ^= *state >> 7;
            *state ^= *state << 17;
            (*state % (len as u64 + 1)) as usize
        })
        .collect();
    cuts.sort_unstable();
    cuts
}

/// Every string made from `seed` by deleting one character, replacing it
/// with one that matters to JSON (a quote, a backslash, a digit, a space,
/// a brace), or inserting one of those before it: how the dialects' tests
/// change a delta in its compact form, byte by byte.
#[allow(dead_code)]
pub fn char_changes(seed: &str) -> Vec<String> {
    let subs = ["", "\"", "\\", "0", " ", "}"];
    let mut out = Vec::new();
    for (at, c) in seed.char_indices() {
        let end = at + c.len_utf8();
        for sub in subs {
            out.push(format!("{}{sub}{}", &seed[..at], &seed[end..]));
            if !sub.is_empty() {
                out.push(format!("{}{sub}{}", &seed[..at], &seed[at..]));
            }
        }
    }
    out
}

/// Whether the client record (`rules/observed.json`) has no client of
/// `dialect` (a dialect name): a dialect added before its clients were
/// run through the harness. What belongs to such a dialect cannot be
/// judged by the record yet; the tests that judge by it leave it out and
/// say so through [`not_run`] (which fails under `CI=true`), until
/// `clients/run.py` records its clients.
pub fn awaits_clients(dialect: &str) -> bool {
    let rec = sselint::lint::observed::record();
    let known = sselint::dialect::ALL.iter().any(|d| d.name() == dialect);
    known && !rec.clients.iter().any(|c| c.dialect == dialect)
}

/// Whether no client of the harness has read `rule`'s shapes yet: a rule of
/// a dialect that [`awaits_clients`]. (The socket rules, group `socket`,
/// are read by the harness's WebSocket-mode clients, record dialect
/// `responses-ws`; the Realtime rules by its Realtime clients, `realtime`.)
pub fn rule_awaits_clients(rule: &sselint::lint::Rule) -> bool {
    rule.dialect.is_some_and(|d| awaits_clients(d.name()))
}

/// Whether capture `p`'s first stream is a WebSocket's message log (a HAR
/// socket entry, a message log file).
pub fn is_socket_capture(p: &Path) -> bool {
    sselint::capture::open(p.to_str().unwrap_or(""), &Options::default())
        .is_ok_and(first_stream_is_socket)
}

/// Whether `cap`'s first stream is a WebSocket's message log.
pub fn first_stream_is_socket(cap: sselint::capture::Capture) -> bool {
    use sselint::transport::Transport;
    cap.streams
        .into_iter()
        .next()
        .is_some_and(|s| match s.body {
            sselint::capture::Body::Bytes(b) => Transport::socket_of(&b).is_some(),
            sselint::capture::Body::Reader(mut r) => {
                let mut head = Vec::new();
                let _ =
                    std::io::Read::read_to_end(&mut std::io::Read::take(&mut r, 65536), &mut head);
                Transport::socket_of(&head).is_some()
            }
        })
}

/// The dialect a capture file's first stream is read as (its name), or
/// `None`.
pub fn file_dialect(p: &Path) -> Option<&'static str> {
    lint_file(p)
        .streams
        .first()
        .and_then(|s| s.dialect)
        .map(|d| d.name())
}

/// Runs the `sselint` binary with `args` (colour off): its exit code,
/// stdout and stderr.
pub fn sselint(args: &[&str]) -> (Option<i32>, String, String) {
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("sselint"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// How deep the long property and mutation runs go, from the environment
/// variable `SSELINT_TEST_DEPTH`: unset (or `default`), a sample that keeps
/// `cargo test` on a fresh clone within minutes; `full`, every mutation and
/// every property case, as `.ci/run` sets it.
///
/// # Panics
/// On any other value, naming the variable and the values it takes.
pub fn full_depth() -> bool {
    match std::env::var("SSELINT_TEST_DEPTH").as_deref() {
        Err(_) | Ok("" | "default") => false,
        Ok("full") => true,
        Ok(other) => panic!("SSELINT_TEST_DEPTH={other:?}: it takes `full` or `default`"),
    }
}

/// Proptest cases: `default` at the default depth, `full` at full depth
/// ([`full_depth`]).
pub fn cases(default: u32, full: u32) -> u32 {
    if full_depth() {
        full
    } else {
        default
    }
}

/// At full depth ([`full_depth`]) all of `items`; at the default depth
/// about `default` of them, evenly spaced from the first, so every part of
/// an ordered corpus (each field's mutations follow one another) keeps
/// some. Deterministic: a failure repeats on the next run.
pub fn sample<T>(items: Vec<T>, default: usize) -> Vec<T> {
    if full_depth() || items.len() <= default {
        return items;
    }
    let step = items.len().div_ceil(default.max(1));
    items.into_iter().step_by(step).collect()
}

/// The message log a session script writes: `python3 scripts/SCRIPT log
/// KIND` (scripts/ws_session.py, scripts/realtime_session.py), one JSON
/// record a line.
pub fn session_log(script: &str, kind: &str) -> String {
    let out = std::process::Command::new("python3")
        .arg(root().join("scripts").join(script))
        .args(["log", kind])
        .output()
        .unwrap_or_else(|e| panic!("python3 runs scripts/{script}: {e}"));
    assert!(out.status.success(), "{kind}");
    String::from_utf8(out.stdout).unwrap()
}

/// That log written to `KIND.jsonl` in the scratch folder `DIR_PREFIX-KIND`
/// and linted as a file.
pub fn lint_session_log(script: &str, dir_prefix: &str, kind: &str) -> FileResult {
    let dir = scratch(&format!("{dir_prefix}-{kind}"));
    let p = dir.join(format!("{kind}.jsonl"));
    std::fs::write(&p, session_log(script, kind)).unwrap();
    lint_file(&p)
}

/// (rule, line) of every finding of every stream.
pub fn findings_by_line(r: &FileResult) -> Vec<(&'static str, u64)> {
    r.streams
        .iter()
        .flat_map(|s| s.diagnostics.iter().map(|d| (d.rule, d.location.line)))
        .collect()
}
