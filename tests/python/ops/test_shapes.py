"""shapes (DataNode.shape()) against NVIDIA DALI 2.4: each sample's shape as a 1-D tensor of the
requested type (INT64 by default), for samples of any shape and type, 0-D included; the types DALI
refuses. The GPU operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from sluice import fn, pipeline_def, types


def shape_graph(fn, types, x, e):
    return (x.shape(), x.shape(dtype=types.INT32), x.shape(dtype=types.FLOAT),
            x.shape(dtype=types.FLOAT64), x.shape(dtype=types.UINT32), x[0].shape(),
            x[0, 0, 0].shape(), e.shape(), x.shape().shape(), x.shape()[-1],
            fn.shapes(x, dtype=types.INT32), fn.shapes(e, type=types.FLOAT))


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.int64, np.bool_])
def test_shapes_equal_dali(tmp_path, dtype):
    x = [np.zeros((2, 3, 4), dtype), np.zeros((5, 1, 7), dtype), np.zeros((1, 300, 2), dtype)]
    e = [np.zeros((0, 3), np.int16), np.zeros((300, 3), np.int16), np.zeros((2, 0), np.int16)]
    ours, our_layouts = run_sluice(shape_graph, [x, e], ["HWC", "AB"], with_layouts=True)
    ref, ref_layouts = run_dali(shape_graph, [x, e], tmp_path, ["HWC", "AB"], with_layouts=True)
    assert our_layouts == ref_layouts
    for k, (o, r) in enumerate(zip(ours, ref)):
        for a, b in zip(o, r):
            assert a.dtype == b.dtype and a.shape == b.shape, f"output {k}"
            np.testing.assert_array_equal(a, b, err_msg=f"output {k}")
    assert ours[0][1].tolist() == [5, 1, 7] and ours[0][1].dtype == np.int64


def uint8_graph(fn, types, x):
    return x.shape(dtype=types.UINT8)


def float16_graph(fn, types, x):
    return x.shape(dtype=types.FLOAT16)


def bool_graph(fn, types, x):
    return fn.shapes(x, dtype=types.BOOL)


def test_refuses_the_types_dali_refuses(tmp_path):
    x = [np.zeros((2, 3), np.float32)] * 2
    for graph in (uint8_graph, float16_graph, bool_graph):
        with pytest.raises(AssertionError, match="DALI failed"):
            run_dali(graph, [x], tmp_path)
        with pytest.raises(Exception, match="can return the output as one of"):
            run_sluice(graph, [x])


def test_gpu_data_has_its_shape_on_the_gpu_only():
    """Data does not flow back from the GPU stage: the shape of GPU data is GPU data (DALI's
    dynamic executor would also give it on the CPU)."""
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def p():
        return fn.external_source(lambda: [np.zeros((2, 3))]).gpu().shape()

    with pytest.raises(NotImplementedError, match="device='gpu'"):
        p().build()


@pytest.mark.gpu
def test_gpu_equals_cpu():
    data = [np.zeros((2, 3, 4), np.uint8), np.zeros((5, 0, 7), np.uint8)]

    @pipeline_def(batch_size=2, num_threads=1, device_id=0)
    def p():
        x = fn.external_source(lambda: data, layout="HWC")
        g = x.gpu()
        return (x.shape(), g.shape(device="gpu"), x.shape(device="gpu"),
                g.shape(dtype=types.FLOAT, device="gpu"), g[0].shape(device="gpu"))

    cpu, gpu, moved, as_float, indexed = p().run()
    for t in (gpu, moved, as_float, indexed):
        assert type(t).__name__ == "TensorListGPU"
    for s in range(2):
        want = np.array(data[s].shape)
        np.testing.assert_array_equal(np.asarray(cpu.at(s)), want)
        np.testing.assert_array_equal(np.asarray(gpu.as_cpu().at(s)), want)
        np.testing.assert_array_equal(np.asarray(moved.as_cpu().at(s)), want)
        np.testing.assert_array_equal(np.asarray(as_float.as_cpu().at(s)), want.astype(np.float32))
        np.testing.assert_array_equal(np.asarray(indexed.as_cpu().at(s)), want[1:])
