//! The seeds the mutants grow from: every request of `contract/cases.json`, and valid GET, HEAD and POST requests,
//! alone and pipelined two or three deep.
//!
//! A POST of the fuzzer's own carries [`MARKER_SLOT`] in its `name`. Before a mutant is mutated, the slot is
//! replaced by the mutant's own marker of the same width ([`marker`]), so the `Content-Length` stays right and every
//! user a server stores can be tied back to the mutant that created it (ids cannot be: servers and mutants run
//! concurrently).

use contract::Request;

/// The placeholder in a seed's POST body; as wide as every marker.
pub const MARKER_SLOT: &[u8] = b"fz0000000000";

/// The marker of mutant `n`: `fz` and ten digits, as wide as [`MARKER_SLOT`].
pub fn marker(n: u64) -> Vec<u8> {
    format!("fz{:010}", n % 10_000_000_000).into_bytes()
}

/// The mutant number in a marker found in `text`, if any.
pub fn find_marker(text: &[u8]) -> Option<u64> {
    text.windows(MARKER_SLOT.len())
        .find(|w| w.starts_with(b"fz") && w[2..].iter().all(u8::is_ascii_digit))
        .and_then(|w| std::str::from_utf8(&w[2..]).ok()?.parse().ok())
        .filter(|&n| n != 0)
}

/// Replaces every marker slot in `bytes` by `marker`.
pub fn place_marker(bytes: &[u8], marker: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(MARKER_SLOT) {
            out.extend_from_slice(marker);
            i += MARKER_SLOT.len();
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

/// One seed: its bytes and where it came from (a contract case's name, or a description).
#[derive(Debug, Clone)]
pub struct Seed {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// How many seeds come first that are valid requests (alone, and pipelined two and three deep).
pub const VALID_SEEDS: usize = 24;

/// Seeds larger than this are left out: a 1 MiB body to drain takes the servers' time, not the fuzzer's grammar.
const LARGEST: usize = 70 * 1024;

/// Every seed, in a fixed order (the generator picks among them by index).
pub fn seeds() -> Vec<Seed> {
    let mut out: Vec<Seed> = valid_requests().into_iter().map(|(name, bytes)| Seed { name, bytes }).collect();
    // Pipelined two and three deep: each valid request followed by one or two others, a fixed selection.
    let singles = valid_requests();
    for (i, (a_name, a)) in singles.iter().enumerate() {
        let (b_name, b) = &singles[(i + 3) % singles.len()];
        let (c_name, c) = &singles[(i + 5) % singles.len()];
        out.push(Seed { name: format!("{a_name} + {b_name}"), bytes: [a.as_slice(), b].concat() });
        out.push(Seed { name: format!("{a_name} + {b_name} + {c_name}"), bytes: [a.as_slice(), b, c].concat() });
    }
    for case in contract::cases() {
        let bytes = case.request_bytes();
        if bytes.len() <= LARGEST {
            out.push(Seed { name: format!("case {}", case.name), bytes });
        }
    }
    out
}

/// A user body holding the marker slot.
fn user_body(email: &str) -> Vec<u8> {
    [b"{\"name\":\"".as_slice(), MARKER_SLOT, format!("\",\"email\":\"{email}\"}}").as_bytes()].concat()
}

/// The valid single requests: each is answered 2xx by every server (a test checks it).
pub fn valid_requests() -> Vec<(String, Vec<u8>)> {
    let post = |body: Vec<u8>| Request::post_json("/users", &body).to_bytes();
    let chunked = |body: Vec<u8>| {
        let mut out = b"POST /users HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
        let (a, b) = body.split_at(body.len() / 2);
        for part in [a, b] {
            out.extend_from_slice(format!("{:x}\r\n", part.len()).as_bytes());
            out.extend_from_slice(part);
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"0\r\n\r\n");
        out
    };
    let head = |target: &str| Request { method: "HEAD".to_owned(), ..Request::get(target) }.to_bytes();
    vec![
        ("GET /users/500".to_owned(), Request::get("/users/500").to_bytes()),
        ("GET /health".to_owned(), Request::get("/health").to_bytes()),
        ("GET /".to_owned(), Request::get("/").to_bytes()),
        ("GET /users/10000?x=1".to_owned(), Request::get("/users/10000?x=1").to_bytes()),
        ("HEAD /users/7".to_owned(), head("/users/7")),
        ("POST /users".to_owned(), post(user_body("a@b"))),
        ("POST /users chunked".to_owned(), chunked(user_body("c@d"))),
        (
            "POST /users keep-alive HTTP/1.0".to_owned(),
            [
                b"POST /users HTTP/1.0\r\nConnection: keep-alive\r\nContent-Type: application/json\r\nContent-Length: 39\r\n\r\n"
                    .as_slice(),
                &user_body("e@fgh"),
            ]
            .concat(),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_valid_seeds_come_first() {
        assert_eq!(VALID_SEEDS, valid_requests().len() * 3);
        assert!(seeds()[VALID_SEEDS].name.starts_with("case "));
    }

    #[test]
    fn markers_are_as_wide_as_the_slot_and_found_again() {
        let m = marker(42);
        assert_eq!(m.len(), MARKER_SLOT.len());
        let placed = place_marker(&user_body("a@b"), &m);
        assert_eq!(find_marker(&placed), Some(42));
        assert_eq!(find_marker(&user_body("a@b")), None, "the empty slot is no marker");
        let http10 = &valid_requests()[7].1;
        let body = &http10[http10.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4..];
        assert_eq!(body.len(), 39, "the HTTP/1.0 seed's Content-Length");
    }
}
