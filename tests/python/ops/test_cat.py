"""cat against numpy and NVIDIA DALI 2.4: joined along `axis` (negative from the back) or
`axis_name`, the first input's layout kept, one to three inputs; the inputs and arguments DALI
refuses. The GPU operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from op_testing import assert_gpu_half_equals_cpu
from sluice import fn, pipeline_def


def cat_graph(fn, types, a, b, c):
    return (fn.cat(a, b, axis=1), fn.cat(a, b, axis=-2), fn.cat(a, b, axis_name="W"),
            fn.cat(a, c), fn.cat(a, a, axis=2), fn.cat(a), fn.cat(a, b, a, axis=1),
            fn.cat(fn.cast(a, dtype=types.FLOAT), fn.cast(b, dtype=types.FLOAT), axis=1))


def test_cat_equals_dali_and_numpy(tmp_path):
    rng = np.random.default_rng(8)
    hs = [int(rng.integers(1, 6)) for _ in range(3)]
    a = [rng.integers(0, 255, (h, 3, 2)).astype(np.uint8) for h in hs]
    b = [rng.integers(0, 255, (h, int(rng.integers(0, 5)), 2)).astype(np.uint8) for h in hs]
    c = [rng.integers(0, 255, (h + 1, 3, 2)).astype(np.uint8) for h in hs]
    inputs = [a, b, c]
    ours, our_layouts = run_sluice(cat_graph, inputs, ["HWC", "HWC", None], with_layouts=True)
    for o, x, y in zip(ours[0], a, b):
        np.testing.assert_array_equal(o, np.concatenate([x, y], axis=1))
    ref, ref_layouts = run_dali(cat_graph, inputs, tmp_path, ["HWC", "HWC", None],
                                with_layouts=True)
    assert our_layouts == ref_layouts
    for k, (o, r) in enumerate(zip(ours, ref)):
        for x, y in zip(o, r):
            assert x.dtype == y.dtype and x.shape == y.shape, f"output {k}"
            np.testing.assert_array_equal(x, y, err_msg=f"output {k}")


def r_shape(fn, types, a, b): return fn.cat(a, b, axis=0)
def r_type(fn, types, a, b): return fn.cat(a, fn.cast(b, dtype=types.INT16), axis=1)
def r_ndim(fn, types, a, b): return fn.cat(a, b[0], axis=1)
def r_axis(fn, types, a, b): return fn.cat(a, b, axis=3)
def r_negative(fn, types, a, b): return fn.cat(a, b, axis=-4)
def r_name(fn, types, a, b): return fn.cat(a, b, axis_name="X")
def r_both(fn, types, a, b): return fn.cat(a, b, axis=1, axis_name="W")


REFUSED = [(r_shape, "differ in size only"), (r_type, "same type"), (r_ndim, "same type"),
           (r_axis, "out of range"), (r_negative, "out of range"), (r_name, "undefined axis"),
           (r_both, "cannot be used together")]


@pytest.mark.parametrize("graph,message", REFUSED, ids=[g.__name__[2:] for g, _ in REFUSED])
def test_refuses_what_dali_refuses(tmp_path, graph, message):
    inputs = [[np.zeros((2, 3, 4), np.uint8)] * 2, [np.zeros((2, 5, 4), np.uint8)] * 2]
    with pytest.raises(AssertionError, match="DALI failed"):
        run_dali(graph, inputs, tmp_path, ["HWC", "HWC"])
    with pytest.raises(Exception, match=message):
        run_sluice(graph, inputs, ["HWC", "HWC"])


@pytest.mark.gpu
def test_gpu_equals_cpu():
    rng = np.random.default_rng(9)
    hs = [int(rng.integers(1, 40)) for _ in range(5)]
    a = [rng.integers(0, 255, (h, 7, 3)).astype(np.uint8) for h in hs]
    b = [rng.integers(0, 255, (h, int(rng.integers(0, 9)), 3)).astype(np.uint8) for h in hs]

    def graph(x, y):
        return (fn.cat(x, y, axis=1), fn.cat(x, x, axis=0), fn.cat(x, x, y, axis_name="W"))

    @pipeline_def(batch_size=5, num_threads=1, device_id=0)
    def p():
        x = fn.external_source(lambda: a, layout="HWC")
        y = fn.external_source(lambda: b, layout="HWC")
        return graph(x, y) + graph(x.gpu(), y.gpu())

    assert_gpu_half_equals_cpu(p().run())
