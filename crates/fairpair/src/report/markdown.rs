//! The report as Markdown (`report.md`): the format the harness has always written, kept byte-for-byte (the golden
//! test in `tests/report_golden.rs` holds it to that).
//!
//! Blocks are separated by one blank line. The text of the document is Markdown already, so it is written as it is.

use std::fmt::Write;

use super::document::{Align, Block, Document, Table};

pub struct Markdown;

impl super::Renderer for Markdown {
    fn extension(&self) -> &'static str {
        "md"
    }

    fn render(&self, doc: &Document) -> String {
        render(doc)
    }
}

pub fn render(doc: &Document) -> String {
    let blocks: Vec<String> = doc.blocks.iter().filter_map(block).collect();
    blocks.join("\n")
}

/// One block, ending in a newline; `None` for a chart that Markdown does not link.
fn block(b: &Block) -> Option<String> {
    Some(match b {
        Block::Heading { level, text } => format!("{} {text}\n", "#".repeat(usize::from(*level))),
        Block::Paragraph(text) => format!("{text}\n"),
        Block::Note(text) => format!("> {text}\n"),
        Block::List(items) => items.iter().map(|i| format!("- {i}\n")).collect(),
        Block::Table(t) => table(t),
        Block::Chart(c) if c.in_markdown => format!("![{}]({})\n", c.alt, c.file),
        Block::Chart(_) | Block::Contents => return None,
        Block::Folded { blocks, .. } => blocks.iter().filter_map(block).collect::<Vec<_>>().join("\n"),
        // GitHub renders raw HTML in Markdown: the script stays folded until clicked.
        Block::Code { summary, language, code } => {
            format!("<details><summary>{}</summary>\n\n```{language}\n{code}```\n</details>\n", code_spans(summary))
        }
    })
}

fn table(t: &Table) -> String {
    let mut s = String::new();
    row(&mut s, t.columns.iter().map(|c| c.title.as_str()));
    // The alignment row has no spaces: `|---|---:|`.
    s.push('|');
    for c in &t.columns {
        s.push_str(match c.align {
            Align::Left => "---|",
            Align::Right => "---:|",
        });
    }
    s.push('\n');
    for cells in &t.rows {
        row(&mut s, cells.iter().map(String::as_str));
    }
    s
}

fn row<'a>(s: &mut String, cells: impl Iterator<Item = &'a str>) {
    s.push('|');
    for cell in cells {
        // An empty cell is `| |`, not `|  |`. A `|` in a cell (a shell pipe in a subject's command) would end the
        // cell: escaped, as GitHub's tables read it, code spans included.
        if cell.is_empty() {
            s.push_str(" |");
        } else {
            let _ = write!(s, " {} |", cell.replace('|', "\\|"));
        }
    }
    s.push('\n');
}

/// `` `x` `` as `<code>x</code>`, for text inside raw HTML, where Markdown is not interpreted.
fn code_spans(text: &str) -> String {
    text.split('`')
        .enumerate()
        .map(|(i, part)| if i % 2 == 1 { format!("<code>{part}</code>") } else { part.into() })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::document::Chart;

    #[test]
    fn blocks_are_separated_by_one_blank_line_and_html_only_charts_leave_no_gap() {
        let mut t = Table::new(&[("", Align::Left), ("n", Align::Right)]);
        t.row(vec!["a".into(), String::new()]);
        let chart = |file: &str, in_markdown| {
            Block::Chart(Chart { file: file.into(), alt: "x".into(), svg: "<svg/>".into(), in_markdown })
        };
        let doc = Document {
            blocks: vec![
                Block::Heading { level: 2, text: "T".into() },
                Block::Table(t),
                chart("spectrum.svg", false),
                chart("bars.svg", true),
                Block::List(vec!["one".into(), "two".into()]),
            ],
        };
        assert_eq!(render(&doc), "## T\n\n| | n |\n|---|---:|\n| a | |\n\n![x](bars.svg)\n\n- one\n- two\n");
    }

    #[test]
    fn a_pipe_in_a_cell_is_escaped_and_the_row_keeps_its_cells() {
        let mut t = Table::new(&[("subject", Align::Left), ("command", Align::Left), ("contract", Align::Left)]);
        t.row(vec!["x".into(), "`sh -c \"a | b\"`".into(), "verified".into()]);
        let md = table(&t);
        assert_eq!(md.lines().nth(2), Some("| x | `sh -c \"a \\| b\"` | verified |"), "{md}");
        // Unescaped pipes, the cell separators, are as many as the header's.
        let separators = |l: &str| l.replace("\\|", "").matches('|').count();
        assert!(md.lines().all(|l| separators(l) == 4), "{md}");
    }

    #[test]
    fn code_spans_in_a_summary_become_html() {
        assert_eq!(code_spans("wrk script for `get` (GET /)"), "wrk script for <code>get</code> (GET /)");
    }
}
