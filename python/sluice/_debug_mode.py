"""Debug mode: `sluice.pipeline.experimental.pipeline_def(debug=True)` (DALI's experimental
debug mode). run() calls the pipeline function itself, and each operator runs as it is called:
its outputs are DataNodeDebug objects whose `.get()` is the batch, and numpy arrays, lists of
arrays and torch tensors may be given to operators as inputs.

Each operator runs in a small pipeline of its own (external sources for its inputs and argument
inputs, the operator, its outputs), built the first time it runs and fed every iteration after,
so its state (a reader's position, a random generator's epoch) lives on. Operators are told
apart by where they are called and in which order: the order may not change between
iterations (DALI's rule and error). Operators without a `seed` get one from a generator seeded
by the pipeline's seed, in the order they are first called: deterministic, but not the seeds of
the same graph in a standard pipeline (give `seed=` for those).
"""

import os
import sys

import numpy as np

from sluice.data_node import DataNode
from sluice.pipeline._pipeline import Pipeline

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_SEED_BOUND = (1 << 31) - 1
MERGE = "_conditional.merge"


def _small_pipeline(pipe, device_id=-1):
    """A pipeline of `pipe`'s size that runs one iteration when asked, without prefetching."""
    return Pipeline(batch_size=pipe.max_batch_size, num_threads=pipe.num_threads,
                    device_id=pipe._device_id if device_id == -1 else device_id,
                    exec_pipelined=False, exec_async=False, prefetch_queue_depth=1)


class DataNodeDebug(DataNode):
    """An operator's output in debug mode: the batch itself (`.get()`) with DataNode's
    operations, which run at once."""

    def __init__(self, data, name, device, source):
        super().__init__(name, device, source)
        self._data = data
        self._pipe = None  # set while its external source has not been read yet

    def get(self):
        """The batch (a TensorListCPU or TensorListGPU)."""
        if self._data is None and self._pipe is not None:
            self._pipe._read_sources()
        return self._data

    def shape(self):
        return self.get().shape()

    def __str__(self):
        data = str(self.get()).replace("\n", "\n" + " " * 9)
        return f'DataNodeDebug(\n    name="{self.name}",\n    data={data})'

    __repr__ = __str__


def _user_frame():
    """(file, line, function) of the innermost caller outside Sluice."""
    f = sys._getframe(2)
    while f is not None and os.path.abspath(f.f_code.co_filename).startswith(_PACKAGE_DIR):
        f = f.f_back
    return (f.f_code.co_filename, f.f_lineno, f.f_code.co_name) if f is not None else ("", 0, "")


def _is_batch_like(x):
    """A value given where an operator takes data: a batch (list of arrays, array with a batch
    dimension, torch tensor, TensorList)."""
    if isinstance(x, (list, tuple)):
        return bool(x) and not any(isinstance(v, (int, float, bool, str)) for v in x)
    return hasattr(x, "__array_interface__") or hasattr(x, "__dlpack__") or \
        type(x).__name__.startswith("TensorList")


def _device_of(x):
    first = x[0] if isinstance(x, (list, tuple)) else x
    if getattr(first, "is_cuda", False) or type(first).__name__.endswith("GPU"):
        return "gpu"
    return "cpu"


