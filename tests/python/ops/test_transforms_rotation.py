"""transforms.rotation against NVIDIA DALI 2.4: 2D and 3D (axis), centers, per-sample angles and
axes, input transforms, and what DALI refuses."""

import numpy as np

from dali_reference import run_dali, run_sluice
from geometry_testing import assert_matrices_equal, assert_refused_by_both


def rotation_graph(fn, types, mats, angles, axes):
    return (fn.transforms.rotation(angle=30.0), fn.transforms.rotation(angle=-71.5, center=[10, 20]),
            fn.transforms.rotation(angle=30.0, axis=[1, 1, 0]),
            fn.transforms.rotation(angle=123.0, axis=[0.2, -1, 3], center=[1, 2, 3]),
            fn.transforms.rotation(angle=angles), fn.transforms.rotation(angle=angles, axis=axes),
            fn.transforms.rotation(mats, angle=angles, center=[3, 4]),
            fn.transforms.rotation(mats, angle=45.0, reverse_order=True))


def test_rotation_equals_dali(tmp_path):
    rng = np.random.default_rng(3)
    mats = [rng.normal(size=(2, 3)).astype(np.float32) for _ in range(4)]
    angles = [np.array(rng.uniform(-360, 360), np.float32) for _ in range(4)]
    axes = [rng.normal(size=3).astype(np.float32) for _ in range(4)]
    inputs = [mats, angles, axes]
    ours = run_sluice(rotation_graph, inputs)
    assert_matrices_equal(ours, run_dali(rotation_graph, inputs, tmp_path), rtol=1e-5, atol=2e-6)
    np.testing.assert_allclose(ours[0][0][:, :2], [[np.sqrt(3) / 2, -0.5], [0.5, np.sqrt(3) / 2]],
                               rtol=1e-6)


def bad_axis_graph(fn, types, x):
    return fn.transforms.rotation(angle=30.0, axis=[0, 1])


def test_refuses_what_dali_refuses(tmp_path):
    assert_refused_by_both(bad_axis_graph, [[np.zeros(1)] * 2], tmp_path, "axis")
