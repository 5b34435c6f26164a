"""Pipelines in processes of their own, their batches handed over through shared memory.

    from sluice.plugin.pytorch import ProcessIterator
    it = ProcessIterator(functools.partial(make_pipeline, ...), ["data", "label"],
                         reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL)
    # or one process per shard: a list of functions, a list of dicts per step
    it = ProcessIterator([functools.partial(make_pipeline, shard_id=k, num_shards=3)
                          for k in range(3)], ["data", "label"], reader_name="Reader")

Why: nvJPEG's hardware submission waits on a driver lock that CUDA-graph work queued in the same
process holds (bench/RESULTS.md#gpu-busy-gpu). In another process it does not share that lock; under MPS the two processes'
kernels also run side by side (without MPS they take turns on the GPU, which costs the training).

The child process builds the pipeline with ``pipeline_fn()`` (picklable: a module-level function
or a functools.partial of one), iterates it with DALIGenericIterator and copies every batch into
one of ``slots`` buffers shared once with this process (CUDA IPC for GPU outputs, shared memory
for CPU ones). This process returns views of those buffers, ordered on torch's current stream by
an interprocess event; a slot goes back to the child when every tensor of its batch has been
released (its last use then ordered by an event on torch's current stream). The child runs ahead
by up to ``slots`` batches, across epoch ends too.
"""

import collections
import multiprocessing
import traceback
import weakref

_POLL_S = 1.0  # how often a waiting parent checks that the child is still alive


class _Lease:
    """One output of one delivered batch: the bytes of its slot buffer, seen by torch without a
    copy. torch keeps this object alive as long as any tensor uses the memory; when it goes,
    the slot's count of live outputs drops."""

    def __init__(self, buf, nbytes, slot, returned):
        self._buf = buf  # keeps the shared mapping open while torch uses it
        self._slot = slot
        self._returned = returned
        iface = {"shape": (nbytes,), "typestr": "|u1", "data": (buf.data_ptr(), False),
                 "strides": None, "version": 3 if buf.device.type == "cpu" else 2}
        if buf.device.type == "cpu":
            self.__array_interface__ = iface
        else:
            self.__cuda_array_interface__ = iface

    def __del__(self):
        self._returned.append(self._slot)  # deque.append is thread-safe: any thread may free


def _as_tensor(lease, dtype, shape, device):
    import numpy as np
    import torch

    raw = (torch.from_numpy(np.asarray(lease)) if device.type == "cpu"
           else torch.as_tensor(lease, device=device))
    return raw.view(dtype).view(shape)


class ProcessIterator:
    """DALIGenericIterator's interface (``next`` returns a list with one dict per pipeline), with
    each pipeline in a child process of its own. ``pipeline_fn`` builds one pipeline there; a list
    of them builds one per process, as DALIGenericIterator takes a list of pipelines: each its own
    shard (``shard_id``/``num_shards`` of its reader), so every process gives the same number of
    batches per epoch. The other arguments are DALIGenericIterator's, except auto_reset, which
    this iterator applies itself.

    Several processes help where one process's hardware JPEG submission is the limit: each has
    its own driver lock, for a GPU context and buffers of its own each
    (bench/RESULTS.md#gpu-processes)."""

    def __init__(self, pipeline_fn, output_map, slots=4, auto_reset=False, **iterator_args):
        import torch.multiprocessing  # noqa: F401 - registers the tensor-sharing reductions

        if slots < 2:
            raise ValueError("slots must be at least 2: one batch in use, one being filled")
        fns = list(pipeline_fn) if isinstance(pipeline_fn, (list, tuple)) else [pipeline_fn]
        if not fns:
            raise ValueError("ProcessIterator needs at least one pipeline function")
        self._output_map = list(output_map)
        self._auto_reset = auto_reset in (True, "yes")
        self._children = []
        try:  # start them all before waiting for any: each builds its pipeline meanwhile
            for f in fns:
                self._children.append(_Child(f, self._output_map, slots, iterator_args))
            lengths = [c.receive("ready")[1] for c in self._children]
        except BaseException:
            self.close()
            raise
        if len(set(lengths)) > 1:
            self.close()
            raise ValueError(f"the pipelines' epochs differ in length ({lengths} batches): give "
                             "each the same reader arguments but its own shard_id")
        self._length = lengths[0]
        self._ended = False
        self._taken = 0  # steps returned in this epoch

    def __len__(self):
        if self._length is None:
            raise TypeError("the iterator's length is unknown: give size or reader_name")
        return self._length

    def __iter__(self):
        return self

    def __next__(self):
        if self._ended:
            raise StopIteration
        msgs = [c.receive("batch", "end") for c in self._children]
        ended = [m[0] == "end" for m in msgs]
        if any(ended):
            if not all(ended):
                for c, m in zip(self._children, msgs):
                    if m[0] == "batch":
                        c.deliver(*m[1:])  # dropped at once: the slot returns
                raise RuntimeError("the pipelines' epochs ended at different batches: give each "
                                   "the same reader arguments but its own shard_id")
            self._ended = not self._auto_reset
            self._taken = 0
            raise StopIteration
        self._taken += 1
        return [c.deliver(*m[1:]) for c, m in zip(self._children, msgs)]

    next = __next__

    def reset(self):
        """Starts the next epoch; mid-epoch, the rest of this epoch is skipped; before an
        epoch's first batch (as right after auto_reset) nothing happens."""
        while not self._ended and self._taken:  # the epoch's end sets _taken to 0
            next(self, None)  # dropped at once: its slots return
        self._ended = False

    def executor_statistics(self):
        """Each pipeline's ``executor_statistics()``, asked of its process: a list, one per
        pipeline (the child answers between batches)."""
        for c in self._children:
            c.send(("stats",))
        return [c.receive("stats")[1] for c in self._children]

    def close(self):
        """Stops the child processes (also done when the iterator is collected)."""
        for c in self._children:
            c.finalizer()


