"""crop_mirror_normalize against numpy; the GPU operator against the CPU one."""

import numpy as np
import pytest

from op_testing import MEAN, STD, compare_gpu_cpu, random_images
from sluice import fn, pipeline_def, types


def cmn_reference(img, crop, pos, mirror, mean, std, dtype, layout, scale=1.0, shift=0.0):
    h, w = img.shape[:2]
    ch, cw = crop
    y = int(np.float32(pos[0]) * (h - ch) + 0.5)
    x = int(np.float32(pos[1]) * (w - cw) + 0.5)
    out = img[y:y + ch, x:x + cw].astype(np.float32)
    if mirror:
        out = out[:, ::-1]
    out = (out - np.float32(mean)) * (np.float32(scale) / np.float32(std)) + np.float32(shift)
    if layout == "CHW":
        out = out.transpose(2, 0, 1)
    return out.astype(dtype)


@pytest.mark.parametrize("dtype,np_dtype", [(types.FLOAT, np.float32), (types.FLOAT16, np.float16)])
@pytest.mark.parametrize("layout", ["CHW", "HWC"])
def test_crop_mirror_normalize_equals_numpy(dtype, np_dtype, layout):
    rng = np.random.default_rng(1)
    imgs = [rng.integers(1, 256, (rng.integers(40, 80), rng.integers(40, 80), 3), np.uint8)
            for _ in range(6)]
    mean = [0.485 * 255, 0.456 * 255, 0.406 * 255]
    std = [0.229 * 255, 0.224 * 255, 0.225 * 255]

    @pipeline_def(batch_size=6, num_threads=2, device_id=None, seed=11)
    def p():
        x = fn.external_source(lambda: imgs, layout="HWC")
        m = fn.random.coin_flip()
        return fn.crop_mirror_normalize(x, crop=(32, 24), crop_pos_x=0.25, crop_pos_y=0.75,
                                        mirror=m, mean=mean, std=std, dtype=dtype,
                                        output_layout=layout), m

    out, mirror = p().run()
    for i, img in enumerate(imgs):
        ref = cmn_reference(img, (32, 24), (0.75, 0.25), int(mirror.at(i)), mean, std, np_dtype, layout)
        np.testing.assert_allclose(np.asarray(out.at(i)).astype(np.float32), ref.astype(np.float32),
                                   rtol=1e-6 if np_dtype == np.float32 else 1e-3, atol=1e-6)


@pytest.mark.gpu
def test_gpu_equals_cpu():
    data = random_images(np.random.default_rng(3), 16)

    def graph(x, d):
        coin = fn.random.coin_flip(seed=4)
        return (fn.crop_mirror_normalize(x, crop=(16, 16), mirror=coin, mean=MEAN, std=STD,
                                         dtype=types.FLOAT16, device=d),
                fn.crop_mirror_normalize(x, mean=MEAN, std=STD, output_layout="HWC", device=d))

    compare_gpu_cpu(graph, data, atol=0)
