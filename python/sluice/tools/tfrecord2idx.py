"""``python -m sluice.tools.tfrecord2idx FILE INDEX`` (or ``sluice tfrecord2idx``): the index of a
TFRecord file for readers.tfrecord, in DALI's format: one line "offset size" per record.

Unlike DALI's script, a truncated or misframed file is an error naming the offset, and no
index is left behind (it is written to a temporary file and renamed at the end).
"""

import os
import struct
import sys


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
    tmp = f"{index}.tmp{os.getpid()}"
    with open(tmp, "w") as out:
        out.writelines(f"{o} {s}\n" for o, s in records)
    os.replace(tmp, index)
    return len(records)


def add_parser(sub):
    from sluice.tools import HelpFormatter

    p = sub.add_parser("tfrecord2idx", help="write the index of a TFRecord file",
                       description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter)
    p.add_argument("tfrecord", help="the TFRecord file")
    p.add_argument("index", help="the index file to write")
    p.set_defaults(func=lambda a: _run(a.tfrecord, a.index))


def _run(tfrecord, index):
    try:
        write_index(tfrecord, index)
    except (OSError, ValueError) as e:
        print(f"tfrecord2idx: {tfrecord}: {e}", file=sys.stderr)
        return 1
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print("Usage: tfrecord2idx <tfrecord filename> <index filename>", file=sys.stderr)
        return 2
    return _run(*argv)


if __name__ == "__main__":
    sys.exit(main())
