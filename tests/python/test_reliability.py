"""The reliability suite's quick parts: shutdown never hangs or leaks threads, memory
and file descriptors stay flat over epochs and pipeline re-creation, files changing underfoot
give named errors, corrupt files through the whole pipeline decode or name themselves, outputs
are deterministic across threads and prefetch depths, and sharding covers every sample.

The soak tests are short here; the long run (docs/RELIABILITY.md) sets
SLUICE_SOAK_IMAGES=3000 SLUICE_SOAK_EPOCHS=100 SLUICE_SOAK_CYCLES=1000."""

import collections
import hashlib
import os
import random
import re
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import sluice
from sluice import fn, pipeline_def, types
from conftest import native_threads, native_threads_settled, sigint_as_default, sluice_threads

torch = pytest.importorskip("torch")
from sluice.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy  # noqa: E402


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    from sluice.tools.make_dataset import make_dataset

    root = tmp_path_factory.mktemp("data")
    make_dataset(root, images=96, classes=4, seed=3, workers=2, progress=False)
    return root


SOAK_IMAGES = int(os.environ.get("SLUICE_SOAK_IMAGES", 96))
SOAK_EPOCHS = int(os.environ.get("SLUICE_SOAK_EPOCHS", 16))
SOAK_CYCLES = int(os.environ.get("SLUICE_SOAK_CYCLES", 60))


@pytest.fixture(scope="module")
def soak_dataset(dataset, tmp_path_factory):
    if SOAK_IMAGES == 96:
        return dataset
    from sluice.tools.make_dataset import make_dataset

    root = tmp_path_factory.mktemp("soak")
    make_dataset(root, images=SOAK_IMAGES, classes=10, seed=4, workers=os.cpu_count(),
                 progress=False)
    return root


def train_pipe(root, batch=16, threads=2, depth=2, seed=1, **reader):
    @pipeline_def(batch_size=batch, num_threads=threads, device_id=None, seed=seed,
                  prefetch_queue_depth=depth)
    def p():
        jpegs, labels = fn.readers.file(file_root=str(root), name="Reader", random_shuffle=True,
                                        **reader)
        images = fn.decoders.image_random_crop(jpegs)
        images = fn.resize(images, size=(64, 64))
        images = fn.crop_mirror_normalize(images, mirror=fn.random.coin_flip(), dtype=types.FLOAT16,
                                          mean=[128.0] * 3, std=[64.0] * 3)
        return images, labels

    return p()


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def open_fds():
    return len(os.listdir("/proc/self/fd"))


# --- shutdown ----------------------------------------------------------------------------------
def test_breaking_out_del_and_exceptions_finish_promptly_without_leaking_threads(dataset):
    before = native_threads()
    rng = random.Random(0)
    for trial in range(6):
        it = DALIClassificationIterator(train_pipe(dataset, depth=3), reader_name="Reader")
        stop = rng.randint(0, len(it))
        t0 = time.perf_counter()
        try:
            for i, _ in enumerate(it):
                if i == stop:
                    if trial % 2:
                        raise RuntimeError("the training loop failed")
                    break
        except RuntimeError:
            pass
        del it
        assert time.perf_counter() - t0 < 10
        t1 = time.perf_counter()
        import gc

        gc.collect()
        assert time.perf_counter() - t1 < 2
    assert native_threads_settled(before) <= before


SCRIPT = textwrap.dedent("""
    import sys, time
    from sluice import fn, pipeline_def
    from sluice.plugin.pytorch import DALIClassificationIterator
    @pipeline_def(batch_size=16, num_threads=2, device_id=None, seed=1, prefetch_queue_depth=3)
    def p():
        jpegs, labels = fn.readers.file(file_root=sys.argv[1], name="Reader", random_shuffle=True)
        return fn.resize(fn.decoders.image_random_crop(jpegs), size=(64, 64)), labels
    it = DALIClassificationIterator(p(), reader_name="Reader", auto_reset=True)
    print("started", flush=True)
    mode = sys.argv[2]
    if mode == "exit":  # interpreter exit with a live iterator mid-epoch
        next(it)
        sys.exit(0)
    while True:
        for batch in it:
            pass
""")


