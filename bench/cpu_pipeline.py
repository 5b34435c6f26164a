"""The CPU work of the training pipeline alone, for A/B runs of CPU-side changes: readers.file ->
decoders.image_random_crop -> resize 224 (uint8, as `sluice bench`'s sluice-cpu before it moves
to the GPU), batch 256. Prints images/s over the timed batches and each operator's mean time.

    python3 bench/cpu_pipeline.py DATA_DIR [--threads 2] [--batches 60] [--warmup 3] [--prefetch 2]
    SLUICE_CPU_STAGE_WORKERS=3 python3 bench/cpu_pipeline.py DATA_DIR --threads 16 --prefetch 3
    perf stat -e page-faults,task-clock python3 bench/cpu_pipeline.py DATA_DIR   # kernel work too
"""

import argparse
import os
import time

from sluice import fn, pipeline_def


def main():
    p = argparse.ArgumentParser()
    p.add_argument("data")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--batches", type=int, default=60)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("-b", "--batch-size", type=int, default=256)
    p.add_argument("--prefetch", type=int, default=2, help="prefetch_queue_depth")
    args = p.parse_args()

    @pipeline_def(batch_size=args.batch_size, num_threads=args.threads, device_id=None, seed=1,
                  prefetch_queue_depth=args.prefetch)
    def pipe():
        jpegs, labels = fn.readers.file(file_root=args.data, random_shuffle=True, name="Reader")
        images = fn.decoders.image_random_crop(jpegs)
        return fn.resize(images, size=(224, 224)), labels

    pipeline = pipe()
    pipeline.build()
    for _ in range(args.warmup):
        pipeline.run()
    t0 = time.perf_counter()
    for _ in range(args.batches):
        pipeline.run()
    dt = time.perf_counter() - t0
    workers = os.environ.get("SLUICE_CPU_STAGE_WORKERS", "default")
    print(f"{args.threads} threads, CPU stage workers {workers}, prefetch {args.prefetch}: "
          f"{args.batches * args.batch_size / dt:,.0f} images/s")
    for name, s in pipeline.executor_statistics().items():
        print(f"  {name}: {s['mean_time_ms']:.1f} ms per batch")


if __name__ == "__main__":
    main()
