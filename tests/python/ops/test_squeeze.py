"""squeeze against NVIDIA DALI 2.4: dimensions of extent 1 removed by index (`axes`, constants only as in DALI; indices
outside the input's dimensions are ignored, as DALI does) or by name (`axis_names`), the layout
without them; the arguments DALI refuses. The GPU operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from sluice import fn, pipeline_def


def squeeze_graph(fn, types, x):
    return (fn.squeeze(x, axes=[0]), fn.squeeze(x, axes=[0, 2]), fn.squeeze(x, axes=[2, 0]),
            fn.squeeze(x, axes=[-1]), fn.squeeze(x, axes=[4]), fn.squeeze(x, axes=[]),
            fn.squeeze(x, axis_names="N"), fn.squeeze(x, axis_names="DN"),
            fn.squeeze(fn.cast(x, dtype=types.FLOAT), axis_names="D"),
            fn.squeeze(x[0, :, 0, 0:1], axes=[1]))


def test_squeeze_equals_dali_and_numpy(tmp_path):
    rng = np.random.default_rng(6)
    x = [rng.integers(0, 255, (1, h, 1, 3)).astype(np.uint8) for h in (2, 5, 1)]
    ours, our_layouts = run_sluice(squeeze_graph, [x], ["NHDW"], with_layouts=True)
    for a, s in zip(ours[1], x):
        np.testing.assert_array_equal(a, s[0, :, 0])
    ref, ref_layouts = run_dali(squeeze_graph, [x], tmp_path, ["NHDW"], with_layouts=True)
    assert our_layouts == ref_layouts
    for k, (o, r) in enumerate(zip(ours, ref)):
        for a, b in zip(o, r):
            assert a.dtype == b.dtype and a.shape == b.shape, f"output {k}"
            np.testing.assert_array_equal(a, b, err_msg=f"output {k}")


def per_sample_graph(fn, types, x, axes):
    return fn.squeeze(x, axes=axes)


def test_per_sample_axes_are_refused_as_by_dali(tmp_path):
    # DALI 2.4's schema lists `axes` as a tensor argument, but the operator refuses one
    # ("Missing argument"); Sluice refuses it when the graph is built.
    x = [np.zeros((1, 4, 1), np.int32)] * 2
    axes = [np.array([0], np.int32)] * 2
    with pytest.raises(AssertionError, match="Missing argument"):
        run_dali(per_sample_graph, [x, axes], tmp_path)
    with pytest.raises(Exception, match="axes"):
        run_sluice(per_sample_graph, [x, axes])


def r_not_one(fn, types, x): return fn.squeeze(x, axes=[1])
def r_twice(fn, types, x): return fn.squeeze(x, axes=[0, 0])
def r_twice_named(fn, types, x): return fn.squeeze(x, axis_names="NN")
def r_unknown_name(fn, types, x): return fn.squeeze(x, axis_names="X")
def r_neither(fn, types, x): return fn.squeeze(x)
def r_both(fn, types, x): return fn.squeeze(x, axes=[0], axis_names="N")


REFUSED = [(r_not_one, "volume of the new shape"), (r_twice, "twice"), (r_twice_named, "twice"),
           (r_unknown_name, "not present"), (r_neither, "Missing argument"),
           (r_both, "Provided both")]


@pytest.mark.parametrize("graph,message", REFUSED, ids=[g.__name__[2:] for g, _ in REFUSED])
def test_refuses_what_dali_refuses(tmp_path, graph, message):
    x = [np.zeros((1, 3, 1, 4), np.uint8)] * 2
    with pytest.raises(AssertionError, match="DALI failed"):
        run_dali(graph, [x], tmp_path, ["NHDW"])
    with pytest.raises(Exception, match=message):
        run_sluice(graph, [x], ["NHDW"])


@pytest.mark.gpu
def test_gpu_equals_cpu():
    rng = np.random.default_rng(7)
    data = [rng.integers(0, 255, (1, int(rng.integers(1, 9)), 1, 3)).astype(np.uint8)
            for _ in range(4)]

    @pipeline_def(batch_size=4, num_threads=1, device_id=0)
    def p():
        x = fn.external_source(lambda: data, layout="NHDW")
        return (fn.squeeze(x, axes=[0, 2]), fn.squeeze(x.gpu(), axes=[0, 2]),
                fn.squeeze(x, axis_names="D"), fn.squeeze(x.gpu(), axis_names="D"))

    outs = p().run()
    for c, g in zip(outs[0::2], outs[1::2]):
        assert c.layout() == g.layout()
        g = g.as_cpu()
        for i in range(4):
            np.testing.assert_array_equal(np.asarray(c.at(i)), np.asarray(g.at(i)))
