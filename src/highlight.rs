//! Syntax highlighting of a snippet in its [`Language`], for every front end that shows code.
//!
//! syntect's `default-fancy` build ships Python, C++, Go, Java, JavaScript and Rust syntaxes
//! (measured: `find_syntax_by_extension` answers `py`, `cpp`, `go`, `java`, `js`, `rs`); it
//! has no TypeScript, so TypeScript is highlighted with the JavaScript syntax (its keywords,
//! strings, numbers and comments are JavaScript's; only type annotations stay plain). Loading the
//! syntax and theme sets takes tens of milliseconds, so it happens once, lazily ([`warm_up`]).
//! The dashboard's code widget (`tui::widgets::code`) maps these regions to its theme's colours.

use execscope_record::Language;
use std::sync::OnceLock;
use syntect::easy::HighlightLines;
use syntect::highlighting::{Style, ThemeSet};
use syntect::parsing::{SyntaxReference, SyntaxSet};

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

/// Load the syntax and theme sets now (call from a background thread at start-up).
pub fn warm_up() {
    let _ = sets();
}

/// The syntax `lang` is highlighted with (TypeScript: JavaScript's).
pub fn syntax_for(lang: Language) -> Option<&'static SyntaxReference> {
    let ext = match lang {
        Language::TypeScript => Language::JavaScript.extension(),
        other => other.extension(),
    };
    sets().syntaxes.find_syntax_by_extension(ext)
}

/// One highlighted line: its regions, each a style and its text (the line's end of line
/// removed, tabs as four spaces).
pub type Regions = Vec<(Style, String)>;

/// The lines of `code` in `lang`, highlighted under the syntect theme `theme`
/// (`base16-ocean.dark`, `InspiredGitHub`, ...). `None` when the theme is unknown or the
/// syntax fails on the text (the caller shows it plain).
pub fn highlight(code: &str, lang: Language, theme: &str) -> Option<Vec<Regions>> {
    let s = sets();
    let syntax = syntax_for(lang)?;
    let theme = s.themes.themes.get(theme)?;
    let mut h = HighlightLines::new(syntax, theme);
    let mut out = Vec::new();
    for line in syntect::util::LinesWithEndings::from(code) {
        let regions = h.highlight_line(line, &s.syntaxes).ok()?;
        out.push(
            regions
                .into_iter()
                .map(|(style, text)| {
                    let text = text.trim_end_matches(['\n', '\r']).replace('\t', "    ");
                    (style, text)
                })
                .filter(|(_, t)| !t.is_empty())
                .collect(),
        );
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The style of the first region whose text is `word` on a one-line snippet.
    fn style_of(code: &str, lang: Language, word: &str) -> Style {
        let lines = highlight(code, lang, "InspiredGitHub").expect("highlights");
        lines[0]
            .iter()
            .find(|(_, t)| t.trim() == word)
            .unwrap_or_else(|| panic!("{word} in {:?}", lines[0]))
            .0
    }

    #[test]
    fn every_language_has_a_syntax_that_tells_keywords_from_names() {
        let cases = [
            (Language::Python, "def f(x): return x"),
            (Language::Cpp, "int f(int x) { return x; }"),
            (Language::Go, "func f(x int) int { return x }"),
            (Language::Java, "class A { int f(int x) { return x; } }"),
            (Language::JavaScript, "const f = (x) => { return x; };"),
            (Language::Rust, "fn f(x: i32) -> i32 { return x; }"),
            (
                Language::TypeScript,
                "function f(x: number): number { return x; }",
            ),
        ];
        for (lang, code) in cases {
            assert!(syntax_for(lang).is_some(), "{lang}");
            let keyword = style_of(code, lang, "return");
            let name = style_of(code, lang, "x");
            assert_ne!(keyword, name, "{lang}: `return` looks like a name");
        }
        assert_eq!(
            syntax_for(Language::TypeScript).map(|s| &s.name),
            syntax_for(Language::JavaScript).map(|s| &s.name)
        );
    }

    #[test]
    fn lines_and_text_are_kept() {
        let code = "fn f() {\n\tlet s = \"a\"; // c\n}\n";
        let lines = highlight(code, Language::Rust, "base16-ocean.dark").unwrap();
        assert_eq!(lines.len(), 3);
        let text: Vec<String> = lines
            .iter()
            .map(|l| l.iter().map(|(_, t)| t.as_str()).collect())
            .collect();
        assert_eq!(text, ["fn f() {", "    let s = \"a\"; // c", "}"]);
        assert!(highlight(code, Language::Rust, "no such theme").is_none());
    }
}