class _Operator:
    """One operator of the debug pipeline and the small pipeline it runs in."""

    def __init__(self, pipe, op, seed):
        self.type = op.type
        self.device = op.device
        self.args = dict(op.args)
        self.name = op.name
        if seed is not None and "seed" not in self.args:
            self.args["seed"] = seed
        self.input_devices = [x.device for x in op.inputs]
        self.arg_names = sorted(op.arg_inputs)
        self.given_args = dict(op.args)
        self._pipe = pipe
        self._mini = None

    def check(self, op):
        """DALI's errors for an operator whose call changed between iterations."""
        for what, expected, got in (("inputs", len(self.input_devices), len(op.inputs)),
                                    ("keyword arguments", len(self.arg_names), len(op.arg_inputs))):
            if expected != got:
                raise RuntimeError(
                    f"Trying to use operator '{self.type}' with different number of {what} than "
                    f"when it was built. Expected: {expected} {what}, got {got}.")
        for key, value in op.args.items():
            if key != "name" and self.given_args.get(key, value) != value:
                raise RuntimeError(f"Argument '{key}' for operator '{self.type}' unexpectedly "
                                   f"changed value from '{self.given_args[key]}' to '{value}'")

    def _build(self):
        mini = _small_pipeline(self._pipe)
        with mini:
            outs = self._graph()
        mini.set_outputs(*(outs if isinstance(outs, list) else [outs]))
        mini.build()
        self._mini = mini

    def _graph(self):
        """The operator, fed by external sources named input<i> and arg_<name>."""
        from sluice._ops import make_node
        from sluice.external_source import external_source

        if self.type == "external_source":  # fed what the user's source gives
            return make_node(self.type, [], {**self.args, "device": self.device, "name": "input0"})
        ins = [external_source(name=f"input{i}", device=d) for i, d in enumerate(self.input_devices)]
        args = {k: external_source(name=f"arg_{k}") for k in self.arg_names}
        return make_node(self.type, ins, {**self.args, **args, "device": self.device,
                                          "name": self.name})

    def run(self, batches, arg_batches, num_outputs):
        """The outputs for this iteration's inputs (raw batches or TensorLists)."""
        sizes = [len(b) for b in list(batches) + list(arg_batches.values())]
        if sizes and min(sizes) == 0:  # an empty branch of a conditional: nothing to run
            empty = next(b for b in list(batches) + list(arg_batches.values()) if len(b) == 0)
            return [empty] * num_outputs
        if self._mini is None:
            self._build()
        for i, b in enumerate(batches):
            self._mini.feed_input(f"input{i}", b)
        for k, b in arg_batches.items():
            self._mini.feed_input(f"arg_{k}", b)
        return list(self._mini.run())

    def reset(self):
        if self._mini is not None:
            self._mini.reset()

    def reader_meta(self):
        return self._mini.reader_meta() if self._mini is not None else {}


class _Merge(_Operator):
    """The merge of two conditional branches. Its inputs differ in size, which the external
    sources of one iteration may not: each branch is fed padded to the predicate's size (with
    copies of its first sample) and cut back by a split before the merge."""

    def _graph(self):
        from sluice._ops import make_node
        from sluice.external_source import external_source

        parts = []
        for i, d in enumerate(self.input_devices):
            padded = external_source(name=f"input{i}", device=d)
            real, _ = make_node("_conditional.split", [padded],
                                {"predicate": external_source(name=f"real{i}")})
            parts.append(real)
        return make_node(self.type, parts, {"predicate": external_source(name="arg_predicate"),
                                            "device": self.device})

    def run(self, batches, arg_batches, num_outputs):
        if min(len(b) for b in batches) == 0:
            return [batches[1] if len(batches[0]) == 0 else batches[0]]
        if self._mini is None:
            self._build()
        n = len(arg_batches["predicate"])
        for i, b in enumerate(batches):
            samples = [b[k] for k in range(len(b))]
            real = [np.array(True)] * len(samples) + [np.array(False)] * (n - len(samples))
            self._mini.feed_input(f"input{i}", samples + samples[:1] * (n - len(samples)),
                                  layout=b.layout())
            self._mini.feed_input(f"real{i}", real)
        self._mini.feed_input("arg_predicate", arg_batches["predicate"])
        return list(self._mini.run())


class _Source:
    """An external_source of the debug pipeline: its source (group), kept from the first
    iteration's call of fn.external_source, and the operator that checks and converts what the
    source gives."""

    def __init__(self, pipe, op):
        self.name = op.name
        self.group = None
        self.index = 0
        self.convert = _Operator(pipe, op, None)


