"""equalize against a numpy reference of OpenCV's equalizeHist and NVIDIA DALI 2.4 (random images
and videos in every layout, photos), bit-exact; refused inputs; the GPU operator against the CPU
one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from geometry_testing import assert_refused_by_both
from op_testing import compare_gpu_cpu, files_in, pil_rgb, random_images


def equalize_graph(fn, types, images):
    return fn.experimental.equalize(images)


def equalize_new_name_graph(fn, types, images):
    return fn.equalize(images)


def numpy_equalize(channel):
    """OpenCV's formula: round((cdf(v) - cdf(min)) * 255 / (n - cdf(min))) in float, half to
    even; an image of one value stays as it is."""
    cdf = np.cumsum(np.bincount(channel.ravel(), minlength=256))
    first = cdf[channel.min()]
    if first == channel.size:
        return channel
    scale = np.float32(255) / np.float32(channel.size - first)
    table = np.rint(np.maximum(cdf - first, 0).astype(np.float32) * scale)
    return table.astype(np.uint8)[channel]


def test_equalize_equals_numpy():
    rng = np.random.default_rng(3)
    images = [rng.integers(lo, lo + 60, (20 + i, 30, 3), np.uint8)
              for i, lo in enumerate((0, 50, 190))] + [np.full((4, 5, 3), 9, np.uint8)]
    (ours,) = run_sluice(equalize_graph, [images], ["HWC"])
    for img, out in zip(images, ours):
        for c in range(3):
            np.testing.assert_array_equal(out[..., c], numpy_equalize(img[..., c]))


@pytest.mark.parametrize("layout", ["HWC", "CHW", "HW", "FHWC", "FCHW", "FHW"])
def test_equalize_equals_dali_on_random_data(tmp_path, layout):
    rng = np.random.default_rng(len(layout))
    samples = []
    for k in range(6):
        h, w = (int(v) for v in rng.integers(1, 50, 2))
        dims = {"H": h, "W": w, "C": int(rng.integers(1, 5)), "F": int(rng.integers(1, 4))}
        lo = int(rng.integers(0, 200))
        samples.append(rng.integers(lo, lo + 1 + k * 11, [dims[a] for a in layout], np.uint8))
    (ours,) = run_sluice(equalize_graph, [samples], [layout])
    (ref,) = run_dali(equalize_graph, [samples], tmp_path, [layout])
    for i, (a, b) in enumerate(zip(ours, ref)):
        np.testing.assert_array_equal(a, b, err_msg=f"sample {i}")


def test_equalize_of_photos_equals_dali(tmp_path, shared_data):
    photos = [pil_rgb(p)[::3, ::3].copy() for p in files_in(shared_data / "photos", "*.jpg")[:4]]
    (ours,) = run_sluice(equalize_new_name_graph, [photos], ["HWC"])
    (ref,) = run_dali(equalize_new_name_graph, [photos], tmp_path, ["HWC"])
    for i, (a, b) in enumerate(zip(ours, ref)):
        np.testing.assert_array_equal(a, b, err_msg=f"photo {i}")


def test_equalize_refuses_what_dali_refuses(tmp_path):
    images = [np.zeros((4, 5, 3), np.float32)]
    assert_refused_by_both(equalize_graph, [images], tmp_path, "uint8_t", ["HWC"])
    images = [np.zeros((4, 5, 3, 1), np.uint8)]
    assert_refused_by_both(equalize_graph, [images], tmp_path, "allowed layouts", ["HWCX"])


@pytest.mark.gpu
def test_gpu_equals_cpu():
    rng = np.random.default_rng(8)
    data = random_images(rng, 8) + [np.full((7, 9, 3), 200, np.uint8)]

    def graph(x, device):
        from sluice import fn

        return fn.equalize(x)

    compare_gpu_cpu(graph, data, atol=0)
