//! One mutant, one fresh connection, one server: write the bytes as the mutant's writes, then read everything the
//! server sends until it closes the connection or the deadline passes, noting when each byte arrived.

use super::mutate::Mutant;
use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// What came back on one connection.
#[derive(Debug, Clone, Default)]
pub struct Reply {
    /// Every byte received, in order.
    pub bytes: Vec<u8>,
    /// For each read: the offset in `bytes` where it started, and when it arrived (after the last write).
    pub arrivals: Vec<(usize, Duration)>,
    /// When the server closed (or reset) the connection, after the last write; `None`: still open at the deadline.
    pub closed_at: Option<Duration>,
    /// The connection could not be made at all (the server is gone).
    pub refused: bool,
}

impl Reply {
    /// When the byte at `offset` arrived.
    pub fn arrival_of(&self, offset: usize) -> Duration {
        self.arrivals.iter().take_while(|(start, _)| *start <= offset).last().map_or(Duration::ZERO, |(_, t)| *t)
    }
}

/// Sends `mutant` to `addr` and reads until the server closes or `deadline` after the last write.
pub fn probe(addr: SocketAddr, mutant: &Mutant, deadline: Duration) -> Reply {
    let mut reply = Reply::default();
    let Ok(mut stream) = TcpStream::connect_timeout(&addr, Duration::from_secs(5)) else {
        reply.refused = true;
        return reply;
    };
    let _ = stream.set_nodelay(true);
    let _ = stream.set_write_timeout(Some(deadline));
    for (i, write) in mutant.writes().into_iter().enumerate() {
        if i > 0 {
            // A moment between writes, so that each tends to arrive as a segment of its own.
            std::thread::sleep(Duration::from_millis(2));
        }
        // A server may answer and close before reading everything: what it sent is read below all the same.
        if stream.write_all(write).is_err() {
            break;
        }
    }
    let written = Instant::now();
    let mut chunk = [0u8; 16 * 1024];
    loop {
        let left = deadline.saturating_sub(written.elapsed());
        if left.is_zero() {
            break;
        }
        let _ = stream.set_read_timeout(Some(left));
        match stream.read(&mut chunk) {
            Ok(0) => {
                reply.closed_at = Some(written.elapsed());
                break;
            }
            Ok(n) => {
                reply.arrivals.push((reply.bytes.len(), written.elapsed()));
                reply.bytes.extend_from_slice(&chunk[..n]);
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted) => {
                if e.kind() != ErrorKind::Interrupted {
                    break;
                }
            }
            // A reset is a close: a server that closes with unread bytes in its buffer sends one.
            Err(_) => {
                reply.closed_at = Some(written.elapsed());
                break;
            }
        }
    }
    let _ = stream.shutdown(Shutdown::Both);
    reply
}
