"""What an external_source `source` is and how it is called, with DALI's rules: the kinds of
source (callable, iterable, generator function), how many arguments a callable takes, the cycle
modes, and the checks every batch passes before it is fed.

Shared by the sequential sources (run in the consumer thread) and the parallel workers.
"""

import enum
import functools
import inspect

import numpy as np


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


class BatchInfo:
    """What a batch callback (batch_info=True) is told about the batch it produces."""

    def __init__(self, iteration, epoch_idx):
        self.iteration = iteration
        self.epoch_idx = epoch_idx

    def __repr__(self):
        return f"BatchInfo(iteration={self.iteration}, epoch_idx={self.epoch_idx})"


class SourceKind(enum.Enum):
    CALLABLE = 0
    ITERABLE = 1
    GENERATOR_FUNC = 2


class SourceDesc:
    """A source as given: its kind, whether a callable takes the sample/batch information, and
    the cycle mode ("no", "quiet" or "raise"). Workers rebuild their iterators from it."""

    def __init__(self, source, kind, has_inputs, cycle, batch_info=False):
        self.source = source
        self.kind = kind
        self.has_inputs = has_inputs
        self.cycle = cycle
        self.batch_info = batch_info


_CYCLE_MODES = {None: "no", False: "no", "no": "no", True: "quiet", "quiet": "quiet",
                "raise": "raise"}


def cycle_mode(cycle):
    """cycle= as "no", "quiet" or "raise" (ValueError for anything else)."""
    try:
        return _CYCLE_MODES[cycle]
    except (KeyError, TypeError):
        raise ValueError(
            f"Invalid value {cycle!r} for the argument `cycle`. Valid values are "
            '"no", False or None (no cycling), "quiet" or True (rewind the data quietly) and '
            '"raise" (raise StopIteration at each rewind)') from None


def is_generator_function(x):
    """x is a generator function, a partial of one, or an object whose __call__ is one."""
    if inspect.isgeneratorfunction(x):
        return True
    if isinstance(x, functools.partial):
        return is_generator_function(x.func)
    if x is None or inspect.isfunction(x) or inspect.ismethod(x):
        return False
    call = getattr(x, "__call__", None)
    return call is not x and call is not None and is_generator_function(call)


def accepted_arg_count(fn):
    """0 or 1: the positional arguments a source callable takes (TypeError for other
    signatures: DALI passes nothing, or the sample / batch information)."""
    if not (inspect.isfunction(fn) or inspect.ismethod(fn)) and hasattr(fn, "__call__"):
        fn = fn.__call__
    implicit = 0
    if inspect.ismethod(fn):
        implicit, fn = 1, fn.__func__
    what = ("The `source` callable must accept either 0 or 1 positional arguments to indicate "
            "whether it accepts the batch or sample indexing information.")
    params = inspect.signature(fn).parameters.values()
    for p in params:
        if p.kind == inspect.Parameter.VAR_POSITIONAL:
            raise TypeError(f"{what} Found var-positional argument `*{p.name}` which is not allowed.")
        if p.kind == inspect.Parameter.VAR_KEYWORD:
            raise TypeError(f"{what} Found var-keyword argument `**{p.name}` which is not allowed.")
        if p.kind == inspect.Parameter.KEYWORD_ONLY:
            raise TypeError(f"{what} Found keyword-only argument `{p.name}` which is not allowed.")
    n = len(params) - implicit
    if n not in (0, 1):
        raise TypeError(f"{what} Found more than one positional argument, which is not allowed.")
    return n


class CycleIter:
    """Iterates over an iterable (or a generator function's generators) again and again; in
    "raise" mode each rewind raises StopIteration first."""

    def __init__(self, source, mode, generator_function):
        self.source = source
        self.signaling = mode == "raise"
        self.generator_function = generator_function
        self.it = self._fresh()

    def _fresh(self):
        return iter(self.source() if self.generator_function else self.source)

    def __iter__(self):
        return self

    def __next__(self):
        try:
            return next(self.it)
        except StopIteration:
            self.it = self._fresh()
            if self.signaling:
                raise
            return next(self.it)


