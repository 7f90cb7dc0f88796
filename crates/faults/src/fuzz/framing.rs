//! The fuzzer's own reading of a request stream, strict and small: where each complete request ends, and whether
//! the stream stops inside one.
//!
//! It decides only what the failures "a 2xx to bytes that are not a complete request" and "an answer to an incomplete
//! request before its time limit" need: it follows RFC 9112's framing (a Content-Length of digits, or exactly one
//! `chunked`), accepts a bare LF as servers may, and gives up ([`Tail::Unclear`]) on anything else, so that it never
//! calls a request incomplete that a lenient server could read as complete.

/// What the stream holds after its complete requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tail {
    /// Nothing: every byte belongs to a complete request (or comes after a request that ends the connection).
    Nothing,
    /// The stream stops inside a well-formed request: its head (`head_done: false`) or its body.
    Incomplete { head_done: bool },
    /// Bytes this reader does not judge.
    Unclear,
}

/// The complete requests of a stream (their methods, for HEAD's bodiless answers) and what follows them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requests {
    pub methods: Vec<Vec<u8>>,
    pub tail: Tail,
    /// Whether the bytes after the complete requests start like a HEAD request (its answer has no body either).
    pub tail_is_head: bool,
    /// Whether they start like a POST (the one route that needs its body before it can answer 2xx).
    pub tail_is_post: bool,
}

/// Reads `bytes` as a sequence of requests.
pub fn requests(bytes: &[u8]) -> Requests {
    let mut methods = Vec::new();
    let mut rest = bytes;
    loop {
        let (tail_is_head, tail_is_post) = (rest.starts_with(b"HEAD "), rest.starts_with(b"POST "));
        if rest.is_empty() {
            return Requests { methods, tail: Tail::Nothing, tail_is_head, tail_is_post };
        }
        match one(rest) {
            Step::Complete { method, used, last } => {
                methods.push(method);
                rest = &rest[used..];
                if last {
                    return Requests { methods, tail: Tail::Nothing, tail_is_head: false, tail_is_post: false };
                }
            }
            Step::Incomplete { head_done } => {
                return Requests { methods, tail: Tail::Incomplete { head_done }, tail_is_head, tail_is_post };
            }
            Step::Unclear => return Requests { methods, tail: Tail::Unclear, tail_is_head, tail_is_post },
        }
    }
}

enum Step {
    Complete { method: Vec<u8>, used: usize, last: bool },
    Incomplete { head_done: bool },
    Unclear,
}

fn is_token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// The next line (without its ending) and the length it used, or `None` when the stream ends first.
fn line(bytes: &[u8]) -> Option<(&[u8], usize)> {
    let i = bytes.iter().position(|&b| b == b'\n')?;
    let l = &bytes[..i];
    Some((l.strip_suffix(b"\r").unwrap_or(l), i + 1))
}

/// The method of a request line and whether it is HTTP/1.0, or `None` unless it is exactly `METHOD SP target SP
/// HTTP/1.x` with an upper-case method and an origin-form target.
fn request(request_line: &[u8]) -> Option<(&[u8], bool)> {
    let parts: Vec<&[u8]> = request_line.split(|&b| b == b' ').collect();
    let [method, target, version] = parts[..] else { return None };
    let http10 = match version {
        b"HTTP/1.1" => false,
        b"HTTP/1.0" => true,
        _ => return None,
    };
    if method.is_empty() || !method.iter().all(|&b| b.is_ascii_uppercase()) || !target.starts_with(b"/") {
        return None;
    }
    if !target.iter().all(|&b| b.is_ascii_graphic() && b != b'#') {
        return None;
    }
    Some((method, http10))
}

