"""readers.numpy against numpy and NVIDIA DALI 2.4: every dtype in C and Fortran order, the
three ways of naming files, order under sharding, the set per epoch when shuffled, regions of
interest (read from the file, not the whole file) with each out-of-bounds policy, and errors."""

import numpy as np
import pytest

from reader_reference import (assert_errors_as_dali, assert_runs_equal, read, read_dali,
                              read_dali_all)

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64"]


def array(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.startswith("float"):
        return (rng.standard_normal(shape) * 100).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


def assert_same_outputs(ours, ref, what=""):
    assert ref["error"] is None, ref["error"]
    assert ours["error"] is None, ours["error"]
    assert_runs_equal(ours["outputs"], ref["outputs"], what)
    assert ours["layouts"] == ref["layouts"]
    common = set(ours["meta"]) & set(ref["meta"])
    assert {k: ours["meta"][k] for k in common} == {k: ref["meta"][k] for k in common}


def test_every_dtype_in_c_and_fortran_order(tmp_path):
    files, expected = [], []
    for n, dtype in enumerate(DTYPES):
        a = array(dtype, (3, 4, 5), n)
        for order in "CF":
            path = tmp_path / f"{n:02d}_{dtype}_{order}.npy"
            np.save(path, np.asfortranarray(a) if order == "F" else a)
            files.append(str(path))
            expected.append(a)
    kwargs = {"files": files}
    ours = read("numpy", kwargs, 2, iterations=len(DTYPES))
    assert ours["error"] is None, ours["error"]
    for it, (batch,) in enumerate(ours["outputs"]):
        for i, a in enumerate(batch):
            np.testing.assert_array_equal(a, expected[2 * it + i])
            assert a.dtype == expected[2 * it + i].dtype and a.flags.c_contiguous
    assert_same_outputs(ours, read_dali("numpy", kwargs, 2, tmp_path, iterations=len(DTYPES)))


def make_tree(root):
    """Arrays whose single value names them, in the root, sub-folders and hidden places."""
    names = ["z.npy", ".dot.npy", "b/1.npy", "b/0.npy", "a/x.npy", ".h/h.npy", "a/skip.txt",
             "A.NPY", "a/deep/d.npy"]
    for k, name in enumerate(names):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        np.save(root / "tmp.npy", np.array([k], np.int32))
        (root / "tmp.npy").rename(root / name)
    return names


def values(result):
    return [[int(a[0]) for a in batch[0]] for batch in result["outputs"]]


def test_listing_order_and_the_three_ways_of_naming_files(tmp_path):
    data = tmp_path / "data"
    make_tree(data)
    (data / "list.txt").write_text("b/1.npy\n\na/x.npy\nz.npy\n")
    (tmp_path / "far.txt").write_text("data/b/0.npy\n")
    runs = [
        ("numpy", {"file_root": str(data)}, 6, 2),
        ("numpy", {"file_root": str(data), "file_filter": "*.NPY"}, 1, 1),
        ("numpy", {"file_root": str(data), "file_filter": "[xz0]*"}, 3, 1),
        ("numpy", {"file_root": str(data), "file_list": str(data / "list.txt")}, 3, 1),
        ("numpy", {"file_list": str(tmp_path / "far.txt")}, 1, 1),
        ("numpy", {"file_root": str(data), "files": ["b/0.npy", "z.npy"]}, 2, 1),
        ("numpy", {"files": [str(data / "a/x.npy")]}, 1, 1),
    ]
    refs = read_dali_all(runs, tmp_path)
    for run, ref in zip(runs, refs):
        ours = read(*run[:3], iterations=run[3])
        assert_same_outputs(ours, ref, str(run[1]))
    assert values(read(*runs[0][:3]))[0] == [1, 0, 5, 4, 3, 2]


@pytest.mark.parametrize("num_shards", [1, 3])
def test_sharded_order_equals_dali(tmp_path, num_shards):
    """Padded, every batch of two epochs equals DALI's; unpadded, DALI's next epoch goes on in
    the last batch (Sluice fills it from the start of the shard, as readers.file): the first
    epoch's samples are compared."""
    for k in range(10):
        np.save(tmp_path / f"{k:02d}.npy", np.array([k], np.int64))
    runs = [("numpy", {"file_root": str(tmp_path), "num_shards": num_shards, "shard_id": s,
                       "pad_last_batch": pad}, 3, 4 if num_shards == 1 else 3)
            for s in range(num_shards) for pad in (False, True)]
    for run, ref in zip(runs, read_dali_all(runs, tmp_path)):
        ours = read(*run[:3], iterations=run[3])
        if run[1]["pad_last_batch"]:
            assert_same_outputs(ours, ref, str(run[1]))
        else:
            n = ref["meta"]["epoch_size"] * (run[1]["shard_id"] + 1) // num_shards - \
                ref["meta"]["epoch_size"] * run[1]["shard_id"] // num_shards
            assert sum(values(ours), [])[:n] == sum(values(ref), [])[:n], run[1]


@pytest.mark.parametrize("shuffle", ["random_shuffle", "shuffle_after_epoch"])
def test_shuffled_epochs_hold_every_sample_once(tmp_path, shuffle):
    for k in range(12):
        np.save(tmp_path / f"{k:02d}.npy", np.array([k], np.int64))
    kwargs = {"file_root": str(tmp_path), shuffle: True}
    ours = read("numpy", kwargs, 4, iterations=9)
    epochs = [sum(values(ours)[3 * e:3 * e + 3], []) for e in range(3)]
    for e in epochs:
        assert sorted(e) == list(range(12))
    assert epochs[0] != list(range(12)) and epochs[0] != epochs[1]
    if shuffle == "shuffle_after_epoch":  # DALI's random_shuffle uses a buffer: not per epoch
        ref = read_dali("numpy", kwargs, 4, tmp_path, iterations=9)
        for e in range(3):
            assert sorted(sum(values(ref)[3 * e:3 * e + 3], [])) == list(range(12))


ROI_CASES = [
    {"roi_start": [1, 1, 1], "roi_end": [2, 3, 4]},
    {"roi_start": [1], "roi_axes": [2]},
    {"rel_roi_start": [0.5], "rel_roi_end": [0.9], "roi_axes": [1]},
    {"roi_start": [1, 1, 1], "roi_shape": [3, 3, 3], "out_of_bounds_policy": "pad",
     "fill_value": -7},
    {"roi_start": [-1, 1, 1], "roi_shape": [3, 3, 3], "out_of_bounds_policy": "trim_to_shape"},
    {"rel_roi_shape": [0.5, 0.5], "roi_axes": [0, 2]},
    {"rel_roi_start": [0.25, 0.1], "rel_roi_shape": [0.5, 0.7], "roi_axes": [-1, 0]},
    {"roi_start": [-2], "roi_axes": [0], "out_of_bounds_policy": "pad", "fill_value": 300.7},
    {"roi_start": [-2, 3], "roi_end": [1, 9], "roi_axes": [0, 2], "out_of_bounds_policy": "pad",
     "fill_value": 2.5},
    {"roi_start": [-7, 0, 0], "roi_end": [-5, 4, 5], "out_of_bounds_policy": "trim_to_shape"},
    {"rel_roi_start": [0.33, 0.33, 0.33], "rel_roi_end": [0.67, 0.67, 0.67]},
    {"roi_start": [0, 0, 0], "roi_end": [3, 4, 5]},
    {"roi_end": [1], "roi_axes": [0]},
]
ROI_ERRORS = [
    ({"roi_start": [1, 1, 1], "roi_shape": [3, 3, 3]},
     "Slice can't be placed out of bounds with current policy. Got: input_shape={3 x 4 x 5}, "
     "slice_anchor={1 x 1 x 1}, slice_shape={3 x 3 x 3}"),
    ({"roi_start": [1, 2], "roi_end": [0, 1], "roi_axes": [0, 1]},
     "end coordinates can't be before start coordinates. Got: start=1 end=0"),
    ({"roi_start": [7, 0, 0], "out_of_bounds_policy": "trim_to_shape"},
     "end coordinates can't be before start coordinates. Got: start=7 end=3"),
    ({"roi_start": [1, 2]},
     "Argument \"roi_start\" expected shape 3 but got 2 values, which can't be interpreted as "
     "the expected shape."),
    ({"roi_axes": [3], "roi_start": [0]},
     "Axis 3 out of range. Expected range is [-3, 2] for a 3D input"),
    ({"roi_start": [1, 1, 1], "rel_roi_start": [0.1, 0.1, 0.1]},
     "\"roi_start\" and \"rel_roi_start\" arguments are mutually exclusive"),
    ({"roi_end": [2, 2, 2], "roi_shape": [1, 1, 1]},
     "\"roi_end\", \"rel_roi_end\", \"roi_shape\", and \"rel_roi_shape\" arguments are mutually "
     "exclusive"),
    ({"roi_axes": [1, 1], "roi_start": [0, 1]}, "Axis index 1 occurs more than once"),
]


@pytest.mark.parametrize("dtype", ["int16", "uint8", "float16", "float64"])
def test_regions_of_interest_equal_dali(tmp_path, dtype):
    a = array(dtype, (3, 4, 5), 7)
    np.save(tmp_path / "c.npy", a)
    np.save(tmp_path / "f.npy", np.asfortranarray(a))
    runs = [("numpy", {"files": [str(tmp_path / n)], **case}, 1, 1)
            for case in ROI_CASES for n in ("c.npy", "f.npy")]
    runs += [("numpy", {"files": [str(tmp_path / "c.npy")], **case}, 1, 1)
             for case, _ in ROI_ERRORS]
    refs = read_dali_all(runs, tmp_path)
    for run, ref in zip(runs[:2 * len(ROI_CASES)], refs):
        assert_same_outputs(read(*run[:3]), ref, str(run[1]))
    for run, ref, (_, text) in zip(runs[2 * len(ROI_CASES):], refs[2 * len(ROI_CASES):],
                                   ROI_ERRORS):
        ours = read(*run[:3])
        assert ref["error"] and text in ref["error"][1], ref["error"]
        assert ours["error"] and text in ours["error"][1], (run[1], ours["error"])


def test_padding_values_convert_as_dali(tmp_path):
    runs = []
    for dtype in ("bool", "uint8", "int32", "float16"):
        np.save(tmp_path / f"{dtype}.npy", np.ones(2, dtype))
        runs += [("numpy", {"files": [str(tmp_path / f"{dtype}.npy")], "roi_start": [-1],
                            "roi_end": [3], "out_of_bounds_policy": "pad", "fill_value": v}, 1, 1)
                 for v in (0.3, -5.0, 0.5, 2.5, 1e9, 65519.0)]
    for run, ref in zip(runs, read_dali_all(runs, tmp_path)):
        assert_same_outputs(read(*run[:3]), ref, str(run[1]))


def test_a_region_reads_only_its_part_of_the_file(tmp_path):
    big = np.arange(256 * 256 * 16, dtype=np.float32).reshape(256, 256, 16)  # 4 MiB
    np.save(tmp_path / "big.npy", big)
    np.save(tmp_path / "bigf.npy", np.asfortranarray(big))

    def rchar():
        with open("/proc/self/io") as f:
            return int(next(line for line in f if line.startswith("rchar")).split()[1])

    for name in ("big.npy", "bigf.npy"):
        for roi in ({"roi_start": [100, 10, 0], "roi_shape": [8, 8, 16]},
                    {"roi_start": [0, 0, 2], "roi_shape": [4, 64, 3]}):
            before = rchar()
            out = read("numpy", {"files": [str(tmp_path / name)], **roi}, 1)
            used = rchar() - before
            s = [slice(a, a + n) for a, n in zip(roi["roi_start"], roi["roi_shape"])]
            np.testing.assert_array_equal(out["outputs"][0][0][0], big[tuple(s)])
            # The pipeline may read ahead a batch or two: still far below the file's 4 MiB.
            assert used < 1 << 20, f"{name} {roi}: read {used} bytes for a 4 MiB file"


def test_headers_cached_or_not_and_compatibility_arguments(tmp_path):
    for k in range(4):
        np.save(tmp_path / f"{k}.npy", np.full((2, k + 1), k, np.uint16))
    kwargs = {"file_root": str(tmp_path), "cache_header_information": True,
              "use_o_direct": True, "dont_use_mmap": True, "register_buffers": False}
    ours = read("numpy", kwargs, 2, iterations=4)
    assert_same_outputs(ours, read_dali("numpy", kwargs, 2, tmp_path, iterations=4))


def test_argument_errors_as_dali(tmp_path):
    np.save(tmp_path / "a.npy", np.zeros(3, np.float32))
    np.save(tmp_path / "b.npy", np.zeros((3, 1), np.float32))
    np.save(tmp_path / "c.npy", np.zeros(3, np.int8))
    root = str(tmp_path)
    cases = [
        ({"file_root": root, "random_shuffle": True, "shuffle_after_epoch": True},
         "shuffle_after_epoch and random_shuffle cannot be both true"),
        ({"file_root": root, "stick_to_shard": True, "shuffle_after_epoch": True},
         "shuffle_after_epoch and stick_to_shard cannot be both true"),
        ({"file_root": root, "use_o_direct": True},
         "Cannot use use_o_direct with ``dont_use_mmap=False``."),
        ({"file_root": root, "files": ["a.npy"], "file_list": root + "/l.txt"},
         "File paths can be provided through ``files`` or ``file_list`` but not both."),
        ({"files": [root + "/a.npy", root + "/b.npy"]},
         f"Inconsistent data: All samples in the batch must have the same number of dimensions. "
         f"Got \"{root}/a.npy\" with 1 dimensions and \"{root}/b.npy\" with 2 dimensions"),
        ({"files": [root + "/a.npy", root + "/c.npy"]},
         f"Inconsistent data: All samples in the batch must have the same data type. "
         f"Got \"{root}/a.npy\" with data type float and \"{root}/c.npy\" with data type int8"),
    ]
    assert_errors_as_dali("numpy", cases, 2, tmp_path)


def test_truncated_and_corrupt_files_name_the_file_and_the_fault(tmp_path):
    np.save(tmp_path / "ok.npy", np.arange(100, dtype=np.float64))
    raw = (tmp_path / "ok.npy").read_bytes()
    cases = {
        "cut.npy": (raw[:-10], ["truncated .npy file", "800 bytes of data after byte 128",
                                "ends at byte 918"]),
        "tiny.npy": (raw[:5], ["only 5 bytes"]),
        "text.npy": (b"hello world, not an array" * 4, ["magic string"]),
        "header.npy": (raw[:10] + raw[10:128].replace(b"'<f8'", b"'<c8'"),
                       ["unsupported data type '<c8'"]),
        "big_endian.npy": (raw.replace(b"'<f8'", b"'>f8'"), ["big-endian"]),
        "broken.npy": (raw.replace(b"'shape': (", b"'shape': [", 1), ["expected '(' starting",
                                                                     "at byte"]),
    }
    for name, (data, parts) in cases.items():
        (tmp_path / name).write_bytes(data)
        ours = read("numpy", {"files": [str(tmp_path / name)]}, 1)
        assert ours["error"] is not None, name
        for p in [name] + parts:
            assert p in ours["error"][1], (name, ours["error"][1])


def test_per_sample_regions_trimmed_lists_and_version_2_files(tmp_path):
    from sluice import fn, pipeline_def, types

    a = array("int16", (3, 4, 5), 1)
    np.save(tmp_path / "c.npy", a)
    np.save(tmp_path / "f.npy", np.asfortranarray(a))

    @pipeline_def(batch_size=2, num_threads=2, device_id=None, seed=4)
    def p():
        start = fn.random.uniform(range=[0, 2], dtype=types.INT32, shape=[3])
        files = [str(tmp_path / "c.npy"), str(tmp_path / "f.npy")]
        return (fn.readers.numpy(files=files, roi_start=start, roi_shape=[1, 2, 3]),
                fn.readers.numpy(files=files, roi_start=start), start)

    out, whole_end, start = p().run()
    for i in range(2):
        s = np.array(start.at(i))
        np.testing.assert_array_equal(np.array(out.at(i)),
                                      a[s[0]:s[0] + 1, s[1]:s[1] + 2, s[2]:s[2] + 3])
        np.testing.assert_array_equal(np.array(whole_end.at(i)), a[s[0]:, s[1]:, s[2]:])

    (tmp_path / "list.txt").write_text("  c.npy \r\n\n\tf.npy\n")
    ours = read("numpy", {"file_list": str(tmp_path / "list.txt")}, 2)
    for got in ours["outputs"][0][0]:
        np.testing.assert_array_equal(got, a)

    with open(tmp_path / "v2.npy", "wb") as f:
        np.lib.format.write_array(f, a, version=(2, 0))
    np.testing.assert_array_equal(read("numpy", {"files": [str(tmp_path / "v2.npy")]}, 1)
                                  ["outputs"][0][0][0], a)


def test_entries_leaving_the_root_are_refused_unless_allowed(tmp_path):
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    np.save(root / "in.npy", np.array([1]))
    np.save(tmp_path / "out.npy", np.array([2]))
    (root / "sub" / "link.npy").symlink_to(tmp_path / "out.npy")
    assert values(read("numpy", {"file_root": str(root)}, 1)) == [[1]]
    allowed = read("numpy", {"file_root": str(root), "allow_paths_outside_root": True}, 2)
    assert values(allowed) == [[1, 2]]
    refused = read("numpy", {"file_root": str(root), "files": ["../out.npy"]}, 1)
    assert refused["error"] and "../out.npy" in refused["error"][1]
    (root / "list.txt").write_text("sub/link.npy\n")
    refused = read("numpy", {"file_root": str(root), "file_list": str(root / "list.txt")}, 1)
    assert refused["error"] and "sub/link.npy" in refused["error"][1]


def test_random_padded_regions_equal_numpy(tmp_path):
    """Windows anywhere (inside, across the edges, outside) of 1- to 4-D arrays in both orders."""
    rng = np.random.default_rng(11)
    for case in range(24):
        shape = tuple(int(d) for d in rng.integers(1, 6, rng.integers(1, 5)))
        a = array("int32", shape, case)
        name = tmp_path / f"{case}.npy"
        np.save(name, np.asfortranarray(a) if case % 2 else a)
        start = [int(rng.integers(-3, d + 2)) for d in shape]
        size = [int(rng.integers(0, d + 4)) for d in shape]
        out = read("numpy", {"files": [str(name)], "roi_start": start, "roi_shape": size,
                             "out_of_bounds_policy": "pad", "fill_value": -1}, 1)
        expected = np.full(size, -1, np.int32)
        src = tuple(slice(max(s, 0), min(s + n, d)) for s, n, d in zip(start, size, shape))
        dst = tuple(slice(max(s, 0) - s, max(min(s + n, d) - s, max(s, 0) - s))
                    for s, n, d in zip(start, size, shape))
        if all(x.stop > x.start for x in src):
            expected[dst] = a[src]
        np.testing.assert_array_equal(out["outputs"][0][0][0], expected, err_msg=f"{start} {size}")
