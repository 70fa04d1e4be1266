//! A document's text set as an A4 PDF, by the binary itself: the two
//! standard Helvetica faces every reader has built in (nothing embedded,
//! so a copy is a few kilobytes), lines broken by the fonts' published
//! widths, tables with their header repeated on each page, and "page N of
//! M" at each foot. The same text gives the same bytes.

use pdf_writer::{Content, Finish, Name, Pdf, Rect, Ref, Str, TextStr};

use super::markup::{Block, parse};
use super::metrics::{HELVETICA, HELVETICA_BOLD};

const PAGE_WIDTH: f32 = 595.28;
const PAGE_HEIGHT: f32 = 841.89;
const MARGIN: f32 = 56.0;
const TEXT_WIDTH: f32 = PAGE_WIDTH - 2.0 * MARGIN;
/// The lowest a line's baseline may sit: above the page's foot line.
const BOTTOM: f32 = MARGIN + 24.0;
const BODY: f32 = 10.0;
const SMALL: f32 = 8.5;
const CELL_PAD: f32 = 4.0;

#[derive(Clone, Copy, PartialEq)]
enum Face {
    Regular,
    Bold,
}

impl Face {
    fn name(self) -> Name<'static> {
        match self {
            Face::Regular => Name(b"F1"),
            Face::Bold => Name(b"F2"),
        }
    }

    fn widths(self) -> &'static [u16; 256] {
        match self {
            Face::Regular => &HELVETICA,
            Face::Bold => &HELVETICA_BOLD,
        }
    }
}

/// A character in the fonts' WinAnsiEncoding; what it lacks becomes the
/// nearest it has (a minus is a hyphen) or `?`.
fn encode(c: char) -> u8 {
    match c {
        ' '..='~' => c as u8,
        '\u{a0}'..='\u{ff}' => c as u32 as u8,
        '€' => 0x80,
        '‘' => 0x91,
        '’' => 0x92,
        '“' => 0x93,
        '”' => 0x94,
        '•' => 0x95,
        '–' => 0x96,
        '—' => 0x97,
        '\u{2212}' => b'-',
        '\u{2009}' | '\u{202f}' => b' ',
        _ => b'?',
    }
}

fn bytes(text: &str) -> Vec<u8> {
    text.chars().map(encode).collect()
}

fn width(text: &[u8], face: Face, size: f32) -> f32 {
    let w = face.widths();
    text.iter()
        .map(|&b| f32::from(w[usize::from(b)]))
        .sum::<f32>()
        * size
        / 1000.0
}

