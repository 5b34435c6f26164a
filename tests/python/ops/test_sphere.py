"""sphere against numpy on random images and NVIDIA DALI 2.4 on random images and photos
(nearest and linear, uint8 and float, fill values, a per-sample mask), the same refusals as
DALI; the GPU operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import assert_first_output_equals_dali, run_dali, run_sluice
from op_testing import compare_gpu_cpu, files_in, pil_rgb, random_images


def sphere_graph(fn, types, x):
    return fn.sphere(x)


def sphere_linear_graph(fn, types, x, mask):
    return fn.sphere(x, interp_type=types.INTERP_LINEAR, fill_value=17.9, mask=mask)


def test_sphere_equals_numpy():
    rng = np.random.default_rng(1)
    images = random_images(rng, 4)
    (ours,) = run_sluice(sphere_graph, [images], ["HWC"])
    f32 = np.float32
    for img, out in zip(images, ours):
        h, w = img.shape[:2]
        mid_x, mid_y = f32(w * 0.5), f32(h * 0.5)
        d = f32(int(max(mid_x, mid_y)))
        y, x = np.mgrid[:h, :w].astype(f32)
        ty, tx = y + f32(0.5) - mid_y, x + f32(0.5) - mid_x
        r = np.sqrt(tx * tx + ty * ty) / d
        ix, iy = np.floor(mid_x + r * tx).astype(int), np.floor(mid_y + r * ty).astype(int)
        inside = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
        want = np.where(inside[..., None], img[iy.clip(0, h - 1), ix.clip(0, w - 1)], 0)
        np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_sphere_equals_dali_on_random_images(tmp_path, dtype):
    rng = np.random.default_rng(2)
    images = [rng.integers(0, 256, (int(rng.integers(1, 80)), int(rng.integers(1, 80)),
                                    int(rng.integers(1, 5)))).astype(dtype) for _ in range(10)]
    masks = [np.array(k % 4 != 0, np.int32) for k in range(len(images))]
    cases = [
        (sphere_graph, [images], ["HWC"]),
        (sphere_linear_graph, [images, masks], ["HWC", None]),
    ]
    assert_first_output_equals_dali(cases, tmp_path, dtype)


def test_sphere_of_photos_equals_dali(shared_data, tmp_path):
    photos = [pil_rgb(p) for p in files_in(shared_data / "photos", "*.jpg")[:4]]
    masks = [np.array(1, np.int32)] * len(photos)
    cases = [
        (sphere_graph, [photos], ["HWC"]),
        (sphere_linear_graph, [photos, masks], ["HWC", None]),
    ]
    assert_first_output_equals_dali(cases, tmp_path, what="photo")


def sphere_cubic_graph(fn, types, x):
    return fn.sphere(x, interp_type=types.INTERP_CUBIC)


@pytest.mark.parametrize("graph,layout,dtype,shape", [
    (sphere_cubic_graph, "HWC", np.uint8, (4, 5, 3)),
    (sphere_graph, "HWC", np.int32, (4, 5, 3)),
    (sphere_graph, "CHW", np.uint8, (3, 4, 5)),
])
def test_sphere_refuses_what_dali_refuses(tmp_path, graph, layout, dtype, shape):
    x = [np.ones(shape, dtype)] * 2
    with pytest.raises(AssertionError, match="DALI failed"):
        run_dali(graph, [x], tmp_path, [layout])
    with pytest.raises(Exception):
        run_sluice(graph, [x], [layout])


@pytest.mark.gpu
def test_gpu_equals_cpu():
    from sluice import fn, types

    data = random_images(np.random.default_rng(3), 16)

    def graph(x, d):
        return fn.sphere(x, interp_type=types.INTERP_LINEAR, fill_value=9, device=d)

    compare_gpu_cpu(graph, data, atol=0)
