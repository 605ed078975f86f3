//! Which gate rules a build applies: the paper's for execscope's own task file, the *benchmark
//! rule* for a benchmark file as published (HumanEval, MBPP, EvalPlus; docs/formats.md, "The
//! benchmark rule").
//!
//! Why two: the paper's rules were written for a task file made for retrieval (one function
//! name per task, canonicals long enough for four distinct mutants). A benchmark file was
//! written for generation: it reuses function names for different functions, many canonicals
//! are one line, and its heaviest tests run a loop of calls across the judge–sandbox boundary.
//! Refusing those tasks measures the paper's rules, not the benchmark; the benchmark rule keeps
//! them while keeping what each rule protects — gate 5 still executes every snippet against
//! every other task of its function's name, a task still needs a distinct failing mutant, and
//! the canonical is still measured against the per-test budget. Every field is named in the
//! build report (`rules`), and each can be asked for on the command line for any file.

use crate::mutate::Operators;
use crate::task::TestRange;
use serde::Serialize;

/// The rules of gates 1, 3 and 4 a build applied.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Rules {
    /// `paper` or `benchmark`: which default set these came from.
    pub name: &'static str,
    /// Gate 1: how many tests a task must have.
    #[serde(serialize_with = "as_text")]
    pub tests: TestRange,
    /// Gate 1: whether two tasks may share a function name when their canonicals differ (gate
    /// 5 then executes every snippet of each against the other's tests).
    pub shared_names: bool,
    /// Gate 3: the canonical's slowest test must fit this many times into the per-test budget.
    pub cost_margin: u32,
    /// Gate 4: the mutation families.
    #[serde(serialize_with = "as_text")]
    pub operators: Operators,
    /// Gate 4: the fewest distinct failing mutants a task may keep.
    pub min_keep: usize,
}

fn as_text<T: std::fmt::Display, S: serde::Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}

/// The paper's margin: a canonical's slowest test takes at most a tenth of the budget.
pub const PAPER_COST_MARGIN: u32 = 10;
/// The benchmark rule's margin: at most half the budget (1 s of the default 2 s). HumanEval's
/// heaviest tests (100 random trials, each a call into the sandbox; cubic canonicals) take
/// 0.3–0.8 s on a loaded 2-core machine: the paper's tenth made gate 3 refuse them or not by
/// the machine's load, half the budget keeps them on any machine up to twice as slow.
pub const BENCHMARK_COST_MARGIN: u32 = 2;
/// The paper's fewest distractors per query.
pub const PAPER_MIN_KEEP: usize = 3;
/// The benchmark rule's: one distinct failing mutant. A query of a one-line canonical then has
/// fewer than the paper's three; the report counts queries by their number of distractors.
pub const BENCHMARK_MIN_KEEP: usize = 1;

/// What the command line asked for; `None` takes the format's default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Asked {
    pub tests: Option<TestRange>,
    pub operators: Option<Operators>,
    pub min_keep: Option<usize>,
}

impl Rules {
    /// The paper's rules (execscope's own task file).
    pub fn paper() -> Rules {
        Rules {
            name: "paper",
            tests: TestRange::default(),
            shared_names: false,
            cost_margin: PAPER_COST_MARGIN,
            operators: Operators::paper(),
            min_keep: PAPER_MIN_KEEP,
        }
    }

    /// The benchmark rule (a benchmark file as published).
    pub fn benchmark() -> Rules {
        Rules {
            name: "benchmark",
            tests: TestRange { min: 1, max: None },
            shared_names: true,
            cost_margin: BENCHMARK_COST_MARGIN,
            operators: Operators::all(),
            min_keep: BENCHMARK_MIN_KEEP,
        }
    }

    /// The rules for a file: the benchmark rule for a benchmark file as published
    /// (`Format::is_benchmark`), else the paper's; what was asked for replaces the defaults.
    pub fn for_file(benchmark: bool, asked: &Asked) -> Rules {
        let base = if benchmark {
            Rules::benchmark()
        } else {
            Rules::paper()
        };
        Rules {
            tests: asked.tests.unwrap_or(base.tests),
            operators: asked.operators.clone().unwrap_or(base.operators.clone()),
            min_keep: asked.min_keep.unwrap_or(base.min_keep).max(1),
            ..base
        }
    }
}

impl std::fmt::Display for Rules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} rule: tests {}, {} names, canonical within 1/{} of the budget, operators {}, \
             at least {} distractor{}",
            self.name,
            self.tests,
            if self.shared_names {
                "shared"
            } else {
                "unique"
            },
            self.cost_margin,
            self.operators,
            self.min_keep,
            if self.min_keep == 1 { "" } else { "s" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_file_keeps_the_paper_rules_and_benchmarks_take_theirs() {
        let none = Asked::default();
        assert_eq!(Rules::for_file(false, &none), Rules::paper());
        assert_eq!(Rules::for_file(true, &none), Rules::benchmark());
        let p = Rules::paper();
        assert_eq!((p.cost_margin, p.min_keep, p.shared_names), (10, 3, false));
        assert_eq!(p.operators, Operators::paper());
        let b = Rules::benchmark();
        assert_eq!((b.cost_margin, b.min_keep, b.shared_names), (2, 1, true));
        assert_eq!(b.operators, Operators::all());
    }

    #[test]
    fn what_is_asked_for_replaces_the_default() {
        let asked = Asked {
            tests: Some(TestRange {
                min: 7,
                max: Some(10),
            }),
            operators: Some(Operators::paper()),
            min_keep: Some(3),
        };
        let r = Rules::for_file(true, &asked);
        assert_eq!(r.name, "benchmark");
        assert_eq!(r.tests.to_string(), "7..10");
        assert_eq!(r.operators, Operators::paper());
        assert_eq!(r.min_keep, 3);
        assert!(r.shared_names);
        let zero = Asked {
            min_keep: Some(0),
            ..Asked::default()
        };
        assert_eq!(Rules::for_file(false, &zero).min_keep, 1);
        assert_eq!(
            Rules::benchmark().to_string(),
            "benchmark rule: tests 1.., shared names, canonical within 1/2 of the budget, \
             operators all, at least 1 distractor"
        );
    }
}
