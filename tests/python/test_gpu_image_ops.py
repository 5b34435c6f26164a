"""GPU image operators against their CPU references (GPU machine only): the mixed nvJPEG decoder
on every JPEG variant and the bad files, and resize / crop / flip / crop_mirror_normalize /
random_resized_crop on fresh random data and real photos."""

import json
import os
import time

import numpy as np
import pytest

import sluice
from sluice import fn, pipeline_def, types

pytestmark = pytest.mark.gpu


def jpegs(shared_data):
    return sorted(p for p in (shared_data / "jpeg_variants").rglob("*.jpg")) + sorted(
        (shared_data / "photos").glob("*.jpg"))


def decode_both(paths, **kwargs):
    """(cpu, mixed) decodes of each file, or the exception each raised."""
    out = []
    for path in paths:
        arr = np.frombuffer(path.read_bytes(), np.uint8)
        res = []
        for device in ("cpu", "mixed"):
            @pipeline_def(batch_size=1, num_threads=2, device_id=0, seed=1)
            def p():
                return fn.decoders.image(fn.external_source(lambda: [arr]), device=device, **kwargs)

            try:
                o = p().run()[0]
                o = o.as_cpu() if hasattr(o, "as_cpu") else o
                res.append(np.array(o.at(0)))
            except sluice.DecodeError as e:
                res.append(e)
        out.append(res)
    return out


def report(name, rows):
    """Writes per-image statistics next to the GPU-check logs."""
    out = os.environ.get("OUT")
    if out:
        with open(os.path.join(out, f"{name}.json"), "w") as f:
            json.dump(rows, f, indent=1)


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


def test_mixed_random_crop_cuts_the_cpu_windows(shared_data):
    paths = sorted((shared_data / "photos").glob("*.jpg"))
    arrays = [np.frombuffer(p.read_bytes(), np.uint8) for p in paths]

    def pipe(device):
        @pipeline_def(batch_size=len(arrays), num_threads=4, device_id=0, seed=9)
        def p():
            return fn.decoders.image_random_crop(fn.external_source(lambda: arrays), device=device,
                                                 seed=5)
        return p()

    cpu, gpu = pipe("cpu").run()[0], pipe("mixed").run()[0]
    assert cpu.shape() == gpu.shape()


def cpu_decodable(paths):
    """The files the CPU decoder takes alone."""
    ok = [p for p, (cpu, _) in zip(paths, decode_both(paths)) if not isinstance(cpu, Exception)]
    assert len(ok) >= 40
    return ok


def run_until_hardware_ready(p, *beside):
    """Runs `p` (and the pipelines `beside` it) until its mixed operator "Decoder" has set up
    the hardware decoder in the background, for at most 30 s."""
    deadline = time.monotonic() + 30
    while ("being set up" in p.executor_statistics()["Decoder"]["hardware_status"]
           and time.monotonic() < deadline):
        for q in beside:
            q.run()
        p.run()


@pytest.mark.parametrize("load", [0.0, 0.5, None])
def test_rest_decoder_cpu_gives_the_cpu_decoders_pixels(shared_data, load):
    """rest_decoder="cpu": what the hardware does not take goes through the CPU codec, so it
    equals the CPU decoder's output exactly (crop windows, EXIF orientation and all); with no
    hardware share that is every image. The hardware's images differ by IDCT rounding only.
    Without hw_decoder_load the share starts at 0.7 and moves once the hardware decoder has run
    (Note [Balancing the hardware share])."""
    paths = cpu_decodable(jpegs(shared_data))
    arrays = [np.frombuffer(p.read_bytes(), np.uint8) for p in paths]

    def pipe(device, **kw):
        @pipeline_def(batch_size=len(arrays), num_threads=4, device_id=0, seed=9)
        def p():
            return fn.decoders.image_random_crop(fn.external_source(lambda: arrays),
                                                 device=device, seed=5, name="Decoder", **kw)
        return p()

    balance = load is None
    c = pipe("cpu")
    p = pipe("mixed", rest_decoder="cpu", **({} if balance else {"hw_decoder_load": load}))
    if balance:  # until the hardware decoder is set up (in the background), nothing to balance
        run_until_hardware_ready(p, c)
    exact = total = 0
    for _ in range(4):  # both pinned pages; at 0.5 the hardware is ready after the first batches
        cpu, gpu = c.run()[0], p.run()[0].as_cpu()
        for i in range(len(arrays)):
            a, b = np.asarray(gpu.at(i)), np.asarray(cpu.at(i))
            assert a.shape == b.shape, paths[i]
            d = np.abs(a.astype(int) - b.astype(int))
            exact += int(d.max(initial=0) == 0)
            total += 1
            tiny = min(b.shape[:2]) < 16  # mostly edge, where the upsamplers differ most
            assert d.max(initial=0) == 0 or (load != 0 and (tiny or d.mean() < 2.5)), paths[i]
    stats = p.executor_statistics()["Decoder"]
    assert stats["hybrid_decoded"] == stats["gpu_hybrid_decoded"] == 0
    if load == 0:
        assert stats["cpu_decoded"] >= total and stats["hardware_decoded"] == 0
    elif not balance:  # at most half plus one engine's cores goes to the hardware
        assert exact >= 0.4 * total and stats["cpu_decoded"] > 0
    else:
        assert stats["hardware_decoded"] > 0 and stats["cpu_decoded"] > 0
        assert 0.05 <= stats["hardware_load"] <= 0.95 and abs(stats["hardware_load"] - 0.7) > 1e-3


