"""sluice.pipeline.experimental: DALI's nvidia.dali.pipeline.experimental.

pipeline_def is pipeline_def with one more option, `debug`: with debug=True (in the decorator
or when calling the decorated function) the pipeline runs in debug mode (see
sluice._debug_mode): operators run as the function calls them, `.get()` gives their batches.
"""

from sluice.pipeline._decorator import _pipeline_factory


def pipeline_def(fn=None, *, enable_conditionals=False, **pipeline_kwargs):
    """pipeline_def with experimental features: `debug=True` runs the pipeline in debug mode,
    slowly, for inspecting the data. Debug mode and conditionals go together."""
    debug = pipeline_kwargs.pop("debug", False)
    return _pipeline_factory(fn, enable_conditionals, pipeline_kwargs, debug=debug)
