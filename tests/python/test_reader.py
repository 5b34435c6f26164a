"""readers.file: listing, labels, sharding coverage, shuffling, reader_meta, path safety
(paths read as given, as DALI reads them, except where a file_root contains them)."""

import collections
import json
import subprocess

import numpy as np
import pytest

from dali_reference import dali_python
from sluice import fn, pipeline_def


def make_tree(root, counts):
    """Class folders with small text files whose content names them."""
    names = []
    for c, n in enumerate(counts):
        d = root / f"class_{c:02d}"
        d.mkdir(parents=True)
        for i in range(n):
            name = f"class_{c:02d}/f{i:03d}.txt"
            (root / name).write_text(name)
            names.append(name)
    return sorted(names)


def reader_pipe(root, batch_size, **kwargs):
    @pipeline_def(batch_size=batch_size, num_threads=2, device_id=None, seed=5)
    def p():
        data, label = fn.readers.file(file_root=str(root), file_filters=["*.txt"], name="Reader",
                                      **kwargs)
        return data, label

    pipe = p()
    pipe.build()
    return pipe


def run_epoch(pipe):
    """The (name, label, valid) of every slot of one epoch."""
    meta = pipe.reader_meta("Reader")
    out = []
    for _ in range(meta["batches_per_epoch"]):
        data, label = pipe.run()
        info = pipe.last_batch_info()
        for i in range(len(data)):
            out.append((bytes(np.asarray(data.at(i))).decode(), int(label.at(i)[0]),
                        i < info["num_valid"]))
    return out


def test_labels_are_sorted_folder_indices_and_meta(tmp_path):
    names = make_tree(tmp_path, [3, 2, 4])
    pipe = reader_pipe(tmp_path, 4)
    assert pipe.epoch_size("Reader") == 9 and pipe.epoch_size() == {"Reader": 9}
    meta = pipe.reader_meta("Reader")
    assert meta == {"epoch_size": 9, "epoch_size_padded": 9, "number_of_shards": 1, "shard_id": 0,
                    "pad_last_batch": False, "stick_to_shard": False, "batches_per_epoch": 3}
    slots = run_epoch(pipe)
    valid = [(n, l) for n, l, v in slots if v]
    assert [n for n, _ in valid] == names
    assert all(l == int(n[6:8]) for n, l in valid)
    assert len(slots) == 12 and not slots[-1][2]  # the last batch is filled, marked invalid


@pytest.mark.parametrize("num_shards", [1, 2, 3, 8])
@pytest.mark.parametrize("pad", [False, True])
def test_every_sample_once_per_epoch_across_shards(tmp_path, num_shards, pad):
    names = make_tree(tmp_path, [5, 4, 4])  # 13 samples: uneven shards
    batch = 3
    pipes = [reader_pipe(tmp_path, batch, shard_id=s, num_shards=num_shards, random_shuffle=True,
                         pad_last_batch=pad) for s in range(num_shards)]
    counts = {p.reader_meta("Reader")["batches_per_epoch"] for p in pipes}
    assert len(counts) == 1  # every rank runs the same number of batches
    previous = None
    for epoch in range(3):
        seen = collections.Counter()
        order = []
        for p in pipes:
            slots = run_epoch(p)
            seen.update(n for n, _, v in slots if v)
            order.append([n for n, _, _ in slots])
            if pad:  # padding repeats the shard's last real sample
                valid = [n for n, _, v in slots if v]
                assert all(n == valid[-1] for n, _, v in slots if not v)
        assert sorted(seen) == names and set(seen.values()) == {1}
        assert order != previous  # a fresh permutation every epoch
        previous = order


def test_same_seed_same_order_and_no_shuffle_is_listing_order(tmp_path):
    make_tree(tmp_path, [4, 4])
    a = run_epoch(reader_pipe(tmp_path, 2, random_shuffle=True, seed=3))
    b = run_epoch(reader_pipe(tmp_path, 2, random_shuffle=True, seed=3))
    c = run_epoch(reader_pipe(tmp_path, 2, random_shuffle=True, seed=4))
    assert a == b and a != c
    plain = [n for n, _, _ in run_epoch(reader_pipe(tmp_path, 2))]
    assert plain == sorted(plain)


def test_file_list_files_and_labels(tmp_path):
    names = make_tree(tmp_path, [2, 2])
    lst = tmp_path / "list.txt"
    lst.write_text("# comment\n" + "".join(f"{n} {7 + i}\n" for i, n in enumerate(names)))

    @pipeline_def(batch_size=4, num_threads=1, device_id=None)
    def from_list():
        return fn.readers.file(file_root=str(tmp_path), file_list=str(lst))

    data, label = from_list().run()
    assert [int(x) for x in np.asarray(label)[:, 0]] == [7, 8, 9, 10]

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def from_files():
        return fn.readers.file(files=[str(tmp_path / n) for n in names[:2]], labels=[5, 6])

    data, label = from_files().run()
    assert bytes(np.asarray(data.at(1))).decode() == names[1]
    assert np.asarray(label)[:, 0].tolist() == [5, 6]


