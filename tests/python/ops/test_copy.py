"""copy: a new buffer holding the input's data, shapes, type and layout, on the CPU and the GPU."""

import numpy as np
import pytest

from sluice import fn, pipeline_def


def batch(rng):
    return [rng.integers(-1000, 1000, tuple(rng.integers(1, 9, 3))).astype(np.int16)
            for _ in range(5)]


def test_copy_equals_the_input():
    data = batch(np.random.default_rng(10))

    @pipeline_def(batch_size=len(data), num_threads=2, device_id=None)
    def p():
        x = fn.external_source(lambda: data, layout="HWC")
        return fn.copy(x), x

    copied, original = p().run()
    assert copied.layout() == "HWC"
    for i, x in enumerate(data):
        np.testing.assert_array_equal(np.asarray(copied.at(i)), x)
    assert copied.data_ptr() != original.data_ptr()


@pytest.mark.gpu
def test_gpu_copy_equals_the_input():
    data = batch(np.random.default_rng(11))

    @pipeline_def(batch_size=len(data), num_threads=2, device_id=0)
    def p():
        return fn.copy(fn.external_source(lambda: data, layout="HWC").gpu(), device="gpu")

    (copied,) = p().run()
    copied = copied.as_cpu()
    for i, x in enumerate(data):
        np.testing.assert_array_equal(np.asarray(copied.at(i)), x)
