//! EvalPlus's HumanEval+ and MBPP+ (`task_id`, `prompt`, `entry_point`, `canonical_solution`,
//! `base_input`, `plus_input`, `atol`) as [`Problem`]s.
//!
//! EvalPlus stores inputs, not expected outputs: its evaluator computes them by running the
//! reference solution (`prompt + canonical_solution`) and compares a candidate's output with
//! them by its own rules. Here the reference runs in the sandbox like any code, its outputs come
//! back as data ([`reference`](mod@reference)), and each input becomes one trusted judge-side test that calls
//! the function and compares as EvalPlus does ([`compare_test`]): `==`, then, for floats,
//! `numpy.allclose` with `rtol=1e-07` and the task's `atol` (1e-6 once an expected output of the
//! suite was a float, as EvalPlus's loop leaves it), and EvalPlus's per-task oracles (MBPP's
//! set-equal and not-None tasks, Mbpp/164, /295, /558, /581, HumanEval/32's `find_zero`).
//! MBPP+ inputs are first converted as EvalPlus converts them ([`mbpp_args`]: lists that the
//! tasks take as tuples, sets, complex numbers).

pub mod reference;

use super::pyjson::{Py, J};
use super::{field, humaneval, Problem, Records, Unread};
use execscope_oracle::{Job, SuiteResult};

/// The Python helpers a comparison may need, trusted judge-side code written into the test.
pub const ALLCLOSE: &str = include_str!("../../assets/evalplus/allclose.py");
pub const POLY: &str = include_str!("../../assets/evalplus/poly.py");
pub const SURFACE_AREA: &str = include_str!("../../assets/evalplus/surface_area.py");
pub const DIGIT_DISTANCE: &str = include_str!("../../assets/evalplus/digit_distance.py");

/// EvalPlus's MBPP tasks whose outputs are compared as sets (`set(out) == set(expected)`).
pub const SET_EQ_TASKS: [&str; 8] = [
    "similar_elements",
    "find_char_long",
    "common_in_nested_lists",
    "extract_singly",
    "larg_nnum",
    "intersection_array",
    "find_dissimilar",
    "Diff",
];

/// EvalPlus's MBPP tasks whose expected output is only whether the reference returned a value
/// (`out is not None`; a bool output is compared with it).
pub const NOT_NONE_TASKS: [&str; 3] = ["check_str", "text_match_three", "text_starta_endb"];

/// Which benchmark a task is from: EvalPlus's special oracles are per dataset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dataset {
    HumanEval,
    Mbpp,
    /// Neither id prefix: no special oracle applies.
    Other,
}

impl Dataset {
    pub fn of(task_id: &str) -> Dataset {
        if task_id.starts_with("HumanEval/") {
            Dataset::HumanEval
        } else if task_id.starts_with("Mbpp/") {
            Dataset::Mbpp
        } else {
            Dataset::Other
        }
    }
}

/// One EvalPlus task as read, before its reference outputs are known.
#[derive(Clone, Debug)]
pub struct PlusTask {
    pub line: usize,
    pub task_id: String,
    pub entry: String,
    pub prompt: String,
    pub solution: String,
    pub atol: f64,
    pub dataset: Dataset,
    /// Per suite (base, plus): each input's argument list as Python source, or why it cannot
    /// be passed.
    pub inputs: [Vec<Result<String, String>>; 2],
}

/// The suites' names, in order.
pub const SUITES: [&str; 2] = ["base", "plus"];

impl PlusTask {
    /// The reference program, as EvalPlus runs it.
    pub fn program(&self) -> String {
        format!("{}{}", self.prompt, self.solution)
    }

    /// Whether the comparison needs no expected output (`find_zero` is judged by the polynomial).
    pub fn needs_reference(&self) -> bool {
        !(self.dataset == Dataset::HumanEval && self.entry == "find_zero")
    }

    /// What the reference's output is reported as: the output, or for EvalPlus's not-None tasks
    /// whether it is not None.
    pub fn expected_of(&self, call: &str) -> String {
        if self.dataset == Dataset::Mbpp && NOT_NONE_TASKS.contains(&self.entry.as_str()) {
            format!("({call}) is not None")
        } else {
            call.to_string()
        }
    }
}

