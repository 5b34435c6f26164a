"""resize against Pillow (uint8 results equal Image.resize within 1) and its size rules; the GPU
operator against the CPU one."""

import numpy as np
import pytest

from op_testing import compare_gpu_cpu, files_in, pil_rgb, random_images, run_on_bytes
from sluice import fn, pipeline_def, types

PIL = pytest.importorskip("PIL.Image")


@pytest.mark.parametrize("interp,pil_filter", [
    (types.INTERP_LINEAR, "BILINEAR"), (types.INTERP_CUBIC, "BICUBIC"),
    (types.INTERP_LANCZOS3, "LANCZOS"), (types.INTERP_NN, "NEAREST"),
    (types.INTERP_TRIANGULAR, "BILINEAR")])
def test_resize_matches_pillow(shared_data, interp, pil_filter):
    from PIL import Image

    paths = files_in(shared_data / "photos", "*.jpg")[:5]
    blobs = [p.read_bytes() for p in paths]
    small, big = run_on_bytes(blobs, lambda x: (
        fn.resize(fn.decoders.image(x), size=(224, 200), interp_type=interp),
        fn.resize(fn.decoders.image(x), size=(1000, 1500), interp_type=interp)))
    for blob, s, b in zip(blobs, small, big):
        im = Image.fromarray(pil_rgb(blob))
        ref = np.asarray(im.resize((200, 224), getattr(Image, pil_filter)))
        assert np.abs(s.astype(int) - ref).max() <= 1
        ref_big = np.asarray(im.resize((1500, 1000), getattr(Image, pil_filter)))
        assert np.abs(b.astype(int) - ref_big).max() <= 1


def test_resize_size_rules():
    img = np.zeros((100, 200, 3), np.uint8)

    def shape_of(**kw):
        @pipeline_def(batch_size=1, num_threads=1, device_id=None)
        def p():
            return fn.resize(fn.external_source(lambda: [img], layout="HWC"), **kw)

        return p().run()[0].shape()[0]

    assert shape_of(resize_x=50) == (25, 50, 3)
    assert shape_of(resize_shorter=50) == (50, 100, 3)
    assert shape_of(resize_longer=50) == (25, 50, 3)
    assert shape_of(size=(30, 40), mode="stretch") == (30, 40, 3)
    assert shape_of(size=(30, 40), mode="not_smaller") == (30, 60, 3)
    assert shape_of(resize_shorter=300, max_size=(400, 400)) == (200, 400, 3)


@pytest.mark.gpu
@pytest.mark.parametrize("interp", [types.INTERP_NN, types.INTERP_LINEAR, types.INTERP_CUBIC,
                                    types.INTERP_LANCZOS3, types.INTERP_TRIANGULAR,
                                    types.INTERP_GAUSSIAN])
def test_gpu_equals_cpu(interp):
    data = random_images(np.random.default_rng(sum(map(ord, interp.name))), 12)
    compare_gpu_cpu(lambda x, d: (fn.resize(x, size=(224, 200), interp_type=interp, device=d),
                                  fn.resize(x, resize_shorter=300, interp_type=interp, device=d),
                                  fn.resize(x, size=(64, 64), interp_type=interp, dtype=types.FLOAT,
                                            device=d)), data, atol=1)
