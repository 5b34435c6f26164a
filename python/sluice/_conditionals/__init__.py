"""Conditionals: Python's `if` / `else`, `and`, `or` and `not` on DataNodes in a pipeline
definition (`@pipeline_def(enable_conditionals=True)`), evaluated per sample as in DALI.

The pipeline function is rewritten (_transform.py, with Python's `ast`): each `if` becomes a
call that, for a DataNode condition, traces both branches and merges the variables they assign.
The branches run on their samples only: the batch is split by the condition
(`_conditional.split`) where a branch first uses data from outside it, and the results are put
back in sample order (`_conditional.merge`). Functions the pipeline function calls are converted
too, when they are the user's (not Sluice's, numpy's, ...); `do_not_convert` opts one out.
"""

from sluice._conditionals._runtime import convert_function
from sluice._conditionals._scopes import ConditionStack


def do_not_convert(func=None):
    """Marks a function that conditionals must not rewrite (it runs as written)."""
    if func is None:
        return do_not_convert
    func._sl_do_not_convert = True
    return func


def convert_pipeline_function(func):
    """The pipeline definition `func`, rewritten for conditionals."""
    if getattr(func, "_sl_do_not_convert", False):
        raise ValueError("Pipeline definition cannot be marked with @do_not_convert.")
    return convert_function(func)


def enable(pipe):
    """Gives `pipe` the scopes that place operators in the branches being traced."""
    pipe._condition_stack = ConditionStack()
    pipe._op_hooks = pipe._condition_stack
