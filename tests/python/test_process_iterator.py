"""ProcessIterator: the pipeline in a child process, batches through shared slots. The CPU path
runs everywhere; the GPU path (CUDA IPC, interprocess events) where there is a GPU."""

import functools
import gc
import os
import signal
import time

import pytest

torch = pytest.importorskip("torch")

from sluice import DecodeError, fn, pipeline_def, types  # noqa: E402
from sluice.plugin.pytorch import (  # noqa: E402
    DALIClassificationIterator,
    LastBatchPolicy,
    ProcessIterator,
)
from conftest import make_files, numbers, reader_pipe  # noqa: E402


# Module level, so that the spawned child can unpickle it.
def image_pipe(root):
    @pipeline_def(batch_size=2, num_threads=2, device_id=None, seed=3)
    def p():
        jpegs, label = fn.readers.file(file_root=str(root), name="Reader")
        images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
        return fn.resize(images, resize_x=32, resize_y=32), label

    return p()


def process_iterator(root, n=2, shuffle=False, **kw):
    return ProcessIterator(functools.partial(reader_pipe, root, n, shuffle=shuffle),
                           ["data", "label"], reader_name="Reader", **kw)


@pytest.mark.parametrize("policy,expected", [
    (LastBatchPolicy.PARTIAL, [[1, 2], [3, 4], [5, 6], [7]]),
    (LastBatchPolicy.FILL, [[1, 2], [3, 4], [5, 6], [7, 1]]),
    (LastBatchPolicy.DROP, [[1, 2], [3, 4], [5, 6]]),
])
def test_epochs_and_policies_match_the_in_process_iterator(tmp_path, policy, expected):
    it = process_iterator(make_files(tmp_path, 7), last_batch_policy=policy)
    assert len(it) == len(expected)
    for epoch in range(3):
        got = []
        for b in it:
            got.append(numbers(b))
            assert b[0]["label"].dtype == torch.int32 and b[0]["label"].shape == (len(got[-1]), 1)
        assert got == expected, f"epoch {epoch}"
        with pytest.raises(StopIteration):
            next(it)  # without auto_reset the epoch stays over until reset()
        it.reset()
    it.close()
    assert not it._children[0].proc.is_alive()


def test_auto_reset_and_reset_mid_epoch(tmp_path):
    it = process_iterator(make_files(tmp_path, 6), auto_reset=True, slots=2)
    assert [numbers(b) for b in it] == [[1, 2], [3, 4], [5, 6]]
    assert [numbers(b) for b in it] == [[1, 2], [3, 4], [5, 6]]  # no reset() needed
    for _ in range(4):  # skipped batches give their slots back: 2 slots last
        assert numbers(next(it)) == [1, 2]
        it.reset()  # skips the rest of the epoch
    assert [numbers(b) for b in it] == [[1, 2], [3, 4], [5, 6]]
    it.close()


@pytest.mark.parametrize("in_child", [False, True])
def test_reset_after_auto_reset_skips_nothing(tmp_path, in_child):
    # DALI's examples call reset() after every epoch; with auto_reset the epoch has already
    # restarted, and that call must not skip it. Shuffled epochs differ, so a skip shows.
    root = make_files(tmp_path, 6)
    its = [process_iterator(root, shuffle=True, auto_reset=True) if in_child else
           DALIClassificationIterator(reader_pipe(root, 2, shuffle=True), reader_name="Reader",
                                      auto_reset=True) for _ in range(2)]
    epochs = [[], []]
    for _ in range(3):
        for k, it in enumerate(its):
            epochs[k].append([numbers(b) for b in it])
        its[0].reset()
    assert epochs[0] == epochs[1]
    assert len({str(e) for e in epochs[1]}) > 1  # the shuffles differ between epochs
    for it in its if in_child else ():
        it.close()


