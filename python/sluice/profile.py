"""Where a pipeline's time goes, in words a user can act on.

    print(pipe.bottleneck_report())

Reads the executor's statistics: how busy each stage (CPU; mixed and GPU) was, how long the
consumer waited for batches, and which operator dominates the busiest stage.
"""

import os

from sluice import backend

# The bottleneck's operator family: what it is, and the remedies, each with the condition under
# which it applies ("more": fewer threads than cores; "gpu": a CUDA device; None: always).
_ADVICE = {
    "decoders": ("decoding is the bottleneck", [
        ("more", "use more threads (now num_threads={threads}, of {cores} cores)"),
        ("gpu", "decode on the GPU (device='mixed')"),
        (None, "decode with decoders.image_random_crop where the crop follows (fewer rows)")]),
    "readers": ("reading files is the bottleneck: the storage is slow", [
        (None, "try read_ahead=True or faster storage"),
        ("more", "use more threads (now num_threads={threads}, of {cores} cores)")]),
    "resize": ("resizing on the CPU is the bottleneck", [
        ("more", "use more threads (now num_threads={threads}, of {cores} cores)"),
        (None, "decode with decoders.image_random_crop (fewer pixels to resize)"),
        ("gpu", "resize on the GPU (.gpu() first, or device='mixed' decoding)")]),
    "random_resized_crop": ("random_resized_crop on the CPU is the bottleneck", [
        (None, "use decoders.image_random_crop + resize"),
        ("gpu", "run it on the GPU")]),
    "crop_mirror_normalize": ("crop_mirror_normalize on the CPU is the bottleneck", [
        ("gpu", "run it on the GPU (.gpu() first)"),
        (None, "output FLOAT16 or uint8"),
        ("more", "use more threads (now num_threads={threads}, of {cores} cores)")]),
}


def _advice(top, stage, threads, cores, gpu):
    """What limits throughput and the remedies that fit this machine."""
    head, remedies = _ADVICE.get(top) or _ADVICE.get(_family(top)) or (
        f"'{top}' on the {stage.upper()} stage is the bottleneck", [
            ("more", "use more threads (now num_threads={threads}, of {cores} cores)")])
    fits = {None: True, "more": threads < cores, "gpu": gpu}
    todo = [r.format(threads=threads, cores=cores) for when, r in remedies if fits[when]]
    return head + (": " + "; ".join(todo) if todo else
                   f": every core is in use (num_threads={threads})"
                   + ("" if gpu else " and there is no GPU to move work to"))


def decoded_images(decoder_stats):
    """Images a mixed decoder decoded, by any route (its statistics are cumulative)."""
    s = decoder_stats
    return s["hardware_decoded"] + s["hybrid_decoded"] + s["gpu_hybrid_decoded"] + s["cpu_decoded"]


def hardware_share(before, after):
    """Of the images decoded between two lists of mixed-decoder statistics (one per pipeline):
    the share the hardware JPEG decoder took, in all and per pipeline."""
    hw = [a["hardware_decoded"] - b["hardware_decoded"] for a, b in zip(after, before)]
    all_ = [decoded_images(a) - decoded_images(b) for a, b in zip(after, before)]
    return sum(hw) / max(1, sum(all_)), [h / max(1, n) for h, n in zip(hw, all_)]


def _family(op_type):
    return op_type.split(".")[0]


