//! Which characters text lendhub accepts, keeps or shows may hold.

/// Characters no field of a request may hold, and that text received from
/// elsewhere (a webhook receiver's answer) has replaced before it is shown:
/// the C0 controls but tab and line breaks, DEL and the C1 controls, and
/// the bidirectional overrides and isolates, each of which hides what a
/// value says when it is logged, echoed or displayed.
pub fn refused_char(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `raw` with each refused character shown as a space.
pub fn shown(raw: &str) -> String {
    raw.chars()
        .map(|c| if refused_char(c) { ' ' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_overrides_are_refused_and_text_is_not() {
        for c in [
            '\u{0}', '\u{1b}', '\u{7f}', '\u{85}', '\u{202e}', '\u{2066}',
        ] {
            assert!(refused_char(c), "{c:?}");
        }
        for c in ['a', '\t', '\n', '\r', 'é', '£', '😀', '\u{200d}'] {
            assert!(!refused_char(c), "{c:?}");
        }
        assert_eq!(shown("ok\u{1b}[31m\u{202e}done\n"), "ok [31m done\n");
    }
}
