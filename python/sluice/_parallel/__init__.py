"""Parallel external_source: worker processes run the sources' callbacks and hand the batches
over in shared memory (see pool.py)."""

from sluice._parallel.pool import WorkerPool  # noqa: F401
