//! `ceiling`: the fastest thing the stack can do, as a yardstick.
//!
//! A minimal HTTP/1.1 server on hyper 1 that answers every request with the same 58-byte JSON body, the size of
//! `GET /users/500` on the real servers (`{"id":500,"name":"User 500","email":"user500@example.com"}`). There is no
//! routing, no store and no serialisation: what it measures is the cost of tokio + hyper + the kernel's loopback, the
//! per-core limit that neither real server can beat. fairpair runs it beside them on GET scenarios only.
//!
//! Run with `cargo run --release -p ceiling -- --port 0 --workers 1`. Flags: `--host` (default 127.0.0.1), `--port`
//! (default 3000, 0 = any free port), `--workers N` (tokio worker threads, default 1). It prints the same start-up
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
use http_body_util::Full;
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpSocket};

/// The body of `GET /users/500` on the real servers: 58 bytes.
const BODY: &[u8] = br#"{"id":500,"name":"User 500","email":"user500@example.com"}"#;

/// The command line, parsed by hand: three flags do not justify a dependency, and the binary stays tiny.
struct Args {
    host: String,
    port: u16,
    workers: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args { host: "127.0.0.1".to_string(), port: 3000, workers: 1 };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        // Accept both `--flag value` and `--flag=value`, like clap does for the real servers.
        let (name, inline) = match flag.split_once('=') {
            Some((n, v)) => (n.to_string(), Some(v.to_string())),
            None => (flag.clone(), None),
        };
        let mut value = || inline.clone().or_else(|| it.next()).ok_or_else(|| format!("{name} needs a value"));
        match name.as_str() {
            "--host" => args.host = value()?,
            "--port" => {
                let v = value()?;
                args.port = v.parse().map_err(|_| format!("--port: not a port number: {v}"))?;
            }
            "--workers" => {
                let v = value()?;
                args.workers = match v.parse() {
                    Ok(n) if (1..=1024).contains(&n) => n,
                    _ => return Err(format!("--workers: expected 1 to 1024, got {v}")),
                };
            }
            // Accepted so that a harness can pass the same flags to every subject; the ceiling stores nothing.
            "--max-users" => {
                value()?;
            }
            "-h" | "--help" => {
                println!("usage: ceiling [--host HOST] [--port PORT] [--workers N]");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument: {other}")),
        }
    }
    Ok(args)
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

/// Binds with a listen backlog of 1,024, as `users_api::bind` does.
fn bind(address: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if address.is_ipv4() { TcpSocket::new_v4()? } else { TcpSocket::new_v6()? };
    socket.set_reuseaddr(true)?;
    socket.bind(address)?;
    socket.listen(1024)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("ceiling: {message}");
            return ExitCode::from(2);
        }
    };
    let runtime = match runtime(args.workers) {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("ceiling: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        let address = match tokio::net::lookup_host((args.host.as_str(), args.port)).await.map(|mut all| all.next()) {
            Ok(Some(address)) => address,
            Ok(None) | Err(_) => {
                eprintln!("ceiling: cannot resolve {}", args.host);
                return ExitCode::from(2);
            }
        };
        let listener = match bind(address) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("ceiling: cannot bind {}:{}: {e}", args.host, args.port);
                return ExitCode::FAILURE;
            }
        };
        let addr: SocketAddr = match listener.local_addr() {
            Ok(a) => a,
            Err(e) => {
                eprintln!("ceiling: {e}");
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
