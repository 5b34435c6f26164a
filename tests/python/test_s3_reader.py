"""Readers over s3:// against a real S3-compatible server (moto_server on 127.0.0.1, started
here): readers.file gives the same samples, order and bytes as from disk; errors name the object;
dropped connections and throttling are retried; listing is paged; reading ahead hides latency.
readers.tfrecord, readers.mxnet and readers.webdataset read the same records as from disk."""

import gc
import random
import time

import numpy as np
import pytest

import s3_server
from s3_server import Proxy, boto3_client, moto_server, use_endpoint
from sluice import fn, pipeline_def

BUCKET = "data"


def make_tree(root, classes, per_class, seed=0):
    """Class folders of small random files; returns the relative names."""
    rng = random.Random(seed)
    names = []
    for c in classes:
        (root / c).mkdir(parents=True)
        for i in range(per_class):
            name = f"{c}/img_{i:03d}.jpg"
            (root / name).write_bytes(bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 300))))
            names.append(name)
    (root / "not_in_a_class.jpg").write_bytes(b"x")
    return names


_uploaded = {BUCKET}  # made with the server (conftest.py)


def upload(server, root, prefix, bucket=BUCKET):
    s3 = boto3_client(server)
    if bucket not in _uploaded:
        s3.create_bucket(Bucket=bucket)
        _uploaded.add(bucket)
    for p in sorted(root.rglob("*")):
        if p.is_file():
            s3.put_object(Bucket=bucket, Key=f"{prefix}/{p.relative_to(root).as_posix()}",
                          Body=p.read_bytes())


def read_all(batch_size=4, epochs=1, **kwargs):
    @pipeline_def(batch_size=batch_size, num_threads=2, device_id=None, seed=3)
    def p():
        return fn.readers.file(name="Reader", **kwargs)

    pipe = p()
    pipe.build()
    out = []
    for _ in range(epochs * pipe.reader_meta("Reader")["batches_per_epoch"]):
        data, label = pipe.run()
        out += [(bytes(np.asarray(data.at(i))), int(label.at(i)[0])) for i in range(len(data))]
    return out


@pytest.mark.parametrize("shuffle", [False, True])
def test_file_root_reads_as_from_disk(endpoint, tmp_path, shuffle):
    # "a-b" sorts before "a/" in key order but after "a" by class name: labels follow names.
    make_tree(tmp_path, ["a", "a-b", "b", "c"], 5)
    prefix = f"tree-{shuffle}"
    upload(endpoint, tmp_path, prefix)
    args = dict(batch_size=3, epochs=2, random_shuffle=shuffle)
    disk = read_all(file_root=str(tmp_path), **args)
    s3 = read_all(file_root=f"s3://{BUCKET}/{prefix}", **args)
    assert len(s3) == len(disk) == 42 and s3 == disk


def test_file_list_and_files(endpoint, tmp_path):
    names = make_tree(tmp_path, ["x", "y"], 4)
    (tmp_path / "list.txt").write_text("".join(f"{n} {i % 3}\n" for i, n in enumerate(names)))
    upload(endpoint, tmp_path, "manifest")
    disk = read_all(file_list=str(tmp_path / "list.txt"))
    assert read_all(file_list=f"s3://{BUCKET}/manifest/list.txt") == disk
    assert read_all(file_list=f"s3://{BUCKET}/manifest/list.txt",
                    file_root=f"s3://{BUCKET}/manifest") == disk
    files = [f"s3://{BUCKET}/manifest/{n}" for n in names]
    assert read_all(files=files) == read_all(files=[str(tmp_path / n) for n in names])
    assert read_all(files=names, file_root=f"s3://{BUCKET}/manifest/") == \
        read_all(files=names, file_root=str(tmp_path))


def test_paged_listing(endpoint, tmp_path, monkeypatch):
    make_tree(tmp_path, ["p", "q", "r"], 9)
    upload(endpoint, tmp_path, "paged")
    monkeypatch.setenv("SLUICE_S3_LIST_PAGE", "4")  # 28 keys: 7 pages
    assert read_all(file_root=f"s3://{BUCKET}/paged") == read_all(file_root=str(tmp_path))


def error_of(**kwargs):
    with pytest.raises(Exception) as e:
        read_all(**kwargs)
    return str(e.value)


def test_errors_name_the_object(endpoint, tmp_path):
    make_tree(tmp_path, ["k"], 2)
    upload(endpoint, tmp_path, "errs")
    msg = error_of(files=[f"s3://{BUCKET}/errs/k/img_000.jpg", f"s3://{BUCKET}/errs/k/nope.jpg"],
                   batch_size=2)
    assert f"s3://{BUCKET}/errs/k/nope.jpg" in msg and "404" in msg and "NoSuchKey" in msg
    msg = error_of(file_root="s3://no-such-bucket/x")
    assert "s3://no-such-bucket/x/" in msg and "NoSuchBucket" in msg
    msg = error_of(file_list=f"s3://{BUCKET}/errs/missing_list.txt")
    assert f"s3://{BUCKET}/errs/missing_list.txt" in msg and "NoSuchKey" in msg
    msg = error_of(file_root=f"s3://{BUCKET}/no_such_prefix")
    assert f"s3://{BUCKET}/no_such_prefix" in msg and "no objects" in msg


