//! The export key: the current pane, drawn at the size it has on screen, written as an SVG
//! (every cell's colours, bold and underline kept) and as markdown (the pane's report tables,
//! then the screen as text), both atomically, for slides. The main loop runs it when the app
//! asks (`Request::Export`): it draws, so it stands above the app, never called by it.

use super::app::{App, Exported, Reply};
use super::theme::ThemeKind;
use super::view::Hits;
use crate::atomic::write_atomic;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use ratatui::widgets::Block;
use ratatui::Terminal;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// Size used when nothing was drawn yet (headless use).
const FALLBACK: (u16, u16) = (120, 40);

/// Export the active pane into the export directory (the current one unless set): the
/// answer to [`crate::tui::app::Request::Export`], timed.
pub fn export_active(app: &App) -> Reply {
    let dir = app
        .shared
        .export_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from("."));
    let t0 = std::time::Instant::now();
    let result = export_to(app, &dir);
    Reply::Exported {
        result,
        secs: t0.elapsed().as_secs_f64(),
    }
}

/// Write `execscope-<pane>-<n>.svg` and `.md` (the first `n` free) into `dir`.
pub fn export_to(app: &App, dir: &Path) -> std::io::Result<Option<Exported>> {
    if app.data.is_none() {
        return Ok(None);
    }
    let body = app.hits.body();
    let (w, h) = if body.width > 0 && body.height > 0 {
        (body.width, body.height)
    } else {
        FALLBACK
    };
    let buf = render_pane(app, w, h);
    let pane = &app.panes[app.tab];
    let title = format!("{} — execscope, {}", pane.title(), app.bundle_name);
    let svg = buffer_svg(&buf, app.settings.theme.kind, &title);
    let mut md = format!("# {title}\n\n");
    let hits = Hits::default();
    let mut v = app.view();
    v.hits = &hits;
    for t in pane.export_tables(&v) {
        md.push_str(&t.to_markdown());
        md.push('\n');
    }
    md.push_str("```text\n");
    md.push_str(&buffer_text(&buf));
    md.push_str("```\n");
    let stem = (1..)
        .map(|n| format!("execscope-{}-{n}", pane.kind().file_stem()))
        .find(|s| !dir.join(format!("{s}.svg")).exists() && !dir.join(format!("{s}.md")).exists())
        .expect("an unused name");
    let out = Exported {
        svg: dir.join(format!("{stem}.svg")),
        markdown: dir.join(format!("{stem}.md")),
    };
    write_atomic(&out.svg, svg.as_bytes())?;
    write_atomic(&out.markdown, md.as_bytes())?;
    Ok(Some(out))
}

/// The current pane alone, drawn into a `w` × `h` buffer (clickable regions go to a scratch
/// list, not the app's).
pub fn render_pane(app: &App, w: u16, h: u16) -> Buffer {
    let mut term = Terminal::new(TestBackend::new(w, h)).expect("an in-memory terminal");
    let hits = Hits::default();
    let mut v = app.view();
    v.hits = &hits;
    term.draw(|f| {
        f.render_widget(Block::default().style(app.settings.theme.base), f.area());
        app.panes[app.tab].draw(f, f.area(), &v);
    })
    .expect("drawing into memory");
    term.backend().buffer().clone()
}

