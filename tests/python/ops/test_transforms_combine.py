"""transforms.combine against NVIDIA DALI 2.4: two and three 2D / 3D transforms, reverse_order,
chains of transforms.* operators, and what DALI refuses."""

import numpy as np

from dali_reference import run_dali, run_sluice
from geometry_testing import assert_matrices_equal, assert_refused_by_both


def combine_graph(fn, types, a, b, c, angles):
    t = fn.transforms.translation(offset=[10, 20])
    r = fn.transforms.rotation(angle=angles, center=[5, 5])
    return (fn.transforms.combine(a, b), fn.transforms.combine(a, b, reverse_order=True),
            fn.transforms.combine(a, b, a), fn.transforms.combine(t, r),
            fn.transforms.combine(r, t, fn.transforms.scale(scale=[2, 3]), reverse_order=True),
            fn.transforms.combine(c, c))


def test_combine_equals_dali(tmp_path):
    rng = np.random.default_rng(6)
    a = [rng.normal(size=(2, 3)).astype(np.float32) for _ in range(3)]
    b = [rng.normal(size=(2, 3)).astype(np.float32) for _ in range(3)]
    c = [rng.normal(size=(3, 4)).astype(np.float32) for _ in range(3)]
    angles = [np.array(v, np.float32) for v in rng.uniform(-180, 180, 3)]
    inputs = [a, b, c, angles]
    ours = run_sluice(combine_graph, inputs)
    assert_matrices_equal(ours, run_dali(combine_graph, inputs, tmp_path), rtol=1e-5, atol=1e-5)
    h = lambda m: np.vstack([m, np.eye(1, m.shape[1], m.shape[1] - 1)])  # noqa: E731
    np.testing.assert_allclose(ours[0][0], (h(b[0]) @ h(a[0]))[:2], rtol=1e-5)


def mismatched_graph(fn, types, a, c):
    return fn.transforms.combine(a, c)


def test_refuses_what_dali_refuses(tmp_path):
    a = [np.zeros((2, 3), np.float32)] * 2
    c = [np.zeros((3, 4), np.float32)] * 2
    assert_refused_by_both(mismatched_graph, [a, c], tmp_path, "same shape")
