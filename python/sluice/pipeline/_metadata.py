"""What a pipeline tells about itself and how it is saved: its properties (DALI's), reader
metadata, statistics, the declared outputs, serialization. A base of Pipeline (_pipeline.py)."""

import enum
import json
import warnings

from sluice.pipeline._document import document_for, given_params, load_document, overrides


def _warn(message):
    warnings.warn(message, Warning, stacklevel=3)


class StreamPolicy(enum.Enum):
    """DALI's CUDA stream policy (Pipeline(stream_policy=...)): accepted; Sluice's stages keep
    their own streams (docs/ARCHITECTURE.md)."""

    SINGLE = 1
    PER_BACKEND = 2
    PER_OPERATOR = 3
    UNSPECIFIED = 0


class OperatorConcurrency(enum.Enum):
    """DALI's operator concurrency (Pipeline(concurrency=...)): accepted; Sluice runs its stages
    concurrently and each operator over samples in parallel."""

    NONE = 1
    BACKEND = 2
    FULL = 3
    UNSPECIFIED = 0


class PipelineMetadata:
    """Pipeline's properties, metadata and serialization (see Pipeline)."""

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
        meta = self._backend.reader_meta(name) if name in self._backend.reader_names() else None
        if meta is None:
            raise RuntimeError(f"Operator {name} not found or does not expose valid metadata.")
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
        """The pipeline as a JSON document (data only, never code); equal pipelines give equal
        documents."""
        if define_graph is not None and not callable(define_graph):
            raise TypeError("Provided `define_graph` argument is not callable." + (
                " Didn't you want to write `.serialize(filename=...)`?"
                if isinstance(define_graph, str) else ""))
        if self._document is None:
            self._define(define_graph)
            self._document = document_for(self, self._collect())
        python_ops = [op["name"] for op in json.loads(self._document)["ops"]
                      if "function_id" in op["args"]]
        if python_ops:  # the document cannot carry a function (DALI refuses it too)
            raise RuntimeError(f"Could not serialize the operator `{python_ops[0]}`: Python "
                               "function operators cannot be serialized.")
        if filename is not None:
            with open(filename, "w") as f:
                f.write(self._document)
        return self._document

    @classmethod
    def deserialize(cls, serialized_pipeline=None, filename=None, **kwargs):
        """A built pipeline from serialize()'s document; kwargs override its parameters."""
        doc = load_document(serialized_pipeline, filename)
        pipe = cls()
        pipe._load({**doc, "params": {**doc["params"], **overrides(kwargs)}})
        return pipe

    def deserialize_and_build(self, serialized_pipeline):
        """Replaces this pipeline's graph with a serialised one and builds it; the parameters
        this pipeline was given override the document's."""
        doc = load_document(serialized_pipeline)
        self._close()
        self._load({**doc, "params": {**doc["params"], **given_params(self)}})

    def save_graph_to_dot_file(self, filename, show_tensors=False, show_ids=False, use_colors=False):
        """Writes the (pruned) graph in Graphviz format."""
        self.build()
        with open(filename, "w") as f:
            f.write(self._backend.dot(show_tensors, show_ids, use_colors))

    def input_feed_count(self, input_name):
        """How many batches an external_source fed with feed_input() takes before the first
        run: the prefetch depth."""
        self.build()
        if input_name not in self._input_names():
            raise KeyError(f'The pipeline doesn\'t have an input named "{input_name}".')
        return self.cpu_queue_size

    def _input_names(self):
        return {op["name"] for op in json.loads(self._document)["ops"]
                if op["type"] == "external_source"}

    def output_stream(self):
        """The CUDA stream the outputs are produced on (0 for CPU-only pipelines)."""
        self.build()
        return self._backend.stream

    # --- properties -------------------------------------------------------------------------
    @property
    def batch_size(self):
        """Maximum batch size (deprecated: use max_batch_size)."""
        _warn("batch_size is deprecated, please use max_batch_size instead")
        return self._batch_size

    max_batch_size = property(lambda self: self._batch_size, doc="Maximum batch size.")
    num_threads = property(lambda self: self._num_threads)
    device_id = property(lambda self: None if self._device_id < 0 else self._device_id)
    seed = property(lambda self: None if self._seed is None or self._seed < 0 else self._seed)
    exec_pipelined = property(lambda self: self._exec_pipelined)
    exec_async = property(lambda self: self._exec_async)
    exec_separated = property(lambda self: isinstance(self._prefetch_queue_depth, dict))
    exec_dynamic = property(lambda self: self._exec_dynamic)
    stream_policy = property(lambda self: self._stream_policy)
    concurrency = property(lambda self: self._concurrency)
    prefetch_queue_depth = property(lambda self: self._prefetch_queue_depth)
    set_affinity = property(lambda self: self._set_affinity)
    max_streams = property(lambda self: -1, doc="Deprecated, unused; -1.")
    default_cuda_stream_priority = property(lambda self: 0, doc="Deprecated; 0.")
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

    @property
    def num_outputs(self):
        """The number of outputs (builds the pipeline)."""
        self.build()
        return len(self._outputs)

    def output_dtype(self):
        """The declared data type of each output (None where not declared); builds."""
        self.build()
        return [d[0] for d in self._declared]

    def output_ndim(self):
        """The declared number of dimensions of each output (None where not declared); builds."""
        self.build()
        return [d[1] for d in self._declared]
