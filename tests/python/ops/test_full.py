"""full, full_like, zeros, zeros_like, ones and ones_like (CPU only, as in DALI) against NVIDIA
DALI 2.4 and NumPy: fill values broadcast numpy-style (value dimensions beyond the output's take
their first index), types (full keeps the fill value's, full_like converts to the input's,
rounding half away from zero and saturating), shapes as arguments and per-sample inputs,
layouts, numbers as fill values, and the arguments DALI refuses. Bit-exact."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from sluice import fn, pipeline_def, types


def full_graph(fn, types, x, fill, shape):
    return (fn.full(fill, shape=[2, 3]), fn.full(fill, shape=shape, layout="AB"),
            fn.full(5.0, shape=[2, 3]), fn.full(np.array([1, 2, 3], np.int16), shape=[2, 3]),
            fn.full(fill), fn.full_like(x, 7.5), fn.full_like(x, fill),
            fn.full_like(x, np.array([0.5, 1.5, 2.5, -2.5, -0.5, 254.5], np.float32)[:, None]),
            fn.zeros(shape=[2, 3]), fn.zeros(shape=shape, dtype=types.UINT8, layout="HW"),
            fn.ones(shape=[4], dtype=types.FLOAT16), fn.ones(), fn.zeros_like(x),
            fn.ones_like(x, dtype=types.FLOAT), fn.zeros_like(x, dtype=types.BOOL),
            fn.full_like(fn.cast(x, dtype=types.BOOL), np.array([0.4, 0.6, -0.7], np.float32)))


def test_full_equals_dali(tmp_path):
    rng = np.random.default_rng(51)
    x = [rng.integers(0, 9, (6, 3)).astype(np.uint8) for _ in range(3)]
    fill = [rng.uniform(-9, 9, 3).astype(np.float32) for _ in range(3)]
    shape = [np.array([int(rng.integers(1, 4)), 3], np.int32) for _ in range(3)]
    inputs, layouts = [x, fill, shape], ["HW", None, None]
    ours, ol = run_sluice(full_graph, inputs, layouts, with_layouts=True)
    ref, rl = run_dali(full_graph, inputs, tmp_path, layouts, with_layouts=True)
    assert ol == rl
    for k, (o, r) in enumerate(zip(ours, ref)):
        for a, b in zip(o, r):
            assert a.dtype == b.dtype and a.shape == b.shape, f"output {k}"
            np.testing.assert_array_equal(a, b, err_msg=f"output {k}")
    for f, s, out in zip(fill, shape, ours[1]):
        np.testing.assert_array_equal(out, np.broadcast_to(f, tuple(s)))


def broadcast_graph(fn, types, fill):
    return (fn.full(fill, shape=[2, 2, 3]), fn.full(fill, shape=[3]), fn.full(fill, shape=[]))


def test_broadcasting_equals_dali(tmp_path):
    fill = [np.array([[1, 2, 3], [4, 5, 6]], np.int32), np.array([[1, 1, 1], [4, 4, 4]], np.int32)]
    ours = run_sluice(broadcast_graph, [fill])
    ref = run_dali(broadcast_graph, [fill], tmp_path)
    for o, r in zip(ours, ref):
        for a, b in zip(o, r):
            np.testing.assert_array_equal(a, b)


def not_broadcastable(fn, types, x):
    return fn.full(x, shape=[2, 4])


def wrong_layout(fn, types, x):
    return fn.zeros(shape=[2, 3], layout="H")


def negative_shape(fn, types, x):
    return fn.zeros(shape=[2, -1])


def test_refuses_what_dali_refuses(tmp_path):
    x = [np.array([1, 2, 3], np.int16)]
    for graph, message in ((not_broadcastable, "can't be broadcast"),
                           (wrong_layout, "dimensions but output shape has"),
                           (negative_shape, "less than zero")):
        with pytest.raises(AssertionError, match="DALI failed"):
            run_dali(graph, [x], tmp_path)
        with pytest.raises(Exception, match=message):
            run_sluice(graph, [x])


def test_numpy_semantics():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def p():
        x = fn.external_source(lambda: [np.zeros((2, 2), np.int64)] * 2, layout="AB")
        return fn.ones_like(x), fn.full_like(x, np.array([3, -4], np.int32)), fn.zeros(shape=[0, 3])

    ones, full, empty = p().run()
    assert ones.layout() == "AB" and np.asarray(ones.at(0)).dtype == np.int64
    np.testing.assert_array_equal(ones.at(1), np.ones((2, 2), np.int64))
    np.testing.assert_array_equal(full.at(0), np.array([[3, -4], [3, -4]], np.int64))
    assert np.asarray(empty.at(0)).shape == (0, 3)
