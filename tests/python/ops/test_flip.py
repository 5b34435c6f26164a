"""flip against numpy on random images, Pillow on photos and NVIDIA DALI 2.4 on both (per-sample
horizontal / vertical, HWC and CHW, several types); the GPU operator against the CPU one."""

import numpy as np
import pytest

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


@pytest.mark.gpu
def test_gpu_equals_cpu():
    data = random_images(np.random.default_rng(3), 16)

    def graph(x, d):
        coin = fn.random.coin_flip(seed=4)
        return fn.flip(x, horizontal=coin, vertical=1, device=d)

    compare_gpu_cpu(graph, data, atol=0)
