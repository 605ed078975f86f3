//! Colours. Only the 16 ANSI colours are used so the dashboard reads the same on a projector, a
//! 16-colour console and a true-colour terminal; `NO_COLOR` drops colour entirely and keeps the
//! distinctions with bold / reverse / underline.

use ratatui::style::{Color, Modifier, Style};

/// Which palette.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Deserialize)]
pub enum ThemeKind {
    #[default]
    Dark,
    Light,
    /// For a projector: white on black, bright colours only (no dark grey), the selection in
    /// reverse video (black on white) so no coloured glyph sits on a coloured background.
    HighContrast,
}

impl ThemeKind {
    /// Every palette, in the order `T` cycles through them.
    pub const ALL: [ThemeKind; 3] = [ThemeKind::Dark, ThemeKind::Light, ThemeKind::HighContrast];

    /// The name `--theme` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            ThemeKind::Dark => "dark",
            ThemeKind::Light => "light",
            ThemeKind::HighContrast => "high-contrast",
        }
    }
}

impl std::str::FromStr for ThemeKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ThemeKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| format!("unknown theme {s:?} (dark, light, high-contrast)"))
    }
}

/// The resolved styles every pane draws with.
#[derive(Clone, Debug, PartialEq)]
pub struct Theme {
    pub kind: ThemeKind,
    /// `NO_COLOR` is set: no colours at all.
    pub mono: bool,
    pub base: Style,
    pub dim: Style,
    pub accent: Style,
    pub title: Style,
    pub header: Style,
    pub selected: Style,
    /// The selected row of a list that does not have the focus.
    pub selected_unfocused: Style,
    pub good: Style,
    pub bad: Style,
    pub warn: Style,
    pub bar: Style,
    pub bar_alt: Style,
    pub best: Style,
    pub tab_active: Style,
    pub diff_del: Style,
    pub diff_add: Style,
    pub diff_emph: Style,
}

impl Theme {
    pub fn new(kind: ThemeKind, mono: bool) -> Theme {
        let c = |col: Color| {
            if mono {
                Style::default()
            } else {
                Style::default().fg(col)
            }
        };
        let (fg, bg, dim, accent, bar_alt) = match kind {
            ThemeKind::Dark => (
                Color::Reset,
                Color::Reset,
                Color::DarkGray,
                Color::Cyan,
                Color::Magenta,
            ),
            ThemeKind::Light => (
                Color::Black,
                Color::White,
                Color::DarkGray,
                Color::Blue,
                Color::Magenta,
            ),
            ThemeKind::HighContrast => (
                Color::White,
                Color::Black,
                Color::Gray,
                Color::LightCyan,
                Color::LightMagenta,
            ),
        };
        let base = if mono {
            Style::default()
        } else {
            Style::default().fg(fg).bg(bg)
        };
        let selected = if mono {
            Style::default().add_modifier(Modifier::REVERSED)
        } else {
            match kind {
                ThemeKind::Dark => Style::default().bg(Color::Blue).fg(Color::White),
                ThemeKind::Light => Style::default().bg(Color::Cyan).fg(Color::Black),
                // Reverse video: every span's own colour becomes its background, so a red ✗
                // on a selected row is a red block, never red on blue.
                ThemeKind::HighContrast => Style::default().add_modifier(Modifier::REVERSED),
            }
            .add_modifier(Modifier::BOLD)
        };
        Theme {
            kind,
            mono,
            base,
            dim: if mono {
                Style::default().add_modifier(Modifier::DIM)
            } else {
                Style::default().fg(dim)
            },
            accent: c(accent).add_modifier(Modifier::BOLD),
            title: c(accent).add_modifier(Modifier::BOLD),
            header: c(accent).add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
            selected,
            selected_unfocused: Style::default().add_modifier(Modifier::UNDERLINED),
            good: c(match kind {
                ThemeKind::HighContrast => Color::LightGreen,
                _ => Color::Green,
            }),
            bad: c(match kind {
                ThemeKind::HighContrast => Color::LightRed,
                _ => Color::Red,
            }),
            warn: c(match kind {
                ThemeKind::Dark => Color::Yellow,
                ThemeKind::Light => Color::Magenta,
                ThemeKind::HighContrast => Color::LightYellow,
            }),
            bar: c(accent),
            bar_alt: c(bar_alt),
            best: Style::default().add_modifier(Modifier::BOLD),
            tab_active: if mono {
                Style::default().add_modifier(Modifier::REVERSED | Modifier::BOLD)
            } else {
                Style::default()
                    .fg(Color::Black)
                    .bg(accent)
                    .add_modifier(Modifier::BOLD)
            },
            diff_del: c(Color::Red),
            diff_add: c(Color::Green),
            diff_emph: Style::default().add_modifier(Modifier::REVERSED | Modifier::BOLD),
        }
    }

    /// The theme named on the command line, honouring `NO_COLOR` (any non-empty value).
    pub fn from_env(kind: ThemeKind) -> Theme {
        let mono = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Theme::new(kind, mono)
    }

    /// The next palette `T` switches to: dark → light → high contrast → dark.
    pub fn toggled(&self) -> Theme {
        let all = ThemeKind::ALL;
        let i = all.iter().position(|k| *k == self.kind).unwrap_or(0);
        Theme::new(all[(i + 1) % all.len()], self.mono)
    }

