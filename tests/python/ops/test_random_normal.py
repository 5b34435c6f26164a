"""random.normal: moments and tails of the values, per-sample mean / stddev, shape or shape-like
input, integer types rounded; independent samples; the same values for any number of threads;
DALI's schema and refusals; the GPU operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from op_testing import gpu_equals_cpu_bit_for_bit
from sluice import fn, pipeline_def, types

ONE_INPUT = [[np.zeros((3, 2), np.uint8)] * 4]  # the reference runner sizes the batch by an input


def normal_graph(fn, types, x):
    return (fn.random.normal(shape=[20000], mean=3.0, stddev=2.0),
            fn.random.normal(x), fn.random.normal(),
            fn.random.normal(shape=[5], mean=100, stddev=50, dtype=types.UINT8))


def test_moments_shapes_and_types_as_dali(tmp_path):
    ours = run_sluice(normal_graph, ONE_INPUT)
    ref = run_dali(normal_graph, ONE_INPUT, tmp_path)
    for o, r in zip(ours, ref):
        assert [(a.shape, a.dtype) for a in o] == [(a.shape, a.dtype) for a in r]
    values = np.concatenate(ours[0]).astype(np.float64)
    n = values.size
    assert abs(values.mean() - 3.0) < 4 * 2.0 / np.sqrt(n)
    assert abs(values.std() - 2.0) < 0.03
    assert abs(((values - 3) / 2) ** 3).mean() < 2  # no heavy tails
    assert abs(np.mean(np.abs(values - 3) < 2) - 0.6827) < 0.01  # one sigma
    assert abs(np.mean(np.abs(values - 3) < 4) - 0.9545) < 0.005  # two sigma
    assert len({a.tobytes() for a in ours[0]}) == 4  # one stream per sample
    assert all(a.dtype == np.uint8 for a in ours[3])


def per_sample_args(fn, types, mean, stddev):
    return fn.random.normal(mean=mean, stddev=stddev, shape=[4000])


def test_per_sample_mean_and_stddev():
    means = [np.array(m, np.float32) for m in (0, 10, -5)]
    stds = [np.array(s, np.float32) for s in (1, 0.5, 3)]
    (out,) = run_sluice(per_sample_args, [means, stds])
    for o, m, s in zip(out, means, stds):
        assert abs(o.mean() - m) < 5 * s / np.sqrt(o.size)
        assert abs(o.std() - s) < 0.05 * s


def test_same_values_for_any_number_of_threads():
    outs = []
    for threads in (1, 3):
        @pipeline_def(batch_size=8, num_threads=threads, device_id=None, seed=11)
        def p():
            return fn.random.normal(shape=[70000])

        pipe = p()
        outs.append([np.asarray(pipe.run()[0]) for _ in range(2)])
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)


def bad_type(fn, types, x):
    return fn.random.normal(shape=[2], dtype=types.FLOAT16)


def shape_and_shape_like(fn, types, x):
    return fn.random.normal(x, shape=[2])


def test_refuses_what_dali_refuses(tmp_path):
    for graph, message in ((bad_type, "not supported"), (shape_and_shape_like, "incompatible")):
        with pytest.raises(AssertionError, match=message):
            run_dali(graph, ONE_INPUT, tmp_path)
        with pytest.raises(ValueError, match=message):
            run_sluice(graph, ONE_INPUT)


@pytest.mark.gpu
def test_gpu_equals_cpu():
    # Box-Muller's log and cos may differ in the last bit between the host and the device.
    cpu = pipeline_def(lambda: fn.random.normal(shape=[999], mean=2, stddev=3, seed=4),
                       batch_size=8, num_threads=2, device_id=0, seed=1)()
    gpu = pipeline_def(lambda: fn.random.normal(shape=[999], mean=2, stddev=3, seed=4,
                                                device="gpu"),
                       batch_size=8, num_threads=2, device_id=0, seed=1)()
    for _ in range(2):
        c, g = np.asarray(cpu.run()[0]), np.asarray(gpu.run()[0].as_cpu())
        np.testing.assert_allclose(g, c, rtol=1e-6, atol=1e-6)


@pytest.mark.gpu
def test_gpu_integers_equal_cpu():
    gpu_equals_cpu_bit_for_bit(lambda device: fn.random.normal(
        shape=[50, 3], mean=100, stddev=20, dtype=types.UINT8, device=device, seed=3))
