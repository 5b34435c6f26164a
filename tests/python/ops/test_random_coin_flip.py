"""random.coin_flip: zeros and ones with the given probability, per sample from an argument
input; the GPU operator equals the CPU one bit for bit."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from op_testing import gpu_equals_cpu_bit_for_bit
from sluice import fn, pipeline_def


def test_frequency_of_ones_follows_the_probability():
    @pipeline_def(batch_size=4, num_threads=2, device_id=None, seed=8)
    def p():
        return fn.random.coin_flip(probability=0.3, shape=[20000])

    out = np.asarray(p().run()[0])
    assert out.dtype == np.int32 and set(np.unique(out)) == {0, 1}
    # Four standard deviations of a binomial proportion over 80000 draws.
    assert abs(out.mean() - 0.3) < 4 * np.sqrt(0.3 * 0.7 / out.size)


def test_per_sample_probability_from_an_argument_input():
    probability = [np.array(p, np.float32) for p in (0.0, 1.0, 0.5, 0.9)]

    @pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=9)
    def p():
        return fn.random.coin_flip(probability=fn.external_source(lambda: probability),
                                   shape=[5000])

    out = p().run()[0]
    for i, prob in enumerate(probability):
        ones, prob = np.asarray(out.at(i)).mean(), float(prob)
        if prob in (0.0, 1.0):
            assert ones == prob
        else:
            assert abs(ones - prob) < 4 * np.sqrt(prob * (1 - prob) / 5000)


def shape_from_input(fn, types, shape):
    return fn.random.coin_flip(shape=shape)


def test_per_sample_shape_from_an_argument_input_as_dali(tmp_path):
    shapes = [np.array(s, np.int32) for s in ((2, 3), (4, 1), (0, 2), (1, 2))]
    (ours,) = run_sluice(shape_from_input, [shapes])
    assert [o.shape for o in ours] == [(2, 3), (4, 1), (0, 2), (1, 2)]
    assert all(o.dtype == np.int32 and set(np.unique(o)) <= {0, 1} for o in ours)
    (ref,) = run_dali(shape_from_input, [shapes], tmp_path)
    assert [(o.shape, o.dtype) for o in ref] == [(o.shape, o.dtype) for o in ours]


@pytest.mark.parametrize("shapes,message", [
    ([(2, 3), (4,)], "as many extents"),  # DALI: the same dimensionality for all samples
    ([(2, -3), (4, 1)], "negative"),
])
def test_bad_per_sample_shapes_are_refused_as_in_dali(shapes, message, tmp_path):
    shapes = [np.array(s, np.int32) for s in shapes]
    with pytest.raises(ValueError, match=message):
        run_sluice(shape_from_input, [shapes])
    with pytest.raises(AssertionError, match="DALI failed"):
        run_dali(shape_from_input, [shapes], tmp_path)


def test_a_float_shape_is_refused_as_in_dali(tmp_path):
    shapes = [np.array((2.0, 3.0), np.float32)] * 2
    with pytest.raises(ValueError, match="integers"):
        run_sluice(shape_from_input, [shapes])
    with pytest.raises(AssertionError, match="DALI failed"):
        run_dali(shape_from_input, [shapes], tmp_path)


@pytest.mark.gpu
def test_gpu_per_sample_shapes_equal_cpu_bit_for_bit():
    shapes = [np.array((i % 5, 7), np.int64) for i in range(16)]
    gpu_equals_cpu_bit_for_bit(
        lambda device: fn.random.coin_flip(shape=fn.external_source(lambda: shapes),
                                           device=device, seed=4))


@pytest.mark.gpu
def test_gpu_equals_cpu_bit_for_bit():
    gpu_equals_cpu_bit_for_bit(
        lambda device: fn.random.coin_flip(device=device, shape=[6, 7], seed=4))
