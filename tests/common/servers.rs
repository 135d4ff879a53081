//! Real third-party servers for the tests, started on 127.0.0.1: the
//! LiteLLM proxy (answering with its configured `mock_response`) and
//! llama.cpp's server through llama-cpp-python (serving a tiny
//! random-weight GGUF the test writes). `.ci/run` installs both in venvs
//! under `servers/` (servers/README.md says how and which versions).
//!
//! Each server is a child process on a free port, with its stderr (and
//! stdout) in a file under the test's scratch directory; it is waited for
//! until it answers an HTTP GET (within [`START_LIMIT`]) and killed, by its
//! PID, when the last [`Arc`] to it drops. Without its venv, [`litellm`] and
//! [`llama`] call [`super::not_run`] (a failure under `CI=true`) and give
//! `None`.

use super::{not_run, root, scratch, Replay};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

/// How long a server may take to answer its first request. LiteLLM's proxy
/// takes 10–25 s to start on a busy 2-core machine; llama.cpp a second.
pub const START_LIMIT: Duration = Duration::from_secs(180);

/// The text every model of `servers/litellm.yaml` answers with.
pub const LITELLM_MOCK_TEXT: &str = "Hello from the LiteLLM mock.";

/// The fake master key the LiteLLM proxy is started with: requests must
/// send it (as `Authorization: Bearer` or `x-api-key`), so a test that
/// records with `--api-key-env` shows the key went out and was not saved.
pub const LITELLM_KEY: &str = "sk-litellm-FAKE5e4d3c2b1a0f9e8d7c6b";

/// How to install the servers' venvs (what `.ci/run` does).
pub const HOW: &str = "see servers/README.md; .ci/run installs them";

/// A running third-party server, killed (by its PID) on drop.
pub struct Server {
    /// What it is, for messages: `LiteLLM proxy`, `llama.cpp server`.
    pub name: &'static str,
    child: Mutex<Child>,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// The file holding its stderr and stdout.
    pub log: PathBuf,
    /// The scratch directory it runs in (its config, the model file).
    pub dir: super::Scratch,
    /// The upstreams it was started with (stopped after it).
    pub upstreams: Vec<Replay>,
}

impl Server {
    /// `base` + `path` (`/v1/chat/completions`).
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The last 4000 bytes of its log, for a failure message.
    pub fn log_tail(&self) -> String {
        log_tail(&self.log)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let child = self.child.get_mut().unwrap_or_else(|e| e.into_inner());
        let _ = child.kill();
        let _ = child.wait();
    }
}

fn log_tail(p: &Path) -> String {
    let text = std::fs::read(p).unwrap_or_default();
    let start = text.len().saturating_sub(4000);
    format!(
        "--- {} (last {} bytes) ---\n{}",
        p.display(),
        text.len() - start,
        String::from_utf8_lossy(&text[start..])
    )
}

/// A port on 127.0.0.1 nobody listens on now (the OS picks it; a short
/// race with other processes remains).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("binding 127.0.0.1:0")
        .port()
}

/// The status of `GET path` at `127.0.0.1:port`, or None when nothing
/// answers.
pub fn get_status(port: u16, path: &str) -> Option<u16> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut head = [0u8; 12];
    s.read_exact(&mut head).ok()?;
    std::str::from_utf8(&head[9..12]).ok()?.parse().ok()
}

