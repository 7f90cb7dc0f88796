//! Mutations that target HTTP/1.1's grammar (RFC 9112), not random bytes alone.
//!
//! A stream is seen as lines (each with its own ending) so that a mutation can pick a request line, a header field,
//! a chunk-size line or a body. Each mutant applies one to three mutations to one seed, then picks where the stream
//! is split into several writes. Everything is drawn from the mutant's own [`Rng`], so `--seed` reproduces a run.

use super::rng::Rng;
use super::seeds::{Seed, marker, place_marker};

/// One mutant: its number (which is its marker), the bytes, and the offsets where a new write starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mutant {
    pub n: u64,
    pub seed: String,
    pub bytes: Vec<u8>,
    pub splits: Vec<usize>,
}

impl Mutant {
    /// The writes, in order: `bytes` cut at `splits`.
    pub fn writes(&self) -> Vec<&[u8]> {
        let mut out = Vec::new();
        let mut start = 0;
        for &at in self.splits.iter().filter(|&&at| at > 0 && at < self.bytes.len()) {
            if at > start {
                out.push(&self.bytes[start..at]);
                start = at;
            }
        }
        out.push(&self.bytes[start..]);
        out
    }
}

/// Mutant `n` of the run with `seed`, grown from one of `seeds`.
pub fn mutant(seeds: &[Seed], seed: u64, n: u64) -> Mutant {
    let mut rng = Rng::for_mutant(seed, n);
    // A third of the mutants grow from the valid requests (listed first), so that a real share is served; the rest
    // from every seed, the contract's refusals included.
    let origin =
        if rng.one_in(3) { &seeds[rng.below(seeds.len().min(super::seeds::VALID_SEEDS))] } else { rng.pick(seeds) };
    let mut bytes = place_marker(&origin.bytes, &marker(n));
    // One mutant in eight stays as it is: the seeds themselves must keep agreeing, and they give the 2xx share. Most
    // others get one mutation, so that what a mutation does is seen, not drowned by the next.
    if !rng.one_in(8) {
        let count = *rng.pick(&[1, 1, 1, 1, 1, 2, 2, 2, 3, 3]);
        for _ in 0..count {
            bytes = mutate(&mut rng, &bytes);
        }
    }
    let splits = match rng.below(4) {
        0 | 1 => Vec::new(),
        _ => {
            let mut at: Vec<usize> = (0..1 + rng.below(3)).map(|_| rng.below(bytes.len().max(1))).collect();
            at.sort_unstable();
            at.dedup();
            at
        }
    };
    Mutant { n, seed: origin.name.clone(), bytes, splits }
}

/// A seed sent as it is, as mutant `n` (its marker placed).
pub fn unmutated(origin: &Seed, n: u64) -> Mutant {
    Mutant { n, seed: origin.name.clone(), bytes: place_marker(&origin.bytes, &marker(n)), splits: Vec::new() }
}

/// The stream as lines, each with its ending (the last may have none).
fn lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes.split_inclusive(|&b| b == b'\n').map(<[u8]>::to_vec).collect()
}

/// The indexes of the lines that look like header fields (a colon, not the first line, not empty).
fn field_lines(lines: &[Vec<u8>]) -> Vec<usize> {
    (1..lines.len()).filter(|&i| lines[i].contains(&b':') && trimmed(&lines[i]).len() > 1).collect()
}

fn trimmed(line: &[u8]) -> &[u8] {
    let end = line.iter().rposition(|&b| b != b'\n' && b != b'\r').map_or(0, |i| i + 1);
    &line[..end]
}

fn ending(line: &[u8]) -> &[u8] {
    &line[trimmed(line).len()..]
}

