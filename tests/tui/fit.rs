//! The dashboard's text fits its boxes and its views scroll: no name cut mid-word, notes and
//! titles whole at 80 columns, what is out of view said, every pane using its space, exports, and
//! the per-query and per-cutoff numbers of the pairs pane equal to the engine's and the report's
//! (split from `panes.rs`, which keeps the snapshots and the interaction tests).

use crate::common;

use common::tui::*;
use crossterm::event::KeyCode;
use execscope::metrics::TiePolicy;
use execscope::tui::panes::PaneId;

#[test]
fn clipped_word_check_bites() {
    let vocab = vec!["count_vowels".to_string(), "toy-cos".to_string()];
    let ok = "│ count_vowels toy-cos │\n│ count_vo… │\n";
    assert_no_clipped_words(ok, 40, &vocab, "ok");
    for bad in [
        "│ count_vow │\n",
        "abcdefghij\n",
        "abc toy-co\n",
        "ab count_v\n",
    ] {
        let r = std::panic::catch_unwind(|| assert_no_clipped_words(bad, 10, &vocab, "bad"));
        assert!(r.is_err(), "{bad:?} passed");
    }
}

/// The export key writes the current pane as SVG (with the theme's colours) and markdown (the
/// pane's report tables and the screen), names both files in the status bar, and never
/// overwrites an earlier export.
#[test]
fn export_key_writes_svg_and_markdown() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = app();
    a.shared.export_dir = Some(dir.path().to_path_buf());
    // Drawn once at 100×30: the export has the body's size (30 − tab, status and key bars).
    let s = screen(&a, 100, 30);
    keys(&mut a, "x");
    let status = screen(&a, 100, 30);
    let bar = status.lines().rev().nth(1).unwrap();
    assert!(
        bar.contains("wrote execscope-leaderboard-1.svg and .md in"),
        "{bar}"
    );
    let svg = std::fs::read_to_string(dir.path().join("execscope-leaderboard-1.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains(r#"width="850" height="459""#), "100×27 cells");
    // Colours kept: the accent (cyan) title and the selected row's blue background.
    assert!(svg.contains(r##"fill="#11a8cd""##) && svg.contains(r##"fill="#2472c8""##));
    // Every system row of the screen is in the SVG text.
    for id in ["toy-dot", "toy-cos", "BM25"] {
        assert!(svg.contains(id), "{id}");
        assert!(s.contains(id));
    }
    let md = std::fs::read_to_string(dir.path().join("execscope-leaderboard-1.md")).unwrap();
    let (table, _) = execscope::tui::panes::leaderboard::display_table(&a.view()).unwrap();
    assert!(md.starts_with("# Leaderboard — execscope, tiny\n"), "{md}");
    assert!(md.contains(&table.to_markdown()), "{md}");
    assert!(md.contains("```text\n") && md.contains("Selected system"));
    // A second export of another pane, then of the same pane: new names, nothing overwritten.
    keys(&mut a, "3x1x");
    for f in [
        "execscope-deception-1.svg",
        "execscope-deception-1.md",
        "execscope-leaderboard-2.svg",
        "execscope-leaderboard-2.md",
    ] {
        assert!(dir.path().join(f).exists(), "{f}");
    }
    let md3 = std::fs::read_to_string(dir.path().join("execscope-deception-1.md")).unwrap();
    assert!(md3.contains("| bug type |"), "{md3}");
    // No temporary files left behind.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 6);
}

/// Every pane of the embedded bundle (the paper-shaped data) at 80×24 and 200×60: no clipped
/// word and no empty lower half. The Audit pane under expected ties says why it will not run
/// (no single pool order), which is a message, not a layout; its layout is checked under row
/// ties.
#[test]
fn embedded_bundle_panes_use_their_space() {
    let mut a = embedded_app();
    let vocab = vocabulary(&a);
    let mut row = embedded_app_with(TiePolicy::Row);
    keys(&mut row, "7");
    each_pane(&mut a, |a, _, id| {
        let a = if id == PaneId::Audit {
            assert!(screen(a, 80, 24).contains("needs one pool order"));
            &mut row
        } else {
            a
        };
        for (w, h) in [(80u16, 24u16), (200, 60)] {
            let s = screen(a, w, h);
            let what = format!("{} at {w}x{h} (embedded)", id.as_str());
            assert_no_clipped_words(&s, w, &vocab, &what);
            let lines: Vec<&str> = s.lines().collect();
            let lower = &lines[lines.len() / 2..lines.len() - 2];
            let filled = lower
                .iter()
                // Anything drawn besides blanks and box lines (text, bars, chart dots).
                .filter(|l| l.chars().any(|c| !" │─┌┐└┘".contains(c)))
                .count();
            assert!(
                filled >= lower.len() / 3,
                "{what}: the lower half is empty\n{s}"
            );
        }
    });
}

/// Under the selected pair, the pairs pane lists every query's value under both systems: the
/// engine's per-query exec@1 columns, their difference, and which side solves it.
#[test]
fn pairs_pane_per_query_values_are_the_engines() {
    let mut a = app();
    keys(&mut a, "6");
    let s = screen(&a, 100, 30);
    let d = a.data.as_ref().expect("loaded");
    let (sa, sb) = (a.settings.system, 1);
    assert_ne!(sa, sb, "the default pair is two systems");
    let ki = a.settings.k_index;
    let ca = d.engine.evals()[sa].column(execscope::metrics::Metric::Exec, ki);
    let cb = d.engine.evals()[sb].column(execscope::metrics::Metric::Exec, ki);
    assert!(s.contains("per query: A ="), "{s}");
    for (q, query) in d.engine.bundle().queries.iter().enumerate() {
        let row = s
            .lines()
            .find(|l| {
                l.contains(&query.id)
                    && l.contains("  ")
                    && l.contains(&query.function_name)
                    && l.contains('.')
            })
            .filter(|l| l.contains(&format!("{:.3}", ca[q])))
            .unwrap_or_else(|| panic!("{} row\n{s}", query.id));
        let want = format!("{:.3}  {:.3}  {:+.3}", ca[q], cb[q], ca[q] - cb[q]);
        let mark = match (ca[q] > 0.0, cb[q] > 0.0) {
            (true, true) => "both",
            (true, false) => "A only",
            (false, true) => "B only",
            (false, false) => "neither",
        };
        assert!(
            row.contains(&want) && row.contains(mark),
            "{row:?} lacks {want} {mark}"
        );
    }
}

/// On a tall screen the pairs pane also shows the selected pair on every metric and cutoff: each
/// row's values are the report's pairs table's for that pair (`report --table pairs --metric`),
/// and the row of the matrix's metric and cutoff is the highlighted one.
#[test]
fn pairs_pane_every_cutoff_values_are_the_reports() {
    use execscope::analysis::significance::Significance;
    use execscope::report::pairs::pairs_table;
    let mut a = app();
    keys(&mut a, "6");
    let s = screen(&a, 200, 60);
    assert!(
        s.contains("every metric and cutoff: A = toy-cos, B = toy-dot"),
        "{s}"
    );
    let d = a.data.as_ref().expect("loaded");
    let sig: &Significance = d.sig.as_ref().expect("bootstrap run");
    assert!(sig.cells.len() > 4, "every metric at every cutoff");
    for cell in &sig.cells {
        let t = pairs_table(&d.engine, sig, cell.key).expect("pairs table");
        // toy-cos (A) against toy-dot (B): the report orders each pair by system index.
        let row = t
            .rows
            .iter()
            .find(|r| r[0].text == "toy-cos" && r[1].text == "toy-dot")
            .expect("the pair's row");
        // Columns: A, B, A only, B only, both, neither, A rate, B rate, Δ, Δ CI, p.
        assert_eq!(
            (t.headers[8].as_str(), t.headers[9].as_str()),
            ("Δ (A − B)", "Δ 95% CI")
        );
        let (ra, rb) = (&row[6].text, &row[7].text);
        let (delta, ci) = (&row[8].text, &row[9].text);
        let line = s
            .lines()
            .find(|l| l.contains(&format!("│{:<9}", cell.key)))
            .unwrap_or_else(|| panic!("{} row\n{s}", cell.key));
        let want = format!("{ra}  {rb}");
        assert!(line.contains(&want), "{line:?} lacks {want}");
        assert!(
            line.contains(&format!(" {delta}  {ci}")),
            "{line:?} lacks {delta} {ci}"
        );
        let p = row[10].value.filter(|_| cell.test.has_p());
        match p {
            Some(p) if p >= 0.001 => assert!(line.contains(&format!("{p:.3}")), "{line:?}"),
            Some(_) => assert!(line.contains("<.001"), "{line:?}"),
            None => assert!(line.contains(" – "), "{line:?}"),
        }
        assert!(line.contains(cell.test.short()), "{line:?}");
    }
    // The matrix shows exec@1: its row is highlighted (selected, unfocused).
    let (x, y) = {
        let lines: Vec<&str> = s.lines().collect();
        let y = lines.iter().position(|l| l.contains("│exec@1  ")).unwrap();
        (1u16, y as u16)
    };
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(200, 60)).unwrap();
    t.draw(|f| execscope::tui::frame::draw(f, &a)).unwrap();
    let buf = t.backend().buffer().clone();
    let marked = |y: u16| {
        buf[(x, y)]
            .modifier
            .contains(ratatui::style::Modifier::UNDERLINED)
    };
    assert!(marked(y), "the exec@1 row is highlighted");
    assert!(!marked(y + 1), "the exec@3 row is not");
}

/// ←/→ on the domains pane scroll the system columns its tables cannot show (at 80×24 the
/// deception table shows two of the three systems), and the unsolved list leaves out the domain
/// where it has no room rather than showing a column of lone `…`.
#[test]
fn domains_pane_scrolls_its_system_columns() {
    let mut a = app();
    keys(&mut a, "5");
    let s = screen(&a, 80, 24);
    let header = |s: &str| {
        s.lines()
            .skip_while(|l| !l.contains("deception by domain"))
            .nth(1)
            .unwrap_or("")
            .to_string()
    };
    assert!(
        header(&s).contains('›') && !header(&s).contains("BM25"),
        "{s}"
    );
    keys(&mut a, "ll");
    let s2 = screen(&a, 80, 24);
    assert!(
        header(&s2).contains("BM25") && header(&s2).contains('‹'),
        "{s2}"
    );
    keys(&mut a, "hh");
    assert_eq!(screen(&a, 80, 24), s);
    // The embedded bundle leaves queries unsolved: their list at 80 columns.
    let mut a = embedded_app();
    keys(&mut a, "5");
    let s = screen(&a, 80, 24);
    let unsolved: Vec<&str> = s
        .lines()
        .skip_while(|l| !l.contains("Solved by no system"))
        .skip(1)
        .take_while(|l| !l.contains('└'))
        .collect();
    assert!(!unsolved.is_empty(), "{s}");
    for l in unsolved {
        let cell = l.rsplit('│').nth(1).unwrap_or("").trim_end();
        assert!(cell.contains("q_0"), "{s}");
        assert!(!cell.ends_with(" …"), "a lone … for the domain: {l:?}");
    }
}

/// On the embedded bundle at 80×24 text that does not fit its box ends in `…` (or is whole):
/// the snippet title in the browser, the selected pair's details, the density table's caption.
/// Before, each stopped mid-word or mid-sentence at the border. And no label is drawn over the
/// density chart's curves.
#[test]
fn text_that_does_not_fit_says_so() {
    let mut a = embedded_app();
    let ends_whole = |row: &str| {
        let t = row.trim_end_matches('│').trim_end();
        t.ends_with('…') || t.ends_with('.') || t.ends_with(')')
    };
    // The snippet panel's title: shortened with `…` inside the top border.
    keys(&mut a, "2");
    let s = screen(&a, 80, 24);
    let title = s
        .lines()
        .find(|l| l.contains("c_0005 wrong_operator"))
        .expect("the code panel's title");
    let title = &title[title.find("c_0005").unwrap()..];
    let before_corner = title.split('┐').next().unwrap().trim_end_matches('─');
    assert!(before_corner.trim_end().ends_with('…'), "{title:?}");
    // The selected pair's details.
    keys(&mut a, "6");
    let s = screen(&a, 80, 24);
    let row = last_row_of_box(&s, "Selected pair").expect("details box");
    assert!(ends_whole(row), "cut mid-sentence: {row:?}\n{s}");
    // The density table's caption; and nothing written over the chart.
    keys(&mut a, "4");
    for (w, h) in [(80u16, 24u16), (200, 60)] {
        let s = screen(&a, w, h);
        if w == 80 {
            let row = last_row_of_box(&s, "Density table").expect("density table");
            assert!(ends_whole(row), "cut mid-sentence: {row:?}\n{s}");
        }
        for l in s.lines() {
            let c: Vec<char> = l.chars().collect();
            for p in c.windows(2) {
                let braille = |x: char| ('\u{2800}'..='\u{28ff}').contains(&x);
                let letter = |x: char| x.is_ascii_alphabetic();
                assert!(
                    !(braille(p[0]) && letter(p[1]) || letter(p[0]) && braille(p[1])),
                    "text over the chart: {l:?}"
                );
            }
        }
    }
}

/// The deception pane on the embedded bundle: at 80×24 its bar legend still names the current
/// system (it read "■ …"), and at 200×60 the gap histogram's bins carry distinct labels (bins
/// narrower than 0.01 all read "-0.03" with two decimals).
#[test]
fn deception_pane_legend_and_bin_labels_are_readable() {
    let mut a = embedded_app();
    keys(&mut a, "3");
    let sys = a.view().system_id(a.settings.system).to_string();
    let s = screen(&a, 80, 24);
    let title = s.lines().nth(1).unwrap();
    assert!(title.contains(&format!("■ {sys}")), "{title:?}");
    let s = screen(&a, 200, 60);
    let labels: Vec<&str> = s
        .lines()
        .filter_map(|l| {
            let inner = l.strip_prefix('│')?.trim_end().trim_end_matches('│').trim();
            let toks: Vec<&str> = inner.split_whitespace().collect();
            let numeric = |t: &str| t.parse::<f64>().is_ok() && t.contains('.');
            (toks.len() >= 5 && toks.iter().all(|t| numeric(t))).then_some(inner)
        })
        .collect();
    assert_eq!(labels.len(), 1, "one row of bin labels\n{s}");
    let toks: Vec<&str> = labels[0].split_whitespace().collect();
    for p in toks.windows(2) {
        assert_ne!(p[0], p[1], "neighbouring bins read the same: {}", labels[0]);
    }
}

/// The pairs pane on the embedded bundle at 80×24 says what it cannot show: the matrix rows
/// above and below the ones in view, and how many queries each "only" list and the per-query
/// table leave out (they stopped at the border without a word).
#[test]
fn pairs_pane_says_what_is_out_of_view() {
    let mut a = embedded_app();
    keys(&mut a, "6");
    let s = screen(&a, 80, 24);
    assert!(s.contains("▲ 0 above · ▼ 1 below"), "{s}");
    keys(&mut a, "G");
    let s = screen(&a, 80, 24);
    assert!(s.contains("▲ 1 above · ▼ 0 below"), "{s}");
    keys(&mut a, "g");
    // At 200×60 the lists are longer than their boxes.
    let s = screen(&a, 200, 60);
    let d = a.data.as_ref().unwrap();
    let (ca, cb) = (
        d.engine.evals()[0].column(execscope::metrics::Metric::Exec, 0),
        d.engine.evals()[1].column(execscope::metrics::Metric::Exec, 0),
    );
    let only_a = (0..ca.len())
        .filter(|&q| ca[q] > 0.0 && cb[q] <= 0.0)
        .count();
    let shown_a = s
        .lines()
        .filter(|l| l.starts_with("│q_0") && l.contains("││q_0"))
        .count();
    assert!(shown_a < only_a, "the list is longer than its box\n{s}");
    assert!(
        s.contains(&format!("▼ {} below (PgUp/PgDn)", only_a - shown_a)),
        "{} below\n{s}",
        only_a - shown_a
    );
    // The per-query table: its rows carry who solves the query.
    let n = d.engine.bundle().queries.len();
    let per_query = s
        .lines()
        .filter(|l| {
            l.starts_with("│q_0")
                && ["both", "A only", "B only", "neither"]
                    .iter()
                    .any(|m| l.contains(&format!("  {m}")))
        })
        .count();
    assert!(per_query > 0 && per_query < n, "{s}");
    assert!(
        s.contains(&format!("▼ {} below (PgUp/PgDn)", n - per_query)),
        "{} below\n{s}",
        n - per_query
    );
}

/// Enter on the leaderboard opens the highlighted system (the shared selection), also before
/// any movement and after a re-sort; it opened the row at a stale position (the first).
#[test]
fn leaderboard_enter_opens_the_highlighted_system() {
    let mut a = app();
    let current = a.settings.system;
    let lb_first = {
        let lb = a.data.as_ref().unwrap().lb.as_ref().unwrap();
        lb.rows[0].system
    };
    assert_ne!(current, lb_first, "the fixture starts off the first row");
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.pane_id(), "browser");
    assert_eq!(a.settings.system, current);
    keys(&mut a, "1r");
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.settings.system, current, "after a re-sort too");
}

