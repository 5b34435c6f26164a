"""RandAugment (https://arxiv.org/abs/1909.13719): each sample takes `n` augmentations of the
suite in a row, each chosen uniformly at random, all with magnitude bin `m` (DALI's
nvidia.dali.auto_aug.rand_augment)."""

import warnings

from sluice import fn, types
from sluice.auto_aug import augmentations as a
from sluice.auto_aug.core import signed_bin
from sluice.auto_aug.core._args import forbid_unused_kwargs
from sluice.auto_aug.core._utils import get_translations, pretty_select


def rand_augment(data, n, m, num_magnitude_bins=31, shape=None, fill_value=128, interp_type=None,
                 max_translate_abs=None, max_translate_rel=None, seed=None, monotonic_mag=True,
                 excluded=None):
    """Applies RandAugment to a batch of UINT8 images (HWC). Videos (FHWC)
    need the geometric augmentations `excluded`, as Sluice's warp_affine and rotate take no
    sequences yet.

    Args:
        n: the number of augmentations applied to each sample.
        m: their magnitude bin, in ``[0, num_magnitude_bins - 1]``.
        num_magnitude_bins: the number of bins the magnitude ranges are divided into.
        shape: the images' (height, width), a DataNode or a tuple: translations are then
            relative to it (up to `max_translate_rel`, 100/224 by default), else absolute (up to
            `max_translate_abs` pixels, 100 by default).
        fill_value: the value outside the image for translate, shear and rotate; None repeats
            the border.
        interp_type: their interpolation (linear by default, or types.INTERP_NN).
        seed: the seed of the random choices.
        monotonic_mag: True: every augmentation is stronger for a higher bin; False: the
            colour augmentations take AutoAugment's ranges
            (get_rand_augment_non_monotonic_suite).
        excluded: names of augmentations of the suite to leave out.
    """
    aug_kwargs = {"fill_value": fill_value, "interp_type": interp_type}
    use_shape = shape is not None
    if use_shape:
        aug_kwargs["shape"] = shape
    get_suite = get_rand_augment_suite if monotonic_mag else get_rand_augment_non_monotonic_suite
    suite = get_suite(use_shape, max_translate_abs, max_translate_rel)
    names = [aug.name for aug in suite]
    for name in excluded or []:
        if name not in names:
            raise Exception(
                f"The `{name}` was specified in `excluded`, but the RandAugment suite does not "
                f"contain augmentation with this name. The augmentations in the suite are: "
                f"{', '.join(names)}.")
    selected = [aug for aug in suite if aug.name not in (excluded or [])]
    return apply_rand_augment(selected, data, n, m, num_magnitude_bins=num_magnitude_bins,
                              seed=seed, **aug_kwargs)


def apply_rand_augment(augmentations, data, n, m, num_magnitude_bins=31, seed=None, **kwargs):
    """Applies `n` of `augmentations` in a row to each sample, each chosen uniformly at random,
    with magnitude bin `m`. The entries of `kwargs` go to the augmentations that name them."""
    if not isinstance(n, int) or n < 0:
        raise Exception(
            f"The number of operations to apply `n` must be a non-negative integer, got {n}.")
    if not isinstance(num_magnitude_bins, int) or num_magnitude_bins < 1:
        raise Exception(
            f"The `num_magnitude_bins` must be a positive integer, got {num_magnitude_bins}.")
    if not isinstance(m, int) or not 0 <= m < num_magnitude_bins:
        raise Exception(f"The magnitude bin `m` must be an integer from "
                        f"`[0, {num_magnitude_bins - 1}]` range. Got {m}.")
    if n == 0:
        warnings.warn("The `apply_rand_augment` was called with `n=0`, no augmentation will be "
                      "applied.", Warning)
        return data
    if len(augmentations) == 0:
        raise Exception("The `augmentations` list cannot be empty, unless n=0. "
                        "Got empty list in `apply_rand_augment` call.")
    shape = () if n == 1 else (n,)
    op_idx = fn.random.uniform(values=list(range(len(augmentations))), seed=seed, shape=shape,
                               dtype=types.INT32)
    signed = any(aug.randomly_negate for aug in augmentations)
    mag_bin = signed_bin(m, seed=seed, shape=shape) if signed else m
    forbid_unused_kwargs(augmentations, kwargs, "apply_rand_augment")
    for level in range(n):
        level_bin = mag_bin[level] if signed and n > 1 else mag_bin
        op_kwargs = dict(data=data, magnitude_bin=level_bin,
                         num_magnitude_bins=num_magnitude_bins, **kwargs)
        data = pretty_select(augmentations, op_idx if n == 1 else op_idx[level], op_kwargs,
                             auto_aug_name="apply_rand_augment",
                             ref_suite_name="get_rand_augment_suite")
    return data


def get_rand_augment_suite(use_shape=False, max_translate_abs=None, max_translate_rel=None):
    """RandAugment's augmentations, each stronger for a higher bin. Translations go up to
    `max_translate_rel` of the image (100/224 by default) with `use_shape`, else up to
    `max_translate_abs` pixels (100 by default)."""
    return get_translations(use_shape, 100, 100 / 224, max_translate_abs, max_translate_rel) + [
        a.shear_x.augmentation((0, 0.3), True),
        a.shear_y.augmentation((0, 0.3), True),
        a.rotate.augmentation((0, 30), True),
        a.brightness.augmentation((0, 0.9), True, a.shift_enhance_range),
        a.contrast.augmentation((0, 0.9), True, a.shift_enhance_range),
        a.color.augmentation((0, 0.9), True, a.shift_enhance_range),
        a.sharpness.augmentation((0, 0.9), True, a.sharpness_kernel),
        a.posterize.augmentation((8, 4), False, a.poster_mask_uint8),
        a.solarize.augmentation((256, 0)),  # stronger as the threshold decreases
        a.equalize,
        a.auto_contrast,
        a.identity,
    ]


def get_rand_augment_non_monotonic_suite(use_shape=False, max_translate_abs=None,
                                         max_translate_rel=None):
    """get_rand_augment_suite with AutoAugment's ranges for brightness, contrast, color,
    sharpness, posterize and solarize, which do not grow stronger with the bin."""
    return get_translations(use_shape, 100, 100 / 224, max_translate_abs, max_translate_rel) + [
        a.shear_x.augmentation((0, 0.3), True),
        a.shear_y.augmentation((0, 0.3), True),
        a.rotate.augmentation((0, 30), True),
        a.brightness.augmentation((0.1, 1.9), False, None),
        a.contrast.augmentation((0.1, 1.9), False, None),
        a.color.augmentation((0.1, 1.9), False, None),
        a.sharpness.augmentation((0.1, 1.9), False, a.sharpness_kernel_shifted),
        a.posterize.augmentation((0, 4), False, a.poster_mask_uint8),
        a.solarize.augmentation((0, 256), False, None),
        a.equalize,
        a.auto_contrast,
        a.identity,
    ]