/// An EvalPlus record, parsed (inputs converted, not yet run).
pub fn plus_task(line: usize, rec: &J) -> Result<PlusTask, String> {
    let task_id = field(rec, "task_id")?;
    let entry = field(rec, "entry_point")?;
    let prompt = field(rec, "prompt")?;
    let solution = field(rec, "canonical_solution")?;
    let atol = match rec.get("atol") {
        None | Some(J::Null) => 0.0,
        Some(J::Num(t)) => t.parse::<f64>().map_err(|e| format!("`atol` {t}: {e}"))?,
        Some(v) => return Err(format!("field `atol` must be a number, got {}", v.kind())),
    };
    let dataset = Dataset::of(&task_id);
    let number: Option<u32> = task_id.rsplit('/').next().and_then(|n| n.parse().ok());
    let mut inputs: [Vec<Result<String, String>>; 2] = [Vec::new(), Vec::new()];
    for (k, key) in ["base_input", "plus_input"].into_iter().enumerate() {
        let items = match rec.get(key) {
            None | Some(J::Null) if k == 1 => continue,
            // MBPP+ v0.2.0 publishes Mbpp/793 with `"plus_input": {}`: EvalPlus iterates it as
            // no inputs, and so does this reader.
            Some(J::Obj(m)) if m.is_empty() => continue,
            Some(J::Arr(items)) => items,
            None => return Err(format!("missing field `{key}`")),
            Some(v) => return Err(format!("field `{key}` must be a list, got {}", v.kind())),
        };
        for inp in items {
            let args = Py::from_json(inp).and_then(|p| match (dataset, number) {
                (Dataset::Mbpp, Some(n)) => mbpp_args(n, p),
                _ => plain_args(p),
            });
            inputs[k].push(args.map(|a| a.iter().map(Py::source).collect::<Vec<_>>().join(", ")));
        }
    }
    Ok(PlusTask {
        line,
        task_id,
        entry,
        prompt,
        solution,
        atol,
        dataset,
        inputs,
    })
}

/// An input as EvalPlus passes it (`fn(*inp)`): the list's items are the arguments.
fn plain_args(inp: Py) -> Result<Vec<Py>, String> {
    match inp {
        Py::List(v) | Py::Tuple(v) => Ok(v),
        other => Err(format!(
            "an input must be a list of arguments, got `{}`",
            other.source()
        )),
    }
}

fn nth(args: &[Py], i: usize) -> Result<&Py, String> {
    args.get(i).ok_or_else(|| {
        format!(
            "the input has {} argument(s), the task converts argument {}",
            args.len(),
            i + 1
        )
    })
}

/// Python's `tuple(x) for x in xs` over the items of `xs`, as a list.
fn tuples_in(xs: &Py) -> Result<Py, String> {
    Ok(Py::List(
        xs.items()?
            .iter()
            .map(Py::tuple)
            .collect::<Result<_, _>>()?,
    ))
}

/// Every list inside `p` (lists of lists included, nothing else) made a tuple.
fn lists_to_tuples(p: &Py) -> Py {
    match p {
        Py::List(v) => Py::Tuple(v.iter().map(lists_to_tuples).collect()),
        other => other.clone(),
    }
}

