"""Caffe / Caffe2 LMDB databases for the reader tests, made with the system's liblmdb (through
ctypes: the same library Sluice links, no extra package) and records encoded here in protobuf's
wire format (caffe.Datum, caffe2.TensorProtos)."""

import ctypes
import ctypes.util
import os
import struct


def _lib():
    name = ctypes.util.find_library("lmdb") or "liblmdb.so.0"
    try:
        lib = ctypes.CDLL(name)
    except OSError:
        return None
    vp, sz = ctypes.c_void_p, ctypes.c_size_t
    lib.mdb_env_create.argtypes = [ctypes.POINTER(vp)]
    lib.mdb_env_set_mapsize.argtypes = [vp, sz]
    lib.mdb_env_open.argtypes = [vp, ctypes.c_char_p, ctypes.c_uint, ctypes.c_int]
    lib.mdb_txn_begin.argtypes = [vp, vp, ctypes.c_uint, ctypes.POINTER(vp)]
    lib.mdb_dbi_open.argtypes = [vp, ctypes.c_char_p, ctypes.c_uint, ctypes.POINTER(ctypes.c_uint)]
    lib.mdb_put.argtypes = [vp, ctypes.c_uint, ctypes.POINTER(_Val), ctypes.POINTER(_Val),
                            ctypes.c_uint]
    lib.mdb_txn_commit.argtypes = [vp]
    lib.mdb_env_close.argtypes = [vp]
    return lib


class _Val(ctypes.Structure):
    _fields_ = [("mv_size", ctypes.c_size_t), ("mv_data", ctypes.c_void_p)]


LIB = _lib()


def write_lmdb(path, records):
    """A database folder `path` holding `records` [(key bytes, value bytes)]."""
    assert LIB is not None, "liblmdb not found"
    os.makedirs(path, exist_ok=True)
    env, txn, dbi = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_uint()

    def ok(rc):
        assert rc == 0, f"LMDB error {rc}"

    ok(LIB.mdb_env_create(ctypes.byref(env)))
    try:
        ok(LIB.mdb_env_set_mapsize(env, 1 << 28))
        ok(LIB.mdb_env_open(env, str(path).encode(), 0, 0o664))
        ok(LIB.mdb_txn_begin(env, None, 0, ctypes.byref(txn)))
        ok(LIB.mdb_dbi_open(txn, None, 0, ctypes.byref(dbi)))
        for k, v in records:
            kb, vb = ctypes.create_string_buffer(k, len(k)), ctypes.create_string_buffer(v, len(v))
            key = _Val(len(k), ctypes.cast(kb, ctypes.c_void_p))
            val = _Val(len(v), ctypes.cast(vb, ctypes.c_void_p))
            ok(LIB.mdb_put(txn, dbi, ctypes.byref(key), ctypes.byref(val), 0))
        ok(LIB.mdb_txn_commit(txn))
    finally:
        LIB.mdb_env_close(env)
    return str(path)


# --- protobuf wire format -----------------------------------------------------------------------


def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(num, wire_type, payload):
    return varint(num << 3 | wire_type) + payload


def vint(num, value):
    return field(num, 0, varint(value))


def blob(num, data):
    return field(num, 2, varint(len(data)) + data)


def packed_varints(num, values):
    return blob(num, b"".join(varint(v) for v in values))


def packed_floats(num, values):
    return blob(num, struct.pack(f"<{len(values)}f", *values))


def datum(data=None, label=None, encoded=None, shape=None, float_data=()):
    """caffe.Datum; `shape` = (channels, height, width)."""
    out = b""
    if shape is not None:
        out += vint(1, shape[0]) + vint(2, shape[1]) + vint(3, shape[2])
    if data is not None:
        out += blob(4, data)
    if label is not None:
        out += vint(5, label)
    if float_data:
        out += b"".join(field(6, 5, struct.pack("<f", f)) for f in float_data)  # unpacked
    if encoded is not None:
        out += vint(7, int(encoded))
    return out


FLOAT, INT32, BYTE, STRING, INT64 = 1, 2, 3, 4, 10


def tensor(data_type, dims=(), float_data=(), int32_data=(), int64_data=(), byte_data=None,
           string_data=()):
    """caffe2.TensorProto."""
    out = b"".join(vint(1, d) for d in dims) + vint(2, data_type)
    if float_data:
        out += packed_floats(3, float_data)
    if int32_data:
        out += packed_varints(4, int32_data)
    if byte_data is not None:
        out += blob(5, byte_data)
    out += b"".join(blob(6, s) for s in string_data)
    if int64_data:
        out += packed_varints(10, int64_data)
    return out


def protos(*tensors):
    """caffe2.TensorProtos."""
    return b"".join(blob(1, t) for t in tensors)
