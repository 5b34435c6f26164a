"""AutoAugment (https://arxiv.org/abs/1805.09501): each sample takes one sub-policy of a policy,
uniformly at random, and applies its augmentations in order, each with its probability and
magnitude bin (DALI's nvidia.dali.auto_aug.auto_augment, with its four policies)."""

import numpy as np

from sluice import fn, types
from sluice.auto_aug import augmentations as a
from sluice.auto_aug.core import Policy, signed_bin
from sluice.auto_aug.core._args import forbid_unused_kwargs
from sluice.auto_aug.core._utils import get_translations, pretty_select


def auto_augment(data, policy_name="image_net", shape=None, fill_value=128, interp_type=None,
                 max_translate_abs=None, max_translate_rel=None, seed=None):
    """Applies one of AutoAugment's policies to a batch of UINT8 images (HWC;
    not videos yet: Sluice's warp_affine and rotate take no sequences).

    Args:
        policy_name: ``image_net`` (default), ``reduced_image_net``, ``svhn`` or
            ``reduced_cifar10``.
        shape: the images' (height, width), a DataNode or a tuple: translations are then
            relative to it (up to `max_translate_rel`, 1 by default), else absolute (up to
            `max_translate_abs` pixels, 250 by default).
        fill_value: the value outside the image for translate, shear and rotate; None repeats
            the border.
        interp_type: their interpolation (linear by default, or types.INTERP_NN).
        seed: the seed of the random choices.
    """
    policies = {"image_net": get_image_net_policy,
                "reduced_image_net": get_reduced_image_net_policy,
                "svhn": get_svhn_policy,
                "reduced_cifar10": get_reduced_cifar10_policy}
    if not isinstance(policy_name, str) or policy_name not in policies:
        names = ", ".join(f"`{name}`" for name in policies)
        raise Exception(f"The `policy_name` must be a string that takes one of the values: "
                        f"{names}")
    aug_kwargs = {"fill_value": fill_value, "interp_type": interp_type}
    if policy_name == "reduced_image_net":  # no translations
        given = [name for value, name in ((shape, "shape"),
                                          (max_translate_abs, "max_translate_abs"),
                                          (max_translate_rel, "max_translate_rel"))
                 if value is not None]
        if given:
            raise Exception(
                f"The policy `{policy_name}` does not contain any augmentations that rely on the "
                f"image shape. The `{given[0]}` argument must not be specified in that case.")
        policy = get_reduced_image_net_policy()
    else:
        if shape is not None:
            aug_kwargs["shape"] = shape
        policy = policies[policy_name](use_shape=shape is not None,
                                       max_translate_abs=max_translate_abs,
                                       max_translate_rel=max_translate_rel)
    return apply_auto_augment(policy, data, seed, **aug_kwargs)


def auto_augment_image_net(data, shape=None, fill_value=128, interp_type=None,
                           max_translate_abs=None, max_translate_rel=None, seed=None):
    """``auto_augment`` with the ``image_net`` policy."""
    return auto_augment(data, "image_net", shape, fill_value, interp_type, max_translate_abs,
                        max_translate_rel, seed)


def apply_auto_augment(policy, data, seed=None, **kwargs):
    """Applies `policy` (a ``Policy``) to each sample. The entries of `kwargs` go to the
    augmentations that name them (``shape``, ``fill_value``, ``interp_type``, ...)."""
    if len(policy.sub_policies) == 0:
        raise Exception(f"Cannot run empty policy. Got {policy} in `apply_auto_augment` call.")
    stages = max(len(sub_policy) for sub_policy in policy.sub_policies)
    should_run = fn.random.uniform(range=[0, 1], shape=(stages,), dtype=types.FLOAT, seed=seed)
    sub_policy_id = fn.random.uniform(values=list(range(len(policy.sub_policies))), seed=seed,
                                      dtype=types.INT32)
    probabilities = _stage_table(policy, lambda aug, p, mag: p, np.float32)[sub_policy_id]
    magnitude_bins = _stage_table(
        policy, lambda aug, p, mag: -999 if mag is None else mag, np.int32)[sub_policy_id]
    aug_ids, augmentations = _stage_augmentations(policy)
    aug_ids = types.Constant(aug_ids)[sub_policy_id]
    if any(aug.randomly_negate for aug in policy.augmentations.values()):
        magnitude_bins = signed_bin(magnitude_bins, seed=seed, shape=(stages,))
    forbid_unused_kwargs(policy.augmentations.values(), kwargs, "apply_auto_augment")
    for stage in range(stages):
        # Only `data` is assigned under the condition: the branches merge what they assign.
        if should_run[stage] < probabilities[stage]:
            data = _apply_stage(augmentations[stage], aug_ids[stage], data,
                                magnitude_bins[stage], policy.num_magnitude_bins, kwargs)
    return data


