"""``sluice bench``: Sluice against torchvision's DataLoader, side by side, on the same files.

Every loader does the same work: random-resized-crop to 224, horizontal flip, normalisation, in
batches of 256, delivered as float batches on the GPU when there is one (on the CPU otherwise).
Each loader runs in its own child process (so memory and CPU time are its own): a warm-up epoch,
then whole epochs in steady state (at least ``--epochs``, and at least ``--min-seconds`` long).
Reported: images/s (every image once per epoch, the last batch partial), ratio to each
torchvision loader, CPU utilisation, peak RSS, device memory (the free memory the loader took,
its processes' CUDA contexts included; with --train the model's too), time to first batch,
and for sluice-gpu the share of images the hardware JPEG decoder took. Writes JSON and a PNG
chart.
With ``--train ARCH`` every loader feeds a torchvision model's training steps instead (bf16 and
channels_last on a GPU), and random batches already on the device give the ceiling.
"""

import argparse
import collections
import json
import os
import pathlib
import subprocess
import sys
import time

LOADERS = ["sluice-cpu", "sluice-gpu", "torchvision-pil", "torchvision-tensor"]
SYNTHETIC = "synthetic"  # with --train: random batches on the device, the ceiling
MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


def add_parser(sub):
    p = sub.add_parser("bench", help="Sluice vs torchvision's DataLoader on this machine")
    p.add_argument("--data", help="folder of class sub-folders of JPEGs (default: generated)")
    p.add_argument("--images", type=int, default=2000, help="size of the generated dataset")
    p.add_argument("--batch-size", "-b", type=int, default=256)
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                   help="threads (Sluice) / worker processes (torchvision); default: all cores")
    p.add_argument("--epochs", type=int, default=1, help="timed epochs after the warm-up")
    p.add_argument("--min-seconds", type=float, default=3.0,
                   help="time more whole epochs until at least this long: a fast loader's epoch "
                   "of the default dataset takes a tenth of a second on a GPU")
    p.add_argument("--loaders", default=",".join(LOADERS), help="comma-separated subset")
    p.add_argument("--threads", default=None,
                   help="sweep Sluice's thread count, e.g. 1,2,4,8 (scaling efficiency)")
    p.add_argument("--processes", default="1",
                   help="run each Sluice loader with these numbers of pipeline processes, e.g. "
                   "1,3: N > 1 splits the threads over N child processes, one shard each (more "
                   "hardware JPEG supply on a GPU, for a GPU context and buffers per process)")
    p.add_argument("--prefetch", type=int, default=0,
                   help="Sluice's prefetch_queue_depth (default: 3 from 12 threads, where the CPU "
                   "stage then runs 3 iterations at once; else 2)")
    p.add_argument("--train", choices=["resnet18", "resnet50"],
                   help="train this model on each loader's batches, with synthetic data as the "
                   "ceiling (end to end)")
    p.add_argument("--profile", action="store_true",
                   help="print Sluice's bottleneck report (per-operator times, limiting stage)")
    p.add_argument("--json", default="bench-results.json", help="where to write the results")
    p.add_argument("--chart", default="bench-results.png", help="where to write the chart")
    p.add_argument("--worker", help=argparse_suppress())
    p.set_defaults(func=run)


def argparse_suppress():
    return argparse.SUPPRESS


def default_dataset(images):
    root = pathlib.Path(os.environ.get("XDG_CACHE_HOME", pathlib.Path.home() / ".cache"))
    out = root / "sluice" / f"bench-{images}"
    from sluice.tools.make_dataset import make_dataset

    expected = images
    have = sum(1 for _ in out.rglob("*.jpg")) if out.exists() else 0
    if have < expected:
        print(f"making a dataset of {images} JPEGs in {out} (once)", file=sys.stderr)
        make_dataset(out, images=images, classes=min(100, images))
    return out


def has_gpu():
    from sluice import backend

    return backend.cuda_device_count() > 0


