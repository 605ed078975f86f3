//! Reading the task file (docs/task-file.md) and gate 1, schema: fields and types, unique
//! `task_id` and `function_name`, tests that parse as Python, as many as the [`TestRange`]
//! allows (at least three by default). A benchmark file in another format (HumanEval, MBPP,
//! EvalPlus) goes through the same gate once `crate::formats` has read it
//! (`formats::tasks::from_problem`).

use super::ast;
use execscope_core::bundle::model::DOMAINS;
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;

/// Fewest tests a task may have by default (docs/task-file.md).
pub const MIN_TESTS: usize = 3;

/// How many tests a task must have to pass gate 1: `min..` or `min..max` (inclusive), written
/// as on the command line (`--tests 7..10`, the paper's rule). The build report names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TestRange {
    pub min: usize,
    pub max: Option<usize>,
}

impl Default for TestRange {
    fn default() -> Self {
        TestRange {
            min: MIN_TESTS,
            max: None,
        }
    }
}

impl TestRange {
    /// Why `n` tests are not allowed, if they are not.
    pub fn refuses(&self, n: usize) -> Option<String> {
        if n < self.min {
            Some(format!("{n} test(s); at least {} are required", self.min))
        } else if self.max.is_some_and(|m| n > m) {
            Some(format!(
                "{n} tests; at most {} are allowed (--tests {self})",
                self.max.unwrap_or(n)
            ))
        } else {
            None
        }
    }
}

impl fmt::Display for TestRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.max {
            Some(m) => write!(f, "{}..{m}", self.min),
            None => write!(f, "{}..", self.min),
        }
    }
}

impl std::str::FromStr for TestRange {
    type Err = String;
    /// `7..10`, `3..`, `..10` (at least one) or `5` (exactly five).
    fn from_str(s: &str) -> Result<TestRange, String> {
        let bad = || format!("--tests {s:?}: expected MIN..MAX, MIN.. or N, e.g. 7..10");
        let num = |t: &str| t.trim().parse::<usize>().map_err(|_| bad());
        let (min, max) = match s.split_once("..") {
            Some((a, b)) => (
                if a.trim().is_empty() { 1 } else { num(a)? },
                if b.trim().is_empty() {
                    None
                } else {
                    Some(num(b)?)
                },
            ),
            None => (num(s)?, Some(num(s)?)),
        };
        if min == 0 || max.is_some_and(|m| m < min) {
            return Err(bad());
        }
        Ok(TestRange { min, max })
    }
}

/// The five gates of the paper (§3.3), in the order they run, plus `IndependentExecution`: the
/// task's optional `independent` implementation must pass every test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Gate {
    Schema,
    AstSemantics,
    CanonicalExecution,
    IndependentExecution,
    DistractorExecution,
    CorpusIntegrity,
}

impl Gate {
    pub const ALL: [Gate; 6] = [
        Gate::Schema,
        Gate::AstSemantics,
        Gate::CanonicalExecution,
        Gate::IndependentExecution,
        Gate::DistractorExecution,
        Gate::CorpusIntegrity,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Gate::Schema => "schema",
            Gate::AstSemantics => "ast_semantics",
            Gate::CanonicalExecution => "canonical_execution",
            Gate::IndependentExecution => "independent_execution",
            Gate::DistractorExecution => "distractor_execution",
            Gate::CorpusIntegrity => "corpus_integrity",
        }
    }
}

impl fmt::Display for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One task the builder turns into a query.
#[derive(Clone, Debug, PartialEq)]
pub struct Task {
    /// 1-based line in the task file.
    pub line: usize,
    pub task_id: String,
    pub function_name: String,
    pub query: String,
    pub domain: String,
    pub canonical: String,
    pub tests: Vec<String>,
    /// Optional second implementation written from the query alone (checked by
    /// [`Gate::IndependentExecution`]).
    pub independent: Option<String>,
    /// The language of `canonical` (and `independent`): what parses and mutates it
    /// (`mutate::mutants_in`) and how the oracle runs it (the job's language). The HumanEval-X
    /// reader sets it from the `task_id`; every other reader gives Python.
    pub language: crate::mutate::Language,
}