def _apply_stage(augmentations, aug_ids, data, magnitude_bin, num_magnitude_bins, kwargs):
    op_kwargs = dict(data=data, magnitude_bin=magnitude_bin,
                     num_magnitude_bins=num_magnitude_bins, **kwargs)
    return pretty_select(augmentations, aug_ids, op_kwargs, auto_aug_name="apply_auto_augment",
                         ref_suite_name="get_image_net_policy")


def _stage_table(policy, value, dtype):
    """A constant (sub-policy, stage) -> value(augmentation, p, magnitude); 0 past a short
    sub-policy's end."""
    stages = max(len(sub_policy) for sub_policy in policy.sub_policies)
    table = np.zeros((len(policy.sub_policies), stages), dtype=dtype)
    for i, sub_policy in enumerate(policy.sub_policies):
        for stage, op_desc in enumerate(sub_policy):
            table[i, stage] = value(*op_desc)
    return types.Constant(table)


def _stage_augmentations(policy):
    """(ids, augmentations): augmentations[stage] lists the augmentations used at that stage (in
    order of first use) followed by identity; ids[sub_policy, stage] indexes that list (the
    identity past a short sub-policy's end)."""
    stages = max(len(sub_policy) for sub_policy in policy.sub_policies)
    augmentations = []
    for stage in range(stages):
        used = []
        for sub_policy in policy.sub_policies:
            if stage < len(sub_policy) and sub_policy[stage][0] not in used:
                used.append(sub_policy[stage][0])
        augmentations.append(used + [a.identity])
    ids = np.array([[len(augmentations[s]) - 1 for s in range(stages)]
                    for _ in policy.sub_policies], dtype=np.int32)
    for i, sub_policy in enumerate(policy.sub_policies):
        for stage, (aug, _, _) in enumerate(sub_policy):
            ids[i, stage] = augmentations[stage].index(aug)
    return ids, augmentations


def _policy_augmentations(use_shape, max_translate_abs, max_translate_rel):
    """The augmentations of AutoAugment's policies with the paper's ranges (11 bins)."""
    translate_x, translate_y = get_translations(use_shape, 250, 1.0, max_translate_abs,
                                                max_translate_rel)
    return dict(
        translate_x=translate_x, translate_y=translate_y,
        shear_x=a.shear_x.augmentation((0, 0.3), True),
        shear_y=a.shear_y.augmentation((0, 0.3), True),
        rotate=a.rotate.augmentation((0, 30), True),
        brightness=a.brightness.augmentation((0.1, 1.9), False, None),
        color=a.color.augmentation((0.1, 1.9), False, None),
        contrast=a.contrast.augmentation((0.1, 1.9), False, None),
        sharpness=a.sharpness.augmentation((0.1, 1.9), False, a.sharpness_kernel_shifted),
        posterize=a.posterize.augmentation((0, 4), False, a.poster_mask_uint8),
        solarize=a.solarize.augmentation((0, 256), False),
        solarize_add=a.solarize_add.augmentation((0, 110), False),
        invert=a.invert, equalize=a.equalize, auto_contrast=a.auto_contrast)


def _policy(name, table, augs):
    """A Policy of 11 bins from rows of (augmentation name, probability, bin) triples."""
    return Policy(name=name, num_magnitude_bins=11,
                  sub_policies=[[(augs[n], p, mag) for n, p, mag in row] for row in table])


