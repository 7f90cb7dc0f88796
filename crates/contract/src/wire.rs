//! A deliberately small HTTP/1 client over a raw TCP socket: write the bytes, read one response.
//!
//! It reads what the server sends and nothing more clever: a status line, headers, then a body delimited by
//! `Content-Length`, by chunks, or by the end of the connection. A `1xx` interim response is skipped. Anything that
//! is not an HTTP/1 response (an HTTP/2 frame, say) is an error, which the checker reports as a failure.

use std::fmt;
use std::io::{self, ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// A parsed HTTP/1 response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    /// In the order received; names lower-case, values as text (bytes above 0x7F read as Latin-1, as HTTP does).
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    /// The first header of that name (give it in lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// What came back for one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A response; `closed` says whether the server then closed the connection (`None`: not observed).
    Response { response: Response, closed: Option<bool> },
    /// The server closed (or reset) the connection without answering.
    Closed,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Closed => write!(f, "closed without a response"),
            Outcome::Response { response, .. } => write!(f, "{} {}", response.status, crate::show(&response.body)),
        }
    }
}

/// How long to wait, after a response, for the server to close the connection when a case says it must.
const CLOSE_WAIT: Duration = Duration::from_secs(2);

/// Sends `bytes` to `addr` on a new connection and reads one response (the first, if the bytes hold several
/// requests). With `probe_close`, also waits briefly to see whether the server closes the connection afterwards.
///
/// A server may answer before it has read everything (a 413, say) and close; a failed write is therefore not an
/// error by itself: what the server sent back is still read.
pub fn send(addr: SocketAddr, bytes: &[u8], timeout: Duration, probe_close: bool) -> io::Result<Outcome> {
    send_and_rest(addr, bytes, timeout, probe_close).map(|(outcome, _)| outcome)
}

/// Like [`send`], and also returns the bytes that came after the response (with `probe_close`, until the close):
/// a second answer, say.
pub fn send_and_rest(
    addr: SocketAddr,
    bytes: &[u8],
    timeout: Duration,
    probe_close: bool,
) -> io::Result<(Outcome, Vec<u8>)> {
    let mut conn = Connection::open(addr, timeout)?;
    let write_failed = conn.write(bytes).is_err();
    let response = match conn.response(bytes.starts_with(b"HEAD "), timeout) {
        Ok(Some(r)) => r,
        Ok(None) => return Ok((Outcome::Closed, Vec::new())),
        Err(e) if is_reset(&e) && conn.buffered() == 0 => return Ok((Outcome::Closed, Vec::new())),
        Err(e) if write_failed && e.kind() == ErrorKind::TimedOut => {
            return Err(io::Error::new(e.kind(), "the server stopped reading the request and sent nothing"));
        }
        Err(e) => return Err(e),
    };
    let closed = if probe_close { Some(conn.closes_within(CLOSE_WAIT)) } else { None };
    conn.shutdown();
    let rest = conn.buf[conn.pos..].to_vec();
    Ok((Outcome::Response { response, closed }, rest))
}

fn is_reset(e: &io::Error) -> bool {
    matches!(e.kind(), ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted | ErrorKind::BrokenPipe)
}

/// One client connection, for tests that need more than one request on it (keep-alive, pipelining) or that write
/// slowly: write bytes whenever you like, read responses one at a time.
pub struct Connection {
    stream: TcpStream,
    buf: Vec<u8>,
    pos: usize,
    deadline: Instant,
}

impl Connection {
    /// Connects with TCP_NODELAY, so that each write leaves at once (slow-client tests depend on it).
    pub fn open(addr: SocketAddr, timeout: Duration) -> io::Result<Connection> {
        let stream = TcpStream::connect_timeout(&addr, timeout)?;
        stream.set_nodelay(true)?;
        stream.set_write_timeout(Some(timeout))?;
        Ok(Connection { stream, buf: Vec::new(), pos: 0, deadline: Instant::now() + timeout })
    }

