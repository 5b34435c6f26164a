"""Sluice: feeds GPUs during deep-learning training.

The API follows NVIDIA DALI's pipeline API: replace ``nvidia.dali`` with ``sluice``.
"""

import sys as _sys

from sluice import _sluice, backend, tensors, types  # noqa: F401
from sluice import fn, math, ops  # noqa: F401
from sluice import _ops as _ops_module
from sluice.data_node import DataNode, newaxis  # noqa: F401
from sluice.errors import (  # noqa: F401
    CudaError,
    DecodeError,
    InvalidArgumentError,
    OutOfMemoryError,
    SluiceError,
)
from sluice.external_source import BatchInfo, ExternalSource, SampleInfo, external_source
from sluice.pipeline import OperatorConcurrency, Pipeline, StreamPolicy, pipeline_def  # noqa: F401
from sluice import _python_function

__version__ = "0.1.0"

_ops_module.populate(fn, ops)
fn.external_source = external_source
ops.ExternalSource = ExternalSource
for _name, _cls in (("python_function", "PythonFunction"),
                    ("dl_tensor_python_function", "DLTensorPythonFunction"),
                    ("torch_python_function", "TorchPythonFunction")):
    setattr(fn, _name, getattr(_python_function, _name))
    setattr(ops, _cls, getattr(_python_function, _cls))
from sluice import tfrecord  # noqa: E402

tfrecord.install(fn, ops)
types.BatchInfo = BatchInfo
types.SampleInfo = SampleInfo


def _register_submodules(module):
    for name, value in list(vars(module).items()):
        if type(value) is type(_sys) and value.__name__.startswith(module.__name__ + "."):
            _sys.modules.setdefault(value.__name__, value)
            _register_submodules(value)


_register_submodules(fn)
_register_submodules(ops)
