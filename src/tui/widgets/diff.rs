//! A unified line diff with the changed characters inside changed lines emphasised (similar's
//! inline diff), e.g. canonical vs a distractor whose only change is `<` → `<=`.

use crate::tui::theme::Theme;
use ratatui::text::{Line, Span};
use similar::{ChangeTag, TextDiff};

/// Diff lines of `old` → `new`; unchanged lines are kept (snippets are short).
pub fn diff_lines(old: &str, new: &str, theme: &Theme) -> Vec<Line<'static>> {
    let diff = TextDiff::from_lines(old, new);
    let mut out = Vec::new();
    for op in diff.ops() {
        for change in diff.iter_inline_changes(op) {
            let (sign, base) = match change.tag() {
                ChangeTag::Delete => ("-", theme.diff_del),
                ChangeTag::Insert => ("+", theme.diff_add),
                ChangeTag::Equal => (" ", theme.dim),
            };
            let mut spans = vec![Span::styled(format!("{sign} "), base)];
            for (emph, text) in change.iter_strings_lossy() {
                let text = text.trim_end_matches(['\n', '\r']).replace('\t', "    ");
                if text.is_empty() {
                    continue;
                }
                let st = if emph {
                    base.patch(theme.diff_emph)
                } else if change.tag() == ChangeTag::Equal {
                    ratatui::style::Style::default()
                } else {
                    base
                };
                spans.push(Span::styled(text, st));
            }
            out.push(Line::from(spans));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::theme::{Theme, ThemeKind};

    #[test]
    fn marks_only_the_changed_characters() {
        let th = Theme::new(ThemeKind::Dark, true);
        let lines = diff_lines(
            "a = 1\nif a < b:\n    x\n",
            "a = 1\nif a <= b:\n    x\n",
            &th,
        );
        let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        assert_eq!(
            text,
            vec!["  a = 1", "- if a < b:", "+ if a <= b:", "      x"]
        );
        // Only the changed token is emphasised (similar's inline diff works on word tokens).
        let emph = |l: &Line| -> Vec<String> {
            l.spans
                .iter()
                .filter(|s| {
                    s.style
                        .add_modifier
                        .contains(ratatui::style::Modifier::REVERSED)
                })
                .map(|s| s.content.to_string())
                .collect()
        };
        assert_eq!(emph(&lines[1]), vec!["<"]);
        assert_eq!(emph(&lines[2]), vec!["<="]);
        assert!(emph(&lines[0]).is_empty());
    }
}
