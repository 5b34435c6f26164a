"""What the rewriting of a function needs to know about it: the names statements assign and read,
which names are still read after each `if` (liveness), and where `return`s can be lifted out of
`if`s so that both branches end in the same place.

All of it works on one function's statements; nested functions and lambdas are opaque, except
that every name they read counts as read everywhere (they may run at any time).
"""

import ast

# Names the rewriting introduces; they end in "__" so that no class body mangles them.
RUNTIME = "__sl_rt__"
RETURN_VALUE = "__sl_ret__"
RESERVED_PREFIX = "__sl_"

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _walk_own(node, enter=True):
    """The nodes of `node`'s own scope, `node` included: nested functions, lambdas, classes and
    comprehensions are yielded but not entered (`node` itself is, with `enter`)."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        if (n is node and enter) or not isinstance(n, _SCOPES + _COMPREHENSIONS):
            todo.extend(ast.iter_child_nodes(n))


def assigned(stmts):
    """Names the statements bind in the function's scope, in order of first appearance (our own
    names excluded, except the return value)."""
    out = {}
    for s in stmts:
        for n in _walk_own(s, enter=False):
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                out.setdefault(n.id)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.setdefault(n.name)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                for a in n.names:
                    out.setdefault((a.asname or a.name).split(".")[0])
            elif isinstance(n, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and n.name:
                out.setdefault(n.name)
            elif isinstance(n, ast.MatchMapping) and n.rest:
                out.setdefault(n.rest)
    return [k for k in out if not k.startswith(RESERVED_PREFIX) or k == RETURN_VALUE]


def loaded(*nodes):
    """Every name read anywhere in `nodes` (nodes or lists of nodes), nested scopes included."""
    out = set()
    for node in nodes:
        for root in node if isinstance(node, list) else [node]:
            if root is None:
                continue
            for n in ast.walk(root):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                    out.add(n.id)
    return out


def declared(func, kind):
    """Names a `global` (kind ast.Global) or `nonlocal` (ast.Nonlocal) statement of `func` names."""
    return {name for n in _walk_own(func) if isinstance(n, kind) for name in n.names}


def read_by_nested_scopes(func):
    """Names read inside functions, lambdas and classes nested in `func`: they may run later."""
    out = set()
    for n in ast.walk(func):
        if n is not func and isinstance(n, _SCOPES):
            out |= loaded(n)
    return out


def has_own(node, kinds):
    """Whether a node of `kinds` occurs in `node`'s own scope."""
    return any(isinstance(n, kinds) for n in _walk_own(node))


def escapes_loop(node):
    """Whether `node` holds a `break` or `continue` that leaves it (not inside a loop of its own)."""
    todo = list(ast.iter_child_nodes(node))
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.Break, ast.Continue)):
            return True
        if not isinstance(n, _SCOPES + _COMPREHENSIONS + (ast.For, ast.AsyncFor, ast.While)):
            todo.extend(ast.iter_child_nodes(n))
        elif isinstance(n, (ast.For, ast.AsyncFor, ast.While)):
            todo.extend(n.orelse)  # a loop's else runs after it: a break there leaves `node`
    return False


# --- returns ------------------------------------------------------------------------------------

