"""Sharding in a torchrun-style job: two ranks read every sample exactly once per epoch.

The ranks are started the way torchrun starts them (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR,
MASTER_PORT in the environment); Debian's torch 1.13 launcher itself fails on Python 3.11.
"""

import os
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("torch.distributed")


def test_torchrun_ranks_cover_every_sample_once(tmp_path):
    for c in range(3):
        d = tmp_path / f"class_{c}"
        d.mkdir()
        for k in range(7 + c):
            (d / f"{k}.jpg").write_bytes(bytes([c, k]) * 10)
    script = pathlib.Path(__file__).resolve().parents[2] / "examples" / "imagenet" / "check_sharding.py"
    procs = []
    for rank in range(2):
        env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE="2",
                   MASTER_ADDR="127.0.0.1", MASTER_PORT="29517")
        procs.append(subprocess.Popen([sys.executable, str(script), str(tmp_path), "-b", "4",
                                       "--epochs", "3"], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert outs[0].count("OK") == 3, outs[0]