@pytest.mark.parametrize("mode", ["sigint", "exit"])
def test_sigint_and_interpreter_exit_finish_within_two_seconds(dataset, tmp_path, mode):
    script = tmp_path / "loop.py"
    script.write_text(SCRIPT)
    proc = subprocess.Popen([sys.executable, str(script), str(dataset), mode],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=sigint_as_default)
    assert proc.stdout.readline().strip() == "started"
    time.sleep(0.5)
    t0 = time.perf_counter()
    if mode == "sigint":
        proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=2 + (1 if mode == "exit" else 0))
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail(f"{mode}: the process did not finish within 2 s")
    elapsed = time.perf_counter() - t0
    err = proc.stderr.read()
    if mode == "sigint":
        assert "KeyboardInterrupt" in err, err
    else:
        assert proc.returncode == 0, err
    assert elapsed < 3


# --- soak-lite ---------------------------------------------------------------------------------
def test_memory_fds_and_threads_stay_flat_over_epochs(soak_dataset):
    it = DALIClassificationIterator(train_pipe(soak_dataset), reader_name="Reader", auto_reset=True)
    samples = []
    for epoch in range(SOAK_EPOCHS):
        for _ in it:
            pass
        samples.append((rss_mb(), open_fds(), native_threads()))
    # Buffers in flight make single readings noisy: compare the trend, epochs 3-6 vs the last 4.
    rss = [s[0] for s in samples]
    early, late = np.mean(rss[3:7]), np.mean(rss[-4:])
    assert late - early < 0.02 * early, rss
    # The reader holds one batch's files open while it reads them (16 here): bounded, not growing.
    fds = [s[1] for s in samples]
    assert max(fds) <= min(fds) + 16 + 2, fds
    assert len({s[2] for s in samples[3:]}) == 1
    print(f"soak: {SOAK_EPOCHS} epochs of {SOAK_IMAGES} images; RSS MB per epoch {[round(r) for r in rss]}; "
          f"fds {fds}; threads {samples[-1][2]}")


def test_create_run_destroy_cycles_return_to_baseline(dataset):
    def cycle():
        p = train_pipe(dataset, batch=8)
        p.build()
        p.run()
        del p

    # Sluice's own threads, by name: other libraries in the process (CUDA, torch) may start
    # threads of their own meanwhile, which once made a count of all threads differ by one.
    for _ in range(5):
        cycle()
    base = (rss_mb(), open_fds(), len(sluice_threads()))
    for _ in range(SOAK_CYCLES):
        cycle()
    now = (rss_mb(), open_fds(), len(sluice_threads()))
    assert now[1] == base[1] and now[2] == base[2], (base, now)
    assert now[0] - base[0] < 20, (base, now)
    print(f"cycles: {SOAK_CYCLES}; (RSS MB, fds, threads) before {base}, after {now}")


def test_engine_threads_are_named_and_end_with_their_pipeline(dataset):
    before = collections.Counter(sluice_threads())
    p = train_pipe(dataset, batch=8, threads=3)
    p.build()
    p.run()
    started = collections.Counter(sluice_threads()) - before
    assert sorted(started.elements()) == ["sluice-cpu", "sluice-w0", "sluice-w1", "sluice-w2"]
    del p
    assert collections.Counter(sluice_threads()) == before


# --- files changing underfoot -------------------------------------------------------------------
@pytest.mark.parametrize("change", ["delete", "truncate", "directory"])
def test_files_changing_underfoot_give_named_errors(dataset, tmp_path, change):
    import shutil

    root = tmp_path / "copy"
    shutil.copytree(dataset, root)
    pipe = train_pipe(root, batch=8)
    pipe.build()
    pipe.run()
    victim = sorted(root.rglob("*.jpg"))[5]
    if change == "delete":
        victim.unlink()
    elif change == "truncate":
        victim.write_bytes(victim.read_bytes()[:100])
    else:
        victim.unlink()
        victim.mkdir()
    with pytest.raises(sluice.SluiceError) as e:
        for _ in range(30):  # two epochs: the changed file comes up
            pipe.run()
    assert victim.name in str(e.value)


