"""element_extract against numpy and NVIDIA DALI 2.4: frames of sequences, one output per index of
`element_map` (a list or a single index), the leading 'F' dropped from the layout, sequences of
different lengths and empty frames; the inputs and arguments DALI refuses. The GPU operator
against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from op_testing import assert_gpu_half_equals_cpu
from sluice import fn, pipeline_def


def extract_graph(fn, types, seq, plain):
    return (*fn.element_extract(seq, element_map=[2, 0, 2]), fn.element_extract(seq, element_map=1),
            fn.element_extract(plain, element_map=[0]))


def random_sequences(rng, dtype, n=4):
    out = []
    for _ in range(n):
        shape = (int(rng.integers(3, 7)), int(rng.integers(0, 5)), int(rng.integers(1, 5)), 3)
        out.append((rng.random(shape) * 200).astype(dtype))
    return out


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.int64, np.bool_])
def test_element_extract_equals_dali_and_numpy(tmp_path, dtype):
    rng = np.random.default_rng(3)
    seq = random_sequences(rng, dtype)
    plain = [rng.integers(0, 9, (int(rng.integers(1, 4)), 5)).astype(np.int16) for _ in seq]
    inputs, layouts = [seq, plain], ["FHWC", None]
    ours, our_layouts = run_sluice(extract_graph, inputs, layouts, with_layouts=True)
    for k, e in enumerate([2, 0, 2, 1]):
        for o, x in zip(ours[k], seq):
            np.testing.assert_array_equal(o, x[e])
            assert o.dtype == x.dtype
    ref, ref_layouts = run_dali(extract_graph, inputs, tmp_path, layouts, with_layouts=True)
    assert our_layouts == ref_layouts == ["HWC"] * 4 + [""]
    for k, (o, r) in enumerate(zip(ours, ref)):
        for x, y in zip(o, r):
            assert x.dtype == y.dtype and x.shape == y.shape, f"output {k}"
            np.testing.assert_array_equal(x, y, err_msg=f"output {k}")


def r_layout(fn, types, x): return fn.element_extract(fn.reshape(x, layout="HWC"), element_map=0)
def r_bounds(fn, types, x): return fn.element_extract(x, element_map=[0, 2])
def r_negative(fn, types, x): return fn.element_extract(x, element_map=[-1])
def r_ndim(fn, types, x): return fn.element_extract(x[:, 0, 0], element_map=0)
def r_empty(fn, types, x): return fn.element_extract(x, element_map=[])


REFUSED = [(r_layout, "must start with 'F'"), (r_bounds, "out of bounds"),
           (r_negative, "Negative indices"), (r_ndim, "at least two dimensions"),
           (r_empty, "must not be empty")]


@pytest.mark.parametrize("graph,message", REFUSED, ids=[g.__name__[2:] for g, _ in REFUSED])
def test_refuses_what_dali_refuses(tmp_path, graph, message):
    inputs = [[np.zeros((3, 2, 1), np.uint8), np.zeros((2, 2, 1), np.uint8)]]
    with pytest.raises(AssertionError, match="DALI failed"):
        run_dali(graph, inputs, tmp_path, ["FHW"])
    with pytest.raises(Exception, match=message):
        run_sluice(graph, inputs, ["FHW"])


@pytest.mark.gpu
def test_gpu_equals_cpu():
    rng = np.random.default_rng(9)
    seq = random_sequences(rng, np.uint8, 6) + [np.zeros((4, 0, 2, 3), np.uint8)]

    def graph(x):
        return (*fn.element_extract(x, element_map=[2, 0, 1]), fn.element_extract(x, element_map=2))

    @pipeline_def(batch_size=len(seq), num_threads=1, device_id=0)
    def p():
        x = fn.external_source(lambda: seq, layout="FHWC")
        return graph(x) + graph(x.gpu())

    for c in assert_gpu_half_equals_cpu(p().run()):
        assert c.layout() == "HWC"
