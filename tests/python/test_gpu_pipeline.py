"""Whole GPU pipelines against the CPU pipeline (GPU machine only): the mixed stage running ahead
of the GPU stage, and a training pipeline on real photos."""

import numpy as np
import pytest

from op_testing import cpu_decodable, jpegs
from sluice import fn, pipeline_def, types

pytestmark = pytest.mark.gpu


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


def test_device_memory_limit_is_a_clear_error():
    """device_memory_limit: a pipeline that needs more device memory than the limit allows fails
    with an error naming the limit (after the pool gave back what nothing used); without the
    limit the same pipeline runs."""
    from sluice import backend

    def graph():
        return fn.random.uniform(range=[0, 1], shape=[1024, 1024], seed=1).gpu() * 2.0  # 64 MB

    backend.release_unused_memory()
    reserved = backend.memory_stats()["device"][0]["reserved"]
    limited = pipeline_def(graph, batch_size=16, num_threads=2, device_id=0, seed=1,
                           device_memory_limit=reserved + (4 << 20))()
    try:
        with pytest.raises(Exception, match="device_memory_limit") as e:
            limited.build()
            limited.run()
        assert "on device 0" in str(e.value)
    finally:
        del limited
        backend.set_device_memory_limit(0, 0)
    assert backend.memory_stats()["device"][0]["limit"] == 0
    (out,) = pipeline_def(graph, batch_size=16, num_threads=2, device_id=0, seed=1)().run()
    assert out.as_cpu().as_array().shape == (16, 1024, 1024)


def test_device_memory_limit_lowers_the_prefetch_depth(capfd):
    """A limit that leaves room for one output ahead but not three: the executor gives up
    prefetched outputs until the pipeline fits (Note [Lowering the prefetch depth]), says so,
    stays within the limit, and every batch is the one an unlimited pipeline gives."""
    from sluice import backend

    mb = 1 << 20

    def graph():  # 64 MB a batch: the copy up (one buffer a mixed set) and the output (a slot)
        return fn.random.uniform(range=[0, 1], shape=[1024, 1024], seed=1).gpu() * 2.0

    def batches(limit):
        p = pipeline_def(graph, batch_size=16, num_threads=2, device_id=0, seed=1,
                         prefetch_queue_depth=3, device_memory_limit=limit)()
        p.build()
        try:
            sums = [float(p.run()[0].as_cpu().as_array().sum(dtype=np.float64)) for _ in range(12)]
            return (sums, p._backend.pipeline_statistics()["prefetch_queue_depth"],
                    backend.memory_stats()["device"][0]["reserved"])
        finally:
            del p
            backend.release_unused_memory()

    backend.release_unused_memory()
    reference, depth, _ = batches(None)
    assert depth == 3
    # Depth 3: two copy buffers and four output slots, 384 MB; depth 1: 256 MB.
    reserved = backend.memory_stats()["device"][0]["reserved"]
    limit = reserved + 300 * mb
    try:
        limited, depth, used = batches(limit)
        assert depth == 1 and used <= limit, (depth, used - reserved)
    finally:
        backend.set_device_memory_limit(0, 0)
    assert limited == reference
    assert "prefetch_queue_depth lowered to 1" in capfd.readouterr().err
