//! Python source with syntect highlighting, mapped to ratatui spans in the theme's 16 colours.
//!
//! Loading syntect's syntax and theme sets takes tens of milliseconds, so it happens once, lazily,
//! and `warm_up` lets the runner do it on a background thread before the first snippet is shown.

use crate::tui::theme::{Theme, ThemeKind};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use std::sync::OnceLock;
use syntect::easy::HighlightLines;
use syntect::highlighting::{FontStyle, ThemeSet};
use syntect::parsing::SyntaxSet;

struct Sets {
    syntaxes: SyntaxSet,
    themes: ThemeSet,
}

fn sets() -> &'static Sets {
    static SETS: OnceLock<Sets> = OnceLock::new();
    SETS.get_or_init(|| Sets {
        syntaxes: SyntaxSet::load_defaults_newlines(),
        themes: ThemeSet::load_defaults(),
    })
}

/// Load the syntax definitions now (call from a background thread at start-up).
pub fn warm_up() {
    let _ = sets();
}

/// Highlighted lines of `code` (Python). Without colour (`NO_COLOR`) only bold/italic remain.
pub fn highlight(code: &str, theme: &Theme) -> Vec<Line<'static>> {
    let s = sets();
    let Some(syntax) = s.syntaxes.find_syntax_by_extension("py") else {
        return plain(code);
    };
    let name = match theme.kind {
        ThemeKind::Dark | ThemeKind::HighContrast => "base16-ocean.dark",
        ThemeKind::Light => "InspiredGitHub",
    };
    let Some(st) = s.themes.themes.get(name) else {
        return plain(code);
    };
    let mut h = HighlightLines::new(syntax, st);
    let mut out = Vec::new();
    for line in syntect::util::LinesWithEndings::from(code) {
        let Ok(regions) = h.highlight_line(line, &s.syntaxes) else {
            return plain(code);
        };
        let spans: Vec<Span<'static>> = regions
            .into_iter()
            .map(|(style, text)| {
                let mut st = Style::default();
                if !theme.mono {
                    let c = style.foreground;
                    st = st.fg(theme.ansi16(c.r, c.g, c.b));
                }
                if style.font_style.contains(FontStyle::BOLD) {
                    st = st.add_modifier(Modifier::BOLD);
                }
                if style.font_style.contains(FontStyle::ITALIC) {
                    st = st.add_modifier(Modifier::ITALIC);
                }
                Span::styled(
                    text.trim_end_matches(['\n', '\r']).replace('\t', "    "),
                    st,
                )
            })
            .collect();
        out.push(Line::from(spans));
    }
    out
}

fn plain(code: &str) -> Vec<Line<'static>> {
    code.lines()
        .map(|l| Line::from(l.replace('\t', "    ")))
        .collect()
}

/// Prefix each line with its 1-based number.
pub fn numbered(lines: Vec<Line<'static>>, theme: &Theme) -> Vec<Line<'static>> {
    lines
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            let mut spans = vec![Span::styled(format!("{:>3} ", i + 1), theme.dim)];
            spans.extend(l.spans);
            Line::from(spans)
        })
        .collect()
}
