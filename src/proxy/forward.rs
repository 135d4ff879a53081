//! The forwarding path: hyper's HTTP/1.1 server takes the client's
//! request, a hyper client connection of its own (plain TCP, or rustls
//! for `https://`) sends it upstream, and the response comes back as the
//! upstream's reads arrive, each body frame handed to the client as soon
//! as hyper yields it.
//!
//! A response that is a stream goes through a [`Tap`], which also hands
//! a copy of each frame to the stream's lint thread ([`super::tap`]). The
//! tap waits for the lint only when [`LINT_QUEUE_BYTES`] are already
//! queued for it, and only before it reads the next frame: a frame read is
//! forwarded at once.
//!
//! Memory per open stream is bounded by sizes set here, not by the
//! stream's length: the upstream connection reads [`UPSTREAM_READ_BYTES`]
//! at a time, the client connection buffers at most [`CLIENT_WRITE_BYTES`]
//! (hyper copies each frame into it, so no frame keeps an upstream read
//! buffer alive), and the lint's queue holds copies, at most
//! [`LINT_QUEUE_BYTES`].
//!
//! An upstream that cuts the body cuts the client's connection too, but
//! only once every byte before the cut has reached the client's socket:
//! the client connection counts its flushes ([`Flushes`]), and hyper
//! flushes its socket only with its write buffer empty.
//!
//! Not done here: retries (an upstream that fails gives the client a 502,
//! or the cut it made), redirects (a 3xx is the client's to follow),
//! decoding (`Content-Encoding` bodies pass encoded), HTTP/2, and linting
//! an upgraded connection's messages (a WebSocket's bytes pass both ways
//! as they come and are counted, [`switch`]).

use super::tap::{self, StopSlot};
use super::{Exchange, Shared, Stop, Upstream};
use bytes::Bytes;
use http_body_util::{combinators::UnsyncBoxBody, BodyExt, Full};
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::{Instant, SystemTime};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::mpsc;

/// Bytes queued for a stream's lint before the tap waits for it: 64 KiB
/// (a read larger than that waits for an empty queue).
pub const LINT_QUEUE_BYTES: usize = 64 * 1024;

/// The most an upstream connection reads at once: 16 KiB (hyper's own
/// buffer would grow to about 400 KiB on a fast upstream).
pub const UPSTREAM_READ_BYTES: usize = 16 * 1024;

/// The most a client connection buffers before hyper waits for its
/// socket (and stops reading the upstream): 64 KiB.
pub const CLIENT_WRITE_BYTES: usize = 64 * 1024;

/// The most of a request body kept for the lint (what it asked: usage,
/// `n`, tools) and the saved HAR: 1 MiB; a longer one is forwarded whole
/// and kept by none.
pub const REQUEST_COPY_BYTES: usize = 1024 * 1024;

/// Headers that belong to one connection, never forwarded (RFC 9110
/// §7.6.1), compared in lower case.
const HOP_BY_HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

type ProxyBody = UnsyncBoxBody<Bytes, hyper::Error>;

/// The TLS client configuration for HTTPS upstreams: `record`'s
/// ([`crate::live::tls::config`]: ring, the webpki roots; with
/// `insecure`, any certificate), HTTP/1.1 by ALPN.
pub(crate) fn tls_config(insecure: bool) -> Arc<tokio_rustls::rustls::ClientConfig> {
    crate::live::tls::config(insecure, &[b"http/1.1"])
}

