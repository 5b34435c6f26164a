"""Automatic augmentations (DALI's nvidia.dali.auto_aug): AutoAugment, RandAugment and
TrivialAugment over a suite of image augmentations, each written with Sluice operators. A sample
takes its own random augmentations through conditionals, so the pipeline needs
``enable_conditionals=True``.

``auto_augment``, ``rand_augment`` and ``trivial_augment`` apply the schemes,
``augmentations`` holds the suite and ``core`` the means to write more (the ``augmentation``
decorator, ``Policy``, ``select``, ``signed_bin``).
"""

from sluice.auto_aug import augmentations, auto_augment, core, rand_augment, trivial_augment

__all__ = ("augmentations", "auto_augment", "core", "rand_augment", "trivial_augment")
