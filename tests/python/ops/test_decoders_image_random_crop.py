"""decoders.image_random_crop: its windows follow torchvision's RandomResizedCrop rule; the mixed
decoder (GPU) cuts the CPU decoder's windows, and with rest_decoder="cpu" gives its pixels."""

import io
import math
import time

import numpy as np
import pytest

from op_testing import cpu_decodable, jpegs
from sluice import fn, pipeline_def

PIL = pytest.importorskip("PIL.Image")


def torchvision_window(h, w, rng, area=(0.08, 1.0), ratio=(3 / 4, 4 / 3)):
    """torchvision's RandomResizedCrop.get_params, with numpy's generator."""
    for _ in range(10):
        target = h * w * rng.uniform(*area)
        aspect = math.exp(rng.uniform(math.log(ratio[0]), math.log(ratio[1])))
        cw = int(round(math.sqrt(target * aspect)))
        ch = int(round(math.sqrt(target / aspect)))
        if 0 < cw <= w and 0 < ch <= h:
            return ch, cw
    return min(h, w), min(h, w)


def test_random_crop_window_statistics_match_torchvision():
    h, w = 300, 400
    img = PIL.new("RGB", (w, h), (10, 20, 30))
    buf = io.BytesIO()
    img.save(buf, "PNG")
    blobs = [buf.getvalue()] * 256
    shapes = []

    @pipeline_def(batch_size=256, num_threads=2, device_id=None, seed=3)
    def p():
        return fn.peek_image_shape(fn.decoders.image_random_crop(fn.external_source(
            lambda: [np.frombuffer(b, np.uint8) for b in blobs])) * 0 + 0)

    # Shapes of the crops come from the decoder's output.
    @pipeline_def(batch_size=256, num_threads=2, device_id=None, seed=3)
    def crops():
        return fn.decoders.image_random_crop(fn.external_source(
            lambda: [np.frombuffer(b, np.uint8) for b in blobs]))

    pipe = crops()
    for _ in range(8):
        out = pipe.run()[0]
        shapes += [s[:2] for s in out.shape()]
    ours = np.array(shapes, float)
    rng = np.random.default_rng(0)
    ref = np.array([torchvision_window(h, w, rng) for _ in range(len(ours))], float)
    for stat in (lambda s: s[:, 0] * s[:, 1] / (h * w), lambda s: np.log(s[:, 1] / s[:, 0])):
        a, b = stat(ours), stat(ref)
        assert abs(a.mean() - b.mean()) < 0.03
        for q in (0.1, 0.5, 0.9):
            assert abs(np.quantile(a, q) - np.quantile(b, q)) < 0.05


@pytest.mark.gpu
def test_mixed_random_crop_cuts_the_cpu_windows(shared_data):
    paths = sorted((shared_data / "photos").glob("*.jpg"))
    arrays = [np.frombuffer(p.read_bytes(), np.uint8) for p in paths]

    def pipe(device):
        @pipeline_def(batch_size=len(arrays), num_threads=4, device_id=0, seed=9)
        def p():
            return fn.decoders.image_random_crop(fn.external_source(lambda: arrays), device=device,
                                                 seed=5)
        return p()

    cpu, gpu = pipe("cpu").run()[0], pipe("mixed").run()[0]
    assert cpu.shape() == gpu.shape()


def run_until_hardware_ready(p, *beside):
    """Runs `p` (and the pipelines `beside` it) until its mixed operator "Decoder" has set up
    the hardware decoder in the background, for at most 30 s."""
    deadline = time.monotonic() + 30
    while ("being set up" in p.executor_statistics()["Decoder"]["hardware_status"]
           and time.monotonic() < deadline):
        for q in beside:
            q.run()
        p.run()


