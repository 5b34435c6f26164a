"""fn.external_source: batches from Python callables, iterables and lists.

The source runs on the thread that schedules iterations (never on the engine's workers); each
batch is fed to the engine before its iteration is scheduled.
"""

import inspect

import numpy as np

from sluice._ops import OpInstance


class BatchInfo:
    """What a batch callback (batch_info=True) is told about the batch it produces."""

    def __init__(self, iteration, epoch_idx):
        self.iteration = iteration
        self.epoch_idx = epoch_idx

    def __repr__(self):
        return f"BatchInfo(iteration={self.iteration}, epoch_idx={self.epoch_idx})"


class SampleInfo:
    """What a per-sample callback (batch=False) is told about the sample it produces."""

    def __init__(self, idx_in_epoch, idx_in_batch, iteration, epoch_idx):
        self.idx_in_epoch = idx_in_epoch
        self.idx_in_batch = idx_in_batch
        self.iteration = iteration
        self.epoch_idx = epoch_idx

    def __repr__(self):
        return (f"SampleInfo(idx_in_epoch={self.idx_in_epoch}, idx_in_batch={self.idx_in_batch}, "
                f"iteration={self.iteration}, epoch_idx={self.epoch_idx})")


def _contiguous(x):
    if isinstance(x, np.ndarray):
        return np.require(x, requirements="C")  # ascontiguousarray would make 0-d arrays 1-d
    if hasattr(x, "contiguous") and hasattr(x, "__dlpack__"):  # torch
        return x.contiguous()
    if hasattr(x, "__dlpack__") or type(x).__name__.startswith("TensorList"):
        return x
    return np.require(np.asarray(x), requirements="C")


def normalize_batch(batch):
    """A batch as the engine takes it: a TensorList, one array with a batch dimension, or a
    list of per-sample contiguous arrays."""
    if isinstance(batch, (list, tuple)):
        return [_contiguous(x) for x in batch]
    return _contiguous(batch)


class ExternalSourceGroup:
    """One `source` feeding one or more external_source operators (num_outputs)."""

    def __init__(self, source, ops, num_outputs, cycle, batch, batch_info):
        self.source = source
        self.ops = ops
        self.num_outputs = num_outputs  # None: a single output, not a tuple
        if cycle not in (None, False, True, "quiet", "raise", "no"):
            raise ValueError(f"external_source: cycle must be False, True, 'quiet' or 'raise', got {cycle!r}")
        self.cycle = {None: "no", False: "no", True: "quiet"}.get(cycle, cycle)
        self.batch = batch
        self.batch_info = batch_info
        self.iteration = 0
        self.epoch = 0
        self.sample_in_epoch = 0
        self._iter = None
        self._callable = None
        self._setup()

    def _setup(self):
        s = self.source
        if inspect.isgeneratorfunction(s):
            self._iter = iter(s())
        elif callable(s) and not hasattr(s, "__iter__"):
            self._callable = s
        elif hasattr(s, "__iter__"):
            if self.cycle == "no" and not isinstance(s, (list, tuple)) and iter(s) is s:
                self._iter = s  # a one-shot iterator: no rewinding
            else:
                self._iter = iter(s)
        else:
            raise TypeError(
                f"external_source: source must be callable, iterable or a list, got {type(s).__name__}"
            )

    def reset(self):
        """Start over after the end of the data (pipeline reset)."""
        self.epoch += 1
        self.iteration = 0
        self.sample_in_epoch = 0
        if self._callable is None:
            self._setup()

    def _next_from_iter(self):
        try:
            return next(self._iter)
        except StopIteration:
            if self.cycle == "quiet":
                self._setup()
                return next(self._iter)
            raise

    def next_batch(self, max_batch_size):
        """The next batch (a tuple with one entry per output). Raises StopIteration at the end."""
        if self.batch:
            if self._callable is not None:
                data = (self._callable(BatchInfo(self.iteration, self.epoch)) if self.batch_info
                        else self._callable())
            else:
                data = self._next_from_iter()
        else:
            samples = []
            for i in range(max_batch_size):
                info = SampleInfo(self.sample_in_epoch + i, i, self.iteration, self.epoch)
                try:
                    samples.append(self._callable(info) if self._callable else self._next_from_iter())
                except StopIteration:
                    if not samples:
                        raise
                    break
            self.sample_in_epoch += len(samples)
            data = list(zip(*samples)) if self.num_outputs else samples
        self.iteration += 1
        if self.num_outputs is None:
            return (data,)
        if len(data) != self.num_outputs:
            raise ValueError(
                f"external_source: the source returned {len(data)} outputs, expected num_outputs={self.num_outputs}"
            )
        return tuple(data)


def external_source(source=None, num_outputs=None, *, cycle=None, name=None, device="cpu",
                    layout=None, dtype=None, ndim=None, cuda_stream=None, use_copy_kernel=None,
                    batch=True, parallel=False, no_copy=None, prefetch_queue_depth=1,
                    batch_info=False, repeat_last=False, **kwargs):
    """Outputs data coming from Python.

    `source` is a callable (called once per batch, with a BatchInfo when batch_info=True, or
    once per sample with a SampleInfo when batch=False), an iterable or generator function
    (one batch per item), or a list of batches. With num_outputs=N each batch is a tuple of N
    batches and N DataNodes are returned. Without a source, feed data with
    Pipeline.feed_input(name, data) before each run(). At the end of the data (StopIteration)
    the pipeline raises StopIteration after the batches already scheduled; reset() starts
    again. cycle=True (or "quiet") rewinds iterables silently.
    """
    if parallel:
        raise NotImplementedError("external_source(parallel=True): parallel Python workers are not supported yet")
    if repeat_last:
        raise NotImplementedError("external_source(repeat_last=True) is not supported yet")
    if kwargs:
        raise TypeError(f"external_source got unexpected arguments: {', '.join(kwargs)}")
    if device not in ("cpu", "gpu"):
        raise ValueError(f"external_source: device must be 'cpu' or 'gpu', got {device!r}")
    if source is None and num_outputs is not None:
        raise ValueError("external_source: num_outputs needs a source")
    n = 1 if num_outputs is None else int(num_outputs)
    layouts = layout if isinstance(layout, (list, tuple)) else [layout] * n
    dtypes = dtype if isinstance(dtype, (list, tuple)) else [dtype] * n
    ndims = ndim if isinstance(ndim, (list, tuple)) else [ndim] * n
    ops = []
    for i in range(n):
        op_name = name if (n == 1 or name is None) else f"{name}[{i}]"
        args = {"name": op_name, "device": device, "layout": layouts[i] or "", "dtype": dtypes[i],
                "ndim": ndims[i]}
        ops.append(OpInstance("external_source", [], args))
    if source is not None:
        group = ExternalSourceGroup(source, ops, num_outputs, cycle, batch, batch_info)
        for op in ops:
            op.es_group = group
    outputs = [op.outputs[0] for op in ops]
    return outputs[0] if num_outputs is None else outputs


class ExternalSource:
    """ops.ExternalSource: the legacy class form of fn.external_source."""

    def __init__(self, source=None, num_outputs=None, **kwargs):
        self._source = source
        self._num_outputs = num_outputs
        self._kwargs = kwargs

    def __call__(self, source=None, **kwargs):
        merged = dict(self._kwargs)
        merged.update(kwargs)
        return external_source(source if source is not None else self._source,
                               self._num_outputs, **merged)

