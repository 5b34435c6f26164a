"""per_frame against NVIDIA DALI 2.4: the data unchanged, the layout 'F' followed by '*' without
one, kept when it starts with 'F', its first character replaced with `replace`; the inputs DALI
refuses. The GPU operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from sluice import fn, pipeline_def


def per_frame_graph(fn, types, seq, plain, vec):
    return (fn.per_frame(seq), fn.per_frame(plain), fn.per_frame(plain, replace=True),
            fn.per_frame(seq, replace=True), fn.per_frame(vec),
            fn.per_frame(fn.reshape(seq, layout="HWC"), replace=True))


def test_per_frame_equals_dali(tmp_path):
    rng = np.random.default_rng(6)
    seq = [rng.integers(0, 255, (int(rng.integers(1, 5)), 2, 3)).astype(np.uint8) for _ in range(3)]
    plain = [rng.random((2, int(rng.integers(0, 4)), 2, 1)).astype(np.float32) for _ in range(3)]
    vec = [rng.integers(0, 9, (int(rng.integers(1, 5)),)).astype(np.int32) for _ in range(3)]
    inputs, layouts = [seq, plain, vec], ["FHW", None, None]
    ours, our_layouts = run_sluice(per_frame_graph, inputs, layouts, with_layouts=True)
    ref, ref_layouts = run_dali(per_frame_graph, inputs, tmp_path, layouts, with_layouts=True)
    assert our_layouts == ref_layouts == ["FHW", "F***", "F***", "FHW", "F", "FWC"]
    for k, (o, r) in enumerate(zip(ours, ref)):
        for a, b in zip(o, r):
            assert a.dtype == b.dtype and a.shape == b.shape, f"output {k}"
            np.testing.assert_array_equal(a, b, err_msg=f"output {k}")
    for a, x in zip(ours[1], plain):
        np.testing.assert_array_equal(a, x)


def r_layout(fn, types, x): return fn.per_frame(fn.reshape(x, layout="HWC"))
def r_scalar(fn, types, x): return fn.per_frame(x[0, 0, 0])


REFUSED = [(r_layout, "should start with 'F'"), (r_scalar, "zero-dimensional")]


@pytest.mark.parametrize("graph,message", REFUSED, ids=[g.__name__[2:] for g, _ in REFUSED])
def test_refuses_what_dali_refuses(tmp_path, graph, message):
    inputs = [[np.zeros((3, 2, 1), np.uint8)] * 2]
    with pytest.raises(AssertionError, match="DALI failed"):
        run_dali(graph, inputs, tmp_path, ["FHW"])
    with pytest.raises(Exception, match=message):
        run_sluice(graph, inputs, ["FHW"])


@pytest.mark.gpu
def test_gpu_equals_cpu():
    rng = np.random.default_rng(9)
    data = [rng.integers(0, 255, (int(rng.integers(1, 9)), 6, 3)).astype(np.uint8) for _ in range(4)]

    @pipeline_def(batch_size=4, num_threads=1, device_id=0)
    def p():
        x = fn.external_source(lambda: data)
        return (fn.per_frame(x), fn.per_frame(x.gpu()), fn.per_frame(fn.reshape(x.gpu(), layout="HWC"),
                                                                        replace=True))

    cpu, gpu, replaced = p().run()
    assert cpu.layout() == gpu.layout() == "F**" and replaced.layout() == "FWC"
    for g in (gpu, replaced):
        assert type(g).__name__ == "TensorListGPU"
        g = g.as_cpu()
        for i in range(4):
            np.testing.assert_array_equal(np.asarray(g.at(i)), data[i])
