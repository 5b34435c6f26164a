"""stack against numpy and NVIDIA DALI 2.4: joined along a new `axis` (negative counts from past
the end, as DALI does), named by `axis_name` in the layout (no layout without it), one to three
inputs, scalars; the inputs and arguments DALI refuses. The GPU operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from op_testing import assert_gpu_half_equals_cpu
from sluice import fn, pipeline_def


def stack_graph(fn, types, a, b):
    return (fn.stack(a, b), fn.stack(a, b, axis=1), fn.stack(a, b, axis=3),
            fn.stack(a, b, axis=-1), fn.stack(a, b, axis_name="N"),
            fn.stack(a, b, axis=1, axis_name="N"), fn.stack(a), fn.stack(a, b, a, axis=2),
            fn.stack(a[0, 0, 0], b[0, 0, 0]),
            fn.stack(fn.cast(a, dtype=types.FLOAT16), fn.cast(b, dtype=types.FLOAT16), axis=2))


def test_stack_equals_dali_and_numpy(tmp_path):
    rng = np.random.default_rng(10)
    shapes = [(int(rng.integers(1, 6)), int(rng.integers(1, 6)), 3) for _ in range(3)]
    a = [rng.integers(0, 255, s).astype(np.uint8) for s in shapes]
    b = [rng.integers(0, 255, s).astype(np.uint8) for s in shapes]
    ours, our_layouts = run_sluice(stack_graph, [a, b], ["HWC", "HWC"], with_layouts=True)
    for o, x, y in zip(ours[1], a, b):
        np.testing.assert_array_equal(o, np.stack([x, y], axis=1))
    ref, ref_layouts = run_dali(stack_graph, [a, b], tmp_path, ["HWC", "HWC"], with_layouts=True)
    assert our_layouts == ref_layouts
    for k, (o, r) in enumerate(zip(ours, ref)):
        for x, y in zip(o, r):
            assert x.dtype == y.dtype and x.shape == y.shape, f"output {k}"
            np.testing.assert_array_equal(x, y, err_msg=f"output {k}")


def r_shape(fn, types, a, b): return fn.stack(a, b[:, 1:])
def r_type(fn, types, a, b): return fn.stack(a, fn.cast(b, dtype=types.INT16))
def r_axis(fn, types, a, b): return fn.stack(a, b, axis=4)
def r_negative(fn, types, a, b): return fn.stack(a, b, axis=-4)
def r_long_name(fn, types, a, b): return fn.stack(a, b, axis_name="NN")


REFUSED = [(r_shape, "equal shape"), (r_type, "same type"), (r_axis, "out of range"),
           (r_negative, "out of range"), (r_long_name, "single character")]


@pytest.mark.parametrize("graph,message", REFUSED, ids=[g.__name__[2:] for g, _ in REFUSED])
def test_refuses_what_dali_refuses(tmp_path, graph, message):
    inputs = [[np.zeros((2, 3, 4), np.uint8)] * 2] * 2
    with pytest.raises(AssertionError, match="DALI failed"):
        run_dali(graph, inputs, tmp_path, ["HWC", "HWC"])
    with pytest.raises(Exception, match=message):
        run_sluice(graph, inputs, ["HWC", "HWC"])


@pytest.mark.gpu
def test_gpu_equals_cpu():
    rng = np.random.default_rng(11)
    shapes = [(int(rng.integers(1, 40)), int(rng.integers(0, 40)), 3) for _ in range(5)]
    a = [rng.integers(0, 255, s).astype(np.uint8) for s in shapes]
    b = [rng.integers(0, 255, s).astype(np.uint8) for s in shapes]

    def graph(x, y):
        return (fn.stack(x, y), fn.stack(x, y, axis=2), fn.stack(x, y, x, axis=3, axis_name="K"))

    @pipeline_def(batch_size=5, num_threads=1, device_id=0)
    def p():
        x = fn.external_source(lambda: a, layout="HWC")
        y = fn.external_source(lambda: b, layout="HWC")
        return graph(x, y) + graph(x.gpu(), y.gpu())

    assert_gpu_half_equals_cpu(p().run())
