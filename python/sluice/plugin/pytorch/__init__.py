"""PyTorch iterators over Sluice pipelines, with DALI's names and semantics.

    from sluice.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy

Batches are torch tensors made from the pipeline's outputs without copies (DLPack), on the
pipeline's device, ordered on torch's current stream; a buffer goes back to the pipeline only when
torch has released the tensor. With ``gpu_normalize=...`` a pipeline that ends on the CPU in uint8
HWC is moved to the GPU on a side stream, permuted, converted and normalised there while the
previous batch trains (a built-in prefetcher). ``ProcessIterator`` runs the pipeline in a child
process instead (see its module).

Imports torch lazily: nothing else in Sluice needs it.
"""

from sluice.plugin.base_iterator import LastBatchPolicy, check_iterator_args
from sluice.sharding import shard_info

__all__ = ["DALIGenericIterator", "DALIClassificationIterator", "DALIRaggedIterator",
           "LastBatchPolicy", "GenericIterator", "ClassificationIterator", "ProcessIterator",
           "feed_ndarray", "to_torch_type", "shard_info", "TorchPythonFunction", "fn"]


def __getattr__(name):
    if name in ("feed_ndarray", "to_torch_type"):  # they import torch
        from sluice.plugin.pytorch import torch_utils

        return getattr(torch_utils, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _GpuNormalize:
    """The prefetcher for CPU pipelines: uint8 HWC batches go to the GPU on a side stream and are
    converted there to normalised float CHW while the consumer trains on the previous batch."""

    def __init__(self, device, mean, std, dtype, channels_last):
        import torch

        if not torch.cuda.is_available():  # torch's own error would not name the argument
            raise RuntimeError("gpu_normalize= needs a CUDA device, and torch sees none (a CPU "
                               "build of torch, or no GPU): leave gpu_normalize out and normalise "
                               "in the pipeline (fn.crop_mirror_normalize)")
        self.torch = torch
        self.device = torch.device("cuda", device)
        self.stream = torch.cuda.Stream(device=self.device)
        shape = (1, -1, 1, 1)
        self.mean = torch.tensor(mean, dtype=torch.float32, device=self.device).view(shape)
        self.inv_std = 1.0 / torch.tensor(std, dtype=torch.float32, device=self.device).view(shape)
        self.dtype = dtype
        self.channels_last = channels_last

    def start(self, batch):
        """Queues the copy and conversion of `batch` (a TensorListCPU, uint8 HWC)."""
        torch = self.torch
        gpu = batch.copy_to_gpu(self.device.index, self.stream.cuda_stream)
        with torch.cuda.stream(self.stream):
            x = torch.from_dlpack(gpu).permute(0, 3, 1, 2).float()
            x = ((x - self.mean) * self.inv_std).to(self.dtype)
            if self.channels_last:
                x = x.contiguous(memory_format=torch.channels_last)
            else:
                x = x.contiguous()
        return x

    def move(self, t):
        """Queues the copy of another output (labels, ...) to the same GPU on the side stream."""
        with self.torch.cuda.stream(self.stream):
            return t.to(self.device, non_blocking=True)

    def finish(self, batch):
        """Makes the consumer's stream wait for the side stream and hands the tensors over."""
        current = self.torch.cuda.current_stream(self.device)
        current.wait_stream(self.stream)
        for x in batch.values():
            x.record_stream(current)
        return batch


class DALIGenericIterator:
    """Iterates over one pipeline (or one per GPU, in a list) and returns, per step, a list with
    one dict {name: torch.Tensor} per pipeline.

    size: samples per epoch when not using reader_name (-1: until the pipeline ends).
    reader_name: the reader whose epoch defines this iterator's epoch (recommended).
    last_batch_policy: FILL, DROP or PARTIAL (see LastBatchPolicy).
    last_batch_padded: accepted for compatibility; with reader_name the reader knows.
    auto_reset: start the next epoch automatically (True / "yes") after StopIteration.
    gpu_normalize: for CPU pipelines ending in uint8 HWC images: a dict with mean, std (per
        channel, 0-255 scale), optional dtype (torch.float32), device (0) and channels_last; the
        first output is then delivered normalised, float and CHW on that GPU, the other outputs
        (labels) on the same GPU, prefetched one batch ahead on a side stream.
    """

    def __init__(self, pipelines, output_map, size=-1, reader_name=None, auto_reset=False,
                 fill_last_batch=None, dynamic_shape=False, last_batch_padded=False,
                 last_batch_policy=LastBatchPolicy.FILL, prepare_first_batch=True,
                 gpu_normalize=None):
        import torch  # noqa: F401 - fail early when torch is missing

        self._output_map = list(output_map)
        if len(set(self._output_map)) != len(self._output_map):
            raise AssertionError("output_map names should be distinct")
        self._pipes, self._auto_reset, self._policy = check_iterator_args(
            pipelines, size, reader_name, auto_reset, fill_last_batch, last_batch_padded,
            last_batch_policy)
        self._reader_name = reader_name
        self._size = int(size)
        self._dynamic_shape = dynamic_shape
        self._last_batch_padded = last_batch_padded
        for p in self._pipes:
            p.build()
        self._batch_size = self._pipes[0].max_batch_size
        self._normalize = None
        if gpu_normalize is not None:
            import torch

            opts = dict(gpu_normalize)
            self._normalize = _GpuNormalize(opts.get("device", 0), opts["mean"], opts["std"],
                                            opts.get("dtype", torch.float32),
                                            opts.get("channels_last", False))
        self._counter = 0  # batches returned in this epoch
        self._samples = 0  # samples returned in this epoch (size-based epochs)
        self._ended = False
        self._pending = None  # the prefetched, converted batch (gpu_normalize)
        self._pending_keep = 0
        self._primed = False
        self._epoch = 0  # the reader's epoch this iterator's epoch is
        self._enable_checkpointing = self._pipes[0]._enable_checkpointing
        if any(p._enable_checkpointing != self._enable_checkpointing for p in self._pipes):
            raise ValueError(
                "All wrapped pipelines must have the same value for `enable_checkpointing`.")
        if self._pipes[0].is_restored_from_checkpoint:
            self._restore_position(self._pipes[0]._iterator_data)
        if prepare_first_batch:
            self._prime()

    # --- epoch length ------------------------------------------------------------------------
    def _meta(self):
        return self._pipes[0].reader_meta(self._reader_name)

    def _reader_batches(self, meta):
        """The batches of the reader's current epoch (fewer in an elastic resume's first)."""
        if meta.get("resume_epoch") == self._epoch:
            return meta["resume_epoch_batches"]
        return meta["batches_per_epoch"]

    def _batches_per_epoch(self):
        """Batches this iterator returns per epoch; None when unknown (until the data ends)."""
        if self._reader_name is not None:
            meta = self._meta()
            if self._policy == LastBatchPolicy.DROP:
                # Only batches complete on every shard: all ranks drop the same ones.
                size = meta["epoch_size"]
                if meta.get("resume_epoch") == self._epoch:
                    size = meta["resume_epoch_size"]
                return size // meta["number_of_shards"] // self._batch_size
            return self._reader_batches(meta)
        if self._size > 0:
            if self._policy == LastBatchPolicy.DROP:
                return self._size // self._batch_size
            return -(-self._size // self._batch_size)
        return None

    def __len__(self):
        n = self._batches_per_epoch()
        if n is None:
            raise TypeError("the iterator's length is unknown: give size or reader_name")
        return n

    @property
    def size(self):
        return self._meta()["epoch_size"] if self._reader_name is not None else self._size

    # --- iteration ---------------------------------------------------------------------------
    def _prime(self):
        if not self._primed:
            for p in self._pipes:
                p.schedule_run()
            self._primed = True

    def __iter__(self):
        return self

    def _fetch(self):
        """The next iteration of every pipeline: (outputs per pipeline, batch info per pipeline)."""
        outs, infos = [], []
        for p in self._pipes:
            o = p.share_outputs()
            outs.append(o)
            infos.append(p.last_batch_info())
        return outs, infos

    def _release_and_schedule(self):
        for p in self._pipes:
            p.release_outputs()
            p.schedule_run()

    def _to_torch(self, outputs, keep):
        import torch

        result = []
        self._last_ptrs = [o.data_ptr() for o in outputs]  # for zero-copy checks
        for k, o in enumerate(outputs):
            if not o.is_dense_tensor():
                raise RuntimeError(
                    f"output '{self._output_map[k]}' has samples of different shapes; the "
                    "iterator returns dense batches (resize or crop to a common size)")
            if k == 0 and self._normalize is not None:
                x = self._normalize.start(o)
                result.append(x[:keep] if keep < x.shape[0] else x)
                continue
            t = torch.from_dlpack(o)
            t = t[:keep] if keep < t.shape[0] else t
            result.append(self._normalize.move(t) if self._normalize is not None else t)
        return result

    def __next__(self):
        if self._ended:
            raise StopIteration
        self._prime()
        total = self._batches_per_epoch()
        if total is not None and self._counter >= total:
            return self._end_epoch()
        try:
            outs, infos = self._fetch()
        except StopIteration:
            self._ended = True
            if self._auto_reset:
                self.reset()
            raise
        keep = self._batch_size
        if self._policy == LastBatchPolicy.PARTIAL:
            if self._reader_name is not None:
                keep = infos[0]["num_valid"]
            elif self._size > 0:
                keep = min(keep, self._size - self._samples)
        keep = min(keep, len(outs[0][0]))
        batch = []
        for o in outs:
            batch.append(dict(zip(self._output_map, self._to_torch(o, keep))))
        self._release_and_schedule()  # tensors keep their buffers; the pipeline moves on
        self._counter += 1
        self._samples += keep
        if self._normalize is not None:
            # Hand over the batch converted one step earlier; this one converts meanwhile.
            previous, self._pending = self._pending, batch
            self._pending_keep = keep
            if previous is None:
                return self.__next__() if self._has_next() else self._flush()
            return self._finish(previous)
        return batch

    def _has_next(self):
        total = self._batches_per_epoch()
        return total is None or self._counter < total

    def _finish(self, batch):
        return [self._normalize.finish(d) for d in batch]

    def _flush(self):
        previous, self._pending = self._pending, None
        return self._finish(previous)

    def _end_epoch(self):
        if self._normalize is not None and self._pending is not None:
            return self._flush()
        # DROP: the pipeline still has this epoch's incomplete batches; skip them so the next
        # epoch starts at its beginning on every rank.
        if self._reader_name is not None:
            meta_batches = self._reader_batches(self._meta())
            while self._counter < meta_batches:
                self._fetch()
                self._release_and_schedule()
                self._counter += 1
        self._ended = True
        if self._auto_reset:
            self.reset()
        raise StopIteration

    next = __next__

    def reset(self):
        """Starts the next epoch (after StopIteration; mid-epoch, the rest of the epoch is
        skipped; before an epoch's first batch, as right after auto_reset, nothing happens)."""
        if not self._ended and self._counter == 0:
            return  # DALI's loop `for b in it: ...; it.reset()` stays right with auto_reset
        if not self._ended and self._reader_name is not None:
            meta_batches = self._reader_batches(self._meta())
            while self._counter < meta_batches:
                self._fetch()
                self._release_and_schedule()
                self._counter += 1
        if self._reader_name is None:
            # External sources: a pipeline whose data ended starts again, also when size= set
            # the epoch (DALI resets every pipeline with nothing more scheduled).
            for p in self._pipes:
                if self._size <= 0 or p.empty():
                    p.reset()
                    p.schedule_run()
        self._counter = 0
        self._samples = 0
        self._ended = False
        self._pending = None
        self._epoch += 1

    # --- checkpointing -----------------------------------------------------------------------
    def _save_position(self):
        held = 1 if self._pending is not None else 0  # converted ahead, not handed over yet
        return {"counter": self._counter - held,
                "samples": self._samples - (self._pending_keep if held else 0),
                "ended": self._ended, "epoch": self._epoch}, held

    def _restore_position(self, data):
        """The position after a restore: the reader's (with reader_name) and what the iterator
        saved (None: a checkpoint taken from the pipeline)."""
        data = data or {}
        self._counter = data.get("counter", 0)
        self._samples = data.get("samples", 0)
        self._ended = bool(data.get("ended", False))
        self._epoch = data.get("epoch", 0)
        self._pending = None
        if self._reader_name is None:
            return
        epoch, batch, _ = self._pipes[0]._reader_starts[self._reader_name]
        if not data or epoch == self._epoch:
            self._epoch, self._counter = epoch, batch
        else:
            # The reader finished the epoch before StopIteration was raised (or the iterator
            # was reset): the epoch ends now, without reading the next one's batches.
            self._counter = self._reader_batches(self._meta())

    def _require_checkpointing(self):
        if not self._enable_checkpointing:
            raise ValueError("Cannot access checkpoints with checkpointing disabled")

    def checkpoints(self):
        """DALI's iterator checkpoints: one string per pipeline, each restoring that pipeline
        (Pipeline(checkpoint=...)) and, when an iterator wraps it, this iterator's position."""
        self._require_checkpointing()
        data, held = self._save_position()
        return [p._get_checkpoint(iterator_data=data, held_back=held) for p in self._pipes]

    def state_dict(self):
        """The iterator's state as a small dict of plain values (torch.distributed.checkpoint
        saves it as is): the position of the batches handed out, not of those prefetched. Any
        rank's state restores any rank of a job with another number of shards (elastic)."""
        self._require_checkpointing()
        data, _ = self._save_position()
        return {"epoch": data["epoch"], "batch": data["counter"],
                "checkpoints": self.checkpoints()}

    def load_state_dict(self, state_dict):
        """Continues from state_dict(): the pipelines restart where it says (nothing before is
        read or decoded)."""
        self._require_checkpointing()
        cpts = list(state_dict["checkpoints"])
        if len(cpts) != len(self._pipes):
            if len(cpts) < 1:
                raise ValueError("state_dict has no pipeline checkpoints")
            cpts = [cpts[0]] * len(self._pipes)  # elastic: any pipeline's position will do
        for p, c in zip(self._pipes, cpts):
            p._restore(c)
        self._primed = False
        self._restore_position(self._pipes[0]._iterator_data)
        self._prime()


class DALIClassificationIterator(DALIGenericIterator):
    """DALIGenericIterator with output_map ["data", "label"]."""

    def __init__(self, pipelines, size=-1, reader_name=None, auto_reset=False,
                 fill_last_batch=None, dynamic_shape=False, last_batch_padded=False,
                 last_batch_policy=LastBatchPolicy.FILL, prepare_first_batch=True,
                 gpu_normalize=None):
        super().__init__(pipelines, ["data", "label"], size, reader_name=reader_name,
                         auto_reset=auto_reset, fill_last_batch=fill_last_batch,
                         dynamic_shape=dynamic_shape, last_batch_padded=last_batch_padded,
                         last_batch_policy=last_batch_policy,
                         prepare_first_batch=prepare_first_batch, gpu_normalize=gpu_normalize)


class DALIRaggedIterator(DALIGenericIterator):
    """DALIGenericIterator for batches whose samples differ in shape: `output_types` tags each
    output DENSE_TAG (one tensor, as DALIGenericIterator), SPARSE_LIST_TAG (a list with one
    tensor per sample) or SPARSE_COO_TAG (a sparse COO tensor: the samples' elements along the
    first dimension concatenated, indexed by (sample, position)). Untagged outputs are dense."""

    DENSE_TAG = "dense"
    SPARSE_LIST_TAG = "sparse_list"
    SPARSE_COO_TAG = "sparse_coo"

    def __init__(self, pipelines, output_map, size=-1, reader_name=None, output_types=None,
                 auto_reset=False, fill_last_batch=None, dynamic_shape=False,
                 last_batch_padded=False, last_batch_policy=LastBatchPolicy.FILL,
                 prepare_first_batch=True):
        tags = {self.DENSE_TAG, self.SPARSE_LIST_TAG, self.SPARSE_COO_TAG}
        if len(set(output_map)) != len(output_map):
            raise AssertionError("output_map names should be distinct")
        if output_types is not None and not set(output_types) <= tags:
            raise AssertionError("Only DENSE_TAG, SPARSE_LIST_TAG and SPARSE_COO_TAG are allowed")
        self._output_types = output_types
        super().__init__(pipelines, output_map, size, reader_name=reader_name,
                         auto_reset=auto_reset, fill_last_batch=fill_last_batch,
                         dynamic_shape=dynamic_shape, last_batch_padded=last_batch_padded,
                         last_batch_policy=last_batch_policy,
                         prepare_first_batch=prepare_first_batch)

    def _to_torch(self, outputs, keep):
        import torch

        result = []
        self._last_ptrs = [o.data_ptr() for o in outputs]
        for k, o in enumerate(outputs):
            tag = self._output_types[k] if self._output_types else self.DENSE_TAG
            if tag == self.DENSE_TAG:
                if not o.is_dense_tensor():
                    raise RuntimeError(
                        f"output '{self._output_map[k]}' has samples of different shapes; tag it "
                        "SPARSE_LIST_TAG or SPARSE_COO_TAG in output_types")
                t = torch.from_dlpack(o)
                result.append(t[:keep] if keep < t.shape[0] else t)
                continue
            samples = [torch.from_dlpack(o[i]) for i in range(min(keep, len(o)))]
            if tag == self.SPARSE_COO_TAG:
                values = torch.hstack(samples)
                index = [(i, j) for i, s in enumerate(samples) for j in range(s.shape[0])]
                index = torch.tensor(index, dtype=torch.int64, device=values.device)
                result.append(torch.sparse_coo_tensor(index.T, values))
            else:
                result.append(samples)
        return result


# Sluice's own names.
GenericIterator = DALIGenericIterator
ClassificationIterator = DALIClassificationIterator


from sluice.plugin.pytorch.process import ProcessIterator  # noqa: E402 - it imports this module
from sluice.plugin.pytorch import fn  # noqa: E402,F401 - torch_python_function
from sluice._python_function import TorchPythonFunction  # noqa: E402,F401
