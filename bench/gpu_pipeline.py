"""Throughput of the GPU training pipeline: readers.file -> mixed
decoders.image_random_crop -> resize 224 -> crop_mirror_normalize (mirror, FLOAT16, CHW), batch
256, on a folder of ImageNet-like JPEGs. Prints images/s, the hardware decoder's share and the
device memory the pipeline holds, for several hw_decoder_load / thread settings.

    python3 bench/gpu_pipeline.py DATA_DIR [--batches 200] [--loads auto,0.6,0.7] [--lanes 1,2] [--decoder image]
        [--rest-decoders auto,nvjpeg,cpu] [--processes 0,2] [--slots 2,4]
"""

import argparse
import itertools
import json
import os
import time

from sluice import backend, fn, pipeline_def, types
from sluice.profile import decoded_images, hardware_share
from sluice.tools.bench_loaders import decoder_statistics


def per_batch(stats, key, names):
    """The decoder's cumulative milliseconds `key.format(name)` per timed batch."""
    return {n: round(stats[key.format(n)] / max(1, stats["nvjpeg_batches"]), 2) for n in names}


def build_pipe(data, batch, threads, load, depth, threshold, decoder, rest, stream_priority=0,
               shard_id=0, num_shards=1):
    """The training pipeline (module level, so that a child process can build it too)."""
    extra = {} if threshold < 0 else {"hybrid_huffman_threshold": threshold}
    extra["rest_decoder"] = rest
    if load is not None:  # else the decoder balances the share itself
        extra["hw_decoder_load"] = load

    @pipeline_def(batch_size=batch, num_threads=threads, device_id=0, seed=1,
                  prefetch_queue_depth=depth, default_cuda_stream_priority=stream_priority)
    def pipe():
        jpegs, labels = fn.readers.file(file_root=data, random_shuffle=True, name="Reader",
                                        shard_id=shard_id, num_shards=num_shards)
        decode = getattr(fn.decoders, decoder)  # image: whole images, no crop window
        images = decode(jpegs, device="mixed", name="Decoder", **extra)
        images = fn.resize(images, size=(224, 224))
        images = fn.crop_mirror_normalize(
            images, dtype=types.FLOAT16, output_layout="CHW",
            mean=[0.485 * 255, 0.456 * 255, 0.406 * 255], std=[0.229 * 255, 0.224 * 255, 0.225 * 255],
            mirror=fn.random.coin_flip())
        return images, labels.gpu()

    return pipe()


def run(data, batch, threads, load, batches, depth, lanes, threshold, decoder, rest,
        stream_priority=0):
    os.environ["SLUICE_NVJPEG_HW_LANES"] = str(lanes)
    t0 = time.perf_counter()
    p = build_pipe(data, batch, threads, load, depth, threshold, decoder, rest, stream_priority)
    p.build()
    build_s = time.perf_counter() - t0
    p.run()
    first_s = time.perf_counter() - t0
    for _ in range(7):  # warm-up: pools and nvJPEG buffers grow here
        p.run()
    # The hardware decoder is set up in the background; until then batches decode hybrid.
    t_ready = time.perf_counter()
    while ("being set up" in p.executor_statistics()["Decoder"]["hardware_status"]
           and time.perf_counter() - t_ready < 10):
        p.run()
    pre = backend.memory_stats()["device"][0]["upstream_allocations"]
    before = p.executor_statistics()["Decoder"]
    import torch

    t0 = time.perf_counter()
    for _ in range(batches):
        images, labels = p.run()
        torch.from_dlpack(images)  # hand-off as a trainer would take it
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    # An epoch's last batch is filled up past the folder's end: count the folder's images only,
    # as a trainer's iterator (LastBatchPolicy.PARTIAL) delivers them.
    meta = p.reader_meta("Reader")
    valid = meta["epoch_size"] / (meta["batches_per_epoch"] * batch)
    stats = p.executor_statistics()["Decoder"]
    mem = backend.memory_stats()["device"][0]
    # The decoder's counters are cumulative: count the timed batches only.
    stats = {k: v - before[k] if isinstance(v, (int, float)) and k != "hardware_load" else v
             for k, v in stats.items()}
    decoded = decoded_images(stats)
    res = {"threads": threads, "hw_decoder_load": load, "hw_load_at_end": stats["hardware_load"], "hw_lanes": lanes, "rest_decoder": rest,
           "hybrid_huffman_threshold": threshold,
           "images_per_s": batches * batch * valid / dt, "build_s": build_s, "first_batch_s": first_s,
           "hw_share": stats["hardware_decoded"] / max(1, decoded),
           "cpu_share": stats["cpu_decoded"] / max(1, decoded),
           "hardware_batch_failures": stats["hardware_batch_failures"],
           "last_hardware_failure": stats["last_hardware_failure"],
           "device_reserved_mb": mem["reserved"] / 2**20,
           "device_peak_in_use_mb": mem["peak_allocated"] / 2**20,
           "cudaMalloc_calls_in_steady_state": mem["upstream_allocations"] - pre,
           "per_op_ms": {k: round(v["mean_time_ms"], 2) for k, v in p.executor_statistics().items()},
           "nvjpeg_ms_per_batch": per_batch(stats, "nvjpeg_{}_ms",
                                            ("parse", "decode", "hardware_submit", "hardware_wait")),
           "operator_ms_per_batch": per_batch(stats, "{}_ms", ("prepare", "decode_call", "finish"))}
    del p
    backend.release_unused_memory()
    return res


