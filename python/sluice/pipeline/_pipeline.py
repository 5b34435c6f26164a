"""Pipeline: DALI's pipeline API over the Sluice engine.

A pipeline collects the operators reachable from its outputs, sends the graph to the engine
as a JSON document (the same document serialize() returns; see _document.py) and runs
it there: the engine's threads decode and augment; this module only schedules iterations, feeds
external sources and hands out the results.
"""

import atexit
import json
import multiprocessing
import threading
import weakref

from sluice import _sluice
from sluice._feeding import SourceFeeder
from sluice.data_node import DataNode
from sluice.pipeline._document import document_for, load_document, params_json
from sluice.types import DALIDataType

_local = threading.local()
_live = weakref.WeakSet()


def _stack():
    if not hasattr(_local, "stack"):
        _local.stack = []
    return _local.stack


@atexit.register
def _close_all():
    # Interpreter exit with live pipelines: stop their threads before the runtime goes away.
    for p in list(_live):
        p._close()


_UNSUPPORTED = {
    # parameter: (default, what a non-default value needs)
    "enable_checkpointing": (False, "checkpointing"),
    "checkpoint": (None, "checkpointing"),
    "enable_conditionals": (False, "conditionals (if/else on DataNodes)"),
}


class Pipeline:
    """A data pipeline: a graph of operators and the engine that runs it.

    Parameters follow nvidia.dali.Pipeline. device_id=None (or -1) makes a CPU-only pipeline.
    prefetch_queue_depth is an int or {"cpu_size": x, "gpu_size": y}. seed=-1 picks a random
    seed. exec_dynamic is accepted: the engine always hands outputs over without copies.
    """

    def __init__(self, batch_size=-1, num_threads=-1, device_id=-1, seed=-1, exec_pipelined=True,
                 prefetch_queue_depth=2, exec_async=True, bytes_per_sample=0, set_affinity=False,
                 max_streams=-1, default_cuda_stream_priority=0, *, enable_memory_stats=False,
                 enable_checkpointing=False, checkpoint=None, py_num_workers=1,
                 py_start_method="fork", py_callback_pickler=None, output_dtype=None,
                 output_ndim=None, exec_dynamic=False, experimental_exec_dynamic=False,
                 enable_conditionals=False):
        given = dict(enable_checkpointing=enable_checkpointing, checkpoint=checkpoint,
                     enable_conditionals=enable_conditionals)
        for key, (default, what) in _UNSUPPORTED.items():
            if given[key] != default:
                raise NotImplementedError(f"Pipeline({key}={given[key]!r}): {what} is not supported yet")
        if py_start_method not in multiprocessing.get_all_start_methods():
            raise ValueError(f"py_start_method must be 'fork' or 'spawn', got {py_start_method!r}")
        if py_callback_pickler is not None and py_start_method == "fork":
            raise ValueError("``py_callback_pickler`` should not be set when 'fork' start method is used.")
        if isinstance(prefetch_queue_depth, dict):
            if set(prefetch_queue_depth) != {"cpu_size", "gpu_size"}:
                raise ValueError('prefetch_queue_depth must be an int or {"cpu_size": x, "gpu_size": y}')
            if not exec_async or not exec_pipelined:
                raise ValueError("separated prefetch queues need exec_async=True and exec_pipelined=True")
        elif not isinstance(prefetch_queue_depth, int) or prefetch_queue_depth < 1:
            raise ValueError(f"prefetch_queue_depth must be a positive int, got {prefetch_queue_depth!r}")
        self._batch_size = batch_size
        self._num_threads = num_threads
        self._device_id = -1 if device_id is None else device_id
        self._seed = seed
        self._exec_pipelined = exec_pipelined
        self._exec_async = exec_async
        self._prefetch_queue_depth = prefetch_queue_depth
        self._bytes_per_sample = bytes_per_sample
        self._set_affinity = set_affinity
        self._max_streams = max_streams
        self._default_cuda_stream_priority = default_cuda_stream_priority
        self._enable_memory_stats = enable_memory_stats
        self._py_num_workers = py_num_workers
        self._py_start_method = py_start_method
        self._py_callback_pickler = py_callback_pickler
        self._output_dtype = output_dtype
        self._output_ndim = output_ndim
        self._exec_dynamic = exec_dynamic or experimental_exec_dynamic
        self._ops = []  # operators created while this pipeline was current
        self._outputs = None
        self._sinks = []
        self._backend = None
        self._document = None
        self._feeder = None  # the external sources (sluice._feeding), made with the graph
        self._scheduled = 0
        self._first_run = True
        self._end = False
        self._api_mode = None
        self._api_check = True
        self._last_info = None

    # --- current pipeline -------------------------------------------------------------------
    @staticmethod
    def current():
        """The pipeline set by push_current() / a with-statement, or None."""
        stack = _stack()
        return stack[-1] if stack else None

    @staticmethod
    def push_current(pipeline):
        _stack().append(pipeline)

    @staticmethod
    def pop_current():
        stack = _stack()
        return stack.pop() if stack else None

    def __enter__(self):
        Pipeline.push_current(self)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        Pipeline.pop_current()

    def _register_op(self, op):
        self._ops.append(op)

    # --- graph --------------------------------------------------------------------------------
    def define_graph(self):
        """Override in subclasses to build the graph; return the outputs."""
        raise NotImplementedError(
            "define the graph with @pipeline_def, set_outputs() or by overriding define_graph()")

    def set_outputs(self, *output_data_nodes):
        """Sets the pipeline's outputs (instead of overriding define_graph)."""
        outs = []
        for i, node in enumerate(output_data_nodes):
            if not isinstance(node, DataNode):
                raise TypeError(f"pipeline output {i} must be a DataNode, got {type(node).__name__}")
            outs.append(node)
        self._outputs = outs

    def add_sink(self, edge):
        """Keeps `edge`'s operator (and what it needs) even though it is not an output."""
        self._sinks.append(edge)

    def iter_setup(self):
        """Called before every iteration is scheduled; override to feed_input()."""

    def _collect(self):
        """The operators reachable from the outputs, preserved operators and sinks."""
        seen, order = set(), []

        def visit(op):
            if id(op) in seen:
                return
            seen.add(id(op))
            for x in list(op.inputs) + list(op.arg_inputs.values()):
                visit(x.source)
            order.append(op)

        for node in self._outputs:
            visit(node.source)
        for node in self._sinks:
            visit(node.source)
        for op in self._ops:
            if op.preserve:
                visit(op)
        return order

    def _define(self, define_graph=None):
        if self._outputs is not None:
            if define_graph is not None:
                raise RuntimeError("build(define_graph): the outputs were already set with set_outputs()")
            return
        with self:
            outs = (define_graph or self.define_graph)()
        if isinstance(outs, DataNode):
            outs = (outs,)
        self.set_outputs(*(outs or ()))

    def build(self, define_graph=None):
        """Builds the pipeline (safe to call again)."""
        if self._backend is not None:
            return
        if self._batch_size is None or self._batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {self._batch_size}")
        if self._num_threads is None or self._num_threads < 1:
            raise ValueError(f"num_threads must be a positive integer, got {self._num_threads}")
        self.start_py_workers(define_graph)
        self._backend = _sluice.PipelineBackend(self._document)
        _live.add(self)

    def _prepare(self, define_graph=None):
        """The graph, its document and the external sources, without the engine."""
        if self._feeder is not None:
            if define_graph is not None:
                raise RuntimeError("build(define_graph) cannot be used after start_py_workers()")
            return
        self._define(define_graph)
        ops = self._collect()
        self._document = document_for(self, ops)
        self._feeder = SourceFeeder(self, ops)

    # --- running ----------------------------------------------------------------------------
    def _check_api(self, mode):
        if self._api_check and self._api_mode not in (None, mode):
            raise RuntimeError(
                "run() cannot be mixed with schedule_run() / share_outputs() / release_outputs() "
                "on the same pipeline")
        self._api_mode = mode

    def enable_api_check(self, enable):
        """Enables or disables the check that run() is not mixed with the scheduled API."""
        self._api_check = bool(enable)

    def _depth(self):
        d = self._prefetch_queue_depth
        if isinstance(d, dict):
            return d["gpu_size"] if self._has_gpu_outputs() else d["cpu_size"]
        return d if self._exec_pipelined else 1

    def _has_gpu_outputs(self):
        return any(d == "gpu" for d in self._backend.output_devices())

    def _schedule_one(self):
        """Feeds external sources for one iteration (iter_setup() included) and schedules it;
        False at the end of the data."""
        if self._end:
            return False
        if not self._feeder.next_iteration(self._backend, self._batch_size):
            self._end = True
            return False
        self._backend.schedule_run()
        self._scheduled += 1
        return True

    def schedule_run(self):
        """Runs the pipeline without returning the outputs (see share_outputs())."""
        self._check_api("scheduled")
        self._schedule()

    def _schedule(self):
        self.build()
        if self._first_run:
            self._first_run = False
            n = self._depth()
            fed = self._feeder.available()
            if fed is not None:  # feed_input-driven sources: only what has been fed
                n = max(1, min(n, fed))
            for _ in range(n):
                if not self._schedule_one():
                    break
        else:
            self._schedule_one()

    def share_outputs(self):
        """The outputs of the next iteration (blocks). Release them with release_outputs()."""
        self._check_api("scheduled")
        return self._share()

    def _share(self):
        self.build()
        if self._scheduled == 0:
            if self._end:
                raise StopIteration
            raise RuntimeError("no iteration is scheduled: call schedule_run() (or run()) first")
        self._scheduled -= 1
        outputs, self._last_info = self._backend.share_outputs()
        self._validate(outputs)
        return outputs

    def release_outputs(self):
        """Gives the buffers of the oldest shared iteration back to the pipeline."""
        self._check_api("scheduled")
        if self._backend is not None:
            self._backend.release_outputs()

    def outputs(self):
        """Releases the previous outputs and returns the next ones (blocks); raises
        StopIteration at the end of the data."""
        self.build()
        self._backend.release_outputs()
        return self._share()

    def run(self, **feed):
        """Runs one iteration and returns its outputs (prefetching the next ones)."""
        self._check_api("run")
        for name, data in feed.items():
            self.feed_input(name, data)
        if self._backend is not None:
            self._backend.release_outputs()  # room for the next iteration
        self._schedule()
        return self.outputs()

    def reset(self):
        """Starts again after the end of the data or after an error."""
        if self._backend is None:
            return
        self._backend.reset()
        self._feeder.reset(ended=self._end)
        self._scheduled = 0
        self._first_run = True
        self._end = False

    def empty(self):
        """True when no scheduled iteration is waiting to be consumed."""
        return self._scheduled == 0

    def feed_input(self, data_node, data, layout=None, cuda_stream=None, use_copy_kernel=False):
        """Feeds one batch to an external_source (by DataNode or name) for the next iteration."""
        self.build()
        name = data_node.source.name if isinstance(data_node, DataNode) else data_node
        self._feeder.feed(self._backend, name, data, layout, self._batch_size)
        self._feeder.fed(name)

    def _validate(self, outputs):
        for what, expected, actual in (
            ("dtype", self._output_dtype, [o.dtype for o in outputs]),
            ("ndim", self._output_ndim, [len(o.shape()[0]) if len(o) else None for o in outputs]),
        ):
            if expected is None:
                continue
            exp = expected if isinstance(expected, (list, tuple)) else [expected] * len(outputs)
            if len(exp) != len(outputs):
                raise RuntimeError(f"output_{what} lists {len(exp)} values for {len(outputs)} outputs")
            for i, (e, a) in enumerate(zip(exp, actual)):
                if e is None:
                    continue
                e = DALIDataType(e) if what == "dtype" else e
                if a != e:
                    raise RuntimeError(f"pipeline output {i} has {what} {a}, but output_{what}={e} was declared")

    # --- information -------------------------------------------------------------------------
    def epoch_size(self, name=None):
        """Epoch size of the reader `name`, or {reader: epoch size} for all readers."""
        if name is not None:
            return self.reader_meta(name)["epoch_size"]
        return {k: v["epoch_size"] for k, v in self.reader_meta().items()}

    def reader_meta(self, name=None):
        """DALI's reader metadata: epoch_size, epoch_size_padded, number_of_shards, shard_id,
        pad_last_batch, stick_to_shard (and batches_per_epoch)."""
        self.build()
        if name is None:
            return {n: self._backend.reader_meta(n) for n in self._backend.reader_names()}
        meta = self._backend.reader_meta(name)
        if meta is None:
            raise ValueError(f"operator '{name}' is not a reader")
        return meta

    def executor_statistics(self):
        """Per operator: runs and time; with enable_memory_stats the real and reserved memory
        of each output (real_memory_size, max_real_memory_size, reserved_memory_size,
        max_reserved_memory_size)."""
        self.build()
        return self._backend.executor_statistics()

    def bottleneck_report(self):
        """Per-operator time and memory, stage occupancy and which stage limits throughput,
        with advice (see sluice.profile)."""
        from sluice.profile import bottleneck_report

        self.build()
        return bottleneck_report(self)

    def last_batch_info(self):
        """Bookkeeping of the last shared iteration (reader epoch, valid samples, ...)."""
        return self._last_info

    def serialize(self, define_graph=None, filename=None):
        """The pipeline as a JSON document (data only, never code)."""
        if self._document is None:
            self._define(define_graph)
            self._document = document_for(self, self._collect())
        if filename is not None:
            with open(filename, "w") as f:
                f.write(self._document)
        return self._document

    @classmethod
    def deserialize(cls, serialized_pipeline=None, filename=None, **kwargs):
        """A built pipeline from serialize()'s document; kwargs override its parameters."""
        doc = load_document(serialized_pipeline, filename)
        params = dict(doc.get("params", {}))
        params.update(kwargs)
        pipe = cls(**params)
        pipe._outputs = [DataNode(n) for n in doc["outputs"]]
        doc["params"] = params_json(pipe)
        pipe._document = json.dumps(doc)
        pipe._feeder = SourceFeeder.from_document(pipe, doc["ops"])
        pipe._backend = _sluice.PipelineBackend(pipe._document)
        _live.add(pipe)
        return pipe

    def deserialize_and_build(self, serialized_pipeline):
        """Replaces this pipeline's graph with a serialised one and builds it."""
        other = Pipeline.deserialize(serialized_pipeline)
        self.__dict__.update(other.__dict__)
        _live.add(self)

    def save_graph_to_dot_file(self, filename, show_tensors=False, show_ids=False, use_colors=False):
        """Writes the (pruned) graph in Graphviz format."""
        self.build()
        with open(filename, "w") as f:
            f.write(self._backend.dot(show_tensors, show_ids, use_colors))

    def start_py_workers(self, define_graph=None):
        """Starts the Python worker processes of parallel external sources (build() does it
        too). With py_start_method="fork", call it before anything creates a CUDA context
        (building any pipeline with a GPU, a framework's CUDA tensors)."""
        self._prepare(define_graph)
        self._feeder.start_workers()

    def external_source_shm_statistics(self):
        """The shared memory of parallel external sources: {"capacities": [bytes per chunk]}."""
        pool = self._feeder.pool if self._feeder is not None else None
        return pool.shm_statistics() if pool is not None else {"capacities": []}

    def checkpoint(self, filename=None):
        raise NotImplementedError("Pipeline.checkpoint(): checkpointing is not supported yet")

    # --- properties -------------------------------------------------------------------------
    batch_size = property(lambda self: self._batch_size, doc="Maximum batch size.")
    max_batch_size = property(lambda self: self._batch_size, doc="Maximum batch size.")
    num_threads = property(lambda self: self._num_threads)
    device_id = property(lambda self: None if self._device_id < 0 else self._device_id)
    seed = property(lambda self: None if self._seed is None or self._seed < 0 else self._seed)
    exec_pipelined = property(lambda self: self._exec_pipelined)
    exec_async = property(lambda self: self._exec_async)
    exec_separated = property(lambda self: isinstance(self._prefetch_queue_depth, dict))
    exec_dynamic = property(lambda self: self._exec_dynamic)
    prefetch_queue_depth = property(lambda self: self._prefetch_queue_depth)
    set_affinity = property(lambda self: self._set_affinity)
    max_streams = property(lambda self: self._max_streams)
    default_cuda_stream_priority = property(lambda self: self._default_cuda_stream_priority)
    enable_memory_stats = property(lambda self: self._enable_memory_stats)
    py_num_workers = property(lambda self: self._py_num_workers)
    py_start_method = property(lambda self: self._py_start_method)

    @property
    def cpu_queue_size(self):
        d = self._prefetch_queue_depth
        return d["cpu_size"] if isinstance(d, dict) else d

    @property
    def gpu_queue_size(self):
        d = self._prefetch_queue_depth
        return d["gpu_size"] if isinstance(d, dict) else d

    def output_dtype(self):
        return self._output_dtype

    def output_ndim(self):
        return self._output_ndim

    # --- teardown ---------------------------------------------------------------------------
    def _close(self):
        b, self._backend = self._backend, None
        if b is not None:
            b.close()
        if self._feeder is not None:
            self._feeder.close()

    def __del__(self):
        try:
            self._close()
        except Exception:
            pass
