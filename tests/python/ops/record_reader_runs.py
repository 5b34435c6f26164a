"""Runs a record reader (readers.tfrecord, readers.mxnet) for some iterations on Sluice and on
NVIDIA DALI 2.4 (in a subprocess with DALI's python, see dali_reference.py): every output of every
sample, in order."""

import json
import subprocess
import sys

import numpy as np

from dali_reference import dali_python

# features: [[name, "fixed" | "var", "int64" | "float32" | "string", shape, default], ...]
_SCRIPT = r"""
import json, sys
import numpy as np
from nvidia.dali import fn, pipeline_def
spec = json.loads(sys.argv[1])
def make_features(tfrecord):
    out = {}
    for name, kind, dtype, shape, default in spec["features"]:
        t = getattr(tfrecord, dtype)
        if kind == "fixed":
            out[name] = tfrecord.FixedLenFeature(shape, t, default)
        elif shape:
            out[name] = tfrecord.VarLenFeature(shape, t, default)
        else:
            out[name] = tfrecord.VarLenFeature(t, default)
    return out
def build(fn):
    kwargs = dict(spec["kwargs"], name="Reader")
    if spec["reader"] == "tfrecord":
        import nvidia.dali.tfrecord as tfrecord
        outs = fn.readers.tfrecord(features=make_features(tfrecord), **kwargs)
        return tuple(outs[f[0]] for f in spec["features"])
    return tuple(fn.readers.mxnet(**kwargs))
@pipeline_def(batch_size=spec["batch_size"], num_threads=1, device_id=None, seed=spec["seed"])
def p():
    return build(fn)
pipe = p()
pipe.build()
arrays = {}
for it in range(spec["iters"]):
    for k, out in enumerate(pipe.run()):
        for i in range(len(out)):
            arrays[f"{k}_{it}_{i}"] = np.array(out.at(i))
np.savez(spec["out"], **arrays)
print(json.dumps(pipe.reader_meta("Reader")))
"""


def _collect(get, num_outputs, iters, batch_size):
    return [[get(k, it, i) for it in range(iters) for i in range(batch_size)]
            for k in range(num_outputs)]


def run_sluice(reader, kwargs, features, batch_size, iters, seed=1):
    """[output][sample over iterations] arrays, and reader_meta()."""
    from sluice import fn, pipeline_def, tfrecord

    @pipeline_def(batch_size=batch_size, num_threads=2, device_id=None, seed=seed)
    def p():
        if reader == "tfrecord":
            feats = {}
            for name, kind, dtype, shape, default in features:
                t = getattr(tfrecord, dtype)
                if kind == "fixed":
                    feats[name] = tfrecord.FixedLenFeature(shape, t, default)
                else:
                    feats[name] = (tfrecord.VarLenFeature(shape, t, default) if shape else
                                   tfrecord.VarLenFeature(t, default))
            outs = fn.readers.tfrecord(features=feats, name="Reader", **kwargs)
            return tuple(outs[f[0]] for f in features)
        return tuple(fn.readers.mxnet(name="Reader", **kwargs))

    pipe = p()
    pipe.build()
    runs = [pipe.run() for _ in range(iters)]
    n = len(runs[0])
    return (_collect(lambda k, it, i: np.array(runs[it][k].at(i)), n, iters, batch_size),
            pipe.reader_meta("Reader"))


def run_dali(tmp_path, reader, kwargs, features, batch_size, iters, seed=1):
    """As run_sluice() on DALI; skips the test when DALI's venv is absent."""
    import pytest

    python = dali_python()
    if python is None:
        pytest.skip("NVIDIA DALI not found: run ../shared/tools/dali-reference venv "
                    "(or set SLUICE_DALI_PYTHON)")
    out = tmp_path / "dali_out.npz"
    spec = {"reader": reader, "kwargs": kwargs, "features": features or [], "seed": seed,
            "batch_size": batch_size, "iters": iters, "out": str(out)}
    run = subprocess.run([str(python), "-c", _SCRIPT, json.dumps(spec)], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, f"DALI failed:\n{run.stderr[-3000:]}"
    meta = json.loads(run.stdout.strip().splitlines()[-1])
    with np.load(out) as z:
        n = 1 + max(int(key.split("_")[0]) for key in z.files)
        return _collect(lambda k, it, i: z[f"{k}_{it}_{i}"], n, iters, batch_size), meta


def assert_same_outputs(ours, ref, what=""):
    assert len(ours) == len(ref)
    for k, (a_list, b_list) in enumerate(zip(ours, ref)):
        assert len(a_list) == len(b_list)
        for s, (a, b) in enumerate(zip(a_list, b_list)):
            assert a.dtype == b.dtype, f"{what} output {k} sample {s}: {a.dtype} != {b.dtype}"
            np.testing.assert_array_equal(a, b, err_msg=f"{what} output {k} sample {s}")


def assert_same_meta(ours, ref):
    """reader_meta() agrees with DALI's, but for the Reader base's epoch_size_padded (whole
    batches per shard, where DALI pads the shards to the largest) and its batches_per_epoch."""
    keys = ("epoch_size", "number_of_shards", "shard_id", "pad_last_batch", "stick_to_shard")
    assert {k: ours[k] for k in keys} == {k: ref[k] for k in keys}


if __name__ == "__main__":
    sys.exit("a helper module of the reader tests")
