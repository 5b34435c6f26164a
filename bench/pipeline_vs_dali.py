"""The GPU training pipeline, Sluice and NVIDIA DALI side by side: the same pipeline code
(readers.file -> mixed decoders.image_random_crop -> resize 224 -> crop_mirror_normalize FLOAT16
with mirror, batch 256) through each library's DALIGenericIterator with PARTIAL, in a process of
its own per library. Prints images/s per round and the device memory the pipeline takes (free
memory after torch's start minus the least free memory seen after warm-up); for Sluice also its
pools' reserved and peak in-use sizes and how many device allocations they made, in all and
after the warm-up batches.

    python3 bench/pipeline_vs_dali.py DATA --library sluice --json sluice.json
    PYTHONPATH=<dali site> python3 bench/pipeline_vs_dali.py DATA --library dali --json dali.json
    python3 bench/pipeline_vs_dali.py --compare sluice.json dali.json
"""

import argparse
import json
import os
import sys

from vs_dali_common import iterate, library, report, timed_rounds


def make_pipeline(lib, data, batch, threads):
    fn, types = lib.fn, lib.types

    @lib.pipeline_def(batch_size=batch, num_threads=threads, device_id=0, seed=1)
    def pipe():
        jpegs, labels = fn.readers.file(file_root=data, random_shuffle=True, name="Reader")
        images = fn.decoders.image_random_crop(jpegs, device="mixed")
        images = fn.resize(images, size=(224, 224))
        images = fn.crop_mirror_normalize(
            images, dtype=types.FLOAT16, output_layout="CHW",
            mean=[0.485 * 255, 0.456 * 255, 0.406 * 255], std=[0.229 * 255, 0.224 * 255, 0.225 * 255],
            mirror=fn.random.coin_flip())
        return images, labels.gpu()

    return pipe()


def measure(args):
    import torch

    lib, DALIGenericIterator, LastBatchPolicy = library(args.library)
    torch.cuda.init()
    torch.zeros(1, device="cuda")
    free0, _ = torch.cuda.mem_get_info()
    pipe = make_pipeline(lib, args.data, args.batch, args.threads)
    it = DALIGenericIterator([pipe], ["images", "labels"], reader_name="Reader", auto_reset=True,
                             last_batch_policy=LastBatchPolicy.PARTIAL)
    iterate(it, args.warmup, torch.cuda.synchronize)
    peak_free = torch.cuda.mem_get_info()[0]
    if args.library == "sluice":
        allocs_warm = lib.backend.memory_stats()["device"][0]["upstream_allocations"]

    def least_free():
        nonlocal peak_free
        peak_free = min(peak_free, torch.cuda.mem_get_info()[0])

    rates = timed_rounds(it, args, torch.cuda.synchronize, args.library, least_free)
    res = {"library": args.library, "version": lib.__version__, "data": args.data,
           "batch": args.batch, "threads": args.threads, "gpu": torch.cuda.get_device_name(0),
           "images_per_s": [round(r) for r in rates],
           "device_memory_mb": round((free0 - peak_free) / 2**20)}
    if args.library == "sluice":
        mem = lib.backend.memory_stats()["device"][0]
        res["pool_reserved_mb"] = round(mem["reserved"] / 2**20)
        res["pool_peak_in_use_mb"] = round(mem["peak_allocated"] / 2**20)
        res["device_allocations"] = mem["upstream_allocations"]
        res["device_allocations_after_warmup"] = mem["upstream_allocations"] - allocs_warm
    report(res, args.json)


def compare(sluice_json, dali_json):
    s, d = (json.load(open(p)) for p in (sluice_json, dali_json))
    print(f"{s['gpu']}, batch {s['batch']}, {s['threads']} threads, {s['data']}")
    for r in (s, d):
        print(f"  {r['library']:6} {r['version']:8} images/s {r['images_per_s']}, "
              f"device memory {r['device_memory_mb']} MB")
    print(f"  Sluice / DALI: images/s {max(s['images_per_s']) / max(d['images_per_s']):.2f}x, "
          f"device memory {s['device_memory_mb'] / d['device_memory_mb']:.2f}x")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", nargs="?")
    ap.add_argument("--library", choices=["sluice", "dali"])
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--batches", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json")
    ap.add_argument("--compare", nargs=2, metavar=("SLUICE_JSON", "DALI_JSON"))
    args = ap.parse_args()
    if args.compare:
        compare(*args.compare)
    elif args.library and args.data:
        measure(args)
    else:
        ap.error("give DATA and --library, or --compare")
    return 0


if __name__ == "__main__":
    sys.exit(main())