/// `text` broken into lines no wider than `max`, at spaces where it can
/// be and inside a word only when one word is wider than the line.
fn wrap(text: &str, face: Face, size: f32, max: f32) -> Vec<Vec<u8>> {
    let mut lines = Vec::new();
    let mut line: Vec<u8> = Vec::new();
    for word in text.split(' ').filter(|w| !w.is_empty()).map(bytes) {
        let candidate = if line.is_empty() {
            word.clone()
        } else {
            [line.as_slice(), b" ", word.as_slice()].concat()
        };
        if width(&candidate, face, size) <= max {
            line = candidate;
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        for b in word {
            line.push(b);
            if width(&line, face, size) > max && line.len() > 1 {
                let last = line.pop().unwrap_or(b' ');
                lines.push(std::mem::replace(&mut line, vec![last]));
            }
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// What a page shows, in page coordinates (points from the bottom left).
enum Mark {
    Text {
        face: Face,
        size: f32,
        x: f32,
        y: f32,
        text: Vec<u8>,
    },
    Rule {
        x1: f32,
        x2: f32,
        y: f32,
    },
}

/// The pages set so far and where the next line goes on the last.
struct Layout {
    pages: Vec<Vec<Mark>>,
    /// The top of the space left on the last page.
    y: f32,
}

impl Layout {
    fn new() -> Self {
        Self {
            pages: vec![Vec::new()],
            y: PAGE_HEIGHT - MARGIN,
        }
    }

    /// Starts a new page unless `height` more fits on this one; true if
    /// it did.
    fn room(&mut self, height: f32) -> bool {
        if self.y - height >= BOTTOM {
            return false;
        }
        self.pages.push(Vec::new());
        self.y = PAGE_HEIGHT - MARGIN;
        true
    }

    fn mark(&mut self, mark: Mark) {
        if let Some(page) = self.pages.last_mut() {
            page.push(mark);
        }
    }

    /// A run of wrapped lines at `x`, `width` wide, kept on one page when
    /// it fits on one.
    fn lines(&mut self, text: &str, face: Face, size: f32, x: f32, width: f32, after: f32) {
        let leading = size * 1.4;
        let lines = wrap(text, face, size, width);
        let whole = leading * lines.len() as f32;
        if whole < PAGE_HEIGHT / 4.0 {
            self.room(whole);
        }
        for line in lines {
            self.room(leading);
            self.y -= leading;
            let y = self.y + size * 0.3;
            self.mark(Mark::Text {
                face,
                size,
                x,
                y,
                text: line,
            });
        }
        self.y -= after;
    }

    fn rule(&mut self, x1: f32, x2: f32) {
        let y = self.y;
        self.mark(Mark::Rule { x1, x2, y });
    }

    fn table(&mut self, header: &[String], rows: &[Vec<String>]) {
        let columns = header.len().max(1);
        let widths = column_widths(header, rows, columns);
        let row_height = |row: &[String], face: Face| {
            (0..columns)
                .map(|c| {
                    let cell = row.get(c).map_or("", String::as_str);
                    wrap(cell, face, BODY, widths[c] - 2.0 * CELL_PAD).len()
                })
                .max()
                .unwrap_or(1) as f32
                * BODY
                * 1.4
                + CELL_PAD
        };
        let header_height = row_height(header, Face::Bold);
        self.room(header_height + row_height(rows.first().map_or(&[][..], |r| r), Face::Regular));
        self.row(header, &widths, Face::Bold, header_height);
        for row in rows {
            let height = row_height(row, Face::Regular);
            if self.room(height) {
                self.row(header, &widths, Face::Bold, header_height);
            }
            self.row(row, &widths, Face::Regular, height);
        }
        self.y -= 8.0;
    }

    fn row(&mut self, row: &[String], widths: &[f32], face: Face, height: f32) {
        let top = self.y;
        let mut x = MARGIN;
        for (c, w) in widths.iter().enumerate() {
            let cell = row.get(c).map_or("", String::as_str);
            for (k, line) in wrap(cell, face, BODY, w - 2.0 * CELL_PAD)
                .into_iter()
                .enumerate()
            {
                let y = top - BODY * 1.4 * (k as f32 + 1.0) + BODY * 0.3;
                self.mark(Mark::Text {
                    face,
                    size: BODY,
                    x: x + CELL_PAD,
                    y,
                    text: line,
                });
            }
            x += w;
        }
        self.y = top - height;
        self.rule(MARGIN, MARGIN + widths.iter().sum::<f32>());
    }
}

/// Each column as wide as its widest cell needs when together they fit;
/// otherwise each keeps its longest word whole and the room left is
/// shared by how much more each would take.
fn column_widths(header: &[String], rows: &[Vec<String>], columns: usize) -> Vec<f32> {
    let cells = |c: usize| {
        std::iter::once(header.get(c).map(|h| (h, Face::Bold)))
            .chain(
                rows.iter()
                    .map(move |r| r.get(c).map(|v| (v, Face::Regular))),
            )
            .flatten()
    };
    let pad = 2.0 * CELL_PAD;
    let natural: Vec<f32> = (0..columns)
        .map(|c| {
            cells(c)
                .map(|(t, face)| width(&bytes(t), face, BODY) + pad)
                .fold(24.0_f32, f32::max)
        })
        .collect();
    let total: f32 = natural.iter().sum();
    if total <= TEXT_WIDTH {
        return natural;
    }
    let least: Vec<f32> = (0..columns)
        .map(|c| {
            cells(c)
                .flat_map(|(t, face)| {
                    t.split(' ')
                        .map(move |w| width(&bytes(w), face, BODY) + pad)
                })
                .fold(24.0_f32, f32::max)
        })
        .collect();
    let floor: f32 = least.iter().sum();
    if floor >= TEXT_WIDTH {
        return least.iter().map(|w| w / floor * TEXT_WIDTH).collect();
    }
    let wanted: f32 = natural.iter().zip(&least).map(|(n, l)| n - l).sum();
    natural
        .iter()
        .zip(&least)
        .map(|(n, l)| l + (TEXT_WIDTH - floor) * (n - l) / wanted)
        .collect()
}

/// `text` (the documents' markup) as a PDF titled `title`, with `record`
/// (label, value) set after it as a signature record when given.
pub fn render(title: &str, text: &str, record: &[(&str, String)]) -> Vec<u8> {
    let mut layout = Layout::new();
    for block in parse(text) {
        match block {
            Block::Title(t) => {
                layout.lines(&t, Face::Bold, 18.0, MARGIN, TEXT_WIDTH, 8.0);
            }
            Block::Heading(t) => {
                layout.y -= 6.0;
                layout.room(BODY * 6.0);
                layout.lines(&t, Face::Bold, 12.0, MARGIN, TEXT_WIDTH, 4.0);
            }
            Block::Paragraph(t) => layout.lines(&t, Face::Regular, BODY, MARGIN, TEXT_WIDTH, 6.0),
            Block::List(items) => {
                for item in items {
                    layout.room(BODY * 1.4);
                    let y = layout.y - BODY * 1.4 + BODY * 0.3;
                    layout.mark(Mark::Text {
                        face: Face::Regular,
                        size: BODY,
                        x: MARGIN + 4.0,
                        y,
                        text: vec![encode('•')],
                    });
                    layout.lines(
                        &item,
                        Face::Regular,
                        BODY,
                        MARGIN + 16.0,
                        TEXT_WIDTH - 16.0,
                        2.0,
                    );
                }
                layout.y -= 4.0;
            }
            Block::Table(header, rows) => layout.table(&header, &rows),
        }
    }
    if !record.is_empty() {
        layout.y -= 6.0;
        layout.room(BODY * 1.4 * (record.len() as f32 + 3.0));
        layout.lines(
            "Signature record",
            Face::Bold,
            12.0,
            MARGIN,
            TEXT_WIDTH,
            4.0,
        );
        let rows: Vec<Vec<String>> = record
            .iter()
            .map(|(k, v)| vec![(*k).to_owned(), v.clone()])
            .collect();
        layout.table(&["Item".to_owned(), "Value".to_owned()], &rows);
    }
    write(title, layout.pages)
}

fn write(title: &str, pages: Vec<Vec<Mark>>) -> Vec<u8> {
    let catalog = Ref::new(1);
    let tree = Ref::new(2);
    let regular = Ref::new(3);
    let bold = Ref::new(4);
    let info = Ref::new(5);
    let first = 6;
    let mut pdf = Pdf::new();
    pdf.catalog(catalog).pages(tree);
    let count = pages.len();
    let page_ids: Vec<Ref> = (0..count).map(|k| Ref::new(first + 2 * k as i32)).collect();
    pdf.pages(tree)
        .kids(page_ids.iter().copied())
        .count(count as i32);
    pdf.type1_font(regular)
        .base_font(Name(b"Helvetica"))
        .encoding_predefined(Name(b"WinAnsiEncoding"));
    pdf.type1_font(bold)
        .base_font(Name(b"Helvetica-Bold"))
        .encoding_predefined(Name(b"WinAnsiEncoding"));
    pdf.document_info(info)
        .title(TextStr(title))
        .producer(TextStr("lendhub"));
    for (k, marks) in pages.into_iter().enumerate() {
        let page_id = page_ids[k];
        let content_id = Ref::new(page_id.get() + 1);
        let mut page = pdf.page(page_id);
        page.media_box(Rect::new(0.0, 0.0, PAGE_WIDTH, PAGE_HEIGHT))
            .parent(tree)
            .contents(content_id);
        let mut resources = page.resources();
        let mut fonts = resources.fonts();
        fonts.pair(Face::Regular.name(), regular);
        fonts.pair(Face::Bold.name(), bold);
        fonts.finish();
        resources.finish();
        page.finish();
        let mut content = Content::new();
        content.set_line_width(0.4).set_stroke_rgb(0.7, 0.7, 0.7);
        for mark in &marks {
            match mark {
                Mark::Text {
                    face,
                    size,
                    x,
                    y,
                    text,
                } => {
                    content
                        .begin_text()
                        .set_font(face.name(), *size)
                        .next_line(*x, *y)
                        .show(Str(text))
                        .end_text();
                }
                Mark::Rule { x1, x2, y } => {
                    content.move_to(*x1, *y).line_to(*x2, *y).stroke();
                }
            }
        }
        let foot = bytes(&format!("{title} - page {} of {count}", k + 1));
        content
            .move_to(MARGIN, MARGIN + 10.0)
            .line_to(PAGE_WIDTH - MARGIN, MARGIN + 10.0)
            .stroke()
            .begin_text()
            .set_font(Face::Regular.name(), SMALL)
            .next_line(MARGIN, MARGIN)
            .show(Str(&foot))
            .end_text();
        pdf.stream(content_id, &content.finish());
    }
    pdf.finish()
}

#[cfg(test)]
mod tests {
    use super::{Face, bytes, encode, render, width, wrap};

    #[test]
    fn text_is_encoded_for_the_standard_fonts() {
        assert_eq!(bytes("£1,000 – ‘ok’"), b"\xa31,000 \x96 \x91ok\x92");
        assert_eq!(encode('\u{2212}'), b'-');
        assert_eq!(encode('漢'), b'?');
        // Adobe's metrics: H e l v e t i c a is 722+556+222+500+556+278+222+500+556.
        assert_eq!(width(b"Helvetica", Face::Regular, 1000.0), 4112.0);
    }

    #[test]
    fn lines_wrap_at_spaces_and_inside_words_only_when_they_must() {
        let lines = wrap("the quick brown fox jumps", Face::Regular, 10.0, 60.0);
        assert!(lines.len() > 1);
        assert!(lines.iter().all(|l| width(l, Face::Regular, 10.0) <= 60.0));
        assert_eq!(lines.join(&b' '), b"the quick brown fox jumps".to_vec());
        let long = wrap(&"x".repeat(200), Face::Regular, 10.0, 100.0);
        assert!(long.len() > 1 && long.iter().all(|l| !l.is_empty()));
    }

    #[test]
    fn the_same_text_gives_the_same_bytes_and_long_text_more_pages() {
        let text = "# T\n## H\nA paragraph.\n| A | B |\n| 1 | 2 |";
        let one = render("T", text, &[("Signed by", "Ada".into())]);
        assert_eq!(one, render("T", text, &[("Signed by", "Ada".into())]));
        assert!(one.starts_with(b"%PDF-"));
        let long = format!("# T\n{}", "A paragraph that goes on.\n".repeat(200));
        let pages = |pdf: &[u8]| {
            let text = String::from_utf8_lossy(pdf);
            text.matches("/Type /Page").count() - text.matches("/Type /Pages").count()
        };
        assert!(pages(&render("T", &long, &[])) > 1);
    }
}
