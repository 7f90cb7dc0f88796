//! Every `request` case of `contract/cases.json`, run against `app()` without a socket.
//!
//! `tower::ServiceExt::oneshot` calls the router directly, so these run in milliseconds and point at the routes
//! when they fail. What only a real connection can show (the `raw` cases: HTTP parsing, timeouts, closing) is run
//! against the real binary in `crates/users-server/tests/`.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::Router;
use axum::body::Body;
use axum::http::{self, HeaderName, HeaderValue};
use bytes::Bytes;
use contract::{Case, Outcome, Response, Wire};
use http_body_util::BodyExt;
use hyper::body::Frame;
use tower::ServiceExt;
use users_api::{Options, app};

#[tokio::test]
async fn every_request_case_passes_against_the_router() {
    // One app per store capacity a case requires, kept for the whole run like one server process per suite:
    // POST cases create users with increasing ids, as against a real server.
    let roomy = app(Options::default().state());
    let full = app(Options { max_users: users_api::SEED_USERS, ..Options::default() }.state());

    let mut failures = Vec::new();
    let mut ran = 0;
    for case in contract::cases() {
        let Wire::Request(_) = &case.send else { continue };
        let app = match case.requires.max_users {
            None => &roomy,
            Some(n) if n == users_api::SEED_USERS => &full,
            Some(n) => panic!("case {} requires max_users {n}; add an app for it", case.name),
        };
        let outcome = send(app, request_of(case)).await;
        let mut mismatches = contract::check(case, &outcome);
        if mismatches.is_empty() && case.roundtrip {
            mismatches.extend(roundtrip(app, &outcome).await);
        }
        if !mismatches.is_empty() {
            failures.push(format!("{}:\n  {}", case.name, mismatches.join("\n  ")));
        }
        ran += 1;
    }
    assert!(ran > 100, "only {ran} request cases found");
    assert!(failures.is_empty(), "{} of {ran} cases failed:\n{}", failures.len(), failures.join("\n"));
}

/// The request a case describes, completed by the contract's own rule (`Request::completed_headers`: a `Host`, a
/// `Content-Length`), as the socket runner sends it.
fn request_of(case: &Case) -> http::Request<Body> {
    let Wire::Request(request) = &case.send else { unreachable!("only request cases") };
    let mut builder = http::Request::builder().method(request.method.as_str()).uri(request.target.as_str());
    for (name, value) in request.completed_headers() {
        let value = HeaderValue::from_bytes(value.as_bytes()).expect("a valid header value");
        builder = builder.header(HeaderName::from_bytes(name.as_bytes()).expect("a valid header name"), value);
    }
    let bytes = request.body.clone().unwrap_or_default();
    let chunked = request.headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("transfer-encoding"));
    // hyper would decode a chunked body and report no length; do the same here.
    let body = if chunked { Body::new(Chunks(dechunk(&bytes).into())) } else { Body::from(bytes) };
    builder.body(body).expect("a valid request")
}

/// Calls the router and turns its answer into the contract crate's `Outcome`.
async fn send(app: &Router, request: http::Request<Body>) -> Outcome {
    let response = app.clone().oneshot(request).await.unwrap_or_else(|never| match never {});
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .map(|(name, value)| (name.as_str().to_owned(), String::from_utf8_lossy(value.as_bytes()).into_owned()))
        .collect();
    let body = response.into_body().collect().await.expect("the body").to_bytes().to_vec();
    Outcome::Response { response: Response { status, headers, body }, closed: None }
}

/// After a 201, `GET` the `Location` and require status 200 and the very same body.
async fn roundtrip(app: &Router, created: &Outcome) -> Vec<String> {
    let Outcome::Response { response, .. } = created else { return vec!["round trip: no response".to_owned()] };
    let Some(location) = response.header("location") else { return vec!["round trip: no Location".to_owned()] };
    let request = http::Request::get(location).header("host", "127.0.0.1").body(Body::empty()).unwrap();
    match send(app, request).await {
        Outcome::Response { response: got, .. } if got.status == 200 && got.body == response.body => Vec::new(),
        other => vec![format!("round trip: GET {location}: expected 200 with the POST's body, got {other}")],
    }
}

/// The data of a chunked body, as hyper would hand it over (this test's bodies are well-formed).
fn dechunk(mut wire: &[u8]) -> Vec<Bytes> {
    let mut chunks = Vec::new();
    loop {
        let line_end = wire.windows(2).position(|w| w == b"\r\n").expect("a chunk size line");
        let size = usize::from_str_radix(std::str::from_utf8(&wire[..line_end]).unwrap().trim(), 16).unwrap();
        wire = &wire[line_end + 2..];
        if size == 0 {
            return chunks;
        }
        chunks.push(Bytes::copy_from_slice(&wire[..size]));
        wire = &wire[size + 2..];
    }
}

/// A body of known chunks and unknown length.
struct Chunks(VecDeque<Bytes>);

impl hyper::body::Body for Chunks {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Poll::Ready(self.0.pop_front().map(|chunk| Ok(Frame::data(chunk))))
    }
}