/// On the embedded bundle at 80×24: the diff view's note on the canonical wraps instead of
/// stopping at "see it", and the audit's per-test panel title ends in `…` inside its border
/// instead of being cut by the corner ("per-test outcom┐").
#[test]
fn notes_and_titles_are_whole_at_80_columns() {
    let mut a = embedded_app_with(TiePolicy::Row);
    keys(&mut a, "2");
    key(&mut a, KeyCode::Enter);
    // Down the ranking to the canonical, then its diff.
    for _ in 0..10 {
        let s = screen(&a, 80, 24);
        if s.lines().any(|l| l.contains("┌ c_0001 correct")) {
            break;
        }
        keys(&mut a, "j");
    }
    keys(&mut a, "d");
    let s = screen(&a, 80, 24);
    let words: Vec<&str> = s.split(|c: char| c.is_whitespace() || c == '│').collect();
    for w in "the canonical itself — select a distractor to see its edit".split(' ') {
        assert!(words.contains(&w), "{w:?} missing\n{s}");
    }
    // The audit (every pair is in the execution cache), then the first task's candidates.
    keys(&mut a, "7");
    key(&mut a, KeyCode::Enter);
    let t0 = std::time::Instant::now();
    while !a.busy().is_empty() && t0.elapsed() < std::time::Duration::from_secs(120) {
        a.run_jobs_inline();
    }
    key(&mut a, KeyCode::Enter);
    let s = screen(&a, 80, 24);
    let title = s
        .lines()
        .find(|l| l.contains(" tests: "))
        .unwrap_or_else(|| panic!("the tests panel\n{s}"));
    let head = title[title.find(" tests: ").unwrap()..]
        .split('┐')
        .next()
        .unwrap()
        .trim_end_matches('─')
        .trim_end();
    assert!(
        head.ends_with('…') || head.ends_with("outcomes"),
        "{title:?}"
    );
}

