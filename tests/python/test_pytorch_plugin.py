"""sluice.plugin.pytorch: DALI's iterators, last-batch policies, lengths, auto_reset, sharding
across simulated ranks, zero-copy hand-off and the GPU prefetcher for CPU pipelines."""

import collections

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from sluice import fn, pipeline_def, types  # noqa: E402
from sluice.plugin.pytorch import (  # noqa: E402
    DALIClassificationIterator,
    DALIGenericIterator,
    LastBatchPolicy,
)
from conftest import make_files, numbers, reader_pipe  # noqa: E402


@pytest.mark.parametrize("policy,pad,expected", [
    (LastBatchPolicy.PARTIAL, False, [[1, 2], [3, 4], [5, 6], [7]]),
    (LastBatchPolicy.FILL, False, [[1, 2], [3, 4], [5, 6], [7, 1]]),
    (LastBatchPolicy.FILL, True, [[1, 2], [3, 4], [5, 6], [7, 7]]),
    (LastBatchPolicy.DROP, False, [[1, 2], [3, 4], [5, 6]]),
])
def test_last_batch_policies_follow_dalis_example(tmp_path, policy, pad, expected):
    root = make_files(tmp_path, 7)
    it = DALIClassificationIterator(reader_pipe(root, 2, pad=pad), reader_name="Reader",
                                    last_batch_policy=policy)
    assert len(it) == len(expected)
    for epoch in range(2):
        got = [numbers(b) for b in it]
        assert got == expected, f"epoch {epoch}"
        it.reset()


def test_auto_reset_and_labels(tmp_path):
    root = make_files(tmp_path, 5)
    it = DALIGenericIterator(reader_pipe(root, 2), ["data", "label"], reader_name="Reader",
                             auto_reset=True, last_batch_policy=LastBatchPolicy.PARTIAL)
    for _ in range(3):
        batches = list(it)
        assert [numbers(b) for b in batches] == [[1, 2], [3, 4], [5]]
        assert batches[0][0]["label"].shape == (2, 1) and batches[0][0]["label"].dtype == torch.int32


@pytest.mark.parametrize("num_shards", [2, 3, 8])
@pytest.mark.parametrize("policy", [LastBatchPolicy.PARTIAL, LastBatchPolicy.DROP])
def test_sharded_ranks_cover_every_sample_once(tmp_path, num_shards, policy):
    root = make_files(tmp_path, 29)
    its = [DALIClassificationIterator(reader_pipe(root, 3, s, num_shards, shuffle=True),
                                      reader_name="Reader", last_batch_policy=policy)
           for s in range(num_shards)]
    assert len({len(it) for it in its}) == 1  # same number of steps on every rank
    for _ in range(2):
        seen = collections.Counter()
        for it in its:
            for b in it:
                seen.update(numbers(b))
            it.reset()
        if policy == LastBatchPolicy.PARTIAL:
            assert sorted(seen) == list(range(1, 30)) and set(seen.values()) == {1}
        else:  # DROP: complete batches only, no sample twice
            assert set(seen.values()) == {1}
            assert len(seen) == len(its[0]) * 3 * num_shards


def test_batches_are_zero_copy_views_of_the_pipeline_output(tmp_path):
    root = make_files(tmp_path, 4)
    it = DALIGenericIterator(reader_pipe(root, 4), ["data", "label"], reader_name="Reader")
    batch = next(it)
    assert batch[0]["data"].data_ptr() == it._last_ptrs[0]
    kept = batch[0]["data"].clone()
    for _ in range(6):  # the pipeline keeps running: what torch holds is never overwritten
        next(iter([next(it, None)]))
        it.reset() if it._ended else None
    assert torch.equal(batch[0]["data"], kept)


def test_size_based_epochs_over_an_external_source():
    src = [np.full((3,), i, np.float32) for i in range(10)]

    @pipeline_def(batch_size=4, num_threads=1, device_id=None)
    def p():
        return fn.external_source(lambda info: src[info.idx_in_epoch % 10], batch=False)

    it = DALIGenericIterator(p(), ["x"], size=10, last_batch_policy=LastBatchPolicy.PARTIAL)
    assert len(it) == 3
    sizes = [b[0]["x"].shape[0] for b in it]
    assert sizes == [4, 4, 2]


def test_shard_ids_from_torchrun_environment(tmp_path, monkeypatch):
    root = make_files(tmp_path, 6)
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "3")

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def p():
        return fn.readers.file(file_root=str(root), file_filters=["*.txt"], name="Reader",
                               shard_id="auto", num_shards="auto")

    meta = p().reader_meta("Reader")
    assert (meta["shard_id"], meta["number_of_shards"]) == (1, 3)


@pytest.mark.gpu
def test_cpu_pipeline_with_gpu_prefetcher_matches_cpu_normalisation():
    rng = np.random.default_rng(0)
    imgs = [rng.integers(0, 256, (8, 6, 3), np.uint8) for _ in range(4)]
    mean, std = [120.0, 110.0, 100.0], [60.0, 55.0, 50.0]

    @pipeline_def(batch_size=4, num_threads=2, device_id=None)
    def p():
        return fn.external_source([imgs], layout="HWC", cycle=True), fn.random.coin_flip()

    it = DALIGenericIterator(p(), ["data", "flip"], size=10,
                             last_batch_policy=LastBatchPolicy.PARTIAL,
                             gpu_normalize={"mean": mean, "std": std})
    batches = list(it)
    assert [len(b[0]["data"]) for b in batches] == [4, 4, 2]
    assert all(b[0]["flip"].is_cuda and len(b[0]["flip"]) == len(b[0]["data"]) for b in batches)
    batches = batches[:2]
    ref = (torch.from_numpy(np.stack(imgs)).permute(0, 3, 1, 2).float()
           - torch.tensor(mean).view(1, 3, 1, 1)) / torch.tensor(std).view(1, 3, 1, 1)
    for b in batches:
        assert b[0]["data"].is_cuda
        torch.testing.assert_close(b[0]["data"].cpu(), ref, rtol=1e-5, atol=1e-5)

