//! A flame graph of folded stacks, drawn by `inferno` as an SVG that the HTML report embeds and `report.md` links.
//!
//! `inferno` draws an interactive page of its own (a script, a stylesheet for the whole document, a gradient
//! fetched by `url(…)`); embedded in `report.html`, which runs and fetches nothing, its script would not run and
//! its stylesheet would restyle every other chart's text. So it is made static here: no script, no comments, a
//! plain background, and its rules scoped to its own element.

use inferno::flamegraph::{self, Options};

/// The drawing's width in pixels; the report's stylesheet scales it to the page.
const WIDTH: usize = 1200;

/// The flame graph of `folded`, titled `title`, its root element given the id `id` (unique in the report).
/// Deterministic (the same stacks draw the same bytes), as the report must be; `None` when there is nothing to
/// draw.
pub fn svg(folded: &str, title: &str, id: &str) -> Option<String> {
    if folded.trim().is_empty() {
        return None;
    }
    let mut options = Options::default();
    options.title = title.to_string();
    options.deterministic = true;
    options.count_name = "samples".to_string();
    options.image_width = Some(WIDTH);
    options.no_javascript = true;
    let mut out = Vec::new();
    flamegraph::from_lines(&mut options, folded.lines(), &mut out).ok()?;
    Some(made_static(&String::from_utf8(out).ok()?, id))
}

/// Removes every `open…close` stretch of `text`.
fn without(text: &str, open: &str, close: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(open) {
        out.push_str(&rest[..start]);
        match rest[start..].find(close) {
            Some(end) => rest = &rest[start + end + close.len()..],
            None => rest = "",
        }
    }
    out.push_str(rest);
    out
}

/// `inferno`'s page as a static drawing (see the module's comment).
fn made_static(svg: &str, id: &str) -> String {
    let body = svg.find("<svg").map_or(svg, |i| &svg[i..]);
    let body = without(body, "<!--", "-->");
    let body = without(&body, "<script", "</script>");
    let body = without(&body, "<style", "</style>");
    let style = format!(
        "<style type=\"text/css\">#{id} text {{ font-family:Verdana, sans-serif; font-size:12px }} \
         #{id} #title {{ text-anchor:middle; font-size:17px }} #{id} #search, #{id} #matched, #{id} .hide \
         {{ display:none }}</style>"
    );
    let body = body.replacen(" onload=\"init(evt)\"", &format!(" id=\"{id}\""), 1);
    let body = body.replace("url(#background)", "#f6f6ee");
    // The stylesheet goes first inside the root element.
    match body.find('>') {
        Some(end) => format!("{}{style}{}", &body[..=end], &body[end + 1..]),
        None => body,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn draws_the_same_static_bytes_twice() {
        let folded = "a;b 5\na;c 1\n";
        let one = super::svg(folded, "rust get", "flame-rust-get").unwrap();
        assert!(one.starts_with("<svg") && one.contains("rust get"), "{}", &one[..200.min(one.len())]);
        for banned in ["<script", "url(", "<!--", "onload"] {
            assert!(!one.contains(banned), "{banned} in {one}");
        }
        assert!(one.contains("id=\"flame-rust-get\"") && one.contains("#flame-rust-get text"));
        assert_eq!(Some(one), super::svg(folded, "rust get", "flame-rust-get"));
        assert_eq!(super::svg("", "empty", "x"), None);
    }
}
