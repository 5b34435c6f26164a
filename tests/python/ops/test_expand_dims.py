"""expand_dims (what sluice.newaxis builds) against NVIDIA DALI 2.4: new dimensions of extent 1 at
the output positions given, named in the layout with new_axis_names (no layout otherwise), and the
arguments DALI refuses. The GPU operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from sluice import fn, pipeline_def


def expand_graph(fn, types, x):
    return (fn.expand_dims(x, axes=[0]), fn.expand_dims(x, axes=[2]),
            fn.expand_dims(x, axes=[0, 3]), fn.expand_dims(x, axes=[3, 0]),
            fn.expand_dims(x, axes=[0], new_axis_names="N"),
            fn.expand_dims(x, axes=[1, 2], new_axis_names="AB"), fn.expand_dims(x, axes=[]),
            fn.expand_dims(x, axes=[1], new_axis_names="H"), fn.expand_dims(x[0, 0], axes=[0, 1]))


def test_expand_dims_equals_dali(tmp_path):
    x = [np.arange(6).reshape(2, 3).astype(np.int16), np.arange(12).reshape(3, 4).astype(np.int16)]
    ours, our_layouts = run_sluice(expand_graph, [x], ["HW"], with_layouts=True)
    ref, ref_layouts = run_dali(expand_graph, [x], tmp_path, ["HW"], with_layouts=True)
    assert our_layouts == ref_layouts
    for k, (o, r) in enumerate(zip(ours, ref)):
        for a, b in zip(o, r):
            assert a.dtype == b.dtype and a.shape == b.shape, f"output {k}"
            np.testing.assert_array_equal(a, b)


def too_far_graph(fn, types, x):
    return fn.expand_dims(x, axes=[4])


def negative_graph(fn, types, x):
    return fn.expand_dims(x, axes=[-1])


def duplicate_graph(fn, types, x):
    return fn.expand_dims(x, axes=[0, 0])


def names_count_graph(fn, types, x):
    return fn.expand_dims(x, axes=[0], new_axis_names="AB")


def test_refuses_what_dali_refuses(tmp_path):
    x = [np.zeros((2, 3), np.int16)] * 2
    for graph, message, layouts in (
            (too_far_graph, "not enough dimensions", ["HW"]),
            (negative_graph, "can't be negative", ["HW"]),
            (duplicate_graph, "Duplicate axis", ["HW"]),
            (names_count_graph, "new dimension names", ["HW"])):
        with pytest.raises(AssertionError, match="DALI failed"):
            run_dali(graph, [x], tmp_path, layouts)
        with pytest.raises(Exception, match=message):
            run_sluice(graph, [x], layouts)


@pytest.mark.gpu
def test_gpu_equals_cpu():
    data = [np.arange(6).reshape(2, 3).astype(np.float32), np.zeros((0, 4), np.float32)]

    @pipeline_def(batch_size=2, num_threads=1, device_id=0)
    def p():
        x = fn.external_source(lambda: data, layout="HW")
        return (fn.expand_dims(x, axes=[0, 3], new_axis_names="NC"),
                fn.expand_dims(x.gpu(), axes=[0, 3], new_axis_names="NC"))

    cpu, gpu = p().run()
    assert cpu.layout() == gpu.layout() == "NHWC"
    for s in range(2):
        np.testing.assert_array_equal(np.asarray(cpu.at(s)), np.asarray(gpu.as_cpu().at(s)))
