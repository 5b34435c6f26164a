"""bb_flip against numpy and NVIDIA DALI 2.4 (xywh and ltrb, per-sample horizontal / vertical,
empty samples, boxes outside [0, 1]); DALI's refusals; the GPU operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from op_testing import gpu_equals_cpu_bit_for_bit
from sluice import fn


def bb_flip_graph(fn, types, boxes, horizontal, vertical):
    return (fn.bb_flip(boxes, horizontal=horizontal, vertical=vertical),
            fn.bb_flip(boxes, ltrb=True, horizontal=horizontal, vertical=vertical))


def random_boxes(rng, n):
    """Boxes of n samples: [k, 4] with k from 0 to 40, one empty, one outside [0, 1]."""
    out = [rng.uniform(0, 1, (int(rng.integers(1, 40)), 4)).astype(np.float32) for _ in range(n)]
    out[1] = rng.uniform(-0.5, 1.5, (9, 4)).astype(np.float32)
    out[2] = np.zeros((0, 4), np.float32)
    return out


def flags(n):
    return ([np.array(k % 2, np.int32) for k in range(n)],
            [np.array(k // 2 % 2, np.int32) for k in range(n)])


def numpy_flip(b, ltrb, h, v):
    b = b.reshape(-1, 4).astype(np.float32)
    lo, hi = b[:, :2], (b[:, 2:] if ltrb else b[:, :2] + b[:, 2:])
    flip = np.array([h, v], bool)
    new_lo = np.where(flip, np.float32(1) - hi, lo)
    new_hi = np.where(flip, np.float32(1) - lo, hi)
    return np.concatenate([new_lo, new_hi if ltrb else new_hi - new_lo], axis=1)


def test_bb_flip_equals_numpy_and_dali(tmp_path):
    boxes = random_boxes(np.random.default_rng(4), 12)
    inputs = [boxes, *flags(len(boxes))]
    ours = run_sluice(bb_flip_graph, inputs)
    ref = run_dali(bb_flip_graph, inputs, tmp_path)
    for k, ltrb in enumerate((False, True)):
        for i, b in enumerate(boxes):
            assert ours[k][i].dtype == np.float32 and ours[k][i].shape == b.shape
            np.testing.assert_array_equal(ours[k][i], ref[k][i], err_msg=f"ltrb {ltrb} sample {i}")
            np.testing.assert_array_equal(ours[k][i].reshape(-1, 4),
                                          numpy_flip(b, ltrb, inputs[1][i], inputs[2][i]))


def plain_flip(fn, types, boxes):
    return fn.bb_flip(boxes)


def test_flat_boxes_equal_dali(tmp_path):
    boxes = [np.random.default_rng(1).uniform(0, 1, 4 * k).astype(np.float32) for k in (2, 1, 5)]
    (ours,), (ref,) = run_sluice(plain_flip, [boxes]), run_dali(plain_flip, [boxes], tmp_path)
    for o, r, b in zip(ours, ref, boxes):
        assert o.shape == b.shape
        np.testing.assert_array_equal(o, r)


def test_refuses_what_dali_refuses(tmp_path):
    for batch in ([np.zeros((2, 4), np.int32)], [np.zeros((2, 4), np.float64)]):
        with pytest.raises(AssertionError, match="Bounding box in wrong format"):
            run_dali(plain_flip, [batch], tmp_path)
        with pytest.raises(ValueError, match="Bounding box in wrong format"):
            run_sluice(plain_flip, [batch])


def test_refuses_a_size_not_a_multiple_of_4():
    # DALI flips the whole boxes and leaves the rest of the output unwritten (docs/COMPATIBILITY.md).
    with pytest.raises(ValueError, match="multiple of 4"):
        run_sluice(plain_flip, [[np.zeros((2, 3), np.float32)]])


@pytest.mark.gpu
@pytest.mark.parametrize("ltrb", [False, True])
def test_gpu_equals_cpu_bit_for_bit(ltrb):
    def graph(device):
        boxes = fn.random.uniform(range=[0, 1], shape=[37, 4], seed=2)
        boxes = boxes.gpu() if device == "gpu" else boxes
        return fn.bb_flip(boxes, ltrb=ltrb, horizontal=fn.random.coin_flip(seed=3),
                          vertical=fn.random.coin_flip(seed=4), device=device)

    gpu_equals_cpu_bit_for_bit(graph)
