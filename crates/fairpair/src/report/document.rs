//! The report as a small document: headings, paragraphs, notes, lists, tables, charts and collapsed code.
//!
//! The sections in `report/sections/` build one [`Document`]; each renderer (`markdown.rs`, `html.rs`) turns the same
//! document into its format, so `report.md` and `report.html` cannot disagree on a figure. Text is a small subset of
//! Markdown's inline syntax (`` `code` ``, `**strong**`, `*emphasis*`), which the Markdown renderer writes as it is
//! and the HTML renderer translates: the sections were written in Markdown first, and keeping their text as it was
//! keeps `report.md` byte-identical.

/// A whole report: blocks in reading order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Document {
    pub blocks: Vec<Block>,
}

/// One block of the report.
#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    /// A heading of level 1 (the title) or 2 (a section).
    Heading {
        level: u8,
        text: String,
    },
    Paragraph(String),
    /// A warning the reader must not miss (a blockquote in Markdown).
    Note(String),
    /// A list: each item is one line of text.
    List(Vec<String>),
    Table(Table),
    Chart(Chart),
    /// Blocks folded under a one-line summary in HTML (long tables: the environment, the exact commands); Markdown
    /// shows them as they are.
    Folded {
        summary: String,
        blocks: Vec<Block>,
    },
    /// Where the HTML page lists its sections, with links; nothing in Markdown.
    Contents,
    /// Source text (a generated wrk script), collapsed under a one-line summary.
    Code {
        summary: String,
        language: String,
        code: String,
    },
}

/// A table: a header row, then rows with one cell per column (a cell may be empty).
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<String>>,
    /// On a narrow screen, each row is drawn as a card of `column: cell` lines rather than scrolled sideways: for the
    /// summary, which must read on a phone without scrolling.
    pub stacked: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    pub title: String,
    pub align: Align,
}

/// Text columns are left-aligned; figures right-aligned, so that digits line up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// A chart: written as its own SVG file, shown inline in HTML, and linked from Markdown when `in_markdown`.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    pub file: String,
    pub alt: String,
    pub svg: String,
    /// False for the charts added after `report.md`'s layout was fixed by its golden test (the percentile
    /// spectra): the HTML report shows them and their SVG files are written, but `report.md` does not link them.
    pub in_markdown: bool,
}

impl Table {
    /// A table with these columns, each `(title, alignment)`, and no rows yet.
    pub fn new(columns: &[(&str, Align)]) -> Table {
        let columns = columns.iter().map(|(title, align)| Column { title: title.to_string(), align: *align }).collect();
        Table { columns, rows: Vec::new(), stacked: false }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }
}

impl Document {
    pub fn push(&mut self, block: Block) {
        self.blocks.push(block);
    }

    pub fn heading(&mut self, level: u8, text: impl Into<String>) {
        self.push(Block::Heading { level, text: text.into() });
    }

    pub fn paragraph(&mut self, text: impl Into<String>) {
        self.push(Block::Paragraph(text.into()));
    }

    /// A list, left out when there is nothing in it.
    pub fn list(&mut self, items: Vec<String>) {
        if !items.is_empty() {
            self.push(Block::List(items));
        }
    }

    pub fn chart(&mut self, file: String, alt: String, svg: String, in_markdown: bool) {
        self.push(Block::Chart(Chart { file, alt, svg, in_markdown }));
    }

    /// Every chart, linked from Markdown or not, in order.
    pub fn charts(&self) -> impl Iterator<Item = &Chart> {
        self.blocks.iter().filter_map(|b| match b {
            Block::Chart(c) => Some(c),
            _ => None,
        })
    }

    /// The sections' headings (level 2), in order.
    pub fn sections(&self) -> impl Iterator<Item = &str> {
        self.blocks.iter().filter_map(|b| match b {
            Block::Heading { level: 2, text } => Some(text.as_str()),
            _ => None,
        })
    }
}
