"""laplacian against NVIDIA DALI 2.4 (every type DALI takes, FLOAT output, window_size,
smoothing_size and scale per axis and per sample, normalized_kernel, 1 to 3 spatial axes,
sequences, channel-first data, photos): bit-exact, the windows and sums being DALI's (FLOAT16:
DALI keeps the intermediate images in half precision, Sluice in float; within 2^-8 of the
sample's largest magnitude); against a float64 numpy model; refused arguments
as DALI; the GPU operator against the CPU one."""

import numpy as np
import pytest

from color_cases import assert_both_refuse, assert_equal_outputs, photos
from dali_reference import run_dali, run_sluice
from op_testing import compare_gpu_cpu
from op_testing import random_images as random_rgb
from test_gaussian_blur import random_data, reflect_101_blur

TYPES = [np.uint8, np.int8, np.uint16, np.int16, np.int32, np.uint32, np.int64, np.float16,
         np.float32]


def laplacian_graph(fn, types, images, window, smoothing, scale):
    return (fn.laplacian(images),
            fn.laplacian(images, window_size=window, dtype=types.FLOAT),
            fn.laplacian(images, window_size=[3, 5], smoothing_size=smoothing, scale=scale),
            fn.laplacian(images, window_size=window, smoothing_size=1, normalized_kernel=True,
                         dtype=types.FLOAT),
            fn.laplacian(images, window_size=5, smoothing_size=[1, 7], scale=[0.5, 2.0]))


def laplacian_inputs(seed, dtype, layout="HWC", n=5):
    rng = np.random.default_rng(seed)
    shapes = []
    for _ in range(n):
        h, w = (int(v) for v in rng.integers(1, 30, 2))
        shapes.append({"HWC": (h, w, 3), "HW": (h, w), "CHW": (2, h, w), "FHWC": (2, h, w, 1)}[layout])
    window = [np.array(v, np.int32) for v in 2 * rng.integers(1, 6, n) + 1]
    smoothing = [np.array(v, np.int32) for v in 2 * rng.integers(0, 6, n) + 1]
    scale = [np.array(v, np.float32) for v in rng.uniform(0.01, 2, n)]
    return [random_data(rng, dtype, shapes), window, smoothing, scale]


def check(ours, ref, dtype):
    for o, r in zip(ours, ref):
        if dtype != np.float16:
            assert_equal_outputs(o, r)
            continue
        for a, b in zip(o, r):
            b = b.astype(np.float64)
            err = np.abs(a - b).max(initial=0) / max(1, np.abs(b).max(initial=0))
            assert err <= 2 ** -8


@pytest.mark.parametrize("dtype", TYPES)
def test_equals_dali_on_random_images(tmp_path, dtype):
    inputs, layouts = laplacian_inputs(3, dtype), ["HWC", None, None, None]
    check(run_sluice(laplacian_graph, inputs, layouts),
          run_dali(laplacian_graph, inputs, tmp_path, layouts), dtype)


@pytest.mark.parametrize("layout", ["HW", "CHW", "FHWC"])
def test_layouts_equal_dali(tmp_path, layout):
    inputs, layouts = laplacian_inputs(4, np.uint8, layout), [layout, None, None, None]
    ours, lay = run_sluice(laplacian_graph, inputs, layouts, with_layouts=True)
    ref, ref_lay = run_dali(laplacian_graph, inputs, tmp_path, layouts, with_layouts=True)
    assert lay == ref_lay
    check(ours, ref, np.uint8)


def volume_graph(fn, types, data):
    return (fn.laplacian(data, dtype=types.FLOAT), fn.laplacian(data, window_size=[3, 5, 7]),
            fn.laplacian(data, smoothing_size=[1, 3, 5], dtype=types.FLOAT))


def test_volumes_and_1d_data_equal_dali(tmp_path):
    rng = np.random.default_rng(5)
    for layout, shape in [("DHWC", (5, 6, 7, 2)), (None, (6, 5, 4))]:
        inputs = [random_data(rng, np.uint8, [shape, shape])]
        check(run_sluice(volume_graph, inputs, [layout]),
              run_dali(volume_graph, inputs, tmp_path, [layout]), np.uint8)

    def line_graph(fn, types, data):
        return fn.laplacian(data, window_size=7, dtype=types.FLOAT)

    inputs = [random_data(rng, np.int16, [(40,), (3,)])]
    check(run_sluice(line_graph, inputs, ["W"]), run_dali(line_graph, inputs, tmp_path, ["W"]),
          np.int16)


def photo_graph(fn, types, images):
    return fn.laplacian(images, window_size=5), fn.laplacian(images, dtype=types.FLOAT)


def test_photos_equal_dali(shared_data, tmp_path):
    inputs = [photos(shared_data, 3)]
    check(run_sluice(photo_graph, inputs, ["HWC"]),
          run_dali(photo_graph, inputs, tmp_path, ["HWC"]), np.uint8)


def test_equals_numpy_model():
    rng = np.random.default_rng(6)
    img = rng.uniform(0, 1, (30, 23, 3)).astype(np.float32)

    def graph(fn, types, images):
        return fn.laplacian(images, window_size=5)

    (out,) = run_sluice(graph, [[img]], ["HWC"])
    smooth5 = np.array([1, 4, 6, 4, 1.0])
    deriv5 = np.array([1, 0, -2, 0, 1.0])
    want = reflect_101_blur(img, [deriv5, smooth5]) + reflect_101_blur(img, [smooth5, deriv5])
    np.testing.assert_allclose(out[0], want, atol=1e-4)


def window_graph(fn, types, images):
    return fn.laplacian(images, window_size=1)


def smoothing_graph(fn, types, images):
    return fn.laplacian(images, smoothing_size=2)


def scale_graph(fn, types, images):
    return fn.laplacian(images, scale=2.0, normalized_kernel=True)


@pytest.mark.parametrize("graph,dtype,match", [
    (window_graph, np.uint8, "between 3 and 31"),
    (smoothing_graph, np.uint8, "between 1 and 31"),
    (scale_graph, np.uint8, "cannot be specified"),
    (window_graph, np.float64, "Unsupported data type"),
])
def test_refuses_what_dali_refuses(tmp_path, graph, dtype, match):
    assert_both_refuse(graph, [[np.zeros((5, 6, 3), dtype)] * 2], ["HWC"], tmp_path, match)


@pytest.mark.gpu
def test_gpu_equals_cpu():
    from sluice import fn, types

    def graph(x, d):
        return (fn.laplacian(x, device=d),
                fn.laplacian(x, window_size=[5, 7], smoothing_size=[3, 1], dtype=types.FLOAT,
                             device=d),
                fn.laplacian(x, window_size=9, normalized_kernel=True, device=d))

    compare_gpu_cpu(graph, random_rgb(np.random.default_rng(7), 8), atol=0)