class DebugPipeline(Pipeline):
    """A pipeline in debug mode (see the module's docstring). run() returns TensorLists, as a
    standard pipeline's; build() does nothing (operators are built when they first run)."""

    def __init__(self, exec_func, conditionals=False, **kwargs):
        super().__init__(**kwargs)
        self._exec_func = exec_func
        self._conditionals = conditionals
        self._condition_stack = None
        self._op_hooks = self
        self._operators = {}  # (file, line, function, position in the iteration) -> _Operator
        self._sources = {}  # the same keys -> _Source
        self._first = True  # the first iteration creates the operators
        self._position = 0
        self._pending = []  # this iteration's external sources not read yet: (source, node)
        self._fed = {}  # external_source name -> batches given to feed_input()
        self._done = []  # finished iterations for share_outputs()
        self._epoch, self._ended = 0, False  # of the external sources, as SourceFeeder counts
        seed = kwargs.get("seed", -1)
        if seed is None or seed < 0:
            seed = int(np.random.randint(_SEED_BOUND))
        self._seeds = np.random.default_rng(seed)
        self._constant = None  # turns constant outputs into TensorLists

    def __enter__(self):
        raise RuntimeError("Currently pipeline in debug mode works only with `pipeline_def` "
                           "decorator.Using `with` statement is not supported.")

    def build(self, define_graph=None):
        """Nothing to build: operators are built the first time they run."""

    # --- the operator hook (sluice._ops.OpInstance) --------------------------------------------
    def before_op(self, type_name, inputs, kwargs):
        if type_name != "external_source":
            self._read_sources()
        inputs = [x if isinstance(x, DataNode) else self._constant_node(x, f"Input {i}")
                  for i, x in enumerate(inputs)]
        kwargs = {k: self._argument(k, v) for k, v in kwargs.items()}
        if self._condition_stack is not None:
            inputs, kwargs = self._condition_stack.before_op(type_name, inputs, kwargs)
        return inputs, kwargs

    def after_op(self, op):
        key = _user_frame() + (self._position,)
        self._position += 1
        table = self._sources if op.type == "external_source" else self._operators
        if self._first:
            if op.type == "external_source":
                table[key] = _Source(self, op)
            else:
                kind = _Merge if op.type == MERGE else _Operator
                table[key] = kind(self, op, int(self._seeds.integers(_SEED_BOUND)))
        elif key not in table:
            name = "ExternalSource" if op.type == "external_source" else op.type
            raise RuntimeError(f"Unexpected operator '{name}'. Debug mode does not support "
                               "changing the order of operators executed within the pipeline.")
        if op.type == "external_source":
            node = DataNodeDebug(None, op.outputs[0].name, op.device, op)
            node._pipe = self
            self._pending.append((table[key], node))
            op.outputs = [node]
        else:
            entry = table[key]
            entry.check(op)
            outs = entry.run([x._data for x in op.inputs],
                             {k: op.arg_inputs[k]._data for k in entry.arg_names}, len(op.outputs))
            op.outputs = [DataNodeDebug(d, o.name, "gpu" if type(d).__name__.endswith("GPU")
                                        else "cpu", op) for d, o in zip(outs, op.outputs)]
        if self._condition_stack is not None:
            self._condition_stack.after_op(op)

    def _argument(self, name, value):
        """A keyword argument: a list of per-sample arrays is an argument input; an array or a
        torch tensor is a constant, as in a standard pipeline."""
        if isinstance(value, (list, tuple)) and _is_batch_like(value):
            return self._constant_node(value, f"argument '{name}'")
        if hasattr(value, "__dlpack__") and hasattr(value, "cpu"):  # torch
            return value.cpu().numpy()
        return value

    def _constant_node(self, value, what):
        if not _is_batch_like(value):
            raise TypeError(f"{what}: expected a DataNode or a batch (a list of arrays, an array "
                            f"with a batch dimension, a torch tensor), got {type(value).__name__}")
        if self._conditionals:
            raise ValueError(
                "Debug mode with conditional execution (when `enable_conditionals=True`) doesn't "
                "allow for modification of operator outputs by libraries other than DALI or "
                "using the TensorLists extracted via `.get()` as inputs. Expected "
                f"`DataNodeDebug` as an input, got {type(value)} at {what}.")
        from sluice._callbacks import normalize_batch

        return DataNodeDebug(normalize_batch(value), "constant", _device_of(value), None)

    # --- external sources ----------------------------------------------------------------------
    def _read_sources(self):
        """Reads the external sources called so far (their operators had no source attached
        yet when they were created)."""
        pending, self._pending = self._pending, []
        fetched = {}
        for source, node in pending:
            op = node.source
            if source.group is None and getattr(op, "es_group", None) is not None:
                source.group = op.es_group  # the first iteration's source, kept from now on
                source.index = op.es_group.ops.index(op)
            if source.group is not None:
                g = source.group
                if id(g) not in fetched:
                    try:
                        out = g.get_batch(self.max_batch_size, self._epoch)
                    except StopIteration:
                        self._ended = True
                        raise
                    fetched[id(g)] = g.split(out, self.max_batch_size)
                data = fetched[id(source.group)][source.index]
            else:
                queue = self._fed.get(source.name) or []
                if not queue:
                    raise RuntimeError(f"external_source '{source.name}': no data was fed; call "
                                       "feed_input() before run()")
                data = queue.pop(0)
            from sluice._callbacks import normalize_batch

            node._data = source.convert.run([normalize_batch(data)], {}, 1)[0]
            node._pipe = None

    def feed_input(self, data_node, data, layout=None, cuda_stream=None, use_copy_kernel=False):
        """Gives an external_source (by DataNode or name) its data for one coming run()."""
        name = data_node.source.name if isinstance(data_node, DataNode) else data_node
        self._fed.setdefault(name, []).append(data)

    # --- running --------------------------------------------------------------------------------
    def run(self, **feed):
        """Runs the pipeline function once; returns its outputs as TensorLists."""
        for name, data in feed.items():
            self.feed_input(name, data)
        self._position = 0
        if self._conditionals:
            from sluice._conditionals import ConditionStack

            self._condition_stack = ConditionStack()
        Pipeline.push_current(self)
        try:
            res = self._exec_func()
            self._read_sources()
        finally:
            Pipeline.pop_current()
            self._pending = []
            self._condition_stack = None
        self._first = False
        res = () if res is None else res if isinstance(res, tuple) else (res,)
        return tuple(self._output(i, v) for i, v in enumerate(res))

    def _output(self, i, value):
        if isinstance(value, DataNodeDebug):
            return value.get()
        if isinstance(value, (list, tuple)):
            raise TypeError(f"Illegal pipeline output type.The output {i} contains a nested "
                            "`DataNodeDebug`")
        if self._constant is None:
            from sluice.external_source import external_source

            self._constant = _small_pipeline(self, device_id=None)
            with self._constant:
                self._constant.set_outputs(external_source(name="value"))
        arr = np.asarray(value)
        self._constant.feed_input("value", np.tile(arr, (self.max_batch_size,) + (1,) * arr.ndim))
        return self._constant.run()[0]

    def schedule_run(self):
        self._done.append(self.run())

    def share_outputs(self):
        if not self._done:
            raise RuntimeError("no iteration is scheduled: call schedule_run() (or run()) first")
        return self._done.pop(0)

    def outputs(self):
        return self.share_outputs()

    def release_outputs(self):
        """Nothing to release: each iteration's batches are the caller's."""

    def reset(self):
        self._epoch += self._ended
        self._ended = False
        for s in self._sources.values():
            if s.group is not None:
                s.group.reset_indices()
        for op in self._operators.values():
            op.reset()
        self._done = []

    def empty(self):
        return not self._done

    def reader_meta(self, name=None):
        meta = {}
        for op in self._operators.values():
            meta.update(op.reader_meta())
        if name is None:
            return meta
        if name not in meta:
            raise ValueError(f"operator '{name}' is not a reader")
        return meta[name]

    def epoch_size(self, name=None):
        if name is not None:
            return self.reader_meta(name)["epoch_size"]
        return {k: v["epoch_size"] for k, v in self.reader_meta().items()}

    def serialize(self, *args, **kwargs):
        raise RuntimeError("a pipeline in debug mode has no graph to serialize")
