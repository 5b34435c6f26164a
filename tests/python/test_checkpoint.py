"""Exact resume: Pipeline(enable_checkpointing=True), checkpoint() / checkpoint=, and the PyTorch
iterators' state_dict() / load_state_dict(); elastic resume onto another number of shards."""

import hashlib
import json
import os
import pathlib
import random
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

from sluice import fn, pipeline_def
from sluice.plugin.pytorch import (DALIClassificationIterator, DALIGenericIterator,
                                   DALIRaggedIterator, LastBatchPolicy)

from dali_reference import dali_python

BATCH = 4
FILES = 21  # 6 batches per epoch, the last with one real sample


def make_jpegs(root, n=FILES):
    """n small JPEGs of different sizes in two class folders; returns their paths in order."""
    from PIL import Image

    rng = np.random.RandomState(0)
    paths = []
    for i in range(n):
        d = pathlib.Path(root) / str(i % 2)
        d.mkdir(parents=True, exist_ok=True)
        p = d / f"{i:03d}.jpg"
        Image.fromarray(rng.randint(0, 255, (24 + i % 5, 28 + i % 3, 3), np.uint8)).save(p)
        paths.append(str(p))
    return paths


@pytest.fixture(scope="module")
def jpegs(tmp_path_factory):
    root = tmp_path_factory.mktemp("jpegs")
    return root, make_jpegs(root)


@pipeline_def(batch_size=BATCH, num_threads=2, device_id=None, seed=7)
def augmented(files, shard_id=0, num_shards=1, shuffle=True):
    """Files (label = index), random crops, flips and a random number per sample."""
    jpegs, labels = fn.readers.file(files=files, labels=list(range(len(files))),
                                    random_shuffle=shuffle, shard_id=shard_id,
                                    num_shards=num_shards, name="Reader")
    images = fn.decoders.image_random_crop(jpegs, device="cpu", random_area=[0.3, 1.0])
    images = fn.resize(images, resize_x=16, resize_y=16)
    images = fn.flip(images, horizontal=fn.random.coin_flip())
    return images, labels, fn.random.uniform(range=[0.0, 1.0])


def batch_hash(outputs):
    h = hashlib.sha256()
    for o in outputs:
        h.update(np.ascontiguousarray(np.array(o.as_tensor())).tobytes())
    return h.hexdigest()


def run_hashes(pipe, n):
    return [batch_hash(pipe.run()) for _ in range(n)]


def stops(batches_per_epoch, total):
    """Mid-epoch, before the last batch, at an epoch boundary, and a random step."""
    return sorted({2, batches_per_epoch - 1, batches_per_epoch, batches_per_epoch + 1,
                   random.Random(3).randrange(1, total)})


def test_pipeline_resumes_exactly_at_any_step(jpegs):
    _, files = jpegs
    total = 14
    reference = run_hashes(augmented(files, enable_checkpointing=True), total)
    for k in stops(6, total):
        pipe = augmented(files, enable_checkpointing=True)
        assert run_hashes(pipe, k) == reference[:k]
        cpt = pipe.checkpoint()
        assert isinstance(cpt, bytes) and len(cpt) < 4096
        resumed = augmented(files, enable_checkpointing=True, checkpoint=cpt)
        assert run_hashes(resumed, total - k) == reference[k:], f"stopped after {k} batches"
        assert resumed.is_restored_from_checkpoint


def test_the_saved_position_is_the_consumers_not_the_prefetched_one(jpegs):
    _, files = jpegs
    pipe = augmented(files, enable_checkpointing=True, prefetch_queue_depth=3)
    pipe.run()
    state = json.loads(pipe.checkpoint())
    assert state["readers"]["Reader"]["epoch"] == 0 and state["readers"]["Reader"]["batch"] == 1


