"""The rewriting of a function for conditionals, with Python's `ast`.

    if cond:                      def __sl_true_1__(y, z):
        y = f(x)                      y = f(x)
        z = 1                         z = 1
    else:                  ->         return (y, z)
        y = g(x)                  def __sl_false_1__(y, z):
                                      y = g(x)
                                      return (y, z)
                                  y, z = __sl_rt__.if_stmt(cond, __sl_true_1__, __sl_false_1__,
                                             __sl_rt__.get_state(locals(), ('y', 'z')), ('y', 'z'), 1)

The runtime (_runtime.py) runs one branch when `cond` is a Python value and both, on their
samples, when it is a DataNode. The last argument counts the names read after the `if` (listed
first): only those are merged. `a and b`, `a or b` and `not a` become calls of the runtime
(`and_(a, lambda: b)` keeps `b` lazy), and every call goes through `__sl_rt__.call`, which
converts the user's functions it reaches. Early returns are first turned into if/else pairs
(_analysis.py). Line numbers are kept, so tracebacks point at the user's code.
"""

import __future__
import ast
import inspect
import itertools
import textwrap
import types

from sluice._conditionals import _analysis as an
from sluice._conditionals._analysis import RUNTIME

_FRAME_DEPENDENT = {"super", "locals", "globals", "vars", "eval", "exec", "dir"}
_FUTURE_FLAGS = [getattr(__future__, f).compiler_flag for f in __future__.all_feature_names]


def _rt(attr):
    return ast.Attribute(ast.Name(RUNTIME, ast.Load()), attr, ast.Load())


def _rt_call(attr, args):
    return ast.Call(_rt(attr), args, [])


class _Expressions(ast.NodeTransformer):
    """Calls through the runtime; `and` / `or` / `not` as runtime calls. Nested functions and
    lambdas are left alone: they are converted when called."""

    def visit_FunctionDef(self, node):
        return node  # a function nested in the converted one: converted when called

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Name) and f.id in _FRAME_DEPENDENT:
            return node
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == RUNTIME:
            return node  # our own
        return ast.copy_location(ast.Call(_rt("call"), [f] + node.args, node.keywords), node)

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        if any(an.has_own(v, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await))
               for v in node.values):
            return node  # cannot move into a lambda; stays Python's
        name = "and_" if isinstance(node.op, ast.And) else "or_"
        result = node.values[-1]
        for v in reversed(node.values[:-1]):
            lazy = ast.Lambda(ast.arguments([], [], None, [], [], None, []), result)
            result = ast.copy_location(_rt_call(name, [v, lazy]), node)
        return result

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(_rt_call("not_", [node.operand]), node)
        return node


class _Ifs(ast.NodeTransformer):
    """Each convertible `if` as two branch functions and a runtime call, innermost first."""

    def __init__(self, declarations):
        self._declarations = declarations  # `global` / `nonlocal` statements the branches repeat
        self._outer = {n for d in declarations for n in d.names}  # not the branches' variables
        self._ids = itertools.count(1)

    def visit_FunctionDef(self, node):
        return node

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef

    def visit_If(self, node):
        self.generic_visit(node)
        if (an.has_own(node, (ast.Return, ast.Yield, ast.YieldFrom, ast.Await))
                or an.escapes_loop(node)):
            # Python's `if`; a DataNode condition is refused with the reason.
            node.test = ast.copy_location(_rt_call("python_test", [node.test]), node.test)
            return node
        state = [n for n in an.assigned(node.body + node.orelse) if n not in self._outer]
        live = getattr(node, "sl_live_out", set(state))
        outs = [n for n in state if n in live]
        names = outs + [n for n in state if n not in live]
        k = next(self._ids)
        branches = [self._branch(f"__sl_true_{k}__", node.body, names, node),
                    self._branch(f"__sl_false_{k}__", node.orelse, names, node)]
        names_tuple = ast.Tuple([ast.Constant(n) for n in names], ast.Load())
        get_state = _rt_call("get_state", [ast.Call(ast.Name("locals", ast.Load()), [], []),
                                           names_tuple])
        call = _rt_call("if_stmt", [node.test, ast.Name(branches[0].name, ast.Load()),
                                    ast.Name(branches[1].name, ast.Load()), get_state,
                                    names_tuple, ast.Constant(len(outs))])
        if names:
            target = ast.Tuple([ast.Name(n, ast.Store()) for n in names], ast.Store())
            result = ast.Assign([target], call)
        else:
            result = ast.Expr(call)
        return [*branches, ast.copy_location(result, node)]

    def _branch(self, name, body, names, where):
        args = ast.arguments([], [ast.arg(n) for n in names], None, [], [], None, [])
        ret = ast.Return(ast.Tuple([ast.Name(n, ast.Load()) for n in names], ast.Load()))
        stmts = [*self._declarations, *(body or [ast.Pass()]), ret]
        fn = ast.FunctionDef(name, args, stmts, [], None, None)
        fn.type_params = []
        return ast.copy_location(fn, where)


class NoSource(ValueError):
    """The function's source cannot be found (built in exec(), a REPL, ...)."""


def _parse(func):
    """The function's definition as an AST with the file's line numbers (a lambda as a `def`
    returning its expression)."""
    code = func.__code__
    if code.co_name == "<lambda>":
        return _parse_lambda(code)
    try:
        lines, first = inspect.getsourcelines(code)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError) as e:
        raise NoSource(f"its source is not available ({e})") from None
    fdef = tree.body[0] if tree.body else None
    if not isinstance(fdef, ast.FunctionDef) or fdef.name != code.co_name:
        raise NoSource("its source is not a plain `def`")
    ast.increment_lineno(tree, first - 1)
    return fdef


