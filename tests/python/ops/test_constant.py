"""constant (what types.Constant builds for arrays, lists and shaped scalars) against NVIDIA DALI
2.4: values converted to the requested type with DALI's rules (floats to integers round half away
from zero and saturate), shapes filled from one value, layouts, and the arguments DALI refuses.
The GPU operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from sluice import fn, pipeline_def, types


def constant_graph(fn, types, x):
    return (fn.constant(fdata=[1.5, 2.7, -3.5]), fn.constant(idata=[1, 2, 3]),
            fn.constant(fdata=[1.5, 2.5, -3.5, 300, -0.5], dtype=types.INT32),
            fn.constant(fdata=[1.5, 2.5, -3.5, 300, -0.5], dtype=types.UINT8),
            fn.constant(idata=[1, -2, 300], dtype=types.UINT8),
            fn.constant(idata=[1, 2, 3], dtype=types.FLOAT),
            fn.constant(idata=[1, 2, 3, 4, 5, 6], shape=[2, 3], layout="HW"),
            fn.constant(idata=7, shape=[2, 3]), fn.constant(idata=[1, 0, 2], dtype=types.BOOL),
            fn.constant(fdata=[70000.0, 0.1], dtype=types.FLOAT16),
            fn.constant(idata=[2 ** 40, -2 ** 40]), fn.constant(fdata=[1.0], shape=[]),
            types.Constant(np.arange(6, dtype=np.int16).reshape(2, 3), layout="XY"),
            types.Constant([1.5, 2]), types.Constant([True, False]),
            types.Constant(np.array([1.5, 2.25])), types.Constant(5, shape=[2, 2]),
            types.Constant(np.array([7, 8])), types.Constant(1.5, dtype=types.INT32, shape=[2]),
            x + types.Constant(np.array([[2]], np.uint8)),
            fn.constant(fdata=[0.4, 0.6, -0.7, 0.0], dtype=types.BOOL))


def test_constants_equal_dali(tmp_path):
    x = [np.ones((2, 3), np.uint8)] * 3
    ours, our_layouts = run_sluice(constant_graph, [x], with_layouts=True)
    ref, ref_layouts = run_dali(constant_graph, [x], tmp_path, with_layouts=True)
    assert our_layouts == ref_layouts
    for k, (o, r) in enumerate(zip(ours, ref)):
        for a, b in zip(o, r):
            assert a.dtype == b.dtype and a.shape == b.shape, f"output {k}"
            np.testing.assert_array_equal(a, b, err_msg=f"output {k}")
    assert ours[2][0].tolist() == [2, 3, -4, 300, -1]


def both_data_graph(fn, types, x):
    return fn.constant(fdata=[1.0], idata=[1])


def no_data_graph(fn, types, x):
    return fn.constant(shape=[2])


def wrong_count_graph(fn, types, x):
    return fn.constant(idata=[1, 2], shape=[3])


def wrong_layout_graph(fn, types, x):
    return fn.constant(idata=[1, 2, 3], layout="HW")


def big_int64_array_graph(fn, types, x):
    return x + np.array([2 ** 40])


def test_refuses_what_dali_refuses(tmp_path):
    x = [np.ones((2, 3), np.uint8)] * 2
    for graph, message in ((both_data_graph, "mutually exclusive"),
                           (no_data_graph, "must be present"),
                           (wrong_count_graph, "does not match the shape"),
                           (wrong_layout_graph, "incompatible with the requested output shape"),
                           (big_int64_array_graph, "out of range for int32")):
        with pytest.raises(AssertionError, match="DALI failed"):
            run_dali(graph, [x], tmp_path)
        with pytest.raises(Exception, match=message):
            run_sluice(graph, [x])


def test_float64_constants_are_float64_here():
    """DALI's constant refuses FLOAT64 ("Unsupported type: double"); Sluice gives the values
    (which travel as float32, as DALI's do) in float64."""
    def graph(fn, types, x):
        return fn.constant(fdata=[0.1, 2.5], dtype=types.FLOAT64)

    (out,) = run_sluice(graph, [[np.zeros(1)]])
    assert out[0].dtype == np.float64 and out[0].tolist() == [float(np.float32(0.1)), 2.5]


def test_scalars_without_shape_are_scalar_constants():
    assert isinstance(types.Constant(3), types.ScalarConstant)
    assert types.Constant(3).dtype == types.INT32
    assert types.Constant(np.uint8(3)).dtype == types.UINT8
    assert types.Constant(np.array(2.5)).dtype == types.FLOAT64
    assert types.Constant(1.7, types.UINT8).value == 1
    assert str(types.Constant(3, types.INT16)) == "3:DALIDataType.INT16" and repr(types.Constant(3)) == "3"
    assert int(types.Constant(3)) == 3 and float(types.Constant(2.5)) == 2.5
    with pytest.raises(TypeError):
        float(types.Constant(3))
    with pytest.raises(TypeError):
        types.Constant("a")
    with pytest.raises(NotImplementedError, match="enum"):
        types.Constant(types.INTERP_LINEAR)


def scalar_argument_graph(fn, types, x):
    return fn.flip(x, horizontal=types.Constant(1), vertical=types.Constant(0, types.INT32))


def test_scalar_constants_are_argument_values_as_in_dali(tmp_path):
    x = [np.arange(12, dtype=np.uint8).reshape(2, 2, 3)] * 2
    (ours,) = run_sluice(scalar_argument_graph, [x], ["HWC"])
    (ref,) = run_dali(scalar_argument_graph, [x], tmp_path, ["HWC"])
    for a, b in zip(ours, ref):
        np.testing.assert_array_equal(a, b)


@pytest.mark.gpu
def test_gpu_equals_cpu():
    @pipeline_def(batch_size=3, num_threads=1, device_id=0)
    def p():
        return (fn.constant(idata=[1, 2, 3, 4, 5, 6], shape=[2, 3], layout="HW"),
                fn.constant(idata=[1, 2, 3, 4, 5, 6], shape=[2, 3], layout="HW", device="gpu"),
                fn.constant(fdata=[0.5], shape=[4], dtype=types.FLOAT16, device="gpu"),
                types.Constant(np.arange(5, dtype=np.int16), device="gpu"))

    cpu, gpu, half, const = p().run()
    assert gpu.layout() == "HW"
    for s in range(3):
        np.testing.assert_array_equal(np.asarray(cpu.at(s)), np.asarray(gpu.as_cpu().at(s)))
        np.testing.assert_array_equal(np.asarray(half.as_cpu().at(s)), np.full(4, 0.5, np.float16))
        np.testing.assert_array_equal(np.asarray(const.as_cpu().at(s)), np.arange(5))
