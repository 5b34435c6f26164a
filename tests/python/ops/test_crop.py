"""crop against numpy (windows, padding) and DALI (per-sample windows, extents of 0); the GPU
operator against the CPU one."""

import math

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
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


def per_sample_windows(fn, types, x, crop, crop_h, crop_w, pos):
    return (fn.crop(x, crop=crop, crop_pos_x=pos, crop_pos_y=pos),
            fn.crop(x, crop_h=crop_h * 2, crop_w=crop_w, out_of_bounds_policy="pad"))


def test_per_sample_windows_from_argument_inputs_equal_dali(tmp_path):
    rng = np.random.default_rng(4)
    images = [rng.integers(0, 256, (h, w, 3), np.uint8) for h, w in ((8, 9), (5, 5), (7, 3))]
    crops = [np.array(c, np.float32) for c in ((3, 4), (0, 2.9), (7, 2))]  # 0: the whole extent
    pos = [np.array(p, np.float32) for p in (0.0, 0.5, 1.0)]
    inputs = [images, crops, [c[:1] for c in crops], [c[1:] for c in crops], pos]
    layouts = ["HWC", None, None, None, None]
    ours, ref = run_sluice(per_sample_windows, inputs, layouts), None
    assert [o.shape for o in ours[0]] == [(3, 4, 3), (5, 2, 3), (7, 2, 3)]
    ref = run_dali(per_sample_windows, inputs, tmp_path, layouts)
    for k in range(2):
        for i in range(3):
            np.testing.assert_array_equal(ours[k][i], ref[k][i], err_msg=f"output {k} sample {i}")


@pytest.mark.gpu
def test_gpu_per_sample_windows_equal_cpu():
    data = random_images(np.random.default_rng(5), 4)
    crops = [np.array(c, np.float32) for c in ((30, 40), (0, 25), (10, 0), (500, 3))]

    def graph(x, d):
        c = fn.external_source(lambda: crops)
        return fn.crop(x, crop=c, out_of_bounds_policy="pad", fill_values=[9], device=d)

    compare_gpu_cpu(graph, data, atol=0)


@pytest.mark.gpu
def test_gpu_equals_cpu():
    data = random_images(np.random.default_rng(3), 16)
    compare_gpu_cpu(lambda x, d: fn.crop(x, crop=(17, 19), crop_pos_x=0.2, crop_pos_y=0.9, device=d),
                    data, atol=0)
