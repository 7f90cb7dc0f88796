//! Reading a request body within the contract's size and time limits.
//!
//! hyper hands the body over as a stream of frames and enforces neither limit itself, so this module does both:
//! the 64 KiB size limit (413) and the 10 s time limit after the head (408). It reads frame by frame instead of
//! collecting first, so an oversize body is never buffered, and a slow one cannot hold a task forever.
//!
//! A chunked body may end with trailer fields. Those that would change how the message is framed or routed
//! (`Content-Length`, `Transfer-Encoding`, `Host`) are refused with 400 (RFC 9110 section 6.5.1); the others are
//! ignored.

use axum::body::Body;
use axum::http::{HeaderMap, header};
use http_body_util::BodyExt;
use hyper::body::Body as _;
use tokio::time::{Instant, timeout_at};

use crate::error::ApiError;

/// The largest body accepted, in bytes.
pub const MAX_BODY_BYTES: usize = 65_536;

/// How much of an oversize body is read and thrown away before answering 413. Closing a connection while request
/// bytes are still arriving makes the kernel send a reset, which can destroy the 413 before the client has read it;
/// draining a bounded amount first lets ordinary clients see the answer, without letting anyone make us read forever.
/// The connection closes after the 413 either way. Each piece is dropped as soon as it is counted, so draining holds
/// no more memory than hyper's read buffer (`transport::MAX_BUF_BYTES`).
pub const DRAIN_BYTES: usize = 1 << 20;

/// How far [`drain`] got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Drained {
    /// The body ended within [`DRAIN_BYTES`].
    ToTheEnd,
    /// The body went on past [`DRAIN_BYTES`], stalled past the deadline, or broke.
    Partly,
}

/// Reads the whole body, or fails with 413 `payload too large` (after draining), 408 `request timeout` when
/// `deadline` passes first, or 400 `bad request` when the body is malformed or the client goes away.
pub async fn read_body(mut body: Body, deadline: Instant) -> Result<Vec<u8>, ApiError> {
    // With a Content-Length, hyper has already parsed and checked it, and reports it as the body's exact size: an
    // oversize declaration is refused before a byte of it is read.
    let declared = body.size_hint().exact();
    if declared.is_some_and(|length| length > MAX_BODY_BYTES as u64) {
        drain(body, 0, deadline).await;
        return Err(ApiError::PayloadTooLarge);
    }
    let mut bytes = Vec::with_capacity(declared.unwrap_or(0) as usize);
    // Without one (a chunked body), the bytes are counted as they arrive.
    while let Some(data) = next_data(&mut body, deadline).await? {
        if bytes.len() + data.len() > MAX_BODY_BYTES {
            // Once the body is known to be too large, the answer is 413 whatever the rest does.
            drain(body, bytes.len() + data.len(), deadline).await;
            return Err(ApiError::PayloadTooLarge);
        }
        bytes.extend_from_slice(&data);
    }
    Ok(bytes)
}

/// Reads and drops what is left of an oversize body (of which `read` bytes were read already), up to
/// [`DRAIN_BYTES`] past the limit or until `deadline`.
async fn drain(mut body: Body, mut read: usize, deadline: Instant) -> Drained {
    loop {
        if read > MAX_BODY_BYTES + DRAIN_BYTES {
            return Drained::Partly;
        }
        match next_data(&mut body, deadline).await {
            Ok(Some(data)) => read += data.len(),
            Ok(None) => return Drained::ToTheEnd,
            Err(_) => return Drained::Partly,
        }
    }
}

/// The next chunk of data, `None` at the end of the body. Trailers, if a chunked body has any, are checked and
/// skipped.
async fn next_data(body: &mut Body, deadline: Instant) -> Result<Option<bytes::Bytes>, ApiError> {
    loop {
        match timeout_at(deadline, body.frame()).await {
            Err(_elapsed) => return Err(ApiError::RequestTimeout),
            Ok(None) => return Ok(None),
            Ok(Some(Err(_broken))) => return Err(ApiError::BadRequest),
            Ok(Some(Ok(frame))) => match frame.into_data() {
                Ok(data) => return Ok(Some(data)),
                Err(frame) => {
                    if frame.trailers_ref().is_some_and(frames_the_message) {
                        return Err(ApiError::BadRequest);
                    }
                }
            },
        }
    }
}

