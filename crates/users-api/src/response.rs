//! Building a JSON response: the one place that turns a value into a body with its `Content-Type`.
//!
//! Both the handlers (`routes.rs`) and the error answers (`error.rs`) build their bodies here, so neither imports the
//! other.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// A JSON response, serialised now, for this request: nothing is cached or pre-serialised (a rule of the project, so
/// every server does the same work). `Content-Length` follows from the body, which has an exact size.
pub(crate) fn json_response<T: Serialize>(status: StatusCode, value: &T) -> Response {
    match serde_json::to_vec(value) {
        Ok(json) => {
            (status, [(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], json).into_response()
        }
        // Serialising plain structs of strings and numbers cannot fail; if it ever did, say so without recursing.
        Err(error) => {
            tracing::error!(%error, "serialising a response failed");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}
