"""TIFF, WebP and JPEG 2000 through decoders.image and its crop variants: against Pillow and
NVIDIA DALI 2.4 (CPU) on files Pillow writes from real photos (small synthetic images without
../shared/data), formats found from the bytes (mis-named files), and bad files."""

import io
import struct

import numpy as np
import pytest

import sluice
from dali_reference import run_dali, run_sluice
from op_testing import run_on_bytes
from sluice import fn, pipeline_def, types

PIL = pytest.importorskip("PIL.Image")


def _tiff(a, tile=None):
    """A minimal uncompressed little-endian TIFF (chunky; strips of 5 rows, or tiles): Pillow
    writes neither tiles nor 16-bit RGB."""
    a = a if a.ndim == 3 else a[..., None]
    h, w, c = a.shape
    chunks = []
    if tile:
        for ty in range(0, h, tile):
            for tx in range(0, w, tile):
                t = np.zeros((tile, tile, c), a.dtype)
                blk = a[ty:ty + tile, tx:tx + tile]
                t[:blk.shape[0], :blk.shape[1]] = blk
                chunks.append(t.astype(a.dtype.newbyteorder("<")).tobytes())
    else:
        chunks = [a[y:y + 5].astype(a.dtype.newbyteorder("<")).tobytes() for y in range(0, h, 5)]
    out = bytearray(b"II*\0\0\0\0\0")
    offsets = []
    for ch in chunks:
        offsets.append(len(out))
        out += ch
    tags = {256: (4, [w]), 257: (4, [h]), 258: (3, [a.dtype.itemsize * 8] * c), 259: (3, [1]),
            262: (3, [1 if c <= 2 else 2]), 277: (3, [c]), 284: (3, [1])}
    if c in (2, 4):
        tags[338] = (3, [2])  # unassociated alpha
    if tile:
        tags.update({322: (3, [tile]), 323: (3, [tile]), 324: (4, offsets),
                     325: (4, [len(x) for x in chunks])})
    else:
        tags.update({273: (4, offsets), 278: (4, [5]), 279: (4, [len(x) for x in chunks])})
    ifd = len(out)
    extra = bytearray()
    entries = b""
    base = ifd + 2 + 12 * len(tags) + 4
    for tag in sorted(tags):
        typ, vals = tags[tag]
        payload = struct.pack("<" + ("H" if typ == 3 else "I") * len(vals), *vals)
        if len(payload) <= 4:
            entries += struct.pack("<HHI", tag, typ, len(vals)) + payload.ljust(4, b"\0")
        else:
            entries += struct.pack("<HHII", tag, typ, len(vals), base + len(extra))
            extra += payload
    out[4:8] = struct.pack("<I", ifd)
    return bytes(out + struct.pack("<H", len(tags)) + entries + b"\0\0\0\0" + extra)


def _pil(im, fmt, **kw):
    b = io.BytesIO()
    im.save(b, fmt, **kw)
    return b.getvalue()


@pytest.fixture(scope="module")
def photos(request):
    """Two RGB photos (shrunk, odd sizes), or smooth synthetic images without the data."""
    try:
        data = request.getfixturevalue("shared_data")
        paths = sorted((data / "photos").glob("pixabay_*.jpg"))[:2]
        return [np.asarray(PIL.open(p).convert("RGB").resize((97, 61 + 4 * i)))
                for i, p in enumerate(paths)]
    except pytest.skip.Exception:
        y, x = np.mgrid[0:61, 0:97]
        return [np.stack([x * 2, y * 4, (x + y) % 256], -1).astype(np.uint8),
                np.stack([255 - x * 2, (x * y) % 256, y * 3], -1).astype(np.uint8)]


def _files(photos):
    """name -> encoded bytes: every kind of file each decoder must handle."""
    out = {}
    for k, a in enumerate(photos):
        im = PIL.fromarray(a)
        rgba = im.convert("RGBA")
        rgba.putalpha(PIL.fromarray((np.arange(a.shape[1]) * 2 % 256).astype(np.uint8)[None]
                                    .repeat(a.shape[0], 0)))
        g16 = a[..., 1].astype(np.uint16) * 257 + np.arange(a.shape[1], dtype=np.uint16)
        out.update({
            f"{k}_rgb.tif": _pil(im, "TIFF"),
            f"{k}_lzw.tif": _pil(im, "TIFF", compression="tiff_lzw"),
            f"{k}_deflate.tif": _pil(im, "TIFF", compression="tiff_adobe_deflate"),
            f"{k}_jpeg.tif": _pil(im, "TIFF", compression="jpeg"),
            f"{k}_gray.tif": _pil(im.convert("L"), "TIFF"),
            f"{k}_palette.tif": _pil(im.convert("P"), "TIFF"),
            f"{k}_rgba.tif": _pil(rgba, "TIFF"),
            f"{k}_pages.tif": _pil(im, "TIFF", save_all=True, append_images=[im.rotate(90)]),
            f"{k}_tiled.tif": _tiff(a, tile=16),
            f"{k}_gray16.tif": _tiff(g16),
            f"{k}_rgb16_tiled.tif": _tiff(a.astype(np.uint16) * 257 + 3, tile=32),
            f"{k}_lossy.webp": _pil(im, "WEBP", quality=80),
            f"{k}_lossless.webp": _pil(im, "WEBP", lossless=True),
            f"{k}_alpha.webp": _pil(rgba, "WEBP", lossless=True),
            f"{k}_alpha_lossy.webp": _pil(rgba, "WEBP", quality=80),
            f"{k}_rgb.jp2": _pil(im, "JPEG2000"),
            f"{k}_rgb.j2k": _pil(im, "JPEG2000"),
            f"{k}_lossy.jp2": _pil(im, "JPEG2000", quality_mode="rates", quality_layers=[20]),
            f"{k}_gray.jp2": _pil(im.convert("L"), "JPEG2000"),
            f"{k}_rgba.jp2": _pil(rgba, "JPEG2000"),
            f"{k}_gray16.jp2": _pil(PIL.fromarray(g16, "I;16"), "JPEG2000"),
        })
    return out


