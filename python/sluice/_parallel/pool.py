"""The worker pool of a pipeline's parallel external sources (the pipeline process's side).

Each source has a context: the batches scheduled for it, in order, and their results as they
arrive. A batch of a per-sample source is split into one range of samples per worker; a batch
callback runs on the least busy worker; an iterable (stateful) always on the same one. Results
come back as shared-memory chunks (shm.py) that the engine is fed without copies; a chunk goes
back to its worker only when the engine and every output made from it have let go of it
(_Lease). The pool waits for results on the workers' sockets and process sentinels together, so
a worker that dies is an error at once, never a hang.
"""

import collections
import multiprocessing
import multiprocessing.connection
import pickle
import signal
import time
import weakref

from sluice._callbacks import SourceKind
from sluice._parallel import shm
from sluice._parallel.channel import Channel, ChannelClosed
from sluice._parallel.worker import main as worker_main

_main_ends = weakref.WeakSet()  # every pool's channels: a forked worker closes the others'


class _Lease:
    """Holds a worker's chunk while the engine or an output uses it; queues it for release
    after (the pool sends the queue to the worker with its next message)."""

    def __init__(self, worker, chunk_id):
        self.worker = worker
        self.chunk_id = chunk_id

    def __del__(self):
        self.worker.released.append(self.chunk_id)


class LeasedBatch(list):
    """One output's samples (views of shared memory) and the leases that keep them valid."""

    __slots__ = ("leases",)


class _Worker:
    def __init__(self, index, process, channel):
        self.index = index
        self.process = process
        self.pid = process.pid
        self.channel = channel
        self.mappings = {}  # chunk id -> shm.Mapping
        self.released = []  # chunk ids to give back (appended by _Lease finalisers)
        self.assigned = {}  # (context, task, part) -> what it computes, for errors

    def exit_description(self):
        self.process.join(0.2)
        code = self.process.exitcode
        if code is None:
            return "closed its channel"
        if code < 0:
            return f"killed by signal {signal.Signals(-code).name}"
        return f"exit code {code}"


class _Task:
    def __init__(self, parts, what):
        self.parts = parts
        self.what = what  # per part: "samples 8..11 of iteration 2 (epoch 0)" and such
        self.results = {}
        self.stop = False
        self.failure = None
        self.stale = False

    def complete(self):
        return len(self.results) == self.parts


class _Context:
    def __init__(self, group, dedicated):
        self.group = group
        self.dedicated = dedicated
        self.scheduled = collections.deque()
        self.failed = False  # a batch ended the data or raised: nothing more until a reset
        self.next_id = 0
        self.epoch_start = 0  # the first task of the epoch (iterables restart from it)


