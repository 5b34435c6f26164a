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


# --- Constants in DataNode expressions: ScalarConstant, Constant -------------------------------

_bool_types = [DALIDataType.BOOL]
_int_types = [DALIDataType[n] for n in ("INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16",
                                        "UINT32", "UINT64")]
_float_types = [DALIDataType[n] for n in ("FLOAT16", "BFLOAT16", "FLOAT", "FLOAT64")]
_int_like_types = _bool_types + _int_types


class ScalarConstant:
    """A scalar with a type for DataNode expressions (``types.Constant(3, types.UINT8)``).

    Its type takes part in type promotion as a tensor's would: Python ``bool``, ``int`` and
    ``float`` are BOOL, INT32 and FLOAT. Integers must fit the type; floating values reach the
    operator as float32, as in DALI. Create it with :func:`Constant`.
    """

    def __init__(self, value, dtype=None):
        self.shape = []
        value_dtype = getattr(value, "dtype", None)  # numpy scalars and 0-D arrays
        if value_dtype is not None:
            t = to_dali_type(value_dtype)
            value = value.item()
            value = bool(value) if t in _bool_types else int(value) if t in _int_types else \
                float(value)
            if dtype is None:
                dtype = t
        if not isinstance(value, (bool, int, float)):
            raise TypeError(
                f"Expected scalar value of type 'bool', 'int' or 'float', got {type(value)}.")
        if dtype is not None:
            self.dtype = DALIDataType(dtype)
            if self.dtype in _bool_types:
                self.value = bool(value)
            elif self.dtype in _int_types:
                self.value = int(value)
            elif self.dtype in _float_types:
                self.value = float(value)
            else:
                raise TypeError(f"ScalarConstant can only hold one of: "
                                f"{_bool_types + _int_types + _float_types} types.")
        elif isinstance(value, bool):
            self.value, self.dtype = value, DALIDataType.BOOL
        elif isinstance(value, int):
            self.value, self.dtype = value, DALIDataType.INT32
        else:
            self.value, self.dtype = value, DALIDataType.FLOAT

    def _as(self, name):
        return ScalarConstant(self.value, getattr(DALIDataType, name))

    def tolist(self):
        """The value: operator arguments take a ScalarConstant as its value, as in DALI."""
        return self.value

    def bool(self):
        return self._as("BOOL")

    def int8(self):
        return self._as("INT8")

    def int16(self):
        return self._as("INT16")

    def int32(self):
        return self._as("INT32")

    def int64(self):
        return self._as("INT64")

    def uint8(self):
        return self._as("UINT8")

    def uint16(self):
        return self._as("UINT16")

    def uint32(self):
        return self._as("UINT32")

    def uint64(self):
        return self._as("UINT64")

    def float16(self):
        return self._as("FLOAT16")

    def float32(self):
        return self._as("FLOAT")

    def float64(self):
        return self._as("FLOAT64")

    def __eq__(self, other):
        if isinstance(other, ScalarConstant):
            return self.value == other.value and self.dtype == other.dtype
        return other.__eq__(self)  # most likely a DataNode: builds the comparison

    def __ne__(self, other):
        if isinstance(other, ScalarConstant):
            return self.value != other.value or self.dtype != other.dtype
        return other.__ne__(self)

    __hash__ = None

    def __bool__(self):
        if self.dtype in _int_like_types:
            return bool(self.value)
        raise TypeError("ScalarConstant must be converted to one of bool or int types "
                        f"({_int_like_types}) explicitly before casting to builtin `bool`.")

    def __int__(self):
        if self.dtype in _int_like_types:
            return int(self.value)
        raise TypeError("ScalarConstant must be converted to one of bool or int types "
                        f"({_int_like_types}) explicitly before casting to builtin `int`.")

    def __float__(self):
        if self.dtype in _float_types:
            return self.value
        raise TypeError("ScalarConstant must be converted to one of the float types "
                        f"({_float_types}) explicitly before casting to builtin `float`.")

    def __str__(self):
        return f"{self.value}:{self.dtype}"

    def __repr__(self):
        return f"{self.value}"


def _is_array(value):
    t = str(type(value))
    return "numpy" in t or "torch.Tensor" in t


def _constant_node(device, value, dtype, shape, layout, **kwargs):
    """A ``constant`` operator producing `value` in every sample."""
    from sluice import fn

    if _is_array(value):
        import numpy as np

        value = value.cpu().numpy() if hasattr(value, "cpu") else np.asarray(value)
        if value.dtype == np.float64:  # double precision arrays travel as float32, as in DALI
            value = value.astype(np.float32)
        elif dtype is None and value.dtype in (np.int64, np.uint64):
            limits = np.iinfo(np.int32 if value.dtype == np.int64 else np.uint32)
            if value.size and (value.min() < limits.min or value.max() > limits.max):
                bad = value.min() if value.min() < limits.min else value.max()
                raise OverflowError(f"Integer {bad} out of range for {limits.dtype}")
            value = value.astype(limits.dtype)
        actual = to_dali_type(value.dtype)
        shape = list(value.shape) if shape is None else list(shape)
        data = value.reshape(-1).tolist()
    else:
        seq = isinstance(value, (list, tuple))
        if shape is None:
            shape = [len(value)] if seq else []
        items = list(value) if seq else [value]
        for x in items:
            if isinstance(x, enum.Enum):
                raise NotImplementedError("types.Constant of enum values (DALIDataType, "
                                          "DALIImageType, DALIInterpType) is not supported")
            if not isinstance(x, (bool, int, float)):
                raise TypeError("Unexpected type: " + str(type(x)))
        actual = (DALIDataType.FLOAT if any(type(x) is float for x in items) or not items
                  else DALIDataType.INT32 if any(type(x) is int for x in items)
                  else DALIDataType.BOOL)
        data = items
    if dtype is None:
        dtype = actual
    if actual in _int_like_types:
        values = {"idata": [int(x) for x in data]}
    else:
        values = {"fdata": [float(x) for x in data]}
    return fn.constant(device=device or "cpu", shape=shape, dtype=dtype, layout=layout,
                       **values, **kwargs)


def Constant(value, dtype=None, shape=None, layout=None, device=None, **kwargs):  # noqa: N802
    """Wraps a constant for DataNode expressions and pipeline graphs (DALI's types.Constant).

    A scalar without `shape`, `layout`, `device` or other arguments gives a
    :class:`ScalarConstant`, which takes part in expressions by value. Anything else (arrays,
    lists, a shape to fill) gives the output of a ``constant`` operator: the same tensor in
    every sample. float64 arrays become float32 and int64 arrays int32 (unless `dtype` says
    otherwise), as in DALI.
    """
    def is_scalar_shape(s):
        return s is None or s in ((), [], 1, [1], (1,))

    true_scalar = len(getattr(value, "shape", ())) == 0
    if (device is not None or (_is_array(value) and not true_scalar)
            or isinstance(value, (list, tuple, enum.Enum)) or not is_scalar_shape(shape)
            or kwargs or layout is not None):
        return _constant_node(device, value, dtype, shape, layout, **kwargs)
    return ScalarConstant(value, dtype)