class _Child:
    """One pipeline process and its slots, seen from the parent."""

    def __init__(self, pipeline_fn, output_map, slots, iterator_args):
        ctx = multiprocessing.get_context("spawn")  # fork is unsafe once CUDA is initialised
        self.conn, child_conn = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, name="sluice-pipeline",
                                args=(child_conn, pipeline_fn, output_map, slots, iterator_args),
                                daemon=True)
        self.proc.start()
        child_conn.close()
        self.finalizer = weakref.finalize(self, _shutdown, self.proc, self.conn)
        self.output_map = output_map
        self.slots = slots
        self.bufs = [[None] * len(output_map) for _ in range(slots)]
        self.filled = [None] * slots  # the child's "slot written" events
        self.released = [None] * slots  # ours: "this process is done with the slot"
        self.live = [0] * slots  # outputs of the slot's batch still held by torch
        self.returned = collections.deque()
        self.pending = collections.deque()  # batches that came while waiting for something else
        self.error = None

    def send(self, msg):
        try:
            self.conn.send(msg)
        except OSError:  # the child is gone (a broken pipe): say so, as receive() does
            self.proc.join(_POLL_S)
            self.died()

    def receive(self, *kinds):
        """The next message of one of `kinds`, applying buffer updates on the way; slots whose
        batches torch released go back to the child first."""
        if self.error is not None:
            raise self.error
        for m in self.pending:
            if m[0] in kinds:
                self.pending.remove(m)
                return m
        while True:
            self.return_slots()
            if "batch" in kinds and not self.conn.poll(0) and all(self.live):
                import gc

                gc.collect()  # a batch in a reference cycle may be all that holds a slot
                self.return_slots()
                if all(self.live):
                    raise RuntimeError(
                        f"all {self.slots} slots of the ProcessIterator hold batches that are "
                        "still referenced; release earlier batches or give more slots")
            while not self.conn.poll(_POLL_S):
                if not self.proc.is_alive():
                    self.died()
            try:
                msg = self.conn.recv()
            except (OSError, EOFError):  # a shared buffer whose sender is gone, or the pipe
                self.proc.join(_POLL_S)
                self.died()
            if msg[0] == "buffer":
                _, slot, k, buf = msg
                self.bufs[slot][k] = buf
            elif msg[0] == "error":
                self.error = msg[1]
                raise self.error
            elif msg[0] in kinds:
                return msg
            elif msg[0] in ("batch", "end"):
                self.pending.append(msg)
            else:
                raise RuntimeError(f"unexpected message from the pipeline process: {msg[0]}")

    def died(self):
        self.error = RuntimeError(
            f"the pipeline process (pid {self.proc.pid}) exited with code "
            f"{self.proc.exitcode} before sending its next batch")
        raise self.error

    def deliver(self, slot, metas, filled_handle):
        import torch

        if filled_handle is not None:
            if self.filled[slot] is None:
                device = next(b.device for b in self.bufs[slot] if b.device.type == "cuda")
                self.filled[slot] = torch.cuda.Event.from_ipc_handle(device, filled_handle)
            torch.cuda.current_stream().wait_event(self.filled[slot])
        out = {}
        self.live[slot] = len(metas)
        for k, (dtype, shape, nbytes) in enumerate(metas):
            buf = self.bufs[slot][k]
            lease = _Lease(buf, nbytes, slot, self.returned)
            out[self.output_map[k]] = _as_tensor(lease, dtype, shape, buf.device)
        return out

    def return_slots(self):
        import torch

        while self.returned:
            slot = self.returned.popleft()
            self.live[slot] -= 1
            if self.live[slot]:
                continue
            handle = None
            if self.filled[slot] is not None:  # the slot holds GPU outputs
                if self.released[slot] is None:
                    self.released[slot] = torch.cuda.Event(interprocess=True)
                    handle = self.released[slot].ipc_handle()
                self.released[slot].record(torch.cuda.current_stream())
            self.send(("release", slot, handle))


