"""The SSD-style detection pipeline, Sluice and NVIDIA DALI side by side: the same pipeline code
(readers.coco -> random_bbox_crop -> decoders.image_slice -> resize 300 -> bb_flip ->
crop_mirror_normalize -> box_encoder over 8,732 anchors, batch 128) through each library's
DALIGenericIterator, on the CPU or with the mixed decoder and GPU operators, in a process of its
own per library. Prints images/s per round and a digest of the reader's first batch (boxes and
labels as read, unshuffled), which must be equal for both libraries.

    python3 bench/detection_vs_dali.py --make-coco DATA          # annotations.json for DATA
    python3 bench/detection_vs_dali.py DATA --library sluice --device gpu --json s.json
    PYTHONPATH=<dali site> python3 bench/detection_vs_dali.py DATA --library dali ... --json d.json
    python3 bench/detection_vs_dali.py --compare s.json d.json

DATA is an image folder (for example `sluice make-dataset` output); --make-coco writes
DATA/annotations.json with 1-4 random boxes per image in 80 categories (seeded).
"""

import argparse
import hashlib
import json
import os
import pathlib
import sys

from vs_dali_common import iterate, library, report, timed_rounds

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


def make_coco(data):
    """Writes DATA/annotations.json: every JPEG under DATA, 1-4 random boxes each."""
    import random

    from PIL import Image

    rng = random.Random(0)
    root = pathlib.Path(data)
    images, annotations = [], []
    for i, path in enumerate(sorted(root.rglob("*.jpg"))):
        with Image.open(path) as im:
            w, h = im.size
        images.append({"id": i + 1, "file_name": str(path.relative_to(root)), "width": w,
                       "height": h})
        for _ in range(rng.randint(1, 4)):
            bw, bh = rng.uniform(0.1, 0.6) * w, rng.uniform(0.1, 0.6) * h
            x, y = rng.uniform(0, w - bw), rng.uniform(0, h - bh)
            annotations.append({"id": len(annotations) + 1, "image_id": i + 1,
                                "category_id": rng.randint(1, 80), "bbox": [x, y, bw, bh],
                                "area": bw * bh, "iscrowd": 0})
    cats = [{"id": c, "name": f"c{c}"} for c in range(1, 81)]
    out = root / "annotations.json"
    out.write_text(json.dumps({"images": images, "annotations": annotations, "categories": cats}))
    print(f"{out}: {len(images)} images, {len(annotations)} boxes")


def anchors(size=300):
    """8,732 SSD300 default boxes (ltrb, relative): feature maps 38..1 with 4 or 6 shapes."""
    import math

    boxes = []
    fmaps, steps = [38, 19, 10, 5, 3, 1], [8, 16, 32, 64, 100, 300]
    scales = [21, 45, 99, 153, 207, 261, 315]
    ratios = [[2], [2, 3], [2, 3], [2, 3], [2], [2]]
    for k, f in enumerate(fmaps):
        sk, sk1 = scales[k] / size, scales[k + 1] / size
        shapes = [(sk, sk), (math.sqrt(sk * sk1),) * 2]
        for r in ratios[k]:
            shapes += [(sk * math.sqrt(r), sk / math.sqrt(r)), (sk / math.sqrt(r), sk * math.sqrt(r))]
        for i in range(f):
            for j in range(f):
                cx, cy = (j + 0.5) * steps[k] / size, (i + 0.5) * steps[k] / size
                for w, h in shapes:
                    boxes += [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2]
    return [min(max(v, 0.0), 1.0) for v in boxes]


