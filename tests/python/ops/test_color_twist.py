"""color_twist against NVIDIA DALI 2.4 (every input and output type DALI takes, per-sample hue,
saturation, brightness and contrast, photos); refused layouts and types; the GPU operator
against the CPU one. Bit-exact, as test_hsv.py."""

import numpy as np
import pytest

from color_cases import (assert_both_refuse, assert_equal_outputs, per_sample, photos,
                         random_images)
from dali_reference import run_dali, run_sluice
from op_testing import compare_gpu_cpu
from op_testing import random_images as random_rgb

TYPES = [np.uint8, np.int16, np.int32, np.float16, np.float32]


def twist_graph(fn, types, images, hue, saturation, brightness, contrast):
    return (fn.color_twist(images, hue=hue, saturation=saturation, brightness=brightness,
                           contrast=contrast),
            fn.color_twist(images, hue=hue, contrast=contrast, dtype=types.FLOAT),
            fn.color_twist(images, saturation=saturation, brightness=brightness,
                           image_type=types.BGR, dtype=types.UINT8))


def twist_inputs(rng, images):
    n = len(images)
    return [images, per_sample(rng, n, -180, 180), per_sample(rng, n, 0, 2),
            per_sample(rng, n, 0.5, 1.5), per_sample(rng, n, 0.5, 1.5)]


def check(ours, ref):
    for o, r in zip(ours, ref):
        assert_equal_outputs(o, r)


@pytest.mark.parametrize("dtype", TYPES)
def test_equals_dali_on_random_images(tmp_path, dtype):
    rng = np.random.default_rng(21)
    inputs, layouts = twist_inputs(rng, random_images(rng, 6, dtype)), ["HWC"] + [None] * 4
    check(run_sluice(twist_graph, inputs, layouts),
          run_dali(twist_graph, inputs, tmp_path, layouts))


def test_photos_equal_dali(shared_data, tmp_path):
    rng = np.random.default_rng(22)
    inputs, layouts = twist_inputs(rng, photos(shared_data)), ["HWC"] + [None] * 4
    check(run_sluice(twist_graph, inputs, layouts),
          run_dali(twist_graph, inputs, tmp_path, layouts))


def contrast_graph(fn, types, images):
    return fn.color_twist(images, contrast=0.0, dtype=types.FLOAT)


def test_zero_contrast_gives_grey():
    images = [np.arange(60, dtype=np.float32).reshape(4, 5, 3) / 60]
    (out,) = run_sluice(contrast_graph, [images], ["HWC"])
    np.testing.assert_allclose(out[0], 0.5, atol=1e-6)


def twist_only_graph(fn, types, images):
    return fn.color_twist(images, hue=10.0)


@pytest.mark.parametrize("dtype,layout,match", [
    (np.uint8, "CHW", "does not match any of the allowed layouts"),
    (np.uint16, "HWC", "Unsupported input type"),
])
def test_refuses_what_dali_refuses(tmp_path, dtype, layout, match):
    images = [np.zeros((3, 4, 3), dtype)] * 2
    assert_both_refuse(twist_only_graph, [images], [layout], tmp_path, match)


@pytest.mark.gpu
def test_gpu_equals_cpu():
    from sluice import fn, types

    def graph(x, d):
        h = fn.random.uniform(range=[-180, 180], seed=2)
        c = fn.random.uniform(range=[0.5, 1.5], seed=3)
        return (fn.color_twist(x, hue=h, contrast=c, saturation=0.7, brightness=1.2, device=d),
                fn.color_twist(x, hue=h, contrast=c, dtype=types.FLOAT16, device=d))

    compare_gpu_cpu(graph, random_rgb(np.random.default_rng(8), 12), atol=0)
