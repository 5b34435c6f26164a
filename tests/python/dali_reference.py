"""NVIDIA DALI 2.4 as the reference of the operator tests.

Sluice implements DALI's API, so one graph function runs on both: ``graph(fn, types, *inputs)``
builds the graph from the given ``fn`` and ``types`` modules (and numpy as ``np``, nothing else
from its module) over one external_source per input.
run_sluice() runs it here; run_dali() runs the same function's source on DALI's CPU backend in a
subprocess, with DALI's own venv: DALI pulls numpy 2 and cannot share this process. Make that
venv with ``../shared/tools/dali-reference venv`` (it goes to .venv-dali at the repository root)
or point SLUICE_DALI_PYTHON at its python; without it the tests that call run_dali() skip.

Run as a script (by run_dali(), under DALI's python): ``dali_reference.py SPEC IN OUT``.
"""

import inspect
import json
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]


def dali_python():
    """DALI's python: SLUICE_DALI_PYTHON, else .venv-dali at the repository root; None if absent."""
    env = os.environ.get("SLUICE_DALI_PYTHON")
    path = pathlib.Path(env) if env else ROOT / ".venv-dali" / "bin" / "python"
    return path if path.exists() else None


def run_in_dali(script, *args, cwd=None):
    """Runs `script` with `args` under DALI's python and returns its stdout; skips the calling
    test when DALI's venv is absent."""
    import pytest

    python = dali_python()
    if python is None:
        pytest.skip("NVIDIA DALI not found: run ../shared/tools/dali-reference venv "
                    "(or set SLUICE_DALI_PYTHON)")
    run = subprocess.run([str(python), str(script), *map(str, args)], capture_output=True,
                         text=True, timeout=300, cwd=cwd)
    assert run.returncode == 0, f"DALI failed:\n{run.stderr[-3000:]}"
    return run.stdout


def _feeder(batch):
    return lambda: batch  # no parameters: external_source would pass it the iteration


def _as_list(outs):
    return list(outs) if isinstance(outs, (list, tuple)) else [outs]


def run_sluice(graph, inputs, layouts=None, seed=1, num_threads=2, with_layouts=False):
    """Runs graph(fn, types, *sources) once on Sluice's CPU backend, each source feeding one of
    `inputs` (a batch: a list of numpy arrays, one per sample) with its layout from `layouts`.
    Returns each output as a list of numpy arrays (and, with `with_layouts`, the list of the
    outputs' layouts after it)."""
    from sluice import fn, pipeline_def, types

    layouts = layouts or [None] * len(inputs)

    @pipeline_def(batch_size=len(inputs[0]), num_threads=num_threads, device_id=None, seed=seed)
    def pipe():
        sources = [fn.external_source(_feeder(b), **({"layout": lay} if lay else {}))
                   for b, lay in zip(inputs, layouts)]
        return graph(fn, types, *sources)

    outs = _as_list(pipe().run())
    arrays = [[np.array(o.at(i)) for i in range(len(o))] for o in outs]
    return (arrays, [o.layout() for o in outs]) if with_layouts else arrays


def run_dali(graph, inputs, tmp_path, layouts=None, seed=1, num_threads=2, with_layouts=False):
    """As run_sluice(), on NVIDIA DALI's CPU backend in a subprocess. Skips the calling test
    when DALI's venv is absent."""
    spec = {"source": textwrap.dedent(inspect.getsource(graph)), "name": graph.__name__,
            "num_inputs": len(inputs), "batch_size": len(inputs[0]),
            "layouts": layouts or [None] * len(inputs), "seed": seed, "num_threads": num_threads}
    paths = [tmp_path / n for n in ("dali_spec.json", "dali_in.npz", "dali_out.npz")]
    paths[0].write_text(json.dumps(spec))
    np.savez(paths[1], **{f"{k}_{i}": a for k, batch in enumerate(inputs) for i, a in enumerate(batch)})
    run_in_dali(__file__, *paths)
    with np.load(paths[2]) as out:
        arrays = [[out[f"{k}_{i}"] for i in range(spec["batch_size"])]
                  for k in range(int(out["num_outputs"]))]
        layouts = [str(out[f"layout_{k}"]) for k in range(int(out["num_outputs"]))]
    return (arrays, layouts) if with_layouts else arrays


def assert_first_output_equals_dali(cases, tmp_path, dtype=None, what="sample"):
    """For each (graph, inputs, layouts) of `cases`: the graph's output under Sluice equals
    DALI's bit for bit, sample by sample (and has `dtype` when given)."""
    for graph, inputs, layouts in cases:
        (ours,) = run_sluice(graph, inputs, layouts)
        (ref,) = run_dali(graph, inputs, tmp_path, layouts)
        for i, (a, b) in enumerate(zip(ours, ref)):
            if dtype is not None:
                assert a.dtype == b.dtype == dtype
            np.testing.assert_array_equal(a, b, err_msg=f"{graph.__name__}, {what} {i}")


def _main(spec_path, in_path, out_path):
    from nvidia.dali import fn, pipeline_def, types

    spec = json.loads(pathlib.Path(spec_path).read_text())
    with np.load(in_path) as data:
        inputs = [[data[f"{k}_{i}"] for i in range(spec["batch_size"])]
                  for k in range(spec["num_inputs"])]
    namespace = {"np": np}  # graph functions may use numpy, nothing else from their module
    exec(spec["source"], namespace)
    graph = namespace[spec["name"]]

    @pipeline_def(batch_size=spec["batch_size"], num_threads=spec["num_threads"], device_id=None,
                  seed=spec["seed"])
    def pipe():
        sources = [fn.external_source(source=_feeder(b), **({"layout": lay} if lay else {}))
                   for b, lay in zip(inputs, spec["layouts"])]
        return graph(fn, types, *sources)

    p = pipe()
    p.build()
    outs = _as_list(p.run())
    arrays = {f"{k}_{i}": np.array(o.at(i)) for k, o in enumerate(outs) for i in range(len(o))}
    arrays.update({f"layout_{k}": np.array(o.layout()) for k, o in enumerate(outs)})
    np.savez(out_path, num_outputs=len(outs), **arrays)


if __name__ == "__main__":
    _main(*sys.argv[1:4])
