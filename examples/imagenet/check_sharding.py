"""Checks, under torchrun, that the ranks of a job read every sample exactly once per epoch.

    torchrun --nproc_per_node=2 examples/imagenet/check_sharding.py DATA [--epochs 2] [-b 32]

Each rank reads its shard with readers.file (shard_id / num_shards from torchrun), the ranks
gather the files they saw (gloo: no GPU needed) and rank 0 verifies the union. Exits non-zero
when a file is missing or repeated, or when ranks ran different numbers of batches.
"""

import argparse
import collections
import sys

import torch.distributed as dist

from sluice import fn, pipeline_def


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("-b", "--batch-size", type=int, default=32)
    ap.add_argument("--pad", action="store_true", help="pad_last_batch")
    args = ap.parse_args()
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()

    @pipeline_def(batch_size=args.batch_size, num_threads=2, device_id=None, seed=rank)
    def pipe():
        data, label = fn.readers.file(file_root=args.data, shard_id="auto", num_shards="auto",
                                      random_shuffle=True, pad_last_batch=args.pad, name="Reader")
        return data, label

    p = pipe()
    p.build()
    batches = p.reader_meta("Reader")["batches_per_epoch"]
    ok = True
    for epoch in range(args.epochs):
        seen = []
        for _ in range(batches):
            data, _ = p.run()
            valid = p.last_batch_info()["num_valid"]
            seen += data.source_info()[:valid]
        gathered = [None] * world
        dist.all_gather_object(gathered, (batches, seen))
        if rank == 0:
            counts = collections.Counter(f for _, s in gathered for f in s)
            steps = {b for b, _ in gathered}
            total = p.reader_meta("Reader")["epoch_size"]
            good = len(counts) == total and set(counts.values()) == {1} and len(steps) == 1
            print(f"epoch {epoch}: {world} ranks, {steps} batches each, {len(counts)} distinct "
                  f"files of {total}, max repeats {max(counts.values())}: "
                  f"{'OK' if good else 'MISMATCH'}", flush=True)
            ok = ok and good
    dist.destroy_process_group()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
