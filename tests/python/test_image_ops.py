"""Image operators against independent references: Pillow for decoding and resizing, numpy for
crop, flip and crop_mirror_normalize, torchvision's rule for random crop windows."""

import io
import math
import pathlib

import numpy as np
import pytest

import sluice
from sluice import fn, pipeline_def, types

PIL = pytest.importorskip("PIL.Image")


def files_in(folder, *patterns):
    out = []
    for p in patterns:
        out += sorted(folder.rglob(p))
    return out


def run_on_bytes(blobs, graph, batch_size=None, **kwargs):
    """Runs graph(encoded) over the given encoded files; returns numpy outputs per sample."""
    arrays = [np.frombuffer(b, np.uint8) for b in blobs]
    bs = batch_size or len(arrays)

    @pipeline_def(batch_size=bs, num_threads=2, device_id=kwargs.pop("device_id", None), seed=7)
    def p():
        return graph(fn.external_source(lambda: arrays))

    outs = p().run()
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    result = []
    for o in outs:
        o = o.as_cpu() if hasattr(o, "as_cpu") else o
        result.append([np.array(o.at(i)) for i in range(len(o))])
    return result


def pil_rgb(path_or_bytes):
    im = PIL.open(io.BytesIO(path_or_bytes) if isinstance(path_or_bytes, bytes) else path_or_bytes)
    from PIL import ImageOps

    return np.asarray(ImageOps.exif_transpose(im).convert("RGB"))


def decodable_jpegs(shared_data):
    out = []
    for p in files_in(shared_data / "photos", "*.jpg") + files_in(shared_data / "jpeg_variants", "*.jpg"):
        if any(k in p.name for k in ("12bit", "12-bit", "lossless", "sof3")):
            continue
        out.append(p)
    return out


def test_jpeg_decode_equals_pillow(shared_data):
    """Pillow decodes with the same libjpeg-turbo defaults (ISLOW, fancy upsampling)."""
    checked = 0
    for path in decodable_jpegs(shared_data):
        data = path.read_bytes()
        try:
            ref = pil_rgb(data)
        except Exception:
            continue  # Pillow cannot read it (e.g. arithmetic coding over its read block)
        (out,) = run_on_bytes([data], lambda x: fn.decoders.image(x))
        img = PIL.open(io.BytesIO(data))
        diff = np.abs(out[0].astype(int) - ref.astype(int))
        if img.mode in ("CMYK",):
            assert diff.max() <= 1, path.name  # Pillow's CMYK conversion, integer rounding
        else:
            assert diff.max() == 0, f"{path.name}: max diff {diff.max()}"
        checked += 1
    assert checked >= 50


def test_png_decode_equals_pillow(shared_data):
    checked = 0
    for path in files_in(shared_data / "png_variants" / "pngsuite", "*.png") + files_in(
            shared_data / "photos", "*.png"):
        data = path.read_bytes()
        try:
            im = PIL.open(io.BytesIO(data))
            im.load()
        except Exception:
            continue
        if im.mode in ("I", "I;16", "I;16B", "LA", "P", "PA", "RGBA", "L") and path.parent.name == "pngsuite":
            # 16-bit gray and palette/alpha conversions differ in Pillow's own rules; the C++
            # tests check those against libpng directly.
            continue
        ref = np.asarray(im.convert("RGB"))
        (out,) = run_on_bytes([data], lambda x: fn.decoders.image(x))
        assert np.array_equal(out[0], ref), path.name
        checked += 1
    assert checked >= 10


def test_grayscale_and_bgr_outputs(shared_data):
    data = (shared_data / "photos" / "pixabay_kitty-551554_1280.jpg").read_bytes()
    rgb, bgr, gray = run_on_bytes([data], lambda x: (
        fn.decoders.image(x), fn.decoders.image(x, output_type=types.BGR),
        fn.decoders.image(x, output_type=types.GRAY)))
    assert np.array_equal(rgb[0][..., ::-1], bgr[0])
    im = PIL.open(io.BytesIO(data))
    im.draft("L", im.size)  # Pillow asks libjpeg for its luma output too (not RGB -> L)
    assert gray[0].shape[-1] == 1 and np.array_equal(gray[0][..., 0], np.asarray(im))


