"""normalize against NumPy and NVIDIA DALI 2.4: statistics computed over all axes, over `axes` /
`axis_names`, over the batch; scalar and per-sample tensor mean / stddev (axes inferred from their
shape); scale, shift, epsilon, ddof; integer outputs (rounded half away from zero, saturated);
photos; the arguments DALI refuses. Float outputs agree to 1e-5 relative (DALI sums in float and
takes an approximate reciprocal square root); integer ones within 1 (a value at .5 may round
either way after those). The GPU operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from op_testing import files_in, pil_rgb
from sluice import fn, pipeline_def, types


def assert_close(ours, ref):
    for k, (o, r) in enumerate(zip(ours, ref)):
        for i, (a, b) in enumerate(zip(o, r)):
            assert a.dtype == b.dtype and a.shape == b.shape, f"output {k} sample {i}"
            if a.dtype.kind == "f":
                np.testing.assert_allclose(a, b, rtol=1e-5, atol=2e-5, err_msg=f"output {k}")
            else:
                diff = np.abs(a.astype(np.int64) - b.astype(np.int64))
                assert diff.max(initial=0) <= 1, f"output {k} sample {i}"


def computed_graph(fn, types, x):
    return (fn.normalize(x), fn.normalize(x, axes=[0, 1]), fn.normalize(x, axis_names="C"),
            fn.normalize(x, axis_names="HW", ddof=1, epsilon=0.5),
            fn.normalize(x, batch=True, axes=[0, 1]), fn.normalize(x, batch=True, axes=[0, 1, 2]),
            fn.normalize(x, mean=10.0), fn.normalize(x, stddev=3.0, axes=[1]),
            fn.normalize(x, mean=100, stddev=20), fn.normalize(x, stddev=3.0, epsilon=1),
            fn.normalize(x, scale=64, shift=128, dtype=types.UINT8),
            fn.normalize(x, axes=[0, 1], scale=1000, dtype=types.INT16),
            fn.normalize(x, batch=True, axes=[0, 1], ddof=1, scale=2, shift=-1))


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint32, np.float32])
def test_normalize_equals_dali_on_random_data(tmp_path, dtype):
    rng = np.random.default_rng(11)
    data = [rng.integers(0, 256, (int(rng.integers(1, 30)), int(rng.integers(1, 30)), 3))
            .astype(dtype) for _ in range(6)]
    ours, ol = run_sluice(computed_graph, [data], ["HWC"], with_layouts=True)
    ref, rl = run_dali(computed_graph, [data], tmp_path, ["HWC"], with_layouts=True)
    assert ol == rl
    assert_close(ours, ref)


def tensor_params_graph(fn, types, x, mean, stddev, mean_row):
    return (fn.normalize(x, mean=mean), fn.normalize(x, stddev=stddev, mean=mean),
            fn.normalize(x, mean=mean, axis_names="HW"), fn.normalize(x, mean=mean_row),
            fn.normalize(x, stddev=stddev, epsilon=2, scale=5))


def test_tensor_parameters_equal_dali(tmp_path):
    rng = np.random.default_rng(12)
    data = [rng.uniform(0, 255, (int(rng.integers(2, 20)), 7, 3)).astype(np.float32)
            for _ in range(4)]
    mean = [rng.uniform(50, 150, (1, 1, 3)).astype(np.float32) for _ in data]
    stddev = [rng.uniform(10, 60, (1, 1, 3)).astype(np.float32) for _ in data]
    stddev[1][0, 0, 2] = 0  # a zero tensor stddev gives the shift
    mean_row = [rng.uniform(50, 150, (1, 7, 1)).astype(np.float32) for _ in data]
    inputs = [data, mean, stddev, mean_row]
    layouts = ["HWC", None, None, None]
    assert_close(run_sluice(tensor_params_graph, inputs, layouts),
                 run_dali(tensor_params_graph, inputs, tmp_path, layouts))


def test_normalize_equals_numpy():
    rng = np.random.default_rng(13)
    data = [rng.uniform(-5, 5, (8, 9, 3)).astype(np.float32) for _ in range(3)]

    @pipeline_def(batch_size=3, num_threads=2, device_id=None)
    def p():
        x = fn.external_source(lambda: data, layout="HWC")
        return (fn.normalize(x, axis_names="HW", ddof=1),
                fn.normalize(x, batch=True, axes=[0, 1], scale=2, shift=1))

    per_sample, batch = p().run()
    stacked = np.stack(data)
    bm, bs = stacked.mean(axis=(0, 1, 2)), stacked.std(axis=(0, 1, 2))
    for i, a in enumerate(data):
        want = (a - a.mean(axis=(0, 1))) / a.std(axis=(0, 1), ddof=1)
        np.testing.assert_allclose(per_sample.at(i), want, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(batch.at(i), (a - bm) / bs * 2 + 1, rtol=1e-4, atol=1e-5)
    assert per_sample.layout() == "HWC"


def photo_graph(fn, types, images):
    return (fn.normalize(images, axis_names="HW"),
            fn.normalize(images, axes=[0, 1], scale=64, shift=128, dtype=types.UINT8))


def test_normalize_of_photos_equals_dali(tmp_path, shared_data):
    photos = [pil_rgb(p) for p in files_in(shared_data / "photos", "*.jpg")[:3]]
    assert_close(run_sluice(photo_graph, [photos], ["HWC"]),
                 run_dali(photo_graph, [photos], tmp_path, ["HWC"]))


def scalars_with_axes(fn, types, x):
    return fn.normalize(x, mean=1, stddev=2, axes=[0])


def batch_of_uneven(fn, types, x):
    return fn.normalize(x, batch=True, axis_names="C")


def empty_axes(fn, types, x):
    return fn.normalize(x, axes=[])


def negative_axis(fn, types, x):
    return fn.normalize(x, axes=[-1])


def int64_input(fn, types, x):
    return fn.normalize(fn.cast(x, dtype=types.INT64))


def float16_output(fn, types, x):
    return fn.normalize(x, dtype=types.FLOAT16)


def both_axes(fn, types, x):
    return fn.normalize(x, axes=[0], axis_names="H")


def test_refuses_what_dali_refuses(tmp_path):
    x = [np.ones((2, 3, 3), np.uint8), np.ones((4, 3, 3), np.uint8)]
    for graph, message in ((scalars_with_axes, "both mean and standard deviation are scalars"),
                           (batch_of_uneven, "equal extent"),
                           (empty_axes, "at least one reduction axis"),
                           (negative_axis, "out of valid range"),
                           (int64_input, "unsupported input type"),
                           (float16_output, "unsupported output type"),
                           (both_axes, "mutually exclusive")):
        with pytest.raises(AssertionError, match="DALI failed"):
            run_dali(graph, [x], tmp_path, ["HWC"])
        with pytest.raises(Exception, match=message):
            run_sluice(graph, [x], ["HWC"])


def tensor_batch(fn, types, x, m):
    return fn.normalize(x, mean=m, batch=True)


def wrong_param_shape(fn, types, x, m):
    return fn.normalize(x, mean=m, axes=[0, 1])


def tensor_params_float64(fn, types, x, m):
    return fn.normalize(x, mean=m)


def test_refuses_tensor_parameters_dali_refuses(tmp_path):
    x = [np.ones((2, 3, 3), np.float32)] * 2
    m = [np.ones((1, 3, 1), np.float32)] * 2
    for graph, message in ((tensor_batch, "Batch normalization cannot be used"),
                           (wrong_param_shape, "does not match the reduced input")):
        with pytest.raises(AssertionError, match="DALI failed"):
            run_dali(graph, [x, m], tmp_path, ["HWC", None])
        with pytest.raises(Exception, match=message):
            run_sluice(graph, [x, m], ["HWC", None])
    m = [np.ones((1, 3, 1), np.float64)] * 2
    for graph, message in ((tensor_params_float64, "must be FLOAT"),):
        with pytest.raises(AssertionError, match="DALI failed"):
            run_dali(graph, [x, m], tmp_path, ["HWC", None])
        with pytest.raises(Exception, match=message):
            run_sluice(graph, [x, m], ["HWC", None])


@pytest.mark.gpu
def test_gpu_equals_cpu():
    rng = np.random.default_rng(14)
    data = [rng.integers(0, 256, (int(rng.integers(1, 200)), int(rng.integers(1, 200)), 3),
                         np.uint8) for _ in range(6)]
    same = [rng.integers(0, 256, (64, 48, 3), np.uint8) for _ in range(4)]
    mean = [rng.uniform(50, 150, (1, 1, 3)).astype(np.float32) for _ in data]

    def graph(x, m):
        return (fn.normalize(x), fn.normalize(x, axis_names="HW", ddof=1),
                fn.normalize(x, axes=[2], epsilon=1), fn.normalize(x, mean=m),
                fn.normalize(x, mean=128, stddev=64, dtype=types.INT8),
                fn.normalize(x, axis_names="HW", scale=64, shift=128, dtype=types.UINT8))

    def batch_graph(x, m):
        return (fn.normalize(x, batch=True), fn.normalize(x, batch=True, axis_names="HW"),
                fn.normalize(x, batch=True, axes=[0, 1], mean=100.0))

    for g, batch in ((graph, data), (batch_graph, same)):
        outs = {}
        for device in ("cpu", "gpu"):
            @pipeline_def(batch_size=len(batch), num_threads=2, device_id=0)
            def p():
                x = fn.external_source(lambda: batch, layout="HWC")
                m = fn.external_source(lambda: mean[:len(batch)])
                return g(x if device == "cpu" else x.gpu(), m)

            outs[device] = [o.as_cpu() if device == "gpu" else o for o in p().run()]
        for k, (c, gp) in enumerate(zip(outs["cpu"], outs["gpu"])):
            for i in range(len(batch)):
                a, b = np.asarray(c.at(i)), np.asarray(gp.at(i))
                assert a.dtype == b.dtype and a.shape == b.shape
                if a.dtype.kind == "f":
                    np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-4, err_msg=f"output {k}")
                else:
                    assert np.abs(a.astype(int) - b.astype(int)).max(initial=0) <= 1, f"output {k}"