def test_an_unseeded_pipeline_resumes_with_its_random_seed(jpegs, tmp_path):
    _, files = jpegs
    pipe = augmented(files, seed=None, enable_checkpointing=True)
    run_hashes(pipe, 3)
    pipe.checkpoint(str(tmp_path / "cpt"))
    reference = run_hashes(pipe, 4)
    resumed = augmented(files, seed=None, enable_checkpointing=True,
                        checkpoint=(tmp_path / "cpt").read_bytes())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the seed drawn for `resumed` gives way silently
        assert run_hashes(resumed, 4) == reference


def test_checkpointing_errors(jpegs):
    _, files = jpegs
    with pytest.raises(RuntimeError, match="enable_checkpointing"):
        augmented(files).checkpoint()
    with pytest.raises(RuntimeError, match="Cannot restore checkpoint"):
        saved = augmented(files, enable_checkpointing=True).checkpoint()
        augmented(files, checkpoint=saved).build()
    with pytest.raises(ValueError, match="not a Sluice pipeline checkpoint"):
        augmented(files, enable_checkpointing=True, checkpoint=b"garbage").build()
    other = augmented(files[:-1], enable_checkpointing=True)
    other.run()
    with pytest.raises(ValueError, match="saved over 20 samples"):
        augmented(files, enable_checkpointing=True, checkpoint=other.checkpoint()).build()


def source_pipe(**kw):
    def source(info):
        if info.idx_in_epoch >= 10:
            raise StopIteration
        return np.array([info.epoch_idx, info.idx_in_epoch, info.iteration], np.int32)

    @pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=1, **kw)
    def pipe():
        data = fn.external_source(source=source, batch=False)
        return data, fn.random.uniform(range=[0.0, 1.0]), fn.random.coin_flip()

    return pipe()


def source_run(pipe, n):
    out = []
    while len(out) < n:
        try:
            out.append([np.array(o.as_tensor()).tolist() for o in pipe.run()])
        except StopIteration:
            pipe.reset()
            out.append("end")
    return out


@pytest.mark.parametrize("k", [2, 5, 6, 8])
def test_external_source_pipelines_resume_their_data_and_random_draws(k):
    reference = source_run(source_pipe(enable_checkpointing=True), 14)
    pipe = source_pipe(enable_checkpointing=True)
    assert source_run(pipe, k) == reference[:k]
    resumed = source_pipe(enable_checkpointing=True, checkpoint=pipe.checkpoint())
    assert source_run(resumed, 14 - k) == reference[k:]


def test_external_sources_warn_as_in_dali():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None, enable_checkpointing=True)
    def pipe():
        return fn.external_source(source=lambda: [np.zeros(2, np.float32)] * 2, batch=True)

    with pytest.warns(UserWarning, match="parameterless callable"):
        pipe().build()


# --- iterators -----------------------------------------------------------------------------------
def iterator_hashes(it, steps):
    out = []
    for _ in range(steps):
        try:
            batch = next(it)
        except StopIteration:
            out.append("end")
            continue
        h = hashlib.sha256()
        for d in batch:
            for v in d.values():
                vs = v if isinstance(v, list) else [v]
                for t in vs:
                    h.update(t.cpu().numpy().tobytes())
        out.append(h.hexdigest())
    return out


ITERATORS = {
    "generic": lambda p, **kw: DALIGenericIterator(p, ["x", "y", "z"], reader_name="Reader", **kw),
    "classification": lambda p, **kw: DALIClassificationIterator(p, reader_name="Reader", **kw),
    "ragged": lambda p, **kw: DALIRaggedIterator(p, ["x", "y", "z"], reader_name="Reader", **kw),
}