impl Task {
    /// The oracle job of `code` against this task's tests, its function as the entry point.
    pub fn job(&self, code: &str) -> execscope_oracle::Job {
        execscope_oracle::Job::new(code, self.tests.clone())
            .entry(&self.function_name)
            .language(self.language)
    }
}

/// A task the builder will not use, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Refusal {
    pub line: usize,
    /// "" when the line has no readable `task_id`.
    pub task_id: String,
    pub gate: Gate,
    pub reason: String,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let id = if self.task_id.is_empty() {
            "(no task_id)"
        } else {
            &self.task_id
        };
        write!(
            f,
            "line {} `{}`: refused at gate {}: {}",
            self.line, id, self.gate, self.reason
        )
    }
}

pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}

fn string_field(obj: &serde_json::Map<String, Value>, key: &str) -> Result<String, String> {
    match obj.get(key) {
        None => Err(format!("missing field `{key}`")),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(v) => Err(format!("field `{key}` must be a string, got {}", kind(v))),
    }
}

use execscope_core::bundle::files::json_kind as kind;

/// Parses one line into a task, or the schema problem (with whatever `task_id` was readable).
fn parse_line(line: usize, text: &str, range: TestRange) -> Result<Task, (String, String)> {
    let v: Value =
        serde_json::from_str(text).map_err(|e| (String::new(), format!("invalid JSON: {e}")))?;
    let Value::Object(obj) = v else {
        return Err((String::new(), format!("not a JSON object but {}", kind(&v))));
    };
    let task_id = match obj.get("task_id") {
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    };
    let fail = |reason: String| (task_id.clone(), reason);
    let id = string_field(&obj, "task_id").map_err(fail)?;
    if id.trim().is_empty() {
        return Err(fail("`task_id` is empty".into()));
    }
    let function_name = string_field(&obj, "function_name").map_err(fail)?;
    if !is_identifier(&function_name) {
        return Err(fail(format!(
            "`function_name` {function_name:?} is not a Python identifier"
        )));
    }
    let query = string_field(&obj, "query").map_err(fail)?;
    if query.trim().is_empty() {
        return Err(fail("`query` is empty".into()));
    }
    let domain = string_field(&obj, "domain").map_err(fail)?;
    if !domain.is_empty() && !DOMAINS.contains(&domain.as_str()) {
        return Err(fail(format!(
            "`domain` {domain:?} is not one of the ten domains ({}) or \"\"",
            DOMAINS.join(", ")
        )));
    }
    let canonical = string_field(&obj, "canonical").map_err(fail)?;
    if canonical.trim().is_empty() {
        return Err(fail("`canonical` is empty".into()));
    }
    let independent = match obj.get("independent") {
        None => None,
        Some(Value::String(s)) if s.trim().is_empty() => {
            return Err(fail("`independent` is empty".into()))
        }
        Some(Value::String(s)) => Some(s.clone()),
        Some(v) => {
            return Err(fail(format!(
                "field `independent` must be a string, got {}",
                kind(v)
            )))
        }
    };
    // A prelude (e.g. the imports a prompt gives) becomes part of the snippet: the canonical and
    // the independent implementation are stored and executed with it in front, so every
    // snippet in the corpus runs as it is retrieved.
    let (canonical, independent) = match obj.get("prelude") {
        None => (canonical, independent),
        Some(Value::String(p)) => (
            execscope_oracle::with_prelude(p, &canonical),
            independent.map(|i| execscope_oracle::with_prelude(p, &i)),
        ),
        Some(v) => {
            return Err(fail(format!(
                "field `prelude` must be a string, got {}",
                kind(v)
            )))
        }
    };
    let tests = match obj.get("tests") {
        None => return Err(fail("missing field `tests`".into())),
        Some(Value::Array(items)) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, t) in items.iter().enumerate() {
                match t {
                    Value::String(s) => out.push(s.clone()),
                    v => {
                        return Err(fail(format!(
                            "test {} must be a string, got {}",
                            i + 1,
                            kind(v)
                        )))
                    }
                }
            }
            out
        }
        Some(v) => {
            return Err(fail(format!(
                "field `tests` must be a list of strings, got {}",
                kind(v)
            )))
        }
    };
    check_tests(&tests, range).map_err(fail)?;
    Ok(Task {
        line,
        task_id: id,
        function_name,
        query,
        domain,
        canonical,
        tests,
        independent,
        language: crate::mutate::Language::Python,
    })
}