def _shutdown(proc, conn):
    try:
        conn.send(("stop",))
    except (OSError, ValueError):
        pass  # the child is gone already
    proc.join(10)
    if proc.is_alive():
        proc.kill()
        proc.join()
    conn.close()


def _picklable(e):
    import pickle

    try:
        pickle.loads(pickle.dumps(e))
        return e
    except Exception:
        return RuntimeError(f"in the pipeline process: {''.join(traceback.format_exception(e))}")


def _serve(conn, pipeline_fn, output_map, slots, iterator_args):
    """The child: fills free slots with the pipeline's batches until told to stop or the parent
    goes away."""
    import torch
    import torch.multiprocessing  # noqa: F401

    from sluice.plugin.pytorch import DALIGenericIterator

    try:
        pipe = pipeline_fn()
        if pipe.device_id is not None:  # torch's current stream is then the pipeline's GPU's
            torch.cuda.set_device(pipe.device_id)
        it = DALIGenericIterator(pipe, output_map, auto_reset=True, **iterator_args)
        try:
            length = len(it)
        except TypeError:
            length = None
        conn.send(("ready", length))
    except BaseException as e:  # noqa: B902 - any failure must reach the parent
        conn.send(("error", _picklable(e)))
        return
    free = collections.deque(range(slots))
    bufs = [[None] * len(output_map) for _ in range(slots)]
    filled = [None] * slots
    released = [None] * slots  # the parent's events, opened once

    def control(block):
        while block or conn.poll():
            msg = conn.recv()
            if msg[0] == "stop":
                return False
            if msg[0] == "stats":
                conn.send(("stats", pipe.executor_statistics()))
                continue
            _, slot, handle = msg
            if handle is not None:
                device = next(b.device for b in bufs[slot] if b.device.type == "cuda")
                released[slot] = torch.cuda.Event.from_ipc_handle(device, handle)
            free.append(slot)
            block = False
        return True

    try:
        while True:
            if not control(block=not free):
                return
            try:
                batch = next(it)[0]
            except StopIteration:
                conn.send(("end",))
                continue
            slot = free.popleft()
            if released[slot] is not None:  # the parent's last use of the slot comes first
                torch.cuda.current_stream().wait_event(released[slot])
            metas, on_gpu = [], False
            for k, name in enumerate(output_map):
                t = batch[name]
                nbytes = t.numel() * t.element_size()
                buf = bufs[slot][k]
                if buf is None or buf.numel() < nbytes or buf.device != t.device:
                    buf = torch.empty(nbytes, dtype=torch.uint8, device=t.device)
                    if t.device.type == "cpu":
                        buf.share_memory_()
                    bufs[slot][k] = buf
                    conn.send(("buffer", slot, k, buf))
                on_gpu = on_gpu or t.device.type == "cuda"
                buf[:nbytes].view(t.dtype).view(t.shape).copy_(t, non_blocking=True)
                metas.append((t.dtype, tuple(t.shape), nbytes))
            handle = None
            if on_gpu:
                if filled[slot] is None:
                    filled[slot] = torch.cuda.Event(interprocess=True)
                filled[slot].record(torch.cuda.current_stream())
                handle = filled[slot].ipc_handle()
            del batch, t
            conn.send(("batch", slot, metas, handle))
    except (EOFError, BrokenPipeError, ConnectionResetError):
        return  # the parent went away
    except BaseException as e:  # noqa: B902
        try:
            conn.send(("error", _picklable(e)))
            # Stay until told to stop: shared CPU buffers still in the pipe are handed over by
            # this process's resource-sharing thread.
            while conn.recv()[0] != "stop":
                pass
        except (OSError, EOFError):
            pass