@pytest.mark.parametrize("kind", sorted(ITERATORS))
@pytest.mark.parametrize("policy", [LastBatchPolicy.PARTIAL, LastBatchPolicy.DROP])
@pytest.mark.parametrize("auto_reset", [True, False])
def test_iterator_state_dict_resumes_exactly(jpegs, kind, policy, auto_reset):
    pytest.importorskip("torch")
    _, files = jpegs
    make = ITERATORS[kind]
    kw = dict(last_batch_policy=policy, auto_reset=auto_reset)
    total = 15
    reference = iterator_hashes(make(augmented(files, enable_checkpointing=True), **kw), total)
    for k in stops(6, total):
        it = make(augmented(files, enable_checkpointing=True), **kw)
        assert iterator_hashes(it, k) == reference[:k]
        state = it.state_dict()
        assert set(state) == {"epoch", "batch", "checkpoints"}
        assert all(isinstance(c, str) and len(c) < 4096 for c in state["checkpoints"])
        fresh = make(augmented(files, enable_checkpointing=True), **kw)
        fresh.load_state_dict(json.loads(json.dumps(state)))
        assert iterator_hashes(fresh, total - k) == reference[k:], f"stopped after {k} steps"
        # DALI's way: the iterator's checkpoints restore pipeline and iterator.
        cpt = it.checkpoints()[0]
        again = make(augmented(files, enable_checkpointing=True, checkpoint=cpt), **kw)
        assert iterator_hashes(again, total - k) == reference[k:]


def test_iterator_without_checkpointing_refuses_state_dict(jpegs):
    pytest.importorskip("torch")
    _, files = jpegs
    it = DALIClassificationIterator(augmented(files), reader_name="Reader")
    with pytest.raises(ValueError, match="checkpointing disabled"):
        it.state_dict()


CHILD = textwrap.dedent("""
    import json, os, signal, sys
    sys.path.insert(0, {tests!r})
    from test_checkpoint import augmented, iterator_hashes, ITERATORS
    from sluice.plugin.pytorch import LastBatchPolicy
    files, state_path, kill_at = json.loads(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    it = ITERATORS["classification"](augmented(files, enable_checkpointing=True),
                                     last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True)
    for step in range(100):
        iterator_hashes(it, 1)
        with open(state_path + ".tmp", "w") as f:
            json.dump(it.state_dict(), f)
        os.replace(state_path + ".tmp", state_path)
        if step + 1 == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
""")


def test_resume_after_sigkill_of_the_training_process(jpegs, tmp_path):
    pytest.importorskip("torch")
    _, files = jpegs
    kw = dict(last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True)
    total = 14
    reference = iterator_hashes(
        ITERATORS["classification"](augmented(files, enable_checkpointing=True), **kw), total)
    state_path = tmp_path / "state.json"
    kill_at = 8
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    child = CHILD.format(tests=str(pathlib.Path(__file__).parent))
    run = subprocess.run([sys.executable, "-c", child, json.dumps(files), str(state_path),
                          str(kill_at)], env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == -9, run.stderr[-2000:]
    it = ITERATORS["classification"](augmented(files, enable_checkpointing=True), **kw)
    it.load_state_dict(json.loads(state_path.read_text()))
    assert iterator_hashes(it, total - kill_at) == reference[kill_at:]


# --- elastic ---------------------------------------------------------------------------------
@pytest.mark.parametrize("old,new,read", [(8, 4, 1), (2, 3, 2), (4, 4, 1), (3, 5, 1), (2, 1, 1),
                                          (1, 2, 2)])
def test_elastic_resume_reads_every_remaining_sample_once(tmp_path, old, new, read):
    """`old` simulated ranks read `read` batches of epoch 1 and save; `new` ranks resume from
    rank 0's state: the rest of epoch 1 each once, then epoch 2 as a fresh `new`-rank job."""
    pytest.importorskip("torch")
    files = make_jpegs(tmp_path, 37)

    def iterator(rank, ranks, **kw):
        pipe = augmented(files, shard_id=rank, num_shards=ranks, enable_checkpointing=True, **kw)
        return DALIGenericIterator(pipe, ["x", "y", "z"], reader_name="Reader",
                                   last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True)

    def labels(it):
        return [int(v) for b in it for v in b[0]["y"].reshape(-1)]

    seen, states = [], []
    for rank in range(old):
        it = iterator(rank, old)
        labels(it)  # epoch 0
        for _ in range(read):
            seen += [int(v) for v in next(it)[0]["y"].reshape(-1)]
        states.append(it.state_dict())
    remaining = sorted(set(range(37)) - set(seen))
    got, epoch2 = [], []
    for rank in range(new):
        it = iterator(rank, new)
        it.load_state_dict(states[rank % old])
        got += labels(it)
        epoch2.append(labels(it))
    assert sorted(got) == remaining
    fresh = []
    for rank in range(new):
        it = iterator(rank, new)
        labels(it)
        labels(it)
        fresh.append(labels(it))  # epoch 2
    assert epoch2 == fresh


# --- DALI ------------------------------------------------------------------------------------
DALI_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    from nvidia.dali import fn, pipeline_def
    root, k, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

    @pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=3)
    def pipe():
        jpegs, labels = fn.readers.file(file_root=root, name="Reader")
        return labels

    def labels(p, steps):
        return [np.array(p.run()[0].as_tensor()).ravel().tolist() for _ in range(steps)]

    p = pipe(enable_checkpointing=True)
    labels(p, k)
    cpt = p.checkpoint()
    resumed = labels(pipe(enable_checkpointing=True, checkpoint=cpt), n)
    out = {"type": type(cpt).__name__, "resumed": resumed}
    try:
        pipe().checkpoint()
    except RuntimeError:
        out["disabled"] = "RuntimeError"
    print(json.dumps(out))
