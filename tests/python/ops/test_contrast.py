"""contrast (brightness_contrast without brightness) against NVIDIA DALI 2.4 on random images of
every type DALI takes, with and without contrast_center, bit-exact; its refusals; the GPU
operator against the CPU one."""

import numpy as np
import pytest

from color_cases import assert_both_refuse, assert_equal_outputs, per_sample, random_images
from dali_reference import run_dali, run_sluice
from op_testing import compare_gpu_cpu
from op_testing import random_images as random_rgb


def contrast_graph(fn, types, images, contrast, center):
    return (fn.contrast(images, contrast=contrast),
            fn.contrast(images, contrast=contrast, contrast_center=center, dtype=types.FLOAT),
            fn.contrast(images, contrast=contrast, contrast_center=0.25))


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.float32])
def test_equals_dali_on_random_images(tmp_path, dtype):
    rng = np.random.default_rng(12)
    inputs = [random_images(rng, 5, dtype), per_sample(rng, 5, 0, 3), per_sample(rng, 5, 0, 200)]
    layouts = ["HWC", None, None]
    for o, r in zip(run_sluice(contrast_graph, inputs, layouts),
                    run_dali(contrast_graph, inputs, tmp_path, layouts)):
        assert_equal_outputs(o, r)


def zero_graph(fn, types, images):
    return fn.contrast(images, contrast=0.0)


def test_zero_contrast_gives_the_center():
    images = [np.arange(60, dtype=np.uint8).reshape(4, 5, 3)]
    (out,) = run_sluice(zero_graph, [images], ["HWC"])
    assert (out[0] == 128).all()


def brightness_arg_graph(fn, types, images):
    return fn.contrast(images, brightness=2.0)


def test_has_no_brightness_argument(tmp_path):
    images = [np.zeros((4, 5, 3), np.uint8)] * 2
    with pytest.raises(Exception, match="brightness"):
        run_dali(brightness_arg_graph, [images], tmp_path, ["HWC"])
    with pytest.raises(Exception, match="brightness"):
        run_sluice(brightness_arg_graph, [images], ["HWC"])


def test_refuses_2d_input_as_dali(tmp_path):
    images = [np.zeros((4, 5), np.uint8)] * 2
    assert_both_refuse(zero_graph, [images], [None], tmp_path, "number of dimensions 2")


@pytest.mark.gpu
def test_gpu_equals_cpu():
    from sluice import fn, types

    def graph(x, d):
        c = fn.random.uniform(range=[0, 2], seed=3)
        return (fn.contrast(x, contrast=c, device=d),
                fn.contrast(x, contrast=c, contrast_center=100.0, dtype=types.FLOAT, device=d))

    compare_gpu_cpu(graph, random_rgb(np.random.default_rng(5), 12), atol=0)
