"""hsv against NVIDIA DALI 2.4 (every input and output type DALI takes, per-sample hue /
saturation / value, sequences, photos) bit-exact (the matrix is built as DALI builds it, in float32, with
its Gauss-Jordan inverse of RGB->YIQ), and against a float64 YIQ model; refused layouts, types
and channel counts; the GPU operator against the CPU one."""

import numpy as np
import pytest

from color_cases import (assert_both_refuse, assert_equal_outputs, per_sample, photos,
                         random_images)
from dali_reference import run_dali, run_sluice
from op_testing import compare_gpu_cpu
from op_testing import random_images as random_rgb

TYPES = [np.uint8, np.int16, np.int32, np.float16, np.float32]
RGB_TO_YIQ = np.array([[.299, .587, .114], [.596, -.274, -.321], [.211, -.523, .311]])


def hsv_graph(fn, types, images, hue, saturation, value):
    return (fn.hsv(images, hue=hue, saturation=saturation, value=value),
            fn.hsv(images, hue=hue, saturation=saturation, dtype=types.FLOAT),
            fn.hsv(images, value=value, dtype=types.INT16))


def hsv_inputs(seed, dtype, layout="HWC"):
    rng = np.random.default_rng(seed)
    return [random_images(rng, 6, dtype, layout=layout), per_sample(rng, 6, -180, 180),
            per_sample(rng, 6, 0, 2), per_sample(rng, 6, 0.5, 1.5)]


@pytest.mark.parametrize("dtype", TYPES)
def test_equals_dali_on_random_images(tmp_path, dtype):
    inputs, layouts = hsv_inputs(5, dtype), ["HWC", None, None, None]
    ours = run_sluice(hsv_graph, inputs, layouts)
    ref = run_dali(hsv_graph, inputs, tmp_path, layouts)
    assert ours[0][0].dtype == np.uint8  # hsv's default output type is UINT8, not the input's
    for o, r in zip(ours, ref):
        assert_equal_outputs(o, r)


def test_sequences_and_photos_equal_dali(shared_data, tmp_path):
    rng = np.random.default_rng(6)
    for inputs, layout in [(hsv_inputs(6, np.uint8, "FHWC"), "FHWC"),
                           ([photos(shared_data), per_sample(rng, 4, -90, 90),
                             per_sample(rng, 4, 0.5, 1.5), per_sample(rng, 4, 0.8, 1.2)], "HWC")]:
        layouts = [layout, None, None, None]
        for o, r in zip(run_sluice(hsv_graph, inputs, layouts),
                        run_dali(hsv_graph, inputs, tmp_path, layouts)):
            assert_equal_outputs(o, r)


def test_equals_yiq_model():
    inputs = hsv_inputs(7, np.float32)
    _, as_float, _ = run_sluice(hsv_graph, inputs, ["HWC", None, None, None])
    for img, h, s, out in zip(inputs[0], inputs[1], inputs[2], as_float):
        a = np.deg2rad(float(h))
        rot = np.array([[1, 0, 0], [0, np.cos(a), np.sin(a)], [0, -np.sin(a), np.cos(a)]])
        m = np.linalg.inv(RGB_TO_YIQ) @ rot @ np.diag([1, s, s]) @ RGB_TO_YIQ
        np.testing.assert_allclose(out, img.astype(np.float64) @ m.T, atol=2e-5)


def hsv_only_graph(fn, types, images):
    return fn.hsv(images, hue=30.0)


@pytest.mark.parametrize("dtype,layout,match", [
    (np.uint8, "CHW", "does not match any of the allowed layouts"),
    (np.int8, "HWC", "Unsupported input type"),
    (np.float64, "HWC", "Unsupported input type"),
])
def test_refuses_what_dali_refuses(tmp_path, dtype, layout, match):
    images = [np.zeros((3, 4, 3), dtype)] * 2
    assert_both_refuse(hsv_only_graph, [images], [layout], tmp_path, match)


def test_refuses_other_channel_counts():
    # DALI 2.4 reads such images as packed RGB triplets (and past their end): Sluice refuses.
    with pytest.raises(Exception, match="3-channel"):
        run_sluice(hsv_only_graph, [[np.zeros((3, 4, 4), np.uint8)]], ["HWC"])


@pytest.mark.gpu
def test_gpu_equals_cpu():
    from sluice import fn, types

    def graph(x, d):
        h = fn.random.uniform(range=[-180, 180], seed=2)
        s = fn.random.uniform(range=[0, 2], seed=3)
        return (fn.hsv(x, hue=h, saturation=s, value=1.1, device=d),
                fn.hsv(x, hue=h, saturation=s, dtype=types.FLOAT, device=d))

    compare_gpu_cpu(graph, random_rgb(np.random.default_rng(6), 12), atol=0)
