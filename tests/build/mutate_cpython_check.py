# Independent check of execscope's mutants with CPython's own parser (run by
# tests/build/mutate_cpython.rs as `python3 -c <this file> rows.jsonl FAMILIES`).
# Input: JSONL rows {id, src, m: Mutant}. For each mutant it builds the AST the rule intends from
# the ORIGINAL's AST (located by the edit's byte span) and requires it to equal the mutant's AST,
# so nothing is regrouped by the surrounding context. Exit status 1 when any mutant is wrong, or
# when a family named in FAMILIES (comma-separated) was never checked.
import ast, copy, json, sys
from collections import Counter
from decimal import Decimal


def offsets(src):
    starts = [0]
    for i, c in enumerate(src.encode()):
        if c == 10:
            starts.append(i + 1)
    return starts


def span(node, starts):
    return (starts[node.lineno - 1] + node.col_offset,
            starts[node.end_lineno - 1] + node.end_col_offset)


def nodes(tree, types=(ast.AST,)):
    return [n for n in ast.walk(tree) if isinstance(n, types) and hasattr(n, 'lineno')]


def at(tree, starts, s, e, types=(ast.expr,)):
    return [n for n in nodes(tree, types) if span(n, starts) == (s, e)]


def dump(t):
    return ast.dump(t, annotate_fields=True, include_attributes=False)


class Sub(ast.NodeTransformer):
    def __init__(self, target, repl):
        self.target, self.repl = target, repl

    def visit(self, node):
        if node is self.target:
            return self.repl
        return self.generic_visit(node)


def call(name, arg):
    return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=[arg], keywords=[])


def expected_expr(op, node, before, after):
    """The expression the rule `op` makes of `node`, or a string saying why it is wrong."""
    repl = ast.parse(after.strip(), mode='eval').body
    if op.startswith('swap_operands'):
        if isinstance(node, ast.BinOp):
            return ast.BinOp(left=node.right, op=node.op, right=node.left)
        return ast.Compare(left=node.comparators[0], ops=node.ops, comparators=[node.left])
    if op in ('int+1', 'int-1'):
        d = ast.literal_eval(after) - ast.literal_eval(before)
        return repl if d == (1 if op == 'int+1' else -1) else 'int shift %r' % d
    if op.startswith(('range_bound', 'slice_bound', 'index')):
        return ast.BinOp(left=node, op=ast.Add() if op.endswith('+1') else ast.Sub(),
                         right=ast.Constant(1))
    if op.startswith('negate('):
        return ast.UnaryOp(op=ast.Not(), operand=node)
    if op == 'remove_not':
        ok = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
        return node.operand if ok else 'not a not'
    if op.startswith('remove_unary('):
        want = ast.USub if op == 'remove_unary(-)' else ast.Invert
        return node.operand if isinstance(node, ast.UnaryOp) and isinstance(node.op, want) else 'not a unary'
    if op in ('return->None', 'assign->None', 'lambda->None'):
        return ast.Constant(None)
    if op == 'loop_zero':
        return repl if dump(repl) in (dump(ast.List(elts=[], ctx=ast.Load())), dump(ast.Constant(False))) else 'zero'
    if op == 'loop_reversed':
        if isinstance(node, ast.Call) and getattr(node.func, 'id', '') == 'reversed' and len(node.args) == 1:
            return node.args[0]
        if dump(repl) == dump(call('reversed', node)):
            return repl
        return call('reversed', call('list', node))
    if op == 'except->Exception':
        return ast.Name(id='Exception', ctx=ast.Load())
    if op.startswith('except_narrow('):
        return node.elts[int(op[len('except_narrow('):-1])]
    if op in ('int->0', 'int->1', 'int->-1'):
        want = {'int->0': 0, 'int->1': 1, 'int->-1': -1}[op]
        ok = ast.literal_eval(after.strip('()')) == want and abs(ast.literal_eval(before) - want) > 1
        return repl if ok else 'int constant'
    if op == 'float->0.0':
        return repl if ast.literal_eval(after) == 0.0 and ast.literal_eval(before) != 0.0 else 'float zero'
    if op == 'float+1':
        return repl if Decimal(after) == Decimal(before) + 1 else 'float plus one'
    if op == 'str->empty':
        v, w = ast.literal_eval(before), ast.literal_eval(after)
        return repl if type(v) is type(w) and v and not w else 'empty string'
    if op in ('True->False', 'False->True'):
        return ast.Constant(op == 'False->True')
    return None


def stmt_lines(src, s, e):
    first = src.encode()[:s].count(b'\n') + 1
    last = src.encode()[:max(e - 1, s)].count(b'\n') + 1
    return first, last


