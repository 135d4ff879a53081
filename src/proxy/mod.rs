//! `sselint proxy`: an HTTP/1.1 proxy in front of an application's own
//! LLM traffic. Each request goes to its upstream (chosen by the dialect
//! its path names, [`Upstreams`]) and each response comes back to the
//! client byte for byte, a read at a time, as it arrives; a response that
//! is a stream is linted on the side as it passes, in flat memory, by the
//! same incremental pipeline `check -` uses ([`crate::pipeline`]).
//!
//! - [`forward`] is the forwarding path: hyper's server and client
//!   connections on tokio (rustls for HTTPS upstreams), one upstream
//!   connection per request, nothing retried, no redirect followed;
//! - [`tap`] is the linting path: the bytes of a stream, handed over as
//!   they were forwarded, linted on a blocking thread of their own, and
//!   the exchange saved as a HAR with `--save`;
//! - [`wrap`] runs a command with its SDKs' base URLs pointed at the proxy.
//!
//! What it is not for: changing traffic. Headers other than the hop-by-hop
//! ones and `Host` pass as they came, bodies are not decoded on the way,
//! an upstream's error status and a cut body reach the client as they
//! came. Nothing here prints: each finished exchange goes to the caller's
//! callback ([`Proxy::start`]), and the CLI prints it.

pub mod forward;
pub mod tap;
pub mod wrap;

use crate::dialect::Dialect;
use crate::lint::{Settings, Severity};
use crate::pipeline::StreamResult;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Where requests go: an origin (`http://127.0.0.1:8080`,
/// `https://api.openai.com`), maybe with a path prefix
/// (`https://gateway.example/openai`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upstream {
    /// `https` (through rustls) or `http`.
    pub tls: bool,
    /// The host name or address, without brackets for IPv6.
    pub host: String,
    /// The port (443 or 80 when the URL gives none).
    pub port: u16,
    /// The path prefix, without a trailing `/` (empty for an origin).
    pub prefix: String,
}

/// Why an `--upstream` URL was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--upstream {shown}: {why}")]
pub struct BadUpstream {
    /// The URL, redacted ([`crate::capture::redact_url`]).
    pub shown: String,
    /// What is wrong with it.
    pub why: String,
}

impl Upstream {
    /// Parses `http://HOST[:PORT][/PREFIX]` or `https://…`.
    ///
    /// # Errors
    /// Another scheme, no host, a port that is not a number, a query, or
    /// a user part (a key belongs in the client's headers, which pass).
    pub fn parse(url: &str) -> Result<Upstream, BadUpstream> {
        let bad = |why: &str| BadUpstream {
            shown: crate::capture::redact_url(url),
            why: why.to_string(),
        };
        let (tls, rest) = if let Some(r) = url.strip_prefix("https://") {
            (true, r)
        } else if let Some(r) = url.strip_prefix("http://") {
            (false, r)
        } else {
            return Err(bad("give an http:// or https:// URL"));
        };
        if rest.contains(['?', '#']) {
            return Err(bad(
                "an upstream has no query or fragment: the client's request brings its own",
            ));
        }
        let (authority, prefix) = match rest.find('/') {
            Some(i) => (&rest[..i], rest[i..].trim_end_matches('/')),
            None => (rest, ""),
        };
        if authority.contains('@') {
            return Err(bad(
                "an upstream has no user part: the client's own headers carry its key",
            ));
        }
        let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
            let Some((h, after)) = v6.split_once(']') else {
                return Err(bad("an IPv6 address needs its closing `]`"));
            };
            (h, after.strip_prefix(':'))
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (authority, None),
            }
        };
        if host.is_empty() {
            return Err(bad("the URL names no host"));
        }
        let port = match port {
            Some(p) => p.parse().map_err(|_| bad("the port is not a number"))?,
            None if tls => 443,
            None => 80,
        };
        Ok(Upstream {
            tls,
            host: host.to_string(),
            port,
            prefix: prefix.to_string(),
        })
    }

    /// The `Host` header for it: the host, and the port unless it is the
    /// scheme's own.
    pub fn authority(&self) -> String {
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        if self.port == if self.tls { 443 } else { 80 } {
            host
        } else {
            format!("{host}:{}", self.port)
        }
    }

    /// The path and query the request goes to: the client's, under the
    /// prefix unless it already starts with it (a client whose base URL is
    /// `http://PROXY/v1` and an upstream given as `https://HOST/v1` do not
    /// make `/v1/v1/…`).
    pub fn path_for(&self, path_and_query: &str) -> String {
        let p = &self.prefix;
        let under = path_and_query
            .strip_prefix(p.as_str())
            .is_some_and(|r| r.is_empty() || r.starts_with(['/', '?']));
        if p.is_empty() || under {
            path_and_query.to_string()
        } else {
            format!("{p}{path_and_query}")
        }
    }

    /// The URL of `path_and_query` there (for the saved HAR, redacted by
    /// the caller).
    pub fn url_for(&self, path_and_query: &str) -> String {
        format!(
            "{}://{}{}",
            if self.tls { "https" } else { "http" },
            self.authority(),
            self.path_for(path_and_query)
        )
    }
}

