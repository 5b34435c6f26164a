"""Feature declarations of ``fn.readers.tfrecord``, as ``nvidia.dali.tfrecord``.

``features={"image/encoded": tfrecord.FixedLenFeature((), tfrecord.string, ""),
"image/class/label": tfrecord.FixedLenFeature([1], tfrecord.int64, -1)}``; the reader returns a
dict of one output per key. Each declaration reaches the engine as a JSON object (the
operator's ``features`` argument, beside ``feature_names``).
"""

import json

int64 = 0
string = 1
float32 = 2
_NAMES = {int64: "int64", string: "string", float32: "float32"}


class Feature:
    """A TFRecord feature: make it with FixedLenFeature or VarLenFeature."""

    def __init__(self, fixed, dtype, default_value, shape=(), partial_shape=()):
        if dtype not in _NAMES or isinstance(dtype, bool):
            raise ValueError("Invalid type for the feature: expected tfrecord.int64, "
                             f"tfrecord.float32 or tfrecord.string, got {dtype!r}")
        expected = {int64: int, float32: float, string: str}[dtype]
        if not isinstance(default_value, expected) or isinstance(default_value, bool):
            raise TypeError(f"Invalid type for default value, expected {expected.__name__}, got "
                            f"{type(default_value).__name__}")
        self.fixed = fixed
        self.dtype = dtype
        self.default_value = default_value
        self.shape = [int(d) for d in shape]
        self.partial_shape = [int(d) for d in partial_shape]

    def _to_json(self):
        return json.dumps({"fixed": self.fixed, "dtype": _NAMES[self.dtype],
                           "shape": self.shape, "partial_shape": self.partial_shape,
                           "default": self.default_value})

    def __repr__(self):
        if self.fixed:
            return f"FixedLenFeature({self.shape}, {_NAMES[self.dtype]}, {self.default_value!r})"
        partial = f"{self.partial_shape}, " if self.partial_shape else ""
        return f"VarLenFeature({partial}{_NAMES[self.dtype]}, {self.default_value!r})"


def FixedLenFeature(shape, dtype, default_value):
    """A feature of a fixed shape (TensorFlow's FixedLenFeature); a string is one value's bytes."""
    return Feature(True, dtype, default_value, shape=shape)


def VarLenFeature(*args):
    """``VarLenFeature(dtype, default_value)`` or ``VarLenFeature(partial_shape, dtype,
    default_value)``: as many values as the record holds, shaped [n] or [n, *partial_shape]."""
    if len(args) == 2:
        return Feature(False, args[0], args[1])
    if len(args) == 3:
        return Feature(False, args[1], args[2], partial_shape=args[0])
    raise TypeError("VarLenFeature(dtype, default_value) or VarLenFeature(partial_shape, dtype, "
                    "default_value)")


def _reader_args(kwargs):
    """Replaces ``features`` (a dict of Feature) by the operator's ``feature_names`` and
    ``features``; returns the names."""
    features = kwargs.pop("features", None)
    if not isinstance(features, dict) or not features:
        raise TypeError("readers.tfrecord: `features` must be a non-empty dict of "
                        "sluice.tfrecord.FixedLenFeature / VarLenFeature")
    for name, f in features.items():
        if not isinstance(f, Feature):
            raise TypeError(f'Expected `sluice.tfrecord.Feature` for the "{name}", but got '
                            f"{type(f)}. Use `sluice.tfrecord.FixedLenFeature` or "
                            "`sluice.tfrecord.VarLenFeature` to define the features to extract.")
    names = list(features)
    kwargs["feature_names"] = names
    kwargs["features"] = [features[n]._to_json() for n in names]
    return names


def _as_dict(names, outputs):
    outputs = outputs if isinstance(outputs, list) else [outputs]
    return dict(zip(names, outputs))


def install(fn_module, ops_module):
    """Makes fn.readers.tfrecord (and its legacy names) take a dict of features and return a
    dict of outputs, as DALI's do."""
    from sluice._ops import make_node

    def tfrecord(*inputs, **kwargs):
        names = _reader_args(kwargs)
        return _as_dict(names, make_node("readers.tfrecord", inputs, kwargs))

    tfrecord.__doc__ = fn_module.readers.tfrecord.__doc__
    fn_module.readers.tfrecord = tfrecord
    fn_module.tfrecord_reader = tfrecord

    base = ops_module.readers.TFRecord

    class TFRecord(base):
        def __init__(self, path=None, index_path=None, features=None, **kwargs):
            kwargs.update(path=path, index_path=index_path)
            self._features = features
            super().__init__(**kwargs)

        def __call__(self, *inputs, **kwargs):
            merged = dict(self._kwargs, features=self._features)
            merged.update(kwargs)
            names = _reader_args(merged)
            return _as_dict(names, make_node("readers.tfrecord", inputs, merged))

    TFRecord.__name__ = TFRecord.__qualname__ = "TFRecord"
    ops_module.readers.TFRecord = TFRecord
    ops_module.TFRecordReader = TFRecord
    if getattr(ops_module, "TFRecord", None) is base:
        ops_module.TFRecord = TFRecord
