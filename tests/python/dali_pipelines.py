"""Whole pipeline functions on Sluice and on NVIDIA DALI 2.4, for the tests of conditionals and
debug mode.

As in dali_reference.py, a graph function `graph(fn, types, *sources)` runs on both, each source
an external_source feeding one given batch (a list of numpy arrays) every iteration. Unlike
there, the function is written to a module file that DALI imports: conditionals rewrite a
function from its source, which exec() would not keep. Functions the graph calls go along
(`helpers`); the module has numpy as `np` and nothing else.

Each run returns, per iteration, each output as a list of numpy arrays, or, when the pipeline
raises (defining, building or running it), ("error", exception type name, message, names of
the type's classes).

Run as a script (by run_dali(), under DALI's python): ``dali_pipelines.py SPEC IN OUT``.
"""

import inspect
import json
import pathlib
import subprocess
import sys
import textwrap

import numpy as np

from dali_reference import dali_python

ERROR = "error"


def _feeder(batch):
    return lambda: batch


def _as_list(outs):
    return list(outs) if isinstance(outs, (list, tuple)) else [outs]


def _arrays(outs):
    return [[np.array(o.at(i)) for i in range(len(o))] for o in _as_list(outs)]


def _run(pipeline_def, fn, types, graph, inputs, layouts, iterations, **params):
    layouts = layouts or [None] * len(inputs)

    @pipeline_def(**params)
    def pipe():
        sources = [fn.external_source(_feeder(b), **({"layout": lay} if lay else {}))
                   for b, lay in zip(inputs, layouts)]
        return graph(fn, types, *sources)

    try:
        p = pipe()
        p.build()
        return [_arrays(p.run()) for _ in range(iterations)]
    except Exception as e:  # noqa: BLE001 - the test compares the errors
        return (ERROR, type(e).__name__, str(e), [c.__name__ for c in type(e).__mro__])


def run_sluice(graph, inputs, *, layouts=None, iterations=1, debug=False, seed=1, **params):
    """Runs `graph` on Sluice's CPU backend (in debug mode with debug=True)."""
    from sluice import fn, types
    from sluice.pipeline.experimental import pipeline_def

    params = {"batch_size": len(inputs[0]), "num_threads": 2, "device_id": None, "seed": seed,
              "debug": debug, **params}
    return _run(pipeline_def, fn, types, graph, inputs, layouts, iterations, **params)


def run_dali(graph, inputs, tmp_path, *, helpers=(), layouts=None, iterations=1, seed=1,
             **params):
    """As run_sluice() (standard mode only: DALI's debug mode needs a GPU), on DALI's CPU
    backend in a subprocess. Skips the calling test when DALI's venv is absent."""
    import pytest

    python = dali_python()
    if python is None:
        pytest.skip("NVIDIA DALI not found: run ../shared/tools/dali-reference venv "
                    "(or set SLUICE_DALI_PYTHON)")
    source = "import numpy as np\n\n" + "\n\n".join(
        textwrap.dedent(inspect.getsource(f)) for f in [*helpers, graph])
    (tmp_path / "dali_graph_module.py").write_text(source)
    spec = {"name": graph.__name__, "num_inputs": len(inputs), "layouts": layouts,
            "iterations": iterations,
            "params": {"batch_size": len(inputs[0]), "num_threads": 2, "device_id": None,
                       "seed": seed, **params}}
    paths = [tmp_path / n for n in ("dali_spec.json", "dali_in.npz", "dali_out.json")]
    paths[0].write_text(json.dumps(spec))
    np.savez(paths[1], **{f"{k}_{i}": a for k, batch in enumerate(inputs) for i, a in enumerate(batch)},
             **{f"len_{k}": len(batch) for k, batch in enumerate(inputs)})
    run = subprocess.run([str(python), __file__, *map(str, paths)], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, f"DALI failed:\n{run.stderr[-3000:]}"
    out = json.loads(paths[2].read_text())
    if out[0] == ERROR:
        return tuple(out)
    with np.load(str(paths[2]) + ".npz") as arrays:
        return [[[arrays[f"{it}_{k}_{i}"] for i in range(n)] for k, n in enumerate(sizes)]
                for it, sizes in enumerate(out[1])]


def _main(spec_path, in_path, out_path):
    spec_path = pathlib.Path(spec_path)
    sys.path.insert(0, str(spec_path.parent))
    import dali_graph_module
    from nvidia.dali import fn, pipeline_def, types

    spec = json.loads(spec_path.read_text())
    with np.load(in_path) as data:
        inputs = [[data[f"{k}_{i}"] for i in range(int(data[f"len_{k}"]))]
                  for k in range(spec["num_inputs"])]
    graph = getattr(dali_graph_module, spec["name"])
    result = _run(pipeline_def, fn, types, graph, inputs, spec["layouts"], spec["iterations"],
                  **spec["params"])
    if result[0] == ERROR:
        pathlib.Path(out_path).write_text(json.dumps(result))
        return
    np.savez(out_path + ".npz", **{f"{it}_{k}_{i}": a for it, outs in enumerate(result)
                                   for k, o in enumerate(outs) for i, a in enumerate(o)})
    pathlib.Path(out_path).write_text(json.dumps(["ok", [[len(o) for o in outs] for outs in result]]))


def assert_same(ours, ref):
    """Outputs equal sample by sample (dtype and shape included), or errors of the same type
    (Sluice's may be a subclass: InvalidArgumentError is a RuntimeError and a ValueError)."""
    if ref[0] == ERROR or (ours and ours[0] == ERROR):
        assert ours[0] == ERROR and ref[0] == ERROR, f"Sluice: {ours[:3]}\nDALI: {ref[:3]}"
        assert ref[1] in ours[3], f"Sluice raised {ours[1]}: {ours[2]}\nDALI {ref[1]}: {ref[2]}"
        return
    assert len(ours) == len(ref)
    for it, (o_it, r_it) in enumerate(zip(ours, ref)):
        assert len(o_it) == len(r_it), f"iteration {it}: {len(o_it)} outputs, DALI {len(r_it)}"
        for k, (o, r) in enumerate(zip(o_it, r_it)):
            assert len(o) == len(r), f"iteration {it}, output {k}: batch sizes"
            for i, (a, b) in enumerate(zip(o, r)):
                where = f"iteration {it}, output {k}, sample {i}"
                assert a.dtype == b.dtype, f"{where}: {a.dtype} vs DALI's {b.dtype}"
                assert a.shape == b.shape, f"{where}: {a.shape} vs DALI's {b.shape}"
                np.testing.assert_array_equal(a, b, err_msg=where)


def assert_same_error(ours, ref, text):
    """Both raised errors of the same type whose messages contain `text` (DALI's words)."""
    assert_same(ours, ref)
    assert ours[0] == ERROR, f"Sluice did not raise: {ours}"
    assert text in ref[2], f"DALI's message changed: {ref[2]}"
    assert text in ours[2], f"Sluice's message lacks DALI's text:\n{ours[2]}\n---\n{text}"


if __name__ == "__main__":
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    _main(*sys.argv[1:4])
