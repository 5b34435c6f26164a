"""random.beta: mean and variance of the values for several alpha / beta (small ones included),
per-sample arguments, shape-like input, float64; the same values for any number of threads;
DALI's schema (CPU only) and refusals."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from sluice import fn, pipeline_def

ONE_INPUT = [[np.zeros((3, 2), np.uint8)] * 4]


def beta_graph(fn, types, x):
    return (fn.random.beta(shape=[3]), fn.random.beta(x, alpha=2, beta=5),
            fn.random.beta(shape=[2], dtype=types.FLOAT64))


def test_shapes_and_types_as_dali(tmp_path):
    ours, ref = run_sluice(beta_graph, ONE_INPUT), run_dali(beta_graph, ONE_INPUT, tmp_path)
    for o, r in zip(ours, ref):
        assert [(a.shape, a.dtype) for a in o] == [(a.shape, a.dtype) for a in r]


def per_sample(fn, types, alpha, beta):
    return fn.random.beta(alpha=alpha, beta=beta, shape=[20000])


@pytest.mark.parametrize("a,b", [(1, 1), (2, 5), (0.5, 0.5), (0.1, 3), (30, 2)])
def test_moments(a, b):
    (out,) = run_sluice(per_sample, [[np.array(a, np.float32)] * 2, [np.array(b, np.float32)] * 2])
    v = np.concatenate(out).astype(np.float64)
    mean, var = a / (a + b), a * b / ((a + b) ** 2 * (a + b + 1))
    assert v.min() >= 0 and v.max() <= 1
    assert abs(v.mean() - mean) < 5 * np.sqrt(var / v.size)
    assert abs(v.var() - var) < 0.05 * var
    assert not np.array_equal(out[0], out[1])


def test_tiny_parameters_give_zeros_and_ones():
    (out,) = run_sluice(per_sample, [[np.array(0.001, np.float32)], [np.array(0.001, np.float32)]])
    assert abs(np.mean(out[0] > 0.5) - 0.5) < 0.03  # nearly all mass at 0 and 1, half each
    assert np.mean((out[0] < 1e-6) | (out[0] > 1 - 1e-6)) > 0.95


def test_same_values_for_any_number_of_threads():
    outs = []
    for threads in (1, 3):
        @pipeline_def(batch_size=8, num_threads=threads, device_id=None, seed=11)
        def p():
            return fn.random.beta(shape=[30000], alpha=0.7, beta=2)

        outs.append(np.asarray(p().run()[0]))
    np.testing.assert_array_equal(*outs)


def zero_alpha(fn, types, x):
    return fn.random.beta(alpha=0)


def negative_beta(fn, types, x):
    return fn.random.beta(beta=-1)


def integer_type(fn, types, x):
    return fn.random.beta(dtype=types.INT32)


def test_refuses_what_dali_refuses(tmp_path):
    for graph, message in ((zero_alpha, "`alpha` must be a positive float32"),
                           (negative_beta, "`beta` must be a positive float32"),
                           (integer_type, "(?i)int32 is not supported")):
        with pytest.raises(AssertionError, match=message):
            run_dali(graph, ONE_INPUT, tmp_path)
        with pytest.raises(ValueError, match=message):
            run_sluice(graph, ONE_INPUT)


def test_cpu_only_as_in_dali():
    with pytest.raises(Exception, match="gpu"):
        @pipeline_def(batch_size=1, num_threads=1, device_id=0)
        def p():
            return fn.random.beta(device="gpu")

        p().build()
