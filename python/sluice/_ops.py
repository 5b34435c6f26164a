"""Operator instances and the fn.* / ops.* namespaces, generated from the engine's schemas."""

import itertools
import json
import keyword
import threading
import types as _pytypes

from sluice import _sluice
from sluice.data_node import DataNode
from sluice.types import _to_arg

SCHEMAS = {s["name"]: s for s in _sluice.schemas()}
_ALIASES = {a: s["name"] for s in SCHEMAS.values() for a in s["aliases"]}
# Operators created while no pipeline is current are numbered apart, as in DALI ("_detached_").
_detached = itertools.count()
_detached_lock = threading.Lock()


def schema(name):
    return SCHEMAS[_ALIASES.get(name, name)]


def _arg_type(s, name):
    return next(a["type"] for a in s["args"] if a["name"] == name)


# DALI's class names that capitalising the words does not give.
_CLASS_NAMES = {"tfrecord": "TFRecord", "mxnet": "MXNet", "coco": "COCO"}


def camel(name):
    """'image_random_crop' -> 'ImageRandomCrop'."""
    if name in _CLASS_NAMES:
        return _CLASS_NAMES[name]
    return "".join(p[:1].upper() + p[1:] for p in name.split("_"))


class OpInstance:
    """One operator in a graph: its type, device, inputs, argument inputs and arguments."""

    def __init__(self, type_name, inputs, kwargs):
        from sluice.pipeline import Pipeline

        s = schema(type_name)
        self.type = s["name"]
        self.schema = s
        current = Pipeline.current()  # not stored: no reference cycle keeps pipelines alive
        # Conditionals and debug mode see every operator: they place its inputs in the branch
        # being traced / run it at once (sluice._conditionals, sluice._debug_mode).
        hooks = getattr(current, "_op_hooks", None)
        if hooks is not None:
            inputs, kwargs = hooks.before_op(self.type, inputs, kwargs)
        kwargs = dict(kwargs)
        self.name = kwargs.pop("name", None) or _default_name(self.type, current)
        device = kwargs.pop("device", None)
        self.preserve = bool(kwargs.get("preserve", False))
        self.inputs = _constant_inputs(self.type, inputs, device)
        if self.type.startswith("readers."):
            from sluice.sharding import resolve_auto

            resolve_auto(kwargs)
        self.arg_inputs = {}
        self.args = {}
        for k, v in kwargs.items():
            if isinstance(v, DataNode):
                self.arg_inputs[k] = v
            elif v is not None:
                self.args[k] = _to_arg(v)
        _sluice.validate_args(self.type, json.dumps(self.args))
        for k in self.arg_inputs:
            spec = next((a for a in s["args"] if a["name"] == k), None)
            if spec is None:
                _sluice.validate_args(self.type, json.dumps({k: 0}))  # raises: unknown argument
            if not spec["per_sample"]:
                raise ValueError(
                    f"operator '{self.type}': argument '{k}' must be a constant; it does not "
                    "accept per-sample tensor inputs"
                )
        if device is None:
            device = _sluice.infer_device(self.type, [x.device for x in self.inputs])
        elif device not in ("cpu", "mixed", "gpu"):
            raise ValueError(
                f"operator '{self.type}': device must be 'cpu', 'mixed' or 'gpu', got {device!r}"
            )
        self.device = device
        n = self.args.get(s["num_outputs_arg"]) if s["num_outputs_arg"] else None
        if n is not None and _arg_type(s, s["num_outputs_arg"]) in (
            "int or list of int", "str or list of str"):
            # One output per element (element_extract's element_map, readers.tfrecord's
            # feature_names, readers.webdataset's ext).
            n = n if isinstance(n, list) else [n]
            if not n:
                raise ValueError(f"operator '{self.type}': argument '{s['num_outputs_arg']}' "
                                 "must not be empty")
            n = len(n)
        n = s["num_outputs"] if n is None else n
        if s.get("output_per_input_beyond", -1) >= 0:
            n += max(0, len(self.inputs) - s["output_per_input_beyond"])
        for name in s.get("output_if_args", []):
            spec = next(a for a in s["args"] if a["name"] == name)
            n += bool(self.args.get(name, spec["default"]))
        for name, value in s.get("output_unless_args", []):
            spec = next(a for a in s["args"] if a["name"] == name)
            n += str(self.args.get(name, spec["default"])) != value
        out_device = "cpu" if device == "cpu" else "gpu"
        self.outputs = [DataNode(f"{self.name}[{i}]", out_device, self) for i in range(n)]
        if current is not None:
            current._register_op(self)
        if hooks is not None:
            hooks.after_op(self)

    def to_json(self):
        return {
            "type": self.type,
            "name": self.name,
            "device": self.device,
            "inputs": [x.name for x in self.inputs],
            "arg_inputs": {k: v.name for k, v in self.arg_inputs.items()},
            "outputs": [x.name for x in self.outputs],
            "args": self.args,
        }


