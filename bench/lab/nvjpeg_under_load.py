"""nvJPEG's hardware decoder next to a busy GPU: bench/gpu_pipeline.py's pipeline (a fixed
hardware share, the CPU codec for the rest) while another thread trains ResNet-18 on synthetic
data, either replaying the step as a CUDA graph (the GPU never idles) or eagerly; the training
thread waits with blocking events, so it takes no CPU from the pipeline. Prints images/s and
nvJPEG's time per batch (the hardware submission is what slows down).

    python3 bench/lab/nvjpeg_under_load.py DATA_DIR [--loads none,graph,eager] [--hw-load 0.3]
        [--decoder image_random_crop] [--stream-priority 0] [--side-stream] [--ahead 3]
"""

import argparse
import collections
import importlib.util
import pathlib
import sys
import threading
import time

import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))  # gpu_pipeline.py, one folder up

import gpu_pipeline  # noqa: E402


def load_train():
    spec = importlib.util.spec_from_file_location("train", ROOT / "examples/imagenet/train.py")
    train = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train)
    return train


def repeat_until(stop, work, ahead, blocking=True):
    """Calls work() until `stop`, keeping at most `ahead` earlier calls unfinished on the
    current stream: waits for the call `ahead` back on a blocking event (the thread sleeps) or
    a spinning one."""
    queued = collections.deque()
    while not stop.is_set():
        work()
        done = torch.cuda.Event(blocking=blocking)
        done.record()
        queued.append(done)
        if len(queued) > ahead:
            queued.popleft().synchronize()


def train_until(stop, graphed, side_stream, ahead):
    """ResNet-18 steps on one synthetic batch of 256 until `stop`, at most `ahead` steps ahead
    of the GPU."""
    train = load_train()
    args = train.parse_args(["unused"] + (["--cuda-graph"] if graphed else []))
    with torch.cuda.stream(torch.cuda.Stream() if side_stream else torch.cuda.current_stream()):
        model = train.make_model(args, 100, torch.device("cuda"))
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        x = torch.randn(256, 3, 224, 224, device="cuda")
        y = torch.randint(0, 100, (256,), device="cuda")
        step = train.make_train_step(model, opt, args)
        repeat_until(stop, lambda: step(x, y), ahead)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data")
    ap.add_argument("--loads", default="none,graph,eager,none")
    ap.add_argument("--hw-load", type=float, default=0.3)
    ap.add_argument("--decoder", default="image_random_crop")
    ap.add_argument("--batches", type=int, default=80)
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--stream-priority", type=int, default=0, help="the pipeline's streams")
    ap.add_argument("--ahead", type=int, default=3,
                    help="how many steps the training thread may queue beyond the running one")
    ap.add_argument("--side-stream", action="store_true",
                    help="train on a side stream instead of the legacy default stream")
    args = ap.parse_args()
    for load in args.loads.split(","):
        stop = threading.Event()
        trainer = None
        if load != "none":
            trainer = threading.Thread(target=train_until,
                                       args=(stop, load == "graph", args.side_stream, args.ahead))
            trainer.start()
            time.sleep(8)  # the model is built and, for "graph", captured
        r = gpu_pipeline.run(args.data, 256, args.threads, args.hw_load, args.batches, 3, 1, -1,
                             args.decoder, "cpu", stream_priority=args.stream_priority)
        stop.set()
        if trainer:
            trainer.join()
        print(f"training {load:5s} {r['images_per_s']:8,.0f} images/s, hardware share "
              f"{r['hw_share']:.2f}, nvJPEG ms per batch {r['nvjpeg_ms_per_batch']}", flush=True)


if __name__ == "__main__":
    main()
