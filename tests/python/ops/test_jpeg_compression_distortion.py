"""jpeg_compression_distortion against NVIDIA DALI 2.4 (per-sample quality, clamped values,
sequences, photos, odd sizes) and against Pillow's libjpeg round trip; refusals as DALI; the GPU
operator against the CPU one (it runs the CPU codec: docs/COMPATIBILITY.md)."""

import io

import numpy as np
import pytest

from color_cases import assert_both_refuse, assert_equal_outputs, photos
from dali_reference import run_dali, run_sluice
from op_testing import compare_gpu_cpu
from op_testing import random_images as random_rgb


def jpeg_graph(fn, types, images, quality):
    return (fn.jpeg_compression_distortion(images, quality=quality),
            fn.jpeg_compression_distortion(images))


def smooth_images(rng, n, frames=0):
    """Random smooth images (a blurred noise field) of odd sizes: JPEG's natural input."""
    out = []
    for _ in range(n):
        h, w = (int(v) for v in rng.integers(1, 70, 2))
        base = rng.uniform(0, 255, (h // 4 + 2, w // 4 + 2, 3))
        img = np.kron(base, np.ones((4, 4, 1)))[:h, :w] + rng.normal(0, 12, (h, w, 3))
        img = np.clip(img, 0, 255).astype(np.uint8)
        out.append(np.stack([img, img[::-1, ::-1].copy()]) if frames else img)
    return out


@pytest.mark.parametrize("layout", ["HWC", "FHWC"])
def test_equals_dali(tmp_path, layout):
    rng = np.random.default_rng(3)
    images = smooth_images(rng, 6, frames=layout == "FHWC")
    quality = [np.array(q, np.int32) for q in [1, 10, 50, 95, 100, 150]]
    ours = run_sluice(jpeg_graph, [images, quality], [layout, None])
    ref = run_dali(jpeg_graph, [images, quality], tmp_path, [layout, None])
    for o, r in zip(ours, ref):
        assert_equal_outputs(o, r)


def test_photos_equal_dali(shared_data, tmp_path):
    images = photos(shared_data, 3)
    quality = [np.array(q, np.int32) for q in [5, 40, 90]]
    for o, r in zip(run_sluice(jpeg_graph, [images, quality], ["HWC", None]),
                    run_dali(jpeg_graph, [images, quality], tmp_path, ["HWC", None])):
        assert_equal_outputs(o, r)


def test_equals_pillow_round_trip():
    from PIL import Image

    rng = np.random.default_rng(4)
    images = smooth_images(rng, 3)
    quality = [np.array(q, np.int32) for q in [20, 60, 90]]
    (ours, _) = run_sluice(jpeg_graph, [images, quality], ["HWC", None])
    for img, q, out in zip(images, quality, ours):
        buf = io.BytesIO()
        Image.fromarray(img).save(buf, format="JPEG", quality=int(q), subsampling=2)
        np.testing.assert_array_equal(out, np.asarray(Image.open(buf).convert("RGB")))


def quality_graph(fn, types, images):
    return fn.jpeg_compression_distortion(images, quality=30)


@pytest.mark.parametrize("shape,dtype,layout,match", [
    ((8, 9, 4), np.uint8, "HWC", "3 channels"),
    ((3, 8, 9), np.uint8, "CHW", "does not match any of the allowed layouts"),
    ((8, 9, 3), np.float32, "HWC", "UINT8"),
])
def test_refuses_what_dali_refuses(tmp_path, shape, dtype, layout, match):
    assert_both_refuse(quality_graph, [[np.zeros(shape, dtype)] * 2], [layout], tmp_path, match)


@pytest.mark.gpu
def test_gpu_equals_cpu():
    from sluice import fn, types

    def graph(x, d):
        q = fn.random.uniform(range=[1, 100], seed=2, dtype=types.INT32)
        return fn.jpeg_compression_distortion(x, quality=q, device=d)

    compare_gpu_cpu(graph, random_rgb(np.random.default_rng(5), 8), atol=0)
