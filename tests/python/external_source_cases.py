"""external_source scenarios run on Sluice and on NVIDIA DALI 2.4 alike.

Each case(lib) builds and runs pipelines with `lib` (fn, pipeline_def, types, ops, tensors of
either library) and returns plain data: the outputs of every run (values, dtype, layout), where
StopIteration ended an epoch, and which calls raised. test_external_source.py and
test_parallel_external_source.py run each case here and, through `python
external_source_cases.py OUT CASE...` under DALI's python, on DALI; the results must be equal.
Only numpy is imported at the top: DALI's venv has no Sluice. The sources are module-level so
that workers started with "spawn" can import them.
"""

import json
import sys

import numpy as np


def _batch(t):
    return {"values": [np.array(t.at(i)).tolist() for i in range(len(t))],
            "dtype": str(t.dtype).split(".")[-1], "layout": t.layout()}


def outcome(f):
    """f()'s result, or which kind of exception it raised."""
    try:
        return {"ok": f()}
    except StopIteration:
        return {"raised": "StopIteration"}
    except Exception as e:  # noqa: BLE001 - the kind is the result
        kind = "TypeError" if isinstance(e, TypeError) else (
            "ValueError" if isinstance(e, ValueError) and not isinstance(e, RuntimeError)
            else "error")
        return {"raised": kind}


def epochs(pipe, n=2, max_runs=8):
    """Runs until StopIteration (at most max_runs per epoch), then reset(), n times."""
    result = []
    for _ in range(n):
        runs = []
        for _ in range(max_runs):
            r = outcome(lambda: [_batch(t) for t in pipe.run()])
            runs.append(r)
            if "raised" in r:
                break
        result.append(runs)
        try:
            pipe.reset()
        except Exception:  # noqa: BLE001 - after an error: the runs above are the result
            break
    return result


def pipe_of(lib, graph, batch_size=2, **kwargs):
    @lib.pipeline_def(batch_size=batch_size, num_threads=1, device_id=None, **kwargs)
    def p():
        return graph()

    pipe = p()
    pipe.build()
    return pipe


# --- sources (module level: picklable for spawn) ------------------------------------------------
def b(v, n=2, dtype=np.int32):
    return [np.full(2, v, dtype)] * n


def gen3():
    for i in range(3):
        yield b(i)


class Rearming:
    """An iterator that raises StopIteration after `n` batches and then starts over."""

    def __init__(self, n=1):
        self.i, self.n = 0, n

    def __iter__(self):
        return self

    def __next__(self):
        if self.i >= self.n:
            self.i = 0
            raise StopIteration
        self.i += 1
        return b(self.i)


def by_index(i):
    if i >= 2:
        raise StopIteration
    return b(i)


def by_batch_info(info):
    if info.iteration >= 2:
        raise StopIteration
    return b(info.iteration * 10 + info.epoch_idx, dtype=np.int16)


def by_sample(info):
    if info.idx_in_epoch >= 5:
        raise StopIteration
    return np.array([info.idx_in_epoch, info.idx_in_batch, info.iteration, info.epoch_idx], np.int32)


def two_outputs(info):
    if info.idx_in_epoch >= 6:
        raise StopIteration
    return np.full((1, 2), info.idx_in_epoch, np.uint8), np.array(info.iteration, np.float32)


def fails_at_sample_5(info):
    if info.idx_in_epoch == 5:
        raise ValueError("sample 5 is bad")
    return np.array([info.idx_in_epoch], np.int64)


def fails_at_batch_2(i):
    if i == 2:
        raise KeyError("batch 2 is bad")
    return b(i)


class CallableObject:
    def __call__(self, i):
        if i >= 2:
            raise StopIteration
        return b(100 + i)


# --- cases ------------------------------------------------------------------------------------
def case_iterables_and_cycles(lib):
    fn = lib.fn
    lists = [b(1), b(2), b(3)]
    return {
        "list": epochs(pipe_of(lib, lambda: fn.external_source(lists))),
        "list_raise": epochs(pipe_of(lib, lambda: fn.external_source(lists, cycle="raise"))),
        "list_quiet": epochs(pipe_of(lib, lambda: fn.external_source(lists, cycle=True)), 1, 5),
        "genfunc": epochs(pipe_of(lib, lambda: fn.external_source(gen3))),
        "genfunc_raise": epochs(pipe_of(lib, lambda: fn.external_source(gen3, cycle="raise"))),
        "generator": epochs(pipe_of(lib, lambda: fn.external_source(gen3()))),
        "rearming": epochs(pipe_of(lib, lambda: fn.external_source(Rearming(2))), 3),
        "samples": epochs(pipe_of(lib, lambda: fn.external_source(
            [np.array([i], np.int32) for i in range(5)], batch=False))),
    }


