"""sluice.math (DALI's nvidia.dali.math, built on the "_arithmetic" operator) against NVIDIA DALI
2.4: every function on every input type it takes (types, shapes, values within 1 ulp, NaN where
DALI has NaN), the binary and ternary functions with mixed types and constants, and the inputs
DALI refuses. The GPU operator against the CPU one within a few ulps (CUDA's libm)."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from sluice import fn, math, pipeline_def

UNARY = ["abs", "fabs", "floor", "ceil", "sqrt", "rsqrt", "cbrt", "exp", "log", "log2", "log10",
         "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
         "atanh"]
TYPES = ["uint8", "int8", "int16", "uint32", "int32", "int64", "uint64", "float32", "float64"]


def inputs_by_type():
    """Two samples per type: values inside and outside the functions' domains, -0.0 and
    halves for the floats, values beyond int64's range for uint64."""
    out = []
    for t in TYPES:
        if t.startswith("float"):
            a = np.array([-3.25, -1.0, -0.5, -0.0, 0.0, 0.25, 0.5, 0.999, 1.0, 1.5, 2.75, 10.5,
                          88.0, 1e-30, -7.5, 3.0], t)
        elif t == "uint64":
            a = np.array([0, 1, 2, 7, 200, 2 ** 53 + 1, 2 ** 63, 2 ** 64 - 1], t)
        elif t.startswith("u"):
            a = np.array([0, 1, 2, 3, 7, 10, 100, 200], t)
        else:
            a = np.array([-100, -7, -1, 0, 1, 2, 10, 100], t)
        out.append([a.reshape(1, -1), a[::-1].copy().reshape(2, -1)])
    return out


def unary_graph(fn, types, *xs):
    m = __import__(fn.__name__[:-3] + ".math", fromlist=["sqrt"])  # sluice.math / dali's
    names = ["abs", "fabs", "floor", "ceil", "sqrt", "rsqrt", "cbrt", "exp", "log", "log2",
             "log10", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
             "acosh", "atanh"]
    return tuple(getattr(m, name)(x) for x in xs for name in names)


def assert_close(ours, ref, names, maxulp=1):
    assert len(ours) == len(ref)
    for k, (o, r) in enumerate(zip(ours, ref)):
        for s, (a, b) in enumerate(zip(o, r)):
            what = f"{names[k]} sample {s}"
            assert a.dtype == b.dtype and a.shape == b.shape, what
            if a.dtype.kind != "f":
                np.testing.assert_array_equal(a, b, err_msg=what)
                continue
            np.testing.assert_array_equal(np.isnan(a), np.isnan(b), err_msg=what)
            ok = ~np.isnan(a)
            np.testing.assert_array_max_ulp(a[ok], b[ok], maxulp=maxulp, dtype=a.dtype)


def test_unary_functions_equal_dali(tmp_path):
    inputs = inputs_by_type()
    ours = run_sluice(unary_graph, inputs)
    ref = run_dali(unary_graph, inputs, tmp_path)
    names = [f"{f}({t})" for t in TYPES for f in UNARY]
    # rsqrt: DALI's CPU takes the SSE estimate and one Newton step (a few ulps off, and NaN for
    # 0), Sluice rounds 1 / sqrt(x) correctly on both devices (inf for 0).
    rsqrt = [k for k, n in enumerate(names) if n.startswith("rsqrt")]
    others = [k for k in range(len(names)) if k not in rsqrt]
    assert_close([ours[k] for k in others], [ref[k] for k in others], [names[k] for k in others])
    for k in rsqrt:
        for x, a, b in zip(inputs[rsqrt.index(k)], ours[k], ref[k]):
            zero = x == 0
            assert np.all(np.isinf(a[zero])) and np.all(np.isnan(b[zero]) | (a[zero] == b[zero]))
            assert_close([[a[~zero]]], [[b[~zero]]], [names[k]], maxulp=4)
    by_name = dict(zip(names, ours))
    assert by_name["abs(int8)"][0].dtype == np.int8
    assert by_name["floor(int32)"][0].dtype == np.float32
    assert by_name["sqrt(float64)"][0].dtype == np.float64


