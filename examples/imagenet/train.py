"""Train a torchvision ResNet on an ImageFolder-style directory with Sluice or torchvision feeding it.

    python examples/imagenet/train.py DATA --loader sluice-gpu --arch resnet50 -b 256 --epochs 1
    torchrun --nproc_per_node=2 examples/imagenet/train.py DATA --loader sluice-gpu

DATA holds train/ and val/ (one sub-folder per class each), or class folders directly (then it
serves both). Loaders: sluice-gpu (the GPU pipeline: the mixed decoder, then resizing, flipping
and normalisation on the GPU), sluice-cpu (decoding and augmentation on CPU threads,
normalisation on the GPU by the iterator's prefetcher), torchvision (DataLoader with worker
processes), synthetic (random data already on the GPU: the ceiling). bf16 autocast and
channels_last; DDP under torchrun. Prints images/s and loss/accuracy per epoch. --iters N limits
each epoch to N steps (for tests); --find-max-batch searches the largest batch the model trains
with next to the loader. --loader-process runs the Sluice pipeline in a child process (for MPS).
"""

import argparse
import os
import pathlib
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F
import torchvision

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data")
    p.add_argument("--loader", default="sluice-gpu",
                   choices=["sluice-gpu", "sluice-cpu", "torchvision", "synthetic"])
    p.add_argument("--arch", default="resnet18")
    p.add_argument("-b", "--batch-size", type=int, default=256, help="per process")
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--workers", type=int, default=None,
                   help="Sluice threads or DataLoader worker processes (per process); default: "
                        "all cores")
    p.add_argument("--lr", type=float, default=0.1, help="for a global batch of 256")
    p.add_argument("--iters", type=int, default=0, help="steps per epoch (0: the whole epoch)")
    p.add_argument("--no-val", action="store_true", help="skip validation")
    p.add_argument("--prefetch", type=int, default=None,
                   help="Sluice prefetch_queue_depth (default: 3 for sluice-gpu, else 2)")
    # Not given, the decoder's own defaults: the CPU decodes what the hardware decoder does not
    # take, and the hardware share balances itself, stepping aside while this process's model
    # keeps the GPU busy (Note [A busy consumer], bench/RESULTS.md#train-busy-consumer).
    p.add_argument("--hw-decoder-load", default="auto",
                   type=lambda v: v if v == "auto" else float(v),
                   help="sluice-gpu: share of each batch for the hardware JPEG decoder, or "
                        "'auto' (the decoder's default: balanced, out of a busy model's way)")
    p.add_argument("--loader-process", action="store_true",
                   help="sluice loaders: run the pipeline in a child process, batches handed "
                        "over by CUDA IPC (ProcessIterator), so that its nvJPEG calls do not "
                        "wait on this process's queued CUDA-graph work; pays off under MPS")
    p.add_argument("--rest-decoder", default="auto", choices=["auto", "nvjpeg", "cpu"],
                   help="sluice-gpu: what decodes the rest: the CPU decoder, nvJPEG's hybrid "
                        "path (DALI's choice), or 'auto' (the decoder's default)")
    p.add_argument("--cuda-graph", action="store_true",
                   help="capture the training step once and replay it: one launch per step, so "
                        "the loader's threads and CUDA calls cannot delay the model's kernels "
                        "(one process only)")
    p.add_argument("--no-channels-last", action="store_true")
    p.add_argument("--no-bf16", action="store_true")
    p.add_argument("--find-max-batch", action="store_true",
                   help="search the largest batch the model trains with next to this loader")
    p.add_argument("--json", help="append the results as a JSON line to this file")
    args = p.parse_args(argv)
    if args.workers is None:
        args.workers = os.cpu_count() or 4
    if args.prefetch is None:  # one more batch in flight evens out the CPU decoder's pace
        args.prefetch = 3 if args.loader == "sluice-gpu" else 2
    return args


def folders(data):
    root = pathlib.Path(data)
    if (root / "train").is_dir():
        return root / "train", root / "val" if (root / "val").is_dir() else root / "train"
    return root, root


