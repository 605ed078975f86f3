//! Mutation of every HumanEval-X canonical (C++, Go, Java, JavaScript, Rust) through the
//! language seam, read from the external data (`../shared/data/sources/humaneval-x/`, skipped by
//! name where absent; never copied into the repository):
//!
//! - every canonical parses and defines its entry point; every mutant (whole catalogue) parses in
//!   its grammar, differs from the canonical by its one splice, is unique, and the list is the
//!   same on a second run (`every_humaneval_x_canonical_mutates_cleanly`, which prints the
//!   mutants per family per language with `--nocapture`);
//! - a deterministic sample of the mutants is compiled with the language's real toolchain
//!   outside any sandbox (`g++ -fsyntax-only`, `javac`, `rustc --emit=metadata`,
//!   `node --check`, `go tool compile`), against the canonicals it compiles, and the share that
//!   compiles is printed per language and family (`humaneval_x_mutants_compile`; each toolchain
//!   that is missing is skipped by name); MBXP's TypeScript likewise with `tsc`
//!   (`mbxp_typescript_mutants_compile`). `EXECSCOPE_COMPILE_SAMPLE` sets the sample per
//!   (language, family) (default 3); docs/bundle-format.md records a run at 10.

use super::mutants_compile::print_table;
use crate::common;

use execscope::build::formats::file_text;
use execscope::mutate::{
    mutants_of, parse_errors_in, parses_in, Canonical, Family, Language, Mutant, Operators,
};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

pub const LANGS: [(Language, &str); 5] = [
    (Language::Cpp, "cpp"),
    (Language::Go, "go"),
    (Language::Java, "java"),
    (Language::JavaScript, "js"),
    (Language::Rust, "rust"),
];

/// One HumanEval-X task as the mutation engine takes it.
pub struct Task {
    pub id: String,
    pub source: String,
    pub entry: String,
}

/// The entry point: the function the declaration's last line opens.
fn entry_point(lang: Language, declaration: &str) -> String {
    let line = declaration
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    let head = if lang == Language::JavaScript {
        line.trim_start_matches("const ")
            .split('=')
            .next()
            .unwrap_or("")
    } else {
        let head = line.split('(').next().unwrap_or("").trim_end();
        // `fn compare_one<'a>(...)`: the name ends at its generics
        match head.strip_suffix('>').and_then(|h| h.rfind('<')) {
            Some(i) => &head[..i],
            None => head,
        }
    };
    head.split_whitespace().last().unwrap_or("").to_string()
}

/// The tasks of `humaneval_<suffix>.jsonl.gz`: their source is what a candidate of the language
/// is (the declaration and the canonical body; Go's file also gets its package and imports).
pub fn tasks(dir: &Path, lang: Language, suffix: &str) -> Vec<Task> {
    let path = dir.join(format!("humaneval_{suffix}.jsonl.gz"));
    let text = file_text(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let row: serde_json::Value = serde_json::from_str(l).expect("json line");
            let s = |k: &str| row[k].as_str().unwrap_or("").to_string();
            let declaration = s("declaration");
            let mut source = String::new();
            if lang == Language::Go {
                source.push_str("package main\n\n");
                source.push_str(&s("import"));
            }
            source.push_str(&declaration);
            source.push_str(&s("canonical_solution"));
            Task {
                id: s("task_id"),
                entry: entry_point(lang, &declaration),
                source,
            }
        })
        .collect()
}

pub fn humaneval_x(test: &str) -> Option<std::path::PathBuf> {
    common::require_data(test, "sources/humaneval-x/humaneval_cpp.jsonl.gz")
        .and_then(|p| p.parent().map(Path::to_path_buf))
}

#[test]
fn every_humaneval_x_canonical_mutates_cleanly() {
    let Some(dir) = humaneval_x("every_humaneval_x_canonical_mutates_cleanly") else {
        return;
    };
    let ops = Operators::all();
    let mut table: BTreeMap<Family, BTreeMap<Language, usize>> = BTreeMap::new();
    let mut totals: BTreeMap<Language, (usize, usize, usize)> = BTreeMap::new();
    for (lang, suffix) in LANGS {
        let tasks = tasks(&dir, lang, suffix);
        assert_eq!(tasks.len(), 164, "{lang}");
        let mut failures: Vec<String> = Vec::new();
        for t in &tasks {
            let c = Canonical {
                language: lang,
                source: &t.source,
                entry_point: &t.entry,
            };
            let ms = match mutants_of(&c, &ops) {
                Ok(ms) => ms,
                Err(e) => {
                    failures.push(format!("{}: {e}", t.id));
                    continue;
                }
            };
            check_mutants(lang, &t.id, &t.source, &ms);
            assert_eq!(
                mutants_of(&c, &ops).ok().as_ref(),
                Some(&ms),
                "{}: not deterministic",
                t.id
            );
            let e = totals.entry(lang).or_default();
            e.0 += 1;
            e.1 += ms.len();
            e.2 += usize::from(ms.is_empty());
            if ms.is_empty() {
                println!("{}: no mutant", t.id);
            }
            for m in &ms {
                let f = Family::from_name(&m.bug_type).expect("a family's bug type");
                *table.entry(f).or_default().entry(lang).or_default() += 1;
            }
        }
        // A canonical the grammar cannot read as a function is refused by name and place
        // (HumanEval-X's CPP/38 misses two closing braces; g++ refuses it too).
        assert!(
            failures.len() <= 1 && failures.iter().all(|f| f.contains("parse error at line")),
            "{lang}: {failures:#?}"
        );
        if !failures.is_empty() {
            println!("{lang}: refused {failures:?}");
        }
    }
    print_table(&table, &totals);
}

