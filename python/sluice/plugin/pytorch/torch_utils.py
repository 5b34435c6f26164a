"""Copies of Sluice tensors into torch tensors (DALI's ``plugin.pytorch.torch_utils``).

The iterators hand batches over without copies (DLPack); feed_ndarray is for code that copies
into tensors of its own.
"""

import ctypes

import torch

from sluice import types
from sluice.tensors import TensorGPU, TensorListGPU

to_torch_type = {
    types.FLOAT: torch.float32,
    types.FLOAT64: torch.float64,
    types.FLOAT16: torch.float16,
    types.BFLOAT16: torch.bfloat16,
    types.UINT8: torch.uint8,
    types.INT8: torch.int8,
    types.BOOL: torch.bool,
    types.INT16: torch.int16,
    types.INT32: torch.int32,
    types.INT64: torch.int64,
}


def _shape(t):
    """A tensor's shape, or a dense batch's as one tensor."""
    if not hasattr(t, "__len__"):  # a tensor
        return list(t.shape())
    shapes = t.shape()
    if len(set(shapes)) > 1:
        raise AssertionError("Shapes do not match: the batch's samples differ in shape")
    return [len(shapes), *(shapes[0] if shapes else ())]


def feed_ndarray(dali_tensor, arr, cuda_stream=None):
    """Copies a TensorCPU / TensorGPU (or a dense batch) into the torch tensor `arr`, which must
    have its type and shape; on the GPU the copy goes on `cuda_stream` (a torch.cuda.Stream or a
    raw stream), asynchronously when one is given. Returns `arr`."""
    torch_type = to_torch_type[dali_tensor.dtype]
    if torch_type != arr.dtype:
        raise AssertionError(
            "The element type of DALI Tensor/TensorList doesn't match the element type of the "
            f"target PyTorch Tensor: {torch_type} vs {arr.dtype}")
    if _shape(dali_tensor) != list(arr.size()):
        raise AssertionError(f"Shapes do not match: DALI tensor has size {_shape(dali_tensor)}, "
                             f"but PyTorch Tensor has size {list(arr.size())}")
    if not arr.is_contiguous():
        raise AssertionError("feed_ndarray needs a contiguous destination tensor")
    pointer = ctypes.c_void_p(arr.data_ptr())
    if isinstance(dali_tensor, (TensorGPU, TensorListGPU)):
        dali_tensor.copy_to_external(pointer, cuda_stream, non_blocking=cuda_stream is not None)
    else:
        dali_tensor.copy_to_external(pointer)
    return arr
