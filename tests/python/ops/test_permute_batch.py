"""permute_batch against numpy and NVIDIA DALI 2.4: samples of any shape picked by constant indices
or a batch of int32 scalars, with repetitions and omissions, the layout kept; the indices DALI
refuses. The GPU operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from op_testing import assert_gpu_half_equals_cpu
from sluice import fn, pipeline_def


def permute_graph(fn, types, x, idx):
    return (fn.permute_batch(x, indices=[3, 3, 0, 1]), fn.permute_batch(x, indices=idx),
            fn.permute_batch(idx, indices=[0, 1, 2, 3]), fn.permute_batch(x, indices=[1, 0, 3, 2]))


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.int64])
def test_permute_batch_equals_dali_and_numpy(tmp_path, dtype):
    rng = np.random.default_rng(4)
    x = [(rng.random((int(rng.integers(0, 6)), int(rng.integers(1, 4)), 3)) * 100).astype(dtype)
         for _ in range(4)]
    idx = [np.array(v, np.int32) for v in (2, 2, 3, 1)]
    ours, our_layouts = run_sluice(permute_graph, [x, idx], ["HWC", None], with_layouts=True)
    for k, order in enumerate([[3, 3, 0, 1], [2, 2, 3, 1]]):
        for o, j in zip(ours[k], order):
            np.testing.assert_array_equal(o, x[j])
            assert o.dtype == x[j].dtype and o.shape == x[j].shape
    ref, ref_layouts = run_dali(permute_graph, [x, idx], tmp_path, ["HWC", None],
                                with_layouts=True)
    assert our_layouts == ref_layouts == ["HWC", "HWC", "", "HWC"]
    for k, (o, r) in enumerate(zip(ours, ref)):
        for a, b in zip(o, r):
            assert a.dtype == b.dtype and a.shape == b.shape, f"output {k}"
            np.testing.assert_array_equal(a, b, err_msg=f"output {k}")


def r_count(fn, types, x, i): return fn.permute_batch(x, indices=[0, 1])
def r_range(fn, types, x, i): return fn.permute_batch(x, indices=[0, 1, 3])
def r_negative(fn, types, x, i): return fn.permute_batch(x, indices=[0, -1, 2])
def r_tensor_range(fn, types, x, i): return fn.permute_batch(x, indices=i + 5)
def r_int64(fn, types, x, i): return fn.permute_batch(x, indices=fn.cast(i, dtype=types.INT64))
def r_vector(fn, types, x, i): return fn.permute_batch(x, indices=fn.stack(i, i))


REFUSED = [(r_count, "does not match the current batch size"), (r_range, "out of range"),
           (r_negative, "out of range"), (r_tensor_range, "out of range"),
           (r_int64, "int32"), (r_vector, "scalars")]


@pytest.mark.parametrize("graph,message", REFUSED, ids=[g.__name__[2:] for g, _ in REFUSED])
def test_refuses_what_dali_refuses(tmp_path, graph, message):
    inputs = [[np.zeros((2, 3), np.uint8)] * 3, [np.array(v, np.int32) for v in (0, 1, 2)]]
    with pytest.raises(AssertionError, match="DALI failed"):
        run_dali(graph, inputs, tmp_path)
    with pytest.raises(Exception, match=message):
        run_sluice(graph, inputs)


@pytest.mark.gpu
def test_gpu_equals_cpu():
    rng = np.random.default_rng(9)
    x = [rng.integers(0, 255, (int(rng.integers(0, 40)), 7, 3)).astype(np.uint8) for _ in range(6)]

    def graph(d):
        return (fn.permute_batch(d, indices=[5, 5, 0, 1, 2, 3]),
                fn.permute_batch(d, indices=fn.batch_permutation(seed=3)))

    @pipeline_def(batch_size=6, num_threads=1, device_id=0)
    def p():
        d = fn.external_source(lambda: x, layout="HWC")
        return graph(d) + graph(d.gpu())

    for c in assert_gpu_half_equals_cpu(p().run()):
        assert c.layout() == "HWC"
