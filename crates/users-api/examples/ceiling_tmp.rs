use bytes::Bytes;
use http_body_util::Full;
use hyper::{Response, server::conn::http1, service::service_fn};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    rt.block_on(async {
        tokio::spawn(async {
            let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            println!("listening on http://127.0.0.1:{} (ceiling)", l.local_addr().unwrap().port());
            loop {
                let (s, _) = l.accept().await.unwrap();
                s.set_nodelay(true).unwrap();
                tokio::spawn(async move {
                    let svc = service_fn(|_req| async {
                        let body = br#"{"id":500,"name":"User 500","email":"user500@example.com"}"#.to_vec();
                        Ok::<_, Infallible>(
                            Response::builder()
                                .header("content-type", "application/json")
                                .body(Full::new(Bytes::from(body)))
                                .unwrap(),
                        )
                    });
                    let _ = http1::Builder::new().timer(TokioTimer::new()).serve_connection(TokioIo::new(s), svc).await;
                });
            }
        })
        .await
        .unwrap();
    });
}