# ----------------------------------------------------------------------------------- loaders
def sluice_pipeline(data, batch, threads, gpu_decode, use_gpu, train, prefetch, shard_id=0,
                    num_shards=1):
    """The benchmark's Sluice pipeline, not built (module level: a child process builds it too)."""
    from sluice import backend, fn, pipeline_def, types

    # A depth of 3 pays only where the CPU stage then runs 3 iterations (from 12 threads); below
    # that it costs a batch of memory for nothing (bench/RESULTS.md#cpu-three-iterations).
    prefetch = prefetch or (3 if backend.default_cpu_workers(threads, 3) == 3 else 2)

    @pipeline_def(batch_size=batch, num_threads=threads, device_id=0 if use_gpu else None, seed=1,
                  prefetch_queue_depth=prefetch)
    def pipe():
        jpegs, labels = fn.readers.file(file_root=str(data), random_shuffle=True, name="Reader",
                                        shard_id=shard_id, num_shards=num_shards)
        if gpu_decode:
            # The decoder's defaults: from 8 threads the CPU codec takes what the hardware decoder
            # does not. Next to training it takes everything: nvJPEG's CUDA calls slow the
            # model's own launches (bench/RESULTS.md#train-nvjpeg-cost; train.py does the same).
            extra = {"rest_decoder": "cpu", "hw_decoder_load": 0.0} if train else {}
            if num_shards > 1 and not train:
                # A process's few threads would make "auto" take the hybrid path (below 8), with
                # a fixed share; but every core decodes, and the CPU codec with a balanced share
                # is faster there (bench/RESULTS.md#loaders-processes).
                extra["rest_decoder"] = "cpu"
            images = fn.decoders.image_random_crop(jpegs, device="mixed", name="Decoder", **extra)
            images = fn.resize(images, size=(224, 224))
        else:
            images = fn.decoders.image_random_crop(jpegs, name="Decoder")
            images = fn.resize(images, size=(224, 224))
            if use_gpu:
                images = images.gpu()  # uint8 crosses PCIe; normalisation happens on the GPU
        images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW",
                                          mean=MEAN, std=STD, mirror=fn.random.coin_flip())
        return images, labels.gpu() if use_gpu else labels

    return pipe()


def sluice_loader(data, batch, threads, gpu_decode, use_gpu, train, prefetch, processes=1):
    """Through the PyTorch plugin, as a trainer takes it (a partial last batch: every image once
    per epoch). With processes > 1, one pipeline of threads // processes threads per child
    process, each over its own shard (ProcessIterator: each process has its own driver lock for
    the hardware JPEG submission, bench/RESULTS.md#gpu-contexts)."""
    from sluice.plugin.pytorch import DALIGenericIterator, LastBatchPolicy, ProcessIterator

    kw = dict(reader_name="Reader", auto_reset=True, last_batch_policy=LastBatchPolicy.PARTIAL)
    if processes > 1:
        import functools

        share = max(1, threads // processes)
        keep = it = ProcessIterator([functools.partial(sluice_pipeline, data, batch, share,
                                                       gpu_decode, use_gpu, train, prefetch, k,
                                                       processes)
                                     for k in range(processes)], ["images", "labels"], **kw)
    else:
        keep = sluice_pipeline(data, batch, threads, gpu_decode, use_gpu, train, prefetch)
        it = DALIGenericIterator(keep, ["images", "labels"], **kw)

    def epoch():
        for step in it:  # a batch from each pipeline
            for out in step:
                yield out["images"], out["labels"]

    return epoch, keep


def decoder_statistics(keep):
    """The cumulative statistics of the operator named "Decoder", one dict per pipeline, of a
    Pipeline or a ProcessIterator."""
    stats = keep.executor_statistics()
    return [s["Decoder"] for s in (stats if isinstance(stats, list) else [stats])]


def torchvision_loader(data, batch, workers, kind, use_gpu):
    import torch
    import torchvision
    from torchvision import transforms as T

    mean = torch.tensor([m / 255 for m in MEAN]).view(1, 3, 1, 1)
    std = torch.tensor([s / 255 for s in STD]).view(1, 3, 1, 1)
    if kind == "pil":
        tf = T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.ToTensor(),
                        T.Normalize([m / 255 for m in MEAN], [s / 255 for s in STD])])
        dataset = torchvision.datasets.ImageFolder(str(data), tf)
    else:
        from torchvision.io import decode_jpeg, read_file

        try:
            from torchvision.transforms import v2 as V

            crop = V.Compose([V.RandomResizedCrop(224, antialias=True), V.RandomHorizontalFlip()])
        except ImportError:  # torchvision < 0.15: the v1 transforms take uint8 tensors too
            crop = T.Compose([T.RandomResizedCrop(224, antialias=True), T.RandomHorizontalFlip()])

        def load(path):
            return crop(decode_jpeg(read_file(path)))

        dataset = torchvision.datasets.DatasetFolder(str(data), load, extensions=(".jpg", ".jpeg"))
    loader = torch.utils.data.DataLoader(dataset, batch_size=batch, shuffle=True,
                                         num_workers=workers, pin_memory=use_gpu,
                                         persistent_workers=workers > 0, drop_last=False)
    device = torch.device("cuda" if use_gpu else "cpu")
    mean, std = mean.to(device), std.to(device)

    def epoch():
        for images, labels in loader:
            images = images.to(device, non_blocking=True)
            labels = labels.to(device, non_blocking=True)
            if kind != "pil":  # uint8 HWC -> normalised float on the device
                images = (images.float() / 255 - mean) / std
            yield images, labels

    return epoch, loader