/// Takes connections until `stop` is notified, then serves the ones taken
/// until this task is aborted (which drops them all).
pub(crate) async fn serve(
    listener: tokio::net::TcpListener,
    shared: Arc<Shared>,
    stop: Arc<tokio::sync::Notify>,
) {
    let mut conns = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((tcp, _)) = accepted else { continue };
                let _ = tcp.set_nodelay(true);
                let shared = shared.clone();
                conns.spawn(async move {
                    let flushes = Arc::new(Flushes::default());
                    let io = Counted { io: tcp, flushes: flushes.clone() };
                    let service = hyper::service::service_fn(move |req| {
                        let shared = shared.clone();
                        let flushes = flushes.clone();
                        async move { Ok::<_, std::convert::Infallible>(handle(req, shared, flushes).await) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        // Each frame copied into one buffer (no frame kept
                        // until written), at most CLIENT_WRITE_BYTES.
                        .writev(false)
                        .max_buf_size(CLIENT_WRITE_BYTES)
                        .serve_connection(TokioIo::new(io), service)
                        .with_upgrades()
                        .await;
                });
            }
            () = stop.notified() => break,
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
        }
    }
    drop(listener);
    while conns.join_next().await.is_some() {}
}

/// The proxy's own answer when no upstream did: a JSON error body with
/// `status`, saying why (never the request's headers or body).
fn own_answer(status: StatusCode, why: &str) -> Response<ProxyBody> {
    let body = serde_json::json!({"error": {"message": format!("sselint proxy: {why}"), "type": "proxy_error"}});
    let mut r = Response::new(
        Full::new(Bytes::from(body.to_string()))
            .map_err(|never| match never {})
            .boxed_unsync(),
    );
    *r.status_mut() = status;
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    r
}

/// An upstream connection: plain TCP or rustls over it.
trait Conn: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Conn for T {}

/// Why an upstream connection was not made.
enum ConnectError {
    /// TCP connect or TLS failed (what the OS or rustls said).
    Io(std::io::Error),
    /// The TCP connection was not accepted within the timeout.
    ConnectTimeout(std::time::Duration),
    /// The TLS handshake did not finish within the timeout.
    HandshakeTimeout(std::time::Duration),
}

impl std::fmt::Display for ConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConnectError::Io(e) => write!(f, "{e}"),
            ConnectError::ConnectTimeout(t) => write!(
                f,
                "no TCP connection within {} (--connect-timeout)",
                secs(*t)
            ),
            ConnectError::HandshakeTimeout(t) => write!(
                f,
                "the connection was accepted but no TLS handshake finished within {} (--connect-timeout; is it a plain http:// port?)",
                secs(*t)
            ),
        }
    }
}

/// `1.5 s`, `10 s`.
fn secs(t: std::time::Duration) -> String {
    format!("{} s", t.as_secs_f64())
}

/// Connects to `up`, the TCP connect and then the TLS handshake each
/// bounded by `timeout`.
async fn connect(
    up: &Upstream,
    tls: &Arc<tokio_rustls::rustls::ClientConfig>,
    timeout: std::time::Duration,
) -> Result<Box<dyn Conn>, ConnectError> {
    let tcp = tokio::time::timeout(
        timeout,
        tokio::net::TcpStream::connect((up.host.as_str(), up.port)),
    )
    .await
    .map_err(|_| ConnectError::ConnectTimeout(timeout))?
    .map_err(ConnectError::Io)?;
    let _ = tcp.set_nodelay(true);
    if !up.tls {
        return Ok(Box::new(tcp));
    }
    let name = tokio_rustls::rustls::pki_types::ServerName::try_from(up.host.clone())
        .map_err(|e| ConnectError::Io(std::io::Error::new(std::io::ErrorKind::InvalidInput, e)))?;
    let stream = tokio::time::timeout(
        timeout,
        tokio_rustls::TlsConnector::from(tls.clone()).connect(name, tcp),
    )
    .await
    .map_err(|_| ConnectError::HandshakeTimeout(timeout))?
    .map_err(ConnectError::Io)?;
    Ok(Box::new(stream))
}

/// What is known of a request when its response head comes.
pub(crate) struct Asked {
    pub(crate) index: u64,
    pub(crate) method: String,
    pub(crate) path: String,
    pub(crate) url: String,
    pub(crate) dialect: Option<crate::dialect::Dialect>,
    pub(crate) headers: Vec<crate::capture::Header>,
    /// Secret header values the client sent (its key), to mask where the
    /// upstream quotes one back.
    pub(crate) secrets: Vec<String>,
    pub(crate) body: Arc<Mutex<Option<Vec<u8>>>>,
    pub(crate) start: Instant,
    pub(crate) started: SystemTime,
}

