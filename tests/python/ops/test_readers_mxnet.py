"""readers.mxnet against DALI 2.4: RecordIO files of IRHeader records (one label or several,
whole or cut in parts by the writer), one index over several files, unshuffled and sharded in
DALI's order, shuffled as a permutation per epoch; bad files as named errors."""

import pathlib
import struct
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from reader_reference import (assert_runs_equal, assert_same_meta, by_output,  # noqa: E402
                              compare_shards_with_dali, compare_with_dali, outputs, read,
                              read_dali)
from record_writers import RECORDIO_MAGIC, irheader, recordio_record, write_recordio  # noqa: E402

from sluice import fn, pipeline_def  # noqa: E402

MAGIC = struct.pack("<I", RECORDIO_MAGIC)


def item(k):
    """(label, data): every third record has several labels; every fourth holds the magic number
    at aligned places of its data, so that the writer cuts it in parts."""
    rng = np.random.default_rng(k)
    data = rng.integers(0, 255, 20 + 4 * (k % 5) + k % 3, dtype=np.uint8).tobytes()
    if k % 4 == 1:
        data = data[:8] + MAGIC + data[8:16] + MAGIC + data[16:]
    label = [float(k), 0.5, -1.0][: 1 + k % 3] if k % 3 == 2 else float(k % 10)
    return label, data


def make_files(tmp_path, counts=(7, 6)):
    """RecordIO files with `counts` records and one index over them all."""
    paths, lines, k, start = [], [], 0, 0
    for f, n in enumerate(counts):
        p = tmp_path / f"part{f}.rec"
        lines += write_recordio(p, None, [item(k + j) for j in range(n)], start_offset=start)
        k += n
        start += p.stat().st_size
        paths.append(str(p))
    idx = tmp_path / "all.idx"
    idx.write_text("".join(lines))
    return paths, [str(idx)]


def expected_label(k):
    label, _ = item(k)
    return np.array(label if isinstance(label, list) else [label], dtype=np.float32)


def test_outputs_in_dali_order_with_labels_and_parts(tmp_path):
    paths, idx = make_files(tmp_path)
    kwargs = {"path": paths, "index_path": idx}
    ours = read("mxnet", kwargs, 4, iterations=8)
    samples = by_output(ours)
    for k in range(13):
        assert bytes(samples[0][k]) == item(k)[1], k
        np.testing.assert_array_equal(samples[1][k], expected_label(k))
    assert samples[0][16].tobytes() == item(0)[1]  # the next epoch
    # One epoch (the last batch filled from the start); with pad_last_batch, two. Without it
    # DALI's next epoch goes on from where the last batch ended, Sluice's starts over (the
    # Reader base's epochs, as readers.file's).
    ref = read_dali("mxnet", kwargs, 4, tmp_path, iterations=4)
    assert_runs_equal(outputs(ours)[:4], outputs(ref))
    assert_same_meta(ours["meta"], ref["meta"])
    compare_with_dali("mxnet", tmp_path, {**kwargs, "pad_last_batch": True}, 4, 8)


@pytest.mark.parametrize("num_shards,pad,stick", [(2, False, False), (3, True, False),
                                                   (3, False, True)])
def test_sharded_in_dali_order(tmp_path, num_shards, pad, stick):
    paths, idx = make_files(tmp_path, counts=(5, 6))
    kwargs = {"path": paths, "index_path": idx, "pad_last_batch": pad, "stick_to_shard": stick}
    # Three epochs, or one (see test_*_in_dali_order).
    compare_shards_with_dali("mxnet", tmp_path, kwargs, 11, num_shards, 3, 6 if pad else 2)


def test_shuffled_epochs_are_permutations_of_the_dataset(tmp_path):
    paths, idx = make_files(tmp_path, counts=(6, 6))
    kwargs = {"path": paths, "index_path": idx, "random_shuffle": True}
    ours = by_output(read("mxnet", kwargs, 4, iterations=6))
    expected = sorted(item(k)[1] for k in range(12))
    data = [bytes(a) for a in ours[0]]
    assert sorted(data[:12]) == expected and sorted(data[12:]) == expected
    assert data[:12] != data[12:]
    ref = by_output(read_dali("mxnet", kwargs, 4, tmp_path, iterations=6))
    assert set(bytes(a) for a in ref[0]) == set(expected)


def read_pipe(paths, idx, batch_size=1):
    @pipeline_def(batch_size=batch_size, num_threads=1, device_id=None)
    def pipe():
        return tuple(fn.readers.mxnet(path=paths, index_path=idx))

    return pipe()


def test_bad_files_are_errors_naming_file_and_offset(tmp_path):
    good = recordio_record(irheader(1.0, 0, b"abcdefgh"))
    p = tmp_path / "bad.rec"
    idx = tmp_path / "bad.idx"
    idx.write_text(f"0\t0\n1\t{len(good)}\n")
    # A wrong magic number in the second record.
    p.write_bytes(good + b"\0" + good[1:])
    pipe = read_pipe([str(p)], [str(idx)])
    pipe.run()
    with pytest.raises(Exception, match=rf"bad\.rec at index {len(good)}.*magic"):
        pipe.run()
    # A truncated file: the last record's part runs past its end.
    p.write_bytes(good + good[:-6])
    pipe = read_pipe([str(p)], [str(idx)])
    pipe.run()
    with pytest.raises(Exception, match=rf"bad\.rec at index {len(good)}.*truncated"):
        pipe.run()
    # An index offset past the end of the data: refused when the pipeline is built.
    idx.write_text(f"0\t0\n1\t{10 * len(good)}\n")
    with pytest.raises(Exception, match=r"bad\.idx' line 2.*past the end"):
        read_pipe([str(p)], [str(idx)]).build()
    with pytest.raises(Exception, match="single index file"):
        read_pipe([str(p)], [str(idx), str(idx)]).build()


def test_a_header_cut_by_the_writer_is_joined(tmp_path):
    """The magic number inside the IRHeader (here its id) makes a first part shorter than the
    header: DALI reads past that part; Sluice joins the parts first."""
    payload = struct.pack("<IfQQ", 0, 4.0, RECORDIO_MAGIC, 0) + b"xyz"
    p = tmp_path / "h.rec"
    p.write_bytes(recordio_record(payload))
    idx = tmp_path / "h.idx"
    idx.write_text("0\t0\n")
    data, label = read_pipe([str(p)], [str(idx)]).run()
    assert bytes(np.asarray(data.at(0))) == b"xyz"
    np.testing.assert_array_equal(label.at(0), [4.0])


def test_index_tool_writes_mxnets_index(tmp_path):
    p = tmp_path / "t.rec"
    lines = write_recordio(p, None, [item(k) for k in range(9)])  # parts in records 1 and 5
    idx = tmp_path / "t.idx"
    tool = [sys.executable, "-m", "sluice.tools.rec2idx"]
    subprocess.run(tool + [str(p), str(idx)], check=True)
    assert idx.read_text() == "".join(lines)
    data, label = read_pipe([str(p)], [str(idx)], batch_size=9).run()
    assert [bytes(np.asarray(data.at(k))) for k in range(9)] == [item(k)[1] for k in range(9)]
    # A truncated file: an error naming the offset, and no index left behind.
    p.write_bytes(p.read_bytes()[:-10])
    cut = tmp_path / "cut.idx"
    run = subprocess.run(tool + [str(p), str(cut)], capture_output=True, text=True)
    assert run.returncode == 1 and "truncated" in run.stderr and not cut.exists()