@pytest.fixture(scope="module")
def files(photos):
    out = _files(photos)
    for ext, name in [("tif", "0_rgb.tif"), ("webp", "0_lossy.webp"), ("jp2", "0_rgb.jp2")]:
        try:
            run_on_bytes([out[name]], lambda x: fn.decoders.image(x))
        except sluice.DecodeError as e:
            if "is not available" in str(e):
                out = {k: v for k, v in out.items() if not k.endswith(ext) and
                       not (ext == "jp2" and k.endswith(".j2k"))}
    if not out:
        pytest.skip("Sluice was built without libtiff, libwebp and OpenJPEG")
    return out


def _sixteen_bit(name):
    return "16" in name


def test_rgb_equals_pillow(files):
    """8-bit files: decoders.image's RGB is Pillow's convert('RGB') bit for bit (the first page
    of a multi-page TIFF; alpha dropped)."""
    for name, data in files.items():
        if _sixteen_bit(name):
            continue
        (out,) = run_on_bytes([data], lambda x: fn.decoders.image(x))
        ref = np.asarray(PIL.open(io.BytesIO(data)).convert("RGB"))
        np.testing.assert_array_equal(out[0], ref, err_msg=name)


def test_sixteen_bit_keeps_its_samples(files, photos):
    for name, data in files.items():
        if not _sixteen_bit(name):
            continue
        (any16, rgb8) = run_on_bytes([data], lambda x: (
            fn.decoders.image(x, output_type=types.ANY_DATA, dtype=types.UINT16),
            fn.decoders.image(x)))
        a = photos[int(name[0])]
        if "gray16" in name:
            ref = a[..., 1].astype(np.uint16) * 257 + np.arange(a.shape[1], dtype=np.uint16)
            ref = ref[..., None]
        else:
            ref = a.astype(np.uint16) * 257 + 3
        np.testing.assert_array_equal(any16[0], ref, err_msg=name)
        high_byte = np.broadcast_to(ref >> 8, rgb8[0].shape).astype(np.uint8)
        np.testing.assert_array_equal(rgb8[0], high_byte, err_msg=name)


def _all_outputs(fn, types, x):
    return (fn.decoders.image(x, output_type=types.RGB),
            fn.decoders.image(x, output_type=types.BGR),
            fn.decoders.image(x, output_type=types.ANY_DATA),
            fn.decoders.image(x, output_type=types.RGB, dtype=types.UINT16),
            fn.decoders.image(x, output_type=types.ANY_DATA, dtype=types.UINT16),
            fn.decoders.image(x, output_type=types.GRAY),
            fn.decoders.image(x, dtype=types.FLOAT),
            fn.peek_image_shape(x))


def test_equals_dali(files, tmp_path):
    """RGB, BGR and ANY_DATA, 8 and 16 bits, bit for bit with DALI 2.4's CPU decoder, FLOAT to
    1e-6; GRAY within 1 (DALI's grey formula is mostly OpenCV's; Sluice's is Pillow's for every
    format). 16-bit samples narrowed to UINT8 differ by the rounding (COMPATIBILITY.md)."""
    names = sorted(files)
    batch = [np.frombuffer(files[n], np.uint8) for n in names]
    ours = run_sluice(_all_outputs, [batch])
    ref = run_dali(_all_outputs, [batch], tmp_path)
    kinds = ["RGB", "BGR", "ANY_DATA", "RGB16", "ANY16", "GRAY", "FLOAT", "shape"]
    assert len(ours) == len(ref) == len(kinds) and len(ref[0]) == len(names)
    for kind, a, b in zip(kinds, ours, ref):
        for name, x, y in zip(names, a, b):
            assert x.shape == y.shape and x.dtype == y.dtype, (kind, name, x.shape, y.shape)
            narrowed = _sixteen_bit(name) or "palette" in name  # 16-bit samples or colour map
            if kind == "FLOAT":  # at the file's precision: v / 255 or v / 65535
                np.testing.assert_allclose(x, y, rtol=0, atol=1e-6, err_msg=name)
            elif kind == "GRAY" or (narrowed and kind in ("RGB", "BGR", "ANY_DATA")):
                assert np.abs(x.astype(int) - y.astype(int)).max() <= 1, (kind, name)
            else:
                np.testing.assert_array_equal(x, y, err_msg=f"{kind} {name}")


