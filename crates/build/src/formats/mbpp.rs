//! MBPP records as [`Problem`]s: the original file (`mbpp.jsonl`: `task_id`, `text`, `code`,
//! `test_list`, `test_setup_code`, `challenge_test_list`) and the hand-verified subset
//! (`sanitized-mbpp.json`: `prompt`, `code`, `test_imports`, `test_list`).
//!
//! MBPP's harness runs the code, then the setup code, then the asserts, in one program. Here the
//! setup is trusted benchmark text run by the judge before each assert, so a setup that builds
//! objects of the code's own classes (task 367's `Node` tree) builds them through the sandbox and
//! the assert judges the function's answer on them. MBPP names no function under test: it is
//! the first name the asserts call that the code defines at top level.

use super::{field, string_list, task_id, unix_lines, Problem};
use crate::ast;
use crate::formats::pyjson::J;

/// MBPP task ids are integers; they read as `Mbpp/<n>`, the name EvalPlus gives the same task,
/// so MBPP and MBPP+ pools and reports name a task alike.
pub fn id_of(raw: &str) -> String {
    if raw.chars().all(|c| c.is_ascii_digit()) && !raw.is_empty() {
        format!("Mbpp/{raw}")
    } else {
        raw.to_string()
    }
}

/// The function under test: the first name called by the asserts (in order) that `code` defines
/// at top level.
pub fn entry_of(code: &str, tests: &[String]) -> Option<String> {
    let defs = ast::top_level_defs(code);
    tests
        .iter()
        .flat_map(|t| ast::called_names(t))
        .find(|n| defs.contains(n))
}

/// `setup` and one assert as one test (the setup first, as MBPP's harness runs it).
pub fn with_setup(setup: &str, assert: &str) -> String {
    if setup.trim().is_empty() {
        return assert.to_string();
    }
    let mut s = setup.trim_end().to_string();
    s.push('\n');
    s.push_str(assert);
    s
}

/// An MBPP record (original or sanitized) as a problem, or why not.
pub fn problem(line: usize, rec: &J) -> Result<Problem, String> {
    let raw_id = task_id(rec).ok_or("missing field `task_id` (a number or a string)")?;
    let query = match (rec.get("text"), rec.get("prompt")) {
        (Some(_), _) => field(rec, "text")?,
        (None, Some(_)) => field(rec, "prompt")?,
        (None, None) => return Err("missing field `text` (or `prompt`)".into()),
    };
    let code = unix_lines(&field(rec, "code")?);
    let setup = match (rec.get("test_setup_code"), rec.get("test_imports")) {
        (Some(J::Str(_)), _) => unix_lines(&field(rec, "test_setup_code")?),
        (_, Some(_)) => string_list(rec, "test_imports")?
            .unwrap_or_default()
            .join("\n"),
        _ => String::new(),
    };
    let asserts = string_list(rec, "test_list")?.ok_or("missing field `test_list`")?;
    let challenge = string_list(rec, "challenge_test_list")?.unwrap_or_default();
    let asserts: Vec<String> = asserts.iter().map(|t| unix_lines(t)).collect();
    let challenge: Vec<String> = challenge.iter().map(|t| unix_lines(t)).collect();
    let entry = entry_of(&code, &asserts).ok_or_else(|| {
        "no function the tests call is defined at top level of `code` (MBPP names no entry \
         point; execscope takes the first one the asserts call)"
            .to_string()
    })?;
    Ok(Problem {
        line,
        task_id: id_of(&raw_id),
        entry,
        query,
        prompt: String::new(),
        canonical: code,
        base: asserts.iter().map(|a| with_setup(&setup, a)).collect(),
        plus: challenge.iter().map(|a| with_setup(&setup, a)).collect(),
        notes: Vec::new(),
        language: execscope_record::Language::Python,
        reference_ms: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::pyjson::parse;

    #[test]
    fn original_record_with_setup_and_challenge_tests() {
        let rec = parse(r#"{"text": "Check balance.", "code": "class Node:\r\n    def __init__(self, v):\r\n        self.v = v\r\ndef is_tree_balanced(r):\r\n    return True", "task_id": 367, "test_setup_code": "root = Node(1) \r\nroot.left = Node(2)", "test_list": ["assert is_tree_balanced(root) == True"], "challenge_test_list": ["assert is_tree_balanced(Node(3))"]}"#).unwrap();
        let p = problem(4, &rec).unwrap();
        assert_eq!(p.task_id, "Mbpp/367");
        assert_eq!(p.entry, "is_tree_balanced");
        assert_eq!(p.query, "Check balance.");
        assert!(!p.canonical.contains('\r'));
        assert_eq!(
            p.base,
            vec!["root = Node(1) \nroot.left = Node(2)\nassert is_tree_balanced(root) == True"]
        );
        assert_eq!(p.plus.len(), 1);
        assert!(p.prompt.is_empty());
    }

    #[test]
    fn sanitized_record_and_entry_inference() {
        let rec = parse(r#"{"source_file": "x", "task_id": 2, "prompt": "Shared elements.", "code": "import math\ndef helper(x):\n    return x\ndef similar_elements(a, b):\n  return tuple(set(a) & set(b))", "test_imports": ["import math"], "test_list": ["assert set(similar_elements((3, 4),(4, 5))) == set((4,))"]}"#).unwrap();
        let p = problem(1, &rec).unwrap();
        assert_eq!(
            p.entry, "similar_elements",
            "`set` is called first but not defined"
        );
        assert_eq!(
            p.base[0],
            "import math\nassert set(similar_elements((3, 4),(4, 5))) == set((4,))"
        );
        let rec = parse(r#"{"task_id": 9, "text": "q", "code": "def f(): pass", "test_list": ["assert g() == 1"]}"#).unwrap();
        assert!(problem(1, &rec)
            .unwrap_err()
            .contains("no function the tests call"));
        assert_eq!(id_of("Mbpp/3"), "Mbpp/3");
    }
}
