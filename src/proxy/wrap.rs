//! `sselint proxy -- CMD ARGS…`: the command runs with its SDKs' base URLs
//! pointed at the proxy, and the proxy stops when it ends.
//!
//! The variables are the SDKs' own (each read where the SDK builds its
//! client): `OPENAI_BASE_URL` (openai-python, openai-node, and the
//! libraries built on them; it takes the `/v1` base), `ANTHROPIC_BASE_URL`
//! (the Anthropic SDKs; the origin), `GOOGLE_GEMINI_BASE_URL` (google-genai
//! for Python reads it in `_base_url.py`; the origin) and `OLLAMA_HOST`
//! (ollama-python and ollama-js; the origin). A client given a base URL in
//! its code keeps that one: its traffic does not pass.

use std::net::SocketAddr;
use std::process::{Child, Command, ExitStatus};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The variables set for the child, and the path each base URL takes
/// after the proxy's origin.
pub const BASE_URL_VARS: &[(&str, &str)] = &[
    ("OPENAI_BASE_URL", "/v1"),
    ("ANTHROPIC_BASE_URL", ""),
    ("GOOGLE_GEMINI_BASE_URL", ""),
    ("OLLAMA_HOST", ""),
];

/// Each base URL variable with its value for a proxy at `addr`.
pub fn child_env(addr: SocketAddr) -> Vec<(&'static str, String)> {
    BASE_URL_VARS
        .iter()
        .map(|(var, path)| (*var, format!("http://{addr}{path}")))
        .collect()
}

/// How the wrapped command ended.
#[derive(Debug)]
pub enum ChildEnd {
    /// It exited (or was ended by a signal) on its own.
    Exited(ExitStatus),
    /// Ctrl-C came first; it was given `grace` to end, then killed.
    Interrupted(Option<ExitStatus>),
}

/// Starts `program` with `args` and the base URL variables of a proxy at
/// `addr`.
///
/// # Errors
/// The program cannot be started (not found, not executable).
pub fn spawn(program: &str, args: &[String], addr: SocketAddr) -> std::io::Result<Child> {
    Command::new(program)
        .args(args)
        .envs(child_env(addr))
        .spawn()
}

/// Waits for `child` to end, or for `stop` (Ctrl-C or SIGTERM); a child still running
/// `grace` after Ctrl-C (a terminal's Ctrl-C reaches it too) is killed.
pub fn wait(child: &mut Child, stop: &AtomicBool, grace: Duration) -> ChildEnd {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return ChildEnd::Exited(status),
            Ok(None) => {}
            Err(_) => return ChildEnd::Interrupted(None),
        }
        if stop.load(Ordering::SeqCst) {
            let deadline = Instant::now() + grace;
            while Instant::now() < deadline {
                if let Ok(Some(status)) = child.try_wait() {
                    return ChildEnd::Interrupted(Some(status));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            return ChildEnd::Interrupted(child.wait().ok());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