def make_pipeline(lib, args):
    fn, types = lib.fn, lib.types
    gpu = args.device == "gpu"

    @lib.pipeline_def(batch_size=args.batch, num_threads=args.threads,
                      device_id=0 if gpu else None, seed=1)
    def pipe():
        jpegs, bboxes, labels = fn.readers.coco(
            file_root=args.data, annotations_file=os.path.join(args.data, "annotations.json"),
            skip_empty=True, ratio=True, ltrb=True, random_shuffle=args.shuffle, name="Reader")
        begin, size, bboxes, labels = fn.random_bbox_crop(
            bboxes, labels, aspect_ratio=[0.5, 2.0], thresholds=[0, 0.1, 0.3, 0.5, 0.7, 0.9],
            scaling=[0.3, 1.0], bbox_layout="xyXY", allow_no_crop=True, num_attempts=50)
        images = fn.decoders.image_slice(jpegs, begin, size, device="mixed" if gpu else "cpu",
                                         output_type=types.RGB)
        flip = fn.random.coin_flip(probability=0.5)
        if gpu:
            bboxes, labels = bboxes.gpu(), labels.gpu()
        bboxes = fn.bb_flip(bboxes, ltrb=True, horizontal=flip)
        images = fn.resize(images, resize_x=300, resize_y=300)
        images = fn.crop_mirror_normalize(images, crop=(300, 300), mean=MEAN, std=STD,
                                          mirror=flip, dtype=types.FLOAT, output_layout="CHW")
        enc_boxes, enc_labels = fn.box_encoder(bboxes, labels, criteria=0.5, anchors=anchors())
        return images, enc_boxes, enc_labels

    return pipe()


def read_digest(lib, args):
    """A digest of the reader's first batch (boxes and labels, unshuffled, as read): equal for
    both libraries when they read alike. The augmentations draw from each library's own random
    streams, so their outputs are not compared here (tests/python/ops compare the operators)."""
    import numpy as np

    fn = lib.fn

    @lib.pipeline_def(batch_size=args.batch, num_threads=2, device_id=None, seed=1)
    def reader():
        _, bboxes, labels = fn.readers.coco(
            file_root=args.data, annotations_file=os.path.join(args.data, "annotations.json"),
            skip_empty=True, ratio=True, ltrb=True)
        return bboxes, labels

    pipe = reader()
    pipe.build()
    boxes, labels = pipe.run()
    h = hashlib.sha256()
    for out in (boxes, labels):
        for i in range(len(out)):
            h.update(np.ascontiguousarray(np.asarray(out.at(i))).tobytes())
    return h.hexdigest()[:16]


def measure(args):
    import torch

    lib, DALIGenericIterator, LastBatchPolicy = library(args.library)
    pipe = make_pipeline(lib, args)
    it = DALIGenericIterator([pipe], ["images", "boxes", "labels"], reader_name="Reader",
                             auto_reset=True, last_batch_policy=LastBatchPolicy.PARTIAL)
    first = read_digest(lib, args)
    sync = torch.cuda.synchronize if args.device == "gpu" else (lambda: None)
    iterate(it, args.warmup, sync)
    rates = timed_rounds(it, args, sync, f"{args.library} {args.device}")
    report({"library": args.library, "version": lib.__version__, "device": args.device,
            "data": args.data, "batch": args.batch, "threads": args.threads,
            "images_per_s": [round(r) for r in rates], "first_batch": first}, args.json)


def compare(sluice_json, dali_json):
    s, d = (json.load(open(p)) for p in (sluice_json, dali_json))
    print(f"{s['device']}, batch {s['batch']}, {s['threads']} threads, {s['data']}")
    for r in (s, d):
        print(f"  {r['library']:6} {r['version']:8} images/s {r['images_per_s']}, "
              f"first batch read {r['first_batch']}")
    print(f"  Sluice / DALI: images/s {max(s['images_per_s']) / max(d['images_per_s']):.2f}x, "
          f"first batch's boxes and labels as read "
          f"{'equal' if s['first_batch'] == d['first_batch'] else 'differ'}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", nargs="?")
    ap.add_argument("--make-coco", metavar="DATA")
    ap.add_argument("--library", choices=["sluice", "dali"])
    ap.add_argument("--device", choices=["cpu", "gpu"], default="gpu")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--shuffle", action="store_true")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--batches", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json")
    ap.add_argument("--compare", nargs=2, metavar=("SLUICE_JSON", "DALI_JSON"))
    args = ap.parse_args()
    if args.make_coco:
        make_coco(args.make_coco)
    elif args.compare:
        compare(*args.compare)
    elif args.library and args.data:
        measure(args)
    else:
        ap.error("give --make-coco DATA, DATA and --library, or --compare")
    return 0


if __name__ == "__main__":
    sys.exit(main())