/// MBPP+ stores some tasks' inputs in JSON-friendly forms and converts them when loading (its
/// `mbpp_deserialize_inputs`): the same conversions, by task number, on one input.
pub fn mbpp_args(task: u32, inp: Py) -> Result<Vec<Py>, String> {
    const TUPLE_ARGS: [u32; 22] = [
        2, 116, 132, 143, 222, 261, 273, 394, 399, 421, 424, 429, 470, 560, 579, 596, 616, 630,
        726, 740, 744, 809,
    ];
    const TUPLES_IN_ARGS: [u32; 15] = [
        63, 64, 70, 94, 120, 237, 272, 299, 400, 409, 417, 438, 473, 614, 780,
    ];
    let args = plain_args(inp.clone())?;
    let a0 = || nth(&args, 0);
    let a1 = || nth(&args, 1);
    Ok(match task {
        t if TUPLE_ARGS.contains(&t) => args.iter().map(Py::tuple).collect::<Result<_, _>>()?,
        t if TUPLES_IN_ARGS.contains(&t) => args.iter().map(tuples_in).collect::<Result<_, _>>()?,
        75 | 413 | 444 | 753 => vec![tuples_in(a0()?)?, a1()?.clone()],
        106 | 750 => vec![a0()?.clone(), a1()?.tuple()?],
        115 => {
            let items = a0()?.items()?;
            let sets = items
                .iter()
                .map(|item| match item {
                    Py::List(v) if !v.is_empty() => Py::Set(v.clone()),
                    _ => Py::Dict(Vec::new()),
                })
                .collect();
            vec![Py::List(sets)]
        }
        124 => vec![
            Py::Call("float", Box::new(a0()?.clone())),
            Py::Call("complex", Box::new(a1()?.clone())),
        ],
        250 | 405 | 446 | 617 | 720 | 763 | 808 => vec![a0()?.tuple()?, a1()?.clone()],
        259 | 401 | 445 => args
            .iter()
            .map(|a| tuples_in(a).and_then(|l| l.tuple()))
            .collect::<Result<_, _>>()?,
        278 => {
            let first = a0()?
                .items()?
                .iter()
                .map(|it| {
                    if it.is_list() {
                        it.tuple()
                    } else {
                        Ok(it.clone())
                    }
                })
                .collect::<Result<Vec<_>, _>>()?;
            vec![Py::Tuple(first)]
        }
        307 => vec![a0()?.tuple()?, a1()?.clone(), nth(&args, 2)?.clone()],
        722 => {
            let Py::Dict(m) = a0()? else {
                return Err("Mbpp/722 converts a dict argument".into());
            };
            let d = m
                .iter()
                .map(|(k, v)| Ok((k.clone(), v.tuple()?)))
                .collect::<Result<Vec<_>, String>>()?;
            std::iter::once(Py::Dict(d))
                .chain(args[1..].iter().cloned())
                .collect()
        }
        252 => vec![Py::Call("complex", Box::new(a0()?.clone()))],
        580 | 615 | 791 => match lists_to_tuples(&inp) {
            Py::Tuple(v) => v,
            other => vec![other],
        },
        _ => args,
    })
}

/// The per-task oracle EvalPlus applies before its float rule.
fn special<'a>(t: &PlusTask, args: &str, atol_before: &str) -> (Option<&'a str>, String) {
    let e = t.entry.as_str();
    match t.dataset {
        Dataset::Mbpp if e == "are_equivalent" => (None, "(_out == _expected) or True".into()),
        Dataset::Mbpp if e == "sum_div" => (None, "_out == _expected or _out == 0".into()),
        Dataset::Mbpp if e == "surface_Area" => (
            Some(SURFACE_AREA),
            format!("_out == _expected or abs(_out - _es_surface_area({args})) <= {atol_before}"),
        ),
        Dataset::Mbpp if e == "digit_distance_nums" => (
            Some(DIGIT_DISTANCE),
            format!("_out == _expected or _out == _es_digit_distance({args})"),
        ),
        Dataset::Mbpp if SET_EQ_TASKS.contains(&e) => (None, "set(_out) == set(_expected)".into()),
        Dataset::Mbpp if NOT_NONE_TASKS.contains(&e) => (
            None,
            "(_out == _expected) if isinstance(_out, bool) else (_expected == (_out is not None))"
                .into(),
        ),
        _ => (None, String::new()),
    }
}

/// A float as Python source (Rust's shortest round-trip form reads back as the same float).
pub fn py_float(x: f64) -> String {
    format!("{x:?}")
}

