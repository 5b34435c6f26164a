"""reinterpret against numpy and NVIDIA DALI 2.4: a new `dtype` alone (the innermost extent
absorbs the change of element size, the layout kept), with `shape` / `rel_shape` (sizes checked
in bytes), a layout alone; the arguments DALI refuses. The GPU case is in test_reshape.py."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice


def reinterpret_graph(fn, types, x):
    return (fn.reinterpret(x, dtype=types.INT16), fn.reinterpret(x, dtype=types.INT32),
            fn.reinterpret(x, dtype=types.INT16, shape=[-1]),
            fn.reinterpret(x, dtype=types.INT32, shape=[-1, 2], layout="AB"),
            fn.reinterpret(x, dtype=types.UINT8), fn.reinterpret(x, layout="ABC"),
            fn.reinterpret(x, dtype=types.FLOAT, rel_shape=[1, 0.5, 0.5]),
            fn.reinterpret(fn.cast(x, dtype=types.INT32), dtype=types.UINT8))


def test_reinterpret_equals_dali_and_numpy(tmp_path):
    rng = np.random.default_rng(12)
    x = [rng.integers(0, 255, (h, 2, 8)).astype(np.uint8) for h in (1, 3, 4)]
    ours, our_layouts = run_sluice(reinterpret_graph, [x], ["HWC"], with_layouts=True)
    for a, s in zip(ours[1], x):
        np.testing.assert_array_equal(a, s.view(np.int32))
    ref, ref_layouts = run_dali(reinterpret_graph, [x], tmp_path, ["HWC"], with_layouts=True)
    assert our_layouts == ref_layouts
    for k, (o, r) in enumerate(zip(ours, ref)):
        for a, b in zip(o, r):
            assert a.dtype == b.dtype and a.shape == b.shape, f"output {k}"
            np.testing.assert_array_equal(a, b, err_msg=f"output {k}")


def r_nothing(fn, types, x): return fn.reinterpret(x)
def r_bytes(fn, types, x): return fn.reinterpret(x, dtype=types.INT32, shape=[3, 3])
def r_innermost(fn, types, x): return fn.reinterpret(x[:, :, 0:3], dtype=types.INT16)
def r_rel(fn, types, x): return fn.reinterpret(x, dtype=types.INT16, rel_shape=[1, 1, 1])


REFUSED = [(r_nothing, "no-op"), (r_bytes, "same size in bytes"), (r_innermost, "innermost"),
           (r_rel, "same size in bytes")]


@pytest.mark.parametrize("graph,message", REFUSED, ids=[g.__name__[2:] for g, _ in REFUSED])
def test_refuses_what_dali_refuses(tmp_path, graph, message):
    x = [np.zeros((2, 3, 4), np.uint8)] * 2
    with pytest.raises(AssertionError, match="DALI failed"):
        run_dali(graph, [x], tmp_path, ["HWC"])
    with pytest.raises(Exception, match=message):
        run_sluice(graph, [x], ["HWC"])
