"""warp_affine against NVIDIA DALI 2.4 on random images and photos: matrices as arguments,
argument inputs and inputs, inverse_map, size, fill_value and the clamped border, NN and linear,
output types, and what DALI refuses; the GPU operator against the CPU one.

Tolerance: DALI's CPU kernel accumulates the source position along each row, Sluice computes it
per pixel (as DALI's GPU does), so positions within float rounding of a pixel edge may sample a
neighbour, and on wide images the accumulated error grows to a few hundredths of a pixel:
nearest neighbour may pick another pixel for a few in a thousand pixels; linear interpolation
differs by at most 1 (grey level, or 1e-3 relative for FLOAT) but for one element in 10^4, which
may differ by 2."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from geometry_testing import assert_refused_by_both
from op_testing import compare_gpu_cpu, files_in, pil_rgb, random_images
from sluice import fn, types


def assert_warps_close(ours, ref, nn_outputs=(), max_nn_fraction=0.005):
    for k, (o, r) in enumerate(zip(ours, ref)):
        for i, (a, b) in enumerate(zip(o, r)):
            assert a.dtype == b.dtype and a.shape == b.shape, f"output {k} sample {i}"
            diff = np.abs(a.astype(np.float64) - b.astype(np.float64))
            if k in nn_outputs:
                bad = diff.reshape(-1, a.shape[-1]).max(axis=1) > 0
                assert bad.mean() <= max_nn_fraction, f"output {k} sample {i}: {bad.mean():.4f}"
            else:
                tol = 1.0 if a.dtype != np.float32 else 1e-3 * max(1.0, np.abs(b).max())
                assert diff.max(initial=0) <= 2 * tol, f"output {k} sample {i}: {diff.max()}"
                assert (diff > tol).mean() <= 1e-4, f"output {k} sample {i}: {(diff > tol).mean()}"


def random_matrices(rng, n):
    """Output-to-input maps around the identity: scale, rotation, shear and shift."""
    out = []
    for _ in range(n):
        a = rng.uniform(-0.6, 0.6)
        s = rng.uniform(0.6, 1.6, 2)
        lin = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]) * s + rng.normal(0, 0.1, (2, 2))
        out.append(np.hstack([lin, rng.uniform(-20, 20, (2, 1))]).astype(np.float32))
    return out


def warp_graph(fn, types, images, mats):
    m = [0.9, 0.17, 1.3, -0.31, 1.07, -2.2]
    return (fn.warp_affine(images, matrix=m),
            fn.warp_affine(images, matrix=m, fill_value=7, size=[31, 45]),
            fn.warp_affine(images, matrix=mats, interp_type=types.INTERP_NN),
            fn.warp_affine(images, mats, fill_value=200, interp_type=types.INTERP_NN, size=[40, 30]),
            fn.warp_affine(images, mats, inverse_map=False, fill_value=0),
            fn.warp_affine(images, matrix=mats, dtype=types.FLOAT, fill_value=-3.5))


def test_warp_affine_equals_dali_on_random_images(tmp_path):
    rng = np.random.default_rng(12)
    images = [rng.integers(0, 256, (int(rng.integers(5, 60)), int(rng.integers(5, 60)), c), np.uint8)
              for c in (3, 1, 3, 4, 3, 2)]
    inputs = [images, random_matrices(rng, len(images))]
    ours = run_sluice(warp_graph, inputs, ["HWC", None])
    ref = run_dali(warp_graph, inputs, tmp_path, ["HWC", None])
    assert_warps_close(ours, ref, nn_outputs=(2, 3))
    assert ours[1][0].shape == (31, 45, 3) and ours[3][0].shape == (40, 30, 3)


def typed_graph(fn, types, images, mats):
    return (fn.warp_affine(images, mats, fill_value=-5), fn.warp_affine(images, mats),
            fn.warp_affine(images, mats, interp_type=types.INTERP_NN, fill_value=1e9))


@pytest.mark.parametrize("dtype", [np.int16, np.int32, np.float32])
def test_other_types_equal_dali(tmp_path, dtype):
    rng = np.random.default_rng(13)
    images = [rng.uniform(-1000, 1000, (int(rng.integers(5, 40)), int(rng.integers(5, 40)), 3)).astype(dtype)
              for _ in range(4)]
    inputs = [images, random_matrices(rng, 4)]
    assert_warps_close(run_sluice(typed_graph, inputs, ["HWC", None]),
                       run_dali(typed_graph, inputs, tmp_path, ["HWC", None]), nn_outputs=(2,))


def photo_graph(fn, types, images, mats):
    return (fn.warp_affine(images, mats, fill_value=0, size=[200, 300]),
            fn.warp_affine(images, mats, interp_type=types.INTERP_NN))


def test_warp_affine_of_photos_equals_dali(shared_data, tmp_path):
    photos = [pil_rgb(p) for p in files_in(shared_data / "photos", "*.jpg")[:4]]
    rng = np.random.default_rng(14)
    inputs = [photos, random_matrices(rng, len(photos))]
    assert_warps_close(run_sluice(photo_graph, inputs, ["HWC", None]),
                       run_dali(photo_graph, inputs, tmp_path, ["HWC", None]), nn_outputs=(1,))


def no_matrix_graph(fn, types, images):
    return fn.warp_affine(images)


def short_matrix_graph(fn, types, images):
    return fn.warp_affine(images, matrix=[1, 0, 0, 1])


def cubic_graph(fn, types, images):
    return fn.warp_affine(images, matrix=[1, 0, 0, 0, 1, 0], interp_type=types.INTERP_CUBIC)


def bad_type_graph(fn, types, images):
    return fn.warp_affine(images, matrix=[1, 0, 0, 0, 1, 0], dtype=types.INT16)


@pytest.mark.parametrize("graph,message", [(no_matrix_graph, "must be provided"),
                                           (short_matrix_graph, "must have 6 elements"),
                                           (cubic_graph, "nearest and linear"),
                                           (bad_type_graph, "Unsupported input/output types")])
def test_refuses_what_dali_refuses(tmp_path, graph, message):
    images = [np.zeros((4, 5, 3), np.uint8)] * 2
    assert_refused_by_both(graph, [images], tmp_path, message, ["HWC"])


@pytest.mark.gpu
def test_gpu_equals_cpu():
    data = random_images(np.random.default_rng(15), 16)

    def graph(x, d):
        angle = fn.random.uniform(range=[-30, 30], seed=5)
        m = fn.transforms.rotation(angle=angle, center=[100, 100])
        return (fn.warp_affine(x, matrix=m, device=d),
                fn.warp_affine(x, matrix=m, fill_value=9, interp_type=types.INTERP_NN,
                               size=[150, 170], device=d),
                fn.warp_affine(x, m.gpu() if d == "gpu" else m, inverse_map=False,
                               dtype=types.FLOAT, device=d))

    compare_gpu_cpu(graph, data, atol=0)