# --- corrupt files through the whole pipeline ---------------------------------------------------
def corrupt_corpus(shared_data, tmp_path):
    """bad/ plus truncations and bit flips of valid images."""
    files = [p for p in (shared_data / "bad").rglob("*") if p.is_file() and p.suffix != ".md"]
    rng = np.random.default_rng(7)
    for src in sorted((shared_data / "photos").glob("*.jpg"))[:4] + sorted(
            (shared_data / "photos").glob("*.png"))[:2]:
        data = src.read_bytes()
        for k in range(6):
            cut = tmp_path / f"trunc{k}_{src.name}"
            cut.write_bytes(data[: int(len(data) * (k + 1) / 8)])
            flip = bytearray(data)
            for pos in rng.integers(0, len(data), 8):
                flip[pos] ^= 1 << int(rng.integers(0, 8))
            f = tmp_path / f"flip{k}_{src.name}"
            f.write_bytes(bytes(flip))
            files += [cut, f]
    return files


def test_corrupt_corpus_through_reader_decoder_and_iterator(shared_data, tmp_path):
    files = corrupt_corpus(shared_data, tmp_path)
    bad = 0
    for path in files:
        @pipeline_def(batch_size=1, num_threads=1, device_id=None)
        def p():
            jpegs, labels = fn.readers.file(files=[str(path)], allow_paths_outside_root=True,
                                            name="Reader")
            images = fn.decoders.image(jpegs, name="Decoder")
            return fn.resize(images, size=(32, 32)), labels

        t0 = time.perf_counter()
        try:
            it = DALIClassificationIterator(p(), reader_name="Reader")
            next(it)
        except sluice.DecodeError as e:
            assert str(path) in str(e) and "Decoder" in str(e)
            bad += 1
        assert time.perf_counter() - t0 < 2, path
    # The same corpus with on_error="skip" completes the epoch and counts exactly the bad files.
    good = sorted(str(p) for p in (shared_data / "photos").glob("*.jpg"))[:2]

    @pipeline_def(batch_size=len(files) + 2, num_threads=2, device_id=None)
    def skipping():
        jpegs, labels = fn.readers.file(files=[str(f) for f in files] + good,
                                        allow_paths_outside_root=True, name="Reader")
        images = fn.decoders.image(jpegs, name="Decoder", on_error="skip")
        return fn.resize(images, size=(32, 32)), labels

    pipe = skipping()
    it = DALIClassificationIterator(pipe, reader_name="Reader")
    assert len(list(it)) == 1
    assert pipe.executor_statistics()["Decoder"]["skipped_samples"] == bad
    assert bad > len(files) // 3


# --- determinism and coverage -------------------------------------------------------------------
def digest(pipe, n):
    pipe.build()
    h = hashlib.sha256()
    for _ in range(n):
        images, labels = pipe.run()
        h.update(np.asarray(images).tobytes())
        h.update(np.asarray(labels).tobytes())
    return h.hexdigest()


@pytest.mark.parametrize("seed", [1, 99])
def test_batches_hash_identically_across_threads_and_prefetch_depths(dataset, seed):
    expected = digest(train_pipe(dataset, threads=1, depth=1, seed=seed), 3)
    for threads in (2, 4, 8):
        for depth in (1, 2, 3):
            assert digest(train_pipe(dataset, threads=threads, depth=depth, seed=seed), 3) == expected
    assert digest(train_pipe(dataset, seed=seed + 1), 3) != expected


@pytest.mark.parametrize("size", [1, 17, 31])
def test_sharded_epochs_cover_each_sample_once(tmp_path, size):
    d = tmp_path / "c"
    d.mkdir()
    for k in range(size):
        (d / f"{k:03d}.txt").write_text(f"{k:03d}")
    for shards in (1, 2, 3, 5, 16):
        if shards > size:
            continue
        seen = collections.Counter()
        steps = set()
        for s in range(shards):
            @pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=s)
            def p():
                return fn.readers.file(file_root=str(tmp_path), file_filters=["*.txt"],
                                       name="Reader", shard_id=s, num_shards=shards,
                                       random_shuffle=True)

            it = DALIClassificationIterator(p(), reader_name="Reader",
                                            last_batch_policy=LastBatchPolicy.PARTIAL)
            batches = list(it)
            steps.add(len(batches))
            for b in batches:
                seen.update(bytes(r.tolist()).decode() for r in b[0]["data"])
        assert len(steps) == 1
        assert sorted(seen) == [f"{k:03d}" for k in range(size)] and set(seen.values()) == {1}


