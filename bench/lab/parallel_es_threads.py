"""Where the time of a parallel external_source goes: CPU seconds of each thread of the pipeline's
process and of each worker process over a timed run (from /proc), against the wall time.

    python3 bench/lab/parallel_es_threads.py [--workers 8] [--batch 32] [--batches 150]
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import parallel_external_source as bench  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def cpu_of(path):
    with open(path) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime


def threads():
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/comm") as f:
                name = f.read().strip()
            out[(tid, name)] = cpu_of(f"/proc/self/task/{tid}/stat")
        except OSError:
            pass
    return out


def workers(pipe):
    return {w.pid: cpu_of(f"/proc/{w.pid}/stat") for w in pipe._feeder.pool.workers}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--work", type=int, default=20000)
    ap.add_argument("--batches", type=int, default=150)
    ap.add_argument("--start-method", default="fork")
    ap.add_argument("--prefetch", type=int, default=2)
    args = ap.parse_args()
    pipe = bench.make(args.workers, args)
    t0, w0, start = threads(), workers(pipe), time.perf_counter()
    r = bench.rate(pipe, args)
    wall = time.perf_counter() - start
    t1, w1 = threads(), workers(pipe)
    print(f"{r:,.0f} samples/s, wall {wall:.2f} s")
    for k in sorted(t1, key=lambda k: -(t1[k] - t0.get(k, 0))):
        d = t1[k] - t0.get(k, 0)
        if d > 0.01 * wall:
            print(f"  thread {k[1]:<16} {d:6.2f} s  {d / wall:5.0%}")
    for pid in w1:
        d = w1[pid] - w0[pid]
        print(f"  worker {pid:<16} {d:6.2f} s  {d / wall:5.0%}")


if __name__ == "__main__":
    main()
