"""A pipeline over readers.file (or readers.numpy, readers.webdataset) reading the same dataset
from local disk, from an S3-compatible server on 127.0.0.1 (moto_server, started here) and from
that server through a TCP proxy adding DELAY ms per round trip. Prints images/s of each,
alternating the three, and the ratios to local disk.

    python3 bench/s3_latency.py DATA_DIR [--copies 8] [--delay-ms 50] [--batch-size 32]
                                [--threads 2] [--rounds 3] [--pipeline auto|cpu|gpu|reader]
                                [--connections N] [--lookahead N] [--epochs 2] [--servers 1]
                                [--reader file|numpy|webdataset] [--shards 8] [--no-shuffle]
                                [--server-cpus 12-15]
                                [--small N --object-bytes B]

DATA_DIR: JPEG files (e.g. ../shared/data/photos), copied --copies times into two class folders.
--reader numpy: each copy is a .npy file instead, a 1-D uint8 array holding the JPEG's bytes, read
whole by readers.numpy (and decoded from the array by the cpu and gpu pipelines).
--reader webdataset: the copies are packed into --shards tar shards (a sample: the JPEG and a .cls
label), each with its index (sluice.tools.wds2idx), read by readers.webdataset with index_paths:
ranged GETs of the tars, a sample's members one, neighbours read together one.
--no-shuffle: the dataset's order (random_shuffle=False); for WebDataset each tar's samples in turn.
--pipeline: cpu = decoders.image_random_crop and resize 224 on the CPU; gpu = the GPU training
pipeline (mixed decoders.image_random_crop, resize 224, crop_mirror_normalize to FLOAT16 CHW with
random mirror, as bench/gpu_pipeline.py); reader = the reader alone (a consumer much faster than
one round trip, as the GPU pipeline is); auto = gpu when CUDA is there, else cpu.
--small N: N objects of --object-bytes random bytes (default 2048) instead of DATA_DIR's JPEGs
(DATA_DIR may then be omitted; --pipeline reader only): many small objects, where a request in
flight is what counts.
--connections / --lookahead set SLUICE_S3_CONNECTIONS / SLUICE_S3_LOOKAHEAD_BATCHES.
--servers K: K moto servers holding the same objects, the client's connections spread over them
round-robin by a proxy (without delay for the "s3" row), for pipelines faster than one server.
--server-cpus: the servers and proxies on these CPUs, the pipeline (disk rows too) on the others:
a remote store's serving takes none of the client's cores, a local Python server's does.

On a machine without moto (the GPU machine): here, `bash tools/gpu/s3-parts` downloads moto's
S3 server and its dependencies as wheels for Python 3.12 into .s3-parts/ (git-ignored, about
31 MB); carry that folder, and this script installs them from it when moto_server is missing.
On the GPU machine, tools/gpu/s3-bench builds the package and runs this script with the GPU
pipeline (here first: `bash tools/gpu/gpu-check --prepare && bash tools/gpu/s3-parts`; the device
call carries .gpu, third_party and .s3-parts):

    bash tools/gpu/s3-bench
    # runs: bench/s3_latency.py .gpu/data/photos --copies 100 -b 256 --threads $(nproc)
    #       --pipeline gpu --connections 1024 --servers 8 --rounds 2 --epochs 3

The proxies (the delay, and the round robin over several servers) run in a child process. The
"s3" row (the server, no delay) is the ceiling: moto_server, a Python server, may answer
fewer GETs a second than the pipeline asks for, so compare "s3 +DELAY ms" with it too.
"""

import argparse
import contextlib
import gc
import io
import itertools
import multiprocessing
import os
import pathlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "python"))


def ensure_moto():
    """moto_server beside this Python, installed from .s3-parts/ (no network) when missing."""
    if shutil.which("moto_server", path=os.path.dirname(sys.executable)):
        return
    parts = ROOT / ".s3-parts"
    if not parts.is_dir():
        sys.exit("moto_server not found: pip install 'moto[server]', or on a machine without "
                 "network carry .s3-parts/ made by tools/gpu/s3-parts")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-index", "--find-links",
                    str(parts), "moto[s3]", "flask", "flask-cors"], check=True)


