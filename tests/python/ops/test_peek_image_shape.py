"""peek_image_shape: the shape each image decodes to, from its header, equals Pillow's upright
RGB decode's and the decoder's."""

import numpy as np
import pytest

from op_testing import decodable_jpegs, files_in, pil_rgb, run_on_bytes
from sluice import fn, types

pytest.importorskip("PIL.Image")


def test_shapes_equal_pillows_and_the_decoders(shared_data):
    paths = decodable_jpegs(shared_data)[:30] + files_in(shared_data / "photos", "*.png")
    blobs = [p.read_bytes() for p in paths]
    shapes, decoded, as_int32 = run_on_bytes(blobs, lambda x: (
        fn.peek_image_shape(x), fn.decoders.image(x), fn.peek_image_shape(x, dtype=types.INT32)))
    checked = 0
    for path, blob, shape, image, shape32 in zip(paths, blobs, shapes, decoded, as_int32):
        assert shape.dtype == np.int64 and shape32.dtype == np.int32
        assert tuple(shape) == tuple(shape32) == image.shape, path.name
        try:
            ref = pil_rgb(blob)
        except Exception:
            continue  # Pillow cannot read it
        assert tuple(shape) == ref.shape, path.name
        checked += 1
    assert checked >= 20
