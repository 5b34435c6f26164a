"""DataNode indexing ("_tensor_subscript", "_subscript_dim_check" and expand_dims for newaxis)
against NVIDIA DALI 2.4: integer indices remove a dimension, slices keep it with Python's rules
(steps both ways, negative and out-of-range bounds), sluice.newaxis inserts one, per-sample
DataNode indices; values, shapes, types and layouts equal, and the same inputs refused. The GPU
operator against the CPU one, bit for bit."""

import numpy as np
import pytest

import sluice
from dali_reference import run_dali, run_sluice
from sluice import fn, pipeline_def

DTYPES = [np.uint8, np.int16, np.float32, np.float64, np.bool_]


def batch(dtype=np.int16):
    """Two 3-D samples of different shapes, distinct values."""
    return [np.arange(24).reshape(2, 3, 4).astype(dtype),
            np.arange(60).reshape(3, 4, 5).astype(dtype)]


def index_graph(fn, types, x):
    na = __import__(fn.__name__[:-3], fromlist=["newaxis"]).newaxis  # sluice's or DALI's
    return (x[1], x[-1], x[:, 1], x[1, 2, 3], x[::-1, 0, 0], x[0, 1:-1, 0], x[0, -10:10, 0],
            x[0, 0, ::-2], x[0, 0, 3:1:-1], x[0, 0, 2:1], x[:, 1::100], x[:, -100::-1],
            x[:, :-100], x[2:], x[np.int64(1)], x[True], x[1:np.int32(2)], x[:, :], x[None],
            x[:, ::2, 1:], x[-2:, ::-1, -1:-4:-2], x[na], x[:, na],
            x[:, na("N")], x[1, na("N"), ::2], x[na, 1], x[na("M"), na("N")], x[0, :, na])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", ["HWC", None])
def test_indexing_equals_dali(tmp_path, dtype, layout):
    if layout is None:  # named new axes need a layout (tested below)
        def graph(fn, types, x):
            na = __import__(fn.__name__[:-3], fromlist=["newaxis"]).newaxis
            return (x[1], x[:, 1], x[1, 2, 3], x[::-1, 0, 0], x[0, 0, ::-2], x[na], x[:, na],
                    x[na, 1], x[-2:, ::-1, -1:-4:-2], x[:, :])
    else:
        graph = index_graph
    inputs, layouts = [batch(dtype)], [layout]
    ours, our_layouts = run_sluice(graph, inputs, layouts, with_layouts=True)
    ref, ref_layouts = run_dali(graph, inputs, tmp_path, layouts, with_layouts=True)
    assert our_layouts == ref_layouts
    assert len(ours) == len(ref)
    for k, (o, r) in enumerate(zip(ours, ref)):
        for a, b in zip(o, r):
            assert a.dtype == b.dtype and a.shape == b.shape, f"output {k}"
            np.testing.assert_array_equal(a, b, err_msg=f"output {k}")


def data_node_index_graph(fn, types, x, i, lo, step):
    i, lo, step = i[0], lo[0], step[0]  # 0-D per-sample values
    return x[i], x[:, i], x[0, lo:], x[0, ::step], x[i, lo:, ::step], x[lo:i, 1]


@pytest.mark.parametrize("index_type", [np.int32, np.int64, np.uint8, np.int16])
def test_per_sample_data_node_indices_equal_dali(tmp_path, index_type):
    x = batch()
    i = [np.array([1], index_type), np.array([2], index_type)]
    lo = [np.array([1], np.int32), np.array([-2], np.int32)]
    step = [np.array([-1], np.int32), np.array([2], np.int32)]
    inputs, layouts = [x, i, lo, step], ["HWC", None, None, None]
    ours, our_layouts = run_sluice(data_node_index_graph, inputs, layouts, with_layouts=True)
    ref, ref_layouts = run_dali(data_node_index_graph, inputs, tmp_path, layouts,
                                with_layouts=True)
    assert our_layouts == ref_layouts
    for k, (o, r) in enumerate(zip(ours, ref)):
        for a, b in zip(o, r):
            assert a.shape == b.shape, f"output {k}"
            np.testing.assert_array_equal(a, b, err_msg=f"output {k}")


