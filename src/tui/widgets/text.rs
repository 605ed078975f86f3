//! Fitting labels into a width without cutting them silently: a label that does not fit is
//! shortened at a word boundary where possible and ends in `…`, so the reader sees it was
//! abbreviated (panes that abbreviate system names also show a legend).

/// `s` in at most `w` characters: unchanged when it fits, otherwise shortened with a trailing `…`
/// (at the last `-`, `_`, ` ` or `/` boundary that keeps at least half the width, else mid-word).
pub fn fit(s: &str, w: usize) -> String {
    let n = s.chars().count();
    if n <= w {
        return s.to_string();
    }
    if w == 0 {
        return String::new();
    }
    if w == 1 {
        return "…".to_string();
    }
    let head: Vec<char> = s.chars().take(w - 1).collect();
    let cut = head
        .iter()
        .rposition(|c| matches!(c, '-' | '_' | ' ' | '/'))
        .filter(|&i| i >= (w - 1) / 2)
        .unwrap_or(head.len());
    let mut out: String = head[..cut].iter().collect();
    out.push('…');
    out
}

/// Padded (left-aligned) to exactly `w` characters after [`fit`].
pub fn fit_pad(s: &str, w: usize) -> String {
    let t = fit(s, w);
    let pad = w.saturating_sub(t.chars().count());
    format!("{t}{}", " ".repeat(pad))
}

/// Short distinct labels for a list of names: `A`, `B`, … for a legend when the names do not fit.
pub fn letter(i: usize) -> String {
    let mut i = i;
    let mut s = String::new();
    loop {
        s.insert(0, (b'A' + (i % 26) as u8) as char);
        if i < 26 {
            break;
        }
        i = i / 26 - 1;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_by_hand() {
        assert_eq!(fit("bm25", 8), "bm25");
        assert_eq!(fit("all-MiniLM-L6-v2", 12), "all-MiniLM…");
        assert_eq!(fit("abcdefghij", 5), "abcd…");
        assert_eq!(fit("abc", 1), "…");
        assert_eq!(fit_pad("ab", 4), "ab  ");
        assert!(fit("multilingual-e5-small", 10).chars().count() <= 10);
        assert_eq!(
            (letter(0), letter(25), letter(26)),
            ("A".into(), "Z".into(), "AA".into())
        );
    }
}
