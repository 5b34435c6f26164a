"""readers.numpy over s3:// against a real S3-compatible server (moto_server on 127.0.0.1, started
here): the same arrays, order and errors as from local files, for every way of naming files,
C and Fortran order, several dtypes, every form of region of interest, sharded and shuffled;
regions read as ranged GETs of their bytes; a batch's reads and those of the batches ahead in
flight together (more in test_s3_lookahead.py)."""

import gc
import pathlib
import re
import sys

import numpy as np
import pytest

from s3_server import Proxy, boto3_client

sys.path.insert(0, str(pathlib.Path(__file__).parent / "ops"))
from reader_reference import read  # noqa: E402
from test_readers_numpy import ROI_CASES, array, make_tree  # noqa: E402

BUCKET = "arrays"


def upload(server, root, prefix):
    s3 = boto3_client(server)
    for p in sorted(root.rglob("*")):
        if p.is_file():
            s3.put_object(Bucket=BUCKET, Key=f"{prefix}/{p.relative_to(root).as_posix()}",
                          Body=p.read_bytes())
    return f"s3://{BUCKET}/{prefix}"


def assert_same(remote, local, what=""):
    assert local["error"] is None, (what, local["error"])
    assert remote["error"] is None, (what, remote["error"])
    assert len(remote["outputs"]) == len(local["outputs"])
    for r_batch, l_batch in zip(remote["outputs"], local["outputs"]):
        for r_out, l_out in zip(r_batch, l_batch):
            assert len(r_out) == len(l_out)
            for r, l in zip(r_out, l_out):
                assert r.dtype == l.dtype and r.shape == l.shape, what
                np.testing.assert_array_equal(r, l, err_msg=str(what))
    assert remote["meta"] == local["meta"]


def arrays_tree(root, shape=(3, 4, 5)):
    """Each dtype in C then Fortran order (a batch of 2 shares the dtype); the relative names."""
    names = []
    for n, dtype in enumerate(["int16", "uint8", "float32", "float64", "bool"]):
        a = array(dtype, shape, n)
        for order in "CF":
            name = f"{n:02d}_{dtype}_{order}.npy"
            np.save(root / name, np.asfortranarray(a) if order == "F" else a)
            names.append(name)
    return names


@pytest.fixture
def arrays(endpoint, tmp_path):
    names = arrays_tree(tmp_path)
    return tmp_path, upload(endpoint, tmp_path, f"arr-{tmp_path.name}"), names


@pytest.mark.parametrize("roi", [None] + ROI_CASES)
def test_arrays_and_regions_as_from_disk(arrays, roi):
    local, remote, names = arrays
    kw = roi or {}
    assert_same(read("numpy", {"files": [f"{remote}/{n}" for n in names], **kw}, 2, 5),
                read("numpy", {"files": [str(local / n) for n in names], **kw}, 2, 5), roi)


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("roi", [None, {"roi_start": [1, 0, 2], "roi_shape": [2, 3, 2]}])
def test_sharded_and_shuffled_as_from_disk(endpoint, tmp_path, shuffle, roi):
    for k in range(11):
        np.save(tmp_path / f"{k:02d}.npy", array("int32", (4, 3, 6), k))
    remote = upload(endpoint, tmp_path, f"sh-{shuffle}-{roi is None}")
    for shard in range(3):
        kw = dict(num_shards=3, shard_id=shard, random_shuffle=shuffle, pad_last_batch=True,
                  **(roi or {}))
        assert_same(read("numpy", {"file_root": remote, **kw}, 2, 6),
                    read("numpy", {"file_root": str(tmp_path), **kw}, 2, 6), (shard, roi))


