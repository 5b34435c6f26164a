"""readers.caffe and readers.caffe2 against NVIDIA DALI 2.4 on generated LMDB databases (made
with liblmdb through ctypes, see lmdb_records.py): every output in key order, across several
databases, sharded and padded; the same set per epoch shuffled; raw and encoded images, label
types, additional inputs, bounding boxes; named errors for corrupted records. DALI 2.4 crashes
on the sparse label types (1 and 3), so those are checked against their definition."""

import io

import numpy as np
import pytest

import lmdb_records as rec
from reader_reference import compare_with_dali, outputs, read, read_dali
from sluice import fn, pipeline_def

pytestmark = pytest.mark.skipif(rec.LIB is None, reason="liblmdb not found")


@pytest.fixture(autouse=True, scope="module")
def _sluice_has_lmdb(tmp_path_factory):
    db = rec.write_lmdb(tmp_path_factory.mktemp("probe") / "db", [(b"k", rec.datum(data=b"x"))])
    try:
        outputs(read("caffe", {"path": db}, 1))
    except Exception as e:  # noqa: BLE001 - only the missing library skips
        if "no LMDB support" in str(e):
            pytest.skip("this build of Sluice has no LMDB support (liblmdb-dev)")
        raise


def jpeg(k):
    from PIL import Image

    rng = np.random.default_rng(k)
    buf = io.BytesIO()
    Image.fromarray(rng.integers(0, 255, (6 + k % 4, 9, 3), dtype=np.uint8)).save(buf, "JPEG")
    return buf.getvalue()


def caffe_db(path, n, first=0, raw=False):
    """n Datum records, keys inserted out of order (LMDB keeps them sorted)."""
    records = []
    for k in range(first, first + n):
        if raw:
            img = np.random.default_rng(k).integers(0, 255, (2, 3, 3), dtype=np.uint8)
            value = rec.datum(data=img.tobytes(), label=k, encoded=False, shape=(3, 2, 3))
        else:
            value = rec.datum(data=jpeg(k), label=100 - 7 * k, encoded=True if k % 2 else None)
        records.append((f"{(k * 7) % 50:05d}".encode(), value))
    return rec.write_lmdb(path, records)


@pytest.fixture
def caffe_dbs(tmp_path):
    return [caffe_db(tmp_path / "db0", 5), caffe_db(tmp_path / "db1", 3, first=5)]


@pytest.mark.parametrize("pad,iterations,last_valid", [(False, 3, 2), (True, 6, None)])
def test_caffe_order_and_outputs_match_dali(tmp_path, caffe_dbs, pad, iterations, last_valid):
    compare_with_dali("caffe", tmp_path, {"path": caffe_dbs, "pad_last_batch": pad}, 3,
                      iterations, last_valid=last_valid)


@pytest.mark.parametrize("num_shards,shard_id", [(2, 1), (3, 0)])
def test_caffe_sharded_matches_dali(tmp_path, caffe_dbs, num_shards, shard_id):
    compare_with_dali("caffe", tmp_path, {"path": caffe_dbs, "num_shards": num_shards,
                                          "shard_id": shard_id, "pad_last_batch": True}, 2, 6)


def test_source_info_names_database_and_key_as_dali(tmp_path, caffe_dbs):
    runs = compare_with_dali("caffe", tmp_path, {"path": caffe_dbs, "pad_last_batch": True}, 4, 2,
                             source_info=True)
    assert bytes(runs[0][2][1]).decode() == f"{caffe_dbs[0]} at key 00007"
    path = caffe2_db(caffe_dbs[0] + "_c2", 3, label=int_label)
    compare_with_dali("caffe2", tmp_path, {"path": path}, 3, 1, source_info=True)


def test_caffe_raw_images_and_single_outputs_match_dali(tmp_path, caffe_dbs):
    raw = caffe_db(tmp_path / "raw", 4, raw=True)
    (images, labels), = compare_with_dali("caffe", tmp_path, {"path": raw}, 4, 1)
    assert images[0].shape == (2, 3, 3) and labels[0].dtype == np.int32
    compare_with_dali("caffe", tmp_path, {"path": caffe_dbs, "label_available": False}, 4, 2)
    compare_with_dali("caffe", tmp_path, {"path": caffe_dbs, "image_available": False}, 4, 2)


def test_caffe_shuffled_epochs_hold_every_record_once_as_dali(tmp_path, caffe_dbs):
    kwargs = {"path": caffe_dbs, "random_shuffle": True, "seed": 5, "pad_last_batch": True}
    in_order = [bytes(x) for x in outputs(read("caffe", {"path": caffe_dbs}, 8))[0][0]]
    ours = outputs(read("caffe", kwargs, 4, 4))
    for runs in (ours, outputs(read_dali("caffe", kwargs, 4, tmp_path, 4))):
        for e in range(2):
            epoch = [bytes(x) for t in (2 * e, 2 * e + 1) for x in runs[t][0]]
            assert sorted(epoch) == sorted(in_order)
    assert [bytes(x) for t in (0, 1) for x in ours[t][0]] != in_order


