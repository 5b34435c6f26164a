"""readers.webdataset over s3:// shards reading several batches ahead, against a real
S3-compatible server (moto_server on 127.0.0.1, started here): two shuffled epochs through 50 ms
more per round trip are those of local disk, with the members of several batches at the proxy at
once; the connections and the default depth follow SLUICE_S3_CONNECTIONS; neighbours in a tar
share a GET; a tar that cannot be read is named when its batch comes, after the batches before
it."""

import gc
import pathlib
import sys

import numpy as np
import pytest

from s3_server import Proxy, boto3_client
from sluice import fn, pipeline_def

sys.path.insert(0, str(pathlib.Path(__file__).parent / "ops"))
from test_readers_webdataset import write_shards  # noqa: E402

BUCKET = "wds"


def make_shards(server, root, prefix, sizes):
    """Tar shards of `sizes` samples with their indexes, on disk under root and in the bucket
    under prefix; returns (local tars, local indexes, remote tars, remote indexes)."""
    tars, idxs = write_shards(root, sizes)
    s3 = boto3_client(server)
    remote = []
    for path in tars + idxs:
        name = pathlib.Path(path).name
        s3.put_object(Bucket=BUCKET, Key=f"{prefix}/{name}", Body=pathlib.Path(path).read_bytes())
        remote.append(f"s3://{BUCKET}/{prefix}/{name}")
    return tars, idxs, remote[:len(tars)], remote[len(tars):]


def build(paths, index_paths, batch_size=4, **kwargs):
    @pipeline_def(batch_size=batch_size, num_threads=2, device_id=None, seed=3)
    def p():
        return tuple(fn.readers.webdataset(paths=paths, index_paths=index_paths,
                                           ext=["jpg;png;JPG", "cls"], name="Reader",
                                           missing_component_behavior="empty", **kwargs))

    pipe = p()
    pipe.build()
    return pipe


def outputs(pipe, batches):
    out = []
    for _ in range(batches):
        outs = pipe.run()
        out += [tuple(bytes(np.asarray(o.at(i))) for o in outs) for i in range(len(outs[0]))]
    return out


def test_epochs_through_50_ms_are_those_of_disk(endpoint, tmp_path, monkeypatch):
    """38 samples of 1-2 members in batches of 4 (10 batches an epoch), 6 batches ahead: the
    proxy holds more than two batches' requests at once, and two shuffled epochs equal disk."""
    tars, idxs, rtars, ridxs = make_shards(endpoint, tmp_path, "epochs", [10, 7, 12, 9])
    monkeypatch.setenv("SLUICE_S3_LOOKAHEAD_BATCHES", "6")
    disk = outputs(build(tars, idxs, random_shuffle=True), 20)
    port = int(endpoint.rsplit(":", 1)[1])
    with Proxy(("127.0.0.1", port), delay_s=0.05) as proxy:
        monkeypatch.setenv("AWS_ENDPOINT_URL_S3", proxy.endpoint)
        gc.collect()
        pipe = build(rtars, ridxs, random_shuffle=True)
        got = outputs(pipe, 5)
        stats = pipe.executor_statistics()["Reader"]
        got += outputs(pipe, 15)
        del pipe
        gc.collect()
    assert got == disk
    assert stats["s3_batches_ahead"] == 6 and stats["s3_bytes_ahead"] > 0, stats
    assert proxy.max_in_flight > 16, proxy.max_in_flight


def test_the_default_depth_fills_the_connections(endpoint, tmp_path, monkeypatch):
    """SLUICE_S3_CONNECTIONS=12, batches of 2: 12 / 2 + 1 = 7 batches ahead (with the fixed 32
    connections of before, 17)."""
    _, _, rtars, ridxs = make_shards(endpoint, tmp_path, "depth", [20, 20])
    monkeypatch.setenv("SLUICE_S3_CONNECTIONS", "12")
    pipe = build(rtars, ridxs, batch_size=2)
    outputs(pipe, 3)
    assert pipe.executor_statistics()["Reader"]["s3_batches_ahead"] == 7
    del pipe
    gc.collect()


def test_neighbours_in_a_tar_share_a_get(endpoint, tmp_path, monkeypatch):
    """Two epochs of 38 samples (68 members taken) in batches of 8, the GETs of the tars counted at
    the proxy. Shuffled, a sample's members are one GET: no more GETs than samples read. Unshuffled,
    a tar's samples come in order and the look-ahead starts a batch's new samples together, so
    neighbours share a GET: about one a batch and tar."""
    tars, idxs, rtars, ridxs = make_shards(endpoint, tmp_path, "runs", [10, 7, 12, 9])
    port = int(endpoint.rsplit(":", 1)[1])
    tar_gets = {}
    for shuffle in (True, False):
        disk = outputs(build(tars, idxs, batch_size=8, random_shuffle=shuffle), 10)
        with Proxy(("127.0.0.1", port)) as proxy:
            monkeypatch.setenv("AWS_ENDPOINT_URL_S3", proxy.endpoint)
            pipe = build(rtars, ridxs, batch_size=8, random_shuffle=shuffle)
            got = outputs(pipe, 10)
            del pipe
            gc.collect()
        assert got == disk
        tar_gets[shuffle] = sum(line.startswith("GET ") and ".tar" in line
                                for line in proxy.lines)
    # 10 batches of 8 read (the last of each epoch filled): one GET a member would be about 140
    # (measured: 66 and 14).
    assert tar_gets[True] <= 80, tar_gets
    assert tar_gets[False] <= 10 + 2 * 4, tar_gets


def test_a_tar_that_cannot_be_read_is_named_when_its_batch_comes(endpoint, tmp_path,
                                                                 monkeypatch):
    """The third shard's tar is deleted once the pipeline is built: its samples are read ahead in
    vain, the two batches before it come, and its batch names it."""
    tars, idxs, rtars, ridxs = make_shards(endpoint, tmp_path, "gone", [4, 4, 4])
    monkeypatch.setenv("SLUICE_S3_LOOKAHEAD_BATCHES", "4")
    pipe = build(rtars, ridxs)
    boto3_client(endpoint).delete_object(Bucket=BUCKET, Key="gone/shard2.tar")
    assert outputs(pipe, 2) == outputs(build(tars, idxs), 2)
    with pytest.raises(Exception) as e:
        pipe.run()
    assert f"s3://{BUCKET}/gone/shard2.tar" in str(e.value), str(e.value)
    del pipe
    gc.collect()
