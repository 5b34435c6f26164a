"""lookup_table against NumPy and NVIDIA DALI 2.4: keys in and out of the table, repeated keys
(the last wins), every integer input type, output types (rounded half away from zero and
saturated), the default value, and the arguments DALI refuses. Bit-exact. The GPU operator
against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from sluice import fn, pipeline_def, types

KEYS = [0, 2, 3, 4, 5, 3, 65535]
VALUES = [0.2, 0.4, 0.5, 0.6, 0.7, 0.10, 9.5]


def lut_graph(fn, types, x):
    keys, values = [0, 2, 3, 4, 5, 3, 65535], [0.2, 0.4, 0.5, 0.6, 0.7, 0.10, 9.5]
    return (fn.lookup_table(x, keys=keys, values=values, default_value=0.99),
            fn.lookup_table(x, keys=keys, values=[1.5, 2.5, -1.5, 300, -3, 7, 1],
                            default_value=-2.5, dtype=types.UINT8),
            fn.lookup_table(x, keys=keys, values=[1.5, 2.5, -1.5, 300, -3, 7, 1],
                            default_value=-2.5, dtype=types.INT8),
            fn.lookup_table(x, keys=keys, values=values, dtype=types.FLOAT16),
            fn.lookup_table(x, keys=keys, values=values, dtype=types.FLOAT64),
            fn.lookup_table(x, keys=keys, values=[0.4, 0.6, -3, 0, 1, 2, 0], dtype=types.BOOL),
            fn.lookup_table(x))


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.uint16, np.int16, np.int32, np.uint32,
                                   np.int64, np.uint64])
def test_lookup_table_equals_dali(tmp_path, dtype):
    rng = np.random.default_rng(31)
    info = np.iinfo(dtype)
    data = [rng.integers(max(info.min, -3), min(info.max, 8), int(rng.integers(0, 20)),
                         endpoint=True).astype(dtype) for _ in range(4)]
    data[0] = np.array([min(info.max, 65535), 1, 6], dtype)
    ours, ol = run_sluice(lut_graph, [data], ["X"], with_layouts=True)
    ref, rl = run_dali(lut_graph, [data], tmp_path, ["X"], with_layouts=True)
    assert ol == rl
    for k, (o, r) in enumerate(zip(ours, ref)):
        for a, b in zip(o, r):
            assert a.dtype == b.dtype and a.shape == b.shape, f"output {k}"
            np.testing.assert_array_equal(a, b, err_msg=f"output {k}")
    table = dict(zip(KEYS, VALUES))
    for x, y in zip(data, ours[0]):
        want = np.array([table.get(int(v), 0.99) for v in x], np.float32)
        np.testing.assert_array_equal(y, want)


def float_input(fn, types, x):
    return fn.lookup_table(fn.cast(x, dtype=types.FLOAT), keys=[1], values=[2.0])


def bool_input(fn, types, x):
    return fn.lookup_table(fn.cast(x, dtype=types.BOOL), keys=[1], values=[2.0])


def sizes_differ(fn, types, x):
    return fn.lookup_table(x, keys=[0, 1], values=[1.0])


def key_too_big(fn, types, x):
    return fn.lookup_table(x, keys=[0, 65536], values=[1.0, 2.0])


def negative_key(fn, types, x):
    return fn.lookup_table(x, keys=[-1], values=[1.0])


def test_refuses_what_dali_refuses(tmp_path):
    x = [np.array([1, 2], np.int32)]
    for graph, message in ((float_input, "Unsupported input type"),
                           (bool_input, "Unsupported input type"),
                           (sizes_differ, "should match"), (key_too_big, "range"),
                           (negative_key, "range")):
        with pytest.raises(AssertionError, match="DALI failed"):
            run_dali(graph, [x], tmp_path)
        with pytest.raises(Exception, match=message):
            run_sluice(graph, [x])


@pytest.mark.gpu
def test_gpu_equals_cpu():
    rng = np.random.default_rng(32)
    data = [rng.integers(-5, 300, (int(rng.integers(0, 50)), 3)).astype(np.int16)
            for _ in range(6)]
    keys = list(range(0, 256, 3))
    outs = {}
    for device in ("cpu", "gpu"):
        @pipeline_def(batch_size=len(data), num_threads=2, device_id=0)
        def p():
            x = fn.external_source(lambda: data, layout="HW")
            x = x if device == "cpu" else x.gpu()
            return (fn.lookup_table(x, keys=keys, values=[k * 0.5 for k in keys],
                                    default_value=-1),
                    fn.lookup_table(x, keys=keys, values=keys, dtype=types.UINT8))

        outs[device] = [o.as_cpu() if device == "gpu" else o for o in p().run()]
    for c, g in zip(outs["cpu"], outs["gpu"]):
        assert c.layout() == g.layout()
        for i in range(len(data)):
            np.testing.assert_array_equal(np.asarray(c.at(i)), np.asarray(g.at(i)))
