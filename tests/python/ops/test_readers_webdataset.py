"""readers.webdataset against NVIDIA DALI 2.4 on generated tar shards (JPEGs, labels, float
arrays, samples missing a component): every output in the same order unshuffled and sharded, the
same set per epoch shuffled; ext groups, case-insensitive extensions, missing_component_behavior,
dtypes, index files from the index tool (identical to DALI's wds2idx), and named errors for
truncated and corrupted shards."""

import io
import subprocess
import sys
import tarfile

import numpy as np
import pytest

from dali_reference import dali_python
from reader_reference import assert_runs_equal, compare_with_dali, outputs, read, read_dali
from sluice import fn, pipeline_def
from sluice.tools import wds2idx


def jpeg(k):
    from PIL import Image

    rng = np.random.default_rng(k)
    img = Image.fromarray(rng.integers(0, 255, (8 + k % 5, 10, 3), dtype=np.uint8))
    buf = io.BytesIO()
    img.save(buf, format="JPEG" if k % 4 else "PNG")
    return buf.getvalue()


def sample_members(k):
    """The members of sample k: an image (jpg or png), a label, float32 data; some miss one."""
    name = f"s{k:04d}"
    image_ext = "png" if k % 4 == 0 else ("JPG" if k % 7 == 3 else "jpg")
    members = [(f"{name}.{image_ext}", jpeg(k))]
    if k % 5 != 2:
        members.append((f"{name}.cls", str(k % 10).encode()))
    members.append((f"{name}.f32", np.arange(k % 3 + 1, dtype=np.float32).tobytes() * 2))
    return members


def write_shards(root, sizes, long_names=False, fmt=tarfile.GNU_FORMAT):
    """Tar shards of `sizes` samples each; returns (tar paths, index paths made by our tool)."""
    tars, idxs, k = [], [], 0
    for s, n in enumerate(sizes):
        path = root / f"shard{s}.tar"
        with tarfile.open(path, "w", format=fmt) as tar:
            if s == 0:
                folder = tarfile.TarInfo("dir")
                folder.type = tarfile.DIRTYPE
                tar.addfile(folder)
            for _ in range(n):
                for name, data in sample_members(k):
                    if long_names:
                        name = "d" * 120 + "/" + name
                    info = tarfile.TarInfo(name)
                    info.size = len(data)
                    tar.addfile(info, io.BytesIO(data))
                k += 1
        idx = root / f"shard{s}.idx"
        wds2idx.create_index(str(path), str(idx))
        tars.append(str(path))
        idxs.append(str(idx))
    return tars, idxs


def compare(tmp_path, kwargs, batch_size, iterations, last_valid=None):
    return compare_with_dali("webdataset", tmp_path, kwargs, batch_size, iterations, last_valid)


@pytest.fixture
def shards(tmp_path):
    return write_shards(tmp_path, [5, 3, 6])


@pytest.mark.parametrize("with_index", [True, False])
@pytest.mark.parametrize("pad,iterations", [(False, 4), (True, 8)])
def test_unshuffled_order_and_outputs_match_dali(tmp_path, shards, with_index, pad, iterations):
    tars, idxs = shards
    kwargs = {"paths": tars, "ext": ["jpg;png", "cls", "f32"],
              "dtypes": ["types.UINT8", "types.UINT8", "types.FLOAT"], "pad_last_batch": pad}
    if with_index:
        kwargs["index_paths"] = idxs
    compare(tmp_path, kwargs, 4, iterations)


@pytest.mark.parametrize("num_shards,shard_id,pad,iterations",
                         [(2, 0, False, 3), (2, 1, True, 9), (3, 2, False, 2), (3, 0, True, 6)])
def test_sharded_order_matches_dali(tmp_path, shards, num_shards, shard_id, pad, iterations):
    tars, idxs = shards
    shard_size = (shard_id + 1) * 14 // num_shards - shard_id * 14 // num_shards
    compare(tmp_path, {"paths": tars, "index_paths": idxs, "ext": ["jpg", "cls"],
                       "num_shards": num_shards, "shard_id": shard_id, "pad_last_batch": pad},
            3, iterations, last_valid=None if pad else shard_size - 3 * (iterations - 1))


@pytest.mark.parametrize("policy", ["skip", "empty", ""])
def test_missing_components_and_case_insensitive_extensions(tmp_path, shards, policy):
    tars, idxs = shards
    for index in (idxs, None):
        kwargs = {"paths": tars, "ext": ["JPG;PNG", "cls"], "case_sensitive_extensions": False,
                  "missing_component_behavior": policy}
        if index:
            kwargs["index_paths"] = index
        compare(tmp_path, kwargs, 5, 3)