/// The fields a mutation may insert: each one a reason some stack has decided differently.
const FIELDS: &[&[u8]] = &[
    b"Host: x\r\n",
    b"Host: 127.0.0.1:80\r\n",
    b"Host:\r\n",
    b"Content-Length: 0\r\n",
    b"Content-Length: 5\r\n",
    b"Content-Length: +5\r\n",
    b"Content-Length: 05\r\n",
    b"Content-Length: 5, 5\r\n",
    b"Transfer-Encoding: chunked\r\n",
    b"Transfer-Encoding: gzip, chunked\r\n",
    b"Transfer-Encoding: Chunked\r\n",
    b"Transfer-Encoding: identity\r\n",
    b"Transfer-Encoding:  chunked \r\n",
    b"Connection: close\r\n",
    b"Connection: keep-alive\r\n",
    b"Connection: Upgrade\r\nUpgrade: websocket\r\n",
    b"Expect: 100-continue\r\n",
    b"Expect: 100-Continue\r\n",
    b"Expect: nope\r\n",
    b"Content-Type: application/json\r\n",
    b"Content-Type: application/JSON; charset=utf-8\r\n",
    b"Content-Type: text/plain\r\n",
    b"Trailer: Host\r\n",
    b"X-A: b\r\n",
    b": empty-name\r\n",
    b"X A: space-in-name\r\n",
    b"X-A : space-before-colon\r\n",
    b"X-A\r\n",
    b" folded\r\n",
];

const CONTENT_LENGTHS: &[&[u8]] = &[
    b"+5",
    b"-1",
    b"0",
    b"00",
    b"007",
    b"5, 5",
    b"5,6",
    b"5 5",
    b"99999999999999999999",
    b"18446744073709551616",
    b"0x10",
    b"",
    b" 5",
    b"5 ",
    b"1e2",
    b"\t5",
];

const TRANSFER_ENCODINGS: &[&[u8]] = &[
    b"chunked",
    b"CHUNKED",
    b"chunked, chunked",
    b"gzip, chunked",
    b"chunked, gzip",
    b"identity",
    b"",
    b" chunked",
    b"chunked ",
    b"xchunked",
    b"chunkedx",
    b"chunked;q=1",
    b"\"chunked\"",
    b"identity, chunked",
    b"chunked\t",
];

const CHUNK_SIZES: &[&[u8]] = &[
    b"0",
    b"00",
    b"000000000000000001a",
    b"1A",
    b"1a;x=y",
    b"1a;x",
    b"1a ;x=y",
    b"1a\t",
    b"1a ",
    b" 1a",
    b"+1a",
    b"-1",
    b"0x1a",
    b"ffffffffffffffffff",
    b"1a;x=\"y\"",
    b"1a;\rx",
    b"1a;x=y\rz",
    b"g",
    b"",
];

const METHODS: &[&[u8]] = &[
    b"GET", b"HEAD", b"POST", b"get", b"Get", b"PUT", b"DELETE", b"OPTIONS", b"TRACE", b"CONNECT", b"PRI", b"FOO",
    b"G T",
];

const TARGETS: &[&[u8]] = &[
    b"*",
    b"/",
    b"/health",
    b"/users",
    b"/users/",
    b"/users/1",
    b"/users/01",
    b"/users/%35",
    b"/users/%zz",
    b"/users/1#x",
    b"/users/1?a=b",
    b"http://x/users/1",
    b"127.0.0.1:80",
    b"//users/1",
    b"/users/1/..",
    b"users/1",
    b"/users/\xc3\xa9",
    b"/users/1\x00",
    b"/users/-1",
    b"/users/99999999999999999999999",
];

const VERSIONS: &[&[u8]] = &[
    b"HTTP/1.1",
    b"HTTP/1.0",
    b"HTTP/1.2",
    b"HTTP/2.0",
    b"HTTP/0.9",
    b"http/1.1",
    b"HTTP/1.1 ",
    b"HTTP/1.10",
    b"HTTP/1",
    b"HTTP/1.1x",
    b"",
];

/// What a line ending may be swapped for.
const LINE_ENDINGS: &[&[u8]] = &[b"\n", b"\r", b"", b"\r\r\n", b"\n\r"];

/// How a field's value may be folded onto the next line (obs-fold).
const FOLDS: &[&[u8]] = &[b"\r\n ", b"\r\n\t", b"\n "];

/// What may separate the parts of a request line instead of one space.
const SEPARATORS: &[&[u8]] = &[b"  ", b"\t", b"", b" \x0b"];

/// Bytes outside ASCII and control bytes.
const ODD_BYTES: &[&[u8]] = &[
    b"\x00",
    b"\x01",
    b"\x7f",
    b"\x80",
    b"\xff",
    b"\xc3\xa9",
    b"\r",
    b"\n",
    b"\t",
    b"\x0b",
    b"\x0c",
    b" ",
    b"\"",
    b";",
];

