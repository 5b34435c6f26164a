"""brightness (brightness_contrast without contrast) against NVIDIA DALI 2.4 on random images of
every type DALI takes, bit-exact; its refusals; the GPU operator against the CPU one."""

import numpy as np
import pytest

from color_cases import assert_both_refuse, assert_equal_outputs, per_sample, random_images
from dali_reference import run_dali, run_sluice
from op_testing import compare_gpu_cpu
from op_testing import random_images as random_rgb


def brightness_graph(fn, types, images, brightness, shift):
    return (fn.brightness(images, brightness=brightness, brightness_shift=shift),
            fn.brightness(images, brightness=brightness, dtype=types.FLOAT),
            fn.brightness(images, brightness_shift=shift, dtype=types.INT16))


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.float32])
def test_equals_dali_on_random_images(tmp_path, dtype):
    rng = np.random.default_rng(11)
    inputs = [random_images(rng, 5, dtype), per_sample(rng, 5, 0, 2), per_sample(rng, 5, -0.5, 0.5)]
    layouts = ["HWC", None, None]
    for o, r in zip(run_sluice(brightness_graph, inputs, layouts),
                    run_dali(brightness_graph, inputs, tmp_path, layouts)):
        assert_equal_outputs(o, r)


def contrast_arg_graph(fn, types, images):
    return fn.brightness(images, contrast=2.0)


def test_has_no_contrast_argument(tmp_path):
    images = [np.zeros((4, 5, 3), np.uint8)] * 2
    with pytest.raises(Exception, match="contrast"):
        run_dali(contrast_arg_graph, [images], tmp_path, ["HWC"])
    with pytest.raises(Exception, match="contrast"):
        run_sluice(contrast_arg_graph, [images], ["HWC"])


def brightness_only_graph(fn, types, images):
    return fn.brightness(images, brightness=1.5)


def test_refuses_chw_as_dali(tmp_path):
    images = [np.zeros((3, 4, 5), np.uint8)] * 2
    assert_both_refuse(brightness_only_graph, [images], ["CHW"], tmp_path,
                       "does not match any of the allowed layouts")


@pytest.mark.gpu
def test_gpu_equals_cpu():
    from sluice import fn

    def graph(x, d):
        return fn.brightness(x, brightness=fn.random.uniform(range=[0, 2], seed=2),
                             brightness_shift=0.05, device=d)

    compare_gpu_cpu(graph, random_rgb(np.random.default_rng(4), 12), atol=0)
