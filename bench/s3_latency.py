"""The CPU pipeline (readers.file -> decoders.image_random_crop -> resize 224) reading the same
class-folder dataset from local disk, from an S3-compatible server on 127.0.0.1 (moto_server,
started here) and from that server through a TCP proxy adding DELAY ms per round trip. Prints
images/s of each, alternating the three, and the ratios to local disk.

    python3 bench/s3_latency.py DATA_DIR [--copies 8] [--delay-ms 50] [--batch-size 32]
                                [--threads 2] [--rounds 3]

DATA_DIR: JPEG files (e.g. ../shared/data/photos), copied --copies times into two class folders.
"""

import argparse
import gc
import os
import pathlib
import shutil
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "python"))

import s3_server  # noqa: E402
from sluice import fn, pipeline_def  # noqa: E402


def images_per_s(root, batch_size, threads, epochs=2):
    @pipeline_def(batch_size=batch_size, num_threads=threads, device_id=None, seed=1)
    def pipe():
        jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, name="Reader")
        images = fn.decoders.image_random_crop(jpegs)
        return fn.resize(images, size=(224, 224)), labels

    p = pipe()
    p.build()
    n = p.reader_meta("Reader")["batches_per_epoch"]
    p.run()  # the first batch: set-up, not throughput
    t0 = time.perf_counter()
    for _ in range(epochs * n - 1):
        p.run()
    dt = time.perf_counter() - t0
    del p
    gc.collect()
    return (epochs * n - 1) * batch_size / dt


def main():
    a = argparse.ArgumentParser()
    a.add_argument("data")
    a.add_argument("--copies", type=int, default=8)
    a.add_argument("--delay-ms", type=float, default=50)
    a.add_argument("-b", "--batch-size", type=int, default=32)
    a.add_argument("--threads", type=int, default=2)
    a.add_argument("--rounds", type=int, default=3)
    args = a.parse_args()

    tmp = pathlib.Path(tempfile.mkdtemp())
    jpegs = sorted(p for p in pathlib.Path(args.data).iterdir() if p.suffix.lower() == ".jpg")
    for k in range(args.copies):
        for i, src in enumerate(jpegs):
            dst = tmp / f"class_{i % 2}" / f"{k:03d}_{src.name}"
            dst.parent.mkdir(exist_ok=True)
            shutil.copyfile(src, dst)
    count = sum(1 for _ in tmp.rglob("*.jpg"))
    try:
        with s3_server.moto_server() as endpoint:
            s3 = s3_server.boto3_client(endpoint)
            s3.create_bucket(Bucket="bench")
            for p in sorted(tmp.rglob("*.jpg")):
                s3.put_object(Bucket="bench", Key=f"ds/{p.relative_to(tmp).as_posix()}",
                              Body=p.read_bytes())
            os.environ.update(AWS_ACCESS_KEY_ID=s3_server.ACCESS_KEY,
                              AWS_SECRET_ACCESS_KEY=s3_server.SECRET_KEY, AWS_REGION="us-east-1")
            port = int(endpoint.rsplit(":", 1)[1])
            with s3_server.Proxy(("127.0.0.1", port), delay_s=args.delay_ms / 1000) as proxy:
                results = {"disk": [], "s3": [], f"s3 +{args.delay_ms:g} ms": []}
                for _ in range(args.rounds):
                    results["disk"].append(images_per_s(str(tmp), args.batch_size, args.threads))
                    os.environ["AWS_ENDPOINT_URL_S3"] = endpoint
                    results["s3"].append(
                        images_per_s("s3://bench/ds", args.batch_size, args.threads))
                    os.environ["AWS_ENDPOINT_URL_S3"] = proxy.endpoint
                    results[f"s3 +{args.delay_ms:g} ms"].append(
                        images_per_s("s3://bench/ds", args.batch_size, args.threads))
                print(f"{count} JPEGs, batch {args.batch_size}, {args.threads} threads, "
                      f"{args.rounds} rounds (best of each):")
                disk = max(results["disk"])
                for name, r in results.items():
                    print(f"  {name:>12}: {max(r):7.1f} images/s ({max(r) / disk:.0%} of disk)  "
                          f"all: {', '.join(f'{x:.1f}' for x in r)}")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