/// One grammar-aware mutation of `bytes`.
fn mutate(rng: &mut Rng, bytes: &[u8]) -> Vec<u8> {
    let mut ls = lines(bytes);
    if ls.is_empty() {
        return FIELDS[rng.below(FIELDS.len())].to_vec();
    }
    let fields = field_lines(&ls);
    let any_line = rng.below(ls.len());
    let field = if fields.is_empty() { any_line } else { *rng.pick(&fields) };
    match rng.below(17) {
        // Insert a field from the list, before a header line (or after the request line).
        0 => ls.insert(field.max(1), rng.pick(FIELDS).to_vec()),
        // Delete a field.
        1 if !fields.is_empty() => {
            ls.remove(field);
        }
        // Duplicate a field, next to itself or elsewhere in the head.
        2 => {
            let copy = ls[field].clone();
            let at = if rng.one_in(2) || fields.is_empty() { field } else { *rng.pick(&fields) };
            ls.insert(at.max(1).min(ls.len()), copy);
        }
        // Reorder two fields.
        3 if fields.len() > 1 => {
            let other = *rng.pick(&fields);
            ls.swap(field, other);
        }
        // Change the case of one line.
        4 => {
            let upper = rng.one_in(2);
            let line = &mut ls[any_line];
            for b in line.iter_mut() {
                *b = if upper { b.to_ascii_uppercase() } else { b.to_ascii_lowercase() };
            }
        }
        // Whitespace around a name, value, colon or separator: add or remove.
        5 => ls[any_line] = whitespace(rng, &ls[any_line]),
        // A line ending swapped for LF, CR, nothing, or CR CR LF.
        6 => {
            let line = &ls[any_line];
            let body = trimmed(line).to_vec();
            let end = *rng.pick(LINE_ENDINGS);
            ls[any_line] = [body.as_slice(), end].concat();
        }
        // obs-fold: the value continued on a line that starts with a space or tab.
        7 => {
            let line = ls[field].clone();
            let body = trimmed(&line);
            let cut = body.iter().position(|&b| b == b':').map_or(body.len(), |c| c + 1 + rng.below(body.len() - c));
            let fold = *rng.pick(FOLDS);
            ls[field] = [&body[..cut], fold, &body[cut..], ending(&line)].concat();
        }
        // Content-Length: a new value for an existing one, or one more.
        8 => set_value(rng, &mut ls, b"content-length", CONTENT_LENGTHS),
        // Transfer-Encoding: a new value, or one more (in the head or, after a chunked body, in the trailers).
        9 => set_value(rng, &mut ls, b"transfer-encoding", TRANSFER_ENCODINGS),
        // A chunk size (a line of hex digits after the head) replaced.
        10 => chunk_size(rng, &mut ls, any_line),
        // The request line: method, target or version replaced.
        11 => ls[0] = request_line(rng, &ls[0]),
        // Truncate at a line boundary or anywhere.
        12 => {
            let all = ls.concat();
            let at = if rng.one_in(2) { ls[..any_line].iter().map(Vec::len).sum() } else { rng.below(all.len()) };
            return all[..at].to_vec();
        }
        // Grow a field towards and past the head limits (16 KiB, 100 fields).
        13 => grow(rng, &mut ls, field),
        // A byte outside ASCII, or a control byte, anywhere in a line.
        14 | 15 => {
            let line = &ls[any_line];
            let at = rng.below(line.len() + 1);
            ls[any_line] = [&line[..at], *rng.pick(ODD_BYTES), &line[at..]].concat();
        }
        // One byte deleted or flipped: the random part of the grammar's neighbourhood.
        _ => return delete_or_flip(rng, ls.concat()),
    }
    ls.concat()
}

/// A chunk size (a line of hex digits after the head) replaced; with none, the line `any_line`.
fn chunk_size(rng: &mut Rng, ls: &mut [Vec<u8>], any_line: usize) {
    let sizes: Vec<usize> = (1..ls.len())
        .filter(|&i| {
            let t = trimmed(&ls[i]);
            !t.is_empty() && t.len() <= 4 && t.iter().all(u8::is_ascii_hexdigit)
        })
        .collect();
    let i = if sizes.is_empty() { any_line } else { *rng.pick(&sizes) };
    let end = ending(&ls[i]).to_vec();
    ls[i] = [rng.pick(CHUNK_SIZES), end.as_slice()].concat();
}

