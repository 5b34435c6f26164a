"""DataNode as DALI's: Python's operators build DALI's arithmetic operations (with the operands
in order and constants typed as DALI types them), indexing and shape() build their operators,
and compound expressions give DALI's values. The operators themselves are tested in
tests/python/ops (test_arithmetic.py, test_math.py, test_tensor_subscript.py, test_shapes.py)."""

import json

import numpy as np
import pytest

import sluice
from dali_reference import run_dali, run_sluice
from sluice import fn, pipeline_def, types
from sluice.data_node import DataNode


def op_of(node):
    return node.source.to_json()


def a_node(device="cpu"):
    x = fn.external_source(lambda: [np.zeros(3, np.float32)])
    return x.gpu() if device == "gpu" else x


@pytest.mark.parametrize("expr,op", [
    (lambda a: a + a, "add"), (lambda a: a - a, "sub"), (lambda a: a * a, "mul"),
    (lambda a: a / a, "fdiv"), (lambda a: a // a, "div"), (lambda a: a % a, "mod"),
    (lambda a: a ** a, "pow"), (lambda a: -a, "minus"), (lambda a: abs(a), "abs"),
    (lambda a: ~a, "bitnot"), (lambda a: a & a, "bitand"), (lambda a: a | a, "bitor"),
    (lambda a: a ^ a, "bitxor"), (lambda a: a << a, "lshift"), (lambda a: a >> a, "rshift"),
    (lambda a: a == a, "eq"), (lambda a: a != a, "neq"), (lambda a: a < a, "lt"),
    (lambda a: a <= a, "leq"), (lambda a: a > a, "gt"), (lambda a: a >= a, "geq"),
    (lambda a: sluice.math.clamp(a, a, a), "clamp"), (lambda a: sluice.math.atan2(a, a), "atan2"),
])
def test_operators_build_dalis_operations(expr, op):
    j = op_of(expr(a_node()))
    assert j["type"] == "_arithmetic" and j["args"]["op"] == op


def test_constants_are_typed_and_keep_their_place():
    a = a_node()
    j = op_of(10 - a)
    assert j["args"]["constant_positions"] == [0] and j["args"]["constant_types"] == ["INT32"]
    assert j["args"]["integer_constants"] == [10]
    j = op_of(a * 1.5)
    assert j["args"]["constant_positions"] == [1] and j["args"]["constant_types"] == ["FLOAT"]
    assert op_of(a + True)["args"]["constant_types"] == ["BOOL"]
    assert op_of(a + types.Constant(3, types.UINT16))["args"]["constant_types"] == ["UINT16"]
    assert op_of(a + np.int8(3))["args"]["constant_types"] == ["INT8"]
    # np.float64 is a float subclass that DALI refuses as an operand; here it is FLOAT64.
    assert op_of(a + np.float64(3))["args"]["constant_types"] == ["FLOAT64"]
    j = op_of(sluice.math.clamp(a, 0, 1.5))
    assert j["args"]["constant_positions"] == [1, 2]
    assert j["args"]["integer_constants"] == [0] and j["args"]["real_constants"] == [1.5]
    # An array becomes a constant operator, an input like any other.
    j = op_of(a + np.arange(3))
    assert len(j["inputs"]) == 2 and "constant_positions" not in j["args"]
    assert json.loads(json.dumps(j)) == j


def test_scalar_constant_on_the_left_of_a_comparison_delegates():
    a = a_node()
    assert op_of(types.Constant(3) == a)["args"]["op"] == "eq"
    assert op_of(types.Constant(3) + a)["args"]["constant_positions"] == [0]


def test_unary_plus_is_the_node_itself():
    a = a_node()
    assert +a is a


def test_refuses_operands_dali_refuses():
    a = a_node()
    with pytest.raises(TypeError, match="nested `DataNode`"):
        a + [a, a]
    with pytest.raises(TypeError):
        a + "text"
    with pytest.raises(TypeError):
        a + None
    with pytest.raises(TypeError, match="DataNode"):
        sluice.math.sqrt(2.0)


def test_gpu_operands_make_a_gpu_operation():
    a = a_node()
    out = a + a_node("gpu")
    assert out.device == "gpu" and op_of(out)["device"] == "gpu"
    assert a.gpu().shape(device="gpu").device == "gpu"
    assert a.shape(device="gpu").device == "gpu"
    with pytest.raises(ValueError):
        a.shape(device="mixed")


def test_indexing_builds_dalis_operators():
    a = a_node()
    j = op_of(a[1, 2:, ::-1])
    assert j["type"] == "_tensor_subscript"
    assert j["args"] == {"at_0": 1, "lo_1": 2, "step_2": -1, "num_subscripts": 3}
    assert op_of(a[:, :])["type"] == "_subscript_dim_check"
    j = op_of(a[:, sluice.newaxis("C")])
    assert j["type"] == "expand_dims" and j["args"] == {"axes": [1], "new_axis_names": "C"}
    i = a_node()
    j = op_of(a[i])
    assert j["arg_inputs"] == {"at_0": i.name}
    assert isinstance(a[0], DataNode)


def compound_graph(fn, types, a, b):
    m = __import__(fn.__name__[:-3] + ".math", fromlist=["sqrt"])
    return (((a + b) * 2 - 1) / 3, m.sqrt(m.abs(a - b)) + a[0] * b[1],
            (a > 0) & (b < 5) | (a == b), -(a // 3) % 4, m.clamp(a ** 2, b, 30) * a.shape()[0],
            a[::-1] + b[1:2])


def test_compound_expressions_equal_dali(tmp_path):
    rng = np.random.default_rng(1)
    a = [rng.integers(-9, 9, (3, 4)).astype(np.int32) for _ in range(3)]
    b = [rng.integers(1, 9, (3, 4)).astype(np.int16) for _ in range(3)]
    ours = run_sluice(compound_graph, [a, b])
    ref = run_dali(compound_graph, [a, b], tmp_path)
    for k, (o, r) in enumerate(zip(ours, ref)):
        for x, y in zip(o, r):
            assert x.dtype == y.dtype and x.shape == y.shape, f"output {k}"
            np.testing.assert_array_max_ulp(x, y, maxulp=1) if x.dtype.kind == "f" else \
                np.testing.assert_array_equal(x, y)


def test_math_module_and_newaxis_are_exported():
    import sluice.math as m

    assert m is sluice.math and sluice.newaxis.name is None
    for name in ("abs", "fabs", "floor", "ceil", "pow", "fpow", "min", "max", "clamp", "sqrt",
                 "rsqrt", "cbrt", "exp", "log", "log2", "log10", "sin", "cos", "tan", "asin",
                 "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh"):
        assert callable(getattr(m, name)), name


def test_pipeline_with_expressions_runs_twice_identically():
    @pipeline_def(batch_size=2, num_threads=2, device_id=None)
    def p():
        x = fn.external_source(lambda: [np.arange(6, dtype=np.uint8).reshape(2, 3)] * 2,
                               layout="HW")
        return x[1] * 2 + x[:, 0].shape()[0], x.shape()

    pipe = p()
    first = [np.asarray(o.at(0)) for o in pipe.run()]
    second = [np.asarray(o.at(0)) for o in pipe.run()]
    for f, s in zip(first, second):
        np.testing.assert_array_equal(f, s)
    assert first[0].tolist() == [8, 10, 12] and first[0].dtype == np.int64
