"""What converted functions call, as `__sl_rt__.<name>`: the `if` statement, `and`, `or`, `not`,
every call (converting the user's functions it reaches) and the bookkeeping of variables.

With a Python condition everything behaves as plain Python. With a DataNode condition both
branches are traced, each on its samples (see _scopes.py), and the variables they assign that
are read later are merged back into whole batches: DALI's conditionals.
"""

import sys
import sysconfig
import types as _pytypes
import warnings

from sluice.data_node import DataNode, NO_TRUTH_VALUE

MERGE = "_conditional.merge"

_INCONSISTENT = (
    "Encountered inconsistent outputs out of the `if/else` control flow statement. Variables "
    "need to be initialized in every code path (both `if` branches).")
_DIVERGENT = (
    "Divergent data found in different branches of `if/else` control flow statement. Variables "
    "in all code paths are merged into common output batches. The values assigned to a given "
    "variable need to have the same nesting structure in every code path (both `if` "
    "branches).\nFor example, if we define a variable as a tuple in one branch, it must be "
    "defined as a tuple of the same length in the other branch - the contents of the tuples may "
    "be different. If we define a variable as a dictionary, the other branch must define it as a "
    "dictionary with the same set of keys, the values may be different.\n")


class Undefined:
    """The value of a variable not assigned yet."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"<undefined variable {self.name!r}>"


class _UndefinedReturn:
    def __repr__(self):
        return "<no return value>"


# What a function returns when it ends without `return` on a path where another path returns.
UNDEFINED_RETURN = _UndefinedReturn()


def get_state(local_vars, names):
    return tuple(local_vars[n] if n in local_vars else Undefined(n) for n in names)


def retval(value):
    return None if value is UNDEFINED_RETURN else value


def _stack():
    from sluice.pipeline import Pipeline

    stack = getattr(Pipeline.current(), "_condition_stack", None)
    if stack is None:
        raise TypeError(NO_TRUTH_VALUE)
    return stack


# --- if -----------------------------------------------------------------------------------------
def if_stmt(cond, body, orelse, init, names, nouts):
    """Runs the `if`: returns the new values of `names` (the first `nouts` are read later)."""
    if not isinstance(cond, DataNode):
        return body(*init) if cond else orelse(*init)
    stack = _stack()
    predicate = stack.push(cond)
    try:
        stack.trace(True)
        true_out = _branch_outputs(stack, body(*init)[:nouts], names, "if")
        stack.trace(False)
        false_out = _branch_outputs(stack, orelse(*init)[:nouts], names, "else")
        stack.trace(None)
        merged = _merge(true_out, false_out, predicate)
    finally:
        stack.pop()
    stack.register(_leaves(merged))
    return tuple(merged) + tuple(init[nouts:])


def python_test(cond):
    """The condition of an `if` that stays Python's (it returns or breaks out of a loop)."""
    if isinstance(cond, DataNode):
        raise NotImplementedError(
            "an `if` on a DataNode cannot contain `return` inside a loop, nor `break` or "
            "`continue` leaving a loop around the `if`; assign to variables instead")
    return cond


def _branch_outputs(stack, values, names, branch):
    for name, v in zip(names, values):
        if isinstance(v, Undefined):
            raise RuntimeError(f"{_INCONSISTENT} Variable '{name}' must also be initialized in "
                               f"the `{branch}` branch.")
        if v is UNDEFINED_RETURN:
            raise RuntimeError(f"{_INCONSISTENT} The `{branch}` branch must also have a return "
                               "statement.")
    return _tree_map(lambda v: stack.place(v) if isinstance(v, DataNode) else _constant(stack, v),
                     values)


def _constant(stack, value):
    """A Python number as a batch of the branch being traced, typed as DALI's types.Constant:
    int32 (saturated, as DALI's), float32 or bool."""
    import numpy as np

    from sluice import fn, types

    if isinstance(value, np.generic):
        value = value.item()
    if not isinstance(value, (bool, int, float)):
        raise TypeError(f"an `if` on a DataNode merges the variables its branches assign; "
                        f"{value!r} ({type(value).__name__}) is neither a DataNode nor a number")
    zero = fn.cast(stack.branch_predicate(), dtype=types.INT32) * 0
    if isinstance(value, bool):
        return zero == (0 if value else 1)
    if isinstance(value, int):
        return zero + min(max(value, -(2**31)), 2**31 - 1)
    return fn.cast(zero, dtype=types.FLOAT) + value


def _tree_map(f, *trees):
    first = trees[0]
    if first is None:
        return None
    if isinstance(first, (tuple, list)):
        items = [_tree_map(f, *parts) for parts in zip(*trees)]
        if isinstance(first, list):
            return items
        return type(first)(*items) if hasattr(first, "_fields") else tuple(items)
    if isinstance(first, dict):
        return {k: _tree_map(f, *(t[k] for t in trees)) for k in first}
    return f(*trees)


def _leaves(tree):
    out = []
    _tree_map(out.append, tree)
    return out


def _structure(tree):
    shape = _tree_map(lambda _: "*", tree)
    return repr(_sorted_dicts(shape))


