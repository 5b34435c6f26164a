"""Sending parallel external_source callbacks to workers started with "spawn" (DALI's
nvidia.dali.pickling).

Python's pickle stores functions by reference (module and name), which fails for lambdas and
functions defined inside other functions. The default pickler here stores those by value (code,
the globals they use, closure, defaults), and global functions too when decorated with
@pickle_by_value. Pipeline(py_callback_pickler=...) replaces it with a module or object that has
dumps and loads (dill, cloudpickle), or a tuple (module, dumps kwargs, loads kwargs).
"""

import importlib
import inspect
import io
import marshal
import pickle
import sys
import types

_BY_VALUE = "_sluice_pickle_by_value"


def pickle_by_value(fun):
    """Marks a global function to be sent to workers by value instead of by reference (for
    functions a worker cannot import, such as those of a notebook)."""
    if not inspect.isfunction(fun):
        raise TypeError("Only functions can be explicitely set to be pickled by value")
    setattr(fun, _BY_VALUE, True)
    return fun


def _globals_used(code, scope, found):
    """The names of `scope` that `code` (and the code nested in it) reads."""
    for name in code.co_names:
        if name in scope:
            found[name] = scope[name]
    for const in code.co_consts:
        if inspect.iscode(const):
            _globals_used(const, scope, found)
    return found


def _make_function(name, qualname, code, ncells, module):
    scope = {"__builtins__": __builtins__, "__name__": module}
    closure = tuple(types.CellType() for _ in range(ncells)) or None
    fun = types.FunctionType(marshal.loads(code), scope, name, closure=closure)
    fun.__qualname__ = qualname
    return fun


def _set_function_state(fun, state):
    fun.__globals__.update(state["globals"])
    fun.__defaults__ = state["defaults"]
    fun.__kwdefaults__ = state["kwdefaults"]
    for cell, value in zip(fun.__closure__ or (), state["cells"]):
        if value is not _EMPTY:
            cell.cell_contents = value


class _Empty:
    def __reduce__(self):
        return (_empty, ())


def _empty():
    return _EMPTY


_EMPTY = _Empty()


def _function_by_value(fun):
    cells = []
    for cell in fun.__closure__ or ():
        try:
            cells.append(cell.cell_contents)
        except ValueError:  # not assigned yet
            cells.append(_EMPTY)
    state = {"globals": _globals_used(fun.__code__, fun.__globals__, {}),
             "defaults": fun.__defaults__, "kwdefaults": fun.__kwdefaults__, "cells": cells}
    args = (fun.__name__, fun.__qualname__, marshal.dumps(fun.__code__),
            len(fun.__closure__ or ()), fun.__module__)
    return _make_function, args, state, None, None, _set_function_state


def _import_module(name, origin):
    if name in sys.modules:
        return sys.modules[name]
    try:
        return importlib.import_module(name)
    except ImportError:
        spec = importlib.util.spec_from_file_location(name, origin)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module


def _by_reference_fails(fun):
    try:
        pickle.dumps(fun)
    except (AttributeError, pickle.PicklingError):
        return True
    return False


class CallbackPickler(pickle.Pickler):
    """pickle.Pickler that stores lambdas, local functions, @pickle_by_value functions and
    modules by value (modules: by name, or by file when they cannot be imported by name)."""

    def reducer_override(self, obj):
        if inspect.ismodule(obj):
            spec = getattr(obj, "__spec__", None)
            return _import_module, (obj.__name__, getattr(spec, "origin", None))
        if inspect.isfunction(obj) and (obj.__name__ == "<lambda>" or getattr(obj, _BY_VALUE, False)
                                        or "<locals>" in obj.__qualname__
                                        or obj.__module__ == "__main__"
                                        or _by_reference_fails(obj)):
            return _function_by_value(obj)
        return NotImplemented


def _dumps(obj, protocol=None):
    f = io.BytesIO()
    CallbackPickler(f, protocol).dump(obj)
    return f.getvalue()


def resolve_pickler(py_callback_pickler):
    """(dumps, loads, dumps kwargs, loads kwargs) for Pipeline(py_callback_pickler=...)."""
    p = py_callback_pickler
    if p is None:
        return _dumps, pickle.loads, {}, {}
    if hasattr(p, "dumps") and hasattr(p, "loads"):
        return p.dumps, p.loads, {}, {}
    if isinstance(p, (tuple, list)) and p and hasattr(p[0], "dumps") and hasattr(p[0], "loads"):
        params = list(p) + [None] * (3 - len(p))
        return p[0].dumps, p[0].loads, params[1] or {}, params[2] or {}
    raise ValueError("Unsupported py_callback_pickler value provided: give a module or object with "
                     "dumps and loads, or a tuple (module, dumps kwargs, loads kwargs).")