def test_fused_crops_equal_full_decode_then_crop(shared_data):
    paths = [shared_data / "photos" / n for n in ("pixabay_horse-197199_1280.jpg", "ijg_testorig.jpg")]
    blobs = [p.read_bytes() for p in paths]
    full, crop, sl = run_on_bytes(blobs, lambda x: (
        fn.decoders.image(x),
        fn.decoders.image_crop(x, crop=(101, 77), crop_pos_x=0.3, crop_pos_y=0.8),
        fn.decoders.image_slice(x, rel_start=(0.25, 0.5), rel_shape=(0.5, 0.25))))
    def rnd(v):  # DALI rounds window coordinates half up
        return int(np.floor(v + 0.5))

    for f, c, s in zip(full, crop, sl):
        h, w = f.shape[:2]
        y, x = rnd(0.8 * (h - 101)), rnd(0.3 * (w - 77))
        assert np.array_equal(c, f[y:y + 101, x:x + 77])
        # A relative slice covers [round(start), round(start + shape)) on each axis.
        assert np.array_equal(s, f[rnd(0.5 * h):rnd(0.75 * h), rnd(0.25 * w):rnd(0.75 * w)])


def test_crops_of_a_progressive_jpeg_with_missing_scans_equal_the_full_decode():
    # Found by fuzz_image: libjpeg smooths blocks whose coefficients are incomplete, reading
    # neighbouring blocks, and stops at a cropped region's edges like at the image's.
    root = pathlib.Path(__file__).resolve().parents[1] / "fuzz_corpus" / "fuzz_image"
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


def test_image_random_crop_then_resize_equals_random_resized_crop(shared_data):
    blobs = [p.read_bytes() for p in files_in(shared_data / "photos", "*.jpg")[:6]]
    fused, unfused = run_on_bytes(blobs, lambda x: (
        fn.resize(fn.decoders.image_random_crop(x, seed=123), size=(64, 64)),
        fn.random_resized_crop(fn.decoders.image(x), size=(64, 64), seed=123)))
    for a, b in zip(fused, unfused):
        assert np.array_equal(a, b)


def torchvision_window(h, w, rng, area=(0.08, 1.0), ratio=(3 / 4, 4 / 3)):
    """torchvision's RandomResizedCrop.get_params, with numpy's generator."""
    for _ in range(10):
        target = h * w * rng.uniform(*area)
        aspect = math.exp(rng.uniform(math.log(ratio[0]), math.log(ratio[1])))
        cw = int(round(math.sqrt(target * aspect)))
        ch = int(round(math.sqrt(target / aspect)))
        if 0 < cw <= w and 0 < ch <= h:
            return ch, cw
    return min(h, w), min(h, w)


def test_random_crop_window_statistics_match_torchvision():
    h, w = 300, 400
    img = PIL.new("RGB", (w, h), (10, 20, 30))
    buf = io.BytesIO()
    img.save(buf, "PNG")
    blobs = [buf.getvalue()] * 256
    shapes = []

    @pipeline_def(batch_size=256, num_threads=2, device_id=None, seed=3)
    def p():
        return fn.peek_image_shape(fn.decoders.image_random_crop(fn.external_source(
            lambda: [np.frombuffer(b, np.uint8) for b in blobs])) * 0 + 0)

    # Shapes of the crops come from the decoder's output.
    @pipeline_def(batch_size=256, num_threads=2, device_id=None, seed=3)
    def crops():
        return fn.decoders.image_random_crop(fn.external_source(
            lambda: [np.frombuffer(b, np.uint8) for b in blobs]))

    pipe = crops()
    for _ in range(8):
        out = pipe.run()[0]
        shapes += [s[:2] for s in out.shape()]
    ours = np.array(shapes, float)
    rng = np.random.default_rng(0)
    ref = np.array([torchvision_window(h, w, rng) for _ in range(len(ours))], float)
    for stat in (lambda s: s[:, 0] * s[:, 1] / (h * w), lambda s: np.log(s[:, 1] / s[:, 0])):
        a, b = stat(ours), stat(ref)
        assert abs(a.mean() - b.mean()) < 0.03
        for q in (0.1, 0.5, 0.9):
            assert abs(np.quantile(a, q) - np.quantile(b, q)) < 0.05


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


def cmn_reference(img, crop, pos, mirror, mean, std, dtype, layout, scale=1.0, shift=0.0):
    h, w = img.shape[:2]
    ch, cw = crop
    y = int(np.float32(pos[0]) * (h - ch) + 0.5)
    x = int(np.float32(pos[1]) * (w - cw) + 0.5)
    out = img[y:y + ch, x:x + cw].astype(np.float32)
    if mirror:
        out = out[:, ::-1]
    out = (out - np.float32(mean)) * (np.float32(scale) / np.float32(std)) + np.float32(shift)
    if layout == "CHW":
        out = out.transpose(2, 0, 1)
    return out.astype(dtype)


