"""water against numpy on random images and NVIDIA DALI 2.4 on random images and photos
(nearest and linear, uint8 and float, fill values, waves, a per-sample mask), the same refusals
as DALI; the GPU operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import assert_first_output_equals_dali, run_dali, run_sluice
from op_testing import compare_gpu_cpu, files_in, pil_rgb, random_images


def water_graph(fn, types, x):
    return fn.water(x)


def water_linear_graph(fn, types, x, mask):
    return fn.water(x, interp_type=types.INTERP_LINEAR, ampl_x=3.5, ampl_y=-6, freq_x=0.3,
                    freq_y=0.11, phase_x=1.2, phase_y=-0.4, fill_value=300.7, mask=mask)


def water_nn_graph(fn, types, x):
    return fn.water(x, ampl_x=2.5, ampl_y=4, freq_x=0.2, phase_y=2, fill_value=-3)


def test_water_equals_numpy():
    rng = np.random.default_rng(1)
    images = random_images(rng, 4)
    (ours,) = run_sluice(water_nn_graph, [images], ["HWC"])
    f32 = np.float32
    for img, out in zip(images, ours):
        h, w = img.shape[:2]
        y, x = np.mgrid[:h, :w].astype(f32)
        sx = x + f32(2.5) * np.sin(f32(0.2) * y)
        sy = y + f32(4) * np.cos(f32(2 * np.pi / 128) * x + f32(2))
        ix, iy = np.floor(sx).astype(int), np.floor(sy).astype(int)
        inside = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
        want = np.where(inside[..., None], img[iy.clip(0, h - 1), ix.clip(0, w - 1)], 253)
        # numpy's float32 sine may differ from the C library's in the last bit.
        assert (out != want).any(axis=2).mean() < 1e-3


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_water_equals_dali_on_random_images(tmp_path, dtype):
    rng = np.random.default_rng(2)
    images = [rng.integers(0, 256, (int(rng.integers(1, 80)), int(rng.integers(1, 80)),
                                    int(rng.integers(1, 5)))).astype(dtype) for _ in range(10)]
    masks = [np.array(k % 4 != 0, np.int32) for k in range(len(images))]
    cases = [
        (water_graph, [images], ["HWC"]),
        (water_nn_graph, [images], ["HWC"]),
        (water_linear_graph, [images, masks], ["HWC", None]),
    ]
    assert_first_output_equals_dali(cases, tmp_path, dtype)


def test_water_of_photos_equals_dali(shared_data, tmp_path):
    photos = [pil_rgb(p) for p in files_in(shared_data / "photos", "*.jpg")[:4]]
    masks = [np.array(1, np.int32)] * len(photos)
    cases = [
        (water_graph, [photos], ["HWC"]),
        (water_linear_graph, [photos, masks], ["HWC", None]),
    ]
    assert_first_output_equals_dali(cases, tmp_path, what="photo")


def water_cubic_graph(fn, types, x):
    return fn.water(x, interp_type=types.INTERP_CUBIC)


@pytest.mark.parametrize("graph,layout,dtype,shape", [
    (water_cubic_graph, "HWC", np.uint8, (4, 5, 3)),
    (water_graph, "HWC", np.int16, (4, 5, 3)),
    (water_graph, "CHW", np.uint8, (3, 4, 5)),
    (water_graph, "HW", np.uint8, (4, 5)),
])
def test_water_refuses_what_dali_refuses(tmp_path, graph, layout, dtype, shape):
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
        return fn.water(x, ampl_x=7, freq_y=0.2, interp_type=types.INTERP_LINEAR, device=d)

    # CUDA's sinf and the C library's may differ in the last bit: a grey level at most.
    compare_gpu_cpu(graph, data, atol=1)
