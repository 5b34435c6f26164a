"""Train a torchvision ResNet with TrivialAugment Wide (sluice.auto_aug) on an ImageFolder-style
directory, fed by Sluice or, for comparison, by NVIDIA DALI running the same pipeline.

    python examples/auto_augment/train_trivial_augment.py DATA --device gpu -b 128 --epochs 1
    python examples/auto_augment/train_trivial_augment.py DATA --device cpu --iters 5 -b 16
    python examples/auto_augment/train_trivial_augment.py DATA --framework dali   # DALI's own

DATA holds class folders (or train/ with class folders). The pipeline: random-resized-crop
decoding, resize to --size, a random flip, trivial_augment_wide (one random augmentation per
image: shear, translate, rotate, colour, posterize, solarize, equalize, ...), then
normalisation. --device gpu decodes with the mixed decoder and augments on the GPU; --device cpu
does everything on CPU threads and trains on the GPU when there is one, else on the CPU.
Prints images/s per epoch (the loader and the training step together) and of the loader alone
with --loader-only.
"""

import argparse
import importlib
import pathlib
import time

import torch
import torch.nn.functional as F
import torchvision

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data")
    p.add_argument("--device", default="gpu", choices=["gpu", "cpu"],
                   help="where the pipeline decodes and augments")
    p.add_argument("--framework", default="sluice", choices=["sluice", "dali"],
                   help="sluice, or nvidia.dali running the same pipeline definition")
    p.add_argument("--arch", default="resnet18")
    p.add_argument("-b", "--batch-size", type=int, default=128)
    p.add_argument("--size", type=int, default=224)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--iters", type=int, default=0, help="steps per epoch (0: the whole epoch)")
    p.add_argument("--workers", type=int, default=4, help="pipeline CPU threads")
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--num-magnitude-bins", type=int, default=31)
    p.add_argument("--loader-only", action="store_true", help="time the pipeline alone")
    return p.parse_args(argv)


def image_folder(data):
    root = pathlib.Path(data)
    return root / "train" if (root / "train").is_dir() else root


def framework(name):
    """(fn, types, pipeline_def, trivial_augment_wide, iterator class) of Sluice or DALI."""
    root = "sluice" if name == "sluice" else "nvidia.dali"
    fn = importlib.import_module(root + ".fn")
    types = importlib.import_module(root + ".types")
    pipeline_def = importlib.import_module(root).pipeline_def
    trivial = importlib.import_module(root + ".auto_aug.trivial_augment").trivial_augment_wide
    plugin = importlib.import_module(root + ".plugin.pytorch")
    return fn, types, pipeline_def, trivial, plugin.DALIClassificationIterator


def build_pipeline(args, device_id):
    fn, types, pipeline_def, trivial_augment_wide, _ = framework(args.framework)
    gpu = args.device == "gpu"

    @pipeline_def(batch_size=args.batch_size, num_threads=args.workers, device_id=device_id,
                  seed=42, enable_conditionals=True)
    def pipe():
        jpegs, labels = fn.readers.file(file_root=str(image_folder(args.data)),
                                        random_shuffle=True, name="Reader")
        images = fn.decoders.image_random_crop(jpegs, device="mixed" if gpu else "cpu",
                                               output_type=types.RGB)
        images = fn.resize(images, resize_x=args.size, resize_y=args.size)
        images = fn.flip(images, horizontal=fn.random.coin_flip(probability=0.5))
        # The translations are relative to the (fixed) image size.
        images = trivial_augment_wide(images, num_magnitude_bins=args.num_magnitude_bins,
                                      shape=[args.size, args.size])
        images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW",
                                          mean=MEAN, std=STD)
        return images, labels.gpu() if gpu else labels

    return pipe()


def main(argv=None):
    args = parse_args(argv)
    cuda = torch.cuda.is_available()
    if args.device == "gpu" and not cuda:
        raise SystemExit("--device gpu needs a CUDA device; use --device cpu")
    device = torch.device("cuda" if cuda else "cpu")
    pipe = build_pipeline(args, 0 if cuda else None)
    iterator_cls = framework(args.framework)[4]
    loader = iterator_cls(pipe, reader_name="Reader", auto_reset=True)
    classes = max(2, sum(1 for p in image_folder(args.data).iterdir() if p.is_dir()))
    model = getattr(torchvision.models, args.arch)(num_classes=classes).to(device)
    model = model.to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr * args.batch_size / 256, momentum=0.9,
                          weight_decay=1e-4)
    for epoch in range(args.epochs):
        model.train()
        seen, loss_sum, start = 0, 0.0, time.perf_counter()
        for step, batch in enumerate(loader):
            x = batch[0]["data"].to(device, non_blocking=True)
            y = batch[0]["label"].squeeze(-1).long().to(device, non_blocking=True)
            if not args.loader_only:
                with torch.autocast(device.type, dtype=torch.bfloat16):
                    loss = F.cross_entropy(model(x.contiguous(memory_format=torch.channels_last)),
                                           y)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                loss_sum += float(loss.detach()) * len(y)
            seen += len(y)
            if args.iters and step + 1 >= args.iters:
                loader.reset()
                break
        if cuda:
            torch.cuda.synchronize()
        elapsed = time.perf_counter() - start
        what = "loader" if args.loader_only else f"loss {loss_sum / max(seen, 1):.4f},"
        print(f"epoch {epoch}: {args.framework} --device {args.device}: "
              f"{seen / elapsed:,.0f} images/s, {what} {seen} images")


if __name__ == "__main__":
    main()