ensure_moto()
import s3_server  # noqa: E402
from sluice import fn, pipeline_def, types  # noqa: E402


class RoundRobinProxy(s3_server.Proxy):
    """The test proxy, each new connection going to the next of several servers."""

    def __init__(self, upstreams, delay_s):
        self._next = itertools.cycle(upstreams)
        super().__init__(upstreams[0], delay_s=delay_s)

    @property
    def upstream(self):
        return next(self._next)

    @upstream.setter
    def upstream(self, value):
        pass


class ProxyProcess:
    """A RoundRobinProxy in a child process: forwarding hundreds of MB/s in this process's Python
    threads would take the GIL from the pipeline's own Python thread and make the proxy, not the
    reader, the limit."""

    def __init__(self, upstreams, delay_s):
        ctx = multiprocessing.get_context("fork")  # before any pipeline exists; the child is all
        self._conn, child = ctx.Pipe()             # sockets and threads
        self._process = ctx.Process(target=self._serve, args=(child, upstreams, delay_s),
                                    daemon=True)
        self._process.start()
        self.endpoint = self._conn.recv()

    @staticmethod
    def _serve(conn, upstreams, delay_s):
        with RoundRobinProxy(upstreams, delay_s) as proxy:
            conn.send(proxy.endpoint)
            while conn.recv() == "stats":
                conn.send(proxy.max_in_flight)

    @property
    def max_in_flight(self):
        self._conn.send("stats")
        return self._conn.recv()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._conn.send("close")
        self._process.join(10)


def cpu_list(text):
    """'12-15,20' -> {12, 13, 14, 15, 20}."""
    cpus = set()
    for part in text.split(","):
        first, _, last = part.partition("-")
        cpus.update(range(int(first), int(last or first) + 1))
    return cpus


def cuda_available():
    try:
        import torch

        return torch.cuda.is_available()
    except ImportError:
        return False


def build(kind, reader, root, batch_size, threads, shards, shuffle):
    gpu = kind == "gpu"

    @pipeline_def(batch_size=batch_size, num_threads=threads, device_id=0 if gpu else None,
                  seed=1)
    def pipe():
        if reader == "numpy":
            jpegs = fn.readers.numpy(file_root=root, random_shuffle=shuffle, name="Reader")
            labels = fn.random.uniform(range=[0, 2], dtype=types.INT32, shape=[1])
        elif reader == "webdataset":
            jpegs, labels = fn.readers.webdataset(
                paths=[f"{root}/shard{s}.tar" for s in range(shards)],
                index_paths=[f"{root}/shard{s}.idx" for s in range(shards)], ext=["jpg", "cls"],
                random_shuffle=shuffle, name="Reader")
        else:
            jpegs, labels = fn.readers.file(file_root=root, random_shuffle=shuffle, name="Reader")
        if kind == "reader":
            return jpegs, labels
        images = fn.decoders.image_random_crop(jpegs, device="mixed" if gpu else "cpu")
        images = fn.resize(images, size=(224, 224))
        if not gpu:
            return images, labels
        images = fn.crop_mirror_normalize(
            images, dtype=types.FLOAT16, output_layout="CHW",
            mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
            std=[0.229 * 255, 0.224 * 255, 0.225 * 255], mirror=fn.random.coin_flip())
        return images, labels.gpu()

    return pipe()


