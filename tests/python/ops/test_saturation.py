"""saturation against NVIDIA DALI 2.4 (every input and output type DALI takes, per-sample saturation,
image_type accepted and ignored as in DALI) and against color_twist with only saturation; refusals;
the GPU operator against the CPU one. Bit-exact, as test_hsv.py."""

import numpy as np
import pytest

from color_cases import assert_both_refuse, per_sample, random_images
from dali_reference import run_dali, run_sluice
from op_testing import compare_gpu_cpu
from op_testing import random_images as random_rgb
from test_color_twist import check


def saturation_graph(fn, types, images, value):
    return (fn.saturation(images, saturation=value),
            fn.saturation(images, saturation=value, dtype=types.FLOAT),
            fn.saturation(images, saturation=value, image_type=types.BGR, dtype=types.INT16),
            fn.color_twist(images, saturation=value))


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.float16, np.float32])
def test_equals_dali_on_random_images(tmp_path, dtype):
    rng = np.random.default_rng(31)
    inputs, layouts = [random_images(rng, 6, dtype), per_sample(rng, 6, 0, 2)], ["HWC", None]
    ours = run_sluice(saturation_graph, inputs, layouts)
    check(ours, run_dali(saturation_graph, inputs, tmp_path, layouts))
    for a, b in zip(ours[0], ours[3]):
        np.testing.assert_array_equal(a, b)


def saturation_only_graph(fn, types, images):
    return fn.saturation(images)


@pytest.mark.parametrize("dtype,layout,match", [
    (np.uint8, "CHW", "does not match any of the allowed layouts"),
    (np.float64, "HWC", "Unsupported input type"),
])
def test_refuses_what_dali_refuses(tmp_path, dtype, layout, match):
    images = [np.zeros((3, 4, 3), dtype)] * 2
    assert_both_refuse(saturation_only_graph, [images], [layout], tmp_path, match)


@pytest.mark.gpu
def test_gpu_equals_cpu():
    from sluice import fn

    def graph(x, d):
        return fn.saturation(x, saturation=fn.random.uniform(range=[0, 2], seed=2), device=d)

    compare_gpu_cpu(graph, random_rgb(np.random.default_rng(9), 12), atol=0)