    /// Heat-map cell style for a value in [0, 1] (five steps, 16 colours; bold in mono).
    pub fn heat(&self, v: f64) -> Style {
        if self.mono || !v.is_finite() {
            return if v >= 0.8 {
                Style::default().add_modifier(Modifier::BOLD)
            } else {
                Style::default()
            };
        }
        let (bg, fg) = match v {
            x if x >= 0.8 => (Color::Green, Color::Black),
            x if x >= 0.6 => (Color::Cyan, Color::Black),
            x if x >= 0.4 => (Color::Yellow, Color::Black),
            x if x >= 0.2 => (Color::Magenta, Color::White),
            _ => (Color::Red, Color::White),
        };
        Style::default().bg(bg).fg(fg)
    }

    /// Style of a p-value cell: strong evidence stands out, large p is dim.
    pub fn p_value(&self, p: Option<f64>) -> Style {
        match p {
            Some(p) if p < 0.001 => self.bad.add_modifier(Modifier::BOLD),
            Some(p) if p < 0.01 => self.warn.add_modifier(Modifier::BOLD),
            Some(p) if p < 0.05 => self.warn,
            Some(_) => self.dim,
            None => Style::default(),
        }
    }

    /// Map a true-colour syntax colour to the nearest of the 16 ANSI colours, so highlighting
    /// stays legible (and consistent with the rest of the screen) in 16-colour terminals.
    pub fn ansi16(&self, r: u8, g: u8, b: u8) -> Color {
        const PALETTE: [(Color, [i32; 3]); 14] = [
            (Color::Red, [205, 49, 49]),
            (Color::Green, [13, 188, 121]),
            (Color::Yellow, [229, 229, 16]),
            (Color::Blue, [36, 114, 200]),
            (Color::Magenta, [188, 63, 188]),
            (Color::Cyan, [17, 168, 205]),
            (Color::Gray, [204, 204, 204]),
            (Color::DarkGray, [118, 118, 118]),
            (Color::LightRed, [241, 76, 76]),
            (Color::LightGreen, [35, 209, 139]),
            (Color::LightYellow, [245, 245, 67]),
            (Color::LightBlue, [59, 142, 234]),
            (Color::LightMagenta, [214, 112, 214]),
            (Color::LightCyan, [41, 184, 219]),
        ];
        let (r, g, b) = (i32::from(r), i32::from(g), i32::from(b));
        // Near-grey colours are text: keep the terminal's own foreground.
        let (mx, mn) = (r.max(g).max(b), r.min(g).min(b));
        if mx - mn < 40 {
            return Color::Reset;
        }
        PALETTE
            .iter()
            .min_by_key(|(_, p)| (p[0] - r).pow(2) + (p[1] - g).pow(2) + (p[2] - b).pow(2))
            .map_or(Color::Reset, |(c, _)| match (self.kind, c) {
                // On a white background the light variants wash out.
                (ThemeKind::Light, Color::LightYellow | Color::Yellow) => Color::Magenta,
                (ThemeKind::Light, Color::LightGreen) => Color::Green,
                (ThemeKind::Light, Color::LightCyan) => Color::Blue,
                _ => *c,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn high_contrast_has_no_dim_grey_and_selects_in_reverse_video() {
        let t = Theme::new(ThemeKind::HighContrast, false);
        for c in colors(&t).into_iter().flatten() {
            assert_ne!(
                c,
                Color::DarkGray,
                "low-contrast grey in the projector theme"
            );
        }
        assert_eq!(t.base.bg, Some(Color::Black));
        assert_eq!(t.base.fg, Some(Color::White));
        assert!(t.selected.add_modifier.contains(Modifier::REVERSED));
        assert_eq!(t.selected.bg, None, "no coloured selection background");
        // `T` cycles through every palette and back.
        let mut k = Theme::new(ThemeKind::Dark, false);
        let mut seen = Vec::new();
        for _ in 0..ThemeKind::ALL.len() {
            k = k.toggled();
            seen.push(k.kind);
        }
        assert_eq!(
            seen,
            [ThemeKind::Light, ThemeKind::HighContrast, ThemeKind::Dark]
        );
        assert_eq!(
            "high-contrast".parse::<ThemeKind>(),
            Ok(ThemeKind::HighContrast)
        );
    }

    fn colors(t: &Theme) -> Vec<Option<Color>> {
        [
            t.base,
            t.dim,
            t.accent,
            t.title,
            t.header,
            t.selected,
            t.good,
            t.bad,
            t.warn,
            t.bar,
            t.bar_alt,
            t.tab_active,
            t.diff_del,
            t.diff_add,
            t.heat(0.9),
            t.heat(0.1),
            t.p_value(Some(0.0001)),
        ]
        .iter()
        .flat_map(|s| [s.fg, s.bg])
        .collect()
    }

    #[test]
    fn only_the_16_ansi_colours_and_none_under_no_color() {
        for kind in ThemeKind::ALL {
            for c in colors(&Theme::new(kind, false)).into_iter().flatten() {
                assert!(
                    !matches!(c, Color::Rgb(..) | Color::Indexed(_)),
                    "{kind:?}: {c:?}"
                );
            }
            let mono = Theme::new(kind, true);
            assert!(colors(&mono)
                .iter()
                .all(|c| c.is_none() || *c == Some(Color::Reset)));
            // Syntax colours map onto the palette too.
            assert!(!matches!(mono.ansi16(200, 30, 30), Color::Rgb(..)));
        }
        assert_eq!(
            Theme::new(ThemeKind::Dark, false).ansi16(205, 49, 49),
            Color::Red
        );
        assert_eq!(
            Theme::new(ThemeKind::Dark, false).ansi16(128, 128, 130),
            Color::Reset
        );
    }
}
