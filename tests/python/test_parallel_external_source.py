"""Parallel external_source: outputs equal to DALI 2.4's with "fork" and "spawn", batches fed from
the workers' shared memory without copies, held outputs never overwritten, errors naming the
source and the sample, a dead worker reported at once, clean shutdown and no leaked shared memory
or processes (1,000 pipelines made and destroyed)."""

import faulthandler
import gc
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import external_source_cases as cases
from sluice import fn, pipeline_def
from test_external_source import compare


@pytest.fixture(autouse=True)
def no_hang():
    """A test that hangs ends the run with a traceback instead of hanging it."""
    faulthandler.dump_traceback_later(300, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_same_as_dali(method, tmp_path_factory):
    compare("parallel_" + method, tmp_path_factory)


def pipe_of(source, batch_size=4, workers=2, **kwargs):
    es = {k: kwargs.pop(k) for k in ("batch", "num_outputs", "prefetch_queue_depth") if k in kwargs}
    es.setdefault("batch", False)

    @pipeline_def(batch_size=batch_size, num_threads=1, device_id=None, py_num_workers=workers,
                  **kwargs)
    def p():
        return fn.external_source(source, parallel=True, **es)

    return p()


def square(info):
    return np.full((3, 4), info.idx_in_epoch ** 2, np.int32)


def memfd_ranges():
    """The address ranges of this process's mappings of the workers' chunks."""
    out = []
    with open("/proc/self/maps") as f:
        for line in f:
            if "memfd:sluice-es" in line:
                lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
                out.append((lo, hi))
    return out


def test_batches_come_from_shared_memory_without_copies():
    pipe = pipe_of(square, workers=1, prefetch_queue_depth=1)
    out, = pipe.run()
    data = np.asarray(out.as_tensor())  # one worker: the batch is one dense block
    assert data[:, 0, 0].tolist() == [0, 1, 4, 9]
    assert any(lo <= data.ctypes.data < hi for lo, hi in memfd_ranges())
    chunks = pipe.external_source_shm_statistics()["capacities"]
    assert chunks and all(c >= data.nbytes for c in chunks)


def test_held_outputs_are_never_overwritten_and_chunks_are_reused():
    pipe = pipe_of(square, workers=2, prefetch_queue_depth=2)
    out, = pipe.run()
    held = [np.asarray(out.at(i)) for i in range(4)]
    del out
    for _ in range(30):
        pipe.run()
    assert [int(h[0, 0]) for h in held] == [0, 1, 4, 9]
    # Chunks in use: the held ones, the pipeline's and the prefetched; no growth with the runs.
    assert len(pipe.external_source_shm_statistics()["capacities"]) <= 16


class Fails:
    def __call__(self, info):
        if info.idx_in_epoch == 6:
            raise ValueError("cannot read sample 6")
        return np.zeros(2, np.uint8)


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_a_worker_error_names_the_source_the_sample_and_keeps_the_cause(method):
    @pipeline_def(batch_size=4, num_threads=1, device_id=None, py_num_workers=2,
                  py_start_method=method, prefetch_queue_depth=1)
    def p():
        return fn.external_source(Fails(), batch=False, parallel=True, name="images")

    pipe = p()
    pipe.run()
    with pytest.raises(RuntimeError) as e:
        pipe.run()
    text = str(e.value)
    assert "'images'" in text and "idx_in_epoch=6" in text and "iteration=1" in text
    assert "cannot read sample 6" in text  # the worker's traceback
    assert isinstance(e.value.__cause__, ValueError)
    pipe.reset()  # a new epoch starts over
    assert np.asarray(pipe.run()[0].as_tensor()).shape == (4, 2)


def slow_after_first(info):
    if info.iteration >= 2:
        time.sleep(60)
    return np.zeros(1, np.int32)


def exits(info):
    if info.iteration >= 2 and info.idx_in_batch >= 2:  # in worker 1
        os._exit(3)
    return np.zeros(1, np.int32)


@pytest.mark.parametrize("how", ["killed", "exits"])
def test_a_dead_worker_is_an_error_within_two_seconds_never_a_hang(how):
    # The first run() feeds iterations 0 and 1 and has the workers compute iteration 2.
    pipe = pipe_of(slow_after_first if how == "killed" else exits, workers=2, prefetch_queue_depth=1)
    pipe.run()
    worker = pipe._feeder.pool.workers[1]
    if how == "killed":
        os.kill(worker.pid, signal.SIGKILL)
    start = time.monotonic()
    with pytest.raises(RuntimeError) as e:
        pipe.run()
    assert time.monotonic() - start < 2.0
    text = str(e.value)
    assert f"pid {worker.pid}" in text and "samples 10..11 of iteration 2" in text
    assert ("SIGKILL" if how == "killed" else "exit code 3") in text
    with pytest.raises(RuntimeError, match="exited unexpectedly"):
        pipe.run()  # the pipeline stays failed
    procs = [w.process for w in pipe._feeder.pool.workers]
    start = time.monotonic()
    del pipe
    gc.collect()
    assert time.monotonic() - start < 2.0 and not any(p.is_alive() for p in procs)


def test_a_peer_dying_with_messages_unread_closes_the_channel():
    # A Unix socket whose peer closes with data still unread resets the stream (ECONNRESET)
    # instead of ending it; a worker killed with a task in its buffer does exactly that.
    from sluice._parallel.channel import Channel, ChannelClosed

    ours, theirs = Channel.pair()
    ours.send("task never read")
    theirs.close()
    with pytest.raises(ChannelClosed):
        ours.recv()
    ours.close()


def shm_state():
    """This process's descriptors and shared-memory mappings. (/dev/shm is not counted: every
    process on the machine writes there, and Sluice's chunks are anonymous memory files.)"""
    return len(os.listdir("/proc/self/fd")), len(memfd_ranges())


def test_no_leaked_shared_memory_or_workers_after_1000_pipelines():
    import multiprocessing

    gc.collect()
    before = shm_state()
    start = time.monotonic()
    for i in range(1000):
        pipe = pipe_of(square, batch_size=2, workers=1)
        out, = pipe.run()
        assert int(np.asarray(out.at(1))[0, 0]) == 1
        del pipe, out
    gc.collect()
    assert shm_state() == before, "file descriptors, chunk mappings"
    deadline = time.monotonic() + 5
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not multiprocessing.active_children()
    print(f"1000 pipelines with a worker in {time.monotonic() - start:.1f} s")


def test_workers_exit_when_the_pipeline_process_is_killed(tmp_path):
    script = textwrap.dedent("""
        import sys, time, numpy as np
        sys.path.insert(0, sys.argv[1])
        from test_parallel_external_source import pipe_of, square
        pipe = pipe_of(square, workers=3)
        pipe.run()
        print(" ".join(str(w.pid) for w in pipe._feeder.pool.workers), flush=True)
        time.sleep(60)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script, os.path.dirname(__file__)],
                            stdout=subprocess.PIPE, text=True)
    pids = [int(p) for p in proc.stdout.readline().split()]
    assert len(pids) == 3
    proc.kill()
    proc.wait(timeout=10)
    deadline = time.monotonic() + 5
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(p) for p in pids)


def test_a_worker_leaves_the_pipelines_it_inherited_to_the_parent(tmp_path):
    # A pipeline the parent dropped but has not collected yet (it is in a reference cycle) is in
    # every forked worker's memory too. When the worker's garbage collector meets its copy, the
    # copy must not be closed there: its threads are the parent's, and closing it waited for them
    # forever, the worker's batch with it.
    script = textwrap.dedent("""
        import gc, sys, numpy as np
        sys.path.insert(0, sys.argv[1])
        from sluice import fn, pipeline_def
        from test_parallel_external_source import pipe_of

        @pipeline_def(batch_size=2, num_threads=2, device_id=None)
        def plain():
            return fn.external_source(lambda: [np.zeros(3, np.uint8)] * 2)

        gc.disable()
        other = plain()
        other.build()
        other.run()
        other.cycle = other
        del other  # garbage that only the collector frees

        def collecting(info):
            gc.collect()  # in the worker: its copy of `other` is freed here
            return np.full(2, info.idx_in_epoch, np.int32)

        pipe = pipe_of(collecting, py_start_method="fork")
        print([int(np.asarray(s)[0]) for _ in range(3) for s in pipe.run()[0]], flush=True)
    """)
    out = subprocess.run([sys.executable, "-c", script, os.path.dirname(__file__)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[0] == str(list(range(12)))


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


class StandardPickle:
    dumps = staticmethod(pickle.dumps)
    loads = staticmethod(pickle.loads)


def test_spawn_pickles_lambdas_and_local_functions_or_uses_the_given_pickler():
    offset = 10

    def local(info):
        return np.full(2, info.idx_in_epoch + offset, np.int64)

    for source, pickler, expected in (
            (lambda info: np.full(2, info.idx_in_batch, np.int64), None, [0, 1, 2]),
            (local, None, [10, 11, 12]),
            (square, (StandardPickle, {"protocol": 4}, {}), [0, 1, 4])):
        pipe = pipe_of(source, batch_size=3, py_start_method="spawn", py_callback_pickler=pickler)
        out = np.asarray(pipe.run()[0].as_tensor())
        assert out.reshape(3, -1)[:, 0].tolist() == expected
    with pytest.raises(ValueError, match="py_callback_pickler"):
        pipe_of(square, py_start_method="spawn", py_callback_pickler=object()).build()


def test_start_py_workers_before_build_and_shutdown_with_the_pipeline():
    pipe = pipe_of(square, workers=3)
    pipe.start_py_workers()
    assert pipe._backend is None
    procs = [w.process for w in pipe._feeder.pool.workers]
    assert len(procs) == 3 and all(p.is_alive() for p in procs)
    with pytest.raises(RuntimeError, match="define_graph"):
        pipe.build(define_graph=lambda: None)
    assert np.asarray(pipe.run()[0].as_tensor())[:, 0, 0].tolist() == [0, 1, 4, 9]
    start = time.monotonic()
    del pipe
    gc.collect()
    assert not any(p.is_alive() for p in procs) and time.monotonic() - start < 2.0


def test_more_workers_than_samples_and_prefetching_ahead():
    calls = []
    pipe = pipe_of(square, batch_size=3, workers=8, prefetch_queue_depth=3)
    for it in range(3):
        out = np.asarray(pipe.run()[0].as_tensor())
        calls.append(out[:, 0, 0].tolist())
    assert calls == [[0, 1, 4], [9, 16, 25], [36, 49, 64]]