/// The judge-side test of one input: call the function with `args`, compare with `expected`
/// (a Python literal) by EvalPlus's rules. `atol_before` / `atol_after` are the tolerance in
/// force before and after EvalPlus's loop looked at this input's expected output.
pub fn compare_test(
    t: &PlusTask,
    args: &str,
    expected: &str,
    atol_before: f64,
    atol_after: f64,
) -> String {
    let call = format!("{}({args})", t.entry);
    if !t.needs_reference() {
        return format!(
            "{POLY}\n_out = {call}\nassert abs(_es_poly({args}, _out)) <= {}\n",
            py_float(atol_before)
        );
    }
    let (helper, exact) = special(t, args, &py_float(atol_before));
    if exact.is_empty() && atol_after == 0.0 {
        return format!("assert {call} == {expected}\n");
    }
    let exact = if exact.is_empty() {
        "_out == _expected".to_string()
    } else {
        exact
    };
    let mut s = String::new();
    for h in helper
        .into_iter()
        .chain((atol_after != 0.0).then_some(ALLCLOSE))
    {
        s.push_str(h);
        s.push('\n');
    }
    s.push_str(&format!("_out = {call}\n_expected = {expected}\n"));
    if atol_after == 0.0 {
        s.push_str(&format!("assert {exact}\n"));
    } else {
        s.push_str(&format!(
            "assert ({exact}) or _es_allclose(_out, _expected, {})\n",
            py_float(atol_after)
        ));
    }
    s
}

/// Runs a named batch of jobs (a build's or an audit's runner); an `Err` is that job's failure.
pub type RunPhase<'a> = dyn FnMut(&str, &[Job]) -> Vec<Result<SuiteResult, String>> + 'a;

/// The problems of an EvalPlus file: its references run through `run` (two phases: every
/// output's head, then the rest of long outputs), then one test per input. A task whose
/// reference could not be run is [`Unread`]; inputs that cannot be judged are left out and
/// named in the problem's notes.
pub fn read(records: &Records, run: &mut RunPhase<'_>) -> (Vec<Problem>, Vec<Unread>) {
    let mut unread = Vec::new();
    let mut tasks = Vec::new();
    for (line, rec) in &records.items {
        match rec
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|r| plus_task(*line, r))
        {
            Ok(t) => tasks.push(t),
            Err(reason) => unread.push(Unread {
                line: *line,
                task_id: rec
                    .as_ref()
                    .ok()
                    .and_then(super::task_id)
                    .unwrap_or_default(),
                reason,
            }),
        }
    }
    let outputs = reference::outputs(&tasks, run);
    let mut problems = Vec::new();
    for (t, out) in tasks.iter().zip(outputs) {
        match out {
            Err(reason) => unread.push(Unread {
                line: t.line,
                task_id: t.task_id.clone(),
                reason,
            }),
            Ok(expected) => problems.push(problem_of(t, &expected)),
        }
    }
    (problems, unread)
}

/// The problem of a task whose reference outputs are known (per suite, per input: the
/// expected literal with its `is_floats` flag, or why the input is left out).
pub fn problem_of(t: &PlusTask, expected: &[Vec<Result<reference::Output, String>>; 2]) -> Problem {
    let mut suites: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    let mut times: [Vec<u32>; 2] = [Vec::new(), Vec::new()];
    let mut notes = Vec::new();
    for k in 0..2 {
        let mut atol = t.atol;
        for (i, (args, exp)) in t.inputs[k].iter().zip(&expected[k]).enumerate() {
            let before = atol;
            if t.needs_reference() {
                if let Ok(o) = exp {
                    if atol == 0.0 && o.is_floats {
                        atol = 1e-6;
                    }
                }
            }
            let test = match (args, exp) {
                (Err(why), _) | (_, Err(why)) => Err(why.clone()),
                (Ok(a), Ok(o)) => Ok(compare_test(t, a, &o.literal, before, atol)),
            };
            match test {
                Ok(s) => {
                    suites[k].push(s);
                    times[k].push(exp.as_ref().map_or(0, |o| o.ms));
                }
                Err(why) => notes.push(format!("{} input {} left out: {why}", SUITES[k], i + 1)),
            }
        }
    }
    let [base, plus] = suites;
    let [base_ms, plus_ms] = times;
    Problem {
        line: t.line,
        task_id: t.task_id.clone(),
        entry: t.entry.clone(),
        query: humaneval::query_of(&t.prompt, &t.entry),
        prompt: t.prompt.clone(),
        canonical: t.program(),
        base,
        plus,
        notes,
        language: execscope_record::Language::Python,
        reference_ms: base_ms.into_iter().chain(plus_ms).collect(),
    }
}

/// Whether `lit` is one Python expression statement (a guard on what the judge reported,
/// before it is written into a test).
pub fn is_expression(lit: &str) -> bool {
    crate::ast::single_expression(lit)
}

#[cfg(test)]
mod tests;
