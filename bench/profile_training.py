"""Where a training step's time goes next to a loader: profiles a few steps of
examples/imagenet/train.py's loop with torch.profiler (CUPTI records every CUDA call and kernel
of the process, Sluice's and nvJPEG's included) and reports, per step:

- the GPU's span, its busy time, and the training stream's idle time split into waiting for the
  host to launch the next kernel and other waits (the next batch);
- kernel time by origin (the model, Sluice, nvJPEG) and copies;
- CUDA API calls and time per host thread, and the launch latency of the training threads.

    python3 bench/profile_training.py DATA --loader sluice-gpu --arch resnet18 [--out DIR]
    python3 bench/profile_training.py --analyze DIR/trace_resnet18_sluice-gpu.json.gz
"""

import argparse
import collections
import gzip
import json
import pathlib
import sys


def profile(data, loader, arch, steps, out, extra):
    import torch
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "examples" / "imagenet"))
    import train

    args = train.parse_args([data, "--loader", loader, "--arch", arch, "--no-val"] + extra)
    device = torch.device("cuda", 0)
    torch.cuda.set_device(device)
    torch.backends.cudnn.benchmark = True
    epoch_fn, _ = train.LOADERS[loader](data, args, 0, 1, device, True)
    model = train.make_model(args, train.num_classes(data), device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    for x, y in epoch_fn():  # a warm-up epoch: cuDNN's choices, the loader's pools
        train.step(model, opt, x, y, args)
    batches = epoch_fn()
    for _ in range(5):
        train.step(model, opt, *next(batches), args)
    torch.cuda.synchronize()
    with torch_profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            train.step(model, opt, *next(batches), args)
        torch.cuda.synchronize()
    path = str(pathlib.Path(out) / f"trace_{arch}_{loader}.json.gz")
    prof.export_chrome_trace(path)  # gzipped by torch for a .gz name
    return path, steps


def origin(name):
    n = name.lower()
    if "sluice" in n:
        return "sluice"
    if "nvjpeg" in n:
        return "nvjpeg"
    return "model"


def analyze(path, steps):
    ev = json.load(gzip.open(path))["traceEvents"]
    api = [e for e in ev if e.get("cat") in ("cuda_runtime", "cuda_driver") and "dur" in e]
    launch_of = {e["args"]["correlation"]: e for e in api if "correlation" in e.get("args", {})}
    gpu = sorted((e for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")),
                 key=lambda e: e["ts"])
    per = lambda us: us / 1e3 / steps  # microseconds in all -> milliseconds per step
    lines = [f"{path} ({steps} steps)"]

    busy, (cur_start, cur_end) = 0.0, (gpu[0]["ts"], gpu[0]["ts"] + gpu[0]["dur"])
    for e in gpu[1:]:
        if e["ts"] > cur_end:
            busy += cur_end - cur_start
            cur_start, cur_end = e["ts"], e["ts"] + e["dur"]
        else:
            cur_end = max(cur_end, e["ts"] + e["dur"])
    busy += cur_end - cur_start
    span = gpu[-1]["ts"] + gpu[-1]["dur"] - gpu[0]["ts"]
    lines.append(f"  GPU span {per(span):.2f} ms/step, busy {per(busy):.2f} ms/step")

    by = collections.Counter()
    for e in gpu:
        by[origin(e["name"]) if e["cat"] == "kernel" else e["cat"]] += e["dur"]
    lines.append("  GPU time: " + ", ".join(f"{k} {per(v):.2f} ms" for k, v in by.most_common()))

    # The training stream: the one running most of the model's kernels. A gap on it ends either
    # with a kernel whose launch returned after the previous kernel had finished (the GPU waited
    # for the host) or with one queued earlier (it waited for something else: the next batch).
    streams = collections.Counter(e["args"].get("stream") for e in gpu if origin(e["name"]) == "model")
    train_stream = streams.most_common(1)[0][0]
    mine = [e for e in gpu if e["args"].get("stream") == train_stream]
    host_wait = other_wait = 0.0
    train_threads = collections.Counter()
    for a, b in zip(mine, mine[1:]):
        gap = b["ts"] - (a["ts"] + a["dur"])
        call = launch_of.get(b["args"].get("correlation"))
        if call:
            train_threads[call["tid"]] += 1
        if gap <= 2:
            continue
        if call and call["ts"] + call["dur"] > a["ts"] + a["dur"]:
            host_wait += gap
        else:
            other_wait += gap
    lines.append(f"  training stream idle: waiting for the host's launches {per(host_wait):.2f} "
                 f"ms/step, for other work (the next batch) {per(other_wait):.2f} ms/step")

    calls = collections.defaultdict(collections.Counter)
    time_in = collections.Counter()
    for e in api:
        calls[e["tid"]][e["name"]] += 1
        time_in[e["tid"]] += e["dur"]
    lines.append("  CUDA API per host thread (calls/step, ms/step, most frequent calls):")
    for tid, _ in time_in.most_common(12):
        c = calls[tid]
        role = "training" if tid in train_threads else "other"
        top = ", ".join(f"{n} {v // steps}" for n, v in c.most_common(3))
        lines.append(f"    {role:8s} {tid}: {sum(c.values()) // steps:4d} calls, "
                     f"{per(time_in[tid]):5.2f} ms: {top}")
    for tid, _ in train_threads.most_common(2):
        d = sorted(e["dur"] for e in api if e["tid"] == tid and e["name"] == "cudaLaunchKernel")
        if d:
            lines.append(f"  training thread {tid}: cudaLaunchKernel mean {sum(d) / len(d):.1f} us, "
                         f"median {d[len(d) // 2]:.1f}, p90 {d[int(len(d) * 0.9)]:.1f}")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", nargs="?")
    p.add_argument("--loader", default="sluice-gpu")
    p.add_argument("--arch", default="resnet18")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--out", default=".")
    p.add_argument("--analyze", help="a trace written by an earlier run")
    args, extra = p.parse_known_args(argv)
    if args.analyze:
        path, steps = args.analyze, args.steps
    else:
        path, steps = profile(args.data, args.loader, args.arch, args.steps, args.out, extra)
    print(analyze(path, steps))


if __name__ == "__main__":
    main()
