//! The string pairs a partner keeps on an object (`metadata`), returned
//! verbatim: the seed's 20 pairs, with lendhub's key and value lengths. One
//! rule for every object that carries them.

use std::collections::BTreeMap;

use crate::problem::Problem;

pub const MAX_METADATA: usize = 20;
pub const MAX_METADATA_KEY: usize = 40;
pub const MAX_METADATA_VALUE: usize = 500;

/// Too many pairs (`max_pairs`, with the bound), then each pair in key
/// order: an empty or long key (`key_length`), a long value (`max_length`).
pub fn check(m: &BTreeMap<String, String>) -> Vec<Problem> {
    let mut problems = Vec::new();
    if m.len() > MAX_METADATA {
        problems.push(Problem::bounded(
            "metadata",
            "max_pairs",
            MAX_METADATA as i64,
        ));
    }
    for (k, v) in m {
        if k.is_empty() || k.chars().count() > MAX_METADATA_KEY {
            problems.push(Problem::new(format!("metadata.{k}"), "key_length"));
        }
        if v.chars().count() > MAX_METADATA_VALUE {
            problems.push(Problem::new(format!("metadata.{k}"), "max_length"));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reasons(m: &BTreeMap<String, String>) -> Vec<(String, &'static str)> {
        check(m).into_iter().map(|p| (p.field, p.reason)).collect()
    }

    #[test]
    fn pairs_keys_and_values_have_their_bounds() {
        let ok: BTreeMap<_, _> = (0..MAX_METADATA)
            .map(|i| (format!("{i:0>40}"), "v".repeat(MAX_METADATA_VALUE)))
            .collect();
        assert!(check(&ok).is_empty());
        let mut over = ok.clone();
        over.insert("x".into(), String::new());
        assert_eq!(
            check(&over),
            vec![Problem::bounded("metadata", "max_pairs", 20)]
        );
        let bad = BTreeMap::from([
            (String::new(), "v".into()),
            ("k".repeat(41), "v".into()),
            ("long".into(), "v".repeat(501)),
        ]);
        assert_eq!(
            reasons(&bad),
            vec![
                ("metadata.".into(), "key_length"),
                (format!("metadata.{}", "k".repeat(41)), "key_length"),
                ("metadata.long".into(), "max_length"),
            ]
        );
    }
}
