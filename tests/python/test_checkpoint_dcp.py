"""The iterators' state_dict() / load_state_dict() through torch.distributed.checkpoint: saved
with a model's state by dcp.save (two ranks of a gloo process group on 127.0.0.1, and without a
process group), loaded by dcp.load into fresh iterators, the batches go on exactly as in an
uninterrupted run; a state saved by two ranks resumes on one (elastic)."""

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")
try:
    import torch.distributed.checkpoint as dcp
except Exception as e:  # noqa: BLE001 - torch < 2 has none; 1.13's fails to import on 3.11
    pytest.skip(f"torch {torch.__version__} has no usable torch.distributed.checkpoint ({e})",
                allow_module_level=True)

from test_checkpoint import make_jpegs  # noqa: E402

TESTS = str(pathlib.Path(__file__).parent)
TOTAL = 14  # steps, across three epochs of 21 samples in 2 shards (3 batches of 4 each)

# One rank: reads `stop` steps, saves {"model", "loader"} with dcp.save, then reads on to TOTAL
# (the uninterrupted run); or, given a checkpoint, loads it with dcp.load into a fresh model and
# iterator and reads the steps left. Prints a JSON line: the batch hashes and the model's sum.
RANK = textwrap.dedent("""
    import json, os, sys
    sys.path.insert(0, {tests!r})
    import torch
    import torch.distributed as dist
    import torch.distributed.checkpoint as dcp
    from test_checkpoint import augmented, iterator_hashes
    from sluice.plugin.pytorch import DALIGenericIterator, LastBatchPolicy

    files, mode, stop, total, cpt_dir, rank, world = json.loads(sys.argv[1])
    if world > 1:
        dist.init_process_group("gloo", init_method="tcp://127.0.0.1:" + os.environ["PORT"],
                                rank=rank, world_size=world)
    it = DALIGenericIterator(
        augmented(files, shard_id=rank, num_shards=world, enable_checkpointing=True),
        ["x", "y", "z"], reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL,
        auto_reset=True)
    torch.manual_seed(100 + (mode == "save"))  # the loaded model starts from other weights
    model = torch.nn.Linear(4, 2)
    if mode == "save":
        hashes = iterator_hashes(it, stop)
        with torch.no_grad():
            model.weight.add_(stop)
        dcp.save({{"model": model.state_dict(), "loader": it.state_dict()}},
                 checkpoint_id=cpt_dir)
        saved = float(model.weight.sum())
        hashes += iterator_hashes(it, total - stop)
    else:
        state = {{"model": model.state_dict(), "loader": it.state_dict()}}
        dcp.load(state, checkpoint_id=cpt_dir)
        model.load_state_dict(state["model"])
        it.load_state_dict(state["loader"])
        saved = float(model.weight.sum())
        hashes = iterator_hashes(it, total - stop)
    print(json.dumps({{"hashes": hashes, "model": saved}}))
    if world > 1:
        dist.destroy_process_group()
""")


def free_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_ranks(files, mode, stop, cpt_dir, world):
    """Runs `world` rank processes at once; returns each one's JSON line."""
    code = RANK.format(tests=TESTS)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), PORT=str(free_port()),
               OMP_NUM_THREADS="1")
    procs = [subprocess.Popen([sys.executable, "-c", code,
                               json.dumps([files, mode, stop, TOTAL, str(cpt_dir), r, world])],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for r in range(world)]
    out = []
    for p in procs:
        try:
            stdout, stderr = p.communicate(timeout=180)
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            raise
        assert p.returncode == 0, stderr[-3000:]
        out.append(json.loads(stdout.strip().splitlines()[-1]))
    return out


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return make_jpegs(tmp_path_factory.mktemp("jpegs"))


@pytest.mark.parametrize("stop", [2, 3, 7])  # mid-epoch, the epoch's last step, the next epoch
def test_two_ranks_resume_exactly_through_dcp(files, tmp_path, stop):
    saved = run_ranks(files, "save", stop, tmp_path / "cpt", 2)
    loaded = run_ranks(files, "load", stop, tmp_path / "cpt", 2)
    for rank in range(2):
        assert loaded[rank]["hashes"] == saved[rank]["hashes"][stop:], f"rank {rank}"
        assert loaded[rank]["model"] == pytest.approx(saved[rank]["model"])


def test_without_a_process_group(files, tmp_path):
    [saved] = run_ranks(files, "save", 5, tmp_path / "cpt", 1)
    [loaded] = run_ranks(files, "load", 5, tmp_path / "cpt", 1)
    assert loaded["hashes"] == saved["hashes"][5:]
    assert loaded["model"] == pytest.approx(saved["model"])


def test_two_ranks_saved_one_resumes(files, tmp_path):
    """Elastic: the state two ranks saved mid-epoch, loaded by one rank, reads the samples the
    two had not read in that epoch, each once."""
    from sluice.plugin.pytorch import DALIGenericIterator, LastBatchPolicy
    from test_checkpoint import augmented

    run_ranks(files, "save", 1, tmp_path / "cpt", 2)
    it = DALIGenericIterator(augmented(files, enable_checkpointing=True), ["x", "y", "z"],
                             reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL)
    state = {"loader": it.state_dict()}
    dcp.load(state, checkpoint_id=str(tmp_path / "cpt"))
    it.load_state_dict(state["loader"])
    rest = [int(v) for b in it for v in b[0]["y"].reshape(-1)]

    def first_batch(rank):
        it = DALIGenericIterator(augmented(files, shard_id=rank, num_shards=2), ["x", "y", "z"],
                                 reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL)
        return [int(v) for v in next(it)[0]["y"].reshape(-1)]

    read = first_batch(0) + first_batch(1)
    assert sorted(rest) == sorted(set(range(len(files))) - set(read))
