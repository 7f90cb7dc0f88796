//! The transport: accepting connections, the transport rules of the contract, and graceful shutdown. The Node
//! server's `transport.js` and the Go server's `transport.go` do the same job.
//!
//! Why not `axum::serve`? In axum 0.8 it sets no time limit on reading a request head (a client that sends one byte a
//! minute holds a connection forever), and none of the limits below can be set through it. (With axum's `http2`
//! feature it would also answer HTTP/2 with prior knowledge, which the contract excludes; this workspace builds axum
//! with `http1` only, so no HTTP/2 code is compiled in at all.) So this module drives hyper's HTTP/1 connection
//! directly, which is also what `axum::serve` does underneath:
//!
//! - the listener comes bound from the binary (`users-server`'s `bind`, with a backlog of 1,024 so that a burst of
//!   connects is queued, not reset), as the Node and Go servers bind in their entry files;
//! - `header_read_timeout` closes a connection that has not sent a complete head in time. hyper starts that timer
//!   whenever it waits for a head, so it also covers an idle keep-alive connection, exactly as the contract asks;
//! - `max_header_size` answers 431 to a head over 16 KiB, and hyper's default header count limit answers 431 over
//!   100 fields;
//! - `max_buf_size` keeps hyper's read buffer at 16 KiB, so a connection costs little memory even while it drains
//!   a large body;
//! - `half_close` answers a request whose client has already shut down its sending side;
//! - `TCP_NODELAY` is set on every connection, because a small response must not wait for Nagle's algorithm;
//! - the checks hyper leaves to the application run before the routes ([`check_head`]): `Host`, the target's
//!   form, the framing headers and `Expect`;
//! - a request whose body was not read to its end is answered with `Connection: close` ([`BodyEnd`]);
//! - a handler that panics gets its request a 500 `internal error`, and the server goes on;
//! - on shutdown ([`close_gracefully`], as in the Node and Go servers), the listener is closed at once, connections
//!   finish the request they are serving (idle ones close right away) and whatever is still open after the shutdown
//!   timeout is closed by force.
//!
//! The body's own time limit is enforced where the body is read, in `body.rs`: hyper has none.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Method, Request, StatusCode, Version, header};
use axum::response::{IntoResponse, Response};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tower::ServiceExt;

use crate::error::ApiError;
use crate::routes::{AppState, app};
use crate::store::Store;
use crate::validation::trim_spaces_and_tabs;

/// The largest request head accepted (request line and header fields), in bytes.
pub const MAX_HEAD_BYTES: usize = 16 * 1024;

/// hyper's per-connection buffer limit, in bytes (its default is about 400 KB). hyper reads a request body through
/// the same buffer as the head, and grows each read up to this limit; with the default, 600 connections each draining
/// an oversize body held 240 to 590 KiB apiece (found by the second hostile-input review, `faults/tests/hostile.rs`).
/// A buffer as large as the largest head accepted changes nothing for the head (the 431 comes at the same size) and
/// keeps a draining connection's memory small and fixed.
pub const MAX_BUF_BYTES: usize = MAX_HEAD_BYTES;

/// The tokio runtime the server runs on, with `workers` threads: a current-thread runtime for one worker, the
/// multi-thread runtime for more.
///
/// Why not the multi-thread runtime for one worker too? Under saturation it does not serve connections in turn. Each
/// worker of the multi-thread scheduler keeps at most 256 ready tasks in its own run queue and moves the overflow to a
/// global queue, which a busy worker looks at only every few dozen polls. With 300 connections all ready at once on
/// one worker, the ones that landed in the global queue wait while the others are served again and again: pinned to
/// one core at 142k requests per second, `--workers 1` had a p99 of 28 ms where the median was 1.6 ms (the ceiling,
/// 2 ms). The current-thread scheduler has one unbounded first-in first-out queue, so every ready connection is served
/// once per round: p99 3.8 ms in the same run, at the same throughput. It also needs no cross-thread
/// synchronisation, and with one worker there is no other thread to hand work to.
///
/// With several workers the multi-thread runtime stays: work stealing keeps them all busy, a worker overflows only
/// past 256 ready connections of its own, and the measured tail with two workers stayed within 3x of a fair server's
/// (`docs/harness.md`, "A fair tail"). `crates/ceiling` makes the same choice, so that it stays the limit of this stack.
pub fn runtime(workers: usize) -> io::Result<tokio::runtime::Runtime> {
    if workers == 1 {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .thread_name("users-worker")
            .enable_all()
            .build()
    }
}

