"""transforms.crop against NVIDIA DALI 2.4: 1D to 3D boxes, broadcast single values, absolute,
per-sample arguments, input transforms, and what DALI refuses."""

import numpy as np

from dali_reference import run_dali, run_sluice
from geometry_testing import assert_matrices_equal, assert_refused_by_both


def crop_graph(fn, types, mats, starts):
    return (fn.transforms.crop(), fn.transforms.crop(to_end=[2, 3, 4]),
            fn.transforms.crop(from_start=[10, 20], from_end=[110, 220], to_start=[0], to_end=[1]),
            fn.transforms.crop(from_start=[110, 20], from_end=[10, 220], to_start=[1, 0],
                               to_end=[0, 1], absolute=True),
            fn.transforms.crop(from_start=[110, 20], from_end=[10, 220], to_start=[1, 0],
                               to_end=[0, 1]),
            fn.transforms.crop(from_start=starts, from_end=[300, 400]),
            fn.transforms.crop(mats, from_start=starts, to_end=[5, 6], reverse_order=True))


def test_crop_equals_dali(tmp_path):
    rng = np.random.default_rng(5)
    mats = [rng.normal(size=(2, 3)).astype(np.float32) for _ in range(3)]
    starts = [rng.uniform(0, 100, size=2).astype(np.float32) for _ in range(3)]
    inputs = [mats, starts]
    assert_matrices_equal(run_sluice(crop_graph, inputs), run_dali(crop_graph, inputs, tmp_path))


def mismatched_graph(fn, types, x):
    return fn.transforms.crop(from_start=[1, 2], from_end=[1, 2, 3])


def test_refuses_what_dali_refuses(tmp_path):
    assert_refused_by_both(mismatched_graph, [[np.zeros(1)] * 2], tmp_path,
                           "same number of dimensions or be a single element")
