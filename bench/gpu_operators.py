"""The heavy GPU operators, Sluice and NVIDIA DALI side by side: the same pipeline code, fed one
batch of 256 random UINT8 HWC images already on the GPU (224x224 and 1920x1080), each operator
alone. Run once per library (each in its own process), then compare:

    python3 bench/gpu_operators.py --library sluice --json sluice.json
    PYTHONPATH=<dali site> python3 bench/gpu_operators.py --library dali --json dali.json
    python3 bench/gpu_operators.py --compare sluice.json dali.json

A case's time is the median over rounds of (time of `iters` runs) / iters, after warm-up; each
round ends with the device synchronised, so all queued GPU work is counted (copying the outputs
to the host would time that copy instead).
"""

import argparse
import json
import statistics
import sys
import time

SIZES = {"224": (224, 224), "1080p": (1080, 1920)}


def cases(fn, types):
    """name -> graph on the GPU batch `x` (HWC UINT8). Random per-sample arguments come from the
    CPU, as a training pipeline gives them."""
    return {
        "rotate": lambda x: fn.rotate(x, angle=fn.random.uniform(range=(-30, 30)), fill_value=0),
        "warp_affine": lambda x: fn.warp_affine(x, matrix=[0.9, 0.2, 10.0, -0.15, 1.1, -5.0],
                                                fill_value=0),
        "gaussian_blur": lambda x: fn.gaussian_blur(x, sigma=2.0),
        "color_twist": lambda x: fn.color_twist(x, hue=30.0, saturation=1.2, brightness=1.1,
                                                contrast=0.9),
        "hsv": lambda x: fn.hsv(x, hue=30.0, saturation=1.2, value=0.9),
        "normalize": lambda x: fn.normalize(x, axes=[0, 1]),
        "slice": lambda x: fn.slice(x, rel_start=(0.1, 0.15), rel_shape=(0.8, 0.7),
                                    axis_names="HW"),
        "paste": lambda x: fn.paste(x, ratio=1.5, paste_x=0.3, paste_y=0.7, fill_value=0),
        "resize_crop_mirror": lambda x: fn.resize_crop_mirror(
            x, resize_shorter=256, crop=(224, 224), mirror=fn.random.coin_flip()),
    }


def run_case(lib, build, images, device, batch, iters, rounds, warmup, profile=False):
    fn, types, pipeline_def = lib.fn, lib.types, lib.pipeline_def
    sync = lambda: None  # noqa: E731
    if device == "gpu":
        import torch

        sync = torch.cuda.synchronize  # every stream of the device: both libraries' own too

    @pipeline_def(batch_size=batch, num_threads=4, device_id=0 if device == "gpu" else None, seed=7,
                  prefetch_queue_depth=2)
    def pipe():
        x = fn.external_source(source=lambda: images, device=device, layout="HWC", no_copy=True,
                               batch=True)
        return build(x)

    p = pipe()
    p.build()
    for _ in range(warmup):
        (out,) = p.run()
    if profile:
        from torch.profiler import ProfilerActivity, profile as torch_profile

        with torch_profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(iters):
                (out,) = p.run()
            sync()
        print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=12), flush=True)
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(iters):
            (out,) = p.run()
        sync()
        times.append((time.perf_counter() - t0) / iters)
    del p
    return statistics.median(times)


def batch_of_images(device, batch, h, w):
    if device == "gpu":
        import torch

        gen = torch.Generator(device="cuda").manual_seed(0)
        return torch.randint(0, 256, (batch, h, w, 3), dtype=torch.uint8, device="cuda",
                             generator=gen)
    import numpy as np

    return np.random.default_rng(0).integers(0, 256, (batch, h, w, 3), dtype=np.uint8)


def device_name(device):
    if device == "gpu":
        import torch

        return torch.cuda.get_device_name(0)
    import os

    return f"CPU, {os.cpu_count()} cores"


def measure(args):
    if args.library == "dali":
        import nvidia.dali as lib
        from nvidia.dali import fn, pipeline_def, types
    else:
        import sluice as lib
        from sluice import fn, pipeline_def, types
    lib.fn, lib.types, lib.pipeline_def = fn, types, pipeline_def
    all_cases = cases(fn, types)
    names = args.ops or list(all_cases)
    results = {"library": args.library, "version": lib.__version__, "batch": args.batch,
               "device": device_name(args.device), "ms": {}}
    for size in args.sizes:
        images = batch_of_images(args.device, args.batch, *SIZES[size])
        iters = args.iters or (20 if size == "224" else 4)
        for name in names:
            try:
                s = run_case(lib, all_cases[name], images, args.device, args.batch, iters,
                             args.rounds, 3, args.profile)
                results["ms"][f"{name}@{size}"] = round(s * 1e3, 3)
                print(f"{args.library} {name}@{size}: {s * 1e3:.2f} ms/batch", flush=True)
            except Exception as e:  # one failing case must not hide the others
                results["ms"][f"{name}@{size}"] = None
                print(f"{args.library} {name}@{size}: FAILED {type(e).__name__}: "
                      f"{str(e).splitlines()[0][:200]}", flush=True)
        del images
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


def compare(sluice_json, dali_json):
    s, d = (json.load(open(p)) for p in (sluice_json, dali_json))
    print(f"{s['device']}, batch {s['batch']}: Sluice {s['version']} vs DALI {d['version']}")
    print(f"{'case':28} {'Sluice ms':>10} {'DALI ms':>10} {'speed-up':>9}")
    for case, ms in s["ms"].items():
        dm = d["ms"].get(case)
        ratio = f"{dm / ms:.2f}x" if ms and dm else "-"
        print(f"{case:28} {ms if ms else '-':>10} {dm if dm else '-':>10} {ratio:>9}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--library", choices=["sluice", "dali"])
    ap.add_argument("--ops", nargs="*", help="operators (default: all)")
    ap.add_argument("--sizes", nargs="*", default=list(SIZES), choices=list(SIZES))
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--device", choices=["gpu", "cpu"], default="gpu",
                    help="cpu: the CPU operators instead (a check of the script without a GPU)")
    ap.add_argument("--iters", type=int, default=0, help="runs per round (default 20 / 4)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json")
    ap.add_argument("--profile", action="store_true",
                    help="also print each case's GPU time per kernel (torch.profiler)")
    ap.add_argument("--compare", nargs=2, metavar=("SLUICE_JSON", "DALI_JSON"))
    args = ap.parse_args()
    if args.compare:
        compare(*args.compare)
    elif args.library:
        measure(args)
    else:
        ap.error("give --library or --compare")
    return 0


if __name__ == "__main__":
    sys.exit(main())
