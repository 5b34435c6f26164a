"""``Policy``: AutoAugment's sub-policies."""

import warnings

from sluice.auto_aug.core._augmentation import Augmentation


class Policy:
    """An augmentation policy as in AutoAugment (https://arxiv.org/abs/1805.09501).

    Args:
        name: the policy's name, for presentation.
        num_magnitude_bins: the number of bins the augmentations' magnitude ranges are divided
            into.
        sub_policies: sequences of ``(augmentation, probability, magnitude_bin)``. Each sample
            takes one sub-policy, uniformly at random, then applies its augmentations in order,
            each with its probability and magnitude bin (None for augmentations without a
            magnitude range).
    """

    def __init__(self, name, num_magnitude_bins, sub_policies):
        self.name = name
        self.num_magnitude_bins = num_magnitude_bins
        if not isinstance(num_magnitude_bins, int) or num_magnitude_bins < 1:
            raise Exception(
                f"The `num_magnitude_bins` must be a positive integer, got {num_magnitude_bins}.")
        if not isinstance(sub_policies, (list, tuple)):
            raise Exception(f"The `sub_policies` must be a list or tuple of sub policies, "
                            f"got {type(sub_policies)}.")
        for sub_policy in sub_policies:
            if not isinstance(sub_policy, (list, tuple)):
                raise Exception(f"Each sub policy must be a list or tuple, got {sub_policy}.")
            for op_desc in sub_policy:
                self._check(op_desc)
        self.sub_policies = _with_unique_names(sub_policies)

    def _check(self, op_desc):
        if not isinstance(op_desc, (list, tuple)) or len(op_desc) != 3:
            raise Exception(f"Each operation in sub policy must be specified as a triple: "
                            f"(augmentation, probability, magnitude). Got {op_desc}.")
        aug, p, mag = op_desc
        if not isinstance(aug, Augmentation):
            raise Exception(f"Each augmentation in sub policies must be an instance of "
                            f"Augmentation. Got `{aug}`. Did you forget to use `@augmentation` "
                            f"decorator?")
        if not isinstance(p, (float, int)) or not 0 <= p <= 1:
            raise Exception(f"Probability of applying the augmentation must be a number from "
                            f"`[0, 1]` range. Got `{p}` for augmentation `{aug.name}`.")
        if p == 0:
            warnings.warn(f"The augmentation `{aug.name}` in policy `{self.name}` is used with "
                          f"probability 0 in one of the sub-policies.")
        if mag is None:
            if aug.mag_range is not None:
                raise Exception(
                    f"The augmentation `{aug.name}` has `mag_range` specified, so the magnitude "
                    f"bin is required. However, got `None` in the policy `{self.name}`.")
            return
        if aug.mag_range is None:
            warnings.warn(
                f"The magnitude bin `{mag}` for augmentation `{aug.name}` in policy "
                f"`{self.name}` will be ignored. The augmentation does not accept magnitudes (as "
                f"it has no `mag_range` specified). You can specify `None` instead of `{mag}` to "
                f"silence this warning.")
        if not isinstance(mag, int) or not 0 <= mag < self.num_magnitude_bins:
            raise Exception(f"Magnitude of the augmentation must be an integer from "
                            f"`[0, {self.num_magnitude_bins - 1}]` range. Got `{mag}` for "
                            f"augmentation `{aug.name}`.")

    @property
    def augmentations(self):
        """The policy's augmentations by name."""
        augs = {aug for sub_policy in self.sub_policies for aug, _, _ in sub_policy}
        return {aug.name: aug for aug in sorted(augs, key=lambda a: a.name)}

    def __repr__(self):
        def block(items):
            return "".join(f"\n\t{item}," for item in items)[:-1]

        subs = block(repr([(aug.name, p, mag) for aug, p, mag in sub])
                     for sub in self.sub_policies)
        augs = block(f"'{n}': {aug!r}" for n, aug in self.augmentations.items())
        return (f"Policy(name={self.name!r}, num_magnitude_bins={self.num_magnitude_bins!r}, "
                f"sub_policies=[{subs}], augmentations={{{augs}}})")


def _with_unique_names(sub_policies):
    """The sub-policies as tuples, different augmentations of one name renamed "i__name" (in order
    of first use) so that the policy reads unambiguously."""
    used = []
    for sub_policy in sub_policies:
        for aug, _, _ in sub_policy:
            if aug not in used:
                used.append(aug)
    if len({aug.name for aug in used}) == len(used):
        return tuple(tuple(sub_policy) for sub_policy in sub_policies)
    digits = len(str(len(used) - 1))
    renamed = {aug: aug.augmentation(name=f"{str(i).zfill(digits)}__{aug.name}")
               for i, aug in enumerate(used)}
    return tuple(tuple((renamed[aug], p, mag) for aug, p, mag in sub_policy)
                 for sub_policy in sub_policies)
