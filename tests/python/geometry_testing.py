"""Helpers of the geometry operator tests (transforms.*, coord_transform, warp_affine, rotate)."""

import numpy as np


def assert_matrices_equal(ours, ref, rtol=1e-6, atol=1e-6):
    """Every output's samples: FLOAT, same shape, equal within float rounding (both libraries
    compute the matrices in float; the order of a few operations differs)."""
    assert len(ours) == len(ref)
    for k, (o, r) in enumerate(zip(ours, ref)):
        for i, (a, b) in enumerate(zip(o, r)):
            assert a.dtype == b.dtype and a.shape == b.shape, f"output {k} sample {i}"
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=f"output {k} sample {i}")


def assert_refused_by_both(graph, inputs, tmp_path, message, layouts=None):
    """DALI fails on `graph`; Sluice raises with `message`."""
    import pytest

    from dali_reference import run_dali, run_sluice

    with pytest.raises(AssertionError, match="DALI failed"):
        run_dali(graph, inputs, tmp_path, layouts)
    with pytest.raises(Exception, match=message):
        run_sluice(graph, inputs, layouts)