def test_bad_credentials_are_refused_and_named(endpoint, tmp_path, monkeypatch):
    # With authentication on (after the setup requests), moto checks SigV4 signatures: good keys
    # prove that curl's signing is accepted, bad ones must give a named 403.
    with moto_server(env={"INITIAL_NO_AUTH_ACTION_COUNT": "5"}) as ep:
        iam = boto3_client(ep, service="iam")
        iam.create_user(UserName="reader")
        key = iam.create_access_key(UserName="reader")["AccessKey"]
        iam.put_user_policy(UserName="reader", PolicyName="all", PolicyDocument=(
            '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*",'
            '"Resource":"*"}]}'))
        s3 = boto3_client(ep)
        s3.create_bucket(Bucket="auth")
        s3.put_object(Bucket="auth", Key="c/one.jpg", Body=b"one")
        use_endpoint(monkeypatch, ep, key["AccessKeyId"], key["SecretAccessKey"])
        assert read_all(file_root="s3://auth", batch_size=1) == [(b"one", 0)]
        gc.collect()
        use_endpoint(monkeypatch, ep, key["AccessKeyId"], "wrong-secret")
        msg = error_of(files=["s3://auth/c/one.jpg"], batch_size=1)
        assert "s3://auth/c/one.jpg" in msg and "403" in msg and "credentials" in msg
        gc.collect()


def test_profile_files(endpoint, tmp_path, monkeypatch):
    make_tree(tmp_path, ["k"], 2)
    upload(endpoint, tmp_path, "profile")
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_ENDPOINT_URL_S3", "AWS_REGION"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "credentials").write_text(
        f"[default]\naws_access_key_id = nope\n[test]\naws_access_key_id = {s3_server.ACCESS_KEY}\n"
        f"aws_secret_access_key = {s3_server.SECRET_KEY}\n")
    (tmp_path / "config").write_text(f"[profile test]\nregion = us-east-1\nendpoint_url = {endpoint}\n")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "config"))
    monkeypatch.setenv("AWS_PROFILE", "test")
    assert read_all(file_root=f"s3://{BUCKET}/profile") == read_all(file_root=str(tmp_path / ""))


def through_proxy(monkeypatch, endpoint, proxy):
    host, port = endpoint.rsplit(":", 1)
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", proxy.endpoint)
    gc.collect()


@pytest.fixture
def dataset(endpoint, tmp_path):
    make_tree(tmp_path, ["m", "n", "o"], 12)
    upload(endpoint, tmp_path, f"ds-{tmp_path.name}")
    return tmp_path, f"s3://{BUCKET}/ds-{tmp_path.name}"


def test_dropped_connections_are_retried(endpoint, dataset, monkeypatch):
    local, remote = dataset
    with Proxy(("127.0.0.1", int(endpoint.rsplit(":", 1)[1])), drop_every=4) as proxy:
        through_proxy(monkeypatch, endpoint, proxy)
        assert read_all(file_root=remote, batch_size=5) == read_all(file_root=str(local),
                                                                     batch_size=5)
        assert proxy.drops >= 5
    gc.collect()


def test_throttling_is_retried(endpoint, dataset, monkeypatch):
    local, remote = dataset
    with Proxy(("127.0.0.1", int(endpoint.rsplit(":", 1)[1])), slow_down=6) as proxy:
        through_proxy(monkeypatch, endpoint, proxy)
        assert read_all(file_root=remote, batch_size=5) == read_all(file_root=str(local),
                                                                     batch_size=5)
        assert proxy.slowed == 6
    gc.collect()


def test_a_silent_server_gives_an_error_not_a_hang(endpoint, monkeypatch):
    silent = __import__("socket").socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)  # accepts connections (the kernel does) and never answers
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", f"http://127.0.0.1:{silent.getsockname()[1]}")
    monkeypatch.setenv("SLUICE_S3_TIMEOUT_S", "0.5")
    monkeypatch.setenv("SLUICE_S3_MAX_ATTEMPTS", "2")
    start = time.monotonic()
    msg = error_of(files=[f"s3://{BUCKET}/any/key.jpg"], batch_size=1)
    assert time.monotonic() - start < 15
    assert f"s3://{BUCKET}/any/key.jpg" in msg and "2 attempts" in msg
    silent.close()
    gc.collect()


def test_read_ahead_hides_round_trips(endpoint, dataset, monkeypatch):
    """Through 50 ms more per round trip, the objects of a batch (6) and the next are requested
    together: at least a batch's worth of round trips overlap at the proxy (a count, not a time,
    so a slow machine does not fail it; bench/s3_latency.py measures the images/s)."""
    local, remote = dataset
    with Proxy(("127.0.0.1", int(endpoint.rsplit(":", 1)[1])), delay_s=0.05) as proxy:
        through_proxy(monkeypatch, endpoint, proxy)
        got = read_all(file_root=remote, batch_size=6)
        assert got == read_all(file_root=str(local), batch_size=6)
        assert proxy.requests >= 37
        assert proxy.max_in_flight >= 6, proxy.max_in_flight
    gc.collect()