def test_source_info_names_tar_offset_and_member_as_dali(tmp_path, shards):
    tars, idxs = shards
    kwargs = {"paths": tars, "index_paths": idxs, "ext": ["jpg;png;JPG", "cls"],
              "pad_last_batch": True}
    runs = compare_with_dali("webdataset", tmp_path, kwargs, 5, 3, source_info=True)
    tar, offset, member = bytes(runs[0][2][1]).decode().rsplit(":", 2)
    assert (tar, member) == (tars[0], "s0001.jpg")
    image = runs[0][0][1].tobytes()
    assert open(tar, "rb").read()[int(offset):int(offset) + len(image)] == image


def test_v11_indexes_without_member_names(tmp_path, shards):
    tars, idxs = shards
    old = []
    for k, idx in enumerate(idxs):
        lines = open(idx).read().splitlines()
        body = [" ".join(t for j, t in enumerate(line.split()) if j % 4 != 3) for line in lines[1:]]
        old.append(str(tmp_path / f"old{k}.idx"))
        with open(old[-1], "w") as f:
            f.write("\n".join([lines[0].replace("v1.2", "v1.1")] + body) + "\n")
    compare(tmp_path, {"paths": tars, "index_paths": old, "ext": ["jpg;png", "cls"],
                       "pad_last_batch": True}, 5, 3)


def test_dtypes_reinterpret_the_component_bytes(tmp_path, shards):
    tars, idxs = shards
    (f32, as_i16), = compare(tmp_path, {"paths": tars, "index_paths": idxs, "ext": ["f32", "f32"],
                                        "dtypes": ["types.FLOAT", "types.INT16"]}, 4, 1)
    assert f32[1].dtype == np.float32 and as_i16[1].dtype == np.int16
    np.testing.assert_array_equal(f32[1], np.tile(np.arange(2, dtype=np.float32), 2))


def test_long_and_pax_names(tmp_path):
    tars, idxs = write_shards(tmp_path, [3, 2], long_names=True)
    compare(tmp_path, {"paths": tars, "ext": ["jpg;png", "cls"]}, 5, 1)
    # DALI reads pax headers through an index only (wds2idx uses GNU tar); Sluice also without.
    tars, idxs = write_shards(tmp_path, [3, 2], long_names=True, fmt=tarfile.PAX_FORMAT)
    ref = compare(tmp_path, {"paths": tars, "index_paths": idxs, "ext": ["jpg;png", "cls"]}, 5, 1)
    assert_runs_equal(outputs(read("webdataset", {"paths": tars, "ext": ["jpg;png", "cls"]}, 5)),
                      ref)


def test_shuffled_epochs_hold_every_sample_once_as_dali(tmp_path, shards):
    tars, idxs = shards
    total = 14
    kwargs = {"paths": tars, "index_paths": idxs, "ext": ["jpg;png", "cls"], "random_shuffle": True,
              "seed": 7, "pad_last_batch": True}
    batch = 7
    ours = outputs(read("webdataset", kwargs, batch, 4))
    ref = outputs(read_dali("webdataset", kwargs, batch, tmp_path, 4))
    unshuffled = outputs(read("webdataset", {**kwargs, "random_shuffle": False}, total, 1))
    everything = sorted(bytes(x) for x in unshuffled[0][0])
    for runs in (ours, ref):
        for e in range(2):
            epoch = sorted(bytes(x) for t in (2 * e, 2 * e + 1) for x in runs[t][0])
            assert epoch == everything
    assert [bytes(x) for x in ours[0][0]] != [bytes(x) for x in unshuffled[0][0][:batch]]
    again = outputs(read("webdataset", kwargs, batch, 4))
    assert_runs_equal(ours, again)


def test_read_ahead_and_other_common_arguments_keep_the_order(tmp_path, shards):
    tars, idxs = shards
    kwargs = {"paths": tars, "index_paths": idxs, "ext": ["jpg;png;JPG"], "pad_last_batch": True}
    plain = outputs(read("webdataset", kwargs, 4, 8))
    hinted = outputs(read("webdataset", {**kwargs, "read_ahead": True, "dont_use_mmap": True,
                                         "skip_cached_images": True, "initial_fill": 10}, 4, 8))
    assert_runs_equal(plain, hinted)