_IMAGE_NET = [
    [("equalize", 0.8, None), ("shear_y", 0.8, 4)],
    [("color", 0.4, 9), ("equalize", 0.6, None)],
    [("color", 0.4, 1), ("rotate", 0.6, 8)],
    [("solarize", 0.8, 3), ("equalize", 0.4, None)],
    [("solarize", 0.4, 2), ("solarize", 0.6, 2)],
    [("color", 0.2, 0), ("equalize", 0.8, None)],
    [("equalize", 0.4, None), ("solarize_add", 0.8, 3)],
    [("shear_x", 0.2, 9), ("rotate", 0.6, 8)],
    [("color", 0.6, 1), ("equalize", 1.0, None)],
    [("invert", 0.4, None), ("rotate", 0.6, 0)],
    [("equalize", 1.0, None), ("shear_y", 0.6, 3)],
    [("color", 0.4, 7), ("equalize", 0.6, None)],
    [("posterize", 0.4, 6), ("auto_contrast", 0.4, None)],
    [("solarize", 0.6, 8), ("color", 0.6, 9)],
    [("solarize", 0.2, 4), ("rotate", 0.8, 9)],
    [("rotate", 1.0, 7), ("translate_y", 0.8, 9)],
    [("solarize", 0.8, 4)],
    [("shear_y", 0.8, 0), ("color", 0.6, 4)],
    [("color", 1.0, 0), ("rotate", 0.6, 2)],
    [("equalize", 0.8, None)],
    [("equalize", 1.0, None), ("auto_contrast", 0.6, None)],
    [("shear_y", 0.4, 7), ("solarize_add", 0.6, 7)],
    [("posterize", 0.8, 2), ("solarize", 0.6, 10)],
    [("solarize", 0.6, 8), ("equalize", 0.6, None)],
    [("color", 0.8, 6), ("rotate", 0.4, 5)],
]

_REDUCED_CIFAR10 = [
    [("invert", 0.1, None), ("contrast", 0.2, 6)],
    [("rotate", 0.7, 2), ("translate_x", 0.3, 9)],
    [("sharpness", 0.8, 1), ("sharpness", 0.9, 3)],
    [("shear_y", 0.5, 8), ("translate_y", 0.7, 9)],
    [("auto_contrast", 0.5, None), ("equalize", 0.9, None)],
    [("shear_y", 0.2, 7), ("posterize", 0.3, 7)],
    [("color", 0.4, 3), ("brightness", 0.6, 7)],
    [("sharpness", 0.3, 9), ("brightness", 0.7, 9)],
    [("equalize", 0.6, None), ("equalize", 0.5, None)],
    [("contrast", 0.6, 7), ("sharpness", 0.6, 5)],
    [("color", 0.7, 7), ("translate_x", 0.5, 8)],
    [("equalize", 0.3, None), ("auto_contrast", 0.4, None)],
    [("translate_y", 0.4, 3), ("sharpness", 0.2, 6)],
    [("brightness", 0.9, 6), ("color", 0.2, 8)],
    [("solarize", 0.5, 2)],
    [("equalize", 0.2, None), ("auto_contrast", 0.6, None)],
    [("equalize", 0.2, None), ("equalize", 0.6, None)],
    [("color", 0.9, 9), ("equalize", 0.6, None)],
    [("auto_contrast", 0.8, None), ("solarize", 0.2, 8)],
    [("brightness", 0.1, 3), ("color", 0.7, 0)],
    [("solarize", 0.4, 5), ("auto_contrast", 0.9, None)],
    [("translate_y", 0.9, 9), ("translate_y", 0.7, 9)],
    [("auto_contrast", 0.9, None), ("solarize", 0.8, 3)],
    [("equalize", 0.8, None), ("invert", 0.1, None)],
    [("translate_y", 0.7, 9), ("auto_contrast", 0.9, None)],
]