/// The upstream of each dialect, the plain one, and the providers'.
#[derive(Debug, Clone, Default)]
pub struct Upstreams {
    /// Per dialect (`--upstream chat=URL`), one each.
    pub by_dialect: Vec<(Dialect, Upstream)>,
    /// `--upstream URL`: the upstream of the OpenAI dialects
    /// ([`PLAIN_URL_DIALECTS`]) without their own, and of a path that
    /// names no dialect. Another dialect's request never goes there: its
    /// key is another provider's.
    pub default: Option<Upstream>,
    /// The providers' own upstreams ([`PROVIDER_UPSTREAMS`]) when no
    /// `--upstream` is given ([`Upstreams::providers`]; empty otherwise:
    /// a key never goes to a host not named). A request for a dialect's endpoint without its API base
    /// (`/messages`, which the AI SDK's Anthropic provider sends under an
    /// `ANTHROPIC_BASE_URL` that is an origin, as the proxy sets it) goes
    /// to a provider's endpoint under the base (`/v1/messages`), the one
    /// it serves. Given upstreams get the path as it came.
    pub providers: Vec<(Dialect, Upstream)>,
}

/// Each dialect's provider, the upstream of its requests when no
/// `--upstream` is given at all: the OpenAI API for Chat Completions and
/// Responses, the Anthropic API for Messages, the Gemini API for Gemini.
/// A path of no dialect among them has no upstream then (a key is never
/// sent to another provider's host).
pub const PROVIDER_UPSTREAMS: &[(&str, &str)] = &[
    ("chat", "https://api.openai.com"),
    ("responses", "https://api.openai.com"),
    ("messages", "https://api.anthropic.com"),
    ("gemini", "https://generativelanguage.googleapis.com"),
];

/// The dialects a plain `--upstream URL` serves: the OpenAI API's (Chat
/// Completions, Responses, Realtime), which OpenAI-compatible servers and
/// gateways speak. Anthropic, Gemini, Ollama and Bedrock requests carry
/// other providers' keys: they need `--upstream DIALECT=URL` (else the
/// proxy answers 502 saying so).
pub const PLAIN_URL_DIALECTS: &[&str] = &["chat", "responses", "realtime"];

impl Upstreams {
    /// The providers' own upstreams ([`PROVIDER_UPSTREAMS`]), for a proxy
    /// given no `--upstream`.
    pub fn providers() -> Upstreams {
        let mut u = Upstreams::default();
        for (dialect, url) in PROVIDER_UPSTREAMS {
            match (Dialect::parse(dialect), Upstream::parse(url)) {
                (Some(d), Ok(up)) => u.providers.push((d, up)),
                _ => unreachable!("a provider upstream is refused: {dialect}={url}"),
            }
        }
        u
    }

