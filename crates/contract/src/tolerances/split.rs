//! The lenient request splitter the predicates share: a stream of bytes cut into requests (head and body) the way a
//! forgiving parser would, so that a predicate asks about one request at a time and the body of one request and the
//! request line of the next are never read as one line. Lenient on purpose: the predicates look for features that
//! the stacks disagree on, in bytes that some stacks refuse.

/// One request of a stream, as far as a lenient reading can tell: its head (up to its empty line, or to the end of
/// the stream when it has none) and its body.
pub(super) struct Message<'a> {
    pub(super) head: &'a [u8],
    /// Whether the head ended (with an empty line).
    pub(super) head_done: bool,
    /// The body: by the last `Content-Length` of digits, to the chunked body's `0` line, or none.
    pub(super) body: &'a [u8],
    /// Whether the body is all there (as long as declared, or chunked up to its last chunk and empty line).
    pub(super) body_done: bool,
}
impl<'a> Message<'a> {
    /// The lines of the head, line endings removed, from the request line on: the empty lines a server ignores
    /// before it (RFC 9112 section 2.2) are skipped.
    pub(super) fn lines(&self) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.head.split(|&b| b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l)).skip_while(|l| l.is_empty())
    }

    /// The request line, without its line ending.
    pub(super) fn request_line(&self) -> &'a [u8] {
        self.lines().next().unwrap_or(b"")
    }

    /// The header fields of the head as (name, value), trimmed, line endings removed.
    pub(super) fn fields(&self) -> impl Iterator<Item = (&'a [u8], &'a [u8])> + 'a {
        self.lines().skip(1).filter_map(|line| {
            let colon = line.iter().position(|&b| b == b':')?;
            Some((line[..colon].trim_ascii(), line[colon + 1..].trim_ascii()))
        })
    }

    pub(super) fn named(&self, name: &'a [u8]) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.fields().filter(move |(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v)
    }

    /// The values of the fields called `name` as sent: not trimmed, so that a control byte next to the value (which
    /// `trim_ascii` would take for whitespace) shows.
    pub(super) fn raw_named(&self, name: &'a [u8]) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.lines().skip(1).filter_map(move |line| {
            let colon = line.iter().position(|&b| b == b':')?;
            line[..colon].trim_ascii().eq_ignore_ascii_case(name).then(|| &line[colon + 1..])
        })
    }

    pub(super) fn target(&self) -> &'a [u8] {
        self.request_line().split(|&b| b == b' ').nth(1).unwrap_or(b"")
    }

    /// The target as a stack that takes a run of spaces for one reads it (`OPTIONS  *`: llhttp and Tomcat do).
    pub(super) fn loose_target(&self) -> &'a [u8] {
        self.request_line().split(|&b| b == b' ').filter(|part| !part.is_empty()).nth(1).unwrap_or(b"")
    }
}

/// The requests of a stream, read leniently: a predicate asks about each one, so that the body of one request and
/// the request line of the next are never read as one line.
pub(super) fn messages(bytes: &[u8]) -> Vec<Message<'_>> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let crlf = rest.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4);
        let lf = rest.windows(2).position(|w| w == b"\n\n").map(|i| i + 2);
        let Some(end) = [crlf, lf].into_iter().flatten().min() else {
            out.push(Message { head: rest, head_done: false, body: b"", body_done: false });
            break;
        };
        let mut message = Message { head: &rest[..end], head_done: true, body: b"", body_done: true };
        let after = &rest[end..];
        let chunked =
            message.named(b"transfer-encoding").any(|v| v.to_ascii_lowercase().windows(7).any(|w| w == b"chunked"));
        let body_len = if chunked {
            let last = after.windows(5).position(|w| w == b"0\r\n\r\n").map(|i| i + 5);
            message.body_done = last.is_some();
            last.unwrap_or(after.len())
        } else {
            let length = message
                .named(b"content-length")
                .last()
                .and_then(|v| std::str::from_utf8(v).ok()?.parse::<usize>().ok());
            message.body_done = length.unwrap_or(0) <= after.len();
            length.unwrap_or(0).min(after.len())
        };
        message.body = &after[..body_len];
        out.push(message);
        rest = &after[body_len..];
    }
    out
}

/// Whether any request of the stream has the feature.
pub(super) fn any(bytes: &[u8], feature: impl Fn(&Message) -> bool) -> bool {
    messages(bytes).iter().any(feature)
}

/// The lines of a chunked message's body (chunk sizes, data, trailers): where chunk-line predicates look.
pub(super) fn chunk_lines<'a>(m: &Message<'a>) -> Vec<&'a [u8]> {
    if m.named(b"transfer-encoding").next().is_none() {
        return Vec::new();
    }
    m.body.split(|&b| b == b'\n').collect()
}
