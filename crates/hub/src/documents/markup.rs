//! The documents' markup: what a versioned template renders, and what is
//! stored and hashed when an agreement is signed. Deliberately tiny, so
//! that the page and the PDF show the same text from one parse:
//!
//! - `# Title` and `## Heading`, each on its own line;
//! - `- item`: consecutive lines make one list;
//! - `| a | b |`: consecutive lines make one table, the first its header;
//! - any other line is a paragraph.

/// One block of a document, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Block {
    Title(String),
    Heading(String),
    Paragraph(String),
    List(Vec<String>),
    /// The header row, then the body's rows.
    Table(Vec<String>, Vec<Vec<String>>),
}

pub fn parse(text: &str) -> Vec<Block> {
    let mut blocks: Vec<Block> = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(t) = line.strip_prefix("## ") {
            blocks.push(Block::Heading(t.to_owned()));
        } else if let Some(t) = line.strip_prefix("# ") {
            blocks.push(Block::Title(t.to_owned()));
        } else if let Some(item) = line.strip_prefix("- ") {
            match blocks.last_mut() {
                Some(Block::List(items)) => items.push(item.to_owned()),
                _ => blocks.push(Block::List(vec![item.to_owned()])),
            }
        } else if line.starts_with('|') && line.ends_with('|') && line.len() > 1 {
            let cells: Vec<String> = line[1..line.len() - 1]
                .split('|')
                .map(|c| c.trim().to_owned())
                .collect();
            match blocks.last_mut() {
                Some(Block::Table(_, rows)) => rows.push(cells),
                _ => blocks.push(Block::Table(cells, Vec::new())),
            }
        } else {
            blocks.push(Block::Paragraph(line.to_owned()));
        }
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::{Block, parse};

    #[test]
    fn blocks_are_read_line_by_line() {
        let text =
            "# Loan\nIntro.\n## 1. Parties\n| A | B |\n| 1 | £2 |\n| 3 | 4 |\n- one\n- two\n\nEnd.";
        assert_eq!(
            parse(text),
            vec![
                Block::Title("Loan".into()),
                Block::Paragraph("Intro.".into()),
                Block::Heading("1. Parties".into()),
                Block::Table(
                    vec!["A".into(), "B".into()],
                    vec![vec!["1".into(), "£2".into()], vec!["3".into(), "4".into()]]
                ),
                Block::List(vec!["one".into(), "two".into()]),
                Block::Paragraph("End.".into()),
            ]
        );
    }
}