def describe_source(source, cycle, batch_info=False):
    """(callback, SourceDesc) for a `source`: iterables and generator functions become a
    callback without arguments that returns the next item (once for cycle="no": a list is not
    replayed after its end). TypeError / ValueError for what cannot be a source."""
    mode = cycle_mode(cycle)
    try:
        genfunc = is_generator_function(source)
        if mode != "no":
            if inspect.isgenerator(source):
                raise TypeError(
                    "Cannot cycle through a generator - if the generator is a result of calling "
                    "a generator function, pass that function instead as `source`.")
            kind = SourceKind.GENERATOR_FUNC if genfunc else SourceKind.ITERABLE
            iterator = CycleIter(source, mode, genfunc)
        else:
            kind = SourceKind.GENERATOR_FUNC if genfunc else SourceKind.ITERABLE
            iterator = iter(source() if genfunc else source)
    except TypeError as e:
        if "not iterable" not in str(e):
            raise
        if cycle is not None:
            raise ValueError("The argument `cycle` can only be specified if `source` is iterable.") from None
        if not callable(source):
            raise TypeError("The `source` must be callable, iterable or a parameterless generator "
                            f"function; got {type(source).__name__}.") from None
        desc = SourceDesc(source, SourceKind.CALLABLE, accepted_arg_count(source) > 0, mode, batch_info)
        return source, desc
    return (lambda: next(iterator)), SourceDesc(source, kind, False, mode, batch_info)


# --- batches ---------------------------------------------------------------------------------
def _shape(x):
    if hasattr(x, "shape"):
        return tuple(x.shape() if callable(x.shape) else x.shape)
    for attr in ("__array_interface__", "__cuda_array_interface__"):
        if hasattr(x, attr):
            return tuple(getattr(x, attr)["shape"])
    from sluice.errors import InvalidArgumentError

    raise InvalidArgumentError(
        f"Don't know how to extract the shape out of {type(x)}: a sample must be an array (numpy, "
        "torch, a Sluice tensor or anything with __array_interface__)")


def _is_tensor_list(x):
    return type(x).__name__ in ("TensorListCPU", "TensorListGPU")


def check_batch(data, batch_size, layout):
    """DALI's checks of a batch before it is fed: at most batch_size samples, one number of
    dimensions, a layout that can describe them."""
    from sluice.errors import InvalidArgumentError

    if isinstance(data, (list, tuple)) or _is_tensor_list(data):
        shapes = [_shape(x) for x in data] if not _is_tensor_list(data) else list(data.shape())
    else:
        shape = _shape(data)
        if not shape:
            raise InvalidArgumentError("a batch given as one array needs a leading batch dimension")
        shapes = [shape[1:]] * shape[0]
    if len(shapes) > batch_size:
        raise InvalidArgumentError(
            "The external source callback returned an unexpected batch size. Expected "
            f"batch_size <= {batch_size}, actual: {len(shapes)}")
    if shapes:
        ndim = len(shapes[0])
        if any(len(s) != ndim for s in shapes):
            raise InvalidArgumentError("All tensors in a batch must have the same number of dimensions")
        if layout and len(layout) != ndim:
            raise InvalidArgumentError(f"The layout '{layout}' cannot describe {ndim}-dimensional data")


def contiguous(x):
    """A sample (or a batch array) as the engine takes it: C-contiguous, 0-d arrays kept 0-d."""
    if isinstance(x, np.ndarray):
        return x if x.flags.c_contiguous else np.ascontiguousarray(x).reshape(x.shape)
    if hasattr(x, "contiguous") and hasattr(x, "__dlpack__"):  # torch
        return x.contiguous()
    if hasattr(x, "__dlpack__") or _is_tensor_list(x):
        return x
    a = np.asarray(x)
    return a if a.flags.c_contiguous else np.ascontiguousarray(a).reshape(a.shape)


def normalize_batch(batch):
    """A batch as the engine takes it: a TensorList, one array with a batch dimension, or a list
    of per-sample contiguous arrays."""
    if isinstance(batch, (list, tuple)):
        return [contiguous(x) for x in batch]
    return contiguous(batch)
