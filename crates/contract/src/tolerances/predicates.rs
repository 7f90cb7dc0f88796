//! The predicates of the tolerance table, one per row of `contract/tolerances.json`, keyed by the row's name
//! ([`PREDICATES`]): whether a request's bytes show the feature the row is about. They are code because they read
//! bytes; the rows' reasons (why the difference is allowed) are in the data file, and the doc comments here say how
//! a predicate reads, not why the contract allows what it finds.

use super::split::{any, chunk_lines, messages};

/// Whether a request's bytes (a stream of one or more requests) show a feature.
pub(super) type Predicate = fn(&[u8]) -> bool;

/// Each row's predicate, by the row's name. A test checks that these names and the data file's are the same set.
pub(super) const PREDICATES: &[(&str, Predicate)] = &[
    ("nonstandard-method", has_nonstandard_method),
    ("bare-lf", has_bare_lf),
    ("http10-chunked", has_http10_transfer_encoding),
    ("other-version", has_other_version),
    ("odd-target-bytes", has_odd_target_bytes),
    ("fragment", has_fragment),
    ("request-line-whitespace", has_request_line_whitespace),
    ("content-length-and-transfer-encoding", has_length_and_encoding),
    ("malformed-percent-escape", has_malformed_percent_escape),
    ("unsupported-transfer-coding", has_unsupported_transfer_coding),
    ("identical-content-lengths", has_identical_content_lengths),
    ("chunk-size-whitespace", has_chunk_size_whitespace),
    ("unfinished-request", ends_inside_a_request),
    ("upgrade-with-body", has_upgrade_with_body),
    ("closed-after-refused-post", has_refused_post),
    ("empty-expectation", has_empty_expectation),
    ("absolute-form-host-mismatch", has_absolute_form_host_mismatch),
    ("unmet-expectation", has_unmet_expectation),
    ("odd-connection-options", has_odd_connection_options),
    ("malformed-chunk-extension", has_malformed_chunk_extension),
    ("long-trailer-field", has_long_trailer_field),
    ("empty-line-before-request", has_empty_line_before_request),
    ("long-chunk-size", has_long_chunk_size),
    ("content-length-beyond-int63", has_content_length_beyond_int63),
    ("chunk-data-off-its-size", has_chunk_data_off_its_size),
    ("options-asterisk", has_options_asterisk),
    ("asterisk-form-other-method", has_asterisk_other_method),
    ("framing-field-whitespace", has_framing_field_whitespace),
    ("empty-chunk-size", has_empty_chunk_size),
    ("large-malformed-body", has_large_body),
    ("obs-fold", has_obs_fold),
    ("malformed-host", has_malformed_host),
    ("host-outside-dns-syntax", has_host_outside_dns_syntax),
    ("path-tomcat-refuses", has_path_tomcat_refuses),
    ("large-head", has_large_head),
    ("bare-cr", has_bare_cr),
    ("trailer-declares-forbidden", has_forbidden_trailer_declaration),
    ("target-outside-uri-grammar", has_target_outside_uri_grammar),
];

/// The predicate of the row called `name`.
pub(super) fn predicate(name: &str) -> Option<Predicate> {
    PREDICATES.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

/// A POST that the routes refuse with 400 once its body is read in full (an empty body, a body that is not a
/// JSON object with a valid name and email, judged roughly: serde_json is not `JSON.parse`). Rough is safe here: the
/// row only applies right after a 400 that every server gave, to what each did with the connection next.
fn has_refused_post(bytes: &[u8]) -> bool {
    any(bytes, |m| {
        // Any POST, whatever its target's form or query (`POST /users?1`): the 400 before the difference says the
        // routes refused it.
        let post = m.request_line().starts_with(b"POST ");
        let chunked = m.named(b"transfer-encoding").next().is_some();
        let body = if chunked { dechunked(m.body) } else { Some(m.body.to_vec()) };
        post && m.head_done && m.body_done && !body.is_some_and(|b| is_valid_user(&b))
    })
}

/// The data of a chunked body, or `None` if its sizes do not read.
fn dechunked(mut body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = body.windows(2).position(|w| w == b"\r\n")?;
        let size = usize::from_str_radix(std::str::from_utf8(&body[..line_end]).ok()?, 16).ok()?;
        if size == 0 {
            return Some(out);
        }
        let data = body.get(line_end + 2..line_end + 2 + size)?;
        out.extend_from_slice(data);
        body = body.get(line_end + 4 + size..)?;
    }
}