/// The side-by-side rankings at 80×24 (embedded bundle) leave out the role where it has no room
/// instead of showing a column of lone `…`.
#[test]
fn compare_view_has_no_lone_ellipsis_column() {
    let mut a = embedded_app();
    keys(&mut a, "2c");
    let s = screen(&a, 80, 24);
    let rows: Vec<&str> = s.lines().filter(|l| l.contains(" c_0")).collect();
    assert!(rows.len() >= 4, "{s}");
    for l in rows {
        assert!(!l.contains(" … ✗") && !l.contains(" … ✓"), "{l:?}\n{s}");
    }
}

/// ←/→ on the density pane bring the rank-1 miss table's columns that do not fit into view (at
/// 200×60 on the embedded bundle its last column, "paired share", was out of reach).
#[test]
fn density_pane_scrolls_the_miss_table() {
    let mut a = embedded_app();
    keys(&mut a, "4");
    let header = |s: &str| {
        s.lines()
            .skip_while(|l| !l.contains("Rank-1 miss composition"))
            .nth(1)
            .unwrap_or("")
            .to_string()
    };
    let s = screen(&a, 200, 60);
    assert!(
        header(&s).contains('›') && !header(&s).contains("paired share"),
        "{s}"
    );
    keys(&mut a, "lllll");
    let s2 = screen(&a, 200, 60);
    assert!(header(&s2).contains("paired share"), "{s2}");
    keys(&mut a, "hhhhh");
    assert_eq!(screen(&a, 200, 60), s);
}

