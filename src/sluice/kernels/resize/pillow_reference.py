#!/usr/bin/env python3
"""Pillow references for the resize kernels (development tool; needs Pillow and numpy).

  pillow_reference.py photos PHOTO_DIR OUT_DIR
      Decodes every photo with Pillow, resizes it with Pillow (NEAREST, BILINEAR, BICUBIC,
      LANCZOS; downscales, box upscales, identity; uint8 "RGB"/"L" and float32 "F") and writes
      raw inputs, raw Pillow outputs and OUT_DIR/manifest.txt. The C++ test
      ResizeCpuPillow.MatchesPillowOnPhotos reads them when SLUICE_RESIZE_PILLOW_DIR=OUT_DIR.

  pillow_reference.py embed PHOTO
      Prints the C++ arrays of resize_pillow_data_test.h: a 16x12 RGB patch of PHOTO and Pillow's
      results for a few resizes of it.

Manifest lines (whitespace separated):
  image NAME H W C TYPE                  TYPE is u8 or f32; raw file NAME.raw, HWC
  case IMAGE FILTER OUT_H OUT_W Y0 X0 Y1 X1 EXPECTED
      FILTER is a Sluice name (NN, LINEAR, TRIANGULAR, CUBIC, LANCZOS3, GAUSSIAN), with the
      suffix _NOAA for antialias=False; the window is Pillow's box (x0, y0, x1, y1) in input
      pixels; EXPECTED.raw has the input's channels and type.
GAUSSIAN and *_NOAA have no Pillow equivalent: their expected outputs come from numpy_resize(),
an independent float64 implementation of the same definition, rounded once at the end.
"""
import math
import os
import sys

import numpy as np
from PIL import Image

PILLOW_FILTER = {
    "NN": Image.NEAREST,
    "LINEAR": Image.BILINEAR,
    "TRIANGULAR": Image.BILINEAR,  # Pillow's bilinear always widens when downscaling
    "CUBIC": Image.BICUBIC,
    "LANCZOS3": Image.LANCZOS,
}


def numpy_weights(in_size, lo, hi, out_size, kind, antialias):
    """Dense (out_size, in_size) resampling matrix: Pillow's scheme, written from its definition."""
    def f(x):
        x = np.abs(x)
        if kind == "LINEAR":
            return np.where(x < 1, 1 - x, 0.0)
        if kind == "GAUSSIAN":  # DALI's window: exp(-x^2) on [-2, 2] scaled to radius 1
            return np.where(x < 1, np.exp(-4 * x * x), 0.0)
        raise ValueError(kind)
    scale = (hi - lo) / out_size
    widen = scale if (antialias and scale > 1) else 1.0
    support = 1.0 * widen
    m = np.zeros((out_size, in_size))
    for i in range(out_size):
        c = min(max(lo + (i + 0.5) * scale, 0.0), float(in_size))
        j0, j1 = max(int(c - support + 0.5), 0), min(int(c + support + 0.5), in_size)
        w = f((np.arange(j0, j1) + 0.5 - c) / widen)
        m[i, j0:j1] = w / w.sum()
    return m


def numpy_resize(arr, size, box, kind, antialias):
    h, w = arr.shape[:2]
    x0, y0, x1, y1 = box
    mx = numpy_weights(w, x0, x1, size[0], kind, antialias)
    my = numpy_weights(h, y0, y1, size[1], kind, antialias)
    a = arr.astype(np.float64)
    planes = (a if a.ndim == 3 else a[:, :, None]).transpose(2, 0, 1)  # CHW
    o = np.matmul(my, np.matmul(planes, mx.T)).transpose(1, 2, 0)  # exact, no rounding between
    if arr.dtype == np.uint8:
        # Sluice rounds between the passes too, but these filters are positive, so that moves the
        # result by at most 1/2 before the final rounding: within 1 of this.
        o = np.clip(np.floor(o + 0.5), 0, 255)
    o = o.astype(arr.dtype)
    return o if arr.ndim == 3 else o[:, :, 0]


def quarter(v):
    """Rounds to a quarter pixel, so the box is exact in Pillow's float32 and in double."""
    return round(v * 4) / 4


def resize_channels(im, size, flt, box):
    # Pillow premultiplies alpha for RGBA and has no 2-channel mode: resample planes as "L" / "F".
    if im.mode in ("RGB", "L", "F"):
        return np.asarray(im.resize(size, flt, box=box))
    planes = [np.asarray(p.resize(size, flt, box=box)) for p in im.split()]
    return np.stack(planes, axis=-1)


