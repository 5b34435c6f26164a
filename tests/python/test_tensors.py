"""TensorCPU / TensorListCPU (sluice.tensors, sluice.backend) against DALI 2.4: construction from
numpy arrays, DLPack capsules and lists, the methods, indexing, str() and repr(), and which inputs
raise. The cases run in both libraries (api_reference.py); torch inputs only here (DALI's venv has
no torch)."""

import subprocess
import sys

import numpy as np
import pytest

import sluice
from sluice import fn, pipeline_def
from sluice.backend import TensorCPU, TensorListCPU
from api_reference import assert_same, attempt, run_cases, run_dali_cases


def case_tensor_from_numpy(dali):
    b = dali.sub("backend")
    a = np.arange(12, dtype=np.int16).reshape(2, 2, 3)
    t = b.TensorCPU(a, "HWC")
    aif = t.__array_interface__
    return {
        "shape": t.shape(), "ndim": t.ndim(), "dtype": t.dtype, "layout": t.layout(),
        "data": np.array(t), "as_cpu": np.array(t.as_cpu()), "source_info": t.source_info(),
        "aif": {k: aif[k] for k in ("typestr", "shape", "version", "strides")},
        "aif_readonly": aif["data"][1], "no_layout": b.TensorCPU(a).layout(),
        "bad_layout": attempt(lambda: b.TensorCPU(a, "HW")),
        "scalar": b.TensorCPU(np.array(5.0)).shape(),
        "empty": np.array(b.TensorCPU(np.zeros((0, 3)))),
        "from_list": attempt(lambda: b.TensorCPU([1, 2, 3])),
        "from_bytes": (b.TensorCPU(b"abc").dtype, np.array(b.TensorCPU(b"abc"))),
        "dlpack": np.array(b.TensorCPU(a.__dlpack__(), "HWC")),
        "dlpack_bad_layout": attempt(lambda: b.TensorCPU(a.__dlpack__(), "HW")),
        "tensor_of_tensor": np.array(b.TensorCPU(b.TensorCPU(a))),
        "from_dlpack": np.from_dlpack(b.TensorCPU(a)),
        "dtypes": [b.TensorCPU(np.zeros(2, d)).dtype for d in (
            np.bool_, np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.uint64,
            np.int64, np.float16, np.float32, np.float64)],
        "typestrs": [b.TensorCPU(np.zeros(2, d)).__array_interface__["typestr"] for d in (
            np.bool_, np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.uint64,
            np.int64, np.float16, np.float32, np.float64)],
        "uint64": np.array(b.TensorCPU(np.array([2**64 - 1, 2**63], np.uint64))),
    }


def case_tensor_methods(dali):
    import ctypes

    b = dali.sub("backend")
    types = dali.sub("types")
    t = b.TensorCPU(np.arange(6, dtype=np.float32).reshape(1, 6, 1))
    s1 = (t.squeeze(0), t.shape())
    s2 = (t.squeeze(-1), t.shape())
    u = b.TensorCPU(np.arange(6, dtype=np.float32).reshape(1, 6, 1))
    s3 = (u.squeeze(), u.shape())
    v = b.TensorCPU(np.zeros((1, 6, 1)), "ABC")
    w = b.TensorCPU(np.zeros((2, 6, 1)), "ABC")
    s4 = (v.squeeze(2), v.layout(), v.squeeze(), v.layout(), w.squeeze(0), w.shape())
    r = b.TensorCPU(np.arange(3, dtype=np.float32))
    r.reinterpret(types.INT32)
    out = np.zeros(3, np.int32)
    r.copy_to_external(ctypes.c_void_p(out.ctypes.data))
    return {
        "squeeze_dim": s1, "squeeze_last": s2, "squeeze_all": s3, "squeeze_layout": s4,
        "squeeze_out_of_range": attempt(lambda: w.squeeze(5)),
        "reinterpret": (r.dtype, np.array(r)), "copied": out,
        "reinterpret_size": attempt(lambda: r.reinterpret(types.INT16)),
        "set_layout": (r.set_layout("X"), r.layout()),
        "set_bad_layout": attempt(lambda: r.set_layout("XY")),
        "set_none": (r.set_layout(None), r.layout()),
        "len": attempt(lambda: len(r)), "index": attempt(lambda: r[0]),
    }


