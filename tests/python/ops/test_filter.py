"""filter against NVIDIA DALI 2.4 (every type its CPU operator takes, per-sample filters and
anchors, every border mode, a fill value, 'valid' mode, FLOAT output, sequences, channel-first
data, photos) and against a float64 numpy correlation; refusals as DALI; the GPU operator
against the CPU one.

DALI's CPU filter is OpenCV's filter2D: a float sum over the non-zero taps in row-major order,
which Sluice reproduces bit for bit, for filters of fewer than 50 taps. From 50 taps OpenCV
switches to a DFT, whose rounding Sluice does not reproduce: within 1e-5 of the sum of |taps|
times the largest input (one grey level for integers)."""

import numpy as np
import pytest

from color_cases import assert_both_refuse, assert_equal_outputs, photos
from dali_reference import run_dali, run_sluice
from op_testing import compare_gpu_cpu
from op_testing import random_images as random_rgb


def filter_graph(fn, types, images, filters, anchors, fills):
    return (fn.filter(images, filters),
            fn.filter(images, filters, anchor=anchors, dtype=types.FLOAT),
            fn.filter(images, filters, border="reflect_1001"),
            fn.filter(images, filters, border="wrap", anchor=anchors),
            fn.filter(images, filters, border="clamp"),
            fn.filter(images, filters, fills, border="constant"),
            fn.filter(images, filters, border="constant"),
            fn.filter(images, filters, mode="valid", dtype=types.FLOAT))


def filter_inputs(seed, dtype, layout="HWC", n=5, max_taps=49):
    rng = np.random.default_rng(seed)
    images, filters, anchors, fills = [], [], [], []
    for _ in range(n):
        kh, kw = (int(v) for v in rng.integers(1, 8, 2))
        while kh * kw > max_taps:
            kw -= 1
        h, w = int(rng.integers(kh, 30)), int(rng.integers(kw, 30))
        shape = {"HWC": (h, w, 3), "HW": (h, w), "CHW": (2, h, w), "FHWC": (2, h, w, 1)}[layout]
        if dtype == np.float32:
            images.append(rng.uniform(-1, 2, shape).astype(dtype))
        else:
            info = np.iinfo(dtype)
            images.append(rng.integers(max(info.min, -3000), min(info.max, 3000) + 1, shape).astype(dtype))
        f = rng.uniform(-1, 1, (kh, kw)).astype(np.float32)
        f[rng.uniform(size=f.shape) < 0.2] = 0  # OpenCV skips zero taps
        filters.append(f)
        anchors.append(np.array([rng.integers(0, kh), rng.integers(0, kw)], np.int32))
        fills.append(np.array(rng.integers(0, 100), dtype))
    return [images, filters, anchors, fills]


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int16, np.float32])
def test_equals_dali_on_random_images(tmp_path, dtype):
    inputs, layouts = filter_inputs(3, dtype), ["HWC", None, None, None]
    for o, r in zip(run_sluice(filter_graph, inputs, layouts),
                    run_dali(filter_graph, inputs, tmp_path, layouts)):
        assert_equal_outputs(o, r)


@pytest.mark.parametrize("layout", ["HW", "CHW", "FHWC"])
def test_layouts_equal_dali(tmp_path, layout):
    inputs, layouts = filter_inputs(4, np.uint8, layout), [layout, None, None, None]
    ours, lay = run_sluice(filter_graph, inputs, layouts, with_layouts=True)
    ref, ref_lay = run_dali(filter_graph, inputs, tmp_path, layouts, with_layouts=True)
    assert lay == ref_lay
    for o, r in zip(ours, ref):
        assert_equal_outputs(o, r)


def large_graph(fn, types, images, filters):
    return fn.filter(images, filters), fn.filter(images, filters, dtype=types.FLOAT)


def test_large_filters_equal_dali_within_tolerance(shared_data, tmp_path):
    rng = np.random.default_rng(5)
    images = photos(shared_data, 2)
    filters = [rng.uniform(-0.05, 0.1, (9, 11)).astype(np.float32) for _ in images]
    ours = run_sluice(large_graph, [images, filters], ["HWC", None])
    ref = run_dali(large_graph, [images, filters], tmp_path, ["HWC", None])
    assert_equal_outputs(ours[0], ref[0], atol=1, max_fraction=1.0)
    for a, b, f in zip(ours[1], ref[1], filters):
        np.testing.assert_allclose(a, b, atol=1e-5 * np.abs(f).sum() * 255)


def correlate(img, f, anchor):
    """float64 correlation with numpy's 'reflect' padding (reflect 101)."""
    kh, kw = f.shape
    ay, ax = anchor
    p = np.pad(img.astype(np.float64), [(ay, kh - 1 - ay), (ax, kw - 1 - ax), (0, 0)],
               mode="reflect")
    h, w = img.shape[:2]
    return sum(f[i, j] * p[i:i + h, j:j + w] for i in range(kh) for j in range(kw))


def test_equals_numpy_model():
    images, filters, anchors, fills = filter_inputs(6, np.float32)
    ours = run_sluice(filter_graph, [images, filters, anchors, fills], ["HWC", None, None, None])
    for img, f, a, out in zip(images, filters, anchors, ours[1]):
        np.testing.assert_allclose(out, correlate(img, f, a), atol=1e-4)


def int8_graph(fn, types, images, filters):
    return fn.filter(images, filters)


def anchor_graph(fn, types, images, filters):
    return fn.filter(images, filters, anchor=[5, 0])


def int8_out_graph(fn, types, images, filters):
    return fn.filter(images, filters, dtype=types.INT8)


@pytest.mark.parametrize("graph,dtype,match", [
    (int8_graph, np.int8, "does not support input type"),
    (int8_graph, np.float64, "does not support input type"),
    (anchor_graph, np.uint8, "Anchor must lie within the filter"),
    (int8_out_graph, np.uint8, "Output data type"),
])
def test_refuses_what_dali_refuses(tmp_path, graph, dtype, match):
    images = [np.zeros((6, 7, 3), dtype)] * 2
    filters = [np.ones((3, 3), np.float32)] * 2
    assert_both_refuse(graph, [images, filters], ["HWC", None], tmp_path, match)


@pytest.mark.gpu
def test_gpu_equals_cpu():
    from sluice import fn, types

    rng = np.random.default_rng(8)
    data = random_rgb(rng, 8)
    filters = [rng.uniform(-1, 1, (int(rng.integers(1, 12)), int(rng.integers(1, 12))))
               .astype(np.float32) for _ in data]

    def graph(x, d):
        f = fn.external_source(lambda: filters)
        f = f if d == "cpu" else f.gpu()
        return (fn.filter(x, f, device=d), fn.filter(x, f, border="wrap", dtype=types.FLOAT, device=d),
                fn.filter(x, f, border="constant", device=d), fn.filter(x, f, mode="valid", device=d))

    compare_gpu_cpu(graph, data, atol=0)
