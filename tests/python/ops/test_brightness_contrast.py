"""brightness_contrast against its formula in numpy and NVIDIA DALI 2.4 (every input and output
type DALI takes, per-sample arguments, contrast_center, sequences, photos): bit-exact, since both
compute in float32 in the same order and round halves away from zero; refused layouts and types
as DALI; the GPU operator against the CPU one."""

import numpy as np
import pytest

from color_cases import (assert_both_refuse, assert_equal_outputs, per_sample, photos,
                         random_images)
from dali_reference import run_dali, run_sluice
from op_testing import compare_gpu_cpu
from op_testing import random_images as random_rgb

TYPES = [np.uint8, np.int16, np.int32, np.float32]


def bc_graph(fn, types, images, brightness, shift, contrast):
    return (fn.brightness_contrast(images, brightness=brightness, brightness_shift=shift,
                                   contrast=contrast),
            fn.brightness_contrast(images, brightness=brightness, contrast=contrast,
                                   contrast_center=40.0, dtype=types.FLOAT),
            fn.brightness_contrast(images, brightness_shift=shift, dtype=types.UINT8),
            fn.brightness_contrast(images, contrast=contrast, dtype=types.INT16),
            fn.brightness_contrast(images, contrast_center=brightness, dtype=types.INT32))


def bc_inputs(seed, dtype, layout="HWC"):
    rng = np.random.default_rng(seed)
    images = random_images(rng, 6, dtype, channels=int(rng.integers(1, 5)), layout=layout)
    return [images, per_sample(rng, 6, 0, 2), per_sample(rng, 6, -0.3, 0.3),
            per_sample(rng, 6, 0, 2.5)]


@pytest.mark.parametrize("dtype", TYPES)
def test_equals_dali_on_random_images(tmp_path, dtype):
    inputs, layouts = bc_inputs(5, dtype), ["HWC", None, None, None]
    ours = run_sluice(bc_graph, inputs, layouts)
    ref = run_dali(bc_graph, inputs, tmp_path, layouts)
    for o, r in zip(ours, ref):
        assert_equal_outputs(o, r)


def test_sequences_equal_dali(tmp_path):
    inputs, layouts = bc_inputs(6, np.uint8, "FHWC"), ["FHWC", None, None, None]
    ours, lay = run_sluice(bc_graph, inputs, layouts, with_layouts=True)
    ref, ref_lay = run_dali(bc_graph, inputs, tmp_path, layouts, with_layouts=True)
    assert lay == ref_lay
    for o, r in zip(ours, ref):
        assert_equal_outputs(o, r)


def test_equals_formula():
    inputs = bc_inputs(7, np.uint8)
    out, as_float, *_ = run_sluice(bc_graph, inputs, ["HWC", None, None, None])
    f32 = np.float32
    for img, b, s, c, o, of in zip(*inputs, out, as_float):
        b, s, c = f32(b), f32(s), f32(c)
        v = img.astype(f32) * (b * c) + (s * f32(255) + b * (f32(128) - c * f32(128)))
        want = np.clip(np.sign(v) * np.floor(np.abs(v) + f32(0.5)), 0, 255).astype(np.uint8)
        np.testing.assert_array_equal(o, want)
        vf = img.astype(f32) * (b * c) + b * (f32(40) - c * f32(40))
        np.testing.assert_allclose(of, vf, rtol=1e-6)


def test_photos_equal_dali(shared_data, tmp_path):
    images = photos(shared_data)
    rng = np.random.default_rng(8)
    inputs = [images, per_sample(rng, 4, 0.5, 1.5), per_sample(rng, 4, -0.2, 0.2),
              per_sample(rng, 4, 0.5, 1.5)]
    layouts = ["HWC", None, None, None]
    for o, r in zip(run_sluice(bc_graph, inputs, layouts),
                    run_dali(bc_graph, inputs, tmp_path, layouts)):
        assert_equal_outputs(o, r)


def chw_graph(fn, types, images):
    return fn.brightness_contrast(images, contrast=1.5)


def int8_out_graph(fn, types, images):
    return fn.brightness_contrast(images, dtype=types.INT8)


@pytest.mark.parametrize("graph,dtype,layout,match", [
    (chw_graph, np.uint8, "CHW", "does not match any of the allowed layouts"),
    (chw_graph, np.int8, "HWC", "Unsupported input type"),
    (chw_graph, np.float16, "HWC", "Unsupported input type"),
    (int8_out_graph, np.uint8, "HWC", "Unsupported output type"),
])
def test_refuses_what_dali_refuses(tmp_path, graph, dtype, layout, match):
    images = [np.zeros((4, 5, 3), dtype)] * 2
    assert_both_refuse(graph, [images], [layout], tmp_path, match)


@pytest.mark.gpu
def test_gpu_equals_cpu():
    from sluice import fn, types

    data = random_rgb(np.random.default_rng(3), 16)

    def graph(x, d):
        b = fn.random.uniform(range=[0.5, 1.5], seed=4)
        c = fn.random.uniform(range=[0.5, 1.5], seed=5)
        return (fn.brightness_contrast(x, brightness=b, contrast=c, brightness_shift=0.1, device=d),
                fn.brightness_contrast(x, brightness=b, contrast_center=c, dtype=types.FLOAT,
                                       device=d))

    compare_gpu_cpu(graph, data, atol=0)
