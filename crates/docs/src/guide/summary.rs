//! The guide's table of contents, read from `SUMMARY.md` as mdBook reads it:
//! part titles (`# Title`) and chapters (`[Title](file.md)`, listed or not),
//! in reading order.

#[derive(Debug, PartialEq, Eq)]
pub enum Entry {
    Part(String),
    Chapter { title: String, file: String },
}

pub fn parse(summary: &str) -> Vec<Entry> {
    summary
        .lines()
        .map(str::trim)
        .filter_map(|line| {
            if let Some(title) = line.strip_prefix("# ") {
                // The first heading is the file's own title, not a part.
                return (title != "Summary").then(|| Entry::Part(title.to_owned()));
            }
            let link = line.trim_start_matches(['-', '*', ' ']);
            let (title, rest) = link.strip_prefix('[')?.split_once("](")?;
            let file = rest.strip_suffix(')')?;
            Some(Entry::Chapter {
                title: title.to_owned(),
                file: file.to_owned(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_and_chapters_in_order() {
        let entries =
            parse("# Summary\n\n[Intro](intro.md)\n\n# Using\n\n- [A](a.md)\n  - [B](b.md)\n");
        assert_eq!(
            entries,
            vec![
                Entry::Chapter {
                    title: "Intro".into(),
                    file: "intro.md".into()
                },
                Entry::Part("Using".into()),
                Entry::Chapter {
                    title: "A".into(),
                    file: "a.md".into()
                },
                Entry::Chapter {
                    title: "B".into(),
                    file: "b.md".into()
                },
            ]
        );
    }
}