/// Whether trailer fields include one that frames or routes the message, which a trailer must not carry.
fn frames_the_message(trailers: &HeaderMap) -> bool {
    [header::CONTENT_LENGTH, header::TRANSFER_ENCODING, header::HOST].iter().any(|name| trailers.contains_key(name))
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::pin::Pin;
    use std::task::{Context, Poll};
    use std::time::Duration;

    use bytes::Bytes;
    use hyper::body::Frame;

    use super::*;

    /// A body without a declared length (like a chunked one), delivered in chunks of the given sizes; after the last
    /// one it either ends or stalls forever, like a client that stopped sending.
    struct Chunks {
        sizes: VecDeque<usize>,
        stall: bool,
    }

    impl hyper::body::Body for Chunks {
        type Data = Bytes;
        type Error = std::io::Error;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
            match self.sizes.pop_front() {
                Some(size) => Poll::Ready(Some(Ok(Frame::data(Bytes::from(vec![b'x'; size]))))),
                None if self.stall => Poll::Pending,
                None => Poll::Ready(None),
            }
        }
    }

    fn chunked(sizes: &[usize]) -> Body {
        Body::new(Chunks { sizes: sizes.iter().copied().collect(), stall: false })
    }

    fn stalling(sizes: &[usize]) -> Body {
        Body::new(Chunks { sizes: sizes.iter().copied().collect(), stall: true })
    }

    fn in_a_minute() -> Instant {
        Instant::now() + Duration::from_secs(60)
    }

    #[tokio::test]
    async fn reads_a_body_up_to_the_limit() {
        let body = read_body(Body::from(vec![b'x'; MAX_BODY_BYTES]), in_a_minute()).await;
        assert_eq!(body.map(|b| b.len()), Ok(MAX_BODY_BYTES), "declared length");
        let body = read_body(chunked(&[30_000, 30_000, 5_536]), in_a_minute()).await;
        assert_eq!(body.map(|b| b.len()), Ok(MAX_BODY_BYTES), "counted length");
    }

    #[tokio::test]
    async fn refuses_an_oversize_body() {
        let declared = read_body(Body::from(vec![b'x'; MAX_BODY_BYTES + 1]), in_a_minute()).await;
        assert_eq!(declared, Err(ApiError::PayloadTooLarge), "declared");
        let counted = read_body(chunked(&[60_000, 6_000, 100]), in_a_minute()).await;
        assert_eq!(counted, Err(ApiError::PayloadTooLarge), "counted");
        let endless = read_body(chunked(&[60_000; 40]), in_a_minute()).await;
        assert_eq!(endless, Err(ApiError::PayloadTooLarge), "endless");
        // Once the body is known to be too large, a client that stops sending still gets 413, not 408.
        let stalled = read_body(stalling(&[70_000]), Instant::now()).await;
        assert_eq!(stalled, Err(ApiError::PayloadTooLarge), "rest never came");
    }

    #[tokio::test]
    async fn drains_at_most_a_mebibyte() {
        assert_eq!(drain(chunked(&[60_000, 6_000, 100]), 0, in_a_minute()).await, Drained::ToTheEnd);
        assert_eq!(drain(chunked(&[60_000; 40]), 0, in_a_minute()).await, Drained::Partly, "2.4 MB");
        assert_eq!(drain(stalling(&[10]), 0, Instant::now()).await, Drained::Partly, "stalled");
    }

    /// A chunked body whose trailer carries a framing or routing field is refused; other trailers are ignored.
    #[tokio::test]
    async fn refuses_framing_fields_in_trailers() {
        struct WithTrailer(Option<Frame<Bytes>>, Option<HeaderMap>);
        impl hyper::body::Body for WithTrailer {
            type Data = Bytes;
            type Error = std::io::Error;
            fn poll_frame(
                mut self: Pin<&mut Self>,
                _: &mut Context<'_>,
            ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
                let next = self.0.take().or_else(|| self.1.take().map(Frame::trailers));
                Poll::Ready(next.map(Ok))
            }
        }
        let cases: &[(&str, Option<ApiError>)] = &[
            ("content-length", Some(ApiError::BadRequest)),
            ("transfer-encoding", Some(ApiError::BadRequest)),
            ("host", Some(ApiError::BadRequest)),
            ("x-checksum", None),
        ];
        for (name, refusal) in cases {
            let mut trailers = HeaderMap::new();
            trailers.insert(header::HeaderName::from_static(name), "5".parse().unwrap());
            let body = Body::new(WithTrailer(Some(Frame::data(Bytes::from_static(b"{}"))), Some(trailers)));
            let outcome = read_body(body, in_a_minute()).await;
            assert_eq!(outcome.err(), *refusal, "trailer {name}");
        }
    }

    /// Time is paused, so the ten-second deadline passes at once and the test does not depend on the clock.
    #[tokio::test(start_paused = true)]
    async fn times_out_when_the_body_stalls() {
        let deadline = Instant::now() + Duration::from_secs(10);
        let stalled = read_body(stalling(&[10]), deadline).await;
        assert_eq!(stalled, Err(ApiError::RequestTimeout));
        assert!(Instant::now() >= deadline, "not before the deadline");
    }
}
