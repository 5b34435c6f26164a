"""What the index tools (rec2idx, tfrecord2idx, wds2idx) share: an index written to a temporary
file and renamed, so that a failure leaves none behind, and the ``TOOL DATA INDEX`` command."""

import os
import sys


def write_index_text(index, text):
    """Writes `text` to the file `index` (replacing it) through a temporary file."""
    tmp = f"{index}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, index)


def index_command(name, write_index, data, data_help, index_help, help, description):
    """add_parser(sub) and main(argv) of the command `name DATA INDEX` that calls
    write_index(DATA, INDEX); errors (OSError, ValueError) are printed naming DATA and return 1."""

    def run(path, index):
        try:
            write_index(path, index)
        except (OSError, ValueError) as e:
            print(f"{name}: {path}: {e}", file=sys.stderr)
            return 1
        return 0

    def add_parser(sub):
        from sluice.tools import HelpFormatter

        p = sub.add_parser(name, help=help, description=description,
                           formatter_class=HelpFormatter)
        p.add_argument(data, help=data_help)
        p.add_argument("index", help=index_help)
        p.set_defaults(func=lambda a: run(getattr(a, data), a.index))

    def main(argv=None):
        argv = sys.argv[1:] if argv is None else argv
        if len(argv) != 2:
            print(f"Usage: {name} <{data} filename> <index filename>", file=sys.stderr)
            return 2
        return run(*argv)

    return add_parser, main