/// Whether a body is a user the routes would store: an object with a name of 1 to 200 characters and an email of at
/// most 254 holding an `@` (the POST rules of CONTRACT.md).
fn is_valid_user(body: &[u8]) -> bool {
    let Ok(serde_json::Value::Object(user)) = serde_json::from_slice::<serde_json::Value>(body) else { return false };
    let text = |key: &str| user.get(key).and_then(|v| v.as_str()).map(|s| (s.chars().count(), s.contains('@')));
    let name_ok = text("name").is_some_and(|(n, _)| (1..=200).contains(&n));
    let email_ok = text("email").is_some_and(|(n, at)| n <= 254 && at);
    name_ok && email_ok
}

/// A Host value Tomcat refuses: not empty, and not a DNS-style name, an IPv4 address or a bracketed IPv6 address
/// with an optional port of digits (as probed on Tomcat 11.0.22: `.`, `a..b`, `-a`, `a_b`, `a~b`, `:80`, `::1`,
/// `a:0x1` and `[v1.x]` refused; `a.`, `a:`, `a:99999`, `[::1]:80` and `1.2.3` accepted).
fn has_host_outside_dns_syntax(bytes: &[u8]) -> bool {
    any(bytes, |m| m.named(b"host").any(|v| !is_dns_style_host(v)))
}

fn is_dns_style_host(v: &[u8]) -> bool {
    if v.is_empty() {
        return true;
    }
    let (name, port) = if v.first() == Some(&b'[') {
        let Some(end) = v.iter().position(|&b| b == b']') else { return false };
        let inside = &v[1..end];
        if inside.is_empty() || !inside.iter().all(|b| b.is_ascii_hexdigit() || *b == b':' || *b == b'.') {
            return false;
        }
        (None, &v[end + 1..])
    } else {
        let colon = v.iter().position(|&b| b == b':').unwrap_or(v.len());
        (Some(&v[..colon]), &v[colon..])
    };
    let port_ok = port.is_empty() || (port[0] == b':' && port[1..].iter().all(u8::is_ascii_digit));
    let Some(name) = name else { return port_ok };
    let name = name.strip_suffix(b".").unwrap_or(name);
    let label_ok = |l: &[u8]| {
        !l.is_empty()
            && l.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-')
            && l.first() != Some(&b'-')
            && l.last() != Some(&b'-')
    };
    port_ok && name.split(|&b| b == b'.').all(label_ok)
}

/// A path Tomcat refuses before any filter runs: one holding an escaped NUL (`%00`), or one whose dot-segments (`..`,
/// also escaped as `%2e`) climb above the root (`/..`, `/a/../..`); the query is not decoded and does not count.
fn has_path_tomcat_refuses(bytes: &[u8]) -> bool {
    any(bytes, |m| {
        let target = m.target();
        let path = target[..target.iter().position(|&b| b == b'?').unwrap_or(target.len())].to_ascii_lowercase();
        let nul = path.windows(3).any(|w| w == b"%00");
        let dotted = String::from_utf8_lossy(&path).replace("%2e", ".");
        let mut depth = 0i32;
        let mut climbs = false;
        for segment in dotted.split('/').skip(1) {
            match segment {
                ".." => {
                    depth -= 1;
                    climbs |= depth < 0;
                }
                "." | "" => {}
                _ => depth += 1,
            }
        }
        nul || climbs
    })
}

/// An Expect field with an empty value (spaces and tabs aside), which the contract ignores.
fn has_empty_expectation(bytes: &[u8]) -> bool {
    any(bytes, |m| m.named(b"expect").any(|v| v.iter().all(|b| *b == b' ' || *b == b'\t')))
}

