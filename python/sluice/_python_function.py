"""fn.python_function, fn.dl_tensor_python_function and torch_python_function: Python code
inside a pipeline, with DALI's calling conventions.

The operator runs on the engine's stage thread like any other; only its own run takes the GIL
(python/src/bind_python_function.cc) and calls `_run` below, which converts the inputs, calls the
function once per sample or once per batch, checks what it returned and hands the outputs back as
arrays the engine copies. The function is kept in this module under a key (`function_id`, the only
thing the pipeline's document holds), for as long as its operator - and so its pipeline - lives.

What the function gets, per kind and device (DALI's conventions):
  numpy  (python_function)            CPU: read-only numpy arrays; GPU: CuPy arrays when CuPy is
                                      installed, else Sluice TensorGPU views (any DLPack consumer
                                      takes them without a copy: torch.from_dlpack, ...)
  dlpack (dl_tensor_python_function)  DLPack capsules, and it returns capsules
  torch  (torch_python_function)      torch tensors
batch_processing=True passes each input as a list of samples and takes each output as a list.
"""

import itertools
import threading
import weakref

import numpy as np

_FUNCTIONS = weakref.WeakValueDictionary()  # function_id -> _Function, alive with its operator
_ids = itertools.count(1)
_ids_lock = threading.Lock()
_current = threading.local()  # the stream of the call in progress (current_stream())
_KINDS = {"python_function": "numpy", "dl_tensor_python_function": "dlpack",
          "torch_python_function": "torch"}
_NUMPY_KINDS = "biuf"  # bool, signed, unsigned, float: what a tensor can hold


class _FunctionError(Exception):
    """What the function raised (its __cause__) or why its result was refused, with the function
    and the sample named; the engine adds the operator and the iteration."""


def _describe(function):
    name = getattr(function, "__qualname__", None) or type(function).__name__
    code = getattr(function, "__code__", None)
    where = f" ({code.co_filename}:{code.co_firstlineno})" if code is not None else ""
    return f"function '{name}'{where}"


def _is_capsule(x):
    return type(x).__name__ == "PyCapsule"


