//! Every error the API can answer with, its status code and its exact message.
//!
//! Handlers return `Result<Response, ApiError>`, so an error is a value, not a response someone remembered to build
//! correctly: the contract's messages live here and nowhere else.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::response::json_response;

/// An error answer of the API. Each variant documents its status and body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiError {
    /// 404 `not found`: an unknown path, or `/users/{id}` whose id is not a canonical decimal of an existing user.
    NotFound,
    /// 405 `method not allowed`, with the route's methods in `Allow` (`GET, HEAD` or `POST`).
    MethodNotAllowed { allow: &'static str },
    /// 415 `content-type must be application/json`.
    UnsupportedMediaType,
    /// 413 `payload too large`; the connection closes, whether or not the rest of the body was drained.
    PayloadTooLarge,
    /// 400 `invalid json`: not UTF-8, not JSON, not an object, or a final `name`/`email` that is not well-formed.
    InvalidJson,
    /// 400 `name required`: `name` missing, not a string, or empty.
    NameRequired,
    /// 400 `name too long`: over 200 code points.
    NameTooLong,
    /// 400 `invalid email`: `email` missing, not a string, over 254 code points, or without `@`.
    InvalidEmail,
    /// 507 `store full`: the store already holds `--max-users` users.
    StoreFull,
    /// 408 `request timeout`: the body did not arrive within the time limit; the connection closes.
    RequestTimeout,
    /// 400 `bad request`: the body could not be read (a malformed chunk, a reset); the connection closes.
    BadRequest,
    /// 501 `unsupported transfer encoding`: a `Transfer-Encoding` other than one `chunked` (RFC 9112 section 6.1);
    /// the connection closes, since the body's framing is unknown.
    UnsupportedTransferEncoding,
    /// 500 `internal error`: something failed that should not have. Details go to the log, never to the client.
    Internal,
}

impl ApiError {
    /// The status code of the answer.
    pub fn status_code(self) -> StatusCode {
        match self {
            ApiError::NotFound => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::InvalidJson | ApiError::NameRequired | ApiError::NameTooLong | ApiError::InvalidEmail => {
                StatusCode::BAD_REQUEST
            }
            ApiError::StoreFull => StatusCode::INSUFFICIENT_STORAGE,
            ApiError::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            ApiError::BadRequest => StatusCode::BAD_REQUEST,
            ApiError::UnsupportedTransferEncoding => StatusCode::NOT_IMPLEMENTED,
            ApiError::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The message in the `{"error": …}` body, exactly as the contract words it.
    pub fn message(self) -> &'static str {
        match self {
            ApiError::NotFound => "not found",
            ApiError::MethodNotAllowed { .. } => "method not allowed",
            ApiError::UnsupportedMediaType => "content-type must be application/json",
            ApiError::PayloadTooLarge => "payload too large",
            ApiError::InvalidJson => "invalid json",
            ApiError::NameRequired => "name required",
            ApiError::NameTooLong => "name too long",
            ApiError::InvalidEmail => "invalid email",
            ApiError::StoreFull => "store full",
            ApiError::RequestTimeout => "request timeout",
            ApiError::BadRequest => "bad request",
            ApiError::UnsupportedTransferEncoding => "unsupported transfer encoding",
            ApiError::Internal => "internal error",
        }
    }

    /// Whether the connection must be closed after this answer, because body bytes the server did not read may still
    /// be on the way. (Any other answer to a request whose body was not read to its end closes too: see `transport.rs`.)
    fn closes_connection(self) -> bool {
        matches!(
            self,
            ApiError::PayloadTooLarge
                | ApiError::RequestTimeout
                | ApiError::BadRequest
                | ApiError::UnsupportedTransferEncoding
        )
    }
}

/// The JSON body of every error: `{"error":"<message>"}`.
#[derive(Serialize)]
struct ErrorBody {
    error: &'static str,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = json_response(self.status_code(), &ErrorBody { error: self.message() });
        let headers = response.headers_mut();
        if let ApiError::MethodNotAllowed { allow } = self {
            headers.insert(header::ALLOW, HeaderValue::from_static(allow));
        }
        if self.closes_connection() {
            // hyper reads this header too: it finishes writing the response, then closes the connection.
            headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        response
    }
}
