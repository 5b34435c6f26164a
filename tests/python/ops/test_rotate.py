"""rotate against NVIDIA DALI 2.4 on random images and photos: per-sample angles, DALI's output
size rule (bounding box, parity), keep_size, size, fill_value and the clamped border, NN and
linear, output types, and what Sluice does not support; the GPU operator against the CPU one.
Tolerances as in test_warp_affine.py (DALI's CPU accumulates positions along rows). Nearest
neighbour is compared at an angle that is no multiple of 90 degrees: at those, positions fall
exactly on pixel edges, where the two libraries' last-bit differences pick either pixel."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from op_testing import compare_gpu_cpu, files_in, pil_rgb, random_images
from sluice import fn, types
from test_warp_affine import assert_warps_close


def rotate_graph(fn, types, images, angles):
    return (fn.rotate(images, angle=angles), fn.rotate(images, angle=30.0, fill_value=0),
            fn.rotate(images, angle=37.0, keep_size=True, interp_type=types.INTERP_NN),
            fn.rotate(images, angle=-100.0, size=[33, 21], fill_value=255),
            fn.rotate(images, angle=angles, dtype=types.FLOAT, fill_value=3))


def test_rotate_equals_dali_on_random_images(tmp_path):
    rng = np.random.default_rng(16)
    images = [rng.integers(0, 256, (int(rng.integers(3, 60)), int(rng.integers(3, 60)), 3), np.uint8)
              for _ in range(8)]
    angles = [np.array(a, np.float32) for a in (0, 90, -90, 180, 45, 12.5, -200.25, 359)]
    inputs = [images, angles]
    ours = run_sluice(rotate_graph, inputs, ["HWC", None])
    ref = run_dali(rotate_graph, inputs, tmp_path, ["HWC", None])
    assert_warps_close(ours, ref, nn_outputs=(2,), max_nn_fraction=0.01)
    assert ours[0][1].shape == images[1].shape[1::-1] + (3,)  # 90 degrees: extents swap


def photo_graph(fn, types, images, angles):
    return (fn.rotate(images, angle=angles, fill_value=0),
            fn.rotate(images, angle=angles, interp_type=types.INTERP_NN))


def test_rotate_of_photos_equals_dali(shared_data, tmp_path):
    photos = [pil_rgb(p) for p in files_in(shared_data / "photos", "*.jpg")[:4]]
    angles = [np.array(a, np.float32) for a in (10, -33.3, 75, 150)][:len(photos)]
    inputs = [photos, angles]
    assert_warps_close(run_sluice(photo_graph, inputs, ["HWC", None]),
                       run_dali(photo_graph, inputs, tmp_path, ["HWC", None]), nn_outputs=(1,))


def test_volumes_are_not_supported():
    def graph(fn, types, images):
        return fn.rotate(images, angle=10.0, axis=[0, 0, 1])

    with pytest.raises(Exception, match="volumetric rotation"):
        run_sluice(graph, [[np.zeros((4, 4, 3), np.uint8)]], ["HWC"])


@pytest.mark.gpu
def test_gpu_equals_cpu():
    data = random_images(np.random.default_rng(17), 16)

    def graph(x, d):
        angle = fn.random.uniform(range=[-180, 180], seed=6)
        return (fn.rotate(x, angle=angle, device=d),
                fn.rotate(x, angle=angle, fill_value=0, interp_type=types.INTERP_NN, device=d),
                fn.rotate(x, angle=angle, keep_size=True, dtype=types.FLOAT, device=d))

    compare_gpu_cpu(graph, data, atol=0)