def test_listing_and_lists_as_from_disk(endpoint, tmp_path, monkeypatch):
    data = tmp_path / "data"
    make_tree(data)
    (data / "list.txt").write_text("b/1.npy\n\na/x.npy\nz.npy\n")
    remote = upload(endpoint, data, "tree")
    cases = [({"file_root": "{root}"}, 6),
             ({"file_root": "{root}", "file_filter": "*.NPY"}, 1),
             ({"file_root": "{root}", "file_filter": "[xz0]*"}, 3),
             ({"file_root": "{root}", "file_list": "{root}/list.txt"}, 3),
             ({"file_list": "{root}/list.txt"}, 3),
             ({"file_root": "{root}", "files": ["a/x.npy", "b/0.npy"]}, 2)]
    monkeypatch.setenv("SLUICE_S3_LIST_PAGE", "2")  # 9 keys: 5 pages
    def fill(kw, root):
        return {k: (x.format(root=root) if isinstance(x, str) else x) for k, x in kw.items()}

    for kw, n in cases:
        assert_same(read("numpy", fill(kw, remote), n), read("numpy", fill(kw, str(data)), n), kw)
    # A list kept locally naming objects, and objects named with file_root in object storage.
    (tmp_path / "far.txt").write_text(f"{remote}/b/0.npy\n{remote}/z.npy\n")
    assert_same(read("numpy", {"file_list": str(tmp_path / "far.txt")}, 2),
                read("numpy", {"files": [str(data / "b/0.npy"), str(data / "z.npy")]}, 2))


def test_per_sample_regions_padding_and_cached_headers(arrays):
    """Regions from an argument input differ per sample; a padded last batch reads a sample
    twice; cached headers skip the header's GET in the second epoch."""
    from sluice import fn, pipeline_def, types

    local, remote, names = arrays

    def run(prefix, **kw):
        @pipeline_def(batch_size=4, num_threads=2, device_id=None, seed=4)
        def p():
            start = fn.random.uniform(range=[-1, 3], dtype=types.INT32, shape=[3])
            files = [f"{prefix}/{n}" for n in (names[:2] * 3)[:5]]  # int16, C and F
            return (fn.readers.numpy(files=files, roi_start=start, roi_shape=[2, 2, 3],
                                     out_of_bounds_policy="pad", pad_last_batch=True, **kw),
                    fn.readers.numpy(files=files, pad_last_batch=True, **kw))

        pipe = p()
        pipe.build()
        return [[np.array(o.at(i)) for o in pipe.run() for i in range(4)] for _ in range(4)]

    for kw in ({}, {"cache_header_information": True}):
        got, want = run(remote, **kw), run(str(local), **kw)
        for g, w in zip(sum(got, []), sum(want, [])):
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)


def test_long_headers_take_a_second_range(endpoint, tmp_path):
    a = np.arange(60, dtype=np.int16).reshape(3, 4, 5)
    text = "{'descr': '<i2', 'fortran_order': False, 'shape': (3, 4, 5), }"
    text += " " * (6000 - 10 - len(text) - 1 + (-6000 % 64)) + "\n"
    raw = b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text.encode() + a.tobytes()
    (tmp_path / "long.npy").write_bytes(raw)
    remote = upload(endpoint, tmp_path, "long")
    for kw in ({}, {"roi_start": [1, 1, 1], "roi_end": [2, 3, 4]}):
        ours = read("numpy", {"files": [f"{remote}/long.npy"], **kw}, 1)
        assert_same(ours, read("numpy", {"files": [str(tmp_path / "long.npy")], **kw}, 1), kw)


@pytest.mark.parametrize("roi", [{}, {"roi_start": [10], "roi_shape": [20]}])
def test_errors_name_the_object_as_on_disk(endpoint, tmp_path, roi):
    np.save(tmp_path / "ok.npy", np.arange(100, dtype=np.float64))
    raw = (tmp_path / "ok.npy").read_bytes()
    np.save(tmp_path / "long.npy", np.arange(1000, dtype=np.float64))
    long_cut = (tmp_path / "long.npy").read_bytes()[:-10]  # longer than the header's range
    cases = {"cut.npy": raw[:-10], "long_cut.npy": long_cut, "tiny.npy": raw[:5], "empty.npy": b"",
             "text.npy": b"hello world, not an array" * 4,
             "big_endian.npy": raw.replace(b"'<f8'", b"'>f8'")}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
    remote = upload(endpoint, tmp_path, f"bad-{bool(roi)}")
    for name in cases:
        files = [f"{remote}/ok.npy", f"{remote}/{name}"]
        ours = read("numpy", {"files": files, **roi}, 2)
        disk = read("numpy", {"files": [str(tmp_path / "ok.npy"), str(tmp_path / name)], **roi}, 2)
        assert ours["error"] is not None and disk["error"] is not None, name
        assert ours["error"][0] == disk["error"][0], (ours["error"], disk["error"])
        assert ours["error"][1].replace(remote, str(tmp_path)) == disk["error"][1]
        assert f"{remote}/{name}" in ours["error"][1] and "sample 1" in ours["error"][1]
    ours = read("numpy", {"files": [f"{remote}/ok.npy", f"{remote}/nope.npy"], **roi}, 2)
    assert ours["error"][0] == "SluiceIOError", ours["error"]
    for part in (f"'{remote}/nope.npy'", "404", "NoSuchKey", "sample 1", "Reader"):
        assert part in ours["error"][1], (part, ours["error"][1])


