"""readers.coco against DALI 2.4 on a small generated COCO dataset (real JPEGs from
../shared/data where present, small PIL images otherwise): boxes, labels, ids, polygons,
pixelwise masks (polygons and RLE), the filtering options, sharding, shuffling, the
preprocessed meta files, and named errors for bad input."""

import json
import os
import pathlib
import shutil
import subprocess

import numpy as np
import pytest
from PIL import Image

from dali_reference import dali_python
from sluice import fn, pipeline_def

ROOT = pathlib.Path(__file__).resolve().parents[3]
PHOTOS = ["ijg_testorig.jpg", "pillow_hopper.jpg"]


def data_dir():
    env = os.environ.get("SLUICE_TEST_DATA")
    return pathlib.Path(env) if env else ROOT.parent / "shared" / "data"


def rle_string(counts):
    """COCO's compressed RLE string of the run lengths `counts`."""
    out = []
    for i, x in enumerate(counts):
        x = int(x) - (int(counts[i - 2]) if i > 2 else 0)
        more = True
        while more:
            c = x & 0x1F
            x >>= 5
            more = (x != -1) if (c & 0x10) else (x != 0)
            out.append(chr((c | 0x20 if more else c) + 48))
    return "".join(out)


def runs(mask):
    """Column-major run lengths of a binary mask, starting with background."""
    flat = np.asarray(mask).T.reshape(-1)
    edges = np.flatnonzero(np.diff(np.concatenate([[0], flat, [2]])) != 0)
    counts = np.diff(np.concatenate([[0], edges])).tolist()
    return counts if flat[0] == 0 else [0] + counts[1:]