class WorkerPool:
    """Worker processes running the callbacks of `groups` (SourceGroups with parallel=True)."""

    def __init__(self, groups, num_workers, start_method, pickler):
        from sluice import pickling

        n_callables = sum(g.desc.kind == SourceKind.CALLABLE for g in groups)
        n_iterables = len(groups) - n_callables
        if n_callables == 0:
            num_workers = min(num_workers, n_iterables)  # an iterable keeps one worker
        self.contexts = [_Context(g, None if g.desc.kind == SourceKind.CALLABLE else i % num_workers)
                         for i, g in enumerate(groups)]
        self.tasks = {}  # (context, task id) -> _Task
        self.workers = []
        self.broken = None
        mp = multiprocessing.get_context(start_method)
        fork = start_method == "fork"
        try:
            for w in range(num_workers):
                sources = {i: (c.group.desc, (c.group.num_outputs, c.group.bytes_per_sample_hint or 0))
                           for i, c in enumerate(self.contexts) if c.dedicated in (None, w)}
                main_end, child_end = Channel.pair()
                _main_ends.add(main_end)
                close_fds = [c.fileno() for c in list(_main_ends)] if fork else []
                process = mp.Process(target=worker_main, daemon=True, name=f"sluice-es{w}",
                                     args=(child_end.sock, w, sources if fork else None, close_fds))
                process.start()
                child_end.close()
                self.workers.append(_Worker(w, process, main_end))
                if not fork:
                    dumps, loads, dumps_kwargs, loads_kwargs = pickling.resolve_pickler(pickler)
                    main_end.send(("setup", loads, loads_kwargs, dumps(sources, **dumps_kwargs)))
            for worker in self.workers:
                self._wait_ready(worker)
        except BaseException:
            self.close()
            raise

    def _wait_ready(self, worker):
        while True:
            ready = multiprocessing.connection.wait([worker.channel.sock, worker.process.sentinel])
            if worker.channel.sock in ready:
                try:
                    msg, _ = worker.channel.recv()
                except ChannelClosed:
                    msg = None
                if msg and msg[0] == "ready":
                    return
                detail = msg[1] if msg else worker.exit_description()
                raise RuntimeError(f"parallel external_source: Python worker {worker.index} could "
                                   f"not start:\n{detail}")
            if worker.process.sentinel in ready:
                raise RuntimeError(f"parallel external_source: Python worker {worker.index} exited "
                                   f"while starting ({worker.exit_description()})")

    # --- scheduling ----------------------------------------------------------------------------
    def prefetch(self, i, group, batch_size, epoch_idx):
        """Schedules the source's batches up to its prefetch_queue_depth ahead."""
        self._check()
        ctx = self.contexts[i]
        while not ctx.failed and len(ctx.scheduled) < group.prefetch_queue_depth:
            self._schedule(i, len(ctx.scheduled), batch_size, epoch_idx)

    def _schedule(self, i, lead, batch_size, epoch_idx):
        ctx, g = self.contexts[i], self.contexts[i].group
        iteration = g.current_iter + lead
        if g.batch:
            parts = [(("batch", g.callback_args(None, epoch_idx, lead=lead)),
                      f"the batch of iteration {iteration} (epoch {epoch_idx})")]
        else:
            start = g.current_sample + batch_size * lead
            # A part per worker, each given to the least loaded worker (_pick): a worker that runs
            # slower (a busier core) takes fewer parts instead of holding every batch up.
            n = len(self.workers)
            sizes = [batch_size // n + (k < batch_size % n) for k in range(n)]
            parts, offset = [], 0
            for size in (s for s in sizes if s):
                parts.append((("samples", start + offset, start + offset + size, offset, iteration,
                               epoch_idx),
                              f"samples {start + offset}..{start + offset + size - 1} of iteration "
                              f"{iteration} (epoch {epoch_idx})"))
                offset += size
        tid = ctx.next_id
        ctx.next_id += 1
        self.tasks[(i, tid)] = _Task(len(parts), [w for _, w in parts])
        ctx.scheduled.append(tid)
        for m, (task, what) in enumerate(parts):
            worker = self._pick(ctx)
            worker.assigned[(i, tid, m)] = what
            self._flush_released(worker)
            self._send(worker, ("task", i, (tid, m), ctx.epoch_start, task))

    def _pick(self, ctx):
        if ctx.dedicated is not None:
            return self.workers[ctx.dedicated]
        return min(self.workers, key=lambda w: len(w.assigned))

    def _send(self, worker, msg):
        try:
            worker.channel.send(msg)
        except ChannelClosed:
            self._died(worker)

    def _flush_released(self, worker):
        if worker.released:
            ids, worker.released[:] = list(worker.released), []
            self._send(worker, ("free", ids))

    # --- results ---------------------------------------------------------------------------------
    def receive(self, i, group, batch_size, epoch_idx):
        """The next batch of source `i`, one LeasedBatch per operator of the group; raises
        StopIteration at the end of the data and the worker's error where the source raised."""
        ctx = self.contexts[i]
        if not ctx.scheduled:
            self.prefetch(i, group, batch_size, epoch_idx)
        if not ctx.scheduled:
            raise RuntimeError(f"parallel external_source '{group.name}': the source failed in an "
                               "earlier iteration; reset() the pipeline to start again")
        tid = ctx.scheduled.popleft()
        task = self.tasks[(i, tid)]
        self._pump(task.complete)
        del self.tasks[(i, tid)]
        if task.failure is not None:
            raise self._error(group, task)
        if task.stop:
            group.reset_indices()
            self.reset_context(i)
            raise StopIteration
        group.advance(batch_size)
        outputs = self._gather(task, len(group.ops))
        self.prefetch(i, group, batch_size, epoch_idx)
        return outputs

    def _gather(self, task, num_ops):
        outputs = [LeasedBatch() for _ in range(num_ops)]
        leases = []
        for m in range(task.parts):
            worker, chunk_id, meta = task.results[m]
            mapping = worker.mappings[chunk_id]
            leases.append(_Lease(worker, chunk_id))
            for out, placed in zip(outputs, meta):
                out.extend(mapping.arrays(placed))
        for out in outputs:
            out.leases = leases
        return outputs

    def _pump(self, done):
        while not done():
            self._check()
            for w in self.workers:
                self._flush_released(w)
            by_fd = {}
            for w in self.workers:
                by_fd[w.channel.fileno()] = (w, False)
                by_fd[w.process.sentinel] = (w, True)
            for fd in multiprocessing.connection.wait(list(by_fd), timeout=0.5):
                worker, exited = by_fd[fd]
                if exited:
                    self._drain(worker)
                    self._died(worker)
                else:
                    self._read(worker)

    def _drain(self, worker):
        """Reads what a worker sent before it exited."""
        while multiprocessing.connection.wait([worker.channel.sock], timeout=0):
            try:
                self._read(worker, raise_on_close=False)
            except ChannelClosed:
                return

    def _read(self, worker, raise_on_close=True):
        try:
            msg, fds = worker.channel.recv()
        except ChannelClosed:
            if not raise_on_close:
                raise
            msg = None
        if msg is None:
            self._died(worker)
        kind, i, (tid, m) = msg[0], msg[1], msg[2]
        worker.assigned.pop((i, tid, m), None)
        task = self.tasks.get((i, tid))
        if kind == "done":
            chunk_id, capacity, meta, retired = msg[3:]
            for r in retired:
                worker.mappings.pop(r, None)
            if fds:
                worker.mappings[chunk_id] = shm.Mapping(fds[0], capacity)
            if task is None or task.stale:
                worker.released.append(chunk_id)
            else:
                task.results[m] = (worker, chunk_id, meta)
        elif task is not None:
            task.results[m] = None
            if kind == "stop":
                task.stop = True
            elif task.failure is None:
                task.failure = (msg[3], msg[4], msg[5], worker, task.what[m])
        if task is not None and task.stale and task.complete():
            del self.tasks[(i, tid)]
        elif task is not None and not task.stale and kind != "done":
            self.contexts[i].failed = True

    def _error(self, group, task):
        exc, tb, where, worker, what = task.failure
        try:
            cause = pickle.loads(exc) if exc is not None else None
        except Exception:
            cause = None
        if where is not None:
            what = (f"sample idx_in_epoch={where[0]} (idx_in_batch={where[1]}, "
                    f"iteration={where[2]}, epoch_idx={where[3]})")
        err = RuntimeError(f"parallel external_source '{group.name}': the source raised an "
                           f"exception for {what} in Python worker {worker.index} (pid "
                           f"{worker.pid}). The worker's traceback:\n\n{tb}")
        err.__cause__ = cause
        return err

    def _died(self, worker):
        doing = "; ".join(f"'{self.contexts[i].group.name}': {what}"
                          for (i, _, _), what in worker.assigned.items()) or "nothing (idle)"
        self.broken = RuntimeError(
            f"parallel external_source: Python worker {worker.index} (pid {worker.pid}) exited "
            f"unexpectedly ({worker.exit_description()}) while computing {doing}. The pipeline "
            "cannot continue; build a new one.")
        self._stop_workers(graceful=False)
        raise self.broken

    def _check(self):
        if self.broken is not None:
            raise self.broken

    def reset_context(self, i):
        """A new epoch: the batches scheduled ahead are dropped (their results, when they come,
        go back to the workers)."""
        ctx = self.contexts[i]
        for tid in ctx.scheduled:
            task = self.tasks[(i, tid)]
            task.stale = True
            if task.complete():
                del self.tasks[(i, tid)]
                for r in task.results.values():
                    if r is not None:
                        r[0].released.append(r[1])
        ctx.scheduled.clear()
        ctx.failed = False
        ctx.epoch_start = ctx.next_id

    def shm_statistics(self):
        """DALI's external_source_shm_statistics(): the capacities of the chunks in use."""
        return {"capacities": [m.capacity for w in self.workers for m in w.mappings.values()]}

    # --- shutdown ---------------------------------------------------------------------------------
    def _stop_workers(self, graceful=True):
        for w in self.workers:
            if w.process.is_alive() and graceful:
                try:
                    w.channel.send(("close",))
                except (ChannelClosed, OSError):
                    pass
        deadline = time.monotonic() + (1.0 if graceful else 0.0)
        for w in self.workers:
            w.process.join(max(0.0, deadline - time.monotonic()))
        for w in self.workers:
            if w.process.is_alive():
                w.process.kill()
                w.process.join()
            w.channel.close()

    def close(self):
        """Stops the workers (they finish the task at hand, or are killed after a second)."""
        if self.workers and self.broken is None:
            self._stop_workers()
        for w in self.workers:
            w.mappings.clear()  # the mappings go when the last array made from them does
        self.workers = []
        self.broken = self.broken or RuntimeError("the pipeline's Python workers were stopped")