def case_tensor_list_from_numpy(dali):
    b = dali.sub("backend")
    a = np.arange(12, dtype=np.int16).reshape(2, 2, 3)
    u8 = [np.ones((2, 3), np.uint8), np.zeros((1, 3), np.uint8)]
    return {
        "batched": (b.TensorListCPU(a).shape(), b.TensorListCPU(a, "HW").layout()),
        "batched_bad_layout": attempt(lambda: b.TensorListCPU(a, "HWC")),
        "vector": b.TensorListCPU(np.arange(3)).shape(),
        "scalar": attempt(lambda: b.TensorListCPU(np.array(3))),
        "list": (b.TensorListCPU(u8).shape(), b.TensorListCPU(u8, "HW").layout()),
        "list_dtypes": attempt(lambda: b.TensorListCPU([u8[0], np.zeros((1, 3), np.int8)])),
        "list_ints": attempt(lambda: b.TensorListCPU([1, 2])),
        "tensors": b.TensorListCPU([b.TensorCPU(x, "HW") for x in u8]).layout(),
        "tensors_layout": b.TensorListCPU([b.TensorCPU(u8[0], "HW")], "XY").layout(),
        "empty": (len(b.TensorListCPU([])), b.TensorListCPU([]).dtype),
        "dlpack": (b.TensorListCPU(a.__dlpack__()).shape(),
                   b.TensorListCPU(a.__dlpack__(), "HW").layout()),
        "list_dlpack": b.TensorListCPU([x.__dlpack__() for x in a]).shape(),
        "copy": b.TensorListCPU(b.TensorListCPU(a, "HW"), "AB").layout(),
        "copy_keeps_layout": b.TensorListCPU(b.TensorListCPU(a, "HW")).layout(),
        "of_tensor": b.TensorListCPU(b.TensorCPU(a)).shape(),
        "from_dlpack_list": b.TensorListCPU.from_dlpack_list([a[0], a[1]]).shape(),
        "broadcast": b.TensorListCPU.broadcast(b.TensorCPU(a[0], "HW"), 3).shape(),
        "uint64": [np.array(x) for x in b.TensorListCPU([np.array([2**64 - 1], np.uint64)] * 2)],
    }


def case_tensor_list_methods(dali):
    import ctypes

    b = dali.sub("backend")
    a = np.arange(12, dtype=np.int16).reshape(2, 2, 3)
    tl = b.TensorListCPU(a, "HW")
    ragged = b.TensorListCPU([np.ones((2, 3), np.uint8), np.zeros((1, 3), np.uint8)], "HW")
    dst = np.zeros((2, 2, 3), np.int16)
    tl.copy_to_external(ctypes.c_void_p(dst.ctypes.data))
    reset = b.TensorListCPU(a)
    reset.reset()
    return {
        "len": len(tl), "last": np.array(tl[-1]), "first": np.array(tl[-2]),
        "numpy_index": np.array(tl[np.int64(1)]),
        "out_of_range": attempt(lambda: tl[2]), "out_of_range_neg": attempt(lambda: tl[-3]),
        "at": tl.at(1), "at_out_of_range": attempt(lambda: tl.at(2)),
        "sample_type": (type(tl[0]).__name__, tl[0].layout()),
        "iterate": [np.array(x) for x in tl],
        "as_array": tl.as_array(), "as_tensor": (tl.as_tensor().shape(), tl.as_tensor().layout()),
        "reshaped": (tl.as_reshaped_tensor([3, 4]).shape(), tl.as_reshaped_tensor((12,)).layout()),
        "reshaped_volume": attempt(lambda: tl.as_reshaped_tensor([5, 4])),
        "as_cpu_is_self": tl.as_cpu() is tl, "ndim": tl.ndim(), "dense": tl.is_dense_tensor(),
        "numpy": np.array(tl), "dtype": tl.dtype, "copied": dst,
        "ragged": (ragged.is_dense_tensor(), attempt(ragged.as_array), attempt(ragged.as_tensor)),
        "ragged_reshaped": ragged.as_reshaped_tensor([9]).shape(),
        "set_layout": (tl.set_layout("XY"), tl.layout()),
        "set_bad_layout": attempt(lambda: tl.set_layout("X")),
        "reset": (len(reset), reset.dtype),
    }