""")


def test_checkpoint_api_behaves_as_dali(jpegs, tmp_path):
    python = dali_python()
    if python is None:
        pytest.skip("NVIDIA DALI not found (set SLUICE_DALI_PYTHON)")
    root, _ = jpegs
    k, n = 2, 3  # within the first epoch: DALI's next epoch starts where the fill left off
    script = tmp_path / "dali_checkpoint.py"
    script.write_text(DALI_SCRIPT)
    run = subprocess.run([str(python), str(script), str(root), str(k), str(n)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    dali = json.loads(run.stdout.strip().splitlines()[-1])

    @pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=3)
    def pipe():
        jpegs, labels = fn.readers.file(file_root=str(root), name="Reader")
        return labels

    def labels(p, steps):
        return [np.array(p.run()[0].as_tensor()).ravel().tolist() for _ in range(steps)]

    p = pipe(enable_checkpointing=True)
    labels(p, k)
    cpt = p.checkpoint()
    assert type(cpt).__name__ == dali["type"]
    assert labels(pipe(enable_checkpointing=True, checkpoint=cpt), n) == dali["resumed"]
    with pytest.raises(RuntimeError):
        pipe().checkpoint()
    assert dali["disabled"] == "RuntimeError"


def test_a_state_saved_inside_an_elastic_partial_epoch_resumes_on_the_same_layout(tmp_path):
    pytest.importorskip("torch")
    files = make_jpegs(tmp_path, 37)

    def iterator(rank, ranks):
        pipe = augmented(files, shard_id=rank, num_shards=ranks, enable_checkpointing=True)
        return DALIGenericIterator(pipe, ["x", "y", "z"], reader_name="Reader",
                                   last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True)

    old = iterator(0, 2)
    next(old)
    state = old.state_dict()  # 2 ranks, epoch 0 after one batch of 4 of 19/18 samples
    it = iterator(1, 3)
    it.load_state_dict(state)
    assert it._meta()["resume_epoch_batches"] == 3  # 29 samples left: 10 on this rank
    next(it)
    inside = it.state_dict()
    reference = iterator_hashes(it, 8)
    again = iterator(1, 3)
    again.load_state_dict(inside)
    assert iterator_hashes(again, 8) == reference
    with pytest.raises(NotImplementedError, match="partial epoch of an earlier resume"):
        iterator(0, 4).load_state_dict(inside)
