"""random_bbox_crop: the window's properties in every mode (scaling and aspect ratio, relative or
in input units; fixed crop_shape with input_shape and shape_layout; no crop), the boxes kept
(centroid inside, or bbox_prune_threshold) mapped into the window, labels and indices that follow
them, the thresholds (iou / overlap, all or any box), bbox_layout, total_num_attempts; the same
values for any number of threads; DALI's output types and shapes and its refusals (CPU only, as
in DALI). The windows are random, so DALI's numbers are not compared."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from sluice import fn, pipeline_def

BOXES = [np.array([[0.1, 0.1, 0.3, 0.3], [0.5, 0.5, 0.9, 0.8], [0.2, 0.6, 0.4, 0.9]], np.float32),
         np.array([[0.3123, 0.3123, 0.5123, 0.5123]], np.float32),
         np.array([[0.0123, 0.0123, 0.2123, 0.2123], [0.1123, 0.1123, 0.19123, 0.19123]],
                  np.float32),
         np.zeros((0, 4), np.float32)]
LABELS = [np.arange(1, len(b) + 1, dtype=np.int32) * 10 for b in BOXES]


def run(graph_kwargs, iterations=30, boxes=BOXES, labels=True, threads=2, seed=5):
    @pipeline_def(batch_size=len(boxes), num_threads=threads, device_id=None, seed=seed)
    def p():
        b = fn.external_source(lambda: boxes)
        ins = [b, fn.external_source(lambda: LABELS)] if labels else [b]
        return (b, *fn.random_bbox_crop(*ins, output_bbox_indices=True, **graph_kwargs))

    pipe = p()
    out = []
    for _ in range(iterations):
        res = pipe.run()
        out.append([[np.asarray(o.at(i)) for i in range(len(boxes))] for o in res])
    return out


def iou(a, b):
    lo, hi = np.maximum(a[:2], b[:2]), np.minimum(a[2:], b[2:])
    if np.any(hi <= lo):
        return 0.0
    inter = np.prod(hi - lo)
    return inter / (np.prod(a[2:] - a[:2]) + np.prod(b[2:] - b[:2]) - inter)


def overlap(crop, box):
    lo, hi = np.maximum(crop[:2], box[:2]), np.minimum(crop[2:], box[2:])
    return 0.0 if np.any(hi <= lo) else np.prod(hi - lo) / np.prod(box[2:] - box[:2])


def expected_boxes(crop, boxes, prune=None):
    keep = []
    for k, b in enumerate(boxes):
        c = (b[:2] + b[2:]) * np.float32(0.5)
        if prune is None:
            ok = np.all(c >= crop[:2]) and np.all(c < crop[2:])
        else:
            ok = overlap(crop, b) > 0 and overlap(crop, b) >= prune
        if ok:
            keep.append(k)
    ext = crop[2:] - crop[:2]
    mapped = [np.clip(np.concatenate([(np.maximum(crop[:2], boxes[k][:2]) - crop[:2]) / ext,
                                      (np.minimum(crop[2:], boxes[k][2:]) - crop[:2]) / ext]), 0, 1)
              for k in keep]
    return keep, np.array(mapped, np.float32).reshape(-1, 4)


def check_run(out, thresholds, metric=iou, all_boxes=True, prune=None, no_crop=True, scale=None,
              aspect=None, input_shape=None):
    for boxes, anchor, shape, got, labels, indices in out:
        for i, b in enumerate(boxes):
            crop = np.concatenate([anchor[i], anchor[i] + shape[i]])
            is_whole = np.array_equal(anchor[i], [0, 0]) and np.array_equal(shape[i], [1, 1])
            keep, want = expected_boxes(crop, b, prune)
            if is_whole and no_crop:
                keep, want = list(range(len(b))), b
            np.testing.assert_array_equal(indices[i], keep)
            np.testing.assert_array_equal(labels[i], LABELS[i][keep])
            np.testing.assert_allclose(got[i], want, atol=1e-6)
            if len(b) and not (is_whole and no_crop):
                m = [metric(crop, box) for box in b]
                assert (min(m) if all_boxes else max(m)) >= min(thresholds) - 1e-6
                assert len(keep) > 0
            if scale is not None and not is_whole:
                units = shape[i] * (input_shape if input_shape is not None else 1)
                assert units.max() >= scale[0] * (1 if input_shape is None else input_shape.min()) - 1e-5
                ar = units[0] / units[1]
                assert aspect[0] - 1e-4 <= ar <= aspect[1] + 1e-4
                assert np.all(anchor[i] >= 0) and np.all(anchor[i] + shape[i] <= 1 + 1e-6)


@pytest.mark.parametrize("aspect", [[0.5, 2.0], [1.0, 1.0], [0.01, 100.0]])
def test_relative_windows(aspect):
    kw = dict(thresholds=[0.0, 0.1, 0.3], scaling=[0.3, 0.8], aspect_ratio=aspect,
              bbox_layout="xyXY", num_attempts=50)
    out = run(kw)
    check_run(out, kw["thresholds"], scale=kw["scaling"], aspect=aspect)
    windows = {tuple(o[2][0]) for o in out}
    assert len(windows) > 10  # random windows, and the whole image sometimes (allow_no_crop)


def test_overlap_any_box_and_pruning():
    kw = dict(thresholds=[0.5, 0.9], threshold_type="overlap", all_boxes_above_threshold=False,
              scaling=[0.2, 0.6], aspect_ratio=[0.5, 2.0], bbox_layout="xyXY", num_attempts=100,
              allow_no_crop=False, bbox_prune_threshold=0.3)
    out = run(kw)
    check_run(out, kw["thresholds"], metric=overlap, all_boxes=False, prune=0.3, no_crop=False)


def test_aspect_ratio_in_input_units():
    kw = dict(scaling=[0.3, 0.6], aspect_ratio=[1.0, 1.0], input_shape=[400, 200],
              bbox_layout="xyXY", allow_no_crop=False)
    for boxes, anchor, shape, *_ in run(kw, iterations=10):
        for s in shape:
            np.testing.assert_allclose(s[0] * 400, s[1] * 200, rtol=1e-5)


@pytest.mark.parametrize("crop,input_shape,layout", [([100, 50], [400, 300], None),
                                                    ([600, 400], [400, 300], None),
                                                    ([40, 60], [600, 400], "HW")])
def test_fixed_crop_shape(crop, input_shape, layout):
    kw = dict(crop_shape=crop, input_shape=input_shape, bbox_layout="xyXY", num_attempts=100,
              thresholds=[0.0])
    if layout:
        kw["shape_layout"] = layout
    wh_crop = np.array(crop[::-1] if layout == "HW" else crop, np.float32)
    wh_in = np.array(input_shape[::-1] if layout == "HW" else input_shape, np.float32)
    for boxes, anchor, shape, got, labels, indices in run(kw, iterations=15):
        for i in range(len(boxes)):
            np.testing.assert_array_equal(shape[i], wh_crop)
            lo, hi = sorted((0, wh_in[0] - wh_crop[0])), sorted((0, wh_in[1] - wh_crop[1]))
            assert lo[0] <= anchor[i][0] <= lo[1] and hi[0] <= anchor[i][1] <= hi[1]
            assert np.all(anchor[i] == np.round(anchor[i]))
            lo_rel = (anchor[i] / wh_in).astype(np.float32)  # float32, as the operator computes
            rel = np.concatenate([lo_rel, lo_rel + (wh_crop / wh_in).astype(np.float32)])
            keep, want = expected_boxes(rel, boxes[i])
            np.testing.assert_array_equal(indices[i], keep)
            np.testing.assert_allclose(got[i], want, atol=1e-5)


def test_xywh_layout_round_trips():
    xywh = [np.concatenate([b[:, :2], b[:, 2:] - b[:, :2]], 1) for b in BOXES]
    out = run(dict(bbox_layout="xyWH", scaling=[1, 1]), iterations=3, boxes=xywh)
    for boxes, anchor, shape, got, *_ in out:
        for b, g in zip(boxes, got):  # the whole image: the boxes come back as given
            np.testing.assert_allclose(g, b, atol=1e-6)


def test_total_num_attempts_uses_the_best_window(capfd):
    out = run(dict(thresholds=[1.0], allow_no_crop=False, total_num_attempts=5,
                   scaling=[0.3, 0.5], bbox_layout="xyXY"), iterations=2, labels=False)
    assert "Could not find a valid cropping window" in capfd.readouterr().err
    assert all(len(o[3][3]) == 0 for o in out)  # the sample without boxes gets a window anyway
    run(dict(thresholds=[1.0], allow_no_crop=False, total_num_attempts=5, quiet=True,
             bbox_layout="xyXY"), iterations=1, labels=False)
    assert "Could not find" not in capfd.readouterr().err


def test_same_values_for_any_number_of_threads():
    kw = dict(thresholds=[0.1, 0.3], scaling=[0.3, 0.8], aspect_ratio=[0.5, 2.0],
              bbox_layout="xyXY", num_attempts=10)
    a, b = run(kw, iterations=5, threads=1), run(kw, iterations=5, threads=4)
    for x, y in zip(a, b):
        for ox, oy in zip(x, y):
            for sx, sy in zip(ox, oy):
                np.testing.assert_array_equal(sx, sy)


def crop_graph(fn, types, boxes, labels):
    return tuple(fn.random_bbox_crop(boxes, labels, bbox_layout="xyXY", scaling=[0.3, 1.0],
                                     thresholds=[0.1], output_bbox_indices=True))


def test_outputs_have_dalis_types_and_ranks(tmp_path):
    labels = [lab.reshape(-1, 1) for lab in LABELS]
    ours = run_sluice(crop_graph, [BOXES, labels])
    ref = run_dali(crop_graph, [BOXES, labels], tmp_path)
    assert len(ours) == len(ref) == 5
    for o, r in zip(ours, ref):
        assert [(a.dtype, a.ndim) for a in o] == [(a.dtype, a.ndim) for a in r]
        assert [a.shape[1:] for a in o] == [a.shape[1:] for a in r]


def ltrb_and_layout(fn, types, b):
    return tuple(fn.random_bbox_crop(b, ltrb=True, bbox_layout="xyXY"))


def bad_threshold(fn, types, b):
    return tuple(fn.random_bbox_crop(b, thresholds=[1.5]))


def bad_scaling(fn, types, b):
    return tuple(fn.random_bbox_crop(b, scaling=[0.5]))


def crop_without_input(fn, types, b):
    return tuple(fn.random_bbox_crop(b, crop_shape=[10, 10]))


def bad_type(fn, types, b):
    return tuple(fn.random_bbox_crop(b, threshold_type="foo"))


def zero_attempts(fn, types, b):
    return tuple(fn.random_bbox_crop(b, num_attempts=0))


def bad_layout(fn, types, b):
    return tuple(fn.random_bbox_crop(b, bbox_layout="xyXZ"))


def no_crop_with_shape(fn, types, b):
    return tuple(fn.random_bbox_crop(b, crop_shape=[10, 10], input_shape=[100, 100],
                                     allow_no_crop=True))


def scaling_with_shape(fn, types, b):
    return tuple(fn.random_bbox_crop(b, crop_shape=[10, 10], input_shape=[100, 100],
                                     scaling=[0.5, 1.0]))


def plain(fn, types, b):
    return tuple(fn.random_bbox_crop(b))


def test_refuses_what_dali_refuses(tmp_path):
    cases = [(ltrb_and_layout, BOXES, "can't be provided at the same time"),
             (bad_threshold, BOXES, r"within the range \[0.0, 1.0\]"),
             (bad_scaling, BOXES, "must be a range"),
             (crop_without_input, BOXES, "must be provided when providing"),
             (bad_type, BOXES, "Not supported ``threshold_type``"),
             (zero_attempts, BOXES, "greater than zero"),
             (bad_layout, BOXES, "should be a permutation of"),
             (no_crop_with_shape, BOXES, "`allow_no_crop` is incompatible"),
             (scaling_with_shape, BOXES, "`scaling` is incompatible"),
             (plain, [np.zeros((2, 5), np.float32)], "Unexpected number of coordinates")]
    for graph, boxes, message in cases:
        with pytest.raises(AssertionError, match=message):
            run_dali(graph, [boxes], tmp_path)
        with pytest.raises(ValueError, match=message):
            run_sluice(graph, [boxes])
