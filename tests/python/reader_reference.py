"""A reader (fn.readers.<name>) run on Sluice and on NVIDIA DALI 2.4 with the same arguments.

read(name, kwargs, batch_size, iterations) builds a pipeline whose only operator is the reader
(named "Reader") and runs it `iterations` times. It returns a dict: "outputs" (per iteration,
per output, the list of the batch's numpy arrays), "layouts", "meta" (reader_meta) and "error"
(None, or [exception type name, message] when building or running raised). String values
"types.<NAME>" in kwargs (alone or in a list) become that member of the library's `types`
module. Options: `features` ([[name, "fixed" | "var", dtype name, shape, default], ...]) are
readers.tfrecord's features, made with the library's `tfrecord` module, its outputs in that
order; `source_info` adds the first output's source_info (get_property) as one more output;
`seed`, `num_threads`.

read_dali() does the same with DALI's python in a subprocess (DALI brings numpy 2 and cannot
share this process, see dali_reference.py), read_dali_all() several runs in one subprocess; they
skip the calling test when DALI's venv is absent. outputs() and by_output() give a result's
arrays (raising its error); assert_runs_equal(), assert_same_meta(), compare_with_dali(),
compare_shards_with_dali() and assert_errors_as_dali() are the comparisons the reader tests share.
Run as a script by read_dali_all(): ``reader_reference.py SPEC OUT``.
"""

import json
import os
import pathlib
import sys

import numpy as np

from dali_reference import run_in_dali


def _types(types, v):
    if isinstance(v, list):
        return [_types(types, x) for x in v]
    return getattr(types, v[6:]) if isinstance(v, str) and v.startswith("types.") else v


def _features(tfrecord, features):
    out = {}
    for name, kind, dtype, shape, default in features:
        t = getattr(tfrecord, dtype)
        if kind == "fixed":
            out[name] = tfrecord.FixedLenFeature(shape, t, default)
        else:
            out[name] = (tfrecord.VarLenFeature(shape, t, default) if shape else
                         tfrecord.VarLenFeature(t, default))
    return out


def _read(lib, name, kwargs, batch_size, iterations, features=None, source_info=False, seed=1,
          num_threads=2):
    fn, pipeline_def, types, tfrecord = lib
    kwargs = {k: _types(types, v) for k, v in kwargs.items()}
    if features is not None:
        kwargs["features"] = _features(tfrecord, features)

    @pipeline_def(batch_size=batch_size, num_threads=num_threads, device_id=None, seed=seed)
    def pipe():
        outs = getattr(fn.readers, name)(name="Reader", **kwargs)
        if features is not None:
            outs = tuple(outs[f[0]] for f in features)
        outs = tuple(outs) if isinstance(outs, (list, tuple)) else (outs,)
        if source_info:
            outs += (fn.get_property(outs[0], key="source_info"),)
        return outs

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


def read(name, kwargs, batch_size, iterations=1, cwd=None, **options):
    """The reader on Sluice (from `cwd` when given)."""
    from sluice import fn, pipeline_def, tfrecord, types

    old = os.getcwd()
    os.chdir(cwd or old)
    try:
        return _read((fn, pipeline_def, types, tfrecord), name, kwargs, batch_size, iterations,
                     **options)
    finally:
        os.chdir(old)


def read_dali(name, kwargs, batch_size, tmp_path, iterations=1, cwd=None, **options):
    """The reader on NVIDIA DALI (from `cwd` when given)."""
    return read_dali_all([(name, kwargs, batch_size, iterations, options)], tmp_path, cwd)[0]


def read_dali_all(runs, tmp_path, cwd=None):
    """read_dali() of each (name, kwargs, batch_size, iterations[, options]) of `runs`, in one
    subprocess."""
    spec = tmp_path / "reader_spec.json"
    out = tmp_path / "reader_out.npz"
    spec.write_text(json.dumps({"runs": [list(r[:4]) + [r[4] if len(r) > 4 else {}]
                                         for r in runs]}))
    run_in_dali(__file__, spec, out, cwd=cwd)
    results = []
    with np.load(out) as z:
        for r, result in enumerate(json.loads(str(z["results"]))):
            result["outputs"] = [[[z[f"{r}_{it}_{k}_{i}"] for i in range(n)]
                                  for k, n in enumerate(sizes)]
                                 for it, sizes in enumerate(result["outputs"])]
            results.append(result)
    return results


def outputs(result):
    """The result's outputs (per iteration, per output, the samples); its error raised."""
    if result["error"] is not None:
        raise AssertionError("the reader failed: {}: {}".format(*result["error"]))
    return result["outputs"]


def by_output(result):
    """The result's outputs as [output][sample over all iterations]."""
    runs = outputs(result)
    return [[a for outs in runs for a in outs[k]] for k in range(len(runs[0]))]