/// Server settings. `Default` gives the contract's values; tests lower the timeouts so they finish in seconds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Store capacity, seed included (`--max-users`).
    pub max_users: u64,
    /// How long a connection may take to deliver a complete request head, counted from connect or from the end of
    /// the previous response.
    pub header_timeout: Duration,
    /// How long a request body may take to arrive, counted from the end of its head.
    pub body_timeout: Duration,
    /// How long shutdown waits for in-flight requests before closing their connections.
    pub shutdown_timeout: Duration,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            max_users: 1_000_000,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
            shutdown_timeout: Duration::from_secs(10),
        }
    }
}

impl Options {
    /// The application state these options describe: a freshly seeded store.
    pub fn state(&self) -> AppState {
        AppState::new(Store::seeded(self.max_users), self.body_timeout)
    }
}

/// Serves the API on `listener` with a freshly seeded store until `shutdown` completes, then shuts down gracefully.
pub async fn run(listener: TcpListener, options: Options, shutdown: impl Future<Output = ()>) {
    let state = options.state();
    serve(listener, state, &options, shutdown).await;
}

/// Like [`run`], with a store the caller has already built (the binary prints its size before serving).
pub async fn serve(listener: TcpListener, state: AppState, options: &Options, shutdown: impl Future<Output = ()>) {
    let router = app(state);
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(options.header_timeout)
        .max_header_size(MAX_HEAD_BYTES)
        .max_buf_size(MAX_BUF_BYTES)
        // Off by default: hyper then treats a client's end of sending (`shutdown(SHUT_WR)`) as the end of the
        // connection, and a request that arrived just before it may be dropped unanswered. A client that has sent a
        // complete request and closed its side is still reading, and gets its answer.
        .half_close(true);
    // hyper's header count limit is already the contract's 100; setting it explicitly would move the header array
    // from the stack to the heap, an allocation per request, so it stays at its default.

    // `graceful` tells every connection to finish its current request and close; `force_close` ends them outright.
    let graceful = GracefulShutdown::new();
    let (force_close, force_close_signal) = watch::channel(false);

    let mut shutdown = pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Typically EMFILE (too many open files): the listener itself is fine. Pause so a persistent error
                    // does not turn this loop into a busy one, then try again.
                    tracing::warn!(%error, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, %peer, "setting TCP_NODELAY failed");
        }

        let router = router.clone();
        let service = service_fn(move |request| handle(router.clone(), request));
        let connection = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
        let mut force_close_signal = force_close_signal.clone();
        tokio::spawn(async move {
            tokio::select! {
                result = connection => {
                    // Clients resetting or timing out are routine; they are not worth more than a debug line.
                    if let Err(error) = result {
                        tracing::debug!(%error, %peer, "connection ended with an error");
                    }
                }
                _ = force_close_signal.wait_for(|&closing| closing) => {
                    tracing::debug!(%peer, "connection closed by force at shutdown");
                }
            }
        });
    }

    // The loop's own receiver goes first: `close_gracefully` waits for the last one to be dropped.
    drop(force_close_signal);
    close_gracefully(listener, graceful, force_close, options.shutdown_timeout).await;
}

