"""segmentation.select_masks against NVIDIA DALI 2.4, exactly (several masks, reindexing, a mask
with two polygons: the last one counts, as in DALI; vertices of several types and widths, empty
selections); DALI's refusals; CPU only, as in DALI."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice


def select_graph(fn, types, ids, polygons, vertices):
    return (*fn.segmentation.select_masks(ids, polygons, vertices),
            *fn.segmentation.select_masks(ids, polygons, vertices, reindex_masks=True))


def random_masks(rng, n, dtype):
    ids, polys, verts = [], [], []
    for i in range(n):
        num_masks = int(rng.integers(1, 6))
        p, start = [], 0
        for m in range(num_masks):
            for _ in range(1 + (m == 1)):  # mask 1 has two polygons
                count = int(rng.integers(3, 7))
                p.append([m * 3, start, start + count])
                start += count
        polys.append(np.array(p, np.int32))
        verts.append((rng.uniform(0, 100, (start, 2 + i % 2)) if dtype == np.float32
                      else rng.integers(0, 100, (start, 2 + i % 2))).astype(dtype))
        k = int(rng.integers(0, num_masks + 1))
        ids.append((rng.permutation(num_masks)[:k] * 3).astype(np.int32))
    return ids, polys, verts


@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.float64])
def test_select_masks_equals_dali(tmp_path, dtype):
    # vertex widths differ per sample: one batch per width
    for width in (0, 1):
        ids, polys, verts = random_masks(np.random.default_rng(4 + width), 8, dtype)
        keep = [i for i in range(8) if i % 2 == width]
        inputs = [[x[i] for i in keep] for x in (ids, polys, verts)]
        ours, ref = run_sluice(select_graph, inputs), run_dali(select_graph, inputs, tmp_path)
        for k in range(4):
            for i in range(len(keep)):
                assert ours[k][i].dtype == ref[k][i].dtype and ours[k][i].shape == ref[k][i].shape
                np.testing.assert_array_equal(ours[k][i], ref[k][i], err_msg=f"output {k}")


def plain(fn, types, ids, polygons, vertices):
    return tuple(fn.segmentation.select_masks(ids, polygons, vertices))


def test_refuses_what_dali_refuses(tmp_path):
    v = [np.zeros((10, 2), np.float32)]
    p = [np.array([[0, 0, 3], [1, 3, 7], [2, 7, 10]], np.int32)]
    cases = [([np.array([1, 1], np.int32)], p, v, "duplicated values"),
             ([np.array([5], np.int32)], p, v, "is not present in the input"),
             ([np.array([1], np.int32)], [np.array([[1, 3, 12]], np.int32)], v, "out of bounds"),
             ([np.array([1], np.int32)], [np.array([[1, 5, 3]], np.int32)], v,
              "can't be after end index"),
             ([np.array([1], np.int64)], p, v, "expected to be int32"),
             ([np.array([1], np.int32)], [np.array([[1, 3, 5, 6]], np.int32)], v, "3 columns")]
    for ids, polys, verts, message in cases:
        with pytest.raises(AssertionError, match=message):
            run_dali(plain, [ids, polys, verts], tmp_path)
        with pytest.raises(ValueError, match=message):
            run_sluice(plain, [ids, polys, verts])