def _constant_inputs(type_name, inputs, device):
    """The inputs, with numbers, lists and arrays made constant operators as DALI makes them
    (``fn.full_like(x, 7)``), on the GPU when the operator or another input is there."""
    from sluice import types

    if all(isinstance(x, DataNode) for x in inputs):
        return list(inputs)
    on_gpu = device == "gpu" or any(isinstance(x, DataNode) and x.device == "gpu" for x in inputs)
    out = []
    for i, x in enumerate(inputs):
        if isinstance(x, types.ScalarConstant):
            x = types.Constant(x.value, x.dtype, device="gpu" if on_gpu else "cpu")
        elif isinstance(x, (bool, int, float, list, tuple)) or types._is_array(x):
            x = types.Constant(x, device="gpu" if on_gpu else "cpu")
        if not isinstance(x, DataNode):
            raise TypeError(
                f"operator '{type_name}': input {i} must be a DataNode (an operator's "
                f"output) or a constant, got {type(x).__name__}"
            )
        out.append(x)
    return out


def _default_name(type_name, pipeline):
    """DALI's default instance name: numbered per pipeline, so that equal pipelines get equal
    names (and equal serialized documents)."""
    cls = camel(type_name.split(".")[-1])
    if pipeline is not None:
        return f"__{cls}_{pipeline._next_op_id()}"
    with _detached_lock:
        return f"__{cls}_detached_{next(_detached)}"


def make_node(type_name, inputs, kwargs):
    """Creates an operator and returns its output (or the list of its outputs)."""
    op = OpInstance(type_name, inputs, kwargs)
    return op.outputs[0] if len(op.outputs) == 1 else list(op.outputs)


def _docstring(s):
    lines = [s["doc"], ""]
    if s["inputs"]:
        lines.append("Inputs:")
        lines += [f"    {i['name']}: {i['doc']}" for i in s["inputs"]]
        lines.append("")
    lines.append("Keyword arguments:")
    for a in s["args"]:
        default = "required" if a["required"] else f"default = {a['default']!r}"
        tensor = ", per-sample TensorList allowed" if a["per_sample"] else ""
        choices = f" (one of {', '.join(a['choices'])})" if a.get("choices") else ""
        lines.append(f"    {a['name']} ({a['type']}{tensor}; {default}){choices}: {a['doc']}")
    lines.append(f"    device: one of {', '.join(s['devices'])}; inferred from the inputs when omitted.")
    lines.append("    name: instance name (readers: the name for reader_meta / epoch_size).")
    return "\n".join(lines)


def _fn_function(type_name):
    s = SCHEMAS[type_name]

    def op(*inputs, **kwargs):
        return make_node(type_name, inputs, kwargs)

    op.__name__ = type_name.split(".")[-1]
    op.__qualname__ = type_name
    op.__doc__ = _docstring(s)
    return op


def _ops_class(type_name):
    s = SCHEMAS[type_name]

    def __init__(self, **kwargs):
        self._kwargs = kwargs

    def __call__(self, *inputs, **kwargs):
        merged = dict(self._kwargs)
        merged.update(kwargs)
        return make_node(type_name, inputs, merged)

    name = camel(type_name.split(".")[-1])
    return type(name, (), {"__init__": __init__, "__call__": __call__, "__doc__": _docstring(s),
                           "schema_name": type_name})


def _namespace(root, dotted):
    ns = root
    for part in dotted:
        child = getattr(ns, part, None)
        if child is None:
            child = _pytypes.ModuleType(f"{ns.__name__}.{part}")
            setattr(ns, part, child)
        ns = child
    return ns


def _missing_operator(ns):
    """A module __getattr__ for a namespace of operators: a name Sluice lacks is an AttributeError
    saying so, with the closest operator of that namespace and where the supported ones are."""

    def __getattr__(name):
        if name.startswith("_"):
            raise AttributeError(f"module {ns.__name__!r} has no attribute {name!r}")
        import difflib

        where = ns.__name__.replace("sluice.", "", 1)
        close = difflib.get_close_matches(name, [n for n in vars(ns) if not n.startswith("_")], 1)
        hint = f" Did you mean {where}.{close[0]}?" if close else ""
        raise AttributeError(f"{where}.{name} is not in Sluice yet.{hint} The supported operators "
                             "are listed in docs/OPERATORS.md and by `sluice info`.")

    ns.__getattr__ = __getattr__


def populate(fn_module, ops_module):
    """Fills the fn and ops modules from the registered schemas."""
    flat = {}
    for type_name, s in sorted(SCHEMAS.items()):
        if s["internal"]:
            continue
        *path, leaf = type_name.split(".")
        if keyword.iskeyword(leaf):
            leaf += "_"
        setattr(_namespace(fn_module, path), leaf, _fn_function(type_name))
        cls = _ops_class(type_name)
        setattr(_namespace(ops_module, path), cls.__name__, cls)
        flat.setdefault(cls.__name__, []).append(cls)
        for alias in s["aliases"]:
            *apath, aleaf = alias.split(".")
            if aleaf[:1].isupper():  # a legacy class name: ops.FileReader
                setattr(_namespace(ops_module, apath), aleaf, cls)
            else:  # legacy function name, e.g. fn.image_decoder
                setattr(_namespace(fn_module, apath), aleaf, _fn_function(type_name))
    for cname, classes in flat.items():  # ops.CoinFlip for ops.random.CoinFlip
        if len(classes) == 1 and cname not in vars(ops_module):
            setattr(ops_module, cname, classes[0])
    for root in (fn_module, ops_module):
        for ns in _namespaces(root):
            _missing_operator(ns)


def _namespaces(module):
    """`module` and its operator sub-namespaces (fn.readers, ops.random, ...)."""
    yield module
    for value in list(vars(module).values()):
        if isinstance(value, _pytypes.ModuleType) and value.__name__.startswith(module.__name__ + "."):
            yield from _namespaces(value)