# --------------------------------------------------------------------------------- loaders
def sluice_pipeline(folder, args, rank, world, device_index, train):
    """The Sluice pipeline of the sluice-gpu and sluice-cpu loaders (module level, so that
    --loader-process can build it in a child process)."""
    from sluice import fn, pipeline_def, types

    gpu = args.loader == "sluice-gpu"
    # NHWC batches seen through permute() are channels_last NCHW tensors: no conversion copy.
    layout = "CHW" if args.no_channels_last else "HWC"

    @pipeline_def(batch_size=args.batch_size, num_threads=args.workers, seed=12 + rank,
                  device_id=device_index, prefetch_queue_depth=args.prefetch)
    def pipe():
        jpegs, labels = fn.readers.file(file_root=str(folder), shard_id=rank, num_shards=world,
                                        random_shuffle=train, pad_last_batch=True, name="Reader")
        dev = "mixed" if gpu else "cpu"
        if train:
            mixed = {}  # auto: the decoder's defaults, as DALI's pipeline code would get them
            if gpu and args.rest_decoder != "auto":
                mixed["rest_decoder"] = args.rest_decoder
            if gpu and args.hw_decoder_load != "auto":
                mixed["hw_decoder_load"] = args.hw_decoder_load
            images = fn.decoders.image_random_crop(jpegs, device=dev, output_type=types.RGB,
                                                   **mixed)
            images = fn.resize(images, resize_x=224, resize_y=224)
            flip = fn.random.coin_flip(probability=0.5)
        else:
            images = fn.decoders.image(jpegs, device=dev, output_type=types.RGB)
            images = fn.resize(images, resize_shorter=256)
            flip = 0
        if gpu:
            images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout=layout,
                                              crop=(224, 224), mean=MEAN, std=STD, mirror=flip)
            return images, labels.gpu()
        images = fn.crop(images, crop=(224, 224)) if not train else images
        return (fn.flip(images, horizontal=flip) if train else images), labels

    return pipe()


def sluice_loader(folder, args, rank, world, device, train):
    import functools

    from sluice.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy, ProcessIterator

    gpu = args.loader == "sluice-gpu"
    normalize = None if gpu else {"mean": MEAN, "std": STD, "device": device.index,
                                  "channels_last": not args.no_channels_last}
    kw = dict(reader_name="Reader", auto_reset=True, last_batch_policy=LastBatchPolicy.PARTIAL,
              gpu_normalize=normalize)
    if args.loader_process:
        build = functools.partial(sluice_pipeline, folder, args, rank, world, device.index, train)
        it = ProcessIterator(build, ["data", "label"], **kw)
    else:
        it = DALIClassificationIterator(sluice_pipeline(folder, args, rank, world, device.index,
                                                        train), **kw)
    channels_last_view = gpu and not args.no_channels_last

    def epoch():
        for batch in it:
            x = batch[0]["data"]
            yield (x.permute(0, 3, 1, 2) if channels_last_view else x,
                   batch[0]["label"].squeeze(-1).long())

    return epoch, len(it)


def torchvision_loader(folder, args, rank, world, device, train):
    T = torchvision.transforms
    tf = (T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.PILToTensor()]) if train
          else T.Compose([T.Resize(256), T.CenterCrop(224), T.PILToTensor()]))
    ds = torchvision.datasets.ImageFolder(str(folder), tf)
    sampler = torch.utils.data.distributed.DistributedSampler(ds, world, rank, shuffle=train)
    loader = torch.utils.data.DataLoader(ds, batch_size=args.batch_size, sampler=sampler,
                                         num_workers=args.workers, pin_memory=True,
                                         persistent_workers=True)
    mean = torch.tensor(MEAN, device=device).view(1, 3, 1, 1)
    std = torch.tensor(STD, device=device).view(1, 3, 1, 1)
    state = {"epoch": 0}

    def epoch():
        sampler.set_epoch(state["epoch"])
        state["epoch"] += 1
        for x, y in loader:
            x = (x.to(device, non_blocking=True).float() - mean) / std
            yield x, y.to(device, non_blocking=True)

    return epoch, len(loader)