/// An absolute-form target whose authority is not the request's Host value.
fn has_absolute_form_host_mismatch(bytes: &[u8]) -> bool {
    any(bytes, |m| {
        let target = m.request_line().split(|&b| b == b' ').nth(1).unwrap_or_default();
        let Some(at) = target.windows(3).position(|w| w == b"://") else { return false };
        if target.first() == Some(&b'/') {
            return false;
        }
        let rest = &target[at + 3..];
        let authority = &rest[..rest.iter().position(|b| *b == b'/' || *b == b'?').unwrap_or(rest.len())];
        m.named(b"host").any(|host| !host.eq_ignore_ascii_case(authority))
    })
}

const METHODS: &[&[u8]] = &[b"GET", b"HEAD", b"POST", b"PUT", b"DELETE", b"OPTIONS", b"TRACE", b"PATCH"];

fn has_nonstandard_method(bytes: &[u8]) -> bool {
    any(bytes, |m| !METHODS.contains(&m.request_line().split(|&b| b == b' ').next().unwrap_or(b"")))
}

fn has_bare_lf(bytes: &[u8]) -> bool {
    // In a head, or in the lines of a chunked body (sizes, trailers).
    let bare = |part: &[u8]| part.iter().enumerate().any(|(i, &b)| b == b'\n' && (i == 0 || part[i - 1] != b'\r'));
    any(bytes, |m| bare(m.head) || (m.named(b"transfer-encoding").next().is_some() && bare(m.body)))
}

fn has_http10_transfer_encoding(bytes: &[u8]) -> bool {
    any(bytes, |m| m.request_line().ends_with(b"HTTP/1.0") && m.named(b"transfer-encoding").next().is_some())
}

fn has_other_version(bytes: &[u8]) -> bool {
    any(bytes, |m| {
        let version = m.request_line().rsplit(|&b| b == b' ').next().unwrap_or(b"");
        version != b"HTTP/1.1" && version != b"HTTP/1.0"
    })
}

fn has_odd_target_bytes(bytes: &[u8]) -> bool {
    any(bytes, |m| {
        let line = m.request_line();
        let start = line.iter().position(|&b| b == b' ').map_or(line.len(), |i| i + 1);
        let end = line.len().saturating_sub(9).max(start);
        line[start..end].iter().any(|&b| b >= 0x7f || (b < 0x20 && b != b'\t'))
    })
}

fn has_fragment(bytes: &[u8]) -> bool {
    any(bytes, |m| m.target().contains(&b'#'))
}

fn has_request_line_whitespace(bytes: &[u8]) -> bool {
    any(bytes, |m| {
        let line = m.request_line();
        line.windows(2).any(|w| w == b"  ") || line.contains(&b'\t') || line.starts_with(b" ") || line.ends_with(b" ")
    })
}

fn has_length_and_encoding(bytes: &[u8]) -> bool {
    any(bytes, |m| m.named(b"content-length").next().is_some() && m.named(b"transfer-encoding").next().is_some())
}

fn has_malformed_percent_escape(bytes: &[u8]) -> bool {
    any(bytes, |m| {
        let path = m.target().split(|&b| b == b'?').next().unwrap_or(b"");
        path.iter()
            .enumerate()
            .any(|(i, &b)| b == b'%' && !path.get(i + 1..i + 3).is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)))
    })
}

fn has_unsupported_transfer_coding(bytes: &[u8]) -> bool {
    any(bytes, |m| {
        let values: Vec<&[u8]> = m.named(b"transfer-encoding").collect();
        let plain_chunked = values.len() == 1 && values[0].eq_ignore_ascii_case(b"chunked");
        // A control byte beside the value (`\x0cchunked`): hyper and llhttp refuse it, Go keeps it in the coding.
        let control = m.raw_named(b"transfer-encoding").any(|v| v.iter().any(|&b| b < 0x20 && b != b'\t'));
        !values.is_empty() && (!plain_chunked || control)
    })
}

fn has_identical_content_lengths(bytes: &[u8]) -> bool {
    any(bytes, |m| {
        // The same number, however written (`5`, `05`): hyper keeps one of two equal lengths, Go merges them.
        let number = |v: &[u8]| std::str::from_utf8(v).ok().and_then(|v| v.parse::<u64>().ok());
        let values: Vec<Option<u64>> =
            m.named(b"content-length").flat_map(|v| v.split(|&b| b == b',')).map(|v| number(v.trim_ascii())).collect();
        values.len() > 1 && values[0].is_some() && values.windows(2).all(|w| w[0] == w[1])
    })
}

