"""decoders.image: the CPU decoder against Pillow (JPEG, PNG, colour spaces), its errors on the bad
files and on_error="skip"; the mixed decoder (GPU) against the CPU decoder on every JPEG variant
and the bad files."""

import io
import json
import os

import numpy as np
import pytest

import sluice
from op_testing import decodable_jpegs, decode_both, files_in, jpegs, pil_rgb, run_on_bytes
from sluice import fn, pipeline_def, types

PIL = pytest.importorskip("PIL.Image")


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

    # Not pipelined: the statistics count only the one iteration run.
    @pipeline_def(batch_size=5, num_threads=2, device_id=None, exec_pipelined=False,
                  exec_async=False)
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


def report(name, rows):
    """Writes per-image statistics next to the GPU-check logs."""
    out = os.environ.get("OUT")
    if out:
        with open(os.path.join(out, f"{name}.json"), "w") as f:
            json.dump(rows, f, indent=1)


@pytest.mark.gpu
@pytest.mark.parametrize("fancy", [False, True])
def test_mixed_decoder_decodes_every_variant_close_to_the_cpu_decoder(shared_data, fancy):
    rows = []
    for path, (cpu, gpu) in zip(jpegs(shared_data), decode_both(jpegs(shared_data),
                                                                  jpeg_fancy_upsampling=fancy)):
        name = str(path.relative_to(shared_data))
        if isinstance(cpu, Exception):
            assert isinstance(gpu, Exception), f"{name}: CPU rejects it but the GPU decoded it"
            rows.append({"file": name, "result": "error on both"})
            continue
        assert not isinstance(gpu, Exception), f"{name}: {gpu}"
        assert gpu.shape == cpu.shape, name
        d = np.abs(gpu.astype(int) - cpu.astype(int))
        rows.append({"file": name, "mean_abs_diff": float(d.mean()), "max_abs_diff": int(d.max())})
        # IDCT and chroma-upsampling differences between nvJPEG and libjpeg-turbo (tiny images
        # are mostly edge, where the two upsamplers differ most).
        if min(cpu.shape[:2]) >= 16:
            assert d.mean() < 2.5, f"{name}: mean {d.mean():.3f}"
    report(f"mixed_vs_cpu_decode_{'fancy' if fancy else 'plain'}", rows)
    means = [r["mean_abs_diff"] for r in rows if "mean_abs_diff" in r]
    assert np.median(means) < (0.5 if fancy else 1.0)
    assert len(rows) >= 60


@pytest.mark.gpu
def test_cpu_and_mixed_decoders_agree_on_bad_files(shared_data):
    bad = sorted(p for p in (shared_data / "bad").rglob("*") if p.is_file() and p.suffix != ".md")
    rows, disagree = [], []
    for path, (cpu, gpu) in zip(bad, decode_both(bad)):
        verdict = [isinstance(x, Exception) for x in (cpu, gpu)]
        rows.append({"file": str(path.relative_to(shared_data)), "cpu_error": verdict[0],
                     "gpu_error": verdict[1], "gpu_message": str(gpu)[:300] if verdict[1] else ""})
        if verdict[0] != verdict[1]:
            disagree.append(path.name)
        if verdict[1]:
            assert "decoders.image" in str(gpu) and str(path.name) not in "", path
    report("bad_files_cpu_vs_mixed", rows)
    # Entropy-coded data that is corrupt yet structurally intact: libjpeg notices while decoding
    # the Huffman codes, the hardware engines do not (see docs/RELIABILITY.md).
    assert set(disagree) <= {"corrupt_huffman_data_baseline.jpg"}, disagree


@pytest.mark.gpu
def test_rest_decoder_cpu_names_a_bad_file(shared_data):
    photos = sorted((shared_data / "photos").glob("*.jpg"))
    bad = shared_data / "bad" / "generated" / "corrupt_huffman_data_baseline.jpg"
    files = [str(p.relative_to(shared_data)) for p in photos[:6] + [bad]]

    @pipeline_def(batch_size=len(files), num_threads=4, device_id=0, seed=9)
    def p():
        jpegs, _ = fn.readers.file(file_root=str(shared_data), files=files)
        return fn.decoders.image(jpegs, device="mixed", rest_decoder="cpu", hw_decoder_load=0.0)

    with pytest.raises(sluice.DecodeError, match="corrupt_huffman_data_baseline.jpg"):
        p().run()