def test_tfrecord_records_are_ranged_reads(endpoint, tmp_path):
    import pathlib
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).parent / "ops"))
    from record_writers import write_tfrecord
    from sluice import tfrecord as sltf

    spans = write_tfrecord(tmp_path / "d.tfrecord",
                           [{"a": [i, i + 1, i + 2], "s": [b"x" * i]} for i in range(11)])
    (tmp_path / "d.idx").write_text("".join(f"{o} {n}\n" for o, n in spans))
    upload(endpoint, tmp_path, "tfr")

    def run(path, index):
        @pipeline_def(batch_size=4, num_threads=2, device_id=None, seed=3)
        def p():
            o = fn.readers.tfrecord(path=path, index_path=index, random_shuffle=True, features={
                "a": sltf.FixedLenFeature([3], sltf.int64, 0),
                "s": sltf.FixedLenFeature([], sltf.string, "")})
            return o["a"], o["s"]

        pipe = p()
        pipe.build()
        out = []
        for _ in range(6):
            a, s = pipe.run()
            out += [(np.asarray(a.at(i)).tolist(), bytes(np.asarray(s.at(i))))
                    for i in range(len(a))]
        return out

    local = run(str(tmp_path / "d.tfrecord"), str(tmp_path / "d.idx"))
    assert run(f"s3://{BUCKET}/tfr/d.tfrecord", f"s3://{BUCKET}/tfr/d.idx") == local
    with pytest.raises(Exception) as e:
        run(f"s3://{BUCKET}/tfr/missing.tfrecord", str(tmp_path / "d.idx"))
    assert f"s3://{BUCKET}/tfr/missing.tfrecord" in str(e.value) and "404" in str(e.value)


def test_mxnet_records(endpoint, tmp_path):
    import pathlib
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).parent / "ops"))
    from record_writers import write_recordio

    write_recordio(tmp_path / "d.rec", tmp_path / "d.idx", [(i, b"r" * (i + 1)) for i in range(9)])
    upload(endpoint, tmp_path, "rec")

    def run(path, index):
        @pipeline_def(batch_size=4, num_threads=2, device_id=None, seed=3)
        def p():
            return tuple(fn.readers.mxnet(path=[path], index_path=[index], random_shuffle=True))

        pipe = p()
        pipe.build()
        out = []
        for _ in range(5):
            d, l = pipe.run()
            out += [(bytes(np.asarray(d.at(i))), np.asarray(l.at(i)).tolist())
                    for i in range(len(d))]
        return out

    local = run(str(tmp_path / "d.rec"), str(tmp_path / "d.idx"))
    assert run(f"s3://{BUCKET}/rec/d.rec", f"s3://{BUCKET}/rec/d.idx") == local


@pytest.mark.parametrize("with_index,delay_s", [(True, 0), (False, 0), (True, 0.05)])
def test_webdataset_shards(endpoint, tmp_path, monkeypatch, with_index, delay_s):
    import pathlib
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).parent / "ops"))
    from test_readers_webdataset import write_shards

    tars, idxs = write_shards(tmp_path, [5, 3, 6])
    upload(endpoint, tmp_path, f"wds-{with_index}-{delay_s}")

    def run(tars, idxs):
        @pipeline_def(batch_size=4, num_threads=2, device_id=None, seed=3)
        def p():
            kw = {"index_paths": idxs} if with_index else {}
            return tuple(fn.readers.webdataset(paths=tars, ext=["jpg;png;JPG", "cls"],
                                               missing_component_behavior="empty",
                                               random_shuffle=True, **kw))

        pipe = p()
        pipe.build()
        out = []
        for _ in range(8):
            outs = pipe.run()
            out += [tuple(bytes(np.asarray(o.at(i))) for o in outs) for i in range(len(outs[0]))]
        return out

    remote = [f"s3://{BUCKET}/wds-{with_index}-{delay_s}/{pathlib.Path(t).name}" for t in tars]
    remote_idx = [f"s3://{BUCKET}/wds-{with_index}-{delay_s}/{pathlib.Path(i).name}"
                  for i in idxs]
    local = run(tars, idxs)
    assert all(len(sample[0]) > 0 for sample in local)
    if not delay_s:
        assert run(remote, remote_idx) == local
        return
    # 32 samples of the 14 (25 members read, a ranged GET each, once while ahead: a sample of the
    # next epoch still ahead is not asked for again): with the next batches' members in flight,
    # several round trips overlap at the proxy (one at a time without reading ahead).
    port = int(endpoint.rsplit(":", 1)[1])
    with Proxy(("127.0.0.1", port), delay_s=delay_s) as proxy:
        through_proxy(monkeypatch, endpoint, proxy)
        assert run(remote, remote_idx) == local
    assert proxy.requests >= 25 and proxy.max_in_flight >= 4, (proxy.requests, proxy.max_in_flight)
    gc.collect()