def synthetic_loader(data, batch, use_gpu):
    """The batches the folder gives (the last one partial), random and already on the device."""
    import torch

    device = torch.device("cuda" if use_gpu else "cpu")
    files = sum(1 for _ in pathlib.Path(data).rglob("*.jpg"))
    images = torch.randn(batch, 3, 224, 224, device=device)
    labels = torch.randint(0, 1000, (batch,), device=device)

    def epoch():
        for start in range(0, files, batch):
            n = min(batch, files - start)
            yield images[:n], labels[:n]

    return epoch, None


def training(arch, use_gpu, state):
    """Wraps a loader's epochs so that each batch goes through a training step of `arch`; `state`
    counts the steps and keeps the last loss."""
    import torch
    import torchvision

    device = torch.device("cuda" if use_gpu else "cpu")
    model = getattr(torchvision.models, arch)(num_classes=1000).to(device)
    model = model.to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    loss_fn = torch.nn.CrossEntropyLoss()

    def wrap(epoch):
        def trained_epoch():
            for images, labels in epoch():
                yield images, labels  # first, so the time to the first batch is the loader's
                x = images.to(device).contiguous(memory_format=torch.channels_last)
                with torch.autocast(device.type, dtype=torch.bfloat16, enabled=use_gpu):
                    loss = loss_fn(model(x), labels.to(device).view(-1).long())
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                state["steps"] = state.get("steps", 0) + 1
                state["loss"] = loss.detach()

        return trained_epoch

    return wrap


