//! # users-api — the Rust side of fairpair
//!
//! A small in-memory JSON API of users, written to the contract in `contract/CONTRACT.md` so that it answers
//! byte for byte like the Node and Go servers (`servers-node/`, `servers-go/`). Everything worth reading lives in this library; the
//! `users-server` binary only parses flags, sets up logging and signals, binds the listener (as the Node and Go servers
//! bind in their entry files), and calls [`serve`].
//!
//! Run it with `cargo run --release -p users-server`, then `curl localhost:3000/users/500`.
//!
//! | request | answer |
//! |---|---|
//! | `GET /users/{id}` | 200 the user, or 404 `not found` (`{id}` must be canonical decimal) |
//! | `POST /users` | 201 the new user with `Location`, or 415 / 413 / 400 / 507 |
//! | `GET /health` | 200 `{"status":"ok"}` |
//! | `GET /` | 200 `Hello, World!` as text |
//! | `HEAD` on any GET route | as the GET, without a body |
//! | another method on a known path | 405 with `Allow` |
//! | anything else | 404 `not found` |
//!
//! Every error the application answers is `{"error":"<message>"}` with `Content-Type: application/json`; only
//! the errors hyper answers itself before a request exists (431 for an oversize head, 400 for a malformed one) have
//! an empty body, as the contract allows.
//!
//! ## Layout
//!
//! Read it top down, in the order a request meets it (the same order as the Node and Go servers' files of the same
//! names; `docs/tour.md` follows one request through all three):
//!
//! - [`transport`]: the accept loop on hyper's HTTP/1 connection: head timeout, head size limit, `TCP_NODELAY`,
//!   the transport checks (`Host`, target form, framing headers, `Expect`), keep-alive after an unread body, a panic
//!   turned into a 500, graceful shutdown, and the tokio runtime that serves every connection in turn.
//! - [`routes`]: the routes, on the raw request path; `app(state)` returns the `Router`, which tests call directly.
//! - [`request_log`]: the `--log` line, one per request, in the format all three servers share.
//! - [`error`]: every error answer, its status and its exact message.
//! - `response`: `json_response`, the one way a value becomes a JSON answer (used by `routes` and `error`).
//! - [`body`]: reading a request body within the size limit (413) and the time limit (408).
//! - [`validation`]: the `User`, and `NewUser::parse`, which applies the validation rules in the contract's order.
//! - [`json`]: a scanner that accepts exactly what JavaScript's `JSON.parse` accepts (any nesting depth, any number,
//!   lone surrogates in keys and values that are ignored), which serde_json does not.
//! - [`store`]: the users, in a sharded `DashMap`; why no lock is ever held across an `.await`.

pub mod body;
pub mod error;
pub mod json;
pub mod request_log;
mod response;
pub mod routes;
pub mod store;
pub mod transport;
pub mod validation;

pub use error::ApiError;
pub use routes::{AppState, app};
pub use store::{SEED_USERS, Store};
pub use transport::{MAX_BUF_BYTES, MAX_HEAD_BYTES, Options, run, runtime, serve};
pub use validation::{NewUser, User};
