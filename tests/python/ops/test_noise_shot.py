"""noise.shot: factor * Poisson(x / factor) for small and large means (mean and variance of the
counts), factor 0 giving zeros as in DALI, negative inputs; the same values for any number of
threads; DALI's layouts, types and refusals; the GPU operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from op_testing import compare_gpu_cpu, random_images
from sluice import fn, pipeline_def


def shot_graph(fn, types, x, factor):
    return fn.noise.shot(x, factor=factor)


@pytest.mark.parametrize("value,factor", [(100, 20), (100, 2), (7.3, 0.5), (200, 0.1), (3, 6)])
def test_counts_are_poisson_as_in_dali(tmp_path, value, factor):
    dtype = np.float32 if value != int(value) or factor < 1 else np.uint8
    x = [np.full((100, 100, 3), value, dtype)] * 2
    f = [np.array(factor, np.float32)] * 2
    (ours,), lay = run_sluice(shot_graph, [x, f], ["HWC", None], with_layouts=True)
    (ref,), ref_lay = run_dali(shot_graph, [x, f], tmp_path, ["HWC", None], with_layouts=True)
    assert lay == ref_lay == ["HWC"]
    lam = np.float32(value) / np.float32(factor)
    for o, r in zip(ours, ref):
        assert o.dtype == r.dtype == dtype and o.shape == r.shape
        counts = o.astype(np.float64) / factor
        if dtype == np.float32:
            assert np.allclose(counts, np.round(counts), atol=1e-3)
        assert abs(counts.mean() - lam) < 5 * np.sqrt(lam / counts.size) + 0.01 * (dtype != np.float32)
        assert abs(counts.var() - lam) < 0.05 * lam + 0.5 * (dtype == np.uint8)
        assert abs(o.astype(np.float64).mean() - r.astype(np.float64).mean()) < 0.02 * value + 0.5
    assert not np.array_equal(ours[0], ours[1])


def test_factor_zero_and_negative_inputs_as_dali(tmp_path):
    x = [np.full((4, 5, 3), 100, np.uint8), np.full((4, 5, 3), 100, np.uint8)]
    f = [np.array(0, np.float32), np.array(-3, np.float32)]
    (ours,) = run_sluice(shot_graph, [x, f], ["HWC", None])
    (ref,) = run_dali(shot_graph, [x, f], tmp_path, ["HWC", None])
    for o, r in zip(ours, ref):
        np.testing.assert_array_equal(o, r)
        assert not o.any()
    neg = [[np.full((2, 3), -5, np.int16)], [np.array(10, np.float32)]]
    np.testing.assert_array_equal(run_sluice(shot_graph, neg)[0][0], 0)


def test_same_values_for_any_number_of_threads():
    imgs = random_images(np.random.default_rng(0), 8)
    outs = []
    for threads in (1, 3):
        @pipeline_def(batch_size=8, num_threads=threads, device_id=None, seed=11)
        def p():
            return fn.noise.shot(fn.external_source(lambda: imgs, layout="HWC"), factor=3)

        out = p().run()[0]
        outs.append([np.asarray(out.at(i)) for i in range(8)])
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)


def plain(fn, types, x):
    return fn.noise.shot(x)


def test_refuses_what_dali_refuses(tmp_path):
    for dtype in (np.float64, np.float16):
        with pytest.raises(AssertionError, match="not supported"):
            run_dali(plain, [[np.zeros((2, 3), dtype)]], tmp_path)
        with pytest.raises(ValueError, match="not supported"):
            run_sluice(plain, [[np.zeros((2, 3), dtype)]])


@pytest.mark.gpu
def test_gpu_equals_cpu():
    # The sampler's exp, log and lgamma may differ in the last bit between the host and the
    # device, which moves a count by one at a boundary, rarely; factor 1 keeps counts as values.
    data = random_images(np.random.default_rng(3), 16)
    outs = {}
    for device in ("cpu", "gpu"):
        @pipeline_def(batch_size=16, num_threads=2, device_id=0, seed=21)
        def p():
            x = fn.external_source(lambda: data, layout="HWC")
            return fn.noise.shot(x if device == "cpu" else x.gpu(), factor=1, device=device,
                                 seed=5)

        out = p().run()[0]
        out = out.as_cpu() if device == "gpu" else out
        outs[device] = [np.asarray(out.at(i)).astype(np.int64) for i in range(16)]
    for c, g in zip(outs["cpu"], outs["gpu"]):
        diff = np.abs(c - g)
        assert diff.max() <= 1 and np.mean(diff != 0) < 1e-4