def test_one_process_per_shard_gives_each_sample_once_as_ranks_do(tmp_path):
    root = make_files(tmp_path, 7)  # shards of 3 and 4 samples
    kw = dict(reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True)
    it = ProcessIterator([functools.partial(reader_pipe, root, 2, shard_id=k, num_shards=2)
                          for k in range(2)], ["data", "label"], **kw)
    ranks = [DALIClassificationIterator(reader_pipe(root, 2, shard_id=k, num_shards=2), **kw)
             for k in range(2)]  # what two ranks of a DDP job would get
    assert len(it) == len(ranks[0]) == len(ranks[1]) == 2
    for _ in range(2):
        got = [[numbers([d]) for d in step] for step in it]
        want = [[numbers(b) for b in r] for r in ranks]  # readers move to the next shard
        assert got == [list(step) for step in zip(*want)]  # each epoch, as DALI's do
        assert sorted(k for step in got for shard in step for k in shard) == list(range(1, 8))
    it.close()
    assert not any(c.proc.is_alive() for c in it._children)


def test_executor_statistics_come_from_each_process_between_batches(tmp_path):
    root = make_files(tmp_path, 12)
    it = ProcessIterator([functools.partial(reader_pipe, root, 2, shard_id=k, num_shards=2)
                          for k in range(2)], ["data", "label"], reader_name="Reader", slots=2)
    here = reader_pipe(root, 2)
    here.build()
    here.run()
    batches = [next(it)]
    for _ in range(2):  # the second time every slot is held: the children answer all the same
        stats = it.executor_statistics()
        types_here = sorted(v["type"] for v in here.executor_statistics().values())
        assert len(stats) == 2 and all(sorted(v["type"] for v in s.values()) == types_here
                                       for s in stats)
        assert all(s["Reader"]["runs"] >= 1 for s in stats)
        if len(batches) < 2:
            batches.append(next(it))  # the batches that came meanwhile are kept, in order
    assert [[numbers([d]) for d in b] for b in batches] == [[[1, 2], [7, 8]], [[3, 4], [9, 10]]]
    it.close()


def test_pipelines_of_different_lengths_are_refused(tmp_path):
    root = make_files(tmp_path, 7)
    with pytest.raises(ValueError, match=r"\[4, 3\] batches"):
        ProcessIterator([functools.partial(reader_pipe, root, 2),
                         functools.partial(reader_pipe, root, 3)], ["data", "label"],
                        reader_name="Reader")


def test_batches_are_views_of_the_shared_slots_until_released(tmp_path):
    it = process_iterator(make_files(tmp_path, 12), slots=3)
    held = [next(it), next(it), next(it)]  # every slot in use
    ptrs = {b[0]["data"].data_ptr() for b in held}
    assert len(ptrs) == 3
    with pytest.raises(RuntimeError, match="all 3 slots"):
        next(it)
    assert [numbers(b) for b in held] == [[1, 2], [3, 4], [5, 6]]  # not overwritten
    view = held[0][0]["data"][1:]  # a view keeps its slot too
    del held
    gc.collect()
    nxt = next(it)  # two slots came back
    assert numbers(nxt) == [7, 8]
    assert int(bytes(view[0][view[0] > 0].to(torch.uint8).tolist()).decode()) == 2
    del view, nxt
    assert [numbers(b) for b in it] == [[9, 10], [11, 12]]
    it.close()