def test_indexing_equals_numpy_on_random_data():
    rng = np.random.default_rng(8)
    data = [rng.integers(0, 1000, (5, 6, 7, 3)).astype(np.int32) for _ in range(3)]

    def graph(fn, types, x):
        return x[1:4, ::-2, 3], x[-1, :, ::3, ::-1], x[:, 2:-1:2, 1::2, 0], x[4, 5, 6]

    outs = run_sluice(graph, [data])
    for s, d in enumerate(data):
        for o, want in zip(outs, (d[1:4, ::-2, 3], d[-1, :, ::3, ::-1], d[:, 2:-1:2, 1::2, 0],
                                  d[4, 5, 6])):
            np.testing.assert_array_equal(o[s], want)


def refused(graph, inputs, tmp_path, layouts=None):
    """Both refuse `graph`; returns Sluice's message."""
    with pytest.raises(AssertionError, match="DALI failed"):
        run_dali(graph, inputs, tmp_path, layouts)
    with pytest.raises(Exception) as e:
        run_sluice(graph, inputs, layouts)
    return str(e.value)


def step_zero_graph(fn, types, x):
    return x[::0]


def out_of_range_graph(fn, types, x):
    return x[2]


def negative_out_of_range_graph(fn, types, x):
    return x[-4]


def too_many_graph(fn, types, x):
    return x[1, 2, 3, 0]


def too_many_full_graph(fn, types, x):
    return x[:, :, :, :]


def ellipsis_graph(fn, types, x):
    return x[..., 1]


def float_index_graph(fn, types, x):
    return x[1.0]


def node_index_graph(fn, types, x, i):
    return x[i]


def float_node_index_graph(fn, types, x, i):
    return x[i[0]]


def scalar_graph(fn, types, x):
    return x[0][0]


def unnamed_and_named_graph(fn, types, x):
    na = __import__(fn.__name__[:-3], fromlist=["newaxis"]).newaxis
    return x[na, na("N")]


def named_without_layout_graph(fn, types, x):
    na = __import__(fn.__name__[:-3], fromlist=["newaxis"]).newaxis
    return x[:, na("N")]


def test_refuses_what_dali_refuses(tmp_path):
    x = [batch()]
    assert "Step cannot be zero" in refused(step_zero_graph, x, tmp_path)
    assert "Index 2 is out of range for axis 0 of length 2" in refused(out_of_range_graph, x,
                                                                        tmp_path)
    assert "out of range" in refused(negative_out_of_range_graph, x, tmp_path)
    assert "Too many indices (4) for a 3D tensor" in refused(too_many_graph, x, tmp_path)
    assert "Too many indices (4) for a 3-D tensor" in refused(too_many_full_graph, x, tmp_path)
    assert "Ellipsis" in refused(ellipsis_graph, x, tmp_path)
    assert "Invalid type for an index" in refused(float_index_graph, x, tmp_path)
    f = [np.array([1.0], np.float32)] * 2
    assert "integral type" in refused(float_node_index_graph, [batch(), f], tmp_path)
    v = [np.array([1], np.int32)] * 2
    assert "must be scalar (0D)" in refused(node_index_graph, [batch(), v], tmp_path)
    assert "Cannot apply an index to a scalar" in refused(
        scalar_graph, [[np.array([3]), np.array([4])]], tmp_path)
    assert "for all axes or none" in refused(unnamed_and_named_graph, x, tmp_path)
    assert "requires an input with a proper layout" in refused(named_without_layout_graph, x,
                                                               tmp_path)


def test_newaxis_is_sluices_and_names_one_character():
    assert sluice.newaxis("C").name == "C" and sluice.newaxis.name is None
    with pytest.raises(ValueError):
        sluice.newaxis("CD")
    with pytest.raises(TypeError):
        sluice.newaxis(3)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_gpu_equals_cpu_bit_for_bit(dtype):
    data = batch(dtype)
    index = [np.array([1], np.int32), np.array([-1], np.int32)]

    def graph(x, i):
        i = i[0]
        return (x[1], x[:, ::-2, 1:], x[i, :, sluice.newaxis("N")], x[-2:, ::-1, -1:-4:-2],
                x[:, :], x[sluice.newaxis], x[0, 0, ::-1])

    outs = {}
    for device in ("cpu", "gpu"):
        @pipeline_def(batch_size=2, num_threads=2, device_id=0)
        def p():
            x = fn.external_source(lambda: data, layout="HWC")
            i = fn.external_source(lambda: index)
            return graph(x.gpu() if device == "gpu" else x, i)

        outs[device] = p().run()
    for c, g in zip(outs["cpu"], outs["gpu"]):
        assert type(g).__name__ == "TensorListGPU" and c.layout() == g.layout()
        g = g.as_cpu()
        for s in range(2):
            np.testing.assert_array_equal(np.asarray(c.at(s)), np.asarray(g.at(s)))