    /// Adds one `--upstream` value: `URL`, or `DIALECT=URL`.
    ///
    /// # Errors
    /// An unknown dialect name before `=`, a URL [`Upstream::parse`]
    /// refuses, or a dialect (or the plain URL) given twice.
    pub fn add(&mut self, spec: &str) -> Result<(), BadUpstream> {
        match spec.split_once('=').filter(|(n, _)| !n.contains("://")) {
            Some((name, url)) => {
                let Some(d) = Dialect::parse(name.trim()) else {
                    return Err(BadUpstream {
                        shown: crate::capture::redact_url(url),
                        why: format!(
                            "`{name}` is no dialect; use one of {} before `=`",
                            crate::dialect::names(", ")
                        ),
                    });
                };
                let up = Upstream::parse(url.trim())?;
                if self.by_dialect.iter().any(|(x, _)| *x == d) {
                    return Err(BadUpstream {
                        shown: crate::capture::redact_url(url),
                        why: format!(
                            "`{}` is given twice; give each dialect one --upstream",
                            d.name()
                        ),
                    });
                }
                self.by_dialect.push((d, up));
            }
            None => {
                let up = Upstream::parse(spec.trim())?;
                if self.default.is_some() {
                    return Err(BadUpstream {
                        shown: crate::capture::redact_url(spec),
                        why: "a plain URL is given twice; give one, and DIALECT=URL for the others"
                            .into(),
                    });
                }
                self.default = Some(up);
            }
        }
        Ok(())
    }

    /// Whether a request of `dialect` goes to its provider's upstream
    /// (none given for it).
    fn to_provider(&self, dialect: Option<Dialect>) -> bool {
        let Some(d) = dialect else { return false };
        let own = self.by_dialect.iter().any(|(x, _)| *x == d);
        let plain = self.default.is_some() && PLAIN_URL_DIALECTS.contains(&d.name());
        !own && !plain && self.providers.iter().any(|(x, _)| *x == d)
    }

    /// The path and query to send upstream for a request of `dialect` to
    /// `path_and_query`: as it came, or under the dialect's API base when
    /// it goes to its provider ([`Upstreams::providers`]).
    pub fn path_for(&self, dialect: Option<Dialect>, path_and_query: &str) -> String {
        match dialect {
            Some(d)
                if self.to_provider(dialect)
                    && !d.base().is_empty()
                    && d.is_endpoint(path_and_query.split('?').next().unwrap_or(""))
                    && !path_and_query.starts_with(&format!("{}/", d.base())) =>
            {
                format!("{}{path_and_query}", d.base())
            }
            _ => path_and_query.to_string(),
        }
    }

    /// Whether none is given.
    pub fn is_empty(&self) -> bool {
        self.by_dialect.is_empty() && self.default.is_none()
    }

    /// The upstream for a request of `dialect` (`None`: its path names
    /// none): its own; else, for an OpenAI dialect
    /// ([`PLAIN_URL_DIALECTS`]) or a path of none, the plain one; else its
    /// provider's when none is given; else none (the proxy answers 502).
    pub fn for_dialect(&self, dialect: Option<Dialect>) -> Option<&Upstream> {
        let Some(d) = dialect else {
            return self.default.as_ref();
        };
        let find =
            |v: &'_ [(Dialect, Upstream)]| -> Option<usize> { v.iter().position(|(x, _)| *x == d) };
        if let Some(i) = find(&self.by_dialect) {
            return Some(&self.by_dialect[i].1);
        }
        if PLAIN_URL_DIALECTS.contains(&d.name()) {
            if let Some(u) = &self.default {
                return Some(u);
            }
        }
        find(&self.providers).map(|i| &self.providers[i].1)
    }
}

/// How the proxy runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// The address to listen on (port 0: a free one).
    pub listen: SocketAddr,
    /// Where requests go.
    pub upstreams: Upstreams,
    /// How streams are linted (profile, selection, limits).
    pub settings: Settings,
    /// Save each streamed exchange as a HAR here (created if missing).
    pub save: Option<PathBuf>,
    /// Accept upstream TLS certificates that do not verify.
    pub insecure: bool,
    /// The most an upstream gets to accept the TCP connection, and then
    /// the most it gets to finish the TLS handshake (each, not together);
    /// past it the proxy answers 502 itself, saying which step stalled.
    /// [`CONNECT_TIMEOUT`] unless `--connect-timeout` says.
    pub connect_timeout: Duration,
}

