"""Checks, under torchrun, that a job stopped mid-epoch resumes on another number of ranks (GPUs)
and reads every remaining sample of the epoch exactly once.

    torchrun --nproc_per_node=2 examples/imagenet/check_resume.py DATA STATE --stop-after 5
    torchrun --nproc_per_node=1 examples/imagenet/check_resume.py DATA STATE --resume

The first run reads `--stop-after` batches of the first epoch on each rank (the GPU training
pipeline: the mixed decoder with random crops, resize, flips, through DALIGenericIterator with
checkpointing) and saves each rank's `state_dict()` and the samples it read in STATE. The second,
with any number of ranks, loads rank r's state from the saved rank r % N, reads the rest of the
epoch, and rank 0 verifies that the samples of both runs cover the epoch once each. Each file's
label is its index in the folder, so labels name samples. `--cpu` runs the pipeline on the CPU.
Exits non-zero on a missing or repeated sample.
"""

import argparse
import collections
import json
import os
import pathlib
import sys

import torch
import torch.distributed as dist

from sluice import fn, pipeline_def, types
from sluice.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


def dataset(root):
    files = sorted(str(p) for p in pathlib.Path(root).rglob("*") if p.suffix.lower() == ".jpg")
    return files, list(range(len(files)))


def iterator(files, labels, rank, world, batch, device_id):
    @pipeline_def(batch_size=batch, num_threads=max(1, (os.cpu_count() or 2) // world),
                  device_id=device_id, seed=11, enable_checkpointing=True)
    def pipe():
        jpegs, label = fn.readers.file(files=files, labels=labels, random_shuffle=True,
                                       shard_id=rank, num_shards=world, name="Reader")
        device = "cpu" if device_id is None else "mixed"
        images = fn.decoders.image_random_crop(jpegs, device=device)
        images = fn.resize(images, resize_x=64, resize_y=64)
        images = fn.crop_mirror_normalize(images, mirror=fn.random.coin_flip(), dtype=types.FLOAT16)
        return images, label

    return DALIGenericIterator(pipe(), ["x", "y"], reader_name="Reader",
                               last_batch_policy=LastBatchPolicy.PARTIAL)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data")
    ap.add_argument("state", help="folder for the ranks' states and samples")
    ap.add_argument("--stop-after", type=int, default=0, help="batches to read, then save")
    ap.add_argument("--resume", action="store_true", help="resume from STATE and verify")
    ap.add_argument("-b", "--batch-size", type=int, default=64)
    ap.add_argument("--cpu", action="store_true")
    args = ap.parse_args()
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    local = int(os.environ.get("LOCAL_RANK", rank))
    device_id = None if args.cpu else local
    if device_id is not None:
        torch.cuda.set_device(device_id)
    files, labels = dataset(args.data)
    state = pathlib.Path(args.state)
    it = iterator(files, labels, rank, world, args.batch_size, device_id)
    seen = []
    if not args.resume:
        for _ in range(args.stop_after):
            seen += next(it)[0]["y"].reshape(-1).tolist()
        state.mkdir(parents=True, exist_ok=True)
        (state / f"rank{rank}.json").write_text(json.dumps(
            {"world": world, "state": it.state_dict(), "seen": seen}))
        print(f"rank {rank}/{world}: read {len(seen)} samples, saved", flush=True)
        dist.destroy_process_group()
        return 0
    saved = sorted(state.glob("rank*.json"), key=lambda p: int(p.stem[4:]))
    old = [json.loads(p.read_text()) for p in saved]
    it.load_state_dict(old[rank % len(old)]["state"])
    for batch in it:
        seen += batch[0]["y"].reshape(-1).tolist()
    gathered = [None] * world
    dist.all_gather_object(gathered, seen)
    ok = True
    if rank == 0:
        before = [s for o in old for s in o["seen"]]
        after = [s for g in gathered for s in g]
        counts = collections.Counter(before + after)
        ok = len(counts) == len(files) and set(counts.values()) == {1}
        print(f"{len(old)} -> {world} ranks: {len(before)} samples before the stop, {len(after)} "
              f"after, {len(counts)} distinct of {len(files)}, most repeats "
              f"{max(counts.values())}: {'OK' if ok else 'MISMATCH'}", flush=True)
    flag = [ok]
    dist.broadcast_object_list(flag, src=0)
    dist.destroy_process_group()
    return 0 if flag[0] else 1


if __name__ == "__main__":
    sys.exit(main())