def measure(args):
    """Runs one loader (in a child process) and prints its JSON result."""
    import resource

    import torch  # before the clock starts: its import is not the loader's start-up

    use_gpu = has_gpu()
    kind = args.worker
    processes = int(os.environ.get("SLUICE_BENCH_PROCESSES", 1))
    if use_gpu:  # this process's CUDA context first: a trainer has it anyway
        free0 = torch.cuda.mem_get_info()[0]
    trained = {}
    train = training(args.train, use_gpu, trained) if args.train else None
    t_start = time.perf_counter()
    if kind == SYNTHETIC:
        epoch, keep = synthetic_loader(args.data, args.batch_size, use_gpu)
    elif kind.startswith("sluice"):
        threads = int(os.environ.get("SLUICE_BENCH_THREADS", args.workers))
        epoch, keep = sluice_loader(args.data, args.batch_size, threads, kind == "sluice-gpu",
                                    use_gpu, bool(args.train), args.prefetch, processes)
    else:
        epoch, keep = torchvision_loader(args.data, args.batch_size, args.workers,
                                         kind.split("-")[1], use_gpu)
    if train:
        epoch = train(epoch)
    sync = torch.cuda.synchronize if use_gpu else (lambda: None)
    it = epoch()
    images = next(it)[0]
    sync()
    ttfb = time.perf_counter() - t_start
    first = {"first_batch_shape": list(images.shape), "first_batch_dtype": str(images.dtype),
             "first_batch_device": str(images.device)}
    # Hold no warm-up batch while timing: a Sluice batch's buffer returns to the pipeline only
    # when torch lets go of it, so a held one makes the pipeline allocate another
    # (bench/RESULTS.md#counting).
    del images
    collections.deque(it, maxlen=0)  # the rest of the warm-up epoch
    sync()
    hardware = kind == "sluice-gpu"
    before = decoder_statistics(keep) if hardware else None
    n = 0
    rss_per_epoch = []
    t0 = time.perf_counter()
    cpu0 = tree_usage()[1]
    epochs = 0
    while epochs < args.epochs or time.perf_counter() - t0 < args.min_seconds:
        for images, labels in epoch():
            n += images.shape[0]
        rss_per_epoch.append(round(tree_usage()[0], 1))
        epochs += 1
    sync()
    dt = time.perf_counter() - t0
    busy = tree_usage()[1] - cpu0
    # Peak of this process, or of the whole tree at an epoch's end (workers are not reaped yet).
    rss = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, max(rss_per_epoch))
    result = {"loader": kind, "images_per_s": n / dt, "images": n, "epochs": epochs, "seconds": dt,
              "time_to_first_batch_s": ttfb, "cpu_utilisation": busy / dt / (os.cpu_count() or 1),
              "peak_rss_mb": rss, "rss_per_epoch_mb": rss_per_epoch, **first}
    if trained:
        result["train"] = {"arch": args.train, "steps": trained["steps"],
                           "last_loss": float(trained["loss"])}
    if hardware:
        from sluice.profile import hardware_share

        result["hw_share"], per_pipeline = hardware_share(before, decoder_statistics(keep))
        if processes > 1:
            result["hw_share_per_process"] = per_pipeline
    if use_gpu:  # what the loader took from the model: pools, caches, its processes' contexts
        result["device_memory_mb"] = (free0 - torch.cuda.mem_get_info()[0]) / 2**20
    if processes > 1:
        result["processes"] = processes
    elif kind.startswith("sluice") and args.profile:
        result["bottleneck_report"] = keep.bottleneck_report()
    del keep
    print(json.dumps(result))
    return 0


def process_tree():
    """This process and its children (DataLoader workers): /proc/<pid> paths."""
    me = str(os.getpid())
    tree = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = f.read().rsplit(")", 1)[1].split()[1]
        except (OSError, IndexError):
            continue  # the process ended meanwhile
        if pid == me or ppid == me:
            tree.append(f"/proc/{pid}")
    return tree


