"""Matching the keyword arguments of an automatic augmentation call with the extra parameters
each augmentation's function declares (``shape``, ``fill_value``, ``interp_type``, ...)."""

import inspect

_NAMED = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
_POSITIONAL = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.POSITIONAL_ONLY)


class MissingArgException(Exception):
    """An augmentation needs a keyword argument the call did not give."""

    def __init__(self, message, augmentation, missing_args):
        super().__init__(message)
        self.augmentation = augmentation
        self.missing_args = missing_args


class UnusedArgException(Exception):
    """A keyword argument that no augmentation of the call takes."""

    def __init__(self, message, unused_args):
        super().__init__(message)
        self.unused_args = unused_args


def _extra_params(fun, skip_positional):
    """The parameters of `fun` after its first `skip_positional` positional ones."""
    params = inspect.signature(fun).parameters.values()
    return [p for i, p in enumerate(params) if i >= skip_positional or p.kind not in _POSITIONAL]


def num_positional_args(fun):
    return sum(1 for p in inspect.signature(fun).parameters.values() if p.kind in _POSITIONAL)


def accepted_kwargs(fun, kwargs, skip_positional=0):
    """The entries of `kwargs` that `fun` takes by name (besides its first positional ones)."""
    names = {p.name for p in _extra_params(fun, skip_positional) if p.kind in _NAMED}
    return {k: v for k, v in kwargs.items() if k in names}


def missing_kwargs(fun, kwargs, skip_positional=0):
    """The names `fun` requires (no default) that `kwargs` lacks."""
    return [p.name for p in _extra_params(fun, skip_positional)
            if p.kind in _NAMED and p.default is inspect.Parameter.empty and p.name not in kwargs]


def forbid_unused_kwargs(augmentations, kwargs, call_name):
    used = {k for aug in augmentations for k in accepted_kwargs(aug.op, kwargs, 2)}
    unused = [k for k in kwargs if k not in used]
    if unused:
        subject, verb = ("kwarg", "is") if len(unused) == 1 else ("kwargs", "are")
        raise UnusedArgException(
            f"The {call_name} got unexpected {subject}. The {subject} `{', '.join(unused)}` "
            f"{verb} not used by any of the augmentations.", unused_args=unused)
