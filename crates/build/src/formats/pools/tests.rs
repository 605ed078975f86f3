use super::*;

fn spec(id: &str, f: &str) -> TaskSpec {
    TaskSpec {
        task_id: id.into(),
        function_name: f.into(),
        base: vec![format!("assert {f}(1) == 1")],
        plus: Vec::new(),
        prelude: format!("def {f}(x):\n"),
        ..TaskSpec::default()
    }
}

/// Each row as (task, sample index, whole program).
fn shape(rows: &[PoolRow]) -> Vec<(&str, i64, bool)> {
    rows.iter()
        .map(|r| (r.task_id.as_str(), r.sample_index, r.whole))
        .collect()
}

fn read(text: &str, specs: &[TaskSpec]) -> Result<(Vec<PoolRow>, PoolFormat), AuditError> {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("pool");
    std::fs::write(&p, text).unwrap();
    read_pool(&p, specs, None).map(|(r, f)| (r.rows, f))
}

#[test]
fn samples_join_completions_and_keep_solutions_whole() {
    let specs = [spec("HumanEval/0", "f"), spec("Mbpp/2", "g")];
    let (rows, f) = read(
        "{\"task_id\": \"HumanEval/0\", \"completion\": \"    return x\\n\"}\n\
         {\"task_id\": \"HumanEval/0\", \"solution\": \"def f(x):\\n    return 1\\n\"}\n\
         {\"task_id\": 2, \"completion\": \"def g(x): return x\"}\n",
        &specs,
    )
    .unwrap();
    assert_eq!(f, PoolFormat::Samples);
    let got = shape(&rows);
    assert_eq!(
        got,
        vec![
            ("HumanEval/0", 0, false),
            ("HumanEval/0", 1, true),
            ("Mbpp/2", 0, false)
        ]
    );
    assert_eq!(rows[0].program(&specs[0]), "def f(x):\n    return x\n");
    assert_eq!(rows[1].program(&specs[0]), "def f(x):\n    return 1\n");
}

#[test]
fn bigcode_lists_follow_the_task_order() {
    let specs = [spec("HumanEval/0", "f"), spec("HumanEval/1", "h")];
    let (rows, f) = read(
        "[[\"def f(x):\\n    return x\\n\", \"    return 2\\n\"], [\"def h(x): return 0\"]]",
        &specs,
    )
    .unwrap();
    assert_eq!(f, PoolFormat::Bigcode);
    let got = shape(&rows);
    assert_eq!(
        got,
        vec![
            ("HumanEval/0", 0, true),
            ("HumanEval/0", 1, false),
            ("HumanEval/1", 0, true)
        ]
    );
    let e = read("[[\"x\"]]", &specs).unwrap_err().to_string();
    assert!(e.contains("1 lists of generations for 2 tasks"), "{e}");
}

#[test]
fn bigcode_mbpp_test_split_is_tasks_11_to_510() {
    let specs: Vec<TaskSpec> = (1..=974)
        .map(|n| spec(&format!("Mbpp/{n}"), &format!("f{n}")))
        .collect();
    let text = format!("[{}]", vec!["[\"def f11(x): return x\"]"; 500].join(", "));
    let (rows, _) = read(&text, &specs).unwrap();
    assert_eq!(rows.len(), 500);
    assert_eq!(rows[0].task_id, "Mbpp/11");
    assert!(rows[0].whole);
    assert_eq!(rows[499].task_id, "Mbpp/510");
    assert!(
        !rows[499].whole,
        "f11 is not task 510's function: joined to its prompt"
    );
}

#[test]
fn lm_eval_logs_take_filtered_responses_else_raw() {
    let specs = [spec("HumanEval/0", "f"), spec("HumanEval/1", "h")];
    let (rows, f) = read(
        "{\"doc_id\": 0, \"doc\": {\"task_id\": \"HumanEval/0\"}, \"resps\": [[\"    return 9\"]], \"filtered_resps\": [[\"def f(x):\\n    return x\", \"def f(x):\\n    return 0\"]]}\n\
         {\"doc_id\": 1, \"doc\": {\"prompt\": \"p\"}, \"resps\": [\"    return 1\"]}\n",
        &specs,
    )
    .unwrap();
    assert_eq!(f, PoolFormat::LmEval);
    let got = shape(&rows);
    assert_eq!(
        got,
        vec![
            ("HumanEval/0", 0, true),
            ("HumanEval/0", 1, true),
            ("HumanEval/1", 0, false)
        ]
    );
}

