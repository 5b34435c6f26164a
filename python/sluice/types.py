"""Data types, image types and interpolation types, with DALI's names.

``DALIDataType`` values are the engine's type codes; module-level constants
(``types.FLOAT16``, ``types.RGB``, ``types.INTERP_LINEAR``) mirror ``nvidia.dali.types``.
"""

import enum


class DALIDataType(enum.IntEnum):
    BOOL = 0
    UINT8 = 1
    INT8 = 2
    UINT16 = 3
    INT16 = 4
    UINT32 = 5
    INT32 = 6
    INT64 = 7
    FLOAT16 = 8
    BFLOAT16 = 9
    FLOAT = 10
    FLOAT64 = 11

    def __str__(self):
        return self.name


class DALIImageType(enum.Enum):
    RGB = "RGB"
    BGR = "BGR"
    GRAY = "GRAY"
    YCbCr = "YCbCr"
    ANY_DATA = "ANY_DATA"

    def __str__(self):
        return self.value


class DALIInterpType(enum.Enum):
    INTERP_NN = "INTERP_NN"
    INTERP_LINEAR = "INTERP_LINEAR"
    INTERP_CUBIC = "INTERP_CUBIC"
    INTERP_LANCZOS3 = "INTERP_LANCZOS3"
    INTERP_TRIANGULAR = "INTERP_TRIANGULAR"
    INTERP_GAUSSIAN = "INTERP_GAUSSIAN"

    def __str__(self):
        return self.value


globals().update({t.name: t for t in DALIDataType})
globals().update({t.name: t for t in DALIImageType})
globals().update({t.name: t for t in DALIInterpType})
DOUBLE = DALIDataType.FLOAT64
FLOAT32 = DALIDataType.FLOAT

_NUMPY_NAMES = {
    DALIDataType.BOOL: "bool",
    DALIDataType.UINT8: "uint8",
    DALIDataType.INT8: "int8",
    DALIDataType.UINT16: "uint16",
    DALIDataType.INT16: "int16",
    DALIDataType.UINT32: "uint32",
    DALIDataType.INT32: "int32",
    DALIDataType.INT64: "int64",
    DALIDataType.FLOAT16: "float16",
    DALIDataType.FLOAT: "float32",
    DALIDataType.FLOAT64: "float64",
}


def to_numpy_type(dtype):
    """The numpy dtype of a DALIDataType (bfloat16 has none)."""
    import numpy as np

    return np.dtype(_NUMPY_NAMES[DALIDataType(dtype)])


def _to_arg(value):
    """Converts an argument value to the JSON form the engine validates."""
    if isinstance(value, enum.Enum):
        return value.name if isinstance(value, DALIDataType) else value.value
    if isinstance(value, (list, tuple)):
        return [_to_arg(v) for v in value]
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):  # numpy values
        return _to_arg(value.tolist())
    return value
