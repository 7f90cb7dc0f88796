//! Reading a request body within the contract's size and time limits.
//!
//! hyper hands the body over as a stream of frames and enforces neither limit itself, so this module does both:
//! the 64 KiB size limit (413) and the 10 s time limit after the head (408). It reads frame by frame instead of
//! collecting first, so an oversize body is never buffered, and a slow one cannot hold a task forever.

use axum::body::Body;
use http_body_util::BodyExt;
use hyper::body::Body as _;
use tokio::time::{Instant, timeout_at};

use crate::error::ApiError;

/// The largest body accepted, in bytes.
pub const MAX_BODY_BYTES: usize = 65_536;

/// How much of an oversize body is read and thrown away before answering 413. Closing a connection while request
/// bytes are still arriving makes the kernel send a reset, which can destroy the 413 before the client has read it;
/// draining a bounded amount first lets ordinary clients see the answer, without letting anyone make us read forever.
pub const DRAIN_BYTES: usize = 1 << 20;

/// Reads the whole body, or fails with 413 `payload too large` (after draining), 408 `request timeout` when
/// `deadline` passes first, or 400 `bad request` when the body is malformed or the client goes away.
pub async fn read_limited(mut body: Body, deadline: Instant) -> Result<Vec<u8>, ApiError> {
    // With a Content-Length, hyper has already parsed and checked it, and reports it as the body's exact size: an
    // oversize declaration is refused before a byte of it is read.
    let declared = body.size_hint().exact();
    if declared.is_some_and(|length| length > MAX_BODY_BYTES as u64) {
        return Err(discard_rest(body, 0, deadline).await);
    }
    let mut bytes = Vec::with_capacity(declared.unwrap_or(0) as usize);
    // Without one (a chunked body), the bytes are counted as they arrive.
    while let Some(data) = next_data(&mut body, deadline).await? {
        if bytes.len() + data.len() > MAX_BODY_BYTES {
            return Err(discard_rest(body, bytes.len() + data.len(), deadline).await);
        }
        bytes.extend_from_slice(&data);
    }
    Ok(bytes)
}

/// Reads and drops what is left of an oversize body, up to [`DRAIN_BYTES`] past the limit, and returns the 413 to
/// answer. Whether the whole body was drained decides whether the connection can stay open.
async fn discard_rest(mut body: Body, mut read: usize, deadline: Instant) -> ApiError {
    loop {
        if read > MAX_BODY_BYTES + DRAIN_BYTES {
            return ApiError::PayloadTooLarge { rest_unread: true };
        }
        match next_data(&mut body, deadline).await {
            Ok(Some(data)) => read += data.len(),
            Ok(None) => return ApiError::PayloadTooLarge { rest_unread: false },
            // The size verdict stands even if the rest is slow or broken; the connection just cannot be reused.
            Err(_) => return ApiError::PayloadTooLarge { rest_unread: true },
        }
    }
}

/// The next chunk of data, `None` at the end of the body. Trailers, if a chunked body has any, are skipped.
async fn next_data(body: &mut Body, deadline: Instant) -> Result<Option<bytes::Bytes>, ApiError> {
    loop {
        match timeout_at(deadline, body.frame()).await {
            Err(_elapsed) => return Err(ApiError::RequestTimeout),
            Ok(None) => return Ok(None),
            Ok(Some(Err(_broken))) => return Err(ApiError::BadRequest),
            Ok(Some(Ok(frame))) => {
                if let Ok(data) = frame.into_data() {
                    return Ok(Some(data));
                }
            }
        }
    }
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
        let body = read_limited(Body::from(vec![b'x'; MAX_BODY_BYTES]), in_a_minute()).await;
        assert_eq!(body.map(|b| b.len()), Ok(MAX_BODY_BYTES), "declared length");
        let body = read_limited(chunked(&[30_000, 30_000, 5_536]), in_a_minute()).await;
        assert_eq!(body.map(|b| b.len()), Ok(MAX_BODY_BYTES), "counted length");
    }

    #[tokio::test]
    async fn refuses_an_oversize_body_after_draining_it() {
        let declared = read_limited(Body::from(vec![b'x'; MAX_BODY_BYTES + 1]), in_a_minute()).await;
        assert_eq!(declared, Err(ApiError::PayloadTooLarge { rest_unread: false }), "declared, drained");
        let counted = read_limited(chunked(&[60_000, 6_000, 100]), in_a_minute()).await;
        assert_eq!(counted, Err(ApiError::PayloadTooLarge { rest_unread: false }), "counted, drained");
        let endless = read_limited(chunked(&[60_000; 40]), in_a_minute()).await;
        assert_eq!(endless, Err(ApiError::PayloadTooLarge { rest_unread: true }), "drained up to 1 MiB only");
        let stalled = read_limited(stalling(&[70_000]), Instant::now()).await;
        assert_eq!(stalled, Err(ApiError::PayloadTooLarge { rest_unread: true }), "rest never came");
    }

    /// Time is paused, so the ten-second deadline passes at once and the test does not depend on the clock.
    #[tokio::test(start_paused = true)]
    async fn times_out_when_the_body_stalls() {
        let deadline = Instant::now() + Duration::from_secs(10);
        let stalled = read_limited(stalling(&[10]), deadline).await;
        assert_eq!(stalled, Err(ApiError::RequestTimeout));
        assert!(Instant::now() >= deadline, "not before the deadline");
    }
}
