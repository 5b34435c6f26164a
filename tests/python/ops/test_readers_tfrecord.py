"""readers.tfrecord against DALI 2.4: features of every kind, unshuffled and sharded in DALI's
order, shuffled as a permutation per epoch; the index tool; bad files as named errors."""

import io
import pathlib
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from dali_reference import dali_python  # noqa: E402
from reader_reference import (assert_runs_equal, by_output, compare_shards_with_dali,  # noqa: E402
                              compare_with_dali, outputs, read, read_dali, read_dali_all)
from record_writers import Floats, example, tfrecord, write_tfrecord  # noqa: E402

from sluice import fn, pipeline_def, tfrecord as sltf  # noqa: E402


def jpeg(k):
    from PIL import Image

    rng = np.random.default_rng(k)
    img = Image.fromarray(rng.integers(0, 255, (8 + k % 5, 10 + k % 3, 3), dtype=np.uint8))
    buf = io.BytesIO()
    img.save(buf, format="JPEG", quality=90)
    return buf.getvalue()


def sample(k):
    return {"image/encoded": jpeg(k), "image/class/label": [k % 7],
            "floats": Floats(float(k) + 0.25 * j for j in range(k % 4)),
            "pairs": [k, -k, 2 * k, 1 << 40][: 2 * (k % 3)],
            "box": [0.5 * k, 1.0, 2.0, 3.0], "name": f"sample-{k}"}


# Features with outputs DALI defines (every record holds every value the shape needs).
FEATURES = [["image/encoded", "fixed", "string", [], ""],
            ["image/class/label", "fixed", "int64", [1], -1],
            ["floats", "var", "float32", [], 0.0],
            ["pairs", "var", "int64", [2], 0],
            ["box", "fixed", "float32", [2, 2], 0.0],
            ["name", "fixed", "string", [1], ""]]


def make_files(tmp_path, counts=(7, 6)):
    """TFRecord files with `counts` records and their indexes made by the tool."""
    paths, idx, k = [], [], 0
    for f, n in enumerate(counts):
        p = tmp_path / f"part{f}.tfrecord"
        write_tfrecord(p, [sample(k + j) for j in range(n)])
        k += n
        i = tmp_path / f"part{f}.idx"
        subprocess.run([sys.executable, "-m", "sluice.tools.tfrecord2idx", str(p), str(i)],
                       check=True)
        paths.append(str(p))
        idx.append(str(i))
    return paths, idx


def test_every_feature_kind_in_dali_order(tmp_path):
    paths, idx = make_files(tmp_path)
    # One epoch (13 records in 4 batches, the last filled from the start); with pad_last_batch,
    # three. Without it DALI's next epoch goes on from where the last batch ended, Sluice's
    # starts over (the Reader base's epochs, as readers.file's).
    runs = [("tfrecord", {"path": paths, "index_path": idx, "pad_last_batch": pad}, 4, iters,
             {"features": FEATURES}) for pad, iters in ((False, 4), (True, 12))]
    for run, ref in zip(runs, read_dali_all(runs, tmp_path)):
        ours = read(*run[:4], **run[4])
        assert_runs_equal(outputs(ours), outputs(ref), str(run[1]))
    assert ours["meta"]["epoch_size"] == ref["meta"]["epoch_size"] == 13
    ours = by_output(ours)
    labels = [int(a[0]) for a in ours[1][:13]]
    assert labels == [k % 7 for k in range(13)]
    assert bytes(ours[0][3]) == jpeg(3) and bytes(ours[5][2]) == b"sample-2"


@pytest.mark.parametrize("num_shards,pad,stick", [(2, False, False), (3, True, False),
                                                   (3, False, True)])
def test_sharded_in_dali_order(tmp_path, num_shards, pad, stick):
    paths, idx = make_files(tmp_path, counts=(5, 6))
    kwargs = {"path": paths, "index_path": idx, "pad_last_batch": pad, "stick_to_shard": stick}
    # Three epochs, or one (see test_*_in_dali_order).
    compare_shards_with_dali("tfrecord", tmp_path, kwargs, 11, num_shards, 3, 6 if pad else 2,
                             features=FEATURES[1:2])


def test_shuffled_epochs_are_permutations_of_the_dataset(tmp_path):
    paths, idx = make_files(tmp_path, counts=(6, 6))
    feats = [["image/class/label", "fixed", "int64", [1], -1], ["name", "fixed", "string", [], ""]]
    kwargs = {"path": paths, "index_path": idx, "random_shuffle": True}
    ours = by_output(read("tfrecord", kwargs, 4, iterations=6, features=feats))
    names = [bytes(a).decode() for a in ours[1]]
    expected = sorted(f"sample-{k}" for k in range(12))
    assert sorted(names[:12]) == expected and sorted(names[12:]) == expected
    assert names[:12] != names[12:]  # a new order every epoch
    ref = by_output(read_dali("tfrecord", kwargs, 4, tmp_path, iterations=6, features=feats))
    assert set(bytes(a).decode() for a in ref[1]) == set(expected)


