"""resize_crop_mirror against Sluice's resize -> crop -> flip (within 1 grey level: the fused
operator resamples the cropped window directly) and NVIDIA DALI 2.4 on random images and photos
(per-sample sizes, crop positions and mirrors); the GPU operator against the CPU one.

Sluice resamples as Pillow does, DALI with its own filters, so the comparison with DALI has
tolerances: on smooth random images plain resize differs from DALI's by at most 3 grey levels
(mean under 0.3); on photos' sharp edges by up to about 11 (mean under 0.2). Where a crop reaches
past the resized image Sluice repeats the resized image's edge pixels, DALI runs its filter over
repeated input pixels: up to about 12 there (docs/COMPATIBILITY.md)."""

import numpy as np
import pytest

from color_cases import assert_both_refuse
from dali_reference import run_dali, run_sluice
from op_testing import compare_gpu_cpu, files_in, pil_rgb, random_images
from sluice import fn, types


def rcm_graph(fn, types, images, shorter, pos_x, pos_y, mirror):
    return fn.resize_crop_mirror(images, resize_shorter=shorter, crop=(48, 40), crop_pos_x=pos_x,
                                 crop_pos_y=pos_y, mirror=mirror)


def unfused_graph(fn, types, images, shorter, pos_x, pos_y, mirror):
    r = fn.resize(images, resize_shorter=shorter)
    c = fn.crop(r, crop=(48, 40), crop_pos_x=pos_x, crop_pos_y=pos_y)
    return fn.flip(c, horizontal=mirror % 2, vertical=mirror // 2 % 2)


def per_sample_args(rng, n):
    """resize_shorter, crop_pos_x, crop_pos_y and mirror (every value 0..3 occurs) per sample."""
    shorter = [np.array(rng.choice([48.0, 60.5, 97.0, 210.0]), np.float32) for _ in range(n)]
    pos = [[np.array(rng.uniform(0, 1), np.float32) for _ in range(n)] for _ in range(2)]
    pos[0][0], pos[1][1] = np.float32(0), np.float32(1)
    mirror = [np.array(k % 4, np.int32) for k in rng.permutation(n)]
    return [shorter, *pos, mirror]


def assert_close(ours, ref, atol, mean_atol):
    for i, (a, b) in enumerate(zip(ours, ref)):
        assert a.dtype == b.dtype and a.shape == b.shape, f"sample {i}: {a.shape} vs {b.shape}"
        d = np.abs(a.astype(np.float64) - b.astype(np.float64))
        assert d.max(initial=0) <= atol, f"sample {i}: max difference {d.max()}"
        assert d.mean() <= mean_atol, f"sample {i}: mean difference {d.mean()}"


# Largest and mean absolute difference from DALI (see the module's docstring).
ATOL, MEAN_ATOL = 3, 0.3
PHOTO_ATOL, PHOTO_MEAN_ATOL = 16, 0.3
BORDER_ATOL, BORDER_MEAN_ATOL = 16, 2.0


def random_batch(seed, n=12):
    rng = np.random.default_rng(seed)
    images = [rng.integers(0, 256, (int(rng.integers(40, 160)), int(rng.integers(40, 160)), 3),
                           np.uint8) for _ in range(n)]
    # Smooth images: resampling differences between libraries stay small on them.
    images = [np.cumsum(np.cumsum(x.astype(np.int64) - 127, 0), 1) for x in images]
    images = [((x - x.min()) * 255 // max(np.ptp(x), 1)).astype(np.uint8) for x in images]
    return [images, *per_sample_args(rng, n)]


def test_equals_resize_crop_flip():
    inputs = random_batch(1, 16)
    (ours,) = run_sluice(rcm_graph, inputs, ["HWC"] + [None] * 4)
    (ref,) = run_sluice(unfused_graph, inputs, ["HWC"] + [None] * 4)
    assert_close(ours, ref, atol=1, mean_atol=0.01)


def test_equals_dali_on_random_images(tmp_path):
    inputs = random_batch(2)
    layouts = ["HWC"] + [None] * 4
    (ours,) = run_sluice(rcm_graph, inputs, layouts)
    (ref,) = run_dali(rcm_graph, inputs, tmp_path, layouts)
    assert_close(ours, ref, atol=ATOL, mean_atol=MEAN_ATOL)


def test_of_photos_equals_dali(shared_data, tmp_path):
    photos = [pil_rgb(p) for p in files_in(shared_data / "photos", "*.jpg")[:6]]
    inputs = [photos, *per_sample_args(np.random.default_rng(3), len(photos))]
    layouts = ["HWC"] + [None] * 4
    (ours,) = run_sluice(rcm_graph, inputs, layouts)
    (ref,) = run_dali(rcm_graph, inputs, tmp_path, layouts)
    assert_close(ours, ref, atol=PHOTO_ATOL, mean_atol=PHOTO_MEAN_ATOL)


def sized_graph(fn, types, images):
    return (fn.resize_crop_mirror(images, size=(30, 40), crop=(50, 60), mirror=3),
            fn.resize_crop_mirror(images, resize_x=70, crop_h=20, crop_w=0, crop_pos_y=0.0,
                                  dtype=types.FLOAT, interp_type=types.INTERP_CUBIC),
            fn.resize_crop_mirror(images, resize_y=33, mode="not_larger", max_size=(40, 40),
                                  crop=(9, 9, 16), mirror=4, antialias=False),
            fn.resize_crop_mirror(images, resize_x=50, resize_y=30))


def test_sizes_types_and_edges_equal_dali(tmp_path):
    """Crops reaching past the resized image repeat its edges; float output; crop with three
    extents; no crop; mirror's depthwise bit on images."""
    images = random_batch(4, 6)[0]
    outs = run_sluice(sized_graph, [images], ["HWC"])
    refs = run_dali(sized_graph, [images], tmp_path, ["HWC"])
    tolerances = [(BORDER_ATOL, BORDER_MEAN_ATOL), (1.0, 0.05), (ATOL, MEAN_ATOL), (ATOL, MEAN_ATOL)]
    for ours, ref, (atol, mean_atol) in zip(outs, refs, tolerances):
        assert_close(ours, ref, atol=atol, mean_atol=mean_atol)


def crop_input_graph(fn, types, images, crop, mirror):
    return fn.resize_crop_mirror(images, resize_y=64, crop=crop, mirror=mirror, crop_pos_x=0.25)


def test_per_sample_crop_equals_dali(tmp_path):
    images, *_, mirror = random_batch(6, 8)
    crop = [np.array([h, w], np.float32) for h, w in
            [(8, 8), (64, 30), (1, 70), (20, 0), (63.7, 12.2), (40, 200), (3, 3), (64, 64)]]
    inputs, layouts = [images, crop, mirror], ["HWC", None, None]
    (ours,) = run_sluice(crop_input_graph, inputs, layouts)
    (ref,) = run_dali(crop_input_graph, inputs, tmp_path, layouts)
    assert_close(ours, ref, atol=BORDER_ATOL, mean_atol=BORDER_MEAN_ATOL)


def crop_pos_graph(fn, types, images):
    return fn.resize_crop_mirror(images, resize_x=20, crop=(5, 5), crop_pos_x=1.5)


def no_size_graph(fn, types, images):
    return fn.resize_crop_mirror(images, crop=(5, 5))


def two_sizes_graph(fn, types, images):
    return fn.resize_crop_mirror(images, resize_x=20, resize_shorter=10, crop=(5, 5))


def crop_hw_graph(fn, types, images):
    return fn.resize_crop_mirror(images, resize_x=20, crop_h=5)


@pytest.mark.parametrize("graph,match", [(crop_pos_graph, "crop_pos_x"),
                                         (no_size_graph, "size"),
                                         (two_sizes_graph, "resize"),
                                         (crop_hw_graph, "crop_w")])
def test_refuses_what_dali_refuses(tmp_path, graph, match):
    images = [np.zeros((20, 30, 3), np.uint8)]
    assert_both_refuse(graph, [images], ["HWC"], tmp_path, match)


@pytest.mark.gpu
def test_gpu_equals_cpu():
    data = random_images(np.random.default_rng(5), 16)

    def graph(x, d):
        coin = fn.random.coin_flip(seed=4)
        return (fn.resize_crop_mirror(x, resize_shorter=256, crop=(224, 224), mirror=coin,
                                      crop_pos_x=fn.random.uniform(range=(0, 1), seed=5),
                                      device=d),
                fn.resize_crop_mirror(x, size=(100, 120), crop=(130, 90), mirror=3, device=d),
                fn.resize_crop_mirror(x, resize_x=64, crop=(32, 32), mirror=2,
                                      interp_type=types.INTERP_CUBIC, dtype=types.FLOAT,
                                      device=d))

    compare_gpu_cpu(graph, data, atol=1)
