"""random.uniform: values uniform in the half-open range (Kolmogorov-Smirnov distance to the
uniform distribution), per-sample ranges, discrete values; the GPU operator equals the CPU one bit
for bit."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from op_testing import gpu_equals_cpu_bit_for_bit
from sluice import fn, pipeline_def

# The next float32 above 10: [10, TIGHT_HI) holds the single value 10.
TIGHT_HI = float(np.nextafter(np.float32(10), np.float32(11)))


def ks_distance_to_uniform(values, lo, hi):
    """Kolmogorov-Smirnov distance between the sample and the uniform distribution on [lo, hi)."""
    v = np.sort((values.astype(np.float64) - lo) / (hi - lo))
    n = len(v)
    return max(np.max(np.arange(1, n + 1) / n - v), np.max(v - np.arange(n) / n))


def test_values_are_uniform_in_the_half_open_range():
    @pipeline_def(batch_size=4, num_threads=2, device_id=None, seed=5)
    def p():
        return fn.random.uniform(range=[-2.0, 3.0], shape=[5000])

    out = p().run()[0]
    values = np.asarray(out).ravel()
    assert np.asarray(out).shape == (4, 5000) and values.dtype == np.float32
    assert values.min() >= -2.0 and values.max() < 3.0
    assert ks_distance_to_uniform(values, -2.0, 3.0) < 1.63 / np.sqrt(values.size)  # 1% level
    assert len({np.asarray(out.at(i)).tobytes() for i in range(4)}) == 4  # one stream per sample


def test_per_sample_ranges_from_an_argument_input():
    ranges = [np.array([0, 1], np.float32), np.array([10, 20], np.float32),
              np.array([-5, -4], np.float32)]

    @pipeline_def(batch_size=3, num_threads=1, device_id=None, seed=6)
    def p():
        return fn.random.uniform(range=fn.external_source(lambda: ranges), shape=[2000])

    out = p().run()[0]
    for i, (lo, hi) in enumerate(ranges):
        values = np.asarray(out.at(i))
        assert values.min() >= lo and values.max() < hi
        assert ks_distance_to_uniform(values, lo, hi) < 1.63 / np.sqrt(values.size)


def test_discrete_values_are_drawn_uniformly():
    values = [1.0, 5.0, 7.5]

    @pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=7)
    def p():
        return fn.random.uniform(values=values, shape=[6000])

    drawn = np.asarray(p().run()[0]).ravel()
    assert set(np.unique(drawn)) == set(values)
    for v in values:
        assert abs(np.mean(drawn == v) - 1 / 3) < 0.02


ONE_INPUT = [[np.zeros(1, np.uint8)] * 4]  # the reference runner sizes the batch by an input


def tight_range(fn, types, _):
    return fn.random.uniform(range=[10, float(np.nextafter(np.float32(10), np.float32(11)))],
                             shape=[20000])


def test_the_upper_bound_is_never_drawn_even_for_the_tightest_range(tmp_path):
    out = run_sluice(tight_range, ONE_INPUT)
    assert all(np.all(s == np.float32(10)) for s in out[0])
    dali = run_dali(tight_range, ONE_INPUT, tmp_path)
    for ours, theirs in zip(out[0], dali[0]):
        np.testing.assert_array_equal(ours, theirs)


def empty_range(fn, types, _):
    return fn.random.uniform(range=[5, 5])


def test_an_empty_range_is_refused_as_in_dali(tmp_path):
    with pytest.raises(ValueError, match=r"range.*\[5, 5\)"):
        run_sluice(empty_range, ONE_INPUT)
    with pytest.raises(AssertionError, match="Invalid range"):
        run_dali(empty_range, ONE_INPUT, tmp_path)


def per_sample_values_and_shapes(fn, types, values, shape):
    return fn.random.uniform(values=values, shape=shape), fn.random.uniform(shape=shape)


def test_per_sample_values_and_shapes_from_argument_inputs_as_dali(tmp_path):
    values = [np.array(v, np.float32) for v in ((1, 5, 7.5), (2,), (-1, -2), (0.5, 9))]
    shapes = [np.array(s, np.int32) for s in ((200, 3), (4, 1), (0, 2), (100, 2))]
    drawn, plain = run_sluice(per_sample_values_and_shapes, [values, shapes])
    for v, s, d, u in zip(values, shapes, drawn, plain):
        assert d.shape == u.shape == tuple(s) and d.dtype == u.dtype == np.float32
        assert set(np.unique(d)) == (set(v.tolist()) if d.size > 100 else set(np.unique(d)))
        assert set(np.unique(d)) <= set(v.tolist())
    ref = run_dali(per_sample_values_and_shapes, [values, shapes], tmp_path)
    for ours, theirs in zip((drawn, plain), ref):
        assert [(o.shape, o.dtype) for o in ours] == [(o.shape, o.dtype) for o in theirs]
    assert [set(np.unique(o)) for o in drawn] == [set(np.unique(o)) for o in ref[0]]


@pytest.mark.gpu
def test_gpu_per_sample_values_equal_cpu_bit_for_bit():
    values = [np.array([i, i + 0.5, -i], np.float32) for i in range(16)]
    gpu_equals_cpu_bit_for_bit(
        lambda device: fn.random.uniform(values=fn.external_source(lambda: values), shape=[9, 4],
                                         device=device, seed=5))


@pytest.mark.gpu
def test_gpu_never_draws_the_upper_bound():
    gpu_equals_cpu_bit_for_bit(
        lambda device: fn.random.uniform(range=[10, TIGHT_HI], shape=[50000], device=device))


@pytest.mark.gpu
def test_gpu_equals_cpu_bit_for_bit():
    gpu_equals_cpu_bit_for_bit(
        lambda device: fn.random.uniform(range=[-50, 300], shape=[6, 7], device=device, seed=3))
