"""Small writers of TFRecord (tf.train.Example) and MXNet RecordIO files for the reader tests,
without TensorFlow or MXNet."""

import struct


def _crc_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
        table.append(c)
    return table


_TABLE = _crc_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = (c >> 8) ^ _TABLE[(c ^ b) & 0xFF]
    return c ^ 0xFFFFFFFF


def masked_crc32c(data):
    c = crc32c(data)
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def _varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _field(num, payload):
    return _varint(num << 3 | 2) + _varint(len(payload)) + payload


class Floats(list):
    """A FloatList even when empty (an empty plain list is an Int64List)."""


def _feature(value):
    """bytes / str / list of bytes -> BytesList; Floats or a list of float -> FloatList; int /
    list of int -> Int64List (packed)."""
    if isinstance(value, (bytes, str)):
        value = [value]
    if isinstance(value, int):
        value = [value]
    if value and isinstance(value[0], (bytes, str)):
        vals = [v.encode() if isinstance(v, str) else v for v in value]
        return _field(1, b"".join(_field(1, v) for v in vals))
    if isinstance(value, Floats) or (value and isinstance(value[0], float)):
        return _field(2, _field(1, struct.pack(f"<{len(value)}f", *value)))
    return _field(3, _field(1, b"".join(_varint(v) for v in value)))


def example(features):
    """The serialized tf.train.Example of a dict name -> value."""
    entries = b"".join(_field(1, _field(1, k.encode()) + _field(2, _feature(v)))
                       for k, v in features.items())
    return _field(1, entries)


def tfrecord(payload):
    n = struct.pack("<Q", len(payload))
    return (n + struct.pack("<I", masked_crc32c(n)) + payload +
            struct.pack("<I", masked_crc32c(payload)))


def write_tfrecord(path, examples):
    """Writes the examples (dicts) to `path`; returns the (offset, size) of each record."""
    spans = []
    with open(path, "wb") as f:
        for ex in examples:
            rec = tfrecord(example(ex))
            spans.append((f.tell(), len(rec)))
            f.write(rec)
    return spans


# --- MXNet RecordIO (dmlc-core's recordio.h, MXNet's IRHeader) -------------------------------

RECORDIO_MAGIC = 0xCED7230A


def _recordio_parts(payload):
    """The (cflag, bytes) parts dmlc's RecordIOWriter makes: the payload is cut where the magic
    number appears at a 4-byte aligned position (the magic itself is dropped)."""
    magic = struct.pack("<I", RECORDIO_MAGIC)
    parts, start = [], 0
    for i in range(0, len(payload) - len(payload) % 4, 4):
        if payload[i:i + 4] == magic:
            parts.append(payload[start:i])
            start = i + 4
    parts.append(payload[start:])
    if len(parts) == 1:
        return [(0, parts[0])]
    return [(1 if k == 0 else 3 if k == len(parts) - 1 else 2, p) for k, p in enumerate(parts)]


def recordio_record(payload):
    out = b""
    for cflag, part in _recordio_parts(payload):
        out += struct.pack("<II", RECORDIO_MAGIC, (cflag << 29) | len(part)) + part
        out += b"\0" * (-len(part) % 4)
    return out


def irheader(label, record_id, data):
    """MXNet's pack(): flag 0 and a scalar label, or flag = len(labels) and the labels in front
    of the data."""
    if isinstance(label, (list, tuple)):
        return (struct.pack("<IfQQ", len(label), 0.0, record_id, 0) +
                struct.pack(f"<{len(label)}f", *label) + data)
    return struct.pack("<IfQQ", 0, float(label), record_id, 0) + data


def write_recordio(path, idx_path, items, start_offset=0):
    """Writes (label, data) items as IRHeader records to `path` and MXNet's index (lines
    "key\\toffset") to `idx_path` (offsets shifted by `start_offset`, for a second file of one
    index)."""
    lines = []
    with open(path, "wb") as f:
        for k, (label, data) in enumerate(items):
            lines.append(f"{k}\t{start_offset + f.tell()}\n")
            f.write(recordio_record(irheader(label, k, data)))
    if idx_path is not None:
        with open(idx_path, "w") as f:
            f.writelines(lines)
    return lines
