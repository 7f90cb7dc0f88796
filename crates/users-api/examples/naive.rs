//! The naive Rust server: the users API as the axum examples would write it, kept on purpose.
//!
//! It is the "before" of the teaching tour (`docs/tour.md`): `axum::serve`, the `Json<T>` and `Path<u64>`
//! extractors, a `DashMap` and a counter, and nothing else. It serves the same 10,000 seed users and routes as the
//! reference server in this crate, and it is not hardened: `fairpair verify --every-case` lists the contract rules it
//! breaks, and `crates/fairpair/tests/naive.rs` pins that list.
//!
//! Run with `cargo run --release -p users-api --example naive -- --port 3000`, then `curl localhost:3000/users/500`.
//! Flags: `--host` (default 127.0.0.1), `--port` (default 3000, 0 = any free port).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::{Json, Router};
use dashmap::DashMap;
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Clone, Serialize)]
struct User {
    id: u64,
    name: String,
    email: String,
}

#[derive(Deserialize)]
struct NewUser {
    name: String,
    email: String,
}

struct Db {
    users: DashMap<u64, User>,
    next_id: AtomicU64,
}

type Shared = State<Arc<Db>>;

async fn get_user(State(db): Shared, Path(id): Path<u64>) -> impl IntoResponse {
    match db.users.get(&id) {
        Some(user) => Json(user.clone()).into_response(),
        None => (StatusCode::NOT_FOUND, Json(json!({ "error": "not found" }))).into_response(),
    }
}

async fn create_user(State(db): Shared, Json(new): Json<NewUser>) -> impl IntoResponse {
    if new.name.is_empty() {
        return (StatusCode::BAD_REQUEST, Json(json!({ "error": "name required" }))).into_response();
    }
    if !new.email.contains('@') {
        return (StatusCode::BAD_REQUEST, Json(json!({ "error": "invalid email" }))).into_response();
    }
    let id = db.next_id.fetch_add(1, Ordering::Relaxed);
    let user = User { id, name: new.name, email: new.email };
    db.users.insert(id, user.clone());
    (StatusCode::CREATED, [(header::LOCATION, format!("/users/{id}"))], Json(user)).into_response()
}

#[tokio::main]
async fn main() {
    // Two flags, read by hand: `--host H` and `--port P`, as on the reference servers.
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str, default: &str| {
        args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned().unwrap_or(default.into())
    };
    let (host, port) = (flag("--host", "127.0.0.1"), flag("--port", "3000"));

    let users = (1..=10_000u64)
        .map(|id| (id, User { id, name: format!("User {id}"), email: format!("user{id}@example.com") }))
        .collect();
    let db = Arc::new(Db { users, next_id: AtomicU64::new(10_001) });
    let app = Router::new()
        .route("/", get(|| async { "Hello, World!" }))
        .route("/health", get(|| async { Json(json!({ "status": "ok" })) }))
        .route("/users", post(create_user))
        .route("/users/{id}", get(get_user))
        .with_state(db);

    let listener = tokio::net::TcpListener::bind(format!("{host}:{port}")).await.expect("bind");
    let workers = tokio::runtime::Handle::current().metrics().num_workers();
    // The start-up line of the reference servers, so that fairpair can start this server as a subject.
    println!("listening on http://{} (10000 users, {workers} workers)", listener.local_addr().unwrap());
    axum::serve(listener, app).await.unwrap();
}
