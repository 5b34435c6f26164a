"""sluice.auto_aug's augmentations against NVIDIA DALI 2.4's on photos and random images, every
magnitude bin and sign given per sample; the schemes on photos (deterministic for a seed); the
GPU augmentations against the CPU ones."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from op_testing import compare_gpu_cpu, files_in, pil_rgb, random_images
from sluice import fn, pipeline_def

# name -> the largest difference from DALI (grey levels) and the fraction of values that may
# differ by more than 1: the geometric ones resample (warp_affine / rotate rounding), the
# enhance ones compute in float, auto_contrast's cast_like rounds ties (x.5) to even where
# DALI's CPU rounds them away from zero; the rest are integer arithmetic, exact.
TOLERANCE = {
    "shear_x": (2, 1e-3), "shear_y": (2, 1e-3), "translate_x": (2, 1e-3),
    "translate_y": (2, 1e-3), "translate_x_no_shape": (2, 1e-3),
    "translate_y_no_shape": (2, 1e-3), "rotate": (2, 1e-3),
    "brightness": (1, 0), "contrast": (1, 0), "color": (1, 0), "sharpness": (1, 0),
    "posterize": (0, 0), "solarize": (0, 0), "solarize_add": (0, 0), "invert": (0, 0),
    "equalize": (0, 0), "auto_contrast": (1, 0), "identity": (0, 0),
}
NAMES = list(TOLERANCE)


def augmentations_graph(fn, types, images, bins, signs):
    import importlib

    root = fn.__name__.rsplit(".", 1)[0]  # sluice or nvidia.dali
    aa = importlib.import_module(root + ".auto_aug.augmentations")
    core = importlib.import_module(root + ".auto_aug.core")
    names = ["shear_x", "shear_y", "translate_x", "translate_y", "translate_x_no_shape",
             "translate_y_no_shape", "rotate", "brightness", "contrast", "color", "sharpness",
             "posterize", "solarize", "solarize_add", "invert", "equalize", "auto_contrast",
             "identity"]
    magnitude_bin = core.signed_bin(bins, random_sign=signs)
    shape = fn.shapes(images)
    return tuple(getattr(aa, n)(images, magnitude_bin=magnitude_bin, num_magnitude_bins=11,
                                shape=shape, fill_value=128) if n.startswith("translate") and
                 "no_shape" not in n else
                 getattr(aa, n)(images, magnitude_bin=magnitude_bin, num_magnitude_bins=11)
                 for n in names)


def assert_close_to_dali(ours, ref, what):
    for name, o, r in zip(NAMES, ours, ref):
        worst, fraction = TOLERANCE[name]
        for i, (a, b) in enumerate(zip(o, r)):
            assert a.dtype == b.dtype and a.shape == b.shape, f"{name} {what} {i}"
            diff = np.abs(a.astype(np.int32) - b.astype(np.int32))
            assert diff.max(initial=0) <= worst, f"{name} {what} {i}: {diff.max()}"
            assert (diff > 1).mean() <= fraction, f"{name} {what} {i}: {(diff > 1).mean()}"


def _bins_and_signs(n):
    """Every bin of 11 and both signs, spread over `n` samples."""
    bins = [np.array(k * 7 % 11, np.int32) for k in range(n)]
    signs = [np.array(k // 2 % 2, np.int32) for k in range(n)]
    return bins, signs


def test_augmentations_of_photos_equal_dali(tmp_path, shared_data):
    photos = [pil_rgb(p)[::4, ::4].copy() for p in files_in(shared_data / "photos", "*.jpg")]
    photos = (photos * 3)[:12]
    bins, signs = _bins_and_signs(len(photos))
    inputs, layouts = [photos, bins, signs], ["HWC", None, None]
    ours = run_sluice(augmentations_graph, inputs, layouts)
    ref = run_dali(augmentations_graph, inputs, tmp_path, layouts)
    assert_close_to_dali(ours, ref, "photo")


def test_augmentations_of_random_images_equal_dali(tmp_path):
    rng = np.random.default_rng(12)
    images = [rng.integers(0, 256, (int(rng.integers(8, 60)), int(rng.integers(8, 60)), 3),
                           np.uint8) for _ in range(11)]
    images.append(np.full((9, 7, 3), 77, np.uint8))  # one value: auto_contrast and equalize keep it
    bins, signs = _bins_and_signs(len(images))
    inputs, layouts = [images, bins, signs], ["HWC", None, None]
    ours = run_sluice(augmentations_graph, inputs, layouts)
    ref = run_dali(augmentations_graph, inputs, tmp_path, layouts)
    assert_close_to_dali(ours, ref, "image")


# Sluice's warp_affine and rotate take no sequences yet: the geometric augmentations are left out
# (docs/COMPATIBILITY.md).
VIDEO_NAMES = NAMES[7:]


def video_augmentations_graph(fn, types, videos, bins, signs):
    import importlib

    root = fn.__name__.rsplit(".", 1)[0]
    aa = importlib.import_module(root + ".auto_aug.augmentations")
    core = importlib.import_module(root + ".auto_aug.core")
    names = ["brightness", "contrast", "color", "sharpness", "posterize", "solarize",
             "solarize_add", "invert", "equalize", "auto_contrast", "identity"]
    magnitude_bin = core.signed_bin(bins, random_sign=signs)
    return tuple(getattr(aa, n)(videos, magnitude_bin=magnitude_bin, num_magnitude_bins=11)
                 for n in names)


def test_colour_augmentations_of_videos_equal_dali(tmp_path):
    rng = np.random.default_rng(13)
    videos = [rng.integers(0, 256, (int(rng.integers(1, 4)), 20 + i, 30, 3), np.uint8)
              for i in range(6)]
    bins, signs = _bins_and_signs(len(videos))
    inputs, layouts = [videos, bins, signs], ["FHWC", None, None]
    ours = run_sluice(video_augmentations_graph, inputs, layouts)
    ref = run_dali(video_augmentations_graph, inputs, tmp_path, layouts)
    for name, o, r in zip(VIDEO_NAMES, ours, ref):
        worst = TOLERANCE[name][0]
        for i, (a, b) in enumerate(zip(o, r)):
            assert a.shape == b.shape and a.dtype == b.dtype, f"{name} video {i}"
            assert np.abs(a.astype(np.int32) - b.astype(np.int32)).max() <= worst, name


def _scheme_pipeline(scheme, photos, seed):
    from sluice.auto_aug import auto_augment, rand_augment, trivial_augment

    @pipeline_def(batch_size=len(photos), num_threads=2, device_id=None, seed=seed,
                  enable_conditionals=True)
    def p():
        images = fn.external_source(lambda: photos, layout="HWC")
        if scheme == "trivial":
            return trivial_augment.trivial_augment_wide(images)
        if scheme == "rand":
            return rand_augment.rand_augment(images, n=2, m=15, shape=fn.shapes(images))
        return auto_augment.auto_augment_image_net(images, shape=fn.shapes(images))

    (out,) = p().run()
    return [np.asarray(out.at(i)) for i in range(len(photos))]


@pytest.mark.parametrize("scheme", ["trivial", "rand", "auto"])
def test_schemes_on_photos_are_deterministic(shared_data, scheme):
    photos = [pil_rgb(p)[::6, ::6].copy() for p in files_in(shared_data / "photos", "*.jpg")]
    first = _scheme_pipeline(scheme, photos, seed=3)
    again = _scheme_pipeline(scheme, photos, seed=3)
    other = _scheme_pipeline(scheme, photos, seed=4)
    changed = 0
    for img, a, b, c in zip(photos, first, again, other):
        assert a.shape == img.shape and a.dtype == np.uint8
        np.testing.assert_array_equal(a, b)
        changed += not np.array_equal(a, img)
    assert changed > 0
    assert any(not np.array_equal(a, c) for a, c in zip(first, other))


# translate_x / translate_y take the shape from a CPU operator, which GPU data cannot feed; the
# _no_shape variants cover the same warp on the GPU.
@pytest.mark.gpu
@pytest.mark.parametrize("name", [n for n in NAMES if n not in ("translate_x", "translate_y")])
def test_gpu_equals_cpu(name):
    rng = np.random.default_rng(4)
    data = random_images(rng, 6)

    def graph(x, device):
        from sluice import types
        from sluice.auto_aug import augmentations as aa
        from sluice.auto_aug.core import signed_bin

        sign = fn.random.uniform(values=[1], dtype=types.INT32)
        return getattr(aa, name)(x, magnitude_bin=signed_bin(7, random_sign=sign),
                                 num_magnitude_bins=11)

    compare_gpu_cpu(graph, data, atol=TOLERANCE[name][0])
