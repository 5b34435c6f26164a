"""python_function and dl_tensor_python_function against NVIDIA DALI 2.4: per-sample and batch
calls, several inputs and outputs, output layouts, the dtypes and shapes of what the function
returns, the results DALI refuses; the function's exceptions (named function, operator,
iteration and sample, original cause kept) in every executor mode; pipelines deleted with calls
in flight. torch_python_function (DALI's venv has no torch) against the same computation in
numpy. GPU cases against the CPU ones."""

import gc
import threading
import time

import numpy as np
import pytest

from api_reference import assert_same, attempt, run_cases, run_dali_cases
from dali_reference import run_dali, run_sluice
from sluice import SluiceError, fn, pipeline_def


def _batch(rng, n=3, dtype=np.int16):
    return [rng.integers(-50, 50, size=(2 + i, 3)).astype(dtype) for i in range(n)]


def per_sample_graph(fn, types, x, y):
    return tuple(fn.python_function(
        x, y, function=lambda a, b: (a + b, (a * b).astype(np.float32).T, np.array(a.sum())),
        num_outputs=3, output_layouts=["AB", "CD"]))


def batch_graph(fn, types, x, y):
    def f(xs, ys):
        return ([a - b for a, b in zip(xs, ys)], [a[:1].astype(np.float64) for a in xs])

    return tuple(fn.python_function(x, y, function=f, num_outputs=2, batch_processing=True,
                                    output_layouts="XY"))


def dtypes_graph(fn, types, x, y):
    return (fn.python_function(x, function=lambda a: a > 0),
            fn.python_function(x, function=lambda a: a.astype(np.float16)),
            fn.python_function(x, function=lambda a: a.astype(np.uint64)[::2]),
            fn.python_function(x, function=lambda a: np.zeros((0, 3), np.uint8)),
            fn.python_function(x, function=lambda a: (a[0],)),
            fn.python_function(function=lambda: np.array([1.5, 2.5])),
            fn.python_function(function=lambda: [np.array(7, np.int32)] * 3, batch_processing=True),
            fn.python_function(x, function=lambda a: a, output_layouts=("HW",)))


def dlpack_graph(fn, types, x, y):
    return (fn.dl_tensor_python_function(x, function=lambda batch: batch),
            fn.dl_tensor_python_function(x, y, function=lambda a, b: (b, a), num_outputs=2,
                                         batch_processing=False, output_layouts=["PQ", "RS"])[1])


@pytest.mark.parametrize("graph", [per_sample_graph, batch_graph, dtypes_graph, dlpack_graph])
def test_equals_dali(graph, tmp_path):
    rng = np.random.default_rng(7)
    x, y = _batch(rng), _batch(rng)
    if graph is dlpack_graph:
        y = [a[:1, :2].astype(np.float32) for a in y]
    ours, our_layouts = run_sluice(graph, [x, y], ["HW", "HW"], with_layouts=True)
    ref, ref_layouts = run_dali(graph, [x, y], tmp_path, ["HW", "HW"], with_layouts=True)
    assert our_layouts == ref_layouts
    assert len(ours) == len(ref)
    for k, (o, r) in enumerate(zip(ours, ref)):
        for a, b in zip(o, r):
            assert a.dtype == b.dtype and a.shape == b.shape, f"output {k}"
            np.testing.assert_array_equal(a, b, err_msg=f"output {k}")


def too_many_outputs_graph(fn, types, x):
    return fn.python_function(x, function=lambda a: (a, a), num_outputs=3)


def list_for_tuple_graph(fn, types, x):
    return tuple(fn.python_function(x, function=lambda a: [a, a], num_outputs=2))


def returns_list_graph(fn, types, x):
    return fn.python_function(x, function=lambda a: [1, 2, 3])


def returns_scalar_graph(fn, types, x):
    return fn.python_function(x, function=lambda a: a.sum())


def returns_none_graph(fn, types, x):
    return fn.python_function(x, function=lambda a: None)


def mixed_dtypes_graph(fn, types, x):
    return fn.python_function(x, function=lambda a: a if a.shape[0] == 2 else a.astype(np.float32))


def mixed_ndim_graph(fn, types, x):
    return fn.python_function(x, function=lambda a: a if a.shape[0] == 2 else a[0])


def short_batch_graph(fn, types, x):
    return fn.python_function(x, function=lambda b: b[:2], batch_processing=True)


def batch_as_array_graph(fn, types, x):
    return fn.python_function(x, function=lambda b: np.stack([s[:2] for s in b]),
                              batch_processing=True)


