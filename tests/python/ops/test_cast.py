"""cast against numpy: floats to integers round to nearest (ties to even) and saturate; integers
to floats and wider integers convert as numpy does; the GPU operator equals the CPU one bit for
bit."""

import numpy as np
import pytest

from op_testing import gpu_equals_cpu_bit_for_bit
from sluice import fn, pipeline_def, types

INTEGERS = [(types.UINT8, np.uint8), (types.INT8, np.int8), (types.UINT16, np.uint16),
            (types.INT16, np.int16), (types.INT32, np.int32)]


def cast_all(data, targets):
    @pipeline_def(batch_size=len(data), num_threads=2, device_id=None)
    def p():
        x = fn.external_source(lambda: data)
        return tuple(fn.cast(x, dtype=t) for t in targets)

    return p().run()


def test_floats_to_integers_round_to_nearest_even_and_saturate():
    rng = np.random.default_rng(4)
    edges = np.array([-3e9, -70000.5, -300.5, -128.5, -2.5, -0.5, 0.5, 1.5, 2.5, 127.5, 254.5,
                      255.5, 65535.5, 3e9], np.float32)
    data = [edges, rng.normal(0, 300, 1000).astype(np.float32),
            (rng.integers(-70000, 70000, 1000) + 0.5).astype(np.float32)]
    outs = cast_all(data, [t for t, _ in INTEGERS])
    for (t, np_type), out in zip(INTEGERS, outs):
        info = np.iinfo(np_type)
        for i, x in enumerate(data):
            ref = np.clip(np.rint(x.astype(np.float64)), info.min, info.max).astype(np_type)
            np.testing.assert_array_equal(np.asarray(out.at(i)), ref, err_msg=f"{t} sample {i}")


def test_integers_to_floats_and_wider_integers_convert_as_numpy_does():
    rng = np.random.default_rng(5)
    data = [rng.integers(-2**15, 2**15, 500).astype(np.int16) for _ in range(3)]
    outs = cast_all(data, [types.FLOAT, types.INT32, types.FLOAT16])
    for i, x in enumerate(data):
        np.testing.assert_array_equal(np.asarray(outs[0].at(i)), x.astype(np.float32))
        np.testing.assert_array_equal(np.asarray(outs[1].at(i)), x.astype(np.int32))
        np.testing.assert_array_equal(np.asarray(outs[2].at(i)), x.astype(np.float16))


@pytest.mark.gpu
def test_gpu_equals_cpu_bit_for_bit():
    def graph(device):
        u = fn.random.uniform(range=[-50, 300], shape=[6, 7], device=device, seed=3)
        return fn.cast(u, dtype=types.UINT8), fn.cast(u, dtype=types.FLOAT16)

    gpu_equals_cpu_bit_for_bit(graph)
