"""TrivialAugment (https://arxiv.org/abs/2103.10158): each sample takes one augmentation of the
suite, uniformly at random, with a magnitude bin drawn uniformly too (DALI's
nvidia.dali.auto_aug.trivial_augment)."""

from sluice import fn, types
from sluice.auto_aug import augmentations as a
from sluice.auto_aug.core import signed_bin
from sluice.auto_aug.core._args import forbid_unused_kwargs
from sluice.auto_aug.core._utils import get_translations, pretty_select


def trivial_augment_wide(data, num_magnitude_bins=31, shape=None, fill_value=128,
                         interp_type=None, max_translate_abs=None, max_translate_rel=None,
                         seed=None, excluded=None):
    """Applies TrivialAugment Wide to a batch of UINT8 images (HWC). Videos
    (FHWC) need the geometric augmentations `excluded`, as Sluice's warp_affine and rotate take
    no sequences yet.

    Args:
        num_magnitude_bins: the number of bins the magnitude ranges are divided into.
        shape: the images' (height, width), a DataNode or a tuple: translations are then
            relative to it (up to `max_translate_rel`, 1 by default), else absolute (up to
            `max_translate_abs` pixels, 32 by default). Either may be (height, width).
        fill_value: the value outside the image for translate, shear and rotate; None repeats
            the border.
        interp_type: their interpolation (linear by default, or types.INTERP_NN).
        seed: the seed of the random choices.
        excluded: names of augmentations of the suite to leave out.
    """
    aug_kwargs = {"fill_value": fill_value, "interp_type": interp_type}
    use_shape = shape is not None
    if use_shape:
        aug_kwargs["shape"] = shape
    suite = get_trivial_augment_wide_suite(use_shape, max_translate_abs, max_translate_rel)
    names = [aug.name for aug in suite]
    for name in excluded or []:
        if name not in names:
            raise Exception(
                f"The `{name}` was specified in `excluded`, but the TrivialAugmentWide suite "
                f"does not contain augmentation with this name. The augmentations in the suite "
                f"are: {', '.join(names)}.")
    selected = [aug for aug in suite if aug.name not in (excluded or [])]
    return apply_trivial_augment(selected, data, num_magnitude_bins=num_magnitude_bins,
                                 seed=seed, **aug_kwargs)


def apply_trivial_augment(augmentations, data, num_magnitude_bins=31, seed=None, **kwargs):
    """Applies one of `augmentations` to each sample, chosen uniformly at random, with a magnitude
    bin drawn from ``[0, num_magnitude_bins - 1]``. The entries of `kwargs` go to the
    augmentations that name them (``shape``, ``fill_value``, ``interp_type``, ...)."""
    if not isinstance(num_magnitude_bins, int) or num_magnitude_bins < 1:
        raise Exception(
            f"The `num_magnitude_bins` must be a positive integer, got {num_magnitude_bins}.")
    if len(augmentations) == 0:
        raise Exception("The `augmentations` list cannot be empty. "
                        "Got empty list in `apply_trivial_augment` call.")
    magnitude_bin = fn.random.uniform(values=list(range(num_magnitude_bins)), dtype=types.INT32,
                                      seed=seed)
    if any(aug.randomly_negate for aug in augmentations):
        magnitude_bin = signed_bin(magnitude_bin, seed=seed)
    forbid_unused_kwargs(augmentations, kwargs, "apply_trivial_augment")
    op_kwargs = dict(data=data, magnitude_bin=magnitude_bin,
                     num_magnitude_bins=num_magnitude_bins, **kwargs)
    op_idx = fn.random.uniform(values=list(range(len(augmentations))), seed=seed,
                               dtype=types.INT32)
    return pretty_select(augmentations, op_idx, op_kwargs, auto_aug_name="apply_trivial_augment",
                         ref_suite_name="get_trivial_augment_wide_suite")


def get_trivial_augment_wide_suite(use_shape=False, max_translate_abs=None,
                                   max_translate_rel=None):
    """The 14 augmentations of TrivialAugment's wide augmentation space. Translations go up to
    `max_translate_rel` of the image (1 by default) with `use_shape`, else up to
    `max_translate_abs` pixels (32 by default)."""
    return get_translations(use_shape, 32, 1.0, max_translate_abs, max_translate_rel) + [
        a.shear_x.augmentation((0, 0.99), True),
        a.shear_y.augmentation((0, 0.99), True),
        a.rotate.augmentation((0, 135), True),
        a.brightness.augmentation((0.01, 0.99), True, a.shift_enhance_range),
        a.contrast.augmentation((0.01, 0.99), True, a.shift_enhance_range),
        a.color.augmentation((0.01, 0.99), True, a.shift_enhance_range),
        a.sharpness.augmentation((0.01, 0.99), True, a.sharpness_kernel),
        a.posterize.augmentation((8, 2), False, a.poster_mask_uint8),
        a.solarize.augmentation((256, 0)),  # stronger as the threshold decreases
        a.equalize,
        a.auto_contrast,
        a.identity,
    ]
