"""The "_arithmetic" operator behind DataNode expressions (a + b, a // 2, -a, a < b, ...): numpy's
type promotion and values; the GPU operator equals the CPU one bit for bit."""

import numpy as np
import pytest

from op_testing import gpu_equals_cpu_bit_for_bit
from sluice import fn, pipeline_def


def test_arithmetic_type_promotion_and_values():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def p():
        a = fn.external_source(lambda: [np.array([250, 3], np.uint8)] * 2)
        b = fn.external_source(lambda: [np.array([-5, 7], np.int8)] * 2)
        return a + b, a + 10, a / 2, a // b, a * 1.5, -b, a >= b, a == 3

    outs = [np.asarray(o)[0] for o in p().run()]
    assert outs[0].dtype == np.int16 and list(outs[0]) == [245, 10]
    assert outs[1].dtype == np.uint8 and list(outs[1]) == [4, 13]  # weak constant: wraps in uint8
    assert outs[2].dtype == np.float32 and list(outs[2]) == [125.0, 1.5]
    assert outs[3].dtype == np.int16 and list(outs[3]) == [-50, 0]  # floor division
    assert outs[4].dtype == np.float32 and list(outs[4]) == [375.0, 4.5]
    assert list(outs[5]) == [5, -7]
    assert outs[6].dtype == np.bool_ and list(outs[6]) == [True, False]
    assert list(outs[7]) == [False, True]


def test_integer_division_by_zero_is_zero_not_a_crash():
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def p():
        a = fn.external_source(lambda: [np.array([7, -7], np.int32)])
        z = fn.external_source(lambda: [np.array([0, 0], np.int32)])
        return a // z

    assert list(np.asarray(p().run()[0])[0]) == [0, 0]


@pytest.mark.gpu
def test_gpu_equals_cpu_bit_for_bit():
    def graph(device):
        u = fn.random.uniform(range=[-50, 300], shape=[6, 7], device=device, seed=3)
        f = fn.random.coin_flip(device=device, shape=[6, 7], seed=4)
        return u * f + 0.5, u // 7, u > 100

    gpu_equals_cpu_bit_for_bit(graph)