def case_str_and_repr(dali):
    b = dali.sub("backend")
    tl = b.TensorListCPU(np.arange(12, dtype=np.int16).reshape(2, 2, 3), "HW")
    ragged = b.TensorListCPU([np.ones((2, 3), np.uint8), np.zeros((1, 3), np.uint8)], "HW")
    many = b.TensorListCPU([np.zeros((i + 1,), np.uint8) for i in range(20)])
    wide = b.TensorListCPU([np.zeros((i + 1, 100 + i, 3), np.uint8) for i in range(6)])
    big = b.TensorListCPU(np.arange(7 * 300, dtype=np.int32).reshape(7, 300))
    return {
        "tensor": str(b.TensorCPU(np.arange(12, dtype=np.int16).reshape(2, 2, 3), "HWC")),
        "tensor_repr": repr(b.TensorCPU(np.arange(12, dtype=np.int16).reshape(2, 2, 3))),
        "tensor_float": str(b.TensorCPU(np.array([1.5, 2.0]))),
        "tensor_big": str(b.TensorCPU(np.arange(2000, dtype=np.int32))),
        "tensor_scalar": str(b.TensorCPU(np.array(3, np.int64))),
        "list": str(tl), "list_repr": repr(tl), "ragged": str(ragged), "many": str(many),
        "many_repr": repr(many), "wide": repr(wide), "big": str(big),
        "scalars": str(b.TensorListCPU(np.arange(3, dtype=np.int32))),
        "empty": str(b.TensorListCPU([])),
        "f16": str(b.TensorListCPU(np.ones((2, 2), np.float16))),
        "bool": str(b.TensorListCPU(np.ones((2, 2), np.bool_))),
        "4d": str(b.TensorListCPU(np.zeros((2, 2, 2, 2), np.uint8))),
        "sample": str(tl[1]),
    }


def case_pipeline_outputs(dali):
    @dali.pipeline_def(batch_size=3, num_threads=1, device_id=None)
    def pipe():
        return dali.fn.external_source(
            lambda: [np.full((2, 2), i, np.uint8) for i in range(3)], layout="HW")

    p = pipe()
    p.build()
    out, = p.run()
    return {
        "str": str(out), "repr": repr(out), "last": np.array(out[-1]), "at": out.at(2),
        "iterate": [np.array(x) for x in out], "out_of_range": attempt(lambda: out[3]),
        "as_tensor": (out.as_tensor().shape(), out.as_tensor().layout()),
        "as_cpu_is_self": out.as_cpu() is out, "sample_layout": out[0].layout(),
        "sample_str": str(out[0]), "sample_source": out[0].source_info(),
    }


CASES = [case_tensor_from_numpy, case_tensor_methods, case_tensor_list_from_numpy,
         case_tensor_list_methods, case_str_and_repr, case_pipeline_outputs]


@pytest.fixture(scope="module")
def dali_results(tmp_path_factory):
    return run_dali_cases(CASES, tmp_path_factory.mktemp("dali_tensors"))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__[len("case_"):])
def test_matches_dali(case, dali_results):
    assert_same(run_cases([case])[case.__name__], dali_results[case.__name__], case.__name__)


def _batch(n=3):
    @pipeline_def(batch_size=n, num_threads=1, device_id=None)
    def pipe():
        return fn.external_source(lambda: [np.full((2,), i, np.int32) for i in range(n)])

    out, = pipe().run()
    return out


def test_negative_indices_and_iteration():
    out = _batch()
    assert np.array(out[-1]).tolist() == [2, 2] and np.array(out[-3]).tolist() == [0, 0]
    assert [np.array(s)[0] for s in out] == [0, 1, 2]  # iteration stops at IndexError
    with pytest.raises(IndexError):
        out[3]
    with pytest.raises(IndexError):
        out[-4]
    assert out.at(-1).tolist() == [2, 2]  # DALI refuses at(-1); see COMPATIBILITY.md


def test_str_of_pipeline_output_is_dalis_format():
    text = str(_batch(2))
    assert text == ('TensorListCPU(\n    [[0 0],\n    [1 1]],\n    dtype=DALIDataType.INT32,\n'
                    '    device="cpu",\n    num_samples=2,\n    shape=[(2,), (2,)])')


