"""fn.external_source / ops.ExternalSource: batches from Python, with DALI's calling conventions.

A `source` is called in the thread that schedules iterations (run(), schedule_run(), the
iterators), never on the engine's workers, or - with parallel=True - in worker processes that
hand the batches over in shared memory; each batch is fed to the engine before its iteration is
scheduled. Without a source, Pipeline.feed_input() gives the data. See sluice._callbacks for the
kinds of source and sluice._feeding for how batches are fed.
"""

from sluice import pickling  # noqa: F401 - sluice.pickling, as nvidia.dali.pickling
from sluice._callbacks import BatchInfo, SampleInfo, SourceKind, describe_source  # noqa: F401
from sluice._feeding import SourceGroup
from sluice._ops import OpInstance

_OP_ARGS = ("preserve", "seed", "blocking", "no_copy")  # schema arguments besides the ones below


def _per_output(value, n, i, fill):
    """DALI's per-output arguments: a list gives output i its entry (`fill` past its end)."""
    if isinstance(value, (list, tuple)):
        return value[i] if i < len(value) else fill
    return value


def _check_parallel(desc, batch, no_copy, prefetch_queue_depth, bytes_per_sample_hint):
    if no_copy is False:
        raise ValueError("The argument ``no_copy`` cannot be specified to False when used with "
                         "``parallel=True``.")
    if prefetch_queue_depth < 1:
        raise ValueError(f"``prefetch_queue_depth`` must be a positive integer, got {prefetch_queue_depth}.")
    if bytes_per_sample_hint is not None and bytes_per_sample_hint < 1:
        raise ValueError(f"``bytes_per_sample_hint`` must be a positive integer, got {bytes_per_sample_hint}.")
    if desc.kind == SourceKind.CALLABLE:
        if not desc.has_inputs:
            raise TypeError(
                "Callable passed to External Source in parallel mode (when `parallel=True`) must "
                "accept exactly one argument: `SampleInfo` if run with `batch=False` or either "
                "`BatchInfo` or integer that represents the index of the batch within the epoch "
                "if `batch=True`. Got a callable that does not accept arguments instead.")
    elif not batch:
        what = "an iterable" if desc.kind == SourceKind.ITERABLE else "a generator function"
        raise TypeError(f"Parallel external source with {what} must be run in a batch mode "
                        "(specify `batch=True` in the external source definition and make sure "
                        "your source returns batches)")


def _external_source(source=None, num_outputs=None, *, cycle=None, name=None, device="cpu",
                     layout=None, dtype=None, ndim=None, cuda_stream=None, use_copy_kernel=None,
                     blocking=None, batch=True, repeat_last=False, parallel=None, no_copy=None,
                     prefetch_queue_depth=None, bytes_per_sample_hint=None, batch_info=None,
                     **kwargs):
    unknown = [k for k in kwargs if k not in _OP_ARGS]
    if unknown:
        raise ValueError(f'Got an unexpected argument "{unknown[0]}"')
    if device not in ("cpu", "gpu"):
        raise ValueError(f"external_source: device must be 'cpu' or 'gpu', got {device!r}")
    if num_outputs is not None and source is None:
        raise ValueError(
            "The parameter ``num_outputs`` is only valid when using ``source`` to provide data. To "
            "feed multiple external sources in ``feed_input``, use multiple `external_source` nodes.")
    if name is not None and num_outputs is not None:
        raise RuntimeError("``num_outputs`` is not compatible with named `fn.external_source`.")
    callback, desc = describe_source(source, cycle, bool(batch_info)) if source is not None else (None, None)
    if callback is not None and repeat_last:
        raise ValueError("``repeat_last`` must not be set when using the ``source`` argument. "
                         "It's usable only with manually fed `fn.external_source`.")
    parallel = bool(parallel)
    if parallel:
        prefetch_queue_depth = 1 if prefetch_queue_depth is None else prefetch_queue_depth
        if desc is not None:
            _check_parallel(desc, batch, no_copy, prefetch_queue_depth, bytes_per_sample_hint)
        no_copy = True
    else:
        for value, arg in ((prefetch_queue_depth, "prefetch_queue_depth"),
                           (bytes_per_sample_hint, "bytes_per_sample_hint")):
            if value is not None:
                raise ValueError(f"The argument `{arg}` is valid only for parallel external sources "
                                 "(when ``parallel`` is True).")
    n = 1 if num_outputs is None else int(num_outputs)
    ops, layouts = [], []
    for i in range(n):
        args = dict(kwargs, name=name, device=device, repeat_last=repeat_last or None,
                    blocking=blocking, no_copy=no_copy,
                    layout=_per_output(layout, n, i, ""), dtype=_per_output(dtype, n, i, None),
                    ndim=_per_output(ndim, n, i, None))
        layouts.append(args["layout"] or None)
        args["layout"] = args["layout"] or None
        op = OpInstance("external_source", [], args)
        op.preserve = False  # as in DALI: an external_source no output needs is pruned
        ops.append(op)
    if callback is not None:
        group = SourceGroup(callback, desc, ops, num_outputs, batch=batch, batch_info=bool(batch_info),
                            parallel=parallel, prefetch_queue_depth=prefetch_queue_depth,
                            bytes_per_sample_hint=bytes_per_sample_hint, no_copy=bool(no_copy),
                            layouts=layouts)
        for op in ops:
            op.es_group = group
    outputs = [op.outputs[0] for op in ops]
    return outputs[0] if num_outputs is None else outputs


