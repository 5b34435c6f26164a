"""box_encoder against NVIDIA DALI 2.4, bit for bit: random boxes against a grid of anchors, with
and without offsets (scale, means, stds), criteria, no boxes, ties; DALI's refusals; the GPU
operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from sluice import fn, pipeline_def


def grid_anchors(np):
    """ltrb anchors centred on an 8 x 8 grid, two sizes, clipped to the image."""
    c = (np.arange(8) + 0.5) / 8
    cx, cy = np.meshgrid(c, c)
    return np.concatenate([np.clip(np.stack([cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2], -1),
                                   0, 1).reshape(-1) for s in (0.15, 0.3)]).astype(np.float32)


ANCHORS = grid_anchors(np).tolist()
CONFIGS = [{}, {"criteria": 0.3}, {"criteria": 0.0}, {"offset": True},
           {"offset": True, "scale": 300.0, "means": [0.1, -0.2, 0.05, 0.0],
            "stds": [0.1, 0.1, 0.2, 0.2]}]


def random_boxes(rng, n):
    boxes, labels = [], []
    for i in range(n):
        k = 0 if i == 1 else int(rng.integers(1, 12))
        lt = rng.uniform(0, 0.8, (k, 2))
        wh = rng.uniform(0.02, 0.5, (k, 2))
        boxes.append(np.concatenate([lt, np.minimum(lt + wh, 1)], 1).astype(np.float32))
        labels.append(rng.integers(1, 80, k).astype(np.int32))
    boxes[2] = np.array([[0.1, 0.1, 0.3, 0.3], [0.1, 0.1, 0.3, 0.3]], np.float32)  # a tie
    labels[2] = np.array([5, 6], np.int32)
    return boxes, labels


def encoder_graph(fn, types, boxes, labels):
    c = (np.arange(8) + 0.5) / 8
    cx, cy = np.meshgrid(c, c)
    anchors = np.concatenate([np.clip(np.stack([cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2],
                                               -1), 0, 1).reshape(-1)
                              for s in (0.15, 0.3)]).astype(np.float32).tolist()
    configs = [{}, {"criteria": 0.3}, {"criteria": 0.0}, {"offset": True},
               {"offset": True, "scale": 300.0, "means": [0.1, -0.2, 0.05, 0.0],
                "stds": [0.1, 0.1, 0.2, 0.2]}]
    return tuple(out for kw in configs for out in fn.box_encoder(boxes, labels, anchors=anchors,
                                                                   **kw))


def test_box_encoder_equals_dali(tmp_path):
    boxes, labels = random_boxes(np.random.default_rng(3), 8)
    ours = run_sluice(encoder_graph, [boxes, labels])
    ref = run_dali(encoder_graph, [boxes, labels], tmp_path)
    assert len(ours) == len(ref) == 2 * len(CONFIGS)
    for k in range(len(ours)):
        for i in range(len(boxes)):
            assert ours[k][i].dtype == ref[k][i].dtype and ours[k][i].shape == ref[k][i].shape
            np.testing.assert_array_equal(ours[k][i], ref[k][i],
                                          err_msg=f"{CONFIGS[k // 2]} output {k % 2} sample {i}")
    assert ours[0][0].shape == (len(ANCHORS) // 4, 4)
    assert (ours[1][0] != 0).any()


def criteria_high(fn, types, b, lab):
    return tuple(fn.box_encoder(b, lab, anchors=[0.0, 0.0, 1.0, 1.0], criteria=1.5))


def criteria_low(fn, types, b, lab):
    return tuple(fn.box_encoder(b, lab, anchors=[0.0, 0.0, 1.0, 1.0], criteria=-0.5))


def three_means(fn, types, b, lab):
    return tuple(fn.box_encoder(b, lab, anchors=[0.0, 0.0, 1.0, 1.0], means=[0.0, 0.0, 0.0]))


def zero_std(fn, types, b, lab):
    return tuple(fn.box_encoder(b, lab, anchors=[0.0, 0.0, 1.0, 1.0], stds=[0.0, 1.0, 1.0, 1.0]))


def three_anchor_values(fn, types, b, lab):
    return tuple(fn.box_encoder(b, lab, anchors=[0.0, 0.0, 1.0]))


def test_refuses_what_dali_refuses(tmp_path):
    inputs = list(random_boxes(np.random.default_rng(3), 3))
    for graph, message in ((criteria_high, "Expected criteria <= 1"),
                           (criteria_low, "Expected criteria >= 0"),
                           (three_means, "means size must be a list of 4 values"),
                           (zero_std, "stds values must be != 0"),
                           (three_anchor_values, "Anchors size must be divisible by 4")):
        with pytest.raises(AssertionError, match=message):
            run_dali(graph, inputs, tmp_path)
        with pytest.raises(ValueError, match=message):
            run_sluice(graph, inputs)


@pytest.mark.gpu
@pytest.mark.parametrize("offset", [False, True])
def test_gpu_equals_cpu(offset):
    boxes, labels = random_boxes(np.random.default_rng(5), 16)
    many = np.random.default_rng(6).uniform(0, 0.5, (1500, 2)).astype(np.float32)
    boxes[3] = np.concatenate([many, many + 0.3], 1)  # more than one chunk of boxes
    labels[3] = np.arange(1500, dtype=np.int32)
    outs = {}
    for device in ("cpu", "gpu"):
        @pipeline_def(batch_size=16, num_threads=2, device_id=0, seed=1)
        def p():
            b, lab = fn.external_source(lambda: boxes), fn.external_source(lambda: labels)
            if device == "gpu":
                b, lab = b.gpu(), lab.gpu()
            return tuple(fn.box_encoder(b, lab, anchors=ANCHORS, offset=offset, scale=300.0,
                                        device=device))

        res = p().run()
        outs[device] = [r.as_cpu() if device == "gpu" else r for r in res]
    for k in range(2):
        for i in range(16):
            c, g = np.asarray(outs["cpu"][k].at(i)), np.asarray(outs["gpu"][k].at(i))
            if k == 1:
                np.testing.assert_array_equal(g, c)
            else:  # the log of the offsets may differ in its last bit on the device
                np.testing.assert_allclose(g, c, rtol=1e-6, atol=1e-6)