def binary_graph(fn, types, u8, i16, i32, u64, f32, f64):
    m = __import__(fn.__name__[:-3] + ".math", fromlist=["sqrt"])
    outs = []
    for a in (u8, i16, i32, u64, f32, f64):
        for b in (u8, i16, i32, u64, f32, f64):
            outs += [m.pow(a, b), m.fpow(a, b), m.min(a, b), m.max(a, b), m.atan2(a, b)]
    return tuple(outs) + (
        m.pow(i32, 2), m.pow(2, i16), m.fpow(u8, 0.5), m.min(u8, -1), m.max(f32, 1),
        m.atan2(1.5, f64), m.clamp(i16, 2, 50), m.clamp(f32, u8, 3.5), m.clamp(u8, i16, i32),
        m.clamp(i32, f64, 100), m.clamp(f32, -1.0, 1.0), m.clamp(u8, np.uint8(3), np.int16(50)),
        m.min(u8, np.array([1, 50, 2, 3, 4, 5, 6, 7], np.uint8)), m.pow(u64, 2), m.min(u64, -1),
        m.max(u64, np.uint64(5)), m.clamp(u64, 2, 2 ** 31 - 1),
        m.clamp(u64, np.uint8(3), np.uint64(2 ** 63 - 1)), m.atan2(u64, 1.5), m.fpow(u64, u8))


def binary_inputs():
    signed = [-7, 7, 5, -3, 2, 0, 1, 3]
    floats = [-7.5, 7.25, 5.0, -3.0, 0.5, 0.0, -0.0, 2.0]
    out = []
    for t, v in [("uint8", [200, 7, 5, 3, 2, 0, 1, 3]), ("int16", signed), ("int32", signed),
                 ("uint64", [2 ** 64 - 1, 7, 5, 2 ** 63, 2, 0, 1, 3]), ("float32", floats),
                 ("float64", floats)]:
        a = np.array(v, t)
        out.append([a, a[::-1].copy()])
    return out


def test_binary_and_ternary_functions_equal_dali(tmp_path):
    """pow of integers stays integral (negative exponents give 0, results wrap); fpow and atan2
    give float32 for integers; min, max and clamp promote; constants take part with their type."""
    inputs = binary_inputs()
    ours = run_sluice(binary_graph, inputs)
    ref = run_dali(binary_graph, inputs, tmp_path)
    assert_close(ours, ref, [f"output {k}" for k in range(len(ours))])
    assert ours[0][0].dtype == np.uint8 and ours[1][0].dtype == np.float32


def bool_sqrt_graph(fn, types, b):
    return __import__(fn.__name__[:-3] + ".math", fromlist=["sqrt"]).sqrt(b)


def bool_min_graph(fn, types, b):
    return __import__(fn.__name__[:-3] + ".math", fromlist=["sqrt"]).min(b, b)


def test_refuses_booleans_as_dali_does(tmp_path):
    b = [np.array([True, False])] * 2
    for graph in (bool_sqrt_graph, bool_min_graph):
        with pytest.raises(AssertionError, match="DALI failed"):
            run_dali(graph, [b], tmp_path)
        with pytest.raises(Exception, match="boolean"):
            run_sluice(graph, [b])


def test_functions_need_a_data_node():
    with pytest.raises(TypeError, match="DataNode"):
        math.sqrt(4.0)


@pytest.mark.gpu
def test_gpu_equals_cpu_within_ulps():
    rng = np.random.default_rng(4)
    data = [rng.uniform(-3, 3, (50, 61)).astype(np.float32) for _ in range(4)]
    ints = [rng.integers(-50, 50, (50, 61)).astype(np.int16) for _ in range(4)]

    def graph(x, i):
        return tuple(getattr(math, name)(x) for name in UNARY) + tuple(
            getattr(math, name)(i) for name in UNARY) + (
            math.pow(x, i), math.fpow(x, 1.5), math.atan2(x, i), math.min(x, i),
            math.max(i, 3), math.clamp(x, -1, i))

    outs = {}
    for device in ("cpu", "gpu"):
        @pipeline_def(batch_size=4, num_threads=2, device_id=0)
        def p():
            x = fn.external_source(lambda: data)
            i = fn.external_source(lambda: ints)
            return graph(x.gpu(), i.gpu()) if device == "gpu" else graph(x, i)

        outs[device] = [o.as_cpu() if hasattr(o, "as_cpu") else o for o in p().run()]
    for k, (c, g) in enumerate(zip(outs["cpu"], outs["gpu"])):
        for s in range(4):
            a, b = np.asarray(c.at(s)), np.asarray(g.at(s))
            np.testing.assert_array_equal(np.isnan(a), np.isnan(b), err_msg=f"output {k}")
            ok = ~np.isnan(a)
            np.testing.assert_array_max_ulp(a[ok], b[ok], maxulp=4, dtype=a.dtype)
