"""A pipeline's JSON document: what build() sends to the engine, serialize() returns and
Pipeline.deserialize() reads back (data only, never code)."""

import json

# The pipeline parameters a document carries, with the attribute of Pipeline that holds each.
_PARAMS = {
    "batch_size": "_batch_size",
    "num_threads": "_num_threads",
    "device_id": "_device_id",
    "seed": "_seed",
    "exec_pipelined": "_exec_pipelined",
    "exec_async": "_exec_async",
    "prefetch_queue_depth": "_prefetch_queue_depth",
    "bytes_per_sample": "_bytes_per_sample",
    "set_affinity": "_set_affinity",
    "enable_memory_stats": "_enable_memory_stats",
}
# Kept by older documents; they never had an effect.
_OBSOLETE = ("max_streams", "default_cuda_stream_priority")


def document_for(pipe, ops):
    """The document of `pipe` with the operators `ops`."""
    return json.dumps({
        "format": "sluice-pipeline",
        "version": 1,
        "params": params_json(pipe),
        "ops": [op.to_json() for op in ops],
        "outputs": [x.name for x in pipe._outputs],
    })


def params_json(pipe):
    """The pipeline parameters that the document carries (None: not set)."""
    return {key: getattr(pipe, attr) for key, attr in _PARAMS.items()}


def load_document(serialized_pipeline=None, filename=None):
    """serialize()'s document, from a string or a file, as a dict; ValueError if it is not one."""
    if (serialized_pipeline is None) == (filename is None):
        raise ValueError("serialized_pipeline and filename arguments are mutually exclusive. "
                         "Precisely one of them should be defined.")
    if filename is not None:
        with open(filename) as f:
            serialized_pipeline = f.read()
    try:
        doc = json.loads(serialized_pipeline)
    except (ValueError, TypeError) as e:
        raise ValueError(f"not a serialized Sluice pipeline: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != "sluice-pipeline":
        raise ValueError('not a serialized Sluice pipeline (missing "format": "sluice-pipeline")')
    params = doc.setdefault("params", {})
    for key in _OBSOLETE:
        params.pop(key, None)
    return doc


def overrides(kwargs):
    """Pipeline.deserialize()'s keyword arguments as document parameters. DALI's spelling of
    separated queues, {"cpu": x, "gpu": y}, is accepted too; parameters a document does not
    carry (output_dtype, py_num_workers, ...) are ignored, as in DALI."""
    from sluice.pipeline._pipeline import Pipeline

    import inspect

    known = set(inspect.signature(Pipeline.__init__).parameters) - {"self"}
    unknown = set(kwargs) - known
    if unknown:
        raise TypeError(f"Pipeline.deserialize() got unexpected arguments: "
                        f"{', '.join(sorted(unknown))}")
    params = {k: v for k, v in kwargs.items() if k in _PARAMS}
    depth = params.get("prefetch_queue_depth")
    if isinstance(depth, dict) and not {"cpu_size", "gpu_size"} & set(depth):
        if "cpu" not in depth and "gpu" not in depth:
            raise ValueError("prefetch_queue_depth must contain either 'cpu' or 'gpu' key")
        params["prefetch_queue_depth"] = {"cpu_size": depth.get("cpu", depth.get("gpu")),
                                          "gpu_size": depth.get("gpu", depth.get("cpu"))}
    if params.get("seed") is not None and params["seed"] < 0:
        params["seed"] = None
    return params


def given_params(pipe):
    """The document parameters `pipe` was constructed with other than the defaults."""
    from sluice.pipeline._pipeline import Pipeline

    defaults = params_json(Pipeline())
    return {k: v for k, v in params_json(pipe).items() if v != defaults[k]}


def apply_params(pipe, params):
    """Sets `pipe`'s parameters from a document's."""
    for key, value in params.items():
        if key in _PARAMS:
            setattr(pipe, _PARAMS[key], -1 if key == "device_id" and value is None else value)