def test_defaults_fill_what_a_record_lacks(tmp_path):
    """DALI leaves these undefined (a missing feature is a 0-d tensor of garbage, or an error
    beside records that have it; the tail of a short FixedLenFeature is uninitialised):
    Sluice fills them with the default, as TensorFlow's FixedLenFeature does."""
    p = tmp_path / "d.tfrecord"
    write_tfrecord(p, [{"a": [1, 2], "s": b"x", "v": [1.0, 2.0]}, {"b": 5}])
    i = tmp_path / "d.idx"
    subprocess.run([sys.executable, "-m", "sluice.tools.tfrecord2idx", str(p), str(i)], check=True)

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        o = fn.readers.tfrecord(path=str(p), index_path=str(i), features={
            "a": sltf.FixedLenFeature([3], sltf.int64, -7),
            "s": sltf.FixedLenFeature([], sltf.string, "none"),
            "v": sltf.VarLenFeature([2], sltf.float32, 0.0),
            "w": sltf.VarLenFeature(sltf.int64, 0)})
        return o["a"], o["s"], o["v"], o["w"]

    a, s, v, w = pipe().run()
    np.testing.assert_array_equal(a.at(0), [1, 2, -7])
    np.testing.assert_array_equal(a.at(1), [-7, -7, -7])
    assert bytes(np.asarray(s.at(0))) == b"x" and bytes(np.asarray(s.at(1))) == b"none"
    assert np.asarray(v.at(0)).shape == (1, 2) and np.asarray(v.at(1)).shape == (0, 2)
    assert np.asarray(w.at(0)).shape == (0,) and np.asarray(w.at(0)).dtype == np.int64


def one_record_pipe(p, i, features, **kwargs):
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        return tuple(fn.readers.tfrecord(path=str(p), index_path=str(i), features=features,
                                         **kwargs).values())

    return pipe()


def test_bad_files_are_errors_naming_file_and_offset(tmp_path):
    good = tfrecord(example({"a": [1]}))
    p = tmp_path / "bad.tfrecord"
    p.write_bytes(good + good)
    feats = {"a": sltf.FixedLenFeature([1], sltf.int64, 0)}
    i = tmp_path / "bad.idx"
    # An index that reaches past the end of the file: refused when the pipeline is built.
    i.write_text(f"0 {len(good)}\n{len(good)} {len(good) + 5}\n")
    with pytest.raises(Exception, match=r"bad\.idx' line 2"):
        one_record_pipe(p, i, feats).build()
    # A corrupt length: the record at that offset is named.
    i.write_text(f"0 {len(good)}\n{len(good)} {len(good)}\n")
    data = bytearray(good + good)
    data[len(good)] = 0xFF
    p.write_bytes(bytes(data))
    pipe = one_record_pipe(p, i, feats)
    pipe.run()
    with pytest.raises(Exception, match=rf"bad\.tfrecord at index {len(good)}.*length"):
        pipe.run()
    # A flipped payload bit: read as DALI reads it, unless check_crc is on.
    data = bytearray(good + good)
    data[len(good) + 12 + 2] ^= 0x40
    p.write_bytes(bytes(data))
    with pytest.raises(Exception, match=rf"at index {len(good)}.*CRC"):
        pipe = one_record_pipe(p, i, feats, check_crc=True)
        pipe.run()
        pipe.run()
    # Malformed protobuf bytes inside a valid frame.
    p.write_bytes(good + tfrecord(b"\x0a\x7f\x00"))
    i.write_text(f"0 {len(good)}\n{len(good)} 19\n")
    pipe = one_record_pipe(p, i, feats)
    pipe.run()
    with pytest.raises(Exception, match=rf"at index {len(good)}.*malformed tf.Example"):
        pipe.run()
    # A feature of another kind than declared.
    with pytest.raises(Exception, match=r"feature 'a' holds a int64_list, declared as float_list"):
        one_record_pipe(p, i, {"a": sltf.FixedLenFeature([1], sltf.float32, 0.0)}).run()


def test_crc_is_not_checked_by_default_as_in_dali(tmp_path):
    good = tfrecord(example({"a": [3]}))
    bad = bytearray(good)
    bad[-1] ^= 0xFF  # the data's CRC only
    p = tmp_path / "c.tfrecord"
    p.write_bytes(bytes(bad))
    i = tmp_path / "c.idx"
    i.write_text(f"0 {len(bad)}\n")
    feats = [["a", "fixed", "int64", [1], 0]]
    kwargs = {"path": [str(p)], "index_path": [str(i)]}
    (ours,), = compare_with_dali("tfrecord", tmp_path, kwargs, 1, 1, features=feats)
    assert int(ours[0][0]) == 3


