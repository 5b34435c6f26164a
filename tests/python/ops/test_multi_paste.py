"""multi_paste against numpy on random images and NVIDIA DALI 2.4 on random images and photos
(in_ids with absolute and relative anchors and shapes as per-sample inputs, several inputs
without in_ids, output_size, dtype conversions), the same refusals as DALI; the GPU operator
against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from op_testing import compare_gpu_cpu, files_in, pil_rgb


def multi_paste_graph(fn, types, x, ids, in_anchors, shapes, out_anchors, size):
    return fn.multi_paste(x, in_ids=ids, in_anchors=in_anchors, shapes=shapes,
                          out_anchors=out_anchors, output_size=size)


def multi_paste_rel_graph(fn, types, x, ids, in_rel, shapes_rel, out_rel):
    return fn.multi_paste(x, in_ids=ids, in_anchors_rel=in_rel, shapes_rel=shapes_rel,
                          out_anchors_rel=out_rel, output_size=[50, 70], dtype=types.UINT8)


def multi_paste_inputs_graph(fn, types, a, b, c):
    return fn.multi_paste(a, b, c, dtype=types.FLOAT)


def multi_paste_defaults_graph(fn, types, x, ids):
    return fn.multi_paste(x, in_ids=ids, dtype=types.INT16)


def random_regions(rng, images, canvas):
    """For each output: 0 to 4 regions from random samples, inside both source and canvas."""
    ids, in_anchors, shapes, out_anchors = [], [], [], []
    for _ in images:
        k = int(rng.integers(0, 5))
        ids.append(rng.integers(0, len(images), k).astype(np.int32))
        ia, sh, oa = [], [], []
        for j in ids[-1]:
            src = images[j].shape[:2]
            size = [int(rng.integers(0, min(src[d], canvas[d]) + 1)) for d in range(2)]
            sh.append(size)
            ia.append([int(rng.integers(0, src[d] - size[d] + 1)) for d in range(2)])
            oa.append([int(rng.integers(0, canvas[d] - size[d] + 1)) for d in range(2)])
        in_anchors.append(np.array(ia, np.int32).reshape(k, 2))
        shapes.append(np.array(sh, np.int32).reshape(k, 2))
        out_anchors.append(np.array(oa, np.int32).reshape(k, 2))
    return ids, in_anchors, shapes, out_anchors


def random_images(rng, n, dtype, channels=3):
    return [rng.integers(0, 256, (int(rng.integers(5, 60)), int(rng.integers(5, 60)), channels))
            .astype(dtype) for _ in range(n)]


def test_multi_paste_equals_numpy():
    rng = np.random.default_rng(1)
    images = random_images(rng, 6, np.uint8)
    canvas = (40, 50)
    ids, ia, sh, oa = random_regions(rng, images, canvas)
    sizes = [np.array(canvas, np.int32)] * len(images)
    inputs = [images, ids, ia, sh, oa, sizes]
    (ours,) = run_sluice(multi_paste_graph, inputs, ["HWC"] + [None] * 5)
    for i, out in enumerate(ours):
        want = np.zeros(canvas + (3,), np.uint8)
        for j, a, s, o in zip(ids[i], ia[i], sh[i], oa[i]):
            want[o[0]:o[0] + s[0], o[1]:o[1] + s[1]] = images[j][a[0]:a[0] + s[0], a[1]:a[1] + s[1]]
        np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.float32])
def test_multi_paste_equals_dali_on_random_images(tmp_path, dtype):
    rng = np.random.default_rng(2)
    images = random_images(rng, 10, dtype)
    ids, ia, sh, oa = random_regions(rng, images, (30, 45))
    sizes = [np.array([30, 45], np.int32)] * len(images)
    inputs, layouts = [images, ids, ia, sh, oa, sizes], ["HWC"] + [None] * 5
    (ours,) = run_sluice(multi_paste_graph, inputs, layouts)
    (ref,) = run_dali(multi_paste_graph, inputs, tmp_path, layouts)
    for i, (a, b) in enumerate(zip(ours, ref)):
        assert a.dtype == b.dtype == dtype
        np.testing.assert_array_equal(a, b, err_msg=f"sample {i}")


def test_multi_paste_relative_equals_dali(tmp_path):
    rng = np.random.default_rng(3)
    images = [(rng.uniform(-40, 300, im.shape)).astype(np.float32)
              for im in random_images(rng, 8, np.float32)]
    ids, in_rel, shapes_rel, out_rel = [], [], [], []
    for _ in images:
        k = int(rng.integers(1, 4))
        ids.append(rng.integers(0, len(images), k).astype(np.int32))
        size = rng.uniform(0, 0.5, (k, 2)).astype(np.float32)
        shapes_rel.append(size)
        in_rel.append((rng.uniform(0, 1, (k, 2)) * (1 - size)).astype(np.float32))
        out_rel.append(rng.uniform(0, 0.2, (k, 2)).astype(np.float32))
    inputs, layouts = [images, ids, in_rel, shapes_rel, out_rel], ["HWC"] + [None] * 4
    (ours,) = run_sluice(multi_paste_rel_graph, inputs, layouts)
    (ref,) = run_dali(multi_paste_rel_graph, inputs, tmp_path, layouts)
    for i, (a, b) in enumerate(zip(ours, ref)):
        assert a.dtype == b.dtype == np.uint8
        np.testing.assert_array_equal(a, b, err_msg=f"sample {i}")


def test_multi_paste_of_several_inputs_equals_dali(tmp_path):
    rng = np.random.default_rng(4)
    batches = [[rng.integers(0, 256, (20, 30, 3), np.uint8) for _ in range(5)] for _ in range(3)]
    (ours,) = run_sluice(multi_paste_inputs_graph, batches, ["HWC"] * 3)
    (ref,) = run_dali(multi_paste_inputs_graph, batches, tmp_path, ["HWC"] * 3)
    for i, (a, b) in enumerate(zip(ours, ref)):
        assert a.dtype == b.dtype == np.float32
        np.testing.assert_array_equal(a, b, err_msg=f"sample {i}")
        np.testing.assert_array_equal(a, batches[2][i])


def test_multi_paste_of_photos_equals_dali(shared_data, tmp_path):
    photos = [pil_rgb(p)[:400, :500] for p in files_in(shared_data / "photos", "*.jpg")[:6]]
    rng = np.random.default_rng(5)
    canvas = (300, 400)
    ids, ia, sh, oa = random_regions(rng, photos, canvas)
    sizes = [np.array(canvas, np.int32)] * len(photos)
    inputs, layouts = [photos, ids, ia, sh, oa, sizes], ["HWC"] + [None] * 5
    (ours,) = run_sluice(multi_paste_graph, inputs, layouts)
    (ref,) = run_dali(multi_paste_graph, inputs, tmp_path, layouts)
    for i, (a, b) in enumerate(zip(ours, ref)):
        np.testing.assert_array_equal(a, b, err_msg=f"photo {i}")
    h, w = min(p.shape[0] for p in photos), min(p.shape[1] for p in photos)
    same = [p[:h, :w] for p in photos]
    ids = [np.array([i, (i + 1) % len(same)], np.int32) for i in range(len(same))]
    (ours,) = run_sluice(multi_paste_defaults_graph, [same, ids], ["HWC", None])
    (ref,) = run_dali(multi_paste_defaults_graph, [same, ids], tmp_path, ["HWC", None])
    for i, (a, b) in enumerate(zip(ours, ref)):
        assert a.dtype == b.dtype == np.int16
        np.testing.assert_array_equal(a, b, err_msg=f"photo {i}, whole images")


def refuse_out_of_bounds_graph(fn, types, x, ids):
    return fn.multi_paste(x, in_ids=ids, out_anchors=fn.constant(idata=[0, 3], shape=[1, 2]))


def refuse_bad_id_graph(fn, types, x, ids):
    return fn.multi_paste(x, in_ids=ids + 2)


def refuse_negative_size_graph(fn, types, x, ids):
    return fn.multi_paste(x, in_ids=ids, output_size=[-1, 3])


def refuse_type_graph(fn, types, x, ids):
    return fn.multi_paste(x, in_ids=ids, dtype=types.FLOAT16)


def refuse_both_graph(fn, types, x, ids):
    anchors = fn.constant(idata=[0, 0], shape=[1, 2])
    rel = fn.constant(fdata=[0.0, 0.0], shape=[1, 2])
    return fn.multi_paste(x, in_ids=ids, out_anchors=anchors, out_anchors_rel=rel)


def refuse_shape_graph(fn, types, x, ids):
    return fn.multi_paste(x, in_ids=ids, shapes=fn.constant(idata=[1, 1, 1], shape=[1, 3]))


@pytest.mark.parametrize("graph,layout,dtype,shapes", [
    (refuse_out_of_bounds_graph, "HWC", np.uint8, [(1, 4, 1)] * 2),
    (refuse_bad_id_graph, "HWC", np.uint8, [(1, 4, 1)] * 2),
    (refuse_negative_size_graph, "HWC", np.uint8, [(1, 4, 1)] * 2),
    (refuse_type_graph, "HWC", np.uint8, [(1, 4, 1)] * 2),
    (refuse_both_graph, "HWC", np.uint8, [(1, 4, 1)] * 2),
    (refuse_shape_graph, "HWC", np.uint8, [(1, 4, 1)] * 2),
    (multi_paste_defaults_graph, "HWC", np.uint16, [(1, 4, 1)] * 2),
    (multi_paste_defaults_graph, "HWC", np.uint8, [(1, 4, 1), (2, 2, 1)]),
    (multi_paste_defaults_graph, "CHW", np.uint8, [(1, 4, 1)] * 2),
    (multi_paste_defaults_graph, "HW", np.uint8, [(1, 4)] * 2),
])
def test_multi_paste_refuses_what_dali_refuses(tmp_path, graph, layout, dtype, shapes):
    x = [np.ones(s, dtype) for s in shapes]
    ids = [np.array([0], np.int32)] * 2
    with pytest.raises(AssertionError, match="DALI failed"):
        run_dali(graph, [x, ids], tmp_path, [layout, None])
    with pytest.raises(Exception):
        run_sluice(graph, [x, ids], [layout, None])


@pytest.mark.gpu
def test_gpu_equals_cpu():
    from sluice import fn, types

    rng = np.random.default_rng(6)
    data = [rng.integers(1, 256, (64, 80, 3), np.uint8) for _ in range(8)]

    def graph(x, d):
        ids = fn.constant(idata=[3, 1, 0], shape=[3], device="cpu")
        anchors = fn.constant(idata=[0, 0, 10, 20, 30, 5], shape=[3, 2], device="cpu")
        return fn.multi_paste(x, in_ids=ids, out_anchors=anchors,
                              shapes=fn.constant(idata=[30, 40] * 3, shape=[3, 2], device="cpu"),
                              dtype=types.FLOAT, device=d)

    compare_gpu_cpu(graph, data, atol=0)
