"""Checkpoints: the consumer's position in every reader, enough to resume exactly.

Every random draw is keyed by (seed, operator, epoch, sample id) and a reader's order by (seed,
epoch), so the state is the pipeline seed and, per reader, the epoch and batch that the consumer
receives next - the iterations prefetched but not yet consumed are not part of it. Restoring
starts each reader there (its resume_* arguments): nothing before is read or decoded.

A checkpoint saved with N shards may be restored with M: when the interrupted epoch had begun,
it resumes with only the samples the N shards had not read, split across the M shards, then
normal epochs follow (io/epoch_plan.h, "elastic resume").
"""

import json
import warnings

FORMAT = "sluice-checkpoint"
VERSION = 1


def _batches_in_epoch(meta, epoch):
    if meta.get("resume_epoch") == epoch:
        return meta["resume_epoch_batches"]
    return meta["batches_per_epoch"]


def advance(meta, epoch, batch, iterations):
    """The (epoch, batch) `iterations` batches after (epoch, batch) of a reader with `meta`."""
    while iterations > 0:
        left = _batches_in_epoch(meta, epoch) - batch
        if iterations < left:
            return epoch, batch + iterations
        iterations -= left
        epoch, batch = epoch + 1, 0
    return epoch, batch


def reader_state(meta, start, consumed, batch_size):
    """The saved state of one reader that started at `start` = (epoch, batch, remainder or
    None) and whose consumer has received `consumed` iterations since."""
    epoch, batch = advance(meta, start[0], start[1], consumed)
    state = {"epoch": epoch, "batch": batch, "num_shards": meta["number_of_shards"],
             "shard_id": meta["shard_id"], "batch_size": batch_size,
             "epoch_size": meta["epoch_size"]}
    if meta.get("resume_epoch") == epoch:  # still inside an elastic resume's partial epoch
        state["remainder"] = dict(start[2])
    return state


def make(seed, readers, sources, iterator=None):
    """The serialized checkpoint (a JSON string)."""
    return json.dumps({"format": FORMAT, "version": VERSION, "seed": seed, "readers": readers,
                       "sources": sources, "iterator": iterator}, sort_keys=True)


def parse(checkpoint):
    """The checkpoint as a dict; ValueError when it is not one of ours."""
    if isinstance(checkpoint, (bytes, bytearray)):
        checkpoint = checkpoint.decode()
    try:
        cpt = json.loads(checkpoint)
    except (TypeError, ValueError) as e:
        raise ValueError(f"not a Sluice pipeline checkpoint: {e}") from None
    if not isinstance(cpt, dict) or cpt.get("format") != FORMAT:
        raise ValueError('not a Sluice pipeline checkpoint (missing "format": '
                         f'"{FORMAT}")')
    if cpt.get("version") != VERSION:
        raise ValueError(f"unsupported checkpoint version {cpt.get('version')!r}")
    return cpt


def _shard_size(n, shards, k):
    return (k + 1) * n // shards - k * n // shards


def resume_args(saved, name, num_shards, batch_size, epoch_size):
    """The resume_* arguments of reader `name` (now num_shards shards of batch_size) that
    continue the `saved` reader state."""
    e, j = saved["epoch"], saved["batch"]
    same = saved["num_shards"] == num_shards and saved["batch_size"] == batch_size
    rem = saved.get("remainder")
    if rem is not None:
        if not same:
            raise NotImplementedError(
                f"checkpoint of reader '{name}': it was saved inside the partial epoch of an "
                f"earlier resume onto another number of shards; resume it with the same "
                f"num_shards ({saved['num_shards']}) and batch_size ({saved['batch_size']}), "
                "or from a checkpoint taken after that epoch")
        return {"resume_epoch": e, "resume_batch": j, "resume_num_shards": rem["num_shards"],
                "resume_consumed": rem["consumed"]}
    if j == 0 or same:
        return {"resume_epoch": e, "resume_batch": j}
    consumed = j * saved["batch_size"]
    old = saved["num_shards"]
    if all(_shard_size(epoch_size, old, k) <= consumed for k in range(old)):
        return {"resume_epoch": e + 1}
    return {"resume_epoch": e, "resume_num_shards": old, "resume_consumed": consumed}


def apply(doc, cpt):
    """Patches the pipeline document `doc` (a dict) so that it starts from checkpoint `cpt`;
    returns {reader name: (epoch, batch, remainder or None) it starts at}."""
    readers = cpt.get("readers") or {}
    ops = {op["name"]: op for op in doc["ops"]}
    missing = sorted(set(readers) - set(ops))
    if missing:
        raise ValueError(f"the checkpoint has state for readers {missing} that this pipeline "
                         "does not have (operator names must match the saved pipeline's)")
    if cpt.get("seed") is not None:
        if doc["params"].get("seed") not in (None, -1, cpt["seed"]):
            warnings.warn(f"the checkpoint was saved with seed {cpt['seed']}; it replaces the "
                          f"pipeline's seed {doc['params']['seed']} so that random draws resume "
                          "exactly", stacklevel=4)
        doc["params"]["seed"] = cpt["seed"]
    starts = {}
    batch_size = doc["params"]["batch_size"]
    for name, saved in readers.items():
        args = ops[name]["args"]
        shards = int(args.get("num_shards", 1))
        extra = resume_args(saved, name, shards, batch_size, saved["epoch_size"])
        args.update(extra)
        rem = None
        if "resume_num_shards" in extra:
            rem = {"epoch": extra["resume_epoch"], "num_shards": extra["resume_num_shards"],
                   "consumed": extra["resume_consumed"]}
        starts[name] = (extra["resume_epoch"], extra.get("resume_batch", 0), rem)
    return starts


