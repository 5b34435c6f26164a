"""``python -m sluice.tools.rec2idx FILE.rec FILE.idx`` (or ``sluice rec2idx``): the index of an
MXNet RecordIO file for readers.mxnet, as MXNet's (and DALI's) rec2idx writes it: one line
"key<TAB>offset" per record, keys counting from 0. Needs no MXNet.

A truncated file or a wrong magic number is an error naming the offset, and no index is left
behind (it is written to a temporary file and renamed at the end).
"""

import os
import struct
import sys

from sluice.tools.index_files import index_command, write_index_text

MAGIC = 0xCED7230A


def index_records(f):
    """The offset of every record of the open binary RecordIO file `f` (a record whose writer
    cut it in parts counts once)."""
    f.seek(0, os.SEEK_END)
    end = f.tell()
    out, pos, in_record = [], 0, False
    while pos < end:
        f.seek(pos)
        header = f.read(8)
        if len(header) < 8:
            raise ValueError(f"truncated part header at offset {pos}")
        magic, lrec = struct.unpack("<II", header)
        if magic != MAGIC:
            raise ValueError(f"wrong magic number at offset {pos}: not a RecordIO file")
        cflag, length = lrec >> 29, lrec & ((1 << 29) - 1)
        if cflag in (0, 1):
            if in_record:
                raise ValueError(f"the record before offset {pos} has no last part")
            out.append(pos)
        elif not in_record:
            raise ValueError(f"a continuation part at offset {pos} without its first part")
        in_record = cflag in (1, 2)
        if pos + 8 + length > end:
            raise ValueError(f"the part at offset {pos} runs past the end of the file: truncated")
        pos += 8 + length + (-length % 4)
    if in_record:
        raise ValueError("the last record has no last part: truncated")
    return out


def write_index(record, index):
    with open(record, "rb") as f:
        offsets = index_records(f)
    write_index_text(index, "".join(f"{k}\t{o}\n" for k, o in enumerate(offsets)))
    return len(offsets)


add_parser, main = index_command(
    "rec2idx", write_index, "record", "the .rec file", "the .idx file to write",
    help="write the index of an MXNet RecordIO file", description=__doc__.split("\n\n")[0])


if __name__ == "__main__":
    sys.exit(main())