def terminates(stmts):
    """Whether the block always ends in `return` or `raise` (through nested if/else)."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    return isinstance(last, ast.If) and terminates(last.body) and terminates(last.orelse)


def normalize_returns(stmts):
    """Moves the statements after an `if` one of whose branches always returns into its other
    branch, so that early returns become if/else pairs; drops statements after a return."""
    out = []
    for i, s in enumerate(stmts):
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(s, field, None), list) and not isinstance(s, _SCOPES):
                setattr(s, field, normalize_returns(getattr(s, field)))
        for h in getattr(s, "handlers", []):
            h.body = normalize_returns(h.body)
        for c in getattr(s, "cases", []):
            c.body = normalize_returns(c.body)
        out.append(s)
        if isinstance(s, (ast.Return, ast.Raise)):
            break
        if isinstance(s, ast.If) and has_own(s, ast.Return):
            rest = stmts[i + 1:]
            if terminates(s.body) and not terminates(s.orelse):
                s.orelse = normalize_returns(s.orelse + rest)
                break
            if terminates(s.orelse) and not terminates(s.body):
                s.body = normalize_returns(s.body + rest)
                break
    return out


def _to_assignment(ret):
    """`return x` as `__sl_ret__ = x`; the function's implicit end returns an undefined value."""
    if getattr(ret, "sl_lifted", False):
        return []  # the inner if already left its value in __sl_ret__
    if getattr(ret, "sl_implicit", False):
        value = ast.Attribute(ast.Name(RUNTIME, ast.Load()), "UNDEFINED_RETURN", ast.Load())
    else:
        value = ret.value or ast.Constant(None)
    return [ast.copy_location(ast.Assign([ast.Name(RETURN_VALUE, ast.Store())], value), ret)]


def lift_returns(stmts):
    """Turns each `if` whose branches both end in return/raise into one that assigns
    __sl_ret__ in both and is followed by `return __sl_ret__`, innermost first."""
    out = []
    for s in stmts:
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(s, field, None), list) and not isinstance(s, _SCOPES):
                setattr(s, field, lift_returns(getattr(s, field)))
        for h in getattr(s, "handlers", []):
            h.body = lift_returns(h.body)
        out.append(s)
        if (isinstance(s, ast.If) and terminates(s.body) and terminates(s.orelse)
                and (isinstance(s.body[-1], ast.Return) or isinstance(s.orelse[-1], ast.Return))):
            for branch in (s.body, s.orelse):
                if isinstance(branch[-1], ast.Return):
                    branch[-1:] = _to_assignment(branch[-1])
                    if not branch:
                        branch.append(ast.copy_location(ast.Pass(), s))
            value = ast.Call(ast.Attribute(ast.Name(RUNTIME, ast.Load()), "retval", ast.Load()),
                             [ast.Name(RETURN_VALUE, ast.Load())], [])
            ret = ast.copy_location(ast.Return(value), s)
            ret.sl_lifted = True
            out.append(ret)
    return out


# --- liveness -----------------------------------------------------------------------------------

def annotate_liveness(stmts, live_after, always):
    """Sets `sl_live_out` on every `if` in `stmts`: the names that may be read after it. Returns
    the names live before the block. Conservative: compound statements kill nothing, loops keep
    alive whatever they read."""
    live = set(live_after)
    for s in reversed(stmts):
        live = _stmt_liveness(s, live, always)
    return live


def _stmt_liveness(s, live, always):
    if isinstance(s, ast.If):
        s.sl_live_out = live | always
        return (loaded(s.test) | annotate_liveness(s.body, live, always)
                | annotate_liveness(s.orelse, live, always))
    if isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
        inside = live | loaded(s)
        annotate_liveness(s.body, inside, always)
        annotate_liveness(s.orelse, live, always)
        return inside
    if isinstance(s, (ast.Return, ast.Raise)):
        return loaded(s)
    if isinstance(s, (ast.Try, getattr(ast, "TryStar", ast.Try))):
        annotate_liveness(s.finalbody, live, always)
        after = live | loaded(s.finalbody)
        for h in s.handlers:
            annotate_liveness(h.body, after, always)
        annotate_liveness(s.orelse, after, always)
        annotate_liveness(s.body, after | loaded(s.handlers, s.orelse), always)
        return live | loaded(s)
    if isinstance(s, (ast.With, ast.AsyncWith)):
        return annotate_liveness(s.body, live, always) | loaded(s.items)
    if isinstance(s, ast.Match):
        for c in s.cases:
            annotate_liveness(c.body, live, always)
        return live | loaded(s)
    if isinstance(s, _SCOPES):
        return (live - {s.name}) | loaded(s.decorator_list)
    kills = set()
    if isinstance(s, ast.Assign):
        kills = {t.id for t in s.targets if isinstance(t, ast.Name)}
    return (live - kills) | loaded(s)
