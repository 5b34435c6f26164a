"""random.choice: indices below an integer, items of a tensor (along its first axis), with or
without probabilities `p`, shape or shape-like input; frequencies of the draws; the same values for
any number of threads; DALI's output shapes and types and its refusals (CPU only, as in DALI)."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from sluice import fn, pipeline_def

ONE_INPUT = [[np.zeros((2, 3), np.uint8)] * 4]


def choice_graph(fn, types, x):
    return (fn.random.choice(5, shape=[6]), fn.random.choice(5),
            fn.random.choice([1.5, 2.5, 7.0], shape=[2, 2]), fn.random.choice(4, x),
            fn.random.choice(3, p=[0.1, 0.0, 0.9], shape=[10]))


def test_shapes_and_types_as_dali(tmp_path):
    ours, ref = run_sluice(choice_graph, ONE_INPUT), run_dali(choice_graph, ONE_INPUT, tmp_path)
    for o, r in zip(ours, ref):
        assert [(a.shape, a.dtype) for a in o] == [(a.shape, a.dtype) for a in r]
    assert set(np.concatenate([a.ravel() for a in ours[2]])) <= {1.5, 2.5, 7.0}
    assert 1 not in np.concatenate(ours[4])


def items_graph(fn, types, a, n):
    return fn.random.choice(a, shape=[3]), fn.random.choice(n, shape=[4])


def test_items_of_a_tensor_and_integer_inputs_as_dali(tmp_path):
    a = [np.arange(6, dtype=np.int16).reshape(2, 3) + 10 * i for i in range(3)]
    n = [np.array(v, np.uint8) for v in (1, 7, 200)]
    ours, ref = run_sluice(items_graph, [a, n]), run_dali(items_graph, [a, n], tmp_path)
    for o, r in zip(ours, ref):
        assert [(x.shape, x.dtype) for x in o] == [(x.shape, x.dtype) for x in r]
    for items, got in zip(a, ours[0]):
        assert all(any(np.array_equal(row, it) for it in items) for row in got)
    for k, got in zip((1, 7, 200), ours[1]):
        assert got.min() >= 0 and got.max() < k


def frequencies(fn, types, p):
    return fn.random.choice(4, p=p, shape=[40000])


def test_frequencies_follow_p():
    p = [np.array([0.1, 0.2, 0.3, 0.4], np.float32), np.array([0, 0.5, 0, 0.5], np.float32)]
    (out,) = run_sluice(frequencies, [p])
    for got, want in zip(out, p):
        freq = np.bincount(got, minlength=4) / got.size
        np.testing.assert_allclose(freq, want, atol=0.01)
    (uniform,) = run_sluice(lambda fn, types, x: fn.random.choice(4, shape=[40000]), ONE_INPUT)
    np.testing.assert_allclose(np.bincount(uniform[0]) / 40000, [0.25] * 4, atol=0.01)


def test_same_values_for_any_number_of_threads():
    outs = []
    for threads in (1, 3):
        @pipeline_def(batch_size=8, num_threads=threads, device_id=None, seed=11)
        def p():
            return fn.random.choice(10, p=[0.1] * 10, shape=[30000])

        outs.append(np.asarray(p().run()[0]))
    np.testing.assert_array_equal(*outs)


def p_sum(fn, types, x):
    return fn.random.choice(3, p=[0.1, 0.5, 0.9])


def p_length(fn, types, x):
    return fn.random.choice(3, p=[0.5, 0.5])


def p_negative(fn, types, x):
    return fn.random.choice(2, p=[-0.5, 1.5])


def zero(fn, types, x):
    return fn.random.choice(0)


def float_scalar(fn, types, x):
    return fn.random.choice(fn.cast(x[0, 0], dtype=types.FLOAT))


def shape_and_shape_like(fn, types, x):
    return fn.random.choice(2, x, shape=[4])


def test_refuses_what_dali_refuses(tmp_path):
    for graph, message in ((p_sum, "Sum of probabilities must be 1.0"),
                           (p_length, "expected shape 3 but got 2"),
                           (p_negative, r"must be in range \[0, 1\]"),
                           (zero, "Expected positive number of elements"),
                           (float_scalar, "not supported for 0D inputs"),
                           (shape_and_shape_like, "incompatible")):
        with pytest.raises(AssertionError, match=message):
            run_dali(graph, ONE_INPUT, tmp_path)
        with pytest.raises(ValueError, match=message):
            run_sluice(graph, ONE_INPUT)
