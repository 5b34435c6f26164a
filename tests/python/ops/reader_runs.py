"""A reader's outputs over several iterations, on Sluice and on NVIDIA DALI 2.4 (in a subprocess
with DALI's venv, see dali_reference.py), for the reader tests that compare the two.

`kwargs` are the reader's arguments as JSON values; those named in `dtype_args` hold data-type
names (a name or a list of names) and become each library's types.* values. Each run returns,
per iteration, each output as a list of numpy arrays (one per sample).
"""

import json
import subprocess
import sys

import numpy as np


def _convert(types, kwargs, dtype_args):
    out = dict(kwargs)
    for k in dtype_args:
        if k in out:
            v = out[k]
            out[k] = [getattr(types, x) for x in v] if isinstance(v, list) else getattr(types, v)
    return out


def _run(fn, types, pipeline_def, reader, kwargs, dtype_args, batch_size, iterations, seed,
         num_threads, source_info=False):
    @pipeline_def(batch_size=batch_size, num_threads=num_threads, device_id=None, seed=seed)
    def pipe():
        outs = getattr(fn.readers, reader)(**_convert(types, kwargs, dtype_args))
        outs = tuple(outs) if isinstance(outs, (list, tuple)) else (outs,)
        if source_info:
            outs += (fn.get_property(outs[0], key="source_info"),)
        return outs

    p = pipe()
    p.build()
    runs = []
    for _ in range(iterations):
        outs = p.run()
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        runs.append([[np.array(o.at(i)) for i in range(len(o))] for o in outs])
    return runs


def run_sluice(reader, kwargs, batch_size, iterations, dtype_args=(), seed=1, num_threads=2,
               source_info=False):
    """With `source_info`, the first output's source_info (get_property) is one more output."""
    from sluice import fn, pipeline_def, types

    return _run(fn, types, pipeline_def, reader, kwargs, dtype_args, batch_size, iterations, seed,
                num_threads, source_info)


def run_dali(reader, kwargs, batch_size, iterations, tmp_path, dtype_args=(), seed=1,
             num_threads=2, source_info=False):
    """As run_sluice() on DALI; skips the calling test when DALI's venv is absent."""
    import pytest

    from dali_reference import dali_python

    python = dali_python()
    if python is None:
        pytest.skip("NVIDIA DALI not found: run ../shared/tools/dali-reference venv "
                    "(or set SLUICE_DALI_PYTHON)")
    spec = tmp_path / "reader_spec.json"
    out = tmp_path / "reader_out.npz"
    spec.write_text(json.dumps({"reader": reader, "kwargs": kwargs, "dtype_args": list(dtype_args),
                                "batch_size": batch_size, "iterations": iterations, "seed": seed,
                                "num_threads": num_threads, "source_info": source_info}))
    run = subprocess.run([str(python), __file__, str(spec), str(out)], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, f"DALI failed:\n{run.stderr[-3000:]}"
    with np.load(out) as z:
        shape = z["shape"]
        return [[[z[f"{t}_{o}_{i}"] for i in range(shape[2])] for o in range(shape[1])]
                for t in range(shape[0])]


def assert_runs_equal(ours, ref):
    """The same outputs, sample for sample, dtypes included."""
    assert len(ours) == len(ref)
    for t, (a_outs, b_outs) in enumerate(zip(ours, ref)):
        assert len(a_outs) == len(b_outs), f"iteration {t}: number of outputs"
        for o, (a, b) in enumerate(zip(a_outs, b_outs)):
            assert len(a) == len(b), f"iteration {t} output {o}"
            for i, (x, y) in enumerate(zip(a, b)):
                assert x.dtype == y.dtype, f"iteration {t} output {o} sample {i}"
                np.testing.assert_array_equal(x, y, err_msg=f"iteration {t} output {o} sample {i}")


def compare_with_dali(reader, tmp_path, kwargs, batch_size, iterations, dtype_args=(),
                      last_valid=None, source_info=False):
    """Sluice's and DALI's outputs over `iterations` are equal; returns Sluice's. Without
    pad_last_batch, DALI fills a shard's last batch from the samples after the shard and goes on
    from there in the next epoch; Sluice fills it from the start of the shard and starts the next
    epoch over (see COMPATIBILITY.md): such runs compare one epoch, and `last_valid` samples of its
    last batch."""
    ours = run_sluice(reader, kwargs, batch_size, iterations, dtype_args,
                      source_info=source_info)
    ref = run_dali(reader, kwargs, batch_size, iterations, tmp_path, dtype_args,
                   source_info=source_info)
    if last_valid is not None:
        for runs in (ours, ref):
            runs[-1] = [samples[:last_valid] for samples in runs[-1]]
    assert_runs_equal(ours, ref)
    return ours


def _main(spec_path, out_path):
    from nvidia.dali import fn, pipeline_def, types

    with open(spec_path) as f:
        s = json.load(f)
    runs = _run(fn, types, pipeline_def, s["reader"], s["kwargs"], s["dtype_args"],
                s["batch_size"], s["iterations"], s["seed"], s["num_threads"], s["source_info"])
    arrays = {f"{t}_{o}_{i}": a for t, outs in enumerate(runs) for o, samples in enumerate(outs)
              for i, a in enumerate(samples)}
    np.savez(out_path, shape=np.array([len(runs), len(runs[0]), len(runs[0][0])]), **arrays)


if __name__ == "__main__":
    _main(*sys.argv[1:3])
