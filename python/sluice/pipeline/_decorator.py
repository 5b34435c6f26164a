"""pipeline_def: the decorator that turns a graph-defining function into a pipeline factory."""

import functools
import inspect

from sluice.data_node import DataNode
from sluice.pipeline._pipeline import Pipeline


def _pipeline_params():
    return [p for p in inspect.signature(Pipeline.__init__).parameters if p != "self"]


def pipeline_def(fn=None, *, enable_conditionals=False, **pipeline_kwargs):
    """Turns a graph-defining function into a pipeline factory.

    Calling the decorated function creates a Pipeline (arguments of the Pipeline constructor
    go to it, the others to the function) and runs the function with that pipeline current;
    its return values become the pipeline's outputs. With enable_conditionals=True, `if`,
    `and`, `or` and `not` on DataNodes work per sample (see sluice._conditionals); it may also
    be given when calling the decorated function.
    """
    return _pipeline_factory(fn, enable_conditionals, pipeline_kwargs, debug=None)


def _pipeline_factory(fn, enable_conditionals, pipeline_kwargs, debug):
    """pipeline_def, and with `debug` not None its experimental variant (debug mode)."""

    def decorator(func):
        sig = inspect.signature(func)
        if any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()):
            raise TypeError(f"@pipeline_def function '{func.__name__}' must not take **kwargs")
        own = set(sig.parameters)
        ctor = set(_pipeline_params())

        @functools.wraps(func)
        def create_pipeline(*args, **kwargs):
            conditionals = kwargs.get("enable_conditionals", enable_conditionals)
            debug_on = debug is not None and kwargs.get("debug", debug)
            for option in ("enable_conditionals", "debug"):  # options of the decorator
                if option not in own:
                    kwargs.pop(option, None)
            fn_kwargs = {k: v for k, v in kwargs.items() if k in own}
            extra = {k: v for k, v in kwargs.items() if k not in own}
            unknown = set(extra) - ctor
            if unknown:
                raise TypeError(f"{func.__name__}() got unexpected arguments: {', '.join(sorted(unknown))}")
            body = func
            if conditionals:
                from sluice._conditionals import convert_pipeline_function

                body = convert_pipeline_function(func)
            if debug_on:
                from sluice._debug_mode import DebugPipeline

                return DebugPipeline(functools.partial(body, *args, **fn_kwargs), conditionals,
                                     **{**pipeline_kwargs, **extra})
            pipe = Pipeline(**{**pipeline_kwargs, **extra})
            if conditionals:
                from sluice import _conditionals

                _conditionals.enable(pipe)
            with pipe:
                outputs = body(*args, **fn_kwargs)
                if outputs is None:
                    outputs = ()
                elif isinstance(outputs, DataNode):
                    outputs = (outputs,)
                pipe.set_outputs(*outputs)
            return pipe

        return create_pipeline

    return decorator(fn) if fn is not None else decorator