fn has_chunk_size_whitespace(bytes: &[u8]) -> bool {
    any(bytes, |m| {
        m.named(b"transfer-encoding").next().is_some()
            && m.body.split(|&b| b == b'\n').any(|line| {
                let digits = line.iter().take_while(|b| b.is_ascii_hexdigit()).count();
                digits > 0 && matches!(line.get(digits), Some(b' ' | b'\t'))
            })
    })
}

fn ends_inside_a_request(bytes: &[u8]) -> bool {
    // The last request stops before its head or its body ends: bytes the servers may refuse at once or wait on.
    messages(bytes).last().is_some_and(|m| !m.head_done || !m.body_done)
}

fn has_upgrade_with_body(bytes: &[u8]) -> bool {
    // A request that asks for an upgrade and declares a body: chunked, or a Content-Length other than 0.
    any(bytes, |m| {
        let declared = m.named(b"transfer-encoding").next().is_some()
            || m.named(b"content-length").any(|v| v.trim_ascii() != b"0");
        m.named(b"upgrade").next().is_some() && declared
    })
}

fn has_chunk_data_off_its_size(bytes: &[u8]) -> bool {
    // Read the chunked body by its sizes (the lenient reader above stops at the first `0` line instead): data that
    // is not followed by CRLF where its size ends, or that runs past the stream. Size lines without a size are other
    // predicates' business (empty-chunk-size).
    let off = |body: &[u8]| {
        let mut rest = body;
        loop {
            let Some(eol) = rest.iter().position(|&b| b == b'\n') else { return false };
            let digits: Vec<u8> = rest[..eol].iter().copied().take_while(u8::is_ascii_hexdigit).collect();
            let Some(size) = std::str::from_utf8(&digits).ok().and_then(|d| usize::from_str_radix(d, 16).ok()) else {
                return false;
            };
            if size == 0 {
                return false;
            }
            let data_end = eol + 1 + size;
            match rest.get(data_end..data_end + 2) {
                Some(b"\r\n") => rest = &rest[data_end + 2..],
                _ => return true,
            }
        }
    };
    messages(bytes).iter().any(|m| {
        let chunked = m.named(b"transfer-encoding").any(|v| v.eq_ignore_ascii_case(b"chunked"));
        let head_len = m.head.len();
        // The message's bytes from its body on, to the end of the stream: the sizes decide where the body ends.
        let start = m.head.as_ptr() as usize - bytes.as_ptr() as usize + head_len;
        chunked && off(&bytes[start..])
    })
}

fn has_unmet_expectation(bytes: &[u8]) -> bool {
    any(bytes, |m| m.named(b"expect").any(|v| !v.is_empty() && !v.eq_ignore_ascii_case(b"100-continue")))
}

fn has_odd_connection_options(bytes: &[u8]) -> bool {
    let token = |b: &u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(b);
    any(bytes, |m| {
        let values: Vec<&[u8]> = m.named(b"connection").collect();
        let options = || values.iter().flat_map(|v| v.split(|&b| b == b',')).map(<[u8]>::trim_ascii);
        let outside_grammar = options().any(|o| !o.iter().all(token));
        let has = |name: &[u8]| options().any(|o| o.eq_ignore_ascii_case(name));
        let tab = m.head.split(|&b| b == b'\n').any(|l| {
            let colon = l.iter().position(|&b| b == b':').unwrap_or(0);
            l[..colon].trim_ascii().eq_ignore_ascii_case(b"connection") && l[colon..].contains(&b'\t')
        });
        let http10 = m.request_line().ends_with(b"HTTP/1.0");
        outside_grammar || (http10 && (values.len() > 1 || tab || (has(b"keep-alive") && has(b"close"))))
    })
}

fn has_options_asterisk(bytes: &[u8]) -> bool {
    any(bytes, |m| m.request_line().starts_with(b"OPTIONS ") && m.loose_target() == b"*")
}

fn has_asterisk_other_method(bytes: &[u8]) -> bool {
    any(bytes, |m| !m.request_line().starts_with(b"OPTIONS ") && m.loose_target() == b"*")
}

