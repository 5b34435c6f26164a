"""Pipeline: DALI's pipeline API over the Sluice engine.

A pipeline collects the operators reachable from its outputs, sends the graph to the engine
as a JSON document (the same document serialize() returns; see _document.py) and runs
it there: the engine's threads decode and augment; this module only schedules iterations, feeds
external sources and hands out the results.
"""

import atexit
import collections
import json
import multiprocessing
import os
import threading
import weakref

from sluice import _sluice
from sluice._feeding import SourceFeeder
from sluice.data_node import DataNode
from sluice.pipeline import _checkpoint
from sluice.pipeline._document import apply_params, document_for
from sluice.pipeline._metadata import PipelineMetadata, _warn
from sluice.pipeline._outputs import (check_declarations, check_iteration, graph_outputs,
                                      per_output, require_unique_names)

_local = threading.local()
_live = weakref.WeakSet()
_inherited = []  # in a forked child: the parent's pipelines, kept and never closed (_close)


def _stack():
    if not hasattr(_local, "stack"):
        _local.stack = []
    return _local.stack


@atexit.register
def _close_all():
    # Interpreter exit with live pipelines: stop their threads before the runtime goes away.
    for p in list(_live):
        p._close()


class Pipeline(PipelineMetadata, _checkpoint.Checkpointing):
    """A data pipeline: a graph of operators and the engine that runs it.

    Parameters follow nvidia.dali.Pipeline. device_id=None (or -1) makes a CPU-only pipeline.
    prefetch_queue_depth is an int or {"cpu_size": x, "gpu_size": y}. seed=None picks a random
    seed. exec_dynamic, stream_policy and concurrency are accepted: the engine always hands
    outputs over without copies and schedules its stages itself. With enable_checkpointing=True,
    checkpoint() returns the state that `checkpoint=` resumes from (see _checkpoint.py).
    device_memory_limit (Sluice only): the most bytes of device memory Sluice reserves on this
    pipeline's device, for all pipelines of the process together; past it an allocation first
    returns cached, unused memory, then the GPU prefetch depth is lowered (down to 1), and only
    then an error names the limit.
    """

    def __init__(self, batch_size=None, num_threads=None, device_id=None, seed=None,
                 exec_pipelined=True, prefetch_queue_depth=2, exec_async=True, bytes_per_sample=0,
                 set_affinity=False, max_streams=None, default_cuda_stream_priority=None, *,
                 enable_memory_stats=False, enable_checkpointing=False, checkpoint=None,
                 py_num_workers=1, py_start_method="fork", py_callback_pickler=None,
                 output_dtype=None, output_ndim=None, output_layout=None, exec_dynamic=None,
                 experimental_exec_dynamic=None, stream_policy=None, concurrency=None,
                 device_memory_limit=None):
        if py_start_method not in multiprocessing.get_all_start_methods():
            raise ValueError(f"py_start_method must be 'fork' or 'spawn', got {py_start_method!r}")
        if py_callback_pickler is not None and py_start_method == "fork":
            raise ValueError(
                "``py_callback_pickler`` should not be set when 'fork' start method is used.")
        if experimental_exec_dynamic is not None:
            _warn("experimental_exec_dynamic is deprecated, please use exec_dynamic instead")
            exec_dynamic = experimental_exec_dynamic
        if default_cuda_stream_priority is not None:
            _warn("The `default_cuda_stream_priority` is deprecated and has no effect.")
        if max_streams is not None:
            _warn("The `max_streams` is deprecated and has no effect.")
        if seed is not None and seed < 0:
            _warn("The use of negative seed to use automatic seed asignment is deprecated. "
                  "Use `None` instead.")
            seed = None
        if isinstance(prefetch_queue_depth, dict):
            if set(prefetch_queue_depth) != {"cpu_size", "gpu_size"}:
                raise ValueError('prefetch_queue_depth must be an int or {"cpu_size": x, "gpu_size": y}')
            if not exec_async:
                raise ValueError("`exec_async` must not evaluate to `False` when using separated "
                                 "queues.")
            if not exec_pipelined:
                raise ValueError("separated prefetch queues need exec_pipelined=True")
        elif not isinstance(prefetch_queue_depth, int):
            raise TypeError("Expected prefetch_queue_depth to be either int or Dict[int, int]")
        elif prefetch_queue_depth < 1:
            raise ValueError(f"prefetch_queue_depth must be a positive int, got {prefetch_queue_depth!r}")
        check_declarations(output_dtype, output_ndim, output_layout)
        if exec_dynamic is None and exec_pipelined and exec_async and not isinstance(
                prefetch_queue_depth, dict):
            exec_dynamic = True  # DALI's default executor
        self._batch_size = batch_size
        self._num_threads = num_threads
        self._device_id = -1 if device_id is None else device_id
        self._seed_drawn = enable_checkpointing and seed is None
        if self._seed_drawn:
            # Chosen here, not by the engine, so that checkpoints can carry it.
            seed = int.from_bytes(os.urandom(8), "little") & (2**63 - 1)
        self._seed = seed
        self._enable_checkpointing = bool(enable_checkpointing)
        self._checkpoint = checkpoint
        self._restored = None  # the parsed checkpoint this pipeline was restored from
        self._reader_starts = {}  # reader name: (epoch, batch, remainder) it started at
        self._consumed = 0  # iterations shared with the consumer since the build
        self._position_lost = False
        self._feed_positions = collections.deque()  # the sources' position per scheduled one
        self._shared_positions = collections.deque(maxlen=2)  # ... per shared one
        # The engine's epoch and sample ids (the random draws of sources without readers) as
        # the consumer sees them.
        self._exec_epoch, self._exec_samples = 0, 0
        self._shared_sizes = collections.deque(maxlen=2)
        self._exec_pipelined = exec_pipelined
        self._exec_async = exec_async
        self._prefetch_queue_depth = prefetch_queue_depth
        self._bytes_per_sample = bytes_per_sample
        self._set_affinity = set_affinity
        self._enable_memory_stats = enable_memory_stats
        self._device_memory_limit = device_memory_limit
        self._py_num_workers = py_num_workers
        self._py_start_method = py_start_method
        self._py_callback_pickler = py_callback_pickler
        self._output_dtype = output_dtype
        self._output_ndim = output_ndim
        self._output_layout = output_layout
        self._declared = None  # per output: (dtype, ndim, layout), set by build()
        self._exec_dynamic = exec_dynamic
        self._stream_policy = stream_policy
        self._concurrency = concurrency
        self._next_op_id_counter = 0
        self._ops = []  # operators created while this pipeline was current
        self._graph_out = None  # set_outputs()'s nodes
        self._outputs = None  # the graph's outputs, once defined
        self._sinks = []
        self._backend = None
        self._pid = os.getpid()  # the process whose threads the backend runs
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
        """Makes `pipeline` current; returns the previous current pipeline."""
        prev = Pipeline.current()
        _stack().append(pipeline)
        return prev

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

    def _next_op_id(self):
        """Numbers this pipeline's operators for their default names, so that equal pipelines
        get equal names (and equal serialize() documents)."""
        i = self._next_op_id_counter
        self._next_op_id_counter += 1
        return i

    # --- graph --------------------------------------------------------------------------------
    def define_graph(self):
        """Override in subclasses to build the graph; return the outputs."""
        raise NotImplementedError

    def set_outputs(self, *output_data_nodes):
        """Sets the pipeline's outputs (instead of overriding define_graph): DataNodes, or
        constants (numbers, lists of numbers, arrays), which become constant operators."""
        self._graph_out = output_data_nodes

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
        if define_graph is not None and self._graph_out is not None:
            raise RuntimeError(
                "Duplicate graph definition - `define_graph` argument should not be specified "
                "when graph was defined with a call to `set_outputs`.")
        if self._outputs is not None:
            return
        if self._graph_out:  # as in DALI, set_outputs() without outputs leaves define_graph
            outs = self._graph_out
        else:
            with self:
                outs = (define_graph or self.define_graph)()
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        with self:  # constants become operators of this pipeline
            self._outputs = graph_outputs(outs)

    def build(self, define_graph=None):
        """Builds the pipeline (safe to call again)."""
        if self._backend is not None:
            return
        if self._num_threads is None or self._num_threads < 1:
            raise ValueError(
                "Pipeline created with `num_threads` < 1 can only be used for serialization.")
        if self._batch_size is None or self._batch_size < 1:
            raise ValueError(f"Invalid batch size: {self._batch_size}. Please set a positive "
                             "integer.")
        self.start_py_workers(define_graph)
        self._start_backend()
        _live.add(self)

    def _start_backend(self):
        """The engine for the document, started where the checkpoint (if any) says."""
        document = self._document
        self._reader_starts, self._consumed, self._position_lost = {}, 0, False
        self._exec_epoch, self._exec_samples = 0, 0
        self._shared_sizes.clear()
        if self._checkpoint is not None:
            document = self._document_from_checkpoint(document)
        if self._device_memory_limit is not None and self._device_id >= 0:
            _sluice.set_device_memory_limit(int(self._device_memory_limit), self._device_id)
        self._backend = _sluice.PipelineBackend(document)
        for name in self._backend.reader_names():
            if name in self._reader_starts:
                _checkpoint.check_epoch_size(name, self._restored["readers"][name],
                                             self._backend.reader_meta(name))
            else:
                self._reader_starts[name] = (0, 0, None)

    def _restore(self, checkpoint):
        """Starts the built pipeline again from `checkpoint` (the iterators' load_state_dict)."""
        self.build()
        self._checkpoint = checkpoint
        b, self._backend = self._backend, None
        b.close()
        self._feeder.reset(ended=self._end)
        self._feed_positions.clear()
        self._shared_positions.clear()
        self._scheduled, self._first_run, self._end = 0, True, False
        self._start_backend()

    def _prepare(self, define_graph=None):
        """The graph, its document and the external sources, without the engine."""
        if self._feeder is not None:
            if define_graph is not None:
                raise RuntimeError("build(define_graph) cannot be used after start_py_workers()")
            return
        self._define(define_graph)
        ops = self._collect()
        require_unique_names(ops)
        self._declared = per_output(self._output_dtype, self._output_ndim, self._output_layout,
                                    len(self._outputs))
        self._document = document_for(self, ops)
        self._feeder = SourceFeeder(self, ops)
        if self._enable_checkpointing:
            _checkpoint.warn_external_sources(self._feeder)

    # --- running ----------------------------------------------------------------------------
    def _check_api(self, mode):
        """run() ("BASIC") and the scheduled calls ("SCHEDULED") do not mix, as in DALI."""
        if not self._api_check:
            return
        if self._api_mode is None:
            self._api_mode = mode
        elif self._api_mode != mode:
            raise RuntimeError(f"Mixing pipeline API type. Currently used: PipelineAPIType."
                               f"{self._api_mode}, but trying to use PipelineAPIType.{mode}")

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
        position = self._feeder.position() if self._enable_checkpointing else None
        if not self._feeder.next_iteration(self._backend, self._batch_size):
            self._end = True
            return False
        if position is not None:
            self._feed_positions.append(position)
        self._backend.schedule_run()
        self._scheduled += 1
        return True

    def schedule_run(self):
        """Runs the pipeline without returning the outputs (see share_outputs())."""
        self._check_api("SCHEDULED")
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

    def share_outputs(self, cuda_stream=None):
        """The outputs of the next iteration (blocks). Release them with release_outputs().
        Raises StopIteration when no iteration is scheduled (at the end of the data). GPU
        outputs are ready on any stream: DLPack consumers wait on the pipeline's event."""
        self._check_api("SCHEDULED")
        return self._share()

    def _share(self):
        self.build()
        if self._scheduled == 0:
            raise StopIteration
        self._scheduled -= 1
        outputs, self._last_info = self._backend.share_outputs()
        self._consumed += 1
        size = len(outputs[0]) if outputs else self._batch_size
        self._exec_samples += size
        self._shared_sizes.append(size)
        if self._feed_positions:
            self._shared_positions.append(self._feed_positions.popleft())
        check_iteration(outputs, self._declared)
        return tuple(outputs)

    def release_outputs(self):
        """Gives the buffers of the oldest shared iteration back to the pipeline."""
        self._check_api("SCHEDULED")
        if self._backend is not None:
            self._backend.release_outputs()

    def outputs(self, cuda_stream=None):
        """Releases the previous outputs and returns the next ones (blocks); raises
        StopIteration at the end of the data."""
        self._check_api("SCHEDULED")
        return self._next_outputs()

    def _next_outputs(self):
        self.build()
        self._backend.release_outputs()
        return self._share()

    def _pipeline_inputs_possible(self):
        if not self._exec_pipelined:
            return True
        return self.cpu_queue_size <= 1 and self.gpu_queue_size <= 1

    def run(self, cuda_stream=None, /, **pipeline_inputs):
        """Runs one iteration and returns its outputs (prefetching the next ones). Keyword
        arguments feed the external sources of those names first, which needs
        prefetch_queue_depth=1 or exec_pipelined=False, as in DALI."""
        if pipeline_inputs and not self._pipeline_inputs_possible():
            raise RuntimeError(f"""
                When using pipeline_inputs named arguments, either
                `prefetch_queue_depth` in Pipeline constructor shall be set to 1 (for both devices)
                or `exec_pipelined` shall be set to False.
                Received: prefetch_queue_depth={self.prefetch_queue_depth},
                exec_pipelined={self.exec_pipelined}.
                Please set the `prefetch_queue_depth` or `exec_pipelined` argument in the Pipeline
                constructor properly or provide inputs to DALI Pipeline via another mean
                (e.g. `feed_input` function or `source` argument in the `fn.external_source`
                operator.)""")
        self.build()
        for name, data in pipeline_inputs.items():
            self.feed_input(name, data)
        self._check_api("BASIC")
        self._backend.release_outputs()  # room for the next iteration
        self._schedule()
        return self._next_outputs()

    def reset(self):
        """Starts again after the end of the data or after an error."""
        if self._backend is None:
            return
        if self._scheduled and self._reader_starts:
            self._position_lost = True  # readers may or may not have read the dropped batches
        self._backend.reset()
        self._feeder.reset(ended=self._end)
        self._feed_positions.clear()
        self._shared_positions.clear()
        self._exec_epoch, self._exec_samples = self._exec_epoch + 1, 0
        self._shared_sizes.clear()
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
        if name not in self._input_names():
            raise KeyError(f'Could not find an input operator with name "{name}"')
        self._feeder.feed(self._backend, name, data, layout, self._batch_size)
        self._feeder.fed(name)

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

    def _load(self, doc):
        apply_params(self, doc["params"])
        self._outputs = [DataNode(n) for n in doc["outputs"]]
        self._declared = per_output(self._output_dtype, self._output_ndim, self._output_layout,
                                    len(self._outputs))
        self._document = json.dumps(doc)
        self._scheduled, self._first_run, self._end, self._api_mode = 0, True, False, None
        self._feeder = SourceFeeder.from_document(self, doc["ops"])
        self._start_backend()
        _live.add(self)

    # --- teardown ---------------------------------------------------------------------------
    def _close(self):
        if getattr(self, "_pid", os.getpid()) != os.getpid():
            # A forked child (a parallel external_source worker, a user's os.fork) has a copy of
            # this pipeline but none of its threads, and its workers' channels are the parent's:
            # closing the copy would wait forever for threads that are not there (the child's
            # garbage collector met one mid-task). The copy stays as it is until the child exits.
            _inherited.append(self)
            return
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