_SVHN = [
    [("shear_x", 0.9, 4), ("invert", 0.2, None)],
    [("shear_y", 0.9, 8), ("invert", 0.7, None)],
    [("equalize", 0.6, None), ("solarize", 0.6, 6)],
    [("invert", 0.9, None), ("equalize", 0.6, None)],
    [("equalize", 0.6, None), ("rotate", 0.9, 3)],
    [("shear_x", 0.9, 4), ("auto_contrast", 0.8, None)],
    [("shear_y", 0.9, 8), ("invert", 0.4, None)],
    [("shear_y", 0.9, 5), ("solarize", 0.2, 6)],
    [("invert", 0.9, None), ("auto_contrast", 0.8, None)],
    [("equalize", 0.6, None), ("rotate", 0.9, 3)],
    [("shear_x", 0.9, 4), ("solarize", 0.3, 3)],
    [("shear_y", 0.8, 8), ("invert", 0.7, None)],
    [("equalize", 0.9, None), ("translate_y", 0.6, 6)],
    [("invert", 0.9, None), ("equalize", 0.6, None)],
    [("contrast", 0.3, 3), ("rotate", 0.8, 4)],
    [("invert", 0.8, None)],
    [("shear_y", 0.7, 6), ("solarize", 0.4, 8)],
    [("invert", 0.6, None), ("rotate", 0.8, 4)],
    [("shear_y", 0.3, 7), ("translate_x", 0.9, 3)],
    [("shear_x", 0.1, 6), ("invert", 0.6, None)],
    [("solarize", 0.7, 2), ("translate_y", 0.6, 7)],
    [("shear_y", 0.8, 4), ("invert", 0.8, None)],
    [("shear_x", 0.7, 9), ("translate_y", 0.8, 3)],
    [("shear_y", 0.8, 5), ("auto_contrast", 0.7, None)],
    [("shear_x", 0.7, 2), ("invert", 0.1, None)],
]

_REDUCED_IMAGE_NET = [
    [("posterize", 0.4, 8), ("rotate", 0.6, 9)],
    [("solarize", 0.6, 5), ("auto_contrast", 0.6, None)],
    [("equalize", 0.8, None), ("equalize", 0.6, None)],
    [("posterize", 0.6, 7), ("posterize", 0.6, 6)],
    [("equalize", 0.4, None), ("solarize", 0.2, 4)],
    [("equalize", 0.4, None), ("rotate", 0.8, 8)],
    [("solarize", 0.6, 3), ("equalize", 0.6, None)],
    [("posterize", 0.8, 5), ("equalize", 1.0, None)],
    [("rotate", 0.2, 3), ("solarize", 0.6, 8)],
    [("equalize", 0.6, None), ("posterize", 0.4, 6)],
    [("rotate", 0.8, 8), ("color", 0.4, 0)],
    [("rotate", 0.4, 9), ("equalize", 0.6, None)],
    [("equalize", 0.8, None)],
    [("invert", 0.6, None), ("equalize", 1.0, None)],
    [("color", 0.6, 4), ("contrast", 1.0, 8)],
    [("rotate", 0.8, 8), ("color", 1.0, 2)],
    [("color", 0.8, 8), ("solarize", 0.8, 7)],
    [("sharpness", 0.4, 7), ("invert", 0.6, None)],
    [("shear_x", 0.6, 5), ("equalize", 1.0, None)],
    [("color", 0.4, 0), ("equalize", 0.6, None)],
    [("equalize", 0.4, None), ("solarize", 0.2, 4)],
    [("solarize", 0.6, 5), ("auto_contrast", 0.6, None)],
    [("invert", 0.6, None), ("equalize", 1.0, None)],
    [("color", 0.6, 4), ("contrast", 1.0, 8)],
    [("equalize", 0.8, None), ("equalize", 0.6, None)],
]


def get_image_net_policy(use_shape=False, max_translate_abs=None, max_translate_rel=None):
    """AutoAugment's ImageNet policy. Translations go up to `max_translate_rel` of the image (1
    by default) with `use_shape`, else up to `max_translate_abs` pixels (250 by default)."""
    augs = _policy_augmentations(use_shape, max_translate_abs, max_translate_rel)
    return _policy("ImageNetPolicy", _IMAGE_NET, augs)


def get_reduced_cifar10_policy(use_shape=False, max_translate_abs=None, max_translate_rel=None):
    """AutoAugment's reduced CIFAR-10 policy (translations as in get_image_net_policy)."""
    augs = _policy_augmentations(use_shape, max_translate_abs, max_translate_rel)
    return _policy("ReducedCifar10Policy", _REDUCED_CIFAR10, augs)


def get_svhn_policy(use_shape=False, max_translate_abs=None, max_translate_rel=None):
    """AutoAugment's SVHN policy (translations as in get_image_net_policy)."""
    augs = _policy_augmentations(use_shape, max_translate_abs, max_translate_rel)
    return _policy("SvhnPolicy", _SVHN, augs)


def get_reduced_image_net_policy():
    """AutoAugment's reduced ImageNet policy (no translations)."""
    return _policy("ReducedImageNetPolicy", _REDUCED_IMAGE_NET, _policy_augmentations(False, None,
                                                                                        None))
