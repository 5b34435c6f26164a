"""``sluice bench``: Sluice against torchvision's DataLoader, side by side, on the same files.

Every loader does the same work: random-resized-crop to 224, horizontal flip, normalisation, in
batches of 256, delivered as float batches on the GPU when there is one (on the CPU otherwise).
Each loader runs in its own child process (so memory and CPU time are its own,
``bench_loaders.py``): a warm-up epoch (worker processes started, page cache warm), then whole
epochs in steady state (at least ``--epochs``, and at least ``--min-seconds`` long). The default
folder has at least 4 batches per worker, so that every worker of a many-core machine is busy
through the epoch. Reported: images/s (every image once per epoch, the last batch partial),
ratio to each torchvision loader, CPU utilisation, peak RSS, device memory (the free memory the
loader took, its processes' CUDA contexts included; with --train the model's too), time to
first batch, and for sluice-gpu the share of images the hardware JPEG decoder took. Figures
taken while other processes kept the cores busy are marked. Writes JSON and a PNG chart
(``bench_report.py``); exits with 1 when a loader failed.
With ``--train ARCH`` every loader feeds a torchvision model's training steps instead (bf16 and
channels_last on a GPU), and random batches already on the device give the ceiling.
"""

import argparse
import difflib
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

from sluice.tools import HelpFormatter
from sluice.tools.bench_loaders import (
    SYNTHETIC,
    count_images,
    has_gpu,
    measure,
    system_busy_seconds,
)
from sluice.tools.bench_report import chart, describe_machine, machine, table

LOADERS = ["sluice-cpu", "sluice-gpu", "torchvision-pil", "torchvision-tensor"]
MIN_IMAGES = 2000
BATCHES_PER_WORKER = 4  # per epoch, in the default folder: no worker idles for want of work


class BenchError(ValueError):
    """An argument `sluice bench` cannot run with (said before anything runs)."""


def add_parser(sub):
    p = sub.add_parser(
        "bench", help="Sluice vs torchvision's DataLoader on this machine",
        description="Runs Sluice's CPU and GPU pipelines and torchvision's DataLoader side by side "
        "on the same JPEGs (the same augmentations, batch and cores) and reports images/s, CPU "
        "utilisation and memory; writes JSON and a PNG chart.",
        formatter_class=HelpFormatter)
    p.add_argument("--data", help="folder of class sub-folders of JPEGs (default: one generated "
                   "once in ~/.cache/sluice, of --images images)")
    p.add_argument("--images", type=int, default=None,
                   help="size of the generated folder (default: the larger of "
                   f"{MIN_IMAGES} and {BATCHES_PER_WORKER} batches per worker)")
    p.add_argument("--batch-size", "-b", type=int, default=256, help="images per batch")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                   help="threads (Sluice) / worker processes (torchvision); default: all cores")
    p.add_argument("--epochs", type=int, default=1, help="timed epochs after the warm-up")
    p.add_argument("--min-seconds", type=float, default=3.0,
                   help="time more whole epochs until at least this long: a fast loader's epoch "
                   "takes a fraction of a second on a GPU")
    p.add_argument("--loaders", default=",".join(LOADERS),
                   help=f"comma-separated subset of {', '.join(LOADERS)}")
    p.add_argument("--threads", default=None,
                   help="sweep Sluice's thread count, e.g. 1,2,4,8 (scaling efficiency)")
    p.add_argument("--processes", default="1",
                   help="run each Sluice loader with these numbers of pipeline processes, e.g. "
                   "1,3: N > 1 splits the threads over N child processes, one shard each (more "
                   "hardware JPEG supply on a GPU, for a GPU context and buffers per process)")
    p.add_argument("--prefetch", type=int, default=0,
                   help="Sluice's prefetch_queue_depth (0: 3 from 12 threads, where the CPU "
                   "stage then runs 3 iterations at once; else 2)")
    p.add_argument("--train", choices=["resnet18", "resnet50"],
                   help="train this model on each loader's batches, with synthetic data as the "
                   "ceiling (end to end)")
    p.add_argument("--profile", action="store_true",
                   help="print Sluice's bottleneck report (per-operator times, limiting stage)")
    p.add_argument("--json", default="bench-results.json", help="where to write the results")
    p.add_argument("--chart", default="bench-results.png", help="where to write the chart")
    p.add_argument("--worker", help=argparse.SUPPRESS)  # a child process: measure this loader
    p.set_defaults(func=run)


def default_images(batch, workers):
    return max(MIN_IMAGES, BATCHES_PER_WORKER * batch * workers)