def _parse_lambda(code):
    # A lambda's lines need not parse on their own (it may sit inside a longer expression): find
    # it in its whole file, by line and parameter names.
    try:
        lines, _ = inspect.findsource(code)
        tree = ast.parse("".join(lines))
    except (OSError, TypeError, SyntaxError) as e:
        raise NoSource(f"its source is not available ({e})") from None
    params = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    found = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)
             and n.lineno == code.co_firstlineno
             and [a.arg for a in n.args.posonlyargs + n.args.args + n.args.kwonlyargs] == params]
    if len(found) > 1 and hasattr(code, "co_positions"):  # several on the line: by column
        cols = [c for line, _, c, _ in code.co_positions() if line == code.co_firstlineno and c]
        found = [n for n in found if cols and n.col_offset <= cols[0] < n.end_col_offset]
    if len(found) != 1:
        raise NoSource(f"{len(found)} lambdas with these parameters on its line")
    lam = found[0]
    fdef = ast.FunctionDef("__sl_lambda__", lam.args, [ast.copy_location(ast.Return(lam.body), lam)],
                           [], None, None)
    fdef.type_params = []
    return ast.copy_location(fdef, lam)


def _unconvertible(func, fdef):
    """Why `func` cannot be converted (a string), or None."""
    if an.has_own(fdef, (ast.Yield, ast.YieldFrom, ast.Await)):
        return "it is a generator or coroutine"
    if "." in func.__qualname__.replace("<locals>.", ""):
        mangled = any(isinstance(n, (ast.Name, ast.Attribute))
                      and (getattr(n, "id", None) or getattr(n, "attr", "")).startswith("__")
                      and not (getattr(n, "id", None) or getattr(n, "attr", "")).endswith("__")
                      for n in ast.walk(fdef))
        if mangled:
            return "it is a method using private (name-mangled) names"
    return None


def rewrite(fdef):
    """The rewritten definition (in place)."""
    fdef.decorator_list = []
    fdef.returns = None
    a = fdef.args
    a.defaults, a.kw_defaults = [], [None] * len(a.kwonlyargs)  # taken from the function object
    for arg in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
        if arg is not None:
            arg.annotation = None
    body = fdef.body
    if not an.terminates(body):  # the end of the function returns None, maybe on one path only
        implicit = ast.copy_location(ast.Return(None), body[-1])
        implicit.sl_implicit = True
        body = body + [implicit]
    fdef.body = an.lift_returns(an.normalize_returns(body))
    an.annotate_liveness(fdef.body, set(), an.read_by_nested_scopes(fdef))
    fdef.body = [_Expressions().visit(s) for s in fdef.body]
    decls = []
    for kind in (ast.Global, ast.Nonlocal):
        names = sorted(an.declared(fdef, kind))
        if names:
            decls.append(kind(names))
    ifs = _Ifs(decls)
    fdef.body = [r for s in fdef.body for r in _as_list(ifs.visit(s))]
    return fdef


def _as_list(x):
    return x if isinstance(x, list) else [x]


def convert_code(func):
    """The code of `func` rewritten; ValueError with the reason when it cannot be."""
    fdef = _parse(func)
    reason = _unconvertible(func, fdef)
    if reason:
        raise ValueError(reason)
    code = func.__code__
    fdef = rewrite(fdef)
    # Named otherwise inside the factory, so that the function's own name (recursion) stays a
    # global as it was, not a variable of the factory.
    fdef.name = "__sl_function__"
    free = list(code.co_freevars)
    # The factory's parameters stand for the closure: the function compiled inside it refers to
    # them as free variables, which bind() points at the original cells.
    factory = ast.FunctionDef(
        "__sl_factory__", ast.arguments([], [ast.arg(RUNTIME)] + [ast.arg(n) for n in free],
                                        None, [], [], None, []),
        [fdef, ast.Return(ast.Name(fdef.name, ast.Load()))], [], None, None)
    factory.type_params = []
    module = ast.fix_missing_locations(ast.Module([ast.copy_location(factory, fdef)], []))
    flags = sum(f for f in _FUTURE_FLAGS if code.co_flags & f)
    namespace = {}
    exec(compile(module, code.co_filename, "exec", flags=flags, dont_inherit=True), namespace)
    new_code = namespace["__sl_factory__"](None, *[None] * len(free)).__code__
    names = {"co_name": code.co_name}
    if hasattr(code, "co_qualname"):
        names["co_qualname"] = code.co_qualname
    return new_code.replace(**names)


def bind(func, new_code, runtime):
    """A function running `new_code` with `func`'s globals, closure cells (shared, so later
    assignments stay visible), defaults and attributes."""
    cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
    cells[RUNTIME] = types.CellType(runtime)
    closure = tuple(cells[n] for n in new_code.co_freevars)
    new = types.FunctionType(new_code, func.__globals__, func.__name__, func.__defaults__, closure)
    new.__kwdefaults__ = func.__kwdefaults__
    new.__dict__.update(func.__dict__)
    for attr in ("__module__", "__doc__", "__qualname__", "__annotations__"):
        setattr(new, attr, getattr(func, attr))
    new.__wrapped__ = func
    return new


def source_of(func):
    """The rewritten source of `func` (for debugging and tests)."""
    return ast.unparse(rewrite(_parse(func)))
