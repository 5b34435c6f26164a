"""noise.gaussian: the noise's moments on constant images of several types (integers rounded and
saturated), per-sample mean / stddev; the same values for any number of threads; DALI's layouts,
types and refusals; the GPU operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from op_testing import compare_gpu_cpu, random_images
from sluice import fn, pipeline_def


def gaussian_graph(fn, types, x, mean, stddev):
    return fn.noise.gaussian(x, mean=mean, stddev=stddev)


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.float32])
def test_noise_moments_and_types_as_dali(tmp_path, dtype):
    x = [np.full((60, 50, 3), 100, dtype) for _ in range(4)]
    mean = [np.array(m, np.float32) for m in (0, 5, -3, 0)]
    std = [np.array(s, np.float32) for s in (10, 2, 20, 0)]
    (ours,), layouts = run_sluice(gaussian_graph, [x, mean, std], ["HWC", None, None],
                                  with_layouts=True)
    (ref,), ref_layouts = run_dali(gaussian_graph, [x, mean, std], tmp_path, ["HWC", None, None],
                                   with_layouts=True)
    assert layouts == ref_layouts == ["HWC"]
    for o, r, m, s in zip(ours, ref, mean, std):
        assert o.dtype == r.dtype == dtype and o.shape == r.shape
        noise = o.astype(np.float64) - 100
        if dtype != np.float32:
            assert np.all(noise == np.round(noise))
        assert abs(noise.mean() - m) < 5 * max(s, 0.3) / np.sqrt(noise.size)
        assert abs(noise.std() - s) < 0.03 * s + 0.3  # rounding adds up to 1/sqrt(12)
        assert abs(noise.std() - r.astype(np.float64).std()) < 0.05 * s + 0.3


def saturating(fn, types, x):
    return fn.noise.gaussian(x, stddev=1000)


def test_integers_saturate():
    (out,) = run_sluice(saturating, [[np.full((100, 100), 128, np.uint8)]])
    assert np.mean(out[0] == 255) > 0.4 and np.mean(out[0] == 0) > 0.4


def test_same_values_for_any_number_of_threads():
    rng = np.random.default_rng(0)
    imgs = random_images(rng, 8)
    outs = []
    for threads in (1, 3):
        @pipeline_def(batch_size=8, num_threads=threads, device_id=None, seed=11)
        def p():
            return fn.noise.gaussian(fn.external_source(lambda: imgs, layout="HWC"), stddev=9)

        out = p().run()[0]
        outs.append([np.asarray(out.at(i)) for i in range(8)])
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(outs[0][0], imgs[0])


def plain(fn, types, x):
    return fn.noise.gaussian(x)


def test_refuses_what_dali_refuses(tmp_path):
    for dtype in (np.float64, np.float16, np.bool_):
        batch = [[np.zeros((2, 3), dtype)]]
        with pytest.raises(AssertionError, match="not supported"):
            run_dali(plain, batch, tmp_path)
        with pytest.raises(ValueError, match="not supported"):
            run_sluice(plain, batch)


@pytest.mark.gpu
def test_gpu_equals_cpu():
    # Box-Muller's log and cos may differ in the last bit between the host and the device: a
    # rounded value can land one grey level apart, rarely.
    data = random_images(np.random.default_rng(3), 16)
    compare_gpu_cpu(lambda x, d: fn.noise.gaussian(x, stddev=20, device=d, seed=5), data, atol=1)
