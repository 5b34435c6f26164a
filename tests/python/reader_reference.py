"""A reader (fn.readers.<name>) run on Sluice and on NVIDIA DALI 2.4 with the same arguments.

read(name, kwargs, batch_size, iterations) builds a pipeline whose only operator is the reader
(named "Reader") and runs it `iterations` times. It returns a dict: "outputs" (per iteration,
per output, the list of the batch's numpy arrays), "layouts", "meta" (reader_meta) and "error"
(None, or [exception type name, message] when building or running raised). String values
"types.<NAME>" in kwargs become that member of the library's `types` module.

read_dali() does the same with DALI's python in a subprocess (DALI brings numpy 2 and cannot
share this process), read_dali_all() several readers in one subprocess; they skip the calling
test when DALI's venv is absent. Run as a script by read_dali_all():
``reader_reference.py SPEC OUT``.
"""

import json
import os
import pathlib
import subprocess
import sys

import numpy as np


def _read(fn, pipeline_def, types, name, kwargs, batch_size, iterations, num_threads):
    kwargs = {k: getattr(types, v[6:]) if isinstance(v, str) and v.startswith("types.") else v
              for k, v in kwargs.items()}

    @pipeline_def(batch_size=batch_size, num_threads=num_threads, device_id=None, seed=3)
    def pipe():
        outs = getattr(fn.readers, name)(name="Reader", **kwargs)
        return tuple(outs) if isinstance(outs, (list, tuple)) else outs

    result = {"outputs": [], "layouts": [], "meta": None, "error": None}
    try:
        p = pipe()
        p.build()
        result["meta"] = {k: int(v) for k, v in p.reader_meta("Reader").items()}
        for _ in range(iterations):
            outs = p.run()
            outs = outs if isinstance(outs, (list, tuple)) else [outs]
            result["outputs"].append([[np.array(o.at(i)) for i in range(len(o))] for o in outs])
            result["layouts"] = [o.layout() for o in outs]
    except Exception as e:  # noqa: BLE001 - the tests compare the errors
        result["error"] = [type(e).__name__, str(e)]
    return result


def read(name, kwargs, batch_size, iterations=1, num_threads=2, cwd=None):
    """The reader on Sluice (from `cwd` when given)."""
    from sluice import fn, pipeline_def, types

    old = os.getcwd()
    os.chdir(cwd or old)
    try:
        return _read(fn, pipeline_def, types, name, kwargs, batch_size, iterations, num_threads)
    finally:
        os.chdir(old)


def read_dali(name, kwargs, batch_size, tmp_path, iterations=1, num_threads=2, cwd=None):
    """The reader on NVIDIA DALI (from `cwd` when given)."""
    return read_dali_all([(name, kwargs, batch_size, iterations)], tmp_path, num_threads, cwd)[0]


def read_dali_all(runs, tmp_path, num_threads=2, cwd=None):
    """read_dali() of each (name, kwargs, batch_size, iterations) of `runs`, in one subprocess."""
    import pytest

    from dali_reference import dali_python

    python = dali_python()
    if python is None:
        pytest.skip("NVIDIA DALI not found: run ../shared/tools/dali-reference venv "
                    "(or set SLUICE_DALI_PYTHON)")
    spec = tmp_path / "reader_spec.json"
    out = tmp_path / "reader_out.npz"
    spec.write_text(json.dumps({"runs": [list(r) for r in runs], "num_threads": num_threads}))
    run = subprocess.run([str(python), __file__, str(spec), str(out)], capture_output=True,
                         text=True, timeout=300, cwd=cwd)
    assert run.returncode == 0, f"DALI failed:\n{run.stderr[-3000:]}"
    results = []
    with np.load(out) as z:
        for r, result in enumerate(json.loads(str(z["results"]))):
            result["outputs"] = [[[z[f"{r}_{it}_{k}_{i}"] for i in range(n)]
                                  for k, n in enumerate(sizes)]
                                 for it, sizes in enumerate(result["outputs"])]
            results.append(result)
    return results


def _main(spec_path, out_path):
    from nvidia.dali import fn, pipeline_def, types

    spec = json.loads(pathlib.Path(spec_path).read_text())
    results, arrays = [], {}
    for r, (name, kwargs, batch_size, iterations) in enumerate(spec["runs"]):
        res = _read(fn, pipeline_def, types, name, kwargs, batch_size, iterations,
                    spec["num_threads"])
        arrays.update({f"{r}_{it}_{k}_{i}": a for it, outs in enumerate(res["outputs"])
                       for k, o in enumerate(outs) for i, a in enumerate(o)})
        res["outputs"] = [[len(o) for o in outs] for outs in res["outputs"]]
        results.append(res)
    np.savez(out_path, results=json.dumps(results), **arrays)


if __name__ == "__main__":
    _main(*sys.argv[1:3])