def images_per_s(kind, reader, root, batch_size, threads, epochs, shards, shuffle):
    p = build(kind, reader, root, batch_size, threads, shards, shuffle)
    p.build()
    n = p.reader_meta("Reader")["batches_per_epoch"]
    sync = None
    if kind == "gpu":
        import torch

        def sync(out):  # hand-off as a trainer would take it
            torch.from_dlpack(out[0])
            torch.cuda.synchronize()
    for _ in range(2 if kind == "gpu" else 1):  # set-up (and the GPU's pools), not throughput
        p.run()
    t0, cpu0 = time.perf_counter(), time.process_time()
    steps = max(1, epochs * n - 2)
    for _ in range(steps):
        out = p.run()
    if sync:
        sync(out)
    dt, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    ahead = p.executor_statistics()["Reader"].get("s3_batches_ahead")
    threads = len(os.listdir("/proc/self/task"))
    del p, out
    gc.collect()
    return steps * batch_size / dt, ahead, 1000 * cpu / (steps * batch_size), threads


def pack_shards(tmp, files, shards):
    """The files as WebDataset samples (the file and its label, the class folder's digit) dealt
    round-robin into `shards` tars under tmp, each indexed; the files are removed. Returns the
    tars and indexes."""
    from sluice.tools import wds2idx

    out = []
    for s in range(shards):
        tar_path = tmp / f"shard{s}.tar"
        with tarfile.open(tar_path, "w") as tar:
            for k, f in enumerate(files[s::shards]):
                tar.add(f, arcname=f"{k:06d}.jpg")
                label = f.parent.name.rsplit("_", 1)[1].encode()
                info = tarfile.TarInfo(f"{k:06d}.cls")
                info.size = len(label)
                tar.addfile(info, io.BytesIO(label))
        wds2idx.create_index(str(tar_path), str(tmp / f"shard{s}.idx"))
        out += [tar_path, tmp / f"shard{s}.idx"]
    for f in files:
        f.unlink()
    return out