def assert_runs_equal(ours, ref, what=""):
    """The same outputs (per iteration, per output, the samples), sample for sample, dtypes
    included."""
    assert len(ours) == len(ref), f"{what}: number of iterations"
    for t, (a_outs, b_outs) in enumerate(zip(ours, ref)):
        assert len(a_outs) == len(b_outs), f"{what} iteration {t}: number of outputs"
        for o, (a, b) in enumerate(zip(a_outs, b_outs)):
            assert len(a) == len(b), f"{what} iteration {t} output {o}"
            for i, (x, y) in enumerate(zip(a, b)):
                where = f"{what} iteration {t} output {o} sample {i}"
                assert x.dtype == y.dtype, f"{where}: {x.dtype} vs DALI's {y.dtype}"
                np.testing.assert_array_equal(x, y, err_msg=where)


def assert_same_meta(ours, ref):
    """reader_meta() agrees with DALI's (Sluice adds batches_per_epoch)."""
    keys = ("epoch_size", "epoch_size_padded", "number_of_shards", "shard_id", "pad_last_batch",
            "stick_to_shard")
    assert {k: ours[k] for k in keys} == {k: ref[k] for k in keys}


def assert_errors_as_dali(name, cases, batch_size, tmp_path):
    """For each (kwargs, text) of `cases`, the reader fails on DALI and on Sluice with an error
    that holds `text`."""
    refs = read_dali_all([(name, kw, batch_size, 1) for kw, _ in cases], tmp_path)
    for (kw, text), ref in zip(cases, refs):
        ours = read(name, kw, batch_size)
        assert ref["error"] and text in ref["error"][1], ref["error"]
        assert ours["error"] and text in ours["error"][1], (kw, ours["error"])


def _first_samples(runs, n):
    """The runs cut after their first `n` samples."""
    out = []
    for outs in runs:
        if n <= 0:
            break
        out.append([samples[:n] for samples in outs])
        n -= len(outs[0])
    return out


def compare_with_dali(name, tmp_path, kwargs, batch_size, iterations, last_valid=None,
                      **options):
    """Sluice's and DALI's outputs over `iterations` are equal; returns Sluice's. Without
    pad_last_batch, DALI fills a shard's last batch from the samples after the shard and goes on
    from there in the next epoch; Sluice fills it from the start of the shard and starts the next
    epoch over (see COMPATIBILITY.md): such runs compare one epoch, and `last_valid` samples of its
    last batch."""
    ours = outputs(read(name, kwargs, batch_size, iterations, **options))
    ref = outputs(read_dali(name, kwargs, batch_size, tmp_path, iterations, **options))
    if last_valid is not None:
        for runs in (ours, ref):
            runs[-1] = [samples[:last_valid] for samples in runs[-1]]
    assert_runs_equal(ours, ref)
    return ours


def compare_shards_with_dali(name, tmp_path, kwargs, num_samples, num_shards, batch_size,
                             iterations, **options):
    """Each shard of `num_samples` over `num_shards` gives DALI's outputs over `iterations` and
    DALI's reader_meta (assert_same_meta). Without kwargs' pad_last_batch, only the shard's
    samples are compared: after them Sluice wraps within the shard, DALI reads on."""
    runs = [(name, {**kwargs, "num_shards": num_shards, "shard_id": shard}, batch_size, iterations,
             options) for shard in range(num_shards)]
    for shard, (run, ref) in enumerate(zip(runs, read_dali_all(runs, tmp_path))):
        ours = read(*run[:4], **options)
        ours_out, ref_out = outputs(ours), outputs(ref)
        if not kwargs.get("pad_last_batch"):
            size = (shard + 1) * num_samples // num_shards - shard * num_samples // num_shards
            ours_out, ref_out = _first_samples(ours_out, size), _first_samples(ref_out, size)
        assert_runs_equal(ours_out, ref_out, f"shard {shard}")
        assert_same_meta(ours["meta"], ref["meta"])


def _main(spec_path, out_path):
    import nvidia.dali.tfrecord as tfrecord
    from nvidia.dali import fn, pipeline_def, types

    spec = json.loads(pathlib.Path(spec_path).read_text())
    results, arrays = [], {}
    for r, (name, kwargs, batch_size, iterations, options) in enumerate(spec["runs"]):
        res = _read((fn, pipeline_def, types, tfrecord), name, kwargs, batch_size, iterations,
                    **options)
        arrays.update({f"{r}_{it}_{k}_{i}": a for it, outs in enumerate(res["outputs"])
                       for k, o in enumerate(outs) for i, a in enumerate(o)})
        res["outputs"] = [[len(o) for o in outs] for outs in res["outputs"]]
        results.append(res)
    np.savez(out_path, results=json.dumps(results), **arrays)


if __name__ == "__main__":
    _main(*sys.argv[1:3])