def test_backend_and_tensors_are_attributes_of_the_package():
    code = ("import sluice; "
            "print(sluice.backend.TensorCPU.__name__, sluice.tensors.TensorListCPU.__name__)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["TensorCPU", "TensorListCPU"]
    assert sluice.tensors.TensorCPU is TensorCPU


def test_constructors_copy_and_keep_their_data_alive():
    a = np.arange(6, dtype=np.float32)
    t = TensorCPU(a)
    a[:] = -1
    assert np.array(t).tolist() == [0, 1, 2, 3, 4, 5]  # a copy (DALI wraps the array)
    view = np.asarray(t)
    del t
    assert view.tolist() == [0, 1, 2, 3, 4, 5]
    strided = np.arange(12, dtype=np.int32).reshape(3, 4)[:, ::2]  # DALI refuses strided data
    assert np.array(TensorCPU(strided)).tolist() == strided.tolist()


def test_complex_and_unknown_inputs_are_refused():
    with pytest.raises(ValueError, match="DLPack data type"):
        TensorCPU(np.zeros(2, np.complex64))  # DALI reads it as FLOAT
    with pytest.raises(TypeError):
        TensorListCPU(object())


def test_torch_tensors_and_capsules():
    torch = pytest.importorskip("torch")
    from torch.utils import dlpack as tdl

    t = torch.arange(6, dtype=torch.int32).reshape(2, 3)
    assert TensorCPU(t).shape() == [2, 3] and TensorCPU(tdl.to_dlpack(t)).shape() == [2, 3]
    assert TensorListCPU(t, "X").shape() == [(3,), (3,)]
    assert TensorListCPU([t[0], t[1]]).shape() == [(3,), (3,)]
    assert TensorListCPU([tdl.to_dlpack(t[0]), tdl.to_dlpack(t[1])]).shape() == [(3,), (3,)]
    assert TensorListCPU.from_dlpack_list([t[0], t[1]], "X").layout() == "X"
    back = torch.from_dlpack(TensorListCPU(t))
    assert back.tolist() == t.tolist() and back.dtype == torch.int32
    assert TensorCPU(torch.tensor([1.5], dtype=torch.bfloat16)).dtype == sluice.types.BFLOAT16
    assert "1.5" in str(TensorCPU(torch.tensor([1.5], dtype=torch.bfloat16)))


@pytest.mark.gpu
def test_gpu_tensors_from_torch_and_pipelines():
    torch = pytest.importorskip("torch")
    from sluice.backend import TensorGPU, TensorListGPU
    from sluice.plugin.pytorch import feed_ndarray

    x = torch.arange(12, dtype=torch.int16, device="cuda").reshape(2, 2, 3)
    t = TensorGPU(x, "HWC")
    assert t.shape() == [2, 2, 3] and t.layout() == "HWC" and t.device_id() == 0
    assert np.array(t.as_cpu()).tolist() == x.cpu().tolist()
    assert t.__cuda_array_interface__["typestr"] == "<i2"
    tl = TensorListGPU([x[0], x[1]], "HW")
    assert tl.shape() == [(2, 3), (2, 3)] and np.array(tl[-1].as_cpu()).tolist() == x[1].tolist()
    assert tl.at(-2).as_cpu().shape() == [2, 3] and tl.as_tensor().layout() == "NHW"
    assert tl.as_reshaped_tensor([12]).shape() == [12]
    assert np.array(tl.as_cpu()).tolist() == x.cpu().tolist()
    assert TensorListGPU(x.__dlpack__()).shape() == [(2, 3), (2, 3)]
    assert len(TensorListGPU()) == 0
    with pytest.raises(IndexError):
        tl[2]
    cpu = TensorListCPU(x.cpu().numpy(), "HW")
    assert str(tl) == str(cpu).replace("TensorListCPU", "TensorListGPU").replace('"cpu"', '"gpu"')
    dst = torch.empty((2, 2, 3), dtype=torch.int16, device="cuda")
    feed_ndarray(tl, dst, cuda_stream=torch.cuda.current_stream())
    assert torch.equal(dst, x)

    @pipeline_def(batch_size=3, num_threads=1, device_id=0)
    def pipe():
        return fn.external_source(lambda: [np.full((2,), i, np.int32) for i in range(3)]).gpu()

    out, = pipe().run()
    assert isinstance(out, TensorListGPU) and [np.array(s.as_cpu())[0] for s in out] == [0, 1, 2]
    assert "TensorListGPU(" in str(out) and 'device="gpu"' in repr(out)
    one = torch.empty((2,), dtype=torch.int32, device="cuda")
    feed_ndarray(out[-1], one, cuda_stream=torch.cuda.current_stream())
    assert one.tolist() == [2, 2]