def long_layouts_graph(fn, types, x):
    return tuple(fn.python_function(x, function=lambda a: (a, a), num_outputs=2,
                                    output_layouts=["AB", "CD", "EF"]))


def bad_layout_graph(fn, types, x):
    return fn.python_function(x, function=lambda a: a, output_layouts="ABC")


def strings_graph(fn, types, x):
    return fn.python_function(x, function=lambda a: np.array(["a"]))


def dlpack_returns_numpy_graph(fn, types, x):
    return fn.dl_tensor_python_function(x, function=lambda b: [np.ones(2)] * len(b))


def test_refuses_what_dali_refuses(tmp_path):
    x = _batch(np.random.default_rng(3))
    for graph, message in ((too_many_outputs_graph, "got 2, expected 3"),
                           (list_for_tuple_graph, "must be a tuple, got: list"),
                           (returns_list_graph, "must return numpy arrays, got list"),
                           (returns_scalar_graph, "must return numpy arrays, got int64"),
                           (returns_none_graph, "returned None and 1 output"),
                           (mixed_dtypes_graph, "one data type"),
                           (mixed_ndim_graph, "same number of dimensions"),
                           (short_batch_graph, "has 2 samples; the batch has 3"),
                           (batch_as_array_graph, "must be a list of samples"),
                           (long_layouts_graph, r"output_layouts`` \(=3\) is greater"),
                           (bad_layout_graph, "'ABC' is not valid for 2-dimensional"),
                           (strings_graph, "cannot hold"),
                           (dlpack_returns_numpy_graph, "must return DLPack capsules")):
        with pytest.raises(AssertionError, match="DALI failed"):
            run_dali(graph, [x], tmp_path, ["HW"])
        with pytest.raises(SluiceError, match=message):
            run_sluice(graph, [x], ["HW"])


def case_python_function_errors(dali):
    """The exception classes DALI raises, at definition, build and run time."""
    fn = dali.fn

    def run(function, n=1, **kwargs):
        @dali.pipeline_def(batch_size=2, num_threads=1, device_id=None)
        def pipe():
            x = fn.external_source(lambda: [np.ones((2, 2), np.uint8)] * 2)
            out = fn.python_function(x, function=function, num_outputs=n, **kwargs)
            return tuple(out) if isinstance(out, list) else out

        p = pipe()
        p.build()
        return [(np.array(o.at(0)), o.layout()) for o in p.run()]

    def boom(a):
        raise KeyError("boom")

    @dali.pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def not_a_node():
        return fn.python_function(np.zeros(2, np.float32), function=lambda a: a + 1)

    return {
        "ok": run(lambda a: (a, a * 2), 2, output_layouts="XY"),
        "function_raises": attempt(lambda: run(boom)),
        "too_few": attempt(lambda: run(lambda a: (a,), 2)),
        "list_for_tuple": attempt(lambda: run(lambda a: [a, a], 2)),
        "not_array": attempt(lambda: run(lambda a: 3)),
        "long_layouts": attempt(lambda: run(lambda a: a, output_layouts=["XY", "Z"])),
        "bad_layout": attempt(lambda: run(lambda a: a, output_layouts="XYZ")),
        "constant_input": attempt(lambda: [np.array(o.at(1)) for o in not_a_node().run()]),
        "no_pipeline": attempt(lambda: fn.python_function(function=lambda: np.zeros(1))),
        "missing_function": attempt(lambda: fn.python_function()),
    }


def test_exception_classes_match_dali(tmp_path):
    case = case_python_function_errors
    assert_same(run_cases([case])[case.__name__],
                run_dali_cases([case], tmp_path)[case.__name__], case.__name__)


def _pipe(function, batch=3, **kwargs):
    op_kwargs = {k: kwargs.pop(k) for k in ("batch_processing", "num_outputs", "name")
                 if k in kwargs}

    @pipeline_def(batch_size=batch, num_threads=2, device_id=None, **kwargs)
    def p():
        x = fn.external_source(lambda info: np.array([info.iteration, info.idx_in_batch], np.int32),
                               batch=False)
        return fn.python_function(x, function=function, **op_kwargs), x

    return p()


class Boom(ValueError):
    pass


@pytest.mark.parametrize("exec_async,exec_pipelined",
                         [(True, True), (False, False), (True, False), (False, True)])