class _Function:
    """One operator's function and how to call it."""

    def __init__(self, type_name, function, num_outputs, batch_processing, device):
        self.type_name = type_name
        self.kind = _KINDS[type_name]
        self.function = function
        self.num_outputs = num_outputs
        self.batch_processing = batch_processing
        self.device = device
        self.described = _describe(function)
        with _ids_lock:
            self.id = next(_ids)
        _FUNCTIONS[self.id] = self

    # --- inputs -------------------------------------------------------------------------------
    def _sample_in(self, tensor):
        if self.kind == "dlpack":
            return tensor.__dlpack__()
        if self.kind == "torch":
            import torch

            return torch.from_dlpack(tensor)
        if self.device == "cpu":
            a = np.asarray(tensor).view()  # its base keeps the engine's buffer alive
            a.flags.writeable = False  # the function must not change its inputs
            return a
        cupy = _cupy()
        return cupy.from_dlpack(tensor) if cupy is not None else tensor

    # --- outputs ------------------------------------------------------------------------------
    def _sample_out(self, x, stream):
        """A returned sample as something the engine imports (numpy array, DLPack capsule)."""
        if self.kind == "dlpack":
            if not _is_capsule(x):
                raise TypeError(f"{self.type_name} must return DLPack capsules, got "
                                f"{type(x).__name__}")
            return x
        if self.kind == "torch":
            import torch

            if not isinstance(x, torch.Tensor):
                raise TypeError(f"torch_python_function must return torch tensors, got "
                                f"{type(x).__name__}")
            x = x.detach().contiguous()
            return x if self.device == "cpu" else x.__dlpack__(stream=stream or 1)
        if self.device == "cpu":
            if not isinstance(x, np.ndarray):
                raise TypeError(f"python_function must return numpy arrays, got "
                                f"{type(x).__name__}")
            if x.dtype.kind not in _NUMPY_KINDS:
                raise TypeError(f"python_function returned an array of {x.dtype}, which a "
                                "tensor cannot hold (bool, integer and float types only)")
            # ascontiguousarray alone would make 0-d arrays 1-d
            return x if x.flags.c_contiguous else np.ascontiguousarray(x).reshape(x.shape)
        if not hasattr(x, "__dlpack__"):
            raise TypeError(f"python_function on the GPU must return arrays with __dlpack__ "
                            f"(CuPy, torch, ...), got {type(x).__name__}")
        cupy = _cupy()
        if cupy is not None and isinstance(x, cupy.ndarray) and not x.flags.c_contiguous:
            x = cupy.ascontiguousarray(x).reshape(x.shape)
        elif hasattr(x, "contiguous"):  # torch
            x = x.detach().contiguous()
        # The handshake orders the producer's work before the engine's copy on its stream.
        return x.__dlpack__(stream=stream or 1)

    def _outputs(self, result):
        """The function's result as a list of outputs (DALI's rules for tuples and None)."""
        n = self.num_outputs
        if result is None:
            if n:
                raise ValueError(f"the function returned None and {n} output(s) were expected")
            return []
        if n == 0:
            raise ValueError("the function returned a value but num_outputs=0")
        if n > 1 and not isinstance(result, tuple):
            raise TypeError("The output from a multi-output Python function operator must be a "
                            f"tuple, got: {type(result).__name__}")
        outs = list(result) if isinstance(result, tuple) else [result]
        if len(outs) != n:
            raise ValueError(f"Unexpected number of outputs from Python function operator - got "
                             f"{len(outs)}, expected {n}")
        return outs

    # --- the call -----------------------------------------------------------------------------
    def _call(self, args, where):
        try:
            return self.function(*args)
        except BaseException as e:  # noqa: B902 - KeyboardInterrupt too: it must not kill a thread
            raise _FunctionError(f"{self.described} raised {where}: {type(e).__name__}: {e}") from e

    def _convert(self, fn, where):
        try:
            return fn()
        except _FunctionError:
            raise
        except Exception as e:
            raise _FunctionError(f"{self.described} {where}: {type(e).__name__}: {e}") from e

    def run(self, inputs, batch_size, stream):
        outputs = [[] for _ in range(self.num_outputs)]
        if self.batch_processing:
            args = self._convert(lambda: [[self._sample_in(tl[i]) for i in range(batch_size)]
                                          for tl in inputs],
                                 "could not receive its inputs")
            result = self._call(args, "on the batch")

            def convert():
                outs = self._outputs(result)
                for k, batch in enumerate(outs):
                    if not isinstance(batch, list):
                        raise TypeError(f"with batch_processing=True each output must be a list "
                                        f"of samples; output {k} is a {type(batch).__name__}")
                    outputs[k] = [self._sample_out(x, stream) for x in batch]
                return outputs

            return self._convert(convert, "returned outputs that were refused")
        for i in range(batch_size):
            args = self._convert(lambda: [self._sample_in(tl[i]) for tl in inputs],
                                 f"could not receive sample {i}")
            result = self._call(args, f"on sample {i}")

            def convert():
                for k, x in enumerate(self._outputs(result)):
                    outputs[k].append(self._sample_out(x, stream))

            self._convert(convert, f"returned outputs for sample {i} that were refused")
        return outputs

    def call_on_stream(self, inputs, batch_size, stream, device_id):
        """run() with the function's GPU work ordered on the pipeline's stream, where the
        framework of its kind allows it (torch, CuPy), as DALI does."""
        if self.device != "gpu":
            return self.run(inputs, batch_size, stream)
        if self.kind == "torch":
            import torch

            s = torch.cuda.ExternalStream(stream, device=torch.device("cuda", device_id))
            with torch.cuda.stream(s):
                return self.run(inputs, batch_size, stream)
        cupy = _cupy() if self.kind == "numpy" else None
        if cupy is not None:
            with cupy.cuda.Device(device_id), cupy.cuda.ExternalStream(stream, device_id):
                return self.run(inputs, batch_size, stream)
        return self.run(inputs, batch_size, stream)


_cupy_module = None


def _cupy():
    """CuPy when it is installed (python_function on the GPU hands CuPy arrays then), else None."""
    global _cupy_module
    if _cupy_module is None:
        try:
            import cupy
        except ImportError:
            cupy = False
        _cupy_module = cupy
    return _cupy_module or None


def _run(function_id, inputs, batch_size, stream, device_id):
    """Called by the engine with the GIL held: the outputs (per output, a list of samples)."""
    f = _FUNCTIONS.get(function_id)
    if f is None:
        raise _FunctionError(f"the function of this operator (function_id {function_id}) is gone: "
                             "pipelines with Python functions run only where they were defined "
                             "and cannot be deserialized")
    _current.stream = stream
    try:
        return f.call_on_stream(inputs, batch_size, stream, device_id)
    finally:
        _current.stream = None


# --- the operators --------------------------------------------------------------------------
def _layouts(layouts, num_outputs):
    """output_layouts as a list: one string applies to every output, as in DALI."""
    if isinstance(layouts, str):
        return [layouts] * num_outputs
    return list(layouts) if isinstance(layouts, (list, tuple)) else layouts


