"""noise.salt_and_pepper: the share of salt and of pepper, one draw per pixel for all its channels
(channels last or first) or per channel, default and given values (converted as DALI converts
them); the same values for any number of threads; DALI's layouts, types and refusals; the GPU
operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from op_testing import compare_gpu_cpu, random_images
from sluice import fn, pipeline_def


def sp_graph(fn, types, x):
    return (fn.noise.salt_and_pepper(x, prob=0.3, salt_vs_pepper=0.25),
            fn.noise.salt_and_pepper(x, prob=0.3, per_channel=True),
            fn.noise.salt_and_pepper(x, prob=0.5, salt_val=300, pepper_val=-5))


def check_pixels_share_draws(img, out, channel_axis):
    changed = np.moveaxis(out != img, channel_axis, -1)
    assert np.all(changed == changed[..., :1])


@pytest.mark.parametrize("layout", ["HWC", "CHW", None])
def test_shares_and_channels_as_dali(tmp_path, layout):
    shape = (3, 80, 70) if layout == "CHW" else (80, 70, 3)
    x = [np.full(shape, 100, np.uint8) for _ in range(3)]
    layouts = [layout] if layout else None
    ours, lay = run_sluice(sp_graph, [x], layouts, with_layouts=True)
    ref, ref_lay = run_dali(sp_graph, [x], tmp_path, layouts, with_layouts=True)
    assert lay == ref_lay
    axis = 0 if layout == "CHW" else -1
    for k, (o_batch, r_batch) in enumerate(zip(ours, ref)):
        for o, r, img in zip(o_batch, r_batch, x):
            assert o.dtype == r.dtype == np.uint8 and o.shape == r.shape
            values = {0: (255, 0), 1: (255, 0), 2: (44, 251)}[k]  # 300 and -5 wrap as in DALI
            assert set(np.unique(o)) <= {100, *values} and set(np.unique(r)) <= {100, *values}
            salt, pepper = np.mean(o == values[0]), np.mean(o == values[1])
            want = {0: (0.075, 0.225), 1: (0.15, 0.15), 2: (0.25, 0.25)}[k]
            assert abs(salt - want[0]) < 0.02 and abs(pepper - want[1]) < 0.02
            assert abs(np.mean(r == values[0]) - want[0]) < 0.02
            if k != 1:
                check_pixels_share_draws(img, o, axis)
                check_pixels_share_draws(img, r, axis)
        if k == 1:
            assert not np.all((o != img) == (o != img)[..., :1])  # per channel: not shared


def float_graph(fn, types, x):
    return fn.noise.salt_and_pepper(x, prob=0.5)


def test_float_defaults_are_plus_and_minus_one(tmp_path):
    x = [np.full((50, 40, 3), 0.25, np.float32)]
    (ours,) = run_sluice(float_graph, [x])
    (ref,) = run_dali(float_graph, [x], tmp_path)
    assert set(np.unique(ours[0])) == set(np.unique(ref[0])) == {-1.0, 0.25, 1.0}


def test_int64_values_pass_unchanged():
    big = np.full((10, 10, 1), 2 ** 62 + 1, np.int64)
    (out,) = run_sluice(float_graph, [[big]])
    assert set(np.unique(out[0])) == {2 ** 62 + 1, np.iinfo(np.int64).max, np.iinfo(np.int64).min}


def test_same_values_for_any_number_of_threads():
    imgs = random_images(np.random.default_rng(0), 8)
    outs = []
    for threads in (1, 3):
        @pipeline_def(batch_size=8, num_threads=threads, device_id=None, seed=11)
        def p():
            return fn.noise.salt_and_pepper(fn.external_source(lambda: imgs, layout="HWC"))

        out = p().run()[0]
        outs.append([np.asarray(out.at(i)) for i in range(8)])
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)


def bad_prob(fn, types, x):
    return fn.noise.salt_and_pepper(x, prob=1.5)


def bad_ratio(fn, types, x):
    return fn.noise.salt_and_pepper(x, salt_vs_pepper=-0.1)


def test_refuses_what_dali_refuses(tmp_path):
    cases = [(bad_prob, [np.zeros((2, 3, 3), np.uint8)], None, "Noise probability"),
             (bad_ratio, [np.zeros((2, 3, 3), np.uint8)], None, "Salt-vs-pepper probability"),
             (float_graph, [np.zeros((2, 3), np.float64)], None, "not supported"),
             (float_graph, [np.zeros((4, 5), np.uint8)], ["HW"], "'C' should be the first or")]
    for graph, batch, layouts, message in cases:
        with pytest.raises(AssertionError, match=message):
            run_dali(graph, [batch], tmp_path, layouts)
        with pytest.raises(ValueError, match=message):
            run_sluice(graph, [batch], layouts)


@pytest.mark.gpu
@pytest.mark.parametrize("per_channel", [False, True])
def test_gpu_equals_cpu(per_channel):
    data = random_images(np.random.default_rng(3), 16)
    compare_gpu_cpu(lambda x, d: fn.noise.salt_and_pepper(x, prob=0.2, per_channel=per_channel,
                                                          device=d, seed=5), data, atol=0)