/// The tests rule of gate 1: a count within `range`, each test Python that parses (a
/// single-line `assert` is the simplest case; the judge runs any statements).
pub fn check_tests(tests: &[String], range: TestRange) -> Result<(), String> {
    if let Some(why) = range.refuses(tests.len()) {
        return Err(why);
    }
    for (i, t) in tests.iter().enumerate() {
        ast::python_test(t).map_err(|why| format!("test {} {why}", i + 1))?;
    }
    Ok(())
}

/// Gate 1 over a whole task file: the tasks that pass, in file order, and the refusals. Blank
/// lines are skipped. A duplicate `task_id` or `function_name` refuses the later line (naming the
/// earlier one).
pub fn read_tasks(text: &str) -> (Vec<Task>, Vec<Refusal>) {
    read_tasks_with(text, TestRange::default())
}

/// [`read_tasks`] with a tests rule other than the default.
pub fn read_tasks_with(text: &str, range: TestRange) -> (Vec<Task>, Vec<Refusal>) {
    let parsed = execscope_core::bundle::files::numbered_lines(text)
        .map(|(line, raw)| (line, parse_line(line, raw, range)));
    admit(parsed)
}

/// The tasks of gate 1 from each line's parse, in order: a duplicate `task_id` or
/// `function_name` refuses the later line (naming the earlier one).
pub fn admit(
    parsed: impl IntoIterator<Item = (usize, Result<Task, (String, String)>)>,
) -> (Vec<Task>, Vec<Refusal>) {
    admit_with(parsed, false)
}

/// [`admit`], where `shared_names` lets a later task reuse an earlier one's `function_name`
/// when its canonical differs (the benchmark rule, [`crate::rules`]): gate 5 then executes
/// the snippets of each against the other's tests. The same name with the same canonical is
/// still refused, as the same function twice.
pub fn admit_with(
    parsed: impl IntoIterator<Item = (usize, Result<Task, (String, String)>)>,
    shared_names: bool,
) -> (Vec<Task>, Vec<Refusal>) {
    let mut tasks: Vec<Task> = Vec::new();
    let mut refusals = Vec::new();
    let mut ids: HashMap<String, usize> = HashMap::new();
    let mut names: HashMap<String, usize> = HashMap::new();
    let same_function = |tasks: &[Task], t: &Task| {
        tasks
            .iter()
            .find(|o| o.function_name == t.function_name && o.canonical == t.canonical)
            .map(|o| o.line)
    };
    for (line, parsed) in parsed {
        match parsed {
            Err((task_id, reason)) => refusals.push(Refusal {
                line,
                task_id,
                gate: Gate::Schema,
                reason,
            }),
            Ok(t) => {
                let dup = if let Some(&first) = ids.get(&t.task_id) {
                    Some(format!("duplicate task_id (first on line {first})"))
                } else if shared_names {
                    same_function(&tasks, &t).map(|first| {
                        format!(
                            "the same function `{}` with the same canonical as line {first}",
                            t.function_name
                        )
                    })
                } else {
                    names.get(&t.function_name).map(|&first| {
                        format!(
                            "duplicate function_name `{}` (first on line {first})",
                            t.function_name
                        )
                    })
                };
                match dup {
                    Some(reason) => refusals.push(Refusal {
                        line,
                        task_id: t.task_id,
                        gate: Gate::Schema,
                        reason,
                    }),
                    None => {
                        ids.insert(t.task_id.clone(), line);
                        names.entry(t.function_name.clone()).or_insert(line);
                        tasks.push(t);
                    }
                }
            }
        }
    }
    (tasks, refusals)
}