def expected_tree(op, src, e):
    """The whole module the statement-level rule `op` makes, or a string saying why not."""
    tree = ast.parse(src)
    starts = offsets(src)
    s, en = e['start'], e['end']
    if op in ('remove_guard', 'delete_statement'):
        first, last = stmt_lines(src, s, en)
        want = ast.If if op == 'remove_guard' else (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign)
        for parent in ast.walk(tree):
            for field in ('body', 'orelse', 'finalbody'):
                body = getattr(parent, field, None)
                if not isinstance(body, list):
                    continue
                for i, st in enumerate(body):
                    if isinstance(st, want) and (st.lineno, st.end_lineno) == (first, last):
                        del body[i]
                        if not body:
                            body.append(ast.Pass())
                        return tree
        return 'no statement on lines %d-%d' % (first, last)
    if op == 'loop_once':
        # Nested loops can end at the same byte: the `break`'s indentation says whose body.
        indent = e['after'][1:-len('break')] if e['after'].startswith('\n') else None
        for loop in nodes(tree, (ast.For, ast.While, ast.AsyncFor)):
            same_line = loop.body[0].lineno == loop.lineno
            fits = same_line if indent is None else loop.body[0].col_offset == len(indent)
            if span(loop.body[-1], starts)[1] == s and fits:
                loop.body.append(ast.Break())
                return tree
        return 'no loop body ends at %d' % s
    if op in ('handler->raise', 'handler->pass'):
        for h in nodes(tree, (ast.ExceptHandler,)):
            if (span(h.body[0], starts)[0], span(h.body[-1], starts)[1]) == (s, en):
                h.body = [ast.Raise() if op == 'handler->raise' else ast.Pass()]
                return tree
        return 'no handler body at %d..%d' % (s, en)
    if op in ('break->continue', 'continue->break'):
        hits = at(tree, starts, s, en, (ast.Break, ast.Continue))
        if not hits:
            return 'no break/continue'
        tree = Sub(hits[0], ast.Continue() if op == 'break->continue' else ast.Break()).visit(tree)
        return tree
    if op.startswith('.'):
        old, new = op[1:].split('->.')
        for a in nodes(tree, (ast.Attribute,)):
            if span(a, starts)[1] == en and a.attr == old == e['before']:
                a.attr = new
                return tree
        return 'no attribute .%s' % old
    if op.startswith('remove_slice('):
        which = {'start': 'lower', 'stop': 'upper', 'step': 'step'}[op[len('remove_slice('):-1]]
        inside = [n for n in nodes(tree, (ast.Slice,)) if span(n, starts)[0] <= s and en <= span(n, starts)[1]]
        if not inside:
            return 'no slice'
        sl = min(inside, key=lambda n: span(n, starts)[1] - span(n, starts)[0])
        if getattr(sl, which) is None:
            return 'slice has no %s' % which
        setattr(sl, which, None)
        return tree
    if op.startswith('call_args'):
        i = int(op[len('call_args('):].split(',')[0])
        calls = [n for n in nodes(tree, (ast.Call,)) if len(n.args) > i + 1
                 and span(n.args[i], starts)[0] == s and span(n.args[i + 1], starts)[1] == en]
        if not calls:
            return 'no call'
        c = calls[0]
        c.args[i], c.args[i + 1] = c.args[i + 1], c.args[i]
        return tree
    return None


bad = Counter()
checked = Counter()
for line in open(sys.argv[1]):
    r = json.loads(line)
    src, m = r['src'], r['m']
    e, op = m['edit'], m['operator']
    try:
        mt = ast.parse(m['code'])
    except SyntaxError as ex:
        bad['syntax'] += 1
        print('SYNTAX', r['id'], op, ex)
        continue
    want = expected_tree(op, src, e)
    if want is None:
        starts = offsets(src)
        tree = ast.parse(src)
        hits = at(tree, starts, e['start'], e['end'])
        # CPython keeps no node for parentheses: `(n == 1)` is the comparison inside them.
        b, (s0, e0) = src.encode(), (e['start'], e['end'])
        while not hits and e0 - s0 > 2 and b[s0:s0 + 1] == b'(' and b[e0 - 1:e0] == b')':
            s0, e0 = s0 + 1, e0 - 1
            hits = at(tree, starts, s0, e0)
        if not hits:
            # a token swap (`+` → `-`, `<` → `<=`): the operator is not a node with a span
            if m['bug_type'] in ('wrong_operator', 'wrong_comparison') and '->' in op:
                checked[m['bug_type']] += 1
                continue
            bad['nonode'] += 1
            print('NONODE', r['id'], op, e)
            continue
        node = hits[0]
        exp = expected_expr(op, node, e['before'], e['after'])
        if exp is None:
            bad['unknown'] += 1
            print('UNKNOWN OPERATOR', r['id'], op)
            continue
        if isinstance(exp, str):
            bad['rule'] += 1
            print('RULE', r['id'], op, exp, e)
            continue
        repl = ast.parse(e['after'].strip(), mode='eval').body
        if dump(exp) != dump(repl):
            bad['rewrite'] += 1
            print('REWRITE', r['id'], op, e)
            continue
        want = Sub(node, repl).visit(tree)
    if isinstance(want, str):
        bad['rule'] += 1
        print('RULE', r['id'], op, want)
        continue
    if dump(want) != dump(mt):
        bad['context'] += 1
        print('CONTEXT', r['id'], op, e)
        continue
    checked[m['bug_type']] += 1

missing = [f for f in sys.argv[2].split(',') if f and not checked[f]]
if missing:
    bad['unchecked'] += len(missing)
    print('NEVER CHECKED', missing)
print('checked', dict(sorted(checked.items())))
print('bad', dict(bad))
sys.exit(1 if bad else 0)