def run_processes(data, batch, threads, procs, load, batches, depth, threshold, decoder, rest,
                  slots=4):
    """`procs` pipelines of `threads` threads each, every one in a child process over its own
    shard (one ProcessIterator), `batches` batches in all. Each process has its own driver lock
    for its hardware submission (bench/RESULTS.md#gpu-contexts)."""
    import functools

    import torch
    from sluice.plugin.pytorch import LastBatchPolicy, ProcessIterator

    torch.cuda.init()
    free0, _ = torch.cuda.mem_get_info()
    t0 = time.perf_counter()
    it = ProcessIterator([functools.partial(build_pipe, data, batch, threads, load, depth,
                                            threshold, decoder, rest, 0, k, procs)
                          for k in range(procs)], ["images", "labels"], slots=slots,
                         reader_name="Reader", auto_reset=True,
                         last_batch_policy=LastBatchPolicy.PARTIAL)

    def step():  # a batch from each process; the images it gave
        out = next(it, None)  # None: an epoch ended; auto_reset starts the next
        return sum(d["images"].shape[0] for d in (out if out is not None else next(it)))

    for _ in range(30):  # warm-up, and the hardware decoders' set-up in the background
        step()
    build_s = time.perf_counter() - t0
    steps = max(1, batches // procs)
    before = decoder_statistics(it)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    images = sum(step() for _ in range(steps))
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    free1, _ = torch.cuda.mem_get_info()
    after = decoder_statistics(it)
    it.close()
    shares = hardware_share(before, after)[1]
    return {"threads": threads, "processes": procs, "slots": slots, "hw_decoder_load": load,
            "rest_decoder": rest,
            "images_per_s": images / dt, "build_s": build_s,
            "hw_share_per_process": shares,
            "device_used_mb_all_processes": (free0 - free1) / 2**20}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--batches", type=int, default=200)
    ap.add_argument("--threads", default=str(os.cpu_count()))
    ap.add_argument("--loads", default="auto,0.7",
                    help="hw_decoder_load values; auto: not given (the decoder balances it)")
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--lanes", default="1", help="concurrent hardware submissions")
    ap.add_argument("--huffman-thresholds", default="-1",
                    help="hybrid_huffman_threshold values (-1: the decoder's default)")
    ap.add_argument("--decoder", default="image_random_crop", choices=["image_random_crop", "image"])
    ap.add_argument("--rest-decoders", default="auto",
                    help="rest_decoder values: auto (the default: cpu from 8 threads), nvjpeg "
                         "(hybrid path), cpu (CPU decoder)")
    ap.add_argument("--processes", default="0",
                    help="0: the pipeline in this process; N: N child processes, each a "
                         "pipeline of --threads threads over its own shard")
    ap.add_argument("--slots", default="4", help="ProcessIterator's slots per process")
    ap.add_argument("--json")
    args = ap.parse_args()
    rows = []
    def nums(s, kind=int):
        return [kind(x) for x in s.split(",")]

    def parse_load(s):
        return None if s == "auto" else float(s)

    for procs, t, rest, load, slots in itertools.product(
            [p for p in nums(args.processes) if p > 0], nums(args.threads),
            args.rest_decoders.split(","), nums(args.loads, parse_load), nums(args.slots)):
        r = run_processes(args.data, args.batch, t, procs, load, args.batches, args.depth,
                          -1, args.decoder, rest, slots)
        rows.append(r)
        print(f"processes {procs} x threads {t:2d} slots {slots} rest {rest} hw_load "
              f"{'auto' if load is None else f'{load:4.2f}'}: {r['images_per_s']:8,.0f} img/s, "
              f"start and warm-up {r['build_s']:.1f} s, hw share per process "
              f"{', '.join(f'{x:.2f}' for x in r['hw_share_per_process'])}, "
              f"device used by all processes "
              f"{r['device_used_mb_all_processes']:.0f} MB", flush=True)
    for t, lanes, thr, rest, load in itertools.product(
            nums(args.threads) if 0 in nums(args.processes) else [], nums(args.lanes),
            nums(args.huffman_thresholds), args.rest_decoders.split(","), nums(args.loads, parse_load)):
        r = run(args.data, args.batch, t, load, args.batches, args.depth, lanes, thr,
                args.decoder, rest)
        rows.append(r)
        print(f"threads {t:2d} lanes {lanes} huffman threshold {thr} rest {rest} "
              f"hw_load {'auto' if load is None else f'{load:4.2f}'}: "
              f"{r['images_per_s']:8,.0f} img/s, build {r['build_s']:.2f} s, first batch "
              f"{r['first_batch_s']:.2f} s, hw share "
              f"{r['hw_share']:.2f} (at the end {r['hw_load_at_end']:.2f}), cpu share {r['cpu_share']:.2f}, device "
              f"{r['device_reserved_mb']:.0f} MB reserved / "
              f"{r['device_peak_in_use_mb']:.0f} MB peak in use, cudaMalloc in steady state: "
              f"{r['cudaMalloc_calls_in_steady_state']}, per op ms {r['per_op_ms']}, nvJPEG phases "
              f"{r['nvjpeg_ms_per_batch']}, operator phases {r['operator_ms_per_batch']}", flush=True)
        if r["hardware_batch_failures"]:
            print(f"  {r['hardware_batch_failures']} hardware sub-batches failed, the last: "
                  f"{r['last_hardware_failure']}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
