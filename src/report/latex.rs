//! Text for plain `pdflatex`: every character a table or caption may hold becomes ASCII LaTeX
//! that the LaTeX kernel alone typesets (no `inputenc` mapping, no Unicode engine, no package
//! beyond the kernel), so a table pasted into any paper compiles.

/// `s` as LaTeX text: the ten special characters escaped, the symbols the report prints
/// (Greek letters, −, †, ±, ≥, ≤, ×, →, …, ✓, ✗, ★, ⚑) as kernel macros, and anything else
/// outside ASCII as its code point (`[U+2603]`), never a raw byte pdflatex would refuse.
pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                o.push('\\');
                o.push(ch);
            }
            '~' => o.push_str("\\textasciitilde{}"),
            '^' => o.push_str("\\textasciicircum{}"),
            '\\' => o.push_str("\\textbackslash{}"),
            '<' => o.push_str("\\textless{}"),
            '>' => o.push_str("\\textgreater{}"),
            '|' => o.push_str("\\textbar{}"),
            // In a tabular, `\\` reads a `[` or `*` after it as its own argument: braced, a
            // cell that starts with one stays text.
            '[' | ']' | '*' => {
                o.push('{');
                o.push(ch);
                o.push('}');
            }
            '\n' | '\r' | '\t' => o.push(' '),
            c if c.is_ascii_control() => o.push_str(&code_point(c)),
            c if c.is_ascii() => o.push(c),
            c => o.push_str(&symbol(c)),
        }
    }
    o
}

/// One non-ASCII character as kernel LaTeX.
fn symbol(c: char) -> String {
    let math = |m: &str| format!("$\\{m}$");
    let s = match c {
        '†' => "$^\\dagger$",
        '‡' => "$^\\ddagger$",
        '±' => "$\\pm$",
        '−' => "$-$",
        '—' => "---",
        '–' => "--",
        '≥' => "$\\geq$",
        '≤' => "$\\leq$",
        '≠' => "$\\neq$",
        '≈' => "$\\approx$",
        '×' => "$\\times$",
        '·' => "$\\cdot$",
        '→' => "$\\rightarrow$",
        '←' => "$\\leftarrow$",
        '↑' => "$\\uparrow$",
        '↓' => "$\\downarrow$",
        '…' => "\\ldots{}",
        '‘' => "`",
        '’' => "'",
        '“' => "``",
        '”' => "''",
        '✓' => "yes",
        '✗' => "no",
        '★' => "$\\star$",
        '⚑' => "(gap)",
        '°' => "$^\\circ$",
        '√' => "$\\surd$",
        '∞' => "$\\infty$",
        '\u{a0}' => "~",
        _ => return greek(c).map_or_else(|| code_point(c), math),
    };
    s.to_string()
}

/// A character LaTeX cannot show as itself, by its code point (`{[}U+2603{]}`, shown `[U+2603]`).
fn code_point(c: char) -> String {
    format!("{{[}}U+{:04X}{{]}}", c as u32)
}

/// The macro of a Greek letter the kernel's math mode knows.
fn greek(c: char) -> Option<&'static str> {
    const LOWER: [&str; 25] = [
        "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
        "lambda", "mu", "nu", "xi", "", "pi", "rho", "varsigma", "sigma", "tau", "upsilon", "phi",
        "chi", "psi", "omega",
    ];
    const UPPER: [(char, &str); 11] = [
        ('Γ', "Gamma"),
        ('Δ', "Delta"),
        ('Θ', "Theta"),
        ('Λ', "Lambda"),
        ('Ξ', "Xi"),
        ('Π', "Pi"),
        ('Σ', "Sigma"),
        ('Υ', "Upsilon"),
        ('Φ', "Phi"),
        ('Ψ', "Psi"),
        ('Ω', "Omega"),
    ];
    let lower = (c as u32).checked_sub('α' as u32);
    match lower.and_then(|i| LOWER.get(i as usize)) {
        Some(m) if !m.is_empty() => Some(m),
        _ => UPPER.iter().find(|(u, _)| *u == c).map(|(_, m)| *m),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_symbols_become_kernel_latex() {
        assert_eq!(escape("α = 0.05"), "$\\alpha$ = 0.05");
        assert_eq!(escape("Δ exec@1"), "$\\Delta$ exec@1");
        assert_eq!(escape("Spearman ρ"), "Spearman $\\rho$");
        assert_eq!(escape("−0.120"), "$-$0.120");
        assert_eq!(escape("ω ς"), "$\\omega$ $\\varsigma$");
        assert_eq!(escape("a_b ≥ 5%"), "a\\_b $\\geq$ 5\\%");
        assert_eq!(escape("☃"), "{[}U+2603{]}");
        assert_eq!(
            escape("ο"),
            "{[}U+03BF{]}",
            "omicron has no macro: it is an o"
        );
    }

    /// Text a candidate controls cannot become markup: every special character is escaped, and
    /// a cell starting with `[` or `*` is not read as the optional argument of the row's `\\`.
    #[test]
    fn hostile_text_stays_text() {
        assert_eq!(
            escape("[1pt]*x\\input{/etc/passwd}$^_~#%&"),
            "{[}1pt{]}{*}x\\textbackslash{}input\\{/etc/passwd\\}\\$\\textasciicircum{}\\_\\textasciitilde{}\\#\\%\\&"
        );
        assert_eq!(escape("a\nb\u{1b}[31m"), "a b{[}U+001B{]}{[}31m");
    }

    #[test]
    fn every_output_is_ascii() {
        for c in (0u32..0x3000).filter_map(char::from_u32) {
            let e = escape(&c.to_string());
            assert!(e.is_ascii(), "{c:?} → {e:?}");
        }
    }
}