def _sorted_dicts(tree):
    if isinstance(tree, dict):
        return {k: _sorted_dicts(tree[k]) for k in sorted(tree, key=repr)}
    if isinstance(tree, (tuple, list)):
        return type(tree)(_sorted_dicts(x) for x in tree) if not hasattr(tree, "_fields") else tree
    return tree


def _merge(true_out, false_out, predicate):
    a, b = _structure(true_out), _structure(false_out)
    if a != b:
        raise ValueError(f"{_DIVERGENT}\n'If' output structure: {a}\n'Else' output structure: {b}")

    def merge(t, f):
        from sluice._ops import make_node

        if t.device != f.device:
            t, f = t.gpu(), f.gpu()
        return make_node(MERGE, [t, f], {"predicate": predicate})

    return _tree_map(merge, true_out, false_out)


# --- and, or, not -------------------------------------------------------------------------------
def and_(a, b):
    """`a and b` (b a callable): per sample, b only where a is true."""
    return _lazy_logic("and", a, b) if isinstance(a, DataNode) else (a and b())


def or_(a, b):
    """`a or b` (b a callable): per sample, b only where a is false."""
    return _lazy_logic("or", a, b) if isinstance(a, DataNode) else (a or b())


def _lazy_logic(name, a, b):
    from sluice._ops import make_node

    stack = _stack()
    predicate = stack.push(_validate(stack, a, name, "left"))
    try:
        parts = []
        for branch in (True, False):
            stack.trace(branch)
            evaluates_b = branch == (name == "and")
            v = _validate(stack, b(), name, "right") if evaluates_b else stack.branch_predicate()
            parts.append(stack.place(v))
        stack.trace(None)
        merged = make_node(MERGE, parts, {"predicate": predicate})
    finally:
        stack.pop()
    stack.register([merged])
    return merged


def _validate(stack, value, name, side):
    from sluice._ops import make_node

    if not isinstance(value, DataNode):
        value = _constant(stack, value)
    if value.device != "cpu":
        raise RuntimeError(
            f"Logical expression `{value}` is restricted to scalar (0-d tensors) inputs of `bool` "
            f"type, that are placed on CPU. Got a GPU input as the {side} argument in logical "
            "expression.")
    return make_node("_conditional.validate_logical", [value],
                     {"expression_name": name, "expression_side": side})


def not_(a):
    if not isinstance(a, DataNode):
        return not a
    if a.device != "cpu":
        raise RuntimeError(
            "Logical expression `not` is restricted to scalar (0-d tensors) inputs, that are "
            "placed on CPU. Got a GPU input in logical expression.")
    from sluice._ops import make_node

    return make_node("_conditional.not_", [a], {})


# --- calls --------------------------------------------------------------------------------------
# Functions from these packages run as they are (DALI leaves its own and the libraries alone).
_NOT_CONVERTED = {"sluice", "nvidia", "numpy", "torch", "PIL", "scipy", "pytest", "_pytest",
                  "pluggy", "typing", "functools", "itertools", "collections", "abc"}
# ... except Sluice's automatic augmentations, whose `if`s on DataNodes are conditionals (DALI
# converts nvidia.dali.auto_aug likewise).
_CONVERTED_PACKAGES = ("sluice.auto_aug",)
_STDLIB = sysconfig.get_paths()["stdlib"]
_codes = {}  # original code -> converted code, or None where conversion is impossible
_converted = set()  # the converted codes


def call(func, /, *args, **kwargs):
    return converted(func)(*args, **kwargs)


def converted(func):
    """`func` converted where it is the user's Python function (or method, or callable object),
    else `func` itself."""
    bound = None
    if isinstance(func, _pytypes.MethodType):
        bound, target = func.__self__, func.__func__
    elif isinstance(func, _pytypes.FunctionType):
        target = func
    elif callable(func) and isinstance(getattr(type(func), "__call__", None), _pytypes.FunctionType):
        bound, target = func, type(func).__call__
    else:
        return func
    if not isinstance(target, _pytypes.FunctionType) or not _user_function(target):
        return func
    new = convert_function(target, warn=False)
    if new is target:
        return func
    return new if bound is None else _pytypes.MethodType(new, bound)


def _user_function(f):
    module = getattr(f, "__module__", None) or ""
    excluded = (module.split(".")[0] in _NOT_CONVERTED
                and not module.startswith(_CONVERTED_PACKAGES))
    return not (excluded
                or getattr(f, "_sl_do_not_convert", False) or f.__code__ in _converted
                or f.__code__.co_filename.startswith(_STDLIB))


def convert_function(func, warn=True):
    """`func` rewritten for conditionals (see _transform.py), or `func` itself with a warning
    when that is impossible (no source, a generator, ...)."""
    from sluice._conditionals import _transform

    code = func.__code__
    if code not in _codes:
        try:
            _codes[code] = _transform.convert_code(func)
            _converted.add(_codes[code])
        except ValueError as e:
            _codes[code] = None
            if warn or not isinstance(e, _transform.NoSource):
                warnings.warn(f"conditionals: {func.__qualname__} runs unconverted: {e}",
                              stacklevel=3)
    new_code = _codes[code]
    if new_code is None:
        return func
    return _transform.bind(func, new_code, sys.modules[__name__])
