use super::reference::Output;
use super::*;
use crate::formats::pyjson::parse;

fn args(task: u32, json: &str) -> Result<String, String> {
    let p = Py::from_json(&parse(json).unwrap()).unwrap();
    mbpp_args(task, p).map(|a| a.iter().map(Py::source).collect::<Vec<_>>().join(", "))
}

#[test]
fn mbpp_inputs_are_converted_as_evalplus_loads_them() {
    assert_eq!(args(2, "[[3, 4], [5, 7]]").unwrap(), "(3, 4), (5, 7)");
    assert_eq!(args(2, r#"["ab", []]"#).unwrap(), "('a', 'b'), ()");
    assert_eq!(args(63, "[[[1, 2], [3, 4]]]").unwrap(), "[(1, 2), (3, 4)]");
    assert_eq!(
        args(75, "[[[1, 2]], 3, 9]").unwrap(),
        "[(1, 2)], 3",
        "a third argument is dropped"
    );
    assert_eq!(args(750, "[[1], [2, 3]]").unwrap(), "[1], (2, 3)");
    assert_eq!(
        args(115, r#"[[[1], [], 5, [2, 2]]]"#).unwrap(),
        "[{1}, {}, {}, {2, 2}]"
    );
    assert_eq!(
        args(124, r#"[1, "1+2j"]"#).unwrap(),
        "float(1), complex('1+2j')"
    );
    assert_eq!(args(250, "[[1, 2], 3]").unwrap(), "(1, 2), 3");
    assert_eq!(
        args(259, "[[[1, 2]], [[3]]]").unwrap(),
        "((1, 2),), ((3,),)"
    );
    assert_eq!(
        args(278, r#"[[1, [2, 3], "a"]]"#).unwrap(),
        "(1, (2, 3), 'a')"
    );
    assert_eq!(args(307, "[[1, 2], 3, 4, 5]").unwrap(), "(1, 2), 3, 4");
    assert_eq!(
        args(722, r#"[{"a": [1, 2]}, 3]"#).unwrap(),
        "{'a': (1, 2)}, 3"
    );
    assert_eq!(args(252, "[3]").unwrap(), "complex(3)");
    assert_eq!(
        args(580, r#"[[1, [2, [3]]], "x"]"#).unwrap(),
        "(1, (2, (3,))), 'x'"
    );
    assert_eq!(args(3, "[[1, 2], 3.5]").unwrap(), "[1, 2], 3.5");
    assert!(args(75, "[[[1]]]").unwrap_err().contains("argument 2"));
    assert!(args(2, "[5]").unwrap_err().contains("not iterable"));
    assert!(args(3, "5").unwrap_err().contains("list of arguments"));
}

fn task(id: &str, entry: &str, atol: f64) -> PlusTask {
    PlusTask {
        line: 1,
        task_id: id.into(),
        entry: entry.into(),
        prompt: String::new(),
        solution: String::new(),
        atol,
        dataset: Dataset::of(id),
        inputs: [Vec::new(), Vec::new()],
    }
}

#[test]
fn plain_comparison_is_one_assert() {
    let t = task("Mbpp/3", "f", 0.0);
    assert_eq!(
        compare_test(&t, "1, 2", "3", 0.0, 0.0),
        "assert f(1, 2) == 3\n"
    );
}

#[test]
fn special_oracles_by_dataset_and_entry() {
    let t = task("Mbpp/2", "similar_elements", 0.0);
    assert_eq!(
        compare_test(&t, "(1, 2), (2,)", "(2,)", 0.0, 0.0),
        "_out = similar_elements((1, 2), (2,))\n_expected = (2,)\nassert set(_out) == set(_expected)\n"
    );
    // The same name outside MBPP is an ordinary task.
    let t = task("HumanEval/9", "similar_elements", 0.0);
    assert_eq!(
        compare_test(&t, "1", "2", 0.0, 0.0),
        "assert similar_elements(1) == 2\n"
    );
    let t = task("Mbpp/581", "surface_Area", 0.0);
    let s = compare_test(&t, "3, 4", "33", 0.0, 0.0);
    assert!(s.starts_with(SURFACE_AREA));
    assert!(s.ends_with("assert _out == _expected or abs(_out - _es_surface_area(3, 4)) <= 0.0\n"));
    let t = task("Mbpp/90", "check_str", 0.0);
    assert!(compare_test(&t, "'a'", "True", 0.0, 0.0).ends_with(
        "assert (_out == _expected) if isinstance(_out, bool) else (_expected == (_out is not None))\n"
    ));
    let t = task("HumanEval/32", "find_zero", 1e-4);
    assert!(!t.needs_reference());
    assert_eq!(
        compare_test(&t, "[1, 2]", "None", 1e-4, 1e-4),
        format!("{POLY}\n_out = find_zero([1, 2])\nassert abs(_es_poly([1, 2], _out)) <= 0.0001\n")
    );
}

#[test]
fn float_tolerance_carries_over_as_evalplus_loop_leaves_it() {
    // atol 0, expected outputs int, float, int: from the float on, atol is 1e-6.
    let mut t = task("Mbpp/7", "g", 0.0);
    t.inputs[1] = vec![Ok("1".into()), Ok("2".into()), Ok("3".into())];
    let out = |lit: &str, f: bool| {
        Ok(Output {
            literal: lit.into(),
            is_floats: f,
            ms: 0,
        })
    };
    let expected = [
        Vec::new(),
        vec![out("1", false), out("0.5", true), out("7", false)],
    ];
    let p = problem_of(&t, &expected);
    assert_eq!(p.plus[0], "assert g(1) == 1\n");
    for (test, exp) in p.plus[1..].iter().zip(["0.5", "7"]) {
        assert!(test.starts_with(ALLCLOSE), "{test}");
        assert!(test.ends_with(&format!(
            "_out = g({})\n_expected = {exp}\nassert (_out == _expected) or _es_allclose(_out, _expected, 1e-6)\n",
            if exp == "7" { 3 } else { 2 }
        )));
    }
    // The base suite starts again from the task's atol (EvalPlus checks base and plus apart).
    t.inputs[0] = vec![Ok("4".into())];
    let p = problem_of(&t, &[vec![out("8", false)], expected[1].clone()]);
    assert_eq!(p.base, vec!["assert g(4) == 8\n".to_string()]);
}

#[test]
fn inputs_left_out_are_named() {
    let mut t = task("Mbpp/7", "g", 0.0);
    t.inputs[0] = vec![Err("an integer of 5000 digits".into()), Ok("1".into())];
    let p = problem_of(
        &t,
        &[
            vec![
                Err("unused".into()),
                Err("the reference raises ValueError on it".into()),
            ],
            Vec::new(),
        ],
    );
    assert!(p.base.is_empty());
    assert_eq!(
        p.notes,
        vec![
            "base input 1 left out: an integer of 5000 digits",
            "base input 2 left out: the reference raises ValueError on it",
        ]
    );
}

#[test]
fn a_record_reads_with_python_json_extensions() {
    let rec = parse(r#"{"task_id": "Mbpp/404", "prompt": "'''\nMinimum of two.\n'''", "entry_point": "minimum", "canonical_solution": "\ndef minimum(a, b):\n  return min(a, b)\n", "base_input": [[1, 2]], "plus_input": [[Infinity, -Infinity], [NaN, 1]], "atol": 0}"#).unwrap();
    let t = plus_task(3, &rec).unwrap();
    assert_eq!(t.dataset, Dataset::Mbpp);
    assert_eq!(t.inputs[0], vec![Ok("1, 2".to_string())]);
    assert_eq!(
        t.inputs[1],
        vec![
            Ok("float('inf'), -float('inf')".to_string()),
            Ok("float('nan'), 1".to_string())
        ]
    );
    assert_eq!(
        t.program(),
        "'''\nMinimum of two.\n'''\ndef minimum(a, b):\n  return min(a, b)\n"
    );
    // An empty object where the inputs go (MBPP+'s Mbpp/793) is no inputs, as EvalPlus reads it;
    // anything else that is not a list is refused.
    let rec = parse(r#"{"task_id": "Mbpp/793", "prompt": "", "entry_point": "last", "canonical_solution": "", "base_input": [[[1, 2], 1]], "plus_input": {}, "atol": 0}"#).unwrap();
    let t = plus_task(1, &rec).unwrap();
    assert_eq!((t.inputs[0].len(), t.inputs[1].len()), (1, 0));
    let rec = parse(r#"{"task_id": "Mbpp/793", "prompt": "", "entry_point": "last", "canonical_solution": "", "base_input": [[[1, 2], 1]], "plus_input": {"a": 1}, "atol": 0}"#).unwrap();
    assert_eq!(
        plus_task(1, &rec).unwrap_err(),
        "field `plus_input` must be a list, got an object"
    );
    let rec = parse(r#"{"task_id": "Mbpp/1", "prompt": "", "entry_point": "f", "canonical_solution": "", "atol": 0}"#).unwrap();
    assert_eq!(
        plus_task(1, &rec).unwrap_err(),
        "missing field `base_input`"
    );
}