/// ←/→ on the audit pane bring the result tables' columns that do not fit into view (at 80×24
/// on the embedded bundle the summary and the task table each hid columns behind `›`).
#[test]
fn audit_pane_scrolls_its_result_tables() {
    let mut a = embedded_app_with(TiePolicy::Row);
    keys(&mut a, "7");
    key(&mut a, KeyCode::Enter);
    let t0 = std::time::Instant::now();
    while !a.busy().is_empty() && t0.elapsed() < std::time::Duration::from_secs(120) {
        a.run_jobs_inline();
    }
    let s = screen(&a, 80, 24);
    let header = |s: &str, head: &str| {
        s.lines()
            .find(|l| l.starts_with(&format!("│{head}")))
            .unwrap_or("")
            .to_string()
    };
    for head in ["system ", "task "] {
        let h = header(&s, head);
        assert!(h.contains('›') && !h.contains('‹'), "{h:?}\n{s}");
    }
    // → moves the focus a column at a time: the hidden ones come into view.
    let mut seen = [false, false];
    for _ in 0..15 {
        keys(&mut a, "l");
        let s2 = screen(&a, 80, 24);
        for (i, head) in ["system ", "task "].into_iter().enumerate() {
            seen[i] |= header(&s2, head).contains('‹');
        }
    }
    assert_eq!(seen, [true, true], "{}", screen(&a, 80, 24));
    keys(&mut a, &"h".repeat(15));
    assert_eq!(screen(&a, 80, 24), s);
}