def make_dataset(root):
    """Images (two real JPEGs where the shared data is present) and an annotations file with
    boxes, crowd RLE boxes (compressed and not), polygons, an empty image, an image whose only
    box is too thin, unknown categories and an annotation of a missing image."""
    images_dir = root / "images"
    (images_dir / "a").mkdir(parents=True)
    names = ["a/real0.jpg", "real1.jpg", "a/g0.jpg", "g1.jpg", "g2.jpg", "g3.jpg", "g4.jpg"]
    gen_sizes = [(40, 30), (64, 48), (36, 36), (48, 32), (24, 20), (30, 40), (50, 26)]
    real = [p for p in (data_dir() / "photos" / n for n in PHOTOS) if p.exists()]
    rng = np.random.default_rng(0)
    sizes = []
    for i, name in enumerate(names):
        path = images_dir / name
        if i < len(real):
            shutil.copy(real[i], path)
        else:
            w, h = gen_sizes[i]
            Image.fromarray(rng.integers(0, 255, (h, w, 3), dtype=np.uint8)).save(path)
        sizes.append(Image.open(path).size)
    ids = [7, 2, 5, 11, 3, 9, 4]
    images = [{"id": i, "file_name": n, "width": s[0], "height": s[1], "license": 1}
              for i, n, s in zip(ids, names, sizes)]
    anns = []

    def add(img, cat, bbox, **kw):
        anns.append({"id": len(anns) + 1, "image_id": ids[img], "category_id": cat, "bbox": bbox,
                     "area": 1.0, **kw})

    w, h = sizes[0]
    add(0, 3, [2.5, 3.25, 20, 15], iscrowd=0,
        segmentation=[[2.5, 3.25, 22.5, 3.25, 22.5, 18.25, 2.5, 18.25]])
    m = np.zeros((h, w), np.uint8)
    m[5:20, 10:30] = 1
    m[25:28, 1:4] = 1
    add(0, 1, [10, 5, 20, 15], iscrowd=1, segmentation={"size": [h, w],
                                                        "counts": rle_string(runs(m))})
    add(0, 2, [1, 1, 0.05, 4], iscrowd=0, segmentation=[[1, 1, 1.05, 1, 1.05, 5]])
    add(0, 2, [30, 20, 10.5, 7.75], iscrowd=0,
        segmentation=[[30, 20, 40.5, 20, 35, 27.75], [31, 21, 33, 21, 32, 25, 31.5, 26]])
    w, h = sizes[1]
    add(1, 18, [4, 4, 12, 9], iscrowd=0, segmentation=[[4, 4, 16, 4, 16, 13, 10, 8, 4, 13]])
    m = np.zeros((h, w), np.uint8)
    m[2:9, 3:7] = 1
    add(1, 1, [3, 2, 4, 7], iscrowd=1, segmentation={"size": [h, w], "counts": runs(m)})
    add(1, 3, [0, 0, 8, 8], segmentation=[[0, 0, 8, 0, 8, 8, 0, 8]])  # no iscrowd key
    add(3, 2, [5, 5, 10, 0.09], iscrowd=0, segmentation=[[5, 5, 15, 5, 15, 5.09]])  # too thin
    add(4, 2, [2, 2, 20, 20], iscrowd=0, segmentation=[[2, 2, 22, 2, 22, 22, 2, 22]])
    add(4, 1, [10, 10, 20, 20], iscrowd=0, segmentation=[[10, 10, 30, 10, 30, 30]])
    add(4, 18, [0, 0, 5, 5], iscrowd=0)  # no segmentation
    add(4, 77, [1, 1, 2, 2], iscrowd=0, segmentation=[[1, 1, 3, 1, 3, 3]])  # unknown category
    w, h = sizes[5]
    add(5, 3, [1, 2, 3, 4], iscrowd=0, segmentation=[])
    add(5, 3, [0, 0, w, h], iscrowd=1, segmentation={"size": [h, w], "counts": [0, w * h]})
    add(6, 3, [3, 3, 5, 5], iscrowd=0, segmentation=[[3, 3, 8, 3, 8, 8, 3, 8]])
    add(6, 1, [20, 1, 6, 6], iscrowd=0, segmentation=[[20, 1, 26, 1, 26, 7, 20, 7]])
    add(6, 2, [18, 4, 6, 6], iscrowd=0, segmentation=[[18, 4, 24, 4, 24, 10, 18, 10]])
    anns.append({"id": 99, "image_id": 1234, "category_id": 1, "bbox": [0, 0, 5, 5]})
    cats = [{"id": c, "name": f"c{c}"} for c in (1, 3, 2, 18)]
    doc = {"info": {"year": 2017}, "licenses": [], "images": images, "annotations": anns,
           "categories": cats}
    ann = root / "annotations.json"
    ann.write_text(json.dumps(doc))
    return images_dir, ann, names, ids


@pytest.fixture(scope="module")
def coco(tmp_path_factory):
    root = tmp_path_factory.mktemp("coco")
    images_dir, ann, names, ids = make_dataset(root)
    return {"file_root": str(images_dir), "annotations_file": str(ann), "names": names,
            "ids": ids, "root": root}


def reader_args(coco, **kw):
    return {"file_root": coco["file_root"], "annotations_file": coco["annotations_file"], **kw}


def run_sluice(kwargs, batch_size, iters):
    @pipeline_def(batch_size=batch_size, num_threads=2, device_id=None, seed=3)
    def p():
        return tuple(fn.readers.coco(name="Reader", **kwargs))

    pipe = p()
    pipe.build()
    out = []
    for _ in range(iters):
        outs = pipe.run()
        out.append([[np.array(o.at(i)) for i in range(len(o))] for o in outs])
    return out, pipe.reader_meta("Reader")


_DALI_SCRIPT = """
import json, sys
import numpy as np
from nvidia.dali import fn, pipeline_def
kwargs, bs, iters = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
@pipeline_def(batch_size=bs, num_threads=1, device_id=None, seed=3)
def p():
    return tuple(fn.readers.coco(name="Reader", **kwargs))
pipe = p()
pipe.build()
arrays = {}
for it in range(iters):
    for k, o in enumerate(pipe.run()):
        for i in range(len(o)):
            arrays[f"{it}_{k}_{i}"] = np.array(o.at(i))
np.savez(sys.argv[4], **arrays)
print(json.dumps(pipe.reader_meta("Reader")))
"""