def main():
    a = argparse.ArgumentParser()
    a.add_argument("data", nargs="?")
    a.add_argument("--copies", type=int, default=8)
    a.add_argument("--delay-ms", type=float, default=50)
    a.add_argument("-b", "--batch-size", type=int, default=32)
    a.add_argument("--threads", type=int, default=2)
    a.add_argument("--rounds", type=int, default=3)
    a.add_argument("--epochs", type=int, default=2)
    a.add_argument("--pipeline", choices=["auto", "cpu", "gpu", "reader"], default="auto")
    a.add_argument("--connections", type=int)
    a.add_argument("--lookahead", type=int)
    a.add_argument("--servers", type=int, default=1)
    a.add_argument("--reader", choices=["file", "numpy", "webdataset"], default="file")
    a.add_argument("--shards", type=int, default=8)
    a.add_argument("--server-cpus", type=cpu_list, default=None,
                   help="run the servers and proxies on these CPUs (e.g. 12-15) and the pipeline "
                        "on the others, as a remote store takes none of the client's cores")
    a.add_argument("--no-shuffle", action="store_true",
                   help="read in the dataset's order (WebDataset: each tar's samples in turn)")
    a.add_argument("--small", type=int, default=0)
    a.add_argument("--object-bytes", type=int, default=2048)
    args = a.parse_args()
    if args.small and (args.pipeline != "reader" or args.reader != "file"):
        a.error("--small reads random bytes: --pipeline reader with readers.file only")
    if not args.small and not args.data:
        a.error("DATA_DIR is needed without --small")
    kind = args.pipeline
    if kind == "auto":
        kind = "gpu" if cuda_available() else "cpu"
    if args.connections:
        os.environ["SLUICE_S3_CONNECTIONS"] = str(args.connections)
    if args.lookahead:
        os.environ["SLUICE_S3_LOOKAHEAD_BATCHES"] = str(args.lookahead)

    tmp = pathlib.Path(tempfile.mkdtemp())
    rng = np.random.default_rng(0)
    for i in range(args.small):
        dst = tmp / f"class_{i % 2}" / f"{i:06d}.jpg"
        dst.parent.mkdir(exist_ok=True)
        dst.write_bytes(rng.integers(0, 256, args.object_bytes, np.uint8).tobytes())
    jpegs = [] if args.small else sorted(
        p for p in pathlib.Path(args.data).iterdir() if p.suffix.lower() == ".jpg")
    for k in range(args.copies):
        for i, src in enumerate(jpegs):
            dst = tmp / f"class_{i % 2}" / f"{k:03d}_{src.name}"
            dst.parent.mkdir(exist_ok=True)
            if args.reader == "numpy":
                np.save(dst.with_suffix(".npy"), np.frombuffer(src.read_bytes(), np.uint8))
            else:
                shutil.copyfile(src, dst)
    suffix = ".npy" if args.reader == "numpy" else ".jpg"
    files = sorted(tmp.rglob(f"*{suffix}"))
    count = len(files)
    if args.reader == "webdataset":
        files = pack_shards(tmp, files, args.shards)

    def run(root):
        return images_per_s(kind, args.reader, root, args.batch_size, args.threads, args.epochs,
                            args.shards, not args.no_shuffle)

    pipeline_cpus = os.sched_getaffinity(0)
    if args.server_cpus:  # what this thread starts from here on (servers, proxies) inherits them
        os.sched_setaffinity(0, args.server_cpus)
        pipeline_cpus = pipeline_cpus - args.server_cpus
    try:
        with contextlib.ExitStack() as stack:
            endpoints = [stack.enter_context(s3_server.moto_server())
                         for _ in range(args.servers)]
            objects = [(f"ds/{p.relative_to(tmp).as_posix()}", p.read_bytes())
                       for p in files]
            for endpoint in endpoints:
                s3 = s3_server.boto3_client(endpoint)
                s3.create_bucket(Bucket="bench")
                for key, body in objects:
                    s3.put_object(Bucket="bench", Key=key, Body=body)
            os.environ.update(AWS_ACCESS_KEY_ID=s3_server.ACCESS_KEY,
                              AWS_SECRET_ACCESS_KEY=s3_server.SECRET_KEY, AWS_REGION="us-east-1")
            servers = [("127.0.0.1", int(e.rsplit(":", 1)[1])) for e in endpoints]
            direct = endpoints[0]
            if len(servers) > 1:
                direct = stack.enter_context(ProxyProcess(servers, 0)).endpoint
            delayed = f"s3 +{args.delay_ms:g} ms"
            with ProxyProcess(servers, args.delay_ms / 1000) as proxy:
                os.sched_setaffinity(0, pipeline_cpus)  # the pipeline's threads inherit these
                results = {"disk": [], "s3": [], delayed: []}
                depth = None
                cost = []  # the s3 row's process CPU ms per sample and threads (no proxy there)
                for _ in range(args.rounds):
                    results["disk"].append(run(str(tmp))[0])
                    os.environ["AWS_ENDPOINT_URL_S3"] = direct
                    rate, _, cpu_ms, threads = run("s3://bench/ds")
                    results["s3"].append(rate)
                    cost.append((cpu_ms, threads))
                    os.environ["AWS_ENDPOINT_URL_S3"] = proxy.endpoint
                    rate, depth, _, _ = run("s3://bench/ds")
                    results[delayed].append(rate)
                what = f"{args.object_bytes}-byte objects" if args.small else "JPEGs"
                print(f"{kind} pipeline, readers.{args.reader}, {count} {what}, "
                      f"batch {args.batch_size}, {args.threads} threads on {len(pipeline_cpus)} "
                      f"CPUs, {args.servers} server(s), {args.rounds} rounds "
                      f"(best of each), {depth} batches ahead at the end, "
                      f"{proxy.max_in_flight} requests at most in the proxy's delay at once:")
                disk = max(results["disk"])
                for name, r in results.items():
                    print(f"  {name:>12}: {max(r):7.1f} images/s ({max(r) / disk:.0%} of disk, "
                          f"{max(r) / max(results['s3']):.0%} of the server)  "
                          f"all: {', '.join(f'{x:.1f}' for x in r)}")
                if len(servers) == 1:
                    print("  s3 row, this process: CPU ms per sample "
                          f"{', '.join(f'{c:.2f}' for c, _ in cost)}; threads "
                          f"{', '.join(str(t) for _, t in cost)}")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