@pytest.mark.parametrize("threads", [4, 8])
def test_rest_decoder_auto(shared_data, threads):
    """rest_decoder="auto", the default: from 8 threads the CPU codec decodes what the hardware
    decoder does not take, below that nvJPEG's hybrid path. With the hybrid path and no
    hw_decoder_load the share stays 0.7: the hybrid tasks end before their GPU phases do, so
    their time cannot steer it (Note [Balancing the hardware share])."""
    arrays = [np.frombuffer(p.read_bytes(), np.uint8) for p in cpu_decodable(jpegs(shared_data))]

    @pipeline_def(batch_size=len(arrays), num_threads=threads, device_id=0, seed=9)
    def pipe():
        return fn.decoders.image_random_crop(fn.external_source(lambda: arrays), device="mixed",
                                             seed=5, name="Decoder")

    p = pipe()
    run_until_hardware_ready(p)
    for _ in range(4):
        p.run()
    stats = p.executor_statistics()["Decoder"]
    assert stats["hardware_decoded"] > 0
    if threads < 8:
        assert stats["hybrid_decoded"] > 0 and stats["cpu_decoded"] == stats["cpu_fallback"]
        assert stats["hardware_load"] == pytest.approx(0.7)
    else:
        assert stats["hybrid_decoded"] == stats["gpu_hybrid_decoded"] == 0
        assert stats["cpu_decoded"] > stats["cpu_fallback"]


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