@pytest.mark.parametrize("batch_processing", [False, True])
def test_an_exception_names_function_operator_and_sample(exec_async, exec_pipelined,
                                                         batch_processing):
    def explode(a):
        first = a[0] if batch_processing else a
        if first[0] == 1 and first[1] == (0 if batch_processing else 1):
            raise Boom("no good")
        return a

    pipe = _pipe(explode, exec_async=exec_async, exec_pipelined=exec_pipelined,
                 batch_processing=batch_processing, name="my_op")
    with pytest.raises(SluiceError) as info:
        for _ in range(3):
            pipe.run()
    msg = str(info.value)
    assert "my_op" in msg and "iteration 1" in msg and "explode" in msg and "no good" in msg
    assert ("on the batch" if batch_processing else "on sample 1") in msg
    assert isinstance(info.value.__cause__, Boom)
    assert info.value.__cause__.__traceback__ is not None


class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no words")


def test_an_exception_that_cannot_be_printed_is_still_an_error():
    def mute(a):
        raise Unprintable()

    with pytest.raises(SluiceError, match="no words") as info:
        _pipe(mute).run()
    assert isinstance(info.value.__cause__.__context__, Unprintable)


def test_the_pipeline_runs_again_after_reset():
    def flaky(a):
        flaky.calls += 1
        if flaky.calls == 4:  # iteration 1, sample 0
            raise Boom("once")
        return a * 2

    flaky.calls = 0
    pipe = _pipe(flaky, prefetch_queue_depth=1)
    pipe.run()
    with pytest.raises(SluiceError, match="once"):
        pipe.run()
    pipe.reset()
    out, x = pipe.run()
    np.testing.assert_array_equal(np.asarray(out.at(0)), np.asarray(x.at(0)) * 2)


def test_inputs_are_read_only():
    """DALI hands writable views of its buffers (an in-place change shows in the other
    consumers of the input); Sluice's are read-only, so the change is an error naming the
    function."""
    def in_place(a):
        a += 1
        return a

    with pytest.raises(SluiceError, match="in_place.*read-only") as info:
        _pipe(in_place).run()
    assert isinstance(info.value.__cause__, ValueError)


def test_an_unused_function_still_runs_as_in_dali():
    calls = []

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def p():
        x = fn.external_source(lambda: [np.zeros(2, np.uint8)] * 2)
        fn.python_function(x, function=lambda a: calls.append(1) or a)
        return x

    p().run()
    assert calls  # run() prefetches: each scheduled iteration calls it per sample


def test_sample_order_and_threads():
    """Per-sample calls go in sample order, on an engine thread, one iteration after another."""
    seen = []

    def record(a):
        seen.append((int(a[0]), int(a[1]), threading.current_thread() is threading.main_thread()))
        return a

    @pipeline_def(batch_size=4, num_threads=2, device_id=None)
    def p():
        x = fn.external_source(lambda info: np.array([info.iteration, info.idx_in_batch]),
                               batch=False)
        return fn.python_function(x, function=record)

    pipe = p()
    for _ in range(3):
        pipe.run()
    order = [(i, s) for i, s, _ in seen]
    assert order == sorted(order) and order[:4] == [(0, 0), (0, 1), (0, 2), (0, 3)]
    assert not any(main for _, _, main in seen)


def test_serialize_is_refused_as_in_dali():
    pipe = _pipe(lambda a: a)
    with pytest.raises(RuntimeError, match="cannot be serialized"):
        pipe.serialize()


def test_a_pipeline_deleted_with_calls_in_flight_does_not_hang():
    def slow(a):
        time.sleep(0.02)
        return a

    pipe = _pipe(slow, prefetch_queue_depth=3)
    pipe.run()  # and three more iterations scheduled
    t0 = time.monotonic()
    del pipe
    gc.collect()
    assert time.monotonic() - t0 < 10