def run_dali(kwargs, batch_size, iters, tmp_path):
    python = dali_python()
    if python is None:
        pytest.skip("NVIDIA DALI not found: run ../shared/tools/dali-reference venv "
                    "(or set SLUICE_DALI_PYTHON)")
    out = tmp_path / "dali_out.npz"
    run = subprocess.run([str(python), "-c", _DALI_SCRIPT, json.dumps(kwargs), str(batch_size),
                          str(iters), str(out)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, f"DALI failed:\n{run.stderr[-3000:]}"
    with np.load(out) as z:
        keys = [tuple(map(int, k.split("_"))) for k in z.files]
        n_out = max(k[1] for k in keys) + 1
        res = [[[z[f"{it}_{k}_{i}"] for i in range(batch_size)] for k in range(n_out)]
               for it in range(iters)]
    return res, json.loads(run.stdout.strip().splitlines()[-1])


def assert_same(ours, ref, what):
    assert len(ours) == len(ref), what
    for it, (a_outs, b_outs) in enumerate(zip(ours, ref)):
        assert len(a_outs) == len(b_outs), f"{what}: number of outputs"
        for k, (a_out, b_out) in enumerate(zip(a_outs, b_outs)):
            for i, (a, b) in enumerate(zip(a_out, b_out)):
                where = f"{what}: iteration {it}, output {k}, sample {i}"
                assert a.dtype == b.dtype and a.shape == b.shape, \
                    f"{where}: {a.dtype}{a.shape} vs {b.dtype}{b.shape}"
                np.testing.assert_array_equal(a, b, err_msg=where)


CASES = {
    "boxes": dict(image_ids=True, read_ahead=True),
    "polygons": dict(polygon_masks=True, image_ids=True),
    "pixelwise": dict(pixelwise_masks=True, image_ids=True),
    "filters": dict(ltrb=True, ratio=True, skip_empty=True, include_iscrowd=False,
                    size_threshold=4.5, polygon_masks=True),
    "class_ids": dict(avoid_class_remapping=True, pixelwise_masks=True),
    "legacy_masks": dict(masks=True),
    "images": dict(images=["g3.jpg", "a/real0.jpg", "nope.jpg", "g3.jpg"], image_ids=True),
}


def samples(batches, count):
    """The first `count` samples of `batches`, each as the list of its outputs."""
    flat = [[o[i] for o in outs] for outs in batches for i in range(len(outs[0]))]
    return [[[o] for o in sample] for sample in flat[:count]]


def assert_same_epoch(kwargs, batch_size, tmp_path, what, shard_size=None):
    """The samples of the first epoch (of this shard) equal DALI's, in order. Across epochs
    DALI's batches straddle the boundary, so only one epoch is compared."""
    _, meta = run_sluice(kwargs, batch_size, 0)
    size = shard_size if shard_size is not None else meta["epoch_size"]
    iters = -(-size // batch_size)
    ours, meta = run_sluice(kwargs, batch_size, iters)
    ref, ref_meta = run_dali(kwargs, batch_size, iters, tmp_path)
    assert_same(samples(ours, size), samples(ref, size), what)
    for key in ("epoch_size", "epoch_size_padded", "number_of_shards", "shard_id"):
        assert meta[key] == ref_meta[key], key
    return ours, ref


@pytest.mark.parametrize("case", list(CASES))
def test_outputs_equal_dali(coco, tmp_path, case):
    assert_same_epoch(reader_args(coco, **CASES[case]), 3, tmp_path, case)


@pytest.mark.parametrize("num_shards,pad", [(3, False), (2, True)])
def test_shards_equal_dali(coco, tmp_path, num_shards, pad):
    n = len(coco["ids"])
    for shard_id in range(num_shards):
        kwargs = reader_args(coco, image_ids=True, num_shards=num_shards, shard_id=shard_id,
                             pad_last_batch=pad)
        size = (shard_id + 1) * n // num_shards - shard_id * n // num_shards
        ours, ref = assert_same_epoch(kwargs, 2, tmp_path, f"shard {shard_id}/{num_shards}", size)
        if pad:  # the last batch is filled with the shard's last sample, as in DALI
            assert_same(ours, ref, f"padded shard {shard_id}/{num_shards}")


def by_image_id(batches):
    """{image id: outputs} of every sample, and the image ids in read order."""
    table, order = {}, []
    for outs in batches:
        for i in range(len(outs[0])):
            key = int(outs[-1][i][0])
            table[key] = [o[i] for o in outs]
            order.append(key)
    return table, order


def test_shuffled_epochs_are_the_dataset_with_the_same_annotations(coco, tmp_path):
    base = reader_args(coco, polygon_masks=True, image_ids=True)
    ref, _ = run_dali(base, 7, 1, tmp_path)
    ref_table, ref_order = by_image_id(ref)
    for key in ("random_shuffle", "shuffle_after_epoch"):
        ours, _ = run_sluice({**base, key: True}, 7, 2)
        for epoch in ours:
            table, order = by_image_id([epoch])
            assert sorted(order) == sorted(ref_order), key
            for image_id, outs in table.items():
                for a, b in zip(outs, ref_table[image_id]):
                    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("masks", [dict(pixelwise_masks=True), dict(polygon_masks=True)])
def test_preprocessed_annotations_interchange_with_dali(coco, tmp_path, masks):
    args = dict(image_ids=True, **masks)
    ours_dir, dali_dir = tmp_path / "ours", tmp_path / "dali"
    dali_dir.mkdir()
    saved, _ = run_sluice(reader_args(coco, save_preprocessed_annotations=True, ltrb=True,
                                      save_preprocessed_annotations_dir=str(ours_dir), **args), 7, 1)
    run_dali(reader_args(coco, save_preprocessed_annotations=True, ltrb=True,
                         save_preprocessed_annotations_dir=str(dali_dir), **args), 7, 1, tmp_path)
    assert sorted(p.name for p in ours_dir.iterdir()) == sorted(p.name for p in dali_dir.iterdir())
    for p in dali_dir.iterdir():
        assert (ours_dir / p.name).read_bytes() == p.read_bytes(), p.name
    for d in (ours_dir, dali_dir):
        kwargs = dict(file_root=coco["file_root"], preprocessed_annotations=str(d), **args)
        ours, meta = run_sluice(kwargs, 3, 3)
        ref, _ = run_dali(kwargs, 3, 3, tmp_path)
        assert_same(ours, ref, f"from {d.name}")
        assert meta["epoch_size"] == 7
    ours, _ = run_sluice(dict(file_root=coco["file_root"], meta_files_path=str(dali_dir), **args),
                         7, 1)
    assert_same(ours, saved, "meta_files_path")


def test_without_dali_boxes_labels_and_ids(coco):
    (images, boxes, labels, ids), = run_sluice(reader_args(coco, image_ids=True), 7, 1)[0]
    assert [int(i[0]) for i in ids] == sorted(coco["ids"])
    assert [b.shape for b in boxes] == [(3, 4), (4, 4), (3, 4), (0, 4), (3, 4), (2, 4), (0, 4)]
    assert labels[0].dtype == np.int32 and labels[1].tolist() == [3, 1, 4, 0]
    assert boxes[0].dtype == np.float32
    real1 = pathlib.Path(coco["file_root"]) / coco["names"][1]
    assert images[0].tobytes() == real1.read_bytes()


def error_of(kwargs):
    with pytest.raises(Exception) as e:
        run_sluice(kwargs, 2, 1)
    return str(e.value)


def test_bad_input_gives_named_errors(coco, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"images": [{"id": 1, "file_name": "x.jpg"}], "annotations": [')
    msg = error_of(dict(file_root=coco["file_root"], annotations_file=str(bad)))
    assert "bad.json" in msg and "invalid JSON" in msg
    doc = json.loads(pathlib.Path(coco["annotations_file"]).read_text())
    doc["annotations"][4]["bbox"] = [1, 2, "x", 4]
    bad.write_text(json.dumps(doc))
    msg = error_of(dict(file_root=coco["file_root"], annotations_file=str(bad)))
    assert "bad.json" in msg and "annotations[4] (id 5)" in msg and "bbox" in msg
    doc["annotations"][4]["bbox"] = [1, 2, 3, 4]
    doc["images"][1]["file_name"] = "missing.jpg"  # id 2: the first sample
    bad.write_text(json.dumps(doc))
    msg = error_of(dict(file_root=coco["file_root"], annotations_file=str(bad)))
    assert "missing.jpg" in msg
    msg = error_of(reader_args(coco, polygon_masks=True, pixelwise_masks=True))
    assert "mutually exclusive" in msg
    msg = error_of(dict(file_root=coco["file_root"], preprocessed_annotations=str(tmp_path),
                        ltrb=True))
    assert "ltrb" in msg
    msg = error_of(dict(file_root=coco["file_root"], annotations_file=str(tmp_path / "no.json")))
    assert "no.json" in msg
    empty = tmp_path / "meta"
    empty.mkdir()
    msg = error_of(dict(file_root=coco["file_root"], preprocessed_annotations=str(empty)))
    assert "filenames.dat" in msg


def make_overlaps(root, seed):
    """Random overlapping polygons (repeated and out-of-image vertices included) and RLE masks
    of a few labels per image, some labels with both, some with several RLE masks, and images
    whose smallest label has no mask: the cases where DALI's merge of labels decides."""
    rng = np.random.default_rng(seed)
    images_dir = root / "images"
    images_dir.mkdir(parents=True, exist_ok=True)
    images, anns = [], []
    for k in range(8):
        w, h = int(rng.integers(8, 40)), int(rng.integers(8, 40))
        name = f"o{k}.jpg"
        Image.fromarray(np.zeros((h, w, 3), np.uint8)).save(images_dir / name)
        images.append({"id": 100 + k, "file_name": name, "width": w, "height": h})
        for _ in range(int(rng.integers(1, 7))):
            cat = int(rng.integers(1, 5))
            ann = {"id": len(anns) + 1, "image_id": 100 + k, "category_id": cat,
                   "bbox": [0, 0, 1, 1]}
            if rng.random() < 0.3:
                m = rng.random((h, w)) < 0.3 if rng.random() < 0.5 else np.zeros((h, w), bool)
                if m.any() or rng.random() < 0.5:
                    m[int(rng.integers(0, h)):, int(rng.integers(0, w)):] = True
                counts = runs(m.astype(np.uint8))
                ann["segmentation"] = {"size": [h, w], "counts": rle_string(counts)
                                       if rng.random() < 0.5 else counts}
            elif rng.random() < 0.9:
                polys = []
                for _ in range(int(rng.integers(1, 3))):
                    n = int(rng.integers(3, 7))
                    xy = np.round(rng.uniform(-3, max(w, h) + 3, 2 * n), 2)
                    if rng.random() < 0.3:
                        xy = np.concatenate([xy, xy[-2:]])  # a repeated vertex
                    polys.append(xy.tolist())
                ann["segmentation"] = polys
            anns.append(ann)
    doc = {"images": images, "annotations": anns,
           "categories": [{"id": c} for c in (1, 2, 3, 4)]}
    ann_file = root / f"overlaps{seed}.json"
    ann_file.write_text(json.dumps(doc))
    return images_dir, ann_file


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pixelwise_masks_of_overlapping_labels_equal_dali(tmp_path, seed):
    images_dir, ann = make_overlaps(tmp_path, seed)
    kwargs = dict(file_root=str(images_dir), annotations_file=str(ann), pixelwise_masks=True,
                  image_ids=True)
    assert_same_epoch(kwargs, 4, tmp_path, f"overlaps {seed}")


def test_ssd_training_pipeline_runs_on_the_reader(coco):
    """The SSD pipeline of DALI's examples on readers.coco's outputs (CPU)."""
    from sluice import types

    grid = np.linspace(0.125, 0.875, 4)
    anchors = [v for cy in grid for cx in grid
               for v in (cx - 0.2, cy - 0.2, cx + 0.2, cy + 0.2)]

    @pipeline_def(batch_size=3, num_threads=2, device_id=None, seed=7)
    def ssd():
        jpegs, bboxes, labels = fn.readers.coco(
            file_root=coco["file_root"], annotations_file=coco["annotations_file"],
            skip_empty=True, ratio=True, ltrb=True, random_shuffle=True)
        crop_begin, crop_size, bboxes, labels = fn.random_bbox_crop(
            bboxes, labels, aspect_ratio=[0.5, 2.0], thresholds=[0, 0.1, 0.3, 0.5, 0.7, 0.9],
            scaling=[0.3, 1.0], bbox_layout="xyXY", allow_no_crop=True, num_attempts=50)
        images = fn.decoders.image_slice(jpegs, crop_begin, crop_size, output_type=types.RGB)
        flip = fn.random.coin_flip(probability=0.5)
        bboxes = fn.bb_flip(bboxes, ltrb=True, horizontal=flip)
        images = fn.resize(images, resize_x=300, resize_y=300)
        images = fn.crop_mirror_normalize(
            images, crop=(300, 300), mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
            std=[0.229 * 255, 0.224 * 255, 0.225 * 255], mirror=flip, dtype=types.FLOAT,
            output_layout="CHW")
        bboxes, labels = fn.box_encoder(bboxes, labels, criteria=0.5, anchors=anchors)
        return images, bboxes, labels

    pipe = ssd()
    pipe.build()
    for _ in range(3):
        images, bboxes, labels = pipe.run()
        for i in range(3):
            assert np.array(images.at(i)).shape == (3, 300, 300)
            assert np.array(bboxes.at(i)).shape == (16, 4)
            assert np.array(labels.at(i)).shape == (16,)


def test_unusual_but_valid_files_read_as_dali_reads_them(coco, tmp_path):
    """Sections in another order, a repeated category id (its label is taken, the next one
    skipped), two images with one id, a file named twice, ids not starting at 0."""
    doc = {
        "annotations": [
            {"id": 1, "image_id": 40, "category_id": 8, "bbox": [1, 1, 5, 5]},
            {"id": 2, "image_id": 41, "category_id": 6, "bbox": [2, 2, 5, 5]},
            {"id": 3, "image_id": 40, "category_id": 7, "bbox": [3, 3, 5, 5], "iscrowd": 1},
            {"id": 4, "image_id": 42, "category_id": 8, "bbox": [4, 4, 5, 5]},
        ],
        "categories": [{"id": 6}, {"id": 8}, {"id": 6}, {"id": 7}],
        "images": [
            {"id": 42, "file_name": "g1.jpg", "width": 48, "height": 32},
            {"id": 40, "file_name": "g2.jpg", "width": 36, "height": 36},
            {"id": 41, "file_name": "g2.jpg", "width": 36, "height": 36},
            {"id": 40, "file_name": "g3.jpg", "width": 30, "height": 40},
        ],
    }
    ann = tmp_path / "unusual.json"
    ann.write_text(json.dumps(doc))
    for extra in ({}, {"skip_empty": True, "images": ["g3.jpg", "g2.jpg", "g3.jpg"]}):
        kwargs = dict(file_root=coco["file_root"], annotations_file=str(ann), image_ids=True,
                      **extra)
        assert_same_epoch(kwargs, 2, tmp_path, f"unusual {extra}")


def test_ops_and_legacy_names(coco):
    from sluice import ops

    assert ops.readers.COCO is ops.COCOReader
    reader = ops.readers.COCO(file_root=coco["file_root"],
                              annotations_file=coco["annotations_file"], image_ids=True)

    @pipeline_def(batch_size=7, num_threads=1, device_id=None)
    def p():
        return tuple(reader())

    ids = p().run()[3]
    assert [int(np.array(ids.at(i))[0]) for i in range(7)] == sorted(coco["ids"])
    assert fn.coco_reader is not None
