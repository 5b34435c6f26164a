"""Parallel external_source on a CPU-bound Python callback: samples/s with 1, 2 and 8 worker
processes side by side (and the callback run in the pipeline's own process, parallel=False).

The callback holds the GIL (a pure-Python loop, `--work` iterations per sample, as a decoder or
augmentation written in Python would) and returns a 224x224x3 uint8 image, so the figures include
the hand-over through shared memory. The configurations run in turns, `--rounds` times, and each
reports its median: the machine's other load shifts them alike. The machine's own ceiling for
each worker count is measured too: the same callback in that many plain processes
(multiprocessing.Pool, no pipeline), since many-core hosts run slower per core when more cores
are busy.

    python3 bench/parallel_external_source.py [--workers 1 2 8] [--batch 32] [--work 20000]
        [--batches 150] [--rounds 3] [--start-method fork] [--prefetch 2]
"""

import argparse
import multiprocessing
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
                                  **({"prefetch_queue_depth": args.prefetch} if parallel else {}))

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


def _chunk(first, count, work):
    for i in range(first, first + count):
        cpu_bound(_Info(i), work)
    return count


class _Info:
    def __init__(self, idx):
        self.idx_in_epoch = idx


def ceiling(workers, args):
    """Samples/s of the callback in `workers` plain processes, each given whole batches."""
    n = args.batches * args.batch
    with multiprocessing.get_context(args.start_method).Pool(workers) as pool:
        start = time.perf_counter()
        pool.starmap(_chunk, [(i, args.batch, args.work) for i in range(0, n, args.batch)])
        return n / (time.perf_counter() - start)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2, 8])
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--work", type=int, default=20000, help="loop iterations per sample")
    ap.add_argument("--batches", type=int, default=150, help="timed batches per turn")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--start-method", default="fork")
    ap.add_argument("--prefetch", type=int, default=2, help="the source's prefetch_queue_depth")
    ap.add_argument("--no-sequential", action="store_true", help="skip parallel=False")
    args = ap.parse_args()

    configs = ([] if args.no_sequential else [0]) + args.workers
    pipes = {w: make(w, args) for w in configs}
    rates = {w: [] for w in configs}
    plain = {w: [] for w in args.workers}
    for _ in range(args.rounds):
        for w in configs:
            rates[w].append(rate(pipes[w], args))
        for w in args.workers:
            plain[w].append(ceiling(w, args))
    base = statistics.median(rates[args.workers[0]])
    plain_base = statistics.median(plain[args.workers[0]])
    print(f"{os.cpu_count()} CPUs, batch {args.batch}, {args.work} loop iterations per sample, "
          f"{args.start_method}, prefetch_queue_depth {args.prefetch}, median of {args.rounds} "
          f"rounds of {args.batches} batches; ceiling: plain processes")
    for w in configs:
        r = statistics.median(rates[w])
        name = "in the pipeline's process" if w == 0 else f"{w} worker{'s' if w > 1 else ''}"
        line = (f"  {name:>26}: {r:8,.0f} samples/s  {r / base:5.2f}x "
                f"(rounds: {', '.join(f'{x:,.0f}' for x in rates[w])})")
        if w in plain:
            c = statistics.median(plain[w])
            line += f"; ceiling {c:,.0f} ({c / plain_base:.2f}x), reached {r / c:.0%}"
        print(line)


if __name__ == "__main__":
    main()
