"""Many requests in flight against a real S3-compatible server (moto_server on 127.0.0.1, started
here): more than 256 small objects at once through the latency proxy, a server that throttles or
drops connections in the middle of a batch (the epoch completes, or fails naming the object when
the throttling outlasts the retries, never hangs), and teardown with hundreds of requests in
flight."""

import gc
import time

import pytest

from s3_server import Proxy
from test_s3_lookahead import BUCKET, build, make_objects, outputs, proxied, read

OBJECTS = 600
BATCH = 64


@pytest.fixture(scope="module")
def many(server, tmp_path_factory):
    """600 objects of up to 300 bytes."""
    root = tmp_path_factory.mktemp("many")
    names = make_objects(server, root, "many", OBJECTS)
    return root, f"s3://{BUCKET}/many", names


def epoch(root, **kwargs):
    return read(batch_size=BATCH, file_root=root, random_shuffle=True, **kwargs)


def test_more_than_256_requests_in_flight(endpoint, many, monkeypatch):
    """600 connections, 600 ms more per round trip (time for a loaded machine to start them all):
    the proxy holds more than 256 requests in its delay at once, and the epoch is that of disk."""
    local, remote, _ = many
    monkeypatch.setenv("SLUICE_S3_CONNECTIONS", str(OBJECTS))
    disk = epoch(str(local))
    with proxied(monkeypatch, endpoint, delay_s=0.6) as proxy:
        assert epoch(remote) == disk
        gc.collect()
    assert proxy.max_in_flight > 256, proxy.max_in_flight


class MidBatchFaults(Proxy):
    """The test proxy; from request `after` on, answers `slow` requests 503 SlowDown and drops
    every `drop_every`-th connection of the rest."""

    def __init__(self, upstream, after, slow, drop_every=0):
        super().__init__(upstream, drop_every=drop_every)
        self.after = after
        self.slow_left = slow

    def _decide(self, chunk):
        if chunk.startswith(b"GET "):
            with self._lock:
                if self.requests >= self.after and self.slow_left > 0:
                    self.requests += 1
                    self.slow_left -= 1
                    self.slowed += 1
                    return "slow"
                if self.requests < self.after:
                    self.requests += 1
                    return "forward"
        return super()._decide(chunk)


def faults(monkeypatch, endpoint, **kwargs):
    proxy = MidBatchFaults(("127.0.0.1", int(endpoint.rsplit(":", 1)[1])), **kwargs)
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", proxy.endpoint)
    gc.collect()
    return proxy


def test_throttling_and_drops_mid_batch_are_retried(endpoint, many, monkeypatch):
    """300 requests in flight; after the first 100, 200 answers of 503 SlowDown, then every 9th
    connection dropped: the epoch completes with every sample of disk."""
    local, remote, _ = many
    monkeypatch.setenv("SLUICE_S3_CONNECTIONS", "300")
    disk = epoch(str(local))
    with faults(monkeypatch, endpoint, after=100, slow=200, drop_every=9) as proxy:
        assert epoch(remote) == disk
        gc.collect()
    assert proxy.slowed == 200 and proxy.drops > 0, (proxy.slowed, proxy.drops)


def test_throttling_past_the_retries_names_the_object(endpoint, many, monkeypatch):
    """Throttling that outlasts the retries, from the middle of the second batch on: the first
    batch comes, then an error naming an object and the attempts, in seconds."""
    _, remote, _ = many
    monkeypatch.setenv("SLUICE_S3_CONNECTIONS", "300")
    monkeypatch.setenv("SLUICE_S3_MAX_ATTEMPTS", "3")
    with faults(monkeypatch, endpoint, after=BATCH + BATCH // 2, slow=10**9):
        pipe = build(batch_size=BATCH, file_root=remote, prefetch_queue_depth=1)
        start = time.monotonic()
        outputs(pipe, 1)
        with pytest.raises(Exception) as e:
            outputs(pipe, OBJECTS // BATCH)
        elapsed = time.monotonic() - start
        del pipe
        gc.collect()
    msg = str(e.value)
    assert f"cannot read 's3://{BUCKET}/many/" in msg and "503 SlowDown" in msg, msg
    assert "after 3 attempts" in msg, msg
    assert elapsed < 30, f"took {elapsed:.1f} s"


def test_teardown_with_hundreds_of_requests_in_flight(endpoint, many, monkeypatch):
    """Hundreds of requests held 2 s each by the proxy: deleting the pipeline returns at once."""
    _, remote, names = many
    monkeypatch.setenv("SLUICE_S3_CONNECTIONS", str(OBJECTS))
    with proxied(monkeypatch, endpoint, delay_s=2.0) as proxy:
        # A list of files: no listing to wait for.
        pipe = build(batch_size=BATCH, files=[f"{remote}/{n}" for n in names],
                     prefetch_queue_depth=1)
        outputs(pipe, 2)  # the second iteration reads the next batches ahead
        time.sleep(0.5)
        in_flight = proxy.in_flight
        start = time.monotonic()
        del pipe
        gc.collect()
        elapsed = time.monotonic() - start
    assert in_flight > 256, in_flight
    assert elapsed < 2.0, f"teardown took {elapsed:.1f} s with {in_flight} requests in flight"