def test_file_list_entries_escaping_the_root_are_rejected(tmp_path):
    root = tmp_path / "root"
    make_tree(root, [1])
    (tmp_path / "secret.txt").write_text("secret")
    lst = tmp_path / "list.txt"
    for entry in ["../secret.txt", str(tmp_path / "secret.txt")]:
        lst.write_text(f"{entry} 0\n")

        @pipeline_def(batch_size=1, num_threads=1, device_id=None)
        def p():
            return fn.readers.file(file_root=str(root), file_list=str(lst))

        with pytest.raises(ValueError, match="secret"):
            p().build()

        @pipeline_def(batch_size=1, num_threads=1, device_id=None)
        def allowed():
            return fn.readers.file(file_root=str(root), file_list=str(lst),
                                   allow_paths_outside_root=True)

        assert bytes(np.asarray(allowed().run()[0].at(0))) == b"secret"


_DALI_READ = """
import json, sys
import numpy as np
from nvidia.dali import fn, pipeline_def
kwargs, n = json.loads(sys.argv[1]), int(sys.argv[2])
@pipeline_def(batch_size=n, num_threads=1, device_id=None)
def p():
    return tuple(fn.readers.file(**kwargs))
data, label = p().run()
print(json.dumps([[bytes(np.array(data.at(i))).decode(), int(np.array(label.at(i))[0])]
                  for i in range(n)]))
"""


def read_all(cwd, batch_size, **kwargs):
    """[(content, label)] of the first batch of readers.file(**kwargs), run from `cwd`, on
    Sluice and, where its venv exists, on DALI."""
    import os

    old = os.getcwd()
    os.chdir(cwd)
    try:
        @pipeline_def(batch_size=batch_size, num_threads=1, device_id=None)
        def p():
            return fn.readers.file(**kwargs)

        data, label = p().run()
        ours = [[bytes(np.asarray(data.at(i))).decode(), int(label.at(i)[0])]
                for i in range(batch_size)]
    finally:
        os.chdir(old)
    python = dali_python()
    if python is None:
        return ours, None
    run = subprocess.run([str(python), "-c", _DALI_READ, json.dumps(kwargs), str(batch_size)],
                         cwd=cwd, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    return ours, json.loads(run.stdout.strip().splitlines()[-1])


def outside_tree(tmp_path):
    """work/ (the working directory) with a file, and a file beside it and one far away."""
    (tmp_path / "work" / "sub").mkdir(parents=True)
    (tmp_path / "work" / "here.txt").write_text("here")
    (tmp_path / "beside.txt").write_text("beside")
    (tmp_path / "far").mkdir()
    (tmp_path / "far" / "far.txt").write_text("far")
    (tmp_path / "work" / "link.txt").symlink_to(tmp_path / "far" / "far.txt")
    return tmp_path / "work"


def test_files_are_read_as_given_as_dali_reads_them(tmp_path):
    work = outside_tree(tmp_path)
    files = ["here.txt", "../beside.txt", str(tmp_path / "far" / "far.txt"), "link.txt",
             "sub/../here.txt"]
    ours, dali = read_all(work, 5, files=files)
    assert ours == [["here", 0], ["beside", 1], ["far", 2], ["far", 3], ["here", 4]]
    assert dali in (None, ours)
    # An absolute path is read as given even with a file_root.
    ours, dali = read_all(tmp_path, 2, file_root=str(work),
                          files=[str(tmp_path / "beside.txt"), "sub/../here.txt"])
    assert ours == [["beside", 0], ["here", 1]]
    assert dali in (None, ours)


def test_a_file_list_without_root_reads_its_entries_as_given(tmp_path):
    work = outside_tree(tmp_path)
    lst = tmp_path / "far" / "list.txt"
    lst.write_text(f"far.txt 3\n../beside.txt 4\n{work / 'here.txt'} 5\n../work/link.txt 6\n")
    ours, dali = read_all(work, 4, file_list=str(lst))
    assert ours == [["far", 3], ["beside", 4], ["here", 5], ["far", 6]]
    assert dali in (None, ours)


def test_relative_files_escaping_the_file_root_are_refused(tmp_path):
    work = outside_tree(tmp_path)
    for entry, why in (("../beside.txt", "climb above"), ("link.txt", "symlink")):
        @pipeline_def(batch_size=1, num_threads=1, device_id=None)
        def p():
            return fn.readers.file(file_root=str(work), files=["here.txt", entry])

        with pytest.raises(ValueError, match=f"files\\[1\\].*{why}.*allow_paths_outside_root"):
            p().build()


def test_missing_root_and_deleted_file_give_named_errors(tmp_path):
    import sluice

    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def missing():
        return fn.readers.file(file_root=str(tmp_path / "nope"))

    with pytest.raises(sluice.SluiceError, match="nope"):
        missing().build()

    names = make_tree(tmp_path / "d", [2])
    pipe = reader_pipe(tmp_path / "d", 2)
    (tmp_path / "d" / names[1]).unlink()
    with pytest.raises(sluice.SluiceError, match="f001.txt"):
        pipe.run()