async fn handle(
    req: Request<Incoming>,
    shared: Arc<Shared>,
    flushes: Arc<Flushes>,
) -> Response<ProxyBody> {
    let start = Instant::now();
    let started = SystemTime::now();
    let index = shared.next.fetch_add(1, Ordering::SeqCst);
    let path = req.uri().path().to_string();
    let dialect = crate::dialect::endpoint_of(&path);
    let path_and_query = shared.options.upstreams.path_for(
        dialect,
        req.uri()
            .path_and_query()
            .map_or(path.as_str(), |p| p.as_str()),
    );
    let method = req.method().to_string();
    let fail = |status: StatusCode, why: String| {
        shared.finish(Exchange {
            index,
            method: method.clone(),
            path: path.clone(),
            status: status.as_u16(),
            dialect,
            ttft_ms: None,
            duration_ms: start.elapsed().as_secs_f64() * 1000.0,
            stop: Stop::Complete,
            result: None,
            saved: None,
            save_error: None,
            failed: Some(why.clone()),
            upgrade: None,
        });
        own_answer(status, &why)
    };
    let Some(up) = shared.options.upstreams.for_dialect(dialect).cloned() else {
        let what = dialect.map_or("this path".to_string(), |d| {
            format!("{} ({})", d.name(), d.title())
        });
        return fail(
            StatusCode::BAD_GATEWAY,
            format!("no --upstream for {what}; give --upstream URL (every request) or --upstream {}=URL", dialect.map_or("DIALECT", |d| d.name())),
        );
    };
    let (mut parts, body) = req.into_parts();
    // An `Upgrade` the client asked for (a WebSocket) is asked of the
    // upstream as it came; the client's side of it is taken here.
    let upgrade = upgrade_asked(&parts.headers);
    let client_upgrade = parts.extensions.remove::<hyper::upgrade::OnUpgrade>();
    let url = up.url_for(&path_and_query);
    let mut kept = Vec::new();
    let mut secrets = Vec::new();
    for (name, value) in &parts.headers {
        let v = String::from_utf8_lossy(value.as_bytes());
        if crate::capture::is_secret_header(name.as_str()) {
            // `Bearer KEY` sends KEY; the upstream may quote either.
            let v = v.trim();
            secrets.push(v.strip_prefix("Bearer ").unwrap_or(v).trim().to_string());
        }
        kept.push(crate::capture::header(name.as_str(), &v));
    }
    strip_hop_by_hop(&mut parts.headers);
    if let Some(protocol) = &upgrade {
        put_upgrade(&mut parts.headers, protocol);
    }
    if let Ok(host) = hyper::header::HeaderValue::from_str(&up.authority()) {
        parts.headers.insert(hyper::header::HOST, host);
    }
    parts.uri = match up.path_for(&path_and_query).parse() {
        Ok(u) => u,
        Err(_) => {
            return fail(
                StatusCode::BAD_REQUEST,
                "the request path is not a valid URI".into(),
            )
        }
    };
    parts.version = hyper::Version::HTTP_11;
    let copy = Arc::new(Mutex::new(Some(Vec::new())));
    let body = RequestTap {
        inner: body,
        copy: copy.clone(),
    };
    let conn = match connect(&up, &shared.tls, shared.options.connect_timeout).await {
        Ok(c) => c,
        Err(e) => {
            return fail(
                StatusCode::BAD_GATEWAY,
                format!("cannot reach the upstream {}: {e}", up.authority()),
            )
        }
    };
    let (mut sender, connection) = match hyper::client::conn::http1::Builder::new()
        .read_buf_exact_size(Some(UPSTREAM_READ_BYTES))
        .handshake(TokioIo::new(conn))
        .await
    {
        Ok(x) => x,
        Err(e) => {
            return fail(
                StatusCode::BAD_GATEWAY,
                format!("the upstream {}: {e}", up.authority()),
            )
        }
    };
    // Aborted if this future is dropped before the response (the client
    // went away while the upstream was thinking): the upstream request
    // goes with it.
    let connection = AbortOnDrop {
        handle: tokio::spawn(connection.with_upgrades()).abort_handle(),
        armed: true,
    };
    let mut resp = match sender.send_request(Request::from_parts(parts, body)).await {
        Ok(r) => r,
        Err(e) => {
            return fail(
                StatusCode::BAD_GATEWAY,
                format!("the upstream {} gave no response: {e}", up.authority()),
            );
        }
    };
    let asked = Asked {
        index,
        method,
        path,
        url: crate::capture::redact_url(&url),
        dialect,
        headers: kept,
        secrets,
        body: copy,
        start,
        started,
    };
    if let (Some(client), StatusCode::SWITCHING_PROTOCOLS) = (client_upgrade, resp.status()) {
        let upstream = hyper::upgrade::on(&mut resp);
        // The upstream's side now belongs to the upgraded connection.
        drop(connection.disarm());
        return switch(resp, asked, client, upstream, &shared);
    }
    respond(resp, asked, connection.disarm(), &shared, flushes)
}

