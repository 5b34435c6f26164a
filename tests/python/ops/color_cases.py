"""Inputs and comparisons the colour operator tests share (test_brightness_contrast.py,
test_hsv.py, ...): random images of each element type, per-sample argument inputs, real photos,
and DALI's refusals."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from op_testing import files_in, pil_rgb

RANGES = {np.uint8: (0, 256), np.int16: (-2000, 30000), np.int32: (-70000, 1 << 20),
          np.float16: (0, 1), np.float32: (-0.2, 1.2)}


def random_images(rng, n, dtype, channels=3, layout="HWC"):
    """n images of mixed sizes (HWC, or FHWC with 2 frames), values over the type's range."""
    lo, hi = RANGES[dtype]
    out = []
    for _ in range(n):
        h, w = (int(v) for v in rng.integers(1, 40, 2))
        shape = (h, w, channels) if layout == "HWC" else (2, h, w, channels)
        if np.issubdtype(dtype, np.integer):
            out.append(rng.integers(lo, hi, shape).astype(dtype))
        else:
            out.append(rng.uniform(lo, hi, shape).astype(dtype))
    return out


def per_sample(rng, n, lo, hi):
    """One float32 scalar per sample, as an argument input."""
    return [np.array(v, np.float32) for v in rng.uniform(lo, hi, n)]


def photos(shared_data, count=4):
    return [pil_rgb(p) for p in files_in(shared_data / "photos", "*.jpg")[:count]]


def assert_equal_outputs(ours, ref, atol=0, max_fraction=0.0):
    """Same types and shapes; values within `atol`, and at most `max_fraction` of the values
    of each sample differing at all (0: bit-exact)."""
    for i, (a, b) in enumerate(zip(ours, ref)):
        assert a.dtype == b.dtype and a.shape == b.shape, f"sample {i}: {a.dtype}{a.shape} vs {b.dtype}{b.shape}"
        d = np.abs(a.astype(np.float64) - b.astype(np.float64))
        assert d.max(initial=0) <= atol, f"sample {i}: max difference {d.max()}"
        assert np.mean(d > 0) <= max_fraction, f"sample {i}: {np.mean(d > 0):.4%} differ"


def assert_both_refuse(graph, inputs, layouts, tmp_path, match):
    """DALI and Sluice both raise for these inputs; Sluice's message matches `match`."""
    with pytest.raises(AssertionError, match="DALI failed"):
        run_dali(graph, inputs, tmp_path, layouts)
    with pytest.raises(Exception, match=match):
        run_sluice(graph, inputs, layouts)
