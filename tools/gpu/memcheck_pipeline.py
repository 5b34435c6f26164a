"""A GPU training pipeline for compute-sanitizer (run by tools/gpu/gpu-check --train-only):

    compute-sanitizer --tool memcheck python3 tools/gpu/memcheck_pipeline.py DATA_ROOT

The mixed decoder with a hardware share and the CPU codec for the rest, then resize and
crop_mirror_normalize on the GPU: the mixed stage's own thread and stream, its two buffer sets,
the hardware lane and the pinned pages, over batches of varying crop sizes. DATA_ROOT is the
shared data folder (its photos/)."""
import pathlib
import sys
import time

import numpy as np

from sluice import fn, pipeline_def, types

root = pathlib.Path(sys.argv[1])
files = sorted(str(f.relative_to(root)) for f in (root / "photos").glob("*.jpg"))


@pipeline_def(batch_size=8, num_threads=4, device_id=0, seed=3, prefetch_queue_depth=3)
def pipe():
    jpegs, labels = fn.readers.file(file_root=str(root), files=files, random_shuffle=True, seed=7)
    images = fn.decoders.image_random_crop(jpegs, device="mixed", rest_decoder="cpu",
                                           hw_decoder_load=0.5, name="Decoder")
    images = fn.resize(images, size=(64, 48))
    return fn.crop_mirror_normalize(images, dtype=types.FLOAT16, mean=[128.0] * 3,
                                    std=[64.0] * 3, mirror=fn.random.coin_flip(seed=1)), labels


p = pipe()
p.build()
start = time.time()  # the hardware decoder is set up in the background: wait for it
while "being set up" in p.executor_statistics()["Decoder"]["hardware_status"] \
        and time.time() - start < 60:
    p.run()
for i in range(12):
    images, _ = p.run()
    a = np.asarray(images.as_cpu()).astype(np.float32)
    assert np.isfinite(a).all() and a.std() > 0, f"batch {i}"
s = p.executor_statistics()["Decoder"]
assert s["hardware_decoded"] > 0 and s["cpu_decoded"] > 0, s
print(f"ok: {s['hardware_decoded']} images on the hardware, {s['cpu_decoded']} on the CPU")
