"""random_resized_crop: with the same seed it cuts decoders.image_random_crop's windows; the GPU
operator equals the CPU one."""

import numpy as np
import pytest

from op_testing import compare_gpu_cpu, files_in, random_images, run_on_bytes
from sluice import fn


def test_image_random_crop_then_resize_equals_random_resized_crop(shared_data):
    blobs = [p.read_bytes() for p in files_in(shared_data / "photos", "*.jpg")[:6]]
    fused, unfused = run_on_bytes(blobs, lambda x: (
        fn.resize(fn.decoders.image_random_crop(x, seed=123), size=(64, 64)),
        fn.random_resized_crop(fn.decoders.image(x), size=(64, 64), seed=123)))
    for a, b in zip(fused, unfused):
        assert np.array_equal(a, b)


@pytest.mark.gpu
def test_gpu_equals_cpu():
    data = random_images(np.random.default_rng(3), 16)
    compare_gpu_cpu(lambda x, d: fn.random_resized_crop(x, size=(48, 40), seed=6, device=d), data,
                    atol=0)
