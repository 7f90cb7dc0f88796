//! The report as one self-contained HTML page (`report.html`): the same document as `report.md`, with the charts
//! inline as SVG and a small inline stylesheet. No script, and nothing fetched: the file reads the same offline, on a
//! phone (tables scroll sideways inside their own box, charts shrink to the screen) and on paper.

use std::fmt::Write;

use super::document::{Align, Block, Document, Table};
use crate::report::svg::esc;

pub struct Html;

impl super::Renderer for Html {
    fn extension(&self) -> &'static str {
        "html"
    }

    fn render(&self, doc: &Document) -> String {
        render(doc)
    }
}

/// Kept short on purpose: a system font stack, readable line lengths, tables in a scrolling box (the summary's drawn
/// as cards on a narrow screen instead), charts that never exceed the screen's width, and for print no scroll boxes
/// (everything shown, nothing split across pages). The page is as wide as a laptop's screen (78rem, 1,248 px) and the
/// summary's tables a little smaller than the rest, with each row's label on one line: four subjects make twelve
/// rows, and each must stay one line high for the summary to end within the first screen.
const STYLE: &str = "\
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;line-height:1.45;margin:0;color:#1a1a1a;background:#fff}
main{max-width:78rem;margin:0 auto;padding:1rem}
h1{font-size:1.6rem;margin:.5rem 0 1rem}
h2{font-size:1.25rem;margin:2rem 0 .5rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}
p,li{max-width:50rem}
ul{padding-left:1.3rem}
code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em;background:#f3f3f3;padding:0 .2em;overflow-wrap:anywhere}
pre{background:#f3f3f3;padding:.6rem;overflow-x:auto;font-size:.85rem}
pre code{background:none;padding:0}
blockquote{margin:1rem 0;padding:.5rem 1rem;border-left:4px solid #E69F00;background:#fff8e6}
.table{overflow-x:auto;margin:.5rem 0 1rem;max-width:100%}
table{border-collapse:collapse;font-size:.9rem}
th,td{border:1px solid #ddd;padding:.25rem .5rem;vertical-align:top;text-align:left}
th{background:#f3f3f3}
th:empty{padding:0;border:none;background:none}
.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
td code{overflow-wrap:normal;white-space:nowrap}
figure{margin:1rem 0}
details{margin:.5rem 0}
summary{cursor:pointer;color:#0a4b8c}
.toc{font-size:.9rem;margin:1.5rem 0;padding:.5rem .75rem;background:#f6f8fa;border-radius:4px}
.toc a{white-space:nowrap;color:#0a4b8c}
figure svg{display:block;max-width:100%;height:auto}
@media (min-width:40rem){.stack table{font-size:.85rem}.stack td{padding:.2rem .45rem}.stack td:first-child{white-space:nowrap}}
@media (max-width:40rem){
.stack table,.stack tbody,.stack tr,.stack td{display:block}
.stack thead{display:none}
.stack tr{border:1px solid #ddd;margin:0 0 .5rem}
.stack td{border:none;border-top:1px solid #eee}
.stack td:first-child{border-top:none;background:#f3f3f3;font-weight:600}
.stack td[data-label]::before{content:attr(data-label) ': ';font-weight:400;color:#555}
}
@media print{
body{font-size:10pt}
main{max-width:none;padding:0}
.table{overflow:visible}
table{font-size:8pt;width:100%}
th,td,.num{white-space:normal;padding:.1rem .25rem}
td code{white-space:normal;overflow-wrap:anywhere}
figure,tr{break-inside:avoid}
h2{break-after:avoid}
}
";

pub fn render(doc: &Document) -> String {
    let title = doc
        .blocks
        .iter()
        .find_map(|b| match b {
            Block::Heading { level: 1, text } => Some(plain(text)),
            _ => None,
        })
        .unwrap_or_else(|| "fairpair report".into());
    let mut s = String::new();
    s.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    s.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(s, "<title>{}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n<main>", esc(&title));
    for b in &doc.blocks {
        block(&mut s, b, doc);
    }
    s.push_str("</main>\n</body>\n</html>\n");
    s
}

fn block(s: &mut String, b: &Block, doc: &Document) {
    match b {
        // Sections get an id, so that a link can point at one (`report.html#memory-and-start-up`).
        Block::Heading { level, text } => {
            let _ = writeln!(s, "<h{level} id=\"{}\">{}</h{level}>", slug(text), inline(text));
        }
        Block::Paragraph(text) => {
            let _ = writeln!(s, "<p>{}</p>", inline(text.trim_end()));
        }
        Block::Note(text) => {
            let _ = writeln!(s, "<blockquote><p>{}</p></blockquote>", inline(text));
        }
        Block::List(items) => {
            s.push_str("<ul>\n");
            for item in items {
                let _ = writeln!(s, "<li>{}</li>", inline(item));
            }
            s.push_str("</ul>\n");
        }
        Block::Table(t) => table(s, t),
        // The chart's own SVG, inline: it carries its size and a viewBox, so the stylesheet can shrink it.
        Block::Chart(c) => {
            let _ = write!(s, "<figure aria-label=\"{}\">\n{}</figure>\n", esc(&c.alt), c.svg);
        }
        Block::Folded { summary, blocks } => {
            let _ = writeln!(s, "<details><summary>{}</summary>", inline(summary));
            blocks.iter().for_each(|inner| block(s, inner, doc));
            s.push_str("</details>\n");
        }
        // Every section after the summary, one link each, so that a reader can jump past the method to a figure.
        Block::Contents => {
            let links: Vec<String> = doc
                .sections()
                .skip(1)
                .map(|text| format!("<a href=\"#{}\">{}</a>", slug(text), inline(text)))
                .collect();
            let _ = writeln!(
                s,
                "<nav class=\"toc\" aria-label=\"Contents\"><strong>Contents</strong>: {}</nav>",
                links.join(" · ")
            );
        }
        Block::Code { summary, language, code } => {
            let _ = writeln!(
                s,
                "<details><summary>{}</summary><pre><code class=\"language-{}\">{}</code></pre></details>",
                inline(summary),
                esc(language),
                esc(code)
            );
        }
    }
}

fn table(s: &mut String, t: &Table) {
    let class = |align: Align| match align {
        Align::Left => "",
        Align::Right => " class=\"num\"",
    };
    s.push_str(if t.stacked {
        "<div class=\"table stack\"><table>\n<thead><tr>"
    } else {
        "<div class=\"table\"><table>\n<thead><tr>"
    });
    for c in &t.columns {
        let _ = write!(s, "<th{}>{}</th>", class(c.align), inline(&c.title));
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    for row in &t.rows {
        s.push_str("<tr>");
        for (i, cell) in row.iter().enumerate() {
            let align = t.columns.get(i).map_or(Align::Left, |c| c.align);
            let label = match t.columns.get(i) {
                Some(c) if t.stacked && !c.title.is_empty() => format!(" data-label=\"{}\"", esc(&plain(&c.title))),
                _ => String::new(),
            };
            let _ = write!(s, "<td{}{label}>{}</td>", class(align), inline(cell));
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody>\n</table></div>\n");
}

/// The document's inline Markdown as HTML: `` `code` ``, `**strong**` and `*emphasis*`, everything else escaped.
/// Inside backticks nothing is interpreted (a command line's `*` stays a `*`); an unpaired marker stays as it is.
pub fn inline(text: &str) -> String {
    // Code spans first, each replaced by a placeholder while the emphasis markers around them are paired (so that
    // `**A `--quick` run**` is strong as a whole), then put back.
    const PLACEHOLDER: char = '\u{0}';
    let parts: Vec<&str> = text.split('`').collect();
    let (mut joined, mut spans) = (String::new(), Vec::new());
    for (i, part) in parts.iter().enumerate() {
        let part = part.replace(PLACEHOLDER, "");
        if i % 2 == 1 && i + 1 < parts.len() {
            joined.push(PLACEHOLDER);
            spans.push(format!("<code>{}</code>", esc(&part)));
        } else {
            if i % 2 == 1 {
                joined.push('`'); // An odd backtick with no partner is text.
            }
            joined.push_str(&esc(&part));
        }
    }
    let mut out = emphasis(&joined);
    for span in spans {
        out = out.replacen(PLACEHOLDER, &span, 1);
    }
    out
}

/// `**x**` → `<strong>x</strong>`, then `*x*` → `<em>x</em>`, pairing markers left to right.
fn emphasis(text: &str) -> String {
    let strong = pairs(text, "**", "strong");
    pairs(&strong, "*", "em")
}

fn pairs(text: &str, marker: &str, tag: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find(marker) {
        let after = &rest[open + marker.len()..];
        let Some(close) = after.find(marker) else { break };
        if close == 0 {
            // `**` met while pairing `*`: not an emphasis, keep it.
            out.push_str(&rest[..open + 2 * marker.len()]);
            rest = &after[marker.len()..];
            continue;
        }
        let _ = write!(out, "{}<{tag}>{}</{tag}>", &rest[..open], &after[..close]);
        rest = &after[close + marker.len()..];
    }
    out.push_str(rest);
    out
}

/// `Throughput (requests/s)` → `throughput-requests-s`.
fn slug(text: &str) -> String {
    let lower: String = text.chars().map(|c| if c.is_alphanumeric() { c.to_ascii_lowercase() } else { ' ' }).collect();
    lower.split_whitespace().collect::<Vec<_>>().join("-")
}

/// The text without its inline markers, for the page's `<title>`.
fn plain(text: &str) -> String {
    text.replace(['`', '*'], "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_markdown_becomes_elements_and_the_rest_is_escaped() {
        let cases = [
            ("plain <b> & \"q\"", "plain &lt;b&gt; &amp; &quot;q&quot;"),
            ("run `wrk -s <x>.lua` now", "run <code>wrk -s &lt;x&gt;.lua</code> now"),
            ("**alpha better**, *exceeds*", "<strong>alpha better</strong>, <em>exceeds</em>"),
            ("**UNVERIFIED** at `a*b*c`", "<strong>UNVERIFIED</strong> at <code>a*b*c</code>"),
            ("a * b", "a * b"),
            ("one ` tick", "one ` tick"),
            ("**A `--quick` smoke run**: x", "<strong>A <code>--quick</code> smoke run</strong>: x"),
        ];
        for (text, want) in cases {
            assert_eq!(inline(text), want, "{text:?}");
        }
    }

    #[test]
    fn a_table_has_a_head_and_numbers_aligned_right() {
        let mut t = Table::new(&[("subject", Align::Left), ("req/s", Align::Right)]);
        t.row(vec!["<rust>".into(), "45,123".into()]);
        let mut s = String::new();
        table(&mut s, &t);
        assert!(s.contains("<thead><tr><th>subject</th><th class=\"num\">req/s</th></tr></thead>"), "{s}");
        assert!(s.contains("<td>&lt;rust&gt;</td><td class=\"num\">45,123</td>"), "{s}");
    }
}
