"""readers.file and readers.numpy over s3:// reading several batches ahead, against a real
S3-compatible server (moto_server on 127.0.0.1, started here): the samples are those of local disk
for sharded, shuffled, padded and stick_to_shard plans across epochs, whatever the depth; no
object is requested twice while it is ahead; the depth follows SLUICE_S3_LOOKAHEAD_BATCHES and
stops at the byte budget and fills the connections a low descriptor limit leaves; readers.numpy keeps several batches of arrays (whole, or regions of
cached headers) in flight; an object that cannot be read is named when its batch comes; teardown
and an iterator's load_state_dict() abandon the reads in flight; a checkpoint restored over s3://
resumes exactly."""

import gc
import hashlib
import os
import random
import resource
import time

import numpy as np
import pytest

from s3_server import Proxy, boto3_client
from sluice import fn, pipeline_def

BUCKET = "ahead"


def make_objects(server, root, prefix, count, size=(0, 300), seed=0):
    """`count` random files in two class folders, on disk under root and in the bucket under
    prefix; returns their relative names."""
    rng = random.Random(seed)
    s3 = boto3_client(server)
    names = []
    for i in range(count):
        name = f"c{i % 2}/{i:04d}.jpg"
        body = rng.randbytes(rng.randint(*size))
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(body)
        s3.put_object(Bucket=BUCKET, Key=f"{prefix}/{name}", Body=body)
        names.append(name)
    return names


def make_arrays(server, root, prefix, count, seed=0):
    """`count` 1-D uint8 arrays of 8 to 300 elements as .npy files, on disk under root and in the
    bucket under prefix."""
    rng = np.random.default_rng(seed)
    s3 = boto3_client(server)
    for i in range(count):
        np.save(root / f"{i:04d}.npy", rng.integers(0, 256, rng.integers(8, 300), np.uint8))
        s3.put_object(Bucket=BUCKET, Key=f"{prefix}/{i:04d}.npy",
                      Body=(root / f"{i:04d}.npy").read_bytes())


def build(batch_size=4, reader="file", **kwargs):
    @pipeline_def(batch_size=batch_size, num_threads=2, device_id=None, seed=3,
                  prefetch_queue_depth=kwargs.pop("prefetch_queue_depth", 2),
                  enable_checkpointing=kwargs.pop("enable_checkpointing", False),
                  checkpoint=kwargs.pop("checkpoint", None))
    def p():
        if reader == "numpy":
            return fn.readers.numpy(name="Reader", **kwargs)
        return fn.readers.file(name="Reader", **kwargs)

    pipe = p()
    pipe.build()
    return pipe


def outputs(pipe, batches):
    out = []
    for _ in range(batches):
        data, *label = pipe.run()
        out.append([(bytes(np.asarray(data.at(i))), int(label[0].at(i)[0]) if label else None)
                    for i in range(len(data))])
    return out


def read(batch_size=4, batches=None, epochs=1, **kwargs):
    pipe = build(batch_size, **kwargs)
    if batches is None:
        batches = epochs * pipe.reader_meta("Reader")["batches_per_epoch"]
    return outputs(pipe, batches)


