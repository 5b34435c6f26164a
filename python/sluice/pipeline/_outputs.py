"""A pipeline's outputs: what the graph may return (DataNodes, constants), the declared
output_dtype / output_ndim / output_layout, and the check of every iteration against them.
The messages are DALI's, as users match on them."""

from sluice.data_node import DataNode
from sluice.types import DALIDataType

# DALI's names of the element types in its messages (the type's own name, lower case, otherwise).
_DALI_TYPE_NAMES = {"FLOAT": "float", "FLOAT64": "double"}


def _type_name(dtype):
    return _DALI_TYPE_NAMES.get(dtype.name, dtype.name.lower())


def _no_type():
    return getattr(DALIDataType, "NO_TYPE", None)


def check_declarations(output_dtype, output_ndim, output_layout):
    """Validates the constructor's output_dtype / output_ndim / output_layout as DALI does."""
    dtype_msg = "`output_dtype` must be either: a value from nvidia.dali.types.DALIDataType, a "
    if isinstance(output_dtype, (list, tuple)):
        for dtype in output_dtype:
            if not isinstance(dtype, (DALIDataType, type(None))):
                raise TypeError(f"{dtype_msg}list of these or None. Found type {type(dtype)} in "
                                "the list.")
            if dtype is not None and dtype == _no_type():
                raise ValueError(f"`output_dtype` can't be a types.NO_TYPE. Found {dtype} in the "
                                 "list.")
    elif not isinstance(output_dtype, (DALIDataType, type(None))):
        raise TypeError(f"{dtype_msg}list of these or None. Found type: {type(output_dtype)}.")
    elif output_dtype is not None and output_dtype == _no_type():
        raise ValueError(f"`output_dtype` can't be a types.NO_TYPE. Found value: {output_dtype}")

    ndim_msg = "`output_ndim` must be either: an int, a list of ints or None."
    if isinstance(output_ndim, (list, tuple)):
        for ndim in output_ndim:
            if not isinstance(ndim, (int, type(None))):
                raise TypeError(f"{ndim_msg} Found type {type(ndim)} in the list.")
            if ndim is not None and ndim < 0:
                raise ValueError(f"`output_ndim` must be non-negative. Found value {ndim} in the "
                                 "list.")
    elif not isinstance(output_ndim, (int, type(None))):
        raise TypeError(f"{ndim_msg} Found type: {type(output_ndim)}.")
    elif output_ndim is not None and output_ndim < 0:
        raise ValueError(f"`output_ndim` must be non-negative. Found value: {output_ndim}.")

    layout_msg = "`output_layout` must be either: a string, a list of strings or None."
    if isinstance(output_layout, (list, tuple)):
        for layout in output_layout:
            if not isinstance(layout, (str, type(None))):
                raise TypeError(f"{layout_msg} Found type {type(layout)} in the list.")
    elif not isinstance(output_layout, (str, type(None))):
        raise TypeError(f"{layout_msg} Found type: {type(output_layout)}.")


def per_output(output_dtype, output_ndim, output_layout, num_outputs):
    """The declarations as one (dtype, ndim, layout) per output, a single value broadcast; DALI's
    RuntimeError when a list's length is not the number of outputs."""
    lists = [v if isinstance(v, (list, tuple)) else [v] * num_outputs
             for v in (output_dtype, output_ndim, output_layout)]
    if any(len(v) != num_outputs for v in lists):
        raise RuntimeError(
            f"Lengths of provided output descriptions do not match. \n"
            f"Expected num_outputs={num_outputs}.\nReceived:\noutput_dtype={lists[0]}\n"
            f"output_ndim={lists[1]}\noutput_layout={lists[2]}")
    return list(zip(*lists))


def check_iteration(outputs, declared):
    """Checks one iteration's outputs against per_output()'s declarations."""
    for i, (out, (dtype, ndim, layout)) in enumerate(zip(outputs, declared)):
        if dtype is not None and out.dtype != dtype:
            raise RuntimeError(f"Data type in the output_idx={i} does not match. Expected: "
                               f"{_type_name(dtype)}. Received: {_type_name(out.dtype)}.")
        if ndim is not None and len(out) and len(out.shape()[0]) != ndim:
            raise RuntimeError(f"Number of dimensions in the output_idx={i} does not match. "
                               f"Expected: {ndim}. Received: {len(out.shape()[0])}.")
        if layout and out.layout() != layout:
            raise RuntimeError(f"Layout in the output_idx={i} does not match. Expected: "
                               f"{layout}. Received: {out.layout()}.")


def _contains_data_node(value):
    if isinstance(value, (list, tuple)):
        return any(isinstance(x, DataNode) or _contains_data_node(x) for x in value)
    return False


def graph_outputs(outputs):
    """The pipeline's outputs as DataNodes: constants (numbers, lists of numbers, arrays,
    types.Constant) become constant operators on the CPU, as in DALI."""
    from sluice import types

    result = []
    for i, out in enumerate(outputs):
        if isinstance(out, DataNode):
            result.append(out)
            continue
        if _contains_data_node(out):
            raise TypeError(f"Illegal pipeline output type. The output {i} contains a nested "
                            "`DataNode`. Missing list/tuple expansion (*) is the likely cause.")
        constant = getattr(types, "Constant", None)
        try:
            if constant is None:
                raise TypeError("types.Constant is not available")
            scalar = getattr(types, "ScalarConstant", ())
            if scalar and isinstance(out, scalar):
                node = constant(out.value, dtype=out.dtype, device="cpu")
            else:
                node = constant(out, device="cpu")
            if not isinstance(node, DataNode):
                raise TypeError("not a constant")
        except (TypeError, ValueError, NotImplementedError):
            raise TypeError(
                f"Illegal output type. The output {i} is a `{type(out)}`. Allowed types are "
                "``DataNode`` and types convertible to `types.Constant` (numerical constants, 1D "
                "lists/tuple of numbers and ND arrays).") from None
        result.append(node)
    return result


def require_unique_names(ops):
    """DALI's error for two operators with one name."""
    by_name = {}
    for op in ops:
        by_name.setdefault(op.name, []).append(op)
    duplicate = {name: found for name, found in by_name.items() if len(found) > 1}
    if duplicate:
        raise RuntimeError("The pipeline is invalid because it contains operators with "
                           f"non-unique names:\n{duplicate}")