/// The protocol a request asks to switch to (`Upgrade: websocket` with
/// `Connection: upgrade`), `None` for a plain request.
fn upgrade_asked(headers: &hyper::HeaderMap) -> Option<hyper::header::HeaderValue> {
    let connection_says = headers
        .get_all(hyper::header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| t.trim().eq_ignore_ascii_case("upgrade"));
    headers
        .get(hyper::header::UPGRADE)
        .filter(|_| connection_says)
        .cloned()
}

/// Puts back the two hop-by-hop headers an upgrade needs on the next hop.
fn put_upgrade(headers: &mut hyper::HeaderMap, protocol: &hyper::header::HeaderValue) {
    headers.insert(
        hyper::header::CONNECTION,
        hyper::header::HeaderValue::from_static("upgrade"),
    );
    headers.insert(hyper::header::UPGRADE, protocol.clone());
}

/// The upstream switched protocols (a 101 to an upgrade the client
/// asked): the client gets the 101 as it came (with its `Connection` and
/// `Upgrade`), and once both sides have switched, their bytes are copied
/// both ways as they come, until either side ends. The connection is an
/// open stream until then ([`Proxy::stop`](super::Proxy::stop) waits
/// for it, then cuts it), and its record is made when it ends, whichever
/// way ([`UpgradeRecord`]).
fn switch(
    resp: Response<Incoming>,
    asked: Asked,
    client: hyper::upgrade::OnUpgrade,
    upstream: hyper::upgrade::OnUpgrade,
    shared: &Arc<Shared>,
) -> Response<ProxyBody> {
    let (mut parts, _) = resp.into_parts();
    let protocol = parts.headers.get(hyper::header::UPGRADE).cloned();
    strip_hop_by_hop(&mut parts.headers);
    if let Some(p) = &protocol {
        put_upgrade(&mut parts.headers, p);
    }
    let mut record = UpgradeRecord {
        asked: Some(asked),
        protocol: protocol
            .as_ref()
            .map(|p| String::from_utf8_lossy(p.as_bytes()).into_owned())
            .unwrap_or_default(),
        sent: 0,
        received: 0,
        stop: None,
        shared: shared.clone(),
    };
    shared.open.fetch_add(1, Ordering::SeqCst);
    shared.passed.fetch_add(1, Ordering::SeqCst);
    tokio::spawn(async move {
        let (c, u) = tokio::join!(client, upstream);
        let stop = match (c, u) {
            (Ok(c), Ok(u)) => {
                let (mut c, mut u) = (TokioIo::new(c), TokioIo::new(u));
                match tokio::io::copy_bidirectional(&mut c, &mut u).await {
                    Ok((sent, received)) => {
                        record.sent = sent;
                        record.received = received;
                        Stop::Complete
                    }
                    Err(e) => Stop::UpstreamCut(e.to_string()),
                }
            }
            (Err(e), _) | (_, Err(e)) => Stop::UpstreamCut(e.to_string()),
        };
        record.end(stop);
    });
    Response::from_parts(
        parts,
        http_body_util::Empty::new()
            .map_err(|never| match never {})
            .boxed_unsync(),
    )
}

