"""``python -m sluice.tools.wds2idx ARCHIVE [INDEX]``: the index of a WebDataset tar shard.

Writes DALI's wds2idx format (v1.2), which ``fn.readers.webdataset(index_paths=...)`` reads: a
first line ``v1.2 <samples>``, then one line per sample listing its components as
``<ext> <offset> <size> <member path>``, where offset is that of the member's data. Regular
members only; consecutive members with the same base name (the path up to the first '.' of the
file name) form a sample; names whose base is empty or a folder ("dir/.hidden") are left out.
"""

import argparse
import os
import sys
import tarfile

from sluice.tools import HelpFormatter
from sluice.tools.index_files import write_index_text

INDEX_VERSION = "v1.2"


def split_name(path):
    """("dir/name", "a.b") for "dir/name.a.b"; without a dot, as wds2idx splits it."""
    dot = path.find(".", path.rfind("/") + 1)
    return path[:dot], path[dot + 1:]


def index_lines(archive):
    """The index of `archive` as a list of lines (without newlines)."""
    samples = []
    last = None
    with tarfile.open(archive, "r:") as tar:
        for m in tar:
            if m.type != tarfile.REGTYPE and m.type != tarfile.AREGTYPE:
                continue
            base, ext = split_name(m.name)
            if not base or base.endswith("/"):
                continue
            component = f"{ext} {m.offset_data} {m.size} {m.name}"
            if base != last:
                samples.append([component])
                last = base
            else:
                samples[-1].append(component)
    if not samples:
        raise ValueError(f"{archive}: no samples in the WebDataset archive")
    return [f"{INDEX_VERSION} {len(samples)}"] + [" ".join(s) for s in samples]


def create_index(archive, index):
    """Writes the index of `archive` to `index` (replacing it)."""
    write_index_text(index, "\n".join(index_lines(archive)) + "\n")


def default_index_path(archive):
    """The archive's path up to its first '.' past the name's first character, + ".idx"."""
    return archive[:archive.find(".", archive.rfind("/") + 2)] + ".idx"


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="python -m sluice.tools.wds2idx", formatter_class=HelpFormatter,
        description="Creates the index of a WebDataset tar shard for readers.webdataset "
        "(DALI's wds2idx format).")
    p.add_argument("archive", help="path to the .tar file")
    p.add_argument("index", nargs="?", help="path of the index (default: the archive's, .idx)")
    args = p.parse_args(argv)
    index = args.index if args.index is not None else default_index_path(args.archive)
    try:
        create_index(os.path.abspath(args.archive), os.path.abspath(index))
    except (OSError, ValueError, tarfile.TarError) as e:
        print(f"wds2idx: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
