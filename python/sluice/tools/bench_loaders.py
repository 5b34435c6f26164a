"""The side of ``sluice bench`` that runs in each loader's child process: the loaders (Sluice's
pipelines through the PyTorch plugin, torchvision's DataLoader, synthetic batches), optional
training steps, and the measurement of one loader (``measure``), reported to the parent as JSON
lines on stdout: progress while it runs, the result at the end.
"""

import json
import os
import pathlib
import time

SYNTHETIC = "synthetic"  # with --train: random batches on the device, the ceiling
MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]
IMAGE_SUFFIXES = (".jpg", ".jpeg")


def count_images(data):
    """JPEGs in the class sub-folders of `data` (what every loader reads)."""
    return sum(1 for d in pathlib.Path(data).iterdir() if d.is_dir()
               for f in d.rglob("*") if f.suffix.lower() in IMAGE_SUFFIXES)


def has_gpu():
    from sluice import backend

    return backend.cuda_device_count() > 0


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
    """Runs one loader (in a child process): prints progress lines, then its JSON result."""
    import resource

    import torch  # before the clock starts: its import is not the loader's start-up

    use_gpu = has_gpu()
    kind = args.worker
    processes = int(os.environ.get("SLUICE_BENCH_PROCESSES", 1))
    files = count_images(args.data)
    report = Progress(files * (1 + args.epochs))
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
    report(images.shape[0])
    # Hold no warm-up batch while timing: a Sluice batch's buffer returns to the pipeline only
    # when torch lets go of it, so a held one makes the pipeline allocate another
    # (bench/RESULTS.md#counting).
    del images
    for batch in it:  # the rest of the warm-up epoch: workers started, page cache warm
        report(batch[0].shape[0])
        del batch
    sync()
    hardware = kind == "sluice-gpu"
    before = decoder_statistics(keep) if hardware else None
    n = 0
    rss_per_epoch = []
    t0 = time.perf_counter()
    cpu0, system0 = tree_usage()[1], system_busy_seconds()
    epochs = 0
    while epochs < args.epochs or time.perf_counter() - t0 < args.min_seconds:
        if epochs >= args.epochs:
            report.total += files
        for images, labels in epoch():
            n += images.shape[0]
            report(images.shape[0])
        rss_per_epoch.append(round(tree_usage()[0], 1))
        epochs += 1
    sync()
    dt = time.perf_counter() - t0
    report(last=True)
    busy = tree_usage()[1] - cpu0
    # CPU time of everything else on the machine meanwhile, in cores: figures taken next to other
    # work are not this loader's alone.
    others = max(0.0, system_busy_seconds() - system0 - busy) / dt
    # Peak of this process, or of the whole tree at an epoch's end (workers are not reaped yet).
    rss = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, max(rss_per_epoch))
    result = {"loader": kind, "images_per_s": n / dt, "images": n, "epochs": epochs, "seconds": dt,
              "time_to_first_batch_s": ttfb, "cpu_utilisation": busy / dt / (os.cpu_count() or 1),
              "other_processes_cores": others, "peak_rss_mb": rss, "rss_per_epoch_mb": rss_per_epoch,
              **first}
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
        result["gpu_name"] = torch.cuda.get_device_name()
    if processes > 1:
        result["processes"] = processes
    elif kind.startswith("sluice") and args.profile:
        result["bottleneck_report"] = keep.bottleneck_report()
    del keep
    print(json.dumps({"result": result}), flush=True)
    return 0


class Progress:
    """Reports images delivered to the parent (a JSON line on stdout, at most 4 a second)."""

    def __init__(self, total):
        self.total, self.done, self.last = total, 0, 0.0

    def __call__(self, images=0, last=False):
        self.done += images
        now = time.monotonic()
        if now - self.last >= 0.25 or last:
            self.last = now
            print(json.dumps({"progress": self.done, "total": self.total}), flush=True)


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


def system_busy_seconds():
    """CPU seconds every process of the machine has run, from /proc/stat (0 where unreadable)."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return 0.0
    # user nice system idle iowait irq softirq steal (guest time is inside user)
    busy = sum(fields[:3]) + sum(fields[5:8])
    return busy / os.sysconf("SC_CLK_TCK")