/// One field grown towards and past the head's size limit (16 KiB) before `field`, or the head grown towards and
/// past its field count limit (100) after the request line.
fn grow(rng: &mut Rng, ls: &mut Vec<Vec<u8>>, field: usize) {
    if rng.one_in(2) {
        let len = *rng.pick(&[4_000usize, 8_000, 15_500, 16_200, 16_384, 16_700, 17_000, 33_000]);
        ls.insert(field.max(1), [b"X-Big: ".as_slice(), &vec![b'a'; len], b"\r\n"].concat());
    } else {
        let count = *rng.pick(&[50usize, 97, 98, 99, 100, 101, 150]);
        for i in 0..count {
            ls.insert(1, format!("X-F{i}: v\r\n").into_bytes());
        }
    }
}

/// One byte of `all` deleted or one of its bits flipped.
fn delete_or_flip(rng: &mut Rng, mut all: Vec<u8>) -> Vec<u8> {
    if !all.is_empty() {
        let at = rng.below(all.len());
        if rng.one_in(2) {
            all.remove(at);
        } else {
            all[at] ^= 1 << rng.below(8);
        }
    }
    all
}

/// A space or tab added around a name, colon, value or separator of `line`, or one removed.
fn whitespace(rng: &mut Rng, line: &[u8]) -> Vec<u8> {
    let body = trimmed(line);
    let spots: Vec<usize> = (0..=body.len())
        .filter(|&i| {
            i == 0 || i == body.len() || matches!(body.get(i), Some(b':' | b' ')) || body.get(i - 1) == Some(&b':')
        })
        .collect();
    let at = *rng.pick(&spots);
    let mut out = body.to_vec();
    if rng.one_in(3) && out.get(at) == Some(&b' ') {
        out.remove(at);
    } else {
        out.insert(at, *rng.pick(b" \t "));
    }
    out.extend_from_slice(ending(line));
    out
}

/// Replaces the value of the first field named `name` (or adds the field) with one of `values`.
fn set_value(rng: &mut Rng, ls: &mut Vec<Vec<u8>>, name: &[u8], values: &[&[u8]]) {
    let value = rng.pick(values);
    let has = |l: &Vec<u8>| l.len() > name.len() && l[..name.len()].eq_ignore_ascii_case(name) && l[name.len()] == b':';
    let found = ls.iter().position(has);
    let new = [name, b": ".as_slice(), value, b"\r\n"].concat();
    match found {
        Some(i) if !rng.one_in(3) => ls[i] = new,
        // Into the trailers: after the last line, when the stream ends with a chunked body's empty line.
        _ if rng.one_in(4) && ls.len() > 2 && trimmed(&ls[ls.len() - 2]) == b"0" => {
            let at = ls.len() - 1;
            ls.insert(at, new);
        }
        _ => ls.insert(1.min(ls.len()), new),
    }
}

/// The request line with its method, target or version replaced, or its separators changed.
fn request_line(rng: &mut Rng, line: &[u8]) -> Vec<u8> {
    let body = trimmed(line);
    let mut parts: Vec<Vec<u8>> = body.split(|&b| b == b' ').map(<[u8]>::to_vec).collect();
    match rng.below(4) {
        0 => parts[0] = rng.pick(METHODS).to_vec(),
        1 if parts.len() > 1 => parts[1] = rng.pick(TARGETS).to_vec(),
        2 => {
            let last = parts.len() - 1;
            parts[last] = rng.pick(VERSIONS).to_vec();
        }
        _ => {
            let sep = *rng.pick(SEPARATORS);
            return [parts.join(sep).as_slice(), ending(line)].concat();
        }
    }
    [parts.join(&b' ').as_slice(), ending(line)].concat()
}

#[cfg(test)]
mod tests {
    use super::super::seeds::seeds;
    use super::*;

    #[test]
    fn a_seed_and_a_number_give_the_same_mutant_and_splits_cover_the_bytes() {
        let seeds = seeds();
        for n in 1..500 {
            let m = mutant(&seeds, 7, n);
            assert_eq!(m, mutant(&seeds, 7, n));
            assert_eq!(m.writes().concat(), m.bytes, "mutant {n}");
        }
        let differ = (1..100).filter(|&n| mutant(&seeds, 7, n).bytes != mutant(&seeds, 8, n).bytes).count();
        assert!(differ > 80, "{differ}");
    }
}
