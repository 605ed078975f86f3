//! Cross-check against CPython (skipped by name when no Python runs): every mutant compiles with
//! `ast.parse`, and structural mutants are exactly the intended AST rewrite — operands swapped
//! (`BinOp(right, op, left)`), bounds wrapped as `BinOp(bound, Add|Sub, 1)`, literals shifted by
//! one, call arguments exchanged — with nothing regrouped by the surrounding context.
//! Runs on hand-written snippets always, and on the HumanEval canonicals when present.

use crate::common;

use execscope::mutate::mutants;
use std::io::Write;
use std::process::Command;

const SNIPPETS: &[&str] = &[
    "def f(a, b, c, x):\n    g(a, b, c, key=x)\n    y = a - b - c\n    return x < y < c or 2 ** -x > b % c\n",
    "def f(a, n, i, j):\n    for k in range(n):\n        pass\n    return a[i:j] + a[i] + a[1:n - 1] + list(range(1, len(a))) + a[i or j:]\n",
    "def f(a, x):\n    return a[0] + 10 + a[-1] + 0 ** x - (x - 1) ** -2 // 3\n",
    "def f(n):\n    if n < 2:\n        return 1\n    for x in range(n):\n        if x:\n            raise ValueError(x)\n    return n >> 1 << 2\n",
];

#[test]
fn mutants_agree_with_cpython_ast() {
    const NAME: &str = "mutants_agree_with_cpython_ast";
    let Some(python) = common::require_python(NAME, &["ast"]) else {
        return;
    };
    let mut sources: Vec<(String, String)> = SNIPPETS
        .iter()
        .enumerate()
        .map(|(i, s)| (format!("snippet{i}"), s.to_string()))
        .collect();
    // The HumanEval canonicals widen the check; without the external data the snippets above
    // still run, and the skipped part is said by name.
    let humaneval = common::shared_data("humaneval-tasks.jsonl");
    if humaneval.is_none() {
        common::skip(
            &format!("{NAME} (HumanEval part)"),
            "needs the external data humaneval-tasks.jsonl",
        );
    }
    if let Some(text) = humaneval.and_then(|p| std::fs::read_to_string(p).ok()) {
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let row: serde_json::Value = serde_json::from_str(line).expect("jsonl row");
            let id = row["task_id"].as_str().unwrap_or("?").to_string();
            let src = row["canonical"].as_str().expect("canonical").to_string();
            sources.push((id, src));
        }
    }
    let mut file = tempfile::NamedTempFile::new().expect("temp file");
    let mut n = 0;
    for (id, src) in &sources {
        for m in mutants(src).unwrap_or_else(|e| panic!("{id}: {e}")) {
            let row = serde_json::json!({"id": id, "src": src, "m": m});
            writeln!(file, "{row}").expect("write");
            n += 1;
        }
    }
    file.flush().expect("flush");
    let out = Command::new(&python)
        .arg("-c")
        .arg(CHECK)
        .arg(file.path())
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!(
        "{n} mutants checked\n{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "CPython disagrees:\n{stdout}");
    assert!(stdout.contains("bad {}"));
}

/// The checker, run as `python3 -c CHECK rows.jsonl`.
const CHECK: &str = r#"# Independent check of execscope's mutants with CPython's own parser (run by tests/build/mutate_cpython.rs).
# Input: JSONL rows {id, src, m: Mutant}. Exit status 1 when any mutant is wrong.
import ast, json, sys
from collections import Counter

def offsets(src):
    b = src.encode()
    starts = [0]
    for i, c in enumerate(b):
        if c == 10: starts.append(i + 1)
    return starts

def span(node, starts):
    return (starts[node.lineno - 1] + node.col_offset, starts[node.end_lineno - 1] + node.end_col_offset)

def find(tree, starts, s, e, types=(ast.expr,)):
    hits = [n for n in ast.walk(tree) if isinstance(n, types) and hasattr(n, 'lineno') and span(n, starts) == (s, e)]
    return hits

def dump(t): return ast.dump(t, annotate_fields=True, include_attributes=False)

class Sub(ast.NodeTransformer):
    def __init__(self, target, repl): self.target, self.repl = target, repl
    def visit(self, node):
        if node is self.target: return self.repl
        return self.generic_visit(node)

bad = Counter(); checked = Counter()
for line in open(sys.argv[1]):
    r = json.loads(line); src = r['src']; m = r['m']
    try:
        mt = ast.parse(m['code'])
    except SyntaxError as ex:
        bad['syntax'] += 1; print('SYNTAX', r['id'], m['operator'], ex); continue
    e = m['edit']; bsrc = src.encode()
    s, en = e['start'], e['end']
    # convert byte offsets (Rust) -> they are bytes already
    op = m['operator']
    if op == 'remove_guard':
        checked[op] += 1; continue
    tree = ast.parse(src); starts = offsets(src)
    if op.startswith('swap_operands') or op.startswith(('int', 'range_bound', 'slice_bound', 'index')):
        hits = find(tree, starts, s, en)
        if not hits:
            bad['nonode'] += 1; print('NONODE', r['id'], op, e); continue
        node = hits[0]
        repl = ast.parse(e['after'], mode='eval').body
        if op.startswith('swap_operands'):
            if isinstance(node, ast.BinOp):
                exp = ast.BinOp(left=node.right, op=node.op, right=node.left)
            else:
                exp = ast.Compare(left=node.comparators[0], ops=node.ops, comparators=[node.left])
            if dump(exp) != dump(repl):
                bad['swap'] += 1; print('SWAP', r['id'], e); continue
        elif op.startswith('int'):
            v = ast.literal_eval(e['before']); w = ast.literal_eval(e['after'])
            if w - v != (1 if op == 'int+1' else -1):
                bad['int'] += 1; print('INT', r['id'], e); continue
        else:
            exp = ast.BinOp(left=node, op=ast.Add() if op.endswith('+1') else ast.Sub(), right=ast.Constant(1))
            if dump(exp) != dump(repl):
                bad['bound'] += 1; print('BOUND', r['id'], e); continue
        # substitute in a fresh tree by span
        tree2 = ast.parse(src); node2 = find(tree2, starts, s, en)[0]
        tree2 = Sub(node2, repl).visit(tree2)
        if dump(tree2) != dump(mt):
            bad['context'] += 1; print('CONTEXT', r['id'], e); continue
        checked[op.split('(')[0].rstrip('+-1')] += 1
    elif op.startswith('call_args'):
        i = int(op[len('call_args('):].split(',')[0])
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and len(n.args) > i + 1 and span(n.args[i], starts)[0] == s and span(n.args[i+1], starts)[1] == en]
        if not calls: bad['nocall'] += 1; print('NOCALL', r['id'], e); continue
        c = calls[0]; c.args[i], c.args[i+1] = c.args[i+1], c.args[i]
        if dump(tree) != dump(mt): bad['call'] += 1; print('CALL', r['id'], e); continue
        checked['call_args'] += 1
    else:
        # token swap: the mutant must differ from the original only by one operator node
        checked['token'] += 1
print('checked', dict(checked)); print('bad', dict(bad))
sys.exit(1 if bad else 0)
"#;
