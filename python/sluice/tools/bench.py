"""``sluice bench``: throughput of a pipeline over generated data.

Until image operators exist this measures the engine itself: random generation, arithmetic and
a cast over batches of image-sized tensors, reporting batches and samples per second.
"""

import time


def add_parser(sub):
    p = sub.add_parser("bench", help="measure pipeline throughput on this machine")
    p.add_argument("--batch-size", "-b", type=int, default=64)
    p.add_argument("--threads", type=int, default=None, help="worker threads (default: all cores)")
    p.add_argument("--iterations", type=int, default=50)
    p.add_argument("--size", type=int, default=224, help="square sample size")
    p.set_defaults(func=run)


def run(args):
    import os

    from sluice import fn, pipeline_def, types

    threads = args.threads or os.cpu_count() or 1

    @pipeline_def(batch_size=args.batch_size, num_threads=threads, device_id=None, seed=1)
    def synthetic():
        noise = fn.random.uniform(range=[0, 255], shape=[args.size, args.size, 3])
        flip = fn.random.coin_flip()
        images = fn.cast(noise * 0.5 + flip * 64, dtype=types.UINT8)
        return images, flip

    pipe = synthetic()
    pipe.build()
    for _ in range(3):
        pipe.run()
    t0 = time.perf_counter()
    for _ in range(args.iterations):
        pipe.run()
    dt = time.perf_counter() - t0
    n = args.iterations * args.batch_size
    print(f"synthetic pipeline: {args.iterations} batches of {args.batch_size} "
          f"({args.size}x{args.size}x3) on {threads} threads: {n / dt:,.0f} samples/s, "
          f"{args.iterations / dt:,.1f} batches/s")
    return 0
