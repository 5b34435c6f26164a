"""reductions.sum, min, max, mean, mean_square, rms, std_dev and variance against NumPy and NVIDIA
DALI 2.4 on random data of every input type DALI takes and on photos: axes, negative axes,
axis_names, keep_dims, empty axes, the dtype argument (integer sums wrap in a narrow output type,
as DALI's do), ddof, the mean input, and the inputs DALI refuses. Integer outputs are bit-exact;
float ones agree to 1e-5 relative (DALI sums pairwise in float, Sluice in double). The GPU
operators against the CPU ones."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from op_testing import files_in, pil_rgb
from sluice import fn, pipeline_def, types

RTOL = 1e-5


def all_reductions_graph(fn, types, x):
    r = fn.reductions
    out = []
    for kw in ({}, {"axes": 0}, {"axes": [0, 2]}, {"axes": -1, "keep_dims": True},
               {"axis_names": "HW"}, {"axis_names": "C", "keep_dims": True}, {"axes": []}):
        mean = r.mean(x, **kw)
        out += [r.sum(x, **kw), r.min(x, **kw), r.max(x, **kw), mean, r.mean_square(x, **kw),
                r.rms(x, **kw), r.std_dev(x, mean, **kw), r.variance(x, mean, ddof=1, **kw)]
    return tuple(out)


def random_batch(rng, dtype, n=5):
    out = []
    for _ in range(n):
        shape = tuple(int(v) for v in rng.integers(1, 9, 3))
        if np.dtype(dtype).kind == "f":
            out.append(rng.uniform(-100, 100, shape).astype(dtype))
        else:
            info = np.iinfo(dtype)
            lo, hi = max(info.min, -(2 ** 40)), min(info.max, 2 ** 40)
            out.append(rng.integers(lo, hi, shape, dtype=dtype, endpoint=True))
    return out


def assert_same(ours, ref, ours_layouts=None, ref_layouts=None):
    if ours_layouts is not None:
        assert ours_layouts == ref_layouts
    for k, (o, r) in enumerate(zip(ours, ref)):
        for i, (a, b) in enumerate(zip(o, r)):
            assert a.dtype == b.dtype and a.shape == b.shape, f"output {k} sample {i}"
            if a.dtype.kind == "f":
                np.testing.assert_allclose(a, b, rtol=RTOL, atol=1e-6, err_msg=f"output {k}")
            else:
                np.testing.assert_array_equal(a, b, err_msg=f"output {k} sample {i}")


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32,
                                   np.uint64, np.int64, np.float32])
def test_reductions_equal_dali_on_random_data(tmp_path, dtype):
    data = random_batch(np.random.default_rng(3), dtype)
    ours, ol = run_sluice(all_reductions_graph, [data], ["HWC"], with_layouts=True)
    ref, rl = run_dali(all_reductions_graph, [data], tmp_path, ["HWC"], with_layouts=True)
    assert_same(ours, ref, ol, rl)


def dtype_graph(fn, types, x):
    r = fn.reductions
    return (r.sum(x, dtype=types.UINT8), r.sum(x, dtype=types.FLOAT, axes=1),
            r.mean(x, dtype=types.UINT8, axes=[0, 1]), r.mean_square(x, dtype=types.UINT64),
            r.rms(x, dtype=types.UINT8, axes=0), r.mean(x, dtype=types.FLOAT))


def signed_dtype_graph(fn, types, x):
    r = fn.reductions
    return (r.sum(x, dtype=types.INT8, axes=0), r.mean(x, dtype=types.INT8, axes=0),
            r.mean_square(x, dtype=types.INT64), r.sum(x, dtype=types.INT64))


def test_dtype_argument_equals_dali(tmp_path):
    rng = np.random.default_rng(4)
    data = [rng.integers(0, 256, (20, 30, 3), np.uint8) for _ in range(3)]
    ours = run_sluice(dtype_graph, [data])
    assert_same(ours, run_dali(dtype_graph, [data], tmp_path))
    assert ours[0][0] == data[0].sum(dtype=np.uint64) % 256  # wraps in the output type
    signed = [rng.integers(-128, 128, (7, 5), np.int8) for _ in range(3)]
    assert_same(run_sluice(signed_dtype_graph, [signed]),
                run_dali(signed_dtype_graph, [signed], tmp_path))


def test_reductions_equal_numpy():
    rng = np.random.default_rng(6)
    data = [rng.uniform(-10, 10, (6, 7, 3)).astype(np.float32) for _ in range(3)]

    @pipeline_def(batch_size=3, num_threads=2, device_id=None)
    def p():
        x = fn.external_source(lambda: data, layout="HWC")
        m = fn.reductions.mean(x, axis_names="HW", keep_dims=True)
        return (fn.reductions.sum(x, axes=(0, 1)), fn.reductions.max(x, axes=2),
                fn.reductions.std_dev(x, m, axis_names="HW", ddof=1), m,
                fn.reductions.rms(x))

    s, mx, sd, m, rms = p().run()
    for i, a in enumerate(data):
        np.testing.assert_allclose(s.at(i), a.sum(axis=(0, 1)), rtol=1e-5)
        np.testing.assert_array_equal(mx.at(i), a.max(axis=2))
        np.testing.assert_allclose(sd.at(i), a.std(axis=(0, 1), ddof=1), rtol=1e-5)
        np.testing.assert_allclose(m.at(i), a.mean(axis=(0, 1), keepdims=True), rtol=1e-5)
        np.testing.assert_allclose(rms.at(i), np.sqrt((a.astype(np.float64) ** 2).mean()),
                                   rtol=1e-5)
    assert m.layout() == "HWC" and s.layout() == "C" and rms.layout() == ""


def photo_graph(fn, types, images):
    r = fn.reductions
    mean = r.mean(images, axis_names="HW")
    return (r.sum(images, axis_names="HW"), r.min(images), r.max(images, axes=2), mean,
            r.std_dev(images, mean, axis_names="HW"), r.mean_square(images, axes=(0, 1)))


def test_reductions_of_photos_equal_dali(tmp_path, shared_data):
    photos = [pil_rgb(p) for p in files_in(shared_data / "photos", "*.jpg")[:3]]
    ours = run_sluice(photo_graph, [photos], ["HWC"])
    assert_same(ours, run_dali(photo_graph, [photos], tmp_path, ["HWC"]))
    for img, s in zip(photos, ours[0]):
        np.testing.assert_array_equal(s, img.sum(axis=(0, 1), dtype=np.uint64))


def constant_mean_graph(fn, types, x):
    return (fn.reductions.variance(x, 100.0), fn.reductions.std_dev(x, 50.0, ddof=1),
            fn.reductions.std_dev(x, np.full((4, 1, 3), 7.5, np.float32), axes=1, keep_dims=True))


def test_constant_means_equal_dali(tmp_path):
    """A number or an array for the mean becomes a constant input, as in DALI."""
    rng = np.random.default_rng(9)
    data = [rng.uniform(0, 200, (4, 5, 3)).astype(np.float32) for _ in range(2)]
    assert_same(run_sluice(constant_mean_graph, [data]),
                run_dali(constant_mean_graph, [data], tmp_path))


def half_graph(fn, types, x):
    return fn.reductions.sum(x)


def bad_pair_graph(fn, types, x):
    return fn.reductions.mean(x, dtype=types.INT32)


def both_axes_graph(fn, types, x):
    return fn.reductions.max(x, axes=0, axis_names="H")


def duplicate_axis_graph(fn, types, x):
    return fn.reductions.min(x, axes=[0, -3])


def out_of_range_graph(fn, types, x):
    return fn.reductions.sum(x, axes=[3])


def unknown_name_graph(fn, types, x):
    return fn.reductions.sum(x, axis_names="X")


def test_refuses_what_dali_refuses(tmp_path):
    x = [np.ones((2, 3, 4), np.uint8)] * 2
    for graph, data, message in ((half_graph, [a.astype(np.float16) for a in x],
                                  "Unsupported input type"),
                                 (bad_pair_graph, x, "Unsupported types"),
                                 (both_axes_graph, x, "mutually exclusive"),
                                 (duplicate_axis_graph, x, "Duplicate axis"),
                                 (out_of_range_graph, x, "out of range"),
                                 (unknown_name_graph, x, "not present")):
        with pytest.raises(AssertionError, match="DALI failed"):
            run_dali(graph, [data], tmp_path, ["HWC"])
        with pytest.raises(Exception, match=message):
            run_sluice(graph, [data], ["HWC"])


def test_mean_input_must_match_the_output():
    """DALI reads a mean of another type or size as it finds it; Sluice refuses it."""
    x = [np.ones((2, 3), np.float32)] * 2

    def wrong_type(fn, types, x, m):
        return fn.reductions.std_dev(x, m)

    def wrong_size(fn, types, x, m):
        return fn.reductions.variance(x, m, axes=0)

    with pytest.raises(Exception, match="FLOAT"):
        run_sluice(wrong_type, [x, [np.zeros((), np.float64)] * 2])
    with pytest.raises(Exception, match="mean of sample"):
        run_sluice(wrong_size, [x, [np.zeros(2, np.float32)] * 2])


@pytest.mark.gpu
def test_gpu_equals_cpu():
    rng = np.random.default_rng(8)
    data = [rng.integers(0, 256, (int(rng.integers(1, 300)), int(rng.integers(1, 300)), 3),
                         np.uint8) for _ in range(6)]

    def graph(x):
        r = fn.reductions
        m = r.mean(x, axis_names="HW", keep_dims=True)
        return (r.sum(x), r.sum(x, axes=1, dtype=types.UINT8), r.min(x, axes=(0, 1)),
                r.max(x, axes=2), m, r.mean(x, dtype=types.UINT8), r.mean_square(x, axes=0),
                r.rms(x, axis_names="C"), r.std_dev(x, m, axis_names="HW", keep_dims=True),
                r.variance(x, m, axis_names="HW", ddof=1, keep_dims=True),
                r.variance(x, r.mean(x, axes=[]), axes=[]), r.sum(x, axes=[]))

    outs = {}
    for device in ("cpu", "gpu"):
        @pipeline_def(batch_size=len(data), num_threads=2, device_id=0)
        def p():
            x = fn.external_source(lambda: data, layout="HWC")
            return graph(x if device == "cpu" else x.gpu())

        outs[device] = [o.as_cpu() if device == "gpu" else o for o in p().run()]
    for k, (c, g) in enumerate(zip(outs["cpu"], outs["gpu"])):
        assert c.layout() == g.layout()
        for i in range(len(data)):
            a, b = np.asarray(c.at(i)), np.asarray(g.at(i))
            assert a.dtype == b.dtype and a.shape == b.shape
            if a.dtype.kind == "f":
                np.testing.assert_allclose(b, a, rtol=1e-5, err_msg=f"output {k}")
            else:
                np.testing.assert_array_equal(b, a, err_msg=f"output {k}")
