"""transforms.shear against NVIDIA DALI 2.4: 2D and 3D factors, angles, centers, per-sample
arguments, input transforms, and what DALI refuses."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from geometry_testing import assert_matrices_equal, assert_refused_by_both


def shear_graph(fn, types, mats, factors):
    return (fn.transforms.shear(shear=[0.5, 0.25]), fn.transforms.shear(shear=[1, 2, 3, 4, 5, 6]),
            fn.transforms.shear(angles=[30, 45], center=[1, 2]),
            fn.transforms.shear(angles=[10, -20, 30, -40, 50, 89], center=[1, 2, 3]),
            fn.transforms.shear(shear=factors), fn.transforms.shear(mats, shear=factors),
            fn.transforms.shear(mats, angles=[5, 6], reverse_order=True))


def test_shear_equals_dali(tmp_path):
    rng = np.random.default_rng(4)
    mats = [rng.normal(size=(2, 3)).astype(np.float32) for _ in range(3)]
    factors = [rng.normal(size=2).astype(np.float32) for _ in range(3)]
    inputs = [mats, factors]
    ours = run_sluice(shear_graph, inputs)
    assert_matrices_equal(ours, run_dali(shear_graph, inputs, tmp_path), rtol=1e-5)
    np.testing.assert_array_equal(ours[1][0], [[1, 1, 2, 0], [3, 1, 4, 0], [5, 6, 1, 0]])


def no_factors_graph(fn, types, x):
    return fn.transforms.shear()


def both_graph(fn, types, x):
    return fn.transforms.shear(shear=[1, 2], angles=[1, 2])


def odd_count_graph(fn, types, x):
    return fn.transforms.shear(shear=[1, 2, 3])


def steep_graph(fn, types, x):
    return fn.transforms.shear(angles=[30, 95])


@pytest.mark.parametrize("graph,message", [(no_factors_graph, "One and only one"),
                                           (both_graph, "One and only one"),
                                           (odd_count_graph, r"D\*\(D-1\) elements"),
                                           (steep_graph, r"range \[-90, 90\]")])
def test_refuses_what_dali_refuses(tmp_path, graph, message):
    assert_refused_by_both(graph, [[np.zeros(1)] * 2], tmp_path, message)