def cases_for(w, h):
    cases = [
        ("down224", (224, 224), None),
        ("down_aspect", (max(1, round(w / 2.7)), max(1, round(h / 2.7))), None),
        ("down_extreme", (max(1, w // 9), max(1, h // 11)), None),
        ("identity", (w, h), None),
    ]
    bx0, by0 = quarter(w * 0.31), quarter(h * 0.27)
    bw, bh = min(97.5, w - bx0), min(71.25, h - by0)
    cases.append(("up_box", (331, 250), (bx0, by0, bx0 + bw, by0 + bh)))
    down_box = (quarter(w * 0.1), quarter(h * 0.2), quarter(w * 0.9), quarter(h * 0.95))
    cases.append(("down_box", (150, 113), down_box))
    if w <= 500:
        cases.append(("up_full", (2 * w + 3, 2 * h + 1), None))
    return cases


def write_photos(photo_dir, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    lines = []
    for fname in sorted(os.listdir(photo_dir)):
        if not fname.lower().endswith((".jpg", ".png")):
            continue
        im = Image.open(os.path.join(photo_dir, fname))
        im = im.convert("L" if im.mode in ("L", "I;16", "I") else "RGB")
        stem = os.path.splitext(fname)[0]
        w, h = im.size
        images = [(stem, im, "u8")]
        # Float input: one channel, values off the integer grid.
        fim = Image.fromarray(np.asarray(im.convert("L"), dtype=np.float32) * 0.75 + 0.3, mode="F")
        images.append((stem + "_f32", fim, "f32"))
        for name, img, typ in images:
            arr = np.asarray(img)
            c = 1 if arr.ndim == 2 else arr.shape[2]
            arr.tofile(os.path.join(out_dir, name + ".raw"))
            lines.append(f"image {name} {h} {w} {c} {typ}")
            for cname, size, box in cases_for(w, h):
                b = box if box is not None else (0, 0, w, h)
                for fname_s, flt in PILLOW_FILTER.items():
                    if fname_s == "TRIANGULAR" and not cname.startswith("down"):
                        continue
                    out = resize_channels(img, size, flt, box)
                    ename = f"{name}.{cname}.{fname_s}"
                    out.tofile(os.path.join(out_dir, ename + ".raw"))
                    lines.append(f"case {name} {fname_s} {size[1]} {size[0]} "
                                 f"{b[1]!r} {b[0]!r} {b[3]!r} {b[2]!r} {ename}")
                if cname.startswith("down"):
                    for kind, aa in (("GAUSSIAN", True), ("LINEAR", False), ("GAUSSIAN", False)):
                        fname_s = kind + ("" if aa else "_NOAA")
                        out = numpy_resize(arr, size, b, kind, aa)
                        ename = f"{name}.{cname}.{fname_s}"
                        out.tofile(os.path.join(out_dir, ename + ".raw"))
                        lines.append(f"case {name} {fname_s} {size[1]} {size[0]} "
                                     f"{b[1]!r} {b[0]!r} {b[3]!r} {b[2]!r} {ename}")
    with open(os.path.join(out_dir, "manifest.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{sum(l.startswith('case') for l in lines)} cases in {out_dir}")


def c_array(name, arr, per_line=24):
    vals = [str(int(v)) for v in arr.reshape(-1)]
    rows = [", ".join(vals[i:i + per_line]) for i in range(0, len(vals), per_line)]
    body = ",\n    ".join(rows)
    return f"inline constexpr uint8_t {name}[] = {{\n    {body}}};\n"


# (label, (out_w, out_h), box) of the embedded cases; the C++ test has the same list.
EMBED_CASES = [
    ("kDown", (7, 5), None),
    ("kUp", (21, 16), None),
    ("kBox", (6, 5), (2.5, 1.75, 14.0, 10.5)),
]


def embed(photo):
    im = Image.open(photo).convert("RGB")
    patch = im.crop((40, 52, 56, 64))  # 16x12
    print("// clang-format off")
    print(f"// 16x12 RGB patch of {os.path.basename(photo)} (pixels (40, 52) to (56, 64)),")
    print("// decoded by Pillow " + Image.__version__ + ".")
    print(c_array("kPatch", np.asarray(patch)))
    for label, size, box in EMBED_CASES:
        for fname_s in ("NN", "LINEAR", "CUBIC", "LANCZOS3"):
            out = np.asarray(patch.resize(size, PILLOW_FILTER[fname_s], box=box))
            pil_name = {"NN": "NEAREST", "LINEAR": "BILINEAR", "CUBIC": "BICUBIC",
                        "LANCZOS3": "LANCZOS"}[fname_s]
            print(f"// Pillow: patch.resize({size}, Image.{pil_name}, box={box})")
            print(c_array(f"{label}{fname_s.capitalize()}", out))
    print("// clang-format on")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "photos":
        write_photos(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "embed":
        embed(sys.argv[2])
    else:
        sys.exit(__doc__)
