"""erase against numpy on random data and NVIDIA DALI 2.4 on random data and photos (regions as
arguments and as per-sample inputs, axes / axis_names, normalized and centered anchors, single and
per-channel fill values, clipping, several types and layouts), the same refusals as DALI; the GPU
operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from op_testing import compare_gpu_cpu, files_in, pil_rgb, random_images


def erase_hw_graph(fn, types, x):
    return fn.erase(x, anchor=[3, 5, -4, 20], shape=[10, 7.5, 9, 30], fill_value=(10, 200, 33))


def erase_inputs_graph(fn, types, x, anchor, shape, fill):
    return fn.erase(x, anchor=anchor, shape=shape, fill_value=fill)


def erase_normalized_graph(fn, types, x, anchor, shape):
    return fn.erase(x, anchor=anchor, shape=shape, normalized=True, centered_anchor=True,
                    fill_value=-7.6)


def erase_mixed_norm_graph(fn, types, x):
    return fn.erase(x, anchor=[0.25, 0.5], shape=[5, 3], normalized_anchor=True, axis_names="WH",
                    fill_value=300)


def erase_axes_graph(fn, types, x):
    return fn.erase(x, anchor=[2, 1, 9], shape=[4, 2, 30], axes=[1], fill_value=1.5)


def erase_channels_graph(fn, types, x):
    return fn.erase(x, anchor=[1, 2, 1], shape=[3, 4, 1], axis_names="HWC", fill_value=99)


def erase_only_shape_graph(fn, types, x):
    return fn.erase(x, shape=[2, 6])


def erase_nothing_graph(fn, types, x):
    return fn.erase(x)


def random_data(rng, n, shape_fn, dtype):
    return [(rng.integers(0, 256, shape_fn(rng)) if np.issubdtype(dtype, np.integer)
             else rng.uniform(-5, 300, shape_fn(rng))).astype(dtype) for _ in range(n)]


def hwc(rng):
    return (int(rng.integers(5, 40)), int(rng.integers(5, 40)), 3)


def numpy_erase(img, boxes, fill, channel_axis=2):
    out = img.copy()
    for (y0, x0, y1, x1) in boxes:
        region = out[max(y0, 0):max(y1, 0), max(x0, 0):max(x1, 0)]
        region[...] = np.asarray(fill, np.float64).astype(img.dtype) if channel_axis == 2 else fill
    return out


def test_erase_equals_numpy():
    rng = np.random.default_rng(1)
    images = random_data(rng, 6, hwc, np.uint8)
    (ours,) = run_sluice(erase_hw_graph, [images], ["HWC"])
    for img, out in zip(images, ours):
        # Fractional ends truncate: the first region covers rows 3..12 and columns 5..11.
        want = numpy_erase(img, [(3, 5, 13, 12), (-4, 20, 5, 50)], [10, 200, 33])
        np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("graph,layout,dtype,shape_fn", [
    (erase_hw_graph, "HWC", np.uint8, hwc),
    (erase_mixed_norm_graph, "HWC", np.int16, hwc),
    (erase_mixed_norm_graph, "HWC", np.uint16, hwc),
    (erase_axes_graph, "HWC", np.float32, hwc),
    (erase_channels_graph, "HWC", np.int32, hwc),
    (erase_only_shape_graph, "HW", np.float16, lambda r: hwc(r)[:2]),
    (erase_only_shape_graph, "XY", np.int64, lambda r: hwc(r)[:2]),
    (erase_nothing_graph, "HWC", np.uint8, hwc),
    (erase_hw_graph, "CHW", np.uint8, lambda r: (3,) + hwc(r)[:2]),
    (erase_axes_graph, "FHWC", np.int8, lambda r: (2,) + hwc(r)),
])
def test_erase_equals_dali_on_random_data(tmp_path, graph, layout, dtype, shape_fn):
    rng = np.random.default_rng(2)
    data = random_data(rng, 8, shape_fn, dtype)
    (ours,) = run_sluice(graph, [data], [layout])
    (ref,) = run_dali(graph, [data], tmp_path, [layout])
    for i, (a, b) in enumerate(zip(ours, ref)):
        assert a.dtype == b.dtype == dtype
        np.testing.assert_array_equal(a, b, err_msg=f"sample {i}")


def per_sample_regions(rng, images, normalized):
    """Per-sample anchors and shapes (1 to 3 regions), some beyond the image, and fill values."""
    anchors, shapes, fills = [], [], []
    for img in images:
        k = int(rng.integers(1, 4))
        if normalized:
            anchors.append(rng.uniform(-0.2, 1.2, 2 * k).astype(np.float32))
            shapes.append(rng.uniform(0, 0.6, 2 * k).astype(np.float32))
        else:
            h, w = img.shape[:2]
            anchors.append((rng.uniform(-5, 1, 2 * k) * np.tile([h, w], k)).astype(np.float32))
            shapes.append((rng.uniform(0, 1.5, 2 * k) * np.tile([h, w], k)).astype(np.float32))
        fills.append(rng.uniform(-20, 280, 3).astype(np.float32))
    return anchors, shapes, fills


def test_erase_with_per_sample_regions_equals_dali(tmp_path):
    rng = np.random.default_rng(3)
    images = random_data(rng, 10, hwc, np.uint8)
    anchors, shapes, fills = per_sample_regions(rng, images, False)
    inputs, layouts = [images, anchors, shapes, fills], ["HWC", None, None, None]
    (ours,) = run_sluice(erase_inputs_graph, inputs, layouts)
    (ref,) = run_dali(erase_inputs_graph, inputs, tmp_path, layouts)
    for i, (a, b) in enumerate(zip(ours, ref)):
        np.testing.assert_array_equal(a, b, err_msg=f"sample {i}")


def test_erase_normalized_centered_equals_dali(tmp_path):
    rng = np.random.default_rng(4)
    images = random_data(rng, 10, hwc, np.float32)
    anchors, shapes, _ = per_sample_regions(rng, images, True)
    inputs, layouts = [images, anchors, shapes], ["HWC", None, None]
    (ours,) = run_sluice(erase_normalized_graph, inputs, layouts)
    (ref,) = run_dali(erase_normalized_graph, inputs, tmp_path, layouts)
    for i, (a, b) in enumerate(zip(ours, ref)):
        np.testing.assert_array_equal(a, b, err_msg=f"sample {i}")


def test_erase_of_photos_equals_dali(shared_data, tmp_path):
    photos = [pil_rgb(p) for p in files_in(shared_data / "photos", "*.jpg")[:6]]
    anchors, shapes, fills = per_sample_regions(np.random.default_rng(5), photos, False)
    inputs, layouts = [photos, anchors, shapes, fills], ["HWC", None, None, None]
    (ours,) = run_sluice(erase_inputs_graph, inputs, layouts)
    (ref,) = run_dali(erase_inputs_graph, inputs, tmp_path, layouts)
    for i, (a, b) in enumerate(zip(ours, ref)):
        np.testing.assert_array_equal(a, b, err_msg=f"photo {i}")


def refuse_fill_channels_graph(fn, types, x):
    return fn.erase(x, anchor=[1, 2], shape=[2, 2], fill_value=(1, 2))


def refuse_fill_without_c_graph(fn, types, x):
    return fn.erase(x, anchor=[1, 2], shape=[2, 2], fill_value=(1, 2, 3))


def refuse_anchor_only_graph(fn, types, x):
    return fn.erase(x, anchor=[1, 2])


def refuse_not_multiple_graph(fn, types, x):
    return fn.erase(x, anchor=[1, 2, 3], shape=[1, 2, 3])


def refuse_normalized_twice_graph(fn, types, x):
    return fn.erase(x, anchor=[0.1, 0.1], shape=[0.2, 0.2], normalized=True,
                    normalized_shape=True)


def refuse_axis_name_graph(fn, types, x):
    return fn.erase(x, anchor=[1, 2], shape=[2, 2], axis_names="HX")


@pytest.mark.parametrize("graph,layout,dtype", [
    (refuse_fill_channels_graph, "HWC", np.uint8),
    (refuse_fill_without_c_graph, "HW", np.uint8),
    (refuse_anchor_only_graph, "HWC", np.uint8),
    (refuse_not_multiple_graph, "HWC", np.uint8),
    (refuse_normalized_twice_graph, "HWC", np.uint8),
    (refuse_axis_name_graph, "HWC", np.uint8),
    (erase_hw_graph, "HWC", np.float64),
    (erase_hw_graph, "HWC", np.bool_),
])
def test_erase_refuses_what_dali_refuses(tmp_path, graph, layout, dtype):
    x = [np.ones((6, 8, 3) if "C" in layout else (6, 8), dtype)] * 2
    with pytest.raises(AssertionError, match="DALI failed"):
        run_dali(graph, [x], tmp_path, [layout])
    with pytest.raises(Exception):
        run_sluice(graph, [x], [layout])


def test_erase_refuses_six_dimensions(tmp_path):
    x = [np.ones((2, 2, 2, 2, 2, 2), np.uint8)] * 2
    with pytest.raises(AssertionError, match="DALI failed"):
        run_dali(erase_only_shape_graph, [x], tmp_path, ["ABCDEF"])
    with pytest.raises(Exception, match="dimensions"):
        run_sluice(erase_only_shape_graph, [x], ["ABCDEF"])


@pytest.mark.gpu
def test_gpu_equals_cpu():
    from sluice import fn

    data = random_images(np.random.default_rng(6), 16)

    def graph(x, d):
        anchor = fn.random.uniform(range=(-20, 300), shape=4, seed=3)
        shape = fn.random.uniform(range=(0, 200), shape=4, seed=4)
        return fn.erase(x, anchor=anchor, shape=shape, fill_value=(1, 2, 3), device=d)

    compare_gpu_cpu(graph, data, atol=0)
