"""Which shard this process reads: from torch.distributed or torchrun's environment.

``fn.readers.file(shard_id="auto", num_shards="auto")`` resolves both here, so one script runs
unchanged under ``torchrun --nproc_per_node=N``.
"""

import os


def shard_info():
    """(shard_id, num_shards) of this process: torch.distributed's rank and world size when it
    is initialised, else torchrun's RANK / WORLD_SIZE, else (0, 1)."""
    try:
        import torch.distributed as dist

        if dist.is_available() and dist.is_initialized():
            return dist.get_rank(), dist.get_world_size()
    except ImportError:
        pass
    return int(os.environ.get("RANK", 0)), int(os.environ.get("WORLD_SIZE", 1))


def resolve_auto(args):
    """Replaces shard_id / num_shards given as "auto" in reader arguments."""
    if args.get("shard_id") == "auto" or args.get("num_shards") == "auto":
        sid, n = shard_info()
        if args.get("shard_id") == "auto":
            args["shard_id"] = sid
        if args.get("num_shards") == "auto":
            args["num_shards"] = n
    return args
