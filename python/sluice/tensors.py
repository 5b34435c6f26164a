"""Tensors and batches (DALI's ``nvidia.dali.tensors``): ``TensorCPU``, ``TensorGPU``,
``TensorListCPU``, ``TensorListGPU``, and how they print.

str() shows the data, repr() only the type, layout, device and shapes, in DALI's format: numpy's
formatting of each sample, at most two samples at each end of a large batch and at most two
shapes at each end of a long list of shapes.
"""

import numpy as np

from sluice._sluice import TensorCPU, TensorGPU, TensorListCPU, TensorListGPU  # noqa: F401

_INDENT = " " * 4
_EDGE = 2  # items shown at each end of a summarised sequence


def _summarised(items, crop):
    if crop and len(items) > 2 * _EDGE + 1:
        return items[:_EDGE] + ["..."] + items[-_EDGE:]
    return items


def _numpy(tensor):
    """A CPU or GPU tensor's data as numpy (bfloat16 widened to float32)."""
    from sluice.types import DALIDataType

    cpu = tensor.as_cpu()
    if cpu.dtype != DALIDataType.BFLOAT16:
        return np.array(cpu)
    bits = np.empty(cpu.shape(), np.uint16)
    cpu.copy_to_external(bits.ctypes.data)
    return (bits.astype(np.uint32) << 16).view(np.float32)


def _device(obj):
    return type(obj).__name__[-3:].lower()


def _tensor_to_string(self, show_data=True):
    """str() (show_data) or repr() of a TensorCPU / TensorGPU."""
    params = []
    if show_data:
        params.append(np.array2string(_numpy(self), prefix=_INDENT, edgeitems=_EDGE))
    params.append(f"dtype={self.dtype}")
    if self.layout():
        params.append(f'layout="{self.layout()}"')
    params += [f'device="{_device(self)}"', f"shape={tuple(self.shape())})"]
    return f"{type(self).__name__}(\n{_INDENT}" + f",\n{_INDENT}".join(params)


def _batch_data(batch, indent):
    shapes = batch.shape()
    if not shapes:
        return "[]"
    elements = sum(max(int(np.prod(s, dtype=np.int64)), 1) for s in shapes)
    crop = len(shapes) > 2 * _EDGE + 1 and elements > 1000
    n = len(shapes)
    chosen = [*range(_EDGE), *range(n - _EDGE, n)] if crop else range(n)
    samples = [_numpy(batch[i]) for i in chosen]
    texts = [np.array2string(s, prefix=indent, edgeitems=_EDGE) for s in samples]
    if crop:
        texts = texts[:_EDGE] + ["..."] + texts[_EDGE:]
    ndim = samples[0].ndim
    sep = ", " if ndim == 0 else ",\n" + "\n" * (ndim - 1) + indent
    return "[" + sep.join(texts) + "]"


def _tensorlist_to_string(self, show_data=True, indent=""):
    """str() (show_data) or repr() of a TensorListCPU / TensorListGPU."""
    inner = indent + _INDENT
    shapes = self.shape()
    crop = len(shapes) > 16 or (len(shapes) > 2 * _EDGE + 1 and len(shapes) * len(shapes[0]) > 100)
    shape_texts = _summarised([str(s) for s in shapes], crop)
    shape_str = ", ".join(shape_texts)
    if len(shape_str) > 75:  # one shape per line
        shape_str = (", \n" + inner + " " * len("shape=[")).join(shape_texts)
    params = [_batch_data(self, inner)] if show_data else []
    params.append(f"dtype={self.dtype}")
    if self.layout():
        params.append(f'layout="{self.layout()}"')
    params += [f'device="{_device(self)}"', f"num_samples={len(self)}", f"shape=[{shape_str}])"]
    return f"{type(self).__name__}(\n{inner}" + f",\n{inner}".join(params)
