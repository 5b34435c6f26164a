"""transforms.scale against NVIDIA DALI 2.4: per-dimension and single scales (ndim, or the input's
dimensionality), centers, per-sample arguments, input transforms, and what DALI refuses."""

import numpy as np

from dali_reference import run_dali, run_sluice
from geometry_testing import assert_matrices_equal, assert_refused_by_both


def scale_graph(fn, types, mats, scales, centers):
    return (fn.transforms.scale(scale=[2, 3]), fn.transforms.scale(scale=[2]),
            fn.transforms.scale(scale=[2], ndim=3), fn.transforms.scale(scale=[2, 3], center=[1, 5]),
            fn.transforms.scale(scale=[2, 3], center=[1]),
            fn.transforms.scale(scale=[0.5], center=[1, 2], ndim=2),
            fn.transforms.scale(scale=scales, center=centers),
            fn.transforms.scale(mats, scale=[1.5]),
            fn.transforms.scale(mats, scale=scales, center=[4, 5, 6], reverse_order=True))


def test_scale_equals_dali(tmp_path):
    rng = np.random.default_rng(2)
    mats = [rng.normal(size=(3, 4)).astype(np.float32) for _ in range(3)]
    scales = [rng.normal(size=3).astype(np.float32) for _ in range(3)]
    centers = [rng.normal(size=3).astype(np.float32) for _ in range(3)]
    inputs = [mats, scales, centers]
    assert_matrices_equal(run_sluice(scale_graph, inputs), run_dali(scale_graph, inputs, tmp_path))


def bad_center_graph(fn, types, x):
    return fn.transforms.scale(scale=[2, 3], center=[1, 2, 3])


def test_refuses_what_dali_refuses(tmp_path):
    assert_refused_by_both(bad_center_graph, [[np.zeros(1)] * 2], tmp_path, "center")
