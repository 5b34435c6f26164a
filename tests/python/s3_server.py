"""A real S3-compatible server for tests (moto's standalone server on 127.0.0.1), and a TCP proxy
in front of it that adds latency, drops connections or answers 503 SlowDown."""

import contextlib
import gc
import os
import select
import shutil
import socket
import struct
import subprocess
import sys
import threading
import time

import pytest

ACCESS_KEY = "AKIAIOSFODNN7EXAMPLE"
SECRET_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


def _moto_command():
    exe = shutil.which("moto_server", path=os.path.dirname(sys.executable))
    if exe is None:
        pytest.skip("moto_server not found (pip install 'moto[server]'; "
                    "tools/setup.sh --tests installs it)")
    return exe


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def moto_server(env=None):
    """Starts moto_server on a free loopback port; yields its endpoint URL."""
    cmd = _moto_command()
    port = _free_port()
    proc = subprocess.Popen([cmd, "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, **(env or {})})
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.skip("moto_server did not start")
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def boto3_client(endpoint, access_key=ACCESS_KEY, secret_key=SECRET_KEY, service="s3"):
    boto3 = pytest.importorskip("boto3")
    return boto3.client(service, endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id=access_key, aws_secret_access_key=secret_key)


def use_endpoint(monkeypatch, endpoint, access_key=ACCESS_KEY, secret_key=SECRET_KEY):
    """Points Sluice's S3 client at `endpoint` through the AWS environment variables."""
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", endpoint)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", access_key)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", secret_key)
    monkeypatch.setenv("AWS_REGION", "us-east-1")


def serve_for_module(bucket=None):
    """The body of a module-scoped fixture: a moto server on loopback, with `bucket` made."""
    with moto_server() as endpoint:
        if bucket:
            boto3_client(endpoint).create_bucket(Bucket=bucket)
        yield endpoint


def sluice_endpoint(monkeypatch, endpoint):
    """The body of a test's fixture: Sluice's S3 client aimed at `endpoint`, 20 s timeouts; skips
    when this build of Sluice has no S3 support. The client reads the environment anew in each
    test, once the previous test's pipelines are gone."""
    from sluice import fn, pipeline_def

    use_endpoint(monkeypatch, endpoint)
    monkeypatch.setenv("SLUICE_S3_TIMEOUT_S", "20")

    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def probe():
        return fn.readers.file(files=["s3://no-bucket/key"])[0]

    try:
        pipe = probe()
        pipe.build()
        pipe.run()
    except Exception as e:  # noqa: BLE001 - only the missing library skips
        if "no S3 support" in str(e):
            pytest.skip("this build of Sluice has no S3 support (libcurl4-openssl-dev)")
    pipe = None
    gc.collect()
    yield endpoint
    gc.collect()


_SLOW_DOWN_BODY = (b"<?xml version=\"1.0\"?><Error><Code>SlowDown</Code><Message>Please reduce "
                   b"your request rate.</Message></Error>\n")
SLOW_DOWN = (b"HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nConnection: close\r\n"
             b"Content-Length: %d\r\n\r\n" % len(_SLOW_DOWN_BODY) + _SLOW_DOWN_BODY)


class Proxy:
    """A TCP proxy on 127.0.0.1 to `upstream` (host, port). Every request waits `delay_s` before
    it is forwarded (a round trip of that much more); `drop_every` = n closes every n-th request's
    connection with a reset instead of forwarding it; `slow_down` = n answers the next n requests
    503 SlowDown. Counts requests, drops and slow-downs, and the most requests it held in their
    delay at once (`max_in_flight`: how many round trips a reader overlapped); `lines` keeps each
    request's first line ("GET /bucket/key HTTP/1.1")."""

    def __init__(self, upstream, delay_s=0.0, drop_every=0, slow_down=0):
        self.upstream = upstream
        self.delay_s = delay_s
        self.drop_every = drop_every
        self.slow_down = slow_down
        self.requests = self.drops = self.slowed = 0
        self.lines = []
        self.in_flight = self.max_in_flight = 0
        self._lock = threading.Lock()
        self._sock = socket.socket()
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(1024)  # a thousand connections may open at once
        self.endpoint = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        self._stop = False
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self):
        self._stop = True
        self._sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _accept(self):
        while not self._stop:
            try:
                client, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _decide(self, chunk):
        """What to do with a chunk from the client: 'forward', 'drop' or 'slow'."""
        if not chunk.startswith((b"GET ", b"HEAD ", b"PUT ", b"POST ")):
            return "forward"
        with self._lock:
            self.requests += 1
            self.lines.append(chunk.split(b"\r\n", 1)[0].decode(errors="replace"))
            if self.slow_down > 0:
                self.slow_down -= 1
                self.slowed += 1
                return "slow"
            if self.drop_every and self.requests % self.drop_every == 0:
                self.drops += 1
                return "drop"
        return "forward"

    def _serve(self, client):
        try:
            server = socket.create_connection(self.upstream)
        except OSError:
            client.close()
            return
        # poll, not select: with a thousand connections through the proxy, descriptors pass
        # select's limit of 1024.
        by_fd = {client.fileno(): client, server.fileno(): server}
        poller = select.poll()
        for fd in by_fd:
            poller.register(fd, select.POLLIN)
        try:
            while not self._stop:
                readable = [by_fd[fd] for fd, _ in poller.poll(1000)]
                for s in readable:
                    chunk = s.recv(1 << 16)
                    if not chunk:
                        return
                    if s is server:
                        client.sendall(chunk)
                        continue
                    action = self._decide(chunk)
                    if action == "drop":
                        # A reset, as a crashed server or a middlebox gives.
                        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                          struct.pack("ii", 1, 0))
                        return
                    if action == "slow":
                        client.sendall(SLOW_DOWN)
                        return
                    if self.delay_s:
                        with self._lock:
                            self.in_flight += 1
                            self.max_in_flight = max(self.max_in_flight, self.in_flight)
                        time.sleep(self.delay_s)
                        with self._lock:
                            self.in_flight -= 1
                    server.sendall(chunk)
        except OSError:
            pass
        finally:
            client.close()
            server.close()
