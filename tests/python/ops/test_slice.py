"""slice against numpy and NVIDIA DALI 2.4: every way of giving the window (named arguments,
absolute or relative, per-sample argument inputs, anchor and shape inputs normalized or not),
`axes` / `axis_names`, every out-of-bounds policy with per-channel fill values, output types,
the arguments and inputs DALI refuses; the GPU operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from op_testing import assert_gpu_half_equals_cpu, pil_rgb
from sluice import fn, pipeline_def


def random_images(rng, n=4, dtype=np.uint8):
    return [rng.integers(0, 255, (int(rng.integers(5, 17)), int(rng.integers(5, 17)), 3)).astype(dtype)
            for _ in range(n)]


def named_graph(fn, types, x, start, rel):
    return (fn.slice(x, rel_start=[0.1, 0.2], rel_shape=[0.5, 0.6]),
            fn.slice(x, start=[1, 2], end=[4, 5]),
            fn.slice(x, start=[1, 0], shape=[3, 2], axes=[0, 2]),
            fn.slice(x, start=[2, 1], shape=[2, 2], axis_names="HC"),
            fn.slice(x, start=[1], end=[3], axes=[-1]),
            fn.slice(x, rel_start=[0.25, 0.25], rel_end=[0.75, 0.9]),
            fn.slice(x, start=[2, 3]),
            fn.slice(x, end=[3, 2]),
            fn.slice(x, rel_shape=[0.5, 0.5]),
            fn.slice(x, start=[1, 1], rel_shape=[0.33, 0.66]),
            fn.slice(x, start=[1, 1, 0], shape=[2, 3, 3], axes=[]),
            fn.slice(x, start=[1, 1, 1], shape=[2, 3, 1], axis_names=""),
            fn.slice(x, start=start, shape=[2, 3]),
            fn.slice(x, rel_start=rel, rel_shape=[0.5, 0.5]),
            fn.slice(x, start=[1], shape=[2]))


def test_named_arguments_equal_dali(tmp_path):
    rng = np.random.default_rng(1)
    x = random_images(rng)
    start = [np.array([i % 3, 1], np.int32) for i in range(len(x))]
    rel = [rng.uniform(0, 0.5, 2).astype(np.float32) for _ in x]
    ours, our_layouts = run_sluice(named_graph, [x, start, rel], ["HWC", None, None],
                                   with_layouts=True)
    ref, ref_layouts = run_dali(named_graph, [x, start, rel], tmp_path, ["HWC", None, None],
                                with_layouts=True)
    assert our_layouts == ref_layouts
    for k, (o, r) in enumerate(zip(ours, ref)):
        for a, b in zip(o, r):
            assert a.dtype == b.dtype and a.shape == b.shape, f"output {k}: {a.shape} {b.shape}"
            np.testing.assert_array_equal(a, b, err_msg=f"output {k}")


def positional_graph(fn, types, x, af, sf, ai, si, al, sl):
    return (fn.slice(x, af, sf),
            fn.slice(x, af, sf, normalized_shape=False),
            fn.slice(x, ai, si),
            fn.slice(x, al, sl, axes=[0]),
            fn.slice(x, ai, si, axis_names="HW"),
            fn.slice(x, af * 10, sf * 10, normalized_anchor=False, normalized_shape=False))


def test_anchor_and_shape_inputs_equal_dali(tmp_path):
    rng = np.random.default_rng(2)
    x = random_images(rng)
    n = len(x)
    af = [rng.uniform(0, 0.4, 2).astype(np.float32) for _ in range(n)]
    sf = [rng.uniform(0.1, 0.5, 2).astype(np.float32) for _ in range(n)]
    ai = [np.array([1, 2], np.int32) for _ in range(n)]
    si = [np.array([3, 2], np.int32) for _ in range(n)]
    al = [np.array(1, np.int64) for _ in range(n)]
    sl = [np.array(3, np.int64) for _ in range(n)]
    inputs = [x, af, sf, ai, si, al, sl]
    layouts = ["HWC"] + [None] * 6
    ours = run_sluice(positional_graph, inputs, layouts)
    ref = run_dali(positional_graph, inputs, tmp_path, layouts)
    for k, (o, r) in enumerate(zip(ours, ref)):
        for a, b in zip(o, r):
            assert a.shape == b.shape, f"output {k}: {a.shape} {b.shape}"
            np.testing.assert_array_equal(a, b, err_msg=f"output {k}")


POLICIES = ["pad", "constant", "edge", "clamp", "reflect", "reflect_1001", "reflect_101", "wrap",
            "trim_to_shape"]


def policy_graph(fn, types, x):
    outs = []
    for p in ["pad", "constant", "edge", "clamp", "reflect", "reflect_1001", "reflect_101", "wrap",
              "trim_to_shape"]:
        outs.append(fn.slice(x, start=[-3, -2], shape=[12, 9], out_of_bounds_policy=p,
                             fill_values=[7, 8, 9]))
        outs.append(fn.slice(x, start=[2, 1], end=[30, 25], out_of_bounds_policy=p))
    outs.append(fn.slice(x, start=[-1, 0], shape=[3, 5], axis_names="HC",
                         out_of_bounds_policy="pad", fill_values=[1, 2, 3, 4, 5]))
    outs.append(fn.slice(x, start=[-2, -2], shape=[4, 4], out_of_bounds_policy="pad",
                         fill_values=[-1.5]))
    outs.append(fn.slice(x, start=[-2, -2], shape=[4, 4], out_of_bounds_policy="pad",
                         fill_values=[300]))
    return tuple(outs)


def test_out_of_bounds_policies_equal_dali(tmp_path):
    x = random_images(np.random.default_rng(3))
    ours = run_sluice(policy_graph, [x], ["HWC"])
    ref = run_dali(policy_graph, [x], tmp_path, ["HWC"])
    for k, (o, r) in enumerate(zip(ours, ref)):
        for a, b in zip(o, r):
            assert a.shape == b.shape, f"output {k}: {a.shape} {b.shape}"
            np.testing.assert_array_equal(a, b, err_msg=f"output {k}")


NUMPY_MODES = {"edge": "edge", "reflect_1001": "symmetric", "reflect_101": "reflect",
               "wrap": "wrap"}


def test_policies_equal_numpy_pad():
    # Pads shorter than the image: numpy reflects a longer pad in steps of its own.
    rng = np.random.default_rng(4)
    x = [rng.integers(-999, 999, (8, 9, 3)).astype(np.int16) for _ in range(3)]
    for policy, mode in NUMPY_MODES.items():
        def graph(fn, types, x, policy=policy):
            return fn.slice(x, start=[-3, -2], end=[14, 15], out_of_bounds_policy=policy)

        (ours,) = run_sluice(graph, [x], ["HWC"])
        for a, img in zip(ours, x):
            want = np.pad(img, ((2, 7), (3, 5), (0, 0)), mode=mode)
            np.testing.assert_array_equal(a, want, err_msg=policy)


def dtype_graph(fn, types, x):
    return (fn.slice(x, start=[0, 0], shape=[3, 3], dtype=types.UINT8),
            fn.slice(x, start=[0, 0], shape=[3, 3], dtype=types.FLOAT16),
            fn.slice(x, start=[-1, -1], shape=[3, 3], dtype=types.UINT8,
                     out_of_bounds_policy="pad", fill_values=[-1.5]),
            fn.slice(x, start=[0, 0], shape=[3, 3], dtype=types.FLOAT))


def test_output_types_equal_dali(tmp_path):
    rng = np.random.default_rng(5)
    x = [(rng.standard_normal((6, 7)) * 200).astype(np.float32) for _ in range(3)]
    x[0][0, :4] = [1.5, 2.5, -0.5, 300.7]
    ours = run_sluice(dtype_graph, [x], ["HW"])
    ref = run_dali(dtype_graph, [x], tmp_path, ["HW"])
    for k, (o, r) in enumerate(zip(ours, ref)):
        for a, b in zip(o, r):
            assert a.dtype == b.dtype, f"output {k}"
            np.testing.assert_array_equal(a, b, err_msg=f"output {k}")


def photo_graph(fn, types, x):
    return (fn.slice(x, rel_start=[0.1, 0.2], rel_shape=[0.5, 0.4]),
            fn.slice(x, rel_start=[-0.1, 0.5], rel_shape=[0.5, 0.8], out_of_bounds_policy="pad",
                     fill_values=[255, 0, 128]),
            fn.slice(x, rel_start=[0.7, 0.7], rel_shape=[0.6, 0.6],
                     out_of_bounds_policy="reflect_101"))


def test_slices_of_photos_equal_dali(shared_data, tmp_path):
    photos = [pil_rgb(p) for p in sorted((shared_data / "photos").glob("*.jpg"))[:3]]
    ours = run_sluice(photo_graph, [photos], ["HWC"])
    ref = run_dali(photo_graph, [photos], tmp_path, ["HWC"])
    for k, (o, r) in enumerate(zip(ours, ref)):
        for a, b in zip(o, r):
            np.testing.assert_array_equal(a, b, err_msg=f"output {k}")


def r_oob(fn, types, x, a, s): return fn.slice(x, start=[-1, 0], shape=[2, 2])
def r_names_and_axes(fn, types, x, a, s): return fn.slice(x, start=[1], end=[2], axis_names="C", axes=[0])
def r_start_twice(fn, types, x, a, s): return fn.slice(x, start=[1, 1], rel_start=[0.1, 0.1])
def r_end_and_shape(fn, types, x, a, s): return fn.slice(x, start=[1, 1], end=[2, 2], shape=[1, 1])
def r_nothing(fn, types, x, a, s): return fn.slice(x)
def r_end_before_start(fn, types, x, a, s): return fn.slice(x, start=[3, 2], end=[1, 3])
def r_three_for_two(fn, types, x, a, s): return fn.slice(x, start=[0, 0, 0], end=[1, 1])
def r_fill_count(fn, types, x, a, s): return fn.slice(x, start=[1, 1], end=[3, 3], out_of_bounds_policy="pad", fill_values=[1, 2])
def r_axis_name(fn, types, x, a, s): return fn.slice(x, start=[1], end=[3], axis_names="X")
def r_axis(fn, types, x, a, s): return fn.slice(x, start=[1], end=[3], axes=[3])
def r_dup_axes(fn, types, x, a, s): return fn.slice(x, start=[1, 1], shape=[1, 1], axes=[0, 0])
def r_policy(fn, types, x, a, s): return fn.slice(x, start=[0, 0], end=[1, 1], out_of_bounds_policy="foo")
def r_dtype(fn, types, x, a, s): return fn.slice(x, start=[0, 0], end=[1, 1], dtype=types.INT32)
def r_positional_and_named(fn, types, x, a, s): return fn.slice(x, a, s, start=[1, 1])
def r_anchor_count(fn, types, x, a, s): return fn.slice(x, a, s, axes=[0])
def r_anchor_type(fn, types, x, a, s): return fn.slice(x, a, fn.cast(s, dtype=types.FLOAT))
def r_neg_shape(fn, types, x, a, s): return fn.slice(x, start=[1, 1], shape=[-1, 1])
def r_one_input(fn, types, x, a, s): return fn.slice(x, a)
def r_bool(fn, types, x, a, s): return fn.slice(fn.cast(x, dtype=types.BOOL), start=[1, 1], shape=[1, 1])


REFUSED = [
    (r_oob, "out of bounds with current policy"),
    (r_names_and_axes, "mutually exclusive"),
    (r_start_twice, "mutually exclusive"),
    (r_end_and_shape, "mutually exclusive"),
    (r_nothing, "Expected named slice arguments"),
    (r_end_before_start, "can't be before start"),
    (r_three_for_two, "expected shape 2 but got 3"),
    (r_fill_count, "does not match the number of channels"),
    (r_axis_name, "not present in the input layout"),
    (r_axis, "out of range"),
    (r_dup_axes, "more than once"),
    (r_policy, "Not supported out_of_bounds_policy"),
    (r_dtype, "Not supported output type"),
    (r_positional_and_named, "not compatible with positional"),
    (r_anchor_count, "Expected 1 elements"),
    (r_anchor_type, "should have the same type"),
    (r_neg_shape, "shape value out of range"),
    (r_one_input, "Expected named slice arguments"),
    (r_bool, "Not supported input type"),
]


@pytest.mark.parametrize("graph,message", REFUSED, ids=[g.__name__[2:] for g, _ in REFUSED])
def test_refuses_what_dali_refuses(tmp_path, graph, message):
    inputs = [[np.zeros((4, 5, 3), np.uint8)] * 2, [np.array([1, 1], np.int32)] * 2,
              [np.array([2, 2], np.int32)] * 2]
    layouts = ["HWC", None, None]
    with pytest.raises(AssertionError, match="DALI failed"):
        run_dali(graph, inputs, tmp_path, layouts)
    with pytest.raises(Exception, match=message):
        run_sluice(graph, inputs, layouts)


def gpu_graph(x, device, a, s):
    x = x.gpu() if device == "gpu" else x
    return (fn.slice(x, rel_start=[0.1, 0.2], rel_shape=[0.5, 0.6]),
            fn.slice(x, a, s),
            fn.slice(x, a.gpu() if device == "gpu" else a, s.gpu() if device == "gpu" else s),
            fn.slice(x, start=[-3, -2], shape=[12, 9], out_of_bounds_policy="pad",
                     fill_values=[7, 8, 9]),
            fn.slice(x, start=[-3, -2], shape=[30, 19], out_of_bounds_policy="reflect_101"),
            fn.slice(x, start=[-3, -2], shape=[30, 19], out_of_bounds_policy="wrap",
                     dtype=types_float()),
            fn.slice(x, start=[2, 1], end=[30, 25], out_of_bounds_policy="trim_to_shape"))


def types_float():
    from sluice import types
    return types.FLOAT16


@pytest.mark.gpu
def test_gpu_equals_cpu():
    rng = np.random.default_rng(6)
    data = random_images(rng, n=5)
    anchors = [np.array([1, 2], np.int32)] * 5
    shapes = [np.array([3, 2], np.int32)] * 5

    @pipeline_def(batch_size=5, num_threads=1, device_id=0)
    def p():
        x = fn.external_source(lambda: data, layout="HWC")
        a = fn.external_source(lambda: anchors)
        s = fn.external_source(lambda: shapes)
        return gpu_graph(x, "cpu", a, s) + gpu_graph(x, "gpu", a, s)

    assert_gpu_half_equals_cpu(p().run())