def tree_usage():
    """(resident MB, CPU seconds) of the process tree now; os.times() misses live workers."""
    rss = ticks = 0
    for p in process_tree():
        try:
            with open(f"{p}/statm") as f:
                rss += int(f.read().split()[1])
            with open(f"{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # utime + stime
        except (OSError, IndexError):
            continue
    return rss * os.sysconf("SC_PAGE_SIZE") / 2**20, ticks / os.sysconf("SC_CLK_TCK")


# ----------------------------------------------------------------------------------- driver
def run_child(args, loader, extra_env=None):
    cmd = [sys.executable, "-m", "sluice.cli", "bench", "--worker", loader, "--data", str(args.data),
           "-b", str(args.batch_size), "--workers", str(args.workers), "--epochs", str(args.epochs),
           "--prefetch", str(args.prefetch), "--min-seconds", str(args.min_seconds)]
    if args.profile:
        cmd.append("--profile")
    if args.train:
        cmd += ["--train", args.train]
    env = dict(os.environ, **(extra_env or {}))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        return {"loader": loader, "error": (proc.stderr or proc.stdout).strip().splitlines()[-1:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _ratio(result, baseline, width):
    """'1.23x' right-aligned in width; '-' when the baseline did not run."""
    if not baseline:
        return f"{'-':>{width}s}"
    return f"{result['images_per_s'] / baseline:{width - 1}.2f}x"


def table(results):
    base = {r["loader"]: r.get("images_per_s") for r in results if "images_per_s" in r}
    ceiling = SYNTHETIC in base
    lines = [f"{'loader':28s} {'images/s':>10s} {'vs tv-tensor':>12s} {'vs tv-pil':>10s} "
             + (f"{'of synthetic':>12s} " if ceiling else "")
             + f"{'CPU util':>8s} {'RSS MB':>8s} {'dev MB':>7s} {'1st batch':>9s} {'hw share':>8s}"]
    for r in results:
        if "error" in r:
            lines.append(f"{r['loader']:28s} failed: {r['error']}")
            continue
        lines.append(
            f"{r['loader']:28s} {r['images_per_s']:10,.0f} "
            f"{_ratio(r, base.get('torchvision-tensor'), 12)} "
            f"{_ratio(r, base.get('torchvision-pil'), 10)} "
            + (f"{100 * r['images_per_s'] / base[SYNTHETIC]:11.1f}% " if ceiling else "")
            + f"{100 * r['cpu_utilisation']:7.0f}% {r['peak_rss_mb']:8.0f} "
            f"{r.get('device_memory_mb', 0):7.0f} {r['time_to_first_batch_s']:8.2f}s "
            + (f"{r['hw_share']:8.2f}" if "hw_share" in r else f"{'-':>8s}"))
    return "\n".join(lines)


def chart(results, path, train=None):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    ok = [r for r in results if "images_per_s" in r]
    fig, ax = plt.subplots(figsize=(7, 0.6 * len(ok) + 1.5))
    ax.barh([r["loader"] for r in ok], [r["images_per_s"] for r in ok], color="#3b7dd8")
    for i, r in enumerate(ok):
        ax.text(r["images_per_s"], i, f" {r['images_per_s']:,.0f}", va="center")
    ax.set_xlim(0, 1.15 * max((r["images_per_s"] for r in ok), default=1))  # room for the labels
    work = f"training {train} on " if train else ""
    ax.set_xlabel(f"images / s ({work}RandomResizedCrop 224, flip, normalize, batch 256)")
    ax.invert_yaxis()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path


def bench(data=None, **options):
    """Python entry point: runs what ``sluice bench`` runs and returns its results (a list of
    dicts, one per loader), also printed and written to ``json`` / ``chart``. Options are the
    command's, by their Python names: ``bench(threads="1,2,4", train="resnet18", batch_size=128)``.
    """
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers())
    args = parser.parse_args(["bench"])
    for name, value in dict(options, data=data).items():
        if name == "worker" or not hasattr(args, name):
            raise TypeError(f"bench() got an unexpected option {name!r}")
        setattr(args, name, value)
    return compare(args)


def run(args):
    if args.worker:
        return measure(args)
    compare(args)
    return 0


def compare(args):
    """Runs every loader in a child process, prints the table and returns the results."""
    args.data = pathlib.Path(args.data) if args.data else default_dataset(args.images)
    loaders = [l for l in args.loaders.split(",") if l]
    counts = [int(x) for x in str(args.processes).split(",") if x]
    gpu = has_gpu()
    try:
        import torch  # noqa: F401
        have_torch = True
    except ImportError:
        have_torch = False
    if args.train and SYNTHETIC not in loaders:
        loaders.append(SYNTHETIC)
    results = []
    for loader in loaders:
        if loader == "sluice-gpu" and not gpu:
            continue
        if not have_torch:
            print(f"skipping {loader}: torch is not installed", file=sys.stderr)
            continue
        for procs in (counts if loader.startswith("sluice") else [1]):
            label = loader if procs == 1 else f"{loader} {procs} processes"
            print(f"running {label} ...", file=sys.stderr, flush=True)
            r = run_child(args, loader, {"SLUICE_BENCH_PROCESSES": str(procs)})
            r["loader"] = label
            results.append(r)
    if args.threads:
        for t in [int(x) for x in args.threads.split(",")]:
            r = run_child(args, "sluice-cpu", {"SLUICE_BENCH_THREADS": str(t)})
            r["loader"] = f"sluice-cpu {t} threads"
            r["threads"] = t
            results.append(r)
    meta = {"data": str(args.data), "batch_size": args.batch_size, "workers": args.workers,
            "epochs": args.epochs, "min_seconds": args.min_seconds,
            "prefetch": args.prefetch or "auto", "processes": counts, "cores": os.cpu_count(), "gpu": gpu,
            "train": args.train,
            "date": time.strftime("%Y-%m-%d %H:%M")}
    with open(args.json, "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=1)
    print(table(results))
    for r in results:
        if r.get("bottleneck_report"):
            print(f"\n{r['loader']}:\n{r['bottleneck_report']}")
    png = chart(results, args.chart, args.train)
    print(f"results: {args.json}" + (f", chart: {png}" if png else ""))
    return results

