//! The guide's link check, run by `cargo test`: every chapter SUMMARY.md
//! lists exists, every source is listed, and every link between chapters,
//! to a heading, or to an image lands.

use std::collections::HashMap;

use super::markdown::is_external;
use super::*;

#[test]
fn every_chapter_is_listed_and_every_listed_chapter_exists() {
    let book = Book::load();
    let summary = std::str::from_utf8(source("SUMMARY.md").unwrap_or_default()).unwrap_or("");
    let listed: Vec<String> = summary::parse(summary)
        .into_iter()
        .filter_map(|e| match e {
            Entry::Chapter { file, .. } => Some(file),
            Entry::Part(_) => None,
        })
        .collect();
    let found: Vec<&str> = book.chapters.iter().map(|c| c.file.as_str()).collect();
    assert_eq!(listed, found, "SUMMARY.md names a chapter the sources lack");
    for (name, _) in files::FILES {
        if name.ends_with(".md") && *name != "SUMMARY.md" {
            assert!(
                listed.iter().any(|l| l == name),
                "{name} is not in SUMMARY.md"
            );
        }
    }
    assert!(book.chapters.len() > 20, "{}", book.chapters.len());
}

#[test]
fn every_link_lands() {
    let book = Book::load();
    let ids: HashMap<&str, Vec<String>> = book
        .chapters
        .iter()
        .map(|c| (c.file.as_str(), c.rendered().ids.clone()))
        .collect();
    let mut broken = Vec::new();
    for chapter in &book.chapters {
        for target in &chapter.rendered().targets {
            if let Some(fragment) = target.strip_prefix('#') {
                if !ids[chapter.file.as_str()].iter().any(|id| id == fragment) {
                    broken.push(format!("{}: {target}", chapter.file));
                }
                continue;
            }
            if is_external(target) {
                continue;
            }
            let (path, fragment) = target
                .split_once('#')
                .map_or((target.as_str(), None), |(p, f)| (p, Some(f)));
            let lands = match ids.get(path) {
                Some(headings) => fragment.is_none_or(|f| headings.iter().any(|id| id == f)),
                None => book.asset(path).is_some(),
            };
            if !lands {
                broken.push(format!("{}: {target}", chapter.file));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "broken links in the guide:\n{}",
        broken.join("\n")
    );
}