@pytest.mark.gpu
@pytest.mark.parametrize("load", [0.0, 0.5, None])
def test_rest_decoder_cpu_gives_the_cpu_decoders_pixels(shared_data, load):
    """rest_decoder="cpu": what the hardware does not take goes through the CPU codec, so it
    equals the CPU decoder's output exactly (crop windows, EXIF orientation and all); with no
    hardware share that is every image. The hardware's images differ by IDCT rounding only.
    Without hw_decoder_load the share starts at 0.7 and moves once the hardware decoder has run
    (Note [Balancing the hardware share])."""
    paths = cpu_decodable(jpegs(shared_data))
    arrays = [np.frombuffer(p.read_bytes(), np.uint8) for p in paths]

    def pipe(device, **kw):
        @pipeline_def(batch_size=len(arrays), num_threads=4, device_id=0, seed=9)
        def p():
            return fn.decoders.image_random_crop(fn.external_source(lambda: arrays),
                                                 device=device, seed=5, name="Decoder", **kw)
        return p()

    balance = load is None
    c = pipe("cpu")
    p = pipe("mixed", rest_decoder="cpu", **({} if balance else {"hw_decoder_load": load}))
    if balance:  # until the hardware decoder is set up (in the background), nothing to balance
        run_until_hardware_ready(p, c)
    exact = total = 0
    for _ in range(4):  # both pinned pages; at 0.5 the hardware is ready after the first batches
        cpu, gpu = c.run()[0], p.run()[0].as_cpu()
        for i in range(len(arrays)):
            a, b = np.asarray(gpu.at(i)), np.asarray(cpu.at(i))
            assert a.shape == b.shape, paths[i]
            d = np.abs(a.astype(int) - b.astype(int))
            exact += int(d.max(initial=0) == 0)
            total += 1
            tiny = min(b.shape[:2]) < 16  # mostly edge, where the upsamplers differ most
            assert d.max(initial=0) == 0 or (load != 0 and (tiny or d.mean() < 2.5)), paths[i]
    stats = p.executor_statistics()["Decoder"]
    assert stats["hybrid_decoded"] == stats["gpu_hybrid_decoded"] == 0
    if load == 0:
        assert stats["cpu_decoded"] >= total and stats["hardware_decoded"] == 0
    elif not balance:  # at most half plus one engine's cores goes to the hardware
        assert exact >= 0.4 * total and stats["cpu_decoded"] > 0
    else:
        assert stats["hardware_decoded"] > 0 and stats["cpu_decoded"] > 0
        assert 0.05 <= stats["hardware_load"] <= 0.95 and abs(stats["hardware_load"] - 0.7) > 1e-3


@pytest.mark.gpu
@pytest.mark.parametrize("threads", [4, 8])
def test_rest_decoder_auto(shared_data, threads):
    """rest_decoder="auto", the default: from 8 threads the CPU codec decodes what the hardware
    decoder does not take, below that nvJPEG's hybrid path. With the hybrid path and no
    hw_decoder_load the share stays 0.7: the hybrid tasks end before their GPU phases do, so
    their time cannot steer it (Note [Balancing the hardware share])."""
    arrays = [np.frombuffer(p.read_bytes(), np.uint8) for p in cpu_decodable(jpegs(shared_data))]

    @pipeline_def(batch_size=len(arrays), num_threads=threads, device_id=0, seed=9)
    def pipe():
        return fn.decoders.image_random_crop(fn.external_source(lambda: arrays), device="mixed",
                                             seed=5, name="Decoder")

    p = pipe()
    run_until_hardware_ready(p)
    for _ in range(4):
        p.run()
    stats = p.executor_statistics()["Decoder"]
    assert stats["hardware_decoded"] > 0
    if threads < 8:
        assert stats["hybrid_decoded"] > 0 and stats["cpu_decoded"] == stats["cpu_fallback"]
        assert stats["hardware_load"] == pytest.approx(0.7)
    else:
        assert stats["hybrid_decoded"] == stats["gpu_hybrid_decoded"] == 0
        assert stats["cpu_decoded"] > stats["cpu_fallback"]


@pytest.mark.gpu
@pytest.mark.parametrize("load", [None, 0.7])
def test_balanced_share_makes_way_for_a_busy_consumer(shared_data, load):
    """Note [A busy consumer]: while the consumer's stream still runs queued work whenever it takes
    a batch (a model that is the bottleneck), a balanced share leaves the hardware decoder out and
    the CPU codec decodes whole batches; once the consumer waits with an idle GPU, the hardware
    decodes again. A share given as hw_decoder_load stays as given."""
    torch = pytest.importorskip("torch")
    arrays = [np.frombuffer(p.read_bytes(), np.uint8) for p in cpu_decodable(jpegs(shared_data))]

    @pipeline_def(batch_size=len(arrays), num_threads=4, device_id=0, seed=9)
    def pipe():
        return fn.decoders.image_random_crop(
            fn.external_source(lambda: arrays), device="mixed", seed=5, name="Decoder",
            rest_decoder="cpu", **({} if load is None else {"hw_decoder_load": load}))

    p = pipe()
    run_until_hardware_ready(p)

    def take(batches, busy):
        for _ in range(batches):
            out = p.run()[0]
            if busy:  # a model's step queued before it takes the next batch
                torch.cuda._sleep(20_000_000)
            else:
                torch.cuda.synchronize()
            torch.from_dlpack(out[0])  # the DLPack hand-over probes the consumer's stream

    def stats():
        s = p.executor_statistics()["Decoder"]
        return s["hardware_decoded"], s["hardware_paused_batches"]

    take(16, busy=True)
    hw, paused = stats()
    take(8, busy=True)  # decoded while paused (balanced) or with the given share
    if load is None:
        assert paused > 0 and stats()[0] == hw and stats()[1] >= paused + 6
    else:
        assert paused == 0 and stats()[0] > hw
    take(16, busy=False)  # and leave the probes idle for the tests after this one
    hw, paused = stats()
    take(4, busy=False)
    assert stats()[0] > hw and stats()[1] == paused