def test_mixed_stage_runs_ahead_of_the_gpu_stage_without_mixing_batches(shared_data):
    """The mixed decoder has its own thread, a batch ahead of the GPU operators, and its outputs
    alternate between two buffers (Note [Mixed thread]): over batches of varying crop sizes
    across an epoch boundary, each batch equals the CPU pipeline's for the same iteration."""
    files = [str(p.relative_to(shared_data)) for p in cpu_decodable(jpegs(shared_data))]
    mean, std = [0.485 * 255, 0.456 * 255, 0.406 * 255], [0.229 * 255, 0.224 * 255, 0.225 * 255]

    def pipe(device):
        @pipeline_def(batch_size=8, num_threads=4, device_id=0, seed=3, prefetch_queue_depth=3)
        def p():
            enc, labels = fn.readers.file(file_root=str(shared_data), files=files,
                                          random_shuffle=True, seed=7)
            mixed = dict(device="mixed", rest_decoder="cpu", hw_decoder_load=0.0)
            img = fn.decoders.image_random_crop(enc, seed=5, **(mixed if device == "gpu" else {}))
            small = fn.resize(img, size=(64, 48), device=device)
            out = fn.crop_mirror_normalize(small, mean=mean, std=std, device=device,
                                           mirror=fn.random.coin_flip(seed=1))
            return small, out, labels
        return p()

    cpu, gpu = pipe("cpu"), pipe("gpu")
    for it in range(len(files) // 8 + 3):
        c, g = cpu.run(), gpu.run()
        np.testing.assert_array_equal(np.asarray(c[2]), np.asarray(g[2]))
        for k, atol in ((0, 1), (1, 1.01 / (0.224 * 255))):  # resize within 1 grey level
            a, b = np.asarray(c[k]).astype(np.float32), np.asarray(g[k].as_cpu()).astype(np.float32)
            assert np.abs(a - b).max() <= atol, f"iteration {it}, output {k}"


def random_images(rng, n, channels=3):
    return [rng.integers(1, 256, (int(rng.integers(20, 400)), int(rng.integers(20, 400)), channels),
                         np.uint8) for _ in range(n)]


def compare_gpu_cpu(graph, data, atol=0):
    outs = {}
    for device in ("cpu", "gpu"):
        @pipeline_def(batch_size=len(data), num_threads=3, device_id=0, seed=21)
        def p():
            x = fn.external_source(lambda: data, layout="HWC")
            return graph(x if device == "cpu" else x.gpu(), device)

        res = p().run()
        outs[device] = [r.as_cpu() if hasattr(r, "as_cpu") else r for r in res]
    for c, g in zip(outs["cpu"], outs["gpu"]):
        assert c.shape() == g.shape()
        for i in range(len(c)):
            a, b = np.asarray(c.at(i)).astype(np.float64), np.asarray(g.at(i)).astype(np.float64)
            assert np.abs(a - b).max(initial=0) <= atol, f"sample {i}: max {np.abs(a - b).max()}"


@pytest.mark.parametrize("interp", [types.INTERP_NN, types.INTERP_LINEAR, types.INTERP_CUBIC,
                                    types.INTERP_LANCZOS3, types.INTERP_TRIANGULAR,
                                    types.INTERP_GAUSSIAN])
def test_gpu_resize_equals_cpu(interp):
    data = random_images(np.random.default_rng(sum(map(ord, interp.value))), 12)
    compare_gpu_cpu(lambda x, d: (fn.resize(x, size=(224, 200), interp_type=interp, device=d),
                                  fn.resize(x, resize_shorter=300, interp_type=interp, device=d),
                                  fn.resize(x, size=(64, 64), interp_type=interp, dtype=types.FLOAT,
                                            device=d)), data, atol=1)


def test_gpu_crop_flip_cmn_rrc_equal_cpu():
    data = random_images(np.random.default_rng(3), 16)
    mean = [0.485 * 255, 0.456 * 255, 0.406 * 255]
    std = [0.229 * 255, 0.224 * 255, 0.225 * 255]

    def graph(x, d):
        coin = fn.random.coin_flip(seed=4)
        return (fn.crop(x, crop=(17, 19), crop_pos_x=0.2, crop_pos_y=0.9, device=d),
                fn.flip(x, horizontal=coin, vertical=1, device=d),
                fn.crop_mirror_normalize(x, crop=(16, 16), mirror=coin, mean=mean, std=std,
                                         dtype=types.FLOAT16, device=d),
                fn.crop_mirror_normalize(x, mean=mean, std=std, output_layout="HWC", device=d),
                fn.random_resized_crop(x, size=(48, 40), seed=6, device=d))

    compare_gpu_cpu(graph, data, atol=0)


def test_gpu_training_pipeline_on_real_photos_equals_cpu_within_decode_differences(shared_data):
    paths = sorted((shared_data / "photos").glob("*.jpg"))
    arrays = [np.frombuffer(p.read_bytes(), np.uint8) for p in paths]
    mean = [0.485 * 255, 0.456 * 255, 0.406 * 255]
    std = [0.229 * 255, 0.224 * 255, 0.225 * 255]

    def pipe(decode_device, device):
        @pipeline_def(batch_size=len(arrays), num_threads=4, device_id=0, seed=12)
        def p():
            img = fn.decoders.image(fn.external_source(lambda: arrays), device=decode_device,
                                    jpeg_fancy_upsampling=True)
            if device == "gpu" and decode_device == "cpu":
                img = img.gpu()
            img = fn.resize(img, size=(224, 224), device=device)
            return fn.crop_mirror_normalize(img, mean=mean, std=std, dtype=types.FLOAT16,
                                            mirror=fn.random.coin_flip(seed=1), device=device)
        return p()

    ref = pipe("cpu", "cpu").run()[0]
    gpu_ops = pipe("cpu", "gpu").run()[0].as_cpu()
    full_gpu = pipe("mixed", "gpu").run()[0].as_cpu()
    np.testing.assert_array_equal(np.asarray(ref), np.asarray(gpu_ops))  # same decode: exact
    d = np.abs(np.asarray(ref).astype(np.float32) - np.asarray(full_gpu).astype(np.float32))
    assert d.mean() < 0.02  # normalised units: ~1 grey level of decoding difference