def default_dataset(images):
    root = pathlib.Path(os.environ.get("XDG_CACHE_HOME", pathlib.Path.home() / ".cache"))
    out = root / "sluice" / f"bench-{images}"
    from sluice.tools.make_dataset import make_dataset

    have = sum(1 for _ in out.rglob("*.jpg")) if out.exists() else 0
    if have < images:
        print(f"making a dataset of {images:,} JPEGs in {out} (once)", file=sys.stderr)
        make_dataset(out, images=images, classes=min(100, images))
    return out


# ----------------------------------------------------------------------------------- checks
def _int_list(text, what):
    try:
        values = [int(x) for x in str(text).split(",") if x.strip()]
    except ValueError:
        raise BenchError(f"{what} takes comma-separated whole numbers, got {text!r}") from None
    if not values or min(values) < 1:
        raise BenchError(f"{what} takes numbers of at least 1, got {text!r}")
    return values


def _module_missing(name):
    import importlib.util

    return importlib.util.find_spec(name) is None


def skip_reason(loader, train):
    """Why `loader` cannot run on this machine, or None."""
    if _module_missing("torch"):
        return "torch is not installed (the loaders deliver torch tensors)"
    if (loader.startswith("torchvision") or train) and _module_missing("torchvision"):
        return "torchvision is not installed"
    if loader == "sluice-gpu" and not has_gpu():
        from sluice import backend

        return "no CUDA device" if backend.built_with_cuda() else "this build has no CUDA"
    return None


def check(args):
    """Validates every argument and resolves the loaders; raises BenchError before anything
    runs. Returns (the loaders, {loader: why it cannot run here}, process counts, thread counts)."""
    for name in ("batch_size", "workers", "epochs"):
        if getattr(args, name) < 1:
            raise BenchError(f"--{name.replace('_', '-')} must be at least 1, got "
                             f"{getattr(args, name)}")
    if args.images is not None and args.images < 1:
        raise BenchError(f"--images must be at least 1, got {args.images}")
    if args.min_seconds < 0 or args.prefetch < 0:
        raise BenchError("--min-seconds and --prefetch cannot be negative")
    known = LOADERS + ([SYNTHETIC] if args.train else [])
    loaders = []
    for name in (x.strip() for x in str(args.loaders).split(",")):
        if not name:
            continue
        if name not in known:
            close = difflib.get_close_matches(name, known, 1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise BenchError(f"unknown loader '{name}'{hint}; the loaders are: {', '.join(known)}")
        if name not in loaders:
            loaders.append(name)
    if not loaders:
        raise BenchError(f"--loaders names no loader; the loaders are: {', '.join(known)}")
    if args.train and SYNTHETIC not in loaders:
        loaders.append(SYNTHETIC)
    counts = _int_list(args.processes, "--processes")
    threads = _int_list(args.threads, "--threads") if args.threads else []
    if args.data is not None:
        data = pathlib.Path(args.data)
        if not data.is_dir():
            raise BenchError(f"--data {data}: no such folder")
        if count_images(data) == 0:
            raise BenchError(f"--data {data}: no JPEGs in class sub-folders ({data}/CLASS/*.jpg, "
                             f"as torchvision's ImageFolder reads them); make such a folder with "
                             f"`sluice make-dataset {data}`, or leave --data out")
    for flag, path in (("--json", args.json), ("--chart", args.chart)):
        folder = pathlib.Path(path).parent
        if not folder.is_dir():
            raise BenchError(f"{flag} {path}: no folder {folder}")
    skipped = {}
    for name in loaders + (["sluice-cpu"] if threads else []):
        why = skip_reason(name, args.train)
        if why:
            skipped[name] = why
    if all(x in skipped for x in loaders) and (not threads or "sluice-cpu" in skipped):
        raise BenchError("nothing to run: " + "; ".join(f"{k}: {v}" for k, v in skipped.items()))
    return loaders, skipped, counts, threads


# ----------------------------------------------------------------------------------- driver
def busy_threshold(workers, cores):
    """Cores other processes may take before a loader of `workers` workers competes with them."""
    return max(0.5, 0.1 * cores) + max(0, cores - workers)


def mark_busy(result, workers, cores):
    """Marks (and warns about) a result measured while other processes kept the cores busy."""
    others = result.get("other_processes_cores")
    if others is not None:
        result["busy"] = others > busy_threshold(workers, cores)
        if result["busy"]:
            print(f"warning: while {result['loader']} ran, other processes kept {others:.1f} of the "
                  f"{cores} cores busy: its figures are marked", file=sys.stderr)
    return result


def others_now(seconds=1.0):
    """Cores the machine's other processes keep busy, over `seconds` (this one sleeps)."""
    b0, t0 = system_busy_seconds(), time.perf_counter()
    time.sleep(seconds)
    return max(0.0, system_busy_seconds() - b0) / (time.perf_counter() - t0)


def run_child(args, loader, label, extra_env=None):
    """Runs one loader in a child process with a progress bar; returns its result (or error)."""
    cmd = [sys.executable, "-m", "sluice.cli", "bench", "--worker", loader, "--data", str(args.data),
           "-b", str(args.batch_size), "--workers", str(args.workers), "--epochs", str(args.epochs),
           "--prefetch", str(args.prefetch), "--min-seconds", str(args.min_seconds)]
    if args.profile:
        cmd.append("--profile")
    if args.train:
        cmd += ["--train", args.train]
    env = dict(os.environ, **(extra_env or {}))
    bar = _bar(label)
    result = None
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True, env=env)
        try:
            for line in proc.stdout:
                msg = _message(line)
                if "progress" in msg and bar is not None:
                    bar.total = msg["total"]
                    bar.update(msg["progress"] - bar.n)
                result = msg.get("result", result)
            proc.wait()
        except BaseException:  # Ctrl-C reaches the child too; leave none behind
            proc.kill()
            proc.wait()
            raise
        finally:
            if bar is not None:
                bar.close()
        if proc.returncode != 0 or result is None:
            err.seek(0)
            lines = [x for x in err.read().strip().splitlines() if x.strip()]
            return {"loader": label, "error": lines[-1] if lines else f"exit {proc.returncode}"}
    result["loader"] = label
    return result


