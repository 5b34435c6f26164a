"""``sluice make-dataset OUT``: a deterministic ImageNet-like folder of JPEGs.

One folder per class; each image has a short side of 250-600 px, an aspect ratio between 3:4 and
4:3, JPEG quality 75-95 and 4:2:0 chroma subsampling. Images are drawn procedurally (gradients,
shapes, texture and noise, so they compress like photos), or, with --from, cut and rescaled from
real photos. Image k depends only on (seed, k): reruns give identical files, and an interrupted
run resumes where it stopped (files appear atomically).
"""

import os
import pathlib
import signal
import sys

import numpy as np

from sluice.tools import HelpFormatter


def add_parser(sub):
    p = sub.add_parser(
        "make-dataset", help="write an ImageNet-like folder of JPEGs",
        description="Writes a deterministic ImageNet-like folder of JPEGs (one sub-folder per "
        "class), procedural or cut from your photos; an interrupted run resumes.",
        formatter_class=HelpFormatter)
    p.add_argument("out", help="output folder (made if missing; images already there are kept)")
    p.add_argument("--images", type=int, default=10000, help="number of images")
    p.add_argument("--classes", type=int, default=100, help="number of class sub-folders")
    p.add_argument("--seed", type=int, default=0, help="image k depends only on (seed, k)")
    p.add_argument("--from", dest="source", default=None,
                   help="folder of photos to cut images from (default: procedural)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                   help="processes writing images; default: all cores")
    p.set_defaults(func=run)


def _procedural(rng, h, w):
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    img = np.empty((h, w, 3), np.float32)
    for c in range(3):  # a smooth background: random gradient plus low-frequency waves
        a, b = rng.uniform(-1, 1, 2)
        f1, f2 = rng.uniform(0.002, 0.03, 2)
        img[..., c] = (128 + 60 * a * xx / w + 60 * b * yy / h
                       + 40 * np.sin(xx * f1 + rng.uniform(0, 6)) * np.cos(yy * f2))
    for _ in range(int(rng.integers(3, 12))):  # ellipses and rectangles of solid colour
        cy, cx = rng.uniform(0, h), rng.uniform(0, w)
        ry, rx = rng.uniform(0.05, 0.35) * h, rng.uniform(0.05, 0.35) * w
        color = rng.uniform(0, 255, 3)
        if rng.random() < 0.5:
            mask = ((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2 < 1
        else:
            mask = (np.abs(yy - cy) < ry) & (np.abs(xx - cx) < rx)
        img[mask] = 0.3 * img[mask] + 0.7 * color
    img += rng.normal(0, rng.uniform(2, 12), img.shape)  # texture
    return np.clip(img, 0, 255).astype(np.uint8)


def _from_photo(rng, photos, h, w):
    from PIL import Image

    with Image.open(photos[int(rng.integers(len(photos)))]) as im:
        im = im.convert("RGB")
        W, H = im.size
        scale = rng.uniform(0.4, 1.0)
        cw, ch = max(8, int(W * scale)), max(8, int(H * scale))
        x0, y0 = int(rng.integers(0, W - cw + 1)), int(rng.integers(0, H - ch + 1))
        return np.asarray(im.crop((x0, y0, x0 + cw, y0 + ch)).resize((w, h), Image.BILINEAR))


def _write(args):
    out, k, seed, classes, photos = args
    from PIL import Image

    rng = np.random.default_rng([seed, k])
    label = k % classes
    path = pathlib.Path(out) / f"class_{label:04d}" / f"img_{k:07d}.jpg"
    if path.exists():
        return
    short = int(rng.integers(250, 601))
    aspect = float(np.exp(rng.uniform(np.log(3 / 4), np.log(4 / 3))))
    h, w = (short, int(round(short * aspect))) if aspect >= 1 else (int(round(short / aspect)), short)
    img = _from_photo(rng, photos, h, w) if photos else _procedural(rng, h, w)
    tmp = path.with_name(path.name + ".part")
    Image.fromarray(img).save(tmp, "JPEG", quality=int(rng.integers(75, 96)), subsampling="4:2:0")
    os.replace(tmp, path)


def make_dataset(out, images=10000, classes=100, seed=0, source=None, workers=None, progress=True):
    """Writes the dataset (skipping images already there); returns the folder."""
    out = pathlib.Path(out)
    photos = []
    if source:
        photos = sorted(p for p in pathlib.Path(source).rglob("*")
                        if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
        if not photos:
            raise ValueError(f"no photos (.jpg, .jpeg, .png) found in {source}")
    classes = max(1, min(classes, images))
    for c in range(classes):
        (out / f"class_{c:04d}").mkdir(parents=True, exist_ok=True)
    for part in out.rglob("*.part"):  # leftovers of an interrupted run
        part.unlink()
    jobs = [(str(out), k, seed, classes, [str(p) for p in photos]) for k in range(images)]
    bar = None
    if progress:
        try:
            from tqdm import tqdm

            bar = tqdm(total=images, desc=f"make-dataset {out}", unit="img", file=sys.stderr)
        except ImportError:
            pass
    workers = workers or os.cpu_count() or 1
    try:
        if workers > 1:
            import multiprocessing as mp

            # The workers leave Ctrl-C to this process (one message, not one traceback each).
            with mp.get_context("fork").Pool(workers, signal.signal,
                                             (signal.SIGINT, signal.SIG_IGN)) as pool:
                for _ in pool.imap_unordered(_write, jobs, chunksize=16):
                    if bar:
                        bar.update()
        else:
            for j in jobs:
                _write(j)
                if bar:
                    bar.update()
    finally:  # also on Ctrl-C: the bar's last line comes before the message
        if bar:
            bar.close()
    return out


def run(args):
    if args.images < 1 or args.classes < 1 or args.workers < 1:
        print("sluice make-dataset: error: --images, --classes and --workers must be at least 1",
              file=sys.stderr)
        return 2
    make_dataset(args.out, args.images, args.classes, args.seed, args.source, args.workers)
    print(f"wrote {args.images} images in {args.classes} classes to {args.out}")
    return 0
