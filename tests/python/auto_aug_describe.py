"""Describes the automatic augmentation suites and policies of DALI or Sluice as JSON, for the
tests to compare: each augmentation's name, magnitude range, sign and the parameter of every
magnitude bin (and sign); each policy's sub-policies.

Run as a script under DALI's python (``auto_aug_describe.py nvidia.dali``) or imported
(``describe("sluice")``).
"""

import importlib
import json
import sys

import numpy as np


def _aug(aug, num_bins):
    d = {"name": aug.name, "randomly_negate": aug.randomly_negate,
         "mag_range": None if aug.mag_range is None else [float(x) for x in aug.mag_range]}
    mags = aug._get_magnitudes(num_bins)
    if mags is not None:
        if aug.randomly_negate:
            mags = np.array([v for m in mags for v in (m, -m)])
        params = aug._map_mags_to_params(mags)
        d["params"] = params.astype(np.float64).tolist()
        d["param_dtype"] = str(params.dtype)
    return d


def describe(root):
    aa = type("auto_aug", (), {m: importlib.import_module(f"{root}.auto_aug.{m}")
                               for m in ("auto_augment", "rand_augment", "trivial_augment")})
    out = {}
    for use_shape in (False, True):
        kw = {"use_shape": use_shape}
        suites = {
            "trivial": aa.trivial_augment.get_trivial_augment_wide_suite(**kw),
            "rand": aa.rand_augment.get_rand_augment_suite(**kw),
            "rand_non_monotonic": aa.rand_augment.get_rand_augment_non_monotonic_suite(**kw),
        }
        for name, suite in suites.items():
            out[f"{name}_{use_shape}"] = [_aug(aug, 31) for aug in suite]
        extra = {"max_translate_rel": (0.25, 0.5)} if use_shape else {"max_translate_abs": 40}
        out[f"trivial_custom_{use_shape}"] = [
            _aug(aug, 7)
            for aug in aa.trivial_augment.get_trivial_augment_wide_suite(use_shape, **extra)[:2]]
        policies = {
            "image_net": aa.auto_augment.get_image_net_policy(**kw),
            "svhn": aa.auto_augment.get_svhn_policy(**kw),
            "reduced_cifar10": aa.auto_augment.get_reduced_cifar10_policy(**kw),
            "reduced_image_net": aa.auto_augment.get_reduced_image_net_policy(),
        }
        for name, policy in policies.items():
            out[f"policy_{name}_{use_shape}"] = {
                "name": policy.name, "num_magnitude_bins": policy.num_magnitude_bins,
                "sub_policies": [[[aug.name, p, mag] for aug, p, mag in sub]
                                 for sub in policy.sub_policies],
                "augmentations": [_aug(aug, policy.num_magnitude_bins)
                                  for aug in policy.augmentations.values()],
            }
    ids, stage_augs = aa.auto_augment._sub_policy_to_augmentation_matrix_map(
        aa.auto_augment.get_image_net_policy()) if root == "nvidia.dali" else \
        aa.auto_augment._stage_augmentations(aa.auto_augment.get_image_net_policy())
    out["image_net_stages"] = {"ids": np.asarray(ids).tolist(),
                               "augs": [[a.name for a in s] for s in stage_augs]}
    return out


if __name__ == "__main__":
    json.dump(describe(sys.argv[1]), sys.stdout)
