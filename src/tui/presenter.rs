//! Presenter mode's data and glyphs: the headline numbers the big-numbers view (`B`) shows, taken
//! cell by cell from the leaderboard table the Leaderboard pane shows (the report's
//! `leaderboard::table`, so the digits are `execscope report`'s), and the block-digit font they
//! are drawn in. Nothing here computes a number.

use super::view::View;

/// One system of the headline: its leaderboard cells as the table formats them.
#[derive(Clone, Debug, PartialEq)]
pub struct HeadlineSystem {
    pub id: String,
    /// The rank cell (`1`, or `=1` for a shared rank).
    pub rank: String,
    pub exec1: String,
    /// The exec@1 cell's † (not distinguishable from the leader).
    pub exec1_tied: bool,
    /// exec@10, when the evaluation has that cutoff, and its †.
    pub exec10: Option<String>,
    pub exec10_tied: bool,
    /// The exec@1 95% bootstrap interval, once the bootstrap is in.
    pub ci: Option<String>,
}

/// The headline numbers: the leader and the runner-up (leaderboard order), under `policy`.
#[derive(Clone, Debug, PartialEq)]
pub struct Headline {
    pub policy: &'static str,
    pub n_queries: usize,
    pub systems: Vec<HeadlineSystem>,
    /// What † means on this leaderboard: its tier test, once the bootstrap is in.
    pub dagger: Option<String>,
}

/// The headline of the leaderboard on screen (`None` before the leaderboard is in).
pub fn headline(v: &View) -> Option<Headline> {
    let d = v.data?;
    let (lb, table) = crate::tui::panes::leaderboard::report_table(d)?;
    let col = |key: &str| table.keys.iter().position(|k| k == key);
    let (rank, id, e1) = (col("rank")?, col("system")?, col("exec@1")?);
    let (e10, ci) = (col("exec@10"), col("exec@1_ci95"));
    let cell = |row: &[crate::report::TableCell], c: Option<usize>| {
        c.and_then(|c| row.get(c))
            .map(|x| x.text.clone())
            .filter(|t| t != "…" && !t.is_empty())
    };
    let mark = |row: &[crate::report::TableCell], c: Option<usize>| {
        c.and_then(|c| row.get(c)).is_some_and(|x| x.mark)
    };
    let systems = table
        .rows
        .iter()
        .take(2)
        .map(|row| HeadlineSystem {
            id: row[id].text.clone(),
            rank: row[rank].text.clone(),
            exec1: row[e1].text.clone(),
            exec1_tied: mark(row, Some(e1)),
            exec10: cell(row, e10),
            exec10_tied: mark(row, e10),
            ci: cell(row, ci),
        })
        .collect();
    let dagger = d
        .sig
        .as_ref()
        .and_then(|s| s.tier(crate::metrics::MetricKey::exec(1)))
        .map(|t| format!("† not distinguishable from the leader ({})", t.method));
    Some(Headline {
        policy: lb.policy.as_str(),
        n_queries: lb.n_queries,
        systems,
        dagger,
    })
}

/// Rows of a block glyph.
pub const GLYPH_ROWS: usize = 5;

/// The block-digit font: five rows per character, `█` set, space clear. Digits, `%` and `-` are
/// three columns wide, `.` and the space one. Every glyph but the space has a set cell in its
/// first column, so a reader can find where each one starts.
pub const FONT: &[(char, [&str; GLYPH_ROWS])] = &[
    ('0', ["███", "█ █", "█ █", "█ █", "███"]),
    ('1', ["██ ", " █ ", " █ ", " █ ", "███"]),
    ('2', ["███", "  █", "███", "█  ", "███"]),
    ('3', ["███", "  █", "███", "  █", "███"]),
    ('4', ["█ █", "█ █", "███", "  █", "  █"]),
    ('5', ["███", "█  ", "███", "  █", "███"]),
    ('6', ["███", "█  ", "███", "█ █", "███"]),
    ('7', ["███", "  █", "  █", "  █", "  █"]),
    ('8', ["███", "█ █", "███", "█ █", "███"]),
    ('9', ["███", "█ █", "███", "  █", "███"]),
    ('.', [" ", " ", " ", " ", "█"]),
    ('%', ["█ █", "  █", " █ ", "█  ", "█ █"]),
    ('-', ["   ", "   ", "███", "   ", "   "]),
    (' ', [" ", " ", " ", " ", " "]),
];

/// The glyph of `c` (`None`: the font has no such character).
pub fn glyph(c: char) -> Option<&'static [&'static str; GLYPH_ROWS]> {
    FONT.iter().find(|(g, _)| *g == c).map(|(_, rows)| rows)
}

/// Whether the font draws every character of `s`.
pub fn drawable(s: &str) -> bool {
    s.chars().all(|c| glyph(c).is_some())
}

/// The rows of `s` in block glyphs, one blank column between characters (`None` when the font
/// lacks a character).
pub fn big_rows(s: &str) -> Option<[String; GLYPH_ROWS]> {
    let mut rows: [String; GLYPH_ROWS] = Default::default();
    for (i, c) in s.chars().enumerate() {
        let g = glyph(c)?;
        for (r, line) in rows.iter_mut().enumerate() {
            if i > 0 {
                line.push(' ');
            }
            line.push_str(g[r]);
        }
    }
    Some(rows)
}

/// Columns `s` takes in block glyphs.
pub fn big_width(s: &str) -> usize {
    big_rows(s).map_or(0, |r| r[0].chars().count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glyphs_are_rectangular_and_distinct() {
        for (c, rows) in FONT {
            let w = rows[0].chars().count();
            assert!(rows.iter().all(|r| r.chars().count() == w), "{c:?}");
            if *c != ' ' {
                assert!(rows.iter().any(|r| r.starts_with('█')), "{c:?}");
            }
        }
        for (i, (a, ra)) in FONT.iter().enumerate() {
            for (b, rb) in &FONT[i + 1..] {
                assert_ne!(ra, rb, "{a:?} and {b:?} look alike");
            }
        }
        assert_eq!(big_width("0.127"), 3 * 4 + 1 + 4);
        assert!(big_rows("[").is_none());
    }
}