/// An upgraded connection's record, made when it is dropped: at its end,
/// or when the proxy stops and drops its task (then [`Stop::Shutdown`]).
struct UpgradeRecord {
    asked: Option<Asked>,
    protocol: String,
    sent: u64,
    received: u64,
    /// How it ended; `None` while open.
    stop: Option<Stop>,
    shared: Arc<Shared>,
}

impl UpgradeRecord {
    /// Records the connection's end now.
    fn end(mut self, stop: Stop) {
        self.stop = Some(stop);
    }
}

impl Drop for UpgradeRecord {
    fn drop(&mut self) {
        let Some(asked) = self.asked.take() else {
            return;
        };
        let stop = self.stop.take().unwrap_or(Stop::Shutdown);
        self.shared.finish(Exchange {
            index: asked.index,
            method: asked.method,
            path: asked.path,
            status: 101,
            dialect: asked.dialect,
            ttft_ms: None,
            duration_ms: asked.start.elapsed().as_secs_f64() * 1000.0,
            stop,
            result: None,
            saved: None,
            save_error: None,
            failed: None,
            upgrade: Some(super::Upgraded {
                protocol: std::mem::take(&mut self.protocol),
                sent: self.sent,
                received: self.received,
            }),
        });
        self.shared.open.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Aborts the upstream connection's task when dropped, unless disarmed
/// (the response's [`Tap`] then holds the handle).
struct AbortOnDrop {
    handle: tokio::task::AbortHandle,
    armed: bool,
}

impl AbortOnDrop {
    fn disarm(mut self) -> tokio::task::AbortHandle {
        self.armed = false;
        self.handle.clone()
    }
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if self.armed {
            self.handle.abort();
        }
    }
}

fn strip_hop_by_hop(headers: &mut hyper::HeaderMap) {
    // Names the Connection header lists are the connection's too.
    let listed: Vec<String> = headers
        .get_all(hyper::header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|n| n.trim().to_ascii_lowercase())
        .filter(|n| !n.is_empty())
        .collect();
    for n in HOP_BY_HOP
        .iter()
        .copied()
        .chain(listed.iter().map(String::as_str))
    {
        headers.remove(n);
    }
}

/// The client's response: the upstream's status and headers (less the
/// hop-by-hop ones), and its body through a [`Tap`]; a stream's lint is
/// started here.
fn respond(
    resp: Response<Incoming>,
    asked: Asked,
    connection: tokio::task::AbortHandle,
    shared: &Arc<Shared>,
    flushes: Arc<Flushes>,
) -> Response<ProxyBody> {
    let (mut parts, body) = resp.into_parts();
    let status = parts.status.as_u16();
    let headers: Vec<crate::capture::Header> = parts
        .headers
        .iter()
        .map(|(n, v)| crate::capture::header(n.as_str(), &String::from_utf8_lossy(v.as_bytes())))
        .collect();
    strip_hop_by_hop(&mut parts.headers);
    let content_type = crate::capture::find_header(&headers, "content-type");
    let streamed = content_type
        .and_then(crate::transport::Transport::of_media_type)
        .is_some()
        || (!(200..300).contains(&status) && tap::asked_to_stream(&asked));
    let feed = if streamed {
        let slot = StopSlot::default();
        let (tx, rx) = mpsc::unbounded_channel();
        shared.open.fetch_add(1, Ordering::SeqCst);
        let head = tap::Head {
            status,
            reason: parts.status.canonical_reason().unwrap_or("").to_string(),
            headers,
        };
        let spawned = tap::spawn(rx, asked, head, slot.clone(), shared.clone());
        if spawned.is_err() {
            shared.open.fetch_sub(1, Ordering::SeqCst);
            None
        } else {
            Some(Feed {
                tx,
                budget: Arc::new(tokio::sync::Semaphore::new(LINT_QUEUE_BYTES)),
                waiting: None,
                slot,
            })
        }
    } else {
        shared.passed.fetch_add(1, Ordering::SeqCst);
        shared.finish(Exchange {
            index: asked.index,
            method: asked.method,
            path: asked.path,
            status,
            dialect: asked.dialect,
            ttft_ms: None,
            duration_ms: asked.start.elapsed().as_secs_f64() * 1000.0,
            stop: Stop::Complete,
            result: None,
            saved: None,
            save_error: None,
            failed: None,
            upgrade: None,
        });
        None
    };
    let tap = Tap {
        inner: body,
        feed,
        connection,
        ended: false,
        shared: shared.clone(),
        cut: None,
        flushes,
    };
    Response::from_parts(parts, tap.boxed_unsync())
}

/// The request body on its way upstream, its first
/// [`REQUEST_COPY_BYTES`] kept (none of it when longer).
struct RequestTap {
    inner: Incoming,
    copy: Arc<Mutex<Option<Vec<u8>>>>,
}

impl Body for RequestTap {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &polled {
            if let (Some(data), Ok(mut copy)) = (frame.data_ref(), self.copy.lock()) {
                let full = copy
                    .as_ref()
                    .is_some_and(|c| c.len() + data.len() > REQUEST_COPY_BYTES);
                if full {
                    *copy = None;
                } else if let Some(c) = copy.as_mut() {
                    c.extend_from_slice(data);
                }
            }
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

type Acquire = Pin<
    Box<
        dyn Future<Output = Result<tokio::sync::OwnedSemaphorePermit, tokio::sync::AcquireError>>
            + Send,
    >,
>;

/// Where a stream's frames go besides the client: a queue whose bytes
/// are bounded by `budget` ([`LINT_QUEUE_BYTES`] permits, one a byte, each
/// read's given back when the lint has read it).
pub(crate) struct Feed {
    tx: mpsc::UnboundedSender<tap::Read>,
    budget: Arc<tokio::sync::Semaphore>,
    /// A read already forwarded, waiting for room in the queue.
    waiting: Option<(Bytes, Instant, Acquire)>,
    slot: StopSlot,
}

/// The upstream's response body on its way to the client; a stream's
/// frames also go to its lint ([`Feed`]). Dropped before its end (the
/// client went away, or the proxy stopped), it closes the upstream
/// connection.
struct Tap {
    inner: Incoming,
    feed: Option<Feed>,
    connection: tokio::task::AbortHandle,
    ended: bool,
    shared: Arc<Shared>,
    /// The upstream's error, held until the client connection has
    /// flushed after it came (the count of flushes then).
    cut: Option<(hyper::Error, u64)>,
    /// The client connection's flushes.
    flushes: Arc<Flushes>,
}

/// A client connection's flushes of its socket, counted, and the task to
/// wake at the next one. hyper flushes the socket only once it has
/// written its whole write buffer to it (`Buffered::poll_flush` in its
/// h1 `io.rs`), so a flush counted after a frame was handed to hyper
/// means that frame's bytes are in the socket.
#[derive(Default)]
pub(crate) struct Flushes {
    count: AtomicU64,
    waker: Mutex<Option<Waker>>,
}

impl Flushes {
    fn count(&self) -> u64 {
        self.count.load(Ordering::SeqCst)
    }

