//! The HTTP/1 server: accepting connections, the transport rules of the contract, and graceful shutdown.
//!
//! Why not `axum::serve`? In axum 0.8 it sets no time limit on reading a request head (a client that sends one byte a
//! minute holds a connection forever) and it also answers HTTP/2 with prior knowledge, which the contract excludes.
//! So this module drives hyper's HTTP/1 connection directly, which is also what `axum::serve` does underneath:
//!
//! - `header_read_timeout` closes a connection that has not sent a complete head in time. hyper starts that timer
//!   whenever it waits for a head, so it also covers an idle keep-alive connection, exactly as the contract asks;
//! - `max_header_size` answers 431 to a head over 16 KiB, and hyper's default header count limit answers 431 over
//!   100 fields;
//! - `TCP_NODELAY` is set on every connection, because a small response must not wait for Nagle's algorithm;
//! - an HTTP/1.1 request without `Host` gets 400 before it reaches the routes;
//! - a handler that panics gets its request a 500 `internal error`, and the server goes on;
//! - on shutdown, the listener is closed at once, connections finish the request they are serving (idle ones close
//!   right away) and whatever is still open after the shutdown timeout is closed by force.
//!
//! The body's own time limit is enforced where the body is read, in `body.rs`: hyper has none.

use std::convert::Infallible;
use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::pin::pin;
use std::task::Poll;
use std::time::Duration;

use axum::Router;
use axum::http::{Request, Version, header};
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

/// The largest request head accepted (request line and header fields), in bytes.
pub const MAX_HEAD_BYTES: usize = 16 * 1024;

/// Server settings. `Default` gives the contract's values; tests lower the timeouts so they finish in seconds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
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

impl Default for Config {
    fn default() -> Config {
        Config {
            max_users: 1_000_000,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
            shutdown_timeout: Duration::from_secs(10),
        }
    }
}

impl Config {
    /// The application state this configuration describes: a freshly seeded store.
    pub fn state(&self) -> AppState {
        AppState::new(Store::seeded(self.max_users), self.body_timeout)
    }
}

/// Serves the API on `listener` with a freshly seeded store until `shutdown` completes, then shuts down gracefully.
pub async fn run(listener: TcpListener, config: Config, shutdown: impl Future<Output = ()>) {
    let state = config.state();
    serve(listener, state, &config, shutdown).await;
}

/// Like [`run`], with a store the caller has already built (the binary prints its size before serving).
pub async fn serve(listener: TcpListener, state: AppState, config: &Config, shutdown: impl Future<Output = ()>) {
    let router = app(state);
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(config.header_timeout).max_header_size(MAX_HEAD_BYTES);
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

    // Dropping the listener closes its socket: from now on, connection attempts are refused.
    drop(listener);
    drop(force_close_signal);
    tracing::info!("shutting down: finishing in-flight requests");
    if tokio::time::timeout(config.shutdown_timeout, graceful.shutdown()).await.is_err() {
        tracing::warn!(timeout = ?config.shutdown_timeout, "connections still busy at the shutdown timeout; closing them");
        // Sending fails only when no connection task is left, and then there is nothing to close.
        let _ = force_close.send(true);
        // Every connection task holds a receiver until it ends, so once all receivers are gone, every socket is
        // closed. A second is plenty for tasks that only need to drop their connection.
        let _ = tokio::time::timeout(Duration::from_secs(1), force_close.closed()).await;
    }
}

/// One request: the transport checks hyper leaves to us, then the routes, with panics turned into 500s.
///
/// Generic over the body so that tests can call it with an ordinary `Body` (hyper's `Incoming` has no public
/// constructor).
async fn handle<B>(router: Router, request: Request<B>) -> Result<Response, Infallible>
where
    B: hyper::body::Body<Data = bytes::Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    // RFC 9112 section 3.2: a server must answer 400 to an HTTP/1.1 request without `Host`; hyper leaves that to us.
    if request.version() == Version::HTTP_11 && !request.headers().contains_key(header::HOST) {
        return Ok(ApiError::BadRequest.into_response());
    }
    // Per-request logging is off by default (it would distort the measurements); the check is one atomic load.
    let logged = tracing::enabled!(tracing::Level::DEBUG).then(|| (request.method().clone(), request.uri().clone()));
    let response = catch_panic(async move {
        match router.oneshot(request).await {
            Ok(response) => response,
            Err(never) => match never {},
        }
    })
    .await;
    if let Some((method, uri)) = logged {
        tracing::debug!(%method, %uri, status = response.status().as_u16(), "request");
    }
    Ok(response)
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
        let config = Config { max_users: 10_000, ..Config::default() };
        let router = routes().route("/boom", get(boom)).with_state(config.state());

        let response = handle(router.clone(), request("/boom")).await.unwrap();
        assert_eq!(response.status(), 500);
        assert_eq!(response.headers()[header::CONTENT_TYPE], "application/json");
        let body = response.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(&body[..], br#"{"error":"internal error"}"#);

        let response = handle(router, request("/health")).await.unwrap();
        assert_eq!(response.status(), 200, "still serving");
    }

    #[tokio::test]
    async fn http_1_1_without_host_is_400() {
        let router = app(Config { max_users: 10_000, ..Config::default() }.state());
        let request = Request::get("/health").body(Body::empty()).unwrap();
        let response = handle(router.clone(), request).await.unwrap();
        assert_eq!(response.status(), 400);
        assert_eq!(response.headers()[header::CONNECTION], "close");

        let request = Request::get("/health").version(Version::HTTP_10).body(Body::empty()).unwrap();
        assert_eq!(handle(router, request).await.unwrap().status(), 200, "HTTP/1.0 needs no Host");
    }
}
