"""reshape against numpy and NVIDIA DALI 2.4: `shape` (one extent inferred), `rel_shape`
(relative to the input, or to the extents `src_dims` selects), `src_dims` (constants only, as in
DALI; -1 inserts an extent of 1), the shape as a CPU input and as per-sample arguments, `layout`
alone, the layout kept when the number of dimensions is; the arguments DALI refuses. The output views the input's memory.
The GPU operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from op_testing import assert_gpu_half_equals_cpu
from sluice import fn, pipeline_def


def reshape_graph(fn, types, x):
    return (fn.reshape(x, shape=[-1]), fn.reshape(x, shape=[3, -1]),
            fn.reshape(x, shape=[-5, 4]), fn.reshape(x, rel_shape=[-1, 0.5]),
            fn.reshape(x, rel_shape=[1, 1, 1]), fn.reshape(x, src_dims=[2, 0, 1]),
            fn.reshape(x, src_dims=[0, 2], rel_shape=[1, 3]),
            fn.reshape(x, src_dims=[0, 2], shape=[-1, 12]), fn.reshape(x, layout="ABC"),
            fn.reshape(x, shape=[-1], layout="X"), fn.reshape(x, shape=[-1, 3, 4]),
            fn.reshape(x, shape=[-1], layout=""),
            fn.reshape(x, src_dims=[-1, 0, 1, 2], layout="NHWC"),
            fn.reshape(fn.cast(x, dtype=types.FLOAT), shape=[4, -1]))


def test_reshape_equals_dali_and_numpy(tmp_path):
    rng = np.random.default_rng(3)
    x = [rng.integers(0, 255, (h, 3, 4)).astype(np.uint8) for h in (2, 5, 7)]
    ours, our_layouts = run_sluice(reshape_graph, [x], ["HWC"], with_layouts=True)
    for a, s in zip(ours[1], x):
        np.testing.assert_array_equal(a, s.reshape(3, -1))
    ref, ref_layouts = run_dali(reshape_graph, [x], tmp_path, ["HWC"], with_layouts=True)
    assert our_layouts == ref_layouts
    for k, (o, r) in enumerate(zip(ours, ref)):
        for a, b in zip(o, r):
            assert a.dtype == b.dtype and a.shape == b.shape, f"output {k}"
            np.testing.assert_array_equal(a, b, err_msg=f"output {k}")


def tensor_shape_graph(fn, types, x, shape, rel):
    return (fn.reshape(x, shape), fn.reshape(x, shape=shape), fn.reshape(x, rel_shape=rel),
            fn.reshape(x, fn.cast(shape, dtype=types.INT64)))


def tensor_src_dims_graph(fn, types, x, dims):
    return fn.reshape(x, src_dims=dims)


def test_shapes_as_tensors_equal_dali(tmp_path):
    # Without a layout: DALI 2.4 refuses tensor shapes that change the number of dimensions of
    # an input with a layout ("Unexpected layout of output 0").
    x = [np.arange(24, dtype=np.int16).reshape(2, 3, 4), np.arange(60, dtype=np.int16).reshape(5, 3, 4)]
    shape = [np.array([4, 6], np.int32), np.array([15, -1], np.int32)]
    rel = [np.array([1, 2, 0.5], np.float32), np.array([0.2, 1, 5], np.float32)]
    inputs = [x, shape, rel]
    ours = run_sluice(tensor_shape_graph, inputs)
    ref = run_dali(tensor_shape_graph, inputs, tmp_path)
    for k, (o, r) in enumerate(zip(ours, ref)):
        for a, b in zip(o, r):
            assert a.dtype == b.dtype and a.shape == b.shape, f"output {k}"
            np.testing.assert_array_equal(a, b, err_msg=f"output {k}")


def test_src_dims_as_a_tensor_is_refused_as_by_dali(tmp_path):
    # DALI 2.4's schema lists `src_dims` as a tensor argument, but the operator ignores one and
    # refuses the call as a no-op; Sluice refuses it when the graph is built.
    x = [np.zeros((2, 3, 4), np.int16)] * 2
    dims = [np.array([1, 0, 2], np.int32)] * 2
    with pytest.raises(AssertionError, match="no-op"):
        run_dali(tensor_src_dims_graph, [x, dims], tmp_path)
    with pytest.raises(Exception, match="src_dims"):
        run_sluice(tensor_src_dims_graph, [x, dims])


def r_zero(fn, types, x): return fn.reshape(x, shape=[0, -1])
def r_two_negative(fn, types, x): return fn.reshape(x, shape=[-1, -1])
def r_volume(fn, types, x): return fn.reshape(x, shape=[5, 5])
def r_rel_volume(fn, types, x): return fn.reshape(x, rel_shape=[1, 12])
def r_rel_zero(fn, types, x): return fn.reshape(x, rel_shape=[0, 1, 1])
def r_both(fn, types, x): return fn.reshape(x, shape=[-1], rel_shape=[1])
def r_nothing(fn, types, x): return fn.reshape(x)
def r_layout(fn, types, x): return fn.reshape(x, layout="AB")
def r_src_oob(fn, types, x): return fn.reshape(x, src_dims=[3])
def r_src_negative(fn, types, x): return fn.reshape(x, src_dims=[-2, 0, 1, 2])
def r_src_drop(fn, types, x): return fn.reshape(x, src_dims=[0, 1])
def r_src_rel(fn, types, x): return fn.reshape(x, src_dims=[0, 1, 2], rel_shape=[1, 1])
def r_float_input(fn, types, x): return fn.reshape(x, fn.cast(fn.shapes(x), dtype=types.FLOAT))
def r_input_and_arg(fn, types, x): return fn.reshape(x, fn.shapes(x), shape=[-1])


REFUSED = [(r_zero, "Extent of 0"), (r_two_negative, "one negative"),
           (r_volume, "same size in bytes"), (r_rel_volume, "same size in bytes"),
           (r_rel_zero, "Extent of 0"), (r_both, "mutually exclusive"), (r_nothing, "no-op"),
           (r_layout, "not compatible"), (r_src_oob, "out of bounds"),
           (r_src_negative, "out of bounds"), (r_src_drop, "same size in bytes"),
           (r_src_rel, "different lengths"), (r_float_input, "integral type"),
           (r_input_and_arg, "mutually exclusive")]


@pytest.mark.parametrize("graph,message", REFUSED, ids=[g.__name__[2:] for g, _ in REFUSED])
def test_refuses_what_dali_refuses(tmp_path, graph, message):
    x = [np.zeros((2, 3, 4), np.uint8)] * 2
    with pytest.raises(AssertionError, match="DALI failed"):
        run_dali(graph, [x], tmp_path, ["HWC"])
    with pytest.raises(Exception, match=message):
        run_sluice(graph, [x], ["HWC"])


def test_output_views_the_input():
    """The reshaped batch is the input's memory, and stays valid when the next batch comes."""
    rng = np.random.default_rng(4)
    batches = [[rng.integers(0, 255, (4, 6), dtype=np.uint8) for _ in range(3)] for _ in range(3)]
    fed = []

    def source():
        fed.append(len(fed))
        return batches[(len(fed) - 1) % 3]

    @pipeline_def(batch_size=3, num_threads=1, device_id=None, prefetch_queue_depth=1)
    def p():
        x = fn.external_source(source)
        y = fn.copy(x)
        return y, fn.reshape(y, shape=[-1])

    pipe = p()
    held = []
    for b in batches:
        y, r = pipe.run()
        for i in range(3):
            np.testing.assert_array_equal(np.asarray(r.at(i)), b[i].reshape(-1))
        assert np.asarray(y.at(0)).__array_interface__["data"][0] == \
            np.asarray(r.at(0)).__array_interface__["data"][0]
        held.append((b, r))
    for b, r in held:
        for i in range(3):
            np.testing.assert_array_equal(np.asarray(r.at(i)), b[i].reshape(-1))


@pytest.mark.gpu
def test_gpu_equals_cpu():
    rng = np.random.default_rng(5)
    data = [rng.integers(0, 255, (int(rng.integers(1, 9)), 6, 4)).astype(np.uint8)
            for _ in range(4)]
    shape = [np.array([-1, 4], np.int64)] * 4

    def graph(x, s):
        return (fn.reshape(x, s), fn.reshape(x, src_dims=[1, -1, 0, 2], layout="ABCD"),
                fn.reshape(x, rel_shape=[1, 0.5, 2]), fn.reinterpret(x, dtype=fn_types().INT32),
                fn.reinterpret(x, shape=[-1], dtype=fn_types().INT16))

    @pipeline_def(batch_size=4, num_threads=1, device_id=0)
    def p():
        x = fn.external_source(lambda: data, layout="HWC")
        s = fn.external_source(lambda: shape)
        return graph(x, s) + graph(x.gpu(), s)

    assert_gpu_half_equals_cpu(p().run())


def fn_types():
    from sluice import types
    return types