def case_callables(lib):
    fn = lib.fn
    return {
        "no_argument": epochs(pipe_of(lib, lambda: fn.external_source(lambda: b(7))), 1, 2),
        "index": epochs(pipe_of(lib, lambda: fn.external_source(by_index))),
        "batch_info": epochs(pipe_of(lib, lambda: fn.external_source(by_batch_info, batch_info=True)), 3),
        "sample_info": epochs(pipe_of(lib, lambda: fn.external_source(by_sample, batch=False)), 2),
        "default_argument": epochs(pipe_of(lib, lambda: fn.external_source(
            lambda i=5: [np.full(1, i, np.int64)] * 2)), 1, 2),
        "object": epochs(pipe_of(lib, lambda: fn.external_source(CallableObject()))),
        "two_outputs": epochs(pipe_of(lib, lambda: tuple(fn.external_source(
            two_outputs, num_outputs=2, batch=False, layout=["AB"], dtype=[lib.types.UINT8]))), 1),
    }


def case_layouts_and_types(lib):
    fn, types = lib.fn, lib.types
    TL = lib.tensors.TensorListCPU
    arr = np.zeros((2, 1, 3), np.uint8)

    def fed(graph, data, layout=None):
        def run():
            pipe = pipe_of(lib, graph)
            pipe.feed_input("x", data, layout=layout)
            return [_batch(t) for t in pipe.run()]
        return outcome(run)

    def once(graph):
        return outcome(lambda: [_batch(t) for t in pipe_of(lib, graph).run()])

    return {
        "tensor_list_layout": once(lambda: fn.external_source(lambda: TL(arr, "AB"))),
        "layout_over_tensor_list": once(lambda: fn.external_source(lambda: TL(arr, "AB"), layout="XY")),
        "feed_layout": fed(lambda: fn.external_source(name="x"), arr, "HW"),
        "feed_tensor_list": fed(lambda: fn.external_source(name="x"), TL(arr, "QR")),
        "feed_layout_against_declared": fed(lambda: fn.external_source(name="x", layout="XY"), arr, "HW"),
        "layout_too_long": once(lambda: fn.external_source(lambda: arr, layout="HWC")),
        "dtype": once(lambda: fn.external_source(lambda: arr, dtype=types.UINT8, ndim=2)),
        "dtype_mismatch": once(lambda: fn.external_source(lambda: arr, dtype=types.FLOAT)),
        "ndim_mismatch": once(lambda: fn.external_source(lambda: arr, ndim=3)),
        "ndim_against_layout": once(lambda: fn.external_source(lambda: arr, ndim=3, layout="HW")),
        "mixed_ndim": once(lambda: fn.external_source(lambda: [np.zeros(2), np.zeros((2, 2))])),
        "too_many_samples": once(lambda: fn.external_source(lambda: [np.zeros(2)] * 3)),
        "fewer_samples": once(lambda: fn.external_source(lambda: [np.ones(2, np.int8)])),
        "list_samples": once(lambda: fn.external_source(lambda: [[1, 2], [3, 4]])),
        "scalar_samples": once(lambda: fn.external_source(lambda: [np.int32(5), np.int32(6)])),
        "no_copy": once(lambda: fn.external_source(lambda: arr + 1, no_copy=True)),
        "float16": once(lambda: fn.external_source(lambda: [np.ones(2, np.float16)] * 2)),
        "bool": once(lambda: fn.external_source(lambda: [np.ones(2, np.bool_)] * 2)),
    }


_CALLS = []


def _counted():
    _CALLS.append(1)
    return b(1)