#[test]
fn ids_match_exactly_else_by_an_unambiguous_number() {
    let specs = [
        spec("Mbpp/2", "g"),
        spec("HumanEval/2", "h"),
        spec("Mbpp/3", "k"),
    ];
    let ids = Ids::new(&specs);
    assert_eq!(ids.find("Mbpp/2").unwrap().function_name, "g");
    assert_eq!(ids.find("3").unwrap().function_name, "k");
    assert!(ids.find("2").is_none(), "two tasks end in 2");
    assert!(ids.find("Mbpp/9").is_none());
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("samples.jsonl");
    std::fs::write(&p, "{\"task_id\": \"HumanEval/0\"}\n").unwrap();
    let e = read_pool(&p, &specs, Some(PoolFormat::Samples))
        .unwrap_err()
        .to_string();
    assert!(e.contains(":1: a sample needs a string `completion` or `generation` (joined to the prompt) or `solution` (the whole program)"), "{e}");
}

/// Issue 43 item 3: a row that cannot be read (a lone surrogate escape as Python's `json`
/// writes it, a wrong type, no JSON at all) is left out with its line; the others are read.
#[test]
fn unreadable_rows_are_left_out_and_named() {
    let specs = [spec("HumanEval/0", "f"), spec("HumanEval/1", "h")];
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("samples.jsonl");
    std::fs::write(
        &p,
        "{\"task_id\": \"HumanEval/0\", \"completion\": \"    return x\\n\"}\n\
         {\"task_id\": \"HumanEval/0\", \"completion\": \"    return '\\ud800'\\n\"}\n\
         {\"task_id\": \"HumanEval/1\", \"completion\": 7}\n\
         {not json\n\
         {\"task_id\": \"HumanEval/1\", \"completion\": \"    return 1\\n\"}\n",
    )
    .unwrap();
    let (read, _) = read_pool(&p, &specs, Some(PoolFormat::Samples)).unwrap();
    let got = shape(&read.rows);
    assert_eq!(
        got,
        vec![("HumanEval/0", 0, false), ("HumanEval/1", 0, false)]
    );
    let lines: Vec<usize> = read.rejected.iter().map(|r| r.line).collect();
    assert_eq!(lines, [2, 3, 4]);
    assert!(
        read.rejected[0].reason.contains("lone surrogate"),
        "{:?}",
        read.rejected
    );
    assert_eq!(read.rejected[1].task_id.as_deref(), Some("HumanEval/1"));
    // The same in execscope's own form, with a repeated sample index.
    let p = dir.path().join("pool.jsonl");
    std::fs::write(
        &p,
        "{\"task_id\": \"HumanEval/0\", \"sample_index\": 0, \"code\": \"\\ud800\", \"self_tests\": \"\"}\n\
         {\"task_id\": \"HumanEval/0\", \"sample_index\": 0, \"code\": \"def f(x): return x\", \"self_tests\": \"\"}\n\
         {\"task_id\": \"HumanEval/0\", \"sample_index\": 0, \"code\": \"def f(x): return 0\", \"self_tests\": \"\"}\n\
         {\"task_id\": \"HumanEval/0\", \"sample_index\": \"1\", \"code\": \"\", \"self_tests\": \"\"}\n",
    )
    .unwrap();
    let (read, f) = read_pool(&p, &specs, None).unwrap();
    assert_eq!(f, PoolFormat::Execscope);
    assert_eq!(read.rows.len(), 1);
    assert_eq!(read.rows[0].line, 2);
    let why: Vec<(usize, &str)> = read
        .rejected
        .iter()
        .map(|r| (r.line, r.reason.as_str()))
        .collect();
    assert!(
        why[0].1.contains("lone surrogate escape (\\ud800"),
        "{why:?}"
    );
    assert!(why[1].1.starts_with("duplicate sample_index 0"), "{why:?}");
    assert!(why[2].1.contains("invalid type"), "{why:?}");
    assert_eq!(why.iter().map(|w| w.0).collect::<Vec<_>>(), [1, 3, 4]);
}

#[test]
fn fenced_answers_are_read_from_inside_the_fence() {
    let answer = "Here is the function:\n```python\nimport math\n\ndef f(x):\n    return x\n```\nIt returns x.\n";
    assert_eq!(
        unfence(answer, "f").unwrap(),
        "import math\n\ndef f(x):\n    return x\n"
    );
    // The block that defines the function, not an example before it; an unclosed fence
    // runs to the end.
    let two = "```\nf(1)\n```\n```py\ndef f(x):\n    return 1\n";
    assert_eq!(unfence(two, "f").unwrap(), "def f(x):\n    return 1\n");
    // A docstring's fence inside a body is code, not a fence.
    let body = "    \"\"\"\n    ```\n    f(1)\n    ```\n    \"\"\"\n    return x\n";
    assert_eq!(unfence(body, "f"), None);
    assert_eq!(unfence("    return x\n", "f"), None);
    let specs = [spec("HumanEval/0", "f")];
    let (rows, _) = read(
        &format!(
            "{{\"task_id\": \"HumanEval/0\", \"completion\": {}}}\n",
            serde_json::to_string(answer).unwrap()
        ),
        &specs,
    )
    .unwrap();
    assert!(rows[0].sanitized);
    assert_eq!(rows[0].code, "import math\n\ndef f(x):\n    return x\n");
}
