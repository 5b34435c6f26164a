"""The Pipeline API and pipeline_def against NVIDIA DALI 2.4: each snippet below runs on Sluice
and on DALI (in DALI's venv, in a subprocess); results, exception types and the messages users
match on must agree.

A snippet is a module-level function of one argument, the library (``m.fn``, ``m.types``,
``m.Pipeline``, ``m.pipeline_def``), with numpy as ``np``; it returns something JSON can hold or
raises. Its source runs on DALI, so it may use nothing else from this module but the helpers
with_outputs() and two_outputs()."""

import inspect
import json
import subprocess
import textwrap
import types as pytypes

import numpy as np
import pytest

import sluice
from dali_reference import dali_python

SNIPPETS = []


def snippet(*needles):
    """Registers a snippet; `needles` must appear in both libraries' error messages."""
    def register(f):
        f.needles = needles
        SNIPPETS.append(f)
        return f
    return register


def outcome(f, lib):
    """("ok", value) or ("raises", exception class names from the most derived, message)."""
    try:
        return ["ok", f(lib)]
    except BaseException as e:  # StopIteration too
        return ["raises", [c.__name__ for c in type(e).__mro__], str(e)]


_RUNNER = """
import inspect, json, sys, types, warnings
import numpy as np
import nvidia.dali as dali
from nvidia.dali import fn, pipeline_def, Pipeline
lib = types.SimpleNamespace(fn=fn, types=dali.types, Pipeline=Pipeline, pipeline_def=pipeline_def)
warnings.simplefilter("ignore")
results = {}
sources = json.loads(sys.stdin.read())
helpers = sources.pop("")
for name, source in sources.items():
    space = {"np": np}
    exec(helpers, space)
    exec(source, space)
    try:
        results[name] = ["ok", space[name](lib)]
    except BaseException as e:
        results[name] = ["raises", [c.__name__ for c in type(e).__mro__], str(e)]
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def dali_outcomes():
    python = dali_python()
    if python is None:
        pytest.skip("NVIDIA DALI not found: run ../shared/tools/dali-reference venv "
                    "(or set SLUICE_DALI_PYTHON)")
    def source(f):
        text = textwrap.dedent(inspect.getsource(f))
        return text[text.index("\ndef ") + 1:] if not text.startswith("def ") else text

    sources = {f.__name__: source(f) for f in SNIPPETS}
    sources[""] = "\n\n".join(source(f) for f in (with_outputs, two_outputs))
    run = subprocess.run([str(python), "-c", _RUNNER], input=json.dumps(sources),
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


SLUICE = pytypes.SimpleNamespace(fn=sluice.fn, types=sluice.types, Pipeline=sluice.Pipeline,
                                 pipeline_def=sluice.pipeline_def)


def with_outputs(m, *outputs, **kwargs):
    """A built CPU pipeline with the given outputs (created inside it)."""
    kwargs = {"batch_size": 2, "num_threads": 1, "device_id": None, **kwargs}
    p = m.Pipeline(**kwargs)
    with p:
        p.set_outputs(*[o() for o in outputs])
    return p


# ---- pipeline_def ------------------------------------------------------------------------------

@snippet("variadic keyword argument `**kw`", "graph-defining function is not allowed")
def kwargs_function_is_refused_when_called(m):
    @m.pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe(**kw):
        return m.fn.random.coin_flip(**kw)

    assert pipe._is_pipeline_def  # decorating is fine
    pipe(probability=1.0)


@snippet()
def pipeline_def_splits_and_shadows_arguments(m):
    @m.pipeline_def(batch_size=3, num_threads=1, device_id=None)
    def pipe(seed, probability=1.0):
        current = m.Pipeline.current()
        assert (current.max_batch_size, current.num_threads) == (5, 1)
        return m.fn.random.coin_flip(probability=probability, seed=seed)

    p = pipe(11, batch_size=5, debug=False)
    return [p.seed, np.array(p.run()[0].as_tensor()).tolist()]


@snippet()
def a_list_of_numbers_is_one_constant_output(m):
    @m.pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        return [1, 2, 3]

    return [np.array(o.as_tensor()).tolist() for o in pipe().run()]


@snippet()
def constants_and_arrays_are_outputs(m):
    @m.pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        return (m.fn.random.coin_flip(probability=0.0), 5, 2.5, True,
                np.array([[1, 2], [3, 4]], np.int16), m.types.Constant(7, dtype=m.types.UINT8))

    return [[np.array(o.as_tensor()).tolist(), str(np.array(o.as_tensor()).dtype)]
            for o in pipe().run()]


@snippet("Illegal output type. The output 1 is a `<class 'str'>`")
def a_string_is_not_an_output(m):
    with_outputs(m, m.fn.random.coin_flip, lambda: "abc").build()


@snippet("The output 0 contains a nested `DataNode`", "Missing list/tuple expansion")
def nested_data_nodes_are_not_outputs(m):
    with_outputs(m, lambda: [m.fn.random.coin_flip(), m.fn.random.coin_flip()]).build()


# ---- graph definition --------------------------------------------------------------------------

@snippet()
def set_outputs_wins_over_define_graph_and_empty_set_outputs_leaves_it(m):
    class Pipe(m.Pipeline):
        def define_graph(self):
            return m.fn.random.coin_flip(probability=0.0)

    p = Pipe(batch_size=2, num_threads=1, device_id=None)
    with p:
        p.set_outputs(m.fn.random.coin_flip(probability=1.0))
    q = Pipe(batch_size=2, num_threads=1, device_id=None)
    q.set_outputs()
    return [np.array(x.run()[0].as_tensor()).tolist() for x in (p, q)]


@snippet("Duplicate graph definition", "call to `set_outputs`")
def define_graph_after_set_outputs_is_a_duplicate(m):
    p = with_outputs(m, m.fn.random.coin_flip)
    p.serialize(lambda: m.fn.random.coin_flip())


@snippet("Provided `define_graph` argument is not callable",
         "Didn't you want to write `.serialize(filename=...)`?")
def serialize_of_a_file_name_hints_at_filename(m):
    with_outputs(m, m.fn.random.coin_flip).serialize("pipe.bin")


@snippet()
def equal_pipelines_serialize_equally_and_names_are_per_pipeline(m):
    def graph():
        u = m.fn.random.uniform(range=[0, 1])
        return u, m.fn.random.coin_flip(), u * 2

    a, b = (m.pipeline_def(graph, batch_size=2, num_threads=1, device_id=None, seed=1)()
            for _ in range(2))
    with a:
        names = [m.fn.random.uniform().source.name, m.fn.random.coin_flip().source.name]
    return [a.serialize() == b.serialize(), names, m.fn.random.uniform().source.name[:19]]


@snippet("The pipeline is invalid because it contains operators with non-unique names")
def operator_names_are_unique(m):
    with_outputs(m, lambda: m.fn.random.coin_flip(name="a"),
                 lambda: m.fn.random.uniform(name="a")).build()


@snippet("serialized_pipeline and filename arguments are mutually exclusive",
         "Precisely one of them should be defined")
def deserialize_takes_a_document_or_a_file(m):
    m.Pipeline.deserialize()


@snippet()
def deserialize_and_build_keeps_the_pipeline_usable(m):
    import gc

    doc = with_outputs(m, lambda: m.fn.random.coin_flip(probability=1.0), seed=3).serialize()
    p = m.Pipeline(batch_size=3, num_threads=1, device_id=None)
    p.deserialize_and_build(doc)
    gc.collect()
    return [np.array(p.run()[0].as_tensor()).tolist(), p.max_batch_size, p.seed]


# ---- build and run -----------------------------------------------------------------------------

@snippet("Pipeline created with `num_threads` < 1 can only be used for serialization")
def building_needs_threads(m):
    with_outputs(m, m.fn.random.coin_flip, num_threads=-1).build()


@snippet("Invalid batch size: 0. Please set a positive integer.")
def building_needs_a_batch_size(m):
    with_outputs(m, m.fn.random.coin_flip, batch_size=0).build()


@snippet("Mixing pipeline API type. Currently used: PipelineAPIType.SCHEDULED, but trying to "
         "use PipelineAPIType.BASIC")
def run_after_the_scheduled_api(m):
    p = with_outputs(m, m.fn.random.coin_flip)
    p.schedule_run()
    p.share_outputs()
    p.release_outputs()
    p.run()


@snippet("Mixing pipeline API type. Currently used: PipelineAPIType.BASIC, but trying to use "
         "PipelineAPIType.SCHEDULED")
def outputs_after_run(m):
    p = with_outputs(m, m.fn.random.coin_flip)
    p.run()
    p.outputs()


@snippet()
def nothing_scheduled_is_the_end(m):
    p = with_outputs(m, m.fn.random.coin_flip)
    p.share_outputs()


@snippet()
def the_api_check_can_be_disabled(m):
    p = with_outputs(m, lambda: m.fn.random.coin_flip(probability=1.0))
    p.enable_api_check(False)
    p.schedule_run()
    first = p.outputs()
    return [type(first).__name__, np.array(p.run()[0].as_tensor()).tolist(), p.empty()]


@snippet("When using pipeline_inputs named arguments", "prefetch_queue_depth=2")
def run_feeds_inputs_only_without_prefetching(m):
    p = with_outputs(m, lambda: m.fn.external_source(name="x"))
    p.run(x=[np.zeros(2, np.float32)] * 2)


@snippet()
def run_feeds_inputs(m):
    p = with_outputs(m, lambda: m.fn.external_source(name="x"), prefetch_queue_depth=1)
    return [np.array(p.run(x=[np.full(2, i, np.int32) for i in range(2)])[0].as_tensor()).tolist(),
            p.input_feed_count("x")]


@snippet("Could not find an input operator with name \"nope\"")
def feeding_an_unknown_input(m):
    p = with_outputs(m, lambda: m.fn.external_source(name="x"))
    p.feed_input("nope", [np.zeros(2)] * 2)


@snippet("have an input named \"c\"")
def input_feed_count_of_a_non_input(m):
    p = with_outputs(m, lambda: m.fn.external_source(name="x"), lambda: m.fn.random.coin_flip(
        name="c"), prefetch_queue_depth=3)
    assert p.input_feed_count("x") == 3
    p.input_feed_count("c")


@snippet("Operator nope", "not found or does not expose valid metadata")
def reader_meta_of_an_unknown_operator(m):
    with_outputs(m, m.fn.random.coin_flip).reader_meta("nope")


# ---- output descriptions -----------------------------------------------------------------------

def two_outputs(m, **kwargs):
    return with_outputs(
        m, lambda: m.fn.random.uniform(shape=[2, 2]),
        lambda: m.fn.external_source(lambda: [np.zeros((2, 3), np.int16)] * 2, layout="HW"),
        **kwargs)


@snippet()
def declared_outputs_are_reported(m):
    t = m.types
    p = two_outputs(m, output_dtype=[t.FLOAT, None], output_ndim=2, output_layout=[None, "HW"])
    q = two_outputs(m)
    p.run()
    return [[d and d.name for d in p.output_dtype()], p.output_ndim(), q.output_dtype(),
            q.output_ndim(),
            p.num_outputs]


@snippet("Data type in the output_idx=1 does not match. Expected: int32. Received: int16.")
def a_wrong_dtype_is_an_error(m):
    two_outputs(m, output_dtype=[m.types.FLOAT, m.types.INT32]).run()


@snippet("Number of dimensions in the output_idx=1 does not match. Expected: 3. Received: 2.")
def a_wrong_ndim_is_an_error(m):
    two_outputs(m, output_ndim=[2, 3]).run()


@snippet("Layout in the output_idx=1 does not match. Expected: CH. Received: HW.")
def a_wrong_layout_is_an_error(m):
    two_outputs(m, output_layout=[None, "CH"]).run()


@snippet("Lengths of provided output descriptions do not match", "Expected num_outputs=2")
def declarations_for_each_output(m):
    two_outputs(m, output_ndim=[2, 2, 2]).build()


@snippet("`output_dtype` must be either: a value from nvidia.dali.types.DALIDataType, a list of "
         "these or None. Found type: <class 'type'>.")
def output_dtype_takes_dali_types(m):
    two_outputs(m, output_dtype=np.float32)


@snippet("`output_ndim` must be non-negative. Found value: -1.")
def output_ndim_is_not_negative(m):
    two_outputs(m, output_ndim=-1)


@snippet("`output_layout` must be either: a string, a list of strings or None. Found type: "
         "<class 'int'>.")
def output_layout_takes_strings(m):
    two_outputs(m, output_layout=3)


# ---- construction and properties ---------------------------------------------------------------

@snippet()
def properties_and_their_defaults(m):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        p = m.Pipeline()
        q = m.Pipeline(batch_size=4, num_threads=2, device_id=None, seed=-1, max_streams=3,
                       default_cuda_stream_priority=1, experimental_exec_dynamic=True,
                       prefetch_queue_depth={"cpu_size": 3, "gpu_size": 2})
        size = q.batch_size
    values = [p.max_batch_size, p.num_threads, p.device_id, p.seed, p.max_streams,
              p.default_cuda_stream_priority, p.exec_dynamic, p.exec_separated, p.stream_policy,
              p.concurrency, p.is_restored_from_checkpoint, p.prefetch_queue_depth,
              p.py_num_workers, p.py_start_method, m.Pipeline(exec_async=False).exec_dynamic,
              size, q.seed, q.max_streams, q.default_cuda_stream_priority, q.exec_dynamic,
              q.exec_separated, q.cpu_queue_size, q.gpu_queue_size]
    return [values, sorted(str(w.message)[:30] for w in caught)]


@snippet("Expected prefetch_queue_depth to be either int or Dict[int, int]")
def prefetch_queue_depth_is_an_int_or_a_dict(m):
    m.Pipeline(batch_size=2, prefetch_queue_depth=[1, 2])


@snippet("`exec_async` must not evaluate to `False` when using separated queues.")
def separated_queues_need_exec_async(m):
    m.Pipeline(prefetch_queue_depth={"cpu_size": 2, "gpu_size": 2}, exec_async=False)


@snippet()
def push_current_returns_the_previous_pipeline(m):
    a, b = m.Pipeline(), m.Pipeline()
    first = m.Pipeline.push_current(a)
    second = m.Pipeline.push_current(b)
    m.Pipeline.pop_current()
    m.Pipeline.pop_current()
    return [first is None, second is a, m.Pipeline.current() is None]


# ---- the comparison ----------------------------------------------------------------------------

def _needs_constants(f):
    return f.__name__ in ("a_list_of_numbers_is_one_constant_output",
                          "constants_and_arrays_are_outputs") and not hasattr(sluice.types,
                                                                              "Constant")


@pytest.mark.parametrize("f", SNIPPETS, ids=[f.__name__ for f in SNIPPETS])
def test_equals_dali(f, dali_outcomes):
    if _needs_constants(f):
        pytest.skip("types.Constant comes with the constant operator")
    ours, theirs = outcome(f, SLUICE), dali_outcomes[f.__name__]
    if theirs[0] == "ok":
        assert ours == json.loads(json.dumps(theirs)), f"DALI gives {theirs}"
        return
    assert ours[0] == "raises", f"DALI raises {theirs[1][0]}: {theirs[2]}, Sluice gives {ours}"
    assert theirs[1][0] in ours[1], f"DALI raises {theirs[1][0]}, Sluice {ours[1][0]}: {ours[2]}"
    for needle in f.needles:
        assert needle in theirs[2], f"DALI's message changed: {theirs[2]}"
        assert needle in ours[2], f"Sluice's message lacks {needle!r}: {ours[2]}"