class RecordingProxy(Proxy):
    """The test proxy, also keeping the path of every GET."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.gets = []

    def _decide(self, chunk):
        if chunk.startswith(b"GET "):
            with self._lock:
                self.gets.append(chunk.split(b" ", 2)[1].decode())
        return super()._decide(chunk)


def proxied(monkeypatch, server, **kwargs):
    proxy = RecordingProxy(("127.0.0.1", int(server.rsplit(":", 1)[1])), **kwargs)
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", proxy.endpoint)
    gc.collect()
    return proxy


@pytest.fixture(scope="module")
def small(server, tmp_path_factory):
    """23 objects of up to 300 bytes."""
    root = tmp_path_factory.mktemp("small")
    make_objects(server, root, "small", 23)
    return root, f"s3://{BUCKET}/small"


PLANS = [
    dict(),
    dict(random_shuffle=True),
    dict(random_shuffle=True, num_shards=3, shard_id=1),
    dict(random_shuffle=True, num_shards=3, shard_id=2, pad_last_batch=True),
    dict(num_shards=3, shard_id=0, stick_to_shard=True, pad_last_batch=True),
    dict(random_shuffle=True, num_shards=2, shard_id=1, stick_to_shard=True),
]


@pytest.mark.parametrize("plan", PLANS, ids=lambda p: "-".join(f"{k}={v}" for k, v in p.items())
                         or "plain")
def test_samples_are_those_of_disk_at_any_depth(endpoint, small, monkeypatch, plan):
    local, remote = small
    disk = read(file_root=str(local), epochs=3, **plan)
    for depth in ("1", "3", "40"):  # 40: past the end of the next epoch, where it stops
        monkeypatch.setenv("SLUICE_S3_LOOKAHEAD_BATCHES", depth)
        assert read(file_root=remote, epochs=3, **plan) == disk, f"{depth} batches ahead"
        gc.collect()


def test_no_object_is_requested_twice_while_ahead(endpoint, tmp_path, monkeypatch):
    make_objects(endpoint, tmp_path, "once", 64)
    monkeypatch.setenv("SLUICE_S3_LOOKAHEAD_BATCHES", "6")
    with proxied(monkeypatch, endpoint) as proxy:
        pipe = build(file_root=f"s3://{BUCKET}/once", random_shuffle=True)
        outputs(pipe, 5)  # 20 of 64 samples: the batches ahead stay in the first epoch
        stats = pipe.executor_statistics()["Reader"]
        del pipe
        gc.collect()
    assert stats["s3_batches_ahead"] == 6
    assert len(proxy.gets) == len(set(proxy.gets)) >= 20 + 4, "an object was requested twice"


def test_objects_shared_by_batches_are_requested_once(endpoint, tmp_path, monkeypatch):
    # 5 objects in batches of 4, the last padded: [0 1 2 3] [4 4 4 4] every epoch. With the next
    # epoch ahead, each batch reuses the reads of the batches before it that are still ahead.
    make_objects(endpoint, tmp_path, "shared", 5)
    args = dict(file_root=f"s3://{BUCKET}/shared", pad_last_batch=True, prefetch_queue_depth=1)
    counts = {}
    for depth in ("1", "8"):
        monkeypatch.setenv("SLUICE_S3_LOOKAHEAD_BATCHES", depth)
        with proxied(monkeypatch, endpoint) as proxy:
            assert read(**args, epochs=4) == read(**{**args, "file_root": str(tmp_path)},
                                                  epochs=4)
            gc.collect()
        counts[depth] = len(proxy.gets)
    # One batch ahead: every batch but the padded ones reads its objects anew (5 + 4 per epoch
    # and the first one ahead); far enough ahead, the five objects are read twice at most.
    assert counts["8"] <= 10 < counts["1"], counts


def test_the_depth_stops_at_the_byte_budget(endpoint, tmp_path, monkeypatch):
    # 64 KiB objects in batches of 4: a 1 MiB budget holds 4 batches ahead, not 12.
    make_objects(endpoint, tmp_path, "budget", 80, size=(65536, 65536))
    monkeypatch.setenv("SLUICE_S3_LOOKAHEAD_BATCHES", "12")
    monkeypatch.setenv("SLUICE_S3_LOOKAHEAD_MB", "1")
    pipe = build(file_root=f"s3://{BUCKET}/budget")
    seen = []
    for _ in range(4):
        pipe.run()
        seen.append(pipe.executor_statistics()["Reader"])
    assert all(s["s3_bytes_ahead"] <= 1 << 20 for s in seen), seen
    assert seen[-1]["s3_batches_ahead"] == 4, seen
    monkeypatch.delenv("SLUICE_S3_LOOKAHEAD_MB")
    del pipe
    gc.collect()
    pipe = build(file_root=f"s3://{BUCKET}/budget")
    for _ in range(3):
        pipe.run()
    assert pipe.executor_statistics()["Reader"]["s3_batches_ahead"] == 12


def test_more_round_trips_overlap_deeper(endpoint, tmp_path, monkeypatch):
    """Through 50 ms more per round trip, 6 batches of 4 ahead on 32 connections keep more than
    two batches' requests at the proxy at once (a count, not a time)."""
    make_objects(endpoint, tmp_path, "deep", 60)
    monkeypatch.setenv("SLUICE_S3_LOOKAHEAD_BATCHES", "6")
    with proxied(monkeypatch, endpoint, delay_s=0.05) as proxy:
        assert read(file_root=f"s3://{BUCKET}/deep", epochs=1) == read(
            file_root=str(tmp_path), epochs=1)
        gc.collect()
    assert proxy.max_in_flight > 8, proxy.max_in_flight