/// How long an upstream gets to accept a connection, and then to finish
/// its TLS handshake: 10 s each.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Why an exchange's stream ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// The upstream ended the body.
    Complete,
    /// The upstream connection broke mid-body (what hyper said); the
    /// client's connection was cut the same way.
    UpstreamCut(String),
    /// The client went away before the end; its upstream request was
    /// closed.
    ClientGone,
    /// The proxy was stopped (Ctrl-C or SIGTERM, or the wrapped command ended) while
    /// the stream was open: it was cut.
    Shutdown,
}

impl Stop {
    /// The word for reports and the saved HAR (`complete`, `upstream-cut`,
    /// `client-gone`, `shutdown`).
    pub fn name(&self) -> &'static str {
        match self {
            Stop::Complete => "complete",
            Stop::UpstreamCut(_) => "upstream-cut",
            Stop::ClientGone => "client-gone",
            Stop::Shutdown => "shutdown",
        }
    }
}

/// One finished exchange.
#[derive(Debug)]
pub struct Exchange {
    /// Its number, from 1, in the order requests came.
    pub index: u64,
    /// The request method.
    pub method: String,
    /// The request path, without its query (which may hold a key).
    pub path: String,
    /// The upstream's status; 502 when no upstream answered (then the
    /// proxy's own answer).
    pub status: u16,
    /// The dialect: the one the path names, else the one the stream was
    /// read as.
    pub dialect: Option<Dialect>,
    /// Milliseconds from the request to the first body byte.
    pub ttft_ms: Option<f64>,
    /// Milliseconds from the request to the end of the body (to the
    /// response head for a request that is no stream).
    pub duration_ms: f64,
    /// How the stream ended.
    pub stop: Stop,
    /// The stream's lint; `None` for a response that is no stream
    /// (passed through, counted).
    pub result: Option<StreamResult>,
    /// The HAR saved (`--save`).
    pub saved: Option<PathBuf>,
    /// Why it could not be saved.
    pub save_error: Option<String>,
    /// Why no upstream answered (the proxy answered 502 itself).
    pub failed: Option<String>,
    /// A connection the upstream switched to another protocol (a 101 to
    /// an `Upgrade: websocket` request): its bytes passed both ways as
    /// they came, counted here, not linted.
    pub upgrade: Option<Upgraded>,
}

/// What passed through an upgraded connection (a WebSocket): the
/// protocol it switched to, and the bytes each way after the 101. The
/// messages are not linted: the proxy passes them through and counts
/// them (`record` of the socket, or a browser's HAR, is what `check`
/// lints).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upgraded {
    /// The `Upgrade` header of the 101 (`websocket`).
    pub protocol: String,
    /// Bytes from the client to the upstream.
    pub sent: u64,
    /// Bytes from the upstream to the client.
    pub received: u64,
}

impl Exchange {
    /// The worst finding of its stream (`None`: clean, or no stream).
    pub fn worst(&self) -> Option<Severity> {
        self.result.as_ref().and_then(crate::report::stream_worst)
    }
}

/// What the proxy saw, handed back by [`Proxy::stop`].
#[derive(Debug, Default)]
pub struct Summary {
    /// Every streamed exchange (and every failed one), in the order each
    /// ended.
    pub exchanges: Vec<Exchange>,
    /// Responses that were no stream, passed through untouched (an
    /// upgraded connection among them).
    pub passed_through: u64,
}

/// The callback that sees each exchange as it ends.
pub type OnExchange = Arc<dyn Fn(&Exchange) + Send + Sync>;

/// State shared by the connections and the lint threads.
pub(crate) struct Shared {
    pub(crate) options: Options,
    pub(crate) tls: Arc<tokio_rustls::rustls::ClientConfig>,
    pub(crate) next: AtomicU64,
    /// Streams being forwarded or linted.
    pub(crate) open: AtomicUsize,
    pub(crate) passed: AtomicU64,
    pub(crate) stopping: AtomicBool,
    pub(crate) done: Mutex<Vec<Exchange>>,
    pub(crate) on_exchange: OnExchange,
}

impl Shared {
    /// Records a finished exchange: the callback sees it first.
    pub(crate) fn finish(&self, ex: Exchange) {
        (self.on_exchange)(&ex);
        if let Ok(mut v) = self.done.lock() {
            v.push(ex);
        }
    }
}