/// Starts `cmd` (its output to `dir/name.log`) and waits until
/// `GET health` on `port` answers 200.
///
/// # Panics
/// When it exits or does not answer within [`START_LIMIT`]; the message
/// holds the end of its log.
fn start(
    name: &'static str,
    mut cmd: Command,
    dir: super::Scratch,
    port: u16,
    health: &str,
) -> Server {
    let log = dir.join(format!("{}.log", name.replace([' ', '.'], "-")));
    let file = std::fs::File::create(&log).unwrap();
    let child = cmd
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .spawn()
        .unwrap_or_else(|e| panic!("starting the {name} ({cmd:?}): {e}"));
    let server = Server {
        name,
        child: Mutex::new(child),
        base: format!("http://127.0.0.1:{port}"),
        log,
        dir,
        upstreams: Vec::new(),
    };
    let t0 = Instant::now();
    loop {
        if let Some(status) = server.child.lock().unwrap().try_wait().unwrap() {
            panic!(
                "the {name} exited ({status}) before answering\n{}",
                server.log_tail()
            );
        }
        if get_status(port, health) == Some(200) {
            return server;
        }
        assert!(
            t0.elapsed() < START_LIMIT,
            "the {name} did not answer GET {health} within {START_LIMIT:?}\n{}",
            server.log_tail()
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// The venv's `bin/NAME` under `servers/`, if it exists.
fn venv_bin(venv: &str, name: &str) -> Option<PathBuf> {
    let p = root().join("servers").join(venv).join("bin").join(name);
    p.exists().then_some(p)
}

/// A server shared by the tests that run at the same time; it stops when
/// the last of them lets go.
fn shared(slot: &Mutex<Weak<Server>>, make: impl FnOnce() -> Server) -> Arc<Server> {
    let mut slot = slot.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(s) = slot.upgrade() {
        return s;
    }
    let s = Arc::new(make());
    *slot = Arc::downgrade(&s);
    s
}

/// The environment that keeps a Python server off the network: no
/// telemetry, LiteLLM's bundled cost map, and a proxy that refuses every
/// connection (127.0.0.1:9) for anything but 127.0.0.1.
fn offline(cmd: &mut Command) {
    cmd.env("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        .env("LITELLM_TELEMETRY", "False")
        .env("HF_HUB_OFFLINE", "1")
        .env("HTTP_PROXY", "http://127.0.0.1:9")
        .env("HTTPS_PROXY", "http://127.0.0.1:9")
        .env("http_proxy", "http://127.0.0.1:9")
        .env("https_proxy", "http://127.0.0.1:9")
        .env("NO_PROXY", "127.0.0.1,localhost")
        .env("no_proxy", "127.0.0.1,localhost");
}

/// The Chat Completions capture the LiteLLM proxy's `bridge` model gets
/// from its upstream, an `sselint replay` on 127.0.0.1.
pub const LITELLM_UPSTREAM_SAMPLE: &str = "samples/good/openai-usage.sse";

/// The probe scenario set the LiteLLM proxy's `scenarios` model gets from
/// its upstream, an `sselint replay DIR` on 127.0.0.1 that answers each
/// Chat request with the capture of the scenario it is.
pub const LITELLM_SCENARIO_SET: &str = "tests/fixtures/probe/good";

/// The LiteLLM proxy with `servers/litellm.yaml` and the master key
/// [`LITELLM_KEY`], shared by the tests running at once: its `mock-gpt` and
/// `mock-claude` models answer [`LITELLM_MOCK_TEXT`] by `mock_response`; its
/// `bridge` model streams from an `sselint replay` of
/// [`LITELLM_UPSTREAM_SAMPLE`] (`SSELINT_UPSTREAM`), and its `scenarios`
/// model from an `sselint replay` of [`LITELLM_SCENARIO_SET`]
/// (`SSELINT_SCENARIO_UPSTREAM`), which LiteLLM translates for
/// `/v1/responses` and `/v1/messages`. None (and a "not run" notice, a
/// failure under `CI=true`) without `servers/.venv-litellm`.
pub fn litellm(test: &str) -> Option<Arc<Server>> {
    static SLOT: Mutex<Weak<Server>> = Mutex::new(Weak::new());
    let Some(bin) = venv_bin(".venv-litellm", "litellm") else {
        not_run(
            test,
            &format!("it needs the LiteLLM proxy in servers/.venv-litellm ({HOW})"),
        );
        return None;
    };
    Some(shared(&SLOT, || {
        let dir = scratch("litellm-server");
        let upstream = Replay::start(&root().join(LITELLM_UPSTREAM_SAMPLE), &[]);
        let scenarios = Replay::start(&root().join(LITELLM_SCENARIO_SET), &[]);
        let port = free_port();
        let mut cmd = Command::new(bin);
        cmd.arg("--config")
            .arg(root().join("servers/litellm.yaml"))
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .env("LITELLM_MASTER_KEY", LITELLM_KEY)
            .env("SSELINT_UPSTREAM", format!("http://{}/v1", upstream.addr))
            .env(
                "SSELINT_SCENARIO_UPSTREAM",
                format!("http://{}/v1", scenarios.addr),
            );
        offline(&mut cmd);
        let mut server = start("LiteLLM proxy", cmd, dir, port, "/health/liveliness");
        server.upstreams = vec![upstream, scenarios];
        server
    }))
}

/// llama.cpp's server (llama-cpp-python's `llama_cpp.server`) serving a
/// tiny random-weight GGUF written by `servers/tiny_gguf.py` (model name
/// `tiny`, a 1024-token context), shared by the tests running at once. It
/// runs with `--interrupt_requests False`: by default a new request stops
/// the stream in progress (which then ends with `[DONE]` and no
/// finish_reason, minutes later; servers/README.md), so tests running at
/// once would cut each other's streams. None (and a "not run" notice, a
/// failure under `CI=true`) without `servers/.venv-llama` or its packages.
pub fn llama(test: &str) -> Option<Arc<Server>> {
    static SLOT: Mutex<Weak<Server>> = Mutex::new(Weak::new());
    let Some(python) = venv_bin(".venv-llama", "python") else {
        not_run(
            test,
            &format!("it needs llama-cpp-python in servers/.venv-llama ({HOW})"),
        );
        return None;
    };
    let probe = Command::new(&python)
        .args(["-c", "import gguf, llama_cpp.server"])
        .output()
        .expect("running the llama venv's python");
    if !probe.status.success() {
        not_run(
            test,
            &format!(
                "servers/.venv-llama lacks gguf or llama_cpp.server ({HOW}): {}",
                String::from_utf8_lossy(&probe.stderr).trim()
            ),
        );
        return None;
    }
    Some(shared(&SLOT, || {
        let dir = scratch("llama-server");
        let model = dir.join("tiny.gguf");
        let out = Command::new(&python)
            .arg(root().join("servers/tiny_gguf.py"))
            .arg(&model)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "servers/tiny_gguf.py failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let port = free_port();
        let mut cmd = Command::new(&python);
        cmd.args(["-m", "llama_cpp.server", "--model"])
            .arg(&model)
            .args(["--model_alias", "tiny"])
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--n_ctx", "1024", "--n_threads", "1", "--seed", "15"])
            .args(["--interrupt_requests", "False"]);
        offline(&mut cmd);
        start("llama.cpp server", cmd, dir, port, "/v1/models")
    }))
}
