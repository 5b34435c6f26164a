"""Mistakes a user makes first get messages that name the fix: a misspelled argument or operator,
gpu_normalize without CUDA, files skipped by on_error="skip", a bottleneck report asked too early
or on a small machine."""

import os
import warnings

import numpy as np
import pytest

import sluice
from sluice import fn, ops, pipeline_def
from sluice.profile import _advice


def test_a_misspelled_argument_gets_the_closest_name():
    with pytest.raises(sluice.InvalidArgumentError, match="has no argument 'siz': did you mean "
                       "'size'\\? Its arguments are: .*resize_x"):
        fn.resize(fn.random.uniform(), siz=3)
    with pytest.raises(sluice.InvalidArgumentError, match="has no argument 'bogus'; its arguments"):
        fn.resize(fn.random.uniform(), bogus=3)


def test_an_integer_argument_out_of_range_is_refused_not_wrapped():
    for big in (2**63, 2**64 - 1, 2**70):
        with pytest.raises(sluice.InvalidArgumentError, match="argument 'num_classes' expects"):
            fn.one_hot(fn.random.uniform(), num_classes=big)


def test_a_missing_operator_is_not_in_sluice_yet_and_points_to_the_list():
    with pytest.raises(AttributeError, match=r"fn.optical_flow is not in Sluice yet\. .*"
                       r"docs/OPERATORS.md"):
        fn.optical_flow
    with pytest.raises(AttributeError, match=r"Did you mean fn.readers.file\?"):
        fn.readers.fil
    with pytest.raises(AttributeError, match=r"ops.OpticalFlow is not in Sluice yet"):
        ops.OpticalFlow
    # Python's own probing of private names stays a plain AttributeError.
    assert not hasattr(fn, "__wrapped__") and not hasattr(fn.readers, "_x")
    assert fn.readers.file and ops.CoinFlip and fn.external_source


def test_gpu_normalize_without_cuda_names_the_argument(tmp_path):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("torch sees a CUDA device here")
    from conftest import make_files, reader_pipe
    from sluice.plugin.pytorch import DALIGenericIterator

    pipe = reader_pipe(make_files(tmp_path, 4), 2)
    with pytest.raises(RuntimeError, match="gpu_normalize= needs a CUDA device"):
        DALIGenericIterator(pipe, ["data", "label"], gpu_normalize={"mean": [0], "std": [1]})


def jpeg_folder(tmp_path, good, bad):
    """`good` decodable JPEGs and `bad` truncated ones in one class folder; the bad paths."""
    from PIL import Image

    d = tmp_path / "c"
    d.mkdir()
    for k in range(good):
        Image.new("RGB", (16, 12), (10 * k, 20, 30)).save(d / f"good{k}.jpg", quality=90)
    whole = (d / "good0.jpg").read_bytes()
    paths = []
    for k in range(bad):
        p = d / f"bad{k}.jpg"
        p.write_bytes(whole[: len(whole) // 2])
        paths.append(str(p))
    return tmp_path, paths


def test_on_error_skip_names_each_skipped_file_once(tmp_path):
    root, bad = jpeg_folder(tmp_path, 3, 2)

    # Not pipelined: three runs decode exactly three batches (no iteration computed ahead).
    @pipeline_def(batch_size=5, num_threads=1, device_id=None, exec_pipelined=False,
                  exec_async=False)
    def p():
        data, label = fn.readers.file(file_root=str(root))
        return fn.decoders.image(data, on_error="skip", name="Decoder"), label

    pipe = p()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):  # every file in every batch: the bad ones are named once all the same
            pipe.run()
    named = [str(w.message) for w in caught if "skipped" in str(w.message)]
    assert len(named) == 2, named
    for path in bad:
        assert sum(path in m for m in named) == 1
    assert all("on_error='skip'" in m and "JPEG" in m for m in named)
    stats = pipe.executor_statistics()["Decoder"]
    assert stats["skipped_samples"] == 6
    assert sorted(stats["skipped_files"]) == sorted(bad)
    assert all("sample" not in e and e for e in stats["skipped_files"].values())


def test_bottleneck_report_before_a_run_says_nothing_was_measured(tmp_path):
    root, _ = jpeg_folder(tmp_path, 2, 0)

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def p():
        data, label = fn.readers.file(file_root=str(root))
        return fn.decoders.image(data), label

    pipe = p()
    pipe.build()
    assert pipe.bottleneck_report().startswith("nothing measured yet")
    pipe.run()
    assert "verdict:" in pipe.bottleneck_report()


def test_bottleneck_advice_fits_the_machine():
    small = _advice("decoders.image", "cpu", threads=2, cores=2, gpu=False)
    assert "decoding is the bottleneck" in small
    assert "more threads" not in small and "mixed" not in small and "GPU" not in small
    big = _advice("decoders.image", "cpu", threads=4, cores=32, gpu=True)
    assert "num_threads=4, of 32 cores" in big and "device='mixed'" in big
    # Nothing left to suggest: it says why instead of advising the impossible.
    assert _advice("other.op", "cpu", threads=2, cores=2, gpu=False) == (
        "'other.op' on the CPU stage is the bottleneck: every core is in use (num_threads=2) and "
        "there is no GPU to move work to")
    assert "resize on the GPU" not in _advice("resize", "cpu", 8, 8, gpu=False)


def test_a_small_machines_report_advises_neither_more_threads_nor_the_gpu(tmp_path):
    if sluice.backend.cuda_device_count():
        pytest.skip("a GPU is here")
    root, _ = jpeg_folder(tmp_path, 8, 0)
    cores = os.cpu_count() or 1

    @pipeline_def(batch_size=4, num_threads=cores, device_id=None, prefetch_queue_depth=1)
    def p():
        data, label = fn.readers.file(file_root=str(root))
        return fn.decoders.image(data), label

    pipe = p()
    for _ in range(6):
        np.asarray(pipe.run()[1])
    verdict = pipe.bottleneck_report().splitlines()[-1]
    assert "mixed" not in verdict and "more threads" not in verdict, verdict