def _make(type_name, function, inputs, num_outputs, device, batch_processing, kwargs):
    from sluice._ops import OpInstance
    from sluice.data_node import DataNode
    from sluice.pipeline import Pipeline

    if Pipeline.current() is None:
        raise RuntimeError(f"{type_name} needs a current pipeline: call it inside a "
                           "@pipeline_def function or a `with pipeline:` block")
    for x in inputs:  # constants (numbers, arrays) become constant operators, as in DALI
        if isinstance(x, (list, tuple)) and any(isinstance(v, DataNode) for v in x):
            raise TypeError(f"Expected inputs of type `DataNode`. Received input of type "
                            f"'{type(x).__name__}'. Python Operators do not support Multiple "
                            "Input Sets.")
    if not callable(function):
        raise TypeError(f"{type_name}: `function` must be callable, got {type(function).__name__}")
    if not isinstance(num_outputs, int) or num_outputs < 0:
        raise ValueError(f"{type_name}: num_outputs must be a non-negative integer, got "
                         f"{num_outputs!r}")
    kwargs = dict(kwargs)
    if kwargs.get("output_layouts") is not None:
        kwargs["output_layouts"] = _layouts(kwargs["output_layouts"], num_outputs)
    entry = _Function(type_name, function, num_outputs, bool(batch_processing), device)
    op = OpInstance(type_name, list(inputs),
                    dict(kwargs, function_id=entry.id, num_outputs=num_outputs,
                         batch_processing=bool(batch_processing), device=device))
    op.py_function = entry  # the operator keeps its function alive (see _FUNCTIONS)
    op.preserve = True  # called even when no output is used, as in DALI
    entry.device = op.device  # as the graph placed it
    return op.outputs[0] if num_outputs == 1 else list(op.outputs)


def python_function(*inputs, function, num_outputs=1, device="cpu", batch_processing=False,
                    **kwargs):
    """Runs `function` on the batch (DALI's fn.python_function).

    The function gets one argument per input: a read-only numpy array per sample on the CPU;
    on the GPU a CuPy array (with CuPy installed; it runs on the pipeline's stream) or a Sluice
    TensorGPU that any DLPack consumer takes without a copy. It returns an array (numpy on the
    CPU; anything with __dlpack__ on the GPU), or a tuple of num_outputs of them, or None for
    num_outputs=0. With batch_processing=True it is called once per batch with a list of
    samples per input and returns a list of samples per output. output_layouts: one layout for
    every output, or a list (outputs past its end get none). An exception in the function fails
    the iteration: Pipeline.run() raises a SluiceError naming the operator, the iteration, the
    function and the sample, whose __cause__ is the function's exception.
    """
    return _make("python_function", function, inputs, num_outputs, device, batch_processing,
                 kwargs)


def dl_tensor_python_function(*inputs, function, num_outputs=1, device="cpu",
                              synchronize_stream=True, batch_processing=True, **kwargs):
    """Runs `function` on DLPack capsules and takes DLPack capsules back (DALI's
    fn.dl_tensor_python_function); once per batch by default (lists of capsules). On the GPU,
    synchronize_stream=True waits for the pipeline's work before the call; the function's own
    device work must be finished when it returns."""
    return _make("dl_tensor_python_function", function, inputs, num_outputs, device,
                 batch_processing, dict(kwargs, synchronize_stream=synchronize_stream))


def torch_python_function(*inputs, function, num_outputs=1, device="cpu", batch_processing=False,
                          **kwargs):
    """Runs `function` on torch tensors (DALI's plugin.pytorch.fn.torch_python_function); on
    the GPU its torch work runs on the pipeline's stream."""
    return _make("torch_python_function", function, inputs, num_outputs, device,
                 batch_processing, kwargs)


class _OpClass:
    """ops.PythonFunction and its kin: arguments to the constructor, inputs to the call."""

    _fn = None

    def __init__(self, function, num_outputs=1, **kwargs):
        self._function = function
        self._num_outputs = num_outputs
        self._kwargs = kwargs

    def __call__(self, *inputs, **kwargs):
        for k, v in kwargs.items():
            if v is not None and self._kwargs.get(k) is not None:
                raise ValueError(f"The argument ``{k}`` already specified in constructor.")
        merged = {**self._kwargs, **{k: v for k, v in kwargs.items() if v is not None}}
        return type(self)._fn(*inputs, function=self._function, num_outputs=self._num_outputs,
                              **merged)

    @staticmethod
    def current_stream():
        """The CUDA stream of the pipeline whose function is running (as an int), or None."""
        return getattr(_current, "stream", None)


class PythonFunction(_OpClass):
    _fn = staticmethod(python_function)


class DLTensorPythonFunction(_OpClass):
    _fn = staticmethod(dl_tensor_python_function)


class TorchPythonFunction(_OpClass):
    _fn = staticmethod(torch_python_function)
