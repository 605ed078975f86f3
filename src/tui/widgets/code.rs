//! A snippet's source with syntect highlighting in its language ([`crate::highlight`], shared
//! with every front end that shows code), mapped to ratatui spans in the theme's 16 colours.
//!
//! Loading syntect's syntax and theme sets takes tens of milliseconds, so it happens once, lazily,
//! and `warm_up` lets the runner do it on a background thread before the first snippet is shown.

use crate::record::Language;
use crate::tui::theme::{Theme, ThemeKind};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use syntect::highlighting::FontStyle;

/// Load the syntax definitions now (call from a background thread at start-up).
pub fn warm_up() {
    crate::highlight::warm_up();
}

/// Highlighted lines of `code`, written in `lang`. Without colour (`NO_COLOR`) only bold/italic
/// remain; a text the syntax fails on is shown plain.
pub fn highlight(code: &str, lang: Language, theme: &Theme) -> Vec<Line<'static>> {
    let name = match theme.kind {
        ThemeKind::Dark | ThemeKind::HighContrast => "base16-ocean.dark",
        ThemeKind::Light => "InspiredGitHub",
    };
    let Some(lines) = crate::highlight::highlight(code, lang, name) else {
        return plain(code);
    };
    lines
        .into_iter()
        .map(|regions| {
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
                    Span::styled(text, st)
                })
                .collect();
            Line::from(spans)
        })
        .collect()
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