/// Closes the server the way SIGTERM asks (the Node and Go servers' `closeGracefully` does the same job): stop
/// accepting at once, let every connection finish the request it is serving (an idle one closes right away), and
/// close by force whatever is still open after `timeout`.
///
/// `graceful` watches every connection; `force_close` is the channel each connection task listens on, one receiver
/// per task, so that sending `true` ends them all and the channel closes once the last of them has gone.
async fn close_gracefully(
    listener: TcpListener,
    graceful: GracefulShutdown,
    force_close: watch::Sender<bool>,
    timeout: Duration,
) {
    // Dropping the listener closes its socket: from now on, connection attempts are refused.
    drop(listener);
    tracing::info!("shutting down: finishing in-flight requests");
    if tokio::time::timeout(timeout, graceful.shutdown()).await.is_err() {
        tracing::warn!(?timeout, "connections still busy at the shutdown timeout; closing them");
        // Sending fails only when no connection task is left, and then there is nothing to close.
        let _ = force_close.send(true);
        // Every connection task holds a receiver until it ends, so once all receivers are gone, every socket is
        // closed. A second is plenty for tasks that only need to drop their connection.
        let _ = tokio::time::timeout(Duration::from_secs(1), force_close.closed()).await;
    }
}

/// One request: the transport checks hyper leaves to us, then the routes, with panics turned into 500s; and its
/// `--log` line, refusals included (as in the Node and Go servers, whose head checks are logged too).
///
/// Generic over the body so that tests can call it with an ordinary `Body` (hyper's `Incoming` has no public
/// constructor).
async fn handle<B>(router: Router, request: Request<B>) -> Result<Response, Infallible>
where
    B: hyper::body::Body<Data = bytes::Bytes> + Send + Unpin + 'static,
    B::Error: Into<axum::BoxError>,
{
    // Per-request logging is off by default (it would distort the measurements); the check is one atomic load.
    let logged = crate::request_log::enabled()
        .then(|| (request.method().clone(), request.uri().clone(), std::time::Instant::now()));
    let response = match check_head(request.method(), request.version(), request.uri(), request.headers()) {
        Some(refusal) => refusal,
        None => route(router, request).await,
    };
    if let Some((method, uri, start)) = logged {
        crate::request_log::write(method.as_str(), &uri.to_string(), response.status().as_u16(), start.elapsed());
    }
    Ok(response)
}

