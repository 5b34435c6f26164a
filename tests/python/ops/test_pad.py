"""pad against numpy and NVIDIA DALI 2.4: to the batch's largest extent on all or some axes
(`axes`, negative ones, `axis_names`), to a minimum `shape` (per sample too), rounded up to
`align`, with per-sample fill values converted as DALI converts them; the arguments DALI
refuses; the GPU operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from op_testing import assert_gpu_half_equals_cpu
from sluice import fn, pipeline_def


def pad_graph(fn, types, x, f, s):
    return (fn.pad(x),
            fn.pad(x, fill_value=-1, axes=[0]),
            fn.pad(x, axes=[-2], fill_value=7.9),
            fn.pad(x, axis_names="W", align=4),
            fn.pad(x, axes=[0, 1], shape=[12, -1], align=[1, 2]),
            fn.pad(x, axes=[0], shape=[1], align=[4]),
            fn.pad(x, fill_value=f),
            fn.pad(x, axes=[1], shape=s),
            fn.pad(x, fill_value=300),
            fn.pad(fn.cast(x, dtype=types.FLOAT16), axis_names="HW", fill_value=0.5),
            fn.pad(fn.cast(x, dtype=types.BOOL), axes=[1]))


def test_pad_equals_dali(tmp_path):
    rng = np.random.default_rng(1)
    x = [rng.integers(0, 255, (int(rng.integers(1, 9)), int(rng.integers(1, 9)), 3)).astype(np.uint8)
         for _ in range(4)]
    f = [np.array(i * 10.5, np.float32) for i in range(4)]
    s = [np.array([i + 5], np.int32) for i in range(4)]
    ours, our_layouts = run_sluice(pad_graph, [x, f, s], ["HWC", None, None], with_layouts=True)
    ref, ref_layouts = run_dali(pad_graph, [x, f, s], tmp_path, ["HWC", None, None],
                                with_layouts=True)
    assert our_layouts == ref_layouts
    for k, (o, r) in enumerate(zip(ours, ref)):
        for a, b in zip(o, r):
            assert a.dtype == b.dtype and a.shape == b.shape, f"output {k}: {a.shape} {b.shape}"
            np.testing.assert_array_equal(a, b, err_msg=f"output {k}")


def test_pad_equals_numpy():
    rng = np.random.default_rng(2)
    x = [rng.standard_normal((int(rng.integers(1, 6)), 4)).astype(np.float32) for _ in range(5)]

    def graph(fn, types, x):
        return fn.pad(x, fill_value=-2.5, align=[3, 1])

    (ours,) = run_sluice(graph, [x], ["HW"])
    h = -(-max(a.shape[0] for a in x) // 3) * 3
    for a, s in zip(ours, x):
        np.testing.assert_array_equal(a, np.pad(s, ((0, h - s.shape[0]), (0, 0)),
                                                constant_values=-2.5))


def r_names_and_axes(fn, types, x): return fn.pad(x, axes=[0], axis_names="H")
def r_shape_count(fn, types, x): return fn.pad(x, axes=[0, 1], shape=[5, 5, 5])
def r_align_count(fn, types, x): return fn.pad(x, axes=[0, 1], align=[2, 3, 4])
def r_align_zero(fn, types, x): return fn.pad(x, axes=[0, 1], align=[0])
def r_missing_name(fn, types, x): return fn.pad(x, axis_names="D")
def r_scalar(fn, types, x): return fn.pad(x[0, 0, 0])
def r_axis(fn, types, x): return fn.pad(x, axes=[3])


REFUSED = [(r_names_and_axes, "mutually exclusive"), (r_shape_count, "expected shape 2"),
           (r_align_count, "expected shape 2"), (r_align_zero, "must be positive"),
           (r_missing_name, "not present in the input layout"),
           (r_scalar, "Unsupported number of dimensions 0"), (r_axis, "out of range")]


@pytest.mark.parametrize("graph,message", REFUSED, ids=[g.__name__[2:] for g, _ in REFUSED])
def test_refuses_what_dali_refuses(tmp_path, graph, message):
    x = [np.zeros((2, 3, 3), np.uint8), np.zeros((4, 2, 3), np.uint8)]
    with pytest.raises(AssertionError, match="DALI failed"):
        run_dali(graph, [x], tmp_path, ["HWC"])
    with pytest.raises(Exception, match=message):
        run_sluice(graph, [x], ["HWC"])


@pytest.mark.gpu
def test_gpu_equals_cpu():
    rng = np.random.default_rng(3)
    data = [rng.integers(0, 255, (int(rng.integers(1, 40)), int(rng.integers(1, 40)), 3))
            .astype(np.uint8) for _ in range(6)]
    fills = [np.array(i * 7, np.float32) for i in range(6)]

    def graph(x, f):
        return (fn.pad(x, fill_value=f), fn.pad(x, axes=[1], align=8, fill_value=3),
                fn.pad(x, shape=[50, 1, 4]))

    @pipeline_def(batch_size=6, num_threads=1, device_id=0)
    def p():
        x = fn.external_source(lambda: data, layout="HWC")
        f = fn.external_source(lambda: fills)
        return graph(x, f) + graph(x.gpu(), f)

    assert_gpu_half_equals_cpu(p().run())
