"""A pipeline's JSON document: what build() sends to the engine, serialize() returns and
Pipeline.deserialize() reads back (data only, never code)."""

import json


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
    """The pipeline parameters that the document carries."""
    return {
        "batch_size": pipe._batch_size,
        "num_threads": pipe._num_threads,
        "device_id": pipe._device_id,
        "seed": pipe._seed,
        "exec_pipelined": pipe._exec_pipelined,
        "exec_async": pipe._exec_async,
        "prefetch_queue_depth": pipe._prefetch_queue_depth,
        "bytes_per_sample": pipe._bytes_per_sample,
        "set_affinity": pipe._set_affinity,
        "max_streams": pipe._max_streams,
        "default_cuda_stream_priority": pipe._default_cuda_stream_priority,
        "enable_memory_stats": pipe._enable_memory_stats,
    }


def load_document(serialized_pipeline=None, filename=None):
    """serialize()'s document, from a string or a file, as a dict; ValueError if it is not one."""
    if (serialized_pipeline is None) == (filename is None):
        raise ValueError("pass exactly one of serialized_pipeline and filename")
    if filename is not None:
        with open(filename) as f:
            serialized_pipeline = f.read()
    try:
        doc = json.loads(serialized_pipeline)
    except (ValueError, TypeError) as e:
        raise ValueError(f"not a serialized Sluice pipeline: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != "sluice-pipeline":
        raise ValueError('not a serialized Sluice pipeline (missing "format": "sluice-pipeline")')
    return doc