def test_file_root_without_arrays_is_named(endpoint):
    ours = read("numpy", {"file_root": f"s3://{BUCKET}/nothing-here"}, 1)
    assert ours["error"][0] == "InvalidArgumentError"
    assert f"s3://{BUCKET}/nothing-here" in ours["error"][1]


class RangeProxy(Proxy):
    """The latency proxy, noting the byte range of each GET of an array (None: the whole)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.ranges = []

    def _decide(self, chunk):
        if chunk.startswith(b"GET ") and b".npy" in chunk.split(b"\r\n", 1)[0]:
            m = re.search(rb"\r\n[Rr]ange: bytes=(\d+)-(\d+)", chunk)
            with self._lock:
                self.ranges.append(None if m is None else (int(m[1]), int(m[2]) + 1 - int(m[1])))
        return super()._decide(chunk)


ROI = {"roi_start": [100, 10, 0], "roi_shape": [8, 8, 16]}


@pytest.mark.parametrize("roi", [{}, ROI, {**ROI, "cache_header_information": True}])
def test_round_trips_overlap_and_regions_are_ranges(endpoint, tmp_path, monkeypatch, roi):
    """Through 50 ms more per round trip, a batch's reads (6 objects) and those of the batches
    ahead are in flight together; a region of a 4 MiB array is a small ranged GET, not the array;
    cached headers are fetched once."""
    for k in range(12):
        np.save(tmp_path / f"{k:02d}.npy", np.full((256, 64, 32), k, np.float64))
    remote = upload(endpoint, tmp_path, f"lat-{len(roi)}")
    port = int(endpoint.rsplit(":", 1)[1])
    with RangeProxy(("127.0.0.1", port), delay_s=0.05) as proxy:
        monkeypatch.setenv("AWS_ENDPOINT_URL_S3", proxy.endpoint)
        gc.collect()
        ours = read("numpy", {"file_root": remote, **roi}, 6, 4)
        assert ours["error"] is None, ours["error"]
        for it, (batch,) in enumerate(ours["outputs"]):
            for i, a in enumerate(batch):
                assert a.shape == tuple(roi.get("roi_shape", (256, 64, 32)))
                assert (a == 6 * (it % 2) + i).all()
        assert proxy.max_in_flight >= 6, proxy.max_in_flight
        if not roi:
            assert set(proxy.ranges) == {None}  # one GET of each whole object
            return
        # The header's GET (4 KiB), then one range of the region's rows: [100, 10, 0] to
        # [107, 17, 15] spans (7 * 64 + 7) * 32 + 16 elements.
        headers = [r for r in proxy.ranges if r == (0, 4096)]
        data = [r for r in proxy.ranges if r != (0, 4096)]
        # Without the cache a header is read again once its object's read is no longer ahead.
        assert len(headers) == 12 if "cache_header_information" in roi else len(headers) > 12
        assert len(data) >= 24, proxy.ranges
        assert set(data) == {(128 + ((100 * 64 + 10) * 32) * 8, ((7 * 64 + 7) * 32 + 16) * 8)}
    gc.collect()


@pytest.mark.parametrize("faults", [{"drop_every": 4}, {"slow_down": 6}])
def test_dropped_connections_and_throttling_are_retried(arrays, endpoint, monkeypatch, faults):
    local, remote, names = arrays
    port = int(endpoint.rsplit(":", 1)[1])
    with Proxy(("127.0.0.1", port), **faults) as proxy:
        monkeypatch.setenv("AWS_ENDPOINT_URL_S3", proxy.endpoint)
        gc.collect()
        for kw in ({}, {"roi_start": [1, 1, 1], "roi_end": [2, 3, 4]}):
            assert_same(read("numpy", {"files": [f"{remote}/{n}" for n in names], **kw}, 2, 5),
                        read("numpy", {"files": [str(local / n) for n in names], **kw}, 2, 5))
        assert proxy.drops >= 5 or proxy.slowed == 6
    gc.collect()
