"""NVIDIA DALI 2.4 as the reference of the API tests (tensors, types, plugins).

A *case* is a module-level function ``case(dali)`` written once for both libraries: ``dali`` is
the package (``sluice`` here, ``nvidia.dali`` in DALI's venv) and ``dali.sub("types")`` imports a
submodule of it; the case may use numpy as ``np`` and nothing else from its module. It returns a
dict of named results, each usually wrapped in ``attempt(lambda: ...)`` so that an exception is
a result too. run_cases() runs cases here, run_dali_cases() the same cases' source in DALI's
python (a subprocess: DALI brings numpy 2); assert_same() compares them, results encoded alike:
arrays with their dtype and shape, enums by type name, name and value, exceptions by the
built-in exception class DALI raised (Sluice's may derive from several, e.g. InvalidArgumentError
is a ValueError and a RuntimeError).

Run as a script (by run_dali_cases(), under DALI's python): ``api_reference.py SPEC OUT``.
"""

import builtins
import enum
import importlib
import inspect
import json
import pathlib
import subprocess
import sys
import textwrap
import traceback

import numpy as np

_BUILTIN_ERRORS = tuple(v for v in vars(builtins).values()
                        if isinstance(v, type) and issubclass(v, BaseException))


class _Package:
    """The package under test, with sub() for its submodules."""

    def __init__(self, name):
        self.name = name
        self.module = importlib.import_module(name)

    def sub(self, path):
        return importlib.import_module(f"{self.name}.{path}")

    def __getattr__(self, attr):
        return getattr(self.module, attr)


class _Raised:
    def __init__(self, exc, where=""):
        self.exc = exc
        self.where = where


def attempt(f):
    """f() or the exception it raised (encoded by its built-in classes)."""
    try:
        return f()
    except Exception as e:  # noqa: BLE001 - every exception is a result here
        return _Raised(e)


def _enum_like(x):
    return isinstance(x, enum.Enum) or (hasattr(type(x), "__members__") and hasattr(x, "name"))


def encode(x):
    """A JSON form of a result, the same for both libraries."""
    if isinstance(x, _Raised):
        builtin = [c.__name__ for c in type(x.exc).__mro__ if c in _BUILTIN_ERRORS]
        return {"raises": builtin, "message": str(x.exc)[:300] + x.where}
    if isinstance(x, np.ndarray):
        return {"array": x.tolist(), "dtype": str(x.dtype), "shape": list(x.shape)}
    if isinstance(x, np.generic):
        return {"scalar": x.item(), "dtype": str(x.dtype)}
    if _enum_like(x):
        # DALI's data types are of a private subclass, _DALIDataType
        return {"enum": type(x).__name__.lstrip("_"), "name": x.name, "value": int(x.value)}
    if isinstance(x, type):
        return {"type": x.__name__}
    if isinstance(x, tuple):
        return {"tuple": [encode(v) for v in x]}
    if isinstance(x, list):
        return [encode(v) for v in x]
    if isinstance(x, dict):
        return {str(k): encode(v) for k, v in x.items()}
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    return {"object": type(x).__name__}


def _case_source(case):
    return textwrap.dedent(inspect.getsource(case))


def _run(sources, package):
    pkg = _Package(package)
    results = {}
    for name, source in sources.items():
        namespace = {"np": np, "attempt": attempt}
        exec(source, namespace)
        try:
            result = namespace[name](pkg)
        except Exception as e:  # noqa: BLE001 - reported with where it happened
            result = _Raised(e, "\n" + traceback.format_exc()[-2000:])
        results[name] = encode(result)
    return results


def run_cases(cases, package="sluice"):
    """{case name: encoded result} of each case run here."""
    return _run({c.__name__: _case_source(c) for c in cases}, package)


def run_dali_cases(cases, tmp_path):
    """As run_cases(), on NVIDIA DALI in its own python. Skips the caller when DALI is absent."""
    import pytest

    from dali_reference import dali_python

    python = dali_python()
    if python is None:
        pytest.skip("NVIDIA DALI not found: run ../shared/tools/dali-reference venv "
                    "(or set SLUICE_DALI_PYTHON)")
    spec, out = tmp_path / "api_spec.json", tmp_path / "api_out.json"
    spec.write_text(json.dumps({c.__name__: _case_source(c) for c in cases}))
    run = subprocess.run([str(python), __file__, str(spec), str(out)], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, f"DALI failed:\n{run.stderr[-3000:]}"
    return json.loads(out.read_text())


def _diff(ours, theirs, path):
    if isinstance(theirs, dict) and "raises" in theirs:
        if not (isinstance(ours, dict) and "raises" in ours):
            return [f"{path}: DALI raises {theirs['raises'][0]} ({theirs['message']!r}), "
                    f"Sluice gives {ours!r}"]
        if theirs["raises"][0] not in ours["raises"]:
            return [f"{path}: DALI raises {theirs['raises'][0]}, Sluice {ours['raises']} "
                    f"({ours['message']!r})"]
        return []
    if isinstance(theirs, dict) and isinstance(ours, dict) and set(theirs) == set(ours):
        return [d for k in theirs for d in _diff(ours[k], theirs[k], f"{path}.{k}")]
    if isinstance(theirs, list) and isinstance(ours, list) and len(theirs) == len(ours):
        pairs = enumerate(zip(ours, theirs))
        return [d for i, (a, b) in pairs for d in _diff(a, b, f"{path}[{i}]")]
    return [] if ours == theirs else [f"{path}: Sluice {ours!r}, DALI {theirs!r}"]


def assert_same(ours, theirs, name="result"):
    """Equal results; exceptions equal when Sluice's derives from the built-in class DALI's is."""
    diffs = _diff(json.loads(json.dumps(ours)), theirs, name)
    assert not diffs, "differs from DALI:\n" + "\n".join(diffs)


def _main(spec_path, out_path):
    sources = json.loads(pathlib.Path(spec_path).read_text())
    pathlib.Path(out_path).write_text(json.dumps(_run(sources, "nvidia.dali")))


if __name__ == "__main__":
    _main(*sys.argv[1:3])
