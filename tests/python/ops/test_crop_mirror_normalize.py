"""crop_mirror_normalize against numpy and DALI (crop extents of 0, fill values per output
channel under pad_output, what is refused); the GPU operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
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


def small_images():
    rng = np.random.default_rng(2)
    return [[rng.integers(0, 256, (h, w, 3), np.uint8) for h, w in ((4, 5), (6, 7), (5, 3))]]


# Each graph holds its arguments: DALI runs its source in another process.
def zero_height(fn, types, x):
    return fn.crop_mirror_normalize(x, crop_h=0, crop_w=2, crop_pos_x=0.2)


def zero_width_in_crop(fn, types, x):
    return fn.crop_mirror_normalize(x, crop=[3, 0], output_layout="HWC", crop_pos_y=1.0)


def negative_and_fractional(fn, types, x):
    return (fn.crop_mirror_normalize(x, crop_h=-1, crop_w=2.9),
            fn.crop_mirror_normalize(x, crop=[2.7, 0.4], dtype=types.UINT8))


def crop_from_three_values(fn, types, x):
    return fn.crop_mirror_normalize(x, crop=[9, 2, 3])


def pad_output_fill_per_output_channel(fn, types, x):
    return (fn.crop_mirror_normalize(x, crop_h=8, crop_w=4, out_of_bounds_policy="pad",
                                     fill_values=[7, 8, 9, 10], pad_output=True,
                                     output_layout="HWC", mirror=1),
            fn.crop_mirror_normalize(x, crop=[2, 2], out_of_bounds_policy="pad",
                                     fill_values=[200, 0, 3, 9], pad_output=True,
                                     dtype=types.UINT8),
            fn.crop_mirror_normalize(x, crop_h=7, crop_w=0, out_of_bounds_policy="pad",
                                     fill_values=[5], pad_output=True, mean=[10], std=[2]))


def pad_output_mean_per_output_channel(fn, types, x):
    return (fn.crop_mirror_normalize(x, mean=[10, 20, 30, 40], std=[2, 3, 4, 5],
                                     pad_output=True, output_layout="HWC"),
            fn.crop_mirror_normalize(x, crop=[9, 9], mean=[1, 2, 3, 4], pad_output=True,
                                     out_of_bounds_policy="pad", fill_values=[6]))


def fill_values_unused_without_pad_policy(fn, types, x):
    return (fn.crop_mirror_normalize(x, crop=[2, 2], fill_values=[7, 8]),
            fn.crop_mirror_normalize(x, crop=[9, 2], fill_values=[7, 8], pad_output=True,
                                     out_of_bounds_policy="trim_to_shape", output_layout="HWC"))


@pytest.mark.parametrize("graph", [zero_height, zero_width_in_crop, negative_and_fractional,
                                   crop_from_three_values, pad_output_fill_per_output_channel,
                                   pad_output_mean_per_output_channel,
                                   fill_values_unused_without_pad_policy])
def test_equals_dali(graph, tmp_path):
    inputs = small_images()
    ours = run_sluice(graph, inputs, ["HWC"])
    ref = run_dali(graph, inputs, tmp_path, ["HWC"])
    for k, (o, r) in enumerate(zip(ours, ref)):
        for i in range(len(o)):
            assert o[i].dtype == r[i].dtype, f"output {k} sample {i}"
            np.testing.assert_array_equal(o[i], r[i], err_msg=f"output {k} sample {i}")


def fill_per_input_channel_with_pad_output(fn, types, x):
    return fn.crop_mirror_normalize(x, crop=[9, 9], out_of_bounds_policy="pad",
                                    fill_values=[7, 8, 9], pad_output=True)


def mean_per_output_channel_without_pad_output(fn, types, x):
    return fn.crop_mirror_normalize(x, mean=[1, 2, 3, 4])


def crop_h_without_crop_w(fn, types, x):
    return fn.crop_mirror_normalize(x, crop_h=2)


def crop_with_crop_h(fn, types, x):
    return fn.crop_mirror_normalize(x, crop=[2, 2], crop_h=2, crop_w=2)


def crop_of_one_value(fn, types, x):
    return fn.crop_mirror_normalize(x, crop=[2])


@pytest.mark.parametrize("graph,message", [
    (fill_per_input_channel_with_pad_output, "fill_values"),
    (mean_per_output_channel_without_pad_output, "mean"),
    (crop_h_without_crop_w, "together"),
    (crop_with_crop_h, "not compatible"),
    (crop_of_one_value, "2 or 3 elements"),
])
def test_refuses_what_dali_refuses(graph, message, tmp_path):
    with pytest.raises(ValueError, match=message):
        run_sluice(graph, small_images(), ["HWC"])
    with pytest.raises(AssertionError, match="DALI failed"):
        run_dali(graph, small_images(), tmp_path, ["HWC"])


@pytest.mark.gpu
def test_gpu_zero_extents_and_padded_channels_equal_cpu():
    data = random_images(np.random.default_rng(4), 8)

    def graph(x, d):
        return (fn.crop_mirror_normalize(x, crop_h=0, crop_w=20, device=d),
                fn.crop_mirror_normalize(x, crop=[500, 0], out_of_bounds_policy="pad",
                                         fill_values=[1, 2, 3, 4], pad_output=True, mirror=1,
                                         dtype=types.FLOAT16, device=d),
                fn.crop_mirror_normalize(x, crop=[20, 20], pad_output=True, output_layout="HWC",
                                         mean=MEAN + [0], std=STD + [1], device=d))

    compare_gpu_cpu(graph, data, atol=0)


@pytest.mark.gpu
def test_gpu_equals_cpu():
    data = random_images(np.random.default_rng(3), 16)

    def graph(x, d):
        coin = fn.random.coin_flip(seed=4)
        return (fn.crop_mirror_normalize(x, crop=(16, 16), mirror=coin, mean=MEAN, std=STD,
                                         dtype=types.FLOAT16, device=d),
                fn.crop_mirror_normalize(x, mean=MEAN, std=STD, output_layout="HWC", device=d))

    compare_gpu_cpu(graph, data, atol=0)
