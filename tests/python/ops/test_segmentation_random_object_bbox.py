"""segmentation.random_object_bbox: DALI 2.4's outputs where they are deterministic (one object
per class, k_largest=1, foreground_prob=0, thresholds that leave one box or none, explicit classes
and weights, per-sample arguments, every output format and mask type); where DALI draws, every
box is a blob of its class (a flood fill over face neighbours) meeting threshold and k_largest,
and the frequencies of classes, blobs and whole-input boxes are the intended ones, in Sluice and
in DALI; the same values for any number of threads and with cache_objects; DALI's refusals (CPU
only, as in DALI)."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice

MASK_TYPES = [np.bool_, np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32]


def blobs(mask):
    """{label: [(start, end), ...]}: the boxes of the face-connected regions of equal labels."""
    seen = np.zeros(mask.shape, bool)
    out = {}
    for first in zip(*np.nonzero(np.ones(mask.shape, bool))):
        if seen[first]:
            continue
        label, stack, pts = mask[first], [first], []
        seen[first] = True
        while stack:
            p = stack.pop()
            pts.append(p)
            for d in range(mask.ndim):
                for step in (-1, 1):
                    q = p[:d] + (p[d] + step,) + p[d + 1:]
                    if 0 <= q[d] < mask.shape[d] and not seen[q] and mask[q] == label:
                        seen[q] = True
                        stack.append(q)
        pts = np.array(pts)
        out.setdefault(int(label), []).append((tuple(pts.min(0)), tuple(pts.max(0) + 1)))
    return out


def rect_masks(n, shape, labels, seed, dtype=np.uint8):
    """Masks of a few random labelled boxes over background 0."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        m = np.zeros(shape, dtype)
        for _ in range(rng.integers(1, 6)):
            lo = [rng.integers(0, s) for s in shape]
            hi = [rng.integers(a + 1, s + 1) for a, s in zip(lo, shape)]
            m[tuple(slice(a, b) for a, b in zip(lo, hi))] = rng.choice(labels)
        out.append(m)
    return out


def one_object_masks(dtype):
    """2D masks with at most one blob of one label each (bool: label 1)."""
    rng = np.random.default_rng(5)
    out = []
    for k in range(6):
        m = np.zeros((11 + k, 14), dtype)
        if k != 2:  # sample 2: background only
            y, x = rng.integers(0, 6, 2)
            m[y:y + 1 + k, x:x + 3 + k] = 1 if dtype == np.bool_ else k + 1
        out.append(m)
    return out


def formats_graph(fn, types, mask):
    outs = list(fn.segmentation.random_object_bbox(mask, output_class=True))
    outs += fn.segmentation.random_object_bbox(mask, format="start_end")
    outs += fn.segmentation.random_object_bbox(mask, format="box", output_class=True)
    outs.append(fn.segmentation.random_object_bbox(mask, format="box", ignore_class=True))
    outs += fn.segmentation.random_object_bbox(mask, foreground_prob=0.0, output_class=True)
    return tuple(outs)


@pytest.mark.parametrize("dtype", MASK_TYPES)
def test_single_objects_equal_dali_in_every_format(tmp_path, dtype):
    m = one_object_masks(dtype)
    ours = run_sluice(formats_graph, [m])
    ref = run_dali(formats_graph, [m], tmp_path)
    assert len(ours) == len(ref) == 11
    for o, r in zip(ours, ref):
        for a, b in zip(o, r):
            assert a.dtype == b.dtype == np.int32 and a.shape == b.shape
            np.testing.assert_array_equal(a, b)
    for i, mask in enumerate(m):  # anchor and shape: the flood fill's box, else the whole mask
        objs = [b for k, v in blobs(mask).items() if k != 0 for b in v]
        lo, hi = objs[0] if objs else ((0, 0), mask.shape)
        np.testing.assert_array_equal(ours[0][i], lo)
        np.testing.assert_array_equal(ours[1][i], np.subtract(hi, lo))


def deterministic_graph(fn, types, mask):
    s = fn.segmentation.random_object_bbox
    outs = [s(mask, ignore_class=True, k_largest=1, format="box")]
    outs += s(mask, classes=[2], k_largest=1, output_class=True, format="box")
    outs += s(mask, class_weights=[0, 1, 0], k_largest=1, output_class=True, format="box")
    outs += s(mask, classes=[3, 1], class_weights=[1, 0], k_largest=1, output_class=True,
              format="start_end")
    outs += s(mask, threshold=[30, 30, 30], output_class=True, format="box")
    outs += s(mask, classes=[0, 3], foreground_prob=0.0, output_class=True, format="box")
    outs += s(mask, background=3, foreground_prob=0.0, output_class=True, format="box")
    outs += s(mask, classes=[2], background=7, k_largest=1, threshold=[1, 2, 2],
              output_class=True)
    return tuple(outs)


