//! The evaluation sliced by the queries' language, as it is by domain: the language mix the
//! leaderboard shows, each system's exec@1 per language, its deception per language, and the
//! dense systems' deception by bug type per language (the issue's "deception by bug type per
//! language"). A query's snippets are in its language (the loader checks), so a pair's language
//! is its query's.
//!
//! A bundle whose every query is Python is not [`multilingual`]: the report then adds nothing
//! about languages, so its output is what it was before languages existed.

use crate::analysis::deception::Rate;
use crate::analysis::Anatomy;
use crate::bundle::{Bundle, Language};

/// Queries per language the bundle has, in report order.
pub fn mix(bundle: &Bundle) -> Vec<(Language, usize)> {
    bundle
        .languages()
        .into_iter()
        .map(|l| (l, bundle.queries.iter().filter(|q| q.language == l).count()))
        .collect()
}

/// True when a mix says something: more than one language, or one that is not Python.
pub fn multilingual(mix: &[(Language, usize)]) -> bool {
    mix.iter().any(|(l, _)| !l.is_python())
}

/// The mix as people read it: `C++ 164, Go 164, Python 164`.
pub fn describe(mix: &[(Language, usize)]) -> String {
    mix.iter()
        .map(|(l, n)| format!("{} {n}", l.display_name()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One row of the per-language table: a system (leaderboard order) and its mean exec@1 over
/// each language's queries (report order).
#[derive(Clone, Debug, PartialEq)]
pub struct LanguageRow {
    /// Index into `Engine::scores`.
    pub system: usize,
    pub id: String,
    pub exec1: Vec<(Language, f64)>,
}

/// Deception per language per system.
#[derive(Clone, Debug, PartialEq)]
pub struct LanguageDeception {
    /// The bundle's languages, in report order.
    pub languages: Vec<Language>,
    pub rows: Vec<LanguageDeceptionRow>,
}

/// One system's deception per language (a language without pairs has an empty rate).
#[derive(Clone, Debug, PartialEq)]
pub struct LanguageDeceptionRow {
    pub system: String,
    pub by_language: Vec<(Language, Rate)>,
}

/// The deception-by-language rows, in anatomy (system) order.
pub fn deception(a: &Anatomy, bundle: &Bundle) -> LanguageDeception {
    let languages = bundle.languages();
    let rows = a
        .systems
        .iter()
        .map(|s| LanguageDeceptionRow {
            system: s.id.clone(),
            by_language: languages
                .iter()
                .map(|l| (*l, s.by_language.get(l).copied().unwrap_or_default()))
                .collect(),
        })
        .collect();
    LanguageDeception { languages, rows }
}

/// One bug type's deception in each language, pooled over the dense systems (the overall row
/// has no bug type).
#[derive(Clone, Debug, PartialEq)]
pub struct BugTypeLanguageRow {
    pub bug_type: Option<String>,
    pub per_language: Vec<(Language, Rate)>,
}

impl BugTypeLanguageRow {
    /// The label shown (`overall` for the total row).
    pub fn label(&self) -> &str {
        self.bug_type.as_deref().unwrap_or("overall")
    }
}

/// Bug types in report order, then the overall row; columns the bundle's languages.
pub fn bugtypes(a: &Anatomy, bundle: &Bundle) -> Vec<BugTypeLanguageRow> {
    let languages = bundle.languages();
    let pooled = a.dense_by_language_bug_type();
    let mut rows: Vec<BugTypeLanguageRow> = a
        .bug_types()
        .into_iter()
        .map(|ty| BugTypeLanguageRow {
            per_language: languages
                .iter()
                .map(|l| {
                    let r = pooled.get(&(*l, ty.clone())).copied().unwrap_or_default();
                    (*l, r)
                })
                .collect(),
            bug_type: Some(ty),
        })
        .collect();
    rows.push(BugTypeLanguageRow {
        bug_type: None,
        per_language: languages
            .iter()
            .map(|l| {
                let mut total = Rate::default();
                for ((pl, _), r) in &pooled {
                    if pl == l {
                        total.deceived += r.deceived;
                        total.tied += r.tied;
                        total.total += r.total;
                    }
                }
                (*l, total)
            })
            .collect(),
    });
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_python_mix_is_not_multilingual() {
        assert!(!multilingual(&[(Language::Python, 332)]));
        assert!(multilingual(&[(Language::Cpp, 3)]));
        let mix = [(Language::Python, 2), (Language::Cpp, 3)];
        assert!(multilingual(&mix));
        assert_eq!(describe(&mix), "Python 2, C++ 3");
    }
}
