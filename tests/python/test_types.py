"""sluice.types against DALI 2.4: DALIDataType (members, codes, str), the numpy and framework type
conversions, image and interpolation types, layouts; every data type through external_source,
cast and DLPack; the type forms operators take as `dtype=`."""

import numpy as np
import pytest

from sluice import fn, pipeline_def, types
from api_reference import assert_same, attempt, run_cases, run_dali_cases

NUMERIC = ["UINT8", "UINT16", "UINT32", "UINT64", "INT8", "INT16", "INT32", "INT64", "FLOAT16",
           "FLOAT", "FLOAT64", "BOOL"]


def case_data_types(dali):
    types = dali.sub("types")
    names = ["NO_TYPE", "UINT8", "UINT16", "UINT32", "UINT64", "INT8", "INT16", "INT32", "INT64",
             "FLOAT16", "FLOAT", "FLOAT64", "BOOL", "STRING", "_BOOL_VEC", "_INT32_VEC",
             "_STRING_VEC", "_FLOAT_VEC", "FEATURE", "_FEATURE_VEC", "_FEATURE_DICT", "IMAGE_TYPE",
             "DATA_TYPE", "INTERP_TYPE", "TENSOR_LAYOUT", "PYTHON_OBJECT", "_TENSOR_LAYOUT_VEC",
             "_DATA_TYPE_VEC", "_INT64_VEC"]
    members = {n: getattr(types.DALIDataType, n) for n in names}
    numeric = [n for n in names[1:13]]
    return {
        "members": members, "values": {n: int(m) for n, m in members.items()},
        "module_level": {n: getattr(types, n, None) for n in names if not n.startswith("_")},
        "str": [str(m) for m in members.values()], "repr": repr(types.FLOAT),
        "from_int": types.DALIDataType(9), "equals_int": types.FLOAT == 9,
        "hash": hash(types.UINT64) == hash(3),
        "to_numpy": {n: np.dtype(types.to_numpy_type(getattr(types, n))).name for n in numeric},
        "to_numpy_type_is_a_type": isinstance(types.to_numpy_type(types.FLOAT), type),
        "to_numpy_int": np.dtype(types.to_numpy_type(9)).name,
        "to_numpy_no_type": attempt(lambda: types.to_numpy_type(types.NO_TYPE)),
        "to_numpy_string": attempt(lambda: types.to_numpy_type(types.STRING)),
        "to_numpy_name": attempt(lambda: types.to_numpy_type("FLOAT")),
        "to_dali": [attempt(lambda: types.to_dali_type(x)) for x in (
            "float32", "torch.float32", "torch.int64", "torch.bool", "uint64", "double", "half",
            "f4", "<f4", "ulong", np.float32, np.dtype("float32"), np.uint64, np.bool_, np.int8,
            np.dtype("int16"), np.longlong, float, bool, int, types.FLOAT)],
    }


def case_image_and_interp_types(dali):
    types = dali.sub("types")
    images = ["RGB", "BGR", "GRAY", "YCbCr", "ANY_DATA"]
    interps = ["INTERP_NN", "INTERP_LINEAR", "INTERP_CUBIC", "INTERP_LANCZOS3",
               "INTERP_TRIANGULAR", "INTERP_GAUSSIAN"]
    return {
        "images": {n: getattr(types.DALIImageType, n) for n in images},
        "image_constants": {n: getattr(types, n) for n in images},
        "interps": {n: getattr(types.DALIInterpType, n) for n in interps},
        "interp_constants": {n: getattr(types, n) for n in interps},
        "str": [str(types.RGB), str(types.INTERP_LINEAR), repr(types.GRAY)],
        "from_int": [types.DALIImageType(2), types.DALIInterpType(1)],
    }


def case_layouts_and_constants(dali):
    types = dali.sub("types")
    hwc = types.TensorLayout("HWC")
    return {
        "constants": [types.NCHW, types.NHWC, types.NFCHW, types.NFHWC, types.SAME],
        "layout": [str(hwc), len(hwc), hwc == "HWC", hwc == types.TensorLayout("HWC"),
                   hwc == "CHW", str(types.TensorLayout(""))],
        "layout_repr": repr(hwc).replace(dali.name, "PKG"),
        "cpu_only": types.CPU_ONLY_DEVICE_ID,
        "api_types": [m.name for m in types.PipelineAPIType],
        "stream": types.CUDAStream(5).ptr,
    }