    /// Whether a flush came after the `seen`-th; if not, `cx` is woken at
    /// the next.
    fn since(&self, seen: u64, cx: &Context<'_>) -> bool {
        if let Ok(mut w) = self.waker.lock() {
            *w = Some(cx.waker().clone());
        }
        self.count() > seen
    }

    fn flushed(&self) {
        self.count.fetch_add(1, Ordering::SeqCst);
        if let Some(w) = self.waker.lock().ok().and_then(|mut w| w.take()) {
            w.wake();
        }
    }
}

/// The client's connection, its flushes counted ([`Flushes`]).
struct Counted<T> {
    io: T,
    flushes: Arc<Flushes>,
}

impl<T: AsyncRead + Unpin> AsyncRead for Counted<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Counted<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let polled = Pin::new(&mut self.io).poll_flush(cx);
        if let Poll::Ready(Ok(())) = polled {
            self.flushes.flushed();
        }
        polled
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

impl Tap {
    /// Queues the read that waits for room, before the next read;
    /// `Pending` while the queue is full. A lint that is gone is let go.
    fn poll_place(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let Some(feed) = self.feed.as_mut() else {
            return Poll::Ready(());
        };
        let Some((_, _, acquire)) = feed.waiting.as_mut() else {
            return Poll::Ready(());
        };
        let permit = match acquire.as_mut().poll(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(p) => p,
        };
        let sent = match (permit, feed.waiting.take()) {
            (Ok(p), Some((bytes, at, _))) => feed.tx.send((bytes, at, p)).is_ok(),
            _ => false,
        };
        if !sent {
            self.feed = None;
        }
        Poll::Ready(())
    }

