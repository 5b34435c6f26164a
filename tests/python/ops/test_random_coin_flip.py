"""random.coin_flip: zeros and ones with the given probability, per sample from an argument
input; the GPU operator equals the CPU one bit for bit."""

import numpy as np
import pytest

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


@pytest.mark.gpu
def test_gpu_equals_cpu_bit_for_bit():
    gpu_equals_cpu_bit_for_bit(
        lambda device: fn.random.coin_flip(device=device, shape=[6, 7], seed=4))