def _round(v):
    return int(np.floor(v + 0.5))


def test_crop_slice_and_random_crop_are_windows_of_the_full_image(files):
    for name, data in files.items():
        full, crop, sl, rc = run_on_bytes([data], lambda x: (
            fn.decoders.image(x),
            fn.decoders.image_crop(x, crop=(21, 30), crop_pos_x=0.3, crop_pos_y=0.7),
            fn.decoders.image_slice(x, rel_start=(0.25, 0.5), rel_shape=(0.5, 0.25)),
            fn.decoders.image_random_crop(x, seed=3)))
        f = full[0]
        h, w = f.shape[:2]
        y0, x0 = _round(0.7 * (h - 21)), _round(0.3 * (w - 30))
        np.testing.assert_array_equal(crop[0], f[y0:y0 + 21, x0:x0 + 30], err_msg=name)
        np.testing.assert_array_equal(
            sl[0], f[_round(0.5 * h):_round(0.75 * h), _round(0.25 * w):_round(0.75 * w)],
            err_msg=name)
        r = rc[0]
        hits = [(y, x) for y in range(h - r.shape[0] + 1) for x in range(w - r.shape[1] + 1)
                if np.array_equal(f[y:y + r.shape[0], x:x + r.shape[1]], r)]
        assert hits, name


def test_misnamed_files_are_decoded_by_their_bytes(files, tmp_path):
    wrong = {"0_lzw.tif": "a.jpg", "0_lossless.webp": "b.png", "0_rgb.jp2": "c.tif",
             "0_rgb.j2k": "d.webp", "0_gray.tif": "e.bmp"}
    wrong = {k: v for k, v in wrong.items() if k in files}
    paths = []
    for src, dst in wrong.items():
        (tmp_path / dst).write_bytes(files[src])
        paths.append(str(tmp_path / dst))

    @pipeline_def(batch_size=len(paths), num_threads=2, device_id=None)
    def p():
        data, _ = fn.readers.file(files=paths)
        return fn.decoders.image(data)

    (out,) = p().run()
    for i, src in enumerate(wrong):
        ref = np.asarray(PIL.open(io.BytesIO(files[src])).convert("RGB"))
        np.testing.assert_array_equal(np.array(out.at(i)), ref, err_msg=src)


def test_truncated_and_corrupt_files_name_themselves_or_are_skipped(files, tmp_path):
    bad = []
    for name, data in sorted(files.items()):
        if not name.startswith("0_") or name.endswith("_pages.tif"):
            continue
        for cut in (len(data) // 2, 40):
            (tmp_path / f"cut{cut}_{name}").write_bytes(data[:cut])
            bad.append(tmp_path / f"cut{cut}_{name}")
        junk = bytearray(data)
        junk[len(junk) // 3:len(junk) // 3 + 64] = bytes(range(64))
        (tmp_path / f"junk_{name}").write_bytes(bytes(junk))
        bad.append(tmp_path / f"junk_{name}")
    errors = 0
    for path in bad:
        @pipeline_def(batch_size=1, num_threads=1, device_id=None)
        def p():
            data, _ = fn.readers.file(files=[str(path)])
            return fn.decoders.image(data, name="Decoder")

        try:
            p().run()
        except sluice.DecodeError as e:
            assert str(path) in str(e) and "Decoder" in str(e), str(e)
            errors += 1
    assert errors >= len(bad) // 2

    good = [next(iter(files))]
    (tmp_path / "good").write_bytes(files[good[0]])
    cut = [p for p in bad if p.name.startswith("cut40_")][:2]
    paths = [str(tmp_path / "good"), str(cut[0]), str(tmp_path / "good"), str(cut[1])]

    # Not pipelined: the statistics then count only the one iteration run (a prefetched second
    # one would skip the same two files again).
    @pipeline_def(batch_size=4, num_threads=2, device_id=None, exec_pipelined=False,
                  exec_async=False)
    def q():
        data, _ = fn.readers.file(files=paths)
        return fn.decoders.image(data, on_error="skip", name="Decoder")

    pipe = q()
    pipe.run()
    assert pipe.executor_statistics()["Decoder"]["skipped_samples"] == 2


@pytest.mark.gpu
def test_mixed_decoder_uploads_the_cpu_codecs_output(files):
    names = sorted(files)
    blobs = [files[n] for n in names]
    (cpu,) = run_on_bytes(blobs, lambda x: fn.decoders.image(x))
    (gpu,) = run_on_bytes(blobs, lambda x: fn.decoders.image(x, device="mixed"), device_id=0)
    for n, a, b in zip(names, cpu, gpu):
        np.testing.assert_array_equal(a, b, err_msg=n)
