"""crop against numpy (windows, padding); the GPU operator against the CPU one."""

import math

import numpy as np
import pytest

from op_testing import compare_gpu_cpu, random_images
from sluice import fn, pipeline_def


def test_crop_and_padding_equal_numpy():
    rng = np.random.default_rng(2)
    imgs = [rng.integers(0, 256, (30 + i, 20 + 2 * i, 3), np.uint8) for i in range(4)]

    @pipeline_def(batch_size=4, num_threads=2, device_id=None)
    def p():
        x = fn.external_source(lambda: imgs, layout="HWC")
        return (fn.crop(x, crop=(10, 12), crop_pos_x=1.0, crop_pos_y=0.0),
                fn.crop(x, crop=(40, 40), out_of_bounds_policy="pad", fill_values=[1, 2, 3]))

    crop, pad = p().run()
    for i, img in enumerate(imgs):
        h, w = img.shape[:2]
        assert np.array_equal(crop.at(i), img[0:10, w - 12:w])
        padded = np.asarray(pad.at(i))
        assert padded.shape == (40, 40, 3)
        def roundf(v):  # C's roundf: halves away from zero (DALI's crop anchor)
            return int(math.copysign(math.floor(abs(v) + 0.5), v))

        y0, x0 = -roundf(0.5 * (h - 40)), -roundf(0.5 * (w - 40))
        assert np.array_equal(padded[y0:y0 + h, x0:x0 + w], img)
        assert padded[0, 0].tolist() == [1, 2, 3]


@pytest.mark.gpu
def test_gpu_equals_cpu():
    data = random_images(np.random.default_rng(3), 16)
    compare_gpu_cpu(lambda x, d: fn.crop(x, crop=(17, 19), crop_pos_x=0.2, crop_pos_y=0.9, device=d),
                    data, atol=0)
