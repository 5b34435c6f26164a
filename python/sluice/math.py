"""Element-wise mathematical functions of DataNodes (DALI's ``nvidia.dali.math``).

Each function builds one ``_arithmetic`` operator, as DataNode expressions (``a + b``, ``-a``,
``a < b``, ...) do. Operands are DataNodes, Python numbers, ``types.Constant`` values or
arrays (which become ``types.Constant`` tensors); types promote with DALI's rules, and integer
inputs give float32 where the function is a floating one (``sqrt``, ``sin``, ``fpow``, ...).
The operator runs on the GPU when any operand is GPU data.
"""

# DALI's display names of the operations in error messages.
_DISPLAY = {
    "add": "+", "sub": "-", "minus": "(unary) -", "mul": "*", "pow": "**", "div": "//",
    "fdiv": "/", "mod": "%", "bitand": "&", "bitor": "|", "bitxor": "^", "bitnot": "~",
    "lshift": "<<", "rshift": ">>", "eq": "==", "neq": "!=", "lt": "<", "leq": "<=", "gt": ">",
    "geq": ">=",
}


def _has_nested_data_node(value, seen):
    from sluice.data_node import DataNode

    if id(value) in seen:
        return False
    seen.add(id(value))
    for x in value:
        if isinstance(x, DataNode):
            return True
        if isinstance(x, (list, tuple)) and _has_nested_data_node(x, seen):
            return True
    return False


def _scalar_operand(x):
    """A Python number or ScalarConstant as (type name, value) of the constant operand."""
    from sluice import types

    if type(x) is bool:
        return types.BOOL, x
    if type(x) is int:
        return types.INT32, x
    if type(x) is float:
        return types.FLOAT, x
    if not isinstance(x, types.ScalarConstant):
        x = types.ScalarConstant(x)  # numpy scalars (np.float64 is a float subclass)
    return x.dtype, x.value


def _int64_constant(value, dtype):
    """`value`, an integer constant of type `dtype`, which travels as int64 (as in DALI, which
    refuses larger uint64 constants too)."""
    from sluice import types

    if -2 ** 63 <= value < 2 ** 63:
        return value
    if dtype == types.UINT64 and 0 <= value < 2 ** 64:
        raise OverflowError(f"Integer constant {value} of type uint64 is above 2^63 - 1: "
                            "arithmetic takes no such constants")
    raise OverflowError(f"Integer constant {value} out of range for "
                        f"{types.DALIDataType(dtype).name.lower()}.")


def _arithm_op(name, *inputs):
    """Builds the ``_arithmetic`` operator computing ``name`` (DALI's operation name) of
    `inputs` and returns its output."""
    from sluice import types
    from sluice._ops import make_node
    from sluice.data_node import DataNode

    display = _DISPLAY.get(name, name)
    edges, positions, ctypes, ints, reals = [], [], [], [], []
    for pos, x in enumerate(inputs):
        if isinstance(x, (list, tuple)) and _has_nested_data_node(x, set()):
            raise TypeError(
                f"The input {pos} of operator `{display}` must be a `DataNode` or a compatible "
                f"constant. Got a `{type(x).__name__}` with nested `DataNode`(s).\n"
                "Did you pass a return value of an operator producing multiple outputs?"
            )
        if not isinstance(x, (DataNode, types.ScalarConstant, int, float)):
            x = types.Constant(x)  # a ScalarConstant, or a DataNode for arrays and lists
        if isinstance(x, DataNode):
            edges.append(x)
            continue
        dtype, value = _scalar_operand(x)
        positions.append(pos)
        ctypes.append(types.DALIDataType(dtype).name)
        if dtype in types._float_types:
            reals.append(float(value))
        else:
            ints.append(_int64_constant(int(value), dtype))
    if not edges:
        raise TypeError(
            f"operator `{display}`: at least one operand must be a DataNode (an operator's output)"
        )
    if any(e.device == "gpu" for e in edges):
        edges = [e.gpu() for e in edges]
    args = {"op": name}
    if positions:
        args.update(constant_positions=positions, constant_types=ctypes,
                    integer_constants=ints, real_constants=reals)
    return make_node("_arithmetic", edges, args)