def synthetic_loader(folder, args, rank, world, device, train):
    # The steps the real data makes, the last one partial (as the other loaders' PARTIAL policy
    # and DistributedSampler give it), so an epoch means the same work for every loader.
    files = sum(1 for p in pathlib.Path(folder).glob("*/*") if p.is_file())
    per_rank = max(1, -(-files // world))
    sizes = [args.batch_size] * (per_rank // args.batch_size)
    if per_rank % args.batch_size:
        sizes.append(per_rank % args.batch_size)
    x = torch.randn(args.batch_size, 3, 224, 224, device=device)
    y = torch.randint(0, num_classes(folder), (args.batch_size,), device=device)

    def epoch():
        for b in sizes:
            yield x[:b], y[:b]

    return epoch, len(sizes)


LOADERS = {"sluice-gpu": sluice_loader, "sluice-cpu": sluice_loader,
           "torchvision": torchvision_loader, "synthetic": synthetic_loader}


# --------------------------------------------------------------------------------- training
def num_classes(folder):
    return max(2, sum(1 for p in pathlib.Path(folder).iterdir() if p.is_dir()))


def make_model(args, classes, device):
    model = torchvision.models.__dict__[args.arch](num_classes=classes).to(device)
    if not args.no_channels_last:
        model = model.to(memory_format=torch.channels_last)
    return model


def step(model, opt, x, y, args):
    if not args.no_channels_last:
        x = x.contiguous(memory_format=torch.channels_last)
    # No weight-cast cache: a captured graph must not keep casts made before its capture.
    with torch.autocast("cuda", dtype=torch.bfloat16, enabled=not args.no_bf16,
                        cache_enabled=False):
        out = model(x)
        loss = F.cross_entropy(out, y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    return loss, out


class GraphedStep:
    """`step` as a CUDA graph: the first WARMUP calls run eagerly on a side stream (cuDNN picks
    its algorithms, the optimizer makes its momentum buffers), the next one captures the step on
    static input tensors, and every later call copies its batch in and replays. A batch of
    another shape (the last, partial one) runs eagerly.

    After a replay the loop waits, asleep, for the replay before it, so at most one more step
    is queued behind the running one: graph work queued in the process slows the loader's own
    CUDA calls in proportion, and without the wait the loop queues a step for every batch the
    loader has ready (bench/RESULTS.md#train-cuda-graph)."""

    WARMUP = 3

    def __init__(self, model, opt, args):
        self.model, self.opt, self.args = model, opt, args
        self.calls, self.graph, self.previous = 0, None, None
        # One side stream for warm-up, capture and eager steps: autograd's gradient
        # accumulators then always run on the stream they were made on.
        self.side = torch.cuda.Stream()

    def __call__(self, x, y):
        if self.graph is not None and x.shape == self.x.shape:
            self.x.copy_(x)
            self.y.copy_(y)
            self.graph.replay()
            done = torch.cuda.Event(blocking=True)
            done.record()
            if self.previous is not None:
                self.previous.synchronize()
            self.previous = done
            return self.loss, self.out
        if self.graph is not None or self.calls < self.WARMUP:
            self.calls += 1
            self.side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(self.side):
                loss, out = step(self.model, self.opt, x, y, self.args)
            torch.cuda.current_stream().wait_stream(self.side)
            return loss.detach(), out.detach()  # the autograd graph goes now, not next step
        self.x, self.y = torch.empty_like(x), torch.empty_like(y)
        self.graph = torch.cuda.CUDAGraph()
        # thread_local: the loader's threads keep making CUDA calls while this one captures.
        with torch.cuda.graph(self.graph, stream=self.side, capture_error_mode="thread_local"):
            loss, out = step(self.model, self.opt, self.x, self.y, self.args)
        self.loss, self.out = loss.detach(), out.detach()
        return self(x, y)


def make_train_step(model, opt, args):
    """The training step `(x, y) -> (loss, out)`: replayed as a CUDA graph with --cuda-graph."""
    if args.cuda_graph:
        return GraphedStep(model, opt, args)
    return lambda x, y: step(model, opt, x, y, args)


def progress(iterable, total, desc, rank):
    if rank != 0:
        return iterable
    try:
        from tqdm import tqdm

        return tqdm(iterable, total=total, desc=desc, unit="batch", leave=False)
    except ImportError:
        return iterable


def train_epoch(model, train_step, epoch_fn, steps, args, rank, world, e):
    """Trains one epoch; images/s counts the whole epoch, from its first batch request (epoch
    0 includes warm-up: compare later epochs). Sums stay on the GPU so no step waits for it.
    Events around every step split the GPU's time into the steps themselves and the gaps
    between them (the stream waiting for the next batch, or for the host to queue it)."""
    model.train()
    n, loss_sum, correct = 0, 0.0, 0
    total = min(steps, args.iters) if args.iters else steps
    marks = []
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for i, (x, y) in enumerate(progress(epoch_fn(), total, f"epoch {e}", rank)):
        if args.iters and i >= args.iters:
            break
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        loss, out = train_step(x, y)
        n += x.shape[0]
        loss_sum = loss_sum + loss.detach().float() * x.shape[0]
        correct = correct + (out.argmax(1) == y).sum()
        end.record()
        marks.append((start, end))
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    stats = torch.tensor([n, float(loss_sum), float(correct)], dtype=torch.float64,
                         device=torch.device("cuda", torch.cuda.current_device()))
    if world > 1:
        dist.all_reduce(stats)
    images = max(1.0, stats[0].item())
    busy = sum(a.elapsed_time(b) for a, b in marks)
    gaps = sum(marks[k][1].elapsed_time(marks[k + 1][0]) for k in range(len(marks) - 1))
    timing = {"step_ms": busy / max(1, len(marks)), "gap_share": gaps / max(1e-9, busy + gaps)}
    return stats[0].item() / dt, stats[1].item() / images, stats[2].item() / images, timing


@torch.no_grad()
def validate(model, epoch_fn, args):
    model.eval()
    correct = total = 0
    for i, (x, y) in enumerate(epoch_fn()):
        if args.iters and i >= args.iters:
            break
        if not args.no_channels_last:
            x = x.contiguous(memory_format=torch.channels_last)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=not args.no_bf16):
            correct += (model(x).argmax(1) == y).sum().item()
        total += y.numel()
    return correct / max(1, total)


def find_max_batch(args, device, classes, hold):
    """Largest power-of-two-refined batch the model trains with while `hold` (the loader's
    pipeline, already warmed up) keeps its memory."""
    model = make_model(args, classes, device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    lo, hi = 0, 64
    def fits(b):
        try:
            x = torch.randn(b, 3, 224, 224, device=device)
            y = torch.randint(0, classes, (b,), device=device)
            for _ in range(2):
                step(model, opt, x, y, args)
            torch.cuda.synchronize()
            return True
        except torch.cuda.OutOfMemoryError:
            return False
        finally:
            x = y = None
            torch.cuda.empty_cache()
    while fits(hi):
        lo, hi = hi, hi * 2
    while hi - lo > 8:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    del hold
    return lo


def main(argv=None):
    args = parse_args(argv)
    world = int(os.environ.get("WORLD_SIZE", 1))
    rank = int(os.environ.get("RANK", 0))
    local = int(os.environ.get("LOCAL_RANK", 0))
    device = torch.device("cuda", local % torch.cuda.device_count())
    torch.cuda.set_device(device)
    if world > 1:
        # NCCL needs one GPU per rank; ranks sharing a GPU (a one-GPU test machine) use gloo.
        shared = world > torch.cuda.device_count()
        dist.init_process_group("gloo" if shared else "nccl")
    torch.backends.cudnn.benchmark = True
    train_dir, val_dir = folders(args.data)
    classes = num_classes(train_dir)
    loader = LOADERS[args.loader]
    train_epoch_fn, steps = loader(train_dir, args, rank, world, device, train=True)
    if args.find_max_batch:
        it = train_epoch_fn()
        for _ in range(3):  # the loader's memory is in use and its pools are grown
            next(it)
        b = find_max_batch(args, device, classes, it)
        print(f"max batch {args.arch} with {args.loader}: {b}")
        if args.json:
            import json

            with open(args.json, "a") as f:
                f.write(json.dumps({"arch": args.arch, "loader": args.loader, "max_batch": b}) + "\n")
        return 0
    model = make_model(args, classes, device)
    if world > 1:
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[device.index])
    lr = args.lr * args.batch_size * world / 256
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=1e-4)
    if args.cuda_graph and world > 1:
        raise SystemExit("--cuda-graph: one process only (DDP's hooks are not captured here)")
    train_step = make_train_step(model, opt, args)
    val_epoch_fn = None  # built when first needed: the validation pipeline stays off the GPU
    for e in range(args.epochs):
        ips, loss, acc, timing = train_epoch(model, train_step, train_epoch_fn, steps, args, rank,
                                             world, e)
        line = (f"epoch {e}: {ips:,.0f} images/s, loss {loss:.4f}, train top-1 {acc:.3f}, "
                f"GPU step {timing['step_ms']:.1f} ms, gaps {timing['gap_share']:.0%}")
        if not args.no_val and args.loader != "synthetic":
            if val_epoch_fn is None:
                val_epoch_fn, _ = loader(val_dir, args, rank, world, device, train=False)
            line += f", val top-1 {validate(model, val_epoch_fn, args):.3f}"
        if rank == 0:
            print(f"[{args.arch} {args.loader} b={args.batch_size} x{world}] {line}", flush=True)
            if (e == 1 and timing["gap_share"] > 0.05 and args.loader == "sluice-gpu"
                    and not args.loader_process):
                print("  the GPU waited for batches: this host's CPU threads decode too slowly "
                      "for the model. Under MPS, --loader-process --hw-decoder-load auto adds "
                      "the hardware JPEG decoder (bench/RESULTS.md#train-process-iterator).", flush=True)
            if args.json:
                import json

                with open(args.json, "a") as f:
                    f.write(json.dumps({"arch": args.arch, "loader": args.loader, "epoch": e,
                                        "world": world, "batch": args.batch_size,
                                        "images_per_s": ips, "loss": loss, "top1": acc, **timing}) + "\n")
    if world > 1:
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
