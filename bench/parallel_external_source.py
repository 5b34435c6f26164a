"""Parallel external_source on a CPU-bound Python callback: samples/s with 1, 2 and 8 worker
processes side by side (and the callback run in the pipeline's own process, parallel=False).

The callback holds the GIL (a pure-Python loop, `--work` iterations per sample, as a decoder or
augmentation written in Python would) and returns a 224x224x3 uint8 image, so the figures include
the hand-over through shared memory. The configurations run in turns, `--rounds` times, and each
reports its median: the machine's other load shifts them alike.

    python3 bench/parallel_external_source.py [--workers 1 2 8] [--batch 32] [--work 20000]
        [--batches 150] [--rounds 3] [--start-method fork]
"""

import argparse
import os
import statistics
import time

import numpy as np

from sluice import fn, pipeline_def


def cpu_bound(info, work):
    acc = 0
    for i in range(work):  # holds the GIL: only processes run it in parallel
        acc = (acc + i * i) % 251
    return np.full((224, 224, 3), (acc + info.idx_in_epoch) % 256, np.uint8)


class Callback:
    """The per-sample source (a class, so that spawn pickles it by reference)."""

    def __init__(self, work):
        self.work = work

    def __call__(self, info):
        return cpu_bound(info, self.work)


def make(workers, args):
    parallel = workers > 0

    @pipeline_def(batch_size=args.batch, num_threads=2, device_id=None,
                  py_num_workers=max(workers, 1), py_start_method=args.start_method)
    def pipe():
        return fn.external_source(Callback(args.work), batch=False, parallel=parallel,
                                  **({"prefetch_queue_depth": 2} if parallel else {}))

    p = pipe()
    p.build()
    for _ in range(2):  # warm up: workers started, chunks allocated
        p.run()
    return p


def rate(pipe, args):
    start = time.perf_counter()
    for _ in range(args.batches):
        out, = pipe.run()
    return args.batches * args.batch / (time.perf_counter() - start)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2, 8])
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--work", type=int, default=20000, help="loop iterations per sample")
    ap.add_argument("--batches", type=int, default=150, help="timed batches per turn")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--start-method", default="fork")
    ap.add_argument("--no-sequential", action="store_true", help="skip parallel=False")
    args = ap.parse_args()

    configs = ([] if args.no_sequential else [0]) + args.workers
    pipes = {w: make(w, args) for w in configs}
    rates = {w: [] for w in configs}
    for _ in range(args.rounds):
        for w in configs:
            rates[w].append(rate(pipes[w], args))
    base = statistics.median(rates[args.workers[0]])
    print(f"{os.cpu_count()} CPUs, batch {args.batch}, {args.work} loop iterations per sample, "
          f"{args.start_method}, median of {args.rounds} rounds of {args.batches} batches")
    for w in configs:
        r = statistics.median(rates[w])
        name = "in the pipeline's process" if w == 0 else f"{w} worker{'s' if w > 1 else ''}"
        print(f"  {name:>26}: {r:8,.0f} samples/s  {r / base:5.2f}x "
              f"(rounds: {', '.join(f'{x:,.0f}' for x in rates[w])})")


if __name__ == "__main__":
    main()
