"""nvJPEG's hardware submission next to another thread that keeps the GPU busy with bf16 matmuls
on a side stream, at most 30 matmuls queued, waiting either on a blocking event (the thread
sleeps) or a spinning one. The mixed decoder alone (decoders.image, hw_decoder_load 1.0, hybrid
rest, 8 threads, batch 128) on 20 fixed batches of the folder's first files. Prints images/s and
the hardware submission's time per batch, for each output type and load.

    python3 bench/lab/nvjpeg_busy_gpu.py DATA_DIR [--outputs RGB,GRAY] [--loads none,matmul,matmul-spin]

Where the submission waits, seen with a debugger during a run (the stack of the pipeline's mixed
thread; see bench/RESULTS.md#gpu-busy-gpu):
    cuda-gdb -p PID -batch -ex "thread apply all bt 40"
"""

import argparse
import pathlib
import threading
import time

import numpy as np
import torch

from nvjpeg_under_load import repeat_until
from sluice import fn, pipeline_def, types

BATCH = 128


def keep_busy(stop, blocking):
    with torch.cuda.stream(torch.cuda.Stream()):
        a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)

        def matmul():
            nonlocal a
            a = (a @ a).clamp_(-1, 1)

        repeat_until(stop, matmul, 30, blocking)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data")
    ap.add_argument("--outputs", default="RGB,GRAY")
    ap.add_argument("--loads", default="none,matmul,matmul-spin")
    ap.add_argument("--batches", type=int, default=40)
    args = ap.parse_args()
    files = sorted(pathlib.Path(args.data).rglob("*.jpg"))[:BATCH * 20]
    batches = [[np.frombuffer(f.read_bytes(), np.uint8) for f in files[k:k + BATCH]]
               for k in range(0, len(files) - BATCH + 1, BATCH)]
    for output in args.outputs.split(","):
        calls = [0]

        def source():
            calls[0] += 1
            return batches[(calls[0] - 1) % len(batches)]

        @pipeline_def(batch_size=BATCH, num_threads=8, device_id=0, seed=1, prefetch_queue_depth=2)
        def pipe():
            return fn.decoders.image(fn.external_source(source), device="mixed", name="Decoder",
                                     hw_decoder_load=1.0, rest_decoder="nvjpeg",
                                     output_type=getattr(types, output))

        p = pipe()
        p.build()
        start = time.time()  # the hardware decoder is set up in the background
        while ("being set up" in p.executor_statistics()["Decoder"]["hardware_status"]
               and time.time() - start < 20):
            p.run()
        for _ in range(5):
            p.run()
        for load in args.loads.split(","):
            stop = threading.Event()
            busy = None
            if load != "none":
                busy = threading.Thread(target=keep_busy, args=(stop, load == "matmul"))
                busy.start()
                time.sleep(2)
            before = p.executor_statistics()["Decoder"]
            t0 = time.time()
            for _ in range(args.batches):
                p.run()
            torch.cuda.synchronize()
            dt = time.time() - t0
            after = p.executor_statistics()["Decoder"]
            stop.set()
            if busy:
                busy.join()
            n = max(1, after["nvjpeg_batches"] - before["nvjpeg_batches"])
            per_batch = {k: (after[f"nvjpeg_hardware_{k}_ms"] - before[f"nvjpeg_hardware_{k}_ms"]) / n
                         for k in ("submit", "wait")}
            print(f"{output:4s} next to {load:11s}: {args.batches * BATCH / dt:7,.0f} images/s, "
                  f"hardware {after['hardware_decoded'] - before['hardware_decoded']} images, "
                  f"submission {per_batch['submit']:.1f} ms per batch "
                  f"(waiting {per_batch['wait']:.1f})", flush=True)
        del p


if __name__ == "__main__":
    main()
