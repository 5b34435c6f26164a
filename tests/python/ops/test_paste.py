"""paste against numpy on random images and NVIDIA DALI 2.4 on random images and photos (ratio,
positions and min_canvas_size as constants and per-sample inputs, fill values, 1, 3 and 4
channels), the same refusals as DALI; the GPU operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from op_testing import compare_gpu_cpu, files_in, pil_rgb, random_images


def paste_graph(fn, types, x):
    return fn.paste(x, ratio=2.0, fill_value=(7, 8, 9), paste_x=0.25)


def paste_inputs_graph(fn, types, x, ratio, px, py, min_canvas):
    return fn.paste(x, ratio=ratio, paste_x=px, paste_y=py, min_canvas_size=min_canvas,
                    fill_value=300)


def paste_channels_graph(fn, types, x):  # 4-channel images
    return fn.paste(x, ratio=1.7, n_channels=4, fill_value=(10, 20, 30, 40))


def test_paste_equals_numpy():
    rng = np.random.default_rng(1)
    images = [rng.integers(0, 256, (int(rng.integers(1, 40)), int(rng.integers(1, 40)), 3),
                           np.uint8) for _ in range(6)]
    (ours,) = run_sluice(paste_graph, [images], ["HWC"])
    for img, out in zip(images, ours):
        h, w = img.shape[:2]
        want = np.empty((2 * h, 2 * w, 3), np.uint8)
        want[...] = [7, 8, 9]
        y, x = int(0.5 * h), int(0.25 * w)
        want[y:y + h, x:x + w] = img
        np.testing.assert_array_equal(out, want)


def per_sample_args(rng, n):
    return [[np.array(v, np.float32) for v in values] for values in [
        rng.uniform(1, 3, n), rng.uniform(0, 1, n), rng.uniform(0, 1, n), rng.uniform(0, 80, n)]]


def paste_grey_graph(fn, types, x):
    return fn.paste(x, ratio=1.3, n_channels=1, fill_value=255, paste_y=0.9, min_canvas_size=30)


@pytest.mark.parametrize("graph,channels", [(paste_inputs_graph, 3), (paste_graph, 3),
                                            (paste_channels_graph, 4), (paste_grey_graph, 1)])
def test_paste_equals_dali_on_random_images(tmp_path, graph, channels):
    rng = np.random.default_rng(2)
    images = [rng.integers(0, 256, (int(rng.integers(1, 50)), int(rng.integers(1, 50)), channels),
                           np.uint8) for _ in range(12)]
    inputs, layouts = [images], ["HWC"]
    if graph is paste_inputs_graph:
        inputs, layouts = [images, *per_sample_args(rng, 12)], ["HWC"] + [None] * 4
    (ours,) = run_sluice(graph, inputs, layouts)
    (ref,) = run_dali(graph, inputs, tmp_path, layouts)
    for i, (a, b) in enumerate(zip(ours, ref)):
        np.testing.assert_array_equal(a, b, err_msg=f"sample {i}")


def test_paste_of_photos_equals_dali(shared_data, tmp_path):
    photos = [pil_rgb(p) for p in files_in(shared_data / "photos", "*.jpg")[:4]]
    inputs, layouts = [photos, *per_sample_args(np.random.default_rng(3), 4)], ["HWC"] + [None] * 4
    (ours,) = run_sluice(paste_inputs_graph, inputs, layouts)
    (ref,) = run_dali(paste_inputs_graph, inputs, tmp_path, layouts)
    for i, (a, b) in enumerate(zip(ours, ref)):
        np.testing.assert_array_equal(a, b, err_msg=f"photo {i}")


def refuse_ratio_graph(fn, types, x):
    return fn.paste(x, ratio=0.5, fill_value=0)


def refuse_position_graph(fn, types, x):
    return fn.paste(x, ratio=2.0, fill_value=0, paste_x=1.5)


def refuse_canvas_graph(fn, types, x):
    return fn.paste(x, ratio=2.0, fill_value=0, min_canvas_size=-1)


def refuse_fill_graph(fn, types, x):
    return fn.paste(x, ratio=2.0, fill_value=(1, 2))


@pytest.mark.parametrize("graph,layout,dtype,shape", [
    (refuse_ratio_graph, "HWC", np.uint8, (4, 5, 3)),
    (refuse_position_graph, "HWC", np.uint8, (4, 5, 3)),
    (refuse_canvas_graph, "HWC", np.uint8, (4, 5, 3)),
    (refuse_fill_graph, "HWC", np.uint8, (4, 5, 3)),
    (paste_graph, "HWC", np.float32, (4, 5, 3)),
    (paste_graph, "HWC", np.int16, (4, 5, 3)),
    (paste_graph, "CHW", np.uint8, (3, 4, 5)),
    (paste_graph, "HW", np.uint8, (4, 5)),
])
def test_paste_refuses_what_dali_refuses(tmp_path, graph, layout, dtype, shape):
    x = [np.ones(shape, dtype)] * 2
    with pytest.raises(AssertionError, match="DALI failed"):
        run_dali(graph, [x], tmp_path, [layout])
    with pytest.raises(Exception):
        run_sluice(graph, [x], [layout])


def test_paste_refuses_images_of_other_channels_than_n_channels():
    """DALI reads and writes past its buffers then (garbage, or a crash)."""
    x = [np.ones((4, 5, 4), np.uint8)] * 2
    with pytest.raises(Exception, match="n_channels"):
        run_sluice(paste_graph, [x], ["HWC"])


@pytest.mark.gpu
def test_gpu_equals_cpu():
    from sluice import fn

    data = random_images(np.random.default_rng(4), 16)

    def graph(x, d):
        ratio = fn.random.uniform(range=(1, 3), seed=5)
        px = fn.random.uniform(range=(0, 1), seed=6)
        return fn.paste(x, ratio=ratio, paste_x=px, fill_value=(1, 2, 3), device=d)

    compare_gpu_cpu(graph, data, atol=0)