fn one(bytes: &[u8]) -> Step {
    // The request line: METHOD SP target SP HTTP/1.x, nothing else.
    let Some((request_line, mut at)) = line(bytes) else {
        let plausible = bytes.iter().all(|&b| b.is_ascii_graphic() || b == b' ' || b == b'\r');
        return if plausible && !bytes.contains(&b'\r') {
            Step::Incomplete { head_done: false }
        } else {
            Step::Unclear
        };
    };
    let Some((method, http10)) = request(request_line) else { return Step::Unclear };
    let (mut length, mut chunked, mut close, mut keep_alive, mut hosts) = (None, false, http10, false, 0);
    loop {
        let Some((field, used)) = line(&bytes[at..]) else { return Step::Incomplete { head_done: false } };
        at += used;
        if field.is_empty() {
            break;
        }
        let Some(colon) = field.iter().position(|&b| b == b':') else { return Step::Unclear };
        let (name, value) = (&field[..colon], field[colon + 1..].trim_ascii());
        if name.is_empty() || !name.iter().all(|&b| is_token(b)) {
            return Step::Unclear;
        }
        if !value.iter().all(|&b| b == b'\t' || (b' '..0x7f).contains(&b)) {
            return Step::Unclear;
        }
        let name = name.to_ascii_lowercase();
        match name.as_slice() {
            b"content-length" => {
                if length.is_some() || value.is_empty() || value.len() > 15 || !value.iter().all(u8::is_ascii_digit) {
                    return Step::Unclear;
                }
                length = std::str::from_utf8(value).ok().and_then(|v| v.parse::<usize>().ok());
            }
            b"transfer-encoding" => {
                if chunked || value != b"chunked" || http10 {
                    return Step::Unclear;
                }
                chunked = true;
            }
            b"connection" => {
                let value = value.to_ascii_lowercase();
                close |= value == b"close";
                keep_alive |= value == b"keep-alive";
            }
            b"host" => hosts += 1,
            b"expect" | b"upgrade" | b"trailer" => return Step::Unclear,
            _ => {}
        }
    }
    if (chunked && length.is_some()) || (!http10 && hosts != 1) {
        return Step::Unclear;
    }
    // HTTP/1.0 ends the connection unless it asks for keep-alive; HTTP/1.1 when it says `Connection: close`.
    let last = if http10 { !keep_alive } else { close };
    let method = method.to_vec();
    if chunked {
        return match chunks(&bytes[at..]) {
            Some(Ok(used)) => Step::Complete { method, used: at + used, last },
            Some(Err(())) => Step::Unclear,
            None => Step::Incomplete { head_done: true },
        };
    }
    let length = length.unwrap_or(0);
    if bytes.len() - at < length {
        return Step::Incomplete { head_done: true };
    }
    Step::Complete { method, used: at + length, last }
}

/// A chunked body, strictly: `Some(Ok(length used))`, `None` when it stops early, `Some(Err)` when malformed.
fn chunks(bytes: &[u8]) -> Option<Result<usize, ()>> {
    let mut at = 0;
    loop {
        let (size_line, used) = line(&bytes[at..])?;
        at += used;
        if size_line.is_empty() || size_line.len() > 8 || !size_line.iter().all(u8::is_ascii_hexdigit) {
            return Some(Err(()));
        }
        let size = usize::from_str_radix(std::str::from_utf8(size_line).ok()?, 16).ok()?;
        if size == 0 {
            // No trailers judged: the empty line must follow at once.
            let (trailer, used) = line(&bytes[at..])?;
            return Some(if trailer.is_empty() { Ok(at + used) } else { Err(()) });
        }
        if bytes.len() < at + size + 2 {
            return None;
        }
        if &bytes[at + size..at + size + 2] != b"\r\n" {
            return Some(Err(()));
        }
        at += size + 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complete_incomplete_and_unclear_streams() {
        let get = b"GET /users/1 HTTP/1.1\r\nHost: x\r\n\r\n".as_slice();
        let post = b"POST /users HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n{\"a\":".as_slice();
        assert_eq!(
            requests(&[get, get].concat()),
            Requests {
                methods: vec![b"GET".to_vec(); 2],
                tail: Tail::Nothing,
                tail_is_head: false,
                tail_is_post: false
            }
        );
        assert_eq!(requests(&post[..post.len() - 1]).tail, Tail::Incomplete { head_done: true });
        assert_eq!(requests(&get[..10]).tail, Tail::Incomplete { head_done: false });
        assert_eq!(requests(b"GET /users/1 HTTP/1.1\r\nHost: x\r\nContent-Length: +5\r\n\r\n").tail, Tail::Unclear);
        let chunked =
            b"POST /u HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n".as_slice();
        assert_eq!(requests(chunked).tail, Tail::Nothing);
        assert_eq!(requests(&chunked[..chunked.len() - 2]).tail, Tail::Incomplete { head_done: true });
        let close = b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGARBAGE".as_slice();
        assert_eq!(requests(close).tail, Tail::Nothing);
    }
}
