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

    def shape(self, *, dtype=None, device="cpu"):
        """The run-time shape of each sample, as a new DataNode: one 1-D tensor of `dtype`
        (default INT64) per sample. `device` is where the result is ("cpu" or "gpu")."""
        from sluice._ops import make_node

        if device not in ("cpu", "gpu"):
            raise ValueError(f"device must be 'cpu' or 'gpu', got {device!r}")
        args = {} if dtype is None else {"dtype": dtype}
        if self.device == "gpu":
            if device == "cpu":
                raise NotImplementedError(
                    "DataNode.shape() of GPU data on the CPU: data cannot flow back from the GPU "
                    "stage to the CPU stage; use shape(device='gpu')")
            return make_node("shapes", [self], dict(args, device="gpu"))
        shapes = make_node("shapes", [self], dict(args, device="cpu"))
        return shapes.gpu() if device == "gpu" else shapes

    def property(self, key, *, device="cpu"):
        """A property of each sample as a 1-D uint8 tensor (fn.get_property): "source_info"
        (the file it was read from) or "layout". `device` is where the result is."""
        from sluice._ops import make_node

        if device not in ("cpu", "gpu"):
            raise ValueError(f"device must be 'cpu' or 'gpu', got {device!r}")
        if self.device == "gpu":
            if device == "cpu":
                raise NotImplementedError(
                    "DataNode.property() of GPU data on the CPU: data cannot flow back from the "
                    "GPU stage to the CPU stage; use property(key, device='gpu')")
            return make_node("get_property", [self], {"key": key, "device": "gpu"})
        value = make_node("get_property", [self], {"key": key, "device": "cpu"})
        return value.gpu() if device == "gpu" else value

    def source_info(self, *, device="cpu"):
        """The "source_info" property (see property())."""
        return self.property("source_info", device=device)

    def __getitem__(self, index):
        return _subscript(self, index)

    # Arithmetic, comparisons and bitwise operations build "_arithmetic" operators (sluice.math).
    def __add__(self, other):
        return _arithm_op("add", self, other)

    def __radd__(self, other):
        return _arithm_op("add", other, self)

    def __sub__(self, other):
        return _arithm_op("sub", self, other)

    def __rsub__(self, other):
        return _arithm_op("sub", other, self)

    def __mul__(self, other):
        return _arithm_op("mul", self, other)

    def __rmul__(self, other):
        return _arithm_op("mul", other, self)

    def __pow__(self, other):
        return _arithm_op("pow", self, other)

    def __rpow__(self, other):
        return _arithm_op("pow", other, self)

    def __truediv__(self, other):
        return _arithm_op("fdiv", self, other)

    def __rtruediv__(self, other):
        return _arithm_op("fdiv", other, self)

    def __floordiv__(self, other):
        return _arithm_op("div", self, other)

    def __rfloordiv__(self, other):
        return _arithm_op("div", other, self)

    def __mod__(self, other):
        return _arithm_op("mod", self, other)

    def __rmod__(self, other):
        return _arithm_op("mod", other, self)

    def __neg__(self):
        return _arithm_op("minus", self)

    def __pos__(self):  # a no-op, as in DALI
        return self

    def __abs__(self):
        return _arithm_op("abs", self)

    def __invert__(self):
        return _arithm_op("bitnot", self)

    def __and__(self, other):
        return _arithm_op("bitand", self, other)

    def __rand__(self, other):
        return _arithm_op("bitand", other, self)

    def __or__(self, other):
        return _arithm_op("bitor", self, other)

    def __ror__(self, other):
        return _arithm_op("bitor", other, self)

    def __xor__(self, other):
        return _arithm_op("bitxor", self, other)

    def __rxor__(self, other):
        return _arithm_op("bitxor", other, self)

    def __lshift__(self, other):
        return _arithm_op("lshift", self, other)

    def __rlshift__(self, other):
        return _arithm_op("lshift", other, self)

    def __rshift__(self, other):
        return _arithm_op("rshift", self, other)

    def __rrshift__(self, other):
        return _arithm_op("rshift", other, self)

    def __eq__(self, other):
        return _arithm_op("eq", self, other)

    def __ne__(self, other):
        return _arithm_op("neq", self, other)

    def __lt__(self, other):
        return _arithm_op("lt", self, other)

    def __le__(self, other):
        return _arithm_op("leq", self, other)

    def __gt__(self, other):
        return _arithm_op("gt", self, other)

    def __ge__(self, other):
        return _arithm_op("geq", self, other)


def _arithm_op(name, *inputs):
    from sluice.math import _arithm_op as op

    return op(name, *inputs)


class _NewAxis:
    """``sluice.newaxis``: in an index, inserts a dimension of extent 1; ``newaxis("C")`` also
    names it in the layout (all new dimensions named, or none)."""

    def __init__(self, name=None):
        if name is not None:
            if not isinstance(name, str):
                raise TypeError("Axis name must be a single-character string")
            if len(name) != 1:
                raise ValueError("Axis name must be a single-character string")
        self._name = name

    @property
    def name(self):
        return self._name

    def __call__(self, name=None):
        return _NewAxis(name)


newaxis = _NewAxis()


def _index_value(x):
    """An index or slice bound: an int (numpy integers and bools included) or a DataNode."""
    if isinstance(x, DataNode):
        return x
    if isinstance(x, (float, str)) or not hasattr(x, "__index__"):
        raise TypeError(f"Invalid type for an index: {type(x).__name__}")
    return int(x)


def _subscript(node, index):
    """DALI's indexing of a DataNode: integers remove a dimension (a DataNode index gives one
    per sample), slices keep it (steps and negative bounds as in Python), newaxis inserts one;
    `None` is a full slice, as in DALI."""
    from sluice._ops import make_node

    index = index if isinstance(index, tuple) else (index,)
    subscripts, new_axes, names = [], [], []
    for v in index:
        if v is Ellipsis:
            raise NotImplementedError("Ellipsis in indexing is not implemented")
        if isinstance(v, _NewAxis):
            new_axes.append(len(subscripts) - sum(1 for s in subscripts if s[0] == "at") +
                            len(new_axes))
            if v.name is not None:
                names.append(v.name)
            continue
        if v is None:
            subscripts.append(("slice", None, None, None))
        elif isinstance(v, slice):
            subscripts.append(("slice", *(None if b is None else _index_value(b)
                                          for b in (v.start, v.stop, v.step))))
        else:
            subscripts.append(("at", _index_value(v)))
    if names and len(names) != len(new_axes):
        raise ValueError("New axis name must be specified for all axes or none.")
    args = {}
    for i, s in enumerate(subscripts):
        if s[0] == "at":
            args[f"at_{i}"] = s[1]
        else:
            args.update({f"{k}_{i}": b for k, b in zip(("lo", "hi", "step"), s[1:])
                         if b is not None})
    if args:
        out = make_node("_tensor_subscript", [node], dict(args, num_subscripts=len(subscripts)))
    elif new_axes and isinstance(index[-1], _NewAxis):
        out = node  # expand_dims checks the dimensions
    else:
        out = make_node("_subscript_dim_check", [node], {"num_subscripts": len(subscripts)})
    if not new_axes:
        return out
    kwargs = {"axes": new_axes}
    if names:
        kwargs["new_axis_names"] = "".join(names)
    return make_node("expand_dims", [out], kwargs)
