"""What the side-by-side scripts (pipeline_vs_dali.py, detection_vs_dali.py) share: the library
under test imported by name, and timed rounds of batches through its DALIGenericIterator."""

import importlib
import json
import time


def library(name):
    """(module, DALIGenericIterator, LastBatchPolicy) of "sluice" or "dali"; the module carries
    fn, types and pipeline_def, so one pipeline definition serves both."""
    root = "nvidia.dali" if name == "dali" else "sluice"
    lib = importlib.import_module(root)
    lib.fn = importlib.import_module(root + ".fn")
    lib.types = importlib.import_module(root + ".types")
    plugin = importlib.import_module(root + ".plugin.pytorch")
    return lib, plugin.DALIGenericIterator, plugin.LastBatchPolicy


def iterate(it, n, sync):
    """Takes n batches from `it` (across epochs: the iterator resets itself); the images in them."""
    images = 0
    while n > 0:
        for out in it:
            images += next(iter(out[0].values())).shape[0]
            n -= 1
            if n == 0:
                break
    sync()
    return images


def timed_rounds(it, args, sync, label, after_round=lambda: None):
    """args.rounds rounds of args.batches batches after the caller's warm-up: images/s each."""
    rates = []
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        n = iterate(it, args.batches, sync)
        rates.append(n / (time.perf_counter() - t0))
        print(f"{label}: {rates[-1]:,.0f} images/s", flush=True)
        after_round()
    return rates


def report(res, path):
    print(json.dumps(res), flush=True)
    if path:
        with open(path, "w") as f:
            json.dump(res, f, indent=1)