def test_a_bad_file_raises_the_decoders_error_in_this_process(tmp_path):
    from PIL import Image

    d = tmp_path / "c"
    d.mkdir()
    for k in range(3):
        Image.new("RGB", (40, 30), (50 * k, 80, 120)).save(d / f"{k}.jpg", quality=90)
    good = (d / "0.jpg").read_bytes()
    (d / "3_truncated.jpg").write_bytes(good[: len(good) // 3])
    it = ProcessIterator(functools.partial(image_pipe, tmp_path), ["data", "label"],
                         reader_name="Reader")
    first = next(it)
    assert first[0]["data"].shape == (2, 32, 32, 3) and first[0]["data"].dtype == torch.uint8
    with pytest.raises(DecodeError, match="3_truncated.jpg"):
        next(it)
    with pytest.raises(DecodeError):  # the same error again, no hang
        next(it)
    it.close()
    assert not it._children[0].proc.is_alive()


def test_a_killed_child_gives_an_error_not_a_hang(tmp_path):
    it = process_iterator(make_files(tmp_path, 40), slots=2)
    next(it)
    os.kill(it._children[0].proc.pid, signal.SIGKILL)
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="exited with code -9"):
        for _ in it:
            pass
    assert time.monotonic() - t0 < 10
    it.close()


def test_a_failing_pipeline_fn_is_reported():
    with pytest.raises(Exception, match="no_such_folder"):
        ProcessIterator(functools.partial(reader_pipe, "/no_such_folder", 2), ["data", "label"],
                        reader_name="Reader")


def gpu_pipe(root, load):
    @pipeline_def(batch_size=4, num_threads=2, device_id=0, seed=5)
    def p():
        jpegs, label = fn.readers.file(file_root=str(root), name="Reader", random_shuffle=True)
        images = fn.decoders.image_random_crop(jpegs, device="mixed", output_type=types.RGB,
                                               hw_decoder_load=load, rest_decoder="cpu")
        images = fn.resize(images, resize_x=64, resize_y=48)
        flip = fn.random.coin_flip(probability=0.5)
        images = fn.crop_mirror_normalize(images, dtype=types.FLOAT16, output_layout="CHW",
                                          mean=[120.0, 110.0, 100.0], std=[60.0, 55.0, 50.0],
                                          mirror=flip)
        return images, label.gpu()

    return p()


@pytest.mark.gpu
@pytest.mark.parametrize("load", [0.0, 0.6])
def test_gpu_batches_arrive_through_cuda_ipc_as_the_in_process_iterator_gives_them(tmp_path,
                                                                                  load):
    import numpy as np
    from PIL import Image

    from sluice.plugin.pytorch import DALIGenericIterator

    rng = np.random.default_rng(7)
    for c in range(2):
        (tmp_path / f"c{c}").mkdir()
        for k in range(9):  # 18 files, batch 4: a partial last batch
            h, w = rng.integers(90, 200, 2)
            yy, xx = np.mgrid[0:h, 0:w]  # smooth, like photos: decoders differ by IDCT rounding
            pixels = np.stack([30 + c * 40 + xx * rng.uniform(0.2, 0.6) + yy * rng.uniform(0, 0.4)
                               for c in range(3)], -1).clip(0, 255).astype(np.uint8)
            Image.fromarray(pixels).save(tmp_path / f"c{c}" / f"{k}.jpg", quality=85)
    kw = dict(reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL)
    ref = DALIGenericIterator(gpu_pipe(tmp_path, load), ["data", "label"], **kw)
    it = ProcessIterator(functools.partial(gpu_pipe, tmp_path, load), ["data", "label"],
                         slots=2, **kw)
    assert len(it) == len(ref) == 5
    for epoch in range(3):  # with 2 slots, more batches than slots: slots must come back
        got = [(b[0]["data"].float(), b[0]["label"].clone()) for b in it]
        want = [(b[0]["data"].float(), b[0]["label"].clone()) for b in ref]
        assert len(got) == len(want) == 5, f"epoch {epoch}"
        for (x, y), (xr, yr) in zip(got, want):
            assert x.device.type == "cuda" and x.shape == xr.shape == (xr.shape[0], 3, 48, 64)
            assert torch.equal(y, yr)
            if load == 0:  # the CPU codec on both sides: identical pixels
                assert torch.equal(x, xr)
            else:  # hardware or CPU decoding per image, on either side: IDCT differences
                assert (x - xr).abs().mean() < 0.05, f"epoch {epoch}"
        it.reset()
        ref.reset()
    it.close()
