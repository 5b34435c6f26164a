"""transforms.translation against NVIDIA DALI 2.4: constant and per-sample offsets, 1D to 3D, an
input transform before or after (reverse_order), and what DALI refuses."""

import numpy as np
from dali_reference import run_dali, run_sluice
from geometry_testing import assert_matrices_equal, assert_refused_by_both


def translation_graph(fn, types, mats, offsets):
    return (fn.transforms.translation(offset=[5, 7]), fn.transforms.translation(offset=[3]),
            fn.transforms.translation(offset=[1, 2, 3]),
            fn.transforms.translation(offset=offsets),
            fn.transforms.translation(mats, offset=[5, -7]),
            fn.transforms.translation(mats, offset=offsets, reverse_order=True))


def test_translation_equals_dali(tmp_path):
    rng = np.random.default_rng(1)
    mats = [rng.normal(size=(2, 3)).astype(np.float32) for _ in range(4)]
    offsets = [rng.normal(size=2).astype(np.float32) for _ in range(4)]
    ours = run_sluice(translation_graph, [mats, offsets])
    assert_matrices_equal(ours, run_dali(translation_graph, [mats, offsets], tmp_path))
    np.testing.assert_array_equal(ours[0][0], [[1, 0, 5], [0, 1, 7]])
    np.testing.assert_allclose(ours[5][1], np.vstack([mats[1], [0, 0, 1]])[:2] @ np.array(
        [[1, 0, offsets[1][0]], [0, 1, offsets[1][1]], [0, 0, 1]], np.float32), rtol=1e-6)


def mismatched_graph(fn, types, mats):
    return fn.transforms.translation(mats, offset=[1, 2, 3])


def test_refuses_what_dali_refuses(tmp_path):
    mats = [np.zeros((2, 3), np.float32)] * 2
    assert_refused_by_both(mismatched_graph, [mats], tmp_path,
                           "2D transform but other arguments suggest a 3D")
