"""DataNode: a symbolic batch in a pipeline graph (an operator's output)."""

# DALI's text (users match on it): a DataNode in `if`, `and`, `or`, `not` or bool() without
# conditionals.
NO_TRUTH_VALUE = (
    '"DataNode" was used in conditional context - it might have been used in truth evaluation '
    "for `if` statement, logical expression or cast to a boolean. To use conditional execution "
    "via `if` statements you need to specify `enable_conditionals=True` in "
    "`@nvidia.dali.pipeline_def` decorator. You can read more about conditional execution in "
    "specific section of the Pipeline documentation. Bool conversion can be achieved with the "
    "`cast` operator.")


class DataNode:
    """The output of an operator while a graph is being defined. It carries no data: pass it
    to other operators, use it in arithmetic, or return it from a pipeline definition."""

    def __init__(self, name, device="cpu", source=None):
        self.name = name
        self.device = device
        self.source = source  # the operator instance that produces it

    def __repr__(self):
        return f"DataNode(name={self.name!r}, device={self.device!r})"

    __hash__ = object.__hash__

    def __bool__(self):
        raise TypeError(NO_TRUTH_VALUE)

    def gpu(self):
        """This data on the GPU (a transfer in the mixed stage)."""
        if self.device == "gpu":
            return self
        from sluice._ops import make_node

        return make_node("_to_gpu", [self], {"device": "mixed"})

    def cpu(self):
        raise NotImplementedError(
            "DataNode.cpu(): moving GPU data back to the CPU stage is not supported"
        )

    def shape(self, *args, **kwargs):
        raise NotImplementedError("DataNode.shape() is not supported yet")

    def __getitem__(self, index):
        raise NotImplementedError("indexing a DataNode is not supported yet")

    # Arithmetic and comparisons build "_arithmetic" operators.
    def __add__(self, other):
        return _arith("add", self, other)

    def __radd__(self, other):
        return _arith("add", self, other, reverse=True)

    def __sub__(self, other):
        return _arith("sub", self, other)

    def __rsub__(self, other):
        return _arith("sub", self, other, reverse=True)

    def __mul__(self, other):
        return _arith("mul", self, other)

    def __rmul__(self, other):
        return _arith("mul", self, other, reverse=True)

    def __truediv__(self, other):
        return _arith("div", self, other)

    def __rtruediv__(self, other):
        return _arith("div", self, other, reverse=True)

    def __floordiv__(self, other):
        return _arith("floordiv", self, other)

    def __rfloordiv__(self, other):
        return _arith("floordiv", self, other, reverse=True)

    def __neg__(self):
        return _arith("neg", self, None)

    def __pos__(self):
        return self

    def __eq__(self, other):
        return _arith("eq", self, other)

    def __ne__(self, other):
        return _arith("ne", self, other)

    def __lt__(self, other):
        return _arith("lt", self, other)

    def __le__(self, other):
        return _arith("le", self, other)

    def __gt__(self, other):
        return _arith("gt", self, other)

    def __ge__(self, other):
        return _arith("ge", self, other)


def _arith(op, a, b, reverse=False):
    from sluice._ops import make_node

    if b is None:
        return make_node("_arithmetic", [a], {"op": op})
    if isinstance(b, DataNode):
        x, y = (b, a) if reverse else (a, b)
        if x.device != y.device:  # mixed devices: compute on the GPU
            x, y = x.gpu(), y.gpu()
        return make_node("_arithmetic", [x, y], {"op": op})
    if isinstance(b, bool) or not isinstance(b, (int, float)):
        if hasattr(b, "item"):  # numpy scalar
            b = b.item()
        else:
            raise TypeError(f"unsupported operand for DataNode arithmetic: {type(b).__name__}")
    return make_node(
        "_arithmetic",
        [a],
        {"op": op, "scalar": float(b), "scalar_is_int": isinstance(b, int), "scalar_left": reverse},
    )
