"""coord_flip against NVIDIA DALI 2.4 and numpy: 1D to 3D points, layouts, per-sample flips and
centers, and what DALI refuses; the GPU operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from geometry_testing import assert_refused_by_both
from sluice import fn, pipeline_def


def flip_graph(fn, types, p1, p2, p3, flips, centers):
    return (fn.coord_flip(p1), fn.coord_flip(p2), fn.coord_flip(p2, flip_x=0, flip_y=1),
            fn.coord_flip(p2, layout="yx", flip_y=1, center_x=0.25, center_y=10),
            fn.coord_flip(p3, flip_x=flips, flip_z=1, center_z=centers),
            fn.coord_flip(p3, layout="zxy", flip_x=0, flip_y=flips, center_y=centers))


def test_coord_flip_equals_dali_and_numpy(tmp_path):
    rng = np.random.default_rng(10)
    pts = [[rng.uniform(-1, 2, size=(int(rng.integers(0, 9)), d)).astype(np.float32)
            for _ in range(4)] for d in (1, 2, 3)]
    flips = [np.array(k % 2, np.int32) for k in range(4)]
    centers = [np.array(v, np.float32) for v in rng.uniform(-5, 5, 4)]
    inputs = [*pts, flips, centers]
    ours = run_sluice(flip_graph, inputs)
    ref = run_dali(flip_graph, inputs, tmp_path)
    for k, (o, r) in enumerate(zip(ours, ref)):
        for i, (a, b) in enumerate(zip(o, r)):
            assert a.dtype == b.dtype == np.float32 and a.shape == b.shape
            np.testing.assert_array_equal(a, b, err_msg=f"output {k} sample {i}")
    for i, p in enumerate(pts[1]):
        np.testing.assert_array_equal(ours[3][i], np.stack([20 - p[:, 0], 0.5 - p[:, 1]], axis=1))


def int_graph(fn, types, p):
    return fn.coord_flip(p)


def four_dims_graph(fn, types, p):
    return fn.coord_flip(p)


def bad_layout_graph(fn, types, p):
    return fn.coord_flip(p, layout="xz")


@pytest.mark.parametrize("graph,data,message", [
    (int_graph, np.ones((3, 2), np.int32), "expected to be float"),
    (four_dims_graph, np.ones((3, 4), np.float32), "Unexpected number of dimensions"),
    (bad_layout_graph, np.ones((3, 2), np.float32), "not found in the layout")])
def test_refuses_what_dali_refuses(tmp_path, graph, data, message):
    assert_refused_by_both(graph, [[data] * 2], tmp_path, message)


@pytest.mark.gpu
def test_gpu_equals_cpu():
    rng = np.random.default_rng(11)
    pts = [rng.uniform(0, 1, size=(int(rng.integers(0, 500)), 2)).astype(np.float32)
           for _ in range(8)]

    def pipe(device):
        @pipeline_def(batch_size=8, num_threads=2, device_id=0, seed=3)
        def p():
            x = fn.external_source(lambda: pts)
            coin = fn.random.coin_flip()
            return fn.coord_flip(x.gpu() if device == "gpu" else x, flip_y=coin, center_x=0.3,
                                 device=device)
        return p()

    (cpu,), (gpu,) = pipe("cpu").run(), pipe("gpu").run()
    for i in range(8):
        np.testing.assert_array_equal(np.asarray(cpu.at(i)), np.asarray(gpu.as_cpu().at(i)))