def case_every_type_through_a_pipeline(dali):
    fn, types = dali.fn, dali.sub("types")
    names = ["UINT8", "UINT16", "UINT32", "UINT64", "INT8", "INT16", "INT32", "INT64", "FLOAT16",
             "FLOAT", "FLOAT64", "BOOL"]
    # No .5 ties: DALI's CPU cast rounds them away from zero.
    floats = np.array([-1.4, 0.6, 2.3, 300.7, -7e4, 1e20], np.float64)
    big = np.array([0, 5, 2**63 - 1, 2**63, 2**64 - 1], np.uint64)
    inputs = {n: np.arange(6).astype(types.to_numpy_type(getattr(types, n))) for n in names}

    def const(a):
        return lambda: [a]

    @dali.pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        outs = [fn.external_source(const(a)) for a in inputs.values()]
        f, u = fn.external_source(lambda: [floats]), fn.external_source(lambda: [big])
        outs += [fn.cast(f, dtype=getattr(types, n)) for n in names]
        outs += [fn.cast(u, dtype=getattr(types, n)) for n in names]
        outs.append(fn.external_source(lambda: [big], dtype=types.UINT64))
        return tuple(outs)

    p = pipe()
    p.build()
    outs = p.run()
    result = {"dtypes": [o.dtype for o in outs], "data": [o.at(0) for o in outs]}
    # numpy 1 has no DLPack bool (kDLBool): all other types
    result["dlpack"] = [np.from_dlpack(o.as_tensor()) for o in outs[:len(names) - 1]]
    return result


CASES = [case_data_types, case_image_and_interp_types, case_layouts_and_constants,
         case_every_type_through_a_pipeline]


@pytest.fixture(scope="module")
def dali_results(tmp_path_factory):
    return run_dali_cases(CASES + DIFFERENCES, tmp_path_factory.mktemp("dali_types"))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__[len("case_"):])
def test_matches_dali(case, dali_results):
    assert_same(run_cases([case])[case.__name__], dali_results[case.__name__], case.__name__)


def case_dtype_argument_forms(dali):
    """Type forms other than DALIDataType as `dtype=`: DALI 2.4 refuses them (TypeError from its
    argument conversion); Sluice takes them (COMPATIBILITY.md)."""
    fn, types = dali.fn, dali.sub("types")
    forms = {"np.float32": np.float32, "np.dtype": np.dtype("float32"), "name": "float32",
             "types.FLOAT": types.FLOAT}

    def run(form):
        @dali.pipeline_def(batch_size=1, num_threads=1, device_id=None)
        def pipe():
            return fn.cast(fn.external_source(lambda: [np.array([1, 2], np.uint8)]), dtype=form)

        p = pipe()
        p.build()
        out, = p.run()
        return out.dtype, out.at(0)

    return {k: attempt(lambda f=f: run(f)) for k, f in forms.items()}


DIFFERENCES = [case_dtype_argument_forms]


def test_dtype_argument_forms_differ_from_dali_as_documented(dali_results):
    dali = dali_results["case_dtype_argument_forms"]
    ours = run_cases([case_dtype_argument_forms])["case_dtype_argument_forms"]
    accepted = ours["types.FLOAT"]
    assert dali["types.FLOAT"] == accepted
    for form in ("np.float32", "np.dtype", "name"):
        assert dali[form]["raises"][0] in ("TypeError", "ValueError")  # DALI 2.4 refuses
        assert ours[form] == accepted, form


def test_numpy_and_torch_dtypes_as_operator_arguments():
    torch = pytest.importorskip("torch")
    forms = [np.float32, np.dtype("float32"), torch.float32, types.FLOAT, "float32"]

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(lambda: [np.array([1, 2], np.uint8)] * 2)
        return tuple(fn.cast(x, dtype=f) for f in forms) + (
            fn.cast(x, dtype=np.uint64), fn.cast(x, dtype=torch.int16),
            fn.cast(x, dtype=np.dtype("bool")), fn.external_source(
                lambda: [np.array([7], np.int64)] * 2, dtype=np.int64))

    outs = pipe().run()
    assert [o.dtype for o in outs] == [types.FLOAT] * 5 + [types.UINT64, types.INT16, types.BOOL,
                                                           types.INT64]
    with pytest.raises(TypeError, match="could not be converted"):
        fn.cast(fn.external_source(lambda: [np.zeros(1)]), dtype=np.complex64)


def test_bfloat16_is_sluices_own():
    assert types.BFLOAT16 not in list(types.DALIDataType)[:29] and int(types.BFLOAT16) == 1001
    assert types.to_dali_type("torch.bfloat16") == types.BFLOAT16
    with pytest.raises(KeyError):
        types.to_numpy_type(types.BFLOAT16)
    assert [types.to_numpy_type(getattr(types, n)) for n in NUMERIC][-1] is np.bool_