def _message(line):
    """A child's JSON line as a dict; {} for anything else it printed."""
    try:
        msg = json.loads(line)
    except ValueError:
        return {}
    return msg if isinstance(msg, dict) else {}


def _bar(label):
    try:
        from tqdm import tqdm
    except ImportError:
        print(f"running {label} ...", file=sys.stderr, flush=True)
        return None
    return tqdm(total=None, desc=f"{label:26s}", unit="img", file=sys.stderr, dynamic_ncols=True)


def bench(data=None, **options):
    """Python entry point: runs what ``sluice bench`` runs and returns its results (a list of
    dicts, one per loader), also printed and written to ``json`` / ``chart``. Options are the
    command's, by their Python names: ``bench(threads="1,2,4", train="resnet18", batch_size=128)``.
    Raises ValueError for arguments it cannot run with.
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
    try:
        results = compare(args)
    except BenchError as e:
        print(f"sluice bench: error: {e}", file=sys.stderr)
        return 2
    failed = [r["loader"] for r in results if "error" in r]
    if failed:
        print(f"sluice bench: failed: {', '.join(failed)} (the table says why)", file=sys.stderr)
        return 1
    return 0


def compare(args):
    """Runs every loader in a child process, prints the table and returns the results."""
    loaders, skipped, counts, threads = check(args)
    for name, why in skipped.items():
        print(f"{name}: skipped, {why}", file=sys.stderr)
    if args.data is None:
        args.data = default_dataset(args.images or default_images(args.batch_size, args.workers))
    args.data = pathlib.Path(args.data)
    cores = os.cpu_count() or 1
    others = others_now()
    if others > busy_threshold(args.workers, cores):
        print(f"warning: the machine is busy: other processes keep {others:.1f} of its {cores} "
              f"cores busy, and the loaders use {args.workers} workers; figures taken meanwhile "
              "are marked", file=sys.stderr)
    results = []
    for loader in loaders:
        if loader in skipped:
            results.append({"loader": loader, "skipped": skipped[loader]})
            continue
        for procs in counts if loader.startswith("sluice") else [1]:
            label = loader if procs == 1 else f"{loader} {procs} processes"
            r = run_child(args, loader, label, {"SLUICE_BENCH_PROCESSES": str(procs)})
            results.append(mark_busy(r, args.workers, cores))
    if "sluice-cpu" not in skipped:
        for t in threads:
            label = f"sluice-cpu {t} thread{'s' if t > 1 else ''}"
            r = run_child(args, "sluice-cpu", label, {"SLUICE_BENCH_THREADS": str(t)})
            r["threads"] = t
            results.append(mark_busy(r, t, cores))
    meta = {"data": str(args.data), "images": count_images(args.data),
            "batch_size": args.batch_size, "workers": args.workers, "epochs": args.epochs,
            "min_seconds": args.min_seconds, "prefetch": args.prefetch or "auto",
            "processes": counts, "cores": cores, "gpu": has_gpu(), "train": args.train,
            "machine": machine(results), "other_processes_cores_before": round(others, 2),
            "sluice": __import__("sluice").__version__, "date": time.strftime("%Y-%m-%d %H:%M")}
    with open(args.json, "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=1)
    print(describe_machine(meta["machine"]))
    print(table(results, meta))
    for r in results:
        if r.get("bottleneck_report"):
            print(f"\n{r['loader']}:\n{r['bottleneck_report']}")
    png = chart(results, meta, args.chart)
    print(f"results: {args.json}" + (f", chart: {png}" if png else ", no chart (no loader ran)"))
    return results