def external_source(source=None, num_outputs=None, *, cycle=None, name=None, device="cpu",
                    layout=None, dtype=None, ndim=None, cuda_stream=None, use_copy_kernel=None,
                    blocking=None, batch=True, repeat_last=False, parallel=None, no_copy=None,
                    prefetch_queue_depth=None, bytes_per_sample_hint=None, batch_info=None,
                    **kwargs):
    """Outputs data coming from Python (DALI's fn.external_source).

    `source`: a callable called once per batch (with no argument, the iteration index, or a
    BatchInfo when batch_info=True), or once per sample with batch=False (with no argument or a
    SampleInfo); an iterable or a generator function (one batch per item, or one sample per item
    with batch=False). With num_outputs=N each batch (or sample) is a tuple of N and N DataNodes
    are returned. Without a source, feed each iteration with Pipeline.feed_input(name, data);
    blocking=True waits for that data (fed from another thread), repeat_last=True reuses the last
    batch when none was fed.

    cycle: "no" / False / None (StopIteration at the end; reset() goes on with the source as it
    is), "quiet" / True (rewinds silently) or "raise" (StopIteration, then starts over).
    layout, dtype, ndim: per output (a list for several); the data is checked against them, and
    without layout the output has the layout the data was fed with. no_copy=True feeds the
    arrays' memory without a copy (they must not change until the iteration is consumed).

    parallel=True runs the source in the pipeline's Python worker processes (py_num_workers,
    py_start_method): a callable taking a SampleInfo (batch=False) or the batch index /
    BatchInfo, an iterable or a generator function (batch=True); prefetch_queue_depth batches
    are computed ahead; bytes_per_sample_hint sizes the shared memory.
    """
    return _external_source(source, num_outputs, cycle=cycle, name=name, device=device,
                            layout=layout, dtype=dtype, ndim=ndim, cuda_stream=cuda_stream,
                            use_copy_kernel=use_copy_kernel, blocking=blocking, batch=batch,
                            repeat_last=repeat_last, parallel=parallel, no_copy=no_copy,
                            prefetch_queue_depth=prefetch_queue_depth,
                            bytes_per_sample_hint=bytes_per_sample_hint, batch_info=batch_info,
                            **kwargs)


class ExternalSource:
    """ops.ExternalSource: the class form of fn.external_source. Arguments may be given to the
    constructor or to the call, not both; parallel=True makes batch default to False here."""

    _CALL_ONLY = ("name",)
    _RUNTIME_ERROR = ("layout", "dtype", "ndim", "cuda_stream", "use_copy_kernel")  # as DALI

    def __init__(self, source=None, num_outputs=None, **kwargs):
        self._source = source
        self._num_outputs = num_outputs
        self._kwargs = kwargs
        if kwargs.get("name") is not None and num_outputs is not None:
            raise ValueError("`num_outputs` is not compatible with named `ops.ExternalSource`")

    def __call__(self, *, source=None, cycle=None, **kwargs):
        if source is not None and self._source is not None:
            raise RuntimeError("``source`` already specified in constructor.")
        if cycle is not None and source is None:
            raise ValueError("The argument ``cycle`` can only be specified if ``source`` is a "
                             "reusable iterable or a generator function specified in this call.")
        merged = dict(self._kwargs)
        for k, v in kwargs.items():
            if v is None:
                continue
            if self._kwargs.get(k) is not None and k not in self._CALL_ONLY:
                error = RuntimeError if k in self._RUNTIME_ERROR else ValueError
                raise error(f"The argument ``{k}`` already specified in constructor.")
            merged[k] = v
        if cycle is not None:
            merged["cycle"] = cycle
        if merged.get("batch") is None:
            merged["batch"] = not merged.get("parallel", False)
        return _external_source(source if source is not None else self._source,
                                self._num_outputs, **merged)
