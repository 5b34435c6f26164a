"""The rewriting behind conditionals (sluice._conditionals): with Python values a converted
function behaves exactly as the original (returns, loops, break/continue, closures, globals,
defaults, methods, recursion), the user's functions it calls are converted, others are not,
and what cannot be converted says why."""

import itertools
import warnings

import numpy as np
import pytest

from sluice import fn, pipeline_def
from sluice._conditionals import convert_function, do_not_convert
from sluice._conditionals._transform import source_of

COUNTER = 0


def returns_and_loops(a, b):
    if a > b:
        r = a - b
    elif a == b:
        return "equal"
    else:
        r = b - a
        if r > 3:
            return r * 2
    total = 0
    for i in range(r + 3):
        if i % 2:
            continue
        total += i
        if total > 10:
            break
    else:
        total = -total
    flag = a and b or not a
    while r > 0:
        if r == 2:
            return total, flag, "two"
        r -= 1
    return total, flag


def early_exit(a):
    if a:
        return 1
    if a is None:
        raise ValueError("none")


def reassigned_before_use(a):
    if a:
        tmp = 1  # noqa: F841
    tmp = 2
    return tmp


def globals_and_locals(a):
    global COUNTER
    if a:
        COUNTER += 1
        name = "yes"
    else:
        name = "no"
    return name, [k for k in ("x", "y") if a or k == "x"]


def with_defaults(a, b=10, *rest, c=5, **extra):
    if a > b:
        return a + c + len(rest) + len(extra)
    return b - a


@pytest.mark.parametrize("func, args", [
    (returns_and_loops, list(itertools.product(range(-1, 7), range(0, 5)))),
    (early_exit, [(1,), (0,), (None,)]),
    (reassigned_before_use, [(True,), (False,)]),
    (with_defaults, [(1,), (20,), (20, 1, 2, 3)]),
])
def test_python_values_behave_as_before(func, args):
    converted = convert_function(func)
    assert converted is not func
    for a in args:
        try:
            want = func(*a)
        except ValueError as e:
            with pytest.raises(ValueError, match=str(e)):
                converted(*a)
            continue
        assert converted(*a) == want, a


def test_keyword_defaults_and_globals_stay():
    global COUNTER
    converted = convert_function(with_defaults)
    assert converted(30, c=100, z=1) == with_defaults(30, c=100, z=1)
    COUNTER = 0
    assert convert_function(globals_and_locals)(1) == ("yes", ["x", "y"])
    assert convert_function(globals_and_locals)(0) == ("no", ["x"])
    assert COUNTER == 1


def test_closures_are_shared_not_copied():
    scale = 2

    def f(v):
        if v > 0:
            out = v * scale
        else:
            out = -v
        return out

    def bump():
        nonlocal scale
        if scale:
            scale += 1

    g, bump2 = convert_function(f), convert_function(bump)
    assert g(3) == 6
    bump2()
    assert scale == 3 and g(3) == 9


def recursive(n):
    if n <= 1:
        return 1
    return n * recursive(n - 1)


class Scaler:
    def __init__(self, k):
        self.k = k

    def scale(self, v):
        if v > 0:
            return v * self.k
        return 0

    def __call__(self, v):
        if v:
            return self.scale(v) + 1
        return -1


def test_methods_callables_and_recursion():
    from sluice._conditionals._runtime import converted

    s = Scaler(3)
    assert converted(s.scale)(2) == 6 and converted(s.scale).__func__ is not Scaler.scale
    assert converted(s)(2) == 7 and converted(s)(0) == -1
    assert convert_function(recursive)(5) == 120


def test_libraries_are_not_converted():
    from sluice._conditionals._runtime import converted

    for f in (np.mean, len, fn.flip, itertools.chain, warnings.warn):
        assert converted(f) is f


def test_lambdas_are_converted():
    pick = [lambda v, k=2: v and k or -1, lambda v: not v][0]  # two lambdas on one line
    assert convert_function(pick)(0) == -1 and convert_function(pick)(5) == 2


def test_rewritten_source_reads_as_documented():
    def f(x):
        if x > 2:
            y = x
        else:
            y = -x
        return y

    src = source_of(f)
    assert "def __sl_true_1__(y):" in src and "def __sl_false_1__(y):" in src
    assert "y, = __sl_rt__.if_stmt(__sl_rt__.call(" not in src
    assert "__sl_rt__.get_state(locals(), ('y',)), ('y',), 1)" in src


# --- in pipelines -------------------------------------------------------------------------------
VALUES = [np.array(v, np.int32) for v in range(6)]


def run(graph):
    @pipeline_def(batch_size=6, num_threads=1, device_id=None, enable_conditionals=True)
    def pipe():
        return graph(fn.external_source(lambda: VALUES))

    return [int(np.array(o.at(i))) for o in pipe().run() for i in range(6)]


@do_not_convert
def unconverted_helper(x):
    if x > 2:
        return x
    return x + 1


def converted_helper(x):
    if x > 2:
        return x * 10
    return x + 1


def test_the_users_helpers_are_converted_unless_marked():
    def calls_converted(x):
        return converted_helper(x)

    def through_lambdas(x):
        wrapped = [lambda v: converted_helper(v), lambda v: (v > 1) and (v < 4)]
        return wrapped[0](x), wrapped[1](x)

    def calls_unconverted(x):
        return unconverted_helper(x)

    assert run(calls_converted) == [1, 2, 3, 30, 40, 50]
    assert run(through_lambdas) == [1, 2, 3, 30, 40, 50] + [0, 0, 1, 1, 0, 0]
    with pytest.raises(TypeError, match="enable_conditionals=True"):
        run(calls_unconverted)


def test_a_marked_pipeline_function_is_refused():
    @pipeline_def(batch_size=6, num_threads=1, device_id=None, enable_conditionals=True)
    @do_not_convert
    def pipe():
        return fn.external_source(lambda: VALUES)

    with pytest.raises(ValueError, match="Pipeline definition cannot be marked with @do_not_convert."):
        pipe()


def test_break_inside_an_if_on_data_is_refused_with_the_reason():
    def graph(x):
        for _ in range(2):
            if x > 2:
                break
        return x

    with pytest.raises(NotImplementedError, match="`break` or `continue`"):
        run(graph)


def test_a_node_from_inside_a_branch_is_refused_outside_it():
    def graph(x):
        kept = []
        if x > 2:
            kept.append(x + 1)
            y = x
        else:
            y = x
        return kept[0] + y

    with pytest.raises(ValueError, match="produced inside a branch of an `if`"):
        run(graph)


def test_a_generator_helper_runs_unconverted():
    def values(x):
        yield x + 1
        yield x + 2

    def graph(x):
        a, b = values(x)
        if a > 3:
            out = b
        else:
            out = a
        return out

    with pytest.warns(UserWarning, match="values runs unconverted: it is a generator"):
        assert run(graph) == [1, 2, 3, 5, 6, 7]