def sqrt(input):
    """Square root of `input`; integers give float32."""
    return _arithm_op("sqrt", input)


def rsqrt(input):
    """Reciprocal of the square root of `input`; integers give float32."""
    return _arithm_op("rsqrt", input)


def cbrt(input):
    """Cube root of `input`; integers give float32."""
    return _arithm_op("cbrt", input)


def exp(input):
    """Exponential of `input`; integers give float32."""
    return _arithm_op("exp", input)


def log(input):
    """Natural logarithm of `input`; integers give float32."""
    return _arithm_op("log", input)


def log2(input):
    """Base-2 logarithm of `input`; integers give float32."""
    return _arithm_op("log2", input)


def log10(input):
    """Base-10 logarithm of `input`; integers give float32."""
    return _arithm_op("log10", input)


def abs(input):  # noqa: A001 (DALI's name)
    """Absolute value of `input`, in its own type."""
    return _arithm_op("abs", input)


def fabs(input):
    """Floating absolute value of `input`; integers give float32."""
    return _arithm_op("fabs", input)


def floor(input):
    """Floor of `input`; integers give float32."""
    return _arithm_op("floor", input)


def ceil(input):
    """Ceiling of `input`; integers give float32."""
    return _arithm_op("ceil", input)


def sin(input):
    """Sine of `input`; integers give float32."""
    return _arithm_op("sin", input)


def cos(input):
    """Cosine of `input`; integers give float32."""
    return _arithm_op("cos", input)


def tan(input):
    """Tangent of `input`; integers give float32."""
    return _arithm_op("tan", input)


def asin(input):
    """Arcsine of `input`; integers give float32."""
    return _arithm_op("asin", input)


def acos(input):
    """Arccosine of `input`; integers give float32."""
    return _arithm_op("acos", input)


def atan(input):
    """Arctangent of `input`; integers give float32."""
    return _arithm_op("atan", input)


def sinh(input):
    """Hyperbolic sine of `input`; integers give float32."""
    return _arithm_op("sinh", input)


def cosh(input):
    """Hyperbolic cosine of `input`; integers give float32."""
    return _arithm_op("cosh", input)


def tanh(input):
    """Hyperbolic tangent of `input`; integers give float32."""
    return _arithm_op("tanh", input)


def asinh(input):
    """Inverse hyperbolic sine of `input`; integers give float32."""
    return _arithm_op("asinh", input)


def acosh(input):
    """Inverse hyperbolic cosine of `input`; integers give float32."""
    return _arithm_op("acosh", input)


def atanh(input):
    """Inverse hyperbolic tangent of `input`; integers give float32."""
    return _arithm_op("atanh", input)


def min(left, right):  # noqa: A001 (DALI's name)
    """Element-wise minimum, in the promoted type."""
    return _arithm_op("min", left, right)


def max(left, right):  # noqa: A001 (DALI's name)
    """Element-wise maximum, in the promoted type."""
    return _arithm_op("max", left, right)


def pow(base, exponent):  # noqa: A001 (DALI's name)
    """`base` to the power `exponent`, in the promoted type (integers stay integers: negative
    exponents give 0)."""
    return _arithm_op("pow", base, exponent)


def fpow(base, exponent):
    """`base` to the power `exponent` in floating point; integers give float32."""
    return _arithm_op("fpow", base, exponent)


def atan2(x, y):
    """Arctangent of x / y, using the signs of both for the quadrant; integers give float32."""
    return _arithm_op("atan2", x, y)


def clamp(value, lo, hi):
    """`value` limited to [lo, hi], in the type promoted from all three."""
    return _arithm_op("clamp", value, lo, hi)
