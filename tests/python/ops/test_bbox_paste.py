"""bbox_paste against NVIDIA DALI 2.4, bit for bit (xywh and ltrb, per-sample ratio and paste
position, ratios below 1 and offsets pulled back inside the canvas) and against numpy; DALI's
refusals; CPU only, as in DALI."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice


def paste_graph(fn, types, boxes, ratio, px, py):
    return (fn.bbox_paste(boxes, ratio=ratio, paste_x=px, paste_y=py),
            fn.bbox_paste(boxes, ratio=ratio, paste_x=px, paste_y=py, ltrb=True))


def test_bbox_paste_equals_dali_and_numpy(tmp_path):
    rng = np.random.default_rng(7)
    n = 10
    boxes = [rng.uniform(0, 1, (int(rng.integers(0, 20)), 4)).astype(np.float32) for _ in range(n)]
    ratio = [np.array(v, np.float32) for v in rng.uniform(1, 4, n)]
    ratio[0], ratio[1] = np.float32(0.5), np.float32(1)
    px = [np.array(v, np.float32) for v in rng.uniform(0, 1, n)]
    py = [np.array(v, np.float32) for v in rng.uniform(0, 1, n)]
    px[2] = np.float32(1.5)
    inputs = [boxes, ratio, px, py]
    ours, ref = run_sluice(paste_graph, inputs), run_dali(paste_graph, inputs, tmp_path)
    for k in range(2):
        for i in range(n):
            assert ours[k][i].dtype == np.float32 and ours[k][i].shape == boxes[i].shape
            np.testing.assert_array_equal(ours[k][i], ref[k][i], err_msg=f"ltrb {k} sample {i}")
    for i in (3, 4, 5):  # ordinary cases against the formula (offsets need no correction)
        s = np.float32(1) / ratio[i]
        ofs = np.array([px[i], py[i]], np.float32) * ((ratio[i] - np.float32(1)) / ratio[i])
        want = np.concatenate([boxes[i][:, :2] * s + ofs, boxes[i][:, 2:] * s], 1)
        np.testing.assert_allclose(ours[0][i], want, rtol=1e-6, atol=1e-7)


def plain(fn, types, boxes):
    return fn.bbox_paste(boxes, ratio=2)


def test_refuses_what_dali_refuses(tmp_path):
    for batch, message in (([np.zeros((2, 3), np.float32)], "multiple of 4"),
                           ([np.zeros((2, 4), np.int32)], None)):
        with pytest.raises(AssertionError, match=message or "DALI failed"):
            run_dali(plain, [batch], tmp_path)
        with pytest.raises(ValueError, match=message or "Bounding box in wrong format"):
            run_sluice(plain, [batch])