fn has_malformed_chunk_extension(bytes: &[u8]) -> bool {
    // A chunk size, then `;` with no token behind it (blanks allowed between).
    let token = |b: &u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(b);
    any(bytes, |m| {
        chunk_lines(m).iter().any(|line| {
            let digits = line.iter().take_while(|b| b.is_ascii_hexdigit()).count();
            let rest = line[digits..].trim_ascii_start();
            digits > 0 && rest.first() == Some(&b';') && !rest[1..].trim_ascii_start().first().is_some_and(token)
        })
    })
}

fn has_long_trailer_field(bytes: &[u8]) -> bool {
    // A line of 4,000 bytes or more after the last chunk's `0` size line (4 KiB less the CRLF and a little slack).
    any(bytes, |m| {
        let lines = chunk_lines(m);
        let zero =
            |l: &&[u8]| l.first() == Some(&b'0') && l.iter().take_while(|b| b.is_ascii_hexdigit()).all(|&b| b == b'0');
        lines.iter().position(zero).is_some_and(|at| lines[at + 1..].iter().any(|l| l.len() >= 4_000))
    })
}

fn has_empty_line_before_request(bytes: &[u8]) -> bool {
    any(bytes, |m| m.head.starts_with(b"\r\n") || m.head.starts_with(b"\n"))
}

fn has_long_chunk_size(bytes: &[u8]) -> bool {
    any(bytes, |m| chunk_lines(m).iter().any(|line| line.iter().take_while(|b| b.is_ascii_hexdigit()).count() > 16))
}

fn has_content_length_beyond_int63(bytes: &[u8]) -> bool {
    // Digits only (a sign or a blank is another tolerance's or a refusal); a number past u128 is beyond too.
    any(bytes, |m| {
        m.named(b"content-length").flat_map(|v| v.split(|&b| b == b',')).map(<[u8]>::trim_ascii).any(|v| {
            !v.is_empty()
                && v.iter().all(u8::is_ascii_digit)
                && std::str::from_utf8(v).ok().and_then(|d| d.parse::<u128>().ok()).is_none_or(|n| n >= 1 << 63)
        })
    })
}

fn has_framing_field_whitespace(bytes: &[u8]) -> bool {
    // A tab inside the raw Content-Length or Transfer-Encoding line, around its value.
    let framing = |l: &[u8]| {
        let colon = l.iter().position(|&b| b == b':').unwrap_or(0);
        let name = &l[..colon];
        let named = name.eq_ignore_ascii_case(b"content-length") || name.eq_ignore_ascii_case(b"transfer-encoding");
        named && l[colon..].contains(&b'\t')
    };
    any(bytes, |m| m.head.split(|&b| b == b'\n').any(framing))
}

fn has_bare_cr(bytes: &[u8]) -> bool {
    // A CR not followed by LF anywhere in the stream's heads or chunk lines.
    bytes.iter().enumerate().any(|(i, &b)| b == b'\r' && bytes.get(i + 1) != Some(&b'\n'))
}

fn has_forbidden_trailer_declaration(bytes: &[u8]) -> bool {
    any(bytes, |m| {
        m.named(b"trailer").any(|v| {
            v.split(|&b| b == b',').map(<[u8]>::trim_ascii).any(|name| {
                [b"host".as_slice(), b"content-length", b"transfer-encoding"]
                    .iter()
                    .any(|f| name.eq_ignore_ascii_case(f))
            })
        })
    })
}

