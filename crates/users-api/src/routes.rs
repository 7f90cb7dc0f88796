//! The routes: which request gets which answer.
//!
//! Routing uses axum's router, which matches on the raw path of the request target (`uri.path()`): no
//! percent-decoding, no dot-segment removal, and for an absolute-form target (`GET http://host/users/7`) hyper has
//! already split off the scheme and authority. The query is not part of the path, so it is ignored.
//!
//! Two axum conveniences are deliberately not used, because their error answers are not the contract's: the `Path`
//! extractor (it percent-decodes, and rejects with a plain-text 400) and the `Json` extractor (its rejections are
//! plain text, and serde_json is not `JSON.parse`; see `json.rs`). The id is read from the raw path instead, and the
//! body is read and parsed by hand.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Serialize;
use tokio::time::Instant;

use crate::body;
use crate::error::ApiError;
use crate::response::json_response;
use crate::store::{Store, StoreFull};
use crate::validation::{NewUser, is_json_media_type};

/// What every handler can reach: the store and the body time limit.
#[derive(Debug, Clone)]
pub struct AppState {
    store: Arc<Store>,
    body_timeout: Duration,
}

impl AppState {
    /// State around `store`, with `body_timeout` as the time a request body may take after its head.
    pub fn new(store: Store, body_timeout: Duration) -> AppState {
        AppState { store: Arc::new(store), body_timeout }
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }
}

/// The whole API as an axum `Router`, ready to serve or to call directly in tests (`app(state).oneshot(request)`).
///
/// A handler that panics is turned into a 500 by the server (`catch_panic` in `transport.rs`, around its call of this
/// router), not here; a test that calls the router directly sees the panic itself. A panic layer on the router
/// (tower-http's `CatchPanicLayer`) would answer the same 500, but it wraps every response body in a boxed body of
/// its own type, which axum then boxes again into its `Body`: work on every request for a case that should never
/// happen. So the workspace does not depend on tower-http.
pub fn app(state: AppState) -> Router {
    routes().with_state(state)
}

/// The route table. Each known path answers its own 405 for other methods, because the contract's 405 has a JSON
/// body and an `Allow` header written `GET, HEAD` (axum's own has no body). A `get` route answers `HEAD` too: axum
/// runs the GET handler, keeps its `Content-Length` and drops the body.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/", get(hello).fallback(allow_get))
        .route("/health", get(health).fallback(allow_get))
        .route("/users", post(create_user).fallback(allow_post))
        // `{id}` matches exactly one non-empty segment, whatever its bytes: `/users/abc` is a known path (so
        // `DELETE /users/abc` is 405), and `get_user` decides whether the id is one.
        .route("/users/{id}", get(get_user).fallback(allow_get))
        .fallback(not_found)
}

/// `GET /`: the hello-world baseline of the classic framework comparisons.
async fn hello() -> Response {
    ([(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"))], "Hello, World!").into_response()
}

/// `GET /health`: `{"status":"ok"}`.
async fn health() -> Response {
    #[derive(Serialize)]
    struct Health {
        status: &'static str,
    }
    json_response(StatusCode::OK, &Health { status: "ok" })
}

/// `GET /users/{id}`: the user, if `{id}` is the canonical decimal form of an existing user's id.
async fn get_user(State(state): State<AppState>, uri: Uri) -> Result<Response, ApiError> {
    let segment = uri.path().strip_prefix("/users/").unwrap_or_default();
    let id = parse_id(segment).ok_or(ApiError::NotFound)?;
    // The user is serialised while its shard is read-locked; nothing is awaited meanwhile (see `store.rs`).
    state.store.read(id, |user| json_response(StatusCode::OK, user)).ok_or(ApiError::NotFound)
}

/// `POST /users`: checks the contract's rules in order, stores the user and answers 201 with its `Location`.
async fn create_user(State(state): State<AppState>, request: Request) -> Result<Response, ApiError> {
    // The body's time limit runs from the end of the head, which is (within microseconds) when this handler starts.
    let deadline = Instant::now() + state.body_timeout;
    let (parts, body) = request.into_parts();
    // Rule 1.
    if !is_json_media_type(parts.headers.get(header::CONTENT_TYPE)) {
        return Err(ApiError::UnsupportedMediaType);
    }
    // Rule 2.
    let bytes = body::read_body(body, deadline).await?;
    // Rules 3 to 6.
    let new_user = NewUser::parse(&bytes)?;
    // Rule 7.
    let (id, mut response) = state
        .store
        .create(new_user, |user| (user.id, json_response(StatusCode::CREATED, user)))
        .map_err(|StoreFull| {
        say_store_full(state.store.max_users());
        ApiError::StoreFull
    })?;
    let location = HeaderValue::try_from(format!("/users/{id}")).map_err(|_| ApiError::Internal)?;
    response.headers_mut().insert(header::LOCATION, location);
    Ok(response)
}

/// The first 507 of a process says so on stderr, once and without `--log`: a POST load that fills the store goes on
/// getting answers, and a load tool that counts only connection errors would take those 507s for throughput.
fn say_store_full(max_users: u64) {
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| eprintln!("store full: answering 507 to POST /users until restart (--max-users {max_users})"));
}

/// Any path that is not a route.
async fn not_found() -> ApiError {
    ApiError::NotFound
}

/// Another method on a GET route.
async fn allow_get() -> ApiError {
    ApiError::MethodNotAllowed { allow: "GET, HEAD" }
}

/// Another method on `/users`.
async fn allow_post() -> ApiError {
    ApiError::MethodNotAllowed { allow: "POST" }
}

/// The id in `/users/{id}`: only the canonical decimal form `^[1-9][0-9]*$` counts, so `0500`, `+500`, `5e2` and
/// `%35%30%30` are all not found, like an id too large for a `u64`.
fn parse_id(segment: &str) -> Option<u64> {
    let canonical =
        segment.starts_with(|c: char| matches!(c, '1'..='9')) && segment.bytes().all(|b| b.is_ascii_digit());
    if canonical { segment.parse().ok() } else { None }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_canonical_decimal_ids_count() {
        let cases: &[(&str, Option<u64>)] = &[
            ("1", Some(1)),
            ("500", Some(500)),
            ("18446744073709551615", Some(u64::MAX)),
            ("18446744073709551616", None),
            ("0", None),
            ("0500", None),
            ("+500", None),
            ("-1", None),
            ("5e2", None),
            ("5.0", None),
            ("0x1f4", None),
            ("%35%30%30", None),
            (" 500", None),
            ("500 ", None),
            ("５", None),
            ("", None),
        ];
        for (segment, expected) in cases {
            assert_eq!(parse_id(segment), *expected, "case {segment:?}");
        }
    }
}