@pytest.mark.parametrize("reader", ["file", "numpy"])
def test_the_depth_fills_the_connections_the_descriptor_limit_leaves(endpoint, tmp_path,
                                                                      monkeypatch, reader):
    """1,024 connections asked for under a soft descriptor limit of 128 while the pipeline is
    built: the prefetcher gets 64, and the default depth fills those (64 / 16 + 1 = 5 batches of
    16), not the 1,024 asked for (65, held to the end of the next epoch: 13-14 here)."""
    (make_arrays if reader == "numpy" else make_objects)(endpoint, tmp_path, f"fd-{reader}", 160)
    monkeypatch.setenv("SLUICE_S3_CONNECTIONS", "1024")
    args = dict(batch_size=16, reader=reader, random_shuffle=True)
    disk = read(file_root=str(tmp_path), batches=6, **args)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if len(os.listdir("/proc/self/fd")) > 48 or soft < 128:
        pytest.skip("this process has too many descriptors open for a limit of 128")
    resource.setrlimit(resource.RLIMIT_NOFILE, (128, hard))
    try:
        pipe = build(file_root=f"s3://{BUCKET}/fd-{reader}", **args)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert outputs(pipe, 6) == disk
    assert pipe.executor_statistics()["Reader"]["s3_batches_ahead"] == 5
    del pipe
    gc.collect()


@pytest.mark.parametrize("roi", [{}, {"roi_start": [3], "roi_shape": [5],
                                        "cache_header_information": True}],
                         ids=["whole", "cached-region"])
def test_numpy_reads_several_batches_ahead(endpoint, tmp_path, monkeypatch, roi):
    """readers.numpy through 50 ms more per round trip, 6 batches of 4 ahead: more than two
    batches' requests at the proxy at once, the arrays of disk over two epochs (in the second,
    the regions of cached headers are read ahead too), no whole array requested twice while it is
    ahead."""
    make_arrays(endpoint, tmp_path, f"np{len(roi)}", 64)
    monkeypatch.setenv("SLUICE_S3_LOOKAHEAD_BATCHES", "6")
    args = dict(reader="numpy", random_shuffle=True, **roi)
    disk = read(file_root=str(tmp_path), epochs=2, **args)
    with proxied(monkeypatch, endpoint, delay_s=0.05) as proxy:
        pipe = build(file_root=f"s3://{BUCKET}/np{len(roi)}", **args)
        assert outputs(pipe, 5) == disk[:5]  # 20 of 64: the batches ahead stay in the epoch
        stats = pipe.executor_statistics()["Reader"]
        gets = list(proxy.gets)
        assert outputs(pipe, 27) == disk[5:]
        del pipe
        gc.collect()
    assert stats["s3_batches_ahead"] == 6 and stats["s3_bytes_ahead"] > 0, stats
    assert proxy.max_in_flight > 8, proxy.max_in_flight
    if not roi:
        assert len(gets) == len(set(gets)) >= 20 + 4, "an array was requested twice"


def test_an_object_that_cannot_be_read_is_named_when_its_batch_comes(endpoint, tmp_path,
                                                                     monkeypatch):
    names = make_objects(endpoint, tmp_path, "gone", 12)
    files = [f"s3://{BUCKET}/gone/{n}" for n in names]
    files[9] = f"s3://{BUCKET}/gone/missing.jpg"
    monkeypatch.setenv("SLUICE_S3_LOOKAHEAD_BATCHES", "6")
    pipe = build(batch_size=2, files=files)
    local = read(batch_size=2, batches=4, files=[str(tmp_path / n) for n in names])
    assert outputs(pipe, 4) == local  # requested ahead of the failing batch, read before it
    with pytest.raises(Exception) as e:
        pipe.run()
    msg = str(e.value)
    assert f"s3://{BUCKET}/gone/missing.jpg" in msg and "404" in msg and "NoSuchKey" in msg
    del pipe
    gc.collect()