class _Capsule:
    """A capsule as an object with __dlpack__, for numpy.from_dlpack."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, stream=None, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


def test_dl_tensor_python_function_computes_on_capsules():
    def double(batch):
        return [(np.from_dlpack(_Capsule(c)) * 2).__dlpack__() for c in batch]

    @pipeline_def(batch_size=3, num_threads=1, device_id=None)
    def p():
        x = fn.external_source(lambda: [np.arange(4, dtype=np.float32) + i for i in range(3)])
        return fn.dl_tensor_python_function(x, function=double), x

    out, x = p().run()
    for i in range(3):
        np.testing.assert_array_equal(np.asarray(out.at(i)), np.asarray(x.at(i)) * 2)


def test_torch_python_function_on_cpu():
    torch = pytest.importorskip("torch")
    from sluice.plugin.pytorch import TorchPythonFunction
    from sluice.plugin.pytorch import fn as torch_fn

    got = []

    def per_sample(a, b):
        got.append(type(a))
        return a.float() * b.float(), torch.flip(a, [0])

    def per_batch(xs):
        got.append(type(xs))
        return [x.sum(dim=0, keepdim=True) for x in xs]

    rng = np.random.default_rng(5)
    xs, ys = _batch(rng), _batch(rng)

    @pipeline_def(batch_size=3, num_threads=2, device_id=None, prefetch_queue_depth=1)
    def p():
        x = fn.external_source(lambda: xs)
        y = fn.external_source(lambda: ys)
        prod, flipped = torch_fn.torch_python_function(x, y, function=per_sample, num_outputs=2)
        summed = TorchPythonFunction(function=per_batch, batch_processing=True)(x)
        return prod, flipped, summed

    prod, flipped, summed = p().run()
    assert got.count(torch.Tensor) == 3 and got.count(list) == 1
    for i in range(3):
        np.testing.assert_array_equal(np.asarray(prod.at(i)), (xs[i] * ys[i]).astype(np.float32))
        np.testing.assert_array_equal(np.asarray(flipped.at(i)), xs[i][::-1])
        np.testing.assert_array_equal(np.asarray(summed.at(i)), xs[i].sum(0, keepdims=True))


def test_ops_class_and_definition_errors():
    from sluice import ops

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def p():
        x = fn.external_source(lambda: [np.ones(2, np.uint8)] * 2)
        return ops.PythonFunction(function=lambda a: a + 1)(x, output_layouts="X")

    (out,) = p().run()
    assert out.layout() == "X" and np.asarray(out.at(1)).tolist() == [2, 2]
    with pytest.raises(RuntimeError, match="current pipeline"):
        fn.python_function(function=lambda: np.zeros(1))

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def input_sets():
        x = fn.external_source(lambda: [np.ones(2, np.uint8)] * 2)
        return fn.python_function([x, x], function=lambda a: a)

    with pytest.raises(TypeError, match="Multiple Input Sets"):
        input_sets().build()


# --- GPU ------------------------------------------------------------------------------------
def _gpu_pipe(make, batch=3):
    rng = np.random.default_rng(11)
    data = [rng.random((4, 5 + i), dtype=np.float32) for i in range(batch)]

    @pipeline_def(batch_size=batch, num_threads=2, device_id=0)
    def p():
        return make(fn.external_source(lambda: data))

    return p().run(), data


@pytest.mark.gpu
@pytest.mark.parametrize("batch_processing", [False, True])
def test_gpu_python_function_through_dlpack(batch_processing):
    torch = pytest.importorskip("torch")

    def double(a):
        return torch.from_dlpack(a) * 2  # a CuPy array or a TensorGPU: both speak DLPack

    def f(a):
        return [double(s) for s in a] if batch_processing else double(a)

    (out, x), data = _gpu_pipe(lambda x: (fn.python_function(
        x.gpu(), function=f, device="gpu", batch_processing=batch_processing,
        output_layouts="HW"), x))
    assert out.layout() == "HW"
    for i, d in enumerate(data):
        np.testing.assert_array_equal(np.asarray(out.as_cpu().at(i)), d * 2)


@pytest.mark.gpu
def test_gpu_torch_and_dl_tensor_functions():
    torch = pytest.importorskip("torch")
    from sluice.plugin.pytorch import fn as torch_fn

    def via_capsules(batch):
        out = [torch.utils.dlpack.to_dlpack(torch.utils.dlpack.from_dlpack(c) + 1) for c in batch]
        torch.cuda.current_stream().synchronize()  # capsules carry no stream: DALI's contract
        return out

    def torch_graph(x):
        g = x.gpu()
        return (torch_fn.torch_python_function(g, function=lambda t: t.sqrt(), device="gpu"),
                fn.dl_tensor_python_function(g, function=via_capsules, device="gpu"))

    (sq, plus), data = _gpu_pipe(torch_graph)
    for i, d in enumerate(data):
        np.testing.assert_allclose(np.asarray(sq.as_cpu().at(i)), np.sqrt(d), rtol=1e-6)
        np.testing.assert_array_equal(np.asarray(plus.as_cpu().at(i)), d + 1)


@pytest.mark.gpu
def test_gpu_exception_names_the_sample():
    def bad(a):
        raise Boom("gpu boom")

    with pytest.raises(SluiceError, match="on sample 0.*gpu boom") as info:
        _gpu_pipe(lambda x: fn.python_function(x.gpu(), function=bad, device="gpu"))
    assert isinstance(info.value.__cause__, Boom)
