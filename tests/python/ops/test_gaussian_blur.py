"""gaussian_blur against NVIDIA DALI 2.4 (every type DALI takes, FLOAT output, sigma and
window_size per axis and per sample, 1 to 3 spatial axes, sequences, channel-first and
layout-free data, windows larger than the image, photos): bit-exact, since the windows and the
float sums are DALI's, in DALI's order (innermost axis first), except for FLOAT16 input: DALI
keeps that intermediate image in half precision, Sluice in float (within 2 half-precision
steps, docs/COMPATIBILITY.md); against a float64 numpy model
with reflect-101 borders; refused arguments as DALI; the GPU operator against the CPU one."""

import numpy as np
import pytest

from color_cases import assert_both_refuse, assert_equal_outputs, photos
from dali_reference import run_dali, run_sluice
from op_testing import compare_gpu_cpu
from op_testing import random_images as random_rgb

TYPES = [np.uint8, np.int8, np.uint16, np.int16, np.int32, np.uint32, np.int64, np.float16,
         np.float32, np.float64]


def blur_graph(fn, types, images, sigma, window):
    return (fn.gaussian_blur(images, sigma=sigma),
            fn.gaussian_blur(images, window_size=window, dtype=types.FLOAT),
            fn.gaussian_blur(images, sigma=[0.8, 2.0], window_size=[0, 5]))


def random_data(rng, dtype, shapes):
    out = []
    for shape in shapes:
        if np.issubdtype(dtype, np.integer):
            info = np.iinfo(dtype)
            out.append(rng.integers(max(info.min, -1000), min(info.max, 1 << 20), shape).astype(dtype))
        else:
            out.append(rng.uniform(-1, 2, shape).astype(dtype))
    return out


def blur_inputs(seed, dtype, layout="HWC", n=5):
    rng = np.random.default_rng(seed)
    shapes = []
    for k in range(n):
        h, w = (int(v) for v in rng.integers(1, 30, 2))
        shapes.append({"HWC": (h, w, 3), "HW": (h, w), "CHW": (2, h, w), "FHWC": (2, h, w, 1)}[layout])
    sigma = [np.array(v, np.float32) for v in rng.uniform(0.3, 3, n)]
    window = [np.array(v, np.int32) for v in 2 * rng.integers(0, 6, n) + 1]
    return [random_data(rng, dtype, shapes), sigma, window]


@pytest.mark.parametrize("dtype", TYPES)
def test_equals_dali_on_random_images(tmp_path, dtype):
    inputs, layouts = blur_inputs(3, dtype), ["HWC", None, None]
    for o, r in zip(run_sluice(blur_graph, inputs, layouts),
                    run_dali(blur_graph, inputs, tmp_path, layouts)):
        if dtype != np.float16:
            assert_equal_outputs(o, r)
            continue
        for a, b in zip(o, r):
            assert a.dtype == b.dtype and a.shape == b.shape
            b = b.astype(np.float64)
            assert (np.abs(a - b) <= 2 ** -9 * np.maximum(1, np.abs(b))).all()


@pytest.mark.parametrize("layout", ["HW", "CHW", "FHWC"])
def test_layouts_equal_dali(tmp_path, layout):
    inputs, layouts = blur_inputs(4, np.uint8, layout), [layout, None, None]
    ours, lay = run_sluice(blur_graph, inputs, layouts, with_layouts=True)
    ref, ref_lay = run_dali(blur_graph, inputs, tmp_path, layouts, with_layouts=True)
    assert lay == ref_lay
    for o, r in zip(ours, ref):
        assert_equal_outputs(o, r)


def volume_graph(fn, types, data):
    return (fn.gaussian_blur(data, sigma=[1.0, 0.5, 2.0]), fn.gaussian_blur(data, window_size=3))


def test_volumes_and_layout_free_data_equal_dali(tmp_path):
    rng = np.random.default_rng(5)
    for layout, shape in [("DHWC", (5, 6, 7, 2)), (None, (6, 5, 4))]:
        inputs = [random_data(rng, np.uint8, [shape, shape[:1] + (3,) + shape[2:]])]
        for o, r in zip(run_sluice(volume_graph, inputs, [layout]),
                        run_dali(volume_graph, inputs, tmp_path, [layout])):
            assert_equal_outputs(o, r)


def photo_graph(fn, types, images):
    return fn.gaussian_blur(images, sigma=2.5), fn.gaussian_blur(images, window_size=[3, 11])


def test_photos_equal_dali(shared_data, tmp_path):
    inputs = [photos(shared_data, 3)]
    for o, r in zip(run_sluice(photo_graph, inputs, ["HWC"]),
                    run_dali(photo_graph, inputs, tmp_path, ["HWC"])):
        assert_equal_outputs(o, r)


def reflect_101_blur(img, windows):
    """Separable convolution in float64 with numpy's 'reflect' padding (DALI's reflect 101)."""
    out = img.astype(np.float64)
    for axis, w in enumerate(windows):
        r = len(w) // 2
        pad = [(0, 0)] * out.ndim
        pad[axis] = (r, r)
        p = np.pad(out, pad, mode="reflect")
        out = sum(w[k] * np.take(p, range(k, k + img.shape[axis]), axis=axis) for k in range(len(w)))
    return out


def test_equals_numpy_model():
    rng = np.random.default_rng(6)
    img = rng.uniform(0, 1, (40, 33, 3)).astype(np.float32)

    def graph(fn, types, images):
        return fn.gaussian_blur(images, sigma=[1.5, 0.7])

    (out,) = run_sluice(graph, [[img]], ["HWC"])

    def window(sigma):
        r = int(np.ceil(3 * sigma))
        w = np.exp(-np.arange(-r, r + 1) ** 2 / (2 * sigma * sigma))
        return w / w.sum()

    want = reflect_101_blur(img, [window(1.5), window(0.7)])
    np.testing.assert_allclose(out[0], want, atol=2e-6)


def even_window_graph(fn, types, images):
    return fn.gaussian_blur(images, window_size=4)


def zero_graph(fn, types, images):
    return fn.gaussian_blur(images)


def three_sigmas_graph(fn, types, images):
    return fn.gaussian_blur(images, sigma=[1.0, 2.0, 3.0])


def int8_out_graph(fn, types, images):
    return fn.gaussian_blur(images, sigma=1.0, dtype=types.INT8)


@pytest.mark.parametrize("graph,dtype,match", [
    (even_window_graph, np.uint8, "odd"),
    (zero_graph, np.uint8, "shouldn't be 0"),
    (three_sigmas_graph, np.uint8, "list of 2 elements"),
    (int8_out_graph, np.uint8, "Output data type"),
    (zero_graph, np.bool_, "Unsupported data type"),
])
def test_refuses_what_dali_refuses(tmp_path, graph, dtype, match):
    assert_both_refuse(graph, [[np.zeros((5, 6, 3), dtype)] * 2], ["HWC"], tmp_path, match)


@pytest.mark.gpu
def test_gpu_equals_cpu():
    from sluice import fn, types

    def graph(x, d):
        s = fn.random.uniform(range=[0.5, 3], seed=2)
        return (fn.gaussian_blur(x, sigma=s, device=d),
                fn.gaussian_blur(x, sigma=[1.0, 4.0], dtype=types.FLOAT, device=d),
                fn.gaussian_blur(x, window_size=[41, 3], device=d))

    compare_gpu_cpu(graph, random_rgb(np.random.default_rng(7), 8), atol=0)
