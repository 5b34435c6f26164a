"""Time and host memory from an N-object manifest in object storage to the first batch:
readers.file(file_list="s3://.../list.txt", file_root="s3://...") against moto_server on
127.0.0.1 (started here). Only the first batch's objects are uploaded (no shuffle, so the first
batch is the first lines); the manifest names N objects.

    python3 bench/s3_manifest.py [--objects 1000000] [--batch-size 32]
"""

import argparse
import os
import pathlib
import resource
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "python"))

import s3_server  # noqa: E402
from sluice import fn, pipeline_def  # noqa: E402


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--objects", type=int, default=1_000_000)
    a.add_argument("-b", "--batch-size", type=int, default=32)
    args = a.parse_args()
    names = [f"class_{k % 1000:04d}/img_{k:08d}.jpg" for k in range(args.objects)]
    manifest = "".join(f"{n} {k % 1000}\n" for k, n in enumerate(names)).encode()
    with s3_server.moto_server() as endpoint:
        s3 = s3_server.boto3_client(endpoint)
        s3.create_bucket(Bucket="big")
        s3.put_object(Bucket="big", Key="ds/list.txt", Body=manifest)
        for n in names[:args.batch_size]:
            s3.put_object(Bucket="big", Key=f"ds/{n}", Body=b"x" * 1000)
        del manifest, names
        os.environ.update(AWS_ACCESS_KEY_ID=s3_server.ACCESS_KEY,
                          AWS_SECRET_ACCESS_KEY=s3_server.SECRET_KEY, AWS_REGION="us-east-1",
                          AWS_ENDPOINT_URL_S3=endpoint)

        @pipeline_def(batch_size=args.batch_size, num_threads=2, device_id=None, seed=1)
        def pipe():
            data, label = fn.readers.file(file_list="s3://big/ds/list.txt", file_root="s3://big/ds",
                                          name="Reader")
            return data, label

        before = rss_mb()
        t0 = time.perf_counter()
        p = pipe()
        p.build()
        data, _ = p.run()
        dt = time.perf_counter() - t0
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"{p.epoch_size('Reader'):,} objects: first batch of {len(data)} after {dt:.2f} s; "
              f"RSS {before:.0f} MB before, {rss_mb():.0f} MB after ({rss_mb() - before:+.0f} MB), "
              f"peak RSS {peak:.0f} MB")


if __name__ == "__main__":
    main()