fn has_target_outside_uri_grammar(bytes: &[u8]) -> bool {
    any(bytes, |m| {
        let target = m.target();
        let odd = |b: &u8| b"\"<>\\^`{|}".contains(b);
        // An absolute-form target starts with a scheme (a letter, then letters, digits, `+`, `-`, `.`) before `://`.
        let scheme = |s: &[u8]| {
            s.first().is_some_and(u8::is_ascii_alphabetic)
                && s.iter().all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(b))
        };
        // … and an authority after it: a host (`h://` has none), and a port of digits if any (`h://:=` has neither).
        let authority = |rest: &[u8]| {
            let a = &rest[..rest.iter().position(|b| b"/?#".contains(b)).unwrap_or(rest.len())];
            let port_at = a.iter().rposition(|&b| b == b':').filter(|_| !a.ends_with(b"]"));
            let (host, port) = port_at.map_or((a, &b""[..]), |c| (&a[..c], &a[c + 1..]));
            !host.is_empty() && port.iter().all(u8::is_ascii_digit)
        };
        let absolute = target
            .windows(3)
            .position(|w| w == b"://")
            .is_some_and(|i| scheme(&target[..i]) && authority(&target[i + 3..]));
        let origin_or_absolute = target.starts_with(b"/") || absolute || target == b"*";
        // llhttp reads a scheme of letters alone: `t0://e` is a full URI to hyper and Go, and a malformed one to it.
        let scheme_part: Vec<u8> = target.iter().copied().take_while(|&b| b != b':').collect();
        let scheme_beyond_letters = absolute && scheme_part.iter().any(|b| !b.is_ascii_alphabetic());
        // Tomcat serves the http and https schemes alone and refuses any other (`p://h/`).
        let other_scheme =
            absolute && !(scheme_part.eq_ignore_ascii_case(b"http") || scheme_part.eq_ignore_ascii_case(b"https"));
        target.iter().any(odd) || (!target.is_empty() && !origin_or_absolute) || scheme_beyond_letters || other_scheme
    })
}

fn has_empty_chunk_size(bytes: &[u8]) -> bool {
    // An empty line where a size belongs (after a chunk's data and its CRLF, or first), or a first size line that
    // starts with no hex digit.
    any(bytes, |m| {
        // The first size line empty, or starting with a byte that is no hex digit (`G`).
        let first_empty = m.body.first().is_some_and(|b| !b.is_ascii_hexdigit());
        // A size line with no digit at all where the sizes say one belongs (`;0`, an extension alone).
        let no_digit = m.body.split(|&b| b == b'\n').any(|l| l.starts_with(b";"));
        m.named(b"transfer-encoding").next().is_some()
            && (first_empty
                || no_digit
                || (m.body.windows(4).any(|w| w == b"\r\n\r\n") && !m.body.ends_with(b"0\r\n\r\n")))
    })
}

fn has_large_body(bytes: &[u8]) -> bool {
    // A declared length or a chunk size over 64 KiB.
    const LIMIT: u64 = 64 * 1024;
    any(bytes, |m| {
        let declared = m
            .named(b"content-length")
            .any(|v| std::str::from_utf8(v).ok().and_then(|v| v.parse::<u64>().ok()).is_some_and(|n| n > LIMIT));
        let chunk = m.body.split(|&b| b == b'\n').any(|line| {
            let digits: Vec<u8> = line.iter().copied().take_while(u8::is_ascii_hexdigit).collect();
            std::str::from_utf8(&digits).ok().and_then(|d| u64::from_str_radix(d, 16).ok()).is_some_and(|n| n > LIMIT)
        });
        declared || chunk
    })
}

fn has_obs_fold(bytes: &[u8]) -> bool {
    // A line of a head that starts with a space or tab.
    any(bytes, |m| m.head.split(|&b| b == b'\n').skip(1).any(|l| l.starts_with(b" ") || l.starts_with(b"\t")))
}

fn has_malformed_host(bytes: &[u8]) -> bool {
    // The bytes Go's httpguts.ValidHostHeader accepts.
    let valid = |b: &u8| b.is_ascii_alphanumeric() || b"!$%&'()*+,-.:;=@[]_~".contains(b);
    any(bytes, |m| m.named(b"host").any(|v| !v.iter().all(valid)))
}

/// The contract's head limit, 16 KiB.
const HEAD_LIMIT: usize = 16 * 1024;

