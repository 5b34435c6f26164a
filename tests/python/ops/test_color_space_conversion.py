"""color_space_conversion against NVIDIA DALI 2.4 in every direction it supports (RGB, BGR,
YCbCr, GRAY), bit-exact on random images, sequences and photos, and against the formulas
(OpenCV's 15-bit fixed-point grey, ITU-R BT.601 YCbCr with 16..235 luma); refused types, layouts, channel counts and
same-space conversions as DALI; the GPU operator against the CPU one."""

import numpy as np
import pytest

from color_cases import assert_both_refuse, photos
from dali_reference import run_dali, run_sluice
from op_testing import compare_gpu_cpu
from op_testing import random_images as random_rgb

SPACES = ["RGB", "BGR", "YCbCr", "GRAY"]
PAIRS = [(a, b) for a in SPACES for b in SPACES if a != b]


def from_3ch_graph(fn, types, images):
    return tuple(fn.color_space_conversion(images, image_type=getattr(types, a),
                                           output_type=getattr(types, b))
                 for a in ["RGB", "BGR", "YCbCr"] for b in ["RGB", "BGR", "YCbCr", "GRAY"]
                 if a != b)


def from_gray_graph(fn, types, images):
    return tuple(fn.color_space_conversion(images, image_type=types.GRAY,
                                           output_type=getattr(types, b))
                 for b in ["RGB", "BGR", "YCbCr"])


def random_u8(rng, n, channels, layout="HWC"):
    out = []
    for k in range(n):
        h, w = (int(v) for v in rng.integers(1, 40, 2))
        shape = (h, w, channels) if layout == "HWC" else (2, h, w, channels)
        img = rng.integers(0, 256, shape).astype(np.uint8)
        if k == 0:
            img[..., :] = img[..., :1]  # grey pixels: YCbCr's chroma is exactly 128
        out.append(img)
    return out


@pytest.mark.parametrize("layout", ["HWC", "FHWC"])
def test_every_direction_equals_dali(tmp_path, layout):
    rng = np.random.default_rng(9)
    for graph, channels in [(from_3ch_graph, 3), (from_gray_graph, 1)]:
        inputs = [random_u8(rng, 6, channels, layout)]
        ours = run_sluice(graph, inputs, [layout])
        ref = run_dali(graph, inputs, tmp_path, [layout])
        for k, (o, r) in enumerate(zip(ours, ref)):
            for i, (a, b) in enumerate(zip(o, r)):
                np.testing.assert_array_equal(a, b, err_msg=f"conversion {k}, sample {i}")


def test_photos_equal_dali(shared_data, tmp_path):
    inputs = [photos(shared_data)]
    for o, r in zip(run_sluice(from_3ch_graph, inputs, ["HWC"]),
                    run_dali(from_3ch_graph, inputs, tmp_path, ["HWC"])):
        for a, b in zip(o, r):
            np.testing.assert_array_equal(a, b)


def test_equals_formulas():
    rng = np.random.default_rng(10)
    images = random_u8(rng, 4, 3)
    outs = run_sluice(from_3ch_graph, [images], ["HWC"])
    to_bgr, to_ycc, to_gray = outs[0], outs[1], outs[2]
    for img, bgr, ycc, gray in zip(images, to_bgr, to_ycc, to_gray):
        np.testing.assert_array_equal(bgr, img[..., ::-1])
        r, g, b = (img[..., k].astype(np.int64) for k in range(3))
        np.testing.assert_array_equal(gray[..., 0], (r * 9798 + g * 19235 + b * 3735 + 16384) >> 15)
        y = (0.299 * r + 0.587 * g + 0.114 * b) * 219 / 255 + 16
        assert np.abs(ycc[..., 0] - y).max() <= 0.5 + 1e-4


def to_same_graph(fn, types, images):
    return fn.color_space_conversion(images, image_type=types.RGB, output_type=types.RGB)


def rgb_to_gray_graph(fn, types, images):
    return fn.color_space_conversion(images, image_type=types.RGB, output_type=types.GRAY)


@pytest.mark.parametrize("graph,shape,dtype,layout,match", [
    (to_same_graph, (3, 4, 3), np.uint8, "HWC", "not supported"),
    (rgb_to_gray_graph, (3, 4, 3), np.float32, "HWC", "UINT8"),
    (rgb_to_gray_graph, (3, 4, 4), np.uint8, "HWC", "channels"),
    (rgb_to_gray_graph, (3, 4, 5), np.uint8, "CHW", "does not match any of the allowed layouts"),
])
def test_refuses_what_dali_refuses(tmp_path, graph, shape, dtype, layout, match):
    images = [np.zeros(shape, dtype)] * 2
    assert_both_refuse(graph, [images], [layout], tmp_path, match)


@pytest.mark.gpu
def test_gpu_equals_cpu():
    from sluice import fn, types

    data = random_rgb(np.random.default_rng(7), 12)

    def graph(x, d):
        outs = []
        for a in ["RGB", "BGR", "YCbCr"]:
            for b in ["RGB", "BGR", "YCbCr", "GRAY"]:
                if a != b:
                    outs.append(fn.color_space_conversion(x, image_type=getattr(types, a),
                                                          output_type=getattr(types, b), device=d))
        gray = fn.color_space_conversion(x, image_type=types.RGB, output_type=types.GRAY, device=d)
        for b in ["RGB", "YCbCr"]:
            outs.append(fn.color_space_conversion(gray, image_type=types.GRAY,
                                                  output_type=getattr(types, b), device=d))
        return tuple(outs)

    compare_gpu_cpu(graph, data, atol=0)