    pub fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stream.write_all(bytes)
    }

    /// Reads the next final response (1xx interim responses are skipped); `Ok(None)` when the connection ends
    /// before any byte of it. Say whether the request was a HEAD: its response has no body.
    pub fn response(&mut self, head_request: bool, timeout: Duration) -> io::Result<Option<Response>> {
        self.deadline = Instant::now() + timeout;
        loop {
            match self.read_response(head_request)? {
                Some(r) if (100..200).contains(&r.status) => continue,
                other => return Ok(other),
            }
        }
    }

    /// Whether the server closes the connection within `wait`; bytes that arrive meanwhile are kept.
    pub fn closes_within(&mut self, wait: Duration) -> bool {
        self.deadline = Instant::now() + wait;
        loop {
            match self.fill() {
                Ok(false) => return true,
                Ok(true) => continue, // Extra bytes (a second response to pipelined requests): keep waiting.
                Err(e) => return is_reset(&e),
            }
        }
    }

    /// Bytes received but not yet read as a response.
    pub fn buffered(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Closes both directions.
    pub fn shutdown(&self) {
        let _ = self.stream.shutdown(Shutdown::Both);
    }

    /// The socket itself, for tests that need a socket option.
    pub fn stream(&self) -> &TcpStream {
        &self.stream
    }

    /// Reads more bytes into the buffer; `Ok(false)` at the end of the stream.
    fn fill(&mut self) -> io::Result<bool> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(ErrorKind::TimedOut, "no complete response in time"));
        }
        self.stream.set_read_timeout(Some(left))?;
        let mut chunk = [0u8; 16 * 1024];
        match self.stream.read(&mut chunk) {
            Ok(0) => Ok(false),
            Ok(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                Ok(true)
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                Err(io::Error::new(ErrorKind::TimedOut, "no complete response in time"))
            }
            Err(e) => Err(e),
        }
    }

    /// One line without its line ending (CRLF or a bare LF); `None` if the stream ends first.
    fn line(&mut self) -> io::Result<Option<Vec<u8>>> {
        loop {
            if let Some(i) = self.buf[self.pos..].iter().position(|&b| b == b'\n') {
                let mut line = self.buf[self.pos..self.pos + i].to_vec();
                self.pos += i + 1;
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                return Ok(Some(line));
            }
            if self.buf.len() - self.pos > 64 * 1024 {
                return Err(invalid("a response header line longer than 64 KiB"));
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    fn exact(&mut self, n: usize) -> io::Result<Vec<u8>> {
        while self.buf.len() - self.pos < n {
            if !self.fill()? {
                return Err(invalid("the connection ended inside the body"));
            }
        }
        let out = self.buf[self.pos..self.pos + n].to_vec();
        self.pos += n;
        Ok(out)
    }

    /// Reads one response; `Ok(None)` when the connection ends before any byte of it.
    fn read_response(&mut self, head_request: bool) -> io::Result<Option<Response>> {
        let Some(status_line) = self.line()? else { return Ok(None) };
        let status = parse_status_line(&status_line)?;
        let mut headers = Vec::new();
        loop {
            let line = self.line()?.ok_or_else(|| invalid("the connection ended inside the response head"))?;
            if line.is_empty() {
                break;
            }
            let colon = line.iter().position(|&b| b == b':').ok_or_else(|| invalid("a header line without a colon"))?;
            let name = String::from_utf8_lossy(&line[..colon]).trim().to_ascii_lowercase();
            let value: String = line[colon + 1..].iter().map(|&b| char::from(b)).collect();
            headers.push((name, value.trim_matches([' ', '\t']).to_owned()));
        }
        let mut response = Response { status, headers, body: Vec::new() };
        // RFC 9112 section 6.3: no body for HEAD, 1xx, 204 and 304, whatever the headers say.
        if head_request || (100..200).contains(&status) || status == 204 || status == 304 {
            return Ok(Some(response));
        }
        if response.header("transfer-encoding").is_some_and(|te| te.to_ascii_lowercase().contains("chunked")) {
            response.body = self.chunked()?;
        } else if let Some(len) = response.header("content-length") {
            let len: usize = len.parse().map_err(|_| invalid("a Content-Length that is not a number"))?;
            response.body = self.exact(len)?;
        } else {
            while self.fill()? {}
            response.body = self.buf[self.pos..].to_vec();
            self.pos = self.buf.len();
        }
        Ok(Some(response))
    }

    fn chunked(&mut self) -> io::Result<Vec<u8>> {
        let mut body = Vec::new();
        loop {
            let line = self.line()?.ok_or_else(|| invalid("the connection ended inside a chunked body"))?;
            let size = String::from_utf8_lossy(&line);
            let size = size.split(';').next().unwrap_or("").trim();
            let size = usize::from_str_radix(size, 16).map_err(|_| invalid("a bad chunk size in the response"))?;
            if size == 0 {
                // Trailers, up to the empty line.
                while self.line()?.is_some_and(|l| !l.is_empty()) {}
                return Ok(body);
            }
            body.extend(self.exact(size)?);
            self.exact(2)?;
        }
    }
}

fn parse_status_line(line: &[u8]) -> io::Result<u16> {
    let text = std::str::from_utf8(line).map_err(|_| invalid("a status line that is not text"))?;
    let mut parts = text.splitn(3, ' ');
    let version = parts.next().unwrap_or("");
    let code = parts.next().unwrap_or("");
    if !(version == "HTTP/1.1" || version == "HTTP/1.0") || code.len() != 3 {
        return Err(invalid(&format!("not an HTTP/1 status line: {}", crate::show(line))));
    }
    code.parse().map_err(|_| invalid(&format!("not an HTTP/1 status line: {}", crate::show(line))))
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(ErrorKind::InvalidData, what.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;
    use std::thread;

    /// A one-shot server that reads the request head, answers `reply` and closes (or keeps the socket open).
    fn serve_once(reply: &'static [u8], close: bool) -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            s.write_all(reply).unwrap();
            if !close {
                thread::sleep(Duration::from_secs(4));
            }
        });
        addr
    }

    fn get(addr: SocketAddr, probe: bool) -> Outcome {
        send(addr, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", Duration::from_secs(3), probe).unwrap()
    }

    #[test]
    fn reads_a_content_length_body_and_sees_the_close() {
        let addr = serve_once(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-A:  b \r\n\r\nhi", true);
        let Outcome::Response { response, closed } = get(addr, true) else { panic!("no response") };
        assert_eq!((response.status, response.body.as_slice(), closed), (200, &b"hi"[..], Some(true)));
        assert_eq!(response.header("x-a"), Some("b"));
    }

    #[test]
    fn sees_a_connection_left_open() {
        let addr = serve_once(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false);
        let Outcome::Response { closed, .. } = get(addr, true) else { panic!("no response") };
        assert_eq!(closed, Some(false));
    }

    #[test]
    fn decodes_chunks_and_skips_interim_responses() {
        let addr = serve_once(
            b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n1\r\nc\r\n0\r\n\r\n",
            true,
        );
        let Outcome::Response { response, .. } = get(addr, false) else { panic!("no response") };
        assert_eq!(response.body, b"abc");
    }

    #[test]
    fn a_close_without_answer_is_an_outcome_and_garbage_is_an_error() {
        assert_eq!(get(serve_once(b"", true), false), Outcome::Closed);
        let err = send(serve_once(b"\0\0\x12\x04\0\0\0\0\0\n\n", true), b"PRI", Duration::from_secs(3), false);
        assert_eq!(err.unwrap_err().kind(), ErrorKind::InvalidData);
    }
}