# --- profiling ---------------------------------------------------------------------------------
def test_bottleneck_report_tells_loading_bound_from_training_bound(dataset):
    pipe = train_pipe(dataset, batch=8, threads=1)
    pipe.build()
    for _ in range(8):  # a consumer that takes batches as fast as they come
        pipe.run()
    report = pipe.bottleneck_report()
    assert "verdict:" in report and "keeps ahead" not in report, report
    assert "decoding" in report or "resiz" in report, report  # the heavy CPU operators
    # How busy the threads were in each CPU operator (a share of the pool, at most 100%).
    busy = [int(m) for m in re.findall(r" cpu +[\d.]+ +\d+% +(\d+)% ", report)]
    assert busy and all(0 < b <= 100 for b in busy), report
    pool = re.search(r"CPU \d+% of the time \(its threads (\d+)%", report)
    assert pool and 0 < int(pool.group(1)) <= 100, report

    slow = train_pipe(dataset, batch=8, threads=2)
    slow.build()
    for _ in range(6):  # a consumer (the "model") much slower than loading
        slow.run()
        time.sleep(0.3)
    report = slow.bottleneck_report()
    assert "keeps ahead" in report, report

    # A large pool with the default depth is told about three iterations at once.
    for depth, hint in ((2, True), (3, False)):
        big = train_pipe(dataset, batch=8, threads=12, depth=depth)
        big.build()
        for _ in range(6):
            big.run()
        report = big.bottleneck_report()
        assert ("prefetch_queue_depth=3 the CPU stage runs three" in report) == hint, report
        assert (", 3 iterations at once" in report) == (not hint), report


def test_bottleneck_report_gives_the_hardware_decoders_share():
    # The mixed decoder's statistics as an H100 run reports them (no GPU needed to word them).
    class Backend:
        def pipeline_statistics(self):
            return {"wall_time_s": 10.0, "consumer_wait_s": 8.0, "cpu_stage_busy_s": 3.0,
                    "mixed_stage_busy_s": 9.6, "gpu_stage_busy_s": 1.6, "num_threads": 16,
                    "cpu_workers": 3, "prefetch_queue_depth": 3}

    class Pipe:
        _backend = Backend()

        def executor_statistics(self):
            return {"Reader": {"device": "cpu", "type": "readers.file", "total_time_ms": 2500.0,
                               "mean_time_ms": 3.0, "work_time_ms": 9000.0},
                    "Decoder": {"device": "mixed", "type": "decoders.image_random_crop",
                                "total_time_ms": 9000.0, "mean_time_ms": 11.0,
                                "hardware_decoded": 620, "hybrid_decoded": 0,
                                "gpu_hybrid_decoded": 0, "cpu_decoded": 380,
                                "hardware_load": 0.61}}

    from sluice.profile import bottleneck_report

    report = bottleneck_report(Pipe())
    assert "GPU decoding is the bottleneck" in report, report
    assert "several processes, one shard each (ProcessIterator" in report, report
    assert "the hardware JPEG decoder took 62% of the images" in report, report


# --- GPU out of memory -------------------------------------------------------------------------
OOM_SCRIPT = """
import sys
import torch
from sluice import fn, pipeline_def, types
from sluice.errors import OutOfMemoryError

@pipeline_def(batch_size=64, num_threads=2, device_id=0, seed=1)
def pipe():
    jpegs, labels = fn.readers.file(file_root=sys.argv[1], name="Reader")
    images = fn.resize(fn.decoders.image(jpegs, device="mixed"), size=(224, 224))
    return fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW"), labels

torch.cuda.init()
free, _ = torch.cuda.mem_get_info()
hog = torch.empty(free - (24 << 20), dtype=torch.uint8, device="cuda")  # leave 24 MB
try:
    p = pipe()
    p.build()
    p.run()
    sys.exit("no error with 24 MB of device memory free")
except OutOfMemoryError as e:
    print("OOM:", e)
    p = None
del hog
torch.cuda.empty_cache()
p = pipe()
images, labels = p.run()
print("after freeing:", len(images.shape()), "images")
"""


@pytest.mark.gpu
def test_gpu_out_of_memory_names_operator_and_size_and_the_process_recovers(dataset):
    proc = subprocess.run([sys.executable, "-c", OOM_SCRIPT, str(dataset)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    oom = next(line for line in proc.stdout.splitlines() if line.startswith("OOM:"))
    assert "operator '" in oom and "bytes" in oom, oom
    assert "after freeing: 64 images" in proc.stdout, proc.stdout
