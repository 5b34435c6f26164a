"""pipeline_def: the decorator that turns a graph-defining function into a pipeline factory."""

import functools
import inspect
import warnings

from sluice.data_node import DataNode
from sluice.pipeline._pipeline import Pipeline


def _pipeline_params():
    return [p for p in inspect.signature(Pipeline.__init__).parameters if p != "self"]


def _split_arguments(func, kwargs):
    """DALI's split of a call's keyword arguments: the function's own parameters go to it (a
    Pipeline parameter of the same name is shadowed), the others to the Pipeline."""
    spec = inspect.getfullargspec(func)
    if spec.varkw is not None:
        raise TypeError(f"Using variadic keyword argument `**{spec.varkw}` in a  "
                        "graph-defining function is not allowed.")
    own = set(spec.args) | set(spec.kwonlyargs)
    kwargs = dict(kwargs)
    if "debug" not in own:  # debug mode is the experimental decorator's
        kwargs.pop("debug", None)
    ctor = set(_pipeline_params())
    unknown = set(kwargs) - own - ctor
    if unknown:
        raise TypeError(f"{func.__name__}() got unexpected arguments: {', '.join(sorted(unknown))}")
    for name in own & ctor & set(kwargs):
        warnings.warn(f"the argument `{name}` shadows a Pipeline constructor argument of the "
                      "same name.", stacklevel=3)
    return ({k: v for k, v in kwargs.items() if k not in own},
            {k: v for k, v in kwargs.items() if k in own})


def _as_outputs(returned):
    """The function's return value as the pipeline's outputs: a tuple holds several, None none,
    anything else is one (a list of numbers is one constant output, as in DALI). A list of
    DataNodes also holds several, where DALI refuses it."""
    if isinstance(returned, tuple):
        return returned
    if returned is None:
        return ()
    if isinstance(returned, list) and any(isinstance(x, DataNode) for x in returned):
        return tuple(returned)
    return (returned,)


def pipeline_def(fn=None, *, enable_conditionals=False, **pipeline_kwargs):
    """Turns a graph-defining function into a pipeline factory.

    Calling the decorated function creates a Pipeline (arguments of the Pipeline constructor
    go to it, the others to the function) and runs the function with that pipeline current;
    its return values become the pipeline's outputs. The function may not take **kwargs: the
    call refuses it, as DALI does. With enable_conditionals=True, `if`, `and`, `or` and `not`
    on DataNodes work per sample (see sluice._conditionals); it may also be given when calling
    the decorated function.
    """
    return _pipeline_factory(fn, enable_conditionals, pipeline_kwargs, debug=None)


def _pipeline_factory(fn, enable_conditionals, pipeline_kwargs, debug):
    """pipeline_def, and with `debug` not None its experimental variant (debug mode)."""

    def decorator(func):
        @functools.wraps(func)
        def create_pipeline(*args, **kwargs):
            debug_on = debug is not None and kwargs.get("debug", debug)
            conditionals = kwargs.pop("enable_conditionals", enable_conditionals)
            ctor_kwargs, fn_kwargs = _split_arguments(func, kwargs)
            body = func
            if conditionals:
                from sluice._conditionals import convert_pipeline_function

                body = convert_pipeline_function(func)
            if debug_on:
                from sluice._debug_mode import DebugPipeline

                return DebugPipeline(functools.partial(body, *args, **fn_kwargs), conditionals,
                                     **{**pipeline_kwargs, **ctor_kwargs})
            pipe = Pipeline(**{**pipeline_kwargs, **ctor_kwargs})
            if conditionals:
                from sluice import _conditionals

                _conditionals.enable(pipe)
            with pipe:
                pipe.set_outputs(*_as_outputs(body(*args, **fn_kwargs)))
            return pipe

        create_pipeline._is_pipeline_def = True
        return create_pipeline

    return decorator(fn) if fn is not None else decorator