    fn end(&mut self, stop: Stop) {
        self.ended = true;
        if let Some(feed) = self.feed.take() {
            feed.slot.set(stop);
        }
    }
}

impl Body for Tap {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        let this = &mut *self;
        if let Some((_, seen)) = this.cut.as_ref() {
            if !this.flushes.since(*seen, cx) {
                return Poll::Pending;
            }
            return Poll::Ready(this.cut.take().map(|(e, _)| Err(e)));
        }
        if this.poll_place(cx).is_pending() {
            return Poll::Pending;
        }
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let (Some(data), Some(feed)) = (frame.data_ref(), this.feed.as_mut()) {
                    // Room for it is waited for before the next read
                    // (`poll_place`): this one goes to the client now.
                    let n = data.len().clamp(1, LINT_QUEUE_BYTES) as u32;
                    let acquire = Box::pin(feed.budget.clone().acquire_many_owned(n));
                    // A copy: the frame's own bytes hold hyper's read
                    // buffer, which is then free for the next read.
                    let copy = Bytes::copy_from_slice(data);
                    feed.waiting = Some((copy, Instant::now(), acquire));
                    let _ = this.poll_place(cx);
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(e))) => {
                // hyper cuts the client's connection on this error, and
                // what it has buffered then is lost: the error waits for
                // the client connection's next flush (hyper flushes while
                // the body is pending, and only with its buffer empty),
                // so the client gets every byte that came, then the cut
                // the upstream made.
                this.end(Stop::UpstreamCut(e.to_string()));
                let seen = this.flushes.count();
                this.cut = Some((e, seen));
                if this.flushes.since(seen, cx) {
                    return Poll::Ready(this.cut.take().map(|(e, _)| Err(e)));
                }
                Poll::Pending
            }
            Poll::Ready(None) => {
                this.end(Stop::Complete);
                Poll::Ready(None)
            }
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.cut.is_none() && self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for Tap {
    fn drop(&mut self) {
        if !self.ended && self.inner.is_end_stream() {
            // An empty body hyper never polled (a 204, a HEAD).
            self.end(Stop::Complete);
        }
        if !self.ended {
            let stop = if self.shared.stopping.load(Ordering::SeqCst) {
                Stop::Shutdown
            } else {
                Stop::ClientGone
            };
            self.end(stop);
            // The request is the client's alone: it goes with it.
            self.connection.abort();
        }
    }
}