def check_epoch_size(name, saved, meta):
    """After the build: the dataset must be the one the checkpoint was saved over."""
    if meta["epoch_size"] != saved["epoch_size"]:
        raise ValueError(f"checkpoint of reader '{name}': it was saved over "
                         f"{saved['epoch_size']} samples, the dataset now has "
                         f"{meta['epoch_size']}")


def warn_external_sources(feeder):
    """DALI's warning for external sources whose position a checkpoint does not hold."""
    from sluice._callbacks import SourceKind

    reasons = [f"with {g.desc.kind} as a 'source'" if g.desc.kind != SourceKind.CALLABLE
               else "with parameterless callable as a 'source'"
               for g in feeder.groups if not g.accepts_arg]
    reasons += ["with a parallel callable as a 'source'"] * any(
        g.accepts_arg and g.parallel for g in feeder.groups)
    reasons += ["without a 'source' (fed with feed_input())"] * bool(feeder.fed_only)
    for reason in dict.fromkeys(reasons):
        warnings.warn(
            f"Checkpointing enabled in a pipeline with external source operator, {reason}. "
            "The checkpoint does not hold the state of such a 'source'. When loading the "
            "checkpoint, the 'source' continues from where it is, not from where the checkpoint "
            "was taken.", stacklevel=5)


class Checkpointing:
    """Pipeline's checkpointing methods (DALI's names)."""

    @property
    def is_restored_from_checkpoint(self):
        """If True, this pipeline was restored from a checkpoint."""
        return self._restored is not None

    def _document_from_checkpoint(self, document):
        """`document` starting where self._checkpoint says: the readers' and sources' positions
        and the seed (the readers' starts in self._reader_starts)."""
        if not self._enable_checkpointing:
            raise RuntimeError("Cannot restore checkpoint. The `enable_checkpointing` was "
                               "not specified when creating the pipeline")
        cpt = parse(self._checkpoint)
        doc = json.loads(document)
        if self._seed_drawn:
            doc["params"]["seed"] = None  # not the user's: the checkpoint's replaces it
        self._reader_starts = apply(doc, cpt)
        self._restored = cpt
        if cpt.get("sources"):
            self._feeder.seek(cpt["sources"])
            self._end = bool(cpt["sources"].get("ended"))
            self._exec_epoch, self._exec_samples = cpt["sources"].get("executor", (0, 0))
            doc["params"]["first_epoch"] = self._exec_epoch
            doc["params"]["first_sample"] = self._exec_samples
        if cpt.get("seed") is not None:
            self._seed = cpt["seed"]
        return json.dumps(doc)

    @property
    def _iterator_data(self):
        return (self._restored or {}).get("iterator")

    def checkpoint(self, filename=None):
        """The pipeline's state as bytes (UTF-8 JSON; DALI's are bytes too): the position of the
        consumer (not of the prefetched iterations) in every reader, and the seed.
        Pipeline(checkpoint=...) built from the same definition resumes there, also with another
        num_shards (elastic). With `filename`, the state is also written to that file."""
        self._require_checkpointing()
        self.build()
        cpt = self._get_checkpoint().encode()
        if filename is not None:
            with open(filename, "wb") as f:
                f.write(cpt)
        return cpt

    def _require_checkpointing(self):
        if not self._enable_checkpointing:
            raise RuntimeError("Cannot save the checkpoint. The `enable_checkpointing` was not "
                               "specified when creating the pipeline")

    def _get_checkpoint(self, iterator_data=None, held_back=0):
        """The checkpoint, `held_back` shared iterations not counted as consumed (a consumer's
        prefetched batches)."""
        self._require_checkpointing()
        if self._position_lost:
            raise RuntimeError("checkpoint(): the pipeline was reset while iterations were "
                               "prefetched, so the readers' position is unknown; checkpoint "
                               "between iterations instead")
        readers = {}
        for name, start in self._reader_starts.items():
            readers[name] = reader_state(self._backend.reader_meta(name), start,
                                         self._consumed - held_back, self._batch_size)
        if held_back:
            sources = dict(self._shared_positions[-held_back])
        elif self._feed_positions:
            sources = dict(self._feed_positions[0])
        else:
            sources = dict(self._feeder.position(), ended=self._end)  # next: StopIteration
        sizes = list(self._shared_sizes)
        held = sum(sizes[len(sizes) - held_back:]) if held_back else 0
        sources["executor"] = [self._exec_epoch, self._exec_samples - held]
        return make(self._seed, readers, sources, iterator_data)
