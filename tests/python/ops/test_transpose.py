"""transpose against numpy and NVIDIA DALI 2.4: permutations (reversed by default), the layout
permuted, kept (transpose_layout=False) or replaced (output_layout), every type, scalars; the
arguments DALI refuses; the GPU operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from op_testing import assert_gpu_half_equals_cpu
from sluice import fn, pipeline_def


def transpose_graph(fn, types, x):
    return (fn.transpose(x, perm=[2, 0, 1]),
            fn.transpose(x, perm=[1, 0, 2], transpose_layout=False),
            fn.transpose(x, perm=[2, 1, 0], output_layout="ABC"),
            fn.transpose(x),
            fn.transpose(x, perm=[0, 1, 2]),
            fn.transpose(fn.cast(x, dtype=types.FLOAT16), perm=[1, 2, 0]),
            fn.transpose(fn.cast(x, dtype=types.BOOL), perm=[1, 0, 2]),
            fn.transpose(fn.cast(x, dtype=types.INT64), perm=[2, 1, 0]),
            fn.transpose(x[0], perm=[1, 0]),
            fn.transpose(x[0, 0, 0], perm=[]))


def test_transpose_equals_dali_and_numpy(tmp_path):
    rng = np.random.default_rng(1)
    x = [rng.integers(0, 255, (int(rng.integers(1, 9)), int(rng.integers(1, 9)), 3)).astype(np.uint8)
         for _ in range(4)]
    ours, our_layouts = run_sluice(transpose_graph, [x], ["HWC"], with_layouts=True)
    for a, s in zip(ours[0], x):
        np.testing.assert_array_equal(a, np.transpose(s, (2, 0, 1)))
    ref, ref_layouts = run_dali(transpose_graph, [x], tmp_path, ["HWC"], with_layouts=True)
    assert our_layouts == ref_layouts
    for k, (o, r) in enumerate(zip(ours, ref)):
        for a, b in zip(o, r):
            assert a.dtype == b.dtype and a.shape == b.shape, f"output {k}"
            np.testing.assert_array_equal(a, b, err_msg=f"output {k}")


def r_repeated(fn, types, x): return fn.transpose(x, perm=[2, 0, 0])
def r_short(fn, types, x): return fn.transpose(x, perm=[1, 0])
def r_negative(fn, types, x): return fn.transpose(x, perm=[-1, 0, 1])


REFUSED = [(r_repeated, "Invalid permutation"), (r_short, "different dimensionality"),
           (r_negative, "Invalid permutation")]


@pytest.mark.parametrize("graph,message", REFUSED, ids=[g.__name__[2:] for g, _ in REFUSED])
def test_refuses_what_dali_refuses(tmp_path, graph, message):
    x = [np.zeros((2, 3, 4), np.uint8)] * 2
    with pytest.raises(AssertionError, match="DALI failed"):
        run_dali(graph, [x], tmp_path, ["HWC"])
    with pytest.raises(Exception, match=message):
        run_sluice(graph, [x], ["HWC"])


@pytest.mark.gpu
def test_gpu_equals_cpu():
    rng = np.random.default_rng(2)
    data = [rng.integers(0, 255, (int(rng.integers(1, 60)), int(rng.integers(1, 60)), 3))
            .astype(np.uint8) for _ in range(6)]

    def graph(x):
        return (fn.transpose(x, perm=[2, 0, 1]), fn.transpose(x, perm=[1, 0, 2]),
                fn.transpose(fn.cast(x, dtype=fn_types().FLOAT), perm=[2, 1, 0]))

    @pipeline_def(batch_size=6, num_threads=1, device_id=0)
    def p():
        x = fn.external_source(lambda: data, layout="HWC")
        return graph(x) + graph(x.gpu())

    assert_gpu_half_equals_cpu(p().run())


def fn_types():
    from sluice import types
    return types