@pytest.mark.parametrize("dtype,np_dtype", [(types.FLOAT, np.float32), (types.FLOAT16, np.float16)])
@pytest.mark.parametrize("layout", ["CHW", "HWC"])
def test_crop_mirror_normalize_equals_numpy(dtype, np_dtype, layout):
    rng = np.random.default_rng(1)
    imgs = [rng.integers(1, 256, (rng.integers(40, 80), rng.integers(40, 80), 3), np.uint8)
            for _ in range(6)]
    mean = [0.485 * 255, 0.456 * 255, 0.406 * 255]
    std = [0.229 * 255, 0.224 * 255, 0.225 * 255]

    @pipeline_def(batch_size=6, num_threads=2, device_id=None, seed=11)
    def p():
        x = fn.external_source(lambda: imgs, layout="HWC")
        m = fn.random.coin_flip()
        return fn.crop_mirror_normalize(x, crop=(32, 24), crop_pos_x=0.25, crop_pos_y=0.75,
                                        mirror=m, mean=mean, std=std, dtype=dtype,
                                        output_layout=layout), m

    out, mirror = p().run()
    for i, img in enumerate(imgs):
        ref = cmn_reference(img, (32, 24), (0.75, 0.25), int(mirror.at(i)), mean, std, np_dtype, layout)
        np.testing.assert_allclose(np.asarray(out.at(i)).astype(np.float32), ref.astype(np.float32),
                                   rtol=1e-6 if np_dtype == np.float32 else 1e-3, atol=1e-6)


def test_crop_and_flip_equal_numpy():
    rng = np.random.default_rng(2)
    imgs = [rng.integers(0, 256, (30 + i, 20 + 2 * i, 3), np.uint8) for i in range(4)]

    @pipeline_def(batch_size=4, num_threads=2, device_id=None)
    def p():
        x = fn.external_source(lambda: imgs, layout="HWC")
        return (fn.crop(x, crop=(10, 12), crop_pos_x=1.0, crop_pos_y=0.0), fn.flip(x, vertical=1),
                fn.crop(x, crop=(40, 40), out_of_bounds_policy="pad", fill_values=[1, 2, 3]))

    crop, flip, pad = p().run()
    for i, img in enumerate(imgs):
        h, w = img.shape[:2]
        assert np.array_equal(crop.at(i), img[0:10, w - 12:w])
        assert np.array_equal(flip.at(i), img[::-1, ::-1])
        padded = np.asarray(pad.at(i))
        assert padded.shape == (40, 40, 3)
        def roundf(v):  # C's roundf: halves away from zero (DALI's crop anchor)
            return int(math.copysign(math.floor(abs(v) + 0.5), v))

        y0, x0 = -roundf(0.5 * (h - 40)), -roundf(0.5 * (w - 40))
        assert np.array_equal(padded[y0:y0 + h, x0:x0 + w], img)
        assert padded[0, 0].tolist() == [1, 2, 3]


def test_every_bad_file_decodes_or_names_itself(shared_data):
    bad = [p for p in (shared_data / "bad").rglob("*") if p.is_file() and p.suffix != ".md"]
    assert len(bad) >= 50
    outcomes = {}
    for path in bad:
        @pipeline_def(batch_size=1, num_threads=1, device_id=None)
        def p():
            data, _ = fn.readers.file(files=[str(path)], allow_paths_outside_root=True)
            return fn.decoders.image(data, name="Decoder")

        try:
            out = p().run()[0]
            outcomes[path.name] = "decoded"
            assert len(out.shape()[0]) == 3
        except sluice.DecodeError as e:
            assert str(path) in str(e) and "decoders.image" in str(e) and "Decoder" in str(e)
            outcomes[path.name] = "error"
    assert "error" in outcomes.values()


def test_on_error_skip_replaces_bad_samples_and_counts_them(shared_data):
    good = sorted((shared_data / "photos").glob("*.jpg"))[:3]
    bad = shared_data / "bad" / "generated" / "truncated_baseline_at_50pct.jpg"
    files = [str(good[0]), str(bad), str(good[1]), str(bad), str(good[2])]

    @pipeline_def(batch_size=5, num_threads=2, device_id=None)
    def p():
        data, label = fn.readers.file(files=files, labels=[0, 1, 2, 3, 4],
                                      allow_paths_outside_root=True)
        return fn.decoders.image(data, on_error="skip", name="Decoder"), label

    pipe = p()
    images, labels = pipe.run()
    assert np.asarray(labels)[:, 0].tolist() == [0, 2, 2, 4, 4]  # labels follow the replacement
    assert np.array_equal(images.at(1), images.at(2))
    assert images.source_info()[1] == str(good[1])
    assert pipe.executor_statistics()["Decoder"]["skipped_samples"] == 2
