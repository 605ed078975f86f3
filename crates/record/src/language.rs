//! The candidate's programming language: the one value through which a language enters every
//! layer. Each layer keeps its own per-language module behind one `match` on [`Language`]: the
//! mutation engine's grammar and rules (`execscope_build::mutate::lang`), BM25's tokenizer
//! (`execscope_core::rank::bm25`), the browser's highlighter (`execscope::highlight`), and the
//! bundle's `language` field (docs/bundle-format.md). A new language is a new variant here and a
//! new module in each of those places; the compiler lists every `match` that needs it.
//!
//! Python is the default: a bundle row, a task or a job without a language is Python, and every
//! Python output stays what it was before other languages existed.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A candidate language. Declaration order is report order (Python first, then the languages of
/// HumanEval-X and MBXP by name).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(into = "String", try_from = "String")]
pub enum Language {
    #[default]
    Python,
    Cpp,
    Go,
    Java,
    JavaScript,
    Rust,
    TypeScript,
}

impl Language {
    /// Every language, in report order.
    pub const ALL: [Language; 7] = [
        Language::Python,
        Language::Cpp,
        Language::Go,
        Language::Java,
        Language::JavaScript,
        Language::Rust,
        Language::TypeScript,
    ];

    /// The stable name a bundle stores (`python`, `cpp`, `go`, `java`, `javascript`, `rust`,
    /// `typescript`).
    pub fn as_str(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::Cpp => "cpp",
            Language::Go => "go",
            Language::Java => "java",
            Language::JavaScript => "javascript",
            Language::Rust => "rust",
            Language::TypeScript => "typescript",
        }
    }

    /// The name people write (`C++`, `JavaScript`, ...), for tables and messages.
    pub fn display_name(self) -> &'static str {
        match self {
            Language::Python => "Python",
            Language::Cpp => "C++",
            Language::Go => "Go",
            Language::Java => "Java",
            Language::JavaScript => "JavaScript",
            Language::Rust => "Rust",
            Language::TypeScript => "TypeScript",
        }
    }

    /// The usual file extension, without the dot (what a source file of the language is named
    /// with, and what syntax highlighters look the language up by).
    pub fn extension(self) -> &'static str {
        match self {
            Language::Python => "py",
            Language::Cpp => "cpp",
            Language::Go => "go",
            Language::Java => "java",
            Language::JavaScript => "js",
            Language::Rust => "rs",
            Language::TypeScript => "ts",
        }
    }

    /// The language a name, an alias or an extension names, case and surrounding spaces ignored:
    /// the stored name, the display name, the extension, and the names benchmark files use
    /// (`js`, `c++`, `cxx`, `golang`, `py`, `ts`, ...).
    pub fn from_name(name: &str) -> Option<Language> {
        let n = name.trim().to_ascii_lowercase();
        let lang = match n.as_str() {
            "python" | "py" | "python3" => Language::Python,
            "cpp" | "c++" | "cxx" | "cc" => Language::Cpp,
            "go" | "golang" => Language::Go,
            "java" => Language::Java,
            "javascript" | "js" | "node" => Language::JavaScript,
            "rust" | "rs" => Language::Rust,
            "typescript" | "ts" => Language::TypeScript,
            _ => return None,
        };
        Some(lang)
    }

    pub fn is_python(self) -> bool {
        self == Language::Python
    }
}

impl fmt::Display for Language {
    /// The stored name (`cpp`), as a bundle and the command line write it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is no [`Language`]; its message lists the names that are.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown language {0:?}: use one of {names}", names = known_names())]
pub struct UnknownLanguage(pub String);

fn known_names() -> String {
    Language::ALL.map(Language::as_str).join(", ")
}

impl FromStr for Language {
    type Err = UnknownLanguage;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Language::from_name(s).ok_or_else(|| UnknownLanguage(s.to_string()))
    }
}

impl From<Language> for String {
    fn from(l: Language) -> String {
        l.as_str().to_string()
    }
}

impl TryFrom<String> for Language {
    type Error = UnknownLanguage;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_aliases_resolve() {
        for l in Language::ALL {
            assert_eq!(Language::from_name(l.as_str()), Some(l));
            assert_eq!(Language::from_name(l.display_name()), Some(l));
            assert_eq!(Language::from_name(l.extension()), Some(l));
            assert_eq!(l.to_string().parse::<Language>(), Ok(l));
            let json = serde_json::to_string(&l).unwrap();
            assert_eq!(json, format!("\"{}\"", l.as_str()));
            assert_eq!(serde_json::from_str::<Language>(&json).unwrap(), l);
        }
        assert_eq!(Language::default(), Language::Python);
        assert_eq!(Language::from_name(" C++ "), Some(Language::Cpp));
        assert_eq!(Language::from_name("golang"), Some(Language::Go));
        let e = "kotlin".parse::<Language>().unwrap_err().to_string();
        assert!(e.contains("\"kotlin\"") && e.contains("typescript"), "{e}");
        assert!(serde_json::from_str::<Language>("\"cobol\"").is_err());
        // Report order is declaration order, Python first.
        let mut sorted = Language::ALL;
        sorted.sort();
        assert_eq!(sorted, Language::ALL);
    }
}