def bottleneck_report(pipe):
    stats = pipe.executor_statistics()
    ps = pipe._backend.pipeline_statistics()
    if not ps["wall_time_s"]:  # no iteration has run
        return ("nothing measured yet: run the pipeline (pipe.run(), or iterate over it) and ask "
                "again")
    wall = ps["wall_time_s"] or 1e-9
    waited = ps["consumer_wait_s"] / wall  # share of the time the consumer sat idle
    # The mixed and GPU operators run on one thread or, when a graph has both, on one each: the
    # GPU side is as busy as the busier of the two.
    mixed, gpu = ps["mixed_stage_busy_s"] / wall, ps["gpu_stage_busy_s"] / wall
    busy = {"cpu": ps["cpu_stage_busy_s"] / wall, "gpu": max(mixed, gpu)}
    # "threads": how busy the pool's threads were with a CPU operator's samples while it ran; the
    # rest went to the slowest samples' tails, the operator's serial part, or the other CPU
    # iteration in flight (the pipelined CPU stage runs two, one operator apart).
    lines = [f"{'operator':32s} {'device':6s} {'ms/batch':>9s} {'share':>6s} {'threads':>8s} "
             f"{'memory MB':>10s}"]
    stage_total = {"cpu": 0.0, "gpu": 0.0}
    for name, s in stats.items():
        stage_total["cpu" if s["device"] == "cpu" else "gpu"] += s["total_time_ms"]
    for name, s in sorted(stats.items(), key=lambda kv: -kv[1]["total_time_ms"]):
        stage = "cpu" if s["device"] == "cpu" else "gpu"
        share = s["total_time_ms"] / max(stage_total[stage], 1e-9)
        mem = s.get("reserved_memory_size")  # only with enable_memory_stats=True
        mem = f"{sum(mem) / 2**20:10.1f}" if mem else f"{'-':>10s}"
        threads = "-"
        if stage == "cpu" and s.get("work_time_ms"):
            busy_threads = s["work_time_ms"] / (ps["num_threads"] * s["total_time_ms"])
            threads = f"{100 * busy_threads:.0f}%"
        lines.append(f"{name[:32]:32s} {s['device']:6s} {s['mean_time_ms']:9.2f} {100 * share:5.0f}% "
                     f"{threads:>8s} {mem}")
    cpu_work_s = sum(s.get("work_time_ms", 0) for s in stats.values() if s["device"] == "cpu") / 1e3
    pool = cpu_work_s / max(ps["num_threads"] * ps["cpu_stage_busy_s"], 1e-9)
    device = f"GPU stage {100 * gpu:.0f}%"
    if mixed > 0:
        device = f"mixed stage {100 * mixed:.0f}%, " + device
    workers = ps.get("cpu_workers", 1)
    shared = f", {workers} iterations at once" if workers > 1 else ""
    lines.append(f"stages busy: CPU {100 * busy['cpu']:.0f}% of the time (its threads "
                 f"{100 * min(pool, 1):.0f}%{shared}), {device}; the consumer "
                 f"waited {100 * waited:.0f}% of the time "
                 f"(prefetch_queue_depth={ps['prefetch_queue_depth']})")
    # A stage busy nearly all the time is at capacity even when the consumer rarely waits
    # (they are then balanced); otherwise an idle consumer means loading is too slow.
    if waited < 0.1 and max(busy.values()) < 0.9:
        verdict = ("the pipeline keeps ahead of its consumer: training, not data loading, is the "
                   "bottleneck")
    else:
        stage = max(busy, key=busy.get)
        ops = [(s["total_time_ms"], s["type"]) for s in stats.values()
               if (s["device"] == "cpu") == (stage == "cpu")]
        top = max(ops)[1] if ops else ""
        if stage == "gpu" and top.startswith("decoders"):
            # The engines wait for nvJPEG's host-side submission, one thread per process under a
            # per-process driver lock: several processes add supply where more threads or a
            # larger hardware share do not (bench/RESULTS.md#gpu-hw-share, #gpu-contexts).
            more = (f"add threads (now num_threads={ps['num_threads']}), "
                    if ps["num_threads"] < (os.cpu_count() or 1) else "")
            verdict = ("GPU decoding is the bottleneck: its host work (the hardware submission, "
                       "one thread per process, and decoding the rest) needs CPU time: " + more
                       + "run the pipeline in several processes, one shard each (ProcessIterator "
                       "with a list of pipeline functions), or keep other work off the cores; on "
                       "GPUs without JPEG engines all of it is the hybrid path")
            hw = [s for s in stats.values() if "hardware_load" in s]
            decoded = sum(decoded_images(s) for s in hw)
            if decoded:
                share = sum(s["hardware_decoded"] for s in hw) / decoded
                verdict += f"; the hardware JPEG decoder took {100 * share:.0f}% of the images"
        else:
            verdict = _advice(top, stage, ps["num_threads"], os.cpu_count() or 1,
                              backend.cuda_device_count() > 0)
        if (stage == "cpu" and ps["prefetch_queue_depth"] < 3
                and backend.default_cpu_workers(ps["num_threads"], 3) > ps.get("cpu_workers", 1)):
            verdict += ("; with prefetch_queue_depth=3 the CPU stage runs three iterations at once "
                        "(5-22% faster on 16 cores, one more batch of memory)")
        if busy[stage] < 0.5:
            verdict += (" (no stage is busy most of the time: the consumer may be starving it: "
                        "raise prefetch_queue_depth)")
    lines.append("verdict: " + verdict)
    return "\n".join(lines)