/// The buffer's text, one line per row, trailing blanks trimmed.
pub fn buffer_text(buf: &Buffer) -> String {
    let mut out = String::new();
    for y in 0..buf.area.height {
        let line: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Cell size in SVG pixels and the font size.
const CW: f64 = 8.5;
const CH: f64 = 17.0;
const FONT_PX: f64 = 14.0;

/// Colours of the 16 ANSI names (a palette readable on a projector).
const ANSI: [&str; 16] = [
    "#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
    "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff",
];

/// A terminal colour as SVG hex; `None` for the default (`Reset`).
pub fn colour_hex(c: Color) -> Option<String> {
    let ansi = |i: usize| Some(ANSI[i].to_string());
    match c {
        Color::Reset => None,
        Color::Black => ansi(0),
        Color::Red => ansi(1),
        Color::Green => ansi(2),
        Color::Yellow => ansi(3),
        Color::Blue => ansi(4),
        Color::Magenta => ansi(5),
        Color::Cyan => ansi(6),
        Color::Gray => ansi(7),
        Color::DarkGray => ansi(8),
        Color::LightRed => ansi(9),
        Color::LightGreen => ansi(10),
        Color::LightYellow => ansi(11),
        Color::LightBlue => ansi(12),
        Color::LightMagenta => ansi(13),
        Color::LightCyan => ansi(14),
        Color::White => ansi(15),
        Color::Rgb(r, g, b) => Some(format!("#{r:02x}{g:02x}{b:02x}")),
        Color::Indexed(i) => Some(match i {
            0..=15 => ANSI[i as usize].to_string(),
            16..=231 => {
                let i = i - 16;
                let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
                format!(
                    "#{:02x}{:02x}{:02x}",
                    level(i / 36),
                    level((i / 6) % 6),
                    level(i % 6)
                )
            }
            _ => {
                let g = 8 + 10 * (i - 232);
                format!("#{g:02x}{g:02x}{g:02x}")
            }
        }),
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// How one cell looks once the theme's defaults and `REVERSED` are resolved.
#[derive(Clone, PartialEq)]
struct Look {
    fg: String,
    bg: String,
    bold: bool,
    underline: bool,
    dim: bool,
}

fn look(cell: &ratatui::buffer::Cell, kind: ThemeKind) -> Look {
    let (dfg, dbg) = match kind {
        ThemeKind::Dark => ("#d0d0d0", "#1c1c1c"),
        ThemeKind::Light => ("#000000", "#ffffff"),
        ThemeKind::HighContrast => ("#ffffff", "#000000"),
    };
    let mut fg = colour_hex(cell.fg).unwrap_or_else(|| dfg.to_string());
    let mut bg = colour_hex(cell.bg).unwrap_or_else(|| dbg.to_string());
    let m = cell.modifier;
    if m.contains(Modifier::REVERSED) {
        std::mem::swap(&mut fg, &mut bg);
    }
    Look {
        fg,
        bg,
        bold: m.contains(Modifier::BOLD),
        underline: m.contains(Modifier::UNDERLINED),
        dim: m.contains(Modifier::DIM),
    }
}

/// The buffer as an SVG: one background rectangle and one text run per stretch of cells that
/// look alike, each run stretched to its cells' width so columns line up in any monospace font.
pub fn buffer_svg(buf: &Buffer, kind: ThemeKind, title: &str) -> String {
    let (w, h) = (buf.area.width, buf.area.height);
    let (pw, ph) = (w as f64 * CW, h as f64 * CH);
    let base = look(&ratatui::buffer::Cell::default(), kind);
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{pw}" height="{ph}" viewBox="0 0 {pw} {ph}" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="{FONT_PX}">"#
    );
    let _ = writeln!(out, "<title>{}</title>", escape(title));
    let _ = writeln!(
        out,
        r#"<rect width="{pw}" height="{ph}" fill="{}"/>"#,
        base.bg
    );
    for y in 0..h {
        let mut x = 0;
        while x < w {
            let l = look(&buf[(x, y)], kind);
            let start = x;
            let mut text = String::new();
            while x < w && look(&buf[(x, y)], kind) == l {
                text.push_str(buf[(x, y)].symbol());
                x += 1;
            }
            let (x0, y0) = (start as f64 * CW, y as f64 * CH);
            let cells = (x - start) as f64;
            if l.bg != base.bg {
                let _ = writeln!(
                    out,
                    r#"<rect x="{x0}" y="{y0}" width="{}" height="{CH}" fill="{}"/>"#,
                    cells * CW,
                    l.bg
                );
            }
            let trimmed = text.trim_end();
            if trimmed.trim_start().is_empty() {
                continue;
            }
            // Stretch only the run's own glyphs (trailing blanks dropped).
            let used = trimmed.chars().count() as f64;
            let mut attrs = format!(r#"fill="{}""#, l.fg);
            if l.bold {
                attrs.push_str(r#" font-weight="bold""#);
            }
            if l.underline {
                attrs.push_str(r#" text-decoration="underline""#);
            }
            if l.dim {
                attrs.push_str(r#" opacity="0.6""#);
            }
            let _ = writeln!(
                out,
                r#"<text x="{x0}" y="{}" textLength="{}" lengthAdjust="spacingAndGlyphs" xml:space="preserve" {attrs}>{}</text>"#,
                y0 + CH * 0.78,
                used.min(cells) * CW,
                escape(trimmed)
            );
        }
    }
    out.push_str("</svg>\n");
    out
}
