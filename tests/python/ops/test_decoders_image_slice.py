"""decoders.image_slice: slices decoded alone equal the same region of the full decode."""

import numpy as np

from op_testing import run_on_bytes
from sluice import fn


def rnd(v):  # DALI rounds window coordinates half up
    return int(np.floor(v + 0.5))


def test_slice_equals_full_decode_then_slice(shared_data):
    paths = [shared_data / "photos" / n for n in ("pixabay_horse-197199_1280.jpg", "ijg_testorig.jpg")]
    blobs = [p.read_bytes() for p in paths]
    full, sl = run_on_bytes(blobs, lambda x: (
        fn.decoders.image(x),
        fn.decoders.image_slice(x, rel_start=(0.25, 0.5), rel_shape=(0.5, 0.25))))

    for f, s in zip(full, sl):
        h, w = f.shape[:2]
        # A relative slice covers [round(start), round(start + shape)) on each axis.
        assert np.array_equal(s, f[rnd(0.5 * h):rnd(0.75 * h), rnd(0.25 * w):rnd(0.75 * w)])
