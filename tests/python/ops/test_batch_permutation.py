"""batch_permutation against NVIDIA DALI 2.4: one int32 scalar per sample, a permutation of the
batch's indices (or draws with repetitions), without fixed points when asked; a batch of 1 gives
[0]. The draws are Sluice's own (DALI's generator differs), so the tests compare what DALI
guarantees: type, shape, layout and the properties of the indices; and that the draws depend on
(seed, operator, epoch, sample) only, not on threads."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from sluice import fn, pipeline_def


def perm_graph(fn, types, x):
    return (fn.batch_permutation(), fn.batch_permutation(no_fixed_points=True),
            fn.batch_permutation(allow_repetitions=True),
            fn.batch_permutation(allow_repetitions=True, no_fixed_points=True),
            fn.permute_batch(x, indices=fn.batch_permutation(seed=5)))


def check(outs, n):
    ints = [np.array([int(v) for v in o]) for o in outs[:4]]
    for o in outs[:4]:
        assert all(v.dtype == np.int32 and v.shape == () for v in o)
    assert sorted(ints[0]) == list(range(n)) and sorted(ints[1]) == list(range(n))
    for v in ints[2:]:
        assert ((v >= 0) & (v < n)).all()
    if n > 1:
        assert (ints[1] != np.arange(n)).all() and (ints[3] != np.arange(n)).all()
    else:
        assert all(v.tolist() == [0] for v in ints)


@pytest.mark.parametrize("n", [1, 2, 7])
def test_batch_permutation_has_dalis_properties(tmp_path, n):
    x = [np.full((2,), i, np.int16) for i in range(n)]
    ours, our_layouts = run_sluice(perm_graph, [x], with_layouts=True)
    ref, ref_layouts = run_dali(perm_graph, [x], tmp_path, with_layouts=True)
    assert our_layouts == ref_layouts == [""] * 5
    check(ours, n)
    check(ref, n)
    assert sorted(int(s[0]) for s in ours[4]) == list(range(n))


def test_draws_depend_on_seed_not_threads():
    x = [np.zeros((1,), np.uint8)] * 16
    a = run_sluice(perm_graph, [x], num_threads=1, seed=9)
    b = run_sluice(perm_graph, [x], num_threads=3, seed=9)
    c = run_sluice(perm_graph, [x], num_threads=1, seed=10)
    for o, p in zip(a, b):
        np.testing.assert_array_equal(np.array(o), np.array(p))
    assert any(not np.array_equal(np.array(o), np.array(p)) for o, p in zip(a[:4], c[:4]))
    # Each operator draws its own permutation.
    assert not np.array_equal(np.array(a[0]), np.array(a[1]))


def test_every_iteration_draws_anew():
    @pipeline_def(batch_size=8, num_threads=1, device_id=None, seed=2)
    def p():
        return fn.batch_permutation()

    pipe = p()
    draws = [tuple(int(v) for v in np.array(pipe.run()[0].as_array())) for _ in range(4)]
    assert len(set(draws)) > 1
    for d in draws:
        assert sorted(d) == list(range(8))


def test_has_no_gpu_version():
    @pipeline_def(batch_size=2, num_threads=1, device_id=0)
    def p():
        return fn.batch_permutation(device="gpu")

    with pytest.raises(Exception, match="gpu"):
        p().build()