@pytest.mark.parametrize("shape", [(13, 17, 1), (7, 9, 11)])
def test_deterministic_choices_equal_dali(tmp_path, shape):
    m = rect_masks(12, shape, [1, 2, 3], seed=sum(shape), dtype=np.int16)
    m[3][:] = 0
    ours = run_sluice(deterministic_graph, [m])
    ref = run_dali(deterministic_graph, [m], tmp_path)
    assert len(ours) == len(ref) == 17
    for k, (o, r) in enumerate(zip(ours, ref)):
        for i, (a, b) in enumerate(zip(o, r)):
            np.testing.assert_array_equal(a, b, err_msg=f"output {k} sample {i}")
    assert ours[11][0] == -1 and ours[13][0] == 3  # the background chosen, and the given one


def per_sample_graph(fn, types, mask, fg, bg, cls, thr):
    s = fn.segmentation.random_object_bbox
    return (*s(mask, foreground_prob=fg, background=bg, output_class=True, format="box",
               k_largest=1, classes=cls),
            *s(mask, threshold=thr, ignore_class=True, k_largest=1, format="start_end"))


def test_per_sample_arguments_equal_dali(tmp_path):
    m = rect_masks(8, (12, 16), [1, 2, 3, 4], seed=9, dtype=np.int32)
    fg = [np.array(v, np.float32) for v in (1, 0, 1, 1, 0, 1, 1, 1)]
    bg = [np.array(v, np.int32) for v in (0, 5, 9, 0, 0, 0, 8, 0)]
    cls = [np.array([1 + i % 4], np.int32) for i in range(8)]
    thr = [np.array([1 + i % 3, 2], np.int32) for i in range(8)]
    ours = run_sluice(per_sample_graph, [m, fg, bg, cls, thr])
    ref = run_dali(per_sample_graph, [m, fg, bg, cls, thr], tmp_path)
    for o, r in zip(ours, ref):
        np.testing.assert_array_equal(np.stack(o), np.stack(r))


def random_graph(fn, types, mask):
    s = fn.segmentation.random_object_bbox
    return (*s(mask, format="box", output_class=True),
            s(mask, format="box", ignore_class=True),
            *s(mask, format="box", output_class=True, threshold=[2]),
            *s(mask, format="box", output_class=True, k_largest=2),
            *s(mask, format="box", output_class=True, classes=[1, 3], class_weights=[1, 2]))


def check_valid(mask, out, threshold=None, k_largest=None, classes=None):
    """out: [(box, label)]; each is a blob of its class within the limits, or the whole input
    when none qualifies."""
    nd = mask.ndim
    objs = {k: v for k, v in blobs(mask).items() if k != 0 and (classes is None or k in classes)}
    def ok(b):
        return threshold is None or all(e - s >= t for s, e, t in zip(*b, threshold))
    good = {k: [b for b in v if ok(b)] for k, v in objs.items()}
    for box, label in out:
        label = None if label is None else int(label)
        b = (tuple(box[:nd]), tuple(box[nd:]))
        if label is None:  # ignore_class: any blob of any class
            assert b in [x for v in objs.values() for x in v]
            continue
        if not any(good.values()):
            assert b == ((0,) * nd, mask.shape) and label == 0
            continue
        assert b in good[label], (b, label, good)
        if k_largest:
            vols = sorted((np.prod(np.subtract(e, s)) for s, e in good[label]), reverse=True)
            assert np.prod(np.subtract(b[1], b[0])) >= vols[min(k_largest, len(vols)) - 1]


@pytest.mark.parametrize("shape", [(10, 13), (5, 6, 7)])
def test_random_choices_are_valid_blobs(tmp_path, shape):
    m = rect_masks(24, shape, [1, 2, 3], seed=len(shape))
    for outs in (run_sluice(random_graph, [m]), run_dali(random_graph, [m], tmp_path)):
        for i, mask in enumerate(m):
            check_valid(mask, [(outs[0][i], outs[1][i])])
            check_valid(mask, [(outs[2][i], None)])
            check_valid(mask, [(outs[3][i], outs[4][i])], threshold=[2] * mask.ndim)
            check_valid(mask, [(outs[5][i], outs[6][i])], k_largest=2)
            check_valid(mask, [(outs[7][i], outs[8][i])], classes=[1, 3])


