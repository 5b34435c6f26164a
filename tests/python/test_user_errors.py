"""Mistakes a user makes first get messages that name the fix: a misspelled argument or operator,
gpu_normalize without CUDA, files skipped by on_error="skip", a bottleneck report asked too early
or on a small machine."""

import warnings

import pytest

import sluice
from sluice import fn, ops, pipeline_def


def test_a_misspelled_argument_gets_the_closest_name():
    with pytest.raises(sluice.InvalidArgumentError, match="has no argument 'siz': did you mean "
                       "'size'\\? Its arguments are: .*resize_x"):
        fn.resize(fn.random.uniform(), siz=3)
    with pytest.raises(sluice.InvalidArgumentError, match="has no argument 'bogus'; its arguments"):
        fn.resize(fn.random.uniform(), bogus=3)


def test_a_missing_operator_is_not_in_sluice_yet_and_points_to_the_list():
    with pytest.raises(AttributeError, match=r"fn.normalize is not in Sluice yet\. .*"
                       r"docs/OPERATORS.md"):
        fn.normalize
    with pytest.raises(AttributeError, match=r"Did you mean fn.readers.file\?"):
        fn.readers.fil
    with pytest.raises(AttributeError, match=r"ops.Normalize is not in Sluice yet"):
        ops.Normalize
    # Python's own probing of private names stays a plain AttributeError.
    assert not hasattr(fn, "__wrapped__") and not hasattr(fn.readers, "_x")
    assert fn.readers.file and ops.CoinFlip and fn.external_source


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

    @pipeline_def(batch_size=5, num_threads=1, device_id=None)
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
