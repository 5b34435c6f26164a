"""Feeding a pipeline's external sources, one batch per scheduled iteration, with DALI's rules.

A `SourceGroup` is one `source` and the external_source operators it feeds (num_outputs). It
counts iterations and samples within the epoch and calls the source in the consumer thread, or,
with parallel=True, has the worker pool compute its batches ahead (sluice._parallel). The
pipeline's `SourceFeeder` runs all groups for each iteration: the parallel ones first, then the
others; when any of them ends (StopIteration) the iteration is not fed and the pipeline ends.
"""

import threading
import types
import weakref

from sluice._callbacks import BatchInfo, SampleInfo, SourceKind, check_batch, normalize_batch
from sluice._parallel.pool import LeasedBatch


class SourceGroup:
    """One source feeding one or more external_source operators."""

    def __init__(self, callback, desc, ops, num_outputs, *, batch, batch_info, parallel,
                 prefetch_queue_depth, bytes_per_sample_hint, no_copy, layouts):
        self.callback = callback
        self.desc = desc
        self.ops = ops
        self.num_outputs = num_outputs  # None: one output, not a tuple
        self.batch = batch
        self.batch_info = batch_info
        self.parallel = parallel
        self.prefetch_queue_depth = prefetch_queue_depth
        self.bytes_per_sample_hint = bytes_per_sample_hint
        self.no_copy = no_copy
        self.layouts = layouts
        self.accepts_arg = desc.kind == SourceKind.CALLABLE and desc.has_inputs
        self.current_iter = 0  # the batch within the epoch the next batch is
        self.current_sample = 0

    @property
    def name(self):
        """How errors name the source: its operator (or the first of them)."""
        return self.ops[0].name.split("[")[0]

    def callback_args(self, idx_in_batch, epoch_idx, batch_size=0, lead=0):
        """The argument tuple of the call for sample `idx_in_batch` (None: a batch call) of the
        batch `lead` iterations ahead of the next one."""
        if not self.accepts_arg:
            return ()
        if idx_in_batch is not None:
            return (SampleInfo(self.current_sample + idx_in_batch + batch_size * lead,
                               idx_in_batch, self.current_iter + lead, epoch_idx),)
        if self.batch_info:
            return (BatchInfo(self.current_iter + lead, epoch_idx),)
        return (self.current_iter + lead,)

    def reset_indices(self):
        self.current_iter = 0
        self.current_sample = 0

    def advance(self, batch_size):
        self.current_sample += batch_size
        self.current_iter += 1

    def get_batch(self, batch_size, epoch_idx):
        """The next batch from the source, called here (StopIteration at the end)."""
        try:
            if self.batch:
                out = self.callback(*self.callback_args(None, epoch_idx))
            else:
                out = [self.callback(*self.callback_args(i, epoch_idx)) for i in range(batch_size)]
        except StopIteration:
            self.reset_indices()
            raise
        self.advance(batch_size)
        return out

    def split(self, out, batch_size):
        """The source's result as one batch per operator."""
        if self.num_outputs is None:
            return [out]
        if self.batch:
            outputs = list(out)
        else:
            outputs = [[sample[k] for sample in out] for k in range(len(self.ops))]
            return outputs
        if len(outputs) < len(self.ops):
            raise ValueError(f"external_source '{self.name}': the source returned {len(outputs)} "
                             f"outputs, expected num_outputs={self.num_outputs}")
        return outputs[:len(self.ops)]


