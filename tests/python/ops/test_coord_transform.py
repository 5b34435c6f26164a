"""coord_transform against NVIDIA DALI 2.4 and numpy: M, T, MT (constant, per sample, scalar
diagonal), projections to fewer components, integer inputs and outputs (rounded and saturated),
and what DALI refuses; the GPU operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from geometry_testing import assert_refused_by_both
from sluice import fn, pipeline_def, types


def float_graph(fn, types, pts, mats, ts):
    return (fn.coord_transform(pts), fn.coord_transform(pts, M=[1, 2, 3, 4, 5, 6, 7, 8, 9]),
            fn.coord_transform(pts, M=[0.5], T=[1, 2, 3]),
            fn.coord_transform(pts, M=[1, 0, 0, 0, 1, 0], T=[7]),
            fn.coord_transform(pts, MT=[1, 2, 3, 4, 5, 6, 7, 8]),
            fn.coord_transform(pts, MT=[2.5]),
            fn.coord_transform(pts, M=mats, T=ts))


def test_float_points_equal_dali_and_numpy(tmp_path):
    rng = np.random.default_rng(7)
    pts = [rng.normal(0, 50, size=(int(rng.integers(0, 20)), 3)).astype(np.float32) for _ in range(5)]
    mats = [rng.normal(size=(2, 3)).astype(np.float32) for _ in range(5)]
    ts = [rng.normal(size=2).astype(np.float32) for _ in range(5)]
    inputs = [pts, mats, ts]
    ours = run_sluice(float_graph, inputs)
    ref = run_dali(float_graph, inputs, tmp_path)
    for k, (o, r) in enumerate(zip(ours, ref)):
        for i, (a, b) in enumerate(zip(o, r)):
            assert a.dtype == b.dtype == np.float32 and a.shape == b.shape, f"output {k} sample {i}"
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-4, err_msg=f"output {k} sample {i}")
    for i, p in enumerate(pts):
        np.testing.assert_allclose(ours[6][i], p @ mats[i].T + ts[i], rtol=1e-5, atol=1e-4)
        assert ours[3][i].shape == (len(p), 2)


def u8_graph(fn, types, pts):
    return (fn.coord_transform(pts, M=[0.5, 1.25, -0.75, 2], T=[0.25, -3]),
            fn.coord_transform(pts, MT=[-1, 0, 300.4, 0, 2, -100.6], dtype=types.UINT8),
            fn.coord_transform(pts, M=[3.7], dtype=types.UINT8))


def i16_graph(fn, types, pts):
    return (fn.coord_transform(pts, MT=[-1, 0, 300.4, 0, 2, -100.6], dtype=types.INT16),
            fn.coord_transform(pts, M=[3.7], dtype=types.INT16))


def u16_graph(fn, types, pts):
    return (fn.coord_transform(pts, MT=[-1, 0, 300.4, 0, 2, -100.6], dtype=types.UINT16),
            fn.coord_transform(pts, M=[3.7], dtype=types.UINT16))


def i32_graph(fn, types, pts):
    return (fn.coord_transform(pts, MT=[-1, 0, 300.4, 0, 2, -100.6], dtype=types.INT32),
            fn.coord_transform(pts, M=[0.5, 1.25, -0.75, 2], T=[0.25, -3]))


@pytest.mark.parametrize("dtype,graph", [(np.uint8, u8_graph), (np.int16, i16_graph),
                                         (np.uint16, u16_graph), (np.int32, i32_graph)])
def test_integer_points_equal_dali(tmp_path, dtype, graph):
    """Integer outputs are rounded half away from zero and saturated, as DALI's CPU does."""
    rng = np.random.default_rng(8)
    info = np.iinfo(dtype)
    pts = [rng.integers(max(info.min, -30000), min(info.max, 30000), (9, 2)).astype(dtype)
           for _ in range(3)]
    ours = run_sluice(graph, [pts])
    ref = run_dali(graph, [pts], tmp_path)
    for k, (o, r) in enumerate(zip(ours, ref)):
        for i, (a, b) in enumerate(zip(o, r)):
            assert a.dtype == b.dtype and a.shape == b.shape, f"output {k}"
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-3, err_msg=f"output {k} sample {i}")


def both_graph(fn, types, pts):
    return fn.coord_transform(pts, M=[1, 2, 3, 4], MT=[1, 2, 3, 4, 5, 6])


def bad_columns_graph(fn, types, pts):
    return fn.coord_transform(pts, M=[1, 2, 3])


def wrong_type_graph(fn, types, pts):
    return fn.coord_transform(pts, dtype=types.INT16)


@pytest.mark.parametrize("graph,message", [(bad_columns_graph, "Cannot form a matrix"),
                                           (wrong_type_graph, "output type must be the same"),
                                           (both_graph, "mutually exclusive")])
def test_refuses_what_dali_refuses(tmp_path, graph, message):
    pts = [np.ones((4, 2), np.float32)] * 2
    assert_refused_by_both(graph, [pts], tmp_path, message)


def test_one_dimensional_input_is_refused(tmp_path):
    assert_refused_by_both(wrong_type_graph, [[np.ones(4, np.float32)] * 2], tmp_path,
                           "at least 2 dimensions")


@pytest.mark.gpu
def test_gpu_equals_cpu():
    rng = np.random.default_rng(9)
    pts = [rng.normal(0, 100, size=(int(rng.integers(0, 3000)), 3)).astype(np.float32)
           for _ in range(8)]
    ipts = [(np.abs(p) % 255).astype(np.uint8) for p in pts]

    def pipe(device):
        @pipeline_def(batch_size=8, num_threads=2, device_id=0)
        def p():
            x = fn.external_source(lambda: pts)
            xi = fn.external_source(lambda: ipts)
            if device == "gpu":
                x, xi = x.gpu(), xi.gpu()
            m = fn.random.uniform(range=[-2, 2], shape=[2, 3], seed=3)
            return (fn.coord_transform(x, M=m, T=[0.5, -1], device=device),
                    fn.coord_transform(x, M=[1.5], device=device),
                    fn.coord_transform(xi, M=m, dtype=types.UINT8, device=device))
        return p()

    cpu, gpu = pipe("cpu").run(), pipe("gpu").run()
    for c, g in zip(cpu, gpu):
        for i in range(8):
            np.testing.assert_array_equal(np.asarray(c.at(i)), np.asarray(g.as_cpu().at(i)))