def caffe2_db(path, n, image="string", label=None, additional=(), bbox=False):
    """n TensorProtos records: an image (STRING / BYTE / none), a label proto given by
    label(k) (a list of tensors), additional tensors given by functions of k, a bbox."""
    records = []
    for k in range(n):
        t = []
        if image == "string":
            t.append(rec.tensor(rec.STRING, string_data=[jpeg(k)]))
        elif image == "byte":
            t.append(rec.tensor(rec.BYTE, dims=[2, 2, 3], byte_data=bytes(range(k, k + 12))))
        if label is not None:
            t += label(k)
        t += [f(k) for f in additional]
        if bbox:
            t.append(rec.tensor(rec.INT32, int32_data=[k, 2 * k, 10 + k, 20 + k]))
        records.append((f"{k:04d}".encode(), rec.protos(*t)))
    return rec.write_lmdb(path, records)


def int_label(k):
    return [rec.tensor(rec.INT32, int32_data=[k % 4])]


def floats(k):
    return rec.tensor(rec.FLOAT, float_data=[k, k + 0.5, -k])


def int64s(k):
    return rec.tensor(rec.INT64, int64_data=[k << 35, -k])


def int32s(k):
    return rec.tensor(rec.INT32, int32_data=list(range(k % 3 + 1)))


CAFFE2_CASES = {
    "single+additional+bbox": (dict(label=int_label, additional=(floats, int32s), bbox=True),
                               dict(additional_inputs=2, bbox=True)),
    "raw image, dense float labels": (
        dict(image="byte", label=lambda k: [rec.tensor(rec.FLOAT, float_data=[k, 1, 2])],
             additional=(int64s,)),
        dict(label_type=2, additional_inputs=1)),
    "no label": (dict(), dict(label_type=4)),
    "no image, float label": (
        dict(image=None, label=lambda k: [rec.tensor(rec.FLOAT, float_data=[k / 2])]),
        dict(image_available=False)),
}


@pytest.mark.parametrize("case", list(CAFFE2_CASES))
def test_caffe2_outputs_match_dali(tmp_path, case):
    make, kwargs = CAFFE2_CASES[case]
    path = caffe2_db(tmp_path / "db", 7, **make)
    compare_with_dali("caffe2", tmp_path, {"path": path, "pad_last_batch": True, **kwargs}, 3, 6)


def test_caffe2_sharded_matches_dali(tmp_path):
    path = caffe2_db(tmp_path / "db", 9, label=int_label)
    compare_with_dali("caffe2", tmp_path, {"path": [path], "num_shards": 2, "shard_id": 1}, 2, 3,
                      last_valid=1)


def read_caffe2(path, batch_size=3, **kwargs):
    return outputs(read("caffe2", {"path": path, **kwargs}, batch_size))[0]


def test_caffe2_sparse_and_weighted_labels(tmp_path):
    sparse = caffe2_db(tmp_path / "sparse", 3, label=lambda k: [
        rec.tensor(rec.INT32, int32_data=[k, 4]), rec.tensor(rec.INT32, int32_data=[9])],
        additional=(floats,))
    images, labels, extra = read_caffe2(sparse, label_type=1, num_labels=5, additional_inputs=1)
    np.testing.assert_array_equal(labels[1], np.array([0, 1, 0, 0, 1], np.int32))
    np.testing.assert_array_equal(extra[2], np.array([2, 2.5, -2], np.float32))
    weighted = caffe2_db(tmp_path / "weighted", 3, label=lambda k: [
        rec.tensor(rec.FLOAT, float_data=[3, k]), rec.tensor(rec.FLOAT, float_data=[0.5, 0.25])])
    _, labels = read_caffe2(weighted, label_type=3, num_labels=4)
    assert labels[1].dtype == np.float32
    np.testing.assert_array_equal(labels[1], np.array([0, 0.25, 0, 0.5], np.float32))


def build_and_run(reader, **kwargs):
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        return getattr(fn.readers, reader)(**kwargs)

    p = pipe()
    p.build()
    for _ in range(3):
        p.run()


def test_bad_records_give_named_errors(tmp_path):
    bad = rec.write_lmdb(tmp_path / "bad", [(b"k0", rec.datum(data=b"x", label=1)),
                                             (b"k1", rec.blob(4, b"abc")[:3])])
    with pytest.raises(Exception, match=r"bad at key k1.*malformed Caffe Datum record at byte"):
        build_and_run("caffe", path=bad)
    raw = rec.write_lmdb(tmp_path / "raw", [(b"a", rec.datum(data=b"x" * 5, encoded=False,
                                                             shape=(3, 2, 2)))] * 2)
    with pytest.raises(Exception, match=r"raw at key a.*raw Datum of 2x2x3 holds 5 bytes"):
        build_and_run("caffe", path=raw)
    with pytest.raises(Exception, match="not a database folder"):
        build_and_run("caffe", path=str(tmp_path / "missing"))
    out_of_range = caffe2_db(tmp_path / "oor", 2, label=lambda k: [
        rec.tensor(rec.INT32, int32_data=[7])])
    with pytest.raises(Exception, match=r"oor at key 0000.*label index 7 outside 0..4"):
        build_and_run("caffe2", path=out_of_range, label_type=1, num_labels=5)
    few = caffe2_db(tmp_path / "few", 2, label=int_label)
    with pytest.raises(Exception, match=r"few at key 0000.*no additional input at position 2"):
        build_and_run("caffe2", path=few, additional_inputs=1)
    with pytest.raises(Exception, match="unsupported label data type 4"):
        build_and_run("caffe2", path=few, image_available=False)
