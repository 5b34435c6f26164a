"""fn.external_source with DALI's calling conventions: the kinds of source, cycle modes, epochs,
SampleInfo / BatchInfo, num_outputs, layouts as fed, dtype / ndim checks, no_copy, blocking,
repeat_last, pruning, and the iterator over a source that re-arms itself. The scenarios of
external_source_cases.py run here and on NVIDIA DALI 2.4; the results must be equal."""

import faulthandler
import json
import subprocess
import sys
import threading
import time
import types as pytypes

import numpy as np
import pytest

import external_source_cases as cases
import sluice
from dali_reference import dali_python
from sluice import fn, pipeline_def


@pytest.fixture(autouse=True)
def no_hang():
    """A test that hangs ends the run with a traceback instead of hanging it."""
    faulthandler.dump_traceback_later(120, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def sluice_lib():
    tensors = getattr(sluice, "tensors", None) or pytypes.SimpleNamespace(
        TensorListCPU=sluice._sluice.TensorListCPU)
    return pytypes.SimpleNamespace(fn=sluice.fn, ops=sluice.ops, types=sluice.types,
                                   pipeline_def=sluice.pipeline_def, Pipeline=sluice.Pipeline,
                                   tensors=tensors)


_dali_results = {}


def dali_results(names, tmp_path_factory):
    """The cases' results on DALI (one subprocess for all the names not yet run)."""
    python = dali_python()
    if python is None:
        pytest.skip("NVIDIA DALI not found: run ../shared/tools/dali-reference venv (or set "
                    "SLUICE_DALI_PYTHON)")
    missing = [n for n in names if n not in _dali_results]
    if missing:
        out = tmp_path_factory.mktemp("dali") / "cases.json"
        run = subprocess.run([str(python), cases.__file__, str(out), *missing],
                             capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, f"DALI failed:\n{run.stderr[-3000:]}"
        _dali_results.update(json.loads(out.read_text()))
    return {n: _dali_results[n] for n in names}


def compare(name, tmp_path_factory):
    ours = json.loads(json.dumps(getattr(cases, "case_" + name)(sluice_lib())))
    theirs = dali_results(cases.CASES, tmp_path_factory)[name]
    for key in theirs:
        assert ours[key] == theirs[key], f"{name}/{key}:\nSluice {ours[key]}\nDALI   {theirs[key]}"


@pytest.mark.parametrize("name", [n for n in cases.CASES if "parallel" not in n and "raises" not in n])
def test_same_as_dali(name, tmp_path_factory):
    compare(name, tmp_path_factory)


def test_which_iteration_raises_is_dalis(tmp_path_factory):
    compare("which_iteration_raises", tmp_path_factory)


# --- what DALI cannot show here (it needs a GPU for repeat_last) or shows by hanging -----------
def test_blocking_source_waits_for_data_fed_from_another_thread():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def p():
        return fn.external_source(name="x", blocking=True)

    pipe = p()
    pipe.build()

    def feed_later():
        time.sleep(0.3)
        pipe.feed_input("x", [np.full(2, 5, np.int16)] * 2)

    threading.Thread(target=feed_later).start()
    start = time.monotonic()
    out, = pipe.run()
    assert time.monotonic() - start >= 0.25
    assert np.array(out.at(1)).tolist() == [5, 5]


def test_repeat_last_reuses_the_last_fed_batch():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def p():
        return fn.external_source(name="x", repeat_last=True)

    pipe = p()
    pipe.feed_input("x", [np.full(1, 7, np.int32)] * 2)
    assert [np.array(pipe.run()[0].at(0)).tolist() for _ in range(3)] == [[7]] * 3
    pipe.feed_input("x", [np.full(1, 8, np.int32)] * 2)
    seen = [np.array(pipe.run()[0].at(0)).tolist() for _ in range(3)]
    assert seen[-1] == [8] and set(map(tuple, seen)) <= {(7,), (8,)}
    with pytest.raises(ValueError, match="repeat_last"):  # only for feed_input() sources
        fn.external_source(lambda: cases.b(1), repeat_last=True)


def test_no_copy_feeds_the_arrays_memory_and_keeps_it_alive():
    batch = np.arange(12, dtype=np.int32).reshape(3, 4)

    @pipeline_def(batch_size=3, num_threads=1, device_id=None, prefetch_queue_depth=1)
    def p(no_copy):
        return fn.external_source(lambda: batch, no_copy=no_copy)

    for no_copy in (True, False):
        out, = p(no_copy).run()
        view = np.asarray(out.as_tensor())
        assert (view.ctypes.data == batch.ctypes.data) == no_copy
        assert view.tolist() == batch.tolist()

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def temporaries():  # arrays that only the engine holds stay valid until it lets go
        return fn.external_source(lambda: [np.full(1000, 3, np.int64), np.full(1000, 4, np.int64)],
                                  no_copy=True)

    pipe = temporaries()
    for _ in range(5):
        out, = pipe.run()
        assert np.asarray(out.as_tensor())[:, ::999].tolist() == [[3, 3], [4, 4]]
    del pipe, out
    sluice._sluice.release_borrowed_feeds()


@pytest.mark.gpu
def test_no_copy_feeds_gpu_memory_without_copies():
    import torch

    batch = torch.arange(4 * 6, dtype=torch.int32, device="cuda").reshape(4, 6)

    @pipeline_def(batch_size=4, num_threads=1, device_id=0, prefetch_queue_depth=1)
    def p(no_copy):
        return fn.external_source(lambda: batch, device="gpu", no_copy=no_copy)

    for no_copy in (True, False):
        out, = p(no_copy).run()
        got = torch.from_dlpack(out.as_tensor())
        assert (got.data_ptr() == batch.data_ptr()) == no_copy
        assert torch.equal(got, batch)
    # Samples of different shapes given one by one are borrowed too (equal ones are gathered
    # into one batch, as on the CPU).
    samples = [batch[i, :i + 1].clone() for i in range(4)]

    @pipeline_def(batch_size=4, num_threads=1, device_id=0)
    def per_sample():
        return fn.external_source(lambda: samples, device="gpu", no_copy=True)

    out, = per_sample().run()
    assert [int(torch.from_dlpack(out[i]).data_ptr()) for i in range(4)] == \
        [s.data_ptr() for s in samples]
    sluice._sluice.release_borrowed_feeds()


def test_unused_outputs_of_a_source_are_not_fed():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def p():
        a, _ = fn.external_source(lambda: (cases.b(1), cases.b(2)), num_outputs=2)
        return a

    assert np.array(p().run()[0].at(0)).tolist() == [1, 1]


@pytest.mark.parametrize("auto_reset", [True, False])
def test_iterator_epochs_over_a_source_that_rearms_itself(auto_reset):
    torch = pytest.importorskip("torch")  # noqa: F841
    from sluice.plugin.pytorch import DALIGenericIterator

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def p():
        return fn.external_source(cases.Rearming(1))

    it = DALIGenericIterator(p(), ["x"], size=2, auto_reset=auto_reset)
    counts = []
    for _ in range(3):
        counts.append(sum(1 for _ in it))
        if not auto_reset:
            it.reset()
    assert counts == [1, 1, 1]


def test_feed_input_by_data_node_with_iter_setup_order():
    calls = []

    class P(sluice.Pipeline):
        def define_graph(self):
            self.src = fn.external_source(name="src")
            self.cb = fn.external_source(lambda: calls.append("source") or cases.b(1))
            return self.src, self.cb

        def iter_setup(self):  # after the sources ran, before their data is fed (as DALI)
            calls.append("iter_setup")
            self.feed_input(self.src, [np.zeros(1, np.uint8)] * 2)

    P(batch_size=2, num_threads=1, device_id=None, prefetch_queue_depth=1).run()
    assert calls[:2] == ["source", "iter_setup"]


def test_external_source_module_surface():
    assert sluice.types.SampleInfo is cases_sample_info() and sluice.types.BatchInfo is not None
    assert callable(sluice.pickling.pickle_by_value)
    with pytest.raises(TypeError):
        sluice.pickling.pickle_by_value(5)


def cases_sample_info():
    from sluice.external_source import SampleInfo

    return SampleInfo


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
