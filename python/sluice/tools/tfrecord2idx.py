"""``python -m sluice.tools.tfrecord2idx FILE INDEX`` (or ``sluice tfrecord2idx``): the index of a
TFRecord file for readers.tfrecord, in DALI's format: one line "offset size" per record.

Unlike DALI's script, a truncated or misframed file is an error naming the offset, and no
index is left behind (it is written to a temporary file and renamed at the end).
"""

import os
import struct
import sys

from sluice.tools.index_files import index_command, write_index_text


def index_records(f):
    """(offset, size) of every record of the open binary file `f`."""
    out = []
    f.seek(0, os.SEEK_END)
    end = f.tell()
    pos = 0
    while pos < end:
        f.seek(pos)
        header = f.read(8)
        if len(header) < 8 or end - pos < 16:
            raise ValueError(f"truncated record header at offset {pos}")
        (length,) = struct.unpack("<Q", header)
        size = length + 16
        if size > end - pos:
            raise ValueError(f"the record at offset {pos} ({size} bytes) runs past the end of the "
                             f"file ({end - pos} bytes left): truncated or not a TFRecord file")
        out.append((pos, size))
        pos += size
    return out


def write_index(tfrecord, index):
    with open(tfrecord, "rb") as f:
        records = index_records(f)
    write_index_text(index, "".join(f"{o} {s}\n" for o, s in records))
    return len(records)


add_parser, main = index_command(
    "tfrecord2idx", write_index, "tfrecord", "the TFRecord file", "the index file to write",
    help="write the index of a TFRecord file", description=__doc__.split("\n\n")[0])


if __name__ == "__main__":
    sys.exit(main())