/// Reads a task file: UTF-8 (an invalid byte is an error naming its line), a leading byte-order
/// mark ignored as in every JSON file execscope reads, then [`read_tasks`]. Only an unreadable
/// file is an error; bad lines are refusals.
pub fn read_task_file(
    path: &std::path::Path,
) -> Result<(Vec<Task>, Vec<Refusal>), execscope_core::bundle::BundleError> {
    read_task_file_with(path, TestRange::default())
}

/// [`read_task_file`] with a tests rule other than the default.
pub fn read_task_file_with(
    path: &std::path::Path,
    range: TestRange,
) -> Result<(Vec<Task>, Vec<Refusal>), execscope_core::bundle::BundleError> {
    let bytes = execscope_core::bundle::files::read(path)?;
    let text = execscope_core::bundle::files::json_text(path, &bytes)?;
    Ok(read_tasks_with(text, range))
}

/// Gate 2, AST semantics: the canonical is within the size the builder mutates, parses, defines
/// `function_name` at top level, and every test calls it (or hands it to a call, as
/// HumanEval's `check(candidate)` is given the function).
pub fn ast_gate(t: &Task) -> Result<(), String> {
    match crate::mutate::parse_problem_in(t.language, &t.canonical) {
        None => {}
        Some(crate::mutate::MutateError::Parse {
            line,
            column,
            problem,
            ..
        }) => {
            return Err(format!(
                "canonical does not parse: {problem} at line {line}, column {column}"
            ))
        }
        Some(e @ crate::mutate::MutateError::TooLarge { .. }) => {
            return Err(format!("canonical is too large to mutate: {e}"))
        }
        Some(e @ crate::mutate::MutateError::NoEntryPoint { .. }) => return Err(e.to_string()),
    }
    let defs = crate::mutate::function_names(t.language, &t.canonical);
    if !defs.iter().any(|d| d == &t.function_name) {
        return Err(format!(
            "canonical does not define `{}` at top level (defines: {})",
            t.function_name,
            if defs.is_empty() {
                "nothing".to_string()
            } else {
                defs.join(", ")
            }
        ));
    }
    for (i, test) in t.tests.iter().enumerate() {
        if !ast::calls_or_passes(test, &t.function_name) {
            return Err(format!(
                "test {} does not call `{}`: {test}",
                i + 1,
                t.function_name
            ));
        }
    }
    Ok(())
}