def case_refusals_and_pruning(lib):
    fn, ops = lib.fn, lib.ops

    def define(graph):
        return outcome(lambda: [_batch(t) for t in pipe_of(lib, graph).run()] and "ran")

    del _CALLS[:]
    unused = define(lambda: (fn.external_source(_counted, preserve=True), fn.external_source(lambda: b(2)))[1])
    return {
        "unused_source_called": (unused, len(_CALLS)),
        "cycle_value": define(lambda: fn.external_source([b(1)], cycle="yes")),
        "cycle_callable": define(lambda: fn.external_source(lambda: b(1), cycle=True)),
        "cycle_generator": define(lambda: fn.external_source(gen3(), cycle=True)),
        "two_arguments": define(lambda: fn.external_source(lambda a, c: b(1))),
        "var_keyword": define(lambda: fn.external_source(lambda **k: b(1))),
        "not_a_source": define(lambda: fn.external_source(5)),
        "num_outputs_without_source": define(lambda: fn.external_source(num_outputs=2)),
        "num_outputs_with_name": define(lambda: fn.external_source(lambda: (b(1), b(1)), num_outputs=2, name="x")),
        "queue_depth_sequential": define(lambda: fn.external_source(lambda: b(1), prefetch_queue_depth=2)),
        "hint_sequential": define(lambda: fn.external_source(lambda: b(1), bytes_per_sample_hint=8)),
        "unknown_argument": define(lambda: fn.external_source(lambda: b(1), foo=1)),
        "unfed": define(lambda: fn.external_source(name="x", blocking=False)),
        "ops_source_twice": define(lambda: ops.ExternalSource(source=lambda: b(1))(source=lambda: b(2))),
        "ops_argument_twice": define(lambda: ops.ExternalSource(layout="A")(source=lambda: b(1), layout="B")),
        "parallel_without_workers": outcome(lambda: pipe_of(lib, lambda: fn.external_source(
            by_sample, batch=False, parallel=True), py_num_workers=0) and "built"),
        "parallel_no_argument": define(lambda: fn.external_source(lambda: b(1), parallel=True)),
        "parallel_iterable_per_sample": define(lambda: fn.external_source([b(1)], batch=False, parallel=True)),
        "parallel_copy": define(lambda: fn.external_source(by_sample, batch=False, parallel=True, no_copy=False)),
        "parallel_depth": define(lambda: fn.external_source(by_sample, batch=False, parallel=True, prefetch_queue_depth=0)),
        "parallel_hint": define(lambda: fn.external_source(by_sample, batch=False, parallel=True, bytes_per_sample_hint=0)),
        "pickler_with_fork": outcome(lambda: lib.Pipeline(batch_size=1, num_threads=1, py_callback_pickler=json) and "made"),
    }


def case_parallel(lib, method):
    fn = lib.fn
    kw = dict(py_num_workers=2, py_start_method=method)
    return {
        "samples": epochs(pipe_of(lib, lambda: fn.external_source(by_sample, batch=False, parallel=True),
                                  batch_size=3, **kw), 2),
        "batches": epochs(pipe_of(lib, lambda: fn.external_source(
            by_batch_info, batch_info=True, parallel=True, prefetch_queue_depth=2), **kw), 2),
        "ops_class_samples": epochs(pipe_of(lib, lambda: lib.ops.ExternalSource(parallel=True)(
            source=by_sample), batch_size=2, **kw), 1),
        "generator": epochs(pipe_of(lib, lambda: fn.external_source(gen3, parallel=True, cycle="raise"), **kw), 2),
        "list": epochs(pipe_of(lib, lambda: fn.external_source([b(1), b(2)], parallel=True), **kw), 2),
        "two_outputs": epochs(pipe_of(lib, lambda: tuple(fn.external_source(
            two_outputs, num_outputs=2, batch=False, parallel=True)), batch_size=4, **kw), 1),
    }


def case_parallel_fork(lib):
    return case_parallel(lib, "fork")


def case_parallel_spawn(lib):
    return case_parallel(lib, "spawn")


def case_which_iteration_raises(lib):
    """The run() that raises for a sample or batch that fails, by pipeline depth and mode."""
    fn = lib.fn
    result = {}
    for depth in (1, 2, 3):
        for parallel in (False, True):
            kw = dict(prefetch_queue_depth=depth, py_num_workers=2)
            extra = {"prefetch_queue_depth": 2} if parallel else {}
            result[f"sample_{depth}_{parallel}"] = epochs(pipe_of(lib, lambda: fn.external_source(
                fails_at_sample_5, batch=False, parallel=parallel), batch_size=2, **kw), 1)
            result[f"batch_{depth}_{parallel}"] = epochs(pipe_of(lib, lambda: fn.external_source(
                fails_at_batch_2, parallel=parallel, **extra), **kw), 1)
    return result


CASES = [name[5:] for name in list(globals()) if name.startswith("case_") and name != "case_parallel"]


def _main(out, names):
    import nvidia.dali as lib
    from nvidia.dali import fn, ops, pipeline_def, tensors, types  # noqa: F401

    lib.fn, lib.ops, lib.tensors, lib.types, lib.pipeline_def = fn, ops, tensors, types, pipeline_def
    with open(out, "w") as f:
        json.dump({n: globals()["case_" + n](lib) for n in names}, f)


if __name__ == "__main__":
    _main(sys.argv[1], sys.argv[2:])