/// A running proxy.
pub struct Proxy {
    runtime: tokio::runtime::Runtime,
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Arc<tokio::sync::Notify>,
    accept: tokio::task::JoinHandle<()>,
}

/// Why the proxy could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartError {
    /// The async runtime could not be built.
    #[error("starting the proxy's runtime: {0}")]
    Runtime(std::io::Error),
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {error}")]
    Listen {
        /// The address asked for.
        addr: SocketAddr,
        /// What the OS said.
        error: std::io::Error,
    },
    /// `--save DIR` could not be made.
    #[error("--save {dir}: {error}")]
    Save {
        /// The directory.
        dir: String,
        /// What the OS said.
        error: std::io::Error,
    },
}

impl Proxy {
    /// Binds `options.listen` and starts serving on two worker threads;
    /// `on_exchange` sees each exchange as it ends (from a lint thread).
    ///
    /// # Errors
    /// The address cannot be bound, or `--save`'s directory made.
    pub fn start(options: Options, on_exchange: OnExchange) -> Result<Proxy, StartError> {
        if let Some(dir) = &options.save {
            std::fs::create_dir_all(dir).map_err(|error| StartError::Save {
                dir: dir.display().to_string(),
                error,
            })?;
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("sselint-proxy")
            .enable_io()
            .enable_time()
            .build()
            .map_err(StartError::Runtime)?;
        let listen = options.listen;
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind(listen))
            .map_err(|error| StartError::Listen {
                addr: listen,
                error,
            })?;
        let addr = listener.local_addr().map_err(|error| StartError::Listen {
            addr: listen,
            error,
        })?;
        let tls = forward::tls_config(options.insecure);
        let shared = Arc::new(Shared {
            options,
            tls,
            next: AtomicU64::new(1),
            open: AtomicUsize::new(0),
            passed: AtomicU64::new(0),
            stopping: AtomicBool::new(false),
            done: Mutex::new(Vec::new()),
            on_exchange,
        });
        let stop = Arc::new(tokio::sync::Notify::new());
        let accept = runtime.spawn(forward::serve(listener, shared.clone(), stop.clone()));
        Ok(Proxy {
            runtime,
            addr,
            shared,
            stop,
            accept,
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Streams being forwarded or linted now.
    pub fn open_streams(&self) -> usize {
        self.shared.open.load(Ordering::SeqCst)
    }

    /// Stops: no new connection is taken; open streams get `grace` to
    /// finish, then are cut (their clients' connections closed, their
    /// lint finished with what arrived, [`Stop::Shutdown`]); every lint
    /// is waited for, so no exchange is lost.
    pub fn stop(self, grace: Duration) -> Summary {
        let Proxy {
            runtime,
            shared,
            stop,
            accept,
            ..
        } = self;
        let deadline = Instant::now() + grace;
        // Stop accepting; connections already taken go on.
        stop.notify_one();
        while shared.open.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        shared.stopping.store(true, Ordering::SeqCst);
        // The accept task holds every connection: aborting it drops them
        // (and the stream bodies in them), which ends each open lint.
        accept.abort();
        let _ = runtime.block_on(accept);
        runtime.shutdown_timeout(Duration::from_secs(1));
        // Each lint ends once its bytes stop coming.
        while shared.open.load(Ordering::SeqCst) > 0 {
            std::thread::sleep(Duration::from_millis(5));
        }
        let exchanges = shared
            .done
            .lock()
            .map(|mut v| std::mem::take(&mut *v))
            .unwrap_or_default();
        Summary {
            exchanges,
            passed_through: shared.passed.load(Ordering::SeqCst),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_upstream_is_an_origin_with_an_optional_prefix() {
        let u = Upstream::parse("https://api.example.com/v1/").unwrap();
        assert_eq!((u.tls, u.port, u.prefix.as_str()), (true, 443, "/v1"));
        assert_eq!(u.authority(), "api.example.com");
        // The client's path goes under the prefix, once.
        assert_eq!(u.path_for("/v1/chat/completions"), "/v1/chat/completions");
        assert_eq!(
            u.path_for("/chat/completions?x=1"),
            "/v1/chat/completions?x=1"
        );
        assert_eq!(u.path_for("/v10/x"), "/v1/v10/x");
        let v6 = Upstream::parse("http://[::1]:8080").unwrap();
        assert_eq!((v6.host.as_str(), v6.port), ("::1", 8080));
        assert_eq!(v6.authority(), "[::1]:8080");
        assert_eq!(v6.url_for("/v1/messages"), "http://[::1]:8080/v1/messages");
        for bad in [
            "ftp://h",
            "http://",
            "http://h:x",
            "http://u:p@h",
            "http://h/?k=1",
        ] {
            assert!(Upstream::parse(bad).is_err(), "{bad}");
        }
        // A refused URL is shown redacted: its user part may be a key.
        let e = Upstream::parse("http://user:sk-secret@h").unwrap_err();
        assert!(!e.to_string().contains("sk-secret"), "{e}");
    }

    #[test]
    fn without_upstreams_each_dialect_goes_to_its_provider() {
        let u = Upstreams::providers();
        let host = |d: &str| u.for_dialect(Dialect::parse(d)).map(|u| u.host.clone());
        assert_eq!(host("chat").as_deref(), Some("api.openai.com"));
        assert_eq!(host("responses").as_deref(), Some("api.openai.com"));
        assert_eq!(host("messages").as_deref(), Some("api.anthropic.com"));
        assert_eq!(
            host("gemini").as_deref(),
            Some("generativelanguage.googleapis.com")
        );
        assert!(u.for_dialect(Dialect::parse("chat")).unwrap().tls);
        // No provider's host takes another's requests, nor a path of no
        // dialect (its key would go to the wrong host).
        assert_eq!(host("ollama"), None);
        assert!(u.for_dialect(None).is_none());
        // An endpoint asked without its base (the AI SDK's Anthropic
        // provider under an origin) goes to the provider's own.
        let messages = Dialect::parse("messages");
        assert_eq!(u.path_for(messages, "/messages"), "/v1/messages");
        assert_eq!(u.path_for(messages, "/v1/messages?x=1"), "/v1/messages?x=1");
        assert_eq!(
            u.path_for(Dialect::parse("chat"), "/chat/completions"),
            "/v1/chat/completions"
        );
        assert_eq!(u.path_for(None, "/v1/models"), "/v1/models");
        // A given upstream gets the path as it came.
        let mut given = Upstreams::default();
        given.add("messages=http://a:1").unwrap();
        assert_eq!(given.path_for(messages, "/messages"), "/messages");
    }

    #[test]
    fn each_dialect_gets_its_own_upstream_else_the_plain_one_if_openai() {
        let mut u = Upstreams::default();
        u.add("chat=http://a:1").unwrap();
        let host =
            |u: &Upstreams, d: &str| u.for_dialect(Dialect::parse(d)).map(|u| u.host.clone());
        // One dialect's upstream alone takes no other dialect's request.
        assert_eq!(host(&u, "chat").as_deref(), Some("a"));
        assert_eq!(host(&u, "responses"), None);
        assert_eq!(host(&u, "messages"), None);
        u.add("messages=http://b:2").unwrap();
        assert_eq!(host(&u, "messages").as_deref(), Some("b"));
        assert!(u.for_dialect(None).is_none());
        // A plain URL takes the OpenAI dialects without their own and
        // paths of none; no other dialect's request (its key is another
        // provider's).
        u.add("http://c:3").unwrap();
        assert_eq!(u.for_dialect(None).unwrap().host, "c");
        assert_eq!(host(&u, "chat").as_deref(), Some("a"));
        assert_eq!(host(&u, "responses").as_deref(), Some("c"));
        assert_eq!(host(&u, "realtime").as_deref(), Some("c"));
        for d in ["gemini", "ollama", "bedrock-converse", "bedrock-invoke"] {
            assert_eq!(host(&u, d), None, "{d}");
        }
        assert_eq!(host(&u, "messages").as_deref(), Some("b"));
        assert!(u.add("nope=http://x").is_err());
        // Given twice: refused, not the last winning.
        assert!(u.add("chat=http://d:4").is_err());
        assert!(u.add("http://d:4").is_err());
        assert_eq!(host(&u, "chat").as_deref(), Some("a"));
    }
}