class SourceFeeder:
    """The external sources of one pipeline: feeds them per iteration, counts epochs, runs the
    parallel worker pool and waits for feed_input() data of blocking sources."""

    def __init__(self, pipe, ops):
        self._pipe = weakref.ref(pipe)  # the pipeline owns the feeder
        self._workers = (pipe.py_num_workers, pipe.py_start_method, pipe._py_callback_pickler)
        self.live = {op.name for op in ops}
        self.groups = []
        self.fed_only = {}  # name -> op, for external_source fed with feed_input()
        for op in ops:
            if op.type != "external_source":
                continue
            g = getattr(op, "es_group", None)
            if g is None:
                self.fed_only[op.name] = op
            elif g not in self.groups:
                self.groups.append(g)
        self.no_copy = {op.name: bool(op.args.get("no_copy", False)) for op in ops
                        if op.type == "external_source"}
        parallel = [g for g in self.groups if g.parallel]
        if parallel and (not isinstance(pipe.py_num_workers, int) or pipe.py_num_workers <= 0):
            raise RuntimeError(
                "The pipeline contains `fn.external_source` with `parallel` argument specified to "
                f"True. However, the `py_num_workers` was set to `{pipe.py_num_workers}`. The "
                "external source cannot run in parallel mode without Python workers pool. Set "
                "`py_num_workers` to a positive integer or `parallel` to False.")
        # Iterables have a worker of their own; they go first, so that worker is not busy with
        # other tasks when theirs arrive.
        self.parallel = ([g for g in parallel if g.desc.kind != SourceKind.CALLABLE]
                         + [g for g in parallel if g.desc.kind == SourceKind.CALLABLE])
        self.sequential = [g for g in self.groups if not g.parallel]
        self.pool = None
        self.epoch_idx = 0
        self._fed = {name: 0 for name in self.fed_only}  # feed_input() calls, in total
        self._taken = 0  # iterations scheduled with feed_input() data
        self._cond = threading.Condition()

    @classmethod
    def from_document(cls, pipe, ops):
        """For a deserialised pipeline: its external sources are fed with feed_input()."""
        return cls(pipe, [types.SimpleNamespace(type=op["type"], name=op["name"], args=op["args"])
                          for op in ops])

    # --- parallel workers ------------------------------------------------------------------
    def start_workers(self):
        if self.pool is not None or not self.parallel:
            return
        from sluice._parallel import WorkerPool

        self.pool = WorkerPool(self.parallel, *self._workers)

    def _prefetch(self, batch_size):
        for i, g in enumerate(self.parallel):
            self.pool.prefetch(i, g, batch_size, self.epoch_idx)

    # --- one iteration ---------------------------------------------------------------------
    def next_iteration(self, backend, batch_size):
        """Gets every source's next batch and feeds them; False at the end of the data (nothing
        is fed then)."""
        self.wait_for_feeds()
        batches, stop = [], False
        if self.pool is not None:
            self._prefetch(batch_size)
            for i, g in enumerate(self.parallel):
                try:
                    batches.append((g, self.pool.receive(i, g, batch_size, self.epoch_idx)))
                except StopIteration:
                    stop = True
        for g in self.sequential:
            try:
                batches.append((g, g.get_batch(batch_size, self.epoch_idx)))
            except StopIteration:
                stop = True
        if stop:
            return False
        try:
            self._pipe().iter_setup()
        except StopIteration:
            return False
        for g, out in batches:
            split = out if g.parallel else g.split(out, batch_size)  # workers split it already
            for op, layout, data in zip(g.ops, g.layouts, split):
                if op.name in self.live:  # outputs no one uses are pruned
                    self.feed(backend, op.name, data, layout, batch_size, no_copy=g.no_copy)
        self._taken += 1 if self.fed_only else 0
        return True

    def feed(self, backend, name, data, layout, batch_size, no_copy=None):
        """Feeds one batch to the operator `name` (DALI's checks first)."""
        check_batch(data, batch_size, layout)
        no_copy = self.no_copy.get(name, False) if no_copy is None else no_copy
        if not isinstance(data, LeasedBatch):  # a worker's batch is already as the engine takes it
            data = normalize_batch(data)
        backend.feed_input(name, data, layout or "", no_copy)

    # --- feed_input() sources ----------------------------------------------------------------
    def fed(self, name):
        """Counts a feed_input() call (blocking sources wait for it)."""
        with self._cond:
            self._fed[name] = self._fed.get(name, 0) + 1
            self._cond.notify_all()

    def available(self):
        """Iterations that feed_input() data was given for and that are not scheduled yet
        (None without feed_input() sources that need new data every iteration)."""
        names = [n for n, op in self.fed_only.items() if not op.args.get("repeat_last")]
        if not names:
            return None
        return min(self._fed.get(n, 0) for n in names) - self._taken

    def wait_for_feeds(self):
        """Blocking sources: waits until data for the next iteration has been fed (by another
        thread), as DALI's blocking external_source does."""
        blocking = [n for n, op in self.fed_only.items() if op.args.get("blocking")]
        if not blocking:
            return
        with self._cond:
            while min(self._fed.get(n, 0) for n in blocking) <= self._taken:
                self._cond.wait(0.05)  # wakes for Ctrl-C too

    # --- checkpoints ---------------------------------------------------------------------------
    def position(self):
        """Where the sources whose position a checkpoint holds (sequential callables taking the
        sample or batch information) are: the epoch, and each one's next iteration and sample."""
        return {"epoch": self.epoch_idx,
                "sources": [[g.current_iter, g.current_sample] for g in self.sequential
                            if g.accepts_arg]}

    def seek(self, position):
        """Continues from position() (a checkpoint's)."""
        groups = [g for g in self.sequential if g.accepts_arg]
        if len(position["sources"]) != len(groups):
            raise ValueError(f"the checkpoint holds {len(position['sources'])} external sources' "
                             f"positions, this pipeline has {len(groups)} such sources")
        self.epoch_idx = position["epoch"]
        for g, (it, sample) in zip(groups, position["sources"]):
            g.current_iter, g.current_sample = it, sample

    # --- epochs and shutdown -------------------------------------------------------------------
    def reset(self, ended):
        """Pipeline reset: a new epoch when the data had ended (as DALI); the sources start
        their indices again and the parallel ones drop what they computed ahead."""
        if ended:
            self.epoch_idx += 1
        for g in self.groups:
            g.reset_indices()
        if self.pool is not None:  # iterables keep their place unless they ended (DALI)
            for i, g in enumerate(self.parallel):
                if g.desc.kind == SourceKind.CALLABLE:
                    self.pool.reset_context(i)
        with self._cond:
            self._fed = {n: 0 for n in self.fed_only}
            self._taken = 0

    def close(self):
        pool, self.pool = self.pool, None
        if pool is not None:
            pool.close()
