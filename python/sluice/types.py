"""Data types, image types, interpolation types and layouts, with DALI's names and values.

``DALIDataType`` has DALI's members and codes (``int(types.FLOAT) == 9``); module-level constants
(``types.FLOAT16``, ``types.UINT64``, ``types.RGB``, ``types.INTERP_LINEAR``, ``types.NCHW``)
mirror ``nvidia.dali.types``. BFLOAT16 is Sluice's own (DALI 2.4 has none).
"""

import enum

# --- data types, image and interpolation types, layouts ---------------------------------------


class DALIDataType(enum.IntEnum):
    NO_TYPE = -1
    UINT8 = 0
    UINT16 = 1
    UINT32 = 2
    UINT64 = 3
    INT8 = 4
    INT16 = 5
    INT32 = 6
    INT64 = 7
    FLOAT16 = 8
    FLOAT = 9
    FLOAT64 = 10
    BOOL = 11
    STRING = 12
    _BOOL_VEC = 13
    _INT32_VEC = 14
    _STRING_VEC = 15
    _FLOAT_VEC = 16
    FEATURE = 17
    _FEATURE_VEC = 18
    _FEATURE_DICT = 19
    IMAGE_TYPE = 20
    DATA_TYPE = 21
    INTERP_TYPE = 22
    TENSOR_LAYOUT = 23
    PYTHON_OBJECT = 24
    _TENSOR_LAYOUT_VEC = 25
    _DATA_TYPE_VEC = 26
    _INT64_VEC = 27
    BFLOAT16 = 1001  # DALI's first code for types outside its built-in set

    def __str__(self):
        return f"DALIDataType.{self.name}"


class DALIImageType(enum.IntEnum):
    RGB = 0
    BGR = 1
    GRAY = 2
    YCbCr = 3
    ANY_DATA = 4

    def __str__(self):
        return f"DALIImageType.{self.name}"


class DALIInterpType(enum.IntEnum):
    INTERP_NN = 0
    INTERP_LINEAR = 1
    INTERP_CUBIC = 2
    INTERP_LANCZOS3 = 3
    INTERP_TRIANGULAR = 4
    INTERP_GAUSSIAN = 5

    def __str__(self):
        return f"DALIInterpType.{self.name}"


globals().update({t.name: t for t in DALIDataType if not t.name.startswith("_")})
globals().update({t.name: t for t in DALIImageType})
globals().update({t.name: t for t in DALIInterpType})
DOUBLE = DALIDataType.FLOAT64  # Sluice's spellings
FLOAT32 = DALIDataType.FLOAT


class TensorLayout(str):
    """A layout such as "HWC" (DALI's ``types.TensorLayout``); usable wherever a string is."""

    def __repr__(self):
        return f"nvidia.dali.types.TensorLayout('{self}')".replace("nvidia.dali", __package__)


# The layout constants of DALI: the per-sample layout of batches of images and videos.
NCHW = "CHW"
NHWC = "HWC"
NFCHW = "FCHW"
NFHWC = "FHWC"
SAME = ""

CPU_ONLY_DEVICE_ID = -99999  # DALI's device_id for pipelines without a GPU


@enum.unique
class PipelineAPIType(enum.Enum):
    """How a pipeline is driven: run() (BASIC), an iterator (ITERATOR) or schedule_run()."""

    BASIC = 0
    ITERATOR = 1
    SCHEDULED = 2


class CUDAStream:
    """A raw CUDA stream pointer (DALI's wrapper)."""

    def __init__(self, ptr=0):
        self._ptr = ptr

    @property
    def ptr(self):
        return self._ptr


_NUMPY_NAMES = {
    DALIDataType.BOOL: "bool_",
    DALIDataType.UINT8: "uint8",
    DALIDataType.UINT16: "uint16",
    DALIDataType.UINT32: "uint32",
    DALIDataType.UINT64: "uint64",
    DALIDataType.INT8: "int8",
    DALIDataType.INT16: "int16",
    DALIDataType.INT32: "int32",
    DALIDataType.INT64: "int64",
    DALIDataType.FLOAT16: "float16",
    DALIDataType.FLOAT: "float32",
    DALIDataType.FLOAT64: "float64",
}


def to_numpy_type(dali_type):
    """The numpy scalar type of a DALIDataType (np.float32 for FLOAT); KeyError for types numpy
    has no equivalent of (BFLOAT16, STRING, ...), as in DALI."""
    import numpy as np

    if dali_type not in _NUMPY_NAMES:
        raise KeyError(dali_type)
    return getattr(np, _NUMPY_NAMES[DALIDataType(dali_type)])


# The type names numpy and torch use (str(torch.float32) is "torch.float32").
_TYPE_NAMES = {
    **dict.fromkeys(["bool", "bool_", "boolean"], DALIDataType.BOOL),
    **dict.fromkeys(["int8", "sbyte"], DALIDataType.INT8),
    **dict.fromkeys(["uint8", "byte", "ubyte"], DALIDataType.UINT8),
    **dict.fromkeys(["int16", "short"], DALIDataType.INT16),
    **dict.fromkeys(["uint16", "ushort"], DALIDataType.UINT16),
    "int32": DALIDataType.INT32,
    "uint32": DALIDataType.UINT32,
    **dict.fromkeys(["int64", "long"], DALIDataType.INT64),
    **dict.fromkeys(["uint64", "ulong"], DALIDataType.UINT64),
    **dict.fromkeys(["half", "float16"], DALIDataType.FLOAT16),
    **dict.fromkeys(["float", "float32"], DALIDataType.FLOAT),
    **dict.fromkeys(["float64", "double"], DALIDataType.FLOAT64),
}


def to_dali_type(framework_type):
    """The DALIDataType of a numpy type or dtype, a torch dtype or a type name ("float32").
    Python's float is FLOAT; int has no fixed width and is refused, as in DALI."""
    name = framework_type.__qualname__ if isinstance(framework_type, type) else str(framework_type)
    if name.startswith("torch."):
        name = name[len("torch."):]
    if name == "bfloat16":  # torch.bfloat16; DALI 2.4 has no such type
        return DALIDataType.BFLOAT16
    if name not in _TYPE_NAMES:
        raise TypeError(f"'{framework_type}' could not be converted into any known DALIDataType.")
    return _TYPE_NAMES[name]


def _is_framework_dtype(value):
    """A numpy type or dtype, or a torch dtype: what `dtype=` may be given besides DALIDataType."""
    import numpy as np

    if isinstance(value, type):
        return issubclass(value, np.generic)
    return isinstance(value, np.dtype) or (
        type(value).__module__ == "torch" and type(value).__name__ == "dtype")


def _to_arg(value):
    """Converts an argument value to the JSON form the engine validates."""
    if isinstance(value, (DALIDataType, DALIImageType, DALIInterpType)):
        return value.name
    if isinstance(value, enum.Enum):
        return value.value
    if _is_framework_dtype(value):  # np.float32, np.dtype("float32"), torch.float32
        return to_dali_type(value).name
    if isinstance(value, (list, tuple)):
        return [_to_arg(v) for v in value]
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):  # numpy values
        return _to_arg(value.tolist())
    return value