/// A request that passed the head checks, through the routes.
async fn route<B>(router: Router, request: Request<B>) -> Response
where
    B: hyper::body::Body<Data = bytes::Bytes> + Send + Unpin + 'static,
    B::Error: Into<axum::BoxError>,
{
    // A request without a body (every GET of a benchmark) goes to the routes as it is. One with a body is watched, so
    // that the connection can be closed when the body was not read to its end (see `BodyEnd`).
    let body_end = (!request.body().is_end_stream()).then(BodyEnd::default);
    let request = match &body_end {
        None => request.map(Body::new),
        Some(end) => request.map(|body| Body::new(end.watch(body))),
    };
    let mut response = catch_panic(async move {
        match router.oneshot(request).await {
            Ok(response) => response,
            Err(never) => match never {},
        }
    })
    .await;
    if body_end.is_some_and(|end| !end.reached()) {
        response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// The checks of a request head that hyper leaves to the application, in the order they apply; `None` lets the
/// request through to the routes. Every refusal closes the connection: after a head the server refuses, the framing of
/// whatever follows cannot be trusted.
fn check_head(method: &Method, version: Version, uri: &axum::http::Uri, headers: &HeaderMap) -> Option<Response> {
    // RFC 9112 section 3.2: a server must answer 400 to an HTTP/1.1 request without `Host`.
    if version == Version::HTTP_11 && !headers.contains_key(header::HOST) {
        return Some(ApiError::BadRequest.into_response());
    }
    // The same section: a request with more than one Host field gets 400 too (hyper passes both on; Go's net/http
    // refuses them before any handler runs, "too many Host headers").
    if headers.get_all(header::HOST).iter().nth(1).is_some() {
        return Some(ApiError::BadRequest.into_response());
    }
    // An authority-form target (`GET 127.0.0.1:80`) is only for CONNECT (RFC 9112 section 3.2.3); hyper parses it
    // into a URI with an authority and no path.
    if method != Method::CONNECT && uri.scheme().is_none() && uri.authority().is_some() {
        return Some(ApiError::BadRequest.into_response());
    }
    if version == Version::HTTP_11 && !transfer_encoding_is_plain_chunked(headers) {
        return Some(ApiError::UnsupportedTransferEncoding.into_response());
    }
    // hyper accepts the same Content-Length twice (two fields, or `5, 5` in one) as one; RFC 9112 section 6.3 allows
    // that, but the contract refuses it, as llhttp does, because two parsers on a path may not agree on the length.
    let lengths = headers.get_all(header::CONTENT_LENGTH);
    if lengths.iter().count() > 1 || lengths.iter().any(|value| value.as_bytes().contains(&b',')) {
        return Some(ApiError::BadRequest.into_response());
    }
    if !expectation_is_met(headers) {
        return Some(expectation_failed());
    }
    None
}

/// RFC 9112 section 6.1: chunked is the only transfer coding this server understands, and it may be applied once.
/// hyper already refuses an empty value, and any list whose last coding is not `chunked`, with 400; it accepts
/// `chunked, chunked`, two `chunked` fields and `gzip, chunked`, which get 501 here. No field at all is fine.
fn transfer_encoding_is_plain_chunked(headers: &HeaderMap) -> bool {
    let mut fields = headers.get_all(header::TRANSFER_ENCODING).iter();
    match (fields.next(), fields.next()) {
        (None, _) => true,
        (Some(only), None) => trim_spaces_and_tabs(only.as_bytes()).eq_ignore_ascii_case(b"chunked"),
        (Some(_), Some(_)) => false,
    }
}

/// `Expect` (RFC 9110 section 10.1.1): `100-continue` is the only expectation, and hyper honours it by sending
/// `100 Continue` when the body is first read. An empty value is ignored, as Go's net/http ignores it; any other
/// value cannot be met.
fn expectation_is_met(headers: &HeaderMap) -> bool {
    headers.get_all(header::EXPECT).iter().all(|value| {
        let value = trim_spaces_and_tabs(value.as_bytes());
        value.is_empty() || value.eq_ignore_ascii_case(b"100-continue")
    })
}

/// 417 with an empty body, `Content-Length: 0` (on HEAD too) and no `Content-Type`, closed: byte for byte what Go's
/// net/http answers before any handler, which the contract adopted for every server. It is the one application
/// answer without a JSON body.
fn expectation_failed() -> Response {
    let mut response = (StatusCode::EXPECTATION_FAILED, Body::empty()).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from_static("0"));
    headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// Whether a request body has been read to its end, shared between the body the routes read and `handle`.
///
/// The contract's keep-alive rule: a request that carried a body the server did not read to its end (a 415, a 404
/// with a body, a body sent to a GET route) is answered with `Connection: close`, because the unread rest, or a
/// pipelined request hidden inside it, must not be read as the next request. hyper would otherwise try to skip the
/// rest on its own and keep the connection only when that happened to be quick, so the outcome depended on timing.
#[derive(Debug, Default, Clone)]
struct BodyEnd(Arc<AtomicBool>);

impl BodyEnd {
    fn watch<B>(&self, body: B) -> Watched<B> {
        Watched { body, end: self.clone() }
    }

    fn reached(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// A body that records in its [`BodyEnd`] when it has been read to the end.
struct Watched<B> {
    body: B,
    end: BodyEnd,
}

impl<B: hyper::body::Body + Unpin> hyper::body::Body for Watched<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        let frame = Pin::new(&mut self.body).poll_frame(cx);
        if let Poll::Ready(None) = frame {
            self.end.0.store(true, Ordering::Relaxed);
        }
        frame
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}

/// Runs `future` to completion, answering 500 `internal error` if it panics.
///
/// Without this, tokio would still catch the panic (a panicking task does not take the process down), but the
/// connection would end without an answer. The panic message goes to stderr through the panic hook; the client
/// learns nothing about it. `AssertUnwindSafe` is sound here because the panicked future is dropped, never polled
/// again, and the store's locks do not poison.
async fn catch_panic(future: impl Future<Output = Response>) -> Response {
    let mut future = pin!(future);
    let outcome = std::future::poll_fn(|cx| match panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
        Ok(Poll::Pending) => Poll::Pending,
        Ok(Poll::Ready(response)) => Poll::Ready(Ok(response)),
        Err(panic) => Poll::Ready(Err(panic)),
    })
    .await;
    outcome.unwrap_or_else(|_panic| {
        tracing::error!("a handler panicked; answered 500");
        ApiError::Internal.into_response()
    })
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use axum::routing::get;
    use http_body_util::BodyExt;

    use super::*;
    use crate::routes::routes;

    fn request(target: &str) -> Request<Body> {
        Request::get(target).header(header::HOST, "x").body(Body::empty()).unwrap()
    }

    /// A handler that panics answers 500 `internal error`, and the server keeps serving.
    #[tokio::test]
    async fn a_panic_becomes_a_500() {
        async fn boom() -> Response {
            panic!("a bug in a handler (this panic is expected by the test)");
        }
        let options = Options { max_users: 10_000, ..Options::default() };
        let router = routes().route("/boom", get(boom)).with_state(options.state());

        let response = handle(router.clone(), request("/boom")).await.unwrap();
        assert_eq!(response.status(), 500);
        assert_eq!(response.headers()[header::CONTENT_TYPE], "application/json");
        let body = response.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(&body[..], br#"{"error":"internal error"}"#);

        let response = handle(router, request("/health")).await.unwrap();
        assert_eq!(response.status(), 200, "still serving");
    }

    /// The transport checks, each on a request that would otherwise be served: the status, and that it closes.
    #[tokio::test]
    async fn head_checks_refuse_and_close() {
        let post = |name: &str, value: &str| {
            Request::post("/users")
                .header(header::HOST, "x")
                .header(header::CONTENT_TYPE, "application/json")
                .header(name, value)
                .body(Body::from(r#"{"name":"A","email":"a@b"}"#))
                .unwrap()
        };
        let two_fields = |name: header::HeaderName, value: &'static str| {
            let mut request = post("x-other", "1");
            request.headers_mut().append(name.clone(), HeaderValue::from_static(value));
            request.headers_mut().append(name, HeaderValue::from_static(value));
            request
        };
        let cases: Vec<(&str, Request<Body>, u16)> = vec![
            ("chunked twice in one field", post("transfer-encoding", "chunked, chunked"), 501),
            ("chunked in two fields", two_fields(header::TRANSFER_ENCODING, "chunked"), 501),
            ("gzip, chunked", post("transfer-encoding", "gzip, chunked"), 501),
            ("Content-Length twice", two_fields(header::CONTENT_LENGTH, "26"), 400),
            ("Content-Length 26, 26", post("content-length", "26, 26"), 400),
            ("Expect: foo", post("expect", "foo"), 417),
            (
                "authority-form",
                Request::get("127.0.0.1:80").header(header::HOST, "x").body(Body::empty()).unwrap(),
                400,
            ),
        ];
        let router = app(Options { max_users: 20_000, ..Options::default() }.state());
        let checked = cases.len();
        for (case, request, status) in cases {
            let response = handle(router.clone(), request).await.unwrap();
            assert_eq!(response.status(), status, "case {case:?}");
            assert_eq!(response.headers()[header::CONNECTION], "close", "case {case:?}");
            let body = response.into_body().collect().await.unwrap().to_bytes();
            let expected: &[u8] = match status {
                501 => br#"{"error":"unsupported transfer encoding"}"#,
                400 => br#"{"error":"bad request"}"#,
                _ => b"",
            };
            assert_eq!(&body[..], expected, "case {case:?}");
        }
        assert_eq!(router.clone().oneshot(request("/users/10001")).await.unwrap().status(), 404, "nothing stored");
        assert_eq!(checked, 7);
    }

    /// 417 is byte for byte Go's: empty body, `Content-Length: 0`, no `Content-Type`. `100-continue` (in any case)
    /// and an empty `Expect` are served.
    #[tokio::test]
    async fn expectations() {
        let router = app(Options { max_users: 20_000, ..Options::default() }.state());
        let with_expect = |value: &str| {
            Request::head("/health")
                .header(header::HOST, "x")
                .header(header::EXPECT, value)
                .body(Body::empty())
                .unwrap()
        };
        let refused = handle(router.clone(), with_expect(" Foo ")).await.unwrap();
        assert_eq!(refused.status(), 417);
        assert_eq!(refused.headers()[header::CONTENT_LENGTH], "0");
        assert!(refused.headers().get(header::CONTENT_TYPE).is_none());
        for value in ["100-continue", "100-Continue ", ""] {
            assert_eq!(handle(router.clone(), with_expect(value)).await.unwrap().status(), 200, "Expect {value:?}");
        }
    }

    /// The keep-alive rule: a request whose body was not read to its end is answered with `Connection: close`; one
    /// whose body was read, or that had none, keeps the connection.
    #[tokio::test]
    async fn a_body_not_read_to_its_end_closes_the_connection() {
        let router = app(Options { max_users: 20_000, ..Options::default() }.state());
        let request = |method: Method, target: &str, content_type: &str, body: Body| {
            Request::builder()
                .method(method)
                .uri(target)
                .header(header::HOST, "x")
                .header(header::CONTENT_TYPE, content_type)
                .body(body)
                .unwrap()
        };
        let user = || Body::from(r#"{"name":"A","email":"a@b"}"#);
        let cases: Vec<(&str, Request<Body>, u16, bool)> = vec![
            ("201", request(Method::POST, "/users", "application/json", user()), 201, false),
            ("400 read in full", request(Method::POST, "/users", "application/json", Body::from("{")), 400, false),
            ("415 with a body", request(Method::POST, "/users", "text/plain", user()), 415, true),
            ("415 without a body", request(Method::POST, "/users", "text/plain", Body::empty()), 415, false),
            ("404 with a body", request(Method::POST, "/nope", "application/json", user()), 404, true),
            ("404 without a body", request(Method::GET, "/nope", "application/json", Body::empty()), 404, false),
            ("405 with a body", request(Method::PUT, "/users", "application/json", user()), 405, true),
            ("405 without a body", request(Method::DELETE, "/health", "application/json", Body::empty()), 405, false),
            ("GET route with a body", request(Method::GET, "/health", "application/json", user()), 200, true),
            ("413", request(Method::POST, "/users", "application/json", Body::from(vec![b' '; 70_000])), 413, true),
        ];
        for (case, request, status, closes) in cases {
            let response = handle(router.clone(), request).await.unwrap();
            assert_eq!(response.status(), status, "case {case:?}");
            let close = response.headers().get(header::CONNECTION).is_some_and(|value| value == "close");
            assert_eq!(close, closes, "case {case:?}: Connection: close");
        }
    }

    #[tokio::test]
    async fn http_1_1_without_host_is_400() {
        let router = app(Options { max_users: 10_000, ..Options::default() }.state());
        let request = Request::get("/health").body(Body::empty()).unwrap();
        let response = handle(router.clone(), request).await.unwrap();
        assert_eq!(response.status(), 400);
        assert_eq!(response.headers()[header::CONNECTION], "close");

        let request = Request::get("/health").version(Version::HTTP_10).body(Body::empty()).unwrap();
        assert_eq!(handle(router, request).await.unwrap().status(), 200, "HTTP/1.0 needs no Host");
    }
}
