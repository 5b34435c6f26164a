"""cast_like against NVIDIA DALI 2.4 and Sluice's cast: the first input converted to the second's
type (values away from rounding ties: cast's ties go to even, DALI's away from zero), layouts
kept; the GPU operator against the CPU one."""

import numpy as np
import pytest

from dali_reference import run_dali, run_sluice
from sluice import fn, pipeline_def, types


def cast_like_graph(fn, types, x, u8, f16, i32, flags):
    return (fn.cast_like(x, u8), fn.cast_like(x, f16), fn.cast_like(x, i32),
            fn.cast_like(x, flags), fn.cast_like(i32, x))


def test_cast_like_equals_dali(tmp_path):
    rng = np.random.default_rng(41)
    x = [rng.uniform(-300, 300, int(rng.integers(0, 20))).astype(np.float32) for _ in range(4)]
    x = [np.where(np.abs(v - np.round(v)) == 0.5, v + 0.25, v).astype(np.float32) for v in x]
    like = [[np.zeros(2, t)] * 4 for t in (np.uint8, np.float16, np.int32, np.bool_)]
    inputs, layouts = [x, *like], ["X", None, None, None, None]
    ours, ol = run_sluice(cast_like_graph, inputs, layouts, with_layouts=True)
    ref, rl = run_dali(cast_like_graph, inputs, tmp_path, layouts, with_layouts=True)
    assert ol == rl
    for k, (o, r) in enumerate(zip(ours, ref)):
        for a, b in zip(o, r):
            assert a.dtype == b.dtype and a.shape == b.shape, f"output {k}"
            np.testing.assert_array_equal(a, b, err_msg=f"output {k}")


def test_cast_like_is_cast():
    x = [np.array([0.5, 2.5, -1.5, 1e10], np.float32)]

    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def p():
        v = fn.external_source(lambda: x)
        like = fn.external_source(lambda: [np.zeros(1, np.int16)])
        return fn.cast_like(v, like), fn.cast(v, dtype=types.INT16)

    a, b = p().run()
    np.testing.assert_array_equal(a.at(0), b.at(0))


@pytest.mark.gpu
def test_gpu_equals_cpu():
    rng = np.random.default_rng(42)
    data = [rng.uniform(-300, 300, (int(rng.integers(0, 50)), 3)).astype(np.float32)
            for _ in range(5)]
    outs = {}
    for device in ("cpu", "gpu"):
        @pipeline_def(batch_size=len(data), num_threads=2, device_id=0)
        def p():
            x = fn.external_source(lambda: data, layout="HW")
            like = fn.external_source(lambda: [np.zeros(1, np.uint8)] * len(data))
            if device == "gpu":
                x, like = x.gpu(), like.gpu()
            return fn.cast_like(x, like)

        outs[device] = [o.as_cpu() if device == "gpu" else o for o in p().run()]
    for c, g in zip(outs["cpu"], outs["gpu"]):
        assert c.layout() == g.layout() == "HW"
        for i in range(len(data)):
            np.testing.assert_array_equal(np.asarray(c.at(i)), np.asarray(g.at(i)))
