"""_conditional.split and _conditional.merge (internal: what `if` on DataNodes becomes), with
_conditional.not_ and validate_logical: against numpy's selection on random data of every
shape kind and several types, the GPU operators against the CPU ones. Their use through `if`
is compared with DALI in tests/python/test_conditionals.py."""

import numpy as np
import pytest

from sluice import fn, pipeline_def
from sluice._ops import make_node

DTYPES = [np.uint8, np.int16, np.int64, np.float16, np.float32, np.bool_]


def random_batch(rng, n, dtype, ndim):
    shapes = [tuple(int(rng.integers(0, 6)) for _ in range(ndim)) for _ in range(n)]
    return [rng.integers(0, 100, s).astype(dtype) for s in shapes]


def run(graph, batches, layouts=None, device_id=None):
    layouts = layouts or [None] * len(batches)

    @pipeline_def(batch_size=len(batches[0]), num_threads=2, device_id=device_id)
    def pipe():
        return graph(*[fn.external_source([b], cycle=True, **({"layout": lay} if lay else {}))
                       for b, lay in zip(batches, layouts)])

    outs = pipe().run()
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    return [[np.array((o.as_cpu() if hasattr(o, "as_cpu") else o).at(i)) for i in range(len(o))]
            for o in outs], outs


def split_merge(x, p):
    t, f = make_node("_conditional.split", [x], {"predicate": p})
    return t, f, make_node("_conditional.merge", [t, f], {"predicate": p})


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ndim", [0, 1, 3])
def test_split_selects_and_merge_restores(dtype, ndim):
    rng = np.random.default_rng(ndim * 10 + DTYPES.index(dtype))
    for pattern in ("random", "all", "none"):
        n = 9
        x = random_batch(rng, n, dtype, ndim)
        pred = {"random": rng.random(n) < 0.5, "all": np.ones(n, bool), "none": np.zeros(n, bool)}[pattern]
        (t, f, m), outs = run(split_merge, [x, [np.array(v) for v in pred]])
        want_t = [a for a, p in zip(x, pred) if p]
        want_f = [a for a, p in zip(x, pred) if not p]
        assert len(t) == len(want_t) and len(f) == len(want_f)
        for got, want in zip(t + f + m, want_t + want_f + x):
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)


def test_merge_takes_each_sample_from_its_branch_and_keeps_the_layout():
    rng = np.random.default_rng(1)
    x = [rng.integers(0, 255, (4, 5, 3), dtype=np.uint8) for _ in range(6)]
    pred = [np.array(v, np.int32) for v in (2, 0, -1, 0, 7, 1)]  # non-zero is true

    def graph(x, p):
        t, f = make_node("_conditional.split", [x], {"predicate": p})
        return make_node("_conditional.merge", [fn.flip(t, horizontal=1), f], {"predicate": p})

    (out,), (tl,) = run(graph, [x, pred], layouts=["HWC", None])
    assert tl.layout() == "HWC"
    for a, got, p in zip(x, out, pred):
        np.testing.assert_array_equal(got, a[:, ::-1] if p else a)


def test_a_predicate_must_be_scalars():
    x = [np.zeros(2, np.uint8)] * 3
    with pytest.raises(RuntimeError, match="Got a 1-d input as a condition of the `if` statement"):
        run(lambda x, p: make_node("_conditional.split", [x], {"predicate": p})[0],
            [x, [np.array([True])] * 3])


def test_merge_refuses_a_predicate_of_other_counts():
    x = [np.array(i, np.int32) for i in range(4)]
    p = [np.array(v) for v in (True, False, True, True)]

    def graph(x, p):
        t, f = make_node("_conditional.split", [x], {"predicate": p})
        return make_node("_conditional.merge", [t, t], {"predicate": p})

    with pytest.raises(RuntimeError, match="the predicate selects 1 samples of the false branch, "
                                           "which has 3"):
        run(graph, [x, p])


def test_not_and_validate_logical():
    x = [np.array(v, t) for v, t in ((0, np.int32), (3, np.int32))]
    b = [np.array(v) for v in (True, False)]

    def graph(x, b):
        return (make_node("_conditional.not_", [x], {}), make_node("_conditional.not_", [b], {}),
                make_node("_conditional.validate_logical", [b],
                          {"expression_name": "and", "expression_side": "left"}))

    (nx, nb, vb), _ = run(graph, [x, b])
    assert [a.tolist() for a in nx] == [True, False] and nx[0].dtype == np.bool_
    assert [a.tolist() for a in nb] == [False, True]
    assert [a.tolist() for a in vb] == [True, False]
    with pytest.raises(RuntimeError, match="Got an input of type `int32` as the right argument"):
        run(lambda x: make_node("_conditional.validate_logical", [x],
                                {"expression_name": "or", "expression_side": "right"}), [x])


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_gpu_equals_cpu(dtype):
    rng = np.random.default_rng(DTYPES.index(dtype))
    x = random_batch(rng, 33, dtype, 3) + [rng.integers(0, 9, (300, 301, 3)).astype(dtype)]
    pred = [np.array(v) for v in rng.random(len(x)) < 0.4]

    def graph(device):
        def g(x, p):
            x = x.gpu() if device == "gpu" else x
            t, f = make_node("_conditional.split", [x], {"predicate": p})
            return t, f, make_node("_conditional.merge", [t, f], {"predicate": p})
        return g

    cpu, _ = run(graph("cpu"), [x, pred], device_id=0)
    gpu, outs = run(graph("gpu"), [x, pred], device_id=0)
    assert all(type(o).__name__ == "TensorListGPU" for o in outs)
    for c, g in zip(cpu, gpu):
        for a, b in zip(c, g):
            np.testing.assert_array_equal(a, b)
