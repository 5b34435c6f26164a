"""segmentation.random_mask_pixel: foreground pixels by value or threshold, drawn uniformly (each
foreground pixel's frequency), any pixel without foreground or with foreground=0, 2D and 3D masks
of several types; the same values for any number of threads; DALI's output type and refusals (CPU
only, as in DALI)."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from sluice import fn, pipeline_def


def pixel_graph(fn, types, mask, fg):
    return (fn.segmentation.random_mask_pixel(mask, foreground=fg),
            fn.segmentation.random_mask_pixel(mask, foreground=fg, value=3),
            fn.segmentation.random_mask_pixel(mask, foreground=fg, threshold=2.5))


def masks(dtype):
    rng = np.random.default_rng(2)
    out = [rng.integers(0, 5, (13, 17)).astype(dtype) for _ in range(4)]
    out[1][:] = 0  # no foreground
    return out


@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.float32, np.int64])
def test_pixels_are_foreground_and_types_as_dali(tmp_path, dtype):
    m = masks(dtype)
    fg = [np.array(v, np.int32) for v in (1, 1, 0, 1)]
    ours = run_sluice(pixel_graph, [m, fg])
    ref = run_dali(pixel_graph, [m, fg], tmp_path)
    for o, r in zip(ours, ref):
        assert [(a.dtype, a.shape) for a in o] == [(a.dtype, a.shape) for a in r]
    for i in (0, 3):
        assert m[i][tuple(ours[0][i])] > 0
        assert m[i][tuple(ours[1][i])] == 3
        assert m[i][tuple(ours[2][i])] > 2.5
    for k in range(3):
        assert np.all(ours[k][1] >= 0) and np.all(ours[k][1] < [13, 17])


def test_foreground_pixels_are_drawn_uniformly():
    mask = np.zeros((4, 5, 6), np.uint8)
    fg = [(0, 0, 0), (1, 2, 3), (3, 4, 5), (2, 0, 1)]
    for p in fg:
        mask[p] = 7

    @pipeline_def(batch_size=64, num_threads=2, device_id=None, seed=3)
    def p():
        m = fn.external_source(lambda: [mask] * 64)
        return fn.segmentation.random_mask_pixel(m, value=7, foreground=1)

    pipe = p()
    drawn = [tuple(np.asarray(o)) for _ in range(40) for o in pipe.run()[0]]
    counts = {q: drawn.count(q) for q in fg}
    assert sum(counts.values()) == len(drawn)
    assert all(abs(c / len(drawn) - 0.25) < 0.04 for c in counts.values())


def test_same_values_for_any_number_of_threads():
    m = [x * 2 for x in masks(np.uint8)]
    outs = []
    for threads in (1, 3):
        @pipeline_def(batch_size=4, num_threads=threads, device_id=None, seed=11)
        def p():
            return fn.segmentation.random_mask_pixel(fn.external_source(lambda: m), foreground=1)

        outs.append(np.asarray(p().run()[0]))
    np.testing.assert_array_equal(*outs)


def both(fn, types, mask, fg):
    return fn.segmentation.random_mask_pixel(mask, value=1, threshold=0.5)


def test_refuses_what_dali_refuses(tmp_path):
    m, fg = masks(np.uint8), [np.array(1, np.int32)] * 4
    with pytest.raises(AssertionError, match="can not be provided together"):
        run_dali(both, [m, fg], tmp_path)
    with pytest.raises(ValueError, match="can not be provided together"):
        run_sluice(both, [m, fg])
    m64 = [x.astype(np.float64) for x in m]
    with pytest.raises(AssertionError, match="Unexpected data type"):
        run_dali(pixel_graph, [m64, fg], tmp_path)
    with pytest.raises(ValueError, match="Unexpected data type"):
        run_sluice(pixel_graph, [m64, fg])
