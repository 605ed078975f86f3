//! Fitting labels into a width without cutting them silently: a label that does not fit is
//! shortened at a word boundary where possible and ends in `…`, so the reader sees it was
//! abbreviated (panes that abbreviate system names also show a legend).

use ratatui::style::Style;
use ratatui::text::{Line, Span};

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

/// `s` in at most `w` characters, shortened in the middle (`off_by…ndary`) so that names sharing
/// a prefix stay apart: the head keeps as many characters as the tail, or one more.
pub fn fit_middle(s: &str, w: usize) -> String {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() <= w {
        return s.to_string();
    }
    if w < 5 {
        return fit(s, w);
    }
    let tail = (w - 1) / 2;
    let head = w - 1 - tail;
    let mut out: String = chars[..head].iter().collect();
    out.push('…');
    out.extend(&chars[chars.len() - tail..]);
    out
}

/// Padded (left-aligned) to exactly `w` characters after [`fit`].
pub fn fit_pad(s: &str, w: usize) -> String {
    let t = fit(s, w);
    let pad = w.saturating_sub(t.chars().count());
    format!("{t}{}", " ".repeat(pad))
}

/// Spans in at most `w` columns: whole spans while they fit; the first that does not is shortened
/// with [`fit`] (at a word boundary where possible, ending in `…`) when at least 4 columns are
/// left, and everything after it is dropped. Nothing runs off the edge cut mid-word.
pub fn fit_spans(spans: Vec<Span<'static>>, w: usize) -> Vec<Span<'static>> {
    let mut out = Vec::new();
    let mut used = 0;
    for s in spans {
        let n = s.content.chars().count();
        if used + n <= w {
            used += n;
            out.push(s);
            continue;
        }
        let room = w - used;
        // A trailing space is only a separator: drop it before shortening.
        let text = s.content.trim_end();
        if text.chars().count() <= room {
            out.push(Span::styled(text.to_string(), s.style));
        } else if room >= 4 {
            out.push(Span::styled(fit(text, room), s.style));
        }
        break;
    }
    out
}

/// `s` wrapped at spaces into lines of at most `w` characters (a word longer than `w` is split).
pub fn wrap_words(s: &str, w: usize) -> Vec<String> {
    let w = w.max(1);
    let mut lines = Vec::new();
    let mut cur = String::new();
    for word in s.split_whitespace() {
        let mut word: Vec<char> = word.chars().collect();
        while word.len() > w {
            if !cur.is_empty() {
                lines.push(std::mem::take(&mut cur));
            }
            lines.push(word.drain(..w).collect());
        }
        let word: String = word.into_iter().collect();
        let n = cur.chars().count();
        if n > 0 && n + 1 + word.chars().count() > w {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(&word);
    }
    if !cur.is_empty() || lines.is_empty() {
        lines.push(cur);
    }
    lines
}

/// Paragraphs (text, style) wrapped at spaces into at most `h` lines of at most `w` characters.
/// When they need more, the last line shown ends in `…` (shortened at a word boundary), so
/// text that does not fit never stops silently mid-sentence.
pub fn wrap_clip(paras: &[(String, Style)], w: usize, h: usize) -> Vec<Line<'static>> {
    let mut lines: Vec<(String, Style)> = paras
        .iter()
        .flat_map(|(t, st)| wrap_words(t, w).into_iter().map(move |l| (l, *st)))
        .collect();
    if lines.len() > h {
        let rest = lines[h..]
            .iter()
            .map(|(l, _)| l.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        lines.truncate(h);
        if let Some((last, _)) = lines.last_mut() {
            *last = fit(&format!("{last} {rest}"), w);
        }
    }
    lines
        .into_iter()
        .map(|(l, st)| Line::styled(l, st))
        .collect()
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

/// Seconds as `7s`, `1m05s`.
pub fn clock(s: u64) -> String {
    if s < 60 {
        format!("{s}s")
    } else {
        format!("{}m{:02}s", s / 60, s % 60)
    }
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

    #[test]
    fn fit_spans_by_hand() {
        let text = |v: &[Span]| v.iter().map(|s| s.content.to_string()).collect::<String>();
        let s = || {
            vec![
                Span::raw(" tiny "),
                Span::raw("edited c_0001 under toy-cos "),
            ]
        };
        assert_eq!(
            text(&fit_spans(s(), 80)),
            " tiny edited c_0001 under toy-cos "
        );
        // Cut at the word boundary with an ellipsis, never mid-word.
        assert_eq!(text(&fit_spans(s(), 27)), " tiny edited c_0001 under…");
        assert_eq!(text(&fit_spans(s(), 22)), " tiny edited c_0001…");
        // Too little room for a shortened span: it is dropped whole.
        assert_eq!(text(&fit_spans(s(), 8)), " tiny ");
        // A span that fits once its separator space is dropped is kept whole.
        assert_eq!(
            text(&fit_spans(s(), 33)),
            " tiny edited c_0001 under toy-cos"
        );
    }

    #[test]
    fn wrap_clip_by_hand() {
        let st = Style::default();
        let text = |v: &[Line]| v.iter().map(|l| l.to_string()).collect::<Vec<_>>();
        let paras = [
            ("one two three".to_string(), st),
            ("four five six seven".to_string(), st),
        ];
        // Room for all: wrapped, nothing added.
        assert_eq!(
            text(&wrap_clip(&paras, 9, 10)),
            ["one two", "three", "four five", "six seven"]
        );
        // Two rows: the second ends in `…` at a word boundary.
        assert_eq!(text(&wrap_clip(&paras, 9, 2)), ["one two", "three…"]);
        assert_eq!(
            text(&wrap_clip(&paras, 9, 3)),
            ["one two", "three", "four…"]
        );
        assert!(wrap_clip(&paras, 9, 0).is_empty());
    }

    #[test]
    fn wrap_words_by_hand() {
        assert_eq!(
            wrap_words("Move the focus to the ranking", 12),
            ["Move the", "focus to the", "ranking"]
        );
        assert_eq!(wrap_words("abcdefgh ij", 3), ["abc", "def", "gh", "ij"]);
        assert_eq!(wrap_words("", 5), [""]);
        for w in 1..20 {
            for l in wrap_words("Fuzzy-filter the query list (id, domain, function)", w) {
                assert!(l.chars().count() <= w, "{l:?} > {w}");
            }
        }
    }

    #[test]
    fn fit_middle_keeps_both_ends() {
        use super::fit_middle;
        assert_eq!(fit_middle("off_by_one_boundary", 13), "off_by…undary");
        assert_eq!(fit_middle("off_by_one", 13), "off_by_one");
        assert_ne!(
            fit_middle("off_by_one_boundary", 10),
            fit_middle("off_by_one_loop", 10)
        );
        assert_eq!(fit_middle("abcdef", 4), "abc…");
    }
}
