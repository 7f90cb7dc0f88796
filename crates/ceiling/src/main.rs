//! `ceiling`: the fastest thing the stack can do, as a yardstick.
//!
//! A minimal HTTP/1.1 server on hyper 1 that answers every request with the same 58-byte JSON body, the size of
//! `GET /users/500` on the real servers (`{"id":500,"name":"User 500","email":"user500@example.com"}`). There is no
//! routing, no store and no serialisation: what it measures is the cost of tokio + hyper + the kernel's loopback, the
//! per-core limit that neither real server can beat. fairpair runs it beside them on GET scenarios only.
//!
//! Run with `cargo run --release -p ceiling -- --port 0 --workers 1`. Flags (parsed by clap): `--host` (default
//! 127.0.0.1), `--port` (default 3000, 0 = any free port), `--workers N` (tokio worker threads, 1 to 1024, default 1);
//! `--max-users` is accepted and ignored. A bad flag or value exits with status 2 and one line on stderr. It prints the same start-up
//! line as the real servers, `listening on http://HOST:PORT (10000 users, N workers)`, so the harness treats all
//! three alike, and exits on SIGTERM or SIGINT.
//!
//! Unlike the real servers it deliberately sends a body it did not serialise per request: that is the point of a
//! ceiling, and why it is never compared on equal terms, only as the limit.
//!
//! Everything that is not work per request is set up exactly as in `users-server`, or the ceiling would not be the
//! limit of the same stack: the same tokio runtime (current-thread for one worker, see `runtime`), the same listen
//! backlog of 1,024 and `TCP_NODELAY` on every connection.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::process::ExitCode;

use bytes::Bytes;
use clap::Parser;
use clap::error::ErrorKind;
use http_body_util::Full;
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpSocket};

/// The body of `GET /users/500` on the real servers: 58 bytes.
const BODY: &[u8] = br#"{"id":500,"name":"User 500","email":"user500@example.com"}"#;

/// The usage line `--help` prints: the only flags a user of the ceiling needs.
const USAGE: &str = "usage: ceiling [--host HOST] [--port PORT] [--workers N]";

/// The command line. Both `--flag value` and `--flag=value` work, as for the real servers.
#[derive(Debug, Parser)]
#[command(name = "ceiling", help_template = USAGE)]
struct Args {
    /// Address to bind.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,

    /// Port to bind (0: any free port).
    #[arg(long, default_value_t = 3000)]
    port: u16,

    /// Tokio worker threads, 1..1024.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
    workers: u16,

    /// Accepted so that a harness can pass the same flags to every subject; the ceiling stores nothing.
    #[arg(long, hide = true)]
    max_users: Option<String>,
}

/// The flags, or the exit status to end with: 0 after `--help`, 2 after a bad flag or value (with one line on stderr,
/// the first of clap's message, which goes on with a tip and the usage).
fn parse_args() -> Result<Args, ExitCode> {
    match Args::try_parse() {
        Ok(args) => Ok(args),
        Err(error) if error.kind() == ErrorKind::DisplayHelp => {
            println!("{USAGE}");
            Err(ExitCode::SUCCESS)
        }
        Err(error) => {
            let text = error.to_string();
            let first = text.lines().next().unwrap_or("invalid arguments");
            eprintln!("error: {}", first.strip_prefix("error: ").unwrap_or(first));
            Err(ExitCode::from(2))
        }
    }
}

async fn answer(_req: Request<hyper::body::Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let mut response = Response::new(Full::new(Bytes::from_static(BODY)));
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    Ok(response)
}

async fn serve(listener: TcpListener) {
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(conn) => conn,
            // Running out of file descriptors under a 300-connection load must not end the server.
            Err(_) => continue,
        };
        // As in users-server: a small response must not wait for Nagle's algorithm.
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            let _ = http1::Builder::new().serve_connection(TokioIo::new(stream), service_fn(answer)).await;
        });
    }
}

async fn shutdown_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate()).expect("install SIGTERM handler");
    tokio::select! {
        _ = term.recv() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}

/// The runtime, chosen as in `users_api::runtime` (whose comment explains why): one worker runs on a current-thread
/// runtime, whose single first-in first-out queue serves every connection in turn under saturation; the multi-thread
/// runtime's per-worker queue holds only 256 ready tasks and starves the overflow. Several workers use the
/// multi-thread runtime, as users-server does.
fn runtime(workers: usize) -> std::io::Result<tokio::runtime::Runtime> {
    if workers == 1 {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_multi_thread().worker_threads(workers).enable_all().build()
    }
}

/// Binds with a listen backlog of 1,024, as the Rust server's `bind` (`crates/users-server/src/main.rs`) does.
fn bind(address: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if address.is_ipv4() { TcpSocket::new_v4()? } else { TcpSocket::new_v6()? };
    socket.set_reuseaddr(true)?;
    socket.bind(address)?;
    socket.listen(1024)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(status) => return status,
    };
    let runtime = match runtime(usize::from(args.workers)) {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        let address = match tokio::net::lookup_host((args.host.as_str(), args.port)).await.map(|mut all| all.next()) {
            Ok(Some(address)) => address,
            Ok(None) | Err(_) => {
                eprintln!("error: cannot resolve {}", args.host);
                return ExitCode::from(2);
            }
        };
        let listener = match bind(address) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("error: cannot listen on {}:{}: {e}", args.host, args.port);
                return ExitCode::FAILURE;
            }
        };
        let addr: SocketAddr = match listener.local_addr() {
            Ok(a) => a,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        };
        let plural = if args.workers == 1 { "" } else { "s" };
        println!("listening on http://{addr} (10000 users, {} worker{plural})", args.workers);
        tokio::select! {
            _ = serve(listener) => {}
            _ = shutdown_signal() => {}
        }
        ExitCode::SUCCESS
    })
}
