"""cast against numpy and NVIDIA DALI 2.4: floats to integers round to nearest (ties away from
zero, as DALI) and saturate; integers to floats and wider integers convert as numpy does; the GPU
operator equals the CPU one bit for bit."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
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


def round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def test_floats_to_integers_round_half_away_from_zero_and_saturate():
    rng = np.random.default_rng(4)
    edges = np.array([-3e9, -70000.5, -300.5, -128.5, -2.5, -0.5, 0.5, 1.5, 2.5, 127.5, 254.5,
                      255.5, 65535.5, 3e9], np.float32)
    data = [edges, rng.normal(0, 300, 1000).astype(np.float32),
            (rng.integers(-70000, 70000, 1000) + 0.5).astype(np.float32)]
    outs = cast_all(data, [t for t, _ in INTEGERS])
    for (t, np_type), out in zip(INTEGERS, outs):
        info = np.iinfo(np_type)
        for i, x in enumerate(data):
            ref = np.clip(round_half_away(x.astype(np.float64)), info.min, info.max).astype(np_type)
            np.testing.assert_array_equal(np.asarray(out.at(i)), ref, err_msg=f"{t} sample {i}")


def test_integers_to_floats_and_wider_integers_convert_as_numpy_does():
    rng = np.random.default_rng(5)
    data = [rng.integers(-2**15, 2**15, 500).astype(np.int16) for _ in range(3)]
    outs = cast_all(data, [types.FLOAT, types.INT32, types.FLOAT16])
    for i, x in enumerate(data):
        np.testing.assert_array_equal(np.asarray(outs[0].at(i)), x.astype(np.float32))
        np.testing.assert_array_equal(np.asarray(outs[1].at(i)), x.astype(np.int32))
        np.testing.assert_array_equal(np.asarray(outs[2].at(i)), x.astype(np.float16))


def cast_graph(fn, types, x):
    return tuple(fn.cast(x, dtype=t) for t in (types.UINT8, types.INT8, types.INT32, types.UINT32,
                                                types.INT64, types.FLOAT16, types.BOOL))


def test_cast_equals_dali_on_ties_and_edges(tmp_path):
    x = [np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 254.5, 255.5, -128.5, 1e10, -1e10, np.inf,
                   -np.inf, 0.4, -0.4, 2147483647.0], np.float32),
         np.random.default_rng(8).normal(0, 200, 300).astype(np.float32)]
    ours = run_sluice(cast_graph, [x])
    ref = run_dali(cast_graph, [x], tmp_path)
    for k, (o, r) in enumerate(zip(ours, ref)):
        for a, b in zip(o, r):
            assert a.dtype == b.dtype, f"output {k}"
            np.testing.assert_array_equal(a, b, err_msg=f"output {k}")


def test_nan_casts_to_zero_for_every_integer_type_and_true_for_bool():
    # DALI gives the bits x86's conversion instruction makes for int32/int64 (their minimum) and
    # 2^63 for uint64; 0 for the narrower types (docs/COMPATIBILITY.md).
    outs = cast_all([np.full(3, np.nan, np.float32)],
                    [t for t, _ in INTEGERS] + [types.INT64, types.UINT64, types.BOOL])
    for out in outs[:-1]:
        assert not np.asarray(out.at(0)).any()
    assert np.asarray(outs[-1].at(0)).all()


@pytest.mark.gpu
def test_gpu_equals_cpu_bit_for_bit():
    def graph(device):
        u = fn.random.uniform(range=[-50, 300], shape=[6, 7], device=device, seed=3)
        return fn.cast(u, dtype=types.UINT8), fn.cast(u, dtype=types.FLOAT16)

    gpu_equals_cpu_bit_for_bit(graph)
