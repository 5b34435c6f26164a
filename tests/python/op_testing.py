"""Helpers of the operator tests (tests/python/ops): graphs over encoded files, Pillow's decodes,
the shared data's JPEGs, random images, and GPU operators against their CPU twins."""

import io

import numpy as np

import sluice
from sluice import fn, pipeline_def

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


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
    """Pillow's RGB decode of a file, turned upright by its EXIF orientation."""
    from PIL import Image, ImageOps

    im = Image.open(io.BytesIO(path_or_bytes) if isinstance(path_or_bytes, bytes) else path_or_bytes)
    return np.asarray(ImageOps.exif_transpose(im).convert("RGB"))


def decodable_jpegs(shared_data):
    """The photos and JPEG variants Pillow reads (no 12-bit or lossless streams)."""
    out = []
    for p in files_in(shared_data / "photos", "*.jpg") + files_in(shared_data / "jpeg_variants", "*.jpg"):
        if any(k in p.name for k in ("12bit", "12-bit", "lossless", "sof3")):
            continue
        out.append(p)
    return out


def jpegs(shared_data):
    """Every JPEG variant, then every photo."""
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


def cpu_decodable(paths):
    """The files the CPU decoder takes alone."""
    ok = [p for p, (cpu, _) in zip(paths, decode_both(paths)) if not isinstance(cpu, Exception)]
    assert len(ok) >= 40
    return ok


def random_images(rng, n, channels=3):
    return [rng.integers(1, 256, (int(rng.integers(20, 400)), int(rng.integers(20, 400)), channels),
                         np.uint8) for _ in range(n)]


def compare_gpu_cpu(graph, data, atol=0):
    """Runs graph(x, device) on the CPU and on the GPU over the HWC images `data`; the outputs
    must agree within `atol`."""
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


def assert_gpu_half_equals_cpu(outs):
    """`outs`: a pipeline's outputs, a graph's on the CPU, then the same graph's on the GPU. Each
    GPU output must be a GPU tensor list with its CPU twin's layout and samples, bit for bit.
    Returns the CPU outputs."""
    half = len(outs) // 2
    for k, (c, g) in enumerate(zip(outs[:half], outs[half:])):
        assert type(g).__name__ == "TensorListGPU", f"output {k}"
        assert c.layout() == g.layout(), f"output {k}"
        g = g.as_cpu()
        for i in range(len(c)):
            np.testing.assert_array_equal(np.asarray(c.at(i)), np.asarray(g.at(i)),
                                          err_msg=f"output {k}")
    return outs[:half]


def gpu_equals_cpu_bit_for_bit(graph, batch_size=16, runs=3):
    """Runs graph(device) (no inputs: random operators feed it) on the CPU and on the GPU with
    the same seeds; every output must be a GPU tensor equal to the CPU's bit for bit."""
    cpu = pipeline_def(lambda: graph("cpu"), batch_size=batch_size, num_threads=2, device_id=0,
                       seed=1)()
    gpu = pipeline_def(lambda: graph("gpu"), batch_size=batch_size, num_threads=2, device_id=0,
                       seed=1)()
    for _ in range(runs):
        c, g = cpu.run(), gpu.run()
        for a, b in zip(c, g):
            assert type(b).__name__ == "TensorListGPU"
            b = b.as_cpu()
            assert a.shape() == b.shape()
            for i in range(len(a)):  # samples may differ in shape
                np.testing.assert_array_equal(np.asarray(a.at(i)), np.asarray(b.at(i)))
