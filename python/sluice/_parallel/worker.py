"""A parallel external_source worker process: runs the sources' callbacks for the tasks it is sent
and writes the results into its shared-memory chunks.

Messages from the pipeline's process: ("setup", loads, loads_kwargs, blob) once with spawn;
("task", context, task_id, epoch_start, task) with task = ("samples", start, stop, first_in_batch,
iteration, epoch) or ("batch", args); ("free", chunk_ids) when the pipeline no longer uses those
chunks; ("close",). Replies: ("ready",) or ("setup_failed", traceback) once, then per task
("done", context, task_id, chunk_id, meta, retired) with the chunk's descriptor the first time,
("stop", context, task_id) at the end of the data, or ("failed", context, task_id, exception,
traceback, where).
"""

import os
import pickle
import signal
import traceback

import numpy as np

from sluice._callbacks import SampleInfo, SourceKind
from sluice._parallel import shm
from sluice._parallel.channel import Channel, ChannelClosed


class IterableRunner:
    """An iterable or generator function (stateful: always in the same worker). After the end
    it keeps raising StopIteration until a new epoch starts; cycle="raise" then starts over."""

    def __init__(self, desc):
        self.desc = desc
        self._restart(0)

    def _fresh(self):
        s = self.desc.source
        return iter(s() if self.desc.kind == SourceKind.GENERATOR_FUNC else s)

    def _restart(self, epoch_start):
        self.it = self._fresh()
        self.ended = False
        self.epoch_start = epoch_start

    def __call__(self, epoch_start, task):
        if self.ended:
            if self.desc.cycle == "raise" and self.epoch_start < epoch_start:
                self._restart(epoch_start)
            else:
                raise StopIteration
        try:
            return next(self.it)
        except StopIteration:
            self.ended = True
            if self.desc.cycle != "quiet":
                raise
            self.it = self._fresh()
            value = next(self.it)
            self.ended = False
            return value


class CallableRunner:
    def __init__(self, desc):
        self.callback = desc.source

    def __call__(self, epoch_start, task):
        if task[0] == "batch":
            return self.callback(*task[1])
        _, start, stop, first, iteration, epoch = task
        return [self._sample(SampleInfo(start + i, first + i, iteration, epoch))
                for i in range(stop - start)]

    def _sample(self, info):
        try:
            return self.callback(info)
        except StopIteration:
            raise
        except Exception as e:
            e.sluice_sample = info  # where it failed, for the error in the pipeline's process
            raise


def _to_array(x):
    if isinstance(x, np.ndarray):
        a = x
    elif hasattr(x, "numpy") and hasattr(x, "device"):  # torch
        if x.device.type != "cpu":
            raise TypeError("parallel external_source: samples must be CPU data, got a "
                            f"tensor on {x.device}")
        a = x.detach().numpy()
    else:
        a = np.asarray(x)
    if a.dtype == object:
        raise TypeError(f"parallel external_source: cannot use {type(x).__name__} as a sample; "
                        "return numpy arrays (or CPU torch tensors)")
    return a


def _samples(batch):
    if isinstance(batch, (list, tuple)):
        return [_to_array(x) for x in batch]
    if type(batch).__name__ == "TensorListCPU":
        return [np.array(batch.at(i)) for i in range(len(batch))]
    return list(_to_array(batch))  # one array with a batch dimension


def outputs_of(result, task, num_outputs):
    """The callback's result as a list (per output) of lists of sample arrays."""
    if task[0] == "samples":
        if num_outputs is None:
            return [[_to_array(s) for s in result]]
        return [[_to_array(s[k]) for s in result] for k in range(num_outputs)]
    if num_outputs is None:
        return [_samples(result)]
    return [_samples(b) for b in list(result)[:num_outputs]]


class Worker:
    def __init__(self, channel, worker_id, sources):
        self.channel = channel
        self.worker_id = worker_id
        self.runners = {i: (IterableRunner(d) if d.kind != SourceKind.CALLABLE else CallableRunner(d), n)
                        for i, (d, n) in sources.items()}
        self.chunks = {}
        self.free = set()
        self.next_chunk = 0

    def chunk_for(self, nbytes, hint):
        """A free chunk with room for nbytes (the smallest), or a new one; a free chunk that is
        too small is retired, so the number of chunks follows the number in use."""
        fits = [c for c in (self.chunks[i] for i in self.free) if c.capacity >= nbytes]
        retired = []
        if fits:
            chunk = min(fits, key=lambda c: c.capacity)
        else:
            if self.free:
                old = self.chunks.pop(min(self.free, key=lambda i: self.chunks[i].capacity))
                self.free.discard(old.id)
                old.close()
                retired.append(old.id)
            chunk = shm.Chunk(self.next_chunk, max(nbytes + nbytes // 8, hint))
            self.next_chunk += 1
            self.chunks[chunk.id] = chunk
        self.free.discard(chunk.id)
        return chunk, retired

    def run(self, context, task_id, epoch_start, task):
        runner, (num_outputs, hint) = self.runners[context]
        try:
            result = runner(epoch_start, task)
            outputs = outputs_of(result, task, num_outputs)
        except StopIteration:
            self.channel.send(("stop", context, task_id))
            return
        except Exception as e:
            self._send_failure(context, task_id, e, task)
            return
        nbytes, meta = shm.plan(outputs)
        samples = len(outputs[0]) if outputs else 0
        chunk, retired = self.chunk_for(nbytes, hint * samples)
        shm.write(chunk, outputs, meta)
        fds = () if chunk.known else (chunk.fd,)
        chunk.known = True
        self.channel.send(("done", context, task_id, chunk.id, chunk.capacity, meta, retired), fds)

    def _send_failure(self, context, task_id, e, task):
        tb = traceback.format_exc()
        where = getattr(e, "sluice_sample", None)
        where = None if where is None else (where.idx_in_epoch, where.idx_in_batch,
                                            where.iteration, where.epoch_idx)
        try:
            exc = pickle.dumps(e)
        except Exception:
            exc = None
        self.channel.send(("failed", context, task_id, exc, tb, where))

    def loop(self):
        while True:
            msg, _ = self.channel.recv()
            if msg[0] == "task":
                self.run(*msg[1:])
            elif msg[0] == "free":
                self.free.update(i for i in msg[1] if i in self.chunks)
            elif msg[0] == "close":
                return



def main(sock, worker_id, sources, close_fds):
    """The worker's entry point. `sources`: {context: (SourceDesc, (num_outputs, hint))} with
    fork; None with spawn, where they come pickled in the setup message."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the pipeline process's to handle
    for fd in close_fds:  # fork: the other workers' channels stay theirs alone
        try:
            os.close(fd)
        except OSError:
            pass
    channel = Channel(sock)
    try:
        if sources is None:
            msg, _ = channel.recv()
            _, loads, loads_kwargs, blob = msg
            try:
                sources = loads(blob, **loads_kwargs)
            except Exception:
                channel.send(("setup_failed", traceback.format_exc()))
                return
        worker = Worker(channel, worker_id, sources)
        channel.send(("ready",))
        worker.loop()
    except ChannelClosed:
        pass  # the pipeline's process is gone
    finally:
        channel.close()