fn has_large_head(bytes: &[u8]) -> bool {
    // Within a kilobyte of 16 KiB (as each stack counts), or over; or near or over 100 fields.
    any(bytes, |m| m.head.len() >= HEAD_LIMIT - 1024 || m.head.split(|&b| b == b'\n').count() > 95)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A POST /users is "refused" when its body is missing or no valid user, chunked or not; a valid one is not.
    #[test]
    fn a_refused_post_is_told_from_a_valid_one() {
        let post = |framing: &str, body: &str| {
            format!("POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{framing}\r\n{body}")
        };
        let valid = r#"{"name":"a","email":"a@b"}"#;
        let sized = |body: &str| post(&format!("Content-Length: {}\r\n", body.len()), body);
        assert!(!has_refused_post(sized(valid).as_bytes()));
        assert!(has_refused_post(sized("").as_bytes()));
        assert!(has_refused_post(sized(r#"{"name":"","email":"a@b"}"#).as_bytes()));
        assert!(has_refused_post(sized(r#"{"name":"a","email":"ab"}"#).as_bytes()));
        let chunked = post("Transfer-Encoding: chunked\r\n", &format!("{:x}\r\n{valid}\r\n0\r\n\r\n", valid.len()));
        assert!(!has_refused_post(chunked.as_bytes()), "{chunked}");
        assert!(!has_refused_post(b"GET /users/7 HTTP/1.1\r\nHost: x\r\n\r\n"));
        let with_query = sized(r#"{"NAME":"Q","EMAIL":"Q@R"}"#).replacen("/users", "/users?1", 1);
        assert!(has_refused_post(with_query.as_bytes()), "{with_query}");
    }

    /// The Host values Tomcat 11.0.22 was seen to accept and refuse (the predicate's doc comment).
    #[test]
    fn a_host_outside_tomcat_syntax_is_found() {
        for ok in ["", "x", "a.", "a:", "a:80", "a:99999", "[::1]", "[::1]:80", "1.2.3.4", "1.2.3", "A.B", "0a"] {
            assert!(is_dns_style_host(ok.as_bytes()), "{ok:?}");
        }
        for bad in [".", "a..b", "-a", "a-", "a_b", ".a", "!", "a~b", ":80", "a b", "a%20b", "a:0x1", "a.-b", "::1"] {
            assert!(!is_dns_style_host(bad.as_bytes()), "{bad:?}");
        }
        assert!(!is_dns_style_host(b"[v1.x]") && !is_dns_style_host(b"a:80:80") && !is_dns_style_host(b"a@b"));
    }

    /// The paths Tomcat 11.0.22 was seen to refuse (400) where the routes answer 404, and some it serves.
    #[test]
    fn a_path_tomcat_refuses_is_found() {
        let get = |target: &str| format!("GET {target} HTTP/1.1\r\nHost: x\r\n\r\n");
        for refused in ["/%00", "/users/1%00", "/..", "/%2e%2e/", "/%2E%2E/health", "/a/../.."] {
            assert!(has_path_tomcat_refuses(get(refused).as_bytes()), "{refused}");
        }
        for served in ["/health", "/%2e", "/a/../health", "/users/1?x=%00", "/%01", "/%2F"] {
            assert!(!has_path_tomcat_refuses(get(served).as_bytes()), "{served}");
        }
    }

    #[test]
    fn the_predicates_read_the_features() {
        assert!(has_nonstandard_method(b"get / HTTP/1.1\r\n\r\n"));
        assert!(!has_nonstandard_method(b"GET / HTTP/1.1\r\nHost: x\r\n\r\nPOST /users HTTP/1.1\r\n"));
        assert!(has_bare_lf(b"GET / HTTP/1.1\nHost: x\r\n\r\n"));
        assert!(has_identical_content_lengths(b"POST / HTTP/1.1\r\nContent-Length: 5, 5\r\n\r\n"));
        assert!(!has_identical_content_lengths(b"POST / HTTP/1.1\r\nContent-Length: 5, 6\r\n\r\n"));
        assert!(has_malformed_percent_escape(b"GET /%zz HTTP/1.1\r\n"));
        assert!(has_empty_expectation(b"GET / HTTP/1.1\r\nHost: x\r\nExpect: \r\n\r\n"));
        assert!(!has_empty_expectation(b"GET / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n"));
        assert!(has_absolute_form_host_mismatch(b"GET http://a/users/1 HTTP/1.1\r\nHost: b\r\n\r\n"));
        assert!(!has_absolute_form_host_mismatch(b"GET http://a:80/users/1?x HTTP/1.1\r\nHost: a:80\r\n\r\n"));
        assert!(!has_absolute_form_host_mismatch(b"GET /users/1 HTTP/1.1\r\nHost: b\r\n\r\n"));
        assert!(!has_malformed_percent_escape(b"GET /%35?%z HTTP/1.1\r\n"));
    }
}
