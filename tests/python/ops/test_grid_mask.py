"""grid_mask against numpy on random images and NVIDIA DALI 2.4 on random images and photos
(constant and per-sample tile, ratio, angle and shifts; the four types DALI takes), the same
refusals as DALI; the GPU operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from op_testing import compare_gpu_cpu, files_in, pil_rgb, random_images


def grid_mask_graph(fn, types, x):
    return fn.grid_mask(x, tile=7, ratio=0.4, shift_x=2, shift_y=-3)


def grid_mask_inputs_graph(fn, types, x, tile, ratio, angle, shift_x, shift_y):
    return fn.grid_mask(x, tile=tile, ratio=ratio, angle=angle, shift_x=shift_x, shift_y=shift_y)


def grid_mask_default_graph(fn, types, x):
    return fn.grid_mask(x)


def per_sample_grids(rng, n):
    return [[np.array(v, dtype) for v in values] for values, dtype in [
        (rng.integers(1, 60, n), np.int32), (rng.uniform(0, 1, n), np.float32),
        (rng.uniform(-4, 4, n), np.float32), (rng.uniform(-80, 80, n), np.float32),
        (rng.uniform(-80, 80, n), np.float32)]]


def test_grid_mask_equals_numpy():
    rng = np.random.default_rng(1)
    images = [rng.integers(1, 256, (int(rng.integers(5, 60)), int(rng.integers(5, 60)), 3),
                           np.uint8) for _ in range(5)]
    (ours,) = run_sluice(grid_mask_graph, [images], ["HWC"])
    for img, out in zip(images, ours):
        y, x = np.mgrid[:img.shape[0], :img.shape[1]]
        fx, fy = (x - 2) / 7, (y + 3) / 7
        keep = (fx - np.floor(fx) >= 0.4) | (fy - np.floor(fy) >= 0.4)
        np.testing.assert_array_equal(out, img * keep[..., None])


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.float32])
def test_grid_mask_equals_dali_on_random_images(tmp_path, dtype):
    rng = np.random.default_rng(2)
    images = [rng.integers(1, 256, (int(rng.integers(1, 90)), int(rng.integers(1, 90)),
                                    int(rng.integers(1, 5)))).astype(dtype) for _ in range(12)]
    inputs = [images, *per_sample_grids(rng, len(images))]
    layouts = ["HWC"] + [None] * 5
    (ours,) = run_sluice(grid_mask_inputs_graph, inputs, layouts)
    (ref,) = run_dali(grid_mask_inputs_graph, inputs, tmp_path, layouts)
    for i, (a, b) in enumerate(zip(ours, ref)):
        assert a.dtype == b.dtype == dtype
        np.testing.assert_array_equal(a, b, err_msg=f"sample {i}")


def test_grid_mask_of_photos_equals_dali(shared_data, tmp_path):
    photos = [pil_rgb(p) for p in files_in(shared_data / "photos", "*.jpg")[:6]]
    inputs = [photos, *per_sample_grids(np.random.default_rng(3), len(photos))]
    layouts = ["HWC"] + [None] * 5
    (ours,) = run_sluice(grid_mask_inputs_graph, inputs, layouts)
    (ref,) = run_dali(grid_mask_inputs_graph, inputs, tmp_path, layouts)
    for i, (a, b) in enumerate(zip(ours, ref)):
        np.testing.assert_array_equal(a, b, err_msg=f"photo {i}")
    (ours,) = run_sluice(grid_mask_default_graph, [photos], ["HWC"])
    (ref,) = run_dali(grid_mask_default_graph, [photos], tmp_path, ["HWC"])
    for i, (a, b) in enumerate(zip(ours, ref)):
        np.testing.assert_array_equal(a, b, err_msg=f"photo {i}, default grid")


def zero_tile_graph(fn, types, x):
    return fn.grid_mask(x, tile=0)


@pytest.mark.parametrize("graph,dtype", [(zero_tile_graph, np.uint8),
                                         (grid_mask_graph, np.float16),
                                         (grid_mask_graph, np.int8),
                                         (grid_mask_graph, np.uint16)])
def test_grid_mask_refuses_what_dali_refuses(tmp_path, graph, dtype):
    x = [np.ones((6, 8, 3), dtype)] * 2
    with pytest.raises(AssertionError, match="DALI failed"):
        run_dali(graph, [x], tmp_path, ["HWC"])
    with pytest.raises(Exception):
        run_sluice(graph, [x], ["HWC"])


@pytest.mark.gpu
def test_gpu_equals_cpu():
    from sluice import fn

    data = random_images(np.random.default_rng(4), 16)

    def graph(x, d):
        angle = fn.random.uniform(range=(-3, 3), seed=5)
        tile = fn.cast(fn.random.uniform(range=(10, 80), seed=6), dtype=types_int32())
        return fn.grid_mask(x, tile=tile, ratio=0.3, angle=angle, shift_x=5.5, device=d)

    compare_gpu_cpu(graph, data, atol=0)


def types_int32():
    from sluice import types

    return types.INT32