def test_feature_declarations_as_dali_checks_them():
    with pytest.raises(TypeError, match="expected int"):
        sltf.FixedLenFeature([], sltf.int64, 1.5)
    with pytest.raises(TypeError, match="expected float"):
        sltf.FixedLenFeature([], sltf.float32, 1)
    with pytest.raises(TypeError, match="expected str"):
        sltf.FixedLenFeature([], sltf.string, b"")
    with pytest.raises(ValueError):
        sltf.FixedLenFeature([1], 7, 1)
    assert repr(sltf.VarLenFeature([3], sltf.float32, 0.0)) == "VarLenFeature([3], float32, 0.0)"
    with pytest.raises(TypeError, match="Feature"):
        fn.readers.tfrecord(path="x", index_path="y", features={"a": 1})


def test_string_tensors_are_refused_at_build(tmp_path):
    p = tmp_path / "s.tfrecord"
    write_tfrecord(p, [{"a": [b"x", b"y"]}])
    (tmp_path / "s.idx").write_text(f"0 {p.stat().st_size}\n")
    pipe = one_record_pipe(p, tmp_path / "s.idx", {"a": sltf.VarLenFeature(sltf.string, "")})
    with pytest.raises(Exception, match="Tensors of strings are not supported"):
        pipe.build()


def test_ops_api_and_legacy_names(tmp_path):
    paths, idx = make_files(tmp_path, counts=(3,))
    feats = {"label": sltf.FixedLenFeature([1], sltf.int64, -1)}
    from sluice import ops

    class_based = ops.readers.TFRecord(path=paths, index_path=idx,
                                       features={"image/class/label": feats["label"]})
    assert ops.TFRecordReader is ops.readers.TFRecord and fn.tfrecord_reader is fn.readers.tfrecord

    @pipeline_def(batch_size=3, num_threads=1, device_id=None)
    def pipe():
        out = class_based()
        assert list(out) == ["image/class/label"]
        return out["image/class/label"]

    (labels,) = pipe().run()
    assert [int(labels.at(i)[0]) for i in range(3)] == [0, 1, 2]


def test_index_tool_writes_what_dalis_writes(tmp_path):
    p = tmp_path / "t.tfrecord"
    write_tfrecord(p, [sample(k) for k in range(4)])
    ours = tmp_path / "ours.idx"
    subprocess.run([sys.executable, "-m", "sluice.tools.tfrecord2idx", str(p), str(ours)],
                   check=True)
    python = dali_python()
    if python is not None:
        tool = pathlib.Path(python).parent / "tfrecord2idx"
        ref = tmp_path / "dali.idx"
        subprocess.run([str(python), str(tool), str(p), str(ref)], check=True)
        assert ours.read_text() == ref.read_text()
    assert len(ours.read_text().splitlines()) == 4
    # A truncated file: an error naming the offset, and no index left behind.
    data = p.read_bytes()
    p.write_bytes(data[:-10])
    (tmp_path / "cut.idx").unlink(missing_ok=True)
    run = subprocess.run([sys.executable, "-m", "sluice.tools.tfrecord2idx", str(p),
                          str(tmp_path / "cut.idx")], capture_output=True, text=True)
    assert run.returncode == 1 and "runs past the end" in run.stderr
    assert not (tmp_path / "cut.idx").exists()


def test_photos_decode_as_read_from_their_files(tmp_path, shared_data):
    photos = sorted((shared_data / "photos").glob("*.jpg"))[:3]
    p = tmp_path / "photos.tfrecord"
    write_tfrecord(p, [{"image/encoded": f.read_bytes(), "image/class/label": [k]}
                       for k, f in enumerate(photos)])
    i = tmp_path / "photos.idx"
    subprocess.run([sys.executable, "-m", "sluice.tools.tfrecord2idx", str(p), str(i)], check=True)

    @pipeline_def(batch_size=3, num_threads=2, device_id=None)
    def pipe():
        o = fn.readers.tfrecord(path=str(p), index_path=str(i), features={
            "image/encoded": sltf.FixedLenFeature((), sltf.string, ""),
            "image/class/label": sltf.FixedLenFeature([1], sltf.int64, -1)})
        files, _ = fn.readers.file(files=[str(f) for f in photos])
        return (fn.decoders.image(o["image/encoded"]), fn.decoders.image(files),
                o["image/class/label"])

    ours, ref, labels = pipe().run()
    for k in range(3):
        np.testing.assert_array_equal(ours.at(k), ref.at(k))
        assert int(labels.at(k)[0]) == k
