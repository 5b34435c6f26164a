"""decoders.image_crop: fixed windows decoded alone equal the same windows of the full decode."""

import pathlib

import numpy as np

from op_testing import run_on_bytes
from sluice import fn


def rnd(v):  # DALI rounds window coordinates half up
    return int(np.floor(v + 0.5))


def test_crop_equals_full_decode_then_crop(shared_data):
    paths = [shared_data / "photos" / n for n in ("pixabay_horse-197199_1280.jpg", "ijg_testorig.jpg")]
    blobs = [p.read_bytes() for p in paths]
    full, crop = run_on_bytes(blobs, lambda x: (
        fn.decoders.image(x),
        fn.decoders.image_crop(x, crop=(101, 77), crop_pos_x=0.3, crop_pos_y=0.8)))

    for f, c in zip(full, crop):
        h, w = f.shape[:2]
        y, x = rnd(0.8 * (h - 101)), rnd(0.3 * (w - 77))
        assert np.array_equal(c, f[y:y + 101, x:x + 77])


def test_crops_of_a_progressive_jpeg_with_missing_scans_equal_the_full_decode():
    # Found by fuzz_image: libjpeg smooths blocks whose coefficients are incomplete, reading
    # neighbouring blocks, and stops at a cropped region's edges like at the image's.
    root = pathlib.Path(__file__).resolve().parents[2] / "fuzz_corpus" / "fuzz_image"
    blob = (root / "crash_progressive_smoothing_crop.jpg").read_bytes()
    positions = [(x, y) for x in (0.0, 0.13, 0.5, 0.77, 1.0) for y in (0.0, 0.5, 1.0)]
    outs = run_on_bytes([blob], lambda x: tuple(
        [fn.decoders.image(x)] +
        [fn.decoders.image_crop(x, crop=(25, 14), crop_pos_x=px, crop_pos_y=py)
         for px, py in positions]))
    full = outs[0][0]
    assert full.shape[:2] == (75, 114)
    for (px, py), out in zip(positions, outs[1:]):
        y, x = int(np.floor(py * 50 + 0.5)), int(np.floor(px * 100 + 0.5))
        assert np.array_equal(out[0], full[y:y + 25, x:x + 14]), (px, py)


def test_per_sample_crop_from_an_argument_input(shared_data):
    # DALI's schema takes `crop` as a per-sample tensor: each sample gets its own window.
    paths = [shared_data / "photos" / n for n in ("pixabay_horse-197199_1280.jpg", "ijg_testorig.jpg")]
    blobs = [p.read_bytes() for p in paths]
    crops = [np.array(c, np.float32) for c in ((101, 77), (40, 130))]
    full, crop = run_on_bytes(blobs, lambda x: (
        fn.decoders.image(x),
        fn.decoders.image_crop(x, crop=fn.external_source(lambda: crops), crop_pos_x=0.3)))
    for f, c, (ch, cw) in zip(full, crop, crops):
        h, w = f.shape[:2]
        ch, cw = int(ch), int(cw)
        y, x = rnd(0.5 * (h - ch)), rnd(0.3 * (w - cw))
        assert np.array_equal(c, f[y:y + ch, x:x + cw])