def test_shuffle_after_epoch_and_reader_meta(shards):
    tars, idxs = shards

    @pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=3)
    def pipe():
        return fn.readers.webdataset(paths=tars, index_paths=idxs, ext=["jpg;png;JPG"],
                                     shuffle_after_epoch=True, name="r")

    p = pipe()
    p.build()
    meta = p.reader_meta("r")
    assert meta["epoch_size"] == 14
    runs = [p.run()[0] for _ in range(4)]
    seen = [bytes(np.asarray(out.at(i))) for out in runs for i in range(4)]
    assert len(set(seen[:14])) == 14


def test_index_tool_writes_what_dali_wds2idx_writes(tmp_path, shards):
    tars, idxs = shards
    python = dali_python()
    if python is None:
        pytest.skip("NVIDIA DALI not found")
    tool = python.parent / "wds2idx"
    for tar, idx in zip(tars, idxs):
        ref = tmp_path / "ref.idx"
        subprocess.run([str(tool), tar, str(ref)], check=True, capture_output=True)
        assert ref.read_text() == open(idx).read()
    out = tmp_path / "cli.idx"
    run = subprocess.run([sys.executable, "-m", "sluice.tools.wds2idx", tars[0], str(out)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert out.read_text() == open(idxs[0]).read()


def test_many_shards_are_indexed_lazily(tmp_path):
    sizes = [1 + s % 3 for s in range(60)]
    tars, idxs = write_shards(tmp_path, sizes)
    total = sum(sizes)
    # Only the first line of an index is read before one of its shard's samples is: a bad body
    # in the last shard's index shows when that shard is reached, not when the pipeline is built.
    lines = open(idxs[-1]).read().splitlines()
    with open(idxs[-1], "w") as f:
        f.write("\n".join(lines[:1] + ["jpg 100 3 not-a-block"] * (len(lines) - 1)) + "\n")

    @pipeline_def(batch_size=total - sizes[-1], num_threads=2, device_id=None)
    def pipe():
        return fn.readers.webdataset(paths=tars, index_paths=idxs, ext=["cls"], name="r")

    p = pipe()
    p.build()
    assert p.reader_meta("r")["epoch_size"] == total
    (labels,) = p.run()
    assert [int(bytes(np.asarray(labels.at(i))) or b"-1") for i in range(3)] == [0, 1, -1]
    with pytest.raises(Exception, match=r"shard59\.idx.* line 1.*multiple of 512"):
        p.run()


def build_and_run(**kwargs):
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        return fn.readers.webdataset(**kwargs)

    p = pipe()
    p.build()
    for _ in range(8):
        p.run()


def test_truncated_and_corrupted_shards_give_named_errors(tmp_path, shards):
    tars, idxs = shards
    data = open(tars[1], "rb").read()
    cut = tmp_path / "cut.tar"
    cut.write_bytes(data[:3000])
    with pytest.raises(Exception, match=r"cut\.tar.*offset"):
        build_and_run(paths=[tars[0], str(cut)], ext=["jpg"])
    with pytest.raises(Exception, match=r"cut\.tar.*offset"):
        build_and_run(paths=[tars[0], str(cut)], index_paths=[idxs[0], idxs[1]], ext=["jpg"])
    bad = bytearray(data)
    bad[512 * 3 + 148] ^= 0x5
    (tmp_path / "bad.tar").write_bytes(bytes(bad))
    with pytest.raises(Exception, match=r"bad\.tar.*corrupted tar header at offset"):
        build_and_run(paths=[str(tmp_path / "bad.tar")], ext=["jpg"])
    (tmp_path / "bad.idx").write_text("v1.2 2\njpg 512 10 a.jpg\njpg 100 3 b.jpg\n")
    with pytest.raises(Exception, match=r"bad\.idx.*line 2"):
        build_and_run(paths=[tars[0]], index_paths=[str(tmp_path / "bad.idx")], ext=["jpg"])
    with pytest.raises(Exception, match=r"sample .*no component for output 1"):
        build_and_run(paths=tars, ext=["jpg;png;JPG", "cls"], missing_component_behavior="error")
    with pytest.raises(Exception, match=r"cannot open .*gone\.tar"):
        build_and_run(paths=[tars[0], str(tmp_path / "gone.tar")], index_paths=idxs[:2],
                      ext=["jpg"])
    with pytest.raises(Exception, match="missing_component_behavior"):
        build_and_run(paths=tars, ext=["jpg"], missing_component_behavior="drop")
    with pytest.raises(Exception, match="multiple of the size of FLOAT64"):
        build_and_run(paths=tars, ext=["cls"], dtypes=["FLOAT64"])
