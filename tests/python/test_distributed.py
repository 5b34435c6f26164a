"""Sharding in a torchrun-style job: two ranks read every sample exactly once per epoch, and the
ranks of a host divide its cores between their pipelines.

The ranks are started the way torchrun starts them (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR,
MASTER_PORT in the environment); Debian's torch 1.13 launcher itself fails on Python 3.11.
"""

import json
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


CHILD = """
import json, os, pathlib, sys
import numpy as np
from sluice import fn, pipeline_def
if sys.argv[1] == "bound":  # a launcher that binds each rank itself
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

@pipeline_def(batch_size=2, num_threads=8, device_id=None)
def pipe():
    return fn.external_source(lambda: [np.zeros(3, np.uint8)] * 2)

p = pipe()
p.build()
p.run()
threads = {}  # name: the CPUs it may run on
for task in pathlib.Path("/proc/self/task").iterdir():
    name = (task / "comm").read_text().strip()
    if name.startswith("sluice-"):
        allowed = [l for l in (task / "status").read_text().splitlines() if l.startswith("Cpus_allowed_list")]
        threads[name] = allowed[0].split(":")[1].strip()
print(json.dumps(threads))
"""


def cpu_list(text):
    """The CPU ids of a Cpus_allowed_list ("0-3,8")."""
    cpus = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


def sluice_threads(how, env):
    out = subprocess.run([sys.executable, "-c", CHILD, how], env=env, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    threads = json.loads(out.stdout)
    workers = {k: v for k, v in threads.items() if k.startswith("sluice-w")}
    assert "sluice-cpu" in threads, threads  # the CPU stage's thread
    return workers, {k: cpu_list(v) for k, v in threads.items() if k not in workers}


@pytest.mark.parametrize("rank", [0, 1])
def test_torchrun_ranks_divide_the_cores_and_pin_their_workers(rank):
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < os.sysconf("SC_NPROCESSORS_ONLN"):
        pytest.skip("this process is bound to some CPUs already: Sluice leaves the binding alone")
    env = dict(os.environ, LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE="2")
    workers, stage = sluice_threads("free", env)
    share = cpus[len(cpus) * rank // 2:len(cpus) * (rank + 1) // 2] or [cpus[rank % len(cpus)]]
    share = share[:len(share) - len(share) // 8]  # one core in eight left to the training loop
    assert sorted(workers) == [f"sluice-w{k}" for k in range(min(8, len(share)))]
    assert sorted(workers.values()) == sorted(str(c) for c in share[:len(workers)])
    # The stage threads run work inline: they stay on the workers' cores, off the training loop's.
    assert all(cpus == set(share[:len(workers)]) for cpus in stage.values()), stage


def test_a_rank_bound_by_its_launcher_or_opted_out_keeps_its_threads_unpinned():
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs two CPUs to tell a bound process from a free one")
    env = dict(os.environ, LOCAL_RANK="1", LOCAL_WORLD_SIZE="2")
    for how, extra in (("bound", {}), ("free", {"SLUICE_SHARE_CORES_BY_RANK": "0"})):
        workers, stage = sluice_threads(how, dict(env, **extra))
        assert len(workers) == 8, (how, workers)
        assert len(set(workers.values())) == 1, (how, workers)  # the process's own mask
        assert all(cpus == cpu_list(next(iter(workers.values()))) for cpus in stage.values())