/// The message of a build whose every task was refused: how many, at which gates, and the first
/// few reasons.
pub fn all_refused(source: &str, refusals: &[Refusal]) -> String {
    let mut by_gate: Vec<(Gate, usize)> = Vec::new();
    for g in Gate::ALL {
        let n = refusals.iter().filter(|r| r.gate == g).count();
        if n > 0 {
            by_gate.push((g, n));
        }
    }
    let gates: Vec<String> = by_gate.iter().map(|(g, n)| format!("{n} at {g}")).collect();
    let mut msg = format!(
        "{source}: every one of its {} tasks was refused ({}); nothing to build",
        refusals.len(),
        gates.join(", ")
    );
    for r in refusals.iter().take(3) {
        let id = if r.task_id.is_empty() {
            "(no task_id)"
        } else {
            &r.task_id
        };
        msg.push_str(&format!(
            "\n  {source}:{}: `{id}` refused at gate {}: {}",
            r.line, r.gate, r.reason
        ));
    }
    if refusals.len() > 3 {
        msg.push_str(&format!("\n  … {} more", refusals.len() - 3));
    }
    msg
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = r#"{"task_id":"t1","function_name":"f","query":"q","domain":"","canonical":"def f(x):\n    return x\n","tests":["assert f(1) == 1","assert f(2) == 2","assert f(3) == 3"]}"#;

    #[test]
    fn schema_problems_name_the_line() {
        let text = format!(
            "{OK}\n\nnot json\n{}\n{}\n{}\n{OK}\n",
            OK.replace("\"t1\"", "\"t2\"")
                .replace("\"domain\":\"\"", "\"domain\":\"cooking\""),
            OK.replace("\"t1\"", "\"t3\"")
                .replace(",\"assert f(3) == 3\"", ""),
            OK.replace("\"t1\"", "\"t4\"")
                .replace("\"function_name\":\"f\"", "\"function_name\":\"g\"")
        );
        let (tasks, refusals) = read_tasks(&text);
        assert_eq!(tasks.iter().map(|t| t.line).collect::<Vec<_>>(), vec![1, 6]);
        let r: Vec<(usize, &str, &str)> = refusals
            .iter()
            .map(|r| (r.line, r.task_id.as_str(), r.reason.as_str()))
            .collect();
        assert_eq!(r[0].0, 3);
        assert!(r[0].2.starts_with("invalid JSON"));
        assert_eq!((r[1].0, r[1].1), (4, "t2"));
        assert!(r[1].2.contains("cooking"));
        assert!(r[2].2.contains("2 test(s)"));
        assert_eq!((r[3].0, r[3].1), (7, "t1"));
        assert_eq!(r[3].2, "duplicate task_id (first on line 1)");
    }

    #[test]
    fn shared_names_admit_a_different_canonical_only() {
        let other = OK
            .replace("\"t1\"", "\"t2\"")
            .replace("return x", "return x + 1");
        let same = OK.replace("\"t1\"", "\"t3\"");
        let text = format!("{OK}\n{other}\n{same}\n");
        let parsed = || {
            execscope_core::bundle::files::numbered_lines(&text)
                .map(|(line, raw)| (line, parse_line(line, raw, TestRange::default())))
                .collect::<Vec<_>>()
        };
        // The paper's rule: a name once.
        let (tasks, refusals) = admit_with(parsed(), false);
        assert_eq!(tasks.len(), 1);
        let r: Vec<(usize, &str)> = refusals
            .iter()
            .map(|r| (r.line, r.reason.as_str()))
            .collect();
        assert_eq!(
            r,
            vec![
                (2, "duplicate function_name `f` (first on line 1)"),
                (3, "duplicate function_name `f` (first on line 1)")
            ]
        );
        // The benchmark rule: the other function of the same name is kept, the same one is not.
        let (tasks, refusals) = admit_with(parsed(), true);
        let ids: Vec<&str> = tasks.iter().map(|t| t.task_id.as_str()).collect();
        assert_eq!(ids, vec!["t1", "t2"]);
        assert_eq!(refusals.len(), 1);
        assert_eq!(
            (refusals[0].line, refusals[0].reason.as_str()),
            (3, "the same function `f` with the same canonical as line 1")
        );
    }

    #[test]
    fn ast_gate_reasons() {
        let (tasks, _) = read_tasks(OK);
        let mut t = tasks[0].clone();
        assert!(ast_gate(&t).is_ok());
        t.canonical = "def g(x):\n    return x\n".into();
        assert!(ast_gate(&t).unwrap_err().contains("does not define `f`"));
        t.canonical = "def f(x)\n    return x\n".into();
        assert!(ast_gate(&t).unwrap_err().contains("does not parse"));
        t.canonical = "def f(x):\n    return x\n".into();
        t.tests[1] = "assert 1 == 1".into();
        assert!(ast_gate(&t)
            .unwrap_err()
            .starts_with("test 2 does not call"));
    }
}