/// MBXP's TypeScript (`mbtsp_release_v1.2.jsonl`, the language HumanEval-X lacks): every
/// canonical (prompt and body) the grammar reads as its function mutates cleanly, every other is
/// refused with its parse error; the counts per family are printed (`tsc` checks a sample of
/// them in `mbxp_typescript_mutants_compile`).
#[test]
fn every_mbxp_typescript_canonical_mutates_cleanly() {
    let test = "every_mbxp_typescript_canonical_mutates_cleanly";
    let Some(path) = common::require_data(test, "sources/mbxp/mbtsp_release_v1.2.jsonl") else {
        return;
    };
    let text = file_text(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let ops = Operators::all();
    let lang = Language::TypeScript;
    let mut per_family: BTreeMap<Family, usize> = BTreeMap::new();
    let (mut tasks, mut mutated, mut refused) = (0, 0, Vec::new());
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let row: serde_json::Value = serde_json::from_str(line).expect("json line");
        let s = |k: &str| row[k].as_str().unwrap_or("").to_string();
        let body = s("canonical_solution");
        if body.trim().is_empty() {
            continue; // MBTSP has one task without a solution
        }
        tasks += 1;
        let source = format!("{}{body}", s("prompt"));
        let entry = s("entry_point");
        let c = Canonical {
            language: lang,
            source: &source,
            entry_point: &entry,
        };
        match mutants_of(&c, &ops) {
            Ok(ms) => {
                check_mutants(lang, &s("task_id"), &source, &ms);
                mutated += 1;
                for m in &ms {
                    *per_family
                        .entry(Family::from_name(&m.bug_type).expect("family"))
                        .or_default() += 1;
                }
            }
            Err(e) => refused.push(format!("{}: {e}", s("task_id"))),
        }
    }
    println!(
        "MBTSP: {mutated} of {tasks} canonicals mutate, {} refused (the first: {:?})",
        refused.len(),
        refused.first()
    );
    println!("{per_family:?}");
    // Many of MBXP's TypeScript solutions are cut off mid-expression (MBTSP/5 ends in `if`);
    // each refusal names the parse error, and the rest mutate.
    assert!(
        refused
            .iter()
            .all(|r| r.contains("TypeScript parse error at line")),
        "{refused:#?}"
    );
    assert!(mutated >= tasks / 2, "{mutated} of {tasks}");
}

/// Every mutant of `src`: its edit matches the source and splices back to its code, it parses
/// without an error where the source had none, and no two are the same program.
pub fn check_mutants(lang: Language, id: &str, src: &str, ms: &[Mutant]) {
    let errors = parse_errors_in(lang, src);
    let mut codes = HashSet::new();
    for m in ms {
        let e = &m.edit;
        assert_eq!(&src[e.start..e.end], e.before, "{id} {m:?}");
        let spliced = format!("{}{}{}", &src[..e.start], e.after, &src[e.end..]);
        assert_eq!(spliced, m.code, "{id} {m:?}");
        if errors.is_empty() {
            assert!(
                parses_in(lang, &m.code),
                "{id}: {} does not parse:\n{}",
                m.operator,
                m.code
            );
        } else {
            // Each error of the mutant lies where the source has one (offsets after the edit
            // shifted back).
            let new_end = e.start + e.after.len();
            let back = |p: usize| match p {
                p if p <= e.start => p,
                p if p >= new_end => p + e.end - new_end,
                _ => e.start,
            };
            for r in parse_errors_in(lang, &m.code) {
                let (s, t) = (back(r.start), back(r.end));
                assert!(
                    errors.iter().any(|o| s <= o.end && o.start <= t),
                    "{id}: {} adds a parse error at {s}..{t}:\n{}",
                    m.operator,
                    m.code
                );
            }
        }
        assert!(
            m.code != src && codes.insert(m.code.clone()),
            "{id}: duplicate {m:?}"
        );
    }
}
