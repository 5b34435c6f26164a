"""flip against numpy on random images, Pillow on photos and NVIDIA DALI 2.4 on both (per-sample
horizontal / vertical, HWC and CHW, several types), against DALI and numpy on volumes and
sequences (per-sample depthwise too); the GPU operator against the CPU one."""

import numpy as np
import pytest

from color_cases import assert_both_refuse
from dali_reference import run_dali, run_sluice
from op_testing import compare_gpu_cpu, files_in, pil_rgb, random_images
from sluice import fn, pipeline_def


def flip_graph(fn, types, images, horizontal, vertical):
    return fn.flip(images, horizontal=horizontal, vertical=vertical)


def numpy_flip(img, layout, horizontal, vertical):
    h_axis, w_axis = (0, 1) if layout == "HWC" else (1, 2)
    if horizontal:
        img = np.flip(img, w_axis)
    if vertical:
        img = np.flip(img, h_axis)
    return img


def per_sample_flags(rng, n):
    """horizontal and vertical for each sample, as argument inputs: every combination occurs."""
    h = [np.array(k % 2, np.int32) for k in range(n)]
    v = [np.array(k // 2 % 2, np.int32) for k in range(n)]
    order = rng.permutation(n)
    return [h[k] for k in order], [v[k] for k in order]


def test_flip_equals_numpy():
    rng = np.random.default_rng(2)
    imgs = [rng.integers(0, 256, (30 + i, 20 + 2 * i, 3), np.uint8) for i in range(4)]

    @pipeline_def(batch_size=4, num_threads=2, device_id=None)
    def p():
        return fn.flip(fn.external_source(lambda: imgs, layout="HWC"), vertical=1)

    (flip,) = p().run()
    for i, img in enumerate(imgs):
        assert np.array_equal(flip.at(i), img[::-1, ::-1])


# DALI's CPU flip takes no float16; CropCpu.FlipMatchesReversedIndices covers Sluice's.
@pytest.mark.parametrize("layout,dtype", [("HWC", np.uint8), ("CHW", np.uint8),
                                          ("HWC", np.int16), ("CHW", np.float32)])
def test_flip_equals_dali_on_random_images(tmp_path, layout, dtype):
    rng = np.random.default_rng(5)
    images = []
    for _ in range(12):
        h, w, c = (int(v) for v in rng.integers(1, 40, 3))
        shape = (h, w, c % 4 + 1) if layout == "HWC" else (c % 4 + 1, h, w)
        images.append(rng.integers(0, 256, shape).astype(dtype))
    horizontal, vertical = per_sample_flags(rng, len(images))
    inputs, layouts = [images, horizontal, vertical], [layout, None, None]
    (ours,) = run_sluice(flip_graph, inputs, layouts)
    (ref,) = run_dali(flip_graph, inputs, tmp_path, layouts)
    for i, img in enumerate(images):
        assert ours[i].dtype == ref[i].dtype == dtype
        np.testing.assert_array_equal(ours[i], ref[i], err_msg=f"sample {i}")
        np.testing.assert_array_equal(ours[i], numpy_flip(img, layout, horizontal[i], vertical[i]))


def flipped_photos(shared_data):
    """Photos decoded by Pillow, with per-sample horizontal and vertical flags."""
    photos = [pil_rgb(p) for p in files_in(shared_data / "photos", "*.jpg")[:8]]
    return [photos, *per_sample_flags(np.random.default_rng(6), len(photos))]


def test_flip_of_photos_equals_pillow(shared_data):
    from PIL import Image

    photos, horizontal, vertical = inputs = flipped_photos(shared_data)
    (ours,) = run_sluice(flip_graph, inputs, ["HWC", None, None])
    for img, out, h, v in zip(photos, ours, horizontal, vertical):
        ref = Image.fromarray(img)
        if h:
            ref = ref.transpose(Image.FLIP_LEFT_RIGHT)
        if v:
            ref = ref.transpose(Image.FLIP_TOP_BOTTOM)
        np.testing.assert_array_equal(out, np.asarray(ref))


def test_flip_of_photos_equals_dali(shared_data, tmp_path):
    inputs, layouts = flipped_photos(shared_data), ["HWC", None, None]
    (ours,) = run_sluice(flip_graph, inputs, layouts)
    (ref,) = run_dali(flip_graph, inputs, tmp_path, layouts)
    for i in range(len(ours)):
        np.testing.assert_array_equal(ours[i], ref[i], err_msg=f"photo {i}")


def flip3_graph(fn, types, data, depthwise, horizontal, vertical):
    return fn.flip(data, depthwise=depthwise, horizontal=horizontal, vertical=vertical)


def random_volumes(rng, layout, dtype, n=8):
    """n samples of `layout` (its letters name the axes) with random extents, 0..255 values."""
    extent = {"F": (1, 4), "D": (1, 6), "H": (1, 9), "W": (1, 9), "C": (1, 4)}
    out = []
    for _ in range(n):
        shape = tuple(int(rng.integers(*extent[a])) for a in layout)
        out.append(rng.integers(0, 256, shape).astype(dtype))
    return out


def all_flags(rng, n):
    """depthwise, horizontal, vertical per sample: the 8 combinations, shuffled."""
    order = rng.permutation(n)
    return [[np.array(order[k] >> b & 1, np.int32) for k in range(n)] for b in range(3)]


def numpy_flip3(x, layout, d, h, v):
    axes = [layout.find(a) for a, on in (("D", d), ("H", v), ("W", h)) if on and a in layout]
    return np.flip(x, axes) if axes else x


# DALI's CPU flip refuses float16 and bool; Sluice takes float16 (see above).
@pytest.mark.parametrize("layout,given,dtype", [
    ("DHWC", "DHWC", np.uint8), ("CDHW", "CDHW", np.float32), ("FHWC", "FHWC", np.int16),
    ("FCHW", "FCHW", np.uint8), ("FDHWC", "FDHWC", np.int32), ("FCDHW", "FCDHW", np.float64),
    ("FHWC", None, np.uint8), ("FDHWC", None, np.uint8), ("HWC", "HWC", np.int64),
    ("CHW", "CHW", np.uint32)])
def test_flip_of_volumes_and_sequences_equals_dali(tmp_path, layout, given, dtype):
    rng = np.random.default_rng(len(layout) * 7 + np.dtype(dtype).itemsize)
    data = random_volumes(rng, layout, dtype)
    inputs, layouts = [data, *all_flags(rng, len(data))], [given, None, None, None]
    (ours,) = run_sluice(flip3_graph, inputs, layouts)
    (ref,) = run_dali(flip3_graph, inputs, tmp_path, layouts)
    for i, x in enumerate(data):
        assert ours[i].dtype == ref[i].dtype == dtype
        np.testing.assert_array_equal(ours[i], ref[i], err_msg=f"sample {i}")
        d, h, v = (int(f[i]) for f in inputs[1:])
        np.testing.assert_array_equal(ours[i], numpy_flip3(x, layout, d, h, v))


@pytest.mark.parametrize("data,layout,match", [
    ([np.zeros((2, 3, 1), np.bool_)], "HWC", "bool"),
    ([np.zeros((2, 3, 4, 1), np.uint8)], "HWCD", "layout"),
    ([np.zeros((2, 3, 4, 1), np.uint8)], "NHWC", "layout"),
    ([np.zeros((2, 3), np.uint8)], None, "number of dimensions"),
    ([np.zeros((2, 3, 4, 5, 1, 1), np.uint8)], None, "number of dimensions")])
def test_flip_refuses_what_dali_refuses(tmp_path, data, layout, match):
    flags = [np.array(1, np.int32)]
    assert_both_refuse(flip3_graph, [data, flags, flags, flags], [layout, None, None, None],
                       tmp_path, match)


@pytest.mark.gpu
@pytest.mark.parametrize("layout,dtype", [("DHWC", np.uint8), ("FCDHW", np.float32),
                                          ("FHWC", np.int16), ("HWC", np.float64)])
def test_gpu_flip_of_volumes_equals_cpu(layout, dtype):
    rng = np.random.default_rng(11)
    data = random_volumes(rng, layout, dtype, n=16)
    flags = all_flags(rng, 16)
    outs = {}
    for device in ("cpu", "gpu"):
        @pipeline_def(batch_size=16, num_threads=2, device_id=0)
        def p():
            x = fn.external_source(lambda: data, layout=layout)
            # A source with a parameter is called with the iteration (DALI's rule): bind by closure.
            d, h, v = (fn.external_source((lambda f: lambda: f)(f)) for f in flags)
            return fn.flip(x if device == "cpu" else x.gpu(), depthwise=d, horizontal=h,
                           vertical=v, device=device)

        (out,) = p().run()
        outs[device] = out.as_cpu() if hasattr(out, "as_cpu") else out
    for i in range(16):
        np.testing.assert_array_equal(np.asarray(outs["gpu"].at(i)), np.asarray(outs["cpu"].at(i)))


@pytest.mark.gpu
def test_gpu_equals_cpu():
    data = random_images(np.random.default_rng(3), 16)

    def graph(x, d):
        coin = fn.random.coin_flip(seed=4)
        return fn.flip(x, horizontal=coin, vertical=1, device=d)

    compare_gpu_cpu(graph, data, atol=0)