def frequency_graph(fn, types, mask):
    s = fn.segmentation.random_object_bbox
    return (*s(mask, format="box", output_class=True, foreground_prob=0.8),
            *s(mask, format="box", output_class=True, class_weights=[1, 3]))


def test_frequencies_of_classes_blobs_and_whole_input(tmp_path):
    mask = np.zeros((9, 12), np.uint8)
    mask[0:2, 0:2] = mask[4, 0:5] = mask[7:9, 9:12] = 1  # three blobs of class 1
    mask[3:6, 7:10] = 2
    batch = [mask] * 600
    boxes = {(0, 0, 2, 2): 1, (4, 0, 5, 5): 1, (7, 9, 9, 12): 1, (3, 7, 6, 10): 2,
             (0, 0, 9, 12): 0}
    for outs in (run_sluice(frequency_graph, [batch]),
                 run_dali(frequency_graph, [batch], tmp_path)):
        drawn = [tuple(int(v) for v in b) for b in outs[0]]
        assert all(boxes[b] == c for b, c in zip(drawn, outs[1]))
        freq = {b: drawn.count(b) / len(drawn) for b in boxes}
        expected = {(0, 0, 9, 12): 0.2, (3, 7, 6, 10): 0.4}  # each class 0.4, a blob of 1: 0.4/3
        for b, p in freq.items():
            assert abs(p - expected.get(b, 0.4 / 3)) < 0.06, (b, p)
        share2 = np.mean(np.array(outs[3]) == 2)
        assert abs(share2 - 0.75) < 0.06  # class_weights [1, 3] for the classes 1, 2


def cached_graph(fn, types, mask):
    return tuple(fn.segmentation.random_object_bbox(mask, output_class=True, cache_objects=True))


def uncached_graph(fn, types, mask):
    return tuple(fn.segmentation.random_object_bbox(mask, output_class=True))


def test_same_values_for_any_number_of_threads_and_with_cache():
    m = rect_masks(6, (14, 15), [1, 2, 3], seed=4) * 3
    ref = run_sluice(uncached_graph, [m], num_threads=1)
    for graph, threads in ((uncached_graph, 3), (cached_graph, 1), (cached_graph, 3)):
        out = run_sluice(graph, [m], num_threads=threads)
        for o, r in zip(out, ref):
            np.testing.assert_array_equal(np.stack(o), np.stack(r))


def refused_ignore_class(fn, types, mask):
    return tuple(fn.segmentation.random_object_bbox(mask, ignore_class=True, classes=[1]))


def refused_k_largest(fn, types, mask):
    return tuple(fn.segmentation.random_object_bbox(mask, k_largest=0))


def refused_format(fn, types, mask):
    return tuple(fn.segmentation.random_object_bbox(mask, format="xyz"))


def refused_weights(fn, types, mask):
    return tuple(fn.segmentation.random_object_bbox(mask, classes=[1, 2], class_weights=[1.0]))


def refused_background(fn, types, mask):
    return tuple(fn.segmentation.random_object_bbox(mask, classes=[1], background=1))


def refused_threshold(fn, types, mask):
    return tuple(fn.segmentation.random_object_bbox(mask, threshold=[1, 1, 1]))


def plain(fn, types, mask):
    return tuple(fn.segmentation.random_object_bbox(mask))


@pytest.mark.parametrize("graph, data, message", [
    (refused_ignore_class, None, "cannot be used when ``ignore_class`` is True"),
    (refused_k_largest, None, "must be at least 1"),
    (refused_format, None, "Invalid output format"),
    (refused_weights, None, "their shapes must match"),
    (refused_background, None, "coincides with background label"),
    (refused_threshold, None, "expected shape 2 but got 3 values"),
    (plain, np.int64, "Unsupported input type"),
    (plain, np.float32, "Unsupported input type"),
    (plain, "7d", "number of dimensions 7"),
])
def test_refuses_what_dali_refuses(tmp_path, graph, data, message):
    if data == "7d":
        m = [np.zeros((2,) * 7, np.uint8)] * 2
    else:
        m = [x.astype(data or np.uint8) for x in rect_masks(2, (6, 7), [1, 2], seed=1)]
    with pytest.raises(AssertionError, match=message):
        run_dali(graph, [m], tmp_path)
    with pytest.raises(ValueError, match=message):
        run_sluice(graph, [m])