@pytest.mark.parametrize("reader", ["file", "numpy"])
def test_teardown_abandons_the_reads_in_flight(endpoint, tmp_path, monkeypatch, reader):
    # 4 connections, 1 s per round trip, 8 batches of 4 ahead: draining them would take 8 s.
    make = make_arrays if reader == "numpy" else make_objects
    make(endpoint, tmp_path, f"teardown-{reader}", 48)
    monkeypatch.setenv("SLUICE_S3_LOOKAHEAD_BATCHES", "8")
    monkeypatch.setenv("SLUICE_S3_CONNECTIONS", "4")
    with proxied(monkeypatch, endpoint, delay_s=1.0) as proxy:
        pipe = build(file_root=f"s3://{BUCKET}/teardown-{reader}", reader=reader,
                     prefetch_queue_depth=1)
        outputs(pipe, 2)
        start = time.monotonic()
        del pipe
        gc.collect()
        elapsed = time.monotonic() - start
    assert elapsed < 3.0, f"teardown took {elapsed:.1f} s: it waited for the reads ahead"
    assert len(proxy.gets) < 24


def batch_hashes(pipe, n):
    return [hashlib.sha256(b"".join(b for b, _ in batch)).hexdigest()
            for batch in outputs(pipe, n)]


@pytest.fixture(scope="module")
def small_arrays(server, tmp_path_factory):
    """23 arrays of up to 300 bytes."""
    root = tmp_path_factory.mktemp("small_arrays")
    make_arrays(server, root, "small_arrays", 23)
    return root, f"s3://{BUCKET}/small_arrays"


@pytest.mark.parametrize("reader", ["file", "numpy"])
def test_a_checkpoint_resumes_exactly_over_s3(endpoint, small, small_arrays, monkeypatch,
                                              reader):
    _, remote = small_arrays if reader == "numpy" else small
    monkeypatch.setenv("SLUICE_S3_LOOKAHEAD_BATCHES", "5")
    args = dict(file_root=remote, reader=reader, random_shuffle=True, num_shards=2, shard_id=1,
                enable_checkpointing=True)
    reference = batch_hashes(build(**args), 12)
    for stop in (2, 3, 6, 7):  # mid-epoch, the epoch's last batch, the next epoch
        pipe = build(**args)
        assert batch_hashes(pipe, stop) == reference[:stop]
        cpt = pipe.checkpoint()
        del pipe
        gc.collect()
        resumed = build(**args, checkpoint=cpt)
        assert batch_hashes(resumed, 12 - stop) == reference[stop:], f"stopped after {stop}"
        del resumed
        gc.collect()


def test_load_state_dict_drops_the_reads_ahead(endpoint, small, monkeypatch):
    """An iterator's load_state_dict() restarts the pipeline at once, with 8 batches of reads
    ahead on 4 connections through 0.5 s round trips (draining them would take 4 s), and goes on
    exactly where the state says."""
    pytest.importorskip("torch")
    from sluice.plugin.pytorch import DALIGenericIterator, LastBatchPolicy

    _, remote = small
    monkeypatch.setenv("SLUICE_S3_LOOKAHEAD_BATCHES", "8")
    monkeypatch.setenv("SLUICE_S3_CONNECTIONS", "4")

    def iterator():
        @pipeline_def(batch_size=2, num_threads=2, device_id=None, seed=3,
                      enable_checkpointing=True)
        def p():
            _, label = fn.readers.file(file_root=remote, random_shuffle=True, name="Reader")
            return label  # the bytes are read (ahead) all the same

        return DALIGenericIterator(p(), ["label"], reader_name="Reader",
                                   last_batch_policy=LastBatchPolicy.PARTIAL)

    def labels(it, n):
        return [[int(v) for v in next(it)[0]["label"].reshape(-1)] for _ in range(n)]

    reference = labels(iterator(), 6)
    saved = iterator()
    assert labels(saved, 2) == reference[:2]
    state = saved.state_dict()
    del saved
    gc.collect()
    with proxied(monkeypatch, endpoint, delay_s=0.5):
        it = iterator()
        labels(it, 3)
        start = time.monotonic()
        it.load_state_dict(state)
        elapsed = time.monotonic() - start
        assert labels(it, 4) == reference[2:]
        del it
        gc.collect()
    assert elapsed < 2.5, f"load_state_dict took {elapsed:.1f} s: it waited for the reads ahead"
