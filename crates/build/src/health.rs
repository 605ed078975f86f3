//! `execscope check --oracle`: is the oracle able to tell right from wrong on this bundle?
//!
//! Per query: the reference (every correct snippet) must pass its suite, and a negative control
//! must be rejected. The control is the first canonical with the target function wrapped so that
//! it raises on one chosen input — the arguments of the first call of the function in the first
//! test that calls it, evaluated once when the snippet is defined — and behaves as the original on
//! every other input. A suite that still passes it never looks at the result for that input (or
//! the oracle swallows exceptions): either way the query's verdicts cannot be trusted.
//!
//! A function among those arguments (a test's `lambda`) is the test's: the judge keeps it and
//! the code gets a stand-in it can call but not read, so the control takes any such stand-in for
//! any function of the chosen input (a suite's calls with other functions may then raise too).

use super::ast;
use execscope_core::bundle::model::Bundle;
use execscope_oracle::Oracle;

/// The exception the control raises (its name shows up as `FAIL:<name>` outcomes).
pub const CONTROL_EXCEPTION: &str = "ExecscopeNegativeControl";

/// The canonical with `function_name` raising on the first tested input, or `None` when no test
/// calls the function directly.
pub fn negative_control(code: &str, function_name: &str, tests: &[String]) -> Option<String> {
    let args = tests
        .iter()
        .find_map(|t| ast::first_call_args(t, function_name))?;
    let f = function_name;
    Some(format!(
        "{code}\n\n\
         import types as __execscope_types\n\
         def __execscope_pack(*a, **k):\n    return (a, k)\n\
         def __execscope_same(x, y):\n\
         \x20   if isinstance(y, __execscope_types.FunctionType) and callable(x) and \
         not isinstance(x, __execscope_types.FunctionType):\n\
         \x20       return True\n\
         \x20   if isinstance(x, __execscope_types.FunctionType):\n\
         \x20       return isinstance(y, __execscope_types.FunctionType) and \
         x.__code__.co_code == y.__code__.co_code and x.__code__.co_consts == y.__code__.co_consts\n\
         \x20   if type(x) is not type(y):\n\
         \x20       return False\n\
         \x20   if isinstance(x, (list, tuple)):\n\
         \x20       return len(x) == len(y) and all(__execscope_same(a, b) for a, b in zip(x, y))\n\
         \x20   if isinstance(x, dict):\n\
         \x20       return list(x) == list(y) and all(__execscope_same(x[k], y[k]) for k in x)\n\
         \x20   return bool(x == y)\n\
         __execscope_bad = __execscope_pack{args}\n\
         __execscope_orig = {f}\n\
         class {CONTROL_EXCEPTION}(Exception):\n    pass\n\
         def {f}(*a, **k):\n\
         \x20   try:\n\
         \x20       same = __execscope_same(__execscope_pack(*a, **k), __execscope_bad)\n\
         \x20   except Exception:\n\
         \x20       same = False\n\
         \x20   if same:\n\
         \x20       raise {CONTROL_EXCEPTION}('negative control')\n\
         \x20   return __execscope_orig(*a, **k)\n"
    ))
}

/// One query's health.
#[derive(Clone, Debug)]
pub struct QueryHealth {
    pub query_id: String,
    /// Per correct snippet: (corpus id, outcomes, passes).
    pub references: Vec<(String, Vec<String>, bool)>,
    /// Outcomes of the control, or why there is none.
    pub control: Result<Vec<String>, String>,
}

impl QueryHealth {
    pub fn reference_ok(&self) -> bool {
        !self.references.is_empty() && self.references.iter().all(|r| r.2)
    }
    /// The control failed at least one test.
    pub fn control_rejected(&self) -> bool {
        matches!(&self.control, Ok(o) if o.iter().any(|x| x != "pass"))
    }
    pub fn ok(&self) -> bool {
        self.reference_ok() && self.control_rejected()
    }
}

/// Runs every reference and control of `b` in one oracle batch.
pub fn oracle_health(
    b: &Bundle,
    oracle: &Oracle,
    progress: &(dyn Fn(usize) + Sync),
) -> Vec<QueryHealth> {
    let mut jobs: Vec<execscope_oracle::Job> = Vec::new();
    // Per query: job indices of references, and of the control (or why none).
    let mut plan: Vec<(Vec<usize>, Result<usize, String>)> = Vec::new();
    for q in &b.queries {
        let refs: Vec<usize> = q
            .correct
            .iter()
            .map(|&row| {
                jobs.push(
                    execscope_oracle::Job::new(b.corpus[row].code.clone(), q.tests.clone())
                        .entry(&q.function_name)
                        .language(q.language),
                );
                jobs.len() - 1
            })
            .collect();
        let control = match q.correct.first() {
            None => Err("no correct snippet".to_string()),
            // The control wraps the function in Python; another language's has none yet.
            Some(_) if !q.language.is_python() => Err(format!(
                "no negative control for {} (Python only)",
                q.language.display_name()
            )),
            Some(&row) => match negative_control(&b.corpus[row].code, &q.function_name, &q.tests) {
                None => Err(format!("no test calls `{}` directly", q.function_name)),
                Some(code) => {
                    jobs.push(
                        execscope_oracle::Job::new(code, q.tests.clone())
                            .entry(&q.function_name)
                            .language(q.language),
                    );
                    Ok(jobs.len() - 1)
                }
            },
        };
        plan.push((refs, control));
    }
    let results: Vec<Result<Vec<String>, String>> = oracle
        .run_batch(&jobs, progress)
        .into_iter()
        .map(|r| {
            r.map(|r| r.outcomes.iter().map(|o| o.to_string()).collect())
                .map_err(|e| e.to_string())
        })
        .collect();
    b.queries
        .iter()
        .zip(plan)
        .map(|(q, (refs, control))| QueryHealth {
            query_id: q.id.clone(),
            references: refs
                .iter()
                .zip(&q.correct)
                .map(|(&j, &row)| {
                    let (o, pass) = match &results[j] {
                        Ok(o) => (o.clone(), !o.is_empty() && o.iter().all(|x| x == "pass")),
                        Err(e) => (vec![format!("oracle error: {e}")], false),
                    };
                    (b.corpus[row].id.clone(), o, pass)
                })
                .collect(),
            control: control.and_then(|j| results[j].clone()),
        })
        .collect()
}
