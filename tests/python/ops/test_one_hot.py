"""one_hot against NumPy and NVIDIA DALI 2.4: the new axis at the end, at `axis`, for scalars
(DALI's legacy rule: samples of one element each) and multi-dimensional inputs; classes out of
range; float classes truncated; on / off values converted to integer types as DALI does
(truncated, then wrapped); axis_name and layouts; the arguments DALI refuses. Bit-exact. The GPU
operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from sluice import fn, pipeline_def, types


def one_hot_graph(fn, types, labels, grid):
    return (fn.one_hot(labels, num_classes=6), fn.one_hot(labels, num_classes=6, axis=0),
            fn.one_hot(labels, num_classes=4, dtype=types.UINT8, on_value=300, off_value=-1.5),
            fn.one_hot(labels, num_classes=3, dtype=types.INT64, on_value=-7.9),
            fn.one_hot(fn.cast(labels, dtype=types.FLOAT), num_classes=5, dtype=types.FLOAT64),
            fn.one_hot(grid, num_classes=4, axis=1, axis_name="K"),
            fn.one_hot(grid, num_classes=4, axis_name="K"), fn.one_hot(labels))


def test_one_hot_equals_dali(tmp_path):
    rng = np.random.default_rng(21)
    labels = [rng.integers(-2, 8, int(rng.integers(0, 10))).astype(np.int32) for _ in range(5)]
    grid = [rng.integers(0, 5, (int(rng.integers(1, 5)), 3)).astype(np.uint8) for _ in range(5)]
    inputs, layouts = [labels, grid], [None, "HW"]
    ours, ol = run_sluice(one_hot_graph, inputs, layouts, with_layouts=True)
    ref, rl = run_dali(one_hot_graph, inputs, tmp_path, layouts, with_layouts=True)
    assert ol == rl
    for k, (o, r) in enumerate(zip(ours, ref)):
        for a, b in zip(o, r):
            assert a.dtype == b.dtype and a.shape == b.shape, f"output {k}"
            np.testing.assert_array_equal(a, b, err_msg=f"output {k}")
    for lab, hot in zip(labels, ours[0]):
        want = (lab[:, None] == np.arange(6)).astype(np.float32)
        np.testing.assert_array_equal(hot, want)


def scalar_graph(fn, types, x):
    return fn.one_hot(x, num_classes=4), fn.one_hot(x, num_classes=4, axis=0, axis_name="C")


def one_element_graph(fn, types, x):
    return fn.one_hot(x, num_classes=4, axis_name="C"), fn.one_hot(x, num_classes=4, axis=0)


def test_scalars_equal_dali(tmp_path):
    """0-d samples, and samples of one element each (scalars unless `axis` is given)."""
    x = [np.array(2, np.int64), np.array(7, np.int64)]
    x2 = [np.array([[2]], np.int16), np.array([[0]], np.int16)]
    for graph, data in ((scalar_graph, x), (one_element_graph, x2)):
        ours, ol = run_sluice(graph, [data], with_layouts=True)
        ref, rl = run_dali(graph, [data], tmp_path, with_layouts=True)
        assert ol == rl
        for o, r in zip(ours, ref):
            for a, b in zip(o, r):
                assert a.shape == b.shape
                np.testing.assert_array_equal(a, b)


def axis_out_of_range(fn, types, x):
    return fn.one_hot(x, num_classes=3, axis=2)


def long_axis_name(fn, types, x):
    return fn.one_hot(x, num_classes=3, axis_name="AB")


def name_without_layout(fn, types, x):
    return fn.one_hot(x, num_classes=3, axis_name="K")


def float16_input(fn, types, x):
    return fn.one_hot(fn.cast(x, dtype=types.FLOAT16), num_classes=3)


def bool_output(fn, types, x):
    return fn.one_hot(x, num_classes=3, dtype=types.BOOL)


def test_refuses_what_dali_refuses(tmp_path):
    x = [np.array([1, 2], np.int32), np.array([0, 1], np.int32)]
    for graph, message in ((axis_out_of_range, "outside of allowed range"),
                           (long_axis_name, "single character"),
                           (name_without_layout, "layout mismatch"),
                           (float16_input, "Unsupported input type"),
                           (bool_output, "Unsupported output type")):
        with pytest.raises(AssertionError, match="DALI failed"):
            run_dali(graph, [x], tmp_path)
        with pytest.raises(Exception, match=message):
            run_sluice(graph, [x])


@pytest.mark.gpu
def test_gpu_equals_cpu():
    rng = np.random.default_rng(22)
    data = [rng.integers(-1, 12, (int(rng.integers(0, 40)), 5)).astype(np.int32) for _ in range(6)]
    outs = {}
    for device in ("cpu", "gpu"):
        @pipeline_def(batch_size=len(data), num_threads=2, device_id=0)
        def p():
            x = fn.external_source(lambda: data, layout="HW")
            x = x if device == "cpu" else x.gpu()
            return (fn.one_hot(x, num_classes=10), fn.one_hot(x, num_classes=7, axis=0,
                                                              dtype=types.UINT8, axis_name="K"))

        outs[device] = [o.as_cpu() if device == "gpu" else o for o in p().run()]
    for c, g in zip(outs["cpu"], outs["gpu"]):
        assert c.layout() == g.layout()
        for i in range(len(data)):
            np.testing.assert_array_equal(np.asarray(c.at(i)), np.asarray(g.at(i)))
