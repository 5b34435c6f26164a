"""The PyTorch plugin's API besides iteration: sluice.plugin.base_iterator, the iterators'
argument checks (compared with DALI 2.4's base iterator: DALI's venv has no torch),
feed_ndarray, to_torch_type and DALIRaggedIterator."""


import numpy as np
import pytest

from sluice import fn, pipeline_def, types
from api_reference import assert_same, attempt, run_cases, run_dali_cases

torch = pytest.importorskip("torch")

from sluice.plugin import base_iterator  # noqa: E402
from sluice.plugin.pytorch import (  # noqa: E402
    DALIGenericIterator,
    DALIRaggedIterator,
    LastBatchPolicy,
    feed_ndarray,
    to_torch_type,
)


def case_iterator_arguments(dali):
    base = dali.sub("plugin.base_iterator")

    def pipe(batch=2):
        @dali.pipeline_def(batch_size=batch, num_threads=1, device_id=None)
        def p():
            return dali.fn.external_source(lambda: [np.array([1, 2], np.int32)] * batch)

        return p()

    def make(pipes, **kw):
        if dali.name == "sluice":  # DALI's checks are in its base iterator, which needs no torch
            dali.sub("plugin.pytorch").DALIGenericIterator(pipes, ["x"], **kw)
        else:
            base._DaliBaseIterator(pipes, **kw)
        return "constructed"

    return {
        "policies": list(base.LastBatchPolicy),
        "size_0": attempt(lambda: make(pipe(), size=0)),
        "size_0_two_pipes": attempt(lambda: make([pipe(), pipe()], size=0)),
        "negative_two_pipes": attempt(lambda: make([pipe(), pipe()], size=-5)),
        "default_two_pipes": attempt(lambda: make([pipe(), pipe()])),
        "negative_one_pipe": attempt(lambda: make(pipe(), size=-5)),
        "size_two_pipes": attempt(lambda: make([pipe(), pipe()], size=8)),
        "size_and_reader": attempt(lambda: make(pipe(), size=4, reader_name="R")),
        "padded_and_reader": attempt(lambda: make(pipe(), reader_name="R", last_batch_padded=True)),
        "auto_reset": attempt(lambda: make(pipe(), auto_reset="maybe")),
        "auto_reset_no": attempt(lambda: make(pipe(), auto_reset="no")),
        "policy_type": attempt(lambda: make(pipe(), last_batch_policy="FILL")),
        "batch_sizes": attempt(lambda: make([pipe(2), pipe(3)], size=10)),
    }


CASES = [case_iterator_arguments]


@pytest.fixture(scope="module")
def dali_results(tmp_path_factory):
    return run_dali_cases(CASES, tmp_path_factory.mktemp("dali_plugin"))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__[len("case_"):])
def test_matches_dali(case, dali_results):
    assert_same(run_cases([case])[case.__name__], dali_results[case.__name__], case.__name__)


def _pipe(batch=2, samples=None):
    samples = samples or [np.array([1, 2], np.int32)] * batch

    @pipeline_def(batch_size=batch, num_threads=1, device_id=None)
    def p():
        return fn.external_source(lambda: samples)

    return p()


@pytest.mark.parametrize("size", [0, -1, -5])
def test_size_0_and_negative_sizes_with_several_pipelines_are_refused(size):
    with pytest.raises(AssertionError):
        DALIGenericIterator([_pipe(), _pipe()], ["x"], size=size)
    if size == 0:
        with pytest.raises(AssertionError, match="Size cannot be 0"):
            DALIGenericIterator(_pipe(), ["x"], size=0)


def test_base_iterator_holds_last_batch_policy():
    assert base_iterator.LastBatchPolicy is LastBatchPolicy
    assert [p.name for p in LastBatchPolicy] == ["FILL", "DROP", "PARTIAL"]


def test_fill_last_batch_false_means_partial_as_in_dali():
    with pytest.warns(Warning, match="last_batch_policy"):
        it = DALIGenericIterator(_pipe(), ["x"], size=3, fill_last_batch=False)
    assert [b[0]["x"].shape[0] for b in it] == [2, 1]


def test_feed_ndarray_copies_tensors_and_dense_batches():
    p = _pipe(3, [np.array([i, i + 1], np.int32) for i in range(3)])
    out, = p.run()
    dst = torch.empty((2,), dtype=torch.int32)
    assert feed_ndarray(out[1], dst) is dst and dst.tolist() == [1, 2]
    batch = torch.zeros((3, 2), dtype=torch.int32)
    feed_ndarray(out.as_tensor(), batch)
    assert batch.tolist() == [[0, 1], [1, 2], [2, 3]]
    batch.zero_()
    feed_ndarray(out, batch)
    assert batch.tolist() == [[0, 1], [1, 2], [2, 3]]
    with pytest.raises(AssertionError, match="element type"):
        feed_ndarray(out[0], torch.empty((2,), dtype=torch.float32))
    with pytest.raises(AssertionError, match="Shapes do not match"):
        feed_ndarray(out[0], torch.empty((3,), dtype=torch.int32))
    assert to_torch_type[types.FLOAT] is torch.float32 and to_torch_type[types.UINT8] is torch.uint8


def _ragged_pipe():
    samples = [np.arange(n, dtype=np.float32) + 10 * n for n in (1, 3, 2)]
    labels = [np.array([n], np.int64) for n in (1, 3, 2)]

    @pipeline_def(batch_size=3, num_threads=1, device_id=None)
    def p():
        return fn.external_source(lambda: samples), fn.external_source(lambda: labels)

    return p(), samples


def test_ragged_iterator_returns_lists_and_sparse_tensors():
    pipe, samples = _ragged_pipe()
    it = DALIRaggedIterator(pipe, ["data", "label"], size=3,
                            output_types=[DALIRaggedIterator.SPARSE_LIST_TAG,
                                          DALIRaggedIterator.DENSE_TAG])
    batch, = next(it)
    assert [t.tolist() for t in batch["data"]] == [s.tolist() for s in samples]
    assert batch["label"].shape == (3, 1)
    pipe, samples = _ragged_pipe()
    it = DALIRaggedIterator(pipe, ["data", "label"], size=3,
                            output_types=[DALIRaggedIterator.SPARSE_COO_TAG,
                                          DALIRaggedIterator.DENSE_TAG])
    coo = next(it)[0]["data"]
    assert coo.is_sparse and coo.to_dense().tolist() == [[10, 0, 0], [30, 31, 32], [20, 21, 0]]
    with pytest.raises(AssertionError, match="DENSE_TAG"):
        DALIRaggedIterator(_pipe(), ["x"], output_types=["ragged"])
    pipe, _ = _ragged_pipe()
    with pytest.raises(RuntimeError, match="different shapes"):
        next(DALIRaggedIterator(pipe, ["data", "label"], size=3))
