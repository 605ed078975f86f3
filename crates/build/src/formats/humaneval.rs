//! HumanEval records (`task_id`, `prompt`, `canonical_solution`, `test`, `entry_point`) as
//! [`Problem`]s.
//!
//! The prompt is trusted benchmark text with two roles, as in HumanEval's own harness: it is the
//! start of every candidate program (the canonical is prompt + canonical solution; a completion
//! is joined to it), and, without its function under test, the setup the judge runs before each
//! test, so a helper the test calls (HumanEval/32's `poly`, /38's `encode_cyclic`) is the
//! prompt's own definition, never one a candidate redefines. Each test is that setup, the test
//! file with `check`'s body reduced to one unit ([`pysrc::check_units`]), and
//! `check(<entry_point>)`.

use super::pysrc::{self, CheckSplit};
use super::{field, Problem};
use crate::formats::pyjson::J;

/// What a test that draws from `random`'s shared generator is preceded by, so its inputs (and so
/// its verdict) are the same on every run: HumanEval/38, /50 and /53 draw their inputs unseeded.
pub const SEED_RANDOM: &str = "import random as _es_random\n_es_random.seed(0)\n";

/// Does the test use the `random` module (the word, outside a longer name)?
fn uses_random(src: &str) -> bool {
    src.match_indices("random").any(|(i, _)| {
        let word = |c: char| c.is_alphanumeric() || c == '_';
        let before = src[..i].chars().next_back();
        let after = src[i + 6..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

/// One test: the seeding line when needed, the trusted setup, the test file's text, the call.
pub fn compose(setup: &str, test: &str, entry: &str) -> String {
    let mut s = String::new();
    if uses_random(test) {
        s.push_str(SEED_RANDOM);
    }
    s.push_str(setup);
    if !s.is_empty() && !s.ends_with('\n') {
        s.push('\n');
    }
    s.push_str(test);
    while !s.ends_with("\n\n") {
        s.push('\n');
    }
    s.push_str(&format!("check({entry})\n"));
    s
}

/// The request of a prompt: the description in the docstring of the function under test; for a
/// prompt that is only a string (MBPP+), that string; else the prompt's text on one line.
pub fn query_of(prompt: &str, entry: &str) -> String {
    let desc = pysrc::docstring(prompt, entry)
        .map(|d| pysrc::description(&d))
        .filter(|d| !d.is_empty());
    if let Some(d) = desc {
        return d;
    }
    if let Some(s) = pysrc::string_value(prompt.trim()) {
        let d = pysrc::description(&pysrc::cleandoc(&s));
        if !d.is_empty() {
            return d;
        }
    }
    prompt.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The tests of a HumanEval-style record: `check` split into units, each with the prompt (minus
/// its function under test) as setup.
pub fn tests(prompt: &str, test: &str, entry: &str) -> Result<Vec<String>, String> {
    tests_calling(prompt, test, entry, entry, "")
}

/// [`tests`] where the function `check` is given (`call`) is not the prompt's own (`def`):
/// HumanEval-X runs HumanEval's Python `check` against another language's function, named as
/// that language names it (`check(hasCloseElements)`); the setup is still the Python prompt
/// without its `def`, followed by `extra` (trusted judge-side text).
pub fn tests_calling(
    prompt: &str,
    test: &str,
    def: &str,
    call: &str,
    extra: &str,
) -> Result<Vec<String>, String> {
    let mut setup = pysrc::without_def(prompt, def).ok_or_else(|| {
        format!("the prompt does not define the entry point `{def}` at top level")
    })?;
    if !extra.is_empty() {
        if !setup.is_empty() && !setup.ends_with('\n') {
            setup.push('\n');
        }
        setup.push_str(extra);
    }
    Ok(match pysrc::check_units(test)? {
        CheckSplit::Units(units) => units.iter().map(|u| compose(&setup, u, call)).collect(),
        CheckSplit::Whole(whole) => vec![compose(&setup, &whole, call)],
    })
}

/// A HumanEval record as a problem, or why not.
pub fn problem(line: usize, rec: &J) -> Result<Problem, String> {
    let task_id = field(rec, "task_id")?;
    let prompt = field(rec, "prompt")?;
    let solution = field(rec, "canonical_solution")?;
    let entry = field(rec, "entry_point")?;
    let test = field(rec, "test")?;
    let base = tests(&prompt, &test, &entry)?;
    Ok(Problem {
        line,
        task_id,
        query: query_of(&prompt, &entry),
        canonical: format!("{prompt}{solution}"),
        prompt,
        entry,
        base,
        plus: Vec::new(),
        notes: Vec::new(),
        language: execscope_record::Language::Python,
        reference_ms: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_becomes_tests_with_the_prompt_as_setup() {
        let rec = super::super::pyjson::parse(
            r#"{"task_id": "HumanEval/2", "prompt": "from typing import List\n\ndef helper(x):\n    return x\n\ndef truncate(number: float) -> float:\n    \"\"\" Return the decimal part.\n    >>> truncate(3.5)\n    0.5\n    \"\"\"\n", "canonical_solution": "    return number % 1.0\n", "entry_point": "truncate", "test": "\n\nMETADATA = {}\n\n\ndef check(candidate):\n    assert candidate(3.5) == 0.5\n    assert abs(candidate(1.33) - 0.33) < 1e-6\n"}"#,
        )
        .unwrap();
        let p = problem(7, &rec).unwrap();
        assert_eq!(p.query, "Return the decimal part.");
        assert!(p
            .canonical
            .ends_with("    \"\"\"\n    return number % 1.0\n"));
        assert_eq!(p.base.len(), 2);
        assert_eq!(
            p.base[0],
            "from typing import List\n\ndef helper(x):\n    return x\n\n\n\nMETADATA = {}\n\n\ndef check(candidate):\n    assert candidate(3.5) == 0.5\n\ncheck(truncate)\n"
        );
        assert!(p.base[1].contains("assert abs(candidate(1.33) - 0.33) < 1e-6\n"));
        assert!(!p.base[1].contains("candidate(3.5)"));
    }

    #[test]
    fn random_inputs_are_seeded_and_missing_fields_named() {
        let t = compose(
            "",
            "def check(c):\n    import random\n    assert c(random.random())\n",
            "f",
        );
        assert!(t.starts_with(SEED_RANDOM));
        assert!(
            !compose("", "def check(c):\n    assert c(randomize)\n", "f").starts_with(SEED_RANDOM)
        );
        let rec =
            super::super::pyjson::parse(r#"{"task_id": "x", "prompt": "def f():\n    pass\n"}"#)
                .unwrap();
        assert_eq!(
            problem(1, &rec).unwrap_err(),
            "missing field `canonical_solution`"
        );
        let rec = super::super::pyjson::parse(
            r#"{"task_id": "x", "prompt": "def g():\n    pass\n", "canonical_solution": "", "entry_point": "f", "test": "def check(c):\n    assert c()\n"}"#,
        )
        .unwrap();
        assert!(problem(1, &rec)
            .unwrap_err()
            .contains("does not define the entry point `f`"));
    }

    #[test]
    fn query_falls_back_to_a_string_prompt() {
        assert_eq!(
            query_of(
                "'''\nWrite a function to add.\nassert add(1, 2) == 3\n'''\n",
                "add"
            ),
            "Write a function to add. assert add(1, 2) == 3"
        );
        assert_eq!(query_of("# add two\n", "add"), "# add two");
    }
}
