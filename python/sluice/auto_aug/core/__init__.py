"""What automatic augmentations are built from: the ``augmentation`` decorator (an operation and
the range its magnitude bins map to), ``signed_bin`` (a magnitude bin with a random sign),
``select`` (one of several augmentations per sample) and ``Policy`` (AutoAugment's sub-policies).
"""

from sluice.auto_aug.core._augmentation import Augmentation as _Augmentation
from sluice.auto_aug.core._augmentation import signed_bin
from sluice.auto_aug.core._select import select
from sluice.auto_aug.core.decorator import augmentation
from sluice.auto_aug.core.policy import Policy

__all__ = ("signed_bin", "augmentation", "select", "Policy", "_Augmentation")
