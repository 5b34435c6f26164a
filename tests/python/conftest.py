import os
import pathlib
import signal
import time

import pytest

import sluice.backend
from sluice import fn, pipeline_def, types


def _shared_data():
    env = os.environ.get("SLUICE_TEST_DATA")
    if env:
        return pathlib.Path(env) if pathlib.Path(env).is_dir() else None
    p = pathlib.Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
    return p.resolve() if p.is_dir() else None


HAS_GPU = sluice.backend.cuda_device_count() > 0


def pytest_collection_modifyitems(config, items):
    if HAS_GPU:
        return
    skip = pytest.mark.skip(reason="needs a CUDA device")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


NO_SHARED_DATA = "../shared/data not found (set SLUICE_TEST_DATA)"


@pytest.fixture(scope="session")
def shared_data():
    """../shared/data (real photos, JPEG/PNG variants, bad files); skips when absent."""
    d = _shared_data()
    if d is None:
        pytest.skip(NO_SHARED_DATA)
    return d


def pytest_terminal_summary(terminalreporter):
    """One line for the tests that skipped for want of the image test data, and how to get it."""
    skipped = [r for r in terminalreporter.stats.get("skipped", [])
               if NO_SHARED_DATA in str(getattr(r, "longrepr", ""))]
    if skipped:
        terminalreporter.write_line(
            f"{len(skipped)} test{'s' if len(skipped) > 1 else ''} skipped for want of the image "
            "test data: put the data set at "
            "../shared/data next to the clone or set SLUICE_TEST_DATA (README.md, Tests)")


@pytest.fixture(scope="module")
def server(request):
    """A moto S3 server on loopback for the test module (s3_server.py), with the module's BUCKET
    made where it names one."""
    from s3_server import serve_for_module

    yield from serve_for_module(getattr(request.module, "BUCKET", None))


@pytest.fixture
def endpoint(server, monkeypatch):
    """Sluice's S3 client aimed at `server` for one test; skips without S3 support."""
    from s3_server import sluice_endpoint

    yield from sluice_endpoint(monkeypatch, server)


def sigint_as_default():
    """preexec_fn for a child a test interrupts with SIGINT: a suite started in the background
    (`bash tools/test.sh &`, nohup) inherits SIGINT ignored, and Python then never raises
    KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def native_threads():
    """Threads of this process (engine threads included)."""
    return len(os.listdir("/proc/self/task"))


def native_threads_settled(limit, timeout=2.0):
    """native_threads() once it is at most `limit`, or at `timeout`: a thread that was just
    joined can still be listed for a moment (see sluice_threads)."""
    deadline = time.monotonic() + timeout
    while native_threads() > limit and time.monotonic() < deadline:
        time.sleep(0.01)
    return native_threads()


def _sluice_thread_names():
    names = []
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/comm") as f:
                names.append(f.read().strip())
        except OSError:  # ended meanwhile
            pass
    return sorted(n for n in names if n.startswith("sluice-"))


def sluice_threads():
    """Names of this process's Sluice threads (workers "sluice-w<i>", stage threads). A thread
    that was just joined can still be listed for a moment (the kernel wakes the joiner before it
    removes the task), so this reads until two readings 10 ms apart agree."""
    names = _sluice_thread_names()
    for _ in range(100):
        time.sleep(0.01)
        again = _sluice_thread_names()
        if again == names:
            break
        names = again
    return names


# One-number text files read as batches: the iterator tests' data. reader_pipe is module level
# here so that ProcessIterator's spawned child can unpickle it.
def make_files(tmp_path, n):
    """n one-number text files, in one class folder: sample k's data is its number."""
    d = tmp_path / "c"
    d.mkdir()
    for k in range(1, n + 1):
        (d / f"{k:03d}.txt").write_text(f"{k:03d}")  # same length: dense batches
    return tmp_path


def reader_pipe(root, batch, shard_id=0, num_shards=1, pad=False, shuffle=False):
    @pipeline_def(batch_size=batch, num_threads=1, device_id=None, seed=3)
    def p():
        data, label = fn.readers.file(file_root=str(root), file_filters=["*.txt"], name="Reader",
                                      shard_id=shard_id, num_shards=num_shards,
                                      pad_last_batch=pad, random_shuffle=shuffle)
        return fn.cast(data, dtype=types.INT32), label  # the number's ASCII bytes

    return p()


def numbers(batch):
    """Sample values from the data tensor (ASCII digits, padded rows as repeated files)."""
    import torch

    data = batch[0]["data"]
    return [int(bytes(row[row > 0].to(torch.uint8).tolist()).decode()) for row in data]
