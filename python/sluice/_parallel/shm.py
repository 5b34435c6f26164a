"""Shared-memory chunks that workers write batches into and the pipeline's process maps.

A chunk is an anonymous memory file (memfd_create): it has no name, so it cannot outlive the
processes that map it, whatever way they exit. A worker creates its chunks and sends each one's
descriptor to the pipeline's process once; a result names the chunk and where each sample lies in
it. The samples of one output are written back to back, so a batch computed by one worker is one
dense block that the engine takes as it is (Note [Borrowed feeds] in python/src/bind_pipeline.cc).
"""

import mmap
import os

import numpy as np

_ALIGN = 64  # where each output's run of samples starts


def _round_up(n, to):
    return (n + to - 1) // to * to


class Chunk:
    """A worker's chunk: the memory file and its writable mapping."""

    def __init__(self, chunk_id, capacity):
        self.id = chunk_id
        self.capacity = _round_up(max(capacity, 1), mmap.PAGESIZE)
        self.fd = os.memfd_create(f"sluice-es-{chunk_id}", os.MFD_CLOEXEC)
        try:
            os.ftruncate(self.fd, self.capacity)
            self.map = mmap.mmap(self.fd, self.capacity)
        except BaseException:
            os.close(self.fd)
            raise
        self.known = False  # the pipeline's process has its descriptor

    def close(self):
        self.map.close()
        os.close(self.fd)


def plan(outputs):
    """Where the samples go: (bytes needed, [[(offset, shape, dtype str) per sample] per
    output]) for `outputs`, a list (per output) of lists of arrays."""
    offset, meta = 0, []
    for samples in outputs:
        offset = _round_up(offset, _ALIGN)
        placed = []
        for a in samples:
            placed.append((offset, a.shape, a.dtype.str))
            offset += a.nbytes
        meta.append(placed)
    return offset, meta


def write(chunk, outputs, meta):
    for samples, placed in zip(outputs, meta):
        for a, (offset, shape, dtype) in zip(samples, placed):
            if a.nbytes:
                np.copyto(np.ndarray(shape, dtype, buffer=chunk.map, offset=offset), a)


class Mapping:
    """The pipeline process's view of a worker's chunk. The arrays it makes keep the mapping
    alive: it goes away when the last of them does."""

    def __init__(self, fd, capacity):
        try:
            self.map = mmap.mmap(fd, capacity)
        finally:
            os.close(fd)
        self.capacity = capacity

    def arrays(self, placed):
        return [np.frombuffer(self.map, np.dtype(dtype), int(np.prod(shape, dtype=np.int64)),
                              offset).reshape(shape) for offset, shape, dtype in placed]
